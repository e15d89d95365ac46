"""ISO 8601 text as instants: the one reader of time strings for every column of
times (retention's events, the audit's train and test, the split's logs)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np

from ._arrow import is_arrow, to_arrow, to_numpy
from ._string_buffers import is_arrow_string

# a time of day that ends in a UTC offset (Z, +08, +08:00, -0530)
_OFFSET = r"[T ]\d{2}.*([Zz]|[+-]\d{2}(:?\d{2})?)$"


def text_column(values: Any) -> Any:
    """A column of times as Arrow strings where it holds text: Arrow strings of any
    layout (or a dictionary of them), NumPy ``str``, or objects that all are ``str``
    (None a missing time: a null); None for any other column (numbers, datetimes,
    objects of other or of mixed types).

    Examples
    --------
    >>> text_column(np.array(["2024-01-31", None], dtype=object)).null_count
    1
    >>> text_column(np.array([1, 2])) is None
    True
    """
    import pyarrow as pa

    if not is_arrow(values):
        if np.asarray(values).dtype.kind not in "OUT":
            return None
        try:
            values = to_arrow(np.asarray(values))
        except (pa.ArrowInvalid, pa.ArrowTypeError):  # objects of mixed types
            return None
    kind = values.type
    if not is_arrow_string(kind.value_type if pa.types.is_dictionary(kind) else kind):
        return None
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    return values.cast(kind.value_type) if pa.types.is_dictionary(kind) else values


def iso_text(arr: Any) -> Any:
    """Arrow strings (``string``, ``large_string``, ``string_view``) as the text of
    times is read: ``string`` where it fits in one (else ``large_string``), the
    whitespace around each value trimmed.

    Examples
    --------
    >>> import pyarrow as pa
    >>> iso_text(pa.array([" 2024-01-31 "], pa.large_string())).to_pylist()
    ['2024-01-31']
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    if not pa.types.is_string(arr.type):
        arr = arr.cast(pa.string() if arr.nbytes < 2**31 - 1 else pa.large_string())
    return pc.utf8_trim_whitespace(arr)


def has_offset(text: str) -> bool:
    """Whether an ISO 8601 time ends in a UTC offset (``Z``, ``+08``, ``+08:00``,
    ``-0530``), as the text of a time column is told apart by :func:`iso_instants`.

    Examples
    --------
    >>> has_offset("2024-01-31T08:00:00+08:00"), has_offset("2024-01-31")
    (True, False)
    """
    return re.search(_OFFSET, text.strip()) is not None


def iso_instants(arr: Any, unit: str) -> tuple[np.ndarray, str]:
    """ISO 8601 dates and times (Arrow strings of any layout, without nulls) as int64
    instants in ``unit`` (``"s"``, ``"ms"``, ``"us"`` or ``"ns"``) since 1970 UTC, and
    which of them end in a UTC offset: ``"none"``, ``"all"`` or ``"some"``.

    Whitespace around a time is not part of it. A time with a UTC offset is that
    instant, whatever the offsets of the others; one without (and a date) is read as
    a UTC time; a column may hold both. Raises ``pyarrow.ArrowInvalid`` where a
    string is not such a time, or its instant is outside the unit's range.

    Examples
    --------
    >>> import pyarrow as pa
    >>> keys, offsets = iso_instants(pa.array([" 1970-01-02", "1970-01-01T08:00:00+08:00"]), "s")
    >>> keys.tolist(), offsets
    ([86400, 0], 'some')
    """
    return _instants(iso_text(arr), unit)


def text_instants(arr: Any, unit: str) -> np.ndarray:
    """The instants of :func:`iso_instants` of text that :func:`iso_text` made (a caller
    that holds it already: no second trim)."""
    return _instants(arr, unit)[0]


def _instants(arr: Any, unit: str) -> tuple[np.ndarray, str]:
    """:func:`iso_instants` of trimmed text: read as naive times, else as times with an
    offset, else each group as its own."""
    import pyarrow as pa
    import pyarrow.compute as pc

    def cast(a: Any, tz: str | None) -> np.ndarray:
        ts = pc.cast(a, pa.timestamp(unit, tz=tz))
        result: np.ndarray = to_numpy(ts.view(pa.int64()))
        return result

    try:
        return cast(arr, None), "none"
    except pa.ArrowInvalid:
        pass
    try:
        return cast(arr, "UTC"), "all"
    except pa.ArrowInvalid:
        pass
    offsets = pc.match_substring_regex(arr, _OFFSET)
    with_offset = to_numpy(offsets)
    if with_offset.all() or not with_offset.any():
        raise pa.ArrowInvalid(f"not ISO 8601 times in {unit}")
    out = np.empty(len(arr), dtype=np.int64)
    out[with_offset] = cast(arr.filter(offsets), "UTC")
    out[~with_offset] = cast(arr.filter(pc.invert(offsets)), None)
    return out, "some"


def first_unreadable(arr: Any, read: Callable[[Any], object]) -> int:
    """The position of the first value of ``arr`` (an Arrow array) that ``read``
    refuses (raises ``pyarrow.ArrowInvalid`` for), found a block at a time; 0 when
    only the whole array is refused.

    Examples
    --------
    >>> import pyarrow as pa
    >>> first_unreadable(pa.array(["1970-01-01", "soon"]), lambda a: iso_instants(a, "s"))
    1
    """
    import pyarrow as pa

    def ok(a: Any) -> bool:
        try:
            read(a)
        except pa.ArrowInvalid:
            return False
        return True

    step = 4096
    for start in range(0, len(arr), step):
        block = arr.slice(start, step)
        if not ok(block):
            for j in range(len(block)):
                if not ok(block.slice(j, 1)):
                    return start + j
    return 0  # pragma: no cover - the whole array is refused but no single value is

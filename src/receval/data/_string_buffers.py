"""The buffers of Arrow string and binary arrays as the compiled core reads them
(each chunk's offsets and data, or its views), and the codes the core gives their
rows: strings reach NumPy, and are encoded as ids, without a Python object per row
and without pandas (which Arrow's own conversion imports)."""

from __future__ import annotations

from typing import Any

import numpy as np


def is_arrow_string(kind: Any) -> bool:
    """Whether an Arrow type holds strings (``string``, ``large_string``, ``string_view``)."""
    import pyarrow as pa

    return bool(pa.types.is_string(kind) or pa.types.is_large_string(kind) or is_view(kind))


def is_arrow_text(kind: Any) -> bool:
    """Whether an Arrow type holds strings (:func:`is_arrow_string`) or bytes
    (``binary``, ``large_binary``)."""
    import pyarrow as pa

    return bool(is_arrow_string(kind) or pa.types.is_binary(kind) or pa.types.is_large_binary(kind))


def is_view(kind: Any) -> bool:
    """Whether an Arrow type is ``string_view`` (pyarrow 16 and later; older have none)."""
    import pyarrow as pa

    is_view = getattr(pa.types, "is_string_view", None)
    return bool(is_view is not None and is_view(kind))


def factorize_strings(arr: Any, any_order: bool = False) -> tuple[np.ndarray, Any] | None:
    """Codes (in order of first appearance) of an Arrow string or binary array
    (or chunked array) without nulls, and the distinct values (an Arrow array in
    code order), hashed by the compiled core over each chunk's offsets (int32 or
    int64, as the array holds them) and data, or its views (``string_view``),
    never copied into one array (a long array looked up by every thread in one
    table); None for other arrays or without the core.

    Strings that are all integers in their canonical spelling (:func:`integer_strings`:
    the ids of a CSV file read as text, numeric ids exported as strings) are coded by
    their integers (one to one with the strings, so the same codes), through a
    direct-address table where their range is compact, and the distinct ids are
    their integers' canonical spellings again (whose integers :func:`integer_strings`
    reads back, not the text); with ``any_order`` their codes may follow another
    order (:func:`~receval.data._int_ids.factorize_ints`: ascending integers, coded
    in parallel)."""
    import pyarrow as pa

    from .._kernels import compiled, num_threads
    from ._int_ids import factorize_ints

    core = compiled()
    parts = string_buffers(arr, binary=True)
    if core is None or parts is None:
        return None
    view, first_parts, second_parts = parts
    textual = not view and is_arrow_string(arr.type)
    ints = core.canonical_integers(first_parts, second_parts) if textual else None
    if ints is not None and len(ints):
        codes, distinct = factorize_ints(ints, any_order)
        return codes, integers_as_texts(distinct)
    encode = core.factorize_views if view else core.factorize_bytes
    codes, _, offsets, data = encode(first_parts, second_parts, num_threads())
    binary = pa.types.is_binary(arr.type) or pa.types.is_large_binary(arr.type)
    return codes, large_strings(offsets, data, pa.large_binary() if binary else None)


def integer_strings(arr: Any) -> np.ndarray | None:
    """The ids of an Arrow ``string`` or ``large_string`` array (or chunked array)
    without nulls as int64 when every one is an integer written in its canonical
    decimal spelling (``0``, ``7``, ``-12``; not ``007``, ``+7``, ``-0``, ``7.0``),
    read by the compiled core over the buffers in parallel, each piece stopping at
    the first id that is not; None otherwise (other ids, other arrays, nulls, no
    core). The canonical spellings and the int64 values are one to one.

    Examples
    --------
    >>> import pyarrow as pa
    >>> integer_strings(pa.array(["7", "-12", "0"])).tolist()
    [7, -12, 0]
    >>> integer_strings(pa.array(["7", "007"])) is None
    True
    """
    from .._kernels import compiled

    known = written_integers(arr)
    if known is not None:
        return known
    core = compiled()
    parts = string_buffers(arr, binary=False)
    if core is None or parts is None or parts[0] or arr.null_count:
        return None
    ints: np.ndarray | None = core.canonical_integers(parts[1], parts[2])
    return ints


#: the integers of the distinct ids that :func:`factorize_strings` wrote as text, by
#: the id of their array (an entry goes with its array): :func:`integer_strings` of
#: that array (a batch's ids looked up in integer qrels) reads them, not the text
_INTEGERS_OF_TEXTS: dict[int, tuple[Any, np.ndarray]] = {}


def written_integers(arr: Any) -> np.ndarray | None:
    """The integers whose canonical spellings :func:`factorize_strings` wrote as the
    array ``arr`` (the same object), or None."""
    known = _INTEGERS_OF_TEXTS.get(id(arr))
    return known[1] if known is not None and known[0]() is arr else None


def integers_as_texts(ints: np.ndarray) -> Any:
    """Distinct int64 ``ints`` as the Arrow array of their canonical spellings, written
    by the compiled core (whose integers :func:`integer_strings` reads back)."""
    from .._kernels import compiled

    ints = ints.astype(np.int64, copy=False)
    texts = large_strings(*compiled().integer_texts(ints))
    _remember_integers(texts, ints)
    return texts


def _remember_integers(texts: Any, ints: np.ndarray) -> None:
    import weakref

    key = id(texts)
    ints.flags.writeable = False  # shared by every reader of the array
    _INTEGERS_OF_TEXTS[key] = (
        weakref.ref(texts, lambda _: _INTEGERS_OF_TEXTS.pop(key, None)),
        ints,
    )


def string_buffers(arr: Any, binary: bool) -> tuple[bool, list[Any], list[Any]] | None:
    """The buffers of each chunk of an Arrow string array (or chunked array; with
    ``binary``, of binary arrays too) as the compiled core reads them: ``(True,
    views, data buffers)`` for ``string_view``, ``(False, offsets, data)`` for the
    others (int32 or int64 offsets, as the array holds them), each from the chunk's
    first row; None for other arrays."""
    import pyarrow as pa

    kind = arr.type
    chunks = arr.chunks if isinstance(arr, pa.ChunkedArray) else [arr]
    if is_view(kind):
        views, buffers = [], []
        for chunk in chunks:
            _, view_buffer, *data = chunk.buffers()
            start, n = chunk.offset, len(chunk)
            views.append(arrow_bytes(view_buffer)[16 * start : 16 * (start + n)])
            buffers.append([arrow_bytes(b) for b in data])
        return True, views, buffers
    if not (is_arrow_text(kind) if binary else is_arrow_string(kind)):
        return None
    wide = pa.types.is_large_string(kind) or pa.types.is_large_binary(kind)
    offsets, data = [], []
    for chunk in chunks:
        _, offsets_buffer, data_buffer = chunk.buffers()
        start, n = chunk.offset, len(chunk)
        if offsets_buffer is None:  # an empty chunk may have no buffers
            offsets_buffer = pa.py_buffer(np.zeros(1, np.int64 if wide else np.int32))
            start, n = 0, 0
        view = np.frombuffer(offsets_buffer, dtype=np.int64 if wide else np.int32)
        offsets.append(view[start : start + n + 1])
        data.append(arrow_bytes(data_buffer))
    return False, offsets, data


def large_strings(offsets: np.ndarray, data: np.ndarray, kind: Any = None) -> Any:
    """An Arrow ``large_string`` array (or ``kind``: ``large_binary``) of int64
    ``offsets`` and UTF-8 ``data``."""
    import pyarrow as pa

    buffers = [None, pa.py_buffer(offsets), pa.py_buffer(data)]
    return pa.Array.from_buffers(kind or pa.large_string(), len(offsets) - 1, buffers)


def arrow_bytes(buffer: Any) -> np.ndarray:
    """An Arrow buffer as a NumPy view of its bytes (empty for no buffer)."""
    return np.empty(0, np.uint8) if buffer is None else np.frombuffer(buffer, np.uint8)

"""String ids read from Arrow buffers by the compiled core: a column's offsets and
data (or views) handed over where they lie, no Python object per row. The distinct
ids stay an Arrow array (:func:`kept_ids`), looked up in another such array by the
core (:func:`lookup_strings`), and become NumPy only when asked for
(:func:`ids_to_numpy`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._arrow import is_arrow, to_numpy


def is_arrow_string(kind: Any) -> bool:
    """Whether an Arrow type holds strings (``string``, ``large_string``, ``string_view``)."""
    import pyarrow as pa

    return bool(pa.types.is_string(kind) or pa.types.is_large_string(kind) or is_view(kind))


def is_view(kind: Any) -> bool:
    """Whether an Arrow type is ``string_view`` (pyarrow 16 and later; older have none)."""
    import pyarrow as pa

    is_view = getattr(pa.types, "is_string_view", None)
    return bool(is_view is not None and is_view(kind))


def to_arrow(values: Any) -> Any:
    """An Arrow array of a NumPy array (or a list): NumPy's str and bytes (and
    objects) as Python objects, since Arrow cuts each string of a NumPy str or bytes
    array at its first NUL (``"a\\x00b"`` would be ``"a"``); an Arrow array as it is."""
    import pyarrow as pa

    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        return values
    if isinstance(values, np.ndarray) and values.dtype.kind in "OUS":
        return pa.array(values.tolist())
    return pa.array(values)


def kept_ids(arr: Any) -> Any:
    """Distinct ids read from Arrow: strings (``string``, ``large_string``) stay the
    Arrow array (no Python object per id until :func:`ids_to_numpy`), others become
    NumPy."""
    import pyarrow as pa

    if pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type):
        return arr
    return values_to_numpy(arr)


def take_ids(ids: Any, at: Any) -> Any:
    """The ids at positions ``at`` (a slice or indices), kept as they are (NumPy, or
    an Arrow array as :func:`kept_ids` keeps them)."""
    if isinstance(ids, np.ndarray) or isinstance(at, slice):
        return ids[at]
    from ._arrow import arrow_integers

    return ids.take(arrow_integers(np.asarray(at)))


def ids_to_numpy(ids: Any) -> np.ndarray:
    """Distinct ids as NumPy (strings as an object array), from NumPy or as
    :func:`kept_ids` keeps them."""
    return ids if isinstance(ids, np.ndarray) else values_to_numpy(ids)


def lookup_strings(values: Any, dictionary: Any) -> np.ndarray | None:
    """Index (int32) of each of the string ids ``values`` among the distinct ids
    ``dictionary`` (the first of equal ids), -1 where absent, hashed by the core:
    Arrow strings over both arrays' buffers, object arrays of ``str`` read in
    place. None for other pairs (an Arrow array beside NumPy,
    an element that is not a ``str``) or without the core."""
    import pyarrow as pa

    from .._kernels import compiled

    core = compiled()
    if core is None:
        return None
    if isinstance(values, np.ndarray) or isinstance(dictionary, np.ndarray):
        objects = all(
            isinstance(x, np.ndarray) and x.dtype.kind == "O" for x in (values, dictionary)
        )
        if not objects:
            return None
        found: np.ndarray | None = core.lookup_str(
            np.ascontiguousarray(values), np.ascontiguousarray(dictionary)
        )
        return found
    if values.type != dictionary.type:  # string beside large_string: both large
        values, dictionary = values.cast(pa.large_string()), dictionary.cast(pa.large_string())
    if values.equals(dictionary):  # the same ids in the same order (one buffer compare)
        return np.arange(len(values), dtype=np.int32)
    both = [string_buffers(dictionary, binary=False), string_buffers(values, binary=False)]
    if any(parts is None or parts[0] for parts in both):
        return None
    offsets = [o for parts in both if parts is not None for o in parts[1]]
    data = [d for parts in both if parts is not None for d in parts[2]]
    found = core.lookup_bytes(offsets, data, len(dictionary))
    return found


def values_to_numpy(arr: Any) -> np.ndarray:
    """Distinct values of an Arrow array as NumPy: strings and bytes as an object array
    (from ``to_pylist``: Arrow's own conversion imports pandas, a quarter of a
    second, where it is installed; once pandas is loaded, by that conversion, faster
    for many values), others as :func:`~receval.data._arrow.to_numpy` gives them."""
    import sys

    import pyarrow as pa

    kind = arr.type
    if is_arrow_string(kind) or pa.types.is_binary(kind) or pa.types.is_large_binary(kind):
        if len(arr) >= 1 << 12 and "pandas" in sys.modules:
            if is_view(kind):  # pyarrow 14 converts no string_view
                arr = arr.cast(pa.large_string())
            result: np.ndarray = arr.to_numpy(zero_copy_only=False)
            return result
        return np.array(arr.to_pylist(), dtype=object)
    return to_numpy(arr)


def strings_to_numpy(arr: Any) -> np.ndarray:
    """An Arrow array (or chunked array) as NumPy, as its ``to_numpy(zero_copy_only=False)``
    gives it but without pandas: strings and bytes as an object array, each distinct
    value one Python object (the rows coded by the core, :func:`factorize_strings`;
    with nulls, None at theirs), others as :func:`values_to_numpy` gives them."""
    encoded = None if arr.null_count else factorize_strings(arr)
    if encoded is None:
        return values_to_numpy(arr)
    codes, distinct = encoded
    result: np.ndarray = values_to_numpy(distinct)[codes]
    return result


def factorize_strings(arr: Any) -> tuple[np.ndarray, Any] | None:
    """Codes (in order of first appearance) of an Arrow string or binary array
    (or chunked array) without nulls, and the distinct values (an Arrow array in
    code order), hashed by the compiled core over each chunk's offsets (int32 or
    int64, as the array holds them) and data, or its views (``string_view``),
    never copied into one array (a long array looked up by every thread in one
    table); None for other arrays or without the core."""
    import pyarrow as pa

    from .._kernels import compiled, num_threads

    core = compiled()
    parts = string_buffers(arr, binary=True)
    if core is None or parts is None:
        return None
    view, first_parts, second_parts = parts
    encode = core.factorize_views if view else core.factorize_bytes
    codes, _, offsets, data = encode(first_parts, second_parts, num_threads())
    binary = pa.types.is_binary(arr.type) or pa.types.is_large_binary(arr.type)
    return codes, large_strings(offsets, data, pa.large_binary() if binary else None)


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
    kinds = [pa.types.is_string, pa.types.is_large_string]
    if binary:
        kinds += [pa.types.is_binary, pa.types.is_large_binary]
    if not any(is_kind(kind) for is_kind in kinds):
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


def string_runs(values: Any) -> tuple[np.ndarray, np.ndarray, Any] | None:
    """The runs of equal neighbours of a string column without nulls (an Arrow
    string column or chunked column, or an object array of ``str``), encoded: their
    bounds (then the row count), each run's code and the distinct ids (an Arrow
    ``large_string`` array in code order, as the core gives them); only the first row of
    a run is hashed, and a column grouped by user (every id in one run) needs no
    code per row. None for other columns (an object array holding anything but
    ``str``) or without the core."""
    from .._kernels import compiled, num_threads

    core = compiled()
    if core is None:
        return None
    if isinstance(values, np.ndarray):
        one_dim = values.dtype.kind == "O" and values.ndim == 1
        found = core.factorize_str_runs(np.ascontiguousarray(values)) if one_dim else None
    elif is_arrow(values) and hasattr(values, "type"):
        parts = string_buffers(values, binary=False)
        if parts is None or values.null_count:
            return None
        view, first_parts, second_parts = parts
        encode = core.factorize_view_runs if view else core.factorize_byte_runs
        found = encode(first_parts, second_parts, num_threads())
    else:
        return None
    if found is None:
        return None
    starts, codes, offsets, data = found
    return np.append(starts, len(values)), codes, large_strings(offsets, data)

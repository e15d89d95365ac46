"""Arrow arrays as NumPy (views where they can be), and Arrow arrays over NumPy's
memory, without pandas: pyarrow's ``to_numpy`` (even without a copy) and
``pa.array`` of a NumPy array import pandas (0.2 s, most of a short command's
time), so the readers and encoders go through the arrays' buffers instead."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._string_buffers import factorize_strings, is_arrow_text, is_view


def is_arrow(x: Any) -> bool:
    """Whether ``x`` is one of pyarrow's objects (an array, a chunked array, a table),
    told by its type's module (pyarrow need not be imported to ask)."""
    return type(x).__module__.startswith("pyarrow")


def numeric_view(chunk: Any) -> np.ndarray | None:
    """An Arrow array of integers or floats without nulls as a NumPy view of its
    buffer (no copy); None for other arrays."""
    import pyarrow as pa

    kind = chunk.type
    if not (pa.types.is_integer(kind) or pa.types.is_floating(kind)) or chunk.null_count:
        return None
    if pa.types.is_float16(kind):
        return None
    # the values buffer as it is (Array.to_numpy would import pandas, 0.2 s)
    dtype = np.dtype(_NUMPY_DTYPES[str(kind)])
    values = chunk.buffers()[1]
    if values is None or not len(chunk):
        view = np.empty(0, dtype)
    else:
        view = np.frombuffer(values, dtype, len(chunk), chunk.offset * dtype.itemsize)
    view.flags.writeable = False  # Arrow's memory
    return view


def numbers_view(arr: Any) -> np.ndarray:
    """:func:`numeric_view` of an Arrow array known to hold numbers without nulls (a
    result of Arrow's compute functions): ``to_numpy`` imports pandas."""
    view = numeric_view(arr)
    if view is None:  # a caller's mistake, not the input's
        raise TypeError(f"numbers_view: an Arrow array of numbers without nulls, got {arr.type}")
    return view


def to_numpy(arr: Any) -> np.ndarray:
    """An Arrow array or chunked array as NumPy, as its ``to_numpy(zero_copy_only=False)``
    gives it, without pandas (which that conversion imports) for the types ids,
    labels and scores come in: numbers without nulls as a view (read-only, no copy)
    where they are one chunk, a new array where they are several; integers with
    nulls as float64 and floats with nulls in their type, nulls NaN; booleans
    without nulls as ``bool``; strings and bytes as an object array, each distinct
    value one Python object (the rows coded by the compiled core; with nulls, from
    ``to_pylist``, None at theirs); dictionary arrays without nulls as their values.
    Other types (dates, booleans with nulls, ...) through Arrow's conversion.

    Examples
    --------
    >>> import pyarrow as pa
    >>> to_numpy(pa.chunked_array([["b", "a"], ["b"]])).tolist()
    ['b', 'a', 'b']
    >>> to_numpy(pa.array([3, None])).tolist()
    [3.0, nan]
    """
    import pyarrow as pa

    if is_arrow_text(arr.type):  # the chunks hashed at once, into one table
        encoded = None if arr.null_count else factorize_strings(arr)
        if encoded is None:
            return values_to_numpy(arr)
        codes, distinct = encoded
        strings: np.ndarray = values_to_numpy(distinct)[codes]
        return strings
    if isinstance(arr, pa.ChunkedArray):
        if arr.num_chunks != 1:  # a new array, writable, as Arrow's conversion makes it
            parts = [to_numpy(chunk) for chunk in arr.chunks]
            return np.concatenate(parts) if parts else np.array(to_numpy(arr.combine_chunks()))
        arr = arr.chunk(0)
    kind = arr.type
    if pa.types.is_integer(kind) or (pa.types.is_floating(kind) and not pa.types.is_float16(kind)):
        if not arr.null_count:
            return numbers_view(arr)
        import pyarrow.compute as pc

        floats = arr.cast(pa.float64()) if pa.types.is_integer(kind) else arr
        filled = numbers_view(pc.fill_null(floats, float("nan")))
        return np.array(filled)  # a copy, writable, as Arrow's conversion gives it
    if pa.types.is_boolean(kind) and not arr.null_count:  # bits: a new array, writable
        return np.array(numbers_view(arr.cast(pa.uint8())).view(np.bool_))
    if pa.types.is_dictionary(kind) and not arr.null_count:
        decoded: np.ndarray = to_numpy(arr.dictionary)[to_numpy(arr.indices)]
        return decoded
    return np.asarray(arr.to_numpy(zero_copy_only=False))


def values_to_numpy(arr: Any) -> np.ndarray:
    """Distinct values of an Arrow array as NumPy: strings and bytes as an object array
    (from ``to_pylist``: Arrow's own conversion imports pandas, a quarter of a
    second, where it is installed; once pandas is loaded, by that conversion, faster
    for many values), others as :func:`to_numpy` gives them."""
    import sys

    import pyarrow as pa

    kind = arr.type
    if not is_arrow_text(kind):
        return to_numpy(arr)
    if len(arr) >= 1 << 12 and "pandas" in sys.modules:
        if is_view(kind):  # pyarrow 14 converts no string_view
            arr = arr.cast(pa.large_string())
        result: np.ndarray = arr.to_numpy(zero_copy_only=False)
        return result
    return np.array(arr.to_pylist(), dtype=object)


def arrow_integers(values: np.ndarray) -> Any:
    """Integers of NumPy (positions, codes, ids) as an Arrow array of their type over
    the same memory: ``pa.array`` of a NumPy array imports pandas."""
    import pyarrow as pa

    if not len(values):  # of any dtype (np.asarray([]) is float64)
        values = np.empty(0, np.int64)
    if values.dtype.kind not in "iu":  # a caller's mistake: a mask is not positions
        raise TypeError(f"arrow_integers: NumPy integers, got {values.dtype}")
    values = np.ascontiguousarray(values)
    kind = pa.from_numpy_dtype(values.dtype)
    return pa.Array.from_buffers(kind, len(values), [None, pa.py_buffer(values)])


#: NumPy dtypes of Arrow's integer and floating types, by name
_NUMPY_DTYPES = {
    **{f"int{b}": f"int{b}" for b in (8, 16, 32, 64)},
    **{f"uint{b}": f"uint{b}" for b in (8, 16, 32, 64)},
    "float": "float32",
    "double": "float64",
}

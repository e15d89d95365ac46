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
    return _values(chunk, np.dtype(_NUMPY_DTYPES[str(kind)]))


def _values(chunk: Any, dtype: np.dtype[Any]) -> np.ndarray:
    """The values buffer of an Arrow array of fixed width as it is (a read-only view;
    Array.to_numpy would import pandas, 0.2 s), read as ``dtype``."""
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
    nulls as float64 and floats with nulls in their type (half floats too), nulls
    NaN; booleans without nulls as ``bool``; timestamps, dates and durations as
    ``datetime64`` and ``timedelta64`` of their unit, nulls NaT; strings and bytes
    as an object array, each distinct value one Python object (the rows coded by the
    compiled core), None at the nulls; dictionary arrays without nulls as their
    values (a chunked one's dictionaries made one first). Other types (booleans
    with nulls, lists, ...) through Arrow's conversion.

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
        if arr.null_count:  # the valid rows as without nulls, None at the others
            texts = np.full(len(arr), None, dtype=object)
            texts[to_numpy(arr.is_valid())] = to_numpy(arr.drop_null())
            return texts
        encoded = factorize_strings(arr)
        if encoded is None:
            return values_to_numpy(arr)
        codes, distinct = encoded
        strings: np.ndarray = values_to_numpy(distinct)[codes]
        return strings
    if isinstance(arr, pa.ChunkedArray):
        if arr.num_chunks > 1 and pa.types.is_dictionary(arr.type) and not arr.null_count:
            # one dictionary for every chunk (each chunk's may repeat the others')
            unified = arr.unify_dictionaries()
            indices = np.concatenate([to_numpy(chunk.indices) for chunk in unified.chunks])
            decoded: np.ndarray = to_numpy(unified.chunk(0).dictionary)[indices]
            return decoded
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
    if pa.types.is_float16(kind):
        halves = _values(arr, np.dtype(np.float16))
        if not arr.null_count:
            return halves
        halves = np.array(halves)  # a copy, writable, NaN at the nulls
        halves[to_numpy(arr.is_null())] = np.nan
        return halves
    if pa.types.is_timestamp(kind) or pa.types.is_duration(kind) or pa.types.is_date(kind):
        return _times(arr)
    if pa.types.is_dictionary(kind) and not arr.null_count:
        values: np.ndarray = to_numpy(arr.dictionary)[to_numpy(arr.indices)]
        return values
    return np.asarray(arr.to_numpy(zero_copy_only=False))


def _times(arr: Any) -> np.ndarray:
    """An Arrow array of timestamps, dates or durations as Arrow's conversion gives it:
    ``datetime64`` (``timedelta64``) of its unit (days for ``date32``, milliseconds for
    ``date64``), a view without nulls (dates: a new array), nulls NaT."""
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = arr.type
    if pa.types.is_date32(kind):
        unit, storage = "D", pa.int32()
    else:
        unit, storage = ("ms" if pa.types.is_date64(kind) else kind.unit), pa.int64()
    dtype = np.dtype(f"{'timedelta64' if pa.types.is_duration(kind) else 'datetime64'}[{unit}]")
    counts = arr.view(storage)
    if arr.null_count:  # NaT is the least int64
        filled = pc.fill_null(counts.cast(pa.int64()), np.iinfo(np.int64).min)
        return np.array(numbers_view(filled)).view(dtype)
    view = numbers_view(counts)
    return view.astype(dtype) if pa.types.is_date(kind) else view.view(dtype)


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


def take_at(values: Any, at: Any) -> Any:
    """``values`` (NumPy, or an Arrow array, chunked array or table) at positions ``at``
    (a slice, or NumPy integers), kept as they are: NumPy's indexing, or Arrow's take
    at the positions over their memory (an Arrow take of NumPy positions imports
    pandas). Arrow has no take of ``string_view``: such a column is taken as
    ``large_string`` and made a ``string_view`` again.

    Examples
    --------
    >>> import pyarrow as pa
    >>> take_at(pa.array(["a", "b", "c"], pa.string_view()), np.array([2, 0])).to_pylist()
    ['c', 'a']
    """
    if isinstance(values, np.ndarray) or isinstance(at, slice):
        return values[at]
    return _take(values, arrow_integers(np.asarray(at)))


def _take(values: Any, positions: Any) -> Any:
    """:func:`take_at` of Arrow values at Arrow positions."""
    import pyarrow as pa

    if isinstance(values, pa.Table):
        if not any(is_view(kind) for kind in values.schema.types):
            return values.take(positions)
        columns = [_take(column, positions) for column in values.columns]
        return pa.Table.from_arrays(columns, schema=values.schema)
    if is_view(values.type):
        return values.cast(pa.large_string()).take(positions).cast(values.type)
    return values.take(positions)


def arrow_integers(values: np.ndarray, valid: np.ndarray | None = None) -> Any:
    """Integers of NumPy (positions, codes, ids) as an Arrow array of their type over
    the same memory, null where ``valid`` (booleans) is false: ``pa.array`` of a
    NumPy array imports pandas."""
    if not len(values):  # of any dtype (np.asarray([]) is float64)
        values = np.empty(0, np.int64)
    if values.dtype.kind not in "iu":  # a caller's mistake: a mask is not positions
        raise TypeError(f"arrow_integers: NumPy integers, got {values.dtype}")
    return _over(values, valid)


def _over(values: np.ndarray, valid: np.ndarray | None = None) -> Any:
    """NumPy numbers (one dimension) as an Arrow array of their type over the same
    memory (contiguous and in the machine's byte order: a copy where they are strided
    or byte-swapped), null where ``valid`` is false."""
    import pyarrow as pa

    values = np.ascontiguousarray(values, dtype=values.dtype.newbyteorder("="))
    kind = pa.from_numpy_dtype(values.dtype)
    bits = None if valid is None else pa.py_buffer(np.packbits(valid, bitorder="little"))
    return pa.Array.from_buffers(kind, len(values), [bits, pa.py_buffer(values)])


def to_arrow(values: Any) -> Any:
    """An Arrow array of a NumPy array (or a list), as ``pa.array`` makes it but without
    pandas (which ``pa.array`` imports): numbers over NumPy's memory, booleans packed
    into bits, NumPy's str and bytes (and objects that all are ``str``, or all
    ``bytes``) from their UTF-8 bytes, whole (Arrow's own conversion of a NumPy str
    or bytes array cuts each string at its first NUL: ``"a\\x00b"`` would be
    ``"a"``); an Arrow array as it is. Other values (objects of mixed types, times,
    lists) through ``pa.array`` of their list.

    Examples
    --------
    >>> to_arrow(np.array(["a\\x00b", "c"])).to_pylist()
    ['a\\x00b', 'c']
    >>> to_arrow(np.array([2, 7])).type
    DataType(int64)
    """
    import pyarrow as pa

    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        return values
    if isinstance(values, np.ndarray) and values.ndim == 1:
        kind = values.dtype.kind
        if kind in "iuf":
            return _over(values)
        if kind == "b":
            bits = pa.py_buffer(np.packbits(values, bitorder="little"))
            return pa.Array.from_buffers(pa.bool_(), len(values), [None, bits])
        if kind in "OUS":
            texts = _texts(values.tolist())
            if texts is not None:
                return texts
    if isinstance(values, np.ndarray):
        return pa.array(values.tolist() if values.dtype.kind in "OUS" else values)
    return pa.array(values)


def _texts(items: list[Any]) -> Any:
    """An Arrow ``string`` (``binary``) array of Python ``str`` (``bytes``) objects,
    built from their bytes (``large_`` past 2 GiB of them); None where there are none,
    the objects are not all of one of those types, or a string cannot be UTF-8 (a lone
    surrogate)."""
    import pyarrow as pa

    if not items:  # pa.array gives the null type: no values to tell the type
        return None
    if all(isinstance(x, str) for x in items):
        try:
            encoded = [x.encode() for x in items]
        except UnicodeEncodeError:
            return None
        kinds = pa.string(), pa.large_string()
    elif all(isinstance(x, bytes) for x in items):
        encoded, kinds = items, (pa.binary(), pa.large_binary())
    else:
        return None
    lengths = np.fromiter(map(len, encoded), np.int64, len(encoded))
    offsets = np.zeros(len(encoded) + 1, np.int64)
    np.cumsum(lengths, out=offsets[1:])
    small = offsets[-1] < 1 << 31
    buffers = [None, pa.py_buffer(offsets.astype(np.int32) if small else offsets)]
    buffers.append(pa.py_buffer(b"".join(encoded)))
    return pa.Array.from_buffers(kinds[0] if small else kinds[1], len(encoded), buffers)


def concat_columns(parts: list[Any], name: str) -> Any:
    """One column of the rows of ``parts``, in order: pieces of the column ``name``
    read from batches or files whose types may differ in width or encoding (``int32``
    beside ``int64``, ``string`` beside ``large_string`` or a dictionary of strings,
    an Arrow array with nulls beside NumPy). NumPy pieces give NumPy; any Arrow piece
    gives Arrow, dictionaries decoded, text of several types as ``large_string``.
    Integers keep their values: unsigned 64-bit beside signed integers (which NumPy
    would promote to float64, merging ids above 2**53) are int64 where every value
    fits, else uint64 where none is negative.

    Raises
    ------
    InputValidationError
        Integers above the int64 range beside negative integers: no integer type
        holds both.

    Examples
    --------
    >>> import pyarrow as pa
    >>> both = concat_columns([pa.array(["a"]), pa.array(["b"]).dictionary_encode()], "user")
    >>> both.type, both.to_pylist()
    (DataType(string), ['a', 'b'])
    >>> concat_columns([pa.array(["a"]), pa.array(["b"], pa.large_string())], "user").type
    DataType(large_string)
    >>> concat_columns([np.array([2**60 + 1], np.uint64), np.array([2**60])], "user")
    array([1152921504606846977, 1152921504606846976])
    """
    import pyarrow as pa

    if all(isinstance(p, np.ndarray) for p in parts):
        target = _common_integers([p.dtype for p in parts], parts, name)
        return np.concatenate(parts if target is None else [p.astype(target) for p in parts])
    arrays = [to_arrow(p) for p in parts]
    arrays = [a.dictionary_decode() if pa.types.is_dictionary(a.type) else a for a in arrays]
    kinds = {a.type for a in arrays}
    if len(kinds) > 1:
        common = None
        if all(is_arrow_text(k) for k in kinds):
            common = pa.large_string()
        elif all(str(k) in _NUMPY_DTYPES or pa.types.is_float16(k) for k in kinds):
            dtypes = [np.dtype(_NUMPY_DTYPES.get(str(k), "float16")) for k in kinds]
            target = _common_integers(dtypes, arrays, name)
            common = pa.from_numpy_dtype(np.result_type(*dtypes) if target is None else target)
        if common is not None:  # other types as they are: Arrow names them
            arrays = [a.cast(common) for a in arrays]
    return pa.concat_arrays(arrays)


def _common_integers(dtypes: list[np.dtype[Any]], parts: list[Any], name: str) -> Any:
    """The integer dtype that holds every value of ``parts`` when their ``dtypes`` are
    integers that NumPy would promote to float64 (uint64 beside signed); None when
    NumPy's promotion keeps them exact."""
    if any(d.kind not in "iu" for d in dtypes) or np.result_type(*dtypes).kind != "f":
        return None
    import pyarrow.compute as pc

    def bound(p: Any, which: str) -> int:
        if not len(p):
            return 0
        if isinstance(p, np.ndarray):
            return int(p.max() if which == "max" else p.min())
        value = pc.min_max(p)[which].as_py()
        return 0 if value is None else int(value)

    low = min(bound(p, "min") for p in parts)
    high = max(bound(p, "max") for p in parts)
    if high < 1 << 63:
        return np.dtype(np.int64)
    if low >= 0:
        return np.dtype(np.uint64)
    from ..exceptions import InputValidationError

    raise InputValidationError(
        f"{name}: holds integers above the int64 range (uint64) and negative integers, "
        f"which no integer type holds together. Got {low} and {high}; write the column "
        f"with one integer type."
    )


#: NumPy dtypes of Arrow's integer and floating types, by name
_NUMPY_DTYPES = {
    **{f"int{b}": f"int{b}" for b in (8, 16, 32, 64)},
    **{f"uint{b}": f"uint{b}" for b in (8, 16, 32, 64)},
    "float": "float32",
    "double": "float64",
}

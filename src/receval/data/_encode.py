"""Dense integer codes for user, item and group ids (ints or strings; never hashed)."""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import as_1d, format_values, missing_values
from ..engine.loop.tensors import on_host
from ..exceptions import InputValidationError
from ._arrow import arrow_integers, is_arrow, numbers_view, to_arrow, to_numpy, values_to_numpy
from ._int_ids import core_ids, each_once, factorize_ints
from ._string_buffers import (
    factorize_strings,
    is_arrow_string,
    is_arrow_text,
    is_view,
    large_strings,
    string_buffers,
)
from ._strings import ids_to_numpy, kept_ids, string_runs

# the dtypes of polars categorical Series read so far (by the Series' id; its weak
# reference tells that it is the same Series and drops the entry with it)
_POLARS_CATEGORICAL: dict[int, tuple[weakref.ref[Any], Any]] = {}


def _polars_dtype(col: Any) -> Any:
    """The dtype of a polars Series, a ``Categorical`` or ``Enum`` one read once per
    Series: polars builds an Enum's dtype anew at each read, from its categories
    (8-23 ms a read for 200,000 of them), and a column is looked at before it is
    encoded. (A Series' dtype does not change in place.)"""
    import polars as pl

    held = _POLARS_CATEGORICAL.get(id(col))
    if held is not None and held[0]() is col:
        return held[1]
    dtype = col.dtype
    if isinstance(dtype, (pl.Categorical, pl.Enum)):
        key = id(col)
        gone = weakref.ref(col, lambda _: _POLARS_CATEGORICAL.pop(key, None))
        _POLARS_CATEGORICAL[key] = (gone, dtype)
    return dtype


@dataclass(frozen=True)
class IdColumn:
    """A column of ids as :func:`column_array` gives it (``array``) and whether it is
    a dictionary array whose categories are known distinct (``distinct``: pandas and
    polars categories, chunks' dictionaries joined; an Arrow dictionary need not
    be), whose values then need no hash to be told apart, and its indices where
    they are codes already (``codes``: every category used by a row, in any order),
    a NumPy array of receval's own (the indices' memory, writable: ranked in place).
    """

    array: Any
    distinct: bool = False
    codes: np.ndarray | None = None


@dataclass(eq=False)
class EncodedIds:
    """Ids already encoded (by the TREC reader): ``codes`` (int32, in order of first
    appearance) and ``uniques`` (the distinct ids); :func:`factorize` returns them.

    Rows grouped by id in code order may come as ``offsets`` instead (the rows of
    code ``c`` are ``offsets[c]:offsets[c + 1]``; ``codes`` is then None):
    :func:`int_runs` returns them, :func:`factorize` the codes they stand for.
    """

    codes: np.ndarray | None
    uniques: np.ndarray
    offsets: np.ndarray | None = None

    def __len__(self) -> int:
        return int(self.row_offsets[-1]) if self.codes is None else len(self.codes)

    @property
    def row_offsets(self) -> np.ndarray:
        """``offsets``, for ids given as grouped rows (``codes`` None)."""
        if self.offsets is None:  # pragma: no cover - the constructors give one of the two
            raise ValueError("EncodedIds holds neither codes nor offsets.")
        return self.offsets


def factorize(
    values: Any, name: str, func: str, *, any_order: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Encode ids to codes ``0..n_unique-1`` in order of first appearance:
    :func:`encode_ids` with the distinct ids as NumPy."""
    codes, ids = encode_ids(values, name, func, any_order=any_order)
    return codes, ids_to_numpy(ids)


def encode_ids(
    values: Any, name: str, func: str, *, any_order: bool = False
) -> tuple[np.ndarray, Any]:
    """Encode ids to codes ``0..n_unique-1`` in order of first appearance.

    Returns ``(codes, uniques)`` with ``uniques[codes] == values``; string ids
    read from Arrow give their uniques as an Arrow array (:func:`kept_ids`; NumPy
    by :func:`ids_to_numpy`), others as NumPy. Integer ids over a compact range use
    a direct-address table (O(n)), those of a wider range, strings and bytes the
    compiled core's hash tables (:func:`~receval.data._int_ids.factorize_ints`,
    :func:`~receval.data._string_buffers.factorize_strings`); other values Arrow's
    ``dictionary_encode``. Floats are accepted when they hold whole numbers.
    Missing ids (None, NaN) raise ``InputValidationError``, and so do ids of two
    types (numbers and strings), in a list as in an object column. With
    ``any_order=True`` the codes may follow another order (ascending ids for
    large integer columns, which can then be encoded in parallel).
    """
    column = _column(values, name, func)
    values = column.array
    if isinstance(values, EncodedIds):
        if values.codes is None:
            codes = np.arange(len(values.uniques), dtype=np.int32)
            return np.repeat(codes, np.diff(values.row_offsets)), values.uniques
        return values.codes, values.uniques
    if is_arrow(values):
        if _is_dictionary(values):
            return _factorize_dictionary(values, name, func, any_order, column)
        return _factorize_arrow(values, name, func, any_order)  # strings (column_array gives them)
    arr = as_1d(values, name, func)
    n = arr.shape[0]
    if n == 0:
        return np.empty(0, dtype=np.int64), arr
    if arr.dtype.kind == "f" and not isinstance(values, np.ndarray) and _wide_ints(values):
        arr = np.array(list(values), dtype=object)  # NumPy made floats of them: ids merged
    if arr.dtype.kind == "O":
        arr = _float_objects(arr)
    kind = arr.dtype.kind
    if kind in "US" and isinstance(values, (list, tuple)):
        types = {type(x) for x in values}
        if not any(all(issubclass(t, base) for t in types) for base in (str, bytes)):
            # NumPy spelled the numbers as strings ([1, "1"] as ['1', '1']: two ids
            # made one); as objects, the mix is refused below as a column of them is
            arr = np.array(list(values), dtype=object)
            kind = "O"
    if kind == "b":
        arr = arr.astype(np.int64)
        kind = "i"
    if kind == "f":
        arr = float_id_values(arr, name, func)
        if np.array_equal(arr, np.floor(arr)) and np.abs(arr).max() < 2**53:
            arr = arr.astype(np.int64)
            kind = "i"
    if kind in "iu":
        return factorize_ints(arr, any_order)
    if kind in "US":  # NumPy's str or bytes: Arrow would cut each at its first NUL
        if n <= _FEW_STRINGS:  # a few: a dict, no trip through Arrow
            first: dict[Any, int] = {}
            ids = arr.tolist()
            codes = np.fromiter((first.setdefault(x, len(first)) for x in ids), np.int32, n)
            for x in first if kind == "U" else ():
                _check_unicode(x, name, func)
            return codes, np.array(list(first), dtype=arr.dtype)
        codes, uniques = _factorize_arrow(arr.astype(object), name, func)
        return codes, ids_to_numpy(uniques).astype(arr.dtype)
    return _factorize_arrow(arr, name, func, any_order)


def float_ids(values: Any, name: str, func: str) -> EncodedIds:
    """Float ids encoded as floats, whole or not: a part of a column that holds a
    fraction or a float from ``2**53`` on, which :func:`encode_ids` keeps as floats
    (whole floats become integers only where the whole column is whole and below
    ``2**53``), encoded as the whole column is (a Spark partition of it), with the
    same errors (missing ids, infinity)."""
    arr = float_id_values(as_1d(values, name, func), name, func)
    return EncodedIds(*_factorize_arrow(arr, name, func))


def float_id_values(arr: np.ndarray, name: str, func: str) -> np.ndarray:
    """Float ids as they are coded: ``-0.0`` read as ``0.0`` (one id, as the two are
    one number: pandas' groupby, NumPy's unique and Spark read them so), NaN
    (missing) and infinity refused (every metric of groups: an infinite id is no
    integer, so a batch that holds one would hold ids of another type than the
    batches without). A new array; ``arr`` is not changed.

    Examples
    --------
    >>> import numpy as np
    >>> float_id_values(np.array([-0.0, 0.0, 1.5]), "groups", "gauc_score")
    array([0. , 0. , 1.5])
    """
    if np.isnan(arr).any():
        raise _missing(np.isnan(arr), name, func)
    if np.isinf(arr).any():
        raise InputValidationError(
            f"{func}: {name} contains infinity; ids must be integers or strings."
        )
    return arr + 0.0  # -0.0 + 0.0 is 0.0


# the most NumPy str ids encoded by a dict (an Arrow array and its buffers cost
# tens of microseconds, a dict 0.1 microsecond an id)
_FEW_STRINGS = 256


def _wide_ints(values: Any) -> bool:
    """Whether a sequence holds a Python int beyond int64 (NumPy makes floats of such
    a list where it holds other ints: 2**64 - 1 and 2**64 - 2 would be one id)."""
    return any(type(x) is int and not -(2**63) <= x < 2**63 for x in values)


def _float_objects(arr: np.ndarray) -> np.ndarray:
    """An object array of floats (ints beside them, below 2**53) as float64, coded by
    the rule of a float column (``1.0`` is the id 1, ``-0.0`` is ``0.0``); else as it is."""
    first = arr[0]
    if isinstance(first, (str, bytes, bool, np.bool_)) or not isinstance(first, _NUMBERS):
        return arr
    types = set(map(type, arr))  # one pass at C speed: a column of ints ends here
    if not any(issubclass(t, _FLOATS) for t in types) or not all(
        issubclass(t, _FLOATS) or t is int for t in types
    ):
        return arr
    if int in types and any(type(x) is int and abs(x) >= 2**53 for x in arr):
        return arr
    return arr.astype(np.float64)


_NUMBERS = (int, float, np.integer, np.floating)
_FLOATS = (float, np.floating)


def _check_unicode(x: Any, name: str, func: str) -> None:
    """Refuse a str id that UTF-8 cannot hold (a lone surrogate, as from a file
    decoded with ``errors="surrogateescape"``)."""
    if isinstance(x, str) and not x.isascii():
        try:
            x.encode()
        except UnicodeEncodeError as exc:
            raise InputValidationError(
                f"{func}: {name} holds the id {x!r}, which is not valid Unicode (a lone "
                f"surrogate, {x[exc.start : exc.end]!r}); ids must be text that UTF-8 can "
                f"hold: decode the file's bytes as UTF-8, or give such ids as bytes."
            ) from exc


def _missing(missing: Any, name: str, func: str) -> InputValidationError:
    """The error of ids some of which are missing (``missing``: a row's whether, a
    boolean NumPy or Arrow array), its ``row`` the first (a file's readers name it)."""
    fix = "drop those rows or fill them with an id"
    return missing_values(func, name, missing, "None, NaN or null", fix)


def _is_dictionary(values: Any) -> bool:
    """Whether an Arrow array (or chunked array) is dictionary-encoded."""
    import pyarrow as pa

    return bool(pa.types.is_dictionary(values.type))


def column_array(col: Any) -> Any:
    """A column as a NumPy array, or as an Arrow array for string and dictionary
    (categorical) ids, which are encoded in Arrow without building Python objects.

    pandas columns of an extension dtype (``str``, ``string``, ``ArrowDtype``,
    ``category``, nullable integers) go through their Arrow array (zero-copy for
    Arrow-backed strings; a ``Categorical`` as its codes and categories); object
    columns stay NumPy arrays, whose strings :func:`factorize` reads in place.
    """
    return id_column(col).array


def ids_as_given(col: Any) -> Any:
    """A column to encode later: a categorical one (:func:`_categorical`) as given,
    whose kind tells the encoding that its categories are distinct
    (:func:`id_column`); others as :func:`column_array` gives them."""
    return col if _categorical(col) else column_array(col)


def _categorical(col: Any) -> bool:
    """Whether a column is a categorical one whose categories are distinct: a pandas
    ``category`` or polars ``Categorical`` or ``Enum`` Series, or an Arrow dictionary
    column of several chunks (whose dictionaries are joined into one)."""
    mod = type(col).__module__.partition(".")[0]
    if mod == "polars":
        import polars as pl

        return isinstance(_polars_dtype(col), (pl.Categorical, pl.Enum))
    if mod == "pandas":
        return getattr(col.dtype, "name", None) == "category"
    if mod == "pyarrow":
        import pyarrow as pa

        return (
            isinstance(col, pa.ChunkedArray)
            and pa.types.is_dictionary(col.type)
            and col.num_chunks > 1
        )
    return False


def id_column(col: Any) -> IdColumn:
    """A column as :func:`column_array` gives it, and whether it is a dictionary
    array of distinct categories (a pandas or polars categorical; an Arrow
    dictionary column of several chunks, joined into one)."""
    import pyarrow as pa

    mod = type(col).__module__.partition(".")[0]
    categorical = _categorical(col)
    if mod == "polars":
        import polars as pl

        dtype = _polars_dtype(col)
        if categorical:
            return _polars_dictionary(col, dtype)
        if dtype == pl.String:
            return id_column(_polars_arrow(col))
        if dtype == pl.Null:  # no values of any kind: Nones, as pandas and Arrow give them
            return IdColumn(np.full(len(col), None, dtype=object))
        return IdColumn(col.to_numpy())
    if mod == "pyarrow":
        if isinstance(col, pa.ChunkedArray):
            if categorical:
                joined = _join_dictionary_chunks(col)
                if joined is not None:
                    return IdColumn(joined, distinct=True)
            if pa.types.is_dictionary(col.type):
                col = col.unify_dictionaries()
            if col.num_chunks == 1:
                col = col.chunk(0)
            elif not is_arrow_string(col.type):  # strings are encoded chunk by chunk
                col = col.combine_chunks()
        kind = col.type.value_type if pa.types.is_dictionary(col.type) else col.type
        if is_arrow_string(kind) or pa.types.is_dictionary(col.type):
            return IdColumn(col)
        return IdColumn(to_numpy(col))  # numbers: their buffer (to_numpy loads pandas)
    if mod == "pandas":
        if categorical:
            values = getattr(col, "array", col)  # a Series' or Index's Categorical, or one
            codes = values.codes  # a view, in [-1, len(categories)): -1 a missing value
            if len(codes) and codes.min() >= 0:  # the range known: no check by Arrow
                categories = pa.array(values.categories)
                arr = pa.DictionaryArray.from_arrays(codes, categories, safe=False)
                return IdColumn(arr, distinct=True)
        if not isinstance(col.dtype, np.dtype):  # str, string, ArrowDtype, category, Int64
            arr = column_array(pa.array(col))
            return IdColumn(arr, distinct=categorical and isinstance(arr, pa.DictionaryArray))
        return IdColumn(col.to_numpy())  # object strings are read in place by the core
    arr = np.asarray(col)
    mixed = isinstance(col, (list, tuple)) and arr.dtype.kind == "U"
    if mixed and not all(isinstance(x, str) for x in col):
        # NumPy spells [1, "b"] as ["1", "b"]: the values as given, which the encoding
        # refuses as ids of two types (as a pandas object column's)
        arr = np.array(col, dtype=object)
    return IdColumn(arr)


def _join_dictionary_chunks(col: Any) -> Any:
    """A chunked dictionary array of strings without nulls (a Parquet column read as
    dictionaries, one a row group) as one dictionary array of distinct categories:
    the chunks' dictionaries (each once, where chunks share one) hashed together by
    the compiled core, each chunk's indices mapped through its dictionary's codes
    into one int32 array; None for other columns (Arrow then unifies the
    dictionaries) or without the core."""
    import pyarrow as pa

    from .._kernels import compiled, num_threads

    core = compiled()
    if core is None or col.null_count:
        return None
    starts: dict[tuple[int | None, ...], int] = {}  # a dictionary's buffers -> its first entry
    distinct: list[Any] = []
    at: list[int] = []
    size = 0  # the entries of the distinct dictionaries so far
    for chunk in col.chunks:
        d = chunk.dictionary
        key = (d.offset, len(d), *(None if b is None else b.address for b in d.buffers()))
        if key not in starts:
            starts[key] = size
            distinct.append(d)
            size += len(d)
        at.append(starts[key])
    dictionaries = pa.chunked_array(distinct, col.type.value_type)
    parts = string_buffers(dictionaries, binary=False)
    if parts is None or parts[0] or dictionaries.null_count:
        return None
    ids, _, offsets, data = core.factorize_bytes(parts[1], parts[2], num_threads())
    indices = np.empty(len(col), dtype=np.int32)
    row = 0
    for chunk, entry in zip(col.chunks, at, strict=True):
        n, size = len(chunk), len(chunk.dictionary)
        codes = to_numpy(chunk.indices)
        np.take(ids[entry : entry + size], codes, out=indices[row : row + n])
        row += n
    return pa.DictionaryArray.from_arrays(arrow_integers(indices), large_strings(offsets, data))


def _polars_arrow(col: Any) -> Any:
    """A polars column as Arrow in polars' own layout (strings as ``string_view``,
    no copy) where polars can (1.1 and later), else as ``to_arrow`` converts it; its
    chunks (a frame read from Parquet: one a row group) as they are, through a frame
    of the column (a Series' ``to_arrow`` joins them into one array first)."""
    import polars as pl

    level = getattr(pl, "CompatLevel", None)
    frame = col.to_frame()
    table = frame.to_arrow() if level is None else frame.to_arrow(compat_level=level.newest())
    return table.column(0)


def _polars_dictionary(col: Any, dtype: Any, column_rows: int | None = None) -> IdColumn:
    """A polars ``Categorical`` or ``Enum`` column as an Arrow dictionary array of
    its codes and its categories, no value built per row: an Enum's categories as
    declared; a Categorical's mapping may hold any number of strings of the
    process, so the codes some row holds are numbered anew by the core, ascending
    (``dense``), each category read once (by polars, from one of its rows), where
    the range of codes is not far wider than ``column_rows`` (the column's, or
    those of the column whose runs ``col`` heads); ``dtype``: the column's."""
    import polars as pl
    import pyarrow as pa

    from .._kernels import compiled, num_threads

    codes = col.to_physical()
    if isinstance(dtype, pl.Enum):  # codes below the number of categories: no check by Arrow
        categories = dtype.categories.to_arrow()
        arr = pa.DictionaryArray.from_arrays(codes.to_arrow(), categories, safe=False)
        return IdColumn(arr, distinct=True)
    physical = codes.to_numpy() if codes.null_count() == 0 else None
    top = int(physical.max()) if physical is not None and len(physical) else -1
    n = len(codes)
    wide = 4 * (n if column_rows is None else column_rows) + 1024  # the most numbered anew
    if physical is not None and top < 2**31 - 1 and top < wide and n < 2**32 - 1:
        dense, rows = compiled().used_categories(physical, top + 1, num_threads())
        values = col.gather(rows).cast(pl.String).to_arrow()
        arr = pa.DictionaryArray.from_arrays(dense, values, safe=False)  # dense: in range
        return IdColumn(arr, distinct=True, codes=dense)
    # nulls, codes of a range far wider than the column, 2**32 rows: by polars
    first = codes.arg_unique()  # the first row of each code (and of a null)
    polars_values = col.gather(first).cast(pl.String)
    polars_used = codes.gather(first)
    keep = polars_used.is_not_null()
    used = polars_used.filter(keep).to_numpy()
    values = polars_values.filter(keep).to_arrow()
    slot = np.full(int(used.max()) + 1 if len(used) else 0, -1, dtype=np.int64)
    slot[used] = np.arange(len(used))
    dictionary = values.take(arrow_integers(slot, valid=slot >= 0))  # by code; unused: null
    # every code a row holds is in the dictionary's range: no check by Arrow
    arr = pa.DictionaryArray.from_arrays(codes.to_arrow(), dictionary, safe=False)
    return IdColumn(arr, distinct=True)


def _column(values: Any, name: str, func: str) -> IdColumn:
    """A pandas or polars Series or an Arrow array as :func:`id_column` gives it:
    strings and categoricals as one Arrow array (encoded there without building a
    Python object per row), everything else as NumPy; a tensor or DLPack object as
    NumPy (one on a GPU copied to the host); other values unchanged."""
    if isinstance(values, IdColumn):  # read already (group_users)
        return values
    module = type(values).__module__.partition(".")[0]
    if (module == "pyarrow" and hasattr(values, "null_count")) or (
        module in ("pandas", "polars") and hasattr(type(values), "dtype")  # not read: see id_column
    ):
        return id_column(values)
    return IdColumn(on_host(values, func, name))


def _factorize_dictionary(
    arr: Any, name: str, func: str, any_order: bool, column: IdColumn
) -> tuple[np.ndarray, Any]:
    """Dictionary-encoded ids (categoricals) by their integer indices: the values
    are looked up once per distinct index, never built per row; equal values under
    two indices merged unless the categories are distinct (``column.distinct``);
    indices that are codes already (``column.codes``) taken as they are where
    their order is free (``any_order``): the array itself, writable."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if arr.null_count:
        raise _missing(arr.is_null(), name, func)
    dictionary = arr.dictionary
    if is_view(dictionary.type):  # the categories only: Arrow takes no string_view
        dictionary = dictionary.cast(pa.large_string())
    indices = numbers_view(arr.indices)
    if len(indices) == 0:
        return np.empty(0, dtype=np.int64), kept_ids(dictionary[:0])
    if column.codes is not None and any_order:
        return column.codes, kept_ids(dictionary)
    codes, used = factorize(indices, name, func, any_order=any_order)
    values = pc.take(dictionary, arrow_integers(used))  # the categories some row uses
    if values.null_count:  # rows of a null category (one no row uses does not count)
        null = ~to_numpy(values.is_valid())
        raise _missing(null[codes], name, func)
    if pa.types.is_floating(values.type):  # -0.0 is 0.0, as in a plain column
        values = pc.add(values, pa.scalar(0.0, values.type))
    if column.distinct:
        return codes, kept_ids(values)
    # equal values under two indices (pandas and polars categories are distinct;
    # an Arrow dictionary need not be) are merged: strings by the core, others by Arrow
    encoded = factorize_strings(values)
    if encoded is None:
        merged = values.dictionary_encode()
        encoded = numbers_view(merged.indices), merged.dictionary
    if len(encoded[1]) < len(values):
        codes, values = encoded[0][codes], encoded[1]
    return codes, kept_ids(values)


def _factorize_arrow(
    arr: Any, name: str, func: str, any_order: bool = False
) -> tuple[np.ndarray, Any]:
    import pyarrow as pa

    if isinstance(arr, np.ndarray) and arr.dtype.kind == "O":
        from .._kernels import compiled, num_threads

        # every element a str: hashed by the core in place (no conversion), each
        # distinct object read once; the distinct ids come back as one Arrow array
        encoded = compiled().factorize_str(np.ascontiguousarray(arr), num_threads())
        if encoded is not None:
            codes, _, offsets, data = encoded
            return codes, large_strings(offsets, data)

    def mixed(kinds: list[str]) -> InputValidationError:
        # the fix as code where the name is a variable's ("signup users" is not)
        fix = f"{name} = {name}.astype(str)" if name.isidentifier() else "all to str"
        return InputValidationError(
            f"{func}: {name} must hold ids of one type (numbers or strings, not both). "
            f"Got types {format_values(kinds)}; convert them, e.g. {fix}."
        )

    try:
        if isinstance(arr, (pa.Array, pa.ChunkedArray)):
            parr = arr
        elif arr.dtype.kind in "iu":  # over NumPy's memory (pa.array imports pandas)
            parr = to_arrow(arr)
        else:  # objects: None a null (refused below), mixed types an error
            parr = pa.array(arr, from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise mixed(sorted({type(v).__name__ for v in arr.tolist()})) from exc
    except UnicodeEncodeError:  # a str of a lone surrogate
        for x in arr.tolist():
            _check_unicode(x, name, func)
        raise
    except OverflowError as exc:  # Python ints past int64: uint64 ids, or too large
        values = arr.tolist()
        if all(type(x) is int and 0 <= x < 2**64 for x in values):
            return encode_ids(np.array(values, dtype=np.uint64), name, func)
        ints = [x for x in values if isinstance(x, int)]
        low, high = min(ints), max(ints)
        held = (f"the integer id {low!r}, which no 64-bit integer type holds" if low == high
                else f"integer ids from {low!r} to {high!r}, which no 64-bit integer type "
                f"holds together")  # fmt: skip
        raise InputValidationError(
            f"{func}: {name} holds {held}; ids must be int64, uint64 or strings: convert "
            f"them, e.g. {name} = {name}.astype(str)."
        ) from exc
    if isinstance(arr, np.ndarray) and arr.dtype.kind == "O" and pa.types.is_binary(parr.type):
        kinds = sorted({type(v).__name__ for v in arr.tolist()})
        if len(kinds) > 1:  # str and bytes: Arrow would take the str as their UTF-8 bytes
            raise mixed(kinds)
    if parr.null_count:
        raise _missing(parr.is_null(), name, func)
    if pa.types.is_nested(parr.type):  # lists, structs, maps: no id to encode
        raise InputValidationError(
            f"{func}: {name} must hold ids (integers or strings). Got values of type "
            f"{parr.type}; pass one id per row."
        )
    # string columns (in chunks too: large ones arrive so) are encoded by the core
    encoded = factorize_strings(parr, any_order) if is_arrow_text(parr.type) else None
    if isinstance(parr, pa.ChunkedArray) and encoded is None:
        parr = parr.combine_chunks() if parr.num_chunks else pa.array([], type=parr.type)
    if encoded is None and pa.types.is_integer(parr.type) and isinstance(arr, np.ndarray):
        codes, whole = factorize_ints(to_numpy(parr), False)  # objects: Python ints
        return codes, np.asarray(whole, dtype=object)
    if encoded is None:
        encoded = parr.dictionary_encode()
        codes, uniques = to_numpy(encoded.indices), encoded.dictionary
    else:
        codes, uniques = encoded
    if not isinstance(arr, np.ndarray):
        return codes, kept_ids(uniques)
    uniques = values_to_numpy(uniques)
    if arr.dtype.kind in "OUS" or uniques.dtype != arr.dtype:
        uniques = np.asarray(uniques, dtype=arr.dtype if arr.dtype.kind != "O" else object)
    return codes, uniques


def _group_dictionary(
    values: Any, distinct: bool, func: str
) -> tuple[np.ndarray, np.ndarray, Any] | None:
    """:func:`group_users` of an Arrow dictionary array (categoricals; ``distinct``:
    its categories are) or of a chunked one (a Parquet column read as dictionaries,
    one a row group) by the runs of its integer indices, chunk by chunk: one index a
    run looked up, the heads of several chunks' runs joined into one dictionary
    (:func:`_join_dictionary_chunks`), never their rows (the users of the ids
    benchmark's run, 10 row groups of 1M rows: 55 -> 12 ms); None for other columns
    and for nulls (:func:`factorize` counts them row by row)."""
    import pyarrow as pa

    from .._kernels import compiled

    core = compiled()
    is_arrow = isinstance(values, (pa.Array, pa.ChunkedArray))
    if core is None or not is_arrow or not pa.types.is_dictionary(values.type):
        return None
    if values.null_count:
        return None
    chunks = values.chunks if isinstance(values, pa.ChunkedArray) else [values]
    bounds, heads, rows = [], [], 0
    for chunk in chunks:
        # int32 and uint32 indices (pandas' and polars' codes) read as they are
        indices = core_ids(numbers_view(chunk.indices))
        if indices is None:
            return None
        if len(indices):
            starts, first = core.runs(indices)
            bounds.append(starts[:-1] + rows)
            first = arrow_integers(first.astype(np.int64, copy=False))  # one type: every chunk
            heads.append(pa.DictionaryArray.from_arrays(first, chunk.dictionary))
        rows += len(chunk)
    if not heads:  # no row
        return None
    joined = len(heads) > 1
    runs = _join_dictionary_chunks(pa.chunked_array(heads)) if joined else heads[0]
    if runs is None or runs.dictionary.take(runs.indices).null_count:  # a null category
        return None
    # the heads of runs: codes as any other indices (a user may head two runs)
    heads_column = IdColumn(runs, distinct=distinct or joined)
    codes, ids = _factorize_dictionary(runs, "users", func, False, heads_column)
    # a user's rows either side of the end of a chunk are one run
    one = np.ones(len(codes), dtype=bool)
    one[1:] = codes[1:] != codes[:-1]
    return _grouped_runs(np.append(np.concatenate(bounds)[one], rows), codes[one], ids)


def _group_polars_categorical(users: Any, func: str) -> tuple[np.ndarray, np.ndarray, Any] | None:
    """:func:`group_users` of a polars ``Categorical`` column by the runs of its
    physical codes: only the first row of each run is numbered anew and read (where
    :func:`_polars_dictionary` numbers every row's code anew, as a column of items
    needs); None for other columns and for nulls."""
    if type(users).__module__.partition(".")[0] != "polars":
        return None
    import polars as pl

    from .._kernels import compiled

    dtype = _polars_dtype(users) if isinstance(users, pl.Series) else None
    if not isinstance(dtype, pl.Categorical):
        return None
    physical = users.to_physical()
    if physical.null_count():
        return None
    starts, _ = compiled().runs(physical.to_numpy())
    heads = _polars_dictionary(users.gather(starts[:-1]), dtype, len(users))
    codes, ids = encode_ids(heads, "users", func)
    return _grouped_runs(starts, codes, ids)


def _grouped_runs(bounds: Any, codes: Any, ids: Any) -> tuple[np.ndarray, np.ndarray, Any]:
    """:func:`group_users` of runs of rows (``bounds``, then the row count) of ``codes``."""
    if len(ids) == len(codes):  # every id in one run: the rows are grouped
        return bounds, np.empty(0, dtype=np.int64), ids
    grouped, rows = group_rows(np.repeat(codes, np.diff(bounds)), len(ids))
    return grouped, rows, ids


def int_runs(values: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """``(offsets, ids)`` when ``values`` is an integer array already grouped (every
    id in one contiguous run), else None: the ids then need no encoding table.

    ``offsets`` has the start of each run plus ``len(values)``; ``ids`` the id of
    each run, in order of appearance (as :func:`factorize` numbers them).
    """
    if isinstance(values, EncodedIds) and values.offsets is not None:
        return values.offsets, values.uniques
    if not isinstance(values, np.ndarray) or values.dtype.kind not in "iu" or values.ndim != 1:
        return None
    if len(values) < 2:
        return None
    from .._kernels import compiled

    # equal ids stay equal as int64 (unsigned ones from 2**63 on wrap around)
    offsets, ids = compiled().runs(np.ascontiguousarray(values, dtype=np.int64))
    if not each_once(ids):  # an id in two runs: not grouped
        return None
    return offsets, ids.astype(values.dtype, copy=False)


def plain_ids(ids: np.ndarray) -> np.ndarray:
    """Ids as a plain NumPy array (for a state's pickle): an object array of strings as
    a str array, others as they are."""
    if ids.dtype == object and len(ids) and all(type(x) is str for x in ids.tolist()):
        return ids.astype(str)
    return ids


def join_ids(parts: list[np.ndarray]) -> np.ndarray:
    """The ids of several arrays in one, compared by value: integers as int64 (as
    uint64 when some lie beyond it and none is negative), strings as strings, and ints beside
    strings as strings (as NumPy makes a list of both, and so a function given
    all the ids at once)."""
    kinds = {p.dtype.kind for p in parts}
    if len({p.dtype for p in parts}) == 1 or kinds <= {"U"}:
        return np.concatenate(parts)
    if kinds <= {"i", "u", "b"}:
        if all(p.dtype != np.uint64 or not len(p) or p.max() < 2**63 for p in parts):
            return np.concatenate([p.astype(np.int64) for p in parts])
        if all(p.dtype.kind != "i" or not len(p) or p.min() >= 0 for p in parts):
            return np.concatenate([p.astype(np.uint64) for p in parts])  # beyond int64
        return np.concatenate([p.astype(object) for p in parts])
    out = np.concatenate([p.astype(object) for p in parts])
    if kinds & set("iub") and kinds & set("US"):
        out = out.astype(str)
    return out


def group_rows(codes: np.ndarray, n_groups: int) -> tuple[np.ndarray, np.ndarray]:
    """CSR offsets by code (codes in ``[0, n_groups)``) and the input row of each
    position (empty: the rows are already grouped)."""
    from .._kernels import compiled

    core = compiled()
    codes = np.ascontiguousarray(codes, dtype=np.int32)
    if core.is_grouped(codes):
        return core.offsets_of_sorted(codes, n_groups), np.empty(0, dtype=np.int64)
    result: tuple[np.ndarray, np.ndarray] = core.group_rows(codes, n_groups)
    return result


def group_users(users: Any, func: str) -> tuple[np.ndarray, np.ndarray, Any]:
    """Rows grouped by user: CSR offsets, the input row of each position (empty when
    the rows already are grouped) and the user ids in order of first appearance (as
    :func:`encode_ids` gives them)."""
    runs = int_runs(users)
    if runs is not None:
        offsets, ids = runs
        return offsets, np.empty(0, dtype=np.int64), ids
    by_runs = _group_polars_categorical(users, func) or _group_dictionary(users, False, func)
    if by_runs is not None:
        return by_runs
    column = _column(users, "users", func)
    string_runs_of = string_runs(column.array)
    by_runs = None if string_runs_of is None else _grouped_runs(*string_runs_of)
    if by_runs is None:
        by_runs = _group_dictionary(column.array, column.distinct, func)
    if by_runs is not None:
        return by_runs
    codes, ids = encode_ids(column, "users", func)
    offsets, rows = group_rows(codes, len(ids))
    return offsets, rows, ids


def id_ranks(ids: np.ndarray) -> np.ndarray:
    """The rank of each id among the ids sorted (ints beside strings: as their strings).

    Seeded draws over users or items go in this order, so that the order in which
    the ids first appear (a log's rows, a catalogue's list) does not change them.

    Examples
    --------
    >>> id_ranks(np.array(["b", "c", "a"])).tolist()
    [1, 2, 0]
    """
    try:
        order = np.argsort(ids, kind="stable")
    except TypeError:  # ints beside strings
        order = string_order(ids)
    ranks = np.empty(len(order), dtype=np.int64)
    ranks[order] = np.arange(len(order))
    return ranks


def string_order(ids: np.ndarray) -> np.ndarray:
    """The order of ``ids`` as their strings sort (``np.argsort`` of ``str(id)``, stable).

    Integer ids are ordered without building their strings: by sign ('-' sorts
    before the digits), then by their decimal digits left-aligned (two integers
    of 10 digits each), then by length (a prefix sorts first).
    """
    if ids.dtype.kind not in "iu" or ids.ndim != 1:
        as_str = np.asarray([str(x) for x in ids.tolist()])
        return np.argsort(as_str, kind="stable")
    negative = ids < 0
    magnitude = ids.astype(np.uint64)
    if negative.any():  # -x as uint64 is ~x + 1, also for -2**63
        magnitude[negative] = ~magnitude[negative] + np.uint64(1)
    digits = np.ones(len(ids), dtype=np.int64)
    for k in range(1, 20):
        digits += magnitude >= np.uint64(10**k)
    head = np.empty(len(ids), dtype=np.uint64)  # the first 10 digits, right-padded
    tail = np.zeros(len(ids), dtype=np.uint64)  # the next 10
    for d in range(1, 21):
        at = digits == d
        if not at.any():
            continue
        m = magnitude[at]
        if d <= 10:
            head[at] = m * np.uint64(10 ** (10 - d))
        else:
            cut = np.uint64(10 ** (d - 10))
            head[at] = m // cut
            tail[at] = (m % cut) * np.uint64(10 ** (20 - d))
    return np.lexsort((digits, tail, head, ~negative))

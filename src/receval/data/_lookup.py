"""Ids found among others: the position of each id in a dictionary of distinct
ids (:func:`lookup`, :func:`lookup_ids`; an int id and a string id of the same
spelling are one id), ids of two types that (almost) never match
(:func:`id_type_mismatch`), and the distinct values and membership of integer
keys (:func:`distinct`, :func:`isin_ints`), by a sort, a direct-address table
or the core's hash table where NumPy's hash is slow."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..engine.kinds import IdKind, id_texts
from ..exceptions import DEFAULT_MIN_MATCH
from ._arrow import to_arrow, to_numpy
from ._int_ids import DENSE_RANGE_FACTOR, words
from ._strings import ids_to_numpy, lookup_strings

#: the kinds of arrays whose distinct values NumPy 2.3+ finds by hashing (integers,
#: strings, times): 10 to 40 times the time of a sort on many or wide keys
_HASHED_KINDS = "iuSUTmM"


def distinct(values: Any, *more: Any) -> np.ndarray:
    """``np.unique`` of ``values`` and the arrays ``more`` together: the distinct values of them all
    (flattened), ascending.

    NumPy 2.3+ finds the distinct integers, strings and times of an array by
    hashing, which takes 10 to 40 times as long as a sort on many or wide keys
    (2M int64 ids over a range of 10M: 2.3 s against 0.14 s; 1M pairs packed as
    ``user * n_items + item``: 1.0 s against 0.07 s). Those are found here by a
    direct-address table over a compact range of integers (parts of one integer
    type marked one by one, not joined first), else by a sort (the core's where
    NumPy's is slow: :func:`receval._kernels.sort_numbers`); arrays of other kinds
    by ``np.unique`` itself. NaT, as NaN for ``np.unique``, is one value.

    Examples
    --------
    >>> distinct(np.array([[3, 2**40], [7, 3]])).tolist()
    [3, 7, 1099511627776]
    >>> distinct(np.array(["b", "a", "b"])).tolist()
    ['a', 'b']
    >>> distinct(np.array([5, 3]), np.array([3, 4])).tolist()
    [3, 4, 5]
    """
    from .._kernels import sort_numbers

    parts = [np.asarray(p).ravel() for p in (values, *more)]
    if len({p.dtype for p in parts}) > 1:
        parts = [np.concatenate(parts)]  # of several types: as NumPy joins them
    kind, n = parts[0].dtype.kind, sum(p.size for p in parts)
    if kind not in _HASHED_KINDS or n == 0:
        return np.unique(np.concatenate(parts))
    if kind in "iu":
        parts = [p for p in parts if p.size]
        lo, hi = min(p.min() for p in parts), max(p.max() for p in parts)
        if int(hi) - int(lo) <= DENSE_RANGE_FACTOR * n + 1024:
            present = np.zeros(int(hi) - int(lo) + 1, dtype=bool)
            for p in parts:
                # offsets from lo, exact in the unsigned type of p's size (p - lo in
                # p's own type may wrap around, as may the sum back: modulo 2**bits,
                # both are exact for values in [lo, hi])
                present[(p - lo).view(f"u{p.itemsize}")] = True
            found: np.ndarray = np.flatnonzero(present).astype(parts[0].dtype) + lo
            return found
    s = np.concatenate(parts) if len(parts) > 1 else np.array(parts[0])  # sorted in place
    sort_numbers(s)
    keep = np.empty(s.size, dtype=bool)
    keep[0] = True
    np.not_equal(s[1:], s[:-1], out=keep[1:])
    if s.dtype.kind in "mM" and np.isnat(s[-1]):  # NaT sorts last; one NaT kept
        first = int(np.searchsorted(s, s[-1], side="left"))
        keep[first] = True
        keep[first + 1 :] = False
    return s[keep]


def isin_ints(values: np.ndarray, test: np.ndarray) -> np.ndarray:
    """``np.isin(values, test)`` for integer arrays, by :func:`lookup` (a
    direct-address table or the core's hash table; ``np.isin`` hashes as ``np.unique``
    does: see :func:`distinct`).

    Examples
    --------
    >>> isin_ints(np.array([[3, 2**40], [7, 3]]), np.array([3, 2**40, 3])).tolist()
    [[True, True], [False, True]]
    """
    values = np.asarray(values)
    found: np.ndarray = lookup(values.ravel(), np.asarray(test).ravel()) >= 0
    return found.reshape(values.shape)


def lookup(values: np.ndarray, dictionary: np.ndarray) -> np.ndarray:
    """Index of each of ``values`` in ``dictionary`` (distinct ids), or -1 if absent.

    Integer ids on both sides use a direct-address table over a compact range, the
    core's hash table over a wider one; otherwise both sides are
    compared as strings through Arrow's hash table (an int id 7 and a string id
    "7" are the same id, as in TREC files, where every id is a string; a float by
    :func:`~receval.engine.kinds.id_texts`: 7.0 is the id 7 whatever the other ids
    of its column).
    """
    if len(values) == 0:
        return np.empty(0, dtype=np.int32)
    if len(dictionary) == 0:
        return np.full(len(values), -1, dtype=np.int32)
    if {values.dtype.kind, dictionary.dtype.kind} == {"i", "u"}:
        return _lookup_mixed_sign(values, dictionary)
    if values.dtype.kind in "iu" and dictionary.dtype.kind in "iu":
        lo = int(dictionary.min())
        span = int(dictionary.max()) - lo + 1
        if span <= DENSE_RANGE_FACTOR * (len(values) + len(dictionary)) + 1024 and (
            np.uint64 not in (values.dtype, dictionary.dtype)  # may not fit in int64
        ):
            # direct-address table over the dictionary's range
            table = np.full(span, -1, dtype=np.int32)
            table[dictionary.astype(np.int64) - lo] = np.arange(len(dictionary), dtype=np.int32)
            shifted = values.astype(np.int64) - lo
            inside = (shifted >= 0) & (shifted < span)
            return np.where(inside, table[np.where(inside, shifted, 0)], -1).astype(np.int32)
        from .._kernels import compiled

        hashed: np.ndarray = compiled().lookup_words(words(values), words(dictionary))
        return hashed  # by the core (ids of one sign: their bits compare)
    if values.dtype.kind == "O" and dictionary.dtype.kind == "O":
        found = lookup_strings(values, dictionary)
        if found is not None:
            return found
    small = len(values) + len(dictionary) < 1 << 18
    if small and values.dtype.kind in "OUiu" and dictionary.dtype.kind in "OUiu":
        found = _lookup_small(values, dictionary)
        if found is not None:
            return found
    import pyarrow as pa
    import pyarrow.compute as pc

    def as_strings(x: np.ndarray) -> pa.Array:
        arr = to_arrow(x)
        if pa.types.is_floating(arr.type):  # a whole float below 2**53 is the integer it is
            return pa.array(id_texts(to_numpy(arr).astype(np.float64)), pa.string())
        if not (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)):
            arr = pc.cast(arr, pa.string())
        return arr

    idx = pc.index_in(as_strings(values), value_set=as_strings(dictionary))
    result: np.ndarray = to_numpy(idx.fill_null(-1)).astype(np.int32)
    return result


def lookup_ids(values: Any, dictionary: Any) -> np.ndarray:
    """:func:`lookup` of distinct ids as :func:`encode_ids` gives them: string ids
    kept as Arrow arrays on both sides by the core over their buffers, others as
    NumPy."""
    values, dictionary = _same_kind(values, dictionary)
    found = lookup_strings(values, dictionary)
    if found is None:
        found = lookup(ids_to_numpy(values), ids_to_numpy(dictionary))
    return found


def _same_kind(values: Any, dictionary: Any) -> tuple[Any, Any]:
    """``values`` and ``dictionary`` compared as :func:`lookup` compares them, where
    one holds integer ids (NumPy) and the other string ids (Arrow): the strings as
    their integers when every one is an integer's canonical spelling (the ids of a
    CSV file read as text: looked up as integers), else the integers as the
    strings of their decimal digits (by Arrow's cast: no Python objects)."""
    import pyarrow as pa

    from ._string_buffers import integer_strings, is_arrow_string

    def integers(x: Any) -> bool:
        return isinstance(x, np.ndarray) and x.dtype.kind in "iu"

    def strings(x: Any) -> bool:
        return isinstance(x, pa.Array) and is_arrow_string(x.type)

    def both(ints: np.ndarray, text: Any) -> tuple[Any, Any]:
        """The integers and the strings as one kind: (ints, text's integers) or
        (ints' digits, text)."""
        parsed = integer_strings(text)
        return (ints, parsed) if parsed is not None else (to_arrow(ints).cast(pa.string()), text)

    if integers(values) and strings(dictionary):
        values, dictionary = both(values, dictionary)
    elif strings(values) and integers(dictionary):
        dictionary, values = both(dictionary, values)
    return values, dictionary


def _lookup_small(values: np.ndarray, dictionary: np.ndarray) -> np.ndarray | None:
    """:func:`lookup` of a few string (or int and string) ids through a Python dict,
    as Arrow compares them (ints as their decimal strings); None for other ids.
    Arrow's arrays built from Python objects import pandas (a quarter of a second)."""

    def keys(x: np.ndarray) -> list[str] | None:
        out = [v if type(v) is str else str(v) if type(v) is int else None for v in x.tolist()]
        return None if None in out else out  # type: ignore[return-value]

    ks, vs = keys(dictionary), keys(values)
    if ks is None or vs is None:
        return None
    position: dict[str, int] = {}
    for i, k in enumerate(ks):
        position.setdefault(k, i)  # the first of equal ids, as Arrow's index_in
    return np.array([position.get(k, -1) for k in vs], dtype=np.int32)


def _lookup_mixed_sign(values: np.ndarray, dictionary: np.ndarray) -> np.ndarray:
    """:func:`lookup` of signed ids in unsigned ones or the reverse, compared by value.

    NumPy compares int64 with uint64 through float64, which merges ids that differ
    below 2**-53 of their size (hashed ids). An unsigned id from 2**63 on equals no
    signed one, and a negative signed id no unsigned one; every other id is compared
    in the unsigned type, exactly.
    """
    out = np.full(len(values), -1, dtype=np.int32)
    if values.dtype.kind == "u":
        fits = values <= np.iinfo(np.int64).max
        if fits.any():
            out[fits] = lookup(values[fits].astype(np.int64), dictionary.astype(np.int64))
            # a negative dictionary id cannot equal an unsigned value: the cast above keeps it
            # negative, so it matches nothing
        return out
    fits = values >= 0
    if fits.any():
        out[fits] = lookup(values[fits].astype(np.uint64), dictionary.astype(np.uint64))
    return out


def id_kind(ids: np.ndarray) -> str:
    """``"integer"``, ``"float"`` or ``"string"``: what an id column holds, as an error
    names it (:meth:`~receval.engine.kinds.IdKind.of`: ints, bools and whole floats
    below ``2**53`` are integers, in an object array too).

    Examples
    --------
    >>> id_kind(np.array([1, 2], dtype=object)), id_kind(np.array([0.5])), id_kind(np.array(["7"]))
    ('integer', 'float', 'string')
    """
    return (IdKind.of(ids, "").value or "strings").removesuffix("s")


def id_type_mismatch(ids: np.ndarray, others: np.ndarray) -> int | None:
    """How many of ``ids`` are among the distinct ids ``others`` when the two hold ids of
    two types (:func:`id_kind`) and fewer than
    :data:`~receval.exceptions.DEFAULT_MIN_MATCH` of ``ids`` are: an id mix-up, which
    callers refuse; None when both hold ids of one type or enough of them match.

    Ids are matched as :func:`lookup` matches them: an integer 7 is the string ``"7"``,
    but not ``"07"``, ``"7.0"`` or ``"u7"``. Strings that all are integers in their
    canonical spelling (integer ids read as text) are integers here, as
    :func:`lookup_ids` matches them: those that match no integer are other users, not
    ids of another type.

    Examples
    --------
    >>> id_type_mismatch(np.array(["u1", "u2"]), np.array([1, 2]))
    0
    >>> id_type_mismatch(np.array(["1", "u2"]), np.array([1, 2])) is None  # half of them match
    True
    >>> id_type_mismatch(np.array(["3", "4"]), np.array([1, 2])) is None  # integers as text
    True
    """
    if not len(ids) or not len(others):
        return None
    kinds = {id_kind(ids), id_kind(others)}
    if len(kinds) == 1:
        return None
    matched = int(np.count_nonzero(lookup(ids, others) >= 0))
    if matched >= DEFAULT_MIN_MATCH * len(ids):
        return None
    if kinds == {"integer", "string"}:
        texts = ids if id_kind(ids) == "string" else others
        if _integer_texts(texts):
            return None
    return matched


def _integer_texts(ids: np.ndarray) -> bool:
    """Whether string ids all are integers in their canonical spelling (``"7"``, not
    ``"07"`` or ``"7.0"``), as :func:`lookup_ids` reads them."""
    import pyarrow as pa

    from ._string_buffers import integer_strings, is_arrow_string

    try:
        texts = to_arrow(ids)
    except (pa.ArrowInvalid, pa.ArrowTypeError):  # objects of mixed types
        return False
    return is_arrow_string(texts.type) and integer_strings(texts) is not None


def types_note(a: np.ndarray, b: np.ndarray, sides: tuple[str, str] = ("qrels'", "run's")) -> str:
    """A note on the ids' types when they differ (int64 beside str, ...) for a message:
    ``a``'s and ``b``'s, the ids of two ``sides`` (their possessives); none when a side
    holds no id (no type to differ).

    Examples
    --------
    >>> types_note(np.array([1, 2]), np.array(["a"], dtype=object), ("exclusions'", "run's"))[:47]
    " (the exclusions' are int64, the run's str: an "
    """

    def name(x: np.ndarray) -> str:
        if x.dtype.kind in "OUS":
            kinds = sorted({type(v).__name__ for v in x[:100].tolist()})
            return "/".join(kinds) or "str"
        return str(x.dtype)

    qa, ra = name(a), name(b)
    if qa == ra or not len(a) or not len(b):
        return ""
    note = f" (the {sides[0]} are {qa}, the {sides[1]} {ra}"
    if {a.dtype.kind, b.dtype.kind} & set("iu") and {a.dtype.kind, b.dtype.kind} & set("OUS"):
        # an int id equals the string of its decimal digits only
        note += (
            ": an integer id matches the string of its decimal digits, 7 matches '7' but "
            "not '07' or '7.0'; cast one side so that both hold the same ids (e.g. "
            ".astype(int) on numeric strings)"
        )
    return note + ")"

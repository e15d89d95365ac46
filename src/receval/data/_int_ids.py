"""Integer ids coded by the compiled core: over a compact range with a direct-address
table, over a wider one (64-bit hashes, snowflake ids, packed pairs) through its hash
table of 64-bit words; a column in memory (:func:`factorize_ints`) or given in chunks
(the row groups of a Parquet file, the chunks of an Arrow table): its codes
(:func:`factorize_int_chunks`) and its runs of users (:func:`int_runs_of_chunks`)."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

# integer ids whose value range is at most this many times the row count are
# encoded with a direct-address table; wider ranges are hashed
DENSE_RANGE_FACTOR = 4
# integer columns longer than this are encoded in parallel when the order of codes is free
PARALLEL_MIN_ROWS = 1_000_000


def factorize_ints(values: np.ndarray, any_order: bool) -> tuple[np.ndarray, np.ndarray]:
    """:func:`~receval.data._encode.factorize` of a 1-D integer array: over a compact
    range through a direct-address table (the distinct ids as int64), else hashed
    (:func:`hashed_ints`: in the array's dtype). A column of more than
    ``PARALLEL_MIN_ROWS`` rows whose codes may follow any order (``any_order``) over a
    compact range is coded as a column of one chunk: each id's offset from the first
    and the range in one parallel pass (no pass for the smallest and largest id
    first), then numbered in place in parallel, the codes in ascending order of the
    ids; others in order of first appearance."""
    from .._kernels import compiled

    n = len(values)
    if any_order and n > PARALLEL_MIN_ROWS:
        # ids whose range is wider than a table's already among 1,024 of them are
        # hashed without a pass of offsets that must fail
        sample = values[:: max(1, n // 1024)]
        if not _compact(int(sample.min()), int(sample.max()), n):
            return hashed_ints(values)
        got = factorize_int_chunks([values], n, any_order=True)
        # None: an id too far from the first, or a range too wide (or uint64 ids
        # from 2**63 on), so not for the table
        return got if got is not None else hashed_ints(values)
    lo = int(values.min())
    hi = int(values.max())
    if not _compact(lo, hi, n):
        return hashed_ints(values)
    span = hi - lo + 1
    values = np.ascontiguousarray(values, dtype=np.int64)
    codes, first = compiled().factorize_dense(values, lo, span)
    return codes, values[first]


def _compact(lo: int, hi: int, n: int) -> bool:
    """Whether ids from ``lo`` to ``hi`` (``n`` of them) are coded through a
    direct-address table: a range of at most ``DENSE_RANGE_FACTOR`` times the rows
    (and under 2**31) within int64 (uint64 ids from 2**63 on do not fit the table's
    int64 arithmetic)."""
    span = hi - lo + 1
    return span <= DENSE_RANGE_FACTOR * n + 1024 and span < 2**31 and hi < 2**63


def hashed_ints(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Codes in order of first appearance of integer ids of any range (int64 and
    uint64 alike: each id's 64 bits are its key), hashed by the compiled core on
    every thread, and the distinct ids (in ``values``' dtype).

    Examples
    --------
    >>> codes, ids = hashed_ints(np.array([2**62, -1, 2**62]))
    >>> codes.tolist(), ids.tolist()
    ([0, 1, 0], [4611686018427387904, -1])
    """
    from .._kernels import compiled, num_threads

    codes, first = compiled().factorize_words(words(values), num_threads())
    return codes, values[first]


def words(values: np.ndarray) -> np.ndarray:
    """Integer ids as the 64-bit words the core hashes (uint64, a view where they are
    native 64-bit and contiguous): the same id, the same word, for ids that int64
    holds (int64 ids as their bits, in this machine's byte order whatever the
    array's) and for uint64 ids.

    Examples
    --------
    >>> words(np.array([-1], ">i8")).tolist() == words(np.array([-1], np.int8)).tolist()
    True
    """
    wide = np.uint64 if values.dtype.kind == "u" and values.dtype.itemsize == 8 else np.int64
    result: np.ndarray = np.ascontiguousarray(values, dtype=wide).view(np.uint64)
    return result


def core_ids(chunk: np.ndarray | None) -> np.ndarray | None:
    """An integer chunk as the compiled core reads it: int64, int32 and uint32 as they
    are (no copy when contiguous: categorical codes and dictionary indices are not
    widened), other integers as int64; None for other chunks and for unsigned ids
    from 2**63 on."""
    if chunk is None or chunk.dtype.kind not in "iu" or chunk.ndim != 1:
        return None
    if chunk.dtype == np.uint64 and len(chunk) and int(chunk.max()) >= 2**63:
        return None
    kind = chunk.dtype if chunk.dtype in (np.int32, np.uint32) else np.int64
    return np.ascontiguousarray(chunk, dtype=kind)


def int_runs_of_chunks(chunks: Iterable[np.ndarray | None]) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`~receval.data._encode.int_runs` of a column given in chunks (a run may
    cross a chunk boundary), read by the compiled core in each chunk; None when a
    chunk is None or not of integers, or when the ids are not grouped. The ids keep
    the column's dtype."""
    from .._kernels import compiled

    core = compiled()
    starts: list[np.ndarray] = []
    heads: list[np.ndarray] = []
    n, last, dtype = 0, None, None
    for chunk in chunks:
        values = core_ids(chunk)
        if values is None:
            return None
        if dtype is None:
            dtype = values.dtype if chunk is None else chunk.dtype
        if len(values) == 0:
            continue
        offsets, ids = core.runs(values)
        offsets = offsets[:-1] + n
        if last is not None and ids[0] == last:  # the previous chunk's last run goes on
            offsets, ids = offsets[1:], ids[1:]
        starts.append(offsets)
        heads.append(ids)
        n += len(values)
        last = int(values[-1])
    if n < 2:
        return None
    ids = np.concatenate(heads)
    if not each_once(ids):  # an id in two runs: not grouped
        return None
    offsets = np.concatenate([*starts, [n]]).astype(np.int64)
    return offsets, ids.astype(dtype, copy=False)


def each_once(ids: np.ndarray) -> bool:
    """Whether no two of the integer ``ids`` are equal: at once where they ascend or
    descend (the runs of a frame sorted by user), else by the distinct ids of
    :func:`factorize_ints`, not by a sort (100k int64 ids: ascending 0.02 ms, in any
    order 0.9 ms, of any range 2.0 ms; NumPy's sort of them 3.7 ms on an AMD Zen 4).

    Examples
    --------
    >>> each_once(np.array([3, 1, 2])), each_once(np.array([3, 1, 3]))
    (True, False)
    """
    if len(ids) < 2:
        return True
    before, after = ids[:-1], ids[1:]
    if bool((before < after).all()) or bool((before > after).all()):
        return True
    return len(factorize_ints(ids, any_order=False)[1]) == len(ids)


def factorize_int_chunks(
    chunks: Iterable[np.ndarray | None],
    n: int,
    *,
    any_order: bool = False,
    anchor: int | None = None,
) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`factorize` of an integer column of ``n`` rows given in chunks, the same
    codes and uniques, written chunk by chunk into one int32 array by the compiled
    core (each id as its offset from ``anchor``, or from the first id), then
    numbered in place; None when a chunk is None or not of integers, or when the
    ids do not lie in a compact range (:func:`factorize` then takes Arrow's hash
    table). Any ``anchor`` gives the same result; the smallest id saves a pass."""
    from .._kernels import compiled, empty_output, num_threads

    core = compiled()
    if n == 0:
        return None
    codes = empty_output(n, np.int32)
    lo, hi, start = None, None, 0
    for chunk in chunks:
        values = core_ids(chunk)
        if values is None or start + len(values) > n:
            return None
        if len(values) == 0:
            continue
        if lo is None:
            lo = hi = int(values[0])
            if anchor is None or not 0 <= lo - anchor < 2**31:
                anchor = lo  # no hint, or one the first id contradicts
        ok, low, high = core.shift_ids(values, anchor, codes[start : start + len(values)])
        if not ok:
            return None
        lo, hi = min(lo, low), max(hi, high)
        if not _compact(lo, hi, n):
            return None  # too wide a range for a direct-address table
        start += len(values)
    if start != n or anchor is None or lo is None or hi is None:
        return None
    span = hi - lo + 1
    ascending = any_order and n > PARALLEL_MIN_ROWS
    uniques = core.dense_codes_in_place(
        codes, lo - anchor, span, anchor, ascending, 4 * num_threads()
    )
    return codes, uniques

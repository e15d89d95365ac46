"""Numba kernels for id encoding."""

from __future__ import annotations

import numba as nb
import numpy as np


@nb.njit(cache=True, nogil=True)
def _factorize_dense(values, lo, span):
    """Codes (int32) in order of first appearance for ints in ``[lo, lo + span)``.

    Returns the codes and, for each code, the index of its first row. The
    caller guarantees ``span < 2**31``.
    """
    table = np.full(span, -1, dtype=np.int32)
    codes = np.empty(values.shape[0], dtype=np.int32)
    first = np.empty(min(span, values.shape[0]), dtype=np.int64)
    n_unique = 0
    for i in range(values.shape[0]):
        slot = values[i] - lo
        c = table[slot]
        if c < 0:
            c = n_unique
            table[slot] = c
            first[c] = i
            n_unique += 1
        codes[i] = c
    return codes, first[:n_unique].copy()


@nb.njit(cache=True, nogil=True, parallel=True)
def _factorize_dense_sorted(values, lo, span, n_chunks, codes):
    """Codes (int32) in ascending order of the ids, for ints in ``[lo, lo + span)``.

    Three passes, the two over the rows in parallel: mark the ids present,
    number them in a scan over the range, map every row into ``codes``.
    Returns the codes and the distinct ids, ascending. The caller guarantees
    ``span < 2**31``. (Large outputs are allocated by NumPy, which asks for
    huge pages: filling them costs half as much as an array allocated here.)
    """
    n = values.shape[0]
    present = np.zeros(span, dtype=np.uint8)
    for c in nb.prange(n_chunks):
        for i in range(n * c // n_chunks, n * (c + 1) // n_chunks):
            s = values[i] - lo
            if present[s] == 0:  # test first: threads then rarely write a shared line
                present[s] = 1
    code_of = np.empty(span, dtype=np.int32)
    count = 0
    for s in range(span):
        code_of[s] = count
        if present[s]:  # not count += present[s]: as Python, a uint8 sum would wrap
            count += 1
    uniques = np.empty(count, dtype=values.dtype)
    j = 0
    for s in range(span):
        if present[s]:
            uniques[j] = lo + s
            j += 1
    for c in nb.prange(n_chunks):  # codes: int32 of len(values), allocated by the caller
        for i in range(n * c // n_chunks, n * (c + 1) // n_chunks):
            codes[i] = code_of[values[i] - lo]
    return codes, uniques


@nb.njit(cache=True, nogil=True, parallel=True)
def _runs(values, n_chunks):
    """Runs of equal neighbours: their start offsets (plus ``len(values)``) and values."""
    n = values.shape[0]
    counts = np.zeros(n_chunks + 1, dtype=np.int64)
    for c in nb.prange(n_chunks):
        k = 0
        for i in range(n * c // n_chunks, n * (c + 1) // n_chunks):
            if i == 0 or values[i] != values[i - 1]:
                k += 1
        counts[c + 1] = k
    for c in range(n_chunks):
        counts[c + 1] += counts[c]
    total = counts[n_chunks]
    offsets = np.empty(total + 1, dtype=np.int64)
    heads = np.empty(total, dtype=values.dtype)
    for c in nb.prange(n_chunks):
        k = counts[c]
        for i in range(n * c // n_chunks, n * (c + 1) // n_chunks):
            if i == 0 or values[i] != values[i - 1]:
                offsets[k] = i
                heads[k] = values[i]
                k += 1
    offsets[total] = n
    return offsets, heads

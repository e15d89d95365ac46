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

"""Numba kernels for pointwise sums: multiclass log loss (binary: ``_sums``)."""

from __future__ import annotations

import numba as nb
import numpy as np


@nb.njit(cache=True, nogil=True, parallel=True)
def _multiclass_log_loss_sum(codes, proba, weights, eps):
    """Sum of -w * log(clip(p[i, code_i])) over rows."""
    n = codes.shape[0]
    has_w = weights.shape[0] > 0
    hi = 1.0 - eps
    total = 0.0
    for i in nb.prange(n):
        q = proba[i, codes[i]]
        if q < eps:
            q = eps
        elif q > hi:
            q = hi
        loss = -np.log(q)
        total += loss * weights[i] if has_w else loss
    return total

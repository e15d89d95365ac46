"""Numba kernels for pointwise sums: log loss."""

from __future__ import annotations

import numba as nb
import numpy as np


@nb.njit(cache=True, nogil=True, parallel=True)
def _binary_log_loss_sum(labels, proba, weights, eps):
    """Sum of -w * log(clip(p)) for positives and -w * log(clip(1 - p)) for negatives.

    ``weights`` of length 0 means unit weights. Returns (loss sum, weight sum).
    """
    n = labels.shape[0]
    has_w = weights.shape[0] > 0
    hi = 1.0 - eps
    total = 0.0
    for i in nb.prange(n):
        q = proba[i] if labels[i] == 1 else 1.0 - proba[i]
        if q < eps:
            q = eps
        elif q > hi:
            q = hi
        loss = -np.log(q)
        total += loss * weights[i] if has_w else loss
    return total


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

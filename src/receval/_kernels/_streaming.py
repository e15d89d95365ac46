"""Kernels of the out-of-core exact AUC: score buckets and gathering by bucket.

A score's bucket is the top ``bits`` bits of its order key (the float64's
bits, flipped so that unsigned order is float order, -0.0 counted as 0.0:
the compiled core's ``scan.rs``), so buckets are consecutive ranges of the
score axis. One loop per batch, no temporaries.
"""

from __future__ import annotations

import numba as nb
import numpy as np

_SIGN = np.uint64(1 << 63)


@nb.njit(cache=True, nogil=True, inline="always")
def _bucket(bits_of_score: np.uint64, is_zero: bool, shift: np.uint64) -> np.int64:
    u = np.uint64(0) if is_zero else bits_of_score
    key = ~u if (u & _SIGN) else (u | _SIGN)
    return np.int64(key >> shift)


@nb.njit(cache=True, nogil=True)
def _add_histogram(scores, labels, shift, neg, pos):
    """Add the rows of a batch to per-bucket counts of negatives and positives."""
    raw = scores.view(np.uint64)
    sh = np.uint64(shift)
    for i in range(scores.shape[0]):
        b = _bucket(raw[i], scores[i] == 0.0, sh)
        if labels[i] == 1:
            pos[b] += 1
        else:
            neg[b] += 1


@nb.njit(cache=True, nogil=True)
def _gather(scores, labels, shift, first, last, pos, neg, filled):
    """Append the scores of the rows in buckets ``[first, last]`` to ``pos`` / ``neg``
    (``filled`` holds how many of each are written; -0.0 is stored as 0.0)."""
    raw = scores.view(np.uint64)
    sh = np.uint64(shift)
    n_pos = filled[0]
    n_neg = filled[1]
    for i in range(scores.shape[0]):
        s = scores[i]
        b = _bucket(raw[i], s == 0.0, sh)
        if b < first or b > last:
            continue
        if s == 0.0:
            s = 0.0
        if labels[i] == 1:
            pos[n_pos] = s
            n_pos += 1
        else:
            neg[n_neg] = s
            n_neg += 1
    filled[0] = n_pos
    filled[1] = n_neg


@nb.njit(cache=True, nogil=True)
def _gather_weighted(scores, labels, weights, shift, first, last, pos, pos_w, neg, neg_w, filled):
    """``_gather`` with weights; rows of weight 0 are left out (as in memory)."""
    raw = scores.view(np.uint64)
    sh = np.uint64(shift)
    n_pos = filled[0]
    n_neg = filled[1]
    for i in range(scores.shape[0]):
        if weights[i] == 0.0:
            continue
        s = scores[i]
        b = _bucket(raw[i], s == 0.0, sh)
        if b < first or b > last:
            continue
        if s == 0.0:
            s = 0.0
        if labels[i] == 1:
            pos[n_pos] = s
            pos_w[n_pos] = weights[i]
            n_pos += 1
        else:
            neg[n_neg] = s
            neg_w[n_neg] = weights[i]
            n_neg += 1
    filled[0] = n_pos
    filled[1] = n_neg


def gather(scores, labels, weights, shift, first, last, pos, pos_w, neg, neg_w, filled):
    """The compiled core's ``gather``: ``_gather`` (``weights`` None) or ``_gather_weighted``."""
    if weights is None:
        _gather(scores, labels, shift, first, last, pos, neg, filled)
    else:
        _gather_weighted(
            scores, labels, weights, shift, first, last, pos, pos_w, neg, neg_w, filled
        )

"""Numba kernels for AUC-type metrics: arrays and scalars in, arrays and scalars out.

Layout used throughout: the scores of the positive rows and of the negative rows
are held in two separate arrays, each sorted ascending. The Mann-Whitney count
of a (positive, negative) pair is then one merge walk over both arrays:

    2U = sum over positives p of  2 * #(neg < p) + #(neg == p)

which is exact in int64 (ties count one half), O(n) after the sorts, and
mergeable: the count against a union of negative chunks is the sum of the
counts against each chunk. Sorting the two classes separately lets NumPy's
SIMD sort do the O(n log n) part on plain float64 arrays.
"""

from __future__ import annotations

import numba as nb
import numpy as np


@nb.njit(cache=True, nogil=True)
def _count_positives(labels):
    n_pos = 0
    for i in range(labels.shape[0]):
        if labels[i] == 1:  # not `+= labels[i]`: int8 arithmetic wraps without the JIT
            n_pos += 1
    return n_pos


@nb.njit(cache=True, nogil=True)
def _split_by_label(scores, labels):
    """Scores of rows with label 1 and of rows with label 0, in input order."""
    n_pos = _count_positives(labels)
    pos = np.empty(n_pos, dtype=np.float64)
    neg = np.empty(labels.shape[0] - n_pos, dtype=np.float64)
    i_pos = 0
    i_neg = 0
    for i in range(labels.shape[0]):
        if labels[i] == 1:
            pos[i_pos] = scores[i]
            i_pos += 1
        else:
            neg[i_neg] = scores[i]
            i_neg += 1
    return pos, neg


@nb.njit(cache=True, nogil=True)
def _split_by_label_weighted(scores, labels, weights):
    """Like ``_split_by_label``, carrying each row's weight along.

    Rows of weight zero are left out, so that they cannot create a threshold.
    """
    n_pos = 0
    n_neg = 0
    for i in range(labels.shape[0]):
        if weights[i] != 0.0:
            if labels[i] == 1:
                n_pos += 1
            else:
                n_neg += 1
    pos = np.empty(n_pos, dtype=np.float64)
    pos_w = np.empty(n_pos, dtype=np.float64)
    neg = np.empty(n_neg, dtype=np.float64)
    neg_w = np.empty(n_neg, dtype=np.float64)
    i_pos = 0
    i_neg = 0
    for i in range(labels.shape[0]):
        if weights[i] == 0.0:
            continue
        if labels[i] == 1:
            pos[i_pos] = scores[i]
            pos_w[i_pos] = weights[i]
            i_pos += 1
        else:
            neg[i_neg] = scores[i]
            neg_w[i_neg] = weights[i]
            i_neg += 1
    return pos, pos_w, neg, neg_w


@nb.njit(cache=True, nogil=True)
def _pair_count_sorted(pos, neg):
    """Twice the Mann-Whitney U of ascending ``pos`` against ascending ``neg`` (int64)."""
    n_pos = pos.shape[0]
    n_neg = neg.shape[0]
    two_u = 0
    i = 0
    j = 0
    while i < n_pos:
        v = pos[i]
        k = i + 1
        while k < n_pos and pos[k] == v:
            k += 1
        while j < n_neg and neg[j] < v:
            j += 1
        t = j
        while t < n_neg and neg[t] == v:
            t += 1
        two_u += (k - i) * (2 * j + (t - j))
        i = k
    return two_u


@nb.njit(cache=True, nogil=True)
def _pair_weight_sorted(pos, pos_w, neg, neg_w):
    """Weighted U: sum over pairs of w_p * w_n * (1 if p > n, 1/2 if tied)."""
    n_pos = pos.shape[0]
    n_neg = neg.shape[0]
    area = 0.0
    below = 0.0
    i = 0
    j = 0
    while i < n_pos:
        v = pos[i]
        block = 0.0
        k = i
        while k < n_pos and pos[k] == v:
            block += pos_w[k]
            k += 1
        while j < n_neg and neg[j] < v:
            below += neg_w[j]
            j += 1
        tie = 0.0
        t = j
        while t < n_neg and neg[t] == v:
            tie += neg_w[t]
            t += 1
        area += block * (below + 0.5 * tie)
        i = k
    return area


@nb.njit(cache=True, nogil=True)
def _sum(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i]
    return s


@nb.njit(cache=True, nogil=True)
def _threshold_counts_sorted(pos, neg):
    """Cumulative (tps, fps) at each distinct threshold, thresholds descending.

    ``pos`` and ``neg`` are sorted ascending; row k of the output counts the
    positives and negatives with score >= thresholds[k].
    """
    n_pos = pos.shape[0]
    n_neg = neg.shape[0]
    cap = n_pos + n_neg
    thresholds = np.empty(cap, dtype=np.float64)
    tps = np.empty(cap, dtype=np.float64)
    fps = np.empty(cap, dtype=np.float64)
    i = n_pos - 1
    j = n_neg - 1
    tp = 0
    fp = 0
    m = 0
    while i >= 0 or j >= 0:
        if j < 0 or (i >= 0 and pos[i] >= neg[j]):
            v = pos[i]
        else:
            v = neg[j]
        while i >= 0 and pos[i] == v:
            tp += 1
            i -= 1
        while j >= 0 and neg[j] == v:
            fp += 1
            j -= 1
        thresholds[m] = v
        tps[m] = tp
        fps[m] = fp
        m += 1
    return thresholds[:m].copy(), tps[:m].copy(), fps[:m].copy()


@nb.njit(cache=True, nogil=True)
def _threshold_counts_sorted_weighted(pos, pos_w, neg, neg_w):
    """Weighted twin of ``_threshold_counts_sorted``."""
    n_pos = pos.shape[0]
    n_neg = neg.shape[0]
    cap = n_pos + n_neg
    thresholds = np.empty(cap, dtype=np.float64)
    tps = np.empty(cap, dtype=np.float64)
    fps = np.empty(cap, dtype=np.float64)
    i = n_pos - 1
    j = n_neg - 1
    tp = 0.0
    fp = 0.0
    m = 0
    while i >= 0 or j >= 0:
        if j < 0 or (i >= 0 and pos[i] >= neg[j]):
            v = pos[i]
        else:
            v = neg[j]
        while i >= 0 and pos[i] == v:
            tp += pos_w[i]
            i -= 1
        while j >= 0 and neg[j] == v:
            fp += neg_w[j]
            j -= 1
        thresholds[m] = v
        tps[m] = tp
        fps[m] = fp
        m += 1
    return thresholds[:m].copy(), tps[:m].copy(), fps[:m].copy()

"""Numba kernels for per-group AUC (GAUC) without sorting the majority class.

Layout: rows carry a dense group code. Only the rows of the globally rarer
class (usually the clicks) are gathered per group (CSR) and sorted; every row
of the other class is then streamed in input order and binary-searched in its
group's sorted segment. The counts are exact integers (ties count one half),
and the work is O(n log m_g) with m_g the minority rows of a group: the
majority class, often 95% of an impression log, is never moved or sorted.
"""

from __future__ import annotations

import numba as nb
import numpy as np


@nb.njit(cache=True, nogil=True)
def _group_counts(codes, n_groups, labels):
    """Rows and positives of each group."""
    rows = np.zeros(n_groups, dtype=np.int64)
    positives = np.zeros(n_groups, dtype=np.int64)
    for i in range(codes.shape[0]):
        g = codes[i]
        rows[g] += 1
        positives[g] += labels[i]
    return rows, positives


@nb.njit(cache=True, nogil=True)
def _group_weight_sums(codes, n_groups, labels, weights):
    """Total weight and weighted positives of each group."""
    weight = np.zeros(n_groups, dtype=np.float64)
    weighted_pos = np.zeros(n_groups, dtype=np.float64)
    for i in range(codes.shape[0]):
        g = codes[i]
        weight[g] += weights[i]
        if labels[i] == 1:
            weighted_pos[g] += weights[i]
    return weight, weighted_pos


@nb.njit(cache=True, nogil=True)
def _gather_minority(codes, n_groups, labels, scores, minority, counts):
    """CSR of the minority-class scores by group; ``counts`` = minority rows per group."""
    offsets = np.zeros(n_groups + 1, dtype=np.int64)
    for g in range(n_groups):
        offsets[g + 1] = offsets[g] + counts[g]
    cursor = offsets[:-1].copy()
    out = np.empty(offsets[n_groups], dtype=np.float64)
    for i in range(codes.shape[0]):
        if labels[i] == minority:
            g = codes[i]
            out[cursor[g]] = scores[i]
            cursor[g] += 1
    return offsets, out


@nb.njit(cache=True, nogil=True)
def _gather_minority_weighted(codes, n_groups, labels, scores, weights, minority, counts):
    """Weighted twin of ``_gather_minority`` (rows of weight 0 are kept; they add nothing)."""
    offsets = np.zeros(n_groups + 1, dtype=np.int64)
    for g in range(n_groups):
        offsets[g + 1] = offsets[g] + counts[g]
    cursor = offsets[:-1].copy()
    out = np.empty(offsets[n_groups], dtype=np.float64)
    out_w = np.empty(offsets[n_groups], dtype=np.float64)
    for i in range(codes.shape[0]):
        if labels[i] == minority:
            g = codes[i]
            out[cursor[g]] = scores[i]
            out_w[cursor[g]] = weights[i]
            cursor[g] += 1
    return offsets, out, out_w


@nb.njit(cache=True, nogil=True, parallel=True)
def _sort_segments(values, offsets):
    for g in nb.prange(offsets.shape[0] - 1):
        values[offsets[g] : offsets[g + 1]].sort()


@nb.njit(cache=True, nogil=True, parallel=True)
def _sort_segments_weighted(values, weights, offsets):
    """Sort each segment by value, carry the weights, then turn them into prefix sums."""
    for g in nb.prange(offsets.shape[0] - 1):
        a = offsets[g]
        b = offsets[g + 1]
        if b - a > 1:
            order = np.argsort(values[a:b], kind="mergesort")
            v = values[a:b][order]
            w = weights[a:b][order]
            values[a:b] = v
            weights[a:b] = w
        acc = 0.0
        for t in range(a, b):
            acc += weights[t]
            weights[t] = acc


@nb.njit(cache=True, nogil=True, inline="always")
def _lower_bound(seg, a, b, x):
    """#values < x in the sorted slice seg[a:b] (branch-free binary search)."""
    n = b - a
    if n == 0:
        return 0
    base = a
    while n > 1:
        half = n >> 1
        if seg[base + half - 1] < x:
            base += half
        n -= half
    if seg[base] < x:
        base += 1
    return base - a


@nb.njit(cache=True, nogil=True, inline="always")
def _upper_bound(seg, a, b, x):
    """#values <= x in the sorted slice seg[a:b]."""
    n = b - a
    if n == 0:
        return 0
    base = a
    while n > 1:
        half = n >> 1
        if seg[base + half - 1] <= x:
            base += half
        n -= half
    if seg[base] <= x:
        base += 1
    return base - a


@nb.njit(cache=True, nogil=True, inline="always")
def _bounds(seg, a, b, x):
    """(#values < x, #values <= x) in the sorted slice seg[a:b]; one search without ties."""
    below = _lower_bound(seg, a, b, x)
    if a + below < b and seg[a + below] == x:
        return below, below + _upper_bound(seg, a + below, b, x)
    return below, below


@nb.njit(cache=True, nogil=True, parallel=True)
def _stream_pair_counts(codes, n_groups, labels, scores, minority, offsets, seg, n_chunks):
    """Twice the Mann-Whitney U of each group, streaming the majority rows."""
    n = codes.shape[0]
    acc = np.zeros((n_chunks, n_groups), dtype=np.int64)
    for c in nb.prange(n_chunks):
        start = n * c // n_chunks
        stop = n * (c + 1) // n_chunks
        for i in range(start, stop):
            if labels[i] == minority:
                continue
            g = codes[i]
            a = offsets[g]
            m = offsets[g + 1] - a
            if m == 0:
                continue
            below, below_eq = _bounds(seg, a, a + m, scores[i])
            ties = below_eq - below
            if minority == 1:  # streamed row is a negative: positives above it win
                acc[c, g] += 2 * (m - below_eq) + ties
            else:  # streamed row is a positive: negatives below it lose
                acc[c, g] += 2 * below + ties
    out = np.zeros(n_groups, dtype=np.int64)
    for c in range(n_chunks):
        for g in range(n_groups):
            out[g] += acc[c, g]
    return out


@nb.njit(cache=True, nogil=True, parallel=True)
def _stream_pair_weights(
    codes, n_groups, labels, scores, weights, minority, offsets, seg, seg_cum_w, n_chunks
):
    """Weighted U of each group; ``seg_cum_w`` holds per-segment prefix sums of weight."""
    n = codes.shape[0]
    acc = np.zeros((n_chunks, n_groups), dtype=np.float64)
    for c in nb.prange(n_chunks):
        start = n * c // n_chunks
        stop = n * (c + 1) // n_chunks
        for i in range(start, stop):
            if labels[i] == minority or weights[i] == 0.0:
                continue
            g = codes[i]
            a = offsets[g]
            m = offsets[g + 1] - a
            if m == 0:
                continue
            below, below_eq = _bounds(seg, a, a + m, scores[i])
            w_total = seg_cum_w[a + m - 1]
            w_below = seg_cum_w[a + below - 1] if below > 0 else 0.0
            w_below_eq = seg_cum_w[a + below_eq - 1] if below_eq > 0 else 0.0
            tie = w_below_eq - w_below
            if minority == 1:
                acc[c, g] += weights[i] * ((w_total - w_below_eq) + 0.5 * tie)
            else:
                acc[c, g] += weights[i] * (w_below + 0.5 * tie)
    out = np.zeros(n_groups, dtype=np.float64)
    for c in range(n_chunks):
        for g in range(n_groups):
            out[g] += acc[c, g]
    return out

"""Numba kernels for per-group AUC (GAUC) without sorting the majority class.

Layout: rows carry a dense group code. Only the rows of the globally rarer
class (usually the clicks) are gathered per group (CSR) and sorted; every row
of the other class is then streamed in input order and binary-searched in its
group's sorted segment. The counts are exact integers (ties count one half),
and the work is O(n log m_g) with m_g the minority rows of a group: the
majority class, often 95% of an impression log, is never moved or sorted.

With sample weights the pair weights are float sums, whose rounding depends
on the order of addition: there, each group's rows are put in an order that
depends on the rows alone (:func:`_canonical`) and summed in it, so that a
group's weighted AUC is the same float in any split of the groups (out of
core, on Spark) and in any row order.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ._auc import _pair_weight_sorted


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


# ------------------------------------------------------------------ weighted
@nb.njit(cache=True, nogil=True)
def _canonical(values, weights):
    """``(values, weights)`` sorted by value, and by weight within equal values:
    an order that depends on the pairs only, not on the order they came in."""
    order = np.argsort(values, kind="mergesort")
    v = values[order]
    w = weights[order]
    n = v.shape[0]
    i = 0
    while i < n:
        j = i + 1
        while j < n and v[j] == v[i]:
            j += 1
        if j - i > 1:
            w[i:j] = np.sort(w[i:j])
        i = j
    return v, w


@nb.njit(cache=True, nogil=True, parallel=True)
def _weighted_group_aucs(codes, n_groups, labels, scores, weights, rows, positives):
    """Per group: weighted U, weighted positives and weighted negatives.

    Each group's positives and negatives are put in :func:`_canonical` order
    and walked once (``_pair_weight_sorted``), and its weights are summed in
    that order: a group's values depend on its own rows only, not on their
    order, the other groups or the threads, so any split of the groups gives
    the same floats. Weights are added up from below (no difference of
    prefix sums, which cancels when weights span many magnitudes).
    """
    n = codes.shape[0]
    offsets = np.zeros(n_groups + 1, dtype=np.int64)
    for g in range(n_groups):
        offsets[g + 1] = offsets[g] + rows[g]
    cursor = offsets[:-1].copy()
    by_group = np.empty(n, dtype=np.int64)
    for i in range(n):
        g = codes[i]
        by_group[cursor[g]] = i
        cursor[g] += 1
    area = np.zeros(n_groups, dtype=np.float64)
    w_pos = np.zeros(n_groups, dtype=np.float64)
    w_neg = np.zeros(n_groups, dtype=np.float64)
    for g in nb.prange(n_groups):
        a = offsets[g]
        n_pos = positives[g]
        n_neg = rows[g] - n_pos
        ps = np.empty(n_pos, dtype=np.float64)
        pw = np.empty(n_pos, dtype=np.float64)
        ns = np.empty(n_neg, dtype=np.float64)
        nw = np.empty(n_neg, dtype=np.float64)
        p = 0
        q = 0
        for t in range(a, offsets[g + 1]):
            i = by_group[t]
            if labels[i] == 1:
                ps[p] = scores[i]
                pw[p] = weights[i]
                p += 1
            else:
                ns[q] = scores[i]
                nw[q] = weights[i]
                q += 1
        ps, pw = _canonical(ps, pw)
        ns, nw = _canonical(ns, nw)
        area[g] = _pair_weight_sorted(ps, pw, ns, nw)
        total = 0.0
        for t in range(n_pos):
            total += pw[t]
        w_pos[g] = total
        total = 0.0
        for t in range(n_neg):
            total += nw[t]
        w_neg[g] = total
    return area, w_pos, w_neg

"""Numba kernels that build the ranking engine's CSR containers.

A ``Qrels`` is a CSR over users with the judged items of each user sorted by
item code and, beside them, the user's grades sorted descending
(:func:`_judged_segments`). A ``Run`` is a CSR over its users with the items
of each user in ranked order (score descending, input order within ties) and
their scores: rows are grouped by user (:func:`_group_rows`), then each list
is sorted on its own (:func:`_build_ranked`), or all lists at once as packed
uint64 keys that NumPy sorts (:func:`_pack_keys`, :func:`_pack_block` and the
``_unpack_*`` kernels), with an exact sort of the lists whose keys differ only
in the dropped bits (:func:`_redo_segments`). The metric kernels that read
these containers are in :mod:`receval._kernels._topk`.
"""

from __future__ import annotations

import numba as nb
import numpy as np


# ------------------------------------------------------------------ construction
@nb.njit(cache=True, nogil=True, parallel=True)
def _judged_segments(offsets, rows, item_codes, grades, n_chunks):
    """Each user's judged items sorted by item code with their grades, the grades
    sorted descending, and the first user with a repeated item (-1 if none).

    Short segments (the usual handful of judged items) are insertion-sorted in
    place; longer ones use a merge sort. ``rows`` maps CSR positions to input
    rows (empty: identity).
    """
    n = item_codes.shape[0]
    n_seg = offsets.shape[0] - 1
    items = np.empty(n, dtype=item_codes.dtype)
    out_grades = np.empty(n)
    desc = np.empty(n)
    dup = np.full(n_chunks, -1, dtype=np.int64)
    for c in nb.prange(n_chunks):
        for g in range(n_seg * c // n_chunks, n_seg * (c + 1) // n_chunks):
            a = offsets[g]
            b = offsets[g + 1]
            if b - a <= 32:
                for t in range(a, b):  # stable insertion sort by item code
                    r = _row(rows, t)
                    it = item_codes[r]
                    gr = grades[r]
                    j = t
                    while j > a and items[j - 1] > it:
                        items[j] = items[j - 1]
                        out_grades[j] = out_grades[j - 1]
                        j -= 1
                    items[j] = it
                    out_grades[j] = gr
                    j = t
                    while j > a and desc[j - 1] < gr:
                        desc[j] = desc[j - 1]
                        j -= 1
                    desc[j] = gr
            else:
                seg = np.empty(b - a, dtype=item_codes.dtype)
                seg_g = np.empty(b - a)
                for t in range(a, b):
                    r = _row(rows, t)
                    seg[t - a] = item_codes[r]
                    seg_g[t - a] = grades[r]
                order = np.argsort(seg, kind="mergesort")
                for t in range(b - a):
                    items[a + t] = seg[order[t]]
                    out_grades[a + t] = seg_g[order[t]]
                seg_g.sort()
                for t in range(b - a):
                    desc[a + t] = seg_g[b - a - 1 - t]
            if dup[c] < 0:
                for t in range(a + 1, b):
                    if items[t] == items[t - 1]:
                        dup[c] = g
                        break
    first = -1
    for c in range(n_chunks):
        if dup[c] >= 0:
            first = dup[c]
            break
    return items, out_grades, desc, first


@nb.njit(cache=True, nogil=True, parallel=True)
def _tie_segments(scores, offsets, single):
    """The segments (ascending) in which two neighbours have equal scores (in float32
    if ``single``)."""
    n_seg = offsets.shape[0] - 1
    tied = np.zeros(max(n_seg, 0), dtype=np.bool_)
    for g in nb.prange(n_seg):
        for i in range(offsets[g] + 1, offsets[g + 1]):
            if single:
                tie = np.float32(scores[i]) == np.float32(scores[i - 1])
            else:
                tie = scores[i] == scores[i - 1]
            if tie:
                tied[g] = True
                break
    return np.flatnonzero(tied).astype(np.int64)


@nb.njit(cache=True, nogil=True)
def _is_grouped(codes):
    """True when equal codes are contiguous and ascending (rows already grouped by user)."""
    for i in range(1, codes.shape[0]):
        if codes[i] < codes[i - 1]:
            return False
    return True


@nb.njit(cache=True, nogil=True)
def _offsets_of_sorted(codes, n_groups):
    offsets = np.zeros(n_groups + 1, dtype=np.int64)
    for i in range(codes.shape[0]):
        offsets[codes[i] + 1] += 1
    for g in range(n_groups):
        offsets[g + 1] += offsets[g]
    return offsets


@nb.njit(cache=True, nogil=True, inline="always")
def _row(rows, i):
    """Input row of CSR position i; an empty ``rows`` means the identity."""
    return i if rows.shape[0] == 0 else rows[i]


@nb.njit(cache=True, nogil=True)
def _stable_sort_desc(keys, pos, tmp_keys, tmp_pos, n):
    """Sort keys[:n] descending, carrying pos, stable; no allocation.

    Insertion sort on runs of 16, then bottom-up merges through the tmp buffers.
    """
    run = 16
    for start in range(0, n, run):
        stop = min(start + run, n)
        for i in range(start + 1, stop):
            k = keys[i]
            p = pos[i]
            j = i - 1
            while j >= start and keys[j] < k:
                keys[j + 1] = keys[j]
                pos[j + 1] = pos[j]
                j -= 1
            keys[j + 1] = k
            pos[j + 1] = p
    src_k, src_p, dst_k, dst_p = keys, pos, tmp_keys, tmp_pos
    width = run
    swapped = False
    while width < n:
        for left in range(0, n, 2 * width):
            mid = min(left + width, n)
            right = min(left + 2 * width, n)
            i = left
            j = mid
            o = left
            while i < mid and j < right:
                if src_k[j] > src_k[i]:  # strictly greater: equal keys keep their order
                    dst_k[o] = src_k[j]
                    dst_p[o] = src_p[j]
                    j += 1
                else:
                    dst_k[o] = src_k[i]
                    dst_p[o] = src_p[i]
                    i += 1
                o += 1
            while i < mid:
                dst_k[o] = src_k[i]
                dst_p[o] = src_p[i]
                i += 1
                o += 1
            while j < right:
                dst_k[o] = src_k[j]
                dst_p[o] = src_p[j]
                j += 1
                o += 1
        src_k, src_p, dst_k, dst_p = dst_k, dst_p, src_k, src_p
        swapped = not swapped
        width *= 2
    if swapped:
        for t in range(n):
            keys[t] = tmp_keys[t]
            pos[t] = tmp_pos[t]


@nb.njit(cache=True, nogil=True)
def _packed_sort_desc(keys, pos, buf, n):
    """Fast path of a stable descending sort of keys[:n] with their positions.

    Each float64 key is mapped to an order-preserving uint64, inverted (for
    descending order), and its lowest bits are replaced by the position, so one
    plain integer sort orders by key and then by position. Keys that differ
    only in the dropped bits could come out of order: a final check compares
    the real keys and returns False (the caller then runs the exact merge
    sort) if any pair is out of order, so the result is always exact.
    """
    bits = 1
    while (1 << bits) < n:
        bits += 1
    low = np.uint64((1 << bits) - 1)
    sign = np.uint64(1) << np.uint64(63)
    for t in range(n):
        u = keys[t : t + 1].view(np.uint64)[0]
        u = ~u if u & sign else u | sign  # ascending order of the floats
        buf[t] = (~u & ~low) | np.uint64(t)  # descending, then by position
    buf[:n].sort()
    tmp_k = keys[:n].copy()
    for t in range(n):
        p = np.int64(buf[t] & low)
        pos[t] = p
        keys[t] = tmp_k[p]
    for t in range(1, n):
        if keys[t] > keys[t - 1] or (keys[t] == keys[t - 1] and pos[t] < pos[t - 1]):
            for j in range(n):  # restore the input, for the exact fallback
                keys[j] = tmp_k[j]
                pos[j] = j
            return False
    return True


@nb.njit(cache=True, nogil=True)
def _rank_segment(keys, rows, out_items, out_keys, items, a, n, bufs_k, bufs_p, bufs_u):
    """Write rows[a:a+n] ordered by key descending, input order within ties."""
    ordered = True
    for t in range(1, n):
        if keys[_row(rows, a + t)] > keys[_row(rows, a + t - 1)]:
            ordered = False
            break
    if ordered:
        for t in range(n):
            r = _row(rows, a + t)
            out_items[a + t] = items[r]
            out_keys[a + t] = keys[r]
        return
    for t in range(n):
        bufs_k[0, t] = keys[_row(rows, a + t)]
        bufs_p[0, t] = t
    if not _packed_sort_desc(bufs_k[0], bufs_p[0], bufs_u, n):
        _stable_sort_desc(bufs_k[0], bufs_p[0], bufs_k[1], bufs_p[1], n)
    for t in range(n):
        r = _row(rows, a + bufs_p[0, t])
        out_items[a + t] = items[r]
        out_keys[a + t] = bufs_k[0, t]


@nb.njit(cache=True, nogil=True, parallel=True)
def _build_ranked(rows, offsets, items, keys, n_items, max_len, n_chunks):
    """Per-user ranked lists: items and keys in key-descending order (stable).

    ``rows`` maps CSR positions to input rows (empty: the identity, when the
    input was already grouped). Also returns the first segment holding a duplicate item,
    found with a per-chunk stamp table (no sort), or -1.
    """
    n_groups = offsets.shape[0] - 1
    n = offsets[n_groups]
    out_items = np.empty(n, dtype=items.dtype)
    out_keys = np.empty(n, dtype=np.float64)
    dup = np.full(n_chunks, -1, dtype=np.int64)
    for c in nb.prange(n_chunks):
        g0 = n_groups * c // n_chunks
        g1 = n_groups * (c + 1) // n_chunks
        stamp = np.full(n_items, -1, dtype=np.int64)
        bufs_k = np.empty((2, max_len), dtype=np.float64)
        bufs_p = np.empty((2, max_len), dtype=np.int64)
        bufs_u = np.empty(max_len, dtype=np.uint64)
        for g in range(g0, g1):
            a = offsets[g]
            m = offsets[g + 1] - a
            for t in range(m):
                it = items[_row(rows, a + t)]
                if stamp[it] == g and dup[c] < 0:
                    dup[c] = g
                stamp[it] = g
            _rank_segment(keys, rows, out_items, out_keys, items, a, m, bufs_k, bufs_p, bufs_u)
    first = -1
    for c in range(n_chunks):
        if dup[c] >= 0 and (first < 0 or dup[c] < first):
            first = dup[c]
    return out_items, out_keys, first


@nb.njit(cache=True, nogil=True)
def _group_rows(codes, n_groups):
    """Stable counting sort of rows by code: (offsets, rows) with int64 rows."""
    offsets = _offsets_of_sorted(codes, n_groups)
    cursor = offsets[:-1].copy()
    rows = np.empty(codes.shape[0], dtype=np.int64)
    for i in range(codes.shape[0]):
        g = codes[i]
        rows[cursor[g]] = i
        cursor[g] += 1
    return offsets, rows


# ------------------------------------------------------------------ packed global sort
@nb.njit(cache=True, nogil=True, parallel=True)
def _pack_keys(offsets, rows, key_bits, seg_bits, pos_bits, n_chunks):
    """One uint64 per row: segment id, then the key descending (top bits), then the
    position inside the segment. A plain integer sort of these orders every
    segment by key descending, ties by input position (up to the dropped key
    bits, which ``_unpack_ranked`` checks). ``key_bits``: the float64 keys viewed
    as uint64."""
    n_seg = offsets.shape[0] - 1
    n = offsets[n_seg]
    out = np.empty(n, dtype=np.uint64)
    score_bits = 64 - seg_bits - pos_bits
    sign = np.uint64(1) << np.uint64(63)
    shift_down = np.uint64(64 - score_bits)
    shift_pos = np.uint64(pos_bits)
    for c in nb.prange(n_chunks):
        for g in range(n_seg * c // n_chunks, n_seg * (c + 1) // n_chunks):
            a = offsets[g]
            high = np.uint64(g) << np.uint64(score_bits + pos_bits)
            for t in range(offsets[g + 1] - a):
                u = key_bits[_row(rows, a + t)]
                u = ~u if u & sign else u | sign
                v = (~u) >> shift_down
                out[a + t] = high | (v << shift_pos) | np.uint64(t)
    return out


@nb.njit(cache=True, nogil=True, parallel=True)
def _unpack_ranked(packed, offsets, rows, items, keys, pos_bits, n_chunks):
    """Decode sorted packed keys in place: returns the ranked items, the same
    buffer viewed as float64 keys, and a flag per segment whose order must be
    redone exactly (keys that differ only in the dropped bits)."""
    n_seg = offsets.shape[0] - 1
    out_items = np.empty(packed.shape[0], dtype=items.dtype)
    out_keys = packed.view(np.float64)
    low = np.uint64((1 << pos_bits) - 1)
    bad = np.zeros(n_seg, dtype=np.bool_)
    for c in nb.prange(n_chunks):
        for g in range(n_seg * c // n_chunks, n_seg * (c + 1) // n_chunks):
            a = offsets[g]
            prev_key = np.inf
            prev_pos = -1
            for t in range(offsets[g + 1] - a):
                p = np.int64(packed[a + t] & low)
                r = _row(rows, a + p)
                k = keys[r]
                if k > prev_key or (k == prev_key and p < prev_pos):
                    bad[g] = True
                out_items[a + t] = items[r]
                out_keys[a + t] = k
                prev_key = k
                prev_pos = p
    return out_items, out_keys, bad


@nb.njit(cache=True, nogil=True, parallel=True)
def _unpack_grouped(packed, offsets, items, keys, pos_bits, n_items, max_len, n_chunks):
    """``_unpack_ranked`` for rows already grouped by segment, in place: ``items``
    is reordered segment by segment (through a buffer of one segment) and the
    packed buffer becomes the float64 keys, so no other row-sized array is
    allocated. Segments whose order must be redone exactly are left in input
    order (items and keys) and flagged. Also finds the first segment with a
    repeated item, from a stamp table per chunk. Returns (keys, bad, first_dup).
    """
    n_seg = offsets.shape[0] - 1
    out_keys = packed.view(np.float64)
    low = np.uint64((1 << pos_bits) - 1)
    bad = np.zeros(n_seg, dtype=np.bool_)
    dup = np.full(n_chunks, -1, dtype=np.int64)
    for c in nb.prange(n_chunks):
        stamp = np.full(n_items, -1, dtype=np.int64)
        buf = np.empty(max_len, dtype=items.dtype)
        for g in range(n_seg * c // n_chunks, n_seg * (c + 1) // n_chunks):
            a = offsets[g]
            n = offsets[g + 1] - a
            prev_key = np.inf
            prev_pos = -1
            ok = True
            for t in range(n):
                p = np.int64(packed[a + t] & low)
                k = keys[a + p]
                if k > prev_key or (k == prev_key and p < prev_pos):
                    ok = False
                    break
                prev_key = k
                prev_pos = p
            for t in range(n):
                it = items[a + t]
                buf[t] = it
                if stamp[it] == g and dup[c] < 0:
                    dup[c] = g
                stamp[it] = g
            if ok:
                for t in range(n):
                    p = np.int64(packed[a + t] & low)
                    items[a + t] = buf[p]
                    out_keys[a + t] = keys[a + p]
            else:
                bad[g] = True
                for t in range(n):
                    out_keys[a + t] = keys[a + t]
    first = -1
    for c in range(n_chunks):
        if dup[c] >= 0 and (first < 0 or dup[c] < first):
            first = dup[c]
    return out_keys, bad, first


@nb.njit(cache=True, nogil=True)
def _pack_block(offsets, rows, key_bits, g0, g1, seg_bits, pos_bits, buf):
    """``_pack_keys`` for segments g0..g1 into ``buf`` (segment ids counted from
    g0, so a block of a few thousand segments leaves more bits to the key;
    ``seg_bits=0``: no segment id, for blocks sorted row by row).
    ``key_bits`` is the float64 keys viewed as uint64."""
    score_bits = 64 - seg_bits - pos_bits
    sign = np.uint64(1) << np.uint64(63)
    shift_down = np.uint64(64 - score_bits)
    shift_pos = np.uint64(pos_bits)
    base = offsets[g0]
    for g in range(g0, g1):
        a = offsets[g]
        high = np.uint64(0)
        if seg_bits > 0:
            high = np.uint64(g - g0) << np.uint64(score_bits + pos_bits)
        for t in range(offsets[g + 1] - a):
            u = key_bits[_row(rows, a + t)]
            u = ~u if u & sign else u | sign
            v = (~u) >> shift_down
            buf[a + t - base] = high | (v << shift_pos) | np.uint64(t)
    return offsets[g1] - base


@nb.njit(cache=True, nogil=True)
def _unpack_block(
    buf, offsets, rows, items, keys, g0, g1, pos_bits, out_items, out_keys, bad, stamp,
    seg_items, seg_keys,
):  # fmt: skip
    """Decode the sorted ``buf`` of segments g0..g1 into ``out_items`` and
    ``out_keys`` (which may be ``items`` and ``keys`` themselves when ``rows``
    is the identity: each segment's items and keys are copied to ``seg_items``
    and ``seg_keys`` first). Segments whose keys differ only in dropped bits
    are written in input order and flagged in ``bad`` (to be redone exactly).
    Returns the first segment with a repeated item (``stamp``: a table over
    item codes), or -1.
    """
    low = np.uint64((1 << pos_bits) - 1)
    base = offsets[g0]
    dup = -1
    for g in range(g0, g1):
        a = offsets[g]
        n = offsets[g + 1] - a
        for t in range(n):
            r = _row(rows, a + t)
            it = items[r]
            seg_items[t] = it
            seg_keys[t] = keys[r]
            if stamp[it] == g and dup < 0:
                dup = g
            stamp[it] = g
        prev_key = np.inf
        prev_pos = -1
        ok = True
        for t in range(n):
            p = np.int64(buf[a + t - base] & low)
            k = seg_keys[p]
            if k > prev_key or (k == prev_key and p < prev_pos):
                ok = False
                break
            out_keys[a + t] = k
            out_items[a + t] = seg_items[p]
            prev_key = k
            prev_pos = p
        if not ok:
            bad[g] = True
            for t in range(n):
                out_items[a + t] = seg_items[t]
                out_keys[a + t] = seg_keys[t]
    return dup


@nb.njit(cache=True, nogil=True)
def _redo_segments(segments, offsets, rows, items, keys, out_items, out_keys, max_len):
    """Exact stable ranking of the given segments (the rare fallback)."""
    bufs_k = np.empty((2, max_len), dtype=np.float64)
    bufs_p = np.empty((2, max_len), dtype=np.int64)
    buf_items = np.empty(max_len, dtype=items.dtype)  # out_items may be items itself
    for g in segments:
        a = offsets[g]
        n = offsets[g + 1] - a
        for t in range(n):
            bufs_k[0, t] = keys[_row(rows, a + t)]
            bufs_p[0, t] = t
            buf_items[t] = items[_row(rows, a + t)]
        _stable_sort_desc(bufs_k[0], bufs_p[0], bufs_k[1], bufs_p[1], n)
        for t in range(n):
            out_items[a + t] = buf_items[bufs_p[0, t]]
            out_keys[a + t] = bufs_k[0, t]


@nb.njit(cache=True, nogil=True, parallel=True)
def _first_duplicate_segment(offsets, rows, items, n_items, n_chunks):
    """First segment where an item repeats (stamp table per chunk, no sort), or -1."""
    n_seg = offsets.shape[0] - 1
    dup = np.full(n_chunks, -1, dtype=np.int64)
    for c in nb.prange(n_chunks):
        stamp = np.full(n_items, -1, dtype=np.int64)
        for g in range(n_seg * c // n_chunks, n_seg * (c + 1) // n_chunks):
            a = offsets[g]
            for t in range(offsets[g + 1] - a):
                it = items[_row(rows, a + t)]
                if stamp[it] == g and dup[c] < 0:
                    dup[c] = g
                stamp[it] = g
    first = -1
    for c in range(n_chunks):
        if dup[c] >= 0 and (first < 0 or dup[c] < first):
            first = dup[c]
    return first

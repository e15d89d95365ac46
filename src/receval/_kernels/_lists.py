"""Numba kernels of the beyond-accuracy metrics: they read a ``Run``'s CSR arrays.

Every kernel takes the run's ``items`` (item codes of each user's list, in
ranked order), its ``offsets`` (n_users + 1) and a depth ``k``: only the first
``min(len, k)`` items of each list count. Item-level inputs (feature rows,
popularity, exposure) are indexed by the run's item codes, so no kernel sees an
item id. ``nan`` means undefined; the caller decides to skip or warn.

Kernels that loop over users split them into ``n_chunks`` contiguous ranges
run in parallel (``prange``), each with its own scratch buffers. Every user's
value is computed by one thread in a fixed order, so results do not depend on
the number of threads. Waking the thread pool costs milliseconds on a busy
machine, more than a small run takes serially: :func:`n_chunks` gives 1 chunk
below ``PARALLEL_MIN_ROWS`` rows.
"""

from __future__ import annotations

import numba as nb
import numpy as np

# lists longer than this use ||sum x||^2 - sum ||x||^2 (O(m d)) instead of the
# m (m - 1) / 2 dot products (O(m^2 d)); both are exact up to float rounding
PAIRWISE_MAX = 32
# below this many rows, the per-user loops run on the calling thread
PARALLEL_MIN_ROWS = 50_000
# dot products and sums of squares may be reassociated (SIMD); nothing else
_FAST = {"reassoc", "contract"}


def n_chunks(n_rows: int) -> int:
    """Chunks of users for a run of ``n_rows`` rows: 1 (serial) for small runs."""
    if n_rows < PARALLEL_MIN_ROWS:
        return 1
    return 4 * max(1, int(nb.get_num_threads()))


@nb.njit(cache=True, nogil=True, inline="always")
def _chunk(n, c, n_chunks):
    return n * c // n_chunks, n * (c + 1) // n_chunks


@nb.njit(cache=True, nogil=True, inline="always")
def _depth(offsets, u, k):
    n = offsets[u + 1] - offsets[u]
    return n if n < k else k


# ------------------------------------------------------------------ exposure
@nb.njit(cache=True, nogil=True)
def _item_counts_csr(items, offsets, k, n_items):
    """How many lists hold each item in their top ``k`` (int64, length ``n_items``)."""
    counts = np.zeros(n_items, dtype=np.int64)
    for u in range(offsets.shape[0] - 1):
        a = offsets[u]
        for t in range(_depth(offsets, u, k)):
            counts[items[a + t]] += 1
    return counts


@nb.njit(cache=True, nogil=True)
def _gini_sorted(counts):
    """Gini index of non-negative integer counts sorted ascending.

    ``G = sum_j (2 j - n - 1) c_j / (n sum_j c_j)`` with j = 1..n; the numerator
    and the total are exact int64 sums, divided once. nan if every count is 0.
    """
    n = counts.shape[0]
    num = 0
    total = 0
    for j in range(n):
        num += (2 * (j + 1) - n - 1) * counts[j]
        total += counts[j]
    if total == 0:
        return np.nan
    return num / (n * float(total))


# ------------------------------------------------------------------ intra-list similarity
@nb.njit(cache=True, nogil=True)
def _max_abs(features, r):
    m = 0.0
    for f in range(features.shape[1]):
        m = max(m, abs(np.float64(features[r, f])))
    return m


@nb.njit(cache=True, nogil=True)
def _inverse_norm(features, r):
    """The unit-vector weight of row ``r``: ``1 / ||row||`` computed on ``row / max|row|``
    (no square overflows or underflows); ``-1 / ||row / max|row| ||`` when that is not
    finite (a subnormal row: divide it by its largest absolute value first); 0 for a
    zero row."""
    m = _max_abs(features, r)
    if m == 0.0:
        return 0.0
    sq = 0.0
    for f in range(features.shape[1]):
        x = np.float64(features[r, f]) / m
        sq += x * x
    n = np.sqrt(sq)
    w = 1.0 / (m * n)
    return w if np.isfinite(w) else -1.0 / n


@nb.njit(cache=True, nogil=True)
def _unit(features, r, w, f, m):
    """Component ``f`` of row ``r`` as a unit vector (``m``: its largest absolute value,
    read when ``w`` is negative)."""
    if w < 0.0:
        return np.float64(features[r, f]) / m * -w
    return np.float64(features[r, f]) * w


@nb.njit(cache=True, nogil=True, parallel=True)
def _inverse_norms(features, rows, used, n_chunks):
    """The unit-vector weight of ``features[rows[i]]`` (see ``_inverse_norm``) for each
    item code i with ``used[i]``; 0 otherwise and for zero vectors (whose cosine with
    anything is then 0, as in scikit-learn)."""
    n = rows.shape[0]
    out = np.zeros(n, dtype=np.float64)
    for c in nb.prange(n_chunks):
        lo, hi = _chunk(n, c, n_chunks)
        for i in range(lo, hi):
            if used[i] and rows[i] >= 0:
                out[i] = _inverse_norm(features, rows[i])
    return out


@nb.njit(cache=True, nogil=True, fastmath=_FAST)
def _ils_features_range(items, offsets, k, rows, features, inv_norm, lo, hi, out):
    """ILS of users lo..hi-1: mean cosine over ordered pairs of distinct positions.

    Short lists (at most ``PAIRWISE_MAX`` items) are copied once into a small
    float64 buffer, already divided by their norms, and every pair's dot
    product is taken there. Longer lists use
    ``sum_{i != j} <x_i, x_j> = ||sum_i x_i||^2 - sum_i ||x_i||^2``.
    """
    d = features.shape[1]
    buf = np.empty((PAIRWISE_MAX, d), dtype=np.float64)
    acc = np.empty(d, dtype=np.float64)
    for u in range(lo, hi):
        m = _depth(offsets, u, k)
        if m < 2:
            out[u] = np.nan
            continue
        a = offsets[u]
        if m <= PAIRWISE_MAX:
            for i in range(m):
                c = items[a + i]
                r = rows[c]
                w = inv_norm[c]
                mx = _max_abs(features, r) if w < 0.0 else 1.0
                for f in range(d):
                    buf[i, f] = _unit(features, r, w, f, mx)
            total = 0.0
            for i in range(m - 1):
                for j in range(i + 1, m):
                    dot = 0.0
                    for f in range(d):
                        dot += buf[i, f] * buf[j, f]
                    total += dot
            out[u] = 2.0 * total / (m * (m - 1.0))
        else:
            acc[:] = 0.0
            self_sq = 0.0
            for i in range(m):
                c = items[a + i]
                r = rows[c]
                w = inv_norm[c]
                mx = _max_abs(features, r) if w < 0.0 else 1.0
                for f in range(d):
                    x = _unit(features, r, w, f, mx)
                    acc[f] += x
                    self_sq += x * x
            sq = 0.0
            for f in range(d):
                sq += acc[f] * acc[f]
            out[u] = (sq - self_sq) / (m * (m - 1.0))


@nb.njit(cache=True, nogil=True, parallel=True)
def _intra_list_similarity_csr(items, offsets, k, rows, features, inv_norm, n_chunks):
    """Per-user ILS with cosine similarity of feature vectors (nan below 2 items).

    ``rows[c]`` is the feature row of item code ``c``; ``inv_norm[c]`` the inverse
    norm of that row (so ``features`` is read in place, never copied whole).
    """
    n_users = offsets.shape[0] - 1
    out = np.empty(n_users, dtype=np.float64)
    for c in nb.prange(n_chunks):
        lo, hi = _chunk(n_users, c, n_chunks)
        _ils_features_range(items, offsets, k, rows, features, inv_norm, lo, hi, out)
    return out


@nb.njit(cache=True, nogil=True)
def _ils_matrix_user(items, offsets, u, k, rows, matrix):
    """Sum of S[i, j] + S[j, i] over pairs i < j, over m (m - 1): every ordered
    pair of distinct positions."""
    m = _depth(offsets, u, k)
    if m < 2:
        return np.nan
    a = offsets[u]
    total = 0.0
    for i in range(m - 1):
        ri = rows[items[a + i]]
        for j in range(i + 1, m):
            rj = rows[items[a + j]]
            total += np.float64(matrix[ri, rj]) + np.float64(matrix[rj, ri])
    return total / (m * (m - 1.0))


@nb.njit(cache=True, nogil=True, parallel=True)
def _intra_list_similarity_matrix_csr(items, offsets, k, rows, matrix, n_chunks):
    """Per-user ILS from a similarity matrix (nan below 2 items)."""
    n_users = offsets.shape[0] - 1
    out = np.empty(n_users, dtype=np.float64)
    for c in nb.prange(n_chunks):
        lo, hi = _chunk(n_users, c, n_chunks)
        for u in range(lo, hi):
            out[u] = _ils_matrix_user(items, offsets, u, k, rows, matrix)
    return out


@nb.njit(cache=True, nogil=True)
def _pair_keys_csr(items, offsets, k, n_items):
    """Every unordered pair of each top-``k`` list as ``lo * n_items + hi`` (item codes),
    and the CSR offsets of each user's pairs."""
    n_users = offsets.shape[0] - 1
    pair_offsets = np.zeros(n_users + 1, dtype=np.int64)
    for u in range(n_users):
        m = _depth(offsets, u, k)
        pair_offsets[u + 1] = pair_offsets[u] + m * (m - 1) // 2
    keys = np.empty(pair_offsets[n_users], dtype=np.int64)
    for u in range(n_users):
        a = offsets[u]
        m = _depth(offsets, u, k)
        p = pair_offsets[u]
        for i in range(m - 1):
            ci = np.int64(items[a + i])
            for j in range(i + 1, m):
                cj = np.int64(items[a + j])
                if ci < cj:
                    keys[p] = ci * n_items + cj
                else:
                    keys[p] = cj * n_items + ci
                p += 1
    return keys, pair_offsets


@nb.njit(cache=True, nogil=True, parallel=True)
def _pair_means_csr(values, pair_offsets, n_chunks):
    """Mean of each user's pair values (nan for a user without pairs)."""
    n_users = pair_offsets.shape[0] - 1
    out = np.empty(n_users, dtype=np.float64)
    for c in nb.prange(n_chunks):
        lo, hi = _chunk(n_users, c, n_chunks)
        for u in range(lo, hi):
            a = pair_offsets[u]
            b = pair_offsets[u + 1]
            total = 0.0
            for p in range(a, b):
                total += values[p]
            out[u] = total / (b - a) if b > a else np.nan
    return out


# ------------------------------------------------------------------ personalization
@nb.njit(cache=True, nogil=True)
def _personalization_csr(items, offsets, k, n_items):
    """Sum of cos(L_u, L_v) over ordered pairs of distinct users, in O(rows).

    With x_ui = 1 if item i is in user u's top-k list and n_u = |L_u|,
    ``sum_{u != v} cos = sum_i [(sum_u x_ui / sqrt(n_u))^2 - sum_u x_ui / n_u]``.
    When every list has the same length m (the usual top-k run), this is
    ``sum_i c_i (c_i - 1) / m`` with c_i the lists holding item i: an exact
    integer sum divided once, so identical lists give exactly 0 and disjoint
    ones exactly 1.
    """
    n_users = offsets.shape[0] - 1
    m0 = _depth(offsets, 0, k) if n_users else 0
    uniform = True
    for u in range(n_users):
        if _depth(offsets, u, k) != m0:
            uniform = False
            break
    if uniform:
        counts = _item_counts_csr(items, offsets, k, n_items)
        pairs = 0
        for c in range(n_items):
            pairs += counts[c] * (counts[c] - 1)
        return pairs / np.float64(m0) if m0 else 0.0
    root = np.zeros(n_items, dtype=np.float64)
    inv = np.zeros(n_items, dtype=np.float64)
    for u in range(n_users):
        m = _depth(offsets, u, k)
        if m == 0:
            continue
        w = 1.0 / np.sqrt(np.float64(m))
        w2 = 1.0 / np.float64(m)
        a = offsets[u]
        for t in range(m):
            c = items[a + t]
            root[c] += w
            inv[c] += w2
    total = 0.0
    for c in range(n_items):
        total += root[c] * root[c] - inv[c]
    return total


# ------------------------------------------------------------------ novelty
@nb.njit(cache=True, nogil=True)
def _distinct_users_per_item(user_codes, item_codes, n_users, n_items):
    """Distinct users of each item in an interaction log (repeated pairs count once).

    Counting sort of the rows by item, then one stamp table over users: O(rows).
    """
    n = item_codes.shape[0]
    starts = np.zeros(n_items + 1, dtype=np.int64)
    for i in range(n):
        starts[item_codes[i] + 1] += 1
    for c in range(n_items):
        starts[c + 1] += starts[c]
    cursor = starts[:-1].copy()
    users = np.empty(n, dtype=np.int64)
    for i in range(n):
        c = item_codes[i]
        users[cursor[c]] = user_codes[i]
        cursor[c] += 1
    stamp = np.full(n_users, -1, dtype=np.int64)
    out = np.zeros(n_items, dtype=np.int64)
    for c in range(n_items):
        for t in range(starts[c], starts[c + 1]):
            u = users[t]
            if stamp[u] != c:
                stamp[u] = c
                out[c] += 1
    return out


@nb.njit(cache=True, nogil=True, parallel=True)
def _list_means_csr(values, items, offsets, k, n_chunks):
    """Per-user mean of ``values[item]`` over the top-``k`` list, skipping nan
    values (nan when nothing is left)."""
    n_users = offsets.shape[0] - 1
    out = np.empty(n_users, dtype=np.float64)
    for c in nb.prange(n_chunks):
        lo, hi = _chunk(n_users, c, n_chunks)
        for u in range(lo, hi):
            a = offsets[u]
            total = 0.0
            count = 0
            for t in range(_depth(offsets, u, k)):
                x = values[items[a + t]]
                if not np.isnan(x):
                    total += x
                    count += 1
            out[u] = total / count if count else np.nan
    return out

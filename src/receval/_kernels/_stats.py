"""Numba kernels of the paired randomization test and the paired bootstrap.

Both kernels read a table ``x`` of shape (n_users, n_columns), C-contiguous,
holding ``w_i d_ij`` (0 where user i is undefined for column j), so one pass
over the users serves every column: the same sign flips, or the same
resampled users, for all of them.

Random numbers come from SplitMix64 used as a counter-based generator.
Replicate ``b`` (a permutation or a resample) has its own stream, whose
starting state is a hash of ``(seed, use, b)``; the t-th word of a stream is
``mix64(start + (t + 1) * GAMMA)``, computable from ``t`` alone. Replicates
are split into contiguous chunks run in parallel (``prange``), and every
replicate is computed by one thread in a fixed order, so results depend on
the seed only, not on the number of threads or the chunking.

The callers run the kernels under ``np.errstate(over="ignore")``: with
``NUMBA_DISABLE_JIT=1`` the uint64 arithmetic (which wraps modulo 2**64 by
design) runs on NumPy scalars, which would warn on every wrap.
"""

from __future__ import annotations

import numba as nb
import numpy as np

# SplitMix64 constants (Steele, Lea and Flood, OOPSLA 2014; Vigna's splitmix64.c)
_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_MUL1 = np.uint64(0xBF58476D1CE4E5B9)
_MUL2 = np.uint64(0x94D049BB133111EB)
# odd multiplier that spreads the stream index before hashing it into a start state
_STREAM = np.uint64(0xD1B54A32D192ED03)
# domains of the seed: the randomization test and the bootstrap draw unrelated streams
_FLIPS = np.uint64(0x243F6A8885A308D3)
_RESAMPLES = np.uint64(0x13198A2E03707344)
_LOW32 = np.uint64(0xFFFFFFFF)
_ONE = np.uint64(1)
# draws of a resample hashed together (SIMD), then gathered
_DRAW_BLOCK = 256
# below this much work (about replicates x users x columns), one chunk on the calling thread
PARALLEL_MIN_WORK = 2_000_000
# a resample's gathered sums may be reassociated (SIMD gathers); nothing else
_FAST = {"reassoc", "contract"}


def n_chunks(work: int, per_thread: int = 4) -> int:
    """Chunks of replicates for ``work`` (about replicates x users x columns): 1 when
    small, else ``per_thread`` per numba thread. The results do not depend on it."""
    if work < PARALLEL_MIN_WORK:
        return 1
    return per_thread * max(1, int(nb.get_num_threads()))


@nb.njit(cache=True, nogil=True, inline="always")
def _chunk(n, c, n_chunks):
    return n * c // n_chunks, n * (c + 1) // n_chunks


@nb.njit(cache=True, nogil=True, inline="always")
def _mix64(z):
    """SplitMix64's output function: a bijection of uint64 with good avalanche."""
    z = (z ^ (z >> np.uint64(30))) * _MUL1
    z = (z ^ (z >> np.uint64(27))) * _MUL2
    return z ^ (z >> np.uint64(31))


@nb.njit(cache=True, nogil=True)
def _seed_key(seed, domain):
    """uint64 key of a non-negative int64 seed for one use (``_FLIPS`` or
    ``_RESAMPLES``), so the sign flips and the resamples of a seed are unrelated."""
    return _mix64(_mix64(np.uint64(seed) + _GAMMA) + domain)


@nb.njit(cache=True, nogil=True)
def _stream_start(key, b):
    """Starting state of the stream of replicate ``b``."""
    return _mix64(key ^ ((np.uint64(b) + _ONE) * _STREAM))


@nb.njit(cache=True, nogil=True)
def _stream_word(start, t):
    """Word ``t`` (0-based) of the SplitMix64 stream that starts at ``start``."""
    return _mix64(start + (np.uint64(t) + _ONE) * _GAMMA)


# ------------------------------------------------------------------ randomization
@nb.njit(cache=True, nogil=True)
def _flip_tables(x, i0, i1, table):
    """Signed sums of every sign pattern of each byte of users i0..i1-1 (at most 64).

    ``table[g, v, j] = sum_k s_k x[i0 + 8 g + k, j]`` with ``s_k = -1`` where bit k
    of v is set, +1 otherwise (users past i1 count 0). Each entry is the entry
    without v's lowest set bit, minus twice that user's value: 255 m subtractions
    per byte.
    """
    m = x.shape[1]
    for g in range(8):
        a = i0 + 8 * g
        for j in range(m):
            table[g, 0, j] = 0.0
        for k in range(8):
            if a + k < i1:
                for j in range(m):
                    table[g, 0, j] += x[a + k, j]
        for v in range(1, 256):
            k = 0
            while not (v >> k) & 1:
                k += 1
            u = v & (v - 1)
            if a + k < i1:
                for j in range(m):
                    table[g, v, j] = table[g, u, j] - 2.0 * x[a + k, j]
            else:
                for j in range(m):
                    table[g, v, j] = table[g, u, j]


@nb.njit(cache=True, nogil=True)
def _sign_flip_range(x, key, lo, hi, out):
    """Signed sums of permutations lo..hi-1 into out[b, :].

    Permutation b flips user i when bit i % 64 of word i // 64 of stream b is
    set. The users are walked 64 at a time; for each block, the signed sums of
    the 256 sign patterns of each of its 8 bytes of users are tabulated once,
    and every permutation of the range then adds 8 table rows (one per byte of
    its word) instead of 64 signed values: 8 times fewer additions, and the
    table stays in cache.
    """
    n, m = x.shape
    n_words = (n + 63) // 64
    table = np.empty((8, 256, m), dtype=np.float64)
    starts = np.empty(hi - lo, dtype=np.uint64)
    for b in range(lo, hi):
        starts[b - lo] = _stream_start(key, b)
        for j in range(m):
            out[b, j] = 0.0
    for t in range(n_words):
        i0 = 64 * t
        _flip_tables(x, i0, min(n, i0 + 64), table)
        for b in range(lo, hi):
            word = _stream_word(starts[b - lo], t)
            v0 = np.int64(word & np.uint64(255))
            v1 = np.int64((word >> np.uint64(8)) & np.uint64(255))
            v2 = np.int64((word >> np.uint64(16)) & np.uint64(255))
            v3 = np.int64((word >> np.uint64(24)) & np.uint64(255))
            v4 = np.int64((word >> np.uint64(32)) & np.uint64(255))
            v5 = np.int64((word >> np.uint64(40)) & np.uint64(255))
            v6 = np.int64((word >> np.uint64(48)) & np.uint64(255))
            v7 = np.int64(word >> np.uint64(56))
            for j in range(m):
                out[b, j] += (
                    (table[0, v0, j] + table[1, v1, j]) + (table[2, v2, j] + table[3, v3, j])
                ) + ((table[4, v4, j] + table[5, v5, j]) + (table[6, v6, j] + table[7, v7, j]))


@nb.njit(cache=True, nogil=True, parallel=True)
def _sign_flip_sums(x, n_permutations, seed, n_chunks):
    """Signed sums ``sum_i s_bi x[i, j]`` of every random sign vector b: shape
    (n_permutations, n_columns). The same sign vectors serve every column."""
    out = np.empty((n_permutations, x.shape[1]), dtype=np.float64)
    key = _seed_key(seed, _FLIPS)
    for c in nb.prange(n_chunks):
        lo, hi = _chunk(n_permutations, c, n_chunks)
        _sign_flip_range(x, key, lo, hi, out)
    return out


# ------------------------------------------------------------------ bootstrap
@nb.njit(cache=True, nogil=True)
def _draw_block(start, k0, count, n, idx):
    """Draws k0..k0+count-1 of a stream, mapped to [0, n), into idx[:count].

    Draw k is ``floor(word_k * n / 2**64)`` (a 64 x 32-bit multiply-high, n <
    2**32): uniform on [0, n) up to a relative bias below n / 2**64. The state
    advances by GAMMA per word, as in ``_stream_word``; masking n to 32 bits
    lets the compiler use 32 x 32-bit SIMD products.
    """
    state = start + np.uint64(k0) * _GAMMA
    n32 = np.uint64(n) & _LOW32
    for q in range(count):
        state += _GAMMA
        word = _mix64(state)
        high = (word >> np.uint64(32)) * n32
        low = (word & _LOW32) * n32
        idx[q] = np.int64((high + (low >> np.uint64(32))) >> np.uint64(32))


@nb.njit(cache=True, nogil=True)
def _resample_range(x, wm, key, lo, hi, out):
    """Weighted means of resamples lo..hi-1 into out[b, :].

    Resample b draws n users (n < 2**32) uniformly with replacement: draw k is
    word k of stream b mapped to [0, n) by ``_draw_block``. ``wm`` holds the
    denominators: shape (n, 0) means every user counts 1 in every column,
    (n, 1) one weight per user shared by the columns, (n, m) one per user and
    column. A resample whose denominator is 0 gives nan.
    """
    n, m = x.shape
    mw = wm.shape[1]
    num = np.empty(m, dtype=np.float64)
    den = np.empty(max(mw, 1), dtype=np.float64)
    idx = np.empty(_DRAW_BLOCK, dtype=np.int64)
    for b in range(lo, hi):
        num[:] = 0.0
        den[:] = 0.0
        start = _stream_start(key, b)
        for k0 in range(0, n, _DRAW_BLOCK):
            count = min(_DRAW_BLOCK, n - k0)
            _draw_block(start, k0, count, n, idx)
            _gather_add(x, idx, count, num)
            _gather_add(wm, idx, count, den)
        if mw == 0:
            den[0] = n
        for j in range(m):
            d = den[j] if mw > 1 else den[0]
            out[b, j] = num[j] / d if d > 0.0 else np.nan


@nb.njit(cache=True, nogil=True, fastmath=_FAST)
def _gather_sum(x, idx, count, j):
    """sum_q x[idx[q], j] over q < count."""
    total = 0.0
    for q in range(count):
        total += x[idx[q], j]
    return total


@nb.njit(cache=True, nogil=True, fastmath=_FAST)
def _gather_sum4(x, idx, count, j, num):
    """num[j:j + 4] += sum_q x[idx[q], j:j + 4] over q < count (accumulators in registers)."""
    a0 = a1 = a2 = a3 = 0.0
    for q in range(count):
        i = idx[q]
        a0 += x[i, j]
        a1 += x[i, j + 1]
        a2 += x[i, j + 2]
        a3 += x[i, j + 3]
    num[j] += a0
    num[j + 1] += a1
    num[j + 2] += a2
    num[j + 3] += a3


@nb.njit(cache=True, nogil=True)
def _gather_add(x, idx, count, acc):
    """acc[j] += sum_q x[idx[q], j] for every column j of x, four columns at a time."""
    m = x.shape[1]
    j = 0
    while j + 4 <= m:
        _gather_sum4(x, idx, count, j, acc)
        j += 4
    while j < m:
        acc[j] += _gather_sum(x, idx, count, j)
        j += 1


@nb.njit(cache=True, nogil=True, parallel=True)
def _bootstrap_means(x, wm, n_resamples, seed, n_chunks):
    """Weighted mean of every column in every resample of the users: shape
    (n_resamples, n_columns). The same resampled users serve every column."""
    out = np.empty((n_resamples, x.shape[1]), dtype=np.float64)
    key = _seed_key(seed, _RESAMPLES)
    for c in nb.prange(n_chunks):
        lo, hi = _chunk(n_resamples, c, n_chunks)
        _resample_range(x, wm, key, lo, hi, out)
    return out

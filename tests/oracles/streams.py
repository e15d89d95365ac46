"""Slow oracles of the random streams of the randomization test and the bootstrap
(``rust/src/stats.rs``), in Python integers modulo 2**64.

Random numbers come from SplitMix64 used as a counter-based generator: replicate
``b`` (a permutation or a resample) has its own stream, whose starting state is a
hash of ``(seed, use, b)``; word ``t`` of a stream is ``mix64(start + (t + 1) *
GAMMA)``. Permutation ``b`` flips user ``i`` when bit ``i % 64`` of word ``i // 64``
is set; draw ``k`` of resample ``b`` is ``floor(word_k * n / 2**64)`` with the
word's two 32-bit halves multiplied by ``n`` separately (``n < 2**32``).
"""

from __future__ import annotations

import numpy as np

MASK = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15
MUL1 = 0xBF58476D1CE4E5B9
MUL2 = 0x94D049BB133111EB
STREAM = 0xD1B54A32D192ED03  # spreads the replicate index before hashing it
FLIPS = 0x243F6A8885A308D3  # the randomization test's domain of a seed
RESAMPLES = 0x13198A2E03707344  # the bootstrap's


def mix64(z: int) -> int:
    """SplitMix64's output function."""
    z = ((z ^ (z >> 30)) * MUL1) & MASK
    z = ((z ^ (z >> 27)) * MUL2) & MASK
    return z ^ (z >> 31)


def seed_key(seed: int, domain: int) -> int:
    return mix64((mix64((seed + GAMMA) & MASK) + domain) & MASK)


def stream_start(key: int, b: int) -> int:
    return mix64(key ^ (((b + 1) * STREAM) & MASK))


def stream_word(start: int, t: int) -> int:
    return mix64((start + (t + 1) * GAMMA) & MASK)


def draw(word: int, n: int) -> int:
    high = (word >> 32) * n
    low = (word & 0xFFFFFFFF) * n
    return (high + (low >> 32)) >> 32


def sign_flip_sums(x: np.ndarray, n_permutations: int, seed: int) -> np.ndarray:
    """``sum_i s_bi x[i, j]`` for every permutation b (exact on tables of small
    integers and halves, where the order of the additions does not matter)."""
    n, m = x.shape
    key = seed_key(seed, FLIPS)
    out = np.zeros((n_permutations, m))
    for b in range(n_permutations):
        start = stream_start(key, b)
        words = [stream_word(start, t) for t in range((n + 63) // 64)]
        signs = np.array([-1.0 if words[i // 64] >> (i % 64) & 1 else 1.0 for i in range(n)])
        out[b] = (signs[:, None] * x).sum(axis=0) if n else 0.0
    return out


def bootstrap_means(x: np.ndarray, wm: np.ndarray, n_resamples: int, seed: int) -> np.ndarray:
    """Weighted mean of every column of every resample (exact on tables of small
    integers); ``wm`` with 0, 1 or ``m`` columns of denominators; nan where 0."""
    n, m = x.shape
    key = seed_key(seed, RESAMPLES)
    out = np.empty((n_resamples, m))
    for b in range(n_resamples):
        start = stream_start(key, b)
        idx = [draw(stream_word(start, k), n) for k in range(n)]
        num = x[idx].sum(axis=0)
        den = np.full(m, float(n)) if wm.shape[1] == 0 else wm[idx].sum(axis=0)
        den = np.broadcast_to(den, (m,))
        with np.errstate(invalid="ignore", divide="ignore"):
            out[b] = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
    return out

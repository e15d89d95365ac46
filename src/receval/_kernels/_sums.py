"""Numba kernels for exact float sums: a fixed-point accumulator of 2**-1074 units.

Every finite float64 is an integer multiple of 2**-1074 (the smallest
subnormal): ``x = m * 2**(e - 1074)`` with ``m < 2**53`` and ``0 <= e <= 2045``.
An accumulator holds such a sum exactly in ``N_LIMBS`` signed int64 digits of
base 2**32 (digit ``k`` weighs ``2**(32 k - 1074)``), plus counts of NaN, +inf
and -inf. Adding ``x`` adds ``m << (e mod 32)`` (85 bits) to three digits, each
part below 2**32, so a digit cannot overflow in fewer than 2**31 additions;
:func:`_normalize` carries every digit into ``[0, 2**32)`` (the last keeps the
sign) and runs every ``carry_every`` additions (``_CARRY_EVERY``; tests pass
a small one).

Accumulators of parts add up digit by digit to the accumulator of the whole,
whatever the split and the order: the sum is exact, rounded once at the end
(``receval._sums.ExactSum.value``).
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

N_LIMBS = 70  # 70 * 32 = 2240 bits: 2**-1074 .. 2**1166
NAN, POS_INF, NEG_INF = N_LIMBS, N_LIMBS + 1, N_LIMBS + 2
SIZE = N_LIMBS + 3
_CARRY_EVERY = 1 << 30
_MASK = np.int64(0xFFFFFFFF)
_TWO53 = 9007199254740992.0


@nb.njit(cache=True, nogil=True, inline="always")
def _add(acc, x):
    """Add the float ``x`` to the accumulator ``acc`` (int64, length SIZE)."""
    if x != x:
        acc[NAN] += 1
        return
    if x == 0.0:
        return
    if math.isinf(x):
        if x > 0:
            acc[POS_INF] += 1
        else:
            acc[NEG_INF] += 1
        return
    frac, exp = math.frexp(abs(x))  # abs(x) = frac * 2**exp, frac in [0.5, 1)
    m = np.int64(frac * _TWO53)  # exact: 53 significant bits
    e = exp - 53 + 1074  # abs(x) = m * 2**(e - 1074)
    if e < 0:  # subnormal: m has at least -e trailing zero bits
        m >>= -e
        e = 0
    k = e >> 5
    s = e & 31
    v = np.uint64(m) << np.uint64(s)  # the low 64 of the 85 bits
    lo = np.int64(v & np.uint64(0xFFFFFFFF))
    mid = np.int64(v >> np.uint64(32))
    hi = np.int64(0)
    if s > 0:
        hi = m >> (64 - s)
    if x < 0:
        acc[k] -= lo
        acc[k + 1] -= mid
        acc[k + 2] -= hi
    else:
        acc[k] += lo
        acc[k + 1] += mid
        acc[k + 2] += hi


@nb.njit(cache=True, nogil=True)
def _normalize(acc):
    """Carry every digit but the last into [0, 2**32); the value is unchanged."""
    for j in range(N_LIMBS - 1):
        c = acc[j] >> 32  # floor division by 2**32
        acc[j] -= c << 32
        acc[j + 1] += c


@nb.njit(cache=True, nogil=True, parallel=True)
def _exact_sum(x, n_chunks, carry_every=_CARRY_EVERY):
    """Accumulator of ``sum(x)``."""
    n = x.shape[0]
    parts = np.zeros((n_chunks, SIZE), dtype=np.int64)
    for c in nb.prange(n_chunks):
        acc = parts[c]
        lo = c * n // n_chunks
        hi = (c + 1) * n // n_chunks
        for start in range(lo, hi, carry_every):  # carry between blocks
            for i in range(start, min(start + carry_every, hi)):
                _add(acc, x[i])
            _normalize(acc)
    return _merge_rows(parts)


@nb.njit(cache=True, nogil=True, parallel=True)
def _exact_dot(x, w, n_chunks, carry_every=_CARRY_EVERY):
    """Accumulator of ``sum(x * w)``, each product rounded to float64 first."""
    n = x.shape[0]
    parts = np.zeros((n_chunks, SIZE), dtype=np.int64)
    for c in nb.prange(n_chunks):
        acc = parts[c]
        lo = c * n // n_chunks
        hi = (c + 1) * n // n_chunks
        for start in range(lo, hi, carry_every):  # carry between blocks
            for i in range(start, min(start + carry_every, hi)):
                _add(acc, x[i] * w[i])
            _normalize(acc)
    return _merge_rows(parts)


@nb.njit(cache=True, nogil=True)
def _merge_rows(parts):
    out = np.zeros(SIZE, dtype=np.int64)
    for c in range(parts.shape[0]):
        for j in range(SIZE):
            out[j] += parts[c, j]
        _normalize(out)
    return out


@nb.njit(cache=True, nogil=True, parallel=True)
def _binary_log_loss_exact(labels, proba, weights, eps, n_chunks, carry_every=_CARRY_EVERY):
    """Accumulator of the sum of -w * log(clip(p)) (positives) and -w * log(clip(1 - p))
    (negatives); ``weights`` of length 0 means unit weights."""
    n = labels.shape[0]
    has_w = weights.shape[0] > 0
    top = 1.0 - eps
    parts = np.zeros((n_chunks, SIZE), dtype=np.int64)
    for c in nb.prange(n_chunks):
        acc = parts[c]
        lo = c * n // n_chunks
        hi = (c + 1) * n // n_chunks
        for start in range(lo, hi, carry_every):  # carry between blocks
            for i in range(start, min(start + carry_every, hi)):
                q = proba[i] if labels[i] == 1 else 1.0 - proba[i]
                if q < eps:
                    q = eps
                elif q > top:
                    q = top
                loss = -np.log(q)
                _add(acc, loss * weights[i] if has_w else loss)
            _normalize(acc)
    return _merge_rows(parts)

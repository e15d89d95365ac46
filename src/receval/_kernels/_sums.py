"""Numba kernels for exact float sums: a fixed-point accumulator of 2**-1074 units.

Every finite float64 is an integer multiple of 2**-1074 (the smallest
subnormal): ``x = m * 2**(e - 1074)`` with ``m < 2**53`` and ``0 <= e <= 2045``.
An accumulator holds such a sum exactly in ``N_LIMBS`` signed int64 digits of
base 2**32 (digit ``k`` weighs ``2**(32 k - 1074)``), plus counts of NaN, +inf
and -inf. Adding ``x`` reads ``m`` and ``e`` from its bits and adds
``m << (e mod 32)`` (85 bits) to digits ``e // 32`` to ``e // 32 + 2``, each
part below 2**32, so a digit cannot overflow in fewer than 2**31 additions;
:func:`_normalize` carries every digit into ``[0, 2**32)`` (the last keeps the
sign) and runs every ``carry_every`` additions (``_CARRY_EVERY``; tests pass
a small one).

Accumulators of parts add up digit by digit to the accumulator of the whole,
whatever the split and the order: the sum is exact, rounded once at the end
(``receval._sums.ExactSum.value``).
"""

from __future__ import annotations

import numba as nb
import numpy as np
from numba.extending import intrinsic

N_LIMBS = 70  # 70 * 32 = 2240 bits: 2**-1074 .. 2**1166
NAN, POS_INF, NEG_INF = N_LIMBS, N_LIMBS + 1, N_LIMBS + 2
SIZE = N_LIMBS + 3
_CARRY_EVERY = 1 << 30


def _bits_py(x):
    """The IEEE 754 bits of the float64 ``x`` (Python, for ``NUMBA_DISABLE_JIT=1``)."""
    return np.float64(x).view(np.uint64)


@intrinsic
def _bits_jit(typingctx, x):
    """The IEEE 754 bits of the float64 ``x``: a bit cast, no conversion."""
    if x != nb.types.float64:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(nb.types.uint64))

    return nb.types.uint64(nb.types.float64), codegen


_bits = _bits_py if nb.config.DISABLE_JIT else _bits_jit
_FRACTION = np.uint64((1 << 52) - 1)
_HIDDEN = np.uint64(1 << 52)
_LOW32 = np.uint64(0xFFFFFFFF)
_U31, _U32, _U33, _U52, _U63 = (np.uint64(i) for i in (31, 32, 33, 52, 63))


@nb.njit(cache=True, nogil=True, inline="always")
def _add(acc, x):
    """Add the float ``x`` to the accumulator ``acc`` (int64, length SIZE).

    Reads the bits: biased exponent ``E``, fraction ``f``; ``m = f | 2**52``
    and ``e = E - 1`` for normal numbers, ``m = f`` and ``e = 0`` for
    subnormals and zeros, so that ``|x| = m * 2**(e - 1074)``.
    """
    b = _bits(x)
    biased = np.int64((b >> _U52) & np.uint64(0x7FF))
    if biased == 0x7FF:  # NaN or infinity
        if b & _FRACTION:
            acc[NAN] += 1
        elif b >> _U63:
            acc[NEG_INF] += 1
        else:
            acc[POS_INF] += 1
        return
    m = b & _FRACTION
    e = np.int64(0)
    if biased > 0:
        m |= _HIDDEN
        e = biased - 1
    k = e >> 5
    s = np.uint64(e & 31)
    v = m << s  # the low 64 of the 85 bits of m << s
    lo = np.int64(v & _LOW32)
    mid = np.int64(v >> _U32)
    hi = np.int64((m >> _U31) >> (_U33 - s))  # m >> (64 - s), 0 for s = 0 (no shift by 64)
    sign = 1 - 2 * np.int64(b >> _U63)
    acc[k] += sign * lo
    acc[k + 1] += sign * mid
    acc[k + 2] += sign * hi


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
    """Accumulator of the sum of -w * log(clip(p)) (positives) and -w * log(1 - clip(p))
    (negatives), clip(p) = min(max(p, eps), 1 - eps); ``weights`` of length 0 means unit
    weights."""
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
                p = proba[i]  # clipped to [eps, 1 - eps], then 1 - p for a negative
                if p < eps:
                    p = eps
                elif p > top:
                    p = top
                loss = -np.log(p if labels[i] == 1 else 1.0 - p)
                _add(acc, loss * weights[i] if has_w else loss)
            _normalize(acc)
    return _merge_rows(parts)

"""Exact, mergeable float sums: the sums behind every mean that is merged.

:class:`ExactSum` holds a sum of floats without rounding (the fixed-point
accumulator of :mod:`receval._kernels._sums`). Sums of parts add up to the
sum of the whole exactly, so a metric computed batch by batch, partition by
partition or in one pass gives the same float: ``value`` rounds once, to the
nearest float64 (``math.fsum``'s result).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["ExactSum", "exact_dot", "exact_mean", "exact_sum"]


def chunks_for(n: int) -> int:
    """Chunks of an exact sum of ``n`` values: one below 64Ki values (no thread is
    woken), at most two per thread. The sum does not depend on them."""
    from ._kernels import num_threads

    return max(1, min(num_threads() * 2, n // 65536 + 1))


@dataclass(frozen=True, eq=False)
class ExactSum:
    """An exact sum of float64 values.

    Attributes
    ----------
    digits : ndarray of int64
        The accumulator (see :mod:`receval._kernels._sums`).

    Examples
    --------
    >>> from receval._sums import ExactSum
    >>> s = ExactSum.of([1e16, 1.0, -1e16])
    >>> s.value, sum([1e16, 1.0, -1e16])
    (1.0, 0.0)
    >>> (ExactSum.of([0.1, 0.2]) + ExactSum.of([0.3])).value == ExactSum.of([0.1, 0.2, 0.3]).value
    True
    """

    digits: np.ndarray

    @classmethod
    def of(cls, values: ArrayLike) -> ExactSum:
        """The exact sum of ``values`` (float64)."""
        from ._kernels import api

        x = np.ascontiguousarray(values, dtype=np.float64).ravel()
        return cls(api.exact_sum(x, chunks_for(len(x))))

    @classmethod
    def dot(cls, x: ArrayLike, w: ArrayLike) -> ExactSum:
        """The exact sum of the float64 products ``x[i] * w[i]``."""
        from ._kernels import api

        a = np.ascontiguousarray(x, dtype=np.float64).ravel()
        b = np.ascontiguousarray(w, dtype=np.float64).ravel()
        return cls(api.exact_dot(a, b, chunks_for(len(a))))

    @classmethod
    def zero(cls) -> ExactSum:
        from ._kernels import api

        return cls(np.zeros(api.SIZE, dtype=np.int64))

    def __add__(self, other: ExactSum) -> ExactSum:
        from ._kernels import api

        digits = self.digits + other.digits
        api.normalize(digits)
        return ExactSum(digits)

    def merge(self, other: ExactSum) -> ExactSum:
        """The sum of both sets of values."""
        return self + other

    @property
    def value(self) -> float:
        """The sum rounded once to the nearest float64 (inf beyond the float range)."""
        from ._kernels.api import N_LIMBS, NAN, NEG_INF, POS_INF

        d = self.digits
        if d[NAN] or (d[POS_INF] and d[NEG_INF]):
            return float("nan")
        if d[POS_INF]:
            return float("inf")
        if d[NEG_INF]:
            return float("-inf")
        # digits 0 .. N_LIMBS - 2 are normalized into [0, 2**32); the last keeps the sign
        low = d[: N_LIMBS - 1].astype("<u4").tobytes()
        total = int.from_bytes(low, "little") + (int(d[N_LIMBS - 1]) << (32 * (N_LIMBS - 1)))
        try:
            return total / (1 << 1074)  # int / int: correctly rounded
        except OverflowError:
            return float("inf") if total > 0 else float("-inf")

    def __float__(self) -> float:
        return self.value

    def __repr__(self) -> str:
        return f"ExactSum({self.value!r})"


def exact_sum(values: ArrayLike) -> float:
    """``sum(values)`` rounded once (``math.fsum``), from the exact accumulator."""
    return ExactSum.of(values).value


def exact_dot(x: ArrayLike, w: ArrayLike) -> float:
    """``sum(x * w)`` with each product rounded and the sum rounded once."""
    return ExactSum.dot(x, w).value


def exact_mean(values: ArrayLike) -> float:
    """The sum of ``values`` rounded once, over their count (nan when empty)."""
    x = np.asarray(values, dtype=np.float64)
    if x.size == 0:
        return float("nan")
    return ExactSum.of(x).value / x.size

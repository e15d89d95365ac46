"""Exact, mergeable float sums: the sums behind every mean that is merged.

:class:`ExactSum` holds a sum of floats without rounding (the fixed-point
accumulator of ``rust/src/sums/mod.rs``). Sums of parts add up to the
sum of the whole exactly, so a metric computed batch by batch, partition by
partition or in one pass gives the same float: ``value`` rounds once, to the
nearest float64 (``math.fsum``'s result).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from fractions import Fraction
from typing import TypeVar

import numpy as np
from numpy.typing import ArrayLike

from .._kernels import compiled, num_threads
from .kinds import Kind
from .rounding import merged

__all__ = [
    "ExactSum",
    "LossTerm",
    "Term",
    "exact_products",
    "exact_sums",
    "fieldwise_sum",
    "group_means",
    "ratio",
    "scaled_value",
    "weight_shift",
    "weight_shifts",
]

_State = TypeVar("_State")


def chunks_for(n: int) -> int:
    """Chunks of an exact sum of ``n`` values: one below 64Ki values (no thread is
    woken), at most two per thread. The sum does not depend on them."""
    return max(1, min(num_threads() * 2, n // 65536 + 1))


def weight_shift(w: np.ndarray) -> int:
    """The power of two ``k`` that metrics of ratios of weights divide ``w`` by: 0 unless
    the largest weight is outside ``[2**-64, 2**64]`` (weights of a usual scale are
    left as given), else the :func:`weight_shifts` of ``w`` as one group.

    Examples
    --------
    >>> import numpy as np
    >>> weight_shift(np.array([1.0, 3.0])), weight_shift(np.array([2.0**100, 1.0]))
    (0, 101)
    """
    top = float(w.max()) if w.size else 0.0
    if not 0 < top < math.inf or 2.0**-64 <= top <= 2.0**64:  # (weights the checks refuse)
        return 0
    return int(weight_shifts(w, np.zeros(1, dtype=np.intp))[0])


def weight_shifts(
    weights: np.ndarray, starts: np.ndarray, counts: np.ndarray | None = None
) -> np.ndarray:
    """Per group of non-negative weights (the rows from each of ``starts``, increasing,
    to the next, the last to the end), each row taken ``counts`` times (default once):
    the power of two ``k`` that brings the group's largest weight into ``[0.5, 1)``, or
    less of a shift where its least positive weight would leave the normal range (0
    for a group of zeros). Scaled by ``2**-k``, no weight loses a bit, so a ratio of
    the group's weights is the one of the given weights, and no sum of them overflows
    or underflows.

    No overflow comes first: where keeping the least weight normal would leave the
    group's sum at ``2**1024 (1 - 2**-10)`` or above (weights near 1e308 beside
    subnormal ones; the margin covers the rounding of any sum of up to ``2**40``
    rows), the largest is brought into ``[0.5, 1)`` all the same, so that every sum of
    the group's scaled weights stays below its number of rows. The weights that then
    fall below ``2**-1022`` lose their lowest bits or become 0: each is below
    ``2**-1021`` times the largest and loses less than ``2**-1073`` times it, far below
    the last bit of any sum that holds the largest, negligible beside the others.

    Examples
    --------
    >>> import numpy as np
    >>> w = np.array([3.0, 2.0**100, 5e-324, 2.0**-100, 1.0, 0.5, 1.5e308, 1.5e308, 5e-324])
    >>> weight_shifts(w, np.array([0, 1, 3, 4, 6])).tolist()
    [2, 0, -99, 1, 1024]
    """
    top = np.maximum.reduceat(weights, starts)
    least = np.minimum.reduceat(np.where(weights > 0, weights, np.inf), starts)
    exponent = np.frexp(top)[1]
    rows = np.diff(np.r_[starts, len(weights)])
    # the sum of the group's weights times 2**-exponent: at most its rows
    scaled = np.ldexp(weights, -np.repeat(exponent, rows))
    share = np.add.reduceat(scaled if counts is None else counts * scaled, starts)
    shifts: np.ndarray = np.minimum(exponent, np.maximum(np.frexp(least)[1] + 1021, 0))
    # at that shift the sum is share * 2**(exponent - shifts), exponent - shifts in [0, 1024]
    limit = np.ldexp(1 - 2.0**-10, np.minimum(1024 - (exponent - shifts), 64))
    return np.where(share < limit, shifts, exponent)


def scaled_by_shift(w: np.ndarray) -> tuple[np.ndarray, int]:
    """``w`` times ``2**-k`` (exact) and ``k``, its :func:`weight_shift`.

    Examples
    --------
    >>> import numpy as np
    >>> scaled, k = scaled_by_shift(np.array([2.0**100, 2.0**96]))
    >>> scaled.tolist(), k
    ([0.5, 0.03125], 101)
    """
    k = weight_shift(w)
    return (np.ldexp(w, -k) if k else w), k


#: Rows weighted above ``2**WEIGHT_SHIFT`` add ``w 2**-WEIGHT_SHIFT`` times their loss or
#: error, at a scale ``2**WEIGHT_SHIFT`` up: a weight near 1e308 times a loss would overflow.
WEIGHT_SHIFT = 512


@dataclass(frozen=True, eq=False)
class ExactSum:
    """An exact sum of float64 values.

    Attributes
    ----------
    digits : ndarray of int64
        The accumulator (see ``rust/src/sums/mod.rs``).

    Examples
    --------
    >>> from receval.engine.sums import ExactSum
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
        x = np.ascontiguousarray(values, dtype=np.float64).ravel()
        return cls(compiled().exact_sum(x, chunks_for(len(x))))

    @classmethod
    def dot(cls, x: ArrayLike, w: ArrayLike) -> ExactSum:
        """The exact sum of the float64 products ``x[i] * w[i]``."""
        a = np.ascontiguousarray(x, dtype=np.float64).ravel()
        b = np.ascontiguousarray(w, dtype=np.float64).ravel()
        return cls(compiled().exact_dot(a, b, chunks_for(len(a))))

    @classmethod
    def zero(cls) -> ExactSum:
        return cls(np.zeros(compiled().SIZE, dtype=np.int64))

    def __add__(self, other: ExactSum) -> ExactSum:
        return ExactSum(compiled().add_exact([self.digits], [other.digits])[0])

    def merge(self, other: ExactSum) -> ExactSum:
        """The sum of both sets of values."""
        return self + other

    def is_zero(self) -> bool:
        """Whether the sum is exactly 0 (no value, or values that cancel)."""
        return not self.digits.any()

    def scaled_down(self, k: int) -> ExactSum:
        """The sum times ``2**-k`` (``k >= 0``), exact but for the bits that fall below
        ``2**-1074`` (dropped: toward zero); a sum that is not finite stays as it is."""
        total = self._total()
        if k == 0 or isinstance(total, float):
            return self
        magnitude = abs(total) >> k
        # 52-bit parts, each a float64 times a power of two: their exact sum
        parts = [math.ldexp(magnitude >> s & (1 << 52) - 1, s - 1074)
                 for s in range(0, magnitude.bit_length(), 52)]  # fmt: skip
        return ExactSum.of([-x for x in parts] if total < 0 else parts)

    def _total(self) -> int | float:
        """The sum as an integer count of ``2**-1074`` (the float nan or +-inf when the
        sum is not finite)."""
        core = compiled()
        d = self.digits
        if d[core.NAN] or (d[core.POS_INF] and d[core.NEG_INF]):
            return float("nan")
        if d[core.POS_INF] or d[core.NEG_INF]:
            return float("inf") if d[core.POS_INF] else float("-inf")
        # digit k weighs 2**(32 k): the core carries digits 0 .. N_LIMBS - 2 into
        # [0, 2**32) and the last keeps the sign; a state loaded from elsewhere need not
        # be carried, and its digits are read each with its own sign
        top: int = core.N_LIMBS - 1
        low = d[:top]
        if not (low >> 32).any():  # each in [0, 2**32)
            carried: int = int.from_bytes(low.astype("<u4").tobytes(), "little")
            return carried + (int(d[top]) << 32 * top)
        digits: list[int] = d[: core.N_LIMBS].tolist()
        return sum(x << 32 * k for k, x in enumerate(digits))

    @property
    def value(self) -> float:
        """The sum rounded once to the nearest float64, ties to even (inf beyond the
        float range)."""
        return float(compiled().rounded_sum(self.digits))

    def as_fraction(self) -> Fraction | float:
        """The sum as an exact :class:`~fractions.Fraction` (the float inf or nan when
        the sum is not finite), for formulas that combine several sums before
        rounding once: ``float(fraction)`` is correctly rounded."""
        total = self._total()
        return total if isinstance(total, float) else Fraction(total, 1 << 1074)

    def __float__(self) -> float:
        return self.value

    def __repr__(self) -> str:
        return f"ExactSum({self.value!r})"


def first_negative(sums: dict[str, ExactSum]) -> str | None:
    """The name of the first of ``sums`` that is not a finite sum >= 0, else None: the
    check of a loaded state's sums of terms that cannot be negative (weights, squares,
    absolute values, losses)."""
    for name, total in sums.items():
        exact = total.as_fraction()
        if not (isinstance(exact, Fraction) and exact >= 0):  # not inf or nan
            return name
    return None


#: A term of :func:`exact_sums`: ``(x, w, form)``, the sum of ``form(x) * w``
Term = tuple[np.ndarray, "np.ndarray | None", str]

#: The log loss of :func:`exact_sums`: 0/1 labels, probabilities, weights (empty: none), eps
LossTerm = tuple[np.ndarray, np.ndarray, np.ndarray, float]


def exact_sums(terms: list[Term], log_loss: LossTerm | None = None) -> list[ExactSum]:
    """Several exact sums of one batch in one call of the core: for each term ``(x, w,
    form)`` the sum of ``form(x) * w`` (``form`` one of ``"value"``, ``"square"``,
    ``"abs"``; ``w`` None: no weight), each value and product rounded first as
    :meth:`ExactSum.dot` rounds them; then, when ``log_loss`` is given, the exact
    binary log loss sum of its labels, probabilities (clipped to ``[eps, 1 -
    eps]``) and weights.

    Examples
    --------
    >>> import numpy as np
    >>> from receval.engine.sums import exact_sums
    >>> x, w = np.array([3.0, -4.0]), np.array([0.5, 2.0])
    >>> [s.value for s in exact_sums([(x, w, "value"), (x, None, "square"), (x, None, "abs")])]
    [-6.5, 25.0, 7.0]
    """
    f64 = np.float64
    args = [
        (np.ascontiguousarray(x, dtype=f64).ravel(),
         None if w is None else np.ascontiguousarray(w, dtype=f64).ravel(), form)
        for x, w, form in terms
    ]  # fmt: skip
    loss = None
    if log_loss is not None:
        labels, proba, weights, eps = log_loss
        loss = (np.ascontiguousarray(labels, dtype=np.int8), np.ascontiguousarray(proba, dtype=f64),
                np.ascontiguousarray(weights, dtype=f64), float(eps))  # fmt: skip
    return [ExactSum(row) for row in compiled().exact_sums(args, loss)]


def exact_group_sums(x: np.ndarray, offsets: np.ndarray) -> list[ExactSum]:
    """The exact sum of each group of ``x``: group ``i`` the values ``x[offsets[i]:
    offsets[i + 1]]`` (``offsets``: nondecreasing positions in ``x``), every group in
    one call of the core.

    Examples
    --------
    >>> import numpy as np
    >>> from receval.engine.sums import exact_group_sums
    >>> x = np.array([0.1, 0.2, 1e300, -1e300, 3.0])
    >>> [s.value for s in exact_group_sums(x, np.array([0, 2, 4, 4, 5]))]
    [0.30000000000000004, 0.0, 0.0, 3.0]
    """
    rows = compiled().exact_group_sums(
        np.ascontiguousarray(x, dtype=np.float64).ravel(),
        np.ascontiguousarray(offsets, dtype=np.int64).ravel(),
    )
    return [ExactSum(row) for row in rows]


def group_means(codes: np.ndarray, x: np.ndarray, divisors: np.ndarray) -> np.ndarray:
    """The sum of each group's values divided by the group's divisor: group ``g`` the
    values ``x[codes == g]``, for ``g`` below ``len(divisors)``; nan where the divisor is 0.

    Float sums (:func:`numpy.bincount`), except for the groups whose float sum
    overflows: those are summed exactly and divided once, correctly rounded, so
    that a mean is infinite only where it is beyond float64's range (two values
    near 1e308 have a finite mean).

    Examples
    --------
    >>> import numpy as np
    >>> from receval.engine.sums import group_means
    >>> codes, x = np.array([0, 0, 1, 1]), np.array([1e308, 1e308, 1.0, 2.0])
    >>> group_means(codes, x, np.array([2.0, 2.0, 0.0])).tolist()
    [1e+308, 1.5, nan]
    """
    n = len(divisors)
    sums = np.bincount(codes, weights=x, minlength=n)
    result = np.full(n, np.nan)
    np.divide(sums, divisors, out=result, where=divisors > 0)
    over = np.flatnonzero(np.isinf(sums) & (divisors > 0))
    if len(over):
        rows = np.isin(codes, over)
        ordered = x[rows][np.argsort(codes[rows], kind="stable")]
        lengths = np.bincount(codes[rows], minlength=n)[over]
        offsets = np.concatenate([[0], np.cumsum(lengths)])
        exact = exact_group_sums(ordered, offsets)
        pairs = zip(exact, divisors[over].tolist(), strict=True)
        result[over] = [_divided(t.as_fraction(), d) for t, d in pairs]
    return result


def _divided(total: Fraction | float, divisor: float) -> float:
    """An exact sum over a divisor > 0, rounded once (+-inf beyond float64's range)."""
    if isinstance(total, float):  # the sum of an infinity, or nan
        return total / divisor
    try:
        return float(total / Fraction(divisor))
    except OverflowError:
        return math.inf if total > 0 else -math.inf


def fieldwise_sum(a: _State, b: _State) -> _State:
    """The state (a dataclass of exact sums and counts) of both ``a``'s and ``b``'s rows:
    each field the sum of theirs, the exact sums added in one call of the core; a kind
    (:mod:`receval.engine.kinds`) is ``a``'s, which the state's merge joins first; a
    field of :data:`~receval.engine.rounding.ROUNDING` the merge of theirs."""
    # the fields, in their order (one a state loaded from an older pickle lacks: its default)
    named = fields(a)  # type: ignore[arg-type]
    x, y = ({f.name: getattr(s, f.name) for f in named} for s in (a, b))
    exact = [k for k, v in x.items() if type(v) is ExactSum]
    rows = iter(compiled().add_exact([x[k].digits for k in exact], [y[k].digits for k in exact]))
    rounding = {f.name for f in named if f.metadata.get("rounding")}
    return type(a)(*(ExactSum(next(rows)) if type(v) is ExactSum else v if isinstance(v, Kind)
                     else merged((v, y[k])) if k in rounding
                     else v + y[k] for k, v in x.items()))  # fmt: skip


def exact_products(
    x: np.ndarray, y: np.ndarray, w: np.ndarray | None = None
) -> tuple[ExactSum, float]:
    """The exact sum of the products ``x[i] * y[i]`` (times ``w[i]`` when given), and a
    bound on what it lost.

    Each product of two or three float64 values is split into float64 parts
    that add up to it exactly (Dekker's product), so the sum is exact: second
    moments (``sum(w y^2)``, ``sum(w y y_hat)``) merge across batches without
    rounding. Products below ``2**-969`` (whose parts fall below ``2**-1074``) or of
    a factor beyond ``2**995`` are rounded (still the same float whatever the
    batches); the bound is 0.0 where none was, else at least what they lost.

    Examples
    --------
    >>> import numpy as np
    >>> from receval.engine.sums import exact_products
    >>> x = np.array([1 + 2.0**-30, 1.0])
    >>> y = np.array([1 + 2.0**-30, -1.0])
    >>> total, lost = exact_products(x, y)
    >>> total.value == 2.0**-29 + 2.0**-60, lost  # (1 + 2**-30)**2 - 1, exactly
    (True, 0.0)
    """
    f64 = np.float64
    a, b = np.ascontiguousarray(x, dtype=f64).ravel(), np.ascontiguousarray(y, dtype=f64).ravel()
    c = None if w is None else np.ascontiguousarray(w, dtype=f64).ravel()
    digits, lost = compiled().exact_products(a, b, c, chunks_for(len(a)))
    return ExactSum(digits), lost


def scaled_value(total: ExactSum, big: ExactSum | None = None) -> tuple[float, int]:
    """``(m, k)`` with ``m * 2**k`` the exact sum rounded once and ``k`` even: ``(value,
    0)`` where the value is a normal float, else the sum scaled by a power of two into
    ``[0.25, 1)`` first (sums of weights near 1e308 or 1e-300, whose value over- or
    underflows). A ratio of two sums divides the ``m`` and subtracts the ``k``: the
    ratio of weights is that of the weights times any power of two. ``big``: terms
    held times ``2**-WEIGHT_SHIFT``, added at their scale."""
    value = total.value
    has_big = big is not None and big.value != 0
    if not has_big and (value == 0 or (math.isfinite(value) and abs(value) >= 2.0**-1000)):
        return value, 0
    exact = total.as_fraction()
    if has_big:
        assert big is not None
        top = big.as_fraction()
        if isinstance(exact, float) or isinstance(top, float):
            return float(exact) + math.ldexp(float(top), WEIGHT_SHIFT), 0
        exact += top * 2**WEIGHT_SHIFT
    if isinstance(exact, float):  # nan or infinity among the terms
        return exact, 0
    k = exact.numerator.bit_length() - exact.denominator.bit_length()
    k += k % 2
    m = float(exact / Fraction(2) ** k) if k >= 0 else float(exact * Fraction(2) ** -k)
    return m, k


def ratio(numerator: ExactSum, denominator: ExactSum, big: ExactSum | None = None) -> float:
    """``numerator / denominator`` of exact sums (the denominator's value not zero): their
    values divided, or their scaled values where one over- or underflows float64
    (``big``: the numerator's terms held at ``2**WEIGHT_SHIFT``)."""
    a, i = scaled_value(numerator, big)
    b, j = scaled_value(denominator)
    with np.errstate(over="ignore"):  # a ratio beyond float64's range is an infinity
        return float(np.ldexp(a / b, i - j))

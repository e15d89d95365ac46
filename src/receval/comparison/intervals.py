"""Paired bootstrap confidence intervals and standardized effect sizes.

Both take paired differences, as described in :mod:`receval.comparison.paired`: one
column per metric and pair of models, NaN for a user without a value in a
column. A 1-D input gives a float (a pair of floats), a 2-D input one value
per column.

The bootstrap reads the whole table in one pass: every column sees the same
resampled users, drawn from a counter-based generator (see
``rust/src/stats.rs``), so the
results depend on ``seed`` only, not on the number of threads.

BCa's normal distribution function and its inverse come from the standard
library (:class:`statistics.NormalDist`, :func:`math.erfc`), so the intervals
need no SciPy.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
from numpy.typing import ArrayLike

from .. import _validation as v
from .._parameters import check_seed
from ..exceptions import InputValidationError
from .choices import INTERVALS as INTERVALS
from .choices import check_count
from .paired import (
    Table,
    as_result,
    check_differences,
    check_steps,
    check_weights,
    replicate_chunks,
    warn_undefined,
)

__all__ = [
    "bootstrap_intervals",
    "effect_sizes",
]

# a bootstrap replicate within this fraction of the mean |d| of the estimate counts
# as equal to it (BCa's z0): with discrete differences (ties), many replicates equal
# the estimate exactly, and their float sums differ from it by rounding only
TIE_TOLERANCE = 1e-10


def _replicates(table: Table, n_resamples: int, seed: int) -> np.ndarray:
    """Weighted mean difference of every column in every resample: (n_resamples, m); nan
    where a resample holds no used user of the column."""
    from .._kernels import compiled

    if table.x.shape[0] >= 2**32:  # the kernel maps 64-bit words to indices with n < 2**32
        raise InputValidationError(
            f"bootstrap_intervals: differences must have fewer than 2**32 users. Got "
            f"{table.x.shape[0]}."
        )

    work = n_resamples * table.x.shape[0] * (2 + table.x.shape[1])
    n_chunks = replicate_chunks(work)
    result: np.ndarray = compiled().bootstrap_means(table.x, table.den, n_resamples, seed, n_chunks)
    return result


# ---------------------------------------------------------------- intervals
def _jackknife_acceleration(table: Table) -> np.ndarray:
    """BCa acceleration of each column's weighted mean, from the leave-one-user-out
    means in closed form.

    Leaving user i out gives :math:`\\theta_{(i)} = (S - w_i d_i) / (W - w_i)`,
    so :math:`\\theta - \\theta_{(i)} = w_i (d_i - \\theta) / (W - w_i)` (no
    cancellation). With :math:`e_i` these values minus their mean over the
    column's users, :math:`a = \\sum e_i^3 / (6 (\\sum e_i^2)^{3/2})` (the
    factor :math:`n - 1` of the jackknife cancels); 0 when every :math:`e_i` is 0.
    """
    used = table.used
    with np.errstate(invalid="ignore", divide="ignore"):
        theta = table.mean
        delta = np.where(used, table.w * (table.d - theta) / (table.total_weight - table.w), 0.0)
        e = np.where(used, delta - delta.sum(axis=0) / table.n_used, 0.0)
        e2 = (e * e).sum(axis=0)
        a = (e * e * e).sum(axis=0) / (6.0 * e2**1.5)
    return np.where(e2 > 0, a, 0.0)


def ndtr(x: float) -> float:
    """The standard normal distribution function (Cephes' ``ndtr``: ``erf`` near 0,
    ``erfc`` in the tails, so that small tail probabilities keep their digits)."""
    if math.isnan(x):
        return math.nan
    y = x * math.sqrt(0.5)
    if abs(y) < math.sqrt(0.5):
        return 0.5 + 0.5 * math.erf(y)
    tail = 0.5 * math.erfc(abs(y))
    return 1.0 - tail if y > 0 else tail


def ndtri(p: float) -> float:
    """The inverse of :func:`ndtr`: -inf at 0, inf at 1, nan outside [0, 1]."""
    if p == 0.0:
        return -math.inf
    if p == 1.0:
        return math.inf
    if not 0.0 < p < 1.0:
        return math.nan
    return NormalDist().inv_cdf(p)


def _bca_levels(
    replicates: np.ndarray, estimate: float, acceleration: float, alpha: float, tie: float
) -> tuple[float, float]:
    """Quantile levels of the BCa interval (SciPy's ``_bca_interval``); replicates
    within ``tie`` of the estimate count as equal to it."""
    b = replicates.size
    below = np.count_nonzero(replicates < estimate - tie)
    equal = np.count_nonzero(np.abs(replicates - estimate) <= tie)
    z0 = ndtri((2.0 * below + equal) / (2.0 * b))
    z = ndtri(alpha)
    with np.errstate(invalid="ignore", divide="ignore"):
        low = np.float64(z0 + z)
        high = np.float64(z0 - z)
        return (
            ndtr(float(z0 + low / (1.0 - acceleration * low))),
            ndtr(float(z0 + high / (1.0 - acceleration * high))),
        )


def _intervals(
    table: Table, method: str, confidence: float, n_resamples: int, seed: int, func: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The bounds of each column of ``table`` (every column resampled from the same
    users), and which columns have no user and which an infinite BCa bias correction."""
    m = table.d.shape[1]
    low, high = np.full(m, np.nan), np.full(m, np.nan)
    constant = table.constant()
    todo = np.flatnonzero((table.total_weight > 0) & ~constant)
    if constant.any():
        value = np.where(table.used, table.d, np.nan)[:, constant]
        c = value[np.argmax(~np.isnan(value), axis=0), np.arange(value.shape[1])]
        low[constant] = high[constant] = c
    empty = table.total_weight == 0
    degenerate = np.zeros(m, dtype=bool)
    if todo.size:
        check_steps(n_resamples, table.x.shape[0], "n_resamples", func)
        replicates = _replicates(table, n_resamples, seed)
        alpha = (1.0 - confidence) / 2.0
        accel = _jackknife_acceleration(table) if method == "bca" else None
        with np.errstate(invalid="ignore", divide="ignore"):  # empty columns: warned below
            tie = TIE_TOLERANCE * np.abs(table.x).sum(axis=0) / table.total_weight
        for j in todo:  # every resample holds users of the column: no nan mean
            rep = replicates[:, j]
            if accel is None:
                levels = (alpha, 1.0 - alpha)
            else:
                levels = _bca_levels(rep, table.mean[j], accel[j], alpha, tie[j])
                if np.isnan(levels).any():
                    degenerate[j] = True
                    continue
            low[j], high[j] = np.quantile(rep, levels)
    return table.in_units(low), table.in_units(high), empty, degenerate


def bootstrap_intervals(
    differences: ArrayLike,
    weights: ArrayLike | None = None,
    *,
    method: str = "bca",
    confidence: float = 0.95,
    n_resamples: int = 10_000,
    seed: int = 0,
) -> tuple[float, float] | tuple[np.ndarray, np.ndarray]:
    """Compute paired bootstrap confidence intervals of the weighted mean difference.

    Users are resampled with replacement, keeping each user's differences
    together (a paired bootstrap), and the weighted mean difference of every
    column is recomputed on each resample. The same resamples serve every
    column, in one pass over the data.

    Parameters
    ----------
    differences : array-like of shape (n_users,) or (n_users, n_columns)
        Model A's value minus model B's for each user (and column). NaN marks a
        user without a value in that column.
    weights : array-like of shape (n_users,) or (n_users, n_columns), default=None
        Non-negative weight of each user (in each column); None weighs every
        user 1. The statistic is ``sum(w * d) / sum(w)`` over the users with
        a difference.
    method : {"bca", "percentile"}, default="bca"
        ``"bca"``: bias-corrected and accelerated (Efron 1987), as
        :func:`scipy.stats.bootstrap` computes it; ``"percentile"``: the
        quantiles ``(1 - confidence) / 2`` and ``(1 + confidence) / 2`` of the
        bootstrap distribution.
    confidence : float, default=0.95
        Confidence level, in (0, 1).
    n_resamples : int, default=10_000
        Bootstrap resamples.
    seed : int, default=0
        Seed of the resamples, in [0, 2**63 - 1]; the same seed gives the same
        intervals whatever the number of threads.

    Returns
    -------
    low, high : float, or ndarrays of shape (n_columns,)
        Bounds of each column's interval. ``(c, c)`` when every difference of
        the column is ``c`` (e.g. 0 for identical models, or a single user).
        ``(nan, nan)`` with an ``UndefinedMetricWarning`` for a column without
        users of positive weight, and for a BCa interval whose bias correction
        is infinite (every resample on one side of the estimate, as with very
        few distinct differences), where SciPy gives nan and warns too.

    Raises
    ------
    InvalidParameterError
        Unknown ``method``; ``confidence`` outside (0, 1); ``n_resamples``
        below 1 or ``seed`` out of range (or not integers); ``n_resamples``
        times the users over 10**12 steps (refused before any work).
    InputValidationError
        Bad ``differences`` or ``weights``, as in :func:`randomization_pvalues`.

    Warns
    -----
    UndefinedMetricWarning
        Some column's interval is nan (see Returns).

    See Also
    --------
    randomization_pvalues : A test of the same mean difference.
    effect_sizes : The mean difference in standard deviations.

    Notes
    -----
    The quantiles are NumPy's default (linear interpolation, Hyndman and
    Fan's type 7), as in ``scipy.stats.bootstrap``. For BCa, with
    :math:`\\hat\\theta` the estimate, :math:`B` the resamples and
    :math:`\\Phi` the standard normal CDF,

    .. math:: z_0 = \\Phi^{-1}\\Big(\\frac{\\#\\{\\theta^*_b < \\hat\\theta\\} +
              \\#\\{\\theta^*_b \\le \\hat\\theta\\}}{2 B}\\Big), \\qquad
              \\alpha_{1,2} = \\Phi\\Big(z_0 + \\frac{z_0 \\pm z_{\\alpha}}
              {1 - a (z_0 \\pm z_{\\alpha})}\\Big)

    with :math:`z_\\alpha = \\Phi^{-1}((1 - c) / 2)` and the acceleration
    :math:`a` from the jackknife: the leave-one-user-out means are
    :math:`(S - w_i d_i) / (W - w_i)`, O(n) for all users. In :math:`z_0`,
    a replicate within :math:`10^{-10}` times the weighted mean of
    :math:`|d|` of the estimate counts as equal to it: with discrete
    differences many replicates equal the estimate, and only float rounding
    of their sums would otherwise decide on which side they fall.

    A resample of a column is ``n`` users drawn uniformly with replacement
    among the ``n`` users with a difference and a positive weight in it: the
    usual paired bootstrap, as ``scipy.stats.bootstrap(..., paired=True)``.
    Columns of the same users share their resamples; a column's interval is
    that of the column alone, whatever the other columns (the users they
    define, how many there are).

    References
    ----------
    .. [1] B. Efron, "Better bootstrap confidence intervals", Journal of the
       American Statistical Association 82(397), 1987.
    .. [2] B. Efron and R. J. Tibshirani, "An Introduction to the Bootstrap",
       Chapman & Hall, 1993, sections 14.3 and 15.4.

    Examples
    --------
    >>> import numpy as np
    >>> from receval import bootstrap_intervals
    >>> d = np.array([0.1, 0.2, 0.0, 0.3, 0.1, 0.2, -0.1, 0.2])
    >>> bootstrap_intervals(d)
    (0.025, 0.2)
    >>> bootstrap_intervals(d, method="percentile", confidence=0.9)
    (0.05, 0.1875)
    >>> bootstrap_intervals(np.zeros(5))  # identical models
    (0.0, 0.0)
    """
    func = "bootstrap_intervals"
    v.check_option(method, "method", func, INTERVALS)
    confidence = float(v.check_number(confidence, "confidence", func, low=0.0, high=1.0,
                                      low_inclusive=False, high_inclusive=False))  # fmt: skip
    n_resamples = check_count(n_resamples, "n_resamples", func)
    seed = check_seed(seed, func)
    d, one_d = check_differences(differences, func)
    w = check_weights(weights, d, one_d, func)
    used = ~np.isnan(d) & (True if w is None else (w if w.ndim == 2 else w[:, None]) > 0)
    m = d.shape[1]
    low, high = np.full(m, np.nan), np.full(m, np.nan)
    empty, degenerate = np.zeros(m, dtype=bool), np.zeros(m, dtype=bool)
    # columns of the same users share their resamples; a column's interval never depends on
    # the users of the others
    same: dict[bytes, list[int]] = {}  # the columns of each set of users
    for j in range(m):
        same.setdefault(np.packbits(used[:, j]).tobytes(), []).append(j)
    for listed in same.values():
        cols = np.array(listed)
        part = w if w is None or w.ndim == 1 else w[:, cols]
        table = Table(d[:, cols], part, drop_unused=True)
        result = _intervals(table, method, confidence, n_resamples, seed, func)
        low[cols], high[cols], empty[cols], degenerate[cols] = result
    warn_undefined(empty, one_d, "interval", "no user has a difference and a positive weight", func)
    warn_undefined(
        degenerate, one_d, "interval",
        "BCa's bias correction is infinite (every resample lies on one side of the "
        "estimate); use method='percentile'", func,
    )  # fmt: skip
    if one_d:
        return float(low[0]), float(high[0])
    return low, high


# ---------------------------------------------------------------- effect sizes
def effect_sizes(differences: ArrayLike, weights: ArrayLike | None = None) -> float | np.ndarray:
    """Compute paired standardized effect sizes (Cohen's d_z), one per column.

    The (weighted) mean difference divided by the (weighted) standard
    deviation of the differences: how many standard deviations of the
    per-user differences the mean difference is. Unlike a p-value, it does
    not grow with the number of users.

    Parameters
    ----------
    differences : array-like of shape (n_users,) or (n_users, n_columns)
        Model A's value minus model B's for each user (and column). NaN marks a
        user without a value in that column.
    weights : array-like of shape (n_users,) or (n_users, n_columns), default=None
        Non-negative weight of each user (in each column); None weighs every
        user 1.

    Returns
    -------
    effect : float or ndarray of shape (n_columns,)
        ``d_z`` of each column. When the differences do not vary: 0.0 if
        their mean is 0, else ``inf`` with the sign of the mean. nan with an
        ``UndefinedMetricWarning`` with fewer than 2 users of positive weight
        (no standard deviation).

    Raises
    ------
    InputValidationError
        Bad ``differences`` or ``weights``, as in :func:`randomization_pvalues`.

    Warns
    -----
    UndefinedMetricWarning
        A column has fewer than 2 users of positive weight: its effect size is nan.

    See Also
    --------
    bootstrap_intervals : A confidence interval of the mean difference.

    Notes
    -----
    Over the :math:`n` users with a difference and a positive weight,
    :math:`\\bar d = \\sum w_i d_i / \\sum w_i` and

    .. math:: s^2 = \\frac{n}{n - 1} \\cdot \\frac{\\sum_i w_i (d_i - \\bar d)^2}{\\sum_i w_i},
              \\qquad d_z = \\bar d / s

    so equal weights give ``mean(d) / std(d, ddof=1)``. Cohen's rules of thumb
    (0.2 small, 0.5 medium, 0.8 large) were made for other designs; read d_z
    as a signal-to-noise ratio of the per-user differences.

    References
    ----------
    .. [1] J. Cohen, "Statistical Power Analysis for the Behavioral Sciences",
       2nd edition, 1988, section 2.3.5.
    .. [2] D. Lakens, "Calculating and reporting effect sizes to facilitate
       cumulative science", Frontiers in Psychology 4, 2013.

    Examples
    --------
    >>> from receval import effect_sizes
    >>> effect_sizes([0.1, 0.2, 0.0, 0.3, 0.1, 0.2])
    1.4302
    >>> effect_sizes([0.1, 0.2, 0.0, 0.3], weights=[1, 1, 2, 0])  # the 0.3 weighs nothing
    0.7385
    """
    func = "effect_sizes"
    d, one_d = check_differences(differences, func)
    table = Table(d, check_weights(weights, d, one_d, func))
    n = table.n_used
    with np.errstate(invalid="ignore", divide="ignore"):
        # d_z does not change with the scale of the table (d near 1), where squares
        # neither overflow (1e160) nor underflow (1e-200)
        mean = table.mean
        dev = np.where(table.used, table.d - mean, 0.0)
        ss = (table.w * dev * dev).sum(axis=0)
        sd = np.sqrt(ss * n / ((n - 1) * table.total_weight))
        effect = mean / sd
    flat = (sd == 0) | table.constant()
    effect[flat] = np.where(mean[flat] == 0, 0.0, np.copysign(np.inf, mean[flat]))
    effect[n < 2] = np.nan
    warn_undefined(
        n < 2, one_d, "effect size",
        "it needs at least 2 users with a difference and a positive weight", func,
    )  # fmt: skip
    return as_result(effect, one_d)

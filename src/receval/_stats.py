"""Paired significance tests, bootstrap intervals, effect sizes and p-value corrections.

Every function takes *paired differences*: ``differences[i, j]`` is model A's
value minus model B's for user i in column j (a column is one metric for one
pair of models), or a 1-D array for a single column. NaN marks a user without
a value in a column and leaves that user out of that column only. A 1-D input
gives a float, a 2-D input an array with one value per column.

The randomization test and the bootstrap read the whole table in one pass:
every column sees the same random sign flips, or the same resampled users,
drawn from a counter-based generator (see :mod:`receval._kernels._stats`), so
the results depend on ``seed`` only, not on the number of numba threads.

SciPy is imported inside the functions that use it, so ``import receval``
does not load it.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from . import _validation as v
from .exceptions import InputValidationError

__all__ = [
    "adjust_pvalues",
    "bootstrap_intervals",
    "effect_sizes",
    "randomization_pvalues",
    "student_pvalues",
    "wilcoxon_pvalues",
]

INTERVALS = ["bca", "percentile"]
CORRECTIONS = ["bh", "bonferroni", "holm", None]
# a flipped sum within this fraction of sum |w d| of the observed one counts as
# at least as extreme: the two differ only by float rounding
RELATIVE_TOLERANCE = 1e-12
# a bootstrap replicate within this fraction of the mean |d| of the estimate counts
# as equal to it (BCa's z0): with discrete differences (ties), many replicates equal
# the estimate exactly, and their float sums differ from it by rounding only
TIE_TOLERANCE = 1e-10
_MAX_SEED = 2**63 - 1


# ---------------------------------------------------------------- inputs
def _to_numpy(x: Any) -> np.ndarray:
    if hasattr(x, "to_numpy") and not isinstance(x, np.ndarray):  # pandas / polars
        x = x.to_numpy()
    return np.asarray(x)


def _check_differences(differences: Any, func: str) -> tuple[np.ndarray, bool]:
    """Float64 differences as a 2-D (n_users, n_columns) array, and whether the input was 1-D.

    NaN is allowed (a user without a value in a column); infinity is not.
    """
    if differences is None:
        raise InputValidationError(f"{func}: differences is None; pass an array of values.")
    d = _to_numpy(differences)
    if d.ndim not in (1, 2):
        raise InputValidationError(
            f"{func}: differences must be 1-dimensional (n_users,) or 2-dimensional "
            f"(n_users, n_columns). Got an array of shape {d.shape}."
        )
    d = v.as_float(d, "differences", func)
    if d.size and np.isinf(d).any():
        raise InputValidationError(
            f"{func}: differences contains infinity; use NaN for a user without a value."
        )
    one_d = d.ndim == 1
    return (d[:, None] if one_d else d), one_d


def _check_weights(weights: Any, d: np.ndarray, one_d: bool, func: str) -> np.ndarray | None:
    """None, or finite non-negative float64 weights of shape (n,) or (n, m)."""
    if weights is None:
        return None
    w = v.as_float(_to_numpy(weights), "weights", func)
    n, m = d.shape
    if w.shape == (n,):
        pass
    elif w.shape == (n, m) and not one_d:
        pass
    else:
        expected = f"({n},)" if one_d else f"({n},) or ({n}, {m})"
        raise InputValidationError(
            f"{func}: weights must have shape {expected}, one weight per user"
            f"{'' if one_d else ' (and column)'}. Got shape {w.shape}."
        )
    v.check_finite(w, "weights", func)
    if w.size and w.min() < 0:
        raise InputValidationError(
            f"{func}: weights must be non-negative. Got values "
            f"{v.format_values(np.unique(w[w < 0]))}."
        )
    return w


def _check_count(value: Any, name: str, func: str) -> int:
    return int(v.check_number(value, name, func, integer=True, low=1))


def _check_seed(seed: Any, func: str) -> int:
    return int(v.check_number(seed, "seed", func, integer=True, low=0, high=_MAX_SEED))


def _result(values: np.ndarray, one_d: bool) -> float | np.ndarray:
    return float(values[0]) if one_d else values


# ---------------------------------------------------------------- tables
class _Table:
    """The weighted table the resampling kernels read, and per-column totals.

    ``used[i, j]``: user i has a difference and a positive weight in column j.
    ``x = w d`` where used, 0 elsewhere (C-contiguous). ``den``: the weights of
    the denominators, as the bootstrap kernel takes them: shape (n, 0) when
    every user counts 1 in every column, (n, 1) when all columns share one
    weight per user, (n, m) otherwise. With ``drop_unused``, users used in no
    column are dropped (the bootstrap must not draw them); otherwise row i is
    user i, so a user's random sign depends on its row only.
    """

    def __init__(self, d: np.ndarray, w: np.ndarray | None, drop_unused: bool = False) -> None:
        defined = ~np.isnan(d)
        complete = bool(defined.all())
        ww = (
            np.ones_like(d)
            if w is None
            else np.broadcast_to(w if w.ndim == 2 else w[:, None], d.shape)
        )
        used = defined & (ww > 0)
        keep = used.any(axis=1) if drop_unused else None
        if keep is not None and not keep.all():
            d, ww, used = d[keep], ww[keep], used[keep]
        self.used = used
        self.d = d
        self.w = np.where(used, ww, 0.0)
        self.x = np.ascontiguousarray(np.where(used, ww * np.where(used, d, 0.0), 0.0))
        if complete and w is None:
            self.den = np.empty((len(d), 0))
        elif complete and w.ndim == 1:
            self.den = np.ascontiguousarray(ww[:, :1])
        else:
            self.den = np.ascontiguousarray(self.w)
        self.n_used = used.sum(axis=0)
        self.total_weight = self.w.sum(axis=0)
        self.total = self.x.sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            self.mean = self.total / self.total_weight

    def constant(self) -> np.ndarray:
        """Columns whose used differences are all equal (at least one used)."""
        if self.d.shape[0] == 0:
            return np.zeros(self.d.shape[1], dtype=bool)
        low = np.where(self.used, self.d, np.inf).min(axis=0)
        high = np.where(self.used, self.d, -np.inf).max(axis=0)
        return (self.n_used > 0) & (low == high)


def _randomization_statistics(
    differences: ArrayLike, weights: ArrayLike | None, n_permutations: int, seed: int
) -> np.ndarray:
    """Signed sums ``sum_i s_bi w_i d_ij`` of every random sign vector: (n_permutations, m).

    Users without a difference (NaN) or with weight 0 in a column count 0 in
    it. The p-value of :func:`randomization_pvalues` counts the rows whose
    absolute value reaches the observed ``|sum_i w_i d_ij|``.
    """
    d, one_d = _check_differences(differences, "_randomization_statistics")
    table = _Table(d, _check_weights(weights, d, one_d, "_randomization_statistics"))
    return _flip_sums(table, n_permutations, seed)


def _flip_sums(table: _Table, n_permutations: int, seed: int) -> np.ndarray:
    from ._kernels._stats import _sign_flip_sums, n_chunks

    # the kernel adds one table row per 8 users; each chunk builds the tables once per
    # 64 users (256 x 8 rows), so fewer, longer chunks than the bootstrap
    work = n_permutations * table.x.size // 8
    with np.errstate(over="ignore"):
        return _sign_flip_sums(table.x, n_permutations, seed, n_chunks(work, per_thread=2))


def _bootstrap_replicates(
    differences: ArrayLike, weights: ArrayLike | None, n_resamples: int, seed: int
) -> np.ndarray:
    """Weighted mean difference of every column in every resample: (n_resamples, m).

    Resample b draws as many users as the table has (users defined in no
    column are dropped first) uniformly with replacement; the same draws serve
    every column. A resample without a used user of a column (its weights sum
    to 0) gives nan in that column.
    """
    d, one_d = _check_differences(differences, "_bootstrap_replicates")
    w = _check_weights(weights, d, one_d, "_bootstrap_replicates")
    table = _Table(d, w, drop_unused=True)
    return _replicates(table, n_resamples, seed)


def _replicates(table: _Table, n_resamples: int, seed: int) -> np.ndarray:
    from ._kernels._stats import _bootstrap_means, n_chunks

    if table.x.shape[0] >= 2**32:  # the kernel maps 64-bit words to indices with n < 2**32
        raise InputValidationError(
            f"bootstrap_intervals: differences must have fewer than 2**32 users. Got "
            f"{table.x.shape[0]}."
        )

    work = n_resamples * table.x.shape[0] * (2 + table.x.shape[1])
    with np.errstate(over="ignore"):
        return _bootstrap_means(table.x, table.den, n_resamples, seed, n_chunks(work))


# ---------------------------------------------------------------- tests
def student_pvalues(differences: ArrayLike) -> float | np.ndarray:
    """Compute two-sided paired t-test p-values, one per column of differences.

    The t-test of the mean of the paired differences against 0, on the users
    with a difference in the column (NaN leaves a user out): the same value as
    :func:`scipy.stats.ttest_rel` on the two models' values, or
    :func:`scipy.stats.ttest_1samp` on their differences.

    Parameters
    ----------
    differences : array-like of shape (n_users,) or (n_users, n_columns)
        Model A's value minus model B's for each user (and column). NaN marks a
        user without a value in that column.

    Returns
    -------
    pvalue : float or ndarray of shape (n_columns,)
        Two-sided p-values. 1.0 when every difference of the column is 0
        (identical models); nan with fewer than 2 users.

    Raises
    ------
    InputValidationError
        ``differences`` is not 1-D or 2-D, not numeric, or holds infinity.

    See Also
    --------
    wilcoxon_pvalues : The signed-rank test, for heavy-tailed differences.
    randomization_pvalues : A test without a distributional assumption.

    Notes
    -----
    With :math:`n` users, mean difference :math:`\\bar d` and standard
    deviation :math:`s` (``ddof=1``), :math:`t = \\bar d / (s / \\sqrt n)` and
    :math:`p = 2\\,F_{n-1}(-|t|)`, :math:`F_{n-1}` the CDF of Student's t with
    :math:`n - 1` degrees of freedom. Constant non-zero differences give
    :math:`t = \\pm\\infty` and :math:`p = 0`, as in SciPy; all-zero ones,
    where SciPy returns nan, give 1.

    Examples
    --------
    >>> from receval._stats import student_pvalues
    >>> d = [0.1, 0.2, 0.0, 0.3, 0.1, 0.2]
    >>> student_pvalues(d)
    0.01722
    >>> student_pvalues([[0.1, 0.0], [0.2, 0.0], [0.0, 0.0], [0.3, float("nan")]])
    array([0.1027, 1.    ])
    """
    from scipy.special import stdtr

    d, one_d = _check_differences(differences, "student_pvalues")
    defined = ~np.isnan(d)
    n = defined.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(defined, d, 0.0).sum(axis=0) / n
        dev = np.where(defined, d - mean, 0.0)
        var = (dev * dev).sum(axis=0) / (n - 1)
        t = mean / np.sqrt(var / n)
        p = 2.0 * stdtr(n - 1, -np.abs(t))
    p = np.asarray(p, dtype=np.float64)
    p[(mean == 0.0) & (var == 0.0)] = 1.0
    p[n < 2] = np.nan
    return _result(p, one_d)


def wilcoxon_pvalues(differences: ArrayLike) -> float | np.ndarray:
    """Compute two-sided Wilcoxon signed-rank p-values, one per column of differences.

    :func:`scipy.stats.wilcoxon` with its defaults on the users with a
    difference in the column (NaN leaves a user out): zero differences are
    dropped (``zero_method="wilcox"``) and ``method="auto"`` picks the exact
    distribution, a permutation test or the normal approximation.

    Parameters
    ----------
    differences : array-like of shape (n_users,) or (n_users, n_columns)
        Model A's value minus model B's for each user (and column). NaN marks a
        user without a value in that column.

    Returns
    -------
    pvalue : float or ndarray of shape (n_columns,)
        Two-sided p-values. 1.0 when every difference of the column is 0
        (identical models); nan for a column without users.

    Raises
    ------
    InputValidationError
        ``differences`` is not 1-D or 2-D, not numeric, or holds infinity.

    See Also
    --------
    student_pvalues : The paired t-test.

    Notes
    -----
    SciPy's ``method="auto"`` (SciPy 1.17) uses, after dropping zeros, the
    exact null distribution for at most 50 users without ties or zeros, an
    exact enumeration of the sign flips for at most 13 users otherwise, and
    the normal approximation (no continuity correction, tie-corrected
    variance) for the rest. Each column is tested on its own, so one column's
    ties or zeros never change another column's method.

    Examples
    --------
    >>> from receval._stats import wilcoxon_pvalues
    >>> wilcoxon_pvalues([0.1, 0.2, -0.05, 0.3, 0.15, 0.25])
    0.0625
    >>> wilcoxon_pvalues([0.0, 0.0, 0.0])
    1.0
    """
    from scipy.stats import wilcoxon

    d, one_d = _check_differences(differences, "wilcoxon_pvalues")
    p = np.full(d.shape[1], np.nan)
    for j in range(d.shape[1]):
        col = d[:, j]
        col = col[~np.isnan(col)]
        if col.size == 0:
            continue
        if not col.any():
            p[j] = 1.0
            continue
        with warnings.catch_warnings():  # SciPy's small-sample and precision warnings
            warnings.simplefilter("ignore", RuntimeWarning)
            p[j] = wilcoxon(col).pvalue
    return _result(p, one_d)


def randomization_pvalues(
    differences: ArrayLike,
    weights: ArrayLike | None = None,
    *,
    n_permutations: int = 10_000,
    seed: int = 0,
) -> float | np.ndarray:
    """Compute two-sided paired randomization (sign-flip) test p-values, one per column.

    Fisher's randomization test of paired differences: under the null
    hypothesis that the two models are exchangeable for every user, each
    user's difference is as likely to have either sign. The test draws
    ``n_permutations`` random sign vectors and counts how often the flipped
    weighted sum is at least as far from 0 as the observed one. This is the
    test Smucker et al. recommend for information retrieval; it makes no
    assumption about the distribution of the differences and takes weights.

    Parameters
    ----------
    differences : array-like of shape (n_users,) or (n_users, n_columns)
        Model A's value minus model B's for each user (and column). NaN marks a
        user without a value in that column.
    weights : array-like of shape (n_users,) or (n_users, n_columns), default=None
        Non-negative weight of each user (in each column), as in the weighted
        mean difference; None weighs every user 1.
    n_permutations : int, default=10_000
        Random sign vectors drawn; the smallest possible p-value is
        ``1 / (n_permutations + 1)``.
    seed : int, default=0
        Seed of the sign vectors, in [0, 2**63 - 1]; the same seed gives the
        same p-values whatever the number of threads.

    Returns
    -------
    pvalue : float or ndarray of shape (n_columns,)
        Two-sided p-values in (0, 1]. 1.0 when every difference of the column
        is 0 (identical models); nan for a column without users of positive
        weight.

    Raises
    ------
    InvalidParameterError
        ``n_permutations`` below 1 or ``seed`` out of range (or not integers).
    InputValidationError
        Bad ``differences`` (not 1-D or 2-D, not numeric, infinity) or
        ``weights`` (shape, negative, NaN or infinity).

    See Also
    --------
    student_pvalues : The paired t-test, its large-sample approximation.
    bootstrap_intervals : A confidence interval of the same mean difference.

    Notes
    -----
    With :math:`x_i = w_i d_i` (0 for a user left out of the column), the
    statistic is :math:`T = |\\sum_i x_i|` (the weighted mean difference times
    the fixed :math:`\\sum_i w_i`), and for random signs
    :math:`s_{bi} = \\pm 1`, :math:`T_b = |\\sum_i s_{bi} x_i|`. The p-value is

    .. math:: p = \\frac{1 + \\#\\{b : T_b \\ge T - \\tau\\}}{1 + B}

    with :math:`\\tau = 10^{-12} \\sum_i |x_i|`, so that a flipped sum equal to
    the observed one up to float rounding counts as reaching it; the ``1 +``
    keeps the Monte Carlo p-value valid (never 0; Phipson and Smyth, 2010).
    Its Monte Carlo standard error is about :math:`\\sqrt{p (1 - p) / B}`.

    Every column uses the same sign vectors: sign vector b flips the user of
    row i when bit ``i % 64`` of word ``i // 64`` of the SplitMix64 stream of
    (``seed``, b) is set. So a column of a 2-D call gets the same p-value as a
    1-D call on that column alone. The kernel tabulates the 256 signed sums of every byte of users
    and adds 8 table rows per 64 users, parallel over sign vectors.

    References
    ----------
    .. [1] M. D. Smucker, J. Allan and B. Carterette, "A comparison of
       statistical significance tests for information retrieval evaluation",
       CIKM 2007.
    .. [2] B. Phipson and G. K. Smyth, "Permutation p-values should never be
       zero", Statistical Applications in Genetics and Molecular Biology 9(1),
       2010.

    Examples
    --------
    >>> from receval._stats import randomization_pvalues
    >>> d = [0.1, 0.2, 0.0, 0.3, 0.1, 0.2, -0.1, 0.2]
    >>> randomization_pvalues(d)  # 16 of the 256 sign vectors reach |sum d|: exact p 0.0625
    0.0623
    >>> randomization_pvalues([0.0, 0.0, 0.0])
    1.0
    """
    func = "randomization_pvalues"
    n_permutations = _check_count(n_permutations, "n_permutations", func)
    seed = _check_seed(seed, func)
    d, one_d = _check_differences(differences, func)
    table = _Table(d, _check_weights(weights, d, one_d, func))
    sums = _flip_sums(table, n_permutations, seed)
    observed = np.abs(table.total)
    tolerance = RELATIVE_TOLERANCE * np.abs(table.x).sum(axis=0)
    reached = (np.abs(sums) >= observed - tolerance).sum(axis=0)
    p = (1.0 + reached) / (1.0 + n_permutations)
    p[table.total_weight == 0] = np.nan
    return _result(p, one_d)


# ---------------------------------------------------------------- intervals
def _jackknife_acceleration(table: _Table) -> np.ndarray:
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


def _bca_levels(
    replicates: np.ndarray, estimate: float, acceleration: float, alpha: float, tie: float
) -> tuple[float, float]:
    """Quantile levels of the BCa interval (SciPy's ``_bca_interval``); replicates
    within ``tie`` of the estimate count as equal to it."""
    from scipy.special import ndtr, ndtri

    b = replicates.size
    below = np.count_nonzero(replicates < estimate - tie)
    equal = np.count_nonzero(np.abs(replicates - estimate) <= tie)
    z0 = ndtri((2.0 * below + equal) / (2.0 * b))
    z = ndtri(alpha)
    with np.errstate(invalid="ignore", divide="ignore"):
        low = z0 + z
        high = z0 - z
        return (
            float(ndtr(z0 + low / (1.0 - acceleration * low))),
            float(ndtr(z0 + high / (1.0 - acceleration * high))),
        )


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
        the column is ``c`` (e.g. 0 for identical models); nan for a column
        without users of positive weight, and for a BCa interval whose bias
        correction is infinite (every resample on one side of the estimate).

    Raises
    ------
    InvalidParameterError
        Unknown ``method``; ``confidence`` outside (0, 1); ``n_resamples``
        below 1 or ``seed`` out of range (or not integers).
    InputValidationError
        Bad ``differences`` or ``weights``, as in :func:`randomization_pvalues`.

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

    A resample is ``n`` users drawn uniformly with replacement among the
    ``n`` users with a difference in at least one column. With a single
    column (or columns defined for the same users) this is the usual paired
    bootstrap, as ``scipy.stats.bootstrap(..., paired=True)``. A column with
    undefined users sees a random number of them in each resample (the
    bootstrap of a ratio of sums); a resample that holds none of its users
    (weights summing to 0) is ignored for that column, and :math:`B` counts
    the others.

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
    confidence = float(
        v.check_number(
            confidence,
            "confidence",
            func,
            low=0.0,
            high=1.0,
            low_inclusive=False,
            high_inclusive=False,
        )
    )
    n_resamples = _check_count(n_resamples, "n_resamples", func)
    seed = _check_seed(seed, func)
    d, one_d = _check_differences(differences, func)
    table = _Table(d, _check_weights(weights, d, one_d, func), drop_unused=True)
    m = d.shape[1]
    low = np.full(m, np.nan)
    high = np.full(m, np.nan)
    constant = table.constant()
    todo = np.flatnonzero((table.total_weight > 0) & ~constant)
    if constant.any():
        value = np.where(table.used, table.d, np.nan)[:, constant]
        c = value[np.argmax(~np.isnan(value), axis=0), np.arange(value.shape[1])]
        low[constant] = high[constant] = c
    if todo.size:
        replicates = _replicates(table, n_resamples, seed)
        alpha = (1.0 - confidence) / 2.0
        accel = _jackknife_acceleration(table) if method == "bca" else None
        tie = TIE_TOLERANCE * np.abs(table.x).sum(axis=0) / table.total_weight
        for j in todo:
            rep = replicates[:, j]
            rep = rep[~np.isnan(rep)]
            if rep.size == 0:
                continue
            if accel is None:
                levels = (alpha, 1.0 - alpha)
            else:
                levels = _bca_levels(rep, table.mean[j], accel[j], alpha, tie[j])
                if np.isnan(levels).any():
                    continue
            low[j], high[j] = np.quantile(rep, levels)
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
        their mean is 0, else ``inf`` with the sign of the mean. nan with
        fewer than 2 users of positive weight.

    Raises
    ------
    InputValidationError
        Bad ``differences`` or ``weights``, as in :func:`randomization_pvalues`.

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
    d, one_d = _check_differences(differences, func)
    table = _Table(d, _check_weights(weights, d, one_d, func))
    n = table.n_used
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = table.mean
        dev = np.where(table.used, table.d - mean, 0.0)
        ss = (table.w * dev * dev).sum(axis=0)
        sd = np.sqrt(ss * n / ((n - 1) * table.total_weight))
        effect = mean / sd
    flat = (sd == 0) | table.constant()
    effect[flat] = np.where(mean[flat] == 0, 0.0, np.copysign(np.inf, mean[flat]))
    effect[n < 2] = np.nan
    return _result(effect, one_d)


# ---------------------------------------------------------------- corrections
def adjust_pvalues(pvalues: ArrayLike, method: str | None = "holm") -> np.ndarray:
    """Adjust p-values for multiple comparisons.

    Parameters
    ----------
    pvalues : array-like of shape (n_tests,)
        P-values in [0, 1]. NaN entries (undefined tests) stay NaN and do not
        count in the number of tests.
    method : {"holm", "bonferroni", "bh"} or None, default="holm"
        ``"holm"``: Holm-Bonferroni step-down, controls the family-wise error
        rate; ``"bonferroni"``: multiply by the number of tests, controls it
        too, less powerful; ``"bh"``: Benjamini-Hochberg step-up, controls the
        false discovery rate (for independent or positively dependent tests);
        None: no adjustment.

    Returns
    -------
    adjusted : ndarray of shape (n_tests,)
        Adjusted p-values, capped at 1; compare them with the unadjusted level
        (e.g. 0.05).

    Raises
    ------
    InvalidParameterError
        Unknown ``method``.
    InputValidationError
        ``pvalues`` not 1-D, not numeric, or outside [0, 1] (infinity included).

    See Also
    --------
    randomization_pvalues, student_pvalues, wilcoxon_pvalues : p-values to adjust.

    Notes
    -----
    With :math:`m` p-values sorted ascending, :math:`p_{(1)} \\le \\dots \\le p_{(m)}`:

    - Holm: :math:`\\tilde p_{(k)} = \\min(1, \\max_{i \\le k} (m - i + 1) p_{(i)})`;
    - Bonferroni: :math:`\\tilde p_i = \\min(1, m p_i)`;
    - Benjamini-Hochberg: :math:`\\tilde p_{(k)} = \\min(1, \\min_{i \\ge k} m p_{(i)} / i)`,
      computed by :func:`scipy.stats.false_discovery_control`.

    These equal ``statsmodels.stats.multitest.multipletests`` with
    ``method="holm"``, ``"bonferroni"`` and ``"fdr_bh"``.

    References
    ----------
    .. [1] S. Holm, "A simple sequentially rejective multiple test
       procedure", Scandinavian Journal of Statistics 6(2), 1979.
    .. [2] Y. Benjamini and Y. Hochberg, "Controlling the false discovery
       rate: a practical and powerful approach to multiple testing", Journal
       of the Royal Statistical Society B 57(1), 1995.

    Examples
    --------
    >>> from receval import adjust_pvalues
    >>> p = [0.01, 0.04, 0.03, float("nan")]
    >>> adjust_pvalues(p)
    array([0.03, 0.06, 0.06,  nan])
    >>> adjust_pvalues(p, method="bh")
    array([0.03, 0.04, 0.04,  nan])
    """
    func = "adjust_pvalues"
    v.check_option(method, "method", func, CORRECTIONS)
    p = v.as_float(v.as_1d(pvalues, "pvalues", func), "pvalues", func).copy()
    valid = ~np.isnan(p)
    q = p[valid]
    bad = (q < 0.0) | (q > 1.0)
    if bad.any():
        raise InputValidationError(
            f"{func}: pvalues must be in [0, 1] (or NaN for an undefined test). Got values "
            f"{v.format_values(np.unique(q[bad]))}."
        )
    k = q.size
    if method is None or k == 0:
        return p
    if method == "bonferroni":
        adjusted = np.minimum(k * q, 1.0)
    elif method == "holm":
        order = np.argsort(q, kind="stable")
        steps = np.maximum.accumulate((k - np.arange(k)) * q[order])
        adjusted = np.empty(k)
        adjusted[order] = np.minimum(steps, 1.0)
    else:
        from scipy.stats import false_discovery_control

        adjusted = np.minimum(false_discovery_control(q, method="bh"), 1.0)
    p[valid] = adjusted
    return p

"""Paired significance tests and p-value corrections.

Every test takes paired differences, as described in :mod:`receval.comparison.paired`:
one column per metric and pair of models, NaN for a user without a value in
a column. A 1-D input gives a float, a 2-D input an array with one value per
column.

The randomization test reads the whole table in one pass: every column sees
the same random sign flips, drawn from a counter-based generator (see
``rust/src/stats.rs``), so the
results depend on ``seed`` only, not on the number of threads. Bootstrap
intervals and effect sizes are in :mod:`receval.comparison.intervals`.

The t-test and the Wilcoxon test use SciPy's distributions (the ``stats``
extra, ``pip install 'receval[stats]'``), imported inside the functions, so
``import receval`` does not load it; the other tests and corrections need no
SciPy.
"""

from __future__ import annotations

import importlib
import math
import warnings
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .. import _validation as v
from .._parameters import check_seed
from ..data._lookup import distinct
from ..exceptions import (
    InputValidationError,
    MissingDependencyError,
    UndefinedMetricWarning,
    warn,
)
from .choices import CORRECTIONS as CORRECTIONS
from .choices import TESTS as TESTS
from .choices import check_count
from .paired import (
    Table,
    as_result,
    check_differences,
    check_steps,
    check_weights,
    equally_weighted,
    replicate_chunks,
    warn_undefined,
)

__all__ = [
    "TESTS",
    "adjust_pvalues",
    "paired_pvalues",
    "randomization_pvalues",
    "smallest_pvalue",
    "student_pvalues",
    "wilcoxon_pvalues",
]

# a flipped sum within this fraction of sum |w d| of the observed one counts as
# at least as extreme: the two differ only by float rounding
RELATIVE_TOLERANCE = 1e-12

#: The alternatives of the paired tests, as SciPy names them.
ALTERNATIVES = ("two-sided", "greater", "less")


def scipy_function(module: str, name: str, what: str) -> Any:
    """``module.name`` from SciPy, or a :class:`MissingDependencyError` saying
    that ``what`` needs SciPy and how to install it."""
    try:
        return getattr(importlib.import_module(module), name)
    except ModuleNotFoundError as exc:
        if exc.name is None or exc.name.split(".")[0] != "scipy":
            raise
        raise MissingDependencyError(
            f"{what} needs SciPy, which is not installed; pip install 'receval[stats]' "
            f"(or pip install scipy), or use test='randomization', which needs no SciPy."
        ) from None


def _flip_sums(table: Table, n_permutations: int, seed: int) -> np.ndarray:
    from .._kernels import compiled

    # the kernel adds one table row per 8 users; each chunk builds the tables once per
    # 64 users (256 x 8 rows), so fewer, longer chunks than the bootstrap
    work = n_permutations * table.x.size // 8
    n_chunks = replicate_chunks(work, per_thread=2)
    result: np.ndarray = compiled().sign_flip_sums(table.x, n_permutations, seed, n_chunks)
    return result


# ---------------------------------------------------------------- tests
def student_pvalues(
    differences: ArrayLike, *, alternative: str = "two-sided"
) -> float | np.ndarray:
    """Compute paired t-test p-values, one per column of differences.

    The t-test of the mean of the paired differences against 0, on the users
    with a difference in the column (NaN leaves a user out): the same value as
    :func:`scipy.stats.ttest_rel` on the two models' values, or
    :func:`scipy.stats.ttest_1samp` on their differences.

    Parameters
    ----------
    differences : array-like of shape (n_users,) or (n_users, n_columns)
        Model A's value minus model B's for each user (and column). NaN marks a
        user without a value in that column.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        The alternative hypothesis, as in :func:`scipy.stats.ttest_1samp`: the
        mean difference is not 0, above 0 or below 0.

    Returns
    -------
    pvalue : float or ndarray of shape (n_columns,)
        p-values of ``alternative``. When every difference of the column is 0
        (identical models; SciPy: nan) t is read as 0, its null center: 1.0
        two-sided, 0.5 one-sided (SciPy's one-sided p-value of t = 0); nan
        with an ``UndefinedMetricWarning`` for a column with fewer than 2 users
        (as SciPy, which warns too).

    Raises
    ------
    InvalidParameterError
        Unknown ``alternative``.
    InputValidationError
        ``differences`` is empty (no user), not 1-D or 2-D, not numeric, or
        holds infinity.

    Warns
    -----
    UndefinedMetricWarning
        A column has fewer than 2 users with a difference: its p-value is nan.

    See Also
    --------
    wilcoxon_pvalues : The signed-rank test, for heavy-tailed differences.
    randomization_pvalues : A test without a distributional assumption.

    Notes
    -----
    With :math:`n` users, mean difference :math:`\\bar d` and standard
    deviation :math:`s` (``ddof=1``), :math:`t = \\bar d / (s / \\sqrt n)` and
    :math:`p = 2\\,F_{n-1}(-|t|)` (``"greater"``: :math:`F_{n-1}(-t)`,
    ``"less"``: :math:`F_{n-1}(t)`), :math:`F_{n-1}` the CDF of Student's t
    with :math:`n - 1` degrees of freedom. Constant non-zero differences give
    :math:`t = \\pm\\infty` and :math:`p = 0` (or 1 on the other side), as
    in SciPy; all-zero ones, where SciPy returns nan, give :math:`t = 0`.
    :math:`t` is computed on the differences scaled by a power of two (the
    largest :math:`|d|` in [0.5, 1)), the same value exactly; where SciPy's
    squares overflow (:math:`|d|` near 1e300) or underflow (near 5e-324),
    its t and p-value are wrong and these are not.

    Examples
    --------
    >>> from receval.comparison.significance import student_pvalues
    >>> d = [0.1, 0.2, 0.0, 0.3, 0.1, 0.2]
    >>> student_pvalues(d)
    0.01722
    >>> student_pvalues([[0.1, 0.0], [0.2, 0.0], [0.0, 0.0], [0.3, float("nan")]])
    array([0.1027, 1.    ])
    """
    func = "student_pvalues"
    v.check_option(alternative, "alternative", func, list(ALTERNATIVES))
    return _student(differences, func, alternative)


def _student(
    differences: ArrayLike, func: str, alternative: str = "two-sided"
) -> float | np.ndarray:
    """:func:`student_pvalues`, its errors and warnings naming ``func``."""
    stdtr = scipy_function("scipy.special", "stdtr", f"{func} (the paired t-test)")
    d, one_d = check_differences(differences, func)
    table = Table(d, None)  # t does not change with its scale (d near 1): no overflow
    n = table.n_used
    mean, se = table.mean, table.standard_error()
    with np.errstate(invalid="ignore", divide="ignore"):
        t = mean / se
    t[(mean == 0.0) & (se == 0.0)] = 0.0  # identical models: the null center
    if alternative == "two-sided":
        p = 2.0 * stdtr(n - 1, -np.abs(t))
    else:
        p = stdtr(n - 1, -t if alternative == "greater" else t)
    p = np.asarray(p, dtype=np.float64)
    p[n < 2] = np.nan
    warn_undefined(
        n < 2, one_d, "p-value", "the t-test needs at least 2 users with a difference", func
    )
    return as_result(p, one_d)


def wilcoxon_pvalues(
    differences: ArrayLike, *, alternative: str = "two-sided"
) -> float | np.ndarray:
    """Compute Wilcoxon signed-rank p-values, one per column of differences.

    :func:`scipy.stats.wilcoxon` with its defaults on the users with a
    difference in the column (NaN leaves a user out): zero differences are
    dropped (``zero_method="wilcox"``) and ``method="auto"`` picks the exact
    distribution, a permutation test or the normal approximation.

    Parameters
    ----------
    differences : array-like of shape (n_users,) or (n_users, n_columns)
        Model A's value minus model B's for each user (and column). NaN marks a
        user without a value in that column.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        The alternative hypothesis, as in :func:`scipy.stats.wilcoxon`:
        ``"greater"`` tests whether the differences lean positive by the
        signed-rank statistic (the sum of the ranks of the positive
        differences), not by their mean; ``"less"`` whether they lean negative.

    Returns
    -------
    pvalue : float or ndarray of shape (n_columns,)
        p-values of ``alternative``. 1.0 when every difference of the column is
        0 (identical models); nan with an ``UndefinedMetricWarning`` for a
        column without users (every difference NaN).

    Raises
    ------
    InvalidParameterError
        Unknown ``alternative``.
    InputValidationError
        ``differences`` is empty (no user), not 1-D or 2-D, not numeric, or
        holds infinity.

    Warns
    -----
    UndefinedMetricWarning
        A column has no user with a difference: its p-value is nan.

    See Also
    --------
    student_pvalues : The paired t-test.
    receval.comparison.paired.signed_rank_direction : The statistic's side.

    Notes
    -----
    SciPy's ``method="auto"`` (SciPy 1.17) uses, after dropping zeros, the
    exact null distribution for at most 50 users without ties or zeros, an
    exact enumeration of the sign flips for at most 13 users otherwise, and
    the normal approximation (no continuity correction, tie-corrected
    variance) for the rest. Each column is tested on its own, so one column's
    ties or zeros never change another column's method. The enumeration runs
    SciPy's ``permutation_test`` with the statistic of every sign vector computed
    at once (SciPy's own call computes them one by one: 2 s a column of 13 users):
    the same p-values to the last bit, in milliseconds.

    Examples
    --------
    >>> from receval.comparison.significance import wilcoxon_pvalues
    >>> wilcoxon_pvalues([0.1, 0.2, -0.05, 0.3, 0.15, 0.25])
    0.0625
    >>> wilcoxon_pvalues([0.1, 0.2, -0.05, 0.3, 0.15, 0.25], alternative="greater")
    0.03125
    >>> wilcoxon_pvalues([0.0, 0.0, 0.0])
    1.0
    """
    func = "wilcoxon_pvalues"
    v.check_option(alternative, "alternative", func, list(ALTERNATIVES))
    return _wilcoxon(differences, func, alternative)


def _wilcoxon(
    differences: ArrayLike, func: str, alternative: str = "two-sided"
) -> float | np.ndarray:
    """:func:`wilcoxon_pvalues`, its errors and warnings naming ``func``."""
    wilcoxon = scipy_function("scipy.stats", "wilcoxon", f"{func} (the Wilcoxon test)")
    d, one_d = check_differences(differences, func)
    p = np.full(d.shape[1], np.nan)
    version = importlib.import_module("scipy").__version__.split(".")
    flips = (int(version[0]), int(version[1])) >= (1, 15)  # see _enumerated
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
            p[j] = (
                _sign_flips_pvalue(col, alternative)
                if flips and _enumerated(col)
                else wilcoxon(col, alternative=alternative).pvalue
            )
    warn_undefined(np.isnan(p), one_d, "p-value", "no user has a difference (all NaN)", func)
    return as_result(p, one_d)


# SciPy's wilcoxon (method="auto") enumerates the 2**n sign flips of at most this many
# differences (zeros counted) when some are zero or tied
_MOST_ENUMERATED = 13


def _enumerated(col: np.ndarray) -> bool:
    """Whether :func:`scipy.stats.wilcoxon` (1.15 or later; before, it took the
    normal approximation there) tests the differences ``col`` (no NaN) by its
    permutation test: at most 13 of them, a zero or a tie among the others."""
    nonzero = np.abs(col[col != 0])
    return col.size <= _MOST_ENUMERATED and (
        nonzero.size < col.size or distinct(nonzero).size < nonzero.size
    )


def _sign_flips_pvalue(col: np.ndarray, alternative: str = "two-sided") -> float:
    """:func:`scipy.stats.wilcoxon`'s p-value of ``col`` where it is the permutation
    test (:func:`_enumerated`), by the same :func:`scipy.stats.permutation_test`
    with the statistic computed for every sign vector at once.

    SciPy passes its statistic (the sum of the ranks of ``|d|`` where ``d > 0``,
    zeros left out) unvectorized, so the test calls it once for each of the 2**n
    sign vectors: 2 s for 13 users. A sign flip changes no ``|d|``, so the ranks
    are those of ``col``; each sum is of half-integers below 92, exact in any order,
    hence the same null distribution and p-value to the last bit."""
    stats = importlib.import_module("scipy.stats")
    nonzero = col != 0
    ranks = np.zeros(col.size)
    ranks[nonzero] = stats.rankdata(np.abs(col[nonzero]))

    def rank_sum(d: np.ndarray, axis: int) -> np.ndarray:
        total: np.ndarray = np.sum((d > 0) * ranks, axis=axis)
        return total

    method = stats.PermutationMethod()
    result = stats.permutation_test(
        (col,), rank_sum, permutation_type="samples", vectorized=True,
        n_resamples=method.n_resamples, batch=method.batch, alternative=alternative, axis=-1,
    )  # fmt: skip
    return float(result.pvalue)


def randomization_pvalues(
    differences: ArrayLike,
    weights: ArrayLike | None = None,
    *,
    alternative: str = "two-sided",
    n_permutations: int = 10_000,
    seed: int = 0,
) -> float | np.ndarray:
    """Compute paired randomization (sign-flip) test p-values, one per column.

    Fisher's randomization test of paired differences: under the null
    hypothesis that the two models are exchangeable for every user, each
    user's difference is as likely to have either sign. The test draws
    ``n_permutations`` random sign vectors and counts how often the flipped
    weighted sum is at least as far from 0 as the observed one (two-sided),
    or at least as far in the direction of the alternative. This is the
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
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        The alternative hypothesis: the weighted mean difference is not 0,
        above 0 or below 0.
    n_permutations : int, default=10_000
        Random sign vectors drawn; the smallest possible p-value is
        ``1 / (n_permutations + 1)``, whatever ``alternative``.
    seed : int, default=0
        Seed of the sign vectors, in [0, 2**63 - 1]; the same seed gives the
        same p-values whatever the number of threads.

    Returns
    -------
    pvalue : float or ndarray of shape (n_columns,)
        p-values of ``alternative`` in (0, 1]. 1.0 when every difference of the
        column is 0 (identical models: every sign vector reaches the observed
        sum, on either side), and two-sided for a single user (both signs of
        one difference are as extreme); nan with an ``UndefinedMetricWarning``
        for a column without users of positive weight.

    Raises
    ------
    InvalidParameterError
        Unknown ``alternative``; ``n_permutations`` below 1 or ``seed`` out of
        range (or not integers);
        ``n_permutations`` times the users over 10**12 steps (refused before
        any work).
    InputValidationError
        Bad ``differences`` (empty, not 1-D or 2-D, not numeric, infinity) or
        ``weights`` (shape, negative, NaN or infinity).

    Warns
    -----
    UndefinedMetricWarning
        A column has no user with a difference and a positive weight: its
        p-value is nan.

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
    The one-sided tests count the signed sums
    :math:`S_b = \\sum_i s_{bi} x_i` on the alternative's side of
    :math:`S = \\sum_i x_i` (the same sign vectors): ``"greater"``
    :math:`\\#\\{b : S_b \\ge S - \\tau\\}`, ``"less"``
    :math:`\\#\\{b : S_b \\le S + \\tau\\}`, in the same formula. Each
    estimates its exact test's p-value, the share of the :math:`2^n` sign
    vectors that reach :math:`S`; neither is half the two-sided one (the sign
    vectors that reach :math:`S` exactly count on both sides).

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
    >>> from receval.comparison.significance import randomization_pvalues
    >>> d = [0.1, 0.2, 0.0, 0.3, 0.1, 0.2, -0.1, 0.2]
    >>> randomization_pvalues(d)  # 16 of the 256 sign vectors reach |sum d|: exact p 0.0625
    0.0623
    >>> randomization_pvalues([0.0, 0.0, 0.0])
    1.0
    """
    func = "randomization_pvalues"
    return randomization_test(differences, weights, n_permutations, seed, func, (alternative,))[0]


def randomization_test(
    differences: ArrayLike,
    weights: ArrayLike | None,
    n_permutations: int,
    seed: int,
    func: str,
    sides: tuple[str, ...] = ("two-sided",),
) -> list[float | np.ndarray]:
    """:func:`randomization_pvalues` of each alternative of ``sides``, from one draw of
    the sign vectors, its errors naming ``func``."""
    for alternative in sides:
        v.check_option(alternative, "alternative", func, list(ALTERNATIVES))
    n_permutations = check_count(n_permutations, "n_permutations", func)
    seed = check_seed(seed, func)
    d, one_d = check_differences(differences, func)
    table = Table(d, check_weights(weights, d, one_d, func))
    check_steps(n_permutations, d.shape[0], "n_permutations", func)
    sums = _flip_sums(table, n_permutations, seed)
    tolerance = RELATIVE_TOLERANCE * np.abs(table.x).sum(axis=0)
    warn_undefined(
        table.total_weight == 0, one_d, "p-value",
        "no user has a difference and a positive weight", func,
    )  # fmt: skip
    out: list[float | np.ndarray] = []
    for alternative in sides:
        if alternative == "two-sided":
            reached = np.abs(sums) >= np.abs(table.total) - tolerance
        elif alternative == "greater":
            reached = sums >= table.total - tolerance
        else:
            reached = sums <= table.total + tolerance
        p = (1.0 + reached.sum(axis=0)) / (1.0 + n_permutations)
        p[table.total_weight == 0] = np.nan
        out.append(as_result(p, one_d))
    return out


def smallest_pvalue(
    n_users: int,
    *,
    test: str = "randomization",
    alternative: str = "two-sided",
    n_permutations: int = 10_000,
) -> float:
    """The smallest p-value a paired test can give with ``n_users`` users.

    With few users a test may be unable to reach a significance level
    whatever the differences: the randomization test of 3 users gives at
    least 0.25. Compare the result with ``alpha`` before reading a
    non-significant result as "no difference".

    Parameters
    ----------
    n_users : int
        Users with a paired difference. Zero differences only raise the
        smallest p-value (the Wilcoxon test drops them, sign flips leave them
        unchanged), so the value for all users is a lower bound for any data.
    test : {"randomization", "student", "wilcoxon"}, default="randomization"
        The test, as in :func:`paired_pvalues`.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        The alternative, as in :func:`paired_pvalues`; both one-sided tests
        have the same bound.
    n_permutations : int, default=10_000
        Random sign vectors of the randomization test.

    Returns
    -------
    pvalue : float
        The lower bound; nan where the test gives no p-value (no user, or
        fewer than 2 for the t-test).

    Raises
    ------
    InvalidParameterError
        ``n_users`` negative or not an integer, unknown ``test`` or
        ``alternative``, or ``n_permutations`` below 1.

    See Also
    --------
    paired_pvalues : The tests themselves.

    Notes
    -----
    - randomization: the exact test over all :math:`2^n` sign vectors gives
      at least :math:`2 / 2^n` (the observed signs and their opposite always
      reach the observed sum), one-sided :math:`1 / 2^n`; the Monte Carlo
      p-value estimates it and is at least :math:`1 / (B + 1)`, so the bound
      is the larger of the two.
    - wilcoxon: SciPy's exact and permutation methods (:math:`n \\le 50`)
      give at least :math:`2 / 2^n` (one-sided :math:`1 / 2^n`); its normal
      approximation (:math:`n > 50`) at least
      :math:`\\operatorname{erfc}(\\sqrt{n / 2})` (one-sided half of it),
      reached when every difference is tied and has the same sign.
    - student: constant non-zero differences give :math:`p = 0` for any
      :math:`n \\ge 2`.

    Examples
    --------
    >>> from receval import smallest_pvalue
    >>> smallest_pvalue(3)
    0.25
    >>> smallest_pvalue(3, alternative="greater")
    0.125
    >>> smallest_pvalue(5, test="wilcoxon")
    0.0625
    >>> smallest_pvalue(3, test="student")
    0.0
    """
    func = "smallest_pvalue"
    v.check_number(n_users, "n_users", func, integer=True, low=0)
    v.check_option(test, "test", func, list(TESTS))
    v.check_option(alternative, "alternative", func, list(ALTERNATIVES))
    n_permutations = check_count(n_permutations, "n_permutations", func)
    n = int(n_users)
    if test == "student":
        return 0.0 if n >= 2 else math.nan
    if n == 0:
        return math.nan
    sides = 2.0 if alternative == "two-sided" else 1.0  # the observed signs and their opposite
    if test == "wilcoxon" and n > 50:
        return sides / 2.0 * math.erfc(math.sqrt(n / 2.0))
    exact = min(1.0, sides * 2.0**-n)
    if test == "wilcoxon":
        return exact
    return max(exact, 1.0 / (n_permutations + 1))


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
        (e.g. 0.05). NaN where the input is NaN (with an
        ``UndefinedMetricWarning``); an empty array for an empty input.

    Raises
    ------
    InvalidParameterError
        Unknown ``method``.
    InputValidationError
        ``pvalues`` not 1-D, not numeric, or outside [0, 1] (infinity included).

    Warns
    -----
    UndefinedMetricWarning
        Some p-values are NaN: they stay NaN and are not counted among the
        tests (statsmodels' ``multipletests`` would spread NaN to every value,
        SciPy's ``false_discovery_control`` refuses them).

    See Also
    --------
    randomization_pvalues, student_pvalues, wilcoxon_pvalues : p-values to adjust.

    Notes
    -----
    With :math:`m` p-values sorted ascending, :math:`p_{(1)} \\le \\dots \\le p_{(m)}`:

    - Holm: :math:`\\tilde p_{(k)} = \\min(1, \\max_{i \\le k} (m - i + 1) p_{(i)})`;
    - Bonferroni: :math:`\\tilde p_i = \\min(1, m p_i)`;
    - Benjamini-Hochberg: :math:`\\tilde p_{(k)} = \\min(1, \\min_{i \\ge k} m p_{(i)} / i)`,
      rounded as :math:`p_{(i)} (m / i)`: the floats of SciPy's ``false_discovery_control``
      (statsmodels' ``fdr_bh`` divides by :math:`i / m`, one unit in the last place off at
      times); Holm and Bonferroni those of statsmodels' ``multipletests``; each on the
      p-values that are not NaN.

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
    >>> p = [0.01, 0.04, 0.03]
    >>> adjust_pvalues(p)
    array([0.03, 0.06, 0.06])
    >>> adjust_pvalues(p, method="bh")
    array([0.03, 0.04, 0.04])
    """
    func = "adjust_pvalues"
    v.check_option(method, "method", func, [*CORRECTIONS, None])
    p: np.ndarray = v.as_float(v.as_1d(pvalues, "pvalues", func), "pvalues", func).copy()
    valid = ~np.isnan(p)
    if not valid.all():
        warn(
            f"{func}: {p.size - valid.sum():,} of {v.counted(p.size, 'p-value')} "
            f"{v.verb(int(p.size - valid.sum()), 'is')} NaN (undefined tests): "
            f"they stay NaN and are not counted among the tests.",
            UndefinedMetricWarning,
        )
    q = p[valid]
    bad = (q < 0.0) | (q > 1.0)
    if bad.any():
        raise InputValidationError(
            f"{func}: pvalues must be in [0, 1] (or NaN for an undefined test). Got values "
            f"{v.format_values(distinct(q[bad]))}."
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
    else:  # Benjamini-Hochberg: running minimum from the largest p-value down
        order = np.argsort(q, kind="stable")
        scaled = q[order] * (k / np.arange(1, k + 1))  # p (m / i): SciPy's rounding
        steps = np.minimum.accumulate(scaled[::-1])[::-1]
        adjusted = np.empty(k)
        adjusted[order] = np.minimum(steps, 1.0)
    p[valid] = adjusted
    return p


def paired_pvalues(
    differences: ArrayLike,
    weights: ArrayLike | None = None,
    *,
    test: str = "randomization",
    alternative: str = "two-sided",
    n_permutations: int = 10_000,
    seed: int = 0,
) -> float | np.ndarray:
    """P-values of paired tests on per-user differences.

    Parameters
    ----------
    differences : array-like of shape (n_users,) or (n_users, n_columns)
        Per-user value of one model minus the other's, one column per
        comparison; ``nan`` leaves a user out of that column.
    weights : array-like of shape (n_users,) or (n_users, n_columns), default=None
        Non-negative weight of each user in the mean difference (``None``: all
        1); a weight of 0 leaves its user out, in every test. Only the
        randomization test takes unequal positive weights.
    test : {"randomization", "student", "wilcoxon"}, default="randomization"
        Fisher's randomization (sign-flip) test, the paired Student t-test
        (``scipy.stats.ttest_rel``) or the Wilcoxon signed-rank test
        (``scipy.stats.wilcoxon``, SciPy's defaults).
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        The alternative hypothesis, each test's own one-sided test (see
        :func:`randomization_pvalues`, :func:`student_pvalues` and
        :func:`wilcoxon_pvalues`): the Wilcoxon test's side is that of its
        signed ranks, the others' that of the mean difference.
    n_permutations : int, default=10_000
        Random sign flips of the randomization test.
    seed : int, default=0
        Seed of the randomization test; the same seed gives the same p-values.

    Returns
    -------
    pvalue : float or ndarray of shape (n_columns,)
        1.0 when every difference is 0 (identical models), one-sided too but
        for the t-test's 0.5. nan, with an
        ``UndefinedMetricWarning``, for a column the test cannot be run on:
        no user with a difference (and a positive weight), or, for the
        t-test, fewer than 2 users.

    Raises
    ------
    InvalidParameterError
        Unknown ``test`` or ``alternative``; unequal ``weights`` with a test other than the
        randomization test; ``n_permutations`` or ``seed`` out of range, or
        ``n_permutations`` times the users over 10**12 steps.
    InputValidationError
        ``differences`` empty (no user), not 1-D or 2-D, not numeric, or with
        infinity; bad ``weights`` (shape, negative, NaN or infinity), whatever
        the test.

    Warns
    -----
    UndefinedMetricWarning
        Some column's p-value is nan (see Returns).

    See Also
    --------
    randomization_pvalues, student_pvalues, wilcoxon_pvalues : The tests.
    adjust_pvalues : Corrections for multiple comparisons.

    Examples
    --------
    >>> from receval import paired_pvalues
    >>> d = [0.1, 0.2, 0.0, 0.3, 0.1, 0.2]
    >>> round(paired_pvalues(d, test="student"), 6)
    0.017225
    >>> paired_pvalues([0.0, 0.0, 0.0])
    1.0
    """
    return paired_pvalue_sides(differences, weights, test=test, sides=(alternative,),
                               n_permutations=n_permutations, seed=seed)[0]  # fmt: skip


def paired_pvalue_sides(
    differences: ArrayLike,
    weights: ArrayLike | None = None,
    *,
    test: str = "randomization",
    sides: tuple[str, ...] = ("less", "greater"),
    n_permutations: int = 10_000,
    seed: int = 0,
    func: str = "paired_pvalues",
) -> list[float | np.ndarray]:
    """:func:`paired_pvalues` of each alternative of ``sides`` (the randomization test
    draws its sign vectors once for all of them), its errors naming ``func``.

    Examples
    --------
    >>> from receval.comparison.significance import paired_pvalue_sides
    >>> [round(float(p), 4) for p in paired_pvalue_sides([0.1, 0.2, 0.3], test="student")]
    [0.9629, 0.0371]
    """
    v.check_option(test, "test", func, list(TESTS))
    for alternative in sides:
        v.check_option(alternative, "alternative", func, list(ALTERNATIVES))
    if test == "randomization":
        return randomization_test(differences, weights, n_permutations, seed, func, sides)
    unweighted = equally_weighted(differences, weights, test, func)
    run = _student if test == "student" else _wilcoxon
    return [run(unweighted, func, alternative) for alternative in sides]

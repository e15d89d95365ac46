"""DeLong's variance of the ROC AUC: confidence intervals and the paired test of two AUCs.

DeLong, DeLong and Clarke-Pearson (1988) write the AUC of each model as the mean
of its structural components, ``V10`` (one per positive: the share of negatives
it outscores, ties one half) and ``V01`` (one per negative: the share of
positives that outscore it), and estimate the covariance of the AUCs of models
scored on the same rows from the covariances of those components. Sun and Xu
(2014) compute the components from midranks in O(n log n) per model, without
the O(P N) pair loop.
"""

from __future__ import annotations

import math
from fractions import Fraction
from statistics import NormalDist
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from .. import _validation as v
from ..comparison.choices import check_count
from ..data._lookup import distinct
from ..exceptions import InputValidationError
from ._binary import warn_undefined

__all__ = [
    "AUCInterval",
    "DeLongTest",
    "delong_covariance",
    "delong_pairs",
    "delong_test",
    "roc_auc_ci",
]

METHODS = ("bootstrap", "delong")


class AUCInterval(NamedTuple):
    """The ROC AUC and a confidence interval: unpacks as ``(auc, low, high)``."""

    auc: float
    low: float
    high: float


class DeLongTest(NamedTuple):
    """DeLong's paired test of two correlated AUCs: unpacks as
    ``(auc_a, auc_b, statistic, pvalue, low, high)``; ``statistic`` is the z
    score of ``auc_a - auc_b``, ``pvalue`` of the alternative asked for, and
    ``low``, ``high`` the two-sided confidence interval of ``auc_a - auc_b``."""

    auc_a: float
    auc_b: float
    statistic: float
    pvalue: float
    low: float
    high: float


def midranks(x: np.ndarray, order: np.ndarray | None = None) -> np.ndarray:
    """1-based ranks of ``x`` in increasing order, tied values sharing their mean rank;
    ``order``, when given, sorts ``x`` (any order of equal values)."""
    if order is None:
        order = np.argsort(x)
    xs = x[order]
    n = len(x)
    starts = np.flatnonzero(np.concatenate(([True], xs[1:] != xs[:-1])))
    ends = np.append(starts[1:], n)
    out = np.empty(n)
    out[order] = np.repeat((starts + ends + 1) / 2.0, ends - starts)
    return out


def delong_covariance(
    labels: np.ndarray, scores: np.ndarray
) -> tuple[np.ndarray, np.ndarray, int, int]:
    """The AUCs of ``k`` models and DeLong's estimate of their covariance.

    Parameters
    ----------
    labels : ndarray of shape (n_samples,)
        0/1 labels (both present).
    scores : ndarray of shape (k, n_samples)
        Each model's finite scores.

    Returns
    -------
    aucs : ndarray of shape (k,)
    covariance : ndarray of shape (k, k)
        ``S10 / P + S01 / N``, the components' sample covariances (divisor
        ``P - 1`` and ``N - 1``); nan where ``P`` or ``N`` is below 2.
    n_pos, n_neg : int
    """
    is_pos = labels == 1
    m, n = int(is_pos.sum()), int((~is_pos).sum())
    k = scores.shape[0]
    v10, v01 = np.empty((k, m)), np.empty((k, n))
    aucs = np.empty(k)
    for r in range(k):
        x, y = scores[r, is_pos], scores[r, ~is_pos]
        z = np.concatenate([x, y])
        order = np.argsort(z)  # one sort: its positives and its negatives sort x and y
        tz = midranks(z, order)
        mx, my = midranks(x, order[order < m]), midranks(y, order[order >= m] - m)
        v10[r] = (tz[:m] - mx) / n  # negatives below each positive, ties 1/2
        v01[r] = 1.0 - (tz[m:] - my) / m  # positives above each negative
        aucs[r] = ranks_auc(tz[:m], n)
    if m < 2 or n < 2:
        return aucs, np.full((k, k), np.nan), m, n
    s10 = np.atleast_2d(np.cov(v10))
    s01 = np.atleast_2d(np.cov(v01))
    return aucs, s10 / m + s01 / n, m, n


def normal_pvalue(z: float) -> float:
    """Two-sided p-value of a standard normal z score: ``2 (1 - Phi(|z|))``."""
    return math.erfc(abs(z) / math.sqrt(2.0))


def _binary(
    y_true: Any, scores: dict[str, Any], func: str, pos_label: Any
) -> tuple[np.ndarray, np.ndarray]:
    yt = v.as_1d(y_true, "y_true", func)
    arrays = {name: v.as_1d(s, name, func) for name, s in scores.items()}
    n = v.check_same_length(func, y_true=yt, **arrays)
    v.check_not_empty(n, "y_true", func)
    labels, _ = v.binarize_labels(yt, pos_label, func)
    matrix = np.vstack([v.order_scores(a, name, func) for name, a in arrays.items()])
    return labels, matrix


def _one_class(labels: np.ndarray, func: str, what: str) -> bool:
    """Whether y_true has a single class (then warn that ``what`` undefined)."""
    one = int(labels.sum()) in (0, len(labels))
    if one:
        warn_undefined(f"{func}: y_true has a single class, so {what} undefined (returned as nan).")
    return one


def _too_few(m: int, n: int, func: str, what: str) -> bool:
    """Whether a class has fewer than 2 rows (then warn that ``what`` nan)."""
    if m < 2 or n < 2:
        warn_undefined(f"{func}: DeLong's variance needs at least 2 positives and 2 negatives. "
                       f"Got {m} and {n}; {what} nan.")  # fmt: skip
    return m < 2 or n < 2


def roc_auc_ci(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    confidence: float = 0.95,
    method: str = "delong",
    n_resamples: int = 2000,
    seed: int = 0,
    pos_label: Any = None,
) -> AUCInterval:
    """Compute the ROC AUC with a confidence interval.

    ``method="delong"``: ``auc +- z * se`` with DeLong's standard error (the
    normal quantile ``z`` of ``confidence``), clipped to [0, 1], as pROC's
    ``ci.auc(method="delong")``. ``method="bootstrap"``: the percentiles of the
    AUCs of ``n_resamples`` stratified resamples (positives and negatives drawn
    with replacement separately, so each keeps its count), as pROC's
    ``ci.auc(method="bootstrap")``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels: 0/1, bools, {-1, 1}, or any two labels with ``pos_label``.
    y_score : array-like of shape (n_samples,)
        Scores; only their order matters.
    confidence : float, default=0.95
        Coverage of the interval, in (0, 1).
    method : {"delong", "bootstrap"}, default="delong"
        How the interval is computed.
    n_resamples : int, default=2000
        Resamples of the bootstrap.
    seed : int, default=0
        Seed of the bootstrap; the same seed gives the same interval.
    pos_label : int, str or bool, default=None
        The positive class.

    Returns
    -------
    interval : AUCInterval
        ``(auc, low, high)``. All three nan with an ``UndefinedMetricWarning``
        when ``y_true`` has a single class; ``low`` and ``high`` nan (DeLong)
        when a class has a single sample.

    Raises
    ------
    InvalidParameterError
        ``confidence``, ``method``, ``n_resamples`` or ``seed`` out of range.
    InputValidationError
        NaN or infinite scores, labels that are not binary, lengths that differ,
        empty input.

    See Also
    --------
    delong_test : Whether two models' AUCs on the same rows differ.
    roc_auc_score : The AUC alone, with weights.

    Notes
    -----
    Sample weights are not taken. The DeLong variance is
    ``Var(V10) / P + Var(V01) / N`` from the structural components, computed from
    midranks in O(n log n) (Sun and Xu 2014); tied scores count one half.
    The bootstrap costs O(n log n) once and O(n) per resample.

    References
    ----------
    DeLong, E. R., DeLong, D. M. and Clarke-Pearson, D. L. (1988), "Comparing the
    areas under two or more correlated receiver operating characteristic
    curves: a nonparametric approach", Biometrics 44(3).
    Sun, X. and Xu, W. (2014), "Fast implementation of DeLong's algorithm for
    comparing the areas under correlated receiver operating characteristic
    curves", IEEE Signal Processing Letters 21(11).

    Examples
    --------
    >>> from receval import roc_auc_ci
    >>> y_true = [0, 0, 1, 1, 0, 1, 0, 1]
    >>> y_score = [0.1, 0.4, 0.35, 0.8, 0.7, 0.9, 0.2, 0.5]
    >>> auc, low, high = roc_auc_ci(y_true, y_score)
    >>> round(auc, 4), round(low, 4), round(high, 4)
    (0.8125, 0.4808, 1.0)
    """
    func = "roc_auc_ci"
    v.check_number(confidence, "confidence", func, low=0.0, high=1.0, low_inclusive=False,
                   high_inclusive=False)  # fmt: skip
    v.check_option(method, "method", func, list(METHODS))
    check_count(n_resamples, "n_resamples", func)  # bounded as the paired tests' replicates
    v.check_number(seed, "seed", func, integer=True, low=0)
    labels, matrix = _binary(y_true, {"y_score": y_score}, func, pos_label)
    nan = float("nan")
    if _one_class(labels, func, "the AUC is"):
        return AUCInterval(nan, nan, nan)
    if method == "bootstrap":
        return _bootstrap(labels, matrix[0], float(confidence), int(n_resamples), int(seed))
    aucs, cov, m, n = delong_covariance(labels, matrix)
    auc = float(aucs[0])
    if _too_few(m, n, func, "the interval is"):
        return AUCInterval(auc, nan, nan)
    z = NormalDist().inv_cdf(0.5 + confidence / 2.0)
    se = math.sqrt(max(float(cov[0, 0]), 0.0))
    return AUCInterval(auc, max(0.0, auc - z * se), min(1.0, auc + z * se))


def _bootstrap(
    labels: np.ndarray, scores: np.ndarray, confidence: float, n_resamples: int, seed: int
) -> AUCInterval:
    """Percentile interval of stratified resamples: a resample's AUC is
    ``sum_i c_i (below_i + tied_i / 2) / (P N)`` with ``c_i`` the draws of
    positive ``i`` and ``below_i``, ``tied_i`` the drawn negatives under and at its
    score (prefix sums of the negatives' draws, in score order), twice the sum an
    exact integer divided once by :func:`pairs_auc`, as the point AUC is: each
    replicate is the AUC of its resampled rows, to the bit."""
    pos, neg = scores[labels == 1], np.sort(scores[labels == 0])
    m, n = len(pos), len(neg)
    lo = np.searchsorted(neg, pos, "left")
    hi = np.searchsorted(neg, pos, "right")
    aucs = np.empty(n_resamples)
    rng = np.random.default_rng(seed)
    block = max(1, min(n_resamples, (1 << 22) // (m + n + 1)))
    for start in range(0, n_resamples, block):
        b = min(block, n_resamples - start)
        draws_pos = rng.integers(0, m, (b, m))
        draws_neg = rng.integers(0, n, (b, n))
        rows = np.arange(b)[:, None]
        c_pos = np.zeros((b, m), dtype=np.int64)
        np.add.at(c_pos, (rows, draws_pos), 1)
        c_neg = np.zeros((b, n + 1), dtype=np.int64)
        np.add.at(c_neg, (rows, draws_neg + 1), 1)
        cum = np.cumsum(c_neg, axis=1)  # cum[:, j]: drawn negatives among the j lowest
        below, upto = cum[:, lo], cum[:, hi]
        # twice U, in integers: at most 2 P N, below 2**63 for fewer than 2**31 rows
        two_u = (c_pos * (below + upto)).sum(axis=1)
        aucs[start : start + b] = [pairs_auc(int(t), m, n) for t in two_u.tolist()]
    auc = float(midranks_auc(pos, neg))
    low, high = np.quantile(aucs, [0.5 - confidence / 2.0, 0.5 + confidence / 2.0])
    return AUCInterval(auc, float(low), float(high))


def midranks_auc(pos: np.ndarray, neg: np.ndarray) -> float:
    """The AUC (ties one half) of positives' and negatives' scores, from midranks."""
    return ranks_auc(midranks(np.concatenate([pos, neg]))[: len(pos)], len(neg))


def ranks_auc(ranks: np.ndarray, n_neg: int) -> float:
    """The AUC of the positives of midranks ``ranks`` (among every row) against
    ``n_neg`` negatives: ``U / (P N)`` with ``U`` the sum of ``ranks`` less
    ``P (P + 1) / 2``, twice which is an exact integer (twice a midrank is one),
    divided by :func:`pairs_auc` as :func:`receval.roc_auc_score` divides it."""
    m = len(ranks)
    # twice the ranks are integers below 2 (P + N), their sum below 2**63 for fewer
    # than 2**31 rows
    two_u = int((2.0 * ranks).astype(np.int64).sum()) - m * (m + 1)
    return pairs_auc(two_u, m, n_neg)


def pairs_auc(two_u: int, n_pos: int, n_neg: int) -> float:
    """The AUC ``U / (P N)`` of twice the Mann-Whitney count ``two_u`` (pairs a positive
    wins count 2, ties 1) over ``n_pos`` positives and ``n_neg`` negatives: the
    exact rational number rounded once (floats would round ``P N`` and ``2 U`` past
    ``2**53`` before the division). The point AUC and every bootstrap replicate.

    Examples
    --------
    >>> pairs_auc(3, 2, 1)
    0.75
    """
    return float(Fraction(two_u, 2 * n_pos * n_neg))


def delong_test(
    y_true: ArrayLike,
    score_a: ArrayLike,
    score_b: ArrayLike,
    *,
    alternative: str = "two-sided",
    confidence: float = 0.95,
    pos_label: Any = None,
) -> DeLongTest:
    """Test whether two models' ROC AUCs on the same rows differ (DeLong's test).

    The paired test of DeLong et al. (1988): ``z = (AUC_a - AUC_b) /
    sqrt(Var_a + Var_b - 2 Cov_ab)``, the covariance from the structural
    components of both models on the same positives and negatives;
    ``p = 2 (1 - Phi(|z|))`` two-sided, ``1 - Phi(z)`` for ``"greater"`` and
    ``Phi(z)`` for ``"less"``; the interval of the difference is
    ``AUC_a - AUC_b -/+ q sqrt(Var)``, ``q`` the normal quantile of
    ``confidence`` (two-sided whatever the alternative). pROC's
    ``roc.test(method="delong", paired=TRUE)``, whose own test values it
    reproduces (statistic, p-values and interval).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels: 0/1, bools, {-1, 1}, or any two labels with ``pos_label``.
    score_a, score_b : array-like of shape (n_samples,)
        The two models' scores of the same rows.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        The alternative hypothesis: the AUCs differ, ``auc_a`` is greater, or
        ``auc_a`` is less (SciPy's names; pROC's ``"two.sided"``).
    confidence : float, default=0.95
        Level of the interval of ``auc_a - auc_b``, in (0, 1).
    pos_label : int, str or bool, default=None
        The positive class.

    Returns
    -------
    result : DeLongTest
        ``(auc_a, auc_b, statistic, pvalue, low, high)``. When the variance of
        the difference is 0 (identical rankings): ``statistic`` 0 and ``pvalue``
        1 if the AUCs are equal, else infinite and 0 (or 1, against the
        difference's side), and the interval the difference itself. nan with an
        ``UndefinedMetricWarning`` when ``y_true`` has a single class, or (the
        statistic and p-value) when a class has a single sample.

    Raises
    ------
    InputValidationError
        NaN or infinite scores, labels that are not binary, lengths that differ,
        empty input.
    InvalidParameterError
        ``alternative`` not one of the three, ``confidence`` outside (0, 1).

    See Also
    --------
    roc_auc_ci : One model's AUC with an interval.
    compare_predictions : Several models at once, with corrections.

    Notes
    -----
    O(n log n): midranks (Sun and Xu 2014). Sample weights are not taken.

    Examples
    --------
    >>> from receval import delong_test
    >>> y_true = [0, 0, 1, 1, 0, 1, 0, 1]
    >>> a = [0.1, 0.4, 0.35, 0.8, 0.7, 0.9, 0.2, 0.5]
    >>> b = [0.3, 0.2, 0.6, 0.4, 0.5, 0.7, 0.1, 0.3]
    >>> auc_a, auc_b, z, p, low, high = delong_test(y_true, a, b)
    >>> round(auc_a, 4), round(auc_b, 4), round(z, 4), round(p, 4)
    (0.8125, 0.8438, -0.1715, 0.8638)
    >>> round(low, 4), round(high, 4)
    (-0.3884, 0.3259)
    """
    func = "delong_test"
    v.check_option(alternative, "alternative", func, _ALTERNATIVES)
    v.check_number(confidence, "confidence", func, low=0.0, high=1.0, low_inclusive=False,
                   high_inclusive=False)  # fmt: skip
    labels, matrix = _binary(y_true, {"score_a": score_a, "score_b": score_b}, func, pos_label)
    nan = float("nan")
    if _one_class(labels, func, "the AUCs are"):
        return DeLongTest(nan, nan, nan, nan, nan, nan)
    aucs, cov, m, n = delong_covariance(labels, matrix)
    if _too_few(m, n, func, "the statistic, p-value and interval are"):
        return DeLongTest(float(aucs[0]), float(aucs[1]), nan, nan, nan, nan)
    difference = float(aucs[0] - aucs[1])
    z = pair_statistic(difference, cov, 0, 1)
    if alternative == "two-sided":
        p = normal_pvalue(z)
    else:
        p = NormalDist().cdf(-z if alternative == "greater" else z)
    half = NormalDist().inv_cdf(0.5 + confidence / 2.0) * _spread(cov, 0, 1)
    return DeLongTest(float(aucs[0]), float(aucs[1]), z, p, difference - half, difference + half)


_ALTERNATIVES = ["two-sided", "greater", "less"]


def _spread(covariance: np.ndarray, a: int, b: int) -> float:
    """The standard deviation of ``AUC_a - AUC_b``, from DeLong's covariance of the AUCs:
    0 when the two rankings agree (its variance ``C_aa + C_bb - 2 C_ab`` below
    ``1e-12 (C_aa + C_bb)``, rounding)."""
    scale = float(covariance[a, a] + covariance[b, b])
    variance = scale - 2.0 * float(covariance[a, b])
    return math.sqrt(variance) if variance > 1e-12 * scale else 0.0


def pair_statistic(difference: float, covariance: np.ndarray, a: int, b: int) -> float:
    """z of ``AUC_a - AUC_b`` (0 for equal AUCs, else infinite, where the rankings agree)."""
    spread = _spread(covariance, a, b)
    if spread == 0:
        return 0.0 if difference == 0 else math.copysign(math.inf, difference)
    return difference / spread


def check_paired_labels(labels: np.ndarray, func: str, metric: str) -> None:
    """Raise unless the labels hold both classes (the global AUC's comparison needs both);
    ``metric``: the AUC as the caller named it."""
    n_pos = int(labels.sum())
    if n_pos == 0 or n_pos == len(labels):
        raise InputValidationError(
            f"{func}: {metric!r} is compared by DeLong's test, which needs both classes in "
            f"y_true. Got only {v.format_values(distinct(labels))}; compare on rows with both "
            f"clicks and non-clicks."
        )


def delong_pairs(
    y_true: Any,
    y_scores: dict[str, Any],
    pairs: list[tuple[str, str]],
    func: str,
    *,
    metric: str,
    confidence: float,
    alpha: float,
    correction: str | None,
    higher: bool,
) -> tuple[dict[str, float], dict[str, np.ndarray]]:
    """DeLong's paired test of the global ROC AUC for each (model, versus) pair, as
    the rows of a comparison table (:class:`receval.ComparisonReport`).

    Returns each model's AUC and the columns of
    :func:`receval.comparison.table.comparison_columns`: the interval is the
    normal one of the difference with DeLong's variance at ``confidence``, the
    p-value two-sided, the effect size nan, ``n_users`` the rows (the unit is the
    impression) and ``p_min`` 0 (a normal test)."""
    from ..comparison.table import comparison_columns

    labels, matrix = _binary(y_true, y_scores, func, None)
    check_paired_labels(labels, func, metric)
    aucs, cov, m, n = delong_covariance(labels, matrix)
    index = {name: i for i, name in enumerate(y_scores)}
    quantile = NormalDist().inv_cdf(0.5 + confidence / 2.0)
    diff, z, se = np.empty(len(pairs)), np.full(len(pairs), np.nan), np.full(len(pairs), np.nan)
    for j, (name, versus) in enumerate(pairs):
        a, b = index[name], index[versus]
        diff[j] = aucs[a] - aucs[b]
        if m >= 2 and n >= 2:
            z[j] = pair_statistic(float(diff[j]), cov, a, b)
            se[j] = math.sqrt(max(float(cov[a, a] + cov[b, b] - 2.0 * cov[a, b]), 0.0))
    p = np.array([normal_pvalue(float(x)) for x in z])
    low, high = diff - quantile * se, diff + quantile * se
    block = comparison_columns([(metric, a, b) for a, b in pairs], diff, p, correction=correction,
                               alpha=alpha, higher={metric: higher}, n_users=len(labels),
                               p_min=0.0,  # a normal test: any p-value can be reached
                               ci_low=low, ci_high=high)  # fmt: skip
    return {name: float(aucs[i]) for name, i in index.items()}, block

"""XAUC by the O(n^2) loop over every pair of rows (its definition)."""

from __future__ import annotations

import math
from fractions import Fraction


def pair_xauc(y_true, y_score, sample_weight=None):
    """The weighted share of the pairs with different targets that the scores order as
    the targets do, a tie in scores counting one half; exact (a Fraction) for
    rational weights, nan when no pair has different targets."""
    y = [float(v) for v in y_true]
    s = [float(v) for v in y_score]
    w = [1] * len(y) if sample_weight is None else [Fraction(float(v)) for v in sample_weight]
    num = Fraction(0)
    den = Fraction(0)
    for i in range(len(y)):
        for j in range(len(y)):
            if not y[i] > y[j]:  # each pair once, as (greater target, smaller target)
                continue
            pair = w[i] * w[j]
            den += pair
            if s[i] > s[j]:
                num += pair
            elif s[i] == s[j]:
                num += pair / 2
    return num / den if den > 0 else math.nan


def pair_grouped_xauc(y_true, y_score, groups, sample_weight=None):
    """Grouped XAUC by the pair loop: each group's XAUC weighted by its total weight
    (its rows without weights), groups without a pair of different targets left out."""
    w = [1.0] * len(y_true) if sample_weight is None else [float(v) for v in sample_weight]
    total = Fraction(0)
    weight = Fraction(0)
    for g in sorted(set(groups)):
        rows = [i for i, h in enumerate(groups) if h == g]
        value = pair_xauc([y_true[i] for i in rows], [y_score[i] for i in rows],
                          [w[i] for i in rows])  # fmt: skip
        group_weight = sum(Fraction(w[i]) for i in rows)
        if isinstance(value, float) or group_weight == 0:
            continue
        total += value * group_weight
        weight += group_weight
    return float(total / weight) if weight > 0 else math.nan


def pair_regression_auc(y_true, y_score):
    """TorchRec's RAUC by the pair loop: 1 - the pairs the scores invert (``s_i < s_j``
    while ``y_i > y_j``) over all pairs of rows; exact (a Fraction)."""
    y = [float(v) for v in y_true]
    s = [float(v) for v in y_score]
    n = len(y)
    inverted = sum(1 for i in range(n) for j in range(n) if s[i] < s[j] and y[i] > y[j])
    return 1 - Fraction(inverted, n * (n - 1) // 2) if n > 1 else math.nan


def pair_in_order_auc(y_true, y_score):
    """XGBoost's AUC of one query group by its own loop: the rows sorted stably by target
    descending, every pair (i before j) counting 1 when ``s_i > s_j`` and one half when
    equal, over all n (n - 1) / 2 pairs; exact (a Fraction), nan below two rows."""
    order = sorted(range(len(y_true)), key=lambda i: -float(y_true[i]))  # stable
    s = [float(y_score[i]) for i in order]
    n = len(s)
    credit = sum(Fraction(int(s[i] > s[j]) * 2 + int(s[i] == s[j]), 2)
                 for i in range(n) for j in range(i + 1, n))  # fmt: skip
    return credit / (n * (n - 1) // 2) if n > 1 else math.nan


def pair_probability_auc(y_true, y_score, sample_weight=None):
    """The AUC of targets read as probabilities: each row of target t and weight w a
    positive of weight t w and a negative of weight (1 - t) w, over every (positive,
    negative) pair, a row's own two halves included, a tie one half; exact."""
    t = [Fraction(float(v)) for v in y_true]
    s = [float(v) for v in y_score]
    w = [Fraction(1)] * len(t) if sample_weight is None else [Fraction(float(v))
                                                              for v in sample_weight]  # fmt: skip
    num = den = Fraction(0)
    for i in range(len(t)):
        for j in range(len(t)):
            pair = t[i] * w[i] * (1 - t[j]) * w[j]
            den += pair
            num += pair if s[i] > s[j] else pair / 2 if s[i] == s[j] else 0
    return num / den if den > 0 else math.nan


def pair_grouped_mean(value, y_true, y_score, groups, *, min_rows=1, empty=None,
                      weighting="uniform", **kwargs):  # fmt: skip
    """The mean over groups (of ``min_rows`` rows or more) of ``value`` of each group's
    rows, weighted by 1 or by the group's rows; a group whose value is nan is left out,
    or counts ``empty``."""
    total = weight = Fraction(0)
    for g in sorted(set(groups)):
        rows = [i for i, h in enumerate(groups) if h == g]
        if len(rows) < min_rows:
            continue
        extra = {k: [v[i] for i in rows] for k, v in kwargs.items() if v is not None}
        got = value([y_true[i] for i in rows], [y_score[i] for i in rows], **extra)
        if isinstance(got, float) and math.isnan(got):
            if empty is None:
                continue
            got = Fraction(empty)
        size = Fraction(1) if weighting == "uniform" else Fraction(len(rows))
        total += got * size
        weight += size
    return float(total / weight) if weight > 0 else math.nan

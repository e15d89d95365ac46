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

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

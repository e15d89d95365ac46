"""Slow, obviously correct references for the score-based pointwise metrics.

Each follows the textbook definition with Python loops: the O(M*N) pair loop
of seed 001 for AUC, a threshold-by-threshold sweep for curves, a loop over
groups for GAUC.
"""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import pairwise

import numpy as np


def pair_auc(y_true, y_score, sample_weight=None):
    """AUC by enumerating every (positive, negative) pair; ties count 1/2."""
    y = [int(v) for v in y_true]
    s = [float(v) for v in y_score]
    w = [1.0] * len(y) if sample_weight is None else [float(v) for v in sample_weight]
    num = 0.0
    den = 0.0
    for i in range(len(y)):
        if y[i] != 1:
            continue
        for j in range(len(y)):
            if y[j] != 0:
                continue
            pair = w[i] * w[j]
            den += pair
            if s[i] > s[j]:
                num += pair
            elif s[i] == s[j]:
                num += 0.5 * pair
    return num / den if den > 0 else math.nan


def sweep(y_true, y_score, sample_weight=None):
    """(thresholds desc, tps, fps) by counting at every distinct score with nonzero weight."""
    y = np.asarray(y_true)
    s = np.asarray(y_score, dtype=float)
    w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    keep = w != 0
    thresholds = sorted(set(s[keep].tolist()), reverse=True)
    tps, fps = [], []
    for t in thresholds:
        tps.append(sum(w[i] for i in range(len(y)) if s[i] >= t and y[i] == 1))
        fps.append(sum(w[i] for i in range(len(y)) if s[i] >= t and y[i] == 0))
    return np.array(thresholds), np.array(tps, dtype=float), np.array(fps, dtype=float)


def average_precision(y_true, y_score, sample_weight=None):
    _, tps, fps = sweep(y_true, y_score, sample_weight)
    if tps[-1] == 0:
        return math.nan
    ap = 0.0
    prev_recall = 0.0
    for tp, fp in zip(tps, fps, strict=True):
        recall = tp / tps[-1]
        ap += (recall - prev_recall) * (tp / (tp + fp))
        prev_recall = recall
    return ap


def pr_auc_trapezoid(y_true, y_score, sample_weight=None):
    """Spark's areaUnderPR: trapezoids from (0, first precision)."""
    _, tps, fps = sweep(y_true, y_score, sample_weight)
    if tps[-1] == 0:
        return math.nan
    points = [(tp / tps[-1], tp / (tp + fp)) for tp, fp in zip(tps, fps, strict=True)]
    points = [(0.0, points[0][1]), *points]
    return sum((r1 - r0) * (p0 + p1) / 2 for (r0, p0), (r1, p1) in pairwise(points))


def exact_sweep(y_true, y_score, sample_weight):
    """``(tps, fps)`` in exact rationals at every distinct score of nonzero weight, from
    the highest down: weights of any scale (1e-300 beside 1e300) keep every bit."""
    y, s, w = exact(y_true, y_score, sample_weight)
    thresholds = sorted({si for si, wi in zip(s, w, strict=True) if wi}, reverse=True)
    tps, fps = [], []
    for t in thresholds:
        tps.append(sum(wi for yi, si, wi in zip(y, s, w, strict=True) if si >= t and yi == 1))
        fps.append(sum(wi for yi, si, wi in zip(y, s, w, strict=True) if si >= t and yi == 0))
    return tps, fps


def pair_auc_exact(y_true, y_score, sample_weight):
    """:func:`pair_auc` in exact rationals, rounded once (weights of any scale)."""
    y, s, w = exact(y_true, y_score, sample_weight)
    pairs = [(wi * wj, si, sj) for yi, si, wi in zip(y, s, w, strict=True) if yi == 1
             for yj, sj, wj in zip(y, s, w, strict=True) if yj == 0]  # fmt: skip
    den = sum(pair for pair, _, _ in pairs)
    won = [1 if si > sj else Fraction(1, 2) if si == sj else 0 for _, si, sj in pairs]
    num = sum(pair * c for (pair, _, _), c in zip(pairs, won, strict=True))
    return float(num / den) if den else math.nan


def sweep_auc_exact(y_true, y_score, sample_weight):
    """:func:`pair_auc_exact` by one sweep over the distinct scores, ascending (thousands
    of rows): each positive weighs the negatives' weight below its score plus half
    that at it; ``2U / (2 P N)`` in exact rationals, rounded once."""
    return auc_of_rationals(*exact(y_true, y_score, sample_weight))


def rounded_product(a, b):
    """``a * b`` of two floats in exact rationals, rounded once to 53 significant bits
    (half to even) at any exponent: float64's product where that is a normal float,
    and without underflow below it (a Fraction)."""
    x = Fraction(a) * Fraction(b)
    if x == 0:
        return x
    e = x.numerator.bit_length() - x.denominator.bit_length()  # 2**(e - 1) < x < 2**(e + 1)
    if Fraction(2) ** e > x:
        e -= 1  # now 2**e <= x < 2**(e + 1)
    scale = Fraction(2) ** (52 - e)  # x * scale in [2**52, 2**53)
    return round(x * scale) / scale  # Fraction's round: half to even


def auc_of_rationals(y, s, w):
    """The AUC of labels, scores and exact weights (Fractions, ints): the sweep of
    :func:`sweep_auc_exact`, rounded once."""
    at = {}  # score: (positives' weight, negatives' weight) there
    for yi, si, wi in zip(y, s, w, strict=True):
        pos, neg = at.get(si, (0, 0))
        at[si] = (pos + wi, neg) if yi == 1 else (pos, neg + wi)
    two_u = below = positives = Fraction(0)
    for score in sorted(at):
        pos, neg = at[score]
        two_u += pos * (2 * below + neg)
        below += neg
        positives += pos
    pairs = positives * below
    return float(two_u / (2 * pairs)) if pairs else math.nan


def average_precision_exact(y_true, y_score, sample_weight):
    """:func:`average_precision` in exact rationals, rounded once."""
    tps, fps = exact_sweep(y_true, y_score, sample_weight)
    if not tps or tps[-1] == 0:
        return math.nan
    steps = zip([Fraction(0), *tps[:-1]], tps, fps, strict=True)
    return float(sum((tp - before) / tps[-1] * tp / (tp + fp) for before, tp, fp in steps))


def scaled_group_weights(weights):
    """A group's weights as a metric of their ratios scales them: as given (a power of
    two leaves the ratios alone) unless their sum, at the shift that keeps the least
    positive one normal, reaches ``2**1024 (1 - 2**-10)``; then each divided by
    ``2**e`` in exact rationals (``e`` the exponent of the largest, brought into
    [0.5, 1)) and rounded once to float64, subnormal or 0 below ``2**-1022``."""
    top = max(weights)
    if top == 0:
        return list(weights)
    e = math.frexp(top)[1]
    least = min(x for x in weights if x > 0)
    kept = min(e, max(math.frexp(least)[1] + 1021, 0))
    total = sum(Fraction(x) for x in weights) / Fraction(2) ** kept
    if total < 2**1024 * (1 - Fraction(1, 1024)):
        return list(weights)
    return [float(Fraction(x) / Fraction(2) ** e) for x in weights]


def grouped_average_precision_exact(y_true, y_score, groups, sample_weight):
    """The mean over groups with a positive weight of :func:`average_precision_exact`
    of each group's rows, their weights scaled by :func:`scaled_group_weights`; nan
    without such a group."""
    g = list(groups)
    values = []
    for key in dict.fromkeys(g):
        rows = [i for i, x in enumerate(g) if x == key]
        w = scaled_group_weights([float(sample_weight[i]) for i in rows])
        y, s = [y_true[i] for i in rows], [y_score[i] for i in rows]
        if any(wi > 0 and yi == 1 for wi, yi in zip(w, y, strict=True)):
            values.append(average_precision_exact(y, s, w))
    return math.fsum(values) / len(values) if values else math.nan


def pr_auc_exact(y_true, y_score, sample_weight):
    """:func:`pr_auc_trapezoid` in exact rationals, rounded once."""
    tps, fps = exact_sweep(y_true, y_score, sample_weight)
    if not tps or tps[-1] == 0:
        return math.nan
    points = [(tp / tps[-1], tp / (tp + fp)) for tp, fp in zip(tps, fps, strict=True)]
    points = [(Fraction(0), points[0][1]), *points]
    return float(sum((r1 - r0) * (p0 + p1) / 2 for (r0, p0), (r1, p1) in pairwise(points)))


def break_even_exact(y_true, y_score, sample_weight):
    """The point where precision equals recall, interpolated linearly between the
    thresholds around the weight of all positives (as :func:`break_even_expected` for
    unit weights), in exact rationals, rounded once."""
    tps, fps = exact_sweep(y_true, y_score, sample_weight)
    if not tps or tps[-1] == 0:
        return math.nan
    total, tp0, pred0 = tps[-1], Fraction(0), Fraction(0)
    for tp, fp in zip(tps, fps, strict=True):
        if tp + fp >= total:
            return float((tp0 + (total - pred0) / (tp + fp - pred0) * (tp - tp0)) / total)
        tp0, pred0 = tp, tp + fp
    raise AssertionError("the last threshold predicts every row")


def break_even_expected(y_true, y_score):
    """Expected precision@R over random orders of tied scores (unweighted), by averaging
    over the block containing the cut-off."""
    y = np.asarray(y_true)
    s = np.asarray(y_score, dtype=float)
    r = int(y.sum())
    if r == 0:
        return math.nan
    hits = 0.0
    taken = 0
    for t in sorted(set(s.tolist()), reverse=True):
        block = y[s == t]
        if taken + len(block) <= r:
            hits += block.sum()
            taken += len(block)
        else:
            need = r - taken
            hits += need * block.mean()  # each tied row is in the top `need` w.p. need/len
            taken = r
        if taken == r:
            break
    return hits / r


def gauc(y_true, y_score, groups, weighting="impressions", sample_weight=None):
    """Loop over groups; each group's AUC by the pair loop; single-class groups skipped."""
    y = np.asarray(y_true)
    s = np.asarray(y_score, dtype=float)
    g = np.asarray(groups)
    w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    num = den = 0.0
    for key in dict.fromkeys(g.tolist()):
        m = g == key
        auc = pair_auc(y[m], s[m], w[m])
        if math.isnan(auc):
            continue
        if weighting == "impressions":
            gw = w[m].sum()
        elif weighting == "clicks":
            gw = w[m][y[m] == 1].sum()
        elif weighting == "uniform":
            gw = 1.0
        else:
            gw = weighting[key]
        num += gw * auc
        den += gw
    return num / den if den > 0 else math.nan


def group_aucs_exact(y_true, y_score, groups, sample_weight):
    """Each group's AUC (groups in order of first appearance) by :func:`sweep_auc_exact`
    on its rows alone: exact rationals rounded once, nan without a weight of each label."""
    g = np.asarray(groups).tolist()
    out = []
    for key in dict.fromkeys(g):
        rows = [i for i, x in enumerate(g) if x == key]
        out.append(
            sweep_auc_exact(*([c[i] for i in rows] for c in (y_true, y_score, sample_weight)))
        )
    return np.array(out)


def gauc_skips_by_segment(y_true, groups, segments):
    """Per segment label: (groups with rows in it, those of one class there, their rows),
    by a pandas group-by of the segment's rows."""
    import pandas as pd

    frame = pd.DataFrame({"y": y_true, "group": groups, "segment": segments})
    out = {}
    for label, rows in frame.groupby("segment", sort=True):
        per_group = rows.groupby("group")["y"].agg(["nunique", "size"])
        one_class = per_group[per_group["nunique"] < 2]
        out[label] = (len(per_group), len(one_class), int(one_class["size"].sum()))
    return out


EPS = float(np.finfo(float).eps)


def log_loss(y_true, p, sample_weight=None, eps=EPS):
    w = np.ones(len(y_true)) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    total = 0.0
    for yi, pi, wi in zip(y_true, p, w, strict=True):
        q = pi if yi == 1 else 1 - pi
        q = min(max(q, eps), 1 - eps)
        total -= wi * math.log(q)
    return total / w.sum()


def pcoc(y_true, p, sample_weight=None):
    w = np.ones(len(y_true)) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    predicted = sum(wi * pi for pi, wi in zip(p, w, strict=True))
    clicks = sum(wi for yi, wi in zip(y_true, w, strict=True) if yi == 1)
    return predicted / clicks if clicks else math.nan


def ece(y_true, p, n_bins, sample_weight=None):
    """Uniform bins (lo, hi], the first including 0."""
    w = np.ones(len(y_true)) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    edges = np.linspace(0, 1, n_bins + 1)
    total = 0.0
    for b in range(n_bins):
        members = [
            i
            for i, pi in enumerate(p)
            if (pi > edges[b] or b == 0) and (pi <= edges[b + 1] or b == n_bins - 1)
        ]
        if not members:
            continue
        acc = sum(w[i] * y_true[i] for i in members)
        conf = sum(w[i] * p[i] for i in members)
        total += abs(acc - conf)
    return total / w.sum()


def exact(*columns):
    """Each column's values as exact rationals (the Fractions of their floats)."""
    return ([Fraction(float(v)) for v in c] for c in columns)


def _spread(x, w):
    """The weighted sum of squared deviations from the weighted mean."""
    mean = sum(a * c for a, c in zip(x, w, strict=True)) / sum(w)
    return sum(c * (a - mean) ** 2 for a, c in zip(x, w, strict=True))


def _one_minus(numerator, denominator):
    """1 - numerator / denominator, rounded once (scikit-learn's force_finite rule for
    a constant y_true)."""
    if denominator == 0:
        return 1.0 if numerator == 0 else 0.0
    value = 1 - numerator / denominator
    try:
        return float(value)
    except OverflowError:  # rounded once: an infinity past the float range
        return math.inf if value > 0 else -math.inf


def r2(y_true, y_pred, sample_weight=None):
    """1 - SSE / SST in exact arithmetic."""
    w = np.ones(len(y_true)) if sample_weight is None else sample_weight
    y, p, w = exact(y_true, y_pred, w)
    return _one_minus(sum(c * (a - b) ** 2 for a, b, c in zip(y, p, w, strict=True)), _spread(y, w))


def explained_variance(y_true, y_pred, sample_weight=None):
    """1 - Var(y - p) / Var(y) in exact arithmetic."""
    w = np.ones(len(y_true)) if sample_weight is None else sample_weight
    y, p, w = exact(y_true, y_pred, w)
    return _one_minus(_spread([a - b for a, b in zip(y, p, strict=True)], w), _spread(y, w))


def brier(y_true, p, sample_weight=None):
    """The weighted mean of (p - y)^2 in exact arithmetic, rounded once."""
    w = np.ones(len(y_true)) if sample_weight is None else sample_weight
    y, p, w = exact(y_true, p, w)
    return float(sum(c * (b - a) ** 2 for a, b, c in zip(y, p, w, strict=True)) / sum(w))


def ece_exact(y_true, p, n_bins, sample_weight):
    """:func:`ece` in exact arithmetic, rounded once (weights of any scale)."""
    edges = np.linspace(0, 1, n_bins + 1)
    y, q, w = exact(y_true, p, sample_weight)
    total = Fraction(0)
    for b in range(n_bins):
        members = [
            i
            for i, pi in enumerate(p)
            if (pi > edges[b] or b == 0) and (pi <= edges[b + 1] or b == n_bins - 1)
        ]
        total += abs(sum(w[i] * (y[i] - q[i]) for i in members))
    return float(total / sum(w))


def mean_errors_exact(y_true, y_pred, sample_weight):
    """``(mean squared error, mean absolute error)`` in exact rationals, unrounded."""
    y, p, w = exact(y_true, y_pred, sample_weight)
    total = sum(w)
    squared = sum(c * (a - b) ** 2 for a, b, c in zip(y, p, w, strict=True)) / total
    absolute = sum(c * abs(a - b) for a, b, c in zip(y, p, w, strict=True)) / total
    return squared, absolute


def mean_errors(y_true, y_pred, sample_weight):
    """:func:`mean_errors_exact`, each rounded once (RMSE is the square root of the
    first)."""
    squared, absolute = mean_errors_exact(y_true, y_pred, sample_weight)
    return float(squared), float(absolute)

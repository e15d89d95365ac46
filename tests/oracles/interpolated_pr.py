"""The area under Davis and Goadrich's precision-recall curve by numerical quadrature
of its definition (XGBoost's ``aucpr`` of one query group)."""

from __future__ import annotations

import itertools
import math

from scipy.integrate import quad


def davis_goadrich_auprc(y_true, y_score, sample_weight=None):
    """Between two consecutive thresholds (tied scores one threshold; the origin
    before the first), each unit of true positives gained brings ``h`` false positives
    (``h`` the segment's ratio): precision along the segment is
    ``(tp_a + t) / (tp_a + t + fp_a + h t)`` at ``t`` true positives past the lower
    end, and the area is its integral over recall ``t / P``. nan without a positive
    or without a negative."""
    w = [1.0] * len(y_true) if sample_weight is None else [float(x) for x in sample_weight]
    total_pos = sum(wi for yi, wi in zip(y_true, w, strict=True) if yi == 1)
    total_neg = sum(wi for yi, wi in zip(y_true, w, strict=True) if yi == 0)
    if total_pos <= 0 or total_neg <= 0:
        return math.nan
    points = [(0.0, 0.0)]
    for t in sorted(set(y_score), reverse=True):
        rows = [i for i, s in enumerate(y_score) if s >= t]
        points.append((sum(w[i] for i in rows if y_true[i] == 1),
                       sum(w[i] for i in rows if y_true[i] == 0)))  # fmt: skip
    area = 0.0
    for (tp_a, fp_a), (tp_b, fp_b) in itertools.pairwise(points):
        if tp_b == tp_a:
            continue  # recall does not move
        h = (fp_b - fp_a) / (tp_b - tp_a)

        def precision(t, tp_a=tp_a, fp_a=fp_a, h=h):
            return (tp_a + t) / (tp_a + t + fp_a + h * t)

        area += quad(precision, 0.0, tp_b - tp_a, epsabs=1e-14, epsrel=1e-13)[0] / total_pos
    return area


def grouped_davis_goadrich_auprc(y_true, y_score, groups):
    """The mean over the groups with both classes (XGBoost's ``aucpr``)."""
    values = []
    for g in sorted(set(groups)):
        rows = [i for i, h in enumerate(groups) if h == g]
        value = davis_goadrich_auprc([y_true[i] for i in rows], [y_score[i] for i in rows])
        if not math.isnan(value):
            values.append(value)
    return sum(values) / len(values) if values else math.nan

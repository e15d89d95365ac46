"""Slow, obviously correct DeLong variance: the structural components by explicit pair loops.

DeLong, DeLong and Clarke-Pearson (1988): for positives X_i (m of them) and
negatives Y_j (n), psi(x, y) = 1 if x > y, 1/2 if x = y, else 0;
V10_i = mean_j psi(X_i, Y_j), V01_j = mean_i psi(X_i, Y_j); AUC = mean_i V10_i;
Cov(AUC_r, AUC_s) = S10_rs / m + S01_rs / n with S the sample covariances
(divisor m - 1, n - 1) of the components of models r and s.
"""

from __future__ import annotations

import math
from statistics import NormalDist


def _psi(x: float, y: float) -> float:
    return 1.0 if x > y else 0.5 if x == y else 0.0


def _cov(a: list[float], b: list[float]) -> float:
    ma, mb = sum(a) / len(a), sum(b) / len(b)
    return sum((x - ma) * (y - mb) for x, y in zip(a, b, strict=True)) / (len(a) - 1)


def components(y_true, scores):
    """(V10, V01) of each model: lists of lists, by pair loops."""
    y = [int(v) for v in y_true]
    v10, v01 = [], []
    for s in scores:
        pos = [float(s[i]) for i in range(len(y)) if y[i] == 1]
        neg = [float(s[i]) for i in range(len(y)) if y[i] == 0]
        v10.append([sum(_psi(x, t) for t in neg) / len(neg) for x in pos])
        v01.append([sum(_psi(x, t) for x in pos) / len(pos) for t in neg])
    return v10, v01


def delong(y_true, scores):
    """(aucs, covariance matrix) of the models' AUCs."""
    v10, v01 = components(y_true, scores)
    m, n = len(v10[0]), len(v01[0])
    aucs = [sum(c) / m for c in v10]
    k = len(scores)
    cov = [[_cov(v10[r], v10[s]) / m + _cov(v01[r], v01[s]) / n for s in range(k)]
           for r in range(k)]  # fmt: skip
    return aucs, cov


def delong_test(y_true, a, b, alternative="two-sided", confidence=0.95):
    """(auc_a, auc_b, z, p, low, high) of DeLong's paired test: p of the alternative,
    low and high the two-sided interval of auc_a - auc_b."""
    (auc_a, auc_b), c = delong(y_true, [a, b])
    sd = math.sqrt(c[0][0] + c[1][1] - 2 * c[0][1])
    z = (auc_a - auc_b) / sd
    p = {
        "two-sided": 2 * (1 - NormalDist().cdf(abs(z))),
        "greater": 1 - NormalDist().cdf(z),
        "less": NormalDist().cdf(z),
    }[alternative]
    q = NormalDist().inv_cdf(0.5 + confidence / 2)
    return auc_a, auc_b, z, p, auc_a - auc_b - q * sd, auc_a - auc_b + q * sd


def delong_interval(y_true, s, confidence=0.95):
    """(auc, low, high): auc +- z se, clipped to [0, 1]."""
    (auc,), c = delong(y_true, [s])
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    se = math.sqrt(c[0][0])
    return auc, max(0.0, auc - z * se), min(1.0, auc + z * se)

"""Slow, obviously correct references for the paired statistics (receval.comparison).

Plain Python over one column of differences at a time (a list of floats, NaN
for a user left out, and optional weights): the randomization test by
enumerating all 2**n sign vectors, the jackknife by recomputing the mean with
each user left out, the BCa interval by its textbook formula with
``scipy.stats.norm``, and the multiple-comparison corrections by their
definitions.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np


def used_pairs(d: Sequence[float], w: Sequence[float] | None = None) -> list[tuple[float, float]]:
    """(difference, weight) of the users with a difference and a positive weight."""
    weights = [1.0] * len(d) if w is None else [float(x) for x in w]
    return [(float(a), b) for a, b in zip(d, weights, strict=True) if not math.isnan(a) and b > 0]


def weighted_mean(pairs: Sequence[tuple[float, float]]) -> float:
    total = math.fsum(w for _, w in pairs)
    return math.fsum(d * w for d, w in pairs) / total if total > 0 else math.nan


def exact_randomization_pvalue(
    d: Sequence[float],
    w: Sequence[float] | None = None,
    rel_tol: float = 1e-12,
    alternative: str = "two-sided",
) -> float:
    """Share of all 2**n sign vectors whose sum s_i w_i d_i reaches the observed one:
    in absolute value (two-sided), from above ("greater") or from below ("less")."""
    x = [a * b for a, b in used_pairs(d, w)]
    observed = math.fsum(x)
    tolerance = rel_tol * math.fsum(abs(v) for v in x)
    reached = 0
    for signs in itertools.product((1.0, -1.0), repeat=len(x)):
        flipped = math.fsum(s * v for s, v in zip(signs, x, strict=True))
        if alternative == "two-sided":
            reached += abs(flipped) >= abs(observed) - tolerance
        elif alternative == "greater":
            reached += flipped >= observed - tolerance
        else:
            reached += flipped <= observed + tolerance
    return reached / 2 ** len(x)


def leave_one_out_means(d: Sequence[float], w: Sequence[float] | None = None) -> list[float]:
    """Weighted mean of the used users with each one left out in turn."""
    pairs = used_pairs(d, w)
    return [weighted_mean(pairs[:i] + pairs[i + 1 :]) for i in range(len(pairs))]


def jackknife_acceleration(d: Sequence[float], w: Sequence[float] | None = None) -> float:
    """Efron and Tibshirani (14.15): a = sum U^3 / (6 (sum U^2)^1.5), U_i = mean - theta_(i)."""
    theta = leave_one_out_means(d, w)
    centre = math.fsum(theta) / len(theta)
    u = [centre - t for t in theta]
    s2 = math.fsum(x * x for x in u)
    if s2 == 0:
        return 0.0
    return math.fsum(x**3 for x in u) / (6.0 * s2**1.5)


def percentile_interval(replicates: np.ndarray, confidence: float) -> tuple[float, float]:
    """Quantiles (1 - c)/2 and 1 - (1 - c)/2 of the finite replicates (linear interpolation)."""
    rep = replicates[np.isfinite(replicates)]
    alpha = (1 - confidence) / 2
    low, high = np.quantile(rep, [alpha, 1 - alpha])
    return float(low), float(high)


def bca_interval(
    replicates: np.ndarray,
    estimate: float,
    acceleration: float,
    confidence: float,
    tie: float = 0.0,
) -> tuple[float, float]:
    """Efron (1987) BCa bounds from replicates, as scipy.stats.bootstrap computes them;
    replicates within ``tie`` of the estimate count as equal to it."""
    from scipy.stats import norm

    rep = replicates[np.isfinite(replicates)]
    below = sum(1.0 for r in rep if r < estimate - tie)
    below += sum(1.0 for r in rep if r <= estimate + tie)
    z0 = norm.ppf(below / (2 * len(rep)))
    z = norm.ppf((1 - confidence) / 2)
    levels = []
    for zz in (z, -z):
        levels.append(norm.cdf(z0 + (z0 + zz) / (1 - acceleration * (z0 + zz))))
    low, high = np.quantile(rep, levels)
    return float(low), float(high)


def effect_size(d: Sequence[float], w: Sequence[float] | None = None) -> float:
    """Weighted mean over the weighted sd with the n / (n - 1) correction."""
    pairs = used_pairs(d, w)
    n = len(pairs)
    if n < 2:
        return math.nan
    mean = weighted_mean(pairs)
    total = math.fsum(b for _, b in pairs)
    var = math.fsum(b * (a - mean) ** 2 for a, b in pairs) / total * n / (n - 1)
    if var == 0:
        return 0.0 if mean == 0 else math.copysign(math.inf, mean)
    return mean / math.sqrt(var)


def holm(p: Sequence[float]) -> list[float]:
    """Holm's step-down: the k-th smallest gets max_{i <= k} (m - i + 1) p_(i), capped at 1."""
    valid = [i for i, x in enumerate(p) if not math.isnan(x)]
    order = sorted(valid, key=lambda i: p[i])
    m = len(order)
    out = [math.nan] * len(p)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, (m - rank) * p[i])
        out[i] = min(1.0, running)
    return out


def benjamini_hochberg(p: Sequence[float]) -> list[float]:
    """The k-th smallest gets min_{i >= k} m p_(i) / i, capped at 1."""
    valid = [i for i, x in enumerate(p) if not math.isnan(x)]
    order = sorted(valid, key=lambda i: p[i])
    m = len(order)
    out = [math.nan] * len(p)
    running = math.inf
    for rank in range(m - 1, -1, -1):
        i = order[rank]
        running = min(running, m * p[i] / (rank + 1))
        out[i] = min(1.0, running)
    return out

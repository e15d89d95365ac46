"""Slow, obviously correct references for the off-policy estimators.

Plain loops over the rounds (and the actions), in Python floats with
``math.fsum``, straight from the definitions: IPS (Horvitz and Thompson;
Precup et al.), SNIPS (Swaminathan and Joachims 2015), DR (Dudik et al. 2011).
And in exact rational arithmetic (:func:`exact_estimate`, :func:`exact_interval`),
each float64 operation of a term rounded as in a float64 without an exponent limit:
weights and terms beyond float64's range (a subnormal pscore) as they are.
"""

from __future__ import annotations

import math
from fractions import Fraction


def _target(action_dist, i, action, position):
    """The target policy's row of probabilities at round i, and of the logged action."""
    row = action_dist[i]
    if not hasattr(row, "__len__"):  # 1-D: the probability of the logged action
        return None, float(row)
    k = 0 if position is None else int(position[i])
    probs = [float(p[k]) if hasattr(p, "__len__") else float(p) for p in row]
    return probs, probs[int(action[i])]


def _weights(pscore, action_dist, action, position, clip):
    out = []
    for i in range(len(pscore)):
        _, target = _target(action_dist, i, action, position)
        w = target / float(pscore[i])
        out.append(w if clip is None else min(w, clip))
    return out


def n_clipped(pscore, action_dist, action=None, position=None, clip=None):
    """The rounds whose importance weight is above ``clip`` (0 without one)."""
    unclipped = _weights(pscore, action_dist, action, position, None)
    return 0 if clip is None else sum(w > clip for w in unclipped)


def ips(reward, pscore, action_dist, action=None, position=None, clip=None):
    w = _weights(pscore, action_dist, action, position, clip)
    return math.fsum(float(r) * wi for r, wi in zip(reward, w, strict=True)) / len(w)


def snips(reward, pscore, action_dist, action=None, position=None, clip=None):
    w = _weights(pscore, action_dist, action, position, clip)
    total = math.fsum(w)
    if total == 0:
        return math.nan
    return math.fsum(float(r) * wi for r, wi in zip(reward, w, strict=True)) / total


def dr(reward, pscore, action_dist, estimated_rewards, action, position=None, clip=None):
    w = _weights(pscore, action_dist, action, position, clip)
    terms = []
    for i in range(len(w)):
        probs, _ = _target(action_dist, i, action, position)
        q, _ = _target(estimated_rewards, i, action, position)
        direct = math.fsum(p * qa for p, qa in zip(probs, q, strict=True)) / math.fsum(probs)
        terms.append(direct + w[i] * (float(reward[i]) - q[int(action[i])]))
    return math.fsum(terms) / len(terms)


# ------------------------------------------------------------------ exact, any exponent
def round53(x: Fraction) -> Fraction:
    """``x`` rounded to 53 significant bits, ties to even, with no exponent limit: the
    result of a float64 operation in a float64 whose exponent never overflows."""
    if x == 0:
        return Fraction(0)
    sign, x = (1 if x > 0 else -1), abs(x)
    e = x.numerator.bit_length() - x.denominator.bit_length()
    if Fraction(2) ** e > x:
        e -= 1  # 2**e <= x < 2**(e + 1)
    unit = Fraction(2) ** (e - 52)
    m, rest = divmod(x / unit, 1)
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and m % 2):
        m += 1
    return sign * m * unit


def _exact_terms(reward, pscore, target, clip, estimated_rewards, estimated_value):
    """Per round: the weight ``pi / pscore`` and the estimator's term, each float64
    operation rounded by :func:`round53` (1-D ``target``; DR in its per-round form)."""
    weights, terms = [], []
    for i in range(len(reward)):
        w = round53(Fraction(target[i]) / Fraction(pscore[i]))
        if clip is not None:
            w = min(w, Fraction(clip))
        r = Fraction(reward[i])
        if estimated_rewards is None:
            term = round53(r * w)
        else:
            diff = round53(r - Fraction(estimated_rewards[i]))
            term = round53(Fraction(estimated_value[i]) + round53(w * diff))
        weights.append(w)
        terms.append(term)
    return weights, terms


def exact_estimate(estimator, reward, pscore, target, *, clip=None, estimated_rewards=None,
                   estimated_value=None, rows=None):  # fmt: skip
    """The estimate as a Fraction, before its one rounding (None: SNIPS with every
    weight 0), on the rounds ``rows`` (default: every round, each once)."""
    w, t = _exact_terms(reward, pscore, target, clip, estimated_rewards, estimated_value)
    rows = range(len(w)) if rows is None else rows
    total = sum((t[i] for i in rows), Fraction(0))
    if estimator != "snips":
        return total / len(rows)
    weight = sum((w[i] for i in rows), Fraction(0))
    return None if weight == 0 else total / weight


def to_float(x: Fraction) -> float:
    """``x`` rounded once to float64: +-inf beyond its range."""
    try:
        return float(x)
    except OverflowError:
        return math.inf if x > 0 else -math.inf


def exact_interval(estimator, reward, pscore, target, *, confidence=0.95, n_resamples=100,
                   seed=0, **options):  # fmt: skip
    """The percentile bootstrap of :func:`exact_estimate` on the resamples that Open
    Bandit Pipeline draws (``RandomState(seed).choice(n, size=n)`` each), the
    percentiles interpolated as ``np.percentile`` does, exactly; rounded once."""
    import numpy as np

    rng = np.random.RandomState(seed)
    n = len(reward)
    values = []
    for _ in range(n_resamples):
        rows = rng.choice(n, size=n).tolist()
        value = exact_estimate(estimator, reward, pscore, target, rows=rows, **options)
        if value is not None:
            values.append(value)
    values.sort()
    bounds = []
    for q in ((1 - confidence) / 2, 1 - (1 - confidence) / 2):
        h = (len(values) - 1) * q
        i = math.floor(h)
        low = values[i]
        high = values[min(i + 1, len(values) - 1)]
        bounds.append(to_float(low + (high - low) * Fraction(h - i)))
    return tuple(bounds)

"""Slow, obviously correct references for the off-policy estimators.

Plain loops over the rounds (and the actions), in Python floats with
``math.fsum``, straight from the definitions: IPS (Horvitz and Thompson;
Precup et al.), SNIPS (Swaminathan and Joachims 2015), DR (Dudik et al. 2011).
"""

from __future__ import annotations

import math


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

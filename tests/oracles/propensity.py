"""A slow, obviously correct reference for the propensity-weighted (IPS / SNIPS) metrics.

One user at a time, in plain Python: each observed relevant item ``i`` weighs
``w_i = 1 / max(p_i, clip)``; what stands for the user's number of relevant items is
their count ``n`` (IPS) or ``sum(w)`` (SNIPS), and NDCG's ideal ranks the relevant
items one position each (IPS) or ``w_i`` positions each (SNIPS); docs/conventions.md
gives the definitions. ``ties="average"`` enumerates every order of the tied items and
averages.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from tests.oracles.ranking import gain, orders, ranked


def _discount_between(start: float, end: float) -> float:
    """The discounts 1 / log2(j + 2) of positions j covered by [start, end), a position
    covered in part counting in part."""
    total = 0.0
    j = math.floor(start)
    while j < end:
        overlap = min(end, j + 1) - max(start, j)
        if overlap > 0:
            total += overlap / math.log2(j + 2)
        j += 1
    return total


def one(
    name: str,
    k: int | None,
    conv: dict,
    items: list,
    judged: Mapping,
    scores: Mapping,
    weights: Mapping,
) -> float:
    """The weighted metric of one user whose ranked list is ``items``; ``weights``: the
    weight of each relevant item."""
    if conv.get("depth"):
        items = items[: conv["depth"]]
    if conv.get("judged_only"):  # after depth
        items = [i for i in items if i in judged and judged[i] >= 0]
    cut = len(items) if k is None else k
    top = items[:cut]
    snips = conv["estimator"] == "snips"
    total = sum(weights.values()) if snips else len(weights)
    omega = weights
    if name in ("dcg", "ndcg"):
        dcg = sum(
            omega[i] * gain(judged[i], conv["rel_threshold"], conv["gain"]) / math.log2(pos + 1)
            for pos, i in enumerate(top, start=1)
            if i in omega
        )
        if name == "dcg":
            return dcg
        ideal, start = 0.0, 0.0
        for i in sorted(omega, key=lambda i: -gain(judged[i], 0, conv["gain"])):
            end = start + (omega[i] if snips else 1.0)
            lo, hi = (start, end) if k is None else (min(start, k), min(end, k))
            ideal += gain(judged[i], 0, conv["gain"]) * _discount_between(lo, hi)
            start = end
        return dcg / ideal if ideal > 0 else 0.0
    positive = conv.get("hit_scores") == "positive"
    hits = [i for i in top if i in omega and (not positive or scores[i] > 0)]
    if name == "precision":
        return sum(omega[i] for i in hits) / cut if cut else 0.0
    if name == "recall":
        return sum(weights[i] for i in hits) / total if total else 0.0
    if name == "map":
        value, seen = 0.0, 0.0
        for pos, i in enumerate(top, start=1):
            if i in hits:
                value += omega[i] * (1.0 + seen) / pos
                seen += omega[i]
        return value / total if total else 0.0
    raise ValueError(name)


def evaluate(
    qrels: Mapping,
    run: Mapping,
    name: str,
    k: int | None,
    conv: dict,
    propensity,
    clip: float = 0.0,
):
    """(mean, {user: value or None if skipped}); ``propensity(user, item)`` gives p."""
    per_user = {}
    for user, judged in qrels.items():
        thr = conv["rel_threshold"]
        relevant = [i for i, g in judged.items() if g >= thr]
        weights = {i: 1.0 / max(propensity(user, i), clip) for i in relevant}
        missing = user not in run
        if (missing and conv["missing_users"] == "skip") or (
            not relevant and conv["empty_users"] == "skip"
        ):
            per_user[user] = None
            continue
        if not relevant and conv["empty_users"] == "one":
            per_user[user] = 1.0
            continue
        scores = dict(run.get(user, {}))
        if conv["ties"] == "average":
            every = orders(scores) or [[]]
            value = sum(one(name, k, conv, o, judged, scores, weights) for o in every) / len(every)
        else:
            items = ranked(scores, conv["ties"], judged)
            value = one(name, k, conv, items, judged, scores, weights)
        per_user[user] = value
    nobody = False
    if conv.get("zero_users") == "skip":
        # as receval.evaluate: users at 0 (no relevant item in the top k) leave the
        # mean, 0.0 when no user is left
        nobody = not any(x for x in per_user.values() if x is not None)
        per_user = {u: (None if x == 0 else x) for u, x in per_user.items()}
    kept = [x for x in per_user.values() if x is not None]
    if nobody:
        mean = 0.0
    else:
        mean = sum(kept) / len(kept) if kept else math.nan
    return mean, per_user

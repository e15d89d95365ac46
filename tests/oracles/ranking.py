"""A slow, obviously correct reference for every top-K metric and convention.

Each metric follows its textbook definition on one user's ranked list, in plain
Python. ``ties="average"`` enumerates every order of the tied items and
averages, so it is only for short lists.
"""

from __future__ import annotations

import itertools
import math
import struct
import sys
from collections.abc import Mapping


def single(score: float) -> float:
    """``score`` rounded to a C float, as trec_eval 9 stores it (past its range: an
    infinity)."""
    if abs(score) >= 2.0**128 * (1 - 2.0**-25):  # rounds past float32's largest
        return math.copysign(math.inf, score)
    return struct.unpack("f", struct.pack("f", score))[0]


def ranked(scores: Mapping, ties: str, judged: Mapping | None = None) -> list:
    """Items of one user in ranked order (one order; not for ties='average')."""
    items = list(scores)  # input order
    if ties == "worst":  # CatBoost: the least relevant first, an unjudged item lowest
        items.sort(key=lambda i: (judged or {}).get(i, -math.inf))
    elif ties in ("trec", "id_descending"):
        items.sort(key=lambda i: str(i), reverse=True)
    elif ties == "id_ascending":
        items.sort(key=lambda i: str(i))
    if ties == "trec":  # scores equal as C floats are tied
        return sorted(items, key=lambda i: -single(scores[i]))
    return sorted(items, key=lambda i: -scores[i])  # stable: keeps the tie order


def orders(scores: Mapping) -> list[list]:
    """Every order of the items that respects the scores (all tie permutations)."""
    values = sorted(set(scores.values()), reverse=True)
    blocks = [[i for i in scores if scores[i] == v] for v in values]
    return [
        [i for block in combo for i in block]
        for combo in itertools.product(*(itertools.permutations(b) for b in blocks))
    ]


def gain(grade: float, threshold: int, kind: str) -> float:
    if grade < threshold:
        return 0.0
    if kind == "binary":
        return 1.0
    return 2.0**grade - 1.0 if kind == "exponential" else float(grade)


def one(
    name: str, k: int | None, conv: dict, items: list, judged: Mapping, scores: Mapping
) -> float:
    """Value of metric ``name`` for one user whose ranked list is ``items``."""
    thr = conv["rel_threshold"]
    # grades that earn a gain: the relevant ones, every grade above 0 (trec_eval ndcg),
    # or every judged grade, a negative one too (sklearn's dcg_score; an unjudged
    # candidate, at -inf, none)
    gthr = {"positive": math.nextafter(0.0, 1.0), "all": -sys.float_info.max}.get(
        conv.get("gain_grades", "relevant"), thr
    )
    relevant = {i for i, g in judged.items() if g >= thr}
    n_rel = len(relevant)
    if conv.get("hit_scores") == "positive" and name not in ("cg", "dcg", "idcg", "ndcg"):
        # torchmetrics: an item scored <= 0 is never a hit; R still counts it
        relevant = {i for i in relevant if scores.get(i, 0.0) > 0}
    if name == "r_precision":  # with @k: the top min(R, k), over R
        k = n_rel if k is None else min(n_rel, k)
    depth = len(items) if k is None else k
    top = items[:depth]
    hits = sum(1 for i in top if i in relevant)
    if name == "r_precision":
        return hits / n_rel if n_rel else 0.0
    if name == "precision":  # LensKit ("retrieved"): over the list's length, at most k
        den = depth if conv.get("precision_normalizer", "k") == "k" else len(top)
        return hits / den if den else 0.0
    if name == "recall":  # LensKit ("min_k"): over min(R, k)
        den = n_rel if k is None or conv.get("recall_normalizer") != "min_k" else min(n_rel, k)
        return hits / den if den else 0.0
    if name == "f1":
        p = hits / depth if depth else 0.0
        r = hits / n_rel if n_rel else 0.0
        return 2 * p * r / (p + r) if p + r else 0.0
    if name == "pooled_hit_ratio":
        return hits  # pooled: divided by sum of n_rel by the caller
    if name == "success":
        return 1.0 if hits else 0.0
    if name == "mrr":
        for pos, i in enumerate(top, start=1):
            if i in relevant:
                return 1.0 / pos
        return 0.0
    if name == "map":
        total, seen = 0.0, 0
        for pos, i in enumerate(top, start=1):
            if i in relevant:
                seen += 1
                total += seen / pos
        norm = {
            "relevant": n_rel,
            "hits": hits,
            "min_k": n_rel if k is None else min(n_rel, k),
            "min_retrieved": min(n_rel, len(top)),  # LensKit
        }[conv["ap_normalizer"]]
        return total / norm if norm else 0.0
    g = [gain(judged[i], gthr, conv["gain"]) if i in judged else 0.0 for i in top]
    if name == "cg":
        return sum(g)
    if conv.get("discount") == "clipped":  # LensKit: log2(max(rank, 2))

        def log_rank(pos: int) -> float:
            return math.log2(max(pos, 2))

    elif conv.get("discount") == "rank":  # CatBoost's denominator=Position: 1 / rank

        def log_rank(pos: int) -> float:
            return float(pos)

    else:

        def log_rank(pos: int) -> float:
            return math.log2(pos + 1)

    dcg = sum(x / log_rank(pos) for pos, x in enumerate(g, start=1))
    if name == "dcg":
        return dcg
    if conv["ideal"] == "candidates":
        pool = sorted((judged.get(i, -math.inf) for i in items), reverse=True)
        pool = pool[: (len(items) if k is None else k)]
    else:
        pool = sorted(judged.values(), reverse=True)
        pool = pool if k is None else pool[:k]
    idcg = sum(gain(x, gthr, conv["gain"]) / log_rank(pos) for pos, x in enumerate(pool, 1))
    if name == "idcg":
        return idcg
    if name == "ndcg":
        return dcg / idcg if idcg else 0.0
    raise ValueError(name)


def evaluate(qrels: Mapping, run: Mapping, name: str, k: int | None, conv: dict):
    """(mean, {user: value or None if skipped}) with receval's skip rules."""
    per_user = {}
    num = den = 0.0
    for user, judged in qrels.items():
        thr = conv["rel_threshold"]
        n_rel = sum(1 for g in judged.values() if g >= thr)
        missing = user not in run
        if (missing and conv["missing_users"] == "skip") or (
            n_rel == 0 and conv["empty_users"] == "skip"
        ):
            per_user[user] = None
            continue
        if n_rel == 0 and conv["empty_users"] == "one" and name != "pooled_hit_ratio":
            per_user[user] = 1.0
            continue
        scores = run.get(user, {})
        if conv["ties"] == "average":
            all_orders = orders(scores) or [[]]
            value = sum(one(name, k, conv, o, judged, scores) for o in all_orders) / len(all_orders)
        else:
            value = one(name, k, conv, ranked(scores, conv["ties"], judged), judged, scores)
        if name == "pooled_hit_ratio":
            num += value
            den += n_rel
            value = value / n_rel if n_rel else 0.0
        per_user[user] = value
    nobody = False
    if conv.get("zero_users") == "skip" and name != "pooled_hit_ratio":  # a mean over users only
        # Microsoft Recommenders' r_precision_at_k: the users with a relevant item in the
        # top k are counted (R-precision: whether or not it is in the top min(R, k));
        # those at 0 leave the mean; 0.0 when nobody is counted
        if name == "r_precision":
            hits = evaluate(qrels, run, "success", k, {**conv, "zero_users": "keep"})[1]
        else:
            hits = per_user
        counted = {u for u, x in hits.items() if x is not None and x != 0}
        nobody = not counted
        per_user = {u: (x if u in counted and x != 0 else None) for u, x in per_user.items()}
    kept = [x for x in per_user.values() if x is not None]
    if nobody:  # Microsoft Recommenders: no relevant item in any top k gives 0.0
        mean = 0.0
    elif name == "pooled_hit_ratio":
        mean = num / den if den else 0.0
    else:
        mean = sum(kept) / len(kept) if kept else math.nan
    return mean, per_user

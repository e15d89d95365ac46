"""Slow, obviously correct references for serendipity, intersection and miscalibration.

Each follows its definition in plain Python on dicts: ``lists`` maps a user
to its ranked items, ``history`` a user to the set of its earlier items.
Co-occurrence similarity counts, for every pair, the users holding both.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Mapping, Sequence

Lists = Mapping[Hashable, Sequence[Hashable]]
History = Mapping[Hashable, set[Hashable]]


def _top(items: Sequence[Hashable], k: int | None) -> list[Hashable]:
    return list(items) if k is None else list(items)[:k]


def cooccurrence(history: History, i: Hashable, j: Hashable) -> float:
    both = sum(1 for held in history.values() if i in held and j in held)
    n_i = sum(1 for held in history.values() if i in held)
    n_j = sum(1 for held in history.values() if j in held)
    return both / math.sqrt(n_i * n_j) if both else 0.0


def cosine(x: Sequence[float], y: Sequence[float]) -> float:
    """x . y / sqrt(|x|^2 |y|^2), each sum exact and rounded once: exactly 1 for
    equal vectors (sqrt(s * s) is s); 0 for a zero vector."""
    norms = math.sqrt(math.fsum(a * a for a in x) * math.fsum(b * b for b in y))
    if norms == 0.0:
        return 0.0
    return math.fsum(a * b for a, b in zip(x, y, strict=True)) / norms


def user_item_serendipity(
    lists: Lists,
    history: History,
    k: int | None = None,
    features: Mapping[Hashable, Sequence[float]] | None = None,
    relevant: Mapping[Hashable, set[Hashable]] | None = None,
) -> dict[Hashable, dict[Hashable, float]]:
    """(1 - mean similarity to the user's history) x relevance, per recommended item."""
    out: dict[Hashable, dict[Hashable, float]] = {}
    for user, items in lists.items():
        held = history.get(user)
        if not held:
            continue
        out[user] = {}
        for i in _top(items, k):
            if features is None:
                sims = [cooccurrence(history, i, j) for j in held]
            else:
                sims = [cosine(features[i], features[j]) for j in held]
            rel = 1.0 if relevant is None else float(i in relevant.get(user, set()))
            out[user][i] = (1.0 - math.fsum(sims) / len(sims)) * rel
    return out


def user_serendipity(lists: Lists, history: History, **kw: object) -> dict[Hashable, float]:
    per_item = user_item_serendipity(lists, history, **kw)  # type: ignore[arg-type]
    return {u: sum(v.values()) / len(v) for u, v in per_item.items() if v}


def popularity_serendipity(
    lists: Lists,
    relevant: Mapping[Hashable, set[Hashable]],
    train_rows: Sequence[tuple[Hashable, Hashable]],
    n_catalog: int,
    k: int | None = None,
) -> dict[Hashable, float]:
    """RecTools' per-user serendipity: mean of max(p_user - p_any, 0) x relevance."""
    counts = Counter(item for _, item in train_rows)
    levels = sorted(set(counts.values()), reverse=True)
    rank = {item: levels.index(c) + 1 for item, c in counts.items()}
    out = {}
    for user, items in lists.items():
        top = _top(items, k)
        if not top:
            continue
        total = 0.0
        for r, i in enumerate(top, start=1):
            p_user = (n_catalog + 1 - r) / n_catalog
            p_any = (n_catalog + 1 - rank[i]) / n_catalog if i in rank else 0.0
            total += max(p_user - p_any, 0.0) * (i in relevant.get(user, set()))
        out[user] = total / len(top)
    return out


def intersection(
    lists: Lists, reference: Lists, k: int | None = None, ref_k: int | None = None
) -> dict[Hashable, float]:
    out = {}
    for user, items in lists.items():
        top = _top(items, k)
        if not top:
            continue
        ref = set(_top(reference.get(user, []), k if ref_k is None else ref_k))
        out[user] = sum(1 for i in top if i in ref) / len(top)
    return out


def _category_distribution(
    items: Sequence[Hashable], categories: Mapping[Hashable, Sequence[Hashable]]
) -> dict[Hashable, float]:
    dist: dict[Hashable, float] = {}
    for i in items:
        for g in categories[i]:
            dist[g] = dist.get(g, 0.0) + 1.0 / len(categories[i]) / len(items)
    return dist


def miscalibration(
    lists: Lists,
    history: Mapping[Hashable, Sequence[Hashable]],
    categories: Mapping[Hashable, Sequence[Hashable]],
    k: int | None = None,
    alpha: float = 0.01,
) -> dict[Hashable, float]:
    """Steck's C_KL(p, q~) per user with a history and a non-empty list."""
    out = {}
    for user, items in lists.items():
        held = sorted(set(history.get(user, [])), key=str)
        top = _top(items, k)
        if not held or not top:
            continue
        p = _category_distribution(held, categories)
        q = _category_distribution(top, categories)
        smoothed = {g: (1 - alpha) * q.get(g, 0.0) + alpha * pg for g, pg in p.items()}
        out[user] = sum(
            pg * math.log(pg / smoothed[g]) if smoothed[g] > 0 else math.inf
            for g, pg in p.items()
            if pg > 0
        )
    return out

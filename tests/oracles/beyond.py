"""Slow, obviously correct references for the beyond-accuracy metrics.

Each follows its textbook definition in plain Python on lists of item ids:
ILS sums every ordered pair of distinct positions, personalization compares
every ordered pair of distinct users (O(users²)), and the Gini index is the
mean absolute difference of the exposures.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Sequence

Lists = Sequence[Sequence[Hashable]]


def top(items: Sequence[Hashable], k: int | None) -> list[Hashable]:
    return list(items) if k is None else list(items)[:k]


def cosine(x: Sequence[float], y: Sequence[float]) -> float:
    """Cosine of two vectors; 0 when either is the zero vector (scikit-learn's rule)."""
    nx = math.sqrt(sum(a * a for a in x))
    ny = math.sqrt(sum(b * b for b in y))
    if nx == 0.0 or ny == 0.0:
        return 0.0
    return sum(a * b for a, b in zip(x, y, strict=True)) / (nx * ny)


def ils(lists: Lists, sim: Callable[[Hashable, Hashable], float], k: int | None) -> list[float]:
    """ILS of each list: sum of S(i, j) over ordered pairs i != j, over m (m - 1)."""
    out = []
    for items in lists:
        t = top(items, k)
        m = len(t)
        if m < 2:
            out.append(math.nan)
            continue
        total = 0.0
        for i in range(m):
            for j in range(m):
                if i != j:
                    total += sim(t[i], t[j])
        out.append(total / (m * (m - 1)))
    return out


def mean_defined(values: Iterable[float]) -> float:
    kept = [x for x in values if not math.isnan(x)]
    return sum(kept) / len(kept) if kept else math.nan


def personalization(lists: Lists, k: int | None) -> float:
    """1 - mean cosine similarity of the binary item vectors of distinct users (an empty
    list is the zero vector: cosine 0 with every list, scikit-learn's rule)."""
    sets = [set(top(items, k)) for items in lists]
    n = len(sets)
    total = 0.0
    for u in range(n):
        for w in range(n):
            if u != w and sets[u] and sets[w]:
                total += len(sets[u] & sets[w]) / math.sqrt(len(sets[u]) * len(sets[w]))
    return 1.0 - total / (n * (n - 1))


def novelty(
    lists: Lists, log: Iterable[tuple[Hashable, Hashable]], k: int | None, skip_unseen: bool
) -> list[float]:
    """Per list: mean of -log2(share of the log's users who used the item)."""
    users_of: dict[Hashable, set[Hashable]] = defaultdict(set)
    everyone: set[Hashable] = set()
    for user, item in log:
        users_of[item].add(user)
        everyone.add(user)
    out = []
    for items in lists:
        bits = []
        for item in top(items, k):
            if item not in users_of:
                if skip_unseen:
                    continue
                raise KeyError(item)
            bits.append(-math.log2(len(users_of[item]) / len(everyone)))
        out.append(sum(bits) / len(bits) if bits else math.nan)
    return out


def exposure(lists: Lists, k: int | None, catalog: Iterable[Hashable]) -> list[int]:
    """How many lists show each catalogue item in their top k."""
    shown = [set(top(items, k)) for items in lists]
    return [sum(item in s for s in shown) for item in catalog]


def coverage(lists: Lists, k: int | None, catalog: Iterable[Hashable]) -> float:
    counts = exposure(lists, k, catalog)
    return sum(c > 0 for c in counts) / len(counts)


def gini(counts: Sequence[int]) -> float:
    """Mean absolute difference over twice the mean: sum |c_i - c_j| / (2 n² mean)."""
    n = len(counts)
    mean = sum(counts) / n
    return sum(abs(a - b) for a in counts for b in counts) / (2 * n * n * mean)

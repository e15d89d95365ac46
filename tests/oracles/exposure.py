"""Slow, obviously correct references for expected exposure and group exposure.

The run's expected exposure is computed by enumerating every order of every
tie group (each order of the ranking equally likely) and averaging the RBP
exposure ``patience**(rank - 1)`` of each item over them; the target uses the
closed form of Diaz et al. (2020), the mean of ``patience**i`` over the
positions ``b .. b + m - 1`` that the ``m`` items of a grade fill after the
``b`` items of higher grades (positions from ``k`` on count 0). Plain Python on
dicts.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Hashable, Mapping, Sequence

Ranking = Mapping[Hashable, float]  # item -> score


def ranking_exposure(scores: Ranking, patience: float, k: int | None, ties: str) -> dict:
    """Expected exposure of each item of one user's scored list."""
    items = list(scores)  # input order
    if ties == "input":
        order = sorted(items, key=lambda d: -scores[d])  # stable
        return {d: (patience**i if k is None or i < k else 0.0) for i, d in enumerate(order)}
    levels = sorted({scores[d] for d in items}, reverse=True)
    groups = [[d for d in items if scores[d] == s] for s in levels]
    total: dict = defaultdict(float)
    orders = list(itertools.product(*(itertools.permutations(g) for g in groups)))
    for choice in orders:
        ranking = [d for g in choice for d in g]
        for i, d in enumerate(ranking):
            total[d] += patience**i if k is None or i < k else 0.0
    return {d: total[d] / len(orders) for d in items}


def target_exposure(
    grades: Mapping[Hashable, int], patience: float, k: int | None, rel_threshold: int, binary: bool
) -> dict:
    """The deserved exposure of each relevant item (closed form)."""
    relevant = {d: (1 if binary else g) for d, g in grades.items() if g >= rel_threshold}
    out = {}
    b = 0
    for g in sorted(set(relevant.values()), reverse=True):
        members = [d for d, x in relevant.items() if x == g]
        m = len(members)
        end = b + m if k is None else min(b + m, k)
        value = sum(patience**i for i in range(b, end)) / m if end > b else 0.0
        out.update(dict.fromkeys(members, value))
        b += m
    return out


def expected_exposure(
    qrels: Mapping[Hashable, Mapping[Hashable, int]],
    samples: Sequence[Mapping[Hashable, Ranking]],
    patience: float = 0.5,
    k: int | None = None,
    ties: str = "average",
    rel_threshold: int = 1,
    binary: bool = False,
    missing_users: str = "zero",
) -> dict:
    """Per qrels user with a relevant item: (EE-D, EE-R, EE-L)."""
    out = {}
    for user, grades in qrels.items():
        target = target_exposure(grades, patience, k, rel_threshold, binary)
        if not target:
            continue
        ranked = [s[user] for s in samples if s.get(user)]
        if not ranked and missing_users == "skip":
            continue
        exposure: dict = defaultdict(float)
        for scores in ranked:
            for d, e in ranking_exposure(scores, patience, k, ties).items():
                exposure[d] += e / len(ranked)
        items = set(exposure) | set(target)
        disparity = sum(exposure[d] ** 2 for d in items)
        relevance = sum(exposure[d] * target.get(d, 0.0) for d in items)
        loss = sum((exposure[d] - target.get(d, 0.0)) ** 2 for d in items)
        out[user] = (disparity, relevance, loss)
    return out


def _groups_of(item_groups: Mapping) -> dict:
    return {
        d: (list(g) if isinstance(g, (list, tuple, set)) else [g]) for d, g in item_groups.items()
    }


def group_expected_exposure(
    qrels: Mapping[Hashable, Mapping[Hashable, int]],
    samples: Sequence[Mapping[Hashable, Ranking]],
    item_groups: Mapping,
    patience: float = 0.5,
    k: int | None = None,
    ties: str = "average",
    binary: bool = False,
) -> dict:
    """Per qrels user with a relevant item: (EE-D, EE-R, EE-L) over the groups of its
    relevant items, a group's exposure and target summed over its relevant items."""
    groups = _groups_of(item_groups)
    out = {}
    for user, grades in qrels.items():
        target = target_exposure(grades, patience, k, 1, binary)
        if not target:
            continue
        ranked = [s[user] for s in samples if s.get(user)]
        exposure: dict = defaultdict(float)
        for scores in ranked:
            for d, e in ranking_exposure(scores, patience, k, ties).items():
                exposure[d] += e / len(ranked)
        run_g: dict = defaultdict(float)
        target_g: dict = defaultdict(float)
        for d, t in target.items():
            for g in groups[d]:
                target_g[g] += t
                run_g[g] += exposure.get(d, 0.0)
        out[user] = (
            sum(run_g[g] ** 2 for g in target_g),
            sum(run_g[g] * target_g[g] for g in target_g),
            sum((run_g[g] - target_g[g]) ** 2 for g in target_g),
        )
    return out


def group_exposure(
    samples: Sequence[Mapping[Hashable, Ranking]],
    item_groups: Mapping,
    patience: float = 0.5,
    k: int | None = None,
    ties: str = "average",
) -> dict:
    """Per group: its exposure summed over its items, averaged over the users."""
    groups = _groups_of(item_groups)
    users = {u for s in samples for u, scores in s.items() if scores}
    total: dict = defaultdict(float)
    for user in users:
        ranked = [s[user] for s in samples if s.get(user)]
        for scores in ranked:
            for d, e in ranking_exposure(scores, patience, k, ties).items():
                for g in groups[d]:
                    total[g] += e / len(ranked)
    every = {g for gs in groups.values() for g in gs}
    return {g: total[g] / len(users) for g in every}

"""Slow, obviously correct references for the popularity-bias metrics.

Plain Python on dicts and lists of item ids, one step of each definition per
line: popularity as a dict item -> count (distinct users of a log), the head
grown item by item while the interactions it holds stay below the share (in exact
fractions: each count as the float it is, the share as the decimal it is written
as), sets for every intersection, and per-user loops. Ties in popularity keep the order
the items were first given (Python's sort is stable), as receval documents.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Sequence
from fractions import Fraction

Lists = dict[Hashable, list[Hashable]]  # user -> ranked items


def popularity_of_log(log: Sequence[tuple[Hashable, Hashable]]) -> dict[Hashable, int]:
    """Distinct users of each item, items in order of first appearance."""
    users: dict[Hashable, set[Hashable]] = {}
    for user, item in log:
        users.setdefault(item, set()).add(user)
    return {item: len(us) for item, us in users.items()}


def head_items(popularity: dict[Hashable, float], head_share: float) -> set[Hashable]:
    """Most popular items first; add items until they hold head_share of all interactions.

    Exact: every count as the fraction it is, head_share as the decimal it is written as.
    """
    ranked = sorted(popularity, key=lambda i: -popularity[i])
    limit = Fraction(repr(float(head_share))) * sum(Fraction(c) for c in popularity.values())
    held = Fraction(0)
    head: set[Hashable] = set()
    for item in ranked:
        head.add(item)
        held += Fraction(popularity[item])
        if held >= limit:
            break
    return head


def recbole_tail(popularity: dict[Hashable, float], tail_ratio: float) -> set[Hashable]:
    if tail_ratio > 1:
        return {i for i, c in popularity.items() if c <= tail_ratio}
    ranked = sorted(popularity, key=lambda i: popularity[i])
    cut = max(int(len(ranked) * tail_ratio), 1)
    return set(ranked[:cut])


def _top(items: list[Hashable], k: int | None) -> list[Hashable]:
    return items if k is None else items[:k]


def arp(lists: Lists, pop: dict, k: int | None) -> dict:
    return {u: sum(pop.get(i, 0) for i in _top(t, k)) / len(_top(t, k)) for u, t in lists.items()}


def aplt(lists: Lists, pop: dict, k: int | None, head_share: float = 0.8) -> dict:
    head = head_items(pop, head_share)
    return {
        u: len([i for i in _top(t, k) if i in pop and i not in head]) / len(_top(t, k))
        for u, t in lists.items()
    }


def aclt(lists: Lists, pop: dict, k: int | None, head_share: float = 0.8) -> dict:
    head = head_items(pop, head_share)
    tail = set(pop) - head  # an item absent from the popularity is in no group
    return {u: float(len([i for i in _top(t, k) if i in tail])) for u, t in lists.items()}


def average_popularity(lists: Lists, pop: dict, k: int | None) -> dict:
    return {
        u: sum(pop.get(i, 0) for i in _top(t, k)) / (len(t) if k is None else k)
        for u, t in lists.items()
    }


def tail_percentage(lists: Lists, pop: dict, k: int | None, tail_ratio: float = 0.1) -> dict:
    tail = recbole_tail(pop, tail_ratio)
    return {
        u: len([i for i in _top(t, k) if i in tail]) / (len(t) if k is None else k)
        for u, t in lists.items()
    }


def _spread(rates: list[float]) -> float:
    if any(math.isnan(r) for r in rates):
        return math.nan
    mean = sum(rates) / len(rates)
    std = math.sqrt(sum((r - mean) ** 2 for r in rates) / len(rates))
    return math.nan if mean == 0 else std / mean


def _rate(num: int, den: int) -> float:
    return math.nan if den == 0 else num / den


def pop_rsp(lists: Lists, log: list, k: int | None, head_share: float = 0.8) -> float:
    pop = popularity_of_log(log)
    head = head_items(pop, head_share)
    tail = set(pop) - head  # the groups hold the items of the log
    train: dict[Hashable, set] = {}
    for user, item in log:
        train.setdefault(user, set()).add(item)
    num_h = num_t = den_h = den_t = 0
    for u, t in lists.items():
        rec = set(_top(t, k))
        seen = train.get(u, set())
        num_h += len(rec & head)
        num_t += len(rec & tail)
        den_h += len(head - seen)
        den_t += len(tail - seen)
    return _spread([_rate(num_h, den_h), _rate(num_t, den_t)])


def pop_reo(
    qrels: dict, lists: Lists, log: list, k: int | None, head_share: float = 0.8, threshold=1
) -> float:
    pop = popularity_of_log(log)
    head = head_items(pop, head_share)
    tail = set(pop) - head
    train: dict[Hashable, set] = {}
    for user, item in log:
        train.setdefault(user, set()).add(item)
    num_h = num_t = den_h = den_t = 0
    for u, t in lists.items():
        relevant = {i for i, g in qrels.get(u, {}).items() if g >= threshold}
        if not relevant:
            continue
        seen = train.get(u, set())
        hits = {i for i in _top(t, k) if i in relevant - seen}  # a rate of unseen pairs
        num_h += len(hits & head)
        num_t += len(hits & tail)
        den_h += len((relevant & head) - seen)
        den_t += len((relevant & tail) - seen)
    return _spread([_rate(num_h, den_h), _rate(num_t, den_t)])


def _shares(lists: Lists, k: int | None) -> list[float]:
    counts = Counter(i for t in lists.values() for i in _top(t, k))
    total = sum(counts.values())
    return [c / total for c in counts.values()]


def shannon_entropy(lists: Lists, k: int | None) -> float:
    shares = _shares(lists, k)
    return -sum(p * math.log(p) for p in shares) / len(shares)


def distributional_coverage(lists: Lists, k: int | None) -> float:
    return -sum(p * math.log2(p) for p in _shares(lists, k))


def item_coverage(lists: Lists, pop: dict, k: int | None) -> float:
    shown = {i for t in lists.values() for i in _top(t, k)}
    catalogue = set(pop) | {i for t in lists.values() for i in t}
    return len(shown) / len(catalogue)

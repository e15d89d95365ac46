"""Slow, obviously correct references for the findings of :func:`receval.audit` on train
and test given as lists of (user, item, time) rows: each count by Python loops over the
rows, ids compared with ``==``."""

from __future__ import annotations

from typing import Any

Row = tuple[Any, Any, Any]


def temporal_leak(train: list[Row], test: list[Row]) -> tuple[int, int]:
    """(test rows earlier than their user's last training time, users of those rows)."""
    last: dict[Any, Any] = {}
    for u, _, t in train:
        last[u] = t if u not in last else max(last[u], t)
    rows = [(u, t) for u, _, t in test if u in last and t < last[u]]
    return len(rows), len({u for u, _ in rows})


def cutoff_leak(train: list[Row], test: list[Row], cutoff: Any) -> tuple[int, int]:
    """(test rows before ``cutoff``, training rows at or after it)."""
    return sum(t < cutoff for _, _, t in test), sum(t >= cutoff for _, _, t in train)


def test_in_train(train: list[Row], test: list[Row]) -> tuple[int, int]:
    """(test rows whose (user, item) pair is in train, users of those rows)."""
    pairs = {(u, i) for u, i, _ in train}
    rows = [u for u, i, _ in test if (u, i) in pairs]
    return len(rows), len(set(rows))


def cold(train: list[Row], test: list[Row]) -> tuple[int, int, int, int]:
    """(cold test users, their test rows, test rows of unseen items, unseen items)."""
    users = {u for u, _, _ in train}
    items = {i for _, i, _ in train}
    cold_users = {u for u, _, _ in test if u not in users}
    cold_rows = sum(u in cold_users for u, _, _ in test)
    unseen = [i for _, i, _ in test if i not in items]
    return len(cold_users), cold_rows, len(unseen), len(set(unseen))


def duplicates(rows: list[Row]) -> tuple[int, int, list[int]]:
    """(rows repeating an earlier row's pair, pairs repeated, positions of those rows)."""
    seen: set[Any] = set()
    again = []
    for r, (u, i, _) in enumerate(rows):
        if (u, i) in seen:
            again.append(r)
        seen.add((u, i))
    return len(again), len({(rows[r][0], rows[r][1]) for r in again}), again

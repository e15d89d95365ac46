"""Slow, obviously correct references for the splits: each user's rows sorted by
``(time, row)`` in a Python loop (the later row of a tie is the later interaction),
then cut; the rows of each part as a set of positions in the log."""

from __future__ import annotations

from typing import Any


def _by_user(users: list[Any], times: list[Any]) -> dict[Any, list[int]]:
    rows: dict[Any, list[int]] = {}
    for i, u in enumerate(users):
        rows.setdefault(u, []).append(i)
    return {u: sorted(r, key=lambda i: (times[i], i)) for u, r in rows.items()}


def leave_last_out(users, times, n, min_train=1, short="train"):
    """(train rows, test rows) of holding out each user's last ``n`` rows."""
    train, test = set(), set()
    for rows in _by_user(users, times).values():
        if len(rows) >= n + min_train:
            train.update(rows[:-n])
            test.update(rows[-n:])
        elif short == "train":
            train.update(rows)
        elif short == "test":
            test.update(rows)
    return train, test


def ratio(users, times, test_fraction, min_interactions=1):
    """(train rows, test rows) of holding out each user's last ``round(f * count)`` rows."""
    train, test = set(), set()
    for rows in _by_user(users, times).values():
        if len(rows) < min_interactions:
            continue
        held = round(test_fraction * len(rows))  # Python's round: half to even
        train.update(rows[: len(rows) - held])
        test.update(rows[len(rows) - held :])
    return train, test


def temporal(times, cutoff):
    """(train rows, test rows) of a cut at ``cutoff``: test is ``time >= cutoff``."""
    test = {i for i, t in enumerate(times) if t >= cutoff}
    return set(range(len(times))) - test, test

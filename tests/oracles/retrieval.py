"""Brute-force exact retrieval: the full score matrix, masking, a stable top k by id."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np


def scores(users: np.ndarray, items: np.ndarray, metric: str = "dot") -> np.ndarray:
    """Every user's score of every item, in float64 from the float32 values."""
    u = np.asarray(users, dtype=np.float32).astype(np.float64)
    i = np.asarray(items, dtype=np.float32).astype(np.float64)
    if metric == "cosine":
        u = u / np.linalg.norm(u, axis=1, keepdims=True)
        i = i / np.linalg.norm(i, axis=1, keepdims=True)
    return u @ i.T


def top_k(
    score_matrix: np.ndarray,
    k: int,
    item_ids: Sequence,
    *,
    excluded: Mapping[int, set] | None = None,
    candidates: Mapping[int, set] | None = None,
) -> list[list]:
    """Per user row: the item ids of its k best items, score descending, id ascending;
    ``excluded`` / ``candidates``: item rows by user row."""
    out = []
    for u, row in enumerate(score_matrix):
        allowed = range(len(row)) if candidates is None else sorted(candidates.get(u, ()))
        masked = set() if excluded is None else excluded.get(u, set())
        rows = [i for i in allowed if i not in masked]
        rows.sort(key=lambda i: (-row[i], item_ids[i]))
        out.append([item_ids[i] for i in rows[:k]])
    return out


def unmatched_pairs(
    pairs: Sequence[tuple], user_ids: Sequence, item_ids: Sequence, n_examples: int = 6
) -> tuple[int, int, int, tuple, tuple]:
    """(distinct pairs, those whose user has no vector, those whose user has one and
    whose item has none, the ``n_examples`` smallest of those users, of those items),
    by sets."""
    distinct = set(pairs)
    users, items = set(user_ids), set(item_ids)
    n_users_absent = sum(1 for u, _ in distinct if u not in users)
    n_items_absent = sum(1 for u, i in distinct if u in users and i not in items)
    users_absent = sorted({u for u, _ in distinct if u not in users})
    items_absent = sorted({i for u, i in distinct if u in users and i not in items})
    return (len(distinct), n_users_absent, n_items_absent, tuple(users_absent[:n_examples]),
            tuple(items_absent[:n_examples]))  # fmt: skip

"""Random qrels, runs and segments for the tests that check each segment of a report
against :func:`receval.evaluate` of that segment's users alone."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def random_inputs(
    seed: int, n_users: int, labels: Sequence[Any], *, n_runs: int = 1, share: float = 0.9
) -> tuple[dict, list[dict], dict]:
    """Qrels of 1-3 judged items a user (grades 0-2), ``n_runs`` runs each missing about
    a fifth of the users (tied scores), and the segment of about ``share`` of the users
    (one of ``labels``; the others in none)."""
    rng = np.random.default_rng(seed)
    qrels: dict = {}
    segments: dict = {}
    runs: list[dict] = [{} for _ in range(n_runs)]
    for u in range(n_users):
        items = rng.choice(8, int(rng.integers(1, 4)), replace=False)
        qrels[f"u{u}"] = {f"i{j}": int(rng.integers(0, 3)) for j in items}
        for run in runs:
            if rng.random() < 0.8:
                listed = rng.choice(8, int(rng.integers(1, 5)), replace=False)
                run[f"u{u}"] = {f"i{j}": float(rng.choice([0.1, 0.5, 0.9])) for j in listed}
        if rng.random() < share:
            segments[f"u{u}"] = labels[int(rng.integers(0, len(labels)))]
    return qrels, runs, segments


def of_users(mapping: dict, users: Sequence[str]) -> dict:
    """The qrels or run of ``users`` only (a user of no qrels when it holds none of them)."""
    return {u: mapping[u] for u in users if u in mapping} or {"other": {"i0": 1.0}}

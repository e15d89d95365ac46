"""Checks of the run: what its lists hold and how their ties move the metrics.

- ``missing_users``: test users without a list (every metric 0 for them);
- ``unmasked_train_items``: the user's training items left in the list, where
  they take the places of the items to find (repeats not declared);
- ``short_lists``: lists shorter than ``k``;
- ``tied_scores``: equal scores in the lists (in the top ``k``, or across
  its cut), and how much each metric moves between the tie rule of the
  evaluation (``ties``, :func:`receval.evaluate`'s) and the expected value
  over every order (``ties="average"``).

Each list is read in the order ``evaluate`` ranks it under the audit's tie
rule (:meth:`Run.in_tie_order`); under ``"average"`` and ``"worst"``, which
fix no one order of the tied items, an item is in the top ``k`` when its block
of tied scores starts there (it may take a place in it).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._parameters import counted
from ..data._lookup import distinct
from ..data._ranked import Qrels, Run
from ..data.seen import SeenItems
from ..metrics.beyond.history import InteractionLog
from .inputs import Rows
from .report import Finding, example_value, no_id_matches

__all__ = ["as_qrels", "as_run", "missing_user_findings", "run_findings", "tie_findings"]


def _first_rows(rows: Rows, n_items: int) -> np.ndarray:
    """The rows holding each (user, item) pair the first time."""
    keys = rows.pair_keys(n_items)
    if len(rows.distinct_keys(n_items)) == len(keys):
        return np.arange(len(keys))
    _, first = np.unique(keys, return_index=True)
    return np.sort(first)


def as_run(rows: Rows, n_items: int) -> Run:
    """The run as :class:`~receval.Run` (a repeated pair: its first row)."""
    if rows.run is not None:
        return rows.run
    keep = _first_rows(rows, n_items)
    scores = rows.values if rows.values is not None else np.zeros(rows.n_rows)
    return Run(
        rows.user_ids[rows.users[keep]], rows.item_ids[rows.items[keep]], scores[keep], name="run"
    )


def as_qrels(rows: Rows, n_items: int) -> Qrels:
    """The test as :class:`~receval.Qrels`: its grades, or 1 for every row."""
    keep = _first_rows(rows, n_items)
    grades = None if rows.values is None else rows.values[keep]
    return Qrels(rows.user_ids[rows.users[keep]], rows.item_ids[rows.items[keep]], grades)


def _positions(run: Run) -> np.ndarray:
    """The 0-based position of each row of the run in its list."""
    result: np.ndarray = np.arange(run.n_rows) - np.repeat(run.offsets[:-1], np.diff(run.offsets))
    return result


def _tied_next(run: Run, ties: str) -> np.ndarray:
    """Whether each row's score equals the next row's, in the same list (``"trec"``
    compares them in single precision, as it ranks them)."""
    scores = np.asarray(run.scores)
    if ties == "trec":
        scores = scores.astype(np.float32)
    tied = np.zeros(run.n_rows, dtype=bool)
    tied[:-1] = (scores[1:] == scores[:-1]) & (_positions(run)[1:] > 0)
    return tied


def _places(run: Run, ties: str) -> np.ndarray:
    """The 0-based place of each row of the run in its list as ``evaluate`` ranks it
    under the tie rule ``ties``; under ``"average"`` and ``"worst"`` the first place of
    its block of tied scores."""
    position = _positions(run)
    if ties in ("average", "worst"):
        starts = np.ones(run.n_rows, dtype=bool)
        starts[1:] = ~_tied_next(run, ties)[:-1]
        start_row = np.maximum.accumulate(np.where(starts, np.arange(run.n_rows), 0))
        first: np.ndarray = position[start_row]
        return first
    place = np.empty(run.n_rows, dtype=np.int64)
    place[run.in_tie_order(np.arange(run.n_rows), ties)] = position
    return place


def missing_user_findings(test: Rows, run_rows: Rows, n_users: int, limit: int) -> list[Finding]:
    """Test users without a list in the run."""
    test_user_codes = np.flatnonzero(test.has("user", n_users))
    missing = test_user_codes[~run_rows.has("user", n_users)[test_user_codes]]
    if not len(missing):
        return []
    everyone = len(missing) == len(test_user_codes)
    first = np.full(int(test.shared_users().max()) + 1, -1, dtype=np.int64)
    first[test.shared_users()[::-1]] = np.arange(test.n_rows)[::-1]
    shown = [{"user": example_value(test.user_ids[test.users[first[u]]])} for u in missing[:limit]]
    return [
        Finding(
            "missing_users",
            "error" if everyone else "warning",
            "test/run",
            len(missing),
            len(test_user_codes),
            "test users",
            f"test users without a list in the run: {len(missing):,} of {len(test_user_codes):,} "
            f"(every metric 0 for them, by evaluate's missing_users='zero')"
            + ("; no test user matches a run user." if everyone else "."),
            no_id_matches("user")
            if everyone
            else "score every test user, or say how the missing ones count "
            "(missing_users='skip' leaves them out of the means).",
            shown,
        )
    ]


def run_findings(
    run: Run, train: Rows | None, k: int | None, repeats: bool, ties: str, limit: int
) -> list[Finding]:
    """Training items left in the lists (in the top ``k`` under the tie rule ``ties``),
    and lists shorter than ``k``."""
    out: list[Finding] = []
    place = _places(run, ties)
    top = place < k if k is not None else np.ones(run.n_rows, dtype=bool)
    if train is not None and not repeats:
        # the rows evaluate(..., exclude=train) removes, in the top k
        log = InteractionLog(train.user_ids, train.item_ids, train.users, train.items)
        users = np.repeat(np.arange(run.n_users), np.diff(run.offsets))
        listed = np.flatnonzero(top)
        seen = SeenItems.from_log(log).seen_rows(
            users[listed], run.user_ids, run.items[listed], run.item_ids
        )
        rows = listed[seen]
        if len(rows):
            n_users = len(distinct(users[rows]))
            where = f"in the top {k}" if k is not None else "in the lists"
            total = int(top.sum())
            out.append(
                Finding(
                    "unmasked_train_items",
                    "warning",
                    "train/run",
                    len(rows),
                    total,
                    "run rows" if k is None else f"run rows in the top {k}",
                    f"training items of the user {where}: {counted(len(rows), 'run row')} of "
                    f"{counted(n_users, 'user')}; they take the places of the items to find.",
                    "remove each user's training items before the list is cut at k "
                    "(evaluate(..., exclude=train)), or declare "
                    "repeats=True when items may recur.",
                    [_run_example(run, int(r), rank=int(place[r]) + 1) for r in rows[:limit]],
                    {"n_users": n_users},
                )
            )
    if k is not None:
        lengths = np.diff(run.offsets)
        short = np.flatnonzero(lengths < k)
        if len(short):
            out.append(
                Finding(
                    "short_lists",
                    "warning",
                    "run",
                    len(short),
                    run.n_users,
                    "run users",
                    f"lists shorter than k = {k}: {len(short):,} of {run.n_users:,} (the "
                    f"shortest: {counted(int(lengths.min()), 'item')}); precision@{k} still "
                    f"divides by {k}.",
                    f"rank at least {counted(k, 'item')} per user, or choose k no larger than the "
                    f"lists "
                    f"(precision_normalizer='retrieved' divides by the list's length).",
                    [
                        {"user": example_value(run.user_ids[u]), "length": int(lengths[u])}
                        for u in short[:limit]
                    ],
                    {"min_length": int(lengths.min())},
                )
            )
    return out


def _run_example(run: Run, row: int, **extra: Any) -> dict[str, Any]:
    user = int(np.searchsorted(run.offsets, row, side="right") - 1)
    return {
        "user": example_value(run.user_ids[user]),
        "item": example_value(run.item_ids[run.items[row]]),
        "score": float(run.scores[row]),
    } | extra


def tie_findings(
    run: Run,
    test: Qrels | None,
    metrics: Sequence[str],
    k: int | None,
    conventions: tuple[str | None, str | None],
    ties: str,
    limit: int,
) -> list[Finding]:
    """Equal scores where the order of the list matters, and how each metric moves
    between the evaluation's tie rule (``conventions``: the ``profile`` and ``ties`` of
    ``evaluate``; ``ties``: the rule they resolve to) and ``ties="average"``."""
    profile, given = conventions
    tied_next = _tied_next(run, ties)
    if k is not None:
        tied_next &= _positions(run) < k  # a tie inside the top k or across its cut
    place = _places(run, ties)
    rows = np.flatnonzero(tied_next)
    if not len(rows):
        return []
    users = np.repeat(np.arange(run.n_users), np.diff(run.offsets))
    tied_users = distinct(users[rows])
    details: dict[str, Any] = {"n_users": len(tied_users), "ties": ties}
    moved = False
    if test is not None:
        from ..exceptions import RecevalWarning
        from ..ranking.evaluation import evaluate

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RecevalWarning)
            report = evaluate(
                test, run, list(metrics), profile=profile, ties=given, min_match=0.0,
                allow_unmatched=True,
            )  # fmt: skip
        per_metric = {}
        for m in report.mean:
            mean = float(report.mean[m])
            average = float(report.mean_ties_average.get(m, mean))
            per_metric[m] = {
                "mean": mean,
                "mean_ties_average": average,
                "difference": average - mean,
                "n_users_tie_dependent": int(report.n_users_tie_dependent.get(m, 0)),
            }
            moved |= average != mean
        details["metrics"] = per_metric
    where = f"in the top {k} (or across its cut)" if k is not None else "in the lists"
    message = f"lists with tied scores {where}: {len(tied_users):,} of {run.n_users:,}"
    if test is None:
        message += "."
    elif ties == "average":
        message += "; ties='average' takes each metric's expected value over their orders."
    elif moved:
        spread = ", ".join(
            f"{m} {d['mean']:.4f} with ties={ties!r}, {d['mean_ties_average']:.4f} "
            f"averaged over tie orders"
            for m, d in details["metrics"].items()
            if d["difference"] != 0
        )
        message += f"; the order of the ties moves the metrics: {spread}."
    else:
        message += "; no metric depends on their order."
    return [
        Finding(
            "tied_scores",
            "warning" if moved else "info",
            "run",
            len(tied_users),
            run.n_users,
            "run users",
            message,
            "break ties in the model's scores (e.g. add a small, documented secondary score), "
            "or report the metrics with ties='average' (the expected value over every order).",
            [_run_example(run, int(r), rank=int(place[r]) + 1) for r in rows[:limit]],
            details,
        )
    ]

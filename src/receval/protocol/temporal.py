"""Temporal checks: test interactions that precede training ones.

- ``temporal_leak``: a test interaction earlier than the same user's last
  training interaction (the model saw that user's future);
- ``cutoff_leak``: with a global cut-off time, test interactions before it or
  training interactions at or after it;
- ``timeline_overlap``: without a cut-off, test interactions earlier than the
  last training interaction of anyone (a per-user split: the model was trained
  on interactions that happened after the ones it is tested on).
"""

from __future__ import annotations

import datetime as _dt
from typing import Any

import numpy as np

from .._parameters import counted
from ..data._lookup import distinct
from ..data._times import (
    OFFSETS,
    SOME_OFFSETS,
    check_zone,
    common_unit,
    cutoff_key,
    earlier,
    in_unit,
)
from ..exceptions import InputValidationError
from .inputs import Rows, show_time
from .report import Finding

__all__ = ["temporal_findings"]


def _check_kinds(train: Rows, test: Rows) -> None:
    """Refuse times of train and test that compare as no one kind of time: epoch
    numbers beside datetimes, and naive datetimes beside tz-aware ones (a time zone, or
    ISO 8601 text with UTC offsets), as pandas and polars refuse to compare them (the
    naive ones would be read as UTC). Text with an offset on some times only holds
    both kinds and compares with either, its naive times as UTC."""
    if train.time_kind != test.time_kind:
        raise InputValidationError(
            f"audit: the times of train ({train.time_column!r}) are "
            f"{'epoch numbers' if train.time_kind == 'number' else 'datetimes'} and those of "
            f"test ({test.time_column!r}) "
            f"{'epoch numbers' if test.time_kind == 'number' else 'datetimes'}; give both "
            f"in one kind so that they compare."
        )
    zones = (train.time_zone, test.time_zone)
    naive = [zone is None for zone in zones]
    if train.time_kind == "number" or SOME_OFFSETS in zones or naive[0] == naive[1]:
        return
    said = [_awareness(zone) for zone in zones]
    raise InputValidationError(
        f"audit: the times of train ({train.time_column!r}) are {said[0]} and those of "
        f"test ({test.time_column!r}) {said[1]}, which compare as no one kind of time; "
        f"give both a time zone (the naive ones, as their clock reads, with pandas' "
        f".dt.tz_localize(<their zone>)), or neither."
    )


def _awareness(zone: str | None) -> str:
    """The kind of datetimes of time zone ``zone``, in words."""
    if zone is None:
        return "naive (no time zone)"
    if zone == OFFSETS:
        return "tz-aware (ISO 8601 text with UTC offsets, compared as instants in UTC)"
    return f"tz-aware (time zone {zone})"


def _one_unit(
    train: Rows, test: Rows, train_times: np.ndarray, test_times: np.ndarray
) -> tuple[Any, np.ndarray, np.ndarray]:
    """The times of train and test in one unit (the finer of theirs; None for
    numbers), and that unit."""
    a, b = train.time_unit, test.time_unit
    if a is None or b is None or a == b:
        return a, train_times, test_times
    unit = common_unit(a, b)  # the finer
    return (
        unit,
        in_unit(train_times, a, unit, f"audit: the {train.time_column!r} column of train"),
        in_unit(test_times, b, unit, f"audit: the {test.time_column!r} column of test"),
    )


def _last_train_time(train: Rows, times: np.ndarray, n_users: int) -> np.ndarray:
    """Per shared user code, the latest training time (the lowest value without one)."""
    lowest = -np.inf if times.dtype.kind == "f" else np.iinfo(np.int64).min
    last = np.full(n_users, lowest, dtype=times.dtype)
    np.maximum.at(last, train.shared_users(), times)
    return last


def temporal_findings(
    train: Rows, test: Rows, n_users: int, cutoff: Any, limit: int
) -> list[Finding]:
    """The findings of the temporal checks (train and test both have times)."""
    if train.times is None or test.times is None:
        return []
    _check_kinds(train, test)
    unit, train_times, test_times = _one_unit(train, test, train.times, test.times)
    out: list[Finding] = []
    last = _last_train_time(train, train_times, n_users)
    test_users = test.shared_users()
    before = earlier(test_times, last[test_users])
    if before.any():
        rows = np.flatnonzero(before)
        n_users_hit = len(distinct(test_users[rows]))
        out.append(
            Finding(
                "temporal_leak",
                "error",
                "train/test",
                len(rows),
                test.n_rows,
                "test rows",
                f"test interactions earlier than the same user's last training interaction: "
                f"{len(rows):,} of {test.n_rows:,}, of {counted(n_users_hit, 'user')}.",
                "split each user's interactions by time (receval.split.leave_last_out or "
                "temporal) so that every test interaction follows the user's training ones.",
                [
                    test.example(int(r), last_train_time=show_time(last[test_users[r]], unit))
                    for r in rows[:limit]
                ],
                {"n_users": n_users_hit},
            )
        )
    if cutoff is not None:
        at = cutoff_key(cutoff, unit, "cutoff", "audit", test_times)
        for part in (train, test):
            column = f"{part.name}'s time column"
            check_zone(cutoff, part.time_unit, part.time_zone, "cutoff", "audit", column)
        shown = _as_given(cutoff, at, unit)
        early = np.flatnonzero(earlier(test_times, at))
        if len(early):
            out.append(
                Finding(
                    "cutoff_leak",
                    "error",
                    "test",
                    len(early),
                    test.n_rows,
                    "test rows",
                    f"test interactions earlier than the cut-off {shown}: {len(early):,} of "
                    f"{test.n_rows:,}.",
                    "keep only interactions at or after the cut-off in test "
                    "(receval.split.temporal).",
                    [test.example(int(r)) for r in early[:limit]],
                    {"cutoff": shown},
                )
            )
        late = np.flatnonzero(~earlier(train_times, at))
        if len(late):
            out.append(
                Finding(
                    "cutoff_leak",
                    "error",
                    "train",
                    len(late),
                    train.n_rows,
                    "train rows",
                    f"training interactions at or after the cut-off {shown}: {len(late):,} of "
                    f"{train.n_rows:,}.",
                    "keep only interactions before the cut-off in train (receval.split.temporal).",
                    [train.example(int(r)) for r in late[:limit]],
                    {"cutoff": shown},
                )
            )
        return out
    latest = train_times.max()
    overlap = np.flatnonzero(earlier(test_times, latest))
    if len(overlap) and not before.all():
        out.append(
            Finding(
                "timeline_overlap",
                "info",
                "train/test",
                len(overlap),
                test.n_rows,
                "test rows",
                f"test interactions earlier than the last training interaction "
                f"({show_time(latest, unit)}): {len(overlap):,} of {test.n_rows:,}; the split "
                f"is per user, so the model learnt from interactions later than some it is "
                f"tested on.",
                "split at one global time (receval.split.temporal) when the evaluation must "
                "not see the future of any user, and audit the split with its cut-off.",
                [test.example(int(r)) for r in overlap[:limit]],
                {"last_train_time": show_time(latest, unit)},
            )
        )
    return out


def _as_given(cutoff: Any, at: Any, unit: Any) -> Any:
    """The cut-off as the caller wrote it (text, a datetime or a NumPy datetime), which
    may fall inside a tick of the column's unit (``"2020-01-15"`` on a column of months,
    that compares as ``2020-02``); a number as the column's time (:func:`show_time`)."""
    if isinstance(cutoff, str):
        return cutoff
    if isinstance(cutoff, (_dt.date, np.datetime64)):
        return cutoff.isoformat() if isinstance(cutoff, _dt.date) else str(cutoff)
    return show_time(at, unit)

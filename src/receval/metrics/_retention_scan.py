"""Retention of a :func:`receval.scan` event log, in passes over the file.

Memory: one batch, and per user its id, a bitset of the window's periods and a
signup time. Any row order.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from ..data.scan import Scan
from ..exceptions import InputValidationError, InvalidParameterError
from ._cohorts import CohortCounts, check_options, retention_report
from ._times import (
    FUNC,
    Times,
    iso_second,
    period_window,
    py_scalar,
    times_from_numbers,
    to_times,
)


class _UserCodes:
    """Dense user codes across batches, in order of first appearance."""

    def __init__(self) -> None:
        self.ids: np.ndarray | None = None

    @property
    def n(self) -> int:
        return 0 if self.ids is None else len(self.ids)

    def id_of(self, code: int) -> Any:
        """The id of a user code given out already."""
        if self.ids is None:  # pragma: no cover - no code given out yet
            raise IndexError(code)
        return self.ids[code]

    def codes(self, users: Any, func: str) -> tuple[np.ndarray, np.ndarray]:
        """(code of each row, code of each of the batch's distinct users)."""
        from ..data._encode import factorize, lookup

        local, uniques = factorize(users, "user", func)
        uniques = np.asarray(uniques)
        if self.ids is None:
            self.ids = uniques
            return local.astype(np.int32), np.arange(len(uniques), dtype=np.int64)
        known = lookup(uniques, self.ids).astype(np.int64)
        new = known < 0
        known[new] = len(self.ids) + np.arange(int(new.sum()))
        self.ids = np.concatenate([self.ids, uniques[new]])
        return local.astype(np.int32), known


def _grown(arr: np.ndarray, n: int, fill: Any) -> np.ndarray:
    """``arr`` with at least ``n`` rows (capacity doubling), new rows ``fill``."""
    if len(arr) >= n:
        return arr
    out = np.full((max(n, 2 * len(arr)), *arr.shape[1:]), fill, dtype=arr.dtype)
    out[: len(arr)] = arr
    return out


def scan_retention(
    events: Scan,
    *,
    user: str,
    time: str,
    signup: Any,
    period: str,
    days: Any,
    tz: Any,
    time_unit: str | None,
    before_signup: str,
) -> Any:
    """:func:`receval.retention` of a scanned event log, in passes over the file.

    Memory: one batch, and per user its id, a bitset of the window's periods
    and a signup time. Any row order.
    """
    from .._kernels import compiled, num_threads

    k = compiled()

    func = FUNC
    offsets, zone, tz_name = check_options(period, days, tz, time_unit, before_signup)
    if signup is not None and not isinstance(signup, str):
        raise InvalidParameterError(
            f"The 'signup' parameter of {func} must be None or a column of the scanned events. "
            f"Got {type(signup).__name__} instead; for a separate signup table, read the "
            f"events in memory or join the signup times onto the events file."
        )
    scan = events
    columns = [user, time] + ([signup] if signup is not None else [])
    scan._check_columns(columns)
    where_path = scan.name

    def where_of(offset: int) -> Any:
        def where(i: int) -> str:
            if scan.file_format in ("csv", "tsv"):
                return f"{where_path}:{offset + i + 2}"
            return f"{where_path}: row {offset + i}"

        return where

    def batches(cols: list[str], label: str) -> Iterator[tuple[int, dict[str, Any]]]:
        offset = 0
        for batch in scan.batches(cols, ids=[user], description=f"{func} ({label})"):
            yield offset, batch
            offset += len(batch[cols[0]])

    # pass 1: the unit of epoch numbers, from each column's extremes
    units = {time: time_unit, signup: time_unit}
    numeric = [c for c in (time, signup) if c is not None and time_unit is None]
    if numeric:
        lo = dict.fromkeys(numeric)
        hi = dict.fromkeys(numeric)
        for _, batch in batches(numeric, "units"):
            for c in list(numeric):
                a = batch[c]
                if not (isinstance(a, np.ndarray) and a.dtype.kind in "iuf"):
                    numeric.remove(c)
                    continue
                a = a[~np.isnan(a)] if a.dtype.kind == "f" and c == signup else a
                if a.size:
                    lo[c] = a.min() if lo[c] is None else min(lo[c], a.min())
                    hi[c] = a.max() if hi[c] is None else max(hi[c], a.max())
            if not numeric:
                break
        for c in numeric:
            if lo[c] is not None:
                name = "time" if c == time else "signup"
                t = times_from_numbers(np.array([lo[c], hi[c]]), None, name, None, c == signup)
                units[c] = t.unit
    unit = units[time]

    # pass 2: the window, from the earliest and latest event
    kinds: set[str] = set()
    first = last = None
    n_events = 0
    for offset, batch in batches([time], "window"):
        t = to_times(batch[time], "time", unit, where_of(offset), allow_missing=False)
        n_events += len(t.values)
        kinds.add(t.kind)
        a, b = int(t.values.min()), int(t.values.max())
        if t.kind != "date":
            a, b = a // t.divisor, b // t.divisor
        first = a if first is None else min(first, a)
        last = b if last is None else max(last, b)
    if first is None:
        raise InputValidationError(f"{func}: events is empty; pass at least one event.")
    if len(kinds) > 1:
        raise InputValidationError(
            f"{func}: the times in {where_path} are bare dates ('2024-01-31') in some batches "
            f"and date-times in others; write them all one way (or read the file in memory)."
        )
    kind = kinds.pop()
    window = period_window(Times(np.array([first, last], np.int64), 1, kind, None), zone,
                        period, "time")  # fmt: skip
    n_periods = window.n_periods
    n_words = (n_periods + 63) // 64

    # pass 3: users, and each user's signup time
    users = _UserCodes()
    seconds = np.zeros(0, dtype=np.int64)
    has = np.zeros(0, dtype=bool)
    if signup is not None:
        for offset, batch in batches([user, signup], "signup"):
            local, glob = users.codes(batch[user], func)
            s = to_times(batch[signup], "signup", units[signup], where_of(offset), True)
            if s.kind == "date":
                s.values, s.divisor = window.seconds_of_days(s.values, zone), 1
            valid = np.ones(len(local), bool) if s.valid is None else s.valid
            sec, got, conflict = k.signup_per_user(
                local,
                np.ascontiguousarray(s.values, dtype=np.int64),
                np.int64(s.divisor),
                np.ascontiguousarray(valid, dtype=bool),
                len(glob),
            )
            seconds = _grown(seconds, users.n, 0)
            has = _grown(has, users.n, False)
            clash = got & has[glob] & (seconds[glob] != sec)
            if conflict >= 0 or clash.any():
                if conflict >= 0:  # two times within the batch
                    u = int(local[conflict])
                    both = (int(sec[u]), int(s.values[conflict]) // s.divisor)
                else:  # a time that differs from an earlier batch's
                    u = int(np.flatnonzero(clash)[0])
                    both = (int(seconds[glob[u]]), int(sec[u]))
                raise InputValidationError(
                    f"{func}: signup must give one time per user. Got {iso_second(both[0])} and "
                    f"{iso_second(both[1])} for user {py_scalar(users.id_of(glob[u]))!r} in "
                    f"{where_path}; keep one signup time per user, e.g. the earliest."
                )
            seconds[glob[got]] = sec[got]
            has[glob[got]] = True

    # pass 4: activity bitsets and events before signup
    bits = np.zeros((0, n_words), dtype=np.uint64)
    flagged = np.zeros(0, dtype=bool)
    n_before = 0
    n_threads = num_threads()
    for offset, batch in batches([user, time], "activity"):
        local, glob = users.codes(batch[user], func)
        t = to_times(batch[time], "time", unit, where_of(offset), allow_missing=False)
        if t.kind == "date":
            t = Times(window.seconds_of_days(t.values, zone), 1, "instant", None)
        values = np.ascontiguousarray(t.values, dtype=np.int64)
        periods = k.periods_of_instants(
            values, np.int64(t.divisor), window.bounds, window.period_of_day, n_threads
        )
        part = k.activity_bitsets(local, periods, len(glob), n_words, max(1, n_threads))
        bits = _grown(bits, users.n, 0)
        bits[glob] |= part.reshape(len(glob), n_words)
        if signup is not None:
            seconds = _grown(seconds, users.n, 0)
            has = _grown(has, users.n, False)
            count, flags, row = k.events_before_signup(
                local, values, np.int64(t.divisor), seconds[glob], has[glob], n_threads
            )
            if count and before_signup == "error":
                u = glob[int(local[row])]
                raise InputValidationError(
                    f"{func}: events of users earlier than the user's signup, e.g. user "
                    f"{py_scalar(users.id_of(u))!r} at "
                    f"{iso_second(int(t.values[row]) // t.divisor)} signed up at "
                    f"{iso_second(int(seconds[u]))} ({where_of(offset)(int(row))}); "
                    f"pass before_signup='keep' to count them as logins or "
                    f"before_signup='drop' to ignore them."
                )
            n_before += int(count)
            flagged = _grown(flagged, users.n, False)
            flagged[glob[flags]] = True
    n_users = users.n
    seconds, has = _grown(seconds, n_users, 0)[:n_users], _grown(has, n_users, False)[:n_users]
    cohort = np.full(n_users, k.NO_SIGNUP, dtype=np.int32)
    cohort[has] = window.periods_of_seconds(seconds[has])
    drop = before_signup == "drop"
    acc_parts = max(1, min(n_threads, 8, (1 << 28) // max(1, 8 * n_periods * n_periods)))
    parts = k.accumulate_bitsets(
        np.ascontiguousarray(bits[:n_users]).ravel(), n_words, cohort, n_periods, drop, acc_parts
    )
    new, login, table = (p.sum(axis=0) for p in parts)
    counts = CohortCounts(
        new, login, table, n_events, n_users,
        without=int(n_users - has.sum()) if signup is not None else 0,
        before_window=int((cohort == k.BEFORE).sum()),
        after_window=int((cohort == k.AFTER).sum()),
        events_before=n_before,
        users_before=int(_grown(flagged, n_users, False)[:n_users].sum()),
    )  # fmt: skip
    return retention_report(
        counts, window, period, tz_name, offsets, before_signup, unit,
        time_unit is None and unit is not None,
    )  # fmt: skip

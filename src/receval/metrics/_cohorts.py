"""Retention's cohort counting: options, signup times, per-user activity and the report.

- :func:`check_options` checks the options of :func:`receval.retention`;
- :func:`count_cohorts` counts new and login users per period and the
  cohort x offset table of a set of whole users (:class:`CohortCounts`,
  whose counts of disjoint users add up);
- :func:`retention_report` turns the counts into a :class:`RetentionReport`.

Times and the window of periods come from ``_times``.
"""

from __future__ import annotations

import datetime as _dt
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import numpy as np

from .. import _validation as v
from ..data import io
from ..data._encode import factorize, lookup
from ..exceptions import InputValidationError, InvalidParameterError
from ._times import (
    FUNC,
    TIME_UNITS,
    PeriodWindow,
    Times,
    first_day_of_periods,
    iso_second,
    py_scalar,
    to_times,
)

__all__ = ["RetentionReport"]

_PERIODS = ["day", "month", "week"]
_BEFORE_SIGNUP = ["drop", "error", "keep"]
# "bitset" or "csr" forces a method (tests); None picks the one needing less memory
_METHOD: str | None = None


@dataclass(frozen=True)
class RetentionReport:
    """New, login and returning users per period, and the retention of each cohort.

    Periods are indexed ``0 .. n_periods - 1`` over the observation window,
    from the period of the first event to the period of the last one; a
    cohort is the set of users new in a period, so cohort ``c`` is period
    ``c``. Every array is a NumPy array; the ``*_frame`` methods build pandas
    or polars DataFrames from them.

    Attributes
    ----------
    period : {"day", "week", "month"}
        The period unit.
    tz : str
        The time zone of the period boundaries.
    days : tuple of int
        The offsets N of the day-N retention columns (N periods later).
    periods : ndarray of shape (n_periods,), dtype datetime64[D]
        The local date on which each period starts (a Monday for weeks, the
        1st for months). Periods without any event are included.
    new_users : ndarray of shape (n_periods,)
        Users whose cohort is the period: their signup is in it or, without
        a signup time, their first event.
    login_users : ndarray of shape (n_periods,)
        Users with at least one event in the period (a signup counts as one).
    returning_users : ndarray of shape (n_periods,)
        ``login_users - new_users``: users with an event in the period whose
        cohort is an earlier period (or who signed up before the window).
        ``active_users`` is a deprecated alias.
    login_users_per_new_user : ndarray of shape (n_periods,)
        ``login_users / new_users`` of the same period: not a rate, it exceeds
        1 when returning users outnumber new ones; nan where ``new_users`` is
        0. ``retention_rate`` is a deprecated alias.
    retained : ndarray of shape (n_periods, len(days))
        ``retained[c, j]``: users of cohort ``c`` with an event in period
        ``c + days[j]``; 0 where that period is after the window (see ``observed``).
    day_n_retention : ndarray of shape (n_periods, len(days))
        ``retained / new_users``; nan where ``c + days[j]`` is after the last
        period of the window (not observed) or the cohort is empty.
    cohort_counts : ndarray of shape (n_periods, n_periods)
        ``cohort_counts[c, k]``: users of cohort ``c`` active in period
        ``c + k``, for every ``k``; column 0 is the cohort size. 0 where
        ``c + k`` is after the window.
    cohort_retention : ndarray of shape (n_periods, n_periods)
        ``cohort_counts / new_users``; nan where unobserved or the cohort is empty.
    n_events : int
        Event rows read.
    n_users : int
        Distinct users, in the events or with a signup time.
    n_users_without_signup : int
        With a ``signup``: users with events but no signup time; their cohort
        is their first event's period.
    n_users_signup_before_window : int
        Users whose signup is before the first period of the window: in no
        cohort; their events count as logins (and as returning users).
    n_users_signup_after_window : int
        Users whose signup is after the last period: in no cohort.
    n_events_before_signup : int
        Events earlier than their user's signup time (compared to the second).
    n_users_events_before_signup : int
        Users with such events.
    n_events_dropped : int
        Events removed by a rule: those before signup when
        ``before_signup="drop"``, else 0. No other rule removes events.
    before_signup : {"keep", "drop", "error"}
        The rule applied to events before signup.
    time_unit : {"s", "ms", "us", "ns"} or None
        The unit in which numeric (epoch) times were read; None when the
        times were datetimes, dates or strings.
    time_unit_inferred : bool
        Whether ``time_unit`` was inferred from the magnitude of the numbers.
    """

    period: str
    tz: str
    days: tuple[int, ...]
    periods: np.ndarray
    new_users: np.ndarray
    login_users: np.ndarray
    returning_users: np.ndarray
    login_users_per_new_user: np.ndarray
    retained: np.ndarray
    day_n_retention: np.ndarray
    cohort_counts: np.ndarray
    cohort_retention: np.ndarray
    n_events: int
    n_users: int
    n_users_without_signup: int
    n_users_signup_before_window: int
    n_users_signup_after_window: int
    n_events_before_signup: int
    n_users_events_before_signup: int
    n_events_dropped: int
    before_signup: str
    time_unit: str | None
    time_unit_inferred: bool

    @property
    def n_periods(self) -> int:
        """Number of periods in the window."""
        return len(self.periods)

    @property
    def before_signup_note(self) -> str | None:
        """What the ``before_signup`` rule did, in one sentence; None when no event is
        earlier than its user's signup.

        Examples
        --------
        >>> from receval import retention
        >>> events = {"user": ["a", "a", "b"],
        ...           "time": ["2024-01-01", "2024-01-03", "2024-01-02"],
        ...           "signup": ["2024-01-02", "2024-01-02", "2024-01-02"]}
        >>> print(retention(events, signup="signup", days=[1]).before_signup_note)
        1 events of 1 users are earlier than their user's signup: kept, counted as logins
        of their periods (before_signup 'keep'; 'drop' ignores them, 'error' refuses them).
        """
        n, users = self.n_events_before_signup, self.n_users_events_before_signup
        if not n:
            return None
        done, others = {
            "keep": ("kept, counted as logins of their periods", "'drop' ignores them"),
            "drop": ("dropped, counted nowhere", "'keep' counts them as logins"),
        }.get(self.before_signup, (self.before_signup, ""))
        return (
            f"{n} events of {users} users are earlier than their user's signup: {done} "
            f"(before_signup {self.before_signup!r}; {others}, 'error' refuses them)."
        )

    @property
    def active_users(self) -> np.ndarray:
        """Deprecated alias of ``returning_users``."""
        _renamed("active_users", "returning_users")
        return self.returning_users

    @property
    def retention_rate(self) -> np.ndarray:
        """Deprecated alias of ``login_users_per_new_user``."""
        _renamed("retention_rate", "login_users_per_new_user")
        return self.login_users_per_new_user

    @property
    def observed(self) -> np.ndarray:
        """Mask of shape (n_periods, len(days)): period ``c + days[j]`` is in the window."""
        c = np.arange(self.n_periods)[:, None]
        result: np.ndarray = c + np.asarray(self.days)[None, :] < self.n_periods
        return result

    def to_frame(self, backend: str | None = None) -> Any:
        """Per-period table: period, new_users, login_users, returning_users and
        login_users_per_new_user (formerly active_users and retention_rate).

        Parameters
        ----------
        backend : {"pandas", "polars"}, default=None
            Which library builds the frame; by default pandas if installed,
            else polars.
        """
        from ..data.frames import make_frame

        return make_frame(
            {
                "period": self.periods,
                "new_users": self.new_users,
                "login_users": self.login_users,
                "returning_users": self.returning_users,
                "login_users_per_new_user": self.login_users_per_new_user,
            },
            backend=backend,
        )

    def cohort_frame(self, backend: str | None = None) -> Any:
        """Per-cohort table: cohort, new_users and one rate column per N (``day_1``, ...).

        The rate columns are named ``<period>_<N>`` (``week_1`` for weekly
        periods) and hold nan where period ``cohort + N`` is not observed or
        the cohort is empty.

        Parameters
        ----------
        backend : {"pandas", "polars"}, default=None
            Which library builds the frame; by default pandas if installed,
            else polars.
        """
        from ..data.frames import make_frame

        columns: dict[str, np.ndarray] = {"cohort": self.periods, "new_users": self.new_users}
        for j, n in enumerate(self.days):
            columns[f"{self.period}_{n}"] = self.day_n_retention[:, j]
        return make_frame(columns, backend=backend)

    def table_frame(self, values: str = "rate", backend: str | None = None) -> Any:
        """The full cohort x offset table, one column per offset (``day_0``, ``day_1``, ...).

        Parameters
        ----------
        values : {"rate", "count"}, default="rate"
            Retention rates (nan where unobserved or the cohort is empty) or
            user counts (0 where unobserved).
        backend : {"pandas", "polars"}, default=None
            Which library builds the frame; by default pandas if installed,
            else polars.
        """
        from ..data.frames import make_frame

        v.check_option(values, "values", "table_frame", ["count", "rate"])
        table = self.cohort_retention if values == "rate" else self.cohort_counts
        columns: dict[str, np.ndarray] = {"cohort": self.periods, "new_users": self.new_users}
        for k in range(self.n_periods):
            columns[f"{self.period}_{k}"] = table[:, k]
        return make_frame(columns, backend=backend)


# ------------------------------------------------------------------ parameters
def _renamed(old: str, new: str) -> None:
    warnings.warn(
        f"RetentionReport.{old} is deprecated; use RetentionReport.{new} (the same values).",
        DeprecationWarning,
        stacklevel=3,
    )


def check_options(
    period: str, days: Any, tz: Any, time_unit: str | None, before_signup: str
) -> tuple[tuple[int, ...], _dt.tzinfo, str]:
    """Check the options of :func:`retention`: (day offsets, zone, zone name)."""
    v.check_option(period, "period", FUNC, _PERIODS)
    v.check_option(before_signup, "before_signup", FUNC, _BEFORE_SIGNUP)
    v.check_option(time_unit, "time_unit", FUNC, [None, *TIME_UNITS])
    offsets = _check_days(days)
    zone, tz_name = _check_tz(tz)
    return offsets, zone, tz_name


def _check_days(days: Any) -> tuple[int, ...]:
    if isinstance(days, (int, np.integer)) and not isinstance(days, (bool, np.bool_)):
        days = (days,)
    if isinstance(days, (str, bytes)) or not isinstance(days, (Sequence, np.ndarray)):
        raise InvalidParameterError(
            f"The 'days' parameter of {FUNC} must be a positive integer or a sequence of "
            f"them. Got {days!r} instead."
        )
    out = tuple(
        v.check_number(d, "days", FUNC, integer=True, low=1) for d in np.asarray(days).tolist()
    )
    if not out:
        raise InvalidParameterError(
            f"The 'days' parameter of {FUNC} must hold at least one positive integer. "
            f"Got {days!r} instead."
        )
    if len(set(out)) != len(out):
        raise InvalidParameterError(
            f"The 'days' parameter of {FUNC} must not repeat a value. Got {days!r} instead."
        )
    return out


def _check_tz(tz: Any) -> tuple[_dt.tzinfo, str]:
    if isinstance(tz, _dt.tzinfo):
        return tz, str(getattr(tz, "key", None) or tz)
    if isinstance(tz, str):
        try:
            return ZoneInfo(tz), tz
        except (ZoneInfoNotFoundError, ValueError):
            pass
    raise InvalidParameterError(
        f"The 'tz' parameter of {FUNC} must be an IANA time zone name such as 'UTC', "
        f"'Asia/Shanghai' or 'America/New_York', or a datetime.tzinfo. Got {tz!r} instead."
    )


# ------------------------------------------------------------------ reading
def _columns_of(data: Any) -> list[str]:
    if io.module_of(data) == "pyarrow":
        return list(data.schema.names)
    if isinstance(data, Mapping):
        return [str(k) for k in data.keys()]
    return [str(c) for c in data.columns]


def _column(data: Any, name: str, what: str, argument: str) -> Any:
    names = _columns_of(data)
    if name not in names:
        raise InputValidationError(
            f"{FUNC}: the events have no column {name!r} for the {what}. Got columns "
            f"{v.format_values(names, limit=10)}; pass {argument}='<column name>'."
        )
    return data[name]


def is_table(obj: Any) -> bool:
    """Whether ``obj`` is a DataFrame, an Arrow table or a mapping of columns."""
    return io.is_frame(obj) or isinstance(obj, Mapping)


def event_times(data: Any, time: str, time_unit: str | None, where: Any) -> Times:
    """The event times of a table, parsed (no missing value allowed)."""
    return to_times(
        _column(data, time, "event times", "time"), "time", time_unit, where, allow_missing=False
    )


# ------------------------------------------------------------------ signup
def _signup_rows(
    signup: Any,
    data: Any,
    user_codes: np.ndarray,
    user_ids: np.ndarray,
    user_name: str,
    time_unit: str | None,
    where: Callable[[int], str],
) -> tuple[np.ndarray, Times, np.ndarray]:
    """Rows (user code, signup time) and the ids of the users found only in ``signup``."""
    if isinstance(signup, str):
        col = _column(data, signup, "signup times", "signup")
        t = to_times(col, "signup", time_unit, where, allow_missing=True)
        return user_codes, t, user_ids[:0]
    if type(signup).__name__ == "Series" and io.module_of(signup) == "pandas":
        users: Any = signup.index.to_numpy()
        times: Any = signup
    elif is_table(signup) and not isinstance(signup, Mapping):
        names = _columns_of(signup)
        missing = [c for c in (user_name, "signup") if c not in names]
        if missing:
            raise InputValidationError(
                f"{FUNC}: the signup table has no column {missing[0]!r}. Got columns "
                f"{v.format_values(names, limit=10)}; pass a table with columns "
                f"{user_name!r} and 'signup', e.g. users.rename(columns={{'created_at': "
                f"'signup'}})."
            )
        users, times = signup[user_name], signup["signup"]
    elif isinstance(signup, Mapping):
        users, times = list(signup.keys()), list(signup.values())
    else:
        raise InvalidParameterError(
            f"The 'signup' parameter of {FUNC} must be None, the name of a column of events, "
            f"a mapping from user to signup time, or a table with columns {user_name!r} and "
            f"'signup'. Got {type(signup).__name__} instead."
        )
    t = to_times(times, "signup", time_unit, lambda i: f"{FUNC}: signup row {i}", True)
    users_arr = v.as_1d(users, "signup users", FUNC)
    if len(users_arr) != len(t.values):  # pragma: no cover - same table
        raise InputValidationError(f"{FUNC}: signup users and times differ in length.")
    codes = lookup(users_arr, user_ids).astype(np.int64)
    unknown = codes < 0
    if t.valid is not None:  # a user only in the signup table, without a time: nothing to count
        keep = ~(unknown & ~t.valid)
        codes, unknown, users_arr = codes[keep], unknown[keep], users_arr[keep]
        t.values, t.valid = t.values[keep], t.valid[keep]
    new_ids = users_arr[:0]
    if unknown.any():
        new_codes, new_ids = factorize(users_arr[unknown], "signup users", FUNC)
        codes[unknown] = len(user_ids) + new_codes
    return codes.astype(np.int32), t, new_ids


# ------------------------------------------------------------------ counting
@dataclass
class CohortCounts:
    """The counts behind a retention report; counts of disjoint users add up."""

    new: np.ndarray  # int64 (n_periods,)
    login: np.ndarray  # int64 (n_periods,)
    table: np.ndarray  # int64 (n_periods, n_periods): cohort x offset
    n_events: int
    n_users: int
    without: int = 0  # users with events but no signup time
    before_window: int = 0
    after_window: int = 0
    events_before: int = 0
    users_before: int = 0

    def merge(self, other: CohortCounts) -> CohortCounts:
        """The counts of both sets of users (no user in both)."""
        return CohortCounts(
            self.new + other.new,
            self.login + other.login,
            self.table + other.table,
            *(
                getattr(self, f) + getattr(other, f)
                for f in (
                    "n_events", "n_users", "without", "before_window", "after_window",
                    "events_before", "users_before",
                )
            ),
        )  # fmt: skip


def count_cohorts(
    data: Any,
    user: str,
    times: Times,
    signup: Any,
    window: PeriodWindow,
    zone: _dt.tzinfo,
    time_unit: str | None,
    before_signup: str,
    where: Any,
    signup_unit: str | None = None,
) -> CohortCounts:
    """Cohort counts of the events of ``data`` (whole users) in a fixed window.

    ``times`` are the parsed event times of ``data``. ``signup_unit`` (if
    given) overrides ``time_unit`` for epoch numbers of the signup times.
    """
    from .._kernels import compiled, num_threads

    k = compiled()

    user_col = io.frame_columns(data, {"user": user}, FUNC)["user"]
    codes, user_ids = factorize(user_col, "user", FUNC)
    n_events = v.check_same_length(FUNC, user=codes, time=times.values)
    codes = codes.astype(np.int32, copy=False)
    if times.kind == "date":
        times = Times(window.seconds_of_days(times.values, zone), 1, "instant", None)
    n_event_users = len(user_ids)
    n_users = n_event_users
    n_periods = window.n_periods
    n_threads = num_threads()
    values = np.ascontiguousarray(times.values, dtype=np.int64)
    periods = k.periods_of_instants(
        values, np.int64(times.divisor), window.bounds, window.period_of_day, n_threads
    )

    # ---- signup
    cohort = np.full(n_users, k.NO_SIGNUP, dtype=np.int32)
    counts = {"without": 0, "before_window": 0, "after_window": 0, "events": 0, "users": 0}
    if signup is not None:
        unit = signup_unit if signup_unit is not None else time_unit
        s_codes, s_times, new_ids = _signup_rows(signup, data, codes, user_ids, user, unit, where)
        n_users += len(new_ids)
        if s_times.kind == "date":
            s_times.values = window.seconds_of_days(s_times.values, zone)
            s_times.divisor = 1
        valid = np.ones(len(s_codes), bool) if s_times.valid is None else s_times.valid
        seconds, has, conflict = k.signup_per_user(
            np.ascontiguousarray(s_codes, dtype=np.int32),
            np.ascontiguousarray(s_times.values, dtype=np.int64),
            np.int64(s_times.divisor),
            np.ascontiguousarray(valid, dtype=bool),
            n_users,
        )
        if conflict >= 0:
            _raise_conflict(conflict, s_codes, s_times, seconds, user_ids, new_ids)
        cohort = np.full(n_users, k.NO_SIGNUP, dtype=np.int32)
        cohort[has] = window.periods_of_seconds(seconds[has])
        counts["without"] = int(n_event_users - has[:n_event_users].sum())
        counts["before_window"] = int((cohort == k.BEFORE).sum())
        counts["after_window"] = int((cohort == k.AFTER).sum())
        n_before, flagged, first = k.events_before_signup(
            codes, values, np.int64(times.divisor), seconds, has, n_threads
        )
        counts["events"], counts["users"] = int(n_before), int(flagged.sum())
        if before_signup == "error" and n_before:
            u = int(codes[first])
            shown = iso_second(int(times.values[first]) // times.divisor)
            raise InputValidationError(
                f"{FUNC}: {n_before} events of {counts['users']} users are earlier than the "
                f"user's signup, e.g. user {py_scalar(user_ids[u])!r} at {shown} signed up at "
                f"{iso_second(int(seconds[u]))}; pass before_signup='keep' to count them as logins "
                f"or before_signup='drop' to ignore them."
            )

    # ---- per-user activity and the cohort counts
    drop = before_signup == "drop"
    new, login, table = _activity_counts(k, codes, periods, cohort, n_periods, drop, n_threads)
    return CohortCounts(
        new, login, table, n_events, n_users, counts["without"], counts["before_window"],
        counts["after_window"], counts["events"], counts["users"],
    )  # fmt: skip


def retention_report(
    c: CohortCounts,
    window: PeriodWindow,
    period: str,
    tz_name: str,
    offsets: tuple[int, ...],
    before_signup: str,
    unit: str | None,
    inferred: bool,
) -> RetentionReport:
    """Rates and the report from the counts."""
    n_periods = window.n_periods
    new, login, table = c.new, c.login, c.table
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(new > 0, login / np.maximum(new, 1), np.nan)
        cohort_rate = table / np.where(new > 0, new, 1)[:, None]
    offset = np.arange(n_periods)
    unobserved = offset[:, None] + offset[None, :] >= n_periods  # the kernels count none there
    cohort_rate[unobserved | (new == 0)[:, None]] = np.nan
    days_idx = np.asarray(offsets)
    retained = np.zeros((n_periods, len(offsets)), dtype=np.int64)
    day_rate = np.full((n_periods, len(offsets)), np.nan)
    inside = days_idx < n_periods
    retained[:, inside] = table[:, days_idx[inside]]
    day_rate[:, inside] = cohort_rate[:, days_idx[inside]]
    first_days = first_day_of_periods(window.first_period + offset, period)
    return RetentionReport(
        period=period,
        tz=tz_name,
        days=offsets,
        periods=first_days.astype("datetime64[D]"),
        new_users=new,
        login_users=login,
        returning_users=login - new,
        login_users_per_new_user=rate,
        retained=retained,
        day_n_retention=day_rate,
        cohort_counts=table,
        cohort_retention=cohort_rate,
        n_events=c.n_events,
        n_users=c.n_users,
        n_users_without_signup=c.without,
        n_users_signup_before_window=c.before_window,
        n_users_signup_after_window=c.after_window,
        n_events_before_signup=c.events_before,
        n_users_events_before_signup=c.users_before,
        n_events_dropped=c.events_before if before_signup == "drop" else 0,
        before_signup=before_signup,
        time_unit=unit,
        time_unit_inferred=bool(inferred),
    )


def _raise_conflict(
    row: int,
    codes: np.ndarray,
    times: Times,
    seconds: np.ndarray,
    user_ids: np.ndarray,
    new_ids: np.ndarray,
) -> None:
    u = int(codes[row])
    who = py_scalar(user_ids[u] if u < len(user_ids) else new_ids[u - len(user_ids)])
    raise InputValidationError(
        f"{FUNC}: signup must give one time per user. Got {iso_second(int(seconds[u]))} and "
        f"{iso_second(int(times.values[row]) // times.divisor)} for user {who!r}; keep one signup "
        f"time per user, e.g. the earliest."
    )


def _activity_counts(
    k: Any,
    codes: np.ndarray,
    periods: np.ndarray,
    cohort: np.ndarray,
    n_periods: int,
    drop: bool,
    n_threads: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-period new and login users and the cohort x offset counts."""
    n_users = len(cohort)
    n_parts = max(1, min(n_threads, 8))
    # each part of the accumulation keeps its own cohort table
    acc_parts = max(1, min(n_parts, (1 << 28) // max(1, 8 * n_periods * n_periods)))
    n_words = (n_periods + 63) // 64
    bitset_bytes = 8 * n_users * n_words
    csr_bytes = 4 * len(codes) + 8 * n_users
    method = _METHOD or ("bitset" if bitset_bytes <= csr_bytes else "csr")
    if method == "bitset":
        bits = k.activity_bitsets(codes, periods, n_users, n_words, n_parts)
        parts = k.accumulate_bitsets(bits, n_words, cohort, n_periods, drop, acc_parts)
    else:
        offsets, values = k.periods_by_user(codes, periods, n_users, n_parts)
        parts = k.accumulate_csr(offsets, values, cohort, n_periods, drop, acc_parts)
    new, login, table = (part.sum(axis=0) for part in parts)
    return new, login, table

"""The result of :func:`receval.retention`: :class:`RetentionReport`, and the rates
that finalize computes from the counts of a window (:func:`retention_report`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ... import _validation as v
from ...exceptions import warn
from .times import first_day_of_periods

__all__ = ["RetentionReport", "retention_report"]


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

    def __repr__(self) -> str:
        rates = np.asarray(self.day_n_retention, dtype=np.float64)
        with np.errstate(invalid="ignore"):  # a day N observed in no cohort: nan
            means = np.nansum(rates, axis=0) / (~np.isnan(rates)).sum(axis=0)
        span = f"{self.periods[0]} to {self.periods[-1]}" if self.n_periods else "none"
        mean = ", ".join(
            f"{self.period}_{n} {m:.4f}" for n, m in zip(self.days, means, strict=True)
        )
        return (
            f"RetentionReport({v.counted(self.n_periods, self.period)}, {span} ({self.tz}), "
            f"{v.counted(self.n_events, 'event')}, {v.counted(self.n_users, 'user')})\n"
            f"  mean over observed cohorts: {mean or 'no day N'}\n"
            "  per cohort: .cohort_frame(); per period: .to_frame(); cohort x N: .table_frame()"
        )

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
        1 event of 1 user is earlier than their user's signup: kept, counted as logins
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
            f"{v.counted(n, 'event')} of {v.counted(users, 'user')} {v.verb(n, 'is')} earlier "
            f"than their user's signup: {done} "
            f"(before_signup {self.before_signup!r}; {others}, 'error' refuses them)."
        )

    @property
    def signup_note(self) -> str | None:
        """The users a signup time puts in no cohort (signed up before the window's first
        period or after its last) and those with events but no signup time (their cohort
        is their first event's), in one sentence; None when there are none.

        The events of a user who signed up after the window are all earlier than the
        signup: counted as logins, or dropped under ``before_signup="drop"``.

        Examples
        --------
        >>> from receval import retention
        >>> events = {"user": ["a", "a", "b", "c"],
        ...           "time": ["2024-01-01", "2024-01-02", "2024-01-02", "2024-01-02"],
        ...           "signup": ["2024-01-01", "2024-01-01", "2023-12-25", None]}
        >>> print(retention(events, signup="signup", days=[1]).signup_note)
        1 user signed up before the window's first day: in no cohort, their events
        counted as logins; 1 user has events but no signup time: their cohort is the
        day of their first event.
        """
        before, after = self.n_users_signup_before_window, self.n_users_signup_after_window
        first = f"{v.counted(before, 'user')} signed up before the window's first {self.period}"
        last = f"{v.counted(after, 'user')} signed up after the window's last {self.period}"
        kept = "in no cohort, their events counted as logins"
        drop = self.before_signup == "drop"
        dropped = "in no cohort, their events dropped"
        parts = []
        if before and after and not drop:
            parts.append(f"{first} and {after:,} after its last: {kept}")
        else:
            if before:
                parts.append(f"{first}: {kept}")
            if after:  # every event of theirs is earlier than their signup
                parts.append(f"{last}: {dropped if drop else kept}")
        if self.n_users_without_signup:
            parts.append(
                f"{v.counted(self.n_users_without_signup, 'user')} "
                f"{v.verb(self.n_users_without_signup, 'has')} events but no signup time: their "
                f"cohort is the {self.period} of their first event"
            )
        return "; ".join(parts) + "." if parts else None

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
        result: np.ndarray = c + _within(self.days, self.n_periods)[None, :] < self.n_periods
        return result

    def to_frame(self, backend: str | None = None) -> Any:
        """Per-period table: period, new_users, login_users, returning_users and
        login_users_per_new_user.

        Parameters
        ----------
        backend : {"pandas", "polars"}, default=None
            Which library builds the frame; by default pandas if installed,
            else polars.
        """
        from ...data.frames import make_frame

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
        from ...data.frames import make_frame

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
        from ...data.frames import make_frame

        v.check_option(values, "values", "table_frame", ["count", "rate"])
        table = self.cohort_retention if values == "rate" else self.cohort_counts
        columns: dict[str, np.ndarray] = {"cohort": self.periods, "new_users": self.new_users}
        for k in range(self.n_periods):
            columns[f"{self.period}_{k}"] = table[:, k]
        return make_frame(columns, backend=backend)


# ------------------------------------------------------------------ the rates
def _renamed(old: str, new: str) -> None:
    warn(
        f"RetentionReport.{old} is deprecated; use RetentionReport.{new} (the same values).",
        DeprecationWarning,
    )


def _within(days: tuple[int, ...], n_periods: int) -> np.ndarray:
    """``days`` as int64, those beyond the window (of any size) as ``n_periods``."""
    return np.array([min(d, n_periods) for d in days], dtype=np.int64)


def retention_report(
    counts: dict[str, Any],
    first_period: int,
    params: dict[str, Any],
    unit: str | None,
    inferred: bool,
) -> RetentionReport:
    """Rates and the report from the counts of a window of periods.

    ``counts`` holds ``new``, ``login`` (per period of the window), ``table``
    (cohort x offset, 0 where unobserved) and the counts of users and events
    (``n_events``, ``n_users``, ``without``, ``before_window``, ``after_window``,
    ``events_before``, ``users_before``).
    """
    new, login, table = counts["new"], counts["login"], counts["table"]
    n_periods = len(new)
    offsets, period, before_signup = params["days"], params["period"], params["before_signup"]
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(new > 0, login / np.maximum(new, 1), np.nan)
        cohort_rate = table / np.where(new > 0, new, 1)[:, None]
    offset = np.arange(n_periods)
    unobserved = offset[:, None] + offset[None, :] >= n_periods  # nothing is counted there
    cohort_rate[unobserved | (new == 0)[:, None]] = np.nan
    days_idx = _within(offsets, n_periods)
    retained = np.zeros((n_periods, len(offsets)), dtype=np.int64)
    day_rate = np.full((n_periods, len(offsets)), np.nan)
    inside = days_idx < n_periods
    retained[:, inside] = table[:, days_idx[inside]]
    day_rate[:, inside] = cohort_rate[:, days_idx[inside]]
    first_days = first_day_of_periods(first_period + offset, period)
    return RetentionReport(
        period=period,
        tz=params["tz_name"],
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
        n_events=counts["n_events"],
        n_users=counts["n_users"],
        n_users_without_signup=counts["without"],
        n_users_signup_before_window=counts["before_window"],
        n_users_signup_after_window=counts["after_window"],
        n_events_before_signup=counts["events_before"],
        n_users_events_before_signup=counts["users_before"],
        n_events_dropped=counts["events_before"] if before_signup == "drop" else 0,
        before_signup=before_signup,
        time_unit=unit,
        time_unit_inferred=bool(inferred),
    )

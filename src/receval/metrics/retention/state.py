"""The mergeable state of retention: the counts of a set of whole users.

Counts are kept over absolute periods (days, ISO weeks or months since 1970 in
the time zone of the options): the window (from the period of the first event
to that of the last) is known only once every user is in, so the states of
batches with different windows merge exactly, in any order, and
:func:`finalize_counts` places the users new outside their own batch's events
in the cohorts of the merged window.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from ...engine.group_ids import Seen
from ...exceptions import InputValidationError
from .times import FUNC, check_span, window_of_periods

__all__ = ["PERIODS", "TIME_KINDS", "UNITS", "RetentionState", "finalize_counts"]

#: ``RetentionState.kind``: what the event times were ("" before any event)
TIME_KINDS = ("", "instant", "date")
#: ``RetentionState.period``: the period unit
PERIODS = ("day", "week", "month")
#: ``RetentionState.unit``: the unit of epoch numbers (None: no epoch numbers)
UNITS = (None, "s", "ms", "us", "ns")


def _zeros(n: int = 0) -> np.ndarray:
    return np.zeros(n, dtype=np.int64)


@dataclass
class RetentionState:
    """New users, login users and the cohort x offset counts of a set of whole users.

    ``span`` holds ``[lo_day, hi_day, lo, hi]``: the local days of the first and
    the last event and their absolute periods (``hi < lo``: no event yet).
    ``new``, ``login`` and ``table`` (a flattened square of cohort x offset)
    cover the periods ``lo`` to ``hi``. A user whose signup is outside the
    periods of the events of their update is counted apart, as other updates
    may widen the window to their cohort: ``apart`` holds the signup seconds of
    those signed up after their events (or without events); ``early`` those of
    the users signed up before their events, with their activity,
    ``early_bits`` (a flattened row of uint64 words per user, bit ``j`` set
    when active in period ``early_first + j``). ``finalize_counts`` puts them
    in the cohorts of the merged window, or counts them before or after it.
    ``without`` counts the users with events and no signup time, reported when
    some update had signups (``with_signup``). ``users`` holds the ids of the
    users counted, so that a user given in two updates raises; ``pending`` the
    ids of an update not yet added to it.
    """

    span: np.ndarray = field(default_factory=lambda: np.array([0, -1, 0, -1], np.int64))
    new: np.ndarray = field(default_factory=_zeros)
    login: np.ndarray = field(default_factory=_zeros)
    table: np.ndarray = field(default_factory=_zeros)
    n_events: int = 0
    n_users: int = 0
    without: int = 0
    events_before: int = 0
    users_before: int = 0
    period: int = 0
    kind: int = 0
    unit: int = 0
    inferred: bool = False
    with_signup: bool = False
    apart: np.ndarray = field(default_factory=_zeros)
    early: np.ndarray = field(default_factory=_zeros)
    early_first: np.ndarray = field(default_factory=_zeros)
    early_bits: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.uint64))
    users: Seen = field(default_factory=Seen)
    pending: Any = None

    @classmethod
    def of_users(cls, period: str, ids: np.ndarray, n_users: int) -> RetentionState:
        """The state of users without an event (signups only)."""
        return cls(n_users=n_users, period=PERIODS.index(period), pending=ids)

    @property
    def has_events(self) -> bool:
        """Whether any event was counted."""
        return bool(self.span[3] >= self.span[2])

    def invalid(self) -> tuple[str, str] | None:
        """``(field, what it must be)`` of the first broken invariant (a loaded
        state), or None."""
        n = len(self.new)
        counts = (self.new, self.login, self.table)
        if any(a.dtype != np.int64 or (a < 0).any() for a in counts):
            return "new", "counts: int64 arrays >= 0 (new, login, table)"
        if len(self.login) != n or len(self.table) != n * n:
            return "table", f"n x n counts with n = len(new) = {n}, and login of length n"
        if n != max(0, int(self.span[3] - self.span[2] + 1)):
            return "span", f"the periods of the {n} counts"
        m = len(self.early)
        if (
            len(self.early_first) != m
            or (m and len(self.early_bits) % m)
            or (not m and len(self.early_bits))
        ):
            return "early_bits", "a row of words per early user"
        if not (self.period < len(PERIODS) and self.kind < len(TIME_KINDS)
                and self.unit < len(UNITS)):  # fmt: skip
            return "period", f"codes below {len(PERIODS)}, {len(TIME_KINDS)}, {len(UNITS)}"
        return None

    def _seen(self) -> Seen:
        """``users`` with the pending ids added (a new :class:`Seen`)."""
        seen = self.users.copy()
        if self.pending is not None and len(self.pending):
            seen.add(self.pending, FUNC, self.seen_as[0])
        return seen

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["users"], state["pending"] = self._seen(), None
        return state

    def without_users(self) -> RetentionState:
        """This state without the ids of its users (for states of disjoint users
        by construction, such as Spark partitions by user: less to send)."""
        self.users, self.pending = Seen(), None
        return self

    #: ``merge`` takes the caller, which a user in both names
    takes_caller: ClassVar[bool] = True
    #: an id in both states of ``merge`` or ``check_disjoint``, as the error names it:
    #: what it is and the argument it came in
    seen_as: ClassVar[tuple[str, str]] = ("users", "events")

    def check_disjoint(self, other: RetentionState, func: str) -> None:
        """Raise, as :meth:`merge`, if a user is in both states (naming ``func``)."""
        self._seen().check_disjoint(other._seen(), func, *self.seen_as)

    def merge(self, other: RetentionState, func: str) -> RetentionState:
        """The counts of both sets of users (a user in both raises, naming ``func``,
        the caller)."""
        seen = self._seen()
        seen.absorb(other._seen(), func, *self.seen_as)
        kind, unit, inferred = self._times_with(other)
        if not self.has_events or not other.has_events:
            source = self if self.has_events else other
            new, login, table = source.new, source.login, source.table
            span = source.span.copy()
        else:
            a, b = self.span, other.span
            span = np.array(
                [min(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), max(a[3], b[3])],
                dtype=np.int64,
            )
            check_span(int(span[0]), int(span[1]), PERIODS[self.period])
            n = int(span[3] - span[2] + 1)
            new, login, table = _zeros(n), _zeros(n), np.zeros((n, n), dtype=np.int64)
            for s in (self, other):
                i, m = int(s.span[2] - span[2]), len(s.new)
                new[i : i + m] += s.new
                login[i : i + m] += s.login
                table[i : i + m, :m] += s.table.reshape(m, m)
            table = table.ravel()
        sums = {f: getattr(self, f) + getattr(other, f) for f in _SUMS}
        return RetentionState(
            span, new, login, table, **sums,
            period=self.period, kind=kind, unit=unit, inferred=inferred,
            with_signup=self.with_signup or other.with_signup,
            apart=np.concatenate([self.apart, other.apart]),
            early=np.concatenate([self.early, other.early]),
            early_first=np.concatenate([self.early_first, other.early_first]),
            early_bits=_stack_bits(self, other), users=seen,
        )  # fmt: skip

    def _times_with(self, other: RetentionState) -> tuple[int, int, bool]:
        """The kind and unit of the times of both states; different ones raise."""
        if not other.has_events:
            return self.kind, self.unit, self.inferred
        if not self.has_events:
            return other.kind, other.unit, other.inferred
        if self.kind != other.kind:
            raise InputValidationError(
                f"{FUNC}: the times are bare dates ('2024-01-31') in some batches and "
                f"date-times in others; write them all one way."
            )
        if self.unit != other.unit and None in (UNITS[self.unit], UNITS[other.unit]):
            epoch = UNITS[self.unit] or UNITS[other.unit]  # datetimes beside epoch numbers
            raise InputValidationError(
                f"{FUNC}: time holds epoch numbers (read as {epoch!r}) in some batches and "
                f"datetimes or ISO 8601 strings in others; write them all one way, e.g. the "
                f"numbers as numpy.asarray(time).astype('datetime64[{epoch}]')."
            )
        if self.unit != other.unit:
            units = sorted(str(UNITS[u]) for u in (self.unit, other.unit))
            raise InputValidationError(
                f"{FUNC}: time holds epoch numbers read as {units[0]!r} in some batches and "
                f"as {units[1]!r} in others; pass time_unit='s' or time_unit='ms'."
            )
        return self.kind, self.unit, self.inferred and other.inferred


_SUMS = ("n_events", "n_users", "without", "events_before", "users_before")


def _words(s: RetentionState) -> np.ndarray:
    """The early users' bitsets, one row each."""
    m = len(s.early)
    return s.early_bits.reshape(m, len(s.early_bits) // m if m else 0)


def _stack_bits(a: RetentionState, b: RetentionState) -> np.ndarray:
    """The early users' bitsets of both states, rows padded to the wider one."""
    x, y = _words(a), _words(b)
    width = max(x.shape[1], y.shape[1])
    out = np.zeros((len(x) + len(y), width), dtype=np.uint64)
    out[: len(x), : x.shape[1]] = x
    out[len(x) :, : y.shape[1]] = y
    return out.ravel()


def finalize_counts(
    state: RetentionState, zone: _dt.tzinfo, period: str
) -> tuple[int, dict[str, Any]]:
    """The window's first period and its counts (see ``report.retention_report``)."""
    if not state.has_events:
        raise InputValidationError(f"{FUNC}: events is empty; pass at least one event.")
    lo, hi = int(state.span[2]), int(state.span[3])
    n = hi - lo + 1
    new, login = state.new.copy(), state.login.copy()
    table = state.table.reshape(n, n).copy()
    counts = {"before_window": 0, "after_window": 0}
    if len(state.apart) or len(state.early):
        window = window_of_periods(lo, hi, zone, period)
        for seconds in (state.apart, state.early):  # new in their signup's period
            cohort = window.periods_of_seconds(seconds)
            counts["before_window"] += int((cohort == -1).sum())
            counts["after_window"] += int((cohort == -2).sum())
            inside = np.bincount(cohort[cohort >= 0], minlength=n)
            new += inside
            login += inside  # active by their signup
            table[:, 0] += inside
        _add_early(state, window.periods_of_seconds(state.early), table, lo)
    return lo, {
        "new": new,
        "login": login,
        "table": table,
        "n_events": state.n_events,
        "n_users": state.n_users,
        "without": state.without if state.with_signup else 0,
        "before_window": counts["before_window"],
        "after_window": counts["after_window"],
        "events_before": state.events_before,
        "users_before": state.users_before,
    }


def _add_early(state: RetentionState, cohort: np.ndarray, table: np.ndarray, lo: int) -> None:
    """Add the activity of the users new in the window (``cohort``: its period of
    each, -1 before and -2 after it) before their events to the cohort x offset
    ``table`` of the window starting at period ``lo``."""
    keep = cohort >= 0
    if not keep.any():
        return
    words = np.ascontiguousarray(_words(state)[keep])
    active = np.unpackbits(words.view(np.uint8), axis=1, bitorder="little")
    user, bit = np.nonzero(active)
    c = cohort[keep][user].astype(np.int64)
    p = state.early_first[keep][user] + bit - lo  # after the signup: p > c
    np.add.at(table, (c, p - c), 1)

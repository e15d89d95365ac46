"""The mergeable state of retention: the counts of a set of whole users.

Counts are kept over absolute periods (days, ISO weeks or months since 1970 in
the time zone of the options), not over a window: the window (from the period
of the first event to that of the last) is known only once every user is in,
so states of batches with different windows merge exactly, in any order, and
:func:`finalize_counts` cuts the window out of the merged counts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...engine.states import Seen
from ...exceptions import InputValidationError
from .times import FUNC, check_span

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

    ``span`` holds ``[first, lo_day, hi_day, lo, hi]``: the absolute period of
    index 0 of ``new``, ``login`` and the rows and columns of ``table`` (a
    flattened square of cohort x offset), the local days of the first and the
    last event, and their periods (``hi < lo``: no event yet). Those arrays
    cover the periods of the events; users whose signup is outside the events'
    periods of their update are counted apart, as other updates may widen the
    window to their cohort: ``lone_n`` users per absolute cohort period
    ``lone`` (new, and active in it by their signup), and those whose cohort
    is before the events also by their activity, for finalize to count in the
    cohort table if the window reaches their cohort: ``early_cohort`` (the
    absolute cohort of each), ``early_first`` (the absolute period of bit 0)
    and ``early_bits`` (a flattened row of uint64 words per user, bit ``j``
    set when active in period ``early_first + j``). Signups too far
    from the events to be in any window (more than ``MAX_PERIODS`` away) are
    only counted, in ``far_before`` / ``far_after``. ``without`` counts the
    users with events and no signup time, reported when some update had
    signups (``with_signup``). ``users`` holds the ids of
    the users counted, so that a user given in two updates raises; ``pending``
    the ids of an update not yet added to it.
    """

    span: np.ndarray = field(default_factory=lambda: np.array([0, 0, -1, 0, -1], np.int64))
    new: np.ndarray = field(default_factory=_zeros)
    login: np.ndarray = field(default_factory=_zeros)
    table: np.ndarray = field(default_factory=_zeros)
    n_events: int = 0
    n_users: int = 0
    without: int = 0
    far_before: int = 0
    far_after: int = 0
    events_before: int = 0
    users_before: int = 0
    period: int = 0
    kind: int = 0
    unit: int = 0
    inferred: bool = False
    with_signup: bool = False
    lone: np.ndarray = field(default_factory=_zeros)
    lone_n: np.ndarray = field(default_factory=_zeros)
    early_cohort: np.ndarray = field(default_factory=_zeros)
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
        return bool(self.span[4] >= self.span[3])

    def invalid(self) -> tuple[str, str] | None:
        """``(field, what it must be)`` of the first broken invariant (a loaded
        state), or None."""
        n = len(self.new)
        counts = (self.new, self.login, self.table, self.lone_n)
        if any(a.dtype != np.int64 or (a < 0).any() for a in counts):
            return "new", "counts: int64 arrays >= 0 (new, login, table, lone_n)"
        if len(self.login) != n or len(self.table) != n * n:
            return "table", f"n x n counts with n = len(new) = {n}, and login of length n"
        if self.has_events and self.span[0] + n - 1 < self.span[4]:
            return "span", "periods within those of the counts"
        if len(self.lone) != len(self.lone_n):
            return "lone", "one period per count of lone_n"
        m = len(self.early_cohort)
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
        seen = self.users.merge(Seen())
        if self.pending is not None and len(self.pending):
            seen.add(self.pending, FUNC, "users")
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

    def merge(self, other: RetentionState) -> RetentionState:
        """The counts of both sets of users (a user in both raises)."""
        seen = self._seen()
        seen.absorb(other._seen())
        kind, unit, inferred = self._times_with(other)
        if not self.has_events or not other.has_events:
            source = self if self.has_events else other
            new, login, table = source.new, source.login, source.table
            span = source.span.copy()
        else:
            lo_day = min(self.span[1], other.span[1])
            hi_day = max(self.span[2], other.span[2])
            span = np.array(
                [min(self.span[0], other.span[0]), lo_day, hi_day,
                 min(self.span[3], other.span[3]), max(self.span[4], other.span[4])],
                dtype=np.int64,
            )  # fmt: skip
            check_span(int(lo_day), int(hi_day), PERIODS[self.period])
            end = max(self.span[0] + len(self.new), other.span[0] + len(other.new))
            n = int(end - span[0])
            new, login, table = _zeros(n), _zeros(n), np.zeros((n, n), dtype=np.int64)
            for s in (self, other):
                i, m = int(s.span[0] - span[0]), len(s.new)
                new[i : i + m] += s.new
                login[i : i + m] += s.login
                table[i : i + m, :m] += s.table.reshape(m, m)
            table = table.ravel()
        sums = {f: getattr(self, f) + getattr(other, f) for f in _SUMS}
        lone, where = np.unique(np.concatenate([self.lone, other.lone]), return_inverse=True)
        lone_n = np.bincount(where, np.concatenate([self.lone_n, other.lone_n]), len(lone))
        return RetentionState(
            span, new, login, table, **sums, lone=lone, lone_n=lone_n.astype(np.int64),
            early_cohort=np.concatenate([self.early_cohort, other.early_cohort]),
            early_first=np.concatenate([self.early_first, other.early_first]),
            early_bits=_stack_bits(self, other),
            period=self.period, kind=kind, unit=unit, inferred=inferred,
            with_signup=self.with_signup or other.with_signup, users=seen,
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
        if self.unit != other.unit:
            units = sorted(str(UNITS[u]) for u in (self.unit, other.unit))
            raise InputValidationError(
                f"{FUNC}: time holds epoch numbers read as {units[0]!r} in some batches and "
                f"as {units[1]!r} in others; pass time_unit='s' or time_unit='ms'."
            )
        return self.kind, self.unit, self.inferred and other.inferred


_SUMS = ("n_events", "n_users", "without", "far_before", "far_after", "events_before",
         "users_before")  # fmt: skip


def _words(s: RetentionState) -> np.ndarray:
    """The early users' bitsets, one row each."""
    m = len(s.early_cohort)
    return s.early_bits.reshape(m, len(s.early_bits) // m if m else 0)


def _stack_bits(a: RetentionState, b: RetentionState) -> np.ndarray:
    """The early users' bitsets of both states, rows padded to the wider one."""
    x, y = _words(a), _words(b)
    width = max(x.shape[1], y.shape[1])
    out = np.zeros((len(x) + len(y), width), dtype=np.uint64)
    out[: len(x), : x.shape[1]] = x
    out[len(x) :, : y.shape[1]] = y
    return out.ravel()


def _add_early(state: RetentionState, table: np.ndarray, lo: int, hi: int) -> None:
    """Add the activity of the users new before their events (and in the window
    ``lo`` to ``hi``) to the cohort x offset ``table`` of that window."""
    cohort = state.early_cohort
    keep = (cohort >= lo) & (cohort <= hi)
    if not keep.any():
        return
    words = np.ascontiguousarray(_words(state)[keep])
    active = np.unpackbits(words.view(np.uint8), axis=1, bitorder="little")
    user, bit = np.nonzero(active)
    c = cohort[keep][user]
    p = state.early_first[keep][user] + bit
    seen = p <= hi  # p > c: after the signup
    np.add.at(table, (c[seen] - lo, p[seen] - c[seen]), 1)


def finalize_counts(state: RetentionState) -> tuple[int, dict[str, Any]]:
    """The window's first period and its counts (see ``report.retention_report``)."""
    if not state.has_events:
        raise InputValidationError(f"{FUNC}: events is empty; pass at least one event.")
    first, lo, hi = (int(x) for x in state.span[[0, 3, 4]])
    n_all = len(state.new)
    table = state.table.reshape(n_all, n_all)
    i, n = lo - first, hi - lo + 1
    new = state.new[i : i + n].copy()
    login = state.login[i : i + n].copy()
    table = table[i : i + n, :n].copy()
    inside = (state.lone >= lo) & (state.lone <= hi)
    at = state.lone[inside] - lo
    for x in (new, login, table[:, 0]):  # users without events: new, and active by signup
        x[at] += state.lone_n[inside]
    _add_early(state, table, lo, hi)
    lone_before = int(state.lone_n[state.lone < lo].sum())
    lone_after = int(state.lone_n[state.lone > hi].sum())
    counts = {
        "new": new,
        "login": login,
        "table": table,
        "n_events": state.n_events,
        "n_users": state.n_users,
        "without": state.without if state.with_signup else 0,
        "before_window": int(state.new[:i].sum()) + state.far_before + lone_before,
        "after_window": int(state.new[i + n :].sum()) + state.far_after + lone_after,
        "events_before": state.events_before,
        "users_before": state.users_before,
    }
    return lo, counts

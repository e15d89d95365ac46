"""Retention's counting of a batch of whole users: options, events, signups, activity.

- :func:`check_params` checks the options of :func:`receval.retention`;
- :func:`prepare_events` reads a table of events (user ids, event times and
  signup times) into :class:`Events`;
- :func:`count_users` counts new and login users per period and the cohort x
  offset table of a batch of whole users into a :class:`RetentionState`, over
  the absolute periods of its events (and signups), so that the states of
  disjoint users merge whatever their windows.

Times and the calendar of periods come from ``times``.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import numpy as np

from ... import _validation as v
from ..._parameters import of_the
from ...data import io
from ...data._encode import factorize
from ...data._lookup import id_type_mismatch, lookup, types_note
from ...exceptions import InputValidationError, InvalidParameterError
from .state import PERIODS, TIME_KINDS, UNITS, RetentionState
from .times import (
    FUNC,
    TIME_UNITS,
    PeriodWindow,
    Times,
    check_span,
    extreme_days,
    iso_second,
    local_midnights,
    periods_of_days,
    py_scalar,
    to_times,
    window_of_periods,
)

__all__ = ["Events", "check_params", "check_signup_ids", "count_users", "prepare_events"]

_PERIODS = ["day", "month", "week"]
_BEFORE_SIGNUP = ["drop", "error", "keep"]
# "bitset" or "csr" forces a method (tests); None picks the one needing less memory
_METHOD: str | None = None


# ------------------------------------------------------------------ parameters
def check_params(
    *,
    user: str = "user",
    time: str = "time",
    period: str = "day",
    days: int | Sequence[int] = (1, 3, 7, 30),
    tz: Any = "UTC",
    time_unit: str | None = None,
    before_signup: str = "keep",
) -> dict[str, Any]:
    """The checked options of retention (see :func:`receval.retention`)."""
    v.check_option(period, "period", FUNC, _PERIODS)
    v.check_option(before_signup, "before_signup", FUNC, _BEFORE_SIGNUP)
    v.check_option(time_unit, "time_unit", FUNC, [None, *TIME_UNITS])
    offsets = _check_days(days)
    zone, tz_name = _check_tz(tz)
    for name, value in (("user", user), ("time", time)):
        if not isinstance(value, str):
            raise InvalidParameterError(
                f"The '{name}' parameter of {FUNC} must be a column name (str). Got {value!r} "
                f"instead."
            )
    # an IANA zone by its name, which a state_dict and a sync carry (a ZoneInfo has no
    # plain form); zone_of gives it back
    key = zone.key if isinstance(zone, ZoneInfo) else None
    return {
        "user": user, "time": time, "period": period, "days": offsets,
        "zone": zone if key is None else key, "tz_name": tz_name, "time_unit": time_unit,
        "before_signup": before_signup,
    }  # fmt: skip


def zone_of(params: dict[str, Any]) -> _dt.tzinfo:
    """The time zone of checked options (:func:`check_params`)."""
    zone = params["zone"]
    return ZoneInfo(zone) if isinstance(zone, str) else zone


def _check_days(days: Any) -> tuple[int, ...]:
    if isinstance(days, (int, np.integer)) and not isinstance(days, (bool, np.bool_)):
        days = (days,)
    if isinstance(days, (str, bytes)) or not isinstance(days, (Sequence, np.ndarray)):
        raise InvalidParameterError(
            f"The 'days' parameter of {FUNC} must be a positive integer or a sequence of "
            f"them. Got {days!r} instead."
        )
    # each value as given: an array of NumPy would make a mix of sizes floats, or
    # integers beyond 64 bits objects; a 0-d array is its one value, as a NumPy scalar
    if isinstance(days, np.ndarray):
        values = [days.item()] if days.ndim == 0 else days.tolist()
    else:
        values = list(days)
    out = tuple(v.check_number(d, "days", FUNC, integer=True, low=1) for d in values)
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
def _column(data: Any, name: str, what: str, argument: str) -> Any:
    names = io.column_names(data)
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
    check_ids: bool,
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
        names = io.column_names(signup)
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
    # ids of two types are refused as the events' are (the keys of a mapping too)
    rows, ids = factorize(users, "signup users", FUNC)
    if len(rows) != len(t.values):  # pragma: no cover - same table
        raise InputValidationError(f"{FUNC}: signup users and times differ in length.")
    if check_ids:
        check_signup_ids(ids, user_ids)
    codes = lookup(ids, user_ids).astype(np.int64)[rows]
    unknown = codes < 0
    if t.valid is not None:  # a user only in the signup table, without a time: nothing to count
        keep = ~(unknown & ~t.valid)
        codes, unknown, rows = codes[keep], unknown[keep], rows[keep]
        t.values, t.valid = t.values[keep], t.valid[keep]
    new_ids = ids[:0]
    if unknown.any():
        new_codes, new_rows = factorize(rows[unknown], "signup users", FUNC)
        codes[unknown] = len(user_ids) + new_codes
        new_ids = ids[new_rows]
    return codes.astype(np.int32), t, new_ids


def check_signup_ids(users: np.ndarray, user_ids: np.ndarray) -> None:
    """Refuse distinct signup users of another type than the events' distinct users that
    (almost) never match them (:func:`~receval.data._lookup.id_type_mismatch`): each
    would be a new user without an event, and the users of the events would have no
    signup time.

    The ids of one input are checked together: those of a call of
    :func:`receval.retention` and of each update of its accumulator here (by
    :func:`prepare_events`), those of every Spark partition once on the driver.
    """
    matched = id_type_mismatch(users, user_ids)
    if matched is None:
        return
    note = types_note(users, user_ids, ("signup's", "events'"))
    raise InputValidationError(
        f"{FUNC}: {of_the(matched, len(users), 'signup user', then='is')} a user of the "
        f"events ({matched / len(users):.1%}), e.g. signup users {v.format_values(users)}, "
        f"event users {v.format_values(user_ids)}{note}; give the user ids of signup and "
        f"events one type and one spelling."
    )


# ------------------------------------------------------------------ a batch of whole users
@dataclass
class Events:
    """The events of a batch of whole users, read and checked (:func:`prepare_events`)."""

    codes: np.ndarray  # int32 user code of each event
    user_ids: np.ndarray  # the id of each code
    times: Times  # the event times
    signup: tuple[np.ndarray, Times, np.ndarray] | None  # (codes, times, ids only there)


def prepare_events(
    params: dict[str, Any],
    events: Any,
    signup: Any = None,
    *,
    where: Callable[[int], str] | None = None,
    check_ids: bool = True,
) -> Events:
    """Read the user ids, event times and signup times of a table of events.

    ``where(i)`` names row ``i`` of ``events`` in messages (default: its index).
    ``check_ids=False`` leaves out :func:`check_signup_ids`, for a caller that checks
    the ids of every batch together (Spark, whose partitions hold some users each).
    """
    if where is None:
        where = _row
    if not is_table(events):
        raise InputValidationError(
            f"{FUNC}: events must be a DataFrame, an Arrow table, a mapping of columns or "
            f"the path of a CSV, TSV or Parquet file. Got {type(events).__name__}."
        )
    user, unit = params["user"], params["time_unit"]
    times = event_times(events, params["time"], unit, where)
    user_col = io.frame_columns(events, {"user": user}, FUNC)["user"]
    codes, user_ids = factorize(user_col, "user", FUNC)
    v.check_same_length(FUNC, user=codes, time=times.values)
    codes = codes.astype(np.int32, copy=False)
    rows = None
    if signup is not None:
        rows = _signup_rows(signup, events, codes, user_ids, user, unit, where, check_ids)
    return Events(codes, np.asarray(user_ids), times, rows)


def _row(i: int) -> str:
    return f"{FUNC}: row {i}"


def count_users(params: dict[str, Any], batch: Events) -> RetentionState:
    """The counts of a batch of whole users, over the absolute periods of its events
    (:class:`RetentionState`)."""
    from ..._kernels import compiled, num_threads

    k = compiled()
    zone, period = zone_of(params), params["period"]
    codes, user_ids, times = batch.codes, batch.user_ids, batch.times
    n_events = len(codes)
    ids = user_ids if batch.signup is None else _concat_ids(user_ids, batch.signup[2])
    n_users = len(ids)
    if n_events == 0:
        state = RetentionState.of_users(period, ids, n_users)
        if batch.signup is not None:
            seconds, has = _signups(k, params, batch.signup, user_ids, n_users, None)
            state.with_signup, state.apart = True, seconds[has]
        return state
    lo_day, hi_day = extreme_days(times, zone, "time")
    check_span(lo_day, hi_day, period)
    e_lo, e_hi = periods_of_days(lo_day, hi_day, period)
    window = window_of_periods(e_lo, e_hi, zone, period)
    if times.kind == "date":
        times = Times(window.seconds_of_days(times.values, zone), 1, "instant", None)
    values = np.ascontiguousarray(times.values, dtype=np.int64)
    n_threads = num_threads()

    # ---- signup: each user's cohort in the events' window
    cohort = np.full(n_users, k.NO_SIGNUP, dtype=np.int32)
    # users with events but no signup time (reported when some update has signups)
    counts = {"without": len(user_ids), "events": 0, "users": 0}
    if batch.signup is not None:
        seconds, has = _signups(k, params, batch.signup, user_ids, n_users, window)
        cohort[has] = window.periods_of_seconds(seconds[has])  # BEFORE, AFTER outside
        counts["without"] = int(len(user_ids) - has[: len(user_ids)].sum())
        n_before, flagged, first = k.events_before_signup(
            codes, values, np.int64(times.divisor), seconds, has, n_threads
        )
        counts["events"], counts["users"] = int(n_before), int(flagged.sum())
        if params["before_signup"] == "error" and n_before:
            u = int(codes[first])
            shown = iso_second(int(times.values[first]) // times.divisor)
            error = InputValidationError(
                f"{FUNC}: {v.counted(n_before, 'event')} of {v.counted(counts['users'], 'user')} "
                f"{v.verb(n_before, 'is')} earlier than the "
                f"user's signup, e.g. user {py_scalar(user_ids[u])!r} at {shown} signed up at "
                f"{iso_second(int(seconds[u]))}; pass before_signup='keep' to count them as logins "
                f"or before_signup='drop' to ignore them."
            )
            error.row = int(first)
            raise error
    periods = k.periods_of_instants(
        values, np.int64(times.divisor), window.bounds, window.period_of_day, n_threads
    )
    drop = params["before_signup"] == "drop"
    new, login, table, bits = _activity_counts(k, codes, periods, cohort, window.n_periods,
                                               drop, n_threads)  # fmt: skip
    state = RetentionState(
        span=np.array([lo_day, hi_day, e_lo, e_hi], dtype=np.int64),
        new=new, login=login, table=table.ravel(), n_events=n_events, n_users=n_users,
        without=counts["without"], events_before=counts["events"],
        users_before=counts["users"], period=PERIODS.index(period),
        kind=TIME_KINDS.index(batch.times.kind), unit=UNITS.index(batch.times.unit),
        inferred=bool(batch.times.inferred), with_signup=batch.signup is not None, pending=ids,
    )  # fmt: skip
    if batch.signup is not None:
        # users new outside the events' window: their cohort waits for the merged window
        signed = np.flatnonzero(has)
        state.apart = seconds[signed[cohort[signed] == k.AFTER]]
        early = signed[cohort[signed] == k.BEFORE]  # their events all follow their signup
        if len(early):
            n_words = (window.n_periods + 63) // 64
            if bits is None:
                rows = np.zeros(n_users, dtype=bool)
                rows[early] = True
                rows = rows[codes]
                bits = k.activity_bitsets(
                    np.ascontiguousarray(codes[rows]), np.ascontiguousarray(periods[rows]),
                    n_users, n_words, max(1, min(n_threads, 8)),
                )  # fmt: skip
            state.early = seconds[early]
            state.early_first = np.full(len(early), e_lo, dtype=np.int64)
            state.early_bits = bits.reshape(n_users, n_words)[early].ravel()
    return state


def _signups(
    k: Any,
    params: dict[str, Any],
    signup: tuple[np.ndarray, Times, np.ndarray],
    user_ids: np.ndarray,
    n_users: int,
    window: PeriodWindow | None,
) -> tuple[np.ndarray, np.ndarray]:
    """Each user's signup second and whether they have one (one per user, or raise),
    from the ``(codes, times, ids only there)`` of :class:`Events`.

    Signup dates are the local midnights of ``window`` (or computed, without one)."""
    s_codes, s_times, new_ids = signup
    if s_times.kind == "date":
        days = s_times.values
        s_times.values = (
            local_midnights(days, zone_of(params))
            if window is None
            else window.seconds_of_days(days, zone_of(params))
        )
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
    return seconds, has


def _concat_ids(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if not len(b):
        return a
    if a.dtype.kind == b.dtype.kind and a.dtype.kind in "iu":
        return np.concatenate([a, b])
    return np.concatenate([a.astype(object), b.astype(object)])


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
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """Per-period new and login users, the cohort x offset counts, and the users'
    activity bitsets where the counting made them (else None)."""
    n_users = len(cohort)
    n_parts = max(1, min(n_threads, 8))
    # each part of the accumulation keeps its own cohort table
    acc_parts = max(1, min(n_parts, (1 << 28) // max(1, 8 * n_periods * n_periods)))
    n_words = (n_periods + 63) // 64
    bitset_bytes = 8 * n_users * n_words
    csr_bytes = 4 * len(codes) + 8 * n_users
    method = _METHOD or ("bitset" if bitset_bytes <= csr_bytes else "csr")
    bits = None
    if method == "bitset":
        bits = k.activity_bitsets(codes, periods, n_users, n_words, n_parts)
        parts = k.accumulate_bitsets(bits, n_words, cohort, n_periods, drop, acc_parts)
    else:
        offsets, values = k.periods_by_user(codes, periods, n_users, n_parts)
        parts = k.accumulate_csr(offsets, values, cohort, n_periods, drop, acc_parts)
    new, login, table = (part.sum(axis=0) for part in parts)
    return new, login, table, bits

"""Retention on activity logs: new, login and active users, and cohort day-N retention."""

from __future__ import annotations

import datetime as _dt
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import numpy as np

from .. import _validation as v
from ..data import io
from ..data._encode import factorize, lookup
from ..exceptions import InputValidationError, InvalidParameterError

__all__ = ["RetentionReport", "retention"]

FUNC = "retention"
_PERIODS = ["day", "month", "week"]
_BEFORE_SIGNUP = ["drop", "error", "keep"]
_TIME_UNITS = {"s": 1, "ms": 1_000, "us": 1_000_000, "ns": 1_000_000_000}
_UNIT_NAMES = {"s": "seconds", "ms": "milliseconds", "us": "microseconds", "ns": "nanoseconds"}
# epoch numbers are read as seconds or milliseconds without time_unit only in
# these ranges: both cover 1973-03-03 to 5138-11-16, so no value fits both
_SECONDS_RANGE = (1e8, 1e11)
_MILLIS_RANGE = (1e11, 1e14)
# datetime.datetime's range, years 1 to 9999
_MIN_SECOND = -62_135_596_800
_MAX_SECOND = 253_402_300_799
_EPOCH_ORDINAL = _dt.date(1970, 1, 1).toordinal()
# the cohort table has one row and one column per period
_MAX_PERIODS = 4000
# "bitset" or "csr" forces a method (tests); None picks the one needing less memory
_METHOD: str | None = None

_DATE_RE = r"^\d{4}-\d{2}-\d{2}$"
_OFFSET_RE = r"[T ]\d{2}.*([Zz]|[+-]\d{2}(:?\d{2})?)$"
_ISO_EXAMPLES = "'2024-01-31', '2024-01-31 08:00:00' or '2024-01-31T08:00:00+08:00'"


@dataclass(frozen=True)
class RetentionReport:
    """New, login and active users per period, and the retention of each cohort.

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
    active_users : ndarray of shape (n_periods,)
        ``login_users - new_users`` (seed 002's definition): returning users.
    retention_rate : ndarray of shape (n_periods,)
        ``login_users / new_users`` as defined by seed 002; it exceeds 1 when
        returning users outnumber new ones; nan where ``new_users`` is 0.
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
        cohort; their events count as logins (and as active users).
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
    active_users: np.ndarray
    retention_rate: np.ndarray
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
    def observed(self) -> np.ndarray:
        """Mask of shape (n_periods, len(days)): period ``c + days[j]`` is in the window."""
        c = np.arange(self.n_periods)[:, None]
        return c + np.asarray(self.days)[None, :] < self.n_periods

    def to_frame(self, backend: str | None = None) -> Any:
        """Per-period table: period, new_users, login_users, active_users, retention_rate.

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
                "active_users": self.active_users,
                "retention_rate": self.retention_rate,
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


def _is_table(obj: Any) -> bool:
    return io.is_frame(obj) or isinstance(obj, Mapping)


@dataclass
class Times:
    """Timestamps as ``floor(values / divisor)`` UTC seconds, or local dates (day numbers)."""

    values: np.ndarray  # int64
    divisor: int
    kind: str  # "instant" or "date"
    valid: np.ndarray | None  # None: no missing value
    unit: str | None = None
    inferred: bool = False


def _as_time_array(col: Any, name: str) -> Any:
    """A column as a NumPy array (numbers, datetime64) or an Arrow array (everything else)."""
    import pyarrow as pa

    mod = io.module_of(col)
    if mod == "polars":
        arr = col.to_arrow()
    elif mod == "pyarrow":
        arr = col
    else:
        if mod == "pandas":
            dtype = col.dtype
            if isinstance(dtype, np.dtype) and dtype.kind in "iufM":
                return col.to_numpy()
            values: Any = col
        else:
            values = np.asarray(col)
            if values.dtype.kind not in "OUS":
                return values
            if values.dtype.kind == "O":
                values = values.tolist()
        try:
            arr = pa.array(values, from_pandas=True)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            sample = list(values[:10_000]) if mod == "pandas" else values[:10_000]
            kinds = sorted({type(x).__name__ for x in sample})
            raise InputValidationError(
                f"{FUNC}: {name} must hold values of one kind: all datetimes, all strings or "
                f"all numbers. Got values of types {v.format_values(kinds)}."
            ) from None
        if pa.types.is_timestamp(arr.type) or pa.types.is_date(arr.type):
            # Arrow reads a number among datetimes as a count of its unit since 1970:
            # a silent wrong time, so a mix of kinds is an error here too
            numbers = sorted(
                {
                    type(x).__name__
                    for x in values
                    if isinstance(x, (int, float, np.number)) and not isinstance(x, bool) and x == x
                }
            )
            if numbers:
                raise InputValidationError(
                    f"{FUNC}: {name} must hold values of one kind: all datetimes, all strings "
                    f"or all numbers. Got datetimes mixed with values of types "
                    f"{v.format_values(numbers)}; convert the column first, e.g. with "
                    f"pd.to_datetime."
                )
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks() if arr.num_chunks else pa.array([], type=arr.type)
    return arr


def _missing(count: int, name: str) -> InputValidationError:
    return InputValidationError(
        f"{FUNC}: {name} contains {count} missing values (None, NaN or NaT); "
        f"drop those rows or fill them with a time."
    )


def to_times(
    col: Any,
    name: str,
    time_unit: str | None,
    where: Callable[[int], str],
    allow_missing: bool,
) -> Times:
    """Read a time column: datetimes, dates, ISO 8601 strings or epoch numbers."""
    import pyarrow as pa

    arr = _as_time_array(col, name)
    if isinstance(arr, np.ndarray):
        if arr.ndim != 1:
            raise InputValidationError(
                f"{FUNC}: {name} must be 1-dimensional. Got an array of shape {arr.shape}."
            )
        if arr.dtype.kind == "M":
            return _from_datetime64(arr, name, time_unit, allow_missing)
        return times_from_numbers(arr, None, name, time_unit, allow_missing)
    typ = arr.type
    valid = None
    if arr.null_count:
        if not allow_missing:
            raise _missing(arr.null_count, name)
        if pa.types.is_null(typ):  # no time at all
            n = len(arr)
            return Times(np.zeros(n, np.int64), 1, "instant", np.zeros(n, bool))
        valid = arr.is_valid().to_numpy(zero_copy_only=False)
    if pa.types.is_dictionary(typ):
        arr = arr.cast(typ.value_type)
        typ = arr.type
    if pa.types.is_timestamp(typ) or pa.types.is_date(typ):
        _no_unit(time_unit, name, "datetimes")
        if pa.types.is_date64(typ):
            arr = arr.cast(pa.date32())
        filled = arr.fill_null(0) if valid is not None else arr
        ints = filled.view(pa.int64() if pa.types.is_timestamp(typ) else pa.int32())
        values = ints.to_numpy(zero_copy_only=False).astype(np.int64, copy=False)
        if pa.types.is_date(typ):
            return Times(values, 1, "date", valid)
        return Times(values, _TIME_UNITS[typ.unit], "instant", valid)
    if pa.types.is_string(typ) or pa.types.is_large_string(typ):
        _no_unit(time_unit, name, "strings")
        return _parse_strings(arr, name, where, valid)
    if pa.types.is_integer(typ) or pa.types.is_floating(typ):
        filled = arr.fill_null(0) if valid is not None else arr
        return times_from_numbers(
            filled.to_numpy(zero_copy_only=False), valid, name, time_unit, allow_missing
        )
    raise InputValidationError(
        f"{FUNC}: {name} must hold datetimes, ISO 8601 strings or epoch seconds or "
        f"milliseconds. Got Arrow type {typ}."
    )


def _no_unit(time_unit: str | None, name: str, what: str) -> None:
    if time_unit is not None:
        raise InvalidParameterError(
            f"The 'time_unit' parameter of {FUNC} must be None when {name} holds {what} "
            f"(it applies to epoch numbers). Got {time_unit!r} instead."
        )


def _from_datetime64(arr: np.ndarray, name: str, time_unit: str | None, allow: bool) -> Times:
    _no_unit(time_unit, name, "datetimes")
    unit, _ = np.datetime_data(arr.dtype)
    nat = np.isnat(arr)
    valid = None
    if nat.any():
        if not allow:
            raise _missing(int(nat.sum()), name)
        valid = ~nat
    if unit == "D":  # calendar dates
        return Times(arr.view(np.int64), 1, "date", valid)
    if unit not in _TIME_UNITS:  # hours, minutes, weeks, ...: to seconds
        arr = arr.astype("datetime64[s]")
        unit = "s"
    return Times(arr.view(np.int64), _TIME_UNITS[unit], "instant", valid)


def times_from_numbers(
    arr: np.ndarray, valid: np.ndarray | None, name: str, time_unit: str | None, allow: bool
) -> Times:
    kind = arr.dtype.kind
    if kind not in "iuf":
        raise InputValidationError(
            f"{FUNC}: {name} must hold datetimes, ISO 8601 strings or epoch seconds or "
            f"milliseconds. Got dtype {arr.dtype}."
        )
    if kind == "f":
        nan = np.isnan(arr) if valid is None else np.isnan(arr) & valid
        if nan.any():
            if not allow:
                raise _missing(int(nan.sum()), name)
            valid = ~nan if valid is None else valid & ~nan
        if np.isinf(arr).any():
            raise InputValidationError(f"{FUNC}: {name} contains infinity.")
    inside = arr if valid is None else arr[valid]
    inferred = time_unit is None
    if inside.size == 0:  # no time at all (a signup column without values)
        return Times(np.zeros(len(arr), np.int64), 1, "instant", valid, time_unit, inferred)
    lo, hi = inside.min(), inside.max()
    if time_unit is None:
        if _SECONDS_RANGE[0] <= lo and hi < _SECONDS_RANGE[1]:
            time_unit = "s"
        elif _MILLIS_RANGE[0] <= lo and hi < _MILLIS_RANGE[1]:
            time_unit = "ms"
        else:
            raise InputValidationError(
                f"{FUNC}: {name} holds numbers from {lo.item()!r} to {hi.item()!r}, which are "
                f"not clearly epoch seconds (1e8 to 1e11, i.e. 1973 to 5138) or epoch "
                f"milliseconds (1e11 to 1e14); pass time_unit='s' or time_unit='ms'."
            )
    scale = _TIME_UNITS[time_unit]
    if kind == "f":
        x = arr if valid is None else np.where(valid, arr, 0.0)
        seconds = np.floor(x / scale)
        for value in (lo, hi):
            if not _MIN_SECOND <= np.floor(value / scale) <= _MAX_SECOND:
                _out_of_range(name, value, time_unit)
        return Times(seconds.astype(np.int64), 1, "instant", valid, time_unit, inferred)
    if kind == "u" and int(hi) > np.iinfo(np.int64).max:
        _out_of_range(name, hi, time_unit)
    values = arr.astype(np.int64, copy=False)
    return Times(values, scale, "instant", valid, time_unit, inferred)


def _out_of_range(name: str, value: Any, unit: str) -> None:
    raise InputValidationError(
        f"{FUNC}: {name} holds {value.item()!r}, which as epoch {_UNIT_NAMES[unit]} is "
        f"outside the years 1 to 9999; check time_unit."
    )


def _cast_instants(arr: Any, unit: str) -> np.ndarray:
    """ISO strings (with or without UTC offsets; naive ones are UTC) to int64 in ``unit``."""
    import pyarrow as pa
    import pyarrow.compute as pc

    def cast(a: Any, tz: str | None) -> np.ndarray:
        ts = pc.cast(a, pa.timestamp(unit, tz=tz))
        return ts.view(pa.int64()).to_numpy(zero_copy_only=False)

    try:
        return cast(arr, None)
    except pa.ArrowInvalid:
        pass
    try:
        return cast(arr, "UTC")
    except pa.ArrowInvalid:
        pass
    with_offset = pc.match_substring_regex(arr, _OFFSET_RE).to_numpy(zero_copy_only=False)
    if with_offset.all() or not with_offset.any():
        raise pa.ArrowInvalid("unparsable")
    out = np.empty(len(arr), dtype=np.int64)
    out[with_offset] = cast(arr.filter(pa.array(with_offset)), "UTC")
    out[~with_offset] = cast(arr.filter(pa.array(~with_offset)), None)
    return out


def _parse_strings(arr: Any, name: str, where: Callable[[int], str], valid: Any) -> Times:
    import pyarrow as pa
    import pyarrow.compute as pc

    if valid is not None:
        arr = arr.fill_null("1970-01-01")
    arr = pc.utf8_trim_whitespace(arr)
    if pa.types.is_large_string(arr.type):
        arr = arr.cast(pa.string()) if arr.nbytes < 2**31 - 1 else arr
    dates = len(arr) > 0 and pc.all(pc.match_substring_regex(arr, _DATE_RE)).as_py()

    def parse(a: Any) -> Times:
        if dates:
            days = pc.cast(a, pa.date32()).view(pa.int32()).to_numpy(zero_copy_only=False)
            return Times(days.astype(np.int64), 1, "date", valid)
        try:
            return Times(_cast_instants(a, "ns"), _TIME_UNITS["ns"], "instant", valid)
        except pa.ArrowInvalid:  # out of the nanosecond range (1677-2262)
            return Times(_cast_instants(a, "us"), _TIME_UNITS["us"], "instant", valid)

    try:
        return parse(arr)
    except pa.ArrowInvalid:
        pass
    i = _first_unparsable(arr, parse)
    raise InputValidationError(
        f"{where(i)}: the {name} {arr[i].as_py()!r} is not an ISO 8601 date or time; "
        f"write e.g. {_ISO_EXAMPLES}."
    )


def _first_unparsable(arr: Any, parse: Callable[[Any], Times]) -> int:
    import pyarrow as pa

    def ok(a: Any) -> bool:
        try:
            parse(a)
        except pa.ArrowInvalid:
            return False
        return True

    step = 4096
    for start in range(0, len(arr), step):
        chunk = arr.slice(start, step)
        if not ok(chunk):
            for j in range(len(chunk)):
                if not ok(chunk.slice(j, 1)):
                    return start + j
    return 0  # pragma: no cover - the whole array failed but no single value does


# ------------------------------------------------------------------ calendar
def _local_day(second: int, zone: _dt.tzinfo, name: str) -> int:
    """Day number (days since 1970-01-01) of the local date of a UTC second."""
    try:
        local = _dt.datetime.fromtimestamp(second, zone)
    except (OverflowError, OSError, ValueError):
        raise InputValidationError(
            f"{FUNC}: {name} holds a time outside the years 1 to 9999 "
            f"({second} seconds from 1970); check time_unit."
        ) from None
    return local.toordinal() - _EPOCH_ORDINAL


def _midnight(day: int, zone: _dt.tzinfo) -> int:
    """UTC second at which local day ``day`` starts (the first instant of the day)."""
    date = _dt.date.fromordinal(day + _EPOCH_ORDINAL)
    start = _dt.datetime(date.year, date.month, date.day, tzinfo=zone)
    # a midnight inside a DST gap does not exist: fold=0 maps it to the end of the gap
    return int(start.timestamp())


def _period_of_days(days: np.ndarray, period: str) -> np.ndarray:
    """Absolute period index of day numbers: days, ISO weeks from Monday, or months."""
    if period == "day":
        return days
    if period == "week":
        return (days + 3) // 7  # 1970-01-01 was a Thursday
    return days.astype("datetime64[D]").astype("datetime64[M]").astype(np.int64)


def _first_day_of_periods(periods: np.ndarray, period: str) -> np.ndarray:
    if period == "day":
        return periods
    if period == "week":
        return 7 * periods - 3
    return periods.astype("datetime64[M]").astype("datetime64[D]").astype(np.int64)


@dataclass
class _Window:
    first_period: int  # absolute period index of period 0
    n_periods: int
    first_day: int  # day number of bounds[0]
    bounds: np.ndarray  # int64, UTC second where each day starts, n_days + 1 values
    period_of_day: np.ndarray  # int32, window period index of each day

    def seconds_of_days(self, days: np.ndarray, zone: _dt.tzinfo) -> np.ndarray:
        """UTC second of the local midnight starting each day."""
        local = days - self.first_day
        inside = (local >= 0) & (local < len(self.bounds))
        out = np.empty(len(days), dtype=np.int64)
        out[inside] = self.bounds[local[inside]]
        if not inside.all():
            outside = days[~inside]
            # dates beyond datetime's range stay before / after the window
            outside = np.clip(outside, _MIN_SECOND // 86400 + 2, _MAX_SECOND // 86400 - 2)
            uniq, inverse = np.unique(outside, return_inverse=True)
            out[~inside] = np.array([_midnight(int(d), zone) for d in uniq], np.int64)[inverse]
        return out

    def periods_of_seconds(self, seconds: np.ndarray) -> np.ndarray:
        """Window period of each UTC second; -1 before the window, -2 after it."""
        g = np.searchsorted(self.bounds, seconds, side="right") - 1
        n_days = len(self.bounds) - 1
        out = self.period_of_day[np.clip(g, 0, n_days - 1)].astype(np.int32)
        out[g < 0] = -1
        out[g >= n_days] = -2
        return out


def _extreme_seconds(t: Times) -> tuple[int, int]:
    values = t.values if t.valid is None else t.values[t.valid]
    return int(values.min()) // t.divisor, int(values.max()) // t.divisor


def period_window(t: Times, zone: _dt.tzinfo, period: str, name: str) -> _Window:
    if t.kind == "date":
        lo_day, hi_day = (int(x) for x in (t.values.min(), t.values.max()))
        for day in (lo_day, hi_day):
            if not _MIN_SECOND // 86400 < day < _MAX_SECOND // 86400:
                raise InputValidationError(
                    f"{FUNC}: {name} holds a date outside the years 1 to 9999."
                )
    else:
        lo_s, hi_s = _extreme_seconds(t)
        for s in (lo_s, hi_s):
            if not _MIN_SECOND + 86400 <= s <= _MAX_SECOND - 86400:
                raise InputValidationError(
                    f"{FUNC}: {name} holds a time outside the years 1 to 9999 "
                    f"({s} seconds from 1970); check time_unit."
                )
        lo_day, hi_day = _local_day(lo_s, zone, name), _local_day(hi_s, zone, name)
    p_lo, p_hi = (int(p) for p in _period_of_days(np.array([lo_day, hi_day]), period))
    n_periods = p_hi - p_lo + 1
    if n_periods > _MAX_PERIODS:
        first, last = (np.datetime64(d, "D") for d in (lo_day, hi_day))
        raise InputValidationError(
            f"{FUNC}: the events span {n_periods} {period}s (from {first} to {last}); at most "
            f"{_MAX_PERIODS} are supported, as the cohort table has a row and a column per "
            f"period; pass a longer period ('week' or 'month'), or check time_unit."
        )
    starts = _first_day_of_periods(np.array([p_lo, p_hi + 1], dtype=np.int64), period)
    first_day, end_day = int(starts[0]), int(starts[1])  # end_day: first day after the window
    days = np.arange(first_day, end_day + 1, dtype=np.int64)
    bounds = _day_bounds(days, zone)
    period_of_day = (_period_of_days(days[:-1], period) - p_lo).astype(np.int32)
    return _Window(p_lo, n_periods, first_day, bounds, period_of_day)


def _day_bounds(days: np.ndarray, zone: _dt.tzinfo) -> np.ndarray:
    """UTC second of each local midnight, exact through DST changes."""
    if _fixed_offset(zone) is not None:
        return days * 86400 - _fixed_offset(zone)
    return np.array([_midnight(int(d), zone) for d in days], dtype=np.int64)


def _fixed_offset(zone: _dt.tzinfo) -> int | None:
    if isinstance(zone, _dt.timezone):
        offset = zone.utcoffset(None)
        return int(offset.total_seconds())
    if getattr(zone, "key", None) in ("UTC", "Etc/UTC", "Etc/Universal", "Universal", "Zulu"):
        return 0
    return None


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
    elif _is_table(signup) and not isinstance(signup, Mapping):
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


# ------------------------------------------------------------------ public
def retention(
    events: Any,
    *,
    user: str = "user",
    time: str = "time",
    signup: str | Mapping[Any, Any] | Any | None = None,
    period: str = "day",
    days: int | Sequence[int] = (1, 3, 7, 30),
    tz: str | _dt.tzinfo = "UTC",
    time_unit: str | None = None,
    before_signup: str = "keep",
    file_format: str | None = None,
) -> RetentionReport:
    """Compute new, login and active users per period and the day-N retention of each cohort.

    Each event is assigned to the local period (day, ISO week from Monday,
    or calendar month in time zone ``tz``) that contains it. A user is *new*
    in the period of their signup (``signup`` given) or else of their first
    event, and belongs to that period's cohort. The day-N retention of a
    cohort is the fraction of its users with an event exactly N periods
    later ("active on day d+N", seed 002), for every N in ``days``; the full
    cohort x offset table is in the report too.

    Parameters
    ----------
    events : DataFrame, Arrow table, mapping of arrays, path or Scan
        Activity events, one row per event: a pandas or polars DataFrame, an
        Arrow table, a mapping of column name to array, or the path of a CSV,
        TSV or Parquet file. Repeated events of a user in one period count
        once. A :func:`receval.scan` of a file larger than memory is read in
        batches, in four passes at most (units of epoch numbers, the window,
        signup times, activity), in any row order; memory grows with the
        users (an id, a bitset of periods and a signup time each), not the
        events. ``signup`` must then be None or a column.
    user : str, default="user"
        Column of user ids (ints or strings).
    time : str, default="time"
        Column of event times: datetimes (naive ones are UTC; tz-aware ones
        are instants), dates (used as local calendar dates), ISO 8601 strings
        (with or without a UTC offset; without one they are UTC, a bare date
        ``'2024-01-31'`` is a calendar date), or epoch numbers (see
        ``time_unit``).
    signup : str, mapping, DataFrame or Arrow table, default=None
        Signup time of the users: the name of a column of ``events``
        (constant within each user; missing values allowed), a mapping
        ``{user: time}`` (a dict or a pandas Series indexed by user), or a
        table with the ``user`` column and a ``signup`` column. Users in it
        without any event are new users that never came back. Users with
        events but no signup time get the period of their first event.
    period : {"day", "week", "month"}, default="day"
        Period unit; weeks start on Monday (ISO 8601).
    days : int or sequence of int, default=(1, 3, 7, 30)
        The offsets N (in periods, all >= 1) of the day-N retention: 1 is
        next-day (次日) retention.
    tz : str or datetime.tzinfo, default="UTC"
        IANA time zone in which periods start at local midnight; DST changes
        are followed (a local day can last 23 or 25 hours).
    time_unit : {"s", "ms", "us", "ns"}, default=None
        Unit of epoch numbers. By default numbers in [1e8, 1e11) are seconds
        and numbers in [1e11, 1e14) milliseconds (both 1973 to 5138); other
        numbers raise ``InputValidationError`` asking for ``time_unit``. Must
        be None for datetimes and strings.
    before_signup : {"keep", "drop", "error"}, default="keep"
        Events earlier than their user's signup: ``"keep"`` counts them as
        logins of their periods (the user's cohort stays the signup period),
        ``"drop"`` ignores them, ``"error"`` raises. Always counted in the
        report.
    file_format : {"csv", "tsv", "parquet"}, default=None
        Format of a file ``events``; by default from its suffix.

    Returns
    -------
    report : RetentionReport
        Per-period counts and rates, per-cohort day-N retention, the full
        cohort table, and what each rule affected.

    Raises
    ------
    InputValidationError
        Missing columns, ids or times; unparsable strings; epoch numbers of
        unclear unit; conflicting signup times of one user; no events.
    InvalidParameterError
        A bad ``period``, ``days``, ``tz``, ``time_unit`` or ``before_signup``.

    See Also
    --------
    RetentionReport : The result and its ``to_frame`` / ``cohort_frame`` / ``table_frame``.

    Notes
    -----
    With ``new[c]`` the users of cohort ``c`` and ``A[u]`` the periods in
    which user ``u`` has an event (or signs up):

    - ``login[t] = |{u : t in A[u]}|``, ``active[t] = login[t] - new[t]``,
      ``retention_rate[t] = login[t] / new[t]``;
    - ``day_N[c] = |{u in new[c] : c + N in A[u]}| / |new[c]|``, nan when
      ``c + N`` is after the last period of the window (unobserved) or the
      cohort is empty.

    The window runs from the period of the first event to that of the last.

    Examples
    --------
    >>> from receval import retention
    >>> events = {
    ...     "user": ["a", "a", "b", "b", "c"],
    ...     "time": ["2024-01-01 09:00", "2024-01-02 10:00", "2024-01-01 12:00",
    ...              "2024-01-04 08:00", "2024-01-02 23:00"],
    ... }
    >>> report = retention(events, days=(1, 3))
    >>> report.periods
    array(['2024-01-01', '2024-01-02', '2024-01-03', '2024-01-04'], dtype='datetime64[D]')
    >>> report.new_users, report.login_users, report.active_users
    (array([2, 1, 0, 0]), array([2, 2, 0, 1]), array([0, 1, 0, 1]))
    >>> report.day_n_retention  # rows: cohorts; columns: day 1, day 3
    array([[0.5, 0.5],
           [0. , nan],
           [nan, nan],
           [nan, nan]])

    At 23:00 UTC it is already the next day in Shanghai:

    >>> retention(events, days=1, tz="Asia/Shanghai").new_users
    array([2, 0, 1, 0])
    """
    from ..data.scan import Scan

    if isinstance(events, Scan):  # a receval.scan(...): passes over the file
        from ._retention_scan import scan_retention

        return scan_retention(
            events, user=user, time=time, signup=signup, period=period, days=days, tz=tz,
            time_unit=time_unit, before_signup=before_signup,
        )  # fmt: skip
    offsets, zone, tz_name = check_options(period, days, tz, time_unit, before_signup)
    if not isinstance(user, str) or not isinstance(time, str):
        bad, value = ("user", user) if not isinstance(user, str) else ("time", time)
        raise InvalidParameterError(
            f"The '{bad}' parameter of {FUNC} must be a column name (str). Got {value!r} instead."
        )

    # ---- read
    where = _locator(None, None)
    data = events
    if isinstance(events, (str, os.PathLike)):
        path = os.fspath(events)
        fmt = file_format or io.infer_format(path)
        columns = [user, time] + ([signup] if isinstance(signup, str) else [])
        data = io.read_table(path, list(dict.fromkeys(columns)), FUNC, fmt, id_columns=(user,))
        where = _locator(path, fmt)
    elif not _is_table(events):
        raise InputValidationError(
            f"{FUNC}: events must be a DataFrame, an Arrow table, a mapping of columns or "
            f"the path of a CSV, TSV or Parquet file. Got {type(events).__name__}."
        )
    times = event_times(data, time, time_unit, where)
    if len(times.values) == 0:
        raise InputValidationError(f"{FUNC}: events is empty; pass at least one event.")
    window = period_window(times, zone, period, "time")
    counts = count_cohorts(data, user, times, signup, window, zone, time_unit, before_signup, where)
    return retention_report(
        counts, window, period, tz_name, offsets, before_signup, times.unit, times.inferred
    )


def check_options(
    period: str, days: Any, tz: Any, time_unit: str | None, before_signup: str
) -> tuple[tuple[int, ...], _dt.tzinfo, str]:
    """Check the options of :func:`retention`: (day offsets, zone, zone name)."""
    v.check_option(period, "period", FUNC, _PERIODS)
    v.check_option(before_signup, "before_signup", FUNC, _BEFORE_SIGNUP)
    v.check_option(time_unit, "time_unit", FUNC, [None, *_TIME_UNITS])
    offsets = _check_days(days)
    zone, tz_name = _check_tz(tz)
    return offsets, zone, tz_name


def event_times(data: Any, time: str, time_unit: str | None, where: Any) -> Times:
    """The event times of a table, parsed (no missing value allowed)."""
    return to_times(
        _column(data, time, "event times", "time"), "time", time_unit, where, allow_missing=False
    )


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
    window: _Window,
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
    from .._kernels import _retention as k

    user_col = io.frame_columns(data, {"user": user}, FUNC)["user"]
    codes, user_ids = factorize(user_col, "user", FUNC)
    n_events = v.check_same_length(FUNC, user=codes, time=times.values)
    codes = codes.astype(np.int32, copy=False)
    if times.kind == "date":
        times = Times(window.seconds_of_days(times.values, zone), 1, "instant", None)
    n_event_users = len(user_ids)
    n_users = n_event_users
    n_periods = window.n_periods
    n_threads = k._n_threads()
    periods = k._periods_of_instants(
        times.values, np.int64(times.divisor), window.bounds, window.period_of_day, n_threads
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
        seconds, has, conflict = k._signup_per_user(
            s_codes, s_times.values, np.int64(s_times.divisor), valid, n_users
        )
        if conflict >= 0:
            _raise_conflict(conflict, s_codes, s_times, seconds, user_ids, new_ids)
        cohort = np.full(n_users, k.NO_SIGNUP, dtype=np.int32)
        cohort[has] = window.periods_of_seconds(seconds[has])
        counts["without"] = int(n_event_users - has[:n_event_users].sum())
        counts["before_window"] = int((cohort == k.BEFORE).sum())
        counts["after_window"] = int((cohort == k.AFTER).sum())
        n_before, flagged, first = k._events_before_signup(
            codes, times.values, np.int64(times.divisor), seconds, has, n_threads
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
    window: _Window,
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
    first_days = _first_day_of_periods(window.first_period + offset, period)
    return RetentionReport(
        period=period,
        tz=tz_name,
        days=offsets,
        periods=first_days.astype("datetime64[D]"),
        new_users=new,
        login_users=login,
        active_users=login - new,
        retention_rate=rate,
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


def _locator(path: str | None, fmt: str | None) -> Callable[[int], str]:
    """Where row ``i`` of the events is, for error messages."""

    def where(i: int) -> str:
        if path is None:
            return f"{FUNC}: row {i}"
        if fmt in ("csv", "tsv"):
            return f"{path}:{i + 2}"  # line 1 is the header
        return f"{path}: row {i}"

    return where


def py_scalar(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def iso_second(second: int) -> str:
    return str(np.datetime64(second, "s")) + "Z"


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
        bits = k._activity_bitsets(codes, periods, n_users, n_words, n_parts)
        parts = k._accumulate_bitsets(bits, n_words, cohort, n_periods, drop, acc_parts)
    else:
        offsets, values = k._periods_by_user(codes, periods, n_users, n_parts)
        parts = k._accumulate_csr(offsets, values, cohort, n_periods, drop, acc_parts)
    new, login, table = (part.sum(axis=0) for part in parts)
    return new, login, table

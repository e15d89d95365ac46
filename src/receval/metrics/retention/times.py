"""Times of retention events: parsing and the calendar of periods.

- reading a time column (datetimes, dates, ISO 8601 strings, epoch numbers)
  into :class:`Times`: int64 UTC instants or local calendar dates;
- the window of periods (days, ISO weeks, months) in a time zone,
  :class:`PeriodWindow`, and the local day and midnight of an instant.

No user or cohort counting here (see ``counting``).
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ... import _validation as v
from ...data import io
from ...data._arrow import to_numpy
from ...data._instants import first_unreadable, iso_text, text_instants
from ...data._string_buffers import is_arrow_string
from ...exceptions import InputValidationError, InvalidParameterError

FUNC = "retention"
TIME_UNITS = {"s": 1, "ms": 1_000, "us": 1_000_000, "ns": 1_000_000_000}
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
MAX_PERIODS = 4000

_ISO_EXAMPLES = "'2024-01-31', '2024-01-31 08:00:00' or '2024-01-31T08:00:00+08:00'"
# the fix of a time out of range: the unit its epoch number was read in (written
# ``time_unit=`` so that the command line names its option, --time-unit)
_CHECK_UNIT = "check time_unit= (the unit of epoch numbers)"


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


def _missing(missing: Any, name: str) -> InputValidationError:
    """The error of a time column whose rows ``missing`` (booleans) have no time."""
    fix = "drop those rows or fill them with a time"
    return v.missing_values(FUNC, name, missing, "None, NaN or NaT", fix)


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
    if not len(arr) and pa.types.is_null(typ):  # a file of only a header: no type
        raise InputValidationError(f"{FUNC}: events is empty; pass at least one event.")
    if arr.null_count:
        if not allow_missing:
            raise _missing(arr.is_null(), name)
        if pa.types.is_null(typ):  # no time at all
            n = len(arr)
            return Times(np.zeros(n, np.int64), 1, "instant", np.zeros(n, bool))
        valid = to_numpy(arr.is_valid())
    if pa.types.is_dictionary(typ):
        arr = arr.cast(typ.value_type)
        typ = arr.type
    if pa.types.is_timestamp(typ) or pa.types.is_date(typ):
        _no_unit(time_unit, name, "datetimes")
        if pa.types.is_date64(typ):
            arr = arr.cast(pa.date32())
        filled = arr.fill_null(0) if valid is not None else arr
        ints = filled.view(pa.int64() if pa.types.is_timestamp(typ) else pa.int32())
        values = to_numpy(ints).astype(np.int64, copy=False)
        if pa.types.is_date(typ):
            return Times(values, 1, "date", valid)
        return Times(values, TIME_UNITS[typ.unit], "instant", valid)
    if is_arrow_string(typ):
        _no_unit(time_unit, name, "strings")
        return _parse_strings(arr, name, where, valid)
    if pa.types.is_integer(typ) or pa.types.is_floating(typ):
        filled = arr.fill_null(0) if valid is not None else arr
        return times_from_numbers(to_numpy(filled), valid, name, time_unit, allow_missing)
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
            raise _missing(nat, name)
        valid = ~nat
    if unit == "D":  # calendar dates
        return Times(arr.view(np.int64), 1, "date", valid)
    if unit not in TIME_UNITS:  # hours, minutes, weeks, ...: to seconds
        arr = arr.astype("datetime64[s]")
        unit = "s"
    return Times(arr.view(np.int64), TIME_UNITS[unit], "instant", valid)


def times_from_numbers(
    arr: np.ndarray, valid: np.ndarray | None, name: str, time_unit: str | None, allow: bool
) -> Times:
    """Read epoch numbers; ``valid`` marks rows with a time, ``allow`` lets NaN be missing."""
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
                raise _missing(nan, name)
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
    scale = TIME_UNITS[time_unit]
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
        f"outside the years 1 to 9999; {_CHECK_UNIT}."
    )


def _parse_strings(arr: Any, name: str, where: Callable[[int], str], valid: Any) -> Times:
    import pyarrow as pa
    import pyarrow.compute as pc

    if valid is not None:
        arr = arr.fill_null("1970-01-01")
    arr = iso_text(arr)
    # a column of dates: every time as long as YYYY-MM-DD
    lengths = pc.min_max(pc.binary_length(arr)).as_py()
    dates = len(arr) > 0 and lengths == {"min": 10, "max": 10}

    def parse(a: Any) -> Times:
        if dates:
            days = to_numpy(pc.cast(a, pa.date32()).view(pa.int32()))
            return Times(days.astype(np.int64), 1, "date", valid)
        try:
            return Times(text_instants(a, "ns"), TIME_UNITS["ns"], "instant", valid)
        except pa.ArrowInvalid:  # out of the nanosecond range (1677-2262)
            return Times(text_instants(a, "us"), TIME_UNITS["us"], "instant", valid)

    try:
        return parse(arr)
    except pa.ArrowInvalid:
        pass
    i = first_unreadable(arr, parse)
    raise InputValidationError(
        f"{where(i)}: the {name} {arr[i].as_py()!r} is not an ISO 8601 date or time; "
        f"write e.g. {_ISO_EXAMPLES}."
    )


# ------------------------------------------------------------------ calendar
def _local_day(second: int, zone: _dt.tzinfo, name: str) -> int:
    """Day number (days since 1970-01-01) of the local date of a UTC second."""
    try:
        local = _dt.datetime.fromtimestamp(second, zone)
    except (OverflowError, OSError, ValueError):
        raise InputValidationError(
            f"{FUNC}: {name} holds a time outside the years 1 to 9999 "
            f"({second} seconds from 1970); {_CHECK_UNIT}."
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


def first_day_of_periods(periods: np.ndarray, period: str) -> np.ndarray:
    """Day number of the first day of absolute period indexes (the inverse of the above)."""
    if period == "day":
        return periods
    if period == "week":
        return 7 * periods - 3
    return periods.astype("datetime64[M]").astype("datetime64[D]").astype(np.int64)


@dataclass
class PeriodWindow:
    """The periods of a retention window: local day boundaries and each day's period."""

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
            out[~inside] = local_midnights(days[~inside], zone)
        return out

    def periods_of_seconds(self, seconds: np.ndarray) -> np.ndarray:
        """Window period of each UTC second; -1 before the window, -2 after it."""
        g = np.searchsorted(self.bounds, seconds, side="right") - 1
        n_days = len(self.bounds) - 1
        out = self.period_of_day[np.clip(g, 0, n_days - 1)].astype(np.int32)
        out[g < 0] = -1
        out[g >= n_days] = -2
        return out


def local_midnights(days: np.ndarray, zone: _dt.tzinfo) -> np.ndarray:
    """UTC second of the local midnight starting each day (one ``zoneinfo`` call per
    distinct day); days beyond datetime's range stay before / after every window."""
    days = np.clip(days, _MIN_SECOND // 86400 + 2, _MAX_SECOND // 86400 - 2)
    uniq, inverse = np.unique(days, return_inverse=True)
    result: np.ndarray = np.array([_midnight(int(d), zone) for d in uniq], np.int64)[inverse]
    return result


def _extreme_seconds(t: Times) -> tuple[int, int]:
    values = t.values if t.valid is None else t.values[t.valid]
    return int(values.min()) // t.divisor, int(values.max()) // t.divisor


def extreme_days(t: Times, zone: _dt.tzinfo, name: str) -> tuple[int, int]:
    """Local day numbers of the first and the last of the times ``t``, in ``zone``."""
    if t.kind == "date":
        lo_day, hi_day = (int(x) for x in (t.values.min(), t.values.max()))
        for day in (lo_day, hi_day):
            if not _MIN_SECOND // 86400 < day < _MAX_SECOND // 86400:
                raise InputValidationError(
                    f"{FUNC}: {name} holds a date outside the years 1 to 9999."
                )
        return lo_day, hi_day
    lo_s, hi_s = _extreme_seconds(t)
    for s in (lo_s, hi_s):
        if not _MIN_SECOND + 86400 <= s <= _MAX_SECOND - 86400:
            raise InputValidationError(
                f"{FUNC}: {name} holds a time outside the years 1 to 9999 "
                f"({s} seconds from 1970); {_CHECK_UNIT}."
            )
    return _local_day(lo_s, zone, name), _local_day(hi_s, zone, name)


def periods_of_days(lo_day: int, hi_day: int, period: str) -> tuple[int, int]:
    """Absolute period indexes of two day numbers."""
    lo, hi = _period_of_days(np.array([lo_day, hi_day]), period)
    return int(lo), int(hi)


def check_span(lo_day: int, hi_day: int, period: str) -> None:
    """Raise when the days from ``lo_day`` to ``hi_day`` span too many periods."""
    p_lo, p_hi = periods_of_days(lo_day, hi_day, period)
    n_periods = p_hi - p_lo + 1
    if n_periods > MAX_PERIODS:
        first, last = (np.datetime64(d, "D") for d in (lo_day, hi_day))
        raise InputValidationError(
            f"{FUNC}: the events span {n_periods} {period}s (from {first} to {last}); at most "
            f"{MAX_PERIODS} are supported, as the cohort table has a row and a column per "
            f"period; pass a longer period (period='week' or period='month'), or {_CHECK_UNIT}."
        )


def window_of_periods(p_lo: int, p_hi: int, zone: _dt.tzinfo, period: str) -> PeriodWindow:
    """The window of the absolute periods ``p_lo`` to ``p_hi``, in ``zone``."""
    starts = first_day_of_periods(np.array([p_lo, p_hi + 1], dtype=np.int64), period)
    first_day, end_day = int(starts[0]), int(starts[1])  # end_day: first day after the window
    days = np.arange(first_day, end_day + 1, dtype=np.int64)
    bounds = _day_bounds(days, zone)
    period_of_day = (_period_of_days(days[:-1], period) - p_lo).astype(np.int32)
    return PeriodWindow(p_lo, p_hi - p_lo + 1, first_day, bounds, period_of_day)


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


# ------------------------------------------------------------------ formatting
def py_scalar(value: Any) -> Any:
    """A NumPy scalar as the Python value (for messages); other values unchanged."""
    return value.item() if isinstance(value, np.generic) else value


def iso_second(second: int) -> str:
    """A UTC second in ISO 8601 (``2024-01-31T08:00:00Z``)."""
    return str(np.datetime64(second, "s")) + "Z"

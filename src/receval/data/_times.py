"""A column of times and a cut-off time as sort keys: the one reading of times for
every reader that compares them (the split's logs, the audit's train and test).

Keys are int64 (integers; datetimes as their own ticks, tz-aware ones as instants in
UTC; ISO 8601 text, through :mod:`._instants`, as nanoseconds since 1970 UTC) or
float64; a column of datetimes comes with its ``datetime64`` type, which cut-offs
convert to and which two columns of different units are brought to (the finer,
checked), and with its time zone, which a cut-off must match (:func:`check_zone`). An
empty column of no kind (objects, nulls) has the type :data:`NO_KIND`: a cut-off of
either kind fits it.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import math
import re
from fractions import Fraction
from functools import partial, reduce
from typing import Any

import numpy as np

from .._validation import check_no_nulls, counted, format_values, literal, missing_values
from ..exceptions import InputValidationError, InvalidParameterError
from ._arrow import is_arrow, to_arrow, to_numpy
from ._encode import column_array
from ._instants import first_unreadable, has_offset, iso_instants, text_column
from ._lookup import distinct

_INT64 = np.iinfo(np.int64)

#: The time columns a log is read by when none is named, the first present.
TIME_NAMES = ("timestamp", "time")

#: The type of an empty column of no kind of time (objects, Arrow or polars nulls):
#: its cut-offs decide whether it is read as numbers or datetimes (:func:`cutoff_unit`).
NO_KIND: np.dtype[Any] = np.dtype(object)

#: The time zone of ISO 8601 text whose every time ends in a UTC offset: instants,
#: whatever their offsets, compared in UTC.
OFFSETS = "UTC offsets"
#: The time zone of ISO 8601 text of which some times end in a UTC offset and others
#: do not (those are read as UTC times): no cut-off compares with both.
SOME_OFFSETS = "UTC offsets on some times"
_ZONES = {"none": None, "all": OFFSETS, "some": SOME_OFFSETS}


def time_column(
    values: Any, func: str, column: str
) -> tuple[np.ndarray, np.dtype[Any] | None, str | None]:
    """The times of a column as sort keys, their ``datetime64`` type (None for
    numbers; :data:`NO_KIND` for an empty column of objects or nulls) and their time
    zone: that of tz-aware datetimes (a pandas, polars or Arrow column's type, Python
    datetimes' tzinfo), :data:`OFFSETS` or :data:`SOME_OFFSETS` for ISO 8601 text with
    UTC offsets, None for naive times and numbers. ``values`` is a frame's column
    (whose type tells its time zone) or an array; ``func`` and ``column`` name the
    column in errors (``"split"``, ``"the time column 'ts'"``). Missing times (NaN,
    NaT, null), infinite ones, objects of several types, naive Python datetimes beside
    tz-aware ones and text that is not ISO 8601 raise.

    Examples
    --------
    >>> days = np.array(["2024-01-01", "2024-01-02"], "datetime64[D]")
    >>> keys, unit, zone = time_column(days, "split", "t")
    >>> keys.tolist(), unit, zone
    ([19723, 19724], dtype('<M8[D]'), None)
    >>> keys, _, zone = time_column(np.array(["1970-01-01T00:00:01Z"]), "split", "t")
    >>> keys.tolist(), zone
    ([1000000000], 'UTC offsets')
    """
    import pyarrow as pa

    where = f"{func}: {column}"
    zone = _declared_zone(values)
    # nulls (NA) of integers named so, before NumPy reads them as NaN
    check_no_nulls(values, column, func, _FILL)
    values = _numpy_datetimes(_nat_as_none(column_array(values)), where)
    text = text_column(values)
    if text is not None:
        _no_nulls(text, func, column)
        keys, offsets = _text_keys(text, where)
        return keys, np.dtype("datetime64[ns]"), _ZONES[offsets]
    if not is_arrow(values):
        values = np.asarray(values)
        if values.dtype.kind != "O":
            return (*_keys(values, func, column), zone)
        objects = values
        try:  # Python datetimes or numbers
            values = to_arrow(objects)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            raise _several_types(objects, where) from None
        # Arrow reads datetimes after a date as dates, cutting off their time of day
        if pa.types.is_date(values.type) and any(isinstance(x, dt.datetime) for x in objects):
            raise _several_types(objects, where)
        zone = _declared_zone(values)
        if pa.types.is_timestamp(values.type):
            _one_awareness(objects, where)
    _no_nulls(values, func, column)
    return (*_keys(to_numpy(values), func, column), zone)


def _nat_as_none(values: Any) -> Any:
    """A NumPy object column with pandas' ``NaT`` (a missing time, which Arrow cannot
    read among datetimes) as None, refused as a missing time; other columns as given."""
    if not isinstance(values, np.ndarray) or values.dtype.kind != "O":
        return values
    nat = np.fromiter((type(x).__name__ == "NaTType" for x in values.tolist()), bool, len(values))
    if not nat.any():
        return values
    out = values.copy()
    out[nat] = None
    return out


def _numpy_datetimes(values: Any, where: str) -> Any:
    """A NumPy object column of ``numpy.datetime64`` values (None where missing) as a
    ``datetime64`` array in the unit that holds them all (:func:`common_unit`), which
    Arrow cannot read when it is months, years, weeks, days, hours or minutes; a value
    that unit cannot hold raises (:func:`in_unit`); other columns as given."""
    if not isinstance(values, np.ndarray) or values.dtype.kind != "O":
        return values
    items = values.tolist()
    stamps = [isinstance(x, np.datetime64) for x in items]
    if not any(stamps) or not all(s or x is None for s, x in zip(stamps, items, strict=True)):
        return values
    known = {i: x for i, x in enumerate(items) if x is not None and not np.isnat(x)}
    units = {x.dtype for x in known.values()}
    to = reduce(common_unit, units) if units else np.dtype("M8[ns]")
    out = np.full(len(items), np.datetime64("NaT"), to)
    for unit in units:
        rows = np.array([i for i, x in known.items() if x.dtype == unit], np.intp)
        ticks = np.array([known[i] for i in rows], unit).view(np.int64)
        found = in_unit(ticks, unit, to, where, "some of its values", "its values")
        out[rows] = found.view(to)
    return out


def _declared_zone(values: Any) -> str | None:
    """The time zone that a column's type declares: an Arrow timestamp's (pandas'
    ``ArrowDtype`` too), pandas' ``DatetimeTZDtype``'s, polars' ``Datetime``'s; None
    for other columns."""
    kind = getattr(values, "type", None)  # Arrow
    if kind is None:
        kind = getattr(values, "dtype", None)  # pandas, polars, NumPy
    kind = getattr(kind, "pyarrow_dtype", kind)  # pandas' ArrowDtype
    zone = getattr(kind, "tz", None)  # Arrow, pandas
    if zone is None:
        zone = getattr(kind, "time_zone", None)  # polars
    return None if zone is None else str(zone)


def _several_types(objects: np.ndarray, where: str) -> InputValidationError:
    """The error of a column of Python objects of several types (dates and datetimes,
    numbers and datetimes, ...), which compare as no one kind of time."""
    kinds = sorted({type(x).__name__ for x in objects.tolist()})
    return InputValidationError(
        f"{where} holds Python objects of several types ({', '.join(kinds)}); give "
        f"one kind of time: datetimes, ISO 8601 text or numbers."
    )


def _one_awareness(objects: np.ndarray, where: str) -> None:
    """Refuse Python datetimes naive and tz-aware in one column (Arrow reads them all
    as the first one's kind: the others' instants shift by their offsets), as pandas
    refuses them."""
    first: dict[bool, int] = {}
    for i, value in enumerate(objects.tolist()):
        if isinstance(value, dt.datetime):  # pandas.Timestamp too; not None, datetime64
            first.setdefault(value.utcoffset() is not None, i)
            if len(first) == 2:
                break
    else:
        return
    naive, aware = first[False], first[True]
    raise InputValidationError(
        f"{where} holds naive datetimes (no time zone; the first at position {naive}: "
        f"{objects[naive]!r}) and tz-aware ones (the first at position {aware}: "
        f"{objects[aware]!r}), which compare as no one kind of time; give every time a "
        f"time zone (a naive UTC time t as t.replace(tzinfo=datetime.timezone.utc)), or "
        f"none."
    )


def _no_nulls(values: Any, func: str, column: str) -> None:
    if values.null_count:
        raise _missing(values.is_null(), func, column, "null")


#: The fix of a time column with missing times
_FILL = "drop those rows or fill their time first"


def _missing(missing: Any, func: str, column: str, what: str) -> InputValidationError:
    """The error of a time column whose rows ``missing`` (booleans) have no time."""
    return missing_values(func, column, missing, what, _FILL)


def _keys(arr: np.ndarray, func: str, column: str) -> tuple[np.ndarray, np.dtype[Any] | None]:
    """:func:`time_column` of a NumPy column of numbers or datetimes."""
    where = f"{func}: {column}"
    kind = arr.dtype.kind
    if kind == "u" and len(arr) and arr.max() > _INT64.max:
        raise InputValidationError(
            f"{where} holds {arr.max()}, above the largest time an int64 holds "
            f"({_INT64.max}); give times in a coarser unit."
        )
    if not len(arr) and kind == "O":  # no rows and no type: times of either kind
        return np.zeros(0, dtype=np.int64), NO_KIND
    if kind in "iu" or (not len(arr) and kind != "M"):  # no rows: no times, of any type
        return arr.astype(np.int64, copy=False), None  # (datetimes keep their unit)
    if kind == "M":  # in this machine's byte order, then as their ticks
        arr = arr.astype(arr.dtype.newbyteorder("="), copy=False)
        keys, unit, missing, label = arr.view(np.int64), arr.dtype, np.isnat(arr), "NaT"
    elif kind == "f":
        keys, unit = arr.astype(np.float64, copy=False), None
        missing, label = np.isnan(keys), "NaN"
    else:
        shown = format_values(distinct(arr[:5].astype(str)))
        raise InputValidationError(
            f"{where} must hold numbers, datetimes or ISO 8601 text. Got values {shown} of "
            f"type {arr.dtype}; parse them first (e.g. pandas.to_datetime)."
        )
    if missing.any():
        raise _missing(missing, func, column, label)
    n_infinite = 0 if kind == "M" else int(np.isinf(keys).sum())
    if n_infinite:
        infinite = counted(n_infinite, "infinite value")
        raise InputValidationError(f"{where} has {infinite}; give finite times.")
    return keys, unit


def _text_keys(text: Any, where: str) -> tuple[np.ndarray, str]:
    """ISO 8601 text as int64 nanoseconds since 1970 UTC, and which times end in a UTC
    offset (:func:`iso_instants`)."""
    import pyarrow as pa

    read = partial(iso_instants, unit="ns")
    try:
        return read(text)
    except pa.ArrowInvalid:
        import pyarrow.compute as pc

        numbers = (
            pc.match_substring_regex(text, _NUMBER).fill_null(False).to_numpy(zero_copy_only=False)
        )
        if numbers[0] and not numbers.all():  # numbers read as text for one that is not
            i = int(np.flatnonzero(~numbers)[0])
            raise InputValidationError.positioned(
                f"{literal(where)} holds {literal(repr(text[i].as_py()))} {{at}}, not a number "
                f"as the rows before it; fix the value, or give datetimes or ISO 8601 text.",
                i,
            ) from None
        i = first_unreadable(text, read)
        raise InputValidationError.positioned(
            f"{literal(where)} holds {literal(repr(text[i].as_py()))} {{at}}, which is not an "
            f"ISO 8601 time between 1677 and 2262 (e.g. '2024-01-31T08:00:00+08:00'); give "
            f"datetimes, ISO 8601 text or numbers.",
            i,
        ) from None


#: A number written as text (an epoch time).
_NUMBER = r"^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$"


#: Seconds in a tick of each of NumPy's units of a fixed length.
_SECONDS = {"W": Fraction(604800), "D": Fraction(86400), "h": Fraction(3600),
            "m": Fraction(60), "s": Fraction(1), "ms": Fraction(1, 10**3),
            "us": Fraction(1, 10**6), "ns": Fraction(1, 10**9), "ps": Fraction(1, 10**12),
            "fs": Fraction(1, 10**15), "as": Fraction(1, 10**18)}  # fmt: skip


def _month_days(month: int) -> int:
    """Days from 1970-01-01 to the first day of ``month`` (months since 1970-01,
    proleptic Gregorian), in Python ints: exact for any month."""
    year, m = divmod(month, 12)
    year += 1970 - (m < 2)  # March-based years: the leap day is a year's last
    era, of_era = divmod(year, 400)
    day_of_year = (153 * ((m + 10) % 12) + 2) // 5
    return era * 146097 + of_era * 365 + of_era // 4 - of_era // 100 + day_of_year - 719468


def _month_of(day: int) -> int:
    """The month (since 1970-01) holding the day ``day`` (since 1970-01-01)."""
    month = day * 4800 // 146097  # 4800 months in 146097 days; then to the exact one
    while _month_days(month) > day:
        month -= 1
    while _month_days(month + 1) <= day:
        month += 1
    return month


def _instant(stamp: np.datetime64) -> Fraction:
    """A ``numpy.datetime64`` (of any unit) as seconds since 1970-01-01, exactly."""
    name, count = np.datetime_data(stamp.dtype)
    ticks = int(stamp.astype(np.int64)) * count
    if name in ("Y", "M"):  # a month's or year's first instant
        return Fraction(_month_days(ticks * (12 if name == "Y" else 1)) * 86400)
    return ticks * _SECONDS["ns" if name == "generic" else name]


def _in_ticks(seconds: Fraction, unit: np.dtype[Any]) -> Fraction:
    """An instant (seconds since 1970) in ticks of the ``datetime64`` type ``unit``,
    exactly: of a month or a year, the ticks before it and the part of its own tick
    that has passed (tick ``k`` is the instant at which it starts, as NumPy reads it)."""
    name, count = np.datetime_data(unit)
    if name not in ("Y", "M"):
        return seconds / (_SECONDS["ns" if name == "generic" else name] * count)
    month = _month_of(math.floor(seconds / 86400))
    start, end = (_month_days(m) * 86400 for m in (month, month + 1))
    months = month + (seconds - start) / (end - start)
    return months / (count * (12 if name == "Y" else 1))


def in_unit(
    keys: np.ndarray,
    unit: np.dtype[Any],
    to: np.dtype[Any],
    where: str,
    others: str = "those of the other column",
    give: str = "both columns",
) -> np.ndarray:
    """Datetime keys in ticks of ``unit`` as ticks of ``to`` (:func:`common_unit`,
    which holds each of them exactly; an instant that ``to`` cannot hold raises:
    NumPy's cast would wrap it around). ``others`` names, in the error, the times
    whose unit ``to`` is, and ``give`` what to give in one unit.

    Examples
    --------
    >>> in_unit(np.array([1, 2]), np.dtype("M8[s]"), np.dtype("M8[ms]"), "t").tolist()
    [1000, 2000]
    >>> in_unit(np.array([1]), np.dtype("M8[M]"), np.dtype("M8[D]"), "t").tolist()
    [31]
    """
    if unit == to:
        return keys
    given = keys.view(unit)
    with np.errstate(over="ignore"):
        out = given.astype(to)
    if (np.isnat(out) | (out.astype(unit) != given)).any():
        raise InputValidationError(
            f"{where} holds times that {to} cannot hold ({others} are in "
            f"{np.datetime_data(to)[0]}): give {give} in one unit, or a coarser one."
        )
    converted: np.ndarray = out.view(np.int64)
    return converted


def common_unit(a: np.dtype[Any], b: np.dtype[Any]) -> np.dtype[Any]:
    """The ``datetime64`` type that holds the times of both ``a`` and ``b`` exactly:
    the finer (NumPy's promotion), in days at least beside months or years (NumPy
    promotes months and weeks to weeks, in which a month's start falls between ticks).

    Examples
    --------
    >>> common_unit(np.dtype("M8[M]"), np.dtype("M8[W]"))
    dtype('<M8[D]')
    """
    unit = np.promote_types(a, b)
    if {np.datetime_data(a)[0], np.datetime_data(b)[0]} & {"Y", "M"}:
        unit = np.promote_types(unit, np.dtype("M8[D]"))
    return unit


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(
        value, (bool, np.bool_)
    )


def cutoff_unit(
    values: list[Any], unit: np.dtype[Any] | None, subject: str, func: str
) -> np.dtype[Any] | None:
    """The type that the cut-offs ``values`` of one split are read in: the time
    column's, or for an empty column of no kind (:data:`NO_KIND`) the cut-offs' own
    kind, which must be one: None for numbers, ``datetime64[ns]`` for datetimes.
    ``subject`` names them in the error (``"The 'cutoffs' parameter"``).

    Examples
    --------
    >>> cutoff_unit(["2024-01-01"], NO_KIND, "The 'cutoff' parameter", "f")
    dtype('<M8[ns]')
    >>> cutoff_unit([5, 7.5], NO_KIND, "The 'cutoffs' parameter", "f") is None
    True
    """
    if unit is not NO_KIND:
        return unit
    numbers = [_is_number(v) for v in values]
    if all(numbers):
        return None
    if not any(numbers):
        return np.dtype("datetime64[ns]")
    raise InvalidParameterError(
        f"{subject} of {func} must be all numbers or all datetimes (the time column has no "
        f"rows to tell which). Got {format_values(values)} instead."
    )


#: an ISO time's fraction of a second (``.`` or ``,``, any number of digits) and its
#: UTC offset, if any: the fraction is read exactly, past the microseconds that
#: ``datetime.fromisoformat`` keeps (it drops the digits after the sixth)
_FRACTION = re.compile(
    r"^(?P<head>.*[T ](?:\d{2}:\d{2}:\d{2}|\d{6}))[.,](?P<digits>\d+)"
    r"(?P<tail>[Zz]|[+-]\d{2}(?::?\d{2})?)?$"
)


def cutoff_ticks(
    value: Any, unit: np.dtype[Any] | None, name: str, func: str, keys: np.ndarray
) -> int | float | Fraction:
    """A cut-off time in the terms of the times ``keys``, exactly: a number for numeric
    times (a Python int past int64 a float against float times, an error against
    integer ones, which it could not be compared with); a datetime,
    ``numpy.datetime64`` (of any unit), ``pandas.Timestamp`` or ISO string (its
    fraction of a second to any number of digits, with or without a UTC offset) for
    datetime columns, as a ``Fraction`` of ticks of the column's unit (of a month or
    a year: the ticks before it and the part of its own that has passed, a tick
    being the instant it starts at, as NumPy reads it). Against an empty column of
    no kind (:data:`NO_KIND`), a cut-off of either kind (:func:`cutoff_unit`).
    :func:`cutoff_key` is its first tick at or after.

    Examples
    --------
    >>> cutoff_ticks("2024-01-01T00:00:00.000000500", np.dtype("M8[us]"), "cutoff", "f",
    ...              np.zeros(0, int)) - 1704067200 * 10**6
    Fraction(1, 2)
    >>> cutoff_ticks("2020-01-16", np.dtype("M8[M]"), "cutoff", "f", np.zeros(0, int))
    Fraction(18615, 31)
    """
    unit = cutoff_unit([value], unit, f"The '{name}' parameter", func)
    wide = isinstance(value, int) and not isinstance(value, bool)
    if wide and unit is None and not -(2**63) <= value < 2**63:
        if keys.dtype.kind != "f":
            raise InvalidParameterError(
                f"The '{name}' parameter of {func} must be within int64's range "
                f"(-2**63 to 2**63 - 1), as the time column holds int64 numbers. Got "
                f"{value!r}, which is outside it; pass a cut-off within the times' range."
            )
        value = float(value)
    if unit is None:
        if not _is_number(value):
            raise InvalidParameterError(
                f"The '{name}' parameter of {func} must be a number, as the time column "
                f"holds numbers. Got {value!r} instead."
            )
        if not np.isfinite(value):  # no time is before inf, or at or after it
            raise InvalidParameterError(
                f"The '{name}' parameter of {func} must be a finite number, not NaN or "
                f"infinity. Got {value!r} instead; pass a time within the times' range."
            )
        return float(value) if isinstance(value, (float, np.floating)) else int(value)
    stamp, fraction = _stamp(value, name, func)
    return _in_ticks(_instant(stamp) + fraction, unit)


def _stamp(value: Any, name: str, func: str) -> tuple[np.datetime64, Fraction]:
    """A datetime cut-off as a naive ``numpy.datetime64`` (an aware one in UTC) and the
    fraction of a second an ISO string gives beyond it (exactly: no digit dropped)."""
    given, fraction = value, Fraction(0)
    try:
        if isinstance(value, str):
            value = value.strip()
            found = _FRACTION.match(value)
            if found:  # the whole seconds as below, their fraction exactly
                digits = found["digits"]
                fraction = Fraction(int(digits), 10 ** len(digits))
                value = found["head"] + (found["tail"] or "")
            # an offset (Z, +08:00) makes an aware datetime
            with contextlib.suppress(ValueError):  # else NumPy's reading
                value = dt.datetime.fromisoformat(value)
        if hasattr(value, "to_datetime64"):  # pandas.Timestamp (its time zone dropped: UTC)
            value = value.tz_convert(None) if value.tzinfo else value
            value = value.to_datetime64()
        elif isinstance(value, dt.datetime) and value.tzinfo is not None:
            value = value.astimezone(dt.timezone.utc).replace(tzinfo=None)
        stamp = np.datetime64(value)
        if np.isnat(stamp) or not isinstance(value, (str, dt.date, np.datetime64)):
            raise ValueError
    except (ValueError, TypeError):
        raise InvalidParameterError(
            f"The '{name}' parameter of {func} must be a datetime (a datetime, "
            f"numpy.datetime64, pandas.Timestamp or ISO string such as '2024-01-31'), as "
            f"the time column holds datetimes. Got {given!r} instead."
        ) from None
    return stamp, fraction


def cutoff_key(
    value: Any, unit: np.dtype[Any] | None, name: str, func: str, keys: np.ndarray
) -> float:
    """A cut-off time (:func:`cutoff_ticks`) as the key the times ``keys`` are compared
    with: a number as it is; a datetime as the first tick of the column's unit at or
    after it (so that ``time < key`` and ``time >= key`` hold as against the cut-off
    itself).

    Examples
    --------
    >>> cutoff_key("2024-01-02T12:00", np.dtype("M8[D]"), "cutoff", "f", np.zeros(0, int))
    19725
    """
    exact = cutoff_ticks(value, unit, name, func, keys)
    if not isinstance(exact, Fraction):
        return exact
    key = math.ceil(exact)  # the first tick at or after
    if not _INT64.min < key <= _INT64.max:
        held = cutoff_unit([value], unit, f"The '{name}' parameter", func)
        raise InvalidParameterError(
            f"The '{name}' parameter of {func} must be a time that the time column's unit "
            f"({'ns' if held is None else np.datetime_data(held)[0]}) holds. Got {value!r} "
            f"instead."
        )
    return key


def earlier(times: np.ndarray, than: Any) -> np.ndarray:
    """``times < than``, exactly: ``times`` int64 or float64 keys, ``than`` an array of
    either (elementwise) or a number (an int, a float or a ``fractions.Fraction``).
    NumPy compares an int with a float as two float64, which past 2**53 round (2**53 + 1
    is not earlier than 2.0**53 there): an int and a float here compare as numbers.

    Examples
    --------
    >>> earlier(np.array([2**53 + 1]), np.array([2.0**53 + 2])).tolist()
    [True]
    >>> earlier(np.array([2.0**53]), 2**53 + 1).tolist()
    [True]
    """
    if not isinstance(than, np.ndarray):
        return np.asarray(times < _least_at_or_above(than, times.dtype))
    if (times.dtype.kind == "f") == (than.dtype.kind == "f"):
        return np.asarray(times < than)
    if times.dtype.kind == "f":  # x < n for an integer n exactly when floor(x) < n
        whole = np.floor(times)
        ints, inside = _whole_int64(whole)
        return np.where(inside, ints < than, whole < 0)
    whole = np.ceil(than)  # n < x for an integer n exactly when n < ceil(x)
    ints, inside = _whole_int64(whole)
    return np.where(inside, times < ints, whole > 0)


def _whole_int64(whole: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Whole float64 values as int64 where int64 holds them, and where it does."""
    inside = (whole >= -(2.0**63)) & (whole < 2.0**63)
    return np.where(inside, whole, 0).astype(np.int64), inside


def _least_at_or_above(value: Any, dtype: np.dtype[Any]) -> Any:
    """The least number of ``dtype`` (int64 or float64) at or above ``value``, which
    the keys of that type compare with exactly as with ``value`` itself (an int
    beyond int64 as it is: NumPy compares it exactly)."""
    if isinstance(value, float) and (dtype.kind == "f" or not math.isfinite(value)):
        return value
    if dtype.kind != "f":
        return value if isinstance(value, int) else math.ceil(Fraction(value))
    exact = Fraction(value)
    try:
        near = float(exact)
    except OverflowError:
        return math.inf if exact > 0 else -math.inf
    return near if Fraction(near) >= exact else math.nextafter(near, math.inf)


def _is_aware(value: Any) -> bool | None:
    """Whether a datetime cut-off names an instant: an ISO string with a UTC offset
    (:func:`~receval.data._instants.has_offset`), a datetime or ``pandas.Timestamp``
    with a time zone; False for other datetimes, dates and ``numpy.datetime64``;
    None for what is no datetime."""
    if isinstance(value, str):
        return has_offset(value)
    if isinstance(value, dt.datetime):  # pandas.Timestamp too
        return value.utcoffset() is not None
    if isinstance(value, (dt.date, np.datetime64)):
        return False
    return None


def check_zone(
    value: Any,
    unit: np.dtype[Any] | None,
    zone: str | None,
    name: str,
    func: str,
    column: str = "the time column",
) -> None:
    """Refuse a datetime cut-off whose kind of time the times do not share, as pandas
    and polars refuse to compare them: a naive one (no UTC offset, no tzinfo) against
    tz-aware times or ISO 8601 text with UTC offsets, an aware one against naive
    times, and either against text with an offset on some times only (``unit`` and
    ``zone``: :func:`time_column`'s). Numbers, and the times of an empty column of no
    kind (:data:`NO_KIND`), have no time zone. ``column`` names the times in messages
    (the audit's ``"train's time column"``).

    Examples
    --------
    >>> check_zone("2024-01-01T00:00:00+01:00", np.dtype("M8[ns]"), "UTC", "cutoff", "f")
    >>> check_zone("2024-01-01", np.dtype("M8[ns]"), "UTC", "cutoff", "f")
    Traceback (most recent call last):
    ...
    receval.exceptions.InvalidParameterError: The 'cutoff' parameter of f must be ...
    """
    aware = _is_aware(value)
    if unit is None or unit is NO_KIND or aware is None:
        return
    if zone == SOME_OFFSETS:
        raise InputValidationError(
            f"{func}: {column} holds ISO 8601 text with a UTC offset on some times "
            f"and none on others, so {name}={value!r} compares with only some of them; "
            f"give every time an offset (e.g. '2024-01-31T08:00:00+08:00'), or none."
        )
    if aware == (zone is not None):
        return
    if aware:
        raise InvalidParameterError(
            f"The '{name}' parameter of {func} must be a time without a UTC offset or time "
            f"zone, as {column} holds naive times (no time zone). Got {value!r} "
            f"instead; give it as the times' clock reads, e.g. '2024-01-01T00:00:00', or "
            f"give the times their time zone first (e.g. pandas' .dt.tz_localize('UTC'))."
        )
    times = (
        "ISO 8601 text with UTC offsets, compared as instants in UTC"
        if zone == OFFSETS
        else f"time zone {zone}"
    )
    raise InvalidParameterError(
        f"The '{name}' parameter of {func} must be a time with a UTC offset or a time "
        f"zone, as {column} holds tz-aware times ({times}). Got {value!r} instead; "
        f"give it with an offset, e.g. '2024-01-01T00:00:00+01:00', or as a tz-aware "
        f"datetime."
    )

"""Time as sort keys, cut-off times, quantiles of time, and the order of each user's rows.

The tie rule, written once: rows of one user with equal times keep the order of
the log (a later row is later). Every per-user split orders a user's rows by
``(time, row)``, so the split does not depend on how a sort breaks ties.
"""

from __future__ import annotations

import contextlib
import datetime as dt
from functools import partial
from typing import Any

import numpy as np

from .._validation import format_values
from ..data._arrow import is_arrow, to_numpy
from ..data._encode import group_rows
from ..data._instants import first_unreadable, iso_instants, text_column
from ..exceptions import InputValidationError, InvalidParameterError


def time_column(values: Any, name: str, func: str) -> tuple[np.ndarray, np.dtype[Any] | None]:
    """The times of a column as sort keys, and their datetime64 type (None for
    numbers: how cut-offs convert). Keys: int64 (integers, datetimes as their ticks,
    ISO 8601 text as nanoseconds since 1970 UTC, as the audit and retention read it)
    or float64. Missing times (NaN, NaT, null) raise."""
    text = text_column(values)
    for column in (values, text):
        if is_arrow(column) and column.null_count:
            raise InputValidationError(
                f"{func}: the time column {name!r} has {column.null_count} missing values; "
                f"drop those rows or fill their time first."
            )
    if text is not None:
        return _text_keys(text, name, func), np.dtype("datetime64[ns]")
    return _keys(values, name, func), _unit(values)


def _keys(values: Any, name: str, func: str) -> np.ndarray:
    """:func:`time_column`'s keys of a column of numbers or datetimes."""
    if is_arrow(values):
        values = to_numpy(values)
    arr = np.asarray(values)
    kind = arr.dtype.kind
    if kind == "M":
        keys = arr.view(np.int64)
        missing = int(np.isnat(arr).sum())
    elif kind in "iub":
        return arr.astype(np.int64, copy=False)
    elif kind == "f":
        keys = arr.astype(np.float64, copy=False)
        missing = int(np.isnan(keys).sum())
    else:
        shown = format_values(np.unique(arr[:5].astype(str)))
        raise InputValidationError(
            f"{func}: the time column {name!r} must hold numbers, datetimes or ISO 8601 "
            f"text. Got values {shown} of type {arr.dtype}; parse them first (e.g. "
            f"pandas.to_datetime)."
        )
    if missing:
        raise InputValidationError(
            f"{func}: the time column {name!r} has {missing} missing values (NaN); drop "
            f"those rows or fill their time first."
        )
    return keys


def _text_keys(text: Any, name: str, func: str) -> np.ndarray:
    """ISO 8601 text as int64 nanoseconds since 1970 UTC (:func:`iso_instants`)."""
    import pyarrow as pa

    read = partial(iso_instants, unit="ns")
    try:
        keys: np.ndarray = read(text)
    except pa.ArrowInvalid:
        value = text[first_unreadable(text, read)].as_py()
        raise InputValidationError(
            f"{func}: the time column {name!r} holds {value!r}, which is not an ISO 8601 "
            f"time between 1677 and 2262 (e.g. '2024-01-31T08:00:00+08:00'); give "
            f"datetimes, ISO 8601 text or numbers."
        ) from None
    return keys


def _unit(values: Any) -> np.dtype[Any] | None:
    """:func:`time_column`'s datetime64 type of a column of numbers or datetimes."""
    if is_arrow(values):
        import pyarrow as pa

        if pa.types.is_timestamp(values.type):
            return np.dtype(f"datetime64[{values.type.unit}]")
        if pa.types.is_date(values.type):
            return np.dtype("datetime64[D]" if values.type.bit_width == 32 else "datetime64[ms]")
        return None
    kind = np.asarray(values).dtype
    return kind if kind.kind == "M" else None


def cutoff_key(value: Any, unit: np.dtype[Any] | None, name: str, func: str) -> float:
    """A cut-off time in the keys' terms: a number for numeric times; a datetime,
    ``numpy.datetime64``, ``pandas.Timestamp`` or ISO string for datetime columns."""
    if unit is None:
        if isinstance(value, (bool, np.bool_)) or not isinstance(
            value, (int, float, np.integer, np.floating)
        ):
            raise InvalidParameterError(
                f"The '{name}' parameter of {func} must be a number, as the time column "
                f"holds numbers. Got {value!r} instead."
            )
        if np.isnan(value):
            raise InvalidParameterError(
                f"The '{name}' parameter of {func} must be a number, not NaN. Got {value!r} "
                f"instead."
            )
        return float(value) if isinstance(value, (float, np.floating)) else int(value)
    try:
        if isinstance(value, str):  # an offset (Z, +08:00) makes an aware datetime
            with contextlib.suppress(ValueError):  # else NumPy's reading (nanoseconds)
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
            f"the time column holds datetimes. Got {value!r} instead."
        ) from None
    return int(stamp.astype(unit).view(np.int64))


def check_fraction(value: Any, name: str, func: str) -> float:
    """A fraction strictly between 0 and 1."""
    ok = isinstance(value, (float, int, np.floating, np.integer)) and not isinstance(
        value, (bool, np.bool_)
    )
    if not ok or not 0 < value < 1:
        raise InvalidParameterError(
            f"The '{name}' parameter of {func} must be a real number in (0, 1). Got "
            f"{value!r} instead."
        )
    return float(value)


def quantile_of(keys: np.ndarray, q: float) -> float:
    """The q-quantile of the times, interpolated linearly between the two order
    statistics around position ``q * (n - 1)`` (NumPy's and pandas' default)."""
    n = len(keys)
    position = q * (n - 1)
    k = int(np.floor(position))
    low, high = np.partition(keys, [k, min(k + 1, n - 1)])[[k, min(k + 1, n - 1)]]
    return lerp(low, high, position - k)


def lerp(low: Any, high: Any, gamma: float) -> float:
    """NumPy's linear interpolation between two order statistics (the same float)."""
    pair = np.array([low, high], dtype=np.float64)
    return float(np.quantile(pair, gamma))


def seed_generator(seed: Any, func: str) -> np.random.Generator:
    """``numpy.random.default_rng(seed)`` for an int seed (or a Generator as given)."""
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InvalidParameterError(
            f"The 'seed' parameter of {func} must be a non-negative integer or a "
            f"numpy.random.Generator. Got {seed!r} instead; pass e.g. seed=0."
        )
    return np.random.default_rng(int(seed))


def user_order(codes: np.ndarray, n_users: int, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows grouped by user code, each user's rows by ``(key, row)``: CSR offsets
    and the row at each position."""
    by_key = np.argsort(keys, kind="stable")
    offsets, positions = group_rows(codes[by_key], n_users)
    rows = by_key if len(positions) == 0 else by_key[positions]
    return offsets.astype(np.int64), rows


def last_of_each(offsets: np.ndarray, rows: np.ndarray, n_last: np.ndarray) -> np.ndarray:
    """The rows of the last ``n_last[u]`` positions of each user's segment, as a mask
    over the input rows."""
    counts = np.diff(offsets)
    starts = offsets[1:] - n_last
    position = np.arange(len(rows)) - np.repeat(starts, counts)
    mask = np.zeros(len(rows), dtype=bool)
    mask[rows[position >= 0]] = True
    return mask

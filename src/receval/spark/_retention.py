"""Retention of Spark DataFrames: the cohort table of :func:`receval.retention`.

Three steps, none of which collects events:

1. the unit of epoch numbers is inferred from the column's minimum and maximum
   (a Spark aggregate), by the in-memory rule;
2. one pass parses every partition's times and returns their earliest and
   latest instant, which fix the observation window;
3. events (and signup rows) are partitioned by user, and each partition counts
   its users into the cohort tables of that window with the in-memory kernels;
   the driver adds the tables, which are integer counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import reduce
from typing import Any

import numpy as np

from ..exceptions import InputValidationError, InvalidParameterError
from ._common import check_columns, check_frame, check_partitions, partition_states

_USER = "__receval_user"
_TIME = "__receval_time"
_SIGNUP = "__receval_signup"
_SIDE = "__receval_side"
_FUNC = "retention"


def _where(i: int) -> str:
    return f"receval.spark.{_FUNC}: row {i} of a partition of the events"


def _numeric_unit(df: Any, col: str, name: str, time_unit: str | None, allow: bool) -> Any:
    """The unit of an epoch-number column, inferred as in memory from its extremes."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import NumericType

    from ..metrics._times import times_from_numbers

    if time_unit is not None or not isinstance(df.schema[col].dataType, NumericType):
        return time_unit
    c = F.col(col)
    if allow:  # NaN is a missing signup time
        c = F.when(~F.isnan(c.cast("double")), c)
    lo, hi = df.agg(F.min(c), F.max(c)).first()
    if lo is None:  # no value at all
        return None
    return times_from_numbers(np.array([lo, hi]), None, name, None, allow).unit


def retention(
    events: Any,
    *,
    user: str = "user",
    time: str = "time",
    signup: str | Any | None = None,
    period: str = "day",
    days: int | Sequence[int] = (1, 3, 7, 30),
    tz: str | Any = "UTC",
    time_unit: str | None = None,
    before_signup: str = "keep",
    num_partitions: int | None = None,
) -> Any:
    """New, login and returning users per period and day-N retention of a Spark DataFrame.

    The same report as :func:`receval.retention` on the collected rows; the
    events stay on the executors and only per-partition counts reach the
    driver.

    Parameters
    ----------
    events : pyspark.sql.DataFrame
        One row per activity event.
    user, time : str, default="user", "time"
        Columns of user ids and event times. Spark timestamps are instants;
        dates are local calendar dates; strings and epoch numbers are read as
        in :func:`receval.retention`.
    signup : str or pyspark.sql.DataFrame, default=None
        A column of ``events`` with each user's signup time, or a DataFrame
        with the ``user`` column and a ``signup`` column (users in it without
        any event count as new users that never came back).
    period, days, tz, time_unit, before_signup
        As in :func:`receval.retention`.
    num_partitions : int, default=None
        Partitions of the users (default: ``spark.sql.shuffle.partitions``).

    Returns
    -------
    report : RetentionReport

    Raises
    ------
    InputValidationError
        As :func:`receval.retention`; also string times written as bare dates
        in some partitions and as date-times in others (write them one way).
    """
    from pyspark.sql import functions as F

    from ..metrics._cohorts import check_options, count_cohorts, event_times, retention_report
    from ..metrics._times import Times, period_window

    offsets, zone, tz_name = check_options(period, days, tz, time_unit, before_signup)
    check_frame(events, "events", _FUNC)
    check_partitions(num_partitions, _FUNC)
    signup_frame = None
    if isinstance(signup, str):
        check_columns(events, _FUNC, "events", user=user, time=time, signup=signup)
    else:
        check_columns(events, _FUNC, "events", user=user, time=time)
        if signup is not None:
            if not hasattr(signup, "mapInArrow"):
                raise InvalidParameterError(
                    f"The 'signup' parameter of receval.spark.{_FUNC} must be None, a column "
                    f"of events or a Spark DataFrame with columns {user!r} and 'signup'. Got "
                    f"{type(signup).__name__} instead; e.g. spark.createDataFrame(...) it."
                )
            check_columns(signup, _FUNC, "signup", user=user, signup="signup")
            signup_frame = signup

    # 1. units of epoch numbers, from the whole columns
    unit = _numeric_unit(events, time, "time", time_unit, allow=False)
    inferred = time_unit is None and unit is not None
    signup_unit = time_unit
    if isinstance(signup, str):
        signup_unit = _numeric_unit(events, signup, "signup", time_unit, allow=True)
    elif signup_frame is not None:
        signup_unit = _numeric_unit(signup_frame, "signup", "signup", time_unit, allow=True)

    # 2. the window: earliest and latest event
    def extremes(table: Any) -> tuple[str, int, int]:
        t = event_times(table, time, unit, _where)
        if t.kind == "date":
            return t.kind, int(t.values.min()), int(t.values.max())
        return t.kind, int(t.values.min()) // t.divisor, int(t.values.max()) // t.divisor

    found = partition_states(events.select(time), extremes)
    if not found:
        raise InputValidationError(f"{_FUNC}: events is empty; pass at least one event.")
    kinds = {kind for kind, _, _ in found}
    if len(kinds) > 1:
        raise InputValidationError(
            f"receval.spark.{_FUNC}: the times are bare dates ('2024-01-31') in some "
            f"partitions and date-times in others; write them all one way, e.g. "
            f"F.to_timestamp(F.col({time!r}))."
        )
    kind = kinds.pop()
    lo = min(x[1] for x in found)
    hi = max(x[2] for x in found)
    window = period_window(Times(np.array([lo, hi], np.int64), 1, kind, None), zone, period, "time")

    # 3. counts of whole users
    cols = [F.col(user).alias(_USER), F.col(time).alias(_TIME)]
    if isinstance(signup, str):
        cols.append(F.col(signup).alias(_SIGNUP))
    data = events.select(*cols, F.lit(0).cast("byte").alias(_SIDE))
    if signup_frame is not None:
        rows = signup_frame.select(
            F.col(user).alias(_USER),
            F.col("signup").alias(_SIGNUP),
            F.lit(1).cast("byte").alias(_SIDE),
        )
        data = data.unionByName(rows, allowMissingColumns=True)
    if num_partitions is None:
        data = data.repartition(_USER)
    else:
        data = data.repartition(num_partitions, _USER)
    signup_kind = None if signup is None else ("column" if isinstance(signup, str) else "frame")

    def counts(table: Any) -> Any:
        import pyarrow as pa
        import pyarrow.compute as pc

        side = table.column(_SIDE)
        ev = table.filter(pc.equal(side, 0))
        times = event_times(ev, _TIME, unit, _where)
        sign: Any = None
        if signup_kind == "column":
            sign = _SIGNUP
        elif signup_kind == "frame":
            rows = table.filter(pc.equal(side, 1))
            sign = pa.table({_USER: rows.column(_USER), "signup": rows.column(_SIGNUP)})
        return count_cohorts(
            ev, _USER, times, sign, window, zone, time_unit, before_signup, _where,
            signup_unit=signup_unit,
        )  # fmt: skip

    parts = partition_states(data, counts)
    total = reduce(lambda a, b: a.merge(b), parts)
    return retention_report(total, window, period, tz_name, offsets, before_signup, unit, inferred)

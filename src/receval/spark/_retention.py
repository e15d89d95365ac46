"""Retention of Spark DataFrames: the retention definition per partition of users.

Events (and signup rows) are partitioned by user; each partition runs the
definition of :func:`receval.retention` on its whole users (prepare, update)
and only its state, integer counts over absolute periods, reaches the driver,
which merges the states and finalizes the report: no event is collected. The
ids of a signup DataFrame of another type than the events' are checked once, on
the driver, against the distinct ids of the events (:func:`_check_signup_ids`).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import reduce
from typing import Any

from ..exceptions import InvalidParameterError
from ._common import (
    KEY,
    check_columns,
    check_frame,
    check_partitions,
    column,
    id_columns,
    partition_states,
    repartition,
    spark_words,
)

# the user ids of the events and of a signup DataFrame (id_columns' sides 0 and 1)
_USER = "__receval_user0"
_SIGNUP_USER = "__receval_user1"
_TIME = "__receval_time"
_SIGNUP = "__receval_signup"
_SIDE = "__receval_side"
_FUNC = "retention"


def _where(i: int) -> str:
    return f"receval.spark.{_FUNC}: row {i} of a partition of the events"


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
        any event count as new users that never came back). Its user ids match
        the events' as in :func:`receval.retention`, whatever the two columns'
        types; ids of another type that (almost) never match them are refused,
        checked once on the driver over the distinct ids of both.
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

    from ..metrics.retention.definition import RETENTION, check_params, finalize

    with spark_words(f"receval.spark.{_FUNC}", _FUNC):  # its errors name receval.spark's
        params = check_params(
            user=user, time=time, period=period, days=days, tz=tz, time_unit=time_unit,
            before_signup=before_signup,
        )  # fmt: skip
    check_frame(events, "events", _FUNC)
    check_partitions(num_partitions, _FUNC)
    signup_kind = None if signup is None else ("column" if isinstance(signup, str) else "frame")
    in_events = {"signup": signup} if signup_kind == "column" else {}
    check_columns(events, _FUNC, "events", user=user, time=time, **in_events)
    if signup_kind == "frame":
        if not hasattr(signup, "mapInArrow"):
            raise InvalidParameterError(
                f"The 'signup' parameter of receval.spark.{_FUNC} must be None, a column "
                f"of events or a Spark DataFrame with columns {user!r} and 'signup'. Got "
                f"{type(signup).__name__} instead; e.g. spark.createDataFrame(...) it."
            )
        check_columns(signup, _FUNC, "signup", user=user, signup="signup")

    cols = [*id_columns(events, 0, user), F.col(time).alias(_TIME)]
    if signup_kind == "column":
        cols.append(F.col(signup).alias(_SIGNUP))
    data = events.select(*cols, F.lit(0).cast("byte").alias(_SIDE))
    if signup_kind == "frame":
        _check_signup_ids(events, signup, user)
        frame: Any = signup
        rows = frame.select(
            *id_columns(frame, 1, user),
            F.col("signup").alias(_SIGNUP),
            F.lit(1).cast("byte").alias(_SIDE),
        )
        data = data.unionByName(rows, allowMissingColumns=True)
    data = repartition(data, num_partitions, KEY)
    inner = {**params, "user": _USER, "time": _TIME}

    def state(table: Any) -> Any:
        import pyarrow as pa
        import pyarrow.compute as pc

        side = table.column(_SIDE)
        ev = table.filter(pc.equal(side, 0))
        sign: Any = None
        if signup_kind == "column":
            sign = _SIGNUP
        elif signup_kind == "frame":
            rows = table.filter(pc.equal(side, 1))
            sign = pa.table({_USER: rows.column(_SIGNUP_USER), "signup": rows.column(_SIGNUP)})
        # the signup ids of every partition were checked together (_check_signup_ids)
        with spark_words(f"receval.spark.{_FUNC}", _FUNC):
            batch = RETENTION.prepare(inner, ev, sign, where=_where, check_ids=False)
        # the partitions hold disjoint users: their ids need not travel
        return RETENTION.update(inner, batch).without_users()

    parts = partition_states(data, state)
    total = reduce(lambda a, b: a.merge(b, f"receval.spark.{_FUNC}"), parts, RETENTION.empty(inner))
    return finalize(params, total)


def _check_signup_ids(events: Any, signup: Any, user: str) -> None:
    """:func:`~receval.metrics.retention.counting.check_signup_ids` of the distinct user
    ids of ``signup`` and of ``events``, gathered on the driver (ascending, as their
    examples show them), as :func:`receval.retention` checks the collected rows: ids
    of another type than the events' that (almost) never match them are refused.

    Two columns of integers, or two of strings, hold ids of one type: nothing to
    check there and nothing gathered; the events' ids are gathered for columns of
    two types only (strings beside numbers, floats)."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import CharType, IntegralType, StringType, VarcharType

    from ..data._encode import factorize
    from ..metrics.retention.counting import check_signup_ids

    def kind(frame: Any) -> str:
        data_type = frame.schema[user].dataType
        if isinstance(data_type, IntegralType):
            return "integers"
        return "strings" if isinstance(data_type, (StringType, VarcharType, CharType)) else ""

    if kind(events) and kind(events) == kind(signup):
        return

    def distinct(frame: Any, name: str) -> Any:
        ids = frame.select(F.col(user)).where(F.col(user).isNotNull()).distinct()
        return factorize(column(ids.orderBy(user).toArrow(), user), name, _FUNC)[1]

    check_signup_ids(distinct(signup, "signup users"), distinct(events, "user"))

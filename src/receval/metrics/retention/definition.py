"""Retention as one metric definition, run by every source.

:func:`receval.retention` runs it on one partition (the whole log), the scan
source on batches of whole users of a file, :func:`receval.spark.retention` on
each partition of users, merged on the driver, and ``receval.metric("retention")``
in the user's own loop: ``update(events, signup=None)`` per batch of whole
users. Every source gives the same :class:`RetentionReport`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...engine.metric import MetricDefinition, register
from ...exceptions import InvalidParameterError
from .counting import Events, check_options, count_users, prepare_events
from .report import RetentionReport, retention_report
from .state import PERIODS, UNITS, RetentionState, finalize_counts
from .times import FUNC

__all__ = ["RETENTION", "check_params"]


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
    offsets, zone, tz_name = check_options(period, days, tz, time_unit, before_signup)
    for name, value in (("user", user), ("time", time)):
        if not isinstance(value, str):
            raise InvalidParameterError(
                f"The '{name}' parameter of {FUNC} must be a column name (str). Got {value!r} "
                f"instead."
            )
    return {
        "user": user, "time": time, "period": period, "days": offsets, "zone": zone,
        "tz_name": tz_name, "time_unit": time_unit, "before_signup": before_signup,
    }  # fmt: skip


def _prepare(params: dict[str, Any], events: Any, signup: Any = None, **kwargs: Any) -> Events:
    return prepare_events(params, events, signup, **kwargs)


def _empty(params: dict[str, Any]) -> RetentionState:
    return RetentionState(period=PERIODS.index(params["period"]))


def finalize(params: dict[str, Any], state: RetentionState) -> RetentionReport:
    """The report of the merged counts of every user."""
    first, counts = finalize_counts(state, params["zone"], params["period"])
    return retention_report(counts, first, params, UNITS[state.unit], state.inferred)


RETENTION = register(
    MetricDefinition(
        name="retention",
        check_params=check_params,
        prepare=_prepare,
        update=count_users,
        empty=_empty,
        finalize=finalize,
    )
)

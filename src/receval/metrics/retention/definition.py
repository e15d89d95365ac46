"""Retention as one metric definition, run by every source.

:func:`receval.retention` runs it on one partition (the whole log), the scan
source on batches of whole users of a file, :func:`receval.spark.retention` on
each partition of users, merged on the driver, and ``receval.metric("retention")``
in the user's own loop: ``update(events, signup=None)`` per batch of whole
users. Every source gives the same :class:`RetentionReport`.
"""

from __future__ import annotations

from typing import Any

from ...engine.metric import MetricDefinition, register
from .counting import check_params, count_users, prepare_events, zone_of
from .report import RetentionReport, retention_report
from .state import PERIODS, UNITS, RetentionState, finalize_counts

__all__ = ["RETENTION", "check_params"]


def _empty(params: dict[str, Any]) -> RetentionState:
    return RetentionState(period=PERIODS.index(params["period"]))


def finalize(params: dict[str, Any], state: RetentionState) -> RetentionReport:
    """The report of the merged counts of every user."""
    first, counts = finalize_counts(state, zone_of(params), params["period"])
    return retention_report(counts, first, params, UNITS[state.unit], state.inferred)


RETENTION = register(
    MetricDefinition(
        name="retention",
        check_params=check_params,
        prepare=prepare_events,
        update=count_users,
        empty=_empty,
        finalize=finalize,
    )
)

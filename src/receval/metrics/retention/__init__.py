"""Retention of activity logs: new, login and returning users, and cohort day-N retention.

One metric definition (``definition``) runs on every source: the events in
memory (:func:`retention`), a :func:`receval.scan` cut into batches of whole
users (``scan``), Spark partitions of users (:func:`receval.spark.retention`)
and the user's own loop (``receval.metric("retention")``).

==============  ==============================================================
module          holds
==============  ==============================================================
``times``       parsing of time columns; the calendar of periods in a time zone
``counting``    the options, reading a batch of events, counting its users
``state``       the mergeable counts, over absolute periods, and their window
``report``      :class:`RetentionReport` and its rates
``definition``  the metric definition: check, prepare, update, merge, finalize
``function``    :func:`retention`
``scan``        batches of whole users of a scanned file
==============  ==============================================================
"""

from __future__ import annotations

from .function import retention
from .report import RetentionReport

__all__ = ["RetentionReport", "retention"]

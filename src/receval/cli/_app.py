"""The ``receval`` command: ``rank``, ``ctr``, ``compare``, ``retention``, ``report``, ``demo``.

Thin by design: each command (one module each) parses its options, calls the
library (:func:`receval.evaluate`, the pointwise metrics of
:mod:`receval.registry`, :func:`receval.retention`) and formats the result with
:mod:`receval.cli._output`; ``report`` and ``demo`` also draw :mod:`receval.plot`
figures into a :class:`receval.report.HTMLReport`. Results go to stdout; notes,
warnings, progress and errors go to stderr. Errors raised by receval (bad data,
bad options, unreadable files) print ``error: <message>`` on one line and exit
with status 2, like usage errors.
"""

from __future__ import annotations

from ..report import REPORT_AT_K_METRICS, REPORT_COHORTS
from . import _compare, _ctr, _rank, _report, _retention  # noqa: F401  (register commands)
from ._common import DEFAULT_CTR_METRICS, DEFAULT_RANK_METRICS, app, main

__all__ = [
    "DEFAULT_CTR_METRICS",
    "DEFAULT_RANK_METRICS",
    "REPORT_AT_K_METRICS",
    "REPORT_COHORTS",
    "app",
    "main",
]

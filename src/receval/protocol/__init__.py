"""Checks of an evaluation protocol: :func:`audit` and its :class:`AuditReport`.

:mod:`~receval.protocol.checks` holds :func:`audit`, which runs the checks;
one module per kind of check: :mod:`~receval.protocol.temporal` (test
interactions before training ones), :mod:`~receval.protocol.overlap` (ids, test
pairs in train, cold users and items, duplicates), :mod:`~receval.protocol.runs`
(the run's lists: training items, short lists, ties); :mod:`~receval.protocol.inputs`
reads the inputs as rows, :mod:`~receval.protocol.report` holds the result.
"""

from __future__ import annotations

from .checks import DEFAULT_AUDIT_METRICS, audit
from .report import SEVERITIES, AuditReport, Finding

__all__ = ["DEFAULT_AUDIT_METRICS", "SEVERITIES", "AuditReport", "Finding", "audit"]

"""Plots of receval's metrics: ROC, precision-recall, calibration, metric@k, retention.

Every function draws on a matplotlib Axes (a new figure when ``ax=None``)
and returns it. matplotlib is an optional dependency (``pip install
'receval[plot]'``) imported only when a function draws, so ``import
receval.plot`` loads neither matplotlib nor NumPy (NumPy too is imported by
the first plot).

Functions
---------
roc : ROC curve of one or several models, with their AUC.
precision_recall : Precision-recall curves, average precision and break-even point.
calibration : Reliability curves and PCOC.
RocCurveDisplay, PrecisionRecallDisplay, CalibrationDisplay : The same figures as
    display objects: the numbers kept on the object, ``plot(ax=)``, ``ax_``,
    ``figure_`` (the three functions above are their shortcuts).
MetricAtKDisplay, LongTailDisplay, RetentionHeatmapDisplay, RetentionCurveDisplay :
    metric_at_k, long_tail, retention_heatmap and retention_curve as display objects.
metric_at_k : Mean ranking metric against the cut-off k.
long_tail : Cumulative share of interactions and of each run's recommendations by item popularity.
retention_heatmap : Cohort x offset retention table of a RetentionReport.
retention_curve : Mean day-N retention over cohorts.
"""

from __future__ import annotations

from ._curves import calibration, precision_recall, roc
from ._displays import CalibrationDisplay, PrecisionRecallDisplay, RocCurveDisplay
from ._popularity import LongTailDisplay, long_tail
from ._ranking import MetricAtKDisplay, metric_at_k
from ._retention import (
    RetentionCurveDisplay,
    RetentionHeatmapDisplay,
    retention_curve,
    retention_heatmap,
)

__all__ = [
    "CalibrationDisplay",
    "LongTailDisplay",
    "MetricAtKDisplay",
    "PrecisionRecallDisplay",
    "RetentionCurveDisplay",
    "RetentionHeatmapDisplay",
    "RocCurveDisplay",
    "calibration",
    "long_tail",
    "metric_at_k",
    "precision_recall",
    "retention_curve",
    "retention_heatmap",
    "roc",
]

"""Plots of receval's metrics: ROC, precision-recall, calibration, metric@k, retention.

Every function draws on a matplotlib Axes (a new figure when ``ax=None``)
and returns it. matplotlib is an optional dependency (``pip install
'receval[plot]'``) imported only when a function is called, so ``import
receval.plot`` does not load matplotlib.

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

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS: dict[str, str] = {
    "CalibrationDisplay": "receval.plot._displays",
    "LongTailDisplay": "receval.plot._popularity",
    "MetricAtKDisplay": "receval.plot._ranking",
    "PrecisionRecallDisplay": "receval.plot._displays",
    "RetentionCurveDisplay": "receval.plot._retention",
    "RetentionHeatmapDisplay": "receval.plot._retention",
    "RocCurveDisplay": "receval.plot._displays",
    "roc": "receval.plot._curves",
    "precision_recall": "receval.plot._curves",
    "calibration": "receval.plot._curves",
    "metric_at_k": "receval.plot._ranking",
    "long_tail": "receval.plot._popularity",
    "retention_heatmap": "receval.plot._retention",
    "retention_curve": "receval.plot._retention",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'receval.plot' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:  # pragma: no cover - static analysers see the real names
    from ._curves import calibration as calibration
    from ._curves import precision_recall as precision_recall
    from ._curves import roc as roc
    from ._displays import CalibrationDisplay as CalibrationDisplay
    from ._displays import PrecisionRecallDisplay as PrecisionRecallDisplay
    from ._displays import RocCurveDisplay as RocCurveDisplay
    from ._popularity import LongTailDisplay as LongTailDisplay
    from ._popularity import long_tail as long_tail
    from ._ranking import MetricAtKDisplay as MetricAtKDisplay
    from ._ranking import metric_at_k as metric_at_k
    from ._retention import RetentionCurveDisplay as RetentionCurveDisplay
    from ._retention import RetentionHeatmapDisplay as RetentionHeatmapDisplay
    from ._retention import retention_curve as retention_curve
    from ._retention import retention_heatmap as retention_heatmap

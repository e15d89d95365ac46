"""Metrics by segment (country, device, user group): one value per segment and the overall one.

:mod:`receval.segments.compute` computes them (:func:`by_segment`,
:func:`compare_by_segment`); :mod:`receval.segments.report` holds the report
and what segmenting needs below the metrics (the labels' codes, a report's users).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover - static analysers see the real names
    from .compute import SegmentComparison, SegmentReport, by_segment, compare_by_segment


def __getattr__(name: str) -> Any:
    # loaded on first use: the submodules import the metrics, which import this package
    if name in __all__:
        from . import compute

        return getattr(compute, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["SegmentComparison", "SegmentReport", "by_segment", "compare_by_segment"]

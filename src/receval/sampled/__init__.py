"""Sampled evaluation: sampled negatives, corrected metrics, a side-by-side report.

:mod:`receval.sampled.negatives` draws the candidate sets
(:func:`receval.sample_negatives`) and restricts a run to them,
:mod:`receval.sampled.corrections` corrects a sampled metric toward its
full-ranking value (:func:`receval.corrected_metric`) and
:mod:`receval.sampled.report` puts sampled, corrected and full values side by
side (:func:`sampled_report`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover - static analysers see the real names
    from .report import SampledReport, sampled_report


def __getattr__(name: str) -> Any:
    # loaded on first use: the submodules import the metrics, which import this package
    if name in __all__:
        from . import report

        return getattr(report, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["SampledReport", "sampled_report"]

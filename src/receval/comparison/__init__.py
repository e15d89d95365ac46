"""Comparing models: paired significance tests, confidence intervals and effect sizes.

:mod:`receval.comparison.models` compares models' reports or predictions
(:func:`receval.compare`, :func:`receval.compare_predictions`);
:mod:`receval.comparison.paired` checks and weights the paired differences every
statistic reads; :mod:`receval.comparison.significance` holds the paired tests and
p-value corrections and :mod:`receval.comparison.intervals` the bootstrap
intervals and effect sizes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover - static analysers see the real names
    from .models import (
        TESTS,
        ComparisonReport,
        adjust_pvalues,
        bootstrap_intervals,
        compare,
        compare_predictions,
        effect_sizes,
        paired_pvalues,
        smallest_pvalue,
    )

__all__ = [
    "TESTS",
    "ComparisonReport",
    "adjust_pvalues",
    "bootstrap_intervals",
    "compare",
    "compare_predictions",
    "effect_sizes",
    "paired_pvalues",
    "smallest_pvalue",
]


def __getattr__(name: str) -> Any:
    # loaded on first use: the statistics import NumPy and SciPy
    if name in __all__:
        from . import models

        return getattr(models, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

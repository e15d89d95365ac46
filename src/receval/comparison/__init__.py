"""Comparing models: paired significance tests, confidence intervals and effect sizes.

:mod:`receval.comparison.models` compares models' reports or predictions
(:func:`receval.compare`, :func:`receval.compare_predictions`);
:mod:`receval.comparison.impressions` checks the rows of CTR models once (for
:func:`receval.gate` too); :mod:`receval.comparison.paired` checks and weights the
paired differences every statistic reads; :mod:`receval.comparison.significance`
holds the paired tests and p-value corrections,
:mod:`receval.comparison.intervals` the bootstrap intervals and effect sizes and
:mod:`receval.comparison.table` the rows of the comparison tables;
:mod:`receval.comparison.choices` the names of the tests, corrections and intervals.

The names of :mod:`receval.comparison.models` (its ``__all__``) load with it, on
first use: ``receval compare --help`` reads only :mod:`receval.comparison.choices`,
without NumPy.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover - loaded on first use, see __getattr__
    from .models import *  # noqa: F403 (the names of models.__all__)


def __getattr__(name: str) -> Any:
    models = importlib.import_module(f"{__name__}.models")
    if name == "__all__":
        return models.__all__
    if name == "models":
        return models
    if name in models.__all__:
        return getattr(models, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__getattr__("__all__")))

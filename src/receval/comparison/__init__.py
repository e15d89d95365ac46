"""Comparing models: paired significance tests, confidence intervals and effect sizes.

:mod:`receval.comparison.models` compares models' reports or predictions
(:func:`receval.compare`, :func:`receval.compare_predictions`);
:mod:`receval.comparison.paired` checks and weights the paired differences every
statistic reads; :mod:`receval.comparison.significance` holds the paired tests and
p-value corrections and :mod:`receval.comparison.intervals` the bootstrap
intervals and effect sizes.
"""

from __future__ import annotations

from . import models
from .models import *  # noqa: F403 (the names of models.__all__)

__all__ = models.__all__

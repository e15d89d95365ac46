"""Recalibration of predictions made by a model trained on negatively down-sampled rows.

A model trained on logs that kept each negative with probability ``w`` (and every
positive) predicts the odds of the sample, ``w`` times too few negatives:
``p / (1 - p) = (true odds) / w``. Its calibrated probability is
``p' = p / (p + (1 - p) / w)`` (TorchRec's ``recalibration_coefficient``, in
``ne_with_recalibration.py`` and ``calibration_with_recalibration.py``). The metrics
of probabilities (log loss, NE and its variants, PCOC/COPC, ECE, the calibration
curve) take ``negative_sampling_rate=w`` and apply it to every batch on every
backend, in their definitions' ``prepare``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import _validation as v

__all__ = ["check_sampling_rate", "recalibrate", "recalibrating"]


def check_sampling_rate(rate: Any, func: str) -> float:
    """The ``negative_sampling_rate`` parameter: a real number in (0, 1]."""
    checked = v.check_number(rate, "negative_sampling_rate", func, low=0.0, high=1.0,
                             low_inclusive=False)  # fmt: skip
    return float(checked)


def recalibrate(proba: np.ndarray, rate: float) -> np.ndarray:
    """``p / (p + (1 - p) / rate)`` in float64 (``proba`` itself when ``rate`` is 1).

    Probabilities of 0 and 1 stay 0 and 1; the map is increasing, so metrics of the
    order of the scores (AUC, GAUC) do not change.

    Examples
    --------
    >>> import numpy as np
    >>> from receval.metrics._recalibration import recalibrate
    >>> recalibrate(np.array([0.0, 0.5, 0.9, 1.0]), 0.1)
    array([0.        , 0.09090909, 0.47368421, 1.        ])
    """
    if rate == 1.0:
        return proba
    p = np.asarray(proba, dtype=np.float64)
    result: np.ndarray = p / (p + (1.0 - p) / rate)
    return result


def recalibrating(prepare: Callable[..., Any], at: int = 1) -> Callable[..., Any]:
    """A definition's ``prepare`` whose batch holds the recalibrated probabilities
    (position ``at`` of the batch) when ``params["negative_sampling_rate"]`` is not 1:
    one rule for memory, accumulators, scans and Spark."""

    def wrapped(params: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        batch = prepare(params, *args, **kwargs)
        rate = params.get("negative_sampling_rate", 1.0)
        if rate == 1.0 or batch is None:
            return batch
        return (*batch[:at], recalibrate(batch[at], rate), *batch[at + 1 :])

    return wrapped

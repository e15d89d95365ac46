"""TorchRec's variants of normalized entropy: calibration-free NE and NE on positives."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..engine.metric import MetricDefinition, always, register
from ..engine.sources import run_definition
from ..engine.sums import ratio, scaled_value
from ..engine.totals import (
    EMPTY_TOTALS,
    Totals,
    check_eps,
    totals_empty,
    totals_of,
    totals_prepare,
    totals_updates,
)
from ._binary import warn_undefined
from ._recalibration import check_sampling_rate, recalibrating

__all__ = ["calibration_free_normalized_entropy", "normalized_entropy_positive"]

_CALI_FREE = "calibration_free_normalized_entropy"
_POSITIVE = "normalized_entropy_positive"


def calibration_free_normalized_entropy(
    y_true: ArrayLike,
    y_prob: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    eps: float | str = "auto",
    negative_sampling_rate: float = 1.0,
    pos_label: Any = None,
) -> float:
    """Compute TorchRec's calibration-free NE: NE over the loss of the mean prediction.

    ``NE / C`` with ``C = -P log2(q) - (W - P) log2(1 - q)``: ``W`` the total
    weight, ``P`` the weighted clicks and ``q`` the weighted mean prediction, so
    ``C`` is the summed log loss, in bits, of always predicting the model's mean
    prediction. TorchRec's ``CaliFreeNEMetric`` (``cali_free_ne.py``), term for
    term: ``C`` is a sum over the rows, not a mean, so the value shrinks as the
    rows grow, and it compares models only on the same rows.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels (the positive class = click): 0/1, bools, {-1, 1}, or any
        two labels with ``pos_label``.
    y_prob : array-like of shape (n_samples,)
        Predicted click probabilities in [0, 1].
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights.
    eps : float or "auto", default="auto"
        Probabilities are clipped to ``[eps, 1 - eps]`` in the log loss, as in
        :func:`receval.normalized_entropy` (TorchRec uses 1e-12).
    negative_sampling_rate : float, default=1.0
        Recalibration for negative down-sampling, as in
        :func:`receval.normalized_entropy`.
    pos_label : int, str or bool, default=None
        The positive class (needed for labels other than {0, 1} and {-1, 1}),
        as in :func:`receval.normalized_entropy`.

    Returns
    -------
    value : float
        Non-negative. ``nan`` with an ``UndefinedMetricWarning`` when NE is
        undefined (one class, zero weight) or the mean prediction is 0 or 1 (the
        mean prediction's loss is infinite).

    See Also
    --------
    normalized_entropy : The numerator.

    Examples
    --------
    >>> from receval import calibration_free_normalized_entropy
    >>> calibration_free_normalized_entropy([1, 0, 0, 1], [0.8, 0.3, 0.1, 0.6])
    0.1071
    """
    params = CALIBRATION_FREE_NE.check_params(
        eps=eps, negative_sampling_rate=negative_sampling_rate, pos_label=pos_label
    )
    columns = {"y_true": y_true, "y_prob": y_prob, "sample_weight": sample_weight}
    result: float = run_definition(CALIBRATION_FREE_NE, params, columns, func=_CALI_FREE)
    return result


def normalized_entropy_positive(
    y_true: ArrayLike,
    y_prob: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    eps: float | str = "auto",
    negative_sampling_rate: float = 1.0,
    pos_label: Any = None,
) -> float:
    """Compute TorchRec's NE on positives: the clicks' log loss over the base rate's.

    ``-sum_{y=1} w ln p / (W H(b))``: the log loss of the positive rows alone,
    summed over them, over the summed log loss of always predicting the base rate
    ``b`` over every row (NE's denominator). TorchRec's ``NEPositiveMetric``
    (``ne_positive.py``). The negatives' share of NE is
    ``normalized_entropy - normalized_entropy_positive``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels (the positive class = click): 0/1, bools, {-1, 1}, or any
        two labels with ``pos_label``.
    y_prob : array-like of shape (n_samples,)
        Predicted click probabilities in [0, 1].
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights.
    eps : float or "auto", default="auto"
        Probabilities are clipped to ``[eps, 1 - eps]``, as in
        :func:`receval.normalized_entropy` (TorchRec uses 1e-12).
    negative_sampling_rate : float, default=1.0
        Recalibration for negative down-sampling, as in
        :func:`receval.normalized_entropy`.
    pos_label : int, str or bool, default=None
        The positive class (needed for labels other than {0, 1} and {-1, 1}),
        as in :func:`receval.normalized_entropy`.

    Returns
    -------
    value : float
        Non-negative, at most NE. ``nan`` with an ``UndefinedMetricWarning`` when
        every label is the same or every weight is 0.

    See Also
    --------
    normalized_entropy : Both classes' loss.

    Examples
    --------
    >>> from receval import normalized_entropy_positive
    >>> normalized_entropy_positive([1, 0, 0, 1], [0.8, 0.3, 0.1, 0.6])
    0.2647
    """
    params = NE_POSITIVE.check_params(
        eps=eps, negative_sampling_rate=negative_sampling_rate, pos_label=pos_label
    )
    columns = {"y_true": y_true, "y_prob": y_prob, "sample_weight": sample_weight}
    result: float = run_definition(NE_POSITIVE, params, columns, func=_POSITIVE)
    return result


# ------------------------------------------------------------------ definitions
def _check(func: str) -> Any:
    def check(
        eps: float | str = "auto", negative_sampling_rate: float = 1.0, pos_label: Any = None
    ) -> dict[str, Any]:
        rate = check_sampling_rate(negative_sampling_rate, func)
        return {"eps": check_eps(eps, func), "negative_sampling_rate": rate,
                "pos_label": pos_label}  # fmt: skip

    return check


def _ne(func: str, state: Totals) -> float:
    """NE's value of the state's loss sum (nan, with the warning, where undefined)."""
    if state.weight.value == 0:
        return warn_undefined(
            f"{func}: every sample weight is zero, so it is undefined (returned as nan)."
        )
    ne = state.normalized_entropy()
    if ne is None:
        return warn_undefined(
            f"{func}: y_true has a single class, so the base rate's entropy is 0 and it is "
            f"undefined (returned as nan)."
        )
    return ne


def _finalize_cali_free(params: dict[str, Any], state: Totals) -> float:
    ne = _ne(_CALI_FREE, state)
    if np.isnan(ne):
        return ne
    mean = ratio(state.predicted, state.weight)
    if mean <= 0 or mean >= 1:
        return warn_undefined(
            f"{_CALI_FREE}: the mean prediction is {mean!r}, whose log loss is infinite, so "
            f"it is undefined (returned as nan)."
        )
    # C = W h, h the mean prediction's loss per unit of weight: W is taken as
    # m * 2**(k + w_shift), so that a total weight beyond float64's range neither
    # overflows nor underflows
    positives, negatives = (float(share) for share in state.class_shares())
    per_weight = -positives * np.log2(mean) - negatives * np.log2(1.0 - mean)
    m, k = scaled_value(state.weight)
    scaled = state.scaled_normalized_entropy()  # NE beyond float64's range: not inf
    assert scaled is not None  # NE is defined
    x, e = scaled
    with np.errstate(over="ignore"):  # a value beyond float64's range is inf
        return float(np.ldexp(x / (per_weight * m), e - k - state.w_shift))


def _update_positive(params: dict[str, Any], batch: Any) -> Totals:
    """The clicks' sums over every row; the log-loss sum over the positive rows only."""
    if batch is None:
        return EMPTY_TOTALS
    labels, proba, weights, eps, kind = batch
    every = totals_of(labels, proba, weights, eps, loss=False, clicks=True)
    clicked = labels == 1
    w = None if weights is None else weights[clicked]
    # the positives' loss in the units of every row's weights
    positive = totals_of(labels[clicked], proba[clicked], w, eps, loss=True, clicks=False,
                         shift=every.w_shift)  # fmt: skip
    return replace(every, loss=positive.loss, big_loss=positive.big_loss, labels=kind)


CALIBRATION_FREE_NE = register(
    MetricDefinition(
        name=_CALI_FREE,
        check_params=_check(_CALI_FREE),
        prepare=recalibrating(totals_prepare(_CALI_FREE, "y_prob")),
        **totals_updates(_CALI_FREE, loss=True, clicks=True),
        empty=totals_empty,
        finalize=_finalize_cali_free,
        scale_free=lambda params: False,
    ),
)
NE_POSITIVE = register(
    MetricDefinition(
        name=_POSITIVE,
        check_params=_check(_POSITIVE),
        prepare=recalibrating(totals_prepare(_POSITIVE, "y_prob")),
        update=_update_positive,
        empty=totals_empty,
        finalize=lambda params, state: _ne(_POSITIVE, state),
        scale_free=always,
    ),
)

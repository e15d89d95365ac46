"""The partial ROC AUC up to a false positive rate, McClish-standardised."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .. import _validation as v
from ..engine.metric import MetricDefinition, register
from ..engine.sources import run_definition
from ..engine.states import AUCCounts, ScoreCounts
from ..exceptions import InvalidParameterError
from ._auc import auc_empty, auc_update, auc_update_into, counts_prepare, counts_update_plain
from ._undefined import warn_counts_undefined

__all__ = ["partial_auc"]

_FUNC = "partial_auc"


def partial_auc(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    max_fpr: float,
    sample_weight: ArrayLike | None = None,
    pos_label: Any = None,
) -> float:
    """Compute the standardised partial ROC AUC up to a false positive rate.

    The area under the ROC curve for false positive rates in ``[0, max_fpr]``
    (the curve linearly interpolated at ``max_fpr``), standardised with
    McClish's correction so that a random ranking scores 0.5 and a perfect one
    1: ``0.5 (1 + (A - max_fpr² / 2) / (max_fpr - max_fpr² / 2))``. This is
    ``sklearn.metrics.roc_auc_score(y_true, y_score, max_fpr=max_fpr)``.

    The rows are reduced to their (weighted) counts of positives and negatives
    per distinct score, the state of :func:`receval.metric` ("partial_auc"), of
    a :func:`receval.scan` and of Spark, which merges exactly: memory grows with
    the number of distinct scores, not of rows (round float32 scores, or use
    ``receval.metric("roc_auc", bins=...)`` for the full AUC in constant memory).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels: 0/1, bools, {-1, 1}, or any two labels with ``pos_label``.
    y_score : array-like of shape (n_samples,)
        Scores; only their order matters.
    max_fpr : float
        The largest false positive rate, in (0, 1]; 1 gives the full ROC AUC.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights.
    pos_label : int, str or bool, default=None
        The positive class.

    Returns
    -------
    auc : float
        In [0, 1] (0.5 for a random ranking). ``nan`` with an
        ``UndefinedMetricWarning`` when ``y_true`` has a single class (where
        scikit-learn raises), or every row of one class has a sample weight of 0.

    Raises
    ------
    InvalidParameterError
        ``max_fpr`` outside (0, 1].
    InputValidationError
        NaN or infinite scores, labels that are not binary, lengths that differ,
        empty input.

    See Also
    --------
    roc_auc_score : The full area.
    roc_curve : The curve.

    Notes
    -----
    Tied scores form one segment of the curve (a diagonal step), as in
    scikit-learn. References: McClish, D. K. (1989), "Analyzing a portion of
    the ROC curve", Medical Decision Making 9(3).

    Examples
    --------
    >>> from receval import partial_auc
    >>> y_true = [0, 0, 1, 1]
    >>> y_score = [0.1, 0.4, 0.35, 0.8]
    >>> partial_auc(y_true, y_score, max_fpr=0.5)
    0.6667
    >>> partial_auc(y_true, y_score, max_fpr=1.0)  # the full AUC
    0.75
    """
    params = PARTIAL_AUC.check_params(max_fpr=max_fpr, pos_label=pos_label)
    columns = {"y_true": y_true, "y_score": y_score, "sample_weight": sample_weight}
    result: float = run_definition(PARTIAL_AUC, params, columns, func=_FUNC)
    return result


def _trapezoid(y: np.ndarray, x: np.ndarray) -> float:
    """The trapezoidal area under ``y(x)``: NumPy's own arithmetic (``np.trapezoid``
    from NumPy 2, ``np.trapz`` before), on every supported NumPy."""
    return float((np.diff(x) * (y[1:] + y[:-1]) / 2.0).sum())


def partial_auc_of(counts: ScoreCounts, max_fpr: float) -> float:
    """The standardised partial AUC of counts per distinct score (nan for one class).

    The curve and its interpolation are scikit-learn's (``roc_curve`` then the
    trapezoids up to ``max_fpr``)."""
    # cumulative counts at the scores in decreasing order
    _, pos, neg, _ = counts.table()  # rates: each label's unit of its own is no matter
    tps = np.concatenate(([0.0], np.cumsum(pos[::-1], dtype=np.float64)))
    fps = np.concatenate(([0.0], np.cumsum(neg[::-1], dtype=np.float64)))
    if tps[-1] <= 0 or fps[-1] <= 0:
        return float("nan")
    tpr, fpr = tps / tps[-1], fps / fps[-1]
    if max_fpr == 1.0:
        return _trapezoid(tpr, fpr)
    stop = int(np.searchsorted(fpr, max_fpr, "right"))
    x_interp = [fpr[stop - 1], fpr[stop]]
    y_interp = [tpr[stop - 1], tpr[stop]]
    tpr = np.append(tpr[:stop], np.interp(max_fpr, x_interp, y_interp))
    fpr = np.append(fpr[:stop], max_fpr)
    area = _trapezoid(tpr, fpr)
    min_area = 0.5 * max_fpr**2
    return 0.5 * (1 + (area - min_area) / (max_fpr - min_area))


# ------------------------------------------------------------------ definition
# The exact ROC AUC's state (counts per distinct score) holds the whole curve:
# partial_auc reuses it; only its score ranges (out of core, which keep pair
# counts but not the curve) are not offered.
def _check(max_fpr: float | None = None, pos_label: Any = None) -> dict[str, Any]:
    if max_fpr is None:
        raise InvalidParameterError(
            f"{_FUNC} needs max_fpr, the largest false positive rate in (0, 1]; pass e.g. "
            f"max_fpr=0.1."
        )
    value = v.check_number(max_fpr, "max_fpr", _FUNC, low=0.0, high=1.0, low_inclusive=False)
    return {"max_fpr": float(value), "pos_label": pos_label, "bins": None}


def _finalize(params: dict[str, Any], state: AUCCounts) -> float:
    counts = state.counts(_FUNC)
    value = partial_auc_of(counts, params["max_fpr"])
    return warn_counts_undefined(counts, _FUNC, "the AUC") if np.isnan(value) else float(value)


PARTIAL_AUC = register(
    MetricDefinition(
        name="partial_auc",
        check_params=_check,
        prepare=counts_prepare(_FUNC),
        update=auc_update,
        empty=auc_empty,
        finalize=_finalize,
        update_into=auc_update_into,
        update_plain=counts_update_plain(_FUNC),
    ),
)

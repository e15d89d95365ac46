"""Threshold curves of a binary scorer: ROC and precision-recall."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..engine.metric import MetricDefinition
from ..engine.sources import run_definition, scan_of
from ..exceptions import InputValidationError, InvalidParameterError, UndefinedMetricWarning, warn
from ._auc import (
    auc_empty,
    auc_update,
    auc_update_into,
    counts_prepare,
    counts_update_plain,
)
from ._binary import check_binary_scores, sort_classes, threshold_counts

__all__ = ["precision_recall_curve", "roc_curve"]


def binary_curve_counts(
    y_true: Any,
    y_score: Any,
    sample_weight: Any,
    func: str,
    pos_label: Any = None,
    score_name: str = "y_score",
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validated input -> (thresholds descending, cumulative tps, cumulative fps), the
    errors naming ``func`` and the scores ``score_name``.

    Columns of a :func:`receval.scan` are read batch by batch into the counts per
    distinct score that :func:`receval.average_precision_score` holds for them (the
    state of the exact AUC of any split of the rows): the curve is a function of
    those counts, one point per distinct score, as the curve of the rows in memory.
    """
    counts, _ = curve_and_values(y_true, y_score, sample_weight, func, pos_label, score_name, ())
    return counts


def curve_and_values(
    y_true: Any,
    y_score: Any,
    sample_weight: Any,
    func: str,
    pos_label: Any,
    score_name: str,
    metrics: tuple[MetricDefinition, ...],
) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], list[float]]:
    """:func:`binary_curve_counts` and the values of ``metrics``, definitions of the
    same state (roc_auc, average_precision, break_even_point): columns of a scan
    are read once, into the one state that the curve and every value are made of.

    The values' warnings that the metric is undefined are left out: a metric is
    undefined where the curve is (one class), and the curve's points warn of it,
    naming ``func``.
    """
    columns = {"y_true": y_true, "y_score": y_score, "sample_weight": sample_weight}
    params = {"bins": None, "pos_label": pos_label}
    scan = scan_of(func, y_true=y_true, **{score_name: y_score}, sample_weight=sample_weight)
    if scan is not None:
        state = run_definition(_state_definition(func, score_name), params, columns, func=func)
        counts = _threshold_counts(func, params, state)
    else:
        labels, scores, weights, _ = check_binary_scores(
            y_true, y_score, sample_weight, func, pos_label=pos_label, score_name=score_name,
            rank=False,
        )  # fmt: skip
        counts = threshold_counts(sort_classes(labels, scores, weights))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        values = [
            float(m.finalize(params, state) if scan is not None
                  else run_definition(m, params, columns, func=func))
            for m in metrics
        ]  # fmt: skip
    return counts, values


def _threshold_counts(func: str, params: dict[str, Any], state: Any) -> tuple[Any, Any, Any]:
    """The curve's counts of a state of counts per distinct score: the distinct scores
    descending, the rows (weights: times a power of two, which the curves' ratios do
    not see) of each label at or above each. Each label's weights are held in a unit
    of its own (a negatives' unit ``2**shift`` positives'): the label of the finer
    unit is scaled into the other's, exactly unless it falls below the normal floats,
    where it no longer moves a sum beside the other's counts."""
    scores, pos, neg, shift = state.counts(func).table()
    if shift > 0:
        pos = np.ldexp(pos, -min(shift, 1 << 12))
    elif shift < 0:
        neg = np.ldexp(neg, max(shift, -(1 << 12)))
    return scores[::-1].copy(), np.cumsum(pos[::-1]), np.cumsum(neg[::-1])


def _state_definition(func: str, score_name: str) -> MetricDefinition:
    """The counts per distinct score of a curve's rows, as a scan's batches add them,
    the checks naming ``func`` and ``score_name`` (not a metric: no registry row,
    never listed); its value is the state itself."""
    return MetricDefinition(
        name=func,
        check_params=lambda **params: params,
        prepare=counts_prepare(func, score_name),
        update=auc_update,
        empty=auc_empty,
        finalize=lambda params, state: state,
        update_into=auc_update_into,
        update_plain=counts_update_plain(func),
        family="pointwise",
        partitioning="any",
        inputs=("y_true", "y_score", "sample_weight"),
    )


def _check_drop_intermediate(value: Any, func: str) -> None:
    """An ``InvalidParameterError`` unless ``drop_intermediate`` is a bool (as scikit-learn)."""
    if not isinstance(value, (bool, np.bool_)):
        raise InvalidParameterError(
            f"The 'drop_intermediate' parameter of {func} must be a bool (True or False). "
            f"Got {value!r} instead."
        )


def roc_curve(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    pos_label: Any = None,
    sample_weight: ArrayLike | None = None,
    drop_intermediate: bool = True,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Compute the receiver operating characteristic (ROC) curve.

    One point per distinct score threshold, from (0, 0) to (1, 1); the same
    points and thresholds as :func:`sklearn.metrics.roc_curve`.

    Columns of a :func:`receval.scan` are read batch by batch into counts per
    distinct score (as :func:`average_precision_score` reads them), held in
    memory as the curve is: the same points as in memory (with weights, the
    weights of a score are summed exactly, so a rate may differ in its last bit,
    and ``drop_intermediate`` see a point on a straight stretch that memory keeps).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels. With ``pos_label=None`` they must be in {0, 1} or
        {-1, 1}; otherwise ``pos_label`` names the positive class.
    y_score : array-like of shape (n_samples,)
        Scores; a higher score means more likely positive.
    pos_label : int, str or bool, default=None
        The positive class.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights. Rows of weight 0 are ignored entirely.
    drop_intermediate : bool, default=True
        Drop thresholds whose point lies on a straight horizontal or vertical
        segment of the curve; the area is unchanged.

    Returns
    -------
    fpr : ndarray of shape (n_thresholds,)
        False positive rate at each threshold (``nan`` with a warning if
        there are no negatives).
    tpr : ndarray of shape (n_thresholds,)
        True positive rate (recall) at each threshold.
    thresholds : ndarray of shape (n_thresholds,)
        Decreasing thresholds; ``thresholds[0]`` is ``inf`` (nothing predicted
        positive).

    See Also
    --------
    roc_auc_score : The area under this curve, computed exactly.

    Examples
    --------
    >>> from receval import roc_curve
    >>> fpr, tpr, thresholds = roc_curve([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> fpr
    array([0. , 0. , 0.5, 0.5, 1. ])
    >>> tpr
    array([0. , 0.5, 0.5, 1. , 1. ])
    >>> thresholds
    array([ inf, 0.8 , 0.4 , 0.35, 0.1 ])
    """
    _check_drop_intermediate(drop_intermediate, "roc_curve")
    counts = binary_curve_counts(y_true, y_score, sample_weight, "roc_curve", pos_label)
    return roc_points(counts, drop_intermediate, "roc_curve")


def roc_points(
    counts: tuple[np.ndarray, np.ndarray, np.ndarray], drop_intermediate: bool, func: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`roc_curve` of the counts of :func:`binary_curve_counts`, its warnings
    naming ``func``."""
    thresholds, tps, fps = counts
    if drop_intermediate and fps.shape[0] > 2:
        keep = np.flatnonzero(
            np.concatenate(([True], (np.diff(fps, 2) != 0) | (np.diff(tps, 2) != 0), [True]))
        )
        fps, tps, thresholds = fps[keep], tps[keep], thresholds[keep]
    tps = np.concatenate(([0.0], tps))
    fps = np.concatenate(([0.0], fps))
    thresholds = np.concatenate(([np.inf], thresholds))
    return (_rate(fps, "negative", "false", func), _rate(tps, "positive", "true", func),
            thresholds)  # fmt: skip


def _rate(counts: np.ndarray, sample: str, rate: str, func: str) -> np.ndarray:
    """``counts`` over the last one; nan with a warning where there is no such sample."""
    if counts[-1] > 0:
        result: np.ndarray = counts / counts[-1]
        return result
    warn(
        f"{func}: y_true has no {sample} sample, so the {rate} positive rate is undefined "
        f"(returned as nan).",
        UndefinedMetricWarning,
    )
    return np.full(counts.shape, np.nan)


def precision_recall_curve(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    pos_label: Any = None,
    sample_weight: ArrayLike | None = None,
    drop_intermediate: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Compute precision-recall pairs for every distinct score threshold.

    The same output as :func:`sklearn.metrics.precision_recall_curve`: the
    last point is (recall 0, precision 1), with no threshold. Columns of a
    :func:`receval.scan` are read as for :func:`roc_curve`.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels (see :func:`roc_curve` for ``pos_label``).
    y_score : array-like of shape (n_samples,)
        Scores; a higher score means more likely positive.
    pos_label : int, str or bool, default=None
        The positive class.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights. Rows of weight 0 are ignored entirely.
    drop_intermediate : bool, default=False
        Drop thresholds where the recall does not change on either side (they
        lie on a flat stretch of the curve).

    Returns
    -------
    precision : ndarray of shape (n_thresholds + 1,)
        Precision at each threshold, in increasing threshold order, then 1.
    recall : ndarray of shape (n_thresholds + 1,)
        Recall at each threshold, decreasing, then 0.
    thresholds : ndarray of shape (n_thresholds,)
        Increasing distinct scores.

    See Also
    --------
    average_precision_score : Step-wise area under this curve.
    pr_auc_score : Trapezoidal area under this curve.
    break_even_point : Where precision equals recall.

    Examples
    --------
    >>> from receval import precision_recall_curve
    >>> precision, recall, thresholds = precision_recall_curve(
    ...     [0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> precision
    array([0.5       , 0.66666667, 0.5       , 1.        , 1.        ])
    >>> recall
    array([1. , 1. , 0.5, 0.5, 0. ])
    >>> thresholds
    array([0.1 , 0.35, 0.4 , 0.8 ])
    """
    func = "precision_recall_curve"
    _check_drop_intermediate(drop_intermediate, func)
    counts = binary_curve_counts(y_true, y_score, sample_weight, func, pos_label)
    return precision_recall_points(counts, drop_intermediate, func)


def precision_recall_points(
    counts: tuple[np.ndarray, np.ndarray, np.ndarray], drop_intermediate: bool, func: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`precision_recall_curve` of the counts of :func:`binary_curve_counts`, its
    errors and warnings naming ``func``."""
    thresholds, tps, fps = counts
    if tps.shape[0] == 0:  # rows, but none with weight
        raise InputValidationError(
            f"{func}: every sample weight is zero, so the curve has no point; pass at least "
            f"one positive weight."
        )
    if drop_intermediate and tps.shape[0] > 2:
        keep = np.flatnonzero(
            np.concatenate(([True], (np.diff(tps[:-1]) != 0) | (np.diff(tps[1:]) != 0), [True]))
        )
        fps, tps, thresholds = fps[keep], tps[keep], thresholds[keep]
    predicted = tps + fps
    precision = np.divide(tps, predicted, out=np.zeros_like(tps), where=predicted != 0)
    if tps[-1] == 0:
        warn(
            f"{func}: y_true has no positive sample, so recall is undefined; it is set to 1 "
            f"at every threshold, as in scikit-learn.",
            UndefinedMetricWarning,
        )
        recall = np.ones_like(tps)
    else:
        recall = tps / tps[-1]
    return (
        np.concatenate((precision[::-1], [1.0])),
        np.concatenate((recall[::-1], [0.0])),
        thresholds[::-1].copy(),
    )

"""Grouped AUPRC: the mean over groups of each group's area under the precision-recall curve."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .. import _validation as v
from .._kernels import compiled
from ..engine.kinds import LabelKind
from ..engine.metric import always
from ..engine.sources import run_definition
from ..engine.sums import weight_shifts
from ._xauc import XAUCCounts, group_definition, grouped_prepare

__all__ = ["grouped_auprc_score"]

_FUNC = "grouped_auprc_score"


def grouped_auprc_score(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    sample_weight: ArrayLike | None = None,
    interpolation: str = "step",
    skip_groups: str = "without_positive",
    pos_label: Any = None,
) -> float:
    """Compute grouped AUPRC: the mean over groups of each group's AUPRC.

    Each group's AUPRC is its step-wise area under the precision-recall curve,
    ``sum_t (R_t - R_{t-1}) P_t`` over its distinct scores ``t`` from the highest
    (tied scores one threshold), the weighted average precision of
    :func:`receval.average_precision_score`; the groups' values are averaged
    with equal weights. TorchRec's ``AUPRCMetric`` with ``grouping_keys``
    (``auprc.py``: the same Riemann sum), except that a group without a
    positive (no AUPRC) is skipped here, where TorchRec averages in a 0 for it.

    ``interpolation="davis_goadrich"`` joins the thresholds as Davis and Goadrich
    (2006) do: between two thresholds the false positives grow in proportion to the
    true positives, and the area under that curve is exact (a logarithm per
    segment). With ``skip_groups="one_class"`` (groups without a positive or without
    a negative skipped) it is XGBoost's ``aucpr`` over query groups (metric string
    ``aucpr``).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels (the positive class = click): 0/1, bools, {-1, 1}, or any
        two labels with ``pos_label``.
    y_score : array-like of shape (n_samples,)
        Scores; only their order within a group matters.
    groups : array-like of shape (n_samples,)
        Group id of each row (user, session, query).
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights of the rows, in each group's precision and recall.
    interpolation : {"step", "davis_goadrich"}, default="step"
        The curve between two thresholds: precision constant at the lower one (the
        average precision), or Davis and Goadrich's interpolation (XGBoost's).
    skip_groups : {"without_positive", "one_class"}, default="without_positive"
        The groups left out of the mean: those without a positive, or also those
        without a negative (XGBoost's).
    pos_label : int, str or bool, default=None
        The positive class (needed for labels other than {0, 1} and {-1, 1}),
        as :func:`receval.average_precision_score`'s.

    Returns
    -------
    score : float
        In [0, 1]; ``nan`` with an ``UndefinedMetricWarning`` when no group has
        a positive.

    See Also
    --------
    average_precision_score : The same area over all rows.
    gauc_score : Grouped ROC AUC.

    Examples
    --------
    >>> from receval import grouped_auprc_score
    >>> y_true = [1, 0, 1, 0, 1, 0]
    >>> y_score = [0.9, 0.8, 0.1, 0.7, 0.2, 0.5]
    >>> grouped_auprc_score(y_true, y_score, groups=["a", "a", "a", "b", "b", "b"])
    0.5833
    >>> grouped_auprc_score(y_true, y_score, groups=["a", "a", "a", "b", "b", "b"],
    ...                     interpolation="davis_goadrich", skip_groups="one_class")
    0.4932
    >>> grouped_auprc_score([1, -1, 1, -1, 1, -1], y_score,  # -1/1 labels: 1 is the click
    ...                     groups=["a", "a", "a", "b", "b", "b"])
    0.5833
    """
    columns = {"y_true": y_true, "y_score": y_score, "groups": groups,
               "sample_weight": sample_weight}  # fmt: skip
    params = GROUPED_AUPRC.check_params(
        interpolation=interpolation, skip_groups=skip_groups, pos_label=pos_label
    )
    result: float = run_definition(GROUPED_AUPRC, params, columns, func=_FUNC)
    return result


def group_auprc(
    state: XAUCCounts, interpolation: str = "step", skip_groups: str = "without_positive"
) -> np.ndarray:
    """Per group of a state of 0/1 targets: its AUPRC (nan without a positive, or,
    ``skip_groups="one_class"``, without a negative)."""
    state.compact()
    n_groups = len(state.ids)
    if not len(state.y):
        return np.full(n_groups, np.nan)
    order = np.lexsort((-state.s, state.codes))  # each group's scores, highest first
    codes, s = state.codes[order], state.s[order]
    w, count = state.w[order], state.count[order]
    # a group's AUPRC is a ratio of its own weights: every group's are scaled by their
    # weight_shifts, those of a usual scale too, so that its sums do not overflow and
    # the products of weights near 5e-324 (a batch's, which no scaling of all the
    # rows' reached) keep their bits
    next_group = codes[1:] != codes[:-1]
    starts = np.flatnonzero(np.r_[True, next_group])
    shifts = weight_shifts(w, starts, count)
    weight = count * np.ldexp(w, -np.repeat(shifts, np.diff(np.r_[starts, len(codes)])))
    tp = np.where(state.y[order] == 1, weight, 0.0)
    fp = weight - tp
    new = np.ones(len(s), dtype=bool)  # one threshold per (group, score)
    new[1:] = next_group | (s[1:] != s[:-1])
    at = np.flatnonzero(new)
    group_of = codes[at]
    tp_t, fp_t = np.add.reduceat(tp, at), np.add.reduceat(fp, at)
    first = np.flatnonzero(np.r_[True, group_of[1:] != group_of[:-1]])  # thresholds
    # each group's running sums restarted at its first threshold (a running sum of
    # all less the groups before would cancel a group of small weights after large ones)
    tp_cum = compiled().group_cumsum(tp_t, first)
    fp_cum = compiled().group_cumsum(fp_t, first)
    positives = np.bincount(group_of, weights=tp_t, minlength=n_groups)
    with np.errstate(invalid="ignore", divide="ignore"):
        if interpolation == "step":
            precision = np.where(tp_cum > 0, tp_cum / (tp_cum + fp_cum), 0.0)
            # each threshold's share of its group's positives first: a product of two
            # weights near 5e-324 (a share's) would underflow
            recall_step = tp_t / positives[group_of]
            area = np.bincount(group_of, weights=recall_step * precision, minlength=n_groups)
            values: np.ndarray = np.where(positives > 0, area, np.nan)
        else:
            segments = _davis_goadrich(tp_cum, fp_cum, first, positives[group_of])
            values = np.bincount(group_of, weights=segments, minlength=n_groups)
            values[positives <= 0] = np.nan
    if skip_groups == "one_class":
        negatives = np.bincount(group_of, weights=fp_t, minlength=n_groups)
        values[negatives <= 0] = np.nan
    return values


def _davis_goadrich(
    tp: np.ndarray, fp: np.ndarray, first: np.ndarray, total: np.ndarray
) -> np.ndarray:
    """The area of each segment of Davis and Goadrich's precision-recall curve, from
    the previous threshold of its group (the origin at a group's first) to this one:
    with ``h`` the false positives per true positive on the segment, ``a = 1 + h`` and
    ``b = (fp_prev - h tp_prev) / total``, the area under precision ``x / (a x + b)``
    of recall ``x`` is ``(dx - b / a log((a x + b) / (a x_prev + b))) / a``, written as
    XGBoost writes it (``CalcDeltaPRAUC``)."""
    tp_prev, fp_prev = np.r_[0.0, tp[:-1]], np.r_[0.0, fp[:-1]]
    tp_prev[first], fp_prev[first] = 0.0, 0.0
    flat = tp == tp_prev
    h = np.where(flat, 0.0, (fp - fp_prev) / np.where(flat, 1.0, tp - tp_prev))
    a = np.where(flat, 1.0, h + 1.0)
    b = np.where(flat, 0.0, (fp_prev - h * tp_prev) / total)
    x, x_prev = tp / total, tp_prev / total
    curved = (x - x_prev - b / a * (np.log(a * x + b) - np.log(a * x_prev + b))) / a
    area: np.ndarray = np.where(b != 0.0, curved, (x - x_prev) / a)
    return area


# ------------------------------------------------------------------ definition
_prepare_rows = grouped_prepare(_FUNC)


def _prepare(params: dict[str, Any], y_true: Any, y_score: Any, **kwargs: Any) -> Any:
    """The batch of :func:`grouped_prepare` of the labels read as 0/1 (any two labels, as
    the binary metrics read them), with the pair the batch gave."""
    yt = v.as_1d(y_true, "y_true", _FUNC)
    labels, negative = np.empty(0, dtype=np.int8), None
    if len(yt):
        labels, negative = v.binarize_labels(yt, params["pos_label"], _FUNC)
    batch = _prepare_rows(params, labels, y_score, **kwargs)
    return (*batch, LabelKind.of(negative, params["pos_label"], _FUNC))


def _group_values(
    params: dict[str, Any], state: XAUCCounts
) -> tuple[np.ndarray, np.ndarray, np.ndarray, str]:
    values = group_auprc(state, params["interpolation"], params["skip_groups"])
    why = "a positive" if params["skip_groups"] == "without_positive" else "both classes"
    return values, np.ones(len(values)), state.rows() + state.zero_rows(), why


def _params(
    interpolation: str = "step", skip_groups: str = "without_positive", pos_label: Any = None
) -> dict[str, Any]:
    return {
        "pos_label": pos_label,
        "interpolation": v.check_option(
            interpolation, "interpolation", _FUNC, ["step", "davis_goadrich"]
        ),
        "skip_groups": v.check_option(
            skip_groups, "skip_groups", _FUNC, ["without_positive", "one_class"]
        ),
    }


GROUPED_AUPRC = group_definition(
    "grouped_auprc", _FUNC, _prepare, _group_values, check_params=_params, scale_free=always
)

"""Grouped AUPRC: the mean over groups of each group's area under the precision-recall curve."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .. import _validation as v
from ..engine.metric import always
from ..engine.sources import run_definition
from ._xauc import XAUCCounts, counts_definition, grouped_mean, grouped_prepare

__all__ = ["grouped_auprc_score"]

_FUNC = "grouped_auprc_score"


def grouped_auprc_score(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    sample_weight: ArrayLike | None = None,
) -> float:
    """Compute grouped AUPRC: the mean over groups of each group's AUPRC.

    Each group's AUPRC is its step-wise area under the precision-recall curve,
    ``sum_t (R_t - R_{t-1}) P_t`` over its distinct scores ``t`` from the highest
    (tied scores one threshold), the weighted average precision of
    :func:`receval.average_precision_score`; the groups' values are averaged
    with equal weights. TorchRec's ``AUPRCMetric`` with ``grouping_keys``
    (``auprc.py``: the same Riemann sum), except that a group without a
    positive (no AUPRC) is skipped here, where TorchRec averages in a 0 for it.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        0/1 labels (1 = click).
    y_score : array-like of shape (n_samples,)
        Scores; only their order within a group matters.
    groups : array-like of shape (n_samples,)
        Group id of each row (user, session, query).
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights of the rows, in each group's precision and recall.

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
    """
    columns = {"y_true": y_true, "y_score": y_score, "groups": groups,
               "sample_weight": sample_weight}  # fmt: skip
    result: float = run_definition(GROUPED_AUPRC, {}, columns, func=_FUNC)
    return result


def group_auprc(state: XAUCCounts) -> np.ndarray:
    """Per group of a state of 0/1 targets: its AUPRC (nan without a positive)."""
    state.compact()
    n_groups = len(state.ids)
    if not len(state.y):
        return np.full(n_groups, np.nan)
    order = np.lexsort((-state.s, state.codes))  # each group's scores, highest first
    codes, s = state.codes[order], state.s[order]
    weight = (state.count * state.w)[order]
    tp = np.where(state.y[order] == 1, weight, 0.0)
    fp = weight - tp
    new = np.ones(len(s), dtype=bool)  # one threshold per (group, score)
    new[1:] = (codes[1:] != codes[:-1]) | (s[1:] != s[:-1])
    at = np.flatnonzero(new)
    group_of = codes[at]
    tp_t, fp_t = np.add.reduceat(tp, at), np.add.reduceat(fp, at)
    first = np.flatnonzero(np.r_[True, group_of[1:] != group_of[:-1]])  # thresholds
    tp_cum = _group_cumsum(tp_t, first)
    fp_cum = _group_cumsum(fp_t, first)
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(tp_cum > 0, tp_cum / (tp_cum + fp_cum), 0.0)
    area = np.bincount(group_of, weights=tp_t * precision, minlength=n_groups)
    positives = np.bincount(group_of, weights=tp_t, minlength=n_groups)
    with np.errstate(invalid="ignore", divide="ignore"):
        values: np.ndarray = np.where(positives > 0, area / positives, np.nan)
    return values


def _group_cumsum(x: np.ndarray, first: np.ndarray) -> np.ndarray:
    """The running sum of ``x`` restarted at each index of ``first``."""
    total = np.cumsum(x)
    before = np.zeros(len(first))
    before[1:] = total[first[1:] - 1]
    lengths = np.diff(np.r_[first, len(x)])
    result: np.ndarray = total - np.repeat(before, lengths)
    return result


# ------------------------------------------------------------------ definition
_prepare_rows = grouped_prepare(_FUNC)


def _prepare(params: dict[str, Any], y_true: Any, y_score: Any, **kwargs: Any) -> Any:
    v.check_binary01(y_true, _FUNC)
    return _prepare_rows(params, y_true, y_score, **kwargs)


def _finalize(params: dict[str, Any], state: XAUCCounts) -> float:
    values = group_auprc(state)
    return grouped_mean(_FUNC, values, np.ones(len(values)), "a positive")


GROUPED_AUPRC = counts_definition("grouped_auprc", _prepare, _finalize, scale_free=always)

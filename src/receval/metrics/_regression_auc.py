"""TorchRec's regression AUC: the share of all pairs of rows that the scores do not invert."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .. import _validation as v
from ..engine.metric import always, data_columns, weights_refused
from ..engine.sources import run_definition
from ._xauc import XAUCCounts, group_definition, grouped_prepare

__all__ = ["regression_auc_score"]

_FUNC = "regression_auc_score"


def regression_auc_score(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike | None = None,
    sample_weight: ArrayLike | None = None,
) -> float:
    """Compute TorchRec's regression AUC (RAUC): the pairs the scores do not invert.

    ``RAUC = 1 - D / (n (n - 1) / 2)`` with ``D`` the pairs of rows whose scores
    order them against their targets (``s_i < s_j`` while ``y_i > y_j``), over
    every pair of rows: pairs of equal targets or equal scores count as in order.
    TorchRec's ``RAUCMetric`` (``rauc.py``, which counts the inversions of the
    targets sorted by score by a merge sort), computed exactly in O(n log n) from
    the state of :func:`xauc_score`. Unlike :func:`xauc_score`, the pairs of equal
    targets are in the denominator and tied scores count as in order, not one
    half. TorchRec takes weights and ignores them; this function refuses them.

    With ``groups``, TorchRec's grouped RAUC (``grouped_rauc=True``): the mean of
    the groups' RAUCs, each group weighing 1; a group of one row has no pair and
    is left out (TorchRec divides 0 by 0 there and raises).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Targets (watch time, ratings); only their order matters.
    y_score : array-like of shape (n_samples,)
        Scores; only their order matters.
    groups : array-like of shape (n_samples,), default=None
        Group id of each row: the RAUC of each group's own pairs, averaged.
    sample_weight : None, default=None
        Not taken: a value other than None raises ``InvalidParameterError``
        (TorchRec's RAUC counts each pair once, whatever its weights).

    Returns
    -------
    rauc : float
        In [0, 1]; ``nan`` with an ``UndefinedMetricWarning`` with fewer than two
        rows (with ``groups``: when no group has two).

    See Also
    --------
    xauc_score : The pairs of different targets only, tied scores one half.

    Examples
    --------
    >>> from receval import regression_auc_score
    >>> regression_auc_score([3.0, 12.0, 7.5, 0.0], [0.2, 0.4, 0.9, 0.1])  # one of six inverted
    0.8333
    >>> regression_auc_score([1.0, 1.0, 2.0], [0.1, 0.5, 0.5])  # ties are in order
    1.0
    >>> regression_auc_score([1.0, 2.0, 3.0, 1.0, 2.0], [0.1, 0.3, 0.2, 0.5, 0.4],
    ...                      groups=["a", "a", "a", "b", "b"])  # (2/3 + 0) / 2
    0.3333
    """
    defn = REGRESSION_AUC if groups is None else GROUPED_REGRESSION_AUC
    if sample_weight is not None:
        raise weights_refused(_FUNC, defn.name, sample_weight)
    columns = {"y_true": y_true, "y_score": y_score}
    if groups is not None:
        columns["groups"] = groups
    result: float = run_definition(defn, {}, columns, func=_FUNC)
    return result


def _inverted(state: XAUCCounts) -> tuple[np.ndarray, np.ndarray]:
    """Per group: twice the inverted pairs, and the rows (a state of unit weights)."""
    starts = state.starts()
    twice, pairs, _ = state.pair_sums()  # twice: 2 (in order) + tied scores
    codes, s, count = state.codes, state.s, state.count.astype(np.float64)
    rows = np.add.reduceat(count, starts[:-1]) if len(s) else count[:0]

    if not len(s):
        return np.zeros(len(starts) - 1), rows
    by_score = np.lexsort((s, codes))
    runs = np.flatnonzero(_new_runs(codes[by_score], s[by_score]))
    n_s = np.add.reduceat(count[by_score], runs)
    same_score = np.bincount(codes[by_score][runs], weights=n_s * (n_s - 1) / 2,
                             minlength=len(starts) - 1)  # fmt: skip
    keys = np.flatnonzero(_new_runs(codes, state.y, s))  # keys of one (y, s) are adjacent
    n_ys = np.add.reduceat(count, keys)
    same_both = np.bincount(codes[keys], weights=n_ys * (n_ys - 1) / 2,
                            minlength=len(starts) - 1)  # fmt: skip
    ties = same_score - same_both  # tied scores, different targets
    return 2.0 * pairs.astype(np.float64) - twice.astype(np.float64) - ties, rows


def _new_runs(*keys: np.ndarray) -> np.ndarray:
    """Where a run of rows equal in every key starts."""
    new = np.zeros(len(keys[0]), dtype=bool)
    new[0] = True
    for k in keys:
        new[1:] |= k[1:] != k[:-1]
    return new


# ------------------------------------------------------------------ definition
def _prepare(params: dict[str, Any], y_true: Any, y_score: Any) -> Any:
    yt, ys = data_columns(_FUNC, ("y_true", y_true), ("y_score", y_score))
    targets = v.order_scores(yt, "y_true", _FUNC, rank=False)
    return targets, v.order_scores(ys, "y_score", _FUNC, rank=False), None


_prepare_grouped = grouped_prepare(_FUNC)


def _grouped(params: dict[str, Any], y_true: Any, y_score: Any, *, groups: Any) -> Any:
    return _prepare_grouped(params, y_true, y_score, groups=groups)


def _group_values(
    params: dict[str, Any], state: XAUCCounts
) -> tuple[np.ndarray, np.ndarray, np.ndarray, str]:
    state.compact()
    twice_inverted, rows = _inverted(state)
    all_pairs = rows * (rows - 1)  # twice the pairs
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.where(all_pairs > 0, 1.0 - twice_inverted / all_pairs, np.nan)
    return values, np.ones(len(values)), rows, "two rows or more"


REGRESSION_AUC = group_definition("regression_auc", _FUNC, _prepare, _group_values,
                                  scale_free=always)  # fmt: skip
GROUPED_REGRESSION_AUC = group_definition("grouped_regression_auc", _FUNC, _grouped,
                                          _group_values, scale_free=always)  # fmt: skip

"""Group AUC (GAUC): the weighted mean of per-group (per-user) ROC AUC."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .. import _streaming
from .. import _validation as v
from ..data._encode import factorize
from ..exceptions import InputValidationError, InvalidParameterError
from ._binary import warn_undefined

__all__ = ["GroupAUCReport", "gauc_score", "group_auc"]

_WEIGHTINGS = ["clicks", "impressions", "uniform"]


@dataclass(frozen=True)
class GroupAUCReport:
    """Per-group AUCs behind a GAUC value, and what was skipped.

    Attributes
    ----------
    score : float
        The GAUC: ``sum_g w_g AUC_g / sum_g w_g`` over groups with a defined AUC.
    groups : ndarray of shape (n_groups,)
        Every group id, in order of first appearance.
    auc : ndarray of shape (n_groups,)
        AUC of each group; ``nan`` for skipped groups.
    weight : ndarray of shape (n_groups,)
        Weight of each group in the mean (also given for skipped groups).
    n_rows : ndarray of shape (n_groups,)
        Rows of each group.
    n_groups : int
        Number of groups.
    n_groups_skipped : int
        Groups without a defined AUC (all clicks, no click, or zero weight).
    n_rows_skipped : int
        Rows in the skipped groups.
    weighting : str
        The weighting used (``"custom"`` for caller-supplied weights).
    """

    score: float
    groups: np.ndarray
    auc: np.ndarray
    weight: np.ndarray
    n_rows: np.ndarray
    n_groups: int
    n_groups_skipped: int
    n_rows_skipped: int
    weighting: str

    @property
    def skipped(self) -> np.ndarray:
        """Boolean mask of the skipped groups."""
        return np.isnan(self.auc)

    def to_frame(self, backend: str | None = None) -> Any:
        """Per-group table (group, auc, weight, n_rows, skipped) as a DataFrame.

        Parameters
        ----------
        backend : {"pandas", "polars"}, default=None
            Which library builds the frame; by default pandas if installed,
            else polars.
        """
        from ..data.frames import make_frame

        return make_frame(
            {
                "group": self.groups,
                "auc": self.auc,
                "weight": self.weight,
                "n_rows": self.n_rows,
                "skipped": self.skipped,
            },
            backend=backend,
        )


def _group_weights(
    weighting: Any,
    uniques: np.ndarray,
    codes: np.ndarray,
    rows: np.ndarray,
    weight: np.ndarray,
    weighted_pos: np.ndarray,
    func: str,
) -> tuple[np.ndarray, str]:
    if isinstance(weighting, str):
        v.check_option(weighting, "weighting", func, _WEIGHTINGS)
        if weighting == "impressions":
            return weight, weighting
        if weighting == "clicks":
            return weighted_pos, weighting
        return np.ones(len(uniques)), weighting
    if isinstance(weighting, Mapping) or hasattr(weighting, "items"):
        mapping = dict(weighting.items())
        missing = [g for g in uniques.tolist() if g not in mapping]
        if missing:
            raise InputValidationError(
                f"{func}: weighting has no weight for groups {v.format_values(missing)}; "
                f"give every group a weight."
            )
        out = np.array([mapping[g] for g in uniques.tolist()], dtype=np.float64)
    else:
        try:
            per_row = v.as_float(v.as_1d(weighting, "weighting", func), "weighting", func)
        except InputValidationError:
            raise
        except Exception as exc:  # pragma: no cover - exotic objects
            raise InvalidParameterError(
                f"The 'weighting' parameter of {func} must be one of {_WEIGHTINGS!r}, a mapping "
                f"from group to weight, or an array with each row's group weight. "
                f"Got {type(weighting).__name__} instead."
            ) from exc
        if len(per_row) != len(codes):
            raise InputValidationError(
                f"{func}: weighting must give one weight per row (its group's weight). "
                f"Got {len(per_row)} weights for {len(codes)} rows."
            )
        out = np.zeros(len(uniques))
        out[codes] = per_row
        if not np.array_equal(out[codes], per_row):
            bad = uniques[np.unique(codes[out[codes] != per_row])]
            raise InputValidationError(
                f"{func}: weighting must be constant within each group. It varies in groups "
                f"{v.format_values(bad)}."
            )
    v.check_finite(out, "weighting", func)
    if out.size and out.min() < 0:
        raise InputValidationError(
            f"{func}: weighting must be non-negative. Got values "
            f"{v.format_values(np.unique(out[out < 0]))}."
        )
    return out, "custom"


def group_auc(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    weighting: str | ArrayLike | Mapping[Any, float] = "impressions",
    sample_weight: ArrayLike | None = None,
) -> GroupAUCReport:
    """Compute per-group AUCs and their weighted mean, with what was skipped.

    Same computation as :func:`gauc_score`, returning the whole report: the
    AUC and weight of every group and the number of groups and rows that were
    skipped because their AUC is undefined.

    Columns of a :func:`receval.scan` (files larger than memory) are read
    batch by batch in bounded memory: the rows of each group must be contiguous in the
    file (checked).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        0/1 labels (1 = click).
    y_score : array-like of shape (n_samples,)
        Predicted scores.
    groups : array-like of shape (n_samples,)
        Group id of each row (user id, query id, session id): ints or strings.
    weighting : {"impressions", "clicks", "uniform"}, mapping or array-like, default="impressions"
        See :func:`gauc_score`.
    sample_weight : array-like of shape (n_samples,), default=None
        Per-row weights.

    Returns
    -------
    report : GroupAUCReport

    Examples
    --------
    >>> from receval import group_auc
    >>> report = group_auc([1, 0, 0, 0, 1, 1, 0], [0.9, 0.3, 0.5, 0.6, 0.4, 0.8, 0.2],
    ...                    groups=["a", "a", "a", "b", "b", "b", "c"])
    >>> report.score, report.n_groups_skipped, report.n_rows_skipped
    (0.75, 1, 1)
    >>> report.auc
    array([1. , 0.5, nan])
    """
    func = "gauc_score"
    if _streaming.is_scan(
        func, y_true=y_true, y_score=y_score, groups=groups, sample_weight=sample_weight
    ):
        return _streaming.group_auc(
            y_true, y_score, groups=groups, weighting=weighting, sample_weight=sample_weight
        )
    return group_auc_of(y_true, y_score, groups, weighting, sample_weight, func)


def group_auc_of(
    y_true: Any, y_score: Any, groups: Any, weighting: Any, sample_weight: Any, func: str
) -> GroupAUCReport:
    yt = v.as_1d(y_true, "y_true", func)
    ys = v.as_1d(y_score, "y_score", func)
    sw = None if sample_weight is None else v.as_1d(sample_weight, "sample_weight", func)
    if groups is None:
        raise InputValidationError(f"{func}: groups is None; pass the group id of each row.")
    codes, uniques = factorize(groups, "groups", func)
    n = v.check_same_length(func, y_true=yt, y_score=ys, groups=codes, sample_weight=sw)
    v.check_not_empty(n, "y_true", func)
    labels = v.check_binary01(yt, func)
    scores = v.check_finite(v.as_float(ys, "y_score", func), "y_score", func)
    weights = v.check_sample_weight(sw, n, func, relative=True)
    auc, rows, weight, weighted_pos = grouped_auc_kernel(
        codes, len(uniques), labels, scores, weights
    )
    group_w, used = _group_weights(weighting, uniques, codes, rows, weight, weighted_pos, func)
    from .._states import gauc_sums, gauc_value

    skipped = np.isnan(auc)
    score = gauc_value(*gauc_sums(auc, group_w))  # exact sums, as out of core and on Spark
    return GroupAUCReport(
        score=score,
        groups=uniques,
        auc=auc,
        weight=group_w,
        n_rows=rows,
        n_groups=len(uniques),
        n_groups_skipped=int(skipped.sum()),
        n_rows_skipped=int(rows[skipped].sum()),
        weighting=used,
    )


def grouped_auc_kernel(
    codes: np.ndarray,
    n_groups: int,
    labels: np.ndarray,
    scores: np.ndarray,
    weights: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per-group AUC (nan where undefined), rows, weight and weighted positives.

    Validated arrays in; see ``receval._kernels._gauc`` for the method.
    """
    import numba

    from .._kernels import _gauc as k

    rows, positives = k._group_counts(codes, n_groups, labels)
    negatives = rows - positives
    n_pos = int(positives.sum())
    minority = 1 if n_pos <= codes.shape[0] - n_pos else 0
    counts = positives if minority == 1 else negatives
    n_chunks = max(1, int(numba.get_num_threads()))
    if weights is None:
        offsets, seg = k._gather_minority(codes, n_groups, labels, scores, minority, counts)
        k._sort_segments(seg, offsets)
        two_u = k._stream_pair_counts(
            codes, n_groups, labels, scores, minority, offsets, seg, n_chunks
        )
        pairs = positives * negatives
        with np.errstate(invalid="ignore", divide="ignore"):
            auc = np.where(pairs > 0, two_u / (2.0 * np.maximum(pairs, 1)), np.nan)
        return auc, rows, rows.astype(np.float64), positives.astype(np.float64)
    area, weighted_pos, weighted_neg = k._weighted_group_aucs(
        codes, n_groups, labels, scores, weights, rows, positives
    )
    weight = weighted_pos + weighted_neg
    pairs = weighted_pos * weighted_neg
    with np.errstate(invalid="ignore", divide="ignore"):
        auc = np.where(pairs > 0, area / np.where(pairs > 0, pairs, 1.0), np.nan)
    return auc, rows, weight, weighted_pos


def gauc_score(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    weighting: str | ArrayLike | Mapping[Any, float] = "impressions",
    sample_weight: ArrayLike | None = None,
) -> float:
    """Compute group AUC: the weighted mean of per-group ROC AUC.

    Groups (typically users) whose labels are all 0 or all 1 have no
    defined AUC and are skipped, as in the DIN paper's definition. Use
    :func:`group_auc` to see the per-group values and how many groups and
    rows were skipped.

    Columns of a :func:`receval.scan` (files larger than memory) are read
    batch by batch in bounded memory: the rows of each group must be contiguous in the
    file (checked).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels (1 = click). Other values raise ``InputValidationError``.
    y_score : array-like of shape (n_samples,)
        Predicted scores; only their order within a group matters.
    groups : array-like of shape (n_samples,)
        Group id of each sample (user id, query id, session id).
    weighting : {"impressions", "clicks", "uniform"}, mapping or array-like, default="impressions"
        Weight of each group's AUC: its total sample weight (its row count
        without ``sample_weight``), its weighted positives, or 1. Or the
        caller's own weights: a mapping from group id to weight, or an array
        giving each row its group's weight (constant within a group).
    sample_weight : array-like of shape (n_samples,), default=None
        Per-sample weights, used inside each group's AUC and by ``weighting``.

    Returns
    -------
    score : float
        GAUC in [0, 1]; nan with an ``UndefinedMetricWarning`` if no group has both classes.

    See Also
    --------
    roc_auc_score : AUC over all samples, ignoring groups.
    group_auc : The same computation, with per-group values and skip counts.

    Notes
    -----
    ``GAUC = sum_u w_u AUC_u / sum_u w_u`` over the groups u with both classes.
    Each ``AUC_u`` is exact, ties counting one half (see :func:`roc_auc_score`).

    Examples
    --------
    >>> from receval import gauc_score
    >>> y_true = [1, 0, 0, 0, 1, 1, 0]
    >>> y_score = [0.9, 0.3, 0.5, 0.6, 0.4, 0.8, 0.2]
    >>> users = ["a", "a", "a", "b", "b", "b", "c"]
    >>> gauc_score(y_true, y_score, groups=users)  # "c" has no click: skipped
    0.75
    >>> gauc_score(y_true, y_score, groups=users, weighting="clicks")
    0.6667
    """
    if _streaming.is_scan(
        "gauc_score", y_true=y_true, y_score=y_score, groups=groups, sample_weight=sample_weight
    ):
        return _streaming.gauc_score(
            y_true, y_score, groups=groups, weighting=weighting, sample_weight=sample_weight
        )
    report = group_auc_of(y_true, y_score, groups, weighting, sample_weight, "gauc_score")
    return gauc_or_warn(report.score, report.n_groups)


def gauc_or_warn(score: float, n_groups: int) -> float:
    """``score``, or nan with an ``UndefinedMetricWarning`` when no group counted."""
    if np.isnan(score):
        return warn_undefined(
            f"gauc_score: no group has both a positive and a negative sample "
            f"({n_groups} groups, all skipped), so GAUC is undefined (returned as nan)."
        )
    return score

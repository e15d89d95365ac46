"""Group AUC (GAUC): the weighted mean of per-group (per-user) ROC AUC."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike

from .. import _validation as v
from .._kernels import compiled
from ..data._lookup import distinct
from ..engine.group_ids import Seen
from ..engine.kinds import MERGED, NO_IDS, NO_LABELS, UPDATE, IdKind, LabelKind
from ..engine.metric import MetricDefinition, data_columns, is_mapping, is_option_value, register
from ..engine.rounding import RoundedWeights, merged, warn_rounded
from ..engine.sources import run_definition
from ..engine.states import plain_pair
from ..engine.sums import scaled_by_shift
from ..exceptions import InputValidationError, InvalidParameterError
from ._binary import warn_undefined
from ._gauc_open import OpenGroups, checked_rows
from ._undefined import warn_because

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
        Weight of each group in the mean (also given for skipped groups): with
        ``"impressions"`` or ``"clicks"``, the sum of its rows' (or its positives')
        sample weights.
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

    @classmethod
    def of_groups(
        cls, groups: Any, auc: Any, weight: Any, n_rows: Any, weighting: str, shift: int = 0
    ) -> GroupAUCReport:
        """The report of these groups, the GAUC from exact sums (as out of core and on
        Spark); ``weight`` the groups' weights times ``2**-shift`` (see
        :func:`scaled_weights`), reported at their own scale."""
        from ..engine.totals import gauc_sums, gauc_value

        skipped = np.isnan(auc)
        with np.errstate(over="ignore"):  # a group's weight beyond float64's range: inf
            unscaled = np.ldexp(weight, shift) if shift else weight
        return cls(score=gauc_value(*gauc_sums(auc, weight)), groups=groups, auc=auc,
                   weight=unscaled, n_rows=n_rows,
                   n_groups=len(auc),
                   n_groups_skipped=int(skipped.sum()),
                   n_rows_skipped=int(n_rows[skipped].sum()), weighting=weighting)  # fmt: skip

    @property
    def skipped(self) -> np.ndarray:
        """Boolean mask of the skipped groups."""
        result: np.ndarray = np.isnan(self.auc)
        return result

    def __repr__(self) -> str:
        return (
            f"GroupAUCReport(gauc={float(self.score)!r}, weighting={self.weighting!r}, "
            f"{v.counted(self.n_groups, 'group')}, {self.n_groups_skipped:,} skipped with "
            f"{v.counted(self.n_rows_skipped, 'row')}; each group's AUC: .to_frame())"
        )

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


def _mapped_weights(mapping: dict[Any, Any], groups: list[Any], func: str) -> np.ndarray:
    """The weight ``mapping`` gives each of ``groups`` as float64; an
    ``InputValidationError`` naming the first group whose weight is not a finite number."""
    values = [mapping[g] for g in groups]
    out: np.ndarray | None = None
    if not any(isinstance(x, (str, bytes)) for x in values):
        try:
            out = np.array(values, dtype=np.float64)
        except (TypeError, ValueError):
            out = None
    if out is not None and bool(np.isfinite(out).all()):
        return out

    def finite(x: Any) -> bool:
        try:
            return not isinstance(x, (str, bytes)) and bool(np.isfinite(float(x)))
        except (TypeError, ValueError, OverflowError):
            return False

    i = next(i for i, x in enumerate(values) if not finite(x))
    raise InputValidationError(
        f"{func}: weighting must map each group to a finite number. Got {values[i]!r} for "
        f"group {groups[i]!r}; give that group a finite, non-negative weight."
    )


def group_weights(
    weighting: Any,
    uniques: np.ndarray,
    codes: np.ndarray,
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
    if is_mapping(weighting):
        mapping = dict(weighting)
        missing = [g for g in uniques.tolist() if g not in mapping]
        if missing:
            raise InputValidationError(
                f"{func}: weighting has no weight for groups {v.format_values(missing)}; "
                f"give every group a weight."
            )
        out = _mapped_weights(mapping, uniques.tolist(), func)
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
                f"Got {v.counted(len(per_row), 'weight')} for {v.counted(len(codes), 'row')}; "
                f"map groups to weights with a dict (a Series is per-row: Series.to_dict())."
            )
        v.check_finite(per_row, "weighting", func)  # the caller's rows: their positions
        out = np.zeros(len(uniques))
        out[codes] = per_row
        if not np.array_equal(out[codes], per_row):
            bad = uniques[distinct(codes[out[codes] != per_row])]
            raise InputValidationError(
                f"{func}: weighting must be constant within each group. It varies in groups "
                f"{v.format_values(bad)}."
            )
    if out.size and out.min() < 0:
        raise InputValidationError(
            f"{func}: weighting must be non-negative. Got values "
            f"{v.format_values(distinct(out[out < 0]))}."
        )
    return out, "custom"


def group_auc(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    weighting: str | ArrayLike | Mapping[Any, float] = "impressions",
    sample_weight: ArrayLike | None = None,
    pos_label: Any = None,
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
        Binary labels (the positive class = click), as in :func:`gauc_score`.
    y_score : array-like of shape (n_samples,)
        Predicted scores.
    groups : array-like of shape (n_samples,)
        Group id of each row (user id, query id, session id): ints or strings.
    weighting : {"impressions", "clicks", "uniform"}, mapping or array-like, default="impressions"
        See :func:`gauc_score`.
    sample_weight : array-like of shape (n_samples,), default=None
        Per-row weights.
    pos_label : int, str or bool, default=None
        The positive class, as in :func:`gauc_score`.

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
    params, columns = _gauc_arguments(y_true, y_score, groups, weighting, sample_weight, pos_label)
    report: GroupAUCReport = run_definition(_GAUC_REPORT, params, columns, func="gauc_score")
    return report


def _gauc_arguments(
    y_true: Any, y_score: Any, groups: Any, weighting: Any, sample_weight: Any, pos_label: Any
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The definition's options and data arguments: a named or mapped ``weighting`` is an
    option, per-row group weights are a data argument."""
    if groups is None:
        raise InputValidationError("gauc_score: groups is None; pass the group id of each row.")
    named = is_option_value(weighting)
    params = (GAUC.check_params("gauc_score", weighting=weighting, pos_label=pos_label) if named
              else GAUC.check_params("gauc_score", pos_label=pos_label))  # fmt: skip
    columns = {
        "y_true": y_true,
        "y_score": y_score,
        "groups": groups,
        "sample_weight": sample_weight,
        "weighting": None if named else weighting,
    }
    return params, columns


def scaled_weights(weights: np.ndarray | None) -> tuple[np.ndarray | None, int]:
    """Sample weights divided by the power of two ``2**shift`` that keeps their sums
    from overflowing or underflowing (:func:`~receval.engine.sums.weight_shift`;
    exact), and ``shift`` (0 without weights)."""
    return (None, 0) if weights is None else scaled_by_shift(weights)


#: the groups of some rows: their ids, AUCs (nan: undefined), weights in the mean times
#: ``2**-shift``, rows, the weighting used, and ``shift``
GroupValues = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, str, int]


def group_values(
    y_true: Any, y_score: Any, groups: Any, weighting: Any, sample_weight: Any, func: str
) -> tuple[GroupValues, RoundedWeights | None, int]:
    """Each group's AUC and weight in the mean, of the rows of whole groups: the weights
    scaled by a power of two (exact) that the caller keeps beside its sums; the groups
    whose weights their AUCs rounded (for :func:`warn_rounded_groups`); and how many
    groups have both classes but no AUC, a class's rows all of sample weight 0."""
    codes, uniques, labels, scores, weights = checked_rows(
        y_true, y_score, groups, sample_weight, func, whole=True
    )
    weights, shift = scaled_weights(weights)
    auc, rows, weight, weighted_pos, rounded, weightless = grouped_auc_kernel(
        codes, len(uniques), labels, scores, weights
    )
    group_w, used = group_weights(weighting, uniques, codes, weight, weighted_pos, func)
    group_w, shift = _at_scale(group_w, used, shift)
    return (uniques, auc, group_w, rows, used, shift), rounded, weightless


def _at_scale(group_w: np.ndarray, used: str, shift: int) -> tuple[np.ndarray, int]:
    """The groups' weights in the mean, scaled: by the rows' ``shift`` or their own."""
    return (group_w, shift) if used in ("impressions", "clicks") else scaled_by_shift(group_w)


def grouped_auc_kernel(
    codes: np.ndarray,
    n_groups: int,
    labels: np.ndarray,
    scores: np.ndarray,
    weights: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, RoundedWeights | None, int]:
    """Per-group AUC (nan where undefined), rows, weight, weighted positives, the
    groups whose weights of one label spanned more than the sums hold exactly and were
    rounded (None: none; :func:`warn_rounded_groups` says so), and the number of groups
    whose AUC is undefined although both classes have rows: those of one class all
    weigh 0.

    Validated arrays in; see ``rust/src/gauc.rs`` for the method. Each group's AUC is
    ``2U / (2 P N)`` of its exact integers rounded once (with weights, each label's
    in units of its lowest bit): the float :func:`roc_auc_score` gives its rows alone.
    """
    k = compiled()
    # the kernels read contiguous arrays (a strided view of the caller's is copied);
    # the pair counts read float32 scores (rows an accumulator held so) as they are
    labels = np.ascontiguousarray(labels)
    wide = weights is not None or scores.dtype != np.float32
    scores = np.ascontiguousarray(scores, dtype=np.float64 if wide else np.float32)
    if weights is None:
        rows, positives, auc = k.pair_aucs(codes, n_groups, labels, scores)
        return auc, rows, rows.astype(np.float64), positives.astype(np.float64), None, 0
    rows, positives = k.group_counts(codes, n_groups, labels)
    auc, weighted_pos, weighted_neg, rounded_groups = k.weighted_group_aucs(
        codes, n_groups, labels, scores, np.ascontiguousarray(weights)
    )
    rounded = merged(RoundedWeights.of(r[1:], groups=1) for r in rounded_groups)
    weightless = int(np.count_nonzero(np.isnan(auc) & (positives > 0) & (positives < rows)))
    return auc, rows, weighted_pos + weighted_neg, weighted_pos, rounded, weightless


def warn_rounded_groups(rounded: RoundedWeights | None) -> None:
    """Warn where the groups' AUCs rounded their weights (``rounded``, merged over every
    batch and partition: once for the whole GAUC, on every backend): each group's AUC
    moves by at most the two labels' shares and its weight by at most as much
    relatively, so the mean by at most twice their largest sum."""
    bound = None if rounded is None else 2 * rounded.bound
    warn_rounded("gauc_score", rounded, bound)


def gauc_score(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    weighting: str | ArrayLike | Mapping[Any, float] = "impressions",
    sample_weight: ArrayLike | None = None,
    pos_label: Any = None,
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
        Binary labels (the positive class = click): 0/1, bools, {-1, 1}, or any
        two labels with ``pos_label``. Other values raise ``InputValidationError``.
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
        Per-sample weights, used inside each group's AUC and by ``weighting``; a
        ``RecevalWarning`` where one label's in a group span more than 126 bits, as
        :func:`roc_auc_score`'s.
    pos_label : int, str or bool, default=None
        The positive class (needed for labels other than {0, 1} and {-1, 1}),
        as :func:`roc_auc_score`'s.

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
    Each ``AUC_u`` is the float :func:`roc_auc_score` gives the rows of u alone
    (with their ``sample_weight``): exact, ties counting one half, rounded once.

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
    >>> clicked = ["y" if y else "n" for y in y_true]
    >>> gauc_score(clicked, y_score, groups=users, pos_label="y")
    0.75
    """
    params, columns = _gauc_arguments(y_true, y_score, groups, weighting, sample_weight, pos_label)
    result: float = run_definition(GAUC, params, columns, func="gauc_score")
    return result


def _gauc_one_call(params: dict[str, Any], columns: Any) -> float | None:
    """GAUC of plain NumPy input in one call of the compiled core, or None.

    0/1 labels of any dtype without ``pos_label``, float scores, integer (or whole
    float) group ids, float64 sample weights that the definition keeps as they are,
    and a named weighting: checked, grouped and summed as the definition does, so the
    same float; a value the checks refuse raises in their words. Anything else (other
    labels: the definition reads any two) and a result that needs a warning (no group
    with both classes) get None: the definition then says why."""
    y_true, y_score, groups = columns["y_true"], columns["y_score"], columns["groups"]
    sample_weight, weighting = columns.get("sample_weight"), params["weighting"]
    if not (
        type(y_true) is np.ndarray
        and type(y_score) is np.ndarray
        and type(groups) is np.ndarray
        and (sample_weight is None or type(sample_weight) is np.ndarray)
        and type(weighting) is str
        and columns.get("weighting") is None
        and params["pos_label"] is None
    ):
        return None
    result: float | v.Refusal | None = compiled().gauc_checked(
        y_true, y_score, groups, sample_weight, weighting
    )
    if isinstance(result, tuple) and result[0] == "binary01":
        return None  # labels other than 0/1: the definition reads them
    if isinstance(result, tuple):
        names = ("y_true", "y_score", "groups", "sample_weight")  # the core's arguments
        raise v.refused("gauc_score", result, {name: columns.get(name) for name in names})
    return result


def gauc_or_warn(
    score: float, n_groups: int, n_skipped: int | None = None, n_weightless: int = 0
) -> float:
    """``score``, or nan with an ``UndefinedMetricWarning`` when no group counted: no
    group has both classes, or (``n_skipped < n_groups``) those that have weigh zero;
    ``n_weightless`` of the groups skipped have both classes, but every row of one of
    them has a sample weight of 0."""
    if np.isnan(score) and n_skipped is not None and n_skipped < n_groups:
        return warn_undefined(
            f"gauc_score: every group that has both a positive and a negative sample "
            f"({n_groups - n_skipped:,} of {v.counted(n_groups, 'group')}) has weight zero, so "
            f"GAUC is undefined (returned as nan); give some of them a positive weight."
        )
    if np.isnan(score) and n_weightless:
        return warn_because("gauc_score", "GAUC",
                            f"no group has both a positive and a negative row of positive "
                            f"sample weight ({v.counted(n_groups, 'group')}, all skipped; in "
                            f"{n_weightless:,} of them both classes are present, but every "
                            f"row of one has a sample weight of 0)")  # fmt: skip
    if np.isnan(score):
        return warn_because("gauc_score", "GAUC",
                            f"no group has both a positive and a negative sample "
                            f"({v.counted(n_groups, 'group')}, all skipped)")  # fmt: skip
    return score


# ------------------------------------------------------------------ definition
# What receval.metric("gauc"), receval.scan columns and Spark run. With whole_groups (scans
# and Spark cut whole groups; receval.metric("gauc", whole_groups=True)) each update holds
# whole groups, reduced to exact sums, and a group given twice raises; without (the
# default) a group's rows may come in any number of updates and accumulators (._gauc_open).
@dataclass
class GroupState:
    """Exact GAUC sums, the ids of the groups seen and their type, and the rows' LabelKind."""

    totals: Any
    seen: Seen
    ids_kind: IdKind = NO_IDS
    labels: LabelKind = NO_LABELS

    #: ``merge``, ``absorb`` and ``check_disjoint`` take the caller, which a group in both names
    takes_caller: ClassVar[bool] = True
    seen_as: ClassVar[tuple[str, str]] = ("groups", "groups")  # a group in both, as named

    def merge(self, other: GroupState, func: str) -> GroupState:
        kind = self.ids_kind.join(other.ids_kind, MERGED)
        labels = self.labels.join(other.labels, MERGED)
        return GroupState(self.totals.merge(other.totals),
                          _joined(self.seen.merge, other.seen, func), kind, labels)  # fmt: skip

    def check_disjoint(self, other: GroupState, func: str) -> None:  # merge's check only
        _joined(self.seen.check_disjoint, other.seen, func)

    def absorb(self, other: GroupState, func: str) -> GroupState:
        kind = self.ids_kind.join(other.ids_kind, UPDATE)
        labels = self.labels.join(other.labels, UPDATE)
        _joined(self.seen.absorb, other.seen, func)
        self.totals = self.totals.merge(other.totals)
        self.ids_kind, self.labels = kind, labels
        return self


def _joined(join: Any, other: Seen, func: str) -> Any:
    """``join(other)`` of the groups' ids (or its check alone), ``func`` the caller; a group
    in both (states of whole_groups=True) raises, saying how to take split groups."""
    try:
        return join(other, func, *GroupState.seen_as)
    except InputValidationError as error:
        raise InputValidationError(
            f"{str(error)[:-1]}; or leave out whole_groups=True: receval.metric('gauc') "
            f"takes a group's rows in any number of updates and accumulators."
        ) from None


def _gauc_params(
    func: str,
    /,
    weighting: str | Mapping[Any, float] = "impressions",
    whole_groups: bool = True,
    pos_label: Any = None,
) -> dict[str, Any]:
    if not is_option_value(weighting):
        raise InvalidParameterError(
            f"The 'weighting' parameter of {func} must be one of {_WEIGHTINGS!r} or a "
            f"mapping from group to weight. Got {type(weighting).__name__} instead; pass "
            f"per-row group weights to update(..., weighting=...)."
        )
    if isinstance(weighting, str):
        v.check_option(weighting, "weighting", func, _WEIGHTINGS)
    return {"weighting": _plain(weighting), "whole_groups": whole_groups, "pos_label": pos_label}


def _gauc_prepare(
    params: dict[str, Any],
    y_true: Any,
    y_score: Any,
    *,
    groups: Any,
    sample_weight: Any = None,
    weighting: Any = None,
) -> Any:
    if is_option_value(weighting) and _plain(weighting) != _plain(params["weighting"]):
        # whole groups or not: a group's weight is of the accumulator's weighting
        shown = weighting if isinstance(weighting, str) else "a mapping"
        raise InputValidationError(
            f"gauc_score: update(weighting={shown!r}) differs from the accumulator's "
            f"weighting {params['weighting']!r}, which compute() applies to every "
            f"group; make the accumulator with receval.metric('gauc', "
            f"weighting=...) instead."
        )
    if _rows(y_true) == 0:  # an empty batch adds nothing
        data_columns("gauc_score", ("y_true", y_true), ("y_score", y_score),
                     ("groups", groups), ("sample_weight", sample_weight))  # fmt: skip
        return None
    # any two labels, read as the binary metrics read them: 0/1 (int8) and the pair given
    yt = v.as_1d(y_true, "y_true", "gauc_score")
    labels, negative = v.binarize_labels(yt, params["pos_label"], "gauc_score")
    kind = LabelKind.of(negative, params["pos_label"], "gauc_score")
    w = params["weighting"] if weighting is None else weighting  # a batch's per-row weights
    return labels, y_score, groups, sample_weight, w, kind


def _rows(column: Any) -> int | None:
    """The length of a column, None where it has none (the checks then say so)."""
    try:
        return len(column)
    except TypeError:
        return None


def _gauc_update(params: dict[str, Any], batch: Any) -> GroupState | OpenGroups:
    import warnings

    from ..engine.totals import group_totals
    from ..exceptions import UndefinedMetricWarning

    if batch is None:
        return _gauc_empty(params)
    if not params["whole_groups"]:
        return _open_update(params, OpenGroups(), batch)
    y_true, y_score, groups, sample_weight, weighting, labels = batch
    with warnings.catch_warnings():  # a batch of one-class groups is no error: finalize says
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        (ids, auc, group_w, rows, _, shift), rounded, weightless = group_values(
            y_true, y_score, groups, weighting, sample_weight, "gauc_score"
        )
    seen = Seen()
    seen.add(ids, "gauc_score", GroupState.seen_as[0])
    return GroupState(group_totals(auc, group_w, rows, shift, rounded, weightless), seen,
                      IdKind.of(ids, "gauc_score"), labels)  # fmt: skip


def _gauc_update_into(
    params: dict[str, Any], state: GroupState | OpenGroups, batch: Any
) -> OpenGroups | None:
    """The accumulator's own rows: the batch's join them (a state of whole groups: None,
    the batch's own state is absorbed)."""
    if batch is None:
        return state if isinstance(state, OpenGroups) else None
    return _open_update(params, state, batch) if isinstance(state, OpenGroups) else None


def _open_update(params: dict[str, Any], state: OpenGroups, batch: Any) -> OpenGroups:
    """A batch's rows added to those held (a per-row ``weighting``: as each group's
    weight, checked now; a named one is the accumulator's, as prepared)."""
    y_true, y_score, groups, sample_weight, weighting, labels = batch
    named = is_option_value(weighting)

    def per_group(ids: np.ndarray, codes: np.ndarray) -> np.ndarray | None:
        if named:
            return None
        return group_weights(weighting, ids, codes, np.empty(0), np.empty(0), "gauc_score")[0]

    return state.add(y_true, y_score, groups, sample_weight, per_group, labels)


def _gauc_update_plain(
    params: dict[str, Any], state: GroupState | OpenGroups, columns: tuple[Any, ...]
) -> OpenGroups | None:
    """A batch of plain NumPy 0/1 labels (no ``pos_label``), scores and integer group
    ids (no sample weights, the accumulator's named weighting) of an accumulator that
    holds rows, checked and held by the core in one call (None: other input, or a value
    the core refuses, which the full update words)."""
    y_true, y_score, groups, sample_weight, weighting = columns
    if (
        sample_weight is not None
        or weighting is not None
        or not isinstance(state, OpenGroups)
        or not (is_option_value(params["weighting"]) or params["weighting"] is None)
        or params["pos_label"] is not None
        or not plain_pair(y_true, y_score, None)
        or type(groups) is not np.ndarray
        or groups.shape != y_true.shape
    ):
        return None
    return state if state.add_checked(y_true, y_score, groups) else None


def _plain(weighting: Any) -> Any:
    """A named weighting as a comparable value (a mapping as a dict)."""
    return dict(weighting) if is_mapping(weighting) else weighting


def open_report(
    state: OpenGroups, weighting: Any
) -> tuple[GroupAUCReport, RoundedWeights | None, int]:
    """The report of every row an :class:`OpenGroups` holds (``weighting``: the
    metric's named or mapped weighting; a per-row one was held with the rows), the
    groups whose weights their AUCs rounded, and how many groups have both classes but
    no AUC (a class's rows all of sample weight 0)."""
    if not state.n_rows:
        raise InputValidationError("gauc_score: no rows were given; call update first.")
    ids, codes, labels, scores, weights, group_weight = state.grouped()
    weights = v.check_sample_weight(weights, len(codes), "gauc_score")
    weights, shift = scaled_weights(weights)
    auc, rows, weight, weighted_pos, rounded, weightless = grouped_auc_kernel(
        codes, len(ids), labels, scores, weights
    )
    if group_weight is not None:
        group_w, used = group_weight, "custom"
    else:
        group_w, used = group_weights(weighting, ids, codes, weight, weighted_pos, "gauc_score")
    group_w, shift = _at_scale(group_w, used, shift)
    return GroupAUCReport.of_groups(ids, auc, group_w, rows, used, shift), rounded, weightless


def _gauc_empty(params: dict[str, Any]) -> GroupState | OpenGroups:
    from ..engine.totals import EMPTY_GROUP_TOTALS

    if not params["whole_groups"]:
        return OpenGroups()
    return GroupState(EMPTY_GROUP_TOTALS, Seen())


def _gauc_grouped(
    params: dict[str, Any], state: GroupState | OpenGroups
) -> tuple[float, dict[str, int], str]:
    """The GAUC with the counts of the groups it leaves out (one class); warns once
    where their AUCs rounded the weights of some groups."""
    if isinstance(state, OpenGroups):
        if not state.n_rows:
            return gauc_or_warn(float("nan"), 0), {}, _ONE_CLASS
        report, rounded, weightless = open_report(state, params["weighting"])
        score, skipped = report.score, (report.n_groups_skipped, report.n_rows_skipped)
        n_groups = report.n_groups
    else:
        totals = state.totals
        score, skipped = totals.score, (totals.n_groups_skipped, totals.n_rows_skipped)
        n_groups, rounded, weightless = totals.n_groups, totals.rounded, totals.n_groups_weightless
    warn_rounded_groups(rounded)
    counts = {"n_groups": n_groups, "n_groups_skipped": skipped[0], "n_rows_skipped": skipped[1]}
    return gauc_or_warn(score, n_groups, skipped[0], weightless), counts, _ONE_CLASS


_ONE_CLASS = "without both a click and a non-click"


def _gauc_finalize(params: dict[str, Any], state: GroupState | OpenGroups) -> float:
    return _gauc_grouped(params, state)[0]


GAUC = register(
    MetricDefinition(
        name="gauc",
        check_params=_gauc_params,
        prepare=_gauc_prepare,
        update=_gauc_update,
        empty=_gauc_empty,
        finalize=_gauc_finalize,
        one_partition=_gauc_one_call,
        update_into=_gauc_update_into,
        update_plain=_gauc_update_plain,
        grouped=_gauc_grouped,
        splits_groups=True,
        checks_caller=True,  # the option messages name the caller (a batch's: MetricDefinition.add)
    ),
)


# group_auc: the same batches of whole groups, their per-group values kept
@dataclass
class _Reports:
    """The reports of batches of whole groups (O(groups) memory, as the report), the
    labels of their rows, and the groups whose weights their AUCs rounded."""

    parts: list[GroupAUCReport]
    labels: LabelKind = NO_LABELS
    rounded: RoundedWeights | None = None

    def merge(self, other: _Reports) -> _Reports:
        return _Reports(self.parts + other.parts, self.labels.join(other.labels, UPDATE),
                        merged((self.rounded, other.rounded)))  # fmt: skip


def _report_update(params: dict[str, Any], batch: Any) -> _Reports:
    y_true, y_score, groups, sample_weight, weighting, labels = batch
    values, rounded, _ = group_values(y_true, y_score, groups, weighting, sample_weight,
                                      "gauc_score")  # fmt: skip
    return _Reports([GroupAUCReport.of_groups(*values)], labels, rounded)


def _report_finalize(params: dict[str, Any], state: _Reports) -> GroupAUCReport:
    warn_rounded_groups(state.rounded)
    parts = state.parts
    if len(parts) == 1:
        return parts[0]
    used = {p.weighting for p in parts}
    groups, auc, weight, rows = (
        np.concatenate([getattr(p, k) for p in parts])
        for k in ("groups", "auc", "weight", "n_rows")
    )
    weighting = used.pop() if len(used) == 1 else "custom"
    # each part's weights at their own scale: the mean of all at one scale
    scaled, shift = scaled_by_shift(weight)
    return GroupAUCReport.of_groups(groups, auc, scaled, rows, weighting, shift)


_GAUC_REPORT = MetricDefinition(
    name="group_auc_report",
    family="grouped",
    partitioning="groups",
    description="the per-group AUCs of gauc_score",
    higher_is_better=True,
    inputs=GAUC.inputs,
    check_params=_gauc_params,
    prepare=_gauc_prepare,
    update=_report_update,
    empty=lambda params: _Reports([]),
    finalize=_report_finalize,
    checks_caller=True,
)

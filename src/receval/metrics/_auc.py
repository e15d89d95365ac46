"""Areas under the ROC and precision-recall curves, and the break-even point."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .. import _validation as v
from .._kernels import compiled
from ..conventions import undefined_value
from ..data._lookup import distinct
from ..engine.kinds import UPDATE, LabelKind
from ..engine.metric import MetricDefinition, always, data_columns, register
from ..engine.rounding import RoundedWeights, merged, warn_rounded
from ..engine.sources import range_state, run_definition
from ..engine.states import (
    AUCCounts,
    BinnedCounts,
    LabelledRows,
    RangeStates,
    ScoreCounts,
    plain_pair,
)
from ..engine.window import add_decayed
from ..exceptions import (
    InputValidationError,
    InvalidParameterError,
    UndefinedMetricWarning,
)
from ._binary import data_ndim, sort_classes, threshold_counts
from ._multiclass import BinaryMetric, multiclass_score
from ._pr_values import CurveValue, average_precision, break_even, curve_value, pr_auc
from ._undefined import warn_counts_undefined, warn_lacking_class

__all__ = ["average_precision_score", "break_even_point", "pr_auc_score", "roc_auc_score"]

# the one-call AUC sorts in the core; NumPy's vectorised sorts catch up near 8Ki rows
_FAST_ROWS = 1 << 12


# --------------------------------------------------------------- counts per distinct score
def score_table(labels: np.ndarray, scores: np.ndarray, weights: np.ndarray | None) -> ScoreCounts:
    """The rows (weights) of each class per distinct score of validated rows: the state
    of one batch (rows of weight 0 are left out)."""
    counts = ScoreCounts(weights is not None)
    counts.add(labels, scores, weights)
    return counts


def _roc_auc_binary(labels: np.ndarray, scores: np.ndarray, weights: np.ndarray | None) -> float:
    """The AUC of one class against the rest: the definition's state, nan for one class."""
    return score_table(labels, scores, weights).auc()


def _counts_value(value: CurveValue, counts: ScoreCounts, func: str) -> float:
    """``value`` of a state's counts; a warning where one label's weights spanned more
    than its unit holds (their smallest rounded up to a unit each), as precision then
    reads tiny weights as far larger ones (no bound)."""
    warn_rounded(func, counts.rounded, None)
    _, pos, neg, shift = counts.table()
    tps = np.cumsum(pos[::-1], dtype=np.float64)
    return curve_value(value, tps, np.cumsum(neg[::-1], dtype=np.float64), shift)


def _rows_value(
    value: CurveValue,
    func: str,
    labels: np.ndarray,
    scores: np.ndarray,
    weights: np.ndarray | None,
) -> float:
    """``value`` of validated rows: the counts of their table, which without weights are
    the compiled core's cumulative counts (integers, exact: the same floats)."""
    if weights is None:
        return curve_value(value, *threshold_counts(sort_classes(labels, scores, None))[1:])
    return _counts_value(value, score_table(labels, scores, weights), func)


def _roc_auc_one_call(params: dict[str, Any], columns: Any) -> float | None:
    """The exact AUC of one in-memory partition (None with bins): every row at once, so
    integer scores beyond 2**53 are ranked exactly, as the state of one score range
    (weighted or not: no run of counts per distinct score is built). Plain NumPy
    input (0/1 labels, finite float scores, up to 4Ki rows, both classes) takes one
    call of the compiled core: the same integer pair count and division; a value it
    refuses raises in the checks' words, and other input (and one class) is left to
    the definition's checks and warning."""
    if params["bins"] is not None:
        return None
    y_true, y_score = columns["y_true"], columns["y_score"]
    sample_weight = columns.get("sample_weight")
    if (
        type(y_true) is np.ndarray
        and type(y_score) is np.ndarray
        and sample_weight is None
        and params["pos_label"] is None
        and y_true.size <= _FAST_ROWS
    ):
        result: float | v.Refusal | None = compiled().roc_auc_checked(y_true, y_score)
        if isinstance(result, tuple):
            raise v.refused(_AUC, result, {"y_true": y_true, "y_score": y_score})
        if result is not None:
            return result
    batch = auc_prepare(params, y_true, y_score, sample_weight, rank=True)
    v.check_not_empty(len(batch.labels), "y_true", _AUC)
    value: float = _auc_finalize(params, range_state(ROC_AUC, params, batch))
    return value


# --------------------------------------------------------------- dispatch
def _score(
    defn: MetricDefinition,
    func: str,
    y_true: Any,
    y_score: Any,
    sample_weight: Any,
    *,
    pos_label: Any,
    undefined: float | str | None = None,
    multiclass: tuple[BinaryMetric, Any, Any, str] | None = None,
    **run: Any,
) -> float | np.ndarray:
    """The function of a binary score: its definition run on the rows (arrays: one
    partition; scan columns: as its partitioning says). ``undefined`` replaces nan and
    its warning; with a score column per class, ``multiclass`` = ``(binary, average,
    labels, multi_class)`` scores each class (or pair) with ``binary``."""
    if multiclass is not None:  # checked on binary input too, as scikit-learn does
        v.check_option(multiclass[1], "average", func, ["macro", "weighted", "micro", None])
        v.check_option(multiclass[3], "multi_class", func, ["raise", "ovr", "ovo"])
    if multiclass is not None and data_ndim(y_score) == 2:  # a column per class, or one
        scores = v.as_array(y_score, "y_score", func)
        if scores.shape[1] == 2 and len(distinct(v.as_1d(y_true, "y_true", func))) <= 2:
            raise InputValidationError(
                f"{func}: y_true is binary but y_score has 2 columns (shape {scores.shape}); "
                f"binary input takes one score per row: pass y_score[:, 1], the positive "
                f"class's column (scikit-learn also refuses a 2-D y_score here)."
            )
        if scores.shape[1] > 1:
            if pos_label is not None and pos_label != 1:
                raise InvalidParameterError(
                    f"{func}: pos_label applies to binary input only; with one score column "
                    f"per class every class is positive in turn. Got pos_label={pos_label!r}; "
                    f"leave it None."
                )
            return multiclass_score(
                func, multiclass[0], y_true, scores, sample_weight, *multiclass[1:]
            )
        y_score = scores[:, 0]
    params = defn.check_params(pos_label=pos_label)
    columns = {"y_true": y_true, "y_score": y_score, "sample_weight": sample_weight}
    with warnings.catch_warnings():
        if undefined is not None:  # the value replaces nan and its warning
            warnings.simplefilter("ignore", UndefinedMetricWarning)
        result: float = run_definition(defn, params, columns, func=func, **run)
    return float(undefined) if undefined is not None and np.isnan(result) else result


# --------------------------------------------------------------- public
def roc_auc_score(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    pos_label: Any = None,
    average: str | None = "macro",
    multi_class: str = "raise",
    labels: ArrayLike | None = None,
    if_undefined: float | None = None,
    profile: str | None = None,
) -> float | np.ndarray:
    """Compute the exact area under the ROC curve.

    The AUC is the probability that a random positive scores higher than a
    random negative, tied pairs counting one half. It is computed exactly, ties
    included, in O(n log n): the scores of each class are sorted separately
    and the pairs are counted in one merge pass, in integers when there are no
    weights (no rounding until the final division).

    Columns of a :func:`receval.scan` (files larger than memory) are read
    batch by batch in bounded memory; the AUC stays exact (see ``docs/conventions.md``,
    "Out of core").

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels. Binary: 0/1, bools, {-1, 1}, or any two labels (the
        greater one is positive unless ``pos_label`` says otherwise).
        Multiclass: any labels, with ``y_score`` of shape (n_samples, n_classes).
    y_score : array-like of shape (n_samples,) or (n_samples, n_classes)
        Scores; only their order matters.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights: a pair counts ``w_pos * w_neg``. Exact while one label's
        span at most 126 bits; beyond, a ``RecevalWarning`` bounds the error.
    pos_label : int, str or bool, default=None
        The positive class for binary input.
    average : {"macro", "weighted", "micro", None}, default="macro"
        Multiclass only: how per-class (or per-pair) AUCs are averaged;
        ``"weighted"`` weights by class support; ``None`` returns per-class values
        (``"ovr"``); ``"micro"`` pools all (sample, class) cells (``"ovr"``).
    multi_class : {"raise", "ovr", "ovo"}, default="raise"
        Multiclass only: one-vs-rest, or one-vs-one (Hand & Till 2001). Must be
        chosen explicitly, as in scikit-learn. Unlike scikit-learn, ``"ovo"``
        accepts sample weights. As in scikit-learn, ``"ovo"`` averages over the
        pairs of classes present in ``y_true``: a class of ``labels`` without
        samples forms no pair.
    labels : array-like of shape (n_classes,), default=None
        Multiclass only: the class of each column of ``y_score`` (default:
        the sorted distinct values of ``y_true``).
    if_undefined : float, default=None
        Binary input whose ``y_true`` has a single class: None returns nan with
        an ``UndefinedMetricWarning`` (as scikit-learn); a number is returned as
        the value, without a warning (``if_undefined=0.0`` gives torchmetrics'
        ``BinaryAUROC``).
    profile : str, default=None
        A peer's answer where the AUC is undefined (see
        ``receval.conventions.PROFILE_UNDEFINED``): ``"torchmetrics"`` gives 0.0,
        ``"torchrec"`` 0.5; ``"sklearn"`` and the others nan. ``if_undefined``
        overrides it.

    Returns
    -------
    auc : float or ndarray
        In [0, 1]. ``nan`` with an ``UndefinedMetricWarning`` when ``y_true``
        has a single class, as scikit-learn, or when every row of one class has
        a sample weight of 0 (see ``if_undefined``).

    Raises
    ------
    InputValidationError
        NaN or infinite scores, lengths that differ, empty input.

    See Also
    --------
    roc_curve : The curve itself.
    gauc_score : AUC per user, averaged.

    Notes
    -----
    ``AUC = (#{(p, n): s_p > s_n} + 0.5 #{(p, n): s_p = s_n}) / (P N)``.

    Examples
    --------
    >>> from receval import roc_auc_score
    >>> roc_auc_score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.75
    >>> roc_auc_score([0, 1, 1], [0.5, 0.5, 0.9])  # a tie counts one half
    0.75
    >>> roc_auc_score([1, 1], [0.25, 0.75], profile="torchmetrics")  # one class
    0.0
    >>> roc_auc_score(["cat", "dog", "bird"],
    ...               [[0.2, 0.7, 0.1], [0.1, 0.3, 0.6], [0.6, 0.2, 0.2]],
    ...               multi_class="ovr", labels=["bird", "cat", "dog"])
    1.0
    """
    func = "roc_auc_score"
    return _score(
        ROC_AUC, func, y_true, y_score, sample_weight, pos_label=pos_label,
        undefined=undefined_value(profile, "roc_auc", func, if_undefined),
        multiclass=(_roc_auc_binary, average, labels, multi_class),
        memory_only={"multi_class": (multi_class, "raise"), "labels": (labels, None)},
        why="out of core only binary AUC is available (one score column)",
        arrays=_greater_positive if pos_label is None else None,
    )  # fmt: skip


def _greater_positive(data: dict[str, Any]) -> dict[str, Any]:
    """scikit-learn's rule for roc_auc_score: of two labels, the greater is positive."""
    func = "roc_auc_score"
    yt = v.as_1d(data["y_true"], "y_true", func)
    if yt.size == 0 or (yt.dtype.kind in "biuf" and yt.min() >= 0 and yt.max() <= 1):
        return data  # 0/1 labels: 1 is positive
    v.check_no_missing(yt, "y_true", func)
    if yt.dtype.kind in "OU":  # numbers mixed with strings (a list's become strings)
        yt = v.as_class_labels(data["y_true"], "y_true", func)
    classes = distinct(yt)
    if len(classes) > 2:
        raise InputValidationError(
            f"{func}: y_true has {len(classes)} classes {v.format_values(classes)} but y_score "
            f"is 1-dimensional; pass one score column per class and multi_class='ovr' or 'ovo'.",
            classes=classes.tolist(),
        )
    return data | {"y_true": (yt == classes[-1]).view(np.int8)}


_PR_PARAMETERS = """\
    y_true : array-like of shape (n_samples,)
        Binary labels (0/1, bools, {-1, 1}, or any two labels with
        ``pos_label``), or multiclass labels with 2-D ``y_score``.
    y_score : array-like of shape (n_samples,) or (n_samples, n_classes)
        Scores; a higher score means more likely positive.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights.
    pos_label : int, str or bool, default=None
        The positive class for binary input.
    average : {"macro", "weighted", "micro", None}, default="macro"
        Multiclass only (one-vs-rest): see :func:`roc_auc_score`.
    labels : array-like of shape (n_classes,), default=None
        Multiclass only: the class of each column of ``y_score``."""


def _pr_parameters(func: Any) -> Any:
    """Write the parameters the P-R areas share in place of ``{parameters}``."""
    func.__doc__ = func.__doc__.replace("    {parameters}", _PR_PARAMETERS)
    return func


@_pr_parameters
def average_precision_score(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    pos_label: Any = None,
    average: str | None = "macro",
    labels: ArrayLike | None = None,
    if_undefined: float | None = None,
    profile: str | None = None,
) -> float | np.ndarray:
    """Compute average precision: the step-wise area under the P-R curve.

    ``AP = sum_n (R_n - R_{n-1}) P_n`` over the distinct thresholds, in
    decreasing order, with no interpolation: scikit-learn's definition.

    Parameters
    ----------
    {parameters}
    if_undefined : float, default=None
        Binary input without a positive sample: None returns nan with an
        ``UndefinedMetricWarning``; a number is returned as the value, without a
        warning (``if_undefined=0.0`` gives scikit-learn's and torchmetrics'
        number).
    profile : str, default=None
        A peer's answer where AP is undefined (see
        ``receval.conventions.PROFILE_UNDEFINED``): ``"sklearn"`` and
        ``"torchmetrics"`` give 0.0; the others nan. ``if_undefined`` overrides it.

    Returns
    -------
    ap : float or ndarray
        In [0, 1]; ``nan`` with an ``UndefinedMetricWarning`` when there is no
        positive sample, or none of positive weight (see ``if_undefined``).

    See Also
    --------
    pr_auc_score : The trapezoidal area (Spark's areaUnderPR).
    precision_recall_curve : The curve itself.

    Examples
    --------
    >>> from receval import average_precision_score
    >>> average_precision_score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.8333
    >>> average_precision_score([0, 0], [0.25, 0.75], if_undefined=0.0)  # scikit-learn's 0.0
    0.0
    >>> average_precision_score([0, 0], [0.25, 0.75], profile="sklearn")
    0.0
    """
    func = "average_precision_score"
    return _score(
        AVERAGE_PRECISION, func, y_true, y_score, sample_weight, pos_label=pos_label,
        undefined=undefined_value(profile, "average_precision", func, if_undefined),
        multiclass=(partial(_rows_value, average_precision, func), average, labels, "ovr"),
    )  # fmt: skip


@_pr_parameters
def pr_auc_score(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    pos_label: Any = None,
    average: str | None = "macro",
    labels: ArrayLike | None = None,
) -> float | np.ndarray:
    """Compute the area under the P-R curve by the trapezoidal rule.

    The curve has one point (recall, precision) per distinct threshold, in
    decreasing threshold order, and starts at (0, precision of the highest
    threshold): the definition of Spark's
    ``BinaryClassificationMetrics.areaUnderPR``. Linear interpolation of
    precision is optimistic; :func:`average_precision_score` is the
    conservative step-wise area.

    Parameters
    ----------
    {parameters}

    Returns
    -------
    area : float or ndarray
        In [0, 1]; ``nan`` with an ``UndefinedMetricWarning`` when there is no
        positive sample, or none of positive weight.

    See Also
    --------
    average_precision_score : Step-wise area (scikit-learn's).

    Examples
    --------
    >>> from receval import pr_auc_score
    >>> pr_auc_score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.7916
    """
    return _score(
        PR_AUC, "pr_auc_score", y_true, y_score, sample_weight, pos_label=pos_label,
        multiclass=(partial(_rows_value, pr_auc, "pr_auc_score"), average, labels, "ovr"),
    )  # fmt: skip


def break_even_point(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    pos_label: Any = None,
) -> float:
    """Compute the precision-recall break-even point (平衡点).

    The value at which precision equals recall on the P-R curve. Precision
    and recall are equal exactly when the number (weight) of predicted
    positives equals the number (weight) of actual positives, so the
    break-even point is the precision at that cut-off: the R-precision of the
    ranking. When the cut-off falls inside a block of tied scores, the counts
    are interpolated linearly inside the block, which is the expected value
    over all orders of the tied rows.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels.
    y_score : array-like of shape (n_samples,)
        Scores; a higher score means more likely positive.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights.
    pos_label : int, str or bool, default=None
        The positive class.

    Returns
    -------
    bep : float
        In [0, 1]; ``nan`` with an ``UndefinedMetricWarning`` when there is no
        positive sample, or none of positive weight.

    See Also
    --------
    precision_recall_curve : The curve on which the point lies.

    Examples
    --------
    >>> from receval import break_even_point
    >>> break_even_point([1, 0, 1, 0, 0], [0.9, 0.8, 0.7, 0.2, 0.1])  # 1 hit in the top 2
    0.5
    >>> break_even_point([1, 0, 1, 0], [0.9, 0.5, 0.5, 0.1])  # tie across the cut-off
    0.75
    """
    return float(_score(BREAK_EVEN_POINT, "break_even_point", y_true, y_score, sample_weight,
                        pos_label=pos_label))  # fmt: skip


# ------------------------------------------------------------------ definition
# What receval.metric("roc_auc"), receval.scan columns and Spark run: exact counts
# per distinct score (any split), counts per disjoint score range (out of core and
# on Spark), or counts per fixed bin (bins=N, constant memory, certified bound).
_AUC = "roc_auc_score"


@dataclass(frozen=True)
class BinnedAUC:
    """A binned ROC AUC and the certified bound on its error.

    Attributes
    ----------
    value : float
        The AUC of the bins (pairs in one bin count one half).
    error_bound : float
        The exact AUC of the rows lies within ``value +- error_bound``: half the
        share of positive-negative pairs that fall in one bin.
    """

    value: float
    error_bound: float


def _auc_params(
    bins: int | None = None, range: tuple[float, float] = (0.0, 1.0), pos_label: Any = None
) -> dict[str, Any]:
    if bins is None:
        return {"bins": None, "pos_label": pos_label}
    n = v.check_number(bins, "bins", _AUC, integer=True, low=1, high=2**26)
    try:
        low, high = (float(x) for x in range)
    except (TypeError, ValueError):
        raise InvalidParameterError(
            f"The 'range' parameter of {_AUC} must be a pair (low, high). Got {range!r} instead."
        ) from None
    if not (np.isfinite(low) and np.isfinite(high) and low < high):
        raise InvalidParameterError(
            f"The 'range' parameter of {_AUC} must be finite with low < high. "
            f"Got {range!r} instead."
        )
    return {"bins": int(n), "low": low, "high": high, "pos_label": pos_label}


def counts_prepare(func: str, score_name: str = "y_score") -> Callable[..., LabelledRows]:
    """The ``prepare`` of a metric of labels, scores and weights, naming ``func`` (and
    the scores ``score_name``)."""

    def prepare(
        params: dict[str, Any],
        y_true: Any,
        y_score: Any,
        sample_weight: Any = None,
        *,
        rank: bool = False,
    ) -> LabelledRows:
        """Validated labels, float64 scores and weights of a batch, and the labels it
        was given; ``rank``: the batch holds every row (one partition), so integer
        scores beyond 2**53 may be replaced by their ranks, which float64 keeps apart."""
        yt, ys, sw = data_columns(
            func, ("y_true", y_true), (score_name, y_score), ("sample_weight", sample_weight)
        )
        labels, negative = np.empty(0, dtype=np.int8), None
        if len(yt):  # 0/1 or -1/1 labels, or pos_label: as the function
            labels, negative = v.binarize_labels(yt, params["pos_label"], func)
        scores = v.order_scores(ys, score_name, func, rank=rank)
        weights = v.check_sample_weight(sw, len(labels), func)
        return LabelledRows(labels, scores, weights,
                            LabelKind.of(negative, params["pos_label"], func))  # fmt: skip

    return prepare


auc_prepare = counts_prepare(_AUC)


def auc_empty(params: dict[str, Any]) -> Any:
    if params["bins"] is None:
        return AUCCounts(ScoreCounts(False), ScoreCounts(True))
    return BinnedCounts(params["bins"], params["low"], params["high"], weighted=True)


def auc_update(params: dict[str, Any], batch: LabelledRows, state: Any = None) -> Any:
    state = auc_empty(params) if state is None else state
    labels, scores, weights, kind = batch
    state.labels = state.labels.join(kind, UPDATE)  # before a row is added
    if isinstance(state, BinnedCounts):
        state.add(labels, scores, weights)
        return state
    if params.get("decay") is not None:  # receval.metric(..., decay=): rows weighed by age
        factor, shift = state.clock.step(params["decay"])
        state.weighted.runs.scale_down(shift)
        if weights is None:
            weights = np.full(len(labels), factor)
        else:
            add_decayed(state.weighted, labels, scores, weights, factor, _AUC)
            return state
    (state.plain if weights is None else state.weighted).add(labels, scores, weights)
    return state


def auc_update_into(params: dict[str, Any], state: Any, batch: Any) -> Any:
    return auc_update(params, batch, state)


def counts_update_plain(func: str) -> Callable[[dict[str, Any], Any, tuple[Any, ...]], Any]:
    """The ``update_plain`` of a metric of :class:`AUCCounts`, naming ``func``."""

    def update_plain(params: dict[str, Any], state: Any, columns: tuple[Any, ...]) -> Any:
        """Plain NumPy 0/1 labels and float scores without weights, checked and counted in
        one call of the core (None: other input, a value it refuses, -1/1 labels held)."""
        y_true, y_score, sample_weight = columns
        if (
            not plain_pair(y_true, y_score, sample_weight)
            or params["pos_label"] is not None
            or params.get("decay") is not None
            or not isinstance(state, AUCCounts)
            or state.labels.value not in (None, (0, 1))
        ):
            return None
        if state.plain.runs.add_checked(y_true, y_score) is not True:
            return None
        if state.labels.value is None and y_true.min() == 0:  # 0/1 labels, a 0 among them
            state.labels = LabelKind.of(0, None, func)
        return state

    return update_plain


def _auc_range(
    params: dict[str, Any],
    pos: np.ndarray,
    neg: np.ndarray,
    pos_w: np.ndarray | None,
    neg_w: np.ndarray | None,
) -> RangeStates:
    """The state of every row of one score range (scores float64, or float32 where
    they were read from a float32 column; unweighted, sorted in place; weighted, in
    any order: the core sorts them with their weights)."""
    from .._kernels import sort_numbers
    from ..engine.totals import ScoreRange
    from ._binary import sort_chunks

    k = compiled()

    if len(pos) + len(neg) == 0:
        return RangeStates(())
    if pos_w is not None and neg_w is not None:
        quantum, n_pos, n_neg, two_u, low, high, rounded = k.weighted_range(pos, pos_w, neg, neg_w)
        state = ScoreRange(low, high, n_pos, n_neg, two_u, quantum, RoundedWeights.of(rounded))
        return RangeStates((state,))
    # exact integer pair counts
    sort_numbers(pos)
    parts = [pos, *sort_chunks(neg)]
    two_u = sum(int(k.pair_count_sorted(pos, chunk)) for chunk in parts[1:])
    ends = [x for a in parts if len(a) for x in (a[0], a[-1])]
    low, high = float(min(ends)), float(max(ends))
    return RangeStates((ScoreRange(low, high, len(pos), len(neg), two_u),))


def _auc_finalize(params: dict[str, Any], state: Any) -> Any:
    if isinstance(state, BinnedCounts):
        value, bound = state.auc_and_bound()
        if np.isnan(value):
            # the bins hold weights (1 a row without them): a label that weighs nothing
            # had rows of weight 0 where it has rows
            positive, negative = bool(state.pos.any()), bool(state.neg.any())
            rows = state.n_neg_rows if positive else state.n_pos_rows
            warn_lacking_class(_AUC, "the AUC", positive, negative, weighted=rows > 0)
        return BinnedAUC(value, bound)
    if isinstance(state, RangeStates):
        from ..engine.totals import auc_from_ranges

        value = auc_from_ranges(state.ranges)
        rounded = merged(r.rounded for r in state.ranges)
        if np.isnan(value):  # each range's weight (or rows) per class
            return warn_lacking_class(
                _AUC, "the AUC", any(r.positives for r in state.ranges),
                any(r.negatives for r in state.ranges),
                weighted=any(r.quantum is not None for r in state.ranges),
            )  # fmt: skip
    else:
        counts = state.counts(_AUC)
        value, rounded = counts.auc(), counts.rounded
        if np.isnan(value):
            return warn_counts_undefined(counts, _AUC, "the AUC")
    # each label's weights enter the AUC as a weighted mean: it moves by at most their shares
    warn_rounded(_AUC, rounded, None if rounded is None else rounded.bound)
    return float(value)


ROC_AUC = register(
    MetricDefinition(
        name="roc_auc",
        check_params=_auc_params,
        prepare=auc_prepare,
        update=auc_update,
        empty=auc_empty,
        finalize=_auc_finalize,
        update_into=auc_update_into,
        update_plain=counts_update_plain(_AUC),
        ranges=_auc_range,
        one_partition=_roc_auc_one_call,
        scale_free=always,
    ),
)


# ------------------------------------------------------------------ curve definitions
# Average precision, the trapezoidal P-R area and the break-even point are functions
# of the exact AUC's counts per distinct score: the same state, any split of the rows.
def _curve_params(pos_label: Any = None) -> dict[str, Any]:
    return {"bins": None, "pos_label": pos_label}


def _curve_definition(name: str, func: str, value: CurveValue) -> MetricDefinition:
    prepare = counts_prepare(func)

    def counted(counts: ScoreCounts) -> float:
        """The value of counts, or nan with the reason no positive counted."""
        result = _counts_value(value, counts, func)
        return warn_counts_undefined(counts, func, "it", both=False) if np.isnan(result) else result

    def one_partition(params: dict[str, Any], columns: Any) -> float:
        """The steps on every row at once: integer scores beyond 2**53 ranked exactly."""
        data = (columns["y_true"], columns["y_score"], columns.get("sample_weight"))
        labels, scores, weights, _ = prepare(params, *data, rank=True)
        v.check_not_empty(len(labels), "y_true", func)
        if weights is not None:
            return counted(score_table(labels, scores, weights))
        result = _rows_value(value, func, labels, scores, None)
        if np.isnan(result):  # rows without weights: no positive, and negatives
            return warn_lacking_class(func, "it", False, True, weighted=False, both=False)
        return result

    return register(
        MetricDefinition(
            name=name,
            check_params=_curve_params,
            prepare=prepare,
            update=auc_update,
            empty=auc_empty,
            finalize=lambda params, state: counted(state.counts(func)),
            update_into=auc_update_into,
            update_plain=counts_update_plain(func),
            one_partition=one_partition,
            scale_free=always,
        )
    )


AVERAGE_PRECISION = _curve_definition(
    "average_precision", "average_precision_score", average_precision
)
PR_AUC = _curve_definition("pr_auc", "pr_auc_score", pr_auc)
BREAK_EVEN_POINT = _curve_definition("break_even_point", "break_even_point", break_even)

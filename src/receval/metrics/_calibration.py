"""Calibration of predicted probabilities: PCOC/COPC, reliability curve, ECE."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .. import _validation as v
from .._kernels import compiled
from .._parameters import CURVE_BINS
from ..engine.kinds import MERGED, NO_LABELS, UPDATE, LabelKind
from ..engine.metric import MetricDefinition, data_columns, register
from ..engine.sources import run_definition, scan_of
from ..engine.states import EXPONENT, check_loaded_state
from ..engine.sums import ExactSum, exact_products, first_negative, ratio, weight_shift
from ..engine.totals import totals_empty, totals_prepare, totals_updates
from ..exceptions import InputValidationError, InvalidParameterError
from ._binary import check_binary_scores, warn_if_spanned, warn_undefined
from ._recalibration import check_sampling_rate, recalibrate, recalibrating
from ._undefined import NO_WEIGHT, warn_because

__all__ = ["calibration_curve", "copc", "expected_calibration_error", "pcoc"]


def _check_proba(
    y_true: Any, y_prob: Any, sample_weight: Any, func: str, pos_label: Any, relative: bool = True
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, Any]:
    labels, proba, weights, negative = check_binary_scores(
        y_true, y_prob, sample_weight, func, pos_label=pos_label, score_name="y_prob",
        rank=False, relative=relative,
    )  # fmt: skip
    return labels, v.check_probabilities(proba, "y_prob", func), weights, negative


def pcoc(
    y_true: ArrayLike,
    y_prob: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    negative_sampling_rate: float = 1.0,
    pos_label: Any = None,
) -> float:
    """Compute PCOC: predicted clicks over observed clicks.

    ``PCOC = sum(p) / sum(y)`` (weighted sums with ``sample_weight``). 1.0 means
    calibrated on average, above 1 over-predicting, below 1 under-predicting.
    Called "PCOPC" in some sources.

    Columns of a :func:`receval.scan` (files larger than memory) are read
    batch by batch in bounded memory.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels (the positive class = click): 0/1, bools, {-1, 1}, or any
        two labels with ``pos_label``.
    y_prob : array-like of shape (n_samples,)
        Predicted click probabilities in [0, 1].
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights (e.g. impressions of aggregated rows).
    negative_sampling_rate : float, default=1.0
        The share ``w`` in (0, 1] of the negatives kept in the model's training
        data: each probability is recalibrated to ``p / (p + (1 - p) / w)`` first
        (TorchRec's ``RecalibratedCalibrationMetric``; see
        :func:`receval.normalized_entropy`).
    pos_label : int, str or bool, default=None
        The positive class (needed for labels other than {0, 1} and {-1, 1}).

    Returns
    -------
    pcoc : float
        ``nan`` with an ``UndefinedMetricWarning`` when there is no click.

    See Also
    --------
    copc : The reciprocal, observed over predicted.
    calibration_curve : Calibration per score bucket.

    Examples
    --------
    >>> from receval import pcoc
    >>> pcoc([1, 0, 0, 1], [0.6, 0.2, 0.3, 0.5])
    0.8
    >>> pcoc([1, 0, 0, 1], [0.6, 0.2, 0.3, 0.5], negative_sampling_rate=0.5)
    0.5247
    >>> pcoc([1, -1, -1, 1], [0.6, 0.2, 0.3, 0.5])  # -1/1 labels: 1 is the click
    0.8
    """
    columns = {"y_true": y_true, "y_prob": y_prob, "sample_weight": sample_weight}
    params = PCOC.check_params(
        "pcoc", negative_sampling_rate=negative_sampling_rate, pos_label=pos_label
    )
    result: float = run_definition(PCOC, params, columns, func="pcoc")
    return result


def copc(
    y_true: ArrayLike,
    y_prob: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    negative_sampling_rate: float = 1.0,
    pos_label: Any = None,
) -> float:
    """Compute COPC: observed clicks over predicted clicks, ``1 / PCOC``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels (the positive class = click): 0/1, bools, {-1, 1}, or any
        two labels with ``pos_label``.
    y_prob : array-like of shape (n_samples,)
        Predicted click probabilities in [0, 1].
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights.
    negative_sampling_rate : float, default=1.0
        The share ``w`` in (0, 1] of the negatives kept in the model's training
        data: each probability is recalibrated to ``p / (p + (1 - p) / w)`` first
        (TorchRec's ``RecalibratedCalibrationMetric``; see
        :func:`receval.normalized_entropy`).
    pos_label : int, str or bool, default=None
        The positive class (needed for labels other than {0, 1} and {-1, 1}).

    Returns
    -------
    copc : float
        ``nan`` with an ``UndefinedMetricWarning`` when the predictions sum to 0
        (or every row has a sample weight of 0).

    See Also
    --------
    pcoc : Predicted over observed.

    Examples
    --------
    >>> from receval import copc
    >>> copc([1, 0, 0, 1], [0.6, 0.2, 0.3, 0.5])
    1.25
    >>> copc(["y", "n", "n", "y"], [0.6, 0.2, 0.3, 0.5], pos_label="y")
    1.25
    """
    columns = {"y_true": y_true, "y_prob": y_prob, "sample_weight": sample_weight}
    params = COPC.check_params(
        "copc", negative_sampling_rate=negative_sampling_rate, pos_label=pos_label
    )
    result: float = run_definition(COPC, params, columns, func="copc")
    return result


def _torch_linspace(n_bins: int, dtype: Any) -> np.ndarray:
    """``torch.linspace(0, 1, n_bins + 1)`` in ``dtype``, as float64: ``i * step`` up to the
    middle and ``1 - (n_bins - i) * step`` after it, in ``dtype`` arithmetic (float32's
    for float16, as torch computes half precision), rounded to ``dtype``."""
    work = np.promote_types(dtype, np.float32).type
    step = work(1.0) / work(n_bins)
    i = np.arange(n_bins + 1)
    low = i.astype(work) * step
    high = work(1.0) - (n_bins - i).astype(work) * step
    edges = np.where(i < (n_bins + 1) // 2, low, high).astype(dtype)
    result: np.ndarray = edges.astype(np.float64)
    return result


def _edges(
    proba: np.ndarray, n_bins: int, strategy: str, bin_edge: str, edge_dtype: Any
) -> np.ndarray:
    """The bin edges: percentiles of ``proba`` (``"quantile"``), or ``n_bins`` equal widths
    on [0, 1], computed in ``edge_dtype`` with ``bin_edge="upper"`` (torchmetrics)."""
    if strategy == "quantile":
        quantiles: np.ndarray = np.percentile(proba, np.linspace(0, 1, n_bins + 1) * 100)
        return quantiles
    if bin_edge == "upper":
        return _torch_linspace(n_bins, edge_dtype)
    return np.linspace(0.0, 1.0, n_bins + 1)


def _bin_ids(proba: np.ndarray, edges: np.ndarray, bin_edge: str) -> np.ndarray:
    """Each probability's bin: a probability on an inner edge goes to the lower bin
    (scikit-learn), or with ``bin_edge="upper"`` to the upper one, a probability of 1
    to a bin of its own (torchmetrics)."""
    ids: np.ndarray = compiled().probability_bins(
        np.ascontiguousarray(proba, dtype=np.float64), edges, bin_edge == "upper"
    )
    return ids


def check_bins(n_bins: Any, strategy: Any, bin_edge: Any, func: str) -> None:
    """``n_bins``, ``strategy`` and ``bin_edge`` of the calibration bins, named for ``func``."""
    # a few numbers per bin: 10**7 bins is far finer than any sample can fill
    v.check_number(n_bins, "n_bins", func, integer=True, low=1, high=10**7)
    v.check_option(strategy, "strategy", func, ["quantile", "uniform"])
    v.check_option(bin_edge, "bin_edge", func, ["lower", "upper"])


def _bins(
    labels: np.ndarray, proba: np.ndarray, weights: np.ndarray | None, n_bins: int,
    strategy: str, func: str,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """Per bin: sum of labels, sum of probabilities, total weight (scikit-learn's bins)."""
    check_bins(n_bins, strategy, "lower", func)
    ids = _bin_ids(proba, _edges(proba, n_bins, strategy, "lower", np.float64), "lower")
    w = np.ones_like(proba) if weights is None else weights
    true_sum = np.bincount(ids, weights=labels * w, minlength=n_bins)
    pred_sum = np.bincount(ids, weights=proba * w, minlength=n_bins)
    total = (
        np.bincount(ids, minlength=n_bins).astype(np.float64)
        if weights is None
        else np.bincount(ids, weights=w, minlength=n_bins)
    )
    return true_sum, pred_sum, total


def calibration_curve(
    y_true: ArrayLike,
    y_prob: ArrayLike,
    *,
    pos_label: Any = None,
    n_bins: int = CURVE_BINS,
    strategy: str = "uniform",
    sample_weight: ArrayLike | None = None,
    negative_sampling_rate: float = 1.0,
) -> tuple[np.ndarray, np.ndarray]:
    """Compute the reliability curve: observed rate against mean prediction per bin.

    Same bins and output as :func:`sklearn.calibration.calibration_curve`
    (empty bins are dropped), with optional sample weights. Columns of a
    :func:`receval.scan` are refused (the bins' means are not kept batch by
    batch); :func:`expected_calibration_error` reads them.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels.
    y_prob : array-like of shape (n_samples,)
        Predicted probabilities of the positive class, in [0, 1].
    pos_label : int, str or bool, default=None
        The positive class (see :func:`roc_curve`).
    n_bins : int, default=5
        Number of bins.
    strategy : {"uniform", "quantile"}, default="uniform"
        Equal-width bins on [0, 1], or bins with equal numbers of samples
        (edges are unweighted percentiles of ``y_prob``). A value on an edge
        falls in the lower bin.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights, used in the per-bin means.
    negative_sampling_rate : float, default=1.0
        The share ``w`` in (0, 1] of the negatives kept in the model's training
        data: each probability is recalibrated to ``p / (p + (1 - p) / w)`` first,
        and binned as recalibrated (see :func:`receval.normalized_entropy`).

    Returns
    -------
    prob_true : ndarray of shape (n_nonempty_bins,)
        Observed positive rate in each non-empty bin.
    prob_pred : ndarray of shape (n_nonempty_bins,)
        Mean predicted probability in each non-empty bin.

    See Also
    --------
    expected_calibration_error : One number from the same bins.
    pcoc : Calibration over all samples.

    Examples
    --------
    >>> from receval import calibration_curve
    >>> prob_true, prob_pred = calibration_curve(
    ...     [0, 0, 1, 1, 1], [0.1, 0.3, 0.7, 0.8, 0.9], n_bins=2)
    >>> prob_true
    array([0., 1.])
    >>> prob_pred
    array([0.2, 0.8])
    """
    func = "calibration_curve"
    scan = scan_of(func, y_true=y_true, y_prob=y_prob, sample_weight=sample_weight)
    if scan is not None:
        raise InputValidationError(
            f"{func}: y_true and y_prob are columns of a receval.scan, which {func} does not "
            f"read out of core. Got columns of {scan.name}; read them into memory first (e.g. "
            f"pyarrow.csv.read_csv or pyarrow.parquet.read_table), or use "
            f"expected_calibration_error, which reads them batch by batch."
        )
    rate = check_sampling_rate(negative_sampling_rate, func)
    labels, proba, weights, _ = _check_proba(y_true, y_prob, sample_weight, func, pos_label)
    proba = recalibrate(proba, rate)
    true_sum, pred_sum, total = _bins(labels, proba, weights, n_bins, strategy, func)
    nonzero = total != 0
    return true_sum[nonzero] / total[nonzero], pred_sum[nonzero] / total[nonzero]


def expected_calibration_error(
    y_true: ArrayLike,
    y_prob: ArrayLike,
    *,
    pos_label: Any = None,
    n_bins: int = 10,
    strategy: str = "uniform",
    sample_weight: ArrayLike | None = None,
    bin_edge: str = "lower",
    negative_sampling_rate: float = 1.0,
) -> float:
    """Compute the expected calibration error (ECE) of binary probabilities.

    ``ECE = sum_b (W_b / W) |observed rate_b - mean prediction_b|`` over the
    bins of :func:`calibration_curve`, with ``W_b`` the (weighted) number of
    samples in bin b.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels.
    y_prob : array-like of shape (n_samples,)
        Predicted probabilities of the positive class, in [0, 1].
    pos_label : int, str or bool, default=None
        The positive class.
    n_bins : int, default=10
        Number of bins.
    strategy : {"uniform", "quantile"}, default="uniform"
        Bin edges, as in :func:`calibration_curve`.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights.
    bin_edge : {"lower", "upper"}, default="lower"
        The bin of a probability equal to an inner bin edge: the lower one, as
        scikit-learn's ``calibration_curve``, or the upper one, as
        torchmetrics' ``BinaryCalibrationError`` (which also puts a probability
        of 1 in a bin of its own, and computes float16 and float32 probabilities
        against edges of their dtype: ``"upper"`` does the same).
    negative_sampling_rate : float, default=1.0
        The share ``w`` in (0, 1] of the negatives kept in the model's training
        data: each probability is recalibrated to ``p / (p + (1 - p) / w)`` first,
        and binned as recalibrated (see :func:`receval.normalized_entropy`).

    Returns
    -------
    ece : float
        In [0, 1]; 0 is perfectly calibrated within every bin. ``nan`` with an
        ``UndefinedMetricWarning`` when the weights sum to zero.

    Notes
    -----
    Each bin's ``W_b |observed_b - predicted_b|`` is an exact sum of
    ``w (y - p)`` (each ``w p`` split exactly in two parts), rounded once at the
    end, and divided by the total weight: the same float for any split of the
    rows, so ``receval.metric("ece")`` over batches and the columns of a
    :func:`receval.scan` give exactly this value (``strategy="uniform"``; quantile
    bins are percentiles of every row, in memory only). Weights of any scale are
    scaled by powers of two, exactly; where a product falls below ``2**-969`` (a
    subnormal probability) or weights more than ``2**1000`` apart leave the smaller
    ones' bits below ``2**-1074`` of the largest's scale, the value may round
    otherwise, and a ``RecevalWarning`` gives the span that holds the exact one.

    See Also
    --------
    calibration_curve : The per-bin values.

    Examples
    --------
    >>> from receval import expected_calibration_error
    >>> y_true, y_prob = [0, 0, 1, 1, 1], [0.1, 0.3, 0.7, 0.8, 0.9]
    >>> round(expected_calibration_error(y_true, y_prob, n_bins=2), 12)
    0.2
    >>> round(expected_calibration_error([1, 0], [0.5, 0.55], bin_edge="upper"), 12)  # [0.5, 0.6)
    0.025
    """
    func = "expected_calibration_error"
    check_bins(n_bins, strategy, bin_edge, func)
    columns = {"y_true": y_true, "y_prob": y_prob, "sample_weight": sample_weight}
    params = _ece_params(func, pos_label=pos_label, n_bins=n_bins, bin_edge=bin_edge,
                         negative_sampling_rate=negative_sampling_rate)  # fmt: skip
    if strategy == "quantile" and scan_of(func, **columns) is None:
        # percentiles of every row: computed here, the bins of the definition then
        _, proba, _, _ = _check_proba(y_true, y_prob, sample_weight, func, pos_label)
        proba = recalibrate(proba, params["negative_sampling_rate"])
        params["edges"] = _edges(proba, int(n_bins), "quantile", "lower", np.float64)
    why = "quantile bins are percentiles of every row; use strategy='uniform'"
    memory_only = {"strategy": (strategy, "uniform")}
    result: float = run_definition(ECE, params, columns, func=func, memory_only=memory_only,
                                   why=why)  # fmt: skip
    return result


# ------------------------------------------------------------------ definitions
# What receval.metric, receval.scan columns and Spark run: the exact click sums.
def _finalize_pcoc(params: dict[str, Any], state: Any) -> float:
    if state.observed.value == 0:  # no click, or no row of positive weight
        why = "y_true has no click" if state.weight.value else NO_WEIGHT
        return warn_because("pcoc", "PCOC", why)
    return ratio(state.predicted, state.observed)  # weights near 1e308: scaled


def _finalize_copc(params: dict[str, Any], state: Any) -> float:
    if state.predicted.value == 0:  # predictions of 0, or no row of positive weight
        why = "the predicted probabilities sum to 0" if state.weight.value else NO_WEIGHT
        return warn_because("copc", "COPC", why)
    return ratio(state.observed, state.predicted)


def _totals_metric(name: str, finalize: Any) -> MetricDefinition:
    """PCOC's or COPC's definition, which takes the caller (``checks_caller``): the option
    messages name it (``receval.compute('pcoc')``); a batch's checks name the metric's
    function, which :meth:`MetricDefinition.add` words as the caller, as for every
    binary metric; the warning of an undefined value names the metric."""

    def check(
        func: str, /, negative_sampling_rate: float = 1.0, pos_label: Any = None
    ) -> dict[str, Any]:
        rate = check_sampling_rate(negative_sampling_rate, func)
        return {"negative_sampling_rate": rate, "pos_label": pos_label}

    return register(
        MetricDefinition(
            name=name,
            check_params=check,
            prepare=recalibrating(totals_prepare(name, "y_prob")),
            **totals_updates(name, loss=False, clicks=True),
            empty=totals_empty,
            finalize=finalize,
            # not scaled on one partition: its update keeps weights near 1e308 as given
            scale_free=lambda params: False,
            checks_caller=True,
        )
    )


PCOC = _totals_metric("pcoc", _finalize_pcoc)
COPC = _totals_metric("copc", _finalize_copc)


# Expected calibration error: per bin, the exact sum of w (y - p); the total weight.
def _ece_params(
    func: str,
    /,
    pos_label: Any = None,
    n_bins: int = 10,
    strategy: str = "uniform",
    bin_edge: str = "lower",
    negative_sampling_rate: float = 1.0,
) -> dict[str, Any]:
    """The ECE's options checked, their errors naming ``func`` (the function called)."""
    check_bins(n_bins, strategy, bin_edge, func)
    if strategy == "quantile":
        raise InvalidParameterError(
            f"{func}: strategy='quantile' bins are percentiles of every row, which batches "
            f"do not hold. Got strategy='quantile'; use strategy='uniform', or "
            f"expected_calibration_error on all the rows in memory."
        )
    rate = check_sampling_rate(negative_sampling_rate, func)
    return {"pos_label": pos_label, "n_bins": int(n_bins), "bin_edge": bin_edge, "edges": None,
            "negative_sampling_rate": rate}  # fmt: skip


@dataclass
class CalibrationGaps:
    """The ECE's sums: per bin, the exact sum of ``w (y - p)``; the exact total weight.

    The weights are held times ``2**-shift``: 0 unless a batch's largest weight is
    beyond ``2**±64``, whose weights are then scaled toward ``[0.5, 1)`` first (exact:
    ECE is a ratio of sums of weights). Where one shift cannot keep every weight
    normal and every factor of a product below ``2**995`` (weights near 1e308 beside
    ones near 1e-300), the rows within ``2**1000`` of the largest are scaled on their
    own, and the others' sums added at that scale. States of different shifts merge
    at the larger one: the other's sums lose only the bits below ``2**-1074`` of
    that scale. ``lost``: bounds, at the state's scale, on what the sum of the bins'
    ``|gap|`` and the total weight lost so (and to products below ``2**-969``): (0.0,
    0.0) where they are exact. ``labels``: the labels of the rows (see
    :mod:`receval.engine.kinds`).
    """

    gaps: dict[int, ExactSum] = field(default_factory=dict)
    weight: ExactSum = field(default_factory=ExactSum.zero)
    shift: int = field(default=0, metadata=EXPONENT)
    labels: LabelKind = NO_LABELS
    lost: tuple[float, float] = (0.0, 0.0)

    def invalid(self) -> tuple[str, str] | None:
        """The field and what it must hold where a state read from a pickle breaks its
        invariants (the bins' digits are checked as every exact sum's), else None: the
        gaps finite, the weight finite and >= 0."""
        for b, gap in self.gaps.items():
            if isinstance(b, bool) or not isinstance(b, int) or b < 0:
                return "gaps", "exact sums keyed by bin numbers >= 0"
            if not isinstance(gap, ExactSum):
                return "gaps", "exact sums keyed by bin numbers >= 0"
            check_loaded_state(gap, ExactSum.zero(), f"state.gaps[{b}]")
            if not math.isfinite(gap.value):
                return "gaps", "finite exact sums"
        if first_negative({"weight": self.weight}) is not None:
            return "weight", "a finite sum >= 0"
        if isinstance(self.shift, bool) or not isinstance(self.shift, int):
            return "shift", "an integer"
        lost = self.lost
        if not (isinstance(lost, tuple) and len(lost) == 2
                and all(type(x) is float and 0 <= x < math.inf for x in lost)):  # fmt: skip
            return "lost", "a tuple of two finite floats >= 0"
        return None

    def merge(self, other: CalibrationGaps) -> CalibrationGaps:
        return self._joined(other, MERGED)

    def absorb(self, other: CalibrationGaps) -> CalibrationGaps:
        """:meth:`merge` of an update's state (a new state: this one stays as it is)."""
        return self._joined(other, UPDATE)

    def _joined(self, other: CalibrationGaps, where: str) -> CalibrationGaps:
        labels = self.labels.join(other.labels, where)
        a, b = self, other
        if a.weight.is_zero() or b.weight.is_zero():  # no weight: any scale
            shift = b.shift if a.weight.is_zero() else a.shift
        else:
            shift = max(a.shift, b.shift)
        a, b = a._at_shift(shift), b._at_shift(shift)
        gaps = dict(a.gaps)
        for k, gap in b.gaps.items():
            gaps[k] = gaps[k] + gap if k in gaps else gap
        lost = (a.lost[0] + b.lost[0], a.lost[1] + b.lost[1])
        return CalibrationGaps(gaps, a.weight + b.weight, shift, labels, lost)

    def _at_shift(self, shift: int) -> CalibrationGaps:
        """This state's sums at ``shift`` (larger, or any where its weight is 0), each
        bound scaled alike plus ``2**-1074`` for each sum whose bits it may drop."""
        d = shift - self.shift
        if d <= 0:
            return self if d == 0 else replace(self, shift=shift)
        gaps = {k: gap.scaled_down(d) for k, gap in self.gaps.items()}
        dropped = sum(not gap.is_zero() for gap in self.gaps.values())
        lost = (math.ldexp(self.lost[0], -d) + dropped * 2.0**-1074,
                math.ldexp(self.lost[1], -d) + 2.0**-1074)  # fmt: skip
        return replace(self, gaps=gaps, weight=self.weight.scaled_down(d), shift=shift,
                       lost=lost)  # fmt: skip


def _ece_prepare(
    params: dict[str, Any], y_true: Any, y_prob: Any, sample_weight: Any = None, *, func: str
) -> Any:
    # a batch's checks name the function, as every binary metric's do: the definition's
    # add words them as the caller (MetricDefinition.named_by)
    own = "expected_calibration_error"
    if len(v.as_1d(y_true, "y_true", own)) == 0:
        data_columns(own, ("y_true", y_true), ("y_prob", y_prob),
                     ("sample_weight", sample_weight))  # fmt: skip
        return None
    given = getattr(y_prob, "dtype", None)
    dtype = given.type if given in (np.float16, np.float32) else np.float64
    # the weights keep their scale: the update scales them
    pos_label = params["pos_label"]
    labels, proba, weights, negative = _check_proba(y_true, y_prob, sample_weight, own,
                                                    pos_label, relative=False)  # fmt: skip
    edges = params["edges"]
    if edges is None:
        edges = _edges(proba, params["n_bins"], "uniform", params["bin_edge"], dtype)
    return edges, labels, proba, weights, LabelKind.of(negative, pos_label, own)


def _ece_update(params: dict[str, Any], batch: Any, *, func: str) -> CalibrationGaps:
    if batch is None:
        return CalibrationGaps()
    edges, labels, proba, weights, kind = batch
    if weights is None:
        return _ece_gaps(params, edges, labels, proba, None, 0, kind)
    shift = weight_shift(weights)
    top = float(weights.max())
    # one shift for all the rows, unless the largest would stay beyond 2**995 (past
    # which its products are rounded) or a weight would fall below 2**-1022
    if math.ldexp(top, -shift) <= 2.0**995 and (
        shift <= 0 or not ((weights > 0) & (weights < math.ldexp(1.0, shift - 1022))).any()
    ):
        return _ece_gaps(params, edges, labels, proba, weights, shift, kind)
    exponent = math.frexp(top)[1]
    near = weights >= math.ldexp(1.0, exponent - 1000)  # normal at the largest's scale
    rows = [(near, exponent), (~near, weight_shift(weights[~near]))]
    parts = [_ece_gaps(params, edges, labels[r], proba[r], weights[r], k, kind) for r, k in rows]
    return parts[0].absorb(parts[1])


def _ece_gaps(
    params: dict[str, Any],
    edges: np.ndarray,
    labels: np.ndarray,
    proba: np.ndarray,
    weights: np.ndarray | None,
    shift: int,
    kind: LabelKind,
) -> CalibrationGaps:
    """The state of some rows, their weights divided by ``2**shift`` (each one normal
    after it, or 0, and none beyond ``2**995``), with a bound on what the products
    below ``2**-969`` lost."""
    lost = 0.0
    if weights is not None:
        weights = np.ldexp(weights, -shift) if shift else weights
        small = proba * weights < 2.0**-969  # and the rows of p or w 0: checked next
        if small.any() and (small := small & (proba > 0) & (weights > 0)).any():
            lost = exact_products(proba[small], weights[small])[1]
    # one pass: each row's bin (the rule of probability_bins) and its w y, w p added exactly
    no_weights = np.empty(0, dtype=np.float64)
    w = no_weights if weights is None else np.ascontiguousarray(weights, dtype=np.float64)
    bins, digits = compiled().binned_gaps(
        np.ascontiguousarray(labels, dtype=np.int8), np.ascontiguousarray(proba, dtype=np.float64),
        w, np.ascontiguousarray(edges, dtype=np.float64), params["bin_edge"] == "upper",
    )  # fmt: skip
    gaps = {b: ExactSum(d) for b, d in zip(bins.tolist(), digits, strict=True)}
    total = ExactSum.of([float(len(proba))] if weights is None else weights)
    return CalibrationGaps(gaps, total, shift, kind, (float(lost), 0.0))


def _ece_finalize(params: dict[str, Any], state: CalibrationGaps, *, func: str) -> float:
    if state.weight.value == 0:
        return warn_undefined(f"{func}: sample_weight sums to zero (returned as nan).")
    gaps = ExactSum.zero()
    if state.gaps:  # sum_b |gap_b| exactly, digit by digit
        core = compiled()
        digits = np.stack([gap.digits for gap in state.gaps.values()])
        # a carried sum is negative where its top digit is (every gap is finite: each
        # term is at most a weight, so the counts of nan and infinities are 0)
        digits[digits[:, core.N_LIMBS - 1] < 0] *= -1
        total = digits.sum(axis=0)
        core.normalize(total)
        gaps = ExactSum(total)
    # correctly rounded, any scale
    gap, weight = Fraction(gaps.as_fraction()), Fraction(state.weight.as_fraction())
    result = float(gap / weight)
    if state.lost != (0.0, 0.0):  # the span of the sums give or take what they lost
        lost_gap, lost_weight = (Fraction(x) for x in state.lost)
        low = float(max(gap - lost_gap, Fraction(0)) / (weight + lost_weight))
        high = (
            float((gap + lost_gap) / (weight - lost_weight)) if weight > lost_weight else math.inf
        )
        warn_if_spanned(func, result, low, min(high, 1.0), "Drop the rows of weights near 0 "
                        "to keep the weights within 2**±900 of one another.")  # fmt: skip
    return result


ECE = register(
    MetricDefinition(
        name="expected_calibration_error",
        check_params=_ece_params,
        prepare=recalibrating(_ece_prepare, at=2),
        update=_ece_update,
        empty=lambda params: CalibrationGaps(),
        finalize=_ece_finalize,
        # not scaled on one partition: its update scales the weights (and bounds the loss)
        scale_free=lambda params: False,
        checks_caller=True,
        takes_caller=True,
    )
)

"""Scores of numeric and probabilistic predictions from second moments: the Brier
score, R² and explained variance.

Each is one definition on the engine whose state is :class:`Moments`: exact sums
of ``w``, ``w y``, ``w p``, ``w y²``, ``w y p`` and ``w p²``. The value is formed
from those sums in exact rational arithmetic and rounded once, so a batch split,
a merge order, a scan or a Spark partitioning gives the same float, and the
variance terms suffer no cancellation (a large mean with a small spread).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .. import _validation as v
from ..engine.kinds import NO_LABELS, LabelKind
from ..engine.metric import MetricDefinition, always, data_columns, register, second_and_weight
from ..engine.sources import run_definition
from ..engine.states import Moments
from ..exceptions import InvalidParameterError
from ._binary import warn_if_spanned, warn_undefined

__all__ = ["brier_score_loss", "explained_variance_score", "r2_score"]

_BRIER = "brier_score_loss"


def brier_score_loss(
    y_true: ArrayLike,
    y_proba: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    pos_label: Any = None,
) -> float:
    """Compute the Brier score: the mean squared error of predicted probabilities.

    ``mean((y - p)^2)`` with ``y`` 1 for the positive class and 0 otherwise and
    ``p`` the predicted probability of the positive class: scikit-learn's
    ``brier_score_loss`` for binary labels (its default ``scale_by_half="auto"``
    gives this value for 1-D probabilities). Lower is better, hence the
    ``_loss`` name; the metric strings are ``"brier_score"`` and ``"brier"``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels: 0/1, bools, {-1, 1}, or any two labels with ``pos_label``.
    y_proba : array-like of shape (n_samples,)
        Predicted probability of the positive class, in [0, 1].
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights.
    pos_label : int, str or bool, default=None
        The positive class (needed for labels other than {0, 1} and {-1, 1}).

    Returns
    -------
    loss : float
        In [0, 1]; 0 is perfect. ``nan`` with an ``UndefinedMetricWarning`` when
        every weight is zero.

    Raises
    ------
    InputValidationError
        Probabilities outside [0, 1], NaN, labels that are not binary, lengths
        that differ, empty input.

    See Also
    --------
    log_loss : The logarithmic scoring rule.
    r2_score : The same squared errors relative to the variance of ``y_true``.

    Notes
    -----
    Multiclass probabilities (scikit-learn's 2-D ``y_proba``) are not taken.
    The sums are exact (see the module), so the value is the correctly rounded
    Brier score of the given floats.

    Examples
    --------
    >>> from receval import brier_score_loss
    >>> brier_score_loss([0, 1, 1, 0], [0.1, 0.9, 0.8, 0.3])
    0.0375
    >>> brier_score_loss(["spam", "ham", "ham", "spam"], [0.1, 0.9, 0.8, 0.3], pos_label="ham")
    0.0375
    """
    columns = {"y_true": y_true, "y_proba": y_proba, "sample_weight": sample_weight}
    params = BRIER.check_params(pos_label=pos_label)
    result: float = run_definition(BRIER, params, columns, func=_BRIER)
    return result


def r2_score(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    force_finite: bool = True,
) -> float:
    """Compute R², the coefficient of determination.

    ``1 - sum(w (y - y_hat)^2) / sum(w (y - mean_w(y))^2)``, as scikit-learn's
    ``r2_score`` for one output. 1 is perfect; a constant prediction of the mean
    scores 0, and worse predictions score below 0.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True values.
    y_pred : array-like of shape (n_samples,)
        Predicted values.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights.
    force_finite : bool, default=True
        scikit-learn's default: when ``y_true`` is constant (a zero denominator)
        the score is 1.0 for perfect predictions and 0.0 otherwise. False gives
        the raw ratio: ``nan`` for perfect predictions, ``-inf`` otherwise.

    Returns
    -------
    score : float
        At most 1. ``nan`` with an ``UndefinedMetricWarning`` for fewer than two
        samples (as scikit-learn) or when every weight is zero.

    Raises
    ------
    InputValidationError
        NaN or infinite values, lengths that differ, empty input.

    See Also
    --------
    explained_variance_score : Ignores a constant bias of the predictions.
    root_mean_squared_error : The numerator's scale.

    Notes
    -----
    The sums are exact and the formula is evaluated in rational arithmetic, then
    rounded once. Values or weights so far apart that their products fall below
    ``2**-1074`` (weights near 1e-300 beside 1e300) lose those bits: where the score
    could then be another float, a ``RecevalWarning`` gives the span that holds the
    exact one. ``y_true`` is constant exactly when every value is equal; where
    rounding in scikit-learn's weighted mean leaves a tiny non-zero denominator
    (e.g. ``y_true = [0.1, 0.1, 0.1]`` with unequal weights), scikit-learn returns
    a large negative number and receval the ``force_finite`` value.

    Examples
    --------
    >>> from receval import r2_score
    >>> r2_score([3, -0.5, 2, 7], [2.5, 0.0, 2, 8])
    0.9486
    >>> r2_score([1, 1, 1], [1, 1, 1]), r2_score([1, 1, 1], [1, 2, 1])  # constant y_true
    (1.0, 0.0)
    """
    columns = {"y_true": y_true, "y_pred": y_pred, "sample_weight": sample_weight}
    params = R2.check_params(force_finite=force_finite)
    result: float = run_definition(R2, params, columns, func="r2_score")
    return result


def explained_variance_score(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    force_finite: bool = True,
) -> float:
    """Compute the explained variance score.

    ``1 - Var_w(y - y_hat) / Var_w(y)``, as scikit-learn's
    ``explained_variance_score`` for one output: R² of the predictions after
    removing their mean error, so a constant bias costs nothing.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True values.
    y_pred : array-like of shape (n_samples,)
        Predicted values.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights.
    force_finite : bool, default=True
        As for :func:`r2_score`: with a constant ``y_true``, 1.0 when the errors
        are constant and 0.0 otherwise (scikit-learn's default); False gives
        ``nan`` or ``-inf``.

    Returns
    -------
    score : float
        At most 1. ``nan`` with an ``UndefinedMetricWarning`` when every weight is
        zero.

    Raises
    ------
    InputValidationError
        NaN or infinite values, lengths that differ, empty input.

    See Also
    --------
    r2_score : Counts the bias too.

    Examples
    --------
    >>> from receval import explained_variance_score
    >>> explained_variance_score([3, -0.5, 2, 7], [2.5, 0.0, 2, 8])
    0.9571
    >>> explained_variance_score([1, 2, 3], [2, 3, 4])  # a constant bias
    1.0
    """
    columns = {"y_true": y_true, "y_pred": y_pred, "sample_weight": sample_weight}
    params = EXPLAINED_VARIANCE.check_params(force_finite=force_finite)
    func = "explained_variance_score"
    result: float = run_definition(EXPLAINED_VARIANCE, params, columns, func=func)
    return result


# ------------------------------------------------------------------ definitions
def _prepare(func: str, second: str, binary: bool) -> Any:
    def prepare(params: dict[str, Any], y_true: Any, *args: Any, **kwargs: Any) -> Any:
        y_pred, sample_weight = second_and_weight(func, second, args, kwargs)
        yt, yp, sw = data_columns(
            func, ("y_true", y_true), (second, y_pred), ("sample_weight", sample_weight)
        )
        pred = v.check_finite(v.as_float(yp, second, func), second, func)
        labels = NO_LABELS  # of a binary y_true: the labels its batches must share
        if binary:
            truth = np.empty(0)
            if len(yt):
                binary_truth, negative = v.binarize_labels(yt, params["pos_label"], func)
                truth = binary_truth.astype(np.float64)
                labels = LabelKind.of(negative, params["pos_label"], func)
            pred = v.check_probabilities(pred, second, func)
        else:
            truth = v.check_finite(v.as_float(yt, "y_true", func), "y_true", func)
        return truth, pred, v.check_sample_weight(sw, len(truth), func), labels

    return prepare


def _update(params: dict[str, Any], batch: Any) -> Moments:
    return Moments.of(*batch)


def _empty(params: dict[str, Any]) -> Moments:
    return Moments.zero()


def _check_brier(pos_label: Any = None) -> dict[str, Any]:
    return {"pos_label": pos_label}


def _check_force_finite(func: str) -> Any:
    def check(force_finite: bool = True) -> dict[str, Any]:
        if force_finite not in (True, False):
            raise InvalidParameterError(
                f"The 'force_finite' parameter of {func} must be a bool. "
                f"Got {force_finite!r} instead."
            )
        return {"force_finite": bool(force_finite)}

    return check


class _Span:
    """The rationals from ``lo`` to ``hi``: a sum of :class:`Moments` give or take what
    it lost, and what the formulas make of such sums (each operation's widest result)."""

    def __init__(self, lo: Any, hi: Any) -> None:
        self.lo, self.hi = lo, hi

    def __add__(self, other: _Span) -> _Span:
        return _Span(self.lo + other.lo, self.hi + other.hi)

    def __sub__(self, other: _Span) -> _Span:
        return _Span(self.lo - other.hi, self.hi - other.lo)

    def __rmul__(self, k: int) -> _Span:  # k >= 0
        return _Span(k * self.lo, k * self.hi)

    def __mul__(self, other: _Span) -> _Span:
        ends = [a * b for a in (self.lo, self.hi) for b in (other.lo, other.hi)]
        return _Span(min(ends), max(ends))

    def __truediv__(self, other: _Span) -> _Span:
        if other.lo <= 0:  # a sum of weights that may be 0: anything
            raise ZeroDivisionError
        ends = [a / b for a in (self.lo, self.hi) for b in (other.lo, other.hi)]
        return _Span(min(ends), max(ends))


def _ratio_score(numerator: Any, denominator: Any, force_finite: bool) -> Any:
    """scikit-learn's ``1 - numerator / denominator`` with its zero-denominator rule; of
    spans (both >= 0 when exact), the span of the scores, from that of the ratio."""
    if isinstance(numerator, _Span):
        n0, n1 = max(numerator.lo, Fraction(0)), max(numerator.hi, Fraction(0))
        d0, d1 = max(denominator.lo, Fraction(0)), denominator.hi
        if d0 > 0:
            return _Span(1 - n1 / d0, 1 - n0 / d1)
        if d1 > 0:  # a denominator that may or may not be 0: any score up to 1
            return _Span(float("-inf"), 1.0)
        return _Span(*(_ratio_score(n, 0, force_finite) for n in (n1, n0)))
    if denominator != 0:
        try:
            return float(1 - numerator / denominator)
        except OverflowError:  # an exact ratio beyond float64 (both sums are >= 0)
            return float("-inf")
    if force_finite:
        return 1.0 if numerator == 0 else 0.0
    return float("nan") if numerator == 0 else float("-inf")


def _brier(params: dict[str, Any], w: Any, y: Any, p: Any, yy: Any, yp: Any, pp: Any) -> Any:
    value = (yy - 2 * yp + pp) / w
    return value if isinstance(value, _Span) else float(value)


def _r2(params: dict[str, Any], w: Any, y: Any, p: Any, yy: Any, yp: Any, pp: Any) -> Any:
    return _ratio_score(yy - 2 * yp + pp, yy - y * y / w, params["force_finite"])


def _explained_variance(
    params: dict[str, Any], w: Any, y: Any, p: Any, yy: Any, yp: Any, pp: Any
) -> Any:
    error = y - p  # sum of w (y - p)
    numerator = yy - 2 * yp + pp - error * error / w
    return _ratio_score(numerator, yy - y * y / w, params["force_finite"])


def _as_float(x: Any) -> float:
    try:
        return float(x)
    except OverflowError:
        return float("inf") if x > 0 else float("-inf")


def _finalize(func: str, formula: Any) -> Any:
    """``finalize``: ``formula(params, *sums)`` of the sums as Fractions, nan where one is
    not finite, nan and the warning where every weight is zero; where the sums lost
    bits to the range of float64, the same formula of the sums give or take those
    bits, and a warning where that span holds more than the one float."""

    def finalize(params: dict[str, Any], state: Moments) -> float:
        if func == "r2_score" and state.n_rows < 2:
            return warn_undefined("r2_score: R^2 is not well-defined with fewer than two samples.")
        sums = [getattr(state, k).as_fraction() for k in Moments.SUMS]
        if any(isinstance(s, float) for s in sums):
            return float("nan")
        # the sums of the values scaled by 2**-shift, back at scale 1
        two = Fraction(2)
        scales = [Fraction(1), two**state.y_shift, two**state.p_shift, two ** (2 * state.y_shift),
                  two ** (state.y_shift + state.p_shift), two ** (2 * state.p_shift)]  # fmt: skip
        sums = [s * k for s, k in zip(sums, scales, strict=True)]
        if sums[0] == 0 and not state.lost[0]:
            return warn_undefined(f"{func}: every sample weight is zero (returned as nan).")
        result: float = formula(params, *sums) if sums[0] else float("nan")
        if state.lost.any():
            bounds = [Fraction(float(x)) * k for x, k in zip(state.lost, scales, strict=True)]
            spans = [_Span(s - b, s + b) for s, b in zip(sums, bounds, strict=True)]
            try:
                span = formula(params, *spans)
                low, high = _as_float(span.lo), _as_float(span.hi)
            except ZeroDivisionError:
                low, high = float("-inf"), float("inf")
            warn_if_spanned(func, result, low, high, "Rescale y_true and the predictions, "
                            "or drop the rows of weights near 0, to keep them within "
                            "2**±900 of one another.")  # fmt: skip
        return result

    return finalize


def _moments_metric(name: str, func: str, second: str, check: Any, formula: Any) -> Any:
    return register(
        MetricDefinition(name=name, check_params=check, prepare=_prepare(func, second,
                         binary=name == "brier_score"), update=_update, empty=_empty,
                         finalize=_finalize(func, formula), scale_free=always),
    )  # fmt: skip


BRIER = _moments_metric("brier_score", _BRIER, "y_proba", _check_brier, _brier)
R2 = _moments_metric("r2", "r2_score", "y_pred", _check_force_finite("r2_score"), _r2)
EXPLAINED_VARIANCE = _moments_metric(
    "explained_variance", "explained_variance_score", "y_pred",
    _check_force_finite("explained_variance_score"), _explained_variance,
)  # fmt: skip

"""Losses and errors of probabilistic and numeric predictions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
from numpy.typing import ArrayLike

from .. import _validation as v
from .._kernels import compiled
from ..conventions import undefined_value
from ..data._lookup import distinct
from ..engine.metric import MetricDefinition, always, data_columns, no_options, register
from ..engine.sources import run_definition
from ..engine.states import ERROR_SCALE_STEP, ErrorSums
from ..engine.sums import WEIGHT_SHIFT, ExactSum, Term, exact_sums, scaled_value
from ..engine.totals import check_eps, clip_eps, totals_empty, totals_prepare, totals_updates
from ..exceptions import InputValidationError, InvalidParameterError, warn
from ._binary import data_ndim, warn_undefined
from ._recalibration import check_sampling_rate, recalibrating

__all__ = ["log_loss", "mean_absolute_error", "normalized_entropy", "root_mean_squared_error"]

_EPS = float(np.finfo(np.float64).eps)
_F = TypeVar("_F", bound=Callable[..., Any])
ZERO_WEIGHT = (
    "log_loss: every sample weight is zero, so the log loss is undefined (returned as nan)."
)


def log_loss(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    normalize: bool = True,
    sample_weight: ArrayLike | None = None,
    labels: ArrayLike | None = None,
    pos_label: Any = None,
    eps: float | str = "auto",
    profile: str | None = None,
    negative_sampling_rate: float = 1.0,
) -> float:
    """Compute the log loss (binary or multiclass cross-entropy).

    ``-mean(y ln p + (1 - y) ln(1 - p))`` for binary labels, and
    ``-mean(ln p[true class])`` for multiclass probabilities; probabilities
    are clipped to ``[eps, 1 - eps]`` first, as in scikit-learn.

    Columns of a :func:`receval.scan` (files larger than memory) are read
    batch by batch in bounded memory (binary labels: 0/1, bools or -1/1, or
    any two with ``pos_label``; every batch holds the same two).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels: 0/1 (or bools) with 1-D ``y_pred``, or any labels with
        ``y_pred`` of shape (n_samples, n_classes).
    y_pred : array-like of shape (n_samples,) or (n_samples, n_classes)
        Predicted probability of the positive class (1-D), or of each class
        (2-D, columns in the order of ``labels``). Values must lie in [0, 1].
    normalize : bool, default=True
        Return the mean loss; if False, the (weighted) sum.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights.
    labels : array-like, default=None
        Classes of the columns of a 2-D ``y_pred`` (default: sorted distinct
        values of ``y_true``). For 1-D ``y_pred`` with two labels other than
        0/1, the second of ``labels`` (or the greater label) is the positive one.
    pos_label : int, str or bool, default=None
        The positive class of 1-D ``y_pred``, instead of ``labels`` (as
        :func:`brier_score_loss`'s; out of core too): the other label of
        ``y_true`` is the negative one.
    eps : float or "auto", default="auto"
        Clipping bound: p is clipped to ``[eps, 1 - eps]`` before ``1 - p`` is
        taken. "auto" is the machine epsilon of ``y_pred``'s dtype (float16's or
        float32's for such input, float64's otherwise), as in scikit-learn; every
        backend (:func:`receval.metric`, scan columns, Spark) clips each batch
        by the same rule.
    profile : str, default=None
        ``"sklearn"`` refuses ``y_true`` of a single class without ``labels`` (or
        ``pos_label``), as scikit-learn's ``log_loss`` does; other profiles change
        nothing.
    negative_sampling_rate : float, default=1.0
        The share ``w`` in (0, 1] of the negatives kept in the model's training
        data: each probability is recalibrated to ``p / (p + (1 - p) / w)`` before
        the loss (binary ``y_pred`` only; see :func:`normalized_entropy`).

    Returns
    -------
    loss : float
        Non-negative; lower is better. ``nan`` with an ``UndefinedMetricWarning``
        when every sample weight is zero (``normalize=True``). ``y_true`` of a
        single class has a loss (``-mean(ln p)`` of that class; 0, False and -1
        are negative, 1 and True positive, another label is what ``labels`` or
        ``pos_label`` says): it is returned, where scikit-learn raises unless
        given ``labels``.

    Raises
    ------
    InputValidationError
        Probabilities outside [0, 1], NaN, lengths that differ, empty input;
        ``y_true`` of a single label other than 0, 1 and -1 (and bools) without
        ``labels`` or ``pos_label``; with ``profile="sklearn"``, ``y_true`` of a
        single class without them.
    InvalidParameterError
        ``pos_label`` with ``labels`` or with 2-D ``y_pred``, or not a label of
        ``y_true``.

    See Also
    --------
    pcoc : Calibration: predicted over actual clicks.

    Examples
    --------
    >>> from receval import log_loss
    >>> log_loss([1, 0, 1], [0.9, 0.2, 0.6])
    0.2797
    >>> log_loss(["a", "b", "a"], [[0.8, 0.2], [0.3, 0.7], [0.6, 0.4]])
    0.3635
    >>> log_loss(["no", "yes", "no"], [0.2, 0.9, 0.4], pos_label="yes")
    0.2798
    >>> log_loss([1, 1], [0.7, 0.7])  # one class: -ln 0.7
    0.3567
    >>> log_loss([-1, -1], [0.3, 0.3])  # -1 is the negative label of {-1, 1}: -ln 0.7
    0.3567
    >>> log_loss([1, 0, 1], [0.9, 0.2, 0.6], negative_sampling_rate=0.5)
    0.3886
    """
    func = "log_loss"
    # profile="sklearn" refuses y_true of one label unless labels (or pos_label) say its class
    one_class = (
        undefined_value(profile, func, func) == "raise" and labels is None and pos_label is None
    )
    if data_ndim(y_pred) >= 2:  # scikit-learn's forms: a column per class, or one column
        yp = v.as_array(y_pred, "y_pred", func)
        if yp.ndim == 2 and yp.shape[1] > 1:
            if pos_label is not None:
                raise InvalidParameterError(
                    f"{func}: pos_label names the positive class of 1-dimensional y_pred. Got "
                    f"y_pred of shape {yp.shape} and pos_label={pos_label!r}; name the columns' "
                    f"classes with labels, or leave pos_label unset."
                )
            if negative_sampling_rate != 1.0:
                raise InvalidParameterError(
                    f"{func}: negative_sampling_rate recalibrates the probability of the "
                    f"positive class, so it needs 1-dimensional y_pred. Got y_pred of shape "
                    f"{yp.shape}; pass the positive class's column, or leave "
                    f"negative_sampling_rate unset."
                )
            return _multiclass_log_loss(y_true, yp, normalize, sample_weight, labels, eps,
                                        one_class)  # fmt: skip
        if yp.ndim != 2:
            raise InputValidationError(
                f"{func}: y_pred must be 1-dimensional (the positive class's probability) or "
                f"2-dimensional (one column per class). Got an array of shape {yp.shape}."
            )
        y_pred = yp[:, 0]
    if pos_label is not None and labels is not None:
        raise InvalidParameterError(
            f"{func}: labels and pos_label both say which label is positive. Got "
            f"labels={labels!r} and pos_label={pos_label!r}; give one of them."
        )
    params = LOG_LOSS.check_params(
        func, eps=eps, normalize=normalize, negative_sampling_rate=negative_sampling_rate,
        pos_label=pos_label,
    )  # fmt: skip
    columns = {"y_true": y_true, "y_pred": y_pred, "sample_weight": sample_weight}
    return run_definition(  # type: ignore[no-any-return]
        LOG_LOSS, params, columns, func=func,
        memory_only={"labels": (labels, None), "profile": ("sklearn" if one_class else None, None)},
        why="out of core y_true must hold 0/1 or -1/1 labels, or pos_label name the positive "
        "one, and the one-class check of profile='sklearn' needs every label at once; leave "
        "them unset",
        arrays=lambda data: _binary_labels(data, labels, one_class, pos_label),
    )  # fmt: skip


def _classes_of(y_true: Any, func: str) -> np.ndarray:
    yt = v.as_1d(y_true, "y_true", func)
    v.check_no_missing(yt, "y_true", func)
    if yt.dtype.kind in "OU":  # numbers mixed with strings (a list's become strings)
        yt = v.as_class_labels(y_true, "y_true", func)
    return yt


def _refuse_one_class(yt: np.ndarray) -> None:
    """scikit-learn's log_loss refuses y_true of one class unless labels= names both."""
    classes = distinct(yt)
    if len(classes) == 1:
        own = classes[0].item()
        pair = "[-1, 1]" if _minus_one(classes) else "[0, 1]" if own in (0, 1) else (
            "[negative, positive]")  # fmt: skip
        raise InputValidationError(
            f"log_loss: y_true contains only one label, which profile='sklearn' refuses as "
            f"scikit-learn does. Got {v.format_values(classes)}; pass labels (e.g. "
            f"labels={pair}) or pos_label to compute its loss, or leave profile unset."
        )


def _minus_one(classes: np.ndarray) -> bool:
    """Whether the distinct labels are the number -1 alone: the negative label of {-1, 1}."""
    return classes.dtype.kind in "iuf" and classes.tolist() == [-1]


def _binary_labels(
    data: dict[str, Any], labels: Any, one_class: bool, pos_label: Any
) -> dict[str, Any]:
    """The definition's columns with ``y_true`` as :func:`binary_labels` reads it (with
    ``pos_label``, as they are: the definition reads it)."""
    func = "log_loss"
    if pos_label is not None:
        return data
    if not one_class and labels is None and _plain01(data["y_true"]):
        return data
    sw = data["sample_weight"]
    sw = None if sw is None else v.as_1d(sw, "sample_weight", func)
    yt, yp = v.as_1d(data["y_true"], "y_true", func), v.as_1d(data["y_pred"], "y_pred", func)
    v.check_same_length(func, y_true=yt, y_pred=yp, sample_weight=sw)
    return data | {"y_true": binary_labels(data["y_true"], labels, one_class=one_class)}


def binary_labels(y_true: Any, labels: Any = None, *, one_class: bool = False) -> Any:
    """The labels of 1-D probabilities as :func:`log_loss` reads them: any two labels as
    0/1, the second of ``labels`` (or the greater label) the positive one.

    Labels already 0/1 (or bools) are kept as 0/1; other values within [0, 1]
    (soft labels) are refused, as 0/1 labels are expected there. A single label
    says its class where it is 0, 1 or -1 (the negative of {-1, 1}); any other is
    refused without ``labels``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        The labels.
    labels : array-like of shape (2,), default=None
        The negative and the positive label (default: the sorted distinct labels).
    one_class : bool, default=False
        Refuse labels of a single class (``profile="sklearn"``).

    Returns
    -------
    y_true : ndarray of shape (n_samples,)
        0/1 labels (int8), or ``y_true`` itself where it is 0/1 labels already.

    Raises
    ------
    InputValidationError
        Labels of more than two classes, labels not in ``labels``, values in
        [0, 1] other than 0 and 1, or a single label other than 0, 1 and -1
        without ``labels``.

    Examples
    --------
    >>> from receval.metrics._loss import binary_labels
    >>> binary_labels([-1, 1, 1]).tolist()
    [0, 1, 1]
    >>> binary_labels(["no", "click"], labels=["no", "click"]).tolist()
    [0, 1]
    """
    func = "log_loss"
    if not one_class and labels is None and _plain01(y_true):
        return y_true
    yt = _classes_of(y_true, func)
    if one_class:
        _refuse_one_class(yt)
    if yt.size == 0 or (
        labels is None and yt.dtype.kind in "biuf" and yt.min() >= 0 and yt.max() <= 1
    ):
        return v.check_binary01(yt, func)  # the definition's 0/1 labels (or no row)
    classes = distinct(yt) if labels is None else v.as_1d(labels, "labels", func)
    if labels is None and len(classes) == 1:  # which class is it?
        if _minus_one(classes):  # the negative of {-1, 1}, as every binary metric reads it
            return np.zeros(len(yt), dtype=np.int8)
        raise InputValidationError(
            f"{func}: y_true holds a single label, and neither labels nor pos_label says "
            f"whether it is the positive one (only 0, -1 and 1 say it themselves). Got "
            f"{v.format_values(classes)}; pass labels=[negative, positive] or pos_label, "
            f"e.g. pos_label={classes[0].item()!r} if it is positive.",
            classes=classes.tolist(),
        )
    if len(classes) != 2:
        raise InputValidationError(
            f"{func}: y_pred is 1-dimensional, so y_true must have two classes. Got "
            f"{v.format_values(classes)}; pass labels=[negative, positive] or 2-D "
            f"probabilities.",
            classes=classes.tolist(),
        )
    lab = (yt == classes[1]).view(np.int8)
    if not np.all(lab | (yt == classes[0])):
        raise InputValidationError(
            f"{func}: y_true contains labels {v.format_values(np.setdiff1d(yt, classes))} "
            f"that are not in labels {v.format_values(classes)}."
        )
    return lab


def _plain01(y_true: Any) -> bool:
    """0/1 labels in a NumPy array of numbers (or bools): the definition's own input."""
    return (
        type(y_true) is np.ndarray
        and y_true.dtype.kind in "biu"
        and (y_true.size == 0 or (y_true.min() >= 0 and y_true.max() <= 1))
    )


def _multiclass_log_loss(
    y_true: Any,
    yp: np.ndarray,
    normalize: Any,
    sample_weight: Any,
    labels: Any,
    eps: Any,
    one_class: bool,
) -> float:
    """scikit-learn's multiclass log loss: ``-mean(ln p[true class])``."""
    func = "log_loss"
    yt = _classes_of(y_true, func)
    if one_class:
        _refuse_one_class(yt)
    v.check_option(normalize, "normalize", func, [False, True])
    clip = clip_eps(check_eps(eps, func), yp.dtype)
    sw = None if sample_weight is None else v.as_1d(sample_weight, "sample_weight", func)
    n = v.check_same_length(func, y_true=yt, y_pred=yp, sample_weight=sw)
    v.check_not_empty(n, "y_true", func)
    weights = v.check_sample_weight(sw, n, func, relative=normalize)
    w_arg = np.empty(0) if weights is None else np.ascontiguousarray(weights)
    proba = v.as_2d_scores(yp, "y_pred", func)
    v.check_probabilities(proba.ravel(), "y_pred", func)
    classes = distinct(yt) if labels is None else v.as_1d(labels, "labels", func)
    if len(classes) != proba.shape[1]:
        raise InputValidationError(
            f"{func}: y_pred has {v.counted(proba.shape[1], 'column')} but there "
            f"{v.verb(len(classes), 'is')} {v.counted(len(classes), 'class', 'classes')} "
            f"{v.format_values(classes)}; pass labels= to name the class of each "
            f"column."
        )
    order = np.argsort(classes, kind="stable")
    idx = np.clip(np.searchsorted(classes[order], yt), 0, len(classes) - 1)
    if not np.all(classes[order][idx] == yt):
        raise InputValidationError(
            f"{func}: y_true contains labels "
            f"{v.format_values(np.setdiff1d(yt, classes))} that are not in labels "
            f"{v.format_values(classes)}."
        )
    row_sums = proba.sum(axis=1)
    if not np.allclose(row_sums, 1.0, rtol=np.sqrt(_EPS), atol=0.0):
        warn(
            "log_loss: the rows of y_pred do not sum to one; pass probabilities.",
            UserWarning,
        )
    total = multiclass_loss_sum(order[idx], np.ascontiguousarray(proba), w_arg, clip)
    if not normalize:
        return float(total)
    total_weight = n if weights is None else float(weights.sum())
    if total_weight == 0:
        return warn_undefined(ZERO_WEIGHT)
    return float(total / total_weight)


def _log_loss_one_call(params: dict[str, Any], columns: Any) -> float | None:
    """The binary log loss of plain NumPy input in one call of the compiled core, or
    None for other input; a value the core refuses raises, in the checks' words.

    0/1 labels of any dtype (without ``pos_label``), float64 or float32 probabilities
    and the checked float64 weights (or none): the same clip, the same exact sums,
    rounded once, and the same division as the definition, so the same float. Labels
    other than 0 and 1 are left to the definition's checks, which read a pair of them
    ({-1, 1}) or refuse them in their words."""
    y_true, y_pred = columns["y_true"], columns["y_pred"]
    weights = columns.get("sample_weight")
    if not (
        type(y_true) is np.ndarray
        and type(y_pred) is np.ndarray
        and (weights is None or type(weights) is np.ndarray)
        and params["normalize"] is True
        and params["negative_sampling_rate"] == 1.0
        and params["pos_label"] is None
    ):
        return None
    eps = clip_eps(params["eps"], y_pred.dtype)
    result: float | v.Refusal | None = compiled().log_loss_checked(y_true, y_pred, eps, weights)
    if isinstance(result, tuple):
        if result[0] == "binary01":
            return None
        raise v.refused("log_loss", result, {"y_true": y_true, "y_pred": y_pred})
    return result


def multiclass_loss_sum(
    codes: np.ndarray, proba: np.ndarray, weights: np.ndarray, eps: float
) -> float:
    """``sum(-w ln(clip(proba[i, codes[i]])))``: exact, rounded once, with the compiled
    core."""
    from ..engine.sums import chunks_for

    codes = np.ascontiguousarray(codes, dtype=np.int64)
    digits = compiled().multiclass_log_loss_exact(
        codes, proba, weights, eps, chunks_for(len(codes))
    )
    return ExactSum(digits).value


def normalized_entropy(
    y_true: ArrayLike,
    y_prob: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    eps: float | str = "auto",
    negative_sampling_rate: float = 1.0,
    pos_label: Any = None,
) -> float:
    """Compute the normalized entropy (NE): log loss over the entropy of the base rate.

    ``NE = log_loss / H(p)``, ``H(p) = -p ln p - (1 - p) ln(1 - p)`` with ``p`` the
    (weighted) share of positives: the log loss of the model relative to that of
    always predicting the base rate, so below 1 beats the base rate and lower is
    better. TorchRec's definition (its ``ne.py``: both logs in base 2, which
    cancels).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels (the positive class = click): 0/1, bools, {-1, 1}, or any
        two labels with ``pos_label``.
    y_prob : array-like of shape (n_samples,)
        Predicted click probabilities in [0, 1].
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights.
    eps : float or "auto", default="auto"
        Probabilities are clipped to ``[eps, 1 - eps]`` in the log loss, as in
        :func:`log_loss` ("auto": the machine epsilon of ``y_prob``'s dtype;
        TorchRec uses 1e-12).
    negative_sampling_rate : float, default=1.0
        The share ``w`` in (0, 1] of the negatives kept in the model's training
        data (negative down-sampling): each probability is recalibrated to
        ``p' = p / (p + (1 - p) / w)`` first, as TorchRec's ``RecalibratedNEMetric``
        with ``recalibration_coefficient=w``. The base rate is that of the
        evaluation rows as given. Where the evaluation rows are down-sampled too,
        weigh each negative ``1 / w`` (``sample_weight``) to get the NE of the
        full population instead.
    pos_label : int, str or bool, default=None
        The positive class (needed for labels other than {0, 1} and {-1, 1}),
        as :func:`log_loss`'s.

    Returns
    -------
    ne : float
        Non-negative; ``nan`` with an ``UndefinedMetricWarning`` when every label is
        the same (the base rate's entropy is 0) or every weight is 0.

    See Also
    --------
    log_loss : The numerator.

    Examples
    --------
    >>> from receval import normalized_entropy
    >>> normalized_entropy([1, 0, 0, 1], [0.8, 0.3, 0.1, 0.6])  # base rate 0.5: H = ln 2
    0.4314
    >>> normalized_entropy([1, 0, 0, 1], [0.8, 0.3, 0.1, 0.6], negative_sampling_rate=0.5)
    0.5414
    >>> normalized_entropy(["y", "n", "n", "y"], [0.8, 0.3, 0.1, 0.6], pos_label="y")
    0.4314
    """
    params = NORMALIZED_ENTROPY.check_params(
        eps=eps, negative_sampling_rate=negative_sampling_rate, pos_label=pos_label
    )
    columns = {"y_true": y_true, "y_prob": y_prob, "sample_weight": sample_weight}
    result: float = run_definition(NORMALIZED_ENTROPY, params, columns, func="normalized_entropy")
    return result


def error_sums(a: np.ndarray, b: np.ndarray, w: np.ndarray | None) -> ErrorSums:
    """The :class:`~receval.engine.states.ErrorSums` of the errors ``a - b`` (weights ``w``).

    Each error is ``a - b`` rounded once, held as ``d' 2**k`` (see ``ErrorSums``); both
    depend on the row alone, so any split of the rows gives the same sums.
    """
    d, k = _scaled_errors(a, b)
    weight: Term = (np.array([float(len(a))]) if w is None else w, None, "value")
    k_squared = k_absolute = k
    far = (
        None
        if w is None or not len(w)
        else (w > 2.0**WEIGHT_SHIFT) | (w < 2.0**-WEIGHT_SHIFT) & (w > 0)
    )
    if w is not None and far is not None and far.any():
        # weights near 1e308 (near 1e-300): their rows' weights times 2**-512 (2**512),
        # the scales 512 up (down), so that no term over- or underflows
        shift = np.where(far, np.where(w > 1.0, WEIGHT_SHIFT, -WEIGHT_SHIFT), 0)
        w = np.where(far & (w > 0), np.ldexp(w, -shift), w)
        base = np.zeros(len(a), dtype=np.int64) if k is None else k
        k_squared = base + shift // 2
        k_absolute = base + shift
    squared = _terms_by_scale("square", d, w, k_squared)
    absolute = _terms_by_scale("abs", d, w, k_absolute)
    total, *sums = exact_sums([weight] + [t for _, t in squared + absolute])
    scales = [scale for scale, _ in squared + absolute]
    n = len(squared)
    return ErrorSums(dict(zip(scales[:n], sums[:n], strict=True)),
                     dict(zip(scales[n:], sums[n:], strict=True)), total, len(a))  # fmt: skip


def _terms_by_scale(
    form: str, d: np.ndarray, w: np.ndarray | None, k: np.ndarray | None
) -> list[tuple[int, Term]]:
    """``(scale, term of the sum of w form(d))`` over the rows of each scale (``k`` None:
    all of scale 0)."""
    if k is None:
        return [(0, (d, w, form))]
    return [(scale, (d[k == scale], None if w is None else w[k == scale], form))
            for scale in distinct(k).tolist()]  # fmt: skip


def _scaled_errors(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """``(d, k)`` with ``d * 2**k`` the error ``a - b`` rounded once, ``k`` a multiple of
    ``ERROR_SCALE_STEP`` and ``|d|`` in ``[2**-129, 2**128)`` (or 0): powers of two are
    exact, so the rounding is that of ``a - b`` even where ``a - b`` would overflow.
    ``k`` is None where every error is of scale 1 (the errors as they are)."""
    if not len(a):
        return a - b, None
    top = max(float(np.abs(a).max()), float(np.abs(b).max()))
    if top <= 2.0**1000:  # a - b does not overflow
        d = a - b
        size = np.abs(d)
        if size.max() < 2.0**128 and np.min(size, where=size > 0, initial=1.0) >= 2.0**-129:
            return d, None
        base = np.zeros(len(a), dtype=np.int64)
    else:
        shift = 512
        big = np.maximum(np.abs(a), np.abs(b)) > 2.0**1000
        d = np.where(big, np.ldexp(a, -shift) - np.ldexp(b, -shift), a - np.where(big, 0.0, b))
        base = np.where(big, shift, 0)
    exponent = np.frexp(d)[1] + base
    k = ERROR_SCALE_STEP * np.round(exponent / ERROR_SCALE_STEP).astype(np.int64)
    return np.ldexp(d, (base - k).astype(np.int32)), k


def _error(func: str, y_true: Any, y_pred: Any, sample_weight: Any) -> float:
    columns = {"y_true": y_true, "y_pred": y_pred, "sample_weight": sample_weight}
    result: float = run_definition(ERRORS[func], {}, columns, func=func)
    return result


def _document(name: str, other: str, example: str) -> Callable[[_F], _F]:
    """Fill the shared sections of the error metrics' docstrings (``{sections}``)."""

    def fill(func: _F) -> _F:
        text = _ERROR_SECTIONS.format(name=name, func=func.__name__, other=other, value=example)
        func.__doc__ = (func.__doc__ or "").replace("{sections}", text.strip())
        return func

    return fill


_ERROR_SECTIONS = """
Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True values (e.g. ratings).
    y_pred : array-like of shape (n_samples,)
        Predicted values.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights.

    Returns
    -------
    {name} : float
        Non-negative; lower is better.

    See Also
    --------
    {other}

    Examples
    --------
    >>> from receval import {func}
    >>> {func}([3, 4, 5], [2.5, 4, 6])
    {value}
"""


@_document("rmse", "mean_absolute_error : Less sensitive to large errors.", "0.6455")
def root_mean_squared_error(
    y_true: ArrayLike, y_pred: ArrayLike, *, sample_weight: ArrayLike | None = None
) -> float:
    """Compute the root mean squared error ``sqrt(mean((y - y_hat)^2))``.

    {sections}
    """
    return _error("root_mean_squared_error", y_true, y_pred, sample_weight)


@_document("mae", "root_mean_squared_error : Penalises large errors more.", "0.5")
def mean_absolute_error(
    y_true: ArrayLike, y_pred: ArrayLike, *, sample_weight: ArrayLike | None = None
) -> float:
    """Compute the mean absolute error ``mean(|y - y_hat|)``.

    {sections}
    """
    return _error("mean_absolute_error", y_true, y_pred, sample_weight)


# ------------------------------------------------------------------ definitions
# What receval.metric, receval.scan columns and Spark run for these metrics: the
# exact sums above, added batch by batch.
def _check_log_loss(
    func: str,
    /,
    eps: float | str = "auto",
    normalize: bool = True,
    negative_sampling_rate: float = 1.0,
    pos_label: Any = None,
) -> dict[str, Any]:
    """Log loss's options checked, their errors naming ``func`` (the function called:
    ``log_loss``, ``receval.compute('log_loss')``, ``receval.metric('log_loss')``)."""
    v.check_option(normalize, "normalize", func, [False, True])
    rate = check_sampling_rate(negative_sampling_rate, func)
    return {"eps": check_eps(eps, func), "normalize": bool(normalize),
            "negative_sampling_rate": rate, "pos_label": pos_label}  # fmt: skip


def _finalize_log_loss(params: dict[str, Any], state: Any) -> float:
    if not params["normalize"]:
        m, k = scaled_value(state.loss, state.big_loss)
        with np.errstate(over="ignore"):  # a sum beyond float64's range is an infinity
            return float(np.ldexp(m, k + state.w_shift))
    if state.weight.value == 0:
        return warn_undefined(ZERO_WEIGHT)
    result: float = state.mean_loss()
    return result


def _check_ne(
    eps: float | str = "auto", negative_sampling_rate: float = 1.0, pos_label: Any = None
) -> dict[str, Any]:
    func = "normalized_entropy"
    rate = check_sampling_rate(negative_sampling_rate, func)
    return {"eps": check_eps(eps, func), "negative_sampling_rate": rate, "pos_label": pos_label}


def _finalize_ne(params: dict[str, Any], state: Any) -> float:
    """NE from the weighted mean log loss and the weighted share of positives."""
    if state.weight.value == 0:
        return warn_undefined(
            "normalized_entropy: every sample weight is zero, so NE is undefined (returned as nan)."
        )
    ne: float | None = state.normalized_entropy()
    if ne is None:
        return warn_undefined(
            "normalized_entropy: y_true has a single class, so the base rate's entropy is 0 "
            "and NE is undefined (returned as nan)."
        )
    return ne


LOG_LOSS = register(
    MetricDefinition(
        name="log_loss",
        check_params=_check_log_loss,
        prepare=recalibrating(totals_prepare("log_loss", "y_pred")),
        **totals_updates("log_loss", loss=True, clicks=False),
        empty=totals_empty,
        finalize=_finalize_log_loss,
        scale_free=lambda params: bool(params["normalize"]),
        one_partition=_log_loss_one_call,
        checks_caller=True,  # the option messages name the caller (a batch's: MetricDefinition.add)
    ),
)
NORMALIZED_ENTROPY = register(
    MetricDefinition(
        name="normalized_entropy",
        check_params=_check_ne,
        prepare=recalibrating(totals_prepare("normalized_entropy", "y_prob")),
        **totals_updates("normalized_entropy", loss=True, clicks=True),
        empty=totals_empty,
        finalize=_finalize_ne,
        scale_free=always,
    ),
)


def _errors_prepare(func: str) -> Any:
    def prepare(
        params: dict[str, Any], y_true: Any, y_pred: Any, sample_weight: Any = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        yt, yp, sw = data_columns(
            func, ("y_true", y_true), ("y_pred", y_pred), ("sample_weight", sample_weight)
        )
        a = v.check_finite(v.as_float(yt, "y_true", func), "y_true", func)
        b = v.check_finite(v.as_float(yp, "y_pred", func), "y_pred", func)
        return a, b, v.check_sample_weight(sw, len(a), func)

    return prepare


def _errors_update(params: dict[str, Any], batch: Any) -> ErrorSums:
    return error_sums(*batch)


def _errors_empty(params: dict[str, Any]) -> ErrorSums:
    return ErrorSums({}, {}, ExactSum.zero(), 0)


def _errors_finalize(kind: str) -> Any:
    def finalize(params: dict[str, Any], state: ErrorSums) -> float:
        """RMSE or MAE (weights near 1e308 or 1e-300 too: see
        :func:`~receval.engine.sums.scaled_value`)."""
        if state.weight.value == 0:
            return warn_undefined(f"{kind}: no row of non-zero weight (returned as nan).")
        weight, k = scaled_value(state.weight)
        if kind == "root_mean_squared_error":
            x, e = state.mean_squared()
            return float(np.ldexp(np.sqrt(x / weight), (e - k) // 2))
        x, e = state.mean_absolute()
        return float(np.ldexp(x / weight, e - k))

    return finalize


ERRORS: dict[str, MetricDefinition] = {}
for _name in ("root_mean_squared_error", "mean_absolute_error"):
    ERRORS[_name] = register(
        MetricDefinition(
            name=_name,
            check_params=no_options,
            prepare=_errors_prepare(_name),
            update=_errors_update,
            empty=_errors_empty,
            finalize=_errors_finalize(_name),
            scale_free=always,
        ),
    )

"""Metrics on hard class labels: confusion matrix, accuracy, precision, recall, F-scores.

Every function here follows scikit-learn's signature and semantics (see each
docstring for the few documented differences). Binary and multiclass labels
may be ints, bools, floats or strings; multilabel indicator matrices are not
supported.

Implementation: the labels are encoded once to integer codes (offsets from the
minimum for integer labels with a small range, ``np.unique`` otherwise), and a
single ``np.bincount`` of ``true_code * n_classes + pred_code`` gives the
confusion matrix, from which :func:`_class_counts` derives the one-vs-rest
counts TP, FP, FN, TN and the support of every class. Each metric is a thin
formula over those counts.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Literal, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import _validation as _v
from ..exceptions import InputValidationError, UndefinedMetricWarning

__all__ = [
    "accuracy_score",
    "confusion_matrix",
    "error_rate",
    "f1_score",
    "false_positive_rate",
    "fbeta_score",
    "precision_score",
    "recall_score",
    "specificity_score",
]

Label = int | float | bool | str
Average = Literal["binary", "micro", "macro", "weighted"] | None
ZeroDivision = Literal["warn"] | float

_AVERAGES = ("binary", "micro", "macro", "weighted", None)
_MIN_CELLS = 1 << 16  # joint-count tables up to max(n_samples, this) cells are always fine
_SAMPLE = 4096  # size of the sample used to guess the distinct labels


# ---------------------------------------------------------------- validation and encoding
class _Data(NamedTuple):
    y_true: np.ndarray
    y_pred: np.ndarray
    weight: np.ndarray | None  # float64, or None for unit weights
    integer_weights: bool  # no weights, or weights of an integer/bool dtype


def _check_data(func: str, y_true: Any, y_pred: Any, sample_weight: Any) -> _Data:
    yt = _v.as_class_labels(y_true, "y_true", func)
    yp = _v.as_class_labels(y_pred, "y_pred", func)
    sw = None if sample_weight is None else _v.as_1d(sample_weight, "sample_weight", func)
    n = _v.check_same_length(func, y_true=yt, y_pred=yp, sample_weight=sw)
    _v.check_not_empty(n, "y_true", func)
    _v.check_same_label_type(func, y_true=yt, y_pred=yp)
    if yp.dtype.kind == "f":
        # non-integral float labels are classes when y_true has them too; otherwise they
        # are scores or probabilities passed by mistake, which would count as classes
        fraction = np.unique(yp[yp != np.floor(yp)])
        stray = fraction[~np.isin(fraction, yt)] if fraction.size else fraction
        if stray.size:
            raise InputValidationError(
                f"{func}: y_pred must hold class labels. Got non-integer values "
                f"{_v.format_values(stray)} that are not labels of y_true; these look like "
                f"probabilities or scores: threshold them first, e.g. "
                f"y_pred = (y_prob >= 0.5).astype(int)."
            )
    integer_weights = sw is None or sw.dtype.kind in "biu"
    w = _v.check_sample_weight(sw, n, func)
    return _Data(yt, yp, w, integer_weights)


class _Tally(NamedTuple):
    """Counts over the sorted distinct labels (``classes``) of y_true and y_pred."""

    classes: np.ndarray
    matrix: np.ndarray | None  # (k, k) confusion matrix, or None when k * k is too large
    tp: np.ndarray  # (k,) weight of samples with true == pred == class
    fp: np.ndarray  # (k,) predicted as the class, true label another one
    fn: np.ndarray  # (k,) true label the class, predicted as another one
    total: float  # total weight
    codes: tuple[np.ndarray, np.ndarray] | None  # (true, pred) codes, kept when matrix is None


def _small_int_codes(
    yt: np.ndarray, yp: np.ndarray, max_cells: int
) -> tuple[np.ndarray, np.ndarray, int, int] | None:
    """Offsets ``y - lo`` as intp when all labels are integers in a range ``r`` with r*r small."""
    if yt.dtype.kind not in "biuf" or yp.dtype.kind not in "biuf":
        return None
    if yt.dtype == np.bool_:
        yt = yt.view(np.uint8)
    if yp.dtype == np.bool_:
        yp = yp.view(np.uint8)
    lo = math.floor(min(yt.min().item(), yp.min().item()))  # Python ints: no overflow
    hi = math.floor(max(yt.max().item(), yp.max().item()))
    if not (-(2**62) < lo and hi < 2**62) or (hi - lo + 1) ** 2 > max_cells:
        return None
    codes = []
    for y in (yt, yp):
        if y.dtype.kind == "f":
            yi = y.astype(np.intp)
            if not np.array_equal(yi, y):  # non-integral float labels
                return None
        else:
            yi = y.astype(np.intp, copy=False)
        codes.append(yi - lo if lo != 0 else yi)
    return codes[0], codes[1], lo, hi - lo + 1


def _encode(yt: np.ndarray, yp: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sorted distinct labels of y_true and y_pred, and the codes of both.

    Labels usually take few distinct values: guess them from a strided sample,
    find every sample's code with a binary search (O(n log k) instead of an
    O(n log n) sort of all labels), and add the values the guess missed. Data
    with many distinct labels goes straight to ``np.unique``.
    """
    n = len(yt)
    sample = max(1, n // _SAMPLE)
    guess = np.union1d(yt[::sample], yp[::sample])
    if len(guess) * 16 > min(n, _SAMPLE):
        classes, inverse = np.unique(np.concatenate([yt, yp]), return_inverse=True)
        return classes, inverse[:n], inverse[n:]
    codes, missed = [], []
    for y in (yt, yp):
        pos = np.minimum(np.searchsorted(guess, y), len(guess) - 1)
        miss = guess[pos] != y
        codes.append(pos)
        missed.append(y[miss] if miss.any() else None)
    if missed[0] is None and missed[1] is None:
        return guess, codes[0], codes[1]
    extra = [m for m in missed if m is not None]
    classes = np.union1d(guess, np.concatenate(extra) if len(extra) == 2 else extra[0])
    return classes, np.searchsorted(classes, yt), np.searchsorted(classes, yp)


def _tally(data: _Data) -> _Tally:
    """Encode the labels and count them with one ``np.bincount``."""
    yt, yp, w = data.y_true, data.y_pred, data.weight
    n = len(yt)
    max_cells = max(n, _MIN_CELLS)
    total = n if w is None else float(w.sum())
    small = _small_int_codes(yt, yp, max_cells)
    if small is not None:
        t, p, lo, r = small
        flat = t * r + p
        cells = np.bincount(flat, minlength=r * r).reshape(r, r)
        present = np.flatnonzero(cells.any(axis=0) | cells.any(axis=1))
        if w is not None:
            cells = np.bincount(flat, weights=w, minlength=r * r).reshape(r, r)
        if len(present) < r:
            cells = cells[np.ix_(present, present)]
        dtype = np.result_type(yt.dtype, yp.dtype)
        classes = (present + lo).astype(dtype)
        matrix = cells
        codes = None
    else:
        classes, t, p = _encode(yt, yp)
        k = len(classes)
        if k * k <= max_cells:
            matrix = np.bincount(t * k + p, weights=w, minlength=k * k).reshape(k, k)
            codes = None
        else:  # too many classes for a k x k table: three bincounts instead
            matrix = None
            codes = (t, p)
            hit = t == p
            miss = ~hit
            tp = np.bincount(t[hit], None if w is None else w[hit], minlength=k)
            w_miss = None if w is None else w[miss]
            fp = np.bincount(p[miss], w_miss, minlength=k)
            fn = np.bincount(t[miss], w_miss, minlength=k)
            return _Tally(classes, None, tp, fp, fn, total, codes)
    # FP and FN as sums of the off-diagonal cells, not column/row sums minus TP: with
    # weights of very different sizes, the subtraction could lose them entirely
    off = matrix.copy()
    np.fill_diagonal(off, 0)
    return _Tally(
        classes, matrix, np.diagonal(matrix).copy(), off.sum(axis=0), off.sum(axis=1), total,
        codes,
    )  # fmt: skip


def _positions(classes: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Index of each value in the sorted ``classes``, or -1 where it is absent."""
    if (classes.dtype.kind == "U") != (values.dtype.kind == "U"):
        return np.full(len(values), -1, dtype=np.intp)
    pos = np.minimum(np.searchsorted(classes, values), len(classes) - 1)
    return np.where(classes[pos] == values, pos, -1).astype(np.intp)


def _check_labels(labels: Any, data: _Data, func: str) -> np.ndarray:
    lab = _v.as_class_labels(labels, "labels", func)
    _v.check_same_label_type(func, y_true=data.y_true, y_pred=data.y_pred, labels=lab)
    return _v.check_labels_parameter(lab, func)


def _take(values: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """``values[idx]`` with 0 where ``idx`` is -1 (a label absent from the data)."""
    out = values[np.maximum(idx, 0)]
    out[idx < 0] = 0
    return out


# ---------------------------------------------------------------- per-class counts
class _Counts(NamedTuple):
    """One-vs-rest counts of the selected labels (pooled into one entry for micro)."""

    labels: np.ndarray  # the selected labels, in output order
    tp: np.ndarray
    fp: np.ndarray
    fn: np.ndarray
    tn: np.ndarray
    support: np.ndarray  # tp + fn: weight of samples whose true label is the label
    average: str | None


def _class_counts(
    func: str,
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any,
    pos_label: Any,
    average: Any,
    sample_weight: Any,
) -> _Counts:
    """Validate everything and return TP, FP, FN, TN and support of the selected labels.

    For each selected label c, with every sample counted once (weighted by its
    sample weight): TP = true c and predicted c; FP = predicted c, true not c;
    FN = true c, predicted not c; TN = total - TP - FP - FN. Samples whose
    labels are outside ``labels`` still count as FP/FN/TN of the selected ones,
    as in scikit-learn. With ``average="micro"`` the counts are summed over the
    selected labels into arrays of length 1.
    """
    _v.check_option(average, "average", func, _AVERAGES)
    data = _check_data(func, y_true, y_pred, sample_weight)
    tally = _tally(data)
    classes = tally.classes
    if average != "binary" and pos_label not in (None, 1):
        warnings.warn(
            f"{func}: pos_label={pos_label!r} is ignored when average={average!r} (it only "
            f"applies to average='binary'); pass labels=[{pos_label!r}] to score that label "
            f"alone.",
            UserWarning,
            stacklevel=3,
        )
    if average == "binary":
        pos_label = _v.check_label_value(pos_label, "pos_label", func)
        idx = _positions(classes, np.asarray([pos_label]))
        _v.check_binary_classes(classes, pos_label, bool(idx[0] >= 0), func)
        selected = np.asarray([pos_label])
    elif labels is None:
        selected = classes
        idx = np.arange(len(classes), dtype=np.intp)
    else:
        selected = _check_labels(labels, data, func)
        idx = _positions(classes, selected)

    tp = _take(tally.tp, idx)
    fp = _take(tally.fp, idx)
    fn = _take(tally.fn, idx)
    support = tp + fn
    # negatives (TN + FP) = total - support, summed over the other classes instead of
    # subtracted, so that it is 0 exactly when they carry no weight: float rounding
    # must not turn an undefined specificity into a number, or the reverse
    every_support = tally.tp + tally.fn
    zero = np.zeros(1, dtype=every_support.dtype)
    before = np.concatenate([zero, np.cumsum(every_support)[:-1]])
    after = np.concatenate([np.cumsum(every_support[::-1])[::-1][1:], zero])
    negatives = np.where(idx >= 0, (before + after)[np.maximum(idx, 0)], tally.total)
    tn = np.maximum(negatives - fp, 0)
    if average == "micro":
        tp, fp, fn, tn, support = (a.sum(keepdims=True) for a in (tp, fp, fn, tn, support))
    return _Counts(selected, tp, fp, fn, tn, support, average)


def _ratio(
    numerator: np.ndarray,
    denominator: np.ndarray,
    counts: _Counts,
    *,
    zero_division: str | float,
    func: str,
    reason: str,
) -> np.ndarray:
    """``numerator / denominator`` as float64, with ``zero_division`` where it is 0."""
    numerator = np.asarray(numerator, dtype=np.float64)
    denominator = np.asarray(denominator, dtype=np.float64)
    zero = denominator == 0
    result = numerator / np.where(zero, 1.0, denominator)
    if zero.any():
        result[zero] = 0.0 if zero_division == "warn" else zero_division
        if zero_division == "warn":
            if counts.average == "micro":
                where = f"labels {_v.format_values(counts.labels)} pooled (average='micro')"
            else:
                bad = counts.labels[zero]
                noun = "label" if len(bad) == 1 else "labels"
                shown = _v.format_values(bad)
                where = f"{noun} {shown[1:-1] if len(bad) == 1 else shown}"
            warnings.warn(
                f"{func} is ill-defined and set to 0.0 for {where}: {reason}; pass "
                f"zero_division=0.0, 1.0 or np.nan to choose the value and silence this warning.",
                UndefinedMetricWarning,
                stacklevel=3,
            )
    return result


def _average(values: np.ndarray, counts: _Counts) -> float | NDArray[np.float64]:
    """Average per-label values as scikit-learn does, ignoring NaN (zero_division=np.nan)."""
    if counts.average is None:
        return values
    keep = ~np.isnan(values)
    if not keep.any():
        return float("nan")
    kept = values[keep]
    if counts.average == "weighted":
        weights = np.asarray(counts.support, dtype=np.float64)[keep]
        if weights.sum() > 0:
            return float((kept * weights).sum() / weights.sum())
    return float(kept.mean())


# ---------------------------------------------------------------- public API
def confusion_matrix(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    labels: ArrayLike | None = None,
    sample_weight: ArrayLike | None = None,
    normalize: Literal["true", "pred", "all"] | None = None,
) -> NDArray[Any]:
    """Compute the confusion matrix: rows are true classes, columns predicted ones.

    Entry ``[i, j]`` is the number (or total weight) of samples whose true
    label is ``labels[i]`` and whose predicted label is ``labels[j]``, as in
    :func:`sklearn.metrics.confusion_matrix`.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels: ints, bools, floats or strings (one type for all inputs).
    y_pred : array-like of shape (n_samples,)
        Predicted labels, of the same type as ``y_true``.
    labels : array-like of shape (n_classes,), default=None
        Classes to index the matrix, in this order; labels absent from the data
        give rows and columns of zeros, and samples whose true or predicted
        label is not listed are left out. At least one must occur in
        ``y_true``. By default, the sorted distinct labels of ``y_true`` and
        ``y_pred``.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative per-sample weights.
    normalize : {"true", "pred", "all"}, default=None
        Divide by the row sums (true classes), the column sums (predicted
        classes) or the grand total; a zero sum gives zeros.

    Returns
    -------
    matrix : ndarray of shape (n_classes, n_classes)
        int64 counts when there are no weights or the weights have an integer
        dtype, float64 otherwise or when ``normalize`` is given.

    Raises
    ------
    InputValidationError
        If the inputs have different lengths, are empty or 2-D, hold NaN,
        mix numbers and strings, or no label of ``labels`` occurs in ``y_true``.
    InvalidParameterError
        If ``normalize`` is not one of the options.

    See Also
    --------
    precision_score, recall_score, specificity_score : ratios of its entries.

    Notes
    -----
    Unlike scikit-learn, a 1 x 1 result gives no warning, float labels need
    not be integral, and duplicated ``labels`` raise an error.

    Examples
    --------
    >>> from receval import confusion_matrix
    >>> y_true = ["cat", "dog", "dog", "bird", "cat", "dog"]
    >>> y_pred = ["cat", "dog", "cat", "bird", "bird", "dog"]
    >>> confusion_matrix(y_true, y_pred)
    array([[1, 0, 0],
           [1, 1, 0],
           [0, 1, 2]])
    >>> confusion_matrix(y_true, y_pred, labels=["dog", "cat"], normalize="true")
    array([[0.6667, 0.3333],
           [0.    , 1.    ]])
    """
    func = "confusion_matrix"
    _v.check_option(normalize, "normalize", func, ("true", "pred", "all", None))
    data = _check_data(func, y_true, y_pred, sample_weight)
    tally = _tally(data)
    k = len(tally.classes)
    if labels is None:
        selected = tally.classes
        idx = np.arange(k, dtype=np.intp)
        if k == 1:
            warnings.warn(
                f"{func}: a single label was found in y_true and y_pred; to give the matrix "
                f"the shape of every class, pass labels= with all known labels.",
                UserWarning,
                stacklevel=2,
            )
    else:
        selected = _check_labels(labels, data, func)
        idx = _positions(tally.classes, selected)
        known = idx >= 0
        if data.weight is None:
            in_true = bool(((tally.tp + tally.fn)[idx[known]] > 0).any())
        else:  # a true class may carry zero weight
            in_true = bool(np.isin(selected[known], data.y_true).any())
        _v.check_labels_in_y_true(selected, in_true, func)
    n_labels = len(selected)
    known = idx >= 0
    if tally.matrix is not None:
        if known.all() and n_labels == k and (idx == np.arange(k)).all():
            matrix = tally.matrix
        else:
            matrix = np.zeros((n_labels, n_labels), dtype=tally.matrix.dtype)
            rows = np.flatnonzero(known)
            matrix[np.ix_(rows, rows)] = tally.matrix[np.ix_(idx[known], idx[known])]
    else:  # many classes: count only the selected pairs
        t, p = tally.codes  # type: ignore[misc]
        position = np.full(k, -1, dtype=np.intp)
        position[idx[known]] = np.flatnonzero(known)
        tc, pc = position[t], position[p]
        keep = (tc >= 0) & (pc >= 0)
        w = None if data.weight is None else data.weight[keep]
        flat = tc[keep] * n_labels + pc[keep]
        matrix = np.bincount(flat, w, minlength=n_labels * n_labels)
        matrix = matrix.reshape(n_labels, n_labels)
    if data.integer_weights:
        matrix = (
            matrix.astype(np.int64)
            if matrix.dtype.kind == "i"
            else np.rint(matrix).astype(np.int64)
        )
    else:
        matrix = matrix.astype(np.float64)
    if normalize is None:
        return matrix
    with np.errstate(all="ignore"):
        if normalize == "true":
            out = matrix / matrix.sum(axis=1, keepdims=True)
        elif normalize == "pred":
            out = matrix / matrix.sum(axis=0, keepdims=True)
        else:
            out = matrix / matrix.sum()
    return np.nan_to_num(out)


def accuracy_score(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    normalize: bool = True,
    sample_weight: ArrayLike | None = None,
) -> float:
    """Compute accuracy: the fraction (or weight) of correctly predicted samples.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels: ints, bools, floats or strings.
    y_pred : array-like of shape (n_samples,)
        Predicted labels, of the same type as ``y_true``.
    normalize : bool, default=True
        If False, return the number (total weight) of correct samples instead
        of their fraction.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative per-sample weights.

    Returns
    -------
    score : float
        (TP + TN) / M in the binary case; in [0, 1] when ``normalize``. nan
        with an ``UndefinedMetricWarning`` if every weight is zero.

    Raises
    ------
    InputValidationError
        If the inputs have different lengths, are empty or 2-D, hold NaN or
        mix numbers and strings.

    See Also
    --------
    error_rate : 1 - accuracy.

    Notes
    -----
    For single-label multiclass data, accuracy equals micro-averaged
    precision, recall and F1.

    Examples
    --------
    >>> from receval import accuracy_score
    >>> accuracy_score([0, 1, 2, 2], [0, 2, 2, 2])
    0.75
    >>> accuracy_score([0, 1, 2, 2], [0, 2, 2, 2], normalize=False)
    3.0
    >>> accuracy_score([0, 1, 2, 2], [0, 2, 2, 2], sample_weight=[1, 3, 1, 1])
    0.5
    """
    return _correct("accuracy_score", y_true, y_pred, normalize, sample_weight, correct=True)


def error_rate(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    normalize: bool = True,
    sample_weight: ArrayLike | None = None,
) -> float:
    """Compute the error rate: the fraction (or weight) of misclassified samples.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels: ints, bools, floats or strings.
    y_pred : array-like of shape (n_samples,)
        Predicted labels, of the same type as ``y_true``.
    normalize : bool, default=True
        If False, return the number (total weight) of misclassified samples
        instead of their fraction.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative per-sample weights.

    Returns
    -------
    error : float
        (FP + FN) / M in the binary case, i.e. ``1 - accuracy_score``; nan
        with an ``UndefinedMetricWarning`` if every weight is zero.

    Raises
    ------
    InputValidationError
        If the inputs have different lengths, are empty or 2-D, hold NaN or
        mix numbers and strings.

    See Also
    --------
    accuracy_score : 1 - error rate.

    Notes
    -----
    The same as :func:`sklearn.metrics.zero_one_loss`.

    Examples
    --------
    >>> from receval import error_rate
    >>> error_rate([0, 1, 2, 2], [0, 2, 2, 2])
    0.25
    >>> error_rate(["a", "b", "b"], ["a", "a", "a"], normalize=False)
    2.0
    """
    return _correct("error_rate", y_true, y_pred, normalize, sample_weight, correct=False)


def _correct(
    func: str, y_true: Any, y_pred: Any, normalize: Any, sample_weight: Any, *, correct: bool
) -> float:
    _v.check_option(normalize, "normalize", func, (True, False))
    data = _check_data(func, y_true, y_pred, sample_weight)
    hits = (data.y_true == data.y_pred) if correct else (data.y_true != data.y_pred)
    if data.weight is None:
        count, total = float(np.count_nonzero(hits)), float(len(hits))
    else:
        count, total = float(data.weight[hits].sum()), float(data.weight.sum())
    if not normalize:
        return count
    if total == 0:
        warnings.warn(
            f"{func} is undefined because every sample weight is zero; returning nan.",
            UndefinedMetricWarning,
            stacklevel=3,
        )
        return float("nan")
    return count / total


_PRF_PARAMETERS = """\
    labels : array-like, default=None
        Labels to score, in this order, when ``average != "binary"``; they may
        include labels absent from the data (their counts are zero) and leave
        out labels present in it (whose samples still count as false positives
        or negatives of the selected labels). By default, the sorted distinct
        labels of ``y_true`` and ``y_pred``.
    pos_label : int, float, bool or str, default=1
        The positive class when ``average="binary"``; ignored otherwise.
    average : {"binary", "micro", "macro", "weighted"} or None, default="binary"
        ``"binary"``: the score of ``pos_label`` (the data must have at most two
        labels). ``"micro"``: the score of the counts summed over ``labels``.
        ``"macro"``: the unweighted mean of the per-label scores.
        ``"weighted"``: their mean weighted by support (the weight of samples
        whose true label is the label). None: the per-label scores.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative per-sample weights.
    zero_division : {"warn", 0.0, 1.0, np.nan}, default="warn"
        Value of a ratio whose denominator is zero. ``"warn"`` gives 0.0 and an
        ``UndefinedMetricWarning``. NaN values are left out of the averages
        (nan if all are)."""

_PRF_RETURNS = """\
    score : float or ndarray of shape (n_labels,)
        A float, or a float64 array in ``labels`` order when ``average=None``."""

_PRF_RAISES = """\
    InputValidationError
        If the inputs have different lengths, are empty or 2-D, hold NaN or mix
        numbers and strings; if ``average="binary"`` and the data has more than
        two labels, or two labels and ``pos_label`` is not one of them.
    InvalidParameterError
        If ``average``, ``zero_division`` or ``pos_label`` is not valid."""


def _document(func: Any) -> Any:
    func.__doc__ = (
        func.__doc__.replace("{parameters}", _PRF_PARAMETERS)
        .replace("{returns}", _PRF_RETURNS)
        .replace("{raises}", _PRF_RAISES)
    )
    return func


@_document
def precision_score(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    labels: ArrayLike | None = None,
    pos_label: Label = 1,
    average: Average = "binary",
    sample_weight: ArrayLike | None = None,
    zero_division: ZeroDivision = "warn",
) -> float | NDArray[np.float64]:
    """Compute precision: TP / (TP + FP), the fraction of predicted positives that are right.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            True labels: ints, bools, floats or strings.
        y_pred : array-like of shape (n_samples,)
            Predicted labels, of the same type as ``y_true``.
    {parameters}

        Returns
        -------
    {returns}

        Raises
        ------
    {raises}

        See Also
        --------
        recall_score, f1_score, confusion_matrix

        Notes
        -----
        Undefined (zero division) for a label that is never predicted. Same
        results as :func:`sklearn.metrics.precision_score`.

        Examples
        --------
        >>> from receval import precision_score
        >>> y_true = [0, 1, 1, 0, 1, 1]
        >>> y_pred = [0, 1, 0, 1, 1, 1]
        >>> precision_score(y_true, y_pred)  # 3 of the 4 predicted 1s are right
        0.75
        >>> precision_score(y_true, y_pred, average=None)
        array([0.5 , 0.75])
        >>> y_true, y_pred = ["a", "b", "c", "a"], ["a", "a", "c", "c"]  # "b" is never predicted
        >>> precision_score(y_true, y_pred, average="macro", zero_division=0.0)
        0.3333
    """
    func = "precision_score"
    zero_division = _v.check_zero_division(zero_division, func)
    c = _class_counts(
        func, y_true, y_pred, labels=labels, pos_label=pos_label, average=average,
        sample_weight=sample_weight,
    )  # fmt: skip
    values = _ratio(
        c.tp, c.tp + c.fp, c, zero_division=zero_division, func=func,
        reason="no predicted samples",
    )  # fmt: skip
    return _average(values, c)


@_document
def recall_score(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    labels: ArrayLike | None = None,
    pos_label: Label = 1,
    average: Average = "binary",
    sample_weight: ArrayLike | None = None,
    zero_division: ZeroDivision = "warn",
) -> float | NDArray[np.float64]:
    """Compute recall (sensitivity, TPR): TP / (TP + FN), the fraction of positives found.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            True labels: ints, bools, floats or strings.
        y_pred : array-like of shape (n_samples,)
            Predicted labels, of the same type as ``y_true``.
    {parameters}

        Returns
        -------
    {returns}

        Raises
        ------
    {raises}

        See Also
        --------
        precision_score, specificity_score, f1_score

        Notes
        -----
        Undefined (zero division) for a label with no true samples. Same results
        as :func:`sklearn.metrics.recall_score`; ``average="weighted"`` recall
        equals accuracy.

        Examples
        --------
        >>> import numpy as np
        >>> from receval import recall_score
        >>> y_true = [0, 1, 1, 0, 1, 1]
        >>> y_pred = [0, 1, 0, 1, 1, 1]
        >>> recall_score(y_true, y_pred)  # 3 of the 4 true 1s are found
        0.75
        >>> recall_score(y_true, y_pred, pos_label=0)
        0.5
        >>> recall_score(y_true, y_pred, labels=[1, 2], average=None, zero_division=np.nan)
        array([0.75,  nan])
    """
    func = "recall_score"
    zero_division = _v.check_zero_division(zero_division, func)
    c = _class_counts(
        func, y_true, y_pred, labels=labels, pos_label=pos_label, average=average,
        sample_weight=sample_weight,
    )  # fmt: skip
    values = _ratio(
        c.tp, c.support, c, zero_division=zero_division, func=func, reason="no true samples"
    )
    return _average(values, c)


@_document
def specificity_score(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    labels: ArrayLike | None = None,
    pos_label: Label = 1,
    average: Average = "binary",
    sample_weight: ArrayLike | None = None,
    zero_division: ZeroDivision = "warn",
) -> float | NDArray[np.float64]:
    """Compute specificity (TNR): TN / (TN + FP), the fraction of negatives predicted negative.

        For a label c, the negatives are the samples whose true label is not c,
        and TN = total - TP - FP - FN counts those not predicted as c.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            True labels: ints, bools, floats or strings.
        y_pred : array-like of shape (n_samples,)
            Predicted labels, of the same type as ``y_true``.
    {parameters}

        Returns
        -------
    {returns}

        Raises
        ------
    {raises}

        See Also
        --------
        false_positive_rate : 1 - specificity.
        recall_score : specificity is the recall of the negative class in binary data.

        Notes
        -----
        scikit-learn has no specificity; the conventions are those of its recall.
        Per label, the counts are one-vs-rest over all samples (samples of labels
        left out of ``labels`` included): TN = total - TP - FP - FN, with every
        count the total sample weight of its samples. ``"micro"`` sums TN and FP
        over the selected labels before dividing; ``"weighted"`` weights each
        label by its support (true samples), as for the other scores. Undefined
        (zero division) for a label that is the true label of every sample.

        Examples
        --------
        >>> from receval import specificity_score
        >>> y_true = [0, 1, 1, 0, 1, 1]
        >>> y_pred = [0, 1, 0, 1, 1, 1]
        >>> specificity_score(y_true, y_pred)  # 1 of the 2 true 0s is predicted 0
        0.5
        >>> specificity_score([0, 1, 2, 2], [0, 2, 2, 1], average=None)
        array([1.    , 0.6667, 0.5   ])
    """
    func = "specificity_score"
    zero_division = _v.check_zero_division(zero_division, func)
    c = _class_counts(
        func, y_true, y_pred, labels=labels, pos_label=pos_label, average=average,
        sample_weight=sample_weight,
    )  # fmt: skip
    values = _ratio(
        c.tn, c.tn + c.fp, c, zero_division=zero_division, func=func,
        reason="no negative samples",
    )  # fmt: skip
    return _average(values, c)


@_document
def false_positive_rate(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    labels: ArrayLike | None = None,
    pos_label: Label = 1,
    average: Average = "binary",
    sample_weight: ArrayLike | None = None,
    zero_division: ZeroDivision = "warn",
) -> float | NDArray[np.float64]:
    """Compute the false positive rate (fall-out): FP / (FP + TN).

        For a label c, the negatives are the samples whose true label is not c;
        FP counts those predicted as c.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            True labels: ints, bools, floats or strings.
        y_pred : array-like of shape (n_samples,)
            Predicted labels, of the same type as ``y_true``.
    {parameters}

        Returns
        -------
    {returns}

        Raises
        ------
    {raises}

        See Also
        --------
        specificity_score : 1 - false positive rate.

        Notes
        -----
        The one-vs-rest counts and averages are those of
        :func:`specificity_score` (TN = total - TP - FP - FN; ``"micro"`` pools FP
        and TN; ``"weighted"`` uses the support). Undefined (zero division) for a
        label that is the true label of every sample. The lower the better,
        despite the averaging options shared with the scores.

        Examples
        --------
        >>> from receval import false_positive_rate
        >>> y_true = [0, 1, 1, 0, 1, 1]
        >>> y_pred = [0, 1, 0, 1, 1, 1]
        >>> false_positive_rate(y_true, y_pred)  # 1 of the 2 true 0s is predicted 1
        0.5
        >>> false_positive_rate([0, 1, 2, 2], [0, 2, 2, 1], average="micro")
        0.25
    """
    func = "false_positive_rate"
    zero_division = _v.check_zero_division(zero_division, func)
    c = _class_counts(
        func, y_true, y_pred, labels=labels, pos_label=pos_label, average=average,
        sample_weight=sample_weight,
    )  # fmt: skip
    values = _ratio(
        c.fp, c.fp + c.tn, c, zero_division=zero_division, func=func,
        reason="no negative samples",
    )  # fmt: skip
    return _average(values, c)


def _fbeta(
    func: str,
    beta: float,
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any,
    pos_label: Any,
    average: Any,
    sample_weight: Any,
    zero_division: Any,
) -> float | NDArray[np.float64]:
    zero_division = _v.check_zero_division(zero_division, func)
    c = _class_counts(
        func, y_true, y_pred, labels=labels, pos_label=pos_label, average=average,
        sample_weight=sample_weight,
    )  # fmt: skip
    beta2 = beta * beta
    # (1 + b^2) P R / (b^2 P + R) = (1 + b^2) TP / (b^2 (TP + FN) + TP + FP): defined
    # (possibly 0) as soon as there is a true or a predicted sample of the label;
    # beta = 0 gives precision, and beta = inf, its limit, recall
    tp = c.tp.astype(np.float64)
    if np.isinf(beta2):
        numerator, denominator = tp, c.support.astype(np.float64)
        reason = "no true samples"
    else:
        numerator = (1 + beta2) * tp
        denominator = beta2 * c.support.astype(np.float64) + (tp + c.fp)
        reason = "no true nor predicted samples"
    values = _ratio(
        numerator, denominator, c, zero_division=zero_division, func=func, reason=reason,
    )  # fmt: skip
    return _average(values, c)


@_document
def f1_score(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    labels: ArrayLike | None = None,
    pos_label: Label = 1,
    average: Average = "binary",
    sample_weight: ArrayLike | None = None,
    zero_division: ZeroDivision = "warn",
) -> float | NDArray[np.float64]:
    """Compute the F1 score: the harmonic mean of precision and recall.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            True labels: ints, bools, floats or strings.
        y_pred : array-like of shape (n_samples,)
            Predicted labels, of the same type as ``y_true``.
    {parameters}

        Returns
        -------
    {returns}

        Raises
        ------
    {raises}

        See Also
        --------
        fbeta_score : weighs recall ``beta`` times as much as precision.

        Notes
        -----
        F1 = 2 P R / (P + R) = 2 TP / (2 TP + FP + FN), computed from the counts
        as in scikit-learn >= 1.3: it is 0 (not undefined) when precision and
        recall are both 0 but the label occurs, and ``zero_division`` only when
        TP + FP + FN = 0 (the label is neither true nor predicted); only that case
        warns. Micro-averaged F1 equals accuracy when ``labels`` covers every class.

        Examples
        --------
        >>> from receval import f1_score
        >>> y_true = [0, 1, 1, 0, 1, 1]
        >>> y_pred = [0, 1, 0, 1, 1, 1]
        >>> f1_score(y_true, y_pred)
        0.75
        >>> f1_score(["a", "b", "c", "a"], ["a", "a", "c", "c"], average=None)
        array([0.5   , 0.    , 0.6667])
        >>> f1_score(["a", "b", "c", "a"], ["a", "a", "c", "c"], average="micro")
        0.5
    """
    return _fbeta(
        "f1_score", 1.0, y_true, y_pred, labels=labels, pos_label=pos_label, average=average,
        sample_weight=sample_weight, zero_division=zero_division,
    )  # fmt: skip


@_document
def fbeta_score(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    beta: float,
    labels: ArrayLike | None = None,
    pos_label: Label = 1,
    average: Average = "binary",
    sample_weight: ArrayLike | None = None,
    zero_division: ZeroDivision = "warn",
) -> float | NDArray[np.float64]:
    """Compute the F-beta score: a weighted harmonic mean of precision and recall.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            True labels: ints, bools, floats or strings.
        y_pred : array-like of shape (n_samples,)
            Predicted labels, of the same type as ``y_true``.
        beta : float
            Weight of recall relative to precision, in [0, inf]: beta > 1
            favours recall, beta < 1 precision, beta = 1 gives F1, beta = 0
            precision and beta = inf recall (as scikit-learn).
    {parameters}

        Returns
        -------
    {returns}

        Raises
        ------
        InputValidationError
            If the inputs have different lengths, are empty or 2-D, hold NaN or mix
            numbers and strings; if ``average="binary"`` and the data has more than
            two labels, or two labels and ``pos_label`` is not one of them.
        InvalidParameterError
            If ``beta`` is not a positive finite number, or ``average``,
            ``zero_division`` or ``pos_label`` is not valid.

        See Also
        --------
        f1_score : beta = 1.

        Notes
        -----
        F = (1 + b²) P R / (b² P + R) = (1 + b²) TP / ((1 + b²) TP + b² FN + FP),
        computed from the counts as in scikit-learn >= 1.3: 0 (not undefined)
        when precision and recall are both 0 but the label occurs, and
        ``zero_division`` only when TP + FP + FN = 0; only that case warns.

        Examples
        --------
        >>> from receval import fbeta_score
        >>> y_true = [0, 1, 1, 0, 1, 1]
        >>> y_pred = [0, 1, 0, 0, 0, 1]  # precision 1, recall 0.5
        >>> fbeta_score(y_true, y_pred, beta=2)  # 5 * 0.5 / (4 + 0.5)
        0.5556
        >>> fbeta_score(y_true, y_pred, beta=0.5)  # 1.25 * 0.5 / (0.25 + 0.5)
        0.8333
    """
    func = "fbeta_score"
    if not (isinstance(beta, (int, float, np.integer, np.floating)) and beta == np.inf):
        beta = _v.check_number(beta, "beta", func, low=0.0)
    return _fbeta(
        func, float(beta), y_true, y_pred, labels=labels, pos_label=pos_label, average=average,
        sample_weight=sample_weight, zero_division=zero_division,
    )  # fmt: skip

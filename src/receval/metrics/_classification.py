"""Metrics on hard class labels: the confusion matrix, accuracy and the error rate.

Every function here follows scikit-learn's signature and semantics (see each
docstring for the few documented differences). Binary and multiclass labels
may be ints, bools, floats or strings; multilabel indicator matrices are not
supported. The labels are encoded and counted in
:mod:`receval.metrics._label_counts`; precision, recall, specificity and the
F-scores are in :mod:`receval.metrics._precision_recall`.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import _validation as _v
from ..exceptions import UndefinedMetricWarning, warn
from ._label_counts import (
    check_label_data,
    check_labels,
    check_labels_in_y_true,
    label_positions,
    tally_labels,
)

__all__ = [
    "accuracy_score",
    "confusion_matrix",
    "error_rate",
]


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
    # normalized: only the ratios of the weights matter (scaled, the sums do not overflow)
    data = check_label_data(func, y_true, y_pred, sample_weight, relative=normalize is not None)
    tally = tally_labels(data)
    k = len(tally.classes)
    if labels is None:
        selected = tally.classes
        idx = np.arange(k, dtype=np.intp)
        if k == 1:
            warn(
                f"{func}: a single label was found in y_true and y_pred; to give the matrix "
                f"the shape of every class, pass labels= with all known labels.",
                UserWarning,
            )
    else:
        selected = check_labels(labels, data, func)
        idx = label_positions(tally.classes, selected)
        known = idx >= 0
        if data.weight is None:
            in_true = bool(((tally.tp + tally.fn)[idx[known]] > 0).any())
        else:  # a true class may carry zero weight
            in_true = bool(np.isin(selected[known], data.y_true).any())
        check_labels_in_y_true(selected, in_true, func)
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
    result: np.ndarray = np.nan_to_num(out)
    return result


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
    data = check_label_data(func, y_true, y_pred, sample_weight, relative=bool(normalize))
    hits = (data.y_true == data.y_pred) if correct else (data.y_true != data.y_pred)
    if data.weight is None:
        count, total = float(np.count_nonzero(hits)), float(len(hits))
    else:
        count, total = float(data.weight[hits].sum()), float(data.weight.sum())
    if not normalize:
        return count
    if total == 0:
        warn(
            f"{func} is undefined because every sample weight is zero; returning nan.",
            UndefinedMetricWarning,
        )
        return float("nan")
    return count / total

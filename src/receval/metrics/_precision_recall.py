"""Precision, recall, specificity, false positive rate and F-scores of hard class labels.

Every function here follows scikit-learn's signature and semantics (see each
docstring for the few documented differences). Each score is a ratio of the
one-vs-rest counts (TP, FP, FN, TN and support of every label) of
:func:`receval.metrics._label_counts.class_counts`, computed per label, then
averaged as ``average`` asks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import _validation as _v
from ..exceptions import UndefinedMetricWarning, warn
from ._label_counts import ClassCounts, class_counts

__all__ = [
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


def _ratio(
    numerator: np.ndarray,
    denominator: np.ndarray,
    counts: ClassCounts,
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
            warn(
                f"{func} is ill-defined and set to 0.0 for {where}: {reason}; pass "
                f"zero_division=0.0, 1.0 or np.nan to choose the value and silence this warning.",
                UndefinedMetricWarning,  # the caller of the public score (which calls _score)
            )
    return result


def _average(values: np.ndarray, counts: ClassCounts) -> float | NDArray[np.float64]:
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
        If {invalid}``average``, ``zero_division`` or ``pos_label`` is not valid."""


_LABELS_PARAMETERS = """\
    y_true : array-like of shape (n_samples,)
        True labels: ints, bools, floats or strings.
    y_pred : array-like of shape (n_samples,)
        Predicted labels, of the same type as ``y_true``."""

_BETA = """
    beta : float
        Weight of recall relative to precision, in [0, inf]: beta > 1
        favours recall, beta < 1 precision, beta = 1 gives F1, beta = 0
        precision and beta = inf recall (as scikit-learn)."""


def _document(beta: str = "") -> Callable[[Any], Any]:
    """Write the Parameters, Returns and Raises sections the scores share in place of
    ``{sections}`` in a score's docstring (``beta``: F-beta's own parameter)."""
    raises = _PRF_RAISES.replace("{invalid}", "``beta``, " if beta else "")
    sections = (
        f"    Parameters\n    ----------\n{_LABELS_PARAMETERS}{beta}\n{_PRF_PARAMETERS}\n\n"
        f"    Returns\n    -------\n{_PRF_RETURNS}\n\n    Raises\n    ------\n{raises}"
    )

    def document(func: Any) -> Any:
        func.__doc__ = func.__doc__.replace("    {sections}", sections)
        return func

    return document


#: ``(numerator, denominator, reason)`` of a score from the counts; ``reason``
#: says why a zero denominator leaves the score undefined (for the warning)
Ratio = tuple[np.ndarray, np.ndarray, str]


def _score(
    func: str,
    ratio: Callable[[ClassCounts], Ratio],
    y_true: Any,
    y_pred: Any,
    labels: Any,
    pos_label: Any,
    average: Any,
    sample_weight: Any,
    zero_division: Any,
) -> float | NDArray[np.float64]:
    """Check the arguments, count, and average ``ratio(counts)`` over the labels:
    the body of every score of this module."""
    zero_division = _v.check_zero_division(zero_division, func)
    c = class_counts(
        func, y_true, y_pred, labels=labels, pos_label=pos_label, average=average,
        sample_weight=sample_weight,
    )  # fmt: skip
    numerator, denominator, reason = ratio(c)
    values = _ratio(
        numerator, denominator, c, zero_division=zero_division, func=func, reason=reason,
    )  # fmt: skip
    return _average(values, c)


def _precision(c: ClassCounts) -> Ratio:
    return c.tp, c.tp + c.fp, "no predicted samples"


def _recall(c: ClassCounts) -> Ratio:
    return c.tp, c.support, "no true samples"


def _specificity(c: ClassCounts) -> Ratio:
    return c.tn, c.tn + c.fp, "no negative samples"


def _false_positive_rate(c: ClassCounts) -> Ratio:
    return c.fp, c.fp + c.tn, "no negative samples"


def _fbeta(beta: float) -> Callable[[ClassCounts], Ratio]:
    """The ratio of the F-beta score."""

    def ratio(c: ClassCounts) -> Ratio:
        beta2 = beta * beta
        # (1 + b^2) P R / (b^2 P + R) = (1 + b^2) TP / (b^2 (TP + FN) + TP + FP): defined
        # (possibly 0) as soon as there is a true or a predicted sample of the label;
        # beta = 0 gives precision, and beta = inf, its limit, recall
        tp = c.tp.astype(np.float64)
        if np.isinf(beta2):
            return tp, c.support.astype(np.float64), "no true samples"
        numerator = (1 + beta2) * tp
        denominator = beta2 * c.support.astype(np.float64) + (tp + c.fp)
        return numerator, denominator, "no true nor predicted samples"

    return ratio


@_document()
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

    {sections}

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
    return _score("precision_score", _precision, y_true, y_pred, labels, pos_label, average,
                  sample_weight, zero_division)  # fmt: skip


@_document()
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

    {sections}

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
    return _score("recall_score", _recall, y_true, y_pred, labels, pos_label, average,
                  sample_weight, zero_division)  # fmt: skip


@_document()
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

    {sections}

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
    return _score("specificity_score", _specificity, y_true, y_pred, labels, pos_label, average,
                  sample_weight, zero_division)  # fmt: skip


@_document()
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

    {sections}

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
    return _score("false_positive_rate", _false_positive_rate, y_true, y_pred, labels,
                  pos_label, average, sample_weight, zero_division)  # fmt: skip


@_document()
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

    {sections}

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
    return _score("f1_score", _fbeta(1.0), y_true, y_pred, labels, pos_label, average,
                  sample_weight, zero_division)  # fmt: skip


@_document(_BETA)
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

    {sections}

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
    return _score(func, _fbeta(float(beta)), y_true, y_pred, labels, pos_label, average,
                  sample_weight, zero_division)  # fmt: skip

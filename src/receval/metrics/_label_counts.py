"""Hard class labels encoded and counted once: what the classification metrics share.

The labels are encoded once to integer codes (offsets from the minimum for
integer labels with a small range, ``np.unique`` otherwise), and a single
``np.bincount`` of ``true_code * n_classes + pred_code`` gives the confusion
matrix (:func:`tally_labels`), from which :func:`class_counts` derives the
one-vs-rest counts TP, FP, FN, TN and the support of every class. The checks of
the classes found against ``average='binary'`` and ``labels=``
(:func:`check_binary_classes`, :func:`check_labels_in_y_true`) are here too.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from .. import _validation as _v
from ..data._lookup import distinct
from ..exceptions import InputValidationError, warn

_AVERAGES = ("binary", "micro", "macro", "weighted", None)
_MIN_CELLS = 1 << 16  # joint-count tables up to max(n_samples, this) cells are always fine
_SAMPLE = 4096  # size of the sample used to guess the distinct labels


# ---------------------------------------------------------------- validation and encoding
class LabelData(NamedTuple):
    y_true: np.ndarray
    y_pred: np.ndarray
    weight: np.ndarray | None  # float64, or None for unit weights
    integer_weights: bool  # no weights, or weights of an integer/bool dtype


def check_label_data(
    func: str, y_true: Any, y_pred: Any, sample_weight: Any, *, relative: bool = False
) -> LabelData:
    """The validated labels and weights of a classification metric.

    ``relative=True`` for a metric of ratios of weights (rates, scores, a normalized
    matrix): weights far from 1 are scaled by a power of two (exactly), so that their
    sums do not overflow (see :func:`receval._validation.check_sample_weight`)."""
    yt = _v.as_class_labels(y_true, "y_true", func)
    yp = _v.as_class_labels(y_pred, "y_pred", func)
    sw = None if sample_weight is None else _v.as_1d(sample_weight, "sample_weight", func)
    n = _v.check_same_length(func, y_true=yt, y_pred=yp, sample_weight=sw)
    _v.check_not_empty(n, "y_true", func)
    _v.check_same_label_type(func, y_true=yt, y_pred=yp)
    if yp.dtype.kind == "f":
        # non-integral float labels are classes when y_true has them too; otherwise they
        # are scores or probabilities passed by mistake, which would count as classes
        fraction = distinct(yp[yp != np.floor(yp)])
        stray = fraction[~np.isin(fraction, yt)] if fraction.size else fraction
        if stray.size:
            raise InputValidationError(
                f"{func}: y_pred must hold class labels. Got non-integer values "
                f"{_v.format_values(stray)} that are not labels of y_true; these look like "
                f"probabilities or scores: threshold them first, e.g. "
                f"y_pred = (y_prob >= 0.5).astype(int)."
            )
    integer_weights = sw is None or sw.dtype.kind in "biu"
    w = _v.check_sample_weight(sw, n, func, relative=relative)
    return LabelData(yt, yp, w, integer_weights)


class Tally(NamedTuple):
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


def tally_labels(data: LabelData) -> Tally:
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
            return Tally(classes, None, tp, fp, fn, total, codes)
    # FP and FN as sums of the off-diagonal cells, not column/row sums minus TP: with
    # weights of very different sizes, the subtraction could lose them entirely
    assert matrix is not None  # the branch without a matrix returned above
    off = matrix.copy()
    np.fill_diagonal(off, 0)
    return Tally(
        classes, matrix, np.diagonal(matrix).copy(), off.sum(axis=0), off.sum(axis=1), total,
        codes,
    )  # fmt: skip


def label_positions(classes: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Index of each value in the sorted ``classes``, or -1 where it is absent."""
    if (classes.dtype.kind == "U") != (values.dtype.kind == "U"):
        return np.full(len(values), -1, dtype=np.intp)
    pos = np.minimum(np.searchsorted(classes, values), len(classes) - 1)
    return np.where(classes[pos] == values, pos, -1).astype(np.intp)


def check_labels(labels: Any, data: LabelData, func: str) -> np.ndarray:
    lab = _v.as_class_labels(labels, "labels", func)
    _v.check_same_label_type(func, y_true=data.y_true, y_pred=data.y_pred, labels=lab)
    return _v.check_labels_parameter(lab, func)


def _take(values: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """``values[idx]`` with 0 where ``idx`` is -1 (a label absent from the data)."""
    out: np.ndarray = values[np.maximum(idx, 0)]
    out[idx < 0] = 0
    return out


# ---------------------------------------------------------------- per-class counts
class ClassCounts(NamedTuple):
    """One-vs-rest counts of the selected labels (pooled into one entry for micro)."""

    labels: np.ndarray  # the selected labels, in output order
    tp: np.ndarray
    fp: np.ndarray
    fn: np.ndarray
    tn: np.ndarray
    support: np.ndarray  # tp + fn: weight of samples whose true label is the label
    average: str | None


def class_counts(
    func: str,
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any,
    pos_label: Any,
    average: Any,
    sample_weight: Any,
) -> ClassCounts:
    """Validate everything and return TP, FP, FN, TN and support of the selected labels.

    For each selected label c, with every sample counted once (weighted by its
    sample weight): TP = true c and predicted c; FP = predicted c, true not c;
    FN = true c, predicted not c; TN = total - TP - FP - FN. Samples whose
    labels are outside ``labels`` still count as FP/FN/TN of the selected ones,
    as in scikit-learn. With ``average="micro"`` the counts are summed over the
    selected labels into arrays of length 1.
    """
    _v.check_option(average, "average", func, _AVERAGES)
    data = check_label_data(func, y_true, y_pred, sample_weight, relative=True)  # ratios
    tally = tally_labels(data)
    classes = tally.classes
    if average != "binary" and pos_label not in (None, 1):
        warn(
            f"{func}: pos_label={pos_label!r} is ignored when average={average!r} (it only "
            f"applies to average='binary'); pass labels=[{pos_label!r}] to score that label "
            f"alone.",
            UserWarning,  # the caller of the public score (which calls _score)
        )
    if average == "binary":
        pos_label = _v.check_label_value(pos_label, "pos_label", func)
        idx = label_positions(classes, np.asarray([pos_label]))
        check_binary_classes(classes, pos_label, bool(idx[0] >= 0), func)
        selected = np.asarray([pos_label])
    elif labels is None:
        selected = classes
        idx = np.arange(len(classes), dtype=np.intp)
    else:
        selected = check_labels(labels, data, func)
        idx = label_positions(classes, selected)

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
    return ClassCounts(selected, tp, fp, fn, tn, support, average)


def check_binary_classes(classes: np.ndarray, pos_label: Any, found: bool, func: str) -> None:
    """For ``average='binary'``: at most two classes, and ``pos_label`` among them.

    ``classes`` are the sorted distinct labels of y_true and y_pred; ``found``
    says whether ``pos_label`` is one of them. As in scikit-learn, a
    ``pos_label`` absent from data with a single class is allowed.
    """
    if len(classes) > 2:
        raise InputValidationError(
            f"{func}: average='binary' needs at most 2 distinct labels in y_true and y_pred. "
            f"Got {len(classes)} labels {_v.format_values(classes)}; pass average='macro', "
            f"'micro', 'weighted' or None, or score one class against the rest with "
            f"labels=[{classes[-1].item()!r}], average='micro'."
        )
    if len(classes) == 2 and not found:
        raise InputValidationError(
            f"{func}: pos_label must be one of the labels found in y_true and y_pred "
            f"{_v.format_values(classes)}. Got pos_label={pos_label!r}; pass e.g. "
            f"pos_label={classes[-1].item()!r}."
        )


def check_labels_in_y_true(labels: np.ndarray, found: bool, func: str) -> None:
    """At least one of the requested ``labels`` occurs in y_true (as scikit-learn requires)."""
    if not found:
        raise InputValidationError(
            f"{func}: none of labels {_v.format_values(labels)} occurs in y_true; pass labels "
            f"that include at least one true class, or labels=None."
        )

"""Multiclass scores from a binary one: one class against the rest, or one against one."""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations
from typing import Any

import numpy as np

from .. import _validation as v
from ..data._lookup import distinct
from ..exceptions import InputValidationError
from ._binary import warn_undefined
from ._undefined import NO_WEIGHT, warn_because

__all__ = ["BinaryMetric", "multiclass_score"]

#: A binary score of 0/1 labels, scores and weights (None: none)
BinaryMetric = Callable[[np.ndarray, np.ndarray, "np.ndarray | None"], float]


def multiclass_score(
    func: str,
    binary: BinaryMetric,
    y_true: Any,
    y_score: np.ndarray,
    sample_weight: Any,
    average: Any,
    labels: Any,
    multi_class: str,
) -> float | np.ndarray:
    """The score of ``binary`` per class (one against the rest, ``"ovr"``) or per pair of
    classes (``"ovo"``, Hand & Till), averaged as ``average`` says, of ``y_score`` with a
    column per class (the class of each in ``labels``); ``func`` names the function."""
    yt = v.as_1d(y_true, "y_true", func)
    scores = v.as_2d_scores(y_score, "y_score", func)
    sw = None if sample_weight is None else v.as_1d(sample_weight, "sample_weight", func)
    n = v.check_same_length(func, y_true=yt, y_score=scores, sample_weight=sw)
    v.check_not_empty(n, "y_true", func)
    weights = v.check_sample_weight(sw, n, func, relative=True)
    v.check_option(multi_class, "multi_class", func, ["ovo", "ovr"])
    if labels is None:
        classes = distinct(yt)
    else:
        classes = v.check_labels_parameter(v.as_1d(labels, "labels", func), func)
    if len(classes) != scores.shape[1]:
        raise InputValidationError(
            f"{func}: y_score has {v.counted(scores.shape[1], 'column')} but there "
            f"{v.verb(len(classes), 'is')} {v.counted(len(classes), 'class', 'classes')} "
            f"{v.format_values(classes)}; pass labels= to name the class of each column."
        )
    order = np.argsort(classes, kind="stable")
    sorted_classes = classes[order]
    pos = np.clip(np.searchsorted(sorted_classes, yt), 0, len(classes) - 1)
    if not np.all(sorted_classes[pos] == yt):
        unknown = np.setdiff1d(yt, classes)
        raise InputValidationError(
            f"{func}: y_true contains labels {v.format_values(unknown)} that are not in labels "
            f"{v.format_values(classes)}."
        )
    codes = order[pos]
    n_classes = len(classes)
    if multi_class == "ovo":
        v.check_option(average, "average", func, ["macro", "weighted"])
        pair_scores, prevalence = [], []
        # as scikit-learn: the pairs of the classes present in y_true (a class of
        # ``labels`` without samples forms no pair)
        present = np.flatnonzero(np.bincount(codes, minlength=n_classes))
        for a, b in combinations(present.tolist(), 2):
            mask = (codes == a) | (codes == b)
            w = None if weights is None else weights[mask]
            in_a = (codes[mask] == a).view(np.int8)
            in_b = (codes[mask] == b).view(np.int8)
            score_a = binary(in_a, scores[mask, a], w)
            score_b = binary(in_b, scores[mask, b], w)
            pair_scores.append((score_a + score_b) / 2.0)
            prevalence.append(mask.sum() if w is None else w.sum())
        values = np.asarray(pair_scores)
        if values.size == 0:
            return warn_undefined(f"{func}: y_true has a single class, so no pair of classes.")
        if np.isnan(values).any():  # (both classes of a pair have rows: one weighs nothing)
            weight = np.bincount(codes, weights=weights, minlength=n_classes)[present]
            return warn_undefined(
                f"{func}: undefined for the pairs of classes with "
                f"{v.format_values(classes[present[weight == 0]])}, which have no row of "
                f"positive sample weight (returned as nan)."
            )
        if average == "macro":
            return float(values.mean())
        return float(np.average(values, weights=np.asarray(prevalence, dtype=np.float64)))
    v.check_option(average, "average", func, ["macro", "micro", "weighted", None])
    if average == "micro":
        onehot = (codes[:, None] == np.arange(n_classes)[None, :]).ravel().view(np.int8)
        w = None if weights is None else np.repeat(weights, n_classes)
        value = binary(onehot, scores.ravel(), w)
        # a row is a positive of its class and a negative of the others: only weights of 0
        # leave it undefined
        return warn_because(func, "the micro average", NO_WEIGHT) if np.isnan(value) else value
    per_class, support = np.empty(n_classes), np.empty(n_classes)
    for c in range(n_classes):
        lab = (codes == c).view(np.int8)
        per_class[c] = binary(lab, np.ascontiguousarray(scores[:, c]), weights)
        support[c] = lab.sum() if weights is None else weights[lab == 1].sum()
    if np.isnan(per_class).any():
        missing = classes[np.isnan(per_class)]
        sample = "sample" if weights is None else "row of positive sample weight"
        warn_undefined(
            f"{func}: undefined for classes {v.format_values(missing)}, which have no positive "
            f"or no negative {sample} (returned as nan)."
        )
    if average is None:
        return per_class
    if average == "macro":
        return float(per_class.mean())
    if support.sum() == 0:
        return warn_undefined(f"{func}: all classes have zero weight.")
    return float(np.average(per_class, weights=support))

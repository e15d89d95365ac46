"""Slow, obviously correct classification metrics: plain Python loops over samples and labels.

Every function takes Python sequences and returns Python floats (or lists),
plus, for the ratio metrics, whether some ratio had a zero denominator (so the
tests can check when receval warns).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

RATIOS = ("precision", "recall", "specificity", "false_positive_rate", "fbeta")


def _weights(n: int, sample_weight: Sequence[float] | None) -> list[float]:
    return [1.0] * n if sample_weight is None else [float(w) for w in sample_weight]


def present_labels(y_true: Sequence[Any], y_pred: Sequence[Any]) -> list[Any]:
    """Sorted distinct labels of y_true and y_pred."""
    return sorted(set(y_true) | set(y_pred))


def class_counts(
    y_true: Sequence[Any],
    y_pred: Sequence[Any],
    labels: Sequence[Any],
    sample_weight: Sequence[float] | None = None,
) -> dict[Any, dict[str, float]]:
    """One-vs-rest tp, fp, fn, tn of each label: every sample falls in exactly one cell."""
    weights = _weights(len(y_true), sample_weight)
    counts = {}
    for label in labels:
        c = {"tp": 0.0, "fp": 0.0, "fn": 0.0, "tn": 0.0}
        for t, p, w in zip(y_true, y_pred, weights, strict=True):
            if t == label and p == label:
                c["tp"] += w
            elif p == label:
                c["fp"] += w
            elif t == label:
                c["fn"] += w
            else:
                c["tn"] += w
        counts[label] = c
    return counts


def confusion_matrix(
    y_true: Sequence[Any],
    y_pred: Sequence[Any],
    labels: Sequence[Any] | None = None,
    sample_weight: Sequence[float] | None = None,
    normalize: str | None = None,
) -> list[list[float]]:
    if labels is None:
        labels = present_labels(y_true, y_pred)
    weights = _weights(len(y_true), sample_weight)
    matrix = [[0.0] * len(labels) for _ in labels]
    for t, p, w in zip(y_true, y_pred, weights, strict=True):
        for i, row_label in enumerate(labels):
            for j, col_label in enumerate(labels):
                if t == row_label and p == col_label:
                    matrix[i][j] += w
    if normalize == "true":
        for row in matrix:
            s = sum(row)
            row[:] = [v / s if s else 0.0 for v in row]
    elif normalize == "pred":
        for j in range(len(labels)):
            s = sum(row[j] for row in matrix)
            for row in matrix:
                row[j] = row[j] / s if s else 0.0
    elif normalize == "all":
        s = sum(sum(row) for row in matrix)
        matrix = [[v / s if s else 0.0 for v in row] for row in matrix]
    return matrix


def accuracy(y_true, y_pred, sample_weight=None, normalize=True) -> float:
    weights = _weights(len(y_true), sample_weight)
    correct = sum(w for t, p, w in zip(y_true, y_pred, weights, strict=True) if t == p)
    return correct / sum(weights) if normalize else correct


def error_rate(y_true, y_pred, sample_weight=None, normalize=True) -> float:
    weights = _weights(len(y_true), sample_weight)
    wrong = sum(w for t, p, w in zip(y_true, y_pred, weights, strict=True) if t != p)
    return wrong / sum(weights) if normalize else wrong


def _ratio_of(metric: str, c: dict[str, float], beta: float) -> tuple[float, float]:
    """(numerator, denominator) of a metric from one label's counts."""
    tp, fp, fn, tn = c["tp"], c["fp"], c["fn"], c["tn"]
    if metric == "precision":
        return tp, tp + fp
    if metric == "recall":
        return tp, tp + fn
    if metric == "specificity":
        return tn, tn + fp
    if metric == "false_positive_rate":
        return fp, fp + tn
    if metric == "fbeta":
        b2 = beta * beta
        return (1 + b2) * tp, (1 + b2) * tp + b2 * fn + fp
    raise ValueError(metric)


def ratio_metric(
    metric: str,
    y_true: Sequence[Any],
    y_pred: Sequence[Any],
    *,
    labels: Sequence[Any] | None = None,
    pos_label: Any = 1,
    average: str | None = "binary",
    sample_weight: Sequence[float] | None = None,
    zero_division: Any = "warn",
    beta: float = 1.0,
) -> tuple[Any, bool]:
    """(value, undefined): the metric and whether some denominator was zero.

    ``value`` is a float, or a list of floats for ``average=None``.
    """
    if average == "binary":
        present = present_labels(y_true, y_pred)
        if len(present) > 2:
            raise ValueError("not binary")
        if len(present) == 2 and pos_label not in present:
            raise ValueError("pos_label not present")
        labels = [pos_label]
    elif labels is None:
        labels = present_labels(y_true, y_pred)
    counts = class_counts(y_true, y_pred, labels, sample_weight)
    if average == "micro":
        pooled = {key: sum(counts[label][key] for label in labels) for key in counts[labels[0]]}
        groups = [pooled]
    else:
        groups = [counts[label] for label in labels]
    fill = 0.0 if zero_division == "warn" else float(zero_division)
    values, undefined = [], False
    for c in groups:
        num, den = _ratio_of(metric, c, beta)
        if den == 0:
            values.append(fill)
            undefined = True
        else:
            values.append(num / den)
    if average is None:
        return values, undefined
    if average in ("binary", "micro"):
        return values[0], undefined
    weights = [c["tp"] + c["fn"] for c in groups] if average == "weighted" else [1.0] * len(groups)
    kept = [(v, w) for v, w in zip(values, weights, strict=True) if not math.isnan(v)]
    if not kept:
        return math.nan, undefined
    total = sum(w for _, w in kept)
    if total == 0:  # e.g. weighted over labels that are never true: plain mean
        return sum(v for v, _ in kept) / len(kept), undefined
    return sum(v * w for v, w in kept) / total, undefined

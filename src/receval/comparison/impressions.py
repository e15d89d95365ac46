"""The impressions that :func:`receval.compare_predictions` and :func:`receval.gate`
pair CTR models on: the rows checked once (labels, each model's scores, groups and
weights of one length), their units (the groups, or each row), and each unit's log
loss, whose weighted mean over units is :func:`receval.log_loss`."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import _validation as v
from ..exceptions import InputValidationError
from .paired import unit_order

__all__ = [
    "Impressions",
    "binary_labels",
    "check_impressions",
    "of_model",
    "scoring",
    "unit_aucs",
    "user_log_loss",
]


@dataclass(frozen=True)
class Impressions:
    """Checked rows of CTR models' scores and the units they are paired by.

    Attributes
    ----------
    y_true : ndarray of shape (n_samples,)
        The labels, as given (each metric reads them its own way).
    codes : ndarray of shape (n_samples,)
        The unit of each row: its group's rank among the groups' ids in ascending
        order (so the row order of the data changes no unit's code), or the row
        itself without groups.
    n_units : int
        The number of units.
    sample_weight : ndarray of shape (n_samples,) or None
        The checked weights (finite, non-negative).
    row_weight, unit_weight : ndarray
        Each row's weight (1 without weights) and each unit's total.
    """

    y_true: np.ndarray
    codes: np.ndarray
    n_units: int
    sample_weight: np.ndarray | None
    row_weight: np.ndarray
    unit_weight: np.ndarray


def check_impressions(
    y_true: Any,
    y_scores: Mapping[str, Any],
    groups: Any,
    sample_weight: Any,
    func: str,
    *,
    arguments: Mapping[str, str] | None = None,
) -> Impressions:
    """The rows of ``y_scores`` (each model's scores by name), checked for ``func``: one
    score per label for every model, groups and weights of that length too.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        The labels.
    y_scores : mapping of str to array-like of shape (n_samples,)
        Each model's scores.
    groups : array-like of shape (n_samples,) or None
        The unit of each row (None: every row its own unit).
    sample_weight : array-like of shape (n_samples,) or None
        Per-row weights.
    func : str
        The function checking, for the messages.
    arguments : mapping of str to str, default=None
        The argument that holds each model, for the messages (default ``y_scores``).

    Returns
    -------
    impressions : Impressions

    Raises
    ------
    InputValidationError
        Scores, groups or weights of another length than ``y_true``; bad weights.

    Examples
    --------
    >>> from receval.comparison.impressions import check_impressions
    >>> rows = check_impressions([1, 0, 1], {"a": [0.9, 0.2, 0.6]}, ["u", "u", "v"], None,
    ...                          "gate")
    >>> rows.codes.tolist(), rows.unit_weight.tolist()
    ([0, 0, 1], [2.0, 1.0])
    >>> check_impressions([1, 0, 1], {"a": [0.9, 0.2]}, None, None, "gate",
    ...                   arguments={"a": "candidates"})
    Traceback (most recent call last):
    ...
    receval.exceptions.InputValidationError: gate: candidates['a'] must hold one score per row
    of y_true (3 rows). Got 2 scores for model 'a'; score every row with every model.
    """
    yt = v.as_1d(y_true, "y_true", func)
    n = len(yt)
    for name, x in y_scores.items():
        if hasattr(x, "__len__") and len(x) != n:
            argument = (arguments or {}).get(name, "y_scores")
            raise InputValidationError(
                f"{func}: {argument}[{name!r}] must hold one score per row of y_true "
                f"({v.counted(n, 'row')}). Got {v.counted(len(x), 'score')} for model {name!r}; "
                f"score every row with every model."
            )
    if groups is None:
        codes, n_units = np.arange(n), n
    else:
        from ..data._encode import factorize

        first_codes, uniques = factorize(groups, "groups", func)
        v.check_same_length(func, y_true=yt, groups=first_codes)
        n_units = len(uniques)
        rank = np.empty(n_units, dtype=np.int64)
        rank[unit_order(uniques)] = np.arange(n_units)
        codes = rank[first_codes]
    sw = (
        None
        if sample_weight is None
        else v.check_sample_weight(v.as_1d(sample_weight, "sample_weight", func), n, func)
    )
    row_w = np.ones(n) if sw is None else sw
    unit_w = np.bincount(codes, weights=row_w, minlength=n_units)
    return Impressions(yt, codes, n_units, sw, row_w, unit_w)


def user_log_loss(rows: Impressions, score: Any) -> tuple[np.ndarray, np.ndarray]:
    """Each unit's mean log loss and weight: the labels read and the probabilities clipped
    as :func:`receval.log_loss` reads and clips them (labels -1/1 or 1/2 as 0/1), so the
    weighted mean over units is that function's value."""
    from ..engine.totals import clip_eps
    from ..metrics._loss import binary_labels

    s = np.asarray(score)
    eps = clip_eps("auto", s.dtype)
    p = np.clip(s.astype(np.float64), eps, 1 - eps)
    y = np.asarray(binary_labels(rows.y_true), dtype=np.float64)
    loss = -(y * np.log(p) + (1.0 - y) * np.log1p(-p))
    unit_w = rows.unit_weight
    with np.errstate(invalid="ignore", divide="ignore"):
        total = np.bincount(rows.codes, weights=rows.row_weight * loss, minlength=len(unit_w))
        per = total / unit_w
    return np.where(unit_w > 0, per, np.nan), unit_w


def unit_aucs(report: Any) -> tuple[np.ndarray, np.ndarray]:
    """Each group's AUC and weight of a :class:`receval.GroupAUCReport` (its
    groups in order of first appearance) in the order of :attr:`Impressions.codes`:
    ascending group ids."""
    order = unit_order(report.groups)
    auc = np.asarray(report.auc, dtype=np.float64)[order]
    return auc, np.asarray(report.weight, dtype=np.float64)[order]


@contextmanager
def binary_labels(func: str) -> Iterator[None]:
    """Restate, in the words of ``func`` (a comparison of 0/1 labels, which takes no
    ``pos_label``), the errors raised meanwhile of labels that are not 0 and 1 (or
    -1 and 1): its fix binarises ``y_true``, where the metric's own would pass
    ``pos_label``. ``classes`` and ``scored`` are kept (the command line words the
    error for ``--label`` and the model's option).

    Examples
    --------
    >>> from receval import gauc_score
    >>> from receval.comparison.impressions import binary_labels
    >>> from receval.exceptions import InputValidationError
    >>> try:
    ...     with binary_labels("gate"):
    ...         gauc_score([0, 2], [0.1, 0.9], groups=["u", "u"])
    ... except InputValidationError as exc:
    ...     print(exc)
    gate: y_true must hold 0/1 labels (1 = click). Got values [0, 2]; binarise it
    first, e.g. y_true = (np.asarray(y_true) == 2).
    """
    try:
        yield
    except InputValidationError as exc:
        classes = exc.classes
        if classes is None:
            raise
        positive = repr(classes[-1]) if len(classes) == 2 else "<the positive label>"
        error = InputValidationError(
            f"{func}: y_true must hold 0/1 labels (1 = click). Got values "
            f"{v.format_values(classes)}; binarise it first, e.g. "
            f"y_true = (np.asarray(y_true) == {positive}).",
            row=exc.row,
            classes=classes,
        )
        error.scored = exc.scored  # the metric and model the command line names
        raise error from None


@contextmanager
def scoring(metric: str, model: str) -> Iterator[None]:
    """Mark the data errors and the warnings raised meanwhile as those of ``metric`` on
    the scores of ``model``: their message names the model after the function it starts
    with (``log_loss of model 'b': ...``), and
    :attr:`receval.exceptions.InputValidationError.scored` holds both, which the
    command line names by the model's column and option instead; an error or a warning
    marked already keeps its mark.

    Examples
    --------
    >>> import warnings
    >>> from receval import log_loss
    >>> from receval.comparison.impressions import scoring
    >>> from receval.exceptions import InputValidationError
    >>> try:
    ...     with scoring("logloss", "b"):
    ...         log_loss([1, 0], [2.5, 0.1])
    ... except InputValidationError as exc:
    ...     print(exc)
    ...     print(exc.scored)
    log_loss of model 'b': y_pred must contain probabilities in [0, 1]. Got values [2.5];
    pass predicted probabilities, e.g. apply a sigmoid to raw scores.
    ('logloss', 'b')
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     with scoring("logloss", "b"):
    ...         _ = log_loss([1, 0], [0.9, 0.1], sample_weight=[0, 0])
    >>> print(caught[0].message)
    log_loss of model 'b': every sample weight is zero, so the log loss is undefined
    (returned as nan).
    """
    from ..exceptions import restated_warnings

    def mark(text: str) -> str:
        return text if _MARKED.match(text) else of_model(text, metric, model)

    try:
        with restated_warnings(mark):
            yield
    except InputValidationError as exc:
        if exc.scored is None:
            exc.scored = (metric, model)
            exc.args = (of_model(str(exc), metric, model), *exc.args[1:])
            if exc.template is not None:  # its {at} and {count} restated later
                braced = model.replace("{", "{{").replace("}", "}}")
                exc.template = of_model(exc.template, metric, braced)
        raise


#: A message that names its model already (:func:`of_model`).
_MARKED = re.compile(r"^[\w.]+ of model ")


def of_model(message: str, metric: str, model: str) -> str:
    """``message``, an error of ``metric`` on the scores of ``model``, naming the model
    after the function it starts with (``log_loss of model 'b': ...``), or in front."""
    head = re.match(r"[\w.]+: ", message)
    if head is None:
        return f"{metric} of model {model!r}: {message}"
    return f"{head[0][:-2]} of model {model!r}: {message[head.end() :]}"

"""ROC, precision-recall and calibration plots of one or several models."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._parameters import CURVE_BINS
from ._base import check_ax
from ._displays import calibration_display, precision_recall_display, roc_display

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["calibration", "precision_recall", "roc"]


def roc(
    y_true: ArrayLike,
    scores: ArrayLike | dict[str, ArrayLike],
    *,
    ax: Any = None,
    sample_weight: ArrayLike | None = None,
    pos_label: Any = None,
) -> Any:
    """Plot the ROC curve of one or several models, with their AUC.

    A shortcut of :meth:`RocCurveDisplay.from_predictions` that returns the
    display's Axes.

    One line per model from :func:`receval.roc_curve`, labelled with its
    :func:`receval.roc_auc_score` to 4 decimals, and the chance diagonal.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels, shared by every model.
    scores : array-like of shape (n_samples,) or dict of str to array-like
        One model's scores, or ``{model name: scores}`` for several models.
    ax : matplotlib Axes, default=None
        Where to draw; a new figure when None.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights, used by the curves and the AUCs.
    pos_label : int, str or bool, default=None
        The positive class, as for :func:`receval.roc_curve` (labels other than
        {0, 1} and {-1, 1} need it).

    Returns
    -------
    ax : matplotlib Axes
        The axes drawn on: one line per model (label ``"name (AUC = 0.7812)"``,
        or ``"AUC = 0.7812"`` for a single unnamed array), then the diagonal
        (label ``"chance"``).

    Raises
    ------
    ImportError
        matplotlib is not installed.

    See Also
    --------
    receval.roc_curve, receval.roc_auc_score : The numbers drawn.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from receval.plot import roc
    >>> y_true = [0, 0, 1, 1, 0, 1]
    >>> scores = {"a": [0.1, 0.4, 0.35, 0.8, 0.2, 0.9], "b": [0.5, 0.3, 0.6, 0.2, 0.1, 0.7]}
    >>> ax = roc(y_true, scores)
    >>> [line.get_label() for line in ax.lines]
    ['a (AUC = 0.8889)', 'b (AUC = 0.7778)', 'chance']
    """
    func = "roc"
    check_ax(ax, func)
    return roc_display(y_true, scores, sample_weight, pos_label, func).plot(ax=ax).ax_


def precision_recall(
    y_true: ArrayLike,
    scores: ArrayLike | dict[str, ArrayLike],
    *,
    ax: Any = None,
    sample_weight: ArrayLike | None = None,
    pos_label: Any = None,
) -> Any:
    """Plot precision-recall curves with average precision and the break-even point.

    A shortcut of :meth:`PrecisionRecallDisplay.from_predictions` that returns
    the display's Axes.

    One step line per model from :func:`receval.precision_recall_curve`
    (drawn like scikit-learn's ``PrecisionRecallDisplay``), labelled with its
    :func:`receval.average_precision_score` and
    :func:`receval.break_even_point` to 4 decimals, and a round marker at the
    break-even point (recall = precision = BEP) in the line's colour.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels, shared by every model.
    scores : array-like of shape (n_samples,) or dict of str to array-like
        One model's scores, or ``{model name: scores}`` for several models.
    ax : matplotlib Axes, default=None
        Where to draw; a new figure when None.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights, used by the curves, AP, the break-even point and
        the prevalence.
    pos_label : int, str or bool, default=None
        The positive class, as for :func:`receval.precision_recall_curve`.

    Returns
    -------
    ax : matplotlib Axes
        The axes drawn on. For each model, a curve labelled
        ``"name (AP = 0.8333, BEP = 0.6667)"`` followed by its marker (a line
        with one point and no legend entry, label ``"_break-even"``); then a
        dotted horizontal line at the prevalence, the precision of a random
        ranking (label ``"prevalence = 0.4000"``).

    Raises
    ------
    ImportError
        matplotlib is not installed.

    See Also
    --------
    receval.precision_recall_curve, receval.average_precision_score,
    receval.break_even_point : The numbers drawn.

    Notes
    -----
    When the cut-off where precision equals recall falls inside a block of
    tied scores, the break-even point is interpolated inside the block, so
    the marker lies on the straight line between the block's two curve points
    rather than on the step drawn.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from receval.plot import precision_recall
    >>> ax = precision_recall([1, 0, 1, 0, 0], [0.9, 0.8, 0.7, 0.2, 0.1])
    >>> ax.lines[0].get_label()
    'AP = 0.8333, BEP = 0.5000'
    >>> ax.lines[1].get_xydata()  # the break-even marker: (recall, precision)
    array([[0.5, 0.5]])
    """
    func = "precision_recall"
    check_ax(ax, func)
    return precision_recall_display(y_true, scores, sample_weight, pos_label, func).plot(ax=ax).ax_


def calibration(
    y_true: ArrayLike,
    scores: ArrayLike | dict[str, ArrayLike],
    *,
    n_bins: int = CURVE_BINS,
    strategy: str = "uniform",
    ax: Any = None,
    sample_weight: ArrayLike | None = None,
    pos_label: Any = None,
) -> Any:
    """Plot reliability curves (observed rate against mean prediction) with PCOC.

    A shortcut of :meth:`CalibrationDisplay.from_predictions` that returns the
    display's Axes.

    One line with square markers per model from
    :func:`receval.calibration_curve` (x: mean predicted probability of each
    non-empty bin, y: observed positive rate), labelled with its
    :func:`receval.pcoc` to 4 decimals, and the diagonal of perfect
    calibration.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels, shared by every model.
    scores : array-like of shape (n_samples,) or dict of str to array-like
        One model's predicted probabilities in [0, 1], or
        ``{model name: probabilities}`` for several models.
    n_bins : int, default=5
        Number of bins (:func:`receval.calibration_curve`'s default).
    strategy : {"uniform", "quantile"}, default="uniform"
        Equal-width bins, or bins with equal numbers of samples (per model).
    ax : matplotlib Axes, default=None
        Where to draw; a new figure when None.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights, used by the bin means and PCOC.
    pos_label : int, str or bool, default=None
        The positive class, as for :func:`receval.calibration_curve`.

    Returns
    -------
    ax : matplotlib Axes
        The axes drawn on: one line per model (label ``"name (PCOC = 1.0500)"``),
        then the diagonal (label ``"perfectly calibrated"``).

    Raises
    ------
    ImportError
        matplotlib is not installed.

    See Also
    --------
    receval.calibration_curve, receval.pcoc : The numbers drawn.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from receval.plot import calibration
    >>> ax = calibration([0, 0, 1, 1, 1], {"m": [0.1, 0.3, 0.7, 0.8, 0.9]}, n_bins=2)
    >>> ax.lines[0].get_label()
    'm (PCOC = 0.9333)'
    >>> ax.lines[0].get_xydata()  # (mean prediction, observed rate) per bin
    array([[0.2, 0. ],
           [0.8, 1. ]])
    """
    func = "calibration"
    check_ax(ax, func)
    bins = (n_bins, strategy)
    return calibration_display(y_true, scores, bins, sample_weight, pos_label, func).plot(ax=ax).ax_

"""Display objects of receval.plot, after scikit-learn's: the numbers are computed
once by ``from_predictions`` (or ``from_runs``) and kept on the object; ``plot``
draws them on any Axes and may be called again, e.g. to put two displays side by
side; ``ax_``, ``figure_`` and ``lines_`` are the last drawing's artists.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._parameters import CURVE_BINS
from ._base import Display, binary_models, check_ax, label, score_name

if TYPE_CHECKING:  # NumPy is imported when a display is built, not by ``import receval.plot``
    import numpy as np
    from numpy.typing import ArrayLike, NDArray

    Floats = NDArray[np.float64]

__all__ = [
    "CalibrationDisplay",
    "PrecisionRecallDisplay",
    "RocCurveDisplay",
    "calibration_display",
    "precision_recall_display",
    "roc_display",
]


@dataclass(kw_only=True, eq=False, repr=False)
class RocCurveDisplay(Display):
    """ROC curves of one or several models, with their AUC.

    Build it with :meth:`from_predictions` (computes and draws) or from curves
    you already have, then :meth:`plot`.

    Parameters
    ----------
    fpr, tpr : dict of str or None to ndarray
        Per model name (None for one unnamed model), the curve's false and true
        positive rates, as :func:`receval.roc_curve` returns them.
    roc_auc : dict of str or None to float
        Per model, its area under the curve.

    Attributes
    ----------
    ax_, figure_ : matplotlib Axes and Figure
        Where the last :meth:`plot` drew.
    lines_ : list of matplotlib Line2D
        One line per model, in order (the chance diagonal not included).

    See Also
    --------
    receval.plot.roc : The shortcut returning the Axes.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from receval.plot import RocCurveDisplay
    >>> display = RocCurveDisplay.from_predictions([0, 1, 1, 0], {"m": [0.1, 0.8, 0.4, 0.5]})
    >>> display.roc_auc
    {'m': 0.75}
    >>> display.lines_[0].get_label()
    'm (AUC = 0.7500)'
    >>> first = display.ax_
    >>> display.plot().ax_ is first  # drawn again, on a new figure
    False
    """

    fpr: dict[str | None, Floats]
    tpr: dict[str | None, Floats]
    roc_auc: dict[str | None, float]

    @classmethod
    def from_predictions(
        cls,
        y_true: ArrayLike,
        scores: ArrayLike | dict[str, ArrayLike],
        *,
        sample_weight: ArrayLike | None = None,
        pos_label: Any = None,
        ax: Any = None,
    ) -> RocCurveDisplay:
        """Compute each model's ROC curve and AUC, and draw them on ``ax``.

        Parameters
        ----------
        y_true, scores, sample_weight, pos_label, ax
            As for :func:`receval.plot.roc`.

        Returns
        -------
        display : RocCurveDisplay
            The numbers and the drawing.
        """
        func = "RocCurveDisplay.from_predictions"
        check_ax(ax, func)
        return roc_display(y_true, scores, sample_weight, pos_label, func).plot(ax=ax)

    def plot(self, ax: Any = None) -> RocCurveDisplay:
        """Draw the curves and the chance diagonal on ``ax`` (a new figure when None).

        Returns
        -------
        display : RocCurveDisplay
            Itself, with ``ax_``, ``figure_`` and ``lines_`` set.
        """
        ax = self.start(ax)
        for name in self.fpr:
            text = label(name, f"AUC = {self.roc_auc[name]:.4f}")
            self.lines_.extend(ax.plot(self.fpr[name], self.tpr[name], label=text))
        ax.plot([0, 1], [0, 1], linestyle="--", color="grey", linewidth=1, label="chance")
        ax.set(xlabel="False positive rate", ylabel="True positive rate",
               xlim=(-0.01, 1.01), ylim=(-0.01, 1.01), aspect="equal")  # fmt: skip
        ax.legend(loc="lower right")
        return self


@dataclass(kw_only=True, eq=False, repr=False)
class PrecisionRecallDisplay(Display):
    """Precision-recall curves with average precision, the break-even point and
    the prevalence (the precision of a random ranking).

    Parameters
    ----------
    precision, recall : dict of str or None to ndarray
        Per model, the curve as :func:`receval.precision_recall_curve` returns it.
    average_precision, break_even : dict of str or None to float
        Per model, :func:`receval.average_precision_score` and
        :func:`receval.break_even_point`.
    prevalence : float or None, default=None
        The (weighted) share of positives; drawn as a horizontal line.

    Attributes
    ----------
    ax_, figure_ : matplotlib Axes and Figure
        Where the last :meth:`plot` drew.
    lines_ : list of matplotlib Line2D
        One step line per model, in order (markers and the prevalence line not
        included).

    See Also
    --------
    receval.plot.precision_recall : The shortcut returning the Axes.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from receval.plot import PrecisionRecallDisplay
    >>> d = PrecisionRecallDisplay.from_predictions([1, 0, 1, 0, 0], [0.9, 0.8, 0.7, 0.2, 0.1])
    >>> d.average_precision, d.prevalence
    ({None: 0.8333333333333333}, 0.4)
    """

    precision: dict[str | None, Floats]
    recall: dict[str | None, Floats]
    average_precision: dict[str | None, float]
    break_even: dict[str | None, float]
    prevalence: float | None = None

    @classmethod
    def from_predictions(
        cls,
        y_true: ArrayLike,
        scores: ArrayLike | dict[str, ArrayLike],
        *,
        sample_weight: ArrayLike | None = None,
        pos_label: Any = None,
        ax: Any = None,
    ) -> PrecisionRecallDisplay:
        """Compute each model's precision-recall curve, AP and break-even point,
        and draw them on ``ax``.

        Parameters
        ----------
        y_true, scores, sample_weight, pos_label, ax
            As for :func:`receval.plot.precision_recall`.

        Returns
        -------
        display : PrecisionRecallDisplay
            The numbers and the drawing.
        """
        func = "PrecisionRecallDisplay.from_predictions"
        check_ax(ax, func)
        return precision_recall_display(y_true, scores, sample_weight, pos_label, func).plot(ax=ax)

    def plot(self, ax: Any = None) -> PrecisionRecallDisplay:
        """Draw the step curves, break-even markers and prevalence line on ``ax``.

        Returns
        -------
        display : PrecisionRecallDisplay
            Itself, with ``ax_``, ``figure_`` and ``lines_`` set.
        """
        ax = self.start(ax)
        for name in self.precision:
            bep = self.break_even[name]
            text = label(name, f"AP = {self.average_precision[name]:.4f}, BEP = {bep:.4f}")
            (line,) = ax.plot(self.recall[name], self.precision[name], drawstyle="steps-post",
                              label=text)  # fmt: skip
            self.lines_.append(line)
            ax.plot([bep], [bep], linestyle="none", marker="o", color=line.get_color(),
                    label="_break-even")  # fmt: skip
        if self.prevalence is not None:
            ax.axhline(self.prevalence, linestyle=":", color="grey", linewidth=1,
                       label=f"prevalence = {self.prevalence:.4f}")  # fmt: skip
        ax.set(xlabel="Recall", ylabel="Precision", xlim=(-0.01, 1.01), ylim=(-0.01, 1.01),
               aspect="equal")  # fmt: skip
        ax.legend(loc="lower left")
        return self


@dataclass(kw_only=True, eq=False, repr=False)
class CalibrationDisplay(Display):
    """Reliability curves (observed rate against mean prediction) with PCOC.

    Parameters
    ----------
    prob_true, prob_pred : dict of str or None to ndarray
        Per model, the observed positive rate and the mean prediction of each
        non-empty bin, as :func:`receval.calibration_curve` returns them.
    pcoc : dict of str or None to float
        Per model, :func:`receval.pcoc`.

    Attributes
    ----------
    ax_, figure_ : matplotlib Axes and Figure
        Where the last :meth:`plot` drew.
    lines_ : list of matplotlib Line2D
        One line per model, in order (the diagonal not included).

    See Also
    --------
    receval.plot.calibration : The shortcut returning the Axes.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from receval.plot import CalibrationDisplay
    >>> d = CalibrationDisplay.from_predictions([0, 0, 1, 1], [0.1, 0.3, 0.7, 0.9], n_bins=2)
    >>> d.prob_pred[None], d.prob_true[None]
    (array([0.2, 0.8]), array([0., 1.]))
    """

    prob_true: dict[str | None, Floats]
    prob_pred: dict[str | None, Floats]
    pcoc: dict[str | None, float]

    @classmethod
    def from_predictions(
        cls,
        y_true: ArrayLike,
        scores: ArrayLike | dict[str, ArrayLike],
        *,
        n_bins: int = CURVE_BINS,
        strategy: str = "uniform",
        sample_weight: ArrayLike | None = None,
        pos_label: Any = None,
        ax: Any = None,
    ) -> CalibrationDisplay:
        """Compute each model's reliability curve and PCOC, and draw them on ``ax``.

        Parameters
        ----------
        y_true, scores, n_bins, strategy, sample_weight, pos_label, ax
            As for :func:`receval.plot.calibration`.

        Returns
        -------
        display : CalibrationDisplay
            The numbers and the drawing.
        """
        func = "CalibrationDisplay.from_predictions"
        check_ax(ax, func)
        bins = (n_bins, strategy)
        return calibration_display(y_true, scores, bins, sample_weight, pos_label, func).plot(ax=ax)

    def plot(self, ax: Any = None) -> CalibrationDisplay:
        """Draw the reliability curves and the diagonal on ``ax``.

        Returns
        -------
        display : CalibrationDisplay
            Itself, with ``ax_``, ``figure_`` and ``lines_`` set.
        """
        ax = self.start(ax)
        for name in self.prob_true:
            text = label(name, f"PCOC = {self.pcoc[name]:.4f}")
            self.lines_.extend(
                ax.plot(self.prob_pred[name], self.prob_true[name], marker="s", label=text)
            )
        ax.plot([0, 1], [0, 1], linestyle="--", color="grey", linewidth=1,
                label="perfectly calibrated")  # fmt: skip
        ax.set(xlabel="Mean predicted probability", ylabel="Observed positive rate",
               xlim=(-0.01, 1.01), ylim=(-0.01, 1.01), aspect="equal")  # fmt: skip
        ax.legend(loc="upper left")
        return self


# ------------------------------------------------------------------ the numbers
# Each display's numbers, for its from_predictions and for the function of
# receval.plot that is its shortcut; ``func`` is the one the caller called, which
# the errors name (the input is checked once, by binary_models).
def roc_display(
    y_true: Any, scores: Any, sample_weight: Any, pos_label: Any, func: str
) -> RocCurveDisplay:
    """Each model's ROC curve and AUC, not drawn yet."""
    from ..metrics._auc import ROC_AUC
    from ..metrics._curves import curve_and_values, roc_points

    y, models, pos = binary_models(y_true, scores, sample_weight, pos_label, func)
    fpr, tpr, aucs = {}, {}, {}
    for name, y_score in models:
        # the curve and the AUC of one state: one pass over scan columns
        counts, (aucs[name],) = curve_and_values(
            y, y_score, sample_weight, func, pos, score_name(name), (ROC_AUC,)
        )
        # the corners alone, as roc_curve draws by default (drop_intermediate)
        fpr[name], tpr[name], _ = roc_points(counts, True, func)
    return RocCurveDisplay(fpr=fpr, tpr=tpr, roc_auc=aucs)


def precision_recall_display(
    y_true: Any, scores: Any, sample_weight: Any, pos_label: Any, func: str
) -> PrecisionRecallDisplay:
    """Each model's precision-recall curve, AP and break-even point, and the
    prevalence, not drawn yet."""
    from ..metrics._auc import AVERAGE_PRECISION, BREAK_EVEN_POINT
    from ..metrics._curves import curve_and_values, precision_recall_points

    y, models, pos = binary_models(y_true, scores, sample_weight, pos_label, func)
    precision, recall, ap, bep = {}, {}, {}, {}
    for name, y_score in models:
        # the curve, AP and the break-even point of one state: one pass over scan columns
        counts, (ap[name], bep[name]) = curve_and_values(
            y, y_score, sample_weight, func, pos, score_name(name),
            (AVERAGE_PRECISION, BREAK_EVEN_POINT),
        )  # fmt: skip
        # every threshold, as precision_recall_curve draws by default (drop_intermediate)
        precision[name], recall[name], _ = precision_recall_points(counts, False, func)
    # the precision of the lowest threshold, every row predicted positive: the share
    # of positives (of the labels as the curves read them, columns of a scan too)
    prevalence = float(next(iter(precision.values()))[0])
    return PrecisionRecallDisplay(precision=precision, recall=recall, average_precision=ap,
                                  break_even=bep, prevalence=prevalence)  # fmt: skip


def calibration_display(
    y_true: Any,
    scores: Any,
    bins: tuple[int, str],
    sample_weight: Any,
    pos_label: Any,
    func: str,
) -> CalibrationDisplay:
    """Each model's reliability curve (``bins``: ``n_bins`` and ``strategy``) and PCOC,
    not drawn yet; columns of a scan are refused (no reliability curve out of core)."""
    from .. import calibration_curve, pcoc
    from ..metrics._calibration import check_bins

    n_bins, strategy = bins
    check_bins(n_bins, strategy, "lower", func)
    y, models, _ = binary_models(
        y_true, scores, sample_weight, pos_label, func, probabilities=True, scans=False
    )
    prob_true, prob_pred, values = {}, {}, {}
    for name, y_prob in models:
        prob_true[name], prob_pred[name] = calibration_curve(
            y, y_prob, n_bins=n_bins, strategy=strategy, sample_weight=sample_weight
        )
        values[name] = float(pcoc(y, y_prob, sample_weight=sample_weight))
    return CalibrationDisplay(prob_true=prob_true, prob_pred=prob_pred, pcoc=values)

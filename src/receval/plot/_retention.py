"""Plots of a RetentionReport: the cohort x offset heatmap and day-N retention curves."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .. import _parameters as v
from ..exceptions import InvalidParameterError
from ._base import Display, as_models, check_ax

if TYPE_CHECKING:  # NumPy is imported when a plot is made, not by ``import receval.plot``
    import numpy as np
    from numpy.typing import NDArray

__all__ = [
    "RetentionCurveDisplay",
    "RetentionHeatmapDisplay",
    "retention_curve",
    "retention_heatmap",
]

# at most about this many cohort labels on the heatmap's y axis
_MAX_LABELS = 25


def retention_heatmap(
    report: Any,
    *,
    values: str = "rate",
    ax: Any = None,
    cmap: str = "Blues",
    annotate: bool = False,
) -> Any:
    """Plot the cohort x offset retention table of a RetentionReport as a heatmap.

    A shortcut of :meth:`RetentionHeatmapDisplay.from_report` that returns the
    display's Axes.

    Row ``c`` is the cohort of period ``c`` (labelled with the date its
    period starts), column ``N`` the users of that cohort active ``N``
    periods later (column 0 is the cohort itself). Cells whose period
    ``c + N`` is after the observation window are masked and drawn blank, as
    are empty cohorts' rates.

    Parameters
    ----------
    report : RetentionReport
        The result of :func:`receval.retention`.
    values : {"rate", "count"}, default="rate"
        Draw ``report.cohort_retention`` (colours from 0 to 1) or
        ``report.cohort_counts`` (users).
    ax : matplotlib Axes, default=None
        Where to draw; a new figure when None.
    cmap : str, default="Blues"
        A matplotlib colormap name.
    annotate : bool, default=False
        Write each observed cell's value in it (a percentage, or the count):
        readable for up to about 15 periods.

    Returns
    -------
    ax : matplotlib Axes
        The axes drawn on; ``ax.images[0].get_array()`` is the table as a
        masked array, and the figure has a colorbar next to ``ax``.

    Raises
    ------
    ImportError
        matplotlib is not installed.
    InvalidParameterError
        ``values`` is not "rate" or "count".

    See Also
    --------
    receval.retention : The report.
    retention_curve : Mean retention at each offset.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from receval import retention
    >>> from receval.plot import retention_heatmap
    >>> events = {"user": ["a", "b", "a", "c", "a"],
    ...           "time": ["2024-01-01", "2024-01-01", "2024-01-02", "2024-01-02", "2024-01-03"]}
    >>> report = retention(events, days=1)
    >>> ax = retention_heatmap(report)
    >>> ax.images[0].get_array()
    masked_array(
      data=[[1.0, 0.5, 0.5],
            [1.0, 0.0, --],
            [--, --, --]],
      mask=[[False, False, False],
            [False, False,  True],
            [ True,  True,  True]],
      fill_value=1e+20)
    """
    func = "retention_heatmap"
    check_ax(ax, func)
    return _heatmap(report, values, func).plot(ax=ax, cmap=cmap, annotate=annotate).ax_


def _reports(report: Any, func: str, several: bool) -> list[tuple[str | None, Any]]:
    """``report`` as ``[(name, RetentionReport)]`` (``several``: a dict of them is
    allowed too); anything else raises, naming ``func``."""
    from ..metrics.retention import RetentionReport

    dict_of = several and isinstance(report, Mapping)
    models: list[tuple[str | None, Any]] = (
        as_models(report, "report", func) if dict_of else [(None, report)]
    )
    for name, rep in models:
        if not isinstance(rep, RetentionReport):
            expected = "a RetentionReport" + (" or a dict of them" if several else "")
            where = "" if name is None else f" for {name!r}"
            raise InvalidParameterError(
                f"The 'report' parameter of {func} must be {expected}. Got "
                f"{type(rep).__name__}{where} instead; pass what receval.retention(events) "
                f"returns."
            )
    return models


def _heatmap(report: Any, values: str, func: str) -> RetentionHeatmapDisplay:
    """The heatmap's table of ``report``, not drawn yet; errors name ``func``."""
    import numpy as np

    v.check_option(values, "values", func, ["count", "rate"])
    report = _reports(report, func, several=False)[0][1]
    n = report.n_periods
    offset = np.arange(n)
    unobserved = offset[:, None] + offset[None, :] >= n
    rates = values == "rate"
    table = np.asarray(report.cohort_retention if rates else report.cohort_counts, float)
    mask = unobserved | np.isnan(table)  # rates of empty cohorts are nan
    return RetentionHeatmapDisplay(table=table, mask=mask, periods=np.asarray(report.periods),
                                   period=report.period, values=values)  # fmt: skip


def mean_curve(
    report: Any, offsets: str = "all", weighting: str = "cohorts"
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The offsets N, the mean retention at each and the number of cohorts it is the mean
    of (offsets without a cohort dropped)."""
    import numpy as np

    if offsets == "days":
        x = np.asarray(report.days)
        rates = np.asarray(report.day_n_retention, dtype=np.float64)
        counts = np.asarray(report.retained, dtype=np.float64)
    else:
        x = np.arange(1, report.n_periods)
        rates = np.asarray(report.cohort_retention, dtype=np.float64)[:, 1:]
        counts = np.asarray(report.cohort_counts, dtype=np.float64)[:, 1:]
    defined = ~np.isnan(rates)  # observed cells of non-empty cohorts
    n_cohorts = defined.sum(axis=0)
    keep = n_cohorts > 0
    if weighting == "cohorts":
        y = np.where(defined, rates, 0.0).sum(axis=0)[keep] / n_cohorts[keep]
    else:
        new = np.asarray(report.new_users, dtype=np.float64)[:, None]
        retained = np.where(defined, counts, 0.0).sum(axis=0)
        y = retained[keep] / np.where(defined, new, 0.0).sum(axis=0)[keep]
    return x[keep], y, n_cohorts[keep]


def retention_curve(
    report: Any,
    *,
    offsets: str = "days",
    weighting: str = "cohorts",
    ax: Any = None,
) -> Any:
    """Plot day-N retention against N, averaged over cohorts, for one or several reports.

    The point at N is the mean, over the cohorts whose period ``c + N`` is
    in the observation window and that have at least one user, of their
    day-N retention: the mean of the non-nan entries of one column of
    ``report.day_n_retention`` (or of ``report.cohort_retention``). An N that
    no cohort has observed yet is left out of the line.

    Parameters
    ----------
    report : RetentionReport or dict of str to RetentionReport
        The result of :func:`receval.retention`, or ``{name: report}`` to
        compare several (one line each).
    offsets : {"days", "all"}, default="days"
        The N drawn: ``report.days`` (columns of ``day_n_retention``), or
        every N from 1 to ``n_periods - 1`` (columns of ``cohort_retention``).
    weighting : {"cohorts", "users"}, default="cohorts"
        Each cohort counts once (the mean of rates), or in proportion to its
        size (retained users of those cohorts / their new users).
    ax : matplotlib Axes, default=None
        Where to draw; a new figure when None.

    Returns
    -------
    ax : matplotlib Axes
        The axes drawn on: one line with round markers per report (labelled
        with its name in a dict; no legend for a single report), x the N, y
        the mean retention.

    Raises
    ------
    ImportError
        matplotlib is not installed.
    InvalidParameterError
        ``offsets`` or ``weighting`` is not one of its options.

    See Also
    --------
    receval.retention : The report.
    retention_heatmap : Every cohort and offset.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from receval import retention
    >>> from receval.plot import retention_curve
    >>> events = {"user": ["a", "b", "a", "c", "a"],
    ...           "time": ["2024-01-01", "2024-01-01", "2024-01-02", "2024-01-02", "2024-01-03"]}
    >>> report = retention(events, days=(1, 2))
    >>> report.day_n_retention  # N = 1 is observed for 2 cohorts, N = 2 for 1
    array([[0.5, 0.5],
           [0. , nan],
           [nan, nan]])
    >>> ax = retention_curve(report)
    >>> ax.lines[0].get_xydata()
    array([[1.  , 0.25],
           [2.  , 0.5 ]])
    """
    func = "retention_curve"
    check_ax(ax, func)
    return _curve(report, offsets, weighting, func).plot(ax=ax).ax_


def _curve(report: Any, offsets: str, weighting: str, func: str) -> RetentionCurveDisplay:
    """The mean curves of ``report`` (a RetentionReport or ``{name: report}``), not
    drawn yet; errors name ``func``."""
    v.check_option(offsets, "offsets", func, ["all", "days"])
    v.check_option(weighting, "weighting", func, ["cohorts", "users"])
    models = _reports(report, func, several=True)
    curves = {name: mean_curve(rep, offsets, weighting)[:2] for name, rep in models}
    return RetentionCurveDisplay(curves=curves, period=models[0][1].period)


@dataclass(kw_only=True, eq=False, repr=False)
class RetentionHeatmapDisplay(Display):
    """The cohort x offset table of a RetentionReport, kept with its drawing: the
    display behind :func:`retention_heatmap`.

    Parameters
    ----------
    table : ndarray of shape (n_periods, n_periods)
        Rates or user counts, cohort by offset.
    mask : ndarray of bool, same shape
        Cells not drawn: periods after the window, and empty cohorts' rates.
    periods : ndarray
        The start of each cohort's period (row labels).
    period : str
        The period's name ("day", "week", ...).
    values : {"rate", "count"}
        What ``table`` holds.

    Attributes
    ----------
    ax_, figure_ : matplotlib Axes and Figure
        Where the last :meth:`plot` drew.
    image_ : matplotlib AxesImage
        The heatmap.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from receval import retention
    >>> from receval.plot import RetentionHeatmapDisplay
    >>> events = {"user": ["a", "b", "a"], "time": ["2024-01-01", "2024-01-01", "2024-01-02"]}
    >>> d = RetentionHeatmapDisplay.from_report(retention(events), values="count")
    >>> d.table
    array([[2., 1.],
           [0., 0.]])
    >>> d.mask
    array([[False, False],
           [False,  True]])
    """

    table: NDArray[np.float64]
    mask: NDArray[np.bool_]
    periods: Any
    period: str
    values: str

    def __post_init__(self) -> None:
        super().__post_init__()
        self.image_: Any = None

    @classmethod
    def from_report(
        cls,
        report: Any,
        *,
        values: str = "rate",
        ax: Any = None,
        cmap: str = "Blues",
        annotate: bool = False,
    ) -> RetentionHeatmapDisplay:
        """The table of ``report`` (a :class:`receval.RetentionReport`), drawn on
        ``ax``; the parameters are :func:`retention_heatmap`'s."""
        func = "RetentionHeatmapDisplay.from_report"
        check_ax(ax, func)
        return _heatmap(report, values, func).plot(ax=ax, cmap=cmap, annotate=annotate)

    def plot(
        self, ax: Any = None, *, cmap: str = "Blues", annotate: bool = False
    ) -> RetentionHeatmapDisplay:
        """Draw the heatmap and its colour bar on ``ax`` (a new figure when None).

        Returns
        -------
        display : RetentionHeatmapDisplay
            Itself, with ``ax_``, ``figure_`` and ``image_`` set.
        """
        import numpy as np

        ax = self.start(ax)
        rate = self.values == "rate"
        vmax, bar_label = (1.0, "retention rate") if rate else (None, "users")
        data = np.ma.masked_array(self.table, mask=self.mask)
        image = ax.imshow(data, aspect="auto", cmap=cmap, interpolation="nearest", vmin=0.0,
                          vmax=vmax)  # fmt: skip
        self.image_ = image
        ax.figure.colorbar(image, ax=ax, label=bar_label)
        n = len(self.table)
        step = max(1, -(-n // _MAX_LABELS))
        rows = np.arange(0, n, step)
        ax.set_yticks(rows, [str(p) for p in self.periods[rows]])
        ax.set_xticks(rows)
        ax.set(xlabel=f"N ({self.period}s later)", ylabel=f"cohort ({self.period})")
        if annotate:
            for c, k in zip(*np.nonzero(~self.mask), strict=True):
                value = self.table[c, k]
                text = f"{value:.0%}" if rate else f"{int(value)}"
                color = "white" if image.norm(value) > 0.6 else "black"  # readable on dark cells
                ax.text(k, c, text, ha="center", va="center", fontsize="small", color=color)
        return self


@dataclass(kw_only=True, eq=False, repr=False)
class RetentionCurveDisplay(Display):
    """Mean retention against the offset N, for one or several RetentionReports: the
    display behind :func:`retention_curve`.

    Parameters
    ----------
    curves : dict of str or None to (ndarray, ndarray)
        Per report name (None for one unnamed report), the offsets N and the
        mean retention at each.
    period : str
        The period's name ("day", "week", ...).

    Attributes
    ----------
    ax_, figure_ : matplotlib Axes and Figure
        Where the last :meth:`plot` drew.
    lines_ : list of matplotlib Line2D
        One line per report.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from receval import retention
    >>> from receval.plot import RetentionCurveDisplay
    >>> events = {"user": ["a", "b", "a", "c", "a"],
    ...           "time": ["2024-01-01", "2024-01-01", "2024-01-02", "2024-01-02", "2024-01-03"]}
    >>> d = RetentionCurveDisplay.from_report(retention(events, days=(1, 2)))
    >>> d.curves[None]
    (array([1, 2]), array([0.25, 0.5 ]))
    """

    curves: dict[str | None, tuple[NDArray[Any], NDArray[np.float64]]]
    period: str

    @classmethod
    def from_report(
        cls,
        report: Any,
        *,
        offsets: str = "all",
        weighting: str = "cohorts",
        ax: Any = None,
    ) -> RetentionCurveDisplay:
        """The mean curves of ``report`` (a RetentionReport or ``{name: report}``),
        drawn on ``ax``; the parameters are :func:`retention_curve`'s."""
        func = "RetentionCurveDisplay.from_report"
        check_ax(ax, func)
        return _curve(report, offsets, weighting, func).plot(ax=ax)

    def plot(self, ax: Any = None) -> RetentionCurveDisplay:
        """Draw one line per report on ``ax`` (a new figure when None).

        Returns
        -------
        display : RetentionCurveDisplay
            Itself, with ``ax_``, ``figure_`` and ``lines_`` set.
        """
        ax = self.start(ax)
        for name, (x, y) in self.curves.items():
            label = "_nolegend_" if name is None else name
            self.lines_.extend(ax.plot(x, y, marker="o", label=label))
        ax.set(xlabel=f"N ({self.period}s later)", ylabel="retention rate", ylim=(0.0, None))
        if any(name is not None for name in self.curves):
            ax.legend(loc="best")
        return self

"""Plots of a RetentionReport: the cohort x offset heatmap and day-N retention curves."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _validation as v
from ._base import as_models, get_axes

__all__ = ["retention_curve", "retention_heatmap"]

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
    v.check_option(values, "values", "retention_heatmap", ["count", "rate"])
    ax = get_axes(ax)
    n = report.n_periods
    offset = np.arange(n)
    unobserved = offset[:, None] + offset[None, :] >= n
    if values == "rate":
        table = np.asarray(report.cohort_retention, dtype=np.float64)
        mask = unobserved | np.isnan(table)
        vmin, vmax, bar_label = 0.0, 1.0, "retention rate"
    else:
        table = np.asarray(report.cohort_counts, dtype=np.float64)
        mask = unobserved
        vmin, vmax, bar_label = 0.0, None, "users"
    data = np.ma.masked_array(table, mask=mask)
    image = ax.imshow(data, aspect="auto", cmap=cmap, interpolation="nearest", vmin=vmin, vmax=vmax)
    ax.figure.colorbar(image, ax=ax, label=bar_label)
    step = max(1, -(-n // _MAX_LABELS))
    rows = np.arange(0, n, step)
    ax.set_yticks(rows, [str(p) for p in np.asarray(report.periods)[rows]])
    ax.set_xticks(rows)
    ax.set(xlabel=f"N ({report.period}s later)", ylabel=f"cohort ({report.period})")
    if annotate:
        for c, k in zip(*np.nonzero(~mask), strict=True):
            value = table[c, k]
            text = f"{value:.0%}" if values == "rate" else f"{int(value)}"
            color = "white" if image.norm(value) > 0.6 else "black"  # readable on dark cells
            ax.text(k, c, text, ha="center", va="center", fontsize="small", color=color)
    return ax


def _mean_curve(report: Any, offsets: str, weighting: str) -> tuple[np.ndarray, np.ndarray]:
    """The offsets N and the mean retention at each (offsets without a cohort dropped)."""
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
    return x[keep], y


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
    v.check_option(offsets, "offsets", func, ["all", "days"])
    v.check_option(weighting, "weighting", func, ["cohorts", "users"])
    from ..metrics._cohorts import RetentionReport

    models = as_models(report, "report", func, lambda r: not isinstance(r, RetentionReport))
    ax = get_axes(ax)
    for name, rep in models:
        x, y = _mean_curve(rep, offsets, weighting)
        ax.plot(x, y, marker="o", label="_nolegend_" if name is None else name)
    period = models[0][1].period
    ax.set(xlabel=f"N ({period}s later)", ylabel="retention rate", ylim=(0.0, None))
    if any(name is not None for name, _ in models):
        ax.legend(loc="best")
    return ax

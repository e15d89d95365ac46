"""Interactive figures of the HTML report: Plotly specifications built from receval's numbers.

Each ``*_figure`` function returns a plain dict ``{"data": [...], "layout": {...}}``
that ``Plotly.newPlot`` draws in the browser; only :func:`plotly_js` needs the
``plotly`` Python package, for the JavaScript library inlined once in the page.
Curves with many points are thinned to at most :data:`MAX_POINTS` points of
the curve (every point kept is a point of the exact curve).
"""

from __future__ import annotations

import functools
import html
import importlib.util
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..data._lookup import distinct

__all__ = [
    "MAX_POINTS",
    "PLOTLY_CONFIG",
    "calibration_figure",
    "has_plotly",
    "long_tail_figure",
    "metric_at_k_figure",
    "plotly_js",
    "precision_recall_figure",
    "retention_curve_figure",
    "retention_heatmap_figure",
    "roc_figure",
    "thin",
]

#: Most points drawn of one curve.
MAX_POINTS = 1500

#: The ``config`` of every figure: no Plotly logo, resized with the page; nothing fetched.
PLOTLY_CONFIG: dict[str, Any] = {"displaylogo": False, "responsive": True}

_MISSING = "interactive report figures need plotly; pip install 'receval[plot]'."
_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
            "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")  # fmt: skip
_DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")
_GREY = "#8c959f"


def has_plotly() -> bool:
    """Whether the ``plotly`` package is installed (it is not imported)."""
    return importlib.util.find_spec("plotly") is not None


@functools.lru_cache(maxsize=1)
def plotly_js() -> str:
    """The plotly.js library (minified) of the installed ``plotly`` package.

    Raises
    ------
    ImportError
        plotly is not installed.
    """
    try:
        from plotly.offline import get_plotlyjs  # type: ignore[import-untyped]
    except ImportError as exc:
        raise ImportError(_MISSING) from exc
    return str(get_plotlyjs())


def _floats(values: ArrayLike) -> list[float | None]:
    """Plain floats, None for nan and infinity (JSON null: a gap in a line)."""
    array = np.asarray(values, dtype=np.float64)
    return [float(x) if np.isfinite(x) else None for x in array.tolist()]


def thin(x: ArrayLike, y: ArrayLike, max_points: int = MAX_POINTS) -> np.ndarray:
    """Indices of at most about ``max_points`` points spread evenly along a curve's length.

    The first and last points are kept; the others are the first points
    past each of ``max_points`` equal steps of the curve's path length (in
    the units of the axes, both in [0, 1] for ROC and precision-recall).
    """
    xs = np.asarray(x, dtype=np.float64)
    ys = np.asarray(y, dtype=np.float64)
    n = len(xs)
    if n <= max_points:
        return np.arange(n)
    steps = np.abs(np.diff(xs)) + np.abs(np.diff(ys))
    length = np.concatenate([[0.0], np.cumsum(np.nan_to_num(steps))])
    total = length[-1]
    if total <= 0:
        return np.array([0, n - 1])
    marks = np.searchsorted(length, np.linspace(0.0, total, max_points))
    return distinct(np.concatenate([[0], np.minimum(marks, n - 1), [n - 1]]))


def _axis(title: str, **extra: Any) -> dict[str, Any]:
    return {"title": {"text": title}, "automargin": True, "zeroline": False, **extra}


def _layout(xtitle: str, ytitle: str, **extra: Any) -> dict[str, Any]:
    layout: dict[str, Any] = {
        "xaxis": _axis(xtitle),
        "yaxis": _axis(ytitle),
        "margin": {"t": 30, "r": 20, "b": 50, "l": 60},
        "hovermode": "closest",
        "font": {"family": "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif"},
        "plot_bgcolor": "#ffffff",
        "legend": {"bgcolor": "rgba(255,255,255,0.8)"},
    }
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(layout.get(key), dict):
            layout[key] = {**layout[key], **value}
        else:
            layout[key] = value
    return layout


def _diagonal(low: float, high: float, name: str) -> dict[str, Any]:
    return {"type": "scatter", "mode": "lines", "x": [low, high], "y": [low, high], "name": name,
            "line": {"color": _GREY, "dash": "dash", "width": 1}, "hoverinfo": "skip"}  # fmt: skip


def _colour(i: int) -> str:
    return _COLOURS[i % len(_COLOURS)]


def _text(value: object) -> str:
    """A user's string (a score column, a run's name) as plain text in a figure.

    Plotly reads trace names, hover templates and titles as a subset of HTML
    (``<span style=...>``, ``<a href=...>``), so a name such as
    ``<span style="background:url(http://...)">`` would make the browser fetch
    that address; escaped, it is shown as written.
    """
    return html.escape(str(value), quote=False)


#: The trace's name in a hover template, read from the trace (``fullData.name``): a
#: name is never part of a template, where ``%{y}`` in it would show a number.
_NAME = "<b>%{fullData.name}</b>"


def roc_figure(
    y_true: ArrayLike,
    scores: Mapping[str, ArrayLike],
    *,
    sample_weight: ArrayLike | None = None,
) -> dict[str, Any]:
    """ROC curves, one trace per model (its AUC in the legend), and the chance diagonal.

    Hovering a point shows its false and true positive rates and threshold.

    Examples
    --------
    >>> from receval.report.interactive import roc_figure
    >>> fig = roc_figure([0, 1, 1, 0], {"m": [0.1, 0.8, 0.4, 0.3]})
    >>> fig["data"][0]["name"], fig["data"][0]["x"]
    ('m (AUC = 1.0000)', [0.0, 0.0, 0.0, 1.0])
    """
    from ..metrics._auc import roc_auc_score
    from ..metrics._curves import roc_curve

    data = []
    for i, (name, y_score) in enumerate(scores.items()):
        label = _text(name)
        fpr, tpr, thresholds = roc_curve(y_true, y_score, sample_weight=sample_weight)
        auc = roc_auc_score(y_true, y_score, sample_weight=sample_weight)
        keep = thin(fpr, tpr)
        data.append({
            "type": "scatter", "mode": "lines", "name": f"{label} (AUC = {auc:.4f})",
            "x": _floats(fpr[keep]), "y": _floats(tpr[keep]),
            "customdata": _floats(thresholds[keep]), "line": {"color": _colour(i)},
            "hovertemplate": f"{_NAME}<br>FPR %{{x:.4f}}<br>TPR %{{y:.4f}}"
            "<br>threshold %{customdata:.4g}<extra></extra>",
        })  # fmt: skip
    data.append(_diagonal(0.0, 1.0, "chance"))
    layout = _layout(
        "False positive rate", "True positive rate",
        xaxis={"range": [-0.01, 1.01], "constrain": "domain"},
        yaxis={"range": [-0.01, 1.01], "scaleanchor": "x", "constrain": "domain"},
        legend={"x": 0.98, "xanchor": "right", "y": 0.02, "yanchor": "bottom"},
    )  # fmt: skip
    return {"data": data, "layout": layout}


def precision_recall_figure(
    y_true: ArrayLike,
    scores: Mapping[str, ArrayLike],
    *,
    sample_weight: ArrayLike | None = None,
) -> dict[str, Any]:
    """Precision-recall step curves with AP and the break-even point, and the prevalence line.

    The horizontal dotted line is the share of positives (the precision of
    a random ranking); the legend sits under the axes, off the curves.

    Examples
    --------
    >>> from receval.report.interactive import precision_recall_figure
    >>> fig = precision_recall_figure([1, 0, 1, 0], {"m": [0.9, 0.8, 0.7, 0.2]})
    >>> [trace["name"] for trace in fig["data"]]
    ['m (AP = 0.8333, BEP = 0.5000)', 'm: break-even point', 'prevalence (0.5000)']
    """
    from ..metrics._auc import average_precision_score, break_even_point
    from ..metrics._curves import precision_recall_curve

    weights = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    positive = np.asarray(y_true) == 1
    prevalence = float(np.average(positive, weights=weights)) if positive.size else float("nan")
    data: list[dict[str, Any]] = []
    for i, (name, y_score) in enumerate(scores.items()):
        label = _text(name)
        precision, recall, _ = precision_recall_curve(y_true, y_score, sample_weight=sample_weight)
        ap = average_precision_score(y_true, y_score, sample_weight=sample_weight)
        bep = break_even_point(y_true, y_score, sample_weight=sample_weight)
        keep = thin(recall, precision)
        data.append({
            "type": "scatter", "mode": "lines", "line": {"shape": "hv", "color": _colour(i)},
            "name": f"{label} (AP = {ap:.4f}, BEP = {bep:.4f})", "legendgroup": label,
            "x": _floats(recall[keep][::-1]), "y": _floats(precision[keep][::-1]),
            "hovertemplate": f"{_NAME}<br>recall %{{x:.4f}}<br>precision %{{y:.4f}}"
            "<extra></extra>",
        })  # fmt: skip
        data.append({
            "type": "scatter", "mode": "markers", "x": _floats([bep]), "y": _floats([bep]),
            "name": f"{label}: break-even point", "legendgroup": label, "showlegend": False,
            "marker": {"color": _colour(i), "size": 9},
            "hovertemplate": f"{_NAME} %{{x:.4f}}<extra></extra>",
        })  # fmt: skip
    data.append({
        "type": "scatter", "mode": "lines", "x": [0.0, 1.0], "y": _floats([prevalence] * 2),
        "name": f"prevalence ({prevalence:.4f})", "line": {"color": _GREY, "dash": "dot"},
        "hovertemplate": "share of positives %{y:.4f}<extra></extra>",
    })  # fmt: skip
    layout = _layout(
        "Recall", "Precision",
        xaxis={"range": [-0.01, 1.01]}, yaxis={"range": [-0.01, 1.01]},
        legend={"orientation": "h", "x": 0.0, "xanchor": "left", "y": -0.18, "yanchor": "top"},
        margin={"b": 40},
    )  # fmt: skip
    return {"data": data, "layout": layout}


def calibration_figure(
    y_true: ArrayLike,
    scores: Mapping[str, ArrayLike],
    *,
    n_bins: int = 20,
    strategy: str = "quantile",
    sample_weight: ArrayLike | None = None,
    n_hist_bins: int = 40,
) -> dict[str, Any]:
    """Reliability curves zoomed to the predictions' range, with their histogram beneath.

    The top panel shows the observed positive rate against the mean
    prediction of each bin (:func:`receval.calibration_curve`, PCOC in the
    legend) and the diagonal, on the range of the bins' mean predictions
    (5% margins) rather than [0, 1]; the bottom panel the number of samples
    (weighted) in ``n_hist_bins`` equal-width bins of that range, per model
    (the first and last bins also hold the predictions beyond the range).

    Examples
    --------
    >>> from receval.report.interactive import calibration_figure
    >>> fig = calibration_figure([0, 0, 1, 1], {"m": [0.1, 0.2, 0.6, 0.7]}, n_bins=2)
    >>> fig["data"][0]["x"], fig["data"][0]["y"]
    ([0.15000000000000002, 0.6499999999999999], [0.0, 1.0])
    >>> fig["layout"]["xaxis"]["range"]
    [0.125, 0.675]
    """
    from ..metrics._calibration import calibration_curve, pcoc

    weights = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    probs = {name: np.asarray(p, dtype=np.float64) for name, p in scores.items()}
    curves = {
        name: calibration_curve(
            y_true, p, n_bins=n_bins, strategy=strategy, sample_weight=sample_weight
        )
        for name, p in probs.items()
    }
    # the range of the bins' mean predictions: where the curves are
    means = np.concatenate([np.asarray(c[1], dtype=np.float64) for c in curves.values()])
    means = means[np.isfinite(means)]
    low, high = (float(means.min()), float(means.max())) if means.size else (0.0, 1.0)
    pad = max((high - low) * 0.05, 1e-3)
    low, high = max(low - pad, 0.0), min(high + pad, 1.0)
    edges = np.linspace(low, high, n_hist_bins + 1)
    centres = (edges[:-1] + edges[1:]) / 2
    data: list[dict[str, Any]] = []
    rates: list[float] = []
    for i, (name, p) in enumerate(probs.items()):
        label = _text(name)
        prob_true, prob_pred = curves[name]
        value = pcoc(y_true, p, sample_weight=sample_weight)
        rates += [float(r) for r in prob_true if np.isfinite(r)]
        data.append({
            "type": "scatter", "mode": "lines+markers", "name": f"{label} (PCOC = {value:.4f})",
            "legendgroup": label, "x": _floats(prob_pred), "y": _floats(prob_true),
            "marker": {"symbol": "square", "size": 7, "color": _colour(i)},
            "line": {"color": _colour(i)}, "xaxis": "x", "yaxis": "y",
            "hovertemplate": f"{_NAME}<br>mean prediction %{{x:.4f}}"
            "<br>observed rate %{y:.4f}<extra></extra>",
        })  # fmt: skip
        counts, _ = np.histogram(np.clip(p, low, high), bins=edges, weights=weights)
        data.append({
            "type": "bar", "name": f"{label}: samples", "legendgroup": label, "showlegend": False,
            "x": _floats(centres), "y": _floats(counts), "width": float(edges[1] - edges[0]),
            "marker": {"color": _colour(i)}, "opacity": 0.55, "xaxis": "x", "yaxis": "y2",
            "hovertemplate": f"{_NAME} %{{y}}<br>predictions %{{x:.4f}} ± "
            f"{(edges[1] - edges[0]) / 2:.4f}<extra></extra>",
        })  # fmt: skip
    top = max([high, *rates])
    bottom = min([low, *rates])
    span = [round(low, 6), round(high, 6)]
    data.append({**_diagonal(low, high, "perfectly calibrated"), "xaxis": "x", "yaxis": "y"})
    layout = _layout(
        "Mean predicted probability", "Observed positive rate",
        xaxis={"range": span, "anchor": "y2"},
        yaxis={"domain": [0.32, 1.0], "range": [bottom - 0.02 * (top - bottom),
                                                  top + 0.02 * (top - bottom)]},
        yaxis2={"domain": [0.0, 0.24], "title": {"text": "samples"}, "automargin": True,
                "rangemode": "tozero"},
        barmode="overlay", legend={"x": 0.02, "xanchor": "left", "y": 0.99, "yanchor": "top"},
    )  # fmt: skip
    return {"data": data, "layout": layout}


def metric_at_k_figure(
    qrels: Any,
    runs: Mapping[str, Any],
    *,
    metrics: Sequence[str],
    ks: Iterable[int] = range(1, 101),
    **conventions: Any,
) -> dict[str, Any]:
    """Mean ranking metrics against k: one colour per run, one line style per metric.

    For each run, one :func:`receval.evaluate` call computes every
    ``"<metric>@<k>"``; the legend groups a run's lines, so clicking a run
    hides all of them.

    Examples
    --------
    >>> from receval.report.interactive import metric_at_k_figure
    >>> qrels = {"u1": {"a": 1, "b": 1}, "u2": {"c": 1}}
    >>> run = {"u1": {"a": 0.9, "c": 0.5, "b": 0.1}, "u2": {"c": 0.7, "a": 0.2}}
    >>> fig = metric_at_k_figure(qrels, {"m": run}, metrics=["recall"], ks=[1, 2, 3])
    >>> fig["data"][0]["name"], fig["data"][0]["y"], fig["data"][0]["line"]["dash"]
    ('m: recall', [0.75, 0.75, 1.0], 'solid')
    """
    from ..ranking.evaluation import evaluate_as

    cutoffs = sorted(set(ks))
    data = []
    for i, (model, run) in enumerate(runs.items()):
        strings = {(m, k): f"{m}@{k}" for m in metrics for k in cutoffs}
        report = evaluate_as(
            "metric_at_k_figure", qrels, run, list(strings.values()), **conventions
        )
        run_label = _text(model)
        for j, m in enumerate(metrics):
            metric_label = _text(m)
            data.append({
                "type": "scatter", "mode": "lines", "name": f"{run_label}: {metric_label}",
                "legendgroup": run_label, "x": cutoffs,
                "y": _floats([report.mean[strings[m, k]] for k in cutoffs]),
                "line": {"color": _colour(i), "dash": _DASHES[j % len(_DASHES)]},
                "hovertemplate": f"{_NAME}@%{{x}} = %{{y:.4f}}<extra></extra>",
            })  # fmt: skip
    layout = _layout("k", "mean metric@k", hovermode="x unified", yaxis={"rangemode": "tozero"})
    return {"data": data, "layout": layout}


def retention_heatmap_figure(report: Any) -> dict[str, Any]:
    """The cohort x offset retention heatmap, hover showing cohort, offset, rate and size.

    Cells not observed yet are blank. The colour scale runs from 0 to the
    highest rate after offset 0 (column 0, every cohort's own period, is 1
    and would leave the other cells pale), so offset 0 shows at full colour.

    Examples
    --------
    >>> from receval import retention
    >>> from receval.report.interactive import retention_heatmap_figure
    >>> events = {"user": ["a", "b", "a", "c", "a"],
    ...           "time": ["2024-01-01", "2024-01-01", "2024-01-02", "2024-01-02", "2024-01-03"]}
    >>> fig = retention_heatmap_figure(retention(events, days=1))
    >>> fig["data"][0]["z"], fig["data"][0]["zmax"]
    ([[1.0, 0.5, 0.5], [1.0, 0.0, None], [None, None, None]], 0.5)
    """
    n = int(report.n_periods)
    table = np.asarray(report.cohort_retention, dtype=np.float64)  # nan where unobserved
    later = table[:, 1:]
    observed = later[np.isfinite(later)]
    zmax = float(observed.max()) if observed.size and observed.max() > 0 else 1.0
    sizes = np.asarray(report.new_users).tolist()
    period = str(report.period)
    labels = [str(p) for p in np.asarray(report.periods).tolist()]
    data = [{
        "type": "heatmap", "z": [_floats(row) for row in table], "x": list(range(n)),
        "y": labels, "customdata": [[size] * n for size in sizes],
        "zmin": 0.0, "zmax": zmax, "colorscale": "Blues", "reversescale": True,
        "hoverongaps": False,
        "colorbar": {"title": {"text": "retention"}, "tickformat": ".0%"},
        "hovertemplate": f"cohort %{{y}}<br>{period} %{{x}}<br>retention %{{z:.2%}}"
        "<br>cohort size %{customdata}<extra></extra>",
    }]  # fmt: skip
    layout = _layout(
        f"N ({period}s later)", f"cohort ({period})",
        yaxis={"autorange": "reversed", "type": "category", "nticks": 25},
        xaxis={"nticks": 25}, margin={"l": 90},
    )  # fmt: skip
    return {"data": data, "layout": layout}


def retention_curve_figure(report: Any) -> dict[str, Any]:
    """Mean retention over the cohorts that observed each offset N, N = 1 .. n_periods - 1.

    Examples
    --------
    >>> from receval import retention
    >>> from receval.report.interactive import retention_curve_figure
    >>> events = {"user": ["a", "b", "a", "c", "a"],
    ...           "time": ["2024-01-01", "2024-01-01", "2024-01-02", "2024-01-02", "2024-01-03"]}
    >>> fig = retention_curve_figure(retention(events, days=1))
    >>> fig["data"][0]["x"], fig["data"][0]["y"]
    ([1, 2], [0.25, 0.5])
    """
    from ..plot._retention import mean_curve

    offsets, mean, n_cohorts = mean_curve(report)
    period = str(report.period)
    data = [{
        "type": "scatter", "mode": "lines+markers", "name": "mean retention",
        "x": offsets.tolist(), "y": _floats(mean),
        "customdata": n_cohorts.tolist(), "line": {"color": _colour(0)},
        "hovertemplate": f"{period} %{{x}}: %{{y:.2%}}<br>mean of %{{customdata}} cohorts"
        "<extra></extra>",
    }]  # fmt: skip
    layout = _layout(
        f"N ({period}s later)", "retention rate", yaxis={"rangemode": "tozero", "tickformat": ".0%"}
    )
    return {"data": data, "layout": layout}


def long_tail_figure(curves: Mapping[str, Any]) -> dict[str, Any]:
    """The long-tail plot from the numbers of ``receval.plot`` (``long_tail_curves``).

    Examples
    --------
    >>> from receval.report.interactive import long_tail_figure
    >>> fig = long_tail_figure({"x": [0.5, 1.0], "interactions": [0.8, 1.0],
    ...                         "runs": {"a": [1.0, 1.0]}, "head": 0.5})
    >>> [trace["name"] for trace in fig["data"]]
    ['interactions', 'a', 'end of the head']
    """
    x = np.concatenate([[0.0], np.asarray(curves["x"], dtype=np.float64)])
    lines = {"interactions": curves["interactions"], **curves["runs"]}
    data = []
    for i, (name, y) in enumerate(lines.items()):
        label = _text(name)
        ys = np.concatenate([[0.0], np.asarray(y, dtype=np.float64)])
        keep = thin(x, ys)
        colour = "#000000" if i == 0 else _colour(i - 1)
        data.append({
            "type": "scatter", "mode": "lines", "name": label, "x": _floats(x[keep]),
            "y": _floats(ys[keep]), "line": {"color": colour},
            "hovertemplate": f"{_NAME}<br>top %{{x:.1%}} of items: %{{y:.1%}}<extra></extra>",
        })  # fmt: skip
    head = float(curves["head"])
    data.append({
        "type": "scatter", "mode": "lines", "name": "end of the head", "x": [head, head],
        "y": [0.0, 1.02], "line": {"color": _GREY, "dash": "dot"}, "hoverinfo": "skip",
    })  # fmt: skip
    layout = _layout(
        "items by popularity (share of items)", "cumulative share",
        xaxis={"range": [0.0, 1.0], "tickformat": ".0%"},
        yaxis={"range": [0.0, 1.02], "tickformat": ".0%"},
        legend={"x": 0.98, "xanchor": "right", "y": 0.02, "yanchor": "bottom"},
    )  # fmt: skip
    return {"data": data, "layout": layout}

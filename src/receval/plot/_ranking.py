"""Mean ranking metrics against the cut-off k."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .. import _parameters as v
from ..exceptions import InvalidParameterError
from ._base import Display, as_models, check_ax

__all__ = ["MetricAtKDisplay", "is_run_dict", "metric_at_k"]

_FUNC = "metric_at_k"
# above this many cut-offs the lines get no markers
_MAX_MARKED = 20


def _is_run_like(obj: Any) -> bool:
    """A Run, a frame, a path, or a dict of dicts ``{user: {item: score}}``."""
    from ..data._ranked import Run
    from ..data.io import is_frame

    if isinstance(obj, (Run, str, os.PathLike)) or is_frame(obj):
        return True
    return isinstance(obj, Mapping) and any(isinstance(x, Mapping) for x in obj.values())


def is_run_dict(runs: Any) -> bool:
    """Whether ``runs`` is ``{model name: run}`` rather than one run ``{user: {item: score}}``."""
    return isinstance(runs, Mapping) and any(_is_run_like(r) for r in runs.values())


def _check_metrics(metrics: Any) -> list[str]:
    out = v.metric_strings(metrics, _FUNC)
    if not out:
        raise InvalidParameterError(
            f"The 'metrics' parameter of {_FUNC} must name at least one metric. Got [] instead."
        )
    from ..registry import parse_metric

    for m in out:
        if not isinstance(m, str) or "@" in m:
            raise InvalidParameterError(
                f"The 'metrics' parameter of {_FUNC} must hold metric names without '@k', "
                f"e.g. 'ndcg'. Got {m!r} instead; the cut-offs come from ks."
            )
        info = parse_metric(m).info  # an unknown name: the registry's suggestion
        if not info.accepts_k:
            raise InvalidParameterError(
                f"The 'metrics' parameter of {_FUNC} must hold metrics that take a cut-off "
                f"@k. Got {m!r} ({info.name}), which takes none; e.g. 'ndcg' or 'recall'."
            )
    return out


def _check_conventions(conventions: dict[str, Any]) -> None:
    """The keywords of :func:`receval.evaluate` among ``conventions``: each one of its
    options, and its conventions checked as evaluate checks them, before any
    evaluation, naming metric_at_k."""
    import inspect

    from ..conventions import FIELDS, resolve_conventions
    from ..ranking.evaluation import evaluate

    options = sorted(set(inspect.signature(evaluate).parameters) - {"qrels", "run", "metrics"})
    unknown = sorted(set(conventions) - set(options))
    if unknown:
        raise InvalidParameterError(
            f"{_FUNC}: unknown option {unknown[0]!r}. Expected one of evaluate's options {options}."
        )
    given = {name: value for name, value in conventions.items() if name in FIELDS}
    resolve_conventions(conventions.get("profile"), _FUNC, **given)


def _check_ks(ks: Any) -> list[int]:
    if isinstance(ks, (int, str, bytes)) or not isinstance(ks, Iterable):
        raise InvalidParameterError(
            f"The 'ks' parameter of {_FUNC} must be a sequence of positive integers. "
            f"Got {ks!r} instead."
        )
    out = sorted({v.check_number(k, "ks", _FUNC, integer=True, low=1) for k in ks})
    if not out:
        raise InvalidParameterError(
            f"The 'ks' parameter of {_FUNC} must hold at least one positive integer. "
            f"Got {ks!r} instead."
        )
    return out


def metric_at_k(
    qrels: Any,
    runs: Any,
    *,
    metrics: str | Iterable[str] = ("ndcg", "recall"),
    ks: Iterable[int] = range(1, 101),
    ax: Any = None,
    **conventions: Any,
) -> Any:
    """Plot mean ranking metrics against the cut-off k, for one or several runs.

    A shortcut of :meth:`MetricAtKDisplay.from_runs` that returns the display's
    Axes; one colour per model, one line style per metric.

    For each model, one :func:`receval.evaluate` call lists every
    ``"<metric>@<k>"`` string (all computed in one pass over the data); one
    line per (model, metric) then joins the means ``report.mean[f"{metric}@{k}"]``
    for increasing k. Users that the conventions leave out of a mean
    (``empty_users="skip"``, the default: users without a relevant item;
    ``missing_users="skip"``; ``zero_users="skip"``) are counted, as in
    ``report.n_users_skipped``, and named in the line's label.

    Parameters
    ----------
    qrels : Qrels, dict, DataFrame or path
        Ground truth, as for :func:`receval.evaluate`; read once for all models.
    runs : Run, dict, DataFrame or path, or dict of str to those
        One run, or ``{model name: run}``. A mapping is taken as a dict of
        models when one of its values is a Run, a DataFrame, a path or itself
        a dict of dicts; otherwise it is one run ``{user: {item: score}}``.
    metrics : str or iterable of str, default=("ndcg", "recall")
        Metric names without ``@k`` (``"ndcg"``, ``"map"``,
        ``"ndcg(gain=exponential)"``); see :func:`receval.list_metrics`.
    ks : iterable of int, default=range(1, 101)
        The cut-offs, positive; drawn in increasing order, duplicates once.
    ax : matplotlib Axes, default=None
        Where to draw; a new figure when None.
    **conventions
        Keyword arguments of :func:`receval.evaluate`: ``profile``, ``gain``,
        ``rel_threshold``, ``ties``, ``missing_users``, ...

    Returns
    -------
    ax : matplotlib Axes
        The axes drawn on, one line per model and metric, in the order of
        ``runs`` then ``metrics``: x the cut-offs, y the means. A line is
        labelled ``"name: metric"``, or ``"metric"`` for a single run without
        a name (a :class:`receval.Run` with a ``name`` uses it), followed by
        the users left out of its means, if any: ``"name: metric (2 users
        skipped)"``, or ``"(1 to 3 users skipped)"`` where the count depends
        on k.

    Raises
    ------
    ImportError
        matplotlib is not installed.
    InvalidParameterError
        A metric name with ``@``, or ``ks`` not positive integers; unknown
        metrics and conventions, from :func:`receval.evaluate`.

    See Also
    --------
    receval.evaluate : The numbers drawn.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from receval.plot import metric_at_k
    >>> qrels = {"u1": {"a": 1, "b": 1}, "u2": {"c": 1}}
    >>> run = {"u1": {"a": 0.9, "c": 0.5, "b": 0.1}, "u2": {"c": 0.7, "a": 0.2}}
    >>> ax = metric_at_k(qrels, {"m": run}, metrics="recall", ks=[1, 2, 3])
    >>> ax.lines[0].get_label()
    'm: recall'
    >>> ax.lines[0].get_xydata()
    array([[1.  , 0.75],
           [2.  , 0.75],
           [3.  , 1.  ]])

    A user without a relevant item has no recall: left out, and counted.

    >>> qrels["u3"], run["u3"] = {"a": 0}, {"a": 0.5}
    >>> ax = metric_at_k(qrels, {"m": run}, metrics="recall", ks=[1, 2, 3])
    >>> ax.lines[0].get_label()
    'm: recall (1 user skipped)'
    """
    check_ax(ax, _FUNC)
    return MetricAtKDisplay.from_runs(qrels, runs, metrics=metrics, ks=ks, ax=ax,
                                      **conventions).ax_  # fmt: skip


@dataclass(kw_only=True, eq=False, repr=False)
class MetricAtKDisplay(Display):
    """Mean ranking metrics against the cut-off k: the numbers of
    :func:`receval.plot.metric_at_k`, kept on the object, and their drawing.

    Parameters
    ----------
    ks : list of int
        The cut-offs, increasing.
    means : dict of (str or None, str) to list of float
        Per (model name, metric name), the mean at each cut-off of ``ks``.
    n_users_skipped : dict of (str or None, str) to list of int, default={}
        Per (model name, metric name), the users left out of the mean at each
        cut-off of ``ks`` (:attr:`receval.EvaluationReport.n_users_skipped`);
        named in the line's label where not 0. A pair not in it left none out.

    Attributes
    ----------
    ax_, figure_ : matplotlib Axes and Figure
        Where the last :meth:`plot` drew.
    lines_ : list of matplotlib Line2D
        One line per (model, metric), in the order of ``means``.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from receval.plot import MetricAtKDisplay
    >>> qrels = {"u1": {"a": 1, "b": 1}, "u2": {"c": 1}}
    >>> run = {"u1": {"a": 0.9, "c": 0.5, "b": 0.1}, "u2": {"c": 0.7, "a": 0.2}}
    >>> d = MetricAtKDisplay.from_runs(qrels, {"m": run}, metrics="recall", ks=[1, 3])
    >>> d.means, d.n_users_skipped
    ({('m', 'recall'): [0.75, 1.0]}, {('m', 'recall'): [0, 0]})
    >>> [line.get_linestyle() for line in d.lines_]
    ['-']
    """

    ks: list[int]
    means: dict[tuple[str | None, str], list[float]]
    n_users_skipped: dict[tuple[str | None, str], list[int]] = field(default_factory=dict)

    @classmethod
    def from_runs(
        cls,
        qrels: Any,
        runs: Any,
        *,
        metrics: str | Iterable[str] = ("ndcg", "recall"),
        ks: Iterable[int] = range(1, 101),
        ax: Any = None,
        **conventions: Any,
    ) -> MetricAtKDisplay:
        """Evaluate every ``"<metric>@<k>"`` of each run (one :func:`receval.evaluate`
        call per run) and draw the means against k; the parameters are
        :func:`receval.plot.metric_at_k`'s.

        Returns
        -------
        display : MetricAtKDisplay
            The means, the users each mean left out, and the drawing.
        """
        from ..data._ranked import Run, as_qrels
        from ..ranking.evaluation import evaluate_as

        check_ax(ax, "MetricAtKDisplay.from_runs")
        names = _check_metrics(metrics)
        cutoffs = _check_ks(ks)
        _check_conventions(conventions)
        models = as_models(runs, "runs", _FUNC, is_run_dict)
        q = as_qrels(qrels, _FUNC)
        means: dict[tuple[str | None, str], list[float]] = {}
        skipped: dict[tuple[str | None, str], list[int]] = {}
        for model, run in models:
            if model is None and isinstance(run, Run) and run.name:
                model = str(run.name)
            strings = {(m, k): f"{m}@{k}" for m in names for k in cutoffs}
            report = evaluate_as(_FUNC, q, run, list(strings.values()), **conventions)
            for m in names:
                means[model, m] = [float(report.mean[strings[m, k]]) for k in cutoffs]
                skipped[model, m] = [int(report.n_users_skipped[strings[m, k]]) for k in cutoffs]
        return cls(ks=cutoffs, means=means, n_users_skipped=skipped).plot(ax=ax)

    def plot(self, ax: Any = None) -> MetricAtKDisplay:
        """Draw one line per (model, metric) on ``ax`` (a new figure when None): one
        colour per model, one line style per metric.

        Returns
        -------
        display : MetricAtKDisplay
            Itself, with ``ax_``, ``figure_`` and ``lines_`` set.
        """
        ax = self.start(ax)
        marker = "o" if len(self.ks) <= _MAX_MARKED else None
        models = list(dict.fromkeys(model for model, _ in self.means))
        metrics = list(dict.fromkeys(m for _, m in self.means))
        colours = [f"C{i % 10}" for i in range(len(models))]
        styles = ["-", "--", ":", "-."]
        for (model, m), values in self.means.items():
            colour = colours[models.index(model)] if len(models) > 1 else None
            style = styles[metrics.index(m) % len(styles)]
            text = (m if model is None else f"{model}: {m}") + _skipped_note(
                self.n_users_skipped.get((model, m), [])
            )
            self.lines_.extend(ax.plot(self.ks, values, marker=marker, color=colour,
                                       linestyle=style, label=text))  # fmt: skip
        ax.set(xlabel="k", ylabel=f"{metrics[0]}@k" if len(metrics) == 1 else "mean metric@k")
        ax.legend(loc="best")
        return self


def _skipped_note(skipped: list[int]) -> str:
    """The users a line's means left out, for its label: ``" (2 users skipped)"``,
    ``" (1 to 3 users skipped)"`` where the count depends on k, ``""`` for none."""
    low, high = min(skipped, default=0), max(skipped, default=0)
    if high == 0:
        return ""
    many = v.counted(high, "user")
    return f" ({many} skipped)" if low == high else f" ({low} to {many} skipped)"

"""Self-contained HTML reports: headings, text, tables of records and matplotlib figures.

:class:`HTMLReport` collects the parts of a report in order and writes them
as ONE HTML file: a small inline style sheet, tables built from lists of
records, and figures embedded as base64 PNG ``data:`` URIs, so the file can
be mailed or attached to a ticket and opens offline. No template engine is
used (every text goes through :func:`html.escape`), and matplotlib is
imported only when a figure is added.

The sections of ``receval report`` are functions of this module that add
to an :class:`HTMLReport` from receval's results: :func:`ctr_section`
(pointwise metrics of CTR models), :func:`ranking_section` (an
:class:`~receval.EvaluationReport` per run), :func:`retention_section` (a
:class:`~receval.RetentionReport`) and :func:`comparison_section` (a
:class:`~receval.ComparisonReport`).
"""

from __future__ import annotations

import base64
import datetime as _dt
import html
import io
import math
import os
import sys
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext, suppress
from typing import TYPE_CHECKING, Any

import numpy as np

from . import __version__
from ._figures import new_axes
from ._report_beyond import beyond_records, beyond_section
from ._tables import flatten_counts
from ._validation import check_number
from .exceptions import InvalidParameterError

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from . import ComparisonReport, EvaluationReport, Qrels, RetentionReport, Run

__all__ = [
    "REPORT_AT_K_METRICS",
    "REPORT_COHORTS",
    "HTMLReport",
    "beyond_records",
    "beyond_section",
    "comparison_section",
    "ctr_section",
    "figure_to_data_uri",
    "new_axes",
    "ranking_records",
    "ranking_section",
    "retention_section",
]

#: Metrics of the metric@k figure of :func:`ranking_section`, for k = 1..100.
REPORT_AT_K_METRICS = ("ndcg", "recall")

#: Cohorts shown in the table of :func:`retention_section` (the first ones).
REPORT_COHORTS = 15

#: ``progress(text)``: a context manager around each slow step of a section
#: (e.g. a spinner saying ``text``); the sections run without one by default.
Progress = Callable[[str], AbstractContextManager[Any]]


_CSS = """\
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1f2328;
       max-width: 1200px; margin: 2em auto; padding: 0 1em; line-height: 1.45; }
h1 { font-size: 1.7em; border-bottom: 1px solid #d0d7de; padding-bottom: .3em; }
h2 { font-size: 1.35em; margin-top: 1.8em; border-bottom: 1px solid #d0d7de; padding-bottom: .2em; }
h3 { font-size: 1.1em; margin-top: 1.4em; }
p.text { margin: .5em 0; }
table { border-collapse: collapse; margin: .8em 0; font-size: .92em; }
caption { caption-side: top; text-align: left; font-weight: 600; padding-bottom: .3em; }
th, td { border: 1px solid #d0d7de; padding: .25em .7em; }
th { background: #f6f8fa; text-align: left; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tr:nth-child(even) td { background: #fbfcfd; }
p.more { color: #656d76; font-size: .88em; margin-top: -.4em; }
div.figures { display: flex; flex-wrap: wrap; gap: 1em; align-items: flex-start; }
figure { margin: .5em 0; }
figure img { max-width: 100%; height: auto; border: 1px solid #eaeef2; }
figcaption { color: #656d76; font-size: .88em; text-align: center; }
footer { margin-top: 3em; color: #8c959f; font-size: .8em; }
"""


def _as_figure(figure: Any, func: str) -> Any:
    """The Figure of a Figure or an Axes."""
    if hasattr(figure, "savefig"):
        return figure
    fig = getattr(figure, "figure", None)
    if fig is not None and hasattr(fig, "savefig"):
        return fig  # an Axes
    raise InvalidParameterError(
        f"The 'figure' parameter of {func} must be a matplotlib Figure or Axes. "
        f"Got {type(figure).__name__} instead."
    )


def figure_to_data_uri(figure: Any, *, dpi: int = 100) -> str:
    """Render a matplotlib figure as a base64 PNG ``data:`` URI.

    Parameters
    ----------
    figure : matplotlib Figure or Axes
        What to render; for an Axes, its whole figure.
    dpi : int, default=100
        Resolution of the PNG.

    Returns
    -------
    uri : str
        ``"data:image/png;base64,..."``, usable as the ``src`` of an ``<img>``.

    Raises
    ------
    InvalidParameterError
        ``figure`` is neither a Figure nor an Axes.

    Examples
    --------
    >>> from receval.report import figure_to_data_uri, new_axes
    >>> ax = new_axes()
    >>> _ = ax.plot([0, 1], [1, 0])
    >>> figure_to_data_uri(ax)[:30]
    'data:image/png;base64,iVBORw0K'
    """
    fig = _as_figure(figure, "figure_to_data_uri")
    check_number(dpi, "dpi", "figure_to_data_uri", integer=True, low=1)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _plain(value: Any) -> Any:
    """NumPy scalars and dates as plain Python values."""
    if isinstance(value, np.datetime64):
        return str(np.datetime_as_string(value, unit="D"))
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (_dt.date, _dt.datetime)):
        return value.isoformat()
    return value


def _is_number(value: Any) -> bool:
    return value is None or (isinstance(value, (int, float)) and not isinstance(value, bool))


def _cell(value: Any, digits: int) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return "nan" if math.isnan(value) else f"{value:.{digits}f}"
    return str(value)


class HTMLReport:
    """A self-contained HTML report built part by part.

    Parts (headings, paragraphs, tables, figures) are kept in the order they
    are added; consecutive figures are laid out side by side, wrapping to the
    page width. :meth:`to_html` returns the whole document and :meth:`write`
    saves it. The output depends only on what was added (no time stamp), and
    references no external resource.

    Parameters
    ----------
    title : str
        The ``<title>`` and the top ``<h1>`` heading.
    description : str, default=None
        A paragraph under the title.
    digits : int, default=4
        Decimals of floats in tables.

    See Also
    --------
    figure_to_data_uri : How figures are embedded.
    receval.plot : Figures of receval's metrics to add.

    Examples
    --------
    >>> from receval.report import HTMLReport
    >>> doc = HTMLReport("Weekly evaluation", description="Models of 2024-W05.")
    >>> doc.add_heading("CTR models")
    >>> doc.add_table([{"model": "a", "auc": 0.81234}, {"model": "b", "auc": 0.7}])
    >>> page = doc.to_html()
    >>> page.startswith("<!DOCTYPE html>"), "<h2>CTR models</h2>" in page
    (True, True)
    >>> '<td class="num">0.8123</td>' in page
    True
    """

    def __init__(self, title: str, *, description: str | None = None, digits: int = 4) -> None:
        self.title = str(title)
        self.digits = check_number(digits, "digits", "HTMLReport", integer=True, low=0, high=17)
        self._parts: list[tuple[str, str]] = []  # (kind, html)
        if description:
            self.add_text(description)

    @property
    def n_figures(self) -> int:
        """Number of figures added so far."""
        return sum(kind == "figure" for kind, _ in self._parts)

    def add_heading(self, text: str, *, level: int = 2) -> None:
        """Add a section heading.

        Parameters
        ----------
        text : str
            The heading, escaped.
        level : int, default=2
            2 for a section, 3 for a subsection (1 is the title's).
        """
        level = check_number(level, "level", "HTMLReport.add_heading", integer=True, low=2, high=6)
        self._parts.append(("heading", f"<h{level}>{html.escape(str(text))}</h{level}>"))

    def add_text(self, text: str) -> None:
        """Add a paragraph of plain text (escaped; no markup).

        Parameters
        ----------
        text : str
            The paragraph.
        """
        self._parts.append(("text", f'<p class="text">{html.escape(str(text))}</p>'))

    def add_table(
        self,
        records: Iterable[Mapping[str, Any]],
        *,
        caption: str | None = None,
        max_rows: int | None = None,
    ) -> None:
        """Add a table with one row per record and one column per key.

        Columns are the keys in the order they first appear. Floats are
        rounded to ``digits`` decimals (``nan`` when undefined), a missing
        key or None is an empty cell, and columns of numbers are right-aligned.

        Parameters
        ----------
        records : iterable of mapping
            The rows, e.g. ``[{"model": "a", "auc": 0.81}, ...]`` (the JSON
            output of the ``receval`` command has this shape).
        caption : str, default=None
            A caption above the table.
        max_rows : int, default=None
            Show only the first ``max_rows`` rows, followed by a line saying
            how many were left out; all rows when None.
        """
        rows = [{str(k): _plain(v) for k, v in record.items()} for record in records]
        columns = list(dict.fromkeys(k for row in rows for k in row))
        total = len(rows)
        if max_rows is not None:
            check_number(max_rows, "max_rows", "HTMLReport.add_table", integer=True, low=1)
            rows = rows[:max_rows]
        numeric = {c: all(_is_number(row.get(c)) for row in rows) for c in columns}
        out = ["<table>"]
        if caption:
            out.append(f"<caption>{html.escape(str(caption))}</caption>")
        out.append(
            "<thead><tr>"
            + "".join(
                f'<th class="num">{html.escape(c)}</th>'
                if numeric[c]
                else f"<th>{html.escape(c)}</th>"
                for c in columns
            )
            + "</tr></thead>"
        )
        out.append("<tbody>")
        for row in rows:
            cells = []
            for c in columns:
                text = html.escape(_cell(row.get(c), self.digits))
                cells.append(f'<td class="num">{text}</td>' if numeric[c] else f"<td>{text}</td>")
            out.append("<tr>" + "".join(cells) + "</tr>")
        out.append("</tbody></table>")
        if len(rows) < total:
            out.append(f'<p class="more">First {len(rows)} of {total} rows.</p>')
        self._parts.append(("table", "\n".join(out)))

    def add_results(
        self,
        records: Iterable[Mapping[str, Any]],
        *,
        caption: str | None = None,
        max_rows: int | None = None,
    ) -> None:
        """Add a table of results, then a line per record naming what its rules left out.

        Records have the shape of the JSON output of the ``receval``
        command: a record's ``"counts"`` (users or groups a metric skipped,
        rows in them) is not a column; it becomes the line
        ``"<first value>: key = value, ...."`` under the table, nested keys
        spelled ``metric:key``.

        Parameters
        ----------
        records : iterable of mapping
            The rows, e.g. ``[{"score": "a", "gauc": 0.7, "counts": {...}}]``.
        caption : str, default=None
            A caption above the table.
        max_rows : int, default=None
            Show only the first ``max_rows`` rows (every count line is kept).

        Examples
        --------
        >>> from receval.report import HTMLReport
        >>> doc = HTMLReport("Runs")
        >>> doc.add_results([{"run": "bm25", "mrr": 0.5, "counts": {"n_users": 2}}])
        >>> '<p class="text">bm25: n_users = 2.</p>' in doc.to_html()
        True
        """
        rows = [dict(record) for record in records]
        counts = [row.pop("counts", None) for row in rows]
        self.add_table(rows, caption=caption, max_rows=max_rows)
        for row, row_counts in zip(rows, counts, strict=True):
            if row_counts is not None:
                parts = [f"{k} = {v}" for k, v in flatten_counts(row_counts).items()]
                self.add_text(f"{next(iter(row.values()))}: " + ", ".join(parts) + ".")

    def add_figure(
        self, figure: Any, *, caption: str | None = None, dpi: int = 100, close: bool = True
    ) -> None:
        """Add a matplotlib figure, embedded as a base64 PNG.

        The figure is rendered now: drawing on it later changes nothing.

        Parameters
        ----------
        figure : matplotlib Figure or Axes
            What to add; for an Axes, its whole figure.
        caption : str, default=None
            A caption under the figure (also its ``alt`` text).
        dpi : int, default=100
            Resolution of the PNG.
        close : bool, default=True
            Close the figure in pyplot after rendering it (when pyplot tracks
            it), so that reports with many figures do not keep them all open.

        Raises
        ------
        InvalidParameterError
            ``figure`` is neither a Figure nor an Axes.
        """
        fig = _as_figure(figure, "HTMLReport.add_figure")
        uri = figure_to_data_uri(fig, dpi=dpi)
        if close and "matplotlib.pyplot" in sys.modules:
            sys.modules["matplotlib.pyplot"].close(fig)
        alt = html.escape(str(caption)) if caption else "figure"
        part = f'<figure><img src="{uri}" alt="{alt}">'
        if caption:
            part += f"<figcaption>{html.escape(str(caption))}</figcaption>"
        self._parts.append(("figure", part + "</figure>"))

    def to_html(self) -> str:
        """Return the report as one HTML document.

        Returns
        -------
        page : str
            A complete HTML5 document with inline CSS and images; it makes
            no request when opened.
        """
        title = html.escape(self.title)
        body: list[str] = [f"<h1>{title}</h1>"]
        in_figures = False
        for kind, part in self._parts:
            if kind == "figure" and not in_figures:
                body.append('<div class="figures">')
                in_figures = True
            elif kind != "figure" and in_figures:
                body.append("</div>")
                in_figures = False
            body.append(part)
        if in_figures:
            body.append("</div>")
        body.append(f"<footer>Made with receval {html.escape(__version__)}.</footer>")
        return (
            "<!DOCTYPE html>\n"
            '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{title}</title>\n<style>\n{_CSS}</style>\n</head>\n<body>\n"
            + "\n".join(body)
            + "\n</body>\n</html>\n"
        )

    def write(self, path: str | os.PathLike[str]) -> str:
        """Write the report to an HTML file (UTF-8), replacing any file there.

        Parameters
        ----------
        path : str or path-like
            Where to write, e.g. ``"report.html"``.

        Returns
        -------
        path : str
            The path written, as given.
        """
        target = os.fspath(path)
        text = self.to_html()
        # a temporary file beside the target, renamed over it once complete: a full
        # disk or an interruption never leaves a truncated report behind
        folder = os.path.dirname(os.path.abspath(target))
        fd, temporary = tempfile.mkstemp(prefix=".receval-", suffix=".html.tmp", dir=folder)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(temporary, 0o666 & ~umask)  # as open() would have made it
            os.replace(temporary, target)
        except OSError as exc:
            with suppress(OSError):
                os.remove(temporary)
            reason = exc.strerror or str(exc)
            raise OSError(exc.errno, f"cannot write the report: {reason}", target) from exc
        return target


# ------------------------------------------------------------------ sections
def _step(progress: Progress | None, text: str) -> AbstractContextManager[Any]:
    return nullcontext() if progress is None else progress(text)


def comparison_section(doc: HTMLReport, comparison: ComparisonReport, *, digits: int = 4) -> None:
    """Add every comparison of a :class:`~receval.ComparisonReport` as a table.

    A paragraph says how the models were tested (the interval, the test,
    the correction), then one row per comparison: metric, model, versus,
    difference, effect size, interval, p-value and adjusted p-value (``*``
    where significant).

    Parameters
    ----------
    doc : HTMLReport
        The report to add to.
    comparison : ComparisonReport
        The result of :func:`receval.compare` or :func:`receval.compare_predictions`.
    digits : int, default=4
        Decimals of the differences and intervals.

    See Also
    --------
    ranking_section, ctr_section : Call it when they compare several models.
    """
    header, rows = comparison.detail_rows(digits)
    doc.add_text(
        "Paired comparisons over users: difference of the means, effect size (Cohen's d_z), "
        f"{comparison.confidence:.0%} bootstrap interval ({comparison.interval}), p-value and "
        f"adjusted p-value (* where significant). {comparison.legend()}"
    )
    doc.add_table([dict(zip(header, row, strict=True)) for row in rows])


def ranking_records(
    reports: Mapping[str, EvaluationReport], metrics: Sequence[str] | None = None
) -> list[dict[str, Any]]:
    """One record per run: its name, the mean of each metric and what the rules left out.

    Parameters
    ----------
    reports : mapping of str to EvaluationReport
        The result of :func:`receval.evaluate` of each run, by run name.
    metrics : sequence of str, default=None
        The metrics to show, in order; by default every metric of each report.

    Returns
    -------
    records : list of dict
        ``{"run": name, metric: mean, ..., "counts": counts}``, where
        ``counts`` holds ``n_users``, ``n_users_missing``,
        ``n_run_only_users`` and, per metric, ``n_users_skipped`` and
        ``n_users_empty`` (as the JSON output of ``receval rank``).

    Examples
    --------
    >>> from receval import evaluate
    >>> from receval.report import ranking_records
    >>> qrels = {"u1": {"a": 1}, "u2": {"b": 1}}
    >>> report = evaluate(qrels, {"u1": {"a": 0.9, "b": 0.1}, "u2": {"a": 0.5}}, ["mrr"])
    >>> record = ranking_records({"bm25": report})[0]
    >>> record["run"], record["mrr"], record["counts"]["n_users_missing"]
    ('bm25', 0.5, 0)
    """
    records = []
    for name, report in reports.items():
        names = list(report.mean) if metrics is None else list(metrics)
        record: dict[str, Any] = {"run": name, **{m: report.mean[m] for m in names}}
        record["counts"] = {
            "n_users": int(report.n_users),
            "n_users_missing": int(report.n_users_missing),
            "n_run_only_users": int(report.n_run_only_users),
            "n_users_skipped": {m: int(report.n_users_skipped[m]) for m in names},
            "n_users_empty": {m: int(report.n_users_empty[m]) for m in names},
        }
        records.append(record)
    return records


def ranking_section(
    doc: HTMLReport,
    reports: Mapping[str, EvaluationReport],
    *,
    metrics: Sequence[str] | None = None,
    caption: str | None = None,
    qrels: Qrels | None = None,
    runs: Mapping[str, Run] | None = None,
    profile: str | None = None,
    at_k_metrics: Sequence[str] = REPORT_AT_K_METRICS,
    figures: bool = True,
    progress: Progress | None = None,
) -> None:
    """Add the ranking section: the runs' mean metrics, their comparison and metric@k.

    The section has a heading, the table of :func:`ranking_records` (one
    row per run, with what the rules left out under it), with several runs
    the paired comparisons of :func:`receval.compare` on the reports'
    per-user values (:func:`comparison_section`), and a figure of each
    ``at_k_metrics``'s mean at k = 1..100 (:func:`receval.plot.metric_at_k`).

    Parameters
    ----------
    doc : HTMLReport
        The report to add to.
    reports : mapping of str to EvaluationReport
        The result of :func:`receval.evaluate` of each run, by run name.
    metrics : sequence of str, default=None
        The columns of the table and the compared metrics; by default every
        metric of the reports.
    caption : str, default=None
        Caption of the table, e.g. the qrels file and its number of users.
    qrels : Qrels, default=None
        The relevance judgments the runs were evaluated on; with ``runs``,
        needed for the figure (no figure without them).
    runs : mapping of str to Run, default=None
        The runs, by the names of ``reports``.
    profile : str, default=None
        The peer conventions the reports were computed with, used again
        for the figure.
    at_k_metrics : sequence of str, default=("ndcg", "recall")
        Metrics (without ``@k``) of the metric@k figure.
    figures : bool, default=True
        Whether to draw the figure (it needs matplotlib).
    progress : callable, default=None
        ``progress(text)`` returns a context manager around each slow step
        (testing, drawing), e.g. a spinner; none by default.

    See Also
    --------
    ctr_section, retention_section : The other sections of ``receval report``.

    Examples
    --------
    >>> from receval import evaluate
    >>> from receval.report import HTMLReport, ranking_section
    >>> qrels = {"u1": {"a": 1}, "u2": {"b": 1}}
    >>> report = evaluate(qrels, {"u1": {"a": 0.9, "b": 0.1}, "u2": {"a": 0.5}}, ["mrr"])
    >>> doc = HTMLReport("Runs")
    >>> ranking_section(doc, {"bm25": report}, figures=False)
    >>> '<td class="num">0.5000</td>' in doc.to_html()
    True
    """
    doc.add_heading("Ranking")
    doc.add_text(
        "Mean of each top-K metric over the users of the qrels (receval.evaluate), one row per run."
    )
    records = ranking_records(reports, metrics)
    doc.add_results(records, caption=caption)
    if len(reports) > 1:
        from .comparison import compare

        with _step(progress, "Testing differences"):
            compared = [k for k in records[0] if k not in ("run", "counts")]
            comparison_section(doc, compare(None, dict(reports), compared))
    if figures and qrels is not None and runs is not None:
        from .plot import metric_at_k

        with _step(progress, "Drawing metric@k"):
            ax = new_axes(figsize=(7.0, 4.5))
            metric_at_k(qrels, runs, metrics=at_k_metrics, ks=range(1, 101), ax=ax, profile=profile)
            listed = " and ".join(f"{m}@k" for m in at_k_metrics)
            doc.add_figure(ax, caption=f"Mean {listed} for k = 1..100")


def ctr_section(
    doc: HTMLReport,
    records: Sequence[Mapping[str, Any]],
    y_true: ArrayLike,
    y_scores: Mapping[str, ArrayLike],
    *,
    caption: str | None = None,
    groups: ArrayLike | None = None,
    sample_weight: ArrayLike | None = None,
    figures: bool = True,
    progress: Progress | None = None,
) -> None:
    """Add the CTR section: the models' metrics, their comparison and three figures.

    The section has a heading, the table of ``records`` (one row per model,
    with what the rules left out under it), with ``groups`` and several
    models the paired comparisons of :func:`receval.compare_predictions`
    (per-group gauc and log loss, :func:`comparison_section`), and the ROC,
    precision-recall and calibration figures of the models
    (:mod:`receval.plot`).

    Parameters
    ----------
    doc : HTMLReport
        The report to add to.
    records : sequence of mapping
        The metrics of each model, one record per model, e.g.
        ``[{"score": "model_a", "auc": 0.71, "counts": {...}}, ...]`` (the
        JSON output of ``receval ctr``; ``"counts"`` is optional).
    y_true : array-like of shape (n_samples,)
        Binary labels (1 = click).
    y_scores : mapping of str to array-like of shape (n_samples,)
        Predicted probabilities of each model, by name.
    caption : str, default=None
        Caption of the table, e.g. the impression log and its size.
    groups : array-like of shape (n_samples,), default=None
        Group (user) of each sample: the unit of pairing of the comparison;
        without it the models are not compared.
    sample_weight : array-like of shape (n_samples,), default=None
        Per-sample weights of the comparison and the figures.
    figures : bool, default=True
        Whether to draw the figures (they need matplotlib).
    progress : callable, default=None
        ``progress(text)`` returns a context manager around each slow step
        (testing, drawing), e.g. a spinner; none by default.

    See Also
    --------
    ranking_section, retention_section : The other sections of ``receval report``.

    Examples
    --------
    >>> from receval import roc_auc_score
    >>> from receval.report import HTMLReport, ctr_section
    >>> y, p = [1, 0, 1, 0], [0.9, 0.2, 0.4, 0.6]
    >>> doc = HTMLReport("CTR")
    >>> ctr_section(doc, [{"score": "p", "auc": roc_auc_score(y, p)}], y, {"p": p}, figures=False)
    >>> '<td class="num">0.7500</td>' in doc.to_html()
    True
    """
    doc.add_heading("CTR models")
    doc.add_text(
        "Pointwise metrics of each model's predicted click-through rate, one row per model."
    )
    doc.add_results(records, caption=caption)
    models = dict(y_scores)
    if groups is not None and len(models) > 1:
        from .comparison import compare_predictions

        with _step(progress, "Testing differences"):
            comparison = compare_predictions(
                y_true, models, groups=groups, sample_weight=sample_weight
            )
        comparison_section(doc, comparison)
    if figures:
        from .plot import calibration, precision_recall, roc

        drawings = [
            (roc, {}, "ROC curves"),
            (precision_recall, {}, "Precision-recall curves (dot: break-even point)"),
            (
                calibration,
                {"n_bins": 20, "strategy": "quantile"},
                "Calibration: observed CTR against mean prediction (20 quantile bins)",
            ),
        ]
        for draw, options, text in drawings:
            with _step(progress, f"Drawing {text}"):
                ax = new_axes(figsize=(5.0, 4.5))
                draw(y_true, models, ax=ax, sample_weight=sample_weight, **options)
                doc.add_figure(ax, caption=text)


def retention_section(
    doc: HTMLReport,
    report: RetentionReport,
    *,
    caption: str | None = None,
    max_rows: int | None = REPORT_COHORTS,
    figures: bool = True,
    progress: Progress | None = None,
) -> None:
    """Add the retention section: day-N retention of the cohorts, a heatmap and a curve.

    The section has a heading, the table of the first cohorts (cohort,
    new_users and one ``<period>_<N>`` column per N, as
    :meth:`~receval.RetentionReport.cohort_frame`), the cohort x offset
    heatmap (:func:`receval.plot.retention_heatmap`) and the mean retention
    curve (:func:`receval.plot.retention_curve`).

    Parameters
    ----------
    doc : HTMLReport
        The report to add to.
    report : RetentionReport
        The result of :func:`receval.retention`.
    caption : str, default=None
        Caption of the table, e.g. the event file and its size.
    max_rows : int, default=15
        Cohorts shown in the table (the first ones); all when None.
    figures : bool, default=True
        Whether to draw the figures (they need matplotlib).
    progress : callable, default=None
        ``progress(text)`` returns a context manager around the drawing,
        e.g. a spinner; none by default.

    See Also
    --------
    ctr_section, ranking_section : The other sections of ``receval report``.

    Examples
    --------
    >>> from receval import retention
    >>> from receval.report import HTMLReport, retention_section
    >>> events = {"user": ["a", "a", "b"], "time": ["2024-01-01", "2024-01-02", "2024-01-01"]}
    >>> doc = HTMLReport("Retention")
    >>> retention_section(doc, retention(events, days=[1]), figures=False)
    >>> '<th class="num">day_1</th>' in doc.to_html()
    True
    """
    doc.add_heading("Retention")
    doc.add_text(
        f"Day-N retention of each {report.period} cohort: the share of its new users active "
        f"N {report.period}s later (receval.retention); nan where not observed yet."
    )
    columns: dict[str, Any] = {"cohort": report.periods, "new_users": report.new_users}
    for j, n in enumerate(report.days):
        columns[f"{report.period}_{n}"] = report.day_n_retention[:, j]
    records = [
        {name: values[i] for name, values in columns.items()} for i in range(report.n_periods)
    ]
    doc.add_table(records, caption=caption, max_rows=max_rows)
    if figures:
        from .plot import retention_curve, retention_heatmap

        with _step(progress, "Drawing retention"):
            ax = new_axes(figsize=(6.5, 5.0))
            retention_heatmap(report, ax=ax)
            doc.add_figure(ax, caption=f"Retention of each cohort ({report.period}s)")
            ax = new_axes(figsize=(5.5, 4.5))
            retention_curve(report, offsets="all", ax=ax)
            doc.add_figure(ax, caption="Mean retention over cohorts against N")

"""The sections of ``receval report``: functions that add receval's results to an
:class:`HTMLReport` (:mod:`receval.report.html`, the document and its figures).

:func:`ctr_section` adds the pointwise metrics of CTR models,
:func:`ranking_section` an :class:`~receval.EvaluationReport` per run,
:func:`retention_section` a :class:`~receval.RetentionReport`,
:func:`comparison_section` a :class:`~receval.ComparisonReport` and
:func:`lists_section` a :class:`~receval.ListDifferenceReport`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .beyond import Progress, beyond_records, beyond_section, step
from .figures import new_axes
from .html import HTMLReport, figure_to_data_uri, json_path
from .protocol import protocol_section
from .records import ranking_records

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from ..comparison import ComparisonReport
    from ..comparison.lists import ListDifferenceReport
    from ..data._ranked import Qrels, Run
    from ..metrics.retention import RetentionReport
    from ..ranking.report import EvaluationReport

__all__ = [
    "REPORT_AT_K_METRICS",
    "REPORT_COHORTS",
    "STATIC_NOTE",
    "HTMLReport",
    "beyond_records",
    "beyond_section",
    "comparison_section",
    "ctr_section",
    "figure_to_data_uri",
    "json_path",
    "lists_section",
    "new_axes",
    "protocol_section",
    "ranking_records",
    "ranking_section",
    "retention_section",
]

#: Metrics of the metric@k figure of :func:`ranking_section`, for k = 1..100.
REPORT_AT_K_METRICS = ("ndcg", "recall")

#: Cohorts shown in the table of :func:`retention_section` (the first ones).
REPORT_COHORTS = 15


def comparison_section(
    doc: HTMLReport, comparison: ComparisonReport, *, digits: int | None = None
) -> None:
    """Add every comparison of a :class:`~receval.ComparisonReport` as a table.

    A paragraph says how the models were tested (the interval, the test,
    the correction), then one row per comparison: metric, model, versus,
    difference, effect size, interval, p-value and adjusted p-value (``*``
    where significant; below 1e-4 written ``< 1e-4``) and the users where the
    model wins, ties and loses. The report's JSON
    holds the numbers of :meth:`~receval.ComparisonReport.records`.

    Parameters
    ----------
    doc : HTMLReport
        The report to add to.
    comparison : ComparisonReport
        The result of :func:`receval.compare` or :func:`receval.compare_predictions`.
    digits : int, default=None
        Decimals of the differences and intervals; the report's ``digits`` when None.

    See Also
    --------
    ranking_section, ctr_section : Call it when they compare several models.
    """
    header, rows = comparison.detail_rows(doc.digits if digits is None else digits)
    doc.add_text(
        "Paired comparisons over users: difference of the means, effect size (Cohen's d_z), "
        f"{comparison.confidence:.0%} bootstrap interval ({comparison.interval}), p-value and "
        f"adjusted p-value (* where significant), and the users where the model's value is "
        f"better, equal or worse (win/tie/loss). {comparison.legend()}"
    )
    doc.add_table(
        [dict(zip(header, row, strict=True)) for row in rows], numbers=comparison.records()
    )


def lists_section(doc: HTMLReport, lists: ListDifferenceReport) -> None:
    """Add how much two runs' lists differ (:func:`receval.list_differences`) as a table.

    A paragraph says what the measures are and which users were left out,
    then one row per measure: its mean over the users where it is defined,
    and how many users that is.

    Parameters
    ----------
    doc : HTMLReport
        The report to add to.
    lists : ListDifferenceReport
        The result of :func:`receval.list_differences`.

    See Also
    --------
    ranking_section : Calls it when it compares two runs.
    """
    doc.add_text(
        "How much the two runs' lists differ, user by user (receval.list_differences): "
        "rank-biased overlap (rbo, extrapolated; rbo_min its lower bound and rbo_residual "
        "what the items beyond the lists could add), shared items over the longer list "
        "(overlap), over the items of either list (jaccard), and Kendall's tau-b of the "
        f"shared items' scores. {lists.summary()}"
    )
    doc.add_table(
        [{"measure": m, "mean": lists.mean[m], "users": lists.n_defined[m]} for m in lists.values]
    )


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
    per-user values (:func:`comparison_section`), with two runs (and
    ``runs``) how much their lists differ (:func:`lists_section`), and a figure of each
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
        Whether to draw the figure (Plotly's when ``doc.interactive``, else
        matplotlib's).
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
        from ..comparison.models import compare

        with step(progress, "Testing differences"):
            compared = [k for k in records[0] if k not in ("run", "counts")]
            comparison_section(doc, compare(None, dict(reports), compared))
    if len(reports) == 2 and runs is not None:
        from ..comparison.lists import list_differences

        with step(progress, "Comparing the lists"):
            lists_section(doc, list_differences(*(runs[name] for name in reports)))
    if figures and qrels is not None and runs is not None:
        listed = " and ".join(f"{m}@k" for m in at_k_metrics)
        caption = f"Mean {listed} for k = 1..100"
        with step(progress, "Drawing metric@k"):
            if doc.interactive:
                from .interactive import metric_at_k_figure

                figure = metric_at_k_figure(
                    qrels, runs, metrics=list(at_k_metrics), ks=range(1, 101), profile=profile
                )
                doc.add_plotly(figure, caption=caption + " (one colour per run, a dash per metric)")
            else:
                from ..plot import metric_at_k

                _static_note(doc)
                ax = new_axes(figsize=(7.0, 4.5))
                metric_at_k(
                    qrels, runs, metrics=at_k_metrics, ks=range(1, 101), ax=ax, profile=profile
                )
                doc.add_figure(ax, caption=caption)


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
        Whether to draw the figures (Plotly's when ``doc.interactive``,
        else matplotlib's).
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
        from ..comparison.models import compare_predictions

        with step(progress, "Testing differences"):
            comparison = compare_predictions(
                y_true, models, groups=groups, sample_weight=sample_weight
            )
        comparison_section(doc, comparison)
    if figures:
        from .. import plot
        from . import interactive

        _static_note(doc)
        # (figure, its options, the caption of the static and of the interactive one)
        drawings = [
            ("roc", {}, "ROC curves", "ROC curves (click a legend entry to hide a model)"),
            ("precision_recall", {}, "Precision-recall curves (dot: break-even point)",
             "Precision-recall curves (dot: break-even point; dotted: the share of positives)"),
            ("calibration", {"n_bins": 20, "strategy": "quantile"},
             "Calibration: observed CTR against mean prediction (20 quantile bins)",
             "Calibration on the predictions' range (20 quantile bins), the predictions' "
             "histogram beneath"),
        ]  # fmt: skip
        for name, options, static, live in drawings:
            with step(progress, f"Drawing {static.split(' (')[0]}"):
                if doc.interactive:
                    build = getattr(interactive, f"{name}_figure")
                    figure = build(y_true, models, sample_weight=sample_weight, **options)
                    doc.add_plotly(figure, caption=live)
                else:
                    ax = new_axes(figsize=(5.0, 4.5))
                    draw = getattr(plot, name)
                    draw(y_true, models, ax=ax, sample_weight=sample_weight, **options)
                    doc.add_figure(ax, caption=static)


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
        Whether to draw the figures (Plotly's when ``doc.interactive``,
        else matplotlib's).
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
    for note in (report.before_signup_note, report.signup_note):
        if note:
            doc.add_text(note, note=True)
    if figures:
        _static_note(doc)
        heatmap = f"Retention of each cohort ({report.period}s)"
        curve = "Mean retention over cohorts against N"
        with step(progress, "Drawing retention"):
            if doc.interactive:
                from .interactive import retention_curve_figure, retention_heatmap_figure

                scale = f"; the colour scale spans 0 to the highest rate after {report.period} 0"
                doc.add_plotly(retention_heatmap_figure(report), wide=True, caption=heatmap + scale)
                doc.add_plotly(retention_curve_figure(report), caption=curve)
            else:
                from ..plot import retention_curve, retention_heatmap

                ax = new_axes(figsize=(6.5, 5.0))
                retention_heatmap(report, ax=ax)
                doc.add_figure(ax, caption=heatmap)
                ax = new_axes(figsize=(5.5, 4.5))
                retention_curve(report, offsets="all", ax=ax)
                doc.add_figure(ax, caption=curve)


#: The note above static figures, once per report.
STATIC_NOTE = (
    "plotly is not installed, so the figures are static images; "
    "pip install 'receval[plot]' for interactive ones."
)


def _static_note(doc: HTMLReport) -> None:
    """Say once in the report why its figures are static PNGs."""
    if not doc.interactive and STATIC_NOTE not in doc.notes:
        doc.add_text(STATIC_NOTE, note=True)

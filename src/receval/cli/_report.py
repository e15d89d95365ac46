"""``receval report`` and ``receval demo``: the self-contained HTML report and its sections."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from ..conventions import PROFILES
from ._common import (
    DEFAULT_CTR_METRICS,
    DEFAULT_RANK_METRICS,
    DigitsOption,
    FormatOption,
    Messages,
    QuietOption,
    RetentionTable,
    RetentionValues,
    app,
    column,
    ctr_metrics,
    ctr_rows,
    evaluate_run,
    parse_days,
    rank_table,
    ranked_format,
    retention_columns,
    retention_notes,
    run_names,
    table_format,
)
from ._output import OutputFormat, ResultTable, render_sections, rows_of


def _figures(say: Messages) -> bool:
    """Whether matplotlib is installed; a warning when it is not."""
    import importlib.util

    if importlib.util.find_spec("matplotlib") is not None:
        return True
    say.warning(
        "matplotlib is not installed, so the report has no figures; pip install 'receval[plot]'."
    )
    return False


def _cohort_table(report: Any, title: str) -> ResultTable:
    names, rows = rows_of(retention_columns(report, RetentionTable.cohort, RetentionValues.rate))
    return ResultTable(names, rows, title=title)


def _write_report(doc: Any, out: str, say: Messages) -> None:
    with say.guard(), say.progress(f"Writing {out}"):
        path = doc.write(out)
    if not say.quiet:
        typer.echo(f"report written to {path}", err=True)


@app.command("report", no_args_is_help=True)
def report_command(
    out: Annotated[
        str,
        typer.Option(
            "--out", "-o", metavar="FILE", help="The HTML file to write.", show_default=False
        ),
    ],
    title: Annotated[str, typer.Option(help="Title of the report.")] = "receval report",
    qrels: Annotated[
        str | None,
        typer.Option(
            metavar="FILE",
            help="Ranking section: relevance judgments (TREC qrels, or CSV, TSV or Parquet "
            "with --user, --item and --grade columns); needs --run.",
            show_default=False,
        ),
    ] = None,
    run: Annotated[
        list[str] | None,
        typer.Option(
            "--run",
            metavar="FILE",
            help="Ranking section: a run (TREC run, or CSV, TSV or Parquet with --user, --item "
            "and --run-score columns); repeat to compare runs.",
            show_default=False,
        ),
    ] = None,
    metric: Annotated[
        list[str] | None,
        typer.Option(
            "--metric",
            "-m",
            metavar="METRIC",
            help="A ranking metric string; repeat for more. Default: "
            f"{', '.join(DEFAULT_RANK_METRICS)}.",
            show_default=False,
        ),
    ] = None,
    profile: Annotated[
        str | None,
        typer.Option(
            help="Ranking conventions of a peer: " + ", ".join(PROFILES) + ".",
            show_default=False,
        ),
    ] = None,
    impressions: Annotated[
        str | None,
        typer.Option(
            metavar="FILE",
            help="CTR section: an impression log (CSV, TSV or Parquet); needs --label and --score.",
            show_default=False,
        ),
    ] = None,
    label: Annotated[
        str | None,
        typer.Option(metavar="COL", help="Column of 0/1 labels (1 = click).", show_default=False),
    ] = None,
    score: Annotated[
        list[str] | None,
        typer.Option(
            "--score",
            metavar="COL",
            help="Column of predicted probabilities; repeat to compare models.",
            show_default=False,
        ),
    ] = None,
    group: Annotated[
        str | None,
        typer.Option(metavar="COL", help="Column of group ids for gauc.", show_default=False),
    ] = None,
    weight: Annotated[
        str | None,
        typer.Option(metavar="COL", help="Column of sample weights.", show_default=False),
    ] = None,
    ctr_metric: Annotated[
        list[str] | None,
        typer.Option(
            "--ctr-metric",
            metavar="METRIC",
            help="A pointwise metric of the CTR section; repeat for more. Default: "
            f"{', '.join(DEFAULT_CTR_METRICS)} (gauc only with --group).",
            show_default=False,
        ),
    ] = None,
    events: Annotated[
        str | None,
        typer.Option(
            metavar="FILE",
            help="Retention section: activity events (CSV, TSV or Parquet), one row per event.",
            show_default=False,
        ),
    ] = None,
    user: Annotated[
        str,
        typer.Option(metavar="COL", help="Column of user ids in qrels, runs and events."),
    ] = "user",
    item: Annotated[
        str, typer.Option(metavar="COL", help="Column of item ids in qrels and runs.")
    ] = "item",
    grade: Annotated[str, typer.Option(metavar="COL", help="Grade column of qrels.")] = "grade",
    run_score: Annotated[str, typer.Option(metavar="COL", help="Score column of runs.")] = "score",
    time: Annotated[
        str,
        typer.Option(
            metavar="COL",
            help="Column of event times (ISO 8601 strings, dates, datetimes or epoch numbers).",
        ),
    ] = "time",
    period: Annotated[
        str, typer.Option(help="Retention period: day, week (from Monday) or month.")
    ] = "day",
    days: Annotated[
        str, typer.Option(help="Comma-separated offsets N of the day-N retention.")
    ] = "1,3,7,30",
    tz: Annotated[
        str, typer.Option(help="IANA time zone in which periods start at local midnight.")
    ] = "UTC",
    time_unit: Annotated[
        str | None,
        typer.Option(help="Unit of epoch numbers: s, ms, us or ns.", show_default=False),
    ] = None,
    digits: DigitsOption = 4,
    quiet: QuietOption = False,
) -> None:
    """Write an HTML report: metric tables and figures of CTR models, runs and retention.

    Each section is optional (at least one is required), in this order: CTR
    (--impressions, --label and --score: the metrics of receval ctr, ROC,
    precision-recall and calibration curves), ranking (--qrels and --run: the
    metrics of receval rank, mean ndcg@k and recall@k for k = 1..100) and
    retention (--events: the first cohorts of receval retention's cohort
    table, the cohort heatmap and the retention curve). The file is
    self-contained (figures are embedded PNGs). Its path is printed on
    stderr; nothing is printed on stdout.
    """
    from ..data._ranked import Qrels, Run
    from ..data.io import read_table
    from ..metrics._retention import retention
    from ..report import HTMLReport, ctr_section, ranking_section, retention_section

    say = Messages(quiet)
    if (qrels is None) != (not run):
        raise say.fail("--qrels and --run go together: pass both for the ranking section.")
    ctr_options = [
        o
        for o, v in (
            ("--label", label),
            ("--score", score),
            ("--group", group),
            ("--weight", weight),
            ("--ctr-metric", ctr_metric),
        )
        if v
    ]
    if impressions is None and ctr_options:
        raise say.fail(
            f"{', '.join(ctr_options)} given without --impressions FILE, the CTR section's data."
        )
    if impressions is not None and (label is None or not score):
        raise say.fail("--impressions needs --label COL and at least one --score COL.")
    if qrels is None and impressions is None and events is None:
        raise say.fail(
            "nothing to report; pass --qrels and --run, --impressions with --label and "
            "--score, or --events (or several)."
        )
    offsets = parse_days(days, say)
    doc = HTMLReport(title, digits=digits)
    figures = _figures(say)
    with say.guard():
        if impressions is not None and label is not None and score:
            metrics_ctr = ctr_metrics(ctr_metric, group, say)
            fmt = table_format(None, impressions, say)
            columns = list(dict.fromkeys([label, *score, *(c for c in (group, weight) if c)]))
            with say.progress(f"Reading {impressions}"):
                data = read_table(
                    impressions,
                    columns,
                    "receval report",
                    fmt,
                    id_columns=(group,) if group else (),
                )
            y_true = column(data, label)
            groups = data.column(group).combine_chunks() if group else None
            sample_weight = column(data, weight) if weight else None
            scores = [(col, column(data, col)) for col in score]
            counted = ctr_rows(y_true, scores, metrics_ctr, groups, sample_weight, say)
            table = ResultTable(
                ["score", *metrics_ctr],
                [row for row, _ in counted],
                counts=[c for _, c in counted],
            )
            ctr_section(
                doc, table.records(), y_true, dict(scores),
                caption=f"{impressions}: {data.num_rows} impressions", groups=groups,
                sample_weight=sample_weight, figures=figures, progress=say.progress,
            )  # fmt: skip
        if qrels is not None and run:
            from .._registry import parse_metric

            metrics = list(metric) if metric else list(DEFAULT_RANK_METRICS)
            for text in metrics:
                parse_metric(text)
            with say.progress(f"Reading {qrels}"):
                q = Qrels.from_file(
                    qrels,
                    user=user,
                    item=item,
                    grade=grade,
                    file_format=ranked_format(None, qrels),
                )
            runs: dict[str, Any] = {}
            reports = []
            for path, name in zip(run, run_names(run), strict=True):
                with say.progress(f"Reading {path}"):
                    runs[name] = Run.from_file(
                        path,
                        user=user,
                        item=item,
                        score=run_score,
                        file_format=ranked_format(None, path),
                        name=name,
                    )
                reports.append((name, evaluate_run(q, runs[name], name, metrics, say, profile)))
            ranking_section(
                doc, dict(reports), metrics=metrics, caption=f"{qrels}: {q.n_users} users",
                qrels=q, runs=runs, profile=profile, figures=figures, progress=say.progress,
            )  # fmt: skip
        if events is not None:
            fmt = table_format(None, events, say)
            with say.progress(f"Reading and counting {events}"):
                rep = retention(
                    events,
                    user=user,
                    time=time,
                    period=period,
                    days=offsets,
                    tz=tz,
                    time_unit=time_unit,
                    file_format=fmt,
                )
            retention_notes(rep, say)
            caption = f"{events}: {rep.n_events} events, {rep.n_users} users ({rep.tz})"
            retention_section(doc, rep, caption=caption, figures=figures, progress=say.progress)
    _write_report(doc, out, say)


@app.command("demo")
def demo(
    out: Annotated[
        str, typer.Option("--out", "-o", metavar="FILE", help="The HTML report to write.")
    ] = "receval-demo.html",
    users: Annotated[
        int,
        typer.Option(
            "--users",
            min=10,
            help="Users in each sample dataset: the impression log (about 40 impressions per "
            "user), the recommendations (100 per user and model) and the events (60 days).",
        ),
    ] = 10_000,
    output_format: FormatOption = OutputFormat.table,
    digits: DigitsOption = 4,
    quiet: QuietOption = False,
) -> None:
    """Evaluate CTR models, recommenders and retention on bundled sample data.

    Generates three deterministic synthetic datasets (receval.datasets; no
    file or network needed): an impression log with two CTR models'
    predictions (make_impressions), held-out interactions with two
    recommenders' top-100 lists (make_recommendations) and 60 days of login
    events (make_events). Prints the table of each, as receval ctr (with
    --group user), receval rank and receval retention print them (with
    --format json: one object {"ctr": [...], "rank": [...], "retention": [...]}),
    and writes all three sections, with figures, to the HTML report --out.
    """
    from ..data._ranked import Qrels, Run
    from ..datasets import make_events, make_impressions, make_recommendations
    from ..metrics._retention import retention
    from ..report import HTMLReport, ctr_section, ranking_section, retention_section

    say = Messages(quiet)
    doc = HTMLReport(
        "receval demo",
        description="Two CTR models, two recommenders and user retention, evaluated on "
        f"receval's deterministic synthetic sample data ({users} users per dataset, seed 0).",
        digits=digits,
    )
    with say.guard():
        with say.progress("Generating impressions"):
            log = make_impressions(users, seed=0)
        y_true = log["click"]
        scores = [(name, log[name]) for name in ("model_a", "model_b")]
        metrics_ctr = ctr_metrics(None, "user", say)
        counted = ctr_rows(y_true, scores, metrics_ctr, log["user"], None, say)
        title = f"make_impressions({users}): {len(y_true)} impressions, {users} users"
        ctr_table = ResultTable(
            ["score", *metrics_ctr],
            [row for row, _ in counted],
            title=title,
            counts=[c for _, c in counted],
        )

        with say.progress("Generating recommendations"):
            qrels_data, run_data = make_recommendations(users, seed=0)
            q = Qrels(qrels_data["user"], qrels_data["item"], qrels_data["grade"])
            runs = {
                name: Run(r["user"], r["item"], r["score"], name=name)
                for name, r in run_data.items()
            }
        metrics = list(DEFAULT_RANK_METRICS)
        reports = [(name, evaluate_run(q, r, name, metrics, say)) for name, r in runs.items()]
        title = (
            f"make_recommendations({users}): {q.n_rows} held-out interactions, "
            f"top-100 lists of {users} users"
        )
        ranking_table = rank_table(reports, metrics, title=title)

        with say.progress("Generating events"):
            events = make_events(users, seed=0)
            rep = retention(events)
        title = f"make_events({users}): {rep.n_events} events, {rep.n_users} users ({rep.tz})"
        retention_table = _cohort_table(rep, title)
    render_sections(
        [("ctr", ctr_table), ("rank", ranking_table), ("retention", retention_table)],
        output_format,
        digits=digits,
    )
    figures = _figures(say)
    with say.guard():
        ctr_section(
            doc, ctr_table.records(), y_true, dict(scores), caption=ctr_table.title,
            groups=log["user"], figures=figures, progress=say.progress,
        )  # fmt: skip
        ranking_section(
            doc, dict(reports), metrics=metrics, caption=ranking_table.title, qrels=q,
            runs=runs, figures=figures, progress=say.progress,
        )  # fmt: skip
        retention_section(
            doc, rep, caption=retention_table.title, figures=figures, progress=say.progress
        )
    _write_report(doc, out, say)

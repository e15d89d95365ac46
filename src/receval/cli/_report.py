"""``receval report`` and ``receval demo``: the self-contained HTML report and its sections."""

# No ``from __future__ import annotations``: Typer reads the parameters' annotations to
# build the command, and would compile and evaluate each one given as a string every
# time the command is built (once per process).

import os
from contextlib import suppress
from typing import Annotated, Any

import typer

from .._parameters import counted
from ._common import (
    DEFAULT_CTR_METRICS,
    DEFAULT_RANK_METRICS,
    DaysOption,
    DigitsOption,
    FormatOption,
    GradeOption,
    GroupOption,
    ImpressionsOption,
    InputFormatOption,
    ItemOption,
    LabelOption,
    Messages,
    PeriodOption,
    ProfileOption,
    QrelsFormatOption,
    QrelsOption,
    QuietOption,
    RankedFormat,
    RankMetricOption,
    RetentionTable,
    RetentionValues,
    RunFormatOption,
    RunOption,
    RunScoreOption,
    ScoresOption,
    TimeOption,
    TimeUnitOption,
    TzOption,
    UserOption,
    WeightOption,
    app,
    count_retention,
    evaluate_run,
    parse_days,
    rank_table,
    ranked_format,
    read_qrels_runs,
    retention_columns,
)
from ._impressions import (
    ctr_metrics,
    ctr_rows,
    ctr_table,
    read_impressions,
    scored_error,
    table_format,
)
from ._items import (
    FeaturesOption,
    ItemCategoriesOption,
    ItemData,
    PopularityOption,
    read_pairs,
)
from ._output import OutputFormat, ResultTable, render_sections, rows_of
from ._params import Command
from ._stdin import displayed


class _ArgvCommand(Command):
    """The command class of report and demo: keeps the arguments given, for the report's header."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        ctx.meta["receval.argv"] = [str(ctx.info_name), *args]
        return list(super().parse_args(ctx, args))


def _check_calibrated(data: Any, say: Messages) -> None:
    """Refuse, at its file's line and by its option, a score column that is not
    probabilities: the CTR section's calibration figure reads each column as them
    (whatever ``--ctr-metric``)."""
    import numpy as np

    from .._validation import check_probabilities
    from ..exceptions import InputValidationError

    for col, y_score in data.scores:
        try:
            check_probabilities(np.asarray(y_score, dtype=np.float64), "y_prob", "calibration")
        except InputValidationError as exc:
            raise say.fail(scored_error(exc, say, data, "the calibration figure", col)) from None


def _command_line(ctx: typer.Context) -> str:
    """``receval <command> <arguments>`` as typed (shell-quoted)."""
    import shlex

    return shlex.join(["receval", *ctx.meta.get("receval.argv", [])])


NoTimestampOption = Annotated[
    bool,
    typer.Option(
        "--no-timestamp",
        help="Leave out the report's generated-at line, so the same inputs give byte-identical "
        "files (SOURCE_DATE_EPOCH, when set, is the time written otherwise).",
    ),
]


def _figures(say: Messages) -> bool:
    """Whether plotly or matplotlib is installed; a warning when plotly is not."""
    import importlib.util

    if importlib.util.find_spec("plotly") is not None:
        return True
    if importlib.util.find_spec("matplotlib") is not None:
        say.warning(
            "plotly is not installed, so the report's figures are static images; "
            "pip install 'receval[plot]'."
        )
        return True
    say.warning(
        "neither plotly nor matplotlib is installed, so the report has no figures; "
        "pip install 'receval[plot]'."
    )
    return False


def _cohort_table(report: Any, title: str) -> ResultTable:
    names, rows = rows_of(retention_columns(report, RetentionTable.cohort, RetentionValues.rate))
    return ResultTable(names, rows, title=title)


def _cohort_summary(report: Any, title: str) -> ResultTable:
    """The day-N retention of many cohorts in a row per day N: the first and the last
    cohort, the mean over the cohorts where day N is observed, and how many those are
    (rates in the rate columns, the count of cohorts in its own); new users in the title."""
    import numpy as np

    full = _cohort_table(report, title)
    rates = np.asarray(report.day_n_retention, dtype=np.float64)
    defined = ~np.isnan(rates)
    with np.errstate(invalid="ignore"):  # a day N observed in no cohort: nan
        means = np.where(defined, rates, 0.0).sum(axis=0) / defined.sum(axis=0)
    first, last = full.rows[0], full.rows[-1]
    columns = ["retention", f"first {first[0]}", f"last {last[0]}", "mean", "cohorts"]
    rows = [
        [name, first[j + 2], last[j + 2], float(means[j]), int(defined[:, j].sum())]
        for j, name in enumerate(full.columns[2:])
    ]
    new = np.asarray(report.new_users)
    title += (
        f"; new users: {int(new[0]):,} in the first cohort, {int(new[-1]):,} in the last, "
        f"{float(np.mean(new)):,.1f} per cohort on average"
    )
    return ResultTable(columns, rows, title=title)


def _check_out(out: str, inputs: list[str], command: str, say: Messages) -> None:
    """Refuse, before any work, an ``--out`` the report and its JSON cannot be written to:
    ``-`` (no standard stream: two files), a folder, a device, an input, a folder that
    cannot be made; make its folder if missing (as ``mkdir -p``)."""
    from ..report.html import check_target
    from ..report.sections import json_path

    if out == "-":
        raise say.fail(
            f"{command} --out: the report is an HTML file with its numbers in a JSON file "
            f"beside it, so it cannot go to a standard stream. Got '-'; name a file, e.g. "
            f"--out report.html."
        )
    if os.path.isdir(out):
        raise say.fail(
            f"{command} --out names the folder {out!r}; name an HTML file, e.g. "
            f"{os.path.join(out, 'report.html')!r}."
        )
    with suppress(OSError):  # its folder (what is in the way is named below)
        os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    with say.guard():
        for where in (out, json_path(out)):
            check_target(where, inputs, f"{command} --out")


def _as_read(path: str, fmt: RankedFormat | None, read: Any) -> Any:
    """A qrels or run file for receval.audit, which tells its format by the suffix: the
    path (so that the audit reads its time column), or the Qrels or Run read from it
    where --qrels-format or --run-format says another format (standard input's copy
    has no suffix)."""
    return path if ranked_format(fmt, path) == ranked_format(None, path) else read


def _write_report(doc: Any, out: str, say: Messages) -> None:
    from ..report.sections import json_path

    with say.guard(), say.progress(f"Writing {out}"):
        path = doc.write(out)
    if not say.quiet:
        typer.echo(f"numbers written to {json_path(path)}", err=True)
        typer.echo(f"report written to {path}", err=True)


@app.command("report", cls=_ArgvCommand)
def report_command(
    ctx: typer.Context,
    out: Annotated[
        str,
        typer.Option(
            "--out",
            "-o",
            metavar="FILE",
            show_default=False,
            help="The HTML file to write (its numbers go beside it, as .json); its folder is "
            "made if missing.",
        ),
    ],
    title: Annotated[
        str, typer.Option(metavar="TEXT", help="Title of the report.")
    ] = "receval report",
    qrels: QrelsOption[str | None] = None,
    run: RunOption[list[str] | None] = None,
    metric: RankMetricOption = None,
    profile: ProfileOption = None,
    impressions: ImpressionsOption = None,
    label: LabelOption[str | None] = None,
    score: ScoresOption[list[str] | None] = None,
    group: GroupOption = None,
    weight: WeightOption = None,
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
            help="Activity events (CSV, TSV or Parquet), one row per event.",
            show_default=False,
        ),
    ] = None,
    train: Annotated[
        str | None,
        typer.Option(
            metavar="FILE",
            help="Training interactions (CSV, TSV or Parquet with --user and --item "
            "columns): the items' popularity. With --qrels and --run, adds the protocol section "
            "(receval audit of the training log, the qrels as its test set and each run, at "
            "depth --k; the temporal checks with a timestamp or time column in both) and the "
            "beyond-accuracy section (popularity bias, the long tail).",
            show_default=False,
        ),
    ] = None,
    popularity: PopularityOption = None,
    features: FeaturesOption = None,
    item_categories: ItemCategoriesOption = None,
    item_groups: Annotated[
        str | None,
        typer.Option(
            "--item-groups",
            metavar="FILE",
            help="The group of each item (CSV, TSV or Parquet with --item and a 'group' "
            "column; provider, category): with --qrels and --run, adds each group's expected "
            "exposure to the beyond-accuracy section.",
            show_default=False,
        ),
    ] = None,
    depth: Annotated[
        int, typer.Option("--k", min=1, help="Depth of the beyond-accuracy metrics.")
    ] = 10,
    user: UserOption = "user",
    item: ItemOption = "item",
    grade: GradeOption = "grade",
    run_score: RunScoreOption = "score",
    qrels_format: QrelsFormatOption = None,
    run_format: RunFormatOption = None,
    input_format: InputFormatOption = None,
    time: TimeOption = "time",
    period: PeriodOption = "day",
    days: DaysOption = "1,3,7,30",
    tz: TzOption = "UTC",
    time_unit: TimeUnitOption = None,
    digits: DigitsOption = 4,
    no_timestamp: NoTimestampOption = False,
    quiet: QuietOption = False,
) -> None:
    """Each section is optional (at least one is required), in this order: CTR
    (--impressions, --label and --score, probabilities: the metrics of receval
    ctr, ROC, precision-recall and calibration curves), ranking (--qrels and --run: the
    metrics of receval rank, mean ndcg@k and recall@k for k = 1..100; with
    --train, the protocol section: the findings of receval audit; with
    --train or --item-groups, the beyond-accuracy section: popularity bias,
    exposure by item group, the long-tail plot) and retention (--events: the
    first cohorts of receval retention's cohort table, the cohort heatmap and
    the retention curve). The file is
    self-contained (interactive Plotly figures with plotly.js inlined, or
    PNGs without plotly; no network access) and starts with the command, the
    input files and their rows; the numbers of its tables go to a JSON file
    beside it (report.html: report.json). Their paths are printed on stderr;
    nothing is printed on stdout.
    """
    from ..report.sections import (
        HTMLReport,
        beyond_section,
        ctr_section,
        protocol_section,
        ranking_section,
        retention_section,
    )

    say = Messages(quiet)
    if (qrels is None) != (not run):
        raise say.fail("--qrels and --run go together: pass both for the ranking section.")
    item_files = {
        "--train": train, "--item-groups": item_groups, "--popularity": popularity,
        "--features": features, "--item-categories": item_categories,
    }  # fmt: skip
    given = [option for option, path in item_files.items() if path is not None]
    if given and qrels is None:
        verb = "describe" if len(given) > 1 else "describes"
        raise say.fail(f"{', '.join(given)} {verb} runs: pass --qrels and --run too.")
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
    files = [p for p in (qrels, *(run or []), impressions, events, *item_files.values()) if p]
    _check_out(out, files, "receval report", say)  # before any input is read
    offsets = parse_days(days, say)
    doc = HTMLReport(title, digits=digits, command=_command_line(ctx), timestamp=not no_timestamp)
    figures = _figures(say)
    with say.guard():
        if impressions is not None and label is not None and score:
            metrics_ctr = ctr_metrics(ctr_metric, group, say, where="receval report --ctr-metric")
            data = read_impressions(
                impressions, input_format, say, "receval report", label=label, score=score,
                group=group, weight=weight,
            )  # fmt: skip
            doc.add_input(displayed(impressions), data.n_rows, what="impressions")
            rows = ctr_rows(
                data.y_true, data.scores, metrics_ctr, data.groups, data.sample_weight, say, data
            )
            _check_calibrated(data, say)
            ctr_section(
                doc, ctr_table(rows, metrics_ctr).records(), data.y_true, dict(data.scores),
                caption=f"{displayed(impressions)}: {counted(data.n_rows, 'impression')}",
                groups=data.groups, sample_weight=data.sample_weight, figures=figures,
                progress=say.progress,
            )  # fmt: skip
        if qrels is not None and run:
            from ..registry import ranking_spec

            metrics = list(metric) if metric else list(DEFAULT_RANK_METRICS)
            for text in metrics:
                ranking_spec(text, "receval report -m")
            inputs = read_qrels_runs(
                qrels, qrels_format, run, run_format, say, user=user, item=item, grade=grade,
                score=run_score,
            )  # fmt: skip
            runs: dict[str, Any] = {}
            reports: dict[str, Any] = {}
            items = ItemData(
                popularity=popularity, features=features, item_categories=item_categories,
                user=user, item=item,
            )  # fmt: skip
            log = None
            for (q, name, r), path in zip(inputs, run, strict=True):
                if not runs:
                    doc.add_input(displayed(qrels), q.n_rows, what="qrels")
                    # item ids as the runs hold them (integers from Parquet, strings from TREC)
                    ints = r.item_ids.dtype.kind in "iu"
                    extra = items.load(ints, say)
                    if train is not None:
                        log_items, users = read_pairs(
                            train, {item: "--item", user: "--user"}, "--train", say, ints
                        )
                        doc.add_input(
                            displayed(train), len(log_items), what="training interactions"
                        )
                        log = extra["train"] = (users, log_items)
                doc.add_input(displayed(path), r.n_rows, what="run")
                runs[name] = r
                reports[name] = evaluate_run(q, r, name, metrics, say, profile, weighting=extra)
            caption = f"{displayed(qrels)}: {counted(q.n_users, 'user')}"
            ranking_section(
                doc, reports, metrics=metrics, caption=caption,
                qrels=q, runs=runs, profile=profile, figures=figures, progress=say.progress,
            )  # fmt: skip
            if train is not None:  # the qrels are the test set of the training log
                from ..protocol import audit
                from ._translate import audit_in_cli_words

                test = _as_read(qrels, qrels_format, q)
                with say.progress("Auditing the protocol"):
                    audits = {name: audit_in_cli_words(audit(
                                  train, test, _as_read(path, run_format, runs[name]), k=depth,
                                  profile=profile, user=user, item=item, score=run_score,
                                  grade=grade), "report")
                              for name, path in zip(runs, run, strict=True)}  # fmt: skip
                protocol_section(
                    doc, audits, caption=f"{displayed(train)} (train), {displayed(qrels)} (test)"
                )
            if train is not None or item_groups is not None:
                groups = None
                if item_groups is not None:
                    groups = read_pairs(item_groups, {item: "--item", "group": None},
                                        "--item-groups", say, integers=ints)  # fmt: skip
                    doc.add_input(displayed(item_groups), len(groups[0]), what="item groups")
                beyond_section(
                    doc, runs, train=log, qrels=q, item_groups=groups, k=depth,
                    figures=figures, progress=say.progress,
                )  # fmt: skip
        if events is not None:
            rep = count_retention(
                events, table_format(input_format, events, say), say, user=user, time=time,
                period=period, days=offsets, tz=tz, time_unit=time_unit,
            )  # fmt: skip
            doc.add_input(displayed(events), rep.n_events, what="events")
            caption = (
                f"{displayed(events)}: {counted(rep.n_events, 'event')}, "
                f"{counted(rep.n_users, 'user')} ({rep.tz})"
            )
            retention_section(doc, rep, caption=caption, figures=figures, progress=say.progress)
    _write_report(doc, out, say)


@app.command("demo", cls=_ArgvCommand)
def demo(
    ctx: typer.Context,
    out: Annotated[
        str,
        typer.Option(
            "--out",
            "-o",
            metavar="FILE",
            help="The HTML report to write (its numbers go beside it, as .json); its "
            "folder is made if missing.",
        ),
    ] = "receval-demo/report.html",
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
    no_timestamp: NoTimestampOption = False,
    quiet: QuietOption = False,
) -> None:
    """Generates three deterministic synthetic datasets (receval.datasets; no
    file or network needed): an impression log with two CTR models'
    predictions (make_impressions), held-out interactions with two
    recommenders' top-100 lists (make_recommendations) and 60 days of login
    events (make_events). Prints the table of each, as receval ctr (with
    --group user) and receval rank print them, and the day-N retention of the
    cohorts summed up, a row per day N: the first and the last cohort, the
    mean over the cohorts where day N is observed and their number (with
    --format json, csv or tsv: every cohort; json is one object {"ctr": [...],
    "rank": [...], "retention": [...]}). Writes all three sections, every
    cohort and the figures to the HTML report --out (default
    receval-demo/report.html, in a folder that a clone of receval ignores).
    """
    from ..data._ranked import Qrels, Run
    from ..datasets import make_events, make_impressions, make_recommendations
    from ..metrics.retention import retention
    from ..report.sections import (
        HTMLReport,
        ctr_section,
        ranking_section,
        retention_section,
    )

    say = Messages(quiet)
    _check_out(out, [], "receval demo", say)  # found before any table is computed
    doc = HTMLReport(
        "receval demo",
        description="Two CTR models, two recommenders and user retention, evaluated on "
        f"receval's deterministic synthetic sample data ({counted(users, 'user')} per dataset, "
        "seed 0).",
        digits=digits,
        command=_command_line(ctx),
        timestamp=not no_timestamp,
    )
    with say.guard():
        with say.progress("Generating impressions"):
            log = make_impressions(users, seed=0)
        y_true = log["click"]
        doc.add_input(f"make_impressions({users}, seed=0)", len(y_true), what="impressions")
        scores = [(name, log[name]) for name in ("model_a", "model_b")]
        metrics_ctr = ctr_metrics(None, "user", say)
        rows = ctr_rows(y_true, scores, metrics_ctr, log["user"], None, say)
        title = (
            f"make_impressions({users}): {counted(len(y_true), 'impression')}, "
            f"{counted(users, 'user')}"
        )
        ctr_results = ctr_table(rows, metrics_ctr, title)

        with say.progress("Generating recommendations"):
            qrels_data, run_data = make_recommendations(users, seed=0)
            q = Qrels(qrels_data["user"], qrels_data["item"], qrels_data["grade"])
            runs = {
                name: Run(r["user"], r["item"], r["score"], name=name)
                for name, r in run_data.items()
            }
        doc.add_input(f"make_recommendations({users}, seed=0)", q.n_rows, what="qrels")
        for name, r in runs.items():
            doc.add_input(f"make_recommendations({users}, seed=0)[{name!r}]", r.n_rows, what="run")
        metrics = list(DEFAULT_RANK_METRICS)
        reports = [(name, evaluate_run(q, r, name, metrics, say)) for name, r in runs.items()]
        title = (
            f"make_recommendations({users}): {counted(q.n_rows, 'held-out interaction')}, "
            f"top-100 lists of {counted(users, 'user')}"
        )
        ranking_table = rank_table(reports, metrics, title=title)

        with say.progress("Generating events"):
            events = make_events(users, seed=0)
            rep = retention(events)
        doc.add_input(f"make_events({users}, seed=0)", rep.n_events, what="events")
        title = (
            f"make_events({users}): {counted(rep.n_events, 'event')}, "
            f"{counted(rep.n_users, 'user')} ({rep.tz})"
        )
        retention_table = _cohort_table(rep, title)
        if output_format in _HUMAN_FORMATS and rep.n_periods > 4:
            retention_table = _cohort_summary(
                rep, f"{title}; {rep.n_periods} daily cohorts summed up: the first, the last, "
                "the mean over the cohorts where day N is observed and how many those are "
                "(each cohort: in the report and in --format json/csv)",
            )  # fmt: skip
    render_sections(
        [("ctr", ctr_results), ("rank", ranking_table), ("retention", retention_table)],
        output_format,
        digits=digits,
    )
    figures = _figures(say)
    with say.guard():
        ctr_section(
            doc, ctr_results.records(), y_true, dict(scores), caption=ctr_results.title,
            groups=log["user"], figures=figures, progress=say.progress,
        )  # fmt: skip
        ranking_section(
            doc, dict(reports), metrics=metrics, caption=ranking_table.title, qrels=q,
            runs=runs, figures=figures, progress=say.progress,
        )  # fmt: skip
        retention_section(doc, rep, caption=title, figures=figures, progress=say.progress)
    _write_report(doc, out, say)


# formats that people read: demo sums up the retention cohorts in them
_HUMAN_FORMATS = (OutputFormat.table, OutputFormat.markdown, OutputFormat.latex)

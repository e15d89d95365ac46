"""``receval compare``: significance tests and intervals between runs or CTR models.

Registered on the ``receval`` app when :mod:`receval.cli` is imported. The
statistics come from :func:`receval.compare` and
:func:`receval.compare_predictions`; this module only reads files and
formats the :class:`receval.ComparisonReport`.
"""

# No ``from __future__ import annotations``: Typer reads the parameters' annotations to
# build the command, and would compile and evaluate each one given as a string every
# time the command is built (once per process).

import sys
from typing import Annotated, Any

import typer

from .._parameters import counted, verb
from ..comparison.choices import CORRECTIONS, INTERVALS, TESTS
from ..exceptions import InputValidationError
from ..report.tables import markdown_escape
from ._common import (
    ALL_SEGMENTS,
    DEFAULT_RANK_METRICS,
    AllowUnmatchedOption,
    DigitsOption,
    FormatOption,
    GradeOption,
    GroupOption,
    ImpressionsOption,
    InputFormatOption,
    ItemOption,
    LabelOption,
    Messages,
    PermutationsOption,
    ProfileOption,
    QrelsFormatOption,
    QrelsOption,
    QuietOption,
    RankMetricOption,
    RunFormatOption,
    RunOption,
    RunScoreOption,
    ScoresOption,
    UserOption,
    WeightOption,
    app,
    displayed,
    evaluate_run,
    read_qrels_runs,
    read_segments,
    unknown_users_note,
)
from ._impressions import (
    column_warnings,
    ctr_metrics,
    read_impressions,
    scored_error,
)
from ._items import (
    FeaturesOption,
    ItemCategoriesOption,
    ItemData,
    PopularityOption,
    TrainOption,
)
from ._output import OutputFormat, ResultTable, render, render_sections
from ._params import Command, words


def run_counts(
    records: list[dict[str, Any]], counts: dict[str, dict[str, int]]
) -> list[dict[str, dict[str, int]]]:
    """Each record's counts of its two runs, from each run's counts by name:
    ``{"n_users_missing": {"model": 0, "versus": 150}, ...}``."""
    return [{key: {"model": counts[r["model"]][key], "versus": counts[r["versus"]][key]}
             for key in counts[r["model"]]} for r in records]  # fmt: skip


def comparison_output(
    report: Any,
    fmt: OutputFormat,
    digits: int,
    detail: bool,
    lists: Any = None,
    counts: dict[str, dict[str, int]] | None = None,
) -> None:
    """Write a ComparisonReport: the means with significance letters (table, markdown,
    latex; ``detail``: every comparison), or every comparison as records (json, csv, tsv;
    with ``counts``, each run's counts by name, the record's ``counts`` of its model and
    its versus); then ``lists`` (a ListDifferenceReport), the means of how the runs'
    lists differ."""
    lists_table = None if lists is None else list_table(lists)
    if fmt in (OutputFormat.json, OutputFormat.csv, OutputFormat.tsv):
        records = report.records()
        columns = list(records[0]) if records else []
        paired = None if counts is None else run_counts(records, counts)
        table = ResultTable(columns, [list(r.values()) for r in records], counts=paired)
        if lists_table is None:
            render(table, fmt, digits=digits)
        else:
            render_sections([("comparisons", table), ("lists", lists_table)], fmt, digits=digits)
        return
    if fmt is OutputFormat.markdown:
        sys.stdout.write(report.to_markdown(digits, detail=detail))
    elif fmt is OutputFormat.latex:
        sys.stdout.write(report.to_latex(digits, detail=detail))
    elif detail:
        header, rows = report.detail_rows(digits)
        render(ResultTable(header, rows, report.legend(detail=True), keys=3), fmt, digits=digits)
    else:
        rows = report.summary_rows(digits, style="text")
        table = ResultTable(["", "model", *report.metrics], rows, title=report.legend(), keys=2)
        render(table, fmt, digits=digits)
    if lists_table is not None:
        sys.stdout.write("\n")
        if fmt is OutputFormat.markdown:
            sys.stdout.write(f"{markdown_escape(lists_table.title or '')}\n\n")
        render(lists_table, fmt, digits=digits)
    sys.stdout.flush()


def section_heading(heading: str, fmt: OutputFormat) -> str:
    """The line that heads a segment's tables: a Markdown heading, a LaTeX comment (on one
    line: a line break would end it), else the text; a segment's label escaped in each."""
    if fmt is OutputFormat.markdown:
        return f"\n## {markdown_escape(heading)}\n\n"
    if fmt is OutputFormat.latex:
        return "% " + " ".join(displayed(heading).splitlines()) + "\n"
    return displayed(heading) + "\n"


def list_table(lists: Any) -> ResultTable:
    """The means of a ListDifferenceReport, one row per measure, with its users."""
    rows = [[name, lists.mean[name], lists.n_defined[name]] for name in lists.values]
    return ResultTable(["measure", "mean", "users"], rows, title=lists.summary())


def work_line(test: str, permutations: int, resamples: int | None) -> str:
    """What a comparison computes, for its progress line."""
    what = f"the {test} test" + (
        f" ({counted(permutations, 'sign flip')})" if test == "randomization" else ""
    )
    return what + (f" and {counted(resamples, 'bootstrap resample')}" if resamples else "")


def _list_ties(profile: str | None, say: Messages) -> str:
    """The tie order of the lists of ``--lists``: the profile's (default "trec"), or
    "trec", with a note, for a profile whose ties are no order of a list."""
    from ..comparison.lists import TIES
    from ..conventions import resolve_conventions

    ties = resolve_conventions(profile).ties
    if ties in TIES:
        return ties
    say.note(
        f"--lists: the profile's ties={ties!r} is no order of a list; the lists order tied "
        f"scores by item id descending (ties='trec')."
    )
    return "trec"


def comparison_notes(report: Any, say: Messages, where: str = "") -> None:
    """Notes on stderr: each metric whose paired test cannot reach ``p < alpha`` with
    its number of paired users (the report's ``p_min``: with 3 users the randomization
    test gives at least 0.25, so nothing can be significant), and each comparison that
    leaves users out of its test (``n_users_skipped``)."""
    c = report.comparisons
    seen: dict[tuple[int, float], list[str]] = {}
    rows = zip(c["metric"].tolist(), c["n_users"].tolist(), c["p_min"].tolist(), strict=True)
    for metric, n, bound in rows:  # p_min: the column of ComparisonReport (0 for DeLong)
        if not bound < report.alpha:  # nan too: no p-value at all
            names = seen.setdefault((int(n), bound if bound == bound else -1.0), [])
            if metric not in names:
                names.append(metric)
    for (n, bound), names in seen.items():
        smallest = "no p-value" if bound < 0 else f"no p-value below {bound:.4g}"
        say.note(
            f"{where}{', '.join(names)}: with {counted(n, 'paired user')} the {report.test} "
            f"test gives "
            f"{smallest}, so no difference can be significant at alpha {report.alpha:g}; "
            f"compare on more users."
        )
    skipped = zip(c["metric"].tolist(), c["model"].tolist(), c["versus"].tolist(),
                  c["n_users"].tolist(), c["n_users_skipped"].tolist(), strict=True)  # fmt: skip
    for metric, model, versus, n, left_out in skipped:
        if left_out:
            say.note(
                f"{where}{metric}: {model} vs {versus} leaves {left_out:,} of "
                f"{counted(n + left_out, 'user')} out of the test (no value for one model or "
                f"both)."
            )


def segment_output(
    comparison: Any,
    path: str,
    fmt: OutputFormat,
    digits: int,
    detail: bool,
    say: Messages,
    counts: dict[str, dict[str, int]],
) -> None:
    """Write a SegmentComparison: records with a ``segment`` field (json, csv, tsv), else
    one comparison per segment under a heading line, the overall one last. ``counts``:
    each run's counts by name (users of the qrels absent from the run, of the run
    absent from the qrels), on the overall records, as :func:`comparison_output` puts
    them on every record."""
    if comparison.n_unassigned:
        say.note(
            f"{counted(comparison.n_unassigned, 'qrels user')} "
            f"{verb(comparison.n_unassigned, 'has')} no segment in {path} (compared in "
            f"{ALL_SEGMENTS} only)."
        )
    unknown_users_note(comparison.n_unknown, path, say)
    n_empty = int((comparison.counts == 0).sum())
    if n_empty:
        hold = (
            "segment of {} holds no qrels user: its"
            if n_empty == 1
            else "segments of {} hold no qrels user: their"
        )
        say.note(f"{n_empty:,} {hold.format(path)} statistics are nan.")
    if fmt in (OutputFormat.json, OutputFormat.csv, OutputFormat.tsv):
        records = comparison.records()
        for r in records:
            r["segment"] = ALL_SEGMENTS if r["segment"] is None else r["segment"]
        columns = list(records[0]) if records else []
        # what the segmentation and the runs left out, on the overall rows (as rank --by)
        paired = run_counts(records, counts)
        empty = {"n_segments_empty": n_empty} if n_empty else {}  # as the note: when some are
        unknown = {"n_users_unknown": comparison.n_unknown}
        left_out = [
            {"n_users_unassigned": comparison.n_unassigned, **unknown, **empty, **pair}
            if r["segment"] == ALL_SEGMENTS else {}
            for r, pair in zip(records, paired, strict=True)
        ]  # fmt: skip
        table = ResultTable(columns, [list(r.values()) for r in records], counts=left_out)
        render(table, fmt, digits=digits)
        return
    parts = [
        *zip(comparison.segments.tolist(), comparison.reports, comparison.counts.tolist(),
             strict=True),
        (ALL_SEGMENTS, comparison.overall, int(comparison.counts.sum()) + comparison.n_unassigned),
    ]  # fmt: skip
    for label, report, n in parts:
        comparison_notes(report, say, f"segment {label}: ")
        heading = f"segment {label} ({counted(n, 'user')})"
        sys.stdout.write(section_heading(heading, fmt))
        comparison_output(report, fmt, digits, detail)


@app.command(cls=Command)
def compare(
    qrels: QrelsOption[str | None] = None,
    run: RunOption[list[str] | None] = None,
    metric: RankMetricOption = None,
    profile: ProfileOption = None,
    user: UserOption = "user",
    item: ItemOption = "item",
    grade: GradeOption = "grade",
    run_score: RunScoreOption = "score",
    qrels_format: QrelsFormatOption = None,
    run_format: RunFormatOption = None,
    allow_unmatched: AllowUnmatchedOption = False,
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
            help="CTR metric: any pointwise or grouped metric (receval metrics); repeat. "
            "Default: gauc and log_loss (gauc needs --group).",
            show_default=False,
        ),
    ] = None,
    weighting: Annotated[
        str,
        typer.Option(metavar="[impressions|clicks|uniform]", help="Weighting of gauc's groups."),
    ] = "impressions",
    input_format: InputFormatOption = None,
    baseline: Annotated[
        str | None,
        typer.Option(
            metavar="NAME",
            help="Compare every model with this one (a run's file name or a --score column); "
            "default: every pair.",
            show_default=False,
        ),
    ] = None,
    test: Annotated[
        str,
        typer.Option(
            "--test",
            metavar=words(TESTS),
            help="Paired test: Fisher's sign-flip test, the paired t-test or the Wilcoxon "
            "signed-rank test.",
        ),
    ] = "randomization",
    correction: Annotated[
        str,
        typer.Option(
            metavar=words((*CORRECTIONS, "none")),
            help="Multiple-comparison correction within each metric.",
        ),
    ] = "holm",
    alpha: Annotated[float, typer.Option(help="Significance level.")] = 0.05,
    interval: Annotated[
        str,
        typer.Option(
            metavar=words((*INTERVALS, "none")),
            help="Bootstrap interval of each difference.",
        ),
    ] = "bca",
    confidence: Annotated[float, typer.Option(help="Coverage of the intervals.")] = 0.95,
    permutations: PermutationsOption = 10_000,
    resamples: Annotated[int, typer.Option(help="Bootstrap resamples.")] = 10_000,
    seed: Annotated[int, typer.Option(help="Seed of the randomization test and bootstrap.")] = 0,
    by: Annotated[
        str | None,
        typer.Option(
            "--by",
            metavar="FILE",
            help="Runs only: a CSV, TSV or Parquet file of user segments (columns --user and "
            "--segment); the runs are compared within each segment (compare_by_segment), "
            "then over every user.",
            show_default=False,
        ),
    ] = None,
    segment: Annotated[
        str, typer.Option("--segment", metavar="COL", help="The segment column of --by.")
    ] = "segment",
    pairs: Annotated[
        str | None,
        typer.Option(
            "--pairs",
            metavar="[all]",
            help="Runs only: all compares every pair of runs with the correction across "
            "every pair and metric (default: within each metric).",
            show_default=False,
        ),
    ] = None,
    lists: Annotated[
        bool,
        typer.Option(
            "--lists",
            help="Two runs: also how much their lists differ per user (RBO with its "
            "residual, overlap, Jaccard, Kendall's tau): the means, after the comparison.",
        ),
    ] = False,
    list_depth: Annotated[
        int | None,
        typer.Option(
            "--list-depth",
            metavar="K",
            help="With --lists: cut each list at K items (default: the whole lists).",
            show_default=False,
        ),
    ] = None,
    rbo_p: Annotated[
        float, typer.Option("--rbo-p", help="With --lists: the persistence p of RBO.")
    ] = 0.9,
    detail: Annotated[
        bool,
        typer.Option(
            "--detail",
            help="In table, markdown and latex formats, print every comparison (difference, "
            "effect size, interval, p-values) instead of the means with letters.",
        ),
    ] = False,
    train: TrainOption = None,
    popularity: PopularityOption = None,
    features: FeaturesOption = None,
    item_categories: ItemCategoriesOption = None,
    output_format: FormatOption = OutputFormat.table,
    digits: DigitsOption = 4,
    quiet: QuietOption = False,
) -> None:
    """The table shows each model's mean of each metric; a letter after a value
    names a model this one beats significantly (model a, b, ... in order).
    json, csv and tsv give one record per comparison: difference, effect size,
    interval, p-value and adjusted p-value, as receval.compare returns them.
    """
    from ..comparison.lists import list_differences
    from ..comparison.models import compare as compare_runs
    from ..comparison.models import compare_predictions

    say = Messages(quiet)
    settings: dict[str, Any] = {
        "baseline": baseline, "test": test,
        "correction": None if correction == "none" else correction, "alpha": alpha,
        "interval": None if interval == "none" else interval, "confidence": confidence,
        "n_permutations": permutations, "n_resamples": resamples, "seed": seed,
    }  # fmt: skip
    doing = work_line(test, permutations, None if interval == "none" else resamples)
    ranking = qrels is not None or bool(run)
    pointwise = impressions is not None or bool(score)
    with say.guard():
        if ranking == pointwise:
            raise say.fail(
                "pass either --qrels with --run (runs) or --impressions with --label and "
                "--score (CTR models)."
            )
        for given, why in (
            (ranking and bool(ctr_metric), "--ctr-metric names the metrics of CTR models "
             "(--impressions); for runs use -m"),
            (pointwise and bool(metric), "-m names the metrics of runs (--qrels, --run); for "
             f"CTR models use --ctr-metric (--ctr-metric {(metric or [''])[0]})"),
            (pointwise and allow_unmatched, "--allow-unmatched goes with runs (--qrels, "
             "--run); drop it"),
            (not lists and list_depth is not None, "--list-depth goes with --lists; pass "
             "--lists or drop --list-depth"),
            (not lists and rbo_p != 0.9, "--rbo-p goes with --lists; pass --lists or drop --rbo-p"),
        ):  # fmt: skip
            if given:  # an option that would be ignored
                raise say.fail(f"{why}.")
        if ranking:
            if qrels is None or not run or len(run) < 2:
                raise say.fail("comparing runs needs --qrels and at least two --run.")
            if lists and len(run) != 2:
                raise say.fail(f"--lists compares the lists of two runs. Got {len(run)} --run; "
                               f"pass two.")  # fmt: skip
            from ..comparison.models import check_settings
            from ..comparison.table import check_pairs, model_pairs
            from ..registry import parse_metrics

            func = "compare" if by is None else "compare_by_segment"
            check_settings(func, **settings)  # the options, before any file is read
            check_pairs(pairs, None, func)
            texts = list(metric) if metric else list(DEFAULT_RANK_METRICS)
            metrics = [name for text in texts for name in parse_metrics(text)]  # P.5,10: two
            inputs = list(read_qrels_runs(
                qrels, qrels_format, run, run_format, say,
                user=user, item=item, grade=grade, score=run_score, score_option="--run-score",
            ))  # fmt: skip
            q = inputs[0][0]
            runs = {name: r for _, name, r in inputs}
            model_pairs(list(runs), baseline, func, pairs)  # the names, before evaluating
            items = ItemData(train, popularity, features, item_categories, user=user, item=item)
            conventions = items.load(inputs[0][2].item_ids.dtype.kind in "iu", say)
            if allow_unmatched:  # a convention of evaluate, as rank passes it
                conventions["allow_unmatched"] = True
            # each run evaluated as rank evaluates it, with its notes (users absent from
            # the run or not in the qrels, users left out of a mean); compared as reports
            evaluated = {name: evaluate_run(q, r, name, metrics, say, profile, conventions)
                         for name, r in runs.items()}  # fmt: skip
            counts = {name: {"n_users_missing": int(rep.n_users_missing),
                             "n_run_only_users": int(rep.n_run_only_users)}
                      for name, rep in evaluated.items()}  # fmt: skip
            if by is not None:
                from ..segments.compute import compare_by_segment

                if pairs is not None or lists:
                    raise say.fail("--by compares within segments; drop --pairs and --lists.")
                segments = read_segments(by, user, segment, q.user_ids, say)
                with say.progress(f"Comparing {counted(len(runs), 'run')} by segment: {doing}…"):
                    by_segment = compare_by_segment(q, evaluated, metrics, by=segments, **settings)
                segment_output(by_segment, by, output_format, digits, detail, say, counts)
                return
            with say.progress(f"Comparing {counted(len(runs), 'run')}: {doing}…"):
                report = compare_runs(q, evaluated, metrics, pairs=pairs, **settings)
                differences = None
                if lists:
                    ties = _list_ties(profile, say)
                    differences = list_differences(*runs.values(), k=list_depth, p=rbo_p,
                                                   ties=ties)  # fmt: skip
            comparison_notes(report, say)
            comparison_output(report, output_format, digits, detail, differences, counts)
            return
        else:
            if by is not None:
                raise say.fail(
                    "--by compares runs by user segment; for CTR models use receval ctr --by."
                )
            if pairs is not None or lists:
                raise say.fail("--pairs and --lists compare runs (--qrels, --run), not CTR models.")
            if impressions is None or label is None or not score or len(score) < 2:
                raise say.fail(
                    "comparing CTR models needs --impressions, --label and at least two --score."
                )
            metrics = list(ctr_metric) if ctr_metric else (
                ["gauc", "log_loss"] if group else ["log_loss"]
            )  # fmt: skip
            ctr_metrics(metrics, group, say, where="receval compare --ctr-metric")  # as ctr
            data = read_impressions(
                impressions, input_format, say, "receval compare", label=label, score=score,
                group=group, weight=weight,
            )  # fmt: skip
            with (
                say.progress(f"Comparing {counted(len(score), 'model')}: {doing}…"),
                column_warnings(data, None, metrics=metrics),  # the model's column, --weight
            ):
                try:
                    report = compare_predictions(
                        data.y_true, dict(data.scores), groups=data.groups, metrics=metrics,
                        weighting=weighting, sample_weight=data.sample_weight, **settings,
                    )  # fmt: skip
                except InputValidationError as exc:  # a data error: the file's line, the column
                    raise say.fail(scored_error(exc, say, data)) from None
            comparison_notes(report, say)
        comparison_output(report, output_format, digits, detail)

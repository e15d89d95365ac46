"""``receval compare``: significance tests and intervals between runs or CTR models.

Registered on the ``receval`` app when :mod:`receval.cli` is imported. The
statistics come from :func:`receval.compare` and
:func:`receval.compare_predictions`; this module only reads files and
formats the :class:`receval.ComparisonReport`.
"""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from ..comparison import CORRECTIONS, INTERVALS, POINTWISE, TESTS
from ..conventions import PROFILES
from ._common import (
    DEFAULT_RANK_METRICS,
    DigitsOption,
    FormatOption,
    Messages,
    QuietOption,
    RankedFormat,
    TableFormat,
    app,
    column,
    ranked_format,
    run_names,
    table_format,
)
from ._output import OutputFormat, ResultTable, render

# options shared by ``compare`` and ``rank``
BaselineOption = Annotated[
    str | None,
    typer.Option(
        metavar="NAME",
        help="Compare every model with this one (a run's file name or a --score column); "
        "default: every pair.",
        show_default=False,
    ),
]
TestOption = Annotated[
    str,
    typer.Option(
        "--test",
        help=f"Paired test: {', '.join(TESTS)} (Fisher's sign-flip test, the paired t-test, "
        "the Wilcoxon signed-rank test).",
    ),
]


def comparison_output(report: Any, fmt: OutputFormat, digits: int, detail: bool) -> None:
    """Write a ComparisonReport: the means with significance letters (table, markdown,
    latex; ``detail``: every comparison), or every comparison as records (json, csv, tsv)."""
    if fmt in (OutputFormat.json, OutputFormat.csv, OutputFormat.tsv):
        records = report.records()
        columns = list(records[0]) if records else []
        render(ResultTable(columns, [list(r.values()) for r in records]), fmt, digits=digits)
        return
    if fmt is OutputFormat.markdown:
        sys.stdout.write(report.to_markdown(digits, detail=detail))
    elif fmt is OutputFormat.latex:
        sys.stdout.write(report.to_latex(digits, detail=detail))
    elif detail:
        header, rows = report._detail_rows(digits)
        render(ResultTable(header, rows, title=report.legend()), fmt, digits=digits)
    else:
        rows = report.summary_rows(digits, style="text")
        table = ResultTable(["", "model", *report.metrics], rows, title=report.legend())
        render(table, fmt, digits=digits)
    sys.stdout.flush()


@app.command(no_args_is_help=True)
def compare(
    qrels: Annotated[
        str | None,
        typer.Option(
            metavar="FILE",
            help="Relevance judgments (TREC qrels, CSV, TSV or Parquet); with --run.",
            show_default=False,
        ),
    ] = None,
    run: Annotated[
        list[str] | None,
        typer.Option(
            "--run",
            metavar="FILE",
            help="A run to compare (TREC run, CSV, TSV or Parquet), named by its file name; "
            "repeat, at least twice.",
            show_default=False,
        ),
    ] = None,
    metric: Annotated[
        list[str] | None,
        typer.Option(
            "--metric",
            "-m",
            metavar="METRIC",
            help="Ranking metric string (ndcg@10, ...); repeat. Default: "
            f"{', '.join(DEFAULT_RANK_METRICS)}.",
            show_default=False,
        ),
    ] = None,
    profile: Annotated[
        str | None,
        typer.Option(
            help="Conventions of a peer: " + ", ".join(PROFILES) + ".", show_default=False
        ),
    ] = None,
    user: Annotated[
        str, typer.Option(metavar="COL", help="User id column of runs/qrels.")
    ] = "user",
    item: Annotated[
        str, typer.Option(metavar="COL", help="Item id column of runs/qrels.")
    ] = "item",
    grade: Annotated[str, typer.Option(metavar="COL", help="Grade column of qrels.")] = "grade",
    run_score: Annotated[str, typer.Option(metavar="COL", help="Score column of runs.")] = "score",
    qrels_format: Annotated[
        RankedFormat | None,
        typer.Option(help="Format of --qrels (default: suffix, else trec).", show_default=False),
    ] = None,
    run_format: Annotated[
        RankedFormat | None,
        typer.Option(
            help="Format of every --run (default: suffix, else trec).", show_default=False
        ),
    ] = None,
    impressions: Annotated[
        str | None,
        typer.Option(
            metavar="FILE",
            help="Impression log (CSV, TSV or Parquet) to compare CTR models; with --label and "
            "--score (instead of --qrels and --run).",
            show_default=False,
        ),
    ] = None,
    label: Annotated[
        str | None,
        typer.Option(metavar="COL", help="Column of 0/1 labels.", show_default=False),
    ] = None,
    score: Annotated[
        list[str] | None,
        typer.Option(
            "--score",
            metavar="COL",
            help="Column of a model's predicted probabilities; repeat, at least twice.",
            show_default=False,
        ),
    ] = None,
    group: Annotated[
        str | None,
        typer.Option(
            metavar="COL", help="Column of user ids: the unit of pairing.", show_default=False
        ),
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
            help=f"CTR metric: {', '.join(POINTWISE)}; repeat. Default: both (gauc needs --group).",
            show_default=False,
        ),
    ] = None,
    weighting: Annotated[
        str, typer.Option(help="Weighting of gauc: impressions, clicks or uniform.")
    ] = "impressions",
    input_format: Annotated[
        TableFormat | None,
        typer.Option(help="Format of --impressions (default: suffix).", show_default=False),
    ] = None,
    baseline: BaselineOption = None,
    test: TestOption = "randomization",
    correction: Annotated[
        str,
        typer.Option(
            help=f"Multiple-comparison correction within each metric: "
            f"{', '.join(CORRECTIONS)} or none."
        ),
    ] = "holm",
    alpha: Annotated[float, typer.Option(help="Significance level.")] = 0.05,
    interval: Annotated[
        str,
        typer.Option(
            help=f"Bootstrap interval of each difference: {', '.join(INTERVALS)} or none."
        ),
    ] = "bca",
    confidence: Annotated[float, typer.Option(help="Coverage of the intervals.")] = 0.95,
    permutations: Annotated[
        int, typer.Option(help="Sign flips of the randomization test.")
    ] = 10_000,
    resamples: Annotated[int, typer.Option(help="Bootstrap resamples.")] = 10_000,
    seed: Annotated[int, typer.Option(help="Seed of the randomization test and bootstrap.")] = 0,
    detail: Annotated[
        bool,
        typer.Option(
            "--detail",
            help="In table, markdown and latex formats, print every comparison (difference, "
            "effect size, interval, p-values) instead of the means with letters.",
        ),
    ] = False,
    output_format: FormatOption = OutputFormat.table,
    digits: DigitsOption = 4,
    quiet: QuietOption = False,
) -> None:
    """Compare runs (--qrels, --run) or CTR models (--impressions, --score) with paired tests.

    The table shows each model's mean of each metric; a letter after a value
    names a model this one beats significantly (model a, b, ... in order).
    json, csv and tsv give one record per comparison: difference, effect size,
    interval, p-value and adjusted p-value, as receval.compare returns them.
    """
    from ..comparison import compare as compare_runs
    from ..comparison import compare_predictions

    say = Messages(quiet)
    settings = {
        "baseline": baseline, "test": test,
        "correction": None if correction == "none" else correction, "alpha": alpha,
        "interval": None if interval == "none" else interval, "confidence": confidence,
        "n_permutations": permutations, "n_resamples": resamples, "seed": seed,
    }  # fmt: skip
    ranking = qrels is not None or bool(run)
    pointwise = impressions is not None or bool(score)
    with say.guard():
        if ranking == pointwise:
            raise say.fail(
                "pass either --qrels with --run (runs) or --impressions with --label and "
                "--score (CTR models)."
            )
        if ranking:
            if qrels is None or not run or len(run) < 2:
                raise say.fail("comparing runs needs --qrels and at least two --run.")
            from ..data._ranked import Qrels, Run

            metrics = list(metric) if metric else list(DEFAULT_RANK_METRICS)
            with say.progress(f"Reading {qrels}"):
                q = Qrels.from_file(qrels, user=user, item=item, grade=grade,
                                    file_format=ranked_format(qrels_format, qrels))  # fmt: skip
            runs = {}
            for path, name in zip(run, run_names(run), strict=True):
                with say.progress(f"Reading {path}"):
                    runs[name] = Run.from_file(
                        path, user=user, item=item, score=run_score, name=name,
                        file_format=ranked_format(run_format, path),
                    )  # fmt: skip
            with say.progress("Comparing"):
                report = compare_runs(q, runs, metrics, profile=profile, **settings)
        else:
            if impressions is None or label is None or not score or len(score) < 2:
                raise say.fail(
                    "comparing CTR models needs --impressions, --label and at least two --score."
                )
            from ..data.io import read_table

            fmt = table_format(input_format, impressions, say)
            columns = list(dict.fromkeys([label, *score, *(c for c in (group, weight) if c)]))
            with say.progress(f"Reading {impressions}"):
                table = read_table(impressions, columns, "receval compare", fmt,
                                   id_columns=(group,) if group else ())  # fmt: skip
            metrics = list(ctr_metric) if ctr_metric else (
                list(POINTWISE) if group else ["log_loss"]
            )  # fmt: skip
            with say.progress("Comparing"):
                report = compare_predictions(
                    column(table, label), {c: column(table, c) for c in score},
                    groups=table.column(group).combine_chunks() if group else None,
                    metrics=metrics, weighting=weighting,
                    sample_weight=column(table, weight) if weight else None, **settings,
                )  # fmt: skip
        comparison_output(report, output_format, digits, detail)

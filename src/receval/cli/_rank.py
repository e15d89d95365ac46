"""``receval rank``: ranking metrics of one or more runs against qrels."""

from __future__ import annotations

from typing import Annotated

import typer

from .._registry import REGISTRY
from ..conventions import PROFILES
from ._common import (
    DEFAULT_RANK_METRICS,
    DigitsOption,
    FormatOption,
    Messages,
    QuietOption,
    RankedFormat,
    app,
    choices,
    evaluate_run,
    rank_table,
    ranked_format,
    run_names,
)
from ._output import OutputFormat, ResultTable, render, scalar


@app.command(no_args_is_help=True)
def rank(
    qrels: Annotated[
        str,
        typer.Option(
            "--qrels",
            metavar="FILE",
            help="Relevance judgments: a TREC qrels file (user 0 item grade), or a CSV, TSV "
            "or Parquet file with --user, --item and --grade columns.",
            show_default=False,
        ),
    ],
    run: Annotated[
        list[str],
        typer.Option(
            "--run",
            metavar="FILE",
            help="A run to evaluate: a TREC run file (user Q0 item rank score tag) or a CSV, "
            "TSV or Parquet file with --user, --item and --score (or --rank) columns. Repeat "
            "to compare runs; each is named by its file name.",
            show_default=False,
        ),
    ],
    metric: Annotated[
        list[str] | None,
        typer.Option(
            "--metric",
            "-m",
            metavar="METRIC",
            help="A metric string such as ndcg@10, map@100, mrr, recall@100 or "
            "'ndcg(gain=exponential)@10'; repeat for more. Default: "
            f"{', '.join(DEFAULT_RANK_METRICS)}. Names: "
            + ", ".join(sorted(n for n, info in REGISTRY.items() if info.needs == "qrels"))
            + ".",
            show_default=False,
        ),
    ] = None,
    profile: Annotated[
        str | None,
        typer.Option(
            help="Reproduce a peer's conventions: " + ", ".join(PROFILES) + ".",
            show_default=False,
        ),
    ] = None,
    per_user: Annotated[
        bool,
        typer.Option(
            "--per-user",
            help="Print each user's values (columns user, run, metrics) instead of the means.",
        ),
    ] = False,
    qrels_format: Annotated[
        RankedFormat | None,
        typer.Option(
            help="Format of --qrels. Default: from the suffix (.csv, .tsv, .parquet/.pq), "
            "else trec.",
            case_sensitive=False,
            show_default=False,
        ),
    ] = None,
    run_format: Annotated[
        RankedFormat | None,
        typer.Option(
            help="Format of every --run. Default: from the suffix, else trec.",
            case_sensitive=False,
            show_default=False,
        ),
    ] = None,
    user: Annotated[str, typer.Option(help="User id column (CSV/TSV/Parquet).")] = "user",
    item: Annotated[str, typer.Option(help="Item id column (CSV/TSV/Parquet).")] = "item",
    grade: Annotated[str, typer.Option(help="Grade column of CSV/TSV/Parquet qrels.")] = "grade",
    score: Annotated[str, typer.Option(help="Score column of CSV/TSV/Parquet runs.")] = "score",
    rank_column: Annotated[
        str | None,
        typer.Option(
            "--rank",
            help="Rank column (1 = top) of CSV/TSV/Parquet runs, used instead of --score.",
            show_default=False,
        ),
    ] = None,
    ties: Annotated[
        str | None,
        typer.Option(help=f"Order of tied scores: {choices('ties')}.", show_default=False),
    ] = None,
    gain: Annotated[
        str | None,
        typer.Option(help=f"Gain of a grade in (n)DCG: {choices('gain')}.", show_default=False),
    ] = None,
    ap_normalizer: Annotated[
        str | None,
        typer.Option(help=f"Denominator of AP: {choices('ap_normalizer')}.", show_default=False),
    ] = None,
    rel_threshold: Annotated[
        int | None,
        typer.Option(help="Grade at or above which an item is relevant.", show_default=False),
    ] = None,
    missing_users: Annotated[
        str | None,
        typer.Option(
            help=f"Qrels users absent from a run: {choices('missing_users')}.",
            show_default=False,
        ),
    ] = None,
    empty_users: Annotated[
        str | None,
        typer.Option(
            help=f"Users without a relevant item: {choices('empty_users')}.", show_default=False
        ),
    ] = None,
    ideal: Annotated[
        str | None,
        typer.Option(help=f"What the ideal DCG ranks: {choices('ideal')}.", show_default=False),
    ] = None,
    gain_grades: Annotated[
        str | None,
        typer.Option(
            help=f"Grades that earn a gain in DCG/NDCG: {choices('gain_grades')} "
            "(positive: every grade >= 1, as trec_eval's ndcg).",
            show_default=False,
        ),
    ] = None,
    zero_users: Annotated[
        str | None,
        typer.Option(
            help=f"Users whose value is 0: {choices('zero_users')} (skip: left out of the mean).",
            show_default=False,
        ),
    ] = None,
    hit_scores: Annotated[
        str | None,
        typer.Option(
            help=f"Scores that can make a hit: {choices('hit_scores')} (positive: an item "
            "scored <= 0 is never a hit, as torchmetrics).",
            show_default=False,
        ),
    ] = None,
    baseline: Annotated[
        str | None,
        typer.Option(
            metavar="NAME",
            help="With several runs: mark significance against this run (a file name); "
            "default: every pair.",
            show_default=False,
        ),
    ] = None,
    test: Annotated[
        str,
        typer.Option(
            help="With several runs: the paired test behind the significance letters "
            "(randomization, student, wilcoxon) or none. See receval compare for p-values "
            "and intervals.",
        ),
    ] = "randomization",
    permutations: Annotated[int, typer.Option(help="Sign flips of the randomization test.")] = 1000,
    output_format: FormatOption = OutputFormat.table,
    digits: DigitsOption = 4,
    quiet: QuietOption = False,
) -> None:
    """Top-K ranking metrics of one or more runs against qrels (receval.evaluate).

    Prints one row per run (named by its file name) and one column per
    metric: each metric's mean over the qrels users, exactly as
    receval.evaluate(qrels, run, metrics, ...).mean. Conventions default to
    receval's; --profile sets all of them to a peer's and the other options
    override single ones. With several runs, the table, markdown and latex
    formats add significance letters: a letter after a value names a run
    this one beats significantly (paired --test, Holm-corrected, p < 0.05).
    """
    from ..conventions import resolve_conventions
    from ..data._ranked import Qrels, Run

    say = Messages(quiet)
    metrics = list(metric) if metric else list(DEFAULT_RANK_METRICS)
    conventions = {
        "ties": ties,
        "gain": gain,
        "ap_normalizer": ap_normalizer,
        "rel_threshold": rel_threshold,
        "missing_users": missing_users,
        "empty_users": empty_users,
        "ideal": ideal,
        "gain_grades": gain_grades,
        "zero_users": zero_users,
        "hit_scores": hit_scores,
    }
    with say.guard():
        # fail on a bad metric or option before reading any file
        from .._registry import parse_metric

        for text in metrics:
            parse_metric(text)
        resolve_conventions(profile, "evaluate", **conventions)
        if test not in ("randomization", "student", "wilcoxon", "none"):
            raise say.fail(
                f"--test must be one of randomization, student, wilcoxon, none. Got {test!r}."
            )
        if baseline is not None and baseline not in run_names(run):
            raise say.fail(
                f"--baseline must name one of the runs {run_names(run)}. Got {baseline!r}."
            )
        with say.progress(f"Reading {qrels}"):
            q = Qrels.from_file(
                qrels,
                user=user,
                item=item,
                grade=grade,
                file_format=ranked_format(qrels_format, qrels),
            )
        reports = []
        for path, name in zip(run, run_names(run), strict=True):
            with say.progress(f"Reading {path}"):
                r = Run.from_file(
                    path,
                    user=user,
                    item=item,
                    score=score,
                    rank=rank_column,
                    file_format=ranked_format(run_format, path),
                    name=name,
                )
            reports.append((name, evaluate_run(q, r, name, metrics, say, profile, conventions)))
    if per_user:
        rows = [
            [scalar(u), name, *(scalar(rep.values[m][i]) for m in metrics)]
            for name, rep in reports
            for i, u in enumerate(rep.users)
        ]
        table = ResultTable(["user", "run", *metrics], rows)
    elif len(reports) > 1 and test != "none" and output_format in _LETTER_FORMATS:
        from ..comparison import compare
        from ._compare import comparison_output

        with say.guard(), say.progress("Testing differences"):
            comparison = compare(
                None, dict(reports), metrics, baseline=baseline, test=test,
                n_permutations=permutations, interval=None,
            )  # fmt: skip
        comparison_output(comparison, output_format, digits, detail=False)
        return
    else:
        table = rank_table(reports, metrics)
    render(table, output_format, digits=digits)


# formats in which ``rank`` marks significance with letters (the others keep plain numbers)
_LETTER_FORMATS = (OutputFormat.table, OutputFormat.markdown, OutputFormat.latex)

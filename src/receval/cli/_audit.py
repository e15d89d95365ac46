"""``receval audit``: the checks of an evaluation protocol (receval.audit)."""

# No ``from __future__ import annotations``: Typer reads the parameters' annotations.

from typing import Annotated, Any

import typer

from .._parameters import counted
from ._columns import columns_named
from ._common import (
    DigitsOption,
    GradeOption,
    ItemOption,
    Messages,
    ProfileOption,
    QuietOption,
    RunScoreOption,
    UserOption,
    app,
    column,
    convention,
)
from ._output import OutputFormat, ResultTable, render
from ._params import Command, metric_option, time_value
from ._translate import audit_in_cli_words


def _file(name: str, text: str) -> Any:
    return typer.Option(
        name, metavar="FILE", help=text, show_default=False, rich_help_panel="Input"
    )


@app.command("audit", cls=Command)
def audit_command(
    train: Annotated[
        str | None,
        _file(
            "--train",
            "Training interactions: a CSV, TSV or Parquet file with --user, "
            "--item and (for the temporal checks) --time columns, or TREC qrels.",
        ),
    ] = None,
    test: Annotated[
        str | None,
        _file(
            "--test",
            "Held-out interactions, as --train (the --grade column holds the grades; "
            "a file of user, item and time columns alone, grade 1 each); TREC qrels too.",
        ),
    ] = None,
    run: Annotated[
        str | None,
        _file(
            "--run",
            "A run: a TREC run file, or a CSV, TSV or Parquet file with --user, "
            "--item and --score columns.",
        ),
    ] = None,
    k: Annotated[
        int | None,
        typer.Option(
            "--k",
            min=1,
            show_default=False,
            help="Depth of the lists the evaluation reads: training items and ties count in "
            "the top k, and shorter lists are reported. Default: whole lists.",
        ),
    ] = None,
    cutoff: Annotated[
        str | None,
        typer.Option(
            metavar="TIME",
            show_default=False,
            help="The global cut-off of a temporal split (an epoch number or an ISO 8601 "
            "time, with a UTC offset for tz-aware times: 2024-01-01T00:00+01:00): test "
            "interactions before it and training ones at or after it are leaks.",
        ),
    ] = None,
    repeats: Annotated[
        bool,
        typer.Option(
            "--repeats",
            help="Declare repeat consumption: items may recur, so test pairs in train and "
            "training items in the lists are expected.",
        ),
    ] = False,
    metric: Annotated[
        list[str] | None,
        metric_option(
            "A metric whose dependence on the order of tied scores is measured; repeat for "
            "more. Default: ndcg, recall and mrr (at @k with --k).",
            "Metrics",
        ),
    ] = None,
    profile: ProfileOption = None,
    ties: Annotated[
        str | None,
        convention(
            "Order of tied scores, as receval rank's: the lists are read in the order rank "
            "ranks them (average, worst: an item is in the top k when its block of ties "
            "starts there). Default: the --profile's, else trec."
        ),
    ] = None,
    user: UserOption = "user",
    item: ItemOption = "item",
    time: Annotated[
        str | None,
        column(
            help="Time column of --train and --test (epoch numbers, datetimes or ISO 8601 "
            "text). Default: timestamp, else time, where a file has one.",
            show_default=False,
        ),
    ] = None,
    score: RunScoreOption = "score",
    grade: GradeOption = "grade",
    strict: Annotated[
        bool,
        typer.Option(
            "--strict",
            help="Exit with status 1 when a finding is an error.",
            rich_help_panel="Output",
        ),
    ] = False,
    output_format: Annotated[
        OutputFormat,
        typer.Option(
            "--format",
            "-f",
            case_sensitive=False,
            rich_help_panel="Output",
            help="Output format. table: the findings, readable (shares rounded to --digits). "
            "json: the whole audit as one object (ok, k, inputs, checks, findings with their "
            "examples and details). csv/tsv/markdown/latex: the findings table (csv and tsv "
            "at full precision).",
        ),
    ] = OutputFormat.table,
    digits: DigitsOption = 4,
    quiet: QuietOption = False,
) -> None:
    """Prints one row per finding, errors first: its severity (error, warning,
    info), the check, the inputs it concerns, how many rows, users or ids
    (count) out of how many (share), what was found and how to fix it. A
    clean protocol prints no row. The checks: temporal leaks (test before
    the user's training, or on the wrong side of --cutoff), test pairs in
    train, training items left in the lists, cold users and items, duplicate
    (user, item) rows, test users without a list, lists shorter than --k,
    tied scores and how much each metric moves between the tie rule of
    receval rank (--ties, --profile) and the ties' average, and ids of two
    types that match nothing.
    Exits with 0, or with 1 under --strict when a finding is an error (2
    for bad options or input).
    """
    from ..protocol import audit

    say = Messages(quiet)
    if train is None and test is None and run is None:
        raise say.fail("nothing to audit; pass --train, --test or --run (or several).")
    named = {user: "--user", item: "--item", time: "--time", score: "--score", grade: "--grade"}
    files = dict.fromkeys(p for p in (train, test, run) if p is not None)
    with say.guard(), columns_named(named, files=files):
        report = audit(
            train,
            test,
            run,
            k=k,
            cutoff=None if cutoff is None else time_value(cutoff),
            repeats=repeats,
            metrics=metric,
            profile=profile,
            ties=ties,
            user=user,
            item=item,
            time=time,
            score=score,
            grade=grade,
        )
    _notes(report, train, test, run, k, say)
    report = audit_in_cli_words(report, "audit")
    if output_format is OutputFormat.json:
        typer.echo(report.to_json())
    else:
        columns = ["severity", "check", "input", "count", "share", "message", "fix"]
        rows = [[r[c] for c in columns] for r in report.records()]
        table = ResultTable(columns, rows, keys=2, wrap=("message", "fix"))
        if rows or output_format is not OutputFormat.table:  # a file format: its header
            render(table, output_format, digits=digits)
    if strict and not report.ok:
        raise typer.Exit(1)


def _notes(report: Any, train: Any, test: Any, run: Any, k: Any, say: Messages) -> None:
    """What did not run and why, then the tally."""
    if train is not None and test is not None and "temporal_leak" not in report.checks:
        say.note(
            "no temporal check: --train and --test need a time column (--time, or one named "
            "timestamp or time)."
        )
    if run is not None and k is None:
        say.note(
            "no check of list lengths, and training items and ties count in whole lists: pass --k."
        )
    counts = {s: sum(f.severity == s for f in report.findings) for s in ("error", "warning")}
    if not report.findings:
        say.note(
            f"no finding: the protocol passes the {counted(len(report.checks), 'check')} that ran."
        )
    else:
        notes = len(report.findings) - sum(counts.values())
        say.note(
            f"{counted(len(report.findings), 'finding')}: {counted(counts['error'], 'error')}, "
            f"{counted(counts['warning'], 'warning')}, {counted(notes, 'note')}."
        )

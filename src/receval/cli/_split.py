"""``receval split``: train and test files from an interaction log (receval.split)."""

# No ``from __future__ import annotations``: Typer reads the parameters' annotations.

import os
from enum import Enum
from typing import Annotated, Any

import typer

from .._parameters import counted
from ._common import ItemOption, QuietOption, UserOption, app
from ._output import OutputFormat, ResultTable, render
from ._params import CLICK, Command, table_argument
from ._streams import Messages


class SplitMethod(str, Enum):
    temporal = "temporal"
    leave_last_out = "leave-last-out"
    ratio = "ratio"
    random = "random"


#: the suffixes the parts may be written with
_SUFFIXES = (".parquet", ".pq", ".csv")

_PANEL = "Split"
#: each option of one or some methods (its parameter's name): the methods that take it
_METHODS_OF: dict[str, tuple[str, ...]] = {
    "n": ("leave-last-out", "random"),
    "cutoff": ("temporal",),
    "quantile": ("temporal",),
    "test_fraction": ("ratio", "random"),
    "train_fraction": ("ratio", "random"),
    "seed": ("random",),
    "min_train": ("leave-last-out",),
    "short": ("leave-last-out",),
    "rounding": ("ratio", "random"),
    "min_interactions": ("ratio", "random"),
}


def _number_or_text(value: str) -> Any:
    """A cut-off as given: an int or float when it reads as one, else the text (a date)."""
    for kind in (int, float):
        try:
            return kind(value)
        except ValueError:
            pass
    return value


def _write(table: Any, path: str) -> None:
    """An Arrow table to a Parquet or CSV file (by the suffix)."""
    if path.lower().endswith(".csv"):
        import pyarrow.csv as pcsv

        pcsv.write_csv(table, path)
    else:
        import pyarrow.parquet as pq

        pq.write_table(table, path)


def _counts_line(result: Any) -> str:
    """The note on stderr (``-f table``): sizes, and what was dropped or left cold."""
    r = result
    return (
        f"{r.method}: {counted(r.n_rows, 'row')}, {counted(r.n_users, 'user')}, "
        f"{counted(r.n_items, 'item')} -> train {counted(r.n_train_rows, 'row')} "
        f"({counted(r.n_train_users, 'user')}), test {counted(r.n_test_rows, 'row')} "
        f"({counted(r.n_test_users, 'user')}); dropped {counted(r.n_users_dropped, 'user')} "
        f"({counted(r.n_rows_dropped, 'row')}); {counted(r.n_users_without_test, 'user')} "
        f"without test; cold in test: {counted(r.n_cold_users, 'user')}, "
        f"{counted(r.n_cold_items, 'item')} ({counted(r.n_test_rows_cold_items, 'row')})."
    )


@app.command("split", cls=Command)
def split_command(
    file: Annotated[str, table_argument("Interaction log", "interaction")],
    method: Annotated[
        SplitMethod,
        typer.Option(help="The split (receval.split's functions).", case_sensitive=False),
    ] = SplitMethod.leave_last_out,
    train: Annotated[
        str,
        typer.Option(
            "--train", "-o", metavar="PATH", help="Train file to write (.parquet or .csv)."
        ),
    ] = "train.parquet",
    test: Annotated[
        str,
        typer.Option("--test", "-O", metavar="PATH", help="Test file to write (.parquet or .csv)."),
    ] = "test.parquet",
    n: Annotated[
        int | None,
        typer.Option(
            "--n",
            help="Interactions held out per user (leave-last-out: default 1; random).",
            rich_help_panel=_PANEL,
            show_default=False,
        ),
    ] = None,
    cutoff: Annotated[
        str | None,
        typer.Option(
            metavar="TIME",
            help="temporal: the first time of the test (a number, or an ISO date for "
            "datetime columns).",
            rich_help_panel=_PANEL,
        ),
    ] = None,
    quantile: Annotated[
        float | None,
        typer.Option(help="temporal: cut at this quantile of time.", rich_help_panel=_PANEL),
    ] = None,
    test_fraction: Annotated[
        float | None,
        typer.Option(help="ratio, random: share of each user held out.", rich_help_panel=_PANEL),
    ] = None,
    train_fraction: Annotated[
        float | None,
        typer.Option(help="ratio, random: share of each user kept.", rich_help_panel=_PANEL),
    ] = None,
    seed: Annotated[
        int | None, typer.Option(help="random: the seed.", rich_help_panel=_PANEL)
    ] = None,
    min_train: Annotated[
        int,
        typer.Option(help="leave-last-out: train rows a user needs.", rich_help_panel=_PANEL),
    ] = 1,
    short: Annotated[
        str,
        typer.Option(
            metavar="[train|drop|test]",
            help="leave-last-out: where the rows of users with too few go.",
            rich_help_panel=_PANEL,
        ),
    ] = "train",
    rounding: Annotated[
        str,
        typer.Option(
            metavar="[half_even|floor]",
            help="ratio, random: how a share of a user's rows is rounded.",
            rich_help_panel=_PANEL,
        ),
    ] = "half_even",
    min_interactions: Annotated[
        int,
        typer.Option(
            help="ratio, random: users with fewer rows are dropped.", rich_help_panel=_PANEL
        ),
    ] = 1,
    user: UserOption = "user",
    item: ItemOption = "item",
    time: Annotated[
        str | None,
        typer.Option(
            metavar="COL",
            help="Column of times (numbers, datetimes or ISO 8601 text); default: "
            "timestamp, else time.",
            show_default=False,
        ),
    ] = None,
    output_format: Annotated[
        OutputFormat,
        typer.Option(
            "--format",
            "-f",
            case_sensitive=False,
            rich_help_panel="Output",
            help="Output format of the counts. table: a note on stderr (nothing on stdout). "
            "json: one object on stdout (train, test, method and the counts of "
            "receval.split's summary()). csv/tsv/markdown/latex: those fields as a one-row "
            "table on stdout.",
        ),
    ] = OutputFormat.table,
    quiet: QuietOption = False,
) -> None:
    """temporal and leave-last-out read the log in batches (bounded memory: a
    log larger than memory is split in two passes); ratio and random read it
    whole. Ties in time: the log's row order (the later row is later). The
    counts (users and rows dropped, users without test, cold users and items)
    go to stderr as a note, or to stdout with -f json, csv, tsv, markdown or
    latex.
    """
    from .. import split
    from ..data.scan import scan
    from ..report.html import check_target

    say = Messages(quiet)
    for path in (train, test):
        if not path.lower().endswith(_SUFFIXES):
            raise say.fail(
                f"cannot tell the format to write {path!r} in; name it .parquet or .csv."
            )
    if os.path.abspath(train) == os.path.abspath(test):
        raise say.fail(f"--train and --test name the same file {train!r}; name two files.")
    ctx = CLICK.globals.get_current_context()
    for name, methods in _METHODS_OF.items():  # an option given that the method ignores
        given = ctx.get_parameter_source(name) is CLICK.core.ParameterSource.COMMANDLINE
        if given and method.value not in methods:
            raise say.fail(
                f"--{name.replace('_', '-')} applies to --method {' and '.join(methods)}, "
                f"not {method.value}; drop it or pick one of those methods."
            )
    columns: dict[str, Any] = {"user": user, "item": item, "time": time}
    with say.guard():
        for option, path in (("--train", train), ("--test", test)):  # not over the log
            check_target(path, [file], f"receval split {option}")
        if method is SplitMethod.temporal:
            result = split.temporal(
                scan(file), None if cutoff is None else _number_or_text(cutoff),
                quantile=quantile, train_path=train, test_path=test, **columns,
            )  # fmt: skip
        elif method is SplitMethod.leave_last_out:
            result = split.leave_last_out(
                scan(file), 1 if n is None else n, min_train=min_train, short=short,
                train_path=train, test_path=test, **columns,
            )  # fmt: skip
        else:
            if method is SplitMethod.ratio:
                result = split.ratio(
                    file, test_fraction, train_fraction=train_fraction, rounding=rounding,
                    min_interactions=min_interactions, **columns,
                )  # fmt: skip
            else:
                if seed is None:
                    raise say.fail("--method random needs --seed (e.g. --seed 0).")
                result = split.random_holdout(
                    file, test_fraction, n=n, train_fraction=train_fraction, seed=seed,
                    rounding=rounding, min_interactions=min_interactions, **columns,
                )  # fmt: skip
            _write(result.train, train)
            _write(result.test, test)
    if output_format is OutputFormat.table:
        say.note(_counts_line(result))
    else:  # the counts once: on stdout, not again in a note
        _print_counts(result, train, test, output_format)


def _print_counts(result: Any, train: str, test: str, fmt: OutputFormat) -> None:
    """The files written and the counts on stdout: one JSON object, or a one-row table."""
    record = {"train": train, "test": test, **result.summary()}
    del record["fold"]  # None: no method of the command folds
    if fmt is OutputFormat.json:
        import json

        typer.echo(json.dumps(record))
    else:
        render(ResultTable(list(record), [list(record.values())], keys=2), fmt)

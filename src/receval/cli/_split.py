"""``receval split``: train and test files from an interaction log (receval.split)."""

# No ``from __future__ import annotations``: Typer reads the parameters' annotations.

import datetime as dt
import os
import re
from enum import Enum
from typing import Annotated, Any

import typer

from .._parameters import counted
from ..exceptions import InvalidParameterError
from ..report.json_values import dumps
from ._common import ItemOption, QuietOption, UserOption, app
from ._output import OutputFormat, ResultTable, render
from ._params import CLICK, Command, table_argument, time_value
from ._streams import Messages


class SplitMethod(str, Enum):
    temporal = "temporal"
    leave_last_out = "leave-last-out"
    ratio = "ratio"
    random = "random"
    user_kfold = "user-kfold"
    rolling = "rolling"


#: the methods that make several folds: one train and one test file each
_FOLDED = (SplitMethod.user_kfold, SplitMethod.rolling)


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
    "seed": ("random", "user-kfold"),
    "k": ("user-kfold",),
    "cutoffs": ("rolling",),
    "end": ("rolling",),
    "train_window": ("rolling",),
    "min_train": ("leave-last-out",),
    "short": ("leave-last-out",),
    "rounding": ("ratio", "random"),
    "min_interactions": ("ratio", "random"),
}


def _cutoffs(text: str, say: Messages) -> list[Any]:
    """``"100,200"`` or ``"2024-01-01,2024-02-01"`` to the cut-offs (the library checks
    their order and kind)."""
    parts = [part.strip() for part in text.split(",")]
    if not all(parts):
        raise say.fail(
            f"--cutoffs must be comma-separated times such as 100,200 or "
            f"2024-01-01,2024-02-01. Got {text!r} instead."
        )
    return [time_value(part) for part in parts]


#: the units of a span of time (``--train-window 30d``): ``datetime.timedelta``'s
_SPAN_UNITS = {"w": "weeks", "d": "days", "h": "hours", "min": "minutes", "s": "seconds",
               "ms": "milliseconds", "us": "microseconds"}  # fmt: skip


def _window(text: str, say: Messages) -> Any:
    """``--train-window``: a number (numeric times), or a span such as ``30d`` as a
    ``datetime.timedelta`` (datetimes); the library checks it against the column."""
    number = time_value(text)  # an integer read exactly, as the times are
    if not isinstance(number, str):
        return number
    match = re.fullmatch(r"\s*(\d+)\s*([a-z]+)\s*", text)
    if match is None or match[2] not in _SPAN_UNITS or not int(match[1]):
        raise say.fail(
            f"--train-window must be a number, or a positive span of time such as 30d, 12h, "
            f"90min or 45s (units: {', '.join(_SPAN_UNITS)}). Got {text!r} instead."
        )
    return dt.timedelta(**{_SPAN_UNITS[match[2]]: int(match[1])})


def _window_refused(text: Any, window: Any) -> str:
    """The error of a ``--train-window`` of the other kind than the log's times, in the
    words it was given in (the library names the value it was handed)."""
    if isinstance(window, dt.timedelta):
        return (
            f"--train-window must be a number, as the time column holds numbers. Got "
            f"{text!r}; give the window in the times' units, e.g. --train-window 86400 for a "
            f"day of Unix seconds."
        )
    return (
        f"--train-window must be a span of time, as the time column holds datetimes. Got "
        f"{text!r}; give e.g. --train-window 30d (units: {', '.join(_SPAN_UNITS)})."
    )


def fold_path(path: str, fold: int) -> str:
    """The file of one fold: ``path`` with ``-fold`` before its suffix.

    Examples
    --------
    >>> fold_path("out/train.parquet", 2)
    'out/train-2.parquet'
    """
    stem, suffix = os.path.splitext(path)
    return f"{stem}-{fold}{suffix}"


def _write(table: Any, path: str, option: str) -> None:
    """An Arrow table to a Parquet or CSV file (by the suffix), the file of ``option``."""
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    try:
        if path.lower().endswith(".csv"):
            pcsv.write_csv(table, path)
        else:
            pq.write_table(table, path)
    except OSError as error:
        from ..split._stream import unwritable

        raise unwritable(f"receval split: {option}", path, error) from None


def _counts_line(result: Any) -> str:
    """The note on stderr (``-f table``): sizes, and what was dropped or left cold."""
    r = result
    name = r.method if r.fold is None else f"{r.method} fold {r.fold}"
    return (
        f"{name}: {counted(r.n_rows, 'row')}, {counted(r.n_users, 'user')}, "
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
            "datetime columns, with a UTC offset for tz-aware ones: 2024-01-01T00:00+01:00).",
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
        int | None,
        typer.Option(help="random, user-kfold: the seed (required).", rich_help_panel=_PANEL),
    ] = None,
    k: Annotated[
        int,
        typer.Option(
            "--k",
            help="user-kfold: folds; each holds out all rows of its share of the users.",
            rich_help_panel=_PANEL,
        ),
    ] = 5,
    cutoffs: Annotated[
        str | None,
        typer.Option(
            metavar="TIME,TIME,...",
            help="rolling: increasing cut-offs, one per fold (numbers, or ISO dates for "
            "datetime columns); fold i trains before the i-th and tests up to the next.",
            rich_help_panel=_PANEL,
        ),
    ] = None,
    end: Annotated[
        str | None,
        typer.Option(
            metavar="TIME",
            help="rolling: the end of the last fold's test (excluded); default: the end of "
            "the log.",
            rich_help_panel=_PANEL,
        ),
    ] = None,
    train_window: Annotated[
        str | None,
        typer.Option(
            metavar="N|SPAN",
            help="rolling: train on this span before each cut-off only: a number for "
            "numeric times (seconds of Unix times), a span such as 30d, 12h, 90min or 45s "
            "for datetimes; default: all earlier rows.",
            rich_help_panel=_PANEL,
        ),
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
            "table on stdout. user-kfold and rolling: a note, an object of a JSON list, or "
            "a table row per fold, with its fold.",
        ),
    ] = OutputFormat.table,
    quiet: QuietOption = False,
) -> None:
    """temporal and leave-last-out read the log in batches (bounded memory: a
    log larger than memory is split in two passes); ratio, random, user-kfold
    and rolling read it whole. FILE may be a directory of Parquet files, for
    every method (its files as receval.scan finds them; key=value
    subdirectories, hive partitions, as columns). user-kfold and
    rolling make several folds and write each fold's parts to the -o and -O
    paths with the fold's number before the suffix (train-0.parquet,
    test-0.parquet, train-1.parquet, ...).
    Ties in time: the log's row order (the later row is later). The counts
    (users and rows dropped, users without test, cold users and items) go to
    stderr as a note (one per fold), or to stdout with -f json, csv, tsv,
    markdown or latex.
    """
    from .. import split
    from ..data.scan import scan
    from ..report.html import check_target

    say = Messages(quiet)
    for option, path, part in (("-o/--train", train, "train"), ("-O/--test", test, "test")):
        if path == "-":  # not standard output: the parts are files of a format, and folds
            raise say.fail(
                f"{option} must name a .parquet or .csv file; split writes its parts to "
                f"files, not to standard output. Got '-'; name a file, e.g. "
                f"{option[:2]} {part}.csv."
            )
        if not path.lower().endswith(_SUFFIXES):
            raise say.fail(
                f"{option} must name a .parquet or .csv file (its format). Got {path!r}; "
                f"name it e.g. {os.path.splitext(path)[0]}.parquet."
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
    if seed is None and method in (SplitMethod.random, SplitMethod.user_kfold):
        raise say.fail(f"--method {method.value} needs --seed (e.g. --seed 0).")
    if cutoffs is None and method is SplitMethod.rolling:
        raise say.fail("--method rolling needs --cutoffs (e.g. --cutoffs 100,200).")
    times = None if cutoffs is None else _cutoffs(cutoffs, say)
    window = None if train_window is None else _window(train_window, say)
    n_folds = {SplitMethod.user_kfold: k, SplitMethod.rolling: len(times or ())}.get(method)
    paths = (
        [(train, test)]
        if n_folds is None
        else [(fold_path(train, i), fold_path(test, i)) for i in range(n_folds)]
    )
    columns: dict[str, Any] = {"user": user, "item": item, "time": time}
    with say.guard():
        for option, i in (("--train", 0), ("--test", 1)):  # not over the log
            for pair in paths:
                check_target(pair[i], [file], f"receval split {option}")
        if method is SplitMethod.temporal:
            results = [split.temporal(
                scan(file), None if cutoff is None else time_value(cutoff),
                quantile=quantile, train_path=train, test_path=test, **columns,
            )]  # fmt: skip
        elif method is SplitMethod.leave_last_out:
            results = [split.leave_last_out(
                scan(file), 1 if n is None else n, min_train=min_train, short=short,
                train_path=train, test_path=test, **columns,
            )]  # fmt: skip
        else:
            if method is SplitMethod.ratio:
                results = [split.ratio(
                    file, test_fraction, train_fraction=train_fraction, rounding=rounding,
                    min_interactions=min_interactions, **columns,
                )]  # fmt: skip
            elif method is SplitMethod.random:
                results = [split.random_holdout(
                    file, test_fraction, n=n, train_fraction=train_fraction, seed=seed,
                    rounding=rounding, min_interactions=min_interactions, **columns,
                )]  # fmt: skip
            elif method is SplitMethod.user_kfold:
                results = list(split.user_kfold(file, k, seed=seed, **columns))
            else:
                try:
                    results = split.rolling(
                        file, times or [], end=None if end is None else time_value(end),
                        train_window=window, **columns,
                    )  # fmt: skip
                except InvalidParameterError as e:
                    if not re.match(r"The 'train_window' .* as the time column holds", str(e)):
                        raise
                    raise say.fail(_window_refused(train_window, window)) from None
            for result, (train_file, test_file) in zip(results, paths, strict=True):
                _write(result.train, train_file, "--train")
                _write(result.test, test_file, "--test")
    if output_format is OutputFormat.table:
        for result in results:
            say.note(_counts_line(result))
    else:  # the counts once: on stdout, not again in a note
        _print_counts(results, paths, output_format, folded=method in _FOLDED)


def _print_counts(
    results: list[Any], paths: list[tuple[str, str]], fmt: OutputFormat, folded: bool
) -> None:
    """The files written and the counts on stdout: one JSON object (a list of them, one
    a fold, for the methods that fold), or a table of one row a fold."""
    records = []
    for result, (train, test) in zip(results, paths, strict=True):
        record = {"train": train, "test": test, **result.summary()}
        if not folded:
            del record["fold"]  # None: the method makes one split
        records.append(record)
    if fmt is OutputFormat.json:
        typer.echo(dumps(records if folded else records[0]))
    else:
        rows = [list(record.values()) for record in records]
        render(ResultTable(list(records[0]), rows, keys=2), fmt)

"""What the commands of ``receval`` share: the app, option declarations, messages, input helpers.

No metric is computed here: the commands call the library and render its results.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from enum import Enum
from typing import Annotated, Any

import typer

from .. import __version__
from ..conventions import CHOICES
from ._output import OutputFormat, ResultTable

__all__ = [
    "DEFAULT_CTR_METRICS",
    "DEFAULT_RANK_METRICS",
    "DigitsOption",
    "FormatOption",
    "Messages",
    "QuietOption",
    "RankedFormat",
    "RetentionTable",
    "RetentionValues",
    "TableFormat",
    "app",
    "choices",
    "column",
    "ctr_metrics",
    "ctr_rows",
    "evaluate_run",
    "main",
    "one_line",
    "parse_days",
    "rank_table",
    "ranked_format",
    "retention_columns",
    "retention_notes",
    "run_names",
    "table_format",
]


#: Metrics of ``receval rank`` when no ``-m`` is given.
DEFAULT_RANK_METRICS = ("ndcg@10", "map@100", "mrr", "recall@100", "precision@10")

#: Metrics of ``receval ctr`` when no ``-m`` is given (``gauc`` only with ``--group``).
DEFAULT_CTR_METRICS = ("auc", "gauc", "logloss", "pcoc")

app = typer.Typer(
    name="receval",
    help="Offline evaluation of recommender systems and CTR models.\n\n"
    "Results go to stdout (a table, or --format json/csv/tsv/markdown); notes, warnings "
    "and errors go to stderr. Bad options or bad input exit with status 2.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


class RankedFormat(str, Enum):
    """File formats of qrels and runs."""

    trec = "trec"
    csv = "csv"
    tsv = "tsv"
    parquet = "parquet"


class TableFormat(str, Enum):
    """File formats of impression and event logs."""

    csv = "csv"
    tsv = "tsv"
    parquet = "parquet"


class RetentionTable(str, Enum):
    """Which retention table ``receval retention`` prints."""

    period = "period"
    cohort = "cohort"
    full = "full"


class RetentionValues(str, Enum):
    """Rates or user counts in the full retention table."""

    rate = "rate"
    count = "count"


def choices(name: str) -> str:
    return ", ".join(CHOICES[name])


# ------------------------------------------------------------------ options shared by commands
FormatOption = Annotated[
    OutputFormat,
    typer.Option(
        "--format",
        "-f",
        help="Output format. table: a readable table (values rounded to --digits). json: a "
        'list of records, one object per table row, e.g. [{"run": "a.run", "ndcg@10": '
        "0.41, ...}], floats at full precision, null where a value is undefined (nan). "
        "csv/tsv: a header line then one line per row, floats at full precision, nan where "
        "undefined. markdown: a GitHub table rounded to --digits.",
        case_sensitive=False,
    ),
]

DigitsOption = Annotated[
    int,
    typer.Option(
        "--digits", min=0, max=17, help="Decimals shown in the table and markdown formats."
    ),
]

QuietOption = Annotated[
    bool,
    typer.Option(
        "--quiet",
        "-q",
        help="Print no notes, warnings or progress on stderr (errors are still printed).",
    ),
]


# ------------------------------------------------------------------ messages and errors
class Messages:
    """Notes, warnings, progress and errors on stderr; ``quiet`` silences all but errors."""

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet

    def note(self, text: str) -> None:
        if not self.quiet:
            typer.echo(f"note: {text}", err=True)

    def warning(self, text: str) -> None:
        if not self.quiet:
            typer.echo(f"warning: {text}", err=True)

    @staticmethod
    def error(text: str) -> None:
        typer.echo(f"error: {text}", err=True)

    def fail(self, text: str) -> typer.Exit:
        """Print ``error: text`` and return the exit (status 2) to raise."""
        self.error(text)
        return typer.Exit(code=2)

    def progress(self, text: str) -> AbstractContextManager[Any]:
        """A spinner on stderr, only when stderr is a terminal and not quiet."""
        stream = sys.stderr
        if self.quiet or not (hasattr(stream, "isatty") and stream.isatty()):
            return nullcontext()
        from rich.console import Console

        return Console(file=stream).status(text)

    @contextmanager
    def guard(self) -> Iterator[None]:
        """Turn receval, file and Arrow errors into ``error: <message>`` and exit 2.

        Warnings raised meanwhile (e.g. ``UndefinedMetricWarning``) are printed
        as ``warning: <message>`` lines, once each.
        """
        import pyarrow as pa

        from ..exceptions import RecevalError, UndefinedMetricWarning

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", UndefinedMetricWarning)
            try:
                yield
            except (RecevalError, OSError, pa.ArrowException) as exc:
                self._warnings(caught)
                raise self.fail(one_line(exc)) from None
        self._warnings(caught)

    def _warnings(self, caught: list[warnings.WarningMessage]) -> None:
        seen: set[str] = set()
        for w in caught:
            text = one_line(w.message)
            if text not in seen:
                seen.add(text)
                self.warning(text)
        caught.clear()


def one_line(exc: BaseException | Warning | str) -> str:
    text = " ".join(str(exc).split("\n")).strip()
    if isinstance(exc, OSError) and exc.filename is not None and exc.strerror:
        text = f"{exc.filename}: {exc.strerror}."
    return text or type(exc).__name__


def _version(value: bool) -> None:
    if value:
        typer.echo(f"receval {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Offline evaluation of recommender systems and CTR models."""


def main() -> None:
    """Run the ``receval`` command (the console-script entry point)."""
    app(prog_name="receval")


# ------------------------------------------------------------------ rank
def ranked_format(fmt: RankedFormat | None, path: str) -> str:
    """The given format, else the suffix's, else TREC (run files often have no suffix)."""
    from ..data.io import infer_format

    if fmt is not None:
        return fmt.value
    return infer_format(path) or "trec"


def run_names(paths: list[str]) -> list[str]:
    """File names, or the paths as given when two runs share a file name."""
    names = [os.path.basename(os.path.normpath(p)) for p in paths]
    if len(set(names)) < len(names):
        names = list(paths)
    return names


def evaluate_run(
    qrels: Any,
    run: Any,
    name: str,
    metrics: list[str],
    say: Messages,
    profile: str | None = None,
    conventions: dict[str, Any] | None = None,
) -> Any:
    """``receval.evaluate`` of one run, with notes on users in only one of qrels and run."""
    from ..evaluation import evaluate

    with say.progress(f"Evaluating {name}"):
        report = evaluate(qrels, run, metrics, profile=profile, **(conventions or {}))
    if report.n_users_missing:
        say.note(
            f"{name}: {report.n_users_missing} of {report.n_users} qrels users are "
            f"absent from the run."
        )
    if report.n_run_only_users:
        say.note(f"{name}: {report.n_run_only_users} run users are not in the qrels (ignored).")
    for metric in metrics:
        skipped = report.n_users_skipped[metric]
        if skipped:
            empty = report.n_users_empty[metric]
            say.note(
                f"{name}: {metric} leaves {skipped} of {report.n_users} users out of its mean "
                f"({empty} without a relevant item; see --missing-users and --empty-users)."
            )
    return report


def rank_table(
    reports: list[tuple[str, Any]], metrics: list[str], title: str | None = None
) -> ResultTable:
    """One row per run: its name and the mean of each metric, with the counts."""
    from ..report import ranking_records

    records = ranking_records(dict(reports), metrics)
    columns = ["run", *metrics]
    rows = [[record[c] for c in columns] for record in records]
    return ResultTable(columns, rows, title=title, counts=[r["counts"] for r in records])


# ------------------------------------------------------------------ ctr
def table_format(fmt: TableFormat | None, path: str, say: Messages) -> str:
    """The given format, else the suffix's; an error when neither tells."""
    from ..data.io import infer_format

    if fmt is not None:
        return fmt.value
    found = infer_format(path)
    if found in ("csv", "tsv", "parquet") or not os.path.exists(path):
        return found or "csv"  # a missing file is reported by the reader
    raise say.fail(
        f"cannot tell the format of {path!r} from its suffix; pass --input-format csv, tsv "
        f"or parquet."
    )


def column(table: Any, name: str) -> Any:
    """A numeric Arrow column as a NumPy array (nulls become nan)."""
    return table.column(name).to_numpy()


def ctr_metrics(metric: list[str] | None, group: str | None, say: Messages) -> dict[str, Any]:
    """The pointwise metrics asked for (default: DEFAULT_CTR_METRICS), by name."""
    from ..registry import pointwise_metric

    if metric:
        names = [m.strip().lower() for m in metric]
    else:
        names = [m for m in DEFAULT_CTR_METRICS if group is not None or m != "gauc"]
    metrics = {name: pointwise_metric(name) for name in dict.fromkeys(names)}
    for name, spec in metrics.items():
        if spec.needs_group and group is None:
            raise say.fail(
                f"metric {name!r} needs groups; pass --group COL (e.g. the user id column)."
            )
    return metrics


def ctr_rows(
    y_true: Any,
    scores: list[tuple[str, Any]],
    metrics: dict[str, Any],
    groups: Any,
    sample_weight: Any,
    say: Messages,
) -> list[tuple[list[Any], dict[str, Any]]]:
    """Per score column, the row ``[name, value, ...]`` (values as the library returns them)
    and the counts of what a metric left out (``{metric: {...}}``), noted on stderr."""
    from ..exceptions import RecevalError

    rows = []
    for col, y_score in scores:
        row: list[Any] = [col]
        row_counts: dict[str, Any] = {}
        for name, spec in metrics.items():
            with say.progress(f"Computing {name} of {col}"):
                try:
                    args = (y_true, y_score)
                    kwargs = {
                        "groups": groups if spec.needs_group else None,
                        "sample_weight": sample_weight,
                    }
                    if spec.counted is not None:
                        value, counts = spec.counted(*args, **kwargs)
                        row_counts[name] = counts
                    else:
                        value = spec.func(*args, **kwargs)
                except RecevalError as exc:  # name the column: the message names y_score
                    raise say.fail(f"{name} of --score {col}: {one_line(exc)}") from None
            row.append(value)
        for name, counts in row_counts.items():
            if counts.get("n_groups_skipped"):
                say.note(
                    f"{col}: {name} skips {counts['n_groups_skipped']} of {counts['n_groups']} "
                    f"groups ({counts['n_rows_skipped']} rows) without both a click and a "
                    f"non-click."
                )
        rows.append((row, row_counts))
    return rows


# ------------------------------------------------------------------ retention
def parse_days(text: str, say: Messages) -> list[int]:
    """``"1,3,7,30"`` to ``[1, 3, 7, 30]``; the library checks the values."""
    try:
        return [int(part) for part in text.split(",")]
    except ValueError:
        raise say.fail(
            f"--days must be comma-separated integers such as 1,3,7,30. Got {text!r} instead."
        ) from None


def retention_columns(
    report: Any, table: RetentionTable, values: RetentionValues
) -> dict[str, Any]:
    """The columns of one retention table (see ``receval retention --table``)."""
    columns: dict[str, Any]
    if table is RetentionTable.period:
        columns = {
            "period": report.periods,
            "new_users": report.new_users,
            "login_users": report.login_users,
            "active_users": report.active_users,
            "retention_rate": report.retention_rate,
        }
    elif table is RetentionTable.cohort:
        columns = {"cohort": report.periods, "new_users": report.new_users}
        for j, n in enumerate(report.days):
            columns[f"{report.period}_{n}"] = report.day_n_retention[:, j]
    else:
        full = report.cohort_retention if values is RetentionValues.rate else report.cohort_counts
        columns = {"cohort": report.periods, "new_users": report.new_users}
        for k in range(report.n_periods):
            columns[f"{report.period}_{k}"] = full[:, k]
    return columns


def retention_notes(report: Any, say: Messages) -> None:
    if report.time_unit_inferred:
        unit = {"s": "seconds", "ms": "milliseconds"}.get(report.time_unit or "", "")
        say.note(f"epoch times read as {unit} from their magnitude; --time-unit sets the unit.")
    if report.n_events_dropped:
        say.note(f"{report.n_events_dropped} events before their user's signup were dropped.")

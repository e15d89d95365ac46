"""The ``receval`` command: ``rank``, ``ctr``, ``retention``, ``report`` and ``demo`` subcommands.

Thin by design: each command parses its options, calls the library
(:func:`receval.evaluate`, the pointwise metrics of
:data:`receval._registry.POINTWISE_METRICS`, :func:`receval.retention`) and
formats the result with :mod:`receval.cli._output`; ``report`` and ``demo``
also draw :mod:`receval.plot` figures into a :class:`receval.report.HTMLReport`.
Results go to stdout; notes, warnings, progress and errors go to stderr. Errors raised by receval
(bad data, bad options, unreadable files) print ``error: <message>`` on one
line and exit with status 2, like usage errors.
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
from .._registry import POINTWISE_METRICS, REGISTRY
from ..conventions import CHOICES, PROFILES
from ._output import OutputFormat, ResultTable, render, render_sections, rows_of, scalar

__all__ = [
    "DEFAULT_CTR_METRICS",
    "DEFAULT_RANK_METRICS",
    "REPORT_AT_K_METRICS",
    "REPORT_COHORTS",
    "app",
    "main",
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


def _choices(name: str) -> str:
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
class _Messages:
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
                raise self.fail(_one_line(exc)) from None
        self._warnings(caught)

    def _warnings(self, caught: list[warnings.WarningMessage]) -> None:
        seen: set[str] = set()
        for w in caught:
            text = _one_line(w.message)
            if text not in seen:
                seen.add(text)
                self.warning(text)
        caught.clear()


def _one_line(exc: BaseException | Warning | str) -> str:
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
def _ranked_format(fmt: RankedFormat | None, path: str) -> str:
    """The given format, else the suffix's, else TREC (run files often have no suffix)."""
    from ..data.io import infer_format

    if fmt is not None:
        return fmt.value
    return infer_format(path) or "trec"


def _run_names(paths: list[str]) -> list[str]:
    """File names, or the paths as given when two runs share a file name."""
    names = [os.path.basename(os.path.normpath(p)) for p in paths]
    if len(set(names)) < len(names):
        names = list(paths)
    return names


def _evaluate_run(
    qrels: Any,
    run: Any,
    name: str,
    metrics: list[str],
    say: _Messages,
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


def _rank_counts(report: Any, metrics: list[str]) -> dict[str, Any]:
    """What the rules left out of one run's means (the ``counts`` of json/csv output)."""
    return {
        "n_users": int(report.n_users),
        "n_users_missing": int(report.n_users_missing),
        "n_run_only_users": int(report.n_run_only_users),
        "n_users_skipped": {m: int(report.n_users_skipped[m]) for m in metrics},
        "n_users_empty": {m: int(report.n_users_empty[m]) for m in metrics},
    }


def _rank_table(
    reports: list[tuple[str, Any]], metrics: list[str], title: str | None = None
) -> ResultTable:
    """One row per run: its name and the mean of each metric, with the counts."""
    rows = [[name, *(rep.mean[m] for m in metrics)] for name, rep in reports]
    counts = [_rank_counts(rep, metrics) for _, rep in reports]
    return ResultTable(["run", *metrics], rows, title=title, counts=counts)


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
        typer.Option(help=f"Order of tied scores: {_choices('ties')}.", show_default=False),
    ] = None,
    gain: Annotated[
        str | None,
        typer.Option(help=f"Gain of a grade in (n)DCG: {_choices('gain')}.", show_default=False),
    ] = None,
    ap_normalizer: Annotated[
        str | None,
        typer.Option(help=f"Denominator of AP: {_choices('ap_normalizer')}.", show_default=False),
    ] = None,
    rel_threshold: Annotated[
        int | None,
        typer.Option(help="Grade at or above which an item is relevant.", show_default=False),
    ] = None,
    missing_users: Annotated[
        str | None,
        typer.Option(
            help=f"Qrels users absent from a run: {_choices('missing_users')}.",
            show_default=False,
        ),
    ] = None,
    empty_users: Annotated[
        str | None,
        typer.Option(
            help=f"Users without a relevant item: {_choices('empty_users')}.", show_default=False
        ),
    ] = None,
    ideal: Annotated[
        str | None,
        typer.Option(help=f"What the ideal DCG ranks: {_choices('ideal')}.", show_default=False),
    ] = None,
    gain_grades: Annotated[
        str | None,
        typer.Option(
            help=f"Grades that earn a gain in DCG/NDCG: {_choices('gain_grades')} "
            "(positive: every grade >= 1, as trec_eval's ndcg).",
            show_default=False,
        ),
    ] = None,
    zero_users: Annotated[
        str | None,
        typer.Option(
            help=f"Users whose value is 0: {_choices('zero_users')} (skip: left out of the mean).",
            show_default=False,
        ),
    ] = None,
    hit_scores: Annotated[
        str | None,
        typer.Option(
            help=f"Scores that can make a hit: {_choices('hit_scores')} (positive: an item "
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

    say = _Messages(quiet)
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
        if baseline is not None and baseline not in _run_names(run):
            raise say.fail(
                f"--baseline must name one of the runs {_run_names(run)}. Got {baseline!r}."
            )
        with say.progress(f"Reading {qrels}"):
            q = Qrels.from_file(
                qrels,
                user=user,
                item=item,
                grade=grade,
                file_format=_ranked_format(qrels_format, qrels),
            )
        reports = []
        for path, name in zip(run, _run_names(run), strict=True):
            with say.progress(f"Reading {path}"):
                r = Run.from_file(
                    path,
                    user=user,
                    item=item,
                    score=score,
                    rank=rank_column,
                    file_format=_ranked_format(run_format, path),
                    name=name,
                )
            reports.append((name, _evaluate_run(q, r, name, metrics, say, profile, conventions)))
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
        table = _rank_table(reports, metrics)
    render(table, output_format, digits=digits)


# formats in which ``rank`` marks significance with letters (the others keep plain numbers)
_LETTER_FORMATS = (OutputFormat.table, OutputFormat.markdown, OutputFormat.latex)


# ------------------------------------------------------------------ ctr
def _table_format(fmt: TableFormat | None, path: str, say: _Messages) -> str:
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


def _column(table: Any, name: str) -> Any:
    """A numeric Arrow column as a NumPy array (nulls become nan)."""
    return table.column(name).to_numpy()


def _ctr_metrics(metric: list[str] | None, group: str | None, say: _Messages) -> dict[str, Any]:
    """The pointwise metrics asked for (default: DEFAULT_CTR_METRICS), by name."""
    from .._registry import pointwise_metric

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


def _ctr_rows(
    y_true: Any,
    scores: list[tuple[str, Any]],
    metrics: dict[str, Any],
    groups: Any,
    sample_weight: Any,
    say: _Messages,
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
                    raise say.fail(f"{name} of --score {col}: {_one_line(exc)}") from None
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


@app.command(no_args_is_help=True)
def ctr(
    file: Annotated[
        str,
        typer.Argument(
            metavar="FILE",
            help="Impression log: a CSV, TSV or Parquet file with one row per impression.",
            show_default=False,
        ),
    ],
    label: Annotated[
        str,
        typer.Option(help="Column of 0/1 labels (1 = click).", show_default=False),
    ],
    score: Annotated[
        list[str],
        typer.Option(
            "--score",
            metavar="COL",
            help="Column of predicted scores (probabilities for logloss, pcoc, copc, ece); "
            "repeat to compare models.",
            show_default=False,
        ),
    ],
    group: Annotated[
        str | None,
        typer.Option(
            metavar="COL",
            help="Column of group ids (user, query or session) for gauc.",
            show_default=False,
        ),
    ] = None,
    weight: Annotated[
        str | None,
        typer.Option(
            metavar="COL", help="Column of per-impression sample weights.", show_default=False
        ),
    ] = None,
    metric: Annotated[
        list[str] | None,
        typer.Option(
            "--metric",
            "-m",
            metavar="METRIC",
            help="A pointwise metric; repeat for more. Default: "
            f"{', '.join(DEFAULT_CTR_METRICS)} (gauc only with --group). "
            + "; ".join(f"{k}: {m.description}" for k, m in POINTWISE_METRICS.items())
            + ".",
            show_default=False,
        ),
    ] = None,
    input_format: Annotated[
        TableFormat | None,
        typer.Option(
            help="Format of FILE. Default: from its suffix.",
            case_sensitive=False,
            show_default=False,
        ),
    ] = None,
    output_format: FormatOption = OutputFormat.table,
    digits: DigitsOption = 4,
    quiet: QuietOption = False,
) -> None:
    """Pointwise CTR metrics (AUC, GAUC, log loss, PCOC, ...) of score columns.

    Prints one row per --score column (column "score") and one column per
    metric, each value exactly as the library function on those columns
    returns it (e.g. receval.roc_auc_score(label, score)).
    """
    from ..data.io import read_table

    say = _Messages(quiet)
    with say.guard():
        metrics = _ctr_metrics(metric, group, say)
        fmt = _table_format(input_format, file, say)
        columns = list(dict.fromkeys([label, *score, *(c for c in (group, weight) if c)]))
        with say.progress(f"Reading {file}"):
            table = read_table(
                file, columns, "receval ctr", fmt, id_columns=(group,) if group else ()
            )
        y_true = _column(table, label)
        groups = table.column(group).combine_chunks() if group else None
        sample_weight = _column(table, weight) if weight else None
        scores = [(col, _column(table, col)) for col in score]
        counted = _ctr_rows(y_true, scores, metrics, groups, sample_weight, say)
    title = f"{file}: {table.num_rows} impressions"
    rows = [row for row, _ in counted]
    counts = [{"n_rows": int(table.num_rows), **c} for _, c in counted]
    render(
        ResultTable(["score", *metrics], rows, title=title, counts=counts),
        output_format,
        digits=digits,
    )


# ------------------------------------------------------------------ retention
def _parse_days(text: str, say: _Messages) -> list[int]:
    """``"1,3,7,30"`` to ``[1, 3, 7, 30]``; the library checks the values."""
    try:
        return [int(part) for part in text.split(",")]
    except ValueError:
        raise say.fail(
            f"--days must be comma-separated integers such as 1,3,7,30. Got {text!r} instead."
        ) from None


def _retention_columns(
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


def _retention_notes(report: Any, say: _Messages) -> None:
    if report.time_unit_inferred:
        unit = {"s": "seconds", "ms": "milliseconds"}.get(report.time_unit or "", "")
        say.note(f"epoch times read as {unit} from their magnitude; --time-unit sets the unit.")
    if report.n_events_dropped:
        say.note(f"{report.n_events_dropped} events before their user's signup were dropped.")


@app.command("retention", no_args_is_help=True)
def retention_command(
    file: Annotated[
        str,
        typer.Argument(
            metavar="FILE",
            help="Activity events: a CSV, TSV or Parquet file with one row per event.",
            show_default=False,
        ),
    ],
    user: Annotated[str, typer.Option(metavar="COL", help="Column of user ids.")] = "user",
    time: Annotated[
        str,
        typer.Option(
            metavar="COL",
            help="Column of event times: ISO 8601 strings or dates, datetimes, or epoch "
            "numbers (see --time-unit).",
        ),
    ] = "time",
    signup: Annotated[
        str | None,
        typer.Option(
            metavar="COL",
            help="Column of signup times; without it a user's cohort is the period of their "
            "first event.",
            show_default=False,
        ),
    ] = None,
    period: Annotated[
        str, typer.Option(help="Period unit: day, week (from Monday) or month.")
    ] = "day",
    days: Annotated[
        str,
        typer.Option(help="Comma-separated offsets N (in periods) of the day-N retention."),
    ] = "1,3,7,30",
    tz: Annotated[
        str, typer.Option(help="IANA time zone in which periods start at local midnight.")
    ] = "UTC",
    time_unit: Annotated[
        str | None,
        typer.Option(
            help="Unit of epoch numbers: s, ms, us or ns. Default: seconds or milliseconds "
            "from their magnitude.",
            show_default=False,
        ),
    ] = None,
    before_signup: Annotated[
        str, typer.Option(help="Events before their user's signup: keep, drop or error.")
    ] = "keep",
    table: Annotated[
        RetentionTable,
        typer.Option(
            help="period: new, login and active users and retention_rate per period. cohort: "
            "each cohort's size and day-N retention for N in --days. full: the cohort x "
            "offset table for every offset.",
            case_sensitive=False,
        ),
    ] = RetentionTable.cohort,
    values: Annotated[
        RetentionValues,
        typer.Option(help="Rates or user counts in --table full.", case_sensitive=False),
    ] = RetentionValues.rate,
    input_format: Annotated[
        TableFormat | None,
        typer.Option(
            help="Format of FILE. Default: from its suffix.",
            case_sensitive=False,
            show_default=False,
        ),
    ] = None,
    output_format: FormatOption = OutputFormat.table,
    digits: DigitsOption = 4,
    quiet: QuietOption = False,
) -> None:
    """New, login and active users and day-N cohort retention (receval.retention).

    The columns are those of RetentionReport.to_frame() (--table period),
    cohort_frame() (--table cohort) and table_frame() (--table full); periods
    and cohorts are ISO dates (the first day of the period).
    """
    from ..metrics._retention import retention

    say = _Messages(quiet)
    offsets = _parse_days(days, say)
    with say.guard():
        fmt = _table_format(input_format, file, say)
        with say.progress(f"Reading and counting {file}"):
            report = retention(
                file,
                user=user,
                time=time,
                signup=signup,
                period=period,
                days=offsets,
                tz=tz,
                time_unit=time_unit,
                before_signup=before_signup,
                file_format=fmt,
            )
    _retention_notes(report, say)
    columns = _retention_columns(report, table, values)
    names, rows = rows_of(columns)
    title = f"{file}: {report.n_events} events, {report.n_users} users ({report.tz})"
    render(ResultTable(names, rows, title=title), output_format, digits=digits)


# ------------------------------------------------------------------ report and demo
#: Metrics of the metric@k figure of the ranking section, for k = 1..100.
REPORT_AT_K_METRICS = ("ndcg", "recall")
#: Cohorts shown in the retention table of the HTML report (the first ones).
REPORT_COHORTS = 15


def _figures(say: _Messages) -> bool:
    """Whether matplotlib is installed; a warning when it is not."""
    import importlib.util

    if importlib.util.find_spec("matplotlib") is not None:
        return True
    say.warning(
        "matplotlib is not installed, so the report has no figures; pip install 'receval[plot]'."
    )
    return False


def _ranking_section(
    doc: Any,
    figures: bool,
    table: ResultTable,
    qrels: Any,
    runs: dict[str, Any],
    say: _Messages,
    profile: str | None = None,
    reports: list[tuple[str, Any]] | None = None,
) -> None:
    """Heading, metric table (with significance tests when there are several runs)
    and metric@k figure of the runs."""
    doc.add_heading("Ranking")
    doc.add_text(
        "Mean of each top-K metric over the users of the qrels (receval.evaluate), one row per run."
    )
    doc.add_table(table.values_only().records(), caption=table.title)
    for line in table.count_lines():
        doc.add_text(line)
    if reports is not None and len(reports) > 1:
        from ..comparison import compare

        with say.progress("Testing differences"):
            metrics = [c for c in table.columns if c != "run"]
            _comparison_table(doc, compare(None, dict(reports), metrics))
    if figures:
        from ..plot import metric_at_k
        from ..report import new_axes

        with say.progress("Drawing metric@k"):
            ax = new_axes(figsize=(7.0, 4.5))
            metric_at_k(
                qrels, runs, metrics=REPORT_AT_K_METRICS, ks=range(1, 101), ax=ax, profile=profile
            )
            doc.add_figure(ax, caption="Mean ndcg@k and recall@k for k = 1..100")


def _ctr_section(
    doc: Any,
    figures: bool,
    table: ResultTable,
    y_true: Any,
    scores: list[tuple[str, Any]],
    sample_weight: Any,
    say: _Messages,
    groups: Any = None,
) -> None:
    """Heading, metric table (with significance tests of per-user gauc and log loss when
    there are several models and groups), ROC, precision-recall and calibration figures."""
    doc.add_heading("CTR models")
    doc.add_text(
        "Pointwise metrics of each model's predicted click-through rate, one row per model."
    )
    doc.add_table(table.values_only().records(), caption=table.title)
    for line in table.count_lines():
        doc.add_text(line)
    if groups is not None and len(scores) > 1:
        from ..comparison import compare_predictions

        with say.progress("Testing differences"):
            comparison = compare_predictions(
                y_true, dict(scores), groups=groups, sample_weight=sample_weight
            )
        _comparison_table(doc, comparison)
    if figures:
        from ..plot import calibration, precision_recall, roc
        from ..report import new_axes

        models = dict(scores)
        drawings = [
            (roc, {}, "ROC curves"),
            (precision_recall, {}, "Precision-recall curves (dot: break-even point)"),
            (
                calibration,
                {"n_bins": 20, "strategy": "quantile"},
                "Calibration: observed CTR against mean prediction (20 quantile bins)",
            ),
        ]
        for draw, options, caption in drawings:
            with say.progress(f"Drawing {caption}"):
                ax = new_axes(figsize=(5.0, 4.5))
                draw(y_true, models, ax=ax, sample_weight=sample_weight, **options)
                doc.add_figure(ax, caption=caption)


def _comparison_table(doc: Any, comparison: Any) -> None:
    """Every comparison of a ComparisonReport as a table, with how it was tested."""
    header, rows = comparison._detail_rows(4)
    doc.add_text(
        "Paired comparisons over users: difference of the means, effect size (Cohen's d_z), "
        f"{comparison.confidence:.0%} bootstrap interval ({comparison.interval}), p-value and "
        f"adjusted p-value (* where significant). {comparison.legend()}"
    )
    doc.add_table([dict(zip(header, row, strict=True)) for row in rows])


def _retention_section(
    doc: Any, figures: bool, table: ResultTable, report: Any, say: _Messages
) -> None:
    """Heading, the first cohorts' day-N retention, the heatmap and the retention curve."""
    doc.add_heading("Retention")
    doc.add_text(
        f"Day-N retention of each {report.period} cohort: the share of its new users active "
        f"N {report.period}s later (receval.retention); nan where not observed yet."
    )
    doc.add_table(table.records(), caption=table.title, max_rows=REPORT_COHORTS)
    if figures:
        from ..plot import retention_curve, retention_heatmap
        from ..report import new_axes

        with say.progress("Drawing retention"):
            ax = new_axes(figsize=(6.5, 5.0))
            retention_heatmap(report, ax=ax)
            doc.add_figure(ax, caption=f"Retention of each cohort ({report.period}s)")
            ax = new_axes(figsize=(5.5, 4.5))
            retention_curve(report, offsets="all", ax=ax)
            doc.add_figure(ax, caption="Mean retention over cohorts against N")


def _cohort_table(report: Any, title: str) -> ResultTable:
    names, rows = rows_of(_retention_columns(report, RetentionTable.cohort, RetentionValues.rate))
    return ResultTable(names, rows, title=title)


def _write_report(doc: Any, out: str, say: _Messages) -> None:
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
    from ..report import HTMLReport

    say = _Messages(quiet)
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
    offsets = _parse_days(days, say)
    doc = HTMLReport(title, digits=digits)
    figures = _figures(say)
    with say.guard():
        if impressions is not None and label is not None and score:
            metrics_ctr = _ctr_metrics(ctr_metric, group, say)
            fmt = _table_format(None, impressions, say)
            columns = list(dict.fromkeys([label, *score, *(c for c in (group, weight) if c)]))
            with say.progress(f"Reading {impressions}"):
                data = read_table(
                    impressions,
                    columns,
                    "receval report",
                    fmt,
                    id_columns=(group,) if group else (),
                )
            y_true = _column(data, label)
            groups = data.column(group).combine_chunks() if group else None
            sample_weight = _column(data, weight) if weight else None
            scores = [(col, _column(data, col)) for col in score]
            counted = _ctr_rows(y_true, scores, metrics_ctr, groups, sample_weight, say)
            title_ctr = f"{impressions}: {data.num_rows} impressions"
            table = ResultTable(
                ["score", *metrics_ctr],
                [row for row, _ in counted],
                title=title_ctr,
                counts=[c for _, c in counted],
            )
            _ctr_section(doc, figures, table, y_true, scores, sample_weight, say, groups)
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
                    file_format=_ranked_format(None, qrels),
                )
            runs: dict[str, Any] = {}
            reports = []
            for path, name in zip(run, _run_names(run), strict=True):
                with say.progress(f"Reading {path}"):
                    runs[name] = Run.from_file(
                        path,
                        user=user,
                        item=item,
                        score=run_score,
                        file_format=_ranked_format(None, path),
                        name=name,
                    )
                reports.append((name, _evaluate_run(q, runs[name], name, metrics, say, profile)))
            table = _rank_table(reports, metrics, title=f"{qrels}: {q.n_users} users")
            _ranking_section(doc, figures, table, q, runs, say, profile, reports)
        if events is not None:
            fmt = _table_format(None, events, say)
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
            _retention_notes(rep, say)
            title_ret = f"{events}: {rep.n_events} events, {rep.n_users} users ({rep.tz})"
            _retention_section(doc, figures, _cohort_table(rep, title_ret), rep, say)
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
    from ..report import HTMLReport

    say = _Messages(quiet)
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
        metrics_ctr = _ctr_metrics(None, "user", say)
        counted = _ctr_rows(y_true, scores, metrics_ctr, log["user"], None, say)
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
        reports = [(name, _evaluate_run(q, r, name, metrics, say)) for name, r in runs.items()]
        title = (
            f"make_recommendations({users}): {q.n_rows} held-out interactions, "
            f"top-100 lists of {users} users"
        )
        rank_table = _rank_table(reports, metrics, title=title)

        with say.progress("Generating events"):
            events = make_events(users, seed=0)
            rep = retention(events)
        title = f"make_events({users}): {rep.n_events} events, {rep.n_users} users ({rep.tz})"
        retention_table = _cohort_table(rep, title)
    render_sections(
        [("ctr", ctr_table), ("rank", rank_table), ("retention", retention_table)],
        output_format,
        digits=digits,
    )
    figures = _figures(say)
    with say.guard():
        _ctr_section(doc, figures, ctr_table, y_true, scores, None, say, log["user"])
        _ranking_section(doc, figures, rank_table, q, runs, say, reports=reports)
        _retention_section(doc, figures, retention_table, rep, say)
    _write_report(doc, out, say)

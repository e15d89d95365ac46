"""What the commands of ``receval`` share: the app, option declarations, messages, input helpers.

No metric is computed here: the commands call the library and render its results.
"""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Any, TypeVar

import typer

from ._output import OutputFormat
from ._params import metric_option
from ._ranked import (
    ALL_SEGMENTS,
    DEFAULT_RANK_METRICS,
    RankedFormat,
    evaluate_run,
    rank_table,
    ranked_format,
    read_qrels_runs,
    read_runs,
    read_segments,
    run_names,
    unknown_users_note,
)
from ._root import app
from ._streams import Messages, displayed, one_line

__all__ = [
    "ALL_SEGMENTS",
    "DEFAULT_CTR_METRICS",
    "DEFAULT_RANK_METRICS",
    "AllowUnmatchedOption",
    "ByOption",
    "DaysOption",
    "DigitsOption",
    "FormatOption",
    "GradeOption",
    "GroupOption",
    "ImpressionsOption",
    "InputFormatOption",
    "ItemOption",
    "LabelOption",
    "Messages",
    "PeriodOption",
    "PermutationsOption",
    "ProfileOption",
    "QrelsFormatOption",
    "QrelsOption",
    "QuietOption",
    "RankMetricOption",
    "RankedFormat",
    "RetentionTable",
    "RetentionValues",
    "RunFormatOption",
    "RunOption",
    "RunScoreOption",
    "ScoresOption",
    "TableFormat",
    "TimeOption",
    "TimeUnitOption",
    "TzOption",
    "UserOption",
    "WeightOption",
    "app",
    "convention",
    "count_retention",
    "displayed",
    "evaluate_run",
    "one_line",
    "parse_days",
    "rank_table",
    "ranked_format",
    "read_qrels_runs",
    "read_runs",
    "read_segments",
    "retention_columns",
    "run_names",
    "unknown_users_note",
]


#: Metrics of ``receval ctr`` when no ``-m`` is given (``gauc`` only with ``--group``).
DEFAULT_CTR_METRICS = ("auc", "gauc", "logloss", "pcoc")


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
    count = "count"  # type: ignore[assignment]  # the member shadows str.count


# ------------------------------------------------------------------ options shared by commands
FormatOption = Annotated[
    OutputFormat,
    typer.Option(
        "--format",
        "-f",
        help="Output format. table: a readable table (values rounded to --digits). json: a "
        'list of records, one object per table row, e.g. [{"run": "a.run", "ndcg@10": '
        "0.41, ...}], floats at full precision, null for nan, "
        '"Infinity"/"-Infinity" for infinities. '
        "csv/tsv: a header line then a line per row, floats at full precision, nan where "
        "undefined. markdown: a GitHub table rounded to --digits.",
        case_sensitive=False,
        rich_help_panel="Output",
    ),
]

DigitsOption = Annotated[
    int,
    typer.Option(
        "--digits",
        min=0,
        max=17,
        help="Decimals in table and markdown (1e16 and up: 1.2e+16).",
        rich_help_panel="Output",
    ),
]

QuietOption = Annotated[
    bool,
    typer.Option(
        "--quiet",
        "-q",
        help="Print no notes, warnings or progress on stderr (errors are still printed).",
        rich_help_panel="Output",
    ),
]

# Each option is declared once, as ``Name = Annotated[type, typer.Option(...)]``; a command
# gives it a default (``user: UserOption = "user"``). The generic ones take the type, which
# tells whether the option is required: ``label: LabelOption[str]`` (no default) in ``ctr``,
# ``label: LabelOption[str | None] = None`` where it is optional.
T = TypeVar("T")

QrelsOption = Annotated[
    T,
    typer.Option(
        "--qrels",
        metavar="FILE",
        help="Relevance judgments: a TREC qrels file (user 0 item grade), or a CSV, TSV "
        "or Parquet file with --user, --item and --grade columns; '-' reads standard input.",
        show_default=False,
        rich_help_panel="Input",
    ),
]

RunOption = Annotated[
    T,
    typer.Option(
        "--run",
        metavar="FILE",
        help="A run: a TREC run file (user Q0 item rank score tag), or a CSV, TSV or Parquet "
        "file with --user, --item and score columns. Repeat to compare runs; each is named "
        "by its file name. '-' reads standard input.",
        show_default=False,
        rich_help_panel="Input",
    ),
]

AllowUnmatchedOption = Annotated[
    bool,
    typer.Option(
        "--allow-unmatched",
        help="Score a run that matches no qrels user or item (every metric 0) instead "
        "of stopping with an error.",
        rich_help_panel="Input",
    ),
]

RankMetricOption = Annotated[
    list[str] | None,
    metric_option(
        "A metric string such as ndcg@10, map@100, mrr, recall@100 or "
        "'ndcg(gain=exponential)@10'; repeat for more. Default: "
        f"{', '.join(DEFAULT_RANK_METRICS)}. trec_eval's, ir_measures' and ranx's names "
        "work too (P_10, nDCG@10, ...): receval metrics --family ranking lists them.",
        "Metrics",
    ),
]

ProfileOption = Annotated[
    str | None,
    typer.Option(
        help="Reproduce a peer's conventions (each option below overrides one).",
        show_default=False,
        rich_help_panel="Conventions",
    ),
]

QrelsFormatOption = Annotated[
    RankedFormat | None,
    typer.Option(
        help="Format of --qrels. Default: from the suffix (.csv, .tsv, .parquet/.pq), else trec.",
        case_sensitive=False,
        show_default=False,
        rich_help_panel="Input",
    ),
]

RunFormatOption = Annotated[
    RankedFormat | None,
    typer.Option(
        help="Format of every run file. Default: from the suffix, else trec.",
        case_sensitive=False,
        show_default=False,
        rich_help_panel="Input",
    ),
]


def column(*declarations: Any, **settings: Any) -> Any:
    """An option naming a column of an input file (``COL``), in the Input panel."""
    return typer.Option(*declarations, metavar="COL", rich_help_panel="Input", **settings)


# columns of CSV, TSV and Parquet files (TREC files have fixed columns)
UserOption = Annotated[str, column(help="Column of user ids in CSV, TSV and Parquet files.")]
ItemOption = Annotated[str, column(help="Column of item ids in CSV, TSV and Parquet files.")]
GradeOption = Annotated[str, column(help="Grade column of CSV, TSV and Parquet qrels.")]
#: ``--score`` of ``rank``, ``--run-score`` of ``compare`` and ``report`` (named after the
#: parameter: these commands' ``--score`` is a column of the impression log).
RunScoreOption = Annotated[str, column(help="Score column of CSV, TSV and Parquet runs.")]

ImpressionsOption = Annotated[
    str | None,
    typer.Option(
        metavar="FILE",
        help="Impression log (CSV, TSV or Parquet), one row per impression; with --label "
        "and --score. '-' reads standard input.",
        show_default=False,
        rich_help_panel="Input",
    ),
]

InputFormatOption = Annotated[
    TableFormat | None,
    typer.Option(
        help="Format of the file of impressions, events or logged feedback. Default: from "
        "its suffix.",
        case_sensitive=False,
        show_default=False,
        rich_help_panel="Input",
    ),
]

LabelOption = Annotated[
    T,
    column(
        help="Column of binary labels: 0/1 (1 = click), -1/1 or true/false.", show_default=False
    ),
]

ScoresOption = Annotated[
    T,
    column(
        "--score",
        help="Column of predicted scores (probabilities for logloss, pcoc, copc, ece); "
        "repeat to compare models.",
        show_default=False,
    ),
]

GroupOption = Annotated[
    str | None,
    column(
        help="Column of group ids (user, query or session): the groups of gauc and, when "
        "models are compared, the unit of pairing.",
        show_default=False,
    ),
]

ByOption = Annotated[
    str | None,
    column(
        "--by",
        help="Column of segments (country, device, user group): one row per segment and "
        "score column, then the overall row (segment '(all)'), each value the metric on the "
        "segment's rows (receval.by_segment).",
        show_default=False,
    ),
]

WeightOption = Annotated[
    str | None, column(help="Column of per-impression sample weights.", show_default=False)
]


def convention(text: str, *declarations: str, **settings: Any) -> Any:
    """A convention option of ``rank`` (``--ties``, ...): in the Conventions panel, with
    no default shown (None: the --profile's, else receval's)."""
    return typer.Option(
        *declarations, help=text, show_default=False, rich_help_panel="Conventions", **settings
    )


PermutationsOption = Annotated[
    int, typer.Option(help="Sign flips of the randomization test.", rich_help_panel="Significance")
]

# retention of an event log
TimeOption = Annotated[
    str,
    column(
        help="Column of event times: ISO 8601 strings or dates, datetimes, or epoch "
        "numbers (see --time-unit)."
    ),
]
PeriodOption = Annotated[
    str,
    typer.Option(
        metavar="[day|week|month]",
        help="Period unit (weeks start on Monday).",
        rich_help_panel="Periods",
    ),
]
DaysOption = Annotated[
    str,
    typer.Option(
        metavar="N,N,...",
        help="Comma-separated offsets N (in periods) of the day-N retention.",
        rich_help_panel="Periods",
    ),
]
TzOption = Annotated[
    str,
    typer.Option(
        metavar="ZONE",
        help="IANA time zone in which periods start at local midnight.",
        rich_help_panel="Periods",
    ),
]
TimeUnitOption = Annotated[
    str | None,
    typer.Option(
        metavar="[s|ms|us|ns]",
        help="Unit of epoch numbers. Default: seconds or milliseconds from their magnitude.",
        show_default=False,
        rich_help_panel="Periods",
    ),
]


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
            "returning_users": report.returning_users,
            "login_users_per_new_user": report.login_users_per_new_user,
        }
    elif table is RetentionTable.cohort:
        columns = {"cohort": report.periods, "new_users": report.new_users}
        for j, n in enumerate(report.days):
            columns[f"{report.period}_{n}"] = report.day_n_retention[:, j]
    else:
        full = report.cohort_retention if values is RetentionValues.rate else report.cohort_counts
        columns = {"cohort": report.periods, "new_users": report.new_users}
        for k in range(report.n_periods):
            column: Any = full[:, k]
            if values is RetentionValues.count:  # the last k cohorts' period c + k is not
                # observed: their count is None (printed nan, as their rate), not 0
                column = [*column[: report.n_periods - k].tolist(), *[None] * k]
            columns[f"{report.period}_{k}"] = column
    return columns


def count_retention(path: str, file_format: str, say: Messages, **options: Any) -> Any:
    """``receval.retention`` of an event file (``options``: its keywords), with a progress
    line while it reads and counts, then its notes; a column missing from the file is
    named with its option (``--user``, ``--time``, ``--signup``)."""
    from ..metrics.retention import retention
    from ._columns import columns_named

    named = {options[k]: f"--{k}" for k in ("user", "time", "signup") if options.get(k)}
    with (
        columns_named(named, files={path: file_format}),
        say.progress(f"Reading and counting {say.sized(path)}…"),
    ):
        report = retention(path, file_format=file_format, **options)
    if report.time_unit_inferred:
        unit = {"s": "seconds", "ms": "milliseconds"}.get(report.time_unit or "", "")
        say.note(f"epoch times read as {unit} from their magnitude; --time-unit sets the unit.")
    for note in (report.before_signup_note, report.signup_note):
        if note:
            say.note(note)
    return report

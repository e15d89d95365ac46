"""``receval ctr``: pointwise CTR metrics of score columns."""

# No ``from __future__ import annotations``: Typer reads the parameters' annotations to
# build the command, and would compile and evaluate each one given as a string every
# time the command is built (once per process).

from typing import Annotated

import typer

from ..registry import ENTRIES
from ._common import (
    DEFAULT_CTR_METRICS,
    ByOption,
    DigitsOption,
    FormatOption,
    GroupOption,
    InputFormatOption,
    LabelOption,
    Messages,
    QuietOption,
    ScoresOption,
    WeightOption,
    app,
    displayed,
)
from ._impressions import (
    ctr_metrics,
    ctr_rows,
    ctr_segment_table,
    ctr_table,
    read_impressions,
)
from ._output import OutputFormat, render
from ._params import Command


@app.command(cls=Command, no_args_is_help=True)
def ctr(
    file: Annotated[
        str,
        typer.Argument(
            metavar="FILE",
            help="Impression log: a CSV, TSV or Parquet file with one row per impression.",
            show_default=False,
        ),
    ],
    label: LabelOption[str],
    score: ScoresOption[list[str]],
    group: GroupOption = None,
    weight: WeightOption = None,
    by: ByOption = None,
    metric: Annotated[
        list[str] | None,
        typer.Option(
            "--metric",
            "-m",
            metavar="METRIC",
            help="A pointwise or grouped metric, by name, alias or metric string with "
            "options (gauc(weighting=clicks), log_loss(eps=1e-7)); repeat for more. Default: "
            f"{', '.join(DEFAULT_CTR_METRICS)} (gauc only with --group). Metrics: "
            + ", ".join(n for n, e in ENTRIES.items() if e.family in ("pointwise", "grouped"))
            + " (receval metrics --family pointwise).",
            show_default=False,
        ),
    ] = None,
    input_format: InputFormatOption = None,
    output_format: FormatOption = OutputFormat.table,
    digits: DigitsOption = 4,
    quiet: QuietOption = False,
) -> None:
    """Pointwise CTR metrics (AUC, GAUC, log loss, PCOC, ...) of score columns.

    Prints one row per --score column (column "score") and one column per
    metric, each value exactly as the library function on those columns
    returns it (e.g. receval.roc_auc_score(label, score)). With --by, one row
    per score column and segment, then the score column's overall row.
    """
    say = Messages(quiet)
    with say.guard():
        metrics = ctr_metrics(metric, group, say)
        data = read_impressions(
            file, input_format, say, "receval ctr", label=label, score=score, group=group,
            weight=weight, by=by,
        )  # fmt: skip
        title = f"{displayed(file)}: {data.n_rows} impressions"
        if by is not None:
            table = ctr_segment_table(data, metrics, say, title)
        else:
            counted = ctr_rows(
                data.y_true, data.scores, metrics, data.groups, data.sample_weight, say, data
            )
            table = ctr_table(counted, metrics, title, n_rows=data.n_rows)
    render(table, output_format, digits=digits)

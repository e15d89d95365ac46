"""``receval ctr``: pointwise CTR metrics of score columns."""

from __future__ import annotations

from typing import Annotated

import typer

from ..registry import POINTWISE_METRICS
from ._common import (
    DEFAULT_CTR_METRICS,
    DigitsOption,
    FormatOption,
    Messages,
    QuietOption,
    TableFormat,
    app,
    column,
    ctr_metrics,
    ctr_rows,
    table_format,
)
from ._output import OutputFormat, ResultTable, render


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

    say = Messages(quiet)
    with say.guard():
        metrics = ctr_metrics(metric, group, say)
        fmt = table_format(input_format, file, say)
        columns = list(dict.fromkeys([label, *score, *(c for c in (group, weight) if c)]))
        with say.progress(f"Reading {file}"):
            table = read_table(
                file, columns, "receval ctr", fmt, id_columns=(group,) if group else ()
            )
        y_true = column(table, label)
        groups = table.column(group).combine_chunks() if group else None
        sample_weight = column(table, weight) if weight else None
        scores = [(col, column(table, col)) for col in score]
        counted = ctr_rows(y_true, scores, metrics, groups, sample_weight, say)
    title = f"{file}: {table.num_rows} impressions"
    rows = [row for row, _ in counted]
    counts = [{"n_rows": int(table.num_rows), **c} for _, c in counted]
    render(
        ResultTable(["score", *metrics], rows, title=title, counts=counts),
        output_format,
        digits=digits,
    )

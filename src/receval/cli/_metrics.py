"""``receval metrics``: every metric receval computes, with its names and definition."""

# No ``from __future__ import annotations``: Typer reads the parameters' annotations to
# build the command, and would compile and evaluate each one given as a string every
# time the command is built (once per process).

from typing import Annotated

import typer

from ..registry import FAMILIES, list_metrics
from ._common import FormatOption, Messages, app
from ._output import OutputFormat, ResultTable, render
from ._params import Command

#: Columns of the listing, in order.
COLUMNS = ["name", "family", "aliases", "cut_off", "parameters", "source", "description"]


def metrics_table(family: str | None) -> ResultTable:
    """The registry's metrics (of one family) as a table, one row per metric."""
    rows = [
        [
            entry.name,
            entry.family,
            ", ".join(entry.aliases),
            "@k" if entry.accepts_k else "",
            "; ".join(entry.parameters),
            entry.source,
            entry.description,
        ]
        for entry in list_metrics(family)
    ]
    title = f"{len(rows)} metrics" + (f" ({family})" if family else "")
    return ResultTable(list(COLUMNS), rows, title)


@app.command("metrics", cls=Command)
def metrics_command(
    family: Annotated[
        str | None,
        typer.Option(
            "--family",
            metavar="FAMILY",
            help=f"List one family only: {', '.join(FAMILIES)}. Default: every family.",
            show_default=False,
        ),
    ] = None,
    output_format: FormatOption = OutputFormat.table,
) -> None:
    """Every metric receval computes: names, aliases, definition, parameters, source.

    One row per metric: its canonical name (as metric strings and functions
    name it), its family, the other names it accepts (trec_eval's P_10,
    ir_measures' nDCG@10, ranx's hit_rate, ...), a one-line definition, its
    parameters (e.g. rbp's p), whether it takes an @k cut-off and the library
    or paper whose definition it follows.
    """
    say = Messages(quiet=False)
    with say.guard():
        table = metrics_table(family)
    render(table, output_format)

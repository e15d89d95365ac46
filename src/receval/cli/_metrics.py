"""``receval metrics``: every metric receval computes, with its names and definition."""

# No ``from __future__ import annotations``: Typer reads the parameters' annotations to
# build the command, and would compile and evaluate each one given as a string every
# time the command is built (once per process).

import sys
from typing import Annotated, Any

import typer

from .._parameters import counted
from ..registry import FAMILIES, list_metrics, resolve
from ..registry.schema import MetricEntry, format_value
from ..report.json_values import dumps
from ._common import FormatOption, Messages, app
from ._output import OutputFormat, ResultTable, render
from ._params import Command

#: Columns of the listing in the formats for programs (json, csv, tsv, markdown, latex).
COLUMNS = [
    "name", "family", "aliases", "cut_off", "parameters", "conventions", "inputs",
    "direction", "source", "description",
]  # fmt: skip

#: Columns of the listing for people (the table format): the rest is in ``receval metrics NAME``.
SHORT_COLUMNS = ["name", "aliases", "description"]


def _direction(entry: MetricEntry) -> str:
    if entry.higher_is_better is None:
        return "neither (a target value, such as 1, is best)"
    return "higher is better" if entry.higher_is_better else "lower is better"


def _fields(entry: MetricEntry) -> dict[str, str]:
    """What the registry says of one metric, as text: the listing's columns."""
    return {
        "name": entry.name,
        "family": entry.family,
        "aliases": ", ".join(entry.aliases),
        "cut_off": "@k" if entry.accepts_k else "",
        "parameters": "; ".join(entry.parameters),
        "conventions": ", ".join(entry.conventions),
        "inputs": ", ".join(entry.inputs),
        "direction": _direction(entry),
        "source": entry.source,
        "description": entry.description,
    }


def metrics_table(family: str | None, fmt: OutputFormat = OutputFormat.json) -> ResultTable:
    """The registry's metrics (of one family) as a table, one row per metric: every
    column of :data:`COLUMNS`, or only :data:`SHORT_COLUMNS` in the ``table`` format."""
    columns = SHORT_COLUMNS if fmt is OutputFormat.table else COLUMNS
    rows = [[_fields(entry)[c] for c in columns] for entry in list_metrics(family)]
    title = counted(len(rows), "metric") + (f" ({family})" if family else "")
    if fmt is OutputFormat.table:
        title += "; receval metrics NAME shows one in full"
    return ResultTable(list(columns), rows, title, wrap=("aliases", "description"))


def _record(entry: MetricEntry) -> dict[str, Any]:
    """One metric in full, as the JSON of ``receval metrics NAME`` writes it."""
    params = [
        {
            "name": p.name,
            "kind": p.kind,
            "meaning": p.meaning,
            "values": p.range_text(),
            "choices": list(p.choices),
            "default": None
            if p.required or p.default is None or p.kind == "object"
            else format_value(p, p.default),
            "required": p.required,
        }
        for p in entry.params
    ]
    return {
        "name": entry.name,
        "family": entry.family,
        "description": entry.description,
        "aliases": list(entry.aliases),
        "cut_off": entry.accepts_k,
        "inputs": list(entry.inputs),
        "parameters": params,
        "conventions": list(entry.conventions),
        "higher_is_better": entry.higher_is_better,
        "source": entry.source,
        "function": f"receval.{entry.function}" if entry.function else "receval.evaluate",
    }


def entry_table(entry: MetricEntry) -> ResultTable:
    """One metric in full: a row per field (the parameters one row each)."""
    fields = _fields(entry)
    rows = [[k, v] for k, v in fields.items() if k != "parameters" and v]
    at = next(i for i, (k, _) in enumerate(rows) if k == "inputs")
    rows[at:at] = [[f"parameter {p.name}", p.describe().partition(": ")[2]] for p in entry.params]
    return ResultTable(["field", "value"], rows, entry.name, wrap=("value",))


@app.command("metrics", cls=Command)
def metrics_command(
    name: Annotated[
        str | None,
        typer.Argument(
            metavar="[NAME]",
            help="A metric's name, alias or metric string (ndcg@10, P_10, auc): show it in "
            "full (family, inputs, parameters, direction, source).",
            show_default=False,
        ),
    ] = None,
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
    """The table lists each metric's canonical name (as metric strings and
    functions name it), the other names it accepts (trec_eval's P_10,
    ir_measures' nDCG@10, ranx's hit_rate, ...) and a one-line definition;
    the other formats add its family, parameters, conventions, inputs,
    direction, @k cut-off and the library or paper whose definition it follows.
    """
    say = Messages(quiet=False)
    with say.guard():
        if name is None:
            table = metrics_table(family, output_format)
        else:
            entry = resolve(name, family=family, where="receval metrics", supplied=None).info
            if output_format is OutputFormat.json:
                sys.stdout.write(dumps(_record(entry), indent=2) + "\n")
                return
            table = entry_table(entry)
    render(table, output_format)

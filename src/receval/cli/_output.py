"""Rendering of result tables: a rich table for people, JSON/CSV/TSV/Markdown for programs.

Every command produces one :class:`ResultTable` (column names and rows of
plain Python scalars) and :func:`render` writes it in the chosen format. No
metric is computed here.
"""

from __future__ import annotations

import io
import math
import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any, TextIO

from ..report.json_values import dumps, plain_value
from ..report.tables import flatten_counts, format_float
from ._stdin import displayed

__all__ = ["OutputFormat", "ResultTable", "render", "render_sections", "scalar"]


class OutputFormat(str, Enum):
    """Output formats of every command."""

    table = "table"
    json = "json"
    csv = "csv"
    tsv = "tsv"
    markdown = "markdown"
    latex = "latex"


@dataclass(frozen=True)
class ResultTable:
    """Rows of results: ``columns`` names, ``rows`` of str / int / float / None cells.

    ``counts``, when given, has one dict per row of what a rule left out (users or
    groups skipped, rows in them): the JSON output carries it as each record's
    ``"counts"`` object, CSV and TSV as extra columns (a nested dict's keys as
    ``name:key``); the other formats leave it to the command's notes on stderr.
    ``keys``: how many leading columns name a row (run, model, segment): a terminal
    too narrow for the table shows the other columns as rows under those names.
    ``wrap``: text columns that a terminal may wrap (long descriptions): such a
    table keeps its layout, its other columns whole.
    """

    columns: list[str]
    rows: list[list[Any]]
    title: str | None = None
    counts: list[dict[str, Any]] | None = None
    keys: int = 1
    wrap: tuple[str, ...] = ()

    def records(self) -> list[dict[str, Any]]:
        """One dict per row, keyed by column name (the JSON output)."""
        out = [dict(zip(self.columns, row, strict=True)) for row in self.rows]
        if self.counts is not None:
            for record, counts in zip(out, self.counts, strict=True):
                record["counts"] = counts
        return out

    def with_count_columns(self) -> ResultTable:
        """The table with the counts as extra columns (CSV, TSV)."""
        if self.counts is None:
            return self
        flat = [flatten_counts(c) for c in self.counts]
        names = list(dict.fromkeys(k for c in flat for k in c))
        rows = [[*row, *(c.get(k) for k in names)] for row, c in zip(self.rows, flat, strict=True)]
        return ResultTable([*self.columns, *names], rows, self.title)


def scalar(value: Any) -> Any:
    """A NumPy scalar or datetime64 as a plain Python str / int / float / bool / None."""
    value = plain_value(value)
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    return str(value)


def _is_missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _exact(value: Any) -> str:
    """A cell at full precision: ``repr`` of floats (round-trips), ``nan`` when missing."""
    if _is_missing(value):
        return "nan"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _rounded(value: Any, digits: int) -> str:
    """A value rounded to ``digits`` decimals, in exponent form from 1e16 on
    (:func:`~receval.report.tables.format_float`)."""
    if _is_missing(value):
        return "nan"
    if isinstance(value, float):
        return format_float(value, digits)
    return str(value)


def _cells(table: ResultTable, digits: int) -> list[list[str]]:
    """The rows as text: the names of a row (its ``keys`` columns: a run, a segment label
    as given: 0.123456789, not 0.1235) exact, the values rounded to ``digits``."""
    n = table.keys
    return [
        [_exact(v) if j < n else _rounded(v, digits) for j, v in enumerate(row)]
        for row in table.rows
    ]


#: What a spreadsheet reads as the start of a formula (OWASP's CSV injection list).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")

#: A text cell that a spreadsheet reads as a plain number, which no formula can hide in.
_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def _text_cell(text: str) -> str:
    """A text cell (an id, a run name, a column name) safe to open in a spreadsheet.

    A cell starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return
    gets a leading ``'``, which spreadsheets read as "text, not a formula" (the
    OWASP advice); a plain number written as text (``-5``, ``+0.5``) is left as
    it is.
    """
    if text.startswith(_FORMULA_START) and not _PLAIN_NUMBER.fullmatch(text):
        return "'" + text
    return text


def _delimited(table: ResultTable, delimiter: str, out: TextIO) -> None:
    """CSV or TSV: numbers at full precision as they are, text cells made formula-safe.

    A cell holding the delimiter, a quote, a line feed or a carriage return is
    quoted (the csv module's minimal quoting, which leaves a lone carriage return
    unquoted when lines end in a line feed).
    """
    special = (delimiter, '"', "\n", "\r")

    def quoted(cell: str) -> str:
        if any(ch in cell for ch in special):
            return '"' + cell.replace('"', '""') + '"'
        return cell

    def line(cells: list[str]) -> str:
        if cells == [""]:
            return '""\n'  # a lone empty cell, as the csv module writes it
        return delimiter.join(quoted(c) for c in cells) + "\n"

    out.write(line([_text_cell(str(c)) for c in table.columns]))
    for row in table.rows:
        out.write(line([_text_cell(v) if isinstance(v, str) else _exact(v) for v in row]))


def _markdown(table: ResultTable, digits: int, out: TextIO) -> None:
    from ..report.tables import markdown_escape as cell

    numeric = [
        all(isinstance(row[j], (int, float)) or row[j] is None for row in table.rows)
        for j in range(len(table.columns))
    ]
    out.write("| " + " | ".join(cell(c) for c in table.columns) + " |\n")
    out.write("|" + "|".join("---:" if n else "---" for n in numeric) + "|\n")
    for row in _cells(table, digits):
        out.write("| " + " | ".join(cell(text) for text in row) + " |\n")


def _latex(table: ResultTable, digits: int, out: TextIO) -> None:
    """A booktabs ``tabular``: text columns left, numeric columns right, rounded."""
    from ..report.tables import latex_escape as _tex

    numeric = [_numeric(table, j) for j in range(len(table.columns))]
    out.write("\\begin{tabular}{" + "".join("r" if n else "l" for n in numeric) + "}\n")
    out.write("\\toprule\n" + " & ".join(_tex(c) for c in table.columns) + " \\\\\n\\midrule\n")
    for row in _cells(table, digits):
        out.write(" & ".join(_tex(text) for text in row) + " \\\\\n")
    out.write("\\bottomrule\n\\end{tabular}\n")


def _numeric(table: ResultTable, j: int) -> bool:
    return bool(table.rows) and all(
        isinstance(row[j], (int, float)) or row[j] is None for row in table.rows
    )


def _grid(
    header: Sequence[str],
    cells: Sequence[Sequence[str]],
    right: Sequence[bool],
    wrap: Sequence[str] = (),
) -> Any:
    """A rich table whose cells are never cut: those of the ``wrap`` columns wrap (a
    word longer than the column folds), the others are kept whole."""
    from rich.table import Table

    grid = Table()
    for name, numeric in zip(header, right, strict=True):
        grid.add_column(
            name,
            justify="right" if numeric else "left",
            no_wrap=name not in wrap,
            overflow="fold",
        )
    for row in cells:
        grid.add_row(*row)
    return grid


def _layouts(table: ResultTable, digits: int) -> Iterator[list[Any]]:
    """The table as rich renderables, widest layout first: a row per result, then the
    columns as rows (one column per result), then one two-column block per result."""
    cells = _cells(table, digits)
    numeric = [_numeric(table, j) for j in range(len(table.columns))]
    yield [_grid(table.columns, cells, numeric, table.wrap)]
    n_keys = min(table.keys, len(table.columns))
    labels = [" ".join(c for c in row[:n_keys] if c) for row in cells]
    key = " ".join(c for c in table.columns[:n_keys] if c)  # heads the column of names
    rest = range(n_keys, len(table.columns))
    transposed = [[table.columns[j], *(row[j] for row in cells)] for j in rest]
    yield [_grid([key, *labels], transposed, [False, *[True] * len(labels)])]
    yield [
        _grid([key, label], [[table.columns[j], row[j]] for j in rest], [False, True])
        for label, row in zip(labels, cells, strict=True)
    ]


#: A cell that rich prints as it is (no markup, no emoji codes), one column per
#: character: printable ASCII, no space at either end.
_PLAIN_CELL = re.compile(r"[!-~](?:[ -~]*[!-~])?")


def _plain_grid(table: ResultTable, digits: int, out: TextIO) -> bool:
    """Write what :func:`_rich` writes to a pipe or a file, without loading rich, and
    return True; return False (nothing written) where rich could write anything else.

    Where ``out`` is no terminal by rich's rules (no ``TTY_COMPATIBLE`` or
    ``FORCE_COLOR``, no notebook, not Windows' console rules) and writes UTF-8,
    rich draws the table at its natural width with its default box (heavy head)
    and no colour; that is what this writes when every cell, title and column
    name is plain (:data:`_PLAIN_CELL`) and no column wraps.
    """
    import builtins
    import os

    if (
        table.wrap
        or not table.columns
        or sys.platform == "win32"
        or "TTY_COMPATIBLE" in os.environ
        or "FORCE_COLOR" in os.environ
        or hasattr(builtins, "get_ipython")
        or not (getattr(out, "encoding", None) or "utf-8").lower().startswith("utf")
    ):
        return False
    isatty = getattr(out, "isatty", None)
    try:
        if isatty is not None and isatty():
            return False
    except ValueError:  # a closed stream: rich's own check fails the same way
        return False
    cells = _cells(table, digits)
    texts = [*table.columns, *(c for row in cells for c in row)]
    if table.title is not None:
        texts.append(table.title)
    if not all(_PLAIN_CELL.fullmatch(text) for text in texts):
        return False
    right = [_numeric(table, j) for j in range(len(table.columns))]
    widths = [
        max(len(text) for text in (name, *(row[j] for row in cells)))
        for j, name in enumerate(table.columns)
    ]

    def line(left: str, bar: str, middle: str, end: str) -> str:
        return left + middle.join(bar * (w + 2) for w in widths) + end + "\n"

    def row(texts: list[str], edge: str) -> str:
        padded = (
            t.rjust(w) if r else t.ljust(w) for t, w, r in zip(texts, widths, right, strict=True)
        )
        return edge + " " + f" {edge} ".join(padded) + " " + edge + "\n"

    lines = [table.title + "\n"] if table.title else []
    lines += [line("┏", "━", "┳", "┓"), row(table.columns, "┃"), line("┡", "━", "╇", "┩")]
    lines += [row(r, "│") for r in cells]
    lines.append(line("└", "─", "┴", "┘"))
    out.write("".join(lines))
    return True


def _rich(table: ResultTable, digits: int, out: TextIO) -> None:
    """A rich table that never cuts a cell: on a terminal too narrow for a row per
    result, the columns as rows, else one block per result, else plain lines (on a
    pipe or a file, most tables are written by :func:`_plain_grid`, without rich)."""
    table = _shown(table)
    if _plain_grid(table, digits, out):
        return
    from rich.console import Console

    # names print as written: no markup (``[/x]``), no emoji codes (``:smile:``)
    console = Console(file=out, highlight=False, markup=False, emoji=False)
    layouts = _layouts(table, digits)
    chosen = next(layouts)
    if not console.is_terminal:
        # a pipe or a file: never truncate a column to 80 characters
        console = Console(
            file=out,
            highlight=False,
            width=max(80, _width(console, chosen)),
            color_system=None,
            markup=False,
            emoji=False,
        )
    elif not table.wrap:
        width = console.width
        chosen = next((c for c in (chosen, *layouts) if _width(console, c) <= width), [])
    if table.title:  # a pipe: never wrapped to the table; a terminal: wrapped to its width
        console.print(table.title, soft_wrap=not console.is_terminal)
    if not chosen:  # not even one block fits: a line per cell, wrapped by the terminal
        for row in table.rows:
            for name, value in zip(table.columns, row, strict=True):
                console.print(f"{name}: {_rounded(value, digits)}", soft_wrap=True)
            console.print()
    for grid in chosen:
        console.print(grid)


def _shown(table: ResultTable) -> ResultTable:
    """``table`` as a terminal shows it: each control character of a text cell, a column
    name or the title written visibly (``\\x1b``, ``\\n``: :func:`displayed`)."""

    def text(value: str) -> str:
        return displayed(value).replace("\n", "\\n")

    return replace(
        table,
        columns=[text(c) for c in table.columns],
        rows=[[text(v) if isinstance(v, str) else v for v in row] for row in table.rows],
        title=None if table.title is None else text(table.title),
    )


def _width(console: Any, grids: list[Any]) -> int:
    """The columns the widest of ``grids`` takes with no cell cut."""
    options = console.options.update_width(10**6)
    return max((console.measure(g, options=options).maximum for g in grids), default=0)


def render(
    table: ResultTable,
    fmt: OutputFormat,
    *,
    digits: int = 4,
    out: TextIO | None = None,
) -> None:
    """Write ``table`` to ``out`` (default: standard output) in format ``fmt``.

    Parameters
    ----------
    table : ResultTable
        The rows to write.
    fmt : OutputFormat
        ``table``: a rich table with values rounded to ``digits`` (on a terminal
        too narrow for it, the columns as rows or a block per row: no cell is
        ever cut); ``json``: a list of records ``[{column: value, ...}, ...]``
        with full-precision floats, ``null`` for nan, ``"Infinity"`` and
        ``"-Infinity"`` for infinities (as
        :func:`~receval.report.json_values.json_value` writes them), and the
        table's counts as ``"counts"``; ``csv`` / ``tsv``: a header and one line
        per row, floats at
        full precision (``repr``), ``nan`` when undefined, counts as extra columns,
        and a ``'`` before a text cell a spreadsheet would read as a formula
        (starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return;
        numbers are never changed); ``markdown``: a GitHub table rounded to
        ``digits``, HTML in cells escaped; ``latex``: a booktabs ``tabular``
        rounded to ``digits``.
    digits : int, default=4
        Decimals of floats in the ``table`` and ``markdown`` formats.
    out : text stream, default=None
        Where to write; ``sys.stdout`` when None.
    """
    stream = sys.stdout if out is None else out
    if fmt is OutputFormat.json:
        stream.write(dumps(table.records(), indent=2) + "\n")
    elif fmt in (OutputFormat.csv, OutputFormat.tsv):
        buffer = io.StringIO()
        _delimited(table.with_count_columns(), "," if fmt is OutputFormat.csv else "\t", buffer)
        stream.write(buffer.getvalue())
    elif fmt is OutputFormat.markdown:
        _markdown(table, digits, stream)
    elif fmt is OutputFormat.latex:
        _latex(table, digits, stream)
    else:
        _rich(table, digits, stream)
    stream.flush()


def render_sections(
    sections: Sequence[tuple[str, ResultTable]],
    fmt: OutputFormat,
    *,
    digits: int = 4,
    out: TextIO | None = None,
) -> None:
    """Write several named tables to ``out`` as one document in format ``fmt``.

    ``json`` writes one object ``{name: records, ...}`` (each value as
    :func:`render` writes that table alone); ``csv`` / ``tsv`` write each
    table after a ``# name`` line, tables separated by an empty line;
    ``markdown`` writes each table under a ``### name`` heading; ``table``
    writes the rich tables one after the other, with their titles.

    Parameters
    ----------
    sections : sequence of (str, ResultTable)
        Name and rows of each table, in order.
    fmt : OutputFormat
        As for :func:`render`.
    digits : int, default=4
        Decimals of floats in the ``table`` and ``markdown`` formats.
    out : text stream, default=None
        Where to write; ``sys.stdout`` when None.
    """
    stream = sys.stdout if out is None else out
    if fmt is OutputFormat.json:
        document = {name: table.records() for name, table in sections}
        stream.write(dumps(document, indent=2) + "\n")
        stream.flush()
        return
    for i, (name, table) in enumerate(sections):
        if i:
            stream.write("\n")
        if fmt in (OutputFormat.csv, OutputFormat.tsv):
            stream.write(f"# {name}\n")
        elif fmt is OutputFormat.markdown:
            stream.write(f"### {name}\n\n")
        elif fmt is OutputFormat.latex:
            stream.write(f"% {name}\n")
        render(table, fmt, digits=digits, out=stream)


def rows_of(columns: dict[str, Sequence[Any]]) -> tuple[list[str], list[list[Any]]]:
    """Column-wise arrays to ``(names, rows)`` of plain Python scalars."""
    names = list(columns)
    n = len(next(iter(columns.values()))) if columns else 0
    rows = [[scalar(columns[c][i]) for c in names] for i in range(n)]
    return names, rows

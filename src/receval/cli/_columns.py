"""Reading the named columns of a CSV, TSV or Parquet file for a command (an impression
log, a ``--by`` file): an error names the option that names the column, and the
file:line of a missing value.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["no_missing", "read_columns"]


def read_columns(
    path: str, options: dict[str, str], command: str, fmt: str, ids: Sequence[str] = ()
) -> Any:
    """The columns of ``path`` that ``options`` maps each to the option naming it
    (``{"zip": "--by"}``), as an Arrow table. The ``ids`` columns (users, groups,
    segments) are read as ids, text unless every one is an integer written as its
    digits (``007`` stays ``007``), and may hold no missing value."""
    from ..data.io import read_table
    from ..exceptions import InputValidationError

    try:
        table = read_table(path, list(options), command, fmt, id_columns=tuple(ids))
    except InputValidationError as exc:  # a column not in the file: the option's
        text = str(exc)
        for c, option in options.items():
            text = text.replace(f"no column {c!r}.", f"no column {c!r} ({option} {c}).")
        raise InputValidationError(text) from None
    for name in ids:  # a CSV's empty id is refused by the reader; a Parquet null here
        no_missing(table.column(name), f"{options[name]} {name}", path, fmt, command)
    return table


def no_missing(values: Any, option: str, path: str, fmt: str, command: str) -> None:
    """Raise at the file and line of the first missing value (an empty field, a null)
    of the Arrow column ``values`` that ``option`` (``--label click``) names."""
    if not values.null_count:
        return
    from .._validation import missing_values
    from ..data._open import place

    fix = "drop those rows or fill them first"
    error = missing_values(command, option, values.is_null(), "empty or null", fix)
    located = type(error)(f"{place(path, error.row, lines=fmt in ('csv', 'tsv'))}: {error}")
    located.row = error.row
    raise located

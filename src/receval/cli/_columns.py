"""Reading the named columns of a CSV, TSV or Parquet file for a command: an impression
log, a logged bandit feedback, a ``--by`` file and the item data files (features,
categories, the catalogue, candidates, propensities, a training log). An error names
the file, the option that names a missing column, and the file:line of a missing id.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ._streams import Messages

__all__ = ["columns_named", "no_missing", "read_columns"]


def read_columns(
    path: str,
    columns: Mapping[str, str | None],
    where: str,
    say: Messages,
    *,
    fmt: str | None = None,
    ids: Sequence[str] = (),
    integers: Sequence[str] = (),
    names: Sequence[str] | None = None,
) -> Any:
    """The ``columns`` of ``path`` as an Arrow table, in their order, with a progress line
    while it reads.

    ``columns`` maps each column to the option that names it (``{"zip": "--by"}``), or
    to None for a column of a fixed name (``count``, ``propensity``): a column not in
    the file is an error that names its option. ``where``: the command or the option
    of the file (``receval ctr``, ``--features``), in messages. ``fmt``: the format
    given, else the suffix's (CSV when it tells none). The ``ids`` columns (users,
    items, groups, segments) are read as ids, text unless every one is an integer
    written as its digits (``007`` stays ``007``), and must hold one value per row (no
    list or struct) and no missing value; those
    also in ``integers`` as int64 where every id is one (a file's ids read as the
    runs' integer ids). ``names``: the columns renamed.
    """
    from ..data.io import infer_format, read_table

    fmt = fmt or infer_format(path) or "csv"
    wanted = list(columns)
    file_option = where if where.startswith("--") else None
    with (
        columns_named(columns, file_option, files={path: fmt}),
        say.progress(f"Reading {say.sized(path)}…"),
    ):
        table = read_table(path, wanted, where, fmt, id_columns=tuple(ids))
    for name in ids:  # a CSV's empty id is refused by the reader; a Parquet null or NaN here
        _one_per_row(table.column(name), _named(name, columns[name]), path, where)
        no_missing(table.column(name), _named(name, columns[name]), path, fmt, where, ids=True)
    for name in integers:
        table = table.set_column(
            table.schema.get_field_index(name), name, _integer_ids(table.column(name))
        )
    table = table.select(wanted)
    return table if names is None else table.rename_columns(list(names))


#: The options whose column may hold any values (ids, segments, times); any other
#: option's holds numbers (scores, labels, weights, grades)
_ANY_VALUES = frozenset({"--user", "--item", "--group", "--segment", "--by", "--time", "--signup"})


@contextlib.contextmanager
def columns_named(
    columns: Mapping[Any, str | None],
    file_option: str | None = None,
    *,
    files: Mapping[str, str | None],
) -> Iterator[None]:
    """The error of a column not in a file read meanwhile with the option that names it
    (``columns``: the option of each column, None for one no option names), and the
    fix: the columns of the file that could serve the option (``data.csv: no column
    'nope' (--score nope). Got columns ['user', 'click', 'a']; name one of ['a'] with
    --score.``: :func:`_could_serve`), the fix of a column of a fixed name the file
    ``file_option`` names lacks (``--item-groups FILE needs the columns 'item' (--item
    item) and 'group': ...``), and an id column a reader names (``the 'seg' column has
    no id``) by its option; any other error as it is. ``files``: the format of each
    file read meanwhile (None: its suffix's)."""
    from ..exceptions import InputValidationError

    try:
        yield
    except InputValidationError as exc:
        text = str(exc)
        for column, option in columns.items():  # the reader's words: its option's
            if option is not None:
                text = text.replace(f"the {column!r} column", f"{option} {column}")
        for column, option in columns.items():
            said = f"no column {column!r}."
            if said not in text:
                continue
            if option is None and file_option is not None and text.endswith("]."):
                needs = " and ".join(f"{c!r} ({o} {c})" if o else repr(c)
                                     for c, o in columns.items())  # fmt: skip
                text = text[:-1] + (f"; {file_option} FILE needs the columns {needs}: name "
                                    f"its column of the {column}s {column!r}.")  # fmt: skip
            elif option is not None:
                text = text.replace(said, f"no column {column!r} ({option} {column}).")
                read = [p for p in files if text.startswith(p)]
                # the library's fix names its argument (score=): the option's offers instead
                argument = f"]; pass {option.lstrip('-').replace('-', '_')}="
                if read and argument in text:
                    text = text[: text.index(argument) + 1] + "."
                if read and text.endswith("]."):  # no fix yet (a header of one field has)
                    text = text[:-1] + _could_serve(
                        column, option, columns, max(read, key=len), files
                    )
            break
        if text == str(exc):
            raise
        raise type(exc)(text) from None


def _could_serve(
    column: str, option: str, columns: Mapping[Any, str | None], path: str,
    files: Mapping[str, str | None],
) -> str:  # fmt: skip
    """The end of the message of ``column``, named by ``option``, not in the file
    ``path``: the file's columns that could serve ``option`` instead, or that none can.
    Those are the columns no other option names; for an option of numbers (one not in
    :data:`_ANY_VALUES`), of those, the columns of numbers that are no id or time column
    of a default name either, as the grades' (:func:`receval.data.io.value_columns`)."""
    import pyarrow as pa

    from .._validation import format_values
    from ..data.io import table_schema, value_columns

    schema = table_schema(path, files[path])
    if schema is None:  # read no more (its reader says why)
        return "."
    used = [c for c in columns if c != column]
    if option in _ANY_VALUES:
        offered, kinds = [n for n in schema.names if n not in used], "a column"
    else:
        numbers = [f.name for f in schema if pa.types.is_integer(f.type) or
                   pa.types.is_floating(f.type)]  # fmt: skip
        offered, kinds = value_columns(numbers, used), "a column of numbers, no id or time,"
    if not offered:
        return (f", none of which could serve {option} (it takes {kinds} that no other "
                f"option names); add that column to the file.")  # fmt: skip
    return f"; name one of {format_values(offered)} with {option}."


def _named(column: str, option: str | None) -> str:
    """A column as messages name it: with its option (``--label click``), else quoted."""
    return f"{option} {column}" if option is not None else f"the column {column!r}"


def _one_per_row(values: Any, named: str, path: str, where: str) -> None:
    """Raise, naming the file, the command or the option of the file (``where``) and
    the column (``named``: with its option), when the Arrow column ``values`` of ids
    or labels holds lists, structs or maps (a Parquet file's nested column) rather
    than one value per row."""
    import pyarrow as pa

    from ..exceptions import InputValidationError

    if not pa.types.is_nested(values.type):
        return
    raise InputValidationError(
        f"{path}: {where}: {named} must hold one id or label per row (a number, a string "
        f"or a boolean). Got values of type {values.type}; write one value per row there."
    )


def _integer_ids(column: Any) -> Any:
    """An id column as int64 where every id is an integer, else as it is."""
    import pyarrow as pa
    import pyarrow.compute as pc

    try:
        return pc.cast(column, pa.int64())
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return column


def no_missing(
    values: Any, option: str, path: str, fmt: str, command: str, *, ids: bool = False
) -> None:
    """Raise at the file and line of the first missing value (an empty field, a null;
    in a column of ``ids``, a NaN too, which is no id) of the Arrow column ``values``
    that ``option`` (``--label click``) names."""
    import pyarrow as pa

    from .._validation import missing_values
    from ..data._arrow import to_numpy
    from ..data._open import file_error

    kind = values.type.value_type if pa.types.is_dictionary(values.type) else values.type
    nan = ids and pa.types.is_floating(kind)  # a Parquet column of floats
    if not values.null_count and not nan:
        return
    missing = to_numpy((values.cast(kind) if nan else values).is_null(nan_is_null=nan))
    if not missing.any():
        return
    what = "empty, null or NaN" if ids else "empty or null"
    fix = "drop those rows or fill them first"
    error = missing_values(command, option, missing, what, fix)
    where, said = file_error(error, path, error.row, lines=fmt in ("csv", "tsv"))
    located = type(error)(f"{where}: {said}")
    located.row = error.row
    raise located

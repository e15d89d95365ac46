"""An interaction log in memory: its frame, the columns a split reads, and taking rows.

A log is a pandas or polars DataFrame, an Arrow table, or a CSV/Parquet path or a
directory of Parquet files (read with pyarrow into an Arrow table). The split functions
read the user, item and time columns once, as dense codes and sort keys, and hand back
the rows they choose in the log's own frame type (pandas keeps the log's index).
"""

from __future__ import annotations

import os
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import format_values
from ..data import io
from ..data._arrow import take_at
from ..data._csv import csv_header
from ..data._encode import factorize, id_ranks
from ..data._open import check_file, not_parquet, sentence
from ..data._times import TIME_NAMES, time_column
from ..exceptions import InputValidationError, InvalidParameterError

#: the time column's names tried, in order, when none is given


@dataclass(eq=False)
class Log:
    """The columns of a log a split reads, and its frame to take rows from."""

    frame: Any
    kind: str  # "pandas", "polars" or "arrow"
    columns: dict[str, str | None]  # role -> column name: user, item, time, rating
    user_codes: np.ndarray
    user_ids: np.ndarray  # by code
    item_codes: np.ndarray | None
    n_items: int
    times: np.ndarray | None  # sort keys (int64 or float64)
    unit: np.dtype[Any] | None  # datetime64 type of the time column, None for numbers
    zone: str | None  # the times' time zone (receval.data._times.time_column), None: naive

    @property
    def n_rows(self) -> int:
        return len(self.user_codes)

    @property
    def n_users(self) -> int:
        return len(self.user_ids)

    def take(self, rows: np.ndarray) -> Any:
        """The rows (input positions, ascending) in the log's frame type."""
        if self.kind == "pandas":
            return self.frame.iloc[rows]
        if self.kind == "polars":
            return self.frame[rows]
        return take_at(self.frame, rows)

    def sorted_user_codes(self) -> np.ndarray:
        """The rank of each user's id among the ids sorted (the seeded streams draw
        over users in this order, so the log's row order does not change them)."""
        return id_ranks(self.user_ids)


def pick_time(names: list[str], time: str | None, func: str) -> str:
    """The time column: the one named, else the first of :data:`TIME_NAMES` present."""
    if time is not None:
        return time
    found = next((n for n in TIME_NAMES if n in names), None)
    if found is None:
        raise InvalidParameterError(
            f"{func}: the log has no column 'timestamp' or 'time'. Got columns "
            f"{format_values(names, limit=10)}; pass time='<column name>'."
        )
    return found


def read_file(
    path: str | os.PathLike[str], id_columns: tuple[str, ...], func: str, time: str | None = None
) -> Any:
    """A whole CSV/TSV/Parquet file as an Arrow table (ids in CSV kept as strings), or
    the Parquet files of a directory, as :func:`receval.scan` finds them, one after
    the other (``time``: the time column, if named)."""
    path = os.fspath(path)
    if os.path.isdir(path):
        return _read_directory(path, func, time)
    fmt = io.infer_format(path)
    if fmt == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        check_file(path)
        try:
            names = pq.read_schema(path).names
        except pa.ArrowInvalid as exc:
            raise not_parquet(path, exc) from exc
    elif fmt in ("csv", "tsv"):
        check_file(path)
        names = csv_header(path, fmt)
    else:
        raise InvalidParameterError(
            f"{func}: cannot tell the format of {path!r} from its suffix; name it .csv, .tsv "
            f"or .parquet."
        )
    return io.read_table(path, names, func, fmt, id_columns=id_columns)


def _read_directory(path: str, func: str, time: str | None) -> Any:
    """The rows of a directory's Parquet files (those :func:`receval.scan` reads, in its
    order) as one Arrow table, the keys of ``key=value`` directories (hive partitions)
    as columns after the files' own, as :func:`receval.scan` reads them; a column the
    files hold in types of one kind is held in :func:`held_type`'s, the time column
    (``time``, else the first of :data:`TIME_NAMES` present) in
    :func:`held_time_type`'s, as a split of the directory out of core reads them."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from ..data.scan import scan

    source = scan(path)
    tables = [source.with_keys(i, pq.read_table(f)) for i, f in enumerate(source.paths)]
    names = dict.fromkeys(name for table in tables for name in table.column_names)
    time = time if time is not None else next((n for n in TIME_NAMES if n in names), None)
    types: dict[str, Any] = {}
    for name in names:
        given = [(p, t.schema.field(name).type) for p, t in zip(source.paths, tables, strict=True)
                 if name in t.column_names]  # fmt: skip
        held = held_time_type if name == time else held_type
        types[name] = held(name, given, func)
    for i, (part, table) in enumerate(zip(source.paths, tables, strict=True)):
        columns = []
        for field, column in zip(table.schema, table.columns, strict=True):
            try:
                columns.append(column.cast(types[field.name]))
            except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
                raise InputValidationError(
                    f"{func}: column {field.name!r} is {field.type} in {part}, and the "
                    f"directory is read with it as {types[field.name]}, which cannot hold a "
                    f"value of {part} ({sentence(exc).rstrip('.')}); write every file with "
                    f"one type for {field.name!r} that holds all its values (e.g. string)."
                ) from exc
        fields = [f.with_type(types[f.name]) for f in table.schema]
        tables[i] = pa.Table.from_arrays(columns, schema=pa.schema(fields, table.schema.metadata))
    table = pa.concat_tables(tables, promote_options="default")  # a missing column: nulls
    if not table.num_rows:
        raise InputValidationError(f"{path}: the files have no rows; pass a log with rows.")
    return table


def held_type(name: str, types: list[tuple[str, Any]], func: str) -> Any:
    """The one Arrow type that files holding column ``name`` in ``types`` (``(path,
    type)`` of each, in order) are read in: the wider of types of one kind
    (:func:`wider_type`: int64 for int32 beside int64), or the first file's where
    Arrow widens neither to the other (a dictionary beside strings). Types of other
    kinds (integers beside floats: float64 ids lose those past 2**53) are refused."""
    from ..data.scan import type_kind

    first, expected = types[0]
    held = expected
    for path, given in types[1:]:
        if type_kind(given) != type_kind(expected):
            raise InputValidationError(
                f"{func}: column {name!r} is {given} in {path}, but {expected} in "
                f"{first}; write every file with the same column types (e.g. cast "
                f"{name!r} to {expected})."
            )
        held = wider_type(held, given) or held
    return held


def held_time_type(name: str, types: list[tuple[str, Any]], func: str) -> Any:
    """The one Arrow type that files holding the time column ``name`` in ``types``
    (``(path, type)`` of each, in order) are read in: the finest unit of their
    timestamps (times in ms in one file and in µs in another are compared in µs),
    floats for integers beside floats (:func:`wider_type`). Types that share no time
    (dates beside timestamps, a time zone beside none) are refused."""
    (first, expected), held = types[0], types[0][1]
    for path, given in types[1:]:
        held = wider_type(held, given)
        if held is None:
            raise InputValidationError(
                f"{func}: the time column {name!r} is {expected} in {first} and {given} in "
                f"{path}, which hold no common time; give every file one type of time (e.g. "
                f"timestamps, with or without a time zone in all)."
            )
    return held


def wider_type(a: Any, b: Any) -> Any:
    """The Arrow type that holds the values of types ``a`` and ``b``, as
    ``pyarrow.unify_schemas`` with ``promote_options="permissive"`` widens them (the
    finer unit of two timestamps, int64 for int32 beside int64, float64 for integers
    beside floats); None where it widens neither to the other."""
    import pyarrow as pa

    fields = [pa.schema([pa.field("column", kind)]) for kind in (a, b)]
    try:
        return pa.unify_schemas(fields, promote_options="permissive").field(0).type
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None


def read_log(
    data: Any,
    *,
    user: str,
    item: str | None,
    time: str | None,
    rating: str | None = None,
    func: str,
    need_time: bool = True,
) -> Log:
    """Read a log's columns for a split (``need_time``: the time column must exist); a
    file's bad values are named by their line (CSV, TSV) or row (Parquet)."""
    where: Any = nullcontext()
    if isinstance(data, (str, os.PathLike)):
        ids = tuple(c for c in (user, item) if c is not None)
        path, data = data, read_file(data, ids, func, time)
        if not data.num_rows:
            raise io.header_only(path)
        where = io.located(path, io.infer_format(os.fspath(path)), (user, item or user))
    elif not io.is_frame(data):
        raise InvalidParameterError(
            f"{func}: the log must be a pandas or polars DataFrame, an Arrow table, or the "
            f"path of a CSV or Parquet file. Got {type(data).__name__} instead."
        )
    if io.module_of(data) == "pyarrow" and type(data).__name__ == "RecordBatch":
        import pyarrow as pa

        data = pa.Table.from_batches([data])
    kind = {"pandas": "pandas", "polars": "polars"}.get(io.module_of(data), "arrow")
    names = io.column_names(data)
    time_name = pick_time(names, time, func) if need_time or time is not None else None
    roles = {"user": user, "item": item, "time": time_name, "rating": rating}
    io.check_columns(data, roles, func)
    cols = io.frame_columns(data, {**roles, "time": None}, func)  # the time: as the frame types it
    with where:
        user_codes, user_ids = factorize(cols["user"], f"the user column {user!r}", func)
        item_codes, n_items = None, 0
        if item is not None:
            item_codes, item_ids = factorize(cols["item"], f"the item column {item!r}", func)
            n_items = len(item_ids)
        times = unit = zone = None
        if time_name is not None:
            column = f"the time column {time_name!r}"
            times, unit, zone = time_column(data[time_name], func, column)
    return Log(
        data,
        kind,
        roles,
        np.asarray(user_codes),
        np.asarray(user_ids),
        None if item_codes is None else np.asarray(item_codes),
        n_items,
        times,
        unit,
        zone,
    )

"""The columns of Qrels and Run read chunk by chunk: the row groups of a Parquet
file, or the chunks of an Arrow table.

Each chunk of a column is handed to the compiled core as a NumPy view of
Arrow's buffer (no copy): integer user ids become CSR offsets (runs of equal
ids; a run may cross chunks), integer item ids are written as offsets from the
first id into one int32 array and numbered in place once every chunk is in,
and the scores of a run grouped by user are ranked straight from each chunk
into the run's own score array (a list that crosses a chunk boundary is ranked
once its last row is in). No column is copied into an intermediate buffer; a
Parquet file is decoded a few row groups at a time, by threads, while the core
works on the previous ones, so a column is never whole in memory.

Columns this path cannot take are read whole, as other in-memory columns are:
string or float ids, ids with nulls (whose error counts every null), ids over a
wide range (hashed), and users whose rows are not contiguous (the CSR position
of a row is only known once every user id is read).
"""

from __future__ import annotations

from contextlib import closing
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import _validation as v
from .._kernels import compiled, empty_output, num_threads
from ..exceptions import InputValidationError
from . import io
from ._arrow import numeric_view
from ._encode import encode_ids, group_users
from ._int_ids import factorize_int_chunks, int_runs_of_chunks

Source = io.ParquetColumns | io.ArrowColumns


@dataclass
class Columns:
    """Encoded columns of a Qrels or a Run, grouped by user.

    ``rows`` is empty when the file's rows are grouped by user (the identity); the
    ids are as :func:`~receval.data._encode.encode_ids` gives them (string ids an
    Arrow array);
    ``values`` are the grades or scores as read, or, with ``ranked``, the run's
    scores in ranked order with ``item_codes`` beside them, and ``duplicate`` the
    first user holding an item twice (-1 if none).
    """

    offsets: np.ndarray
    rows: np.ndarray
    user_ids: Any
    item_codes: np.ndarray
    item_ids: Any
    values: Any
    ranked: bool = False
    duplicate: int = -1


def _is_integer(kind: Any) -> bool:
    import pyarrow as pa

    return bool(pa.types.is_integer(kind))


def _is_number(kind: Any) -> bool:
    import pyarrow as pa

    return bool(pa.types.is_integer(kind) or pa.types.is_floating(kind)) and not (
        pa.types.is_float16(kind)
    )


def _users(source: Source, column: str, func: str) -> tuple[Any, Any, Any]:
    """CSR offsets, row of each position (empty: grouped) and user ids."""
    if compiled() is not None and _is_integer(source.type_of(column)):
        with closing(source.chunks(column)) as chunks:
            runs = int_runs_of_chunks(map(numeric_view, chunks))
        if runs is not None:
            return runs[0], np.empty(0, dtype=np.int64), runs[1]
    users = source.read(column)
    source.release()
    return group_users(users, func)


def _items(source: Source, column: str, func: str) -> tuple[Any, Any]:
    """Item codes (int32, ours to reorder) and item ids."""
    n = source.num_rows
    if compiled() is not None and _is_integer(source.type_of(column)):
        # the smallest id as the anchor: with every id of the range present, the
        # codes are then the offsets as written, with nothing to renumber
        low = source.smallest(column)
        with closing(source.chunks(column)) as chunks:
            encoded = factorize_int_chunks(map(numeric_view, chunks), n, any_order=True, anchor=low)
        if encoded is not None:
            return encoded
    items = source.read(column)
    codes, ids = encode_ids(items, "items", func, any_order=True)
    del items
    source.release()
    if codes.dtype != np.int32 or not codes.flags.writeable or not codes.flags.c_contiguous:
        codes = np.array(codes, dtype=np.int32)
    return codes, ids


def _numbers(chunk: Any, name: str, func: str, start: int) -> np.ndarray:
    """A row group of scores or grades as finite float64 (nulls are NaN: an error
    whose ``row`` counts from the file's first row; ``start``: the group's first)."""
    try:  # Arrow's numbers read through their buffer (_validation's conversion)
        return v.check_scores(chunk, name, func)
    except InputValidationError as exc:
        raise exc.moved(start) from None


def _whole_numbers(source: Source, column: str, name: str, func: str) -> np.ndarray:
    values = v.check_scores(source.read(column), name, func)
    source.release()
    return values


def _rank_chunks(
    source: Source,
    column: str,
    offsets: np.ndarray,
    items: np.ndarray,
    n_items: int,
    negate: bool,
    name: str,
    func: str,
) -> tuple[np.ndarray, int]:
    """Rank the lists of a run grouped by user, row group by row group: the scores
    in ranked order (a new array) and the first user with an item twice (-1 if
    none); ``items`` is reordered in place. ``negate``: the column holds ranks."""
    core = compiled()
    n = int(offsets[-1])
    scores = empty_output(n, np.float64)
    n_chunks = 4 * num_threads()
    no_rows = np.empty(0, dtype=np.int64)
    found: list[int] = []
    pending = 0  # the first list not ranked yet
    start = 0

    def in_place(g0: int, g1: int) -> None:
        """Rank the lists g0..g1, whose rows are all in ``scores`` already."""
        a, b = int(offsets[g0]), int(offsets[g1])
        _, _, dup = core.rank_rows(
            offsets[g0 : g1 + 1] - a, no_rows, items[a:b], scores[a:b], n_items, True, True,
            n_chunks,
        )  # fmt: skip
        if dup >= 0:
            found.append(g0 + int(dup))

    with closing(source.chunks(column)) as chunks:
        for chunk in chunks:
            # float64 without nulls is taken as it is: the core checks the keys it
            # ranks are finite, and the rows it does not rank are checked here
            view = numeric_view(chunk)
            unchecked = view is not None and view.dtype == np.float64
            keys = view if view is not None and unchecked else _numbers(chunk, name, func, start)
            if negate:
                keys = -keys
            stop = start + len(keys)
            if stop > n:  # pragma: no cover - the file changed while read
                raise InputValidationError(f"{source.path}: the data changed while read.")
            # lists g0..g1 lie inside the row group; rows before offsets[g0] end a list
            # begun earlier, rows from offsets[g1] on begin one that goes on
            g0 = int(np.searchsorted(offsets, start, "left"))
            g1 = int(np.searchsorted(offsets, stop, "right")) - 1
            if g1 < g0:  # the row group lies inside one list
                if unchecked:
                    _numbers(chunk, name, func, start)
                scores[start:stop] = keys
            else:
                a, b = int(offsets[g0]), int(offsets[g1])
                if unchecked and not (
                    np.isfinite(keys[: a - start]).all() and np.isfinite(keys[b - start :]).all()
                ):
                    _numbers(chunk, name, func, start)  # raises, naming the row
                scores[start:a] = keys[: a - start]
                scores[b:stop] = keys[b - start :]
                if pending < g0:
                    in_place(pending, g0)
                if g0 < g1:
                    dup, finite = core.rank_rows_into(
                        offsets[g0 : g1 + 1] - start, items[a:b], keys, scores[a:b], n_items,
                        n_chunks,
                    )  # fmt: skip
                    if not finite:
                        _numbers(chunk, name, func, start)  # raises, naming the row
                    if dup >= 0:
                        found.append(g0 + int(dup))
                pending = g1
            start = stop
    if start != n:  # pragma: no cover - the file changed while read
        raise InputValidationError(f"{source.path}: the data changed while read.")
    return scores, min(found, default=-1)


def read_run(
    source: Source, user: str, item: str, value: str, from_ranks: bool, func: str
) -> Columns:
    """The columns of a run: ranked already when its rows are grouped by user."""
    if source.num_rows == 0:
        v.check_not_empty(0, "users", func)
    offsets, rows, user_ids = _users(source, user, func)
    item_codes, item_ids = _items(source, item, func)
    name = "ranks" if from_ranks else "scores"
    if len(rows) == 0 and compiled() is not None and _is_number(source.type_of(value)):
        scores, dup = _rank_chunks(
            source, value, offsets, item_codes, len(item_ids), from_ranks, name, func
        )
        source.release()
        return Columns(offsets, rows, user_ids, item_codes, item_ids, scores, True, dup)
    values = _whole_numbers(source, value, name, func)
    return Columns(offsets, rows, user_ids, item_codes, item_ids, values)


def read_qrels(source: Source, user: str, item: str, grade: str | None, func: str) -> Columns:
    """The columns of qrels; ``values`` are the grades as float64 (None without a
    grade column), not yet checked to be integers."""
    n = source.num_rows
    if n == 0:
        v.check_not_empty(0, "users", func)
    offsets, rows, user_ids = _users(source, user, func)
    item_codes, item_ids = _items(source, item, func)
    grades: Any = None
    if grade is not None and compiled() is not None and _is_number(source.type_of(grade)):
        grades = np.empty(n, dtype=np.float64)
        start = 0
        with closing(source.chunks(grade)) as chunks:
            for chunk in chunks:
                values = _numbers(chunk, "grades", func, start)
                grades[start : start + len(values)] = values
                start += len(values)
        if start != n:  # pragma: no cover - the file changed while read
            raise InputValidationError(f"{source.path}: the data changed while read.")
    elif grade is not None:
        grades = _whole_numbers(source, grade, "grades", func)
    source.release()
    return Columns(offsets, rows, user_ids, item_codes, item_ids, grades)

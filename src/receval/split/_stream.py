"""Out-of-core splits of a :class:`receval.Scan`: passes over its files, parts written by batch.

Memory is bounded by the number of users and items, not rows: ``temporal`` with a
cut-off reads the files once; with a quantile it first reads the time column three
times (its count and range, a histogram of 65,536 bins, then the distinct times of
the bins holding the two order statistics). ``leave_last_out`` reads the user and
time columns once to keep each user's row count and last ``n`` keys ``(time,
row)``, then routes every row. Rows are numbered across the files in the order the
scan reads them, so the tie rule is the in-memory one, and so is the split; the keys
of ``key=value`` directories (hive partitions) are columns, in the parts too.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import Any

import numpy as np

from .._validation import format_values, missing_values
from ..data import io
from ..data._arrow import is_arrow, take_at, to_numpy
from ..data._encode import column_array, factorize, join_ids
from ..data._open import sentence
from ..data._origin import Batch, Origin, located
from ..data._times import check_zone, cutoff_key, earlier, time_column
from ..exceptions import InputValidationError, InvalidParameterError
from ._log import held_time_type, held_type, pick_time
from ._order import last_of_each, quantile_cut, user_order
from ._result import SplitResult

__all__ = ["leave_last_out_scan", "temporal_scan"]

_BINS = 1 << 16
#: ids below this are counted in a table indexed by the id (8 bytes an id)
_DENSE_LIMIT = 1 << 24


def _ids(where: Batch, batch: Any, name: str, role: str, func: str) -> np.ndarray:
    """A batch's ids of column ``name`` as NumPy (strings as an object array) for
    sorting and searching; missing ids raise, naming their file and row (``where``)."""
    arr = column_array(batch.column(batch.schema.get_field_index(name)))
    missing, what = None, "null"
    if is_arrow(arr):
        missing = arr.is_null() if arr.null_count else None
        arr = to_numpy(arr)
    else:
        arr = np.asarray(arr)
        if arr.dtype.kind == "f" and np.isnan(arr).any():
            missing, what = np.isnan(arr), "NaN"
    if missing is not None:
        fix = f"drop those rows or fill them with a {role} id"
        with located(where):
            raise missing_values(func, f"the {role} column {name!r}", missing, what, fix)
    return arr


class _Distinct:
    """Distinct ids seen so far (sorted) and their rows.

    Small non-negative integer ids are counted in a table indexed by the id (one
    pass, no sort) while they fit ``_DENSE_LIMIT``; other ids are merged sorted.
    """

    def __init__(self) -> None:
        self._ids: np.ndarray | None = None
        self._counts = np.zeros(0, dtype=np.int64)
        self._table: np.ndarray | None = None  # counts by id, while dense

    def add(self, ids: np.ndarray) -> None:
        if not len(ids):
            return
        if self._ids is None and ids.dtype.kind in "iu":
            low, high = int(ids.min()), int(ids.max())
            size = 0 if self._table is None else len(self._table)
            if low >= 0 and high < _DENSE_LIMIT:
                counts = np.bincount(ids, minlength=max(size, high + 1))
                self._table = (
                    counts
                    if self._table is None
                    else counts + np.pad(self._table, (0, len(counts) - size))
                )
                return
        self._sparse()
        uniq, counts = np.unique(ids, return_counts=True)
        if self._ids is not None:
            merged, inverse = np.unique(join_ids([self._ids, uniq]), return_inverse=True)
            total = np.zeros(len(merged), dtype=np.int64)
            np.add.at(total, inverse.ravel(), np.concatenate([self._counts, counts]))
            uniq, counts = merged, total
        self._ids, self._counts = uniq, counts

    def _sparse(self) -> None:
        """Leave the dense table for sorted ids and counts."""
        if self._table is not None:
            self._ids = np.flatnonzero(self._table)
            self._counts = self._table[self._ids]
            self._table = None

    @property
    def ids(self) -> np.ndarray | None:
        self._sparse()
        return self._ids

    @property
    def counts(self) -> np.ndarray:
        self._sparse()
        return self._counts

    def __len__(self) -> int:
        ids = self.ids
        return 0 if ids is None else len(ids)

    def isin(self, other: _Distinct) -> np.ndarray:
        """Which of this set's ids ``other`` holds."""
        mine, theirs = self.ids, other.ids
        if mine is None:
            return np.zeros(0, dtype=bool)
        if theirs is None:
            return np.zeros(len(mine), dtype=bool)
        return np.isin(join_ids([mine]), theirs)


def unwritable(
    subject: str, path: str, error: OSError, made: str | None = None
) -> InvalidParameterError:
    """The refusal of an output ``path``, given as ``subject`` (``leave_last_out:
    train_path``, ``receval split: --train``), whose folder takes no new file
    (read-only, ``/proc``): the system's reason, and ``made``, the file opened first
    beside it, if any."""
    why = os.strerror(error.errno) if error.errno else str(error)
    beside = f", making {made!r} beside it" if made else ""
    return InvalidParameterError(
        f"{subject} {path!r} cannot be written ({why}{beside}); write into a folder that "
        f"takes new files."
    )


#: The arguments naming the two output files, in their order.
_PATHS = ("train_path", "test_path")


class _Parts:
    """The two output files, and the counts of what goes where.

    The files are written under temporary names beside them (opened on the first
    batch) and put in place by :meth:`close` only: a split that fails midway (a bad
    row in a later batch) removes what it wrote (as a context manager) and leaves
    the files as they were, not parts of the rows before it.
    """

    def __init__(
        self, scan: Any, types: dict[str, Any], train_path: Any, test_path: Any, func: str
    ) -> None:
        if train_path is None or test_path is None:
            raise InvalidParameterError(
                f"{func}: a Scan is split into files; pass train_path= and test_path= "
                f"(.parquet or .csv)."
            )
        self.paths = [os.fspath(train_path), os.fspath(test_path)]
        if os.path.abspath(self.paths[0]) == os.path.abspath(self.paths[1]):
            raise InvalidParameterError(
                f"{func}: train_path and test_path name the same file {self.paths[0]!r}; "
                f"name two files."
            )
        for path in self.paths:
            if not path.lower().endswith((".parquet", ".pq", ".csv")):
                raise InvalidParameterError(
                    f"{func}: cannot tell the format to write {path!r} in; name it .parquet "
                    f"or .csv."
                )
        self.scan, self.types, self.func = scan, types, func
        self.partial = [
            os.path.join(os.path.dirname(path), f".{os.path.basename(path)}.partial")
            for path in self.paths
        ]
        self.writers: list[Any] = []
        self.schema: Any = None
        self.users = [_Distinct(), _Distinct(), _Distinct()]  # train, test, all
        self.items = [_Distinct(), _Distinct(), _Distinct()]

    def _open(self, schema: Any) -> None:
        """Open the writers, in the first batch's ``schema`` with the columns whose
        files hold them in other types in the type of all (:func:`_one_layout`)."""
        import pyarrow as pa
        import pyarrow.csv as pcsv
        import pyarrow.parquet as pq

        fields = [f.with_type(self.types.get(f.name, f.type)) for f in schema]
        self.schema = schema = pa.schema(fields, metadata=schema.metadata)
        for name, path, partial in zip(_PATHS, self.paths, self.partial, strict=True):
            try:
                if path.lower().endswith(".csv"):
                    self.writers.append(pcsv.CSVWriter(partial, schema))
                else:
                    self.writers.append(pq.ParquetWriter(partial, schema))
            except OSError as error:
                raise unwritable(f"{self.func}: {name}", path, error, partial) from None

    def __enter__(self) -> _Parts:
        return self

    def __exit__(self, kind: Any, error: Any, traceback: Any) -> None:
        if kind is not None:  # the split failed: remove what it wrote
            for writer in self.writers:
                with contextlib.suppress(Exception):
                    writer.close()
            for partial in self.partial:
                with contextlib.suppress(FileNotFoundError):
                    os.remove(partial)

    def write(
        self, where: Batch, batch: Any, masks: list[np.ndarray], users: np.ndarray, items: Any
    ) -> None:
        import pyarrow as pa

        table = pa.Table.from_batches([batch])
        if self.schema is None:
            self._open(table.schema)
        if not table.schema.equals(self.schema):
            table = self._cast(table, where.origin.paths()[0])
        self.users[2].add(users)
        if items is not None:
            self.items[2].add(items)
        for k, mask in enumerate(masks):
            if mask.any():
                # the rows as Arrow positions: pa.array of the mask would import pandas
                self.writers[k].write_table(take_at(table, np.flatnonzero(mask)))
                self.users[k].add(users[mask])
                if items is not None:
                    self.items[k].add(items[mask])

    def _cast(self, table: Any, path: str) -> Any:
        """The rows of the file ``path`` in the parts' schema; a value that its type
        cannot hold (a uint64 past int64 beside int64 files) raises naming both files."""
        import pyarrow as pa

        columns = []
        for column, field in zip(table.columns, self.schema, strict=True):
            try:
                columns.append(column.cast(field.type))
            except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
                name, given = field.name, column.type
                other, kind = next((p, t) for p, t in self.scan.column_types(name) if t != given)
                raise InputValidationError(
                    f"{self.func}: column {name!r} is {given} in {path} and {kind} in {other}, "
                    f"and the parts hold it as {field.type}, which cannot hold a value of "
                    f"{path} ({sentence(exc).rstrip('.')}); write every file of a scan with "
                    f"one type for {name!r} that holds all its values (e.g. string)."
                ) from exc
        return pa.Table.from_arrays(columns, schema=self.schema)

    def close(self, method: str, columns: dict[str, str | None]) -> SplitResult:
        from ..data.scan import scan

        if self.schema is None:
            raise _no_rows(self.scan)
        for writer in self.writers:
            writer.close()
        for partial, path in zip(self.partial, self.paths, strict=True):
            os.replace(partial, path)
        (tr_u, te_u, all_u), (tr_i, te_i, all_i) = self.users, self.items
        in_train, in_test = te_u.isin(tr_u), tr_u.isin(te_u)
        cold_items = ~te_i.isin(tr_i)
        n_rows = int(all_u.counts.sum())
        n_train, n_test = int(tr_u.counts.sum()), int(te_u.counts.sum())
        return SplitResult(
            train=scan(self.paths[0]),
            test=scan(self.paths[1]),
            method=method,
            fold=None,
            n_rows=n_rows,
            n_users=len(all_u),
            n_items=len(all_i),
            n_train_rows=n_train,
            n_test_rows=n_test,
            n_train_users=len(tr_u),
            n_test_users=len(te_u),
            n_users_dropped=len(all_u) - len(tr_u) - len(te_u) + int(in_train.sum()),
            n_rows_dropped=n_rows - n_train - n_test,
            n_users_without_test=int((~in_test).sum()),
            n_cold_users=int((~in_train).sum()),
            n_cold_items=int(cold_items.sum()),
            n_test_rows_cold_items=int(te_i.counts[cold_items].sum()),
            columns=dict(columns),
        )


def _no_rows(scan: Any) -> InputValidationError:
    if scan.file_format == "parquet":
        return InputValidationError(f"{scan.name}: the files have no rows; pass a log with rows.")
    return io.header_only(scan.name)


def _batches(
    scan: Any, columns: list[str], ids: tuple[str, ...], time: tuple[str, Any]
) -> Iterator[tuple[Batch, Any]]:
    """The scan's record batches (all columns, or ``columns``; the keys of ``key=value``
    directories among them), file by file, each with its rows' origin (a
    :class:`Batch` of no columns) for :func:`located`; ``time``: the time column and
    the type its files are read as (:func:`_time_type`)."""
    rows = scan.batch_rows
    if scan.file_format == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        name, kind = time
        for index, path in enumerate(scan.paths):
            first = 0
            reader = pq.ParquetFile(path)
            own = [c for c in columns if c in reader.schema_arrow.names] if columns else None
            for batch in reader.iter_batches(batch_size=rows, columns=own):
                batch = scan.with_keys(index, batch, columns or None)
                at = batch.schema.get_field_index(name)
                if kind is not None and at >= 0 and batch.schema.field(at).type != kind:
                    try:
                        times = batch.column(at).cast(kind)
                    except pa.ArrowInvalid as exc:
                        raise InputValidationError(
                            f"{path}: the time column {name!r} holds a time that {kind} (the "
                            f"type of the scan's times) cannot: {sentence(exc)}"
                        ) from exc
                    batch = pa.RecordBatch.from_arrays(
                        [times if i == at else c for i, c in enumerate(batch.columns)],
                        schema=batch.schema.set(at, pa.field(name, kind)),
                    )
                yield Batch({}, Origin(((path, first, batch.num_rows),), False)), batch
                first += batch.num_rows
        return
    # the scan's own reader: its block (grown past a long row), dialect and ranges
    for path, first, batch in scan._csv_batches(columns, ids, (), lambda n: None):
        yield Batch({}, Origin(((path, first, batch.num_rows),), True)), batch


def _columns(
    scan: Any, user: str, item: str | None, time: str | None, func: str
) -> tuple[str, Any, dict[str, Any]]:
    """Check the scan's columns; the time column's name, :func:`_time_type` and the
    types of the other columns in the parts (:func:`_one_layout`)."""
    names = list(scan.columns)  # with the keys of key=value directories (hive partitions)
    time_name = pick_time(names, time, func)
    for role, name in (("user", user), ("item", item), ("time", time_name)):
        if name is not None and name not in names:
            raise InvalidParameterError(
                f"{func}: {scan.name} has no column {name!r} for the {role} in its files. "
                f"Got columns {names[:10]!r}; pass {role}='<column name>'."
            )
    types = _one_layout(scan, time_name, func)
    return time_name, _time_type(scan, time_name, func), types


def _one_layout(scan: Any, time: str, func: str) -> dict[str, Any]:
    """Every file of a Parquet scan holds the columns of the first, in its order, each
    of the same kind of type (integers, floats, strings; the times are brought to one
    type by :func:`_time_type`): the parts are written batch by batch in one schema.
    Returns the type that the parts hold each column in whose files' types differ
    (:func:`~receval.split._log.held_type`, as a split of the directory in memory
    reads it), to which the others are cast."""
    if scan.file_format != "parquet":
        return {}
    import pyarrow.parquet as pq

    first = pq.read_schema(scan.paths[0])
    for path in scan.paths[1:]:
        own = pq.read_schema(path)
        if own.names != first.names:
            raise InputValidationError(
                f"{func}: {path} holds the columns {format_values(own.names, limit=10)} and "
                f"{scan.paths[0]} the columns {format_values(first.names, limit=10)}; a Scan "
                f"is split into files of one layout: write every file with the same columns "
                f"in one order, or pass the directory's path to split it in memory."
            )
    types: dict[str, Any] = {}
    for name in first.names:
        given = scan.column_types(name)
        if name != time and any(t != given[0][1] for _, t in given):
            types[name] = held_type(name, given, func)
    return types


def _time_type(scan: Any, name: str, func: str) -> Any:
    """The one Arrow type the times of a Parquet scan are read as, where its files
    hold them with different types (:func:`~receval.split._log.held_time_type`); else
    None: as the files hold them."""
    if scan.file_format != "parquet" or scan.column_type(name) is not None:
        return None
    types = scan.column_types(name)
    for path, kind in types:
        if kind is None:
            raise InputValidationError(
                f"{func}: {path} has no time column {name!r}, which {scan.paths[0]} has; "
                f"every file of the scan needs it."
            )
    return held_time_type(name, types, func)


def _keys(where: Batch, batch: Any, name: str, func: str) -> tuple[np.ndarray, Any, str | None]:
    """A batch's times as sort keys, their type and time zone (:func:`time_column`); a
    bad time raises naming its file and row."""
    col = batch.column(batch.schema.get_field_index(name))
    with located(where):
        return time_column(col, func, f"the time column {name!r}")


def _quantile(scan: Any, time: tuple[str, Any], q: float, func: str) -> Any:
    """The cut at the q-quantile of a scan's times (as :func:`receval.split._order.quantile_of`);
    ``time``: the time column and the type it is read as."""
    name = time[0]
    n, lo, hi = 0, np.inf, -np.inf
    for origin, batch in _batches(scan, [name], (), time):
        keys = _keys(origin, batch, name, func)[0]
        if len(keys):
            n, lo, hi = n + len(keys), min(lo, float(keys.min())), max(hi, float(keys.max()))
    if not n:
        raise _no_rows(scan)
    position = q * (n - 1)
    k = int(np.floor(position))
    wanted = [k, min(k + 1, n - 1)]
    # halves: a range of float times past float64's largest (-1e308 to 1e308) stays finite
    width = (hi / 2 - lo / 2) / _BINS or 1.0

    def bins(keys: np.ndarray) -> np.ndarray:
        half = keys.astype(np.float64) / 2
        return np.minimum(((half - lo / 2) / width).astype(np.int64), _BINS - 1)

    hist = np.zeros(_BINS, dtype=np.int64)
    for origin, batch in _batches(scan, [name], (), time):
        hist += np.bincount(bins(_keys(origin, batch, name, func)[0]), minlength=_BINS)
    ends = np.cumsum(hist)
    where = np.searchsorted(ends, np.array(wanted), side="right")
    found = _Distinct()
    for origin, batch in _batches(scan, [name], (), time):
        keys = _keys(origin, batch, name, func)[0]
        found.add(keys[np.isin(bins(keys), where)])
    before = np.where(where > 0, ends[where - 1], 0)
    values = []
    for w, rank, start in zip(where, wanted, before, strict=True):
        ids = found.ids if found.ids is not None else np.zeros(0)
        inside = bins(ids) == w
        cum = np.cumsum(found.counts[inside])
        values.append(ids[inside][np.searchsorted(cum, rank - start, side="right")])
    return quantile_cut(values[0], values[1], position - k)


def temporal_scan(
    scan: Any, cutoff: Any, q: float | None, *, user: str, item: str | None, time: str | None,
    rating: str | None, train_path: Any, test_path: Any,
) -> SplitResult:  # fmt: skip
    """:func:`receval.split.temporal` of a Scan."""
    func = "temporal"
    time_name, kind, types = _columns(scan, user, item, time, func)
    parts = _Parts(scan, types, train_path, test_path, func)
    cut = None if q is None else _quantile(scan, (time_name, kind), q, func)
    ids = (user,) + ((item,) if item else ())
    with parts:
        for origin, batch in _batches(scan, [], ids, (time_name, kind)):
            keys, unit, zone = _keys(origin, batch, time_name, func)
            if cut is None:
                cut = cutoff_key(cutoff, unit, "cutoff", func, keys)
            if q is None:  # every batch's times: text may have UTC offsets in some files only
                check_zone(cutoff, unit, zone, "cutoff", func)
            test = ~earlier(keys, cut)
            items = None if item is None else _ids(origin, batch, item, "item", func)
            users = _ids(origin, batch, user, "user", func)
            parts.write(origin, batch, [~test, test], users, items)
        columns = {"user": user, "item": item, "time": time_name, "rating": rating}
        return parts.close("temporal", columns)


def _last_keys(
    scan: Any, user: str, time: tuple[str, Any], n: int, func: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Pass 1 of leave_last_out: each user's (sorted ids) row count and the smallest of
    their last ``n`` keys ``(time, row)`` (``time``: the column and the type it is
    read as)."""
    ids: np.ndarray | None = None
    times: np.ndarray = np.zeros(0)
    rows: np.ndarray = np.zeros(0, dtype=np.int64)
    counts = _Distinct()
    offset = 0
    name = time[0]
    for origin, batch in _batches(scan, [user, name], (user,), time):
        u = _ids(origin, batch, user, "user", func)
        t: np.ndarray = _keys(origin, batch, name, func)[0]
        r: np.ndarray = np.arange(offset, offset + len(u), dtype=np.int64)
        offset += len(u)
        counts.add(u)
        # the batch's own last n of each user first (a stable sort by time, then by
        # user code), so that the sort below has few rows
        codes, uniques = factorize(u, "user", func, any_order=True)
        offsets, order = user_order(codes, len(uniques), t)
        last = last_of_each(offsets, order, np.minimum(np.diff(offsets), n))
        u, t, r = u[last], t[last], r[last]
        if ids is not None:
            u, t, r = join_ids([ids, u]), np.concatenate([times, t]), np.concatenate([rows, r])
        order = np.lexsort((r, t, u))
        u, t, r = u[order], t[order], r[order]
        starts = np.flatnonzero(np.r_[True, u[1:] != u[:-1]])
        ends = np.repeat(np.r_[starts[1:], len(u)], np.diff(np.r_[starts, len(u)]))
        keep = ends - np.arange(len(u)) <= n
        ids, times, rows = u[keep], t[keep], r[keep]
    if ids is None or counts.ids is None:
        raise _no_rows(scan)
    first = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
    return counts.ids, counts.counts, times[first], rows[first]


def leave_last_out_scan(
    scan: Any, n: int, min_train: int, short: str, *, user: str, item: str | None,
    time: str | None, rating: str | None, train_path: Any, test_path: Any,
) -> SplitResult:  # fmt: skip
    """:func:`receval.split.leave_last_out` of a Scan."""
    func = "leave_last_out"
    time_name, kind, types = _columns(scan, user, item, time, func)
    parts = _Parts(scan, types, train_path, test_path, func)
    ids, counts, cut_t, cut_r = _last_keys(scan, user, (time_name, kind), n, func)
    long = counts >= n + min_train
    offset = 0
    batches = _batches(scan, [], (user,) + ((item,) if item else ()), (time_name, kind))
    with parts:
        for origin, batch in batches:
            users = _ids(origin, batch, user, "user", func)
            t = _keys(origin, batch, time_name, func)[0]
            r = np.arange(offset, offset + len(users), dtype=np.int64)
            offset += len(users)
            at = np.searchsorted(ids, join_ids([users]))
            last = (t > cut_t[at]) | ((t == cut_t[at]) & (r >= cut_r[at]))
            is_long = long[at]
            test = np.where(is_long, last, short == "test")
            train = np.where(is_long, ~last, short == "train")
            items = None if item is None else _ids(origin, batch, item, "item", func)
            parts.write(origin, batch, [train, test], users, items)
        columns = {"user": user, "item": item, "time": time_name, "rating": rating}
        return parts.close("leave_last_out", columns)

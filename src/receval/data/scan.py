"""Lazy tables over files larger than memory, read batch by batch.

:func:`scan` opens nothing but the file's metadata. A metric given columns of
a :class:`Scan` (``roc_auc_score(s["click"], s["score"])``) reads only the
columns it needs, in batches of ``batch_rows`` rows, and reduces each batch to
a small mergeable state (see ``receval.engine.sources``), so its memory does not
grow with the file. pyarrow is imported on first read, rich only when a
progress bar is shown.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from .._validation import check_number, check_option, format_values
from ..exceptions import InputValidationError, InvalidParameterError
from ._ahead import Clock, ScanTimings, read_ahead
from ._csv import CSV_BLOCK, csv_batches, csv_error, csv_header
from ._hive import directory_keys, key_types, partition, typed, with_keys
from ._open import check_has_columns, header_not_utf8, not_parquet, sentence
from ._origin import Batch, Origin
from .io import column_array, header_only, infer_format

__all__ = ["Scan", "ScanColumn", "ScanRun", "ScanTimings", "scan"]

_FORMATS = ["csv", "parquet", "tsv"]


@dataclass(frozen=True, eq=False)
class ScanColumn:
    """One column of a :class:`Scan`: pass it to a metric in place of an array.

    Attributes
    ----------
    scan : Scan
        The table the column belongs to.
    name : str
        The column's name in the file.
    """

    scan: Scan
    name: str

    def __repr__(self) -> str:
        return f"ScanColumn({self.name!r} of {self.scan.name})"


@dataclass(frozen=True)
class _ParquetFile:
    """One file of a Parquet scan, as its footer tells it."""

    path: str
    num_rows: int
    #: its own Arrow schema
    schema: Any
    #: the ``key=value`` pairs of its directories (empty outside partitions)
    keys: dict[str, Any]


@dataclass(frozen=True, eq=False)
class ScanRun:
    """A scanned run for :func:`receval.evaluate`: which columns hold what.

    Made by :meth:`Scan.as_run`; a :class:`Scan` passed as ``run`` means
    ``scan.as_run()`` (columns ``user``, ``item``, ``score``).
    """

    scan: Scan
    user: str = "user"
    item: str = "item"
    score: str | None = "score"
    rank: str | None = None
    name: str | None = None


class Scan:
    """A lazy table over a Parquet or CSV file (or a set of Parquet files).

    Made by :func:`scan`; see there. ``scan["click"]`` is a
    :class:`ScanColumn`, which the metrics accept in place of arrays.

    Attributes
    ----------
    source : str or list of str
        The path(s) given.
    name : str
        The file's path (or the directory, or the first of several files), for
        messages.
    file_format : {"parquet", "csv", "tsv"}
    columns : list of str
        Column names.
    num_rows : int or None
        Rows (Parquet: from the metadata); None for CSV, which is not counted
        before it is read.
    batch_rows : int
    max_memory : int
    progress : bool or None
    timings : ScanTimings or None
        Where the last metric call on this scan spent its time: reading
        (``read``), the metric's work (``compute``), ``wall``, ``passes`` and
        ``rows`` (None before the first call). Batches are read one ahead in a
        thread while the metric works on the one before, so ``read`` and
        ``compute`` overlap.
    """

    def __init__(
        self,
        source: Any,
        *,
        file_format: str | None = None,
        batch_rows: int = 4_000_000,
        max_memory: int = 1 << 29,
        progress: bool | None = None,
    ) -> None:
        func = "scan"
        self.batch_rows = int(check_number(batch_rows, "batch_rows", func, integer=True, low=1))
        self.max_memory = int(check_number(max_memory, "max_memory", func, integer=True, low=1))
        self._csv_block = CSV_BLOCK  # grows when a row is longer (_grow_block)
        if progress is not None and not isinstance(progress, bool):
            raise InvalidParameterError(
                f"The 'progress' parameter of scan must be True, False or None. "
                f"Got {progress!r} instead."
            )
        self.progress = progress
        self.timings: ScanTimings | None = None
        self._call: Clock | None = None
        self.source = source
        self.paths, self._partitions = _expand(source)
        self.name = os.fspath(source) if isinstance(source, (str, os.PathLike)) else self.paths[0]
        if file_format is not None:
            check_option(file_format, "file_format", func, _FORMATS)
            fmt = file_format
        else:
            inferred = infer_format(self.paths[0])
            if inferred is None or inferred not in _FORMATS:
                raise InvalidParameterError(
                    f"scan: cannot tell the format of {self.paths[0]!r}; pass "
                    f"file_format='parquet', 'csv' or 'tsv'."
                )
            fmt = inferred
        if fmt != "parquet" and len(self.paths) > 1:
            raise InvalidParameterError(
                f"scan: several files can only be scanned as Parquet. Got {len(self.paths)} "
                f"{fmt} files; pass one CSV file at a time."
            )
        self.file_format = fmt
        # a Parquet scan's schema (its first file's, with any directories' keys) and files
        self._schema: Any = None
        self._files: list[_ParquetFile] = []
        self._key_types: dict[str, Any] = {}  # the directories' keys: their Arrow types
        if fmt == "parquet":
            self._schema, self._files, self._key_types = self._open_parquet()
            self.columns = list(self._schema.names)
            self.num_rows: int | None = sum(f.num_rows for f in self._files)
        else:
            self.columns = self._csv_header()
            self.num_rows = None

    # ------------------------------------------------------------ opening
    def _open_parquet(self) -> tuple[Any, list[_ParquetFile], dict[str, Any]]:
        """The schema of the scan (its first file's, then the keys of any ``key=value``
        directories), its files, from their footers, each by its own reader
        (``pyarrow.dataset`` imports pandas, 0.2 s), and the keys' types."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        base = self._partitions
        keys = [{} if base is None else directory_keys(p, base) for p in self.paths]
        types = key_types(keys)
        files = []
        for path, given in zip(self.paths, keys, strict=True):
            try:
                with pq.ParquetFile(path) as file:
                    meta, own = file.metadata, file.schema_arrow
            except (pa.ArrowInvalid, OSError) as exc:
                raise not_parquet(path, exc) from exc
            both = [key for key in given if key in own.names]
            if both:
                raise InputValidationError(
                    f"{path}: {both[0]!r} is both a column of the file and a key of its "
                    f"directories ({both[0]}=...); rename the column or the directories."
                )
            files.append(_ParquetFile(path, meta.num_rows, own, typed(given, types)))
        schema = files[0].schema
        for key, kind in types.items():
            schema = schema.append(pa.field(key, kind))
        return schema, files, types

    def _check_flat(self, columns: Sequence[str]) -> None:
        """The columns read hold one value per row (not lists, structs or maps)."""
        import pyarrow as pa

        for column in columns:
            kind = self._schema.field(column).type
            if pa.types.is_nested(kind):
                where = self.name if len(self.paths) == 1 else self.paths[0]
                raise InputValidationError(
                    f"{where}: column {column!r} holds values of type {kind}; a metric reads "
                    f"one number, string or id per row."
                )

    def _check_files(self, columns: Sequence[str]) -> None:
        """Every file of a Parquet scan has the ``columns`` read (those not given by
        its directories' ``key=value`` names), of the kind of type of the first
        file's (integers of any width, floats of any width, strings, or the same
        type): a user id that is ``2`` in one file and ``"2"`` in another would be
        two users."""
        schema = self._schema
        first = self.paths[0]
        for file in self._files:
            own = file.schema
            for column in columns:
                if column in file.keys:
                    continue
                if column not in own.names:
                    raise InputValidationError(
                        f"{file.path}: no column {column!r}, which {first} has. Got "
                        f"columns {format_values(own.names, limit=10)}; every file of a scan "
                        f"needs the columns read."
                    )
                given, expected = own.field(column).type, schema.field(column).type
                if type_kind(given) != type_kind(expected):
                    raise InputValidationError(
                        f"{file.path}: column {column!r} is {given}, but {expected} in "
                        f"{first}; write every file of a scan with the same column types "
                        f"(e.g. cast {column!r} to {expected})."
                    )

    def _csv_header(self) -> list[str]:
        import pyarrow as pa

        path = self.paths[0]
        _check_exists(path)
        while True:
            try:
                return csv_header(path, self.file_format, self._csv_block)
            except (pa.ArrowInvalid, OSError, EOFError) as exc:
                if self._grow_block(exc):
                    continue
                raise InputValidationError(f"{path}: {sentence(exc)}") from exc

    def _grow_block(self, exc: Exception) -> bool:
        """After a row longer than the CSV block (pyarrow's "straddling object"),
        make the block 8x larger (up to 4x the file) and say whether to read again."""
        if "straddling" not in str(exc):
            return False
        limit = 4 * max(os.path.getsize(self.paths[0]), 1)
        if self._csv_block >= limit:
            return False
        self._csv_block *= 8
        return True

    # ------------------------------------------------------------ columns
    def __getitem__(self, name: str) -> ScanColumn:
        if not isinstance(name, str):
            raise InvalidParameterError(
                f"A scan's columns are named by strings. Got {type(name).__name__} {name!r}."
            )
        self._check_columns([name])
        return ScanColumn(self, name)

    def _check_columns(self, names: Sequence[str]) -> None:
        # several files: the columns are those of the first
        where = self.name if len(self.paths) == 1 else self.paths[0]
        check_has_columns(where, names, self.columns)

    def as_run(
        self,
        *,
        user: str = "user",
        item: str = "item",
        score: str | None = "score",
        rank: str | None = None,
        name: str | None = None,
    ) -> ScanRun:
        """This file as a run for :func:`receval.evaluate`, read user by user.

        Parameters
        ----------
        user, item, score : str, default="user", "item", "score"
            Column names (as :meth:`receval.Run.from_file`).
        rank : str, default=None
            A rank column instead of scores (1 = first).
        name : str, default=None
            The run's name (default: the file's name).

        Returns
        -------
        run : ScanRun
        """
        if rank is not None:
            score = None
        self._check_columns([c for c in (user, item, score, rank) if c is not None])
        return ScanRun(self, user, item, score, rank, name)

    def column_type(self, name: str) -> Any:
        """The Arrow type of a column of a Parquet scan where every file holds it with
        that type (a directory's ``key=value`` column: int32, int64 or string); None
        for CSV (typed as it is read) or files whose types differ."""
        if self._schema is None:
            return None
        kind = self._schema.field(name).type
        same = all(t == kind for _, t in self.column_types(name))
        return kind if same else None

    def column_types(self, name: str) -> list[tuple[str, Any]]:
        """``(path, Arrow type)`` of a column in each file of a Parquet scan that holds
        it itself (not as a directory's ``key=value``; None: the file lacks it); ``[]``
        for CSV.

        Examples
        --------
        >>> import pyarrow as pa, pyarrow.parquet as pq, tempfile, os, receval
        >>> folder = tempfile.mkdtemp()
        >>> pq.write_table(pa.table({"t": pa.array([1], pa.int32())}), f"{folder}/a.parquet")
        >>> [str(t) for _, t in receval.scan(f"{folder}/a.parquet").column_types("t")]
        ['int32']
        """
        if self._schema is None:
            return []
        return [
            (file.path, file.schema.field(name).type if name in file.schema.names else None)
            for file in self._files
            if name not in file.keys
        ]

    def __repr__(self) -> str:
        rows = "" if self.num_rows is None else f", num_rows={self.num_rows}"
        return f"Scan({self.name!r}, file_format={self.file_format!r}{rows})"

    # ------------------------------------------------------------ reading
    def batches(
        self,
        columns: Sequence[str],
        *,
        ids: Sequence[str] = (),
        floats: Sequence[str] = (),
        description: str = "reading",
    ) -> Iterator[Batch]:
        """Yield the named columns batch by batch, as ``{name: array}``.

        Numeric columns come as NumPy arrays; string columns as Arrow string
        arrays (cheaper to encode). In CSV files the ``ids`` columns are read
        as strings (``007`` stays ``007``; an id ``7``, which
        :meth:`receval.Run.from_file` reads as the int 7, matches it) and the
        ``floats`` columns as float64. A batch has at most
        ``batch_rows`` rows and at least one, from one file; its ``origin``
        says which rows of which file.
        """
        columns = list(dict.fromkeys(columns))
        self._check_columns(columns)
        if self._schema is not None:
            self._check_flat(columns)
        rows = self.rows_per_batch(columns)
        clock = self._call or Clock()
        try:
            with self._progress(description) as advance:
                one = self.num_rows is not None and self.num_rows <= rows  # one batch
                source = self._read(columns, ids, floats, rows, advance)
                ahead = read_ahead(source, clock, in_thread=not one)
                clock.readers.append(ahead)  # closed when the call ends, whatever happens
                yield from ahead
        finally:
            if self._call is None:  # a read of its own: its timings
                self.timings = clock.stop()

    @contextmanager
    def timed(self) -> Iterator[None]:
        """Time one metric call, its passes together: ``timings`` when it ends."""
        if self._call is not None:  # within a timed call: that call's
            yield
            return
        self._call = Clock()
        try:
            yield
        finally:
            self.timings = self._call.stop()  # closes the call's readers
            self._call = None

    def _read(
        self,
        columns: list[str],
        ids: Sequence[str],
        floats: Sequence[str],
        rows: int,
        advance: Any,
    ) -> Iterator[Batch]:
        """The batches of :meth:`batches`, read in turn (the reader thread runs this); no
        row at all raises, naming the file (a CSV file of a header only)."""
        lines = self.file_format != "parquet"
        if self.file_format == "parquet":
            source = self._parquet_batches(columns, rows)
        else:
            source = self._csv_batches(columns, ids, floats, advance)
        read = 0
        for path, first, batch in source:
            n = batch.num_rows
            read += n
            if self.file_format == "parquet":
                advance(n)
            for start in range(0, n, rows):
                part = batch.slice(start, rows)
                origin = Origin(((path, first + start, part.num_rows),), lines)
                yield Batch({c: _column(part.column(i)) for i, c in enumerate(columns)}, origin)
        if not read:
            if lines:
                raise header_only(self.name)
            files = "the file has" if len(self.paths) == 1 else "the files have"
            raise InputValidationError(f"{self.name}: {files} no rows; pass rows to evaluate.")

    def rows_per_batch(self, columns: Sequence[str]) -> int:
        """Rows per batch: ``batch_rows``, fewer when a batch of the columns would
        take more than a sixteenth of ``max_memory`` (the batch, the reader's
        decoded row group and what a metric derives from a batch all count against
        the budget); at least 65,536."""
        width = 8 * max(len(columns), 1)  # numbers: 8 bytes; ids as codes
        return min(self.batch_rows, max(1 << 16, self.max_memory // (16 * width)))

    def _parquet_batches(self, columns: list[str], rows: int) -> Iterator[tuple[str, int, Any]]:
        """``(path, first row in the file, record batch)``, file by file."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        # file by file, row group by row group: no pre-buffering (it keeps the
        # compressed column chunks of whole row groups around: 4x the memory,
        # measured) and no read-ahead across row groups. The dataset scanner read
        # ahead up to 150 MiB of decoded batches while a slower metric consumed them
        # (30M rows, batches of 200k), which broke max_memory; this reader keeps one
        # row group decoded (23 MiB there) and is as fast
        self._check_files(columns)
        for index, file in enumerate(self._files):
            own = [c for c in columns if c not in file.keys]
            first = 0
            try:
                reader = pq.ParquetFile(file.path, pre_buffer=False)
                for batch in reader.iter_batches(batch_size=rows, columns=own, use_threads=True):
                    yield file.path, first, self.with_keys(index, batch, columns)
                    first += batch.num_rows
            except (pa.ArrowInvalid, OSError) as exc:
                raise InputValidationError(f"{file.path}: {sentence(exc)}") from exc

    def with_keys(self, index: int, data: Any, columns: Sequence[str] | None = None) -> Any:
        """The rows ``data`` (a record batch or table of the columns it holds itself) of
        the ``index``-th file of a Parquet scan with the keys of its ``key=value``
        directories as columns (:func:`~receval.data._hive.with_keys`): ``columns``, or
        its own then every key of the scan."""
        return with_keys(data, self._files[index].keys, self._key_types, columns)

    def _csv_batches(
        self, columns: list[str], ids: Sequence[str], floats: Sequence[str], advance: Any
    ) -> Iterator[tuple[str, int, Any]]:
        """``(path, first row in the file, record batch)`` of ``columns`` (every
        column when none are named), ``ids`` read as strings and ``floats`` as
        float64; ``advance`` is told the bytes read."""
        import pyarrow as pa

        path = self.paths[0]
        _check_exists(path)
        wanted = set(columns) if columns else None  # none named: every column
        types = {c: pa.string() for c in ids if wanted is None or c in wanted}
        types.update({c: pa.float64() for c in floats if wanted is None or c in wanted})
        done_rows = 0  # rows handed out: a read again after a larger block skips them
        while True:
            skip = done_rows
            try:
                for batch in self._csv_pass(path, columns, types, advance):
                    if skip >= batch.num_rows:
                        skip -= batch.num_rows
                        continue
                    batch = batch.slice(skip)
                    skip = 0
                    yield path, done_rows, batch
                    done_rows += batch.num_rows
                return
            except _LongRow:
                continue

    def _csv_pass(
        self, path: str, columns: list[str], types: dict[str, Any], advance: Any
    ) -> Iterator[Any]:
        """One read of a CSV file, its ranges parsed on every core
        (:func:`~receval.data._csv.csv_batches`, ranges of at most a 32nd of
        ``max_memory``); raises ``_LongRow`` (after growing the block) when a row is
        longer than the block."""
        import pyarrow as pa

        try:
            try:
                _, batches = csv_batches(
                    path,
                    self.file_format,
                    columns,
                    types,
                    self._csv_block,
                    self.max_memory // 32,
                    advance,
                )
            except pa.ArrowInvalid as exc:
                if "Empty CSV file" in str(exc):
                    return
                raise
            yield from _joined(batches, self.rows_per_batch(columns))
        except (pa.ArrowInvalid, pa.ArrowTypeError, OSError, EOFError) as exc:
            if self._grow_block(exc):
                raise _LongRow from exc
            raise csv_error(path, self.file_format, exc) from exc  # at its line
        except UnicodeDecodeError as exc:
            raise header_not_utf8(path, exc) from exc

    def _show_progress(self) -> bool:
        if self.progress is not None:
            return self.progress
        try:
            return sys.stderr.isatty()
        except (AttributeError, ValueError):
            return False

    @contextmanager
    def _progress(self, description: str) -> Iterator[Any]:
        """A function ``advance(n)``; draws a rich progress bar on stderr when enabled."""
        if not self._show_progress():
            yield lambda n: None
            return
        try:
            import rich  # noqa: F401  (bars need the cli extra)
        except ModuleNotFoundError:
            if self.progress:  # asked for explicitly
                raise InvalidParameterError(
                    "The 'progress' parameter of scan is True, but progress bars need rich; "
                    "install it with pip install 'receval[cli]', or pass progress=None."
                ) from None
            yield lambda n: None
            return
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            DownloadColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        if self.num_rows is not None:
            total: float | None = self.num_rows
            count: Any = MofNCompleteColumn()
        else:
            total = float(sum(os.path.getsize(p) for p in self.paths))
            count = DownloadColumn()
        console = Console(file=sys.stderr)
        bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            count,
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=console,
        )
        with bar:
            task = bar.add_task(description, total=total)
            yield lambda n: bar.advance(task, n)


def _column(col: Any) -> Any:
    """A batch's column as :func:`column_array` gives it; numbers holding nulls (an
    empty CSV field, a Parquet null) stay Arrow's, so that the checks of the metric
    that reads them call them missing values, not NaN."""
    import pyarrow as pa

    kind = col.type
    if col.null_count and (pa.types.is_integer(kind) or pa.types.is_floating(kind)):
        return col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    return column_array(col)


def _joined(batches: Iterator[Any], rows: int) -> Iterator[Any]:
    """Record batches of ``rows`` rows (the last may have fewer) from ``batches`` of
    any size: the reader's (a block of the file each) joined, and cut."""
    pending: list[Any] = []
    held = 0
    for batch in batches:
        pending.append(batch)
        held += batch.num_rows
        if held < rows:
            continue
        whole = _one(pending)
        start = 0
        while held - start >= rows:
            yield whole.slice(start, rows)
            start += rows
        pending = [whole.slice(start)] if start < held else []
        held -= start
    if held:
        yield _one(pending)


def _one(batches: list[Any]) -> Any:
    """One record batch of the rows of ``batches``, in order."""
    import pyarrow as pa

    if len(batches) == 1:
        return batches[0]
    return pa.Table.from_batches(batches).combine_chunks().to_batches()[0]


class _LongRow(Exception):
    """A CSV row longer than the block: read the file again with a larger one."""


def scan(
    source: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    *,
    file_format: str | None = None,
    batch_rows: int = 4_000_000,
    max_memory: int = 1 << 29,
    progress: bool | None = None,
) -> Scan:
    """Open a Parquet or CSV file (or many Parquet files) for out-of-core evaluation.

    Nothing is read until a metric asks for columns. Then only those columns
    are read, ``batch_rows`` rows at a time, and each batch is reduced to a
    small state that the next batch adds to, so a file larger than memory is
    evaluated in bounded memory. Pass the scan's columns to
    :func:`receval.roc_auc_score`, :func:`receval.gauc_score`,
    :func:`receval.group_auc`, :func:`receval.log_loss`,
    :func:`receval.pcoc`, :func:`receval.copc`, :func:`receval.roc_curve`,
    :func:`receval.precision_recall_curve`, or the scan itself as the
    ``run`` of :func:`receval.evaluate`.

    Parameters
    ----------
    source : path, or list of paths
        A Parquet file, a directory of Parquet files, a list of Parquet files
        (read in the order given), or one CSV/TSV file (compressed with gzip,
        bzip2, xz or Zstandard, told by its first bytes). A directory with
        ``key=value`` subdirectories (hive partitions, as ``pyarrow.dataset`` and
        Spark write them) is read with each key as a column: integers (int32, or
        int64 past it) when every value is an integer in its one decimal form,
        else text as written (``user=007`` and ``user=7`` are two users).
    file_format : {"parquet", "csv", "tsv"}, default=None
        The format, by default from the suffix (``.parquet``, ``.pq``,
        ``.csv``, ``.tsv``, before a compression suffix).
    batch_rows : int, default=4_000_000
        Rows per batch (Parquet batches also end at row-group boundaries).
    max_memory : int, default=512 MiB
        Bytes the evaluation may use above what the process held before: the
        reader's decoded row group, a batch and the next one, read ahead in a
        thread (each at most a sixteenth of the budget: ``batch_rows`` is lowered
        to fit) and the metric's state (the exact AUC's: see Notes). A Parquet
        file's row groups are read whole, so row groups larger than the budget
        allows set a floor.
    progress : bool, default=None
        Draw a progress bar on stderr while reading: rows for Parquet, bytes
        for CSV. None: only when stderr is a terminal.

    Returns
    -------
    scan : Scan
        ``scan["column"]`` is a column to pass to a metric.

    Raises
    ------
    InputValidationError
        A missing or unreadable file, or one without rows (the message names
        the file; for CSV, the line and column of a value the column's type does
        not read, or the line of other than the header's fields); a file of several that
        lacks a column read or holds it with another kind of type (the message
        names the file and the column). A bad value a metric finds in a batch
        (NaN, a label other than 0/1, a negative weight) raises its in-memory
        message with the file and row in front (``part-2.parquet: row 3: ``,
        ``file.csv:4: `` in a CSV file), and the error's ``row`` is the 0-based
        row within that file.

    See Also
    --------
    receval.evaluate : Accepts a Scan (or ``Scan.as_run(...)``) as ``run``.

    Notes
    -----
    Order: GAUC and :func:`receval.evaluate` need the rows of each group
    (user) contiguous, as in a file sorted or grouped by user; this is checked
    and a violation raises ``InputValidationError``. AUC, log loss, PCOC and
    COPC accept any order. The exact AUC gathers scores in ``max_memory`` less
    192 MiB (at least an eighth of it; 8 bytes per row, 40 with weights, or 4 and
    32 where the Parquet score column is float32): a file
    whose rows all fit in three quarters of that is read once. A larger one is
    read more than once:
    the first pass counts rows per score bucket and gathers the lowest buckets
    that fit, then each further pass gathers as many consecutive buckets as fit;
    a single bucket (1/256 of a binade of scores) larger than that is still
    read whole. ``scan.timings`` says how many passes a call made.

    Examples
    --------
    >>> import os, tempfile
    >>> import pyarrow as pa, pyarrow.parquet as pq
    >>> import receval
    >>> path = os.path.join(tempfile.mkdtemp(), "impressions.parquet")
    >>> pq.write_table(pa.table({"user": [1, 1, 1, 2, 2, 2],
    ...                          "click": [1, 0, 0, 0, 1, 1],
    ...                          "score": [0.9, 0.3, 0.5, 0.6, 0.4, 0.8]}), path)
    >>> s = receval.scan(path)
    >>> receval.roc_auc_score(s["click"], s["score"])
    0.7778
    >>> receval.gauc_score(s["click"], s["score"], groups=s["user"])
    0.75
    """
    return Scan(
        source,
        file_format=file_format,
        batch_rows=batch_rows,
        max_memory=max_memory,
        progress=progress,
    )


# ------------------------------------------------------------------ helpers
def _expand(source: Any) -> tuple[list[str], str | None]:
    """The files of ``source``, and the directory whose ``key=value`` subdirectories
    (hive partitions, as ``pyarrow.dataset`` and Spark write them) name columns, or
    None when there are none."""
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        if os.path.isdir(path):
            hive = any(
                partition(f) is not None and os.path.isdir(os.path.join(path, f))
                for f in os.listdir(path)
            )
            files = []
            for root, dirs, names in os.walk(path):
                dirs[:] = [d for d in dirs if not d.startswith((".", "_"))]  # as pyarrow
                data = [f for f in names if f.lower().endswith((".parquet", ".pq"))]
                files += [os.path.join(root, f) for f in data if not f.startswith((".", "_"))]
            files.sort()
            nested = [f for f in files if os.path.dirname(f) != path]
            if nested and not hive:  # their rows would be left out, silently
                raise InputValidationError(
                    f"{path}: holds Parquet files in subdirectories that are not key=value "
                    f"partitions, e.g. {nested[0]}; scan one directory of files, or pass the "
                    f"list of files."
                )
            if not files:
                raise InputValidationError(f"{path}: the directory has no Parquet files.")
            return files, (path if hive else None)
        _check_exists(path)
        return [path], None
    if isinstance(source, Sequence) and source:
        paths = [os.fspath(p) for p in source]
        for p in paths:
            _check_exists(p)
        return paths, None
    raise InvalidParameterError(
        f"The 'source' parameter of scan must be a path or a non-empty list of paths. "
        f"Got {source!r} instead."
    )


def type_kind(kind: Any) -> str:
    """An Arrow type's kind: integer, floating, string, or the type itself."""
    import pyarrow as pa

    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    for name, test in (
        ("integer", pa.types.is_integer),
        ("floating", pa.types.is_floating),
        ("string", lambda t: pa.types.is_string(t) or pa.types.is_large_string(t)),
    ):
        if test(kind):
            return name
    return str(kind)


def _check_exists(path: str) -> None:
    if not os.path.exists(path):
        raise InputValidationError(f"{path}: no such file.")

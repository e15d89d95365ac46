"""Reading ids, scores and grades from DataFrames, Arrow tables and files.

pandas and polars are never imported here: a DataFrame is recognised by its
type's module and read through its own methods. Files are read with pyarrow
(CSV, Parquet, the TREC text of judgment groups and preferences) and the compiled
core (TREC qrels and runs). Text files compressed with gzip, bzip2, xz or
Zstandard are recognised by their first bytes (not their suffix) and read
decompressed; a UTF-8 byte-order mark is skipped, and lines may end with
``\n``, ``\r\n`` or ``\r``.
"""

from __future__ import annotations

import os
import threading
from collections import deque
from collections.abc import Generator, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from .._validation import format_values
from ..exceptions import InputValidationError
from ._arrow import arrow_integers, numbers_view
from ._csv import csv_error, csv_header, csv_schema, read_csv
from ._encode import column_array as column_array
from ._encode import ids_as_given
from ._open import (
    EVERY_PAIR_GRADE_1,
    arrow_input,
    check_file,
    check_has_columns,
    check_not_parquet,
    core_streams,
    file_error,
    header_not_utf8,
    is_stream,
    not_parquet,
    parquet_not_text,
    records,
    sentence,
)
from ._open import infer_format as infer_format
from ._times import TIME_NAMES
from ._trec_errors import (
    TREC_FIELDS,
    bad_number,
    field_on_line,
    first_not_utf8,
    line_holding,
    not_utf8,
    reads_as_number,
    wrong_fields,
)
from ._trec_errors import check_trec_rows as check_trec_rows
from ._trec_errors import not_finite_score as not_finite_score


def module_of(obj: Any) -> str:
    return type(obj).__module__.split(".")[0]


def is_frame(obj: Any) -> bool:
    """A pandas or polars DataFrame, an Arrow table or record batch."""
    mod = module_of(obj)
    name = type(obj).__name__
    return (mod in ("pandas", "polars") and name == "DataFrame") or (
        mod == "pyarrow" and name in ("Table", "RecordBatch")
    )


def column_names(data: Any) -> list[Any]:
    """The column names of a DataFrame, an Arrow table or a mapping of arrays, as the
    data holds them (a pandas label may be a number: ``frame[0]``)."""
    if module_of(data) == "pyarrow":
        return list(data.schema.names)
    if isinstance(data, Mapping):
        return list(data.keys())
    columns = data.columns  # pandas: an Index; polars: a list of str
    return list(columns.tolist() if hasattr(columns, "tolist") else columns)


def check_columns(data: Any, columns: Mapping[str, str | None], func: str) -> None:
    """Raise, with the available names, when a DataFrame / Arrow table / mapping of
    arrays lacks one of the named columns (``columns``: role -> name or None)."""
    names = column_names(data)
    for role, name in columns.items():
        if name is not None and name not in names:
            raise InputValidationError(
                f"{func}: the data has no column {name!r} (the {role} column). "
                f"Got columns {format_values(names, limit=10)}; pass {role}='<column name>'."
            )
        if name is not None and names.count(name) > 1:
            raise InputValidationError(
                f"{func}: the data has {names.count(name)} columns named {name!r}, so its "
                f"{role} column is ambiguous; rename or drop the others."
            )


def value_columns(names: Sequence[Any], used: Sequence[Any]) -> list[Any]:
    """The columns of ``names`` that could hold values (grades, scores, labels): not in
    ``used`` nor an id or time column of a default name (user, item, timestamp, time).

    Examples
    --------
    >>> value_columns(["uid", "user", "rating", "timestamp", "ts"], ["uid", "ts"])
    ['rating']
    """
    ids = ("user", "item", *TIME_NAMES)
    return [name for name in names if name not in used and name not in ids]


def gradeless(
    names: Sequence[Any],
    where: str,
    user: str = "user",
    item: str = "item",
    grade: str = "grade",
    time: str | None = None,
) -> bool:
    """Whether qrels of the columns ``names``, read with their grades in the column
    ``grade``, are the pairs judged relevant, each of grade 1: without the column
    ``grade`` of the default name, a frame or file of ``user`` and ``item`` alone, or
    with a time column (a split's test: ``timestamp``, ``time``, or the one named by
    ``time``).

    Refuse them, with ``where`` (the reader, the file) in front, when the default
    ``grade`` is missing and they hold another column: their grades under another name
    (``relevance``, ``rating``) would be left unread, every pair read as of grade 1.
    A ``grade`` named otherwise and missing is refused too, its fix offering only the
    columns that could hold grades (neither ids nor times). Qrels without ``user`` or
    ``item`` are left to their reader, which names the column missing.

    Examples
    --------
    >>> gradeless(["user", "item", "grade"], "Qrels")
    False
    >>> gradeless(["user", "item", "timestamp"], "Qrels")  # the pairs, of grade 1
    True
    >>> gradeless(["user", "item", "relevance"], "q.csv")
    Traceback (most recent call last):
    ...
    receval.exceptions.InputValidationError: q.csv: no column 'grade' but has ...
    >>> gradeless(["user", "item", "timestamp"], "q.csv", grade="rel")
    Traceback (most recent call last):
    ...
    receval.exceptions.InputValidationError: q.csv: no column 'rel'. ... none of which holds ...
    """
    if grade in names or user not in names or item not in names:
        return False
    # a time column (a split's test) is never the grades
    others = value_columns(names, (user, item) if time is None else (user, item, time))
    if grade != "grade":
        got = f"{where}: no column {grade!r}. Got columns {format_values(names, limit=10)}"
        if not others:
            raise InputValidationError(
                f"{got}, none of which holds grades (ids and times); pass grade='grade' (the "
                f"default) to give every pair grade 1."
            )
        raise InputValidationError(
            f"{got}; the grades could be in {format_values(others)}: pass "
            f"grade={others[0]!r} if that column holds them."
        )
    if others:
        raise InputValidationError(
            f"{where}: no column 'grade' but has {format_values(others)} beside user and "
            f"item, which would be left unread (every pair of grade 1); pass "
            f"grade={others[0]!r} if that column holds the grades, or {EVERY_PAIR_GRADE_1}."
        )
    return True


def frame_columns(data: Any, columns: Mapping[str, str | None], func: str) -> dict[str, Any]:
    """Pick named columns from a DataFrame / Arrow table / mapping of arrays.

    ``columns`` maps a role (``"user"``) to the caller's column name; roles with
    a None name are skipped. Missing columns raise with the available names.
    Categorical columns stay as given (:func:`ids_as_given`).
    """
    check_columns(data, columns, func)
    return {role: ids_as_given(data[name]) for role, name in columns.items() if name is not None}


# ----------------------------------------------------------------- files
def _read_lines(path: str | os.PathLike[str]) -> Any:
    """Every line of a text file (compression detected) as an Arrow string array."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    path = os.fspath(path)
    check_file(path)
    options = pcsv.ReadOptions(column_names=["line"], block_size=1 << 24)
    parse = pcsv.ParseOptions(
        delimiter="\x1f",
        quote_char=False,
        escape_char=False,
        ignore_empty_lines=False,
        newlines_in_values=False,
    )
    convert = pcsv.ConvertOptions(
        column_types={"line": pa.string()},
        strings_can_be_null=False,
        quoted_strings_can_be_null=False,
    )
    try:
        with arrow_input(path) as stream:
            table = pcsv.read_csv(
                stream, read_options=options, parse_options=parse, convert_options=convert
            )
    except (pa.ArrowInvalid, OSError, EOFError) as exc:
        if "Empty CSV file" in str(exc):  # an empty file has no lines
            return pa.array([], type=pa.string())
        if "invalid UTF8" in str(exc):
            raise first_not_utf8(path) from None
        raise InputValidationError(f"{path}: cannot be read as text: {sentence(exc)}") from exc
    return table.column("line").combine_chunks()


def read_whitespace_table(
    path: str | os.PathLike[str], n_fields: int, kind: str, *, extra_fields: bool = False
) -> tuple[list[Any], np.ndarray]:
    """Split a TREC-style file into ``n_fields`` whitespace-separated columns.

    Blank lines and comment lines (``#`` first) are skipped; a line of another number
    of fields, or ``#`` after white space (no comment to trec_eval's qrels), raises an
    ``InputValidationError`` that names the file and the line; with
    ``extra_fields=True`` fields after the first ``n_fields`` are ignored, as
    trec_eval ignores whatever follows the run tag of a run line. Returns the
    columns (Arrow string arrays) and the 1-based line number of every row.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    lines = _read_lines(path)
    # Arrow's split keeps an empty field for leading/trailing whitespace and
    # returns [""] for a blank line: trim first, and find blank lines by length.
    # Arrow's results are read through their buffers (receval.data._arrow): to_numpy and
    # pa.array of NumPy import pandas (0.2 s, most of a small file's time)
    trimmed = pc.utf8_trim_whitespace(lines)
    parts = pc.utf8_split_whitespace(trimmed)
    lengths = numbers_view(pc.list_value_length(parts))
    blank = numbers_view(pc.utf8_length(trimmed)) == 0
    first = [numbers_view(pc.cast(pc.starts_with(t, "#"), pa.uint8())) for t in (lines, trimmed)]
    blank |= first[0] == 1  # '#' first on a line: a comment; after white space: refused
    wrong = (first[1] == 1) | ((lengths < n_fields) if extra_fields else (lengths != n_fields))
    bad = np.flatnonzero(~blank & wrong)
    if bad.size:
        i = int(bad[0])
        raise wrong_fields(
            path, i + 1, n_fields, extra_fields, kind, int(lengths[i]), lines[i].as_py()
        )
    keep = np.flatnonzero(~blank)
    if keep.size != len(lines):
        parts = parts.take(arrow_integers(keep))
    if extra_fields and (lengths[keep] > n_fields).any():
        parts = pc.list_slice(parts, 0, n_fields)
    flat = pc.list_flatten(parts)
    every = [arrow_integers(np.arange(j, len(flat), n_fields)) for j in range(n_fields)]
    columns = [flat.take(at) for at in every]
    return columns, keep + 1


def read_trec(path: str | os.PathLike[str], kind: str, tables: bool = False) -> Any:
    """A TREC qrels or run file (plain text or compressed) read by the compiled core.

    Returns ``(users, items, values, tag)``: users and items already encoded
    (:class:`~receval.data._encode.EncodedIds`: codes in order of first appearance
    and the distinct ids, an Arrow ``large_string`` array; the users as CSR offsets
    when the file's rows are grouped by user), int64 grades or float64 scores
    (finite), and the run tag of the last line (trec_eval's ``runid``).
    Errors name file and line; a Parquet file is named so, with the format to
    pass, and a CSV or TSV file too where the caller reads tables as well (``tables``:
    :func:`~receval.data._trec_errors.wrong_fields`). The core
    reads plain and gzip text; the bytes of a file compressed otherwise (bzip2, xz,
    Zstandard) are decompressed for it (:func:`core_streams`).
    """
    from .._kernels import compiled

    core = compiled()
    name = os.fspath(path)
    check_file(name)
    check_not_parquet(name, "trec")  # its binary bytes are no line of fields (a pipe's: the core)
    try:
        with core_streams(name) as (stream,):
            out = core.read_trec(name, kind, stream)
    except OSError as exc:  # the core's message starts with the path
        why = sentence(exc).removeprefix(f"{name}: ")
        if why.startswith("the file is Parquet"):  # a pipe's first bytes, which it read
            raise parquet_not_text(name, "trec") from None
        raise InputValidationError(f"{name}: cannot be read as text: {why}") from exc
    if not out[0]:
        _, what, line, count, text = out
        value = text.decode("utf-8", errors="replace")
        if what == "utf8":
            raise not_utf8(name, line_holding(name, text), text)
        if what == "fields":
            n_fields, fields = (
                (4, TREC_FIELDS["qrels"][1]) if kind == "qrels" else (6, TREC_FIELDS["run"][1])
            )
            raise wrong_fields(name, line, n_fields, kind == "run", fields, count, value, tables)
        if what == "number":
            integer = kind == "qrels"
            raise bad_number(name, line, "grade" if integer else "score", value, integer)
        # the core gives the value it read (inf for 1e400): the file's text is wanted
        given = field_on_line(name, line, 4)
        raise not_finite_score(name, line, given if given is not None else value)
    _, user_offsets, user_codes, items, user_ids, item_ids, values, tag = out
    check_trec_rows(name, len(values), kind)
    from ._encode import EncodedIds
    from ._string_buffers import large_strings

    users = EncodedIds(user_codes, large_strings(*user_ids), offsets=user_offsets)
    return users, EncodedIds(items, large_strings(*item_ids)), values, tag


def parse_numbers(
    column: Any,
    path: str | os.PathLike[str],
    line_numbers: np.ndarray,
    what: str,
    integer: bool,
) -> np.ndarray:
    """Cast an Arrow string column to int64/float64, naming file and line of a bad value."""
    import pyarrow as pa
    import pyarrow.compute as pc

    target = pa.int64() if integer else pa.float64()
    # '+3' is 3, as trec_eval's atoi reads it
    plain = pc.replace_substring_regex(column, r"^\+(\d)", r"\1") if integer else column
    # Arrow's cast to an integer also reads hexadecimal ('0x1'), which a grade is not
    digits = not integer or pc.all(pc.match_substring_regex(column, r"^[+-]?[0-9]+$")).as_py()
    try:
        if digits is not False:
            return numbers_view(pc.cast(plain, target))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        pass
    i = next(j for j, text in enumerate(column.to_pylist()) if not reads_as_number(text, integer))
    raise bad_number(path, int(line_numbers[i]), what, column[i].as_py(), integer)


def header_only(path: str | os.PathLike[str]) -> InputValidationError:
    """The error of a table file without rows (a CSV file of only its header line)."""
    return InputValidationError(
        f"{os.fspath(path)}: the file has no rows, only its header; pass a file with rows."
    )


def read_table(
    path: str | os.PathLike[str],
    columns: Sequence[str],
    func: str,
    file_format: str | None,
    id_columns: Sequence[str] = (),
    encode_ids: bool = False,
    numbers: Sequence[str] = (),
) -> Any:
    """Read the named columns of a CSV or Parquet file into an Arrow table.

    In CSV and TSV files an id column (``id_columns``) whose every id is an
    integer written as its decimal digits (``7``, ``-12``) is read as int64, as
    in a Parquet file of integer ids; any other id column as strings, so that
    ids such as ``007`` keep their spelling instead of becoming the number 7
    (with ``encode_ids``, as a dictionary column encoded block by block as the
    file is read: the strings of its rows are never held whole). An id is read
    as written, ``NA``, ``null`` and ``NaN`` included; only an empty field is a
    missing id, an error at its line. A CSV or TSV column of ``numbers`` (scores) is
    read as float64, a value that is not a number an error at its line, as
    :func:`receval.scan` says it. A CSV or TSV file of only its header is an error
    (:func:`header_only`).
    """
    path = os.fspath(path)
    fmt = file_format or infer_format(path)
    check_file(path)
    with _table_errors(path, fmt):
        if fmt == "parquet":
            import pyarrow.parquet as pq

            check_has_columns(path, columns, pq.read_schema(path).names)
            # the file's own reader: pq.read_table goes through pyarrow.dataset, which
            # imports pandas (0.2 s)
            with pq.ParquetFile(path) as file:
                return file.read(columns=list(columns))
        if fmt in ("csv", "tsv"):
            table = read_csv(path, columns, fmt, id_columns, encode_ids, numbers)
            if not table.num_rows:  # a header and blank lines
                raise header_only(path)
            return table
    raise InputValidationError(
        f"{func}: cannot tell the format of {path!r}; pass file_format='csv', 'tsv', 'parquet' "
        f"or 'trec'."
    )


def table_columns(path: str | os.PathLike[str], fmt: str) -> list[str]:
    """The names of the columns of a CSV or TSV file (its header) or a Parquet file
    (its schema), ``fmt``; a file that cannot be read so is an error, as
    :func:`read_table` says it."""
    path = os.fspath(path)
    check_file(path)
    if fmt == "parquet":  # a pipe named so, as its reader does
        return list(ParquetColumns(path, ()).schema.names)
    with _table_errors(path, fmt):
        names = csv_header(path, fmt)
    return names


def table_schema(path: str, fmt: str | None) -> Any:
    """The Arrow schema of a CSV or TSV file (types inferred from its first block) or a
    Parquet file, ``fmt`` (None: its suffix's); None for another format or an error."""
    import pyarrow as pa

    fmt = fmt or infer_format(path)
    try:
        if fmt == "parquet":
            return ParquetColumns(path, ()).schema
        return csv_schema(path, fmt) if fmt in ("csv", "tsv") else None
    except (pa.ArrowInvalid, OSError, InputValidationError):
        return None


@contextmanager
def _table_errors(path: str, fmt: str | None) -> Iterator[None]:
    """Arrow's and the file's errors while a table file (``fmt``) is read, as errors
    that name the file, with the fix where there is one."""
    import pyarrow as pa

    try:
        yield
    except pa.ArrowInvalid as exc:
        if fmt == "parquet":
            raise not_parquet(path, exc) from exc
        if "Empty CSV file" in str(exc):
            csv_header(path, str(fmt))  # raises for an empty file
            raise header_only(path) from exc
        raise csv_error(path, fmt, exc) from exc
    except (OSError, EOFError) as exc:  # a truncated or corrupt compressed stream
        raise InputValidationError(f"{path}: cannot be read: {sentence(exc)}") from exc
    except UnicodeDecodeError as exc:
        raise header_not_utf8(path, exc) from exc


# read Parquet columns with polars when it is installed (faster); pyarrow otherwise
_PARQUET_WITH_POLARS = True
#: below this address-space limit (``ulimit -v``, RLIMIT_AS) polars is not used: its
#: reader reserves about 1 GiB of address space for its threads on top of pyarrow's
#: (which it reads through), so a limited process fails though its data would fit
_POLARS_MIN_ADDRESS_SPACE = 16 << 30


def _with_polars() -> bool:
    """Whether to read Parquet with polars: asked for, and no tight address-space limit."""
    if not _PARQUET_WITH_POLARS:
        return False
    try:
        import resource
    except ImportError:  # pragma: no cover - not on POSIX
        return True
    limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    return limit == resource.RLIM_INFINITY or limit >= _POLARS_MIN_ADDRESS_SPACE


def _polars_batches(path: str, column: str) -> Iterator[Any] | None:
    """A column's Arrow arrays from polars' streaming engine; None without polars (or
    with one older than ``LazyFrame.collect_batches``) or when polars cannot read
    the file (pyarrow then reports the problem). A panic of polars' reader (a
    ``BaseException``) on a broken file is an :class:`InputValidationError`."""
    try:
        import polars as pl
    except ImportError:
        return None
    try:
        query = pl.scan_parquet(path).select(column)
        if not hasattr(query, "collect_batches"):
            return None
        batches = query.collect_batches()
        first = next(batches, None)
    except pl.exceptions.PolarsError:
        return None
    except BaseException as exc:
        raise_panic(exc, path)
        raise

    def arrays() -> Iterator[Any]:
        frame = first
        while frame is not None:
            yield from frame.to_arrow().column(0).chunks
            try:
                frame = next(batches, None)
            except pl.exceptions.PolarsError as exc:  # pragma: no cover - file changed
                raise InputValidationError(f"{path}: {exc}") from exc
            except BaseException as exc:
                raise_panic(exc, path)
                raise

    return arrays()


def _polars_column(frame: Any) -> Any:
    """The one column of a polars frame read from Parquet, as :func:`column_array`
    takes it: strings as Arrow ``string_view`` chunks, a row group's each, in polars'
    own layout (the frame's chunks, no copy; a Series would be joined into one
    array first), with polars 1.1 and later; other columns as a Series."""
    import polars as pl

    level = getattr(pl, "CompatLevel", None)
    if frame.dtypes[0] == pl.String and level is not None:
        return frame.to_arrow(compat_level=level.newest()).column(0)
    return frame.to_series()


def raise_panic(exc: BaseException, path: str) -> None:
    """Re-raise a native reader's panic (PyO3's ``PanicException``, which derives
    from ``BaseException`` and would escape ``except Exception``) as an
    :class:`InputValidationError` naming the file; return for anything else."""
    if type(exc).__name__ == "PanicException":
        text = " ".join(str(exc).split())
        raise InputValidationError(
            f"{path}: cannot be read as Parquet (the reader failed: {text}); the file may be "
            f"corrupt."
        ) from exc


class ParquetColumns:
    """Read a Parquet file one column at a time: whole (:meth:`read`) or row group
    by row group (:meth:`chunks`).

    A table of 100M rows is gigabytes of raw columns; reading one column at a
    time, and a column in row groups where the caller can take it so, keeps
    little of it in memory. Every read opens the file afresh without
    pre-buffering (a pre-buffering reader keeps the compressed bytes of every
    column it read), and :meth:`release` hands the pages Arrow's pool kept
    back to the OS.
    """

    def __init__(self, path: str, columns: Sequence[str]) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        self.path = path
        try:
            meta = pq.ParquetFile(path, pre_buffer=False)
        except (pa.ArrowInvalid, OSError) as exc:
            if is_stream(path):  # "lseek failed"
                raise InputValidationError(
                    f"{path}: a pipe cannot be read as Parquet (its reader seeks in the "
                    f"file); save the stream to a file and read that."
                ) from exc
            raise not_parquet(path, exc) from exc
        self.schema = meta.schema_arrow
        self.num_rows = meta.metadata.num_rows
        self.num_row_groups = meta.metadata.num_row_groups
        self.metadata = meta.metadata  # the row groups' sizes and statistics
        check_has_columns(path, columns, self.schema.names)

    def read(self, column: str) -> Any:
        """One column, whole, as a NumPy array (an Arrow array for strings; a
        categorical column as given: :func:`ids_as_given`)."""
        import pyarrow as pa

        if _with_polars():
            try:
                import polars as pl
            except ImportError:
                pass
            else:
                # polars decodes the row groups of one column in parallel (pyarrow's
                # single-column read uses one thread): 2-3x faster on large files
                try:
                    frame = pl.read_parquet(self.path, columns=[column])
                except pl.exceptions.PolarsError:
                    pass  # pyarrow below reports the problem
                except BaseException as exc:
                    raise_panic(exc, self.path)
                    raise
                else:
                    return ids_as_given(_polars_column(frame))
        # the row groups decoded by threads (pyarrow's reader of a whole column decodes
        # them on one: twice the time for 10M string ids)
        if self._dictionary_indices(column):
            return ids_as_given(pa.chunked_array(list(self._arrow_chunks(column, True))))
        chunks = list(self._arrow_chunks(column))
        return ids_as_given(pa.chunked_array(chunks, self.type_of(column)))

    def _dictionary_indices(self, column: str) -> bool:
        """Whether a string column is stored as dictionary indices in every row group,
        told by its size: less than a byte a row (a page of values written plain
        takes at least four bytes a row, their lengths), as a column of few distinct
        ids in runs (a run's users) is. Such a column is read as dictionary arrays
        (its indices and each row group's distinct ids), not as a string a row: the
        users of the ids benchmark's run, 10M rows, in 32 ms against 130 ms on one
        thread."""
        import pyarrow as pa

        kind = self.type_of(column)
        if not (pa.types.is_string(kind) or pa.types.is_large_string(kind)) or not self.num_rows:
            return False
        meta = self.metadata
        index = self.schema.names.index(column)
        chunks = [meta.row_group(g).column(index) for g in range(meta.num_row_groups)]
        stored = sum(c.total_uncompressed_size for c in chunks)
        return all(c.has_dictionary_page for c in chunks) and stored < self.num_rows

    def type_of(self, column: str) -> Any:
        """The Arrow type of a column."""
        return self.schema.field(column).type

    def smallest(self, column: str) -> int | None:
        """The smallest value of an integer column by the row groups' statistics;
        None where a row group has none (a hint only: nothing relies on it)."""
        meta = self.metadata
        index = self.schema.names.index(column)
        lows = []
        for g in range(meta.num_row_groups):
            stats = meta.row_group(g).column(index).statistics
            if stats is None or not stats.has_min_max or not isinstance(stats.min, int):
                return None
            lows.append(stats.min)
        return min(lows, default=None)

    def chunks(self, column: str) -> Generator[Any, None, None]:
        """One column as Arrow arrays, a row group or so at a time, in order.

        Threads decode the next row groups while the caller works on the current
        one, so a column is never whole in memory unless a row group is the whole
        file. polars' streaming engine decodes them when polars is installed (it
        takes a third less time than Arrow's reader here); pyarrow otherwise, in
        threads of ours holding at most ``2 * threads`` row groups.
        """
        if _with_polars():
            batches = _polars_batches(self.path, column)
            if batches is not None:
                yield from batches
                return
        yield from self._arrow_chunks(column)

    def _arrow_chunks(self, column: str, indices: bool = False) -> Generator[Any, None, None]:
        """:meth:`chunks` by pyarrow's reader, in threads of ours holding at most
        ``2 * threads`` row groups (``indices``: as dictionary arrays)."""
        from concurrent.futures import ThreadPoolExecutor  # with logging: not at import

        import pyarrow as pa
        import pyarrow.parquet as pq

        local = threading.local()

        def read(i: int) -> list[Any]:
            if not hasattr(local, "file"):
                local.file = pq.ParquetFile(
                    self.path, pre_buffer=False, read_dictionary=[column] if indices else None
                )
            try:
                table = local.file.read_row_group(i, columns=[column], use_threads=False)
            except (pa.ArrowInvalid, OSError) as exc:  # pragma: no cover - file changed
                raise InputValidationError(f"{self.path}: {exc}") from exc
            result: list[Any] = table.column(0).chunks
            return result

        n = self.num_row_groups
        from .._kernels import num_threads

        workers = min(n, max(1, num_threads()))
        if workers <= 1:
            for i in range(n):
                yield from read(i)
            return
        with ThreadPoolExecutor(workers) as pool:
            ahead = deque(pool.submit(read, i) for i in range(min(n, 2 * workers)))
            following = len(ahead)
            while ahead:
                chunks = ahead.popleft().result()
                if following < n:
                    ahead.append(pool.submit(read, following))
                    following += 1
                yield from chunks

    @staticmethod
    def release() -> None:
        import pyarrow as pa

        pa.default_memory_pool().release_unused()


class ArrowColumns:
    """The columns of an Arrow table or record batch, read as :class:`ParquetColumns`
    reads a file's: whole (:meth:`read`) or chunk by chunk (:meth:`chunks`, the
    table's own chunks, no copy)."""

    path = "the data"

    def __init__(self, table: Any) -> None:
        self.table = table
        self.num_rows = table.num_rows

    def type_of(self, column: str) -> Any:
        """The Arrow type of a column."""
        return self.table.schema.field(column).type

    def read(self, column: str) -> Any:
        """One column, whole, as a NumPy array (an Arrow array for strings; a
        categorical column as given: :func:`ids_as_given`)."""
        return ids_as_given(self.table.column(column))

    @staticmethod
    def smallest(column: str) -> int | None:
        """No statistics to tell a column's smallest value."""
        return None

    def chunks(self, column: str) -> Generator[Any, None, None]:
        """One column's Arrow arrays, in order."""
        values = self.table.column(column)
        yield from getattr(values, "chunks", [values])

    @staticmethod
    def release() -> None:
        """Nothing to hand back: the table is the caller's."""


@contextmanager
def located(
    path: str | os.PathLike[str], fmt: str | None, columns: tuple[str, str] = ("user", "item")
) -> Iterator[None]:
    """Put the file (and, where the check knows the row, its line) in front of the
    data errors raised while a file is turned into a container.

    A CSV or TSV row is named by the line where it begins (blank lines and quoted
    line ends counted, as an editor numbers lines); a Parquet row by its position. A
    repeated (user, item) pair is looked up in the file (``columns``: the user and
    item columns) to name the line (TREC, CSV, TSV) or row (Parquet) where it comes
    again."""
    where = os.fspath(path)
    try:
        yield
    except InputValidationError as exc:
        message = str(exc)
        if where in message:
            raise
        line = row = None
        if exc.pair is not None and fmt in ("trec", "csv", "tsv"):
            line = _repeated_line(where, fmt, columns, exc.pair)
        elif exc.pair is not None and fmt == "parquet":
            row = _repeated_row(where, columns, exc.pair)
        if line is not None:
            place = f"{where}:{line}"
        elif row is not None:
            place = f"{where}: row {row}"
        else:
            place, said = file_error(exc, where, exc.row, lines=fmt in ("csv", "tsv"))
            message = str(said)
        error = InputValidationError(f"{place}: {message}")
        error.row = exc.row
        raise error from exc


def _repeated_row(path: str, columns: tuple[str, str], pair: tuple[object, object]) -> int | None:
    """The row (1-based) of a Parquet file where the (user, item) ``pair`` appears the
    second time, or None (not found, or the file cannot be read again)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path, columns=list(columns))
        same = [pc.equal(pc.cast(table.column(i), pa.string()), str(pair[i])) for i in range(2)]
        rows = np.flatnonzero(pc.and_(*same).to_numpy(zero_copy_only=False))
    except (OSError, pa.ArrowException):
        return None
    return int(rows[1]) + 1 if rows.size > 1 else None


def _repeated_line(
    path: str, fmt: str, columns: tuple[str, str], pair: tuple[object, object]
) -> int | None:
    """The line (1-based) where the (user, item) ``pair`` appears the second time, or
    None (not found, or the file cannot be read again)."""
    import csv

    import pyarrow as pa

    user, item = str(pair[0]), str(pair[1])
    positions = (0, 2)
    seen = False
    if not os.path.isfile(path):  # a pipe is read once
        return None
    try:
        rows = records(path, fmt)
        if fmt != "trec":
            header = next(rows, (0, []))[1]
            if columns[0] not in header or columns[1] not in header:
                return None
            positions = (header.index(columns[0]), header.index(columns[1]))
        for number, fields in rows:
            if len(fields) > max(positions):
                if fields[positions[0]].strip() == user and fields[positions[1]].strip() == item:
                    if seen:
                        return number
                    seen = True
    except (csv.Error, OSError, EOFError, pa.ArrowException):
        return None
    return None

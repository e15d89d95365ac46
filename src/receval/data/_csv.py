"""Reading the named columns of a CSV or TSV file, id columns of integers as int64."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from ._open import (
    CountingFile,
    arrow_input,
    check_has_columns,
    check_not_parquet,
    compression_of,
    header_not_utf8,
    open_input,
    place,
    sentence,
)
from ._string_buffers import integer_strings, large_strings

__all__ = ["csv_batches", "csv_error", "csv_header", "csv_options", "csv_schema", "read_csv"]

#: pyarrow's default CSV block (1 MiB): a row must fit in one block
CSV_BLOCK = 1 << 20

#: the bytes of a file first read for its header, and the most read before Arrow's
#: reader of the stream reads it (a quote left open) (:func:`csv_header`)
_HEADER_BYTES, _HEADER_MOST = 1 << 16, 1 << 24

#: the blocks of a range of a file read at once by Arrow's threaded reader (16 MiB at
#: the default block): the parsed columns of one range are held at a time
_RANGE_BLOCKS = 16


def read_csv(
    path: str,
    columns: Sequence[str],
    fmt: str,
    id_columns: Sequence[str],
    encode_ids: bool = False,
    numbers: Sequence[str] = (),
) -> Any:
    """The named columns of a CSV/TSV file; only they are converted (a wide file's
    other columns are skipped), and a row longer than a block (a field of several
    MiB) retries with blocks large enough. An id column (``id_columns``) is int64
    when every id is an integer written as its digits, else strings
    (:func:`_integer_chunk`); with ``encode_ids``, else a dictionary column (each
    row's code, in order of first appearance, and the distinct ids). A column of
    ``numbers`` is read as float64: a value that is no number is an error at its
    line, as :func:`receval.scan` says it (:func:`csv_error`).

    The file is read a range of lines at a time (:func:`csv_batches`), and the ids of
    each block are cast to int64 (or encoded) as it comes, so the text of the file
    and the strings of its ids are never held whole. The types of the other columns
    are those that Arrow infers from the whole file: the first range (or block)
    gives them, and a later one that does not fit them (a grade of ``0.5`` after
    integer grades) reads the file again with the types of the whole file given.
    """
    import pyarrow as pa

    ids = [c for c in dict.fromkeys(id_columns) if c in columns]
    types: dict[str, Any] = {c: pa.string() for c in ids}
    types.update({c: pa.float64() for c in numbers if c in columns and c not in types})
    block = CSV_BLOCK
    while True:
        try:
            return _read(path, columns, fmt, ids, types, block, encode_ids)
        except pa.ArrowInvalid as exc:
            text = str(exc)
            # a row longer than the block ("straddling"), or a header ("empty block"):
            # grow the block, up to the file
            cut = "straddling" in text or "Empty CSV file or block" in text
            if cut and block < max(os.path.getsize(path), 1) * 4:
                block *= 8
            elif "conversion error" in text and (
                others := [c for c in dict.fromkeys(columns) if c not in types]
            ):  # the inferred types, once
                types.update(_whole_file_types(path, others, fmt, block))
            else:
                raise


def csv_options(fmt: str, block: int = CSV_BLOCK, quoted_lines: bool = True) -> tuple[Any, Any]:
    """Arrow's read and parse options of every reader of a CSV (``fmt`` ``"csv"``)
    or TSV (``"tsv"``) file: blocks of ``block`` bytes, quoted values that may hold
    line ends (``quoted_lines``; Arrow's threaded reader then cuts its blocks on one
    thread, and a reader told they do not cuts them at any line end)."""
    import pyarrow.csv as pcsv

    delimiter = "\t" if fmt == "tsv" else ","
    parse = pcsv.ParseOptions(delimiter=delimiter, newlines_in_values=quoted_lines)
    return pcsv.ReadOptions(block_size=block), parse


def csv_header(path: str, fmt: str, block: int = CSV_BLOCK) -> list[str]:
    """The names of the columns of a CSV or TSV file (``fmt``), from its first line
    (a compressed file decompressed).

    The first bytes of the file are read here, more of them while the header's
    line end (outside quotes, by the core's ``range_end``; after the empty lines
    Arrow skips) is not among them, and Arrow reads the header from a copy of them
    in its own memory: no more of the file is read, and none of Python's objects
    reach Arrow's threads (:class:`._open._Handed`). A header whose end the count
    of quotes cannot find (a quote out of place, line ends of CR alone, none in the
    first 16 MiB or ``block``) is read by Arrow's reader of the stream, ``block``
    bytes at a time."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    from .._kernels import compiled

    read, parse = csv_options(fmt, block)
    delimiter = ord("\t" if fmt == "tsv" else ",")
    head, ended, limit = bytearray(), False, min(_HEADER_BYTES, block)
    with open_input(path) as source:
        while True:
            while len(head) < limit and not ended:
                more = source.read(limit - len(head))
                head += more
                ended = not more
            check_not_parquet(path, fmt, head)
            skip = len(_BOM) if head.startswith(_BOM) else 0
            text = np.frombuffer(head, np.uint8, offset=skip)
            blank = len(text) - len(bytes(text).lstrip(b"\r\n"))  # lines Arrow skips
            end, cut = compiled().range_end(text, blank + 1, False, delimiter)
            del text
            if end >= 0 or ended:
                break
            lone_cr = b"\r" in head and b"\n" not in head
            if cut == _FROM_START or lone_cr or limit >= max(block, _HEADER_MOST):
                with arrow_input(path) as stream:
                    reader = pcsv.open_csv(stream, read_options=read, parse_options=parse)
                    return _names(path, reader.schema)
            limit = min(8 * limit, max(block, _HEADER_MOST))
    if end >= 0:
        # the names alone, the rows after them (after a header ended by a CR alone)
        # skipped; Arrow's skip fails at the end of the text: an empty line more
        del head[skip + end :]
        head += b"\n\n"
    elif head[skip:].strip(b"\r\n"):  # the whole file, a line with no line end: its header
        head += b"\n"
    else:
        from ..exceptions import InputValidationError

        raise InputValidationError(
            f"{path}: the file is empty; a {fmt.upper()} file starts with a header line "
            f"naming its columns."
        )
    copy = pa.allocate_buffer(len(head))  # Arrow's memory, not a Python object's
    np.frombuffer(copy, np.uint8)[:] = np.frombuffer(head, np.uint8)
    whole = pcsv.ReadOptions(
        block_size=len(head) + 1,
        use_threads=False,
        skip_rows_after_names=2**31 - 1 if end >= 0 else 0,
    )
    table = pcsv.read_csv(pa.BufferReader(copy), read_options=whole, parse_options=parse)
    return _names(path, table.schema)


def _names(path: str, schema: Any) -> list[str]:
    """A CSV header's column names; names that are not UTF-8 (Arrow decodes them
    with Python's codec) are an error at the file's first line."""
    try:
        return list(schema.names)
    except UnicodeDecodeError as exc:
        raise header_not_utf8(path, exc) from exc


def _read(
    path: str,
    columns: Sequence[str],
    fmt: str,
    ids: Sequence[str],
    types: dict[str, Any],
    block: int,
    encode_ids: bool,
) -> Any:
    """The table of ``columns``, read block by block (``types``: the columns'
    types given up front)."""
    import pyarrow as pa

    from .._kernels import compiled

    # a column the file lacks, or names twice (Arrow would read the first): the
    # header says what it has
    check_has_columns(path, columns, csv_header(path, fmt))
    schema, batches = csv_batches(path, fmt, columns, types, block)
    chunks: list[list[Any]] = [[] for _ in schema.names]
    integers = {schema.get_field_index(name): True for name in ids}  # every id so far
    codes: dict[int, Any] = {}  # the columns of string ids encoded as they come
    rows = 0
    for batch in batches:
        for at, column in enumerate(batch.columns):
            if at in integers and column.null_count:  # an empty field: no id
                _no_id(path, schema.names[at], rows + _first_null(column))
            if integers.get(at):
                cast = _integer_chunk(column)
                if cast is None:  # the blocks cast already go back to their text
                    integers[at] = False
                    chunks[at] = [i.cast(pa.string()) for i in chunks[at]]
                    if encode_ids:
                        codes[at] = compiled().IdCodes()
                        chunks[at] = [_encoded(codes[at], i) for i in chunks[at]]
                else:
                    column = cast
            chunks[at].append(_encoded(codes[at], column) if at in codes else column)
        rows += batch.num_rows
        del batch
    fields = [
        pa.field(f.name, pa.int64()) if integers.get(at) else f for at, f in enumerate(schema)
    ]
    arrays = [
        _dictionary(c, codes[at]) if at in codes else pa.chunked_array(c, fields[at].type)
        for at, c in enumerate(chunks)
    ]
    return pa.table(arrays, names=[f.name for f in fields])


def csv_error(path: str, fmt: str | None, exc: BaseException) -> Any:
    """The :class:`~receval.exceptions.InputValidationError` of Arrow's error reading a
    CSV or TSV file (``fmt``), at its line (Arrow names none; the error's ``row`` is
    the row within the file), with the fix: a value that its column's type does not
    read (the column by name, the line of the first such value), a line of other than
    the header's count of fields, or one that is not UTF-8. Any other error (or one
    whose line is not found) names the file."""
    from ..exceptions import InputValidationError

    if fmt in ("csv", "tsv"):
        found = _bad_value(path, fmt, str(exc)) or _bad_line(path, sentence(exc))
        if found is not None:
            return InputValidationError(found[0], row=found[1])
    return InputValidationError(f"{path}: {sentence(exc)}")


#: Arrow's error for a value its column's type does not read (the file's column number)
_CONVERSION = re.compile(
    r"In CSV column #(\d+): CSV conversion error to (\S+): invalid value '(.*)'$", re.S
)
#: what each type Arrow reads a column as takes
_READS = {"double": "a number", "float": "a number", "int64": "an integer", "bool": "true or false"}


def _bad_value(path: str, fmt: str, text: str) -> tuple[str, int | None] | None:
    """The message and row of a value its column's type does not read (None: another
    error): the column named from the header, the row of the value's first appearance
    (the file read again, that column as text)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from ..exceptions import InputValidationError

    match = _CONVERSION.search(text.strip())
    if match is None:
        return None
    at, kind, value = int(match[1]), match[2], match[3]
    try:
        name = csv_header(path, fmt)[at]
        _, batches = csv_batches(path, fmt, [name], {name: pa.string()})
        row, rows = None, 0
        for batch in batches:
            found = pc.index(batch.column(0), value=value).as_py()
            if found >= 0:
                row = rows + found
                break
            rows += batch.num_rows
    except (pa.ArrowException, OSError, EOFError, IndexError, UnicodeError, InputValidationError):
        return None  # Arrow's words, at the file
    what = _READS.get(kind, f"a value of type {kind}")
    return (
        f"{place(path, row, lines=True)}: the {name!r} column holds {value!r}, which is not "
        f"{what} (the column is read as {kind}); correct the value or drop the row.",
        row,
    )


def _bad_line(path: str, text: str) -> tuple[str, int] | None:
    """The message and row of the first line of other than the header's count of
    fields (Arrow's error ``text`` quotes it), or that is not UTF-8; None otherwise."""
    ragged = "Expected " in text and " columns, got " in text
    if not (ragged or "invalid UTF8" in text):
        return None
    for number, line in enumerate(_lines(path), 1):  # the header first
        if not ragged:
            try:
                line.decode()
            except UnicodeDecodeError:
                fix = "save the file as UTF-8"
                return f"{path}:{number}: the line is not UTF-8 text ({text}); {fix}.", number - 2
        elif (
            number > 1
            and line.rstrip(b"\r\n")
            and text.endswith(line.rstrip(b"\r\n").decode(errors="replace") + ".")
        ):
            fix = "give every line the header's fields, quoting a field that holds the delimiter"
            return f"{path}:{number}: {text[:-1]}; {fix}.", number - 2
    return None


def _lines(path: str) -> Iterator[bytes]:
    """The lines of a file (decompressed, whatever its compression), line ends kept."""
    stream = open_input(path)
    try:
        rest = b""
        while chunk := stream.read(1 << 20):
            *lines, rest = (rest + chunk).split(b"\n")
            yield from (line + b"\n" for line in lines)
        if rest:
            yield rest
    finally:
        stream.close()


def _first_null(column: Any) -> int:
    """The position of the first null of an Arrow array."""
    return int(np.flatnonzero(column.is_null().to_numpy(zero_copy_only=False))[0])


def _no_id(path: str, name: str, row: int) -> None:
    """Raise for an empty field of an id column at ``row`` (0-based after the header)."""
    from ..exceptions import InputValidationError

    raise InputValidationError(
        f"{place(path, row, lines=True)}: the {name!r} column has no id in this row (an "
        f"empty field); fill it in or drop the row.",
        row=row,
    )


def csv_batches(
    path: str,
    fmt: str,
    columns: Sequence[str],
    types: dict[str, Any],
    block: int = CSV_BLOCK,
    range_limit: int | None = None,
    advance: Callable[[int], object] | None = None,
) -> tuple[Any, Iterator[Any]]:
    """The schema of ``columns`` (every column when empty) and their record batches,
    in the file's order (each reader of a CSV or TSV file, ``fmt``, reads it here).

    A plain file (not compressed, not a pipe) is cut into ranges of about
    :data:`_RANGE_BLOCKS` blocks of ``block`` bytes (at most ``range_limit`` bytes,
    at least a block), each ending at a line end outside quotes (:func:`_ranges`), and each
    range is read by Arrow's threaded reader (its blocks parsed on every core); the
    first range gives the types of the columns not in ``types``, which the others
    are read with. Other inputs are read as a stream, a block at a time. Quoted
    values may hold line ends: a range whose quotes hold one (or one left open) is
    read with Arrow's reader told so (which cuts its blocks on one thread; told
    they do not, it cuts them at any line end, and may drop the rows of a quote left
    open without an error). From a range with a quote within a field (a character
    to Arrow's reader, which a count of the quotes does not follow), the rest of the
    file is read as one such stream. ``advance`` is told the bytes of the file (as
    stored: compressed, if it is) as they are read.
    """
    import pyarrow as pa
    import pyarrow.csv as pcsv

    read, parse = csv_options(fmt, block)
    convert = _convert_options(columns, types)
    if compression_of(path) is not None or not os.path.isfile(path):
        reader = _stream(path, 0, read, parse, convert, advance)
        return reader.schema, _with_missing(reader)
    _, unquoted = csv_options(fmt, block, quoted_lines=False)
    size = _RANGE_BLOCKS * block
    if range_limit is not None:
        size = max(block, min(size, range_limit))
    parts = _ranges(path, size, parse.delimiter)

    def table(part: tuple[Any, int, int], names: list[str] | None, convert: Any) -> Any:
        text, cut, _ = part
        # Arrow's quote-aware reader drops the LF of a quoted CRLF whose CR ends one of
        # its blocks (apache/arrow#51368): such a range is read as one block
        size = len(text) + 1 if cut != _ANY_LINE_END and _crlf_at_ends(text, block) else block
        result = pcsv.read_csv(
            pa.BufferReader(text),
            read_options=pcsv.ReadOptions(block_size=size, column_names=names),
            parse_options=unquoted if cut == _ANY_LINE_END else parse,
            convert_options=convert,
        )
        if advance is not None:
            advance(len(text))
        return result

    head = next(parts)
    if head[1] == _FROM_START:  # the whole file as one quote-aware stream
        parts.close()
        reader = _stream(path, 0, read, parse, convert, advance)
        return reader.schema, _with_missing(reader)
    first = table(head, None, convert)
    given = _convert_options(columns, {f.name: f.type for f in first.schema})

    def batches(first: Any) -> Iterator[Any]:
        yield from first.to_batches()
        del first
        names = None  # the other ranges are read with the header's names
        for part in parts:
            if names is None:
                names = csv_header(path, fmt, block)
            if part[1] == _FROM_START:  # the rest of the file as one quote-aware stream
                parts.close()
                headless = pcsv.ReadOptions(block_size=block, column_names=names)
                yield from _stream(path, part[2], headless, parse, given, advance)
                return
            yield from table(part, names, given).to_batches()

    return first.schema, _with_missing(batches(first))


def _convert_options(columns: Sequence[str], types: dict[str, Any]) -> Any:
    """Arrow's conversion options of :func:`csv_batches`: ``columns`` (every column
    when empty), ``types`` given. A column of text (ids, labels: every column read
    as strings) holds its fields as they are written, ``NA``, ``null``, ``NaN`` and
    ``None`` among them, and only an empty field is missing (as polars reads them,
    and pandas with ``keep_default_na=False``: :func:`_with_missing`); in the other
    columns (numbers, booleans, times) Arrow's null spellings (``NA``, ``NaN``,
    ``null``, ``N/A``, ...) are missing values, as an empty field is."""
    import pyarrow.csv as pcsv

    return pcsv.ConvertOptions(
        column_types=types, include_columns=list(columns), strings_can_be_null=False
    )


def _with_missing(batches: Iterable[Any]) -> Iterator[Any]:
    """The record batches of a CSV file read with :func:`_convert_options`, an empty
    field (``""`` quoted too) of a column of text a missing value (never the id
    ``""``)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    for batch in batches:
        columns = batch.columns
        for at, column in enumerate(columns):
            if not pa.types.is_string(column.type):
                continue
            offsets, _ = _text(column)
            if (offsets[1:] == offsets[:-1]).any():  # an empty field (rare: read again)
                empty = pc.equal(pc.binary_length(column), 0)
                columns[at] = pc.if_else(empty, pa.scalar(None, column.type), column)
                batch = pa.RecordBatch.from_arrays(columns, schema=batch.schema)
        yield batch


#: the UTF-8 byte order mark a file may begin with
_BOM = b"\xef\xbb\xbf"

#: how a range of a CSV file is read (the core's ``range_end``): cut at any line end;
#: by its quotes; by a reader of its quotes from its start
_ANY_LINE_END, _BY_QUOTES, _FROM_START = 0, 1, 2


def _crlf_at_ends(text: Any, block: int) -> bool:
    """Whether a CR ends a block of ``block`` bytes of ``text`` and an LF follows it."""
    cr, lf = ord("\r"), ord("\n")
    return any(text[at - 1] == cr and text[at] == lf for at in range(block, len(text), block))


def csv_schema(path: str, fmt: str) -> Any:
    """The names and types of the columns of a CSV or TSV file (``fmt``), the types as
    Arrow infers them from the file's first block."""
    import pyarrow.csv as pcsv

    read, parse = csv_options(fmt)
    return _stream(path, 0, read, parse, pcsv.ConvertOptions()).schema


def _stream(
    path: str,
    start: int,
    read: Any,
    parse: Any,
    convert: Any,
    advance: Callable[[int], object] | None = None,
) -> Any:
    """Arrow's streaming reader of a CSV file (decompressed; a pipe), a block at a
    time, from byte ``start`` of a plain file (a line's start, outside quotes) to
    its end; the reader holds the file open (:func:`arrow_input`), and tells
    ``advance`` the bytes of the file it reads."""
    import pyarrow.csv as pcsv

    raw = None if advance is None else CountingFile(path, advance)
    with arrow_input(path, raw) as stream:
        if start:
            stream.seek(start)
        return pcsv.open_csv(
            stream, read_options=read, parse_options=parse, convert_options=convert
        )


def _ranges(path: str, size: int, delimiter: str) -> Generator[tuple[Any, int, int], None, None]:
    """The bytes of a file in ranges of at least ``size`` bytes, the first past the
    header line, each ending just past a line end outside quotes (the quotes before
    it even in number; or at the end of the file), read one at a time, each with how
    it must be read and its first byte's place in the file: the core's
    ``range_end`` (fields separated by ``delimiter``) finds the end and the cut in
    one pass. A range whose quotes a count does not follow (:data:`_FROM_START`: a
    quote within a field) is the last: its end is not known, and its caller reads
    the rest of the file otherwise. The ranges are read into Arrow's memory (no
    Python object for Arrow's threads to let go of: :class:`._open._Handed`)."""
    import pyarrow as pa

    from .._kernels import compiled

    range_end = compiled().range_end
    with open(path, "rb") as f:
        n, start = os.fstat(f.fileno()).st_size, 0
        if n == 0:  # Arrow's reader says the file is empty
            yield pa.allocate_buffer(0), _ANY_LINE_END, 0
        while start < n:
            length = min(size + (1 << 16), n - start)
            while True:
                f.seek(start)
                text = pa.allocate_buffer(length)
                got = f.readinto(text)
                text = text.slice(0, got)  # the end of the file (cut short meanwhile)
                # a UTF-8 byte order mark before the header is not text (Arrow drops it)
                bom = start == 0 and bytes(memoryview(text)[: len(_BOM)]) == _BOM
                skip = len(_BOM) if bom else 0
                bytes_ = np.frombuffer(text, np.uint8, offset=skip)
                end, cut = range_end(bytes_, max(size - skip, 0), start == 0, ord(delimiter))
                end += skip if end >= 0 else 0
                del bytes_
                if end >= 0 or cut == _FROM_START or got < length or start + got >= n:
                    break
                length = min(2 * length, n - start)
            end = len(text) if end < 0 else end
            if end == 0:
                return
            yield text.slice(0, end), cut, start
            if cut == _FROM_START:
                return
            start += end


def _dictionary(chunks: list[np.ndarray], encoder: Any) -> Any:
    """A column of string ids encoded block by block (``chunks`` of codes) as one
    dictionary array: the codes and the distinct ids."""
    import pyarrow as pa

    from ._arrow import arrow_integers

    dictionary = large_strings(*encoder.distinct())
    codes = arrow_integers(np.concatenate(chunks) if chunks else np.empty(0, np.int32))
    # every code is one the encoder gave, below its count of ids: no check by Arrow
    return pa.chunked_array([pa.DictionaryArray.from_arrays(codes, dictionary, safe=False)])


def _encoded(encoder: Any, chunk: Any) -> np.ndarray:
    """The codes (int32) of a block of string ids, by ``encoder`` (the core's
    ``IdCodes`` of the column)."""
    result: np.ndarray = encoder.add(*_text(chunk))
    return result


def _whole_file_types(path: str, columns: Sequence[str], fmt: str, block: int) -> dict[str, Any]:
    """The types Arrow infers for ``columns`` from every block of the file."""
    import pyarrow.csv as pcsv

    if not columns:
        return {}
    read, parse = csv_options(fmt, block)
    convert = pcsv.ConvertOptions(include_columns=list(columns))
    with arrow_input(path) as stream:
        schema = pcsv.read_csv(
            stream, read_options=read, parse_options=parse, convert_options=convert
        ).schema
    return {name: schema.field(name).type for name in columns}


def _integer_chunk(chunk: Any) -> Any:
    """A string chunk of a CSV id column (no nulls) as int64 when every id is an
    integer in its canonical decimal spelling (``0``, or an optional ``-`` and
    digits not starting with ``0``, within int64), else None: ids such as ``007``,
    ``+7``, ``-0``, ``7.0``, `` 7`` or ``0x7`` keep their spelling (the column stays
    strings; the canonical spelling of the chunks cast already is their text).
    The compiled core checks and reads each id in one pass."""
    from ._arrow import arrow_integers

    ints = integer_strings(chunk)
    return None if ints is None else arrow_integers(ints)


def _text(chunk: Any) -> tuple[np.ndarray, np.ndarray]:
    """The offsets (int32, from the chunk's first row) and the data of a string
    chunk read from a CSV file, as views of its buffers."""
    if not len(chunk):  # an empty chunk may have no buffers
        return np.zeros(1, np.int32), np.empty(0, np.uint8)
    _, offsets, data = chunk.buffers()
    rows = np.frombuffer(offsets, np.int32, len(chunk) + 1, 4 * chunk.offset)
    return rows, np.empty(0, np.uint8) if data is None else np.frombuffer(data, np.uint8)

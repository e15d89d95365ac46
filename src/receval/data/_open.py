"""Opening input files: existence, compression told by the first bytes, the
messages of a file that cannot be read."""

from __future__ import annotations

import _thread
import io as _io
import os
import re
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from ..exceptions import InputValidationError

__all__ = [
    "EVERY_PAIR_GRADE_1",
    "CountingFile",
    "arrow_input",
    "check_file",
    "check_not_parquet",
    "compression_of",
    "core_streams",
    "data_line",
    "file_error",
    "given_frame_fix",
    "given_path_fix",
    "header_not_utf8",
    "is_parquet",
    "is_stream",
    "not_parquet",
    "open_input",
    "parquet_not_text",
    "place",
    "read_given",
    "records",
    "sentence",
    "whole_line_ends",
]

#: The fix of qrels read without their grade column, every pair of grade 1 (the
#: command line, which has no such option, words it otherwise)
EVERY_PAIR_GRADE_1 = "grade=None to give every pair grade 1"

#: The first bytes of compressed files, and their codec's name. bzip2's are
#: followed by a block (pi in BCD) or the end of the stream (sqrt(pi)).
_MAGIC = (
    (b"\x1f\x8b", "gzip"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"\x28\xb5\x2f\xfd", "zstd"),
)
_BZIP2_BLOCKS = (b"1AY&SY", b"\x17\x72\x45\x38\x50\x90")


def compression_of(path: str) -> str | None:
    """The compression of a file by its first bytes: ``"gzip"``, ``"bz2"``, ``"xz"``,
    ``"zstd"``, or None (not compressed, or not a regular file: a pipe is not read
    ahead of its reader)."""
    if not os.path.isfile(path):
        return None
    try:
        with open(path, "rb") as f:
            head = f.read(10)
    except OSError:
        return None  # the reader reports it
    for magic, codec in _MAGIC:
        if head.startswith(magic):
            return codec
    if head[:3] == b"BZh" and head[3:4].isdigit() and head[4:10] in _BZIP2_BLOCKS:
        return "bz2"
    return None


def open_input(path: str, raw: Any = None) -> Any:
    """A pyarrow input stream of the decompressed bytes of a file (the compression
    told by :func:`compression_of`), read from ``raw`` (a binary file object of the
    file, such as one that counts the bytes read) or else from the file itself."""
    import pyarrow as pa

    codec = compression_of(path)
    if codec is None:
        return pa.OSFile(path) if raw is None else raw
    if codec == "xz":  # not one of Arrow's codecs
        import lzma

        return pa.PythonFile(lzma.open(path if raw is None else raw, "rb"), mode="r")
    source = pa.OSFile(path) if raw is None else pa.PythonFile(raw, mode="r")
    return pa.CompressedInputStream(source, codec)


@contextmanager
def core_streams(*paths: str) -> Iterator[tuple[Any, ...]]:
    """What the compiled core's TREC reader takes beside each of ``paths``: the
    :func:`open_input` stream of the decompressed bytes of a file compressed
    otherwise than with gzip (bzip2, xz, Zstandard, which the core does not
    decompress), None for a file it reads itself (plain text, gzip, a pipe).
    Closed on exit."""
    from contextlib import ExitStack

    with ExitStack() as opened:
        streams = tuple(
            None if compression_of(p) in (None, "gzip") else opened.enter_context(open_input(p))
            for p in paths
        )
        yield streams


@contextmanager
def arrow_input(path: str, raw: Any = None) -> Iterator[Any]:
    """:func:`open_input` (of ``raw``, if given) for an Arrow CSV reader, not closed
    on exit: the file is closed when the last reference to it goes, the reader's
    included.

    Arrow's CSV readers (``open_csv``, ``read_csv``) read the stream ahead on
    Arrow's I/O threads, and neither waits for those reads when it returns: a
    streaming reader asked only for its schema, or ``read_csv`` that stops at an
    error, leaves reads queued on the stream. Closing the stream then frees its
    file descriptor while one of them may be past its check that the file is
    open; the next file opened (the same file, read again) gets the same
    descriptor number, and the stale read takes a block of its bytes: that
    reader then sees a row cut and joined to a later one, rows missing, or a
    header that is not the file's. Released instead of closed, the stream
    closes once the reader's reads let go of it (Arrow holds it by a shared
    pointer), so no read can reach another file.

    The stream's reads never end with a CR that more bytes follow
    (:func:`whole_line_ends`), and the interpreter waits at exit for Arrow's threads
    to let go of it (:class:`_Handed`).
    """
    yield whole_line_ends(open_input(path, raw))


def whole_line_ends(source: Any) -> Any:
    """A pyarrow input stream of the bytes of ``source`` (a pyarrow input stream, or
    a binary file object) whose reads never end with a CR that more bytes follow.

    Arrow's quote-aware CSV readers read a stream a block (one read) at a time, and
    drop the LF of a quoted CRLF whose CR ends a block (apache/arrow#51368): a
    value ``"a\r\nb"`` would be read as ``"a\rb"``. A read that ends with a CR here
    takes the next byte with it.
    """
    import pyarrow as pa

    return pa.PythonFile(_WholeLineEnds(source), mode="r")


class _WholeLineEnds:
    """The binary file object of :func:`whole_line_ends`: reads, seeks and closes
    ``source``."""

    def __init__(self, source: Any) -> None:
        self._source = source
        _HANDED.hold(self)

    @property
    def closed(self) -> bool:
        return bool(self._source.closed)

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return bool(self._source.seekable())

    def read(self, n: int = -1) -> Any:
        import numpy as np

        with _HANDED.reading():
            data = bytes(self._source.read() if n is None or n < 0 else self._source.read(n))
            while data.endswith(b"\r"):
                more = bytes(self._source.read(1))
                if not more:
                    break
                data += more
            block = np.frombuffer(data, np.uint8)  # bytes cannot be watched
            _HANDED.hold(block)
            return block

    def seek(self, offset: int, whence: int = 0) -> int:
        return int(self._source.seek(offset, whence))

    def tell(self) -> int:
        return int(self._source.tell())

    def close(self) -> None:
        self._source.close()


class _Handed:
    """The Python objects read by Arrow's threads (the streams of :func:`arrow_input`
    and the blocks they read), watched so that the interpreter lets them go before
    it finalizes.

    Arrow reads a stream ahead on its own threads, and the last reference to the
    stream, or to a block read from it, may be dropped on one of them (a reader
    asked only for its schema, or left at an error, goes on reading). Releasing a
    Python object takes the interpreter's lock; a thread that asks for it once
    the interpreter is finalizing is ended on the spot, inside Arrow's C++
    destructors, and the process aborts ("terminate called without an active
    exception"). At exit (before finalizing) the objects no longer referenced from
    Python are collected, and the interpreter waits while any is still held and
    Arrow is still reading: until none is held, or no read has run or ended for
    :attr:`QUIET` seconds (a reader that Python still holds, whose reads have
    stopped, is let go on the main thread as the interpreter finalizes), at most
    :attr:`PATIENCE` seconds.
    """

    QUIET = 0.5
    PATIENCE = 5.0

    def __init__(self) -> None:
        # reentrant: a collection within a held lock may release a watched object
        self._lock = _thread.RLock()
        self._held: dict[int, Any] = {}  # weak references, by their id
        self._reads = 0
        self._last = time.monotonic()
        self._watching = False

    def hold(self, obj: Any) -> None:
        """Watch ``obj`` until it is released."""
        import atexit
        import weakref

        with self._lock:
            ref = weakref.ref(obj, self._released)
            self._held[id(ref)] = ref
            self._last = time.monotonic()
            if not self._watching:
                self._watching = True
                atexit.register(self.let_go)

    def _released(self, ref: Any) -> None:
        with self._lock:
            self._held.pop(id(ref), None)
            self._last = time.monotonic()

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Mark a read in progress."""
        with self._lock:
            self._reads += 1
        try:
            yield
        finally:
            with self._lock:
                self._reads -= 1
                self._last = time.monotonic()

    def let_go(self) -> None:
        """Wait until Arrow's threads have let go of the objects watched (above)."""
        import gc

        gc.collect()
        start = time.monotonic()
        while True:
            with self._lock:
                held, reads, last = len(self._held), self._reads, self._last
            now = time.monotonic()
            quiet = not reads and now - last > self.QUIET
            if not held or quiet or now - start > self.PATIENCE:
                return
            time.sleep(0.001)


_HANDED = _Handed()


class CountingFile(_io.RawIOBase):
    """A binary file that tells ``advance`` the bytes read from it (the progress of
    a read), as they are read."""

    def __init__(self, path: str, advance: Callable[[int], object]) -> None:
        self._file = open(path, "rb")
        self._advance = advance

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int | None:
        n = self._file.readinto(buffer)
        if n:
            self._advance(n)
        return n

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = 0) -> int:
        return self._file.seek(offset, whence)

    def tell(self) -> int:
        return self._file.tell()

    def close(self) -> None:
        self._file.close()
        super().close()


def check_has_columns(where: str, columns: Sequence[str], names: Sequence[str]) -> None:
    """Raise naming the file (``where``) and its columns when one of ``columns`` is not
    among ``names``, or is there more than once (which of them is meant?); a header
    read as one field that holds the column between other delimiters gets the fix."""
    for column in columns:
        if column not in names:
            from .._validation import format_values  # NumPy: not at start-up

            raise InputValidationError(
                f"{where}: no column {column!r}. Got columns {format_values(names, limit=10)}"
                f"{_delimiter_fix(names)}."
            )
        if (times := list(names).count(column)) > 1:  # Arrow would read the first
            raise InputValidationError(
                f"{where}: the column {column!r} appears {times} times among the columns; "
                f"rename all but one so that the column read is the one meant."
            )


#: The fix of a header read as one field, by the delimiter it holds: the formats read
#: (CSV: commas, TSV: tabs), or another delimiter, which no reader of receval takes
_DELIMITER_FIXES = {
    "\t": "pass file_format='tsv' (or name the file .tsv)",
    ",": "pass file_format='csv' (or name the file .csv)",
    ";": "rewrite the file with commas (CSV) or tabs (TSV), which receval reads, e.g. "
    "pandas.read_csv(path, sep=';').to_csv(new_path, index=False)",
    "|": "rewrite the file with commas (CSV) or tabs (TSV), which receval reads, e.g. "
    "pandas.read_csv(path, sep='|').to_csv(new_path, index=False)",
}


def _delimiter_fix(names: Sequence[str]) -> str:
    """``"; the header ..., so <fix>"`` where the header was read as one field whose
    names another delimiter separates, else ``""``."""
    if len(names) != 1:
        return ""
    for delimiter, fix in _DELIMITER_FIXES.items():
        if len(names[0].split(delimiter)) > 1:
            return (
                f"; the header was read as one field, its names separated by {delimiter!r}, "
                f"so {fix}"
            )
    return ""


def check_file(path: str) -> None:
    """Raise naming ``path`` when it does not exist or is a directory."""
    if not os.path.exists(path):
        raise InputValidationError(f"{path}: no such file.")
    if os.path.isdir(path):
        raise InputValidationError(
            f"{path}: is a directory, not a file; name one file (a directory of Parquet "
            f"files can be read with receval.scan)."
        )


#: The first bytes of a Parquet file.
_PARQUET_MAGIC = b"PAR1"


def is_stream(path: str) -> bool:
    """Whether ``path`` names a file that is read once, in order: a pipe (bash's
    ``<(...)``, ``/dev/fd/N``, ``/dev/stdin``), not a regular file nor a folder; its
    bytes cannot be looked at ahead of its reader, nor read twice."""
    import stat

    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def is_parquet(head: bytes | bytearray) -> bool:
    """Whether a file's first bytes, ``head``, are those of a Parquet file."""
    return head.startswith(_PARQUET_MAGIC)


def check_not_parquet(
    path: str, fmt: str, head: bytes | bytearray | None = None, fix: str | None = None
) -> None:
    """Raise when a file read as ``fmt`` text (``"csv"``, ``"tsv"``, ``"trec"``) is a
    Parquet file, with the fix: the format to pass (``fix``: another, such as a
    command's). ``head``: the file's first bytes (decompressed), when read already;
    else they are read here, from a regular file only (a pipe is not read ahead of its
    reader; a file that cannot be read is left to its reader)."""
    if head is None:
        if not os.path.isfile(path):
            return
        try:
            with open(path, "rb") as f:
                head = f.read(len(_PARQUET_MAGIC))
        except OSError:
            return
    if is_parquet(head):
        raise parquet_not_text(path, fmt, fix)


def parquet_not_text(path: str, fmt: str, fix: str | None = None) -> InputValidationError:
    """The error of a Parquet file read as ``fmt`` text, with the fix: the format to pass
    (``fix``: another, such as a command's); a pipe's Parquet is to be saved to a file
    first, as Parquet is read by seeking."""
    if fix is None and is_stream(path):
        fix = (
            "a pipe cannot be read as Parquet (its reader seeks in the file): save the "
            "stream to a file and read that with file_format='parquet'"
        )
    elif fix is None:
        fix = (
            f"drop file_format='{fmt}' or pass file_format='parquet'"
            if infer_format(path) == "parquet"
            else "pass file_format='parquet' (or name the file .parquet)"
        )
    return InputValidationError(
        f"{path}: the file is Parquet (it starts with 'PAR1'), not {fmt.upper()} text; {fix}."
    )


def not_parquet(path: str, exc: BaseException) -> InputValidationError:
    """The error of Arrow's ``exc`` opening ``path`` as Parquet: a file that is not
    Parquet (no ``PAR1`` at its end) named so, with the fix (the format its suffix
    names, else the delimiter of its first line, CSV's or TSV's), one that begins as
    Parquet as cut short; any other error as Arrow's."""
    if "magic bytes not found" not in str(exc):
        return InputValidationError(f"{path}: cannot be read as Parquet: {sentence(exc)}")
    try:
        with open(path, "rb") as f:
            head = f.read(1 << 16)
    except OSError:
        head = b""
    if is_parquet(head):
        return InputValidationError(
            f"{path}: the file begins as Parquet but does not end as one (no 'PAR1' at its "
            f"end): it is cut short or corrupt; write it again."
        )
    told = infer_format(path)
    line = head.split(b"\n", 1)[0]
    text = next((fmt for fmt, sep in (("csv", b","), ("tsv", b"\t")) if sep in line), None)
    if told not in (None, "parquet"):
        fix = f"; drop file_format='parquet' or pass file_format='{told}'"
    elif text is not None and compression_of(path) is None:
        fix = f"; pass file_format='{text}' (or name the file .{text})"
    else:
        fix = ""
    return InputValidationError(
        f"{path}: the file is not Parquet (it does not end with the bytes 'PAR1'){fix}."
    )


def header_not_utf8(path: str, exc: UnicodeDecodeError) -> InputValidationError:
    """The error of a CSV header that is not UTF-8 (Arrow decodes column names with
    Python's codec)."""
    return InputValidationError(
        f"{path}:1: the header is not valid UTF-8 (byte {exc.object[exc.start]:#04x} at "
        f"byte {exc.start + 1} of a column name); save the file as UTF-8."
    )


def sentence(exc: BaseException) -> str:
    """An exception's text as a sentence (one line, ending with a period)."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if text.endswith(".") else text + "."


def place(path: str, row: int | None, *, lines: bool) -> str:
    """Where a row of a file is, for messages: ``path:line`` in a text file with a
    header line (CSV, TSV: the line where row ``row``, 0-based after the header,
    begins, as an editor numbers lines: :func:`data_line`), ``path: row N``
    (1-based) in a Parquet file, ``path`` when the row is not known."""
    if row is None:
        return path
    if not lines:
        return f"{path}: row {row + 1}"
    line = data_line(path, row)
    return f"{path}:{row + 2 if line is None else line}"


def data_line(path: str, row: int, fmt: str | None = None) -> int | None:
    """The line (1-based) where row ``row`` (0-based after the header) of a CSV or TSV
    file (``fmt``; None: by its suffix, else by its header's delimiter) begins, the
    file read again (an error is rare) as Arrow's reader reads it (:func:`records`):
    empty lines and quoted line ends are lines too. None where the file cannot be
    read again (a pipe) or has no such row."""
    import csv

    import pyarrow as pa

    if not os.path.isfile(path):
        return None
    try:
        fmt = fmt or infer_format(path)
        if fmt not in ("csv", "tsv"):  # a header of one comma-separated field holding tabs
            header = next(records(path, "csv"), (0, []))[1]
            fmt = "tsv" if len(header) == 1 and "\t" in header[0] else "csv"
        for number, (line, _) in enumerate(records(path, fmt)):
            if number == row + 1:  # the header is record 0
                return line
    except (csv.Error, OSError, EOFError, pa.ArrowException):
        return None
    return None


def records(path: str, fmt: str) -> Iterator[tuple[int, list[str]]]:
    """The records of a text file as its reader reads them, each with the line
    (1-based) where it begins: the file decompressed, a byte-order mark dropped, lines
    ended by LF, CR or CRLF, empty lines skipped. ``fmt``: ``"csv"`` or ``"tsv"``
    (quoted fields, which may hold line ends, as Arrow reads them), or ``"trec"``
    (the whitespace-separated fields of each line)."""
    import csv

    with _io.TextIOWrapper(
        open_input(path), encoding="utf-8-sig", errors="replace", newline=""
    ) as text:
        if fmt == "trec":
            for number, line in enumerate(text, 1):
                if line.strip():
                    yield number, line.split()
            return
        reader = csv.reader(text, delimiter="\t" if fmt == "tsv" else ",")
        end = 0
        for fields in reader:
            if fields:
                yield end + 1, fields
            end = reader.line_num


def file_error(
    exc: InputValidationError, path: str, row: int | None, *, lines: bool
) -> tuple[str, InputValidationError]:
    """Where a data error raised on the rows of a file is (:func:`place`: the row
    ``row``, 0-based after any header, None when not known), and the error to say
    after it, which names the row no second time: a message that states the
    position of the first offending value in the column it was checked in says
    ``the first on this line`` (CSV, TSV) or ``the first in this row`` instead."""
    if row is None:
        return place(path, row, lines=lines), exc
    return place(path, row, lines=lines), exc.restated("on this line" if lines else "in this row")


#: suffixes of compressed files, dropped to find the format's suffix
_COMPRESSED_SUFFIXES = (".gz", ".bz2", ".xz", ".zst", ".zstd")


#: the format each suffix names
_FORMAT_OF_SUFFIX = {
    ".parquet": "parquet", ".pq": "parquet", ".csv": "csv", ".tsv": "tsv",
    ".trec": "trec", ".txt": "trec", ".run": "trec", ".qrels": "trec",
}  # fmt: skip


def infer_format(path: str) -> str | None:
    """The format named by a file's suffix (after a compression suffix), or None."""
    name = path.lower()
    for suffix in _COMPRESSED_SUFFIXES:
        if name.endswith(suffix):
            name = name[: -len(suffix)]
            break
    return next((fmt for suffix, fmt in _FORMAT_OF_SUFFIX.items() if name.endswith(suffix)), None)


#: The fixes of the readers that pass ``file_format=``: a choice of formats, or one
#: (its suffix may follow: ``(or name the file .tsv)``)
_FORMATS_FIX = re.compile(r"pass file_format='(\w+)'((?:, '\w+')* or '\w+')")
_FORMAT_FIX = re.compile(r"pass file_format='(\w+)'(?: \(or name the file \.\w+\))?")

#: The fix that names a column of a reader (:func:`receval.data.io.check_columns`:
#: ``'<column name>'``; :func:`receval.data.io.gradeless`: the column of the grades, as
#: its repr: a string, or a number that labels a pandas column)
_COLUMN_FIX = re.compile(
    r"pass (user|item|grade|score|rank)=('[^']*'|\"[^\"]*\"|-?\d+(?:\.\d+)?(?:e[+-]?\d+)?)"
)


def given_path_fix(message: str, reader: str) -> str:
    """``message``, a reader's error, for a file given by its path to a function that
    takes no ``file_format`` nor column names: its fix names the file by its format's
    suffix, or passes the file read by ``reader`` (e.g. ``qrels=receval.Qrels.from_file``)
    with it, and a fix that names a column (``pass grade='rating'``) passes the file read
    with that column.

    Examples
    --------
    >>> reader = "qrels=receval.Qrels.from_file"
    >>> print(given_path_fix("q.txt:1: a CSV line, so pass file_format='csv'.", reader))
    q.txt:1: a CSV line, so name the file .csv or pass
    qrels=receval.Qrels.from_file(path, file_format='csv').
    >>> print(given_path_fix("format of 'q'; pass file_format='csv', 'tsv' or 'trec'.", reader))
    format of 'q'; name the file .csv, .tsv or .trec, or pass
    qrels=receval.Qrels.from_file(path, file_format='csv') (or 'tsv' or 'trec').
    >>> print(given_path_fix("q.csv: no column 'grade' but ...; pass grade='rating'.", reader))
    q.csv: no column 'grade' but ...; pass qrels=receval.Qrels.from_file(path, grade='rating').
    """
    read = f"pass {reader}(path, file_format="

    def choice(match: re.Match[str]) -> str:
        suffixes = re.sub(r"'(\w+)'", r".\1", f"'{match[1]}'{match[2]}")
        others = match[2].removeprefix(", ").removeprefix(" or ")
        return f"name the file {suffixes}, or {read}'{match[1]}') (or {others})"

    text = _FORMATS_FIX.sub(choice, message)
    text = _COLUMN_FIX.sub(rf"pass {reader}(path, \1=\2)", text)
    return _FORMAT_FIX.sub(lambda m: f"name the file .{m[1]} or {read}'{m[1]}')", text)


def given_frame_fix(error: InputValidationError, argument: str, kind: type) -> InputValidationError:
    """``error``, the error of ``kind``'s frame reader (:class:`~receval.Run` or
    :class:`~receval.Qrels`), for a frame given as ``argument`` of a function that
    takes no column names: its fix (``pass score='<column name>'``) passes the frame
    read by ``kind.from_frame`` with it; ``error`` itself where it has no such fix.

    Examples
    --------
    >>> from receval import Run
    >>> from receval.exceptions import InputValidationError
    >>> said = InputValidationError("f: run: no column 'score'; pass score='<column name>'.")
    >>> print(given_frame_fix(said, "run", Run))
    f: run: no column 'score'; pass run=receval.Run.from_frame(run, score='<column name>').
    """
    read = rf"pass {argument}=receval.{kind.__name__}.from_frame({argument}, \1=\2)"
    text = _COLUMN_FIX.sub(read, str(error))
    return error if text == str(error) else InputValidationError(text, row=error.row)


def read_given(kind: Any, path: str | os.PathLike[str], argument: str, func: str) -> Any:
    """``kind.from_file(path)`` (``kind``: :class:`~receval.Qrels` or
    :class:`~receval.Run`) for a file given as ``argument`` of ``func``, a function
    that takes no ``file_format``: a fix that passes ``file_format=`` says what that
    function's caller can do instead (:func:`given_path_fix`), and an error at a place
    of the file (``run.csv:2: Run: ...``) begins with ``func`` and ``argument``, the
    place kept (``evaluate: run: run.csv:2: ...``)."""
    try:
        return kind.from_file(path)
    except InputValidationError as exc:
        text = given_path_fix(str(exc), f"{argument}=receval.{kind.__name__}.from_file")
        error = exc if text == str(exc) else InputValidationError(text, row=exc.row)
        at = re.match(rf"({re.escape(os.fspath(path))}(?::\d+)?: )(?:{kind.__name__}: )?", text)
        if at is None:
            raise error from None
        raise error.named(at[0], f"{func}: {argument}: {at[1]}") from None

"""Opening input files: existence, compression told by the first bytes, the
messages of a file that cannot be read."""

from __future__ import annotations

import io as _io
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from ..exceptions import InputValidationError

__all__ = [
    "CountingFile",
    "arrow_input",
    "check_file",
    "compression_of",
    "header_not_utf8",
    "open_input",
    "place",
    "sentence",
    "whole_line_ends",
]

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
    (:func:`whole_line_ends`).
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

    @property
    def closed(self) -> bool:
        return bool(self._source.closed)

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return bool(self._source.seekable())

    def read(self, n: int = -1) -> bytes:
        data = bytes(self._source.read() if n is None or n < 0 else self._source.read(n))
        while data.endswith(b"\r"):
            more = bytes(self._source.read(1))
            if not more:
                break
            data += more
        return data

    def seek(self, offset: int, whence: int = 0) -> int:
        return int(self._source.seek(offset, whence))

    def tell(self) -> int:
        return int(self._source.tell())

    def close(self) -> None:
        self._source.close()


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


def check_file(path: str) -> None:
    """Raise naming ``path`` when it does not exist or is a directory."""
    if not os.path.exists(path):
        raise InputValidationError(f"{path}: no such file.")
    if os.path.isdir(path):
        raise InputValidationError(
            f"{path}: is a directory, not a file; name one file (a directory of Parquet "
            f"files can be read with receval.scan)."
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
    header line (CSV, TSV: row ``r``, 0-based after the header, is line ``r + 2``
    of a file without quoted line breaks), ``path: row N`` (1-based) in a Parquet
    file, ``path`` when the row is not known."""
    if row is None:
        return path
    return f"{path}:{row + 2}" if lines else f"{path}: row {row + 1}"


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

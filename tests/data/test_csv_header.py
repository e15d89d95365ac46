"""The header of a CSV or TSV file (``csv_header``): read from the file's first
bytes, the same names as Arrow's reader of the whole file, and no more of the
file read than the header needs (the names were read by Arrow's streaming
reader, which went on reading the file ahead on Arrow's threads: 35 MB of a
218 MB file, and a reader left reading at exit could abort the interpreter)."""

from __future__ import annotations

import bz2
import gzip
import io as _io
import lzma
import time
from typing import Any

import pyarrow as pa
import pyarrow.csv as pcsv
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from receval.data import _csv, _open
from receval.exceptions import InputValidationError


def _oracle(data: bytes, fmt: str, skip_invalid: bool = True) -> Any:
    """The names Arrow's reader gives the whole file, read from memory (or the type
    of its error; rows of another number of fields than the header skipped, unless
    not ``skip_invalid``). A file of no line but blank ones is empty (an
    InputValidationError); one whose only line has no line end is read as that line
    ended (Arrow's reader calls it empty)."""
    if not data.removeprefix(b"\xef\xbb\xbf").strip(b"\r\n"):
        return InputValidationError
    parse = pcsv.ParseOptions(
        delimiter="\t" if fmt == "tsv" else ",",
        newlines_in_values=True,
        invalid_row_handler=(lambda row: "skip") if skip_invalid else None,
    )
    read = pcsv.ReadOptions(block_size=len(data) + 1)
    try:
        table = pcsv.read_csv(_io.BytesIO(data), read_options=read, parse_options=parse)
    except (pa.ArrowInvalid, UnicodeDecodeError) as exc:
        if "Empty CSV file" in str(exc) and not data.endswith(b"\n"):
            return _oracle(data + b"\n", fmt, skip_invalid)
        return type(exc)
    return list(table.schema.names)


def _header(path: Any, fmt: str, *block: int) -> Any:
    """``csv_header`` of a file (or the type of its error)."""
    try:
        return _csv.csv_header(str(path), fmt, *block)
    except (pa.ArrowInvalid, UnicodeDecodeError, InputValidationError) as exc:
        return type(exc)


CASES = {
    "plain": b"user,item,score\n1,2,0.5\n",
    "no line end": b"user,item,score",
    "header only": b"user,item\n",
    "crlf": b"user,item\r\n1,2\r\n",
    "byte order mark": b"\xef\xbb\xbfuser,item\n1,2\n",
    "quoted": b'"us,er","it""em"\n1,2\n',
    "quoted line end": b'"us\ner","it\r\nem",x\n1,2,3\n',
    "quote out of place": b'us"er,item\n1,2\n',
    "cr alone": b"user,item\r1,2\r3,4\r",
    "cr alone, long": b"user,item\r" + b"1,2\r" * 30_000,
    "blank lines first": b"\n\r\n\nuser,item\n1,2\n",
    "only blank lines": b"\n\n\r\n",
    "empty": b"",
    "long": (",".join(f"column_{i:05d}_" + "x" * 40 for i in range(3000)) + "\n").encode()
    + b"1," * 2999
    + b"1\n",
}


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("codec", [None, "gzip", "bz2", "xz"])
def test_the_header_is_arrows_reading_of_the_whole_file(
    tmp_path: Any, name: str, codec: Any
) -> None:
    data = CASES[name]
    packed = {None: bytes, "gzip": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress}[codec]
    path = tmp_path / "f.csv"
    path.write_bytes(packed(data))
    assert _header(path, "csv") == _oracle(data, "csv")


@pytest.mark.parametrize("block", [16, 1 << 10, 1 << 16, 1 << 20])
def test_a_header_longer_than_the_bytes_read_at_first(tmp_path: Any, block: int) -> None:
    # a header longer than the block is read by Arrow's reader of the stream
    data = (",".join(f"c{i}" for i in range(20000)) + "\n" + "1," * 19999 + "1\n").encode()
    path = tmp_path / "f.csv"
    path.write_bytes(data)
    assert _header(path, "csv", block) == _oracle(data, "csv")


field = st.text(alphabet='ab,"\t\r\n\xe9 ', max_size=6)


@settings(max_examples=300, deadline=None)
@given(
    names=st.lists(field, min_size=1, max_size=5),
    quote=st.lists(st.booleans(), min_size=5, max_size=5),
    fmt=st.sampled_from(["csv", "tsv"]),
    end=st.sampled_from(["\n", "\r\n", "\r", ""]),
    rows=st.sampled_from([[], ["1", "2"], ['"x\ny"']]),  # the cell of each row
)
def test_any_header_is_arrows_reading(
    tmp_path_factory: Any, names: list[str], quote: list[bool], fmt: str, end: str, rows: list[str]
) -> None:
    sep = "\t" if fmt == "tsv" else ","
    cells = [
        '"' + n.replace('"', '""') + '"' if q else n for n, q in zip(names, quote, strict=False)
    ]
    lines = "".join(sep.join([cell] * len(names)) + "\n" for cell in rows)
    data = (sep.join(cells) + end + lines).encode()
    path = tmp_path_factory.mktemp("h") / f"f.{fmt}"
    path.write_bytes(data)
    got, want = _header(path, fmt), _oracle(data, fmt)
    # the same names, or an error where Arrow cannot read the file either (a quote
    # left open at its end)
    assert got == want or got is _oracle(data, fmt, skip_invalid=False) is pa.ArrowInvalid


def test_only_the_header_is_read(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "big.csv"
    row = b"123456,7890123,0.123456\n"
    path.write_bytes(b"user,item,score\n" + row * 400_000)  # 9.6 MB
    read: list[int] = []

    class Counting:
        def __init__(self, p: str) -> None:
            self._file = open(p, "rb")

        def read(self, n: int = -1) -> bytes:
            data = self._file.read(n)
            read.append(len(data))
            return data

        def readinto(self, b: Any) -> int:
            n = self._file.readinto(b)
            read.append(n)
            return n

        def __getattr__(self, name: str) -> Any:
            return getattr(self._file, name)

    original = _open.open_input

    def counting(p: str, raw: Any = None) -> Any:
        return original(p, pa.PythonFile(Counting(p), mode="r") if raw is None else raw)

    # wherever the header reader opens the file (its stream, or Arrow's reader of it)
    monkeypatch.setattr(_open, "open_input", counting)
    monkeypatch.setattr(_csv, "open_input", counting, raising=False)
    assert _csv.csv_header(str(path), "csv") == ["user", "item", "score"]
    time.sleep(0.5)  # a reader ahead reads on
    assert sum(read) <= 1 << 16  # the first read


def test_a_quote_left_open_reads_at_most_16_mib_for_the_header(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # no line end outside quotes: the header is left to Arrow's reader of the stream
    # (a value longer than its block: its error) once 16 MiB are read, not the file
    path = tmp_path / "open.csv"
    path.write_bytes(b'"user,item\n' + b"1,2\n" * 6_000_000)  # 24 MB
    read: list[int] = []
    original = _open.open_input

    def counting(p: str, raw: Any = None) -> Any:
        stream = original(p, raw)

        class Counted:
            def read(self, n: int) -> bytes:
                data = stream.read(n)
                read.append(len(data))
                return bytes(data)

            def __enter__(self) -> Any:
                return self

            def __exit__(self, *exc: Any) -> None:
                stream.close()

        return Counted()

    monkeypatch.setattr(_csv, "open_input", counting)
    assert _header(path, "csv") is pa.ArrowInvalid
    assert 1 << 20 < sum(read) <= 1 << 24

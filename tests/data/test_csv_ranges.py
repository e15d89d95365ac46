"""A plain CSV file is read in ranges of its lines, each by Arrow's threaded reader:
the ranges end at line ends outside quotes, and the table is the one the whole
file gives (types, ids cast or encoded across ranges, errors); quoted values read
the fast way where none holds a line end, and quote-aware where one does (or a
quote stands within a field, from there on as a stream), never refused or
misread."""

from __future__ import annotations

import gzip
import os
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.csv as pcsv
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval
from receval import Qrels, Run
from receval.data import _csv, io

COLUMNS = ["user", "item", "score"]


@pytest.fixture
def range_sizes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The sizes of the ranges Arrow's reader is given, in order."""
    sizes: list[int] = []
    original = _csv._ranges

    def counted(path: str, size: int, delimiter: str) -> Any:
        for part in original(path, size, delimiter):
            sizes.append(len(part[0]))
            yield part

    monkeypatch.setattr(_csv, "_ranges", counted)
    return sizes


@pytest.fixture
def small_ranges(monkeypatch: pytest.MonkeyPatch, range_sizes: list[int]) -> list[int]:
    """Blocks of 4 KiB and ranges of two blocks; the sizes of the ranges Arrow's
    reader is given, in order."""
    monkeypatch.setattr(_csv, "CSV_BLOCK", 1 << 12)
    monkeypatch.setattr(_csv, "_RANGE_BLOCKS", 2)
    return range_sizes


def _whole(path: Any, columns: list[str], types: dict[str, Any] | None = None) -> pa.Table:
    """Arrow's own reading of the whole file, quote-aware."""
    return pcsv.read_csv(
        path,
        parse_options=pcsv.ParseOptions(newlines_in_values=True),
        convert_options=pcsv.ConvertOptions(include_columns=columns, column_types=types or {}),
    )


# a value of a row: plain, quoted with the delimiter, a doubled quote or line ends
_VALUE = st.one_of(
    st.from_regex(r"\A[a-z0-9]{0,6}\Z"),
    st.from_regex(r'\A"[a-z,\n]{0,5}(""[a-z\n]{0,3})?"\Z'),
)


@settings(max_examples=150, deadline=None)
@given(
    rows=st.lists(st.tuples(_VALUE, _VALUE), min_size=0, max_size=60),
    size=st.integers(1, 64),
    crlf=st.booleans(),
    last_line_end=st.booleans(),
)
def test_ranges_end_at_line_ends_outside_quotes(
    tmp_path_factory: Any, rows: list[tuple[str, str]], size: int, crlf: bool, last_line_end: bool
) -> None:
    line_end = "\r\n" if crlf else "\n"
    lines = ["a,b", *(f"{x},{y}" for x, y in rows)]
    text = line_end.join(lines)
    data = (text + (line_end if last_line_end else "")).encode()
    path = tmp_path_factory.mktemp("ranges") / "f.csv"
    path.write_bytes(data)
    ranges = list(_csv._ranges(str(path), size, ","))
    parts = [bytes(text) for text, *_ in ranges]
    assert b"".join(parts) == data
    assert all(parts)
    # a range must be cut by its quotes where one of its rows holds a quoted value with
    # a line end (its quotes are all at the edges of values): the rows of each range
    ends = np.cumsum([len(line) + len(line_end) for line in lines])
    quoted_lines = np.array(["\n" in line for line in lines])
    at = np.cumsum([len(part) for part in parts])
    first = np.searchsorted(ends, np.concatenate([[0], at[:-1]]), side="right")
    last = np.searchsorted(ends, at, side="left")
    expected = [bool(quoted_lines[a : b + 1].any()) for a, b in zip(first, last, strict=True)]
    assert [cut for _, cut, _ in ranges] == [
        _csv._BY_QUOTES if q else _csv._ANY_LINE_END for q in expected
    ]
    assert [at for *_, at in ranges] == [sum(map(len, parts[:k])) for k in range(len(parts))]

    def outside(at: int) -> bool:
        """Whether ``at`` is just past a line end outside quotes."""
        return data[at - 1 : at] == b"\n" and data[:at].count(b'"') % 2 == 0

    start = 0
    for k, part in enumerate(parts):
        end = start + len(part)
        assert end == len(data) or outside(end)
        # each range ends at the first line end outside quotes at least `size` bytes
        # in (the first: past the header line too)
        least = start + size
        if k == 0:
            header = next(at for at in range(1, len(data) + 1) if outside(at) or at == len(data))
            least = max(least, header + 1)
        assert end == len(data) or end >= least
        assert not any(outside(at) for at in range(least, end))
        start = end


@pytest.mark.parametrize("small", [False, True])
def test_a_file_read_in_ranges_is_the_whole_file(
    tmp_path: Any, request: pytest.FixtureRequest, small: bool
) -> None:
    # the ids of each block are cast as they come: the columns are those of one read
    # (one range of many blocks, or many ranges)
    sizes = request.getfixturevalue("small_ranges") if small else None
    rng = np.random.default_rng(3)
    n = 150_000 if not small else 20_000
    users = np.repeat(np.arange(n // 50), 50)
    table = pa.table(
        {"user": users, "item": rng.integers(-(2**40), 2**40, n), "score": rng.random(n)}
    )
    path = tmp_path / "run.csv"
    pcsv.write_csv(table, path)
    read = io.read_table(path, ["score", "user", "item"], "Run", "csv", ("user", "item"))
    assert read.column_names == ["score", "user", "item"]
    assert read["user"].num_chunks > 1
    assert sizes is None or len(sizes) > 50
    assert read.schema == pa.schema(
        [("score", pa.float64()), ("user", pa.int64()), ("item", pa.int64())]
    )
    assert read.equals(table.select(["score", "user", "item"]))


def test_string_ids_are_encoded_in_order_across_ranges(
    tmp_path: Any, small_ranges: list[int]
) -> None:
    # ids quoted (as Arrow writes strings), some holding the delimiter or a quote
    rng = np.random.default_rng(2)
    pool = [f"u-{i}" for i in range(300)] + ['a "b"', "x,y", "é"]
    ids = [pool[i] for i in np.repeat(rng.integers(0, len(pool), 3000), 4).tolist()]
    items = [f"doc-{k}" if k % 3 else f'd "{k}", x' for k in range(len(ids))]
    path = tmp_path / "run.csv"
    pcsv.write_csv(pa.table({"user": ids, "item": items, "score": np.arange(len(ids))}), path)
    table = io.read_table(path, COLUMNS, "Run", "csv", ("user", "item"), True)
    assert len(small_ranges) > 20
    for name, values in (("user", ids), ("item", items)):
        column = table[name]
        code = {x: c for c, x in enumerate(dict.fromkeys(values))}
        assert column.chunk(0).dictionary.to_pylist() == list(code)
        assert column.chunk(0).indices.to_pylist() == [code[i] for i in values]
    assert Run.from_file(path).to_dict() == Run.from_frame(_whole(path, COLUMNS)).to_dict()


@pytest.mark.parametrize("small", [False, True])
@pytest.mark.parametrize(
    ("late", "kind"), [("0.5", pa.float64()), ("", pa.int64()), ("high", pa.string())]
)
def test_a_value_of_a_late_block_gives_the_type_of_the_whole_file(
    tmp_path: Any, request: pytest.FixtureRequest, late: str, kind: Any, small: bool
) -> None:
    # the first block (the stream) or range takes its types from its rows: integer
    # grades for a MiB and more (or many small ranges), then a real one (or none, or
    # a word) in the last
    sizes = request.getfixturevalue("small_ranges") if small else None
    n = 5000 if small else 200_000
    path = tmp_path / "qrels.csv"
    path.write_text(
        "user,item,grade\n"
        + "".join(f"{i // 10},{i},{i % 3}\n" for i in range(n))
        + f"7,x,{late}\n"
    )
    table = io.read_table(path, ["user", "item", "grade"], "Qrels", "csv", ("user", "item"))
    assert table["user"].num_chunks > 1
    assert sizes is None or len(sizes) > 5
    whole = _whole(path, ["grade"])
    assert table["grade"].type == kind == whole["grade"].type
    assert table["grade"].to_pylist() == whole["grade"].to_pylist()
    assert table["user"].type == pa.int64()
    assert table["item"].type == pa.string()  # 'x'
    assert table["item"].to_pylist() == [*map(str, range(n)), "x"]
    if late == "0.5":
        assert Qrels.from_file(path).to_dict()[7]["x"] == 0.5


@pytest.mark.parametrize("crlf", [False, True])
def test_quoted_values_that_hold_line_ends_are_read(tmp_path: Any, crlf: bool) -> None:
    # item ids that hold line ends, in a file of more than one block: Arrow's reader
    # in blocks cuts them (an error), so the file is read again as one quote-aware
    # stream
    end = "\r\n" if crlf else "\n"
    n = 100_000
    items = [f"d{end}o{end}c{end}{i}" if i % 2 else f"doc-{i}" for i in range(n)]
    body = "".join(f'{i // 10},"{item}",{(i % 10) / 10}{end}' for i, item in enumerate(items))
    path = tmp_path / "run.csv"
    path.write_bytes(f"user,item,score{end}{body}".encode())
    table = io.read_table(path, COLUMNS, "Run", "csv", ("user", "item"))
    assert table["item"].to_pylist() == items
    assert table["user"].to_pylist() == [i // 10 for i in range(n)]
    run = Run.from_file(path)
    assert run.n_rows == n


def test_a_bad_row_of_a_late_range_is_named_as_the_stream_names_it(
    tmp_path: Any, small_ranges: list[int]
) -> None:
    path = tmp_path / "run.csv"
    path.write_text("user,item,score\n" + "".join(f"{i},{i},0.5\n" for i in range(5000)) + "1,2\n")
    with pytest.raises(receval.InputValidationError, match="Expected 3 columns, got 2: 1,2"):
        Run.from_file(path)


def test_a_compressed_file_is_read_as_a_stream(tmp_path: Any, small_ranges: list[int]) -> None:
    plain = tmp_path / "run.csv"
    plain.write_text("user,item,score\n" + "".join(f"{i // 5},{i},0.5\n" for i in range(3000)))
    packed = tmp_path / "run.csv.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    read = io.read_table(packed, COLUMNS, "Run", "csv", ("user", "item"))
    assert small_ranges == []
    assert read.equals(io.read_table(plain, COLUMNS, "Run", "csv", ("user", "item")))
    assert small_ranges  # the plain file is read in ranges


def test_a_scan_reads_quoted_values_that_hold_line_ends(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a column the metric does not read holds line ends in quoted values, over many
    # of the scan's blocks: every reader of CSV takes the same options
    from receval.data import scan as scan_module

    monkeypatch.setattr(scan_module, "CSV_BLOCK", 1 << 12)
    rng = np.random.default_rng(4)
    n = 3000
    click, score = rng.integers(0, 2, n), rng.random(n)
    notes = [f"line{chr(10)}{i}" for i in range(n)]
    path = tmp_path / "log.csv"
    pcsv.write_csv(pa.table({"note": notes, "click": click, "score": score}), path)
    s = receval.scan(path)
    assert receval.roc_auc_score(s["click"], s["score"]) == receval.roc_auc_score(click, score)


def test_a_quote_never_closed_is_an_error_not_rows_left_out(tmp_path: Any) -> None:
    # Arrow's threaded reader told that no value holds a line end drops the rows of
    # a block whose quote is left open, without an error: the range holds a quote,
    # so it is read quote-aware, which says what is wrong
    path = tmp_path / "run.csv"
    path.write_text(
        'user,item,score\n1,"2,0.5\n' + "".join(f"{i // 10},{i},0.5\n" for i in range(200_000))
    )
    with pytest.raises(receval.InputValidationError, match="Expected 3 columns, got 2"):
        Run.from_file(path)


def test_a_file_cut_short_while_read_ends_at_its_last_byte(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the size the file had when opened is larger than what is left to read: the
    # ranges end where the bytes end (no read past them, no loop)
    data = b"a,b\n" + b"".join(b"%d,%d\n" % (i, i) for i in range(3000))
    path = tmp_path / "f.csv"
    path.write_bytes(data)
    real = os.fstat

    def larger(fd: int) -> Any:
        st = real(fd)
        return os.stat_result((*st[:6], st.st_size + 10_000, *st[7:]))

    monkeypatch.setattr(os, "fstat", larger)
    parts = [bytes(text) for text, *_ in _csv._ranges(str(path), 1000, ",")]
    assert b"".join(parts) == data
    assert len(parts) > 5


@pytest.mark.parametrize("bom", [False, True])
def test_quoted_strings_are_read_on_every_core(
    tmp_path: Any, small_ranges: list[int], bom: bool
) -> None:
    # Arrow's writer quotes every string: ranges whose quoted values hold no line end
    # are read by the reader that cuts at any line end, and the table is the whole
    # file's (values with the delimiter and with quotes, written twice; after a UTF-8
    # byte order mark, which is not a character before the header's first quote)
    n = 20_000
    items = [
        f"doc,{i}" if i % 7 == 0 else f'say "{i}"' if i % 11 == 0 else f"doc-{i}" for i in range(n)
    ]
    table = pa.table(
        {"user": [f"u-{i // 10}" for i in range(n)], "item": items, "score": np.linspace(0, 1, n)}
    )
    path = tmp_path / "run.csv"
    pcsv.write_csv(table, path)
    if bom:
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert b'"""' in path.read_bytes()
    flags: list[int] = []
    original = _csv._ranges

    def seen(path: str, size: int, delimiter: str) -> Any:
        for part in original(path, size, delimiter):
            flags.append(part[1])
            yield part

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_csv, "_ranges", seen)
        read = io.read_table(path, COLUMNS, "Run", "csv", ("user", "item"))
    assert len(flags) > 20 and set(flags) == {_csv._ANY_LINE_END}
    assert read.equals(_whole(path, COLUMNS))


# a field as written, quoted or not: a quote within a field or after a closing quote
# is not the edge of a quoted value (Arrow's quote-aware reader reads it as a
# character); only a counting of quotes that knows so tells its line ends apart. (No
# CRLF inside quotes: Arrow's quote-aware reader drops the LF of one whose CR ends a
# block, apache/arrow#51368; a range read in memory is then read as one block, a
# stream, as the rest of such a file is, cannot be.)
_FIELD = st.sampled_from(
    ["a", "", 'a"b', '"a,b"', '"a\nb"', '"a""b"', '"a"b', '""', '"a\rb"', 'a"', '"a""\nb"']
)


@settings(max_examples=300, deadline=None)
@given(rows=st.lists(st.tuples(_FIELD, _FIELD), min_size=1, max_size=40))
def test_a_file_of_quotes_anywhere_is_read_as_arrow_reads_it_whole(
    tmp_path_factory: Any, rows: list[tuple[str, str]]
) -> None:
    # blocks of 64 bytes and ranges of two blocks: the table (or the error) of Arrow's
    # quote-aware reading of the whole file
    text = "user,item,score\n" + "".join(f"{u},{i},{k}\n" for k, (u, i) in enumerate(rows))
    path = tmp_path_factory.mktemp("quotes") / "run.csv"
    path.write_bytes(text.encode())
    strings = {"user": pa.string(), "item": pa.string()}
    try:
        whole = _whole(path, COLUMNS, strings)
    except pa.ArrowInvalid:
        whole = None
    if whole is not None and "" in whole["user"].to_pylist() + whole["item"].to_pylist():
        whole = None  # an empty field is no id: refused
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_csv, "CSV_BLOCK", 64)
        patch.setattr(_csv, "_RANGE_BLOCKS", 2)
        if whole is None:
            with pytest.raises(receval.InputValidationError):
                io.read_table(path, COLUMNS, "Run", "csv", ("user", "item"))
        else:
            read = io.read_table(path, COLUMNS, "Run", "csv", ("user", "item"))
            assert read.select(["user", "item"]).equals(whole.select(["user", "item"]))


@pytest.mark.parametrize(
    "row",
    [
        # a quote within a field (a character to Arrow's reader), a quoted value with
        # a line end and a character after its closing quote: the quotes before each
        # line end are even in number
        'a"b,"x\ny"z",0\n',
        'u"1,"x\r\ny"z",0\n',
    ],
)
@pytest.mark.parametrize("blocks", [1, 3])
def test_a_line_end_inside_quotes_where_a_block_ends_is_read_by_its_quotes(
    tmp_path: Any, small_ranges: list[int], row: str, blocks: int
) -> None:
    # the row's first line end (inside quotes as Arrow's reader reads the row, not as
    # a count of its quotes says) is the last byte of the first block (a reader that
    # cuts blocks at any line end would cut the value there), or of the third (in the
    # second range: the file from its start is read as a stream)
    block, head, filler = 1 << 12, "user,item,score\n", "u,i,1\n"
    pad = blocks * block - 1 - row.index("\n") - len(head)
    rows = filler * (pad // len(filler) - 1)
    rows += "v" * (pad - len(rows) - 5) + ",i,1\n"
    text = head + rows + row + filler * 2000
    assert text.index(row) + row.index("\n") == blocks * block - 1
    path = tmp_path / "run.csv"
    path.write_bytes(text.encode())
    read = io.read_table(path, COLUMNS, "Run", "csv", ("user", "item"))
    assert len(small_ranges) == (1 if blocks == 1 else 2)
    whole = _whole(path, COLUMNS, {"user": pa.string(), "item": pa.string()})
    line_end = "\r\n" if "\r" in row else "\n"
    assert whole["item"][len(rows) // len(filler)].as_py() == f'x{line_end}yz"'
    assert read.equals(whole)


@pytest.mark.parametrize("fillers", [0, 2000])
def test_a_quoted_crlf_whose_cr_ends_a_block_keeps_its_lf(
    tmp_path: Any, small_ranges: list[int], fillers: int
) -> None:
    # Arrow's quote-aware reader drops the LF (apache/arrow#51368): the range is read
    # as one block. The CR is the last byte of the first block of the first range, or
    # of a block of a later one (ranges of two 4 KiB blocks)
    block, head, filler, row = 1 << 12, "user,item,score\n", "u,i,1\n", 'u,"a\r\nb",1\n'
    before = head + filler * fillers
    path = tmp_path / "run.csv"
    path.write_bytes((before + "v,i,1\n" + row + filler * 2000).encode())
    start = max(at for *_, at in _csv._ranges(str(path), 2 * block, ",") if at <= len(before))
    pad = (start + block - 1 - len(before) - row.index("\r")) % block
    pad += block * (pad < 6)  # a row of at least 6 bytes: v,i,1 and its line end
    text = before + "v" * (pad - 5) + ",i,1\n" + row + filler * 2000
    path.write_bytes(text.encode())
    starts = [at for *_, at in _csv._ranges(str(path), 2 * block, ",")]
    lf = text.index(row) + row.index("\n")
    assert (lf - max(at for at in starts if at <= lf)) % block == 0  # a block's first byte
    read = io.read_table(path, COLUMNS, "Run", "csv", ("user", "item"))
    assert len(small_ranges) > 1
    assert read.num_rows == fillers + 2 + 2000
    assert read["item"][fillers + 1].as_py() == "a\r\nb"


def _cr_ending_a_block(block: int, quoted_at: int, compress: bool) -> bytes:
    """A CSV file (CRLF line ends) whose item of row ``quoted_at`` is a quoted value
    with a CRLF, its CR the last byte of the stream's first block of ``block`` bytes
    (gzip-compressed with ``compress``)."""
    rows = [f"{k // 3},doc-{k},0.5" for k in range(quoted_at)]
    head = ("user,item,score\r\n" + "".join(f"{r}\r\n" for r in rows)).encode()
    opening = f'{quoted_at // 3},"'.encode()
    pad = block - 1 - len(head) - len(opening)
    assert pad > 0
    text = head + opening + b"x" * pad + b'\r\ny",0.5\r\n'
    text += "".join(f"{k // 3},doc-{k},0.5\r\n" for k in range(quoted_at + 1, 300)).encode()
    assert text[block - 1 : block + 1] == b"\r\n"
    return gzip.compress(text) if compress else text


def test_a_quoted_crlf_whose_cr_ends_a_block_of_a_stream_is_kept(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Arrow's quote-aware streaming reader drops the LF of a quoted CRLF whose CR ends
    # one of its blocks (apache/arrow#51368): a compressed file, read as a stream
    monkeypatch.setattr(_csv, "CSV_BLOCK", 1 << 12)
    path = tmp_path / "run.csv.gz"
    path.write_bytes(_cr_ending_a_block(1 << 12, 100, compress=True))
    items = io.read_table(path, COLUMNS, "Run", "csv", ("user", "item"))["item"].to_pylist()
    assert items[100] == "x" * items[100].count("x") + "\r\ny"
    assert len(items) == 300


def test_a_quoted_crlf_in_the_stream_after_a_quote_within_a_field_is_kept(
    tmp_path: Any, small_ranges: list[int]
) -> None:
    # a quote within a field on the first line sends the whole file to one stream
    text = _cr_ending_a_block(1 << 12, 100, compress=False).replace(b"doc-5,", b'd"c-5,', 1)
    path = tmp_path / "run.csv"
    path.write_bytes(text)
    items = io.read_table(path, COLUMNS, "Run", "csv", ("user", "item"))["item"].to_pylist()
    assert items[5] == 'd"c-5'
    assert items[100].endswith("x\r\ny")
    assert len(items) == 300


def test_a_scan_keeps_a_quoted_crlf_whose_cr_ends_a_block(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from receval.data import scan as scan_module

    monkeypatch.setattr(scan_module, "CSV_BLOCK", 1 << 12)
    for name, compress in (("run.csv.gz", True), ("run.csv", False)):
        path = tmp_path / name
        path.write_bytes(_cr_ending_a_block(1 << 12, 100, compress=compress))
        batches = receval.scan(path).batches(["item"], ids=["item"])
        items = [x for b in batches for x in b["item"].to_pylist()]
        assert items[100].endswith("x\r\ny")
        assert len(items) == 300


# ------------------------------------------------------------------ scans
def _impressions_csv(path: Any, n: int) -> pa.Table:
    rng = np.random.default_rng(7)
    table = pa.table({
        "user": [f"u{i // 10}" for i in range(n)],
        "click": rng.integers(0, 2, n),
        "score": rng.random(n),
    })  # fmt: skip
    pcsv.write_csv(table, path)
    return table


def test_a_scan_reads_a_csv_file_in_ranges_within_its_memory(
    tmp_path: Any, range_sizes: list[int]
) -> None:
    # the ranges a scan's reader parses on every core are at most a 32nd of max_memory
    # (at least a block of 1 MiB)
    path = tmp_path / "log.csv"
    table = _impressions_csv(path, 400_000)
    sizes = range_sizes
    s = receval.scan(path, max_memory=1 << 26)
    got = receval.roc_auc_score(s["click"], s["score"])
    assert got == receval.roc_auc_score(table["click"].to_numpy(), table["score"].to_numpy())
    assert len(sizes) >= 4 and max(sizes) <= (1 << 21) + (1 << 16)
    assert sum(sizes) == os.path.getsize(path)


@pytest.mark.parametrize("kind", ["plain", "gzip", "quote within a field"])
def test_a_scan_of_a_csv_file_yields_batches_of_its_rows_and_counts_its_bytes(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    # the reader's blocks (here 4 KiB) are joined into batches of batch_rows rows;
    # the progress is told every byte of the file as stored, once
    from receval.data import scan as scan_module

    monkeypatch.setattr(scan_module, "CSV_BLOCK", 1 << 12)
    path = tmp_path / "log.csv"
    table = _impressions_csv(path, 20_000)
    if kind == "quote within a field":  # the rest of the file is read as a stream
        data = path.read_bytes()
        path.write_bytes(data.replace(b'"u1500"', b'u1"500', 1))
    if kind == "gzip":
        path = tmp_path / "log.csv.gz"
        path.write_bytes(gzip.compress((tmp_path / "log.csv").read_bytes()))
    s = receval.scan(path, batch_rows=3000, file_format="csv")
    told: list[int] = []
    rows = [b.num_rows for _, _, b in s._csv_batches(["user", "score"], ["user"], [], told.append)]
    assert rows == [3000] * 6 + [2000]
    assert sum(told) == os.path.getsize(path)
    batches = list(s.batches(["user", "score"], ids=["user"]))
    users = [u for b in batches for u in b["user"].to_pylist()]
    expected = table["user"].to_pylist()
    if kind == "quote within a field":
        expected[15_000] = 'u1"500'
    assert users == expected
    assert [b.origin.pieces[0][1:] for b in batches] == [(3000 * i, 3000) for i in range(6)] + [
        (18_000, 2000)
    ]


def test_a_split_of_a_csv_log_reads_a_row_longer_than_the_block(tmp_path: Any) -> None:
    # the split reads with the scan's reader, which grows its block past a long row
    from receval import split

    path = tmp_path / "log.csv"
    long_item = "i" * (3 << 20)  # three of the reader's blocks
    path.write_text(
        "user,item,time\n"
        + "".join(f"u{i % 5},i{i},{i}\n" for i in range(50))
        + f"u1,{long_item},60\n"
    )
    out = split.temporal(
        receval.scan(path),
        train_path=tmp_path / "train.parquet",
        test_path=tmp_path / "test.parquet",
        cutoff=30,
    )
    summary = out.summary()
    assert summary["n_train_rows"] == 30 and summary["n_test_rows"] == 21

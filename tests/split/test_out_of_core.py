"""A Scan split out of core equals the same log split in memory."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import receval
from receval import split

pd = pytest.importorskip("pandas")


def _log(seed: int, ids: str) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n = 3000
    users = rng.integers(0, 200, n)
    if ids == "wide":  # beyond the table of small ids: merged sorted
        users = users * 10**12 - 5
    return pd.DataFrame(
        {
            "user": users.astype(str) if ids == "str" else users,
            "item": rng.integers(0, 80, n),
            "timestamp": rng.integers(0, 40, n),  # many ties within a user
            "rating": rng.integers(1, 6, n),
        }
    )


def _scan(tmp_path, log: pd.DataFrame, fmt: str):
    table = pa.Table.from_pandas(log, preserve_index=False)
    if fmt == "parquet":  # two files, row groups smaller than the batches
        half = len(log) // 2
        directory = tmp_path / "log"
        directory.mkdir()
        pq.write_table(table.slice(0, half), directory / "part-0.parquet", row_group_size=300)
        pq.write_table(table.slice(half), directory / "part-1.parquet", row_group_size=300)
        return receval.scan(directory, batch_rows=700)
    import pyarrow.csv as pcsv

    pcsv.write_csv(table, tmp_path / "log.csv")
    return receval.scan(tmp_path / "log.csv", batch_rows=700)


def _rows(table: pa.Table) -> pd.DataFrame:
    frame = table.to_pandas()
    return frame.astype({"user": str, "item": int})


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
@pytest.mark.parametrize("ids", ["small", "wide", "str"])
@pytest.mark.parametrize(
    ("method", "kwargs"),
    [
        ("leave_last_out", {"n": 1}),
        ("leave_last_out", {"n": 3, "short": "drop", "min_train": 2}),
        ("leave_last_out", {"n": 2, "short": "test"}),
        ("temporal", {"cutoff": 30}),
        ("temporal", {"quantile": 0.8}),
        ("temporal", {"quantile": 0.123}),
    ],
)
def test_out_of_core_equals_in_memory(tmp_path, fmt, ids, method, kwargs):
    log = _log(1, ids)
    memory = getattr(split, method)(log, **kwargs)
    out = tmp_path / "out"
    out.mkdir()
    streamed = getattr(split, method)(
        _scan(tmp_path, log, fmt),
        train_path=out / "train.parquet",
        test_path=out / "test.csv",
        **kwargs,
    )
    assert streamed.summary() == memory.summary()
    assert isinstance(streamed.test, receval.Scan)
    train = _rows(pq.read_table(out / "train.parquet"))
    expected = memory.train.reset_index(drop=True).astype({"user": str})
    pd.testing.assert_frame_equal(train, expected, check_dtype=False)
    import pyarrow.csv as pcsv

    test = pcsv.read_csv(out / "test.csv").to_pandas().astype({"user": str})
    pd.testing.assert_frame_equal(
        test, memory.test.reset_index(drop=True).astype({"user": str}), check_dtype=False
    )


@pytest.mark.parametrize("method", ["leave_last_out", "temporal"])
def test_out_of_core_iso_text_times_equal_in_memory(tmp_path, method):
    """A Parquet file whose times are ISO 8601 text (a UTC offset, or none) splits out
    of core as in memory: each batch's text read as its instants."""
    log = _log(3, "str")
    days = [f"1970-02-{1 + t % 28:02d}T{t // 28:02d}:00:00" for t in log["timestamp"]]
    log = log.assign(timestamp=[d + ("+00:00" if i % 3 else "") for i, d in enumerate(days)])
    kwargs = {"n": 2} if method == "leave_last_out" else {"quantile": 0.7}
    memory = getattr(split, method)(log, **kwargs)
    out = tmp_path / "out"
    out.mkdir()
    streamed = getattr(split, method)(
        _scan(tmp_path, log, "parquet"),
        train_path=out / "train.parquet",
        test_path=out / "test.parquet",
        **kwargs,
    )
    assert streamed.summary() == memory.summary()
    test = _rows(pq.read_table(out / "test.parquet"))
    pd.testing.assert_frame_equal(
        test, memory.test.reset_index(drop=True).astype({"user": str}), check_dtype=False
    )


def test_qrels_of_a_written_part(tmp_path):
    log = _log(2, "small")
    scanned = _scan(tmp_path, log, "parquet")
    result = split.leave_last_out(
        scanned,
        n=1,
        rating="rating",
        train_path=tmp_path / "tr.parquet",
        test_path=tmp_path / "te.parquet",
    )
    memory = split.leave_last_out(log, n=1, rating="rating")
    assert (
        result.qrels("threshold", threshold=4).to_dict()
        == memory.qrels("threshold", threshold=4).to_dict()
    )


def test_a_csv_log_whose_quoted_values_hold_line_ends_splits_as_in_memory(tmp_path, monkeypatch):
    # the scan's blocks are small: most cut a quoted value's line ends
    from receval.data import scan as scan_module

    monkeypatch.setattr(scan_module, "CSV_BLOCK", 1 << 12)
    log = _log(2, "str")
    log = log.assign(user="u\n" + log["user"])
    memory = split.temporal(log, cutoff=30)
    out = tmp_path / "out"
    out.mkdir()
    streamed = split.temporal(
        _scan(tmp_path, log, "csv"),
        train_path=out / "train.parquet",
        test_path=out / "test.parquet",
        cutoff=30,
    )
    assert streamed.summary() == memory.summary()
    test = pq.read_table(out / "test.parquet").to_pandas()
    assert test["user"].tolist() == memory.test["user"].tolist()


@pytest.mark.parametrize(
    ("method", "kwargs"),
    [
        ("leave_last_out", {"n": 1}),
        ("temporal", {"cutoff": "2024-02-01"}),
        ("temporal", {"quantile": 0.5}),
    ],
)
def test_files_of_different_time_units_split_as_one_log(tmp_path, method, kwargs):
    """Times in ms in one file and in µs in another are compared as times (in µs),
    not as their numbers of ticks: the split equals the in-memory one of the rows, and
    so does the split of the directory in memory (which refused the two units)."""
    rng = np.random.default_rng(5)
    n = 400
    micros = rng.integers(1_700_000_000_000_000, 1_720_000_000_000_000, n)
    table = pa.table(
        {
            "user": rng.integers(0, 30, n),
            "item": np.arange(n),
            "timestamp": pa.array(micros // 1000 * 1000, pa.timestamp("us")),
        }
    )
    directory = tmp_path / "log"
    directory.mkdir()
    ms = table.slice(0, n // 2)
    ms = ms.set_column(2, "timestamp", ms["timestamp"].cast(pa.timestamp("ms")))
    pq.write_table(ms, directory / "part-0.parquet")
    pq.write_table(table.slice(n // 2), directory / "part-1.parquet")
    out = {"train_path": tmp_path / "a.parquet", "test_path": tmp_path / "b.parquet"}
    got = getattr(split, method)(receval.scan(directory), **kwargs, **out)
    want = getattr(split, method)(table, **kwargs)
    assert got.summary() == want.summary()
    test = pq.read_table(tmp_path / "b.parquet")
    assert sorted(test["item"].to_pylist()) == sorted(want.test["item"].to_pylist())
    assert test.schema.field("timestamp").type == pa.timestamp("us")
    in_memory = getattr(split, method)(directory, **kwargs)
    assert in_memory.summary() == want.summary()
    assert in_memory.test.schema.field("timestamp").type == pa.timestamp("us")
    assert sorted(in_memory.test["item"].to_pylist()) == sorted(test["item"].to_pylist())


@pytest.mark.parametrize("path", ["memory", "scan"])
def test_files_whose_times_share_no_unit_are_refused(tmp_path, path):
    directory = tmp_path / "log"
    directory.mkdir()
    days = pa.array([19000], pa.int32()).cast(pa.date32())
    pq.write_table(pa.table({"user": [1], "item": [1], "timestamp": days}), directory / "a.parquet")
    stamps = pa.array([10**12], pa.timestamp("ms"))
    pq.write_table(
        pa.table({"user": [1], "item": [2], "timestamp": stamps}), directory / "b.parquet"
    )
    out = {"train_path": tmp_path / "a.parquet", "test_path": tmp_path / "b.parquet"}
    given = (directory, {}) if path == "memory" else (receval.scan(directory), out)
    with pytest.raises(receval.exceptions.InputValidationError) as info:
        split.leave_last_out(given[0], **given[1])
    assert str(info.value) == (
        f"leave_last_out: the time column 'timestamp' is date32[day] in {directory / 'a.parquet'} "
        f"and timestamp[ms] in {directory / 'b.parquet'}, which hold no common time; give every "
        f"file one type of time (e.g. timestamps, with or without a time zone in all)."
    )


def _narrower_integers(tmp_path):
    """A directory of two Parquet files: ids int32 (users) and int16 (items) in the
    first, int64 past int32's range and int32 in the later one; and the two tables."""
    directory = tmp_path / "log"
    directory.mkdir()
    first = pa.table(
        {"user": pa.array([1, 2], pa.int32()), "item": pa.array([1, 2], pa.int16()),
         "timestamp": [1, 2]}
    )  # fmt: skip
    later = pa.table(
        {"user": [2**40, 1], "item": pa.array([3, 4], pa.int32()), "timestamp": [4, 5]}
    )
    pq.write_table(first, directory / "part-0.parquet")
    pq.write_table(later, directory / "part-1.parquet")
    return directory, first, later


@pytest.mark.parametrize(
    ("method", "kwargs"), [("leave_last_out", {"n": 1}), ("temporal", {"cutoff": 3})]
)
def test_files_of_narrower_integers_split_as_one_log(tmp_path, method, kwargs):
    """Ids int32 in the first file and int64 past int32's range in a later one: the parts
    hold the wider type (they raised Arrow's error, cast to the first file's type)."""
    directory, first, later = _narrower_integers(tmp_path)
    out = {"train_path": tmp_path / "a.parquet", "test_path": tmp_path / "b.parquet"}
    got = getattr(split, method)(receval.scan(directory), **kwargs, **out)
    log = pa.concat_tables([first, later], promote_options="permissive")
    want = getattr(split, method)(log, **kwargs)
    assert got.summary() == want.summary()
    for path, part in zip(out.values(), (want.train, want.test), strict=True):
        written = pq.read_table(path)
        assert written.schema.types == [pa.int64(), pa.int32(), pa.int64()]
        assert written.to_pydict() == part.to_pydict()


def test_a_value_no_type_of_the_files_holds_is_refused_naming_both_files(tmp_path):
    directory = tmp_path / "log"
    directory.mkdir()
    a, b = directory / "a.parquet", directory / "b.parquet"
    pq.write_table(pa.table({"user": [1], "item": [1], "timestamp": [1]}), a)
    users = pa.array([2**63 + 5], pa.uint64())  # int64, the type of both, cannot hold it
    pq.write_table(pa.table({"user": users, "item": [2], "timestamp": [2]}), b)
    out = {"train_path": tmp_path / "train.parquet", "test_path": tmp_path / "test.parquet"}
    with pytest.raises(receval.exceptions.InputValidationError) as info:
        split.temporal(receval.scan(directory), cutoff=2, **out)
    said = str(info.value)  # Arrow's own words between the parentheses
    assert said.startswith(
        f"temporal: column 'user' is uint64 in {b} and int64 in {a}, and the parts hold it "
        f"as int64, which cannot hold a value of {b} ("
    )
    assert "9223372036854775813" in said
    assert said.endswith(
        "); write every file of a scan with one type for 'user' that holds all its values "
        "(e.g. string)."
    )


@pytest.mark.parametrize(
    ("second", "said"),
    [
        (
            {"item": [2], "user": [1], "timestamp": [2]},
            "temporal: {b} holds the columns ['item', 'user', 'timestamp'] and {a} the "
            "columns ['user', 'item', 'timestamp']; a Scan is split into files of one "
            "layout: write every file with the same columns in one order, or pass the "
            "directory's path to split it in memory.",
        ),
        (
            {"user": ["1"], "item": [2], "timestamp": [2]},
            "temporal: column 'user' is string in {b}, but int64 in {a}; write every file "
            "with the same column types (e.g. cast 'user' to int64).",
        ),
    ],
    ids=["order", "type"],
)
def test_files_of_other_columns_are_refused_by_name(tmp_path, second, said):
    """The parts are written in one schema: files of other columns, in another order or
    of another kind of type, are refused naming the two files (they raised Arrow's
    errors, or NumPy's on comparing str with int)."""
    directory = tmp_path / "log"
    directory.mkdir()
    a, b = directory / "a.parquet", directory / "b.parquet"
    pq.write_table(pa.table({"user": [1], "item": [1], "timestamp": [1]}), a)
    pq.write_table(pa.table(second), b)
    out = {"train_path": tmp_path / "train.parquet", "test_path": tmp_path / "test.parquet"}
    with pytest.raises(receval.exceptions.InputValidationError) as info:
        split.temporal(receval.scan(directory), cutoff=2, **out)
    assert str(info.value) == said.format(a=a, b=b)


@pytest.mark.parametrize(
    ("method", "kwargs"), [("leave_last_out", {"n": 1}), ("temporal", {"cutoff": 3})]
)
def test_a_directory_of_narrower_integers_splits_in_memory_as_one_file(tmp_path, method, kwargs):
    """The directory's path, split in memory, holds each column in the type the scan's
    split writes it in (int64 for int32 beside int64): the rows of one file of them
    (it refused the directory, "write every file with one schema")."""
    directory, first, later = _narrower_integers(tmp_path)
    one = tmp_path / "one.parquet"
    pq.write_table(pa.concat_tables([first, later], promote_options="permissive"), one)
    got = getattr(split, method)(directory, **kwargs)
    want = getattr(split, method)(one, **kwargs)
    assert got.summary() == want.summary()
    for mine, theirs in ((got.train, want.train), (got.test, want.test)):
        assert mine.schema.types == [pa.int64(), pa.int32(), pa.int64()]
        assert mine.to_pydict() == theirs.to_pydict()


@pytest.mark.parametrize("path", ["memory", "scan"])
def test_integer_ids_beside_float_ids_are_refused_in_memory_and_out_of_core(tmp_path, path):
    """Ids int64 in one file and float64 in another are refused by both splits of the
    directory (float64 ids lose those past 2**53), naming both files."""
    directory = tmp_path / "log"
    directory.mkdir()
    a, b = directory / "a.parquet", directory / "b.parquet"
    pq.write_table(pa.table({"user": [1], "item": [1], "timestamp": [1]}), a)
    pq.write_table(pa.table({"user": [2.0], "item": [2], "timestamp": [2]}), b)
    out = {"train_path": tmp_path / "train.parquet", "test_path": tmp_path / "test.parquet"}
    given = (directory, {}) if path == "memory" else (receval.scan(directory), out)
    with pytest.raises(receval.exceptions.InputValidationError) as info:
        split.temporal(given[0], cutoff=2, **given[1])
    assert str(info.value) == (
        f"temporal: column 'user' is double in {b}, but int64 in {a}; write every file "
        f"with the same column types (e.g. cast 'user' to int64)."
    )


def test_a_value_no_type_of_the_directory_holds_is_refused_in_memory(tmp_path):
    """uint64 ids past int64 beside int64 files: the in-memory split names the column,
    the file and the type the directory is read in, as the scan's split does."""
    directory = tmp_path / "log"
    directory.mkdir()
    a, b = directory / "a.parquet", directory / "b.parquet"
    pq.write_table(pa.table({"user": [1], "item": [1], "timestamp": [1]}), a)
    users = pa.array([2**63 + 5], pa.uint64())
    pq.write_table(pa.table({"user": users, "item": [2], "timestamp": [2]}), b)
    with pytest.raises(receval.exceptions.InputValidationError) as info:
        split.temporal(directory, cutoff=2)
    said = str(info.value)
    assert said.startswith(
        f"temporal: column 'user' is uint64 in {b}, and the directory is read with it as "
        f"int64, which cannot hold a value of {b} ("
    )
    assert said.endswith(
        "); write every file with one type for 'user' that holds all its values (e.g. string)."
    )


@pytest.mark.parametrize("method", ["temporal", "leave_last_out"])
def test_a_split_that_fails_midway_leaves_the_parts_as_they_were(tmp_path, method):
    """A row without an item in a later batch: the parts were written up to it and left
    there (the train part a valid Parquet file of the first batches' rows, over the one
    a former split wrote); now the files are written whole or not at all."""
    rows = "".join(f"{i % 5},{i},{i}\n" for i in range(50))
    (tmp_path / "log.csv").write_text("user,item,timestamp\n" + rows + "1,,60\n")
    parts = [tmp_path / "train.parquet", tmp_path / "test.csv"]
    parts[0].write_bytes(b"the former train part")
    parts[1].write_text("the former test part")
    args = {"cutoff": 20} if method == "temporal" else {}
    with pytest.raises(receval.InputValidationError, match="the item column 'item'"):
        getattr(split, method)(
            receval.scan(tmp_path / "log.csv", batch_rows=10), **args,
            train_path=parts[0], test_path=parts[1],
        )  # fmt: skip
    assert parts[0].read_bytes() == b"the former train part"
    assert parts[1].read_text() == "the former test part"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["log.csv", "test.csv", "train.parquet"]


def test_a_quantile_of_float_times_whose_range_overflows_float64(tmp_path):
    # the histogram's width, (1e308 - -1e308) / bins, was inf: np.bincount of the NaN
    # bins raised "'list' argument must have no negative elements"
    log = pd.DataFrame(
        {"user": [1, 2, 3, 4, 5], "item": [1, 2, 3, 4, 5],
         "timestamp": [-1e308, 5.0, 1e308, 1e308, -1e307]}
    )  # fmt: skip
    log.to_parquet(tmp_path / "log.parquet", index=False)
    for q in (0.25, 0.5, 0.75):
        in_memory = split.temporal(log, quantile=q)
        out = {"train_path": tmp_path / "train.parquet", "test_path": tmp_path / "test.parquet"}
        scanned = split.temporal(receval.scan(tmp_path / "log.parquet"), quantile=q, **out)
        assert scanned.summary() == in_memory.summary()
        written = pd.read_parquet(out["test_path"])["item"].tolist()
        assert written == in_memory.test["item"].tolist()

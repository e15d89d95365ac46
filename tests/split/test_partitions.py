"""A directory of hive partitions (``key=value`` directories) splits as the same rows
in one flat file: its keys are columns, typed as ``pyarrow.dataset`` infers them,
usable as the user, item or time, and kept in the parts; by every method, in memory,
out of core and on the command line."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

import receval
from receval import split
from tests.cli._helpers import invoke, make_runner


@pytest.fixture
def logs(tmp_path):
    """A log written as hive partitions by user, country and day (ISO text: its time),
    and the same rows, as ``pyarrow.dataset`` reads them, in one flat file."""
    rng = np.random.default_rng(0)
    n = 300
    table = pa.table(
        {
            "item": rng.integers(0, 40, n),
            "rating": rng.integers(1, 6, n),
            "user": rng.integers(0, 15, n),
            "country": rng.choice(["FR", "JP", "US"], n),
            "day": [f"2024-01-{d:02d}" for d in rng.integers(1, 8, n)],
        }
    )
    root = tmp_path / "events"
    ds.write_dataset(
        table, root, format="parquet", partitioning=["user", "country", "day"],
        partitioning_flavor="hive",
    )  # fmt: skip
    flat = tmp_path / "flat.parquet"
    pq.write_table(ds.dataset(root, partitioning="hive").to_table(), flat)
    return root, flat


#: every method in memory, the keys as user (by default), item and time
IN_MEMORY = {
    "temporal": lambda log: [split.temporal(log, "2024-01-04", time="day")],
    "temporal quantile": lambda log: [split.temporal(log, quantile=0.6, time="day")],
    "leave_last_out": lambda log: [split.leave_last_out(log, 2, time="day")],
    "ratio": lambda log: [split.ratio(log, 0.3, time="day")],
    "ratio of countries": lambda log: [split.ratio(log, 0.5, item="country", time="day")],
    "random_holdout": lambda log: [split.random_holdout(log, n=1, seed=0)],
    "user_kfold": lambda log: list(split.user_kfold(log, 3, seed=0)),
    "rolling": lambda log: split.rolling(
        log, ["2024-01-03", "2024-01-05"], end="2024-01-07", time="day"
    ),
}


@pytest.mark.parametrize("method", list(IN_MEMORY))
def test_partition_keys_split_as_the_columns_of_one_flat_file(logs, method):
    root, flat = logs
    got, want = IN_MEMORY[method](root), IN_MEMORY[method](flat)
    assert [r.summary() for r in got] == [r.summary() for r in want]
    for a, b in zip(got, want, strict=True):
        assert a.train.equals(b.train) and a.test.equals(b.test)
        assert a.test.schema.names == ["item", "rating", "user", "country", "day"]
        assert a.test.schema.field("user").type == pa.int32()
        assert a.test.schema.field("day").type == pa.string()


@pytest.mark.parametrize(
    ("method", "kwargs"),
    [
        ("temporal", {"cutoff": "2024-01-04"}),
        ("temporal", {"quantile": 0.3}),
        ("leave_last_out", {"n": 2, "short": "drop"}),
    ],
)
def test_a_scan_of_partitions_splits_as_one_flat_file(tmp_path, logs, method, kwargs):
    root, flat = logs
    got, want = (
        getattr(split, method)(
            receval.scan(source, batch_rows=50),
            time="day",
            train_path=tmp_path / f"{name}-train.parquet",
            test_path=tmp_path / f"{name}-test.csv",
            **kwargs,
        )
        for name, source in (("partitions", root), ("flat", flat))
    )
    assert got.summary() == want.summary()
    train = pq.read_table(tmp_path / "partitions-train.parquet")
    assert train.equals(pq.read_table(tmp_path / "flat-train.parquet"))
    assert train.schema.field("user").type == pa.int32()
    test = (tmp_path / "partitions-test.csv").read_text()
    assert test == (tmp_path / "flat-test.csv").read_text()


def test_files_outside_the_partitions_have_no_value_of_their_keys(tmp_path):
    """A file beside the ``key=value`` directories has null keys, as in pyarrow.dataset."""
    root = tmp_path / "log"
    (root / "day=3").mkdir(parents=True)
    pq.write_table(pa.table({"user": [1, 2], "item": [1, 2], "t": [1, 5]}), root / "a.parquet")
    rows = pa.table({"user": [1, 3], "item": [3, 1], "t": [2, 6]})
    pq.write_table(rows, root / "day=3" / "b.parquet")
    flat = ds.dataset(root, partitioning="hive").to_table()
    assert flat["day"].to_pylist() == [None, None, 3, 3]
    for call in (lambda log: split.leave_last_out(log, time="t"),
                 lambda log: split.ratio(log, 0.5, time="t")):  # fmt: skip
        got, want = call(root), call(flat)
        assert got.summary() == want.summary()
        assert got.test.equals(want.test) and got.train.equals(want.train)


@pytest.mark.parametrize(
    ("method", "options"),
    [
        ("temporal", ["--cutoff", "2024-01-04"]),
        ("leave-last-out", ["--n", "1"]),
        ("ratio", ["--test-fraction", "0.5"]),
        ("rolling", ["--cutoffs", "2024-01-03,2024-01-05"]),
    ],
)
def test_cli_splits_partitions_as_one_flat_file(tmp_path, logs, method, options):
    root, flat = logs
    records, parts = [], []
    for name, source in (("partitions", root), ("flat", flat)):
        out = ["-o", tmp_path / f"{name}-train.parquet", "-O", tmp_path / f"{name}-test.parquet"]
        args = ["split", source, "--method", method, *options, "--time", "day", *out]
        said = json.loads(invoke(make_runner(), *args, "-f", "json").stdout)
        said = said if isinstance(said, list) else [said]
        records.append([{k: v for k, v in r.items() if k not in ("train", "test")} for r in said])
        parts.append([pq.read_table(p) for p in sorted(tmp_path.glob(f"{name}-t*.parquet"))])
    assert records[0] == records[1]
    assert parts[0] and all(a.equals(b) for a, b in zip(*parts, strict=True))

"""A split of a file names the file and line (CSV) or row (Parquet) of a bad value,
in memory and out of core, and a log with no rows is refused by every method."""

from __future__ import annotations

import re

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import receval
from receval import split
from receval.exceptions import InputValidationError

from ..cli._helpers import invoke, make_runner

_METHODS = [
    ("leave_last_out", {}),
    ("temporal", {"quantile": 0.5}),
    ("temporal", {"cutoff": 5}),
]


def _lines(n: int, bad_row: int, field: str) -> str:
    rows = ["user,item,timestamp"]
    for r in range(n):
        user, time = str(r % 7), str(r % 11)
        if r == bad_row:
            user, time = ("", time) if field == "user" else (user, "")
        rows.append(f"{user},{r % 5},{time}")
    return "\n".join(rows) + "\n"


@pytest.mark.parametrize(("method", "kwargs"), _METHODS)
@pytest.mark.parametrize("field", ["user", "timestamp"])
def test_a_scans_missing_value_is_named_by_its_line(tmp_path, method, kwargs, field):
    path = tmp_path / "log.csv"
    path.write_text(_lines(2000, 1500, field))
    out = {"train_path": tmp_path / "a.parquet", "test_path": tmp_path / "b.parquet"}
    # blocks of 4 KiB: the bad row is in a later batch than the first
    log = receval.scan(path, batch_rows=300, max_memory=1 << 17)
    with pytest.raises(InputValidationError) as info:
        getattr(split, method)(log, **kwargs, **out)
    message = str(info.value)
    assert message.startswith(f"{path}:1502: {method}: the "), message
    said = rf"column '{field}' contains missing values \((null|NaN)\), the first on this line;"
    assert re.search(said, message), message


@pytest.mark.parametrize(("method", "kwargs"), _METHODS)
def test_a_scans_missing_id_in_a_second_parquet_file_names_that_file(tmp_path, method, kwargs):
    directory = tmp_path / "log"
    directory.mkdir()
    users = np.arange(600) % 7
    for k in range(2):
        column = pa.array(users, mask=np.arange(600) == 450) if k else pa.array(users)
        table = pa.table({"user": column, "item": np.arange(600), "timestamp": np.arange(600)})
        pq.write_table(table, directory / f"part-{k}.parquet", row_group_size=100)
    out = {"train_path": tmp_path / "a.parquet", "test_path": tmp_path / "b.parquet"}
    with pytest.raises(InputValidationError) as info:
        getattr(split, method)(receval.scan(directory, batch_rows=100), **kwargs, **out)
    message = str(info.value)
    assert message.startswith(f"{directory / 'part-1.parquet'}: row 451: {method}: "), message
    said = r"the user column 'user' contains missing values \((null|NaN)\), the first in this row;"
    assert re.search(said, message), message


@pytest.mark.parametrize("method", ["ratio", "random_holdout"])
def test_a_split_in_memory_of_a_file_names_the_line(tmp_path, method):
    path = tmp_path / "log.csv"
    path.write_text(_lines(50, 20, "timestamp"))
    seed = {"seed": 0} if method == "random_holdout" else {}
    with pytest.raises(InputValidationError) as info:
        getattr(split, method)(path, 0.5, time="timestamp", **seed)
    assert str(info.value) == (
        f"{path}:22: {method}: the time column 'timestamp' contains 1 missing value (null), "
        f"the first on this line; drop those rows or fill their time first."
    )


@pytest.mark.parametrize("text", ["user,item,timestamp\n", "user,item,timestamp"])
@pytest.mark.parametrize(
    ("method", "kwargs"),
    [*_METHODS, ("ratio", {"test_fraction": 0.5}), ("random_holdout", {"n": 1, "seed": 0})],
)
def test_a_log_of_a_header_alone_is_refused(tmp_path, text, method, kwargs):
    """With or without the header's line end: a file of no rows is an error that says
    so, whether the method reads it out of core or in memory."""
    path = tmp_path / "log.csv"
    path.write_text(text)
    if method in ("ratio", "random_holdout"):
        log, out = path, {}
    else:
        log, out = (
            receval.scan(path),
            {"train_path": tmp_path / "a.csv", "test_path": tmp_path / "b.csv"},
        )
    with pytest.raises(InputValidationError) as info:
        getattr(split, method)(log, **kwargs, **out)
    assert (
        str(info.value) == f"{path}: the file has no rows, only its header; pass a file with rows."
    )


@pytest.mark.parametrize("text", ["", "\n\n"])
def test_an_empty_file_is_refused_as_empty(tmp_path, text):
    path = tmp_path / "log.csv"
    path.write_text(text)
    said = f"{path}: the file is empty; a CSV file starts with a header line naming its columns."
    for read in (lambda: receval.scan(path), lambda: split.ratio(path, 0.5)):
        with pytest.raises(InputValidationError) as info:
            read()
        assert str(info.value) == said


def test_an_empty_frame_splits_into_empty_parts_whatever_its_time_type():
    pd = pytest.importorskip("pandas")
    log = pd.DataFrame({"user": [], "item": [], "timestamp": pd.Series([], dtype=object)})
    result = split.leave_last_out(log)
    assert (result.n_rows, len(result.train), len(result.test)) == (0, 0, 0)


def test_the_command_line_names_the_line_and_exits_2(tmp_path):
    path = tmp_path / "log.csv"
    path.write_text(_lines(30, 12, "user"))
    out = ["-o", tmp_path / "a.parquet", "-O", tmp_path / "b.parquet"]
    result = invoke(make_runner(), "split", path, *out, code=2)
    assert result.stderr.startswith(f"error: receval split: {path}:14: the user column 'user'")
    assert "Traceback" not in result.stderr

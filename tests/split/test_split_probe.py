"""The splits against the slow oracles of tests/oracles/split.py on drawn logs: tied
times, a (user, item) pair at several times, time columns of every kind (int seconds,
datetime64[ns], tz-aware, ISO text), string ids; the counts of what a rule leaves out;
and a directory of Parquet files read by every method, in the API and the CLI."""

from __future__ import annotations

import json

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from receval import InputValidationError, split
from tests.cli._helpers import invoke, make_runner
from tests.oracles import split as oracle

#: the kinds of time column a log is drawn with
KINDS = ["int", "datetime", "tz", "text"]


def _times(seconds: list[int], kind: str):
    if kind == "int":
        return seconds
    stamps = pd.to_datetime(seconds, unit="s")
    if kind == "datetime":
        return stamps
    if kind == "tz":
        return stamps.tz_localize("UTC").tz_convert("Asia/Tokyo")
    return list(stamps.strftime("%Y-%m-%dT%H:%M:%S"))


def _cut(seconds: int, kind: str):
    """A cut-off of the column's kind (a tz-aware cut-off for a tz-aware column)."""
    if kind == "int":
        return seconds
    if kind == "tz":
        return pd.Timestamp(seconds, unit="s", tz="UTC")
    return pd.Timestamp(seconds, unit="s").isoformat()


@st.composite
def logs(draw):
    """(log, users, times in seconds, kind): few users, items and times, so that times
    tie and pairs recur at other times."""
    n = draw(st.integers(1, 30))
    users = draw(st.lists(st.integers(0, 5), min_size=n, max_size=n))
    items = draw(st.lists(st.integers(0, 6), min_size=n, max_size=n))
    seconds = draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))
    kind = draw(st.sampled_from(KINDS))
    if draw(st.booleans()):
        users = [f"u{u}" for u in users]
    log = pd.DataFrame({"user": users, "item": items, "timestamp": _times(seconds, kind)})
    return log, users, seconds, kind


def _parts(result) -> tuple[set[int], set[int]]:
    return set(result.train.index.tolist()), set(result.test.index.tolist())


def _dropped(users: list, kept) -> tuple[int, int]:
    """(users, rows) a rule left out: the users ``kept(count)`` refuses."""
    counts = pd.Series(users).value_counts()
    out = counts[[not kept(c) for c in counts]]
    return len(out), int(out.sum())


@given(logs(), st.integers(1, 3), st.integers(0, 2), st.sampled_from(["train", "drop", "test"]))
def test_leave_last_out_matches_oracle(drawn, n, min_train, short):
    log, users, seconds, _ = drawn
    result = split.leave_last_out(log, n, min_train=min_train, short=short)
    assert _parts(result) == oracle.leave_last_out(users, seconds, n, min_train, short)
    short_users = _dropped(users, lambda c: c >= n + min_train)
    assert (result.n_users_dropped, result.n_rows_dropped) == (
        short_users if short == "drop" else (0, 0)
    )
    assert result.n_users_without_test == (short_users[0] if short == "train" else 0)


@given(logs(), st.sampled_from([0.2, 0.25, 0.5, 0.75]), st.integers(1, 4))
def test_ratio_matches_oracle_and_counts_dropped_users(drawn, fraction, min_interactions):
    log, users, seconds, _ = drawn
    result = split.ratio(log, fraction, min_interactions=min_interactions)
    assert _parts(result) == oracle.ratio(users, seconds, fraction, min_interactions)
    assert (result.n_users_dropped, result.n_rows_dropped) == _dropped(
        users, lambda c: c >= min_interactions
    )


@given(logs(), st.integers(0, 5))
def test_temporal_matches_oracle_whatever_the_time_column(drawn, cut):
    log, _, seconds, kind = drawn
    result = split.temporal(log, _cut(cut, kind))
    assert _parts(result) == oracle.temporal(seconds, cut)


@given(logs(), st.integers(1, 2), st.integers(2, 3), st.integers(0, 2**32 - 1))
def test_random_holdout_is_reproducible_and_counts_dropped_users(drawn, n, min_n, seed):
    log, users, _, _ = drawn
    first = split.random_holdout(log, n=n, seed=seed, min_interactions=min_n)
    again = split.random_holdout(log, n=n, seed=seed, min_interactions=min_n)
    assert _parts(first) == _parts(again)
    assert (first.n_users_dropped, first.n_rows_dropped) == _dropped(users, lambda c: c >= min_n)
    counts = pd.Series(users).value_counts()
    assert first.n_users_without_test == int(((counts >= min_n) & (counts <= n)).sum())


@given(logs(), st.integers(0, 2**32 - 1), st.randoms(use_true_random=False))
def test_user_kfold_does_not_depend_on_row_order(drawn, seed, random):
    log = drawn[0]
    assume(log["user"].nunique() >= 2)
    order = list(range(len(log)))
    random.shuffle(order)
    shuffled = log.iloc[order]
    folds = [sorted(set(f.test["user"])) for f in split.user_kfold(log, 2, seed=seed)]
    again = [sorted(set(f.test["user"])) for f in split.user_kfold(shuffled, 2, seed=seed)]
    assert folds == again


def _directory(tmp_path):
    """A log in two Parquet files of one directory, and the same log as one frame."""
    folder = tmp_path / "log"
    folder.mkdir()
    first = pd.DataFrame({"user": [1, 1, 1, 2], "item": [1, 2, 3, 1], "timestamp": [1, 2, 3, 4]})
    second = pd.DataFrame({"user": [2, 3, 3, 4], "item": [2, 1, 3, 2], "timestamp": [5, 6, 7, 8]})
    pq.write_table(pa.Table.from_pandas(first, preserve_index=False), folder / "part-0.parquet")
    pq.write_table(pa.Table.from_pandas(second, preserve_index=False), folder / "part-1.parquet")
    return folder, pd.concat([first, second], ignore_index=True)


#: each in-memory method, as it is called on a log
CALLS = {
    "ratio": lambda log: [split.ratio(log, 0.5, min_interactions=2)],
    "random": lambda log: [split.random_holdout(log, n=1, seed=0, min_interactions=2)],
    "user-kfold": lambda log: list(split.user_kfold(log, 2, seed=0)),
    "rolling": lambda log: split.rolling(log, [3, 6]),
}


@pytest.mark.parametrize("method", list(CALLS))
def test_a_directory_of_parquet_files_is_split_as_its_rows(tmp_path, method):
    folder, frame = _directory(tmp_path)
    from_folder = CALLS[method](folder)
    from_frame = CALLS[method](frame)
    assert [r.summary() for r in from_folder] == [r.summary() for r in from_frame]
    for a, b in zip(from_folder, from_frame, strict=True):
        assert a.test.to_pandas().equals(b.test.reset_index(drop=True))


#: each method's options on the command line
OPTIONS = {
    "ratio": ["--test-fraction", "0.5", "--min-interactions", "2"],
    "random": ["--n", "1", "--seed", "0", "--min-interactions", "2"],
    "user-kfold": ["--k", "2", "--seed", "0"],
    "rolling": ["--cutoffs", "3,6"],
}


@pytest.mark.parametrize("method", list(OPTIONS))
def test_cli_splits_a_directory_with_every_method(tmp_path, method):
    folder, frame = _directory(tmp_path)
    train, test = tmp_path / "train.parquet", tmp_path / "test.parquet"
    args = ["split", folder, "--method", method, *OPTIONS[method], "-o", train, "-O", test]
    out = json.loads(invoke(make_runner(), *args, "-f", "json").stdout)
    records = out if isinstance(out, list) else [out]
    expected = [r.summary() for r in CALLS[method](frame)]
    for record, summary in zip(records, expected, strict=True):
        counts = {key: value for key, value in summary.items() if value is not None}
        assert {key: record[key] for key in counts} == counts
    note = invoke(make_runner(), *args).stderr
    dropped = expected[0]["n_users_dropped"], expected[0]["n_rows_dropped"]
    users = "user" if dropped[0] == 1 else "users"
    rows = "row" if dropped[1] == 1 else "rows"
    assert f"dropped {dropped[0]} {users} ({dropped[1]} {rows})" in note


def test_a_directory_of_files_that_do_not_combine_is_refused(tmp_path):
    folder = tmp_path / "log"
    folder.mkdir()
    pq.write_table(pa.table({"user": [1], "item": [1], "timestamp": [1]}), folder / "a.parquet")
    pq.write_table(pa.table({"user": ["x"], "item": [1], "timestamp": [2]}), folder / "b.parquet")
    with pytest.raises(InputValidationError) as info:
        split.ratio(folder, 0.5)
    assert str(info.value) == (
        f"ratio: column 'user' is string in {folder / 'b.parquet'}, but int64 in "
        f"{folder / 'a.parquet'}; write every file with the same column types (e.g. cast "
        f"'user' to int64)."
    )

"""A scan of several Parquet files whose id column has other types of one kind (strings,
dictionaries of strings, large strings; integers of other widths) gives the in-memory
value of every metric that reads ids: a group (user) whose rows straddle two files is
one group, joined whatever its files' types, and distinct integer ids stay distinct."""

from __future__ import annotations

import datetime as dt
import os

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import receval as rv

USERS = np.repeat([f"u{i}" for i in range(4)], 3)
ITEMS = np.tile(["a", "b", "c"], 4)
SCORES = np.array([0.9, 0.5, 0.5, 0.1, 0.3, 0.3, 0.2, 0.2, 0.2, 0.7, 0.1, 0.4])
LABELS = np.array([1, 0, 1, 0, 1, 0, 1, 1, 0, 0, 1, 1])

# the second file's users as another Arrow type of strings than the first file's
TEXT_TYPES = {
    "dictionary": lambda users: pa.array(users).dictionary_encode(),
    "large_string": lambda users: pa.array(users, pa.large_string()),
    "int8 dictionary": lambda users: (
        pa.array(users).dictionary_encode().cast(pa.dictionary(pa.int8(), pa.string()))
    ),
}


def _files(tmp_path, tables: list[pa.Table]) -> str:
    for i, table in enumerate(tables):
        pq.write_table(table, os.path.join(tmp_path, f"part-{i}.parquet"))
    return str(tmp_path)


def _two_files(tmp_path, second, columns: dict[str, np.ndarray], ids: str, cut: int = 5) -> str:
    """Two files of ``columns``, cut at row ``cut`` (within a group), the second's ``ids``
    column of the type ``second`` makes."""
    first = pa.table({c: pa.array(v[:cut]) for c, v in columns.items()})
    rest = {c: (second(v[cut:]) if c == ids else pa.array(v[cut:])) for c, v in columns.items()}
    return _files(tmp_path, [first, pa.table(rest)])


@pytest.mark.parametrize("second", list(TEXT_TYPES))
@pytest.mark.parametrize("batch_rows", [1, 2, 10**6])
def test_gauc_of_a_group_straddling_files_of_two_string_types(tmp_path, second, batch_rows):
    columns = {"y": LABELS, "p": SCORES, "g": USERS}
    s = rv.scan(_two_files(tmp_path, TEXT_TYPES[second], columns, "g"), batch_rows=batch_rows)
    assert rv.gauc_score(s["y"], s["p"], groups=s["g"]) == rv.gauc_score(
        LABELS, SCORES, groups=USERS
    )


@pytest.mark.parametrize("second", list(TEXT_TYPES))
@pytest.mark.parametrize("batch_rows", [1, 2, 10**6])
def test_evaluate_of_a_user_straddling_files_of_two_string_types(tmp_path, second, batch_rows):
    columns = {"user": USERS, "item": ITEMS, "score": SCORES}
    s = rv.scan(_two_files(tmp_path, TEXT_TYPES[second], columns, "user"), batch_rows=batch_rows)
    qrels = rv.Qrels.from_dict({"u0": {"a": 1}, "u1": {"b": 1}, "u2": {"c": 2}, "u3": {"c": 1}})
    run = rv.Run.from_dict(
        {
            u: {i: float(x) for uu, i, x in zip(USERS, ITEMS, SCORES, strict=True) if uu == u}
            for u in USERS
        }
    )
    metrics = ["ndcg@3", "map", "recall@2"]
    expected = rv.evaluate(qrels, run, metrics).per_user
    got = rv.evaluate(qrels, s, metrics).per_user
    for metric in metrics:
        np.testing.assert_array_equal(got[metric], expected[metric])


@pytest.mark.parametrize("second", list(TEXT_TYPES))
def test_retention_of_files_of_two_string_types(tmp_path, second):
    t0 = dt.datetime(2024, 1, 1)
    users = np.array(["a", "a", "b", "b", "c", "a"])
    days = [0, 1, 0, 3, 1, 7]
    times = pa.array([t0 + dt.timedelta(days=d) for d in days], pa.timestamp("us"))
    first = pa.table({"user": pa.array(users[:3]), "time": times[:3]})
    rest = pa.table({"user": TEXT_TYPES[second](users[3:]), "time": times[3:]})
    path = _files(tmp_path, [first, rest])
    expected = rv.retention(pa.table({"user": users, "time": times}))
    got = rv.retention(rv.scan(path, batch_rows=1))
    np.testing.assert_array_equal(got.login_users, expected.login_users)
    np.testing.assert_array_equal(got.new_users, expected.new_users)
    np.testing.assert_array_equal(got.login_users_per_new_user, expected.login_users_per_new_user)


# two groups whose ids differ by 1 above 2**53 (one float64 for both): apart, each
# group's AUC is 1; as one group, 0.75
BIG = np.array([2**60 + 1] * 2 + [2**60] * 2, dtype=np.uint64)
BIG_Y = np.array([1, 0, 1, 0])
BIG_P = np.array([0.9, 0.1, 0.05, 0.01])


@pytest.mark.parametrize("name", ["gauc", "grouped_xauc", "grouped_auprc"])
@pytest.mark.parametrize("batch_rows", [1, 10**6])
def test_uint64_and_int64_files_keep_large_ids_apart(tmp_path, name, batch_rows):
    first = pa.table({"y": BIG_Y[:2], "p": BIG_P[:2], "g": pa.array(BIG[:2], pa.uint64())})
    rest = pa.table({"y": BIG_Y[2:], "p": BIG_P[2:], "g": pa.array(BIG[2:].astype(np.int64))})
    s = rv.scan(_files(tmp_path, [first, rest]), batch_rows=batch_rows)
    expected = rv.compute(name, BIG_Y, BIG_P, groups=BIG)
    assert expected == 1.0
    assert rv.compute(name, s["y"], s["p"], groups=s["g"]) == expected


@pytest.mark.parametrize("name", ["grouped_xauc", "grouped_auprc"])
@pytest.mark.parametrize("first", [2**60 + 1, 2**63], ids=["below 2**63", "2**63"])
@pytest.mark.parametrize("merged", [False, True], ids=["updates", "merged"])
def test_uint64_and_int64_ids_of_two_updates_stay_apart(name, first, merged):
    # uint64 ids of one update, int64 ids one below of the next: two groups
    groups = np.array([first] * 2 + [first - 1] * 2, dtype=np.uint64)
    acc = rv.metric(name)
    acc.update(BIG_Y[:2], BIG_P[:2], groups=groups[:2])
    other = rv.metric(name) if merged else acc
    other.update(BIG_Y[2:], BIG_P[2:], groups=groups[2:].astype(np.int64))
    got = acc.merge(other).compute() if merged else acc.compute()
    assert got == rv.compute(name, BIG_Y, BIG_P, groups=groups) == 1.0


def test_ids_beyond_int64_beside_negative_ids_are_refused_naming_the_column(tmp_path):
    first = pa.table({"y": [1, 0], "p": [0.4, 0.2], "g": pa.array([2**63 + 5] * 2, pa.uint64())})
    rest = pa.table({"y": [1, 0], "p": [0.3, 0.1], "g": pa.array([-1, -1], pa.int64())})
    s = rv.scan(_files(tmp_path, [first, rest]), batch_rows=1)
    with pytest.raises(rv.InputValidationError, match=r"g: holds integers above the int64"):
        rv.gauc_score(s["y"], s["p"], groups=s["g"])


def test_a_null_label_of_an_int8_file_beside_an_int64_file_is_reported(tmp_path):
    # the group straddling the files joins an Arrow int8 column (it holds a null)
    # with the next file's int64 labels: the null is reported, where it is
    first = pa.table({"y": pa.array([1, None, 0], pa.int8()), "p": [0.1, 0.2, 0.3], "g": [1, 2, 2]})
    rest = pa.table({"y": pa.array([1, 0], pa.int64()), "p": [0.1, 0.2], "g": [2, 3]})
    s = rv.scan(_files(tmp_path, [first, rest]), batch_rows=1)
    with pytest.raises(rv.InputValidationError, match=r"part-0.parquet: row 2: .*y_true contains"):
        rv.gauc_score(s["y"], s["p"], groups=s["g"])

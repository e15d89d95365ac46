"""-0.0 and 0.0 are one float id on every backend, as pandas' groupby, NumPy's unique and
Spark read them: in memory (a column that holds a fraction keeps its ids floats), in an
accumulator's updates and merges, on a scan, and in a categorical's dictionary."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import receval as rv
from receval.data._encode import encode_ids
from tests.oracles.pointwise import gauc as oracle_gauc

# user -0.0 (= 0.0) of rows 2 to 5, users 0.5 and 1.5 of two rows each
Y = np.array([1, 0, 1, 0, 1, 0, 1, 0])
S = np.array([0.9, 0.1, 0.3, 0.2, 0.2, 0.8, 0.1, 0.2])
G = np.array([0.5, 0.5, -0.0, -0.0, 0.0, 0.0, 1.5, 1.5])
ONE = np.where(G == 0.0, 0.0, G)  # the same ids, every zero positive


def test_a_float_column_codes_both_zeros_as_one_id():
    given = G.copy()
    codes, uniques = encode_ids(given, "groups", "f")
    assert codes.tolist() == [0, 0, 1, 1, 1, 1, 2, 2]
    assert np.asarray(uniques).tolist() == [0.5, 0.0, 1.5]
    assert np.signbit(given).sum() == 2  # the input is not changed
    dictionary = pa.DictionaryArray.from_arrays(pa.array([0, 1, 2, 1]), pa.array([-0.0, 0.0, 0.5]))
    codes, _ = encode_ids(dictionary, "groups", "f")
    assert codes.tolist() == [0, 0, 1, 0]


def test_gauc_and_grouped_xauc_read_one_group_in_memory_and_in_updates():
    expected = oracle_gauc(Y, S, G)  # 0.4375: the group of four rows at 0.375
    assert expected == pytest.approx(0.4375)
    assert rv.gauc_score(Y, S, groups=G) == pytest.approx(expected, abs=1e-15)
    acc = rv.metric("gauc").update(Y[:4], S[:4], groups=G[:4]).update(Y[4:], S[4:], groups=G[4:])
    assert acc.compute() == pytest.approx(expected, abs=1e-15)
    left = rv.metric("gauc").update(Y[:4], S[:4], groups=G[:4])
    right = rv.metric("gauc").update(Y[4:], S[4:], groups=G[4:])
    assert left.merge(right).compute() == pytest.approx(expected, abs=1e-15)
    assert rv.xauc_score(S, Y, groups=G) == rv.xauc_score(S, Y, groups=ONE)


def test_an_object_column_of_floats_is_read_as_a_float_column():
    # a pandas object column of floats kept -0.0 and 0.0 as two groups and 1.0 apart
    # from 1, and an accumulator took its ids for strings beside a float column
    for given in (G.astype(object), pd.Series(G, dtype=object), list(G.astype(object))):
        codes, uniques = encode_ids(given, "groups", "f")
        assert codes.tolist() == [0, 0, 1, 1, 1, 1, 2, 2]
        assert np.asarray(uniques).tolist() == [0.5, 0.0, 1.5]
    report = rv.group_auc(Y, S, groups=G.astype(object))
    assert report.groups.tolist() == [0.5, 0.0, 1.5] and report.groups.dtype == np.float64
    whole = np.array([1.0, 1.0, 2.0, 2.0, 2, 2, 3.0, 3.0], dtype=object)
    assert rv.group_auc(Y, S, groups=whole).groups.tolist() == [1, 2, 3]
    expected = rv.gauc_score(Y, S, groups=G)
    for whole_groups in (False, True):
        acc = rv.metric("gauc", whole_groups=whole_groups)
        acc.update(Y[:2], S[:2], groups=G[:2].astype(object)).update(Y[2:], S[2:], groups=G[2:])
        assert acc.compute() == expected
    qrels = pd.DataFrame({"user": pd.Series([1.0, 2.0], dtype=object), "item": ["a", "a"]})
    run = pd.DataFrame({"user": [1, 2], "item": ["a", "b"], "score": [1.0, 1.0]})
    report = rv.evaluate(qrels, run, ["mrr"])
    assert report.users.tolist() == [1, 2] and report.users.dtype == np.int64
    assert report.mean == {"mrr": 0.5}


def _frames(users_q, users_r):
    qrels = pd.DataFrame({"user": users_q, "item": ["a", "a"], "grade": [1, 1]})
    run = pd.DataFrame({"user": users_r, "item": ["b", "a", "a"], "score": [2.0, 1.0, 1.0]})
    return qrels, run


def test_a_run_and_qrels_match_the_two_zeros(tmp_path):
    qrels, run = _frames([-0.0, 0.5], [0.0, 0.0, 0.5])
    expected = rv.evaluate(*_frames([0.0, 0.5], [0.0, 0.0, 0.5]), ["mrr"])
    assert (expected.mean, expected.n_users, expected.n_users_missing) == ({"mrr": 0.75}, 2, 0)
    containers = rv.evaluate(rv.Qrels.from_frame(qrels), rv.Run.from_frame(run), ["mrr"])
    run.to_parquet(tmp_path / "run.parquet")
    scanned = rv.evaluate(qrels, rv.scan(tmp_path / "run.parquet"), ["mrr"])
    for report in (rv.evaluate(qrels, run, ["mrr"]), containers, scanned):
        assert report.mean == expected.mean
        assert (report.n_users, report.n_users_missing, report.n_run_only_users) == (2, 0, 0)

"""Properties of the splitters on drawn logs (times from a few values: ties are the point)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from receval import split

pd = pytest.importorskip("pandas")


@st.composite
def logs(draw) -> pd.DataFrame:
    n = draw(st.integers(1, 60))
    users = draw(st.lists(st.integers(0, 8), min_size=n, max_size=n))
    items = draw(st.lists(st.integers(0, 15), min_size=n, max_size=n))
    times = draw(st.lists(st.sampled_from([0, 1, 2, 5, 5.5]), min_size=n, max_size=n))
    return pd.DataFrame({"user": users, "item": items, "timestamp": times})


def _per_user_splits(log: pd.DataFrame, n: int, fraction: float):
    yield split.leave_last_out(log, n=n)
    yield split.leave_last_out(log, n=n, short="drop")
    yield split.ratio(log, test_fraction=fraction)
    yield split.ratio(log, train_fraction=fraction, min_interactions=2)


def _keys(frame: pd.DataFrame) -> pd.Series:
    return frame["timestamp"] * 1000 + pd.Series(frame.index, index=frame.index)


@given(logs(), st.integers(1, 3), st.sampled_from([0.2, 0.5, 0.75]))
def test_no_users_test_precedes_their_train(log, n, fraction):
    for result in _per_user_splits(log, n, fraction):
        train, test = result.train, result.test
        for user, rows in test.groupby("user"):
            before = train[train["user"] == user]
            if len(before):  # by time, ties by row: every test row comes after
                assert (_keys(rows).min()) > _keys(before).max()


@given(logs(), st.sampled_from([0, 1, 2, 5, 5.5]))
def test_temporal_cut_separates_times(log, cutoff):
    result = split.temporal(log, cutoff=cutoff)
    assume(result.n_train_rows and result.n_test_rows)
    assert result.train["timestamp"].max() < result.test["timestamp"].min()


@given(logs(), st.integers(1, 3), st.sampled_from([0.2, 0.5, 0.75]))
def test_train_and_test_are_the_input_less_counted_drops(log, n, fraction):
    for result in _per_user_splits(log, n, fraction):
        rows = sorted(result.train.index.tolist() + result.test.index.tolist())
        assert len(set(rows)) == len(rows)  # disjoint
        assert len(rows) == len(log) - result.n_rows_dropped
        dropped = set(log.index) - set(rows)
        assert len(set(log.loc[list(dropped), "user"])) == result.n_users_dropped
        assert result.n_train_rows + result.n_test_rows + result.n_rows_dropped == result.n_rows


@given(logs(), st.integers(2, 4), st.integers(0, 2**32 - 1))
def test_user_folds_partition_the_users(log, k, seed):
    assume(log["user"].nunique() >= k)
    folds = list(split.user_kfold(log, k=k, seed=seed))
    tested = [set(f.test["user"]) for f in folds]
    assert set().union(*tested) == set(log["user"])
    assert sum(map(len, tested)) == log["user"].nunique()
    assert all(f.n_train_rows + f.n_test_rows == len(log) for f in folds)


@given(logs(), st.integers(0, 2**32 - 1))
def test_same_seed_same_split(log, seed):
    a = split.random_holdout(log, test_fraction=0.5, seed=seed)
    b = split.random_holdout(log, test_fraction=0.5, seed=seed)
    assert a.test.index.tolist() == b.test.index.tolist()
    if log["user"].nunique() >= 2:
        folds_a = [f.test.index.tolist() for f in split.user_kfold(log, k=2, seed=seed)]
        folds_b = [f.test.index.tolist() for f in split.user_kfold(log, k=2, seed=seed)]
        assert folds_a == folds_b


def test_different_seeds_differ():
    log = pd.DataFrame({"user": np.repeat(np.arange(50), 6), "item": np.tile(np.arange(6), 50)})
    tests = {tuple(split.random_holdout(log, n=2, seed=s).test.index) for s in range(5)}
    assert len(tests) == 5
    folds = {tuple(next(split.user_kfold(log, k=5, seed=s)).test.index) for s in range(5)}
    assert len(folds) == 5


@given(logs(), st.integers(1, 3))
def test_row_order_changes_only_the_ties(log, n):
    """Shuffling rows with distinct times per user changes nothing (ties aside)."""
    log = log.drop_duplicates(["user", "timestamp"])
    shuffled = log.sample(frac=1, random_state=0)
    a = split.leave_last_out(log, n=n).test.index
    b = split.leave_last_out(shuffled, n=n).test.index
    assert sorted(a) == sorted(b)


@given(logs(), st.integers(1, 3), st.sampled_from([0.2, 0.5, 0.75]), st.sampled_from([0, 2, 5]))
def test_counts_equal_the_sets_of_the_parts(log, n, fraction, cutoff):
    for result in [*_per_user_splits(log, n, fraction), split.temporal(log, cutoff=cutoff)]:
        train_users, test_users = set(result.train["user"]), set(result.test["user"])
        train_items = set(result.train["item"])
        cold_rows = ~result.test["item"].isin(train_items)
        assert (result.n_train_users, result.n_test_users) == (len(train_users), len(test_users))
        assert result.n_users_dropped == len(set(log["user"]) - train_users - test_users)
        assert result.n_users_without_test == len(train_users - test_users)
        assert result.n_cold_users == len(test_users - train_users)
        assert result.n_cold_items == len(set(result.test["item"]) - train_items)
        assert result.n_test_rows_cold_items == int(cold_rows.sum())


@given(logs(), st.integers(1, 3), st.sampled_from(["train", "drop", "test"]),
       st.sampled_from([0.2, 0.5, 0.75]), st.sampled_from([0, 1, 2, 5, 5.5]),
       st.sampled_from(["pandas", "polars"]))  # fmt: skip
def test_splits_equal_the_oracle_on_every_frame_type(log, n, short, fraction, cutoff, kind):
    from tests.oracles import split as oracle

    users, times = log["user"].tolist(), log["timestamp"].tolist()
    frame = log.assign(row=np.arange(len(log)))
    if kind == "polars":
        frame = pytest.importorskip("polars").from_pandas(frame)

    def rows(result):
        return set(result.train["row"].to_list()), set(result.test["row"].to_list())

    got = rows(split.leave_last_out(frame, n=n, short=short))
    assert got == oracle.leave_last_out(users, times, n, short=short)
    got = rows(split.ratio(frame, test_fraction=fraction))
    assert got == oracle.ratio(users, times, fraction)
    assert rows(split.temporal(frame, cutoff=cutoff)) == oracle.temporal(times, cutoff)

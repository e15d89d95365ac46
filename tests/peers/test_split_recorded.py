"""receval's splits against the splits LensKit, Recommenders, RecBole, RecPack and Elliot recorded.

The records come from ``tests/peers/record_split_peers.py`` (seeded synthetic logs
whose times tie often). Equal by design, so checked row for row:

- Recommenders ``python_chrono_split(ratio)`` = ``ratio(train_fraction=ratio)``
  (a stable sort by user and time: ties in row order, as receval);
- Recommenders ``python_stratified_split(ratio, seed)`` =
  ``random_holdout(train_fraction=ratio, seed=seed, stream="legacy")``;
- LensKit ``split_global_time(t)`` = ``temporal(cutoff=t)``, with a list of times =
  ``rolling(cutoffs)``; ``split_temporal_fraction(f)`` = ``temporal(cutoff=t)`` with
  ``t`` the ``1 - f`` quantile truncated to whole seconds (LensKit keeps times as ``datetime64[s]``,
  where pandas' interpolated quantile is truncated; ``temporal(quantile=1 - f)``
  keeps the fraction, and equals it on MovieLens-100k);
  ``crossfold_users(k, rng=seed)`` holding out whole users = ``user_kfold(k, seed=seed)``;
- RecPack ``MostRecentSplitter(n)`` = ``leave_last_out(n=n, short="test")`` (a user's
  rows sorted by time with pandas' default sort, which keeps row order for the
  recorded users' at most 15 rows: insertion sort; on longer histories it is
  quicksort, so ties may fall otherwise); ``TimestampSplitter(t, delta_out,
  delta_in)`` = ``rolling([t], end=t + delta_out, train_window=delta_in)``;
- RecBole leave-one-out (``LS: test_only``, time order) = ``leave_last_out(n=1)``
  (RecBole holds ``timestamp:float`` as float32, 64 s apart for Unix times, so on
  MovieLens-100k it equals ``leave_last_out`` of the times cast to float32);
- Elliot (``record_elliot_split.py``) ``fixed_timestamp`` = ``temporal(cutoff=t)``;
  ``temporal_hold_out`` with ``test_ratio: r`` = ``ratio(train_fraction=1 - r,
  rounding="floor")``; with ``leave_n_out: n`` = ``leave_last_out(n=n,
  short="test")`` of the log in reverse row order (Elliot ranks times descending
  with the first row of a tie first, so of tied last rows the earliest is held
  out); ``random_subsampling`` with ``test_ratio: r`` =
  ``random_holdout(train_fraction=1 - r, seed=42, stream="shuffle",
  rounding="floor")``, with ``leave_n_out: n`` = ``random_holdout(n=n, seed=42,
  stream="shuffle")`` except for users with ``n`` rows or fewer (Elliot holds them
  out whole: cold users); ``random_cross_validation`` deals each user's rows in
  log order to folds 0, 1, ..., k - 1, 0, ... (no randomness): pandas'
  ``log.groupby("user").cumcount() % k``, not a receval split.

Different by design, so only the users on which they agree are counted (and must
be most): LensKit's ``LastN``/``LastFrac`` order a user's items (kept sorted by
item id) with NumPy's default, unstable sort, so ties in time fall in no
documented order; RecBole's ratio split floors the test size (``int(0.2 * n)``, at
least 1) where receval rounds.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pd = pytest.importorskip("pandas")

from receval import split  # noqa: E402

DATA = json.loads((Path(__file__).parent / "data" / "recorded_split_peers.json").read_text())
CASES = sorted(DATA["cases"])


def _log(seed: str) -> pd.DataFrame:
    return pd.DataFrame(DATA["cases"][seed]["log"])


def _rows(result) -> list[int]:
    return sorted(result.test.index.tolist())


def _recorded(seed: str, peer: str, name: str):
    record = DATA["cases"][seed].get(peer)
    if record is None:
        pytest.skip(f"{peer} not recorded")
    return record[name]


EQUAL = [
    (
        "recommenders",
        "python_chrono_split(0.75)",
        lambda log: split.ratio(log, train_fraction=0.75),
    ),
    (
        "recommenders",
        "python_stratified_split(0.75, seed=42)",
        lambda log: split.random_holdout(log, train_fraction=0.75, seed=42, stream="legacy"),
    ),
    ("lenskit", "split_global_time(10)", lambda log: split.temporal(log, cutoff=10)),
    (
        "lenskit",
        "split_temporal_fraction(0.25)",
        lambda log: split.temporal(log, cutoff=np.floor(np.quantile(log["timestamp"], 0.75))),
    ),
    ("recbole", "LS test_only", lambda log: split.leave_last_out(log, n=1)),
    (
        "recpack",
        "MostRecentSplitter(1)",
        lambda log: split.leave_last_out(log, n=1, short="test"),
    ),
    (
        "recpack",
        "MostRecentSplitter(2)",
        lambda log: split.leave_last_out(log, n=2, short="test"),
    ),
    ("recpack", "TimestampSplitter(10)", lambda log: split.temporal(log, cutoff=10)),
    ("elliot", "fixed_timestamp", lambda log: split.temporal(log, cutoff=10)),
    (
        "elliot",
        "temporal_hold_out test_ratio=0.2",
        lambda log: split.ratio(log, train_fraction=1 - 0.2, rounding="floor"),
    ),
    (
        "elliot",
        "temporal_hold_out test_ratio=0.3",
        lambda log: split.ratio(log, train_fraction=1 - 0.3, rounding="floor"),
    ),
    (
        "elliot",
        "temporal_hold_out leave_n_out=1",
        lambda log: split.leave_last_out(log[::-1], n=1, short="test"),
    ),
    (
        "elliot",
        "temporal_hold_out leave_n_out=2",
        lambda log: split.leave_last_out(log[::-1], n=2, short="test"),
    ),
    (
        "elliot",
        "random_subsampling test_ratio=0.2",
        lambda log: split.random_holdout(
            log, train_fraction=1 - 0.2, seed=42, stream="shuffle", rounding="floor"
        ),
    ),
    (
        "recpack",
        "TimestampSplitter(8, delta_out=6, delta_in=5)",
        lambda log: split.rolling(log, cutoffs=[8], end=14, train_window=5)[0],
    ),
]


@pytest.mark.parametrize("seed", CASES)
def test_rolling_train_window_equals_recpack_timestamp_splitter(seed):
    recorded = _recorded(seed, "recpack", "TimestampSplitter(8, delta_out=6, delta_in=5) in")
    fold = split.rolling(_log(seed), cutoffs=[8], end=14, train_window=5)[0]
    assert sorted(fold.train.index.tolist()) == recorded


@pytest.mark.parametrize("seed", CASES)
@pytest.mark.parametrize(("peer", "name", "ours"), EQUAL, ids=[e[1] for e in EQUAL])
def test_equal_to_recorded_split(seed, peer, name, ours):
    assert _rows(ours(_log(seed))) == _recorded(seed, peer, name)


@pytest.mark.parametrize("seed", CASES)
def test_user_kfold_equals_lenskit_crossfold_users(seed):
    recorded = _recorded(seed, "lenskit", "crossfold_users(3, seed=7)")
    folds = list(split.user_kfold(_log(seed), k=3, seed=7))
    assert [_rows(f) for f in folds] == recorded


@pytest.mark.parametrize("seed", CASES)
def test_rolling_equals_lenskit_split_global_time_list(seed):
    recorded = _recorded(seed, "lenskit", "split_global_time([8, 14])")
    assert [_rows(f) for f in split.rolling(_log(seed), cutoffs=[8, 14])] == recorded


@pytest.mark.parametrize("seed", CASES)
def test_random_holdout_n_equals_elliot_random_subsampling_but_for_short_users(seed):
    log = _log(seed)
    recorded = set(_recorded(seed, "elliot", "random_subsampling leave_n_out=1"))
    ours = split.random_holdout(log, n=1, seed=42, stream="shuffle")
    short = log.groupby("user")["item"].transform("size") <= 1
    assert set(ours.test.index) == recorded - set(log.index[short])
    assert short.sum() == ours.n_users_without_test  # Elliot: test; receval: train


@pytest.mark.parametrize("seed", CASES)
def test_elliot_cross_validation_deals_each_users_rows_in_log_order(seed):
    log = _log(seed)
    fold = log.groupby("user").cumcount() % 3
    expected = [sorted(log.index[fold == f].tolist()) for f in range(3)]
    assert _recorded(seed, "elliot", "random_cross_validation folds=3") == expected


@pytest.mark.parametrize("seed", CASES)
def test_elliot_leave_n_out_holds_out_the_first_of_tied_last_rows(seed):
    log = _log(seed)
    recorded = _recorded(seed, "elliot", "temporal_hold_out leave_n_out=1")
    ours = _rows(split.leave_last_out(log, n=1, short="test"))
    last = log.groupby("user")["timestamp"].transform("max") == log["timestamp"]
    tied = log[last].groupby("user").size() > 1
    assert len(set(ours) - set(recorded)) == tied.sum() > 0


def _users_agreeing(log: pd.DataFrame, ours: list[int], theirs: list[int]) -> float:
    mine, peer = set(ours), set(theirs)
    agree = [set(rows) & mine == set(rows) & peer for rows in log.groupby("user").indices.values()]
    return float(np.mean(agree))


DIFFERENT = [
    ("lenskit", "LastN(1)", lambda log: split.leave_last_out(log, n=1, short="test")),
    ("lenskit", "LastN(2)", lambda log: split.leave_last_out(log, n=2, short="test")),
    ("lenskit", "LastFrac(0.25)", lambda log: split.ratio(log, test_fraction=0.25)),
    ("recbole", "RS [0.8, 0.2]", lambda log: split.ratio(log, test_fraction=0.2)),
]


@pytest.mark.parametrize("seed", CASES)
@pytest.mark.parametrize(("peer", "name", "ours"), DIFFERENT, ids=[e[1] for e in DIFFERENT])
def test_most_users_agree_where_the_tie_or_rounding_rule_differs(seed, peer, name, ours):
    log = _log(seed)
    assert _users_agreeing(log, _rows(ours(log)), _recorded(seed, peer, name)) >= 0.6


def test_ml100k_counts_recorded_for_the_equal_splits():
    counts = DATA.get("ml100k", {})
    for peer, name in [
        ("recommenders", "python_chrono_split(0.75)"),
        ("recommenders", "python_stratified_split(0.75, seed=42)"),
        ("lenskit", "split_temporal_fraction(0.25)"),
        ("recbole", "LS test_only"),  # with times as float32, as RecBole holds them
        *[("elliot", name) for name in ("fixed_timestamp", "random_subsampling test_ratio=0.2")],
        *[("elliot", f"temporal_hold_out {rule}") for rule in ("test_ratio=0.2", "leave_n_out=1")],
    ]:
        entry = counts[peer][name]
        assert entry["rows_only_receval"] == entry["rows_only_peer"] == 0

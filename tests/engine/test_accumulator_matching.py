"""Ranking accumulators check at ``compute()`` that the run's ids match the qrels', as
:func:`receval.evaluate` does (``min_match``, ``allow_unmatched``), over every update,
merge, pickle and checkpoint; with ``item_vectors``, the catalogue as
:func:`receval.evaluate_embeddings` matches it."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

import receval
from receval.exceptions import InputValidationError, InvalidParameterError, UnmatchedIdsWarning

QRELS = {f"u{i}": {f"i{i}": 1, f"i{i + 1}": 1} for i in range(8)}
RUN = {f"u{i}": {f"i{i}": 0.9, f"i{i + 2}": 0.5, f"i{i + 1}": 0.1} for i in range(8)}
PREFIXED_USERS = {f"x_{u}": lists for u, lists in RUN.items()}
PREFIXED_ITEMS = {u: {f"x_{i}": s for i, s in lists.items()} for u, lists in RUN.items()}


def _refusal(func, *args, **kwargs) -> str:
    with pytest.raises(InputValidationError) as info:
        func(*args, **kwargs)
    return str(info.value)


def _named(message: str, func: str = "receval.metric('ndcg@10')") -> str:
    """A message of evaluate (or evaluate_embeddings) as ``func`` says it: the same
    after the name of the caller."""
    return f"{func}: {message.split(': ', 1)[1]}"


def _split(acc: receval.Accumulator, qrels: dict, run: dict) -> receval.Accumulator:
    """``acc`` updated with the qrels' users and the run's in two halves."""
    users, lists = sorted(qrels), sorted(run)
    for q, r in ((users[:4], lists[:4]), (users[4:], lists[4:])):
        acc.update({u: qrels[u] for u in q}, {u: run[u] for u in r})
    return acc


@pytest.mark.parametrize("whole_groups", [False, True])
@pytest.mark.parametrize("run", [PREFIXED_USERS, PREFIXED_ITEMS], ids=["users", "items"])
def test_a_run_of_prefixed_ids_is_refused_at_compute_as_evaluate_refuses_it(whole_groups, run):
    # before: the accumulator scored it 0 in silence
    expected = _named(_refusal(receval.evaluate, QRELS, run, ["ndcg@10"]))
    acc = _split(receval.metric("ndcg@10", whole_groups=whole_groups), QRELS, run)
    assert _refusal(acc.compute) == expected
    assert _refusal(receval.compute, "ndcg@10", QRELS, run) == _named(
        expected, "receval.compute('ndcg@10')"
    )


@pytest.mark.parametrize("whole_groups", [False, True])
def test_allow_unmatched_warns_and_scores_0(whole_groups):
    acc = _split(receval.metric("ndcg@10", whole_groups=whole_groups, allow_unmatched=True),
                 QRELS, PREFIXED_USERS)  # fmt: skip
    with pytest.warns(UnmatchedIdsWarning, match="none of the 8 qrels users is in the run") as got:
        assert acc.compute() == 0.0
    with pytest.warns(UnmatchedIdsWarning) as want:
        receval.evaluate(QRELS, PREFIXED_USERS, ["ndcg@10"], allow_unmatched=True)
    assert [str(w.message) for w in got] == [_named(str(w.message)) for w in want]


@pytest.mark.parametrize("whole_groups", [False, True])
def test_a_share_below_min_match_warns_as_evaluate_does(whole_groups):
    run = {u: RUN[u] for u in ("u0", "u1", "u2")}  # 3 of the 8 qrels users
    acc = _split(receval.metric("ndcg@10", whole_groups=whole_groups, min_match=0.5), QRELS, run)
    with pytest.warns(UnmatchedIdsWarning, match="below min_match=0.5") as got:
        value = acc.compute()
    with pytest.warns(UnmatchedIdsWarning) as want:
        report = receval.evaluate(QRELS, run, ["ndcg@10"], min_match=0.5)
    assert value == report.mean["ndcg@10"]
    assert [str(w.message) for w in got] == [_named(str(w.message)) for w in want]
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnmatchedIdsWarning)  # 3 of 8 is above the default
        assert _split(receval.metric("ndcg@10", whole_groups=whole_groups), QRELS, run).compute()


@pytest.mark.parametrize("whole_groups", [False, True])
def test_updates_without_a_recommendation_are_refused_without_a_note_on_types(whole_groups):
    # before: "run users [] (the qrels' are str, the run's int64: ...)"
    acc = receval.metric("ndcg@10", whole_groups=whole_groups).update(QRELS, {})
    assert _refusal(acc.compute) == (
        "receval.metric('ndcg@10'): none of the 8 qrels users is in the run (0.0%), e.g. "
        "qrels users ['u0', 'u1', 'u2', 'u3', 'u4', ...], run users []; every metric would be "
        "0; check the ids for a prefix, a type or a column mix-up, or pass "
        "allow_unmatched=True to score the run anyway."
    )


def test_the_options_are_checked_when_the_accumulator_is_made():
    with pytest.raises(
        InvalidParameterError,
        match=r"The 'min_match' parameter of "
        r"receval.metric\('ndcg@10'\) must be a float in \[0, 1\]. Got 2",
    ):
        receval.metric("ndcg@10", min_match=2)
    with pytest.raises(InvalidParameterError, match=r"'allow_unmatched' parameter .* bool"):
        receval.metric("ndcg@10", allow_unmatched="yes")
    # the defaults, given or not, are the same options (such accumulators merge)
    given = receval.metric("ndcg@10", min_match=0.1, allow_unmatched=False)
    assert given.params == receval.metric("ndcg@10").params


def test_accumulators_that_each_match_none_are_checked_once_merged():
    # a's qrels users are b's run users and the other way round: each alone holds no
    # user of both, merged every user is in the run
    users = sorted(QRELS)
    a, b = receval.metric("ndcg@10"), receval.metric("ndcg@10")
    a.update({u: QRELS[u] for u in users[:4]}, {u: RUN[u] for u in users[4:]})
    b.update({u: QRELS[u] for u in users[4:]}, {u: RUN[u] for u in users[:4]})
    assert "none of the 4 qrels users is in the run" in _refusal(a.compute)
    assert a.merge(b).compute() == receval.evaluate(QRELS, RUN, ["ndcg@10"]).mean["ndcg@10"]


@pytest.mark.parametrize("whole_groups", [False, True])
def test_merged_halves_each_half_matching(whole_groups):
    # half of each accumulator's users are prefixed in the run: half of all match
    run = {(f"x_{u}" if int(u[1:]) % 2 else u): lists for u, lists in RUN.items()}
    parts = [receval.metric("ndcg@10", whole_groups=whole_groups, min_match=0.6)
             for _ in range(2)]  # fmt: skip
    for acc, users in zip(parts, (["u0", "u1", "u2", "u3"], ["u4", "u5", "u6", "u7"]),
                          strict=True):  # fmt: skip
        acc.update({u: QRELS[u] for u in users},
                   {r: run[r] for r in run if r.removeprefix("x_") in users})  # fmt: skip
    with pytest.warns(UnmatchedIdsWarning, match=r"4 of the 8 qrels users .*\(50.0%\)") as got:
        value = parts[0].merge(parts[1]).compute()
    with pytest.warns(UnmatchedIdsWarning) as want:
        report = receval.evaluate(QRELS, run, ["ndcg@10"], min_match=0.6)
    assert value == report.mean["ndcg@10"]
    assert [str(w.message) for w in got] == [_named(str(w.message)) for w in want]


@pytest.mark.parametrize("whole_groups", [False, True])
@pytest.mark.parametrize("trip", ["pickle", "state_dict"])
def test_a_checkpoint_mid_way_keeps_the_ids_and_the_options(whole_groups, trip):
    expected = _named(_refusal(receval.evaluate, QRELS, PREFIXED_ITEMS, ["ndcg@10"]))
    users = sorted(QRELS)
    for options in ({}, {"allow_unmatched": True}):
        acc = receval.metric("ndcg@10", whole_groups=whole_groups, **options)
        acc.update({u: QRELS[u] for u in users[:4]}, {u: PREFIXED_ITEMS[u] for u in users[:4]})
        if trip == "pickle":
            acc = pickle.loads(pickle.dumps(acc))
        else:
            fresh = receval.metric("ndcg@10", whole_groups=whole_groups, **options)
            acc = fresh.load_state_dict(acc.state_dict())
        acc.update({u: QRELS[u] for u in users[4:]}, {u: PREFIXED_ITEMS[u] for u in users[4:]})
        if options:
            with pytest.warns(UnmatchedIdsWarning, match="none of the run's 10 items"):
                assert acc.compute() == 0.0
        else:
            assert _refusal(acc.compute) == expected


def _vectors():
    # user u's vector points away from its judged item "a": a poor model
    users = np.array([[1.0, 0.0], [0.9, 0.1]])
    items = np.array([[-1.0, 0.0], [1.0, 0.0], [0.8, 0.2], [0.5, 0.5], [0.1, 0.9]])
    return users, items


@pytest.mark.parametrize("whole_groups", [False, True])
def test_item_vectors_match_the_catalogue_as_evaluate_embeddings_does(whole_groups):
    users, items = _vectors()
    qrels = {"u": {"a": 1}, "v": {"a": 1, "e": 1}}
    ids = ["a", "b", "c", "d", "e"]
    # a poor model: its top 2 miss every judged item, and score 0 without a warning
    acc = receval.metric("ndcg@2", item_vectors=items, item_ids=ids, whole_groups=whole_groups)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnmatchedIdsWarning)
        acc.update({"u": qrels["u"]}, users[:1], user_ids=["u"])
        acc.update({"v": qrels["v"]}, users[1:], user_ids=["v"])
        assert acc.compute() == 0.0
        report = receval.evaluate_embeddings(qrels, users, items, ["ndcg@2"], user_ids=["u", "v"],
                                             item_ids=ids)  # fmt: skip
        assert report.mean["ndcg@2"] == 0.0
    # a foreign catalogue: refused with evaluate_embeddings' message
    foreign = [f"x_{i}" for i in ids]
    expected = _refusal(receval.evaluate_embeddings, qrels, users, items, ["ndcg@2"],
                        user_ids=["u", "v"], item_ids=foreign)  # fmt: skip
    acc = receval.metric("ndcg@2", item_vectors=items, item_ids=foreign, whole_groups=whole_groups)
    acc.update(qrels, users, user_ids=["u", "v"])
    assert _refusal(acc.compute) == _named(expected, "receval.metric('ndcg@2')")
    assert expected.startswith("evaluate_embeddings: none of item_ids' 5 items is judged")
    # user vectors of other ids: refused too
    acc = receval.metric("ndcg@2", item_vectors=items, item_ids=ids, whole_groups=whole_groups)
    acc.update(qrels, users, user_ids=["x_u", "x_v"])
    assert "none of the 2 qrels users is in the run" in _refusal(acc.compute)


def test_a_scanned_run_is_checked_as_the_run_in_memory(tmp_path):
    import pandas as pd

    def frame(run: dict) -> pd.DataFrame:
        rows = [(u, i, s) for u, lists in run.items() for i, s in lists.items()]
        return pd.DataFrame(rows, columns=["user", "item", "score"])

    path = tmp_path / "run.parquet"
    frame(PREFIXED_USERS).to_parquet(path)
    expected = _refusal(receval.evaluate, QRELS, PREFIXED_USERS, ["ndcg@10"])
    scanned = receval.scan(str(path), batch_rows=5)
    assert _refusal(receval.evaluate, QRELS, scanned, ["ndcg@10"]) == expected
    few = {u: RUN[u] for u in ("u0", "u1", "u2")}
    frame(few).to_parquet(path)
    with pytest.warns(UnmatchedIdsWarning, match="below min_match=0.5") as got:
        value = receval.evaluate(QRELS, receval.scan(str(path), batch_rows=5), ["ndcg@10"],
                                 min_match=0.5).mean  # fmt: skip
    with pytest.warns(UnmatchedIdsWarning) as want:
        memory = receval.evaluate(QRELS, few, ["ndcg@10"], min_match=0.5).mean
    assert value == memory
    assert [str(w.message) for w in got] == [str(w.message) for w in want]

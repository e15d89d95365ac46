"""evaluate: a run whose ids match none (or few) of the qrels' is refused or reported,
never scored 0 in silence; the counts of the run's items and of those no qrels judge."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import receval
from receval import evaluate
from receval.exceptions import (
    InputValidationError,
    InvalidParameterError,
    RecevalWarning,
    UnmatchedIdsWarning,
)
from receval.trec.trec_eval import trec_eval


def _frames(n_users: int = 20, n_items: int = 30, seed: int = 0):
    rng = np.random.default_rng(seed)
    q_rows, r_rows = [], []
    for u in range(n_users):
        for i in rng.choice(n_items, 3, replace=False):
            q_rows.append((str(u), str(i), 1))
        for rank, i in enumerate(rng.choice(n_items, 10, replace=False)):
            r_rows.append((str(u), str(i), 1.0 - rank / 10))
    qrels = pd.DataFrame(q_rows, columns=["user", "item", "grade"])
    run = pd.DataFrame(r_rows, columns=["user", "item", "score"])
    return qrels, run


def test_prefixed_items_are_refused():
    qrels, run = _frames()
    bad = run.assign(item="i" + run.item)
    with pytest.raises(InputValidationError) as info:
        evaluate(qrels, bad, ["ndcg@10", "recall@5"])
    msg = str(info.value)
    assert msg.startswith("evaluate: none of the run's ")
    assert "items is judged in the qrels (0.0%; 0.0% of the qrels' " in msg
    assert "'i" in msg  # the run's ids are shown
    assert msg.endswith("or pass allow_unmatched=True to score the run anyway.")


def test_prefixed_users_are_refused():
    qrels, run = _frames()
    bad = run.assign(user="u" + run.user)
    with pytest.raises(InputValidationError, match=r"evaluate: none of the 20 qrels users is in"):
        evaluate(qrels, bad, ["ndcg@10"])


def test_allow_unmatched_scores_with_a_warning_and_counts():
    qrels, run = _frames()
    bad = run.assign(item="i" + run.item)
    with pytest.warns(UnmatchedIdsWarning, match="none of the run's"):
        report = evaluate(qrels, bad, ["ndcg@10"], allow_unmatched=True)
    assert report.mean["ndcg@10"] == 0.0
    assert report.n_run_items == bad.item.nunique()
    assert report.n_run_items_unmatched == report.n_run_items


def test_counts_of_a_matching_run():
    qrels, run = _frames()
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnmatchedIdsWarning)
        report = evaluate(qrels, run, ["ndcg@10"])
    assert report.n_run_items == run.item.nunique()
    unjudged = set(run.item) - set(qrels.item)
    assert report.n_run_items_unmatched == len(unjudged)


def test_few_matches_warn_below_min_match():
    qrels, run = _frames()
    # 2 of the 20 qrels users keep their ids
    bad = run.assign(user=np.where(run.user.isin(["0", "1"]), run.user, "x" + run.user))
    with pytest.warns(UnmatchedIdsWarning, match=r"2 of the 20 qrels users .*below min_match=0.5"):
        evaluate(qrels, bad, ["ndcg@10"], min_match=0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnmatchedIdsWarning)
        report = evaluate(qrels, bad, ["ndcg@10"], min_match=0.0)
    assert report.n_users_missing == 18


def test_few_items_warn_only_when_both_sides_mostly_mismatch():
    qrels = {u: {f"j{u}": 1, f"k{u}": 1, "a": 1} for u in range(20)}  # 41 judged items
    # a popularity run: 3 items, all judged (100% of its items, 7% of the judged ones)
    popular = {u: {"a": 0.9, "j0": 0.8, "j1": 0.7} for u in range(20)}
    # a run over a large catalogue: every judged item and 500 others (8% of its items)
    broad = {u: {**{f"x{i}": i / 1000 for i in range(500)},
                 **{f"j{v}": 0.9 for v in range(20)}, **{f"k{v}": 0.9 for v in range(20)},
                 "a": 0.95} for u in range(20)}  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnmatchedIdsWarning)
        evaluate(qrels, popular, ["ndcg@10"])
        evaluate(qrels, broad, ["ndcg@10"])
    # 1 of 50 run items judged, 1 of 41 judged items in the run: an id mix-up
    mixed = {u: {"a": 0.9, **{f"i{i}": 0.1 for i in range(49)}} for u in range(20)}
    with pytest.warns(
        UnmatchedIdsWarning,
        match=r"1 of the run's 50 items is judged in the "
        r"qrels \(2.0%; 2.4% of the qrels' 41 items\)",
    ):
        evaluate(qrels, mixed, ["ndcg@10"])


def test_unmatched_warning_is_a_receval_warning():
    assert issubclass(UnmatchedIdsWarning, RecevalWarning)
    assert issubclass(receval.UndefinedMetricWarning, RecevalWarning)
    assert issubclass(receval.TieOrderWarning, RecevalWarning)
    assert issubclass(RecevalWarning, UserWarning)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"min_match": 1.5}, "The 'min_match' parameter of evaluate must be a float in [0, 1]. "
                             "Got 1.5 instead."),
        ({"min_match": "high"}, "The 'min_match' parameter of evaluate must be a float in "
                                "[0, 1]. Got 'high' instead."),
        ({"allow_unmatched": "yes"}, "The 'allow_unmatched' parameter of evaluate must be a "
                                     "bool. Got 'yes' instead."),
    ],
)  # fmt: skip
def test_bad_options(options, message):
    qrels, run = _frames()
    with pytest.raises(InvalidParameterError) as info:
        evaluate(qrels, run, ["ndcg@10"], **options)
    assert str(info.value) == message


def test_different_id_types_are_named():
    # zero-padded string ids in the run, integers in the qrels: "007" is not 7
    qrels = {7: {11: 1, 12: 1}, 8: {13: 1}}
    run = {"007": {"011": 0.5}, "008": {"013": 0.5}}
    with pytest.raises(InputValidationError, match=r"\(the qrels' are int64, the run's str: "):
        evaluate(qrels, run, ["ndcg@10"])


def test_only_list_metrics_check_users_not_items():
    qrels = {"u1": {"a": 1}}
    run = {"u1": {"x": 0.5, "y": 0.4}}
    report = evaluate(qrels, run, ["arp@2"], popularity={"x": 2, "y": 4})
    assert report.mean["arp@2"] == 3.0
    with pytest.raises(InputValidationError, match="none of the 1 qrels user is in the run"):
        evaluate(qrels, {"v1": {"x": 0.5}}, ["arp@2"], popularity={"x": 2})


def test_scan_path_refuses_and_counts_the_same(tmp_path):
    qrels, run = _frames()
    path = tmp_path / "run.parquet"
    run.to_parquet(path)
    memory = evaluate(qrels, run, ["ndcg@10"])
    scanned = evaluate(qrels, receval.scan(str(path)), ["ndcg@10"])
    assert scanned.n_run_items == memory.n_run_items
    assert scanned.n_run_items_unmatched == memory.n_run_items_unmatched
    bad = tmp_path / "bad.parquet"
    run.assign(item="i" + run.item).to_parquet(bad)
    with pytest.raises(InputValidationError, match="none of the run's 30 items is judged"):
        evaluate(qrels, receval.scan(str(bad)), ["ndcg@10"])
    with pytest.warns(UnmatchedIdsWarning):
        report = evaluate(qrels, receval.scan(str(bad)), ["ndcg@10"], allow_unmatched=True)
    assert report.n_run_items_unmatched == report.n_run_items == 30


def test_streaming_batches_are_not_checked_one_by_one():
    # a batch holding a user without any judged item is a batch, not an id mix-up:
    # compute checks the ids of every update, as evaluate checks all the rows
    qrels, run = _frames()
    m = receval.metric("ndcg@10")
    unjudged = run.assign(item=np.where(run.user == "0", "zz" + run.item, run.item))
    for user in sorted(set(run.user)):
        m.update(qrels[qrels.user == user], unjudged[unjudged.user == user])
    assert m.compute() == evaluate(qrels, unjudged, ["ndcg@10"]).mean["ndcg@10"]


def test_trec_eval_keeps_scoring_but_warns(tmp_path):
    qrels_path, run_path = tmp_path / "qrels", tmp_path / "run"
    qrels_path.write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 1\n")
    run_path.write_text("q1 Q0 id1 1 0.9 s\nq1 Q0 id2 2 0.8 s\nq2 Q0 id3 1 0.7 s\n")
    with pytest.warns(UnmatchedIdsWarning, match="none of the run's 3 items"):
        out = trec_eval(["-m", "map", str(qrels_path), str(run_path)])
    assert out == "map                   \tall\t0.0000\n"


def test_the_examples_are_the_smallest_ids_whatever_the_order_or_the_batches(tmp_path):
    # the first ids met were shown: another order of the rows, or a scanned run read
    # in batches, named other ids for the same data
    qrels, run = _frames()
    bad = run.assign(user="u" + run.user).sort_values("user", key=lambda u: -u.str.len())
    shuffled = bad.sample(frac=1.0, random_state=3)
    path = tmp_path / "bad.parquet"
    bad.sort_values("user", ascending=False).to_parquet(path)
    messages = set()
    for q, r in ((qrels, bad), (qrels.iloc[::-1], shuffled),
                 (qrels, receval.scan(str(path), batch_rows=40))):  # fmt: skip
        with pytest.raises(InputValidationError) as info:
            evaluate(q, r, ["ndcg@10"])
        messages.add(str(info.value))
    assert len(messages) == 1
    assert "e.g. qrels users ['0', '1', '10', '11', '12', ...], run users ['u0', 'u1', " \
           "'u10', 'u11', 'u12', ...]" in messages.pop()  # fmt: skip


def test_none_of_one_item_is_judged_reads_in_the_singular():
    with pytest.raises(InputValidationError, match="none of the run's 1 item is judged in"):
        evaluate({"u1": {"a": 1}}, {"u1": {"x": 0.5}}, ["ndcg@10"])

"""evaluate_embeddings() == evaluate(qrels, retrieve(...)) with each tie at k kept whole,
block by block."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import receval as rv
from receval import (
    InputValidationError,
    InvalidParameterError,
    Run,
    evaluate,
    evaluate_embeddings,
    retrieve,
)
from receval.exceptions import UnmatchedIdsWarning
from receval.report import ranking_records


def _data(seed=0, n_users=23, n_items=40, dim=4):
    rng = np.random.default_rng(seed)
    users = rng.integers(-2, 3, (n_users, dim)).astype(np.float32)
    items = rng.integers(-2, 3, (n_items, dim)).astype(np.float32)
    user_ids = np.array([f"u{i}" for i in range(n_users)])
    item_ids = rng.permutation(n_items) + 1000
    # qrels: most users, one user without vectors, grades 1-2
    qrels = {}
    for u in range(n_users - 3):
        chosen = rng.choice(item_ids, 3, replace=False)
        qrels[user_ids[u]] = {int(i): int(rng.integers(1, 3)) for i in chosen}
    qrels["nobody"] = {int(item_ids[0]): 1}
    train = {
        user_ids[u]: [int(i) for i in rng.choice(item_ids, 4, replace=False)]
        for u in range(n_users)
    }
    return users, items, user_ids, item_ids, qrels, train


METRICS = ["ndcg@10", "recall@5", "mrr@10", "map@10", "p@3"]


def _with_ties(run, k):
    """Each list of ``run`` (every item of the user) cut after k and the items tied
    with its k-th: the lists evaluate_embeddings retrieves."""
    out = {}
    for user, items in run.to_dict().items():
        scores = list(items.values())
        keep = len(scores) if len(scores) <= k else k + scores[k:].count(scores[k - 1])
        out[user] = dict(list(items.items())[:keep])
    return Run.from_dict(out)


@pytest.mark.parametrize("block_users", [1, 4, 1000])
@pytest.mark.parametrize("ties", [None, "input", "average"])
def test_equals_evaluate_of_the_retrieved_run_with_its_ties_at_k(block_users, ties):
    users, items, user_ids, item_ids, qrels, train = _data()
    common = dict(user_ids=user_ids, item_ids=item_ids, exclude=train)
    opts = {} if ties is None else {"ties": ties}
    ranking = retrieve(users, items, len(items), **common)  # every item of every user
    want = evaluate(qrels, _with_ties(ranking, 10), METRICS, **opts)
    got = evaluate_embeddings(
        qrels, users, items, METRICS, block_users=block_users, block_items=7, **common, **opts
    )
    assert got.mean == want.mean == evaluate(qrels, ranking, METRICS, **opts).mean
    assert got.n_users == want.n_users and got.n_users_missing == want.n_users_missing == 1
    assert got.n_run_only_users == want.n_run_only_users == 3
    assert got.n_users_skipped == want.n_users_skipped
    assert got.n_users_tie_dependent == want.n_users_tie_dependent
    assert got.n_run_items == want.n_run_items
    assert list(got.users) == list(want.users)
    for m in METRICS:
        np.testing.assert_array_equal(got.values[m], want.values[m])
    if ties == "input":  # the first k in the run's order: retrieve's own cut
        cut = evaluate(qrels, retrieve(users, items, 10, **common), METRICS, **opts)
        assert got.mean == cut.mean


def test_a_metric_does_not_depend_on_the_others_nor_on_the_tie_at_k():
    # items 0-3 tie for user 0 across the cut at 2; the relevant item 3 is the last id
    users = np.array([[1.0], [-1.0]])
    items = np.array([[1.0], [1.0], [1.0], [1.0], [0.5]])
    qrels = {0: {3: 1}, 1: {4: 1}}
    alone = evaluate_embeddings(qrels, users, items, ["success@2"])
    beside = evaluate_embeddings(qrels, users, items, ["success@2", "recall@4"])
    # "trec" orders the tie by id descending: 3 first
    assert alone.mean["success@2"] == beside.mean["success@2"] == 1.0
    assert alone.n_users_tie_dependent == {"success@2": 1}
    assert alone.mean_ties_average == {"success@2": 0.75}
    average = evaluate_embeddings(qrels, users, items, ["success@2"], ties="average")
    assert average.mean == {"success@2": 0.75}  # user 0: 2 of the 4 tied orders
    assert evaluate_embeddings(qrels, users, items, ["success@2"], ties="input").mean == {
        "success@2": 0.5
    }
    everything = [[0, 1, 2, 3, 4]] * 2
    with_candidates = evaluate_embeddings(
        qrels, users, items, ["success@2"], candidates=dict(enumerate(everything))
    )
    assert with_candidates.mean == {"success@2": 1.0}
    assert with_candidates.n_users_tie_dependent == {"success@2": 1}


def test_a_tie_longer_than_twice_k_is_kept_whole():
    # 30 tied items for user 0 (rescanned at depths 2, 4, ..., 32), masked ones among them
    users = np.array([[1.0], [2.0]], np.float32)
    items = np.concatenate([np.ones((30, 1)), np.full((5, 1), 0.5)]).astype(np.float32)
    qrels = {0: {9: 1}, 1: {9: 1}}
    options = dict(exclude={1: [9]}, block_items=4)
    got = evaluate_embeddings(qrels, users, items, ["success@1"], ties="average", **options)
    np.testing.assert_array_equal(got.values["success@1"], [1 / 30, 0.0])
    assert got.n_run_items == 30
    # "trec" orders the tie by id descending, compared as strings (trec_eval): "9" first
    got = evaluate_embeddings(qrels, users, items, ["success@1"], **options)
    assert got.mean == {"success@1": 0.5}


def test_exclude_pairs_without_a_vector_are_counted_in_the_report():
    users = np.eye(2, dtype=np.float32)
    items = np.array([[1, 0], [0.9, 0], [0, 1]], dtype=np.float32)
    qrels = {0: {1: 1}, 1: {2: 1}}
    exclude = {0: [0, 7, 8, 9], 5: [1]}  # items 7, 8, 9 and user 5 have no vector
    with pytest.warns(UnmatchedIdsWarning, match=r"evaluate_embeddings: 4 of the 5 distinct"):
        got = evaluate_embeddings(qrels, users, items, ["recall@1"], exclude=exclude)
    assert got.mean == {"recall@1": 1.0}
    assert got.n_exclude_unmatched == 4
    assert ranking_records({"r": got})[0]["counts"]["n_exclude_unmatched"] == 4
    matched = evaluate_embeddings(qrels, users, items, ["recall@1"], exclude={0: [0]})
    assert matched.n_exclude_unmatched == 0
    plain = evaluate_embeddings(qrels, users, items, ["recall@1"])
    assert plain.n_exclude_unmatched is None
    assert "n_exclude_unmatched" not in ranking_records({"r": plain})[0]["counts"]


@pytest.mark.parametrize("exclude", [{"u0": [], "u1": []}, {}])
def test_an_exclude_of_no_pair_masks_nothing(exclude):
    # it was refused: "evaluate_embeddings: exclude is empty; pass at least one sample"
    users, items, user_ids, item_ids, qrels, _ = _data(4)
    del qrels["nobody"]  # a qrels user without a vector: a warning of its own
    ids = {"user_ids": user_ids, "item_ids": item_ids}
    metrics = ["recall@3", "ndcg@3"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = evaluate_embeddings(qrels, users, items, metrics, exclude=exclude, **ids)
    assert got.mean == evaluate_embeddings(qrels, users, items, metrics, **ids).mean
    assert got.n_exclude_unmatched == 0


def test_candidates_pairs_without_a_vector_are_counted_in_the_report():
    # they were dropped silently: no warning, no count
    users = np.eye(2, dtype=np.float32)
    items = np.array([[1, 0], [0.9, 0], [0, 1]], dtype=np.float32)
    qrels = {0: {1: 1}, 1: {2: 1}}
    candidates = {0: [1, 7], 1: [2, 8, 9], 5: [0]}  # items 7, 8, 9 and user 5 have no vector
    message = (
        r"4 of the 6 distinct \(user, item\) pairs of candidates are never scored, since their "
        r"user or item has no vector \(users without one: 1 pair, e.g. \[5\]; items without "
        r"one: 3 pairs, e.g. \[7, 8, 9\]\)"
    )
    with pytest.warns(UnmatchedIdsWarning, match="evaluate_embeddings: " + message):
        got = evaluate_embeddings(qrels, users, items, ["recall@1"], candidates=candidates)
    assert got.mean == {"recall@1": 1.0}
    assert got.n_candidates_unmatched == 4 and got.n_exclude_unmatched is None
    assert ranking_records({"r": got})[0]["counts"]["n_candidates_unmatched"] == 4
    with pytest.warns(UnmatchedIdsWarning, match="retrieve: " + message):
        retrieve(users, items, 1, candidates=candidates)
    both = evaluate_embeddings(qrels, users, items, ["recall@1"], candidates={0: [1], 1: [2]},
                               exclude={0: [0]})  # fmt: skip
    assert (both.n_candidates_unmatched, both.n_exclude_unmatched) == (0, 0)
    plain = ranking_records({"r": evaluate_embeddings(qrels, users, items, ["recall@1"])})
    assert "n_candidates_unmatched" not in plain[0]["counts"]


def test_the_repr_shows_the_pairs_without_a_vector_by_their_json_name():
    # the repr showed the other counts and left these out
    users = np.eye(2, dtype=np.float32)
    items = np.array([[1, 0], [0.9, 0], [0, 1]], dtype=np.float32)
    qrels = {0: {1: 1}, 1: {2: 1}}
    with pytest.warns(UnmatchedIdsWarning):
        got = evaluate_embeddings(qrels, users, items, ["recall@1"], exclude={0: [0, 7]},
                                  candidates={0: [0, 1, 8, 9], 1: [2], 5: [1]})  # fmt: skip
    counts = ranking_records({"r": got})[0]["counts"]
    assert (counts["n_exclude_unmatched"], counts["n_candidates_unmatched"]) == (1, 3)
    first = repr(got).splitlines()[0]
    assert first.endswith("; n_exclude_unmatched=1, n_candidates_unmatched=3)")
    assert str(got) == repr(got)
    # a count of zero (or None, without the argument) is not shown
    zero = evaluate_embeddings(qrels, users, items, ["recall@1"], exclude={0: [0]})
    assert zero.n_exclude_unmatched == 0
    assert "unmatched" not in repr(zero)
    assert "unmatched" not in repr(evaluate_embeddings(qrels, users, items, ["recall@1"]))


def test_k_from_the_metrics_and_an_explicit_k():
    users, items, user_ids, item_ids, qrels, _ = _data(1)
    common = dict(user_ids=user_ids, item_ids=item_ids)
    got = evaluate_embeddings(qrels, users, items, ["recall@5", "ndcg@12"], **common)
    ranking = retrieve(users, items, 40, **common)
    want = evaluate(qrels, _with_ties(ranking, 12), ["recall@5", "ndcg@12"])
    assert got.mean == want.mean == evaluate(qrels, ranking, ["recall@5", "ndcg@12"]).mean
    with pytest.raises(InvalidParameterError, match=r"the metrics \['mrr'\] read the whole list"):
        evaluate_embeddings(qrels, users, items, ["mrr", "p@5"], **common)
    got = evaluate_embeddings(qrels, users, items, ["mrr"], k=40, **common)
    assert got.mean == evaluate(qrels, retrieve(users, items, 40, **common), ["mrr"]).mean
    # a metric of the whole list reads the k items and those tied with the k-th
    got = evaluate_embeddings(qrels, users, items, ["mrr"], k=6, **common)
    assert got.mean == evaluate(qrels, _with_ties(ranking, 6), ["mrr"]).mean


@pytest.mark.parametrize(
    ("metrics", "says"),
    [
        (5, r"must be a metric string or a list of metric strings\. Got 5 instead"),
        (None, r"must be a metric string or a list of metric strings\. Got None instead"),
        ([], r"must name at least one metric\. Got \[\] instead"),
    ],
)
def test_metrics_that_are_no_list_of_strings_are_refused_as_evaluate_refuses_them(metrics, says):
    users, items = np.eye(2, dtype=np.float32), np.eye(2, dtype=np.float32)
    message = r"The 'metrics' parameter of evaluate_embeddings " + says
    with pytest.raises(InvalidParameterError, match=message):
        evaluate_embeddings({0: {1: 1}}, users, items, metrics)
    with pytest.raises(InvalidParameterError, match=message):
        evaluate_embeddings({0: {1: 1}}, users, items, metrics, k=2)


def test_a_metric_evaluate_does_not_compute_is_named_as_such_not_as_a_whole_list():
    users, items = np.eye(2, dtype=np.float32), np.eye(2, dtype=np.float32)
    message = (
        r"evaluate_embeddings: 'auc' is roc_auc, a pointwise metric .*receval\.roc_auc_score\."
    )
    with pytest.raises(InvalidParameterError, match=message):
        evaluate_embeddings({0: {1: 1}}, users, items, ["auc"])


def test_candidates_and_cosine_pass_through():
    users, items, user_ids, item_ids, qrels, train = _data(2)
    users[users.sum(axis=1) == 0] += 1  # no zero vector for the cosine
    users[~users.any(axis=1)] = 1
    items[~items.any(axis=1)] = 1
    rng = np.random.default_rng(3)
    cands = {u: [int(i) for i in rng.choice(item_ids, 12, replace=False)] for u in user_ids}
    common = dict(
        user_ids=user_ids, item_ids=item_ids, exclude=train, candidates=cands, metric="cosine"
    )
    ranking = retrieve(users, items, len(items), **common)
    want = evaluate(qrels, _with_ties(ranking, 10), METRICS)
    got = evaluate_embeddings(qrels, users, items, METRICS, block_users=5, **common)
    assert got.mean == want.mean == evaluate(qrels, ranking, METRICS).mean
    assert got.n_run_items == want.n_run_items


@pytest.mark.parametrize("ids", [{"item_ids": [1, 2, np.nan]}, {"user_ids": [0, np.nan]}])
def test_missing_ids_are_refused(ids):
    users = np.array([[0, 0, 1.0], [0, 1.0, 0]], np.float32)
    with pytest.raises(
        InputValidationError, match=r"evaluate_embeddings: \w+_ids contains 1 missing"
    ):
        evaluate_embeddings({0: {1: 1}}, users, np.eye(3, dtype=np.float32), ["recall@1"], **ids)


@pytest.mark.parametrize(
    ("k", "short"), [(1, ["ndcg@10", "recall@5"]), (5, ["ndcg@10"]), (9, ["ndcg@10"])]
)
def test_a_k_below_a_metrics_cutoff_is_refused(k, short):
    # before: k=5 with ndcg@10 silently evaluated lists of 5 items
    users, items = np.eye(2, dtype=np.float32), np.eye(2, dtype=np.float32)[[0, 1] * 6]
    with pytest.raises(InvalidParameterError) as caught:
        evaluate_embeddings({0: {1: 1}}, users, items, ["ndcg@10", "recall@5"], k=k)
    assert str(caught.value) == (
        f"evaluate_embeddings: k={k} retrieves fewer items than the cutoff of the metrics "
        f"{short}; pass k=10 (their largest cutoff) or more; without k= their largest "
        f"cutoff is retrieved."
    )
    with pytest.raises(InvalidParameterError, match=r"receval.metric\('ndcg@10'\): k=5 "):
        rv.metric("ndcg@10", item_vectors=items, k=5)
    # k at or above every cutoff is taken
    got = evaluate_embeddings({0: {1: 1}}, users, items, ["ndcg@10", "recall@5"], k=10)
    assert got.mean == evaluate_embeddings({0: {1: 1}}, users, items, ["ndcg@10", "recall@5"]).mean

"""evaluate_embeddings() == evaluate(qrels, retrieve(...)), block by block."""

from __future__ import annotations

import numpy as np
import pytest

from receval import (
    InputValidationError,
    InvalidParameterError,
    evaluate,
    evaluate_embeddings,
    retrieve,
)


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


@pytest.mark.parametrize("block_users", [1, 4, 1000])
@pytest.mark.parametrize("ties", [None, "input"])
def test_equals_evaluate_of_the_retrieved_run(block_users, ties):
    users, items, user_ids, item_ids, qrels, train = _data()
    common = dict(user_ids=user_ids, item_ids=item_ids, exclude=train)
    opts = {} if ties is None else {"ties": ties}
    want = evaluate(qrels, retrieve(users, items, 10, **common), METRICS, **opts)
    got = evaluate_embeddings(
        qrels, users, items, METRICS, block_users=block_users, block_items=7, **common, **opts
    )
    assert got.mean == want.mean
    assert got.n_users == want.n_users and got.n_users_missing == want.n_users_missing == 1
    assert got.n_run_only_users == want.n_run_only_users == 3
    assert got.n_users_skipped == want.n_users_skipped
    assert got.n_run_items == want.n_run_items
    assert list(got.users) == list(want.users)
    for m in METRICS:
        np.testing.assert_array_equal(got.values[m], want.values[m])


def test_k_from_the_metrics_and_an_explicit_k():
    users, items, user_ids, item_ids, qrels, _ = _data(1)
    common = dict(user_ids=user_ids, item_ids=item_ids)
    got = evaluate_embeddings(qrels, users, items, ["recall@5", "ndcg@12"], **common)
    want = evaluate(qrels, retrieve(users, items, 12, **common), ["recall@5", "ndcg@12"])
    assert got.mean == want.mean
    with pytest.raises(InvalidParameterError, match=r"the metrics \['mrr'\] read the whole list"):
        evaluate_embeddings(qrels, users, items, ["mrr", "p@5"], **common)
    got = evaluate_embeddings(qrels, users, items, ["mrr"], k=40, **common)
    assert got.mean == evaluate(qrels, retrieve(users, items, 40, **common), ["mrr"]).mean


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
    want = evaluate(qrels, retrieve(users, items, 10, **common), METRICS)
    got = evaluate_embeddings(qrels, users, items, METRICS, block_users=5, **common)
    assert got.mean == want.mean


@pytest.mark.parametrize("ids", [{"item_ids": [1, 2, np.nan]}, {"user_ids": [0, np.nan]}])
def test_missing_ids_are_refused(ids):
    users = np.array([[0, 0, 1.0], [0, 1.0, 0]], np.float32)
    with pytest.raises(
        InputValidationError, match=r"evaluate_embeddings: \w+_ids contains 1 missing"
    ):
        evaluate_embeddings({0: {1: 1}}, users, np.eye(3, dtype=np.float32), ["recall@1"], **ids)

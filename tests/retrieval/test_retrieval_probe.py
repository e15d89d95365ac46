"""Retrieval from embeddings probed against brute force: top k by inner product and
cosine with tied scores (ties by item id ascending), masks, candidates, k beyond the
catalogue, float16 inputs, users without vectors, and ann_recall by sets."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from receval import InputValidationError, ann_recall, evaluate, evaluate_embeddings, retrieve
from tests.oracles.retrieval import scores, top_k

VALUES = st.sampled_from([-2.0, -1.0, 0.0, 0.5, 1.0, 2.0])


@st.composite
def matrices(draw, dim_max=3, zero=True):
    """Small-valued vectors (exact products in float32: many equal scores)."""
    dim = draw(st.integers(1, dim_max))
    n_users, n_items = draw(st.integers(1, 5)), draw(st.integers(1, 9))
    users = np.array(draw(st.lists(st.lists(VALUES, min_size=dim, max_size=dim),
                                   min_size=n_users, max_size=n_users)))  # fmt: skip
    items = np.array(draw(st.lists(st.lists(VALUES, min_size=dim, max_size=dim),
                                   min_size=n_items, max_size=n_items)))  # fmt: skip
    if not zero:
        assume(np.abs(users).sum(axis=1).all() and np.abs(items).sum(axis=1).all())
    return users.reshape(n_users, dim), items.reshape(n_items, dim)


def _lists(run, user_ids):
    d = run.to_dict()
    return [list(d.get(u, {})) for u in user_ids]


@given(matrices(), st.integers(1, 12), st.sampled_from(["float32", "float16", "float64"]),
       st.booleans())  # fmt: skip
def test_dot_top_k_equals_argsort_with_ties_by_item_id(data, k, dtype, string_ids):
    users, items = data
    n_items = len(items)
    ids = np.random.default_rng(n_items).permutation(n_items) * 3 + 5
    item_ids = [f"i{x}" for x in ids] if string_ids else ids.tolist()
    run = retrieve(users.astype(dtype), items.astype(dtype), k, item_ids=item_ids)
    want = top_k(scores(users, items), k, item_ids)
    assert _lists(run, range(len(users))) == want
    assert all(len(lst) == min(k, n_items) for lst in want)


@given(matrices(zero=False), st.integers(1, 12), st.integers(0, 3))
def test_cosine_top_k_of_scaled_copies_ties_by_item_id(data, k, power):
    # an item and its copies scaled by powers of 2 have the same unit vector: a tie in
    # float32 too, ordered by item id ascending; the cut at k is the whole list's
    users, items = data
    n = len(items)
    items = np.concatenate([items, items * 2.0**power, items * 2.0 ** (power + 1)])
    full = retrieve(users, items, len(items), metric="cosine").to_dict()
    run = retrieve(users, items, k, metric="cosine")
    cos = scores(users, items, "cosine")
    for u in range(len(users)):
        got = full[u]
        assert sorted(got) == list(range(len(items)))
        np.testing.assert_allclose([got[i] for i in range(len(items))], cos[u], atol=1e-6)
        assert list(got) == sorted(got, key=lambda i: (-got[i], i))
        for i in range(n):
            assert got[i] == got[i + n] == got[i + 2 * n]
    assert _lists(run, range(len(users))) == [list(full[u])[:k] for u in range(len(users))]


@given(matrices(), st.integers(1, 12), st.data())
def test_exclude_masks_before_the_cut(data, k, draw):
    users, items = data
    n_users, n_items = len(users), len(items)
    excluded = {u: set(draw.draw(st.sets(st.integers(0, n_items - 1)))) for u in range(n_users)}
    pairs = [(u, i) for u, s in excluded.items() for i in s]
    assume(pairs)
    run = retrieve(users, items, k, exclude=([p[0] for p in pairs], [p[1] for p in pairs]))
    want = top_k(scores(users, items), k, list(range(n_items)), excluded=excluded)
    assert _lists(run, range(n_users)) == want


@given(matrices(), st.integers(1, 12), st.data())
def test_candidates_equal_the_dense_search_over_the_same_items(data, k, draw):
    users, items = data
    n_users, n_items = len(users), len(items)
    allowed = {u: set(draw.draw(st.sets(st.integers(0, n_items - 1), min_size=1)))
               for u in range(n_users)}  # fmt: skip
    run = retrieve(users, items, k, candidates={u: sorted(s) for u, s in allowed.items()})
    want = top_k(scores(users, items), k, list(range(n_items)), candidates=allowed)
    assert _lists(run, range(n_users)) == want


def test_a_zero_vector_with_cosine_is_refused_by_its_row():
    users = np.array([[1.0, 0.0], [0.0, 0.0]])
    with pytest.raises(InputValidationError, match="row 1 of user_vectors is a zero vector"):
        retrieve(users, np.eye(2), 1, metric="cosine")
    with pytest.raises(InputValidationError, match="row 0 of item_vectors is a zero vector"):
        retrieve(np.eye(2), np.array([[0.0, 0.0], [1.0, 1.0]]), 1, metric="cosine")
    # the inner product of a zero vector is defined: every item scores 0, ties by id
    run = retrieve(users, np.eye(2), 2, item_ids=["b", "a"])
    assert run.to_dict()[1] == {"a": 0.0, "b": 0.0}
    assert list(run.to_dict()[1]) == ["a", "b"]


def test_float16_values_are_scored_exactly_in_float32():
    users = np.array([[0.1, 0.3]], dtype=np.float16)
    items = np.array([[0.7, 0.2], [0.2, 0.7]], dtype=np.float16)
    run = retrieve(users, items, 2)
    want = scores(users.astype(np.float32), items.astype(np.float32))[0]
    got = run.to_dict()[0]
    assert got[0] == pytest.approx(want[0], rel=1e-7)
    assert got[1] == pytest.approx(want[1], rel=1e-7)


@given(matrices(), st.integers(1, 12), st.sampled_from(["trec", "input", "average"]))
def test_users_without_vectors_are_missing_users_of_the_evaluation(data, k, ties):
    users, items = data
    n_users, n_items = len(users), len(items)
    # every item judged (0 but one), for two users without vectors too
    qrels = {u: {i: int(i == u % n_items) for i in range(n_items)} for u in range(n_users + 2)}
    metrics = [f"recall@{k}", f"ndcg@{k}"]
    report = evaluate_embeddings(qrels, users, items, metrics, ties=ties)
    expected = evaluate(qrels, retrieve(users, items, n_items), metrics, ties=ties)
    assert report.n_users == expected.n_users == n_users + 2
    for m in metrics:
        assert report.mean[m] == pytest.approx(expected.mean[m], abs=1e-12)


LIST = st.lists(st.integers(0, 9), max_size=6, unique=True)


@given(st.lists(st.tuples(LIST, LIST), min_size=1, max_size=4), st.integers(1, 6))
def test_ann_recall_equals_set_intersections(pairs, k):
    exact, approximate = [p[0] for p in pairs], [p[1] for p in pairs]
    assume(any(exact) and any(approximate))
    as_run = [
        {
            u: {i: float(len(lst) - r) for r, i in enumerate(lst)}
            for u, lst in enumerate(lists)
            if lst
        }
        for lists in (exact, approximate)
    ]
    assume(set(as_run[0]) & set(as_run[1]))
    assume({i for lst in exact for i in lst} & {i for lst in approximate for i in lst})
    report = ann_recall(as_run[0], as_run[1], k)
    hits = [len(set(e[:k]) & set(a[:k])) for e, a in zip(exact, approximate, strict=True) if e]
    listed = [len(e[:k]) for e in exact if e]
    assert report.recall == pytest.approx(sum(hits) / sum(listed), abs=1e-12)
    np.testing.assert_allclose(report.values, np.array(hits) / np.array(listed))
    assert report.n_users_missing == sum(1 for e, a in zip(exact, approximate, strict=True)
                                         if e and not a)  # fmt: skip

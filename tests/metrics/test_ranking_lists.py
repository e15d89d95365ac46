"""ndcg_at_k and friends on Python lists: equal to the oracle on each user and to
evaluate() on the same data as containers."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from receval import evaluate, parse_metric
from receval.conventions import Conventions
from receval.exceptions import InputValidationError, InvalidParameterError
from receval.metrics import _ranking as lists
from tests._dlpack import NUMPY_ASKS_A_COPY, DLPackArray
from tests.oracles import ranking as oracle

FUNCS = {
    "precision": lists.precision_at_k,
    "recall": lists.recall_at_k,
    "f1": lists.f1_at_k,
    "success": lists.success_at_k,
    "map": lists.map_at_k,
    "mrr": lists.mrr_at_k,
    "ndcg": lists.ndcg_at_k,
}


def _oracle_mean(name, recommended, relevant, k, **conv):
    c = {**Conventions().as_dict(), **conv}
    values = []
    for items, judged in zip(recommended, relevant, strict=True):
        grades = judged if isinstance(judged, dict) else dict.fromkeys(judged, 1)
        if not any(g >= c["rel_threshold"] for g in grades.values()):
            continue  # empty_users="skip"
        scores = {item: -float(pos) for pos, item in enumerate(items)}  # the list order
        values.append(oracle.one(name, k, c, list(items), grades, scores))
    return float(np.mean(values))


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.lists(st.integers(0, 12), min_size=1, max_size=8, unique=True),
            st.dictionaries(st.integers(0, 12), st.integers(0, 3), min_size=1, max_size=6),
        ),
        min_size=1,
        max_size=6,
    ),
    st.sampled_from([1, 3, 5, None]),
    st.sampled_from(sorted(FUNCS)),
    st.sampled_from(["linear", "exponential"]),
)
def test_lists_equal_oracle(users, k, name, gain):
    recommended = [u[0] for u in users]
    relevant = [u[1] for u in users]
    assume(any(g >= 1 for r in relevant for g in r.values()))
    # gain= is given to the metrics that read it (the others refuse it)
    conv = {"gain": gain} if "gain" in parse_metric(name).info.conventions else {}
    got = FUNCS[name](recommended, relevant, k=k, **conv)
    assert got == pytest.approx(_oracle_mean(name, recommended, relevant, k, **conv), abs=1e-12)


@pytest.mark.parametrize("name", sorted(FUNCS))
def test_a_top_k_tensor_equals_its_lists(name):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(5)
    scores = torch.from_numpy(rng.random((30, 50)))
    top = torch.topk(scores, 10).indices  # one row per user, best first
    relevant = [set(rng.choice(50, 4, replace=False).tolist()) for _ in range(30)]
    want = FUNCS[name](top.tolist(), relevant, k=5)
    assert FUNCS[name](top, relevant, k=5) == want
    if NUMPY_ASKS_A_COPY:  # on a GPU: copied to the host through DLPack
        assert FUNCS[name](DLPackArray(top.numpy(), (2, 0), True), relevant, k=5) == want


def test_one_user_and_sets_and_evaluate():
    assert lists.precision_at_k(["a", "b", "c"], {"c"}, k=3) == pytest.approx(1 / 3)
    assert lists.ndcg_at_k([3, 1, 2], {1: 1}, k=None) == pytest.approx(1 / np.log2(3))
    recommended = [["a", "b", "c"], ["c", "a"]]
    relevant = [{"a": 2, "z": 1}, ["a"]]
    report = evaluate({0: {"a": 2, "z": 1}, 1: {"a": 1}},
                      {0: {"a": 3, "b": 2, "c": 1}, 1: {"c": 2, "a": 1}},
                      ["ndcg@2", "pooled_hit_ratio@2", "map@3"])  # fmt: skip
    assert lists.ndcg_at_k(recommended, relevant, k=2) == report.mean["ndcg@2"]
    pooled = report.mean["pooled_hit_ratio@2"]
    assert lists.pooled_hit_ratio_at_k(recommended, relevant, k=2) == pooled
    with pytest.warns(FutureWarning, match="pooled_hit_ratio_at_k;.* success_at_k"):
        assert lists.hit_ratio_at_k(recommended, relevant, k=2) == pooled
    assert lists.map_at_k(recommended, relevant, k=3) == report.mean["map@3"]
    # conventions pass through
    assert lists.map_at_k(["x", "a"], {"a", "b", "c"}, k=2, ap_normalizer="min_k") == 0.25


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "message"),
    [
        ((["a"], {"a"}), {"k": 0}, InvalidParameterError,
         r"^The 'k' parameter of ndcg_at_k must be an int >= 1 or None"),
        ((["a"], {"a"}), {"k": 2.5}, InvalidParameterError, r"'k' parameter"),
        (([["a"], ["b"]], [{"a"}]), {"k": 1}, InputValidationError,
         r"^ndcg_at_k: recommended and relevant must have one entry per user. Got lengths"),
        (([["a"], ["b"]], {"a"}), {"k": 1}, InputValidationError,
         r"^ndcg_at_k: recommended holds 2 lists, so relevant must be a list"),
        (("abc", {"a"}), {"k": 1}, InputValidationError, r"^ndcg_at_k: recommended must be a list"),
        (([[], []], [{"a"}, {"b"}]), {"k": 1}, InputValidationError, r"recommended holds no item"),
        ((["a"], set()), {"k": 1}, InputValidationError, r"relevant holds no item"),
        ((["a", "a"], {"a"}), {"k": 1}, InputValidationError, r"has item 'a' more than once"),
        ((["a"], {"a"}), {"k": 1, "gain": "cubic"}, InvalidParameterError, r"'gain' parameter"),
    ],
)  # fmt: skip
def test_errors(args, kwargs, error, message):
    with pytest.raises(error, match=message):
        lists.ndcg_at_k(*args, **kwargs)


def test_k_is_required():
    with pytest.raises(TypeError, match="k"):
        lists.ndcg_at_k(["a"], {"a"})  # type: ignore[call-arg]


@pytest.mark.parametrize("name", sorted(FUNCS))
def test_a_user_without_relevant_items_follows_empty_users(name):
    # an empty relevant collection is a user without a relevant item, which empty_users
    # (or a profile's) skips or scores, as evaluate does with {user: {}}; the user was
    # dropped as if it had no list, whatever empty_users said
    recommended, relevant = [["a", "b"], ["c", "d"]], [{"a"}, set()]
    qrels = {0: {"a": 1}, 1: {}}
    run = {0: {"a": 2.0, "b": 1.0}, 1: {"c": 2.0, "d": 1.0}}
    for conv in ({}, {"empty_users": "zero"}, {"empty_users": "one"}, {"profile": "lightgbm"}):
        want = evaluate(qrels, run, [f"{name}@2"], **conv).mean[f"{name}@2"]
        assert FUNCS[name](recommended, relevant, k=2, **conv) == want, conv
    assert lists.precision_at_k(recommended, relevant, k=2, empty_users="zero") == 0.25


def test_users_all_without_relevant_items_are_scored_unless_skipped():
    assert lists.ndcg_at_k([["a"], ["b"]], [set(), {}], k=1, empty_users="zero") == 0.0
    assert lists.ndcg_at_k([["a"], ["b"]], [set(), {}], k=1, profile="lightgbm") == 1.0
    with pytest.raises(InputValidationError, match="relevant holds no item, so every user"):
        lists.ndcg_at_k([["a"], ["b"]], [set(), {}], k=1, profile="recbole")

"""Groups (users) split across updates and accumulators: ``gauc`` and ranking metrics.

Rows are shuffled, cut into random batches, spread over 1 to 4 accumulators and
merged in a random order: ``compute()`` must ``==`` the function on all the rows.
``whole_groups=True`` keeps the state of whole groups, which refuses a repeat.
"""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval as rv
from receval.exceptions import InputValidationError, InvalidParameterError, UndefinedMetricWarning

SCORES = [0.0, 0.1, 0.5, 0.9, 1.0]


def _same(a: float, b: float) -> bool:
    return a == b or (np.isnan(a) and np.isnan(b))


def _spread(draw, n: int) -> tuple[list[np.ndarray], list[int], list[int]]:
    """Random batches of ``range(n)`` (rows shuffled), the accumulator of each batch
    (1 to 4 of them) and an order in which to merge the accumulators."""
    order = np.array(draw(st.permutations(range(n))), dtype=np.int64)
    n_cuts = draw(st.integers(0, min(6, max(n - 1, 0))))
    cuts = sorted(draw(st.lists(st.integers(1, max(n - 1, 1)), min_size=n_cuts,
                                max_size=n_cuts, unique=True))) if n > 1 else []  # fmt: skip
    batches = np.split(order, cuts)
    n_acc = draw(st.integers(1, 4))
    owner = [draw(st.integers(0, n_acc - 1)) for _ in batches]
    merge_order = draw(st.permutations(range(n_acc)))
    return batches, owner, list(merge_order)


def _merged(accs: list, merge_order: list[int]):
    first, *rest = (accs[i] for i in merge_order)
    for other in rest:
        first.merge(other)
    return first


@st.composite
def gauc_cases(draw):
    n = draw(st.integers(2, 60))
    n_groups = draw(st.integers(1, 8))
    codes = np.array(draw(st.lists(st.integers(0, n_groups - 1), min_size=n, max_size=n)))
    labels = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    scores = np.array(draw(st.lists(st.sampled_from(SCORES), min_size=n, max_size=n)))
    ids = draw(st.sampled_from(["int", "str", "big"]))
    groups = {"int": codes * 7 - 3, "str": np.array([f"user{c}" for c in codes]),
              "big": codes.astype(np.uint64) + np.uint64(2**63)}[ids]  # fmt: skip
    weights = None
    if draw(st.booleans()):
        weights = np.array(draw(st.lists(st.sampled_from([0.5, 1.0, 2.0, 3.0]), min_size=n,
                                         max_size=n)))  # fmt: skip
    weighting = draw(st.sampled_from(["impressions", "clicks", "uniform"]))
    return labels, scores, groups, weights, weighting, _spread(draw, n)


@settings(deadline=None)
@given(gauc_cases())
def test_gauc_of_split_groups_equals_the_function(case):
    labels, scores, groups, weights, weighting, (batches, owner, merge_order) = case
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        expected = rv.gauc_score(labels, scores, groups=groups, sample_weight=weights,
                                 weighting=weighting)  # fmt: skip
        accs = [rv.metric("gauc", weighting=weighting) for _ in merge_order]
        for rows, i in zip(batches, owner, strict=True):
            accs[i].update(labels[rows], scores[rows], groups=groups[rows],
                           sample_weight=None if weights is None else weights[rows])  # fmt: skip
        got = _merged(accs, merge_order).compute()
    assert _same(got, expected)


@st.composite
def ranking_cases(draw):
    n_users, n_items = draw(st.integers(1, 6)), draw(st.integers(1, 8))
    pairs = st.tuples(st.integers(0, n_users - 1), st.integers(0, n_items - 1))
    judged = draw(st.lists(pairs, min_size=1, max_size=25, unique=True))
    ranked = draw(st.lists(pairs, min_size=1, max_size=35, unique=True))
    grades = draw(st.lists(st.integers(0, 2), min_size=len(judged), max_size=len(judged)))
    scores = draw(st.lists(st.sampled_from(SCORES), min_size=len(ranked), max_size=len(ranked)))
    as_str = draw(st.booleans())

    def name(kind: str, x: int):
        return f"{kind}{x}" if as_str else x

    qrels = [(name("u", u), name("d", i), g) for (u, i), g in zip(judged, grades, strict=True)]
    run = [(name("u", u), name("d", i), s) for (u, i), s in zip(ranked, scores, strict=True)]
    # one cut of the qrels rows and one of the run rows per batch
    n = max(len(qrels), len(run))
    batches, owner, merge_order = _spread(draw, n)
    metric = draw(st.sampled_from(["ndcg@3", "map", "mrr", "recall@2", "precision@2",
                                   "ndcg(gain=exponential)@5", "success@1"]))  # fmt: skip
    return qrels, run, batches, owner, merge_order, metric


def _nested(rows) -> dict:
    out: dict = {}
    for user, item, value in rows:
        out.setdefault(user, {})[item] = value
    return out


@settings(deadline=None)
@given(ranking_cases())
def test_ranking_of_split_users_equals_evaluate(case):
    qrels, run, batches, owner, merge_order, metric = case
    with warnings.catch_warnings():  # few ids: often none in common (the value is 0)
        warnings.simplefilter("ignore", rv.UnmatchedIdsWarning)
        expected = rv.evaluate(_nested(qrels), _nested(run), [metric], missing_users="zero",
                               allow_unmatched=True)  # fmt: skip
    accs = [rv.metric(metric, missing_users="zero", allow_unmatched=True) for _ in merge_order]
    for rows, i in zip(batches, owner, strict=True):
        # a batch may hold qrels rows only, run rows only ({}: none), or both
        accs[i].update(_nested([qrels[r] for r in rows if r < len(qrels)]),
                       _nested([run[r] for r in rows if r < len(run)]))  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rv.UnmatchedIdsWarning)
        value = _merged(accs, merge_order).compute()
    assert _same(value, expected.mean[metric])


# ------------------------------------------------------------------ cases by hand
Y = np.array([1, 0, 0, 1, 1, 0, 0, 1])
S = np.array([0.9, 0.3, 0.5, 0.5, 0.4, 0.8, 0.2, 0.1])


@pytest.mark.parametrize(
    "groups",
    [np.array([3, 3, 3, 5, 5, 5, 9, 9]), np.array(["a", "a", "a", "b", "b", "b", "c", "c"])],
)
def test_a_group_split_across_two_accumulators_is_joined(groups):
    expected = rv.gauc_score(Y, S, groups=groups)
    a, b = rv.metric("gauc"), rv.metric("gauc")
    a.update(Y[[0, 3, 6]], S[[0, 3, 6]], groups=groups[[0, 3, 6]])
    b.update(Y[[1, 2, 4, 5, 7]], S[[1, 2, 4, 5, 7]], groups=groups[[1, 2, 4, 5, 7]])
    assert a.merge(b).compute() == expected
    # each half alone has groups of one class: not the same value
    assert rv.metric("gauc").update(Y[:4], S[:4], groups=groups[:4]).compute() != expected


def test_compute_then_more_updates_then_compute():
    groups = np.array([1, 1, 2, 2, 1, 2, 3, 3])
    acc = rv.metric("gauc", weighting="clicks")
    acc.update(Y[:3], S[:3], groups=groups[:3])
    assert acc.compute() == rv.gauc_score(Y[:3], S[:3], groups=groups[:3], weighting="clicks")
    acc.update(Y[3:6], S[3:6], groups=groups[3:6])
    assert acc.compute() == rv.gauc_score(Y[:6], S[:6], groups=groups[:6], weighting="clicks")
    acc.update(Y[6:], S[6:], groups=groups[6:])
    assert acc.compute() == rv.gauc_score(Y, S, groups=groups, weighting="clicks")
    assert acc.compute() == rv.gauc_score(Y, S, groups=groups, weighting="clicks")


def test_per_row_group_weights_across_updates():
    groups = np.array([1, 1, 2, 2, 1, 2, 3, 3])
    per_row = np.array([2.0, 2.0, 5.0, 5.0, 2.0, 5.0, 1.0, 1.0])
    acc = rv.metric("gauc")
    for part in (slice(0, 3), slice(3, 8)):
        acc.update(Y[part], S[part], groups=groups[part], weighting=per_row[part])
    assert acc.compute() == rv.gauc_score(Y, S, groups=groups, weighting=per_row)
    acc.update(Y[:1], S[:1], groups=[2], weighting=[4.0])
    with pytest.raises(InputValidationError, match=r"constant within each group.*\[2\] between"):
        acc.compute()


def test_pickled_open_groups_round_trip_and_take_more_rows():
    groups = np.array(["a", "a", "b", "b", "a", "b", "c", "c"], dtype=object)
    acc = rv.metric("gauc")
    acc.update(Y[:3], S[:3], groups=groups[:3], sample_weight=np.arange(1.0, 4.0))
    back = pickle.loads(pickle.dumps(acc))
    assert back.compute() == acc.compute()
    for a in (acc, back):
        a.update(Y[3:], S[3:], groups=groups[3:], sample_weight=np.arange(4.0, 9.0))
    want = rv.gauc_score(Y, S, groups=groups, sample_weight=np.arange(1.0, 9.0))
    assert back.compute() == acc.compute() == want


def test_pickled_open_users_round_trip_and_take_more_rows():
    acc = rv.metric("ndcg@3")
    acc.update({"u": {"a": 1}}, {"u": {"a": 0.2, "b": 0.9}, "v": {"a": 0.5}})
    back = pickle.loads(pickle.dumps(acc))
    assert back.compute() == acc.compute()
    for a in (acc, back):
        a.update({"u": {"c": 2}, "v": {"b": 1}}, {"u": {"c": 0.5}, "v": {}})
    qrels = {"u": {"a": 1, "c": 2}, "v": {"b": 1}}
    run = {"u": {"a": 0.2, "b": 0.9, "c": 0.5}, "v": {"a": 0.5}}
    assert back.compute() == acc.compute() == rv.evaluate(qrels, run, ["ndcg@3"]).mean["ndcg@3"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda s: s["_state"].update(codes=s["_state"]["codes"] + 5), r"OpenGroups\.codes must"),
        (lambda s: s["_state"].update(labels=s["_state"]["labels"] * 2), r"labels must be 0 or 1"),
        (lambda s: s["_state"].pop("scores"), r"OpenGroups: expected the fields"),
        (lambda s: s["_state"].update(weights=np.full(3, -1.0)), r"weights must be finite"),
        (lambda s: s["_state"].update(ids=np.array([4, 4])), r"OpenGroups\.ids must be distinct"),
        (lambda s: s["_state"].update(scores=np.array([0.5, np.inf, 0.1])),
         r"OpenGroups\.scores must be finite"),
        (lambda s: s["_state"].update(weights=np.ones(2)), r"weights has 2 elements"),
        (lambda s: s["_state"].update(group_weight=np.ones(3)), r"group_weight has 3 elements"),
    ],
)  # fmt: skip
def test_tampered_open_groups_are_refused_naming_the_field(change, message):
    acc = rv.metric("gauc").update(Y[:3], S[:3], groups=[1, 1, 2], sample_weight=[1.0, 2, 3])
    state = acc.__getstate__()
    state["_state"] = state["_state"].__getstate__()
    change(state)

    def rebuilt():
        from receval.metrics._gauc_open import OpenGroups

        out = OpenGroups.__new__(OpenGroups)
        out.__setstate__(state["_state"])

    with pytest.raises(InputValidationError, match=message):
        rebuilt()


def test_an_item_given_twice_for_a_user_names_them():
    acc = rv.metric("ndcg@10")
    acc.update({"u": {"a": 1}}, {"u": {"a": 0.5, "b": 0.1}})
    acc.update({"u": {"c": 1}}, {"u": {"b": 0.3}})
    with pytest.raises(InputValidationError, match=r"user 'u' has item 'b' in two updates of "
                                                   r"the run"):  # fmt: skip
        acc.compute()
    other = rv.metric("ndcg@10").update({"u": {"a": 2}}, {"u": {"c": 0.5}})
    with pytest.raises(InputValidationError, match=r"user 'u' has item 'a' in two updates of "
                                                   r"the qrels"):  # fmt: skip
        rv.metric("ndcg@10").update({"u": {"a": 1}}, {"u": {"a": 0.5}}).merge(other).compute()


def test_whole_groups_still_refuses_a_repeated_group():
    acc = rv.metric("gauc", whole_groups=True)
    acc.update(Y[:4], S[:4], groups=[1, 1, 2, 2])
    with pytest.raises(InputValidationError, match=r"1 group of groups was given twice .* "
                       r"e\.g\. \[2\]; .*or leave out whole_groups=True"):  # fmt: skip
        acc.update(Y[4:], S[4:], groups=[2, 3, 3, 3])
    ranking = rv.metric("ndcg@3", whole_groups=True).update({"u": {"a": 1}}, {"u": {"a": 0.5}})
    with pytest.raises(
        InputValidationError, match=r"1 user of qrels and run was given twice .*\['u'\]"
    ):
        ranking.update({"u": {"b": 1}}, {"u": {"b": 0.5}})
    # the split state and the whole one are different states: they do not merge
    with pytest.raises(InvalidParameterError, match="cannot merge"):
        rv.metric("gauc").merge(rv.metric("gauc", whole_groups=True))


def test_whole_groups_option_is_checked():
    with pytest.raises(InvalidParameterError, match="'whole_groups' parameter of metric must be"):
        rv.metric("gauc", whole_groups="yes")
    with pytest.raises(InvalidParameterError, match="needs whole users"):
        rv.metric("pop_rsp@10", popularity={"a": 1}, whole_groups=False)
    assert rv.metric("roc_auc", whole_groups=True).params == rv.metric("roc_auc").params


def test_memory_is_reported():
    rng = np.random.default_rng(0)
    n = 10_000
    y, s, g = rng.integers(0, 2, n), rng.random(n), rng.integers(0, 1000, n)
    split, whole = rv.metric("gauc"), rv.metric("gauc", whole_groups=True)
    for acc in (split, whole):
        acc.update(y, s, groups=g)
    # 13 bytes a row (u32 group code, i8 label, float64 score; one update: no spare
    # capacity) and the table of the ids (a page of 4,096 codes of 4 bytes)
    ids = 4 * 4096
    assert 13 * n + ids < split.memory_bytes < 13 * n + ids + 2048
    assert 0 < whole.memory_bytes < split.memory_bytes
    assert rv.metric("ndcg@10").update({"u": {"a": 1}}, {"u": {"a": 0.5}}).memory_bytes > 0
    # scores that are float32 exactly are held so: 9 bytes a row
    narrow = rv.metric("gauc").update(y, s.astype(np.float32), groups=g)
    assert 9 * n + ids < narrow.memory_bytes < 9 * n + ids + 2048
    assert narrow.compute() == rv.gauc_score(y, s.astype(np.float32), groups=g)
    assert narrow.state.rows.rows()[2].dtype == np.float32
    # sample weights: 4 bytes more a row while each is a float32 (weights in every update)
    narrow = rv.metric("gauc").update(y, s.astype(np.float32), groups=g, sample_weight=np.ones(n))
    assert 13 * n + ids < narrow.memory_bytes < 13 * n + ids + 2048
    narrow.update(y, s.astype(np.float32), groups=g, sample_weight=np.full(n, 0.5))
    assert narrow.state.rows.rows()[3].dtype == np.float32
    want = rv.gauc_score(np.r_[y, y], np.r_[s, s].astype(np.float32), groups=np.r_[g, g],
                         sample_weight=np.r_[np.ones(n), np.full(n, 0.5)])  # fmt: skip
    assert narrow.compute() == want


def test_the_ids_of_many_updates_are_held_once():
    """The group ids are coded in one table as updates come (not kept per update):
    300 updates of the same 1,000 groups hold the rows and one table of the ids."""
    rng = np.random.default_rng(1)
    acc, parts = rv.metric("gauc"), []
    for _ in range(300):
        y, s, g = rng.integers(0, 2, 1000), rng.random(1000), rng.permutation(1000) * 3
        acc.update(y, s, groups=g)
        parts.append((y, s, g))
    y, s, g = (np.concatenate(c) for c in zip(*parts, strict=True))
    # 13 bytes a row (in chunks of 64K rows: the last one's room at most) and a page
    # of 4,096 codes for the ids up to 3,000
    assert acc.memory_bytes < 13 * (len(y) + 2**16) + 4 * 4096 + 4096
    assert acc.compute() == rv.gauc_score(y, s, groups=g)
    assert acc.state.rows.n_groups == 1000


def test_per_row_group_weights_given_in_some_updates_only_are_refused():
    groups = np.array([1, 1, 2, 2, 1, 2, 3, 3])
    per_row = np.array([2.0, 2.0, 5.0, 5.0, 2.0, 5.0, 1.0, 1.0])
    a, b = rv.metric("gauc"), rv.metric("gauc")
    a.update(Y[:4], S[:4], groups=groups[:4], weighting=per_row[:4])
    b.update(Y[4:], S[4:], groups=groups[4:])
    merged = a.merge(b)
    for call in (merged.compute, lambda: pickle.dumps(merged)):
        with pytest.raises(InputValidationError, match="per-row array of group weights in some"):
            call()
    # the same weights split across accumulators: the function's value
    a = rv.metric("gauc").update(Y[:4], S[:4], groups=groups[:4], weighting=per_row[:4])
    b = rv.metric("gauc").update(Y[4:], S[4:], groups=groups[4:], weighting=per_row[4:])
    assert b.merge(a).compute() == rv.gauc_score(Y, S, groups=groups, weighting=per_row)


def test_a_window_of_split_groups():
    groups = np.array([1, 1, 2, 2, 1, 2, 3, 3])
    acc = rv.metric("gauc", window=2)
    for part in (slice(0, 3), slice(3, 5), slice(5, 8)):
        acc.update(Y[part], S[part], groups=groups[part])
    assert acc.compute_window() == rv.gauc_score(Y[3:], S[3:], groups=groups[3:])
    assert acc.compute() == rv.gauc_score(Y, S, groups=groups)


def _halves(data: dict) -> tuple[dict, dict]:
    """Each user's items cut in two (a user with one item in the first half only)."""
    first, second = {}, {}
    for user, items in data.items():
        pairs = list(items.items())
        half = len(pairs) // 2
        if pairs[:half]:
            first[user] = dict(pairs[:half])
        second[user] = dict(pairs[half:])
    return first, second


def _ranking_data():
    rng = np.random.default_rng(3)
    qrels = {f"u{u}": {f"d{i}": int(rng.integers(1, 3)) for i in rng.choice(30, 5, replace=False)}
             for u in range(40)}  # fmt: skip
    run = {u: {f"d{i}": float(rng.choice(SCORES)) for i in rng.choice(30, 10, replace=False)}
           for u in list(qrels)[:35]}  # fmt: skip
    popularity = {f"d{i}": int(rng.integers(1, 50)) for i in range(30)}
    return qrels, run, popularity


@pytest.mark.parametrize(
    ("metric", "options"),
    [
        ("arp@10", "popularity"),
        ("ndcg@5", "propensities"),
        ("ndcg@5", {"profile": "trec_eval"}),
        ("map@10", {"profile": "ranx"}),
        ("ndcg@10", {"ties": "average", "gain": "exponential"}),
        ("recall@5", {"missing_users": "skip"}),
    ],
)
def test_conventions_popularity_and_propensities_with_users_split(metric, options):
    qrels, run, popularity = _ranking_data()
    if options == "popularity":
        options = {"popularity": popularity}
    elif options == "propensities":
        options = {"propensities": {k: 1 / (v + 1) for k, v in popularity.items()}}
    expected = rv.evaluate(qrels, run, [metric], **options).mean[metric]
    (q1, q2), (r1, r2) = _halves(qrels), _halves(run)
    acc = rv.metric(metric, **options)
    # each user's judgments and recommendations in both updates; the run's rows in
    # their order (ranx's ties="input" ranks tied items in the order they arrive)
    acc.update(q2, r1)
    acc.update(q1, r2)
    assert acc.compute() == expected


def test_a_listwise_metric_of_split_users():
    _, run, popularity = _ranking_data()
    expected = rv.evaluate(None, run, ["arp@10"], popularity=popularity).mean["arp@10"]
    first, second = _halves(run)
    a, b = rv.metric("arp@10", popularity=popularity), rv.metric("arp@10", popularity=popularity)
    a.update(None, first)
    b.update(None, second)
    assert b.merge(a).compute() == expected
    a.update({"u0": {"d1": 1}}, {"u0": {"d1": 0.5}})
    with pytest.raises(InputValidationError, match="some updates give qrels and others none"):
        a.compute()


def _plain(value, where: str = "state") -> None:
    """Only NumPy arrays of numbers or strings, ints, floats, bools, str and None,
    in dicts, lists and tuples (what a checkpoint of the state may hold)."""
    if isinstance(value, dict):
        for key, x in value.items():
            _plain(x, f"{where}[{key!r}]")
    elif isinstance(value, (list, tuple)):
        for i, x in enumerate(value):
            _plain(x, f"{where}[{i}]")
    elif isinstance(value, np.ndarray):
        assert value.dtype != object, where
    else:
        assert value is None or isinstance(value, (bool, int, float, str)), where


def test_open_states_pickle_as_plain_arrays():
    gauc = rv.metric("gauc").update([1, 0, 1], [0.1, 0.5, 0.3],
                                    groups=np.array(["a", "b", "a"], dtype=object))  # fmt: skip
    gauc.update([0], [0.2], groups=["a"])
    ranking = rv.metric("ndcg@3").update({"u": {"a": 1}}, {"u": {"a": 0.2, "b": 0.1}})
    ranking.update({"v": {"a": 1}}, {"u": {"c": 0.4}})
    for acc in (gauc, ranking):
        _plain(acc.state.__getstate__())
        assert pickle.loads(pickle.dumps(acc)).compute() == acc.compute()


@pytest.mark.parametrize("whole_groups", [False, True])
def test_a_named_weighting_given_to_update_is_the_accumulators_or_refused(whole_groups):
    # with whole_groups=True the batch's groups took its weighting: groups of one
    # accumulator weighed by impressions and by clicks, silently
    y, p, g = np.array([1, 0, 1, 0]), np.array([0.9, 0.2, 0.3, 0.4]), np.array([1, 1, 2, 2])
    acc = rv.metric("gauc", weighting="uniform", whole_groups=whole_groups)
    same = acc.update(y, p, groups=g, weighting="uniform").compute()
    assert same == rv.gauc_score(y, p, groups=g, weighting="uniform")
    for other in ("uniform", {1: 1.0, 2: 3.0}):
        fresh = rv.metric("gauc", whole_groups=whole_groups)
        with pytest.raises(InputValidationError, match="differs from the accumulator's weighting"):
            fresh.update(y, p, groups=g, weighting=other)
        with pytest.raises(InputValidationError, match="differs from the accumulator's weighting"):
            fresh.update(y[:0], p[:0], groups=g[:0], weighting=other)


def test_compute_takes_a_named_weighting_as_the_option():
    # receval.compute gave it to each batch: a string's weighting silently overridden
    y, p, g = (
        np.array([1, 0, 0, 1, 0, 1]),
        np.array([0.9, 0.3, 0.5, 0.2, 0.4, 0.8]),
        [1, 1, 1, 2, 2, 2],
    )
    clicks = rv.gauc_score(y, p, groups=g, weighting="clicks")
    assert rv.compute("gauc", y, p, groups=g, weighting="clicks") == clicks
    mapped = {1: 1.0, 2: 5.0}
    assert rv.compute("gauc", y, p, groups=g, weighting=mapped) == rv.gauc_score(
        y, p, groups=g, weighting=mapped
    )
    per_row = [1.0, 1.0, 1.0, 5.0, 5.0, 5.0]
    assert rv.compute("gauc", y, p, groups=g, weighting=per_row) == rv.gauc_score(
        y, p, groups=g, weighting=per_row
    )
    with pytest.raises(InvalidParameterError, match="weighting is given both"):
        rv.compute("gauc(weighting=clicks)", y, p, groups=g, weighting="uniform")


def test_by_segment_applies_gauc_options_to_split_group_accumulators():
    rng = np.random.default_rng(3)
    y, p = rng.integers(0, 2, 200), rng.random(200)
    g, by = rng.integers(0, 15, 200), np.arange(200) % 2
    report = rv.by_segment(["gauc"], y, p, by=by, groups=g, weighting="clicks")
    for i in (0, 1):
        m = by == i
        want = rv.gauc_score(y[m], p[m], groups=g[m], weighting="clicks")
        assert report.values["gauc"][i] == want


def test_gauc_batches_of_every_input_kind_join_their_groups():
    """Batches the core checks in one pass (NumPy labels, float scores, integer ids of
    any width) and batches the full checks take (lists, float ids) hold the same
    groups: joined by value, the function's value; a bad batch raises the full
    checks' message and adds nothing."""
    rng = np.random.default_rng(3)
    n = 3_000
    y = rng.integers(0, 2, n).astype(np.int8)
    s = rng.integers(0, 64, n) / 64.0  # exact in float32
    g = rng.integers(0, 40, n)
    expected = rv.gauc_score(y, s, groups=g)
    acc = rv.metric("gauc")
    kinds = [
        lambda r: (y[r], s[r], g[r]),
        lambda r: (y[r].astype(bool), s[r].astype(np.float32), g[r].astype(np.int32)),
        lambda r: (y[r].astype(np.int64), s[r], g[r].astype(np.int8)),
        lambda r: (y[r], s[r], g[r].astype(np.uint64)),
        lambda r: (y[r].tolist(), s[r].tolist(), g[r].tolist()),
        lambda r: (y[r], s[r], g[r].astype(np.float64)),
    ]
    for i, rows in enumerate(np.array_split(rng.permutation(n), 12)):
        labels, scores, groups = kinds[i % len(kinds)](rows)
        acc.update(labels, scores, groups=groups)
        bad = np.array(labels, dtype=np.int64)
        bad[0] = 2
        with pytest.raises(
            InputValidationError, match=r"y_true must be binary. Got values \[0, 1, 2\]"
        ):
            acc.update(bad, scores, groups=groups)
        nan = np.array(scores, dtype=np.float64)
        nan[-1] = np.nan
        with pytest.raises(InputValidationError, match="y_score contains NaN"):
            acc.update(labels, nan, groups=groups)
        with pytest.raises(InputValidationError, match="must have the same length"):
            acc.update(labels, scores, groups=np.array(groups)[:-1])
        with pytest.raises(InvalidParameterError, match="Got sample_weight in this update"):
            acc.update(labels, scores, groups=groups, sample_weight=np.ones(len(rows) - 1))
    assert acc.compute() == expected


def test_group_ids_of_another_type_than_those_held_are_refused() -> None:
    # the int 1 and the str "1" were one group: 0.8333 where gauc_score refuses the rows
    message = (
        "Accumulator.{step} of 'gauc': groups must hold ids of one type in every update and merge: "
        "numbers (ints or floats) or strings. Got strings in {where}, integers before; convert "
        "them to one type in every update, e.g. groups = groups.astype(str)."
    )
    ints = rv.metric("gauc").update([1, 0], [0.9, 0.1], groups=[1, 1])
    strs = rv.metric("gauc").update([0, 1, 0], [0.8, 0.3, 0.2], groups=["1", "1", "1"])
    with pytest.raises(InputValidationError) as caught:
        ints.update(np.array([0, 1, 0]), np.array([0.8, 0.3, 0.2]), groups=np.array(["1"] * 3))
    assert str(caught.value) == message.format(step="update", where="this update")
    for held in (ints, pickle.loads(pickle.dumps(ints))):  # the type is read back after a load
        with pytest.raises(InputValidationError) as caught:
            held.merge(strs)
        assert str(caught.value) == message.format(step="merge", where="the accumulator merged")
        assert held.compute() == 1.0 and held.n_updates == 1  # left as it was
    assert ints.update([0, 1], [0.8, 0.3], groups=[1.0, 1.0]).compute() == 0.75  # whole floats

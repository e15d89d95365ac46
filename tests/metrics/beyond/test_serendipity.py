"""Serendipity (Recommenders', RecTools'), intersection and Steck's miscalibration.

Hand-computed values, the slow oracles of tests/oracles/serendipity.py on random
cases drawn from few items (shared histories, equal popularity counts, repeated
lists), and the errors. Peer values: tests/peers/test_serendipity_suite.py.
"""

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import receval as rv
from receval.exceptions import InputValidationError, InvalidParameterError, UndefinedMetricWarning
from receval.metrics.beyond import serendipity as ser_module
from tests.oracles import serendipity as oracle

# lists without a judged item are the subject of some cases: evaluate warns (the warning
# is tested in tests/ranking/test_evaluate_matching.py)
pytestmark = pytest.mark.filterwarnings("ignore::receval.exceptions.UnmatchedIdsWarning")

R2 = 1 / math.sqrt(2)


def _flat(nested):
    """{(user, item): value} of {user: {item: value}} (approx compares flat mappings)."""
    return {(u, i): x for u, d in nested.items() for i, x in d.items()}


# ---------------------------------------------------------------- hand-computed
def test_serendipity_cooccurrence_by_hand():
    # n_a = 2, n_b = n_c = 1; c(a, c) = 1, c(b, c) = 0: S(c, a) = 1/sqrt(2), S(c, b) = 0
    train = {"u1": ["a", "b"], "u2": ["a", "c"]}
    run = {"u1": {"c": 0.9, "d": 0.5}, "u2": {"b": 0.8}, "u3": {"a": 1.0}}
    per_item = rv.user_item_serendipity(run, train)
    assert _flat(per_item) == pytest.approx(
        _flat({"u1": {"c": 1 - R2 / 2, "d": 1.0}, "u2": {"b": 1 - R2 / 2}})
    )
    value = rv.serendipity(run, train)
    assert value == pytest.approx(((1 - R2 / 2 + 1) / 2 + 1 - R2 / 2) / 2)
    assert (value.n_users, value.n_users_skipped) == (3, 1)  # u3 has no history
    assert rv.serendipity(run, train, k=1) == pytest.approx(1 - R2 / 2)


@pytest.mark.parametrize("method", ["pairs", "users"])
def test_serendipity_of_an_item_like_the_whole_history_is_exactly_zero(method, monkeypatch):
    # a has the users {u, v}, as itself: S(a, a) = 2 / sqrt(2 * 2) = 1 exactly, and
    # 1 - 1/1 is 0 (a factored 2 * (1/sqrt(2)) * (1/sqrt(2)) made it 2.2e-16)
    monkeypatch.setattr(ser_module, "COOCCURRENCE_METHOD", method)
    got = rv.user_item_serendipity({"u": {"a": 1, "b": 0.5}}, {"u": ["a"], "v": ["a", "b"]})
    assert got["u"]["a"] == 0.0
    assert got["u"]["b"] == 1 - 1 / math.sqrt(2 * 1)
    # two history items with the same users as the recommended one: 1 - 2/2
    train = {"u": ["a", "b"], "v": ["a", "b"], "w": ["c"]}
    assert rv.user_item_serendipity({"u": {"b": 1}}, train) == {"u": {"b": 0.0}}


def test_serendipity_relevance_and_threshold():
    train = {"u1": ["a", "b"], "u2": ["a", "c"]}
    run = {"u1": {"c": 0.9, "d": 0.5}}
    qrels = {"u1": {"c": 2, "d": 1}}
    assert rv.serendipity(run, train, qrels=qrels) == pytest.approx((1 - R2 / 2 + 1) / 2)
    assert rv.serendipity(run, train, qrels=qrels, rel_threshold=2) == pytest.approx(
        (1 - R2 / 2) / 2
    )


def test_serendipity_features_by_hand_and_zero_vector():
    feats = {"a": [1.0, 0.0], "b": [1.0, 1.0], "c": [0.0, 1.0], "d": [0.0, 0.0]}
    train = {"u1": ["a", "b"]}
    got = rv.user_item_serendipity({"u1": {"c": 1.0, "d": 0.5}}, train, features=feats)
    assert _flat(got) == pytest.approx({("u1", "c"): 1 - R2 / 2, ("u1", "d"): 1.0})
    frame = pd.DataFrame(feats).T
    assert rv.serendipity({"u1": {"c": 1.0}}, train, features=frame) == pytest.approx(1 - R2 / 2)


def test_serendipity_of_an_item_with_the_features_of_the_whole_history_is_exactly_zero():
    # the cosine of (1, 1) with itself is exactly 1: (1, 1) / sqrt(2) as a unit vector
    # dotted with itself gave 0.9999999999999998, a serendipity of 2.2e-16
    feats = {"a": [1.0, 1.0], "b": [0.3, 0.7], "c": [0.3, 0.7], "d": [0.7, 0.3]}
    got = rv.user_item_serendipity({"u": {"a": 1}}, {"u": ["a"]}, features=feats)
    assert got == {"u": {"a": 0.0}}
    # equal vectors under two ids: S(b, c) = S(b, b) = 1
    train = {"u": ["b", "c"], "v": ["d"]}
    assert rv.user_item_serendipity({"u": {"b": 1, "c": 0.5}}, train, features=feats) == {
        "u": {"b": 0.0, "c": 0.0}
    }
    assert rv.serendipity({"u": {"b": 1}}, train, features=feats) == 0.0
    # the same float for S(b, d) and S(d, b), whichever is the history
    forth = rv.user_item_serendipity({"v": {"b": 1}}, train, features=feats)["v"]["b"]
    back = rv.user_item_serendipity({"u": {"d": 1}}, {"u": ["b"]}, features=feats)["u"]["d"]
    assert forth == back == pytest.approx(1 - 0.42 / 0.58)


@pytest.mark.parametrize("scale", [2.0**-1074 * 8, 2.0**-1000, 0.125, 2.0**600, 2.0**1000])
def test_serendipity_features_give_the_same_floats_at_any_magnitude_and_precision(scale):
    # rows are scaled by powers of two (exact) before the dot products, so float32 and
    # float64 features, and features times a power of two, give the same floats; no
    # square overflows (2**1000) or underflows (subnormals)
    rng = np.random.default_rng(0)
    feats = rng.integers(-8, 9, (6, 5)).astype(np.float32)
    feats[2] = 0.0  # a zero vector: cosine 0
    feats[4] = feats[1]
    ids = list("abcdef")
    run = {"u": {"a": 3, "b": 2, "c": 1}, "v": {"e": 2, "f": 1}}
    train = {"u": ["b", "d", "e"], "v": ["b", "e"]}
    kw = {"feature_items": ids}
    want = rv.user_item_serendipity(run, train, features=feats, **kw)
    assert want["v"]["e"] == 0.0 and want["u"]["c"] == 1.0
    assert rv.user_item_serendipity(run, train, features=feats.astype(np.float64), **kw) == want
    scaled = feats.astype(np.float64) * scale
    assert rv.user_item_serendipity(run, train, features=scaled, **kw) == want


def test_serendipity_reads_features_as_intra_list_similarity_does():
    feats = {"a": [1.0, 0.0], "b": [1.0, 1.0], "c": [0.0, 1.0]}
    train, run = {"u1": ["a", "b"]}, {"u1": {"c": 1.0}}
    expected = rv.serendipity(run, train, features=feats)
    # an id column named by feature_items, as intra_list_similarity reads a DataFrame
    frame = pd.DataFrame({"id": list(feats), "x": [1.0, 1.0, 0.0], "y": [0.0, 1.0, 1.0]})
    assert rv.serendipity(run, train, features=frame, feature_items="id") == expected
    assert rv.intra_list_similarity([["a", "c"]], features=frame, feature_items="id") == 0.0
    with pytest.raises(InputValidationError, match="feature_items must not contain duplicates"):
        rv.serendipity(run, train, features=np.eye(3), feature_items=["a", "a", "c"])


def test_serendipity_without_features_of_an_item_says_the_fix_of_intra_list_similarity():
    # it said "add them to features.", where ILS says to check feature_items too
    feats = np.eye(2)
    with pytest.raises(InputValidationError) as info:
        rv.serendipity({"u": {"a": 1}}, {"u": ["z"]}, features=feats, feature_items=["a", "b"])
    assert str(info.value) == (
        "serendipity: features must have a row for every item of a history. Got none for 1 "
        "item ['z']; add them, or check that feature_items holds their ids."
    )


def test_popularity_serendipity_by_hand():
    # counts a: 3, b: 2, c: 2 -> popularity ranks 1, 2, 2; catalogue of 5
    train = (["x", "y", "z", "x", "y", "x", "z"], ["a", "a", "a", "b", "b", "c", "c"])
    run = [["c", "d", "a"]]
    qrels = {0: {"c": 1, "d": 1, "a": 1}}
    # c: 5/5 - 4/5; d (never seen): 4/5 - 0; a: 3/5 - 5/5 < 0
    expected = (0.2 + 0.8 + 0.0) / 3
    assert rv.popularity_serendipity(run, qrels, train, catalog=5) == pytest.approx(expected)
    assert rv.popularity_serendipity(run, qrels, train, catalog=5, k=2) == pytest.approx(0.5)
    assert rv.popularity_serendipity(run, {0: {"a": 1}}, train, catalog=5) == 0.0


def test_intersection_by_hand_and_not_symmetric():
    run = {"u": {"a": 3, "b": 2, "c": 1}, "v": {"x": 1}}
    ref = {"u": {"a": 1, "z": 0.5}}
    value = rv.intersection(run, ref)
    assert value == pytest.approx((1 / 3 + 0) / 2)
    assert rv.intersection(ref, run) == pytest.approx(1 / 2)
    assert rv.intersection(run, ref, k=1, reference_k=2) == pytest.approx(0.5)
    assert rv.intersection(run, run) == 1.0


def test_user_coverage_by_hand():
    qrels = {"u1": {"a": 1}, "u2": {"b": 2}, "u3": {"c": 1}, "u4": {"d": 0}}
    run = {"u1": {"x": 2.0, "a": 1.0}, "u2": {"b": 1.0}, "u9": {"a": 1.0}}
    value = rv.user_coverage(run, qrels)
    assert value == pytest.approx(2 / 3)  # u1, u2 of u1, u2, u3; u9 is not in qrels
    assert (value.n_users, value.n_users_skipped) == (4, 1)  # u4: no relevant item
    assert rv.user_coverage(run, qrels, k=1) == pytest.approx(1 / 3)
    assert rv.user_coverage(run, qrels, rel_threshold=2) == 1.0
    with pytest.warns(UndefinedMetricWarning, match="no user of qrels has a relevant item"):
        assert math.isnan(rv.user_coverage(run, {"u1": {"a": 0}}))


def test_miscalibration_steck_by_hand():
    cats = {"a": ["drama"], "b": ["comedy"], "c": ["drama", "comedy"], "d": ["horror"]}
    train = {"u1": ["a", "a", "b"]}  # a repeated interaction counts once: p = 1/2, 1/2
    assert rv.miscalibration({"u1": {"c": 1}}, train, item_categories=cats) == 0.0
    # q = (drama 1/2, comedy 1/4, horror 1/4) from a and c... list a, c, d: q = (1/2, 1/6, 1/3)
    q_drama, q_comedy = (1 + 0.5) / 3, 0.5 / 3
    alpha = 0.01
    expected = 0.5 * math.log(0.5 / ((1 - alpha) * q_drama + alpha * 0.5)) + 0.5 * math.log(
        0.5 / ((1 - alpha) * q_comedy + alpha * 0.5)
    )
    lists = {"u1": {"a": 3, "c": 2, "d": 1}}
    assert rv.miscalibration(lists, train, item_categories=cats) == pytest.approx(expected)
    # a list with none of the history's categories: log(1/alpha)
    assert rv.miscalibration({"u1": {"d": 1}}, train, item_categories=cats, alpha=0.1) == (
        pytest.approx(math.log(10))
    )


def test_miscalibration_weights_frame_and_skipped_users():
    weighted = {"a": {"drama": 3, "comedy": 1}, "b": {"comedy": 1}}
    frame = pd.DataFrame(
        {"item": ["a", "a", "b"], "category": ["drama", "comedy", "comedy"], "weight": [3, 1, 1]}
    )
    train = {"u1": ["a"], "u2": ["b"]}
    run = {"u1": {"b": 1}, "u3": {"a": 1}}
    # p = (3/4, 1/4), q = (0, 1)
    expected = 0.75 * math.log(0.75 / (0.01 * 0.75)) + 0.25 * math.log(0.25 / (0.99 + 0.0025))
    for cats in (weighted, frame):
        value = rv.miscalibration(run, train, item_categories=cats)
        assert value == pytest.approx(expected)
        assert (value.n_users, value.n_users_skipped) == (2, 1)


@pytest.mark.parametrize("run", [{"x": {"a": 1}}, {"u": {}}, {"u": {}, "x": {"a": 1}}])
def test_undefined_results_warn_nan(run):
    # no user with a history, or only users with an empty list (miscalibration of those
    # ended in a raw IndexError)
    what = "no user of the run has both a history in train and a recommended item"
    with pytest.warns(UndefinedMetricWarning, match=what):
        assert math.isnan(rv.serendipity(run, {"u": ["a"]}))
    with pytest.warns(UndefinedMetricWarning, match=what):
        assert math.isnan(rv.miscalibration(run, {"u": ["a"]}, item_categories={"a": ["g"]}))


# ---------------------------------------------------------------- errors
def test_errors_name_the_argument():
    with pytest.raises(InputValidationError, match="miscalibration: item_categories must give"):
        rv.miscalibration({"u": {"z": 1}}, {"u": ["a"]}, item_categories={"a": ["g"]})
    with pytest.raises(InvalidParameterError, match="alpha"):
        rv.miscalibration({"u": {"a": 1}}, {"u": ["a"]}, item_categories={"a": ["g"]}, alpha=1.0)
    with pytest.raises(InputValidationError, match="serendipity: train must be"):
        rv.serendipity({"u": {"a": 1}}, 3)
    with pytest.raises(InputValidationError, match="features must have a row"):
        rv.serendipity({"u": {"z": 1}}, {"u": ["a"]}, features={"a": [1.0]})
    with pytest.raises(InvalidParameterError, match="'k'"):
        rv.intersection([["a"]], [["a"]], k=0)
    with pytest.raises(InvalidParameterError, match="catalog"):
        rv.popularity_serendipity([["a"]], {0: {"a": 1}}, {0: ["a"]}, catalog=0)
    with pytest.raises(InvalidParameterError) as info:  # was "must be 1-dimensional"
        rv.popularity_serendipity([["a"]], {0: {"a": 1}}, {0: ["a"]}, catalog=4.0)
    assert str(info.value) == (
        "The 'catalog' parameter of popularity_serendipity must be an int (the catalogue's "
        "size) or the ids of its items (a list or array). Got 4.0 (float) instead; pass "
        "catalog=4."
    )
    # a catalogue without the recommended or train items gave a silent number (a
    # probability (N + 1 - r) / N below 0): 0.0 for catalog=1, 0.25 for ['a', 'b']
    run, qrels, train = {"u": {"a": 1, "z": 0.5}}, {"u": {"z": 1}}, {"v": ["a", "b", "c"]}
    with pytest.raises(InputValidationError) as info:
        rv.popularity_serendipity(run, qrels, train, catalog=1)
    assert str(info.value) == (
        "popularity_serendipity: catalog must hold every recommended item and every item of "
        "train. Got catalog=1 for 4 such items; pass the size of the whole catalogue, or its "
        "item ids."
    )
    with pytest.raises(InputValidationError) as info:
        rv.popularity_serendipity(run, qrels, train, catalog=["a", "b"])
    assert str(info.value) == (
        "popularity_serendipity: catalog must contain every recommended item and every item "
        "of train. Got 2 items ['c', 'z'] that are not in it; add them to the catalog."
    )
    assert rv.popularity_serendipity(run, qrels, train, catalog=["a", "b", "c", "z"]) == 0.375


# ---------------------------------------------------------------- oracles
ITEMS = ["a", "b", "c", "d", "e"]


@st.composite
def cases(draw):
    n_users = draw(st.integers(1, 5))
    item_lists = st.lists(st.sampled_from(ITEMS), min_size=1, max_size=4, unique=True)
    lists = {u: draw(item_lists) for u in range(n_users)}
    history = {u: draw(item_lists) for u in range(draw(st.integers(1, 6)))}
    relevant = {u: set(draw(st.lists(st.sampled_from(ITEMS), max_size=3))) for u in lists}
    k = draw(st.sampled_from([None, 1, 2, 3]))
    return lists, history, relevant, k


def _run(lists):
    return rv.Run.from_dict({u: {i: -r for r, i in enumerate(items)} for u, items in lists.items()})


def _pairs(history):
    return ([u for u, h in history.items() for _ in h], [i for h in history.values() for i in h])


def _mean(per_user):
    return np.mean(list(per_user.values())) if per_user else math.nan


@given(cases(), st.booleans())
@example(({0: ["d", "b"]}, {0: ["d"], 1: ["d", "b"]}, {0: {"d"}}, None), True)  # d = (1, 1, 0)
@example(({0: ["d", "b"]}, {0: ["d"], 1: ["d", "b"]}, {0: {"d"}}, None), False)
def test_serendipity_equals_oracle(case, with_features):
    lists, history, relevant, k = case
    feats = {
        i: [float(j % 2), float(j // 2 % 2), 1.0 if j == 4 else 0.0] for j, i in enumerate(ITEMS)
    }
    feats["a"] = [0.0, 0.0, 0.0]  # a zero vector
    hist = {u: set(h) for u, h in history.items()}
    qrels = {u: {i: 1 for i in r} for u, r in relevant.items() if r} or {0: {"zz": 1}}
    kw = {"k": k, "features": feats if with_features else None}
    expected = oracle.user_item_serendipity(
        lists, hist, k=k, features=kw["features"], relevant=relevant
    )
    got = rv.user_item_serendipity(_run(lists), _pairs(history), qrels=qrels, **kw)
    assert _flat(got) == pytest.approx(_flat(expected), abs=1e-12)
    per_user = oracle.user_serendipity(lists, hist, k=k, features=kw["features"], relevant=relevant)
    assert rv.user_serendipity(_run(lists), _pairs(history), qrels=qrels, **kw) == pytest.approx(
        per_user, abs=1e-12
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        value = rv.serendipity(_run(lists), _pairs(history), qrels=qrels, **kw)
    assert value == pytest.approx(_mean(per_user), abs=1e-12, nan_ok=True)
    # within (|H_u| + 7) 2**-53 of the definition, and exactly 0 where it is 0 (an item
    # with the co-occurrences or the features of every item of the history)
    for (u, i), x in _flat(got).items():
        assert abs(x - expected[u][i]) <= (len(hist[u]) + 7) * 2.0**-53
        assert expected[u][i] != 0.0 or x == 0.0
    if not with_features:
        assert all(0.0 <= x <= 1.0 + 1e-12 for x in per_user.values())
        # both ways to the co-occurrence sums, and the pair counts taken in small chunks
        chunk = ser_module._PAIR_CHUNK
        per_item = rv.user_item_serendipity(_run(lists), _pairs(history), qrels=qrels, k=k)
        try:
            for method, size in (("pairs", 3), ("pairs", chunk), ("users", chunk)):
                ser_module.COOCCURRENCE_METHOD, ser_module._PAIR_CHUNK = method, size
                items = rv.user_item_serendipity(_run(lists), _pairs(history), qrels=qrels, k=k)
                assert items == per_item  # the same floats either way
                got = rv.user_serendipity(_run(lists), _pairs(history), qrels=qrels, k=k)
                assert got == pytest.approx(per_user, abs=1e-12)
        finally:
            ser_module.COOCCURRENCE_METHOD, ser_module._PAIR_CHUNK = "auto", chunk


@given(cases(), st.integers(5, 8))
def test_popularity_serendipity_equals_oracle(case, n_catalog):
    lists, history, relevant, k = case
    rows = [*zip(*_pairs(history), strict=True), (0, "a"), (1, "a")]  # repeated rows count
    qrels = {u: {i: 1 for i in r} for u, r in relevant.items() if r} or {0: {"z": 1}}
    expected = oracle.popularity_serendipity(lists, relevant, rows, n_catalog, k=k)
    train = ([u for u, _ in rows], [i for _, i in rows])
    value = rv.popularity_serendipity(_run(lists), qrels, train, catalog=n_catalog, k=k)
    assert value == pytest.approx(_mean(expected), abs=1e-12)
    assert 0.0 <= value <= 1.0  # 1: a relevant item never seen in train, ranked first


@given(cases(), cases(), st.sampled_from([None, 1, 2, 4]))
def test_intersection_equals_oracle(case, other, ref_k):
    lists, k = case[0], case[3]
    reference = other[0]
    expected = oracle.intersection(lists, reference, k=k, ref_k=ref_k)
    value = rv.intersection(_run(lists), _run(reference), k=k, reference_k=ref_k)
    assert value == pytest.approx(_mean(expected), abs=1e-12)
    assert rv.intersection(_run(lists), _run(lists), k=k) == 1.0


@given(cases(), st.sampled_from([0.0, 0.01, 0.5]))
def test_miscalibration_equals_oracle(case, alpha):
    lists, history, _, k = case
    cats = {"a": ["x"], "b": ["x", "y"], "c": ["y"], "d": ["z", "x", "y"], "e": ["z"]}
    expected = oracle.miscalibration(lists, history, cats, k=k, alpha=alpha)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        value = rv.miscalibration(
            _run(lists), _pairs(history), item_categories=cats, k=k, alpha=alpha
        )
    if alpha == 0.0 and any(math.isinf(x) for x in expected.values()):
        assert math.isinf(value)
    else:
        assert value == pytest.approx(_mean(expected), abs=1e-12, nan_ok=True)
    assert value.n_users_skipped == len(lists) - len(expected)
    if alpha > 0 and expected:
        assert 0.0 <= value <= math.log(1 / alpha) + 1e-12


def test_unjudged_items_are_never_relevant_also_at_threshold_zero():
    # b is not in the qrels: not relevant at rel_threshold=0, a (grade 0) is
    run, qrels = {"u": {"b": 1.0, "a": 0.5}}, {"u": {"a": 0}}
    assert rv.user_coverage(run, qrels, k=1, rel_threshold=0) == 0.0
    assert rv.user_coverage(run, qrels, k=2, rel_threshold=0) == 1.0
    # a, b unlike the history c: serendipity 1 each, times relevance (b 0, a 1)
    got = rv.user_serendipity(run, {"u": ["c"]}, qrels=qrels, rel_threshold=0)
    assert got == {"u": 0.5}
    # N = 4, a at position 2 with popularity rank 2 of c's: (3/4 - 0) * 1 / 2 items
    value = rv.popularity_serendipity(run, qrels, {"v": ["c"]}, catalog=4, rel_threshold=0)
    assert value == pytest.approx(3 / 8)


def test_miscalibration_category_of_weight_zero_is_no_category():
    # a: {x: 0, y: 1} is a in y only: p = (y 1), q = (x 1/2, y 1/2); Steck sums over p > 0
    expected = math.log(1 / (0.99 * 0.5 + 0.01))
    run, train = {"u": {"a": 2, "b": 1}}, {"u": ["a"]}
    for cats in ({"a": {"x": 0, "y": 1}, "b": {"x": 1}}, {"a": {"y": 1}, "b": {"x": 1}}):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # neither numpy's 0 * log(0) nor an undefined mean
            assert rv.miscalibration(run, train, item_categories=cats) == pytest.approx(expected)


@given(cases(), st.sampled_from([0.01, 0.5]), st.sampled_from(["input", "average"]))
def test_miscalibration_ignores_categories_of_weight_zero(case, alpha, ties):
    lists, history, _, k = case
    cats = {"a": ["x"], "b": ["x", "y"], "c": ["y"], "d": ["z", "x", "y"], "e": ["z"]}
    weighted = {i: {**dict.fromkeys(held, 1.0), "none": 0.0} for i, held in cats.items()}
    expected = oracle.miscalibration(lists, history, cats, k=k, alpha=alpha)
    scored = {u: {i: float(-(r // 2)) for r, i in enumerate(x)} for u, x in lists.items()}
    metric = f"miscalibration(alpha={alpha})@{k or 4}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        value = rv.miscalibration(
            _run(lists), _pairs(history), item_categories=weighted, k=k, alpha=alpha
        )
        evaluated = [
            rv.evaluate(
                None, scored, [metric], train=_pairs(history), item_categories=c, ties=ties
            ).mean[metric]
            for c in (weighted, cats)
        ]
    assert value == pytest.approx(_mean(expected), abs=1e-12, nan_ok=True)
    assert evaluated[0] == pytest.approx(evaluated[1], abs=1e-12, nan_ok=True)


@given(cases(), st.sampled_from([0, 1, 2]))
def test_user_coverage_equals_oracle_and_success(case, threshold):
    lists, _, relevant, k = case
    graded = {u: {i: j % 3 for j, i in enumerate(sorted(r))} for u, r in relevant.items()}
    graded = {u: g for u, g in graded.items() if g} or {0: {"zz": 1}}
    covered = {  # only judged items can be relevant, also at threshold 0
        u: any(
            i in g and g[i] >= threshold for i in (lists.get(u, [])[:k] if k else lists.get(u, []))
        )
        for u, g in graded.items()
        if any(x >= threshold for x in g.values())
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        value = rv.user_coverage(_run(lists), graded, k=k, rel_threshold=threshold)
        report = rv.evaluate(
            graded, _run(lists), [f"success@{k or 10}"], missing_users="zero",
            rel_threshold=threshold, allow_unmatched=True,
        )  # fmt: skip
    assert value == pytest.approx(_mean(covered), abs=1e-12, nan_ok=True)
    if covered:
        assert value == pytest.approx(report.mean[f"success@{k or 10}"], abs=1e-12)


@given(cases(), st.data())
def test_tied_scores_take_the_input_order(case, data):
    """Scores from {0, 0.5, 1}: the top k is the stable sort of the input by score,
    as for every beyond-accuracy metric; each metric equals its oracle on that order."""
    lists, history, _, k = case
    scored = {
        u: [(i, data.draw(st.sampled_from([0.0, 0.5, 1.0]))) for i in v] for u, v in lists.items()
    }
    run = rv.Run(
        [u for u, v in scored.items() for _ in v],
        [i for v in scored.values() for i, _ in v],
        [x for v in scored.values() for _, x in v],
    )
    ordered = {u: [i for i, _ in sorted(v, key=lambda t: -t[1])] for u, v in scored.items()}
    hist = {u: set(h) for u, h in history.items()}
    cats = {"a": ["x"], "b": ["x", "y"], "c": ["y"], "d": ["z", "x", "y"], "e": ["z"]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        ser = rv.serendipity(run, _pairs(history), k=k)
        mis = rv.miscalibration(run, _pairs(history), item_categories=cats, k=k)
    assert ser == pytest.approx(_mean(oracle.user_serendipity(ordered, hist, k=k)), nan_ok=True)
    assert mis == pytest.approx(
        _mean(oracle.miscalibration(ordered, history, cats, k=k)), nan_ok=True
    )
    assert rv.intersection(run, _run(lists), k=k) == pytest.approx(
        _mean(oracle.intersection(ordered, lists, k=k))
    )


def test_every_log_and_run_shape_gives_the_same_values():
    import polars as pl

    users, items = [0, 0, 1, 1, 2], ["a", "b", "a", "c", "b"]
    logs = [
        (users, items),
        {0: ["a", "b"], 1: ["a", "c"], 2: ["b"]},
        pd.DataFrame({"user": users, "item": items}),
        pl.DataFrame({"user": users, "item": items}),
        rv.Qrels(users, items),
    ]
    lists = [["c", "d"], ["b"], ["a", "c"]]
    runs = [
        lists,
        {u: {i: -r for r, i in enumerate(v)} for u, v in enumerate(lists)},
        pd.DataFrame(
            {
                "user": [u for u, v in enumerate(lists) for _ in v],
                "item": [i for v in lists for i in v],
                "score": [-r for v in lists for r in range(len(v))],
            }
        ),
    ]
    cats = {"a": ["x"], "b": ["y"], "c": ["x", "y"], "d": ["z"]}
    cat_frame = pl.DataFrame({"item": ["a", "b", "c", "c", "d"], "category": list("xyxyz")})
    ser = [rv.serendipity(r, log) for r in runs for log in logs]
    mis = [
        rv.miscalibration(r, log, item_categories=c)
        for r in runs
        for log in logs
        for c in (cats, cat_frame)
    ]
    assert ser == pytest.approx([ser[0]] * len(ser))
    assert mis == pytest.approx([mis[0]] * len(mis))
    qrels = {0: {"c": 1}, 2: {"a": 1}}
    pop = [rv.popularity_serendipity(r, qrels, log, catalog=4) for r in runs for log in logs]
    assert pop == pytest.approx([pop[0]] * len(pop))

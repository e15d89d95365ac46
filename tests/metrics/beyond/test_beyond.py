"""Beyond accuracy: hand-computed values, slow oracles, invariances, input forms, errors."""

import math
import re
import warnings

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.metrics.pairwise import cosine_similarity

from receval import (
    Qrels,
    Run,
    catalog_coverage,
    diversity,
    gini_index,
    intra_list_similarity,
    novelty,
    personalization,
)
from receval._kernels import compiled
from receval.exceptions import InputValidationError, InvalidParameterError, UndefinedMetricWarning
from receval.metrics.beyond.diversity import ils_per_user
from receval.metrics.beyond.lists import PARALLEL_MIN_ROWS, user_chunks
from tests.oracles import beyond as oracle

# a = (1, 0), b = (1, 1), c = (0, 1): cos(a, b) = cos(b, c) = 1/sqrt(2), cos(a, c) = 0
ABC = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
IDS = ["a", "b", "c"]
R2 = 1 / math.sqrt(2)


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return fn(*args, **kwargs)


def _nan_equal(a, b, tol=1e-12):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    assert a.shape == b.shape
    assert np.array_equal(np.isnan(a), np.isnan(b))
    np.testing.assert_allclose(a[~np.isnan(a)], b[~np.isnan(b)], rtol=tol, atol=tol)


def _run(lists):
    """A Run with user i holding lists[i] in ranked order (item ids as given)."""
    return Run.from_dict({u: {item: -r for r, item in enumerate(x)} for u, x in enumerate(lists)})


# ---------------------------------------------------------------- strategies
VALUES = [-1.0, 0.0, 0.5, 1.0, 2.0]  # zero vectors and repeated rows are common


@st.composite
def recommendations(draw, max_items=8, max_users=6, min_users=1):
    n_items = draw(st.integers(2, max_items))
    n_users = draw(st.integers(min_users, max_users))
    item = st.integers(0, n_items - 1)
    lists = [
        draw(st.lists(item, min_size=1, max_size=n_items, unique=True)) for _ in range(n_users)
    ]
    k = draw(st.sampled_from([None, 1, 2, 3, 5]))
    return n_items, lists, k


@st.composite
def with_features(draw):
    n_items, lists, k = draw(recommendations())
    d = draw(st.integers(1, 3))
    rows = [[draw(st.sampled_from(VALUES)) for _ in range(d)] for _ in range(n_items)]
    if draw(st.booleans()):  # an exact duplicate feature vector
        rows[-1] = list(rows[0])
    return np.array(rows), lists, k


@st.composite
def with_matrix(draw):
    n_items, lists, k = draw(recommendations())
    cells = st.sampled_from([0.0, 0.25, 0.5, 1.0, -0.5])
    matrix = np.array([[draw(cells) for _ in range(n_items)] for _ in range(n_items)])
    return matrix, lists, k


# ---------------------------------------------------------------- ILS: hand-computed
def test_ils_three_items_known_cosines():
    per_user = ils_per_user(_run([IDS]), None, features=ABC, feature_items=IDS)
    assert per_user[0] == pytest.approx((R2 + 0 + R2) / 3, abs=1e-15)
    assert intra_list_similarity([IDS], features=ABC, feature_items=IDS) == pytest.approx(
        2 * R2 / 3
    )
    assert diversity([IDS], features=ABC, feature_items=IDS) == pytest.approx(1 - 2 * R2 / 3)


def test_ils_mean_over_users_and_cut_at_k():
    lists = [["a", "b", "c"], ["a", "c"], ["b"]]  # "b" alone: no pair, skipped
    value = intra_list_similarity(lists, features=ABC, feature_items=IDS)
    assert value == pytest.approx((2 * R2 / 3 + 0.0) / 2)
    per_user = ils_per_user(_run(lists), 2, features=ABC, feature_items=IDS)
    _nan_equal(per_user, [R2, 0.0, np.nan])
    # k beyond every list length is the whole list
    assert intra_list_similarity(lists, k=50, features=ABC, feature_items=IDS) == value


def test_ils_identical_and_orthogonal_items():
    feats = np.array([[2.0, 0.0], [5.0, 0.0], [0.0, 3.0]])
    assert intra_list_similarity([[0, 1]], features=feats) == pytest.approx(1.0)
    assert intra_list_similarity([[0, 2]], features=feats) == 0.0
    assert diversity([[0, 2]], features=feats) == 1.0


def test_ils_zero_vector_has_cosine_zero():
    feats = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]])
    assert intra_list_similarity([[0, 1, 2]], features=feats) == pytest.approx(1 / 3)


@pytest.mark.parametrize("scale", [1.0, 1e200, 1e300, 1e-300, 1e-310, 2e-323])
@pytest.mark.parametrize("length", [3, 40])  # pairs, and the sum formula past 32 items
def test_ils_cosine_exact_at_any_magnitude(scale, length):
    # the squares of 1e200 overflow and those of 1e-300 or subnormals underflow: the
    # vectors are scaled by their largest absolute value before their norm
    directions = np.array([[1.0, 2.0], [3.0, 1.0], [2.0, 5.0]])
    base = np.array([directions[i % 3] * (1 + i % 4) for i in range(length)])
    lists = [list(range(length))]
    want = intra_list_similarity(lists, features=base)
    got = intra_list_similarity(lists, features=base * scale)
    rel = 1e-12 if scale > 1e-320 else 1e-2  # 2e-323 holds 3 significant bits
    assert got == pytest.approx(want, rel=rel)
    assert diversity(lists, features=base * scale) == pytest.approx(1 - want, rel=rel)


def test_ils_of_huge_features_is_not_zero():
    # two items at 1e200 whose cosine is 0.699 (their squares overflow float64)
    feats = np.array([[1.0, 0.0], [0.699, math.sqrt(1 - 0.699**2)]]) * 1e200
    assert intra_list_similarity([[0, 1]], features=feats) == pytest.approx(0.699)
    assert diversity([[0, 1]], features=feats) == pytest.approx(0.301)
    float32 = (np.array([[1.0, 0.0], [0.6, 0.8]]) * 1e-40).astype(np.float32)  # subnormal
    assert intra_list_similarity([[0, 1]], features=float32) == pytest.approx(0.6, rel=1e-4)


def test_ils_similarity_matrix_and_function_hand_computed():
    sim = np.array([[1.0, 0.2, 0.4], [0.2, 1.0, 0.9], [0.4, 0.9, 1.0]])
    assert intra_list_similarity([[0, 1, 2]], similarity=sim) == pytest.approx(1.5 / 3)
    # asymmetric: the ordered pairs average S[i, j] and S[j, i]
    asym = np.array([[9.0, 0.0], [1.0, 9.0]])
    assert intra_list_similarity([[0, 1]], similarity=asym) == 0.5

    def genre(a, b):
        return float(a[0] == b[0])

    assert intra_list_similarity([["x1", "x2", "y1"]], similarity=genre) == pytest.approx(1 / 3)


def test_ils_function_called_once_per_distinct_pair():
    calls = []

    def sim(a, b):
        calls.append((a, b))
        return 0.5

    lists = [["a", "b", "c"], ["c", "b", "a"], ["a", "b"]]
    assert intra_list_similarity(lists, similarity=sim) == 0.5
    assert sorted(frozenset(c) for c in calls) == sorted(
        [frozenset("ab"), frozenset("ac"), frozenset("bc")]
    )


def test_ils_every_list_too_short_warns_nan():
    with pytest.warns(UndefinedMetricWarning, match="fewer than 2 items"):
        assert math.isnan(intra_list_similarity([["a"], ["b"]], features=ABC, feature_items=IDS))
    with pytest.warns(UndefinedMetricWarning):
        assert math.isnan(diversity([IDS], k=1, features=ABC, feature_items=IDS))


def test_items_beyond_k_need_no_features():
    lists = [["a", "b", "unknown"]]
    assert intra_list_similarity(lists, k=2, features=ABC, feature_items=IDS) == pytest.approx(R2)
    with pytest.raises(InputValidationError, match="'unknown'"):
        intra_list_similarity(lists, k=3, features=ABC, feature_items=IDS)


@pytest.mark.parametrize("length", [33, 40, 100])
def test_long_lists_sum_identity_path_matches_oracle(length):
    rng = np.random.default_rng(length)
    feats = rng.normal(size=(120, 4))
    feats[5] = 0.0  # a zero vector inside the long-list formula
    pool = np.delete(np.arange(120), 5)
    lists = [[*rng.permutation(pool)[:length].tolist(), 5] for _ in range(3)]
    got = ils_per_user(_run(lists), None, features=feats)
    want = oracle.ils(lists, lambda a, b: oracle.cosine(feats[a], feats[b]), None)
    _nan_equal(got, want, tol=1e-10)
    # the pairwise path (k <= 32) agrees on the first 32 items too
    got = ils_per_user(_run(lists), 32, features=feats)
    _nan_equal(got, oracle.ils(lists, lambda a, b: oracle.cosine(feats[a], feats[b]), 32))


# ---------------------------------------------------------------- ILS: oracles and properties
@given(with_features())
def test_ils_features_equal_oracle(data):
    feats, lists, k = data
    run = _run(lists)
    got = ils_per_user(run, k, features=feats)
    want = oracle.ils(lists, lambda a, b: oracle.cosine(feats[a], feats[b]), k)
    _nan_equal(got, want)
    _nan_equal(_quiet(intra_list_similarity, run, k=k, features=feats), oracle.mean_defined(want))
    _nan_equal(_quiet(diversity, run, k=k, features=feats), 1 - oracle.mean_defined(want))


@given(with_features())
def test_ils_features_equal_recmetrics_method(data):
    """recmetrics: mean of the upper triangle of sklearn's cosine_similarity per list."""
    feats, lists, k = data
    got = ils_per_user(_run(lists), k, features=feats)
    for u, items in enumerate(lists):
        t = oracle.top(items, k)
        if len(t) < 2:
            assert math.isnan(got[u])
            continue
        sims = cosine_similarity(feats[t])
        assert got[u] == pytest.approx(sims[np.triu_indices(len(t), 1)].mean(), abs=1e-12)


@given(with_matrix())
def test_ils_matrix_equals_oracle_also_asymmetric(data):
    matrix, lists, k = data
    got = ils_per_user(_run(lists), k, similarity=matrix)
    _nan_equal(got, oracle.ils(lists, lambda a, b: matrix[a, b], k))


@given(with_features())
def test_features_matrix_and_function_give_the_same_ils(data):
    feats, lists, k = data
    n = len(feats)
    cos = np.array([[oracle.cosine(feats[i], feats[j]) for j in range(n)] for i in range(n)])
    run = _run(lists)
    by_features = ils_per_user(run, k, features=feats)
    by_matrix = ils_per_user(run, k, similarity=cos)
    by_function = ils_per_user(run, k, similarity=lambda a, b: cos[a, b])
    _nan_equal(by_features, by_matrix)
    _nan_equal(by_features, by_function)


@given(with_features())
def test_cosine_of_unit_norm_features_equals_dot_product(data):
    feats, lists, k = data
    norms = np.linalg.norm(feats, axis=1, keepdims=True)
    unit = np.divide(feats, norms, out=np.zeros_like(feats), where=norms > 0)
    run = _run(lists)
    _nan_equal(
        ils_per_user(run, k, features=unit),
        ils_per_user(run, k, similarity=unit @ unit.T),
    )


@given(with_features(), st.randoms(use_true_random=False))
def test_ils_invariant_to_item_relabelling_and_feature_row_order(data, random):
    feats, lists, k = data
    n = len(feats)
    order = list(range(n))
    random.shuffle(order)  # string id of item i, and the row it moves to
    names = [f"item-{order[i]}" for i in range(n)]
    rows = np.empty_like(feats)
    rows[order] = feats
    relabelled = [[names[i] for i in items] for items in lists]
    feature_items = [f"item-{j}" for j in range(n)]
    want = ils_per_user(_run(lists), k, features=feats)
    run = _run(relabelled)
    _nan_equal(ils_per_user(run, k, features=rows, feature_items=feature_items), want)
    # a pandas DataFrame indexed by the ids, in shuffled row order
    _nan_equal(ils_per_user(run, k, features=pd.DataFrame(rows, index=feature_items)), want)


def test_float32_features_match_float64():
    rng = np.random.default_rng(3)
    feats = rng.normal(size=(50, 8)).astype(np.float32)
    lists = [list(rng.permutation(50)[:10]) for _ in range(20)]
    got = intra_list_similarity(lists, features=feats)
    want = intra_list_similarity(lists, features=feats.astype(np.float64))
    assert got == pytest.approx(want, abs=1e-12)


# ---------------------------------------------------------------- ILS: input forms
def test_run_input_forms_agree():
    lists = [["a", "b", "c"], ["c", "a"]]
    want = intra_list_similarity(lists, features=ABC, feature_items=IDS)
    frame = pd.DataFrame(
        {"user": [0, 0, 0, 1, 1], "item": ["a", "b", "c", "c", "a"], "score": [3, 2, 1, 2, 1]}
    )
    forms = [
        _run(lists),
        {0: {"a": 3.0, "b": 2.0, "c": 1.0}, 1: {"c": 1.0, "a": 0.5}},
        tuple(tuple(x) for x in lists),
        np.array(lists, dtype=object),
        frame,
        pl.from_pandas(frame),
    ]
    for form in forms:
        assert intra_list_similarity(form, features=ABC, feature_items=IDS) == want
    square = np.array([["a", "b"], ["c", "a"]])
    assert intra_list_similarity(square, features=ABC, feature_items=IDS) == pytest.approx(
        (R2 + 0.0) / 2
    )


def test_features_as_a_mapping_as_serendipity_reads_them():
    # serendipity read features={item: vector} and evaluate passes one features= to both;
    # ILS refused the mapping: "features must be 2-dimensional ... shape ()"
    import receval as rv

    feats = {"a": [1.0, 0.0], "b": [1.0, 1.0], "c": [0.0, 1.0]}
    lists = [["a", "b", "c"], ["a", "c"]]
    want = oracle.mean_defined(oracle.ils(lists, lambda x, y: oracle.cosine(feats[x], feats[y]),
                                          None))  # fmt: skip
    assert intra_list_similarity(lists, features=feats) == pytest.approx(want, abs=1e-12)
    assert diversity(lists, features=feats) == pytest.approx(1 - want, abs=1e-12)
    run = {u: {i: -r for r, i in enumerate(x)} for u, x in enumerate(lists)}
    report = rv.evaluate(None, run, ["ils", "serendipity"], features=feats, train=([0], ["a"]))
    assert np.nanmean(report.values["ils"]) == pytest.approx(want, abs=1e-12)
    with pytest.raises(InputValidationError, match=re.escape(
        "intra_list_similarity: feature_items must be None when features is a mapping "
        "{item: vector}. Got list."
    )):  # fmt: skip
        intra_list_similarity(lists, features=feats, feature_items=["a", "b", "c"])


def test_feature_frames_and_similarity_frame():
    want = intra_list_similarity([IDS], features=ABC, feature_items=IDS)
    pdf = pd.DataFrame(ABC[::-1], index=IDS[::-1], columns=["x", "y"])
    assert intra_list_similarity([IDS], features=pdf) == want
    with_col = pdf.reset_index(names="id")
    assert intra_list_similarity([IDS], features=with_col, feature_items="id") == want
    plf = pl.DataFrame({"item": IDS, "x": ABC[:, 0], "y": ABC[:, 1]})
    assert intra_list_similarity([IDS], features=plf) == want
    assert intra_list_similarity(
        [IDS], features=plf.rename({"item": "id"}), feature_items="id"
    ) == (want)
    assert intra_list_similarity([IDS], features=plf.to_arrow()) == want
    cos = pd.DataFrame(cosine_similarity(ABC), index=IDS, columns=IDS)
    assert intra_list_similarity([IDS], similarity=cos) == pytest.approx(want)


def test_int_and_string_ids_of_the_same_spelling_match():
    # as in TREC files, item 7 and item "7" are the same item
    got = intra_list_similarity([["7", "8"]], features=ABC[:2], feature_items=[7, 8])
    assert got == pytest.approx(R2)


def test_ils_of_equal_vectors_is_exactly_one():
    # (1, 1) / sqrt(2) dotted with itself is 0.9999999999999998: each cosine is now over
    # the norms of the unit vectors as rounded, exactly 1 for equal vectors
    feats = np.array([[1.0, 1.0], [1.0, 1.0], [0.1, 0.7], [0.1, 0.7], [0.1, 0.7]])
    ids = list("abcde")
    assert intra_list_similarity([["a", "b"]], features=feats, feature_items=ids) == 1.0
    assert intra_list_similarity([["c", "d", "e"]], features=feats, feature_items=ids) == 1.0
    assert diversity([["a", "b"], ["c", "e"]], features=feats, feature_items=ids) == 0.0
    as_float32 = feats.astype(np.float32)
    assert diversity([["c", "d", "e"]], features=as_float32, feature_items=ids) == 0.0


# ---------------------------------------------------------------- ILS: errors
def test_missing_features_name_up_to_five_items():
    lists = [["a", "m1", "m2", "m3"], ["m4", "m5", "m6", "b"]]
    msg = (
        "intra_list_similarity: features must have a row for every recommended item. Got none "
        "for 6 items ['m1', 'm2', 'm3', 'm4', 'm5', ...]; add them, or check that "
        "feature_items holds the run's item ids."
    )
    with pytest.raises(InputValidationError, match=re.escape(msg)):
        intra_list_similarity(lists, features=ABC, feature_items=IDS)
    with pytest.raises(InputValidationError, match=r"^diversity: similarity must have a row"):
        diversity(lists, similarity=np.eye(3), feature_items=IDS)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        (
            {},
            InvalidParameterError,
            "intra_list_similarity: pass exactly one of features and similarity. Got neither; "
            "item similarities come from feature vectors (cosine), a similarity matrix or a "
            "function.",
        ),
        (
            {"features": ABC, "similarity": np.eye(3)},
            InvalidParameterError,
            "intra_list_similarity: pass exactly one of features and similarity. Got both;",
        ),
        (
            {"features": ABC, "feature_items": IDS, "k": 0},
            InvalidParameterError,
            "The 'k' parameter of intra_list_similarity must be an integer in [1, inf). "
            "Got 0 instead.",
        ),
        (
            {"features": ABC, "feature_items": ["a", "b", "a"]},
            InputValidationError,
            "intra_list_similarity: feature_items must not contain duplicates. "
            "Got duplicated values ['a'].",
        ),
        (
            {"features": ABC, "feature_items": ["a", "b"]},
            InputValidationError,
            "intra_list_similarity: feature_items must hold one item id per row of features. "
            "Got 2 ids for 3 rows.",
        ),
        (
            {"features": np.array([1.0, 2.0, 3.0]), "feature_items": IDS},
            InputValidationError,
            "intra_list_similarity: features must be 2-dimensional (n_items, n_features). "
            "Got an array of shape (3,).",
        ),
        (
            {"features": np.where(ABC == 0, np.nan, ABC), "feature_items": IDS},
            InputValidationError,
            "intra_list_similarity: features contains NaN or infinity; drop those rows or replace "
            "the values with finite numbers first.",
        ),
        (
            {"features": [[1.0, 0.0], [1.0, None], [None, None]], "feature_items": IDS},
            InputValidationError,
            "intra_list_similarity: features contains 3 missing values (None, NA or NaN), the "
            "first in row 1; drop or fill them first.",
        ),
        (
            {"features": [[1.0, 0.0], [1.0], [0.0, 1.0]], "feature_items": IDS},
            InputValidationError,
            "intra_list_similarity: features must be 2-dimensional (n_items, n_features), with "
            "rows of one length. Got rows of lengths [2, 1, 2].",
        ),
        (
            {"features": [[1.0, 0.0], [1.0, "x"], [0.0, 1.0]], "feature_items": IDS},
            InputValidationError,
            "intra_list_similarity: features must be numeric. Got dtype <U32 with values "
            "['0.0', '1.0', 'x'].",
        ),
        (
            {
                "features": np.array([[1.0, 0.0], [1.0, {}], [0.0, 1.0]], dtype=object),
                "feature_items": IDS,
            },
            InputValidationError,
            "intra_list_similarity: features must be numeric. Got dtype object with values "
            "[1.0, 0.0, {}].",
        ),
        (
            {"similarity": np.ones((3, 2)), "feature_items": IDS},
            InputValidationError,
            "intra_list_similarity: similarity must be square (n_items, n_items). "
            "Got an array of shape (3, 2).",
        ),
        (
            {"features": ABC, "feature_items": "item"},
            InvalidParameterError,
            "The 'feature_items' parameter of intra_list_similarity must be an array of item "
            "ids, one per row of features, or None. Got 'item' instead.",
        ),
        (
            {"similarity": lambda a, b: 1.0, "feature_items": IDS},
            InvalidParameterError,
            "The 'feature_items' parameter of intra_list_similarity must be None when "
            "similarity is a function. Got list instead.",
        ),
        (
            {"similarity": lambda a, b: None},
            InputValidationError,
            "intra_list_similarity: similarity must return a finite number for every pair of "
            "items. Got None for items ('a', 'b').",
        ),
        (
            {"similarity": pl.DataFrame({"a": [1.0]})},
            InvalidParameterError,
            "The 'similarity' parameter of intra_list_similarity must be a square array, a "
            "pandas DataFrame indexed by item id, or a function sim(item_a, item_b). Got "
            "DataFrame instead.",
        ),
    ],
)
def test_ils_errors(kwargs, error, message):
    with pytest.raises(error, match=re.escape(message)):
        intra_list_similarity([IDS], **kwargs)


def test_feature_frame_errors():
    plf = pl.DataFrame({"id": IDS, "x": ABC[:, 0]})
    with pytest.raises(
        InputValidationError,
        match=re.escape(
            "intra_list_similarity: features has no column 'item' for the item ids. Got "
            "columns ['id', 'x']; pass feature_items='<column name>'."
        ),
    ):
        intra_list_similarity([IDS], features=plf)
    with pytest.raises(InvalidParameterError, match="must be None or a column name"):
        intra_list_similarity([IDS], features=plf, feature_items=IDS)
    sim = pd.DataFrame(np.eye(3), index=IDS, columns=["a", "c", "b"])
    with pytest.raises(InputValidationError, match="same item ids in the same order"):
        intra_list_similarity([IDS], similarity=sim)


@pytest.mark.parametrize(
    ("run", "message"),
    [
        (5, "intra_list_similarity: run must be a Run, a mapping {user: {item: score}}, a "
         "DataFrame or a sequence of ranked item lists. Got int."),
        (["a", "b"], "intra_list_similarity: run must be a Run, a mapping {user: {item: "
         "score}}, a DataFrame or a sequence of ranked item lists. Got a list holding a str; "
         "wrap a single list as [items]."),
        ([], "intra_list_similarity: run is empty; pass at least one sample."),
    ],
)  # fmt: skip
def test_bad_run(run, message):
    with pytest.raises(InputValidationError, match=re.escape(message)):
        intra_list_similarity(run, features=ABC, feature_items=IDS)


def test_empty_lists_are_dropped():
    assert intra_list_similarity([[], IDS], features=ABC, feature_items=IDS) == pytest.approx(
        2 * R2 / 3
    )


# ---------------------------------------------------------------- personalization
def test_personalization_hand_computed():
    assert personalization([["a", "b"], ["a", "c"], ["d", "e"]]) == pytest.approx(1 - 1 / 6)
    assert personalization([["a", "b"], ["b", "a"]]) == 0.0
    assert personalization([["a"], ["b"], ["c"]]) == 1.0
    # different lengths: cos({a, b, c, d}, {a}) = 1 / sqrt(4)
    assert personalization([["a", "b", "c", "d"], ["a"]]) == pytest.approx(0.5)
    # k: the top-1 items are the same
    assert personalization([["a", "b"], ["a", "c"]], k=1) == 0.0


def test_personalization_single_user_warns_nan():
    with pytest.warns(UndefinedMetricWarning, match="single user"):
        assert math.isnan(personalization([["a", "b"]]))


@given(recommendations(min_users=2))
def test_personalization_equals_quadratic_oracle_and_recmetrics_method(data):
    n_items, lists, k = data
    got = personalization(lists, k=k)
    assert got == pytest.approx(oracle.personalization(lists, k), abs=1e-12)
    # recmetrics: 1 - mean off-diagonal of cosine_similarity(user x item binary matrix)
    x = np.zeros((len(lists), n_items))
    for u, items in enumerate(lists):
        x[u, oracle.top(items, k)] = 1.0
    sims = cosine_similarity(x)
    dim = len(lists)
    assert got == pytest.approx(1 - (sims.sum() - dim) / (dim * (dim - 1)), abs=1e-12)


@given(recommendations(min_users=2), st.randoms(use_true_random=False))
def test_personalization_invariant_to_relabelling_and_user_order(data, random):
    _, lists, k = data
    shuffled = [[f"s{i}" for i in items] for items in lists]
    random.shuffle(shuffled)
    assert personalization(shuffled, k=k) == pytest.approx(personalization(lists, k=k), abs=1e-12)


def test_personalization_many_users_in_linear_memory():
    # 200k users: a users x users matrix would need 320 GB
    n = 200_000
    rng = np.random.default_rng(0)
    first = rng.integers(0, 50, n)
    lists = np.stack([first, first + 50], axis=1)  # users share item i + 50 iff they share i
    got = personalization(lists)
    counts = np.bincount(first, minlength=50)
    same = (counts * (counts - 1)).sum()  # ordered pairs with identical lists (cosine 1)
    assert got == pytest.approx(1 - same / (n * (n - 1.0)), abs=1e-12)


# ---------------------------------------------------------------- novelty
LOG = (["u1", "u1", "u2", "u3"], ["a", "b", "a", "c"])  # a: 2 of 3 users; b, c: 1 of 3


def test_novelty_hand_computed():
    got = novelty([["a", "b"], ["c"]], LOG)
    assert got == pytest.approx(((math.log2(3 / 2) + math.log2(3)) / 2 + math.log2(3)) / 2)
    assert novelty([["a", "b"]], LOG, k=1) == pytest.approx(math.log2(3 / 2))


def test_novelty_repeated_interactions_count_once():
    repeated = (["u1", "u1", "u1", "u2", "u3"], ["a", "a", "b", "a", "c"])
    assert novelty([["a", "b"]], repeated) == novelty([["a", "b"]], LOG)


def test_novelty_every_log_form_agrees():
    want = novelty([["a", "b"], ["c"]], LOG)
    frame = pd.DataFrame({"user": LOG[0], "item": LOG[1]})
    qrels = Qrels(*LOG)
    as_run = Run(*LOG, scores=[1.0] * 4)
    for log in (frame, pl.from_pandas(frame), pa.Table.from_pandas(frame), qrels, as_run):
        assert novelty([["a", "b"], ["c"]], log) == want


def test_novelty_unseen_items():
    msg = (
        "novelty: interactions must contain every recommended item, whose popularity novelty "
        "needs. Got 2 items ['z', 'y'] that never occur in it; pass unseen='skip' to leave "
        "them out of each user's mean."
    )
    with pytest.raises(InputValidationError, match=re.escape(msg)):
        novelty([["a", "z"], ["y"]], LOG)
    with pytest.raises(InputValidationError, match=r"Got 1 item \['z'\] that never occurs in"):
        novelty([["a", "z"]], LOG)  # the verb agrees: it said "1 item ['z'] that never occur"
    # skip: z leaves user 0 with a only; user 1 has nothing left and is skipped
    assert novelty([["a", "z"], ["y"]], LOG, unseen="skip") == pytest.approx(math.log2(3 / 2))
    with pytest.warns(UndefinedMetricWarning, match="no recommended item occurs"):
        assert math.isnan(novelty([["y"]], LOG, unseen="skip"))
    # an unseen item below k is no error
    assert novelty([["a", "z"]], LOG, k=1) == pytest.approx(math.log2(3 / 2))


def test_novelty_errors():
    with pytest.raises(InvalidParameterError, match=re.escape(
        "The 'unseen' parameter of novelty must be one of ['raise', 'skip']. Got 'max' instead."
    )):  # fmt: skip
        novelty([["a"]], LOG, unseen="max")
    with pytest.raises(InputValidationError, match=re.escape(
        "novelty: interactions must be a Qrels, a Run, a DataFrame with columns 'user' and "
        "'item', or a tuple (users, items). Got dict."
    )):  # fmt: skip
        novelty([["a"]], {"u1": ["a"]})
    with pytest.raises(InputValidationError, match=re.escape(
        "novelty: users and items must have the same length. Got lengths [2, 1]."
    )):  # fmt: skip
        novelty([["a"]], (["u1", "u2"], ["a"]))


@given(recommendations(), st.data())
def test_novelty_equals_oracle(data, draw):
    n_items, lists, k = data
    pairs = draw.draw(
        st.lists(st.tuples(st.integers(0, 5), st.integers(0, n_items - 1)), min_size=1)
    )
    users, items = zip(*pairs, strict=True)
    seen = set(items)
    want = oracle.novelty(lists, pairs, k, skip_unseen=True)
    got = _quiet(novelty, lists, (list(users), list(items)), k=k, unseen="skip")
    _nan_equal(got, oracle.mean_defined(want))
    if all(i in seen for x in lists for i in oracle.top(x, k)):
        assert novelty(lists, (list(users), list(items)), k=k) == pytest.approx(got)


# ---------------------------------------------------------------- coverage and Gini
def test_coverage_hand_computed():
    lists = [["a", "b", "c"], ["a", "d", "b"]]
    assert catalog_coverage(lists, catalog=["a", "b", "c", "d", "e"]) == 0.8
    assert catalog_coverage(lists, catalog=["e", "d", "c", "b", "a", "a"]) == 0.8  # dup once
    assert catalog_coverage(lists, k=1, catalog=10) == 0.1
    assert catalog_coverage(lists, k=2, catalog=4) == 0.75


def test_coverage_and_gini_errors():
    msg = (
        "catalog_coverage: catalog must contain every recommended item. Got 1 item ['c'] "
        "that is not in it; add them to the catalog."  # the verb agrees: it said "are"
    )
    with pytest.raises(InputValidationError, match=re.escape(msg)):
        catalog_coverage([["a", "c"]], catalog=["a", "b"])
    with pytest.raises(InputValidationError, match=re.escape(
        "gini_index: catalog must be at least the number of distinct recommended items. Got "
        "catalog=1 for 2 recommended items; pass the size of the whole catalogue, or its item ids."
    )):  # fmt: skip
        gini_index([["a", "c"]], catalog=1)
    with pytest.raises(InvalidParameterError, match="'catalog' parameter of catalog_coverage"):
        catalog_coverage([["a"]], catalog=0)
    # a float size was read as ids: "catalog must be 1-dimensional. Got an array of shape ()."
    with pytest.raises(InvalidParameterError) as info:
        catalog_coverage([["a"]], catalog=5.0)
    assert str(info.value) == (
        "The 'catalog' parameter of catalog_coverage must be an int (the catalogue's size) or "
        "the ids of its items (a list or array). Got 5.0 (float) instead; pass catalog=5."
    )
    for size in (2.5, True, np.float64(3.0), np.array(3)):  # a size is an int
        with pytest.raises(InvalidParameterError, match=r"must be an int \(the catalogue's size"):
            gini_index([["a"]], catalog=size)
    with pytest.raises(InputValidationError, match="catalog is empty"):
        catalog_coverage([["a"]], catalog=[])
    with pytest.raises(TypeError, match="catalog"):
        catalog_coverage([["a"]])  # required


def test_a_mapping_of_a_user_to_a_list_names_the_argument_and_the_fix():
    with pytest.raises(InputValidationError) as raised:
        catalog_coverage({"u": {"a": 0.9}, "w": ["a", "b"]}, catalog=3)
    assert str(raised.value) == (
        "catalog_coverage: run must map each user to {item: score}. Got a list for user "
        "'w'; for ranked lists pass a list of lists instead."
    )


@pytest.mark.parametrize("catalog", [None, 3, ["a", "b"]])
def test_gini_of_a_run_without_recommendations_warns_nan(catalog):
    # no exposure at all: G = 0 / 0, undefined
    with pytest.warns(UndefinedMetricWarning, match="gini_index: the run recommends no item"):
        assert math.isnan(gini_index({"u": {}}, catalog=catalog))


def test_gini_hand_computed():
    lists = [["a", "b"], ["a", "c"], ["a", "b"]]
    assert gini_index(lists) == pytest.approx(2 / 9)  # exposures 1, 2, 3
    assert gini_index(lists, catalog=4) == pytest.approx(10 / 24)
    assert gini_index(lists, catalog=["a", "b", "c", "x"]) == pytest.approx(10 / 24)
    assert gini_index([["a", "b"], ["b", "a"]]) == 0.0  # equal exposure
    assert gini_index([["a"], ["a"]], catalog=5) == pytest.approx(1 - 1 / 5)  # all on one
    # default catalogue: the run's items at any depth, so "c" (rank 2) has exposure 0 at k=1
    assert gini_index([["a", "c"], ["b", "a"]], k=1) == gini_index([["a"], ["b"]], catalog=3)


@given(recommendations(), st.integers(0, 3))
def test_coverage_and_gini_equal_oracle(data, extra):
    n_items, lists, k = data
    catalog = list(range(n_items + extra))
    assert catalog_coverage(lists, k=k, catalog=catalog) == pytest.approx(
        oracle.coverage(lists, k, catalog)
    )
    assert catalog_coverage(lists, k=k, catalog=len(catalog)) == pytest.approx(
        oracle.coverage(lists, k, catalog)
    )
    want = oracle.gini(oracle.exposure(lists, k, catalog))
    assert gini_index(lists, k=k, catalog=catalog) == pytest.approx(want, abs=1e-12)
    assert gini_index(lists, k=k, catalog=len(catalog)) == pytest.approx(want, abs=1e-12)
    as_strings = [[f"i{i}" for i in x] for x in lists]
    assert gini_index(as_strings, k=k, catalog=[f"i{i}" for i in catalog[::-1]]) == (
        pytest.approx(want, abs=1e-12)
    )


def test_gini_kernel_is_exact_on_integers():
    counts = np.sort(np.array([0, 0, 3, 7, 7, 10**9], dtype=np.int64))
    n = len(counts)
    num = sum((2 * (j + 1) - n - 1) * int(c) for j, c in enumerate(counts))
    assert compiled().gini_sorted(counts) == num / (n * float(counts.sum()))
    assert math.isnan(compiled().gini_sorted(np.zeros(3, dtype=np.int64)))


# ---------------------------------------------------------------- k
@pytest.mark.parametrize(
    "call",
    [
        lambda k: catalog_coverage([["a"]], k=k, catalog=3),
        lambda k: gini_index([["a"]], k=k),
        lambda k: novelty([["a"]], LOG, k=k),
        lambda k: personalization([["a"], ["b"]], k=k),
        lambda k: diversity([["a", "b"]], k=k, features=ABC, feature_items=IDS),
    ],
)
@pytest.mark.parametrize("k", [0, 2.5, True, "10"])
def test_bad_k(call, k):
    with pytest.raises(InvalidParameterError, match="The 'k' parameter of "):
        call(k)


# ---------------------------------------------------------------- parallel chunks
def test_parallel_chunks_equal_serial_and_oracle():
    rng = np.random.default_rng(7)
    n_users, n_items = 7_000, 60  # 70k rows: above PARALLEL_MIN_ROWS
    lists = np.stack([rng.permutation(n_items)[:10] for _ in range(n_users)])
    run = Run(
        np.repeat(np.arange(n_users), 10), lists.ravel(), ranks=np.tile(np.arange(10), n_users)
    )
    assert run.n_rows >= PARALLEL_MIN_ROWS and user_chunks(run.n_rows) >= 1
    feats = rng.normal(size=(n_items, 5)).astype(np.float32)
    # item id i is feature row i (int32 row numbers, as the public functions pass them)
    rows = np.arange(n_items, dtype=np.int32)[np.asarray(run.item_ids)]
    used = np.ones(n_items, dtype=bool)
    api = compiled()  # the kernels the public functions run
    inv = api.inverse_norms(feats, rows, used, 1)
    serial = api.intra_list_similarity_csr(run.items, run.offsets, 7, rows, feats, inv, 1)
    chunked = api.intra_list_similarity_csr(run.items, run.offsets, 7, rows, feats, inv, 8)
    assert np.array_equal(serial, chunked)
    assert np.array_equal(ils_per_user(run, 7, features=feats), serial)
    sample = [int(u) for u in rng.integers(0, n_users, 20)]
    exact = feats.astype(np.float64)  # the kernel computes in float64
    want = oracle.ils([lists[u] for u in sample], lambda a, b: oracle.cosine(exact[a], exact[b]), 7)
    np.testing.assert_allclose(serial[sample], want, rtol=1e-12, atol=1e-12)
    sim = rng.random((n_items, n_items))
    by_matrix = ils_per_user(run, 7, similarity=sim)
    np.testing.assert_allclose(
        by_matrix[sample], oracle.ils([lists[u] for u in sample], lambda a, b: sim[a, b], 7)
    )
    info = rng.random(n_items)
    info[3] = np.nan
    means = [api.list_means_csr(info, run.items, run.offsets, 4, c) for c in (1, 8)]
    assert np.array_equal(means[0], means[1], equal_nan=True)

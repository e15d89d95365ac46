"""A user given as an empty list is the same user whatever the shape of the run.

A list of lists, a mapping ``{user: {}}`` and a ``Run`` hold the same users, so
every beyond-accuracy metric gives the same value and the same counts for each:
an empty list is a user of the run, counted (as skipped where its value is
undefined), never dropped.
"""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import receval as rv
from receval.exceptions import InputValidationError, UndefinedMetricWarning
from tests.oracles import beyond as oracle

POPULARITY = {"a": 100, "b": 10, "c": 5, "d": 1}
LOG = (["x", "x", "y", "y"], ["a", "c", "b", "d"])
HISTORY = {0: ["a"], 1: ["a"], 2: ["b"]}
CATEGORIES = {"a": ["x"], "b": ["y"], "c": ["y"], "d": ["x", "y"]}
QRELS = {0: {"a": 1}, 1: {"a": 1}, 2: {"b": 1}}


def _as_mapping(lists):
    return {u: {item: -r for r, item in enumerate(x)} for u, x in enumerate(lists)}


CALLS = {
    "intra_list_similarity": lambda run: rv.intra_list_similarity(run, similarity=lambda a, b: 0.5),
    "novelty": lambda run: rv.novelty(run, LOG),
    "arp": lambda run: rv.average_recommendation_popularity(run, popularity=POPULARITY, k=2),
    "aplt": lambda run: rv.average_percentage_long_tail(run, popularity=POPULARITY, k=2),
    "aclt": lambda run: rv.average_coverage_long_tail(run, popularity=POPULARITY, k=2),
    "aclt_whole": lambda run: rv.average_coverage_long_tail(run, popularity=POPULARITY),
    "average_popularity": lambda run: rv.average_popularity(run, popularity=POPULARITY, k=2),
    "tail_percentage": lambda run: rv.tail_percentage(run, popularity=POPULARITY, k=2),
    "serendipity": lambda run: rv.serendipity(run, HISTORY),
    "popularity_serendipity": lambda run: rv.popularity_serendipity(
        run, QRELS, LOG, catalog=5, k=2
    ),
    "intersection": lambda run: rv.intersection(run, _as_mapping([["a"], ["a"], ["b"]])),
    "miscalibration": lambda run: rv.miscalibration(run, HISTORY, item_categories=CATEGORIES),
    "personalization": lambda run: rv.personalization(run),
    "gini_index": lambda run: rv.gini_index(run, catalog=5),
    "shannon_entropy": lambda run: rv.shannon_entropy(run),
    "distributional_coverage": lambda run: rv.distributional_coverage(run),
    "catalog_coverage": lambda run: rv.catalog_coverage(run, catalog=5),
}


@pytest.mark.parametrize("name", list(CALLS))
@pytest.mark.parametrize(
    "lists",
    [
        [["a", "c"], []],
        [["a", "c"], [], ["b", "d", "a"]],
        [[]],  # every list empty: the mapping's value (nan + warning, or 0.0), not an error
        [[], []],
        np.empty((2, 0), dtype=object),
    ],
)
def test_an_empty_list_is_a_user_in_every_shape(name, lists):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        from_lists = CALLS[name](lists)
        from_mapping = CALLS[name](_as_mapping(lists))
    assert from_lists == pytest.approx(from_mapping, abs=1e-12, nan_ok=True)
    for count in ("n_users", "n_users_skipped"):
        assert getattr(from_lists, count, None) == getattr(from_mapping, count, None)
    if hasattr(from_lists, "n_users"):
        assert from_lists.n_users == len(lists)


def test_aclt_and_average_popularity_count_an_empty_list_as_zero():
    # ACLT counts tail items (0 of none); average_popularity@k divides by k
    lists = [["a", "c"], []]  # head {a}; c is in the tail
    aclt = rv.average_coverage_long_tail(lists, popularity=POPULARITY, k=2)
    assert (aclt, aclt.n_users, aclt.n_users_skipped) == (0.5, 2, 0)
    average = rv.average_popularity(lists, popularity=POPULARITY, k=2)
    assert (average, average.n_users_skipped) == (26.25, 0)


def test_personalization_empty_list_has_cosine_zero():
    # 3 users, pairs: cos(a|ab) = 1/sqrt(2) twice (ordered), every pair with [] 0
    got = rv.personalization([["a", "b"], [], ["a"]])
    assert got == pytest.approx(1 - 2 / math.sqrt(2) / 6, abs=1e-12)
    assert rv.personalization([["a", "b"], []]) == 1.0


@given(
    st.lists(st.lists(st.integers(0, 5), max_size=4, unique=True), min_size=2, max_size=6),
    st.sampled_from([None, 1, 2, 3]),
)
def test_personalization_with_empty_lists_equals_oracle(lists, k):
    # every list empty included: 1.0, as for the same users of a mapping
    expected = oracle.personalization(lists, k)
    assert rv.personalization(lists, k=k) == pytest.approx(expected, abs=1e-12)
    assert rv.personalization(_as_mapping(lists), k=k) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("run", [[], {}, np.empty((0, 3), dtype=object)])
def test_a_run_of_no_user_is_still_refused(run):
    with pytest.raises(InputValidationError, match="gini_index: run"):
        rv.gini_index(run, catalog=3)


@pytest.mark.parametrize(
    ("call", "reason"),
    [
        (lambda run: rv.average_recommendation_popularity(run, popularity=POPULARITY),
         "average_recommendation_popularity: no user has a recommended item"),
        (lambda run: rv.average_percentage_long_tail(run, popularity=POPULARITY),
         "average_percentage_long_tail: no user has a recommended item"),
        (lambda run: rv.average_popularity(run, popularity=POPULARITY),
         "average_popularity: no user has a recommended item"),
        (lambda run: rv.tail_percentage(run, popularity=POPULARITY),
         "tail_percentage: no user has a recommended item"),
        (lambda run: rv.novelty(run, LOG), "novelty: no user has a recommended item"),
    ],
)  # fmt: skip
@pytest.mark.parametrize("run", [{"u": {}}, [[], []]])
def test_every_list_empty_is_the_reason_said(call, reason, run):
    with pytest.warns(UndefinedMetricWarning) as caught:
        value = call(run)
    assert math.isnan(value) and value.n_users == len(run)
    assert [str(w.message) for w in caught] == [f"{reason}, so it is undefined (returned as nan)."]


def test_novelty_of_unseen_items_only_still_says_so():
    with pytest.warns(UndefinedMetricWarning, match="no recommended item occurs in interactions"):
        rv.novelty([["z"], []], LOG, unseen="skip")

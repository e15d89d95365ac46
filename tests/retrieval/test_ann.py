"""ann_recall(): hand cases."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from receval import InputValidationError, InvalidParameterError, Run, ann_recall
from receval.exceptions import UnmatchedIdsWarning


def test_hand_case_per_user_and_pooled():
    exact = {"u1": {"a": 0.9, "b": 0.8, "c": 0.7}, "u2": {"d": 0.9, "e": 0.5, "f": 0.1}}
    approx = {"u1": {"c": 0.7, "a": 0.6}, "u2": {"f": 0.5, "d": 0.4, "e": 0.3}}
    report = ann_recall(exact, approx, 2)
    # u1: exact top 2 {a, b}, approx top 2 {c, a}: 1/2; u2: {d, e} vs {f, d}: 1/2
    assert report.recall == 0.5
    np.testing.assert_array_equal(report.values, [0.5, 0.5])
    assert list(report.users) == ["u1", "u2"]
    assert ann_recall(exact, approx, 3).recall == 5 / 6


def test_missing_empty_and_tied_users_are_counted():
    exact = Run.from_dict({"u1": {"a": 1.0, "b": 1.0, "c": 0.5}, "u2": {"a": 1.0}, "u3": {}})
    approx = {"u1": {"a": 1.0, "c": 0.9}}
    report = ann_recall(exact, approx, 1)
    assert report.n_users_missing == 1  # u2: share 0
    assert report.n_users_empty == 1  # u3: left out
    assert report.n_users_tied_at_k == 1  # u1: a and b tie at k = 1
    np.testing.assert_array_equal(report.values, [1.0, 0.0])
    assert report.recall == 0.5
    assert "recall=0.5," in repr(report)


def test_identical_runs_have_recall_one_and_no_metric_loss():
    exact = {"u1": {"a": 0.9, "b": 0.8}, "u2": {"c": 0.9}}
    qrels = {"u1": {"b": 1}, "u2": {"c": 1}}
    report = ann_recall(
        exact,
        exact,
        2,
        qrels=qrels,
        metrics=["ndcg@2"],
        n_permutations=100,
        n_resamples=100,
        interval=None,
    )
    assert report.recall == 1.0
    assert report.comparison is not None
    means = report.comparison.means["ndcg@2"]
    assert means["exact"] == means["approximate"]


def test_bad_arguments():
    with pytest.raises(InvalidParameterError, match="'k' parameter of ann_recall"):
        ann_recall({"u": {"a": 1}}, {"u": {"a": 1}}, 0)
    with pytest.raises(InvalidParameterError, match="pass both qrels and metrics"):
        ann_recall({"u": {"a": 1}}, {"u": {"a": 1}}, 1, qrels={"u": {"a": 1}})


def test_runs_without_a_common_user_or_item_are_refused():
    # the index's results keyed by row position, the exact run by user id
    with pytest.raises(
        InputValidationError,
        match=r"ann_recall: no user of approximate_run is a user of exact_run; the ids must be "
        r"the same\. Got e\.g\. \[1, 2\] and \[7, 8\]; key the index's results by the user ids, "
        r"not by row positions\.",
    ):
        ann_recall({7: {"a": 1}, 8: {"a": 1}}, {1: {"a": 1}, 2: {"a": 1}}, 1)
    with pytest.raises(
        InputValidationError,
        match=r"ann_recall: no item of approximate_run is an item of exact_run; the ids must be "
        r"the same\. Got e\.g\. \['0'\] and \['a'\]\.",
    ):
        ann_recall({7: {"a": 1}}, {7: {"0": 1}}, 1)
    # one user in common is enough: the others are missing users
    report = ann_recall({7: {"a": 1}, 8: {"a": 1}}, {7: {"a": 1}, 2: {"a": 1}}, 1)
    assert (report.recall, report.n_users_missing) == (0.5, 1)


@pytest.mark.parametrize("argument", ["exact_run", "approximate_run"])
def test_a_bad_run_is_named_by_its_argument(argument):
    # both runs' errors said "evaluate: run: ...": neither the function nor which run
    runs = {"exact_run": {0: {1: 1.0}}, "approximate_run": {0: {1: 1.0}}}
    runs[argument] = {0: {1: float("nan")}}
    with pytest.raises(InputValidationError) as info:
        ann_recall(runs["exact_run"], runs["approximate_run"], 1)
    assert str(info.value).startswith(f"ann_recall: {argument}: scores contains NaN or infinity")
    runs[argument] = 5
    message = rf"The '{argument}' parameter of ann_recall must be a Run, a dict"
    with pytest.raises(InvalidParameterError, match=message):
        ann_recall(runs["exact_run"], runs["approximate_run"], 1)


def test_metrics_may_be_one_string():
    # a string was split into its letters ("Unknown metric 'n'")
    exact = {u: {1: 1.0, 2: 0.5} for u in range(4)}
    approximate = {u: {1 + u % 2: 1.0, 2 - u % 2: 0.5} for u in range(4)}
    qrels = {u: {1: 1, 2: u // 2} for u in range(4)}
    one = ann_recall(exact, approximate, 1, qrels=qrels, metrics="ndcg@1")
    listed = ann_recall(exact, approximate, 1, qrels=qrels, metrics=["ndcg@1"])
    assert one.comparison.means == listed.comparison.means
    with pytest.raises(InvalidParameterError, match="'metrics' parameter of ann_recall"):
        ann_recall(exact, approximate, 1, qrels=qrels, metrics=5)


def test_an_index_that_misses_every_judged_item_scores_zero():
    # a poor index, not an id mix-up (its items are the exact run's): compare refused the
    # approximate run ("compare: none of the run's 4 items is judged"); now it is scored,
    # without a warning
    exact = {"u1": {"a": 0.9, "b": 0.8, "c": 0.7}, "u2": {"a": 0.9, "e": 0.5, "f": 0.4}}
    approximate = {"u1": {"b": 0.9, "c": 0.8}, "u2": {"e": 0.5, "f": 0.4}}
    qrels = {"u1": {"a": 1}, "u2": {"a": 1}}
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnmatchedIdsWarning)
        report = ann_recall(exact, approximate, 2, qrels=qrels, metrics=["recall@2", "ndcg@2"],
                            n_permutations=100, interval=None)  # fmt: skip
    assert report.recall == 0.5  # u1 finds b of {a, b}; u2 e of {a, e}
    assert report.comparison.means == {
        "recall@2": {"exact": 1.0, "approximate": 0.0},
        "ndcg@2": {"exact": 1.0, "approximate": 0.0},
    }


def test_the_exact_runs_unjudged_items_are_refused_in_ann_recalls_name():
    # the exact run is the reference: qrels of none of its items are an id mix-up, as
    # evaluate says (the message named compare); allow_unmatched=True scores it anyway
    exact = {"u1": {"a": 0.9, "b": 0.8}}
    options = {"qrels": {"u1": {"z": 1}}, "metrics": ["ndcg@2"], "n_permutations": 100,
               "interval": None}  # fmt: skip
    with pytest.raises(
        InputValidationError,
        match=r"^ann_recall: none of the run's 2 items is judged in the qrels .*pass "
        r"allow_unmatched=True to score the run anyway\.$",
    ):
        ann_recall(exact, exact, 2, **options)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = ann_recall(exact, exact, 2, allow_unmatched=True, **options)
    said = [str(w.message) for w in caught if w.category is UnmatchedIdsWarning]
    assert len(said) == 1 and said[0].startswith("ann_recall: none of the run's 2 items"), said
    assert report.comparison.means == {"ndcg@2": {"exact": 0.0, "approximate": 0.0}}
    with pytest.raises(InvalidParameterError, match=r"^ann_recall: got an unknown keyword "
                       r"argument 'baseline'"):  # fmt: skip
        ann_recall(exact, exact, 2, baseline="exact", **options)

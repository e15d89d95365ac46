"""evaluate_embeddings checks its catalogue (item_ids), not the lists retrieved, against
the qrels' items: a poor model's lists that miss every judged item score 0, a catalogue
that holds no judged item is refused."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

import receval as rv
from receval import InputValidationError
from receval.exceptions import UnmatchedIdsWarning

# both users retrieve item 0 first; the qrels judge items 1 and 2 only
USERS = np.array([[1.0, 0.0], [1.0, 0.1]])
ITEMS = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]])
QRELS = {0: {2: 1}, 1: {1: 1}}
METRICS = ["recall@1", "ndcg@1"]
#: The refusal of item_ids ["i0", "i1", "i2"], after the name of the caller.
NO_JUDGED_ITEM = (
    "none of item_ids' 3 items is judged in the qrels (0.0%; 0.0% of the qrels' 2 items), "
    "e.g. item_ids ['i0', 'i1', 'i2'], qrels items [1, 2] (the qrels' are int64, the "
    "item_ids' str: an integer id matches the string of its decimal digits, 7 matches '7' "
    "but not '07' or '7.0'; cast one side so that both hold the same ids (e.g. .astype(int) "
    "on numeric strings)); every metric that reads the judgments would be 0; check the ids "
    "for a prefix, a type or a column mix-up, or pass allow_unmatched=True to score the run "
    "anyway."
)


def test_lists_that_miss_every_judged_item_score_0():
    # it raised "none of the run's 1 item is judged in the qrels ... check the ids
    # for a prefix, a type or a column mix-up", though every qrels item has a vector
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnmatchedIdsWarning)
        report = rv.evaluate_embeddings(QRELS, USERS, ITEMS, METRICS, k=1)
    assert report.mean == {"recall@1": 0.0, "ndcg@1": 0.0}
    assert (report.n_run_items, report.n_run_items_unmatched) == (1, 1)  # the lists' items


def test_evaluate_still_checks_the_run_items():
    lists = rv.retrieve(USERS, ITEMS, k=1)
    with pytest.raises(InputValidationError, match="none of the run's 1 item is judged"):
        rv.evaluate(QRELS, lists, METRICS)


def test_a_catalogue_without_a_judged_item_is_refused():
    with pytest.raises(InputValidationError) as caught:
        rv.evaluate_embeddings(QRELS, USERS, ITEMS, METRICS, k=1, item_ids=["i0", "i1", "i2"])
    assert str(caught.value) == "evaluate_embeddings: " + NO_JUDGED_ITEM
    with pytest.warns(UnmatchedIdsWarning, match="none of item_ids' 3 items is judged"):
        report = rv.evaluate_embeddings(QRELS, USERS, ITEMS, METRICS, k=1,
                                        item_ids=[10, 11, 12], allow_unmatched=True)  # fmt: skip
    assert report.mean == {"recall@1": 0.0, "ndcg@1": 0.0}


def test_few_judged_items_in_the_catalogue_warn_below_min_match():
    items = np.vstack([ITEMS, np.zeros((7, 2))])  # 10 items, item 1 the only one judged
    qrels = {0: {1: 1, 20: 1, 21: 1}, 1: {22: 1, 23: 1}}
    with pytest.warns(UnmatchedIdsWarning) as caught:
        rv.evaluate_embeddings(qrels, USERS, items, METRICS, k=1, min_match=0.5)
    assert str(caught[0].message).startswith(
        "evaluate_embeddings: 1 of item_ids' 10 items is judged in the qrels (10.0%; 20.0% "
        "of the qrels' 5 items), e.g. item_ids [0, 1, 2, 3, 4, ...], qrels items [1, 20, 21, "
        "22, 23], below min_match=0.5"
    )


@pytest.mark.parametrize("whole_groups", [True, False])
def test_an_accumulator_scores_the_lists_that_miss_every_judged_item_0(whole_groups):
    acc = rv.metric("recall@1", item_vectors=ITEMS, whole_groups=whole_groups)
    acc.update(QRELS, USERS, user_ids=[0, 1])
    assert acc.compute() == 0.0


def _loaded(acc: rv.Accumulator) -> rv.Accumulator:
    return pickle.loads(pickle.dumps(acc))


def _made(whole_groups: bool, **options) -> rv.Accumulator:
    return rv.metric("recall@1", item_vectors=ITEMS, item_ids=["i0", "i1", "i2"],
                     whole_groups=whole_groups, **options)  # fmt: skip


def _refusal(compute) -> str:
    with pytest.raises(InputValidationError) as caught:
        compute()
    return str(caught.value)


@pytest.mark.parametrize("whole_groups", [True, False])
def test_a_loaded_accumulator_checks_the_catalogue_as_the_one_that_saved_it(whole_groups):
    # a pickle kept the item matrix's digest only: the loaded accumulator matched the
    # users alone, and scored a catalogue that holds no judged item 0 without a word
    refusal = "receval.metric('recall@1'): " + NO_JUDGED_ITEM
    first = _made(whole_groups).update({0: QRELS[0]}, USERS[:1], user_ids=[0])
    second = _made(whole_groups).update({1: QRELS[1]}, USERS[1:], user_ids=[1])
    merged = _made(whole_groups).merge(first).merge(second)
    assert _refusal(merged.compute) == refusal
    assert _refusal(_loaded(merged).compute) == refusal
    assert _refusal(_loaded(first).merge(_loaded(second)).compute) == refusal
    assert _refusal(_loaded(first).merge(second).compute) == refusal


@pytest.mark.parametrize("whole_groups", [True, False])
def test_a_checkpoint_loaded_into_a_loaded_accumulator_checks_the_catalogue(whole_groups):
    pytest.importorskip("torch")
    acc = _made(whole_groups).update(QRELS, USERS, user_ids=[0, 1])
    saved = acc.state_dict()
    for resumed in (_made(whole_groups), _loaded(_made(whole_groups))):
        resumed.load_state_dict(saved)
        assert _refusal(resumed.compute) == _refusal(acc.compute)


@pytest.mark.parametrize("whole_groups", [True, False])
def test_a_loaded_accumulator_warns_and_scores_as_the_one_that_saved_it(whole_groups):
    # 1 of the 10 items of the catalogue judged: below min_match=0.5, a warning
    items = np.vstack([ITEMS, np.zeros((7, 2))])
    qrels = {0: {1: 1, 20: 1, 21: 1}, 1: {22: 1, 23: 1}}
    options = dict(item_vectors=items, min_match=0.5, whole_groups=whole_groups)
    acc = rv.metric("recall@3", **options).update(qrels, USERS, user_ids=[0, 1])
    outcomes = []
    for held in (acc, _loaded(acc), _loaded(_loaded(acc).merge(rv.metric("recall@3", **options)))):
        with pytest.warns(UnmatchedIdsWarning) as caught:
            value = held.compute()
        outcomes.append((value, [str(w.message) for w in caught]))
    assert outcomes[0][1][0].startswith("receval.metric('recall@3'): 1 of item_ids' 10 items")
    assert outcomes[1] == outcomes[0]
    assert outcomes[2] == outcomes[0]

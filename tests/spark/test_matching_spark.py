"""receval.spark.evaluate and evaluate_embeddings check ids that match nothing as
memory does: the same error, the same UnmatchedIdsWarning (each naming its own
function), the same report, from the counts and examples of every partition (the
smallest ids of each side)."""

from __future__ import annotations

import warnings
from functools import partial

import numpy as np
import pandas as pd
import pytest

import receval
import receval.spark as rs
from receval.exceptions import InputValidationError, InvalidParameterError, UnmatchedIdsWarning

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::DeprecationWarning")

METRICS = ["ndcg@10", "recall@5"]
# integer users in no order, so that the first ids met are not the smallest
_USERS = [12, 7, 30, 3, 21, 9, 15, 26, 4, 18]


def _frames(run_users, run_items=None, n_run_users=None):
    """Qrels of _USERS (3 judged items each) and a run of ``run_users`` (4 items each)."""
    q_users = np.repeat(_USERS, 3)
    qrels = pd.DataFrame(
        {"user": q_users, "item": (q_users * 7 + np.tile([0, 1, 2], len(_USERS))) % 40,
         "grade": np.tile([1, 2, 0], len(_USERS))}
    )  # fmt: skip
    users = list(run_users)[:n_run_users]
    r_users = np.repeat(np.array(users), 4)
    items = (np.repeat(_USERS[: len(users)], 4) * 7 + np.tile([0, 1, 5, 9], len(users))) % 40
    run = pd.DataFrame(
        {"user": r_users, "item": items if run_items is None else [run_items(i) for i in items],
         "score": np.tile([0.9, 0.7, 0.5, 0.1], len(users))}
    )  # fmt: skip
    return qrels, run


CASES = {
    # 7 against "07": no run user is a qrels user
    "users-disjoint": (_frames([f"0{u}" for u in _USERS]), {}),
    # the users match, the items ("i7" against 7) do not
    "items-disjoint": (_frames(_USERS, run_items=lambda i: f"i{i}"), {}),
    # 1 of 10 qrels users in the run: below min_match=0.5
    "share-below-min-match": (_frames(_USERS, n_run_users=1), {"min_match": 0.5}),
    "allow-unmatched": (_frames([f"0{u}" for u in _USERS]), {"allow_unmatched": True}),
    "allow-unmatched-items": (
        _frames(_USERS, run_items=lambda i: f"i{i}"),
        {"allow_unmatched": True},
    ),
}


def _outcome(evaluate, qrels, run, **options):
    """The error's text, or the UnmatchedIdsWarning messages and the report's means
    and counts."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            report = evaluate(qrels, run, METRICS, **options)
        except InputValidationError as exc:
            return str(exc)
    said = [str(w.message) for w in caught if issubclass(w.category, UnmatchedIdsWarning)]
    counts = ("n_users", "n_users_missing", "n_run_only_users", "n_run_items",
              "n_run_items_unmatched")  # fmt: skip
    return said, report.mean, [getattr(report, c) for c in counts]


def _on_spark(outcome):
    """An outcome in memory as on Spark: its messages name ``receval.spark``'s function."""
    if isinstance(outcome, str):
        return "receval.spark." + outcome
    said, mean, counts = outcome
    return ["receval.spark." + text for text in said], mean, counts


@pytest.mark.parametrize("case", sorted(CASES))
def test_evaluate_checks_ids_that_match_nothing_as_in_memory(spark, case):
    # Spark scored such runs 0 without a word (and took no min_match nor
    # allow_unmatched) where memory raises or warns
    (qrels, run), options = CASES[case]
    expected = _outcome(receval.evaluate, qrels, run, **options)
    q_df, r_df = spark.createDataFrame(qrels), spark.createDataFrame(run)
    got = _outcome(partial(rs.evaluate, num_partitions=3), q_df, r_df, **options)
    assert got == _on_spark(expected)
    if case.endswith("disjoint"):  # refused, naming the smallest ids of each side
        assert "e.g. qrels " in got or "e.g. run items" in got
    else:
        assert got[0]  # a warning


def test_the_message_names_the_smallest_ids_of_each_side_on_every_backend(spark):
    (qrels, run), _ = CASES["users-disjoint"]
    message = (
        "evaluate: none of the 10 qrels users is in the run (0.0%), e.g. qrels users "
        "[3, 4, 7, 9, 12, ...], run users ['012', '015', '018', '021', '026', ...] (the qrels' "
        "are int64, the run's str: an integer id matches the string of its decimal digits"
    )
    with pytest.raises(InputValidationError) as in_memory:
        receval.evaluate(qrels, run, METRICS)
    for n in (1, 4):
        with pytest.raises(InputValidationError) as on_spark:
            rs.evaluate(spark.createDataFrame(qrels), spark.createDataFrame(run), METRICS,
                        num_partitions=n)  # fmt: skip
        assert str(on_spark.value) == _on_spark(str(in_memory.value))
    assert str(in_memory.value).startswith(message)


@pytest.mark.parametrize(
    ("options", "text"),
    [
        ({"min_match": 2}, "The 'min_match' parameter of receval.spark.evaluate must be a "
                           "float in [0, 1]. Got 2 instead."),
        ({"allow_unmatched": "yes"}, "The 'allow_unmatched' parameter of receval.spark."
                                     "evaluate must be a bool. Got 'yes' instead."),
    ],
)  # fmt: skip
def test_match_options_are_checked_before_any_job(spark, options, text):
    (qrels, run), _ = CASES["users-disjoint"]
    with pytest.raises(InvalidParameterError) as caught:
        rs.evaluate(spark.createDataFrame(qrels), spark.createDataFrame(run), METRICS, **options)
    assert str(caught.value) == text


def _embeddings(user_ids, item_ids):
    """Vectors of 6 users and 12 items; qrels of the users 7, 3, 12, ... (integers),
    judging the items 100, 101, ..."""
    rng = np.random.default_rng(4)
    users = rng.integers(-2, 3, (len(user_ids), 3)).astype(np.float64)
    items = rng.integers(-2, 3, (len(item_ids), 3)).astype(np.float64)
    q_users = np.repeat(_USERS[:6], 2)
    qrels = pd.DataFrame({"user": q_users, "item": 100 + (q_users + np.tile([0, 5], 6)) % 12,
                          "grade": 1})  # fmt: skip
    return users, items, qrels


EMBEDDING_CASES = {
    "users-disjoint": ([f"0{u}" for u in _USERS[:6]], np.arange(12) + 100, {}),
    "items-disjoint": (_USERS[:6], np.array([f"i{i}" for i in range(12)]), {}),
    "share-below-min-match": (
        [*_USERS[:1], 99, 98, 97, 96, 95],
        np.arange(12) + 100,
        {"min_match": 0.5},
    ),
    "allow-unmatched": (
        [f"0{u}" for u in _USERS[:6]],
        np.arange(12) + 100,
        {"allow_unmatched": True},
    ),
}


@pytest.mark.parametrize("case", sorted(EMBEDDING_CASES))
def test_evaluate_embeddings_checks_ids_that_match_nothing_as_in_memory(spark, case):
    # rs.evaluate_embeddings refused min_match and allow_unmatched ("unknown option")
    # and scored users or items that match nothing 0 without a word
    user_ids, item_ids, options = EMBEDDING_CASES[case]
    users, items, qrels = _embeddings(user_ids, item_ids)

    def in_memory(q, _, metrics, **kw):
        return receval.evaluate_embeddings(q, users, items, metrics, k=10, user_ids=user_ids,
                                           item_ids=item_ids, **kw)  # fmt: skip

    def on_spark(q, u_df, metrics, **kw):
        return rs.evaluate_embeddings(q, u_df, items, metrics, k=10, item_ids=item_ids,
                                      num_partitions=3, **kw)  # fmt: skip

    kind = "string" if isinstance(user_ids[0], str) else "long"
    u_df = spark.createDataFrame(
        [(u, [float(x) for x in row]) for u, row in zip(user_ids, users, strict=True)],
        f"user {kind}, vector array<double>",
    )
    expected = _outcome(in_memory, qrels, None, **options)
    got = _outcome(on_spark, spark.createDataFrame(qrels), u_df, **options)
    assert got == _on_spark(expected)
    assert isinstance(got, str) == case.endswith("disjoint")


@pytest.mark.parametrize("item_ids", [None, ["i0", "i1", "i2"]])
def test_evaluate_embeddings_checks_the_catalogue_not_the_lists(spark, item_ids):
    # lists that miss every judged item (a poor model, k=1) were refused as ids that
    # match nothing; the catalogue holds the judged items, so they score 0, and a
    # catalogue without a judged item is refused as in memory
    users = np.array([[1.0, 0.0], [1.0, 0.1]])
    items = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]])
    qrels = pd.DataFrame({"user": [0, 1], "item": [2, 1], "grade": 1})

    top1 = ["ndcg@1", "recall@1"]  # (a cut-off within k)

    def in_memory(q, _, metrics, **kw):
        return receval.evaluate_embeddings(q, users, items, top1, k=1, user_ids=[0, 1],
                                           item_ids=item_ids, **kw)  # fmt: skip

    def on_spark(q, u_df, metrics, **kw):
        return rs.evaluate_embeddings(q, u_df, items, top1, k=1, item_ids=item_ids,
                                      num_partitions=2, **kw)  # fmt: skip

    u_df = spark.createDataFrame(
        [(u, row.tolist()) for u, row in enumerate(users)], "user long, vector array<double>"
    )
    got = _outcome(on_spark, spark.createDataFrame(qrels), u_df)
    assert got == _on_spark(_outcome(in_memory, qrels, None))
    if item_ids is None:
        assert got[1] == dict.fromkeys(top1, 0.0)
    else:
        assert got.startswith(
            "receval.spark.evaluate_embeddings: none of item_ids' 3 items is judged in the qrels"
        )

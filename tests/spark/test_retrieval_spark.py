"""receval.spark.evaluate_embeddings (users partitioned, the item matrix sent to the
executors) equals the in-memory evaluate_embeddings, counts included."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from receval import InputValidationError, InvalidParameterError, evaluate_embeddings
from receval.exceptions import UnmatchedIdsWarning

METRICS = ["ndcg@10", "recall@5", "mrr@10", "p@3"]


def _data(seed=0, n_users=23, n_items=40, dim=4):
    rng = np.random.default_rng(seed)
    users = rng.integers(-2, 3, (n_users, dim)).astype(np.float32)  # tied scores
    items = rng.integers(-2, 3, (n_items, dim)).astype(np.float32)
    user_ids = np.array([f"u{i}" for i in range(n_users)])
    item_ids = rng.permutation(n_items) + 1000
    qrels = {}
    for u in range(n_users - 3):  # three users without judgments
        chosen = rng.choice(item_ids, 3, replace=False)
        qrels[str(user_ids[u])] = {int(i): int(rng.integers(1, 3)) for i in chosen}
    qrels["nobody"] = {int(item_ids[0]): 1}  # judged, without a vector
    train = pd.DataFrame(
        {"user": [str(user_ids[u]) for u in rng.integers(0, n_users, 90)],
         "item": [int(i) for i in rng.choice(item_ids, 90)]}
    )  # fmt: skip
    return users, items, user_ids, item_ids, qrels, train


def _frames(spark, users, user_ids, qrels, numbers="float"):
    u_df = spark.createDataFrame(
        [(str(u), [float(x) for x in row]) for u, row in zip(user_ids, users, strict=True)],
        f"user string, vector array<{numbers}>",
    )
    q_df = spark.createDataFrame(
        [(u, i, g) for u, judged in qrels.items() for i, g in judged.items()],
        "user string, item long, grade int",
    )
    return u_df, q_df


@pytest.mark.parametrize("joined", [None, True, False])
def test_spark_equals_in_memory(spark, joined):
    from receval import spark as rs

    users, items, user_ids, item_ids, qrels, train = _data()
    # pairs whose user ("ghost") or item (1, 2) has no vector mask nothing: counted (they
    # were not on Spark)
    absent = pd.DataFrame({"user": ["ghost", "ghost", "u3", "u3"], "item": [1, 1000, 1, 2]})
    train = pd.concat([train, absent], ignore_index=True)
    u_df, q_df = _frames(spark, users, user_ids, qrels)
    exclude = None if joined is None else spark.createDataFrame(train) if joined else train
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        want = evaluate_embeddings(qrels, users, items, METRICS, user_ids=user_ids,
                                   item_ids=item_ids, exclude=None if joined is None else train,
                                   ties="input")  # fmt: skip
        got = rs.evaluate_embeddings(q_df, u_df, items, METRICS, item_ids=item_ids,
                                     exclude=exclude, num_partitions=3, block_users=2,
                                     block_items=7, ties="input")  # fmt: skip
    for m in METRICS:
        assert got.mean[m] == pytest.approx(want.mean[m], abs=1e-12)
    assert got.n_users == want.n_users and got.n_users_missing == want.n_users_missing == 1
    assert got.n_run_only_users == want.n_run_only_users == 3
    assert got.n_run_items == want.n_run_items
    assert got.n_exclude_unmatched == want.n_exclude_unmatched == (None if joined is None else 4)
    told = [str(w.message) for w in caught if w.category is UnmatchedIdsWarning]
    assert len(told) == (0 if joined is None else 2)
    assert all(" 4 of the " in text and "users without one: 2 pairs" in text for text in told)
    if joined is not None:  # the message of memory, examples included (with a local
        # exclude, sent whole to every partition, Spark named no user)
        memory, on_spark = (text.split(": ", 1)[1] for text in told)
        assert "(users without one: 2 pairs, e.g. ['ghost']; items without one: 2 pairs, e.g. " \
               "[1, 2])" in memory  # fmt: skip
        assert on_spark == memory
    if joined is not None:  # the training items changed the lists
        plain = evaluate_embeddings(qrels, users, items, METRICS, user_ids=user_ids,
                                    item_ids=item_ids, ties="input")  # fmt: skip
        assert plain.mean != want.mean


def test_spark_cosine_double_vectors_and_an_npy_path(spark, tmp_path):
    from receval import spark as rs

    users, items, user_ids, _, qrels, _ = _data(1)
    users[~users.any(axis=1)] = 1
    items[~items.any(axis=1)] = 1
    qrels = {u: {i - 1000: g for i, g in judged.items() if i < 1040} for u, judged in
             qrels.items()}  # fmt: skip
    path = str(tmp_path / "items.npy")
    np.save(path, items)
    u_df, q_df = _frames(spark, users, user_ids, qrels, numbers="double")
    want = evaluate_embeddings(qrels, users, items, ["mrr"], k=40, user_ids=user_ids,
                               metric="cosine")  # fmt: skip
    got = rs.evaluate_embeddings(q_df, u_df, path, ["mrr"], k=40, metric="cosine",
                                 num_partitions=2)  # fmt: skip
    assert got.mean["mrr"] == pytest.approx(want.mean["mrr"], abs=1e-12)


def test_spark_bad_input(spark):
    from receval import spark as rs

    users, items, user_ids, item_ids, qrels, train = _data(2)
    u_df, q_df = _frames(spark, users, user_ids, qrels)
    with pytest.raises(InvalidParameterError, match="unknown option 'exlcude'"):
        rs.evaluate_embeddings(q_df, u_df, items, METRICS, exlcude=train)
    # it said "evaluate_embeddings: ...", the function of memory, not the one called
    with pytest.raises(InvalidParameterError, match=r"^receval\.spark\.evaluate_embeddings: "
                       r"the metrics \['mrr'\] read the whole list; pass k=100"):  # fmt: skip
        rs.evaluate_embeddings(q_df, u_df, items, ["mrr"])
    # it scored ndcg@10 on lists of 5 items, where evaluate_embeddings refuses k=5
    with pytest.raises(InvalidParameterError, match=r"^receval\.spark\.evaluate_embeddings: "
                       r"k=5 retrieves fewer items than the cutoff"):  # fmt: skip
        rs.evaluate_embeddings(q_df, u_df, items, ["ndcg@10"], k=5)
    ragged = spark.createDataFrame(
        [("a", [1.0, 2.0]), ("b", [1.0])], "user string, vector array<float>"
    )
    with pytest.raises(InputValidationError, match=r"same length\. Got lengths"):
        rs.evaluate_embeddings(q_df, ragged, items[:, :2], ["mrr@3"], num_partitions=1)
    with pytest.raises(InputValidationError, match="same number of columns"):
        rs.evaluate_embeddings(q_df, u_df, items[:, :3], ["mrr@3"])
    other = pd.DataFrame({"user": ["zz"], "item": [1]})
    with pytest.raises(InputValidationError, match="no \\(user, item\\) pair of exclude"):
        rs.evaluate_embeddings(q_df, u_df, items, ["mrr@3"], item_ids=item_ids, exclude=other)


def test_integer_ids_match_strings_of_their_spelling_as_in_memory(spark):
    # integer users in users (bigint) beside the qrels' strings, integer item_ids
    # beside the qrels' string items, one spelled "01003" (matches no item, as in
    # memory), and a DataFrame exclude of integer items; it raised 'the user ids
    # are numbers in users but strings in qrels'
    from receval import spark as rs

    users, items, _, item_ids, qrels, train = _data(3)
    user_ids = np.arange(len(users)) + 7
    qrels = {str(7 + int(u[1:])): {("01003" if i == 1003 else str(i)): g
                                   for i, g in judged.items()}
             for u, judged in qrels.items() if u != "nobody"}  # fmt: skip
    u_df = spark.createDataFrame(
        [(int(u), [float(x) for x in row]) for u, row in zip(user_ids, users, strict=True)],
        "user long, vector array<float>",
    )
    q_df = spark.createDataFrame(
        [(u, i, g) for u, judged in qrels.items() for i, g in judged.items()],
        "user string, item string, grade int",
    )
    log = pd.DataFrame({"user": [str(7 + int(u[1:])) for u in train.user], "item": train.item})
    for exclude in (None, log):
        want = evaluate_embeddings(qrels, users, items, METRICS, user_ids=user_ids,
                                   item_ids=item_ids, exclude=exclude)  # fmt: skip
        assert want.n_users_missing == 0
        got = rs.evaluate_embeddings(
            q_df, u_df, items, METRICS, item_ids=item_ids, num_partitions=3,
            exclude=None if exclude is None else spark.createDataFrame(exclude),
        )  # fmt: skip
        assert got.mean == pytest.approx(want.mean, abs=1e-12)
        assert (got.n_users, got.n_users_missing, got.n_run_only_users) == (
            want.n_users, want.n_users_missing, want.n_run_only_users
        )  # fmt: skip
    # floats holding whole numbers match the strings of those integers, as in memory
    # (they were refused: 'the item ids are float64 values in item_ids but strings in
    # qrels, so no id would match')
    floats = item_ids.astype(float)
    want = evaluate_embeddings(qrels, users, items, METRICS, user_ids=user_ids, item_ids=floats)
    got = rs.evaluate_embeddings(q_df, u_df, items, METRICS, item_ids=floats, num_partitions=3)
    assert got.mean == pytest.approx(want.mean, abs=1e-12)
    assert (got.n_users, got.n_users_missing) == (want.n_users, want.n_users_missing)

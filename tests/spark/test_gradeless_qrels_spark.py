"""Spark qrels without a grade column (``grade="grade"``, the default) follow the rule of
frames in memory: of user, item and time columns alone, the pairs judged relevant, each
of grade 1; with another column, refused with the fix."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import receval
from receval import InputValidationError

PAIRS = pd.DataFrame({"user": [1, 1, 2], "item": [10, 11, 12], "timestamp": [5, 6, 7]})
RUN = pd.DataFrame({"user": [1, 1, 2, 2], "item": [11, 10, 13, 12], "score": [0.9, 0.5, 0.8, 0.1]})
USERS = np.array([[1.0, 0.0], [0.0, 1.0]])
ITEMS = np.array([[0.2, 0.1], [0.9, 0.0], [0.0, 0.3], [0.1, 0.8]])
ITEM_IDS = [10, 11, 12, 13]


def _refused(func: str) -> str:
    return (
        f"receval.spark.{func}: qrels: no column 'grade' but has ['rating'] beside user and "
        f"item, which would be left unread (every pair of grade 1); pass grade='rating' if "
        f"that column holds the grades, or grade=None to give every pair grade 1."
    )


def test_evaluate_reads_qrels_of_user_item_and_time_as_the_pairs_of_grade_1(spark):
    # it said "qrels has no column 'grade' (the 'grade' argument)" whatever the columns
    from receval import spark as rs

    want = receval.evaluate(PAIRS, RUN, ["mrr", "ndcg@2"])
    got = rs.evaluate(spark.createDataFrame(PAIRS), spark.createDataFrame(RUN), ["mrr", "ndcg@2"])
    assert got.mean == want.mean
    assert want.mean["mrr"] == 0.75  # user 1's items at ranks 1 and 2, user 2's at 2
    rated = spark.createDataFrame(PAIRS.assign(rating=[2, 0, 1]))
    with pytest.raises(InputValidationError) as info:
        rs.evaluate(rated, spark.createDataFrame(RUN), ["mrr"])
    assert str(info.value) == _refused("evaluate")
    graded = rs.evaluate(rated, spark.createDataFrame(RUN), ["mrr"], grade="rating")
    assert graded.mean == {"mrr": 0.5}  # user 1's item 11 has grade 0


def test_evaluate_embeddings_reads_qrels_of_user_item_and_time_as_the_pairs(spark):
    from receval import spark as rs

    users = spark.createDataFrame(
        [(u, [float(x) for x in row]) for u, row in zip([1, 2], USERS, strict=True)],
        "user long, vector array<double>",
    )
    want = receval.evaluate_embeddings(PAIRS, USERS, ITEMS, ["mrr"], k=4, user_ids=[1, 2],
                                       item_ids=ITEM_IDS)  # fmt: skip
    got = rs.evaluate_embeddings(spark.createDataFrame(PAIRS), users, ITEMS, ["mrr"], k=4,
                                 item_ids=ITEM_IDS)  # fmt: skip
    assert got.mean == want.mean
    rated = spark.createDataFrame(PAIRS.assign(rating=[2, 0, 1]))
    with pytest.raises(InputValidationError) as info:
        rs.evaluate_embeddings(rated, users, ITEMS, ["mrr"], k=4, item_ids=ITEM_IDS)
    assert str(info.value) == _refused("evaluate_embeddings")

"""receval.spark.evaluate counts the refused propensities of all the qrels, as
receval.evaluate does, not those of the partition that raised first."""

import pandas as pd
import pytest

import receval
import receval.spark as rs
from receval.exceptions import InputValidationError

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::DeprecationWarning")

#: users u0 .. u11, each judging a and b, and u0, u1, u2 judging c too
USERS = [f"u{i}" for i in range(12)]
QRELS = pd.DataFrame(
    {"user": [*USERS, *USERS, "u0", "u1", "u2"], "item": ["a"] * 12 + ["b"] * 12 + ["c"] * 3}
).assign(grade=1)
RUN = QRELS.drop(columns="grade").assign(score=0.5)


def _message(**options):
    with pytest.raises(InputValidationError) as info:
        receval.evaluate(QRELS, RUN, ["ndcg@2"], **options)
    return str(info.value)


def test_pairs_without_a_propensity_are_counted_over_every_partition(spark):
    from pyspark.sql import functions as F

    q, r = spark.createDataFrame(QRELS), spark.createDataFrame(RUN)
    # the users missing c lie in at least two partitions (hashed as evaluate hashes them)
    parts = q.repartition(4, "user").where(F.col("item") == "c")
    assert parts.select(F.spark_partition_id()).distinct().count() >= 2
    props = {"a": 0.5, "b": 0.25}
    with pytest.raises(InputValidationError) as info:
        rs.evaluate(q, r, ["ndcg@2"], propensities=props, num_partitions=4)
    text = str(info.value)
    # it counted the pairs of the partition whose error came first ("for 1 relevant ...")
    assert text.startswith(
        "receval.spark.evaluate: propensities has no propensity for 3 relevant (user, item) "
        "pairs of the qrels, e.g. ["
    )
    assert text.endswith("]; give one for every item graded >= 1.0.")
    assert "no propensity for 3 relevant (user, item) pairs" in _message(propensities=props)
    # the check the whole qrels fail first: c without a propensity (in u0, u1 and u2's
    # partitions), not b's weight beyond float64's range (the first check the others fail)
    props = {"a": 0.5, "b": 1e-309}
    with pytest.raises(InputValidationError, match="no propensity for 3 relevant "):
        rs.evaluate(q, r, ["ndcg@2"], propensities=props, num_partitions=4)
    assert "no propensity for 3 relevant " in _message(propensities=props)


def test_pairs_of_propensity_zero_are_counted_over_every_partition(spark):
    q, r = spark.createDataFrame(QRELS), spark.createDataFrame(RUN)
    popularity = {"a": 4, "b": 1, "c": 0}  # c: no interactions, propensity 0
    options = {"propensities": "popularity", "popularity": popularity}
    with pytest.raises(InputValidationError) as info:
        rs.evaluate(q, r, ["ndcg@2"], num_partitions=4, **options)
    assert str(info.value).startswith(
        "receval.spark.evaluate: 3 relevant (user, item) pairs of the qrels have propensity 0 "
        "under the popularity model"
    )
    assert _message(**options).startswith("evaluate: 3 relevant (user, item) pairs")


def test_an_error_restated_keeps_its_tally():
    # named, moved and restated errors were made without the tally: the driver then
    # raised one partition's count
    with pytest.raises(InputValidationError) as info:
        receval.evaluate(QRELS, RUN, ["ndcg@2"], propensities={"a": 0.5, "b": 0.25})
    error = info.value
    assert error.tally is not None and error.tally.count == 3
    for again in (error.named("evaluate: ", "x: "), error.moved(3)):
        assert again.tally is error.tally

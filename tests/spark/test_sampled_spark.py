"""receval.spark.evaluate with candidates= and correction= equals the in-memory evaluate."""

from __future__ import annotations

import pytest

from receval import evaluate, sample_negatives
from tests.sampled.test_sampled import _data


def _frames(spark, qrels, run):
    """The qrels and the run as Spark DataFrames (user, item, grade / score)."""
    q_df = spark.createDataFrame(
        [(u, i, g) for u, judged in qrels.items() for i, g in judged.items()],
        "user string, item string, grade int",
    )
    r_df = spark.createDataFrame(
        [(u, i, s) for u, r in run.items() for i, s in r.items()],
        "user string, item string, score double",
    )
    return q_df, r_df


def test_spark_equals_in_memory(spark):
    from receval import spark as rs

    qrels, run, items = _data(seed=7)
    c = sample_negatives(qrels, items, n=10, seed=2)
    metrics = ["recall@5", "ndcg@10", "mrr"]
    q_df, r_df = _frames(spark, qrels, run)
    for correction in (None, "bv"):
        want = evaluate(qrels, run, metrics, candidates=c, correction=correction)
        got = rs.evaluate(q_df, r_df, metrics, candidates=c, correction=correction,
                          num_partitions=3)  # fmt: skip
        for m in metrics:
            assert got.mean[m] == pytest.approx(want.mean[m], abs=1e-12)


def test_spark_counts_what_the_restriction_left_out(spark):
    """The rows, candidates and users the restriction leaves out are summed over the
    partitions, run-only users' partitions included, as evaluate counts them."""
    from receval import spark as rs

    qrels, run, items = _data(seed=3)
    c = sample_negatives(qrels, items, n=5, seed=1)
    run = dict(run)
    run["stranger"] = {items[0]: 0.5, items[1]: 0.25}  # no qrels, no candidate set
    q_df, r_df = _frames(spark, qrels, run)
    want = evaluate(qrels, run, ["recall@5"], candidates=c, correction="rank").sampling
    got = rs.evaluate(q_df, r_df, ["recall@5"], candidates=c, correction="rank",
                      num_partitions=4).sampling  # fmt: skip
    assert want.n_users_without_candidates >= 1 and want.n_rows_dropped > 0
    assert got == want


def test_spark_warns_on_corrections_of_popularity_candidates(spark):
    """The corrections assume uniformly sampled negatives: Spark warns as evaluate does."""
    import numpy as np

    from receval import spark as rs

    qrels, run, items = _data(users=5)
    c = sample_negatives(qrels, items, n=5, seed=0, strategy="popularity",
                         popularity=(items, np.arange(1, len(items) + 1)))  # fmt: skip
    q_df, r_df = _frames(spark, qrels, run)
    with pytest.warns(UserWarning, match="spark.evaluate: the corrections assume uniformly"):
        rs.evaluate(q_df, r_df, "recall@5", candidates=c, correction="bv", num_partitions=2)


def test_spark_warns_once_of_a_correction_left_to_rounding(spark):
    """The partitions' worst least-squares problem is warned of once, on the driver,
    naming receval.spark.evaluate (each partition warned in its worker, naming evaluate)."""
    import warnings

    import receval
    from receval import spark as rs

    qrels, run, items = _data(seed=1, size=300)
    c = sample_negatives(qrels, items, n=100, seed=4)
    q_df, r_df = _frames(spark, qrels, run)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rs.evaluate(q_df, r_df, "recall@5", candidates=c, correction="minimal_bias",
                    num_partitions=3)  # fmt: skip
    said = [str(w.message) for w in caught if issubclass(w.category, receval.RecevalWarning)]
    assert len(said) == 1, said
    assert said[0].startswith(
        "receval.spark.evaluate: the 'minimal_bias' correction of recall@5 with n=100"
    )


@pytest.mark.parametrize(
    "options",
    [
        {"correction": "bv"},
        {"catalog_size": 100},
        {"candidates": {"u0": ["i00"]}, "correction": "unbiased", "catalog_size": 9},
    ],
)
def test_spark_refuses_bad_corrections_naming_itself(spark, options):
    """evaluate's messages, naming receval.spark.evaluate (they named evaluate)."""
    from receval import spark as rs
    from receval.exceptions import InvalidParameterError

    qrels, run, _ = _data(users=3)
    with pytest.raises(InvalidParameterError) as want:
        evaluate(qrels, run, "recall@5", **options)
    q_df, r_df = _frames(spark, qrels, run)
    with pytest.raises(InvalidParameterError) as got:
        rs.evaluate(q_df, r_df, "recall@5", **options)
    assert str(got.value) == str(want.value).replace("evaluate", "receval.spark.evaluate")

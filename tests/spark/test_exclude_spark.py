"""receval.spark.evaluate with exclude= (a Spark DataFrame joined by user, or a local
log sent to the executors) equals the in-memory evaluate, counts included."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from receval import InvalidParameterError, evaluate

METRICS = ["recall@3", "ndcg@5", "mrr", "pooled_hit_ratio@2"]


def _data(seed):
    rng = np.random.default_rng(seed)
    rows = {(f"u{rng.integers(30)}", f"i{rng.integers(40)}"): float(rng.choice([0.1, 0.5, 0.9]))
            for _ in range(400)}  # fmt: skip
    run = {}
    for (u, i), s in rows.items():
        run.setdefault(u, {})[i] = s
    qrels = {}
    for _ in range(60):
        qrels.setdefault(f"u{rng.integers(34)}", {})[f"i{rng.integers(40)}"] = 1
    train = pd.DataFrame(
        {"user": [f"u{u}" for u in rng.integers(0, 32, 300)],
         "item": [f"i{i}" for i in rng.integers(0, 45, 300)]}
    )  # fmt: skip
    return qrels, run, train


def _frames(spark, qrels, run):
    q_df = spark.createDataFrame(
        [(u, i, g) for u, judged in qrels.items() for i, g in judged.items()],
        "user string, item string, grade int",
    )
    r_df = spark.createDataFrame(
        [(u, i, s) for u, r in run.items() for i, s in r.items()],
        "user string, item string, score double",
    )
    return q_df, r_df


@pytest.mark.parametrize("joined", [True, False])
def test_spark_masking_equals_in_memory(spark, joined):
    from receval import spark as rs

    qrels, run, train = _data(seed=4)
    q_df, r_df = _frames(spark, qrels, run)
    exclude = spark.createDataFrame(train) if joined else train
    want = evaluate(qrels, run, METRICS, exclude=train)
    got = rs.evaluate(q_df, r_df, METRICS, exclude=exclude, num_partitions=3)
    for m in METRICS:
        assert got.mean[m] == pytest.approx(want.mean[m], abs=1e-12)
    assert got.masking == want.masking and want.masking.n_rows_removed > 0
    assert got.n_seen_removed is None  # per-user values stay on the executors


def test_spark_repeats_and_bad_exclude(spark):
    from receval import spark as rs

    qrels, run, train = _data(seed=5)
    q_df, r_df = _frames(spark, qrels, run)
    got = rs.evaluate(q_df, r_df, ["mrr"], repeats=True, num_partitions=2)
    assert got.masking.repeats and got.mean == evaluate(qrels, run, ["mrr"]).mean
    with pytest.raises(InvalidParameterError, match="not both"):
        rs.evaluate(q_df, r_df, ["mrr"], exclude=spark.createDataFrame(train), repeats=True)
    # integer users beside the run's strings match by spelling, as in memory (none here)
    log = pd.DataFrame({"user": [1], "item": ["i1"]})
    got = rs.evaluate(q_df, r_df, ["mrr"], exclude=spark.createDataFrame(log))
    assert got.mean == evaluate(qrels, run, ["mrr"], exclude=log).mean
    # a float user beside the run's strings: matched as in memory (it was refused)
    floats = pd.DataFrame({"user": [1.5], "item": ["i1"]})
    got = rs.evaluate(q_df, r_df, ["mrr"], exclude=spark.createDataFrame(floats))
    assert got.mean == evaluate(qrels, run, ["mrr"], exclude=floats).mean

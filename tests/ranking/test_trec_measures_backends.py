"""trec_eval's and ir_measures' measures are ordinary metrics: every backend runs them.

For every registry metric computed by the core's trec_eval kernel (and the means
that are sums or geometric means), on random qrels and runs with tied scores,
negative grades and users absent from either side: ``receval.metric`` over any
split of the users == ``evaluate``; a scan of a Parquet run == ``evaluate``; and
the per-user values do not depend on the order of the metrics asked together.
Spark runs them in tests/spark/test_parity.py.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import receval as rv
from receval._kernels import codes as core_codes
from receval.registry import RANKING as REGISTRY

codes = core_codes()

# one string per metric of the trec kernel, with its parameters where it needs them
_PARAMS = {
    "iprec": "iprec(recall=0.3)",
    "rprec_mult": "rprec_mult(mult=0.5)",
    "utility": "utility(a=2,b=-1,c=-0.5,d=0)",
    "iprec_avg": "iprec_avg(levels=0.2;0.5)",
    "set_f": "set_f(beta=0.5)",
    "rbp": "rbp(p=0.9)",
    "ndcg_rel": "ndcg_rel(gains=1:3;2:9)",
}
_AT_K = {"relative_precision", "unjudged", "judged", "err", "nerr", "hits", "num_rel_ret",
         "pfound", "average_gain"}  # fmt: skip
TREC_METRICS = sorted(
    [
        *(
            (_PARAMS.get(name, name) + ("@5" if name in _AT_K else ""))
            for name, info in REGISTRY.items()
            if info.kind in codes.TREC_KINDS or info.mean in ("sum", "geometric")
        ),
        "err(probability=true)@5",  # CatBoost's ERR, the grade as the stopping probability
    ]
)
PROFILES = [
    {"profile": "trec_eval"},
    {"profile": "trec_eval", "missing_users": "complete", "depth": 4},
    {"profile": "ir_measures", "judged_only": True},
]


def _data(seed: int) -> tuple[dict, dict]:
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for u in range(40):
        if u % 9 != 4:  # users 4, 13, ...: only in the run
            items = rng.choice(25, int(rng.integers(1, 8)), replace=False)
            qrels[f"u{u}"] = {f"d{i}": int(rng.choice([-1, 0, 0, 1, 2])) for i in items}
        if u % 7 != 3:  # users 3, 10, ...: absent from the run
            items = rng.choice(25, int(rng.integers(1, 12)), replace=False)
            run[f"u{u}"] = {f"d{i}": float(rng.choice([0.1, 0.5, 0.5, 0.9])) for i in items}
    return qrels, run


def test_every_trec_metric_is_listed():
    assert len(TREC_METRICS) >= 30
    for text in TREC_METRICS:
        rv.parse_metric(text)


@pytest.mark.parametrize("conventions", PROFILES, ids=["trec", "complete-depth", "judged"])
@pytest.mark.parametrize("seed", range(3))
def test_accumulator_over_user_splits_equals_evaluate(conventions, seed):
    qrels, run = _data(seed)
    report = rv.evaluate(qrels, run, TREC_METRICS, **conventions)
    users = sorted(qrels)
    rng = np.random.default_rng(seed)
    cuts = sorted(rng.choice(np.arange(1, len(users)), 3, replace=False))
    parts = np.split(np.asarray(users), cuts)
    for text in TREC_METRICS:
        # an accumulator of one metric takes the conventions that change it only
        reads = rv.parse_metric(text).info.conventions
        acc = rv.metric(text, **{k: v for k, v in conventions.items() if k in (*reads, "profile")})
        for part in parts:
            acc.update({u: qrels[u] for u in part}, {u: run[u] for u in part if u in run})
        got, want = acc.compute(), report.mean[text]
        assert got == want or (np.isnan(got) and np.isnan(want)), text


@pytest.mark.parametrize("seed", range(2))
def test_each_metric_alone_equals_the_metrics_together(seed):
    qrels, run = _data(seed)
    together = rv.evaluate(qrels, run, TREC_METRICS, profile="trec_eval")
    for text in TREC_METRICS:
        alone = rv.evaluate(qrels, run, [text], profile="trec_eval")
        np.testing.assert_array_equal(alone.values[text], together.values[text], err_msg=text)


@pytest.mark.parametrize("batch_rows", [7, 10**6])
def test_scan_of_a_parquet_run_equals_evaluate(tmp_path, batch_rows):
    qrels, run = _data(5)
    rows = [(u, d, s) for u, items in run.items() for d, s in items.items()]
    path = tmp_path / "run.parquet"
    pq.write_table(
        pa.table({k: [r[j] for r in rows] for j, k in enumerate(("user", "item", "score"))}),
        path,
        row_group_size=13,
    )
    expected = rv.evaluate(qrels, run, TREC_METRICS, profile="trec_eval")
    got = rv.evaluate(
        qrels, rv.scan(path, batch_rows=batch_rows).as_run(), TREC_METRICS, profile="trec_eval"
    )
    for text in TREC_METRICS:
        np.testing.assert_array_equal(got.values[text], expected.values[text], err_msg=text)
        assert got.mean[text] == expected.mean[text] or np.isnan(expected.mean[text]), text


def test_sums_and_geometric_means():
    qrels, run = _data(1)
    report = rv.evaluate(qrels, run, ["num_q", "num_ret", "gm_map", "map"], profile="trec_eval")
    kept = ~np.isnan(report.values["map"])
    assert report.mean["num_q"] == kept.sum()
    assert report.mean["num_ret"] == np.nansum(report.values["num_ret"])
    logs = np.log(np.maximum(report.values["gm_map"][kept], 1e-5))
    assert report.mean["gm_map"] == pytest.approx(np.exp(logs.mean()), rel=1e-14)

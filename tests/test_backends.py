"""Registry-driven backend suite: every definition of the engine, run by every source, ==.

For each metric of ``receval.registry.definitions()``: its function in
memory == ``receval.compute`` == an accumulator over random batch splits ==
accumulators merged in random order == a scan at batch sizes 1, 7 and whole
(metrics whose rows split anyway). Spark is in tests/spark/test_backends.py.
"""

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import receval as rv
from receval._sums import ExactSum
from receval.engine.metric import DEFINITIONS, MetricDefinition, register
from receval.registry import definitions, metric_info

definitions()  # every built-in metric registered

SCORES = [0.0, 0.1, 0.25, 0.5, 0.5, 0.75, 0.9, 1.0]


def _rows(seed, n=300, weights=True):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    p = rng.choice(SCORES, n)
    w = rng.integers(1, 4, n) + rng.random(n) if weights else None
    groups = np.repeat(np.arange(n // 10), 10)
    return y, p, w, groups


# name -> (data arguments of update, as a function of the rows; keyword data)
ADAPTERS = {
    "log_loss": lambda y, p, w, g: ((y, p), {"sample_weight": w}),
    "pcoc": lambda y, p, w, g: ((y, p), {"sample_weight": w}),
    "copc": lambda y, p, w, g: ((y, p), {"sample_weight": w}),
    "normalized_entropy": lambda y, p, w, g: ((y, p), {"sample_weight": w}),
    "root_mean_squared_error": lambda y, p, w, g: ((y, p), {"sample_weight": w}),
    "mean_absolute_error": lambda y, p, w, g: ((y, p), {"sample_weight": w}),
    "roc_auc": lambda y, p, w, g: ((y, p), {"sample_weight": w}),
    "gauc": lambda y, p, w, g: ((y, p), {"groups": g, "sample_weight": w}),
    "brier_score": lambda y, p, w, g: ((y, p), {"sample_weight": w}),
    "r2": lambda y, p, w, g: ((y, p), {"sample_weight": w}),
    "explained_variance": lambda y, p, w, g: ((y, p), {"sample_weight": w}),
    "partial_auc": lambda y, p, w, g: ((y, p), {"sample_weight": w}),
    # off-policy estimates: reward y, logging probability (p + 1) / 2, target 1 - p
    "ips": lambda y, p, w, g: ((y, (p + 1) / 2), {"action_dist": 1 - p}),
    "snips": lambda y, p, w, g: ((y, (p + 1) / 2), {"action_dist": 1 - p}),
    "dr": lambda y, p, w, g: (
        (y, (p + 1) / 2),
        {
            "action_dist": np.stack([1 - p, p], 1),
            "action": y,
            "estimated_rewards": np.stack([p, p / 3], 1),
        },
    ),
}
# options of the metrics that need one (the function and receval.metric take them alike)
OPTIONS = {"partial_auc": {"max_fpr": 0.3}}
NOT_ADAPTED = {"ranking"}  # metric strings: tests/test_accumulators.py (whole users)
# runs over batches of whole users: tests/metrics/test_popularity.py
NOT_ADAPTED |= {"pop_rsp", "pop_reo", "shannon_entropy", "distributional_coverage",
                "item_coverage"}  # fmt: skip
# weighted AUC adds float pair weights: equal to rounding only
APPROX_WEIGHTED = {"roc_auc", "partial_auc"}


def test_every_definition_is_classified():
    assert set(ADAPTERS) | NOT_ADAPTED == set(DEFINITIONS)
    for name in ADAPTERS:
        entry = metric_info(name)
        assert DEFINITIONS[name].partitioning in entry.partitionings


def _function(name):
    return getattr(rv, metric_info(name).function)


def _take(args, kwargs, index):
    cut = lambda a: None if a is None else a[index]  # noqa: E731
    return tuple(cut(a) for a in args), {k: cut(a) for k, a in kwargs.items()}


def _check(name, got, expected, weighted):
    if weighted and name in APPROX_WEIGHTED:
        assert got == pytest.approx(expected, rel=1e-12)
    else:
        assert got == expected


@pytest.mark.parametrize("name", sorted(ADAPTERS))
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("seed", range(3))
def test_memory_accumulator_merge_and_compute_agree(name, weighted, seed):
    y, p, w, g = _rows(seed, weights=weighted)
    args, kwargs = ADAPTERS[name](y, p, w, g)
    options = OPTIONS.get(name, {})
    expected = _function(name)(*args, **kwargs, **options)
    _check(name, rv.compute(name, *args, **kwargs, **options), expected, weighted)
    rng = np.random.default_rng(seed + 100)
    n = len(y)
    step = 10 if DEFINITIONS[name].partitioning == "groups" else 1  # whole groups per batch
    cuts = np.sort(rng.choice(np.arange(step, n, step), 6, replace=False))
    bounds = list(zip([0, *cuts], [*cuts, n], strict=True))
    acc = rv.metric(name, **options)
    parts = []
    for a, b in bounds:
        part_args, part_kwargs = _take(args, kwargs, slice(a, b))
        acc.update(*part_args, **part_kwargs)
        parts.append(rv.metric(name, **options).update(*part_args, **part_kwargs))
    _check(name, acc.compute(), expected, weighted)
    order = rng.permutation(len(parts))
    merged = parts[order[0]]
    for i in order[1:]:
        merged.merge(parts[i])
    _check(name, merged.compute(), expected, weighted)


# the off-policy estimates read other columns: tests/metrics/test_offpolicy.py scans them
OFF_POLICY = {"ips", "snips", "dr"}
SCANNED = sorted(
    n for n in ADAPTERS if DEFINITIONS[n].partitioning == "any" and n not in OFF_POLICY
)


@pytest.mark.parametrize("name", SCANNED)
@pytest.mark.parametrize("batch_rows", [1, 7, None])
def test_scan_agrees(tmp_path, name, batch_rows):
    y, p, w, _ = _rows(7, n=60)
    path = tmp_path / "rows.parquet"
    pq.write_table(pa.table({"y": y, "p": p, "w": w}), path)
    s = rv.scan(path, batch_rows=batch_rows or 10**6)
    options = OPTIONS.get(name, {})
    expected = _function(name)(y, p, sample_weight=w, **options)
    got = rv.compute(name, s["y"], s["p"], sample_weight=s["w"], **options)
    _check(name, got, expected, True)


# ------------------------------------------------------------------ a new metric, everywhere
def _positives_prepare(params, y_true, y_prob=None, sample_weight=None):
    return np.asarray(y_true, dtype=np.float64)


@pytest.fixture
def fake_metric():
    """A mergeable metric added to the registry: the share of positives."""

    class Share:
        def __init__(self, pos, n):
            self.pos, self.n = pos, n

        def merge(self, other):
            return Share(self.pos + other.pos, self.n + other.n)

    defn = register(
        MetricDefinition(
            name="positive_share",
            family="pointwise",
            partitioning="any",
            description="share of positives",
            higher_is_better=True,
            inputs=("y_true", "y_prob"),
            check_params=lambda: {},
            prepare=_positives_prepare,
            update=lambda params, y: Share(ExactSum.of(y), len(y)),
            empty=lambda params: Share(ExactSum.zero(), 0),
            finalize=lambda params, state: state.pos.value / state.n,
        )
    )
    yield defn
    del DEFINITIONS["positive_share"]


def test_a_registered_metric_is_in_every_backend(fake_metric, tmp_path):
    y = np.array([1, 0, 0, 1, 1, 0, 0, 0])
    p = np.linspace(0, 1, 8)
    assert rv.compute("positive_share", y, p) == 3 / 8
    acc = rv.metric("positive_share").update(y[:3], p[:3]).update(y[3:], p[3:])
    assert acc.compute() == 3 / 8
    path = tmp_path / "rows.parquet"
    pq.write_table(pa.table({"y": y, "p": p}), path)
    s = rv.scan(path, batch_rows=3)
    assert rv.compute("positive_share", s["y"], s["p"]) == 3 / 8

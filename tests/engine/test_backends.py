"""Registry-driven backend suite: every definition of the engine, run by every source, ==.

For each metric of ``receval.registry.definitions()``: its function in
memory == ``receval.compute`` == an accumulator over random batch splits ==
accumulators merged in random order == a scan at batch sizes 1, 7 and whole
(metrics whose rows split anyway). Spark is in tests/spark/test_backends.py.
"""

import pickle

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import receval as rv
from receval.engine.metric import DEFINITIONS, MetricDefinition, register
from receval.engine.sums import ExactSum
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


# each data argument a definition declares, as a function of the rows (y, p, w, g); the
# adapter of a metric is made from its declared inputs (the registry's where it has them,
# else the definition's): the first two positional, the others by keyword
ROLES = {
    "y_true": lambda y, p, w, g: y,
    "y_score": lambda y, p, w, g: p,
    "y_pred": lambda y, p, w, g: p,
    "y_prob": lambda y, p, w, g: p,
    "y_proba": lambda y, p, w, g: p,
    "sample_weight": lambda y, p, w, g: w,
    "groups": lambda y, p, w, g: g,
    # off-policy estimates: reward y, logging probability (p + 1) / 2, target 1 - p
    "reward": lambda y, p, w, g: y,
    "pscore": lambda y, p, w, g: (p + 1) / 2,
    "action_dist": lambda y, p, w, g: 1 - p,
}
# declared inputs a metric may leave out (per-row group weights, the logged action and
# position of the off-policy estimates, a reward model)
OPTIONAL_INPUTS = {"weighting", "action", "position", "estimated_rewards", "estimated_value"}
# a metric whose form of the rows needs more than the roles: doubly robust's reward model
FORMS = {
    "dr": {
        "action_dist": lambda y, p, w, g: np.stack([1 - p, p], 1),
        "action": lambda y, p, w, g: y,
        "estimated_rewards": lambda y, p, w, g: np.stack([p, p / 3], 1),
    },
}


def _declared_inputs(name):
    try:
        inputs = tuple(metric_info(name).inputs)
    except (rv.exceptions.RecevalError, AttributeError):
        inputs = ()
    return inputs or DEFINITIONS[name].inputs


def _adapter(name):
    roles = ROLES | FORMS.get(name, {})
    inputs = [a for a in _declared_inputs(name) if a in roles or a not in OPTIONAL_INPUTS]

    def adapt(y, p, w, g):
        data = [roles[a](y, p, w, g) for a in inputs]
        return tuple(data[:2]), dict(zip(inputs[2:], data[2:], strict=True))

    return adapt


# the metrics of single rows and of groups: their data arguments are rows' columns
ADAPTERS = {
    name: _adapter(name) for name, defn in sorted(DEFINITIONS.items()) if defn.inputs[0] in ROLES
}
# options of the metrics that need one (the function and receval.metric take them alike)
OPTIONS = {"partial_auc": {"max_fpr": 0.3}}
NOT_ADAPTED = {"ranking"}  # metric strings: tests/engine/test_accumulators.py (whole users)
# runs over batches of whole users: tests/metrics/beyond/test_popularity.py
NOT_ADAPTED |= {"pop_rsp", "pop_reo", "shannon_entropy", "distributional_coverage",
                "item_coverage"}  # fmt: skip
# event logs of whole users, a report: tests/metrics/retention/test_retention.py
NOT_ADAPTED |= {"retention"}


@pytest.mark.parametrize(
    "name, module, attr",
    [("roc_auc", "_auc", "ROC_AUC"), ("log_loss", "_loss", "LOG_LOSS"), ("gauc", "_gauc", "GAUC")],
)
def test_the_suite_fails_where_a_function_and_its_accumulator_disagree(
    monkeypatch, name, module, attr
):
    """A one-partition hook one ulp off its definition's steps is caught."""
    import dataclasses
    import importlib

    mod = importlib.import_module(f"receval.metrics.{module}")
    defn = getattr(mod, attr)
    hook = defn.one_partition

    def off(params, columns):
        value = hook(params, columns)
        return None if value is None else float(np.nextafter(value, 2.0))

    monkeypatch.setattr(mod, attr, dataclasses.replace(defn, one_partition=off))
    with pytest.raises(AssertionError):
        test_memory_accumulator_merge_and_compute_agree(name, False, 0)


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


def _check(name, got, expected, weighted, split_rows=None):
    """In memory, every split of the rows (``split_rows`` of them) gives the function's
    float, weighted or not."""
    assert got == expected, (name, weighted, split_rows)


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
    _check(name, acc.compute(), expected, weighted, n)
    order = rng.permutation(len(parts))
    merged = parts[order[0]]
    for i in order[1:]:
        merged.merge(parts[i])
    _check(name, merged.compute(), expected, weighted, n)


# the off-policy estimates read other columns: tests/metrics/test_offpolicy.py scans them
OFF_POLICY = {"ips", "snips", "dr"}
SCANNED = sorted(
    n for n in ADAPTERS if DEFINITIONS[n].partitioning == "any" and n not in OFF_POLICY
)


def _by_keyword(name, w, g):
    """The weights and groups a metric declares, by keyword."""
    inputs = _declared_inputs(name)
    return ({"sample_weight": w} if "sample_weight" in inputs else {}) | (
        {"groups": g} if "groups" in inputs else {}
    )


@pytest.mark.parametrize("name", SCANNED)
@pytest.mark.parametrize("batch_rows", [1, 7, None])
def test_scan_agrees(tmp_path, name, batch_rows):
    y, p, w, g = _rows(7, n=60)
    path = tmp_path / "rows.parquet"
    pq.write_table(pa.table({"y": y, "p": p, "w": w, "g": g}), path)
    s = rv.scan(path, batch_rows=batch_rows or 10**6)
    options = OPTIONS.get(name, {})
    expected = _function(name)(y, p, **_by_keyword(name, w, g), **options)
    got = rv.compute(name, s["y"], s["p"], **_by_keyword(name, s["w"], s["g"]), **options)
    assert got == expected


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


# ------------------------------------------------------------------ hard rows
# where each metric's inputs live: "real" (regression: truth and prediction any float),
# "score" (binary labels, any finite score), "prob" (binary labels, probabilities)
DOMAIN = {
    "root_mean_squared_error": "real",
    "mean_absolute_error": "real",
    "r2": "real",
    "explained_variance": "real",
    "roc_auc": "score",
    "partial_auc": "score",
    "gauc": "score",
    "xauc": "real",  # continuous targets: both columns any float
}
HUGE = [1e300, -1e300, 1e200, -2e200, 1.7976931348623157e308, 1e-300, -1e-300, 0.5, 0.0, -0.0]
SUBNORMAL = [5e-324, -5e-324, 1e-310, -1e-310, 2.2250738585072014e-308, 0.0, -0.0, 1e-300]
HARD = ["huge", "subnormal", "float32", "float16", "all_equal", "signed_zero"]


def _hard_values(kind, rng, n, domain):
    if kind == "huge":
        x = rng.choice(HUGE, n)
    elif kind == "subnormal":
        x = rng.choice(SUBNORMAL, n)
    elif kind in ("float32", "float16"):
        x = rng.random(n).astype(kind)
        if domain != "prob":
            x = (x * 2 - 1).astype(kind)
        return x
    elif kind == "all_equal":
        x = np.full(n, 0.3)
    else:
        x = rng.choice([0.0, -0.0], n)
    if domain == "prob":
        x = np.abs(x)
        x[x > 1] = 1.0
    return x


def _hard_rows(kind, domain, seed, weighted, n=120):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    p = _hard_values(kind, rng, n, domain)
    if domain == "real":
        y = _hard_values(kind, rng, n, domain)
    elif kind in ("float32", "float16"):
        y = y.astype(kind)
    w = rng.integers(1, 4, n) + rng.random(n) if weighted else None
    groups = np.repeat(np.arange(n // 10), 10)
    return y, p, w, groups


def _same_value(got, expected):
    if isinstance(expected, float) and np.isnan(expected):
        return isinstance(got, float) and np.isnan(got)
    return got == expected and np.signbit(got) == np.signbit(expected)


def _outcome(call):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return float(call())
        except rv.exceptions.RecevalError as exc:
            return type(exc).__name__


@pytest.mark.parametrize("name", sorted(ADAPTERS))
@pytest.mark.parametrize("kind", HARD)
@pytest.mark.parametrize("weighted", [False, True])
def test_hard_rows_function_equals_accumulator(name, kind, weighted):
    domain = DOMAIN.get(name, "prob")
    y, p, w, g = _hard_rows(kind, domain, 11, weighted)
    args, kwargs = ADAPTERS[name](y, p, w, g)
    options = OPTIONS.get(name, {})
    expected = _outcome(lambda: _function(name)(*args, **kwargs, **options))
    rng = np.random.default_rng(5)
    n = len(y)
    step = 10 if DEFINITIONS[name].partitioning == "groups" else 1
    cuts = np.sort(rng.choice(np.arange(step, n, step), 5, replace=False))
    bounds = list(zip([0, *cuts], [*cuts, n], strict=True))

    def accumulated():
        acc = rv.metric(name, **options)
        for a, b in bounds:
            part_args, part_kwargs = _take(args, kwargs, slice(a, b))
            acc.update(*part_args, **part_kwargs)
        return acc.compute()

    def merged():
        parts = []
        for a, b in bounds:
            part_args, part_kwargs = _take(args, kwargs, slice(a, b))
            parts.append(rv.metric(name, **options).update(*part_args, **part_kwargs))
        order = rng.permutation(len(parts))
        out = parts[order[0]]
        for i in order[1:]:
            out.merge(parts[i])
        return out.compute()

    for how, call in [
        ("compute", lambda: rv.compute(name, *args, **kwargs, **options)),
        ("accumulator", accumulated),
        ("merged", merged),
    ]:
        got = _outcome(call)
        if isinstance(expected, str) or isinstance(got, str):
            assert got == expected, (how, got, expected)
        else:
            assert _same_value(got, expected), (how, got, expected)


def test_rmse_of_huge_errors_is_the_same_in_every_backend():
    errors = np.array([1e200, 2e200, 3e200, 4e200])
    zeros = np.zeros(4)
    want = rv.root_mean_squared_error(errors, zeros)
    assert want == pytest.approx(2.7386127875258306e200, rel=1e-15)
    acc = rv.metric("rmse").update(errors[:2], zeros[:2]).update(errors[2:], zeros[2:])
    assert acc.compute() == want  # was inf, with an overflow warning
    assert rv.compute("rmse", errors, zeros) == want
    assert rv.metric("mae").update(errors, zeros).compute() == rv.mean_absolute_error(errors, zeros)


def test_weighted_auc_function_is_its_definition_on_one_batch():
    y, p, w, _ = _rows(0, n=300)
    assert (
        rv.roc_auc_score(y, p, sample_weight=w)
        == rv.metric("roc_auc").update(y, p, sample_weight=w).compute()
    )
    # all scores equal: exactly one half, whatever the weights
    assert rv.roc_auc_score(y, np.full(300, 0.3), sample_weight=w) == 0.5


@pytest.mark.parametrize("name", SCANNED)
@pytest.mark.parametrize("kind", [k for k in HARD if k != "float16"])  # no float16 in Parquet
def test_scan_agrees_on_hard_rows(tmp_path, name, kind):
    y, p, w, g = _hard_rows(kind, DOMAIN.get(name, "prob"), 3, True, n=60)
    path = tmp_path / "rows.parquet"
    pq.write_table(pa.table({"y": y, "p": p, "w": w, "g": g}), path)
    s = rv.scan(path, batch_rows=7)
    options = OPTIONS.get(name, {})
    expected = _outcome(lambda: _function(name)(y, p, **_by_keyword(name, w, g), **options))
    got = _outcome(lambda: rv.compute(name, s["y"], s["p"], **_by_keyword(name, s["w"], s["g"]),
                                      **options))  # fmt: skip
    if isinstance(expected, str) or isinstance(got, str):
        assert got == expected
    else:
        assert _same_value(got, expected), (got, expected)


# ------------------------------------------------------------------ where they used to disagree
@pytest.mark.parametrize("name", ["root_mean_squared_error", "mean_absolute_error"])
def test_errors_of_zero_total_weight_are_nan_in_every_backend(name):
    """The function raised where the accumulator gave nan: the definition's nan wins."""
    y, p = np.array([1.0, 2.0]), np.array([1.5, 2.0])
    w = np.zeros(2)
    with pytest.warns(rv.exceptions.UndefinedMetricWarning, match="no row of non-zero weight"):
        assert np.isnan(_function(name)(y, p, sample_weight=w))
    with pytest.warns(rv.exceptions.UndefinedMetricWarning):
        assert np.isnan(rv.metric(name).update(y, p, sample_weight=w).compute())


@pytest.mark.parametrize("scale", [1e300, 1e-300])
@pytest.mark.parametrize(
    "name", ["roc_auc", "log_loss", "normalized_entropy", "root_mean_squared_error",
             "mean_absolute_error", "pcoc"],
)  # fmt: skip
def test_extreme_weights_are_a_scale_in_every_backend(name, scale):
    """Weights are a scale: sums of weights near 1e308 (or 1e-300) no longer overflow
    (underflow) in the definitions' states and values, so an accumulator over batches
    gives the function's value on weights of 1, not nan, inf or 0."""
    y, p, w, g = _rows(2, n=50)
    args, kwargs = ADAPTERS[name](y, p, w / 4, g)
    want = _function(name)(*args, **kwargs)
    big = kwargs | {"sample_weight": w / 4 * scale}
    acc = rv.metric(name)
    for part in (slice(0, 20), slice(20, 50)):
        acc.update(*_take(args, big, part)[0], **_take(args, big, part)[1])
    assert acc.compute() == pytest.approx(want, rel=1e-14, abs=0)
    assert _function(name)(*args, **big) == rv.compute(name, *args, **big)
    assert _function(name)(*args, **big) == pytest.approx(want, rel=1e-14, abs=0)


def test_compute_of_no_row_raises_as_the_function():
    with pytest.raises(rv.exceptions.InputValidationError, match="y_true is empty"):
        rv.compute("pcoc", [], [])
    with pytest.raises(rv.exceptions.InputValidationError, match="y_true is empty"):
        rv.pcoc([], [])


def test_compute_of_a_grouped_metric_reads_a_scan_by_whole_groups(tmp_path):
    y, p, w, g = _rows(4, n=60)
    path = tmp_path / "rows.parquet"
    pq.write_table(pa.table({"y": y, "p": p, "w": w, "g": g}), path)
    s = rv.scan(path, batch_rows=7)
    want = rv.gauc_score(y, p, groups=g, sample_weight=w)
    assert rv.compute("gauc", s["y"], s["p"], groups=s["g"], sample_weight=s["w"]) == want
    assert rv.gauc_score(s["y"], s["p"], groups=s["g"], sample_weight=s["w"]) == want


@pytest.mark.parametrize(
    "name", ["roc_auc", "log_loss", "normalized_entropy", "root_mean_squared_error",
             "mean_absolute_error", "pcoc", "copc", "brier_score", "r2"],
)  # fmt: skip
def test_weights_near_the_largest_float_are_a_scale_of_the_function(name):
    """On one partition a metric whose value does not depend on the scale of the weights
    scales weights near 1e308 by a power of two first: products of a weight and a loss
    or error do not overflow."""
    y, p, w, g = _rows(2, n=50)
    args, kwargs = ADAPTERS[name](y, p, w, g)
    want = _function(name)(*args, **kwargs)
    big = kwargs | {"sample_weight": w / w.max() * 1.7e308}
    assert _function(name)(*args, **big) == pytest.approx(want, rel=1e-14, abs=0)
    assert rv.compute(name, *args, **big) == _function(name)(*args, **big)


@pytest.mark.parametrize(
    "name", ["log_loss", "normalized_entropy", "root_mean_squared_error", "mean_absolute_error",
             "pcoc", "copc", "brier_score", "r2", "explained_variance"],
)  # fmt: skip
def test_weights_near_the_largest_float_in_every_backend(tmp_path, name):
    """Rows weighted near 1.7e308: the function scales the weights first; the states
    hold each such row's weight times 2**-512 at a scale 2**512 up, so batches, merges
    and a scan give the function's float (they gave inf or nan: weight x loss
    overflowed)."""
    y, p, w, g = _rows(2, n=50)
    w = w / w.max() * 1.7e308
    args, kwargs = ADAPTERS[name](y, p, w, g)
    want = _function(name)(*args, **kwargs)
    assert np.isfinite(want)
    parts = [rv.metric(name).update(*_take(args, kwargs, part)[0], **_take(args, kwargs, part)[1])
             for part in (slice(0, 20), slice(20, 37), slice(37, 50))]  # fmt: skip
    assert parts[2].merge(parts[0]).merge(parts[1]).compute() == want
    path = tmp_path / "rows.parquet"
    pq.write_table(pa.table({"y": y, "p": p, "w": w}), path)
    s = rv.scan(path, batch_rows=7)
    assert rv.compute(name, s["y"], s["p"], sample_weight=s["w"]) == want


@pytest.mark.parametrize("name", ["roc_auc", "average_precision", "pr_auc", "break_even_point"])
def test_weights_near_the_largest_float_in_score_count_states(name):
    """The per-score counts of rows weighted near 1.7e308 are exact integers in units of
    a power of two (their float sums overflowed: nan); batches, merges in any order and
    a pickled state give the function's value, the value of the weights scaled down."""
    y, p, w, g = _rows(2, n=50)
    w = w / w.max() * 1.7e308
    args, kwargs = ADAPTERS[name](y, p, w, g)
    want = _function(name)(*args, **kwargs)
    small = _function(name)(*args, **(kwargs | {"sample_weight": w / 2.0**1000}))
    assert np.isfinite(want) and want == small
    cuts = (slice(0, 20), slice(20, 37), slice(37, 50))

    def parts():
        return [rv.metric(name).update(*_take(args, kwargs, c)[0], **_take(args, kwargs, c)[1])
                for c in cuts]  # fmt: skip

    a, b, c = parts()
    assert c.merge(a).merge(b).compute() == want
    a, b, c = parts()
    merged = a.merge(b.merge(pickle.loads(pickle.dumps(c))))
    assert merged.compute() == want
    one = rv.metric(name)
    for cut in cuts:
        one.update(*_take(args, kwargs, cut)[0], **_take(args, kwargs, cut)[1])
    assert one.compute() == want


def test_the_sum_of_weighted_losses_keeps_its_scale():
    y, p, w, _ = _rows(2, n=50)
    assert rv.log_loss(y, p, sample_weight=w * 2.0**70, normalize=False) == pytest.approx(
        rv.log_loss(y, p, sample_weight=w, normalize=False) * 2.0**70, rel=1e-14
    )


@pytest.mark.parametrize("name", ["log_loss", "normalized_entropy"])
def test_float32_probabilities_clip_at_float32_eps_in_every_backend(tmp_path, name):
    """eps="auto" is the machine epsilon of the probabilities' dtype in the function,
    the accumulator, compute and a scan of a float32 Parquet column (the accumulator
    clipped at float64's: a loss of 5.03 where the function gave 2.62)."""
    y = np.array([1, 0, 1, 0, 1, 0] * 5)
    p = np.array([0.0, 1.0, 0.3, 0.6, 1.0, 0.0] * 5, dtype=np.float32)
    want = _function(name)(y, p)
    assert want == _function(name)(y, p, eps=float(np.finfo(np.float32).eps))
    assert want != _function(name)(y, p.astype(np.float64))
    assert rv.metric(name).update(y[:7], p[:7]).update(y[7:], p[7:]).compute() == want
    assert rv.compute(name, y, p) == want
    path = tmp_path / "rows.parquet"
    pq.write_table(pa.table({"y": y, "p": p}), path)
    s = rv.scan(path, batch_rows=4)
    assert rv.compute(name, s["y"], s["p"]) == want

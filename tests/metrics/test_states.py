"""Mergeable states: any split of the rows (by score range for AUC, by group for
GAUC) merged gives the in-memory one-pass value."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from receval import copc, evaluate, gauc_score, log_loss, metric, pcoc, roc_auc_score
from receval._kernels import compiled
from receval.engine.sources import range_state
from receval.engine.totals import (
    ScoreRange,
    auc_from_ranges,
    empty_mean_state,
    mean_state,
    score_ranges,
)
from receval.exceptions import InputValidationError
from receval.metrics._auc import ROC_AUC
from receval.metrics._gauc import GAUC


def order_keys(scores):
    """uint64 keys with the order of the float64 scores (-0.0 == 0.0): the oracle of
    the score buckets."""
    u = (np.asarray(scores, dtype=np.float64) + 0.0).view(np.uint64)
    sign = np.uint64(1 << 63)
    return np.where(u & sign, ~u, u | sign)


def score_range(y_true, y_score, sample_weight=None):
    """The range summary of rows holding a whole score range, by the AUC's definition
    (what a Spark partition after repartitionByRange computes)."""
    params = ROC_AUC.check_params()
    state = range_state(ROC_AUC, params, ROC_AUC.prepare(params, y_true, y_score, sample_weight))
    return state.ranges[0] if state.ranges else ScoreRange(np.nan, np.nan, 0, 0, 0)


def group_totals(y_true, y_score, *, groups, weighting="impressions", sample_weight=None):
    """The GAUC sums of rows holding whole groups, by the GAUC's definition."""
    params = GAUC.check_params("gauc_score", weighting=weighting)
    batch = GAUC.prepare(params, y_true, y_score, groups=groups, sample_weight=sample_weight)
    return GAUC.update(params, batch).totals


def _data(seed, n=400, weighted=False):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(np.int8)
    y[:2] = [0, 1]
    s = rng.choice([0.1, 0.25, 0.5, 0.75, 0.9, -0.0, 0.0], n)  # ties on purpose
    s = np.where(rng.random(n) < 0.5, s, rng.random(n))
    g = rng.integers(0, 30, n)
    w = rng.integers(1, 4, n).astype(np.float64) if weighted else None
    return y, s, g, w


def _random_split(n, rng, parts):
    cuts = np.sort(rng.choice(np.arange(1, n), parts - 1, replace=False))
    return np.split(rng.permutation(n), cuts)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("weighted", [False, True])
def test_totals_of_random_partitions_merge_to_one_pass(seed, weighted):
    y, s, _, w = _data(seed, weighted=weighted)
    rng = np.random.default_rng(seed + 100)
    parts = _random_split(len(y), rng, 5)
    for name, function in (("log_loss", log_loss), ("pcoc", pcoc), ("copc", copc)):
        merged = metric(name)
        for idx in parts:
            merged.merge(metric(name).update(y[idx], s[idx], None if w is None else w[idx]))
        assert merged.state.n_rows == len(y)
        assert merged.compute() == function(y, s, sample_weight=w)  # exact sums: the same float


def _range_split(s, rng, parts):
    """Indices of disjoint score ranges: cut the distinct scores at random points."""
    values = np.unique(s + 0.0)
    cuts = np.sort(rng.choice(values[1:], min(parts - 1, len(values) - 1), replace=False))
    which = np.searchsorted(cuts, s + 0.0, side="right")
    order = rng.permutation(parts)  # the ranges arrive in any order
    return [np.flatnonzero(which == p) for p in order]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("weighted", [False, True])
def test_auc_of_score_ranges_equals_one_pass(seed, weighted):
    y, s, _, w = _data(seed, weighted=weighted)
    rng = np.random.default_rng(seed)
    parts = [
        score_range(y[i], s[i], sample_weight=None if w is None else w[i])
        for i in _range_split(s, rng, 6)
    ]
    # integer counts, or weight units: exact sums, rounded once
    assert auc_from_ranges(parts) == roc_auc_score(y, s, sample_weight=w)


def _exact_weighted_auc(y, s, w):
    """Twice the weighted U in units of the lowest bit of any weight (an integer), and
    the AUC: that integer over ``2 P N``, the exact quotient rounded once."""
    unit = max(Fraction(x).denominator for x in w.tolist() if x)  # 2**-quantum
    pos, neg = {}, {}
    units = [int(Fraction(x) * unit) for x in w.tolist()]
    for label, score, u in zip(y.tolist(), s.tolist(), units, strict=True):
        held = pos if label == 1 else neg
        held[score] = held.get(score, 0) + u
    two_u = below = 0
    for score in sorted(set(pos) | set(neg)):
        p, n = pos.get(score, 0), neg.get(score, 0)
        two_u += p * (2 * below + n)
        below += n
    return two_u, float(Fraction(two_u, 2 * sum(pos.values()) * below))


@pytest.mark.parametrize("seed", [5, 15])
def test_weighted_auc_past_2_to_128_units_is_the_exact_sum_rounded_once(seed):
    """Weights of every bit: twice the U passes 2**128 units (here 2**228), and rounding
    each distinct score's product first would give another float for these seeds. The
    function, an accumulator in parts and score ranges in any order give the exact
    integer rounded once."""
    rng = np.random.default_rng(seed)
    n = 500
    y = (rng.random(n) < 0.4).astype(np.int8)
    s = np.round(rng.random(n), 2)
    w = rng.random(n) * np.exp2(rng.integers(-30, 30, n))
    two_u, expected = _exact_weighted_auc(y, s, w)
    assert two_u >= 2**128
    assert roc_auc_score(y, s, sample_weight=w) == expected
    acc = metric("roc_auc")
    for part in np.array_split(rng.permutation(n), 3):
        acc.update(y[part], s[part], sample_weight=w[part])
    assert acc.compute() == expected
    parts = [score_range(y[i], s[i], sample_weight=w[i]) for i in _range_split(s, rng, 5)]
    assert auc_from_ranges(parts) == expected


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 1), st.sampled_from([0.0, 0.2, 0.5, 0.8, 1.0])),
             min_size=2, max_size=40),
    st.integers(1, 4),
)  # fmt: skip
def test_auc_ranges_property(rows, parts):
    y = np.array([r[0] for r in rows], dtype=np.int8)
    s = np.array([r[1] for r in rows])
    assume(y.min() != y.max())
    rng = np.random.default_rng(parts)
    ranges = [score_range(y[i], s[i]) for i in _range_split(s, rng, parts)]
    assert auc_from_ranges(ranges) == roc_auc_score(y, s)


def test_overlapping_ranges_raise():
    a = score_range([0, 1], [0.1, 0.5])
    b = score_range([0, 1], [0.5, 0.9])
    with pytest.raises(InputValidationError, match=r"^auc_from_ranges: score ranges overlap"):
        auc_from_ranges([a, b])
    assert np.isnan(auc_from_ranges([score_range([1, 1], [0.1, 0.2])]))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("weighting", ["impressions", "clicks", "uniform"])
def test_group_totals_of_group_partitions_merge_to_gauc(seed, weighting):
    y, s, g, _ = _data(seed)
    rng = np.random.default_rng(seed)
    owner = rng.integers(0, 4, g.max() + 1)  # each group in one partition
    merged = None
    for p in range(4):
        idx = np.flatnonzero(owner[g] == p)
        part = group_totals(y[idx], s[idx], groups=g[idx], weighting=weighting)
        merged = part if merged is None else merged.merge(part)
    assert merged.score == gauc_score(y, s, groups=g, weighting=weighting)
    assert merged.n_groups == len(np.unique(g)) and merged.n_rows == len(y)


def test_histogram_ranges_are_consecutive_and_bounded():
    rng = np.random.default_rng(0)
    s = np.concatenate([rng.random(5000), np.full(3000, 0.5), -rng.random(100)])
    y = (rng.random(len(s)) < 0.4).astype(np.int8)
    neg, pos = np.zeros(1 << 12, np.int64), np.zeros(1 << 12, np.int64)
    compiled().add_histogram(s, y, 64 - 12, neg, pos)  # the histogram pass of a scan
    assert neg.sum() + pos.sum() == len(s)
    ranges = score_ranges(neg + pos, max_rows=1000)
    keys = order_keys(s) >> np.uint64(64 - 12)
    covered = np.zeros(len(s), dtype=bool)
    parts = []
    for first, last in ranges:
        inside = (keys >= first) & (keys <= last)
        assert not (covered & inside).any()
        covered |= inside
        assert inside.sum() <= 1000 or first == last  # only a single bucket may exceed
        parts.append(score_range(y[inside], s[inside]))
    assert covered.all()
    assert auc_from_ranges(parts) == roc_auc_score(y, s)
    assert (np.diff(order_keys(np.sort(s)).astype(np.float64)) >= 0).all()


@pytest.mark.parametrize("seed", range(4))
def test_mean_states_of_user_partitions_merge_to_one_pass(seed):
    rng = np.random.default_rng(seed)
    qrels = {
        u: {i: int(rng.integers(0, 3)) for i in rng.choice(30, rng.integers(1, 6), replace=False)}
        for u in range(60)
    }
    run = {
        u: {i: float(np.round(rng.random(), 1)) for i in rng.choice(30, 12, replace=False)}
        for u in range(5, 60)  # users 0-4 missing: zero-filled
    }
    metrics = ["ndcg@5", "map@10", "pooled_hit_ratio@5", "recall@10", "mrr"]
    whole = evaluate(qrels, run, metrics)
    owner = rng.integers(0, 4, 60)
    merged = {
        m: empty_mean_state("pooled" if m.startswith("pooled_hit") else "users") for m in metrics
    }
    for p in range(4):
        users = [u for u in range(60) if owner[u] == p]
        q = {u: qrels[u] for u in users}
        r = {u: run[u] for u in users if u in run}
        if not q or not r:
            continue
        for m, state in evaluate(q, r, metrics).mean_states().items():
            merged[m] = merged[m].merge(state)
    missing_only = [u for u in range(60) if owner[u] not in {owner[v] for v in run}]
    assert not missing_only
    assert {m: merged[m].value for m in metrics} == whole.mean  # the same floats


@pytest.mark.parametrize("seed", range(3))
def test_retention_counts_of_user_partitions_merge_to_one_pass(seed):
    """The retention states of disjoint users merge to the one-pass report (Spark's merge)."""
    import receval
    from receval import retention

    rng = np.random.default_rng(seed)
    n = 500
    users = rng.integers(0, 80, n)
    times = np.datetime64("2024-01-01T00:00:00") + rng.integers(0, 30 * 86400, n).astype(
        "timedelta64[s]"
    )
    signup = np.datetime64("2024-01-01T00:00:00") + rng.integers(-2, 28, 80).astype(
        "timedelta64[D]"
    )
    events = {"user": users, "time": times, "signup": signup[users]}
    options = {"before_signup": "drop", "tz": "Europe/Paris"}
    whole = retention(events, signup="signup", **options)
    owner = rng.integers(0, 3, 80)[users]
    merged = receval.metric("retention", **options)
    for p in range(3):
        part = {k: np.asarray(c)[owner == p] for k, c in events.items()}
        merged.merge(receval.metric("retention", **options).update(part, signup="signup"))
    got = merged.compute()
    np.testing.assert_array_equal(got.cohort_counts, whole.cohort_counts)
    np.testing.assert_array_equal(got.day_n_retention, whole.day_n_retention)
    assert got.n_users == whole.n_users
    assert got.n_events_before_signup == whole.n_events_before_signup
    assert got.n_events_before_signup > 0


# weights wider than the exact sums on purpose (the warning: test_rounded_weights)
@pytest.mark.filterwarnings("ignore:.*the sample weights of the:receval.RecevalWarning")
@pytest.mark.parametrize("seed", range(5))
def test_weighted_gauc_of_group_partitions_is_the_same_float(seed):
    """Non-integer weights spanning many magnitudes: each group's weighted AUC
    depends on its rows only, so any split by group and any row order give the
    in-memory floats."""
    from receval import group_auc

    rng = np.random.default_rng(seed)
    n = 3000
    g = rng.integers(0, 150, n)
    y = (rng.random(n) < 0.3).astype(np.int64)
    s = np.round(rng.random(n), 1)  # ties
    w = rng.random(n) * np.exp2(rng.integers(-40, 40, n))
    whole = gauc_score(y, s, groups=g, sample_weight=w)
    report = group_auc(y, s, groups=g, sample_weight=w)
    assert np.nanmax(report.auc) <= 1.0 + 1e-15 and np.nanmin(report.auc) >= 0.0
    shuffled = rng.permutation(n)
    again = group_auc(y[shuffled], s[shuffled], groups=g[shuffled], sample_weight=w[shuffled])
    order = np.argsort(again.groups)
    np.testing.assert_array_equal(again.auc[order], report.auc[np.argsort(report.groups)])
    owner = rng.integers(0, 4, 150)
    merged = None
    for p in range(4):
        idx = rng.permutation(np.flatnonzero(owner[g] == p))
        part = group_totals(y[idx], s[idx], groups=g[idx], sample_weight=w[idx])
        merged = part if merged is None else merged.merge(part)
    assert merged.score == whole


def _score_counts(scores, pos, neg):
    """An unweighted exact AUC state holding the given counts (as a pickle would)."""
    from receval.engine.states import ScoreCounts

    state = ScoreCounts.__new__(ScoreCounts)
    arrays = {"scores": np.array(scores, np.float64), "pos": np.array(pos, np.int64)}
    state.__setstate__({"weighted": False, "neg": np.array(neg, np.int64)} | arrays)
    return state


def test_exact_auc_state_holds_a_key_per_row_or_per_distinct_score():
    """Batches become sorted runs of each label's keys: a key per row (8 bytes) where most
    scores are distinct, each distinct key once with its rows (16 bytes) where at most
    half are; the table has one entry per distinct score; the value is the function's."""
    from receval.engine.states import ScoreCounts

    rng = np.random.default_rng(3)
    labels = (rng.random(50_000) < 0.1).astype(np.int8)
    for scores, keys in [
        (rng.random(50_000).astype(np.float32).astype(np.float64), 50_000),
        (np.round(rng.random(50_000), 2), None),
    ]:
        state = ScoreCounts(False)
        for part in np.array_split(np.arange(50_000), 70):
            state.add(labels[part], scores[part], None)
        distinct = len(np.unique(scores))
        # a score with rows of both labels is a key of each
        held = keys or len(np.unique(scores[labels == 1])) + len(np.unique(scores[labels == 0]))
        assert state.compact().entries == held
        width = 8 if keys else 16
        assert width * held <= state.memory_bytes <= (width + 1) * held + 16 * 32  # room: <= 1/8
        assert state.auc() == roc_auc_score(labels, scores)
        table = state.table()
        assert np.array_equal(table[0], np.unique(scores)) and len(table[0]) == distinct
        assert table[1].sum() == labels.sum() and table[2].sum() == len(labels) - labels.sum()


def test_exact_auc_counts_past_int32_are_exact():
    """Counts beyond int32 (and their sums) stay exact; 2U is an exact integer."""
    big = 2**31 - 1
    a = _score_counts([0.5, 0.75], [big, 0], [0, big])
    b = _score_counts([0.5], [5], [3])
    merged = a.merge(b).compact()
    assert merged.__getstate__()["pos"].tolist() == [big + 5, 0]
    # positives at 0.5: big + 5; negatives: 3 at 0.5 (ties), big at 0.75 above them
    p, n = big + 5, big + 3
    assert merged.auc() == (0 * 2 + (big + 5) * 3) / (2.0 * p * n)


@pytest.mark.parametrize("kind", ["users", "sum", "geometric"])
@settings(max_examples=50, deadline=None)
@given(
    values=st.lists(
        st.one_of(st.floats(0, 50, allow_nan=False), st.just(0.0), st.just(float("nan"))),
        max_size=30,
    ),
    cut=st.integers(0, 30),
)
def test_mean_kinds_merge_to_one_pass(kind: str, values: list[float], cut: int) -> None:
    # sums add, geometric means floor each value at 1e-5 before the logarithm
    # (trec_eval's gm_map): any split of the users merges to the one-pass value
    x = np.asarray(values, dtype=np.float64)
    kept = x[~np.isnan(x)]
    whole = mean_state(x, kind=kind)
    merged = mean_state(x[:cut], kind=kind).merge(mean_state(x[cut:], kind=kind))
    merged = empty_mean_state(kind).merge(merged)
    assert merged.count == whole.count == kept.size
    if kind == "sum":
        want = math.fsum(kept)
    elif not kept.size:
        want = float("nan")
    elif kind == "geometric":
        want = math.exp(math.fsum(math.log(max(v, 1e-5)) for v in kept) / kept.size)
    else:
        want = math.fsum(kept) / kept.size
    for got in (whole.value, merged.value):
        if math.isnan(want):
            assert math.isnan(got)
        else:
            assert got == pytest.approx(want, rel=1e-12, abs=1e-300)
    with pytest.raises(ValueError, match="cannot merge"):
        whole.merge(empty_mean_state("pooled" if kind != "pooled" else "users"))


@pytest.mark.parametrize("scale", [1.0, 1e200, 1e-200])
def test_weighted_auc_of_huge_and_tiny_weights_by_every_backend(tmp_path, scale):
    # products of two weights of 1e200 overflow and of 1e-200 underflow: the AUC,
    # which does not depend on the scale of the weights, must not
    import pyarrow as pa
    import pyarrow.parquet as pq

    from receval import scan
    from tests.oracles.pointwise import pair_auc

    y, s, _, w = _data(3, n=300, weighted=True)
    expected = pair_auc(y, s, w)  # small integer weights: no overflow
    big = w * scale
    assert roc_auc_score(y, s, sample_weight=big) == pytest.approx(expected, rel=1e-12)
    acc = metric("roc_auc")
    for part in np.array_split(np.arange(len(y)), 4):
        acc.update(y[part], s[part], sample_weight=big[part])
    assert acc.compute() == pytest.approx(expected, rel=1e-12)
    path = tmp_path / "rows.parquet"
    pq.write_table(pa.table({"y": y, "s": s, "w": big}), path, row_group_size=37)
    for max_memory in (64, 1 << 30):  # many score ranges, and one
        sc = scan(str(path), batch_rows=50, max_memory=max_memory)
        got = roc_auc_score(sc["y"], sc["s"], sample_weight=sc["w"])
        assert got == pytest.approx(expected, rel=1e-12)
    parts = [score_range(y[i], s[i], big[i]) for i in _range_split(s, np.random.default_rng(0), 5)]
    assert auc_from_ranges(parts) == pytest.approx(expected, rel=1e-12)

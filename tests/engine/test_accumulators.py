"""receval.metric(): any split into batches, any merge order, the function's float (==)."""

import math
import os
import pickle
import warnings
from fractions import Fraction

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

import receval as rv
from receval import InputValidationError, InvalidParameterError, UndefinedMetricWarning
from tests.oracles import pointwise as oracle

# name -> (function on all rows, data maker); data: (args, kwargs per row-array)
SCORES = [0.0, 0.1, 0.25, 0.5, 0.5, 0.75, 0.9, 1.0]  # few values: ties on purpose


def _binary(rng, n, weights):
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    p = rng.choice(SCORES, n)
    w = rng.integers(0, 4, n).astype(float) + rng.random(n) if weights else None
    return y, p, w


POINTWISE = {
    "log_loss": lambda y, p, w: rv.log_loss(y, p, sample_weight=w),
    "pcoc": lambda y, p, w: rv.pcoc(y, p, sample_weight=w),
    "copc": lambda y, p, w: rv.copc(y, p, sample_weight=w),
    "normalized_entropy": lambda y, p, w: rv.normalized_entropy(y, p, sample_weight=w),
    "roc_auc": lambda y, p, w: rv.roc_auc_score(y, p, sample_weight=w),
    "rmse": lambda y, p, w: rv.root_mean_squared_error(y, p, sample_weight=w),
    "mae": lambda y, p, w: rv.mean_absolute_error(y, p, sample_weight=w),
}


def _cuts(rng, n, k):
    return np.sort(rng.choice(np.arange(1, n), size=min(k, n - 1), replace=False))


def _batched(name, arrays, cuts, **options):
    acc = rv.metric(name, **options)
    for part in zip(*(np.split(a, cuts) if a is not None else [None] * (len(cuts) + 1)
                      for a in arrays), strict=True):  # fmt: skip
        y, p, w = part
        acc.update(y, p, sample_weight=w)
    return acc


@pytest.mark.parametrize("name", sorted(POINTWISE))
@pytest.mark.parametrize("weights", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_any_split_and_merge_order_gives_the_function(name, weights, seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 400))
    y, p, w = _binary(rng, n, weights)
    expected = POINTWISE[name](y, p, w)
    cuts = _cuts(rng, n, int(rng.integers(0, 12)))
    got = _batched(name, (y, p, w), cuts).compute()
    # workers: one accumulator per part, merged in a random order
    parts = [_batched(name, (y[a:b], p[a:b], None if w is None else w[a:b]), [])
             for a, b in zip([0, *cuts], [*cuts, n], strict=True)]  # fmt: skip
    order = rng.permutation(len(parts))
    merged = parts[order[0]]
    for i in order[1:]:
        merged.merge(parts[i])
    assert got == expected  # weighted AUC too: exact weights per score
    assert merged.compute() == expected


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 1), st.sampled_from(SCORES)), min_size=2, max_size=60),
    st.lists(st.integers(1, 59), max_size=6),
)
def test_auc_with_ties_equals_roc_auc_score(rows, cuts):
    y = np.array([r[0] for r in rows])
    s = np.array([r[1] for r in rows])
    cuts = sorted({c for c in cuts if c < len(rows)})
    acc = rv.metric("auc")
    for a, b in zip(np.split(y, cuts), np.split(s, cuts), strict=True):
        acc.update(a, b)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        expected = rv.roc_auc_score(y, s)
        got = acc.compute()
    assert (np.isnan(got) and np.isnan(expected)) or got == expected


def test_binned_auc_bound_holds_and_tightens():
    rng = np.random.default_rng(3)
    n = 20_000
    y = rng.integers(0, 2, n)
    p = np.clip(rng.normal(0.4 + 0.2 * y, 0.2), 0, 1)
    exact = rv.roc_auc_score(y, p)
    bounds = []
    for bins in (10, 100, 1000):
        acc = rv.metric("roc_auc", bins=bins)
        for a, b in zip(np.array_split(y, 7), np.array_split(p, 7), strict=True):
            acc.update(a, b)
        result = acc.compute()
        assert abs(result.value - exact) <= result.error_bound
        bounds.append(result.error_bound)
    assert bounds[0] > bounds[1] > bounds[2] > 0


def test_gauc_over_whole_groups():
    rng = np.random.default_rng(1)
    groups = np.repeat(np.arange(50), rng.integers(1, 12, 50))
    n = len(groups)
    y = rng.integers(0, 2, n)
    s = rng.choice(SCORES, n)
    expected = rv.gauc_score(y, s, groups=groups)
    starts = np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]])
    cuts = np.sort(rng.choice(starts[1:], 8, replace=False))
    acc = rv.metric("gauc", whole_groups=True)
    for a, b, g in zip(*(np.split(x, cuts) for x in (y, s, groups)), strict=True):
        acc.update(a, b, groups=g)
    assert acc.compute() == expected
    with pytest.raises(InputValidationError, match=r"1 group of groups was given twice .* \[0\]"):
        acc.update(y[:3], s[:3], groups=groups[:3])


def test_ranking_metric_over_whole_users():
    rng = np.random.default_rng(2)
    qrels = {f"u{u}": {f"d{i}": int(rng.integers(0, 3)) for i in rng.choice(30, 5, replace=False)}
             for u in range(40)}  # fmt: skip
    run = {u: {f"d{i}": float(rng.choice(SCORES)) for i in rng.choice(30, 10, replace=False)}
           for u in list(qrels)[:35]}  # fmt: skip
    for metric in ["ndcg@5", "map", "hr@10", "recall(rel_threshold=2)@10"]:
        expected = rv.evaluate(qrels, run, [metric]).mean[metric]
        acc = rv.metric(metric)
        users = list(qrels)
        for chunk in (users[:13], users[13:14], users[14:]):
            acc.update({u: qrels[u] for u in chunk}, {u: run[u] for u in chunk if u in run})
        assert acc.compute() == expected, metric
    trec = rv.metric("ndcg@5", profile="trec_eval")
    trec.update(qrels, run)
    assert trec.compute() == rv.evaluate(qrels, run, ["ndcg@5"], profile="trec_eval").mean["ndcg@5"]


def test_pickle_reset_and_errors():
    acc = rv.metric("logloss").update([0, 1], [0.2, 0.7])
    back = pickle.loads(pickle.dumps(acc))
    assert back.compute() == acc.compute() == rv.log_loss([0, 1], [0.2, 0.7])
    auc = rv.metric("auc").update([0, 1, 1], [0.1, 0.5, 0.5])
    assert pickle.loads(pickle.dumps(auc)).compute() == 1.0
    acc.reset()
    assert acc.n_updates == 0
    with pytest.warns(UndefinedMetricWarning):
        assert np.isnan(acc.compute())
    with pytest.raises(InvalidParameterError, match=r"Unknown metric 'logg_loss'. Did you mean"):
        rv.metric("logg_loss")
    with pytest.raises(InvalidParameterError, match=r"one accumulator a metric: \{n: receval"):
        rv.metric(["auc", "ne"])
    with pytest.raises(InvalidParameterError, match=r"Got 3 instead\.$"):
        rv.metric(3)
    with pytest.raises(InvalidParameterError, match="cannot merge"):
        rv.metric("auc").merge(rv.metric("log_loss"))
    with pytest.raises(InvalidParameterError, match="takes no option 'eps'"):
        rv.metric("pcoc", eps=0.1)
    with pytest.raises(InputValidationError, match=r"y_true takes values \[0, 2\]"):
        rv.metric("auc").update([0, 2], [0.1, 0.2])


class _Tensor:
    """A stand-in for a CPU tensor: only __array__."""

    def __init__(self, values):
        self._values = np.asarray(values)

    def __array__(self, dtype=None, copy=None):
        return self._values if dtype is None else self._values.astype(dtype)


class _DLPackOnly:
    def __init__(self, values):
        self._values = np.asarray(values)

    def __dlpack__(self, **kwargs):
        return self._values.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._values.__dlpack_device__()


def test_array_protocols_without_importing_their_library():
    y, p = [0, 1, 1, 0], [0.2, 0.7, 0.6, 0.4]
    expected = rv.roc_auc_score(y, p)
    assert rv.metric("auc").update(_Tensor(y), _Tensor(p)).compute() == expected
    assert rv.metric("auc").update(_DLPackOnly(y), _DLPackOnly(p)).compute() == expected


def test_normalized_entropy():
    y = np.array([1, 0, 0, 1, 0, 0, 0, 1])
    p = np.array([0.8, 0.3, 0.1, 0.6, 0.2, 0.4, 0.1, 0.5])
    base = 3 / 8
    entropy = -base * np.log(base) - (1 - base) * np.log(1 - base)
    assert rv.normalized_entropy(y, p) == pytest.approx(rv.log_loss(y, p) / entropy, rel=1e-15)
    assert rv.normalized_entropy(y, np.full(8, base)) == pytest.approx(1.0, rel=1e-15)
    with pytest.warns(UndefinedMetricWarning, match="single class"):
        assert np.isnan(rv.normalized_entropy([1, 1], [0.5, 0.6]))


@pytest.mark.parametrize("batch_rows", [1, 7, None])
def test_scan_runs_the_same_definition(tmp_path, batch_rows):
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(4)
    y, p, w = _binary(rng, 300, True)
    path = tmp_path / "imp.parquet"
    pq.write_table(pa.table({"y": y, "p": p, "w": w}), path)
    s = rv.scan(path, batch_rows=batch_rows or 10**6)
    for func in (rv.normalized_entropy, rv.pcoc, rv.copc):
        assert func(s["y"], s["p"], sample_weight=s["w"]) == func(y, p, sample_weight=w)


def test_binned_auc_with_scores_far_outside_the_range():
    # clipped into the end bins before the integer cast (no overflow into bin 0)
    for bins in (100, 100_000):
        result = rv.metric("roc_auc", bins=bins).update([1, 0, 0], [1e19, 0.5, 0.2]).compute()
        assert result.value == 1.0 == rv.roc_auc_score([1, 0, 0], [1e19, 0.5, 0.2])
        assert result.error_bound == 0.0
    low = rv.metric("roc_auc", bins=10).update([1, 0], [-1e300, -1e301]).compute()
    assert (low.value, low.error_bound) == (0.5, 0.5)  # both in the first bin: a tie


@pytest.mark.parametrize(
    "first, again",
    [
        (np.array([3, 1, 2]), np.array([7, 2])),  # integer ids: the sorted-array path
        (np.array(["a", "b"], dtype=object), np.array(["c", "a"], dtype=object)),
        (np.array([3, 1]), np.array([1], dtype=object)),  # an int given again as an object
        (np.array([5], dtype=object), np.array([9, 5])),
    ],
)
def test_seen_groups_raise_when_given_again(first, again):
    from receval.engine.group_ids import Seen

    seen = Seen()
    seen.add(first, "gauc_score", "groups")
    with pytest.raises(InputValidationError, match="already given in an earlier update"):
        seen.add(again, "gauc_score", "groups")
    other = Seen()
    other.add(again, "gauc_score", "groups")
    with pytest.raises(InputValidationError, match="f: 1 group of groups was given twice"):
        seen.merge(other, "f", "groups", "groups")
    fresh = Seen()
    fresh.add(np.array([100, 101]), "gauc_score", "groups")
    merged = seen.merge(fresh, "f", "groups", "groups")
    assert sorted(merged.ints.tolist() + list(merged.ids), key=str) == sorted(
        [*first.tolist(), 100, 101], key=str
    )


def test_a_batch_whose_run_is_empty_counts_its_users_as_missing():
    import pandas as pd

    import receval as rv

    qrels = {"u": {"a": 1, "b": 0}, "v": {"a": 1}, "w": {"c": 2}}
    run = {"u": {"a": 0.5, "b": 0.9}}
    for missing in ("zero", "skip"):
        acc = rv.metric("ndcg@10", missing_users=missing)
        acc.update({"u": qrels["u"]}, run)
        acc.update({"v": qrels["v"]}, {})
        acc.update({"w": qrels["w"]}, pd.DataFrame({"user": [], "item": [], "score": []}))
        want = rv.evaluate(qrels, run, ["ndcg@10"], missing_users=missing).mean["ndcg@10"]
        assert acc.compute() == want
    acc = rv.metric("map", allow_unmatched=True)  # no user in the run: refused without it
    acc.update({1: {"a": 1}}, {})  # integer users
    with pytest.warns(rv.UnmatchedIdsWarning, match="none of the 1 qrels user is in the run"):
        assert acc.compute() == 0.0


# ------------------------------------------------------------------ exact AUC state
HARD_SCORES = [-1e300, -1.5, -0.0, 0.0, 5e-324, 1e-310, 0.25, 0.5, 1.0, 1e300]
WEIGHTS = [0.0, 1e-9, 0.1, 0.3, 1.0, 2.5, 7.0, 1e6]


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 1), st.sampled_from(HARD_SCORES), st.sampled_from(WEIGHTS)),
        min_size=2,
        max_size=80,
    ),
    st.lists(st.integers(1, 79), max_size=8),
    st.randoms(use_true_random=False),
    st.sampled_from(["float64", "float32", "float16"]),
    st.booleans(),
    st.sampled_from([None, "1", "3", "16"]),
)
def test_auc_any_split_and_merge_order_equals_the_function(
    rows, cuts, rnd, dtype, weighted, buffer_rows
):
    """Ties, -0.0 and 0.0, subnormal and huge scores, float16/32 scores, weights from
    0 to 1e6: updates, merges in a random order, a pickled part and a ``state_dict``
    round trip all give the function's float (==), weighted or not, with the default
    buffer of rows or one of a few rows (many runs of each label, either rarer)."""
    previous = os.environ.pop("RECEVAL_AUC_BUFFER_ROWS", None)
    if buffer_rows is not None:
        os.environ["RECEVAL_AUC_BUFFER_ROWS"] = buffer_rows
    try:
        _check_auc_splits(rows, cuts, rnd, dtype, weighted)
    finally:
        os.environ.pop("RECEVAL_AUC_BUFFER_ROWS", None)
        if previous is not None:
            os.environ["RECEVAL_AUC_BUFFER_ROWS"] = previous


def _check_auc_splits(rows, cuts, rnd, dtype, weighted):
    y = np.array([r[0] for r in rows])
    with np.errstate(over="ignore"):
        s = np.array([r[1] for r in rows]).astype(dtype)
    w = np.array([r[2] for r in rows]) if weighted else None
    assume(np.isfinite(s).all())  # float16 holds no 1e300
    assume(w is None or (w[y == 1].sum() > 0 and w[y == 0].sum() > 0))
    assume(0 < y.sum() < len(y))
    cuts = sorted({c for c in cuts if c < len(rows)})
    expected = rv.roc_auc_score(y, s, sample_weight=w)
    bounds = list(zip([0, *cuts], [*cuts, len(y)], strict=True))

    def part(a, b):
        return rv.metric("roc_auc").update(y[a:b], s[a:b], sample_weight=None if w is None
                                           else w[a:b])  # fmt: skip

    acc = rv.metric("roc_auc")
    for a, b in bounds:
        acc.update(y[a:b], s[a:b], sample_weight=None if w is None else w[a:b])
    assert acc.compute() == expected
    parts = [part(a, b) for a, b in bounds]
    rnd.shuffle(parts)
    parts[-1] = pickle.loads(pickle.dumps(parts[-1]))
    parts[0] = rv.metric("roc_auc").load_state_dict(parts[0].state_dict())
    merged = parts[0]
    for other in parts[1:]:
        merged = merged.merge(other) if rnd.random() < 0.5 else other.merge(merged)
    assert merged.compute() == expected


def test_weighted_auc_past_float_rounding_is_exact():
    """Weights whose float sums per score depend on their order (0.1 + 0.2 + 0.3 is not
    0.3 + 0.2 + 0.1): every split gives the function's float. Before, the sums were
    floats and splits differed from the function in the last bits."""
    rng = np.random.default_rng(5)
    n = 5000
    y = rng.integers(0, 2, n)
    s = rng.choice(np.linspace(0, 1, 7), n)  # ties: many weights per score
    w = rng.random(n) * 10.0 ** rng.integers(-6, 6, n)
    expected = rv.roc_auc_score(y, s, sample_weight=w)
    for seed in range(5):
        order = np.random.default_rng(seed).permutation(n)
        acc = rv.metric("roc_auc")
        for part in np.array_split(order, 37):
            acc.update(y[part], s[part], sample_weight=w[part])
        assert acc.compute() == expected
    assert acc.state.weighted.rounded is None


def test_auc_state_holds_a_key_per_row_and_reports_its_memory():
    """The state holds a key per row (8 bytes; most scores are distinct), in the buffer
    and then in a sorted run of each label, also once pickled; its bytes are reported,
    and the function's value does not depend on the batch size."""
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 20_000)
    s = rng.random(20_000).astype(np.float32)
    acc = rv.metric("roc_auc")
    for part in np.array_split(np.arange(20_000), 200):
        acc.update(y[part], s[part])
    counts = acc.state.plain
    assert counts.entries == len(y)
    assert acc.compute() == rv.roc_auc_score(y, s)
    assert counts.entries == len(y)
    assert 8 * len(y) <= counts.memory_bytes <= 9 * len(y) + 16 * 32  # room: <= 1/8
    # the accumulator reports them (it said 0 bytes, whatever the rows held)
    assert counts.memory_bytes <= acc.memory_bytes <= counts.memory_bytes + 1024
    state = pickle.loads(pickle.dumps(acc.state))
    assert state.plain.entries == len(y)
    assert 8 * len(y) <= state.plain.memory_bytes <= 9 * len(y) + 16 * 32


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork does not exist on this platform")
def test_auc_state_forked_while_a_buffer_sorts_holds_every_row(monkeypatch):
    """A full buffer is sorted on a thread of the kernels' pool while updates go on; a process
    forked meanwhile waits for that sort, and both parent and child hold every row."""
    monkeypatch.setenv("RECEVAL_AUC_BUFFER_ROWS", "100000")
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 500_000)
    s = rng.random(500_000)
    acc = rv.metric("roc_auc")
    acc.update(y[:300_000], s[:300_000])  # past the buffer's end: its sort starts
    read, write = os.pipe()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # fork of a threaded process
        pid = os.fork()
    if pid == 0:
        try:
            acc.update(y[300_000:], s[300_000:])
            os.write(write, repr(acc.compute()).encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read) as fh:
        child = fh.read()
    os.waitpid(pid, 0)
    acc.update(y[300_000:], s[300_000:])
    assert acc.compute() == rv.roc_auc_score(y, s)
    assert child == repr(rv.roc_auc_score(y, s))


@pytest.mark.parametrize("buffer_rows", ["1", "37", "1000"])
def test_auc_rows_buffered_across_its_end_equal_the_function(monkeypatch, buffer_rows):
    """Rows buffered and sorted into runs every few rows (a tiny buffer): any split,
    merges in any order, pickles mid-stream and repeated ``compute`` give the
    function's value."""
    monkeypatch.setenv("RECEVAL_AUC_BUFFER_ROWS", buffer_rows)
    rng = np.random.default_rng(int(buffer_rows))
    n = 3000
    y = rng.integers(0, 2, n)
    s = rng.choice(np.array([-0.0, 0.0, 0.25, 0.5, 1.0]), n)
    s[::3] = rng.random(len(s[::3])).astype(np.float32)
    expected = rv.roc_auc_score(y, s)
    cuts = np.sort(rng.choice(np.arange(1, n), 40, replace=False))
    parts = np.split(np.arange(n), cuts)
    whole = rv.metric("roc_auc")
    pieces = []
    for k, part in enumerate(parts):
        whole.update(y[part], s[part])
        if k == 20:
            assert whole.compute() == rv.roc_auc_score(y[: part[-1] + 1], s[: part[-1] + 1])
            whole = pickle.loads(pickle.dumps(whole))
        piece = rv.metric("roc_auc")
        piece.update(y[part], s[part])
        pieces.append(piece)
    assert whole.compute() == expected
    assert whole.compute() == expected
    for order in range(3):
        merged = rv.metric("roc_auc")
        for i in np.random.default_rng(order).permutation(len(pieces)):
            merged = merged.merge(pieces[i])
        assert merged.compute() == expected
    assert whole.state.plain.entries <= len(np.unique(s)) * 2


def _hard_floats(rng, n):
    """Values of every scale: near 1e300, subnormals, near 1, zeros."""
    scale = rng.choice([1e300, 1e150, 1.0, 1e-150, 1e-310, 5e-324, 0.0], n)
    return rng.standard_normal(n) * scale


@pytest.mark.parametrize("seed", range(4))
def test_one_call_sums_of_hard_values_equal_the_function_in_any_split(seed):
    """RMSE, MAE, weighted log loss and NE, and IPS/DR from batches cut at random ==
    their functions, with values and weights from subnormals to near 1e308."""
    rng = np.random.default_rng(seed)
    n = 300
    a, b = _hard_floats(rng, n), _hard_floats(rng, n)
    w = np.abs(_hard_floats(rng, n)) * rng.choice([1.0, 1e-8], n)
    w[rng.random(n) < 0.05] = 1e308
    y, p = rng.integers(0, 2, n), rng.random(n)
    p[:4] = [0.0, 1.0, 5e-324, 1 - 2**-53]
    reward, pscore, dist = rng.random(n), rng.uniform(1e-300, 1, n), rng.random(n)
    cases = {
        "rmse": ((a, b, w), lambda: rv.root_mean_squared_error(a, b, sample_weight=w)),
        "mae": ((a, b, w), lambda: rv.mean_absolute_error(a, b, sample_weight=w)),
        "log_loss": ((y, p, w), lambda: rv.log_loss(y, p, sample_weight=w)),
        "normalized_entropy": ((y, p, w), lambda: rv.normalized_entropy(y, p, sample_weight=w)),
        "ips": ((reward, pscore, dist), lambda: rv.ips_estimate(reward, pscore, action_dist=dist)),
        "dr": (
            (reward, pscore, dist),
            lambda: rv.dr_estimate(
                reward, pscore, action_dist=dist, estimated_rewards=p, estimated_value=1 - p
            ),
        ),
    }
    cuts = _cuts(rng, n, 5)
    for name, (columns, function) in cases.items():
        acc = rv.metric(name)
        for rows in np.split(np.arange(n), cuts):
            part = [c[rows] for c in columns]
            if name in ("ips", "dr"):
                extra = {"estimated_rewards": p[rows], "estimated_value": 1 - p[rows]}
                acc.update(*part[:2], action_dist=part[2], **(extra if name == "dr" else {}))
            else:
                acc.update(*part[:2], sample_weight=part[2])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = function()
            got = acc.compute()
        assert got == expected or (np.isnan(got) and np.isnan(expected)), name


@pytest.mark.parametrize("clicks", [False, True])
def test_weighted_batches_take_the_cores_one_pass_with_the_full_checks_sums(clicks):
    """Float64 weights are checked and summed in the core's pass over the batch: the
    sums of the full checks' path, a refusal for weights the checks refuse, and None
    (the full path) for weights it must scale."""
    from receval._kernels import compiled
    from receval.engine.sums import ExactSum
    from receval.engine.totals import totals_of

    rng = np.random.default_rng(5)
    y, p = rng.integers(0, 2, 500).astype(np.int8), rng.random(500)
    p[:3] = [0.0, 1.0, 5e-324]
    w = rng.random(500) * rng.choice([1.0, 1e-9, 1e9], 500)
    w[:5] = 0.0
    eps = 1e-7
    got = compiled().totals_checked(y, p, eps, True, clicks, w)
    want = totals_of(y, p, w, eps, loss=True, clicks=clicks)
    assert got is not None
    fields = ("weight", "loss", "predicted", "observed") if clicks else ("weight", "loss")
    for row, name in enumerate(fields):
        assert ExactSum(got[row]).value == getattr(want, name).value, name
    for other in (w * 2.0**80, np.zeros(500), w[:-1]):
        assert compiled().totals_checked(y, p, eps, True, clicks, other) is None
    for bad, kind in ((-w, "negative"), (np.where(w > 0.5, np.nan, w), "finite")):
        assert compiled().totals_checked(y, p, eps, True, clicks, bad)[:2] == (kind, 2)
    assert compiled().totals_checked(y, p, eps, True, clicks, w.astype(np.float32)) is None
    acc = rv.metric("log_loss").update(y, p, sample_weight=w)
    assert acc.compute() == rv.log_loss(y, p, sample_weight=w)
    with pytest.raises(InputValidationError, match="sample_weight must be non-negative"):
        rv.metric("log_loss").update(y, p, sample_weight=-w)


@pytest.mark.parametrize("name", ["log_loss", "normalized_entropy", "pcoc"])
def test_training_loop_batches_added_in_one_call_equal_the_function(name):
    """Batches of a training loop's size (their rows checked and summed by the core,
    blocks shared with the pool's threads, and added to the state in the same call),
    float32 and float64, weighted or not, with a merge and a refused batch between
    them: the function on every accepted row, ``==``."""
    rng = np.random.default_rng(7)
    sizes = [10_000, 8_192, 20_001, 1, 12_345]
    y = rng.integers(0, 2, sum(sizes)).astype(np.int8)
    p = rng.random(sum(sizes))
    p[:3] = [0.0, 1.0, 5e-324]
    w = rng.random(sum(sizes)) * 3.0
    function = {"log_loss": rv.log_loss, "normalized_entropy": rv.normalized_entropy,
                "pcoc": rv.pcoc}[name]  # fmt: skip
    for dtype in (np.float64, np.float32):
        q = p.astype(dtype)
        for weights in (None, w):
            first, second = rv.metric(name), rv.metric(name)
            for i, rows in enumerate(np.split(np.arange(len(y)), np.cumsum(sizes)[:-1])):
                acc = first if i % 2 == 0 else second
                kw = {} if weights is None else {"sample_weight": weights[rows]}
                acc.update(y[rows], q[rows], **kw)
                bad = q[rows].copy()
                bad[-1] = 1.5  # refused whole: the state keeps what it had
                with pytest.raises(
                    InputValidationError, match=r"probabilities in \[0, 1\]. Got values \[1.5\]"
                ):
                    acc.update(y[rows], bad, **kw)
            kw = {} if weights is None else {"sample_weight": weights}
            assert first.merge(second).compute() == function(y, q, **kw)


# NumPy arrays take the one-call update of the core (MetricDefinition.update_plain);
# Arrow arrays, keywords it does not know and options it does not handle take the full path:
# the same state and value either way, and a value the core refuses raises the same.
SHORT_PATH = ["log_loss", "pcoc", "copc", "normalized_entropy", "roc_auc", "average_precision",
              "partial_auc(max_fpr=0.5)", "log_loss(negative_sampling_rate=0.5)"]  # fmt: skip


@pytest.mark.parametrize("name", SHORT_PATH)
@pytest.mark.parametrize("weights", [False, True])
def test_short_path_equals_the_full_path(name, weights):
    if weights and name.startswith(("roc_auc", "average_precision", "partial_auc")):
        weights = False  # weighted AUC batches take the full path either way
    rng = np.random.default_rng(7)
    y, p, w = _binary(rng, 3000, weights)
    p32 = p.astype(np.float32)
    short, full, whole = rv.metric(name), rv.metric(name), rv.metric(name)
    for lo, hi in [(0, 700), (700, 701), (701, 3000)]:
        kw = {} if w is None else {"sample_weight": w[lo:hi]}
        short.update(y[lo:hi], p32[lo:hi], **kw)
        full.update(pa.array(y[lo:hi]), pa.array(p32[lo:hi]),
                    **{k: pa.array(x) for k, x in kw.items()})  # fmt: skip
    whole.update(y, p32, **({} if w is None else {"sample_weight": w}))
    assert short.n_updates == full.n_updates == 3
    assert short.compute() == full.compute() == whole.compute()
    plain = short.definition.update_plain
    if plain is not None:  # other input: the full path
        assert plain(short._params, short._state, (y.tolist(), p32, None)) is None
        assert plain(short._params, short._state, (y, pa.array(p32), None)) is None


@pytest.mark.parametrize(
    ("data", "kwargs", "bound"),
    [
        (("y", "p"), {}, ("y", "p", None)),
        (("y",), {"y_prob": "p"}, ("y", "p", None)),
        ((), {"y_true": "y", "y_prob": "p", "sample_weight": "w"}, ("y", "p", "w")),
        (("y", "p", "w"), {}, ("y", "p", "w")),
        (("y", "p"), {"y_prob": "q"}, None),  # given twice
        (("y", "p"), {"weights": "w"}, None),  # not an argument of update
        (("y", "p", "w", "x"), {}, None),  # too many
    ],
)
def test_every_backend_adds_a_batch_the_one_way(data, kwargs, bound):
    """MetricDefinition.add (accumulators, scans, windows, the functions) hands the core
    the data arguments in the order of the row's inputs, or takes the full path where
    they do not bind (whose checks then name the problem)."""
    from dataclasses import replace

    from receval.registry import definition

    seen = []

    def plain(params, state, columns):
        seen.append(columns)

    pcoc = replace(definition("pcoc"), update_plain=plain)
    arrays = {"y": np.array([0, 1, 1]), "p": np.array([0.2, 0.4, 0.9]), "q": np.ones(3),
              "w": np.ones(3), "x": np.ones(3)}  # fmt: skip
    try:
        state = pcoc.add(pcoc.check_params("f"), None, tuple(arrays[a] for a in data),
                         {k: arrays[a] for k, a in kwargs.items()}, func="f")  # fmt: skip
    except (TypeError, InvalidParameterError):
        assert bound is None
    else:
        value = pcoc.value(pcoc.check_params("f"), state, func="f")
        assert value == rv.pcoc(arrays["y"], arrays["p"])
    if bound is None:
        assert seen == []
    else:
        assert len(seen) == 1
        assert all((a is None) if b is None else (a is arrays[b])
                   for a, b in zip(seen[0], bound, strict=True))  # fmt: skip


def test_scans_add_plain_batches_in_one_call_of_the_core(tmp_path, monkeypatch):
    """A scan's batches are plain NumPy arrays, which the metric's ``update_plain``
    takes (one call of the core per batch): every row goes that way."""
    import pyarrow.parquet as pq

    from receval.engine import totals

    rng = np.random.default_rng(3)
    y, p, _ = _binary(rng, 5000, False)
    path = tmp_path / "rows.parquet"
    pq.write_table(pa.table({"y": y, "p": p}), path, row_group_size=1000)
    plain_rows = []
    real = totals.plain_pair

    def counted(y_true, y_prob, sample_weight):
        if real(y_true, y_prob, sample_weight):
            plain_rows.append(len(y_true))
            return True
        return False

    monkeypatch.setattr(totals, "plain_pair", counted)
    scan = rv.scan(str(path), batch_rows=1000)
    value = rv.pcoc(scan["y"], scan["p"])
    assert sum(plain_rows) == 5000
    assert value == rv.pcoc(y, p)


@pytest.mark.parametrize("name", ["log_loss", "pcoc", "roc_auc"])
def test_short_path_refusals_are_worded_as_the_full_path(name):
    y = np.array([0, 1, 1], dtype=np.int8)
    p = np.array([0.2, np.nan, 0.7])
    acc = rv.metric(name)
    with pytest.raises(InputValidationError, match="NaN") as short:
        acc.update(y, p)
    with pytest.raises(InputValidationError, match="NaN") as full:
        rv.metric(name).update(y.tolist(), p.tolist())
    assert acc.n_updates == 0
    assert (
        str(short.value).split(";")[0].split(":")[0] == str(full.value).split(";")[0].split(":")[0]
    )


@pytest.mark.parametrize("weighting", ["impressions", "clicks", "uniform"])
@pytest.mark.parametrize("positional", [False, True])
def test_gauc_short_path_equals_the_full_path(weighting, positional):
    rng = np.random.default_rng(11)
    n = 4000
    g = np.sort(rng.integers(-50, 200, n))  # groups split across the updates below
    y, p, _ = _binary(rng, n, False)
    p32 = p.astype(np.float32)
    short, full = rv.metric("gauc", weighting=weighting), rv.metric("gauc", weighting=weighting)
    order = rng.permutation(n)  # a shuffled loop: every group in several updates
    for part in np.array_split(order, 7):
        if positional:
            short.update(y[part], p32[part], g[part])
        else:
            short.update(y[part], p32[part], groups=g[part])
        full.update(pa.array(y[part]), pa.array(p32[part]), groups=pa.array(g[part]))
    want = rv.gauc_score(y[order], p32[order], groups=g[order], weighting=weighting)
    assert short.compute() == full.compute() == want
    assert short.state.n_rows == n


def test_gauc_short_path_refusals_and_other_input():
    y = np.array([0, 1, 1], dtype=np.int8)
    g = np.array([1, 1, 2])
    acc = rv.metric("gauc")
    with pytest.raises(InputValidationError, match="NaN"):
        acc.update(y, np.array([0.2, np.nan, 0.7]), groups=g)
    with pytest.raises(InputValidationError, match="y_true"):
        acc.update(np.array([0, 2, 1]), np.array([0.2, 0.3, 0.7]), groups=g)
    assert acc.n_updates == 0 and acc.state.n_rows == 0
    # float ids, sample weights: the full path, the same value; string ids after
    # integer ones are refused, as gauc_score refuses a column of both
    acc.update(y.astype(bool), np.array([0.2, 0.3, 0.7]), groups=g, sample_weight=np.ones(3))
    ones = {"sample_weight": np.ones(3)}  # weights in every update or in none
    acc.update(y, np.array([0.9, 0.3, 0.7]), groups=np.array([1.0, 1.0, 2.0]), **ones)
    with pytest.raises(InputValidationError, match="Got strings in this update, integers"):
        acc.update(y, np.array([0.5, 0.6, 0.1]), groups=np.array(["1", "1", "2"]), **ones)
    ys = np.array([0, 1, 1, 0, 1, 1])
    ps = np.array([0.2, 0.3, 0.7, 0.9, 0.3, 0.7])
    assert acc.compute() == rv.gauc_score(ys, ps, groups=[1, 1, 2] * 2)


@pytest.mark.parametrize(
    ("name", "args", "kwargs", "words"),
    [
        ("log_loss", ([1, 0],), {}, "Got no y_pred"),
        ("pcoc", ([1, 0],), {}, "Got no y_prob"),
        ("rmse", ([1.0, 0.0],), {}, "'y_pred'"),
        ("explained_variance", ([1.0],), {}, "Got no y_pred"),
        ("roc_auc", ([1, 0],), {}, "'y_score'"),
        ("roc_auc", ([1, 0], [0.1, 0.2]), {"weights": [1, 1]}, "'weights'"),
        ("gauc", ([1, 0], [0.1, 0.2]), {}, "'groups'"),
        ("ndcg@10", ({},), {}, "'run'"),
        ("log_loss", ([1, 0], [0.1, 0.2], None, None), {}, "4 positional"),
    ],
)
def test_update_with_arguments_it_does_not_take_names_them(name, args, kwargs, words):
    acc = rv.metric(name)
    with pytest.raises(InvalidParameterError, match=words):
        acc.update(*args, **kwargs)
    assert acc.n_updates == 0


@given(
    st.lists(
        st.tuples(
            st.booleans(),
            st.lists(st.integers(0, 12) | st.sampled_from(["a", "b", "c", "7", "x"]), max_size=8),
        ),
        max_size=6,
    )
)
@example([(True, [5]), (False, [5, "a"])])  # an int held, given again among other ids
@settings(max_examples=300)
def test_seen_adds_a_batch_unless_an_id_repeats(batches):
    # against Python sets: a batch of integers (as int64, or as objects) or of mixed
    # ids; the repeated ids are those within the batch and those held before
    from receval.engine.group_ids import Seen

    seen, held = Seen(), set()
    for as_int64, values in batches:
        ints = all(type(x) is int for x in values)
        arr = np.array(values, dtype=np.int64 if as_int64 and ints else object)
        batch: set = set()
        want = [x for x in values if x in batch or batch.add(x)] + [x for x in values if x in held]
        got = seen.add_new(arr)
        assert set(got) == set(want) and bool(got) == bool(want)
        if not want:
            held |= batch
    assert set(seen.ints.tolist()) | seen.ids == held


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("gauc", "without both a click and a non-click"),
        ("grouped_auprc", "without a positive"),
        ("grouped_xauc", "without a pair of rows with different targets"),
    ],
)
def test_skipped_counts_the_groups_left_out_across_batches(name, why):
    # the groups a grouped metric leaves out were counted only on the command line
    y = [1, 0, 0, 0, 1, 1, 1, 0]
    s = [0.9, 0.2, 0.8, 0.7, 0.5, 0.4, 0.3, 0.6]
    g = [1, 1, 2, 2, 3, 3, 4, 4]
    one = rv.metric(name)
    one.update(y, s, groups=g)
    parts = [rv.metric(name), rv.metric(name)]
    parts[0].update(y[:3], s[:3], groups=g[:3])
    parts[1].update(y[3:], s[3:], groups=g[3:])
    merged = parts[0].merge(parts[1])
    skipped = 1 if name == "grouped_auprc" else 2  # a group of positives has an AP
    for acc in (one, merged):
        assert acc.skipped() == {
            "n_groups": 4,
            "n_groups_skipped": skipped,
            "n_rows_skipped": 2 * skipped,
            "why": why,
        }
        assert acc.compute() == rv.compute(name, y, s, groups=g)


def test_skipped_is_empty_for_a_metric_that_leaves_nothing_out():
    acc = rv.metric("auc")
    acc.update([0, 1], [0.2, 0.7])
    assert acc.skipped() == {}


_FAR = st.sampled_from([5e-324, 1e-300, 2.0**-600, 1e-30, 1.0, 3.0, 2.0**65, 1e300])


@settings(max_examples=150, deadline=None)
@given(
    rows=st.lists(
        st.tuples(st.integers(0, 1), st.floats(0, 1), _FAR, st.sampled_from([1e-300, 0.3, 1e40])),
        min_size=1,
        max_size=12,
    ),
    cut=st.integers(0, 12),
)
def test_batches_of_weights_of_any_scale_give_the_exact_value(rows, cut):
    # each batch's weights were scaled by its own power of two (ece: 2**65 counted as
    # 0.5 beside 1.0), and tiny weights times errors underflowed (rmse 0.0 for 1e40)
    y, p, w, e = (list(c) for c in zip(*rows, strict=True))
    cut = min(cut, len(y))
    parts = [slice(0, cut), slice(cut, None)]
    ece, rmse, mae = rv.metric("ece", n_bins=4), rv.metric("rmse"), rv.metric("mae")
    for part in parts:
        if y[part]:
            ece.update(y[part], p[part], sample_weight=w[part])
            rmse.update(e[part], p[part], sample_weight=w[part])
            mae.update(e[part], p[part], sample_weight=w[part])
    # each w p is rounded once: an error of an ulp of the weight, not of the value
    assert ece.compute() == pytest.approx(oracle.ece_exact(y, p, 4, w), rel=0, abs=1e-14)
    one = rv.metric("ece", n_bins=4).update(y, p, sample_weight=w).compute()
    assert one == rv.expected_calibration_error(y, p, sample_weight=w, n_bins=4)
    squared, absolute = oracle.mean_errors(e, p, w)
    assert rmse.compute() == pytest.approx(math.sqrt(squared), rel=1e-15)
    assert mae.compute() == pytest.approx(absolute, rel=1e-15)


@pytest.mark.parametrize(
    ("y", "p", "w"),
    [
        ([1, 1], [0.9, 0.5], [1e308, 1e-300]),
        ([1, 1], [1 - 2**-53, 0.01], [1e300, 5e-324]),
        ([1, 0, 1], [0.9, 0.3, 0.7], [1.7e308, 1e-300, 2.0**-1000]),
    ],
)
def test_ece_of_weights_near_1e308_beside_tiny_ones_is_exact(y, p, w):
    # the tiny weight kept the shift small, so the largest stayed beyond 2**995 and its
    # products were rounded: 0.09999999999999996 for 1 - 0.9, 1.5e-16 for 2**-53, and
    # another float for another split of the rows, without a word
    want = oracle.ece_exact(y, p, 10, w)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert rv.expected_calibration_error(y, p, sample_weight=w) == want
        for cut in range(len(y)):
            acc = rv.metric("ece")
            for part in (slice(0, cut), slice(cut, None)):
                if y[part]:
                    acc.update(y[part], p[part], sample_weight=w[part])
            assert acc.compute() == want


@settings(max_examples=200, deadline=None)
@given(
    rows=st.lists(
        st.tuples(
            st.integers(0, 1),
            st.sampled_from([0.0, 5e-324, 1e-310, 2.0**-1000, 0.01, 0.3, 0.9, 1 - 2**-53, 1.0]),
            st.sampled_from([5e-324, 1e-310, 1e-300, 1e-30, 1.0, 3.0, 2.0**65, 1e300, 1.7e308]),
        ),
        min_size=1,
        max_size=8,
    ),
    cut=st.integers(0, 8),
)
def test_ece_of_any_split_is_exact_or_warned(rows, cut):
    # the value is the exact one, the same for any split, unless a warning gives the span
    # that holds it (products below 2**-969 rounded, or bits below 2**-1074 dropped)
    y, p, w = (list(c) for c in zip(*rows, strict=True))
    want = oracle.ece_exact(y, p, 4, w)
    acc = rv.metric("ece", n_bins=4)
    for part in (slice(0, cut), slice(cut, None)):
        if y[part]:
            acc.update(y[part], p[part], sample_weight=w[part])
    for compute in (acc.compute, lambda: rv.expected_calibration_error(y, p, sample_weight=w,
                                                                       n_bins=4)):  # fmt: skip
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = compute()
        if not [c for c in caught if "span more than" in str(c.message)]:
            assert got == want


@pytest.mark.parametrize(
    ("y", "p", "w"),
    [
        ([0, 1, 0], [5e-324, 0.0, 0.0], [1e300, 1.0, 1e-310]),
        ([0, 1], [5e-324, 0.0], [1e300, 1.0]),
        ([1, 0, 1], [2.0**-1070 * 3, 0.5, 0.0], [1e308, 2.0**70, 3.0]),
    ],
)
def test_pcoc_of_a_subnormal_probability_times_a_weight_near_1e308(y, p, w):
    # the weights were scaled down first (2**-997), and 5e-324 times 0.75 rounded to
    # 5e-324: 6.6e-24 for 4.9e-24, by the function and by a batch that held the row
    predicted = sum(Fraction(a) * Fraction(b) for a, b in zip(p, w, strict=True))
    observed = sum(Fraction(b) for a, b in zip(y, w, strict=True) if a)
    for name, func, want in [("pcoc", rv.pcoc, predicted / observed),
                             ("copc", rv.copc, observed / predicted)]:  # fmt: skip
        assert func(y, p, sample_weight=w) == float(want)
        for cut in range(len(y)):
            acc = rv.metric(name)
            for part in (slice(0, cut), slice(cut, None)):
                if y[part]:
                    acc.update(y[part], p[part], sample_weight=w[part])
            assert acc.compute() == float(want)


@pytest.mark.parametrize("whole_groups", [False, True])
def test_gauc_takes_an_empty_batch(whole_groups):
    # an empty last batch of a training loop was an error for gauc alone
    acc = rv.metric("gauc", whole_groups=whole_groups)
    acc.update([0, 1], [0.1, 0.2], groups=[1, 1]).update([], [], groups=[])
    assert acc.compute() == 1.0
    with pytest.raises(InputValidationError, match="must have the same length"):
        rv.metric("gauc").update([], [0.1], groups=[])


def test_a_ranking_update_names_itself_for_a_bad_qrels_or_run():
    """It named evaluate, which the caller never called."""
    acc = rv.metric("ndcg@3")
    with pytest.raises(InvalidParameterError) as info:
        acc.update({"u": {"a": 1}}, 5)
    assert str(info.value) == (
        "The 'run' parameter of Accumulator.update of 'ndcg@3' must be a Run, a dict {user: "
        "{item: score}}, a DataFrame or a file path. Got int instead."
    )
    with pytest.raises(InvalidParameterError, match=r"'qrels' parameter of Accumulator.update"):
        acc.update(3.5, {"u": {"a": 1.0}})


@pytest.mark.parametrize("name", ["auc", "logloss", "pcoc", "ne", "gauc"])
def test_scores_given_before_labels_are_said_to_be_swapped(name):
    groups = {"groups": [1, 1, 2, 2]} if name == "gauc" else {}
    acc = rv.metric(name)
    with pytest.raises(InputValidationError, match="the arguments look swapped") as raised:
        acc.update(np.array([0.1, 0.9, 0.4, 0.7]), np.array([0, 1, 1, 0]), **groups)
    assert "pos_label" not in str(raised.value) and "binarise" not in str(raised.value)
    # labels that are not binary and not probabilities: the labels' own message
    with pytest.raises(InputValidationError) as raised:
        acc.update(np.array([0, 2, 1, 1]), np.array([0.1, 0.9, 0.4, 0.7]), **groups)
    assert "swapped" not in str(raised.value)
    assert acc.n_updates == 0


@pytest.mark.parametrize("name", ["auc", "logloss", "gauc", "ne", "rmse", "ndcg@10", "ips"])
def test_compute_before_any_update_says_no_batch_was_added(name):
    acc = rv.metric(name)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = acc.compute()
    assert math.isnan(value)
    # one warning, the accumulator's (not a single class, zero weights, or none at all)
    assert [str(w.message) for w in caught] == [
        f"Accumulator.compute of {name!r}: no batch has been added (update was never "
        f"called), so the value is undefined (returned as nan)."
    ]
    assert all(w.category is UndefinedMetricWarning for w in caught)

"""Differential suite: every kernel ported to the compiled core (``receval._core``)
gives exactly the outputs of its numba twin on the same inputs: random rows with
ties, empty inputs, one class, zeros of both signs, subnormals, huge values and
non-finite floats (for the sums). Integer outputs and floats are compared with
``==`` (bit for bit; NaN where NaN).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from receval._kernels import api, compiled

core = compiled()
pytestmark = pytest.mark.skipif(core is None, reason="receval._core is not built")

SPECIAL = np.array(
    [
        0.0,
        -0.0,
        5e-324,
        -5e-324,
        2.2250738585072014e-308,
        1e-300,
        1.0,
        0.5,
        1e300,
        -1e300,
        1.7976931348623157e308,
        -1.7976931348623157e308,
    ]
)


def _same(a, b):
    if isinstance(a, tuple):
        assert isinstance(b, tuple) and len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            _same(x, y)
        return
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape, (a.dtype, b.dtype, a.shape, b.shape)
    if a.dtype.kind == "f":
        assert np.array_equal(a.view(np.int64), b.view(np.int64)) or np.array_equal(
            a, b, equal_nan=True
        ), (a, b)
    else:
        assert np.array_equal(a, b), (a, b)


def _both(name, *args):
    return getattr(core, name)(*args), api.numba_kernel(name)(*args)


def _rows(seed, n, ties=True, specials=False):
    rng = np.random.default_rng(seed)
    labels = (rng.random(n) < rng.random()).astype(np.int8)
    if ties:
        scores = rng.choice(np.linspace(0, 1, 1 + int(rng.integers(1, 12))), n)
    else:
        scores = rng.random(n)
    if specials and n:
        idx = rng.integers(0, n, max(1, n // 5))
        scores[idx] = rng.choice(SPECIAL, len(idx))
    weights = rng.choice([0.0, 0.5, 1.0, 2.0, 3.25], n)
    return labels, scores, weights


# ------------------------------------------------------------------ exact sums
@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(
        st.floats(allow_nan=True, allow_infinity=True, width=64)
        | st.sampled_from(SPECIAL.tolist()),
        max_size=300,
    ),
    n_chunks=st.integers(1, 5),
    carry_every=st.sampled_from([1, 2, 7, 1 << 30]),
)
def test_exact_sum_and_dot_are_bit_identical(values, n_chunks, carry_every):
    x = np.array(values, dtype=np.float64)
    _same(*_both("exact_sum", x, n_chunks, carry_every))
    w = x[::-1].copy()
    _same(*_both("exact_dot", x, w, n_chunks, carry_every))


@pytest.mark.parametrize("seed", range(6))
def test_exact_sum_of_many_values_and_normalize(seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(200_003) * 10.0 ** rng.integers(-300, 300, 200_003)
    got, want = _both("exact_sum", x, 7, 1 << 30)
    _same(got, want)
    digits = got * 3 - 12345  # digits out of range: normalize carries them
    a, b = digits.copy(), digits.copy()
    core.normalize(a)
    api.numba_kernel("normalize")(b)
    _same(a, b)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("weighted", [False, True])
def test_binary_log_loss_is_bit_identical(seed, weighted):
    labels, _, weights = _rows(seed, 5000)
    rng = np.random.default_rng(seed)
    proba = rng.choice([0.0, 1.0, 1e-20, 1 - 1e-17, 0.5, 0.3], 5000)
    proba = np.where(rng.random(5000) < 0.5, proba, rng.random(5000))
    w = weights if weighted else np.empty(0)
    for eps in (np.finfo(np.float64).eps, 1e-7, 0.25):
        _same(*_both("binary_log_loss_exact", labels, proba, w, eps, 3, 1 << 30))


# ------------------------------------------------------------------ AUC
@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("n", [0, 1, 2, 17, 1000])
def test_auc_kernels_are_identical(seed, n):
    labels, scores, weights = _rows(seed, n, ties=seed % 2 == 0, specials=seed % 3 == 0)
    if seed % 5 == 0:
        labels[:] = 1  # one class
    _same(*_both("split_by_label", scores, labels))
    _same(*_both("split_by_label_weighted", scores, labels, weights))
    pos, neg = core.split_by_label(scores, labels)
    pos.sort()
    neg.sort()
    assert core.pair_count_sorted(pos, neg) == api.numba_kernel("pair_count_sorted")(pos, neg)
    _same(*_both("threshold_counts_sorted", pos, neg))
    p, pw, q, qw = core.split_by_label_weighted(scores, labels, weights)
    op, oq = np.argsort(p, kind="stable"), np.argsort(q, kind="stable")
    p, pw, q, qw = p[op], pw[op], q[oq], qw[oq]
    _same(*_both("pair_weight_sorted", p, pw, q, qw))
    _same(*_both("threshold_counts_sorted_weighted", p, pw, q, qw))


# ------------------------------------------------------------------ score buckets
@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("weighted", [False, True])
def test_histogram_and_gather_are_identical(seed, weighted):
    labels, scores, weights = _rows(seed, 3000, ties=seed % 2 == 0, specials=True)
    shift = 64 - 10
    hists = []
    for add in (core.add_histogram, api.numba_kernel("add_histogram")):
        neg, pos = np.zeros(1 << 10, np.int64), np.zeros(1 << 10, np.int64)
        add(scores, labels, shift, neg, pos)
        add(scores[:100], labels[:100], shift, neg, pos)  # counts add up over batches
        hists.append((neg, pos))
    _same(tuple(hists[0]), tuple(hists[1]))
    rng = np.random.default_rng(seed)
    first = int(rng.integers(0, 1 << 10))
    last = int(rng.integers(first, 1 << 10))
    n = len(scores)
    w = weights if weighted else None
    outs = []
    for gather in (core.gather, api.numba_kernel("gather")):
        bufs = [np.full(n, -1.0) for _ in range(4)]
        filled = np.zeros(2, np.int64)
        gather(scores, labels, w, shift, first, last, *bufs, filled)
        k, m = filled
        outs.append(
            (filled, bufs[0][:k], bufs[2][:m])
            + ((bufs[1][:k], bufs[3][:m]) if w is not None else ())
        )
    _same(outs[0], outs[1])


def test_gather_refuses_short_buffers():
    labels = np.array([1, 1, 0], np.int8)
    scores = np.array([0.1, 0.2, 0.3])
    filled = np.zeros(2, np.int64)
    with pytest.raises(ValueError, match="more rows in the range than room"):
        core.gather(scores, labels, None, 54, 0, 1023, np.empty(1), np.empty(0), np.empty(2),
                    np.empty(0), filled)  # fmt: skip


def test_wrong_lengths_raise_value_errors():
    with pytest.raises(ValueError, match="w has 2 elements but x has 3"):
        core.exact_dot(np.zeros(3), np.zeros(2), 1)
    with pytest.raises(ValueError, match="acc must have 73 elements"):
        core.normalize(np.zeros(5, np.int64))


def test_threads_follow_the_environment(monkeypatch):
    import subprocess
    import sys

    code = "from receval import _core; print(_core.num_threads())"
    env = {"RECEVAL_NUM_THREADS": "3", "PATH": ""}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.strip() == "3", out.stderr


# ------------------------------------------------------------------ GAUC
@pytest.mark.parametrize("seed", range(16))
@pytest.mark.parametrize("n", [0, 1, 40, 3000])
def test_gauc_kernels_are_identical(seed, n):
    labels, scores, weights = _rows(seed, n, ties=seed % 2 == 0, specials=seed % 3 == 0)
    rng = np.random.default_rng(seed)
    n_groups = int(rng.integers(1, 60))
    codes = rng.integers(0, n_groups, n).astype(np.int32)  # some groups empty
    rows, positives = core.group_counts(codes, n_groups, labels)
    _same((rows, positives), api.numba_kernel("group_counts")(codes, n_groups, labels))
    for minority in (0, 1):
        counts = positives if minority == 1 else rows - positives
        got = core.gather_minority(codes, n_groups, labels, scores, minority, counts)
        want = api.numba_kernel("gather_minority")(
            codes, n_groups, labels, scores, minority, counts
        )
        _same(got, want)
        offsets, seg = got
        seg_numba = seg.copy()
        core.sort_segments(seg, offsets)
        api.numba_kernel("sort_segments")(seg_numba, offsets)
        assert np.array_equal(seg, seg_numba)  # equal as numbers (-0.0 == 0.0)
        for n_chunks in (1, 3):
            args = (codes, n_groups, labels, scores, minority, offsets, seg, n_chunks)
            _same(*_both("stream_pair_counts", *args))
    _same(*_both("weighted_group_aucs", codes, n_groups, labels, scores, weights, rows, positives))


def test_gauc_kernels_refuse_bad_codes():
    with pytest.raises(ValueError, match=r"codes must lie in \[0, 2\)"):
        core.group_counts(np.array([0, 2], np.int32), 2, np.array([0, 1], np.int8))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("weighted", [False, True])
def test_multiclass_log_loss_is_the_correctly_rounded_sum(seed, weighted):
    """The numba twin sums floats in thread order; the core's sum is exact, so it is
    compared with math.fsum of the same clipped losses (correctly rounded)."""
    import math

    from receval._sums import ExactSum

    rng = np.random.default_rng(seed)
    n, k = 3000, 4
    proba = rng.dirichlet(np.ones(k), n)
    proba[rng.integers(0, n, 50), 0] = 0.0  # clipped to eps
    codes = rng.integers(0, k, n).astype(np.int64)
    w = rng.random(n) * 3 if weighted else np.empty(0)
    eps = 1e-7
    q = np.clip(proba[np.arange(n), codes], eps, 1 - eps)
    # math.log: the C library's log, as the core's (NumPy's SIMD log may differ by an ulp)
    losses = np.array([-math.log(x) for x in q.tolist()]) * (w if weighted else 1.0)
    for n_chunks in (1, 3):
        digits = core.multiclass_log_loss_exact(codes, proba, w, eps, n_chunks)
        assert ExactSum(digits).value == math.fsum(losses.tolist())


# ------------------------------------------------------------------ id encoding
@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("n", [1, 5, 2000])
def test_encoding_kernels_are_identical(seed, n):
    rng = np.random.default_rng(seed)
    lo = int(rng.integers(-(10**6), 10**6))
    span = int(rng.integers(1, 3 * n + 2))
    values = lo + rng.integers(0, span, n).astype(np.int64)
    _same(*_both("factorize_dense", values, lo, span))
    got = core.factorize_dense_sorted(values, lo, span, 3)
    codes = np.empty(n, dtype=np.int32)
    want = api.numba_kernel("factorize_dense_sorted")(values, lo, span, 3, codes)
    _same(got, want)
    grouped = np.sort(values) if seed % 2 else values
    _same(core.runs(grouped), api.numba_kernel("runs")(grouped, 3))


def test_encoding_refuses_ids_out_of_range():
    with pytest.raises(ValueError, match=r"values must lie in \[lo, lo \+ span\)"):
        core.factorize_dense(np.array([1, 9], np.int64), 0, 5)


def test_multiclass_log_loss_refuses_fortran_order():
    proba = np.asfortranarray(np.full((3, 2), 0.5))
    with pytest.raises(ValueError, match="C-contiguous 2-D"):
        core.multiclass_log_loss_exact(np.zeros(3, np.int64), proba, np.empty(0), 1e-7, 1)


@pytest.mark.parametrize("offset", [0, 3])
def test_populate_keeps_the_contents(offset):
    """Faulting pages in at once never changes what they hold, whatever the
    alignment of the array (a view starting inside a page)."""
    core = compiled()
    if core is None:
        pytest.skip("the numba twins have no populate")
    data = np.arange(3_000_000, dtype=np.float64)
    view = data.view(np.uint8)[offset:]
    before = view.copy()
    core.populate(view)
    np.testing.assert_array_equal(view, before)
    with pytest.raises(ValueError, match="C-contiguous"):
        core.populate(data.view(np.uint8)[::2])


def test_empty_output_is_a_writable_array_of_the_size():
    from receval._kernels import empty_output

    for n, dtype in [(0, np.int32), (10, np.float64), (2_000_000, np.int32)]:
        out = empty_output(n, dtype)
        assert out.shape == (n,) and out.dtype == dtype and out.flags.writeable
        out[:] = 7
        assert (out == 7).all()

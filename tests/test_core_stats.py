"""Differential suite of the randomization-test and bootstrap kernels: the compiled
core (``receval._core``) against their numba twins (``receval._kernels._stats``) on
the same inputs.

The random streams (keys, stream starts, words, the draws of a resample), the
sign-pattern tables and the sign-flip sums are compared bit for bit. The bootstrap
means are bit for bit on integer-valued tables (every order of the additions gives
the same sums), and within a relative 1e-12 of the resampled mean of ``|x|`` on
other floats: numba sums a block's gathered values with ``fastmath`` reassociation
(SIMD partial sums whose shape depends on the CPU), while the core sums them in a
fixed order of its own. Either kernel gives the same bits for any number of chunks
or threads.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from receval._kernels import api, compiled

core = compiled()
pytestmark = pytest.mark.skipif(core is None, reason="receval._core is not built")

U64 = st.integers(0, 2**64 - 1)
TIES = np.array([-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0])


def _same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape, (a.dtype, b.dtype, a.shape, b.shape)
    assert a.tobytes() == b.tobytes(), (a, b)


def _numba(name, *args):
    with np.errstate(over="ignore"):  # uint64 wrap-around, when numba runs as Python
        return api.numba_kernel(name)(*args)


def _table(seed, n, m, kind):
    rng = np.random.default_rng(seed)
    if kind == "ties":
        x = rng.choice(TIES, (n, m))
    elif kind == "extreme":
        x = rng.normal(size=(n, m)) * 10.0 ** rng.integers(-300, 300, (n, m))
    else:
        x = rng.normal(size=(n, m))
    x[rng.random((n, m)) < 0.1] = 0.0  # users undefined in a column
    return np.ascontiguousarray(x)


# ------------------------------------------------------------------ random streams
def test_constants():
    assert core.FLIPS == int(api.numba_kernel("FLIPS"))
    assert core.RESAMPLES == int(api.numba_kernel("RESAMPLES"))


@settings(max_examples=200, deadline=None)
@given(z=U64, seed=st.integers(0, 2**63 - 1), b=st.integers(0, 2**40), t=st.integers(0, 2**40))
def test_streams_are_bit_identical(z, seed, b, t):
    assert core.mix64(z) == _numba("mix64", np.uint64(z))
    for domain in (core.FLIPS, core.RESAMPLES):
        key = core.seed_key(seed, domain)
        assert key == _numba("seed_key", seed, np.uint64(domain))
    start = core.stream_start(np.uint64(z), b)
    assert start == _numba("stream_start", np.uint64(z), b)
    assert core.stream_word(np.uint64(z), t) == _numba("stream_word", np.uint64(z), t)


@settings(max_examples=100, deadline=None)
@given(
    start=U64,
    k0=st.integers(0, 2**40),
    count=st.integers(0, 300),
    n=st.sampled_from([1, 2, 3, 255, 256, 1000, 2**31 + 7, 2**32 - 1]),
)
def test_draws_are_bit_identical(start, k0, count, n):
    got = np.full(count + 3, -1, np.int64)
    want = got.copy()
    core.draw_block(np.uint64(start), k0, count, n, got)
    _numba("draw_block", np.uint64(start), k0, count, n, want)
    _same(got, want)
    assert ((got[:count] >= 0) & (got[:count] < n)).all()


# ------------------------------------------------------------------ randomization
@pytest.mark.parametrize("kind", ["normal", "ties", "extreme"])
@pytest.mark.parametrize(("n", "m", "i0", "i1"), [(64, 3, 0, 64), (100, 1, 64, 100), (5, 6, 0, 5),
                                                  (70, 2, 64, 64), (200, 9, 128, 192)])  # fmt: skip
def test_flip_tables_are_bit_identical(kind, n, m, i0, i1):
    x = _table(n + m, n, m, kind)
    got = np.full((8, 256, m), np.nan)
    want = got.copy()
    core.flip_tables(x, i0, i1, got)
    _numba("flip_tables", x, i0, i1, want)
    _same(got, want)


@pytest.mark.parametrize("kind", ["normal", "ties", "extreme"])
@pytest.mark.parametrize(
    ("n", "m"), [(0, 2), (1, 1), (63, 1), (64, 2), (150, 3), (1000, 1), (333, 4), (77, 5), (40, 0)]
)
def test_sign_flip_sums_are_bit_identical(kind, n, m):
    x = _table(n * 7 + m, n, m, kind)
    for seed in (0, 5, 2**63 - 1):
        want = _numba("sign_flip_sums", x, 257, seed, 1)
        for n_chunks in (1, 3, 64, 300):
            _same(core.sign_flip_sums(x, 257, seed, n_chunks), want)
    _same(core.sign_flip_sums(x, 0, 1, 4), np.empty((0, m)))


# ------------------------------------------------------------------ bootstrap
def _denominators(seed, n, m, mw, zeros):
    rng = np.random.default_rng(seed)
    wm = rng.choice([0.0, 1.0, 2.0, 3.0], (n, mw)) if zeros else rng.integers(1, 4, (n, mw))
    return np.ascontiguousarray(wm, dtype=np.float64)


@pytest.mark.parametrize(
    ("n", "m"), [(0, 2), (1, 1), (2, 3), (255, 1), (256, 2), (257, 4), (1000, 1), (600, 6)]
)
@pytest.mark.parametrize("mw", ["none", "shared", "per column"])
def test_bootstrap_means_are_bit_identical_on_integer_tables(n, m, mw):
    rng = np.random.default_rng(n + m)
    x = np.ascontiguousarray(rng.integers(-20, 21, (n, m)).astype(np.float64))
    k = {"none": 0, "shared": 1, "per column": m}[mw]
    for zeros in (False, True):
        wm = _denominators(n, n, m, k, zeros)
        for seed in (0, 9, 2**63 - 1):
            want = _numba("bootstrap_means", x, wm, 129, seed, 1)
            for n_chunks in (1, 4, 200):
                _same(core.bootstrap_means(x, wm, 129, seed, n_chunks), want)


@pytest.mark.parametrize("kind", ["normal", "ties", "extreme"])
@pytest.mark.parametrize(("n", "m"), [(3, 1), (150, 3), (1000, 1), (77, 5), (2000, 2)])
@pytest.mark.parametrize("mw", ["none", "shared", "per column"])
def test_bootstrap_means_agree_on_floats(kind, n, m, mw):
    x = _table(n * 3 + m, n, m, kind)
    k = {"none": 0, "shared": 1, "per column": m}[mw]
    rng = np.random.default_rng(n)
    wm = np.ascontiguousarray(rng.random((n, k)) * (rng.random((n, k)) < 0.9))
    seed = 12345
    got = core.bootstrap_means(x, wm, 300, seed, 1)
    want = _numba("bootstrap_means", x, wm, 300, seed, 1)
    # numba reassociates each block's sums (fastmath): the two differ by rounding only,
    # bounded by the resampled mean of |x| (the same draws) times a few ulps per term
    scale = core.bootstrap_means(np.abs(x), wm, 300, seed, 1)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    assert (np.abs(got - want)[ok] <= 1e-12 * scale[ok]).all()
    for n_chunks in (3, 64, 500):  # the core's own bits do not depend on the chunks
        _same(core.bootstrap_means(x, wm, 300, seed, n_chunks), got)


def test_bootstrap_zero_denominators_and_empty_tables():
    x = np.ascontiguousarray([[1.0, 2.0], [3.0, 4.0]])
    wm = np.ascontiguousarray([[0.0, 1.0], [0.0, 2.0]])  # column 0 never weighted
    got = core.bootstrap_means(x, wm, 5, 1, 1)
    _same(got, _numba("bootstrap_means", x, wm, 5, 1, 1))
    assert np.isnan(got[:, 0]).all() and not np.isnan(got[:, 1]).any()
    empty = np.empty((0, 3))
    _same(core.bootstrap_means(empty, np.empty((0, 0)), 4, 1, 2), np.full((4, 3), np.nan))
    _same(core.bootstrap_means(np.empty((5, 0)), np.empty((5, 0)), 4, 1, 2), np.empty((4, 0)))


def test_results_do_not_depend_on_threads():
    code = (
        "import numpy as np, hashlib; from receval import _core as c\n"
        "rng = np.random.default_rng(3)\n"
        "x = rng.normal(size=(3000, 3)); w = rng.random((3000, 1))\n"
        "a = c.sign_flip_sums(x, 500, 7, 16); b = c.bootstrap_means(x, w, 500, 7, 16)\n"
        "print(c.num_threads(), hashlib.sha256(a.tobytes() + b.tobytes()).hexdigest())"
    )
    outs = []
    for threads in ("1", "3"):
        env = {**os.environ, "RECEVAL_NUM_THREADS": threads}
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        n, digest = out.stdout.split()
        assert n == threads
        outs.append(digest)
    assert outs[0] == outs[1]


# ------------------------------------------------------------------ callers
def test_randomization_pvalues_are_unchanged(monkeypatch):
    from receval import _stats
    from receval._kernels import api as kernels

    rng = np.random.default_rng(4)
    d = rng.choice(TIES, (700, 3))
    d[rng.random(d.shape) < 0.05] = np.nan
    w = rng.random(700)
    got = _stats.randomization_pvalues(d, w, n_permutations=999, seed=3)
    monkeypatch.setattr(kernels, "sign_flip_sums", api.numba_kernel("sign_flip_sums"))
    _same(got, _stats.randomization_pvalues(d, w, n_permutations=999, seed=3))


def test_bootstrap_intervals_agree(monkeypatch):
    from receval import _intervals
    from receval._kernels import api as kernels

    rng = np.random.default_rng(5)
    d = rng.normal(size=(500, 2))
    got = _intervals.bootstrap_intervals(d, n_resamples=999, seed=3)
    monkeypatch.setattr(kernels, "bootstrap_means", api.numba_kernel("bootstrap_means"))
    want = _intervals.bootstrap_intervals(d, n_resamples=999, seed=3)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12)


# ------------------------------------------------------------------ errors
def test_bad_inputs_raise_value_errors():
    x = np.zeros((10, 3))
    with pytest.raises(ValueError, match="x must be a C-contiguous 2-D array"):
        core.sign_flip_sums(np.asfortranarray(np.zeros((10, 3))), 5, 1, 1)
    with pytest.raises(ValueError, match="table must be a C-contiguous 3-D array"):
        core.flip_tables(x, 0, 10, np.zeros((8, 256, 3), order="F"))
    with pytest.raises(ValueError, match="wm has 9 rows but x has 10"):
        core.bootstrap_means(x, np.zeros((9, 1)), 5, 1, 1)
    with pytest.raises(ValueError, match="wm must have 0, 1 or 3 columns, got 2"):
        core.bootstrap_means(x, np.zeros((10, 2)), 5, 1, 1)
    with pytest.raises(ValueError, match=r"table must have shape \(8, 256, 3\)"):
        core.flip_tables(x, 0, 10, np.zeros((8, 256, 2)))
    with pytest.raises(ValueError, match="at most 64 rows of x"):
        core.flip_tables(x, 0, 11, np.zeros((8, 256, 3)))
    with pytest.raises(ValueError, match="count is 5 but idx has 4 elements"):
        core.draw_block(1, 0, 5, 10, np.zeros(4, np.int64))
    with pytest.raises(ValueError, match="n must be below 2"):
        core.draw_block(1, 0, 1, 2**32, np.zeros(4, np.int64))

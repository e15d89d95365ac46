"""The randomization-test and bootstrap kernels of the compiled core
(``receval._core``) against the slow oracles of ``tests/oracles/streams.py`` (the
random streams written out in Python integers): the sign-flip sums and the
bootstrap means are bit for bit on tables of small integers and halves (every
order of the additions gives the same sums). The core's bits do not depend on the
number of chunks or threads, on any table.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from receval._kernels import compiled
from tests.oracles import streams as oracle

core = compiled()

TIES = np.array([-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0])


def _same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape, (a.dtype, b.dtype, a.shape, b.shape)
    assert a.tobytes() == b.tobytes(), (a, b)


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


# ------------------------------------------------------------------ randomization
@pytest.mark.parametrize("kind", ["normal", "ties", "extreme"])
@pytest.mark.parametrize(
    ("n", "m"), [(0, 2), (1, 1), (63, 1), (64, 2), (150, 3), (1000, 1), (333, 4), (77, 5), (40, 0)]
)
def test_sign_flip_sums_do_not_depend_on_the_chunks(kind, n, m):
    x = _table(n * 7 + m, n, m, kind)
    for seed in (0, 5, 2**63 - 1):
        want = core.sign_flip_sums(x, 257, seed, 1)
        for n_chunks in (3, 64, 300):
            _same(core.sign_flip_sums(x, 257, seed, n_chunks), want)
    _same(core.sign_flip_sums(x, 0, 1, 4), np.empty((0, m)))


@pytest.mark.parametrize(("n", "m"), [(0, 2), (1, 1), (63, 1), (64, 2), (150, 3), (40, 0)])
@pytest.mark.parametrize("seed", [0, 5, 2**63 - 1])
def test_sign_flip_sums_equal_the_stream_oracle(n, m, seed):
    x = _table(n * 7 + m, n, m, "ties")
    _same(core.sign_flip_sums(x, 40, seed, 3), oracle.sign_flip_sums(x, 40, seed))


# ------------------------------------------------------------------ bootstrap
def _denominators(seed, n, m, mw, zeros):
    rng = np.random.default_rng(seed)
    wm = rng.choice([0.0, 1.0, 2.0, 3.0], (n, mw)) if zeros else rng.integers(1, 4, (n, mw))
    return np.ascontiguousarray(wm, dtype=np.float64)


@pytest.mark.parametrize(
    ("n", "m"), [(0, 2), (1, 1), (2, 3), (255, 1), (256, 2), (257, 4), (1000, 1), (600, 6)]
)
@pytest.mark.parametrize("mw", ["none", "shared", "per column"])
def test_bootstrap_means_equal_the_stream_oracle_on_integer_tables(n, m, mw):
    rng = np.random.default_rng(n + m)
    x = np.ascontiguousarray(rng.integers(-20, 21, (n, m)).astype(np.float64))
    k = {"none": 0, "shared": 1, "per column": m}[mw]
    for zeros in (False, True):
        wm = _denominators(n, n, m, k, zeros)
        for seed in (0, 9, 2**63 - 1):
            want = oracle.bootstrap_means(x, wm, 129 if n <= 300 else 9, seed)
            for n_chunks in (1, 4, 200):
                _same(core.bootstrap_means(x, wm, len(want), seed, n_chunks), want)


@pytest.mark.parametrize("kind", ["normal", "ties", "extreme"])
@pytest.mark.parametrize(("n", "m"), [(3, 1), (150, 3), (1000, 1), (77, 5), (2000, 2)])
@pytest.mark.parametrize("mw", ["none", "shared", "per column"])
def test_bootstrap_means_do_not_depend_on_the_chunks(kind, n, m, mw):
    x = _table(n * 3 + m, n, m, kind)
    k = {"none": 0, "shared": 1, "per column": m}[mw]
    rng = np.random.default_rng(n)
    wm = np.ascontiguousarray(rng.random((n, k)) * (rng.random((n, k)) < 0.9))
    got = core.bootstrap_means(x, wm, 300, 12345, 1)
    for n_chunks in (3, 64, 500):
        _same(core.bootstrap_means(x, wm, 300, 12345, n_chunks), got)


def test_bootstrap_zero_denominators_and_empty_tables():
    x = np.ascontiguousarray([[1.0, 2.0], [3.0, 4.0]])
    wm = np.ascontiguousarray([[0.0, 1.0], [0.0, 2.0]])  # column 0 never weighted
    got = core.bootstrap_means(x, wm, 5, 1, 1)
    _same(got, oracle.bootstrap_means(x, wm, 5, 1))
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


# ------------------------------------------------------------------ errors
def test_bad_inputs_raise_value_errors():
    x = np.zeros((10, 3))
    with pytest.raises(ValueError, match="x must be a C-contiguous 2-D array"):
        core.sign_flip_sums(np.asfortranarray(np.zeros((10, 3))), 5, 1, 1)
    with pytest.raises(ValueError, match="wm has 9 rows but x has 10"):
        core.bootstrap_means(x, np.zeros((9, 1)), 5, 1, 1)
    with pytest.raises(ValueError, match="wm must have 0, 1 or 3 columns, got 2"):
        core.bootstrap_means(x, np.zeros((10, 2)), 5, 1, 1)

"""Differential suite of the beyond-accuracy kernels: the compiled core
(``receval._core``) against their numba twins on the same inputs: random lists
with repeated items, empty lists, depths beyond the longest list, float32 and
float64 features of any width, extreme magnitudes, similarity matrices in any
memory layout.

Counts, Gini indices, pair keys, personalization, list means, pair means and the
ILS of a similarity matrix are compared bit for bit. Cosine similarities of
feature vectors (``inverse_norms``, ``intra_list_similarity_csr``) are compared
with a tolerance of 1e-12: the numba kernels sum the products of the features
with reassociation and contraction allowed, so their order (SIMD lanes, fused
multiply-adds) is whatever the compiler picks for the host CPU and the feature
width. The core fixes one order, the one numba's loops over the features take on
x86-64 CPUs with AVX2 and FMA (where the two agree bit for bit, but for vectors of
a single feature, whose pairs numba also sums in SIMD lanes), and gives the same
float on every machine and for any number of threads.
"""

from __future__ import annotations

import numpy as np
import pytest

from receval._kernels import api, compiled

core = compiled()
pytestmark = pytest.mark.skipif(core is None, reason="receval._core is not built")

WHOLE = int(np.iinfo(np.int64).max)
DEPTHS = [0, 1, 3, 40, 10**6, WHOLE]


def _same(a, b):
    if isinstance(a, tuple):
        assert isinstance(b, tuple) and len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            _same(x, y)
        return
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape, (a.dtype, b.dtype, a.shape, b.shape)
    if a.dtype.kind == "f":
        assert np.array_equal(a, b, equal_nan=True), (a, b)
    else:
        assert np.array_equal(a, b), (a, b)


def _close(a, b):
    """Equal up to a relative 1e-12 (see the module docstring); nan where nan."""
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def _both(name, *args):
    return getattr(core, name)(*args), api.numba_kernel(name)(*args)


def _lists(seed, n_users=None, n_items=None, max_len=None):
    """CSR lists: some empty, items repeated within and across lists."""
    rng = np.random.default_rng(seed)
    n_users = int(rng.integers(1, 80)) if n_users is None else n_users
    n_items = int(rng.integers(1, 50)) if n_items is None else n_items
    max_len = int(rng.integers(1, 70)) if max_len is None else max_len
    lens = rng.integers(0, max_len + 1, n_users)
    lens[rng.random(n_users) < 0.15] = 0
    items = rng.integers(0, n_items, int(lens.sum())).astype(np.int32)
    offsets = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
    return items, offsets, n_items


def _uniform_lists(seed, n_users, n_items, m):
    rng = np.random.default_rng(seed)
    items = np.concatenate([rng.permutation(n_items)[:m] for _ in range(n_users)])
    offsets = np.arange(n_users + 1, dtype=np.int64) * m
    return items.astype(np.int32), offsets, n_items


# ------------------------------------------------------------------ exposure, pairs, means
@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("k", DEPTHS)
def test_count_and_pair_kernels_are_identical(seed, k):
    items, offsets, n_items = _lists(seed)
    _same(*_both("item_counts_csr", items, offsets, k, n_items))
    _same(*_both("pair_keys_csr", items, offsets, k, n_items))
    _same(*_both("personalization_csr", items, offsets, k, n_items))
    keys, pair_offsets = core.pair_keys_csr(items, offsets, k, n_items)
    rng = np.random.default_rng(seed)
    values = rng.choice([0.0, -0.0, 1.0, 0.1, 1e300, -1e300, 5e-324], len(keys))
    for n_chunks in (1, 3):
        _same(*_both("pair_means_csr", values, pair_offsets, n_chunks))
    info = rng.random(n_items) * 10.0 ** rng.integers(-300, 300, n_items)
    info[rng.random(n_items) < 0.2] = np.nan
    for n_chunks in (1, 3):
        _same(*_both("list_means_csr", info, items, offsets, k, n_chunks))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("m", [1, 2, 7])
def test_personalization_of_uniform_lists_is_identical(seed, m):
    items, offsets, n_items = _uniform_lists(seed, 50, 9, m)
    for k in (m, m + 1, WHOLE, 1):
        _same(*_both("personalization_csr", items, offsets, k, n_items))
    single = (items[:m], offsets[:2], n_items)
    _same(*_both("personalization_csr", *single[:2], WHOLE, n_items))
    none = (np.zeros(0, np.int32), np.zeros(1, np.int64))
    _same(*_both("personalization_csr", *none, WHOLE, 3))
    _same(*_both("item_counts_csr", *none, WHOLE, 3))
    _same(*_both("pair_keys_csr", *none, WHOLE, 3))


@pytest.mark.parametrize("seed", range(10))
def test_gini_is_identical(seed):
    rng = np.random.default_rng(seed)
    for n in (0, 1, 2, 5, 1000):
        counts = np.sort(rng.integers(0, 10 ** int(rng.integers(1, 12)), n))
        counts[: n // 3] = 0
        _same(*_both("gini_sorted", counts))
        _same(*_both("gini_sorted", np.zeros(n, np.int64)))


@pytest.mark.parametrize("seed", range(10))
def test_distinct_users_per_item_is_identical(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 3000))
    n_users, n_items = int(rng.integers(1, 40)), int(rng.integers(1, 60))
    users = rng.integers(0, n_users, n).astype(np.int32)  # pairs repeat
    items = rng.integers(0, n_items, n).astype(np.int32)  # some items unused
    _same(*_both("distinct_users_per_item", users, items, n_users, n_items))


# ------------------------------------------------------------------ intra-list similarity
@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("layout", ["C", "F", "strided"])
def test_ils_of_a_matrix_is_identical(seed, dtype, layout):
    items, offsets, n_items = _lists(seed)
    rng = np.random.default_rng(seed)
    n = n_items + 3
    big = np.round(rng.random((2 * n, 2 * n)) * 8) / 8  # ties
    big[rng.random(big.shape) < 0.05] = 1e300 if dtype == np.float64 else 1e30
    sim = big[:n, :n].astype(dtype)
    if layout == "F":
        sim = np.asfortranarray(sim)
    elif layout == "strided":
        sim = big.astype(dtype)[::2, ::2]
    rows = rng.permutation(n)[:n_items].astype(np.int32)
    for k in (2, 5, WHOLE):
        got = core.intra_list_similarity_matrix_csr(items, offsets, k, rows, sim, 3)
        want = api.numba_kernel("intra_list_similarity_matrix_csr")(items, offsets, k, rows, sim, 1)
        _same(got, want)


def _features(seed, n_rows, d, dtype):
    rng = np.random.default_rng(seed)
    feats = rng.normal(size=(n_rows, d))
    feats[rng.random(n_rows) < 0.1] = 0.0  # zero vectors: cosine 0
    feats *= 10.0 ** rng.integers(-4, 5, (n_rows, 1))
    if dtype == np.float64 and n_rows > 2:
        feats[0] *= 1e160  # squares overflow: inverse norm 0
        feats[1] *= 1e-170  # squares underflow
    return np.ascontiguousarray(feats.astype(dtype))


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("d", [0, 1, 2, 3, 4, 5, 16, 23, 37, 64])
def test_ils_of_features_agrees(seed, dtype, d):
    items, offsets, n_items = _lists(seed, max_len=70)  # lists past PAIRWISE_MAX too
    rng = np.random.default_rng(seed)
    feats = _features(seed, n_items + 2, d, dtype)
    rows = rng.permutation(n_items + 2)[:n_items].astype(np.int32)
    used = rng.random(n_items) < 0.9
    rows[~used & (rng.random(n_items) < 0.5)] = -1  # an unused item without a row
    got, want = _both("inverse_norms", feats, rows, used, 1)
    _close(got, want)
    _same(core.inverse_norms(feats, rows, used, 4), got)
    rows[rows < 0] = 0  # every listed item needs a row
    inv = want
    for k in (1, 2, 7, WHOLE):
        got = core.intra_list_similarity_csr(items, offsets, k, rows, feats, inv, 1)
        want = api.numba_kernel("intra_list_similarity_csr")(items, offsets, k, rows, feats, inv, 1)
        _close(got, want)
        assert np.array_equal(np.isnan(got), np.isnan(want))
        chunked = core.intra_list_similarity_csr(items, offsets, k, rows, feats, inv, 5)
        _same(chunked, got)  # the chunks do not change a bit


@pytest.mark.parametrize("scale", [1e200, 1e-300, 1e-310])
def test_ils_of_extreme_magnitudes_agrees(scale):
    items, offsets, n_items = _lists(3, max_len=70)
    feats = np.random.default_rng(3).normal(size=(n_items, 5)) * scale
    rows = np.arange(n_items, dtype=np.int32)
    used = np.ones(n_items, dtype=bool)
    got, want = _both("inverse_norms", feats, rows, used, 1)
    _close(got, want)
    plain = core.inverse_norms(feats / scale, rows, used, 1)
    for k in (2, WHOLE):
        got = core.intra_list_similarity_csr(items, offsets, k, rows, feats, want, 1)
        twin = api.numba_kernel("intra_list_similarity_csr")(
            items, offsets, k, rows, feats, want, 1
        )
        _close(got, twin)
        unscaled = core.intra_list_similarity_csr(items, offsets, k, rows, feats / scale, plain, 1)
        _close(got, unscaled)


def test_ils_kernels_take_many_users_in_parallel():
    items, offsets, n_items = _uniform_lists(3, 20_000, 40, 5)  # 100k rows
    feats = _features(3, n_items, 8, np.float32)
    rows = np.arange(n_items, dtype=np.int32)
    inv = core.inverse_norms(feats, rows, np.ones(n_items, bool), 8)
    serial = core.intra_list_similarity_csr(items, offsets, 5, rows, feats, inv, 1)
    _same(core.intra_list_similarity_csr(items, offsets, 5, rows, feats, inv, 32), serial)
    want = api.numba_kernel("intra_list_similarity_csr")(items, offsets, 5, rows, feats, inv, 8)
    _close(serial, want)


# ------------------------------------------------------------------ bad inputs
def test_bad_inputs_raise_value_errors():
    items = np.array([0, 1, 2], np.int32)
    offsets = np.array([0, 2, 3], np.int64)
    with pytest.raises(ValueError, match=r"item codes must lie in \[0, 2\)"):
        core.item_counts_csr(items, offsets, WHOLE, 2)
    with pytest.raises(ValueError, match="offsets must be non-decreasing"):
        core.item_counts_csr(items, np.array([0, 3, 2], np.int64), WHOLE, 3)
    with pytest.raises(ValueError, match="offsets must be non-decreasing"):
        core.pair_keys_csr(items, np.array([0, 4], np.int64), WHOLE, 3)
    with pytest.raises(ValueError, match="k must be at least 0"):
        core.personalization_csr(items, offsets, -1, 3)
    with pytest.raises(ValueError, match="pair_offsets"):
        core.pair_means_csr(np.zeros(2), np.array([0, 3], np.int64), 1)
    with pytest.raises(ValueError, match=r"user_codes must lie in \[0, 2\)"):
        core.distinct_users_per_item(items, items, 2, 3)
    feats = np.ones((3, 2))
    rows = np.array([0, -1, 2], np.int32)
    inv = np.ones(3)
    with pytest.raises(ValueError, match="every listed item needs a row"):
        core.intra_list_similarity_csr(items, offsets, WHOLE, rows, feats, inv, 1)
    with pytest.raises(ValueError, match="features must be a C-contiguous"):
        core.intra_list_similarity_csr(
            items, offsets, WHOLE, np.arange(3, dtype=np.int32), feats.T, inv, 1
        )
    with pytest.raises(ValueError, match="float32 or float64"):
        core.inverse_norms(np.ones((3, 2), np.int64), rows, np.ones(3, bool), 1)
    with pytest.raises(ValueError, match="rows must lie below 3"):
        core.inverse_norms(feats, np.array([0, 1, 3], np.int32), np.ones(3, bool), 1)
    with pytest.raises(ValueError, match="matrix must be square"):
        core.intra_list_similarity_matrix_csr(
            items, offsets, WHOLE, np.arange(3, dtype=np.int32), np.ones((3, 4)), 1
        )

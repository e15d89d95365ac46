"""The beyond-accuracy kernels of the compiled core (``receval._core``): their
results do not depend on the number of chunks (threads), and they refuse bad
inputs. Their values are checked through the public functions against the slow
oracles of ``tests/oracles/beyond.py`` (``tests/metrics/beyond/test_beyond.py``: ILS of
features and of a similarity matrix, personalization, coverage, Gini, novelty).
"""

from __future__ import annotations

import numpy as np
import pytest

from receval._kernels import compiled

core = compiled()

WHOLE = int(np.iinfo(np.int64).max)


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


# ------------------------------------------------------------------ chunks
@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("k", [0, 1, 3, 40, WHOLE])
def test_mean_kernels_do_not_depend_on_the_chunks(seed, k):
    items, offsets, n_items = _lists(seed)
    keys, pair_offsets = core.pair_keys_csr(items, offsets, k, n_items)
    rng = np.random.default_rng(seed)
    values = rng.choice([0.0, -0.0, 1.0, 0.1, 1e300, -1e300, 5e-324], len(keys))
    _same(*(core.pair_means_csr(values, pair_offsets, c) for c in (1, 3)))
    info = rng.random(n_items) * 10.0 ** rng.integers(-300, 300, n_items)
    info[rng.random(n_items) < 0.2] = np.nan
    _same(*(core.list_means_csr(info, items, offsets, k, c) for c in (1, 3)))


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
@pytest.mark.parametrize("d", [0, 1, 2, 3, 5, 16, 37])
def test_ils_of_features_does_not_depend_on_the_chunks(seed, dtype, d):
    items, offsets, n_items = _lists(seed, max_len=70)  # lists past PAIRWISE_MAX too
    rng = np.random.default_rng(seed)
    feats = _features(seed, n_items + 2, d, dtype)
    rows = rng.permutation(n_items + 2)[:n_items].astype(np.int32)
    used = np.ones(n_items, dtype=bool)
    inv = core.inverse_norms(feats, rows, used, 1)
    _same(core.inverse_norms(feats, rows, used, 4), inv)
    for k in (1, 2, 7, WHOLE):
        serial = core.intra_list_similarity_csr(items, offsets, k, rows, feats, inv, 1)
        _same(core.intra_list_similarity_csr(items, offsets, k, rows, feats, inv, 5), serial)


def test_ils_kernels_take_many_users_in_parallel():
    items, offsets, n_items = _uniform_lists(3, 20_000, 40, 5)  # 100k rows
    feats = _features(3, n_items, 8, np.float32)
    rows = np.arange(n_items, dtype=np.int32)
    inv = core.inverse_norms(feats, rows, np.ones(n_items, bool), 8)
    serial = core.intra_list_similarity_csr(items, offsets, 5, rows, feats, inv, 1)
    _same(core.intra_list_similarity_csr(items, offsets, 5, rows, feats, inv, 32), serial)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("d", [0, 1, 3, 5, 16, 37])
def test_history_cosines_do_not_depend_on_the_chunks(seed, d):
    rng = np.random.default_rng(seed)
    groups_of, offsets, n_rows = _lists(seed, max_len=40)  # histories, some empty
    feats = _features(seed, n_rows, d, np.float64)
    # rows scaled by the power of two at or above their largest value, as the caller does
    feats = np.ldexp(feats, -np.frexp(np.abs(feats).max(axis=1, initial=0.0))[1][:, None])
    feats[rng.random(n_rows) < 0.3] = feats[-1]  # equal vectors: cosine exactly 1
    n_groups = len(offsets) - 1
    left = rng.integers(0, n_rows, 300).astype(np.int32)
    groups = rng.integers(0, n_groups, 300).astype(np.int32)
    serial = core.history_cosine_means(feats, left, groups, offsets, groups_of, 1)
    _same(core.history_cosine_means(feats, left, groups, offsets, groups_of, 7), serial)
    empty = np.diff(offsets)[groups] == 0
    assert np.isnan(serial[empty]).all() and not np.isnan(serial[~empty]).any()


def test_history_cosines_of_equal_vectors_are_exactly_one():
    feats = np.array([[0.1, 0.7, 0.3], [0.1, 0.7, 0.3], [0.0, 0.0, 0.0], [0.3, 0.7, 0.1]])
    offsets = np.array([0, 2, 3, 4], np.int64)
    held = np.array([0, 1, 2, 3], np.int32)
    got = core.history_cosine_means(
        feats, np.array([0, 1, 2, 3, 0], np.int32), np.array([0, 0, 1, 2, 2], np.int32),
        offsets, held, 1,
    )  # fmt: skip
    assert got[:3].tolist() == [1.0, 1.0, 0.0]  # a zero vector: cosine 0
    assert got[3] == 1.0 and got[4] < 1.0


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
    history = (np.array([0, 1], np.int64), np.array([0], np.int32))
    with pytest.raises(ValueError, match=r"left and rows must lie in \[0, 3\)"):
        core.history_cosine_means(feats, np.array([3], np.int32), rows[:1], *history, 1)
    with pytest.raises(ValueError, match=r"groups must lie in \[0, 1\)"):
        core.history_cosine_means(feats, rows[:1], np.array([1], np.int32), *history, 1)
    with pytest.raises(ValueError, match="offsets must be non-decreasing"):
        core.history_cosine_means(
            feats, rows[:1], rows[:1], np.array([0, 2], np.int64), history[1], 1
        )
    with pytest.raises(ValueError, match="groups has 1 elements but left has 2"):
        core.history_cosine_means(feats, rows[:2], rows[:1], *history, 1)
    with pytest.raises(TypeError):  # float64 only
        core.history_cosine_means(feats.astype(np.float32), rows[:1], rows[:1], *history, 1)
    with pytest.raises(ValueError, match="matrix must be square"):
        core.intra_list_similarity_matrix_csr(
            items, offsets, WHOLE, np.arange(3, dtype=np.int32), np.ones((3, 4)), 1
        )

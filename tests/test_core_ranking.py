"""Differential suite of the ranking kernels: the compiled core (``receval._core``)
against their numba twins on the same inputs, the top-K metric kernels (every
metric kind and convention, ties in double and single precision, empty lists,
users absent from the run, k beyond the lists) and the kernels that build the
Qrels and Run containers. Integers and floats are compared bit for bit (NaN where
NaN): the core performs the same floating-point operations in the same order.
"""

from __future__ import annotations

import numba
import numpy as np
import pytest

from receval._kernels import _topk_codes as codes
from receval._kernels import api, compiled

core = compiled()
pytestmark = pytest.mark.skipif(core is None, reason="receval._core is not built")


def _same(a, b):
    if isinstance(a, tuple):
        assert isinstance(b, tuple) and len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            _same(x, y)
        return
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape, (a.dtype, b.dtype, a.shape, b.shape)
    if a.dtype.kind == "f":
        same_bits = np.array_equal(a.view(np.int64), b.view(np.int64))
        assert same_bits or np.array_equal(a, b, equal_nan=True), (a, b)
    else:
        assert np.array_equal(a, b), (a, b)


# ------------------------------------------------------------------ top-K metrics
def _scores(rng, n):
    """Descending scores with ties, ties in float32 only, and non-positive scores."""
    style = rng.integers(0, 4)
    if style == 0:
        s = rng.random(n)
    elif style == 1:
        s = rng.choice(np.linspace(-1.0, 1.0, 1 + int(rng.integers(1, 6))), n)
    elif style == 2:  # neighbours equal after rounding to float32
        s = 1.0 + rng.integers(0, 4, n) * 1e-12 + rng.integers(0, 3, n)
    else:
        s = rng.choice([0.0, -0.0, 0.5, 0.5, -2.0], n)
    return -np.sort(-s, kind="stable")


def _case(seed, n_q_users=None, max_judged=40, max_list=50, n_r_users=None):
    rng = np.random.default_rng(seed)
    n_q = int(rng.integers(0, 25)) if n_q_users is None else n_q_users
    n_r = int(rng.integers(0, 25)) if n_r_users is None else n_r_users
    n_q_items = int(rng.integers(1, 80))
    n_r_items = int(rng.integers(1, 80))
    q_len = rng.integers(0, min(max_judged, n_q_items) + 1, n_q)
    q_offsets = np.zeros(n_q + 1, dtype=np.int64)
    np.cumsum(q_len, out=q_offsets[1:])
    q_items = np.concatenate(
        [np.sort(rng.permutation(n_q_items)[:m]) for m in q_len] + [np.empty(0, np.int64)]
    ).astype(np.int32)
    q_grades = rng.choice([-1.0, 0.0, 1.0, 1.0, 2.0, 3.0], len(q_items))
    q_desc = q_grades.copy()
    for u in range(n_q):
        a, b = q_offsets[u], q_offsets[u + 1]
        q_desc[a:b] = -np.sort(-q_grades[a:b])
    r_len = rng.integers(0, min(max_list, n_r_items) + 1, n_r)
    r_offsets = np.zeros(n_r + 1, dtype=np.int64)
    np.cumsum(r_len, out=r_offsets[1:])
    r_items = np.concatenate(
        [rng.permutation(n_r_items)[:m] for m in r_len] + [np.empty(0, np.int64)]
    ).astype(np.int32)
    r_scores = np.concatenate([_scores(rng, m) for m in r_len] + [np.empty(0)])
    r_keys = rng.permutation(n_r_items).astype(np.float64) if rng.random() < 0.8 else np.empty(0)
    item_map = np.full(n_q_items, -1, dtype=np.int32)
    shared = int(rng.integers(0, min(n_q_items, n_r_items) + 1))
    item_map[rng.permutation(n_q_items)[:shared]] = rng.permutation(n_r_items)[:shared]
    user_map = np.where(rng.random(n_q) < 0.85, rng.integers(0, max(n_r, 1), n_q), -1).astype(
        np.int32
    )
    if n_r == 0:
        user_map[:] = -1
    n_metrics = int(rng.integers(1, 12))
    specs = np.zeros((n_metrics, codes.N_SPEC_COLUMNS), dtype=np.int64)
    specs[:, codes.S_KIND] = rng.integers(0, 13, n_metrics)  # 12: no such kind
    specs[:, codes.S_K] = rng.choice([0, 1, 2, 3, 5, 10, 100], n_metrics)
    specs[:, codes.S_THRESHOLD] = rng.choice([0, 1, 1, 2], n_metrics)
    specs[:, codes.S_GAIN] = rng.integers(0, 3, n_metrics)
    specs[:, codes.S_AP_NORM] = rng.integers(0, 3, n_metrics)
    specs[:, codes.S_IDEAL] = rng.integers(0, 2, n_metrics)
    specs[:, codes.S_TIES] = rng.integers(0, 4, n_metrics)
    specs[:, codes.S_MISSING_SKIP] = rng.integers(0, 2, n_metrics)
    specs[:, codes.S_EMPTY] = rng.integers(0, 3, n_metrics)
    specs[:, codes.S_GAIN_THRESHOLD] = rng.choice([0, 1, 1, 2], n_metrics)
    specs[:, codes.S_POSITIVE_SCORES] = rng.integers(0, 2, n_metrics)
    max_len = max(int(r_len.max()) if n_r else 0, 1)
    depth = max(max_len, int(q_len.max()) if n_q else 0)
    disc = 1.0 / np.log2(np.arange(depth, dtype=np.float64) + 2.0)
    args = (
        q_offsets, q_items, q_grades, q_desc, r_offsets, r_items, r_scores, r_keys,
        item_map, user_map, specs, max_len,
    )  # fmt: skip
    return args, disc, n_r_items


def _numba_evaluate(args, n_chunks, disc, n_r_items):
    slots = np.full((numba.config.NUMBA_NUM_THREADS, n_r_items), -1, dtype=np.int32)
    return api.numba_kernel("evaluate_users")(*args, n_chunks, disc, slots)


@pytest.mark.parametrize("seed", range(150))
def test_evaluate_users(seed):
    args, disc, n_r_items = _case(seed)
    n_chunks = 1 + seed % 7
    got = core.evaluate_users(*args, n_chunks, disc)
    _same(got, _numba_evaluate(args, n_chunks, disc, n_r_items))
    _same(got, core.evaluate_users(*args, 1, disc))  # any split of the users


def test_evaluate_users_in_parallel():
    # above the serial cut-off (64Ki rows): chunks on the pool, same values
    args, disc, n_r_items = _case(7, n_q_users=4000, max_judged=20, max_list=40, n_r_users=3000)
    assert len(args[1]) + len(args[5]) >= 1 << 16
    got = core.evaluate_users(*args, 16, disc)
    _same(got, _numba_evaluate(args, 16, disc, n_r_items))
    _same(got, core.evaluate_users(*args, 3, disc))


def test_evaluate_users_without_users():
    args, disc, n_r_items = _case(3, n_q_users=0)
    got = core.evaluate_users(*args, 4, disc)
    assert got[0].shape == (0, args[10].shape[0])
    _same(got, _numba_evaluate(args, 4, disc, n_r_items))


def test_evaluate_users_rejects_bad_inputs():
    args, disc, _ = _case(11, n_q_users=5)
    bad_map = args[9].copy()
    bad_map[0] = 10**6
    with pytest.raises(ValueError, match="user_map"):
        core.evaluate_users(*args[:9], bad_map, *args[10:], 4, disc)
    with pytest.raises(ValueError, match="disc"):
        core.evaluate_users(*args, 4, disc[:0])
    with pytest.raises(ValueError, match="q_offsets"):
        core.evaluate_users(args[0][:-1], *args[1:], 4, disc)


def _user_inputs(rng):
    n = int(rng.integers(0, 40))
    scores = _scores(rng, n + 3)
    a = int(rng.integers(0, 4))
    n = min(n, len(scores) - a)
    grades = np.where(rng.random(n) < 0.4, -np.inf, rng.choice([-1.0, 0.0, 1.0, 2.0, 3.0], n))
    judged = rng.choice([-1.0, 0.0, 1.0, 2.0, 3.0], int(rng.integers(0, 30)))
    q_desc = np.concatenate([rng.random(2), -np.sort(-judged), rng.random(2)])
    qa, qb = 2, 2 + len(judged)
    disc = 1.0 / np.log2(np.arange(max(n, qb - qa, 1), dtype=np.float64) + 2.0)
    return grades, scores, a, n, q_desc, qa, qb, disc


@pytest.mark.parametrize("seed", range(200))
def test_user_metric_and_metric_from_hits(seed):
    rng = np.random.default_rng(1000 + seed)
    grades, scores, a, n, q_desc, qa, qb, disc = _user_inputs(rng)
    kind = int(rng.integers(0, 13))
    k = int(rng.choice([0, 1, 3, 10, 100]))
    threshold, gain_threshold = float(rng.choice([0, 1, 2])), float(rng.choice([0, 1, 2]))
    gain, ap_norm, ideal = int(rng.integers(0, 3)), int(rng.integers(0, 3)), int(rng.integers(0, 2))
    ties = int(rng.integers(0, 4))
    outs = []
    for kernel in (core.user_metric, api.numba_kernel("user_metric")):
        rel, gains, cand = np.full(n + 2, 7.0), np.full(n + 2, 7.0), np.full(n + 2, 7.0)
        value = kernel(
            kind, k, threshold, gain_threshold, gain, ap_norm, ideal, ties, grades, scores,
            a, n, q_desc, qa, qb, rel, gains, cand, disc,
        )  # fmt: skip
        outs.append((np.float64(value[0]), np.float64(value[1]), rel, gains, cand))
    _same(*outs)

    hpos = np.flatnonzero(grades >= threshold).astype(np.int64)
    hgr = grades[hpos]
    n_rel = int((q_desc[qa:qb] >= threshold).sum())
    outs = []
    for kernel in (core.metric_from_hits, api.numba_kernel("metric_from_hits")):
        cand = np.full(n + 2, 7.0)
        value = kernel(
            kind, k, threshold, gain, ap_norm, ideal, grades, n, hpos, hgr, len(hpos), n_rel,
            q_desc, qa, qb, cand, disc,
        )  # fmt: skip
        outs.append((np.float64(value), cand))
    _same(*outs)

    k_eff = int(rng.integers(0, n + 3))
    outs = []
    for kernel in (core.idcg, api.numba_kernel("idcg")):
        cand = np.full(n + 2, 7.0)
        value = kernel(ideal, k, k_eff, threshold, gain, grades, n, q_desc, qa, qb, cand, disc)
        outs.append((np.float64(value), cand))
    _same(*outs)


@pytest.mark.parametrize("seed", range(60))
def test_trec_order(seed):
    rng = np.random.default_rng(2000 + seed)
    n_items = int(rng.integers(1, 60))
    n = int(rng.integers(0, n_items + 1))
    a = int(rng.integers(0, 3))
    scores = np.concatenate([rng.random(a), _scores(rng, n)])
    items = np.concatenate([np.zeros(a, np.int64), rng.permutation(n_items)[:n]]).astype(np.int32)
    keys = rng.permutation(n_items).astype(np.float64)
    if seed % 3 == 0:
        keys = np.floor(keys / 3)  # equal keys: input order
    for ascending in (False, True):
        _same(
            core.trec_order(scores, items, keys, a, n, ascending),
            api.numba_kernel("trec_order")(scores, items, keys, a, n, ascending),
        )


@pytest.mark.parametrize("m", range(0, 9))
def test_expected_first_hit(m):
    for h in range(0, m + 1):
        for t in range(0, m + 1):
            _same(core.expected_first_hit(m, h, t), api.numba_kernel("expected_first_hit")(m, h, t))


@pytest.mark.parametrize("seed", range(20))
def test_lookup(seed):
    rng = np.random.default_rng(seed)
    items = np.sort(rng.choice(200, int(rng.integers(0, 80)), replace=False)).astype(np.int32)
    for _ in range(20):
        a = int(rng.integers(0, len(items) + 1))
        b = int(rng.integers(a, len(items) + 1))
        item = int(rng.integers(-1, 201))
        assert core.lookup(items, a, b, item) == api.numba_kernel("lookup")(items, a, b, item)

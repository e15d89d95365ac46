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


# ------------------------------------------------------------------ containers
def _csr(rng, n_seg=None, max_len=60, n_items=None, dup_rate=0.0):
    """Random segments (some longer than 32 rows), rows grouped or not, item codes
    (a repeat inside a segment with probability ``dup_rate``) and keys with ties,
    signed zeros and neighbours that differ only in their lowest bits."""
    n_seg = int(rng.integers(0, 30)) if n_seg is None else n_seg
    n_items = int(rng.integers(1, 120)) if n_items is None else n_items
    lengths = rng.integers(0, min(max_len, n_items) + 1, n_seg)
    offsets = np.zeros(n_seg + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    n = int(offsets[-1])
    items = np.concatenate(
        [rng.permutation(n_items)[:m] for m in lengths] + [np.empty(0, np.int64)]
    ).astype(np.int32)
    for g in range(n_seg):
        if lengths[g] > 1 and rng.random() < dup_rate:
            a = offsets[g]
            items[a + 1 + rng.integers(0, lengths[g] - 1)] = items[a]
    style = rng.integers(0, 4)
    if style == 0:
        keys = rng.random(n)
    elif style == 1:
        keys = rng.choice([0.0, -0.0, 0.25, 0.5, -1.0, 3.0], n)
    elif style == 2:  # equal in the top bits: the packed sorts must fall back
        keys = 1.0 + rng.integers(0, 4, n) * np.finfo(float).eps
    else:
        keys = np.where(rng.random(n) < 0.5, 1e300, 5e-324) * rng.choice([-1.0, 1.0], n)
    if rng.random() < 0.5:
        rows = np.empty(0, dtype=np.int64)
    else:  # rows map positions to a shuffled input
        perm = rng.permutation(n)
        items_in = np.empty_like(items)
        keys_in = np.empty_like(keys)
        items_in[perm] = items
        keys_in[perm] = keys
        items, keys, rows = items_in, keys_in, perm.astype(np.int64)
    return offsets, rows, items, keys, n_items


def _max_len(offsets):
    return int(np.diff(offsets).max()) if len(offsets) > 1 else 0


@pytest.mark.parametrize("seed", range(80))
def test_judged_segments(seed):
    rng = np.random.default_rng(3000 + seed)
    offsets, rows, items, _, _ = _csr(rng, dup_rate=0.1)
    # integer grades, both zeros: the quicksort of the long segments places them alike
    grades = rng.choice([0.0, -0.0, 1.0, 2.0, -1.0], len(items))
    n_chunks = 1 + seed % 5
    _same(*_both_ranked("judged_segments", offsets, rows, items, grades, n_chunks))


def _both_ranked(name, *args):
    """Core and numba on copies of the same arguments (kernels may write them)."""
    copies = [tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args) for _ in "ab"]
    out_core = getattr(core, name)(*copies[0])
    out_numba = api.numba_kernel(name)(*copies[1])
    return (out_core, copies[0]), (out_numba, copies[1])


def _normalized(out):
    """Python ints and numpy ints alike; tuples of results stay tuples."""
    if isinstance(out, tuple):
        return tuple(_normalized(x) for x in out)
    if isinstance(out, (bool, np.bool_)):
        return np.bool_(out)
    if isinstance(out, (int, np.integer)):
        return np.int64(out)
    return out


def _same_ranked(pair):
    (a, args_a), (b, args_b) = pair
    _same(_normalized(a), _normalized(b))
    _same(args_a, args_b)


@pytest.mark.parametrize("seed", range(40))
def test_ties_and_grouping(seed):
    rng = np.random.default_rng(4000 + seed)
    offsets, _, _, keys, _ = _csr(rng)
    for single in (False, True):
        _same_ranked(_both_ranked("tie_segments", keys, offsets, single))
    n_groups = int(rng.integers(1, 40))
    codes = rng.integers(0, n_groups, int(rng.integers(0, 200))).astype(np.int32)
    grouped = np.sort(codes)
    for c in (codes, grouped):
        _same_ranked(_both_ranked("is_grouped", c))
        _same_ranked(_both_ranked("group_rows", c, n_groups))
    _same_ranked(_both_ranked("offsets_of_sorted", grouped, n_groups))


@pytest.mark.parametrize("seed", range(60))
def test_descending_sorts(seed):
    rng = np.random.default_rng(5000 + seed)
    _, _, _, keys, _ = _csr(rng, n_seg=1, max_len=300, n_items=400)
    n = len(keys)
    pos = np.arange(n, dtype=np.int64)
    extra = int(rng.integers(0, 3))
    pad = np.zeros(extra)
    buf_k, buf_p = np.concatenate([keys, pad]), np.concatenate([pos, pad.astype(np.int64)])
    _same_ranked(
        _both_ranked("stable_sort_desc", buf_k, buf_p, np.zeros(n + extra),
                     np.zeros(n + extra, np.int64), n)
    )  # fmt: skip
    _same_ranked(_both_ranked("packed_sort_desc", buf_k, buf_p, np.zeros(n + extra, np.uint64), n))


@pytest.mark.parametrize("seed", range(80))
def test_build_ranked_and_rank_rows(seed):
    rng = np.random.default_rng(6000 + seed)
    offsets, rows, items, keys, n_items = _csr(rng, dup_rate=0.05)
    max_len = _max_len(offsets)
    n_chunks = 1 + seed % 6
    pair = _both_ranked("build_ranked", rows, offsets, items, keys, n_items, max_len, n_chunks)
    _same_ranked(pair)
    _same_ranked(_both_ranked("first_duplicate_segment", offsets, rows, items, n_items, n_chunks))
    want_items, want_keys, want_dup = pair[1][0]
    for own_items in (False, True):
        for own_keys in (False, True):
            i2, k2 = items.copy(), keys.copy()
            got = core.rank_rows(offsets, rows, i2, k2, n_items, own_items, own_keys, n_chunks)
            _same(got[:2], (want_items, want_keys))
            assert got[2] == want_dup
            # arrays the caller owns are written over (in place when rows are grouped)
            assert (got[0] is i2) == own_items
            assert (got[1] is k2) == own_keys


def test_rank_rows_in_parallel():
    # above the serial cut-off: chunks on the pool, the same lists and duplicate
    rng = np.random.default_rng(9)
    offsets, rows, items, keys, n_items = _csr(rng, n_seg=3000, max_len=50, n_items=60)
    at = (lambda t: rows[t]) if len(rows) else (lambda t: t)
    items[at(offsets[2000] + 1)] = items[at(offsets[2000])]  # a repeat in a later list
    assert offsets[-1] >= 1 << 16
    want = api.numba_kernel("build_ranked")(rows, offsets, items, keys, n_items, 50, 8)
    for n_chunks in (1, 8, 64):
        got = core.rank_rows(
            offsets, rows, items.copy(), keys.copy(), n_items, True, True, n_chunks
        )
        _same(got[:2], want[:2])
        assert got[2] == want[2] >= 0
        assert core.first_duplicate_segment(offsets, rows, items, n_items, n_chunks) == want[2]


def _bits(offsets):
    n_seg = len(offsets) - 1
    seg_bits = max(1, int(n_seg - 1).bit_length())
    pos_bits = max(1, int(_max_len(offsets) - 1).bit_length())
    return seg_bits, pos_bits


@pytest.mark.parametrize("seed", range(60))
def test_packed_keys(seed):
    rng = np.random.default_rng(7000 + seed)
    offsets, rows, items, keys, n_items = _csr(rng, dup_rate=0.05)
    seg_bits, pos_bits = _bits(offsets)
    n_chunks = 1 + seed % 4
    pair = _both_ranked("pack_keys", offsets, rows, keys.view(np.uint64), seg_bits, pos_bits,
                        n_chunks)  # fmt: skip
    _same_ranked(pair)
    packed = np.sort(pair[0][0])
    _same_ranked(
        _both_ranked("unpack_ranked", packed, offsets, rows, items, keys, pos_bits, n_chunks)
    )
    if len(rows) == 0:
        max_len = _max_len(offsets)
        _same_ranked(
            _both_ranked("unpack_grouped", packed, offsets, items, keys, pos_bits, n_items,
                         max_len, n_chunks)
        )  # fmt: skip
    segments = np.flatnonzero(rng.random(len(offsets) - 1) < 0.5)
    n = int(offsets[-1])
    _same_ranked(
        _both_ranked("redo_segments", segments, offsets, rows, items, keys,
                     np.zeros(n, np.int32), np.zeros(n), _max_len(offsets))
    )  # fmt: skip


def _block_call(kernel, offsets, rows, items, keys, g0, g1, seg_bits, pos_bits, in_place):
    n = int(offsets[-1])
    max_len = max(_max_len(offsets), 1)
    buf = np.zeros(n + 3, dtype=np.uint64)
    pack = kernel("pack_block")
    m = pack(offsets, rows, keys.view(np.uint64), g0, g1, seg_bits, pos_bits, buf)
    width = int(offsets[g0 + 1] - offsets[g0]) if g1 > g0 else 0
    lengths = np.diff(offsets[g0 : g1 + 1])
    if seg_bits == 0 and width > 0 and (lengths == width).all():
        buf[:m].reshape(g1 - g0, width).sort(axis=1)
    else:
        buf[:m].sort()
    items, keys = items.copy(), keys.copy()
    out_items = items if in_place else np.zeros(n, np.int32)
    out_keys = keys if in_place else np.zeros(n)
    bad = np.zeros(len(offsets) - 1, dtype=np.bool_)
    stamp = np.full(int(items.max()) + 1 if n else 1, -1, dtype=np.int64)
    seg_items, seg_keys = np.zeros(max_len, np.int32), np.zeros(max_len)
    dup = kernel("unpack_block")(
        buf[:m], offsets, rows, items, keys, g0, g1, pos_bits, out_items, out_keys, bad, stamp,
        seg_items, seg_keys,
    )  # fmt: skip
    return np.int64(m), buf, np.int64(dup), out_items, out_keys, bad, stamp, seg_items, seg_keys


@pytest.mark.parametrize("seed", range(60))
def test_packed_blocks(seed):
    rng = np.random.default_rng(8000 + seed)
    uniform = seed % 3 == 0
    offsets, rows, items, keys, _ = _csr(rng, dup_rate=0.05)
    if uniform and len(offsets) > 1:  # lists of one length, sorted row by row
        width = int(rng.integers(1, 20))
        offsets = np.arange(len(offsets), dtype=np.int64) * width
        items = np.concatenate(
            [rng.permutation(50)[:width] for _ in range(len(offsets) - 1)] + [np.empty(0)]
        ).astype(np.int32)
        keys = rng.choice([0.5, 0.25, -0.0, 0.0], len(items))
        rows = np.empty(0, np.int64)
    n_seg = len(offsets) - 1
    g0 = int(rng.integers(0, n_seg + 1))
    g1 = int(rng.integers(g0, n_seg + 1))
    _, pos_bits = _bits(offsets)
    seg_bits = 0 if uniform else max(1, int(max(g1 - g0, 1) - 1).bit_length())
    for in_place in (False, True) if len(rows) == 0 else (False,):
        args = (offsets, rows, items, keys, g0, g1, seg_bits, pos_bits, in_place)
        got = _block_call(lambda name: getattr(core, name), *args)
        want = _block_call(api.numba_kernel, *args)
        _same(got, want)


def test_container_kernels_reject_bad_inputs():
    offsets = np.array([0, 2, 3], dtype=np.int64)
    rows = np.empty(0, dtype=np.int64)
    items = np.array([0, 1, 5], dtype=np.int32)
    keys = np.array([0.5, 0.1, 0.2])
    with pytest.raises(ValueError, match="items must lie"):
        core.build_ranked(rows, offsets, items, keys, 3, 2, 1)
    with pytest.raises(ValueError, match="offsets"):
        core.build_ranked(rows, offsets[::-1].copy(), items, keys, 8, 2, 1)
    with pytest.raises(ValueError, match="rows"):
        core.build_ranked(np.array([0, 1, 9]), offsets, items, keys, 8, 2, 1)
    with pytest.raises(ValueError, match="codes"):
        core.group_rows(np.array([0, 3], dtype=np.int32), 2)


@pytest.mark.parametrize("seed", range(60))
def test_tie_averaged_average_precision_in_both_kernels(seed):
    # AP over tie orders (hits-normalised and cut inside a tie: the hypergeometric path)
    rng = np.random.default_rng(7000 + seed)
    grades, scores, a, n, q_desc, qa, qb, disc = _user_inputs(rng)
    scores[a : a + n] = -np.sort(-rng.choice([0.1, 0.5, 0.9], n))  # ranked, many ties
    k = int(rng.choice([0, 1, 2, 3, 5]))
    outs = []
    for kernel in (core.user_metric, api.numba_kernel("user_metric")):
        rel, gains, cand = np.full(n + 2, 7.0), np.full(n + 2, 7.0), np.full(n + 2, 7.0)
        value = kernel(
            codes.AP, k, 1.0, 1.0, 0, int(seed % 3), 0, codes.TIES_AVERAGE, grades, scores,
            a, n, q_desc, qa, qb, rel, gains, cand, disc,
        )  # fmt: skip
        outs.append((np.float64(value[0]), np.float64(value[1]), rel, gains, cand))
    _same(*outs)


@pytest.mark.parametrize(
    ("column", "value"),
    [
        (codes.S_DISCOUNT, codes.DISCOUNT_CLIPPED),
        (codes.S_PRECISION_NORM, codes.PRECISION_RETRIEVED),
        (codes.S_RECALL_NORM, codes.RECALL_MIN_K),
        (codes.S_AP_NORM, codes.AP_MIN_RETRIEVED),
    ],
)
def test_numba_twin_refuses_the_lenskit_conventions(column, value):
    """The LensKit normalisers and discount are the compiled core's only: the numba twin
    says so rather than answer with the default convention."""
    args, disc, n_r_items = _case(5, n_q_users=5)
    args[10][:, column] = value
    with pytest.raises(NotImplementedError, match="a LensKit normaliser or discount"):
        _numba_evaluate(args, 1, disc, n_r_items)

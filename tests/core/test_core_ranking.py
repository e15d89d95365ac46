"""The ranking kernels of the compiled core (``receval._core``): the top-K metric
kernel gives the same values for any split of the users (its values are checked
through ``evaluate`` against the slow oracles of ``tests/oracles/ranking.py`` and
``tests/oracles/trec_measures.py`` and against the peers), and the kernels that
build the Qrels and Run containers equal slow NumPy oracles: per-segment stable
sorts, counting sorts and neighbour comparisons, on lists with ties in double and
single precision, zeros of both signs, repeated items and shuffled input rows.
"""

from __future__ import annotations

import numpy as np
import pytest

from receval._kernels import codes as core_codes
from receval._kernels import compiled

core = compiled()
codes = core_codes()


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
    kind = rng.integers(0, 13, n_metrics)  # 12: no such kind
    k = rng.choice([0, 1, 2, 3, 5, 10, 100], n_metrics)
    threshold = rng.choice([0, 1, 1, 2], n_metrics)
    gain = rng.integers(0, 3, n_metrics)
    ap_norm = rng.integers(0, 3, n_metrics)
    ideal = rng.integers(0, 2, n_metrics)
    ties = rng.integers(0, 4, n_metrics)
    missing = rng.integers(0, 2, n_metrics)
    empty = rng.integers(0, 3, n_metrics)
    gain_threshold = rng.choice([0, 1, 1, 2], n_metrics)
    positive = rng.integers(0, 2, n_metrics)
    specs = [
        core.RankingSpec(
            int(kind[m]),
            k=int(k[m]),
            threshold=float(threshold[m]),
            gain_threshold=float(gain_threshold[m]),
            gain=("linear", "exponential", "binary")[gain[m]],
            ap_normalizer=("relevant", "min_k", "hits")[ap_norm[m]],
            ideal=("judged", "candidates")[ideal[m]],
            ties=("trec", "average", "input", "id_ascending")[ties[m]],
            missing_users=("zero", "skip")[missing[m]],
            empty_users=("zero", "skip", "one")[empty[m]],
            positive_scores=bool(positive[m]),
        )
        for m in range(n_metrics)
    ]
    max_len = max(int(r_len.max()) if n_r else 0, 1)
    depth = max(max_len, int(q_len.max()) if n_q else 0)
    disc = 1.0 / np.log2(np.arange(depth, dtype=np.float64) + 2.0)
    args = (
        q_offsets, q_items, q_grades, q_desc, r_offsets, r_items, r_scores, r_keys,
        item_map, user_map, specs, max_len,
    )  # fmt: skip
    return args, disc, n_r_items


@pytest.mark.parametrize("seed", range(150))
def test_evaluate_users_does_not_depend_on_the_split(seed):
    args, disc, _ = _case(seed)
    got = core.evaluate_users(*args, 1 + seed % 7, disc)
    _same(got, core.evaluate_users(*args, 1, disc))  # any split of the users


def test_evaluate_users_in_parallel():
    # above the serial cut-off (64Ki rows): chunks on the pool, same values
    args, disc, _ = _case(7, n_q_users=4000, max_judged=20, max_list=40, n_r_users=3000)
    assert len(args[1]) + len(args[5]) >= 1 << 16
    got = core.evaluate_users(*args, 16, disc)
    _same(got, core.evaluate_users(*args, 3, disc))
    _same(got, core.evaluate_users(*args, 1, disc))


def test_evaluate_users_without_users():
    args, disc, _ = _case(3, n_q_users=0)
    got = core.evaluate_users(*args, 4, disc)
    assert got[0].shape == (0, len(args[10]))


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


def _positions(offsets, rows, g):
    """Input rows of segment g."""
    a, b = int(offsets[g]), int(offsets[g + 1])
    return rows[a:b] if len(rows) else np.arange(a, b)


def _first_duplicate(offsets, rows, items):
    for g in range(len(offsets) - 1):
        seg = items[_positions(offsets, rows, g)]
        if len(np.unique(seg)) < len(seg):
            return g
    return -1


@pytest.mark.parametrize("seed", range(80))
def test_judged_segments_equal_stable_sorts(seed):
    rng = np.random.default_rng(3000 + seed)
    offsets, rows, items, _, _ = _csr(rng, dup_rate=0.1)
    grades = rng.choice([0.0, -0.0, 1.0, 2.0, -1.0], len(items))
    got_items, got_grades, got_desc, dup = core.judged_segments(
        offsets, rows, items, grades, 1 + seed % 5
    )
    want_dup = _first_duplicate(offsets, rows, items)
    assert dup == want_dup
    for g in range(len(offsets) - 1 if want_dup < 0 else 0):
        pos = _positions(offsets, rows, g)
        order = np.argsort(items[pos], kind="stable")
        a, b = int(offsets[g]), int(offsets[g + 1])
        _same(got_items[a:b], items[pos][order])
        _same(got_grades[a:b], grades[pos][order])
        assert np.array_equal(got_desc[a:b], -np.sort(-grades[pos]))  # -0.0 == 0.0


@pytest.mark.parametrize("seed", range(40))
def test_ties_and_grouping_equal_numpy(seed):
    rng = np.random.default_rng(4000 + seed)
    offsets, _, _, keys, _ = _csr(rng)
    for single in (False, True):
        with np.errstate(over="ignore"):  # 1e300 is inf in float32
            k = keys.astype(np.float32) if single else keys
        segs = [k[offsets[g] : offsets[g + 1]] for g in range(len(offsets) - 1)]
        want = [g for g, seg in enumerate(segs) if (seg[1:] == seg[:-1]).any()]
        _same(
            np.asarray(core.tie_segments(keys, offsets, single), np.int64), np.array(want, np.int64)
        )
    n_groups = int(rng.integers(1, 40))
    codes = rng.integers(0, n_groups, int(rng.integers(0, 200))).astype(np.int32)
    grouped = np.sort(codes)
    want_offsets = np.concatenate([[0], np.cumsum(np.bincount(codes, minlength=n_groups))])
    for c in (codes, grouped):
        assert bool(core.is_grouped(c)) == bool((np.diff(c) >= 0).all())
        got_offsets, got_rows = core.group_rows(c, n_groups)
        _same(got_offsets, want_offsets)
        _same(got_rows, np.argsort(c, kind="stable"))
    _same(core.offsets_of_sorted(grouped, n_groups), want_offsets)


@pytest.mark.parametrize("seed", range(80))
def test_rank_rows_equals_stable_sorts(seed):
    rng = np.random.default_rng(6000 + seed)
    offsets, rows, items, keys, n_items = _csr(rng, dup_rate=0.05)
    n_chunks = 1 + seed % 6
    want_items, want_keys = np.empty_like(items), np.empty_like(keys)
    for g in range(len(offsets) - 1):
        pos = _positions(offsets, rows, g)
        order = np.argsort(-keys[pos], kind="stable")  # descending, input order within ties
        a, b = int(offsets[g]), int(offsets[g + 1])
        want_items[a:b], want_keys[a:b] = items[pos][order], keys[pos][order]
    want_dup = _first_duplicate(offsets, rows, items)
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
    want = core.rank_rows(offsets, rows, items.copy(), keys.copy(), n_items, True, True, 1)
    assert want[2] == _first_duplicate(offsets, rows, items) >= 0
    for n_chunks in (8, 64):
        got = core.rank_rows(
            offsets, rows, items.copy(), keys.copy(), n_items, True, True, n_chunks
        )
        _same(got[:2], want[:2])
        assert got[2] == want[2]


def test_container_kernels_reject_bad_inputs():
    offsets = np.array([0, 2, 3], dtype=np.int64)
    rows = np.empty(0, dtype=np.int64)
    items = np.array([0, 1, 5], dtype=np.int32)
    keys = np.array([0.5, 0.1, 0.2])
    with pytest.raises(ValueError, match="items must lie"):
        core.rank_rows(offsets, rows, items, keys, 3, False, False, 1)
    with pytest.raises(ValueError, match="offsets"):
        core.rank_rows(offsets[::-1].copy(), rows, items, keys, 8, False, False, 1)
    with pytest.raises(ValueError, match="rows"):
        core.rank_rows(offsets, np.array([0, 1, 9]), items, keys, 8, False, False, 1)
    with pytest.raises(ValueError, match="codes"):
        core.group_rows(np.array([0, 3], dtype=np.int32), 2)


def test_every_code_python_uses_exists_in_the_core():
    """The registry and the evaluation read the ranking kernel's codes from the core:
    every ``codes.NAME`` they read is a constant of ``receval._core``, and no two
    metric kinds share a code."""
    import ast
    from pathlib import Path

    src = Path(__file__).parents[2] / "src" / "receval"
    names = set()
    for path in src.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "codes"
                and node.attr.isupper()
            ):
                names.add(node.attr)
    assert len(names) >= 10  # the detector finds the codes written out (AP, BPREF, ...)
    missing = sorted(n for n in names if not hasattr(codes, n))
    assert missing == []
    kinds = [*codes.RANKING_KINDS, *codes.TREC_KINDS, *codes.LIST_KINDS]
    kinds += [*codes.POPULARITY_KINDS, *codes.HISTORY_KINDS, *codes.EXPOSURE_KINDS]
    assert len(kinds) == len(set(kinds))
    # the other rows read their code by name (the metric's name upper-cased)
    from receval.registry import ENTRIES

    used = {e.kind for e in ENTRIES.values() if e.kind is not None}
    assert len(used) > 50 and used <= set(kinds)


def test_ranking_specs_are_checked_when_built():
    spec = core.RankingSpec(codes.NDCG, k=10, threshold=1, ties="average", gain="exponential")
    assert "ties='average'" in repr(spec) and "gain='exponential'" in repr(spec)
    with pytest.raises(
        ValueError, match=r"'ties' parameter of RankingSpec must be one of \['trec', 'average'"
    ):
        core.RankingSpec(codes.NDCG, ties="random")
    with pytest.raises(ValueError, match=r"'gain' parameter .* Got 2 instead"):
        core.RankingSpec(codes.NDCG, gain=2)
    with pytest.raises(ValueError, match="unknown convention 'tie'"):
        core.RankingSpec(codes.NDCG, tie="trec")
    with pytest.raises(ValueError, match=f"at most {codes.N_PARAMS} values"):
        core.RankingSpec(codes.UTILITY, params=[0.0] * (codes.N_PARAMS + 1))


def test_a_fractional_threshold_is_not_truncated():
    # grades 1 and 2 with a threshold of 1.5: one relevant item, ranked second
    q_offsets = np.array([0, 2], dtype=np.int64)
    q_items = np.array([0, 1], dtype=np.int32)
    q_grades = np.array([1.0, 2.0])
    r_offsets = np.array([0, 2], dtype=np.int64)
    r_items = np.array([0, 1], dtype=np.int32)
    r_scores = np.array([0.9, 0.5])
    spec = core.RankingSpec(codes.RR, threshold=1.5)
    values, aux = core.evaluate_users(
        q_offsets, q_items, q_grades, np.array([2.0, 1.0]),
        r_offsets, r_items, r_scores, np.empty(0),
        np.array([0, 1], dtype=np.int32), np.array([0], dtype=np.int32), [spec],
        2, 1, 1.0 / np.log2(np.arange(2.0) + 2.0),
    )  # fmt: skip
    assert values.tolist() == [[0.5]] and aux.tolist() == [[1.0]]

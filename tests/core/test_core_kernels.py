"""The kernels of the compiled core (``receval._core``) that the public functions
call, against slow, obviously correct NumPy oracles on the same inputs: random rows
with ties, empty inputs, one class, zeros of both signs, subnormals, huge values and
non-finite floats (for the sums); and their refusals of bad inputs. The metrics
built on them are checked against peers and the oracles of ``tests/oracles/``
elsewhere (log loss, AUC and its streaming buckets, GAUC).
"""

from __future__ import annotations

import math
import subprocess
import sys
from fractions import Fraction
from itertools import pairwise

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from receval._kernels import compiled
from receval.engine.sums import ExactSum

core = compiled()
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
def _rational_sum(x: np.ndarray) -> float:
    """The sum of float64 values rounded once (inf beyond the range, nan for nan or
    inf + -inf), from exact rationals."""
    finite = x[np.isfinite(x)]
    pos, neg = bool((x == math.inf).any()), bool((x == -math.inf).any())
    if np.isnan(x).any() or (pos and neg):
        return math.nan
    if pos or neg:
        return math.inf if pos else -math.inf
    exact = sum((Fraction(v) for v in finite.tolist()), Fraction(0))
    try:
        return float(exact)
    except OverflowError:
        return math.inf if exact > 0 else -math.inf


def _same_float(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


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
def test_exact_sum_and_dot_are_the_rounded_rational_sums(values, n_chunks, carry_every):
    x = np.array(values, dtype=np.float64)
    got = ExactSum(core.exact_sum(x, n_chunks, carry_every)).value
    assert _same_float(got, _rational_sum(x))
    w = x[::-1].copy()
    with np.errstate(all="ignore"):
        products = x * w  # each product rounded, as the kernel's
    got = ExactSum(core.exact_dot(x, w, n_chunks, carry_every)).value
    assert _same_float(got, _rational_sum(products))


def _integer(digits: np.ndarray) -> int:
    """The integer the limbs of an accumulator stand for."""
    return sum(int(d) << (32 * i) for i, d in enumerate(digits[: core.N_LIMBS].tolist()))


@pytest.mark.parametrize("seed", range(6))
def test_exact_sum_of_many_values_and_normalize(seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(200_003) * 10.0 ** rng.integers(-300, 300, 200_003)
    digits = core.exact_sum(x, 7, 1 << 30)
    assert ExactSum(digits).value == math.fsum(x.tolist())
    digits = digits * 3 - 12345  # digits out of range: normalize carries them
    before = _integer(digits)
    core.normalize(digits)
    assert _integer(digits) == before
    low = digits[: core.N_LIMBS - 1]
    assert ((low >= 0) & (low < 2**32)).all()


def _units(weights, quantum):
    """Each weight in units of ``2**quantum`` (an integer: asserted)."""
    unit = Fraction(2) ** quantum
    units = [Fraction(w) / unit for w in weights.tolist()]
    assert all(u.denominator == 1 for u in units)
    return np.array([int(u) for u in units] or [0], dtype=object)[: len(units)]


# ------------------------------------------------------------------ AUC
@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("n", [0, 1, 2, 17, 300])
def test_auc_kernels_equal_the_pair_oracle(seed, n):
    labels, scores, weights = _rows(seed, n, ties=seed % 2 == 0, specials=seed % 3 == 0)
    if seed % 5 == 0:
        labels[:] = 1  # one class
    is_pos = labels == 1
    pos, neg = core.split_by_label(scores, labels)
    assert np.array_equal(pos, scores[is_pos]) and np.array_equal(neg, scores[~is_pos])
    p, pw, q, qw = core.split_by_label_weighted(scores, labels, weights)
    weighted = weights != 0  # rows of weight zero are left out (they make no threshold)
    assert np.array_equal(p, scores[is_pos & weighted])
    assert np.array_equal(pw, weights[is_pos & weighted])
    assert np.array_equal(q, scores[~is_pos & weighted])
    assert np.array_equal(qw, weights[~is_pos & weighted])
    pos.sort()
    neg.sort()
    # twice the Mann-Whitney U: 2 per positive above a negative, 1 per tie
    twice_u = int(2 * (pos[:, None] > neg[None, :]).sum() + (pos[:, None] == neg[None, :]).sum())
    assert core.pair_count_sorted(pos, neg) == twice_u
    if seed % 4 == 1:  # weights of every bit, not only a few binary fractions
        pw, qw = pw * (1 + np.random.default_rng(seed).random(len(pw))), qw * 3.7
    op, oq = np.argsort(p, kind="stable"), np.argsort(q, kind="stable")
    p, pw, q, qw = p[op], pw[op], q[oq], qw[oq]
    got = core.weighted_range(p, pw, q, qw)
    (pos_quantum, neg_quantum), n_pos, n_neg, two_u, low, high, rounded = got
    assert rounded == (None, None)  # weights of a few dozen bits: summed exactly
    # the ends of the range: the smallest and largest score of a row that counts
    ends = np.concatenate([p, q])
    if len(ends):
        assert (low, high) == (ends.min(), ends.max())
    else:
        assert np.isnan(low) and np.isnan(high)
    # in units of its label's 2**quantum every weight is an integer: the sums are exact
    # integers, twice U in units of the product of the two units
    pu = _units(pw, pos_quantum)
    qu = _units(qw, neg_quantum)
    assert (n_pos, n_neg) == (int(pu.sum()), int(qu.sum()))
    # twice the weighted U: a pair weighs the product of its units, twice when ordered
    pairs = pu[:, None] * qu[None, :]
    order = 2 * (p[:, None] > q[None, :]) + (p[:, None] == q[None, :])
    assert two_u == int((pairs * order).sum()) if len(p) and len(q) else two_u == 0
    # float32 scores (rounding keeps them sorted): the counts of their float64 values
    p32, q32 = p.astype(np.float32), q.astype(np.float32)
    p64, q64 = p32.astype(np.float64), q32.astype(np.float64)
    np.testing.assert_equal(
        core.weighted_range(p32, pw, q32, qw), core.weighted_range(p64, pw, q64, qw)
    )
    assert core.pair_count_sorted(p32, q32) == core.pair_count_sorted(p64, q64)
    with pytest.raises(ValueError, match="must both be float64 or both float32"):
        core.pair_count_sorted(p32, q64)


@settings(max_examples=200, deadline=None)
@given(
    values=st.lists(
        st.one_of(
            st.sampled_from([*SPECIAL.tolist(), math.inf, -math.inf, math.nan]),
            st.floats(allow_nan=True, allow_infinity=True),
            st.integers(-3, 3).map(float),  # ties
        ),
        max_size=300,
    ),
    dtype=st.sampled_from([np.float64, np.float32]),
    size=st.sampled_from([1, 5000]),
)
def test_sort_numbers_is_numpys_sort(values, dtype, size):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # float32 overflow to inf
        a = np.resize(np.array(values, dtype=np.float64), len(values) * size).astype(dtype)
    want = np.sort(a)
    got = a.copy()
    core.sort_numbers(got)
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan)
    assert np.array_equal(got[~nan], want[~nan])  # equal values: 0.0 and -0.0 alike
    # the core's own order: by sign of zero too (the total order), NaN last
    finite = got[~nan]
    assert all(
        (x < y) or (x == y and (not np.signbit(y) or np.signbit(x)))
        for x, y in pairwise(finite.tolist())
    )


def test_sort_numbers_takes_the_core_where_numpys_sort_is_slow(monkeypatch):
    import receval._kernels as kernels

    a = np.random.default_rng(3).random(10_000)
    calls = []
    monkeypatch.setattr(kernels, "_SLOW_SORT", [True])
    monkeypatch.setattr(kernels, "compiled", lambda: _Recorder(calls))
    kernels.sort_numbers(a)
    kernels.sort_numbers(a[:100])  # small: NumPy
    kernels.sort_numbers(a[::2])  # strided: NumPy
    ints = np.arange(5000)[::-1].copy()
    kernels.sort_numbers(ints)  # int64: the core
    kernels.sort_numbers(ints.astype(np.int32))  # int32: NumPy
    assert calls == [10_000, 5000]
    assert np.array_equal(a, np.sort(a)) and np.array_equal(ints, np.arange(5000))
    monkeypatch.setattr(kernels, "_SLOW_SORT", [False])
    kernels.sort_numbers(a)
    assert calls == [10_000, 5000]
    read_only = np.zeros(3, dtype=np.float32)
    read_only.flags.writeable = False
    for bad in [np.arange(3, dtype=np.int32), read_only, np.zeros(6)[::2], np.zeros((2, 2))]:
        with pytest.raises(ValueError, match="C-contiguous 1-D float64, float32 or int64"):
            core.sort_numbers(bad)


@given(
    values=st.lists(st.integers(-(2**63), 2**63 - 1) | st.integers(-3, 3), max_size=300),
    size=st.sampled_from([1, 5000]),
)
def test_sort_numbers_sorts_int64_as_numpy(values, size):
    a = np.resize(np.array(values, dtype=np.int64), len(values) * size)
    got = a.copy()
    core.sort_numbers(got)
    assert np.array_equal(got, np.sort(a))


_IN_PLACE = """
import re, sys
import numpy as np
from receval._kernels import compiled

def kib(field):
    return int(re.search(field + r":\\s+(\\d+)", open("/proc/self/status").read()).group(1))

a = np.random.default_rng(0).random(8_000_000, dtype=sys.argv[1])  # 61 MiB of float64
compiled().sort_numbers(a[:100_000].copy())  # the code and its pages warm
base = kib("VmRSS")
compiled().sort_numbers(a)
print((kib("VmHWM") - base) / 1024, np.all(a[1:] >= a[:-1]))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_sort_numbers_sorts_in_the_memory_of_its_array(dtype):
    # the exact AUC's score ranges are planned at the bytes of their scores: the
    # sort takes at most 65,536 keys more (a radix sort through a copy of the
    # array took 61 MiB more for these 8M float64)
    out = subprocess.run(
        [sys.executable, "-c", _IN_PLACE, dtype], capture_output=True, text=True, check=True
    )
    grown, in_order = out.stdout.split()
    assert in_order == "True"
    assert float(grown) < 8, f"{grown} MiB above the array"


class _Recorder:
    def __init__(self, calls):
        self.calls = calls

    def sort_numbers(self, arr):
        self.calls.append(len(arr))
        core.sort_numbers(arr)


def test_gather_refuses_short_buffers():
    labels = np.array([1, 1, 0], np.int8)
    scores = np.array([0.1, 0.2, 0.3])
    filled = np.zeros(2, np.int64)
    with pytest.raises(ValueError, match="more rows in the range than room"):
        out = (np.empty(1), np.empty(0), np.empty(2), np.empty(0), filled)
        core.gather(scores, labels, None, 54, (0, 1023), out)


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
def test_gauc_kernels_refuse_bad_codes():
    with pytest.raises(ValueError, match=r"codes must lie in \[0, 2\)"):
        core.group_counts(np.array([0, 2], np.int32), 2, np.array([0, 1], np.int8))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("weighted", [False, True])
def test_multiclass_log_loss_is_the_correctly_rounded_sum(seed, weighted):
    """The core's sum is exact: math.fsum of the same clipped losses (correctly
    rounded)."""
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
def test_encoding_kernels_equal_numpy(seed, n):
    rng = np.random.default_rng(seed)
    lo = int(rng.integers(-(10**6), 10**6))
    span = int(rng.integers(1, 3 * n + 2))
    values = lo + rng.integers(0, span, n).astype(np.int64)
    # codes in order of first appearance, and the row of each code's first appearance
    uniques, first, inverse = np.unique(values, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty(len(uniques), dtype=np.int64)
    rank[order] = np.arange(len(uniques))
    codes, got_first = core.factorize_dense(values, lo, span)
    assert np.array_equal(codes, rank[inverse]) and np.array_equal(got_first, first[order])
    # codes in ascending order of the ids
    codes = (values - lo).astype(np.int32)
    got_uniques = core.dense_codes_in_place(codes, 0, span, lo, True, 3)
    assert np.array_equal(codes, inverse) and np.array_equal(got_uniques, uniques)
    grouped = np.sort(values) if seed % 2 else values
    starts = np.flatnonzero(np.r_[True, grouped[1:] != grouped[:-1]])
    offsets, ids = core.runs(grouped)
    assert np.array_equal(offsets, np.r_[starts, n]) and np.array_equal(ids, grouped[starts])
    # categorical codes (int32, uint32) are read as they are: the same shifts and runs
    # as their int64 values
    wide = values - lo
    shifted = np.empty(n, np.int32)
    assert core.shift_ids(wide, 1, shifted) == (True, int(wide.min()), int(wide.max()))
    for kind in (np.int32, np.uint32):
        out = np.empty(n, np.int32)
        assert core.shift_ids(wide.astype(kind), 1, out) == (True, wide.min(), wide.max())
        assert np.array_equal(out, shifted)
        offsets, ids = core.runs((grouped - lo).astype(kind))
        assert np.array_equal(offsets, np.r_[starts, n])
        assert np.array_equal(ids, grouped[starts] - lo)


def test_encoding_refuses_ids_out_of_range():
    with pytest.raises(ValueError, match=r"values must lie in \[lo, lo \+ span\)"):
        core.factorize_dense(np.array([1, 9], np.int64), 0, 5)
    with pytest.raises(ValueError, match="values must be a 1-D int64, int32 or uint32 array"):
        core.shift_ids(np.array([1.0, 9.0]), 0, np.empty(2, np.int32))
    with pytest.raises(ValueError, match="out must have as many elements as values"):
        core.shift_ids(np.array([1, 9], np.uint32), 0, np.empty(3, np.int32))
    with pytest.raises(ValueError, match=r"used_categories: values must lie in \[0, span\)"):
        core.used_categories(np.array([0, 5], np.uint32), 5, 2)
    with pytest.raises(ValueError, match="values must be a 1-D int32, uint32 or int64 array"):
        core.used_categories(np.array([0.0, 1.0]), 5, 2)
    with pytest.raises(ValueError, match="runs: values must be a 1-D int64, int32 or uint32"):
        core.runs(np.array([0, 1], np.int16))
    with pytest.raises(ValueError, match="values must be a C-contiguous 1-D array"):
        core.runs(np.arange(4)[::2])
    for kind in (np.int32, np.uint32, np.int64):
        codes, rows = core.used_categories(np.array([4, 1, 4, 3], kind), 5, 2)
        assert codes.tolist() == [2, 0, 2, 1] and rows.tolist() in ([1, 3, 0], [1, 3, 2])
    # a uint32 code from 2**31 on lies too far from an anchor of 0 for an int32
    assert core.shift_ids(np.array([2**32 - 1, 2], np.uint32), 0, np.empty(2, np.int32))[0] is False


def test_multiclass_log_loss_refuses_fortran_order():
    proba = np.asfortranarray(np.full((3, 2), 0.5))
    with pytest.raises(ValueError, match="C-contiguous 2-D"):
        core.multiclass_log_loss_exact(np.zeros(3, np.int64), proba, np.empty(0), 1e-7, 1)


@pytest.mark.parametrize("offset", [0, 3])
def test_populate_keeps_the_contents(offset):
    """Faulting pages in at once never changes what they hold, whatever the
    alignment of the array (a view starting inside a page)."""
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


def test_pair_aucs_read_float32_and_float64_scores_alike_and_refuse_others():
    codes = np.array([0, 0, 1, 1, 1, 0, 2], np.int32)
    labels = np.array([1, 0, 0, 1, 1, 0, 1], np.int8)
    scores = np.array([0.5, 0.25, 0.75, 0.75, 0.125, 0.5, 0.5])
    wide = [a.tolist() for a in core.pair_aucs(codes, 3, labels, scores)]
    narrow = [a.tolist() for a in core.pair_aucs(codes, 3, labels, scores.astype(np.float32))]
    # group 0's positive beats one negative and ties the other (1.5 of 2 pairs); group
    # 1's positives tie its negative and lose to it (0.5 of 2); group 2 has no negative
    assert str(wide) == str(narrow) == "[[3, 3, 1], [1, 2, 1], [0.75, 0.25, nan]]"
    with pytest.raises(ValueError, match="pair_aucs: scores must be a float32 or float64"):
        core.pair_aucs(codes, 3, labels, scores.astype(np.int64))


def test_held_rows_take_float32_or_float64_values_only():
    # one read of a float array (either type, as given) for every binding that holds rows
    ids, codes = np.array([5, 9]), np.array([0, 1], np.uint32)
    labels, halves = np.array([1, 0], np.int8), np.array([0.5, 0.25], np.float16)
    for scores in (halves.astype(np.float32), halves.astype(np.float64)):
        held = core.OpenGroups.from_rows(ids, codes, labels, scores, scores)
        assert held.n_rows == 2 and held.rows()[2].dtype == scores.dtype
        rows = core.OpenRows.from_rows(ids, ids, codes, codes, scores)
        assert rows.rows()[2].tolist() == [0.5, 0.25]
    with pytest.raises(ValueError, match=r"OpenGroups\.scores must be a float32 or float64"):
        core.OpenGroups.from_rows(ids, codes, labels, halves)
    with pytest.raises(ValueError, match=r"OpenGroups\.add\.scores must be a float32 or"):
        core.OpenGroups().add(ids, codes.astype(np.int32), labels, np.array([1, 0]))
    with pytest.raises(ValueError, match=r"OpenRows\.from_rows\.values must be a float32 or"):
        core.OpenRows.from_rows(ids, ids, codes, codes, halves)


def test_open_rows_names_the_ids_it_refuses():
    rows = core.OpenRows()
    args = (np.array([0, 1]), np.array([0], np.int32), np.array([1.0]))
    with pytest.raises(ValueError, match=r"OpenRows\.add\.user_ids must be an int64 array or"):
        rows.add(np.array([1.0]), np.array([7]), *args)
    with pytest.raises(ValueError, match=r"OpenRows\.add\.item_ids must hold str only"):
        rows.add(np.array([1]), ["a", 2], *args)
    rows.add(np.array([1]), ["a"], *args)  # int64 users, str items

"""Exact sums: equal to math.fsum (correctly rounded), whatever the split."""

import math
from fractions import Fraction
from itertools import pairwise

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from receval._kernels import compiled
from receval.engine.sums import ExactSum, exact_sums

k = compiled()


def exact_sum(values):
    return ExactSum.of(values).value


def exact_dot(x, w):
    return ExactSum.dot(x, w).value


finite = st.floats(allow_nan=False, allow_infinity=False, width=64)
# values across the whole exponent range, with subnormals and cancellations
wide = st.one_of(
    finite,
    st.floats(min_value=-1e-300, max_value=1e-300),
    st.sampled_from([5e-324, -5e-324, 2.2250738585072014e-308, 1e308, -1e308, -0.0, 1.0]),
)


@given(st.lists(wide, max_size=60))
def test_sum_equals_the_rounded_rational_sum(values):
    exact = sum((Fraction(v) for v in values), Fraction(0))
    try:
        expected = float(exact)  # correctly rounded
    except OverflowError:
        expected = math.inf if exact > 0 else -math.inf
    assert exact_sum(np.array(values, dtype=np.float64)) == expected
    try:
        assert exact_sum(np.array(values, dtype=np.float64)) == math.fsum(values)
    except OverflowError:  # fsum's partials overflow near the float range
        pass


@given(st.lists(wide, min_size=1, max_size=60), st.data())
def test_any_split_merges_to_the_same_sum(values, data):
    x = np.array(values, dtype=np.float64)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(x)), max_size=5)))
    parts = np.split(x, cuts)
    order = data.draw(st.permutations(range(len(parts))))
    merged = ExactSum.zero()
    for i in order:
        merged = merged + ExactSum.of(parts[i])
    assert merged.value == ExactSum.of(x).value
    assert np.array_equal(merged.digits, ExactSum.of(x).digits)


@given(
    arrays(np.float64, st.integers(0, 40), elements=st.floats(-1e6, 1e6)),
    st.data(),
)
def test_dot_equals_fsum_of_products(x, data):
    w = data.draw(arrays(np.float64, len(x), elements=st.floats(0, 1e3)))
    assert exact_dot(x, w) == math.fsum((x * w).tolist())


@given(st.lists(st.tuples(wide, wide), max_size=40))
def test_dot_of_wide_values_equals_fsum_of_products(pairs):
    x = np.array([a for a, _ in pairs], dtype=np.float64)
    w = np.array([b for _, b in pairs], dtype=np.float64)
    with np.errstate(over="ignore", under="ignore"):
        products = x * w
    assume(np.isfinite(products).all())
    exact = sum((Fraction(p) for p in products.tolist()), Fraction(0))
    try:
        expected = float(exact)  # correctly rounded; fsum can overflow on the way
    except OverflowError:
        expected = math.inf if exact > 0 else -math.inf
    assert exact_dot(x, w) == expected


def test_nan_of_any_sign_and_payload_counts_as_nan():
    bits = np.array([0x7FF8000000000000, 0xFFF8000000000000, 0x7FF0000000000001,
                     0xFFF0000000000001], dtype=np.uint64)  # fmt: skip
    for x in bits.view(np.float64):
        digits = ExactSum.of([1.0, x]).digits
        assert (digits[k.NAN], digits[k.POS_INF], digits[k.NEG_INF]) == (1, 0, 0)


def test_every_digit_shift_and_carry():
    # mantissas with all bits set, at every shift of the 32-bit digits
    m = float(2**53 - 1)
    values = [m * 2.0**e for e in range(-1074, 971, 7)] + [-(2.0**-1074)] * 3
    values += [m * 2.0**e for e in range(-1074, -1040)]  # subnormal range
    x = np.array(values)
    assert exact_sum(x) == math.fsum(values)
    assert exact_sum(-x) == -math.fsum(values)
    # borrows across digits: a huge value and a tiny one cancel to the tiny one
    assert exact_sum(np.array([2.0**900, 2.0**-1000, -(2.0**900)])) == 2.0**-1000


@pytest.mark.parametrize("carry_every", [1, 2, 7, 1000])
def test_carries_inside_a_chunk_keep_the_sum(carry_every):
    rng = np.random.default_rng(carry_every)
    x = rng.normal(size=5000) * np.exp2(rng.integers(-60, 60, 5000))
    x[::3] *= -1
    expected = math.fsum(x.tolist())
    for n_chunks in (1, 3):
        digits = k.exact_sum(x, n_chunks, carry_every)
        assert ExactSum(digits).value == expected
        assert np.array_equal(digits, k.exact_sum(x, 1))
    w = rng.random(5000)
    assert ExactSum(k.exact_dot(x, w, 2, carry_every)).value == math.fsum((x * w).tolist())


def test_large_input():
    rng = np.random.default_rng(1)
    x = rng.normal(size=3_000_000) * 1e3
    assert exact_sum(x) == math.fsum(x.tolist())
    assert exact_sum(np.full(200_000, 0.1)) == math.fsum([0.1] * 200_000)


def test_non_finite_and_empty():
    assert exact_sum(np.array([])) == 0.0
    assert math.isnan(exact_sum(np.array([1.0, np.nan])))
    assert exact_sum(np.array([1.0, np.inf])) == np.inf
    assert exact_sum(np.array([-np.inf, 2.0])) == -np.inf
    assert math.isnan(exact_sum(np.array([np.inf, -np.inf])))
    assert exact_sum(np.array([1e308, 1e308])) == np.inf  # beyond float64, as float addition
    assert exact_sum(np.array([1e308, 1e308, -1e308])) == 1e308  # no intermediate overflow


def test_pickles():
    import pickle

    s = ExactSum.of([0.1, 0.2, 0.3])
    assert pickle.loads(pickle.dumps(s)).value == s.value
    assert float(s) == math.fsum([0.1, 0.2, 0.3])
    assert repr(s) == f"ExactSum({math.fsum([0.1, 0.2, 0.3])!r})"


def test_state_size():
    assert ExactSum.zero().digits.shape == (k.SIZE,)


def test_exact_products_across_chunks_equal_the_rational_sum():
    # products are split exactly in the core's chunks (one a thread, several beyond 64Ki
    # rows): the sum of every chunk is the exact sum of the products, rounded once
    from receval.engine import sums as _sums

    rng = np.random.default_rng(11)
    n = 3 * 65536 + 1234
    x = rng.standard_normal(n) * 10.0 ** rng.integers(-20, 20, n)
    y = rng.standard_normal(n)
    w = rng.random(n) * 3
    want = float(sum(Fraction(a) * Fraction(b) for a, b in zip(x, y, strict=True)))
    total, lost = _sums.exact_products(x, y)
    assert total.value == want and lost == 0.0
    want_w = float(
        sum(Fraction(c) * Fraction(a) * Fraction(b) for a, b, c in zip(x, y, w, strict=True))
    )
    assert _sums.exact_products(x, y, w)[0].value == want_w
    assert _sums.exact_products(x, y, w)[1] == 0.0  # every product within the exact range
    # a factor beyond 2**995 leaves its product rounded, as documented, and bounded
    big = np.array([2.0**996, 3.0])
    total, lost = _sums.exact_products(big, np.array([1.5, 2.0]))
    assert total.value == 2.0**996 * 1.5 + 6.0 and lost >= 2.0**996 * 1.5 * 2.0**-53
    # row by row: a NaN or an infinity elsewhere does not change how a row is split
    tiny = 1 + 2.0**-30
    x, y = np.array([tiny, 2.0**996, np.inf]), np.array([tiny, 1.5, 1.0])
    assert _sums.exact_products(x, y)[0].value == np.inf
    for other, factor in ((np.nan, 1.0), (np.inf, 0.0)):
        x, y = np.array([tiny, 2.0**996, other]), np.array([tiny, 1.5, factor])
        assert np.isnan(_sums.exact_products(x, y)[0].value)
    assert _sums.exact_products(np.array([tiny, 1.0]), np.array([tiny, -1.0]))[0].value == (
        2.0**-29 + 2.0**-60
    )


FORMS = {"value": lambda x: x, "square": np.square, "abs": np.abs}


@given(
    st.lists(st.tuples(wide, wide.map(abs)), max_size=40),
    st.lists(st.sampled_from(sorted(FORMS)), min_size=1, max_size=4),
    st.booleans(),
)
def test_exact_sums_in_one_call_equal_each_sum_alone(pairs, forms, weighted):
    """Each row of the one call holds the digits of its own sum (values near 1e300 and
    subnormals included): form(x) and each product rounded first, as ExactSum.dot."""
    x = np.array([a for a, _ in pairs], dtype=np.float64)
    w = np.array([b for _, b in pairs], dtype=np.float64)
    terms = [(x, w if weighted else None, form) for form in forms]
    for term, got in zip(terms, exact_sums(terms), strict=True):
        with np.errstate(over="ignore", under="ignore"):
            expected = (
                ExactSum.dot(FORMS[term[2]](x), w) if weighted else ExactSum.of(FORMS[term[2]](x))
            )
        assert np.array_equal(got.digits, expected.digits)


@pytest.mark.parametrize("weighted", [False, True])
def test_exact_sums_log_loss_row_is_the_log_loss_sum(weighted):
    rng = np.random.default_rng(3)
    labels = rng.integers(0, 2, 500).astype(np.int8)
    proba = rng.random(500)
    proba[:3] = [0.0, 1.0, 5e-324]
    w = rng.random(500) * 1e200 if weighted else np.empty(0)
    *_, loss = exact_sums([(proba, None, "value")], (labels, proba, w, 1e-7))
    expected = k.binary_log_loss_exact(labels, proba, w, 1e-7, 1)
    assert np.array_equal(loss.digits, expected)


def test_exact_sums_names_a_bad_form():
    with pytest.raises(ValueError, match="form must be 'value', 'square' or 'abs'"):
        exact_sums([(np.ones(2), None, "cube")])


def test_fieldwise_sum_adds_every_exact_sum_in_one_call():
    from receval.engine.totals import Totals, totals_of

    rng = np.random.default_rng(5)
    y, p, w = rng.integers(0, 2, 40).astype(np.int8), rng.random(40), rng.random(40) * 1e300
    a, b = totals_of(y[:15], p[:15], w[:15]), totals_of(y[15:], p[15:], w[15:])
    merged, whole = a.merge(b), totals_of(y, p, w)
    assert isinstance(merged, Totals) and merged.n_rows == 40
    for name in ("weight", "loss", "predicted", "observed", "big_loss"):
        assert np.array_equal(getattr(merged, name).digits, getattr(whole, name).digits), name


def test_add_exact_names_a_bad_accumulator():
    with pytest.raises(ValueError, match="accumulators must have"):
        k.add_exact([np.zeros(3, dtype=np.int64)], [np.zeros(3, dtype=np.int64)])


@given(st.lists(wide, max_size=60), st.data())
def test_group_sums_equal_each_group_summed_alone(values, data):
    """Every group's digits in one call of one array, empty groups included."""
    from receval.engine.sums import exact_group_sums

    x = np.array(values, dtype=np.float64)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(x)), max_size=6)))
    offsets = np.array([0, *cuts, len(x)], dtype=np.int64)
    got = exact_group_sums(x, offsets)
    assert len(got) == len(offsets) - 1
    for (a, b), s in zip(pairwise(offsets), got, strict=True):
        assert np.array_equal(s.digits, ExactSum.of(x[a:b]).digits)


@given(st.lists(st.lists(wide, max_size=20), min_size=1, max_size=6))
def test_the_value_is_the_exact_fraction_rounded_once(parts):
    """The core's rounding (ties to even, subnormal results, an infinity past the
    float range) equals Python's of the exact fraction, on merged sums too, whose
    digits are past any one float's."""
    total = ExactSum.zero()
    for part in parts:
        total = total + ExactSum.of(np.array(part, dtype=np.float64))
    exact = total.as_fraction()
    try:
        expected = float(exact)
    except OverflowError:
        expected = math.inf if exact > 0 else -math.inf
    assert total.value == expected
    if expected == 0:
        assert math.copysign(1.0, total.value) == 1.0  # +0.0, -0.0 summed too


big = st.one_of(st.floats(min_value=0.0, max_value=1.7e308), st.sampled_from([1e308, 1.7e308]))


@given(st.lists(st.tuples(st.integers(0, 3), big), max_size=20), st.data())
def test_group_means_overflow_only_where_the_mean_does(rows, data):
    """A group whose float sum overflows gets its exact sum over the divisor, rounded
    once (inf only beyond float64); the others the float sum over it."""
    from receval.engine.sums import group_means

    codes = np.array([g for g, _ in rows], dtype=np.int64)
    x = np.array([v for _, v in rows], dtype=np.float64)
    per_group = st.lists(st.sampled_from([0.0, 1.0, 3.0, 20.0]), min_size=4, max_size=4)
    divisors = np.array(data.draw(per_group))
    got = group_means(codes, x, divisors)
    sums = np.bincount(codes, weights=x, minlength=4)
    for g in range(4):
        if divisors[g] == 0:
            assert math.isnan(got[g])
        elif math.isinf(sums[g]):
            exact = sum((Fraction(v) for v in x[codes == g]), Fraction(0)) / Fraction(divisors[g])
            try:
                expected = float(exact)  # correctly rounded
            except OverflowError:
                expected = math.inf
            assert got[g] == expected
        else:
            assert got[g] == sums[g] / divisors[g]


def test_sums_that_are_not_finite_round_as_counted():
    assert math.isnan(ExactSum.of([math.inf, -math.inf]).value)
    assert math.isnan(ExactSum.of([1.0, math.nan]).value)
    assert ExactSum.of([-math.inf, 1e308]).value == -math.inf
    assert ExactSum.of([1e308] * 4).value == math.inf


def test_group_sums_and_rounding_name_bad_input():
    with pytest.raises(ValueError, match="offsets must be nondecreasing positions in x"):
        k.exact_group_sums(np.ones(3), np.array([0, 2, 1], dtype=np.int64))
    with pytest.raises(ValueError, match="offsets must be nondecreasing positions in x"):
        k.exact_group_sums(np.ones(3), np.array([0, 4], dtype=np.int64))
    with pytest.raises(ValueError, match="an accumulator must have"):
        k.rounded_sum(np.zeros(3, dtype=np.int64))


# weights of one group: any non-negative float, with those at the ends of the range
# and at the edges of weight_shift's [2**-64, 2**64]
weight = st.one_of(
    st.floats(min_value=0.0, max_value=1.7e308),
    st.sampled_from([0.0, 5e-324, 2.0**-1022, 2.0**-64, 1.0, 2.0**64, 1.7e308]),
)


@given(st.lists(weight, min_size=1, max_size=10))
def test_weight_shifts_of_one_group_is_its_weight_shift_and_exact(values):
    """One rule for one array of weights (:func:`weight_shift`, which leaves those of a
    usual scale as given) and for each group of many (:func:`weight_shifts`): scaled
    by it, their sum is below 2**1024 (1 - 2**-10), so no sum overflows, the largest is
    in [0.5, 1) unless the least would leave the normal range, and no positive weight
    is rounded or lost where the sum of the weights as given is below 2**1023."""
    from receval.engine.sums import weight_shift, weight_shifts

    w = np.array(values)
    top = w.max()
    shift = int(weight_shifts(w, np.array([0]))[0])
    usual = top == 0 or 2.0**-64 <= top <= 2.0**64
    assert weight_shift(w) == (0 if usual else shift)
    scaled = np.ldexp(w, -shift)
    exact = np.array_equal(np.ldexp(scaled, shift), w)
    if sum(map(Fraction, values)) < 2**1023:
        assert exact
    assert sum(map(Fraction, scaled.tolist())) < 2**1024 * (1 - Fraction(1, 1024))
    if top > 0:
        assert 0.5 <= scaled.max() < 1 or scaled[w > 0].min() < 2.0**-1021


def test_weight_shift_of_weights_the_checks_refuse_is_zero():
    # (nan: its checks name the weight; weight_shift runs before them and must not fail)
    from receval.engine.sums import weight_shift

    assert weight_shift(np.array([np.nan, 0.0, 0.0])) == 0
    assert weight_shift(np.array([np.nan, 2.0**100])) == 0
    assert weight_shift(np.array([-1.0, -2.0])) == 0

"""Each label's weights in a unit of its own: tiny weights of one label beside huge ones
of the other keep every bit.

In one unit for both labels (the lowest bit of any weight, over at most 126 bits), the
tiny label's weights were rounded to one unit each and so made equal: an AUC of 0.5
where the exact value is 0.9999999999, an average precision of 9.3e-28 where it is
1e-200. The AUC does not depend on the scale of either label's weights; precision is
computed from the two counts each in its own unit.
"""

from __future__ import annotations

import math
import pickle
import warnings
from itertools import pairwise

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import receval as rv
from receval.engine.sources import range_state
from receval.engine.totals import auc_from_ranges
from receval.engine.window import DecayClock
from receval.metrics._auc import ROC_AUC
from tests.oracles import pointwise as oracle

_ULP = 2.0**-52


# weights wider than the exact sums on purpose (the warning: test_rounded_weights)
@pytest.mark.filterwarnings("ignore:.*the sample weights of the:receval.RecevalWarning")
def test_tiny_negatives_beside_huge_positives():
    y, s, w = [0, 1, 0, 1], [0.9, 0.8, 0.7, 0.1], [1e-10, 1e50, 1.0, 1.0]
    want = skm.roc_auc_score(y, s, sample_weight=w)
    assert want == oracle.pair_auc_exact(y, s, w) == 0.9999999999
    # 2U / (2 P N) of the exact integers rounded once (each step rounded: an ulp below)
    assert rv.roc_auc_score(y, s, sample_weight=w) == want
    acc = rv.metric("roc_auc").update(y[:2], s[:2], sample_weight=w[:2])
    acc = acc.merge(rv.metric("roc_auc").update(y[2:], s[2:], sample_weight=w[2:]))
    assert acc.compute() == want
    assert acc.state.weighted.rounded is not None  # the positives span 2**166: 1 is rounded


@pytest.mark.parametrize(
    ("scores", "want"),
    [([0.9, 0.8, 0.7], 1e-200), ([0.8, 0.7, 0.9], 1.0), ([0.7, 0.8, 0.9], 1.0)],
)
# weights wider than the exact sums on purpose (the warning: test_rounded_weights)
@pytest.mark.filterwarnings("ignore:.*the sample weights of the:receval.RecevalWarning")
def test_precision_of_a_huge_negative_beside_unit_positives(scores, want):
    # one class 1e200, the other 1e-200 and 1: in one unit, 1e-200 and 1 were one unit
    # each (9.3e-28 for 1e-200 above; 0.5 for 1.0 in the middle)
    y, w = [0, 1, 1], [1e200, 1e-200, 1.0]
    exact = oracle.average_precision_exact(y, scores, w)
    assert exact == pytest.approx(want, rel=1e-15, abs=0)
    assert skm.average_precision_score(y, scores, sample_weight=w) == pytest.approx(exact, abs=0)
    got = rv.average_precision_score(y, scores, sample_weight=w)
    assert got == pytest.approx(exact, rel=4 * _ULP, abs=0)
    for func, value in [
        (rv.pr_auc_score, oracle.pr_auc_exact),
        (rv.break_even_point, oracle.break_even_exact),
    ]:
        got = func(y, scores, sample_weight=w)
        assert got == pytest.approx(value(y, scores, w), rel=1e-14, abs=0)


def test_labels_2_to_the_2000_apart_are_exact():
    big, tiny = 2.0**1000, 2.0**-1000
    y, s = [1, 0, 0, 1, 0], [0.9, 0.8, 0.7, 0.1, 0.1]
    w = [3 * tiny, big, 3 * big, tiny, big]
    # 2U = 3 (2 * 5) + 1 (0 + 1) = 31 in units of tiny big: 31 / (2 * 4 * 5)
    assert rv.roc_auc_score(y, s, sample_weight=w) == 31 / 40
    acc = rv.metric("roc_auc")
    for i in range(5):
        acc.update(y[i : i + 1], s[i : i + 1], sample_weight=w[i : i + 1])
    assert acc.compute() == 31 / 40
    assert acc.state.weighted.rounded is None
    state = acc.state.weighted.__getstate__()
    assert (state["pos_quantum"], state["neg_quantum"]) == (-1000, 1000)
    # each label's counts in its own unit: a negatives' unit is 2**2000 positives' units
    _, pos, neg, shift = acc.state.weighted.table()
    assert (pos.tolist(), neg.tolist(), shift) == ([1, 0, 0, 3], [1, 3, 1, 0], 2000)
    # 3/4 of the positives at precision 1, the last 1/4 at 4 tiny / (4 tiny + 5 big)
    assert oracle.average_precision_exact(y, s, w) == 0.75
    assert rv.average_precision_score(y, s, sample_weight=w) == 0.75


# each label's weights within 2**(2 spread + 21) of a scale of its own, the two scales
# anywhere between 2**-1074 and 2**980 (subnormals included): each label's units fit
# 126 bits
_SCALES = st.integers(-1070, 980) | st.sampled_from([-1074, -1000, 0, 980])


@st.composite
def _far_labels(draw, spread=20):
    n = draw(st.integers(2, 14))
    y = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    assume(0 < sum(y) < n)
    s = draw(st.lists(st.sampled_from([0.0, 0.1, 0.5, 0.9, 1.0]), min_size=n, max_size=n))
    scale = {1: draw(_SCALES), 0: draw(_SCALES)}
    # odd mantissas of up to 20 bits, a few bits apart within a label
    mantissa = st.integers(0, (1 << 20) - 1).map(lambda m: 2 * m + 1)
    w = [
        math.ldexp(draw(mantissa), max(scale[label] + draw(st.integers(-spread, spread)), -1074))
        for label in y
    ]
    assume(all(math.isfinite(x) and x > 0 for x in w))
    return np.array(y), np.array(s), np.array(w), draw(st.integers(1, n - 1))


def _accumulated(name, y, s, w, cut):
    """The accumulator of two batches, merged, pickled and loaded from its state_dict."""
    a = rv.metric(name).update(y[:cut], s[:cut], sample_weight=w[:cut])
    b = rv.metric(name).update(y[cut:], s[cut:], sample_weight=w[cut:])
    merged = pickle.loads(pickle.dumps(b.merge(a)))
    return rv.metric(name).load_state_dict(merged.state_dict())


@settings(max_examples=150, deadline=None)
@given(data=_far_labels())
def test_labels_of_any_scale_give_the_exact_values(data):
    y, s, w, cut = data
    auc = rv.roc_auc_score(y, s, sample_weight=w)
    assert auc == oracle.pair_auc_exact(y, s, w)  # the exact quotient rounded once
    for name, func, exact in [
        ("average_precision", rv.average_precision_score, oracle.average_precision_exact),
        ("pr_auc", rv.pr_auc_score, oracle.pr_auc_exact),
        ("break_even_point", rv.break_even_point, oracle.break_even_exact),
    ]:
        value = func(y, s, sample_weight=w)
        # a few ulps of the subnormals where the value is one
        assert value == pytest.approx(exact(y, s, w), rel=1e-13, abs=1e-321), name
        assert _accumulated(name, y, s, w, cut).compute() == value, name
    acc = _accumulated("roc_auc", y, s, w, cut)
    assert acc.compute() == auc
    assert acc.state.weighted.rounded is None
    # score ranges (out of core, Spark): each label's units aligned across the ranges
    low = s < s[cut]
    parts = [_score_range(y[k], s[k], w[k]) for k in (low, ~low)]
    assert auc_from_ranges([r for r in parts if r is not None]) == auc


@st.composite
def _full_weights(draw):
    """Rows whose weights have every bit of a float64 (any mantissa, subnormals
    rounded as ``ldexp`` rounds them), each label's within ``2**(53 + 40)`` of a scale
    of its own: the exactness domain (each label's units within 126 bits)."""
    n = draw(st.integers(2, 30))
    y = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    assume(0 < sum(y) < n)
    s = draw(st.lists(st.sampled_from([0.0, 0.1, 0.5, 0.9, 1.0]), min_size=n, max_size=n))
    scale = {1: draw(_SCALES), 0: draw(_SCALES)}
    mantissa = st.integers(1 << 52, (1 << 53) - 1)
    w = [math.ldexp(draw(mantissa), scale[label] + draw(st.integers(-20, 20)) - 52) for label in y]
    assume(all(math.isfinite(x) and x > 0 for x in w))
    return np.array(y), np.array(s), np.array(w), draw(st.integers(1, n - 1))


@settings(max_examples=200, deadline=None)
@given(data=_full_weights())
def test_weighted_auc_is_the_exact_quotient_rounded_once(data):
    """The function, the accumulator (batches merged, pickled, loaded) and score ranges
    give ``2U / (2 P N)`` of the exact weights rounded once: ``float(Fraction)``."""
    y, s, w, cut = data
    want = oracle.sweep_auc_exact(y, s, w)
    assert want == oracle.pair_auc_exact(y, s, w)
    assert rv.roc_auc_score(y, s, sample_weight=w) == want
    acc = _accumulated("roc_auc", y, s, w, cut)
    assert acc.state.weighted.rounded is None
    assert acc.compute() == want
    low = s < s[cut]
    parts = [_score_range(y[k], s[k], w[k]) for k in (low, ~low)]
    assert auc_from_ranges([r for r in parts if r is not None]) == want


# seeds where 2U / (2 P N) rounded at each step was an ulp off, for each kind
@pytest.mark.parametrize("seed", [2, 3])
@pytest.mark.parametrize("kind", ["integers", "mantissas", "far apart", "subnormals"])
def test_weighted_auc_of_thousands_of_rows_is_the_exact_quotient(kind, seed):
    """Thousands of rows in uneven batches (several runs walked at once): integer
    weights (2U below 2**128, the pairs past 2**52), weights of 53-bit mantissas (2U
    past 2**128), labels 2**1900 apart, subnormals beside normal weights."""
    rng = np.random.default_rng(seed)
    n = 6000
    y = rng.integers(0, 2, n)
    s = np.where(rng.random(n) < 0.5, rng.choice(np.linspace(0, 1, 41), n), rng.random(n))
    if kind == "integers":
        w = rng.integers(1, 1 << 20, n).astype(np.float64)
    else:
        w = rng.random(n) + 0.5
    if kind == "far apart":
        w = np.where(y == 1, np.ldexp(w, -1000), np.ldexp(w, 900))
    if kind == "subnormals":
        tiny = rng.random(n) < 0.1
        w = np.where(tiny, rng.integers(1, 1 << 30, n) * 5e-324, np.ldexp(w, -1010))
    want = oracle.sweep_auc_exact(y, s, w)
    assert rv.roc_auc_score(y, s, sample_weight=w) == want
    acc = rv.metric("roc_auc")
    cuts = [0, *sorted(rng.choice(np.arange(1, n), 22, replace=False).tolist()), n]
    for a, b in pairwise(cuts):
        acc.update(y[a:b], s[a:b], sample_weight=w[a:b])
    assert acc.state.weighted.rounded is None
    assert acc.compute() == want
    bounds = [s < 0.3, (s >= 0.3) & (s < 0.7), s >= 0.7]
    assert auc_from_ranges([_score_range(y[k], s[k], w[k]) for k in bounds]) == want


def _score_range(y, s, w):
    """The summary of rows holding a whole score range (None for no row)."""
    params = ROC_AUC.check_params()
    state = range_state(ROC_AUC, params, ROC_AUC.prepare(params, y, s, w))
    return state.ranges[0] if len(y) else None


@settings(max_examples=40, deadline=None)
@given(data=_far_labels(spread=8))  # the factors spread each label's weights by 2**64
def test_decayed_labels_of_any_scale_are_the_weighted_function(data):
    """A decayed state divides the weights held by 2**64 every 64 updates (decay=0.5:
    each update's factor is a power of two): each label's unit moves with them, and
    the value stays that of the same rows weighted by the function."""
    y, s, w, _ = data
    # with decay, weights must stay below 2**900; the factors (down to 1/2) times the
    # smallest subnormals round in floats before the state holds them
    assume(w.max() < 2.0**800 and w.min() > 2.0**-1000)
    rows = np.arange(70) % len(y)
    acc, clock, factors = rv.metric("roc_auc", decay=0.5), DecayClock(), []
    for i in rows:
        acc.update(y[i : i + 1], s[i : i + 1], sample_weight=w[i : i + 1])
        factors.append((clock.step(0.5)[0], clock.exponent))
    assert clock.exponent == 64
    scaled = np.array([math.ldexp(f, e - clock.exponent) for f, e in factors])
    # the AUC does not depend on each label's scale: the tiny label's weights lifted
    # by 2**200, so that the oldest rows' weights (times 2**-64) do not underflow
    lift = {label: 200 if w[y == label].min() < 2.0**-800 else 0 for label in (0, 1)}
    lifted = np.array([math.ldexp(x, lift[label]) for x, label in zip(w, y, strict=True)])
    want = rv.roc_auc_score(y[rows], s[rows], sample_weight=lifted[rows] * scaled)
    assert acc.compute() == want
    assert acc.state.weighted.rounded is None


@pytest.mark.parametrize(
    ("name", "func"),
    [
        ("average_precision", rv.average_precision_score),
        ("pr_auc", rv.pr_auc_score),
        ("break_even_point", rv.break_even_point),
    ],
)
def test_precision_warns_where_one_labels_weights_are_rounded(name, func):
    # one label's weights 2**126 apart: its smallest are rounded up to a coarser unit,
    # which precision reads as far larger weights (AP 2.2e-11, exact 0.58333); before,
    # nothing said so
    y, s = [0, 1, 1, 0], [0.9, 0.8, 0.7, 0.1]
    message = rf"{func.__name__}: the sample weights of the negatives span 127 bits .* far from"
    with pytest.warns(rv.RecevalWarning, match=message):
        func(y, s, sample_weight=[1, 1, 1, 2.0**126])
    # the fix it names holds: weights of full mantissas within 2**40 of each other
    full = [float.fromhex("0x1.fffffffffffffp+0"), float.fromhex("0x1.0000000000001p+40")]
    with warnings.catch_warnings():
        warnings.simplefilter("error", rv.RecevalWarning)
        func(y, s, sample_weight=[full[0], full[1], full[0], full[1]])
    with pytest.warns(rv.RecevalWarning, match="more than the 126 bits summed exactly"):
        rv.metric(name).update(y, s, sample_weight=[1, 1, 1, 2.0**126]).compute()
    with warnings.catch_warnings():  # within the span, exact and silent
        warnings.simplefilter("error")
        assert func(y, s, sample_weight=[1, 1, 1, 2.0**80]) == func(
            y, s, sample_weight=[1, 1, 1, 2.0**80]
        )

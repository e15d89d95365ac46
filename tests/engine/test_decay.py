"""``metric("roc_auc", decay=d)``: the exponentially decayed exact AUC (TorchEasyRec's
``DecayAUC`` without its bins) against the weighted function."""

import math
import pickle
from fractions import Fraction

import numpy as np
import pytest

import receval as rv
from receval import InvalidParameterError
from receval.engine.window import DecayClock
from tests.oracles import pointwise as oracle


def _batches(seed, n_batches, rows=40):
    rng = np.random.default_rng(seed)
    for _ in range(n_batches):
        y = rng.integers(0, 2, rows)
        s = rng.choice(np.linspace(0, 1, 9), rows)  # ties across batches
        w = rng.random(rows) + 0.5
        yield y, s, w


def _torcheasyrec_weights(decay, n):
    """Weight of each update's rows after ``n`` updates, as TorchEasyRec's DecayAUC
    counts them (``counts = d * counts + (1 - d) * batch`` after every update but the
    first), oldest first: exact reals rounded once."""
    return [decay ** (n - 1)] + [(1 - decay) * decay ** (n - t) for t in range(2, n + 1)]


def _clock_weights(decay, n):
    """The factors the state gives each update's rows, in one scale (floats as the
    clock rounds them)."""
    clock, factors = DecayClock(), []
    for _ in range(n):
        factor, _ = clock.step(decay)
        factors.append((factor, clock.exponent))
    return [math.ldexp(f, e - clock.exponent) for f, e in factors]


@pytest.mark.parametrize("decay", [0.5, 0.9, 0.99])
@pytest.mark.parametrize("weighted", [False, True])
def test_decayed_auc_is_the_weighted_function(decay, weighted):
    parts = list(_batches(0, 30))
    acc = rv.metric("roc_auc", decay=decay)
    for y, s, w in parts:
        acc.update(y, s, sample_weight=w if weighted else None)
    y, s, w = (np.concatenate(c) for c in zip(*parts, strict=True))
    rows = [len(p[0]) for p in parts]
    own = w if weighted else np.ones(len(y))
    # the clock's own factors: the same float (exact sums of the same weights)
    factors = np.repeat(_clock_weights(decay, len(parts)), rows)
    assert acc.compute() == rv.roc_auc_score(y, s, sample_weight=own * factors)
    # TorchEasyRec's weights, computed exactly: within the rounding of the factors
    exact = np.repeat(_torcheasyrec_weights(decay, len(parts)), rows)
    assert acc.compute() == pytest.approx(
        rv.roc_auc_score(y, s, sample_weight=own * exact), rel=1e-13
    )


def test_decayed_auc_is_that_of_the_clocks_weights_not_the_formulas_floats():
    # metric()'s docs said the value was the weighted function of the formula's weights:
    # 0.35 for [0.3, 0.7, 0.7], where the clock's rounded factor gives 0.35000000000000003
    acc = rv.metric("roc_auc", decay=0.3).update([1], [0.1]).update([1, 0], [0.5, 0.5])
    one, later = _clock_weights(0.3, 2)
    y, s = [1, 1, 0], [0.1, 0.5, 0.5]
    assert acc.compute() == rv.roc_auc_score(y, s, sample_weight=[one, later, later])
    assert acc.compute() == pytest.approx(rv.roc_auc_score(y, s, sample_weight=[0.3, 0.7, 0.7]),
                                          rel=1e-15)  # fmt: skip


# weights wider than the exact sums on purpose (the warning: test_rounded_weights)
@pytest.mark.filterwarnings("ignore:.*the sample weights of the:receval.RecevalWarning")
def test_decay_renormalises_without_touching_the_rows_held():
    """Thousands of updates: the newest rows' factor passes 2**64 many times and is
    divided (with the weights held) by a power of two; the value stays that of the
    weighted function on the recent rows, which dominate."""
    decay = 0.9
    acc = rv.metric("roc_auc", decay=decay)
    parts = list(_batches(1, 2000, rows=5))
    for y, s, _ in parts:
        acc.update(y, s)
    assert acc.state.clock.exponent >= 64 * 4
    recent = parts[-300:]  # 0.9**300 ~ 2e-14: older rows change nothing at 1e-12
    y, s, _ = (np.concatenate(c) for c in zip(*recent, strict=True))
    weights = np.repeat([(1 - decay) * decay ** (299 - i) for i in range(300)], 5)
    assert acc.compute() == pytest.approx(rv.roc_auc_score(y, s, sample_weight=weights),
                                          rel=1e-12)  # fmt: skip


# subnormal weights (5e-324 is 2**-1074), the smallest normal one and a few beside it:
# each label's weights times the factors within 126 bits, the state's exact domain
_TINY = [5e-324, 2.5e-320, 1e-315, 1e-310, 2.2250738585072014e-308, 3e-308]


@pytest.mark.parametrize(("decay", "updates"), [(0.9, 30), (0.99, 12), (0.75, 20)])
def test_decayed_subnormal_weights_are_held_exactly(decay, updates):
    """Factors below 1 (``(1 - d) d**-(t-1)``, 0.0101 for d = 0.99) times subnormal
    weights: their float64 products lost bits or were flushed to 0 (a row of
    5e-324 then counted nothing); the state holds each weight times its factor rounded
    once to 53 bits at any exponent, as the oracle computes it in Fractions."""
    rng = np.random.default_rng(int(decay * 100) + updates)
    acc, clock = rv.metric("roc_auc", decay=decay), DecayClock()
    y_all, s_all, w_all = [], [], []
    scaled = []  # (weight, factor, clock exponent) of each row
    for _ in range(updates):
        y = rng.integers(0, 2, 6)
        s = rng.choice(np.linspace(0, 1, 5), 6)
        w = rng.choice(_TINY, 6)
        acc.update(y, s, sample_weight=w)
        factor, _ = clock.step(decay)
        y_all += y.tolist()
        s_all += s.tolist()
        scaled += [(x, factor, clock.exponent) for x in w.tolist()]
        w_all += w.tolist()
    assert min(f for _, f, _ in scaled) < 1  # products below the weights, down to 0
    # each row's weight times its factor rounded once, in the newest update's scale
    exact = [
        oracle.rounded_product(x, f) * Fraction(2) ** (e - clock.exponent) for x, f, e in scaled
    ]
    want = oracle.auc_of_rationals(y_all, [Fraction(x) for x in s_all], exact)
    assert acc.compute() == want
    assert acc.state.weighted.rounded is None
    # the same state in one batch per update, split in two: the same exact counts
    half = rv.metric("roc_auc", decay=decay)
    for k in range(updates):
        rows = slice(6 * k, 6 * k + 6)
        half.update(y_all[rows], s_all[rows], sample_weight=w_all[rows])
    assert half.compute() == want


def test_a_decayed_subnormal_weight_is_not_flushed_to_zero():
    # decay 0.99: the second update's factor is 0.01 / 0.99, and 5e-324 times it was 0 in
    # float64: the second update's rows counted nothing (an AUC of 1)
    acc = rv.metric("roc_auc", decay=0.99)
    acc.update([1, 0], [0.9, 0.1], sample_weight=[5e-324, 5e-324])
    acc.update([0, 1], [0.8, 0.2], sample_weight=[5e-324, 5e-324])
    clock = DecayClock()
    clock.step(0.99)
    factor, _ = clock.step(0.99)
    assert 5e-324 * factor == 0.0
    f = oracle.rounded_product(5e-324, factor) / Fraction(5e-324)
    assert f == Fraction(factor)  # a power of two times the factor: exact
    # pairs (0.9, 0.1) weigh 1, (0.9, 0.8) and (0.2, 0.1) f each, (0.2, 0.8) nothing
    assert acc.compute() == float((1 + 2 * f) / (1 + f) ** 2) < 1


def test_rounded_products_are_float64_products_where_normal():
    for a, b in [(0.1, 3.0), (1e-300, 1e-7), (0.7, 0.9), (2.0**-1022, 1.5), (1e300, 1e8)]:
        assert oracle.rounded_product(a, b) == Fraction(a * b)
    # below 2**-1022 float64 rounds to multiples of 2**-1074; the oracle keeps 53 bits
    assert oracle.rounded_product(5e-324, 0.1) == Fraction(0.1) * Fraction(5e-324)
    assert 5e-324 * 0.1 == 0.0


def test_decayed_accumulators_pickle_and_merge_in_step():
    parts = list(_batches(2, 10))
    a, b = rv.metric("roc_auc", decay=0.8), rv.metric("roc_auc", decay=0.8)
    whole = rv.metric("roc_auc", decay=0.8)
    for y, s, w in parts:
        half = len(y) // 2
        a.update(y[:half], s[:half], sample_weight=w[:half])
        b.update(y[half:], s[half:], sample_weight=w[half:])
        whole.update(y, s, sample_weight=w)
    assert pickle.loads(pickle.dumps(a)).merge(b).compute() == whole.compute()
    y, s, w = parts[0]
    behind = rv.metric("roc_auc", decay=0.8).update(y, s, sample_weight=w)
    with pytest.raises(InvalidParameterError, match="same update"):
        whole.merge(behind)
    with pytest.raises(InvalidParameterError, match="cannot merge"):
        whole.merge(rv.metric("roc_auc", decay=0.7))


@pytest.mark.parametrize(
    ("name", "options", "message"),
    [
        ("roc_auc", {"decay": 1.0}, r"'decay' parameter of metric must be a float in \(0, 1\)"),
        ("roc_auc", {"decay": "0.9"}, r"must be a float in \(0, 1\)"),
        ("log_loss", {"decay": 0.9}, r"decay is defined for the exact roc_auc only"),
        ("roc_auc", {"decay": 0.9, "bins": 100}, r"decay is defined for the exact roc_auc"),
        ("roc_auc", {"decay": 0.9, "window": 3}, r"takes decay or window, not both"),
    ],
)
def test_decay_options_are_checked(name, options, message):
    with pytest.raises(InvalidParameterError, match=message):
        rv.metric(name, **options)

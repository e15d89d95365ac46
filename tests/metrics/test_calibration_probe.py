"""Calibration metrics probed against oracles and peers: tied scores, scores on bin
edges, one class, extreme weights, half and single precision, n = 1 and 2, and the
accumulator over updates, merges and pickles."""

from __future__ import annotations

import math
import pickle

import numpy as np
from hypothesis import assume, given
from hypothesis import strategies as st
from sklearn.calibration import calibration_curve as sklearn_calibration_curve

import receval as rv
from tests.oracles.pointwise import ece

# ties and values on the edges of uniform bins (0, 0.1, 0.5, 1.0, ...)
EDGE_VALUES = [0.0, 0.1, 0.2, 0.25, 0.3, 0.5, 0.6, 0.7, 0.9, 1.0, 0.05, 0.35]


@st.composite
def rows(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, int]:
    n = draw(st.integers(1, 8))
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    p = np.array(draw(st.lists(st.sampled_from(EDGE_VALUES), min_size=n, max_size=n)))
    return y, p, draw(st.integers(1, 12))


@given(rows(), st.sampled_from(["uniform", "quantile"]))
def test_calibration_curve_equals_sklearn_on_ties_and_edges(data, strategy):
    y, p, n_bins = data
    ours = rv.calibration_curve(y, p, n_bins=n_bins, strategy=strategy)
    theirs = sklearn_calibration_curve(y, p, n_bins=n_bins, strategy=strategy)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-12)


@given(rows(), st.integers(0, 8))
def test_ece_equals_oracle_and_accumulator(data, cut):
    y, p, n_bins = data
    value = rv.expected_calibration_error(y, p, n_bins=n_bins)
    assert math.isclose(value, ece(y, p, n_bins), rel_tol=1e-12, abs_tol=1e-15)
    first = rv.metric("expected_calibration_error", n_bins=n_bins)
    second = rv.metric("expected_calibration_error", n_bins=n_bins)
    first.update(y[:cut], p[:cut])
    second.update(y[cut:], p[cut:])
    merged = pickle.loads(pickle.dumps(first))
    merged.merge(second)
    assert merged.compute() == value


def test_float16_probabilities_are_binned_on_float16_edges():
    # float16(0.1) = 0.0999755859375 is torch.linspace(0, 1, 11, dtype=float16)[1]:
    # with bin_edge="upper" it opens bin 1, while 0.09 stays in bin 0
    y = np.array([1, 0])
    p = np.array([0.1, 0.09], dtype=np.float16)
    low, high = float(p[0]), float(p[1])
    expected = ((1 - low) + high) / 2  # two bins of one row each
    assert math.isclose(
        rv.expected_calibration_error(y, p, n_bins=10, bin_edge="upper"), expected, rel_tol=1e-15
    )
    accumulator = rv.metric("expected_calibration_error", n_bins=10, bin_edge="upper")
    accumulator.update(y, p)
    assert math.isclose(accumulator.compute(), expected, rel_tol=1e-15)


#: torchmetrics 1.9.0 (torch 2.15.0) ``binary_calibration_error(torch.tensor(p), torch.tensor(y),
#: n_bins=n)`` on the float16 data of the test below, recorded (torchmetrics, a heavy peer, is not a
#: test dependency); it sums in float16, so the values are within float16 rounding of the exact ones
TORCHMETRICS_FLOAT16 = {10: 0.235107421875, 20: 0.25439453125}


def test_float16_binning_equals_torchmetrics():
    rng = np.random.default_rng(0)
    grid = np.linspace(0, 1, 21).astype(np.float16)  # edges of 10 and 20 bins, in float16
    y = rng.integers(0, 2, 200)
    p = rng.choice(grid, 200)
    for n_bins, theirs in TORCHMETRICS_FLOAT16.items():
        ours = rv.expected_calibration_error(y, p, n_bins=n_bins, bin_edge="upper")
        assert math.isclose(ours, theirs, rel_tol=2e-3)  # torch sums in float16
        # float64 edges put the probabilities on an edge one bin lower: another value
        wide = rv.expected_calibration_error(y, p.astype(np.float64), n_bins=n_bins,
                                             bin_edge="upper")  # fmt: skip
        assert not math.isclose(wide, theirs, rel_tol=2e-3)


@given(
    st.lists(
        st.tuples(st.integers(0, 1), st.floats(0.0, 1.0), st.floats(1e-3, 1e3)),
        min_size=1, max_size=8,
    )
)  # fmt: skip
def test_weighted_ece_is_the_exact_ratio_rounded_once(rows):
    # before: each w p rounded before the exact sum (y=1, p=0.9, w=0.6 gave
    # 0.09999999999999991 against 0.09999999999999998)
    from fractions import Fraction

    y, p, w = (np.array(c) for c in zip(*rows, strict=True))
    assume(((p == 0) | (p >= 2.0**-1000)).all())  # a subnormal w p is rounded (documented)
    gap = abs(sum(Fraction(b) * (a - Fraction(c)) for a, c, b in rows))
    want = float(gap / sum(Fraction(b) for b in w))
    assert rv.expected_calibration_error(y, p, sample_weight=w, n_bins=1) == want
    assert rv.expected_calibration_error([1], [0.9], sample_weight=[0.6]) == 0.09999999999999998
    acc = rv.metric("ece", n_bins=1)
    for i in range(len(y)):
        acc.update(y[i : i + 1], p[i : i + 1], sample_weight=w[i : i + 1])
    assert acc.compute() == want

"""R², explained variance and the Brier score at every scale of float64: the exact
sums of the squares are taken of values scaled by a power of two where their squares
would over- or underflow, so values near 1e300 or 1e-300 give the exact result."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval as rv
from tests.oracles import pointwise as oracle

SCALES = [-1070, -1000, -700, -520, -300, 0, 300, 520, 700, 900, 960]


def _data(seed, n=40):
    rng = np.random.default_rng(seed)
    y = rng.normal(size=n).round(3)  # few digits: exact after any scaling by 2**k
    p = (y + rng.normal(size=n) * 0.3).round(3)
    w = rng.integers(1, 4, n).astype(float)
    return y, p, w


@pytest.mark.parametrize("shift", SCALES)
@pytest.mark.parametrize("name", ["r2_score", "explained_variance_score"])
def test_scale_free_metrics_at_every_scale(name, shift):
    y, p, w = _data(0)
    ys, ps = np.ldexp(y, shift), np.ldexp(p, shift)
    assert np.all(np.isfinite(ys)) and np.all(np.isfinite(ps))
    func = getattr(rv, name)
    want = getattr(oracle, "r2" if name == "r2_score" else "explained_variance")(ys, ps, w)
    assert func(ys, ps, sample_weight=w) == want
    if shift >= -1000:  # the values still hold every digit: the same as at scale 1
        assert func(ys, ps, sample_weight=w) == func(y, p, sample_weight=w)


@settings(max_examples=60, deadline=None)
@given(
    shifts=st.lists(st.sampled_from([-1000, -600, 0, 600, 960]), min_size=1, max_size=4),
    seed=st.integers(0, 10),
)
def test_batches_of_different_scales_merge(shifts, seed):
    # batches of one scale each, merged by an accumulator: the function's value of all
    # the rows (a batch far below the largest adds below its last bit: the same float)
    parts = [tuple(np.ldexp(a, s) for a in _data(seed + i, 12)[:2]) for i, s in
             enumerate(shifts)]  # fmt: skip
    y = np.concatenate([a for a, _ in parts])
    p = np.concatenate([b for _, b in parts])
    for name in ("r2", "explained_variance"):
        acc = rv.metric(name)
        for a, b in parts:
            acc.update(a, b)
        whole = getattr(rv, rv.metric_info(name).function)(y, p)
        assert acc.compute() == pytest.approx(whole, rel=1e-15, abs=1e-300)
        want = oracle.r2(y, p) if name == "r2" else oracle.explained_variance(y, p)
        assert acc.compute() == pytest.approx(want, rel=1e-15, abs=1e-300)


@pytest.mark.parametrize("shift", [-1070, -1000, -600, -200, 0])
def test_brier_of_tiny_probabilities(shift):
    y = np.array([0, 0, 1, 0])
    p = np.ldexp(np.array([0.5, 0.25, 0.75, 0.125]), shift)
    assert rv.brier_score_loss(y, p) == oracle.brier(y, p)

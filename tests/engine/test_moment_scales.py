"""Brier, R² and explained variance as accumulators at every scale of weights and values:
each batch's weights are scaled by the power of two that the function applies to all
its rows, and values whose squares times a weight would pass ``2**995`` are scaled
first, so that every product is split exactly and any split of the rows into batches
gives the function's float, which is the exact one (the oracle's, in fractions)."""

from __future__ import annotations

import io
import itertools
import pickle
import re
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import receval as rv
from receval.engine.run import Accumulator
from tests.oracles import pointwise as oracle

#: powers of ten of the weights and of the values (1e18 and 1e19: weights on either side
#: of 2**64, which the function leaves as they are or scales)
WEIGHT_SCALES = [-300, -100, 0, 18, 19, 100, 300, 307]
VALUE_SCALES = [-150, -100, 0, 100, 140, 150, 160, 200]
FUNCTIONS = {
    "r2": (rv.r2_score, oracle.r2),
    "explained_variance": (rv.explained_variance_score, oracle.explained_variance),
}


def _batches(acc: rv.Accumulator, columns: tuple[np.ndarray, ...], cuts: list[int]) -> Any:
    """``acc`` updated with the rows of ``columns`` cut at ``cuts``."""
    edges = sorted({c for c in cuts if c < len(columns[0])} | {0, len(columns[0])})
    for a, b in itertools.pairwise(edges):
        acc.update(columns[0][a:b], columns[1][a:b], sample_weight=columns[2][a:b])
    return acc


@given(
    seed=st.integers(0, 2**16),
    weight_scale=st.sampled_from(WEIGHT_SCALES),
    value_scale=st.sampled_from(VALUE_SCALES),
    cuts=st.lists(st.integers(1, 23), max_size=4),
)
def test_any_split_gives_the_exact_value_of_the_function(seed, weight_scale, value_scale, cuts):
    # before: with weights near 1e300 the accumulator's R² was an ulp or two off the
    # function's (products beyond 2**995 rounded); values near 1e150 times weights near
    # 1e19 gave nan, and 1e150 alone an ulp off, in memory too
    rng = np.random.default_rng(seed)
    y = rng.normal(size=24) * 10.0**value_scale
    p = y + rng.normal(size=24) * 0.3 * 10.0**value_scale
    w = rng.uniform(0.5, 2.0, 24) * 10.0**weight_scale
    assume(np.isfinite(w).all() and (w > 0).all())
    for name, (function, exact) in FUNCTIONS.items():
        acc = _batches(rv.metric(name), (y, p, w), cuts)
        want = exact(y, p, w)
        assert function(y, p, sample_weight=w) == want, name
        assert acc.compute() == want, name


@given(
    seed=st.integers(0, 2**16),
    scale=st.sampled_from([-200, -150, -101, 150, 200, 250]),
    below=st.sampled_from([0, 100, 200, 250]),
    cuts=st.lists(st.integers(1, 11), max_size=3),
)
def test_values_far_below_the_largest_keep_exact_squares(seed, scale, below, cuts):
    # before: values whose largest was within 2**±464 were not scaled, and those beyond
    # were scaled into [0.5, 1): truths near 1e-201 beside predictions near 1e-101 had
    # squares below 2**-1074, which the sums lost (R² 1.08e200 where the exact value is
    # -2.4e202). A largest value below 2**-20, or whose square would pass 2**995, is
    # now brought as high as its square allows
    assume(scale - below >= -300)
    rng = np.random.default_rng(seed)
    y = rng.uniform(1, 2, 12) * 10.0 ** (scale - below)
    p = rng.uniform(-2, 2, 12) * 10.0**scale
    w = np.ones(12)
    for name, (function, exact) in FUNCTIONS.items():
        want = exact(y, p, w)
        assert function(y, p) == want, name
        assert _batches(rv.metric(name), (y, p, w), cuts).compute() == want, name


@given(
    seed=st.integers(0, 2**16),
    weight_scale=st.sampled_from(WEIGHT_SCALES),
    cuts=st.lists(st.integers(1, 23), max_size=4),
)
def test_brier_of_any_split_at_any_weight_scale(seed, weight_scale, cuts):
    rng = np.random.default_rng(seed)
    y, p = rng.integers(0, 2, 24), rng.random(24)
    w = rng.uniform(0.5, 2.0, 24) * 10.0**weight_scale
    acc = _batches(rv.metric("brier_score"), (y, p, w), cuts)
    want = oracle.brier(y, p, w)
    assert rv.brier_score_loss(y, p, sample_weight=w) == want
    assert acc.compute() == want


def test_batches_of_far_apart_weights_merge_at_the_larger_scale():
    # one batch's weights near 1e300 (scaled by 2**-997), another's near 1: its sums
    # are scaled down to the first's scale, exactly
    rng = np.random.default_rng(1)
    y, p = rng.normal(size=20), rng.normal(size=20)
    w = np.r_[rng.uniform(1, 2, 10) * 1e300, rng.uniform(1, 2, 10)]
    for name, (function, exact) in FUNCTIONS.items():
        acc = rv.metric(name).update(y[10:], p[10:], sample_weight=w[10:])
        other = rv.metric(name).update(y[:10], p[:10], sample_weight=w[:10])
        assert acc.merge(other).compute() == function(y, p, sample_weight=w) == exact(y, p, w)


def test_states_of_negative_shifts_load_back():
    # before: a state whose values or weights were scaled up (a negative power of two)
    # was refused on loading as 'state.shift must be a count >= 0', so it could not be
    # pickled, synced or restored from a state_dict
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tiny = rv.metric("r2").update([1e-200, 2e-200, 3e-200], [1e-200, 2.5e-200, 3e-200],
                                      sample_weight=[1e-100, 2e-100, 1e-100])  # fmt: skip
        ece = rv.metric("expected_calibration_error").update(
            [0, 1, 1], [0.2, 0.6, 0.7], sample_weight=[1e-100, 2e-100, 1e-100]
        )
    assert tiny.state.y_shift < 0 and tiny.state.w_shift < 0 and ece.state.shift < 0
    for acc in (tiny, ece):
        assert pickle.loads(pickle.dumps(acc)).compute() == acc.compute()
    import torch

    buffer = io.BytesIO()
    torch.save(tiny.state_dict(), buffer)
    buffer.seek(0)
    loaded = rv.metric("r2").load_state_dict(torch.load(buffer, weights_only=True))
    assert loaded.compute() == tiny.compute()
    state = tiny.__getstate__()
    object.__setattr__(state["_state"], "w_shift", 1.5)
    with pytest.raises(rv.InputValidationError, match=r"state\.w_shift must be an integer"):
        Accumulator.__new__(Accumulator).__setstate__(state)


#: powers of ten of values and weights past float64's range of one another
VALUE_RANGE = [-320, -300, -200, -100, 0, 100, 300]
WEIGHT_RANGE = [-320, -300, -150, 0, 150, 300]


def _quiet_or_spanned(got: float, want: float, caught: list[Any]) -> None:
    """``got`` is ``want`` and nothing was warned, or a warning gives a span that holds
    ``want``: never a value off the exact one without saying so."""
    messages = [str(w.message) for w in caught if "span more than" in str(w.message)]
    if not messages:
        assert got == want or (np.isnan(got) and np.isnan(want)), (got, want)
        return
    low, high = (float(x) for x in re.findall(r"lies between (\S+) and (\S+):", messages[0])[0])
    assert low <= want <= high or (np.isnan(want) and np.isnan(got)), (low, want, high)


@given(
    seed=st.integers(0, 2**16),
    scales=st.lists(st.sampled_from(VALUE_RANGE), min_size=3, max_size=3),
    weight_scales=st.lists(st.sampled_from(WEIGHT_RANGE), min_size=2, max_size=2),
    weighted=st.booleans(),
    cuts=st.lists(st.integers(1, 11), max_size=3),
)
def test_values_and_weights_past_the_range_are_exact_or_warned(
    seed, scales, weight_scales, weighted, cuts
):
    # before: weights near 1e-300 beside weights near 1e300, or truths near 1e-300
    # beside predictions near 1e100, lost products below 2**-1074 and the value was
    # wrong without a word (R² 0.0 where the exact value is -inf; 1.0 for 0.75). Each
    # column is now scaled on its own, and what the sums still lose is bounded: the
    # value is the exact one, or a warning gives the span that holds it
    rng = np.random.default_rng(seed)
    y = rng.uniform(1, 2, 12) * 10.0 ** rng.choice(scales[:2], 12)
    p = y * rng.uniform(0.5, 1.5, 12) + rng.uniform(-1, 1, 12) * 10.0 ** scales[2]
    w = rng.uniform(1, 2, 12) * 10.0 ** rng.choice(weight_scales, 12) if weighted else np.ones(12)
    assume(np.isfinite(p).all() and np.isfinite(w).all() and (w > 0).all())
    for name, (function, exact) in FUNCTIONS.items():
        want = exact(y, p, w)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = function(y, p, sample_weight=w if weighted else None)
        _quiet_or_spanned(got, want, caught)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = _batches(rv.metric(name), (y, p, w), cuts).compute()
        _quiet_or_spanned(got, want, caught)


def test_truths_far_below_the_predictions_keep_their_variance():
    # truths near 1e-300 beside predictions near 1e100: each column is scaled on its own,
    # so the squares of y_true are kept and nothing is lost (no warning)
    y = np.array([1e-300, 2e-300, 4e-300])
    p = np.array([1e100, -1e100, 2e100])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name, (function, exact) in FUNCTIONS.items():
            assert function(y, p) == exact(y, p, np.ones(3)) == -np.inf, name
            assert rv.metric(name).update(y, p).state.lost.sum() == 0.0, name


def test_weights_past_the_range_warn_with_the_span_of_the_score():
    # a weight of 1e-300 beside two of 1e300: scaled to fit, the least weight is near
    # 2**-1022 and its products with 1.5 lose a bit below 2**-1074
    y, p, w = [1.0, 1.0, 2.0], [1.0, 1.0, 1.5], [1e300, 1e300, 1e-300]
    with pytest.warns(rv.RecevalWarning, match=r"r2_score: the values or weights span more "
                      r"than float64's range .* lies between 0\.74\d+ and 0\.75\d+"):  # fmt: skip
        assert rv.r2_score(y, p, sample_weight=w) == 0.75
    with warnings.catch_warnings():  # 1e-200: the products stay exact, nothing to say
        warnings.simplefilter("error")
        assert rv.r2_score(y, p, sample_weight=[1e300, 1e300, 1e-200]) == 0.75

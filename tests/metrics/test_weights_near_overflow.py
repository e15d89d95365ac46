"""Weights near 1e308 beside subnormal ones: the power of two a group's weights are
scaled by keeps their sums from overflowing before it keeps the least weight normal,
so the metrics of ratios of weights give the value of the other weights (the subnormal
ones, negligible beside them, lose bits or become 0), with no NumPy warning."""

from __future__ import annotations

import math
import warnings
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

import receval
from tests.oracles import pointwise as oracle

BIG = 1.5e308
TINY = 5e-324


def _quietly(compute: Any) -> Any:
    """``compute()``, any warning raised as an error."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return compute()


def test_grouped_auprc_of_weights_near_1e308_beside_a_subnormal_one():
    value = _quietly(lambda: receval.grouped_auprc_score(
        [1, 1, 0], [0.9, 0.8, 0.7], groups=["a"] * 3, sample_weight=[BIG, BIG, TINY]
    ))  # fmt: skip
    assert value == 1.0


def test_a_grouped_auprc_accumulator_skips_no_group_of_weights_near_1e308():
    acc = receval.metric("grouped_auprc")
    acc.update([1, 1, 0, 1, 0], [0.9, 0.8, 0.7, 0.9, 0.1], groups=["a"] * 3 + ["b"] * 2,
               sample_weight=[BIG, BIG, TINY, 1.0, 1.0])  # fmt: skip
    assert _quietly(acc.compute) == 1.0
    assert acc.skipped()["n_groups_skipped"] == 0


def test_gauc_of_weights_near_1e308_beside_a_subnormal_one():
    # the subnormal weight becomes 0: group 2 has no weighted negative and is left out
    value = _quietly(lambda: receval.gauc_score(
        [1, 0, 1, 0], [0.9, 0.2, 0.8, 0.3], groups=[1, 1, 2, 2],
        sample_weight=[BIG, BIG, BIG, TINY],
    ))  # fmt: skip
    assert value == 1.0


def test_accuracy_of_weights_near_1e308_beside_a_subnormal_one():
    value = _quietly(lambda: receval.accuracy_score(
        [1, 1, 0, 0], [1, 1, 0, 1], sample_weight=[BIG, BIG, TINY, BIG]
    ))  # fmt: skip
    assert value == 2 / 3


#: weights of both ends of float64's range, and of a usual scale
EXTREME = st.sampled_from([BIG, 1.7e308, 1e308, 2.0**1000, 1.0, 2.0**-1022, 1e-310, TINY, 0.0])


@st.composite
def extreme_group(draw: Any) -> tuple[list[int], list[float], list[float]]:
    """A group of 2 to 8 rows, a positive first, scores from a few values (ties), and
    weights from :data:`EXTREME`, the first near 1e308."""
    n = draw(st.integers(2, 8))
    y = [1, *draw(st.lists(st.integers(0, 1), min_size=n - 1, max_size=n - 1))]
    s = draw(st.lists(st.sampled_from([0.0, 0.1, 0.5, 0.9, 1.0]), min_size=n, max_size=n))
    w = [BIG, *draw(st.lists(EXTREME, min_size=n - 1, max_size=n - 1))]
    return y, s, w


@given(extreme_group())
def test_grouped_auprc_of_extreme_weights_is_that_of_exactly_scaled_ones(data):
    """The function and an accumulator give the AUPRC of the group's weights scaled in
    exact rationals (:func:`tests.oracles.pointwise.scaled_group_weights`)."""
    y, s, w = data
    groups = [0] * len(y)
    want = oracle.grouped_average_precision_exact(y, s, groups, w)
    acc = receval.metric("grouped_auprc")
    acc.update(y, s, groups=groups, sample_weight=w)
    for got in (
        _quietly(lambda: receval.grouped_auprc_score(y, s, groups=groups, sample_weight=w)),
        _quietly(acc.compute),
    ):
        assert math.isclose(got, want, rel_tol=1e-12)


def test_an_accumulator_of_identical_rows_near_1e308():
    # the two rows held once, counted twice: twice their weight would overflow
    acc = receval.metric("grouped_auprc")
    acc.update([1, 1, 0], [0.9, 0.9, 0.1], groups=["a"] * 3, sample_weight=[BIG, BIG, 1.0])
    assert _quietly(acc.compute) == 1.0

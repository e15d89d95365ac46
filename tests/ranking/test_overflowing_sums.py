"""Sums of gains beyond float64's range (exponential gains of grades near 1023, or
linear gains near 1e308) give no silent inf or nan: a user's DCG that overflows is
refused, naming the metric, on every source; NDCG, a ratio, stays exact where its sums
overflow (the core sums such a user's gains again times 2**-64; the propensity-weighted
form scales them too); a mean of finite values is finite."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval as rv
from receval.exceptions import InputValidationError
from tests.ranking.test_ranking import ranking_data

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")

# three gains of 2**1023 - 1: each finite, their sum (and the ideal one) beyond float64
QRELS = {"u": {"a": 1023, "b": 1023, "c": 1023}, "v": {"a": 3}}
RUN = {"u": {"a": 1.0, "b": 0.5, "c": 0.2}, "v": {"a": 1.0}}
SUMS = ["dcg(gain=exponential)@10", "idcg(gain=exponential)@10"]
RATIOS = ["ndcg(gain=exponential)@10", "ndcg_burges@10", "ndcg(gain=exponential,ties=average)@10"]


def _refusal(func: str, metric: str) -> str:
    return (
        f"{func}: metric {metric!r} sums gains beyond float64's range (above 1.8e308) "
        f"for 1 user, e.g. ['u']; use gain='linear' or map the grades to a smaller range."
    )


@pytest.mark.parametrize("metric", SUMS)
def test_evaluate_refuses_a_sum_of_gains_that_overflows(metric):
    # DCG was inf, with no message
    with pytest.raises(InputValidationError) as info:
        rv.evaluate(QRELS, RUN, [metric])
    assert str(info.value) == _refusal("evaluate", metric)


@pytest.mark.parametrize("metric", RATIOS)
def test_an_ndcg_whose_sums_overflow_is_exact(metric):
    # it was nan (inf / inf: the user silently left the mean)
    assert rv.evaluate(QRELS, RUN, [metric]).values[metric].tolist() == [1.0, 1.0]
    run = {"u": {"c": 1.0, "a": 0.5, "b": 0.2}, "v": {"a": 1.0}}  # the same gains
    assert rv.evaluate(QRELS, run, [metric]).values[metric].tolist() == [1.0, 1.0]


def test_an_ndcg_whose_ideal_dcg_alone_overflows_is_exact():
    # DCG 2**1022 over an ideal DCG of inf: NDCG was 0.0; the DCG itself is a value
    qrels, run = {"u": {"a": 1023, "b": 1023, "c": 1023, "d": 1022}}, {"u": {"d": 1.0}}
    got = rv.evaluate(qrels, run, ["ndcg(gain=exponential)@10"]).mean
    # (2**g - 1 is 2**g in float64 here)
    ideal = 2 * (1 + 1 / math.log2(3) + 1 / 2) + 1 / math.log2(5)
    assert got["ndcg(gain=exponential)@10"] == pytest.approx(1 / ideal, rel=1e-15)
    assert rv.evaluate(qrels, run, ["dcg(gain=exponential)@10"]).mean == {
        "dcg(gain=exponential)@10": 2.0**1022
    }
    # the top 1 of the ideal order is within float64's range: as before
    assert rv.evaluate(qrels, run, ["ndcg(gain=exponential)@1"]).mean == {
        "ndcg(gain=exponential)@1": 0.5
    }


def test_linear_gains_that_overflow():
    qrels = {"u": {"a": 1e308, "b": 1e308, "c": 1e308}}
    with pytest.raises(InputValidationError, match=r"gains beyond float64's range"):
        rv.evaluate(qrels, RUN, ["cg@10"])
    for profile in (None, "trec_eval"):
        assert rv.evaluate(qrels, RUN, ["ndcg@10"], profile=profile).mean == {"ndcg@10": 1.0}


@pytest.mark.parametrize("metric", ["dcg(gain=exponential)@10", "ndcg(gain=exponential)@10"])
def test_accumulators_and_compute(metric):
    # DCG refused (at compute the values of rows held, at update those of whole users),
    # NDCG exact
    update = f"Accumulator.update of {metric!r}"
    for whole_groups, func in ((False, f"receval.metric({metric!r})"), (True, update)):
        if metric.startswith("ndcg"):
            assert rv.metric(metric, whole_groups=whole_groups).update(QRELS, RUN).compute() == 1
            continue
        with pytest.raises(InputValidationError) as info:
            rv.metric(metric, whole_groups=whole_groups).update(QRELS, RUN).compute()
        assert str(info.value) == _refusal(func, metric)
    if metric.startswith("ndcg"):
        assert rv.compute(metric, QRELS, RUN) == 1.0
    else:
        with pytest.raises(InputValidationError) as info:
            rv.compute(metric, QRELS, RUN)
        assert str(info.value) == _refusal(f"receval.compute({metric!r})", metric)


def test_a_weighted_dcg_that_overflows_is_refused():
    # weight 2 times 2**1023 - 1: inf, with only NumPy's RuntimeWarning
    metric = "dcg(gain=exponential)@10"
    qrels, run = {"u": {"a": 1023, "b": 1}}, {"u": {"a": 1.0, "b": 0.5}}
    with pytest.raises(InputValidationError) as info:
        rv.evaluate(qrels, run, [metric], propensities={"a": 0.5, "b": 0.5})
    assert str(info.value) == _refusal("evaluate", metric)


@pytest.mark.parametrize("estimator", ["ips", "snips"])
def test_a_weighted_ndcg_is_exact_where_its_sums_overflow(estimator):
    # NDCG is a ratio: each user's gains and weights scaled by a power of two give it
    # exactly; it was inf (IPS, weight 2) or nan (three gains near 2**1023)
    metric = "ndcg(gain=exponential)@10"
    p = {"a": 0.5, "b": 0.5, "c": 0.5}
    # 2**g - 1 is 2**g in float64 here: the gains of linear grades 2**23, 2**22, 2**21
    # times 2**1000, which leaves every ratio as it is
    large = {"u": {"a": 1023, "b": 1022, "c": 1021}, "v": {"a": 3}}
    linear = {"u": {"a": 2.0**23, "b": 2.0**22, "c": 2.0**21}, "v": {"a": 7}}
    want = rv.evaluate(linear, RUN, ["ndcg@10"], propensities=p, estimator=estimator)
    got = rv.evaluate(large, RUN, [metric], propensities=p, estimator=estimator)
    assert got.mean[metric] == want.mean["ndcg@10"]
    ones = {"a": 1.0, "b": 1.0, "c": 1.0}
    report = rv.evaluate(QRELS, RUN, [metric], propensities=ones, estimator=estimator)
    assert report.mean[metric] == 1.0
    acc = rv.metric(metric, propensities=ones, estimator=estimator)
    assert acc.update(QRELS, RUN).compute() == 1.0


@pytest.mark.filterwarnings("ignore::receval.exceptions.UnmatchedIdsWarning")
@settings(max_examples=60, deadline=None)
@given(
    ranking_data(),
    st.integers(0, 1021) | st.integers(1010, 1021),
    st.sampled_from(["ips", "snips"]),
    st.sampled_from(["ndcg@3", "ndcg", "ndcg(ties=average)"]),
)
def test_a_weighted_ndcg_of_grades_times_a_power_of_two_is_the_same(data, k, estimator, metric):
    # each user's gains are scaled into [0.5, 1) by a power of two: grades 2**k times
    # larger (their weighted sums beyond float64 for k above 1015) give the same bits
    qrels, run = data
    scaled = {u: {i: g * 2.0**k for i, g in d.items()} for u, d in qrels.items()}
    p = {i: 1 / (1 + int(i[1:])) ** 2 for d in qrels.values() for i in d}
    kwargs = {"propensities": p, "estimator": estimator, "allow_unmatched": True}
    want = rv.evaluate(qrels, run, [metric], **kwargs).values[metric]
    got = rv.evaluate(scaled, run, [metric], **kwargs).values[metric]
    np.testing.assert_array_equal(got, want)


def test_the_mean_of_finite_values_near_the_limit_is_finite():
    # two users of DCG 2**1023: their sum is beyond float64, their mean is not
    metric = "dcg(gain=exponential)@10"
    qrels, run = {"u": {"a": 1023}, "v": {"a": 1023}}, {"u": {"a": 1.0}, "v": {"a": 1.0}}
    assert rv.evaluate(qrels, run, [metric]).mean[metric] == 2.0**1023
    assert rv.metric(metric).update(qrels, run).compute() == 2.0**1023


# a relevant item's weight 1 / p: 1e12 (SNIPS's ideal DCG over 1e12 positions), 1e300
# (beyond int64 as a position) and inf (1 / 1e-309 beyond float64)
TINY_QRELS, TINY_RUN = {"u": {"a": 1, "b": 2}}, {"u": {"a": 1.0, "b": 0.5}}


def _too_many_positions(metric: str, positions: str, func: str = "evaluate") -> str:
    return (
        f"{func}: metric {metric!r} with estimator='snips' needs up to {positions} ideal "
        f"positions for 1 user, e.g. ['u'] (each relevant item takes as many as its weight "
        f"1 / propensity), more than the 67,108,864 its discounts span; give it a cut-off "
        f"(e.g. 'ndcg@10') or pass propensity_clip= (e.g. 1e-6) to bound the weights at "
        f"1 / clip."
    )


INFINITE_WEIGHT = (
    "1 relevant (user, item) pair of the qrels has a propensity so small that "
    "its weight 1 / p is beyond float64's range (p below 5.6e-309), e.g. [('u', 'a')]; "
    "pass propensity_clip > 0 (e.g. 1e-6) to bound their weight at 1 / clip."
)


@pytest.mark.parametrize(("p", "positions"), [(1e-12, "1e+12"), (1e-300, "1e+300")])
@pytest.mark.parametrize("metric", ["ndcg", "ndcg@100000000", "ndcg(ties=average)"])
def test_a_snips_ndcg_beyond_the_discounts_is_refused(p, positions, metric):
    # it was a MemoryError (1e12 discounts) or an IndexError (1e300 cast to int64)
    props = {"a": p, "b": 0.5}
    want = _too_many_positions(metric, "1e+08" if "@" in metric else positions)
    with pytest.raises(InputValidationError) as info:
        rv.evaluate(TINY_QRELS, TINY_RUN, [metric], propensities=props, estimator="snips")
    assert str(info.value) == want
    acc = rv.metric(metric, propensities=props, estimator="snips")
    with pytest.raises(InputValidationError) as info:
        acc.update(TINY_QRELS, TINY_RUN).compute()  # refused by compute, which names so
    assert str(info.value) == _too_many_positions(
        metric, "1e+08" if "@" in metric else positions, f"receval.metric({metric!r})"
    )


@pytest.mark.parametrize("estimator", ["ips", "snips"])
def test_tiny_propensities_within_reach_are_finite(estimator):
    # a cut-off, a clip or IPS (one ideal position per item) bound the discounts
    props = {"a": 1e-300, "b": 0.5}
    metrics = ["ndcg@10", "ndcg(ties=average)@10", "dcg(ties=average)@10"]
    got = rv.evaluate(TINY_QRELS, TINY_RUN, metrics, propensities=props, estimator=estimator)
    assert all(math.isfinite(x) for x in got.mean.values())
    clipped = rv.evaluate(
        TINY_QRELS, TINY_RUN, ["ndcg"], propensities=props, estimator=estimator,
        propensity_clip=1e-6,
    )  # fmt: skip
    assert math.isfinite(clipped.mean["ndcg"])


@pytest.mark.parametrize("estimator", ["ips", "snips"])
@pytest.mark.parametrize("metric", ["ndcg", "dcg(ties=average)@10", "recall", "map"])
def test_a_weight_beyond_float64_is_refused(estimator, metric):
    # 1 / 1e-309 is inf: it was an IndexError with a RuntimeWarning, or an inf metric
    props = {"a": 1e-309, "b": 0.5}
    with pytest.raises(InputValidationError) as info:
        rv.evaluate(TINY_QRELS, TINY_RUN, [metric], propensities=props, estimator=estimator)
    assert str(info.value) == f"evaluate: {INFINITE_WEIGHT}"
    acc = rv.metric(metric, propensities=props, estimator=estimator)
    with pytest.raises(InputValidationError) as info:
        acc.update(TINY_QRELS, TINY_RUN)  # refused by the update given the qrels
    assert str(info.value) == f"Accumulator.update of {metric!r}: {INFINITE_WEIGHT}"

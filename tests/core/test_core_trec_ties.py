"""trec_eval's measures with ties="average": the core's closed forms against the
enumeration of every order of the tied items.

Each value is the mean, over every order of each block of equal scores (the orders
equally likely), of the slow oracle of ``tests/oracles/trec_measures.py`` on that
order; lists are short (at most 7 items) and scores take 2 or 3 values, so ties are
frequent and blocks straddle the cut-offs.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import receval
from receval import InvalidParameterError
from receval._kernels import codes as core_codes
from receval._kernels import compiled
from tests.core.test_core_trec_measures import gain_params, run_core, spec_row
from tests.oracles import trec_measures as oracle

codes = core_codes()

core = compiled()

GRADES = [None, -1, 0, 1, 2, 3]  # None: absent from the qrels; -1: pooled, unjudged


@st.composite
def tied_user(draw):
    """(grades of the ranked items, their scores, grades of judged items not ranked)."""
    n = draw(st.integers(1, 7))
    values = draw(st.sampled_from([(1.0, 0.5), (1.0, 0.5, 0.25)]))
    scores = sorted(draw(st.lists(st.sampled_from(values), min_size=n, max_size=n)), reverse=True)
    ranked = draw(st.lists(st.sampled_from(GRADES), min_size=n, max_size=n))
    extra = draw(st.lists(st.sampled_from(GRADES[1:]), min_size=1, max_size=3))
    return ranked, scores, extra


def supported_calls(draw) -> list[tuple[int, tuple[float, ...], tuple | None]]:
    """(kind, params, gain pairs) of every kind with a closed form, parameters drawn."""
    c = codes
    p = draw(st.sampled_from([0.5, 0.8, 0.95]))
    pairs = tuple(
        (g, float(draw(st.sampled_from([-2, 0, 1, 3, 7]))))
        for g in draw(st.lists(st.sampled_from([0, 1, 2, 3]), max_size=3, unique=True))
    )
    utility = tuple(draw(st.lists(st.sampled_from([-1.0, 0.0, 0.5, 2.0]), min_size=4, max_size=4)))
    return [
        (c.NUM_RET, (), None),
        (c.NUM_REL, (), None),
        (c.NUM_REL_RET, (), None),
        (c.NUM_NONREL_JUDGED_RET, (), None),
        (c.NUM_Q, (), None),
        (c.BPREF, (), None),
        (c.BPREF, (1.0,), None),  # grades="raw"
        (c.RPREC_MULT, (draw(st.sampled_from([0.2, 0.5, 1.0, 1.5, 3.0])),), None),
        (c.UTILITY, (*utility, float(draw(st.sampled_from([0, 50])))), None),
        (c.BIN_G, (), None),
        (c.R_NDCG, (), None),
        (c.R_NDCG, (), pairs),
        (c.NDCG_REL, (), None),
        (c.NDCG_REL, (), tuple((g, abs(gain)) for g, gain in pairs)),  # no negative gain
        (c.NDCG, (), pairs),  # nDCG with a gain table
        (c.RELATIVE_PRECISION, (), None),
        (c.SET_PRECISION, (), None),
        (c.SET_RELATIVE_PRECISION, (), None),
        (c.SET_RECALL, (), None),
        (c.SET_AP, (), None),
        (c.SET_F, (draw(st.sampled_from([0.5, 1.0, 2.0])),), None),
        (c.RBP, (p,), None),
        (c.RBP, (p, 1.0), None),  # binary gains
        (c.RBP, (p, 2.0), None),  # grades="raw"
        (c.RBP_RESID, (p,), None),
        (c.UNJUDGED, (), None),
        (c.JUDGED, (), None),
        (c.NERR, (draw(st.sampled_from([0.0, 0.3, 0.5])),), None),
        (c.ERR, (draw(st.sampled_from([0.0, 2.0, 3.0])),), None),
        (c.ERR, (0.0, 1.0), None),  # probability=true
        (c.PFOUND, (draw(st.sampled_from([0.0, 0.5, 1.0])),), None),
        (c.AVERAGE_GAIN, (), None),
        (c.INFAP, (), None),
        (c.G, (), None),
        (c.G, (), pairs),
        (c.IPREC_AT_RECALL, (draw(st.sampled_from([0.0, 0.2, 0.5, 0.7, 1.0])),), None),
        (c.IPREC_AVG, (), None),  # the 11 levels
        (c.IPREC_AVG, (3.0, 0.25, 0.5, 0.75), None),
    ]


def orders(grades: list, scores: list[float]):
    """Every distinct grade sequence over the orders of the tied blocks; each is equally
    likely (a block's distinct sequences all have the same number of item orders)."""
    pairs = zip(grades, scores, strict=True)
    blocks = [[g for g, _ in grp] for _, grp in itertools.groupby(pairs, lambda x: x[1])]
    per_block = [sorted(set(itertools.permutations(b)), key=repr) for b in blocks]
    for combo in itertools.product(*per_block):
        yield [g for block in combo for g in block]


def enumerated(kind, ranked, scores, judged, threshold, k, params, pairs, judged_only):
    values = []
    for order in orders(ranked, scores):
        prepared = oracle.prepare(order, 0, judged_only)
        values.append(oracle.measure(kind, prepared, judged, threshold, k, params, pairs))
    return math.fsum(values) / len(values)


def core_values(ranked, scores, extra, rows):
    """The core's values of ``rows`` for one user: ranked items r0.., judged x0.."""
    qrels = {f"r{i}": g for i, g in enumerate(ranked) if g is not None}
    qrels.update({f"x{i}": g for i, g in enumerate(extra)})
    run = {f"r{i}": s for i, s in enumerate(scores)}
    values, _ = run_core(
        receval.Qrels.from_dict({"u": qrels}), receval.Run.from_dict({"u": run}), rows
    )
    return values[0], [g for g in qrels.values()]


def row_of(kind, params, pairs, *, k, threshold, judged_only, ties="average"):
    if pairs is not None:
        params = gain_params(dict(pairs))
    gain = "custom" if pairs is not None else "linear"
    return spec_row(
        kind, k=k, threshold=threshold, params=params, gain=gain, judged_only=judged_only,
        ties=ties,
    )  # fmt: skip


def close(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):  # trec_eval's 0 / 0 (R-nDCG without a level)
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    user=tied_user(),
    calls=st.composite(lambda draw: supported_calls(draw))(),
    k=st.sampled_from([0, 0, 1, 2, 3, 5]),
    threshold=st.sampled_from([0, 1, 1, 2]),
    judged_only=st.booleans(),
)
def test_average_ties_equal_the_enumeration_of_orders(user, calls, k, threshold, judged_only):
    ranked, scores, extra = user
    rows = [
        row_of(kind, params, pairs, k=k, threshold=threshold, judged_only=judged_only)
        for kind, params, pairs in calls
    ]
    got, judged = core_values(ranked, scores, extra, rows)
    for j, (kind, params, pairs) in enumerate(calls):
        want = enumerated(kind, ranked, scores, judged, threshold, k, params, pairs, judged_only)
        assert close(float(got[j]), want), (kind, params, pairs, k, threshold, float(got[j]), want)


def test_enumeration_check_can_fail():
    # two tied items, one relevant: trec's order (id descending) ranks r1 first; the
    # expectation over both orders differs from either order
    ranked, scores, extra = [1, 0], [0.5, 0.5], [1]
    rows = [row_of(codes.RBP, (0.5,), None, k=0, threshold=1, judged_only=False)]
    got, judged = core_values(ranked, scores, extra, rows)
    want = enumerated(codes.RBP, ranked, scores, judged, 1, 0, (0.5,), None, False)
    assert close(float(got[0]), want)
    assert close(want, (1 - 0.5) * (1 + 0.5) / 2)  # the relevant item at rank 1 or 2
    for order in ([1, 0], [0, 1]):
        assert not close(oracle.measure(codes.RBP, order, judged, 1, 0, (0.5,)), want)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    grades=st.lists(st.sampled_from(GRADES), min_size=1, max_size=7),
    extra=st.lists(st.sampled_from(GRADES[1:]), min_size=1, max_size=3),
    calls=st.composite(lambda draw: supported_calls(draw))(),
    k=st.sampled_from([0, 1, 3]),
    threshold=st.sampled_from([0, 1, 2]),
)
def test_average_ties_equal_trec_without_a_tie(grades, extra, calls, k, threshold):
    scores = [1.0 - 0.1 * i for i in range(len(grades))]
    for ties in ("average", "trec"):
        rows = [
            row_of(kind, params, pairs, k=k, threshold=threshold, judged_only=False, ties=ties)
            for kind, params, pairs in calls
        ]
        values, _ = core_values(grades, scores, extra, rows)
        if ties == "average":
            average = values
    np.testing.assert_array_equal(average, values)


def test_negative_gains_of_ndcg_rel_are_refused():
    qrels = {"q": {"d1": 1, "d2": 0}}
    run = {"q": {"d1": 0.5, "d2": 0.5}}
    metric = "ndcg_rel(gains=1:-1;2:3)"
    receval.evaluate(qrels, run, metric, ties="trec")  # fine with one order
    with pytest.raises(InvalidParameterError) as info:
        receval.evaluate(qrels, run, metric, ties="average")
    message = str(info.value)
    assert "no closed form over tie orders for a sum clamped at 0" in message
    assert "use ties='trec' or ties='input'" in message


def test_ratio_and_maximum_measures_take_their_expectation():
    # one relevant (d1) and one judged non-relevant (d2) tied at the top: each order
    # is equally likely, so every measure is the mean of its two values
    qrels = {"q": {"d1": 1, "d2": 0}}
    run = {"q": {"d1": 0.5, "d2": 0.5}}
    first = {"q": {"d1": 0.6, "d2": 0.5}}
    second = {"q": {"d1": 0.5, "d2": 0.6}}
    for metric in ["infap", "iprec(recall=0.5)", "iprec_avg", "11pt_avg", "g"]:
        got = receval.evaluate(qrels, run, metric, ties="average").mean[metric]
        one = receval.evaluate(qrels, first, metric).mean[metric]
        two = receval.evaluate(qrels, second, metric).mean[metric]
        assert one != two, metric
        assert got == pytest.approx((one + two) / 2, rel=1e-12), metric


def test_kernel_gives_nan_for_negative_gains_of_ndcg_rel():
    rows = [row_of(codes.NDCG_REL, (), ((1, -1.0),), k=0, threshold=1, judged_only=False)]
    got, _ = core_values([1, 0, 1], [0.5, 0.5, 0.2], [0], rows)
    assert np.isnan(got).all()


@pytest.mark.parametrize(
    "metric",
    ["bpref", "ndcg_rel", "ndcg_rel(gains=1:3;2:0)", "rbp(p=0.5)", "set_f", "nerr@2",
     "bin_g", "r_ndcg(gains=1:3;2:9)", "ndcg(gains=1:3;2:9)@2", "utility", "unjudged@3",
     "hits@2"],
)  # fmt: skip
def test_evaluate_accepts_average_ties(metric):
    qrels = {"q": {"d1": 2, "d2": 0, "d3": 1}}
    run = {"q": {"d1": 0.5, "d2": 0.5, "d3": 0.5, "d4": 0.1}}
    value = receval.evaluate(qrels, run, metric, ties="average").mean
    assert all(np.isfinite(v) for v in value.values())

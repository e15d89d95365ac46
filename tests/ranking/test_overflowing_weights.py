"""Propensity weights 1 / p whose sums pass float64's range are refused with the true
cause and fix (propensity_clip=), with no raw NumPy warning: they were blamed on the
gains ("map the grades to a smaller range"), even for metrics without gains, after a
RuntimeWarning, or gave a silent nan (SNIPS's recall, inf / inf)."""

from __future__ import annotations

import pytest

import receval as rv
from receval.exceptions import InputValidationError

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")

QRELS, RUN = {"u": {"a": 1, "b": 1}}, {"u": {"a": 2, "b": 1}}
TINY = {"a": 1e-300, "b": 1e-300}  # weights 1e300: their products overflow
TINIER = {"a": 1e-308, "b": 1e-308}  # weights 1e308: their sum overflows
FIX = "pass propensity_clip= (e.g. 1e-6) to bound the weights at 1 / clip."


def _refusal(
    metric: str, summed: str = "weights 1 / propensity", users: str = "1 user, e.g. ['u']"
) -> str:
    return (
        f"evaluate: metric {metric!r} sums {summed} beyond float64's range (above 1.8e308) "
        f"for {users}; {FIX}"
    )


@pytest.mark.parametrize(
    ("metric", "estimator", "props"),
    [
        ("map@2", "ips", TINY),
        ("map", "snips", TINY),
        ("recall", "ips", TINIER),
        ("recall", "snips", TINIER),  # it was nan: inf / inf
        ("precision@2", "snips", TINIER),
    ],
)
def test_weights_beyond_float64_are_refused_as_weights(metric, estimator, props):
    with pytest.raises(InputValidationError) as info:
        rv.evaluate(QRELS, RUN, [metric], propensities=props, estimator=estimator)
    assert str(info.value) == _refusal(metric)


def test_the_users_map_refuses_are_its_own():
    # v's weights are within reach: only u and w sum theirs beyond float64's range
    qrels = {"u": {"a": 1, "b": 1}, "v": {"a": 1}, "w": {"a": 1, "b": 1}}
    run = {u: {"a": 2, "b": 1} for u in qrels}
    with pytest.raises(InputValidationError) as info:
        rv.evaluate(qrels, run, ["map"], propensities={"a": 1e-308, "b": 0.5})
    assert str(info.value) == _refusal("map", users="2 users, e.g. ['u', 'w']")


def test_a_dcg_whose_weights_overflow_names_the_weights():
    # gains 1e10 (far from the limit) times weights 1e300
    qrels = {"u": {"a": 1e10, "b": 1}}
    with pytest.raises(InputValidationError) as info:
        rv.evaluate(qrels, RUN, ["dcg"], propensities={"a": 1e-300, "b": 0.5})
    assert str(info.value) == _refusal("dcg", "gains times weights 1 / propensity")


def test_a_dcg_whose_gains_overflow_names_the_gains():
    # gains 1e305 leave no room for the weights a clip would allow: the grades' fix
    qrels = {"u": {"a": 1e305, "b": 1}}
    with pytest.raises(InputValidationError) as info:
        rv.evaluate(qrels, RUN, ["dcg"], propensities={"a": 1e-300, "b": 0.5})
    assert str(info.value) == (
        "evaluate: metric 'dcg' sums gains beyond float64's range (above 1.8e308) for 1 "
        "user, e.g. ['u']; map the grades to a smaller range."
    )


def test_a_clip_gives_values():
    got = rv.evaluate(QRELS, RUN, ["map@2", "dcg"], propensities=TINY, propensity_clip=1e-6)
    assert got.mean == {
        "map@2": pytest.approx((1e6 + 1e6 * (1 + 1e6) / 2) / 2),
        "dcg": pytest.approx(1e6 * (1 + 1 / 1.584962500721156)),
    }

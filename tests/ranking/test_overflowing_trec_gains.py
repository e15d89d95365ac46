"""trec_eval's gain measures (G, ndcg_rel, Rndcg and the DCG family with a gains
table) sum the gains of trec_eval's table without rescaling them: a user whose
positive gains sum beyond float64's range is refused before the kernel runs, naming
the metric, the users and the fix, on every source (it was a silent nan, 0 or a
value near 1e-309)."""

from __future__ import annotations

import math

import pytest

import receval as rv
from receval.exceptions import InputValidationError

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")

# u's gains 1.2e308 + 1.2e308 + 1: beyond float64; v's within it
QRELS = {"u": {"a": 1.2e308, "b": 1.2e308, "c": 1.0, "e": 0.0}, "v": {"a": 3.0}}
RUN = {"u": {"c": 4, "a": 3, "b": 2, "d": 1}, "v": {"a": 1.0}}
MEASURES = ["ndcg_rel", "Rndcg", "G", "ndcg_rel(ties=average)", "G(ties=average)"]
# the grades 1 and 2 of a table, each of gain 1e308
TABLE = "gains=1:1e308;2:1e308"
TABLE_QRELS, TABLE_RUN = {"u": {"a": 1, "b": 2, "c": 0}}, {"u": {"a": 2, "b": 1, "c": 0.5}}
TABLED = [
    f"ndcg({TABLE})",
    f"dcg({TABLE})@10",
    f"idcg({TABLE})",
    f"ndcg_rel({TABLE})",
    f"G({TABLE})",
]


def _refusal(func: str, metric: str, fix: str = "map the grades to a smaller range") -> str:
    return (
        f"{func}: metric {metric!r} sums gains beyond float64's range (above 1.8e308) "
        f"for 1 user, e.g. ['u']; {fix}."
    )


@pytest.mark.parametrize("metric", MEASURES)
def test_evaluate_refuses_gains_that_sum_beyond_float64(metric):
    # ndcg_rel was 2.8e-309, Rndcg 0.0, G nan
    with pytest.raises(InputValidationError) as info:
        rv.evaluate(QRELS, RUN, [metric])
    assert str(info.value) == _refusal("evaluate", metric)


@pytest.mark.parametrize("metric", TABLED)
def test_a_table_of_gains_that_sum_beyond_float64_is_refused(metric):
    # G was nan; the others summed 1e308 + 1e308 with no check
    with pytest.raises(InputValidationError) as info:
        rv.evaluate(TABLE_QRELS, TABLE_RUN, [metric])
    fix = "map the grades (and the gains of gains=) to a smaller range"
    assert str(info.value) == _refusal("evaluate", metric, fix)


@pytest.mark.parametrize("metric", ["ndcg_rel", "G"])
def test_accumulators_and_compute_refuse_them(metric):
    # refused by the update given the qrels, of whole users or of rows held
    for whole_groups in (False, True):
        acc = rv.metric(metric, whole_groups=whole_groups)
        with pytest.raises(InputValidationError) as info:
            acc.update(QRELS, RUN)
        assert str(info.value) == _refusal(f"Accumulator.update of {metric!r}", metric)
    with pytest.raises(InputValidationError) as info:
        rv.compute(metric, QRELS, RUN)
    assert str(info.value) == _refusal(f"receval.compute({metric!r})", metric)


def test_a_user_given_in_several_updates_is_refused_at_compute():
    # each update's gains of u sum within float64's range; u's whole do not
    acc = rv.metric("ndcg_rel")
    acc.update({"u": {"a": 1.2e308}}, {"u": RUN["u"]}).update({"u": {"b": 1.2e308}}, {})
    with pytest.raises(InputValidationError) as info:
        acc.compute()
    assert str(info.value) == _refusal("receval.metric('ndcg_rel')", "ndcg_rel")


@pytest.mark.parametrize("metric", MEASURES)
def test_gains_within_float64_are_evaluated(metric):
    # 8e307 + 8e307 + 1: within the range, a value as before
    qrels = {"u": {"a": 8e307, "b": 8e307, "c": 1.0}}
    got = rv.evaluate(qrels, RUN, [metric]).mean[metric]
    assert math.isfinite(got) and 0 < got <= 1

"""The qrels grades a ranked metric refuses are checked in one place
(:func:`receval.ranking.values.check_grades`, reached through ``check_qrels``), once per
call of every source: ``evaluate`` in memory and out of core, an accumulator's update of
whole users or of rows held."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import receval as rv
from receval.exceptions import InputValidationError
from receval.ranking import values

# u and v tie a, b (their values depend on the tie order: the ties="average" pass)
QRELS = {"u": {"a": 2, "b": 1}, "v": {"c": 1, "d": 3}, "w": {"e": 1}}
RUN = {"u": {"a": 0.5, "b": 0.5, "x": 0.1}, "v": {"c": 0.5, "d": 0.5}, "w": {"e": 0.9}}
METRICS = ["err@10", "ndcg(gains=1:1;2:3;3:7)@3", "ndcg(gain=exponential)@2", "map"]


def _counted(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Per metric, how often its grade rules were read."""
    calls: Counter[str] = Counter()
    real = values.grade_limits

    def spy(spec, conv, profile):
        calls[str(spec)] += 1
        return real(spec, conv, profile)

    monkeypatch.setattr(values, "grade_limits", spy)
    return calls


def test_evaluate_checks_the_grades_once_per_call(monkeypatch, tmp_path):
    # the ties="average" values and each batch of a scanned run computed the kernel's
    # values again, and checked the same grades again
    calls = _counted(monkeypatch)
    want = rv.evaluate(QRELS, RUN, METRICS)
    assert sum(want.n_users_tie_dependent.values())  # the tie pass ran
    assert set(calls.values()) == {1} and len(calls) == len(METRICS)
    rows = [(u, i, s) for u, items in RUN.items() for i, s in items.items()]
    path = tmp_path / "run.parquet"
    columns = {k: [r[j] for r in rows] for j, k in enumerate(("user", "item", "score"))}
    pq.write_table(pa.table(columns), path)
    calls.clear()
    got = rv.evaluate(QRELS, rv.scan(path, batch_rows=2).as_run(), METRICS)
    assert got.mean == want.mean
    assert set(calls.values()) == {1} and len(calls) == len(METRICS)


@pytest.mark.parametrize("whole_groups", [False, True])
def test_an_update_checks_its_grades_once_and_compute_again_never(monkeypatch, whole_groups):
    want = rv.evaluate({u: QRELS[u] for u in "uv"}, {u: RUN[u] for u in "uv"}, ["err@10"])
    calls = _counted(monkeypatch)
    acc = rv.metric("err@10", whole_groups=whole_groups)
    acc.update({"u": QRELS["u"]}, {"u": RUN["u"]}).update({"v": QRELS["v"]}, {"v": RUN["v"]})
    assert calls == {"err@10": 2}
    assert acc.compute() == want.mean["err@10"]
    assert calls == {"err@10": 2}


@pytest.mark.parametrize("whole_groups", [False, True])
def test_an_update_refuses_a_grade_and_names_the_accumulator(whole_groups):
    # rows held (whole_groups=False) were checked at compute only, and both named evaluate
    qrels = {"u": {"a": 5, "b": 1}}
    acc = rv.metric("err@10", whole_groups=whole_groups)
    with pytest.raises(InputValidationError) as info:
        acc.update(qrels, {"u": {"a": 1.0, "b": 0.5}})
    assert str(info.value) == (
        "Accumulator.update of 'err@10': metric 'err@10' stops the user at an item of "
        "grade g with probability (2**g - 1) / 2**4, above 1 (and ERR above 1) for a grade "
        "above 4. Got a grade of 5; Pass err(max_grade=5) or map the grades to [0, 4]."
    )
    with pytest.raises(InputValidationError, match=r"^receval.compute\('ndcg\(gains=1:1"):
        rv.compute("ndcg(gains=1:1;2:3)@3", {"u": {"a": 0.5}}, {"u": {"a": 1.0}})


def test_a_weighted_exponential_gain_refuses_grades_that_overflow():
    # the propensity-weighted NDCG computed 2**1024 - 1: a nan mean and NumPy's warnings
    qrels, run = {"u": {"a": 1024, "b": 1}}, {"u": {"a": 1.0, "b": 0.5}}
    metric = "ndcg(gain=exponential)@10"
    propensities = {"a": 0.5, "b": 0.5}
    with pytest.raises(InputValidationError) as info:
        rv.evaluate(qrels, run, [metric], propensities=propensities)
    assert str(info.value) == (
        f"evaluate: metric {metric!r} uses gain='exponential' (2**grade - 1), which "
        f"overflows float64 for grades >= 1024. Got a grade of 1024; use gain='linear' or "
        f"map the grades to a smaller range."
    )
    qrels["u"]["a"] = 10
    assert rv.evaluate(qrels, run, [metric], propensities=propensities).mean[metric] > 0


class _CountingNumpy:
    """numpy, with a count of the calls of ``floor``, ``max`` and ``min``."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()

    def __getattr__(self, name: str):
        real = getattr(np, name)
        if name not in ("floor", "max", "min"):
            return real

        def counted(*args, **kwargs):
            self.calls[name] += 1
            return real(*args, **kwargs)

        return counted


def test_the_grade_rules_of_many_metrics_read_the_grades_once(monkeypatch):
    # each metric's rule took the grades' maximum and their integer mask again: the peer
    # and overflow rules of both ndcg, and err's stop rule
    spy = _CountingNumpy()
    monkeypatch.setattr(values, "np", spy)
    rv.evaluate(QRELS, RUN, ["ndcg@5", "ndcg@10", "err@10"], profile="xgboost")
    assert spy.calls == {"floor": 1, "max": 1, "min": 1}
    spy.calls.clear()
    with pytest.raises(InputValidationError, match=r"Got grades \[32\]"):
        rv.evaluate({"u": {"a": 32}}, RUN, ["ndcg@5", "ndcg@10"], profile="xgboost")
    assert spy.calls["floor"] == 1


def test_err_of_a_max_grade_past_1023_stops_as_its_fraction_says():
    # (2**g - 1) / 2**max_grade was inf / inf past max_grade 1023: a nan mean
    from fractions import Fraction

    def stop(g: int, top: int) -> Fraction:
        return Fraction(2**g - 1, 2**top)

    qrels, run = {"u": {"a": 1099, "b": 1100}}, {"u": {"a": 2.0, "b": 1.0}}
    exact = stop(1099, 1100) + (1 - stop(1099, 1100)) * stop(1100, 1100) / 2
    got = rv.evaluate(qrels, run, ["err(max_grade=1100)@2"]).mean["err(max_grade=1100)@2"]
    assert got == float(exact) == 0.75
    # below the limit, the same floats as before: (2**g - 1) / 2**max_grade
    got = rv.evaluate({"u": {"a": 3}}, {"u": {"a": 1.0}}, ["err(max_grade=1000)@1"]).mean
    assert got["err(max_grade=1000)@1"] == (2.0**3 - 1) / 2.0**1000


def test_a_gains_table_refuses_grades_past_its_levels():
    # trec_eval's table holds a level for each integer from 0 to the largest grade, built
    # for each user: a grade of 1e12 asked the core for 1e12 levels (the process aborted)
    metric = "ndcg(gains=1:1;2:3)@2"
    with pytest.raises(InputValidationError) as info:
        rv.evaluate({"u": {"a": 1e12, "b": 1}}, {"u": {"a": 2.0, "b": 1.0}}, [metric])
    assert str(info.value) == (
        f"evaluate: metric '{metric}' gains by a table of integer grades (gains=) with a "
        "level for each integer from 0 to the largest grade, below 65,536. Got a grade of "
        "1e+12; map the grades to a smaller range (a grade not in gains= is its own gain)."
    )
    got = rv.evaluate({"u": {"a": 65535, "b": 1}}, {"u": {"a": 2.0, "b": 1.0}}, [metric])
    assert got.mean[metric] == 1.0

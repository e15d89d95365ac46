"""receval.gate on geometric means over users (gm_map): paired tests of the users'
logarithms, with relative margins mapped exactly onto them."""

from __future__ import annotations

import math

import numpy as np
import pyarrow as pa
import pytest
from scipy import stats

import receval as rv
from receval.exceptions import InvalidParameterError

FAST = {"n_permutations": 1000, "n_resamples": 200, "interval": "percentile"}


def _ranked(base_ranks: np.ndarray, cand_ranks: np.ndarray):
    """Qrels with one relevant item (0) per user, and a baseline and a candidate run
    that rank it at each user's rank (0: not retrieved, below 3 other items): each
    user's average precision is 1 / rank (0 where not retrieved)."""
    n = len(base_ranks)
    qrels = pa.table({"user": np.arange(n), "item": np.zeros(n, dtype=np.int64),
                      "grade": np.ones(n, dtype=np.int64)})  # fmt: skip

    def run(ranks: np.ndarray) -> pa.Table:
        length = np.where(ranks > 0, ranks, 3)
        pos = np.concatenate([np.arange(r) for r in length])
        relevant = pos == np.repeat(ranks, length) - 1
        return pa.table({"user": np.repeat(np.arange(n), length),
                         "item": np.where(relevant, 0, pos + 1),
                         "score": -pos.astype(np.float64)})  # fmt: skip

    return qrels, run(base_ranks), run(cand_ranks)


def _moved(n: int, worse: float, better: float, seed: int = 0):
    """Baseline ranks 1 to 3; the candidate's one lower for a share ``worse`` of the
    users, one higher (from 2 or 3) for a share ``better`` of them."""
    rng = np.random.default_rng(seed)
    base = rng.integers(1, 4, n)
    u = rng.random(n)
    cand = base + (u < worse) - ((u > 1 - better) & (base > 1))
    return base, cand


def _gm_ratio(base: np.ndarray, cand: np.ndarray) -> float:
    """The oracle: the ratio of the geometric means of the users' 1 / rank."""
    return math.exp(np.mean(np.log(base / cand)))


def test_a_3_percent_drop_fails_at_a_1_percent_margin_and_passes_at_5_percent():
    base, cand = _moved(2000, worse=0.1, better=0.06)
    assert 0.965 < _gm_ratio(base, cand) < 0.975  # the geometric mean drops by 3 %
    qrels, b, c = _ranked(base, cand)
    rules = [{"metric": "gm_map", "rule": "non_inferiority", "margin": d, "relative": True}
             for d in (0.01, 0.05)]  # fmt: skip
    report = rv.gate({"new": c}, {"main": b}, rules, qrels=qrels, **FAST)
    tight, loose = report.rows
    assert (tight.verdict, loose.verdict) == ("fail", "pass")
    assert tight.margin == pytest.approx(-math.log(0.99), rel=1e-15)
    assert loose.margin == pytest.approx(-math.log(0.95), rel=1e-15)
    assert loose.reason.startswith("significantly above the margin")
    assert any(n.startswith("Geometric means over users (gm_map) are tested by the users' "
                            "logarithms") for n in report.notes())  # fmt: skip


def test_the_difference_is_the_log_of_the_ratio_of_the_geometric_means():
    base, cand = _moved(500, worse=0.2, better=0.1, seed=1)
    qrels, b, c = _ranked(base, cand)
    report = rv.gate({"new": c}, {"main": b}, [{"metric": "gm_map", "rule": "non_inferiority"}],
                     qrels=qrels, **FAST)  # fmt: skip
    (row,) = report.rows
    assert row.candidate_value == pytest.approx(1 / math.exp(np.mean(np.log(cand))), rel=1e-12)
    assert row.baseline_value == pytest.approx(1 / math.exp(np.mean(np.log(base))), rel=1e-12)
    assert abs(row.difference - math.log(row.candidate_value / row.baseline_value)) < 1e-12
    assert row.margin == 0.0 and row.n_users == 500


def test_a_10_percent_gain_passes_superiority_at_a_2_percent_margin():
    base, cand = _moved(2000, worse=0.0, better=0.26, seed=2)
    assert 1.08 < _gm_ratio(base, cand) < 1.12
    qrels, b, c = _ranked(base, cand)
    rules = [{"metric": "gm_map", "rule": "superiority", "margin": m, "relative": True}
             for m in (0.02, 0.2)]  # fmt: skip
    report = rv.gate({"new": c}, {"main": b}, rules, qrels=qrels, **FAST)
    gain, too_much = report.rows
    assert (gain.verdict, too_much.verdict) == ("pass", "fail")
    assert gain.margin == pytest.approx(math.log1p(0.02), rel=1e-15)


@pytest.mark.parametrize("kind", ["non_inferiority", "superiority"])
def test_student_p_values_are_scipys_paired_t_test_of_the_logarithms(kind):
    """An oracle: SciPy's ttest_rel on the users' log average precisions, floored at
    trec_eval's 1e-5 (users whose item is not retrieved, average precision 0),
    shifted by the margin's logarithm."""
    base, cand = _moved(300, worse=0.15, better=0.1, seed=3)
    cand[:4] = 0  # not retrieved
    qrels, b, c = _ranked(base, cand)
    log_b = np.log(1.0 / base)
    log_c = np.log(np.maximum(np.divide(1.0, cand, where=cand > 0, out=np.zeros(300)), 1e-5))
    d = 0.04
    rule = {"metric": "gm_map", "rule": kind, "margin": d, "relative": True}
    report = rv.gate({"new": c}, {"main": b}, [rule], qrels=qrels, test="student", **FAST)
    (row,) = report.rows
    if kind == "non_inferiority":  # H1: log(GM_c / GM_b) < log(1 - d)
        expected = stats.ttest_rel(log_c - math.log(1 - d), log_b, alternative="less")
    else:  # H1: log(GM_c / GM_b) > log(1 + d)
        expected = stats.ttest_rel(log_c - math.log(1 + d), log_b, alternative="greater")
    assert row.p_value == pytest.approx(expected.pvalue, rel=1e-9)
    assert row.difference == pytest.approx(np.mean(log_c - log_b), rel=1e-12)


@pytest.mark.parametrize("kind", ["non_inferiority", "superiority"])
def test_a_margin_in_the_metrics_units_is_refused_naming_the_fix(kind):
    qrels, b, c = _ranked(np.array([1, 2]), np.array([2, 1]))
    with pytest.raises(InvalidParameterError) as info:
        rv.gate({"new": c}, {"main": b}, [{"metric": "gm_map", "rule": kind, "margin": 0.01}],
                qrels=qrels)  # fmt: skip
    assert str(info.value) == (
        f"rules[0].relative must be true with a margin above 0 on 'gm_map', a geometric mean "
        f"over users: its {kind} rule tests the users' logarithms, where a margin in the "
        f"metric's units has no exact form. Got False instead; give the margin as relative = "
        f"true, a share of the baseline's geometric mean (margin = 0.02: 2 %)."
    )


def test_a_relative_non_inferiority_margin_of_1_is_refused():
    qrels, b, c = _ranked(np.array([1, 2]), np.array([2, 1]))
    rules = [{"metric": "gm_bpref", "rule": "non_inferiority", "margin": 1, "relative": True}]
    with pytest.raises(InvalidParameterError) as info:
        rv.gate({"new": c}, {"main": b}, rules, qrels=qrels)
    assert str(info.value) == (
        "rules[0].margin must be below 1 in a non_inferiority rule on 'gm_bpref' with "
        "relative = true (a share of the baseline's geometric mean, which a share of 1 "
        "would let fall to 0). Got 1 instead; e.g. margin = 0.05 for 5 %."
    )


def test_the_rows_carry_the_geometric_means_and_the_notes_read_no_registry(monkeypatch):
    # the notes looked each compared metric up in the registry again to find the
    # geometric means, which the decision had already found
    import receval.registry
    from receval.gating import report as gate_report

    base, cand = _moved(200, worse=0.1, better=0.1, seed=2)
    qrels, b, c = _ranked(base, cand)
    rules = [{"metric": m, "rule": "non_inferiority"} for m in ("gm_map", "map")]
    rules.append({"metric": "gm_map", "rule": "floor", "threshold": 0.1})
    report = rv.gate({"new": c}, {"main": b}, rules, qrels=qrels, **FAST)
    assert [(r.metric, r.geometric) for r in report.rows] == [
        ("gm_map", True), ("map", False), ("gm_map", True)]  # fmt: skip
    assert [r["geometric"] for r in report.records()] == [True, False, True]

    def refused(*args, **kwargs):
        raise AssertionError("the notes looked a metric up in the registry")

    monkeypatch.setattr(receval.registry, "resolve", refused)
    monkeypatch.setattr(gate_report, "resolve", refused, raising=False)
    notes = report.notes()
    assert sum(n.startswith("Geometric means over users (gm_map) are") for n in notes) == 1

"""pROC's own test values (tests/testthat of pROC, kept as data in data/proc.json
with their source): DeLong's interval of one AUC, DeLong's paired test of two
(statistic, p-values of the three alternatives, interval of the difference), the
AUC and McClish's standardised partial AUC, on pROC's aSAH data."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import receval as rv

DATA = json.loads((Path(__file__).parent / "data" / "proc.json").read_text())
ASAH = {k: np.asarray(v) for k, v in DATA["aSAH"].items()}
# pROC's roc(aSAH$outcome, x): levels Good (controls) < Poor (cases)
Y = (ASAH["outcome"] == "Poor").astype(int)
# pROC's expect_equal: relative tolerance 1.5e-8; the values are printed to 15 digits
REL = 1e-12


def test_the_data_is_pROCs():
    assert len(Y) == 113 and Y.sum() == 41


def test_auc_and_partial_auc():
    for name, value in DATA["auc"].items():
        assert rv.roc_auc_score(Y, ASAH[name]) == pytest.approx(value, rel=REL)
    for case in DATA["partial_auc_correct"]:
        got = rv.partial_auc(Y, ASAH[case["predictor"]], max_fpr=case["max_fpr"])
        assert got == pytest.approx(case["value"], rel=REL)


@pytest.mark.parametrize("case", DATA["ci_auc_delong"], ids=lambda c: str(c["subset"]))
def test_delong_interval_of_one_auc(case):
    rows = slice(None) if case["subset"] is None else ASAH["gender"] == case["subset"]
    low, auc, high = case["value"]
    got = rv.roc_auc_ci(Y[rows], ASAH[case["predictor"]][rows], method="delong")
    # the subset's values are printed to 10 digits in pROC's test
    rel = REL if case["subset"] is None else 1e-9
    assert (got.low, got.auc, got.high) == pytest.approx((low, auc, high), rel=rel)


@pytest.mark.parametrize(
    "case", DATA["roc_test_delong_paired"], ids=lambda c: f"{c['a']}-{c['b']}-{c['alternative']}"
)
def test_delong_paired_test(case):
    alternative = {"two.sided": "two-sided"}.get(case["alternative"], case["alternative"])
    got = rv.delong_test(Y, ASAH[case["a"]], ASAH[case["b"]], alternative=alternative)
    assert got.statistic == pytest.approx(case["statistic"], rel=REL, abs=1e-15)
    assert got.pvalue == pytest.approx(case["p_value"], rel=REL)
    if "conf_int" in case:
        assert (got.low, got.high) == pytest.approx(case["conf_int"], rel=REL)
    # reversed curves: the same two-sided p, the opposite statistic (pROC's test)
    back = rv.delong_test(Y, ASAH[case["b"]], ASAH[case["a"]], alternative="two-sided")
    assert back.statistic == pytest.approx(-case["statistic"], rel=REL, abs=1e-15)

"""The gate's numbers against the paired statistics of each rule's per-user differences
computed alone: a row's interval must not depend on the other rules' users."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import receval as rv
from tests.comparison.test_compare_probe import cli_json, impression_log, unit_values


def test_gate_rows_equal_the_statistics_of_each_rule_alone():
    users, y, s1, s2, weight = impression_log()
    rules = [{"metric": "gauc", "rule": "non_inferiority", "margin": 0.01},
             {"metric": "log_loss", "rule": "superiority", "margin": 0.002}]  # fmt: skip
    report = rv.gate({"a": s1}, {"b": s2}, rules, y_true=y, groups=users, sample_weight=weight,
                     correction=None, n_permutations=999, n_resamples=999, seed=5)  # fmt: skip
    for row, rule, sign in zip(report.rows, rules, (1.0, -1.0), strict=True):
        va, w = unit_values(users, y, s1, rule["metric"], weight)
        vb, _ = unit_values(users, y, s2, rule["metric"], weight)
        d = va - vb
        lower = rule["rule"] == "non_inferiority"
        shifted = sign * d + (rule["margin"] if lower else -rule["margin"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = [
                rv.paired_pvalues(shifted, w, alternative="less" if lower else "greater",
                                  n_permutations=999, seed=5),
                *rv.bootstrap_intervals(d, w, confidence=0.9, n_resamples=999, seed=5),
                rv.effect_sizes(d, w),
            ]  # fmt: skip
        ok = ~np.isnan(d)
        got = [row.p_value, row.ci_low, row.ci_high, row.effect_size]
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=0)
        assert row.difference == pytest.approx(np.sum(d[ok] * w[ok]) / np.sum(w[ok]), rel=1e-13)
        assert row.n_users == ok.sum()


@pytest.mark.parametrize("exponent", [1000, -40])
def test_gate_at_weights_times_a_power_of_two_gives_the_same_rows(exponent):
    """Squares of weights near 1e301 overflowed the standard error: the minimum
    detectable effect was inf and a detectable non-regression "inconclusive"."""
    users, y, s1, s2, weight = impression_log()
    # b is worse than a by about the margins, within the noise: "pass" on the power
    rules = [{"metric": "gauc", "rule": "non_inferiority", "margin": 0.15},
             {"metric": "log_loss", "rule": "non_inferiority", "margin": 0.1},
             {"metric": "gauc", "rule": "superiority"}]  # fmt: skip
    rows = [
        rv.gate({"b": s2}, {"a": s1}, rules, y_true=y, groups=users, sample_weight=w,
                n_permutations=999, n_resamples=999, seed=5).rows
        for w in (weight, np.ldexp(weight, exponent))
    ]  # fmt: skip
    assert [r.verdict for r in rows[0]] == ["pass", "pass", "fail"]
    assert "detects" in rows[0][0].reason
    assert rows[1] == rows[0]


def test_gate_json_of_the_command_line_equals_the_api(tmp_path, monkeypatch):
    """``receval gate -f json`` writes the API's numbers at full precision."""
    got = cli_json(tmp_path, monkeypatch, "gate", "--candidate", "a", "--baseline", "b",
                   "--rule", "gauc=non_inferiority:0.01", "--rule", "log_loss=superiority:0.002",
                   "--rule", "gauc=floor:0.5")  # fmt: skip
    users, y, s1, s2, weight = impression_log()
    rules = [{"metric": "gauc", "rule": "non_inferiority", "margin": 0.01},
             {"metric": "log_loss", "rule": "superiority", "margin": 0.002},
             {"metric": "gauc", "rule": "floor", "threshold": 0.5}]  # fmt: skip
    api = rv.gate({"a": s1}, {"b": s2}, rules, y_true=y, groups=users, sample_weight=weight,
                  n_permutations=999, n_resamples=999, seed=5)  # fmt: skip
    nan_as_none = [{k: None if x != x else x for k, x in r.items()} for r in api.records()]
    assert got["rows"] == nan_as_none


@pytest.mark.parametrize("test", ["randomization", "student", "wilcoxon"])
def test_gate_of_identical_runs_and_of_one_user(test):
    """Identical models: every difference 0, the minimum detectable effect 0, the
    one-sided p-value 1.0 (0.5 for the t-test, t read as 0); one user: no variance,
    so the minimum detectable effect is infinite and a non-inferiority row inconclusive."""
    users, y, s1, s2, _ = impression_log()
    auc = "gauc(weighting=uniform)"  # every user weighs 1: every test applies
    rules = [{"metric": auc, "rule": "non_inferiority", "margin": 0.0},
             {"metric": auc, "rule": "non_inferiority", "margin": 0.01},
             {"metric": auc, "rule": "superiority"}]  # fmt: skip
    same = rv.gate({"a": s1}, {"b": s1}, rules, y_true=y, groups=users, test=test,
                   n_permutations=99, n_resamples=99).rows  # fmt: skip
    assert [r.verdict for r in same] == ["pass", "pass", "fail"]
    null = 0.5 if test == "student" else 1.0
    assert [r.p_value for r in same][::2] == [null, null]
    for r in same:
        assert (r.difference, r.ci_low, r.ci_high, r.effect_size, r.mde) == (0, 0, 0, 0, 0)
        assert (r.ties, r.n_users, r.n_users_skipped) == (38, 38, 2)  # 2 of one class
    one = users == users[y == 1][0]  # a user of both classes
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the rows say it; no warning
        alone = rv.gate({"a": s1[one]}, {"b": s2[one]}, rules, y_true=y[one], groups=users[one],
                        test=test, n_permutations=99, n_resamples=99).rows  # fmt: skip
    assert [r.verdict for r in alone] == ["inconclusive", "inconclusive", "fail"]
    d = alone[0].difference
    for r in alone:
        assert r.n_users == 1 and r.mde == np.inf and np.isnan(r.effect_size)
        assert r.ci_low == r.ci_high == r.difference == d

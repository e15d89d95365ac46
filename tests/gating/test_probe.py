"""The gate's numbers against the paired statistics of each rule's per-user differences
computed alone: a row's interval must not depend on the other rules' users."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import receval as rv
from tests.comparison.test_compare_probe import impression_log, unit_values


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

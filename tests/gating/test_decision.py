"""receval.gate: simulations of its decisions, the statistics it reuses, its errors."""

from __future__ import annotations

import json
import math

import numpy as np
import pyarrow as pa
import pytest

import receval as rv
from receval.exceptions import InputValidationError, InvalidParameterError
from receval.gating.rules import as_rules
from receval.report.tables import format_p_value

FAST = {"n_permutations": 1000, "n_resamples": 200, "interval": "percentile"}


# ------------------------------------------------------------------ simulated runs
def _swapped_runs(n_users: int, n_candidates: int, seed: int):
    """Qrels with two relevant items per user; a baseline with one of them in its top 2
    (cg@2 = 1 for every user); candidates that put both (cg@2 = 2) or neither (0) in their
    top 2, each with probability 1/2, independently per user and candidate: every
    candidate equals the baseline in expectation, its per-user differences +1 or -1."""
    rng = np.random.default_rng(seed)
    users = np.repeat(np.arange(n_users), 2)
    qrels = pa.table({"user": users, "item": np.tile([0, 1], n_users),
                      "grade": np.ones(2 * n_users, dtype=np.int64)})  # fmt: skip
    u4 = np.repeat(np.arange(n_users), 4)
    score = np.tile([4.0, 3.0, 2.0, 1.0], n_users)
    base = pa.table({"user": u4, "item": np.tile([0, 2, 1, 3], n_users), "score": score})
    both, neither = np.tile([0, 1, 2, 3], n_users), np.tile([2, 3, 0, 1], n_users)
    up = rng.random((n_candidates, n_users)) < 0.5
    candidates = {
        f"c{i}": pa.table({"user": u4, "item": np.where(np.repeat(up[i], 4), both, neither),
                           "score": score})
        for i in range(n_candidates)
    }  # fmt: skip
    return qrels, base, candidates


def test_equal_candidates_fail_at_most_alpha_of_the_time():
    """1,000 candidates equal to the baseline in expectation, each its own independent
    draw: at margin 0 (the boundary of the hypothesis) the one-sided test fails a
    fraction alpha of them, within Monte Carlo error; with a margin the sample can
    detect, they pass, and fail at most alpha of the time."""
    n = 1000
    qrels, base, candidates = _swapped_runs(400, n, seed=7)
    rules = [{"metric": "cg@2", "rule": "non_inferiority", "margin": 0.0},
             {"metric": "cg@2", "rule": "non_inferiority", "margin": 0.15}]  # fmt: skip
    report = rv.gate(candidates, {"main": base}, rules, qrels=qrels, correction=None, **FAST)
    alpha, error = 0.05, 3 * math.sqrt(0.05 * 0.95 / n)
    at_zero = [r for r in report.rows if r.margin == 0.0]
    with_margin = [r for r in report.rows if r.margin == 0.15]
    assert len(at_zero) == len(with_margin) == n
    fails = np.mean([r.verdict == "fail" for r in at_zero])
    assert abs(fails - alpha) <= error, fails
    # no margin: nothing can show that no regression went unseen, unless a gain is shown
    assert {r.verdict for r in at_zero} == {"fail", "inconclusive", "pass"}
    assert all(r.difference > 0 for r in at_zero if r.verdict == "pass")  # a gain shown
    fails = np.mean([r.verdict == "fail" for r in with_margin])
    assert fails <= alpha + error
    passes = np.mean([r.verdict == "pass" for r in with_margin])
    assert passes >= 1 - alpha  # 400 users detect 0.15: MDE = 2.49 / sqrt(400) = 0.12
    assert all(r.mde < 0.15 for r in with_margin)


def _impressions(n_users: int = 300, per_user: int = 10, seed: int = 0):
    rng = np.random.default_rng(seed)
    users = np.repeat(np.arange(n_users), per_user)
    clicks = (rng.random(users.size) < 0.3).astype(np.int8)
    noise = rng.standard_normal((3, users.size))
    good = np.clip(0.3 + 0.3 * (clicks - 0.3) + 0.1 * noise[0], 0.01, 0.99)
    return users, clicks, good, noise


def test_degraded_candidate_fails_and_better_candidate_passes():
    users, clicks, good, noise = _impressions()
    degraded = np.clip(good + 0.3 * noise[1], 0.01, 0.99)
    rules = [{"metric": "gauc", "rule": "non_inferiority", "margin": 0.01},
             {"metric": "log_loss", "rule": "non_inferiority", "margin": 0.01},
             {"metric": "roc_auc", "rule": "non_inferiority", "margin": 0.01}]  # fmt: skip
    worse = rv.gate({"new": degraded}, {"main": good}, rules, y_true=clicks, groups=users, **FAST)
    assert not worse.passed
    assert [r.verdict for r in worse.rows] == ["fail"] * 3
    assert all(r.difference < -0.01 if r.metric != "log_loss" else r.difference > 0.01
               for r in worse.rows)  # fmt: skip
    better = rv.gate({"new": good}, {"main": degraded}, [
        *rules, {"metric": "gauc", "rule": "superiority", "margin": 0.05}],
        y_true=clicks, groups=users, **FAST)  # fmt: skip
    assert better.passed
    assert [r.verdict for r in better.rows] == ["pass"] * 4
    gauc = better.rows[0]
    assert gauc.wins > gauc.losses and gauc.wins + gauc.ties + gauc.losses == gauc.n_users
    assert gauc.ci_low > 0 and gauc.effect_size > 0


def test_too_small_a_sample_is_inconclusive_never_a_silent_pass():
    users, clicks, good, noise = _impressions(n_users=6)
    close = np.clip(good + 0.05 * noise[1], 0.01, 0.99)
    rules = [{"metric": "log_loss", "rule": "non_inferiority", "margin": 0.001}]
    report = rv.gate({"new": close}, {"main": good}, rules, y_true=clicks, groups=users, **FAST)
    (row,) = report.rows
    assert row.verdict == "inconclusive" and not report.passed
    assert row.mde > row.margin
    assert "sample too small" in row.reason and "minimum detectable effect" in row.reason
    assert "inconclusive" in report.to_markdown()
    lenient = rv.gate({"new": close}, {"main": good}, rules, y_true=clicks, groups=users,
                      inconclusive="pass", **FAST)  # fmt: skip
    assert lenient.passed and lenient.rows[0].verdict == "inconclusive"


def test_few_users_for_the_randomization_test_give_an_infinite_mde():
    users, clicks, good, _noise = _impressions(n_users=3)
    report = rv.gate({"new": good + 0.001}, {"main": good},
                     [{"metric": "log_loss", "rule": "non_inferiority", "margin": 0.5}],
                     y_true=clicks, groups=users, **FAST)  # fmt: skip
    # 3 users: the test's smallest one-sided p-value is 0.125, above alpha
    assert report.rows[0].mde == math.inf and report.rows[0].verdict == "inconclusive"


def test_floor_ceiling_and_relative_margin():
    users, clicks, good, _noise = _impressions()
    report = rv.gate({"new": good}, {"main": good}, [
        {"metric": "gauc", "rule": "floor", "threshold": 0.99},
        {"metric": "log_loss", "rule": "ceiling", "threshold": 1.0},
        {"metric": "log_loss", "rule": "non_inferiority", "margin": 0.1, "relative": True},
    ], y_true=clicks, groups=users, **FAST)  # fmt: skip
    by_kind = {r.kind: r for r in report.rows}
    assert by_kind["floor"].verdict == "fail" and by_kind["ceiling"].verdict == "pass"
    assert by_kind["floor"].baseline is None and math.isnan(by_kind["floor"].p_value)
    ni = by_kind["non_inferiority"]
    assert ni.margin == pytest.approx(0.1 * ni.baseline_value)
    assert not report.passed


def test_bounds_on_metrics_that_are_no_mean_over_users_use_their_function():
    # pcoc, ece, copc: one number per model, no per-user values; a floor or a ceiling
    # compares it with the threshold and pairs nothing, so no baseline is needed
    users, clicks, good, _noise = _impressions()
    pcoc = rv.pcoc(clicks, good)
    ece = rv.expected_calibration_error(clicks, good)
    for threshold, verdict in ((pcoc + 0.01, "pass"), (pcoc - 0.01, "fail")):
        report = rv.gate(
            {"new": good},
            {},
            [{"metric": "pcoc", "rule": "ceiling", "threshold": threshold}],
            y_true=clicks,
        )
        (row,) = report.rows
        assert (row.kind, row.candidate_value, row.verdict) == ("ceiling", pcoc, verdict)
        assert report.passed is (verdict == "pass")
    report = rv.gate({"new": good}, {"main": good}, [
        {"metric": "ece", "rule": "ceiling", "threshold": 0.05},
        {"metric": "copc", "rule": "floor", "threshold": 0.5},
        {"metric": "log_loss", "rule": "non_inferiority", "margin": 0.01},
    ], y_true=clicks, groups=users, **FAST)  # fmt: skip
    paired, ece_row, copc_row = report.rows  # the comparisons first, then the bounds
    assert (ece_row.metric, ece_row.candidate_value) == ("ece", ece)
    assert ece_row.verdict == ("pass" if ece <= 0.05 else "fail")
    assert copc_row.candidate_value == rv.copc(clicks, good)
    assert paired.kind == "non_inferiority"  # a paired rule beside them is tested as before
    # weighted roc_auc: DeLong's test takes no weights, a floor bounds the weighted AUC
    w = np.where(users % 2, 1.0, 2.0)
    report = rv.gate({"new": good}, {}, [{"metric": "roc_auc", "rule": "floor", "threshold": 0.5}],
                     y_true=clicks, sample_weight=w)  # fmt: skip
    assert report.rows[0].candidate_value == rv.roc_auc_score(clicks, good, sample_weight=w)


@pytest.mark.parametrize("kind", ["non_inferiority", "superiority"])
def test_paired_rules_on_metrics_that_are_no_mean_over_users_are_refused(kind):
    users, clicks, good, _noise = _impressions(n_users=20)
    with pytest.raises(InvalidParameterError) as info:
        rv.gate({"new": good}, {"main": good}, [
            {"metric": "pcoc", "rule": "ceiling", "threshold": 1.1},
            {"metric": "pcoc", "rule": kind}], y_true=clicks, groups=users)  # fmt: skip
    assert str(info.value) == (
        f"gate: 'pcoc' is not a mean over users, so the gate cannot pair it user by user, "
        f"which a {kind} rule does. Got rule={kind!r} on 'pcoc'; bound it with a floor or "
        f"ceiling rule (its value against a threshold), put the {kind} rule on 'gauc', "
        f"'log_loss' or 'roc_auc' (DeLong), or use receval.compare_predictions for its "
        f"recomputed test."
    )


@pytest.mark.parametrize("kind", ["non_inferiority", "superiority"])
def test_paired_rules_on_ranking_metrics_summed_over_users_are_refused(kind):
    # the gate tests the mean per-user difference: of a sum over users (trec_eval's
    # num_rel_ret) it tests another number, and a relative margin of the baseline's sum
    # (928 relevant items retrieved) would be a margin of 46 items per user: a
    # regression of a third passed as "significantly above" it (a geometric mean is
    # tested by its logarithms: tests/gating/test_geometric.py)
    metric = "num_rel_ret@2"
    qrels, base, candidates = _swapped_runs(40, 1, seed=3)
    with pytest.raises(InvalidParameterError) as info:
        rv.gate(candidates, {"main": base}, [{"metric": metric, "rule": kind, "margin": 0.05,
                "relative": True}], qrels=qrels, **FAST)  # fmt: skip
    assert str(info.value) == (
        f"gate: {metric!r} is a sum over users, not a mean, so the gate's paired test "
        f"of the mean per-user difference does not test it, which a {kind} rule needs. Got "
        f"rule={kind!r} on {metric!r}; bound it with a floor or ceiling rule (its value "
        f"against a threshold), or put the {kind} rule on a metric that is a mean over users."
    )
    # a bound compares the metric's own value with its threshold
    for bounded in (metric, "gm_map"):
        floor = {"metric": bounded, "rule": "floor", "threshold": 0.0}
        (row,) = rv.gate(candidates, {}, [floor], qrels=qrels).rows
        expected = rv.evaluate(qrels, candidates["c0"], [bounded]).mean[bounded]
        assert (row.candidate_value, row.verdict) == (expected, "pass")


def test_gauc_difference_is_compares_and_roc_auc_delongs_one_sided_test():
    """Margin 0: the gate's gauc difference is compare_predictions', its roc_auc p-value
    DeLong's one-sided one."""
    users, clicks, good, noise = _impressions()
    other = np.clip(good + 0.05 * noise[1] - 0.01, 0.01, 0.99)
    rules = [{"metric": "gauc", "rule": "non_inferiority"},
             {"metric": "roc_auc", "rule": "non_inferiority"}]  # fmt: skip
    report = rv.gate({"new": other}, {"main": good}, rules, y_true=clicks, groups=users,
                     correction=None, **FAST)  # fmt: skip
    compared = rv.compare_predictions(clicks, {"new": other, "main": good}, groups=users,
                                      metrics=["gauc"], baseline="main", correction=None,
                                      n_permutations=1000, interval=None)  # fmt: skip
    gauc, auc = report.rows
    assert gauc.difference == pytest.approx(float(compared.comparisons["difference"][0]))
    assert gauc.difference < 0 and gauc.p_value == 1 / 1001  # the floor: see below
    delong = rv.delong_test(clicks, other, good, alternative="less")
    assert auc.p_value == pytest.approx(delong.pvalue)
    assert auc.wins is None and math.isnan(auc.effect_size)


def _mrr_gains():
    """qrels, candidate and baseline runs of 47 users whose per-user mrr gains are -1/6
    (u0 to u39) and 1 (u40 to u46), in ascending order of the ids (u0, u1, u10, ...), the
    order of the paired tests' rows: the mean gains, the signed ranks lose."""
    qrels = {f"u{i}": {"r": 1} for i in range(47)}
    cand = {f"u{i}": ({"x": 3, "y": 2, "r": 1} if i < 40 else {"r": 3}) for i in range(47)}
    base = {f"u{i}": ({"x": 3, "r": 2} if i < 40 else {"x": 3}) for i in range(47)}
    gains = [-1.0 / 6.0 if int(u[1:]) < 40 else 1.0 for u in sorted(qrels)]
    return qrels, cand, base, np.array(gains)


@pytest.mark.parametrize("test", ["randomization", "student", "wilcoxon"])
def test_p_values_are_each_tests_one_sided_test(test):
    """The gate's p-value is the test's own one-sided p-value of the shifted gains (SciPy's
    for Student and Wilcoxon; the randomization test's counts the sign vectors on the
    alternative's side of the observed sum, from one set of draws)."""
    from scipy import stats

    qrels, cand, base, d = _mrr_gains()
    rules = [{"metric": "mrr", "rule": "superiority", "margin": 0.01},
             {"metric": "mrr", "rule": "non_inferiority", "margin": 0.01}]  # fmt: skip
    sup, non = rv.gate({"new": cand}, {"main": base}, rules, qrels=qrels, test=test,
                       correction=None, **FAST).rows  # fmt: skip
    up, down = d - 0.01, d + 0.01  # H1: mean gain > 0.01; H1: mean gain < -0.01
    if test == "randomization":
        expected = [rv.paired_pvalues(up, alternative="greater", n_permutations=1000),
                    rv.paired_pvalues(down, alternative="less", n_permutations=1000)]  # fmt: skip
    elif test == "student":
        expected = [stats.ttest_1samp(up, 0.0, alternative="greater").pvalue,
                    stats.ttest_1samp(down, 0.0, alternative="less").pvalue]  # fmt: skip
    else:
        expected = [stats.wilcoxon(up, alternative="greater").pvalue,
                    stats.wilcoxon(down, alternative="less").pvalue]  # fmt: skip
    assert sup.p_value == pytest.approx(expected[0], rel=1e-12)
    assert non.p_value == pytest.approx(expected[1], rel=1e-12)


def test_randomization_p_value_is_never_below_its_floor():
    """20 users, each 1.0 better in mrr, 100 sign vectors: no random vector reaches the
    observed sum, so p = 1 / 101 (the exact p-value is 2**-20). Halving the two-sided p gave
    1 / 202, below the floor; and at level 0.008 the test cannot reject, so the minimum
    detectable effect is infinite and identical models are inconclusive, not passed."""
    n = 20
    qrels = {f"u{i}": {"r": 1} for i in range(n)}
    better = {f"u{i}": {"r": 2} for i in range(n)}
    base = {f"u{i}": {"x": 2, "r": 1} for i in range(n)}
    small = {"n_permutations": 100, "n_resamples": 100, "interval": "percentile"}
    row = rv.gate({"new": better}, {"main": base}, [{"metric": "mrr", "rule": "superiority"}],
                  qrels=qrels, **small).rows[0]  # fmt: skip
    assert row.difference == 0.5 and row.p_value == 1 / 101
    row = rv.gate({"new": dict(base)}, {"main": base},
                  [{"metric": "mrr", "rule": "non_inferiority", "margin": 0.01}],
                  qrels=qrels, alpha=0.008, correction=None, **small).rows[0]  # fmt: skip
    assert (row.p_value, row.mde, row.verdict) == (1.0, math.inf, "inconclusive")


@pytest.mark.parametrize(("test", "p"), [("randomization", 1.0), ("student", 0.5),
                                         ("wilcoxon", 1.0)])  # fmt: skip
def test_identical_models_p_value_is_each_tests_own(test, p):
    """Every gain 0, margin 0: the statistic sits at its null center. Every sign vector and
    every signed-rank sum reach the observed one (1.0, SciPy's wilcoxon too); the t-test
    reads t = 0 (SciPy's one-sided p-value at t = 0: 0.5). Both sides alike."""
    qrels, _, base, _ = _mrr_gains()
    rules = [{"metric": "mrr", "rule": "superiority"}, {"metric": "mrr", "rule": "non_inferiority"}]
    report = rv.gate({"new": dict(base)}, {"main": base}, rules, qrels=qrels, test=test,
                     correction=None, **FAST)  # fmt: skip
    assert [r.p_value for r in report.rows] == [p, p]
    assert [r.verdict for r in report.rows] == ["fail", "pass"]


def test_correction_across_metrics_and_baselines():
    users, clicks, good, noise = _impressions()
    a = np.clip(good + 0.2 * noise[1], 0.01, 0.99)
    b = np.clip(good + 0.2 * noise[2], 0.01, 0.99)
    rules = [
        {"metric": "gauc", "rule": "superiority"},
        {"metric": "log_loss", "rule": "superiority"},
    ]
    report = rv.gate({"new": good}, {"a": a, "b": b}, rules, y_true=clicks, groups=users,
                     correction="bonferroni", **FAST)  # fmt: skip
    assert len(report.rows) == 4
    for r in report.rows:
        assert r.p_adjusted == pytest.approx(min(1.0, 4 * r.p_value))


def test_users_in_only_one_run_are_counted():
    qrels = {f"u{i}": {"a": 1} for i in range(8)}
    full = {f"u{i}": {"a": 2.0, "b": 1.0} for i in range(8)}
    part = {f"u{i}": {"a": 2.0, "b": 1.0} for i in range(5)}
    report = rv.gate({"new": part}, {"main": full},
                     [{"metric": "mrr", "rule": "non_inferiority", "margin": 0.1}],
                     qrels=qrels, missing_users="skip", **FAST)  # fmt: skip
    row = report.rows[0]
    assert row.n_users_skipped == 3 and row.n_users == 5
    assert report.runs_missing_users == {"new": 3, "main": 0}
    notes = " ".join(report.notes())
    assert "left out of the paired test, e.g. 3 of 8 for mrr" in notes and "new 3" in notes


def test_run_users_not_in_the_qrels_are_counted():
    # users a run lists but the qrels do not hold are left out of every comparison: the
    # report counts them (as receval compare notes them), never drops them silently
    qrels = {f"u{i}": {"a": 1} for i in range(8)}
    full = {f"u{i}": {"a": 2.0, "b": 1.0} for i in range(8)}
    extra = full | {f"x{i}": {"a": 2.0} for i in range(4)}
    report = rv.gate({"new": extra}, {"main": full},
                     [{"metric": "mrr", "rule": "non_inferiority", "margin": 0.1}],
                     qrels=qrels, **FAST)  # fmt: skip
    assert report.rows[0].n_users == 8
    assert report.run_only_users == {"new": 4, "main": 0}
    assert "Run users not in the qrels (ignored): new 4." in report.notes()
    assert json.loads(report.to_json())["run_only_users"] == {"new": 4, "main": 0}
    rule = [{"metric": "mrr", "rule": "superiority"}]
    plain = rv.gate({"new": full}, {"main": full}, rule, qrels=qrels, **FAST)
    assert "not in the qrels" not in " ".join(plain.notes())


def test_users_without_a_value_in_both_models_are_counted():
    # gauc: a user with one class has no AUC in any model; left out, and counted
    y = np.array([1, 0, 1, 1, 1, 1, 1, 0, 0, 1, 0, 1])
    users = np.repeat(["a", "b", "c", "d"], 3)  # b: clicks only
    rng = np.random.default_rng(0)
    new, main = rng.random(12), rng.random(12)
    report = rv.gate({"new": new}, {"main": main},
                     [{"metric": "gauc", "rule": "non_inferiority", "margin": 0.1}],
                     y_true=y, groups=users, **FAST)  # fmt: skip
    row = report.rows[0]
    assert (row.n_users, row.n_users_skipped) == (3, 1)
    assert "e.g. 1 of 4 for gauc: new vs main" in " ".join(report.notes())


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({}, InputValidationError, "pass either qrels (ranking runs) or y_true"),
        ({"qrels": {"u": {"a": 1}}, "y_true": [0, 1]}, InputValidationError, "Got both"),
        (
            {"y_true": [0, 1], "baselines": {"new": [0.1, 0.2]}},
            InputValidationError,
            "both a candidate and a baseline",
        ),
        ({"y_true": [0, 1], "rules": []}, InvalidParameterError, "at least one rule"),
        (  # one rule, not in a list: its keys are not rules
            {"y_true": [0, 1], "rules": {"metric": "log_loss", "rule": "ceiling", "threshold": 1}},
            InvalidParameterError,
            "rules must be a list of rules (GateRule objects or mappings). Got dict "
            "{'metric': 'log_loss', 'rule': 'ceiling', 'threshold': 1} instead; pass one rule "
            "as a list of one, [rule].",
        ),
        (
            {"y_true": [0, 1], "rules": "log_loss"},
            InvalidParameterError,
            "rules must be a list of rules",
        ),
        (  # a copy is one more comparison in the correction: every row loses power
            {
                "y_true": [0, 1],
                "rules": [
                    {"metric": "log_loss", "rule": "superiority"},
                    {"metric": "logloss", "rule": "floor", "threshold": 1},
                    {"metric": "log_loss", "rule": "superiority"},
                ],
            },
            InvalidParameterError,
            "rules[2] must be another rule than rules[0]. Got 'log_loss: superiority' instead; "
            "remove one: each copy would be one more comparison in the correction, lowering "
            "the power of every row.",
        ),
        (  # a bound at infinity passes or fails whatever the values
            {
                "y_true": [0, 1],
                "rules": [{"metric": "log_loss", "rule": "ceiling", "threshold": math.inf}],
            },
            InvalidParameterError,
            "rules[0].threshold must be a finite number (the ceiling of log_loss). Got inf "
            "instead.",
        ),
        (
            {"y_true": [0, 1], "rules": [{"metric": "xauc", "rule": "superiority"}]},
            InvalidParameterError,
            "'xauc' is not a mean over users",
        ),
        (
            {"y_true": [0, 1], "alpha": 0.7},
            InvalidParameterError,
            "The 'alpha' parameter of gate must be a real number in (0.0, 0.5). Got 0.7 instead.",
        ),
        (
            {"y_true": [0, 1], "rules": [{"metric": "log_loss", "rule": "better"}]},
            InvalidParameterError,
            "rules[0].rule must be one of",
        ),
        (
            {"y_true": [0, 1], "rules": [{"metric": "gauc", "rule": "superiority"}]},
            InputValidationError,
            "'gauc' needs groups",
        ),
    ],
)
def test_errors_name_the_argument(kwargs, error, message):
    args = {"candidates": {"new": [0.2, 0.7]}, "baselines": {"main": [0.3, 0.6]},
            "rules": [{"metric": "log_loss", "rule": "non_inferiority"}]} | kwargs  # fmt: skip
    with pytest.raises(error) as info:
        rv.gate(**args)
    assert message in str(info.value)


def test_unequal_weights_need_the_randomization_test():
    _users, clicks, good, _noise = _impressions()
    with pytest.raises(InvalidParameterError, match="test='student' weighs every user equally"):
        rv.gate({"new": good}, {"main": good + 0.01},
                [{"metric": "log_loss", "rule": "non_inferiority", "margin": 0.01}],
                y_true=clicks, groups=np.repeat(np.arange(200), np.tile([10, 20], 100)),
                test="student", **FAST)  # fmt: skip


def test_users_of_weight_0_leave_equal_weights_equal():
    # pooled_hit_ratio weighs users by their relevant items: 2 each, and 0 for the two
    # users without one (valued 0 under empty_users="zero"). Those are out of the test,
    # so the weights are equal and test="student" holds (it was refused as unequal
    # weights), as in the gate without them
    rng = np.random.default_rng(0)
    qrels = {f"u{i}": {"a": 1, "b": 1} for i in range(40)} | {"z0": {"a": 0}, "z1": {"a": 0}}
    cand, base = (
        {u: dict(zip("abc", rng.random(3).tolist(), strict=True)) for u in qrels} for _ in "cb"
    )
    rules = [{"metric": "pooled_hit_ratio@1", "rule": "non_inferiority", "margin": 0.01}]
    report = rv.gate({"new": cand}, {"main": base}, rules, qrels=qrels, test="student",
                     empty_users="zero", **FAST)  # fmt: skip
    kept = {u: qrels[u] for u in qrels if u[0] == "u"}
    alone = rv.gate({"new": cand}, {"main": base}, rules, qrels=kept, test="student", **FAST)
    row, expected = report.rows[0], alone.rows[0]
    assert (row.n_users, row.n_users_skipped) == (40, 2)
    assert row.p_value == pytest.approx(expected.p_value)


def test_roc_auc_rows_count_impressions_in_n_users():
    users, clicks, good, noise = _impressions()
    other = np.clip(good + 0.05 * noise[1], 0.01, 0.99)
    rules = [{"metric": "roc_auc", "rule": "non_inferiority", "margin": 0.01}]
    report = rv.gate({"new": other}, {"main": good}, rules, y_true=clicks, groups=users, **FAST)
    assert (report.rows[0].n_users, report.rows[0].n_users_skipped) == (len(clicks), 0)
    from receval.gating.report import GateRow

    assert "the rows (impressions) in DeLong's test" in " ".join(GateRow.__doc__.split())


def test_rules_as_objects_and_a_configuration_file(tmp_path):
    from receval.gating.config import load_config
    from receval.gating.rules import GateRule

    users, clicks, good, _ = _impressions()
    rules = [
        GateRule("gauc", "floor", threshold=0.5),
        GateRule("log_loss", "non_inferiority", 0.01),
    ]
    report = rv.gate({"new": good}, {"main": good}, rules, y_true=clicks, groups=users, **FAST)
    assert report.passed and [r.kind for r in report.rows] == ["non_inferiority", "floor"]
    with pytest.raises(
        InvalidParameterError, match=r"rules\[0\].threshold must be a finite number"
    ):
        rv.gate({"new": good}, {"main": good}, [GateRule("gauc", "floor")], y_true=clicks,
                groups=users)  # fmt: skip
    path = tmp_path / "receval.toml"
    path.write_text('[gate]\nalpha = 0.01\nn_permutations = 500\nn_resamples = 100\n'
                    '[[gate.rules]]\nmetric = "gauc"\nrule = "superiority"\n')  # fmt: skip
    config = load_config(path)
    report = rv.gate({"new": good}, {"main": good}, config.rules, y_true=clicks, groups=users,
                     **config.settings())  # fmt: skip
    assert report.config.alpha == 0.01 and report.config.n_permutations == 500
    assert report.rows[0].verdict == "fail"  # no gain over itself


def test_roc_auc_without_a_variance_is_inconclusive():
    """One click: DeLong's variance is undefined, so no test, no decision either way."""
    y = np.zeros(50, dtype=np.int8)
    y[3] = 1
    rng = np.random.default_rng(1)
    a, b = rng.random(50), rng.random(50)
    for margin in (0.0, 0.5):
        report = rv.gate({"new": a}, {"main": b},
                         [{"metric": "roc_auc", "rule": "non_inferiority", "margin": margin}],
                         y_true=y)  # fmt: skip
        row = report.rows[0]
        assert row.verdict == "inconclusive" and math.isnan(row.p_value), margin


def test_wilcoxon_gate_follows_the_signed_ranks():
    """7 large gains, 40 small losses: the mean gains, the signed ranks lose."""
    from scipy import stats

    qrels, cand, base, d = _mrr_gains()
    rules = [{"metric": "mrr", "rule": "superiority"},
             {"metric": "mrr", "rule": "non_inferiority", "margin": 0.01}]  # fmt: skip
    report = rv.gate({"new": cand}, {"main": base}, rules, qrels=qrels, test="wilcoxon",
                     correction=None)  # fmt: skip
    sup, non = report.rows
    assert sup.verdict == "fail"
    assert sup.p_value == pytest.approx(stats.wilcoxon(d, alternative="greater").pvalue)
    assert non.verdict == "fail"  # a significant regression beyond the margin
    assert non.p_value == pytest.approx(stats.wilcoxon(d + 0.01, alternative="less").pvalue)


@pytest.mark.parametrize("labels", [(0, 1), (-1, 1), (1, 2)])
def test_paired_log_loss_reads_labels_as_log_loss_does(labels):
    # per user, candidate - baseline is (-ln 0.8 - ln 0.6) / 2 - ln 2 and 0, weighed 2 and 1
    y = np.array([labels[1], labels[0], labels[1]])
    row = rv.gate({"a": [0.8, 0.4, 0.5]}, {"b": [0.5, 0.5, 0.5]},
                  [{"metric": "log_loss", "rule": "non_inferiority", "margin": 0.01}],
                  y_true=y, groups=["u1", "u1", "u2"], **FAST).rows[0]  # fmt: skip
    assert row.difference == pytest.approx(-np.log(1.92) / 3, rel=1e-12)
    assert row.difference == pytest.approx(row.candidate_value - row.baseline_value, rel=1e-12)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"candidates": {"new": [0.2, 0.7, 0.5]}},
            "gate: candidates['new'] must hold one score per row of y_true (4 rows). Got 3 "
            "scores for model 'new'; score every row with every model.",
        ),
        (
            {"baselines": {"main": [0.3]}},
            "gate: baselines['main'] must hold one score per row of y_true (4 rows). Got 1 "
            "score for model 'main'; score every row with every model.",
        ),
        (
            {"sample_weight": [1.0, 1.0, 1.0]},
            "gate: sample_weight must have one weight per sample. Got 3 weights for 4 samples.",
        ),
    ],
)
def test_bad_ctr_rows_are_named_as_compare_predictions_names_them(kwargs, message):
    args = {"candidates": {"new": [0.2, 0.7, 0.4, 0.6]},
            "baselines": {"main": [0.3, 0.6, 0.5, 0.5]},
            "rules": [{"metric": "log_loss", "rule": "non_inferiority", "margin": 0.01}],
            "y_true": [0, 1, 0, 1], "groups": [0, 0, 1, 1]} | kwargs  # fmt: skip
    with pytest.raises(InputValidationError) as info:
        rv.gate(**args, **FAST)
    assert str(info.value) == message


def test_string_labels_of_log_loss_are_read_as_log_loss_reads_them():
    # 'no' > 'click': 'no' is the positive label, as in log_loss
    labels = np.array(["no", "click", "no", "click"])
    new, main = [0.8, 0.4, 0.5, 0.5], [0.5, 0.5, 0.5, 0.5]
    row = rv.gate({"new": new}, {"main": main},
                  [{"metric": "log_loss", "rule": "non_inferiority", "margin": 0.01}],
                  y_true=labels, groups=[0, 0, 1, 1], **FAST).rows[0]  # fmt: skip
    assert row.candidate_value == pytest.approx(rv.log_loss(labels, new), rel=1e-12)
    assert row.difference == pytest.approx(-np.log(1.92) / 4, rel=1e-12)


def test_settings_are_checked_as_compare_checks_them():
    args = {"candidates": {"new": [0.2, 0.7, 0.4, 0.6]},
            "baselines": {"main": [0.3, 0.6, 0.5, 0.5]},
            "rules": [{"metric": "log_loss", "rule": "non_inferiority",
                       "margin": np.float32(0.25)}],
            "y_true": [0, 1, 0, 1], "n_resamples": 100}  # fmt: skip
    report = rv.gate(**args, n_permutations=np.int64(200), seed=np.int64(3), alpha=np.float64(0.1))
    config = report.config
    assert (config.n_permutations, config.seed, config.alpha) == (200, 3, 0.1)
    assert type(config.n_permutations) is int and type(config.alpha) is float
    assert report.rows[0].margin == 0.25
    for kwargs, message in [
        ({"test": None}, "The 'test' parameter of gate must be one of ['randomization', "
         "'student', 'wilcoxon']. Got None instead."),
        ({"alpha": None}, "The 'alpha' parameter of gate must be a real number. Got None instead."),
        ({"interval": None}, "The 'interval' parameter of gate must be one of ['bca', "
         "'percentile']. Got None instead."),
        ({"correction": "none"}, "The 'correction' parameter of gate must be one of ['bh', "
         "'bonferroni', 'holm', None]. Got 'none' instead."),
    ]:  # fmt: skip
        with pytest.raises(InvalidParameterError) as info:
            rv.gate(**args, **kwargs)
        assert str(info.value) == message
    with pytest.raises(InvalidParameterError, match=r"^gate: got an unknown keyword argument "
                       r"'n_permutation'; .* Did you mean 'n_permutations'\?$"):  # fmt: skip
        rv.gate(**args, n_permutation=100)
    assert rv.gate(**args, correction=None).config.correction is None


def test_the_order_of_users_and_rows_changes_no_statistic():
    # the paired rows follow the users' ids: the same data in another order, the same gate
    users, clicks, good, noise = _impressions(60)
    other = np.clip(good + 0.2 * noise[1], 0.01, 0.99)
    rules = [{"metric": "gauc", "rule": "non_inferiority", "margin": 0.01},
             {"metric": "log_loss", "rule": "superiority"}]  # fmt: skip
    shuffle = np.random.default_rng(1).permutation(users.size)
    first = rv.gate({"new": other}, {"main": good}, rules, y_true=clicks, groups=users, **FAST)
    again = rv.gate({"new": other[shuffle]}, {"main": good[shuffle]}, rules,
                    y_true=clicks[shuffle], groups=users[shuffle], **FAST)  # fmt: skip
    qrels, cand, base, _ = _mrr_gains()
    backwards = [dict(reversed(list(x.items()))) for x in (qrels, cand, base)]
    rules = [{"metric": "mrr", "rule": "non_inferiority", "margin": 0.01}]
    ranked = rv.gate({"new": cand}, {"main": base}, rules, qrels=qrels, **FAST)
    reversed_ = rv.gate({"new": backwards[1]}, {"main": backwards[2]}, rules,
                        qrels=backwards[0], **FAST)  # fmt: skip
    for a, b in [*zip(first.rows, again.rows, strict=True), (ranked.rows[0], reversed_.rows[0])]:
        assert (b.p_value, b.ci_low, b.ci_high) == pytest.approx((a.p_value, a.ci_low, a.ci_high),
                                                                 rel=1e-12)  # fmt: skip


def test_undefined_values_fail_bounds_and_leave_comparisons_inconclusive_saying_why():
    # no click at all: every user's AUC is undefined, so is the GAUC
    scores = np.random.default_rng(0).random(20)
    clicks, users = np.zeros(20, dtype=np.int8), np.repeat(np.arange(4), 5)
    rules = [{"metric": "gauc", "rule": "floor", "threshold": 0.5},
             {"metric": "gauc", "rule": "non_inferiority", "margin": 0.01}]  # fmt: skip
    report = rv.gate({"new": scores}, {"main": scores[::-1].copy()}, rules, y_true=clicks,
                     groups=users, **FAST)  # fmt: skip
    paired, bound = report.rows
    assert (bound.verdict, bound.reason) == (
        "fail",
        "value undefined (nan) for these rows, so not within the floor 0.5",
    )
    assert (paired.verdict, paired.n_users, paired.n_users_skipped) == ("inconclusive", 0, 4)
    assert paired.reason == ("no user has a value for both new and main (see n_users_skipped), "
                             "so there is nothing to test")  # fmt: skip


@pytest.mark.parametrize(
    ("rule", "candidate"),
    [("superiority", "better"), ("non_inferiority", "same")],
)
def test_a_relative_margin_of_a_baseline_of_0_fails_the_row_saying_why(rule, candidate):
    # the baseline never ranks the relevant item: mrr 0, and 10 % of 0 is no margin;
    # the rule was tested against a margin of 0 (a significant gain over 0, identical runs)
    qrels = {f"u{i}": {"a": 1, "b": 0} for i in range(30)}
    zero = {f"u{i}": {"b": 1.0} for i in range(30)}
    runs = {"better": {u: {"a": 2.0, "b": 1.0} for u in zero}, "same": zero}
    rules = [{"metric": "mrr", "rule": rule, "margin": 0.1, "relative": True},
             {"metric": "mrr", "rule": rule, "margin": 0.1}]  # fmt: skip
    report = rv.gate({"new": runs[candidate]}, {"main": zero}, rules, qrels=qrels, **FAST)
    relative, absolute = report.rows
    assert (relative.verdict, relative.baseline_value) == ("fail", 0.0) and not report.passed
    assert math.isnan(relative.margin) and math.isnan(relative.p_value)
    assert relative.reason == (
        "relative margin undefined: main's value is 0, so 10% of it is no margin to test "
        "against; give the margin in the metric's units (relative = false)"
    )
    assert absolute.verdict == "pass" and absolute.margin == 0.1


@pytest.mark.parametrize(
    ("first", "again", "canonical"),
    [
        ("log_loss", "logloss", "log_loss"),
        ("ndcg@10", "ndcg_cut_10", "ndcg@10"),
        ("auc", "roc_auc", "roc_auc"),
    ],
)
def test_a_rule_repeated_under_another_spelling_of_its_metric_is_refused(first, again, canonical):
    rules = [{"metric": first, "rule": "non_inferiority", "margin": 0.01},
             {"metric": first, "rule": "floor", "threshold": 0.5},
             {"metric": again, "rule": "non_inferiority", "margin": 0.01}]  # fmt: skip
    with pytest.raises(InvalidParameterError) as info:
        rv.gate({"new": [0.1, 0.2]}, {"main": [0.2, 0.1]}, rules, y_true=[0, 1])
    assert str(info.value) == (
        f"rules[2] must be another rule than rules[0]. Got '{again}: non-inferiority, margin "
        f"0.01' instead; '{again}' and '{first}' name the same metric, {canonical}; remove "
        f"one: each copy would be one more comparison in the correction, lowering the power "
        f"of every row."
    )
    # other settings: another rule
    other = [rules[0], {"metric": again, "rule": "non_inferiority", "margin": 0.02}]
    assert len(as_rules(other)) == 2


# ------------------------------------------------------------------ at the margin, to rounding
def _precision_runs(base_hits, candidate_hits, n_users=30):
    """Users with 10 relevant items each; each model's top 10 holds the given number of
    them (a function of the user index): P@10 of each user is hits / 10."""
    rel = [f"r{i}" for i in range(10)]

    def run(hits):
        return {f"u{u}": {it: 100 - j for j, it in
                          enumerate(rel[:hits(u)] + [f"n{i}" for i in range(10 - hits(u))])}
                for u in range(n_users)}  # fmt: skip

    qrels = {f"u{u}": {i: 1 for i in rel} for u in range(n_users)}
    return qrels, run(base_hits), run(candidate_hits)


@pytest.mark.parametrize("test", ["student", "wilcoxon", "randomization"])
def test_a_gain_of_exactly_the_margin_is_no_evidence_either_way(test):
    """Every user's P@10 moves by exactly 0.1, the margin: 0.3 - 0.4 and 0.7 - 0.8 are
    -0.1 only to rounding, whose +-1e-17 leftovers of one sign every test read as a
    consistent effect: a regression of exactly the margin (inside the non-inferiority
    hypothesis) failed with p 6e-12, a gain of exactly m (not above it) passed."""
    worse = _precision_runs(lambda u: 4 if u % 2 else 8, lambda u: 3 if u % 2 else 7)
    better = _precision_runs(lambda u: 3 if u % 2 else 7, lambda u: 4 if u % 2 else 8)
    null = 0.5 if test == "student" else 1.0  # each test's null center
    rows = []
    for (qrels, base, cand), kind in ((worse, "non_inferiority"), (better, "superiority")):
        row = rv.gate({"cand": cand}, {"base": base}, [{"metric": "P@10", "rule": kind,
                      "margin": 0.1}], qrels=qrels, test=test, **FAST).rows[0]  # fmt: skip
        assert row.p_value == null  # was 6e-12 (student) on both rules
        if kind == "non_inferiority":
            assert row.p_non_inferiority == null  # not "significantly above the margin"
        assert row.reason.endswith(
            "; 30 of the 30 users have a difference of exactly the margin, to rounding: read "
            "as exactly it, no evidence either way"
        )
        rows.append(row)
    assert [r.verdict for r in rows] == ["pass", "fail"]  # allowed; no gain beyond m


def test_a_value_of_exactly_the_threshold_meets_it_and_a_miss_prints_every_digit():
    """A mean of 0.2 computed as 0.19999999999999998 meets a floor of 0.2 (it failed, saying
    "value 0.2 outside the floor 0.2"), one of 0.1 computed as 0.10000000000000002 a
    ceiling of 0.1; a value that misses its bound is printed with every digit."""
    qrels, _, run = _precision_runs(lambda u: 0, lambda u: u + 1, n_users=3)  # 0.1, 0.2, 0.3
    floor = rv.gate({"c": run}, {}, [{"metric": "P@10", "rule": "floor", "threshold": 0.2}],
                    qrels=qrels).rows[0]  # fmt: skip
    assert floor.candidate_value == 0.19999999999999998
    assert (floor.verdict, floor.reason) == ("pass", "value 0.2 within the floor 0.2")
    qrels, _, run = _precision_runs(lambda u: 0, lambda u: 1, n_users=3)  # 0.1 each
    rules = [{"metric": "P@10", "rule": "ceiling", "threshold": 0.1},
             {"metric": "P@10", "rule": "floor", "threshold": 0.10000001}]  # fmt: skip
    ceiling, miss = rv.gate({"c": run}, {}, rules, qrels=qrels).rows
    assert ceiling.candidate_value == 0.10000000000000002 and ceiling.verdict == "pass"
    assert (miss.verdict, miss.reason) == (
        "fail",
        "value 0.10000000000000002 outside the floor 0.10000001",
    )  # was "0.1 ... 0.1"


def test_a_pass_above_the_margin_speaks_the_metrics_direction_and_shows_its_p_value():
    """A non-inferiority row that passes on the other side of the test reports that
    p-value and its level (they were in no field, the row showing p 1 and a pass), and
    for log loss, where lower is better, a loss significantly below the margin +0.01
    (not "above the margin -0.01", which read as a gain)."""
    users, clicks, good, noise = _impressions(n_users=400)
    close = np.clip(good + 0.03 * noise[1], 0.01, 0.99)
    rules = [{"metric": "log_loss", "rule": "non_inferiority", "margin": 0.01},
             {"metric": "gauc", "rule": "non_inferiority", "margin": 0.03},
             {"metric": "gauc", "rule": "superiority"}]  # fmt: skip
    report = rv.gate({"a": close}, {"b": good}, rules, y_true=clicks, groups=users, **FAST)
    loss, auc, sup = report.rows
    assert loss.difference > 0 and loss.verdict == "pass"
    assert loss.reason == "significantly below the margin +0.01"
    assert auc.reason == "significantly above the margin -0.03"
    for row in (loss, auc):
        assert row.p_adjusted >= 0.05 and row.p_non_inferiority < row.level_non_inferiority
        assert row.level_non_inferiority == 0.05 / 3  # alpha / m under holm
    assert math.isnan(sup.p_non_inferiority) and math.isnan(sup.level_non_inferiority)
    record = report.records()[0]
    assert record["p_non_inferiority"] == loss.p_non_inferiority
    assert record["level_non_inferiority"] == loss.level_non_inferiority
    assert json.loads(report.to_json())["rows"][0]["p_non_inferiority"] == loss.p_non_inferiority
    header, cells = report.table_rows()
    shown = dict(zip(header, cells[0], strict=True))["non-inferiority p"]
    assert shown == format_p_value(loss.p_non_inferiority)
    assert dict(zip(header, cells[2], strict=True))["non-inferiority p"] == "—"
    assert f"below alpha' = {0.05 / 3:.4g}" in report.test_note()
    # the effect size is a value as the others are: --digits shows it whole (it kept 3)
    header, cells = report.table_rows(digits=10)
    shown = dict(zip(header, cells[0], strict=True))
    effect = next(v for k, v in shown.items() if k.startswith("effect"))
    assert effect == f"{loss.effect_size:.10f}"


def test_bounds_carry_the_counts_of_their_value():
    # a floor or ceiling's row said n_users 0, n_users_skipped 0 while its value left out
    # the groups with one class (gauc) or the users with no relevant item (recall@k)
    groups = ["A", "A", "B", "C"]
    report = rv.gate({"s": [0.9, 0.2, 0.8, 0.1]}, {},
                     [{"metric": "gauc", "rule": "floor", "threshold": 0.5}],
                     y_true=[1, 0, 1, 0], groups=groups)  # fmt: skip
    (row,) = report.rows
    assert (row.n_users, row.n_users_skipped, row.n_rows_skipped) == (1, 2, 2)
    assert report.records()[0]["n_rows_skipped"] == 2
    assert "gauc of s is a mean over 1 of 3 users: 2 without a value left out (2 rows)." in (
        report.notes()
    )
    qrels = {"u1": {"a": 1}, "u2": {"b": 1}, "u3": {"c": 0}}
    run = {"u1": {"a": 0.9}, "u2": {"x": 0.9}, "u3": {"a": 0.9}}
    report = rv.gate({"r": run}, {}, [{"metric": "recall@3", "rule": "floor", "threshold": 0.4}],
                     qrels=qrels)  # fmt: skip
    (row,) = report.rows
    assert (row.candidate_value, row.n_users, row.n_users_skipped) == (0.5, 2, 1)
    assert any("recall@3 of r is a mean over 2 of 3 users" in n for n in report.notes())

"""compare() and compare_predictions(): the per-user pairing, the tables and the errors.

The statistics themselves are tested in test_stats.py; here every p-value,
difference and adjusted p-value is checked against SciPy / statsmodels applied
to the per-user values that evaluate() and group_auc() return.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from receval import (
    ComparisonReport,
    Qrels,
    Run,
    adjust_pvalues,
    compare,
    compare_predictions,
    delong_test,
    evaluate,
    gauc_score,
    group_auc,
    log_loss,
    roc_auc_score,
    smallest_pvalue,
)
from receval.datasets import make_impressions, make_recommendations
from receval.exceptions import InputValidationError, InvalidParameterError, UndefinedMetricWarning

METRICS = ["ndcg@10", "map@100", "mrr", "recall@20", "precision@10"]


@pytest.fixture(scope="module")
def ranking():
    qrels, runs = make_recommendations(300, n_items=400, k=30, seed=3)
    q = Qrels.from_frame(qrels)
    a = Run.from_frame(runs["model_a"], name="model_a")
    b = Run.from_frame(runs["model_b"], name="model_b")
    # a third run: model_a with its lists reversed for a fifth of the users
    rng = np.random.default_rng(1)
    score = runs["model_a"]["score"].copy()
    flip = np.isin(runs["model_a"]["user"], rng.choice(np.unique(runs["model_a"]["user"]), 60))
    score[flip] = -score[flip]
    c = Run(runs["model_a"]["user"], runs["model_a"]["item"], score, name="model_c")
    return q, {"model_a": a, "model_b": b, "model_c": c}


def _values(q, run, metric):
    return evaluate(q, run, [metric]).values[metric]


@pytest.mark.parametrize("test", ["student", "wilcoxon"])
def test_ranking_pvalues_equal_scipy_on_per_user_values(ranking, test):
    q, runs = ranking
    report = compare(q, runs, METRICS, baseline="model_b", test=test, interval=None)
    ref = stats.ttest_rel if test == "student" else stats.wilcoxon
    c = report.comparisons
    assert len(c["metric"]) == len(METRICS) * 2
    for j in range(len(c["metric"])):
        m, a, b = c["metric"][j], c["model"][j], c["versus"][j]
        assert b == "model_b"
        va, vb = _values(q, runs[a], m), _values(q, runs[b], m)
        assert c["p_value"][j] == pytest.approx(ref(va, vb).pvalue, abs=1e-12, rel=1e-12)
        assert c["difference"][j] == pytest.approx(np.mean(va - vb), abs=1e-15)
        assert c["n_users"][j] == q.n_users
        assert report.means[m][a] == evaluate(q, runs[a], [m]).mean[m]
    for m in METRICS:  # Holm within each metric
        idx = np.flatnonzero(c["metric"] == m)
        expected = multipletests(c["p_value"][idx], method="holm")[1]
        np.testing.assert_allclose(c["p_adjusted"][idx], expected, rtol=1e-12, atol=0)


def test_all_pairs_and_letters(ranking):
    q, runs = ranking
    report = compare(q, runs, ["ndcg@10", "mrr"], test="student", interval=None)
    c = report.comparisons
    pairs = {(a, b) for a, b in zip(c["model"], c["versus"], strict=True)}
    assert pairs == {("model_b", "model_a"), ("model_c", "model_a"), ("model_c", "model_b")}
    # model_a is much better than model_b: b's row never carries a, a's carries b
    assert "b" in report.wins("ndcg@10", "model_a")
    assert "a" not in report.wins("ndcg@10", "model_b")
    rows = report.summary_rows(4, style="markdown")
    assert rows[0][0] == "a" and rows[0][1] == "model_a"
    assert "<sup>" in rows[0][2] and "b" in rows[0][2].split("<sup>")[1]
    md = report.to_markdown()
    assert md.startswith("|  | model | ndcg@10 | mrr |")
    assert "paired Student t-test for every pair" in md
    tex = report.to_latex()
    assert "model\\_a" in tex and "$^{" in tex
    assert tex.strip().splitlines()[-1].startswith("% A letter marks a model")
    assert "\\begin{tabular}{llrr}" in tex


def test_identical_runs_give_p_one_and_no_marker(ranking):
    q, runs = ranking
    same = {"x": runs["model_a"], "y": runs["model_a"]}
    for test in ("randomization", "student", "wilcoxon"):
        report = compare(q, same, METRICS, test=test, n_permutations=500, n_resamples=500)
        c = report.comparisons
        np.testing.assert_array_equal(c["p_value"], 1.0)
        np.testing.assert_array_equal(c["p_adjusted"], 1.0)
        assert not c["significant"].any() and not c["better"].any()
        np.testing.assert_array_equal(c["difference"], 0.0)
        np.testing.assert_array_equal(c["ci_low"], 0.0)
        np.testing.assert_array_equal(c["ci_high"], 0.0)
        assert "<sup>" not in report.to_markdown()


def test_randomization_and_bootstrap_are_deterministic(ranking):
    q, runs = ranking
    kw = {"n_permutations": 2000, "n_resamples": 2000, "seed": 7}
    r1 = compare(q, runs, ["ndcg@10"], **kw)
    r2 = compare(q, runs, ["ndcg@10"], **kw)
    for key in ("p_value", "ci_low", "ci_high"):
        np.testing.assert_array_equal(r1.comparisons[key], r2.comparisons[key])
    # the interval brackets the paired difference
    c = r1.comparisons
    assert (c["ci_low"] <= c["difference"]).all() and (c["difference"] <= c["ci_high"]).all()


def test_hit_ratio_is_weighted_by_relevant_items(ranking):
    q, runs = ranking
    metrics = ["pooled_hit_ratio@10"]
    report = compare(q, runs, metrics, baseline="model_b", n_permutations=500, interval=None)
    c = report.comparisons
    for j in range(len(c["metric"])):
        a = c["model"][j]
        expected = (
            evaluate(q, runs[a], ["pooled_hit_ratio@10"]).mean["pooled_hit_ratio@10"]
            - evaluate(q, runs["model_b"], ["pooled_hit_ratio@10"]).mean["pooled_hit_ratio@10"]
        )
        assert c["difference"][j] == pytest.approx(expected, abs=1e-14)
    with pytest.raises(InvalidParameterError, match=r"test='student' weighs every user equally"):
        compare(q, runs, ["pooled_hit_ratio@10"], test="student")


def test_reports_instead_of_runs(ranking):
    q, runs = ranking
    reports = {name: evaluate(q, r, METRICS) for name, r in runs.items()}
    by_report = compare(None, reports, METRICS, test="student", interval=None)
    by_run = compare(q, runs, METRICS, test="student", interval=None)
    for key in ("difference", "p_value", "p_adjusted"):
        np.testing.assert_array_equal(by_report.comparisons[key], by_run.comparisons[key])
    with pytest.raises(InputValidationError, match=r"has no metric 'ndcg@5'"):
        compare(None, reports, ["ndcg@5"])
    with pytest.raises(InputValidationError, match=r"qrels is None, so every run must be"):
        compare(None, {"a": runs["model_a"], "b": reports["model_b"]}, METRICS)
    other = Qrels.from_dict({"zz": {"1": 1}})
    with pytest.raises(InputValidationError, match=r"different qrels users"):
        unmatched = evaluate(other, runs["model_b"], METRICS, allow_unmatched=True)
        compare(None, {"a": reports["model_a"], "b": unmatched}, METRICS)


def test_list_of_named_runs(ranking):
    q, runs = ranking
    report = compare(q, [runs["model_a"], runs["model_b"]], ["mrr"], test="student")
    assert report.models == ["model_a", "model_b"]
    with pytest.raises(InputValidationError, match=r"model names must be distinct. Got 'model_a'"):
        compare(q, [runs["model_a"], runs["model_a"]], ["mrr"])


def test_frames_and_records(ranking):
    q, runs = ranking
    report = compare(q, runs, ["ndcg@10", "mrr"], n_permutations=500, n_resamples=500)
    frame = report.to_frame()
    assert list(frame.columns) == [
        "metric", "model", "versus", "mean", "versus_mean", "difference", "effect_size",
        "ci_low", "ci_high", "p_value", "p_adjusted", "significant", "better", "worse", "wins",
        "ties", "losses", "n_users", "n_users_skipped", "p_min",
    ]  # fmt: skip
    assert len(frame) == 6
    polars_frame = report.to_frame(backend="polars")
    assert polars_frame.shape == (6, 20)
    records = report.records()
    assert json.loads(json.dumps(records)) == records
    row = records[0]
    assert row["mean"] == report.means[row["metric"]][row["model"]]
    assert isinstance(report, ComparisonReport)
    assert "ComparisonReport(3 models, 2 metrics, 6 comparisons" in repr(report)
    detail = report.to_markdown(detail=True)
    assert "| metric | model | versus | difference |" in detail


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"test": "ttest"}, r"The 'test' parameter of compare must be one of"),
        ({"interval": "bc"}, r"The 'interval' parameter of compare must be one of"),
        ({"correction": "hochberg"}, r"The 'correction' parameter of compare must be one of"),
        ({"alpha": 1.0}, r"The 'alpha' parameter of compare must be a real number in \(0.0"),
        ({"confidence": 0}, r"The 'confidence' parameter of compare"),
        ({"n_permutations": 0}, r"The 'n_permutations' parameter of compare must be an integer"),
        ({"n_resamples": 2.5}, r"The 'n_resamples' parameter of compare must be an integer"),
        ({"seed": -1}, r"The 'seed' parameter of compare"),
        ({"baseline": "nope"}, r"The 'baseline' parameter of compare must be one of"),
    ],
)
def test_bad_settings(ranking, kwargs, message):
    q, runs = ranking
    with pytest.raises(InvalidParameterError, match=message):
        compare(q, runs, ["mrr"], **kwargs)


def test_needs_two_runs(ranking):
    q, runs = ranking
    with pytest.raises(InputValidationError, match=r"comparing needs at least 2 models. Got 1"):
        compare(q, {"a": runs["model_a"]}, ["mrr"])


# ------------------------------------------------------------------ CTR models
@pytest.fixture(scope="module")
def impressions():
    log = make_impressions(400, impressions_per_user=15, seed=2)
    return log


def test_predictions_means_and_differences_equal_the_metrics(impressions):
    log = impressions
    y, users = log["click"], log["user"]
    scores = {"a": log["model_a"], "b": log["model_b"]}
    report = compare_predictions(y, scores, groups=users, n_permutations=1000, n_resamples=1000)
    for name, s in scores.items():
        assert report.means["gauc"][name] == gauc_score(y, s, groups=users)
        assert report.means["log_loss"][name] == log_loss(y, s)
    c = report.comparisons
    j_gauc = int(np.flatnonzero(c["metric"] == "gauc")[0])
    j_loss = int(np.flatnonzero(c["metric"] == "log_loss")[0])
    assert c["model"][j_gauc] == "b" and c["versus"][j_gauc] == "a"
    expected = gauc_score(y, scores["b"], groups=users) - gauc_score(y, scores["a"], groups=users)
    assert c["difference"][j_gauc] == pytest.approx(expected, abs=1e-13)
    expected = log_loss(y, scores["b"]) - log_loss(y, scores["a"])
    assert c["difference"][j_loss] == pytest.approx(expected, abs=1e-13)
    # users with one class have no AUC: left out of gauc, kept in log loss
    skipped = group_auc(y, scores["a"], groups=users).n_groups_skipped
    assert skipped > 0
    assert c["n_users"][j_gauc] == report.n_users - skipped
    assert c["n_users"][j_loss] == report.n_users
    # model_a is the better model: lower log loss counts as better
    assert report.higher_is_better == {"gauc": True, "log_loss": False}
    assert bool(c["worse"][j_loss]) and "b" in report.wins("log_loss", "a")


def test_predictions_student_on_uniform_gauc_equals_scipy(impressions):
    log = impressions
    y, users = log["click"], log["user"]
    scores = {"a": log["model_a"], "b": log["model_b"]}
    report = compare_predictions(y, scores, groups=users, metrics=["gauc"], weighting="uniform",
                                 test="student", interval=None)  # fmt: skip
    auc_a = group_auc(y, scores["a"], groups=users).auc
    auc_b = group_auc(y, scores["b"], groups=users).auc
    ok = ~np.isnan(auc_a)
    expected = stats.ttest_rel(auc_b[ok], auc_a[ok]).pvalue
    assert report.comparisons["p_value"][0] == pytest.approx(expected, rel=1e-12, abs=1e-300)
    with pytest.raises(InvalidParameterError, match=r"'gauc' weighs users unequally"):
        compare_predictions(y, scores, groups=users, metrics=["gauc"], test="wilcoxon")


def test_predictions_without_groups_pair_impressions(impressions):
    log = impressions
    y = log["click"]
    scores = {"a": log["model_a"], "b": log["model_b"]}
    report = compare_predictions(y, scores, metrics=["logloss"], test="student", interval=None)
    la = -(y * np.log(scores["a"]) + (1 - y) * np.log(1 - scores["a"]))
    lb = -(y * np.log(scores["b"]) + (1 - y) * np.log(1 - scores["b"]))
    assert report.comparisons["p_value"][0] == pytest.approx(
        stats.ttest_rel(lb, la).pvalue, rel=1e-9, abs=1e-300
    )
    assert report.n_users == len(y)
    with pytest.raises(InputValidationError, match=r"'gauc' needs groups; pass groups="):
        compare_predictions(y, scores, metrics=["gauc"])
    with pytest.raises(InvalidParameterError, match=r"Unknown metric 'gaux'.*Did you mean 'gauc'"):
        compare_predictions(y, scores, groups=log["user"], metrics=["gaux"])
    with pytest.raises(InvalidParameterError, match=r"^Unknown metric 'aux'. Did you mean 'auc'"):
        compare_predictions(y, scores, groups=log["user"], metrics=["aux"])
    ranking = r"'ndcg@10' is ndcg, which it does not compare: a ranking metric .* receval.compare"
    with pytest.raises(InvalidParameterError, match=ranking + r"\(qrels, runs, \['ndcg@10'\]\)"):
        compare_predictions(y, scores, groups=log["user"], metrics=["ndcg@10"])


def test_predictions_global_auc_by_delong(impressions):
    log = impressions
    y, users = log["click"], log["user"]
    scores = {"a": log["model_a"], "b": log["model_b"], "c": log["model_a"] ** 2}
    report = compare_predictions(y, scores, groups=users, metrics=["gauc", "auc", "logloss"],
                                 n_permutations=500, n_resamples=500)  # fmt: skip
    c = report.comparisons
    assert list(c["metric"]) == ["gauc"] * 3 + ["auc"] * 3 + ["logloss"] * 3
    rows = np.flatnonzero(c["metric"] == "auc")
    pvalues = []
    for j in rows:
        model, versus = c["model"][j], c["versus"][j]
        res = delong_test(y, scores[model], scores[versus])
        assert report.means["auc"][model] == pytest.approx(roc_auc_score(y, scores[model]))
        assert c["difference"][j] == pytest.approx(res.auc_a - res.auc_b)
        assert c["p_value"][j] == pytest.approx(res.pvalue, rel=1e-12, abs=1e-300)
        assert c["n_users"][j] == len(y) and np.isnan(c["effect_size"][j])
        assert c["ci_low"][j] < c["difference"][j] < c["ci_high"][j] or res.pvalue == 1.0
        pvalues.append(res.pvalue)
    assert c["p_adjusted"][rows] == pytest.approx(adjust_pvalues(pvalues, method="holm"))
    # c ranks as a does: DeLong finds no difference
    j = int(rows[[c["model"][k] + c["versus"][k] in ("ca", "ac") for k in rows].index(True)])
    assert c["p_value"][j] == 1.0 and not c["significant"][j]
    # the per-user metrics are tested as without the AUC
    alone = compare_predictions(y, scores, groups=users, metrics=["gauc", "logloss"],
                                n_permutations=500, n_resamples=500)  # fmt: skip
    for key in ("p_value", "difference", "ci_low"):
        assert np.array_equal(c[key][c["metric"] != "auc"], alone.comparisons[key])
    assert "auc: DeLong's paired test" in report.legend()
    only = compare_predictions(y, scores, metrics=["roc_auc"], baseline="a")
    assert only.legend().startswith("A letter marks a model that this one beats significantly: "
                                    "DeLong's paired test against a")  # fmt: skip
    assert only.to_frame()["p_value"].notna().all()
    with pytest.raises(InvalidParameterError, match=r"DeLong's test, which takes no sample"):
        compare_predictions(y, scores, metrics=["auc"], sample_weight=np.ones(len(y)))
    # it named 'roc_auc', the registry's name, where the caller asked for 'auc'
    with pytest.raises(InputValidationError, match=r"'auc' is compared by DeLong's test, which "
                       r"needs both classes in y_true. Got only \[0\]; compare on"):  # fmt: skip
        compare_predictions(np.zeros(len(y)), scores, metrics=["auc"])


@pytest.mark.parametrize("test", ["randomization", "wilcoxon", "student"])
def test_p_min_says_when_significance_is_out_of_reach(test):
    """p_min is the smallest p-value the test can give with the paired users: with 3
    users no sign flip of the differences gives less than 2/2**3; every p-value of the
    report is at least p_min, and DeLong's rows (a normal test) have p_min 0."""
    from receval import smallest_pvalue

    qrels = {f"u{i}": {"a": 1} for i in range(3)}
    good = {f"u{i}": {"a": 0.9, "b": 0.1} for i in range(3)}
    bad = {f"u{i}": {"b": 0.9, "a": 0.1} for i in range(3)}
    report = compare(qrels, {"good": good, "bad": bad}, ["mrr"], test=test,
                     n_permutations=200, n_resamples=200)  # fmt: skip
    [row] = report.records()
    assert row["n_users"] == 3
    assert row["p_min"] == smallest_pvalue(3, test=test, n_permutations=200)
    if test == "student":  # every difference equal: no variance, but 2 users suffice
        assert row["p_min"] == 0.0
    else:
        assert row["p_min"] == 0.25 and row["p_value"] >= row["p_min"]
        assert not row["significant"]
    y = np.array([0, 1, 0, 1, 1, 0])
    ctr = compare_predictions(y, {"m": y * 0.5 + 0.2, "n": 1 - y * 0.5}, metrics=["roc_auc"])
    assert ctr.records()[0]["p_min"] == 0.0


# ------------------------------------------------------------------ any pointwise metric
def _pointwise_rows():
    from receval.registry import ENTRIES

    return sorted(n for n, e in ENTRIES.items() if e.family in ("pointwise", "grouped"))


REQUIRED = {"partial_auc": "partial_auc(max_fpr=0.5)"}  # a parameter without default


@pytest.mark.parametrize("row", _pointwise_rows())
def test_predictions_take_every_pointwise_and_grouped_metric(impressions, row):
    """Each metric's means are its function's values; a metric that is not a mean over
    users is recomputed on swapped and resampled users (it was refused before)."""
    from receval.registry import pointwise_adapter, resolve

    name = REQUIRED.get(row, row)
    log = impressions
    y, users = log["click"], log["user"]
    scores = {"a": log["model_a"], "b": log["model_b"]}
    report = compare_predictions(y, scores, groups=users, metrics=[name], n_permutations=30,
                                 n_resamples=30, seed=3)  # fmt: skip
    metric = pointwise_adapter(resolve(name)).func
    for model, s in scores.items():
        assert report.means[name][model] == metric(y, s, groups=users)
    c = report.comparisons
    assert list(c["metric"]) == [name]
    if row != "gauc":  # gauc: the paired mean over the users with both classes
        difference = report.means[name]["b"] - report.means[name]["a"]
        assert c["difference"][0] == pytest.approx(difference, rel=1e-12, abs=1e-15)
    assert 0 < c["p_value"][0] <= 1
    again = compare_predictions(y, scores, groups=users, metrics=[name], n_permutations=30,
                                n_resamples=30, seed=3)  # fmt: skip
    assert again.to_frame().equals(report.to_frame())


def test_recomputed_metrics_test_swapped_scores(impressions):
    log = impressions
    y, users = log["click"], log["user"]
    a, b = log["model_a"], log["model_b"]
    same = compare_predictions(y, {"a": a, "b": a.copy()}, groups=users, metrics=["xauc"],
                               n_permutations=20, n_resamples=20)  # fmt: skip
    assert same.comparisons["difference"][0] == 0 and same.comparisons["p_value"][0] == 1.0
    report = compare_predictions(y, {"a": a, "b": b}, groups=users, metrics=["xauc", "pcoc"],
                                 baseline="b", n_permutations=99, n_resamples=200)  # fmt: skip
    c = report.comparisons
    assert c["n_users"][0] == len(np.unique(users)) and np.isnan(c["effect_size"][0])
    assert c["ci_low"][0] <= c["difference"][0] <= c["ci_high"][0]
    assert c["p_min"][0] == smallest_pvalue(len(np.unique(users)), n_permutations=99)
    assert not c["better"][1] and not c["worse"][1]  # pcoc has no better direction
    assert report.higher_is_better == {"xauc": True, "pcoc": None}  # the registry's, not False
    assert "xauc, pcoc: recomputed on swapped scores" in report.legend()
    with pytest.raises(InvalidParameterError, match=r"'xauc' is not a mean over users, so "
                       r"test='student'"):  # fmt: skip
        compare_predictions(y, {"a": a, "b": b}, metrics=["xauc"], test="student")


# ------------------------------------------------------------------ beyond means
def test_wins_ties_losses_count_users_by_the_sign_of_their_difference(ranking):
    q, runs = ranking
    report = compare(q, runs, ["ndcg@10", "mrr"], baseline="model_a", test="student",
                     interval=None)  # fmt: skip
    c = report.comparisons
    for j in range(len(c["metric"])):
        m, a, b = c["metric"][j], c["model"][j], c["versus"][j]
        diff = _values(q, runs[a], m) - _values(q, runs[b], m)
        diff = diff[~np.isnan(diff)]
        assert (c["wins"][j], c["ties"][j], c["losses"][j]) == (
            (diff > 0).sum(), (diff == 0).sum(), (diff < 0).sum())  # fmt: skip
        assert c["wins"][j] + c["ties"][j] + c["losses"][j] == c["n_users"][j]
    header, rows = report.detail_rows()
    assert header[-1] == "win/tie/loss"
    assert rows[0][-1] == f"{c['wins'][0]}/{c['ties'][0]}/{c['losses'][0]}"


def test_wins_follow_the_metric_direction(impressions):
    log = impressions
    y, users = np.asarray(log["click"]), np.asarray(log["user"])
    scores = {"a": log["model_a"], "b": log["model_b"]}
    report = compare_predictions(y, scores, groups=users, metrics=["log_loss", "roc_auc"],
                                 n_permutations=200, n_resamples=200)  # fmt: skip
    c = report.comparisons
    first = {k: c[k][0] for k in ("model", "versus", "wins", "ties", "losses", "n_users")}
    codes = np.unique(users, return_inverse=True)[1]
    loss = {}
    for name in (first["model"], first["versus"]):
        p = np.clip(np.asarray(scores[name], dtype=float), 1e-15, 1 - 1e-15)
        row = -(y * np.log(p) + (1 - y) * np.log(1 - p))
        loss[name] = np.bincount(codes, row) / np.bincount(codes)
    d = loss[first["model"]] - loss[first["versus"]]
    assert (first["wins"], first["ties"], first["losses"]) == (
        (d < 0).sum(), (d == 0).sum(), (d > 0).sum())  # lower log loss wins  # fmt: skip
    assert (c["wins"][c["metric"] == "roc_auc"] == -1).all()  # DeLong's: no per-user value
    assert "| - |" in report.to_markdown(detail=True)


def test_all_pairs_correct_across_pairs_and_metrics(ranking):
    q, runs = ranking
    metrics = ["ndcg@10", "mrr"]
    per_metric = compare(q, runs, metrics, test="student", interval=None)
    every = compare(q, runs, metrics, pairs="all", test="student", interval=None)
    c = every.comparisons
    assert len(c["metric"]) == 6
    np.testing.assert_allclose(c["p_value"], per_metric.comparisons["p_value"])
    np.testing.assert_allclose(c["p_adjusted"], multipletests(c["p_value"], method="holm")[1])
    assert not np.allclose(c["p_adjusted"], per_metric.comparisons["p_adjusted"], rtol=1e-6, atol=0)
    assert every.pairs == "all"
    assert "Holm-Bonferroni correction across every pair and metric" in every.to_markdown()
    with pytest.raises(InvalidParameterError, match="pairs='all' compares every pair"):
        compare(q, runs, metrics, pairs="all", baseline="model_a")
    with pytest.raises(InvalidParameterError, match="The 'pairs' parameter of compare"):
        compare(q, runs, metrics, pairs="every")


def _ranks_against_mean():
    """mrr runs where the candidate gains a lot on 7 users and loses a little on 40."""
    qrels = {f"u{i}": {"r": 1} for i in range(47)}
    cand = {f"u{i}": ({"x": 3, "y": 2, "r": 1} if i < 40 else {"r": 3}) for i in range(47)}
    base = {f"u{i}": ({"x": 3, "r": 2} if i < 40 else {"x": 3}) for i in range(47)}
    return qrels, cand, base


def test_wilcoxon_better_follows_the_signed_ranks():
    from receval import compare

    qrels, cand, base = _ranks_against_mean()
    row = compare(qrels, {"new": cand, "main": base}, ["mrr"], baseline="main",
                  test="wilcoxon").records()[0]  # fmt: skip
    assert row["difference"] > 0 and (row["wins"], row["losses"]) == (7, 40)
    assert row["significant"] and row["worse"] and not row["better"]


def test_unknown_keyword_names_compare_and_suggests():
    from receval import InvalidParameterError, compare

    qrels, cand, base = _ranks_against_mean()
    with pytest.raises(InvalidParameterError, match=r"compare: .*'tset'.*Did you mean 'test'"):
        compare(qrels, {"new": cand, "main": base}, ["mrr"], tset="student")


def test_short_model_scores_name_the_model():
    from receval import InputValidationError, compare_predictions

    a = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]
    with pytest.raises(InputValidationError, match=r"y_scores\['b'\].*7 scores"):
        compare_predictions([1, 0] * 4, {"a": a, "b": a[:-1]}, groups=[0, 0, 1, 1, 2, 2, 3, 3])


def test_undefined_interval_raises_no_numpy_warning():
    import warnings

    from receval import UndefinedMetricWarning, compare_predictions

    a = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compare_predictions([0] * 8, {"a": a, "b": a[::-1]}, groups=[0, 0, 1, 1, 2, 2, 3, 3])
    kinds = {w.category for w in caught}
    assert UndefinedMetricWarning in kinds and RuntimeWarning not in kinds


@pytest.mark.parametrize("labels", [(0, 1), (-1, 1), (1, 2), (0, 2)])
def test_paired_log_loss_reads_labels_as_log_loss_does(labels):
    # a: rows (1, 0.8), (0, 0.4) of u1 and (1, 0.5) of u2; b: 0.5 everywhere. Per user,
    # a - b is (-ln 0.8 - ln 0.6) / 2 - ln 2 and 0, weighed 2 and 1: -ln(1.92) / 3.
    y = np.array([labels[1], labels[0], labels[1]])
    report = compare_predictions(y, {"a": [0.8, 0.4, 0.5], "b": [0.5, 0.5, 0.5]},
                                 groups=["u1", "u1", "u2"], metrics=["log_loss"],
                                 baseline="b", n_permutations=100, n_resamples=100)  # fmt: skip
    row = report.records()[0]
    assert row["difference"] == pytest.approx(-np.log(1.92) / 3, rel=1e-12)
    assert row["difference"] == pytest.approx(row["mean"] - row["versus_mean"], rel=1e-12)
    assert (row["wins"], row["ties"], row["losses"]) == (1, 1, 0)


def test_string_labels_of_paired_log_loss_are_read_as_log_loss_reads_them():
    labels = np.array(["no", "click", "no", "click"])  # 'no' is the positive label
    row = compare_predictions(labels, {"a": [0.8, 0.4, 0.5, 0.5], "b": [0.5] * 4},
                              groups=[0, 0, 1, 1], metrics=["log_loss"], baseline="b",
                              n_permutations=100, n_resamples=100).records()[0]  # fmt: skip
    assert row["difference"] == pytest.approx(-np.log(1.92) / 4, rel=1e-12)


def test_one_metric_string_is_one_metric_and_other_types_are_refused(ranking, impressions):
    # a string is one metric, as evaluate() reads it, never its characters ('m', 'r', ...)
    q, runs = ranking
    two = {k: runs[k] for k in ("model_a", "model_b")}
    one = compare(q, two, "mrr", n_permutations=200, interval=None)
    listed = compare(q, two, ["mrr"], n_permutations=200, interval=None)
    assert one.metrics == ["mrr"]
    assert one.comparisons["p_value"].tolist() == listed.comparisons["p_value"].tolist()
    log = impressions
    scores = {"a": log["model_a"], "b": log["model_b"]}
    ctr = compare_predictions(log["click"], scores, metrics="logloss", n_permutations=200,
                              interval=None)  # fmt: skip
    assert ctr.metrics == ["logloss"]
    for bad in (5, None):
        expected = r"^The 'metrics' parameter of compare must be a metric string or a list"
        with pytest.raises(
            InvalidParameterError, match=rf"{expected} of metric strings. Got {bad}"
        ):
            compare(q, two, bad)
    expected = r"^The 'metrics' parameter of compare_predictions must hold metric strings"
    with pytest.raises(InvalidParameterError, match=rf"{expected}. Got 3 \(int\) instead."):
        compare_predictions(log["click"], scores, metrics=["gauc", 3])


def test_the_order_of_users_and_rows_changes_no_statistic(impressions):
    # a user's random signs and bootstrap draws follow its id, not where the data lists it
    rng = np.random.default_rng(5)
    users = [f"u{i}" for i in range(40)]
    qrels = {u: {f"i{j}": 1 for j in rng.choice(10, 3, replace=False)} for u in users}
    runs = {name: {u: {f"i{j}": float(rng.random()) for j in range(10)} for u in users}
            for name in ("a", "b")}  # fmt: skip
    backwards = (dict(reversed(list(qrels.items()))),
                 {k: dict(reversed(list(r.items()))) for k, r in runs.items()})  # fmt: skip
    settings = {"n_permutations": 500, "n_resamples": 500}
    statistics = ("p_value", "ci_low", "ci_high", "difference", "effect_size")
    first = compare(qrels, runs, ["ndcg@5", "pooled_hit_ratio@3"], **settings).comparisons
    again = compare(*backwards, ["ndcg@5", "pooled_hit_ratio@3"], **settings).comparisons
    for k in statistics:
        np.testing.assert_array_equal(again[k], first[k])
    log = impressions
    y, groups = log["click"], log["user"]
    scores = {"a": log["model_a"], "b": log["model_b"]}
    shuffle = np.random.default_rng(6).permutation(len(y))
    for metrics in (["gauc", "logloss"], ["xauc"]):
        one = compare_predictions(y, scores, groups=groups, metrics=metrics, **settings)
        shuffled = {k: s[shuffle] for k, s in scores.items()}
        other = compare_predictions(y[shuffle], shuffled, groups=groups[shuffle],
                                    metrics=metrics, **settings)  # fmt: skip
        for k in statistics:
            np.testing.assert_allclose(other.comparisons[k], one.comparisons[k], rtol=1e-12)


def test_detail_rows_show_an_undefined_difference_without_a_sign():
    with pytest.warns(UndefinedMetricWarning, match="nan statistics"):
        report = compare_predictions([0, 0, 1], {"a": [0.1, 0.3, 0.5], "b": [0.2, 0.1, 0.5]},
                                     groups=["u", "u", "v"], metrics=["gauc"])  # fmt: skip
    _, rows = report.detail_rows()
    assert rows[0][3:6] == ["nan", "nan", "[nan, nan]"]  # the difference was '+nan'

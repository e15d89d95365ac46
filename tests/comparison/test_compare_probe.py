"""The paired statistics end to end: weights at the ends of the float range, and
compare / compare_predictions against the statistics of their per-user differences.

Every statistic reads weights in ratios (weighted means, a user's share), so
weights times a power of two must give the same p-values, intervals and effect
sizes, at 1e308 and at 5e-324 too. compare's and compare_predictions' numbers
must be those of paired_pvalues, bootstrap_intervals and effect_sizes applied to
the per-user differences computed independently (evaluate's per-user values,
scikit-learn's per-user AUC), whatever other metrics and models are compared.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from receval import (
    Qrels,
    Run,
    bootstrap_intervals,
    compare,
    compare_predictions,
    effect_sizes,
    evaluate,
    paired_pvalues,
)
from receval.datasets import make_recommendations
from receval.exceptions import UndefinedMetricWarning

#: small integer weights: exact at every power of two, down to 5e-324 (2**-1074)
WEIGHTS = (0.0, 1.0, 2.0, 3.0, 5.0, 7.0)
#: powers of two that put 7 * 2**k anywhere from 5e-324 to 1.3e308
EXPONENTS = st.integers(min_value=-1074, max_value=1020)


def _statistics(d: np.ndarray, w: np.ndarray, method: str) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.hstack(
            [
                *(paired_pvalues(d, w, alternative=a, n_permutations=300, seed=2)
                  for a in ("two-sided", "greater", "less")),
                *bootstrap_intervals(d, w, method=method, n_resamples=200, seed=2),
                effect_sizes(d, w),
            ]
        )  # fmt: skip


@given(
    st.lists(st.tuples(st.floats(-3, 3, width=16), st.sampled_from(WEIGHTS)), min_size=2,
             max_size=12),
    EXPONENTS,
    st.sampled_from(["percentile", "bca"]),
)  # fmt: skip
def test_weights_times_a_power_of_two_give_the_same_statistics(rows, exponent, method):
    d = np.array([x for x, _ in rows])
    w = np.array([x for _, x in rows])
    assume(np.count_nonzero(w) >= 2)
    scaled = np.ldexp(w, exponent)
    assert np.all(np.ldexp(scaled, -exponent) == w)  # exact: no overflow, no lost bit
    np.testing.assert_array_equal(_statistics(d, scaled, method), _statistics(d, w, method))


@pytest.mark.parametrize("exponent", [1020, -1074, -1060])
def test_weights_near_the_ends_of_the_float_range_per_column(exponent):
    rng = np.random.default_rng(5)
    d = rng.normal(size=(40, 3))
    d[rng.random((40, 3)) < 0.2] = np.nan
    w = rng.integers(0, 8, size=(40, 3)).astype(float)
    # each column at its own scale: the heaviest 1e308, the lightest 5e-324
    scaled = np.ldexp(w, np.array([exponent, 0, -exponent // 2]))
    np.testing.assert_array_equal(_statistics(d, scaled, "bca"), _statistics(d, w, "bca"))


# ---------------------------------------------------------------- end to end
def _reference(d, w=None, seed=5, n=999):
    """The statistics of one column of per-user differences, computed alone."""
    ok = ~np.isnan(d) & (True if w is None else w > 0)
    ww = np.ones_like(d) if w is None else w
    return np.array(
        [
            np.sum(d[ok] * ww[ok]) / np.sum(ww[ok]),
            paired_pvalues(d, w, n_permutations=n, seed=seed),
            *bootstrap_intervals(d, w, n_resamples=n, seed=seed),
            effect_sizes(d, w),
        ]
    )


def _got(report, j):
    c = report.comparisons
    return np.array([c[k][j] for k in ("difference", "p_value", "ci_low", "ci_high",
                                       "effect_size")])  # fmt: skip


def test_compare_equals_the_statistics_of_each_pair_alone():
    """Runs missing different users (missing_users="skip"): a pair's interval must not
    depend on the users a third run leaves out."""
    qrels, runs = make_recommendations(60, n_items=100, k=20, seed=3)
    q = Qrels.from_frame(qrels)
    users = np.unique(runs["model_b"]["user"])
    cut = {"a": users[50:], "b": users[:7], "c": users[20:35]}  # users each run lacks
    named = {
        k: Run.from_frame({c: np.asarray(x)[~np.isin(runs[f"model_{'b' if k == 'b' else 'a'}"]
                                                       ["user"], cut[k])]
                           for c, x in runs[f"model_{'b' if k == 'b' else 'a'}"].items()})
        for k in cut
    }  # fmt: skip
    metrics = ["ndcg@10", "pooled_hit_ratio@10"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = compare(q, named, metrics, baseline="b", missing_users="skip",
                         n_permutations=999, n_resamples=999, seed=5)  # fmt: skip
        per_user = {k: evaluate(q, r, metrics, missing_users="skip") for k, r in named.items()}
    c = report.comparisons
    for j in range(len(c["metric"])):
        m, a = str(c["metric"][j]), str(c["model"][j])
        ra, rb = per_user[a], per_user["b"]
        order = np.argsort(ra.users, kind="stable")
        assert np.array_equal(ra.users[order], np.sort(rb.users))
        d = (ra.values[m] - rb.values[m])[order]
        w = np.asarray(ra._aux[m], dtype=np.float64)[order] if m.startswith("pooled") else None
        np.testing.assert_allclose(_got(report, j), _reference(d, w), rtol=1e-13, atol=0)


def impression_log():
    rng = np.random.default_rng(0)
    users = rng.integers(0, 40, 600)
    y = (rng.random(600) < 0.3).astype(int)
    s1 = np.clip(0.3 + 0.3 * (y - 0.3) + 0.15 * rng.standard_normal(600), 0.01, 0.99)
    s2 = np.clip(s1 + 0.2 * rng.standard_normal(600), 0.01, 0.99)
    return users, y, s1, s2, rng.uniform(0.5, 3, 600)


def unit_values(users, y, score, metric, weight):
    """Each user's AUC (nan with one class) or log loss, by scikit-learn, and its weight
    under weighting="impressions"."""
    from sklearn.metrics import log_loss, roc_auc_score

    values, weights = [], []
    for u in np.unique(users):
        rows = users == u
        if metric == "gauc" and len(np.unique(y[rows])) < 2:
            values.append(np.nan)
        elif metric == "gauc":
            values.append(roc_auc_score(y[rows], score[rows], sample_weight=weight[rows]))
        else:
            values.append(log_loss(y[rows], score[rows], sample_weight=weight[rows], labels=[0, 1]))
        weights.append(weight[rows].sum())
    return np.array(values), np.array(weights)


@pytest.mark.parametrize("metrics", [["gauc", "log_loss"], ["log_loss", "gauc"], ["gauc"]])
def test_compare_predictions_equals_the_statistics_of_each_metric_alone(metrics):
    """gauc leaves one-class users out, log_loss keeps them: compared together, gauc's
    interval must be that of its own users."""
    users, y, s1, s2, weight = impression_log()
    report = compare_predictions(y, {"a": s1, "b": s2}, groups=users, sample_weight=weight,
                                 metrics=metrics, baseline="b", n_permutations=999,
                                 n_resamples=999, seed=5)  # fmt: skip
    for j, m in enumerate(metrics):
        va, w = unit_values(users, y, s1, m, weight)
        vb, _ = unit_values(users, y, s2, m, weight)
        np.testing.assert_allclose(_got(report, j), _reference(va - vb, w), rtol=1e-12, atol=0)


@pytest.mark.parametrize("exponent", [1014, -40])
def test_compare_predictions_at_weights_times_a_power_of_two(exponent):
    """The sum of weights near 1e305 over the users overflowed the mean difference."""
    users, y, s1, s2, weight = impression_log()
    reports = [
        compare_predictions(y, {"a": s1, "b": s2}, groups=users, sample_weight=w,
                            metrics=["gauc", "log_loss"], baseline="b", n_permutations=99,
                            n_resamples=99, seed=5).comparisons
        for w in (weight, np.ldexp(weight, exponent))
    ]  # fmt: skip
    for key in ("difference", "p_value", "ci_low", "ci_high", "effect_size"):
        np.testing.assert_array_equal(reports[1][key], reports[0][key])
    assert np.isfinite(reports[0]["difference"]).all()


def cli_json(tmp_path, monkeypatch, command: str, *args: str):
    """The JSON that ``receval COMMAND`` writes for :func:`impression_log` in a CSV file
    (columns user, y, a, b, w) with ``args``, 999 permutations and resamples, seed 5."""
    import json

    import pandas as pd
    from typer.testing import CliRunner

    from receval.cli import app

    users, y, s1, s2, weight = impression_log()
    monkeypatch.chdir(tmp_path)
    pd.DataFrame({"user": users, "y": y, "a": s1, "b": s2, "w": weight}).to_csv("log.csv")
    result = CliRunner().invoke(app, [
        command, "--impressions", "log.csv", "--label", "y", "--group", "user", "--weight", "w",
        *args, "--permutations", "999", "--resamples", "999", "--seed", "5", "-f", "json", "-q",
    ])  # fmt: skip
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_compare_json_of_the_command_line_equals_the_api(tmp_path, monkeypatch):
    """``receval compare -f json`` writes the API's numbers at full precision."""
    rows = cli_json(tmp_path, monkeypatch, "compare", "--score", "a", "--score", "b",
                    "--ctr-metric", "gauc", "--ctr-metric", "log_loss")  # fmt: skip
    users, y, s1, s2, weight = impression_log()
    api = compare_predictions(y, {"a": s1, "b": s2}, groups=users, sample_weight=weight,
                              metrics=["gauc", "log_loss"], n_permutations=999, n_resamples=999,
                              seed=5)  # fmt: skip
    assert len(rows) == len(api.comparisons["metric"]) == 2
    for j, row in enumerate(rows):
        assert row["mean"] == api.means[row["metric"]][row["model"]]
        for key, column in api.comparisons.items():
            assert row[key] == column[j], key


@pytest.mark.parametrize("test", ["randomization", "student", "wilcoxon"])
def test_compare_of_identical_runs_and_of_one_user(test):
    """Identical runs: p 1.0, interval (0, 0), effect size 0, every user a tie; one
    user: p 1.0 (randomization, Wilcoxon: both signs as extreme) or nan (t-test),
    interval (d, d), effect size nan, with one warning naming what is nan."""
    qrels, runs = make_recommendations(30, n_items=80, k=20, seed=1)
    q, run = Qrels.from_frame(qrels), Run.from_frame(runs["model_a"])
    c = compare(q, {"x": run, "y": run}, ["ndcg@10", "map@100"], test=test,
                n_permutations=99, n_resamples=99).comparisons  # fmt: skip
    for key, value in (("difference", 0), ("p_value", 1), ("ci_low", 0), ("ci_high", 0),
                       ("effect_size", 0), ("ties", 30), ("n_users", 30)):  # fmt: skip
        assert list(c[key]) == [value, value], key
    user = np.asarray(qrels["user"])[0]
    one = {k: np.asarray(v)[np.asarray(qrels["user"]) == user] for k, v in qrels.items()}
    alone = {name: Run.from_frame({k: np.asarray(v)[np.asarray(r["user"]) == user]
                                   for k, v in r.items()}) for name, r in runs.items()}  # fmt: skip
    nan = "p_value, effect_size" if test == "student" else "effect_size"
    with pytest.warns(
        UndefinedMetricWarning, match=rf"\['ndcg@10: model_b vs model_a \({nan}\)'\]"
    ):
        c = compare(Qrels.from_frame(one), alone, ["ndcg@10"], test=test, n_permutations=99,
                    n_resamples=99).comparisons  # fmt: skip
    d = c["difference"][0]
    assert d != 0 and c["ci_low"][0] == c["ci_high"][0] == d and np.isnan(c["effect_size"][0])
    assert c["n_users"][0] == 1
    assert np.isnan(c["p_value"][0]) if test == "student" else c["p_value"][0] == 1.0


def test_a_geometric_mean_is_compared_by_its_logarithms():
    # A: half the users AP 1, half AP 1/51; B: everyone AP 1/3. A wins map, B gm_map:
    # the gm_map comparison tests the users' log ratios, whose mean is log(gm_B / gm_A)
    qrels = {f"u{i}": {"a": 1} for i in range(60)}
    others = {f"x{j}": 1 - j / 100 for j in range(50)}
    a_run = {u: {**others, "a": 2.0 if i % 2 == 0 else -1.0} for i, u in enumerate(qrels)}
    b_run = {u: {**others, "a": 0.985} for u in qrels}
    report = compare(qrels, {"A": a_run, "B": b_run}, ["gm_map", "map"], seed=1)
    rows = {m: j for j, m in enumerate(report.comparisons["metric"])}
    g, m = rows["gm_map"], rows["map"]
    assert report.comparisons["model"][g] == "B"
    gm_ratio = report.means["gm_map"]["B"] / report.means["gm_map"]["A"]
    assert report.comparisons["difference"][g] == pytest.approx(np.log(gm_ratio), rel=1e-12)
    assert report.comparisons["ci_low"][g] > 0 and report.comparisons["p_value"][g] < 0.01
    assert report.comparisons["difference"][m] < 0 and report.comparisons["ci_high"][m] < 0
    table = report.to_markdown()
    assert "0.3333<sup>a</sup>" in table and "0.5098<sup>b</sup>" in table

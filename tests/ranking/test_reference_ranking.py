"""Ranking metrics against trec_eval (pytrec_eval), ranx and scikit-learn's ndcg_score."""

import warnings

import numpy as np
import pytest
import pytrec_eval
import ranx
from sklearn.metrics import dcg_score, ndcg_score

from receval import InputValidationError, evaluate

# ranx compiles its kernels with numba on first use (about two minutes of a fresh
# machine's CPU, cached on disk after): one worker of a parallel run takes every
# module that calls ranx, so that they are compiled once
pytestmark = pytest.mark.xdist_group("ranx")

SEEDS = range(10)


def random_case(seed, n_users=40, n_items=60, tied=True):
    """Graded qrels and a run with unjudged items, tied scores, and users missing on each side."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for u in range(n_users):
        user = f"q{u}"
        if rng.random() < 0.9:
            judged = rng.choice(n_items, int(rng.integers(1, 15)), replace=False)
            qrels[user] = {f"d{i}": int(rng.choice([0, 0, 1, 2, 3])) for i in judged}
        if rng.random() < 0.85:
            items = rng.choice(n_items, int(rng.integers(1, 40)), replace=False)
            scores = (
                rng.choice([0.1, 0.2, 0.3, 0.5], len(items)) if tied else rng.random(len(items))
            )
            run[user] = {f"d{i}": float(s) for i, s in zip(items, scores, strict=True)}
    return qrels, run


TREC_MEASURES = {
    # receval metric string -> trec_eval measure
    "p@5": "P_5",
    "p@10": "P_10",
    "recall@5": "recall_5",
    "recall@100": "recall_100",
    "map": "map",
    "map@5": "map_cut_5",
    "map@100": "map_cut_100",
    "ndcg": "ndcg",
    "ndcg@5": "ndcg_cut_5",
    "ndcg@10": "ndcg_cut_10",
    "mrr": "recip_rank",
    "r_precision": "Rprec",
    "success@1": "success_1",
    "success@5": "success_5",
}


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("tied", [True, False])
def test_equals_trec_eval(seed, tied):
    qrels, run = random_case(seed, tied=tied)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(TREC_MEASURES.values()))
    expected = evaluator.evaluate(run)
    report = evaluate(qrels, run, list(TREC_MEASURES), profile="trec_eval")
    users = report.users.tolist()
    evaluated = sorted(expected)
    for metric, measure in TREC_MEASURES.items():
        got = dict(zip(users, report.values[metric].tolist(), strict=True))
        assert sorted(u for u, x in got.items() if x == x) == evaluated
        for user in evaluated:
            assert got[user] == pytest.approx(expected[user][measure], abs=1e-12), (metric, user)
        mean = np.mean([expected[u][measure] for u in evaluated])
        assert report.mean[metric] == pytest.approx(mean, abs=1e-12)


RANX_METRICS = {
    "p@5": "precision@5",
    "p@10": "precision@10",
    "recall@10": "recall@10",
    "f1@10": "f1@10",
    "map": "map",
    "map@10": "map@10",
    "ndcg": "ndcg",
    "ndcg@10": "ndcg@10",
    "ndcg_burges@10": "ndcg_burges@10",
    "mrr": "mrr",
    "mrr@5": "mrr@5",
    "r_precision": "r-precision",
    "hit_rate@5": "hit_rate@5",
}


@pytest.mark.parametrize("seed", SEEDS)
def test_equals_ranx(seed):
    qrels, run = random_case(seed, tied=False)
    common = {u: run[u] for u in qrels if u in run}
    judged = {u: qrels[u] for u in common if any(g > 0 for g in qrels[u].values())}
    common = {u: common[u] for u in judged}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = ranx.evaluate(
            ranx.Qrels(judged),
            ranx.Run(common),
            list(RANX_METRICS.values()),
            return_mean=False,
            make_comparable=True,
        )
    report = evaluate(judged, common, list(RANX_METRICS), profile="ranx")
    users = report.users.tolist()
    order = sorted(range(len(users)), key=lambda i: users[i])
    for metric, name in RANX_METRICS.items():
        ours = np.asarray(report.values[metric])[order]
        np.testing.assert_allclose(ours, expected[name], rtol=0, atol=1e-12, err_msg=metric)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("k", [None, 1, 3, 7])
@pytest.mark.parametrize(
    "grades", [[0, 0, 1, 2, 3], [0, 0, 0.5, 1, 2.5]], ids=["ints", "fractions"]
)
def test_ndcg_equals_sklearn(seed, k, grades):
    # sklearn gains every positive grade, 0.5 too (a user of grades below 1 is not empty)
    rng = np.random.default_rng(seed)
    n_users, n_items = 12, 8
    y_true = rng.choice(grades, (n_users, n_items))
    y_score = rng.choice([0.1, 0.4, 0.4, 0.9], (n_users, n_items))  # ties, averaged by sklearn
    qrels = {u: {i: float(y_true[u, i]) for i in range(n_items)} for u in range(n_users)}
    run = {u: {i: float(y_score[u, i]) for i in range(n_items)} for u in range(n_users)}
    metric = "ndcg" if k is None else f"ndcg@{k}"
    dcg = "dcg" if k is None else f"dcg@{k}"
    report = evaluate(qrels, run, [metric, dcg], profile="sklearn")
    assert report.mean[metric] == pytest.approx(ndcg_score(y_true, y_score, k=k), abs=1e-12)
    assert report.mean[dcg] == pytest.approx(dcg_score(y_true, y_score, k=k), abs=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("k", [None, 1, 3])
def test_dcg_of_negative_grades_equals_sklearn(seed, k):
    # dcg_score gains every grade as it is, a negative one too (users of negative
    # grades only among them)
    rng = np.random.default_rng(seed)
    y_true = rng.choice([-2, -1, -0.5, 0, 1, 2], (12, 6))
    y_score = rng.choice([0.1, 0.4, 0.4, 0.9], (12, 6))
    qrels = {u: {i: float(g) for i, g in enumerate(row)} for u, row in enumerate(y_true)}
    run = {u: {i: float(x) for i, x in enumerate(row)} for u, row in enumerate(y_score)}
    metric = "dcg" if k is None else f"dcg@{k}"
    report = evaluate(qrels, run, [metric], profile="sklearn")
    assert report.mean[metric] == pytest.approx(dcg_score(y_true, y_score, k=k), abs=1e-12)
    assert dcg_score([[-1, 0, 2]], [[0.3, 0.2, 0.1]]) == 0.0
    one = evaluate(
        {0: {0: -1, 1: 0, 2: 2}}, {0: {0: 0.3, 1: 0.2, 2: 0.1}}, ["dcg"], profile="sklearn"
    )
    assert one.mean["dcg"] == 0.0


def test_ndcg_refuses_a_negative_grade_as_sklearn_does():
    with pytest.raises(ValueError, match="should not be used on negative y_true values"):
        ndcg_score([[-1, 0, 2]], [[0.3, 0.2, 0.1]])
    qrels, run = {0: {0: -1, 1: 0, 2: 2}}, {0: {0: 0.3, 1: 0.2, 2: 0.1}}
    with pytest.raises(InputValidationError, match=r"ndcg_score refuses them.*use dcg"):
        evaluate(qrels, run, ["dcg", "ndcg@2"], profile="sklearn")
    assert evaluate(qrels, run, ["dcg"], profile="sklearn").mean["dcg"] == 0.0


def test_trec_ties_are_single_precision_like_trec_eval():
    # 0.5 and 0.5 + 1e-12 differ in float64 but not in float32: trec_eval ties them and
    # orders by document id descending (d2 before d1)
    qrels = {"q": {"d1": 1, "d2": 0}}
    run = {"q": {"d1": 0.5 + 1e-12, "d2": 0.5}}
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(run)
    assert expected["q"]["recip_rank"] == 0.5
    assert evaluate(qrels, run, "mrr", profile="trec_eval").mean["mrr"] == 0.5
    assert evaluate(qrels, run, "mrr", ties="input").mean["mrr"] == 1.0


@pytest.mark.parametrize("seed", range(5))
def test_equals_trec_eval_with_near_ties(seed):
    rng = np.random.default_rng(seed)
    qrels, run = random_case(seed, tied=False)
    for user in run:  # scores that collide in float32 only
        run[user] = {i: 0.25 + float(rng.integers(0, 3)) * 1e-10 for i in run[user]}
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut_10"})
    expected = evaluator.evaluate(run)
    report = evaluate(qrels, run, ["map", "ndcg@10"], profile="trec_eval")
    got = dict(zip(report.users.tolist(), report.values["map"].tolist(), strict=True))
    for user in expected:
        assert got[user] == pytest.approx(expected[user]["map"], abs=1e-12)

"""Sampled evaluation probed against slow oracles: sampled HR and NDCG of one
positive among sampled negatives (tied scores included), the corrections from
their formulas, and the draws of sample_negatives (chi-square at fixed seeds)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from scipy import stats

from receval import (
    Candidates,
    InvalidParameterError,
    corrected_metric,
    evaluate,
    pooled_hit_ratio_at_k,
    sample_negatives,
    sampled_report,
)
from tests.oracles import sampled as oracle

SCORES = st.sampled_from([0.0, 0.1, 0.5, 0.9, 1.0])


def _sampled_rank(scores: dict, positive, ties: str) -> tuple[int, int]:
    """(least, greatest) rank of ``positive`` among every item of ``scores``: 1 + the
    items strictly above, then its tied items by the rule (trec: id descending, as
    strings)."""
    mine = scores[positive]
    above = sum(1 for s in scores.values() if s > mine)
    tied = [i for i, s in scores.items() if s == mine and i != positive]
    if ties == "trec":
        return (1 + above + sum(1 for i in tied if str(i) > str(positive)),) * 2
    if ties == "worst":
        return (1 + above + len(tied),) * 2
    return 1 + above, 1 + above + len(tied)  # average over the places


def _metric_mean(name: str, k: int, low: int, high: int) -> float:
    return float(np.mean([oracle.metric_at(name, k, r) for r in range(low, high + 1)]))


@st.composite
def one_positive(draw):
    """Users with one relevant item among sampled negatives, and tied run scores."""
    n_users = draw(st.integers(1, 6))
    qrels, run, cands = {}, {}, {}
    for u in range(n_users):
        n_neg = draw(st.integers(1, 12))
        items = draw(st.lists(st.integers(0, 40), min_size=n_neg + 1, max_size=n_neg + 1,
                              unique=True))  # fmt: skip
        qrels[u] = {items[0]: 1}
        cands[u] = items
        run[u] = {i: draw(SCORES) for i in items}
    return qrels, run, cands


@given(one_positive(), st.integers(1, 8), st.sampled_from(["trec", "worst", "average"]))
def test_sampled_hr_and_ndcg_equal_the_rank_among_negatives(data, k, ties):
    qrels, run, cands = data
    metrics = [f"success@{k}", f"ndcg@{k}", f"mrr@{k}"]
    report = evaluate(qrels, run, metrics, candidates=Candidates.from_dict(cands), ties=ties)
    for metric in metrics:
        name = metric.split("@")[0]
        want = [
            _metric_mean(name, k, *_sampled_rank(run[u], next(iter(qrels[u])), ties)) for u in qrels
        ]
        assert report.mean[metric] == pytest.approx(np.mean(want), abs=1e-12), metric


@given(one_positive(), st.integers(1, 8), st.sampled_from(["rank", "minimal_bias", "bv"]),
       st.sampled_from(["trec", "worst", "average"]))  # fmt: skip
def test_corrected_values_equal_the_table_at_the_sampled_rank(data, k, correction, ties):
    qrels, run, cands = data
    size = 60
    report = evaluate(qrels, run, [f"ndcg@{k}"], candidates=Candidates.from_dict(cands),
                      correction=correction, catalog_size=size, ties=ties)  # fmt: skip
    got = dict(zip(report.users.tolist(), report.values[f"ndcg@{k}"].tolist(), strict=True))
    for u in qrels:
        n = len(cands[u]) - 1
        table = oracle.corrected("ndcg", k, n, size, correction)
        low, high = _sampled_rank(run[u], next(iter(qrels[u])), ties)
        assert got[u] == pytest.approx(np.mean(table[low - 1 : high]), rel=1e-8, abs=1e-8)


@pytest.mark.parametrize("metric", ["recall@3", "success@1", "ndcg@5", "ndcg", "mrr@4", "map"])
@pytest.mark.parametrize("correction", ["rank", "minimal_bias", "bv"])
@pytest.mark.parametrize(("n", "size"), [(1, 2), (3, 4), (5, 40), (12, 13), (20, 97)])
def test_corrected_metric_equals_the_formulas(metric, correction, n, size):
    name, _, k = metric.partition("@")
    want = oracle.corrected(name, int(k) if k else None, n, size, correction)
    got = corrected_metric(metric, n, size, correction)
    assert got.shape == (n + 1,)
    np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("gamma", [0.0, 0.3, 1.0])
def test_bv_gamma_equals_its_objective(gamma):
    # the minimiser of sum_r (E[M^ | r] - M(r))^2 + gamma Var(M^ | r), by brute force
    n, size, k = 4, 30, 5
    a = oracle.pmf_matrix(n, size)
    m = np.array([oracle.metric_at("ndcg", k, r) for r in range(1, size + 1)])

    def objective(x):
        mean = a @ x
        return float(((mean - m) ** 2).sum() + gamma * ((a @ x**2) - mean**2).sum())

    got = corrected_metric(f"ndcg@{k}", n, size, "bv", gamma=gamma)
    base = objective(got)
    for j in range(n + 1):
        for step in (1e-4, -1e-4):
            moved = got.copy()
            moved[j] += step
            assert objective(moved) >= base - 1e-12


@pytest.mark.parametrize("correction", ["rank", "minimal_bias"])
def test_corrected_metric_refuses_a_gamma_its_correction_does_not_read(correction):
    # as evaluate refuses it: a gamma beside "rank" or "minimal_bias" would be ignored
    with pytest.raises(InvalidParameterError) as info:
        corrected_metric("recall@1", 1, 3, correction, gamma=0.5)
    assert str(info.value) == (
        f"corrected_metric: gamma is the weight of correction='bv'. Got gamma=0.5 with "
        f"correction={correction!r}; drop gamma, or pass correction='bv'."
    )
    np.testing.assert_array_equal(corrected_metric("recall@1", 1, 3, "bv"),
                                  corrected_metric("recall@1", 1, 3, "bv", gamma=0.1))  # fmt: skip


def test_sampled_report_refuses_a_gamma_without_bv():
    qrels = {"u1": {3: 1}, "u2": {7: 1}}
    run = {u: {i: float(i) for i in range(20)} for u in qrels}
    c = sample_negatives(qrels, 20, n=5, seed=0)
    with pytest.raises(InvalidParameterError) as info:
        sampled_report(qrels, run, ["recall@1"], candidates=c, corrections=["rank"], gamma=0.5)
    assert str(info.value) == (
        "sampled_report: gamma is the weight of corrections=['bv']. Got gamma=0.5 with "
        "corrections=['rank']; drop gamma, or add 'bv' to the corrections."
    )
    with pytest.raises(InvalidParameterError, match=r"with corrections=\['rank', 'minimal_bias'\]"):
        sampled_report(qrels, run, ["recall@1"], candidates=c,
                       corrections=["rank", "minimal_bias"], gamma=0.5)  # fmt: skip
    report = sampled_report(qrels, run, ["recall@1"], candidates=c, corrections=["bv"],
                            gamma=0.5)  # fmt: skip
    assert report.reports["bv"].sampling.gamma == 0.5


def test_rank_correction_is_the_metric_at_the_estimated_rank():
    n, size = 7, 1000
    got = corrected_metric("mrr", n, size, "rank")
    want = [1 / math.floor(1 + (s - 1) * (size - 1) / n) for s in range(1, n + 2)]
    np.testing.assert_allclose(got, want, rtol=1e-15)


LIST = st.lists(st.sampled_from("abcdefg"), max_size=6, unique=True)


@pytest.mark.filterwarnings("ignore::receval.exceptions.UnmatchedIdsWarning")
@given(st.lists(st.tuples(LIST, st.sets(st.sampled_from("abcdefgh"), max_size=4)), min_size=1,
                max_size=5), st.integers(1, 7))  # fmt: skip
def test_pooled_hit_ratio_equals_hits_over_relevant_items(users, k):
    lists, relevant = [u[0] for u in users], [u[1] for u in users]
    assume(any(relevant) and any(lists))
    hits = sum(len(set(items[:k]) & rel) for items, rel in zip(lists, relevant, strict=True))
    want = hits / sum(len(rel) for rel in relevant)
    assert pooled_hit_ratio_at_k(lists, relevant, k=k) == pytest.approx(want, abs=1e-12)


# ------------------------------------------------------------------ the draws
def _negatives(c: Candidates, qrels: dict) -> dict:
    return {u: items[len(qrels[u]) :] for u, items in c.to_dict().items()}


@pytest.mark.parametrize("excluded", [0, 3, 14])  # 14 of 20: drawn from explicit lists
def test_uniform_draws_pass_a_chi_square_test_and_skip_forbidden_items(excluded):
    size, n, users = 20, 4, 6000
    qrels = {u: {u % size: 1} for u in range(users)}
    exclude = {u: [(u % size + 1 + j) % size for j in range(excluded)] for u in range(users)}
    c = sample_negatives(qrels, size, n=n, seed=7, exclude=exclude)
    counts = np.zeros((size, size))  # by the user's judged item: each allowed item alike
    for u, neg in _negatives(c, qrels).items():
        assert len(neg) == n == len(set(neg))
        assert not set(neg) & ({u % size} | set(exclude[u]))
        counts[u % size, neg] += 1
    for judged in range(size):
        allowed = np.flatnonzero(counts[judged] > 0)
        assert len(allowed) == size - 1 - excluded
        assert stats.chisquare(counts[judged, allowed]).pvalue > 1e-4


def test_popularity_draws_follow_successive_sampling_in_a_chi_square_test():
    size, n, users = 6, 2, 30000
    weights = np.array([1.0, 2, 3, 4, 0, 6])
    qrels = {u: {0: 1} for u in range(users)}
    c = sample_negatives(qrels, size, n=n, seed=3, strategy="popularity",
                         popularity=(np.arange(size), weights))  # fmt: skip
    got = np.bincount(np.concatenate(list(_negatives(c, qrels).values())), minlength=size)
    # P(item i among the 2 draws), without replacement, from the allowed items 1, 2, 3, 5
    allowed = [1, 2, 3, 5]
    w = {i: weights[i] for i in allowed}
    total = sum(w.values())
    p = {i: w[i] / total + sum(w[j] / total * w[i] / (total - w[j]) for j in allowed if j != i)
         for i in allowed}  # fmt: skip
    assert got[0] == got[4] == 0
    expected = np.array([p[i] for i in allowed]) * users
    assert stats.chisquare(got[allowed], expected).pvalue > 1e-4


@given(st.integers(0, 2**32), st.integers(1, 8), st.integers(0, 9))
def test_the_same_seed_draws_the_same_sets_and_never_a_forbidden_item(seed, n, n_excluded):
    size = 15
    qrels = {u: {(3 * u) % size: 1, (3 * u + 1) % size: 2} for u in range(7)}
    exclude = {u: [(3 * u + 2 + j) % size for j in range(n_excluded)] for u in range(7)}
    first = sample_negatives(qrels, size, n=n, seed=seed, exclude=exclude)
    again = sample_negatives(qrels, size, n=n, seed=seed, exclude=exclude)
    assert first.to_dict() == again.to_dict()
    for u, neg in _negatives(first, qrels).items():
        allowed = set(range(size)) - set(qrels[u]) - set(exclude[u])
        assert len(neg) == min(n, len(allowed)) == len(set(neg))
        assert set(neg) <= allowed
    assert first.n_short == sum(1 for u in qrels if size - 2 - n_excluded < n)

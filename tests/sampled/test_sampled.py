"""Sampled-negative evaluation: sample_negatives, evaluate(candidates=, correction=),
corrected_metric against the slow oracle and hand-computed cases."""

from __future__ import annotations

import dataclasses
import os
import warnings

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import receval
from receval import (
    Candidates,
    InputValidationError,
    InvalidParameterError,
    corrected_metric,
    evaluate,
    sample_negatives,
    sampled_report,
)
from receval.sampled import corrections as _corrections
from receval.sampled.corrections import rank_metric
from tests.oracles import ranking as ranking_oracle
from tests.oracles import sampled as oracle


# ------------------------------------------------------------------ corrections
def test_hand_case_n1_catalog3():
    # A = [[1, 0], [.5, .5], [0, 1]], M = recall@1 = [1, 0, 0]
    # minimal bias: A'A = [[1.25, .25], [.25, 1.25]], A'M = [1, 0] -> [5/6, -1/6]
    assert corrected_metric("recall@1", 1, 3, "minimal_bias") == pytest.approx([5 / 6, -1 / 6])
    # bv: (0.9 A'A + 0.1 diag(1.5, 1.5)) x = [1, 0] -> [17/21, -1/7]
    assert corrected_metric("recall@1", 1, 3, "bv") == pytest.approx([17 / 21, -1 / 7])
    # rank estimation: r^ = 1 + 2 (r~ - 1) -> ranks 1 and 3
    assert corrected_metric("recall@1", 1, 3, "rank") == pytest.approx([1.0, 0.0])
    assert corrected_metric("ndcg@5", 1, 3, "rank") == pytest.approx([1.0, 0.5])
    # the paper's estimate is rounded down: sampled rank 2 of 100 negatives among 1,000
    # items estimates rank floor(1 + 999/100) = 10, inside recall@10 (10.99 would not be)
    rank = corrected_metric("recall@10", 100, 1000, "rank")
    assert rank[:2].tolist() == [1.0, 1.0] and rank[2] == 0.0
    assert corrected_metric("ndcg", 100, 1000, "rank")[1] == pytest.approx(1 / np.log2(11))


@pytest.mark.parametrize("metric", ["recall@3", "success@2", "ndcg@4", "ndcg", "mrr@5", "map"])
@pytest.mark.parametrize("correction", ["rank", "minimal_bias", "bv"])
@pytest.mark.parametrize(("n", "size"), [(1, 5), (4, 30), (6, 41)])
def test_corrections_equal_oracle(metric, correction, n, size):
    name, _, k = metric.partition("@")
    want = oracle.corrected(name, int(k) if k else None, n, size, correction)
    got = corrected_metric(metric, n, size, correction)
    assert got == pytest.approx(want, abs=1e-9)


@pytest.mark.parametrize(
    ("n", "correction", "gamma", "warns"),
    [
        (100, "minimal_bias", None, True),  # condition number ~1e16: rounding decides
        (100, "bv", 0.0, True),  # the normal equations of minimal bias: ~1e17
        (100, "bv", None, False),  # gamma 0.1 bounds it near 10
        (20, "minimal_bias", None, False),  # ~5e5: values good to ~1e-10
        (100, "rank", None, False),
    ],
)
def test_a_correction_left_to_rounding_warns(n, correction, gamma, warns):
    kwargs = {} if gamma is None else {"gamma": gamma}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        corrected_metric("recall@10", n, 3000, correction, **kwargs)
    said = [str(w.message) for w in caught if issubclass(w.category, receval.RecevalWarning)]
    assert len(said) == int(warns), said
    if warns:
        assert said[0].startswith(f"corrected_metric: the {correction!r} correction of recall@10")
        assert "condition number" in said[0] and "more than their own size" in said[0]
        assert "pass correction='bv' with a gamma above 0" in said[0]
        # the bound is real: the values move with the order of the arithmetic
        _corrections._corrected.cache_clear()
        with pytest.warns(receval.RecevalWarning), pytest.MonkeyPatch.context() as mp:
            whole = corrected_metric("recall@10", n, 3000, correction, **kwargs)
            _corrections._corrected.cache_clear()
            mp.setattr(_corrections, "_CELLS", 7 * (n + 1))  # blocks of 7 ranks
            blocked = corrected_metric("recall@10", n, 3000, correction, **kwargs)
        _corrections._corrected.cache_clear()
        assert not np.allclose(whole, blocked, rtol=1e-6)


def test_evaluate_warns_once_of_a_correction_left_to_rounding():
    qrels, run, items = _data(seed=1, size=300)
    c = sample_negatives(qrels, items, n=100, seed=4)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        evaluate(qrels, run, ["recall@5"], candidates=c, correction="minimal_bias")
    said = [str(w.message) for w in caught if issubclass(w.category, receval.RecevalWarning)]
    assert len(said) == 1, said
    assert said[0].startswith("evaluate: the 'minimal_bias' correction of recall@5 with n=")
    assert "pass correction='bv' with a gamma above 0" in said[0]


def test_sampled_report_advises_its_own_corrections_argument():
    # it said "pass correction='bv'", an argument sampled_report refuses
    qrels, run, items = _data(seed=1, size=300)
    c = sample_negatives(qrels, items, n=100, seed=4)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sampled_report(qrels, run, ["recall@5"], candidates=c, corrections=["minimal_bias"])
    said = [str(w.message) for w in caught if issubclass(w.category, receval.RecevalWarning)]
    assert len(said) == 1, said
    assert said[0].startswith("sampled_report: the 'minimal_bias' correction of recall@5")
    assert "pass corrections=['bv'] with a gamma above 0" in said[0]
    assert "correction='bv'" not in said[0]


@pytest.mark.parametrize("metric", ["recall@3", "ndcg", "mrr@5"])
def test_bv_spans_minimal_bias_and_the_posterior_mean(metric):
    # the paper's BV family: gamma = 0 is the minimal-bias fit, gamma = 1 the
    # posterior mean sum_r p(r | r~) M(r) under the uniform prior over full ranks
    from scipy.stats import hypergeom

    n, size = 5, 40
    r = np.arange(1, size + 1)
    a = hypergeom.pmf(np.arange(n + 1)[None, :], size - 1, (r - 1)[:, None], n)
    name, _, k = metric.partition("@")
    m = np.array([oracle.metric_at(name, int(k) if k else None, x) for x in r])
    posterior = (a * m[:, None]).sum(axis=0) / a.sum(axis=0)
    assert corrected_metric(metric, n, size, "bv", gamma=1.0) == pytest.approx(posterior)
    assert corrected_metric(metric, n, size, "bv", gamma=0.0) == pytest.approx(
        corrected_metric(metric, n, size, "minimal_bias"), rel=1e-6
    )


def test_the_law_of_sampled_ranks_equals_the_exact_fractions():
    # a catalogue of a million: log-gamma differences of its size lose ~20 bits (scipy's
    # hypergeom.pmf is 2e-10 off here); the core's ratios of consecutive terms, from the
    # mode, stay within a few n ulps
    from fractions import Fraction
    from math import comb

    from receval._core import sampled_rank_law

    n, size = 100, 10**6
    ranks = [1, 2, 50, 1000, 20000, 500000, size - 1, size]
    got = np.concatenate([sampled_rank_law(size, n, r, r) for r in ranks])
    assert np.array_equal(sampled_rank_law(size, n, 999, 1001)[1], got[3])  # rows of a block
    for row, r in enumerate(ranks):
        for j in range(n + 1):
            exact = Fraction(comb(r - 1, j) * comb(size - r, n - j), comb(size - 1, n))
            if exact == 0:
                assert got[row, j] == 0.0
            elif exact > Fraction(1, 10**290):
                assert got[row, j] == pytest.approx(float(exact), rel=1e-11)


def test_blocks_of_ranks_equal_one_block(monkeypatch):
    from receval.sampled import corrections as _corrections

    whole = {c: corrected_metric("ndcg@10", 8, 200, c) for c in ("minimal_bias", "bv")}
    monkeypatch.setattr(_corrections, "_CELLS", 7 * 9)  # blocks of 7 ranks
    _corrections._corrected.cache_clear()
    for c, want in whole.items():
        assert corrected_metric("ndcg@10", 8, 200, c) == pytest.approx(want, abs=1e-9)
    _corrections._corrected.cache_clear()


@pytest.mark.parametrize("correction", ["rank", "minimal_bias", "bv"])
@pytest.mark.parametrize("metric", ["recall@1", "ndcg@10", "mrr"])
def test_every_negative_sampled_gives_the_metric_itself(metric, correction):
    # negatives drawn without replacement: with all N - 1 of them the sampled rank is
    # the full rank (the binomial law of draws with replacement gave recall@1 0.90)
    size = 100
    want = rank_metric(metric, np.arange(1, size + 1))
    got = corrected_metric(metric, size - 1, size, correction)
    np.testing.assert_allclose(got, want, atol=1e-9)


def test_bv_with_gamma_zero_is_minimal_bias_and_gamma_is_read():
    mb = corrected_metric("recall@2", 3, 20, "minimal_bias")
    assert corrected_metric("recall@2", 3, 20, "bv", gamma=0.0) == pytest.approx(mb, abs=1e-8)
    assert not np.allclose(corrected_metric("recall@2", 3, 20, "bv", gamma=0.5), mb)


def test_bv_nearly_unbiased_in_expectation_over_uniform_ranks():
    # sum_r E[M^ | r] over uniform full ranks is close to the true mean of M
    n, size = 20, 400
    a = oracle.pmf_matrix(n, size)
    truth = np.array([oracle.metric_at("recall", 10, r) for r in range(1, size + 1)])
    naive = np.array([oracle.metric_at("recall", 10, s) for s in range(1, n + 2)])
    fixed = corrected_metric("recall@10", n, size, "bv")
    assert abs((a @ fixed).mean() - truth.mean()) < abs((a @ naive).mean() - truth.mean()) / 5


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"metric": "precision@10"}, "function of the rank"),
        ({"metric": "ndcg(gain=exponential)@10"}, "function of the rank"),
        ({"n": 50, "catalog_size": 50}, "below catalog_size"),
        ({"correction": "unbiased"}, "'correction' parameter"),
        ({"gamma": 1.5}, "'gamma' parameter"),
    ],
)
def test_corrected_metric_errors(kwargs, match):
    args = {"metric": "recall@10", "n": 10, "catalog_size": 100, **kwargs}
    with pytest.raises(InvalidParameterError, match=match):
        corrected_metric(**args)


# ------------------------------------------------------------------ sampling
def _qrels(n_users: int, size: int, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    return {
        u: {int(i): 1 for i in rng.choice(size, int(rng.integers(1, 4)), replace=False)}
        for u in range(n_users)
    }


def test_sample_negatives_properties():
    size, n = 300, 20
    qrels = _qrels(200, size)
    exclude = {u: [(u * 7 + j) % size for j in range(30)] for u in range(0, 200, 2)}
    c = sample_negatives(qrels, size, n=n, seed=3, exclude=exclude)
    assert c.catalog_size == size and c.n_requested == n and c.n_short == 0
    got = c.to_dict()
    assert list(got) == list(qrels)
    for u, items in got.items():
        judged = list(qrels[u])
        assert set(items[: len(judged)]) == set(judged)
        negatives = items[len(judged) :]
        assert len(negatives) == n == len(set(negatives))
        assert not set(negatives) & set(judged)
        assert not set(negatives) & set(exclude.get(u, []))
        assert all(0 <= i < size for i in negatives)
    again = sample_negatives(qrels, size, n=n, seed=3, exclude=exclude)
    assert again.to_dict() == got
    assert sample_negatives(qrels, size, n=n, seed=4, exclude=exclude).to_dict() != got


@pytest.mark.parametrize("strategy", ["uniform", "popularity"])
def test_sample_negatives_do_not_depend_on_the_order_of_rows_or_catalogue(strategy):
    # the same qrels, exclusions and catalogue, given in another order (a dict in
    # reverse, a frame's rows shuffled, the catalogue's ids shuffled): the same sets
    size, n = 80, 6
    qrels = _qrels(30, size)
    catalog = np.array([f"i{k}" for k in range(size)])
    named = {f"u{u}": {f"i{i}": g for i, g in items.items()} for u, items in qrels.items()}
    exclude = {f"u{u}": [f"i{(u * 7 + j) % size}" for j in range(9)] for u in range(0, 30, 3)}
    popularity = {f"i{k}": 1 + k % 5 for k in range(size)} if strategy == "popularity" else None
    shuffled = np.random.default_rng(1).permutation(size)
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(
        [(u, i, g) for u, items in named.items() for i, g in items.items()],
        columns=["user", "item", "grade"],
    ).sample(frac=1.0, random_state=2)

    def sets(qrels, catalog):
        c = sample_negatives(qrels, catalog, n=n, seed=5, exclude=exclude,
                             strategy=strategy, popularity=popularity)  # fmt: skip
        return {u: sorted(items) for u, items in c.to_dict().items()}

    expected = sets(named, catalog)
    assert sets(dict(reversed(named.items())), catalog) == expected
    assert sets(frame, catalog) == expected
    assert sets(named, catalog[shuffled]) == expected


def test_sample_negatives_uniform_frequencies():
    size = 10
    qrels = {u: {0: 1} for u in range(20000)}
    c = sample_negatives(qrels, size, n=3, seed=11)
    negatives = np.array([x for items in c.to_dict().values() for x in items[1:]])
    freq = np.bincount(negatives, minlength=size) / len(negatives)
    assert freq[0] == 0
    assert np.abs(freq[1:] - 1 / 9).max() < 0.01


def test_sample_negatives_popularity_frequencies():
    # successive sampling without replacement, as Generator.choice(replace=False, p=)
    size, n, users = 8, 3, 20000
    weights = np.array([0.0, 1, 2, 3, 4, 5, 6, 20])
    qrels = {u: {0: 1} for u in range(users)}
    c = sample_negatives(qrels, size, n=n, seed=5, strategy="popularity",
                         popularity=(np.arange(size), weights))  # fmt: skip
    got = np.bincount([x for items in c.to_dict().values() for x in items[1:]], minlength=size)
    rng = np.random.default_rng(99)
    p = weights / weights.sum()
    ref = np.bincount(
        np.concatenate([rng.choice(size, n, replace=False, p=p) for _ in range(users)]),
        minlength=size,
    )
    assert got[0] == 0
    assert np.abs(got / got.sum() - ref / ref.sum()).max() < 0.01


def test_sample_negatives_popularity_from_train():
    train = {"user": [1, 2, 3, 1], "item": [5, 5, 5, 6]}
    import pandas as pd

    c = sample_negatives({"a": {1: 1}}, 10, n=2, seed=0, strategy="popularity",
                         train=pd.DataFrame(train))  # fmt: skip
    assert sorted(c.to_dict()["a"][1:]) == [5, 6]  # the only items with popularity


def test_short_users_take_all_or_error():
    qrels = {"a": {0: 1, 1: 1}, "b": {2: 1}}
    c = sample_negatives(qrels, 6, n=4, seed=0, exclude={"a": [2, 3]})
    assert c.n_short == 1
    assert sorted(c.to_dict()["a"][2:]) == [4, 5]
    assert len(c.to_dict()["b"]) == 5
    with pytest.raises(InputValidationError, match=r"fewer than n=4 items left.*'a'"):
        sample_negatives(qrels, 6, n=4, seed=0, exclude={"a": [2, 3]}, short="error")
    # the parameter is echoed as written (no thousands separator in n=)
    with pytest.raises(InputValidationError, match=r"1 user has fewer than n=1199 items left"):
        sample_negatives({"a": {0: 1}}, 1200, n=1199, seed=0, exclude={"a": [2]}, short="error")


def test_catalog_ids_and_frame_round_trip():
    qrels = {"u1": {"x": 1}, "u2": {"y": 1}}
    catalog = [f"i{j}" for j in range(30)] + ["x", "y"]
    c = sample_negatives(qrels, catalog, n=5, seed=1)
    frame = c.to_frame()
    back = Candidates.from_frame(frame, catalog_size=len(catalog))
    assert back.to_dict() == c.to_dict()
    assert c.catalog_size == 32


@pytest.mark.parametrize(
    ("catalog", "shown"),
    [(5.0, "5.0"), (True, "True"), ("abc", "'abc'"), ({3, 1, 2}, "{1, 2, 3}")],
)
def test_a_catalog_neither_a_size_nor_ids_names_both_forms(catalog, shown):
    # a float or a set read as a 0-d array: "catalog must be 1-dimensional. Got an
    # array of shape ()", which names neither form the parameter takes
    with pytest.raises(InvalidParameterError) as caught:
        sample_negatives({"u1": {1: 1}}, catalog, n=1, seed=0)
    assert str(caught.value) == (
        "The 'catalog' parameter of sample_negatives must be an integer N (the items 0 to "
        f"N - 1) or an array of item ids. Got {shown} instead; pass e.g. catalog=1000 or "
        "catalog=list(items)."
    )


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"n": 0}, InvalidParameterError, "'n' parameter"),
        ({"strategy": "pop"}, InvalidParameterError, "'strategy' parameter"),
        ({"strategy": "popularity"}, InvalidParameterError, "exactly one of popularity"),
        ({"popularity": {1: 2.0}}, InvalidParameterError, "only read with strategy"),
        ({"exclude": 3}, InvalidParameterError, "'exclude' parameter"),
    ],
)
def test_sample_negatives_errors(kwargs, error, match):
    with pytest.raises(error, match=match):
        sample_negatives({"a": {1: 1}}, 10, **{"n": 3, **kwargs})


# ------------------------------------------------------------------ evaluate
def _data(seed: int = 0, users: int = 40, size: int = 60, ties: bool = True):
    rng = np.random.default_rng(seed)
    items = [f"i{j:02d}" for j in range(size)]
    qrels = {}
    run = {}
    for u in range(users):
        rel = rng.choice(size, int(rng.integers(1, 3)), replace=False)
        qrels[f"u{u}"] = {items[j]: 1 for j in rel}
        scores = rng.integers(0, 8, size) if ties else rng.random(size)
        keep = rng.random(size) < 0.85  # some candidates absent from the run
        run[f"u{u}"] = {items[j]: float(scores[j]) for j in range(size) if keep[j]}
    qrels["gone"] = {items[0]: 1}  # absent from the run
    return qrels, run, items


@pytest.mark.parametrize("metric", ["recall@5", "ndcg@10", "mrr", "map@10", "success@3"])
def test_candidates_equal_oracle_on_restricted_run(metric):
    qrels, run, items = _data()
    c = sample_negatives(qrels, items, n=12, seed=2)
    cands = c.to_dict()
    restricted = {u: {i: s for i, s in r.items() if i in set(cands[u])} for u, r in run.items()}
    report = evaluate(qrels, run, metric, candidates=c)
    name, _, k = metric.partition("@")
    conv = dataclasses.asdict(report.conventions[metric])
    mean, _ = ranking_oracle.evaluate(qrels, restricted, name, int(k) if k else None, conv)
    assert report.mean[metric] == pytest.approx(mean, abs=1e-12)
    n_absent = sum(len(set(cands[u]) - set(run[u])) for u in run)
    assert report.sampling.n_candidates_absent == n_absent
    assert report.sampling.n_rows_dropped == sum(
        len(r) - len(restricted[u]) for u, r in run.items()
    )
    assert report.sampling.catalog_size == len(items)


@pytest.mark.parametrize("metric", ["recall@5", "ndcg@10", "mrr@10", "map"])
@pytest.mark.parametrize("correction", ["rank", "minimal_bias", "bv"])
def test_corrected_evaluate_equals_oracle(metric, correction):
    qrels, run, items = _data(seed=1)
    c = sample_negatives(qrels, items, n=10, seed=4)
    report = evaluate(qrels, run, metric, candidates=c, correction=correction)
    name, _, k = metric.partition("@")
    want = oracle.corrected_user_values(qrels, run, c.to_dict(), name, int(k) if k else None,
                                        len(items), correction)  # fmt: skip
    got = dict(zip(report.users.tolist(), report.values[metric].tolist(), strict=True))
    for user, value in want.items():
        assert got[user] == pytest.approx(value, rel=1e-9, abs=1e-9), user
    assert report.sampling.correction == correction


@pytest.mark.parametrize("correction", ["rank", "bv"])
def test_correction_scores_no_user_without_a_candidate_set_or_run(correction):
    # v has no candidate set (its rows all dropped: sampled value 0), w is absent from
    # the run, x has no relevant item: each keeps its value without a correction
    # (rank: 1.0 for v, the one entry of n = 0; w and x: the rank n + 1 and nan)
    qrels = {"u": {0: 1}, "v": {1: 1}, "w": {2: 1}, "x": {3: 0}}
    run = {"u": {i: float(10 - i) for i in range(10)}, "v": {i: float(i) for i in range(10)},
           "x": {i: float(i) for i in range(10)}}  # fmt: skip
    c = Candidates.from_dict({"u": [0, 5, 6, 7, 8, 9], "w": [2, 5, 6], "x": [3, 4]},
                             catalog_size=100)  # fmt: skip
    report = evaluate(qrels, run, ["recall@1"], candidates=c, correction=correction,
                      empty_users="zero")  # fmt: skip
    top = corrected_metric("recall@1", 5, 100, correction)[0]
    assert report.values["recall@1"].tolist() == [top, 0.0, 0.0, 0.0]
    assert report.mean["recall@1"] == pytest.approx(top / 4, abs=1e-15)
    assert report.sampling.n_users_without_candidates == 1
    assert report.n_users_missing == 1
    one = evaluate(qrels, run, ["recall@1"], candidates=c, correction=correction,
                   empty_users="one", missing_users="skip")  # fmt: skip
    values = one.values["recall@1"]
    assert values[[0, 1, 3]].tolist() == [top, 0.0, 1.0] and np.isnan(values[2])


@pytest.mark.parametrize("correction", ["rank", "minimal_bias", "bv"])
def test_a_user_without_negatives_whose_run_lacks_an_item_keeps_its_sampled_value(correction):
    # y's and w's candidates are all relevant (n = 0), and their runs lack one: the item's
    # last rank n + 1 is then 1, and the correction scored the miss as a hit (rank: 1.0
    # for y where its sampled value is 0); z's run holds its item: rank 1 of 1, corrected
    qrels = {"u": {0: 1}, "y": {1: 1}, "z": {2: 1}, "w": {3: 1, 4: 1}}
    run = {"u": {i: float(10 - i) for i in range(10)}, "y": {5: 1.0, 6: 0.5},
           "z": {2: 1.0, 6: 0.5}, "w": {3: 1.0, 6: 0.5}}  # fmt: skip
    c = Candidates.from_dict({"u": [0, 5, 6], "y": [1], "z": [2], "w": [3, 4]},
                             catalog_size=100)  # fmt: skip
    sampled = evaluate(qrels, run, ["recall@1"], candidates=c).values["recall@1"]
    assert sampled.tolist() == [1.0, 0.0, 1.0, 0.5]
    report = evaluate(qrels, run, ["recall@1"], candidates=c, correction=correction)
    top = corrected_metric("recall@1", 2, 100, correction)[0]
    alone = corrected_metric("recall@1", 0, 100, correction)[0]
    assert report.values["recall@1"].tolist() == pytest.approx([top, 0.0, alone, 0.5],
                                                               rel=1e-12)  # fmt: skip


def test_negatives_are_the_candidates_that_are_not_relevant():
    # b is relevant but not a candidate: the 5 other candidates are u's negatives
    # (candidates minus relevant items counted 4); b, absent, takes the rank n + 1 = 6
    qrels = {"u": {"a": 1, "b": 1}}
    run = {"u": {"a": 0.9, "n1": 0.8, "n2": 0.7, "n3": 0.6, "n4": 0.5, "n5": 0.4, "b": 0.3}}
    c = Candidates.from_dict({"u": ["a", "n1", "n2", "n3", "n4", "n5"]}, catalog_size=50)
    bv = evaluate(qrels, run, ["ndcg@10"], candidates=c, correction="bv")
    table = corrected_metric("ndcg@10", 5, 50, "bv")
    assert bv.mean["ndcg@10"] == pytest.approx((table[0] + table[5]) / 2, rel=1e-12)
    assert bv.mean["ndcg@10"] == pytest.approx(0.33271, abs=5e-6)  # 0.30807 with n = 4
    # a at sampled rank 2 estimates rank floor(1 + 49 / 5) = 10, in recall@10 (with
    # n = 4: 13, out of it)
    run["u"]["n1"] = 0.95
    rank = evaluate(qrels, run, ["recall@10"], candidates=c, correction="rank")
    assert rank.values["recall@10"].tolist() == [0.5]


@pytest.mark.parametrize(
    ("ties", "expected"),
    [("trec", 1 / 2), ("id_descending", 1 / 2), ("input", 1 / 2), ("id_ascending", 1 / 4),
     ("worst", 1 / 4), ("average", (1 / 2 + 1 / 3 + 1 / 4) / 3)],
)  # fmt: skip
def test_correction_ranks_by_the_metric_tie_rule(ties, expected):
    # z is tied with a and b below c; with n = 3 negatives among N = 4 items the rank
    # correction is the metric at the sampled rank itself: the sampled metric
    qrels = {"u": {"z": 1}}
    run = {"u": {"z": 0.5, "a": 0.5, "b": 0.5, "c": 0.9}}
    c = Candidates.from_dict({"u": ["z", "a", "b", "c"]}, catalog_size=4)
    sampled = evaluate(qrels, run, ["mrr"], candidates=c, ties=ties)
    corrected = evaluate(qrels, run, ["mrr"], candidates=c, correction="rank", ties=ties)
    assert sampled.mean["mrr"] == pytest.approx(expected, rel=1e-12)
    assert corrected.mean["mrr"] == pytest.approx(expected, rel=1e-12)


def test_correction_compares_scores_as_the_trec_tie_rule_does():
    # equal in float32: tied under ties="trec", z above a by id
    qrels = {"u": {"z": 1}}
    run = {"u": {"z": 0.1, "a": 0.1 + 1e-10}}
    c = Candidates.from_dict({"u": ["z", "a"]}, catalog_size=3)
    assert evaluate(qrels, run, ["recall@1"], candidates=c).mean["recall@1"] == 1.0
    corrected = evaluate(qrels, run, ["recall@1"], candidates=c, correction="rank")
    assert corrected.mean["recall@1"] == 1.0


def test_correction_names_the_user_with_more_negatives_than_the_catalogue():
    qrels = {"u": {0: 1}, "v": {1: 1}, "w": {2: 1}}
    run = {u: {i: float(i) for i in range(10)} for u in qrels}
    c = Candidates.from_dict({"u": [0, 5, 6, 7, 8], "v": [1, 3, 4, 5, 6, 7, 8], "w": [2, 3]})
    with pytest.raises(InvalidParameterError) as info:
        evaluate(qrels, run, ["recall@1"], candidates=c, correction="rank", catalog_size=4)
    assert str(info.value) == (
        "evaluate: the catalogue must hold more items than each user's sampled negatives "
        "(its candidates that are not relevant). Got catalog_size=4, and user 'v' has 6 "
        "(users with 4 or more: 2); pass the catalogue's size as catalog_size= (the number "
        "of items a full ranking ranks)."
    )
    # users the correction does not score (absent from the run) are not read
    del run["u"], run["v"]
    report = evaluate(qrels, run, ["recall@1"], candidates=c, correction="rank", catalog_size=4)
    assert report.values["recall@1"].tolist() == [0.0, 0.0, 0.0]


def _write_run(directory: str, run: dict) -> str:
    users = [u for u, r in run.items() for _ in r]
    items = [i for r in run.values() for i in r]
    scores = [s for r in run.values() for s in r.values()]
    path = os.path.join(directory, "run.parquet")
    pq.write_table(pa.table({"user": users, "item": items, "score": scores}), path,
                   row_group_size=37)  # fmt: skip
    return path


@pytest.mark.parametrize("correction", [None, "bv", "rank"])
def test_scan_equals_in_memory(tmp_path, correction):
    qrels, run, items = _data(seed=2)
    c = sample_negatives(qrels, items, n=10, seed=6)
    metrics = ["recall@5", "ndcg@10", "mrr"]
    path = _write_run(str(tmp_path), run)
    mem = evaluate(qrels, run, metrics, candidates=c, correction=correction)
    scanned = evaluate(qrels, receval.scan(path, batch_rows=50), metrics, candidates=c,
                       correction=correction)  # fmt: skip
    for m in metrics:
        assert scanned.mean[m] == pytest.approx(mem.mean[m], abs=1e-12)
        np.testing.assert_allclose(scanned.values[m], mem.values[m], atol=1e-12)
    assert scanned.sampling == mem.sampling


def test_candidates_as_frame_or_dict_and_catalog_size():
    qrels, run, items = _data(seed=3)
    c = sample_negatives(qrels, items, n=8, seed=1)
    a = evaluate(qrels, run, "ndcg@10", candidates=c, correction="bv")
    b = evaluate(qrels, run, "ndcg@10", candidates=c.to_frame(), correction="bv",
                 catalog_size=len(items))  # fmt: skip
    d = evaluate(qrels, run, "ndcg@10", candidates=c.to_dict(), correction="bv",
                 catalog_size=len(items))  # fmt: skip
    assert a.mean == b.mean == d.mean


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"correction": "bv"}, "pass candidates="),
        ({"candidates": {"u0": ["i00"]}, "correction": "bv"}, "pass catalog_size="),
        (
            {"candidates": {"u0": ["i00"]}, "correction": "rank", "catalog_size": 9, "gamma": 0.2},
            "gamma is the weight",
        ),
        ({"candidates": 5}, "'candidates' parameter"),
    ],
)
def test_evaluate_sampling_errors(kwargs, match):
    qrels, run, _ = _data(users=3)
    with pytest.raises(InvalidParameterError, match=match):
        evaluate(qrels, run, "recall@5", **kwargs)


@pytest.mark.parametrize("candidates", [None, {"u0": ["i00"]}])
def test_a_catalog_size_without_a_correction_is_refused(candidates):
    # it was ignored: the sampled metrics, uncorrected, as if it had not been given
    qrels, run, _ = _data(users=3)
    with pytest.raises(InvalidParameterError) as raised:
        evaluate(qrels, run, "recall@5", candidates=candidates, catalog_size=100)
    assert str(raised.value) == (
        "evaluate: catalog_size is the catalogue size N of a correction. Got "
        "catalog_size=100 without a correction; pass correction= (one of ['rank', "
        "'minimal_bias', 'bv']) with candidates=, or leave catalog_size out."
    )


@pytest.mark.parametrize(
    ("metric", "conventions", "said"),
    [
        ("ndcg@10", {"discount": "clipped"},
         "the discount 1 / log2(rank + 1) (discount='offset'). Got 'ndcg@10' with "
         "discount='clipped'; pass discount='offset'"),
        ("ndcg@10", {"profile": "lenskit"},
         "the discount 1 / log2(rank + 1) (discount='offset'). Got 'ndcg@10' with "
         "discount='clipped'; pass discount='offset'"),
        ("recall@5", {"depth": 2},
         "the whole list (depth=0). Got 'recall@5' with depth=2; pass depth=0"),
        ("mrr@10", {"judged_only": True},
         "unjudged items ranked (judged_only=False). Got 'mrr@10' with judged_only=True; "
         "pass judged_only=False"),
        ("success@3", {"hit_scores": "positive"},
         "a relevant item a hit at any score (hit_scores='any'). Got 'success@3' with "
         "hit_scores='positive'; pass hit_scores='any'"),
    ],
)  # fmt: skip
def test_correction_refuses_conventions_that_change_the_metric_of_a_rank(metric, conventions, said):
    # the sampled value followed the convention, the corrected one M(r) of the defaults
    # (ndcg: 1 / log2(r + 1), whole lists): it estimated another metric than the one
    # asked for, with no word (ndcg(discount=clipped)@10 in the string was refused)
    qrels, run, items = _data(users=3)
    c = sample_negatives(qrels, items, n=5, seed=0)
    with pytest.raises(InvalidParameterError) as raised:
        evaluate(qrels, run, metric, candidates=c, correction="bv", **conventions)
    name = metric.split("@")[0]
    assert str(raised.value) == (
        f"evaluate: the corrections take {name} as a function of the rank of each relevant "
        f"item, with {said}, or evaluate it without correction=."
    )


def test_correction_refuses_other_metrics():
    qrels, run, items = _data(users=3)
    c = sample_negatives(qrels, items, n=5, seed=0)
    with pytest.raises(InvalidParameterError, match="function of the rank"):
        evaluate(qrels, run, "precision@5", candidates=c, correction="bv")


def test_sampled_report_columns():
    qrels, run, items = _data(seed=5, ties=False)
    rng = np.random.default_rng(1)
    full_run = {u: dict(zip(items, rng.random(len(items)).tolist(), strict=True)) for u in qrels}
    c = sample_negatives(qrels, items, n=10, seed=0)
    rep = sampled_report(qrels, full_run, ["recall@5", "ndcg@10"], candidates=c)
    assert rep.run_covers_catalog
    frame = rep.to_frame()
    assert list(frame.columns) == ["metric", "sampled", "rank", "minimal_bias", "bv", "full"]
    assert rep.full == evaluate(qrels, full_run, ["recall@5", "ndcg@10"]).mean
    assert rep.corrected["bv"] == evaluate(qrels, full_run, ["recall@5", "ndcg@10"],
                                           candidates=c, correction="bv").mean  # fmt: skip
    assert not sampled_report(qrels, run, ["recall@5"], candidates=c).run_covers_catalog


def test_correction_of_popularity_candidates_warns():
    qrels, run, items = _data(users=5)
    c = sample_negatives(qrels, items, n=5, seed=0, strategy="popularity",
                         popularity=(items, np.arange(1, len(items) + 1)))  # fmt: skip
    assert c.strategy == "popularity"
    with pytest.warns(UserWarning, match="uniformly sampled negatives"):
        evaluate(qrels, run, "recall@5", candidates=c, correction="bv")


@pytest.mark.parametrize(
    ("seed", "expected"),
    [(-1, r"an integer in \[0, 2\*\*63 - 1\]. Got -1"), (1.5, "an integer. Got 1.5")],
)
def test_sample_negatives_seed_is_checked_as_for_intervals(seed, expected):
    with pytest.raises(
        InvalidParameterError, match=rf"'seed' parameter of sample_negatives must be {expected}"
    ):
        receval.sample_negatives({"u": {0: 1}}, [0, 1, 2, 3], n=2, seed=seed)


def test_sample_negatives_popularity_zero_in_the_catalog_says_so():
    with pytest.raises(
        InputValidationError, match="2 of them in the catalog, each with popularity 0"
    ):
        receval.sample_negatives({"u": {0: 1}}, [0, 1, 2, 3], n=2, strategy="popularity",
                                 popularity={1: 0, 2: 0})  # fmt: skip
    with pytest.raises(InputValidationError, match="none in the catalog"):
        receval.sample_negatives({"u": {0: 1}}, [0, 1, 2, 3], n=2, strategy="popularity",
                                 popularity={7: 3})  # fmt: skip


def test_sample_negatives_refuses_a_catalog_without_any_qrels_item():
    # the catalog's ints beside the qrels' str items (or ids out of range 0..N-1) drew
    # every negative from ids that share no item with the qrels: candidates ['a', 'b', 3]
    qrels = {"u1": {"a": 1, "b": 1}, "u2": {"c": 1}}
    for catalog in ([1, 2, 3], 10):
        with pytest.raises(InputValidationError, match=(
            r"sample_negatives: none of the 3 qrels items is in the catalog, e.g. qrels items "
            r"\[.a., .b., .c.\], catalog \[\d, \d, \d.*: check the ids for a type or a column "
            r"mix-up\."
        )):  # fmt: skip
            receval.sample_negatives(qrels, catalog, n=1, seed=0)
    with pytest.raises(InputValidationError, match="none of the 1 qrels item is in the catalog"):
        receval.sample_negatives({"u": {5000: 1}}, 1000, n=1, seed=0)
    # a catalog holding some of the judged items is read as before
    c = receval.sample_negatives(qrels, ["a", "d", "e"], n=1, seed=0)
    assert c.n_users == 2


def test_corrected_metric_refuses_a_metric_that_is_not_a_string():
    # was AttributeError: 'int' object has no attribute 'name'
    for metric in (3, None, ["recall@1"]):
        with pytest.raises(InvalidParameterError, match=(
            r"^The 'metric' parameter of corrected_metric must be a metric string such as "
            r"'ndcg@10'. Got \w+ instead.$"
        )):  # fmt: skip
            corrected_metric(metric, 3, 10)


@pytest.mark.parametrize(
    ("corrections", "expected"),
    [
        ("xx", "must be one of ['bv', 'minimal_bias', 'rank']. Got 'xx' instead."),
        (["bv", None], "must be one of ['bv', 'minimal_bias', 'rank']. Got None instead."),
        (
            3,
            "must be a correction or a list of them from ['bv', 'minimal_bias', 'rank']. "
            "Got 3 instead.",
        ),
    ],
)
def test_sampled_report_checks_its_corrections(corrections, expected):
    # corrections=["bv", None] reported the uncorrected value as the correction None; a str
    # was read letter by letter ("The 'correction' parameter of evaluate ... Got 'b'"), an
    # int was a TypeError
    qrels, run, items = _data(users=5)
    c = sample_negatives(qrels, items, n=5, seed=0)
    with pytest.raises(InvalidParameterError) as error:
        sampled_report(qrels, run, ["recall@5"], candidates=c, corrections=corrections)
    assert str(error.value) == f"The 'corrections' parameter of sampled_report {expected}"


def test_sampled_report_refuses_correction_for_corrections():
    # correction= went through **conventions to evaluate beside each report's own: a raw
    # "got multiple values for keyword argument" TypeError
    qrels, run, items = _data(users=5)
    c = sample_negatives(qrels, items, n=5, seed=0)
    with pytest.raises(InvalidParameterError) as error:
        sampled_report(qrels, run, ["recall@5"], candidates=c, correction="bv")
    assert str(error.value) == (
        "sampled_report takes corrections= (a list: one report each), not correction=. Got "
        "correction='bv' instead; pass corrections=['bv']."
    )


def test_sampled_report_takes_one_correction_as_a_string():
    qrels, run, items = _data(users=5)
    c = sample_negatives(qrels, items, n=5, seed=0)
    one = sampled_report(qrels, run, ["recall@5"], candidates=c, corrections="bv")
    listed = sampled_report(qrels, run, ["recall@5"], candidates=c, corrections=["bv"])
    assert list(one.corrected) == ["bv"]
    assert one.corrected == listed.corrected


@pytest.mark.parametrize("scanned", [False, True])
def test_candidates_without_any_run_user_are_refused(tmp_path, scanned):
    # every run row was dropped and every metric was a silent 0.0 (U1 beside u1)
    qrels, run, items = _data(users=5)
    c = Candidates.from_dict({u.upper(): items[:10] for u in run})
    source = receval.scan(_write_run(str(tmp_path), run), batch_rows=50) if scanned else run
    with pytest.raises(InputValidationError) as error:
        evaluate(qrels, source, "recall@5", candidates=c)
    assert str(error.value) == (
        "evaluate: none of the 5 run users has a candidate set (candidates=), so every run "
        "row would be dropped and every metric would be 0; check the candidates' user ids "
        "for a prefix, a type or a column mix-up, or pass allow_unmatched=True to score the "
        "run anyway."
    )
    report = evaluate(qrels, source, "recall@5", candidates=c, allow_unmatched=True)
    assert report.mean["recall@5"] == 0.0
    assert report.sampling.n_users_without_candidates == 5


@pytest.mark.parametrize("scanned", [False, True])
@pytest.mark.parametrize("spelled", ["upper", "int"])
def test_candidates_without_any_run_item_are_refused(tmp_path, scanned, spelled):
    # the run's users, none of its items (I00 or 0 beside i00): every metric a silent 0.0
    qrels, run, items = _data(users=5)
    other = [i.upper() if spelled == "upper" else int(i[1:]) for i in items[:10]]
    c = Candidates.from_dict(dict.fromkeys(run, other))
    source = receval.scan(_write_run(str(tmp_path), run), batch_rows=50) if scanned else run
    n_rows = sum(len(r) for r in run.values())
    with pytest.raises(InputValidationError) as error:
        evaluate(qrels, source, "recall@5", candidates=c)
    shown = {
        "upper": "['I00', 'I01', 'I02', 'I03', 'I04', ...]",
        "int": "[0, 1, 2, 3, 4, ...] (the candidates' are int64, the run's str: an integer id "
        "matches the string of its decimal digits, 7 matches '7' but not '07' or '7.0'; cast "
        "one side so that both hold the same ids (e.g. .astype(int) on numeric strings))",
    }
    assert str(error.value) == (
        f"evaluate: none of the {n_rows} run rows is in its user's candidate set "
        f"(candidates=), e.g. run items ['i00', 'i01', 'i02', 'i03', 'i04', ...], candidate "
        f"items {shown[spelled]}, so every metric would be 0; check the candidates' item ids "
        f"for a prefix, a type or a column mix-up, or pass allow_unmatched=True to score the "
        f"run anyway."
    )
    report = evaluate(qrels, source, "recall@5", candidates=c, allow_unmatched=True)
    assert report.mean["recall@5"] == 0.0
    assert (report.sampling.n_rows_kept, report.sampling.n_rows_dropped) == (0, n_rows)


def test_candidates_keeping_rows_of_one_batch_only_are_not_refused(tmp_path):
    # a batch that keeps no row is no mix-up while another batch keeps some
    qrels, run, items = _data(users=5)
    first = next(iter(run))
    c = Candidates.from_dict({first: items[:10]})
    source = receval.scan(_write_run(str(tmp_path), run), batch_rows=50)
    report = evaluate(qrels, source, "recall@5", candidates=c)
    want = evaluate(qrels, run, "recall@5", candidates=c)
    assert report.sampling == want.sampling
    assert report.sampling.n_rows_kept == sum(i in run[first] for i in items[:10]) > 0
    assert report.sampling.n_users_without_candidates == 4


@pytest.mark.parametrize(
    ("exclude", "message"),
    [
        ((np.array([1]), np.array(["a"], dtype=object)),
         "none of the 1 user of the exclusions (exclude=) is a qrels user, e.g. excluded "
         "users [1], qrels users ['u1', 'u2'] (the exclusions' are int64, the qrels' str"),
        ({"u1": ["A", "B"]},
         "none of the 2 items of the exclusions (exclude=) is in the catalog, e.g. excluded "
         "items ['A', 'B'], catalog items ['a', 'b', 'c', 'd', 'e', ...], so they exclude "
         "nothing; check the ids for a prefix, a type or a column mix-up."),
    ],
    ids=["users", "items"],
)  # fmt: skip
def test_sample_negatives_warns_of_exclusions_that_match_nothing(exclude, message):
    # int users beside str users, or capitals: the exclusions were drawn as negatives
    qrels = {"u1": {"a": 1}, "u2": {"b": 1}}
    catalog = list("abcdefgh")
    with pytest.warns(receval.UnmatchedIdsWarning) as caught:
        c = sample_negatives(qrels, catalog, n=3, seed=0, exclude=exclude)
    assert len(caught) == 1 and str(caught[0].message).startswith(f"sample_negatives: {message}")
    assert c.to_frame().equals(sample_negatives(qrels, catalog, n=3, seed=0).to_frame())


def test_sample_negatives_takes_exclusions_of_other_users_silently():
    qrels = {"u1": {"a": 1}, "u2": {"b": 1}}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        c = sample_negatives(qrels, list("abcd"), n=2, seed=0, exclude={"u1": ["c"], "x": ["z"]})
    assert sorted(c.to_frame().query("user == 'u1'")["item"]) == ["a", "b", "d"]  # a: judged


def test_a_scan_warns_once_of_a_correction_left_to_rounding(tmp_path):
    # each batch of users solved its least-squares problems: the warning came once per
    # batch (here 6); it comes once per evaluation, of the worst problem of every batch
    qrels, run, items = _data(seed=1, size=300)
    c = sample_negatives(qrels, items, n=100, seed=4)
    rows = sum(len(r) for r in run.values())
    source = receval.scan(_write_run(str(tmp_path), run), batch_rows=rows // 3 + 1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        evaluate(qrels, source, ["recall@5", "ndcg@10"], candidates=c, correction="minimal_bias")
    said = [str(w.message) for w in caught if issubclass(w.category, receval.RecevalWarning)]
    assert len(said) == 2, said  # one per metric
    assert said[0].startswith("evaluate: the 'minimal_bias' correction of ndcg@10 with n=100")
    assert said[1].startswith("evaluate: the 'minimal_bias' correction of recall@5 with n=100")

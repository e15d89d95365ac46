"""Top-K ranking metrics: SPEC §7 worked examples, the oracle, properties, errors."""

import dataclasses
import itertools
import math
import re
import warnings

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from receval import evaluate, parse_metric
from receval.conventions import CHOICES
from receval.exceptions import InputValidationError, InvalidParameterError
from receval.registry import grammar
from tests.oracles import ranking as oracle

# random qrels and runs often share no item: evaluate warns (the warning is tested in
# tests/ranking/test_evaluate_matching.py)
pytestmark = pytest.mark.filterwarnings("ignore::receval.exceptions.UnmatchedIdsWarning")


def _lists(grades_in_order, extra_judged=()):
    """One user: items i0, i1, ... ranked in order with the given grades."""
    items = [f"i{j}" for j in range(len(grades_in_order))]
    run = {"u": {item: 100.0 - j for j, item in enumerate(items)}}
    judged = {item: g for item, g in zip(items, grades_in_order, strict=True) if g or True}
    for j, g in enumerate(extra_judged):
        judged[f"x{j}"] = g
    return {"u": judged}, run


def _hits(ranks_of_hits, n_relevant, length):
    items = [f"i{j}" for j in range(1, length + 1)]
    run = {item: 100.0 - j for j, item in enumerate(items)}
    judged = {f"i{r}": 1 for r in ranks_of_hits}
    for j in range(n_relevant - len(ranks_of_hits)):
        judged[f"unretrieved{j}"] = 1
    return judged, run


# ---------------------------------------------------------------- SPEC §7
def test_ap_seed000():
    judged, run = _hits([1, 4, 5, 6], 4, 6)
    assert evaluate({"q": judged}, {"q": run}, "map").mean["map"] == pytest.approx(
        (1 + 2 / 4 + 3 / 5 + 4 / 6) / 4, abs=1e-12
    )
    assert evaluate({"q": judged}, {"q": run}, "map").mean["map"] == pytest.approx(0.691667, 1e-6)


def test_ap_seeds002_003():
    judged, run = _hits([1, 3, 6], 3, 6)
    assert evaluate({"q": judged}, {"q": run}, "ap").mean["ap"] == pytest.approx(0.722222, abs=1e-6)


def test_map_seed002():
    j1, r1 = _hits([1, 2, 4, 7], 4, 10)
    j2, r2 = _hits([1, 3, 5], 5, 10)
    report = evaluate({"q1": j1, "q2": j2}, {"q1": r1, "q2": r2}, "map")
    assert report.values["map"][0] == pytest.approx(0.830357, abs=1e-6)
    assert report.values["map"][1] == pytest.approx(0.453333, abs=1e-6)
    assert report.mean["map"] == pytest.approx(0.641845, abs=1e-6)


def test_ap_at_5_seed001_min_k_normaliser():
    judged, run = _hits([1, 2], 3, 5)
    report = evaluate(
        {"q": judged}, {"q": run}, ["map@5", "map(ap_normalizer=min_k)@5"], ap_normalizer="min_k"
    )
    assert report.mean["map@5"] == pytest.approx(2 / 3, abs=1e-12)
    assert report.mean["map(ap_normalizer=min_k)@5"] == pytest.approx(2 / 3, abs=1e-12)
    # the other normalisers: by R (also 3 here) and by hits (2)
    assert evaluate({"q": judged}, {"q": run}, "map(ap_normalizer=hits)@5").mean[
        "map(ap_normalizer=hits)@5"
    ] == pytest.approx(1.0)


def test_ndcg_at_6_seed001():
    qrels, run = _lists([3, 2, 3, 0, 1, 2], extra_judged=[3, 0])
    report = evaluate(qrels, run, ["dcg@6", "idcg@6", "ndcg@6"])
    assert report.mean["dcg@6"] == pytest.approx(6.861127, abs=1e-6)
    assert report.mean["idcg@6"] == pytest.approx(8.384055, abs=1e-6)
    assert report.mean["ndcg@6"] == pytest.approx(0.818354, abs=1e-6)


def test_ndcg_at_5_seeds002_003_and_cg():
    qrels, run = _lists([3, 1, 2, 3, 2])
    report = evaluate(
        qrels,
        run,
        ["dcg@5", "idcg@5", "ndcg@5", "ndcg(gain=exponential)@5", "ndcg_burges@5", "cg@5", "cg"],
    )
    assert report.mean["dcg@5"] == pytest.approx(6.696665, abs=1e-6)
    assert report.mean["idcg@5"] == pytest.approx(7.140995, abs=1e-6)
    assert report.mean["ndcg@5"] == pytest.approx(0.937778, abs=1e-6)
    assert report.mean["ndcg(gain=exponential)@5"] == pytest.approx(0.911673, abs=1e-6)
    assert report.mean["ndcg_burges@5"] == report.mean["ndcg(gain=exponential)@5"]
    assert report.mean["cg@5"] == 11 and report.mean["cg"] == 11


def test_mrr_seeds001_003():
    qrels, run = {}, {}
    for user, first in (("a", 3), ("b", 2), ("c", 1)):
        qrels[user], run[user] = _hits([first], 1, 5)
    assert evaluate(qrels, run, "mrr").mean["mrr"] == pytest.approx(11 / 18, abs=1e-12)


def test_pooled_hit_ratio_of_the_seeds_differs_from_hr_the_share_of_users_with_a_hit():
    qrels, run = {}, {}
    for user, hits, size in (("a", 6, 10), ("b", 5, 12), ("c", 4, 8)):
        qrels[user], run[user] = _hits(list(range(1, hits + 1)), size, 10)
    run["d"] = {"x": 1.0}  # a user without a hit
    qrels["d"] = {"y": 1}
    metrics = ["pooled_hit_ratio@10", "success@10", "hit_rate@10", "recall@10"]
    report = evaluate(qrels, run, metrics, allow_unmatched=True)
    # (6+5+4)/(10+12+8+1): the seeds' HR, pooled over users
    assert report.mean["pooled_hit_ratio@10"] == pytest.approx(15 / 31, abs=1e-12)
    assert report.mean["success@10"] == 0.75 == report.mean["hit_rate@10"]
    assert report.mean["recall@10"] == pytest.approx((6 / 10 + 5 / 12 + 4 / 8) / 4)
    np.testing.assert_allclose(report.values["pooled_hit_ratio@10"], [0.6, 5 / 12, 0.5, 0])
    # HR@k as NCF and RecBole report it: the share of users with a hit; the names
    # that meant the pooled ratio before say so, once per process
    grammar._parse.cache_clear()
    grammar._warn_changed.cache_clear()
    with pytest.warns(FutureWarning, match=r"'hr' means success .* meant pooled_hit_ratio"):
        hr = evaluate(qrels, run, ["hr@10", "HR@10"], allow_unmatched=True)
    assert hr.mean == {"hr@10": 0.75, "HR@10": 0.75}
    with pytest.warns(FutureWarning, match=r"'hit_ratio' means success"):
        assert (
            evaluate(qrels, run, "hit_ratio@10", allow_unmatched=True).mean["hit_ratio@10"] == 0.75
        )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        evaluate(qrels, run, ["hr@10", "hit_ratio@10"], allow_unmatched=True)  # warned once


# ---------------------------------------------------------------- conventions
def test_precision_divides_by_k_for_short_lists_and_r_precision():
    judged, run = _hits([1, 2], 4, 3)
    report = evaluate({"q": judged}, {"q": run}, ["p@10", "r_precision", "f1@10"])
    assert report.mean["p@10"] == 0.2
    assert report.mean["r_precision"] == 0.5
    assert report.mean["f1@10"] == pytest.approx(2 * 2 / (10 + 4))


def test_missing_and_empty_users_are_counted():
    qrels = {"a": {"x": 1}, "b": {"y": 1}, "c": {"z": 0}}
    run = {"a": {"x": 1.0}, "zz": {"x": 1.0}}
    report = evaluate(qrels, run, "p@1")
    assert report.n_users == 3 and report.n_users_missing == 2 and report.n_run_only_users == 1
    assert report.n_users_empty["p@1"] == 1
    # b missing -> zero (default); c empty -> skipped (default)
    assert report.mean["p@1"] == 0.5 and report.n_users_skipped["p@1"] == 1
    assert math.isnan(report.values["p@1"][2])
    skip = evaluate(qrels, run, "p@1", missing_users="skip")
    assert skip.mean["p@1"] == 1.0 and skip.n_users_skipped["p@1"] == 2
    zero = evaluate(qrels, run, "p@1", empty_users="zero")
    assert zero.mean["p@1"] == pytest.approx(1 / 3)
    with pytest.raises(
        InputValidationError,
        match=r"^evaluate: 2 qrels users are absent from "
        r"the run, e.g. \['b', 'c'\]; pass missing_users='zero' or 'skip'",
    ):
        evaluate(qrels, run, "p@1", missing_users="error")


def test_rel_threshold_global_and_per_metric():
    qrels = {"u": {"a": 1, "b": 2, "c": 3}}
    run = {"u": {"a": 0.9, "b": 0.8, "c": 0.7}}
    report = evaluate(qrels, run, ["p@1", "p(rel_threshold=2)@1", "recall(rel_threshold=3)@2"])
    assert report.mean["p@1"] == 1.0
    assert report.mean["p(rel_threshold=2)@1"] == 0.0
    assert report.mean["recall(rel_threshold=3)@2"] == 0.0
    assert evaluate(qrels, run, "p@1", rel_threshold=2).mean["p@1"] == 0.0


def test_ties_rules():
    qrels = {"q": {"d1": 1}}
    run = {"q": {"d1": 0.5, "d10": 0.5, "d2": 0.5, "d9": 0.5}}
    # trec: item id descending as strings: d9, d2, d10, d1
    assert evaluate(qrels, run, "mrr").mean["mrr"] == 0.25
    assert evaluate(qrels, run, "mrr", ties="input").mean["mrr"] == 1.0
    expected = (1 + 1 / 2 + 1 / 3 + 1 / 4) / 4
    assert evaluate(qrels, run, "mrr", ties="average").mean["mrr"] == pytest.approx(expected)
    assert evaluate(qrels, run, "p@2", ties="average").mean["p@2"] == pytest.approx(0.25)
    # AP's expected value over the 24 orders: the relevant d1 at each rank equally often
    assert evaluate(qrels, run, "map", ties="average").mean["map"] == pytest.approx(expected)
    # bpref: no judged non-relevant item, so the relevant one scores 1 at any rank
    assert evaluate(qrels, run, "bpref", ties="average").mean["bpref"] == 1.0
    # infAP: the items above d1 are absent from the qrels (out of the pool), so d1 at
    # rank r scores 1/r, as for MRR
    assert evaluate(qrels, run, "infap", ties="average").mean["infap"] == pytest.approx(expected)


@settings(max_examples=300)
@given(
    st.lists(st.sampled_from([0.1, 0.5, 0.5, 0.9]), min_size=1, max_size=8),
    st.lists(st.integers(-1, 2), min_size=8, max_size=8),
    st.sampled_from([None, 1, 2, 3, 5]),
    st.sampled_from(["relevant", "min_k", "hits"]),
)
def test_average_precision_over_tie_orders_equals_enumeration(scores, grades, k, normalizer):
    # AP is not linear in the order when normalised by the hits and a tie straddles k
    items = [f"d{i}" for i in range(len(scores))]
    run = {"u": dict(zip(items, scores, strict=True))}
    qrels = {"u": {d: g for d, g in zip(items, grades, strict=False) if g >= 0} or {"x": 1}}
    metric = "map" if k is None else f"map@{k}"
    report = evaluate(
        qrels, run, metric, ties="average", ap_normalizer=normalizer, allow_unmatched=True
    )
    conv = dataclasses.asdict(report.conventions[metric])  # receval's others, as resolved
    mean, _ = oracle.evaluate(qrels, run, "map", k, conv)
    if math.isnan(mean):  # no relevant item: skipped
        assert math.isnan(report.mean[metric])
    else:
        assert report.mean[metric] == pytest.approx(mean, abs=1e-12)


def test_profiles_set_every_convention_and_keywords_override():
    qrels = {"q": {"a": 1, "b": 1, "c": 1}}
    run = {"q": {"a": 0.9, "x": 0.8}}
    assert evaluate(qrels, run, "map@2").mean["map@2"] == pytest.approx(1 / 3)
    assert evaluate(qrels, run, "map@2", profile="recbole").mean["map@2"] == pytest.approx(1 / 2)
    assert evaluate(qrels, run, "map@2", profile="torchmetrics").mean["map@2"] == 1.0
    assert evaluate(qrels, run, "map@2", profile="recbole", ap_normalizer="relevant").mean[
        "map@2"
    ] == pytest.approx(1 / 3)
    with pytest.raises(
        InvalidParameterError,
        match=r"^The 'profile' parameter of evaluate must "
        r"be one of \['catboost', 'ir_measures', 'lenskit', 'lightgbm', 'ranx', 'recbole', "
        r"'recommenders', 'sklearn', 'torchmetrics', 'torchrec', 'trec_eval', 'xgboost'\]. "
        r"Got 'trec' instead.$",
    ):
        evaluate(qrels, run, "map", profile="trec")


def test_metric_keys_are_the_strings_as_written():
    qrels = {"q": {"a": 1}}
    run = {"q": {"a": 0.9}}
    report = evaluate(qrels, run, ["NDCG@10", "ndcg@10", "Success@3"])
    assert list(report.mean) == ["NDCG@10", "ndcg@10", "Success@3"]
    assert report.metrics == {"NDCG@10": "ndcg@10", "ndcg@10": "ndcg@10", "Success@3": "success@3"}
    with pytest.raises(
        InvalidParameterError,
        match=r"^Unknown metric 'ndgc'. Did you mean "
        r"'ndcg'\? See receval.list_metrics\(\).$",
    ):
        evaluate(qrels, run, "ndgc@10")


def test_per_user_frame():
    qrels = {"a": {"x": 1}, "b": {"y": 1}}
    run = {"a": {"x": 1.0, "y": 0.5}, "b": {"x": 0.3, "y": 0.2}}
    frame = evaluate(qrels, run, ["p@1", "mrr"]).to_frame()
    assert list(frame.columns) == ["user", "p@1", "mrr"]
    assert frame["mrr"].tolist() == [1.0, 0.5]


# ---------------------------------------------------------------- against the oracle
NAMES = [
    "precision",
    "recall",
    "f1",
    "pooled_hit_ratio",
    "success",
    "map",
    "cg",
    "dcg",
    "idcg",
    "ndcg",
    "mrr",
    "r_precision",
]


@st.composite
def ranking_data(draw, max_len=7):
    n_users = draw(st.integers(1, 5))
    items = [f"d{j}" for j in range(12)]
    qrels, run = {}, {}
    for u in range(n_users):
        user = f"u{u}"
        judged = draw(st.dictionaries(st.sampled_from(items), st.integers(-1, 3), max_size=6))
        if judged or draw(st.booleans()):
            qrels[user] = judged or {"d0": 0}
        if draw(st.integers(0, 4)) > 0:
            run[user] = draw(
                st.dictionaries(
                    st.sampled_from(items),
                    st.sampled_from([-0.5, 0.0, 0.1, 0.5, 0.5, 0.9, 1.0]),
                    max_size=max_len,
                )
            )
    if not qrels:
        qrels["u0"] = {"d1": 1}
    if not any(run.values()):
        run["u0"] = {"d1": 0.3}
    run = {u: r for u, r in run.items() if r}
    return qrels, run


@st.composite
def conventions(draw):
    conv = {key: draw(st.sampled_from(values)) for key, values in CHOICES.items()}
    # 0: judged non-relevant items count as relevant, unjudged ones never do (trec_eval -l 0)
    conv["rel_threshold"] = draw(st.integers(0, 3))
    conv["estimator"] = "naive"  # the weighted forms: tests/ranking/test_propensity.py
    if conv["missing_users"] == "error":
        conv["missing_users"] = "zero"
    if conv["empty_users"] == "error":
        conv["empty_users"] = "zero"
    return conv


@settings(max_examples=150)
@given(ranking_data(), conventions(), st.sampled_from(NAMES), st.sampled_from([None, 1, 3, 10]))
def test_equals_oracle(data, conv, name, k):
    qrels, run = data
    metric = name if k is None else f"{name}@{k}"
    # the metric takes the conventions that change it (the others are refused)
    info = parse_metric(name).info
    reads = info.conventions
    assume(all(conv[c] in (info.values_of(c) or (conv[c],)) for c in reads if c in conv))
    report = evaluate(
        qrels,
        run,
        metric,
        **{c: v for c, v in conv.items() if c in reads},
        allow_unmatched=True,
    )
    mean, per_user = oracle.evaluate(qrels, run, name, k, conv)
    if math.isnan(mean):
        assert math.isnan(report.mean[metric])
    else:
        assert report.mean[metric] == pytest.approx(mean, abs=1e-12)
    got = dict(zip(report.users.tolist(), report.values[metric].tolist(), strict=True))
    for user, value in per_user.items():
        if value is None:
            assert math.isnan(got[user])
        else:
            assert got[user] == pytest.approx(value, abs=1e-12)


MIXED = [
    "ndcg@3",
    "p(rel_threshold=2)@3",
    "map(ties=input)@10",
    "mrr(ties=average)",
    "ndcg(rel_threshold=2,gain=exponential)",
    "recall(ties=input,rel_threshold=2)@3",
    "success(rel_threshold=0)@1",
    "hr@3",
    "r_precision(ties=average)",
    "ap(ap_normalizer=hits)@3",
    "cg(ties=input)@3",
    "ndcg(ideal=candidates)@3",
]


@given(ranking_data())
def test_many_metrics_in_one_call_equal_one_call_each(data):
    # the kernel shares relevance counts and hit positions between metrics with
    # equal thresholds and tie rules; mixing them must not leak state between metrics
    qrels, run = data
    together = evaluate(qrels, run, MIXED, allow_unmatched=True).values
    for metric in MIXED:
        alone = evaluate(qrels, run, metric, allow_unmatched=True).values[metric]
        np.testing.assert_array_equal(together[metric], alone, err_msg=metric)
    reordered = evaluate(qrels, run, MIXED[::-1], allow_unmatched=True).values
    for metric in MIXED:
        np.testing.assert_array_equal(reordered[metric], together[metric], err_msg=metric)


@given(ranking_data())
def test_bounds_and_monotonicity_in_k(data):
    qrels, run = data
    names = ["precision", "recall", "f1", "pooled_hit_ratio", "success", "map", "ndcg", "mrr"]
    ks = [1, 2, 3, 5, 8]
    report = evaluate(
        qrels,
        run,
        [f"{n}@{k}" for n in names for k in ks] + ["r_precision"],
        empty_users="zero",
        allow_unmatched=True,
    )
    for metric, value in report.mean.items():
        assert 0.0 <= value <= 1.0, metric
    for name in ("recall", "success", "pooled_hit_ratio"):
        series = [report.mean[f"{name}@{k}"] for k in ks]
        assert all(b >= a - 1e-15 for a, b in itertools.pairwise(series)), name


@given(ranking_data())
def test_perfect_ranking_scores_one(data):
    qrels, _ = data
    run = {
        u: {
            i: float(g) + 1e-3 * j
            for j, (i, g) in enumerate(sorted(judged.items(), key=lambda kv: kv[1]))
        }
        for u, judged in qrels.items()
    }
    report = evaluate(qrels, run, ["ndcg@3", "ndcg", "map", "mrr", "r_precision", "success@1"])
    for metric, value in report.mean.items():
        assert math.isnan(value) or value == pytest.approx(1.0), metric


def test_canonical_strings_round_trip():
    for text in [
        "ndcg@10",
        "NDCG(Gain=Exponential)@10",
        "hr@5",
        "map(ap_normalizer=min_k)@3",
        "r_precision",
        "mrr",
        "p(rel_threshold=2,ties=input)@1",
    ]:
        spec = parse_metric(text)
        assert parse_metric(str(spec)) == spec


@pytest.mark.parametrize("seed", range(5))
def test_ranking_exact_for_nearly_equal_and_signed_zero_scores(seed):
    # scores that differ only in their last bits, and -0.0 == 0.0, must rank
    # exactly (stable input order within true ties); long lists too
    rng = np.random.default_rng(seed)
    base = np.array(
        [
            0.5,
            np.nextafter(0.5, 1),
            np.nextafter(np.nextafter(0.5, 1), 1),
            0.0,
            -0.0,
            1e-300,
            -1e-300,
            3.0,
        ]
    )
    for n in (5, 40, 300):
        scores = rng.choice(base, n)
        items = [f"d{j}" for j in range(n)]
        run = {"u": dict(zip(items, scores.tolist(), strict=True))}
        judged = {
            items[j]: int(rng.integers(0, 3)) for j in rng.choice(n, min(n, 6), replace=False)
        }
        judged.setdefault(items[0], 1)
        qrels = {"u": judged}
        for name in ("map", "ndcg@10", "mrr", "p@3"):
            spec = parse_metric(name)
            conv = {
                "ap_normalizer": "relevant",
                "gain": "linear",
                "rel_threshold": 1,
                "ties": "input",
                "missing_users": "zero",
                "empty_users": "zero",
                "ideal": "judged",
            }
            mean, _ = oracle.evaluate(qrels, run, spec.name, spec.k, conv)
            assert evaluate(qrels, run, name, **conv).mean[name] == pytest.approx(mean, abs=1e-12)


def test_catboost_pfound_err_and_average_gain_by_hand():
    # a (0), then b (1) and c (0) tied, then d (1): CatBoost puts c before b (ties="worst")
    qrels = {"q": {"a": 0, "b": 1, "c": 0, "d": 1}}
    run = {"q": {"a": 0.9, "b": 0.5, "c": 0.5, "d": 0.1}}
    names = ["err(probability=true)", "err", "pfound", "pfound(decay=0.5)", "average_gain@2",
             "average_gain@3", "average_gain", "PFound:top=2", "ERR:top=-1"]  # fmt: skip
    got = evaluate(qrels, run, names, profile="catboost").mean
    assert got["err(probability=true)"] == pytest.approx(1 / 3)  # b stops the user at 3
    assert got["err"] == pytest.approx(1 / 16 / 3 + 15 / 16 / 16 / 4)  # gdeval's: (2^g - 1) / 16
    assert got["pfound"] == pytest.approx(0.85**2)
    assert got["pfound(decay=0.5)"] == pytest.approx(0.25)
    assert got["PFound:top=2"] == 0.0
    assert [got[f"average_gain{k}"] for k in ("@2", "@3", "")] == pytest.approx([0, 1 / 3, 0.5])
    assert got["ERR:top=-1"] == got["err(probability=true)"]
    # every order of the tie equally likely: b at 2 or 3
    mean = evaluate(qrels, run, names[:4], profile="catboost", ties="average").mean
    assert mean["err(probability=true)"] == pytest.approx((1 / 2 + 1 / 3) / 2)
    assert mean["pfound"] == pytest.approx((0.85 + 0.85**2) / 2)


def test_catboost_spellings_of_the_cascade_metrics_are_checked():
    from receval.exceptions import InvalidParameterError

    with pytest.raises(InvalidParameterError, match="AverageGain needs top, an integer > 0"):
        evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["AverageGain:top=-1"])
    with pytest.raises(InvalidParameterError, match=r"cannot read 'border=1'; expected one of"):
        evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["ERR:border=1"])
    with pytest.raises(InvalidParameterError, match="decay"):
        evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["PFound:decay=1.5"])


@pytest.mark.parametrize(
    ("metric", "fix"),
    [
        ("err@10", "Pass err(max_grade=5) or map the grades to [0, 4]."),
        ("ERR@10", "Pass err(max_grade=5) or map the grades to [0, 4]."),
        ("nerr", "Map the grades to [0, 4]."),
    ],
)
def test_err_refuses_grades_that_would_stop_with_probability_above_one(metric, fix):
    # a grade of 5 stopped the user with probability 31/16: ERR was 1.9375 (gdeval
    # refuses a grade above its maximum)
    qrels, run = {"u": {"a": 5, "b": 1}}, {"u": {"a": 1.0, "b": 0.5}}
    with pytest.raises(InputValidationError, match="Got a grade of 5; " + re.escape(fix)):
        evaluate(qrels, run, [metric])
    assert evaluate(qrels, run, ["err(max_grade=5)@10"]).mean["err(max_grade=5)@10"] <= 1


def test_a_negative_rel_threshold_is_refused():
    # below 0, trec_eval's measures counted unjudged items as relevant and the others did
    # not: set_recall 2.0 in one report with precision@2 0.5
    with pytest.raises(InvalidParameterError, match=r"'rel_threshold' .* in \[0\.0, inf\)"):
        evaluate({"u": {"a": 1}}, {"u": {"a": 1.0, "x": 0.5}}, ["set_recall"], rel_threshold=-1)
    with pytest.raises(InvalidParameterError, match="rel_threshold"):
        evaluate({"u": {"a": 1}}, {"u": {"a": 1.0}}, ["ndcg(rel_threshold=-2)"])


def test_users_given_as_empty_dicts_only_are_kept():
    # every user {}: "users is empty"; pytrec_eval scores a user of an empty run 0
    import pytrec_eval

    qrels, run = {"u1": {"a": 1}}, {"u1": {}}
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"P_5", "recip_rank"}).evaluate(run)
    report = evaluate(qrels, run, ["P_5", "recip_rank"], profile="trec_eval")
    assert report.per_user.set_index("user").to_dict("index") == expected
    # a user judged {} has no relevant item: kept, with empty_users' value (here 0)
    report = evaluate({"u": {}}, {"u": {"a": 1.0}}, ["mrr"], profile="trec_eval")
    assert report.mean == {"mrr": 0.0} and report.n_users_empty == {"mrr": 1}

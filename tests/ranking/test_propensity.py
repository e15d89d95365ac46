"""Propensity-weighted (IPS / SNIPS) ranking metrics: the oracle, unbiasedness by
simulation, consistency, the propensity sources, clipping, scans and errors."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval
from receval import evaluate
from receval.exceptions import InputValidationError, InvalidParameterError
from tests.cli._helpers import invoke, make_runner
from tests.oracles import propensity as oracle
from tests.ranking.test_ranking import ranking_data

# random qrels and runs often share no item: evaluate warns (the warning is tested in
# tests/ranking/test_evaluate_matching.py)
pytestmark = pytest.mark.filterwarnings("ignore::receval.exceptions.UnmatchedIdsWarning")

NAMES = ["precision", "recall", "dcg", "ndcg", "map"]


def _propensity(user, item):
    """A fixed propensity in (0, 1] for every (user, item) pair of the test data."""
    return 0.05 + 0.95 * ((hash((str(user), str(item))) % 997) / 996)


def _pairs(qrels):
    return {u: {i: _propensity(u, i) for i in judged} for u, judged in qrels.items()}


@st.composite
def conventions(draw, name):
    ties = ["trec", "input", "id_ascending", "id_descending", "average"]
    if name == "map":
        ties = ties[:-1]
    conv = {
        "ties": draw(st.sampled_from(ties)),
        "rel_threshold": draw(st.integers(0, 3)),
        "gain": draw(st.sampled_from(["linear", "exponential", "binary"])),
        "missing_users": draw(st.sampled_from(["zero", "skip", "complete"])),
        "empty_users": draw(st.sampled_from(["skip", "zero", "one"])),
        "zero_users": draw(st.sampled_from(["keep", "skip"])),
        "hit_scores": draw(st.sampled_from(["any", "positive"])),
        "depth": draw(st.sampled_from([0, 2])),
        "judged_only": draw(st.booleans()),
        "estimator": draw(st.sampled_from(["ips", "snips"])),
    }
    if conv["ties"] == "average":  # refused with depth (tested below)
        conv["depth"] = 0
    # the conventions that change the metric (it refuses the others)
    reads = receval.parse_metric(name).info.conventions
    return {key: value for key, value in conv.items() if key in reads}


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(NAMES).flatmap(lambda n: st.tuples(st.just(n), conventions(n))),
    ranking_data(),
    st.sampled_from([None, 1, 3, 10]),
    st.sampled_from([None, 0.3]),
)
def test_equals_oracle_with_ties(named, data, k, clip):
    name, conv = named
    qrels, run = data
    metric = name if k is None else f"{name}@{k}"
    report = evaluate(qrels, run, metric, propensities=_pairs(qrels), propensity_clip=clip,
                      allow_unmatched=True, **conv)  # fmt: skip
    mean, per_user = oracle.evaluate(qrels, run, name, k, conv, _propensity, clip or 0.0)
    if math.isnan(mean):
        assert math.isnan(report.mean[metric])
    else:
        assert report.mean[metric] == pytest.approx(mean, rel=1e-9, abs=1e-12)
    got = dict(zip(report.users.tolist(), report.values[metric].tolist(), strict=True))
    for user, value in per_user.items():
        if value is None:
            assert math.isnan(got[user])
        else:
            assert got[user] == pytest.approx(value, rel=1e-9, abs=1e-12)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(NAMES).flatmap(lambda n: st.tuples(st.just(n), conventions(n))),
    ranking_data(),
    st.sampled_from([None, 1, 3, 10]),
    st.booleans(),
)
def test_propensity_one_is_the_unweighted_metric(named, data, k, integer_ids):
    # every weight 1: both estimators are the kernel's unweighted metric, convention by
    # convention (integer ids: tied scores ordered by the ids as numbers, as the kernel)
    name, conv = named
    qrels, run = data
    if integer_ids:
        qrels = {u: {int(i[1:]) + 1: g for i, g in d.items()} for u, d in qrels.items()}
        run = {u: {int(i[1:]) + 1: s for i, s in d.items()} for u, d in run.items()}
    metric = name if k is None else f"{name}@{k}"
    ones = {u: {i: 1.0 for i in judged} for u, judged in qrels.items()}
    weighted = evaluate(qrels, run, metric, propensities=ones, allow_unmatched=True, **conv)
    naive = evaluate(qrels, run, metric, allow_unmatched=True, **{**conv, "estimator": "naive"})
    np.testing.assert_allclose(weighted.values[metric], naive.values[metric], atol=1e-12)
    assert weighted.n_users_skipped == naive.n_users_skipped
    assert weighted.n_users_empty == naive.n_users_empty


# ---------------------------------------------------------------- simulation
def _simulation(seed, n_users=40, n_items=30, n_draws=150):
    """Full relevance, a ranking, and observations drawn with known propensities:
    (full qrels, run, observed qrels of every draw, propensity of each item)."""
    rng = np.random.default_rng(seed)
    popularity = rng.pareto(1.2, n_items) + 0.05
    p_item = np.clip(popularity / popularity.max(), 0.08, 1.0)  # popular: observed often
    full, run = {}, {}
    for u in range(n_users):
        relevant = rng.random(n_items) < 0.3
        relevant[rng.integers(n_items)] = True
        full[u] = {int(i): 1 for i in np.flatnonzero(relevant)}
        # the ranking favours popular items, relevant or not
        scores = 0.6 * rng.random(n_items) + 0.4 * p_item
        run[u] = {int(i): float(s) for i, s in enumerate(scores)}
    observed = {}
    for d in range(n_draws):
        for u in range(n_users):
            seen = {i: g for i, g in full[u].items() if rng.random() < p_item[i]}
            observed[(d, u)] = seen
    return full, run, observed, p_item


def _mean_and_se(values):
    values = np.asarray(values, dtype=float)
    return values.mean(), values.std(ddof=1) / math.sqrt(len(values))


@pytest.mark.parametrize("metric", ["p@5", "p@10", "dcg@5", "dcg"])
def test_ips_is_unbiased_and_naive_is_not(metric):
    full, run, observed, p_item = _simulation(seed=7)
    truth = evaluate(full, run, metric, ties="input").mean[metric]
    users = [f"{d}-{u}" for d, u in observed]
    qrels = {f"{d}-{u}": seen or {} for (d, u), seen in observed.items()}
    runs = {f"{d}-{u}": run[u] for d, u in observed}
    qrels = {u: q for u, q in qrels.items() if q}  # users without an observation score 0
    item_p = {i: float(p) for i, p in enumerate(p_item)}
    options = {"ties": "input", "empty_users": "zero"}
    ips = evaluate(qrels, runs, metric, propensities=item_p, **options)
    naive = evaluate(qrels, runs, metric, **options)
    n_absent = len(users) - len(qrels)  # every metric is 0 for them
    ips_values = np.concatenate([ips.values[metric], np.zeros(n_absent)])
    naive_values = np.concatenate([naive.values[metric], np.zeros(n_absent)])
    mean, se = _mean_and_se(ips_values)
    assert abs(mean - truth) < 4 * se, (mean, truth, se)
    naive_mean, naive_se = _mean_and_se(naive_values)
    assert abs(naive_mean - truth) > 10 * naive_se  # the unweighted estimate is visibly biased


@pytest.mark.parametrize("metric", ["recall@5", "recall@100", "ndcg@5", "ndcg", "map@10", "map"])
def test_snips_is_consistent(metric):
    # many relevant items per user: the self-normalised estimate of each user's value
    # approaches the full-information value
    rng = np.random.default_rng(3)
    n_items = 3000
    p_item = np.clip(rng.pareto(1.0, n_items) / 5 + 0.05, 0.05, 1.0)
    full, run, observed = {}, {}, {}
    for u in range(4):
        relevant = np.flatnonzero(rng.random(n_items) < 0.5)
        full[u] = {int(i): 1 for i in relevant}
        run[u] = {int(i): float(s) for i, s in enumerate(rng.random(n_items) + 0.3 * p_item)}
        observed[u] = {int(i): 1 for i in relevant if rng.random() < p_item[i]}
    item_p = {i: float(p) for i, p in enumerate(p_item)}
    options = {"ties": "input"}
    truth = evaluate(full, run, metric, **options).values[metric]
    snips = evaluate(observed, run, metric, propensities=item_p, estimator="snips", **options)
    naive = evaluate(observed, run, metric, **options)
    err = np.abs(snips.values[metric] - truth)
    naive_err = np.abs(naive.values[metric] - truth)
    assert err.max() < 0.1 * float(truth.max()) + 0.02
    assert err.mean() <= naive_err.mean() + 1e-12


def test_clipping_bounds_the_weights():
    qrels = {"u": {"a": 1, "b": 1}}
    run = {"u": {"a": 0.9, "b": 0.8, "c": 0.1}}
    props = {"a": 0.01, "b": 0.5}
    raw = evaluate(qrels, run, "dcg@2", propensities=props).mean["dcg@2"]
    clipped = evaluate(qrels, run, "dcg@2", propensities=props, propensity_clip=0.1)
    assert raw == pytest.approx(100 + 2 / math.log2(3))
    assert clipped.mean["dcg@2"] == pytest.approx(10 + 2 / math.log2(3))
    # a clip above every propensity: every weight 1 / clip, SNIPS then equals the naive value
    same = evaluate(qrels, run, "ndcg@2", propensities=props, propensity_clip=1.0)
    assert same.mean["ndcg@2"] == pytest.approx(evaluate(qrels, run, "ndcg@2").mean["ndcg@2"])
    # the pairs the clip changed are counted (the report said nothing of them): a's
    # propensity 0.01 is below 0.1; with a clip of 1, both pairs'
    assert clipped.n_pairs_propensity_clipped == {"dcg@2": 1}
    assert same.n_pairs_propensity_clipped == {"ndcg@2": 2}
    unclipped = evaluate(qrels, run, ["dcg@2", "mrr(estimator=naive)"], propensities=props)
    assert unclipped.n_pairs_propensity_clipped == {}
    both = evaluate(qrels, run, ["dcg@2", "mrr(estimator=naive)"], propensities=props,
                    propensity_clip=0.1)  # fmt: skip
    assert both.n_pairs_propensity_clipped == {"dcg@2": 1}  # the unweighted one: none
    acc = receval.metric("dcg@2", propensities=props, propensity_clip=0.1)
    assert acc.update(qrels, run).compute() == clipped.mean["dcg@2"]


def test_accumulators_made_apart_with_the_same_propensities_merge():
    import pandas as pd

    qrels = {"u": {"a": 1, "b": 1}, "v": {"c": 1}}
    run = {"u": {"a": 0.9, "b": 0.1}, "v": {"c": 0.3, "a": 0.9}}
    per_pair = pd.DataFrame({"user": ["u", "u", "v"], "item": ["a", "b", "c"],
                             "propensity": [0.5, 0.25, 0.8]})  # fmt: skip
    for props in ({"a": 0.5, "b": 0.25, "c": 0.8}, per_pair):
        accs = [receval.metric("recall@1", propensities=props, propensity_clip=0.3)
                .update({u: qrels[u]}, {u: run[u]}) for u in qrels]  # fmt: skip
        want = evaluate(qrels, run, "recall@1", propensities=props, propensity_clip=0.3)
        assert accs[0].merge(accs[1]).compute() == want.mean["recall@1"]
    other = receval.metric("recall@1", propensities={"a": 0.5, "b": 0.25, "c": 0.9})
    with pytest.raises(InvalidParameterError, match="cannot merge"):
        receval.metric("recall@1", propensities={"a": 0.5, "b": 0.25, "c": 0.8}).merge(other)


def test_the_accumulator_counts_the_clipped_pairs_as_evaluate():
    # u's a (0.01) and v's a and c (0.01, 0.05) are below the clip of 0.1
    qrels = {"u": {"a": 1, "b": 1}, "v": {"a": 1, "c": 2}}
    run = {"u": {"a": 0.9, "b": 0.8, "c": 0.1}, "v": {"c": 0.5, "a": 0.4}}
    props = {"a": 0.01, "b": 0.5, "c": 0.05}
    for clip, n in [(0.1, 3), (0.01, 0)]:
        want = evaluate(qrels, run, "ndcg@2", propensities=props, propensity_clip=clip)
        assert want.n_pairs_propensity_clipped == {"ndcg@2": n}
        for whole_groups in (True, False):
            options = {"propensities": props, "propensity_clip": clip,
                       "whole_groups": whole_groups}  # fmt: skip
            accs = [receval.metric("ndcg@2", **options).update({u: qrels[u]}, {u: run[u]})
                    for u in qrels]  # fmt: skip
            counts = [a.skipped().get("n_pairs_propensity_clipped") for a in accs]
            assert counts == ([1, 2] if n else [0, 0])
            merged = accs[0].merge(accs[1])
            assert merged.skipped() == {"n_pairs_propensity_clipped": n, "n_users_missing": 0}
            assert merged.compute() == want.mean["ndcg@2"]
    # no clip, or a metric not weighted: no pair to count, as in evaluate's report
    plain = receval.metric("ndcg@2", propensities=props).update(qrels, run)
    assert plain.skipped() == {"n_users_missing": 0}
    naive = receval.metric("mrr(estimator=naive)", propensities=props, propensity_clip=0.1)
    assert naive.update(qrels, run).skipped() == {"n_users_missing": 0}


@settings(max_examples=100, deadline=None)
@given(
    ranking_data(),
    st.sampled_from([0.05, 0.3, 0.7]),
    st.integers(0, 2),
    st.booleans(),
)
def test_accumulators_split_merged_and_reloaded_count_as_evaluate(data, clip, threshold, whole):
    import pickle

    qrels, run = data
    metric = "dcg(estimator=snips)@3"
    options = {"propensities": _pairs(qrels), "propensity_clip": clip,
               "rel_threshold": threshold}  # fmt: skip
    want = evaluate(qrels, run, metric, allow_unmatched=True, **options)
    accs = [receval.metric(metric, whole_groups=whole, **options) for _ in range(2)]
    for j, user in enumerate(qrels):
        if whole:  # a user's rows in one update
            accs[j % 2].update({user: qrels[user]}, {user: run.get(user, {})})
            continue
        for n, (item, grade) in enumerate(qrels[user].items()):  # its rows in several
            accs[(j + n) % 2].update({user: {item: grade}}, {})
        if user in run:
            accs[j % 2].update({}, {user: run[user]})
    resumed = pickle.loads(pickle.dumps(accs[0]))
    merged = resumed.merge(pickle.loads(pickle.dumps(accs[1])))
    clipped = want.n_pairs_propensity_clipped[metric]
    assert merged.skipped() == {
        "n_pairs_propensity_clipped": clipped,
        "n_users_missing": want.n_users_missing,
    }
    assert accs[1].merge(accs[0]).skipped() == merged.skipped()


def test_worked_example():
    # u: a (p 0.5) at rank 1, b (p 0.25) at rank 3; c relevant but unranked (p 1)
    qrels = {"u": {"a": 1, "b": 1, "c": 1}}
    run = {"u": {"a": 0.9, "x": 0.8, "b": 0.7}}
    props = {"u": {"a": 0.5, "b": 0.25, "c": 1.0}}
    metrics = ["p@3", "recall@3", "dcg@3", "ndcg@3", "map@3"]
    ips = evaluate(qrels, run, metrics, propensities=props)
    snips = evaluate(qrels, run, metrics, propensities=props, estimator="snips")
    d = [1 / math.log2(j + 2) for j in range(3)]
    assert ips.mean["p@3"] == snips.mean["p@3"] == pytest.approx((2 + 4) / 3)
    assert ips.mean["dcg@3"] == snips.mean["dcg@3"] == pytest.approx(2 * d[0] + 4 * d[2])
    # R_u: the 3 observed relevant items (IPS), their weights' sum 2 + 4 + 1 (SNIPS)
    assert ips.mean["recall@3"] == pytest.approx(6 / 3)
    assert snips.mean["recall@3"] == pytest.approx(6 / 7)
    assert ips.mean["map@3"] == pytest.approx((2 * 1 / 1 + 4 * (1 + 2) / 3) / 3)
    assert snips.mean["map@3"] == pytest.approx((2 * 1 / 1 + 4 * (1 + 2) / 3) / 7)
    # the ideal: 3 relevant items at ranks 1-3 (IPS); 7 positions' worth, cut at 3 (SNIPS)
    assert ips.mean["ndcg@3"] == pytest.approx((2 * d[0] + 4 * d[2]) / sum(d))
    assert snips.mean["ndcg@3"] == pytest.approx((2 * d[0] + 4 * d[2]) / sum(d))
    ndcg = evaluate(qrels, run, "ndcg", propensities=props, estimator="snips").mean["ndcg"]
    ideal = sum(1 / math.log2(j + 2) for j in range(7))
    assert ndcg == pytest.approx((2 * d[0] + 4 * d[2]) / ideal)
    assert ips.metrics["p@3"] == "precision(estimator=ips)@3"
    assert ips.conventions["p@3"].estimator == "ips"
    assert snips.metrics["ndcg@3"] == "ndcg(estimator=snips)@3"


def test_snips_recall_is_within_one_and_ndcg_and_map_are_not():
    # docs/conventions.md: SNIPS recall is a weighted mean of hits; NDCG and AP keep the
    # IPS numerators over a self-normalised denominator. a (p 0.001: weight 1000) is
    # ranked first, b (p 1) second
    qrels, run = {"u": {"a": 1, "b": 1}}, {"u": {"a": 2, "b": 1}}
    metrics = ["recall@2", "ndcg@2", "map@2"]
    props = {"a": 0.001, "b": 1.0}
    snips = evaluate(qrels, run, metrics, propensities=props, estimator="snips").mean
    d = [1 / math.log2(j + 2) for j in range(2)]
    assert snips["recall@2"] == pytest.approx((1000 + 1) / 1001)
    # DCG: a's 1000 relevant items all at rank 1; the ideal: 1001 positions' worth, cut at 2
    assert snips["ndcg@2"] == pytest.approx((1000 * d[0] + d[1]) / (d[0] + d[1]))
    assert snips["ndcg@2"] == pytest.approx(613.534, abs=5e-4)
    # AP: a adds 1000 * 1 / 1; b's precision at rank 2 counts 1 + 1000 relevant items
    assert snips["map@2"] == pytest.approx((1000 * 1 / 1 + 1 * (1 + 1000) / 2) / 1001)
    assert snips["map@2"] == pytest.approx(1.499, abs=5e-4)
    conv = {"estimator": "snips", "rel_threshold": 1, "gain": "linear", "ties": "trec",
            "missing_users": "zero", "empty_users": "zero"}  # fmt: skip
    for name in ("ndcg", "map"):
        want, _ = oracle.evaluate(qrels, run, name, 2, conv, lambda u, i: props[i])
        assert snips[f"{name}@2"] == pytest.approx(want, rel=1e-12)
    # equal propensities exceed 1 too: each item stands for 2, at one rank
    half = {"a": 0.5, "b": 0.5}
    equal = evaluate(qrels, run, ["ndcg@2", "map"], propensities=half, estimator="snips")
    assert equal.mean["ndcg@2"] == pytest.approx((2 * d[0] + 2 * d[1]) / (d[0] + d[1]))
    assert equal.mean["map"] == pytest.approx((2 * 1 / 1 + 2 * (1 + 2) / 2) / 4)


def test_sources_agree():
    import pandas as pd

    qrels = {"u1": {"a": 1, "b": 2}, "u2": {"a": 1, "c": 0}}
    run = {"u1": {"a": 0.5, "b": 0.9}, "u2": {"c": 0.9, "a": 0.1}}
    per_item = {"a": 0.5, "b": 0.2, "c": 0.9}
    pairs = {u: {i: per_item[i] for i in judged} for u, judged in qrels.items()}
    frame = pd.DataFrame(
        [(u, i, p) for u, d in pairs.items() for i, p in d.items()],
        columns=["user", "item", "propensity"],
    )
    item_frame = pd.DataFrame({"item": list(per_item), "propensity": list(per_item.values())})
    metrics = ["ndcg@2", "map", "recall@1"]
    expected = evaluate(qrels, run, metrics, propensities=per_item).mean
    sources = [pairs, frame, item_frame, pd.Series(per_item)]
    import pyarrow as pa

    sources += [pa.Table.from_pandas(frame), pa.Table.from_pandas(item_frame)]
    for source in sources:
        assert evaluate(qrels, run, metrics, propensities=source).mean == pytest.approx(expected)


def test_popularity_model():
    qrels = {"u1": {"a": 1, "b": 1}, "u2": {"c": 1}}
    run = {"u1": {"a": 0.5, "b": 0.9}, "u2": {"c": 0.9, "a": 0.1}}
    counts = {"a": 100, "b": 25, "c": 4}
    gamma = 1.0
    p = {i: (n / 100) ** ((gamma + 1) / 2) for i, n in counts.items()}
    got = evaluate(
        qrels, run, "dcg@2", propensities="popularity", popularity=counts, propensity_gamma=gamma
    )
    assert got.mean == pytest.approx(evaluate(qrels, run, "dcg@2", propensities=p).mean)
    default = evaluate(qrels, run, "dcg@2", propensities="popularity", popularity=counts)
    p0 = {i: math.sqrt(n / 100) for i, n in counts.items()}
    assert default.mean == pytest.approx(evaluate(qrels, run, "dcg@2", propensities=p0).mean)
    train = [("x", "a"), ("y", "a"), ("x", "b"), ("y", "c")]
    users, items = zip(*train, strict=True)
    from_train = evaluate(qrels, run, "dcg@2", propensities="popularity", train=(users, items))
    p_train = {"a": 1.0, "b": math.sqrt(0.5), "c": math.sqrt(0.5)}
    assert from_train.mean == pytest.approx(
        evaluate(qrels, run, "dcg@2", propensities=p_train).mean
    )
    # an item without interactions has propensity 0: an error unless clipped
    with pytest.raises(InputValidationError, match=r"1 relevant .* propensity 0"):
        evaluate(qrels, run, "dcg@2", propensities="popularity", popularity={"a": 3, "b": 1})
    clipped = evaluate(
        qrels, run, "dcg@2", propensities="popularity", popularity={"a": 3, "b": 1},
        propensity_clip=0.1,
    )  # fmt: skip
    assert clipped.values["dcg@2"][1] == pytest.approx(10.0)


def test_a_popularity_propensity_that_underflows_is_not_blamed_on_missing_interactions():
    # item a, of 1 interaction, was said to be among "items without interactions"
    qrels = {"u": {"a": 1, "b": 1, "c": 1}}
    run = {"u": {"a": 0.9, "b": 0.8, "c": 0.7}}
    options = {"propensities": "popularity", "propensity_gamma": 1e6}
    with pytest.raises(InputValidationError) as info:
        evaluate(qrels, run, ["ndcg@2"], popularity={"a": 1, "b": 1e6, "c": 3}, **options)
    assert str(info.value) == (
        "evaluate: 2 relevant (user, item) pairs of the qrels have propensity 0 under the "
        "popularity model although their items have interactions, e.g. [('u', 'a'), "
        "('u', 'c')]: p = (n / max n)**((gamma + 1) / 2) underflows to 0 with "
        "propensity_gamma=1000000.0; pass a smaller propensity_gamma, or propensity_clip > 0 "
        "to bound their weight."
    )
    # an item of no interaction is still said to have none
    with pytest.raises(InputValidationError, match=r"items without interactions"):
        evaluate(qrels, run, ["ndcg@2"], popularity={"a": 0, "b": 1, "c": 1}, **options)
    clipped = evaluate(qrels, run, ["ndcg@2"], popularity={"a": 1, "b": 1e6, "c": 3},
                       propensity_clip=1e-6, **options)  # fmt: skip
    assert np.isfinite(clipped.mean["ndcg@2"])


def test_scan_equals_in_memory(tmp_path):
    import pandas as pd
    import pyarrow  # noqa: F401

    rng = np.random.default_rng(0)
    rows, qrows = [], []
    for u in range(60):
        items = rng.choice(40, 12, replace=False)
        rows += [(f"u{u}", f"i{i}", float(rng.integers(0, 4))) for i in items]
        qrows += [
            (f"u{u}", f"i{i}", int(rng.integers(0, 3))) for i in rng.choice(40, 6, replace=False)
        ]
    qrows += [(f"absent{u}", f"i{u}", 1) for u in range(3)]  # qrels users absent from the run
    path = tmp_path / "run.parquet"
    pd.DataFrame(rows, columns=["user", "item", "score"]).to_parquet(path)
    qrels = pd.DataFrame(qrows, columns=["user", "item", "grade"])
    props = {f"i{i}": 0.1 + 0.02 * i for i in range(40)}
    metrics = [
        "ndcg@5",
        "map@10",
        "p@3",
        "recall@5",
        "dcg(estimator=snips)@5",
        "mrr(estimator=naive)",
    ]
    memory = evaluate(qrels, pd.read_parquet(path), metrics, propensities=props)
    scan = evaluate(qrels, receval.scan(path, batch_rows=50), metrics, propensities=props)
    for m in metrics:
        np.testing.assert_allclose(scan.values[m], memory.values[m], atol=1e-12)
    assert scan.metrics == memory.metrics
    assert scan.n_users_missing == memory.n_users_missing == 3
    # the pairs a clip raises, counted batch by batch as in memory: none, then some
    for clip in (0.05, 0.3):
        memory = evaluate(qrels, pd.read_parquet(path), metrics, propensities=props,
                          propensity_clip=clip)  # fmt: skip
        scan = evaluate(qrels, receval.scan(path, batch_rows=50), metrics, propensities=props,
                        propensity_clip=clip)  # fmt: skip
        assert scan.n_pairs_propensity_clipped == memory.n_pairs_propensity_clipped
        assert (max(memory.n_pairs_propensity_clipped.values()) > 0) == (clip > 0.1)
    # a missing propensity is counted over all the qrels before the first batch
    partial = {i: p for i, p in props.items() if i != "i7"}
    n_missing = int(((qrels.item == "i7") & (qrels.grade >= 1)).sum())
    with pytest.raises(InputValidationError, match=f"no propensity for {n_missing} relevant"):
        evaluate(qrels, receval.scan(path, batch_rows=50), metrics, propensities=partial)


# ---------------------------------------------------------------- errors
QRELS = {"u1": {"a": 1, "b": 1, "c": 0}, "u2": {"a": 1}}
RUN = {"u1": {"a": 0.9, "b": 0.4}, "u2": {"a": 0.3}}


@pytest.mark.parametrize(
    "props, message",
    [
        ({"a": 0.0, "b": 0.5}, r"propensities must lie in \(0, 1\]. Got 1 value outside it"),
        ({"a": 1.5, "b": -1.0}, r"Got 2 values outside it, e\.g\. \[1\.5, -1\.0\]"),
        ({"a": float("nan"), "b": 0.5}, r"Got 1 value outside it"),
        ({"a": 0.5}, r"propensities has no propensity for 1 relevant \(user, item\) pair of"),
        ({"u1": {"a": 0.5}}, r"no propensity for 2 relevant .*\('u1', 'b'\)"),
    ],
)
def test_bad_propensities(props, message):
    with pytest.raises(InputValidationError, match=message):
        evaluate(QRELS, RUN, "ndcg@2", propensities=props)


def test_duplicates_and_gamma():
    import pandas as pd

    frame = pd.DataFrame({"item": ["a", "b", "a"], "propensity": [0.5, 0.5, 0.4]})
    with pytest.raises(InputValidationError, match=r"gives item 'a' more than once"):
        evaluate(QRELS, RUN, "ndcg@2", propensities=frame)
    pairs = pd.DataFrame({"user": ["u1", "u1"], "item": ["a", "a"], "propensity": [0.5, 0.4]})
    with pytest.raises(InputValidationError, match=r"pair \('u1', 'a'\) more than once"):
        evaluate(QRELS, RUN, "ndcg@2", propensities=pairs)
    with pytest.raises(InvalidParameterError, match=r"'propensity_gamma' .* Got -3"):
        evaluate(QRELS, RUN, "ndcg@2", propensities="popularity", popularity={"a": 1},
                 propensity_gamma=-3)  # fmt: skip


def test_bad_parameters():
    props = {"a": 0.5, "b": 0.5}
    with pytest.raises(InvalidParameterError, match=r"'mrr' has no propensity-weighted form"):
        evaluate(QRELS, RUN, ["ndcg@2", "mrr"], propensities=props)
    assert evaluate(QRELS, RUN, "mrr(estimator=naive)", propensities=props).mean
    both = evaluate(QRELS, RUN, ["arp@2", "p@2"], propensities=props, popularity={"a": 2})
    assert both.conventions["arp@2"].estimator == "naive"  # nothing to weigh
    assert both.conventions["p@2"].estimator == "ips"
    with pytest.raises(InvalidParameterError, match=r"needs propensities; pass propensities="):
        evaluate(QRELS, RUN, "ndcg@2", estimator="ips")
    with pytest.raises(InvalidParameterError, match=r"'propensity_clip' .* \[0, 1\]. Got 2.0"):
        evaluate(QRELS, RUN, "ndcg@2", propensities=props, propensity_clip=2.0)
    with pytest.raises(InvalidParameterError, match=r"'propensities' parameter .* Got list"):
        evaluate(QRELS, RUN, "ndcg@2", propensities=[0.5])
    with pytest.raises(InvalidParameterError, match=r"'propensities' .* \['popularity'\]"):
        evaluate(QRELS, RUN, "ndcg@2", propensities="pop")
    with pytest.raises(InvalidParameterError, match=r"needs item popularity"):
        evaluate(QRELS, RUN, "ndcg@2", propensities="popularity")
    with pytest.raises(InvalidParameterError, match=r"not available with ideal='candidates'"):
        evaluate(QRELS, RUN, "ndcg@2", propensities=props, ideal="candidates")
    with pytest.raises(InvalidParameterError, match=r"not available with ap_normalizer='min_k'"):
        evaluate(QRELS, RUN, "map@2", propensities=props, profile="recbole")
    with pytest.raises(InvalidParameterError, match=r"not available with ties='average'"):
        evaluate(QRELS, RUN, "map(ties=average)@2", propensities=props)
    # the LensKit conventions have no weighted form: refused, never ignored
    for metric, what in [
        ("ndcg@2", "discount='clipped'"),
        ("p@2", "precision_normalizer='retrieved'"),
        ("recall@2", "recall_normalizer='min_k'"),
        ("map@2", "ap_normalizer='min_retrieved'"),
    ]:
        with pytest.raises(InvalidParameterError, match=f"not available with {what}"):
            evaluate(QRELS, RUN, metric, propensities=props, profile="lenskit")
    with pytest.raises(InvalidParameterError, match=r"ties='average' gives none"):
        evaluate(QRELS, RUN, "p@2", propensities=props, ties="average", depth=3)
    with pytest.raises(InvalidParameterError, match=r"estimator must be one of"):
        evaluate(QRELS, RUN, "ndcg(estimator=dr)@2", propensities=props)


# ---------------------------------------------------------------- the caller named
NO_PROPENSITY = (
    "propensities has no propensity for 1 relevant (user, item) pair of the qrels, e.g. "
    "[('u1', 'b')]; give one for every item graded >= 1.0."
)
OUTSIDE = (
    "propensities must lie in (0, 1]. Got 1 value outside it, e.g. [0.0]; a propensity is "
    "the probability that a relevant item was observed."
)


def _message(call, error=InputValidationError):
    with pytest.raises(error) as info:
        call()
    return str(info.value)


def test_errors_name_the_function_called():
    partial, zero = {"a": 0.5}, {"a": 0.0, "b": 0.5}  # partial: no propensity for u1's b
    assert _message(lambda: evaluate(QRELS, RUN, "ndcg@2", propensities=partial)) == (
        f"evaluate: {NO_PROPENSITY}"
    )
    assert _message(lambda: evaluate(QRELS, RUN, "ndcg@2", propensities=zero)) == (
        f"evaluate: {OUTSIDE}"
    )
    # an accumulator: its options where they are given, the rows where they are added
    assert _message(lambda: receval.metric("ndcg@2", propensities=zero)) == (
        f"receval.metric('ndcg@2'): {OUTSIDE}"
    )
    for whole_groups in (False, True):
        acc = receval.metric("ndcg@2", propensities=partial, whole_groups=whole_groups)
        assert _message(lambda acc=acc: acc.update(QRELS, RUN)) == (
            f"Accumulator.update of 'ndcg@2': {NO_PROPENSITY}"
        )
    fix = _message(lambda: receval.metric("ndcg(estimator=ips)@2"), InvalidParameterError)
    assert fix == (
        "Metric 'ndcg(estimator=ips)@2' uses estimator='ips', which needs propensities; pass "
        "propensities= to receval.metric('ndcg(estimator=ips)@2')."
    )
    assert _message(lambda: receval.compute("ndcg@2", QRELS, RUN, propensities=partial)) == (
        f"receval.compute('ndcg@2'): {NO_PROPENSITY}"
    )
    users, items = np.eye(2), np.eye(2)  # user i retrieves item i
    qrels, props = {0: {0: 1, 1: 1}}, {0: 0.5}
    embeddings = _message(
        lambda: receval.evaluate_embeddings(qrels, users, items, "ndcg@2", propensities=props)
    )
    assert embeddings == "evaluate_embeddings: " + NO_PROPENSITY.replace("('u1', 'b')", "(0, 1)")


@pytest.mark.parametrize(
    ("count", "pairs", "have"),
    [(1, "1 relevant (user, item) pair", "has"), (2, "2 relevant (user, item) pairs", "have")],
)
@pytest.mark.parametrize("kind", [0, 1, 2])
def test_a_refusal_counts_its_pairs_in_agreement(kind, count, pairs, have):
    # it said "1 relevant (user, item) pairs of the qrels have propensity 0"
    from receval.metrics._propensity import Refusal

    text = str(Refusal("evaluate", 1.0, kind, count, (("u", "a"),)).error())
    counted = f"for {pairs} of the qrels, " if kind == 0 else f": {pairs} of the qrels {have} "
    assert counted in text


def test_the_cli_names_its_command(tmp_path):
    qrels, run, props = tmp_path / "q.txt", tmp_path / "r.txt", tmp_path / "p.csv"
    qrels.write_text("".join(f"{u} 0 {i} {g}\n" for u, d in QRELS.items() for i, g in d.items()))
    run.write_text("".join(f"{u} Q0 {i} 1 {s} m\n" for u, d in RUN.items() for i, s in d.items()))
    props.write_text("item,propensity\na,0.5\n")
    result = invoke(make_runner(), "rank", "--qrels", qrels, "--run", run, "-m", "ndcg@2",
                    "--propensities", props, code=2)  # fmt: skip
    # the option the user typed, not the library's argument
    assert result.stderr.splitlines()[-1] == f"error: receval rank: --{NO_PROPENSITY}"


def test_the_streaming_accumulator_weighs_as_evaluate():
    import receval as rv

    qrels = {"u": {"a": 1, "b": 1}, "v": {"c": 1}, "w": {"a": 1, "d": 1}}
    run = {"u": {"a": 0.9, "b": 0.1, "x": 0.5}, "v": {"c": 0.3, "y": 0.9}, "w": {"d": 0.2}}
    per_item = {"a": 0.5, "b": 0.25, "c": 0.8, "d": 0.1}
    for options in ({}, {"estimator": "snips", "propensity_clip": 0.3}):
        for metric in ("ndcg@2", "recall@2", "precision@2", "map@2", "dcg@2"):
            acc = rv.metric(metric, propensities=per_item, **options)
            for user in qrels:  # one user per batch
                acc.update({user: qrels[user]}, {user: run[user]})
            want = rv.evaluate(qrels, run, [metric], propensities=per_item, **options)
            assert acc.compute() == pytest.approx(want.mean[metric], rel=1e-12)
    with pytest.raises(rv.InvalidParameterError, match="propensity_clip"):
        rv.metric("ndcg@2", propensities=per_item, propensity_clip=2.0)


@pytest.mark.parametrize("estimator", ["ips", "snips"])
@pytest.mark.parametrize("metric", ["map", "ndcg@2"])
def test_a_users_weighted_value_does_not_depend_on_the_users_before_it(estimator, metric):
    # one running sum over every user less those before it: user z's light weights
    # after user y's weight of 1e15 lost their bits (z's MAP 2.854 alone, 2.833 beside y)
    z, run_z = {"z": {"a": 1, "b": 1, "c": 1}}, {"z": {"a": 3.0, "b": 2.0, "c": 1.0}}
    p = {"a": 0.3, "b": 0.7, "c": 0.9, "h": 1e-15, "g": 1.0}
    options = {"propensities": p, "estimator": estimator}
    alone = receval.evaluate(z, run_z, [metric], **options).values[metric][0]
    both = receval.evaluate({"y": {"h": 1, "g": 1}, **z}, {"y": {"h": 2.0, "g": 1.0}, **run_z},
                       [metric], **options).values[metric][1]  # fmt: skip
    assert both == alone

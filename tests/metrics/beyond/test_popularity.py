"""Popularity bias: ARP, APLT, ACLT, average popularity, tail %, PopREO, PopRSP, coverage, entropy.

Hand-computed cases from the definitions (Abdollahpouri et al. 2019, Zhu et al.
2020 as Elliot computes them, RecBole, Microsoft Recommenders), the slow oracles
of tests/oracles/popularity.py on random inputs with tied popularity counts,
the metric strings inside evaluate (in memory and over a scanned run), and the
error messages.
"""

import math
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval
from receval import (
    average_coverage_long_tail,
    average_percentage_long_tail,
    average_popularity,
    average_recommendation_popularity,
    distributional_coverage,
    evaluate,
    item_coverage,
    popularity_equal_opportunity,
    popularity_statistical_parity,
    shannon_entropy,
    tail_percentage,
)
from receval.exceptions import InputValidationError, InvalidParameterError, UndefinedMetricWarning
from receval.metrics.beyond.popularity_table import as_popularity
from tests.oracles import popularity as oracle

# item_coverage is deprecated but still computed; its cases here check its values, and
# its warning is asserted in test_popularity_entry_points.py
pytestmark = pytest.mark.filterwarnings("ignore:item_coverage is deprecated:FutureWarning")

# popularity 10, 4, 1, 0: 15 interactions; head_share 0.8 -> limit 12: a (10), b (14 >= 12)
POP = {"a": 10, "b": 4, "c": 1, "d": 0}
LISTS = [["a", "c", "d"], ["b", "a"], ["d"]]
RUN = {"u1": {"a": 0.9, "c": 0.8, "d": 0.7}, "u2": {"b": 0.9, "a": 0.5}, "u3": {"d": 0.3}}


# ------------------------------------------------------------------ hand-computed
def test_arp_hand_computed():
    # u1: (10 + 1 + 0) / 3; u2: (4 + 10) / 2; u3: 0
    got = average_recommendation_popularity(LISTS, popularity=POP)
    assert got == pytest.approx((11 / 3 + 7 + 0) / 3, abs=1e-12)
    assert (got.n_users, got.n_users_skipped) == (3, 0)
    # k = 1: 10, 4, 0
    assert average_recommendation_popularity(LISTS, popularity=POP, k=1) == pytest.approx(14 / 3)
    # an item absent from the popularity has popularity 0
    assert average_recommendation_popularity([["a", "z"]], popularity=POP) == 5.0


def test_aplt_and_aclt_hand_computed():
    # head {a, b}; tail {c, d}; an item absent from the popularity is in neither
    assert average_percentage_long_tail(LISTS, popularity=POP) == pytest.approx(
        (2 / 3 + 0 + 1) / 3, abs=1e-12
    )
    assert average_coverage_long_tail(LISTS, popularity=POP) == pytest.approx((2 + 0 + 1) / 3)
    # head_share 0.5 -> limit 7.5: head {a}
    assert average_percentage_long_tail(LISTS, popularity=POP, head_share=0.5) == pytest.approx(
        (2 / 3 + 1 / 2 + 1) / 3, abs=1e-12
    )
    assert average_coverage_long_tail(LISTS, popularity=POP, k=1, head_share=0.5) == pytest.approx(
        (0 + 1 + 1) / 3
    )
    # head_share 1: every item with a count until the total is reached (a, b, c)
    assert average_coverage_long_tail([["c", "d", "z"]], popularity=POP, head_share=1.0) == 1.0
    assert average_percentage_long_tail([["c", "d", "z"]], popularity=POP) == 2 / 3


def test_head_split_ties_follow_first_appearance():
    # b and c tie at 3 of 10 interactions (a 4): head_share 0.5 -> limit 5: a, then b
    pop = {"a": 4, "b": 3, "c": 3}
    assert average_percentage_long_tail([["b"], ["c"]], popularity=pop, head_share=0.5) == 0.5
    assert average_percentage_long_tail([["b"]], popularity=pop, head_share=0.5) == 0.0
    swapped = {"a": 4, "c": 3, "b": 3}
    assert average_percentage_long_tail([["b"]], popularity=swapped, head_share=0.5) == 1.0


def test_head_split_is_exact_for_float_counts():
    # exactly, 0.7 + 0.2 falls 3e-17 short of 0.9 of the total (the floats as they are):
    # the head is all three items (float sums made 0.7 + 0.2 reach it: head {c, b})
    pop = {"a": 0.1, "b": 0.2, "c": 0.7}
    assert average_percentage_long_tail([["a", "b", "c"]], popularity=pop, head_share=0.9) == 0.0
    assert as_popularity(pop, None, "f").head(0.9).tolist() == [True, True, True]


def test_head_split_reads_the_share_as_written():
    # 25 items of count 1, head_share 0.28: 7 items hold 7/25 = 0.28 exactly (the
    # float product 25 * 0.28 is 7.000000000000001 and asked for an 8th)
    pop = {f"i{j}": 1 for j in range(25)}
    assert average_percentage_long_tail([list(pop)], popularity=pop, head_share=0.28) == 18 / 25
    assert as_popularity(pop, None, "f").head(0.28).sum() == 7


def test_recbole_average_popularity_and_tail_percentage_divide_by_k():
    # u1 (a, c, d) = 11; u2 (b, a) = 14; u3 (d) = 0; divided by k = 3 each
    assert average_popularity(LISTS, popularity=POP, k=3) == pytest.approx((11 + 14 + 0) / 9)
    # k=None: each list's length divides (ARP)
    assert average_popularity(LISTS, popularity=POP) == average_recommendation_popularity(
        LISTS, popularity=POP
    )
    # tail_ratio 0.5: the int(4 * 0.5) = 2 least popular items, d (0) and c (1)
    got = tail_percentage(LISTS, popularity=POP, k=3, tail_ratio=0.5)
    assert got == pytest.approx((2 / 3 + 0 + 1 / 3) / 3, abs=1e-12)
    # tail_ratio 4 (> 1): popularity <= 4, b, c, d
    got = tail_percentage(LISTS, popularity=POP, k=2, tail_ratio=4)
    assert got == pytest.approx((1 / 2 + 1 / 2 + 1 / 2) / 3, abs=1e-12)
    # the default 0.1: max(int(0.4), 1) = 1 item, d; an unknown item is never tail
    assert tail_percentage([["d", "z"]], popularity=POP, k=2) == 0.5


def test_train_counts_distinct_users():
    log = (["x", "x", "y", "y", "z"], ["a", "a", "a", "b", "c"])  # x-a twice: once
    assert average_recommendation_popularity([["a", "b", "c"]], train=log) == pytest.approx(4 / 3)
    frame = pd.DataFrame({"user": log[0], "item": log[1]})
    assert average_recommendation_popularity([["a"]], train=frame) == 2.0
    qrels = receval.Qrels.from_dict({"x": {"a": 1}, "y": {"a": 1, "b": 1}})
    assert average_recommendation_popularity([["a", "b"]], train=qrels) == 1.5


def test_pop_rsp_hand_computed():
    # pop a 3, b 1, c 1, d 1 (6); head_share 0.5 -> head {a}; tail {b, c, d}
    train = (["u1", "u2", "u2", "u3", "u3", "u4"], ["a", "a", "b", "a", "c", "d"])
    run = {"u1": {"b": 2, "c": 1}, "u4": {"a": 2, "b": 1}}
    # numerators: head 1 (u4's a), tail 3; denominators: head (1 - 1) + (1 - 0) = 1,
    # tail (3 - 0) + (3 - 1) = 5; rates 1 and 0.6; |1 - 0.6| / 1.6
    got = popularity_statistical_parity(run, train=train, head_share=0.5)
    assert got == pytest.approx(0.25, abs=1e-12)
    assert got == pytest.approx(oracle.pop_rsp(_lists(run), _pairs(train), None, 0.5), abs=1e-12)
    # k = 1: head 1 (a), tail 1 (b): rates 1, 1/5
    got = popularity_statistical_parity(run, train=train, k=1, head_share=0.5)
    assert got == pytest.approx((1 - 0.2) / 1.2, abs=1e-12)


def test_pop_reo_hand_computed():
    train = (["u1", "u2", "u2", "u3", "u3", "u4"], ["a", "a", "b", "a", "c", "d"])
    run = {"u1": {"b": 2, "c": 1}, "u4": {"a": 2, "b": 1}}
    qrels = {"u1": {"a": 1, "b": 1, "c": 1}, "u4": {"a": 1, "c": 1}, "u9": {"a": 1}}
    # hits: u1 b, c (tail), u4 a (head); fresh relevant: u1 b, c (u1 trained on a), u4 a, c
    got = popularity_equal_opportunity(qrels, run, train=train, head_share=0.5)
    assert got == pytest.approx((1 - 2 / 3) / (1 + 2 / 3), abs=1e-12)
    # a grade below the threshold is not relevant: u4's c drops out of the tail
    graded = {"u1": {"a": 2, "b": 2, "c": 2}, "u4": {"a": 2, "c": 1}}
    got = popularity_equal_opportunity(graded, run, train=train, head_share=0.5, rel_threshold=2)
    assert got == pytest.approx(0.0, abs=1e-12)  # rates 1 and 2/2


def test_pop_reo_counts_no_hit_on_a_trained_item():
    # a run that recommends an item the user trained on counted it as a hit, though the
    # denominator leaves it out: a rate of 2 of 1 (and "1 of 0" in a report)
    train = (["u1", "u2", "u3"], ["b", "a", "a"])  # head {a}, tail {b}
    run = {"u1": {"b": 2, "a": 1}, "u4": {"b": 1}}
    qrels = {"u1": {"a": 1, "b": 1}, "u4": {"b": 1}}
    # fresh relevant: u1 a (head), u4 b (tail); both hit: rates 1 and 1 (u1's b is no hit)
    got = popularity_equal_opportunity(qrels, run, train=train, head_share=0.5)
    assert got == pytest.approx(0.0, abs=1e-12)
    expected = oracle.pop_reo(qrels, _lists(run), _pairs(train), None, 0.5)
    assert got == pytest.approx(expected, abs=1e-12)


def test_pop_rsp_reo_undefined_warns():
    train = (["u1", "u2"], ["a", "b"])
    with pytest.warns(UndefinedMetricWarning, match="popularity_statistical_parity: a group"):
        # head_share 1: both a and b are head, and no tail candidate exists
        assert math.isnan(
            popularity_statistical_parity([["a"]], train=(["u1"], ["a"]), head_share=1.0)
        )
    with pytest.warns(UndefinedMetricWarning, match="popularity_equal_opportunity"):
        got = popularity_equal_opportunity({0: {"z": 1}}, [["a"]], train=train)
    assert math.isnan(got)


@pytest.mark.parametrize("func", [shannon_entropy, distributional_coverage])
def test_entropy_of_one_item_is_positive_zero_and_of_no_item_nan(func):
    # one item takes every recommendation: -1 ln 1 = 0, not -0.0
    got = func([["a"], ["a"]])
    assert got == 0.0 and math.copysign(1.0, got) == 1.0
    accumulator = receval.metric(func.__name__)
    accumulator.update([["a"]])
    assert math.copysign(1.0, accumulator.compute()) == 1.0
    # no recommendation: no distribution, nan and a warning (not -0.0, not numpy's warning)
    empty = receval.metric(func.__name__).update({"u": {}})
    for compute in (lambda: func({"u": {}}), empty.compute):
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            with pytest.warns(
                UndefinedMetricWarning, match=f"{func.__name__}.*: the run recommends no item"
            ):
                assert math.isnan(compute())


def test_pop_reo_takes_a_real_rel_threshold():
    # grades are reals (probabilities): at 0.5, a is relevant and b is not
    train = (["x", "y", "y"], ["a", "a", "b"])  # head_share 0.5: head {a}, tail {b}
    options = {"train": train, "head_share": 0.5}
    qrels, run = {"u": {"a": 0.7, "b": 0.6, "c": 0.3}}, {"u": {"a": 1.0, "c": 0.5}}
    # head: a recommended, 1 of 1; tail: b not, 0 of 1: |1 - 0| / (1 + 0)
    assert popularity_equal_opportunity(qrels, run, **options, rel_threshold=0.5) == 1.0
    accumulator = receval.metric("pop_reo(rel_threshold=0.5)", **options)
    accumulator.update(qrels, run)
    assert accumulator.compute() == 1.0
    with pytest.warns(UndefinedMetricWarning):  # at 0.65 the tail has no relevant item
        assert math.isnan(popularity_equal_opportunity(qrels, run, train=train, rel_threshold=0.65))


def test_entropies_and_item_coverage_hand_computed():
    lists = [["a", "b"], ["a", "c"]]  # shares 1/2, 1/4, 1/4
    h = -(0.5 * math.log(0.5) + 2 * 0.25 * math.log(0.25))
    assert shannon_entropy(lists) == pytest.approx(h / 3, abs=1e-12)
    assert distributional_coverage(lists) == pytest.approx(1.5, abs=1e-12)
    assert distributional_coverage(lists, k=1) == 0.0  # only a
    assert shannon_entropy([["a"], ["b"]]) == pytest.approx(math.log(2) / 2, abs=1e-12)
    pop = {"a": 3, "b": 1, "c": 1, "d": 2}
    assert item_coverage(lists, popularity=pop) == 0.75
    assert item_coverage(lists, popularity=pop, k=1) == 0.25
    assert item_coverage([["a", "z"]], popularity=pop) == 2 / 5  # z joins the catalogue
    assert item_coverage(lists, train=(["x", "y"], ["a", "e"])) == 3 / 4  # a, b, c, e


def test_arp_of_popularities_near_the_float_max_is_their_mean():
    # a's and b's popularities sum beyond float64 (inf), but their mean is 1e308:
    # ARP was inf for u1, and so for the run, by the functions, evaluate and accumulators
    pop = {"a": 1e308, "b": 1e308, "c": 1.5e308}
    lists = [["a", "b"], ["d"]]  # u1: (1e308 + 1e308) / 2; u2: 0
    run = {"u1": {"a": 0.9, "b": 0.5}, "u2": {"d": 0.3}}
    assert average_recommendation_popularity(lists, popularity=pop) == 5e307
    assert average_popularity(lists, popularity=pop) == 5e307
    assert average_popularity(lists, popularity=pop, k=4) == 2.5e307  # RecBole: / k
    # each user's mean is finite, their sum over users is not: the mean over users is
    assert average_recommendation_popularity([["a"], ["c"]], popularity=pop) == 1.25e308
    strings = ["arp@2", "average_popularity@2", "arp"]
    assert evaluate(None, run, strings, popularity=pop).mean == dict.fromkeys(strings, 5e307)
    tied = {"u1": {"c": 0.9, "a": 0.5, "b": 0.5}}  # a block of ties: its mean, then the list's
    got = evaluate(None, tied, ["arp@2"], popularity=pop, ties="average").mean["arp@2"]
    assert got == 1.25e308  # (1.5e308 + 1e308) / 2, whichever of a and b is second
    acc = receval.metric("arp@2", popularity=pop)
    acc.update(None, {"u1": run["u1"]}).update(None, {"u2": run["u2"]})
    assert acc.compute() == 5e307


@pytest.mark.parametrize("name", ["shannon_entropy", "distributional_coverage", "item_coverage"])
def test_accumulators_refuse_ids_of_another_type_than_those_held(name):
    # the int 1 and the str "1" were two items of an accumulator (1.585 bits, not
    # 0.918; item coverage 2/3, not 1/3) where the functions refuse a run of both types
    options = {"popularity": {"1": 3, "2": 1, "3": 1}} if name == "item_coverage" else {}
    function = getattr(receval, name)
    ints = receval.metric(name, **options).update({1: {1: 1.0, 2: 0.5}})
    message = (
        "Accumulator.{step} of '{name}': run: {what} must hold ids of one type in every "
        "update and merge: numbers (ints or floats) or strings. Got strings in {where}, "
        "integers before; convert them to one type in every update, e.g. {what} = "
        "{what}.astype(str)."
    )
    with pytest.raises(InputValidationError) as caught:
        ints.update({2: {"1": 1.0}})
    assert str(caught.value) == message.format(
        step="update", name=name, what="items", where="this update"
    )
    with pytest.raises(InputValidationError) as caught:  # a user of the other type
        ints.update({"1": {1: 1.0}})
    assert str(caught.value) == message.format(
        step="update", name=name, what="users", where="this update"
    )
    strings = receval.metric(name, **options).update({"2": {"1": 1.0}})
    for held in (ints, pickle.loads(pickle.dumps(ints))):  # the types are read back
        with pytest.raises(InputValidationError) as caught:
            held.merge(strings)
        assert str(caught.value) == message.format(
            step="merge", name=name, what="users", where="the accumulator merged"
        )
        assert held.compute() == function({1: {1: 1.0, 2: 0.5}}, **options)  # as it was
    # whole floats are the integers they are: one item 1
    ints.update({2: {1.0: 1.0}})
    assert ints.compute() == function({1: {1: 1.0, 2: 0.5}, 2: {1: 1.0}}, **options)


def test_pop_rsp_accumulator_refuses_users_of_another_type():
    log = pd.DataFrame({"user": [1, 2, 3], "item": [1, 2, 2]})
    acc = receval.metric("pop_rsp", train=log, k=2).update({1: {1: 1.0}})
    with pytest.raises(InputValidationError, match="run: users must hold ids of one type"):
        acc.update({"1": {1: 1.0}})  # user 1 again, or another user?


# ------------------------------------------------------------------ errors
def test_errors_name_the_argument():
    # the arguments as written (the command line gives its options), and what to pass:
    # it ended "Got both." / "Got neither." with no fix
    expected = (
        "average_recommendation_popularity: the items' popularity must come from exactly one "
        "of popularity= (a mapping item -> count) and train= (an interaction log of (user, "
        "item) pairs). Got {}; pass one of popularity= or train={}."
    )
    with pytest.raises(InvalidParameterError) as info:
        average_recommendation_popularity(LISTS)
    assert str(info.value) == expected.format("neither", "")
    with pytest.raises(InvalidParameterError) as info:
        average_recommendation_popularity(LISTS, popularity=POP, train=([1], ["a"]))
    assert str(info.value) == expected.format("both", " instead")
    with pytest.raises(InputValidationError, match="popularity counts must be finite numbers"):
        average_recommendation_popularity(LISTS, popularity={"a": -1})
    with pytest.raises(InputValidationError, match="popularity must be a mapping"):
        average_recommendation_popularity(LISTS, popularity=[1, 2])
    with pytest.raises(InputValidationError, match="must give each item once"):
        average_recommendation_popularity(LISTS, popularity=(["a", "a"], [1, 2]))
    with pytest.raises(InputValidationError, match="train must be a Qrels"):
        average_recommendation_popularity(LISTS, train=[("u", "a")])
    with pytest.raises(InvalidParameterError, match="'head_share' parameter"):
        average_percentage_long_tail(LISTS, popularity=POP, head_share=0)
    with pytest.raises(InvalidParameterError, match="'tail_ratio' parameter"):
        tail_percentage(LISTS, popularity=POP, tail_ratio=-1)
    with pytest.raises(InvalidParameterError, match="'k' parameter"):
        average_popularity(LISTS, popularity=POP, k=0)
    with pytest.raises(InvalidParameterError, match="Got neither"):
        popularity_statistical_parity(LISTS, train=None)


def test_bad_popularity_counts_name_their_items_and_the_fix():
    # it said "popularity counts must be finite numbers >= 0. Got [-1.0]." with no fix
    with pytest.raises(InputValidationError) as info:
        average_recommendation_popularity(LISTS, popularity={"a": -1, "b": 2, "c": np.inf})
    assert str(info.value) == (
        "average_recommendation_popularity: popularity counts must be finite numbers >= 0. "
        "Got [-1.0, inf] for 2 items ['a', 'c'] instead; correct their counts or leave those "
        "items out."
    )


# ------------------------------------------------------------------ evaluate
METRICS = ["arp@2", "aplt@3", "aclt", "average_popularity@3",
           "tail_percentage(tail_ratio=0.5)@3", "aplt(head_share=0.5)@2"]  # fmt: skip


def test_metric_strings_inside_evaluate():
    qrels = {"u1": {"a": 1}, "u2": {"b": 1}, "u3": {"x": 1}, "u4": {"c": 1}}
    report = evaluate(qrels, RUN, [*METRICS, "p@1"], popularity=POP)
    assert report.users.tolist() == ["u1", "u2", "u3", "u4"]
    lists = {"u1": ["a", "c", "d"], "u2": ["b", "a"], "u3": ["d"]}
    expected = {
        "arp@2": oracle.arp(lists, POP, 2),
        "aplt@3": oracle.aplt(lists, POP, 3),
        "aclt": oracle.aclt(lists, POP, None),
        "average_popularity@3": oracle.average_popularity(lists, POP, 3),
        "tail_percentage(tail_ratio=0.5)@3": oracle.tail_percentage(lists, POP, 3, 0.5),
        "aplt(head_share=0.5)@2": oracle.aplt(lists, POP, 2, 0.5),
    }
    for metric, values in expected.items():
        got = report.values[metric]
        assert got[:3] == pytest.approx([values[u] for u in ("u1", "u2", "u3")], abs=1e-12)
        assert math.isnan(got[3])  # u4: absent from the run
        assert report.n_users_skipped[metric] == 1
        assert report.mean[metric] == pytest.approx(np.mean(list(values.values())), abs=1e-12)
    assert report.mean["p@1"] == pytest.approx(0.5)
    # the public functions give the same means
    assert report.mean["arp@2"] == pytest.approx(
        average_recommendation_popularity(RUN, popularity=POP, k=2), abs=1e-12
    )
    assert report.metrics["aplt(head_share=0.5)@2"] == "aplt(head_share=0.5)@2"
    # other libraries' names
    named = evaluate(None, RUN, ["averagepopularity@3", "ARP@2"], popularity=POP)
    assert named.mean["averagepopularity@3"] == report.mean["average_popularity@3"]
    assert named.mean["ARP@2"] == report.mean["arp@2"]


def test_evaluate_needs_popularity_and_accepts_train():
    with pytest.raises(InvalidParameterError, match="Metric 'arp@10' needs item popularity"):
        evaluate(None, RUN, ["arp@10"])
    with pytest.raises(InvalidParameterError, match="needs relevance judgments"):
        evaluate(None, RUN, ["arp@10", "ndcg@10"], popularity=POP)
    log = pd.DataFrame({"user": [1, 2, 2, 3], "item": ["a", "a", "b", "d"]})
    by_log = evaluate(None, RUN, ["arp@3", "aplt@3"], train=log)
    pop = {"a": 2, "b": 1, "d": 1}
    by_pop = evaluate(None, RUN, ["arp@3", "aplt@3"], popularity=pop)
    assert by_log.mean == by_pop.mean
    with pytest.raises(InvalidParameterError, match="Metric 'arp@10' needs item popularity"):
        receval.metric("arp@10")


def test_streaming_accumulator_equals_one_pass():
    rng = np.random.default_rng(5)
    users = np.repeat(np.arange(30), 5)
    frame = pd.DataFrame(
        {"user": users, "item": rng.integers(0, 20, len(users)), "score": rng.random(len(users))}
    ).drop_duplicates(["user", "item"])
    pop = {i: int(c) for i, c in enumerate(rng.integers(0, 3, 20))}
    for metric in ["arp@3", "aplt(head_share=0.5)@4", "tail_percentage@2"]:
        acc = receval.metric(metric, popularity=pop)
        for lo in range(0, 30, 7):  # batches of whole users
            acc.update(None, frame[(frame.user >= lo) & (frame.user < lo + 7)])
        whole = evaluate(None, frame, [metric], popularity=pop).mean[metric]
        assert acc.compute() == pytest.approx(whole, abs=1e-12)


def test_scan_equals_in_memory(tmp_path):
    rng = np.random.default_rng(3)
    users = np.repeat(np.arange(40), 6)
    items = rng.integers(0, 25, len(users))
    frame = pd.DataFrame({"user": users, "item": items, "score": rng.random(len(users))})
    frame = frame.drop_duplicates(["user", "item"])
    path = tmp_path / "run.parquet"
    frame.to_parquet(path)
    pop = {int(i): int(c) for i, c in enumerate(rng.integers(0, 4, 25))}  # many ties
    qrels = frame.sample(frac=0.3, random_state=0).assign(grade=1)[["user", "item", "grade"]]
    metrics = [*METRICS, "ndcg@5"]
    in_memory = evaluate(qrels, frame, metrics, popularity=pop)
    scanned = evaluate(qrels, receval.scan(path), metrics, popularity=pop)
    for metric in metrics:
        assert scanned.mean[metric] == pytest.approx(in_memory.mean[metric], abs=1e-12)
    alone = evaluate(None, receval.scan(path), METRICS, popularity=pop)
    whole = evaluate(None, frame, METRICS, popularity=pop)
    for metric in METRICS:
        assert alone.mean[metric] == pytest.approx(whole.mean[metric], abs=1e-12)


# ------------------------------------------------------------------ oracles
def _lists(run: dict) -> dict:
    return {u: sorted(scores, key=lambda i: -scores[i]) for u, scores in run.items()}


def _pairs(train: tuple) -> list:
    return list(zip(*train, strict=True))


@st.composite
def popularity_cases(draw):
    n_items = draw(st.integers(1, 12))
    items = [f"i{j}" for j in draw(st.permutations(range(n_items)))]
    counts = draw(st.lists(st.sampled_from([0, 1, 2, 5]), min_size=n_items, max_size=n_items))
    n_users = draw(st.integers(1, 6))
    lists = {}
    for u in range(n_users):
        chosen = draw(st.lists(st.sampled_from([*items, "new"]), min_size=1, max_size=6,
                               unique=True))  # fmt: skip
        lists[f"u{u}"] = chosen
    k = draw(st.sampled_from([None, 1, 2, 4]))
    return dict(zip(items, counts, strict=True)), lists, k


def _as_run(lists: dict) -> dict:
    return {u: {i: float(len(t) - r) for r, i in enumerate(t)} for u, t in lists.items()}


@settings(deadline=None)
@given(popularity_cases(), st.sampled_from([0.2, 0.5, 0.8, 1.0]), st.sampled_from([0.1, 0.5, 2]))
def test_per_user_metrics_equal_their_oracles(case, share, ratio):
    pop, lists, k = case
    run = _as_run(lists)
    metrics = {
        "arp": (oracle.arp(lists, pop, k), average_recommendation_popularity(
            run, popularity=pop, k=k)),
        "aplt": (oracle.aplt(lists, pop, k, share), average_percentage_long_tail(
            run, popularity=pop, k=k, head_share=share)),
        "aclt": (oracle.aclt(lists, pop, k, share), average_coverage_long_tail(
            run, popularity=pop, k=k, head_share=share)),
        "average_popularity": (oracle.average_popularity(lists, pop, k), average_popularity(
            run, popularity=pop, k=k)),
        "tail_percentage": (oracle.tail_percentage(lists, pop, k, ratio), tail_percentage(
            run, popularity=pop, k=k, tail_ratio=ratio)),
    }  # fmt: skip
    for name, (expected, got) in metrics.items():
        assert got == pytest.approx(np.mean(list(expected.values())), abs=1e-12), name
    at = "" if k is None else f"@{k}"
    report = evaluate(None, run, [f"aplt(head_share={share}){at}", f"arp{at}"], popularity=pop)
    per_user = oracle.arp(lists, pop, k)
    assert report.values[f"arp{at}"] == pytest.approx([per_user[u] for u in report.users])


# float counts whose sums round (0.1 + 0.2, 0.7 + 0.2, thirds), ties among them, and
# shares at which a float product of the total rounds past an exact prefix sum
HARD_COUNTS = [0.0, 0.1, 0.2, 0.3, 0.7, 1 / 3, 2 / 3, 1.0, 2.5, 1e-17, 1e17]
HARD_SHARES = [0.1, 0.2, 0.28, 0.3, 1 / 3, 0.5, 0.56, 0.7, 0.8, 0.9, 1.0]


@given(
    st.lists(st.sampled_from(HARD_COUNTS), min_size=1, max_size=30),
    st.sampled_from(HARD_SHARES),
    st.booleans(),
)
def test_head_split_equals_the_exact_oracle(counts, share, integers):
    if integers:  # the fast path of integer counts
        counts = [float(round(c * 10)) for c in counts]
    pop = {f"i{j}": c for j, c in enumerate(counts)}
    head = as_popularity(pop, None, "f").head(share)
    assert {i for i, h in zip(pop, head.tolist(), strict=True) if h} == oracle.head_items(
        pop, share
    )
    expected = oracle.aplt({"u": list(pop)}, pop, None, share)["u"]
    assert average_percentage_long_tail([list(pop)], popularity=pop, head_share=share) == expected


@settings(deadline=None)
@given(popularity_cases(), st.sampled_from([0.2, 0.5, 0.8, 1.0]), st.data())
def test_corpus_metrics_equal_their_oracles(case, share, data):
    pop, lists, k = case
    run = _as_run(lists)
    items = list(pop)
    users = [*list(lists), "other"]
    log = data.draw(st.lists(st.tuples(st.sampled_from(users), st.sampled_from(items)),
                             min_size=1, max_size=25))  # fmt: skip
    train = tuple(list(x) for x in zip(*log, strict=True))
    qrels = {u: {i: data.draw(st.sampled_from([0, 1, 2])) for i in
                 data.draw(st.lists(st.sampled_from([*items, "new", "q"]), unique=True))}
             for u in users}  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        got = popularity_statistical_parity(run, train=train, k=k, head_share=share)
        expected = oracle.pop_rsp(lists, log, k, share)
        assert got == pytest.approx(expected, abs=1e-12, nan_ok=True)
        q = {u: j for u, j in qrels.items() if j}
        if q:
            got = popularity_equal_opportunity(q, run, train=train, k=k, head_share=share)
            expected = oracle.pop_reo(q, lists, log, k, share)
            assert got == pytest.approx(expected, abs=1e-12, nan_ok=True)
    assert shannon_entropy(run, k=k) == pytest.approx(oracle.shannon_entropy(lists, k), abs=1e-12)
    assert distributional_coverage(run, k=k) == pytest.approx(
        oracle.distributional_coverage(lists, k), abs=1e-12
    )
    assert item_coverage(run, popularity=pop, k=k) == pytest.approx(
        oracle.item_coverage(lists, pop, k), abs=1e-12
    )


# ------------------------------------------------------------------ engine
def _batches(frame, size):
    return [frame[(frame.user >= lo) & (frame.user < lo + size)] for lo in range(0, 40, size)]


@pytest.mark.parametrize(
    ("name", "options", "function"),
    [
        ("pop_rsp", {"k": 3, "head_share": 0.5}, popularity_statistical_parity),
        ("shannon_entropy", {"k": 2}, shannon_entropy),
        ("distributional_coverage", {}, distributional_coverage),
        ("item_coverage", {"k": 1}, item_coverage),
    ],
)
def test_corpus_metrics_as_accumulators(name, options, function):
    import pickle

    rng = np.random.default_rng(7)
    users = np.repeat(np.arange(40), 6)
    frame = pd.DataFrame({"user": users, "item": rng.integers(0, 30, len(users)),
                          "score": rng.choice([0.1, 0.5, 0.9], len(users))})  # fmt: skip
    frame = frame.drop_duplicates(["user", "item"])
    log = pd.DataFrame({"user": rng.integers(0, 40, 120), "item": rng.integers(0, 35, 120)})
    if name in ("pop_rsp", "item_coverage"):
        options = {**options, "train": log}
    expected = function(frame, **options)
    for size in (1, 7, 40):
        parts = [receval.metric(name, **options).update(b) for b in _batches(frame, size)]
        order = rng.permutation(len(parts))
        acc = pickle.loads(pickle.dumps(parts[order[0]]))  # across processes
        for j in order[1:]:
            acc.merge(parts[j])
        assert acc.compute() == expected, size  # exact: the same float
    assert receval.compute(name, frame, **options) == expected
    assert receval.metric_info(name).function == function.__name__
    with pytest.raises(InputValidationError, match="given twice"):
        acc = receval.metric(name, **options).update(frame)
        acc.update(frame.iloc[:3])  # a user again


def test_pop_reo_accumulator_and_option_errors():
    rng = np.random.default_rng(8)
    users = np.repeat(np.arange(40), 5)
    frame = pd.DataFrame({"user": users, "item": rng.integers(0, 20, len(users)),
                          "score": rng.random(len(users))})  # fmt: skip
    frame = frame.drop_duplicates(["user", "item"])
    qrels = frame.sample(frac=0.5, random_state=2)[["user", "item"]]
    qrels = qrels.assign(grade=rng.integers(0, 3, len(qrels)))
    log = pd.DataFrame({"user": rng.integers(0, 40, 150), "item": rng.integers(0, 20, 150)})
    options = {"train": log, "k": 3, "rel_threshold": 1}
    acc = receval.metric("pop_reo", **options)
    for q, r in zip(_batches(qrels, 9), _batches(frame, 9), strict=True):
        acc.update(q, r)
    assert acc.compute() == popularity_equal_opportunity(qrels, frame, **options)
    with pytest.raises(InvalidParameterError, match="takes no option 'popularity'"):
        receval.metric("pop_rsp", popularity=POP)
    with pytest.raises(InvalidParameterError, match="'head_share' parameter"):
        receval.metric("pop_reo", train=log, head_share=2)
    with pytest.raises(InvalidParameterError, match="cannot merge"):
        receval.metric("shannon_entropy", k=2).merge(receval.metric("shannon_entropy", k=3))


@settings(deadline=None)
@given(popularity_cases(), st.sampled_from([0.2, 0.5, 0.8, 1.0]))
def test_properties(case, share):
    pop, lists, k = case
    run = _as_run(lists)
    at = "" if k is None else f"@{k}"
    strings = [f"aplt(head_share={share}){at}", f"aclt(head_share={share}){at}",
               f"tail_percentage{at}", f"arp{at}", f"average_popularity{at}"]  # fmt: skip
    report = evaluate(None, run, strings, popularity=pop)
    lengths = np.array([len(lists[u][:k]) for u in report.users])
    aplt, aclt, tail = (report.values[s] for s in strings[:3])
    np.testing.assert_allclose(aplt * lengths, aclt, atol=1e-12)  # share x length = count
    assert ((aplt >= 0) & (aplt <= 1) & (tail >= 0) & (tail <= 1)).all()
    # ARP divides by the list's length within k, average popularity by k: ARP >= it
    assert (report.values[strings[3]] >= report.values[strings[4]] - 1e-12).all()
    # user order changes nothing over the whole run
    shuffled = dict(reversed(list(run.items())))
    assert shannon_entropy(shuffled, k=k) == shannon_entropy(run, k=k)
    n_shown = len({i for t in lists.values() for i in t[:k]})
    assert 0 <= distributional_coverage(run, k=k) <= math.log2(n_shown) + 1e-12
    assert 0 < item_coverage(run, popularity=pop, k=k) <= 1


@pytest.mark.parametrize(
    "name", ["shannon_entropy@2", "distributional_coverage", "item_coverage", "pop_rsp", "pop_reo"]
)
def test_accumulators_take_a_batch_of_no_row(name):
    # a rank or worker with no users updates with an empty batch, as for ndcg@10: it tells
    # nothing, in every shape a run comes in
    run = pd.DataFrame({"user": ["a", "b", "b"], "item": ["x", "y", "x"], "score": [0.2, 0.1, 0.3]})
    qrels = run.rename(columns={"score": "grade"}).assign(grade=1)
    options = {
        "item_coverage": {"popularity": {"x": 1, "y": 2, "z": 5}},
        "pop_rsp": {"train": run},
        "pop_reo": {"train": run},
    }.get(name, {})
    with warnings.catch_warnings():  # item_coverage's deprecation; PopRSP's nan here
        warnings.simplefilter("ignore")
        acc = receval.metric(name, **options)
        batch = (qrels, run) if name == "pop_reo" else (run,)
        for empty in (run.iloc[:0], {}, {"a": {}}, []):
            acc.update(*[empty for _ in batch])
        acc.update(*batch)
        acc.update(*[x.iloc[:0] for x in batch])
        expected = receval.compute(name, *batch, **options)
        got = acc.compute()
    np.testing.assert_equal(got, expected)

"""Live parity of RBP on random inputs: receval against ir_measures' RBP(rel=...).

ir_measures 0.4.3 gives ``RBP(rel=r, p=p)`` to its cwl_eval provider (cwl-eval 1.0.12):
each judged document's grade, a negative one read as 0, becomes 1 when at least ``r`` and
0 otherwise (an unjudged document 0); the run is sorted by score with Python's stable
sort, so tied documents keep their input order; only the first 1000 documents count, and
the RBP weights are normalised over those 1000 ranks (``(1 - p) / (1 - p**1000)``: 1e-22
of the value at p = 0.95, below the tolerance); a qrels query absent from the run counts 0.
receval reads ``RBP(rel=r, p=p)`` as ``rbp(p=p, gain=binary, rel_threshold=r)``, and
``profile="ir_measures"`` gives ``rbp`` that gain and ties in input order.
"""

import ir_measures
import pytest
from cwl.ruler.measures.cwl_rbp import RBPCWLMetric  # the provider's own measure

from receval import evaluate
from tests.peers.test_live_parity import random_case

SEEDS = range(12)
TOL = 1e-12
PS = (0.5, 0.8, 0.95)
RELS = (1, 2)

# the example: a (grade 2) scored 1.0, b (grade 0) 2.0, c (grade 1) 0.5
QRELS = {"101": {"a": 2, "b": 0, "c": 1}}
RUN = {"101": {"a": 1.0, "b": 2.0, "c": 0.5}}


def test_the_provider_is_cwl_eval():
    assert ir_measures.cwl_eval.is_available()
    assert RBPCWLMetric(0.8).theta == 0.8
    for rel in RELS:
        measure = ir_measures.RBP(rel=rel, p=0.8)
        assert ir_measures.cwl_eval.supports(measure)
        assert not ir_measures.pytrec_eval.supports(measure)


@pytest.mark.parametrize(
    ("metric", "expected"),
    [
        # rel=1: a and c relevant at ranks 2 and 3: 0.2 * (0.8 + 0.64)
        ("RBP(rel=1,p=0.8)", 0.288),
        ("rbp(gain=binary)", 0.288),
        ("rbp(p=0.8,gain=binary,rel_threshold=1)", 0.288),
        # rel=2: a only, at rank 2: 0.2 * 0.8
        ("RBP(rel=2,p=0.8)", 0.16),
        ("rbp(gain=binary,rel_threshold=2)", 0.16),
        # graded (trec_eval's gains grade / 2): 0.2 * (0.8 * 1 + 0.64 * 0.5)
        ("rbp", 0.224),
        # graded from grade 2 on: the grade 1 earns nothing
        ("rbp(rel_threshold=2)", 0.16),
    ],
)
def test_hand_computed_values(metric, expected):
    assert evaluate(QRELS, RUN, [metric]).mean[metric] == pytest.approx(expected, abs=1e-15)


def test_hand_computed_values_of_the_profile():
    report = evaluate(QRELS, RUN, ["rbp", "rbp(rel_threshold=2)"], profile="ir_measures")
    assert report.mean["rbp"] == pytest.approx(0.288, abs=1e-15)
    assert report.mean["rbp(rel_threshold=2)"] == pytest.approx(0.16, abs=1e-15)
    assert report.conventions["rbp"].gain == "binary"
    assert report.conventions["rbp"].ties == "input"
    # trec_eval's rbp stays graded: -l2 moves no gain (gain_grades="positive")
    trec = evaluate(QRELS, RUN, ["rbp", "rbp(rel_threshold=2)"], profile="trec_eval")
    assert trec.mean["rbp"] == trec.mean["rbp(rel_threshold=2)"] == pytest.approx(0.224)


def test_the_peer_gives_the_hand_computed_values():
    values = ir_measures.calc_aggregate(
        [ir_measures.RBP(rel=1, p=0.8), ir_measures.RBP(rel=2, p=0.8)], QRELS, RUN
    )
    assert values[ir_measures.RBP(rel=1, p=0.8)] == pytest.approx(0.288, abs=1e-15)
    assert values[ir_measures.RBP(rel=2, p=0.8)] == pytest.approx(0.16, abs=1e-15)


def test_tied_scores_keep_their_input_order():
    # b (not relevant) before a (relevant), same score: a at rank 2 in input order
    qrels = {"1": {"a": 1, "b": 0}}
    first_b, first_a = {"1": {"b": 1.0, "a": 1.0}}, {"1": {"a": 1.0, "b": 1.0}}
    measure = ir_measures.RBP(rel=1, p=0.5)
    assert ir_measures.calc_aggregate([measure], qrels, first_b)[measure] == 0.25
    assert ir_measures.calc_aggregate([measure], qrels, first_a)[measure] == 0.5
    for run, expected in ((first_b, 0.25), (first_a, 0.5)):
        report = evaluate(qrels, run, ["rbp(p=0.5)"], profile="ir_measures")
        assert report.mean["rbp(p=0.5)"] == expected


def _pairs():
    return [(ir_measures.RBP(rel=rel, p=p), rel, p) for rel in RELS for p in PS]


def _peer(qrels, run):
    measures = [m for m, _, _ in _pairs()]
    per = {m: {} for m in measures}
    for value in ir_measures.iter_calc(measures, qrels, run):
        per[value.measure][value.query_id] = value.value
    return per, ir_measures.calc_aggregate(measures, qrels, run)


def _check(report, text, per, aggregate, measure, qrels):
    got = dict(zip([str(u) for u in report.users], report.values[text].tolist(), strict=True))
    assert sorted(per[measure]) == sorted(qrels), text  # every qrels query, none else
    for query, value in per[measure].items():
        assert got[query] == pytest.approx(value, abs=TOL, rel=0), (text, query)
    assert report.mean[text] == pytest.approx(aggregate[measure], abs=TOL, rel=0), text


@pytest.mark.parametrize("seed", SEEDS)
def test_ir_measures_rbp_with_its_profile(seed):
    # tied scores (4 distinct values), negative grades, users without a relevant item,
    # unjudged documents, users missing on either side
    qrels, run = random_case(seed, scores=("tied", "near", "distinct")[seed % 3])
    per, aggregate = _peer(qrels, run)
    texts = [f"rbp(p={p},rel_threshold={rel})" for _, rel, p in _pairs()]
    report = evaluate(qrels, run, texts, profile="ir_measures")
    for (measure, _, _), text in zip(_pairs(), texts, strict=True):
        _check(report, text, per, aggregate, measure, qrels)


@pytest.mark.parametrize("seed", SEEDS)
def test_ir_measures_rbp_from_its_spelling(seed):
    # RBP(rel=r,p=p) as ir_measures writes it, with the conventions spelled out
    qrels, run = random_case(seed, scores=("tied", "distinct")[seed % 2])
    per, aggregate = _peer(qrels, run)
    texts = [str(m) for m, _, _ in _pairs()]
    report = evaluate(qrels, run, texts, ties="input", empty_users="zero")
    for (measure, _, _), text in zip(_pairs(), texts, strict=True):
        _check(report, text, per, aggregate, measure, qrels)


@pytest.mark.parametrize("seed", range(4))
def test_ir_measures_rbp_at_threshold_zero(seed):
    # rel=0: every judged document is relevant, a negative grade read as 0 included
    qrels, run = random_case(seed, scores="tied")
    measure = ir_measures.RBP(rel=0, p=0.8)
    per = {v.query_id: v.value for v in ir_measures.iter_calc([measure], qrels, run)}
    report = evaluate(qrels, run, ["rbp(rel_threshold=0)"], profile="ir_measures")
    _check(report, "rbp(rel_threshold=0)", {measure: per}, {measure: _mean(per)}, measure, qrels)


def _mean(per):
    return sum(per.values()) / len(per)

"""Real-valued grades (probabilities of relevance): the metrics that read them against
the oracles (hypothesis, tied scores), CatBoost's border at a target equal to it, and
the metrics that read integer grades only, refused with a message."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from receval import evaluate, parse_metric
from receval.conventions import relevant_above
from receval.exceptions import InputValidationError, InvalidParameterError
from tests.oracles import ranking as oracle
from tests.oracles import trec_measures as trec_oracle

# random lists that share no item with the qrels are drawn too
pytestmark = pytest.mark.filterwarnings("ignore::receval.exceptions.UnmatchedIdsWarning")

#: probabilities exact in binary, a negative grade (judged non-relevant) and ties
GRADES = [0.0, 0.125, 0.25, 0.5, 0.5, 0.75, 1.0, -1.0]
SCORES = [0.1, 0.5, 0.5, 0.9, 0.25]


@st.composite
def real_data(draw):
    items = [f"d{j}" for j in range(8)]
    qrels, run = {}, {}
    for u in range(draw(st.integers(1, 4))):
        judged = draw(st.dictionaries(st.sampled_from(items), st.sampled_from(GRADES),
                                      min_size=1, max_size=6))  # fmt: skip
        qrels[f"u{u}"] = judged
        run[f"u{u}"] = draw(st.dictionaries(st.sampled_from(items), st.sampled_from(SCORES),
                                            min_size=1, max_size=7))  # fmt: skip
    return qrels, run


def _ranked_grades(judged: dict, scores: dict) -> list:
    """The grades of a list ranked by score, tied items in input order (None: absent
    from the qrels)."""
    order = sorted(scores, key=lambda i: -scores[i])  # stable
    return [judged.get(i) for i in order]


_CASCADES = {
    "pfound@5": lambda r: trec_oracle.pfound(r[:5], 0.85),
    "pfound(decay=0.5)": lambda r: trec_oracle.pfound(r, 0.5),
    "err(probability=true)@3": lambda r: trec_oracle.err_probability(r[:3]),
    "average_gain@4": lambda r: trec_oracle.average_gain(r[:4]),
}


@given(real_data())
def test_cascades_of_probabilities_equal_the_oracle(data):
    qrels, run = data
    report = evaluate(
        qrels, run, sorted(_CASCADES), ties="input", empty_users="zero", allow_unmatched=True
    )
    for metric, one in _CASCADES.items():
        expected = {u: one(_ranked_grades(qrels[u], run[u])) for u in qrels}
        got = dict(zip(report.users.tolist(), report.values[metric].tolist(), strict=True))
        for user, value in expected.items():
            assert got[user] == pytest.approx(value, abs=1e-12), metric


@given(
    real_data(),
    st.sampled_from(["precision", "recall", "map", "mrr", "dcg", "ndcg"]),
    st.sampled_from([None, 2, 5]),
    st.sampled_from([0.25, 0.5, relevant_above(0.5), 1]),
    st.sampled_from(["linear", "exponential"]),
    st.sampled_from(["input", "average"]),
)
def test_metrics_of_real_grades_equal_the_oracle(data, name, k, threshold, gain, ties):
    qrels, run = data
    metric = name if k is None else f"{name}@{k}"
    conv = {"rel_threshold": threshold, "ties": ties, "empty_users": "zero",
            "missing_users": "zero", "ap_normalizer": "relevant", "gain": gain,
            "ideal": "judged", "gain_grades": "relevant"}  # fmt: skip
    reads = parse_metric(name).info.conventions
    options = {c: v for c, v in conv.items() if c in reads}
    report = evaluate(qrels, run, metric, allow_unmatched=True, **options)
    mean, _ = oracle.evaluate(qrels, run, name, k, conv)
    assert report.mean[metric] == pytest.approx(mean, abs=1e-12)


def test_a_probability_equal_to_the_border_is_not_relevant():
    # CatBoost's border: a target above it is relevant; 0.5 (the default) itself is not
    qrels = {"q": {"a": 0.5, "b": 0.75, "c": 0.25}}
    run = {"q": {"a": 0.9, "b": 0.8, "c": 0.7}}
    labels = ["PrecisionAt:top=1", "MRR", "MRR:border=0.75", "PrecisionAt:top=3;border=0.25"]
    got = evaluate(qrels, run, labels, profile="catboost").mean
    assert got == {"PrecisionAt:top=1": 0.0, "MRR": 0.5, "MRR:border=0.75": 0.0,
                   "PrecisionAt:top=3;border=0.25": 2 / 3}  # fmt: skip
    # receval's own threshold is "at least": 0.5 is relevant from rel_threshold=0.5 on
    assert evaluate(qrels, run, ["mrr"], rel_threshold=0.5).mean["mrr"] == 1.0
    # NDCG and DCG gain every positive target under the profile (no border)
    ndcg = evaluate(qrels, run, ["NDCG"], profile="catboost").mean["NDCG"]
    ideal = 0.75 + 0.5 / math.log2(3) + 0.25 / 2
    assert ndcg == pytest.approx((0.5 + 0.75 / math.log2(3) + 0.25 / 2) / ideal, abs=1e-15)


def test_border_reads_as_the_least_float_above_it():
    text = str(parse_metric("PrecisionAt:top=5;border=0.5"))
    assert text == f"precision(rel_threshold={relevant_above(0.5)!r})@5"
    assert relevant_above(0.5) == np.nextafter(0.5, 1.0)
    # integer grades: the same relevant items as floor(b) + 1
    qrels = {"q": {"a": 1, "b": 2, "c": 0}}
    run = {"q": {"a": 0.9, "b": 0.8, "c": 0.7}}
    for border, threshold in ((0.5, 1), (1.5, 2), (1.0, 2)):
        got = evaluate(qrels, run, [f"PrecisionAt:top=3;border={border}"]).mean
        want = evaluate(qrels, run, ["precision@3"], rel_threshold=threshold).mean
        assert list(got.values()) == list(want.values())


def test_catboost_ndcg_takes_no_border():
    with pytest.raises(InvalidParameterError, match=r"cannot read 'border=0.5'; expected one"):
        parse_metric("NDCG:top=5;border=0.5")


def test_gain_tables_refuse_grades_that_are_not_integers():
    qrels = {"q": {"a": 0.75, "b": 2, "c": 0.25}}
    run = {"q": {"b": 0.9, "a": 0.8}}
    message = (
        r"^evaluate: metric 'ndcg\(gains=1:1;2:5\)@3' gains by a table of integer grades "
        r"\(gains=\), and the qrels hold grades that are not integers. Got grades "
        r"\[0.25, 0.75\]; round the grades, or use gain='linear' or 'exponential', which "
        r"read any grade.$"
    )
    with pytest.raises(InputValidationError, match=message):
        evaluate(qrels, run, ["ndcg(gains=1:1;2:5)@3", "ndcg@3"])
    # the same grades read by the gains of a formula
    assert evaluate(qrels, run, ["ndcg(gain=exponential)@3"]).n_users == 1
    # integer grades in floats are integers
    qrels["q"] = {"a": 1.0, "b": 2.0}
    assert evaluate(qrels, run, ["ndcg(gains=1:1;2:5)@3"]).mean["ndcg(gains=1:1;2:5)@3"] == 1.0


def test_positive_gain_grades_gain_every_grade_above_zero():
    qrels = {"q": {"a": 0.5, "b": 0.25}}
    run = {"q": {"b": 0.9, "a": 0.8}}
    report = evaluate(qrels, run, ["dcg"], gain_grades="positive", empty_users="zero")
    assert report.mean["dcg"] == pytest.approx(0.25 + 0.5 / math.log2(3), abs=1e-15)


def test_exposure_reads_a_real_threshold():
    # a threshold just above 0.5 (the catboost profile's) is not 0: a grade-0 item is
    # not relevant (the threshold was cut to an integer before)
    qrels = {"u": {"a": 1, "b": 0, "c": 0.75}}
    run = {"u": {"a": 0.9, "b": 0.5, "c": 0.4}}
    metrics = ["ee_relevance", "ee_loss"]
    got = evaluate(qrels, run, metrics, profile="catboost").mean
    want = evaluate(qrels, run, metrics, rel_threshold=0.6).mean
    assert got == want
    assert got != evaluate(qrels, run, metrics, rel_threshold=0).mean
    assert got != evaluate(qrels, run, metrics, rel_threshold=1).mean  # c is relevant


def test_sampled_corrections_read_a_real_threshold():
    from receval import sample_negatives

    qrels = {"u": {"a": 1, "b": 0.25, "c": 0.75}, "v": {"d": 0.5, "a": 0.875}}
    items = [f"i{j}" for j in range(20)] + ["a", "b", "c", "d"]
    rng = np.random.default_rng(0)
    run = {u: {i: float(rng.random()) for i in items} for u in qrels}
    c = sample_negatives(qrels, items, n=6, seed=1)
    metrics = ["recall@5", "mrr@10"]

    def mean(**kw):
        return evaluate(qrels, run, metrics, candidates=c, correction="rank", **kw).mean

    assert mean(profile="catboost") == mean(rel_threshold=0.6) != mean(rel_threshold=0)

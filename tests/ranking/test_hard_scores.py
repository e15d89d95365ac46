"""Every ranking metric of ``evaluate`` on hard scores: drawn from a few values so ties
are frequent, at the ends of the dtype's range (float64's +-1e300, +-1e-300 and
5e-324; float32's and float16's largest, smallest normal and smallest subnormal),
in float16, float32 and float64 columns of a run frame.

The top-K metrics are compared with the oracle (``tests/oracles/ranking.py``) under
random conventions; every metric of the registry that ranks a run is compared with
itself on the run whose scores are replaced by small integers of the same order and
sign (what the order of hard scores must give).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval
from receval import evaluate, parse_metric
from tests.oracles import ranking as oracle
from tests.oracles import trec_measures
from tests.ranking.test_ranking import NAMES, conventions

# random qrels and runs often share no item: evaluate warns (tested in test_evaluate_matching)
pytestmark = [
    pytest.mark.filterwarnings("ignore::receval.exceptions.UnmatchedIdsWarning"),
    pytest.mark.filterwarnings("error::RuntimeWarning"),  # numpy's, of a score past float32
]

DTYPES = [np.float16, np.float32, np.float64]
ITEMS = [f"d{j}" for j in range(10)]


def _hard(dtype):
    """Scores at the ends of ``dtype``'s range, 0 and 0.5."""
    if dtype is np.float64:
        big, small, sub = 1e300, 1e-300, 5e-324
    else:
        info = np.finfo(dtype)
        big, small, sub = float(info.max), float(info.tiny), float(info.smallest_subnormal)
    return [-big, -small, -sub, 0.0, sub, small, 0.5, big]


@st.composite
def hard_runs(draw, max_len=6):
    """(qrels, run as a frame whose score column is of one dtype, run as a dict of the
    same scores as Python floats)."""
    dtype = draw(st.sampled_from(DTYPES))
    n_users = draw(st.integers(1, 4))
    qrels, rows = {}, []
    for u in range(n_users):
        user = f"u{u}"
        judged = draw(st.dictionaries(st.sampled_from(ITEMS), st.integers(0, 3), max_size=6))
        qrels[user] = judged or {"d0": 1}
        scores = draw(st.dictionaries(st.sampled_from(ITEMS), st.sampled_from(_hard(dtype)),
                                      min_size=1 if u == 0 else 0, max_size=max_len))  # fmt: skip
        rows += [(user, item, score) for item, score in scores.items()]
    users, items, scores = zip(*rows, strict=True)
    frame = pd.DataFrame({"user": users, "item": items, "score": np.array(scores, dtype)})
    run = {}
    for user, item, score in zip(users, items, frame["score"].tolist(), strict=True):
        run.setdefault(user, {})[item] = score
    return qrels, frame, run


@settings(max_examples=50, deadline=None)
@given(hard_runs(), conventions(), st.sampled_from(NAMES), st.sampled_from([None, 1, 3]))
def test_hard_scores_equal_the_oracle(data, conv, name, k):
    qrels, frame, run = data
    metric = name if k is None else f"{name}@{k}"
    reads = parse_metric(name).info.conventions
    report = evaluate(qrels, frame, metric, **{c: v for c, v in conv.items() if c in reads},
                      allow_unmatched=True)  # fmt: skip
    mean, per_user = oracle.evaluate(qrels, run, name, k, conv)
    assert report.mean[metric] == pytest.approx(mean, abs=1e-12, nan_ok=True)
    got = dict(zip(report.users.tolist(), report.values[metric].tolist(), strict=True))
    for user, value in per_user.items():
        if value is None:
            assert math.isnan(got[user]), (metric, user)
        else:
            assert got[user] == pytest.approx(value, abs=1e-12), (metric, user)


@settings(max_examples=50, deadline=None)
@given(hard_runs())
def test_geometric_means_of_hard_scores_equal_the_oracle(data):
    # trec_eval's gm_map and gm_bpref: exp of the mean log of each user's value, floored
    # at 1e-5; users without a relevant item left out, those absent from the run at 0
    qrels, frame, run = data
    conv = {"ap_normalizer": "relevant", "rel_threshold": 1, "ties": "trec",
            "missing_users": "zero", "empty_users": "skip"}  # fmt: skip
    report = evaluate(qrels, frame, ["gm_map", "gm_bpref"], **conv, allow_unmatched=True)
    _, maps = oracle.evaluate(qrels, run, "map", None, conv)
    bprefs = {}
    for user, judged in qrels.items():
        grades = [judged.get(i) for i in oracle.ranked(run.get(user, {}), "trec")]
        bprefs[user] = trec_measures.bpref(grades, list(judged.values()), 1)
    for metric, values in (("gm_map", maps), ("gm_bpref", bprefs)):
        kept = [max(values[u], 1e-5) for u, v in maps.items() if v is not None]
        want = math.exp(math.fsum(math.log(v) for v in kept) / len(kept)) if kept else math.nan
        assert report.mean[metric] == pytest.approx(want, rel=1e-12, nan_ok=True), metric


def _same_order(scores):
    """Small integers of the order and sign of ``scores`` (equal scores equal)."""
    negative = sorted({s for s in scores if s < 0})
    positive = sorted({s for s in scores if s > 0})
    rank = {s: j - len(negative) for j, s in enumerate(negative)}
    rank |= {s: j + 1 for j, s in enumerate(positive)}
    return np.array([rank.get(s, 0) for s in scores], dtype=float)


def _metric_strings():
    """Every metric of the registry that ranks a run, with the parameters it needs."""
    needed = {"iprec": "iprec(recall=0.5)", "rprec_mult": "rprec_mult(mult=0.5)"}
    out = []
    for row in receval.list_metrics():
        if row.function_path != "receval.ranking.evaluation:evaluate":
            continue
        text = needed.get(row.name, row.name)
        out.append(f"{text}@3" if row.accepts_k else text)
    return out


METRICS = _metric_strings()
# expected exposure ranks tied scores at random, and the metrics of the run's lists
# alone take its own order: scores compared as doubles under ties="trec" too
DOUBLES = {m for m in METRICS if m.startswith("ee_") or parse_metric(m).info.family == "list"}
SIDE_DATA = {  # the item data a list metric reads, over ITEMS
    "features": np.eye(10)[[0, 1, 1, 2, 3, 3, 4, 5, 6, 6]] + 0.5,
    "feature_items": ITEMS,
    "train": (
        ["u0", "u0", "u1", "u2", "u2", "u3", "u3"],
        ["d1", "d2", "d5", "d0", "d9", "d3", "d5"],
    ),
    "item_categories": {item: ["a", "b", "c"][j % 3] for j, item in enumerate(ITEMS)},
}


@pytest.mark.parametrize("ties", ["trec", "average", "input"])
@settings(max_examples=15, deadline=None)
@given(data=hard_runs())
def test_every_ranking_metric_reads_only_the_order_of_hard_scores(ties, data):
    qrels, frame, _ = data
    scores = frame["score"].tolist()
    ranks = frame.assign(score=_same_order(scores))
    got, want = (evaluate(qrels, run, METRICS, ties=ties, allow_unmatched=True, **SIDE_DATA)
                 for run in (frame, ranks))  # fmt: skip
    if ties == "trec":  # scores equal as C floats are tied (trec_eval 9's order)
        singles = frame.assign(score=_same_order([oracle.single(s) for s in scores]))
        single = evaluate(qrels, singles, METRICS, ties=ties, allow_unmatched=True, **SIDE_DATA)
    for metric in METRICS:
        wanted = single if ties == "trec" and metric not in DOUBLES else want
        np.testing.assert_array_equal(got.values[metric], wanted.values[metric], err_msg=metric)


def test_propensity_weights_of_tied_scores_past_float32():
    # scores of 1e300 tie as C floats (ties="trec"): their cast to float32 came with
    # numpy's "overflow encountered in cast" RuntimeWarning (an error in this module)
    q, propensities = {"u": {"a": 1, "b": 1}}, {"a": 0.5, "b": 0.25}
    got = [evaluate(q, {"u": {"a": s, "b": s, "c": 0.5}}, "recall@1", ties="trec",
                    propensities=propensities).mean["recall@1"] for s in (1e300, 1.0)]  # fmt: skip
    assert got[0] == got[1]


@pytest.mark.parametrize(("relevant", "want"), [("d0", 0.5), ("d1", 0.0)])
def test_a_hit_is_of_a_positive_score_as_given_in_trecs_order(relevant, want):
    # 5e-324 and -1e-300 are tied as C floats (both 0): trec's order puts d1 first, and
    # the kernel read d0's score at d1's place (a negative item scored as a hit)
    qrels = {"u": {relevant: 1}}
    run = {"u": {"d0": 5e-324, "d1": -1e-300}}
    report = evaluate(qrels, run, ["precision"], ties="trec", hit_scores="positive")
    assert report.mean["precision"] == want

"""LensKit held to its word: ``profile="lenskit"`` against values recorded from the library.

LensKit needs Python >= 3.12.5 and PyTorch, too heavy for a test dependency, so nothing here
imports it: ``data/recorded_lenskit.json`` holds values computed by LensKit 2026.4 on seeded
random cases by ``record_lenskit.py`` (run by hand; its docstring says how to regenerate the
file and what every field means). LensKit computes in float64: values are compared at 1e-12.

A LensKit test list is a receval qrels user (every test item relevant, its ``rating`` the
grade, 1 to 5), a LensKit ordered list a run user whose rows are in the list's order: the
recorded scores tie often, and ``ties="input"`` (the profile's) keeps the list's order.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from receval import evaluate, ndcg_at_k, precision_at_k, recall_at_k
from receval.conventions import PROFILES

DATA = Path(__file__).parent / "data"
RECORDED = json.loads((DATA / "recorded_lenskit.json").read_text())
CASES = {case["id"]: case for case in RECORDED["cases"]}

# LensKit label prefix -> receval metric name under profile="lenskit"
RECEVAL = {
    "NDCG": "ndcg",
    "NDCG_rating": "ndcg(gain=linear)",
    "DCG": "dcg",
    "Precision": "precision",
    "Recall": "recall",
    "Hit": "success",
    "RecipRank": "mrr",
    "AveragePrecision": "map",
}
# what the default conventions (no profile) give differently on the recorded cases
DIFFERS_BY_DEFAULT = {"NDCG", "NDCG_rating", "DCG", "Precision", "Recall", "AveragePrecision"}


def _inputs(case):
    qrels = {u: {str(i): g for i, g in items.items()} for u, items in case["test"].items()}
    run = {u: {str(i): s for i, s in rows} for u, rows in case["recs"].items()}
    return qrels, run


def _metric(label):
    prefix, _, n = label.partition("@")
    return RECEVAL[prefix] + (f"@{n}" if n else "")


def test_recorded_file_says_what_it_holds():
    assert RECORDED["versions"]["lenskit"] == "2026.4.0"
    assert set(RECORDED["metrics"]) == set(RECEVAL)
    assert len(CASES) == 6
    assert all(
        len(case["values"]) == len(RECEVAL) * len(RECORDED["cut_offs"]) for case in CASES.values()
    )


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_profile_reproduces_every_recorded_value(case_id):
    case = CASES[case_id]
    qrels, run = _inputs(case)
    labels = sorted(case["values"])
    metrics = [_metric(label) for label in labels]
    report = evaluate(qrels, run, metrics, profile="lenskit")
    for label, metric in zip(labels, metrics, strict=True):
        recorded = case["values"][label]
        assert report.mean[metric] == pytest.approx(recorded["mean"], abs=1e-12), label
        assert report.n_users - report.n_users_skipped[metric] == recorded["n"], label
        got = dict(zip(report.users.tolist(), report.values[metric].tolist(), strict=True))
        for user, value in recorded["per_user"].items():
            assert got[user] == pytest.approx(value, abs=1e-12), (label, user)
        # test users without a list are not measured by LensKit: missing, skipped
        for user in set(qrels) - set(run):
            assert math.isnan(got[user])


def test_default_conventions_differ_where_lenskit_does():
    """The profile is needed: with the list's order and its users only, but receval's
    other defaults, NDCG, DCG, Precision, Recall and AP differ on the recorded cases; Hit
    and RecipRank are success and mrr."""
    differs = set()
    for case in CASES.values():
        qrels, run = _inputs(case)
        labels = sorted(case["values"])
        report = evaluate(
            qrels, run, [_metric(label) for label in labels], ties="input", missing_users="skip"
        )
        for label in labels:
            if report.mean[_metric(label)] != pytest.approx(
                case["values"][label]["mean"], abs=1e-12
            ):
                differs.add(label.partition("@")[0])
    assert differs == DIFFERS_BY_DEFAULT


@pytest.mark.parametrize("example", RECORDED["examples"], ids=lambda e: e["id"])
def test_recorded_examples(example):
    qrels = {"u": dict(example["test"])}
    run = {"u": {str(i): float(-pos) for pos, i in enumerate(example["recs"])}}
    labels = sorted(example["values"])
    report = evaluate(qrels, run, [_metric(label) for label in labels], profile="lenskit")
    for label in labels:
        assert report.mean[_metric(label)] == pytest.approx(example["values"][label], abs=1e-12), (
            label
        )


def test_issue_reproductions():
    """One relevant item at rank 2 of 20: LensKit's NDCG is 1.0 (ranks 1 and 2 undiscounted),
    receval's default binary NDCG 1 / log2(3); a list of 3 items holding 2 hits has LensKit
    Precision@10 2/3 (over the list's length) where precision@10 divides by 10."""
    ranked = [str(i) for i in range(1, 21)]
    assert ndcg_at_k(ranked, {"2"}, k=20, profile="lenskit") == 1.0
    assert ndcg_at_k(ranked, {"2"}, k=20, gain="binary") == pytest.approx(1 / math.log2(3))
    assert ndcg_at_k(ranked, {"2"}, k=20, gain="binary", discount="clipped") == 1.0
    assert precision_at_k(["1", "2", "3"], {"1", "3", "7"}, k=10, profile="lenskit") == 2 / 3
    assert precision_at_k(["1", "2", "3"], {"1", "3", "7"}, k=10) == 0.2
    assert recall_at_k([str(i) for i in range(10)], {str(i) for i in range(12)}, k=5,
                       profile="lenskit") == 1.0  # fmt: skip
    assert recall_at_k([str(i) for i in range(10)], {str(i) for i in range(12)}, k=5) == 5 / 12


def test_profile_row():
    lenskit = PROFILES["lenskit"]
    assert (lenskit.discount, lenskit.precision_normalizer, lenskit.recall_normalizer) == (
        "clipped",
        "retrieved",
        "min_k",
    )
    assert (lenskit.ap_normalizer, lenskit.gain, lenskit.ties) == (
        "min_retrieved",
        "binary",
        "input",
    )

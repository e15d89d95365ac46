"""TorchRec's own tests of NDCG (``NDCGMetricValueTest`` of its test_ndcg.py, values kept
as data in data/torchrec_ndcg_suite.json with their source and TorchRec's tolerance) and
values recorded from TorchRec on random sessions (``record_torchrec.py``), computed
by ``evaluate(profile="torchrec")``, and the profile against the oracle.

A TorchRec row is an item of a session with a label and a prediction: the qrels hold
every row's label (grade 0 too, so that a session without a positive label counts),
the run every row's prediction. TorchRec's options that change the rows are applied to
the rows (``is_negative_task``: 1 - label and 1 - prediction; ``scale_by_weights_tensor``:
label and prediction times the weight; ``remove_single_length_sessions``: the sessions
of one row left out), and its report to receval's value of each session: 1 - NDCG
(``report_ndcg_as_decreasing_curve``, its default) times the session's largest weight
(unless ``scale_by_weights_tensor``), averaged over the sessions.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

import receval as rv
from receval.conventions import PROFILES
from tests.oracles import ranking as oracle

HERE = Path(__file__).parent
DATA = json.loads((HERE / "data" / "torchrec_ndcg_suite.json").read_text())
RECORDED = json.loads((HERE / "data" / "recorded_torchrec_ndcg.json").read_text())


def _rows_as_qrels_and_run(sessions, labels, predictions):
    qrels: dict = {}
    run: dict = {}
    rows = zip(sessions, labels, predictions, strict=True)
    for row, (session, label, prediction) in enumerate(rows):
        qrels.setdefault(int(session), {})[row] = float(label)
        run.setdefault(int(session), {})[row] = float(prediction)
    return qrels, run


def _torchrec_value(options, predictions, sessions, labels, weights):
    """TorchRec's lifetime NDCG of one task, from receval's per-session NDCG."""
    p, y, w = (np.asarray(a, dtype=np.float64) for a in (predictions, labels, weights))
    s = np.asarray(sessions)
    if options["is_negative_task"]:
        p, y = 1 - p, 1 - y
    if options["scale_by_weights_tensor"]:
        p, y = p * w, y * w
    if options["remove_single_length_sessions"]:
        ids, counts = np.unique(s, return_counts=True)
        keep = np.isin(s, ids[counts > 1])
        p, s, y, w = p[keep], s[keep], y[keep], w[keep]
    metric = "ndcg(gain=exponential)" if options["exponential_gain"] else "ndcg"
    metric += f"@{options['k']}" if options["k"] > 0 else ""
    with warnings.catch_warnings():
        # the scale_by_weights_tensor case ties predictions scaled to 0, each of a row
        # whose scaled label is 0 too: no order of them changes a value
        warnings.simplefilter("ignore", rv.TieOrderWarning)
        report = rv.evaluate(*_rows_as_qrels_and_run(s, y, p), [metric], profile="torchrec")
    value = report.values[metric]
    if options["report_ndcg_as_decreasing_curve"]:
        value = 1 - value
    if not options["scale_by_weights_tensor"]:
        value = value * np.array([w[s == session].max() for session in report.users])
    return float(value.mean())


def _case_id(case):
    return case["test"] or f"unasserted_{case['inputs']}_exp={case['options']['exponential_gain']}"


@pytest.mark.parametrize("case", DATA["cases"], ids=_case_id)
def test_torchrec_ndcg_case(case):
    columns = ("predictions", "session_ids", "labels", "weights")
    tasks = zip(*(case[c] for c in columns), strict=True)
    got = [_torchrec_value(case["options"], *task) for task in tasks]
    assert got == pytest.approx(case["expected"], rel=1e-4, abs=1e-4)


@pytest.mark.parametrize("case", RECORDED["cases"], ids=lambda c: f"seed{c['seed']}")
def test_recorded_torchrec_ndcg(case):
    columns = ("predictions", "session_ids", "labels", "weights")
    got = _torchrec_value(case["options"], *(case[c] for c in columns))
    # TorchRec takes log2 of its integer ranks in float32: discounts within 2e-7
    assert got == pytest.approx(case["value"], rel=2e-7, abs=1e-12)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("metric", ["ndcg", "ndcg@3", "ndcg(gain=exponential)@2"])
def test_torchrec_profile_matches_the_oracle(seed, metric):
    # sessions of 1 to 6 rows (single rows, no positive label, fractional labels,
    # tied predictions): every case the profile's conventions decide
    rng = np.random.default_rng(seed)
    sessions = np.repeat(np.arange(12), rng.integers(1, 7, 12))
    labels = rng.choice([0.0, 0.0, 0.5, 1.0, 2.0], len(sessions))
    predictions = rng.choice([0.1, 0.3, 0.5, 0.9], len(sessions))
    qrels, run = _rows_as_qrels_and_run(sessions, labels, predictions)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rv.TieOrderWarning)
        report = rv.evaluate(qrels, run, [metric], profile="torchrec")
    spec = rv.parse_metric(metric)
    conv = PROFILES["torchrec"].as_dict()
    if "exponential" in metric:
        conv["gain"] = "exponential"
    mean, per_user = oracle.evaluate(qrels, run, "ndcg", spec.k, conv)
    want = [per_user[u] for u in report.users.tolist()]
    np.testing.assert_allclose(report.values[metric], want, rtol=1e-12, atol=1e-15)
    assert report.mean[metric] == pytest.approx(mean, rel=1e-12)
    assert report.n_users == 12  # a session without a positive label counts (as 0)

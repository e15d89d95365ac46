"""Live parity with LightGBM: ``profile="lightgbm"`` against the installed library.

LightGBM's wheel is small, so it is a test dependency: each case is drawn by
``record_gbdt.make_case`` from seeds other than the recorded ones (query groups with tied
scores, grades 0 to 4, groups without a relevant document) and LightGBM evaluates the
given scores itself (``init_score``, a tree that adds 0), with its default ``label_gain``
and a custom one, as ``record_gbdt.lightgbm_values`` does. XGBoost and CatBoost are
checked against recorded values only (``test_gbdt_recorded.py``).
"""

from __future__ import annotations

import lightgbm
import pytest

from receval import evaluate

from .record_gbdt import LABEL_GAIN, lightgbm_values, make_case

_GAINS = ";".join(f"{grade}:{gain:g}" for grade, gain in enumerate(LABEL_GAIN) if grade)


def _qrels_run(case: dict) -> tuple[dict, dict]:
    qrels: dict = {}
    run: dict = {}
    start = 0
    for g, size in enumerate(case["groups"]):
        rows = range(start, start + size)
        qrels[f"q{g}"] = {f"d{i}": case["grades"][i] for i in rows}
        run[f"q{g}"] = {f"d{i}": case["scores"][i] for i in rows}
        start += size
    return qrels, run


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_lightgbm_profile_matches_lightgbm(seed):
    case = make_case(seed)
    expected = lightgbm_values(case)
    metrics = {
        label: label.replace("|label_gain", "").replace("ndcg", f"ndcg(gains={_GAINS})")
        if label.endswith("|label_gain")
        else label
        for label in expected
    }
    qrels, run = _qrels_run(case)
    report = evaluate(qrels, run, sorted(set(metrics.values())), profile="lightgbm")
    assert len(expected) == 12, lightgbm.__version__  # ndcg and map at 4 cut-offs, ndcg again
    for label, metric in metrics.items():
        assert report.mean[metric] == pytest.approx(expected[label], abs=1e-12), label

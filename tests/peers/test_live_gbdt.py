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
import numpy as np
import pytest

from receval import InputValidationError, evaluate

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


def _lightgbm_ndcg(grades: list, label_gain: list | None) -> float:
    """LightGBM's ndcg@2 of one query whose documents are scored in order (it raises
    for a grade its label_gain has no gain for)."""
    params = {"objective": "regression", "metric": "ndcg", "eval_at": [2],
              "learning_rate": 1e-12, "min_data_in_leaf": len(grades) + 1,
              "verbose": -1, "num_threads": 1}  # fmt: skip
    if label_gain is not None:
        params["label_gain"] = label_gain
    features = np.zeros((len(grades), 1))
    scores = np.linspace(1.0, 0.0, len(grades))
    train = lightgbm.Dataset(features, label=np.asarray(grades, dtype=float),
                             group=[len(grades)], init_score=scores)  # fmt: skip
    result: dict = {}
    lightgbm.train(params, train, num_boost_round=1, valid_sets=[train], valid_names=["e"],
                   callbacks=[lightgbm.record_evaluation(result)])  # fmt: skip
    return float(result["e"]["ndcg@2"][-1])


@pytest.mark.parametrize(
    ("metric", "label_gain", "last"),
    [("ndcg@2", None, 30), (f"ndcg(gains={_GAINS})@2", LABEL_GAIN, len(LABEL_GAIN) - 1)],
)
def test_the_lightgbm_profile_refuses_the_grades_lightgbm_refuses(metric, label_gain, last):
    run = {"q": {"a": 1.0, "b": 0.5, "c": 0.0}}
    for grades, refused in (([last, 1, 0], False), ([last + 1, 1, 0], True),
                            ([2.5, 1, 0], True), ([-1, 1, 0], True)):  # fmt: skip
        qrels = {"q": dict(zip("abc", grades, strict=True))}
        if not refused:
            value = evaluate(qrels, run, [metric], profile="lightgbm").mean[metric]
            assert value == pytest.approx(_lightgbm_ndcg(grades, label_gain), abs=1e-12)
            continue
        with pytest.raises(lightgbm.basic.LightGBMError):
            _lightgbm_ndcg(grades, label_gain)
        with pytest.raises(InputValidationError, match="which LightGBM refuses"):
            evaluate(qrels, run, [metric], profile="lightgbm")

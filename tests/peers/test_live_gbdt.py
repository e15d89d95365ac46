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

from receval import InputValidationError, InvalidParameterError, evaluate

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


def _lightgbm(
    grades: list, metric: str = "ndcg", label_gain: list | None = None, eval_at: int = 2
) -> float:
    """LightGBM's ``metric`` at ``eval_at`` of one query whose documents are scored in
    order (it raises for a grade its label_gain has no gain for)."""
    params = {"objective": "regression", "metric": metric, "eval_at": [eval_at],
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
    return float(result["e"][f"{metric}@{eval_at}"][-1])


def _in_order(grades: list) -> tuple[dict, dict]:
    """One query's qrels and a run that scores its documents in order, as ``_lightgbm``."""
    names = [f"d{i}" for i in range(len(grades))]
    run = dict(zip(names, np.linspace(1.0, 0.0, len(grades)).tolist(), strict=True))
    return {"q": dict(zip(names, grades, strict=True))}, {"q": run}


@pytest.mark.parametrize("first", [0.75, 0.5 + 2**-26, 0.5 + 2**-25, 0.5 + 2**-24, 0.5, 2.0])
@pytest.mark.parametrize("k", [1, 3])
def test_the_lightgbm_profile_map_counts_a_label_above_half_relevant(first, k):
    # map_metric.hpp: label > 0.5f, the label a float32 (0.5 + 2**-25 rounds to 0.5)
    qrels, run = _in_order([first, 0, 1])
    value = evaluate(qrels, run, [f"map@{k}"], profile="lightgbm").mean[f"map@{k}"]
    assert value == pytest.approx(_lightgbm([first, 0, 1], "map", eval_at=k), abs=1e-12)


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
            assert value == pytest.approx(_lightgbm(grades, label_gain=label_gain), abs=1e-12)
            continue
        with pytest.raises(lightgbm.basic.LightGBMError):
            _lightgbm(grades, label_gain=label_gain)
        with pytest.raises(InputValidationError, match="which LightGBM refuses"):
            evaluate(qrels, run, [metric], profile="lightgbm")


def _table(label_gain: list) -> str:
    """LightGBM's ``label_gain`` as the metric string's gains table."""
    return ";".join(f"{grade}:{gain:g}" for grade, gain in enumerate(label_gain))


@pytest.mark.parametrize(
    ("grades", "label_gain"),
    [
        ([1, 0], [0.0, 0.0, 3.0]),  # ideal DCG 0 though grade 1 is judged: LightGBM's 1
        ([0, 1, 2], [0.0, 0.0, 3.0]),
        ([1, 1, 0], [0.0, 0.0, 0.0]),
        ([0, 2, 1, 0], [0.5, 1.0, 2.0]),  # a gain for label 0 (LightGBM's label_gain[0])
        ([0, 0], [0.5, 1.0]),
        ([1, 0, 3, 2], [0.0, 1.0, 1.0, 4.0]),
    ],
)
def test_the_lightgbm_profile_ndcg_of_a_label_gain_matches_lightgbm(grades, label_gain):
    qrels, run = _in_order(grades)
    metric = f"ndcg(gains={_table(label_gain)})@2"
    value = evaluate(qrels, run, [metric], profile="lightgbm").mean[metric]
    assert value == pytest.approx(_lightgbm(grades, label_gain=label_gain), abs=1e-12)


@pytest.mark.parametrize("label_gain", [[0.0, 3.0, 1.0], [1.0, 0.0, 2.0], [-1.0, 0.0, 1.0]])
def test_the_lightgbm_profile_refuses_a_label_gain_that_falls_with_the_label(label_gain):
    # LightGBM ranks the ideal DCG by label, not by gain: 3.0 for [0, 3, 1] and grades
    # [1, 2] ranked in that order
    assert _lightgbm([1, 2], label_gain=[0.0, 3.0, 1.0], eval_at=1) == 3.0
    qrels, run = _in_order([1, 2])
    metric = f"ndcg(gains={_table(label_gain)})@1"
    with pytest.raises(InvalidParameterError, match="ranks its ideal DCG by grade"):
        evaluate(qrels, run, [metric], profile="lightgbm")

"""The errors of a metric on one model's scores name the metric and the model."""

from __future__ import annotations

import numpy as np
import pytest

import receval as rv
from receval.exceptions import InputValidationError, UndefinedMetricWarning

Y = np.array([1, 0, 1, 0])
GOOD, LOGITS = np.array([0.9, 0.2, 0.7, 0.1]), np.array([2.5, -1.0, 0.3, 0.2])


@pytest.mark.parametrize("metric", ["log_loss", "logloss", "brier", "pcoc"])
def test_compare_predictions_marks_the_model_a_metric_refuses(metric):
    with pytest.raises(InputValidationError, match="probabilities") as info:
        rv.compare_predictions(Y, {"good": GOOD, "logits": LOGITS}, metrics=[metric],
                               n_permutations=10, n_resamples=10)  # fmt: skip
    assert info.value.scored == (metric, "logits") and info.value.row == 0


@pytest.mark.parametrize(
    ("rule", "models"),
    [
        ({"metric": "log_loss", "rule": "non_inferiority", "margin": 0.01}, ("logits", "good")),
        ({"metric": "log_loss", "rule": "non_inferiority", "margin": 0.01}, ("good", "logits")),
        ({"metric": "pcoc", "rule": "ceiling", "threshold": 1.1}, ("logits", "good")),
    ],
)
def test_gate_marks_the_model_a_metric_refuses(rule, models):
    candidate, baseline = models
    scores = {"good": GOOD, "logits": LOGITS}
    with pytest.raises(InputValidationError, match="probabilities") as info:
        rv.gate({candidate: scores[candidate]}, {baseline: scores[baseline]}, [rule], y_true=Y,
                n_permutations=10, n_resamples=10)  # fmt: skip
    assert info.value.scored == (rule["metric"], "logits")


def test_an_error_of_one_model_names_the_model_in_its_message():
    # the model was only an attribute (exc.scored): the message said "log_loss: y_pred ..."
    y_true = [1, 0, 1, 0]
    good, bad = [0.9, 0.1, 0.8, 0.3], [2.5, 0.1, 0.3, 0.2]
    expected = (
        "log_loss of model 'b': y_pred must contain probabilities in [0, 1]. Got values "
        "[2.5]; pass predicted probabilities, e.g. apply a sigmoid to raw scores."
    )
    with pytest.raises(InputValidationError) as compared:
        rv.compare_predictions(y_true, {"a": good, "b": bad}, metrics=["log_loss"])
    rule = {"metric": "log_loss", "rule": "non_inferiority"}
    with pytest.raises(InputValidationError) as gated:
        rv.gate({"b": bad}, {"a": good}, [rule], y_true=y_true)
    for caught in (compared, gated):
        assert str(caught.value) == expected
        assert caught.value.scored == ("log_loss", "b")


def test_a_warning_of_one_model_names_the_model_in_its_message():
    # it read "log_loss: every sample weight is zero ...", once for both models
    y_true, weights = [1, 0, 1, 0], [0, 0, 0, 0]
    scores = {"a": [0.9, 0.1, 0.8, 0.3], "b": [0.6, 0.4, 0.7, 0.2]}
    with pytest.warns(UndefinedMetricWarning) as caught:
        rv.compare_predictions(y_true, scores, metrics=["log_loss"], sample_weight=weights,
                               n_permutations=10, n_resamples=10)  # fmt: skip
    texts = {str(w.message) for w in caught if str(w.message).startswith("log_loss")}
    assert texts == {
        f"log_loss of model {model!r}: every sample weight is zero, so the log loss is "
        "undefined (returned as nan)."
        for model in scores
    }

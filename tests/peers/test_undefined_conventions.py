"""Where a pointwise metric is undefined (one class), each peer's answer, as a switch.

* torchmetrics (recorded by ``record_torchmetrics_binary.py``: torch is too heavy for a test
  dependency): ``BinaryAUROC`` is 0.0 for one-class targets and ``BinaryAveragePrecision``
  0.0 without a positive; ``profile="torchmetrics"`` gives both, ``if_undefined=0.0`` too.
* scikit-learn (live): ``average_precision_score`` without a positive is 0.0,
  ``roc_auc_score`` of one class nan (with an ``UndefinedMetricWarning``, as receval's
  default), ``log_loss`` of one class without ``labels`` raises; ``profile="sklearn"`` gives
  each.
"""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import numpy as np
import pytest
import sklearn.metrics as skm

from receval import average_precision_score, log_loss, roc_auc_score
from receval.conventions import PROFILE_UNDEFINED, PROFILES
from receval.exceptions import (
    InputValidationError,
    InvalidParameterError,
    UndefinedMetricWarning,
)

RECORDED = json.loads(
    (Path(__file__).parent / "data" / "recorded_torchmetrics_binary.json").read_text()
)
F32 = 1e-6  # torchmetrics computes in float32
FUNCTIONS = {"auroc": roc_auc_score, "average_precision": average_precision_score}


def _one_class(case):
    return len(set(case["target"])) == 1


@pytest.mark.parametrize("case", RECORDED["cases"], ids=lambda c: c["id"])
@pytest.mark.parametrize("metric", sorted(FUNCTIONS))
def test_torchmetrics_profile_gives_the_recorded_value(case, metric):
    recorded = case["values"][metric]["value"]
    func = FUNCTIONS[metric]
    y_true, y_score = np.array(case["target"]), np.array(case["preds"], dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the profile's value comes without a warning
        got = func(y_true, y_score, profile="torchmetrics")
        assert func(case["target"], case["preds"], profile="torchmetrics") == got  # lists
    assert got == pytest.approx(recorded, abs=F32)
    undefined = _one_class(case) and (metric == "auroc" or case["target"][0] == 0)
    if undefined:  # receval's default: nan and a warning
        with pytest.warns(UndefinedMetricWarning):
            assert math.isnan(func(y_true, y_score))
        assert func(y_true, y_score, if_undefined=0.0) == 0.0
    else:
        assert func(y_true, y_score) == got


def test_recorded_file_covers_both_one_class_kinds():
    assert RECORDED["versions"]["torchmetrics"] == "1.9.0"
    kinds = {c["id"].split("_")[0] for c in RECORDED["cases"]}
    assert kinds == {"both", "ties", "zeros", "ones"}


def test_issue_reproductions():
    """torchmetrics' 0.0 for one-class targets, scikit-learn's AP 0.0 without a positive."""
    with pytest.warns(UndefinedMetricWarning):
        assert math.isnan(roc_auc_score([1, 1, 1], [0.2, 0.5, 0.9]))
    assert roc_auc_score([1, 1, 1], [0.2, 0.5, 0.9], profile="torchmetrics") == 0.0
    assert roc_auc_score([0, 0], [0.2, 0.5], if_undefined=0.0) == 0.0
    assert roc_auc_score([0, 0], [0.2, 0.5], if_undefined=0.5) == 0.5
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn warns
        sk = skm.average_precision_score([0, 0], [0.25, 0.75])
    assert sk == 0.0
    assert average_precision_score([0, 0], [0.25, 0.75], profile="sklearn") == sk
    assert average_precision_score([0, 0], [0.25, 0.75], profile="torchmetrics") == 0.0


def test_if_undefined_overrides_the_profile_and_leaves_defined_values():
    assert roc_auc_score([1, 1], [0.2, 0.5], profile="torchmetrics", if_undefined=0.5) == 0.5
    assert average_precision_score([0, 0], [0.2, 0.5], profile="sklearn", if_undefined=1.0) == 1.0
    assert roc_auc_score([0, 1], [0.2, 0.5], if_undefined=0.0) == 1.0
    # profiles without a pointwise answer keep receval's nan
    for profile in sorted(set(PROFILES) - set(PROFILE_UNDEFINED)):
        with pytest.warns(UndefinedMetricWarning):
            assert math.isnan(roc_auc_score([1, 1], [0.2, 0.5], profile=profile))


@pytest.mark.parametrize("seed", range(20))
def test_sklearn_profile_matches_sklearn_live(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 12))
    y_score = rng.integers(0, 4, n) / 4.0
    y_true = rng.integers(0, 2, n) if seed % 3 else np.full(n, seed % 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ap_sk = skm.average_precision_score(y_true, y_score)
        auc_sk = skm.roc_auc_score(y_true, y_score)
        ap = average_precision_score(y_true, y_score, profile="sklearn")
        auc = roc_auc_score(y_true, y_score, profile="sklearn")
    assert ap == pytest.approx(ap_sk, abs=1e-12)
    assert auc == pytest.approx(auc_sk, abs=1e-12, nan_ok=True)
    proba = np.clip(y_score, 0.05, 0.95)
    if len(set(y_true.tolist())) == 1:
        with pytest.raises(ValueError, match="only one label"):
            skm.log_loss(y_true, proba)
        with pytest.raises(InputValidationError, match="only one label"):
            log_loss(y_true, proba, profile="sklearn")
        ll_sk = skm.log_loss(y_true, proba, labels=[0, 1])
        assert log_loss(y_true, proba, profile="sklearn", labels=[0, 1]) == pytest.approx(ll_sk)
        assert log_loss(y_true, proba) == pytest.approx(ll_sk)  # receval's default answers
    else:
        ll_sk = skm.log_loss(y_true, proba)
        assert log_loss(y_true, proba, profile="sklearn") == pytest.approx(ll_sk, abs=1e-12)


@pytest.mark.parametrize(
    ("y", "shown", "pair"),
    [([1, 1], "[1]", "[0, 1]"), ([-1, -1], "[-1]", "[-1, 1]"), (["a", "a"], "['a']",
     "[negative, positive]")],
)  # fmt: skip
def test_log_loss_one_class_messages(y, shown, pair):
    # the fix names pos_label too, which profile="sklearn" takes as it takes labels, and
    # an example of labels that holds the label given (before: labels=[0, 1] for any)
    with pytest.raises(InputValidationError) as caught:
        log_loss(y, [0.7, 0.7], profile="sklearn")
    assert str(caught.value) == (
        f"log_loss: y_true contains only one label, which profile='sklearn' refuses as "
        f"scikit-learn does. Got {shown}; pass labels (e.g. labels={pair}) or pos_label to "
        f"compute its loss, or leave profile unset."
    )
    if y[0] != "a":
        expected = -math.log(0.7) if y[0] == 1 else -math.log(0.3)
        labels = [-1, 1] if y[0] == -1 else [0, 1]
        assert log_loss(y, [0.7, 0.7]) == pytest.approx(expected)
        assert log_loss(y, [0.7, 0.7], profile="torchmetrics") == pytest.approx(expected)
        assert log_loss(y, [0.7, 0.7], profile="sklearn", labels=labels) == pytest.approx(
            skm.log_loss(y, [0.7, 0.7], labels=labels)
        )
        assert log_loss(y, [0.7, 0.7], profile="sklearn", pos_label=1) == pytest.approx(expected)


def test_bad_options_are_refused():
    with pytest.raises(InvalidParameterError, match=r"^The 'profile' parameter of roc_auc_score"):
        roc_auc_score([0, 1], [0.2, 0.5], profile="torch")
    with pytest.raises(InvalidParameterError, match=r"^The 'profile' parameter of log_loss"):
        log_loss([0, 1], [0.2, 0.5], profile="torch")
    with pytest.raises(
        InvalidParameterError,
        match=r"^The 'if_undefined' parameter of roc_auc_score must be a real number. "
        r"Got 'zero' instead.$",
    ):
        roc_auc_score([0, 1], [0.2, 0.5], if_undefined="zero")
    with pytest.raises(InvalidParameterError, match="'if_undefined' parameter of average_prec"):
        average_precision_score([0, 0], [0.2, 0.5], if_undefined=float("nan"))

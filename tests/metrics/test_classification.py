"""Tests of receval.metrics._classification: hand-computed values, the oracle, scikit-learn."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import polars as pl
import pytest
import sklearn.metrics as skm
from hypothesis import assume, given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.exceptions import UndefinedMetricWarning as SklearnUndefinedMetricWarning

from receval import (
    accuracy_score,
    confusion_matrix,
    error_rate,
    f1_score,
    false_positive_rate,
    fbeta_score,
    precision_score,
    recall_score,
    specificity_score,
)
from receval.exceptions import InputValidationError, InvalidParameterError, UndefinedMetricWarning
from tests.oracles import classification as oracle

RATIO_FUNCS = {
    "precision": precision_score,
    "recall": recall_score,
    "specificity": specificity_score,
    "false_positive_rate": false_positive_rate,
    "fbeta": fbeta_score,
}
AVERAGES = ["binary", "micro", "macro", "weighted", None]
ZERO_DIVISIONS = ["warn", 0.0, 1.0, np.nan]


def _call(name, y_true, y_pred, beta=1.0, **kw):
    """Call a ratio metric by oracle name; record whether receval warned."""
    func = RATIO_FUNCS[name]
    if name == "fbeta":
        kw["beta"] = beta
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        value = func(y_true, y_pred, **kw)
    return value, any(issubclass(r.category, UndefinedMetricWarning) for r in record)


def _sklearn(func, *args, **kw):
    """Call scikit-learn; record whether it warned that the metric is ill-defined."""
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        value = func(*args, **kw)
    return value, any(issubclass(r.category, SklearnUndefinedMetricWarning) for r in record)


def _close(actual, expected):
    assert_allclose(np.asarray(actual, dtype=float), np.asarray(expected, dtype=float),
                    rtol=1e-12, atol=1e-12, equal_nan=True)  # fmt: skip


# ---------------------------------------------------------------- hand-computed values
# Binary case: y_true and y_pred below give, for class 1, TP=2 FP=0 FN=2 TN=2 and, for
# class 0, TP=2 FP=2 FN=0 TN=2.
Y_TRUE_BIN = [0, 1, 1, 0, 1, 1]
Y_PRED_BIN = [0, 1, 0, 0, 0, 1]


def test_binary_hand_computed():
    assert accuracy_score(Y_TRUE_BIN, Y_PRED_BIN) == pytest.approx(4 / 6)
    assert error_rate(Y_TRUE_BIN, Y_PRED_BIN) == pytest.approx(2 / 6)
    assert precision_score(Y_TRUE_BIN, Y_PRED_BIN) == 1.0
    assert recall_score(Y_TRUE_BIN, Y_PRED_BIN) == 0.5
    assert specificity_score(Y_TRUE_BIN, Y_PRED_BIN) == 1.0
    assert false_positive_rate(Y_TRUE_BIN, Y_PRED_BIN) == 0.0
    assert f1_score(Y_TRUE_BIN, Y_PRED_BIN) == pytest.approx(2 / 3)  # 2*2 / (2*2 + 0 + 2)
    assert fbeta_score(Y_TRUE_BIN, Y_PRED_BIN, beta=2) == pytest.approx(10 / 18)
    assert fbeta_score(Y_TRUE_BIN, Y_PRED_BIN, beta=0.5) == pytest.approx(2.5 / 3)
    # class 0 as positive: P = 2/4, R = 2/2, specificity = TN/(TN+FP) = 2/4
    assert precision_score(Y_TRUE_BIN, Y_PRED_BIN, pos_label=0) == 0.5
    assert recall_score(Y_TRUE_BIN, Y_PRED_BIN, pos_label=0) == 1.0
    assert specificity_score(Y_TRUE_BIN, Y_PRED_BIN, pos_label=0) == 0.5
    assert false_positive_rate(Y_TRUE_BIN, Y_PRED_BIN, pos_label=0) == 0.5


def test_binary_averages_hand_computed():
    kw = {"y_true": Y_TRUE_BIN, "y_pred": Y_PRED_BIN}
    assert_allclose(precision_score(**kw, average=None), [0.5, 1.0])
    assert precision_score(**kw, average="macro") == pytest.approx(0.75)
    assert precision_score(**kw, average="weighted") == pytest.approx((2 * 0.5 + 4 * 1) / 6)
    assert precision_score(**kw, average="micro") == pytest.approx(4 / 6)
    assert recall_score(**kw, average="weighted") == pytest.approx(4 / 6)
    assert_allclose(f1_score(**kw, average=None), [2 / 3, 2 / 3])
    assert_allclose(specificity_score(**kw, average=None), [0.5, 1.0])
    assert specificity_score(**kw, average="weighted") == pytest.approx((2 * 0.5 + 4 * 1) / 6)
    assert specificity_score(**kw, average="micro") == pytest.approx(4 / 6)  # TN 2+2, FP 2+0
    assert false_positive_rate(**kw, average="micro") == pytest.approx(2 / 6)
    assert_allclose(false_positive_rate(**kw, average=None), [0.5, 0.0])


# Multiclass case: pairs (a,a) (b,c) (c,c) (a,b) (c,c) (b,b) (c,a).
Y_TRUE_ABC = ["a", "b", "c", "a", "c", "b", "c"]
Y_PRED_ABC = ["a", "c", "c", "b", "c", "b", "a"]


def test_multiclass_hand_computed():
    kw = {"y_true": Y_TRUE_ABC, "y_pred": Y_PRED_ABC}
    assert_array_equal(confusion_matrix(**kw), [[1, 1, 0], [0, 1, 1], [1, 0, 2]])
    # a: TP 1 FP 1 FN 1 TN 4; b: TP 1 FP 1 FN 1 TN 4; c: TP 2 FP 1 FN 1 TN 3
    assert_allclose(precision_score(**kw, average=None), [0.5, 0.5, 2 / 3])
    assert_allclose(recall_score(**kw, average=None), [0.5, 0.5, 2 / 3])
    assert_allclose(f1_score(**kw, average=None), [0.5, 0.5, 2 / 3])
    assert_allclose(specificity_score(**kw, average=None), [4 / 5, 4 / 5, 3 / 4])
    assert_allclose(false_positive_rate(**kw, average=None), [1 / 5, 1 / 5, 1 / 4])
    assert precision_score(**kw, average="macro") == pytest.approx((0.5 + 0.5 + 2 / 3) / 3)
    assert precision_score(**kw, average="weighted") == pytest.approx(4 / 7)
    assert f1_score(**kw, average="micro") == pytest.approx(4 / 7)
    assert accuracy_score(**kw) == pytest.approx(4 / 7)
    assert specificity_score(**kw, average="micro") == pytest.approx(11 / 14)
    assert false_positive_rate(**kw, average="micro") == pytest.approx(3 / 14)
    assert specificity_score(**kw, average="weighted") == pytest.approx(
        (2 * 0.8 + 2 * 0.8 + 3 * 0.75) / 7
    )


def test_labels_select_order_and_add_absent_classes():
    kw = {"y_true": Y_TRUE_ABC, "y_pred": Y_PRED_ABC}
    assert_allclose(precision_score(**kw, labels=["c", "a"], average=None), [2 / 3, 0.5])
    # micro over c and a: TP 2+1, FP 1+1 (the b->c and c->a samples still count)
    assert precision_score(**kw, labels=["c", "a"], average="micro") == pytest.approx(3 / 5)
    assert_allclose(
        recall_score(**kw, labels=["c", "zebra"], average=None, zero_division=1.0), [2 / 3, 1.0]
    )
    assert_allclose(specificity_score(**kw, labels=["zebra"], average=None), [1.0])
    assert_allclose(false_positive_rate(**kw, labels=["zebra"], average=None), [0.0])


def test_confusion_matrix_hand_computed():
    kw = {"y_true": Y_TRUE_ABC, "y_pred": Y_PRED_ABC}
    assert_array_equal(confusion_matrix(**kw, labels=["a", "b", "z"]),
                       [[1, 1, 0], [0, 1, 0], [0, 0, 0]])  # fmt: skip
    assert_array_equal(confusion_matrix(**kw, labels=["c", "a"]), [[2, 1], [0, 1]])
    assert_allclose(confusion_matrix(**kw, normalize="true"),
                    [[0.5, 0.5, 0], [0, 0.5, 0.5], [1 / 3, 0, 2 / 3]])  # fmt: skip
    assert_allclose(confusion_matrix(**kw, normalize="pred"),
                    [[0.5, 0.5, 0], [0, 0.5, 1 / 3], [0.5, 0, 2 / 3]])  # fmt: skip
    assert_allclose(confusion_matrix(**kw, normalize="all"),
                    np.array([[1, 1, 0], [0, 1, 1], [1, 0, 2]]) / 7)  # fmt: skip
    z = confusion_matrix(**kw, labels=["a", "z"], normalize="true")
    assert_allclose(z, [[1.0, 0.0], [0.0, 0.0]])  # a->b is left out; a zero row gives zeros


def test_sample_weight_hand_computed():
    y_true, y_pred, w = [1, 0, 1, 1], [1, 1, 0, 1], [1, 2, 3, 4]
    # TP = 1 + 4, FP = 2, FN = 3, TN = 0
    assert precision_score(y_true, y_pred, sample_weight=w) == pytest.approx(5 / 7)
    assert recall_score(y_true, y_pred, sample_weight=w) == pytest.approx(5 / 8)
    assert f1_score(y_true, y_pred, sample_weight=w) == pytest.approx(10 / 15)
    assert specificity_score(y_true, y_pred, sample_weight=w) == 0.0
    assert false_positive_rate(y_true, y_pred, sample_weight=w) == 1.0
    assert accuracy_score(y_true, y_pred, sample_weight=w) == 0.5
    assert accuracy_score(y_true, y_pred, sample_weight=w, normalize=False) == 5.0
    assert error_rate(y_true, y_pred, sample_weight=w, normalize=False) == 5.0
    cm = confusion_matrix(y_true, y_pred, sample_weight=w)
    assert cm.dtype == np.int64
    assert_array_equal(cm, [[0, 2], [3, 5]])
    cm = confusion_matrix(y_true, y_pred, sample_weight=np.array(w, dtype=float) / 2)
    assert cm.dtype == np.float64
    assert_allclose(cm, [[0, 1], [1.5, 2.5]])
    assert accuracy_score([1, 0, 2], [1, 1, 2], normalize=False) == 2.0
    assert error_rate([1, 0, 2], [1, 1, 2]) == pytest.approx(1 / 3)


def test_weights_of_very_different_sizes_are_not_lost():
    # label 0: TP 1e20, FP 1 (the true-1 sample), TN 0; a naive FP = column sum - TP is 0
    kw = {"sample_weight": [1e20, 1.0], "average": None}
    assert_allclose(specificity_score([0, 1], [0, 0], **kw), [0.0, 1.0])
    assert_allclose(false_positive_rate([0, 1], [0, 0], **kw), [1.0, 0.0])
    kw = {"sample_weight": [1.0, 5e-324], "average": None, "zero_division": np.nan}
    assert_allclose(specificity_score([0, 1], [0, 0], **kw), [0.0, 1.0])


def test_fbeta_zero_division_follows_sklearn_1_3():
    # P and R both 0 but the label occurs: F is 0, not undefined, whatever zero_division
    for zd in ZERO_DIVISIONS:
        assert f1_score([1, 0], [0, 1], zero_division=zd) == 0.0
        assert fbeta_score([1, 0], [0, 1], beta=2, zero_division=zd) == 0.0
    # precision undefined (nothing predicted 1) but recall 0: F is 0 and does not warn
    assert precision_score([1, 1], [0, 0], zero_division=1.0) == 1.0
    assert f1_score([1, 1], [0, 0], zero_division=1.0) == 0.0
    assert f1_score([1, 1], [0, 0]) == 0.0  # no warning: TP + FP + FN > 0
    # TP + FP + FN == 0: zero_division
    assert f1_score([0, 0], [0, 0], zero_division=1.0) == 1.0
    assert np.isnan(f1_score([0, 0], [0, 0], zero_division=np.nan))
    with pytest.warns(UndefinedMetricWarning):
        assert f1_score([0, 0], [0, 0]) == 0.0


def test_zero_division_nan_is_left_out_of_averages():
    y_true, y_pred = [0, 1, 1], [0, 0, 0]  # label 1 is never predicted
    assert_allclose(precision_score(y_true, y_pred, average=None, zero_division=np.nan),
                    [1 / 3, np.nan])  # fmt: skip
    assert precision_score(y_true, y_pred, average="macro", zero_division=np.nan) == 1 / 3
    assert precision_score(y_true, y_pred, average="weighted", zero_division=np.nan) == 1 / 3
    assert precision_score(y_true, y_pred, average="macro", zero_division=1.0) == 2 / 3
    assert np.isnan(
        precision_score(y_true, y_pred, labels=[1, 2], average="macro", zero_division=np.nan)
    )
    # weighted over labels that are never true: the supports sum to 0, plain mean is used
    assert recall_score(y_true, y_pred, labels=[2, 3], average="weighted", zero_division=1.0) == 1


def test_binary_with_a_single_class_and_absent_pos_label():
    # as in scikit-learn: allowed, pos_label simply has no samples
    assert precision_score([0, 0, 0], [0, 0, 0], zero_division=1.0) == 1.0
    assert specificity_score([0, 0, 0], [0, 0, 0]) == 1.0
    assert false_positive_rate([0, 0, 0], [0, 0, 0]) == 0.0
    # undefined: every sample is positive, there is no negative
    assert np.isnan(specificity_score([1, 1], [1, 0], zero_division=np.nan))
    assert false_positive_rate([1, 1], [1, 0], zero_division=1.0) == 1.0


# ---------------------------------------------------------------- warnings
_FIX = "; pass zero_division=0.0, 1.0 or np.nan to choose the value and silence this warning."


def test_warning_messages():
    with pytest.warns(UndefinedMetricWarning, match=re.escape(
        "precision_score is ill-defined and set to 0.0 for label 1: no predicted samples" + _FIX
    )):  # fmt: skip
        precision_score([1, 1], [0, 0])
    with pytest.warns(UndefinedMetricWarning, match=re.escape(
        "recall_score is ill-defined and set to 0.0 for label 'zebra': no true samples" + _FIX
    )):  # fmt: skip
        recall_score(Y_TRUE_ABC, Y_PRED_ABC, labels=["c", "zebra"], average="macro")
    with pytest.warns(UndefinedMetricWarning, match=re.escape(
        "f1_score is ill-defined and set to 0.0 for labels [5, 6]: no true nor predicted samples"
        + _FIX
    )):  # fmt: skip
        f1_score([0, 1], [0, 1], labels=[0, 5, 6], average=None)
    with pytest.warns(UndefinedMetricWarning, match=re.escape(
        "precision_score is ill-defined and set to 0.0 for labels [5, 6] pooled "
        "(average='micro'): no predicted samples" + _FIX
    )):  # fmt: skip
        precision_score([0, 1], [0, 1], labels=[5, 6], average="micro")
    with pytest.warns(UndefinedMetricWarning, match=re.escape(
        "specificity_score is ill-defined and set to 0.0 for label 1: no negative samples" + _FIX
    )):  # fmt: skip
        assert specificity_score([1, 1], [1, 0]) == 0.0
    with pytest.warns(UndefinedMetricWarning, match="false_positive_rate is ill-defined"):
        false_positive_rate([1, 1], [1, 0])
    with pytest.warns(UndefinedMetricWarning, match=re.escape(
        "accuracy_score is undefined because every sample weight is zero; returning nan."
    )):  # fmt: skip
        assert np.isnan(accuracy_score([1, 0], [1, 1], sample_weight=[0, 0]))
    with pytest.warns(UndefinedMetricWarning, match="error_rate is undefined"):
        assert np.isnan(error_rate([1, 0], [1, 1], sample_weight=[0, 0]))


@pytest.mark.parametrize("zero_division", [0.0, 1.0, np.nan])
def test_explicit_zero_division_does_not_warn(zero_division):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        precision_score([1, 1], [0, 0], zero_division=zero_division)
        recall_score([0, 0], [1, 1], zero_division=zero_division)
        f1_score([0, 0], [0, 0], zero_division=zero_division)
        specificity_score([1, 1], [1, 0], zero_division=zero_division)


# ---------------------------------------------------------------- errors
def _raises(error, message):
    return pytest.raises(error, match="^" + re.escape(message) + "$")


AVG_MSG = ("The 'average' parameter of {} must be one of ['binary', 'macro', 'micro', "
           "'weighted', None]. Got 'samples' instead.")  # fmt: skip


@pytest.mark.parametrize("name", sorted(RATIO_FUNCS))
def test_ratio_metric_errors(name):
    func = RATIO_FUNCS[name]
    fname = func.__name__
    kw = {"beta": 1.0} if name == "fbeta" else {}
    with _raises(InvalidParameterError, AVG_MSG.format(fname)):
        func([0, 1], [0, 1], average="samples", **kw)
    with _raises(
        InputValidationError,
        f"{fname}: y_true and y_pred must have the same length. Got lengths [3, 4].",
    ):
        func([0, 1, 1], [0, 1, 1, 0], **kw)  # fmt: skip
    with _raises(
        InputValidationError,
        f"{fname}: y_true, y_pred and sample_weight must have "
        "the same length. Got lengths [3, 3, 2].",
    ):
        func([0, 1, 1], [0, 1, 1], sample_weight=[1, 2], **kw)  # fmt: skip
    with _raises(InputValidationError, f"{fname}: y_true is empty; pass at least one sample."):
        func([], [], **kw)
    with _raises(
        InputValidationError,
        f"{fname}: y_true contains NaN or infinity, the first at position 1 (nan); drop those rows "
        "or replace the values with finite numbers first.",
    ):
        func([0.0, np.nan], [0.0, 1.0], **kw)
    with _raises(
        InputValidationError,
        f"{fname}: y_pred contains NaN or infinity, the first at position 1 (inf); drop those rows "
        "or replace the values with finite numbers first.",
    ):
        func([0, 1], np.array([0, np.inf]), **kw)
    with _raises(
        InputValidationError,
        f"{fname}: average='binary' needs at most 2 distinct labels in y_true and y_pred. "
        "Got 3 labels [0, 1, 2]; pass average='macro', 'micro', 'weighted' or None, or score "
        "one class against the rest with labels=[2], average='micro'.",
    ):
        func([0, 1, 2], [0, 1, 1], **kw)
    with _raises(
        InputValidationError,
        f"{fname}: pos_label must be one of the labels found in y_true and y_pred "
        "['neg', 'pos']. Got pos_label=1; pass e.g. pos_label='pos'.",
    ):
        func(["pos", "neg"], ["pos", "pos"], **kw)
    with _raises(
        InputValidationError,
        f"{fname}: sample_weight must be non-negative. Got values [-1.0]; drop those rows or "
        "give them a weight of 0 or more.",
    ):
        func([0, 1], [0, 1], sample_weight=[1, -1], **kw)  # fmt: skip
    with _raises(
        InputValidationError,
        f"{fname}: sample_weight contains NaN or infinity, the first at position 1 (nan)"
        f"; drop those rows or replace the values with finite numbers first.",
    ):
        func([0, 1], [0, 1], sample_weight=[1, np.nan], **kw)
    with _raises(
        InvalidParameterError,
        f"The 'zero_division' parameter of {fname} must be one "
        "of ['warn', 0.0, 1.0, nan]. Got 2 instead.",
    ):
        func([0, 1], [0, 1], zero_division=2, **kw)  # fmt: skip
    with _raises(
        InvalidParameterError,
        f"The 'zero_division' parameter of {fname} must be one "
        "of ['warn', 0.0, 1.0, nan]. Got 'nan' instead.",
    ):
        func([0, 1], [0, 1], zero_division="nan", **kw)  # fmt: skip
    with _raises(
        InvalidParameterError,
        f"The 'pos_label' parameter of {fname} must be a "
        "number, a bool or a string. Got [1] instead.",
    ):
        func([0, 1], [0, 1], pos_label=[1], **kw)  # fmt: skip
    with _raises(
        InputValidationError,
        f"{fname}: labels is empty; pass at least one label, "
        "or labels=None to use every label found in the data.",
    ):
        func([0, 1], [0, 1], labels=[], average="macro", **kw)  # fmt: skip
    with _raises(
        InputValidationError,
        f"{fname}: labels must not contain duplicates. Got duplicated values [1].",
    ):
        func([0, 1], [0, 1], labels=[1, 0, 1], average="macro", **kw)  # fmt: skip
    with _raises(
        InputValidationError,
        f"{fname}: y_true, y_pred and labels must hold labels of "
        "one type, all numbers or all strings. Got numbers [0, 1] in y_true and numbers "
        "[0, 1] in y_pred and strings ['a'] in labels; convert them to one type first, "
        "e.g. with .astype(str).",
    ):
        func([0, 1], [0, 1], labels=["a"], average="macro", **kw)  # fmt: skip


def test_label_type_errors():
    with _raises(
        InputValidationError,
        "f1_score: y_true mixes numbers and strings, e.g. "
        "[1, 'a']; labels must be all numbers or all strings, e.g. "
        "y_true = [str(v) for v in y_true].",
    ):
        f1_score([1, "a"], ["a", "a"])  # fmt: skip
    with _raises(
        InputValidationError,
        "f1_score: y_pred mixes numbers and strings, e.g. "
        "[2, 'b']; labels must be all numbers or all strings, e.g. "
        "y_pred = [str(v) for v in y_pred].",
    ):
        f1_score(["a", "b"], np.array(["b", 2], dtype=object), average="macro")  # fmt: skip
    with _raises(
        InputValidationError,
        "accuracy_score: y_true and y_pred must hold labels of "
        "one type, all numbers or all strings. Got numbers [0, 1] in y_true and strings "
        "['0', '1'] in y_pred; convert them to one type first, e.g. with .astype(str).",
    ):
        accuracy_score([0, 1, 1], ["0", "1", "1"])  # fmt: skip
    with _raises(
        InputValidationError,
        "recall_score: y_true must be 1-dimensional: one class "
        "label per sample. Got an array of shape (2, 3); multilabel indicator matrices "
        "are not supported.",
    ):
        recall_score([[0, 1, 1], [1, 0, 1]], [[0, 1, 1], [1, 0, 1]])  # fmt: skip
    with _raises(
        InputValidationError,
        "confusion_matrix: y_true contains missing labels (None "
        "or NA); every sample needs a label, so drop or fill those samples first.",
    ):
        confusion_matrix(["a", None], ["a", "b"])  # fmt: skip
    with _raises(
        InputValidationError,
        "confusion_matrix: y_true contains missing labels (None "
        "or NA); every sample needs a label, so drop or fill those samples first.",
    ):
        confusion_matrix(pd.Series(["a", None], dtype="string"), ["a", "b"])  # fmt: skip
    with _raises(
        InputValidationError,
        "error_rate: y_true must contain numbers or strings. Got values of types ['dict'].",
    ):
        error_rate(np.array([{}, {}], dtype=object), [1, 2])  # fmt: skip


def test_other_parameter_errors():
    with _raises(
        InvalidParameterError,
        "The 'beta' parameter of fbeta_score must be a real number in [0.0, inf). Got -1 instead.",
    ):
        fbeta_score([0, 1], [0, 1], beta=-1)  # fmt: skip
    # as scikit-learn: beta = 0 is precision, beta = inf recall
    t, p = [1, 1, 0, 0, 1], [1, 0, 1, 0, 0]
    assert fbeta_score(t, p, beta=0) == precision_score(t, p) == 0.5
    assert fbeta_score(t, p, beta=np.inf) == recall_score(t, p) == 1 / 3
    with _raises(
        InvalidParameterError,
        "The 'beta' parameter of fbeta_score must be a real number. Got nan instead.",
    ):
        fbeta_score([0, 1], [0, 1], beta=np.nan)  # fmt: skip
    with _raises(
        InvalidParameterError,
        "The 'beta' parameter of fbeta_score must be a real number. Got '2' instead.",
    ):
        fbeta_score([0, 1], [0, 1], beta="2")  # fmt: skip
    with _raises(
        InvalidParameterError,
        "The 'normalize' parameter of confusion_matrix must be "
        "one of ['all', 'pred', 'true', None]. Got 'rows' instead.",
    ):
        confusion_matrix([0, 1], [0, 1], normalize="rows")  # fmt: skip
    for func in (accuracy_score, error_rate):
        with _raises(
            InvalidParameterError,
            f"The 'normalize' parameter of {func.__name__} must "
            "be one of [False, True]. Got 'yes' instead.",
        ):
            func([0, 1], [0, 1], normalize="yes")  # fmt: skip
    with _raises(
        InputValidationError,
        "confusion_matrix: none of labels [5, 6] occurs in "
        "y_true; pass labels that include at least one true class, or labels=None.",
    ):
        confusion_matrix([0, 1], [5, 1], labels=[5, 6])  # fmt: skip
    with _raises(
        InputValidationError,
        "confusion_matrix: none of labels [0] occurs in "
        "y_true; pass labels that include at least one true class, or labels=None.",
    ):
        confusion_matrix([1, 1], [0, 1], labels=[0])  # fmt: skip
    with _raises(
        InputValidationError, "accuracy_score: y_true is empty; pass at least one sample."
    ):
        accuracy_score(np.array([]), np.array([]))  # fmt: skip


def test_confusion_matrix_label_present_with_zero_weight_counts_as_present():
    cm = confusion_matrix([0, 1], [0, 1], labels=[0], sample_weight=[0.0, 1.0])
    assert_array_equal(cm, [[0.0]])


# ---------------------------------------------------------------- scikit-learn
POOLS = {
    "int": np.array([0, 1, 3, -2, 7]),
    "str": np.array(["ant", "bee", "cat", "dog", "eel"]),
}
ABSENT = {"int": 99, "str": "zzz"}


def _random_case(seed, kind, n_classes, weights):
    rng = np.random.default_rng(seed)
    pool = POOLS[kind][:n_classes]
    n = int(rng.integers(1, 30))
    y_true = rng.choice(pool, n)
    y_pred = np.where(rng.random(n) < 0.4, y_true, rng.choice(pool, n))
    if weights == "int":
        w = rng.integers(0, 4, n)
    elif weights == "float":
        w = rng.random(n) * 3
    else:
        w = None
    variant = seed % 3
    if variant == 0:
        labels = None
    elif variant == 1:
        size = int(rng.integers(1, n_classes + 1))
        labels = list(rng.choice(pool, size, replace=False))
    else:
        labels = [*rng.permutation(pool), ABSENT[kind]]
    return y_true, y_pred, w, pool, labels


SK_RATIO = {
    "precision": (precision_score, skm.precision_score, {}),
    "recall": (recall_score, skm.recall_score, {}),
    "f1": (f1_score, skm.f1_score, {}),
    "f0.5": (fbeta_score, skm.fbeta_score, {"beta": 0.5}),
    "f2": (fbeta_score, skm.fbeta_score, {"beta": 2.0}),
    "f3.7": (fbeta_score, skm.fbeta_score, {"beta": 3.7}),
}


@pytest.mark.parametrize("weights", [None, "int", "float"])
@pytest.mark.parametrize("n_classes", [2, 4])
@pytest.mark.parametrize("kind", ["int", "str"])
@pytest.mark.parametrize("seed", range(12))
def test_ratio_metrics_match_sklearn(seed, kind, n_classes, weights):
    y_true, y_pred, w, pool, labels = _random_case(seed, kind, n_classes, weights)
    zero_division = ZERO_DIVISIONS[seed % 4]
    for name, (ours, theirs, extra) in SK_RATIO.items():
        for average in AVERAGES:
            kw = {"labels": labels, "average": average, "sample_weight": w,
                  "zero_division": zero_division, **extra}  # fmt: skip
            if average == "binary":
                kw["pos_label"] = pool[-1].item()
            try:
                expected, sk_warned = _sklearn(theirs, y_true, y_pred, **kw)
            except ValueError:
                with pytest.raises(InputValidationError):
                    ours(y_true, y_pred, **kw)
                continue
            with warnings.catch_warnings(record=True) as record:
                warnings.simplefilter("always")
                actual = ours(y_true, y_pred, **kw)
            warned = any(issubclass(r.category, UndefinedMetricWarning) for r in record)
            _close(actual, expected)
            assert isinstance(actual, float) == (average is not None), (name, average)
            assert warned == (sk_warned and zero_division == "warn"), (name, average)


@pytest.mark.parametrize("weights", [None, "int", "float"])
@pytest.mark.parametrize("n_classes", [2, 4])
@pytest.mark.parametrize("kind", ["int", "str"])
@pytest.mark.parametrize("seed", range(12))
def test_confusion_matrix_and_accuracy_match_sklearn(seed, kind, n_classes, weights):
    y_true, y_pred, w, _, labels = _random_case(seed, kind, n_classes, weights)
    for normalize in [None, "true", "pred", "all"]:
        try:
            expected, _ = _sklearn(skm.confusion_matrix, y_true, y_pred, labels=labels,
                                   sample_weight=w, normalize=normalize)  # fmt: skip
        except ValueError:
            with pytest.raises(InputValidationError):
                confusion_matrix(y_true, y_pred, labels=labels, sample_weight=w)
            continue
        actual = confusion_matrix(y_true, y_pred, labels=labels, sample_weight=w,
                                  normalize=normalize)  # fmt: skip
        assert actual.dtype == expected.dtype
        _close(actual, expected)
    if w is None or w.sum() > 0:
        for normalize in [True, False]:
            expected = skm.accuracy_score(y_true, y_pred, normalize=normalize, sample_weight=w)
            _close(accuracy_score(y_true, y_pred, normalize=normalize, sample_weight=w), expected)
            expected = skm.zero_one_loss(y_true, y_pred, normalize=normalize, sample_weight=w)
            _close(error_rate(y_true, y_pred, normalize=normalize, sample_weight=w), expected)


@pytest.mark.parametrize("zero_division", ZERO_DIVISIONS)
def test_degenerate_inputs_match_sklearn(zero_division):
    cases = [([0, 0], [0, 0]), ([1, 1], [0, 0]), ([0, 0], [1, 1]), ([1, 0], [0, 1]),
             (["a", "a"], ["a", "a"]), ([1], [1]), ([2, 2, 2], [2, 2, 0])]  # fmt: skip
    for y_true, y_pred in cases:
        for name in ["precision", "recall", "f1", "f2"]:
            ours, theirs, extra = SK_RATIO[name]
            for average in AVERAGES:
                for labels in [None, [0], [0, 5], [1, 2, 3]]:
                    if labels is not None and isinstance(y_true[0], str):
                        continue
                    kw = {"labels": labels, "average": average,
                          "zero_division": zero_division, **extra}  # fmt: skip
                    try:
                        expected, sk_warned = _sklearn(theirs, y_true, y_pred, **kw)
                    except ValueError:
                        with pytest.raises(InputValidationError):
                            ours(y_true, y_pred, **kw)
                        continue
                    with warnings.catch_warnings(record=True) as record:
                        warnings.simplefilter("always")
                        actual = ours(y_true, y_pred, **kw)
                    warned = any(issubclass(r.category, UndefinedMetricWarning) for r in record)
                    _close(actual, expected)
                    assert warned == (sk_warned and zero_division == "warn")


def _many_classes_case(seed):
    """~400 distinct string labels: more classes than a k x k table allows (3 bincounts)."""
    rng = np.random.default_rng(seed)
    pool = np.array([f"item{i:04d}" for i in range(1000)])
    y_true = rng.choice(pool[:600], 500)
    y_pred = np.where(rng.random(500) < 0.5, y_true, rng.choice(pool[:600], 500))
    return y_true, y_pred, rng.random(500), pool


@pytest.mark.parametrize("seed", range(3))
def test_many_classes_match_sklearn(seed):
    y_true, y_pred, w, pool = _many_classes_case(seed)
    assert len(np.union1d(y_true, y_pred)) ** 2 > max(len(y_true), 1 << 16)
    labels = list(pool[[5, 0, 999, 17, 250]])
    for sw in [None, w]:
        _close(confusion_matrix(y_true, y_pred, sample_weight=sw),
               skm.confusion_matrix(y_true, y_pred, sample_weight=sw))  # fmt: skip
        _close(confusion_matrix(y_true, y_pred, labels=labels, sample_weight=sw),
               skm.confusion_matrix(y_true, y_pred, labels=labels, sample_weight=sw))  # fmt: skip
        for average in ["micro", "macro", "weighted", None]:
            for lab in [None, labels]:
                kw = {"labels": lab, "average": average, "sample_weight": sw, "zero_division": 0.0}
                _close(f1_score(y_true, y_pred, **kw), skm.f1_score(y_true, y_pred, **kw))
                _close(precision_score(y_true, y_pred, **kw),
                       skm.precision_score(y_true, y_pred, **kw))  # fmt: skip
                _close(recall_score(y_true, y_pred, **kw), skm.recall_score(y_true, y_pred, **kw))
                args = (y_true.tolist(), y_pred.tolist())
                for name in ["specificity", "false_positive_rate"]:
                    expected, _ = oracle.ratio_metric(
                        name, *args, labels=lab, average=average,
                        sample_weight=None if sw is None else sw.tolist(), zero_division=0.0,
                    )  # fmt: skip
                    _close(_call(name, y_true, y_pred, **kw)[0], expected)


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda v: v.astype(str), id="strings"),
        pytest.param(lambda v: v * 10**9 - 7, id="wide-int-range"),
        pytest.param(lambda v: v * 0.5, id="non-integral-floats"),
        pytest.param(lambda v: (v - 3).astype(np.int8), id="int8-negative"),
        pytest.param(lambda v: v.astype(np.uint16) * 300, id="uint16-wide"),
    ],
)
def test_label_encodings_with_rare_labels(make):
    """Rare labels the strided sample of the encoder misses must still be counted."""
    rng = np.random.default_rng(5)
    n = 20_000
    t = rng.integers(0, 3, n)
    p = np.where(rng.random(n) < 0.7, t, rng.integers(0, 3, n))
    t[[1, 4001, 9999]] = [3, 4, 5]  # odd positions: outside the every-4th sample
    p[[3, 4003]] = [6, 4]
    y_true, y_pred = make(t), make(p)
    codes_true, codes_pred = t.tolist(), p.tolist()
    # compare with scikit-learn on the integer codes: the encoding must not matter
    expected = skm.confusion_matrix(t, p)
    assert_array_equal(confusion_matrix(y_true, y_pred), expected)
    for average in ["micro", "macro", "weighted", None]:
        kw = {"average": average, "zero_division": 0.0}
        _close(f1_score(y_true, y_pred, **kw), skm.f1_score(t, p, **kw))
        _close(precision_score(y_true, y_pred, **kw), skm.precision_score(t, p, **kw))
    assert accuracy_score(y_true, y_pred) == skm.accuracy_score(codes_true, codes_pred)


# ---------------------------------------------------------------- oracle and properties
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("kind", ["int", "str"])
def test_specificity_and_fpr_match_oracle(seed, kind):
    for n_classes in (2, 4):
        for weights in (None, "int", "float"):
            y_true, y_pred, w, pool, labels = _random_case(seed, kind, n_classes, weights)
            args = (y_true.tolist(), y_pred.tolist())
            sw = None if w is None else w.tolist()
            for name in ["specificity", "false_positive_rate"]:
                for average in AVERAGES:
                    for zd in ZERO_DIVISIONS:
                        kw = {"labels": labels, "average": average, "zero_division": zd}
                        if average == "binary":
                            kw["pos_label"] = pool[-1].item()
                        try:
                            expected = oracle.ratio_metric(name, *args, sample_weight=sw, **kw)
                        except ValueError:
                            with pytest.raises(InputValidationError):
                                _call(name, y_true, y_pred, sample_weight=w, **kw)
                            continue
                        actual = _call(name, y_true, y_pred, sample_weight=w, **kw)
                        _close(actual[0], expected[0])
                        assert actual[1] == (expected[1] and zd == "warn")


@pytest.mark.parametrize("seed", range(10))
def test_binary_specificity_is_recall_of_the_other_label(seed):
    rng = np.random.default_rng(seed)
    y_true = rng.choice(["no", "yes"], 12)
    y_pred = rng.choice(["no", "yes"], 12)
    w = rng.random(12)
    for zd in ZERO_DIVISIONS[1:]:
        for pos, neg in [("yes", "no"), ("no", "yes")]:
            kw = {"sample_weight": w, "zero_division": zd}
            spec = specificity_score(y_true, y_pred, pos_label=pos, **kw)
            _close(spec, recall_score(y_true, y_pred, pos_label=neg, **kw))
            _close(spec, skm.recall_score(y_true, y_pred, pos_label=neg, **kw))
            _close(false_positive_rate(y_true, y_pred, pos_label=pos, **kw), 1 - spec)


@st.composite
def labelled(draw):
    """Small label sets, so that classes are often missing from y_true or y_pred."""
    values = draw(st.sampled_from([[0, 1], [0, 1, 2], [-1, 4, 9, 10], ["x", "y", "z"]]))
    n = draw(st.integers(1, 10))
    y_true = draw(st.lists(st.sampled_from(values), min_size=n, max_size=n))
    y_pred = draw(st.lists(st.sampled_from(values), min_size=n, max_size=n))
    weights = draw(
        st.none()
        | st.lists(st.integers(0, 3), min_size=n, max_size=n)
        | st.lists(st.floats(0, 5, allow_nan=False), min_size=n, max_size=n)
    )
    extra = values[-1] + 1 if isinstance(values[-1], int) else "w"
    labels = draw(st.none() | st.lists(st.sampled_from([*values, extra]), min_size=1,
                                       max_size=5, unique=True))  # fmt: skip
    return y_true, y_pred, weights, labels, values


@given(labelled(), st.sampled_from(ZERO_DIVISIONS), st.sampled_from([0.5, 1.0, 2.0]))
def test_ratio_metrics_match_oracle(data, zero_division, beta):
    y_true, y_pred, weights, labels, values = data
    for name in RATIO_FUNCS:
        for average in AVERAGES:
            kw = {"labels": labels, "average": average, "zero_division": zero_division,
                  "sample_weight": weights}  # fmt: skip
            if average == "binary":
                kw["pos_label"] = values[1]
            try:
                expected = oracle.ratio_metric(name, y_true, y_pred, beta=beta, **kw)
            except ValueError:
                with pytest.raises(InputValidationError):
                    _call(name, y_true, y_pred, beta=beta, **kw)
                continue
            actual = _call(name, y_true, y_pred, beta=beta, **kw)
            _close(actual[0], expected[0])
            assert actual[1] == (expected[1] and zero_division == "warn"), (name, average)
            finite = np.asarray(actual[0])[~np.isnan(actual[0])]
            assert ((finite >= 0) & (finite <= 1)).all()


@given(labelled(), st.sampled_from([None, "true", "pred", "all"]))
def test_confusion_matrix_matches_oracle(data, normalize):
    y_true, y_pred, weights, labels, _ = data
    try:
        expected = oracle.confusion_matrix(y_true, y_pred, labels, weights, normalize)
    except ZeroDivisionError:
        expected = None
    assume(expected is not None)  # a zero total under the normalisation
    if labels is not None and not set(labels) & set(y_true):
        with pytest.raises(InputValidationError):
            confusion_matrix(y_true, y_pred, labels=labels)
        return
    actual = confusion_matrix(y_true, y_pred, labels=labels, sample_weight=weights,
                              normalize=normalize)  # fmt: skip
    _close(actual, expected)
    if weights is None or all(isinstance(x, int) for x in weights):
        assert actual.dtype == (np.int64 if normalize is None else np.float64)


@given(labelled())
def test_accuracy_properties(data):
    y_true, y_pred, weights, _, _ = data
    assume(weights is None or sum(weights) != 0)
    acc = accuracy_score(y_true, y_pred, sample_weight=weights)
    _close(acc, oracle.accuracy(y_true, y_pred, weights))
    _close(error_rate(y_true, y_pred, sample_weight=weights), 1 - acc)
    _close(accuracy_score(y_true, y_pred, sample_weight=weights, normalize=False),
           oracle.accuracy(y_true, y_pred, weights, normalize=False))  # fmt: skip
    # single-label multiclass: micro precision = micro recall = micro F1 = accuracy
    kw = {"sample_weight": weights, "zero_division": 0.0}
    for func in (precision_score, recall_score, f1_score):
        _close(func(y_true, y_pred, average="micro", **kw), acc)
    # weighted recall is accuracy too
    _close(recall_score(y_true, y_pred, average="weighted", **kw), acc)


@given(labelled())
def test_specificity_plus_fpr_is_one(data):
    y_true, y_pred, weights, labels, _ = data
    for average in ["micro", "macro", "weighted", None]:
        kw = {"labels": labels, "average": average, "sample_weight": weights,
              "zero_division": np.nan}  # fmt: skip
        spec = np.asarray(specificity_score(y_true, y_pred, **kw))
        fpr = np.asarray(false_positive_rate(y_true, y_pred, **kw))
        _close(spec + fpr, np.where(np.isnan(spec), np.nan, 1.0))


@given(labelled())
def test_integer_weights_equal_repetition(data):
    y_true, y_pred, _, labels, _ = data
    rng = np.random.default_rng(len(y_true))
    w = rng.integers(1, 4, len(y_true))
    rep_true, rep_pred = np.repeat(y_true, w), np.repeat(y_pred, w)
    assert_array_equal(confusion_matrix(y_true, y_pred, sample_weight=w),
                       confusion_matrix(rep_true, rep_pred))  # fmt: skip
    for func in (precision_score, recall_score, specificity_score, f1_score):
        for average in ["micro", "macro", "weighted", None]:
            kw = {"labels": labels, "average": average, "zero_division": 1.0}
            _close(func(y_true, y_pred, sample_weight=w, **kw), func(rep_true, rep_pred, **kw))


# ---------------------------------------------------------------- input formats
def test_input_formats_give_the_same_result():
    y_true = ["b", "a", "c", "a", "b", "c", "c"]
    y_pred = ["b", "c", "c", "a", "a", "c", "b"]
    expected = f1_score(y_true, y_pred, average=None)
    formats = [
        (tuple(y_true), tuple(y_pred)),
        (np.array(y_true), np.array(y_pred)),
        (np.array(y_true, dtype=object), np.array(y_pred, dtype=object)),
        (np.array(y_true, dtype="S"), np.array(y_pred, dtype="S")),
        (pd.Series(y_true), pd.Series(y_pred)),
        (pd.Series(y_true, dtype="string"), pd.Series(y_pred, dtype="category")),
        (pl.Series(y_true), pl.Series(y_pred)),
        (np.array(y_true)[:, None], np.array(y_pred)[:, None]),
    ]
    for t, p in formats:
        _close(f1_score(t, p, average=None), expected)
        assert_array_equal(confusion_matrix(t, p), confusion_matrix(y_true, y_pred))


def test_numeric_label_types():
    t, p = [0, 1, 1, 0, 1], [0, 1, 0, 1, 1]
    expected = f1_score(t, p)
    for dtype in [np.int8, np.uint8, np.int32, np.int64, np.uint64, np.float32, np.float64]:
        _close(f1_score(np.array(t, dtype=dtype), np.array(p, dtype=dtype)), expected)
    _close(f1_score(np.array(t, dtype=bool), np.array(p, dtype=bool)), expected)
    _close(f1_score(np.array(t, dtype=bool), p), expected)  # True == 1
    _close(f1_score(pd.Series(t, dtype="Int64"), pl.Series(p)), expected)
    _close(f1_score(np.array(t, dtype=object), np.array(p, dtype=float)), expected)
    _close(f1_score(t, p, pos_label=True), expected)
    # non-integral float labels are plain classes (scikit-learn rejects them)
    _close(f1_score([0.5, 1.5, 1.5], [0.5, 1.5, 0.5], pos_label=1.5), 2 / 3)
    assert_array_equal(confusion_matrix([-0.5, 2.25], [2.25, 2.25]), [[0, 1], [0, 1]])
    # bool labels are returned as bool classes; huge uint64 labels keep their value
    big = np.array([2**63 + 5, 1], dtype=np.uint64)
    assert_array_equal(confusion_matrix(big, big[::-1]), [[0, 1], [1, 0]])


def test_inputs_are_not_modified_and_order_does_not_matter():
    rng = np.random.default_rng(3)
    y_true, y_pred = rng.integers(5, 9, 50), rng.integers(5, 9, 50)
    w = rng.random(50)
    copies = [a.copy() for a in (y_true, y_pred, w)]
    order = rng.permutation(50)
    for func in (precision_score, specificity_score, f1_score):
        a = func(y_true, y_pred, average="macro", sample_weight=w)
        b = func(y_true[order], y_pred[order], average="macro", sample_weight=w[order])
        assert a == pytest.approx(b, rel=1e-12)
    for a, b in zip(copies, (y_true, y_pred, w), strict=True):
        assert_array_equal(a, b)
    assert_allclose(f1_score(y_true, y_pred, average=None),
                    f1_score(y_true, y_pred, average=None, sample_weight=np.ones(50)))  # fmt: skip

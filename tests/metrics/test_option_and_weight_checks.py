"""Options checked on binary input too, 2-D scores of binary labels refused, huge
weights and scores, and GAUC weighting mappings."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sklearn.metrics as skm

import receval as rv
from receval.exceptions import InputValidationError, InvalidParameterError, UndefinedMetricWarning

RNG = np.random.default_rng(0)
Y = RNG.integers(0, 2, 20)
S = RNG.random(20)


@pytest.mark.parametrize("func", [rv.average_precision_score, rv.pr_auc_score, rv.roc_auc_score])
def test_binary_labels_with_two_score_columns_refused(func):
    with pytest.raises(ValueError, match="1d array"):
        skm.average_precision_score(Y, np.c_[1 - S, S])
    with pytest.raises(
        InputValidationError, match=r"binary but y_score has 2 columns.*y_score\[:, 1\]"
    ):
        func(Y, np.c_[1 - S, S])
    assert func(Y, S) == func(Y, np.c_[S])  # one column is still the scores


def test_multiclass_two_columns_of_three_classes_still_multiclass():
    y = np.array([0, 1, 2, 0, 1, 2])
    s = RNG.random((6, 3))
    s /= s.sum(axis=1, keepdims=True)
    assert rv.roc_auc_score(y, s, multi_class="ovr") == pytest.approx(
        skm.roc_auc_score(y, s, multi_class="ovr")
    )


@pytest.mark.parametrize(
    ("func", "options", "name"),
    [
        (rv.roc_auc_score, {"average": "foo"}, "average"),
        (rv.roc_auc_score, {"multi_class": "foo"}, "multi_class"),
        (rv.average_precision_score, {"average": "foo"}, "average"),
        (rv.pr_auc_score, {"average": "foo"}, "average"),
    ],
)
def test_options_checked_on_binary_input(func, options, name):
    with pytest.raises(InvalidParameterError, match=f"'{name}' parameter of {func.__name__}"):
        func([0, 1, 0, 1], [0.1, 0.9, 0.2, 0.8], **options)


@pytest.mark.parametrize("func", [rv.roc_curve, rv.precision_recall_curve])
def test_drop_intermediate_must_be_bool(func):
    with pytest.raises(InvalidParameterError, match="'drop_intermediate' parameter"):
        func([0, 1, 0, 1], [0.1, 0.9, 0.2, 0.8], drop_intermediate="no")
    func([0, 1, 0, 1], [0.1, 0.9, 0.2, 0.8], drop_intermediate=np.bool_(False))


def test_huge_weights_are_a_scale_in_classification_metrics():
    y, p = [0, 1, 0, 1, 1], [0, 1, 0, 1, 0]
    w = np.full(5, 1e308)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert rv.accuracy_score(y, p, sample_weight=w) == 0.8
        assert rv.precision_score(y, p, sample_weight=w) == 1.0
        assert rv.f1_score(y, p, sample_weight=w) == 0.8
        cm = rv.confusion_matrix(y, p, sample_weight=w, normalize="all")
    np.testing.assert_array_equal(cm, [[0.4, 0.0], [0.2, 0.4]])
    # counts stay the weights' own
    assert rv.accuracy_score(y, p, sample_weight=[3, 1, 1, 1, 1], normalize=False) == 6.0
    assert rv.confusion_matrix(y, p, sample_weight=[2.5] * 5)[0, 0] == 5.0


def test_integers_beyond_float64_range_are_ranked_or_refused():
    """Ranked exactly where only their order counts (they raised OverflowError)."""
    scores = [10**400, 10**400 + 1, 1, 2]
    assert rv.roc_auc_score([0, 1, 0, 1], scores) == rv.roc_auc_score([0, 1, 0, 1], [3, 4, 1, 2])
    with pytest.raises(InputValidationError, match="y_score holds integers beyond 2"):
        rv.roc_curve([0, 1, 0, 1], scores)  # thresholds are the scores themselves


G = ["a", "a", "b", "b"]


@pytest.mark.parametrize("bad", ["x", float("nan"), float("inf"), None])
def test_gauc_weighting_mapping_names_the_group(bad):
    with pytest.raises(InputValidationError, match=r"weighting .* for group 'b'") as info:
        rv.gauc_score([0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4], groups=G, weighting={"a": 1, "b": bad})
    assert "position" not in str(info.value) and "drop those rows" not in str(info.value)


def test_gauc_all_zero_weighting_warns_weights_are_zero():
    for run in (
        lambda: rv.gauc_score(
            [0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4], groups=G, weighting={"a": 0, "b": 0}
        ),
        lambda: (
            rv.metric("gauc", weighting={"a": 0, "b": 0})
            .update([0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4], groups=G)
            .compute()
        ),
    ):
        with pytest.warns(UndefinedMetricWarning, match="has weight zero"):
            assert np.isnan(run())
    with pytest.warns(UndefinedMetricWarning, match="no group has both"):
        rv.gauc_score([0, 0, 0, 0], [0.1, 0.2, 0.3, 0.4], groups=G)


def test_log_loss_of_float16_clips_at_float16s_epsilon():
    """As scikit-learn's (it clipped at float64's: 12.01); the loss itself is summed in
    float64 (scikit-learn's float16 arithmetic gives 2.3105)."""
    p = np.array([1, 0, 0], np.float16)
    eps = float(np.finfo(np.float16).eps)
    expected = (-np.log(eps) - 2 * np.log1p(-eps)) / 3
    assert rv.log_loss([1, 0, 1], p) == pytest.approx(expected, rel=1e-15)
    assert rv.metric("log_loss").update([1, 0, 1], p).compute() == rv.log_loss([1, 0, 1], p)
    assert rv.log_loss([1, 0, 1], p.astype(np.float64)) > 12

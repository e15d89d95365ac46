"""Invariance suite over every pointwise metric (scikit-learn's test_common pattern).

ALL_METRICS maps a name to an adapter ``(y_true, y_score, groups, sample_weight) ->
float or array``. Each property is a set of names with a ``NOT_`` twin, and a
completeness test makes sure every public metric is placed in one of the two.
"""

import re
import warnings

import numpy as np
import pandas as pd
import polars as pl
import pytest
from numpy.testing import assert_allclose

import receval
from receval import (
    accuracy_score,
    average_precision_score,
    break_even_point,
    brier_score_loss,
    calibration_curve,
    confusion_matrix,
    copc,
    error_rate,
    expected_calibration_error,
    explained_variance_score,
    f1_score,
    false_positive_rate,
    fbeta_score,
    gauc_score,
    log_loss,
    mean_absolute_error,
    normalized_entropy,
    partial_auc,
    pcoc,
    pr_auc_score,
    precision_recall_curve,
    precision_score,
    r2_score,
    recall_score,
    roc_auc_score,
    roc_curve,
    root_mean_squared_error,
    specificity_score,
)
from receval.exceptions import InputValidationError


def _hard(s):
    return (np.asarray(s) >= 0.5).astype(int)


def _cat(arrays):
    return np.concatenate([np.ravel(a) for a in arrays])


ALL_METRICS = {
    "roc_auc": lambda t, s, g, w=None: roc_auc_score(t, s, sample_weight=w),
    "average_precision": lambda t, s, g, w=None: average_precision_score(t, s, sample_weight=w),
    "pr_auc": lambda t, s, g, w=None: pr_auc_score(t, s, sample_weight=w),
    "break_even_point": lambda t, s, g, w=None: break_even_point(t, s, sample_weight=w),
    "gauc": lambda t, s, g, w=None: gauc_score(t, s, groups=g, sample_weight=w),
    "gauc_clicks": lambda t, s, g, w=None: gauc_score(
        t, s, groups=g, weighting="clicks", sample_weight=w
    ),
    "roc_curve": lambda t, s, g, w=None: _cat(roc_curve(t, s, sample_weight=w)),
    "precision_recall_curve": lambda t, s, g, w=None: _cat(
        precision_recall_curve(t, s, sample_weight=w)
    ),
    "log_loss": lambda t, s, g, w=None: log_loss(t, s, sample_weight=w),
    "normalized_entropy": lambda t, s, g, w=None: normalized_entropy(t, s, sample_weight=w),
    "pcoc": lambda t, s, g, w=None: pcoc(t, s, sample_weight=w),
    "copc": lambda t, s, g, w=None: copc(t, s, sample_weight=w),
    "calibration_curve": lambda t, s, g, w=None: _cat(
        calibration_curve(t, s, n_bins=4, sample_weight=w)
    ),
    "expected_calibration_error": lambda t, s, g, w=None: expected_calibration_error(
        t, s, n_bins=4, sample_weight=w
    ),
    "root_mean_squared_error": lambda t, s, g, w=None: root_mean_squared_error(
        t, s, sample_weight=w
    ),
    "mean_absolute_error": lambda t, s, g, w=None: mean_absolute_error(t, s, sample_weight=w),
    "brier_score_loss": lambda t, s, g, w=None: brier_score_loss(t, s, sample_weight=w),
    "r2": lambda t, s, g, w=None: r2_score(t, s, sample_weight=w),
    "explained_variance": lambda t, s, g, w=None: explained_variance_score(t, s, sample_weight=w),
    "partial_auc": lambda t, s, g, w=None: partial_auc(t, s, max_fpr=0.3, sample_weight=w),
    "confusion_matrix": lambda t, s, g, w=None: confusion_matrix(
        t, _hard(s), labels=[0, 1], sample_weight=w
    ).ravel(),
    "accuracy": lambda t, s, g, w=None: accuracy_score(t, _hard(s), sample_weight=w),
    "error_rate": lambda t, s, g, w=None: error_rate(t, _hard(s), sample_weight=w),
    "precision": lambda t, s, g, w=None: precision_score(
        t, _hard(s), sample_weight=w, zero_division=0.0
    ),
    "recall": lambda t, s, g, w=None: recall_score(t, _hard(s), sample_weight=w, zero_division=0.0),
    "specificity": lambda t, s, g, w=None: specificity_score(
        t, _hard(s), sample_weight=w, zero_division=0.0
    ),
    "false_positive_rate": lambda t, s, g, w=None: false_positive_rate(
        t, _hard(s), sample_weight=w, zero_division=0.0
    ),
    "f1": lambda t, s, g, w=None: f1_score(t, _hard(s), sample_weight=w, zero_division=0.0),
    "fbeta": lambda t, s, g, w=None: fbeta_score(
        t, _hard(s), beta=2.0, average="macro", sample_weight=w, zero_division=0.0
    ),
}

# public names each adapter covers (several adapters may cover one name)
COVERS = {
    "gauc_score": {"gauc", "gauc_clicks"},
    "fbeta_score": {"fbeta"},
    "f1_score": {"f1"},
}

# only the order of the scores matters
SCORE_ORDER_ONLY = {
    "roc_auc",
    "average_precision",
    "pr_auc",
    "break_even_point",
    "gauc",
    "gauc_clicks",
    "partial_auc",
}
NOT_SCORE_ORDER_ONLY = set(ALL_METRICS) - SCORE_ORDER_ONLY
# sample weights are accepted
WEIGHTED = set(ALL_METRICS)
NOT_WEIGHTED: set[str] = set()
# a NaN score raises the exact message
CHECKS_FINITE_SCORES = {
    n
    for n in ALL_METRICS
    if n
    not in {
        "confusion_matrix",
        "accuracy",
        "error_rate",
        "precision",
        "recall",
        "specificity",
        "false_positive_rate",
        "f1",
        "fbeta",
        "root_mean_squared_error",
        "mean_absolute_error",
    }
}
NOT_CHECKS_FINITE_SCORES = set(ALL_METRICS) - CHECKS_FINITE_SCORES  # hard labels / y_pred
# results depend on groups
USES_GROUPS = {"gauc", "gauc_clicks"}
NOT_USES_GROUPS = set(ALL_METRICS) - USES_GROUPS

# the pointwise families this suite covers; ranking, beyond-accuracy and retention
# functions take lists or event logs and have test files of their own
POINTWISE_MODULES = {
    "receval.metrics._classification",
    "receval.metrics._precision_recall",
    "receval.metrics._loss",
    "receval.metrics._curves",
    "receval.metrics._calibration",
    "receval.metrics._auc",
    "receval.metrics._gauc",
    "receval.metrics._regression",
    "receval.metrics._partial_auc",
}
PUBLIC_METRICS = {
    name
    for name in receval.__all__
    if getattr(getattr(receval, name), "__module__", None) in POINTWISE_MODULES
    and callable(getattr(receval, name))
    and not isinstance(getattr(receval, name), type)
    and name not in {"group_auc"}  # gauc_score's report; covered by the gauc adapters
}


def _data(seed=0, n=120):
    rng = np.random.default_rng(seed)
    t = (rng.random(n) < 0.4).astype(int)
    t[:2] = [0, 1]
    s = rng.choice([0.05, 0.2, 0.45, 0.5, 0.7, 0.95], n)  # deliberate ties
    g = rng.integers(0, 8, n)
    return t, s, g


def _call(name, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return ALL_METRICS[name](*args, **kwargs)


def test_every_metric_is_classified():
    for yes, no in [
        (SCORE_ORDER_ONLY, NOT_SCORE_ORDER_ONLY),
        (WEIGHTED, NOT_WEIGHTED),
        (CHECKS_FINITE_SCORES, NOT_CHECKS_FINITE_SCORES),
        (USES_GROUPS, NOT_USES_GROUPS),
    ]:
        assert yes | no == set(ALL_METRICS)
        assert not yes & no


def test_every_public_metric_has_an_adapter():
    covered = set()
    for name in PUBLIC_METRICS:
        aliases = COVERS.get(name, {name.removesuffix("_score")})
        if aliases & set(ALL_METRICS):
            covered.add(name)
    assert PUBLIC_METRICS - covered == set()


@pytest.mark.parametrize("name", sorted(ALL_METRICS))
def test_sample_order_invariance(name):
    t, s, g = _data()
    perm = np.random.default_rng(1).permutation(len(t))
    assert_allclose(_call(name, t, s, g), _call(name, t[perm], s[perm], g[perm]), atol=1e-12)


@pytest.mark.parametrize("name", sorted(ALL_METRICS))
@pytest.mark.parametrize("container", ["list", "pandas", "polars", "float32"])
def test_input_containers(name, container):
    t, s, g = _data()
    expected = _call(name, t, s, g)
    if container == "list":
        args = (t.tolist(), s.tolist(), g.tolist())
    elif container == "pandas":
        frame = pd.DataFrame({"t": t, "s": s, "g": g.astype(str)})
        args = (frame["t"], frame["s"], frame["g"])
    elif container == "polars":
        frame = pl.DataFrame({"t": t, "s": s, "g": g.astype(str)})
        args = (frame["t"], frame["s"], frame["g"])
    else:  # float32 scores that are exactly representable (only order-based)
        if name not in SCORE_ORDER_ONLY:
            pytest.skip("float32 rounding changes value-based metrics")
        args = (t, s.astype(np.float32), g)
    assert_allclose(_call(name, *args), expected, atol=1e-12)


@pytest.mark.parametrize("name", sorted(WEIGHTED))
def test_none_weights_equal_unit_weights(name):
    t, s, g = _data()
    assert_allclose(_call(name, t, s, g), _call(name, t, s, g, np.ones(len(t))), atol=1e-12)


@pytest.mark.parametrize("name", sorted(WEIGHTED))
def test_integer_weights_equal_repetition(name):
    t, s, g = _data(seed=3)
    w = np.random.default_rng(2).integers(1, 4, len(t))
    assert_allclose(
        _call(name, t, s, g, w), _call(name, *(np.repeat(a, w) for a in (t, s, g))), atol=1e-12
    )


@pytest.mark.parametrize("name", sorted(WEIGHTED))
def test_zero_weight_equals_removal(name):
    t, s, g = _data(seed=4)
    w = np.ones(len(t))
    drop = np.random.default_rng(5).random(len(t)) < 0.3
    drop[:2] = False
    w[drop] = 0.0
    keep = ~drop
    assert_allclose(_call(name, t, s, g, w), _call(name, t[keep], s[keep], g[keep]), atol=1e-12)


@pytest.mark.parametrize("name", sorted(SCORE_ORDER_ONLY))
@pytest.mark.parametrize("transform", [lambda x: 3 * x + 7, np.exp, lambda x: x**3 - 10])
def test_monotone_transform_invariance(name, transform):
    t, s, g = _data()
    assert_allclose(_call(name, t, transform(s), g), _call(name, t, s, g), atol=1e-12)


@pytest.mark.parametrize(
    "name", sorted(NOT_SCORE_ORDER_ONLY - {"roc_curve", "precision_recall_curve"})
)
def test_value_based_metrics_do_change_under_transform(name):
    # guards the classification above: a wrongly placed metric would pass both tests
    t, s, g = _data()
    changed = np.clip(s**3, 0, 1)
    a, b = _call(name, t, changed, g), _call(name, t, s, g)
    assert np.shape(a) != np.shape(b) or not np.allclose(a, b)


@pytest.mark.parametrize("name", sorted(ALL_METRICS))
def test_group_relabelling_invariance(name):
    t, s, g = _data()
    relabel = np.array([f"user-{97 * v + 5}" for v in range(8)])
    assert_allclose(_call(name, t, s, relabel[g]), _call(name, t, s, g), atol=1e-12)


@pytest.mark.parametrize("name", sorted(USES_GROUPS))
def test_grouped_metrics_depend_on_groups(name):
    t, s, g = _data()
    assert not np.isclose(_call(name, t, s, g), _call(name, t, s, np.zeros_like(g)))


@pytest.mark.parametrize("name", sorted(CHECKS_FINITE_SCORES))
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_scores_raise(name, bad):
    t, s, g = _data()
    s = s.copy()
    s[5] = bad
    with pytest.raises(
        InputValidationError,
        match=r": y_(score|pred|proba?) contains NaN or infinity, the first at position 5 "
        rf"\({re.escape(repr(bad))}\); drop those rows or replace the values with finite "
        r"numbers first\.$",
    ):
        _call(name, t, s, g)

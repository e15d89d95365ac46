"""Score-based binary metrics: hand-computed values, oracles, scikit-learn, errors."""

import math
import re
import warnings

import numpy as np
import pytest
import sklearn.metrics as skm
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.calibration import calibration_curve as sk_calibration_curve

import receval as rv
from receval import (
    average_precision_score,
    break_even_point,
    calibration_curve,
    copc,
    expected_calibration_error,
    log_loss,
    mean_absolute_error,
    pcoc,
    pr_auc_score,
    precision_recall_curve,
    roc_auc_score,
    roc_curve,
    root_mean_squared_error,
)
from receval.exceptions import InputValidationError, InvalidParameterError, UndefinedMetricWarning
from tests.oracles import pointwise as oracle

SEEDS = range(12)


def _data(seed, n=None, tied=True, weighted=False):
    rng = np.random.default_rng(seed)
    n = n or int(rng.integers(5, 200))
    y = (rng.random(n) < rng.uniform(0.1, 0.9)).astype(int)
    y[0], y[1] = 0, 1
    s = rng.choice([0.0, 0.1, 0.5, 0.9, 1.0], n) if tied else rng.random(n)
    w = rng.uniform(0, 3, n) if weighted else None
    if weighted:
        w[rng.random(n) < 0.1] = 0.0
        w[0] = w[1] = 1.0
    return y, s, w


# ------------------------------------------------------------ SPEC §7 and hand cases
def test_auc_seed001_pair_count_definition():
    y = [1, 1, 0, 0, 1, 0]
    s = [0.8, 0.4, 0.4, 0.1, 0.9, 0.85]
    # pairs: (0.8: >0.4,>0.1,<0.85) 2, (0.4: =0.4 .5, >0.1, <.85) 1.5, (0.9: 3) -> 6.5/9
    assert roc_auc_score(y, s) == pytest.approx(6.5 / 9, abs=1e-15)


def test_auc_ties_count_one_half():
    assert roc_auc_score([0, 1], [0.3, 0.3]) == 0.5
    assert roc_auc_score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]) == 0.75


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("weighted", [False, True])
def test_auc_equals_pair_loop(seed, weighted):
    y, s, w = _data(seed, weighted=weighted)
    assert roc_auc_score(y, s, sample_weight=w) == pytest.approx(
        oracle.pair_auc(y, s, w), abs=1e-12
    )


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("tied", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_auc_and_curves_equal_sklearn(seed, tied, weighted):
    y, s, w = _data(seed, tied=tied, weighted=weighted)
    assert_allclose(
        roc_auc_score(y, s, sample_weight=w),
        skm.roc_auc_score(y, s, sample_weight=w),
        rtol=0,
        atol=1e-12,
    )
    for drop in (True, False):
        ours = roc_curve(y, s, sample_weight=w, drop_intermediate=drop)
        theirs = skm.roc_curve(y, s, sample_weight=w, drop_intermediate=drop)
        for a, b in zip(ours, theirs, strict=True):
            assert_allclose(a, b, rtol=0, atol=1e-12)
        ours = precision_recall_curve(y, s, sample_weight=w, drop_intermediate=drop)
        theirs = skm.precision_recall_curve(y, s, sample_weight=w, drop_intermediate=drop)
        for a, b in zip(ours, theirs, strict=True):
            assert_allclose(a, b, rtol=0, atol=1e-12)
    assert_allclose(
        average_precision_score(y, s, sample_weight=w),
        skm.average_precision_score(y, s, sample_weight=w),
        rtol=0,
        atol=1e-12,
    )


@pytest.mark.parametrize("seed", SEEDS)
def test_large_input_uses_parallel_sort_and_stays_exact(seed, monkeypatch):
    from receval.metrics import _binary

    monkeypatch.setattr(_binary, "_PARALLEL_SORT_MIN", 10)
    y, s, _ = _data(seed, n=500)
    assert roc_auc_score(y, s) == pytest.approx(oracle.pair_auc(y, s), abs=1e-15)


def test_string_labels_and_pos_label():
    y = np.array(["no", "yes", "yes", "no", "yes"])
    s = [0.1, 0.8, 0.3, 0.4, 0.9]
    num = (y == "yes").astype(int)
    assert roc_auc_score(y, s) == roc_auc_score(num, s) == 5 / 6
    assert roc_auc_score(y, s) == pytest.approx(skm.roc_auc_score(y, s), abs=1e-15)
    assert roc_auc_score(y, s, pos_label="no") == pytest.approx(1 - roc_auc_score(num, s))
    for ours, theirs in zip(
        roc_curve(y, s, pos_label="yes"), skm.roc_curve(y, s, pos_label="yes"), strict=True
    ):
        assert_allclose(ours, theirs)
    assert average_precision_score(y, s, pos_label="yes") == pytest.approx(
        skm.average_precision_score(y, s, pos_label="yes")
    )
    assert roc_auc_score([-1, 1, 1, -1], [0.1, 0.8, 0.3, 0.4]) == 0.75
    assert roc_auc_score([False, True, True, False], [0.1, 0.8, 0.3, 0.4]) == 0.75


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("average", ["macro", "weighted"])
@pytest.mark.parametrize("weighted", [False, True])
def test_multiclass_auc_equals_sklearn(seed, average, weighted):
    rng = np.random.default_rng(seed)
    n, k = 60, 4
    classes = np.array(["a", "b", "c", "d"])
    y = classes[np.r_[np.arange(k), rng.integers(0, k, n - k)]]
    p = rng.choice([0.1, 0.2, 0.3, 0.5], (n, k))
    p /= p.sum(axis=1, keepdims=True)
    w = rng.uniform(0.5, 2, n) if weighted else None
    ours = roc_auc_score(y, p, multi_class="ovr", average=average, sample_weight=w)
    theirs = skm.roc_auc_score(y, p, multi_class="ovr", average=average, sample_weight=w)
    assert ours == pytest.approx(theirs, abs=1e-12)
    if not weighted:
        ours = roc_auc_score(y, p, multi_class="ovo", average=average)
        theirs = skm.roc_auc_score(y, p, multi_class="ovo", average=average)
        assert ours == pytest.approx(theirs, abs=1e-12)
    per_class = roc_auc_score(y, p, multi_class="ovr", average=None, sample_weight=w)
    assert_allclose(
        per_class,
        skm.roc_auc_score(y, p, multi_class="ovr", average=None, sample_weight=w),
        atol=1e-12,
    )
    for avg in ("macro", "weighted", "micro"):
        assert average_precision_score(y, p, average=avg, sample_weight=w) == pytest.approx(
            skm.average_precision_score(y, p, average=avg, sample_weight=w), abs=1e-12
        )
    assert roc_auc_score(y, p, multi_class="ovr", average="micro") == pytest.approx(
        skm.roc_auc_score(np.eye(k)[np.searchsorted(classes, y)], p, average="micro")
    )


def test_multiclass_needs_explicit_strategy():
    with pytest.raises(
        InvalidParameterError,
        match=r"The 'multi_class' parameter of "
        r"roc_auc_score must be one of \['ovo', 'ovr'\]. Got 'raise' instead.",
    ):
        roc_auc_score([0, 1, 2], [[0.5, 0.3, 0.2], [0.2, 0.5, 0.3], [0.1, 0.1, 0.8]])
    with pytest.raises(InputValidationError, match="y_score has 2 columns but there are 3"):
        roc_auc_score([0, 1, 2], [[0.5, 0.5], [0.2, 0.8], [0.1, 0.9]], multi_class="ovr")
    with pytest.raises(InputValidationError, match="has 3 classes"):
        roc_auc_score([0, 1, 2], [0.1, 0.2, 0.3])


def test_average_precision_and_pr_auc_hand():
    y, s = [0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]
    # thresholds .8 (P1,R.5) .4 (P.5,R.5) .35 (P2/3,R1) .1 (P.5,R1)
    assert average_precision_score(y, s) == pytest.approx(0.5 * 1 + 0.5 * 2 / 3)
    assert pr_auc_score(y, s) == pytest.approx(0.5 * 1 + 0.5 * (0.5 + 2 / 3) / 2)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("weighted", [False, True])
def test_ap_and_pr_auc_equal_oracles(seed, weighted):
    y, s, w = _data(seed, weighted=weighted)
    assert average_precision_score(y, s, sample_weight=w) == pytest.approx(
        oracle.average_precision(y, s, w), abs=1e-12
    )
    assert pr_auc_score(y, s, sample_weight=w) == pytest.approx(
        oracle.pr_auc_trapezoid(y, s, w), abs=1e-12
    )


def test_pr_auc_matches_trapezoid_of_sklearn_curve_points():
    # Spark starts at (0, p_first); sklearn's curve ends at (0, 1) instead.
    y, s, _ = _data(3, tied=False)
    precision, recall, _ = skm.precision_recall_curve(y, s)
    p, r = precision[:-1][::-1], recall[:-1][::-1]
    expected = skm.auc(np.r_[0, r], np.r_[p[0], p])
    assert pr_auc_score(y, s) == pytest.approx(expected, abs=1e-12)


def test_break_even_point():
    assert break_even_point([1, 0, 1, 0, 0], [0.9, 0.8, 0.7, 0.2, 0.1]) == 0.5
    assert break_even_point([1, 0, 1, 0], [0.9, 0.5, 0.5, 0.1]) == 0.75
    assert break_even_point([1, 1, 0], [0.9, 0.8, 0.1]) == 1.0
    assert break_even_point([0, 0, 1], [0.9, 0.8, 0.1]) == 0.0


@pytest.mark.parametrize("seed", SEEDS)
def test_break_even_point_is_r_precision_and_where_p_equals_r(seed):
    y, s, _ = _data(seed, tied=False)
    r = int(y.sum())
    top = np.argsort(-s)[:r]
    assert break_even_point(y, s) == pytest.approx(y[top].sum() / r, abs=1e-15)
    precision, recall, _ = precision_recall_curve(y, s)
    at = np.flatnonzero(np.isclose(precision, recall) & (recall > 0))
    if at.size:
        assert break_even_point(y, s) == pytest.approx(precision[at[0]])
    y, s, _ = _data(seed, tied=True)
    assert break_even_point(y, s) == pytest.approx(oracle.break_even_expected(y, s), abs=1e-12)


PR_AREAS = {
    "average_precision": average_precision_score,
    "pr_auc": pr_auc_score,
    "break_even_point": break_even_point,
}


@pytest.mark.parametrize("name", sorted(PR_AREAS))
@pytest.mark.parametrize("seed", range(4))
def test_pr_areas_are_definitions_of_any_split(tmp_path, name, seed):
    """The function is its definition on one partition: an accumulator over batches, merged
    accumulators and a scan give the same float (integer counts per distinct score)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    y, s, _ = _data(seed, n=120)
    want = PR_AREAS[name](y, s)
    assert rv.metric_info(name).partitionings == ("any",)
    assert rv.compute(name, y, s) == want
    acc = rv.metric(name).update(y[:50], s[:50]).update(y[50:], s[50:])
    assert acc.compute() == want
    part = rv.metric(name).update(y[90:], s[90:])
    assert part.merge(rv.metric(name).update(y[:90], s[:90])).compute() == want
    path = tmp_path / "rows.parquet"
    pq.write_table(pa.table({"y": y, "s": s}), path)
    scan = rv.scan(path, batch_rows=7)
    assert rv.compute(name, scan["y"], scan["s"]) == want
    assert PR_AREAS[name](scan["y"], scan["s"]) == want


@pytest.mark.parametrize("name", sorted(PR_AREAS))
def test_pr_areas_leave_out_rows_of_weight_zero(name):
    y = np.array([1, 0, 1, 0, 1, 0])
    s = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.4])
    w = np.array([0.0, 1.0, 2.0, 0.0, 1.5, 1.0])  # the top row weighs nothing
    want = PR_AREAS[name](y[w > 0], s[w > 0], sample_weight=w[w > 0])
    assert PR_AREAS[name](y, s, sample_weight=w) == want
    acc = rv.metric(name).update(y[:3], s[:3], sample_weight=w[:3])
    assert acc.update(y[3:], s[3:], sample_weight=w[3:]).compute() == pytest.approx(want)


# ------------------------------------------------------------ log loss and errors
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("weighted", [False, True])
def test_log_loss_equals_sklearn_and_oracle(seed, weighted):
    y, _, w = _data(seed, weighted=weighted)
    p = np.random.default_rng(seed).random(len(y))
    p[:3] = [0.0, 1.0, 0.5]
    ours = log_loss(y, p, sample_weight=w)
    assert ours == pytest.approx(skm.log_loss(y, p, sample_weight=w), abs=1e-12)
    assert ours == pytest.approx(oracle.log_loss(y, p, w), abs=1e-12)
    assert log_loss(y, p, normalize=False, sample_weight=w) == pytest.approx(
        skm.log_loss(y, p, normalize=False, sample_weight=w), rel=1e-12
    )


@pytest.mark.parametrize("seed", range(5))
def test_multiclass_log_loss_equals_sklearn(seed):
    rng = np.random.default_rng(seed)
    y = rng.choice(["x", "y", "z"], 50)
    p = rng.random((50, 3))
    p /= p.sum(axis=1, keepdims=True)
    w = rng.uniform(0, 2, 50)
    assert log_loss(y, p, sample_weight=w) == pytest.approx(
        skm.log_loss(y, p, sample_weight=w), abs=1e-12
    )
    labels = ["w", "x", "y", "z"]  # scikit-learn reads the columns in sorted label order
    p4 = np.c_[np.full(50, 0.1), p * 0.9]
    assert log_loss(y, p4, labels=labels) == pytest.approx(
        skm.log_loss(y, p4, labels=labels), abs=1e-12
    )
    y2 = rng.choice(["neg", "pos"], 50)
    p1 = rng.random(50)
    assert log_loss(y2, p1) == pytest.approx(skm.log_loss(y2, p1), abs=1e-12)


def test_log_loss_pos_label_names_the_positive_label():
    y, p = ["no", "yes", "no", "no"], [0.2, 0.9, 0.4, 0.6]
    assert log_loss(y, p, pos_label="yes") == log_loss(y, p, labels=["no", "yes"])
    assert log_loss(y, p, pos_label="no") == log_loss(y, p, labels=["yes", "no"])
    assert log_loss([0, 1, 1], [0.2, 0.9, 0.4], pos_label=0) == pytest.approx(
        skm.log_loss([1, 0, 0], [0.2, 0.9, 0.4]), abs=1e-15
    )
    # pos_label tells the class of y_true of one label, which profile="sklearn" takes
    assert log_loss(["no"], [0.2], pos_label="yes", profile="sklearn") == -math.log(0.8)
    with pytest.raises(
        InvalidParameterError,
        match=r"^log_loss: labels and pos_label both say which label is positive\. Got "
        r"labels=\['no', 'yes'\] and pos_label='yes'; give one of them\.$",
    ):
        log_loss(y, p, labels=["no", "yes"], pos_label="yes")
    with pytest.raises(
        InvalidParameterError,
        match=r"^log_loss: pos_label names the positive class of 1-dimensional y_pred\. Got "
        r"y_pred of shape \(2, 2\) and pos_label='a'; name the columns' classes with labels, "
        r"or leave pos_label unset\.$",
    ):
        log_loss(["a", "b"], [[0.2, 0.8], [0.3, 0.7]], pos_label="a")
    with pytest.raises(InvalidParameterError, match=r"'pos_label' parameter of log_loss must be"):
        log_loss(y, p, pos_label="maybe")


def test_log_loss_of_one_label_is_its_accumulators():
    # before: log_loss([-1], [0.0]) refused ("y_pred is 1-dimensional, so y_true must have
    # two classes. Got [-1]") where receval.metric("log_loss") gave the loss of a
    # negative, 2.2e-16: -1 is the negative label of {-1, 1}, as the accumulator, every
    # binary metric and scikit-learn's log_loss given labels=[-1, 1] read it
    for y, p in (([-1], [0.0]), ([-1, -1], [0.2, 0.3]), ([-1.0], [0.3]), (np.array([-1]), [0.6])):
        value = log_loss(y, p)
        assert value == rv.metric("log_loss").update(y, p).compute()
        assert value == pytest.approx(skm.log_loss(y, p, labels=[-1, 1]), abs=1e-15)
    assert log_loss([-1], [0.3], pos_label=1) == log_loss([-1], [0.3], labels=[-1, 1])
    # any other single label is refused by both, with the ways to say its class
    for label, other in ((2, 0), ("a", "b")):
        with pytest.raises(InputValidationError) as caught:
            log_loss([label, label], [0.3, 0.6])
        assert str(caught.value) == (
            f"log_loss: y_true holds a single label, and neither labels nor pos_label says "
            f"whether it is the positive one (only 0, -1 and 1 say it themselves). Got "
            f"[{label!r}]; pass labels=[negative, positive] or pos_label, e.g. "
            f"pos_label={label!r} if it is positive."
        )
        with pytest.raises(InputValidationError, match=r"Pass pos_label to metric, e\.g\. rec"):
            rv.metric("log_loss").update([label], [0.3])
        # the label as the positive, then the negative, one (scikit-learn sorts labels)
        sorted_labels = sorted([label, other])
        as_sklearn = skm.log_loss([label, label], [0.3, 0.6], labels=sorted_labels)
        as_positive = -(math.log(0.3) + math.log(0.6)) / 2
        as_negative = -(math.log(0.7) + math.log(0.4)) / 2
        assert as_sklearn == pytest.approx(
            as_positive if sorted_labels[1] == label else as_negative
        )
        y = [label, label]
        assert log_loss(y, [0.3, 0.6], pos_label=label) == pytest.approx(as_positive)
        assert log_loss(y, [0.3, 0.6], labels=[label, other]) == pytest.approx(as_negative)
        assert log_loss(y, [0.3, 0.6], labels=sorted_labels) == pytest.approx(as_sklearn)
        accumulator = rv.metric("log_loss", pos_label=label).update(y, [0.3, 0.6])
        assert accumulator.compute() == log_loss(y, [0.3, 0.6], pos_label=label)


def test_log_loss_errors():
    with pytest.raises(
        InputValidationError,
        match=r"log_loss: y_pred must contain "
        r"probabilities in \[0, 1\]. Got values \[-0.1, 1.2\]",
    ):
        log_loss([0, 1, 1], [-0.1, 1.2, 0.5])
    with pytest.raises(
        InputValidationError,
        match=r"log_loss: y_pred contains NaN or infinity, the first at position 1 \(nan\)",
    ):
        log_loss([0, 1], [0.5, np.nan])
    with pytest.raises(
        InputValidationError,
        match=r"must have the same length. Got "
        r"lengths \[2, 3\].",
    ):
        log_loss([0, 1], [0.5, 0.5, 0.5])
    with pytest.raises(InputValidationError, match="log_loss: y_true is empty"):
        log_loss([], [])
    with pytest.warns(UserWarning, match="do not sum to one"):
        log_loss([0, 1], [[0.5, 0.6], [0.2, 0.8]])


def test_rmse_mae():
    assert root_mean_squared_error([3, 4, 5], [2.5, 4, 6]) == pytest.approx(
        skm.root_mean_squared_error([3, 4, 5], [2.5, 4, 6])
    )
    w = [1, 2, 0.5]
    assert mean_absolute_error([3, 4, 5], [2.5, 4, 6], sample_weight=w) == pytest.approx(
        skm.mean_absolute_error([3, 4, 5], [2.5, 4, 6], sample_weight=w)
    )
    assert root_mean_squared_error([1.0], [3.0]) == 2.0


# ------------------------------------------------------------ calibration
def test_pcoc_copc_hand():
    assert pcoc([1, 0, 0, 1], [0.6, 0.2, 0.3, 0.5]) == pytest.approx(1.6 / 2)
    assert copc([1, 0, 0, 1], [0.6, 0.2, 0.3, 0.5]) == pytest.approx(2 / 1.6)
    assert pcoc([1, 0], [0.5, 0.5], sample_weight=[2, 2]) == pytest.approx(2 / 2)
    with pytest.warns(UndefinedMetricWarning, match="pcoc: y_true has no click"):
        assert math.isnan(pcoc([0, 0], [0.1, 0.2]))


@pytest.mark.parametrize(
    "func",
    [
        rv.pcoc,
        rv.copc,
        rv.normalized_entropy,
        rv.calibration_free_normalized_entropy,
        rv.normalized_entropy_positive,
    ],
)
def test_pcoc_copc_and_ne_take_any_two_labels(func):
    # before: "y_true must contain only 0 and 1" for -1/1 labels, and no pos_label
    y01, p, w = [1, 0, 0, 1, 0], [0.6, 0.2, 0.3, 0.5, 0.9], [1.0, 2.0, 0.5, 1.0, 3.0]
    name = func.__name__
    value = func(y01, p, sample_weight=w)
    assert func([1, -1, -1, 1, -1], p, sample_weight=w) == value
    assert func([True, False, False, True, False], p, sample_weight=w) == value
    assert func(["y", "n", "n", "y", "n"], p, sample_weight=w, pos_label="y") == value
    assert func([0, 1, 1, 0, 1], p, sample_weight=w, pos_label=0) == value
    assert (
        rv.metric(name, pos_label="y")
        .update(["y", "n"], p[:2], sample_weight=w[:2])
        .update(["n", "y", "n"], p[2:], sample_weight=w[2:])
        .compute()
        == value
    )
    with pytest.raises(InputValidationError) as caught:
        func(["y", "n"], [0.6, 0.2])
    assert str(caught.value) == (
        f"{name}: y_true takes values ['n', 'y'] and pos_label is not specified; pass "
        f"pos_label, e.g. pos_label='y'."
    )
    with pytest.raises(InvalidParameterError) as caught:
        func([0, 1], [0.6, 0.2], pos_label=2)
    assert str(caught.value) == (
        f"The 'pos_label' parameter of {name} must be one of [0, 1], the labels of y_true. "
        f"Got 2 instead."
    )
    with pytest.raises(InputValidationError, match=r"Got values \[-1, 0, 1\]"):
        func([-1, 0, 1], [0.6, 0.2, 0.3])


def test_pcoc_and_ne_of_other_labels_equal_the_oracle():
    y, p, w = ["n", "y", "n", "y", "y"], [0.1, 0.8, 0.4, 0.3, 0.9], [2.0, 1.0, 1.0, 0.5, 3.0]
    y01 = np.array([x == "y" for x in y], dtype=int)
    assert pcoc(y, p, sample_weight=w, pos_label="y") == pytest.approx(
        oracle.pcoc(y01, np.array(p), np.array(w)), rel=1e-15
    )
    rate = np.average(y01, weights=w)
    entropy = -rate * math.log(rate) - (1 - rate) * math.log(1 - rate)
    ne = oracle.log_loss(y01, np.array(p), np.array(w)) / entropy
    assert rv.normalized_entropy(y, p, sample_weight=w, pos_label="y") == pytest.approx(ne)


@pytest.mark.parametrize("seed", SEEDS)
def test_calibration_equals_sklearn_and_oracle(seed):
    y, _, w = _data(seed, weighted=True)
    p = np.random.default_rng(seed).random(len(y))
    p[:2] = [0.0, 1.0]
    for strategy in ("uniform", "quantile"):
        for n_bins in (1, 3, 10):
            ours = calibration_curve(y, p, n_bins=n_bins, strategy=strategy)
            theirs = sk_calibration_curve(y, p, n_bins=n_bins, strategy=strategy)
            for a, b in zip(ours, theirs, strict=True):
                assert_allclose(a, b, atol=1e-12)
    assert expected_calibration_error(y, p, n_bins=7, sample_weight=w) == pytest.approx(
        oracle.ece(y, p, 7, w), abs=1e-12
    )
    assert pcoc(y, p, sample_weight=w) == pytest.approx(oracle.pcoc(y, p, w), rel=1e-12)


def test_calibration_errors():
    with pytest.raises(InputValidationError, match=r"y_prob must contain probabilities"):
        calibration_curve([0, 1], [0.5, 1.5])
    with pytest.raises(
        InvalidParameterError,
        match=r"The 'strategy' parameter of "
        r"calibration_curve must be one of \['quantile', 'uniform'\]",
    ):
        calibration_curve([0, 1], [0.5, 0.5], strategy="kmeans")
    with pytest.raises(InvalidParameterError, match=r"The 'n_bins' parameter"):
        calibration_curve([0, 1], [0.5, 0.5], n_bins=0)


# ------------------------------------------------------------ bad input, undefined
@pytest.mark.parametrize(
    "func", [roc_auc_score, average_precision_score, pr_auc_score, break_even_point]
)
def test_nan_and_length_errors(func):
    SAID = (
        r"contains NaN or infinity, the first at position 1 \({}\); drop those rows or "
        r"replace the values with finite numbers first\."
    )
    name = func.__name__
    with pytest.raises(InputValidationError, match=rf"^{name}: y_score {SAID.format('nan')}$"):
        func([0, 1, 1], [0.1, np.nan, 0.3])
    with pytest.raises(InputValidationError, match=rf"^{name}: y_score {SAID.format('inf')}$"):
        func([0, 1, 1], [0.1, np.inf, 0.3])
    with pytest.raises(
        InputValidationError,
        match=rf"^{name}: y_true, y_score and sample_weight "
        r"must have the same length. Got lengths \[2, 3, 3\].$",
    ):
        func([0, 1], [0.1, 0.2, 0.3], sample_weight=[1, 1, 1])
    with pytest.raises(InputValidationError, match=rf"^{name}: y_true is empty"):
        func([], [])


def test_every_weight_zero_is_said_so_not_a_single_class():
    # both classes are there: it said "y_true has a single class" and "y_true has no click"
    y_true, y_score, w = [1, 0, 1, 0], [0.9, 0.3, 0.6, 0.2], [0, 0, 0, 0]
    auc = "roc_auc_score: no row has a positive sample weight, so the AUC is undefined"
    ratio = "pcoc: no row has a positive sample weight, so PCOC is undefined"

    def accumulated(name, **params):
        return rv.metric(name, **params).update(y_true, y_score, sample_weight=w)

    for compute, said in [
        (lambda: roc_auc_score(y_true, y_score, sample_weight=w), auc),
        (lambda: accumulated("roc_auc").compute(), auc),
        (lambda: accumulated("roc_auc", bins=8).compute().value, auc),
        (lambda: pcoc(y_true, y_score, sample_weight=w), ratio),
        (lambda: accumulated("pcoc").compute(), ratio),
    ]:
        with pytest.warns(UndefinedMetricWarning) as caught:
            assert math.isnan(compute())
        assert [str(c.message) for c in caught] == [f"{said} (returned as nan)."]


def test_single_class_is_nan_with_warning_never_half():
    with pytest.warns(UndefinedMetricWarning, match="roc_auc_score: y_true has a single class"):
        assert math.isnan(roc_auc_score([1, 1, 1], [0.1, 0.2, 0.3]))
    # both classes, the positive of weight 0: the weights, not y_true, leave it undefined
    with pytest.warns(
        UndefinedMetricWarning,
        match="roc_auc_score: y_true has no positive row of positive sample weight",
    ):
        assert math.isnan(roc_auc_score([0, 1], [0.1, 0.2], sample_weight=[1, 0]))
    with pytest.warns(UndefinedMetricWarning, match="no positive sample"):
        assert math.isnan(average_precision_score([0, 0], [0.1, 0.2]))
    with pytest.warns(UndefinedMetricWarning, match="no negative sample"):
        fpr, _, _ = roc_curve([1, 1], [0.1, 0.2])
    assert np.isnan(fpr).all()


def test_non_binary_labels_errors():
    with pytest.raises(
        InputValidationError,
        match=r"roc_curve: y_true takes values \['a', 'b'\] "
        r"and pos_label is not specified; pass pos_label, e.g. pos_label='b'.",
    ):
        roc_curve(["a", "b"], [0.1, 0.2])
    with pytest.raises(
        InputValidationError,
        match=r"roc_curve: y_true must be binary. "
        r"Got values \[0, 1, 2\]",
    ):
        roc_curve([0, 1, 2], [0.1, 0.2, 0.3])
    with pytest.raises(InputValidationError, match=r"sample_weight must be non-negative"):
        roc_auc_score([0, 1], [0.1, 0.2], sample_weight=[1, -1])
    with pytest.raises(InputValidationError, match=r"y_score must be numeric. Got dtype <U1"):
        roc_auc_score([0, 1], ["a", "b"])


def test_inputs_are_not_mutated():
    y = np.array([0, 1, 1, 0, 1])
    s = np.array([0.5, 0.1, 0.9, 0.3, 0.3])
    w = np.array([1.0, 2.0, 0.0, 1.0, 1.0])
    copies = [a.copy() for a in (y, s, w)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        roc_auc_score(y, s, sample_weight=w)
        roc_curve(y, s, sample_weight=w)
        average_precision_score(y, s)
    for a, b in zip((y, s, w), copies, strict=True):
        assert_array_equal(a, b)


@pytest.mark.parametrize("func", [roc_auc_score, log_loss])
@pytest.mark.parametrize("as_array", [False, True])
def test_labels_mixing_numbers_and_strings_are_refused(func, as_array):
    """Labels 0 and 'y' have no order (np.unique raised a raw TypeError) and a list of them
    became the strings '0' and 'y': refused with the argument named."""
    y_true = [0, "y", 0, "y"]
    if as_array:
        y_true = np.array(y_true, dtype=object)
    message = (
        f"{func.__name__}: y_true mixes numbers and strings, e.g. [0, 'y']; labels must be "
        f"all numbers or all strings, e.g. y_true = [str(v) for v in y_true]."
    )
    with pytest.raises(InputValidationError, match="^" + re.escape(message) + "$"):
        func(y_true, [0.1, 0.9, 0.2, 0.8])
    assert func(["n", "y", "n", "y"], [0.1, 0.9, 0.2, 0.8]) == func(
        [0, 1, 0, 1], [0.1, 0.9, 0.2, 0.8]
    )


@pytest.mark.parametrize("scale", [1.0, 1e300])
@pytest.mark.parametrize("bin_edge", ["lower", "upper"])
def test_ece_is_one_definition_in_memory_in_batches_and_on_a_scan(tmp_path, bin_edge, scale):
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, 500)
    p = np.round(rng.random(500), 1)  # many on the bin edges
    w = rng.integers(1, 4, 500) * scale
    expected = expected_calibration_error(y, p, n_bins=10, sample_weight=w, bin_edge=bin_edge)
    if bin_edge == "lower":  # the oracle's bins are (lo, hi]
        assert expected == pytest.approx(oracle.ece(y, p, 10, w / scale), rel=1e-12)
    acc = rv.metric("ece", n_bins=10, bin_edge=bin_edge)
    for part in np.array_split(rng.permutation(500), 7):
        acc.update(y[part], p[part], sample_weight=w[part])
    assert acc.compute() == expected  # exact sums per bin: the same float in any split
    path = tmp_path / "rows.parquet"
    pq.write_table(pa.table({"y": y, "p": p, "w": w}), path)
    s = rv.scan(path, batch_rows=33)
    got = expected_calibration_error(s["y"], s["p"], sample_weight=s["w"], bin_edge=bin_edge)
    assert got == expected


def test_ece_quantile_bins_need_every_row(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    with pytest.raises(InvalidParameterError, match=r"strategy='quantile' bins are percentiles"):
        rv.metric("ece", strategy="quantile")
    path = tmp_path / "rows.parquet"
    pq.write_table(pa.table({"y": [0, 1, 1], "p": [0.2, 0.6, 0.9]}), path)
    s = rv.scan(path)
    with pytest.raises(InvalidParameterError, match=r"'strategy' parameter .* not available out"):
        expected_calibration_error(s["y"], s["p"], strategy="quantile")
    # in memory, the quantile bins are those of calibration_curve
    y, p = np.array([0, 0, 1, 1, 1, 0]), np.array([0.1, 0.3, 0.7, 0.8, 0.9, 0.4])
    true, pred = calibration_curve(y, p, n_bins=3, strategy="quantile")
    value = expected_calibration_error(y, p, n_bins=3, strategy="quantile")
    assert value == pytest.approx(np.abs(true - pred).sum() * 2 / 6, rel=1e-12)


def _ece_by_searchsorted(y, p, w, n_bins, bin_edge, edge_dtype):
    """ECE from NumPy's searchsorted on the edges and exact rational per-bin sums."""
    from fractions import Fraction

    if bin_edge == "lower":
        edges = np.linspace(0.0, 1.0, n_bins + 1)
        ids = np.searchsorted(edges[1:-1], p, side="left")
    else:
        step = edge_dtype(1.0) / edge_dtype(n_bins)
        i = np.arange(n_bins + 1)
        low, high = (
            i.astype(edge_dtype) * step,
            edge_dtype(1.0) - (n_bins - i).astype(edge_dtype) * step,
        )
        edges = np.where(i < (n_bins + 1) // 2, low, high).astype(np.float64)
        ids = np.searchsorted(edges[1:], p, side="right")
    gaps: dict[int, Fraction] = {}
    for b, yi, pi, wi in zip(ids.tolist(), y.tolist(), p.tolist(), w.tolist(), strict=True):
        gaps[b] = gaps.get(b, Fraction(0)) + Fraction(wi * yi) - Fraction(wi) * Fraction(pi)
    return float(sum(abs(g) for g in gaps.values()) / sum(Fraction(x) for x in w.tolist()))


@pytest.mark.parametrize("n_bins", [1, 3, 10, 5000])
@pytest.mark.parametrize("bin_edge", ["lower", "upper"])
@pytest.mark.parametrize("weighted", [False, True])
def test_ece_bins_on_and_beside_every_edge(n_bins, bin_edge, weighted):
    """Probabilities of 0, 1, on every edge and one float either side of it fall in the
    bins of searchsorted on the edges; the per-bin sums are exact."""
    rng = np.random.default_rng(n_bins)
    edges = np.concatenate([np.linspace(0.0, 1.0, n_bins + 1), np.arange(n_bins + 1) / n_bins])
    p = np.concatenate([edges, np.nextafter(edges, 0.0), np.nextafter(edges, 1.0), rng.random(300)])
    p = np.clip(p, 0.0, 1.0)
    y = rng.integers(0, 2, len(p))
    w = rng.random(len(p)) * 3 if weighted else np.ones(len(p))
    weights = w if weighted else None
    got = expected_calibration_error(y, p, n_bins=n_bins, sample_weight=weights, bin_edge=bin_edge)
    assert got == _ece_by_searchsorted(y, p, w, n_bins, bin_edge, np.float64)
    if bin_edge == "upper":  # float32 probabilities against float32 edges
        p32 = p.astype(np.float32)
        got = expected_calibration_error(y, p32, n_bins=n_bins, sample_weight=weights,
                                         bin_edge="upper")  # fmt: skip
        want = _ece_by_searchsorted(y, p32.astype(np.float64), w, n_bins, "upper", np.float32)
        assert got == want


def test_weights_of_a_wide_span_keep_their_classes():
    # the scaling of weights into [0.5, 1) underflowed 1e-300 beside 1e30 to 0: the
    # positive vanished and AUC was nan with a false "single class" warning
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert rv.roc_auc_score([0, 1, 0], [0.1, 0.5, 0.9], sample_weight=[1e30, 1e-300, 1.0]) == 1
        assert rv.gauc_score([0, 1, 0, 1], [0.1, 0.5, 0.9, 0.2], groups=[1, 1, 2, 2],
                             sample_weight=[1e30, 1e-300, 1.0, 1.0]) == 1  # fmt: skip


@pytest.mark.parametrize("scale", [2.0**1000, 2.0**1022, 1e308, 2.0**-1000, 2.0**-1060])
def test_calibration_free_ne_of_weights_of_any_size(scale):
    # its denominator, the mean prediction's summed loss, grows with the total weight:
    # weights times ``scale`` divide the value by ``scale``, also where the total weight
    # over- or underflows float64 (4 * 2**1022 gave 0.0 and 4e308 nan, without a word;
    # weights of 2**-1060 a numpy RuntimeWarning)
    y, p = [1, 0, 1, 0], [0.2, 0.4, 0.6, 0.8]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = rv.calibration_free_normalized_entropy(y, p, sample_weight=[scale] * 4)
    want = rv.calibration_free_normalized_entropy(y, p) / scale
    assert got == pytest.approx(want, rel=1e-12, abs=0)


def _decimal_columns():
    """One column of decimal scores as each library holds it (SQL's and Spark's type)."""
    from decimal import Decimal

    import pyarrow as pa

    values = [Decimal(x) for x in ("0.9", "0.3", "0.4", "0.6")]
    arrow = pa.array(values, type=pa.decimal128(6, 3))
    columns = {"arrow": arrow, "chunked": pa.chunked_array([arrow[:2], arrow[2:]])}
    columns["object"] = np.array(values, dtype=object)
    columns["list"] = values
    pd = pytest.importorskip("pandas")
    columns["pandas"] = arrow.to_pandas(types_mapper=pd.ArrowDtype)
    pl = pytest.importorskip("polars")
    columns["polars"] = pl.Series(values, dtype=pl.Decimal(6, 3))
    return columns


@pytest.mark.parametrize("kind", ["arrow", "chunked", "object", "list", "pandas", "polars"])
def test_decimal_scores_read_as_the_nearest_floats(kind):
    # a decimal column was refused: "y_score must be numeric. Got dtype object with
    # values [Decimal('0.300'), ...]"
    scores = _decimal_columns()[kind]
    floats = [0.9, 0.3, 0.4, 0.6]
    labels = [1, 0, 1, 0]
    assert roc_auc_score(labels, scores) == roc_auc_score(labels, floats) == 0.75
    assert log_loss(labels, scores) == log_loss(labels, floats)
    groups = ["u", "u", "v", "v"]
    assert rv.gauc_score(labels, scores, groups=groups) == rv.gauc_score(
        labels, floats, groups=groups
    )


def test_a_missing_value_among_decimals_is_said_to_be_missing():
    # was "y_score must be numeric. Got dtype object with values [Decimal('0.2'), ...]"
    from decimal import Decimal

    scores = np.array([Decimal("0.5"), None, Decimal("0.2")], dtype=object)
    with pytest.raises(InputValidationError, match=r"y_score contains 1 missing value"):
        roc_auc_score([1, 0, 1], scores)


@pytest.mark.parametrize("nan", ["NaN", "sNaN"])
@pytest.mark.parametrize("kind", ["list", "object", "pandas", "2-d"])
def test_a_decimal_nan_score_is_refused_as_a_float_nan_is(nan, kind):
    # Decimal('sNaN') raised decimal.InvalidOperation; 2-d Decimal scores were refused
    # as not numeric (and with a NaN raised InvalidOperation)
    from decimal import Decimal

    def column(e):
        values = [Decimal("0.1"), e, Decimal("0.7")]
        if kind == "2-d":
            return np.array([values, values[::-1], values], dtype=object)
        pd = pytest.importorskip("pandas")
        wrap = {"list": list, "object": lambda x: np.array(x, dtype=object)}
        return wrap.get(kind, lambda x: pd.Series(x, dtype=object))(values)

    def said(scores, two_d=kind == "2-d"):
        extra = {"multi_class": "ovr"} if two_d else {}
        with pytest.raises(InputValidationError) as info:
            roc_auc_score([0, 1, 2] if two_d else [0, 1, 1][: len(scores)], scores, **extra)
        return str(info.value)

    assert said(column(Decimal(nan))) == said(column(float("nan")))
    assert "y_score contains NaN or infinity" in said(column(Decimal(nan)))
    assert said(np.array(["a", Decimal(nan)], dtype=object), False) == (
        f"roc_auc_score: y_score must be numeric. Got dtype object with values "
        f"['a', Decimal('{nan}')]."
    )

"""negative_sampling_rate= (recalibration for negative down-sampling), calibration-free
NE, NE on positives, regression AUC and grouped AUPRC: hand cases from TorchRec's
definitions, every entry point, bad input."""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import receval as rv
from receval.exceptions import InvalidParameterError, UndefinedMetricWarning
from tests.cli._helpers import invoke, make_runner
from tests.oracles.interpolated_pr import grouped_davis_goadrich_auprc
from tests.oracles.xauc import pair_regression_auc

Y = np.array([1, 0, 0, 1, 0, 0, 1, 0])
P = np.array([0.8, 0.3, 0.1, 0.6, 0.05, 0.5, 0.9, 0.2])
W = np.array([1.0, 2.0, 0.5, 1.0, 3.0, 1.0, 0.25, 2.0])


def by_hand(p, w):
    """TorchRec's recalibration: p / (p + (1 - p) / w)."""
    return p / (p + (1 - p) / w)


# ------------------------------------------------------------------ recalibration
@pytest.mark.parametrize("rate", [1.0, 0.5, 0.1, 1e-6])
@pytest.mark.parametrize("name", ["log_loss", "normalized_entropy", "pcoc", "copc",
                                  "calibration_free_normalized_entropy",
                                  "normalized_entropy_positive"])  # fmt: skip
def test_a_rate_equals_the_metric_of_the_recalibrated_probabilities(name, rate):
    func = getattr(rv, name)
    q = by_hand(P, rate)
    assert func(Y, P, negative_sampling_rate=rate) == pytest.approx(func(Y, q), rel=1e-12)
    assert func(Y, P, sample_weight=W, negative_sampling_rate=rate) == pytest.approx(
        func(Y, q, sample_weight=W), rel=1e-12
    )


def test_recalibrated_log_loss_by_hand():
    q = by_hand(P, 0.1)
    expected = -np.mean(Y * np.log(q) + (1 - Y) * np.log(1 - q))
    assert rv.log_loss(Y, P, negative_sampling_rate=0.1) == pytest.approx(expected, rel=1e-13)
    # 0 and 1 stay 0 and 1; the map is increasing, so the AUC does not change
    assert list(by_hand(np.array([0.0, 1.0]), 0.1)) == [0.0, 1.0]


@pytest.mark.parametrize("rate", [0.5, 0.1])
def test_ece_and_the_calibration_curve_bin_the_recalibrated_probabilities(rate):
    q = by_hand(P, rate)
    for strategy in ("uniform", "quantile"):
        got = rv.expected_calibration_error(Y, P, n_bins=3, strategy=strategy,
                                            negative_sampling_rate=rate)  # fmt: skip
        assert got == rv.expected_calibration_error(Y, q, n_bins=3, strategy=strategy)
        curve = rv.calibration_curve(Y, P, n_bins=3, strategy=strategy,
                                     negative_sampling_rate=rate)  # fmt: skip
        want = rv.calibration_curve(Y, q, n_bins=3, strategy=strategy)
        for a, b in zip(curve, want, strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-13)


def test_weighting_negatives_one_over_the_rate_is_the_other_way():
    # evaluation rows down-sampled like the training rows: the model's probabilities
    # fit them, and weighting each kept negative 1 / w restores the population's log
    # loss of the recalibrated probabilities on the rows before sampling
    rate = 0.25
    weights = np.where(Y == 0, 1 / rate, 1.0)
    q = by_hand(P, rate)
    expected = -np.sum(weights * (Y * np.log(q) + (1 - Y) * np.log(1 - q))) / weights.sum()
    got = rv.log_loss(Y, P, sample_weight=weights, negative_sampling_rate=rate)
    assert got == pytest.approx(expected, rel=1e-13)


@pytest.mark.parametrize("name", ["ne", "log_loss", "pcoc", "ece", "cali_free_ne",
                                  "ne_positive"])  # fmt: skip
def test_accumulators_windows_and_scans_recalibrate(name, tmp_path):
    text = f"{name}(negative_sampling_rate=0.2)"
    info = rv.metric_info(text.split("(")[0])
    func = getattr(rv, info.function)
    expected = func(Y, P, sample_weight=W, negative_sampling_rate=0.2)
    acc = rv.metric(text)
    for a in range(0, len(Y), 3):
        acc.update(Y[a : a + 3], P[a : a + 3], sample_weight=W[a : a + 3])
    assert acc.compute() == pytest.approx(expected, rel=1e-12)
    assert rv.compute(text, Y, P, sample_weight=W) == pytest.approx(expected, rel=1e-12)
    path = tmp_path / "rows.parquet"
    pq.write_table(pa.table({"y": Y, "p": P, "w": W}), path)
    scan = rv.scan(path, batch_rows=3)
    got = func(scan["y"], scan["p"], sample_weight=scan["w"], negative_sampling_rate=0.2)
    assert got == pytest.approx(expected, rel=1e-12)
    window = rv.metric(text, window=2, window_unit="batches")
    for a in range(0, len(Y), 4):
        window.update(Y[a : a + 4], P[a : a + 4], sample_weight=W[a : a + 4])
    assert window.compute_window() == pytest.approx(expected, rel=1e-12)


def test_the_metric_string_round_trips():
    spec = rv.parse_metric("NE(negative_sampling_rate=0.1)")
    assert str(spec) == "normalized_entropy(negative_sampling_rate=0.1)"
    assert str(rv.parse_metric("ne(negative_sampling_rate=1)")) == "normalized_entropy"


@pytest.mark.parametrize("rate", [0, -0.1, 1.5, float("nan"), "0.1"])
def test_a_rate_outside_zero_one_is_refused(rate):
    with pytest.raises(InvalidParameterError, match="'negative_sampling_rate' parameter"):
        rv.normalized_entropy(Y, P, negative_sampling_rate=rate)
    with pytest.raises(InvalidParameterError, match="negative_sampling_rate"):
        rv.pcoc(Y, P, negative_sampling_rate=rate)


def test_multiclass_log_loss_refuses_a_rate():
    with pytest.raises(InvalidParameterError, match=re.escape("needs 1-dimensional y_pred")):
        rv.log_loss([0, 1], [[0.8, 0.2], [0.3, 0.7]], negative_sampling_rate=0.5)


def test_cli_ctr_recalibrates_probability_metrics(tmp_path):
    path = tmp_path / "log.csv"
    path.write_text("y,p\n" + "".join(f"{a},{b}\n" for a, b in zip(Y, P, strict=True)))
    runner = make_runner()
    result = invoke(runner, "ctr", path, "--label", "y", "--score", "p", "-m", "ne", "-m", "auc",
                    "-m", "ne(negative_sampling_rate=0.5)", "-m", "ne(negative_sampling_rate=1)",
                    "--negative-sampling-rate", "0.1", "--format", "json")  # fmt: skip
    import json

    row = json.loads(result.stdout)[0]
    assert row["ne"] == rv.normalized_entropy(Y, P, negative_sampling_rate=0.1)
    assert row["ne(negative_sampling_rate=0.5)"] == rv.normalized_entropy(
        Y, P, negative_sampling_rate=0.5
    )  # the string's own rate wins
    assert row["ne(negative_sampling_rate=1)"] == rv.normalized_entropy(Y, P)  # its default too
    assert row["auc"] == rv.roc_auc_score(Y, P)  # order only: unchanged
    bad = invoke(runner, "ctr", path, "--label", "y", "--score", "p", "-m", "brier",
                 "--negative-sampling-rate", "0.1", code=2)  # fmt: skip
    assert "takes no recalibration" in bad.stderr
    bad = invoke(runner, "ctr", path, "--label", "y", "--score", "p",
                 "--negative-sampling-rate", "0", code=2)  # fmt: skip
    assert "--negative-sampling-rate must be in (0, 1]" in bad.stderr


# ------------------------------------------------------------------ NE variants
def test_calibration_free_ne_by_torchrecs_formula():
    w = W
    q = P
    ne = rv.normalized_entropy(Y, q, sample_weight=w)
    total, clicks, mean = w.sum(), (w * Y).sum(), (w * q).sum() / w.sum()
    constant = -clicks * np.log2(mean) - (total - clicks) * np.log2(1 - mean)
    assert rv.calibration_free_normalized_entropy(Y, q, sample_weight=w) == pytest.approx(
        ne / constant, rel=1e-13
    )


def test_ne_positive_by_torchrecs_formula_and_its_share_of_ne():
    base = (W * Y).sum() / W.sum()
    norm = -(W * Y).sum() * np.log(base) - (W * (1 - Y)).sum() * np.log(1 - base)
    expected = -(W * Y * np.log(P)).sum() / norm
    got = rv.normalized_entropy_positive(Y, P, sample_weight=W)
    assert got == pytest.approx(expected, rel=1e-13)
    assert got <= rv.normalized_entropy(Y, P, sample_weight=W)


def test_undefined_ne_variants_are_nan_with_a_warning():
    with pytest.warns(UndefinedMetricWarning, match="single class"):
        assert math.isnan(rv.normalized_entropy_positive([1, 1], [0.5, 0.6]))
    with pytest.warns(UndefinedMetricWarning, match="the mean prediction is 0.0"):
        assert math.isnan(rv.calibration_free_normalized_entropy([1, 0], [0.0, 0.0]))


# ------------------------------------------------------------------ regression AUC
def test_regression_auc_hand_cases():
    # TorchRec's rauc.py: one inversion among six pairs; equal targets and ties in order
    assert rv.regression_auc_score([3.0, 12.0, 7.5, 0.0], [0.2, 0.4, 0.9, 0.1]) == 5 / 6
    assert rv.regression_auc_score([1.0, 1.0, 2.0], [0.1, 0.5, 0.5]) == 1.0
    assert rv.regression_auc_score([1.0, 1.0, 2.0], [0.5, 0.1, 0.1]) == pytest.approx(2 / 3)
    with pytest.warns(UndefinedMetricWarning, match="two rows or more"):
        assert math.isnan(rv.regression_auc_score([1.0], [0.5]))
    with pytest.raises(InvalidParameterError, match="sample_weight is not taken"):
        rv.regression_auc_score([1.0, 2.0], [0.5, 0.6], sample_weight=[1, 2])


@pytest.mark.parametrize(
    ("weights", "given"), [(np.ones(3), "3 weights"), ([2], "1 weight"), (np.float64(2), "2.0")]
)
def test_regression_auc_refuses_weights_naming_what_was_given(weights, given):
    # the weights in the user's terms (their number), not the type of their container
    with pytest.raises(
        InvalidParameterError, match=f"Got {given}; compute regression_auc without them"
    ):
        rv.regression_auc_score([1.0, 2.0, 3.0], [0.5, 0.6, 0.4], sample_weight=weights)


@given(
    st.integers(2, 30).flatmap(
        lambda n: st.tuples(
            st.lists(st.sampled_from([0.0, 1.0, 2.5, -1e300, 5e-324]), min_size=n, max_size=n),
            st.lists(st.sampled_from([0.0, 0.1, 0.5, 1e300, -5e-324]), min_size=n, max_size=n),
        )
    )
)
def test_regression_auc_equals_the_pair_loop(data):  # fmt: skip
    y, s = data
    assume(len(y) > 1)
    assert rv.regression_auc_score(y, s) == pytest.approx(float(pair_regression_auc(y, s)),
                                                          rel=1e-15)  # fmt: skip


def test_regression_auc_accumulator_equals_the_function():
    rng = np.random.default_rng(5)
    y, s = rng.integers(0, 5, 300).astype(float), rng.integers(0, 9, 300) / 8
    acc = rv.metric("rauc")
    for a in range(0, 300, 70):
        acc.update(y[a : a + 70], s[a : a + 70])
    assert acc.compute() == rv.regression_auc_score(y, s)


# ------------------------------------------------------------------ grouped AUPRC
def test_grouped_auprc_is_the_mean_of_each_groups_average_precision():
    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, 200)
    s = rng.integers(0, 6, 200) / 5
    g = rng.integers(0, 9, 200)
    w = rng.uniform(0.1, 2, 200)
    want = []
    for group in np.unique(g):
        rows = g == group
        if y[rows].sum() > 0:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                want.append(rv.average_precision_score(y[rows], s[rows], sample_weight=w[rows]))
    got = rv.grouped_auprc_score(y, s, groups=g, sample_weight=w)
    assert got == pytest.approx(np.mean(want), rel=1e-12)
    acc = rv.metric("grouped_auprc")
    for a in range(0, 200, 33):
        acc.update(y[a : a + 33], s[a : a + 33], groups=g[a : a + 33],
                   sample_weight=w[a : a + 33])  # fmt: skip
    assert acc.compute() == pytest.approx(got, rel=1e-12)


def test_grouped_auprc_skips_groups_without_a_positive():
    # TorchRec averages a 0 for group "b"; receval leaves it out
    assert rv.grouped_auprc_score([1, 0, 0, 0], [0.9, 0.1, 0.5, 0.4], groups=list("aabb")) == 1.0
    with pytest.warns(UndefinedMetricWarning, match="no group has a positive"):
        assert math.isnan(rv.grouped_auprc_score([0, 0], [0.1, 0.2], groups=[1, 2]))


_ROWS = st.tuples(st.integers(0, 1), st.integers(0, 4), st.integers(0, 3))


@given(st.lists(_ROWS, min_size=1, max_size=40))
def test_grouped_auprc_davis_goadrich_equals_its_oracle(rows):
    y, s, g = (list(col) for col in zip(*rows, strict=True))
    s = [x / 4 for x in s]  # ties in most groups
    want = grouped_davis_goadrich_auprc(y, s, g)
    assume(not math.isnan(want))
    got = rv.grouped_auprc_score(y, s, groups=g, interpolation="davis_goadrich",
                                 skip_groups="one_class")  # fmt: skip
    assert got == pytest.approx(want, rel=1e-9, abs=1e-12)


def test_grouped_auprc_davis_goadrich_by_hand():
    # two positives at the top, a negative, then a positive tied with a negative: the
    # last segment gains 1 negative per positive, so precision goes from 2/3 to 3/5
    # along x / (2 x - 1/3) of recall x from 2/3 to 1: area (1/3 + (1/6) ln(5/3)) / 2
    y, s = [1, 1, 0, 1, 0], [0.9, 0.8, 0.7, 0.5, 0.5]
    seg = (1 / 3 + 1 / 6 * math.log(5 / 3)) / 2
    got = rv.grouped_auprc_score(y, s, groups=[0] * 5, interpolation="davis_goadrich")
    assert got == pytest.approx(2 / 3 + 0 + seg, rel=1e-12)
    # the step-wise area of the same group: 2/3 at precision 1, 1/3 at precision 3/5
    assert rv.grouped_auprc_score(y, s, groups=[0] * 5) == pytest.approx(2 / 3 + 1 / 5)


def test_grouped_auprc_skips_groups_of_one_class_on_request():
    y, s, g = [1, 1, 1, 0, 0], [0.9, 0.2, 0.5, 0.4, 0.8], list("aabbb")
    # group "a" has no negative: 1 by default, left out with skip_groups="one_class";
    # group "b" finds its positive at rank 2
    assert rv.grouped_auprc_score(y, s, groups=g) == pytest.approx((1 + 1 / 2) / 2)
    assert rv.grouped_auprc_score(y, s, groups=g, skip_groups="one_class") == pytest.approx(1 / 2)
    with pytest.warns(UndefinedMetricWarning, match="no group has both classes"):
        assert math.isnan(rv.grouped_auprc_score([1, 1], [0.1, 0.2], groups=[1, 2],
                                                 skip_groups="one_class"))  # fmt: skip
    expected = r"'interpolation' parameter of grouped_auprc_score must be one of \['davis_"
    with pytest.raises(InvalidParameterError, match=expected):
        rv.grouped_auprc_score(y, s, groups=g, interpolation="linear")
    assert str(rv.parse_metric("aucpr")) == (
        "grouped_auprc(interpolation=davis_goadrich,skip_groups=one_class)"
    )


@pytest.mark.parametrize("name", ["pcoc", "copc"])
@pytest.mark.parametrize(
    ("call", "caller"),
    [
        (lambda name, **o: rv.compute(name, [1, 0], [0.5, 0.5], **o), "receval.compute('{}')"),
        (lambda name, **o: rv.metric(name, **o), "receval.metric('{}')"),
        (lambda name, **o: getattr(rv, name)([1, 0], [0.5, 0.5], **o), "{}"),
    ],
)  # fmt: skip
def test_a_bad_sampling_rate_of_pcoc_and_copc_names_the_function_called(name, call, caller):
    # it said "of pcoc" under receval.compute and receval.metric too
    with pytest.raises(rv.InvalidParameterError) as info:
        call(name, negative_sampling_rate=2)
    assert str(info.value) == (
        f"The 'negative_sampling_rate' parameter of {caller.format(name)} must be a real "
        f"number in (0.0, 1.0]. Got 2 instead."
    )

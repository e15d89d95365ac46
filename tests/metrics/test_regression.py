"""Brier score, R² and explained variance: scikit-learn parity, exact sums, edge cases."""

import math
from fractions import Fraction

import numpy as np
import pytest
from sklearn import metrics as sk

import receval as rv
from receval import (
    InputValidationError,
    InvalidParameterError,
    UndefinedMetricWarning,
    brier_score_loss,
    explained_variance_score,
    r2_score,
)

PAIRS = [(r2_score, sk.r2_score), (explained_variance_score, sk.explained_variance_score)]


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("weighted", [False, True])
def test_regression_scores_equal_sklearn(seed, weighted):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 80))
    y = rng.normal(size=n) * 10 + 3
    if seed % 3 == 0:  # ties and integer ratings
        y = rng.integers(1, 6, n).astype(float)
    p = y + rng.normal(size=n) * rng.random() * 5 + (seed % 2)
    w = rng.random(n) * 3 if weighted else None
    for ours, theirs in PAIRS:
        assert ours(y, p, sample_weight=w) == pytest.approx(
            theirs(y, p, sample_weight=w), rel=1e-12, abs=1e-12
        )


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("weighted", [False, True])
def test_brier_equals_sklearn(seed, weighted):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 80))
    y = rng.integers(0, 2, n)
    p = rng.choice([0.0, 0.1, 0.5, 0.5, 0.9, 1.0], n) if seed % 2 else rng.random(n)
    w = rng.random(n) * 3 if weighted else None
    expected = sk.brier_score_loss(y, p, sample_weight=w)
    assert brier_score_loss(y, p, sample_weight=w) == pytest.approx(expected, rel=1e-12, abs=1e-15)


def test_brier_labels_and_pos_label():
    p = np.array([0.1, 0.9, 0.8, 0.3])
    assert brier_score_loss([0, 1, 1, 0], p) == pytest.approx(0.0375)  # (.01+.01+.04+.09)/4
    assert brier_score_loss([-1, 1, 1, -1], p) == pytest.approx(0.0375)
    assert brier_score_loss([0, 1, 1, 0], 1 - p, pos_label=0) == pytest.approx(0.0375)
    labels = ["spam", "ham", "ham", "spam"]
    assert brier_score_loss(labels, p, pos_label="ham") == pytest.approx(
        sk.brier_score_loss(labels, p, pos_label="ham")
    )
    with pytest.raises(InputValidationError, match="pos_label"):
        brier_score_loss(labels, p)
    with pytest.raises(InputValidationError, match="brier_score_loss: y_proba"):
        brier_score_loss([0, 1], [0.5, 1.5])
    with pytest.raises(
        InputValidationError,
        match=r"y_proba contains NaN or infinity, the first at position 1 \(nan\); drop those",
    ):
        brier_score_loss([0, 1], [0.5, np.nan])
    with pytest.raises(InputValidationError, match="same length"):
        brier_score_loss([0, 1, 1], [0.5, 0.5])
    with pytest.raises(InputValidationError, match="empty"):
        brier_score_loss([], [])


def test_hand_computed():
    # R² = 1 - SSE/SST: SSE = .25 + .25 + 0 + 1 = 1.5; mean 2.875, SST = 29.1875
    assert r2_score([3, -0.5, 2, 7], [2.5, 0.0, 2, 8]) == pytest.approx(1 - 1.5 / 29.1875)
    # errors .5, -.5, 0, -1: mean -.25, variance*4 = .5625 + .0625 + .0625 + .5625 = 1.25
    assert explained_variance_score([3, -0.5, 2, 7], [2.5, 0.0, 2, 8]) == pytest.approx(
        1 - 1.25 / 29.1875
    )
    assert explained_variance_score([1, 2, 3], [2, 3, 4]) == 1.0  # a constant bias
    assert r2_score([1, 2, 3], [2, 3, 4]) == pytest.approx(1 - 3 / 2)


@pytest.mark.parametrize("force_finite", [True, False])
def test_constant_y_true_follows_sklearn(force_finite):
    y = np.array([2.0, 2.0, 2.0, 2.0])
    w = np.array([1.0, 2.0, 0.5, 3.0])
    for pred in (y, y + np.array([0.0, 1.0, 0.0, 0.0]), y + 1.0):
        for ours, theirs in PAIRS:
            for weights in (None, w):
                got = ours(y, pred, sample_weight=weights, force_finite=force_finite)
                with np.errstate(divide="ignore", invalid="ignore"):
                    want = theirs(y, pred, sample_weight=weights, force_finite=force_finite)
                assert got == want or (np.isnan(got) and np.isnan(want))


def test_r2_needs_two_samples():
    with pytest.warns(UndefinedMetricWarning, match="fewer than two samples"):
        assert np.isnan(r2_score([1.0], [1.0]))
    with pytest.warns(UndefinedMetricWarning, match="weight is zero"):
        assert np.isnan(r2_score([1.0, 2.0], [1.0, 1.0], sample_weight=[0, 0]))


def test_exact_where_floats_cancel():
    # a large mean and a small spread: the two-pass float formula loses digits;
    # the exact sums give the correctly rounded value
    rng = np.random.default_rng(0)
    y = 1e9 + rng.random(200)
    p = y + rng.normal(size=200) * 0.1
    w = rng.random(200)
    fy, fp, fw = ([Fraction(float(v)) for v in a] for a in (y, p, w))
    total = sum(fw)
    mean = sum(a * b for a, b in zip(fw, fy, strict=True)) / total
    sse = sum(c * (a - b) ** 2 for a, b, c in zip(fy, fp, fw, strict=True))
    sst = sum(c * (a - mean) ** 2 for a, c in zip(fy, fw, strict=True))
    assert r2_score(y, p, sample_weight=w) == float(1 - sse / sst)
    assert r2_score(y, p, sample_weight=w) == pytest.approx(sk.r2_score(y, p, sample_weight=w))


def test_options_and_errors():
    with pytest.raises(InvalidParameterError, match="'force_finite' parameter of r2_score"):
        r2_score([1, 2], [1, 2], force_finite="yes")
    with pytest.raises(
        InputValidationError,
        match=r"r2_score: y_true contains NaN or infinity, the first at position 1 \(inf\)",
    ):
        r2_score([1, np.inf], [1, 2])
    with pytest.raises(InputValidationError, match="sample_weight must be non-negative"):
        explained_variance_score([1, 2], [1, 2], sample_weight=[1, -1])


@pytest.mark.parametrize("name", ["brier", "brier_score", "r2", "explained_variance"])
def test_accumulator_equals_function_exactly(name):
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 500)
    p = rng.random(500)
    w = rng.random(500) * 2
    func = getattr(rv, rv.metric_info(name).function)
    expected = func(y, p, sample_weight=w)
    acc = rv.metric(name)
    for a, b in [(0, 1), (1, 77), (77, 300), (300, 500)]:
        acc.update(y[a:b], p[a:b], sample_weight=w[a:b])
    assert acc.compute() == expected
    assert rv.compute(name, y, p, sample_weight=w) == expected


def test_registry_names():
    assert rv.metric_info("brier").name == "brier_score"
    assert rv.metric_info("brier_score_loss").function == "brier_score_loss"
    assert rv.metric_info("r2_score").name == "r2"
    assert rv.metric_info("explained_variance_score").name == "explained_variance"
    assert rv.metric_info("brier").higher_is_better is False


def test_functions_read_scan_columns(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(9)
    y, p, w = rng.integers(0, 2, 50), rng.random(50), rng.random(50)
    pq.write_table(pa.table({"y": y, "p": p, "w": w}), tmp_path / "rows.parquet")
    s = rv.scan(tmp_path / "rows.parquet", batch_rows=7)
    for func in (brier_score_loss, r2_score, explained_variance_score):
        assert func(s["y"], s["p"], sample_weight=s["w"]) == func(y, p, sample_weight=w)
    assert rv.partial_auc(s["y"], s["p"], max_fpr=0.4) == rv.partial_auc(y, p, max_fpr=0.4)


@pytest.mark.parametrize(
    ("y", "p", "w"),
    [
        ([0.0, 1e-160], [1e10, 1e10], None),
        ([0.0, 1e-200], [1.0, 1.0], None),
        ([0.0, 1.0], [0.0, 0.0], [1e-300, 1e10]),
    ],
)
def test_r2_beyond_float_range_is_minus_infinity(y, p, w):
    # 1 - SSE / SST of about -4e340 raised a raw OverflowError (scikit-learn: -inf)
    assert rv.r2_score(y, p, sample_weight=w) == -math.inf
    assert rv.metric("r2").update(y, p, sample_weight=w).compute() == -math.inf

"""Paired tests, bootstrap intervals, effect sizes and p-value corrections.

The statistics of receval.comparison.significance and receval.comparison.intervals.

References: SciPy (ttest_rel, wilcoxon, permutation_test, bootstrap), statsmodels
(multipletests), and the slow oracles of tests/oracles/stats.py (exhaustive sign
flips, brute-force jackknife, textbook BCa on the same replicates). Randomized
checks compare with Monte Carlo tolerances computed from binomial standard errors.
"""

from __future__ import annotations

import math
import re
import subprocess
import sys
import warnings

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from scipy import stats

from receval._kernels import compiled
from receval.comparison import intervals as _intervals
from receval.comparison import paired as _paired
from receval.comparison.intervals import bootstrap_intervals, effect_sizes
from receval.comparison.significance import (
    _flip_sums,
    adjust_pvalues,
    randomization_pvalues,
    student_pvalues,
    wilcoxon_pvalues,
)
from receval.exceptions import InputValidationError, InvalidParameterError, UndefinedMetricWarning
from tests._dlpack import NUMPY_ASKS_A_COPY, DLPackArray
from tests.oracles import stats as oracle


def _table(differences, weights, drop_unused=False):
    d, one_d = _paired.check_differences(differences, "test")
    return _paired.Table(d, _paired.check_weights(weights, d, one_d, "test"), drop_unused)


def _bootstrap_replicates(differences, weights, n_resamples, seed):
    """Weighted mean difference of every column in every resample: (n_resamples, m), each
    column resampled from its own users."""
    d = np.asarray(differences, dtype=np.float64).reshape(len(differences), -1)
    w = None if weights is None else np.asarray(weights, dtype=np.float64)
    columns = []
    for j in range(d.shape[1]):
        table = _table(d[:, j], None if w is None else w if w.ndim == 1 else w[:, j], True)
        columns.append(np.ldexp(_intervals._replicates(table, n_resamples, seed), table.exponent))
    return np.hstack(columns)


def _randomization_statistics(differences, weights, n_permutations, seed):
    """Signed sums of every random sign vector: (n_permutations, m)."""
    table = _table(differences, weights)
    return np.ldexp(_flip_sums(table, n_permutations, seed), table.exponent + table.weight_exponent)


# sizes of the Monte Carlo checks
N_PERMUTATIONS = 200_000
N_RESAMPLES = 10_000
TIES = [-1.0, 0.0, 0.5, 1.0]  # hypothesis draws differences from here: ties and zeros
# property tests whose reference is slow (SciPy's exact Wilcoxon permutation test on tied
# data, statsmodels' Holm: ~25 ms a call) run at most 60 examples, whatever the profile
SLOW_REFERENCE = settings(max_examples=min(settings.default.max_examples, 60))


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # SciPy's precision / small-sample notes
        return fn(*args, **kwargs)


def _undefined_ok(fn, *args, **kwargs):
    """``fn(...)`` where some columns may be undefined (nan, with a warning tested elsewhere)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return fn(*args, **kwargs)


def _undefined(match: str):
    return pytest.warns(UndefinedMetricWarning, match=match)


def _paired_data(seed: int, n: int, m: int, *, nan_share: float = 0.1):
    """Two models' per-user values in [0, 1] with ties, zeros, and NaN rows that
    differ by column; returns (a, b) with d = a - b."""
    rng = np.random.default_rng(seed)
    a = np.round(rng.random((n, m)), 1) * (rng.random((n, m)) < 0.7)  # NDCG-like, many zeros
    b = np.clip(a + np.round(rng.normal(0.05 * (seed % 3), 0.2, (n, m)), 1), 0, 1)
    same = rng.random((n, m)) < 0.2
    b[same] = a[same]  # zero differences
    nan = rng.random((n, m)) < nan_share
    a[nan] = np.nan
    return a, b


def _mc_bound(p_exact: float, n_draws: int, k: float = 5.0) -> float:
    """k binomial standard errors of (1 + C) / (1 + B), plus its bias (at most 1 / (B + 1))."""
    return k * math.sqrt(n_draws * p_exact * (1 - p_exact)) / (n_draws + 1) + 1 / (n_draws + 1)


def _nan_close(actual, expected, tol=1e-12):
    actual = np.asarray(actual, dtype=float)
    expected = np.asarray(expected, dtype=float)
    assert actual.shape == expected.shape
    assert_array_equal(np.isnan(actual), np.isnan(expected))
    ok = ~np.isnan(expected)
    assert_allclose(actual[ok], expected[ok], rtol=tol, atol=tol)


# ---------------------------------------------------------------- Student's t
@pytest.mark.parametrize("seed", range(12))
def test_student_equals_scipy_ttest_rel(seed):
    n = [3, 8, 30, 200][seed % 4]
    a, b = _paired_data(seed, n, 5)
    d = a - b
    got = _undefined_ok(student_pvalues, d)
    assert got.shape == (5,)
    for j in range(5):
        keep = ~np.isnan(d[:, j])
        aj, bj = a[keep, j], b[keep, j]
        if keep.sum() < 2:
            assert np.isnan(got[j])
        elif np.all(aj == bj):
            assert got[j] == 1.0  # SciPy: nan
        else:
            expected = _quiet(stats.ttest_rel, aj, bj).pvalue
            assert_allclose(got[j], expected, rtol=1e-10, atol=1e-12)
            assert_allclose(student_pvalues(d[:, j]), expected, rtol=1e-10, atol=1e-12)


def test_student_hand_values_and_edges():
    d = np.array([0.1, 0.2, 0.0, 0.3, 0.1, 0.2])
    t = d.mean() / (d.std(ddof=1) / math.sqrt(6))
    assert_allclose(student_pvalues(d), 2 * stats.t.sf(t, 5), rtol=1e-12)
    assert student_pvalues(np.zeros(7)) == 1.0
    assert student_pvalues([0.5, 0.5, 0.5]) == 0.0  # constant non-zero: t infinite, as SciPy
    with _undefined(r"^student_pvalues: the p-value is nan: the t-test needs at least 2 users"):
        assert np.isnan(student_pvalues([0.3]))
    with _undefined("at least 2 users"):
        assert np.isnan(student_pvalues([np.nan, 0.3, np.nan]))
    with _undefined(r"the p-value of 1 of 2 columns is nan \(columns \[1\]\)"):
        p = student_pvalues(np.array([[0.1, 0.3], [0.2, np.nan]]))
    assert not np.isnan(p[0]) and np.isnan(p[1])
    with pytest.raises(InputValidationError, match="differences is empty"):
        student_pvalues(np.array([]))
    assert_array_equal(student_pvalues(np.empty((4, 0))), np.empty(0))
    assert isinstance(student_pvalues(d), float)


@given(st.lists(st.sampled_from(TIES), min_size=2, max_size=40))
def test_student_tied_values_property(values):
    d = np.array(values)
    got = student_pvalues(d)
    if not d.any():
        assert got == 1.0
    else:
        assert_allclose(got, _quiet(stats.ttest_1samp, d, 0.0).pvalue, rtol=1e-10, atol=1e-12)
        assert student_pvalues(-d) == pytest.approx(got, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("alternative", ["greater", "less"])
@pytest.mark.parametrize("seed", range(4))
def test_student_one_sided_equals_scipy_ttest_1samp(alternative, seed):
    n = [3, 8, 30, 200][seed]
    a, b = _paired_data(seed, n, 5)
    d = a - b
    got = _undefined_ok(student_pvalues, d, alternative=alternative)
    for j in range(5):
        x = d[~np.isnan(d[:, j]), j]
        if x.size < 2:
            assert np.isnan(got[j])
        elif not x.any():
            assert got[j] == 0.5  # t = 0, its null center (SciPy: nan)
        else:
            expected = _quiet(stats.ttest_1samp, x, 0.0, alternative=alternative).pvalue
            assert_allclose(got[j], expected, rtol=1e-10, atol=1e-12)


def test_student_one_sided_hand_values():
    # t = 0 (mean 0, variance 1): SciPy's one-sided p-value is 0.5, as for all-zero differences
    assert student_pvalues([1.0, -1.0, 0.0], alternative="greater") == 0.5
    assert stats.ttest_1samp([1.0, -1.0, 0.0], 0.0, alternative="greater").pvalue == 0.5
    assert student_pvalues(np.zeros(7), alternative="greater") == 0.5
    assert student_pvalues(np.zeros(7), alternative="less") == 0.5
    assert student_pvalues([0.5, 0.5, 0.5], alternative="greater") == 0.0  # t = +inf
    assert student_pvalues([0.5, 0.5, 0.5], alternative="less") == 1.0
    d = np.array([0.1, 0.2, 0.0, 0.3, 0.1, 0.2])  # t = 3.5032, 5 degrees of freedom
    assert student_pvalues(d, alternative="greater") == pytest.approx(0.0086124, rel=1e-4)
    assert student_pvalues(d, alternative="less") == pytest.approx(1 - 0.0086124, rel=1e-6)
    with pytest.raises(InvalidParameterError, match="'alternative' parameter of student_pvalues"):
        student_pvalues(d, alternative="larger")


# ---------------------------------------------------------------- Wilcoxon
@pytest.mark.parametrize("seed", range(12))
def test_wilcoxon_equals_scipy(seed):
    n = [6, 12, 40, 300][seed % 4]  # exact, permutation (ties), exact or asymptotic
    a, b = _paired_data(100 + seed, n, 4)
    if seed % 2:
        a = a + np.random.default_rng(seed).normal(0, 1e-3, a.shape)  # no ties: exact path
    d = a - b
    got = _undefined_ok(wilcoxon_pvalues, d)
    for j in range(4):
        keep = ~np.isnan(d[:, j])
        if keep.sum() == 0:
            assert np.isnan(got[j])
            continue
        expected = _quiet(stats.wilcoxon, a[keep, j], b[keep, j]).pvalue
        assert_allclose(got[j], expected, rtol=1e-12, atol=1e-12)
        assert wilcoxon_pvalues(d[:, j]) == got[j]


@SLOW_REFERENCE
@given(st.lists(st.sampled_from(TIES), min_size=1, max_size=60))
def test_wilcoxon_tied_values_property(values):
    d = np.array(values)
    expected = _quiet(stats.wilcoxon, d).pvalue if d.any() else 1.0
    assert wilcoxon_pvalues(d) == expected  # to the last bit, SciPy's sign flips included


def test_wilcoxon_sign_flips_only_where_scipy_enumerates_them(monkeypatch):
    """SciPy before 1.15 took the normal approximation for few tied differences:
    there receval leaves the test to SciPy's own call."""
    import scipy

    from receval.comparison import significance

    def enumerated(col, alternative="two-sided"):
        raise AssertionError(f"sign flips enumerated for {col}")

    d = np.array([0.0, 0.5, -0.5, 1.0, 2.0])
    monkeypatch.setattr(scipy, "__version__", "1.14.1")
    monkeypatch.setattr(significance, "_sign_flips_pvalue", enumerated)
    assert wilcoxon_pvalues(d) == _quiet(stats.wilcoxon, d).pvalue
    monkeypatch.setattr(scipy, "__version__", "1.15.0")
    with pytest.raises(AssertionError, match="sign flips enumerated"):
        wilcoxon_pvalues(d)


@pytest.mark.parametrize("n", [2, 5, 9, 13])
def test_wilcoxon_sign_flips_equal_scipys_to_the_last_bit(n):
    """At most 13 differences with a zero or a tie: SciPy enumerates the 2**n sign
    flips (its statistic called once each); receval computes every flip's statistic at
    once, and must give the same p-value."""
    rng = np.random.default_rng(n)
    columns = [np.round(rng.normal(size=n), 1) for _ in range(3)]
    columns[0][0] = 0.0  # a zero
    columns[1][-1] = -columns[1][0]  # a tie of |d| across signs
    columns[2] = np.round(np.abs(columns[2]), 0) + 1.0  # one sign, many ties
    got = wilcoxon_pvalues(np.column_stack(columns))
    for j, d in enumerate(columns):
        assert got[j] == _quiet(stats.wilcoxon, d).pvalue, (j, d)


def test_wilcoxon_edges():
    assert wilcoxon_pvalues(np.zeros(5)) == 1.0
    with _undefined(r"^wilcoxon_pvalues: the p-value is nan: no user has a difference"):
        assert np.isnan(wilcoxon_pvalues([np.nan, np.nan]))
    with _undefined(r"columns \[1\]"):
        p = wilcoxon_pvalues(np.array([[0.0, np.nan], [0.0, np.nan]]))
    assert_array_equal(p, [1.0, np.nan])


# ---------------------------------------------------------------- randomization
def _small_table():
    """12 users x 6 columns of small designs, each with its exact p-value by enumeration:
    continuous, tied, zeros, NaN rows, weights with zeros, all zero."""
    rng = np.random.default_rng(7)
    n = 12
    d = np.empty((n, 6))
    d[:, 0] = rng.normal(0.4, 1.0, n)
    d[:, 1] = rng.choice(TIES, n, p=[0.15, 0.25, 0.3, 0.3])
    d[:, 2] = rng.choice([0.0, 0.0, 0.1, 0.2, -0.1], n)
    d[:, 3] = rng.normal(0.2, 1.0, n)
    d[[0, 4, 5, 9], 3] = np.nan
    d[:, 4] = rng.choice(TIES, n)
    d[:, 5] = 0.0
    w = np.ones((n, 6))
    w[:, 4] = rng.choice([0.0, 0.5, 1.0, 2.0, 3.0], n)
    w[:, 0] = rng.random(n) * 2
    return d, w


def test_randomization_matches_exhaustive_enumeration():
    d, w = _small_table()
    got = randomization_pvalues(d, w, n_permutations=N_PERMUTATIONS, seed=3)
    for j in range(d.shape[1]):
        exact = oracle.exact_randomization_pvalue(d[:, j], w[:, j])
        bound = _mc_bound(exact, N_PERMUTATIONS)
        assert abs(got[j] - exact) <= bound, (j, got[j], exact, bound)
    assert got[5] == 1.0  # identical models


def test_randomization_unweighted_equals_scipy_exact_permutation_test():
    d, _ = _small_table()
    got = randomization_pvalues(d, n_permutations=N_PERMUTATIONS, seed=11)
    for j in range(5):
        x = d[~np.isnan(d[:, j]), j]
        res = stats.permutation_test(
            (x, np.zeros_like(x)),
            lambda a, b, axis: np.mean(a - b, axis=axis),
            permutation_type="samples",
            vectorized=True,
            n_resamples=np.inf,
        )
        exact = min(res.pvalue, 1.0)
        assert abs(got[j] - exact) <= _mc_bound(exact, N_PERMUTATIONS), (j, got[j], exact)
        assert exact == pytest.approx(oracle.exact_randomization_pvalue(x), abs=1e-12)


def test_randomization_bound_detects_a_one_sided_pvalue():
    """The Monte Carlo tolerance used above is much smaller than a factor-2 error."""
    d, _ = _small_table()
    exact = oracle.exact_randomization_pvalue(d[:, 1])
    assert 0.02 < exact < 0.9
    assert exact / 2 < exact - 3 * _mc_bound(exact, N_PERMUTATIONS)


def test_randomization_pvalue_from_its_statistics():
    d, w = _small_table()
    sums = _randomization_statistics(d, w, 500, 4)
    assert sums.shape == (500, 6)
    x = np.where(np.isnan(d), 0.0, d * w)
    observed = np.abs(x.sum(axis=0))
    tol = 1e-12 * np.abs(x).sum(axis=0)
    expected = (1 + (np.abs(sums) >= observed - tol).sum(axis=0)) / 501
    assert_array_equal(randomization_pvalues(d, w, n_permutations=500, seed=4), expected)
    # every row is a sign vector applied to w d: |sum| <= sum |w d|, same parity pattern
    assert np.all(np.abs(sums) <= np.abs(x).sum(axis=0) * (1 + 1e-12))


def test_randomization_sign_vectors_are_fair_coins():
    n, b = 100, 4000
    signs = _randomization_statistics(np.eye(n), None, b, 0)  # column j: user j's sign
    assert set(np.unique(signs)) == {-1.0, 1.0}
    se = 1 / math.sqrt(b)
    assert np.abs(signs.mean(axis=0)).max() < 5 * se  # each user flipped half the time
    corr = (signs.T @ signs) / b - np.eye(n)
    assert np.abs(corr).max() < 5.5 * se  # users flipped independently
    lagged = (signs[1:] * signs[:-1]).mean(axis=0)
    assert np.abs(lagged).max() < 5.5 * se  # consecutive sign vectors unrelated


def test_randomization_columns_independent_of_each_other():
    """A column of a 2-D call equals a 1-D call on it: same signs for row i."""
    d, w = _small_table()
    both = randomization_pvalues(d, w, n_permutations=3000, seed=9)
    for j in range(d.shape[1]):
        one = randomization_pvalues(d[:, j], w[:, j], n_permutations=3000, seed=9)
        assert one == both[j]


def test_randomization_identical_models_and_edges():
    assert randomization_pvalues(np.zeros(50)) == 1.0
    assert randomization_pvalues(np.zeros((30, 3)), n_permutations=10).tolist() == [1.0] * 3
    with _undefined(r"^randomization_pvalues: the p-value is nan: no user has a difference and"):
        assert np.isnan(randomization_pvalues([np.nan, np.nan]))
    with _undefined("positive weight"):
        assert np.isnan(randomization_pvalues([0.5, 0.2], weights=[0.0, 0.0]))
    assert randomization_pvalues([0.4]) == 1.0  # one user: both signs are as extreme
    p = randomization_pvalues(np.full(20, 0.3), n_permutations=999)
    assert p == pytest.approx(3 / 1000, abs=2 / 1000)  # only all-plus / all-minus reach it
    assert isinstance(randomization_pvalues([0.1, 0.2]), float)


@pytest.mark.parametrize("alternative", ["greater", "less"])
def test_randomization_one_sided_matches_exhaustive_enumeration(alternative):
    """The one-sided p-value estimates the exact one: the share of the 2**12 sign vectors
    whose signed sum reaches the observed one on the alternative's side."""
    d, w = _small_table()
    got = randomization_pvalues(d, w, alternative=alternative, n_permutations=N_PERMUTATIONS,
                                seed=3)  # fmt: skip
    for j in range(d.shape[1]):
        exact = oracle.exact_randomization_pvalue(d[:, j], w[:, j], alternative=alternative)
        bound = _mc_bound(exact, N_PERMUTATIONS)
        assert abs(got[j] - exact) <= bound, (j, got[j], exact, bound)
    assert got[5] == 1.0  # identical models: every sign vector reaches the sum 0


def test_randomization_one_sided_is_not_from_the_two_sided():
    """Sums of [1, -1, 1] under sign flips: 3, 1, 1, 1, -1, -1, -1, -3; observed 1. Every
    one reaches |1| (two-sided 1); 4 of 8 are >= 1, 7 of 8 <= 1 (1 - 1/2 said 0.5)."""
    d = [1.0, -1.0, 1.0]
    assert oracle.exact_randomization_pvalue(d) == 1.0
    assert oracle.exact_randomization_pvalue(d, alternative="greater") == 0.5
    assert oracle.exact_randomization_pvalue(d, alternative="less") == 0.875
    for side, exact in (("greater", 0.5), ("less", 0.875)):
        got = randomization_pvalues(d, alternative=side, n_permutations=N_PERMUTATIONS)
        assert abs(got - exact) <= _mc_bound(exact, N_PERMUTATIONS), (side, got)


def test_randomization_one_sided_pvalue_from_the_same_statistics():
    d, w = _small_table()
    sums = _randomization_statistics(d, w, 500, 4)
    x = np.where(np.isnan(d), 0.0, d * w)
    total, tol = x.sum(axis=0), 1e-12 * np.abs(x).sum(axis=0)
    greater = (1 + (sums >= total - tol).sum(axis=0)) / 501
    less = (1 + (sums <= total + tol).sum(axis=0)) / 501
    for side, expected in (("greater", greater), ("less", less)):
        got = randomization_pvalues(d, w, alternative=side, n_permutations=500, seed=4)
        assert_array_equal(got, expected)


def test_randomization_one_sided_floor_and_identical_models():
    """20 equal gains: none of 100 random sign vectors reaches their sum, so 1 / 101, the
    floor, one-sided as two-sided (halving the two-sided p-value gave 1 / 202)."""
    gains = np.full(20, 0.3)
    assert randomization_pvalues(gains, alternative="greater", n_permutations=100) == 1 / 101
    assert randomization_pvalues(gains, n_permutations=100) == 1 / 101
    assert randomization_pvalues(gains, alternative="less", n_permutations=100) == 1.0
    assert randomization_pvalues(-gains, alternative="less", n_permutations=100) == 1 / 101
    for side in ("greater", "less"):  # every sign vector reaches 0, as in the exact test
        assert randomization_pvalues(np.zeros(5), alternative=side) == 1.0
        assert oracle.exact_randomization_pvalue(np.zeros(5), alternative=side) == 1.0
    # one user: +0.4 and -0.4 are both <= 0.4 (exact 1), one of them >= 0.4 (exact 1/2)
    assert randomization_pvalues([0.4], alternative="less", n_permutations=1000) == 1.0
    assert randomization_pvalues([0.4], alternative="greater", n_permutations=1000) == 499 / 1001
    with pytest.raises(InvalidParameterError, match="'alternative' parameter of randomization"):
        randomization_pvalues(gains, alternative="up")


def test_randomization_is_deterministic_and_seeded():
    a, b = _paired_data(5, 500, 3)
    d = a - b
    p1 = randomization_pvalues(d, n_permutations=2000, seed=1)
    assert_array_equal(p1, randomization_pvalues(d, n_permutations=2000, seed=1))
    s1 = _randomization_statistics(d, None, 300, 1)
    assert not np.array_equal(s1, _randomization_statistics(d, None, 300, 2))


@pytest.mark.parametrize("which", ["flip", "resample"])
def test_results_do_not_depend_on_threads_or_chunks(which, monkeypatch):
    kernels = compiled()
    rng = np.random.default_rng(0)
    x = np.ascontiguousarray(rng.normal(size=(150, 3)))
    wm = np.ascontiguousarray(rng.random((150, 3)))
    if which == "flip":
        run = lambda chunks: kernels.sign_flip_sums(x, 257, 5, chunks)  # noqa: E731
        public = lambda: randomization_pvalues(x, n_permutations=257, seed=5)  # noqa: E731
    else:
        run = lambda chunks: kernels.bootstrap_means(x, wm, 257, 5, chunks)  # noqa: E731
        public = lambda: bootstrap_intervals(x, wm, n_resamples=257, seed=5)  # noqa: E731
    reference = run(1)
    for chunks in (2, 7, 64):
        assert_array_equal(run(chunks), reference)
    serial = public()
    monkeypatch.setattr(_paired, "PARALLEL_MIN_WORK", 0)  # split even small work
    assert_array_equal(np.asarray(public()), np.asarray(serial))


@given(st.lists(st.sampled_from(TIES), min_size=1, max_size=10), st.integers(0, 2**63 - 1))
def test_randomization_tied_values_property(values, seed):
    d = np.array(values)
    b = 2000
    p = randomization_pvalues(d, n_permutations=b, seed=seed)
    exact = oracle.exact_randomization_pvalue(d)
    assert 1 / (b + 1) <= p <= 1.0
    assert abs(p - exact) <= _mc_bound(exact, b, k=5.5)
    assert randomization_pvalues(-d, n_permutations=b, seed=seed) == p  # sign symmetry
    assert randomization_pvalues(4 * d, n_permutations=b, seed=seed) == p  # exact rescaling
    if not d.any():
        assert p == 1.0


# ---------------------------------------------------------------- bootstrap
def _replicate_oracle(d, w, replicates, method, confidence):
    """Expected interval of each column from the same replicates (textbook formulas)."""
    low, high = [], []
    for j in range(d.shape[1]):
        pairs = oracle.used_pairs(d[:, j], None if w is None else w[:, j])
        values = [x for x, _ in pairs]
        if not pairs:
            low.append(math.nan)
            high.append(math.nan)
        elif min(values) == max(values):
            low.append(values[0])
            high.append(values[0])
        elif method == "percentile":
            lo, hi = oracle.percentile_interval(replicates[:, j], confidence)
            low.append(lo)
            high.append(hi)
        else:
            acc = oracle.jackknife_acceleration(d[:, j], None if w is None else w[:, j])
            total = math.fsum(b for _, b in pairs)
            tie = 1e-10 * math.fsum(abs(a) * b for a, b in pairs) / total
            lo, hi = oracle.bca_interval(
                replicates[:, j], oracle.weighted_mean(pairs), acc, confidence, tie
            )
            low.append(lo)
            high.append(hi)
    return np.array(low), np.array(high)


@pytest.mark.parametrize("method", ["bca", "percentile"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("confidence", [0.95, 0.8])
def test_bootstrap_equals_textbook_formulas_on_the_same_replicates(method, weighted, confidence):
    rng = np.random.default_rng(3)
    n = 60
    d = np.column_stack(
        [
            rng.exponential(1.0, n) - 0.7,  # skewed
            rng.normal(0.1, 1.0, n),
            rng.choice(TIES, n),  # ties: replicates equal to the estimate
            np.where(rng.random(n) < 0.3, np.nan, rng.lognormal(0, 1, n)),  # NaN rows
            np.full(n, 0.25),  # constant: (c, c)
        ]
    )
    d[3:, 4] = np.nan
    w = rng.choice([0.0, 0.5, 1.0, 3.0], (n, 5)) if weighted else None
    replicates = _bootstrap_replicates(d, w, 2000, 17)
    got = bootstrap_intervals(d, w, method=method, confidence=confidence, n_resamples=2000, seed=17)
    expected = _replicate_oracle(d, w, replicates, method, confidence)
    _nan_close(got[0], expected[0], 1e-12)
    _nan_close(got[1], expected[1], 1e-12)
    assert got[0][4] == got[1][4] == 0.25


def test_jackknife_acceleration_equals_leave_one_out():
    rng = np.random.default_rng(8)
    d = rng.lognormal(0, 1, (40, 3))
    d[rng.random((40, 3)) < 0.2] = np.nan
    w = rng.choice([0.0, 1.0, 2.5], (40, 3))
    for weights in (None, w):
        table = _paired.Table(d, weights, drop_unused=True)
        got = _intervals._jackknife_acceleration(table)
        for j in range(3):
            expected = oracle.jackknife_acceleration(d[:, j], None if weights is None else w[:, j])
            assert got[j] == pytest.approx(expected, rel=1e-9, abs=1e-15)


def test_a_column_of_few_users_is_resampled_from_them_alone():
    """A column defined for 2 users of 20: its resamples draw those 2, never a nan mean."""
    rng = np.random.default_rng(2)
    d = np.column_stack([rng.normal(size=20), np.full(20, np.nan)])
    d[[3, 11], 1] = [0.4, -0.2]
    replicates = _bootstrap_replicates(d, None, 1000, 0)
    assert not np.isnan(replicates).any()
    for method in ("bca", "percentile"):
        low, high = bootstrap_intervals(d, method=method, n_resamples=1000, seed=0)
        expected = _replicate_oracle(d, None, replicates, method, 0.95)
        _nan_close(low, expected[0])
        _nan_close(high, expected[1])
        alone = bootstrap_intervals([0.4, -0.2], method=method, n_resamples=1000, seed=0)
        assert (low[1], high[1]) == alone


def test_bootstrap_draws_are_uniform_with_replacement():
    n, b = 50, 4000
    counts = _bootstrap_replicates(np.eye(n), None, b, 1) * n  # column j: copies of user j
    assert_allclose(counts, np.round(counts), atol=1e-9)
    assert_allclose(counts.sum(axis=1), n)  # n draws per resample
    total = counts.sum(axis=0)  # Binomial(n b, 1 / n) per user
    assert np.abs(total - b).max() < 5 * math.sqrt(b * (1 - 1 / n))
    per_resample = counts[:, 0]  # Binomial(n, 1 / n): P(0) = (1 - 1/n)**n
    assert abs(np.mean(per_resample == 0) - (1 - 1 / n) ** n) < 5 * math.sqrt(0.37 * 0.63 / b)


def _quantile_tolerance(replicates: np.ndarray, level: float, n: int, k: float = 5.0) -> float:
    """k standard errors of the difference of two independent sample quantiles at `level`
    of n draws each, for a bootstrap distribution close to normal."""
    density = stats.norm.pdf(stats.norm.ppf(level)) / np.std(replicates)
    return k * math.sqrt(2 * level * (1 - level) / n) / density


@pytest.mark.parametrize("method", ["BCa", "percentile"])
def test_bootstrap_agrees_with_scipy(method):
    rng = np.random.default_rng(4)
    n = 40
    a = rng.lognormal(0, 1.2, n)  # strongly skewed: BCa moves away from percentile
    b = rng.lognormal(-0.3, 0.5, n)
    res = stats.bootstrap(
        (a, b),
        lambda x, y, axis: np.mean(x - y, axis=axis),
        paired=True,
        vectorized=True,
        method=method,
        n_resamples=N_RESAMPLES,
        rng=np.random.default_rng(0),
    )
    low, high = bootstrap_intervals(a - b, method=method.lower(), n_resamples=N_RESAMPLES, seed=1)
    spread = res.bootstrap_distribution
    for ours, theirs, level in (
        (low, res.confidence_interval.low, 0.025),
        (high, res.confidence_interval.high, 0.975),
    ):
        assert abs(ours - theirs) < _quantile_tolerance(spread, level, N_RESAMPLES)
    if method == "BCa":  # the tolerance tells BCa from percentile apart
        pct = np.quantile(spread, [0.025, 0.975])
        assert abs(pct[1] - high) > 2 * _quantile_tolerance(spread, 0.975, N_RESAMPLES)


@pytest.mark.parametrize("method", ["bca", "percentile"])
def test_bootstrap_coverage_of_a_skewed_mean(method):
    """Nominal 95% intervals of the mean of 300 exponential differences cover the true
    mean in 95% of 400 datasets, within 3 binomial standard errors (datasets are columns:
    one call, independent data, shared resample draws)."""
    n_sets, n_users, n_boot = 400, 300, 2000
    rng = np.random.default_rng(12)
    true_mean = 0.2
    d = rng.exponential(1.0, (n_users, n_sets)) - 1.0 + true_mean
    low, high = bootstrap_intervals(d, method=method, n_resamples=n_boot, seed=3)
    coverage = np.mean((low <= true_mean) & (true_mean <= high))
    assert abs(coverage - 0.95) < 3 * math.sqrt(0.95 * 0.05 / n_sets), coverage


def test_bootstrap_constant_and_degenerate_columns():
    assert bootstrap_intervals(np.zeros(10)) == (0.0, 0.0)
    assert bootstrap_intervals(np.full(7, 0.3), method="percentile") == (0.3, 0.3)
    d = np.array([[0.0, 0.1, np.nan], [0.0, np.nan, np.nan], [0.0, 0.1, np.nan]])
    with _undefined(r"the interval of 1 of 3 columns is nan \(columns \[2\]\): no user"):
        low, high = bootstrap_intervals(d)
    assert_array_equal(low, [0.0, 0.1, np.nan])
    assert_array_equal(high, [0.0, 0.1, np.nan])
    # every resample on one side of the estimate: BCa's z0 is infinite (SciPy: nan, warning)
    d7 = [0.0, 0.0, 1.0, 1.0, 1.0, 5.0, 0.0]
    with _undefined(r"^bootstrap_intervals: the interval is nan: BCa's bias correction is"):
        assert all(np.isnan(bootstrap_intervals(d7, n_resamples=4, seed=9)))
    low, high = bootstrap_intervals(d7, n_resamples=4, seed=9, method="percentile")
    assert 0.0 <= low <= high <= 5.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert bootstrap_intervals([0.2], method="bca") == (0.2, 0.2)
        low, high = bootstrap_intervals([0.0, 1.0], n_resamples=100)
    assert 0.0 <= low <= high <= 1.0
    # users of weight 0 do not count
    assert bootstrap_intervals([0.1, 0.9, 0.1], weights=[1, 0, 2]) == (0.1, 0.1)


def test_bootstrap_columns_with_shared_users():
    """Columns defined for the same users see the same resamples as alone."""
    a, b = _paired_data(3, 80, 3, nan_share=0.0)
    d = a - b
    d[[2, 7, 30], :] = np.nan
    low, high = bootstrap_intervals(d, n_resamples=500, seed=2)
    for j in range(3):
        assert bootstrap_intervals(d[:, j], n_resamples=500, seed=2) == (low[j], high[j])


def test_bootstrap_equal_weights_equal_no_weights():
    rng = np.random.default_rng(6)
    d = rng.normal(size=30)
    w = np.ones(30)
    one = _bootstrap_replicates(d, w, 300, 5)
    assert_array_equal(one, _bootstrap_replicates(d, None, 300, 5))
    assert_allclose(one, _bootstrap_replicates(d, 2.5 * w, 300, 5), rtol=1e-13, atol=1e-15)
    d2 = np.column_stack([d, -d])
    assert_array_equal(_bootstrap_replicates(d2, np.ones((30, 2)), 300, 5)[:, 0], one[:, 0])


@given(
    st.lists(st.sampled_from(TIES), min_size=1, max_size=25),
    st.sampled_from(["bca", "percentile"]),
)
def test_bootstrap_tied_values_property(values, method):
    d = np.array(values)
    low, high = bootstrap_intervals(d, method=method, n_resamples=300, seed=1)
    if d.min() == d.max():
        assert low == high == d[0]
    else:
        assume(not math.isnan(low))  # BCa: every resample on one side of the estimate
        assert d.min() <= low <= high <= d.max()


def test_bootstrap_is_deterministic_and_seeded():
    d = np.random.default_rng(1).normal(size=(200, 2))
    first = bootstrap_intervals(d, n_resamples=500, seed=4)
    again = bootstrap_intervals(d, n_resamples=500, seed=4)
    assert_array_equal(first, again)
    other = _bootstrap_replicates(d, None, 500, 5)
    assert not np.array_equal(_bootstrap_replicates(d, None, 500, 4), other)


# ---------------------------------------------------------------- effect sizes
@pytest.mark.parametrize("seed", range(6))
def test_effect_sizes_equal_numpy_and_oracle(seed):
    a, b = _paired_data(seed, [2, 5, 50][seed % 3], 4)
    d = a - b
    got = _undefined_ok(effect_sizes, d)
    for j in range(4):
        x = d[~np.isnan(d[:, j]), j]
        if x.size < 2:
            assert np.isnan(got[j])
        elif x.std() == 0:
            assert got[j] == (0.0 if x[0] == 0 else math.copysign(math.inf, x[0]))
        else:
            assert_allclose(got[j], x.mean() / x.std(ddof=1), rtol=1e-10)
    w = np.random.default_rng(seed).choice([0.0, 0.5, 1.0, 4.0], d.shape)
    expected = [oracle.effect_size(d[:, j], w[:, j]) for j in range(4)]
    _nan_close(_undefined_ok(effect_sizes, d, w), expected, 1e-10)
    shared = [oracle.effect_size(d[:, j], w[:, 0]) for j in range(4)]
    _nan_close(_undefined_ok(effect_sizes, d, w[:, 0]), shared, 1e-10)


def test_effect_sizes_edges():
    assert effect_sizes(np.zeros(4)) == 0.0
    assert effect_sizes([0.2, 0.2, 0.2]) == math.inf
    assert effect_sizes([-0.2, -0.2]) == -math.inf
    with _undefined(r"^effect_sizes: the effect size is nan: it needs at least 2 users"):
        assert np.isnan(effect_sizes([0.4]))
    with _undefined("at least 2 users"):
        assert np.isnan(effect_sizes([0.4, 0.1], weights=[1.0, 0.0]))
    assert effect_sizes([1.0, 2.0, 3.0], weights=[2, 2, 2]) == pytest.approx(2.0)


@given(st.lists(st.sampled_from(TIES), min_size=2, max_size=30))
def test_effect_size_tied_values_property(values):
    d = np.array(values)
    e = effect_sizes(d)
    assert np.sign(e) == np.sign(d.mean()) or (e == 0 and d.mean() == 0)
    expected = oracle.effect_size(d)
    assert e == pytest.approx(expected, rel=1e-10) if math.isfinite(expected) else e == expected


# ---------------------------------------------------------------- corrections
STATSMODELS = {"holm": "holm", "bonferroni": "bonferroni", "bh": "fdr_bh"}


def _statsmodels(p: np.ndarray, method: str) -> np.ndarray:
    from statsmodels.stats.multitest import multipletests

    out = np.full(p.shape, np.nan)
    valid = ~np.isnan(p)
    if valid.any():
        out[valid] = multipletests(p[valid], method=STATSMODELS[method])[1]
    return out


@pytest.mark.parametrize("method", ["holm", "bonferroni", "bh"])
@pytest.mark.parametrize("seed", range(5))
def test_adjust_pvalues_equals_statsmodels(method, seed):
    rng = np.random.default_rng(seed)
    p = rng.random(25) ** 3
    p[rng.random(25) < 0.2] = np.nan
    p[:3] = p[3]  # ties
    got = _undefined_ok(adjust_pvalues, p, method=method)
    _nan_close(got, _statsmodels(p, method), 1e-12)
    reference = oracle.holm(p) if method == "holm" else None
    if method == "bh":
        reference = oracle.benjamini_hochberg(p)
    if reference is not None:
        _nan_close(got, reference, 1e-12)
    assert np.nanmax(got) <= 1.0


@SLOW_REFERENCE
@given(
    st.lists(st.sampled_from([0.0, 0.001, 0.01, 0.04, 0.05, 0.5, 1.0, math.nan]), max_size=30),
    st.sampled_from(["holm", "bonferroni", "bh"]),
)
def test_adjust_pvalues_property(values, method):
    p = np.array(values, dtype=float)
    got = _undefined_ok(adjust_pvalues, p, method=method)
    _nan_close(got, _statsmodels(p, method), 1e-12)
    valid = ~np.isnan(p)
    assert np.all(got[valid] >= p[valid]) and np.all(got[valid] <= 1.0)
    order = np.argsort(p[valid], kind="stable")
    assert np.all(np.diff(got[valid][order]) >= 0)  # order preserved


def test_adjust_pvalues_none_and_empty():
    p = [0.2, math.nan, 0.01]
    with _undefined(r"^adjust_pvalues: 1 of 3 p-values is NaN \(undefined tests\): they stay NaN"):
        out = adjust_pvalues(p, method=None)
    assert isinstance(out, np.ndarray)
    _nan_close(out, p)
    assert adjust_pvalues([]).shape == (0,)
    with _undefined("2 of 2 p-values are NaN"):
        _nan_close(adjust_pvalues([math.nan, math.nan], "bh"), [math.nan, math.nan])
    assert_array_equal(adjust_pvalues([0.01, 0.02, 0.03], "bonferroni"), [0.03, 0.06, 0.09])
    arr = np.array([0.5, 0.01])
    adjust_pvalues(arr)
    assert_array_equal(arr, [0.5, 0.01])  # input not modified


# ---------------------------------------------------------------- errors
def test_parameter_errors():
    d = np.array([0.1, 0.2, 0.3])
    cases = [
        (
            lambda: bootstrap_intervals(d, method="BCa"),
            "The 'method' parameter of bootstrap_intervals must be one of "
            "['bca', 'percentile']. Got 'BCa' instead.",
        ),
        (
            lambda: adjust_pvalues([0.1], method="fdr"),
            "The 'method' parameter of adjust_pvalues must be one of "
            "['bh', 'bonferroni', 'holm', None]. Got 'fdr' instead.",
        ),
        (
            lambda: bootstrap_intervals(d, confidence=1.0),
            "The 'confidence' parameter of bootstrap_intervals must be a real number in "
            "(0.0, 1.0). Got 1.0 instead.",
        ),
        (
            lambda: bootstrap_intervals(d, confidence=95),
            "The 'confidence' parameter of bootstrap_intervals must be a real number in "
            "(0.0, 1.0). Got 95 instead.",
        ),
        (
            lambda: randomization_pvalues(d, n_permutations=0),
            "The 'n_permutations' parameter of randomization_pvalues must be an integer in "
            "[1, 10000000]. Got 0 instead.",
        ),
        (
            lambda: randomization_pvalues(d, n_permutations=1e4),
            "The 'n_permutations' parameter of randomization_pvalues must be an integer. "
            "Got 10000.0 instead.",
        ),
        (
            lambda: bootstrap_intervals(d, n_resamples=True),
            "The 'n_resamples' parameter of bootstrap_intervals must be an integer. "
            "Got True instead.",
        ),
        (
            lambda: randomization_pvalues(d, seed=-1),
            "The 'seed' parameter of randomization_pvalues must be an integer in "
            "[0, 2**63 - 1]. Got -1 instead.",
        ),
    ]
    for call, message in cases:
        with pytest.raises(InvalidParameterError, match=re.escape(message)):
            call()


def test_data_errors():
    d = np.array([0.1, 0.2, 0.3])
    cases = [
        (
            lambda: student_pvalues(np.zeros((2, 2, 2))),
            "student_pvalues: differences must be 1-dimensional (n_users,) or 2-dimensional "
            "(n_users, n_columns). Got an array of shape (2, 2, 2).",
        ),
        (
            lambda: wilcoxon_pvalues([0.1, np.inf]),
            "wilcoxon_pvalues: differences contains infinity; use NaN for a user without a value.",
        ),
        (
            lambda: effect_sizes(["a", "b"]),
            "effect_sizes: differences must be numeric. Got dtype <U1 with values ['a', 'b'].",
        ),
        (
            lambda: randomization_pvalues(d, weights=[1.0, -2.0, 0.5]),
            "randomization_pvalues: weights must be non-negative. Got values [-2.0].",
        ),
        (
            lambda: bootstrap_intervals(d, weights=[1.0, np.nan, 0.5]),
            "bootstrap_intervals: weights contains NaN or infinity, the first at position 1 (nan)"
            "; drop those rows or replace the values with finite numbers first.",
        ),
        (
            lambda: effect_sizes(d, weights=[1.0, 2.0]),
            "effect_sizes: weights must have shape (3,), one weight per user. Got shape (2,).",
        ),
        (
            lambda: randomization_pvalues(np.zeros((3, 2)), weights=np.ones((3, 3))),
            "randomization_pvalues: weights must have shape (3,) or (3, 2), one weight per "
            "user (and column). Got shape (3, 3).",
        ),
        (
            lambda: adjust_pvalues([0.5, 1.5, -0.1]),
            "adjust_pvalues: pvalues must be in [0, 1] (or NaN for an undefined test). Got "
            "values [-0.1, 1.5].",
        ),
        (
            lambda: adjust_pvalues([[0.5, 0.1]]),
            "adjust_pvalues: pvalues must be 1-dimensional. Got an array of shape (1, 2).",
        ),
        (lambda: student_pvalues(None), "student_pvalues: differences is None"),
        (
            lambda: randomization_pvalues(DLPackArray(np.array([0.1, 0.2]), (2, 0))),
            "randomization_pvalues: differences is a DLPackArray on a device",
        ),
        (
            lambda: effect_sizes([0.1, 0.2], weights=DLPackArray(np.ones(2), (2, 0))),
            "effect_sizes: weights is a DLPackArray on a device",
        ),
    ]
    for call, message in cases:
        with pytest.raises(InputValidationError, match=re.escape(message)):
            call()


@pytest.mark.skipif(not NUMPY_ASKS_A_COPY, reason="NumPy asks for a host copy from 2.1 on")
def test_differences_and_weights_on_a_device_are_copied_to_the_host():
    d = np.array([[0.1, -0.2], [0.25, 0.0], [-0.05, 0.3], [0.4, np.nan]])
    w = np.array([1.0, 2.0, 0.5, 1.0])
    want = effect_sizes(d, weights=w)
    got = effect_sizes(DLPackArray(d, (2, 0), True), weights=DLPackArray(w, (2, 0), True))
    assert_array_equal(got, want)


def test_empty_inputs():
    """No user at all is an error naming the argument (as SciPy's bootstrap and
    scikit-learn refuse empty samples); no column is an empty result."""
    calls = [randomization_pvalues, student_pvalues, wilcoxon_pvalues, effect_sizes,
             bootstrap_intervals]  # fmt: skip
    for fn in calls:
        name = fn.__name__
        for empty in (np.array([]), [], np.empty((0, 2))):
            with pytest.raises(
                InputValidationError,
                match=re.escape(f"{name}: differences is empty (no user); pass one difference"),
            ):
                fn(empty)
    from receval import paired_pvalues

    for test in ("randomization", "student", "wilcoxon"):
        with pytest.raises(InputValidationError, match=r"^paired_pvalues: differences is empty"):
            paired_pvalues([], test=test)
    for fn in (student_pvalues, wilcoxon_pvalues, randomization_pvalues, effect_sizes):
        assert fn(np.empty((5, 0))).shape == (0,)
    low, high = bootstrap_intervals(np.empty((5, 0)))
    assert low.shape == high.shape == (0,)


def test_paired_pvalues_alternative_is_each_tests_own():
    from receval import paired_pvalues

    d = np.array([[0.3, 0.0], [-0.1, 0.0], [0.2, 0.0], [0.4, 0.0], [-0.05, 0.0]])
    for side in ("two-sided", "greater", "less"):
        assert_array_equal(
            paired_pvalues(d, alternative=side, n_permutations=500, seed=2),
            randomization_pvalues(d, alternative=side, n_permutations=500, seed=2),
        )
        assert_array_equal(paired_pvalues(d, test="student", alternative=side),
                           student_pvalues(d, alternative=side))  # fmt: skip
        assert_array_equal(paired_pvalues(d, test="wilcoxon", alternative=side),
                           wilcoxon_pvalues(d, alternative=side))  # fmt: skip
    # identical models (second column): each test's own value at its null center
    assert paired_pvalues(d, alternative="greater", n_permutations=500)[1] == 1.0
    assert paired_pvalues(d, test="student", alternative="greater")[1] == 0.5
    assert paired_pvalues(d, test="wilcoxon", alternative="greater")[1] == 1.0
    assert _quiet(stats.wilcoxon, np.zeros(5), alternative="greater").pvalue == 1.0
    with pytest.raises(InvalidParameterError, match="'alternative' parameter of paired_pvalues"):
        paired_pvalues(d, alternative="up")


@pytest.mark.parametrize("test", ["student", "wilcoxon"])
def test_paired_pvalues_checks_and_reads_weights_with_every_test(test):
    # the t-test and the Wilcoxon test weigh users equally; their weights are still
    # checked as the randomization test's, and a weight of 0 leaves its user out
    from receval import paired_pvalues

    d = np.array([0.1, 0.2, 0.3, -0.1, 0.2, 0.4])
    bad = [
        ([1.0, 1.0], "weights must have shape (6,), one weight per user. Got shape (2,)."),
        ([-1.0] * 6, "weights must be non-negative. Got values [-1.0]."),
        ([np.nan] * 6, "weights contains NaN or infinity"),
        (["a"] * 6, "weights must be numeric"),
    ]
    for weights, message in bad:
        with pytest.raises(InputValidationError, match=re.escape(f"paired_pvalues: {message}")):
            paired_pvalues(d, weights, test=test)
    kept = paired_pvalues(d[:5], test=test)
    assert paired_pvalues(d, [2.0, 2.0, 2.0, 2.0, 2.0, 0.0], test=test) == kept
    assert_array_equal(
        paired_pvalues(np.c_[d, d], np.c_[np.ones(6), [3, 3, 3, 3, 3, 0]], test=test),
        [paired_pvalues(d, test=test), kept],
    )
    with pytest.warns(UndefinedMetricWarning, match="p-value is nan"):
        assert math.isnan(paired_pvalues(d, np.zeros(6), test=test))
    with pytest.raises(InvalidParameterError, match=f"test={test!r} weighs every user equally"):
        paired_pvalues(d, [1.0, 2.0, 1.0, 1.0, 1.0, 1.0], test=test)


def test_inputs_in_other_forms():
    import pandas as pd

    d = np.random.default_rng(0).normal(0.1, 1, (30, 2))
    frame = pd.DataFrame(d, columns=["x", "y"])
    assert_array_equal(student_pvalues(frame), student_pvalues(d))
    assert student_pvalues(frame["x"]) == student_pvalues(d[:, 0])
    assert effect_sizes(d[:, 0].tolist()) == effect_sizes(d[:, 0])
    assert_array_equal(
        randomization_pvalues(d.astype(np.float32).astype(np.float64), n_permutations=50),
        randomization_pvalues(np.asfortranarray(d.astype(np.float32)), n_permutations=50),
    )


def test_import_receval_does_not_import_scipy():
    code = (
        "import sys, receval, receval.comparison.significance, receval.comparison.intervals; "
        "assert 'scipy' not in sys.modules, sys.modules.keys()"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# ------------------------------------------------------------- without SciPy
def test_normal_functions_equal_scipy():
    """BCa's ndtr/ndtri (standard library) against SciPy's, tails and limits included."""
    from scipy.special import ndtr, ndtri

    x = np.concatenate([np.linspace(-40, 40, 20_001), [np.inf, -np.inf, np.nan, 0.0, -0.0]])
    got = np.array([_intervals.ndtr(float(t)) for t in x])
    assert_allclose(got, ndtr(x), rtol=1e-13, atol=1e-300, equal_nan=True)
    p = np.concatenate([np.linspace(0, 1, 20_001), [1e-300, 1e-20, 1 - 1e-16, np.nan, -0.1, 1.1]])
    got = np.array([_intervals.ndtri(float(t)) for t in p])
    assert_allclose(got, ndtri(p), rtol=1e-14, atol=0, equal_nan=True)


def test_tests_without_scipy_name_the_extra(monkeypatch):
    """Without SciPy the t-test and the Wilcoxon test say what to install; the rest
    (randomization, bootstrap, corrections) works."""
    from receval.exceptions import MissingDependencyError

    for name in [m for m in sys.modules if m == "scipy" or m.startswith("scipy.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "scipy", None)
    d = [0.1, 0.2, -0.05, 0.3, 0.15, 0.25]
    for fn, what in [(student_pvalues, "t-test"), (wilcoxon_pvalues, "Wilcoxon")]:
        with pytest.raises(
            MissingDependencyError, match=f"{what}.*pip install 'receval\\[stats\\]'"
        ):
            fn(d)
    assert 0 < randomization_pvalues(d, n_permutations=200) <= 1
    low, high = bootstrap_intervals(d, n_resamples=200)
    assert low <= high
    assert_allclose(adjust_pvalues([0.01, 0.04, 0.03], "bh"), [0.03, 0.04, 0.04])


# ---------------------------------------------------------------- smallest_pvalue
def _exact_sign_flip_pvalue(d: np.ndarray) -> float:
    """The exact two-sided sign-flip p-value: every one of the 2^n sign vectors."""
    n = d.size
    signs = 1 - 2 * ((np.arange(2**n)[:, None] >> np.arange(n)) & 1)
    sums = np.abs(signs @ d)
    return float((sums >= abs(d.sum()) - 1e-12).mean())


@pytest.mark.parametrize("n", range(1, 9))
def test_smallest_pvalue_is_the_minimum_over_enumerated_sign_flips(n):
    from receval.comparison.significance import smallest_pvalue

    rng = np.random.default_rng(n)
    candidates = [rng.normal(size=n) for _ in range(200)]
    candidates += [np.abs(c) for c in candidates[:50]]  # one sign: the most extreme data
    exact = min(_exact_sign_flip_pvalue(d) for d in candidates)
    assert smallest_pvalue(n, n_permutations=10**7) == exact == 2.0 / 2**n
    # the Monte Carlo test estimates the exact p-value, never below 1 / (B + 1)
    assert smallest_pvalue(n, n_permutations=9) == max(2.0 / 2**n, 0.1)
    mc = randomization_pvalues(np.abs(candidates[0]) + 0.1, n_permutations=20_000, seed=3)
    assert mc == pytest.approx(max(2.0 / 2**n, 1 / 20_001), abs=5 * math.sqrt(0.25 / 20_000))


@pytest.mark.parametrize("n", [1, 2, 3, 4, 6, 10, 13, 14, 20, 50, 51, 60])
def test_smallest_pvalue_bounds_scipy_wilcoxon(n):
    from receval.comparison.significance import smallest_pvalue

    bound = smallest_pvalue(n, test="wilcoxon")
    rng = np.random.default_rng(n)
    data = [np.arange(1.0, n + 1), np.ones(n), rng.normal(size=n), np.abs(rng.normal(size=n))]
    data += [np.round(np.abs(rng.normal(size=n)), 1) + 0.1 for _ in range(20)]  # tied
    pvalues = [wilcoxon_pvalues(d) for d in data]
    assert min(pvalues) >= bound * (1 - 1e-9)
    assert min(pvalues) == pytest.approx(bound, rel=1e-6)  # reached by one of them


def test_smallest_pvalue_student_and_bad_input():
    from receval.comparison.significance import smallest_pvalue

    assert smallest_pvalue(2, test="student") == 0.0
    assert student_pvalues([0.5, 0.5, 0.5]) == 0.0
    assert math.isnan(smallest_pvalue(1, test="student"))
    assert math.isnan(smallest_pvalue(0))
    with pytest.raises(InvalidParameterError, match="'n_users' parameter of smallest_pvalue"):
        smallest_pvalue(-1)
    with pytest.raises(InvalidParameterError, match="'test' parameter of smallest_pvalue"):
        smallest_pvalue(3, test="t")


@pytest.mark.parametrize("n", range(1, 9))
def test_smallest_one_sided_pvalue_is_the_minimum_over_enumerated_sign_flips(n):
    from receval.comparison.significance import smallest_pvalue

    rng = np.random.default_rng(n)
    candidates = [rng.normal(size=n) for _ in range(200)]
    candidates += [np.abs(c) for c in candidates[:50]]  # one sign: the most extreme data
    exact = min(oracle.exact_randomization_pvalue(d, alternative="greater") for d in candidates)
    for side in ("greater", "less"):
        assert smallest_pvalue(n, alternative=side, n_permutations=10**7) == exact == 1 / 2**n
        # the Monte Carlo test is never below 1 / (B + 1): 0.1 for 9 sign vectors
        assert smallest_pvalue(n, alternative=side, n_permutations=9) == max(1 / 2**n, 0.1)
        student = smallest_pvalue(n, test="student", alternative=side)
        assert student == 0.0 if n > 1 else math.isnan(student)
    with pytest.raises(InvalidParameterError, match="'alternative' parameter of smallest_pvalue"):
        smallest_pvalue(n, alternative="up")


@pytest.mark.parametrize("n", [1, 2, 3, 6, 13, 14, 20, 50, 51, 60])
def test_smallest_one_sided_pvalue_bounds_scipy_wilcoxon(n):
    from receval.comparison.significance import smallest_pvalue

    bound = smallest_pvalue(n, test="wilcoxon", alternative="greater")
    assert bound == pytest.approx(smallest_pvalue(n, test="wilcoxon") / 2, rel=1e-15)
    rng = np.random.default_rng(n)
    data = [np.arange(1.0, n + 1), np.ones(n), rng.normal(size=n), np.abs(rng.normal(size=n))]
    data += [np.round(np.abs(rng.normal(size=n)), 1) + 0.1 for _ in range(20)]  # tied
    pvalues = [wilcoxon_pvalues(d, alternative="greater") for d in data]
    assert min(pvalues) >= bound * (1 - 1e-9)
    assert min(pvalues) == pytest.approx(bound, rel=1e-6)  # reached by one of them


def _mean_against_ranks():
    """47 differences: 7 large gains, 40 small losses; mean > 0, signed ranks < 0."""
    return np.array([1.0] * 7 + [-1.0 / 6.0] * 40)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_wilcoxon_one_sided_equals_scipy(alternative):
    """The one-sided p-value follows the signed-rank statistic, as SciPy's."""
    rng = np.random.default_rng(7)
    cases = [_mean_against_ranks()]
    cases += [np.round(rng.normal(0.3, 1.0, size=n), 1) for n in (5, 9, 13, 20, 40, 70)]
    for d in cases:
        got = wilcoxon_pvalues(d, alternative=alternative)
        want = _quiet(stats.wilcoxon, d, alternative=alternative).pvalue
        assert got == pytest.approx(want, rel=1e-12, abs=0)
    d = _mean_against_ranks()
    assert wilcoxon_pvalues(d, alternative="greater") > 0.99
    assert wilcoxon_pvalues(d, alternative="less") < 0.002


def test_signed_rank_direction_is_the_statistics_side():
    rng = np.random.default_rng(3)
    d = _mean_against_ranks()
    assert d.mean() > 0 and _paired.signed_rank_direction(d) == -1.0
    table = np.round(rng.normal(0.1, 1.0, size=(30, 20)), 1)
    table[0, 0] = np.nan
    got = _paired.signed_rank_direction(table)
    for j in range(table.shape[1]):
        col = table[:, j][~np.isnan(table[:, j])]
        less = _quiet(stats.wilcoxon, col, alternative="less").pvalue
        greater = _quiet(stats.wilcoxon, col, alternative="greater").pvalue
        assert got[j] == np.sign(less - greater)


def test_wilcoxon_unknown_alternative():
    with pytest.raises(InvalidParameterError, match="alternative"):
        wilcoxon_pvalues([0.1, 0.2], alternative="bigger")


@pytest.mark.parametrize("scale", [1e-200, 1e160])
def test_effect_size_does_not_change_with_the_scale(scale):
    d = np.array([0.1, 0.2, 0.0, 0.3, 0.1, 0.2, -0.1])
    expected = d.mean() / d.std(ddof=1)  # 0.8496
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow or underflow on the way
        assert effect_sizes(d * scale) == pytest.approx(expected, rel=1e-14)
        both = effect_sizes(np.c_[d * scale, d], weights=np.c_[np.arange(1, 8), np.arange(1, 8)])
    assert both[0] == pytest.approx(both[1], rel=1e-14)

"""The paired statistics on differences near the ends of the float range.

Differences near 1e308 overflow a sum or a square, and differences near 5e-324
(below the normal range) lose digits in a mean; every statistic of
receval.comparison is a function of d up to its scale, so d times a power of two
must give the same p-values and effect sizes, and intervals times that power.
References: SciPy (ttest_1samp, bootstrap) on the rescaled differences,
statsmodels (multipletests) and the exact sign-flip enumeration of
tests/oracles/stats.py.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from scipy import stats
from statsmodels.stats.multitest import multipletests

from receval.comparison.intervals import bootstrap_intervals, effect_sizes
from receval.comparison.significance import (
    adjust_pvalues,
    randomization_pvalues,
    student_pvalues,
    wilcoxon_pvalues,
)
from receval.exceptions import UndefinedMetricWarning
from tests.oracles import stats as oracle

#: small integers: tied values, zeros, and exact at every power of two
INTEGERS = (-3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0)
#: powers of two that put 3 * 2**k anywhere from 5e-324 (2**-1074) to 1.3e308
EXPONENTS = st.integers(min_value=-1074, max_value=1021)
ALTERNATIVES = ("two-sided", "greater", "less")


def _statistics(d: np.ndarray, method: str) -> tuple[float, ...]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return (
            *(student_pvalues(d, alternative=a) for a in ALTERNATIVES),
            *(randomization_pvalues(d, alternative=a, n_permutations=300) for a in ALTERNATIVES),
            wilcoxon_pvalues(d),
            effect_sizes(d),
        )


@given(
    st.lists(st.sampled_from(INTEGERS), min_size=2, max_size=12),
    EXPONENTS,
    st.sampled_from(["percentile", "bca"]),
)
def test_statistics_do_not_change_with_a_power_of_two(values, exponent, method):
    d = np.array(values)
    assume(np.any(d != 0))
    scaled = np.ldexp(d, exponent)
    assert np.all(np.ldexp(scaled, -exponent) == d)  # exact: no overflow, no lost bit
    np.testing.assert_array_equal(_statistics(scaled, method), _statistics(d, method))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        low, high = bootstrap_intervals(d, method=method, n_resamples=200)
        got = bootstrap_intervals(scaled, method=method, n_resamples=200)
    np.testing.assert_array_equal(got, (np.ldexp(low, exponent), np.ldexp(high, exponent)))


@pytest.mark.parametrize(
    "d",
    [
        [1e300, 2e300, -1e300, 3e300],  # squares overflow: t read as 0, p 1.0
        [5e-324, 1e-323, -5e-324, 5e-324],  # squares underflow: s read as 0, p 0.0
        [-1.5e308, 1.5e308, 1e308],  # the sum overflows: mean inf
    ],
)
def test_student_at_the_ends_of_the_float_range_equals_scipy_on_rescaled_values(d):
    d = np.array(d)
    unit = np.ldexp(d, -np.frexp(np.abs(d).max())[1])
    for alternative in ALTERNATIVES:
        expected = stats.ttest_1samp(unit, 0.0, alternative=alternative).pvalue
        assert student_pvalues(d, alternative=alternative) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(
    "d",
    [[1.5e308, 1.5e308, -1e308, 1e308], [-1.5e308, 1.5e308, 1e308], [1e308, 1e308, 5e-324]],
)
@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_randomization_at_the_top_of_the_float_range_equals_exact_enumeration(d, alternative):
    # the sums overflowed to inf: p-values of 0.0 (outside (0, 1]) and the same on every side
    got = randomization_pvalues(d, alternative=alternative, n_permutations=20_000, seed=3)
    unit = [x / 2.0**1023 for x in d]
    expected = oracle.exact_randomization_pvalue(unit, alternative=alternative)
    assert abs(got - expected) < 4 * np.sqrt(expected * (1 - expected) / 20_000) + 1e-4


def test_effect_size_of_subnormal_differences_equals_the_oracle():
    # the mean 1.5e-323 / 4 rounded to 5e-324: d_z 0.77 instead of 0.60
    d = [5e-324, 1e-323, -5e-324, 5e-324]
    assert effect_sizes(d) == pytest.approx(oracle.effect_size([1.0, 2.0, -1.0, 1.0]), rel=1e-12)


def test_bca_interval_of_huge_differences_is_defined():
    # e**2 of the jackknife overflowed: acceleration nan, the interval nan with a
    # warning about an infinite bias correction
    d = np.array([1e300, 2e300, -1e300, 3e300, 0.5e300, 2.5e300])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        low, high = bootstrap_intervals(d)
    unit_low, unit_high = bootstrap_intervals(d / 1e300)
    assert_allclose([low, high], [unit_low * 1e300, unit_high * 1e300], rtol=1e-12)


#: p-values with ties, zeros, ones, subnormals and NaN (an undefined test)
PVALUES = (0.0, 5e-324, 1e-320, 1e-300, 0.001, 0.01, 0.04, 0.05, 1 / 3, 0.5, 1 - 2**-53, 1.0)


def _theirs(p: np.ndarray, method: str) -> np.ndarray:
    """SciPy's Benjamini-Hochberg and statsmodels' Holm and Bonferroni on the p-values
    that are not NaN, NaN elsewhere (as adjust_pvalues documents: out of the family)."""
    out = np.full(p.size, np.nan)
    valid = ~np.isnan(p)
    if method == "bh":
        out[valid] = stats.false_discovery_control(p[valid], method="bh")
    else:
        out[valid] = multipletests(p[valid], method=method)[1]
    return out


def _adjusted(p: np.ndarray, method: str) -> np.ndarray:
    if not np.isnan(p).any():
        return adjust_pvalues(p, method=method)
    with pytest.warns(UndefinedMetricWarning, match="they stay NaN and are not counted"):
        return adjust_pvalues(p, method=method)


@given(
    st.lists(st.sampled_from([*PVALUES, np.nan]), max_size=30),
    st.sampled_from(["holm", "bonferroni", "bh"]),
)
def test_adjust_pvalues_with_ties_zeros_ones_and_nan_are_the_references_floats(values, method):
    # Benjamini-Hochberg rounds p (m / i) as SciPy does, subnormals included
    # (statsmodels' fdr_bh rounds p / (i / m): one unit in the last place apart at times)
    p = np.array(values, dtype=float)
    assume((~np.isnan(p)).any())
    assert_array_equal(_adjusted(p, method), _theirs(p, method))


@pytest.mark.parametrize("method", ["holm", "bonferroni", "bh"])
@pytest.mark.parametrize("seed", range(4))
def test_adjust_pvalues_of_random_pvalues_are_the_references_floats(method, seed):
    rng = np.random.default_rng(seed)
    p = rng.random(int(rng.integers(2, 400))) ** rng.integers(1, 6)
    p[rng.random(p.size) < 0.3] = rng.choice(PVALUES)  # ties, at 0 or 1 too
    assert_array_equal(_adjusted(p, method), _theirs(p, method))
    p[:: max(1, p.size // 7)] = np.nan  # undefined tests: out of the family
    assert_array_equal(_adjusted(p, method), _theirs(p, method))

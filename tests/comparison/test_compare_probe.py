"""The paired statistics end to end: weights at the ends of the float range, and
compare / compare_predictions against the statistics of their per-user differences.

Every statistic reads weights in ratios (weighted means, a user's share), so
weights times a power of two must give the same p-values, intervals and effect
sizes, at 1e308 and at 5e-324 too. compare's and compare_predictions' numbers
must be those of paired_pvalues, bootstrap_intervals and effect_sizes applied to
the per-user differences computed independently (evaluate's per-user values,
scikit-learn's per-user AUC), whatever other metrics and models are compared.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from receval import (
    bootstrap_intervals,
    effect_sizes,
    paired_pvalues,
)

#: small integer weights: exact at every power of two, down to 5e-324 (2**-1074)
WEIGHTS = (0.0, 1.0, 2.0, 3.0, 5.0, 7.0)
#: powers of two that put 7 * 2**k anywhere from 5e-324 to 1.3e308
EXPONENTS = st.integers(min_value=-1074, max_value=1020)


def _statistics(d: np.ndarray, w: np.ndarray, method: str) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.hstack(
            [
                *(paired_pvalues(d, w, alternative=a, n_permutations=300, seed=2)
                  for a in ("two-sided", "greater", "less")),
                *bootstrap_intervals(d, w, method=method, n_resamples=200, seed=2),
                effect_sizes(d, w),
            ]
        )  # fmt: skip


@given(
    st.lists(st.tuples(st.floats(-3, 3, width=16), st.sampled_from(WEIGHTS)), min_size=2,
             max_size=12),
    EXPONENTS,
    st.sampled_from(["percentile", "bca"]),
)  # fmt: skip
def test_weights_times_a_power_of_two_give_the_same_statistics(rows, exponent, method):
    d = np.array([x for x, _ in rows])
    w = np.array([x for _, x in rows])
    assume(np.count_nonzero(w) >= 2)
    scaled = np.ldexp(w, exponent)
    assert np.all(np.ldexp(scaled, -exponent) == w)  # exact: no overflow, no lost bit
    np.testing.assert_array_equal(_statistics(d, scaled, method), _statistics(d, w, method))


@pytest.mark.parametrize("exponent", [1020, -1074, -1060])
def test_weights_near_the_ends_of_the_float_range_per_column(exponent):
    rng = np.random.default_rng(5)
    d = rng.normal(size=(40, 3))
    d[rng.random((40, 3)) < 0.2] = np.nan
    w = rng.integers(0, 8, size=(40, 3)).astype(float)
    # each column at its own scale: the heaviest 1e308, the lightest 5e-324
    scaled = np.ldexp(w, np.array([exponent, 0, -exponent // 2]))
    np.testing.assert_array_equal(_statistics(d, scaled, "bca"), _statistics(d, w, "bca"))

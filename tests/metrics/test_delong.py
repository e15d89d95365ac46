"""Partial AUC, DeLong intervals and DeLong's paired test: scikit-learn, oracle, hand cases."""

import math

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import roc_auc_score as sk_auc

import receval as rv
from receval import (
    InputValidationError,
    InvalidParameterError,
    UndefinedMetricWarning,
    delong_test,
    partial_auc,
    roc_auc_ci,
)
from receval.metrics._delong import midranks_auc, pairs_auc, ranks_auc
from tests.oracles import delong as oracle

SCORES = [0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0]


def _rows(seed, n=None, ties=True):
    rng = np.random.default_rng(seed)
    n = n or int(rng.integers(6, 60))
    y = rng.integers(0, 2, n)
    y[:4] = [0, 1, 0, 1]
    if ties:
        return y, rng.choice(SCORES, n), rng.choice(SCORES, n), rng
    return y, rng.random(n), rng.random(n), rng


# ------------------------------------------------------------------ partial AUC
@pytest.mark.parametrize("seed", range(30))
def test_partial_auc_equals_sklearn(seed):
    y, s, _, rng = _rows(seed, ties=seed % 2 == 0)
    w = None if seed % 3 == 0 else rng.random(len(y)) * 3
    for max_fpr in (0.01, 0.1, 0.25, 0.5, 0.8, 1.0):
        expected = sk_auc(y, s, sample_weight=w, max_fpr=max_fpr)
        assert partial_auc(y, s, max_fpr=max_fpr, sample_weight=w) == pytest.approx(
            expected, rel=1e-12
        )


def test_partial_auc_hand_computed():
    # ROC points (0,0) (0,.5) (.5,.5) (.5,1) (1,1); area up to fpr .5 = .25
    # McClish: .5 (1 + (.25 - .125) / (.5 - .125)) = 2/3
    assert partial_auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], max_fpr=0.5) == pytest.approx(2 / 3)
    assert partial_auc([0, 1], [0.0, 1.0], max_fpr=0.1) == 1.0  # perfect
    assert partial_auc([0, 1, 0, 1], [0.5] * 4, max_fpr=0.3) == pytest.approx(0.5)  # all tied
    y, s, _, _ = _rows(1)
    assert partial_auc(y, s, max_fpr=1.0) == pytest.approx(rv.roc_auc_score(y, s))


def test_partial_auc_errors_and_undefined():
    with pytest.raises(InvalidParameterError, match="'max_fpr' parameter of partial_auc"):
        partial_auc([0, 1], [0.1, 0.2], max_fpr=0.0)
    with pytest.raises(InvalidParameterError, match="'max_fpr' parameter of partial_auc"):
        partial_auc([0, 1], [0.1, 0.2], max_fpr=1.5)
    with pytest.raises(TypeError):
        partial_auc([0, 1], [0.1, 0.2])  # max_fpr is required
    with pytest.raises(InvalidParameterError, match="needs the parameter max_fpr"):
        rv.metric("partial_auc")
    with pytest.warns(UndefinedMetricWarning, match="single class"):
        assert np.isnan(partial_auc([1, 1], [0.1, 0.2], max_fpr=0.5))
    with pytest.raises(InputValidationError, match=r"partial_auc: y_score contains NaN"):
        partial_auc([0, 1], [0.1, np.nan], max_fpr=0.5)


def test_partial_auc_accumulator_merges():
    y, s, _, _ = _rows(5, n=400)
    expected = partial_auc(y, s, max_fpr=0.2)
    parts = [rv.metric("pauc", max_fpr=0.2).update(y[a:b], s[a:b])
             for a, b in [(0, 10), (10, 200), (200, 400)]]  # fmt: skip
    merged = parts[2].merge(parts[0]).merge(parts[1])
    assert merged.compute() == expected
    assert rv.compute("partial_auc", y, s, max_fpr=0.2) == expected


# ------------------------------------------------------------------ DeLong
@pytest.mark.parametrize("seed", range(25))
def test_delong_equals_pair_loop_oracle(seed):
    y, a, b, _ = _rows(seed, ties=seed % 2 == 0)
    alternative = ["two-sided", "greater", "less"][seed % 3]
    got = delong_test(y, a, b, alternative=alternative, confidence=0.9)
    want = oracle.delong_test(y, a, b, alternative, 0.9)
    assert got.auc_a == pytest.approx(want[0], rel=1e-12)
    assert got.auc_b == pytest.approx(want[1], rel=1e-12)
    assert got.statistic == pytest.approx(want[2], rel=1e-9)
    assert got.pvalue == pytest.approx(want[3], rel=1e-9, abs=1e-15)
    assert (got.low, got.high) == pytest.approx(want[4:], rel=1e-9, abs=1e-15)
    auc, low, high = roc_auc_ci(y, a, confidence=0.9)
    assert (auc, low, high) == pytest.approx(oracle.delong_interval(y, a, 0.9), rel=1e-9)
    assert auc == pytest.approx(rv.roc_auc_score(y, a))


def test_delong_hand_computed():
    # positives 0.8, 0.35; negatives 0.1, 0.4: V10 = (1, 1/2), V01 = (1, 1/2)
    # AUC = 3/4; var(V10) = var(V01) = 1/8 (divisor 1); Var = 1/16 + 1/16 = 1/8
    auc, low, high = roc_auc_ci([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], confidence=0.5)
    z = stats.norm.ppf(0.75)
    assert auc == 0.75
    assert low == pytest.approx(0.75 - z * math.sqrt(1 / 8))
    assert high == pytest.approx(min(1.0, 0.75 + z * math.sqrt(1 / 8)))
    # a tie counts one half: positives .5, .9; negatives .5, .1: V10 = (3/4, 1)
    auc, _, _ = roc_auc_ci([1, 1, 0, 0], [0.5, 0.9, 0.5, 0.1])
    assert auc == 0.875


def test_delong_pvalue_is_scipys_normal():
    y, a, b, _ = _rows(3, n=200, ties=False)
    res = delong_test(y, a, b)
    assert res.pvalue == pytest.approx(2 * stats.norm.sf(abs(res.statistic)), rel=1e-12)
    swapped = delong_test(y, b, a)
    assert swapped.statistic == pytest.approx(-res.statistic)
    assert swapped.pvalue == pytest.approx(res.pvalue)


def test_delong_degenerate_cases():
    y = [0, 1, 0, 1, 1, 0]
    s = [0.1, 0.7, 0.3, 0.6, 0.4, 0.5]
    same = (pytest.approx(8 / 9), pytest.approx(8 / 9), 0.0, 1.0, 0.0, 0.0)
    assert delong_test(y, s, s) == same
    monotone = np.exp(s)  # the same ranking
    assert delong_test(y, s, monotone).pvalue == 1.0
    assert delong_test(y, s, s, alternative="greater").pvalue == 0.5
    for bad in [{"alternative": "two.sided"}, {"confidence": 1.0}, {"confidence": 0}]:
        with pytest.raises(InvalidParameterError, match=next(iter(bad))):
            delong_test(y, s, s, **bad)
    with pytest.warns(UndefinedMetricWarning, match="single class"):
        assert all(math.isnan(x) for x in delong_test([1, 1], [0.1, 0.2], [0.3, 0.4]))
    with pytest.warns(UndefinedMetricWarning, match="at least 2 positives"):
        res = delong_test([0, 0, 1], [0.1, 0.2, 0.3], [0.3, 0.2, 0.1])
    assert (res.auc_a, res.auc_b) == (1.0, 0.0)
    assert all(math.isnan(x) for x in res[2:])
    with pytest.warns(UndefinedMetricWarning, match="at least 2 positives"):
        auc, low, high = roc_auc_ci([0, 0, 1], [0.1, 0.2, 0.3])
    assert auc == 1.0 and math.isnan(low) and math.isnan(high)
    with pytest.raises(InputValidationError, match="delong_test: y_true, score_a and score_b"):
        delong_test([0, 1], [0.1, 0.2], [0.1])
    with pytest.raises(
        InputValidationError,
        match=r"score_b contains NaN or infinity, the first at position 1 \(nan\); drop",
    ):
        delong_test([0, 1], [0.1, 0.2], [0.1, np.nan])


def test_roc_auc_ci_options():
    with pytest.raises(InvalidParameterError, match="'method' parameter of roc_auc_ci"):
        roc_auc_ci([0, 1], [0.1, 0.2], method="wald")
    with pytest.raises(InvalidParameterError, match="'confidence' parameter of roc_auc_ci"):
        roc_auc_ci([0, 1], [0.1, 0.2], confidence=1.0)
    with pytest.raises(InvalidParameterError, match="'n_resamples' parameter of roc_auc_ci"):
        roc_auc_ci([0, 1], [0.1, 0.2], method="bootstrap", n_resamples=0)


def _bootstrap_oracle(y, s, n_resamples, seed):
    """The stratified percentile bootstrap drawn the same way, each AUC by scikit-learn."""
    y, s = np.asarray(y), np.asarray(s)
    pos, neg = s[y == 1], np.sort(s[y == 0])
    rng = np.random.default_rng(seed)
    aucs = []
    draws_pos = rng.integers(0, len(pos), (n_resamples, len(pos)))
    draws_neg = rng.integers(0, len(neg), (n_resamples, len(neg)))
    for dp, dn in zip(draws_pos, draws_neg, strict=True):
        labels = np.r_[np.ones(len(dp)), np.zeros(len(dn))]
        aucs.append(sk_auc(labels, np.r_[pos[dp], neg[dn]]))
    return np.quantile(aucs, [0.025, 0.975])


def test_bootstrap_interval():
    y, s, _, _ = _rows(8, n=60)
    auc, low, high = roc_auc_ci(y, s, method="bootstrap", n_resamples=300, seed=4)
    assert auc == pytest.approx(rv.roc_auc_score(y, s))
    assert (low, high) == pytest.approx(tuple(_bootstrap_oracle(y, s, 300, 4)), rel=1e-12)
    assert roc_auc_ci(y, s, method="bootstrap", n_resamples=300, seed=4) == (auc, low, high)
    _, d_low, d_high = roc_auc_ci(y, s)
    assert abs(low - d_low) < 0.05 and abs(high - d_high) < 0.05  # both near the same width


@pytest.mark.parametrize("seed", [0, 3, 8])
def test_a_bootstrap_replicate_is_the_auc_of_its_resampled_rows_to_the_bit(seed):
    # one resample: the interval's two ends are its AUC, drawn as the bootstrap draws
    y, s, _, _ = _rows(seed, n=40)
    _, low, high = roc_auc_ci(y, s, method="bootstrap", n_resamples=1, seed=seed)
    pos, neg = s[y == 1], np.sort(s[y == 0])
    rng = np.random.default_rng(seed)
    draws_pos = rng.integers(0, len(pos), (1, len(pos)))[0]
    draws_neg = rng.integers(0, len(neg), (1, len(neg)))[0]
    assert low == high == midranks_auc(pos[draws_pos], neg[draws_neg])


def test_the_auc_of_pair_counts_past_2_53_is_divided_once():
    # P N past 2**53: 2 P N and 2 U as floats, divided, give 0.4999999999999998 (the
    # replicates' old arithmetic); the exact rational number rounds to the next float
    m, n = 2**27 + 1, 2**27 + 3
    two_u = m * n - 7
    assert two_u / (2.0 * m * n) == 0.4999999999999998
    assert pairs_auc(two_u, m, n) == 0.49999999999999983


def test_delong_divides_the_exact_rank_sum_once():
    # 3 positives ranked among 2**52 + 1 negatives: P N is past 2**53, so P N and the
    # sum of the ranks in floats were rounded before the division (0.37251738306419185)
    ranks = np.array([1440724599223218.0, 1661504206614156.0, 1930778636833414.0])
    n_neg = 2**52 + 1
    assert ranks_auc(ranks, n_neg) == 0.3725173830641919
    assert (ranks.sum() - 6.0) / (3 * n_neg) == 0.37251738306419185  # the float division
    # ties count one half: 2 positives at 0.5 beside a negative at 0.5 and one at 0.1
    assert midranks_auc(np.array([0.5, 0.5]), np.array([0.5, 0.1])) == 0.75

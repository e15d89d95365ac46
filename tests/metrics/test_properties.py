"""Property tests: kernels against oracles on tiny inputs with deliberately tied scores."""

import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from receval import (
    average_precision_score,
    break_even_point,
    gauc_score,
    group_auc,
    pr_auc_score,
    precision_recall_curve,
    roc_auc_score,
    roc_curve,
)
from tests.oracles import pointwise as oracle

TIED = [0.0, 0.1, 0.5, 0.9, 1.0]


@st.composite
def clicks(draw, weighted=False, grouped=False):
    """n in [2, 50], both classes present, scores from a five-value set (ties)."""
    n = draw(st.integers(2, 50))
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    y[0], y[1] = 0, 1
    s = np.array(draw(st.lists(st.sampled_from(TIED), min_size=n, max_size=n)))
    w = None
    if weighted:
        w = np.array(
            draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.0]), min_size=n, max_size=n))
        )
        w[0] = w[1] = 1.0
    g = np.array(draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))) if grouped else None
    return y, s, w, g


@given(clicks(weighted=True))
def test_auc_equals_pair_loop(data):
    y, s, w, _ = data
    assert math.isclose(
        roc_auc_score(y, s, sample_weight=w), oracle.pair_auc(y, s, w), abs_tol=1e-12
    )


@given(clicks())
def test_auc_of_negated_scores_is_complement(data):
    y, s, _, _ = data
    assert np.isclose(roc_auc_score(y, -s), 1 - roc_auc_score(y, s))


@given(clicks())
def test_swapping_classes_is_complement(data):
    y, s, _, _ = data
    assert np.isclose(roc_auc_score(1 - y, s), 1 - roc_auc_score(y, s))


@given(clicks(weighted=True))
def test_area_under_roc_curve_equals_auc(data):
    y, s, w, _ = data
    fpr, tpr, _ = roc_curve(y, s, sample_weight=w)
    assert np.isclose(np.trapezoid(tpr, fpr), roc_auc_score(y, s, sample_weight=w))


@given(clicks(weighted=True))
def test_pr_metrics_equal_oracles_and_bounds(data):
    y, s, w, _ = data
    ap = average_precision_score(y, s, sample_weight=w)
    assert math.isclose(ap, oracle.average_precision(y, s, w), abs_tol=1e-12)
    area = pr_auc_score(y, s, sample_weight=w)
    assert math.isclose(area, oracle.pr_auc_trapezoid(y, s, w), abs_tol=1e-12)
    assert 0 <= ap <= 1 and 0 <= area <= 1
    _, recall, thresholds = precision_recall_curve(y, s, sample_weight=w)
    assert np.all(np.diff(recall) <= 0) and np.all(np.diff(thresholds) > 0)


@given(clicks())
def test_break_even_point_equals_expected_r_precision(data):
    y, s, _, _ = data
    assert math.isclose(break_even_point(y, s), oracle.break_even_expected(y, s), abs_tol=1e-12)


@given(clicks(weighted=True, grouped=True))
def test_gauc_equals_group_loop(data):
    y, s, w, g = data
    expected = oracle.gauc(y, s, g, "impressions", w)
    report = group_auc(y, s, groups=g, sample_weight=w)
    if math.isnan(expected):
        assert math.isnan(report.score)
    else:
        assert math.isclose(report.score, expected, abs_tol=1e-12)
    assert report.n_rows.sum() == len(y)
    assert report.n_rows_skipped == report.n_rows[np.isnan(report.auc)].sum()


@given(clicks())
def test_gauc_of_one_group_is_auc(data):
    y, s, _, _ = data
    assert math.isclose(gauc_score(y, s, groups=np.zeros(len(y))), roc_auc_score(y, s))


@given(clicks(grouped=True), st.randoms(use_true_random=False))
def test_gauc_merged_partitions_equal_one_pass(data, random):
    # per-group AUC is a function of the group's rows alone: splitting the log by
    # group and evaluating the parts gives the same per-group values
    y, s, _, g = data
    whole = group_auc(y, s, groups=g)
    ids = np.unique(g).tolist()
    part = set(random.sample(ids, len(ids) // 2))
    mask = np.isin(g, list(part))
    for m in (mask, ~mask):
        if m.any():
            sub = group_auc(y[m], s[m], groups=g[m])
            for key, auc in zip(sub.groups, sub.auc, strict=True):
                full = whole.auc[whole.groups.tolist().index(key)]
                assert (math.isnan(auc) and math.isnan(full)) or math.isclose(auc, full)

"""GAUC: hand-computed values, the per-group pair-loop oracle, the report, errors."""

import math
import re
import warnings

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score as sk_auc

import receval as rv
from receval import gauc_score, group_auc, roc_auc_score
from receval.exceptions import InputValidationError, InvalidParameterError, UndefinedMetricWarning
from tests.oracles import pointwise as oracle

Y = [1, 0, 0, 0, 1, 1, 0]
S = [0.9, 0.3, 0.5, 0.6, 0.4, 0.8, 0.2]
U = ["a", "a", "a", "b", "b", "b", "c"]


def _log(seed, n=None, weighted=False, positive_rate=None):
    rng = np.random.default_rng(seed)
    n = n or int(rng.integers(20, 300))
    n_groups = int(rng.integers(1, 25))
    g = rng.integers(0, n_groups, n) * 7 + 3
    rate = positive_rate if positive_rate is not None else rng.uniform(0.05, 0.95)
    y = (rng.random(n) < rate).astype(np.int8)
    s = rng.choice([0.0, 0.2, 0.5, 0.7, 1.0], n)
    w = None
    if weighted:
        w = rng.uniform(0, 2, n)
        w[rng.random(n) < 0.1] = 0.0
    return y, s, g, w


def test_hand_computed_weightings():
    # a: AUC 1 (3 rows, 1 click); b: AUC 0.5 (3 rows, 2 clicks); c: no click, skipped
    assert gauc_score(Y, S, groups=U) == 0.75
    assert gauc_score(Y, S, groups=U, weighting="clicks") == pytest.approx(2 / 3)
    assert gauc_score(Y, S, groups=U, weighting="uniform") == 0.75
    assert gauc_score(Y, S, groups=U, weighting={"a": 1, "b": 3, "c": 100}) == pytest.approx(
        (1 + 1.5) / 4
    )
    per_row = [1, 1, 1, 3, 3, 3, 100]
    assert gauc_score(Y, S, groups=U, weighting=per_row) == pytest.approx((1 + 1.5) / 4)


def test_report_counts_skipped_groups_and_rows():
    y = [1, 0, 1, 1, 0, 0, 0, 1, 0]
    s = [0.9, 0.1, 0.5, 0.6, 0.3, 0.2, 0.4, 0.8, 0.7]
    g = ["u1", "u1", "u2", "u2", "u3", "u3", "u3", "u4", "u4"]
    report = group_auc(y, s, groups=g)
    assert report.n_groups == 4
    assert report.n_groups_skipped == 2  # u2 all clicks, u3 no click
    assert report.n_rows_skipped == 5
    assert list(report.groups) == ["u1", "u2", "u3", "u4"]
    np.testing.assert_array_equal(report.skipped, [False, True, True, False])
    assert report.auc[0] == 1.0 and report.auc[3] == 1.0
    assert report.score == 1.0
    frame = report.to_frame()
    assert isinstance(frame, pd.DataFrame)
    assert list(frame.columns) == ["group", "auc", "weight", "n_rows", "skipped"]
    assert frame["skipped"].sum() == 2
    assert isinstance(report.to_frame(backend="polars"), pl.DataFrame)


@pytest.mark.parametrize("seed", range(15))
@pytest.mark.parametrize("weighting", ["impressions", "clicks", "uniform", "custom"])
@pytest.mark.parametrize("weighted", [False, True])
def test_equals_per_group_pair_loop(seed, weighting, weighted):
    y, s, g, w = _log(seed, weighted=weighted)
    if weighting == "custom":
        custom = {k: float(1 + (k % 5)) for k in np.unique(g).tolist()}
        expected = oracle.gauc(y, s, g, custom, w)
        weighting = custom
    else:
        expected = oracle.gauc(y, s, g, weighting, w)
    if math.isnan(expected):
        with pytest.warns(UndefinedMetricWarning):
            assert math.isnan(gauc_score(y, s, groups=g, weighting=weighting, sample_weight=w))
    else:
        assert gauc_score(y, s, groups=g, weighting=weighting, sample_weight=w) == pytest.approx(
            expected, abs=1e-12
        )


@pytest.mark.parametrize("seed", range(5))
def test_majority_positive_logs_use_the_other_class(seed):
    y, s, g, _ = _log(seed, positive_rate=0.9)
    assert gauc_score(y, s, groups=g) == pytest.approx(oracle.gauc(y, s, g), abs=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_per_group_auc_equals_sklearn(seed):
    y, s, g, _ = _log(seed, n=400)
    report = group_auc(y, s, groups=g)
    for key, auc in zip(report.groups, report.auc, strict=True):
        m = g == key
        if len(set(y[m].tolist())) == 2:
            assert auc == pytest.approx(sk_auc(y[m], s[m]), abs=1e-12)
        else:
            assert math.isnan(auc)


def test_one_group_equals_auc():
    y, s, _, w = _log(1, weighted=True)
    y[:2] = [0, 1]
    assert gauc_score(y, s, groups=np.zeros(len(y)), sample_weight=w) == pytest.approx(
        roc_auc_score(y, s, sample_weight=w), abs=1e-12
    )


@pytest.mark.parametrize(
    "make",
    [
        list,
        np.array,
        lambda u: np.array(u, dtype=object),
        pd.Series,
        lambda u: pd.Series(u, dtype="string[pyarrow]"),
        pl.Series,
        pa.array,
        lambda u: pa.chunked_array([u[:2], u[2:]]),
    ],
)
def test_group_id_containers(make):
    assert gauc_score(Y, S, groups=make(U)) == 0.75


def test_integer_float_and_wide_ids():
    ints = [10, 10, 10, 20, 20, 20, 30]
    assert gauc_score(Y, S, groups=ints) == 0.75
    assert gauc_score(Y, S, groups=np.array(ints, dtype=float)) == 0.75
    wide = [10**15, 10**15, 10**15, -(10**15), -(10**15), -(10**15), 7]
    assert gauc_score(Y, S, groups=wide) == 0.75
    report = group_auc(Y, S, groups=wide)
    assert report.groups.tolist() == [10**15, -(10**15), 7]


def test_errors():
    with pytest.raises(
        InvalidParameterError,
        match=r"^The 'weighting' parameter of gauc_score "
        r"must be one of \['clicks', 'impressions', 'uniform'\]. "
        r"Got 'views' instead.$",
    ):
        gauc_score(Y, S, groups=U, weighting="views")
    with pytest.raises(
        InputValidationError,
        match=r"^gauc_score: y_true, y_score and groups must "
        r"have the same length. Got lengths \[7, 7, 6\].$",
    ):
        gauc_score(Y, S, groups=U[:6])
    with pytest.raises(
        InputValidationError,
        match=r"^gauc_score: y_true must be binary. Got values \[0, 1, 2\]; pass pos_label "
        r"to say which value is positive.$",
    ):
        gauc_score([0, 1, 2], [0.1, 0.2, 0.3], groups=[1, 1, 1])
    with pytest.raises(
        InputValidationError,
        match=r"^gauc_score: y_score contains NaN or infinity, the first at position 1 \(nan\); "
        r"drop those rows or replace the values with finite numbers first\.$",
    ):
        gauc_score([0, 1], [0.1, np.nan], groups=[1, 1])
    with pytest.raises(InputValidationError, match="groups contains 1 missing value"):
        gauc_score([0, 1], [0.1, 0.2], groups=["a", None])
    with pytest.raises(InputValidationError, match="weighting has no weight for groups"):
        gauc_score(Y, S, groups=U, weighting={"a": 1})
    with pytest.raises(InputValidationError, match="weighting must be constant within each group"):
        gauc_score(Y, S, groups=U, weighting=[1, 2, 1, 1, 1, 1, 1])
    with pytest.raises(InputValidationError, match="gauc_score: y_true is empty"):
        gauc_score([], [], groups=[])


def test_all_groups_single_class_is_nan_with_warning():
    with pytest.warns(
        UndefinedMetricWarning,
        match=r"no group has both a positive and a "
        r"negative sample \(2 groups, all skipped\)",
    ):
        assert math.isnan(gauc_score([1, 1, 0], [0.1, 0.2, 0.3], groups=[1, 1, 2]))


def _pair_loop_aucs(y, s, g, ids):
    """Each group's AUC from its pairs counted one by one (nan without both classes)."""
    out = []
    for key in ids:
        m = g == key
        pos, neg = s[m & (y == 1)], s[m & (y == 0)]
        above, tied = pos[:, None] > neg[None, :], pos[:, None] == neg[None, :]
        two_u = 2 * int(above.sum()) + int(tied.sum())
        pairs = len(pos) * len(neg)
        out.append(two_u / (2.0 * pairs) if pairs else math.nan)
    return np.array(out)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n_groups=st.integers(1, 40),
    rows_per_group=st.integers(1, 60),
    positive_rate=st.sampled_from([0.05, 0.3, 0.7, 0.95]),
    weighted=st.booleans(),
)
def test_rows_in_any_order_give_each_group_the_same_auc(
    seed, n_groups, rows_per_group, positive_rate, weighted
):
    """Interleaved groups (a shuffled log: the core groups each block's rows before
    it searches them) give every group the AUC of its pairs counted one by one, and
    the same floats as the rows sorted by group, with ties, either class the rarer,
    and weights."""
    rng = np.random.default_rng(seed)
    n = n_groups * rows_per_group
    g = rng.integers(0, n_groups, n) * 3 - 7
    y = (rng.random(n) < positive_rate).astype(np.int8)
    s = rng.choice([0.0, -0.0, 0.25, 0.5, 0.75, 1.0], n)
    w = rng.choice([0.5, 1.0, 2.0, 3.0], n) if weighted else None
    order = np.argsort(g, kind="stable")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        shuffled = group_auc(y, s, groups=g, sample_weight=w)
        grouped = group_auc(y[order], s[order], groups=g[order],
                            sample_weight=None if w is None else w[order])  # fmt: skip
    by_id = np.argsort(shuffled.groups)
    np.testing.assert_array_equal(shuffled.groups[by_id], grouped.groups)
    np.testing.assert_array_equal(shuffled.auc[by_id], grouped.auc)
    np.testing.assert_array_equal(shuffled.weight[by_id], grouped.weight)
    if not weighted:
        np.testing.assert_array_equal(shuffled.auc, _pair_loop_aucs(y, s, g, shuffled.groups))
    with warnings.catch_warnings():  # the one call of the core on NumPy arrays
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        one = gauc_score(y, s, groups=g, sample_weight=w)
    np.testing.assert_array_equal(one, shuffled.score)


# ------------------------------------------------------------------ weights of any scale
def _spread_weights(seed, low, high, n=40):
    """Rows of ten groups of four, weights 10**uniform(low, high)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    s = rng.choice([0.2, 0.5, 0.8], n)
    g = np.repeat(np.arange(n // 4), 4)
    return y, s, g, 10.0 ** rng.uniform(low, high, n)


@settings(max_examples=25, deadline=None)
@given(
    st.integers(0, 2**16),
    st.sampled_from([(-25, 25), (-320, -300), (290, 300), (-300, 300), (-3, 3)]),
    st.sampled_from(["impressions", "clicks"]),
    st.integers(1, 9),
)
def test_whole_group_batches_of_any_weight_scale_give_the_function(
    tmp_path_factory, seed, span, weighting, rows
):
    """A scan cuts whole groups into batches whose weights span other powers of two
    than all the rows' (each batch's sums are kept at its own scale): the same GAUC,
    and each group's reported weight is its weights' sum, unscaled (a batch whose
    weights lay beyond 2**64 or below 2**-64 used to add its groups at another scale)."""
    import pyarrow.parquet as pq

    import receval as rv

    y, s, g, w = _spread_weights(seed, *span)
    assume(any(len(set(y[g == k].tolist())) == 2 for k in range(10)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # weights beyond 126 bits: the rounding warning
        expected = gauc_score(y, s, groups=g, sample_weight=w, weighting=weighting)
        path = tmp_path_factory.mktemp("spread") / "rows.parquet"
        pq.write_table(pa.table({"y": y, "s": s, "g": g, "w": w}), path)
        sc = rv.scan(str(path), batch_rows=rows)
        got = gauc_score(sc["y"], sc["s"], groups=sc["g"], sample_weight=sc["w"],
                         weighting=weighting)  # fmt: skip
        acc = rv.metric("gauc", whole_groups=True, weighting=weighting)
        for a in range(0, len(y), 8):
            acc.update(y[a : a + 8], s[a : a + 8], groups=g[a : a + 8],
                       sample_weight=w[a : a + 8])  # fmt: skip
        report = group_auc(y, s, groups=g, sample_weight=w)
        scanned = group_auc(sc["y"], sc["s"], groups=sc["g"], sample_weight=sc["w"])
        computed = acc.compute()  # the rounding warning, if any, is compute's
    assert got == expected
    assert computed == expected
    true = np.array([math.fsum(w[g == k].tolist()) for k in range(10)])
    np.testing.assert_allclose(report.weight, true, rtol=1e-15, atol=0)
    np.testing.assert_array_equal(scanned.weight, report.weight)
    assert scanned.score == report.score


def test_scan_of_weights_beyond_two_to_the_64_is_the_function(tmp_path):
    """The example that found it: weights 10**uniform(-25, 25)."""
    y, s, g, w = _spread_weights(0, -25, 25)
    pq.write_table(pa.table({"y": y, "s": s, "g": g, "w": w}), tmp_path / "rows.parquet")
    sc = rv.scan(str(tmp_path / "rows.parquet"), batch_rows=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = gauc_score(y, s, groups=g, sample_weight=w)
        got = gauc_score(sc["y"], sc["s"], groups=sc["g"], sample_weight=sc["w"])
    assert expected == 0.03359573215995758
    assert got == expected  # was 0.9999999999993983


@pytest.mark.parametrize("scale", [1e308, 2.0**1000, 2.0**-1000, 5e-324])
def test_custom_weighting_of_any_scale(scale):
    """Group weights the caller gives (a mapping or per-row array) weigh the mean as their
    ratios do, whatever their scale: in one call, per batch of whole groups, in an
    accumulator that holds the rows, and in the report (weights of 1e308 overflowed their
    sum to inf and gave 0.0; weights of 5e-324 rounded the weighted sum and gave 0.5)."""
    y, s, g = [1, 0, 1, 0], [0.9, 0.1, 0.5, 0.5], [1, 1, 2, 2]  # AUCs 1 and 0.5
    mapping, per_row = {1: scale, 2: scale}, [scale] * 4
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert gauc_score(y, s, groups=g, weighting=mapping) == 0.75
        assert gauc_score(y, s, groups=g, weighting=per_row) == 0.75
        report = group_auc(y, s, groups=g, weighting=mapping)
        for whole_groups in (True, False):
            acc = rv.metric("gauc", whole_groups=whole_groups, weighting=mapping)
            acc.update(y[:2], s[:2], groups=g[:2])
            acc.update(y[2:], s[2:], groups=g[2:])
            assert acc.compute() == 0.75, whole_groups
    assert report.score == 0.75
    np.testing.assert_array_equal(report.weight, [scale, scale])


def test_report_of_a_group_weight_beyond_float64_says_inf_quietly():
    # each group's sample weights sum to 2e308: the report's weight is inf (the GAUC is
    # exact); numpy's "overflow encountered in ldexp" RuntimeWarning escaped
    y, s, g, w = [1, 0, 1, 0], [0.9, 0.1, 0.5, 0.5], [1, 1, 2, 2], [1e308] * 4
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        report = group_auc(y, s, groups=g, sample_weight=w)
        acc = rv.metric("gauc")
        acc.update(y, s, groups=g, sample_weight=w)
        assert acc.compute() == 0.75
    assert report.score == 0.75
    np.testing.assert_array_equal(report.weight, [math.inf, math.inf])


@pytest.mark.parametrize(
    "make", [pd.Series, pl.Series, pa.array, lambda w: pa.chunked_array([w[:2], w[2:]])]
)
@pytest.mark.parametrize("ids", [[0, 0, 1, 1], ["u", "u", "v", "v"]])
def test_series_of_per_row_weights_is_no_mapping(make, ids):
    """A Series (which has ``items()``) or an Arrow array of weights gives each row its
    group's weight, as a list does; a pandas Series was read as a mapping from group to
    weight (its index): 0.5 instead of 0.25, or "no weight for groups" with string ids."""
    y, s, w = [1, 0, 0, 1], [0.9, 0.1, 0.9, 0.1], [1.0, 1.0, 3.0, 3.0]  # AUCs 1 and 0
    weighting = make(w)
    assert gauc_score(y, s, groups=ids, weighting=weighting) == 0.25
    np.testing.assert_array_equal(group_auc(y, s, groups=ids, weighting=weighting).weight, [1, 3])
    assert rv.compute("gauc", y, s, groups=ids, weighting=weighting) == 0.25
    for whole_groups in (True, False):
        acc = rv.metric("gauc", whole_groups=whole_groups)
        assert acc.update(y, s, groups=ids, weighting=weighting).compute() == 0.25


def test_a_series_indexed_by_group_is_per_row_and_the_message_says_so():
    # it was read as a mapping from group (its index) to weight
    by_group = pd.Series({"u": 1.0, "v": 3.0})
    with pytest.raises(
        InputValidationError,
        match=r"^gauc_score: weighting must give one weight per row \(its group's weight\)\. "
        r"Got 2 weights for 4 rows; map groups to weights with a dict \(a Series is per-row: "
        r"Series\.to_dict\(\)\)\.$",
    ):
        gauc_score([1, 0, 0, 1], [0.9, 0.1, 0.9, 0.1], groups=list("uuvv"), weighting=by_group)
    got = gauc_score([1, 0, 0, 1], [0.9, 0.1, 0.9, 0.1], groups=list("uuvv"),
                     weighting=by_group.to_dict())  # fmt: skip
    assert got == 0.25


@pytest.mark.parametrize("weighting", [pd.Series([1.0, 3.0]), np.array([1.0, 3.0])])
def test_accumulator_weighting_is_a_name_or_mapping(weighting):
    # a Series was taken as the accumulator's mapping; an array raised numpy's ValueError
    with pytest.raises(
        InvalidParameterError,
        match=r"^The 'weighting' parameter of receval.metric\('gauc'\) must be one of "
        r"\['clicks', 'impressions', 'uniform'\] or a mapping from group to weight. Got "
        rf"{type(weighting).__name__} instead; pass per-row group weights to "
        r"update\(\.\.\., weighting=\.\.\.\)\.$",
    ):
        rv.metric("gauc", weighting=weighting)


@pytest.mark.parametrize(
    ("groups", "weighting", "shown"),
    [
        (["a", "a", "a", "b", "b"], [1.0, 1.0, 1.0, math.nan, 1.0], "3 (nan)"),
        (["a", "a", "a", "b", "b"], [1.0, 1.0, 1.0, math.inf, math.inf], "3 (inf)"),
        (["b", "a", "b", "a", "b"], [1.0, 2.0, 1.0, 2.0, -math.inf], "4 (-inf)"),
    ],
)
def test_non_finite_weighting_names_the_callers_row(groups, weighting, shown):
    """A NaN or infinite per-row weight is named at the caller's row, before the check that
    each group's weights agree (which named a NaN's group as varying), in one call and in
    an accumulator's update (the position was the group's, not the row's)."""
    y, s = [1, 0, 1, 0, 1], [0.9, 0.1, 0.5, 0.4, 0.3]
    message = (
        rf"weighting contains NaN or infinity, the first at position {re.escape(shown)}; drop "
        r"those rows or replace the values with finite numbers first\.$"
    )
    with pytest.raises(InputValidationError, match=r"^gauc_score: " + message):
        gauc_score(y, s, groups=groups, weighting=weighting)
    for whole_groups in (True, False):
        acc = rv.metric("gauc", whole_groups=whole_groups)
        with pytest.raises(
            InputValidationError, match=r"^Accumulator.update of 'gauc': " + message
        ):
            acc.update(y, s, groups=groups, weighting=weighting)

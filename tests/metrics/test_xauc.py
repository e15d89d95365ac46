"""XAUC: hand cases, the O(n^2) oracle (hypothesis, tied and hard values), every entry point."""

import json
import math
import pickle
import re
import warnings

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import receval as rv
from receval import xauc_score
from receval._kernels import compiled
from receval.exceptions import InputValidationError, UndefinedMetricWarning
from tests.oracles.pointwise import pair_auc
from tests.oracles.xauc import pair_grouped_xauc, pair_xauc

UNDEFINED = (
    "xauc_score: every y_true is equal, so no pair of rows has different targets and XAUC "
    "is undefined (returned as nan)."
)


# ------------------------------------------------------------------ hand cases
def test_every_pair_in_order_and_one_pair_swapped():
    watch = [3.0, 12.0, 7.5, 0.0]
    assert xauc_score(watch, [0.2, 0.9, 0.4, 0.1]) == 1.0
    assert xauc_score(watch, [0.2, 0.4, 0.9, 0.1]) == 5 / 6  # (12, 7.5) swapped
    assert xauc_score(watch, [0.1, 0.2, 0.4, 0.9]) == 2 / 6  # (3, 12) and (3, 7.5) in order
    assert xauc_score(watch, [-0.2, -0.9, -0.4, -0.1]) == 0.0


def test_tied_scores_count_one_half():
    assert xauc_score([1.0, 2.0, 2.0], [0.5, 0.5, 0.7]) == 0.75  # (1, 2) tie, (1, 2) in order
    assert xauc_score([1.0, 2.0, 3.0], [0.4, 0.4, 0.4]) == 0.5


def test_pairs_with_equal_targets_are_left_out():
    # (2, 2) has equal targets: whatever its scores, it is not a pair
    assert xauc_score([1.0, 2.0, 2.0], [0.1, 0.9, 0.5]) == 1.0
    assert xauc_score([1.0, 2.0, 2.0], [0.1, 0.5, 0.9]) == 1.0


def test_all_equal_targets_are_nan_with_a_warning():
    with pytest.warns(UndefinedMetricWarning, match=re.escape(UNDEFINED)):
        assert math.isnan(xauc_score([4.0, 4.0, 4.0], [0.1, 0.5, 0.9]))
    with pytest.warns(UndefinedMetricWarning):  # the other rows weigh nothing
        assert math.isnan(xauc_score([1.0, 4.0, 4.0], [0.1, 0.5, 0.9], sample_weight=[0, 1, 2]))
    with pytest.warns(UndefinedMetricWarning):
        assert math.isnan(rv.metric("xauc").compute())  # no row at all


def test_a_pair_weighs_the_product_of_its_weights():
    # pairs (1, 2): 1 * 2 in order; (1, 3): 1 * 3.5 in order; (2, 3): 2 * 3.5 tied
    assert xauc_score([1.0, 2.0, 3.0], [1, 2, 2], sample_weight=[1, 2, 3.5]) == 9 / 12.5
    y, s = [3.0, 12.0, 7.5, 0.0], [0.2, 0.4, 0.9, 0.1]
    assert xauc_score(y, s, sample_weight=[1, 2, 1, 3]) == 15 / 17


def test_zero_weight_is_a_removed_row_and_unit_weights_are_no_weights():
    y, s = np.array([3.0, 12.0, 7.5, 0.0, 5.0]), np.array([0.2, 0.4, 0.9, 0.1, 0.95])
    assert xauc_score(y, s, sample_weight=[1, 1, 1, 1, 0]) == xauc_score(y[:4], s[:4])
    assert xauc_score(y, s, sample_weight=np.ones(5)) == xauc_score(y, s)
    assert xauc_score(y, s, sample_weight=np.full(5, 1e300)) == xauc_score(y, s)


def test_weights_far_apart_keep_their_pairs():
    # one pair, of weight 1e-200 * 1e200: neither weight alone is near 1
    assert xauc_score([1.0, 2.0], [0.1, 0.2], sample_weight=[1e-200, 1e200]) == 1.0
    # pairs of weight 1 (one in order, one not) and one of 1e-400, beyond float64
    w = [1e200, 1e-200, 1e-200]
    assert xauc_score([1.0, 2.0, 3.0], [0.2, 0.3, 0.1], sample_weight=w) == 0.5
    with pytest.raises(InputValidationError, match="sample_weight spans too many powers"):
        xauc_score([1.0, 2.0], [0.1, 0.2], sample_weight=[1e-300, 1e300])


def test_binary_targets_give_the_roc_auc():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 200)
    s = rng.choice([0.0, 0.1, 0.5, 0.9], 200)
    w = rng.integers(1, 4, 200) + rng.random(200)
    assert xauc_score(y, s) == rv.roc_auc_score(y, s)
    assert xauc_score(y, s, sample_weight=w) == pytest.approx(pair_auc(y, s, w), rel=1e-13)


def test_signed_zeros_are_one_value():
    assert xauc_score([0.0, -0.0, 1.0], [0.3, 0.3, 0.3]) == 0.5
    assert xauc_score([1.0, 2.0], [-0.0, 0.0]) == 0.5


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"y_true": [1.0, np.nan], "y_score": [0.1, 0.2]}, "xauc_score: y_true contains NaN"),
        ({"y_true": [1.0, 2.0], "y_score": [0.1, np.inf]}, "xauc_score: y_score contains NaN"),
        ({"y_true": [1.0, 2.0], "y_score": [0.1]}, "must have the same length"),
        ({"y_true": [], "y_score": []}, "xauc_score: y_true is empty"),
        ({"y_true": [1.0, 2.0], "y_score": [0.1, 0.2], "sample_weight": [1, -1]},
         "sample_weight must be non-negative"),
    ],
)  # fmt: skip
def test_bad_input_names_the_argument(kwargs, message):
    with pytest.raises(InputValidationError, match=re.escape(message)):
        xauc_score(**kwargs)


# ------------------------------------------------------------------ the oracle
HARD = [-1e300, -2.5, -5e-324, -0.0, 0.0, 5e-324, 1.0, 1.0 + 2**-52, 3.0, 1e300]


@st.composite
def rows(draw, weighted=False):
    n = draw(st.integers(1, 40))
    values = st.sampled_from(HARD)
    y = np.array(draw(st.lists(values, min_size=n, max_size=n)))
    s = np.array(draw(st.lists(values, min_size=n, max_size=n)))
    w = None
    if weighted:
        weights = st.sampled_from([0.0, 0.5, 1.0, 3.0, 1e-200, 1e200])
        w = np.array(draw(st.lists(weights, min_size=n, max_size=n)))
    return y, s, w


@given(rows())
def test_equals_the_pair_loop(data):
    y, s, _ = data
    expected = pair_xauc(y, s)
    assume(not (isinstance(expected, float) and math.isnan(expected)))
    assert xauc_score(y, s) == float(expected)  # the exact ratio, rounded once


@given(rows(weighted=True))
def test_weighted_equals_the_pair_loop(data):
    y, s, w = data
    expected = pair_xauc(y, s, w)
    assume(not (isinstance(expected, float) and math.isnan(expected)))
    assert xauc_score(y, s, sample_weight=w) == pytest.approx(float(expected), rel=1e-12)


@given(rows(weighted=True))
def test_undefined_exactly_where_no_pair_has_different_targets(data):
    y, s, w = data
    expected = pair_xauc(y, s, w)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = xauc_score(y, s, sample_weight=w)
    undefined = isinstance(expected, float) and math.isnan(expected)
    assert math.isnan(got) == undefined
    assert any(c.category is UndefinedMetricWarning for c in caught) == undefined


@given(rows(weighted=True), st.randoms(use_true_random=False))
def test_any_split_and_merge_order_give_the_function(data, rnd):
    y, s, w = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        expected = xauc_score(y, s, sample_weight=w)
        cuts = sorted(rnd.sample(range(len(y) + 1), min(3, len(y) + 1)))
        bounds = list(zip([0, *cuts], [*cuts, len(y)], strict=True))
        parts = [rv.metric("xauc").update(y[a:b], s[a:b], sample_weight=w[a:b])
                 for a, b in bounds]  # fmt: skip
        rnd.shuffle(parts)
        merged = parts[0]
        for part in parts[1:]:
            merged.merge(part)
        got = merged.compute()
    assert got == expected or (math.isnan(got) and math.isnan(expected))


def test_the_core_counts_every_pair_of_each_group():
    rng = np.random.default_rng(3)
    for n in (1, 2, 3, 7, 8, 9, 300):
        codes = rng.integers(0, 3, n)
        y, s = rng.integers(0, 5, n).astype(float), rng.integers(0, 6, n).astype(float)
        counts = rng.integers(1, 4, n)
        keys = compiled().xauc_distinct(codes, y, s, np.ones(n), counts)
        starts = np.searchsorted(keys[0], np.arange(4)).astype(np.int64)
        twice, pairs = compiled().xauc_pairs_counted(starts, keys[1], keys[2], keys[4])
        for g in range(3):
            rows = codes == g
            yg, sg, cg = y[rows], s[rows], counts[rows]
            m = len(yg)
            want_pairs = sum(int(cg[i] * cg[j]) for i in range(m) for j in range(m)
                             if yg[i] < yg[j])  # fmt: skip
            want_twice = sum(int(cg[i] * cg[j]) * (2 * (sg[i] < sg[j]) + (sg[i] == sg[j]))
                             for i in range(m) for j in range(m) if yg[i] < yg[j])  # fmt: skip
            assert (int(twice[g]), int(pairs[g])) == (want_twice, want_pairs)


def test_larger_inputs_equal_the_pair_loop():
    rng = np.random.default_rng(1)
    y = rng.choice(np.arange(40) / 4, 500)
    s = rng.choice(np.arange(60) / 7, 500)
    assert xauc_score(y, s) == float(pair_xauc(y, s))


# ------------------------------------------------------------------ every entry point
def test_compute_metric_scan_and_pickle(tmp_path):
    rng = np.random.default_rng(2)
    y, s = rng.exponential(30.0, 200).round(1), rng.random(200).round(2)
    w = rng.integers(1, 4, 200).astype(float)
    expected = xauc_score(y, s, sample_weight=w)
    assert rv.compute("xauc", y, s, sample_weight=w) == expected
    acc = rv.metric("xauc").update(y[:50], s[:50], sample_weight=w[:50])
    acc = pickle.loads(pickle.dumps(acc)).update(y[50:], s[50:], sample_weight=w[50:])
    assert acc.compute() == expected
    path = tmp_path / "rows.parquet"
    pq.write_table(pa.table({"watch": y, "p": s, "w": w}), path)
    scan = rv.scan(path, batch_rows=7)
    assert xauc_score(scan["watch"], scan["p"], sample_weight=scan["w"]) == expected
    assert rv.compute("xauc", scan["watch"], scan["p"], sample_weight=scan["w"]) == expected
    info = rv.metric_info("xauc")
    assert (info.function, info.family, info.higher_is_better) == ("xauc_score", "pointwise", True)


def test_a_tampered_state_is_refused():
    acc = rv.metric("xauc").update([1.0, 2.0, 3.0], [0.3, 0.1, 0.2])
    state = acc.state.compact()
    state.count = state.count * 0
    with pytest.raises(InputValidationError, match=r"state\.count must be integer counts >= 1"):
        pickle.loads(pickle.dumps(acc))


def test_cli_ctr_computes_xauc(tmp_path):
    from typer.testing import CliRunner

    from receval.cli import app

    path = tmp_path / "log.csv"
    path.write_text("watch,p,w\n3.0,0.2,1\n12.0,0.4,2\n7.5,0.9,1\n0.0,0.1,3\n")
    args = [str(path), "--label", "watch", "--score", "p", "-m", "xauc", "--format", "json"]
    result = CliRunner().invoke(app, ["ctr", *args])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)[0]["xauc"] == 5 / 6
    weighted = CliRunner().invoke(app, ["ctr", *args, "--weight", "w"])
    assert json.loads(weighted.output)[0]["xauc"] == 15 / 17


# ------------------------------------------------------------------ grouped XAUC
def test_grouped_hand_case_weighs_groups_by_rows():
    watch = [3.0, 12.0, 7.5, 0.0, 1.0, 2.0, 5.0]
    scores = [0.2, 0.4, 0.9, 0.1, 0.3, 0.6, 0.5]
    users = ["a", "a", "a", "a", "b", "b", "c"]  # "c": one row, no pair: skipped
    assert xauc_score(watch, scores, groups=users) == pytest.approx((4 * 5 / 6 + 2 * 1) / 6)
    uniform = xauc_score(watch, scores, groups=users, weighting="uniform")
    assert uniform == pytest.approx((5 / 6 + 1) / 2)
    with pytest.warns(UndefinedMetricWarning, match="no group has a pair of rows"):
        assert math.isnan(xauc_score([1.0, 1.0, 2.0], [0.1, 0.2, 0.3], groups=[1, 1, 2]))
    with pytest.raises(rv.InvalidParameterError, match="'weighting' parameter of xauc_score"):
        xauc_score(watch, scores, groups=users, weighting="clicks")


def test_grouped_empty_groups_zero_counts_groups_without_a_pair():
    # CatBoost's QueryAUC:type=Ranking: a group without a pair of different targets is 0
    watch = [3.0, 12.0, 7.5, 0.0, 1.0, 2.0, 5.0]
    scores = [0.2, 0.4, 0.9, 0.1, 0.3, 0.6, 0.5]
    users = ["a", "a", "a", "a", "b", "b", "c"]
    got = xauc_score(watch, scores, groups=users, weighting="uniform", empty_groups="zero")
    assert got == pytest.approx((5 / 6 + 1 + 0) / 3)
    by_rows = xauc_score(watch, scores, groups=users, empty_groups="zero")
    assert by_rows == pytest.approx((4 * 5 / 6 + 2 * 1 + 0) / 7)
    acc = rv.metric("grouped_xauc(weighting=uniform,empty_groups=zero)")
    assert acc.update(watch, scores, groups=users).compute() == pytest.approx(got)
    # every group without a pair: 0, not nan
    assert xauc_score([1.0, 1.0, 2.0], [0.1, 0.2, 0.3], groups=[1, 1, 2],
                      empty_groups="zero") == 0.0  # fmt: skip
    with pytest.raises(rv.InvalidParameterError, match="'empty_groups' parameter of xauc_score"):
        xauc_score(watch, scores, groups=users, empty_groups="one")


@st.composite
def grouped_rows(draw):
    y, s, w = draw(rows(weighted=draw(st.booleans())))
    g = np.array(draw(st.lists(st.sampled_from(["u", "v", "w"]), min_size=len(y),
                               max_size=len(y))))  # fmt: skip
    return y, s, w, g


@given(grouped_rows())
def test_grouped_equals_the_pair_loop_per_group(data):
    y, s, w, g = data
    expected = pair_grouped_xauc(y, s, g, w)
    assume(not math.isnan(expected))
    assert xauc_score(y, s, groups=g, sample_weight=w) == pytest.approx(expected, rel=1e-12)


@given(grouped_rows(), st.randoms(use_true_random=False))
def test_grouped_any_split_and_merge_order_give_the_function(data, rnd):
    y, s, w, g = data
    w = np.ones(len(y)) if w is None else w
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        expected = xauc_score(y, s, groups=g, sample_weight=w)
        cuts = sorted(rnd.sample(range(len(y) + 1), min(3, len(y) + 1)))
        bounds = list(zip([0, *cuts], [*cuts, len(y)], strict=True))
        parts = [rv.metric("grouped_xauc").update(y[a:b], s[a:b], groups=g[a:b],
                                                  sample_weight=w[a:b])
                 for a, b in bounds]  # fmt: skip
        rnd.shuffle(parts)
        merged = parts[0]
        for part in parts[1:]:
            merged.merge(part)
        got = pickle.loads(pickle.dumps(merged)).compute()
    assert got == expected or (math.isnan(got) and math.isnan(expected))


def test_a_group_of_more_than_2_53_pairs_divides_its_counts_once():
    # its pair counts were rounded to floats before the division: 0.25000000337604433
    from fractions import Fraction

    from receval.metrics._xauc import XAUCCounts

    a, b, c = 2**29 + 1, 2**29 + 4, 2**28 + 7  # rows of targets 0, 1, 2 (scores 0.9, 0.5, 0.7)
    state = XAUCCounts()
    rows = (np.zeros(3, dtype=np.int64), np.array([0.0, 1.0, 2.0]), np.array([0.9, 0.5, 0.7]))
    state._push((*rows, np.ones(3), np.array([a, b, c]), np.array([0]), np.zeros(1, np.int64)))
    exact = float(Fraction(b * c, a * b + a * c + b * c))  # the pairs of targets 1 and 2 agree
    values, _ = state.group_values()
    assert values[0] == exact == state.xauc() == 0.2500000033760443

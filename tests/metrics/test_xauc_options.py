"""Grouped XAUC's options for the GBDT libraries and grouped regression AUC: hand cases,
the O(n^2) oracles (hypothesis, tied values), splits, merges, pickles and bad input."""

import functools
import math
import pickle
import warnings

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import receval as rv
from receval import regression_auc_score, xauc_score
from receval.exceptions import InputValidationError, InvalidParameterError, UndefinedMetricWarning
from tests.oracles.xauc import (
    pair_grouped_mean,
    pair_in_order_auc,
    pair_probability_auc,
    pair_regression_auc,
)

#: XGBoost's ``auc`` of query groups
XGB = {"equal_targets": "input_order", "weighting": "uniform", "min_rows": 3}
#: CatBoost's ``QueryAUC:type=Classic``
CLASSIC = {"targets": "probabilities", "weighting": "uniform", "empty_groups": "zero"}


# ------------------------------------------------------------------ hand cases
def test_input_order_counts_pairs_of_equal_targets_in_their_order():
    # (1, 1): the earlier row scores higher, in order; the (1, 0) pairs: one of two
    assert xauc_score([1, 1, 0], [0.9, 0.1, 0.5], groups=[0] * 3,
                      equal_targets="input_order") == 2 / 3  # fmt: skip
    # the same rows in the other order: (1, 1) is out of order
    assert xauc_score([1, 1, 0], [0.1, 0.9, 0.5], groups=[0] * 3,
                      equal_targets="input_order") == 1 / 3  # fmt: skip
    # a tie of equal targets counts one half; without the option the pair is left out
    assert xauc_score([2, 2, 0], [0.5, 0.5, 0.1], groups=[0] * 3,
                      equal_targets="input_order") == 2.5 / 3  # fmt: skip
    assert xauc_score([2, 2, 0], [0.5, 0.5, 0.1], groups=[0] * 3) == 1.0


def test_min_rows_leaves_small_groups_out():
    y, s, g = [1, 0, 1, 0, 2], [0.1, 0.9, 0.9, 0.1, 0.5], ["a", "a", "b", "b", "b"]
    # a: (1, 0) swapped, 0; b: (1, 0), (2, 0) in order, (2, 1) swapped, 2/3
    assert xauc_score(y, s, groups=g, weighting="uniform") == pytest.approx(1 / 3)
    assert xauc_score(y, s, groups=g, weighting="uniform", min_rows=3) == pytest.approx(2 / 3)
    with pytest.warns(UndefinedMetricWarning, match="no group has"):
        assert math.isnan(xauc_score(y, s, groups=g, min_rows=4))
    with pytest.raises(InvalidParameterError, match="'min_rows' parameter of xauc_score"):
        xauc_score(y, s, groups=g, min_rows=0)


def test_probabilities_split_each_row_into_a_positive_and_a_negative():
    # halves: positives (0.9: 1), (0.5: 0.5); negatives (0.1: 1), (0.5: 0.5)
    # pairs: 1 * 1 + 1 * 0.5 + 0.5 * 1 in order, 0.5 * 0.5 tied: 2.125 / 2.25
    assert xauc_score([0.0, 1.0, 0.5], [0.1, 0.9, 0.5], targets="probabilities") == 2.125 / 2.25
    # 0/1 targets: the ROC AUC
    y, s = [0, 1, 1, 0, 1], [0.2, 0.7, 0.2, 0.9, 0.4]
    assert xauc_score(y, s, targets="probabilities") == rv.roc_auc_score(y, s)
    # one row of target 0.5: its own two halves, a tie
    assert xauc_score([0.5], [0.3], targets="probabilities") == 0.5
    acc = rv.metric("xauc(targets=probabilities)").update([0.0, 1.0, 0.5], [0.1, 0.9, 0.5])
    assert acc.compute() == 2.125 / 2.25


def test_grouped_regression_auc_averages_the_groups():
    y, s, g = [1.0, 2.0, 3.0, 1.0, 2.0, 5.0], [0.1, 0.3, 0.2, 0.5, 0.4, 0.0], list("aaabbc")
    # a: (2, 3) inverted of 3 pairs; b: inverted; c: one row, left out
    assert regression_auc_score(y, s, groups=g) == pytest.approx((2 / 3 + 0) / 2)
    with pytest.warns(UndefinedMetricWarning, match="no group has two rows or more"):
        assert math.isnan(regression_auc_score([1.0, 2.0], [0.1, 0.2], groups=[1, 2]))
    with pytest.raises(InvalidParameterError, match="sample_weight is not taken"):
        regression_auc_score(y, s, groups=g, sample_weight=[1.0] * 6)


# ------------------------------------------------------------------ bad input
def test_bad_options_and_input_name_what_to_do():
    with pytest.raises(InputValidationError, match=r"y_true must hold probabilities in \[0, 1\]"):
        xauc_score([0.0, 2.0], [0.1, 0.2], targets="probabilities")
    with pytest.raises(InvalidParameterError, match="'targets' parameter of xauc_score"):
        xauc_score([0.0, 1.0], [0.1, 0.2], targets="grades")
    with pytest.raises(InvalidParameterError, match="options of grouped XAUC"):
        xauc_score([0.0, 1.0], [0.1, 0.2], equal_targets="input_order")
    with pytest.raises(InvalidParameterError) as info:
        xauc_score([0.0, 1.0], [0.1, 0.2], groups=[1, 1], targets="probabilities",
                   equal_targets="input_order")  # fmt: skip
    assert str(info.value).endswith(  # it said "Got both; pass one of them."
        "Got both; pass one of equal_targets='input_order' or targets='probabilities'."
    )
    with pytest.raises(InvalidParameterError, match="sample_weight is not taken"):
        xauc_score([0.0, 1.0], [0.1, 0.2], groups=[1, 1], equal_targets="input_order",
                   sample_weight=[1.0, 2.0])  # fmt: skip


def test_input_order_of_a_group_split_across_updates_is_the_order_of_the_updates():
    y, s, g = [1, 0, 1, 1, 0, 1], [0.5, 0.1, 0.2, 0.5, 0.3, 0.9], list("abaaca")
    whole = xauc_score(y, s, groups=g, equal_targets="input_order")
    acc = rv.metric("grouped_xauc(equal_targets=input_order)")
    for a, b in ((0, 2), (2, 4), (4, 6)):  # group "a" in every update
        acc.update(y[a:b], s[a:b], groups=g[a:b])
    assert pickle.loads(pickle.dumps(acc)).compute() == whole
    # a: (0.5, 0.2, 0.5, 0.9) of one target: 1 + 0.5 of 6 pairs in order; b, c: one row
    assert whole == 1.5 / 6
    # merge(other): this accumulator's rows, then other's
    first, second = (rv.metric("grouped_xauc(equal_targets=input_order)") for _ in range(2))
    first.update(y[:3], s[:3], groups=g[:3])
    second.update(y[3:], s[3:], groups=g[3:])
    assert first.merge(second).compute() == whole


def test_input_order_state_keeps_each_update_s_rows_and_counts_them_at_compute():
    # an update appends its rows (it never re-reads the earlier ones); compute counts
    # every group's pairs once, and later updates still join the groups' earlier rows
    rng = np.random.default_rng(3)
    g, y, s = rng.integers(0, 6, 120), rng.integers(0, 3, 120), rng.integers(0, 5, 120) / 4
    acc = rv.metric("grouped_xauc(equal_targets=input_order,weighting=uniform,min_rows=3)")
    for a in range(0, 120, 30):
        acc.update(y[a : a + 30], s[a : a + 30], groups=g[a : a + 30])
        state = acc._state
        assert [len(part[1]) for part in state.in_order][-1] == 30
        assert acc.compute() == xauc_score(y[: a + 30], s[: a + 30], groups=g[: a + 30], **XGB)
        assert len(state.in_order) == 1  # joined once by compute, kept joined
    assert pickle.loads(pickle.dumps(acc)).compute() == xauc_score(y, s, groups=g, **XGB)


def test_tampered_input_order_rows_are_refused():
    from tests.engine.test_loaded_states import _loaded

    acc = rv.metric("grouped_xauc(equal_targets=input_order)")
    acc.update([1.0, 0.0, 1.0], [0.2, 0.3, 0.1], groups=["a", "a", "b"])

    def tamper(state):
        ids, codes, y, s = state["_state"].in_order[0]
        state["_state"].in_order[0] = (ids, codes + 5, y, s)

    with pytest.raises(InputValidationError, match=r"state\.in_order must be \(ids, codes"):
        _loaded(acc, tamper)


# ------------------------------------------------------------------ the oracles
VALUES = [0.0, 0.25, 0.5, 1.0, 1.0, 2.0, -0.0]  # ties in targets and scores


@st.composite
def grouped(draw, targets=VALUES):
    n = draw(st.integers(1, 30))
    y = draw(st.lists(st.sampled_from(targets), min_size=n, max_size=n))
    s = draw(st.lists(st.sampled_from(VALUES), min_size=n, max_size=n))
    g = draw(st.lists(st.sampled_from(["u", "v", "w"]), min_size=n, max_size=n))
    return y, s, g


@given(grouped(), st.sampled_from([1, 2, 3]), st.sampled_from(["uniform", "impressions"]))
def test_input_order_equals_the_pair_loop(data, min_rows, weighting):
    y, s, g = data
    expected = pair_grouped_mean(pair_in_order_auc, y, s, g, min_rows=min_rows,
                                 weighting=weighting)  # fmt: skip
    assume(not math.isnan(expected))
    got = xauc_score(y, s, groups=g, equal_targets="input_order", min_rows=min_rows,
                     weighting=weighting)  # fmt: skip
    assert got == pytest.approx(expected, rel=1e-12)


@given(grouped(targets=[0.0, 0.25, 0.5, 1.0]), st.booleans(), st.sampled_from(["skip", "zero"]))
def test_probabilities_equal_the_pair_loop(data, weighted, empty):
    y, s, g = data
    w = [0.5 + (i % 4) for i in range(len(y))] if weighted else None
    expected = pair_grouped_mean(pair_probability_auc, y, s, g, sample_weight=w,
                                 empty=0 if empty == "zero" else None)  # fmt: skip
    assume(not math.isnan(expected))
    got = xauc_score(y, s, groups=g, targets="probabilities", weighting="uniform",
                     empty_groups=empty, sample_weight=w)  # fmt: skip
    assert got == pytest.approx(expected, rel=1e-12)


@given(grouped())
def test_grouped_regression_auc_equals_the_pair_loop(data):
    y, s, g = data
    expected = pair_grouped_mean(pair_regression_auc, y, s, g)
    assume(not math.isnan(expected))
    assert regression_auc_score(y, s, groups=g) == pytest.approx(expected, rel=1e-12)


@given(grouped(), st.randoms(use_true_random=False))
def test_any_split_and_merge_order_give_the_function(data, rnd):
    y, s, g = map(np.array, data)
    cuts = sorted(rnd.sample(range(len(y) + 1), min(3, len(y) + 1)))
    bounds = list(zip([0, *cuts], [*cuts, len(y)], strict=True))
    probabilities = np.abs(y) / 2  # in [0, 1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        for text, targets, function in [
            ("grouped_rauc", y, lambda: regression_auc_score(y, s, groups=g)),
            ("grouped_xauc(targets=probabilities,weighting=uniform,empty_groups=zero)",
             probabilities, lambda: xauc_score(probabilities, s, groups=g, **CLASSIC)),
        ]:  # fmt: skip
            expected = function()
            parts = [rv.metric(text).update(targets[a:b], s[a:b], groups=g[a:b])
                     for a, b in bounds]  # fmt: skip
            rnd.shuffle(parts)
            merged = functools.reduce(lambda x, other: x.merge(other), parts)
            got = pickle.loads(pickle.dumps(merged)).compute()
            assert got == expected or (math.isnan(got) and math.isnan(expected)), text


@given(grouped(), st.randoms(use_true_random=False))
def test_input_order_of_any_split_merged_in_order(data, rnd):
    y, s, g = map(np.array, data)
    cuts = sorted(rnd.sample(range(len(y) + 1), min(4, len(y) + 1)))
    bounds = list(zip([0, *cuts], [*cuts, len(y)], strict=True))
    text = "grouped_xauc(equal_targets=input_order,weighting=uniform,min_rows=3)"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        expected = xauc_score(y, s, groups=g, **XGB)
        acc = rv.metric(text)
        for a, b in bounds:
            acc.update(y[a:b], s[a:b], groups=g[a:b])
        parts = [rv.metric(text).update(y[a:b], s[a:b], groups=g[a:b]) for a, b in bounds]
        # left to right through pickles, and right to left (a merged state merged in)
        left = functools.reduce(lambda x, o: pickle.loads(pickle.dumps(x)).merge(o), parts)
        right = functools.reduce(lambda x, o: o.merge(x), reversed(parts))
        got = [acc.compute(), left.compute(), right.compute()]
    assert all(v == expected or (math.isnan(v) and math.isnan(expected)) for v in got)


@pytest.mark.parametrize(
    "text",
    ["grouped_rauc", "grouped_xauc(targets=probabilities,weighting=uniform,empty_groups=zero)",
     "grouped_xauc(equal_targets=input_order,weighting=uniform,min_rows=3)"],
)  # fmt: skip
def test_compare_recomputes_them_on_swapped_scores(text):
    from receval import compare_predictions

    rng = np.random.default_rng(0)
    users = np.sort(rng.integers(0, 30, 400))  # each user's rows together, in order
    y = rng.integers(0, 5, 400) / 4
    a, b = rng.random(400), rng.random(400)
    report = compare_predictions(y, {"a": a, "b": b}, groups=users, metrics=[text],
                                 n_permutations=20, n_resamples=20)  # fmt: skip
    value_a, value_b = (rv.metric(text).update(y, s, groups=users).compute() for s in (a, b))
    difference = report.comparisons["difference"][0]
    assert difference == pytest.approx(value_b - value_a, abs=1e-12)
    assert 0 < report.comparisons["p_value"][0] <= 1


def test_a_scan_gives_the_value_of_its_rows_in_file_order(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(5)
    g = np.sort(rng.integers(0, 12, 300))
    y, s = rng.integers(0, 4, 300) / 3, rng.integers(0, 6, 300) / 5  # targets in [0, 1]
    path = tmp_path / "rows.parquet"
    pq.write_table(pa.table({"q": g, "y": y, "p": s}), path)
    scan = rv.scan(path, batch_rows=7)  # groups cut at batch boundaries
    for options in (XGB, CLASSIC):
        expected = xauc_score(y, s, groups=g, **options)
        assert xauc_score(scan["y"], scan["p"], groups=scan["q"], **options) == expected
    expected = regression_auc_score(y, s, groups=g)
    assert regression_auc_score(scan["y"], scan["p"], groups=scan["q"]) == expected

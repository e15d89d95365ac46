"""A group whose rows all weigh 0 is a group left out of grouped_xauc's and
grouped_auprc's mean, counted as gauc counts it (in ``n_groups`` and
``n_groups_skipped``, its rows in ``n_rows_skipped``): in one call, across the updates,
merges, resets and pickles of an accumulator, out of core and in ``receval ctr``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import receval
from receval.metrics._xauc import XAUCCounts
from receval.registry import resolve
from receval.registry.pointwise import pointwise_adapter
from tests.metrics._grouped_counts import accumulated, counts, ctr, scanned

#: metric -> whether a group has a value, from the targets of its rows of positive weight
HAS_VALUE = {
    "grouped_xauc": lambda t: len(set(t)) == 2,
    "grouped_auprc(skip_groups=one_class)": lambda t: len(set(t)) == 2,
    "grouped_auprc": lambda t: 1 in t,
    "grouped_xauc(weighting=uniform,empty_groups=zero)": lambda t: len(t) > 0,
}
NAMES = list(HAS_VALUE)
#: the metrics that leave out the groups gauc skips (without both classes weighted)
AS_GAUC = NAMES[:2]
# a group, or every group, without a value: the counts, not the warning, are tested here
pytestmark = pytest.mark.filterwarnings("ignore::receval.exceptions.UndefinedMetricWarning")

# group a: both classes; b: every row of weight 0; c: weight 0 on its negative only
Y = np.array([1, 0, 1, 0, 0, 1, 0])
S = np.array([0.9, 0.2, 0.8, 0.3, 0.4, 0.6, 0.5])
G = np.array(list("aabbccc"))
W = np.array([1.0, 2.0, 0.0, 0.0, 0.0, 1.5, 0.0])


def _gauc_counts(y: Any, s: Any, g: Any, w: Any) -> dict[str, Any]:
    skipped = receval.metric("gauc").update(y, s, groups=g, sample_weight=w).skipped()
    return {k: skipped[k] for k in ("n_groups", "n_groups_skipped", "n_rows_skipped")}


def _expected(name: str, y: Any, g: Any, w: Any) -> dict[str, int]:
    """The counts of ``name``: every group, those without a value, and all their rows
    (of weight 0 too)."""
    y, g, w = np.asarray(y), np.asarray(g), np.asarray(w)
    ids = sorted(set(g.tolist()))
    left = [u for u in ids if not HAS_VALUE[name](y[(g == u) & (w > 0)].tolist())]
    rows = int(sum((g == u).sum() for u in left))
    return {"n_groups": len(ids), "n_groups_skipped": len(left), "n_rows_skipped": rows}


def test_a_group_of_weight_0_is_counted_as_gauc_counts_it():
    # gauc: 3 groups, b and c skipped (c: its one weighted row is a click), 5 rows
    assert _gauc_counts(Y, S, G, W) == {"n_groups": 3, "n_groups_skipped": 2,
                                        "n_rows_skipped": 5}  # fmt: skip
    for name in AS_GAUC:
        acc = receval.metric(name).update(Y, S, groups=G, sample_weight=W)
        assert counts(acc) == _gauc_counts(Y, S, G, W), name
    # b only: c has a weighted click, and a weighted row (0 in the mean)
    for name in ["grouped_auprc", "grouped_xauc(weighting=uniform,empty_groups=zero)"]:
        acc = receval.metric(name).update(Y, S, groups=G, sample_weight=W)
        assert counts(acc) == {"n_groups": 3, "n_groups_skipped": 1, "n_rows_skipped": 2}


@pytest.mark.parametrize("name", NAMES)
def test_the_rows_of_weight_0_leave_the_value_as_it_was(name):
    # a group of weight 0 is skipped, never a 0 in the mean (empty_groups="zero" too)
    kept = W > 0
    spec = pointwise_adapter(resolve(name))
    value, counts, _ = spec.counted(Y, S, groups=G, sample_weight=W)
    assert value == spec.func(Y[kept], S[kept], groups=G[kept], sample_weight=W[kept])
    assert counts == _expected(name, Y, G, W)


@st.composite
def zero_weighted(draw: Any) -> tuple[np.ndarray, ...]:
    """Rows of 0/1 targets, tied scores and weights often 0, in up to 4 groups, then a
    group whose rows all weigh 0 (rows of any group in any order)."""
    n = draw(st.integers(1, 20))
    m = draw(st.integers(1, 4))
    y = draw(st.lists(st.integers(0, 1), min_size=n + m, max_size=n + m))
    s = draw(st.lists(st.sampled_from([0.0, 0.1, 0.5, 0.9]), min_size=n + m, max_size=n + m))
    g = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)) + [9] * m
    w = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0]), min_size=n, max_size=n)) + [0.0] * m
    order = draw(st.permutations(range(n + m)))
    return tuple(np.asarray(a)[list(order)] for a in (y, s, g, w))


@pytest.mark.parametrize("name", NAMES)
@given(data=zero_weighted(), cuts=st.lists(st.integers(0, 24), max_size=3))
def test_the_counts_are_gauc_s_in_one_call_and_across_updates_merges_and_pickles(
    name: str, data: tuple[np.ndarray, ...], cuts: list[int]
) -> None:
    y, s, g, w = data
    expected = _expected(name, y, g, w)
    if name in AS_GAUC:
        assert expected == _gauc_counts(y, s, g, w)
    assert accumulated(name, data, cuts) == [expected] * 3
    one = receval.metric(name).update(y[:1], s[:1], groups=g[:1], sample_weight=w[:1])
    assert counts(one.reset().update(y, s, groups=g, sample_weight=w)) == expected


@pytest.mark.parametrize("name", NAMES)
def test_a_group_weighted_in_another_update_is_not_left_out_for_its_weight(name):
    # "b" weighs 0 in the first update and has both classes weighted in the second
    acc = receval.metric(name).update([1, 0], [0.9, 0.1], groups=["b", "b"],
                                      sample_weight=[0.0, 0.0])  # fmt: skip
    assert counts(acc) == {"n_groups": 1, "n_groups_skipped": 1, "n_rows_skipped": 2}
    acc.update([1, 0], [0.8, 0.2], groups=["b", "b"], sample_weight=[1.0, 1.0])
    assert counts(acc) == {"n_groups": 1, "n_groups_skipped": 0, "n_rows_skipped": 0}
    assert acc.compute() == 1.0


@pytest.mark.parametrize("name", NAMES)
def test_a_scan_counts_a_group_of_weight_0(tmp_path, name):
    assert scanned(tmp_path, name, (Y, S, G, W)) == _expected(name, Y, G, W)


def test_receval_ctr_counts_a_group_of_weight_0(tmp_path):
    record, stderr = ctr(tmp_path, NAMES, (Y, S, G, W))
    for name in NAMES:
        expected = _expected(name, Y, G, W)
        assert record["counts"][name] == expected, name
        skipped, rows_skipped = expected["n_groups_skipped"], expected["n_rows_skipped"]
        assert f"score: {name} skips {skipped} of 3 groups ({rows_skipped} rows) " in stderr


def test_a_state_pickled_before_it_counted_rows_of_weight_0_loads_with_none():
    state = receval.metric("grouped_xauc").update(Y, S, groups=G, sample_weight=W).state
    before = {k: x for k, x in state.__getstate__().items() if k != "zero"}
    loaded = XAUCCounts()
    loaded.__setstate__(before)
    assert loaded.invalid() is None
    assert loaded.zero_rows().tolist() == [0, 0, 0]
    assert state.zero_rows().tolist() == [0, 2, 2]

"""grouped_xauc with ``targets="probabilities"`` counts the rows of the groups it leaves
out (``n_rows_skipped``), each input row once though it is split into a positive and a
negative half: in one call, across the updates, merges and pickles of an accumulator,
out of core and in ``receval ctr``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import receval
from receval.registry import resolve
from receval.registry.pointwise import pointwise_adapter
from tests.metrics._grouped_counts import accumulated, counts, ctr, scanned

NAMES = [
    "grouped_xauc(targets=probabilities)",
    "grouped_xauc(targets=probabilities,weighting=uniform,empty_groups=zero)",
]
# a group, or every group, without a value: the counts, not the warning, are tested here
pytestmark = pytest.mark.filterwarnings("ignore::receval.exceptions.UndefinedMetricWarning")

# a: a positive and a negative; b: positives only; c: one row of 0.5 (its own halves
# pair); d: weight 0 on its only negative; e: negatives only
Y = np.array([1.0, 0.0, 1.0, 1.0, 0.5, 1.0, 0.0, 0.0, 0.0])
S = np.array([0.9, 0.2, 0.8, 0.3, 0.4, 0.6, 0.5, 0.1, 0.7])
G = np.array(list("aabbcddee"))
W = np.array([1.0, 2.0, 1.0, 1.0, 1.0, 1.5, 0.0, 1.0, 1.0])


def _expected(y: Any, g: Any, w: Any) -> dict[str, int]:
    """Every group, those without a pair of a positive and a negative half of positive
    weight, and their input rows (of weight 0 too), each once."""
    y, g, w = np.asarray(y), np.asarray(g), np.asarray(w)
    ids = sorted(set(g.tolist()))
    left = [u for u in ids if not ((y * w)[g == u].sum() > 0 and ((1 - y) * w)[g == u].sum() > 0)]
    rows = int(sum((g == u).sum() for u in left))
    return {"n_groups": len(ids), "n_groups_skipped": len(left), "n_rows_skipped": rows}


@pytest.mark.parametrize("name", NAMES)
def test_the_rows_of_the_groups_left_out_are_counted_once(name):
    # b, d and e are left out: 2 + 2 + 2 input rows (4 halves each)
    expected = {"n_groups": 5, "n_groups_skipped": 3, "n_rows_skipped": 6}
    assert _expected(Y, G, W) == expected
    _, counts, why = pointwise_adapter(resolve(name)).counted(Y, S, groups=G, sample_weight=W)
    if "empty_groups=zero" in name:  # b and e count 0; d's only negative weighs 0
        expected = {"n_groups": 5, "n_groups_skipped": 0, "n_rows_skipped": 0}
    assert counts == expected
    assert why == "without a pair of rows with different targets"
    acc = receval.metric(name).update(Y, S, groups=G, sample_weight=W)
    assert acc.skipped() == {**expected, "why": why}


def test_rows_without_weights_are_counted_once():
    acc = receval.metric(NAMES[0]).update(Y, S, groups=G)
    # b and e (d's negative weighs 1 now)
    assert counts(acc) == {"n_groups": 5, "n_groups_skipped": 2, "n_rows_skipped": 4}


@st.composite
def probability_rows(draw: Any) -> tuple[np.ndarray, ...]:
    """Rows of probability targets, tied scores and weights often 0, in up to 4 groups."""
    n = draw(st.integers(1, 24))
    y = draw(st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0]), min_size=n, max_size=n))
    s = draw(st.lists(st.sampled_from([0.0, 0.1, 0.5, 0.9]), min_size=n, max_size=n))
    g = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    w = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0]), min_size=n, max_size=n))
    return tuple(np.asarray(a) for a in (y, s, g, w))


@given(data=probability_rows(), cuts=st.lists(st.integers(0, 24), max_size=3))
def test_the_counts_hold_in_one_call_and_across_updates_merges_and_pickles(
    data: tuple[np.ndarray, ...], cuts: list[int]
) -> None:
    y, _, g, w = data
    assert accumulated(NAMES[0], data, cuts) == [_expected(y, g, w)] * 3


def test_a_scan_counts_the_rows_once(tmp_path):
    assert scanned(tmp_path, NAMES[0], (Y, S, G, W)) == _expected(Y, G, W)


def test_receval_ctr_counts_the_rows_once(tmp_path):
    record, stderr = ctr(tmp_path, NAMES[:1], (Y, S, G, W))
    assert record["counts"][NAMES[0]] == _expected(Y, G, W)
    assert (
        f"score: {NAMES[0]} skips 3 of 5 groups (6 rows) without a pair of rows with "
        f"different targets.\n" in stderr
    )

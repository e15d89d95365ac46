"""Each group's AUC is the float that roc_auc_score gives the group's rows alone.

Weighted, a group's AUC was its float products summed (an ulp or more off the
exact value, and nan where the products of tiny weights underflowed to 0); it is
now ``2U / (2 P N)`` of the exact integers rounded once, each label's weights in
units of its lowest bit, as the weighted ROC AUC sums a score range.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from receval import gauc_score, group_auc, roc_auc_score
from receval.engine.sums import weight_shift
from receval.exceptions import UndefinedMetricWarning
from tests.oracles import pointwise as oracle


def _quiet(func, *args, **kwargs):
    """``func`` without the warning of an undefined AUC (a group of one class)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return func(*args, **kwargs)


def test_a_groups_weighted_auc_is_its_rows_exact_auc():
    # the products summed in floats gave 0.7533957845433255, an ulp below
    y, s = [0, 0, 1, 0, 1, 0], [0.1, 0.5, 0.5, 0.5, 0.9, 0.5]
    w = [0.93, 0.05, 0.54, 0.47, 0.07, 0.65]
    want = roc_auc_score(y, s, sample_weight=w)
    assert want == oracle.sweep_auc_exact(y, s, w) == 0.7533957845433256
    report = group_auc(y, s, groups=[7] * 6, sample_weight=w)
    assert report.auc[0] == want
    assert gauc_score(y, s, groups=[7] * 6, sample_weight=w) == want


def test_a_group_of_tiny_weights_has_its_auc():
    # group 1's weights near 1e-300: their products (1e-600) underflowed to 0, so its
    # AUC was nan and the group skipped (a uniform GAUC of 1.0, not 2/3)
    y, s, g = [1, 0, 0, 1, 0, 0], [0.9, 0.1, 0.5, 0.3, 0.1, 0.5], [0, 0, 0, 1, 1, 1]
    w = [1.0, 1.0, 1.0, 1e-300, 1e-300, 2e-300]
    report = group_auc(y, s, groups=g, sample_weight=w, weighting="uniform")
    assert (
        report.auc.tolist()
        == [1.0, 1 / 3]
        == [roc_auc_score(y[k : k + 3], s[k : k + 3], sample_weight=w[k : k + 3]) for k in (0, 3)]
    )
    assert report.n_groups_skipped == 0
    assert report.score == 2 / 3
    assert gauc_score(y, s, groups=g, sample_weight=w, weighting="uniform") == 2 / 3


_WEIGHTS = (
    st.just(0.0)
    | st.floats(5e-324, 1e300)  # subnormals to 1e300
    | st.sampled_from([5e-324, 3e-320, 2.0**-1022, 1e-300, 1e-10, 0.1, 1.0, 3.0, 1e10, 1e300])
)


@st.composite
def _groups(draw):
    n = draw(st.integers(2, 40))
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)), np.int8)
    s = np.array(draw(st.lists(st.sampled_from([0.0, -0.0, 0.25, 0.5, 1.0]), min_size=n,
                               max_size=n)))  # fmt: skip
    g = np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))) * 5 - 4
    w = np.array(draw(st.lists(_WEIGHTS, min_size=n, max_size=n)))
    assume(w.max() > 0)
    return y, s, g, w


def _fits(w, n):
    """Whether one label's weights ``w`` are held exactly: from the lowest set bit of any
    of them to the top of a sum of ``n`` (``unit_for`` of the core: the largest weight's
    bits, those of the count and one of carry), within 126 bits."""
    w = w[w > 0]
    if len(w) == 0:
        return True
    low = min(e - 53 + ((m := int(f * 2**53)) & -m).bit_length() - 1
              for f, e in map(math.frexp, w.tolist()))  # fmt: skip
    top = math.frexp(w.max())[1] + n.bit_length() + 1
    return top - low <= 126


# weights wider than the exact sums on purpose (the warning: test_rounded_weights)
@pytest.mark.filterwarnings("ignore:.*the sample weights of the:receval.RecevalWarning")
@settings(max_examples=300, deadline=None)
@given(data=_groups(), weighted=st.booleans())
def test_each_groups_auc_is_roc_auc_score_of_its_rows(data, weighted):
    """Weights from subnormals to 1e300 and tied scores: every group's AUC is
    roc_auc_score of its rows alone, bit for bit (nan where it has no weight of a
    label), and the exact AUC rounded once where each label's weights are held exactly
    (``_fits``); its weighted positives are their exact sum rounded once, at the scale
    of the weights given."""
    y, s, g, w = data
    w = w if weighted else None
    report = _quiet(group_auc, y, s, groups=g, sample_weight=w, weighting="clicks")
    want = []
    for key in report.groups.tolist():
        m = g == key
        want.append(_quiet(roc_auc_score, y[m], s[m], sample_weight=None if w is None else w[m]))
    np.testing.assert_array_equal(report.auc, np.array(want))
    ones = np.ones(len(y)) if w is None else w
    exact = oracle.group_aucs_exact(y, s, g, ones)
    shift = weight_shift(ones)  # the GAUC sums the weights divided by a power of two
    for k, key in enumerate(report.groups.tolist()):
        m = g == key
        if _fits(ones[y == 1], len(y)) and _fits(ones[y == 0], len(y)):
            np.testing.assert_array_equal(report.auc[k], exact[k])
            # reported at the weights' own scale
            scaled = math.fsum(np.ldexp(ones[m & (y == 1)], -shift))
            assert report.weight[k] == np.ldexp(scaled, shift)
    one_call = _quiet(gauc_score, y, s, groups=g, sample_weight=w, weighting="clicks")
    np.testing.assert_array_equal(one_call, report.score)

"""compare_by_segment's edges: a segment of no user, its frames."""

from __future__ import annotations

import math
import warnings

import numpy as np

import receval as rv

QRELS = {f"u{i}": {"a": 1} for i in range(10)}
GOOD = {f"u{i}": {"a": 0.9, "b": 0.5} for i in range(10)}
BAD = {f"u{i}": {"a": 0.1, "b": 0.5} for i in range(10)}  # mrr 1/2 for every user


def _compare(by):
    return rv.compare_by_segment(QRELS, {"good": GOOD, "bad": BAD}, ["mrr"], by=by,
                                 n_permutations=99, n_resamples=99)  # fmt: skip


def test_a_segment_of_no_user_is_nan():
    by = {f"u{i}": "x" for i in range(10)} | {"nobody": "empty"}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning: its n_users 0 says it
        seg = _compare(by)  # it raised 'compare: differences is empty (no user)'
    assert seg.segments.tolist() == ["empty", "x"]
    assert seg.counts.tolist() == [0, 10]
    empty, x = (r.records()[0] for r in seg.reports)
    assert (empty["n_users"], empty["n_users_skipped"], empty["wins"], empty["losses"]) == (
        0, 0, 0, 0
    )  # fmt: skip
    for key in ("mean", "versus_mean", "difference", "p_value", "p_adjusted", "ci_low"):
        assert math.isnan(empty[key]), key
    assert empty["significant"] is False
    assert (x["n_users"], x["difference"], x["losses"]) == (10, -0.5, 10)
    assert x["p_value"] == 1 / 100  # every user loses: the observed sum is the extreme
    assert np.isnan(seg.reports[0].means["mrr"]["good"])

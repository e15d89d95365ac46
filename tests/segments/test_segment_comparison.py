"""compare_by_segment's edges: a segment of no user, its frames."""

from __future__ import annotations

import math
import sys
import warnings

import numpy as np
import pytest

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


def test_users_of_by_not_in_the_qrels_are_counted():
    # u0..u7 in segments, u8, u9 in none; 'zz1' and 'zz2' are no qrels users: ignored
    by = {f"u{i}": "x" if i % 2 else "y" for i in range(8)} | {"zz1": "x", "zz2": "z"}
    seg = _compare(by)
    assert (seg.n_unassigned, seg.n_unknown) == (2, 2)
    assert seg.counts.tolist() == [4, 4, 0]
    assert "2 unknown users ignored" in repr(seg)
    report = rv.evaluate(QRELS, GOOD, ["mrr"]).by_segment(by)
    assert (report.n_unassigned, report.n_unknown) == (2, 2)
    assert "2 unknown users ignored" in repr(report)
    # one label per user names no other user
    assert _compare(["x"] * 10).n_unknown == 0


def _parity(label):
    return rv.compare_by_segment(
        {f"u{i}": {"a": 1} for i in range(40)},
        {"good": {f"u{i}": {"a": 0.9, "b": 0.5} for i in range(40)},
         "bad": {f"u{i}": {"a": 0.1, "b": 0.5} if i % 2 else {"a": 0.9} for i in range(40)}},
        ["mrr"], by={f"u{i}": label(i) for i in range(40)}, n_permutations=99, n_resamples=99,
    )  # fmt: skip


def test_to_frame_with_polars(monkeypatch):
    pl = pytest.importorskip("polars")
    seg = _parity(lambda i: "odd" if i % 2 else "even")
    frame = seg.to_frame(backend="polars")  # it raised 'list' object has no attribute 'dtype'
    assert isinstance(frame, pl.DataFrame)
    assert frame["segment"].to_list() == ["even", "odd", None]
    assert frame["difference"].to_list() == [0.0, -0.5, -0.25]
    assert frame["losses"].to_list() == [0, 20, 20]
    assert frame.columns == list(seg.records()[0])
    monkeypatch.setitem(sys.modules, "pandas", None)  # no pandas: to_frame() is polars'
    assert seg.to_frame().equals(frame)


def test_to_frame_keeps_integer_labels():
    pytest.importorskip("pandas")
    frame = _parity(lambda i: i % 2).to_frame()
    # they were float64: 0.0, 1.0 and NaN for the overall row
    assert frame["segment"].dtype == object
    assert frame["segment"].tolist() == [0, 1, None]
    assert frame["n_users"].tolist() == [20, 20, 40]


Y, P = [0, 1, 0, 1, 0, 1], [0.1, 0.9, 0.2, 0.8, 0.3, 0.7]


@pytest.mark.parametrize(
    ("metric", "data", "options", "message"),
    [
        ("roc_auc", (Y, P[:5]), {}, "by_segment: y_true and y_score must have the same "
         "length. Got lengths [6, 5]."),
        ("roc_auc", (Y, P), {"sample_weight": [1] * 5}, "by_segment: y_true, y_score and "
         "sample_weight must have the same length. Got lengths [6, 6, 5]."),
        ("gauc", (Y, P), {"groups": [1, 1, 2, 2, 3]}, "by_segment: y_true, y_score and groups "
         "must have the same length. Got lengths [6, 6, 5]."),
        ("average_precision", (Y, P[:5]), {}, "by_segment: y_true and y_score "
         "must have the same length. Got lengths [6, 5]."),
        ("roc_auc", (), {}, "by_segment: 'roc_auc' takes (y_true, y_score, sample_weight): "
         "missing a required argument: 'y_true'."),
    ],
)  # fmt: skip
def test_by_segment_short_columns_get_the_metrics_error(metric, data, options, message):
    # a shorter column was an IndexError out of a segment's rows; no data a bare StopIteration
    with pytest.raises(rv.exceptions.RecevalError) as error:
        rv.by_segment(metric, *data, by=list("aaabbb"), **options)
    assert str(error.value) == message


def test_a_sequence_of_runs_is_named_as_compare_names_it():
    from receval.data._ranked import as_run

    good, bad = as_run(GOOD), as_run(BAD)
    good.name, bad.name = "good", "bad"
    by = {f"u{i}": "x" for i in range(10)}
    options = {"n_permutations": 99, "n_resamples": 99}
    seg = rv.compare_by_segment(QRELS, [good, bad], ["mrr"], by=by, baseline="good", **options)
    plain = rv.compare(QRELS, [good, bad], ["mrr"], baseline="good", **options)
    # it named them run0, run1 and refused baseline="good"
    assert [(r["model"], r["versus"]) for r in seg.records()] == [("bad", "good")] * 2
    assert seg.overall.records() == plain.records()
    unnamed = rv.compare_by_segment(QRELS, [GOOD, BAD], ["mrr"], by=by, **options)
    assert unnamed.overall.models == rv.compare(QRELS, [GOOD, BAD], ["mrr"], **options).models


def test_a_segments_warning_names_the_segment():
    by = {"u0": "one"} | {f"u{i}": "many" for i in range(1, 10)}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _compare(by)
    # it said "compare: 1 of 1 comparison has nan statistics ...": of which users?
    said = [str(w.message) for w in caught if issubclass(w.category, rv.UndefinedMetricWarning)]
    assert said == [
        "compare_by_segment, segment 'one': 1 of 1 comparison has nan statistics: too few "
        "users with a value for both models (see n_users), e.g. ['mrr: bad vs good "
        "(effect_size)']."
    ]

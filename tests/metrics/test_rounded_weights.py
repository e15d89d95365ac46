"""One label's weights spanning more than the 126 bits the exact AUC's sums hold: the
core rounds its smallest weights to a coarser unit and says so with the sums, and every
AUC path warns with the label, the span and a bound on how far the value moved.

Before, the ROC AUC and GAUC paths rounded silently (only the precision metrics
warned): ``roc_auc_score([1, 1, 0, 0], [0.9, 0.2, 0.5, 0.1], sample_weight=[1, 2**-123,
3, 1])`` returned 1.0 and said nothing.
"""

from __future__ import annotations

import math
import pickle
import re
import warnings
from functools import reduce

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import receval as rv
from receval.engine.sources import range_state
from receval.metrics._auc import ROC_AUC
from tests.oracles import pointwise as oracle

Y, S = [1, 1, 0, 0], [0.9, 0.2, 0.5, 0.1]
#: two positives 1 and 2**-122: with their count (2 bits) and a carry, 126 bits: exact
FITS = [1.0, 2.0**-122, 3.0, 1.0]
#: 2**-123: one bit more, rounded
OVER = [1.0, 2.0**-123, 3.0, 1.0]

_BOUND = re.compile(r"off by at most ([0-9.e+-]+);")


def _auc_paths(y, s, w):
    """The ROC AUC of the rows by every path that runs the weighted sums: in memory,
    an accumulator of two updates merged, and disjoint score ranges merged (Spark's and
    the out-of-core path's states: the lowest score alone, then the others)."""
    half = len(y) // 2
    acc = rv.metric("roc_auc").update(y[:half], s[:half], sample_weight=w[:half])
    acc = acc.merge(rv.metric("roc_auc").update(y[half:], s[half:], sample_weight=w[half:]))
    params = ROC_AUC.check_params()
    order = np.argsort(s, kind="stable")
    columns = [np.asarray(a) for a in (y, s, w)]
    ranges = [
        range_state(ROC_AUC, params, ROC_AUC.prepare(params, *(a[part] for a in columns)))
        for part in (order[:1], order[1:])
    ]
    return {
        "roc_auc_score": lambda: rv.roc_auc_score(y, s, sample_weight=w),
        "accumulator": acc.compute,
        "ranges": lambda: ROC_AUC.finalize(params, reduce(lambda a, b: a.merge(b), ranges)),
    }


def _silent(call):
    with warnings.catch_warnings():
        warnings.simplefilter("error", rv.RecevalWarning)
        return call()


def _warned(call, match):
    with pytest.warns(rv.RecevalWarning, match=match) as caught:
        value = call()
    bounds = [float(m.group(1)) for w in caught if (m := _BOUND.search(str(w.message)))]
    return value, bounds


@pytest.mark.parametrize("path", ["roc_auc_score", "accumulator", "ranges"])
def test_the_roc_auc_warns_where_one_labels_weights_are_rounded(path):
    # positives 1 and 2**-123 span 124 bits, which with their count passes 126: the
    # unit coarsens to 2**-90 and 2**-123 is held as one unit
    want = oracle.pair_auc_exact(Y, S, OVER)
    message = (
        r"roc_auc_score: the sample weights of the positives span 124 bits \(from the lowest "
        r"set bit of the smallest to the top of their sum\), .* more than the 126 bits "
        r"summed exactly, .* off by at most 8.1e-28; drop or clip the tiniest weights "
        r"\(weights within 2\*\*40 of each other"
    )
    value, bounds = _warned(_auc_paths(Y, S, OVER)[path], message)
    assert abs(value - want) <= bounds[0]
    # at the edge that fits: every bit kept, no warning
    assert _silent(_auc_paths(Y, S, FITS)[path]) == oracle.pair_auc_exact(Y, S, FITS)


def test_both_labels_rounded_are_named_and_their_shares_add_up():
    y, s = [1, 1, 0, 0, 1, 0], [0.9, 0.2, 0.5, 0.1, 0.4, 0.6]
    w = [2.0**900, 2.0**-900, 5.0, 2.0**-200, 1.0, 1.0]
    message = r"the positives span 1,801 bits and those of the negatives span 203 bits"
    value, bounds = _warned(lambda: rv.roc_auc_score(y, s, sample_weight=w), message)
    assert abs(value - oracle.pair_auc_exact(y, s, w)) <= bounds[0]


@pytest.mark.parametrize("func", [rv.average_precision_score, rv.pr_auc_score])
def test_precision_names_the_label_and_gives_no_bound(func):
    # precision is a ratio of the two labels' sums at a threshold: no bound of the share
    message = r"the positives span 124 bits .* the value may be far from exact; drop or clip"
    _warned(lambda: func(Y, S, sample_weight=OVER), message)
    _silent(lambda: func(Y, S, sample_weight=FITS))


def test_gauc_warns_with_the_groups_rounded():
    # group "a": the rows above, rounded; group "b": exact. The NumPy arrays take the
    # core's one call, which leaves rounded weights to the definition (and its warning)
    y = np.array([*Y, 1, 0])
    s = np.array([*S, 0.3, 0.7])
    groups = np.array(["a", "a", "a", "a", "b", "b"])
    w = np.array([*OVER, 1.0, 1.0])
    message = r"gauc_score: the sample weights of the positives span 124 bits in 1 group \("
    for weighting in ("impressions", "clicks", "uniform"):
        gauc = lambda weighting=weighting: rv.gauc_score(  # noqa: E731
            y, s, groups=groups, sample_weight=w, weighting=weighting
        )
        value, bounds = _warned(gauc, message)
        per_group = {"a": oracle.pair_auc_exact(Y, S, OVER), "b": 0.0}
        weight = {
            "impressions": {"a": sum(OVER), "b": 2.0},
            "clicks": {"a": 1.0 + 2.0**-123, "b": 1.0},
            "uniform": {"a": 1.0, "b": 1.0},
        }[weighting]
        want = sum(weight[g] * per_group[g] for g in "ab") / sum(weight.values())
        assert abs(value - want) <= bounds[0] + 1e-16
    acc = rv.metric("gauc").update(y, s, groups=groups, sample_weight=w)
    _warned(acc.compute, message)
    _warned(lambda: rv.group_auc(y, s, groups=groups, sample_weight=w), message)
    _silent(lambda: rv.gauc_score(y, s, groups=groups, sample_weight=np.array([*FITS, 1, 1])))


@st.composite
def _rows(draw):
    """Both classes, scores from a small set (ties), weights of full mantissas."""
    n = draw(st.integers(2, 24))
    y = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    assume(0 < sum(y) < n)
    s = draw(st.lists(st.sampled_from([0.0, 0.1, 0.5, 0.9, 1.0]), min_size=n, max_size=n))
    mantissas = st.floats(1.0, 2.0, exclude_max=True)
    return y, s, draw(st.lists(mantissas, min_size=n, max_size=n))


@given(_rows(), st.integers(-1000, 900), st.data())
def test_weights_within_the_exact_span_never_warn(rows, scale, data):
    # full mantissas times 2**(scale + 0..60): lowest bits from 2**(scale - 52), sums of
    # up to 24 rows below 2**(scale + 66): with their count, at most 119 bits
    y, s, m = rows
    shifts = data.draw(st.lists(st.integers(0, 60), min_size=len(y), max_size=len(y)))
    w = [math.ldexp(mi, scale + e) for mi, e in zip(m, shifts, strict=True)]
    value = _silent(lambda: rv.roc_auc_score(y, s, sample_weight=w))
    assert value == oracle.pair_auc_exact(y, s, w)


@given(_rows(), st.integers(127, 1800), st.integers(-600, 600), st.booleans())
def test_weights_spanning_more_than_126_bits_warn_within_their_bound(rows, span, top, positive):
    # one label holds a weight 2**top and one of a lowest bit 2**(top - span): more than
    # 126 bits apart, its sums are rounded and the warning names it
    y, s, m = rows
    label = int(positive)
    rows_of = [i for i, yi in enumerate(y) if yi == label]
    assume(len(rows_of) >= 2)
    low = top - span
    assume(-1074 <= low and top <= 1000)
    w = list(m)
    w[rows_of[0]] = 2.0**top
    w[rows_of[1]] = math.ldexp(1.0, low)
    name = "positives" if positive else "negatives"
    value, bounds = _warned(
        lambda: rv.roc_auc_score(y, s, sample_weight=w), rf"the {name} span [0-9,]+ bits"
    )
    assert abs(value - oracle.pair_auc_exact(y, s, w)) <= bounds[0] + 2.0**-52


# ------------------------------------------------------------------ states that travel
#: two groups of the rows above, each rounded (groups 1 and 2), or each fitting
TWO_GROUPS = {
    "y": np.array(Y * 2),
    "s": np.array(S * 2),
    "groups": np.repeat([1, 2], 4),
    "over": np.array(OVER * 2),
    "fits": np.array(FITS * 2),
}


def _rounding_warnings(call):
    """``call()`` and the texts of the ``RecevalWarning`` s it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = call()
    return value, [str(w.message) for w in caught if issubclass(w.category, rv.RecevalWarning)]


def _gauc_paths(tmp_path, weights):
    """GAUC of TWO_GROUPS with ``weights`` by every path whose batches of whole groups
    reach one state: Spark's (each partition's state made apart, pickled to the driver,
    merged there), a scan of one group a batch, and whole-group accumulators merged,
    pickled or saved as a state_dict; each a call that gives the value (the states are
    made first: what their updates say is not the driver's)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from receval.metrics._gauc import GAUC

    d = TWO_GROUPS
    parts = [slice(0, 4), slice(4, 8)]
    params, func = GAUC.check_params("receval.spark.gauc_score"), "receval.spark.gauc_score"
    with warnings.catch_warnings():
        warnings.simplefilter("error", rv.RecevalWarning)  # an executor says nothing
        states = [
            pickle.loads(pickle.dumps(GAUC.update(params, GAUC.prepare(
                params, d["y"][p], d["s"][p], groups=d["groups"][p],
                sample_weight=weights[p]))))
            for p in parts
        ]  # fmt: skip
        accs = [
            rv.metric("gauc", whole_groups=True).update(
                d["y"][p], d["s"][p], groups=d["groups"][p], sample_weight=weights[p]
            )
            for p in parts
        ]
    merged_acc = accs[0].merge(accs[1])
    path = tmp_path / "rows.parquet"
    pq.write_table(pa.table({"y": d["y"], "s": d["s"], "g": d["groups"], "w": weights}), path)
    sc = rv.scan(str(path), batch_rows=4)
    columns = (sc["y"], sc["s"])
    return {
        "spark partitions": lambda: GAUC.value(params, states[0].merge(states[1], func), func=func),
        "scan": lambda: rv.gauc_score(*columns, groups=sc["g"], sample_weight=sc["w"]),
        "scan report": lambda: rv.group_auc(*columns, groups=sc["g"], sample_weight=sc["w"]).score,
        "accumulators merged": merged_acc.compute,
        "pickled": lambda: pickle.loads(pickle.dumps(merged_acc)).compute(),
        "state_dict": lambda: (
            rv.metric("gauc", whole_groups=True).load_state_dict(merged_acc.state_dict()).compute()
        ),
    }


@pytest.mark.parametrize(
    "path",
    ["spark partitions", "scan", "scan report", "accumulators merged", "pickled", "state_dict"],
)
def test_gauc_of_states_merged_warns_once_as_the_function(tmp_path, path):
    # before: the states of whole groups (GroupTotals) kept no rounding: Spark's
    # partitions warned on the executors and the driver's value said nothing, a scan
    # warned once a batch ("in 1 group", twice), merged and loaded accumulators never
    if path == "state_dict":
        pytest.importorskip("torch")
    d = TWO_GROUPS
    want, memory = _rounding_warnings(
        lambda: rv.gauc_score(d["y"], d["s"], groups=d["groups"], sample_weight=d["over"])
    )
    assert len(memory) == 1 and "span 124 bits in 2 groups" in memory[0]
    value, said = _rounding_warnings(_gauc_paths(tmp_path, d["over"])[path])
    assert (value, said) == (want, memory)
    # weights that fit: the same value, and nothing said
    fits = rv.gauc_score(d["y"], d["s"], groups=d["groups"], sample_weight=d["fits"])
    assert _rounding_warnings(_gauc_paths(tmp_path, d["fits"])[path]) == (fits, [])


CURVES = {
    "roc_auc": rv.roc_auc_score,
    "average_precision": rv.average_precision_score,
    "pr_auc": rv.pr_auc_score,
    "break_even_point": rv.break_even_point,
}


def _saved(name, weights):
    """The accumulators of ``name`` over ``Y, S, weights`` that travelled: pickled,
    saved as a state_dict, and each of two updates pickled, then merged."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rv.RecevalWarning)
        acc = rv.metric(name).update(Y, S, sample_weight=weights)
        halves = [rv.metric(name).update(Y[p], S[p], sample_weight=weights[p])
                  for p in (slice(0, 2), slice(2, 4))]  # fmt: skip
    first, second = (pickle.loads(pickle.dumps(a)) for a in halves)
    return {
        "pickled": lambda: pickle.loads(pickle.dumps(acc)).compute(),
        "state_dict": lambda: rv.metric(name).load_state_dict(acc.state_dict()).compute(),
        "pickled halves merged": lambda: first.merge(second).compute(),
    }


@pytest.mark.parametrize("name", sorted(CURVES))
@pytest.mark.parametrize("path", ["pickled", "state_dict", "pickled halves merged"])
def test_weighted_counts_that_travelled_warn_as_the_function(name, path):
    # before: a ScoreCounts' pickle and state_dict kept its counts and units but not
    # its rounding, and came back looking exact: the same value, nothing said
    if path == "state_dict":
        pytest.importorskip("torch")
    func = CURVES[name]
    want = _rounding_warnings(lambda: func(Y, S, sample_weight=OVER))
    assert len(want[1]) == 1
    assert _rounding_warnings(_saved(name, OVER)[path]) == want
    assert _rounding_warnings(_saved(name, FITS)[path]) == (func(Y, S, sample_weight=FITS), [])

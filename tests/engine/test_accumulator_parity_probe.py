"""receval.metric(): any batches (empty, of one row), merges in any grouping, pickles and
``reset`` give the function's value and counts on all the rows (``==``); a refused
update names its argument and leaves the state as it was."""

import math
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import receval as rv
from receval import RecevalError
from receval.registry import ENTRIES, load

POINTWISE = sorted(n for n, r in ENTRIES.items() if r.definition_path and r.family == "pointwise")
GROUPED = sorted(n for n, r in ENTRIES.items() if r.definition_path and r.family == "grouped")
BINARY = {"y_proba", "y_prob"}  # the other pointwise metrics' second input is a score
REGRESSION = {"r2", "explained_variance", "mean_absolute_error", "root_mean_squared_error",
              "regression_auc", "xauc", "grouped_xauc", "grouped_regression_auc"}  # fmt: skip
DTYPES = [np.float16, np.float32, np.float64]
OPTIONS = {"partial_auc": {"max_fpr": 0.5}}  # an option without a default
SETTINGS = settings(max_examples=40, deadline=None, derandomize=True)


def _function(name):
    function = load(ENTRIES[name].function_path)
    return lambda *data, **kwargs: function(*data, **kwargs, **OPTIONS.get(name, {}))


def _metric(name, **kwargs):
    return rv.metric(name, **kwargs, **OPTIONS.get(name, {}))


def _same(a, b):
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return bool(a == b)


def _container(x, kind):
    """A batch's column as NumPy, a list, a CPU tensor or a pandas Series."""
    if x is None:
        return None
    if kind == "torch" and x.dtype.kind != "U":  # torch holds no strings: ids as a list
        return torch.from_numpy(x.copy())
    return {"numpy": x, "pandas": pd.Series(x)}.get(kind, x.tolist())


def _value(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return call()
        except RecevalError as e:
            return type(e).__name__


@st.composite
def _rows(draw, name):
    n = draw(st.integers(1, 24))
    if name in REGRESSION:
        y = np.array(draw(st.lists(st.sampled_from([0.0, 1.0, 2.5, 1e300, 5e-324, 4.0]),
                                   min_size=n, max_size=n)))  # fmt: skip
    else:
        y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
        y = y.astype(draw(st.sampled_from([bool, np.int64, np.float64])))
    dtype = draw(st.sampled_from(DTYPES))
    scores = [0.0, 5e-324, 0.25, 0.5, 0.5, 0.75, 1.0] if name in REGRESSION else [
        5e-324, 0.1, 0.25, 0.5, 0.5, 0.75, 0.9]  # fmt: skip
    p = np.array(draw(st.lists(st.sampled_from(scores), min_size=n, max_size=n)), dtype=dtype)
    weighted = "sample_weight" in ENTRIES[name].inputs and draw(st.booleans())
    w = None
    if weighted:
        w = np.array(draw(st.lists(st.sampled_from([0.5, 1.0, 2.0, 3.25]), min_size=n,
                                   max_size=n)))  # fmt: skip
    g = None
    if "groups" in ENTRIES[name].inputs:
        g = np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)))
        g = g.astype(str) if draw(st.booleans()) else g
    cuts = sorted(draw(st.lists(st.integers(0, n), max_size=5)))  # repeats: empty batches
    # lists lose the float16/float32 dtype, which log loss's eps="auto" reads per batch
    kinds = ["numpy", "torch", "pandas"] + (["list"] if dtype == np.float64 else [])
    batches = [(draw(st.sampled_from(kinds)), draw(st.sampled_from(["keep", "pickle", "new"])))
               for _ in range(len(cuts) + 1)]  # fmt: skip
    return y, p, w, g, cuts, batches, draw(st.randoms(use_true_random=False))


def _accumulated(name, y, p, w, g, cuts, batches, rnd):
    """Batches into accumulators (pickled mid-way, a new worker's now and then), merged
    in a random grouping; the first accumulator saw a batch and was reset."""
    acc = _metric(name)
    first = {"groups": g[:1]} if g is not None else {}
    acc.update(y[:1], p[:1], **first, **({} if w is None else {"sample_weight": w[:1]}))
    acc.reset()
    done = []
    columns = [np.split(c, cuts) if c is not None else [None] * (len(cuts) + 1)
               for c in (y, p, w, g)]  # fmt: skip
    for (yb, pb, wb, gb), (kind, then) in zip(zip(*columns, strict=True), batches, strict=True):
        kwargs = {} if wb is None else {"sample_weight": _container(wb, kind)}
        if gb is not None:
            kwargs["groups"] = _container(gb, kind)
        acc.update(_container(yb, kind), _container(pb, kind), **kwargs)
        if then == "pickle":
            acc = pickle.loads(pickle.dumps(acc))
        elif then == "new":
            done.append(acc)
            acc = _metric(name)
    done.append(acc)
    while len(done) > 1:  # workers merged two at a time, in any grouping
        a = done.pop(rnd.randrange(len(done)))
        b = done.pop(rnd.randrange(len(done)))
        done.append(a.merge(b) if rnd.random() < 0.5 else b.merge(a))
    return done[0]


@pytest.mark.parametrize("name", POINTWISE + GROUPED)
def test_batches_merges_pickles_and_reset_give_the_functions_value(name):
    @SETTINGS
    @given(_rows(name))
    def check(rows):
        y, p, w, g, cuts, batches, rnd = rows
        kwargs = {} if w is None else {"sample_weight": w}
        if g is not None:
            kwargs["groups"] = g
        expected = _value(lambda: _function(name)(y, p, **kwargs))
        assume(not isinstance(expected, str))  # the function refuses these rows
        acc = _accumulated(name, y, p, w, g, cuts, batches, rnd)
        assert _same(_value(acc.compute), expected)
        whole = _metric(name).update(y, p, **kwargs)
        assert _value(acc.skipped) == _value(whole.skipped)

    check()


BAD = {
    "nan": lambda y, p: (y, np.where(np.arange(len(p)) == 1, np.nan, p)),
    "length": lambda y, p: (y, p[:-1]),
    "labels -1/1": lambda y, p: (np.where(y == 0, -1, y), p),
    "labels 0/2": lambda y, p: (2 * y, p),
}


@pytest.mark.parametrize("name", POINTWISE + GROUPED)
@pytest.mark.parametrize("bad", sorted(BAD))
def test_a_refused_update_leaves_the_state_as_it_was(name, bad):
    y, p = np.array([0, 1, 1, 0]), np.array([0.2, 0.7, 0.4, 0.9])
    kwargs = {"groups": [1, 1, 2, 2]} if "groups" in ENTRIES[name].inputs else {}
    acc = _metric(name).update(y, p, **kwargs)
    by, bp = BAD[bad](y, p)
    rows = [(y, p)]
    try:
        acc.update(by, bp, **kwargs)
        rows.append((by, bp))  # not refused (a regression metric's labels): counted
    except RecevalError as e:
        assert str(e).split(":")[0] in (ENTRIES[name].function, f"{ENTRIES[name].function}_score",
                                        f"Accumulator.update of {name!r}")  # fmt: skip
    acc.update(y[::-1], p, **kwargs)
    rows.append((y[::-1], p))
    data = [np.concatenate(c) for c in zip(*rows, strict=True)]
    groups = {k: np.concatenate([v] * len(rows)) for k, v in kwargs.items()}
    assert _same(_value(acc.compute), _value(lambda: _function(name)(*data, **groups)))


BINARY_LABELS = sorted(
    n for n in POINTWISE + GROUPED if any(p.name == "pos_label" for p in ENTRIES[n].params)
)


@pytest.mark.parametrize("name", BINARY_LABELS)
@pytest.mark.parametrize("labels", [[1, 0, 1, 0], [1, -1, 1, -1], [True, 0, 1, 0]])
def test_labels_held_as_objects_are_read_as_the_numbers_they_are(name, labels):
    """A pandas column of dtype object holding 0/1 (or -1/1) labels: the function and
    the accumulator give the value of the same labels as integers."""
    pd = pytest.importorskip("pandas")
    p = np.array([0.9, 0.1, 0.4, 0.6])
    kwargs = {"groups": [1, 1, 1, 1]} if "groups" in ENTRIES[name].inputs else {}
    held = pd.Series(labels, dtype=object)
    expected = _value(lambda: _function(name)(np.array(labels, dtype=np.int64), p, **kwargs))
    assert not isinstance(expected, str)
    assert _same(_value(lambda: _function(name)(held, p, **kwargs)), expected)
    acc = _metric(name).update(held[:2], p[:2], **{k: x[:2] for k, x in kwargs.items()})
    acc.update(held[2:].to_numpy(), p[2:], **{k: x[2:] for k, x in kwargs.items()})
    assert _same(_value(acc.compute), expected)

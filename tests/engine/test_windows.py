"""Windows of accumulators: ``metric(name, window=N)`` against the function on the window's rows.

For every metric of the engine (the registry-driven adapters of test_backends):
random batches, a window of batches and a window of rows; ``compute_window()``
must equal the metric's function on exactly the rows of the window, and
``compute()`` the function on every row, whatever the batch sizes.
"""

import itertools
import math
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval as rv
from receval.engine.metric import DEFINITIONS
from receval.exceptions import InvalidParameterError
from tests.engine.test_backends import ADAPTERS, OPTIONS, _check, _function, _rows, _take

# a window of one class leaves AUC or NE undefined: nan and a warning, on both sides
pytestmark = pytest.mark.filterwarnings("ignore::receval.exceptions.UndefinedMetricWarning")


def _same(name, got, expected, n_rows):
    """Weighted AUCs of rows that came in several batches agree to the documented
    tolerance of a split (float weights summed per score in another order)."""
    if isinstance(expected, float) and math.isnan(expected):
        assert math.isnan(got)
    else:
        _check(name, got, expected, True, split_rows=n_rows)


def _batches(name, seed, n=200):
    """The rows of a metric and random batch bounds (whole groups for grouped metrics)."""
    y, p, w, g = _rows(seed, n=n)
    args, kwargs = ADAPTERS[name](y, p, w, g)
    rng = np.random.default_rng(seed + 7)
    step = 10 if DEFINITIONS[name].partitioning == "groups" else 1
    cuts = np.sort(rng.choice(np.arange(step, n, step), 8, replace=False))
    return args, kwargs, list(zip([0, *cuts], [*cuts, n], strict=True))


@pytest.mark.parametrize("name", sorted(ADAPTERS))
@pytest.mark.parametrize("size", [1, 3, 20])
@pytest.mark.parametrize("seed", range(2))
def test_window_of_batches_is_the_function_on_their_rows(name, size, seed):
    args, kwargs, bounds = _batches(name, seed)
    options = OPTIONS.get(name, {})
    acc = rv.metric(name, window=size, **options)
    for i, (a, b) in enumerate(bounds):
        part_args, part_kwargs = _take(args, kwargs, slice(a, b))
        acc.update(*part_args, **part_kwargs)
        first = bounds[max(0, i + 1 - size)][0]
        window_args, window_kwargs = _take(args, kwargs, slice(first, b))
        expected = _function(name)(*window_args, **window_kwargs, **options)
        _same(name, acc.compute_window(), expected, b - first)
        whole_args, whole_kwargs = _take(args, kwargs, slice(0, b))
        _same(name, acc.compute(), _function(name)(*whole_args, **whole_kwargs, **options), b)


ROWS = sorted(n for n in ADAPTERS if DEFINITIONS[n].partitioning != "groups")


@pytest.mark.parametrize("name", ROWS)
@pytest.mark.parametrize("size", [1, 5, 37, 500])
def test_window_of_rows_is_the_function_on_the_last_rows(name, size):
    args, kwargs, bounds = _batches(name, 3)
    options = OPTIONS.get(name, {})
    acc = rv.metric(name, window=size, window_unit="rows", **options)
    for a, b in bounds:
        part_args, part_kwargs = _take(args, kwargs, slice(a, b))
        acc.update(*part_args, **part_kwargs)
        window_args, window_kwargs = _take(args, kwargs, slice(max(0, b - size), b))
        expected = _function(name)(*window_args, **window_kwargs, **options)
        _same(name, acc.compute_window(), expected, b - max(0, b - size))


@settings(max_examples=60, deadline=None)
@given(
    rows=st.lists(
        st.tuples(st.sampled_from([0, 1]), st.sampled_from([0.1, 0.5, 0.5, 0.9])),
        min_size=2,
        max_size=40,
    ),
    cuts=st.lists(st.integers(1, 39), max_size=6),
    size=st.integers(1, 45),
)
def test_tied_scores_any_cut(rows, cuts, size):
    y = np.array([r[0] for r in rows])
    p = np.array([r[1] for r in rows])
    bounds = sorted({c for c in cuts if c < len(y)} | {0, len(y)})
    acc = rv.metric("log_loss", window=size, window_unit="rows")
    auc = rv.metric("roc_auc", window=size, window_unit="rows")
    for a, b in itertools.pairwise(bounds):
        acc.update(y[a:b], p[a:b])
        auc.update(y[a:b], p[a:b])
    tail = slice(max(0, len(y) - size), len(y))
    assert acc.compute_window() == rv.log_loss(y[tail], p[tail])
    if len(set(y[tail].tolist())) == 2:
        assert auc.compute_window() == rv.roc_auc_score(y[tail], p[tail])


def test_ranking_metric_window_of_batches():
    acc = rv.metric("ndcg@10", window=2)
    batches = [
        ({"u": {"a": 1}}, {"u": {"a": 0.9, "b": 0.1}}),
        ({"v": {"b": 1}}, {"v": {"a": 0.9, "b": 0.1}}),
        ({"w": {"c": 2}}, {"w": {"c": 0.5}}),
    ]
    for qrels, run in batches:
        acc.update(qrels, run)
    last = rv.evaluate({**batches[1][0], **batches[2][0]}, {**batches[1][1], **batches[2][1]},
                       ["ndcg@10"]).mean["ndcg@10"]  # fmt: skip
    assert acc.compute_window() == last
    every = rv.evaluate({k: v for q, _ in batches for k, v in q.items()},
                        {k: v for _, r in batches for k, v in r.items()}, ["ndcg@10"])  # fmt: skip
    assert acc.compute() == every.mean["ndcg@10"]


def test_merge_appends_the_other_window_then_trims():
    ys = [([1, 0], [0.9, 0.2]), ([0, 1], [0.4, 0.3]), ([1], [0.6]), ([0, 0, 1], [0.1, 0.8, 0.7])]
    a = rv.metric("log_loss", window=3)
    b = rv.metric("log_loss", window=3)
    for y, p in ys[:2]:
        a.update(y, p)
    for y, p in ys[2:]:
        b.update(y, p)
    a.merge(b)  # a's two batches, then b's two: the last three are ys[1:]
    rows = [r for part in ys[1:] for r in zip(*part, strict=True)]
    assert a.compute_window() == rv.log_loss([r[0] for r in rows], [r[1] for r in rows])
    every = [r for part in ys for r in zip(*part, strict=True)]
    assert a.compute() == rv.log_loss([r[0] for r in every], [r[1] for r in every])
    assert a.n_updates == 4


def test_window_pickles_and_resets():
    acc = rv.metric("roc_auc", window=4, window_unit="rows")
    acc.update([1, 0, 1], [0.9, 0.2, 0.4]).update([0, 1, 0], [0.5, 0.6, 0.1])
    back = pickle.loads(pickle.dumps(acc))
    assert (
        back.compute_window()
        == acc.compute_window()
        == rv.roc_auc_score([1, 0, 1, 0], [0.4, 0.5, 0.6, 0.1])
    )
    assert "window of 4 rows" in repr(back)
    back.reset()
    back.update([1, 0], [0.3, 0.2])
    assert back.compute_window() == back.compute() == 1.0


def test_window_errors():
    with pytest.raises(InvalidParameterError, match=r"'window' parameter of metric must be"):
        rv.metric("log_loss", window=0)
    with pytest.raises(InvalidParameterError, match=r"'window' parameter of metric must be"):
        rv.metric("log_loss", window=2.5)
    with pytest.raises(InvalidParameterError, match=r"'window_unit' parameter of metric must"):
        rv.metric("log_loss", window=2, window_unit="days")
    with pytest.raises(InvalidParameterError, match="use window_unit='batches'"):
        rv.metric("gauc", window=10, window_unit="rows")
    with pytest.raises(InvalidParameterError, match="has no window"):
        rv.metric("log_loss").update([1], [0.5]).compute_window()
    with pytest.raises(InvalidParameterError, match="merge accumulators of one window"):
        rv.metric("log_loss", window=2).merge(rv.metric("log_loss", window=3))

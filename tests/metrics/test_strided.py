"""Strided NumPy views (every other element of a larger array, reversed views) give
the value of their contiguous copies, in every pointwise function, GAUC and the
accumulators: the compiled core takes C-contiguous arrays, and the layer in front of
it must make them so rather than fail."""

from __future__ import annotations

import numpy as np
import pytest

import receval as rv
from receval.registry import definitions

POINTWISE = [entry.name for entry in rv.list_metrics(family="pointwise")]
ACCUMULATORS = set(definitions())
OPTIONS = {"partial_auc": {"max_fpr": 0.3}}  # metrics with a required option


def _data(seed: int = 0):
    rng = np.random.default_rng(seed)
    n = 400
    y = (rng.random(2 * n) < 0.3).astype(np.float64)
    p = np.round(rng.random(2 * n), 2)  # ties
    w = rng.random(2 * n) + 0.5
    g = rng.integers(0, 20, 2 * n)
    return y, p, w, g


# weighted only where the registry row takes sample_weight
CASES = [
    (name, weighted)
    for name in POINTWISE
    for weighted in (False, True)
    if not weighted or "sample_weight" in rv.metric_info(name).inputs
]


@pytest.mark.parametrize(("name", "weighted"), CASES)
def test_strided_pointwise_inputs_equal_contiguous(name, weighted):
    fn = getattr(rv, rv.metric_info(name).function)
    options = OPTIONS.get(name, {})
    y, p, w, _ = _data()
    views = [y[::2], p[::2], w[::2]]
    copies = [np.ascontiguousarray(a) for a in views]
    assert not views[0].flags.c_contiguous
    kw = (lambda ws: {"sample_weight": ws, **options}) if weighted else (lambda ws: options)
    expected = fn(copies[0], copies[1], **kw(copies[2]))
    assert fn(views[0], views[1], **kw(views[2])) == expected
    rev = [a[::-1] for a in copies]
    assert fn(rev[0][::-1], rev[1][::-1], **kw(rev[2][::-1])) == expected
    if name not in ACCUMULATORS:
        return
    acc = rv.metric(name, **options)
    acc.update(views[0], views[1], **({"sample_weight": views[2]} if weighted else {}))
    if weighted and name in ("roc_auc", "partial_auc"):  # float weighted counts (as elsewhere)
        assert acc.compute() == pytest.approx(expected, rel=1e-12)
    else:
        assert acc.compute() == expected


@pytest.mark.parametrize("weighting", ["impressions", "clicks", "uniform"])
@pytest.mark.parametrize("weighted", [False, True])
def test_strided_gauc_inputs_equal_contiguous(weighting, weighted):
    y, p, w, g = _data(1)
    views = [y[::2], p[::2], g[::2], w[::2]]
    copies = [np.ascontiguousarray(a) for a in views]

    def call(yy, pp, gg, ww):
        return rv.gauc_score(
            yy, pp, groups=gg, weighting=weighting, sample_weight=ww if weighted else None
        )

    assert call(*views) == call(*copies)

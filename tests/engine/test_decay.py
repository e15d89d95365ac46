"""``metric("roc_auc", decay=d)``: the exponentially decayed exact AUC (TorchEasyRec's
``DecayAUC`` without its bins) against the weighted function."""

import math
import pickle

import numpy as np
import pytest

import receval as rv
from receval import InvalidParameterError
from receval.engine.window import DecayClock


def _batches(seed, n_batches, rows=40):
    rng = np.random.default_rng(seed)
    for _ in range(n_batches):
        y = rng.integers(0, 2, rows)
        s = rng.choice(np.linspace(0, 1, 9), rows)  # ties across batches
        w = rng.random(rows) + 0.5
        yield y, s, w


def _torcheasyrec_weights(decay, n):
    """Weight of each update's rows after ``n`` updates, as TorchEasyRec's DecayAUC
    counts them (``counts = d * counts + (1 - d) * batch`` after every update but the
    first), oldest first: exact reals rounded once."""
    return [decay ** (n - 1)] + [(1 - decay) * decay ** (n - t) for t in range(2, n + 1)]


def _clock_weights(decay, n):
    """The factors the state gives each update's rows, in one scale (floats as the
    clock rounds them)."""
    clock, factors = DecayClock(), []
    for _ in range(n):
        factor, _ = clock.step(decay)
        factors.append((factor, clock.exponent))
    return [math.ldexp(f, e - clock.exponent) for f, e in factors]


@pytest.mark.parametrize("decay", [0.5, 0.9, 0.99])
@pytest.mark.parametrize("weighted", [False, True])
def test_decayed_auc_is_the_weighted_function(decay, weighted):
    parts = list(_batches(0, 30))
    acc = rv.metric("roc_auc", decay=decay)
    for y, s, w in parts:
        acc.update(y, s, sample_weight=w if weighted else None)
    y, s, w = (np.concatenate(c) for c in zip(*parts, strict=True))
    rows = [len(p[0]) for p in parts]
    own = w if weighted else np.ones(len(y))
    # the clock's own factors: the same float (exact sums of the same weights)
    factors = np.repeat(_clock_weights(decay, len(parts)), rows)
    assert acc.compute() == rv.roc_auc_score(y, s, sample_weight=own * factors)
    # TorchEasyRec's weights, computed exactly: within the rounding of the factors
    exact = np.repeat(_torcheasyrec_weights(decay, len(parts)), rows)
    assert acc.compute() == pytest.approx(
        rv.roc_auc_score(y, s, sample_weight=own * exact), rel=1e-13
    )


def test_decay_renormalises_without_touching_the_rows_held():
    """Thousands of updates: the newest rows' factor passes 2**64 many times and is
    divided (with the weights held) by a power of two; the value stays that of the
    weighted function on the recent rows, which dominate."""
    decay = 0.9
    acc = rv.metric("roc_auc", decay=decay)
    parts = list(_batches(1, 2000, rows=5))
    for y, s, _ in parts:
        acc.update(y, s)
    assert acc.state.clock.exponent >= 64 * 4
    recent = parts[-300:]  # 0.9**300 ~ 2e-14: older rows change nothing at 1e-12
    y, s, _ = (np.concatenate(c) for c in zip(*recent, strict=True))
    weights = np.repeat([(1 - decay) * decay ** (299 - i) for i in range(300)], 5)
    assert acc.compute() == pytest.approx(rv.roc_auc_score(y, s, sample_weight=weights),
                                          rel=1e-12)  # fmt: skip


def test_decayed_accumulators_pickle_and_merge_in_step():
    parts = list(_batches(2, 10))
    a, b = rv.metric("roc_auc", decay=0.8), rv.metric("roc_auc", decay=0.8)
    whole = rv.metric("roc_auc", decay=0.8)
    for y, s, w in parts:
        half = len(y) // 2
        a.update(y[:half], s[:half], sample_weight=w[:half])
        b.update(y[half:], s[half:], sample_weight=w[half:])
        whole.update(y, s, sample_weight=w)
    assert pickle.loads(pickle.dumps(a)).merge(b).compute() == whole.compute()
    behind = rv.metric("roc_auc", decay=0.8).update(*parts[0][:2])
    with pytest.raises(InvalidParameterError, match="same update"):
        whole.merge(behind)
    with pytest.raises(InvalidParameterError, match="cannot merge"):
        whole.merge(rv.metric("roc_auc", decay=0.7))


@pytest.mark.parametrize(
    ("name", "options", "message"),
    [
        ("roc_auc", {"decay": 1.0}, r"'decay' parameter of metric must be a float in \(0, 1\)"),
        ("roc_auc", {"decay": "0.9"}, r"must be a float in \(0, 1\)"),
        ("log_loss", {"decay": 0.9}, r"decay is defined for the exact roc_auc only"),
        ("roc_auc", {"decay": 0.9, "bins": 100}, r"decay is defined for the exact roc_auc"),
        ("roc_auc", {"decay": 0.9, "window": 3}, r"takes decay or window, not both"),
    ],
)
def test_decay_options_are_checked(name, options, message):
    with pytest.raises(InvalidParameterError, match=message):
        rv.metric(name, **options)

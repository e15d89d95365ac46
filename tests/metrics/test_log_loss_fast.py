"""The one-pass log loss of plain NumPy input equals the full path (same float), and
input the checks refuse gets the full path's error."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import receval as rv
from receval import _validation as v
from receval.exceptions import InputValidationError
from receval.metrics import _loss


def _full(x):
    """``x`` as a pandas Series (a 2-D array as lists), which the one call does not
    take (lists of numbers take it, as arrays do): the full path computes it."""
    return pd.Series(x) if x.ndim == 1 else x.tolist()


def _one_call(y, p, w=None):
    """The log-loss definition's one-call hook, with the function's eps="auto" and
    weights checked as the function checks them first."""
    params = _loss.LOG_LOSS.check_params("log_loss", eps="auto")
    if w is not None:
        w = v.check_sample_weight(w, len(w), "log_loss", relative=True)
    return _loss.LOG_LOSS.one_partition(params, {"y_true": y, "y_pred": p, "sample_weight": w})


@settings(max_examples=80, deadline=None)
@given(
    rows=st.lists(
        st.tuples(st.integers(0, 1), st.sampled_from([0.0, 1.0, 1e-300, 0.5, 0.25, 1 - 1e-17])
                  | st.floats(0, 1)),
        min_size=1, max_size=200,
    ),
    dtype=st.sampled_from([np.int8, np.int16, np.int32, np.int64, np.uint8, np.bool_, np.float64]),
)  # fmt: skip
def test_fast_path_equals_the_full_path(rows, dtype):
    y = np.array([r[0] for r in rows]).astype(dtype)
    p = np.array([r[1] for r in rows], dtype=np.float64)
    fast = _one_call(y, p)
    assert fast is not None
    assert fast == rv.log_loss(_full(y), _full(p))


def _outcome(y, p):
    try:
        return rv.log_loss(y, p)
    except InputValidationError as exc:
        return str(exc)


@pytest.mark.parametrize("y, p", [([0, 1, 1], [0.1, 0.2]), ([], [])])
def test_input_of_other_shapes_takes_the_full_path(y, p):
    """Lengths that differ and empty input are left to the full path, which names them."""
    y, p = np.array(y), np.array(p, dtype=np.float64)
    assert _one_call(y, p) is None
    assert _outcome(y, p) == _outcome(_full(y), _full(p))


@pytest.mark.parametrize(
    "y, p",
    [
        ([0, 1], [0.1, 1.5]),
        ([0, 1], [0.1, np.nan]),
        ([0, 1], [-0.1, 0.2]),
    ],
)
def test_refused_input_raises_in_the_full_paths_words(y, p):
    """Probabilities outside [0, 1] and NaN: the core refuses them and the hook raises
    the full path's message (that of a Series), with no second check."""
    y, p = np.array(y), np.array(p, dtype=np.float64)
    with pytest.raises(InputValidationError) as info:
        _one_call(y, p)
    assert str(info.value) == _outcome(_full(y), _full(p))
    assert _outcome(y, p) == _outcome(_full(y), _full(p))


@pytest.mark.parametrize("y", [[0.0, 0.5], [-1, 1], [0, 2], [1, 2]])
def test_labels_other_than_0_1_are_left_to_the_checks(y):
    """Labels other than 0/1: the hook leaves them to the definition's checks, which read
    a pair of them (-1/1) or refuse them in their words; the function maps two classes
    to 0/1 before the hook, and refuses soft labels in its words, as for a Series."""
    y, p = np.array(y), np.array([0.1, 0.2])
    assert _one_call(y, p) is None
    assert _outcome(y, p) == _outcome(_full(y), _full(p))
    if y.dtype.kind == "i":
        assert _outcome(y, p) == rv.log_loss([0, 1], [0.1, 0.2])


@pytest.mark.parametrize(
    "y, p",
    [
        (np.array([0, 1, 1]), np.array([[0.8, 0.2], [0.3, 0.7], [0.0, 1.0]])),  # 2-D
        (np.array([0, 1, 1]), np.array([0, 1, 1])),  # integer probabilities
        (np.array(["a", "b", "b"]), np.array([0.2, 0.7, 1.0])),
        (np.repeat([0, 1, 1], 2)[::2], np.repeat([0.2, 0.7, 1.0], 2)[::2]),  # strided
        (np.repeat([0, 1, 1], 2).astype(np.int8)[::2], np.array([0.2, 0.7, 1.0])),
    ],
)
def test_other_arrays_take_the_full_path(y, p):
    assert _one_call(y, p) is None
    assert _outcome(y, p) == _outcome(_full(np.ascontiguousarray(y)), _full(p))


@settings(max_examples=60, deadline=None)
@given(
    rows=st.lists(
        st.tuples(st.integers(0, 1), st.sampled_from([0.0, 1.0, 1e-30, 0.5, 1 - 1e-9])
                  | st.floats(0, 1, width=32),
                  st.sampled_from([0.0, 1.0, 1e-300, 1e300, 3.5]) | st.floats(0, 1e6)),
        min_size=1, max_size=200,
    ),
    float32=st.booleans(),
    weighted=st.booleans(),
)  # fmt: skip
def test_float32_and_weighted_input_in_one_call_equal_the_full_path(rows, float32, weighted):
    """float32 probabilities (clipped with float32's epsilon) and checked weights take
    the one call too, with the full path's float; a zero total weight (a warning) is
    left to the full path."""
    y = np.array([r[0] for r in rows])
    p = np.array([r[1] for r in rows], dtype=np.float32 if float32 else np.float64)
    w = np.array([r[2] for r in rows]) if weighted else None
    assume(w is None or w.sum() > 0)
    eps = float(np.finfo(p.dtype).eps)
    full = rv.log_loss(_full(y), _full(p), eps=eps, sample_weight=None if w is None else _full(w))
    fast = _one_call(y, p, w)
    assert fast is not None
    assert fast == full


def test_zero_total_weight_takes_the_full_path():
    y, p, w = np.array([0, 1]), np.array([0.2, 0.7]), np.zeros(2)
    assert _one_call(y, p, w) is None


def test_strided_arrays_of_the_full_path():
    """Views with a stride (every other row) are copied for the kernels."""
    y, p, w = np.array([0, 1, 1, 0]), np.array([0.2, 0.7, 0.9, 0.4]), np.arange(1.0, 5.0)
    strided = np.repeat(w, 2)[::2]
    assert rv.log_loss(y, p, sample_weight=strided) == rv.log_loss(y, p, sample_weight=w)
    lab = np.repeat(y, 2).astype(np.int8)[::2]
    assert rv.log_loss(lab, p, sample_weight=w) == rv.log_loss(y, p, sample_weight=w)


_PATHS_SCRIPT = """
import numpy as np
import receval as rv

rng = np.random.default_rng(5)
n = 70_000  # several blocks, a shared chunk of updates, two chunks of the function
y = (rng.random(n) < 0.3).astype(np.int8)
p = rng.random(n)
p[::7] = 0.0
p[1::7] = 1.0
p[2::7] = rng.random(len(p[2::7])) * 1e-300  # below eps and subnormal
p[3::7] = 1 - rng.random(len(p[3::7])) * 1e-12  # near 1
w = rng.random(n) * 10
out = []
for q in (p, p.astype(np.float32)):
    out += [rv.log_loss(y, q), rv.log_loss(y, q, sample_weight=w)]
    acc = rv.metric("log_loss")
    for lo in range(0, n, 10_000):
        acc.update(y[lo : lo + 10_000], q[lo : lo + 10_000])
    out.append(acc.compute())
print([float(x).hex() for x in out])
"""


def test_every_simd_path_gives_the_same_float():
    """The kernels compiled for each SIMD level (scalar, AVX2, AVX-512, chosen at run
    time) give the same bits: a process with the scalar paths forced computes the same
    log losses, function and accumulator, float64 and float32, weighted or not."""
    run = [sys.executable, "-c", _PATHS_SCRIPT]
    simd = subprocess.run(run, capture_output=True, text=True, check=True)
    env = dict(os.environ, RECEVAL_FORCE_SCALAR="1")
    scalar = subprocess.run(run, capture_output=True, text=True, check=True, env=env)
    assert simd.stdout == scalar.stdout
    assert simd.stdout.count("0x") == 6

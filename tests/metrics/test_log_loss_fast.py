"""The one-pass log loss of plain NumPy input equals the full path (same float), and
input the checks refuse gets the full path's error."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval as rv
from receval.exceptions import InputValidationError
from receval.metrics import _loss


@settings(max_examples=80, deadline=None)
@given(
    rows=st.lists(
        st.tuples(st.integers(0, 1), st.sampled_from([0.0, 1.0, 1e-300, 0.5, 0.25, 1 - 1e-17])
                  | st.floats(0, 1)),
        min_size=1, max_size=200,
    ),
    dtype=st.sampled_from([np.int8, np.int32, np.int64, np.bool_]),
)  # fmt: skip
def test_fast_path_equals_the_full_path(rows, dtype):
    y = np.array([r[0] for r in rows]).astype(dtype)
    p = np.array([r[1] for r in rows], dtype=np.float64)
    fast = _loss._binary_fast(y, p, True, None, None, "auto")
    assert fast is not None
    assert fast == rv.log_loss(y.tolist(), p.tolist())  # lists take the full path


def _outcome(y, p):
    try:
        return rv.log_loss(y, p)
    except InputValidationError as exc:
        return str(exc)


@pytest.mark.parametrize(
    "y, p",
    [([0, 2], [0.1, 0.2]), ([0, 1], [0.1, 1.5]), ([0, 1], [0.1, np.nan]), ([0, 1], [-0.1, 0.2])],
)
def test_refused_input_takes_the_full_path(y, p):
    """Labels other than 0/1 (two classes: the full path maps them) and probabilities
    outside [0, 1] (the full path names them) are left to the full path."""
    y, p = np.array(y), np.array(p, dtype=np.float64)
    assert _loss._binary_fast(y, p, True, None, None, "auto") is None
    assert _outcome(y, p) == _outcome(y.tolist(), p.tolist())

"""GAUC and ROC AUC of plain NumPy input in one call of the compiled core equal the
full path exactly (the same float), and every input the one call does not take
goes to the full path: the same value, the same error, the same warning."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval as rv
from receval.exceptions import InvalidParameterError, RecevalError
from receval.metrics import _auc, _gauc

SCORES = [-0.0, 0.0, 0.1, 0.5, 0.9, 1.0, -2.5]  # few values: ties everywhere
WEIGHTS = [0.0, 0.5, 1.0, 2.0, 3.25, 1e-3]
LABEL_DTYPES = [np.bool_, np.int8, np.int32, np.int64, np.uint8, np.float64]
ID_DTYPES = [np.int8, np.int32, np.int64, np.uint16, np.uint64, np.float64, np.float32]


def _gauc_fast(y, s, g, weighting, w):
    """The GAUC definition's one-call hook (None: the definition's own steps run, or its
    options are refused before any row is read)."""
    try:
        params = _gauc.GAUC.check_params("gauc_score", weighting=weighting)
    except InvalidParameterError:
        return None
    columns = {"y_true": y, "y_score": s, "groups": g, "sample_weight": w}
    return _gauc.GAUC.one_partition(params, columns)


def _roc_auc_fast(y, s):
    """The compiled core's one call of the ROC AUC definition's one-partition hook (None:
    the hook's own steps run)."""
    if y.size > _auc._FAST_ROWS:
        return None
    return _auc.compiled().roc_auc_checked(y, s)


@st.composite
def grouped_rows(draw):
    n = draw(st.integers(1, 120))
    n_groups = draw(st.sampled_from([1, 2, 3, 10, n]))
    ids = np.array(draw(st.lists(st.integers(0, n_groups - 1), min_size=n, max_size=n)))
    if draw(st.booleans()):  # wide ids: the core's hash table
        ids = ids * 1_000_003 + 7
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    score = st.sampled_from(SCORES) | st.floats(-1, 1)
    s = np.array(draw(st.lists(score, min_size=n, max_size=n)))
    w = None
    if draw(st.booleans()):
        w = np.array(draw(st.lists(st.sampled_from(WEIGHTS), min_size=n, max_size=n)))
    id_dtype = draw(st.sampled_from(ID_DTYPES))
    if id_dtype in (np.int8, np.uint16) and ids.max() > 100:
        id_dtype = np.int64
    return (
        y.astype(draw(st.sampled_from(LABEL_DTYPES))),
        s.astype(draw(st.sampled_from([np.float64, np.float32]))),
        ids.astype(id_dtype),
        w,
        draw(st.sampled_from(["impressions", "clicks", "uniform"])),
    )


def _full_gauc(y, s, g, w, weighting):
    """The full path's GAUC (lists are not plain arrays; group_auc has no one call)."""
    return rv.group_auc(
        y.tolist(), s.tolist(), groups=g.tolist(), weighting=weighting,
        sample_weight=None if w is None else w.tolist(),
    ).score  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(grouped_rows())
def test_gauc_in_one_call_equals_the_full_path(rows):
    y, s, g, w, weighting = rows
    fast = _gauc_fast(y, s, g, weighting, w)
    full = _full_gauc(y, s, g, w, weighting)
    if np.isnan(full):  # no group counts: the full path warns
        assert fast is None
    else:
        assert fast is not None
        assert fast == full
        assert rv.gauc_score(y, s, groups=g, weighting=weighting, sample_weight=w) == full


@st.composite
def binary_rows(draw):
    n = draw(st.integers(1, 150))
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    score = st.sampled_from(SCORES) | st.floats(-1e6, 1e6)
    s = np.array(draw(st.lists(score, min_size=n, max_size=n)))
    return (
        y.astype(draw(st.sampled_from(LABEL_DTYPES))),
        s.astype(draw(st.sampled_from([np.float64, np.float32]))),
    )


@settings(max_examples=300, deadline=None)
@given(binary_rows())
def test_roc_auc_in_one_call_equals_the_full_path(rows):
    y, s = rows
    fast = _roc_auc_fast(y, s)
    if y.min() == y.max():  # one class: the full path warns
        assert fast is None
        return
    full = rv.roc_auc_score(_full_path(y), _full_path(s))
    assert fast is not None
    assert fast == full


def _outcome(f, *args, **kwargs):
    """The value (nan as a string), or the error's type and message; and the warnings."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value = f(*args, **kwargs)
            result = repr(value) if np.isnan(value) else value
        except RecevalError as exc:
            result = (type(exc).__name__, str(exc))
    return result, [(w.category.__name__, str(w.message)) for w in caught]


def _full_path(x):
    """``x`` in a form the one calls do not take (a pandas Series; lists of numbers
    take them, as arrays do), so that the full path computes it."""
    return pd.Series(x) if isinstance(x, np.ndarray) else x


Y = np.array([1, 0, 0, 1, 1, 0, 0, 1])
S = np.array([0.9, 0.3, 0.5, 0.6, 0.4, 0.8, 0.2, 0.2])
G = np.array([1, 1, 1, 2, 2, 2, 3, 3])

REFUSED = {
    "nan score": (Y, np.where(S == 0.5, np.nan, S), G, None, "impressions"),
    "infinite score": (Y, np.where(S == 0.5, np.inf, S), G, None, "impressions"),
    "label 2": (np.where(Y == 0, 2, Y), S, G, None, "impressions"),
    "labels -1/1": (2 * Y - 1, S, G, None, "impressions"),
    "label 0.5": (np.where(Y == 0, 0.5, Y), S, G, None, "impressions"),
    "nan group": (Y, S, np.where(G == 2, np.nan, G), None, "impressions"),
    "fractional groups": (Y, S, G / 2, None, "impressions"),
    "groups beyond 2**53": (Y, S, G * 2.0**60, None, "impressions"),
    "uint64 groups from 2**63": (Y, S, G.astype(np.uint64) << np.uint64(62), None, "impressions"),
    "string groups": (Y, S, G.astype(str), None, "impressions"),
    "object groups": (Y, S, G.astype(object), None, "impressions"),
    "integer scores": (Y, (S * 10).astype(np.int64), G, None, "impressions"),
    "negative weight": (Y, S, G, np.where(G == 2, -1.0, 1.0), "impressions"),
    "nan weight": (Y, S, G, np.where(G == 2, np.nan, 1.0), "impressions"),
    "huge weights (rescaled)": (Y, S, G, np.full(8, 1e30), "impressions"),
    "tiny weights (rescaled)": (Y, S, G, np.full(8, 1e-30), "impressions"),
    "float32 weights": (Y, S, G, np.ones(8, dtype=np.float32), "impressions"),
    "zero weights": (Y, S, G, np.zeros(8), "impressions"),
    "unknown weighting": (Y, S, G, None, "views"),
    "mapping weighting": (Y, S, G, None, {1: 1.0, 2: 2.0, 3: 0.5}),
    "one class per group": (np.array([1, 1, 1, 0, 0, 0, 1, 1]), S, G, None, "impressions"),
    "lengths differ": (Y, S[:-1], G, None, "impressions"),
    "empty": (Y[:0], S[:0], G[:0], None, "impressions"),
    "strided": (np.repeat(Y, 2)[::2], np.repeat(S, 2)[::2], np.repeat(G, 2)[::2], None, "clicks"),
    "strided int8 labels": (np.repeat(Y, 2).astype(np.int8)[::2], S, G, None, "impressions"),
    "strided weights": (Y, S, G, np.repeat(np.arange(1.0, 9.0), 2)[::2], "uniform"),
    "column labels": (Y[:, None], S, G, None, "impressions"),
}


# the values the checks refuse that the one call refuses itself, in the checks' words
# (labels other than 0/1 it leaves to them: they read any two labels, or refuse them in
# their words of classes)
REFUSED_IN_ONE_CALL = {"nan score", "infinite score", "negative weight", "nan weight"}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_gauc_input_the_one_call_refuses_gets_the_full_path(case):
    """Each goes to the full path, which gives the value, error or warning it gives
    the same input as Series; or the one call raises that error itself."""
    y, s, g, w, weighting = REFUSED[case]
    try:
        fast = _gauc_fast(y, s, g, weighting, w)
    except RecevalError as error:
        fast = (type(error).__name__, str(error))
    assert (fast is not None) == (case in REFUSED_IN_ONE_CALL), fast
    got = _outcome(rv.gauc_score, y, s, groups=g, weighting=weighting, sample_weight=w)
    if case.startswith(("strided", "column")):  # contiguous copies (lists of lists differ)
        w = None if w is None else w.copy()
        want = _outcome(
            rv.gauc_score, y.copy(), s.copy(), groups=g.copy(), weighting=weighting, sample_weight=w
        )
    else:
        lists = [_full_path(a) for a in (y, s, g, w)]
        want = _outcome(
            rv.gauc_score, *lists[:2], groups=lists[2], weighting=weighting, sample_weight=lists[3]
        )
    assert got == want
    assert fast is None or (fast, []) == want


def test_gauc_refusals_are_errors_and_warnings_as_before():
    """The full path's messages, as its own tests state them."""
    (value, caught) = _outcome(rv.gauc_score, *REFUSED["one class per group"][:2], groups=G)
    assert value == "nan"
    assert caught == [
        (
            "UndefinedMetricWarning",
            "gauc_score: no group has both a positive and a negative sample (3 groups, all "
            "skipped), so GAUC is undefined (returned as nan).",
        )
    ]
    y, s, g, _, _ = REFUSED["nan score"]
    assert _outcome(rv.gauc_score, y, s, groups=g)[0] == (
        "InputValidationError",
        "gauc_score: y_score contains NaN or infinity, the first at position "
        f"{int(np.flatnonzero(np.isnan(s))[0])} (nan); drop those rows or replace the values with "
        "finite numbers first.",
    )


@pytest.mark.parametrize(
    "y, s",
    [
        ([1, 1, 1], [0.1, 0.2, 0.3]),  # one class: a warning
        ([0, 0], [0.1, 0.2]),
        ([-1, 1, -1], [0.1, 0.2, 0.3]),  # {-1, 1}: the full path maps them
        ([0, 2, 2], [0.1, 0.2, 0.3]),  # two labels: the greater is positive
        ([0, 1, 2], [0.1, 0.2, 0.3]),  # three: an error
        ([0, 1, 1], [0.1, 0.2]),
        ([], []),
    ],
)
def test_roc_auc_input_the_one_call_refuses_gets_the_full_path(y, s):
    ya, sa = np.array(y), np.array(s, dtype=np.float64)
    assert _roc_auc_fast(ya, sa) is None
    assert _outcome(rv.roc_auc_score, ya, sa) == _outcome(rv.roc_auc_score, y, s)


def test_roc_auc_beyond_the_one_call_size_takes_the_full_path():
    rng = np.random.default_rng(0)
    n = _auc._FAST_ROWS + 1
    y, s = (rng.random(n) < 0.3).astype(np.int8), rng.random(n).round(3)
    assert _roc_auc_fast(y, s) is None
    assert _roc_auc_fast(y[:-1], s[:-1]) == rv.roc_auc_score(_full_path(y[:-1]), _full_path(s[:-1]))


def test_gauc_of_many_rows_in_one_call_equals_the_full_path():
    """Beyond 64Ki rows the core counts in parallel chunks: the same integers."""
    rng = np.random.default_rng(1)
    n = 200_000
    y = (rng.random(n) < 0.2).astype(np.int8)
    s = rng.random(n).round(2)
    g = rng.integers(0, 5000, n)
    w = rng.random(n)
    for weights in (None, w):
        fast = _gauc_fast(y, s, g, "impressions", weights)
        assert fast == rv.group_auc(y, s, groups=g, sample_weight=weights).score


@pytest.mark.parametrize(
    "y, s",
    [
        (np.array(1), np.array(0.5)),  # 0-d
        (np.array([[0, 1], [1, 0]]), np.array([[0.1, 0.2], [0.3, 0.4]])),  # 2-D labels
    ],
)
def test_arrays_of_other_shapes_take_the_full_path(y, s):
    assert _roc_auc_fast(y, s) is None
    assert _gauc_fast(y, s, y, "impressions", None) is None
    got = _outcome(rv.roc_auc_score, y, s)
    assert got == _outcome(rv.roc_auc_score, y.tolist(), s.tolist())


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from([0, 1, True, False]), st.sampled_from(SCORES)),
        min_size=1,
        max_size=30,
    ),
    st.booleans(),
)
def test_lists_of_numbers_give_what_their_arrays_give(rows, as_tuple):
    # lists take the compiled paths arrays take: the same float, the same refusal
    y, s = [r[0] for r in rows], [r[1] for r in rows]
    g = [i % 3 for i in range(len(rows))]
    p = [min(max(x, 0.0), 1.0) for x in s]
    pack = tuple if as_tuple else list
    for call, args in [
        (rv.roc_auc_score, (y, s)),
        (rv.log_loss, (y, p)),
        (lambda a, b, c: rv.gauc_score(a, b, groups=c), (y, s, g)),
    ]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = _outcome(call, *(np.asarray(a) for a in args))
            got = _outcome(call, *(pack(a) for a in args))
        assert got == want


def test_lists_that_are_not_plain_numbers_keep_their_checks():
    with pytest.raises(rv.InputValidationError, match="y_true mixes numbers and strings"):
        rv.roc_auc_score([0, "1", 0], [0.1, 0.2, 0.3])
    with pytest.raises(rv.InputValidationError, match="y_score"):
        rv.roc_auc_score([0, 1, 0], [0.1, [0.2], 0.3])  # ragged
    big = [2**64, 2**64 + 1, 2**64 + 2]  # beyond int64: ranked exactly, not as floats
    assert rv.roc_auc_score([0, 1, 1], big) == 1.0

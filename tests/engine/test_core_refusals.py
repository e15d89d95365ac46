"""The compiled core's checked calls answer a refusal (which check, which argument, the
first bad row, the values to show) for every value the Python checks refuse, and
``_validation.refused`` words it as those checks do: the same message and the same
row, on the accumulator path and on the function path, each naming its caller (log
loss and its family, GAUC, the exact AUC)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import receval as rv
from receval import _validation as v
from receval._kernels import compiled
from receval.engine.kinds import no_pos_label_by_parts
from receval.exceptions import InputValidationError, UndefinedMetricWarning
from receval.metrics import _auc, _gauc, _gauc_open, _loss

LABEL_DTYPES = [np.bool_, np.int8, np.int64, np.uint8, np.uint64, np.float32, np.float64]
BAD_LABELS = {
    "i": [2, 7, -3, 100],
    "u": [2, 7, 200],
    "f": [0.5, -1.0, 2.0, np.nan, np.inf, -np.inf, -0.0],  # -0.0 is a good 0
}
BAD_PROBA = [np.nan, np.inf, -np.inf, 1.5, -0.25, 2.0, 1.0 + 2**-23, -0.0]
BAD_WEIGHTS = [-1.0, -0.5, np.nan, np.inf, -np.inf, -0.0, 1e30]  # 1e30: to be scaled


def _error(call) -> InputValidationError | None:
    try:
        call()
    except InputValidationError as error:
        return error
    return None


def _corrupt(draw, values: np.ndarray, bad: list) -> np.ndarray:
    """``values`` with some rows set to values drawn from ``bad``."""
    out = values.copy()
    for i in draw(st.lists(st.integers(0, len(out) - 1), max_size=8)):
        out[i] = draw(st.sampled_from(bad))
    return out


@st.composite
def batches(draw, weighted: bool = True):
    n = draw(st.integers(1, 40))
    dtype = np.dtype(draw(st.sampled_from(LABEL_DTYPES)))
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)), dtype=dtype)
    if dtype.kind != "b" and draw(st.booleans()):
        bad = BAD_LABELS[dtype.kind]
        if dtype == np.uint64:
            bad = [*bad, 2**63 + 5, 2**64 - 1]
        y = _corrupt(draw, y, bad)
    fdtype = draw(st.sampled_from([np.float32, np.float64]))
    p = np.array(draw(st.lists(st.floats(0, 1), min_size=n, max_size=n))).astype(fdtype)
    if draw(st.booleans()):
        p = _corrupt(draw, p, BAD_PROBA + ([1e300] if fdtype == np.float64 else []))
    w = None
    if weighted and draw(st.booleans()):
        w = np.array(draw(st.lists(st.floats(0, 4), min_size=n, max_size=n)))
        if draw(st.booleans()):
            w = _corrupt(draw, w, BAD_WEIGHTS)
    return y, p, w


def _beyond01(y: np.ndarray) -> bool:
    """Labels (no NaN) not all within [0, 1]: log loss's checks read a pair of them (-1/1)
    or refuse them in their words of classes, which the core's 0/1 check does not say."""
    values = y.astype(np.float64)
    return not np.isnan(values).any() and not ((values >= 0) & (values <= 1)).all()


def _same(got: InputValidationError | None, want: InputValidationError | None) -> None:
    assert (got is None) == (want is None), (got, want)
    if want is not None:
        assert str(got) == str(want)
        assert got.row == want.row


def _updating(error: InputValidationError | None, name: str, own: str):
    """``error`` of the checks, which name the metric's function ``own``, as the update of
    an accumulator of ``name`` raises it: naming the accumulator, at the same row; two
    labels without pos_label said of a batch, which cannot tell the greater of the
    stream's."""
    if error is None:
        return None
    said = str(error)
    assert said.startswith(f"{own}: "), said
    renamed = InputValidationError(f"Accumulator.update of {name!r}: {said[len(own) + 2 :]}",
                                   row=error.row, classes=error.classes)  # fmt: skip
    fix = f"to metric, e.g. receval.metric({name!r}, pos_label={{label}})"
    return no_pos_label_by_parts(renamed, "a batch", "a later batch", fix) or renamed


@settings(max_examples=300, deadline=None)
@given(batches(), st.booleans())
def test_the_log_loss_familys_refusal_is_the_checks_error(batch, clicks):
    """``totals_checked`` refuses what the full checks refuse, in their words and row;
    what they take it takes, or leaves to them (weights to scale; log loss's labels
    beyond [0, 1], which its checks read as a pair, -1/1, or refuse in their words of
    classes)."""
    y, p, w = batch
    params = _loss.LOG_LOSS.check_params("log_loss")
    want = _error(lambda: _loss.LOG_LOSS.prepare(params, y, p, w))  # the checks
    eps = 1e-7
    answer = compiled().totals_checked(y, p, eps, True, clicks, w)
    columns = {"y_true": y, "y_pred": p, "sample_weight": w}
    if _beyond01(y):
        assert isinstance(answer, tuple), (answer, want)
    else:
        assert isinstance(answer, tuple) == (want is not None), (answer, want)
        if want is not None:
            _same(v.refused("log_loss", answer, columns), want)
    got = _error(lambda: rv.metric("log_loss").update(y, p, sample_weight=w))
    _same(got, _updating(want, "log_loss", "log_loss"))


@settings(max_examples=300, deadline=None)
@given(batches(weighted=False))
def test_log_loss_in_one_call_refuses_in_the_checks_words(batch):
    """``log_loss_checked`` (the function's one call) refuses labels and probabilities
    as the checks do; labels beyond [0, 1] it refuses as not 0/1, and the one-call
    hook leaves them to the checks."""
    y, p, _ = batch
    params = _loss.LOG_LOSS.check_params("log_loss")
    want = _error(lambda: _loss.LOG_LOSS.prepare(params, y, p, None))
    answer = compiled().log_loss_checked(y, p, float(np.finfo(p.dtype).eps))
    if _beyond01(y):
        assert isinstance(answer, tuple) and answer[0] == "binary01", (answer, want)
        assert _loss.LOG_LOSS.one_partition(params, {"y_true": y, "y_pred": p}) is None
        return
    assert isinstance(answer, tuple) == (want is not None), (answer, want)
    if want is not None:
        _same(v.refused("log_loss", answer, {"y_true": y, "y_pred": p}), want)


def _gauc_checks(y, s, g, w, *, whole: bool):
    """The checks of GAUC's full path: its labels read by ``prepare`` (any two), its rows
    by ``checked_rows``."""
    params = _gauc.GAUC.check_params("gauc_score")
    labels, s, g, w, _, _ = _gauc.GAUC.prepare(params, y, s, groups=g, sample_weight=w)
    return _gauc_open.checked_rows(labels, s, g, w, "gauc_score", whole=whole)


@settings(max_examples=300, deadline=None)
@given(batches(weighted=False), st.booleans())
def test_gaucs_open_rows_refusal_is_the_checks_error(batch, wide):
    """``gauc_rows_checked`` refuses labels and scores as the checks of the full path
    (groups given as a list take it) do; labels other than 0/1 it refuses as not 0/1,
    where the full path reads them first (a pair, -1/1, or a refusal in its words of
    classes) and gives it the 0/1 labels read."""
    y, s, _ = batch
    g = np.arange(len(y)) // 3 * (1_000_003 if wide else 1)
    func = _gauc_open._FUNC
    full = _error(lambda: _gauc_checks(y, s, g.tolist(), None, whole=False))
    answer = compiled().gauc_rows_checked(y, s, g)
    refused = answer is not None and isinstance(answer[0], str)
    if _classes_left(y):
        assert refused and answer[0] == "binary01", (answer, full)
    else:
        assert refused == (full is not None), (answer, full)
        if full is not None:
            _same(v.refused(func, answer, {"y_true": y, "y_score": s}), full)
    _same(_error(lambda: rv.metric("gauc").update(y, s, groups=g)), _updating(full, "gauc", func))


# one batch per refusal kind (and the order of the checks): (y_true, y_prob, weights)
CASES = {
    "labels": ([0, 1, 2, 1, 9, 2], [0.5] * 6, None),
    "labels, many": (list(range(-4, 12)), [0.5] * 16, None),
    "labels, uint64": (np.array([0, 2**63 + 1, 1], dtype=np.uint64), [0.5] * 3, None),
    "labels, float32": (np.array([0, 0.5, 1], dtype=np.float32), [0.5] * 3, None),
    "labels, NaN": ([0.0, np.nan, 2.0, np.nan], [0.5] * 4, None),
    "probabilities, NaN": ([0, 1, 1], [0.5, np.nan, 2.0], None),
    "probabilities, infinity": ([0, 1, 1], np.array([0.5, 1, np.inf], np.float32), None),
    "probabilities": ([0, 1, 1, 0], np.array([0.5, 1.1, -3, 1.1], np.float32), None),
    "weights, negative": ([0, 1, 1], [0.5] * 3, [1.0, -2.0, -0.5]),
    "weights, NaN": ([0, 1, 1], [0.5] * 3, [-1.0, np.nan, 1.0]),
    "labels before weights": ([0, 3, 1], [0.5] * 3, [-1.0, 1.0, 1e300]),
    "probabilities before weights": ([0, 1, 1], [0.5, 7.0, 1.0], [-1.0, 1.0, 1.0]),
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("name", ["log_loss", "normalized_entropy"])
def test_every_refusal_reads_the_same_on_the_accumulator_and_the_function(name, case):
    """The accumulator's update (one call of the core) and the function raise the same
    error for every kind of refusal: the message the checks word, at the same row."""
    y, p, w = (None if c is None else np.asarray(c) for c in CASES[case])
    function = {"log_loss": rv.log_loss, "normalized_entropy": rv.normalized_entropy}[name]
    prob = "y_pred" if name == "log_loss" else "y_prob"
    answer = compiled().totals_checked(y, p, 1e-7, True, True, w)
    assert isinstance(answer, tuple)
    streamed = _error(lambda: rv.metric(name).update(y, p, sample_weight=w))
    assert streamed is not None
    if _beyond01(y):  # labels as classes (-1/1, or pos_label's): the checks' words
        definition = {"log_loss": _loss.LOG_LOSS, "normalized_entropy": _loss.NORMALIZED_ENTROPY}[
            name
        ]
        params = definition.check_params(*(name,) if definition.checks_caller else ())
        checks = _error(lambda: definition.prepare(params, y, p, w))
    else:
        checks = v.refused(name, answer, {"y_true": y, prob: p, "sample_weight": w})
    _same(streamed, _updating(checks, name, name))  # the same refusal, naming the accumulator
    # the function checks the weights first, and log_loss reads integer labels other
    # than 0/1 as scikit-learn's classes
    if "before" not in case and not (name == "log_loss" and y.dtype.kind in "iu"):
        _same(_error(lambda: function(y, p, sample_weight=w)), checks)


@pytest.mark.parametrize(
    "case", [c for c in sorted(CASES) if "weights" not in c and "probabilities" not in c]
)
def test_gauc_refusals_read_the_same_on_the_accumulator_and_the_function(case):
    y, s, _ = (None if c is None else np.asarray(c) for c in CASES[case])
    g = np.arange(len(y)) % 2
    assert isinstance(compiled().gauc_rows_checked(y, s, g)[0], str)
    streamed = _error(lambda: rv.metric("gauc").update(y, s, groups=g))
    assert streamed is not None
    _same(streamed, _updating(_error(lambda: rv.gauc_score(y, s, groups=g)), "gauc", "gauc_score"))
    s = np.array([0.5, np.inf, *[0.5] * (len(y) - 2)])  # scores: finite only
    y = np.zeros(len(y), dtype=np.int8)
    assert compiled().gauc_rows_checked(y, s, g)[:3] == ("finite", 1, 1)
    by_function = _error(lambda: rv.gauc_score(y, s, groups=g))
    _same(_error(lambda: rv.metric("gauc").update(y, s, groups=g)),
          _updating(by_function, "gauc", "gauc_score"))  # fmt: skip


def _classes_left(y: np.ndarray) -> bool:
    """Labels other than 0/1 without a NaN: the exact AUC's checks read them as classes
    (-1/1) or refuse them in their words of classes, so the core leaves them."""
    values = y.astype(np.float64)
    return not np.isnan(values).any() and not np.isin(values, (0.0, 1.0)).all()


def _same_refusal(answer, want, func: str, columns: dict, *, classes: bool = True) -> None:
    """The core's answer is a refusal exactly when the checks refuse (``classes``: labels
    of other classes aside, left to them whatever the checks then refuse: -1 labels
    beside a NaN score are refused for the score), worded as they word it."""
    y = columns["y_true"]
    if classes and want is not None and _classes_left(y):
        assert answer is None or answer is False, (answer, want)
        return
    assert isinstance(answer, tuple) == (want is not None), (answer, want)
    if want is not None:
        _same(v.refused(func, answer, columns), want)


@settings(max_examples=300, deadline=None)
@given(batches(weighted=False))
def test_roc_auc_in_one_call_refuses_in_the_checks_words(batch):
    """``roc_auc_checked`` (the function's one call) refuses NaN labels and scores that
    are not finite as the checks do; labels other than 0/1 it leaves to them."""
    y, s, _ = batch
    params = _auc.ROC_AUC.check_params()
    want = _error(lambda: _auc.auc_prepare(params, y, s, None, rank=True))
    answer = compiled().roc_auc_checked(y, s)
    _same_refusal(answer, want, "roc_auc_score", {"y_true": y, "y_score": s})
    if isinstance(answer, tuple):  # (the function reads labels of other classes first)
        _same(_error(lambda: rv.roc_auc_score(y, s)), want)


@settings(max_examples=300, deadline=None)
@given(batches(weighted=False))
@example(batch=(np.array([-1.0], np.float32), np.array([np.nan], np.float32), None))
def test_the_auc_accumulators_refusal_is_the_checks_error(batch):
    """``AucRuns.add_checked`` (an accumulator's update) refuses as the checks of a
    batch do, and adds nothing then."""
    y, s, _ = batch
    params = _auc.ROC_AUC.check_params()
    want = _error(lambda: _auc.auc_prepare(params, y, s))
    runs = compiled().AucRuns(False)
    answer = runs.add_checked(y, s)
    _same_refusal(answer, want, "roc_auc_score", {"y_true": y, "y_score": s})
    if answer is not True:
        assert runs.table()[0].size == 0
    _same(
        _error(lambda: rv.metric("roc_auc").update(y, s)),
        _updating(want, "roc_auc", "roc_auc_score"),
    )


# weights wider than the exact sums on purpose (the warning: test_rounded_weights)
@pytest.mark.filterwarnings("ignore:.*the sample weights of the:receval.RecevalWarning")
@settings(max_examples=300, deadline=None)
@given(batches(), st.sampled_from(["impressions", "clicks", "uniform"]))
def test_gauc_in_one_call_refuses_in_the_checks_words(batch, weighting):
    """``gauc_checked`` (the function's one call) refuses labels, scores and weights in
    the order and the words of the checks; weights they scale it leaves to them, and
    labels other than 0/1, which it refuses as not 0/1, the one-call hook leaves to
    them (they read any two)."""
    y, s, w = batch
    g = np.arange(len(y)) % 3
    func = "gauc_score"
    want = _error(lambda: _gauc_checks(y, s, g, w, whole=True))
    answer = compiled().gauc_checked(y, s, g, w, weighting)
    columns = {"y_true": y, "y_score": s, "groups": g, "sample_weight": w}
    if _classes_left(y):
        assert isinstance(answer, tuple) and answer[0] == "binary01", (answer, want)
        params = _gauc.GAUC.check_params("gauc_score", weighting=weighting)
        assert _gauc.GAUC.one_partition(params, {**columns, "weighting": None}) is None
    else:
        _same_refusal(answer, want, func, columns, classes=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        got = _error(lambda: rv.gauc_score(y, s, groups=g, sample_weight=w, weighting=weighting))
    _same(got, want)


def test_the_auc_refusals_read_the_same_on_the_accumulator_and_the_function():
    cases = [  # (labels, scores, the argument refused)
        (np.array([0.0, np.nan, 1.0, np.nan]), np.array([0.5, np.inf, 0.1, 0.2]), 0),
        (np.array([0, 1, 1], np.uint8), np.array([0.5, 0.1, np.nan], np.float32), 1),
        (np.array([True, False]), np.array([-np.inf, 0.0]), 1),
    ]
    for y, s, argument in cases:
        assert compiled().roc_auc_checked(y, s)[1] == argument
        assert compiled().AucRuns(False).add_checked(y, s)[1] == argument
        streamed = _error(lambda: rv.metric("roc_auc").update(y, s))  # noqa: B023
        assert streamed is not None
        by_function = _error(lambda: rv.roc_auc_score(y, s))  # noqa: B023
        _same(streamed, _updating(by_function, "roc_auc", "roc_auc_score"))
    # labels the checks read as classes: left to them
    y, s = np.array([-1, 1, 1]), np.array([0.5, np.nan, 0.2])
    assert compiled().roc_auc_checked(y, s) is None
    assert compiled().AucRuns(False).add_checked(y, s) is False
    assert "y_score contains NaN" in str(_error(lambda: rv.roc_auc_score(y, s)))

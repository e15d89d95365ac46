"""scikit-learn's own metric tests, held against receval, and live parity with scikit-learn.

``data/sklearn.json`` holds every expectation scikit-learn 1.9.1's test files assert with a
literal (or exactly known) value for a function receval also has: the call, the value, the
tolerance the test uses, the warning it expects, and where it is asserted. The first half of
this module replays those cases against receval; the second half compares receval with the
installed scikit-learn on random inputs that ``tests/metrics`` does not already cover.

A case marked ``xfail(strict=True)`` in ``XFAIL`` is a known difference from scikit-learn
(issue 13): when receval is fixed the case XPASSes, fails, and its mark must be removed.
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
import warnings
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest
from sklearn import calibration as sk_calibration
from sklearn import metrics as skm

import receval
from receval.exceptions import RecevalError, UndefinedMetricWarning

DATA = json.loads((Path(__file__).parent / "data" / "sklearn.json").read_text())

# ------------------------------------------------------------------ known differences
XFAIL: dict[str, str] = {}
XFAIL_ERRORS: dict[str, str] = {}
# receval keeps nan + UndefinedMetricWarning for AP without a positive sample (documented in
# docs/conventions.md); if_undefined=0.0 gives scikit-learn's number
IF_UNDEFINED = {"ranking/precision_recall_curve_toydata/no_positive/average_precision": 0.0}

# ------------------------------------------------------------------ inputs built by the tests


def _softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@functools.cache
def _make_prediction(module, binary):
    """The make_prediction helper of sklearn's test_ranking.py / test_classification.py.

    Iris (classes 0 and 1 when binary), shuffled with RandomState(37), 200 noise features per
    feature from RandomState(0); trained on the first half, predicting the second half:
    LogisticRegression(random_state=0) in test_ranking.py, a CalibratedClassifierCV of a linear
    SVC (ensemble=False, cv=3) in test_classification.py.
    """
    from sklearn import datasets, svm
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.linear_model import LogisticRegression

    iris = datasets.load_iris()
    x, y = iris.data, iris.target
    if binary:
        x, y = x[y < 2], y[y < 2]
    n, d = x.shape
    order = np.arange(n)
    np.random.RandomState(37).shuffle(order)
    x, y = x[order], y[order]
    x = np.c_[x, np.random.RandomState(0).randn(n, 200 * d)]
    half = n // 2
    if module == "ranking":
        model = LogisticRegression(random_state=0)
    else:
        model = CalibratedClassifierCV(
            svm.SVC(kernel="linear", random_state=0), ensemble=False, cv=3
        )
    proba = model.fit(x[:half], y[:half]).predict_proba(x[half:])
    return y[half:], model.predict(x[half:]), proba[:, 1] if binary else proba


def b_make_prediction(module, binary):
    y_true, y_pred, y_proba = _make_prediction(module, binary)
    out = {"y_true": y_true, "y_pred": y_pred, "y_proba": y_proba}
    if binary:
        out.update(
            y_proba_minus_half=y_proba - 0.5,
            ones=np.ones(y_true.shape),
            zeros=np.zeros(y_true.shape),
            y_true_tail=y_true[1:],
            y_proba_tail=y_proba[1:],
            y_true_pm1=np.where(y_true == 0, -1, y_true),
            y_true_str=[str(v) for v in y_true],
            y_pred_str=[str(v) for v in y_pred],
        )
    return out


def b_roc_end_points():
    rng = np.random.RandomState(0)
    return {"y_true": np.array([0] * 50 + [1] * 50), "y_pred": rng.randint(3, size=100)}


def b_rng404_multiclass():
    rng = np.random.RandomState(404)
    y_score = rng.rand(20, 3)
    return {"y_prob": _softmax(y_score), "y_true": rng.randint(0, 3, size=20)}


def b_rng404_one_class():
    y_pred = np.random.RandomState(404).rand(10)
    return {
        "y_pred": y_pred,
        "zeros": np.zeros(10, dtype=int),
        "ones": np.ones(10, dtype=int),
        "minus_ones": np.full(10, -1, dtype=int),
    }


def b_rng404_curve_multiclass():
    rng = np.random.RandomState(404)
    y_true = rng.randint(0, 3, size=10)
    return {"y_true": y_true, "y_pred": rng.rand(10)}


def b_str_labels_ab(dtype):
    return {"y_true": np.array(["a", "b"], dtype=dtype)}


def b_bytes_labels(container):
    labels = [b"a", b"b"]
    return {"y_true": labels if container == "list" else np.array(labels)}


def b_pos_label_types(classes):
    rng = np.random.RandomState(42)
    y_true = rng.choice(np.array(classes), size=10, replace=True)
    return {"y_true": y_true, "y_proba": rng.rand(10)}


def b_classification_pos_label_types(classes):
    rng = np.random.RandomState(42)
    y_true = rng.choice(np.array(classes), size=10, replace=True)
    return {"y_true": y_true, "y_pred": y_true.copy()}


def b_seeded_binary_scores(seed):
    rng = np.random.RandomState(seed)
    y_true = rng.randint(0, 2, size=10)
    return {"y_true": y_true, "y_score": rng.rand(10)}


def b_micro_ovr(seed):
    from scipy import stats

    y_pred = stats.dirichlet.rvs([2.0, 1.0, 0.5], size=1000, random_state=seed)
    y_true = np.asarray(
        [stats.multinomial.rvs(n=1, p=p, random_state=seed).argmax() for p in y_pred]
    )
    return {"y_true": y_true, "y_pred": y_pred}


def b_multilabel_ytrue():
    from sklearn.datasets import make_multilabel_classification

    _, y_true = make_multilabel_classification(random_state=0, n_classes=10)
    return {"y_true": y_true, "y_score": 1 - y_true}


def b_ndcg_toy():
    y_score = np.tile(np.arange(6, -1, -1), (5, 1))
    noise = np.random.RandomState(0).uniform(-0.2, 0.2, size=y_score.shape)
    return {
        "y_true": 3 * np.eye(7)[:5],
        "y_true_all": 3 * np.ones((5, 7)),
        "y_score": y_score,
        "y_score_noisy": y_score + noise,
    }


def b_ndcg_invariant():
    y_true = np.arange(70).reshape(7, 10)
    y_score = y_true + np.random.RandomState(0).uniform(-0.2, 0.2, size=y_true.shape)
    return {"y_true": y_true, "y_score": y_score, "y_score_shifted": y_score + 1000}


def b_ones_weight(dtype):
    return {"w": np.ones(3).astype(None if dtype == "None" else dtype)}


def b_uint32_max_weight():
    return {"w": np.full(3, 4294967295, dtype=np.uint32)}


def b_pandas_nullable(dtype):
    import pandas as pd

    y = np.array([1, 0, 0, 1, 0, 1, 1, 0, 1])
    return {
        "y_true": pd.Series(y, dtype=dtype),
        "y_pred": pd.Series([0, 0, 1, 1, 0, 1, 1, 1, 1], dtype="int64"),
    }


def b_log_loss_eps(dtype):
    return {"y_true": np.array([0, 1], dtype=dtype), "y_proba": np.array([1, 0], dtype=dtype)}


def b_log_loss_not_probabilities(dtype):
    y_proba = np.array([[0.2, 0.7], [0.6, 0.3], [0.4, 0.7], [0.8, 0.3]], dtype=dtype)
    return {"y_true": np.array([0, 1, 1, 0]), "y_proba": y_proba}


def b_log_loss_pandas():
    import pandas as pd

    y_proba = np.array([[0.3, 0.7], [0.6, 0.4], [0.4, 0.6], [0.7, 0.3]])
    return {
        "y_true": pd.Series(np.array(["ham", "spam", "spam", "ham"])),
        "y_proba": pd.DataFrame(y_proba),
    }


def b_regression_arange():
    y = np.arange(50)
    return {"y_true": y, "y_pred": y + 1}


def b_calibration_error_str(dtype):
    rng = np.random.RandomState(42)
    y_true = np.array(["spam"] * 3 + ["eggs"] * 2, dtype=dtype)
    return {"y_true": y_true, "y_pred": rng.randint(0, 2, size=y_true.size)}


def b_calibration_pos_label(dtype):
    y_true = np.array([0, 0, 0, 1, 1, 1, 1, 1, 1])
    y_pred = np.array([0.1, 0.2, 0.3, 0.4, 0.65, 0.7, 0.8, 0.9, 1.0])
    return {
        "y_true": y_true,
        "y_true_str": np.array(["spam", "egg"], dtype=dtype)[y_true],
        "y_pred": y_pred,
        "one_minus_y_pred": 1 - y_pred,
    }


def b_invalid_sample_weight():
    rng = np.random.RandomState(0)
    y1 = rng.randint(0, 2, size=(20,))
    y2 = rng.randint(0, 2, size=(20,))
    sw_short = rng.random_sample(size=(19,))
    sw_inf = rng.random_sample(size=(20,))
    sw_inf[0] = np.inf
    sw_nan = sw_inf.copy()
    sw_nan[0] = np.nan
    return {
        "y1": y1,
        "y2": y2,
        "y1_3": y1[:3],
        "y2_3": y2[:3],
        "sw_short": sw_short,
        "sw_inf": sw_inf,
        "sw_nan": sw_nan,
        "sw_complex": np.array([1 + 2j, 3 + 4j, 5 + 7j]),
        "sw_2d": rng.random_sample(size=(40,)).reshape((20, 2)),
    }


def b_type_error(container):
    y1 = ["spam"] * 3 + ["eggs"] * 2
    y1 = np.array(y1, dtype=object) if container == "object" else np.array(y1)
    return {"y1": y1, "y2": np.random.RandomState(42).randint(0, 2, size=5)}


def b_pos_label_error_str(dtype, threshold):
    rng = np.random.RandomState(42)
    y1 = np.array(["spam"] * 3 + ["eggs"] * 2, dtype=dtype)
    y2 = rng.randint(0, 2, size=y1.size)
    if not threshold:
        y2 = np.array(["spam", "eggs"], dtype=dtype)[y2]
    return {"y1": y1, "y2": y2}


BUILDERS = {name[2:]: f for name, f in globals().items() if name.startswith("b_")}

# ------------------------------------------------------------------ running a case


def _decode(x):
    if isinstance(x, list):
        return [_decode(v) for v in x]
    if isinstance(x, str) and x in ("nan", "inf", "-inf"):
        return float(x)
    return x


def _inputs(entry):
    spec = entry.get("inputs")
    if spec is None:
        return {}
    return BUILDERS[spec["builder"]](**spec.get("params", {}))


def _resolve(value, arrays):
    if isinstance(value, str) and value.startswith("@"):
        return arrays[value[1:]]
    return _decode(value)


def _matrix_evaluate(y_true, y_score, metric):
    """evaluate() of sklearn-style (n_samples, n_labels) matrices, one user per row."""
    y_true, y_score = np.asarray(y_true), np.asarray(y_score, dtype=float)
    qrels = {u: {i: int(g) for i, g in enumerate(row)} for u, row in enumerate(y_true)}
    run = {u: {i: float(s) for i, s in enumerate(row)} for u, row in enumerate(y_score)}
    report = receval.evaluate(qrels, run, [metric], profile="sklearn")
    users = list(report.users)
    assert users == sorted(users) == list(range(len(y_true)))
    return {"mean": report.mean[metric], "values": np.asarray(report.values[metric])}


def call(entry, lib=receval, arrays=None):
    """Run the case's function of ``lib`` (receval, or sklearn to check the data)."""
    arrays = _inputs(entry) if arrays is None else arrays
    args = [_resolve(a, arrays) for a in entry["args"]]
    kwargs = {k: _resolve(v, arrays) for k, v in entry.get("kwargs", {}).items()}
    if entry["function"] == "evaluate":
        return _matrix_evaluate(*args, **kwargs)
    return getattr(lib, entry["function"])(*args, **kwargs)


def _auc(x, y):
    return float(np.sum(np.diff(x) * (y[1:] + y[:-1]) / 2.0))


POSTS = {
    "auc": lambda r: _auc(np.asarray(r[0]), np.asarray(r[1])),
    "n_decreasing": lambda r: int(np.sum(np.diff(np.asarray(r)) < 0)),
    "sum": lambda r: float(np.asarray(r).sum()),
    "dtype_kind": lambda r: np.asarray(r).dtype.kind,
    "dtype_str": lambda r: np.asarray(r).dtype.str[1:],
}


def select(entry, result):
    if "output" in entry:
        result = result[entry["output"]]
    if "at" in entry:
        result = np.asarray(result)[entry["at"]]
    if "post" in entry:
        result = POSTS[entry["post"]](result)
    return result


def check(entry, actual):
    """Assert ``actual`` meets the case's expectation at the case's tolerance."""
    relation = entry.get("relation")
    expected = _decode(entry["expected"])
    if relation == "eq":
        assert actual == expected
    elif relation == "lt":
        assert actual < expected
    elif relation == "ne":
        assert actual != expected
    elif relation == "finite":
        assert np.isfinite(actual)
    elif relation == "no_nan":
        parts = actual if isinstance(actual, tuple) else (actual,)
        for part in parts:
            assert not np.isnan(np.asarray(part, dtype=float)).any()
    elif expected is None:
        pass  # the case checks warnings (or the absence of an error) only
    else:
        tol = entry["tol"]
        got = np.asarray(actual, dtype=float)
        want = np.asarray(expected, dtype=float)
        assert got.shape == want.shape, (got.shape, want.shape)
        approx = pytest.approx(want if want.ndim else float(want), nan_ok=True, **tol)
        assert (got if got.ndim else float(got)) == approx


@contextlib.contextmanager
def expect_warnings(kind):
    """``kind`` from the data: the warning the case must emit, "none" or "any"."""
    if kind == "UndefinedMetricWarning":
        with pytest.warns(UndefinedMetricWarning):
            yield
    elif kind == "UserWarning":
        with pytest.warns(UserWarning):
            yield
    else:
        with warnings.catch_warnings():
            if kind == "none":
                warnings.simplefilter("error", UserWarning)
                warnings.simplefilter("error", RuntimeWarning)
            else:  # "any": the sklearn test ignores the warnings of this call
                warnings.simplefilter("ignore", UserWarning)
            yield


def _errstate(entry):
    return np.errstate(all=entry["errstate"]) if entry.get("errstate") else contextlib.nullcontext()


def _params(entries, xfails):
    out = []
    for entry in entries:
        marks = ()
        if entry["id"] in xfails:
            marks = pytest.mark.xfail(strict=True, reason=xfails[entry["id"]])
        out.append(pytest.param(entry, id=entry["id"], marks=marks))
    return out


# ------------------------------------------------------------------ the harvested cases
def test_data_is_well_formed():
    assert DATA["peer"]["version"] == "1.9.1"
    ids = [c["id"] for c in DATA["cases"]] + [e["id"] for e in DATA["errors"]]
    assert len(ids) == len(set(ids))
    assert set(XFAIL) <= {c["id"] for c in DATA["cases"]}
    assert set(XFAIL_ERRORS) <= {e["id"] for e in DATA["errors"]}
    for case in DATA["cases"]:
        assert case["warns"] in ("none", "any", "UserWarning", "UndefinedMetricWarning")
        assert case.get("relation") or case["expected"] is None or "tol" in case, case["id"]


def test_installed_sklearn_is_the_harvested_version():
    import sklearn

    if sklearn.__version__ != DATA["peer"]["version"]:
        pytest.skip(f"harvested from sklearn {DATA['peer']['version']}, {sklearn.__version__} here")


@pytest.mark.parametrize("entry", _params(DATA["cases"], XFAIL))
def test_sklearn_case(entry):
    if entry["id"] in IF_UNDEFINED:  # receval's nan becomes sklearn's number on request
        kwargs = {**entry.get("kwargs", {}), "if_undefined": IF_UNDEFINED[entry["id"]]}
        entry = {**entry, "kwargs": kwargs, "warns": "none"}
    arrays = _inputs(entry)  # built outside the warning checks: they concern receval only
    with _errstate(entry), expect_warnings(entry["warns"]):
        result = call(entry, arrays=arrays)
    check(entry, select(entry, result))


@pytest.mark.parametrize("entry", _params(DATA["errors"], XFAIL_ERRORS))
def test_sklearn_error_case(entry):
    """sklearn rejects this input; receval must reject it too (with its own error class)."""
    arrays = _inputs(entry)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        with pytest.raises(RecevalError):
            call(entry, arrays=arrays)


# ------------------------------------------------------------------ documented differences
@pytest.mark.parametrize("diff", DATA["documented_differences"], ids=lambda d: d["id"])
def test_documented_difference(diff):
    """receval does what its docs say where it intentionally differs from sklearn."""
    c = diff["check"]
    func = getattr(receval, c["function"], None)
    args = [_decode(a) for a in c["args"]]
    kwargs = c.get("kwargs", {})
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        if c["kind"] == "unit_weights_equal_unweighted":
            weighted = func(*args, sample_weight=np.ones(len(args[0])), **kwargs)
            assert weighted == func(*args, **kwargs)
            assert weighted == pytest.approx(
                getattr(skm, c["function"])(*args, **kwargs), abs=1e-12
            )
        elif c["kind"] == "ovr_equals_mean_of_binary":
            y, s = np.asarray(args[0]), np.asarray(args[1])
            classes = np.unique(y)
            per_class = [skm.roc_auc_score(y == k, s[:, i]) for i, k in enumerate(classes)]
            assert func(*args, **kwargs) == pytest.approx(np.mean(per_class), abs=1e-12)
        elif c["kind"] == "labels_permute_columns":
            labels = kwargs["labels"]
            order = np.argsort(labels)
            s = np.asarray(args[1])[:, order]
            for extra in [{"multi_class": m} for m in c.get("multi_class", [])] or [{}]:
                ours = func(args[0], args[1], **kwargs, **extra)
                sorted_labels = sorted(labels)
                assert ours == func(args[0], s, labels=sorted_labels, **extra)
                theirs = getattr(skm, c["function"])(args[0], s, labels=sorted_labels, **extra)
                assert ours == pytest.approx(theirs, abs=1e-12)
        elif c["kind"] == "value":
            assert _matrix_evaluate(*args, **kwargs)["mean"] == c["expected"]
        else:  # pragma: no cover - a new kind in the data
            raise AssertionError(c["kind"])


# ------------------------------------------------------------------ live parity (random inputs)
# tests/metrics/test_scores.py already compares, at 1e-12: binary AUC, ROC/PR curves and AP
# with ties and weights; multiclass ovr AUC (macro, weighted, None, micro) with ties and
# weights; ovo AUC with ties, unweighted; multiclass AP with weights; binary and multiclass
# log loss at the default eps; calibration_curve on untied random probabilities. What follows
# is what it does not cover.
SEEDS = range(8)
LOG_LOSS_EPS = [1e-15, 1e-7, 1e-3, 0.1]


def _quiet(func, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return func(*args, **kwargs)


def _ovo_reference(y, scores, classes, weights, average):
    """Hand & Till's ovo AUC from sklearn's binary roc_auc_score, each pair on its rows.

    With weights, a pair's AUC weighs its rows by their weights (sklearn's binary AUC with
    sample_weight) and ``average="weighted"`` weighs a pair by the weight of its rows: the
    extension receval documents (sklearn rejects weights for ovo).
    """
    values, prevalence = [], []
    for a, b in combinations(range(len(classes)), 2):
        mask = (y == classes[a]) | (y == classes[b])
        w = None if weights is None else weights[mask]
        auc_a = skm.roc_auc_score(y[mask] == classes[a], scores[mask, a], sample_weight=w)
        auc_b = skm.roc_auc_score(y[mask] == classes[b], scores[mask, b], sample_weight=w)
        values.append((auc_a + auc_b) / 2)
        prevalence.append(mask.sum() if w is None else w.sum())
    return float(np.average(values, weights=prevalence if average == "weighted" else None))


def _multiclass_data(seed, n=80, k=4):
    rng = np.random.default_rng(seed)
    classes = np.array(["a", "b", "c", "d"][:k])
    y = classes[np.r_[np.arange(k), rng.integers(0, k, n - k)]]
    scores = rng.choice([0.1, 0.2, 0.3, 0.5], (n, k))  # many ties
    scores /= scores.sum(axis=1, keepdims=True)
    weights = rng.uniform(0, 3, n)
    weights[rng.random(n) < 0.1] = 0.0
    weights[::5] = 2.0  # repeated integer weights
    return y, scores, classes, weights


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("average", ["macro", "weighted"])
def test_ovo_auc_with_weights_and_ties_equals_sklearn_pairs(seed, average):
    y, scores, classes, weights = _multiclass_data(seed)
    kw = {"multi_class": "ovo", "average": average}
    ours = receval.roc_auc_score(y, scores, sample_weight=weights, **kw)
    assert ours == pytest.approx(_ovo_reference(y, scores, classes, weights, average), abs=1e-12)
    # unit weights are the unweighted ovo, which sklearn computes itself
    ones = receval.roc_auc_score(y, scores, sample_weight=np.ones(len(y)), **kw)
    theirs = skm.roc_auc_score(y, scores, **kw)
    assert ones == pytest.approx(theirs, abs=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_ovo_auc_with_a_class_absent_from_y_true(seed):
    y, scores, classes, _ = _multiclass_data(seed)
    y = np.where(y == "c", "b", y)  # "c" keeps its column but has no sample
    theirs = skm.roc_auc_score(y, scores, multi_class="ovo", labels=classes)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        ours = receval.roc_auc_score(y, scores, multi_class="ovo", labels=classes)
    assert ours == pytest.approx(theirs, abs=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_average_precision_with_ties_weights_and_pos_label(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 300))
    y = rng.choice([-1, 1], n)
    y[:2] = [-1, 1]
    s = rng.choice([0.0, 0.25, 0.5, 0.75], n)
    w = rng.integers(0, 4, n).astype(float)  # zeros and repeated integer weights
    w[:2] = 1.0
    for pos_label, labels in ((1, y), ("yes", np.where(y == 1, "yes", "no"))):
        kw = {"sample_weight": w, "pos_label": pos_label}
        theirs = skm.average_precision_score(labels, s, **kw)
        assert receval.average_precision_score(labels, s, **kw) == pytest.approx(theirs, abs=1e-12)


@pytest.mark.parametrize("weighted", [False, True])
def test_average_precision_without_positive(weighted):
    rng = np.random.default_rng(0)
    s = rng.random(30)
    w = rng.uniform(0.5, 2, 30) if weighted else None
    with pytest.warns(UserWarning, match="No positive class"):
        theirs = skm.average_precision_score(np.zeros(30, dtype=int), s, sample_weight=w)
    # a documented difference: nan + UndefinedMetricWarning, and sklearn's 0.0 on request
    # (with weights, the state counts each class's weight: no positive row of weight)
    lacking = "no positive row of positive sample weight" if weighted else "no positive sample"
    with pytest.warns(UndefinedMetricWarning, match=lacking):
        undefined = receval.average_precision_score(np.zeros(30, dtype=int), s, sample_weight=w)
    assert np.isnan(undefined)
    ours = receval.average_precision_score(
        np.zeros(30, dtype=int), s, sample_weight=w, if_undefined=0.0
    )
    assert ours == pytest.approx(theirs, abs=1e-12)


@pytest.mark.parametrize("y", [np.zeros(12, dtype=int), np.ones(12, dtype=int)])
def test_single_class_auc_is_nan_with_a_warning_in_both(y):
    """sklearn 1.9.1 no longer raises here (docs/conventions.md still says it does)."""
    from sklearn.exceptions import UndefinedMetricWarning as SklearnUndefined

    s = np.random.default_rng(1).random(12)
    with pytest.warns(SklearnUndefined, match="Only one class is present in y_true"):
        assert math.isnan(skm.roc_auc_score(y, s))
    with pytest.warns(UndefinedMetricWarning):
        assert math.isnan(receval.roc_auc_score(y, s))


def _edge_probabilities(rng, n):
    """Probabilities with exact 0 and 1, near-0/1 values, and many ties."""
    special = np.array([0.0, 1e-300, 1e-17, 1e-9, 0.5, 1 - 1e-9, 1 - 1e-16, 1.0, 0.1, 0.9])
    p = rng.random(n)
    pick = rng.random(n) < 0.5
    p[pick] = rng.choice(special, pick.sum())
    return p


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("eps", LOG_LOSS_EPS)
def test_log_loss_eps_binary_clips_p(seed, eps):
    """log_loss(eps=e) on 1-D p: p clipped to [e, 1 - e], then 1 - p for a negative, as the eps
    parameter of sklearn <= 1.4 did. sklearn 1.9.1 has no eps (it clips at its dtype's eps), so
    it is given p already clipped: its own clipping then changes nothing."""
    rng = np.random.default_rng(seed)
    n = 200
    y = rng.integers(0, 2, n)
    p = _edge_probabilities(rng, n)
    for weights in (None, rng.uniform(0, 2, n)):
        ours = receval.log_loss(y, p, eps=eps, sample_weight=weights)
        theirs = skm.log_loss(y, np.clip(p, eps, 1 - eps), sample_weight=weights)
        assert ours == pytest.approx(theirs, abs=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("eps", LOG_LOSS_EPS)
def test_log_loss_eps_multiclass_clips_each_probability(seed, eps):
    """log_loss(eps=e) on 2-D probabilities: every entry clipped to [e, 1 - e], rows not
    renormalised, as sklearn 1.9.1 clips at its own eps (sklearn <= 1.4 also divided each
    clipped row by its sum)."""
    rng = np.random.default_rng(seed)
    n = 200
    y3 = rng.integers(0, 3, n)
    proba = rng.dirichlet([0.3, 0.3, 0.3], n)
    proba[rng.random(n) < 0.2] = [0.0, 0.0, 1.0]
    w = rng.uniform(0, 2, n)
    ours = receval.log_loss(y3, proba, eps=eps, sample_weight=w)
    theirs = _quiet(skm.log_loss, y3, np.clip(proba, eps, 1 - eps), sample_weight=w)
    assert ours == pytest.approx(theirs, abs=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_log_loss_default_eps_on_edge_probabilities(seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, 300)
    p = _edge_probabilities(rng, 300)
    assert receval.log_loss(y, p) == pytest.approx(skm.log_loss(y, p), abs=1e-12)
    y3 = rng.integers(0, 3, 300)
    proba = rng.dirichlet([0.2, 0.2, 0.2], 300)
    proba[:30] = np.eye(3)[rng.integers(0, 3, 30)]  # exact zeros and ones
    assert receval.log_loss(y3, proba) == pytest.approx(skm.log_loss(y3, proba), abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_log_loss_float32_input_with_float32_eps(seed):
    """sklearn clips float32 probabilities at finfo(float32).eps and computes in float32."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, 100)
    p = _edge_probabilities(rng, 100).astype(np.float32)
    f32 = float(np.finfo(np.float32).eps)
    assert receval.log_loss(y, p, eps=f32) == pytest.approx(skm.log_loss(y, p), rel=1e-6)


@pytest.mark.parametrize("seed", range(4))
def test_log_loss_float32_input_default_eps(seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, 100)
    p = _edge_probabilities(rng, 100).astype(np.float32)
    assert receval.log_loss(y, p) == pytest.approx(skm.log_loss(y, p), rel=1e-6)


def _edge_calibration_data(rng, n, n_bins):
    """Probabilities on sklearn's uniform edges (np.linspace values), and heavy ties."""
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    p = rng.random(n)
    on_edge = rng.random(n) < 0.4
    p[on_edge] = rng.choice(edges, on_edge.sum())
    tied = rng.random(n) < 0.2
    p[tied] = rng.choice([0.3, 0.35, 0.7], tied.sum())
    y = (rng.random(n) < p).astype(int)
    return y, p


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("n_bins", [1, 2, 4, 5, 10])
@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_calibration_curve_edges_and_ties(seed, n_bins, strategy):
    """A probability equal to an edge falls in the lower bin, in both libraries; quantile edges
    (np.percentile, linear interpolation) often equal a tied probability."""
    rng = np.random.default_rng(seed)
    y, p = _edge_calibration_data(rng, int(rng.integers(20, 200)), n_bins)
    ours = receval.calibration_curve(y, p, n_bins=n_bins, strategy=strategy)
    theirs = sk_calibration.calibration_curve(y, p, n_bins=n_bins, strategy=strategy)
    for a, b in zip(ours, theirs, strict=True):
        assert a.shape == b.shape
        assert a == pytest.approx(b, abs=1e-12)

"""The reason a metric of labels is undefined: rows of weight 0 count for nothing, so
a class may be in y_true and still leave the metric undefined; each warning says
what the metric counted (rows, or weight per class)."""

import math
import re

import numpy as np
import pytest

import receval as rv
from receval.exceptions import UndefinedMetricWarning

Y_TRUE = np.array([1, 0, 1, 0])
Y_SCORE = np.array([0.9, 0.3, 0.6, 0.2])
GROUPS = np.array(["a", "a", "b", "b"])

#: weights that leave each class (or both) without weight; both classes are in y_true
WEIGHTS = {
    "positive": np.array([0.0, 1.0, 0.0, 2.0]),
    "negative": np.array([1.0, 0.0, 2.0, 0.0]),
    "every": np.zeros(4),
}

#: name: (function, the metric's params, the function's name, what is undefined, needs negatives)
CURVES = {
    "roc_auc": (rv.roc_auc_score, {}, "roc_auc_score", "the AUC", True),
    "partial_auc": (rv.partial_auc, {"max_fpr": 0.5}, "partial_auc", "the AUC", True),
    "average_precision": (rv.average_precision_score, {}, "average_precision_score", "it", False),
    "pr_auc": (rv.pr_auc_score, {}, "pr_auc_score", "it", False),
    "break_even_point": (rv.break_even_point, {}, "break_even_point", "it", False),
}


def _reason(lacking: str) -> str:
    if lacking == "every":
        return "no row has a positive sample weight"
    return f"y_true has no {lacking} row of positive sample weight"


def _warns_exactly(message: str):
    return pytest.warns(UndefinedMetricWarning, match=f"^{re.escape(message)}$")


def _cases():
    for name, (_, _, _, _, both) in CURVES.items():
        for lacking in WEIGHTS:
            if both or lacking != "negative":  # without negatives AP and the rest are defined
                yield name, lacking


@pytest.mark.parametrize(("name", "lacking"), list(_cases()))
def test_curve_metrics_say_which_class_has_no_weight(name, lacking):
    function, params, func, what, _ = CURVES[name]
    w = WEIGHTS[lacking]
    message = f"{func}: {_reason(lacking)}, so {what} is undefined (returned as nan)."
    with _warns_exactly(message):
        assert math.isnan(function(Y_TRUE, Y_SCORE, sample_weight=w, **params))
    with _warns_exactly(message):
        assert math.isnan(
            rv.metric(name, **params).update(Y_TRUE, Y_SCORE, sample_weight=w).compute()
        )


@pytest.mark.parametrize("lacking", list(WEIGHTS))
def test_binned_auc_says_which_class_has_no_weight(lacking):
    # positives of weight 0 were 'y_true has a single class' (the bins held weights only)
    message = f"roc_auc_score: {_reason(lacking)}, so the AUC is undefined (returned as nan)."
    acc = rv.metric("roc_auc", bins=8).update(Y_TRUE, Y_SCORE, sample_weight=WEIGHTS[lacking])
    with _warns_exactly(message):
        assert math.isnan(acc.compute().value)
    merged = rv.metric("roc_auc", bins=8).update(Y_TRUE[:2], Y_SCORE[:2], WEIGHTS[lacking][:2])
    merged.merge(rv.metric("roc_auc", bins=8).update(Y_TRUE[2:], Y_SCORE[2:], WEIGHTS[lacking][2:]))
    with _warns_exactly(message):
        assert math.isnan(merged.compute().value)


@pytest.mark.parametrize("y_true", [[0, 0, 0], [1, 1, 1]])
@pytest.mark.parametrize("sample_weight", [None, [1.0, 2.0, 0.0]])
def test_binned_auc_of_one_class_says_so(y_true, sample_weight):
    message = "roc_auc_score: y_true has a single class, so the AUC is undefined (returned as nan)."
    acc = rv.metric("roc_auc", bins=8).update(y_true, [0.1, 0.2, 0.3], sample_weight)
    with _warns_exactly(message):
        assert math.isnan(acc.compute().value)


@pytest.mark.parametrize(
    ("name", "y_true", "said"),
    [
        ("roc_auc", [0, 0, 0], "y_true has a single class, so the AUC"),
        ("partial_auc", [1, 1, 1], "y_true has a single class, so the AUC"),
        ("average_precision", [0, 0, 0], "y_true has no positive sample, so it"),
        ("break_even_point", [0, 0, 0], "y_true has no positive sample, so it"),
    ],
)
def test_one_class_without_weights_is_still_said_so(name, y_true, said):
    function, params, func, _, _ = CURVES[name]
    message = f"{func}: {said} is undefined (returned as nan)."
    with _warns_exactly(message):
        assert math.isnan(function(y_true, [0.1, 0.2, 0.3], **params))
    with _warns_exactly(message):
        assert math.isnan(rv.metric(name, **params).update(y_true, [0.1, 0.2, 0.3]).compute())


def test_copc_of_no_weight_is_not_a_zero_prediction():
    # it said "the predicted probabilities sum to 0"
    message = "copc: no row has a positive sample weight, so COPC is undefined (returned as nan)."
    with _warns_exactly(message):
        assert math.isnan(rv.copc(Y_TRUE, Y_SCORE, sample_weight=WEIGHTS["every"]))
    acc = rv.metric("copc").update(Y_TRUE, Y_SCORE, sample_weight=WEIGHTS["every"])
    with _warns_exactly(message):
        assert math.isnan(acc.compute())
    zero = "copc: the predicted probabilities sum to 0, so COPC is undefined (returned as nan)."
    with _warns_exactly(zero):
        assert math.isnan(rv.copc([1, 0], [0.0, 0.0]))


@pytest.mark.parametrize("lacking", list(WEIGHTS))
def test_gauc_counts_the_groups_skipped_for_their_weights(lacking):
    # it said "no group has both a positive and a negative sample"
    y_true = np.append(Y_TRUE, [0, 0])  # group "c" has one class
    y_score, groups = np.append(Y_SCORE, [0.5, 0.4]), np.append(GROUPS, ["c", "c"])
    w = np.append(WEIGHTS[lacking], [1.0, 1.0])
    message = (
        "gauc_score: no group has both a positive and a negative row of positive sample "
        "weight (3 groups, all skipped; in 2 of them both classes are present, but every row "
        "of one has a sample weight of 0), so GAUC is undefined (returned as nan)."
    )
    with _warns_exactly(message):
        assert math.isnan(rv.gauc_score(y_true, y_score, groups=groups, sample_weight=w))
    for whole_groups in (True, False):
        acc = rv.metric("gauc", whole_groups=whole_groups)
        acc.update(y_true, y_score, groups=groups, sample_weight=w)
        with _warns_exactly(message):
            assert math.isnan(acc.compute())


def test_gauc_of_one_class_groups_is_still_said_so():
    message = (
        "gauc_score: no group has both a positive and a negative sample (2 groups, all "
        "skipped), so GAUC is undefined (returned as nan)."
    )
    y_true, w = [1, 1, 0, 0], [1.0, 2.0, 1.0, 0.0]
    with _warns_exactly(message):
        assert math.isnan(rv.gauc_score(y_true, Y_SCORE, groups=GROUPS, sample_weight=w))
    acc = rv.metric("gauc").update(y_true, Y_SCORE, groups=GROUPS, sample_weight=w)
    with _warns_exactly(message):
        assert math.isnan(acc.compute())


def test_gauc_state_saved_before_it_counted_weightless_groups_loads_and_merges():
    import pickle

    acc = rv.metric("gauc", whole_groups=True)
    acc.update(Y_TRUE, Y_SCORE, groups=GROUPS, sample_weight=WEIGHTS["every"])
    assert acc.state.totals.n_groups_weightless == 2
    state = acc.__getstate__()
    state["_state"] = pickle.loads(pickle.dumps(state["_state"]))
    state["_state"].totals.__dict__.pop("n_groups_weightless")  # a state of before
    old = type(acc).__new__(type(acc))
    old.__setstate__(pickle.loads(pickle.dumps(state)))
    assert old.state.totals.n_groups_weightless == 0  # the default: none known
    other = rv.metric("gauc", whole_groups=True)
    other.update(Y_TRUE, Y_SCORE, groups=["c", "c", "d", "d"], sample_weight=WEIGHTS["every"])
    assert old.merge(other).state.totals.n_groups_weightless == 2


MULTI_TRUE = np.array([0, 0, 1, 1, 2, 2])
MULTI_SCORE = np.array(
    [[0.6, 0.2, 0.2], [0.5, 0.3, 0.2], [0.2, 0.6, 0.2], [0.3, 0.5, 0.2], [0.2, 0.2, 0.6],
     [0.1, 0.3, 0.6]]
)  # fmt: skip
NO_CLASS_1 = np.array([1.0, 1.0, 0.0, 0.0, 1.0, 1.0])  # class 1's rows weigh 0


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"multi_class": "ovo"}, "roc_auc_score: undefined for the pairs of classes with [1], "
         "which have no row of positive sample weight (returned as nan)."),
        ({"multi_class": "ovr"}, "roc_auc_score: undefined for classes [1], which have no "
         "positive or no negative row of positive sample weight (returned as nan)."),
    ],
)  # fmt: skip
def test_multiclass_auc_says_a_class_has_no_weight(options, message):
    # it said 'a pair of classes has no samples of one class' and 'no positive or no
    # negative sample' where class 1 has two rows, of weight 0
    with _warns_exactly(message):
        value = rv.roc_auc_score(MULTI_TRUE, MULTI_SCORE, sample_weight=NO_CLASS_1, **options)
    assert math.isnan(value)


def test_multiclass_micro_auc_of_no_weight_says_so():
    # it said 'undefined for this input'
    message = (
        "roc_auc_score: no row has a positive sample weight, so the micro average is "
        "undefined (returned as nan)."
    )
    with _warns_exactly(message):
        value = rv.roc_auc_score(
            MULTI_TRUE, MULTI_SCORE, sample_weight=np.zeros(6), multi_class="ovr", average="micro"
        )
    assert math.isnan(value)


def test_multiclass_auc_of_a_class_without_rows_still_says_sample():
    scores = np.hstack([MULTI_SCORE, np.full((6, 1), 0.1)])
    message = (
        "roc_auc_score: undefined for classes [3], which have no positive or no negative "
        "sample (returned as nan)."
    )
    with _warns_exactly(message):
        values = rv.roc_auc_score(
            MULTI_TRUE, scores, multi_class="ovr", average=None, labels=[0, 1, 2, 3]
        )
    assert np.isnan(values[3])


def test_binned_state_saved_before_it_counted_rows_loads_and_merges():
    import pickle

    acc = rv.metric("roc_auc", bins=8).update(Y_TRUE, Y_SCORE, sample_weight=WEIGHTS["positive"])
    state = acc.__getstate__()
    state["_state"] = pickle.loads(pickle.dumps(state["_state"]))
    for name in ("n_pos_rows", "n_neg_rows"):
        state["_state"].__dict__.pop(name)  # a state of before
    old = type(acc).__new__(type(acc))
    old.__setstate__(pickle.loads(pickle.dumps(state)))
    assert (old.state.n_pos_rows, old.state.n_neg_rows) == (0, 0)  # the default: none known
    old.merge(rv.metric("roc_auc", bins=8).update([1, 0], [0.5, 0.4], sample_weight=[0.0, 1.0]))
    message = f"roc_auc_score: {_reason('positive')}, so the AUC is undefined (returned as nan)."
    with _warns_exactly(message):
        assert math.isnan(old.compute().value)

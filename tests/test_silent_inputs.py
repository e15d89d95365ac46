"""Inputs that once gave a silently wrong number or lost rows: now right, counted or an error."""

import re

import numpy as np
import pytest

import receval as rv
from receval import InputValidationError


# ------------------------------------------------------------------ ids
def test_int64_qrels_ids_match_uint64_run_ids_exactly():
    # hashed ids above 2**53: NumPy compares int64 with uint64 through float64
    ids = np.array([2**60 + 1, 2**60 + 3, 2**60 + 5], dtype=np.int64)
    items = np.array([1, 2, 3])
    qrels = rv.Qrels(ids, items, np.ones(3))
    run = rv.Run(ids.astype(np.uint64), items, np.array([0.9, 0.8, 0.7]))
    report = rv.evaluate(qrels, run, ["ndcg@10"])
    assert report.mean["ndcg@10"] == 1.0
    assert report.n_users_missing == 0
    # and the reverse, with a negative id (equal to no unsigned id)
    qrels = rv.Qrels(np.array([2**63 + 7, 5], dtype=np.uint64), [1, 1])
    run = rv.Run(np.array([-5, 5], dtype=np.int64), [1, 1], [0.5, 0.5])
    report = rv.evaluate(qrels, run, ["success@1"])
    assert report.n_users_missing == 1
    assert report.n_run_only_users == 1
    assert report.mean["success@1"] == 0.5


def test_uint64_ids_from_2_63():
    big = np.array([2**63 + 1, 2**64 - 1], dtype=np.uint64)
    qrels = rv.Qrels(big, [1, 2])
    run = rv.Run(big, [1, 3], [0.5, 0.5])
    report = rv.evaluate(qrels, run, ["success@1"])
    assert report.users.tolist() == [2**63 + 1, 2**64 - 1]
    assert report.values["success@1"].tolist() == [1.0, 0.0]


def test_ids_differing_by_a_trailing_nul_stay_apart():
    qrels = rv.Qrels.from_dict({"a": {"x": 1}, "a\x00": {"y": 1}})
    assert qrels.n_users == 2
    assert qrels.to_dict() == {"a": {"x": 1}, "a\x00": {"y": 1}}
    run = rv.Run.from_dict({"a": {"x": 1.0}, "a\x00": {"x": 1.0}})
    assert run.n_users == 2
    report = rv.evaluate(qrels, run, ["success@1"])
    assert report.values["success@1"].tolist() == [1.0, 0.0]
    nul = rv.Qrels(["b", "b\x00"], ["x\x00", "x"])
    assert nul.to_dict() == {"b": {"x\x00": 1}, "b\x00": {"x": 1}}


def test_qrels_user_without_judgments_is_counted():
    report = rv.evaluate({"u": {"a": 1}, "v": {}}, {"u": {"a": 1.0}, "v": {"a": 1.0}}, ["ndcg@10"])
    assert report.n_users == 2
    assert report.n_users_empty["ndcg@10"] == 1
    assert report.n_users_skipped["ndcg@10"] == 1
    assert report.mean["ndcg@10"] == 1.0
    zero = rv.evaluate({"u": {"a": 1}, "v": {}}, {"u": {"a": 1.0}}, ["ndcg@10"], empty_users="zero")
    assert zero.mean["ndcg@10"] == 0.5
    assert zero.users.tolist() == ["u", "v"]


# ------------------------------------------------------------------ gains
def test_exponential_gain_overflow_is_an_error_not_a_skip():
    qrels = {"u": {"a": 1024, "b": 1}}
    run = {"u": {"a": 1.0, "b": 0.5}}
    with pytest.raises(InputValidationError, match=r"overflows float64 for grades >= 1024"):
        rv.evaluate(qrels, run, ["ndcg(gain=exponential)@10"])
    assert rv.evaluate(qrels, run, ["ndcg@10"]).mean["ndcg@10"] == 1.0  # linear is fine
    ok = rv.evaluate({"u": {"a": 1023, "b": 1}}, run, ["ndcg(gain=exponential)@10"])
    assert ok.mean["ndcg(gain=exponential)@10"] == 1.0


# ------------------------------------------------------------------ weights are a scale
WEIGHTED = {
    "log_loss": lambda y, p, w: rv.log_loss(y, p, sample_weight=w),
    "ece": lambda y, p, w: rv.expected_calibration_error(y, p, sample_weight=w),
    "rmse": lambda y, p, w: rv.root_mean_squared_error(y, p, sample_weight=w),
    "mae": lambda y, p, w: rv.mean_absolute_error(y, p, sample_weight=w),
    "calibration_curve": lambda y, p, w: np.concatenate(
        rv.calibration_curve(y, p, sample_weight=w)
    ),
    "roc_auc": lambda y, p, w: rv.roc_auc_score(y, p, sample_weight=w),
    "average_precision": lambda y, p, w: rv.average_precision_score(y, p, sample_weight=w),
    "pr_auc": lambda y, p, w: rv.pr_auc_score(y, p, sample_weight=w),
    "pcoc": lambda y, p, w: rv.pcoc(y, p, sample_weight=w),
    "gauc": lambda y, p, w: rv.gauc_score(y, p, groups=[0, 0, 0, 1, 1, 1], sample_weight=w),
}


@pytest.mark.parametrize("name", sorted(WEIGHTED))
@pytest.mark.parametrize("scale", [1e308, 1e-300, 2.0**70])
def test_weights_are_a_scale(name, scale):
    y = np.array([0, 1, 1, 0, 1, 0])
    p = np.array([0.2, 0.7, 0.4, 0.6, 0.9, 0.1])
    w = np.array([1.0, 2.0, 1.0, 3.0, 1.0, 2.0])
    expected = WEIGHTED[name](y, p, w)
    got = WEIGHTED[name](y, p, w / 3 * scale)
    np.testing.assert_allclose(got, expected, rtol=1e-14, atol=0)
    assert np.all(np.isfinite(got))


def test_rmse_and_mae_of_huge_and_tiny_errors():
    assert rv.root_mean_squared_error([0, 0], [1e200, 1e200]) == 1e200
    assert rv.root_mean_squared_error([0, 0], [1e-200, 1e-200]) == 1e-200
    assert rv.mean_absolute_error([-1e308, 0], [1e308, 0]) == 1e308  # 2e308 / 2
    assert rv.root_mean_squared_error([3, 4, 5], [2.5, 4, 6]) == pytest.approx(0.6455, abs=1e-4)


# ------------------------------------------------------------------ labels, not probabilities
@pytest.mark.parametrize("func", [rv.accuracy_score, rv.error_rate, rv.confusion_matrix])
def test_probabilities_are_not_labels(func):
    name = func.__name__
    with pytest.raises(
        InputValidationError,
        match=re.escape(
            f"{name}: y_pred must hold class labels. Got non-integer values [0.2, 0.7] that are "
            f"not labels of y_true; these look like probabilities or scores: threshold them "
            f"first, e.g. y_pred = (y_prob >= 0.5).astype(int)."
        ),
    ):
        func([0, 1], [0.2, 0.7])
    func([0, 1], [0.0, 1.0])  # whole floats are labels


# ------------------------------------------------------------------ lists left out
def test_list_metrics_count_the_lists_they_leave_out():
    same = lambda a, b: 0.5  # noqa: E731
    ils = rv.intra_list_similarity([["a", "b"], ["c"], []], similarity=same)
    assert ils == 0.5
    assert (ils.n_users, ils.n_users_skipped) == (3, 2)
    div = rv.diversity([["a", "b"], ["c"]], similarity=same)
    assert div == 0.5
    assert (div.n_users, div.n_users_skipped) == (2, 1)
    nov = rv.novelty([["a"], ["z"]], (["u", "v"], ["a", "a"]), unseen="skip")
    assert (nov.n_users, nov.n_users_skipped) == (2, 1)
    assert isinstance(ils, float) and repr(ils) == "0.5"
    import pickle

    back = pickle.loads(pickle.dumps(ils))
    assert back == 0.5 and back.n_users_skipped == 2

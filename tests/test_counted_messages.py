"""Every count in a message agrees with its noun and its verb: a count of 1 reads
"1 user has", any other count "2 users have" (receval._parameters.counted and verb)."""

from __future__ import annotations

import numpy as np
import pytest

import receval as rv
from receval import InputValidationError
from receval._parameters import counted, verb
from receval.exceptions import TieOrderWarning, UnmatchedIdsWarning


def test_counted_and_verb():
    assert counted(1, "user") == "1 user"
    assert counted(2_000, "user") == "2,000 users"
    assert counted(0, "query", "queries") == "0 queries"
    singular = ["is", "has", "was", "leaves", "matches"]
    assert [verb(1, w) for w in singular] == singular
    assert [verb(2, w) for w in singular] == ["are", "have", "were", "leave", "match"]


# ------------------------------------------------------------------ evaluate
def test_missing_users_error_counts_one_qrels_user():
    qrels = {"u": {"a": 1}, "v": {"a": 1}}
    with pytest.raises(InputValidationError, match=r"^evaluate: 1 qrels user is absent from the"):
        rv.evaluate(qrels, {"u": {"a": 1.0}}, ["ndcg"], missing_users="error")


def test_empty_users_error_counts_one_user():
    qrels = {"u": {"a": 1}, "v": {"b": 0}}
    run = {"u": {"a": 1.0}, "v": {"b": 1.0}}
    with pytest.raises(InputValidationError, match=r"and 1 user has no relevant item, e\.g\."):
        rv.evaluate(qrels, run, ["ndcg"], empty_users="error")


def test_tie_warning_counts_one_user():
    qrels = {"u": {"a": 1}, "v": {"a": 1}}
    run = {"u": {"a": 0.9, "b": 0.8}, "v": {"a": 0.5, "b": 0.5}}
    with pytest.warns(TieOrderWarning, match=r"\): 1 user has tied scores, e\.g\. \['v'\]"):
        rv.evaluate(qrels, run, ["map@10"], profile="recbole")


def test_matching_warning_counts_one_item():
    qrels = {"u": {"a": 1, "b": 1}, "v": {"c": 1}}
    run = {"u": {"a": 0.9, "x1": 0.8, "x2": 0.7}, "v": {"x3": 0.5, "x4": 0.4}}
    with pytest.warns(UnmatchedIdsWarning, match=r"1 of the run's 5 items is judged in the qrels"):
        rv.evaluate(qrels, run, ["ndcg"], min_match=0.5)


def test_masking_summary_counts_one_item_of_one_user():
    from receval.data.seen import MaskingSummary

    one = MaskingSummary(False, 1, 1, 0, 1)
    assert one.describe() == (
        "1 seen item removed from 1 user's list, 1 judged item seen in training (kept in the qrels)"
    )
    assert MaskingSummary(False, 3, 2, 0, 0).describe() == (
        "3 seen items removed from 2 users' lists"
    )


# ------------------------------------------------------------------ reprs
def test_accumulator_repr_counts_one_update():
    acc = rv.metric("roc_auc")
    acc.update([0, 1], [0.2, 0.8])
    assert repr(acc) == "Accumulator('roc_auc', 1 update)"
    window = rv.metric("roc_auc", window=1)
    assert repr(window) == "Accumulator('roc_auc', 0 updates, window of 1 batch)"


def test_group_auc_report_repr_counts_one_group():
    report = rv.group_auc([0, 1], [0.2, 0.8], groups=["a", "a"])
    assert "1 group, 0 skipped with 0 rows;" in repr(report)


def test_retention_repr_and_notes_count_one():
    events = {
        "user": ["a", "a", "b"],
        "time": ["2024-01-01", "2024-01-03", "2024-01-02"],
        "signup": ["2024-01-02", "2024-01-02", "2024-01-02"],
    }
    report = rv.retention(events, signup="signup", days=[1])
    assert report.before_signup_note.startswith(
        "1 event of 1 user is earlier than their user's signup"
    )
    one = rv.retention({"user": ["a"], "time": ["2024-01-01"]}, days=[1])
    assert repr(one).startswith(
        "RetentionReport(1 day, 2024-01-01 to 2024-01-01 (UTC), 1 event, 1 user)"
    )
    with pytest.raises(InputValidationError, match=r"^retention: 1 event of 1 user is earlier"):
        rv.retention(events, signup="signup", days=[1], before_signup="error")


def test_comparison_warnings_count_one():
    with pytest.warns(rv.UndefinedMetricWarning, match=r"^adjust_pvalues: 1 of 2 p-values is NaN"):
        rv.adjust_pvalues([0.01, np.nan], method="holm")


def test_validation_errors_count_one():
    with pytest.raises(InputValidationError, match=r"recommended holds 1 list, so relevant"):
        rv.precision_at_k([["a"]], {"a"}, k=1)


def test_already_given_ids_agree_with_their_count():
    from receval.engine.group_ids import Seen

    seen = Seen()
    seen.add(np.array([1, 2]), "f", "users")
    with pytest.raises(InputValidationError, match=r"^f: user \[1\] was already given in an"):
        seen.add(np.array([1, 3]), "f", "users")

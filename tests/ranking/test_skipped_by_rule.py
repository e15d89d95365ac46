"""``EvaluationReport.n_users_skipped_by``: the users each rule left out of a mean,
alike in memory, on a scanned run and in a subset of the users."""

from __future__ import annotations

import warnings

import pytest

import receval
from receval import evaluate

# u1 ranks its relevant item first; u2 is absent from the run; u3 has no relevant
# item; u4 ranks no relevant item in the top 2 (value 0)
QRELS = {"u1": {"a": 1}, "u2": {"c": 1}, "u3": {"d": 0}, "u4": {"e": 1}}
RUN = {"u1": {"a": 0.9, "b": 0.5}, "u3": {"d": 0.9, "b": 0.5}, "u4": {"x": 0.9, "b": 0.5}}
POPULARITY = {"a": 3, "b": 1, "d": 2, "x": 1}
METRICS = ["ndcg@2", "arp@2"]


def _by(empty=0, missing=0, zero=0, no_value=0):
    return {"empty_users": empty, "missing_users": missing, "zero_users": zero,
            "no_value": no_value}  # fmt: skip


CASES = [
    ({}, _by(empty=1)),
    ({"missing_users": "skip", "empty_users": "zero"}, _by(missing=1)),
    ({"zero_users": "skip", "empty_users": "zero"}, _by(zero=3)),
    ({"missing_users": "skip"}, _by(empty=1, missing=1)),
    ({"zero_users": "skip"}, _by(empty=1, zero=2)),
    ({"missing_users": "skip", "zero_users": "skip"}, _by(empty=1, missing=1, zero=1)),
    ({"missing_users": "skip", "zero_users": "skip", "empty_users": "zero"},
     _by(missing=1, zero=2)),
]  # fmt: skip


@pytest.mark.parametrize(("options", "ndcg"), CASES)
def test_each_rule_counts_the_users_it_left_out(options, ndcg):
    report = evaluate(QRELS, RUN, METRICS, popularity=POPULARITY, **options)
    assert report.n_users_skipped_by["ndcg@2"] == ndcg
    # a metric of the lists alone follows none of the rules: u2 has no list
    assert report.n_users_skipped_by["arp@2"] == _by(no_value=1)
    assert report.n_users_skipped == {
        t: sum(by.values()) for t, by in report.n_users_skipped_by.items()
    }
    for t in METRICS:
        assert report.n_users_skipped[t] == int(sum(v != v for v in report.values[t]))


def test_a_user_absent_and_without_a_relevant_item_counts_once_under_empty_users():
    qrels = {"u1": {"a": 1}, "u2": {"c": 0}}
    report = evaluate(qrels, {"u1": {"a": 0.9}}, ["ndcg@2"], missing_users="skip")
    assert report.n_users_skipped_by["ndcg@2"] == _by(empty=1)
    report = evaluate(
        qrels, {"u1": {"a": 0.9}}, ["ndcg@2"], missing_users="skip", empty_users="zero"
    )
    assert report.n_users_skipped_by["ndcg@2"] == _by(missing=1)


def test_a_list_too_short_has_no_value():
    report = evaluate(
        {"u1": {"a": 1}, "u2": {"b": 1}}, {"u1": {"a": 0.9, "b": 0.5}, "u2": {"b": 0.9}},
        ["ils@2"], similarity=lambda i, j: 1.0,
    )  # fmt: skip
    assert report.n_users_skipped_by["ils@2"] == _by(no_value=1)


@pytest.mark.parametrize(("options", "ndcg"), CASES)
def test_a_subset_counts_its_users(options, ndcg):
    report = evaluate(QRELS, RUN, METRICS, popularity=POPULARITY, **options)
    with warnings.catch_warnings(action="ignore"):  # u2 and u4 judge no run item
        alone = evaluate(
            {u: QRELS[u] for u in ("u2", "u4")}, RUN, METRICS, popularity=POPULARITY,
            allow_unmatched=True, **options,
        )  # fmt: skip
    part = report.subset([u in ("u2", "u4") for u in report.users])
    assert part.n_users_skipped_by == alone.n_users_skipped_by
    assert part.n_users_skipped == alone.n_users_skipped


@pytest.mark.parametrize(("options", "ndcg"), CASES)
def test_a_scanned_run_counts_alike(tmp_path, options, ndcg):
    import pandas as pd

    rows = [(u, i, s) for u, items in RUN.items() for i, s in items.items()]
    path = tmp_path / "run.parquet"
    pd.DataFrame(rows, columns=["user", "item", "score"]).to_parquet(path)
    scanned = evaluate(QRELS, receval.scan(str(path)), METRICS, popularity=POPULARITY, **options)
    assert scanned.n_users_skipped_by["ndcg@2"] == ndcg
    assert scanned.n_users_skipped_by["arp@2"] == _by(no_value=1)


@pytest.mark.parametrize("whole_groups", [True, False])
@pytest.mark.parametrize("missing_users", ["zero", "skip"])
def test_an_accumulator_counts_the_users_missing_as_evaluate(whole_groups, missing_users):
    options = {"missing_users": missing_users, "whole_groups": whole_groups}
    total, parts = receval.metric("ndcg@2", **options), []
    seen_q, seen_r = {}, {}
    for user in QRELS:  # batch by batch, one user each (u1 first: a run is never empty)
        q, r = {user: QRELS[user]}, {u: RUN[u] for u in (user,) if u in RUN}
        total.update(q, r)
        parts.append(receval.metric("ndcg@2", **options).update(q, r))
        seen_q, seen_r = {**seen_q, **q}, {**seen_r, **r}
        want = evaluate(seen_q, seen_r, "ndcg@2", missing_users=missing_users)
        assert total.skipped() == {"n_users_missing": want.n_users_missing}
    merged = parts[0]
    for part in parts[1:]:
        merged = merged.merge(part)
    assert merged.skipped() == total.skipped() == {"n_users_missing": 1}  # u2
    assert merged.compute() == want.mean["ndcg@2"]


def test_a_user_whose_list_comes_in_a_later_update_is_not_missing():
    acc = receval.metric("ndcg@2").update({"u2": QRELS["u2"]}, {})
    assert acc.skipped() == {"n_users_missing": 1}  # so far, as evaluate of these rows
    acc.update({}, {"u2": {"c": 0.9}})
    assert acc.skipped() == {"n_users_missing": 0}

"""The reprs of report objects are summaries: a few lines with the headline numbers and
the counts, and how to get the rest, however many users, groups or cohorts there are."""

from __future__ import annotations

import numpy as np

import receval as rv
from receval.datasets import make_events, make_impressions, make_recommendations
from receval.report import HTMLReport
from receval.sampled.report import SampledReport


def test_group_auc_report_repr_is_one_line() -> None:
    log = make_impressions(943, seed=0)
    report = rv.group_auc(log["click"], log["model_a"], groups=log["user"])
    text = repr(report)
    assert text.count("\n") == 0 and len(text) < 160
    assert f"gauc={report.score!r}" in text
    assert f"{report.n_groups:,} groups, {report.n_groups_skipped:,} skipped" in text
    assert ".to_frame()" in text


def test_retention_report_repr_is_three_lines() -> None:
    report = rv.retention(make_events(500, seed=0))
    lines = repr(report).splitlines()
    assert len(lines) == 3
    assert lines[0] == (
        f"RetentionReport(60 days, {report.periods[0]} to {report.periods[-1]} (UTC), "
        f"{report.n_events:,} events, {report.n_users:,} users)"
    )
    assert f"day_1 {np.nanmean(report.day_n_retention[:, 0]):.4f}" in lines[1]
    assert ".cohort_frame()" in lines[2]


def test_evaluation_and_segment_reports_show_a_bounded_summary() -> None:
    qrels, runs = make_recommendations(300, seed=0)
    q = rv.Qrels(qrels["user"], qrels["item"], qrels["grade"])
    run = rv.Run(runs["model_a"]["user"], runs["model_a"]["item"], runs["model_a"]["score"])
    report = rv.evaluate(q, run, ["ndcg@10", "mrr"])
    assert len(repr(report).splitlines()) == 3  # a line per metric
    users = np.unique(qrels["user"])
    segments = report.by_segment({u: f"g{i:03d}" for i, u in enumerate(users)})
    lines = repr(segments).splitlines()
    assert len(lines) == 1 + 1 + 5 + 1 + 5 + 1  # title, header, 5, ..., 5, (all)
    assert lines[0] == "SegmentReport(300 segments, 10 shown; all: .to_frame())"
    assert lines[2].split()[0] == "g000" and lines[7] == "  ..." and lines[12].split()[0] == "g299"
    assert lines[-1].split()[0] == "(all)"


def test_sampled_report_repr_is_a_row_per_metric() -> None:
    report = SampledReport(
        metrics=["recall@5", "ndcg@10"],
        sampled={"recall@5": 0.5, "ndcg@10": 0.25},
        corrected={"bv": {"recall@5": 0.4, "ndcg@10": 0.2}},
        full={"recall@5": 0.3, "ndcg@10": 0.125},
        run_covers_catalog=True,
        reports={},
    )
    lines = repr(report).splitlines()
    assert lines[0].startswith("SampledReport(2 metrics") and ".to_frame()" in lines[0]
    assert lines[1].split() == ["metric", "sampled", "bv", "full"]
    assert lines[2].split() == ["recall@5", "0.500000", "0.400000", "0.300000"]
    assert len(lines) == 4


def test_html_report_repr_counts_its_parts() -> None:
    doc = HTMLReport("Weekly <CTR>")
    doc.add_heading("Models")
    doc.add_results([{"model": "a", "auc": 0.5, "counts": {"n_users": 3}}])
    doc.add_table([{"x": 1}])
    assert repr(doc) == (
        "HTMLReport('Weekly <CTR>': 1 section, 2 tables, 0 figures; "
        "the page: .to_html(), the numbers: .to_dict())"
    )


def test_segment_comparison_repr_is_the_overall_comparison_and_a_header() -> None:
    qrels = {f"u{i}": {"a": 1} for i in range(40)}
    run_a = {u: {"a": 1.0, "b": 0.5} for u in qrels}
    run_b = {u: {"b": 1.0, "a": 0.5} for u in qrels}
    groups = {u: f"g{i % 20}" for i, u in enumerate(qrels)}
    seg = rv.compare_by_segment(
        qrels, {"a": run_a, "b": run_b}, ["mrr"], by=groups, n_permutations=100, interval=None
    )
    head, rest = repr(seg).split("\n", 1)
    assert head.startswith("SegmentComparison(20 segments of 40 users, 0 without one; ")
    assert rest == repr(seg.overall)


def test_a_segment_report_says_how_many_are_in_no_segment() -> None:
    """Its (all) row counts them: the rows above did not add up to it."""
    qrels = {f"u{i}": {"a": 1} for i in range(4)}
    run = {f"u{i}": {"a": 1.0, "b": 0.5} for i in range(4)}
    segments = rv.evaluate(qrels, run, ["mrr"]).by_segment({"u0": "x", "u1": "y"})
    lines = repr(segments).splitlines()
    assert lines[0] == "SegmentReport(2 segments, 2 users in none)"
    assert lines[-1].split()[:2] == ["(all)", "4"]


def test_counts_sentence_says_each_rule_of_a_metric():
    from receval import evaluate
    from receval.report import ranking_records
    from receval.report.tables import counts_sentence

    qrels = {"u1": {"a": 1}, "u2": {"c": 1}, "u3": {"d": 0}}
    report = evaluate(qrels, {"u1": {"a": 0.9}}, ["mrr"], missing_users="skip")
    (record,) = ranking_records({"x": report})
    sentence = counts_sentence(record["counts"], record)
    # one user is one user ("1 users" before); the rules keep their names, each group
    # of users said once: the empty user was also said as "1 user empty (mrr)"
    assert sentence == (
        "3 users, 2 users missing, 2 users skipped: 1 empty user and 1 missing user (mrr), "
        "1 run item"
    )


def test_counts_sentence_says_the_skipped_users_once_for_the_metrics_alike():
    from receval import evaluate
    from receval.report import ranking_records
    from receval.report.tables import counts_sentence

    # "5 users skipped (mrr), 5 users skipped by empty users (mrr), 5 users empty (mrr)"
    # read as 15 users, and again for each metric
    qrels = {f"u{i}": {"a": int(i < 2)} for i in range(7)}
    report = evaluate(qrels, {u: {"a": 1.0} for u in qrels}, ["mrr", "ndcg@3"])
    (record,) = ranking_records({"x": report})
    sentence = counts_sentence(record["counts"], record)
    assert sentence == "7 users, 5 users skipped: 5 empty users (mrr, ndcg@3), 1 run item"


def test_report_reprs_show_metric_values_whole() -> None:
    """A value is shown as repr shows the float, never cut to a few digits (which
    showed 0.99999999 as 1 and 1/3 as 0.333333)."""
    from dataclasses import replace

    log = make_impressions(200, seed=0)
    gauc = replace(rv.group_auc(log["click"], log["model_a"], groups=log["user"]), score=1 - 1e-8)
    assert "gauc=0.99999999," in repr(gauc)
    qrels = {"u": {"a": 2, "b": 1, "c": 1}, "v": {"a": 1}, "w": {"c": 1}}
    run = {"u": {"a": 0.9, "c": 0.5, "b": 0.4}, "v": {"b": 0.9, "a": 0.1}, "w": {"c": 0.9}}
    exposure = rv.expected_exposure(qrels, run, k=2)
    for name, value in exposure.mean.items():
        assert f"{name}={value!r}" in repr(exposure)
    assert "ee_loss=0.4583333333333333," in repr(exposure)
    groups = rv.group_exposure(
        [["a", "c", "b"], ["d", "a"]], item_groups={"a": 1, "b": 1, "c": 2, "d": 3}
    )
    assert f"gini={groups.gini!r}" in repr(groups)
    assert f"max_min_ratio={groups.max_min_ratio!r}" in repr(groups)
    exact = {"u1": {"a": 0.9, "b": 0.8, "c": 0.7}, "u2": {"d": 0.9, "e": 0.5, "f": 0.1}}
    approx = {"u1": {"c": 0.7, "a": 0.6}, "u2": {"f": 0.5, "d": 0.4, "e": 0.3}}
    assert "recall=0.8333333333333334," in repr(rv.ann_recall(exact, approx, 3))

"""A ranking report by segment counts, per segment and metric, the users the metric's
rules left out of its mean: in the API and in ``receval rank --by``'s JSON."""

from __future__ import annotations

import json

import receval
from tests.cli._helpers import invoke, make_runner

QRELS = {"q1": {"a": 1}, "q2": {"b": 0}, "q3": {"c": 1}, "q4": {"d": 0}}
RUN = {"q1": {"a": 1.0}, "q2": {"b": 1.0}, "q3": {"x": 1.0}, "q4": {"d": 1.0}}
SEGMENTS = {"q1": "A", "q2": "A", "q3": "B", "q4": "A"}


def test_report_by_segment_counts_the_skipped_users():
    report = receval.evaluate(QRELS, RUN, ["ndcg@5", "num_ret"])
    seg = report.by_segment(SEGMENTS)
    assert seg.counts.tolist() == [3, 1]
    # q2, q4: no relevant item, skipped by ndcg (empty_users="skip"); counts skip none
    assert seg.n_skipped["ndcg@5"].tolist() == [2, 0]
    assert seg.n_skipped["num_ret"].tolist() == [0, 0]
    assert int(seg.n_skipped["ndcg@5"].sum()) == report.n_users_skipped["ndcg@5"]


def test_rank_by_json_counts_the_skipped_users_of_each_segment(tmp_path):
    qrels, run, segments = tmp_path / "q.qrels", tmp_path / "r.run", tmp_path / "s.csv"
    qrels.write_text("".join(f"{u} 0 {i} {g}\n" for u, d in QRELS.items() for i, g in d.items()))
    run.write_text("".join(f"{u} Q0 {i} 1 {s} r\n" for u, d in RUN.items() for i, s in d.items()))
    segments.write_text("user,segment\n" + "".join(f"{u},{s}\n" for u, s in SEGMENTS.items()))
    result = invoke(make_runner(), "rank", "--qrels", qrels, "--run", run, "-m", "ndcg@5",
                    "--by", segments, "-f", "json")  # fmt: skip
    records = json.loads(result.stdout)
    assert [r["segment"] for r in records] == ["A", "B", "(all)"]
    assert records[0]["counts"] == {"n_users_skipped": {"ndcg@5": 2}}
    assert records[1]["counts"] == {}
    assert records[2]["counts"]["n_users_skipped"] == {"ndcg@5": 2}

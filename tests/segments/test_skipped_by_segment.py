"""Metrics by segment count, per segment and metric, what the metric's rules left out: the
users of a ranking report's mean (in the API and in ``receval rank --by``'s JSON), the
groups gauc and the grouped metrics skip in each segment's rows (``receval.by_segment``)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import receval
from receval.engine import sources
from receval.registry import resolve
from receval.registry.pointwise import pointwise_adapter
from tests.cli._helpers import invoke, make_runner
from tests.oracles.pointwise import gauc_skips_by_segment

QRELS = {"q1": {"a": 1}, "q2": {"b": 0}, "q3": {"c": 1}, "q4": {"d": 0}}
RUN = {"q1": {"a": 1.0}, "q2": {"b": 1.0}, "q3": {"x": 1.0}, "q4": {"d": 1.0}}
SEGMENTS = {"q1": "A", "q2": "A", "q3": "B", "q4": "A"}
NONE = {"empty_users": 0, "missing_users": 0, "zero_users": 0, "no_value": 0}


def test_report_by_segment_counts_the_skipped_users():
    report = receval.evaluate(QRELS, RUN, ["ndcg@5", "num_ret"])
    seg = report.by_segment(SEGMENTS)
    assert seg.counts.tolist() == [3, 1]
    # q2, q4: no relevant item, skipped by ndcg (empty_users="skip"); counts skip none
    # (by rule, as n_users_skipped_by counts them)
    ndcg = {r: x.tolist() for r, x in seg.n_skipped["ndcg@5"].items()}
    assert ndcg == {"empty_users": [2, 0], "missing_users": [0, 0], "zero_users": [0, 0],
                    "no_value": [0, 0]}  # fmt: skip
    assert all(not x.any() for x in seg.n_skipped["num_ret"].values())
    total = sum(int(x.sum()) for x in seg.n_skipped["ndcg@5"].values())
    assert total == report.n_users_skipped["ndcg@5"]


def test_rank_by_json_counts_the_skipped_users_of_each_segment(tmp_path):
    qrels, run, segments = tmp_path / "q.qrels", tmp_path / "r.run", tmp_path / "s.csv"
    qrels.write_text("".join(f"{u} 0 {i} {g}\n" for u, d in QRELS.items() for i, g in d.items()))
    run.write_text("".join(f"{u} Q0 {i} 1 {s} r\n" for u, d in RUN.items() for i, s in d.items()))
    segments.write_text("user,segment\n" + "".join(f"{u},{s}\n" for u, s in SEGMENTS.items()))
    result = invoke(make_runner(), "rank", "--qrels", qrels, "--run", run, "-m", "ndcg@5",
                    "--by", segments, "-f", "json")  # fmt: skip
    records = json.loads(result.stdout)
    assert [r["segment"] for r in records] == ["A", "B", "(all)"]
    empty = {"ndcg@5": {**NONE, "empty_users": 2}}
    assert records[0]["counts"] == {"n_users_skipped": {"ndcg@5": 2}, "n_users_skipped_by": empty}
    assert records[1]["counts"] == {}
    assert records[2]["counts"]["n_users_skipped"] == {"ndcg@5": 2}
    assert records[2]["counts"]["n_users_skipped_by"] == empty


@pytest.mark.parametrize("seed", range(4))
def test_by_segment_counts_the_groups_gauc_skips_in_each_segment(seed):
    rng = np.random.default_rng(seed)
    n = 400
    y = (rng.random(n) < 0.2).astype(int)
    p = rng.random(n)
    users = rng.integers(0, 60, n)
    country = rng.choice(["de", "fr", "us"], n)
    seg = receval.by_segment(["roc_auc", "gauc"], y, p, by=country, groups=users)
    expected = gauc_skips_by_segment(y, users, country)
    assert sorted(expected) == seg.segments.tolist()
    counts = seg.n_skipped["gauc"]
    got = list(zip(*(counts[k].tolist() for k in ("n_groups", "n_groups_skipped",
                                                   "n_rows_skipped")), strict=True))  # fmt: skip
    assert got == [expected[s] for s in seg.segments.tolist()]
    assert all(0 < skipped < groups for groups, skipped, _ in got)  # some, not all
    assert "roc_auc" not in seg.n_skipped  # it leaves no group out
    # each segment's counts are those of the metric on the segment's rows
    for i, label in enumerate(seg.segments.tolist()):
        rows = country == label
        acc = receval.metric("gauc").update(y[rows], p[rows], groups=users[rows])
        skipped = acc.skipped()
        assert skipped["n_groups_skipped"] == counts["n_groups_skipped"][i]
        assert skipped["n_rows_skipped"] == counts["n_rows_skipped"][i]


def test_a_segment_of_one_class_groups_skips_them_all():
    y = [1, 0, 1, 0, 1, 1]
    p = [0.9, 0.2, 0.4, 0.6, 0.3, 0.8]
    users = ["a", "a", "b", "b", "c", "c"]
    seg = receval.by_segment("gauc", y, p, by=["x", "x", "x", "x", "y", "y"], groups=users)
    assert seg.values["gauc"][1] != seg.values["gauc"][1]  # nan: c has clicks only
    assert {k: v.tolist() for k, v in seg.n_skipped["gauc"].items()} == {
        "n_groups": [2, 1], "n_groups_skipped": [0, 1], "n_rows_skipped": [0, 2],
    }  # fmt: skip


def _one_class_groups():
    """Rows of 60 users in three countries, many users of one class (overall and in a
    country)."""
    rng = np.random.default_rng(11)
    n = 300
    y = (rng.random(n) < 0.2).astype(int)
    return y, rng.random(n), rng.integers(0, 60, n), rng.choice(["de", "fr", "us"], n)


def test_by_segment_keeps_the_overall_counts_of_its_pass_over_every_row():
    y, p, users, country = _one_class_groups()
    seg = receval.by_segment(["roc_auc", "gauc", "grouped_auprc"], y, p, by=country,
                             groups=users)  # fmt: skip
    for name in ("gauc", "grouped_auprc"):
        whole = receval.metric(name).update(y, p, groups=users).skipped()
        why = whole.pop("why")
        assert seg.n_skipped_overall[name] == whole and whole["n_groups_skipped"] > 0
        assert seg.why_skipped[name] == why
    assert seg.n_skipped_overall["gauc"] == {
        "n_groups": 60, "n_groups_skipped": receval.group_auc(y, p, groups=users).n_groups_skipped,
        "n_rows_skipped": receval.group_auc(y, p, groups=users).n_rows_skipped,
    }  # fmt: skip
    assert "roc_auc" not in seg.n_skipped_overall and "roc_auc" not in seg.why_skipped


def test_records_and_frame_carry_the_groups_skipped():
    # they held the values only: a segment's gauc left out groups that no export showed
    y, p, users, country = _one_class_groups()
    seg = receval.by_segment(["roc_auc", "gauc"], y, p, by=country, groups=users)
    expected = gauc_skips_by_segment(y, users, country)
    keys = ("n_groups", "n_groups_skipped", "n_rows_skipped")
    records = seg.records()
    for record, label in zip(records, seg.segments.tolist(), strict=False):
        assert record["counts"] == {"gauc": dict(zip(keys, expected[label], strict=True))}
    assert records[-1]["segment"] is None
    assert records[-1]["counts"] == {"gauc": seg.n_skipped_overall["gauc"]}
    frame = seg.to_frame()
    assert list(frame.columns) == ["segment", "n_rows", "roc_auc", "gauc",
                                   *(f"gauc:{k}" for k in keys)]  # fmt: skip
    for k in keys:
        assert frame[f"gauc:{k}"].tolist() == seg.n_skipped["gauc"][k].tolist()
    assert str(frame["gauc:n_groups_skipped"].dtype) == "int64"


def test_report_records_and_frame_carry_the_users_skipped():
    report = receval.evaluate(QRELS, RUN, ["ndcg@5", "num_ret"])
    seg = report.by_segment(SEGMENTS)
    records = seg.records()
    empty = {**NONE, "empty_users": 2}
    assert [r["counts"] for r in records] == [
        {"n_users_skipped": {"ndcg@5": 2, "num_ret": 0},
         "n_users_skipped_by": {"ndcg@5": empty, "num_ret": NONE}},
        {"n_users_skipped": {"ndcg@5": 0, "num_ret": 0},
         "n_users_skipped_by": {"ndcg@5": NONE, "num_ret": NONE}},
        {"n_users_skipped": {"ndcg@5": 2, "num_ret": 0},  # overall: the report's
         "n_users_skipped_by": {"ndcg@5": empty, "num_ret": NONE}},
    ]  # fmt: skip
    assert seg.n_skipped_overall == {"ndcg@5": empty, "num_ret": NONE}
    assert seg.n_skipped_overall == report.n_users_skipped_by
    frame = seg.to_frame()
    by_rule = [f"n_users_skipped_by:{m}:{r}" for m in ("ndcg@5", "num_ret") for r in NONE]
    assert list(frame.columns) == ["segment", "n_users", "ndcg@5", "num_ret",
                                   "n_users_skipped:ndcg@5", "n_users_skipped:num_ret",
                                   *by_rule]  # fmt: skip
    assert frame["n_users_skipped:ndcg@5"].tolist() == [2, 0]
    assert frame["n_users_skipped_by:ndcg@5:empty_users"].tolist() == [2, 0]
    assert str(frame["n_users_skipped_by:ndcg@5:empty_users"].dtype) == "int64"


def test_records_name_the_counts_as_the_cli_json_does(tmp_path):
    # one naming: the counts of each row of ``ctr --by -f json`` and ``rank --by -f json``
    # are those of SegmentReport.records()
    y, p, users, country = _one_class_groups()
    path = tmp_path / "log.csv"
    lines = [
        f"{a},{b!r},u{c},{d}\n" for a, b, c, d in zip(y, p.tolist(), users, country, strict=True)
    ]
    path.write_text("click,score,user,country\n" + "".join(lines))
    result = invoke(make_runner(), "ctr", path, "--label", "click", "--score", "score",
                    "--group", "user", "--by", "country", "-m", "gauc", "-f", "json")  # fmt: skip
    printed = json.loads(result.stdout)
    seg = receval.by_segment(["gauc"], y, p, by=country, groups=[f"u{u}" for u in users])
    library = seg.records()
    for row, record in zip(printed[:-1], library[:-1], strict=True):
        assert row["counts"] == record["counts"]
    assert printed[-1]["counts"]["gauc"] == library[-1]["counts"]["gauc"]

    qrels, run, segments = tmp_path / "q.qrels", tmp_path / "r.run", tmp_path / "s.csv"
    qrels.write_text("".join(f"{u} 0 {i} {g}\n" for u, d in QRELS.items() for i, g in d.items()))
    run.write_text("".join(f"{u} Q0 {i} 1 {s} r\n" for u, d in RUN.items() for i, s in d.items()))
    segments.write_text("user,segment\n" + "".join(f"{u},{s}\n" for u, s in SEGMENTS.items()))
    ranked = invoke(make_runner(), "rank", "--qrels", qrels, "--run", run, "-m", "ndcg@5",
                    "--by", segments, "-f", "json", "-q")  # fmt: skip
    overall = json.loads(ranked.stdout)[-1]["counts"]
    seg = receval.evaluate(QRELS, RUN, ["ndcg@5"]).by_segment(SEGMENTS)
    assert overall["n_users_skipped"] == seg.records()[-1]["counts"]["n_users_skipped"]
    assert overall["n_users_skipped_by"] == seg.records()[-1]["counts"]["n_users_skipped_by"]


def test_weights_for_a_metric_that_takes_none_are_refused():
    # grouped_regression_auc was computed unweighted beside a weighted gauc, silently
    from receval.exceptions import InvalidParameterError

    data = ([1, 0, 1, 0], [0.1, 0.2, 0.3, 0.4])
    options = {"by": [1, 1, 2, 2], "groups": [1, 1, 2, 2]}
    with pytest.raises(InvalidParameterError) as info:
        receval.by_segment(["gauc", "grouped_regression_auc"], *data, **options,
                           sample_weight=[1.0, 2.0, 1.0, 1.0])  # fmt: skip
    assert str(info.value) == (
        "by_segment: sample_weight is not taken by grouped_regression_auc: it counts each "
        "row once. Got 4 weights; compute grouped_regression_auc without them (or repeat "
        "rows to weigh them)."
    )
    # without weights, both; with weights, the metrics that take them
    receval.by_segment(["gauc", "grouped_regression_auc"], *data, **options)
    receval.by_segment(["gauc", "roc_auc"], *data, **options, sample_weight=[1, 2, 1, 1])


# each user left out by another rule: u2 has no relevant item, u3 is absent from the
# run, u4 ranks no relevant item (0), u5 both lacks a relevant item and the run
RULE_QRELS = {"u1": {"a": 1}, "u2": {"b": 0}, "u3": {"c": 1}, "u4": {"d": 1}, "u5": {"e": 0},
              "u6": {"f": 1}}  # fmt: skip
RULE_RUN = {"u1": {"a": 1.0, "y": 0.5}, "u2": {"b": 1.0}, "u4": {"x": 1.0}, "u6": {"f": 1.0}}
RULE_SEGMENTS = {"u1": "A", "u2": "A", "u3": "A", "u4": "B", "u5": "B", "u6": "B"}
POPULARITY = {"a": 3, "b": 1, "x": 2, "y": 1, "f": 5}
RULE_METRICS = ["ndcg@5", "recall@2", "pooled_hit_ratio@2", "arp@2"]
# each rule alone (the others keep their users: "zero", "keep"), then all together
RULES = {
    "empty_users": {"empty_users": "skip", "missing_users": "zero", "zero_users": "keep"},
    "missing_users": {"empty_users": "zero", "missing_users": "skip", "zero_users": "keep"},
    "zero_users": {"empty_users": "zero", "missing_users": "zero", "zero_users": "skip"},
    "together": {"empty_users": "skip", "missing_users": "skip", "zero_users": "skip"},
}
# per rule set, the users of segments A and B that each rule left out of ndcg@5's mean
# (recall@2 alike); zero_users="skip" leaves the users at 0 out (u2, u3, u4 and u5 there);
# together, a user counts under the first rule that leaves it out (u5: empty_users)
RELEVANCE = {
    "empty_users": {"empty_users": [1, 1]},
    "missing_users": {"missing_users": [1, 1]},
    "zero_users": {"zero_users": [2, 2]},
    "together": {"empty_users": [1, 1], "missing_users": [1, 0], "zero_users": [0, 1]},
}


def _by_rule(counts: dict[str, np.ndarray]) -> dict[str, list[int]]:
    """The per-segment counts of the rules that left some user out."""
    return {r: x.tolist() for r, x in counts.items() if x.any()}


@pytest.mark.parametrize("rules", sorted(RULES))
def test_report_by_segment_counts_the_users_each_rule_leaves_out(rules):
    report = receval.evaluate(RULE_QRELS, RULE_RUN, RULE_METRICS, popularity=POPULARITY,
                              **RULES[rules])  # fmt: skip
    seg = report.by_segment(RULE_SEGMENTS)
    assert seg.segments.tolist() == ["A", "B"]
    assert _by_rule(seg.n_skipped["ndcg@5"]) == RELEVANCE[rules]
    assert _by_rule(seg.n_skipped["recall@2"]) == RELEVANCE[rules]
    # a pooled metric has no zero_users rule; a metric of the lists alone follows none:
    # the users absent from the run (u3, u5) have no value
    pooled = {r: n for r, n in RELEVANCE[rules].items() if r != "zero_users"}
    assert _by_rule(seg.n_skipped["pooled_hit_ratio@2"]) == pooled
    assert _by_rule(seg.n_skipped["arp@2"]) == {"no_value": [1, 1]}
    assert seg.n_skipped_overall == report.n_users_skipped_by
    records = seg.records()
    for i, label in enumerate(seg.segments.tolist()):
        users = np.array([RULE_SEGMENTS[u] == label for u in report.users])
        part = report.subset(users)
        alone = receval.evaluate(
            {u: RULE_QRELS[u] for u in report.users[users]},
            {u: RULE_RUN[u] for u in report.users[users] if u in RULE_RUN},
            RULE_METRICS, popularity=POPULARITY, allow_unmatched=True, **RULES[rules],
        )  # fmt: skip
        for m in RULE_METRICS:
            by_rule = {r: int(x[i]) for r, x in seg.n_skipped[m].items()}
            assert by_rule == part.n_users_skipped_by[m] == alone.n_users_skipped_by[m]
        assert records[i]["counts"] == {
            "n_users_skipped": alone.n_users_skipped, "n_users_skipped_by": alone.n_users_skipped_by
        }  # fmt: skip
    assert records[-1]["counts"] == {"n_users_skipped": report.n_users_skipped,
                                     "n_users_skipped_by": report.n_users_skipped_by}  # fmt: skip


def _rank_by(tmp_path, *options: str) -> list[dict]:
    qrels, run, segments = tmp_path / "q.qrels", tmp_path / "r.run", tmp_path / "s.csv"
    qrels.write_text("".join(f"{u} 0 {i} {g}\n" for u, d in RULE_QRELS.items()
                             for i, g in d.items()))  # fmt: skip
    run.write_text("".join(f"{u} Q0 {i} 1 {s} r\n" for u, d in RULE_RUN.items()
                           for i, s in d.items()))  # fmt: skip
    segments.write_text("user,segment\n" + "".join(f"{u},{s}\n" for u, s in RULE_SEGMENTS.items()))
    popularity = tmp_path / "pop.csv"
    popularity.write_text("item,count\n" + "".join(f"{i},{n}\n" for i, n in POPULARITY.items()))
    metrics = [x for m in RULE_METRICS for x in ("-m", m)]
    result = invoke(make_runner(), "rank", "--qrels", qrels, "--run", run, *metrics,
                    "--popularity", popularity, "--by", segments, "-f", "json", "-q",
                    *options)  # fmt: skip
    records: list[dict] = json.loads(result.stdout)
    return records


@pytest.mark.parametrize("rules", sorted(RULES))
def test_rank_by_json_counts_the_users_each_rule_leaves_out(tmp_path, rules):
    options = [x for k, v in RULES[rules].items() for x in (f"--{k.replace('_', '-')}", v)]
    printed = _rank_by(tmp_path, *options)
    assert [r["segment"] for r in printed] == ["A", "B", "(all)"]
    report = receval.evaluate(RULE_QRELS, RULE_RUN, RULE_METRICS, popularity=POPULARITY,
                              **RULES[rules])  # fmt: skip
    library = report.by_segment(RULE_SEGMENTS).records()
    for i, (row, record) in enumerate(zip(printed[:-1], library[:-1], strict=True)):
        # a segment's row names the metrics that leave some of its users out
        left_out = {m: n for m, n in record["counts"]["n_users_skipped"].items() if n}
        by_rule = {m: record["counts"]["n_users_skipped_by"][m] for m in left_out}
        assert row["counts"] == {"n_users_skipped": left_out, "n_users_skipped_by": by_rule}
        ndcg = {r: n for r, n in row["counts"]["n_users_skipped_by"]["ndcg@5"].items() if n}
        assert ndcg == {r: x[i] for r, x in RELEVANCE[rules].items() if x[i]}
        assert row["counts"]["n_users_skipped_by"]["arp@2"] == {**NONE, "no_value": 1}
    overall = printed[-1]["counts"]
    assert overall["n_users_skipped_by"] == report.n_users_skipped_by
    assert overall["n_users_skipped"] == report.n_users_skipped


@pytest.mark.parametrize("name", ["gauc", "grouped_auprc", "grouped_xauc"])
def test_a_segments_value_and_counts_are_the_commands_by_one_path(monkeypatch, name):
    # by_segment added a segment's rows and finalized them itself, beside the path of
    # run_definition (its weights' checks and scaling) that receval ctr's counts take
    calls: list[str] = []
    real = sources.run_counted

    def run_counted(defn, params, columns, *, func):
        calls.append(func)
        return real(defn, params, columns, func=func)

    monkeypatch.setattr(sources, "run_counted", run_counted)
    rng = np.random.default_rng(5)
    y, p = rng.integers(0, 2, 90), rng.choice([0.1, 0.4, 0.4, 0.8], 90)
    g, by = rng.integers(0, 12, 90), np.arange(90) % 3
    w = (rng.integers(1, 4, 90) + rng.random(90)) * 1e300  # sums past float64's range
    report = receval.by_segment(name, y, p, by=by, groups=g, sample_weight=w)
    assert calls == ["by_segment"] * 4  # all the rows, then each segment's
    counted = pointwise_adapter(resolve(name)).counted
    for i in range(3):
        rows = by == i
        value, counts, why = counted(y[rows], p[rows], groups=g[rows], sample_weight=w[rows])
        assert report.values[name][i] == value
        assert {k: int(x[i]) for k, x in report.n_skipped[name].items()} == counts
        assert report.why_skipped[name] == why
    value, counts, why = counted(y, p, groups=g, sample_weight=w)
    assert (report.overall[name], report.n_skipped_overall[name]) == (value, counts)
    assert calls[4:] == [resolve(name).info.function] * 4

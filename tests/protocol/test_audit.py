"""receval.audit: each check finds its planted problem (count and example), and a clean
protocol has no finding."""

from __future__ import annotations

import json
import math
from datetime import datetime

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import receval
from receval import InputValidationError, InvalidParameterError, Qrels, Run
from receval.protocol import AuditReport, Finding
from receval.protocol.inputs import show_time


def clean():
    """A global temporal split at t = 10: no user of test lacks history, no item is cold,
    no test pair is in train, the run masks the training items and has no tie."""
    train = pd.DataFrame(
        {
            "user": [1, 1, 2, 2, 3, 3],
            "item": [10, 11, 10, 12, 11, 12],
            "time": [1, 2, 3, 4, 5, 6],
        }
    )
    test = pd.DataFrame({"user": [1, 2, 3], "item": [12, 11, 10], "time": [10, 11, 12]})
    run = pd.DataFrame(
        {
            "user": [1, 1, 2, 2, 3, 3],
            "item": [12, 13, 11, 13, 10, 13],
            "score": [0.9, 0.8, 0.7, 0.6, 0.5, 0.4],
        }
    )
    return train, test, run


def test_a_clean_protocol_has_no_finding():
    train, test, run = clean()
    report = receval.audit(train, test, run, k=2, cutoff=10)
    assert report.findings == []
    assert report.ok
    assert "no finding" in repr(report)
    assert set(report.checks) >= {
        "temporal_leak",
        "cutoff_leak",
        "test_in_train",
        "cold_users",
        "cold_items",
        "duplicates",
        "missing_users",
        "unmasked_train_items",
        "short_lists",
        "tied_scores",
        "id_types",
    }
    report.check("info")  # nothing to raise


def test_temporal_leak():
    train, test, _ = clean()
    test.loc[1, "time"] = 3  # user 2's test interaction precedes its training one at t = 4
    report = receval.audit(train, test)
    f = report["temporal_leak"]
    assert (f.severity, f.count, f.total, f.details["n_users"]) == ("error", 1, 3, 1)
    assert f.examples == [{"user": 2, "item": 11, "time": 3, "last_train_time": 4}]
    assert not report.ok


def test_temporal_leak_of_int_and_float_times_past_2_53():
    # train's int time 2**53 + 1 is after test's float 2.0**53; compared as two float64
    # (2**53 + 1 rounds to 2.0**53) the leak went unseen, and so did the cut-off's
    train, test, _ = clean()
    train = train.assign(time=train["time"] + 2**53 - 3)  # user 2's last: 2**53 + 1
    test = test.assign(time=[2.0**53 + 8, 2.0**53, 2.0**53 + 8])
    report = receval.audit(train, test)
    assert report["temporal_leak"].count == 1
    assert report["temporal_leak"].examples[0]["user"] == 2
    late = receval.audit(train, test, cutoff=2.0**53)  # user 2's training times: at, after
    found = {(f.input, f.count) for f in late.findings if f.check == "cutoff_leak"}
    assert found == {("train", 4)}


def test_cutoff_leak_counts_both_sides():
    train, test, _ = clean()
    test.loc[0, "time"] = 7  # after user 1's training, before the cut-off
    train.loc[5, "time"] = 10  # a training interaction at the cut-off
    report = receval.audit(train, test, cutoff=8)
    found = {(f.input, f.count) for f in report.findings if f.check == "cutoff_leak"}
    assert found == {("test", 1), ("train", 1)}
    assert "temporal_leak" not in report  # t = 7 follows user 1's training


def test_timeline_overlap_without_a_cutoff():
    train, test, _ = clean()
    train.loc[5, "time"] = 20  # user 3 trained at t = 20, after every test interaction
    report = receval.audit(train, test)
    f = report["timeline_overlap"]
    assert (f.severity, f.count) == ("info", 3)  # every test interaction precedes t = 20
    assert report["temporal_leak"].count == 1  # user 3 itself
    assert report.ok is False


def test_datetimes_and_iso_text_compare():
    train, test, _ = clean()
    start = pd.Timestamp("2024-01-01")
    train["time"] = start + pd.to_timedelta(train["time"], unit="D")
    test["time"] = [str(start + pd.Timedelta(days=d)) for d in (10, 2, 12)]  # user 2 at day 2
    report = receval.audit(train, test, cutoff="2024-01-09")
    assert report["temporal_leak"].examples[0]["time"] == "2024-01-03T00:00:00"
    assert {f.input for f in report.findings if f.check == "cutoff_leak"} == {"test"}
    # against tz-aware times (a time zone, text with UTC offsets), a cut-off with a UTC
    # offset is the instant in UTC (as the split reads it)
    train["time"] = train["time"].dt.tz_localize("UTC").dt.tz_convert("Asia/Tokyo")
    test["time"] = [t + "Z" for t in test["time"]]
    for cutoff in ("2024-01-09T00:00:00Z", "2024-01-09T01:00:00+01:00"):
        same = receval.audit(train, test, cutoff=cutoff)
        assert [(f.check, f.input, f.count) for f in same.findings] == [
            (f.check, f.input, f.count) for f in report.findings
        ]


def test_iso_text_with_and_without_offsets_is_read_as_retention_reads_it():
    """A time column mixing offset and naive text (naive: UTC) is one column of instants,
    for the audit as for retention (one reader)."""
    from receval.metrics.retention.times import to_times

    train, test, _ = clean()
    start = pd.Timestamp("2024-01-01")
    train["time"] = start + pd.to_timedelta(train["time"], unit="D")
    texts = ["2024-01-11T08:00:00+08:00", "2024-01-03 00:00:00", "2024-01-12T00:00:00Z"]
    test["time"] = texts  # user 2 at day 2; the first is 2024-01-11 00:00 UTC
    report = receval.audit(train, test)
    assert report["temporal_leak"].examples[0]["time"] == "2024-01-03T00:00:00"
    assert report["timeline_overlap"].count == 1
    with pytest.raises(InputValidationError, match="offset on some times and none on others"):
        receval.audit(train, test, cutoff="2024-01-09")  # compares with some times only
    read = to_times(pa.array(texts), "t", None, str, False)
    utc = [pd.Timestamp(d).value for d in ("2024-01-11", "2024-01-03", "2024-01-12")]
    assert (read.values.tolist(), read.divisor) == (utc, 10**9)


def test_padded_iso_text_is_read_as_retention_reads_it():
    """Whitespace around a time is not part of it, for the audit as for retention."""
    from receval.metrics.retention.times import to_times

    train, test, _ = clean()
    start = pd.Timestamp("2024-01-01")
    train["time"] = start + pd.to_timedelta(train["time"], unit="D")
    texts = [" 2024-01-11T08:00:00+08:00", "2024-01-03 00:00:00\t", " 2024-01-12 "]
    test["time"] = texts
    report = receval.audit(train, test)
    assert report["temporal_leak"].examples[0]["time"] == "2024-01-03T00:00:00"
    utc = [pd.Timestamp(d).value for d in ("2024-01-11", "2024-01-03", "2024-01-12")]
    for layout in (pa.string(), pa.large_string(), pa.string_view()):
        read = to_times(pa.array(texts, layout), "t", None, str, False)
        assert (read.values.tolist(), read.divisor) == (utc, 10**9)
        table = pa.Table.from_pandas(test, preserve_index=False)
        table = table.set_column(2, "time", pa.array(texts, layout))
        same = receval.audit(train, table)
        assert same["temporal_leak"].examples == report["temporal_leak"].examples


def test_times_of_two_kinds_are_refused():
    train, test, _ = clean()
    test["time"] = pd.Timestamp("2024-01-01")
    with pytest.raises(InputValidationError, match="epoch numbers and those of test"):
        receval.audit(train, test)


def test_times_compare_exactly_in_their_own_units():
    """Epoch integers are compared as integers (two nanosecond times 1 ns apart are
    one float64), datetimes in their own unit (a time past 2262 held in seconds is not
    wrapped around by a cast to nanoseconds), and two units in the finer, checked."""
    train, test, _ = clean()
    ns = 1_700_000_000_000_000_000
    train["time"] = np.int64(ns) + np.arange(6)
    test["time"] = np.int64(ns) + np.array([7, 2, 9])  # user 2 trained until ns + 3
    leak = receval.audit(train, test)["temporal_leak"]
    assert leak.count == 1 and leak.examples[0]["time"] == ns + 2
    # user 2's last training time is past what nanoseconds hold (2262-04-11T23:47:16)
    late = np.datetime64("2262-04-09", "s")
    train["time"] = late + np.arange(6).astype("timedelta64[D]")
    test["time"] = late + np.array([10, 2, 12]).astype("timedelta64[D]")
    leak = receval.audit(train, test, cutoff="2262-04-20")["temporal_leak"]
    assert leak.examples == [
        {
            "user": 2,
            "item": 11,
            "time": "2262-04-11T00:00:00",
            "last_train_time": "2262-04-12T00:00:00",
        }
    ]
    days = train.assign(time=np.datetime64("2024-01-01") + np.arange(6))  # datetime64[D]
    at_noon = pd.to_datetime(["2024-01-10 12:00", "2024-01-03 12:00", "2024-01-12 00:00"])
    report = receval.audit(days, test.assign(time=at_noon.as_unit("ns")), cutoff="2024-01-05")
    assert report["temporal_leak"].examples[0]["last_train_time"] == "2024-01-04T00:00:00"
    cut = [(f.input, f.count) for f in report.findings if f.check == "cutoff_leak"]
    assert cut == [("test", 1), ("train", 2)]
    assert show_time(3, np.dtype("M8[D]")) == "1970-01-04"
    with pytest.raises(InputValidationError) as info:  # seconds past 2262 with nanoseconds
        receval.audit(train, test.assign(time=at_noon.as_unit("ns")))
    assert str(info.value) == (
        "audit: the 'time' column of train holds times that datetime64[ns] cannot hold "
        "(those of the other column are in ns): give both columns in one unit, or a "
        "coarser one."
    )


def test_test_in_train_unless_repeats():
    train, test, _ = clean()
    test.loc[0, "item"] = 10  # user 1 trained on item 10
    f = receval.audit(train, test)["test_in_train"]
    assert (f.severity, f.count, f.examples) == ("error", 1, [{"user": 1, "item": 10, "time": 10}])
    assert "test_in_train" not in receval.audit(train, test, repeats=True)


def test_unmasked_train_items_in_the_top_k():
    train, test, run = clean()
    run.loc[1, "item"] = 10  # user 1's second item is a training item
    report = receval.audit(train, test, run, k=2)
    f = report["unmasked_train_items"]
    assert (f.severity, f.count, f.total) == ("warning", 1, 6)
    assert f.examples == [{"user": 1, "item": 10, "score": 0.8, "rank": 2}]
    assert "unmasked_train_items" not in receval.audit(train, test, run, k=1)  # below the cut
    assert "unmasked_train_items" not in receval.audit(train, test, run, k=2, repeats=True)


def test_cold_users_and_items_with_their_share():
    train, test, _ = clean()
    extra = pd.DataFrame({"user": [4, 4, 1], "item": [10, 99, 98], "time": [13, 14, 15]})
    report = receval.audit(train, pd.concat([test, extra], ignore_index=True))
    users, items = report["cold_users"], report["cold_items"]
    assert (users.severity, users.count, users.total, users.details["n_rows"]) == ("info", 1, 4, 2)
    assert users.examples == [{"user": 4}]
    assert (items.count, items.total, items.details["n_items"]) == (2, 6, 2)
    assert items.share == pytest.approx(2 / 6)


def test_no_user_in_common_is_an_error():
    train, test, _ = clean()
    test["user"] = test["user"] + 100
    f = receval.audit(train, test)["cold_users"]
    assert (f.severity, f.count, f.total) == ("error", 3, 3)


@pytest.mark.parametrize(
    ("name", "severity"), [("train", "info"), ("test", "error"), ("run", "error")]
)
def test_duplicates(name, severity):
    data = dict(zip(("train", "test", "run"), clean(), strict=True))
    frame = data[name]
    data[name] = pd.concat([frame, frame.iloc[[0, 0]]], ignore_index=True)
    found = [f for f in receval.audit(**data).findings if f.check == "duplicates"]
    assert len(found) == 1
    f = found[0]
    assert (f.input, f.severity, f.count, f.details["n_pairs"]) == (name, severity, 2, 1)
    assert f.examples[0]["row"] == len(frame)


def test_missing_users_and_short_lists():
    train, test, run = clean()
    run = run[run["user"] != 3]
    run = run.drop(index=1)  # user 1's list has one item
    report = receval.audit(train, test, run, k=2)
    missing, short = report["missing_users"], report["short_lists"]
    assert (missing.severity, missing.count, missing.examples) == ("warning", 1, [{"user": 3}])
    assert (short.count, short.total, short.examples) == (1, 2, [{"user": 1, "length": 1}])
    assert "short_lists" not in receval.audit(train, test, run)  # no k: not checked


def test_tied_scores_and_how_much_the_metric_moves():
    train, test, run = clean()
    run["score"] = [0.9, 0.9, 0.7, 0.6, 0.5, 0.4]  # user 1: its relevant item 12 ties with 13
    report = receval.audit(train, test, run, k=2, metrics=["mrr@2", "recall@2"])
    f = report["tied_scores"]
    assert (f.severity, f.count, f.total) == ("warning", 1, 3)
    mrr = f.details["metrics"]["mrr@2"]
    # evaluate's ties="trec" puts 13 first (0.5 for user 1); the average over both
    # orders is 0.75
    qrels = Qrels(test["user"], test["item"])
    expected = receval.evaluate(qrels, run, ["mrr@2"]).mean["mrr@2"]
    assert f.details["ties"] == "trec"
    assert mrr["mean"] == pytest.approx(expected) == pytest.approx((0.5 + 1 + 1) / 3)
    assert mrr["mean_ties_average"] == pytest.approx((0.75 + 1 + 1) / 3)
    assert mrr["difference"] == pytest.approx(0.25 / 3)
    assert mrr["n_users_tie_dependent"] == 1
    assert f.details["metrics"]["recall@2"]["difference"] == 0.0  # both in the top 2
    assert f.examples[0] == {"user": 1, "item": 12, "score": 0.9, "rank": 2}
    assert "mrr@2 0.8333 with ties='trec', 0.9167 averaged over tie orders" in f.message
    # ties="input" (and a profile whose rule it is): 12 first, as evaluate ranks it then
    for rule in ({"ties": "input"}, {"profile": "ranx"}):
        f = receval.audit(train, test, run, k=2, metrics=["mrr@2"], **rule)["tied_scores"]
        assert f.details["ties"] == "input"
        assert f.details["metrics"]["mrr@2"]["mean"] == pytest.approx(1.0)
        assert f.examples[0]["rank"] == 1
    f = receval.audit(train, test, run, k=2, metrics=["mrr@2"], ties="average")["tied_scores"]
    assert (f.severity, f.details["metrics"]["mrr@2"]["mean"]) == (
        "info",
        pytest.approx(0.75 * 1 / 3 + 2 / 3),
    )
    assert "ties='average' takes each metric's expected value" in f.message


@pytest.mark.parametrize(
    ("ties", "in_top_1"),
    [(None, True), ("trec", True), ("id_descending", True), ("input", False),
     ("id_ascending", False), ("average", True), ("worst", True)],
)  # fmt: skip
def test_training_items_in_the_top_k_as_evaluate_ranks_ties(ties, in_top_1):
    # a and b tie; evaluate's default (trec: item id descending) ranks b, a training
    # item, first: it costs mrr@1 all of it (the audit read input order: a first)
    test, run, train = {"u1": {"a": 1}}, {"u1": {"a": 0.5, "b": 0.5}}, {"u1": {"b": 1}}
    report = receval.audit(train, test, run, k=1, ties=ties)
    assert ("unmasked_train_items" in report) is in_top_1
    masked = receval.evaluate(test, run, ["mrr@1"], ties=ties, exclude=train).mean["mrr@1"]
    if ties not in ("average", "worst"):
        unmasked = receval.evaluate(test, run, ["mrr@1"], ties=ties).mean["mrr@1"]
        assert (unmasked < masked) is in_top_1
    if in_top_1:
        assert report["unmasked_train_items"].examples == [
            {"user": "u1", "item": "b", "score": 0.5, "rank": 1}
        ]


def test_ties_that_move_no_metric_are_a_note():
    train, test, run = clean()
    # user 2: two items it did not interact with tie across the cut of the top 2
    run = pd.concat([run, pd.DataFrame({"user": [2], "item": [14], "score": [0.6]})])
    f = receval.audit(train, test, run, k=2)["tied_scores"]
    assert (f.severity, f.count) == ("info", 1)
    assert "no metric depends" in f.message
    assert "tied_scores" not in receval.audit(train, test, run, k=1)  # below the top 1


def test_ties_without_test_are_counted():
    _, _, run = clean()
    run["score"] = 0.5
    f = receval.audit(run=run)["tied_scores"]
    assert (f.severity, f.count) == ("info", 3)
    assert "metrics" not in f.details


def test_ids_of_two_types_that_do_not_match():
    train, test, run = clean()
    run["user"] = "u" + run["user"].astype(str)
    report = receval.audit(train, test, run)
    found = [f for f in report.findings if f.check == "id_types"]
    assert {f.input for f in found} == {"train/run", "test/run"}
    f = found[0]
    assert (f.severity, f.count, f.total, f.details["role"]) == ("error", 3, 3, "user")
    assert f.details["types"] == {"train": "integer", "run": "string"}
    assert report["missing_users"].severity == "error"


def test_ids_of_two_types_that_do_not_match_are_counted_in_words():
    # none of them: "none of the 3 run user ids matches", not "only 0 of the 3 ... match"
    train, _, run = clean()
    run["user"] = "u" + run["user"].astype(str)
    f = receval.audit(train, run=run)["id_types"]
    assert f.message == (
        "user ids are integers in train and strings in run, and none of the 3 run user ids "
        "matches a train id (an integer 7 matches '7', not '07', '7.0' or 'u7')."
    )
    # some of them (fewer than 10%): "only 1 of the 11 run user ids matches"
    run = pd.DataFrame({"user": ["1", *(f"u{i}" for i in range(10))], "item": 10, "score": 0.5})
    f = receval.audit(train, run=run)["id_types"]
    assert (f.count, f.total) == (10, 11)
    assert "and only 1 of the 11 run user ids matches a train id" in f.message


def test_ids_of_two_types_that_match_as_text_are_no_finding():
    train, test, run = clean()
    run["user"] = run["user"].astype(str)  # '1' is 1, as evaluate matches them
    report = receval.audit(train, test, run, k=2)
    assert report.findings == []


def test_integers_written_as_text_are_integer_ids():
    # run users "101", "102", "103": integers read as text that are not train users. The
    # type is not the cause ("101" is the integer 101): the run misses the test users,
    # and no id_types finding tells to cast the ids
    train, test, run = clean()
    run["user"] = (run["user"] + 100).astype(str)
    report = receval.audit(train, test, run)
    assert "id_types" not in {f.check for f in report.findings}
    assert report["missing_users"].severity == "error"
    # Python ints in an object column are integers: no finding against int64 ids
    run = clean()[2].astype({"user": object})
    assert receval.audit(train, test, run, k=2).findings == []


def test_inputs_of_every_shape_agree(tmp_path):
    train, test, run = clean()
    run.loc[1, "item"] = 10
    expected = receval.audit(train, test, run, k=2).to_dict()["findings"]
    train.to_csv(tmp_path / "train.csv", index=False)
    test.to_parquet(tmp_path / "test.parquet")
    with open(tmp_path / "run.trec", "w") as f:
        for u, i, s in run.itertuples(index=False):
            f.write(f"{u} Q0 {i} 1 {s} tag\n")
    shapes = [
        (pa.Table.from_pandas(train), pa.Table.from_pandas(test), pa.Table.from_pandas(run)),
        (tmp_path / "train.csv", tmp_path / "test.parquet", tmp_path / "run.trec"),
        (
            train[["user", "item"]],
            Qrels(test["user"], test["item"]),
            Run(run["user"], run["item"], run["score"]),
        ),
    ]
    for tr, te, ru in shapes:
        found = receval.audit(tr, te, ru, k=2).to_dict()["findings"]
        # ids are strings in CSV and TREC files: compare counts and checks
        assert [(f["check"], f["count"]) for f in found] == [
            (f["check"], f["count"]) for f in expected
        ]


def test_train_as_a_mapping_or_a_pair():
    test = {"u1": {"a": 1}, "u2": {"c": 1}}
    for train in ({"u1": ["a", "b"], "u2": ["b"]}, (["u1", "u1", "u2"], ["a", "b", "b"])):
        report = receval.audit(train, test)
        assert [(f.check, f.count) for f in report.findings] == [
            ("test_in_train", 1),
            ("cold_items", 1),
        ]


def test_polars_frames():
    pl = pytest.importorskip("polars")
    train, test, run = clean()
    test.loc[1, "time"] = 3
    report = receval.audit(pl.from_pandas(train), pl.from_pandas(test), pl.from_pandas(run))
    assert report["temporal_leak"].count == 1


def test_to_json_keeps_the_sign_of_infinities():
    finding = Finding("tied_scores", "info", "run", 1, 2, "users", "m.", "f.",
                      details={"mean": {"a": math.inf, "b": -math.inf, "c": math.nan}})  # fmt: skip
    report = AuditReport([finding], inputs={}, checks=["tied_scores"])
    details = json.loads(report.to_json())["findings"][0]["details"]
    assert details == {"mean": {"a": "Infinity", "b": "-Infinity", "c": None}}


def test_outputs():
    train, test, run = clean()
    test.loc[0, "item"] = 10
    report = receval.audit(train, test, run, k=2)
    data = json.loads(report.to_json())
    assert data == report.to_dict()
    assert data["ok"] is False and data["k"] == 2
    assert data["inputs"]["train"] == {"rows": 6, "users": 3, "items": 3, "time": "time"}
    assert list(data["findings"][0]) == [
        "check",
        "severity",
        "input",
        "count",
        "total",
        "share",
        "unit",
        "message",
        "fix",
        "examples",
        "details",
    ]
    frame = report.to_frame()
    assert list(frame.columns) == [
        "severity",
        "check",
        "input",
        "count",
        "total",
        "share",
        "message",
        "fix",
    ]
    assert frame["count"].tolist() == [f.count for f in report.findings]
    with pytest.raises(InputValidationError, match="test_in_train"):
        report.check()
    assert isinstance(report, AuditReport) and isinstance(report.findings[0], Finding)
    assert [f.severity for f in report.findings] == sorted(
        (f.severity for f in report.findings), key=["error", "warning", "info"].index
    )


def test_bad_parameters():
    train, test, run = clean()
    with pytest.raises(InvalidParameterError, match="at least one of train, test and run"):
        receval.audit()
    with pytest.raises(InvalidParameterError, match="'k'"):
        receval.audit(train, test, k=0)
    with pytest.raises(InvalidParameterError, match="gauc"):
        receval.audit(train, test, run, metrics=["gauc"])
    with pytest.raises(InputValidationError, match="no column 'when'"):
        receval.audit(train, test, time="when")
    with pytest.raises(InvalidParameterError, match="cutoff needs times"):
        receval.audit(train[["user", "item"]], test, cutoff=3)
    with pytest.raises(InvalidParameterError, match="'severity'"):
        receval.audit(train, test).check("fatal")
    with pytest.raises(InputValidationError, match="audit run: score contains NaN"):
        receval.audit(run=run.assign(score=[np.nan, 1, 1, 1, 1, 1]))
    with pytest.raises(InputValidationError, match=r"audit test: the grades \(grade\) must be"):
        receval.audit(test=test.assign(grade=1.5), run=run)
    bad = train.assign(time=["2024-01-01"] * (len(train) - 1) + ["x"])
    with pytest.raises(InputValidationError) as info:
        receval.audit(bad, test)
    assert str(info.value) == (
        f"audit: the 'time' column of train holds 'x' at position {len(train) - 1}, which is "
        "not an ISO 8601 time between 1677 and 2262 (e.g. '2024-01-31T08:00:00+08:00'); give "
        "datetimes, ISO 8601 text or numbers."
    )
    mixed = np.array([5, *["2024-01-01"] * (len(train) - 1)], dtype=object)
    with pytest.raises(InputValidationError, match=r"of several types \(int, str\); give one"):
        receval.audit(train.assign(time=mixed), test)
    with pytest.raises(
        InputValidationError,
        match=r"'time' column of train contains 1 missing value \(null\), the first at position 0;",
    ):
        receval.audit(train.assign(time=np.array([None, *mixed[1:]], dtype=object)), test)
    with pytest.raises(InputValidationError, match="audit: run must be a Run"):
        receval.audit(run=[1, 2])


# ------------------------------------------------------------------ properties
@st.composite
def protocols(draw):
    """A random log of 2..6 users, each with 2..6 distinct items at distinct times."""
    n_users = draw(st.integers(2, 6))
    rows = []
    t = 0
    for u in range(n_users):
        items = draw(st.lists(st.integers(0, 9), min_size=2, max_size=6, unique=True))
        for i in items:
            t += 1
            rows.append((u, i, draw(st.integers(0, 50))))
    return pd.DataFrame(rows, columns=["user", "item", "time"])


@given(protocols(), st.integers(1, 50))
def test_a_global_split_never_leaks(log, cut):
    train, test = log[log["time"] < cut], log[log["time"] >= cut]
    assume(len(train) and len(test))
    report = receval.audit(train, test, cutoff=cut, repeats=True)
    assert not {"temporal_leak", "cutoff_leak", "timeline_overlap"} & {
        f.check for f in report.findings
    }


@given(protocols())
def test_leave_last_out_has_no_temporal_leak_and_leaks_are_counted(log):
    ordered = log.sort_values(["user", "time"], kind="stable")
    last = ordered.groupby("user").tail(1)
    train = ordered.drop(index=last.index)
    report = receval.audit(train, last, repeats=True)
    leaks = (
        last.set_index("user")["time"] < train.groupby("user")["time"].max().reindex(last["user"])
    ).sum()
    assert leaks == 0
    assert "temporal_leak" not in report
    swapped = receval.audit(last, train, repeats=True)  # test before train: every tie aside
    earlier = (
        train["time"].to_numpy() < last.set_index("user").loc[train["user"], "time"].to_numpy()
    )
    n = int(earlier.sum())
    assert (swapped["temporal_leak"].count if n else 0) == n


@given(protocols())
def test_test_in_train_counts_the_shared_pairs(log):
    half = len(log) // 2
    train, test = log.iloc[:half], log.iloc[half:]
    assume(len(train) and len(test))
    pairs = set(zip(train["user"], train["item"], strict=True))
    n = sum((u, i) in pairs for u, i in zip(test["user"], test["item"], strict=True))
    report = receval.audit(train[["user", "item"]], test[["user", "item"]])
    assert (report["test_in_train"].count if n else 0) == n
    assert ("test_in_train" in report) == bool(n)
    assert np.isclose(
        report["cold_items"].share if "cold_items" in report else 0.0,
        np.mean(~test["item"].isin(train["item"])),
    )


@given(protocols(), st.integers(0, 2**16))
def test_unmasked_items_are_the_rows_exclude_removes(log, seed):
    rng = np.random.default_rng(seed)
    users = log["user"].unique()
    run = pd.DataFrame(
        [(u, i, float(rng.integers(0, 3))) for u in users for i in rng.permutation(10)[:4]],
        columns=["user", "item", "score"],
    )
    half = len(log) // 2
    train = log.iloc[:half][["user", "item"]]
    assume(len(train))
    qrels = {u: {int(run.loc[run["user"] == u, "item"].iloc[0]): 1} for u in users}
    masked = receval.evaluate(qrels, run, ["p@1"], exclude=train, min_match=0.0)
    removed = masked.masking.n_rows_removed
    report = receval.audit(train, run=run)
    assert (report["unmasked_train_items"].count if removed else 0) == removed
    assert ("unmasked_train_items" in report) == bool(removed)


@given(protocols(), st.lists(st.integers(0, 40), max_size=10))
def test_duplicates_count_every_row_after_a_pairs_first(log, again):
    extra = log.iloc[[i % len(log) for i in again]]
    train = pd.concat([log, extra], ignore_index=True)
    n = len(train) - len(train.drop_duplicates(["user", "item"]))
    found = [f for f in receval.audit(train).findings if f.check == "duplicates"]
    assert [f.count for f in found] == ([n] if n else [])
    rows = [e["row"] for f in found for e in f.examples]
    assert all(
        train.iloc[:r][["user", "item"]].eq(train.iloc[r][["user", "item"]]).all(axis=1).any()
        for r in rows
    )


def test_cutoff_past_int64_is_an_error_for_integer_times():
    log = pd.DataFrame({"user": [1, 1, 2], "item": [1, 2, 3], "timestamp": [1, 2, 3]})
    with pytest.raises(
        InvalidParameterError, match=r"'cutoff' parameter of audit must be within int64's range"
    ):
        receval.audit(log, log, cutoff=2**70)


def test_ids_that_match_nothing_are_fixed_in_sentences():
    # the fix of ids of two inputs that never match lacked its final period
    train, test, run = clean()
    test["user"], test["item"] = test["user"] + 100, test["item"] + 100
    report = receval.audit(train, test, run)
    fixes = {f.check: f.fix for f in report.findings}
    assert fixes["missing_users"] == "check the user ids of both inputs (type, prefix, column)."
    assert fixes["cold_users"] == "check the user ids of both inputs (type, prefix, column)."
    assert fixes["cold_items"] == "check the item ids of both inputs (type, prefix, column)."
    assert all(f.message.endswith(".") and f.fix.endswith(".") for f in report.findings)


@pytest.mark.parametrize("as_file", [False, True], ids=["frame", "file"])
def test_a_test_set_without_a_grade_column_follows_the_qrels_rule(tmp_path, as_file):
    # a test of user, item and rating was read silently as of grade 1 in every row, and a
    # grade column named and missing too
    train, test, run = clean()
    rated = test.assign(rating=[2, 0, 1])
    path = tmp_path / "test.csv"
    rated.to_csv(path, index=False)
    given, where = (path, f"{path} (test)") if as_file else (rated, "audit test")
    with pytest.raises(InputValidationError) as info:
        receval.audit(train, given, run)
    assert str(info.value) == (
        f"{where}: no column 'grade' but has ['rating'] beside user and item, which would be "
        f"left unread (every pair of grade 1); pass grade='rating' if that column holds the "
        f"grades, or grade=None to give every pair grade 1."
    )
    with pytest.raises(InputValidationError) as info:
        receval.audit(train, given, run, grade="rel")
    assert str(info.value) == (
        f"{where}: no column 'rel'. Got columns ['user', 'item', 'time', 'rating']; the "
        f"grades could be in ['rating']: pass grade='rating' if that column holds them."
    )
    assert receval.audit(train, given, run, grade="rating").ok
    assert receval.audit(train, given, run, grade=None).ok
    # ids and times alone (a time column named by time= too): the pairs, of grade 1
    assert receval.audit(train.rename(columns={"time": "t"}), test.rename(columns={"time": "t"}),
                         run, time="t").ok  # fmt: skip


@pytest.mark.parametrize("graded", [False, True])
def test_a_test_file_s_grade_column_is_looked_for_once(tmp_path, monkeypatch, graded):
    # its time and grade columns were found in the file's header, then again in the
    # table read from it
    from receval.data import io

    train, test, run = clean()
    path = tmp_path / "test.csv"
    (test.assign(grade=[2, 0, 1]) if graded else test).to_csv(path, index=False)
    calls = []
    gradeless = io.gradeless

    def counted(*args):
        calls.append(args)
        return gradeless(*args)

    monkeypatch.setattr(io, "gradeless", counted)
    assert receval.audit(train, path, run).ok
    assert [where for _, where, *_ in calls] == [f"{path} (test)"]


@pytest.mark.parametrize("as_file", [False, True], ids=["frame", "file"])
def test_a_missing_named_grade_lists_the_time_column_named_by_time(tmp_path, as_file):
    # the column named by time= was left out of the columns the message said the test has
    train, test, run = clean()
    timed = test.rename(columns={"time": "ts"})
    path = tmp_path / "test.csv"
    timed.to_csv(path, index=False)
    given, where = (path, f"{path} (test)") if as_file else (timed, "audit test")
    train = train.rename(columns={"time": "ts"})
    with pytest.raises(InputValidationError) as info:
        receval.audit(train, given, run, time="ts", grade="rel")
    assert str(info.value) == (
        f"{where}: no column 'rel'. Got columns ['user', 'item', 'ts'], none of which holds "
        f"grades (ids and times); pass grade='grade' (the default) to give every pair grade 1."
    )
    with pytest.raises(InputValidationError) as info:
        receval.audit(train, timed.assign(rating=[2, 0, 1]), run, time="ts", grade="rel")
    assert str(info.value) == (
        "audit test: no column 'rel'. Got columns ['user', 'item', 'ts', 'rating']; the grades "
        "could be in ['rating']: pass grade='rating' if that column holds them."
    )


@pytest.mark.parametrize("as_file", [False, True], ids=["frame", "file"])
def test_a_run_without_its_score_column_names_the_score_argument(tmp_path, as_file):
    # a frame's said "pass value='<column name>'", an argument audit has not; a file's
    # gave no fix at all
    _, _, run = clean()
    renamed = run.rename(columns={"score": "s"})
    path = tmp_path / "run.csv"
    renamed.to_csv(path, index=False)
    with pytest.raises(InputValidationError) as info:
        receval.audit(run=path if as_file else renamed)
    assert str(info.value) == (
        f"{path}: no column 'score'. Got columns ['user', 'item', 's']; pass "
        "score='<column name>' naming the column of the run's scores."
        if as_file
        else "audit run: the data has no column 'score' (the score column). Got columns "
        "['user', 'item', 's']; pass score='<column name>'."
    )
    assert receval.audit(run=path if as_file else renamed, score="s").ok  # the fix it gives


def test_a_cutoff_past_the_microsecond_is_read_to_its_last_digit():
    # datetime.fromisoformat kept six digits: 500 ns after the test row read as the row
    train, test, _ = clean()
    start = pd.Timestamp("2024-01-01")
    train = train.assign(time=start + pd.to_timedelta(train["time"] - 10, "s"))
    test = test.assign(time=start + pd.to_timedelta(test["time"] - 10, "s"))
    report = receval.audit(train, test, cutoff="2024-01-01T00:00:00.000000500")
    found = {(f.input, f.count) for f in report.findings if f.check == "cutoff_leak"}
    assert found == {("test", 1)}  # the test row at 00:00:00, before the cut-off


@pytest.mark.parametrize(
    ("cutoff", "shown"),
    [
        ("2020-01-15", "2020-01-15"),
        (datetime(2020, 1, 15), "2020-01-15T00:00:00"),
        (np.datetime64("2020-01-15"), "2020-01-15"),
    ],
)
def test_a_cutoff_leak_names_the_cutoff_as_given(cutoff, shown):
    # it named the cut-off at the column's unit: "2020-02" for Jan 15 on a column of months
    months = np.array(["2020-01", "2020-03"], dtype="datetime64[M]")
    train = pd.DataFrame({"user": [1, 2], "item": [1, 2], "timestamp": months})
    test = pd.DataFrame({"user": [1, 2], "item": [3, 4], "timestamp": months})
    report = receval.protocol.audit(train, test, cutoff=cutoff)
    found = [f for f in report.findings if f.check == "cutoff_leak"]
    assert [f.message for f in found] == [
        f"test interactions earlier than the cut-off {shown}: 1 of 2.",
        f"training interactions at or after the cut-off {shown}: 1 of 2.",
    ]

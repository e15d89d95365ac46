"""``receval retention`` with events earlier than their user's signup: counted and noted
under every rule (stderr, JSON, CSV, the HTML report), not only when dropped; the full
table's counts where a cell is not observed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from receval import retention
from receval.report import HTMLReport, retention_section

from ._helpers import invoke, make_runner

# a's first event is a day before its signup, b's two events are after
EVENTS = (
    "user,time,signup\n"
    "a,2024-01-01,2024-01-02\na,2024-01-03,2024-01-02\n"
    "b,2024-01-02,2024-01-02\nb,2024-01-03,2024-01-02\n"
)


@pytest.fixture
def events(tmp_path: Path) -> Path:
    path = tmp_path / "events.csv"
    path.write_text(EVENTS)
    return path


@pytest.mark.parametrize(
    ("rule", "done", "dropped"),
    [("keep", "kept, counted as logins of their periods", 0), ("drop", "dropped", 1)],
)
def test_events_before_signup_are_counted_and_noted(events: Path, rule, done, dropped) -> None:
    args = ["retention", events, "--signup", "signup", "--before-signup", rule, "-f", "json"]
    result = invoke(make_runner(), *args)
    note = f"1 event of 1 user is earlier than their user's signup: {done}"
    assert note in result.stderr
    records = json.loads(result.stdout)
    assert records and all(
        r["counts"] == {
            "events_before_signup": 1, "users_with_events_before_signup": 1,
            "events_dropped": dropped, "before_signup": rule,
        }
        for r in records
    )  # fmt: skip
    csv = invoke(make_runner(), *args[:-1], "csv").stdout.splitlines()
    assert csv[0].endswith(",events_before_signup,users_with_events_before_signup,"
                           "events_dropped,before_signup")  # fmt: skip
    assert all(line.endswith(f",1,1,{dropped},{rule}") for line in csv[1:])


def test_no_note_and_no_counts_without_such_events(events: Path) -> None:
    events.write_text(EVENTS.replace("a,2024-01-01,2024-01-02\n", ""))
    result = invoke(make_runner(), "retention", events, "--signup", "signup", "-f", "json")
    assert "signup" not in result.stderr
    assert all("counts" not in r for r in json.loads(result.stdout))


def test_the_html_report_notes_them(events: Path) -> None:
    doc = HTMLReport("r", timestamp=False)
    report = retention(str(events), signup="signup", days=[1])
    retention_section(doc, report, figures=False)
    assert doc.notes == [report.before_signup_note]
    assert "earlier than their user&#x27;s signup: kept" in doc.to_html()


# b signed up before the window, e after it, c has no signup time, a is in a cohort
OUTSIDE = (
    "user,time,signup\n"
    "a,2024-01-01T10:00,2024-01-01T09:00\na,2024-01-02T10:00,2024-01-01T09:00\n"
    "b,2024-01-01T12:00,2023-12-25T00:00\nb,2024-01-03T12:00,2023-12-25T00:00\n"
    "c,2024-01-02T08:00,\nc,2024-01-03T08:00,\n"
    "e,2024-01-02T08:00,2024-02-01T00:00\n"
)
OUTSIDE_NOTE = (
    "1 user signed up before the window's first day and 1 after its last: in no cohort, "
    "their events counted as logins; 1 user has events but no signup time: their cohort "
    "is the day of their first event."
)


def test_users_in_no_cohort_are_counted_and_noted(tmp_path: Path) -> None:
    # the JSON's cohorts held 2 of the 4 users, and nothing said where b, c and e went
    path = tmp_path / "outside.csv"
    path.write_text(OUTSIDE)
    args = ["retention", path, "--signup", "signup", "--days", "1"]
    result = invoke(make_runner(), *args, "-f", "json")
    report = retention(str(path), signup="signup", days=[1])
    assert report.signup_note == OUTSIDE_NOTE
    # e's event is before its signup: that note first
    assert result.stderr == f"note: {report.before_signup_note}\nnote: {OUTSIDE_NOTE}\n"
    records = json.loads(result.stdout)
    assert [r["new_users"] for r in records] == [1, 1, 0]
    assert all(
        r["counts"] == {"events_before_signup": 1, "users_with_events_before_signup": 1,
                        "events_dropped": 0, "before_signup": "keep",
                        "users_signup_before_window": 1, "users_signup_after_window": 1,
                        "users_without_signup": 1}
        for r in records
    )  # fmt: skip
    csv = invoke(make_runner(), *args, "-f", "csv").stdout.splitlines()
    assert csv[0].endswith(
        ",before_signup,users_signup_before_window,users_signup_after_window,users_without_signup"
    )
    assert csv[1] == "2024-01-01,1,1.0,1,1,0,keep,1,1,1"
    doc = HTMLReport("r", timestamp=False)
    retention_section(doc, report, figures=False)
    assert doc.notes == [report.before_signup_note, OUTSIDE_NOTE]


def test_a_signup_after_the_window_alone(tmp_path: Path) -> None:
    path = tmp_path / "after.csv"
    path.write_text("user,time,signup\na,2024-01-01,2024-01-01\ne,2024-01-01,2024-03-01\n")
    report = retention(str(path), signup="signup", days=[1])
    assert report.signup_note == (
        "1 user signed up after the window's last day: in no cohort, their events counted "
        "as logins."
    )
    assert retention(str(path), days=[1]).signup_note is None  # no --signup: no such users


def test_full_table_counts_are_nan_where_not_observed(tmp_path: Path) -> None:
    # cohorts of 2024-01-01 (a, b), -02 (c, d: d not back on day 1 is an observed 0), -03
    path = tmp_path / "events.csv"
    path.write_text(
        "user,time\na,2024-01-01\na,2024-01-02\nb,2024-01-01\nb,2024-01-03\n"
        "c,2024-01-02\nc,2024-01-03\nd,2024-01-02\ne,2024-01-03\n"
    )
    args = ["retention", path, "--table", "full", "--values", "count"]
    csv = invoke(make_runner(), *args, "-f", "csv").stdout.splitlines()
    assert csv == [
        "cohort,new_users,day_0,day_1,day_2",
        "2024-01-01,2,2,1,1",
        "2024-01-02,2,2,1,nan",
        "2024-01-03,1,1,nan,nan",
    ]
    rates = invoke(make_runner(), *args[:-2], "-f", "csv").stdout.splitlines()
    assert [line.split(",")[2:] for line in rates][1:] == [
        ["1.0", "0.5", "0.5"], ["1.0", "0.5", "nan"], ["1.0", "nan", "nan"],
    ]  # fmt: skip
    records = json.loads(invoke(make_runner(), *args, "-f", "json").stdout)
    assert [[r[f"day_{k}"] for k in range(3)] for r in records] == [
        [2, 1, 1], [2, 1, None], [1, None, None],
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (["--before-signup", "error"],
         "error: receval retention: 1 event of 1 user is earlier than the user's signup, e.g. user "
         "'a' at 2024-01-01T00:00:00Z signed up at 2024-01-02T00:00:00Z; pass --before-signup "
         "keep to count them as logins or --before-signup drop to ignore them.\n"),
        (["--before-signup", "ignore"],
         "error: --before-signup must be one of ['drop', 'error', 'keep']. Got 'ignore' "
         "instead.\n"),
    ],
)  # fmt: skip
def test_before_signup_errors_name_the_option(events: Path, options, expected) -> None:
    # they named the library's parameter: "pass before_signup='keep' ...", "The
    # 'before_signup' parameter of retention must be one of ..."
    result = invoke(make_runner(), "retention", events, "--signup", "signup", *options, code=2)
    assert result.stdout == ""
    assert result.stderr == expected


@pytest.mark.parametrize("table", ["cohort", "period"])
def test_counts_of_another_table_than_the_full_one_are_refused(events: Path, table) -> None:
    # --values count printed the rates of --table cohort, and --table period, as if it
    # had not been given
    result = invoke(make_runner(), "retention", events, "--table", table, "--values", "count",
                    code=2)  # fmt: skip
    assert result.stdout == ""
    assert result.stderr == (
        f"error: --values count is for --table full (the cohort x N table of user counts). "
        f"Got --table {table}; pass --table full --values count, or leave out --values.\n"
    )
    invoke(make_runner(), "retention", events, "--table", table, "--values", "rate")
    full = invoke(make_runner(), "retention", events, "--table", "full", "--values", "count",
                  "-f", "csv")  # fmt: skip
    assert full.stdout.splitlines()[1] == "2024-01-01,1,1,0,1"  # a: days 0 and 2


def test_time_unit_reads_the_signup_column_too(tmp_path: Path) -> None:
    # events in milliseconds, signups in seconds: a signs up on day 1, b has none
    day0, day1 = 1704067200000, 1704153600000
    path = tmp_path / "epochs.csv"
    path.write_text(
        f"user,time,signup\na,{day0},{day1 // 1000}\na,{day1},{day1 // 1000}\nb,{day0},\n"
    )
    args = ["retention", path, "--signup", "signup", "--days", "1", "-f", "json"]
    # without --time-unit each column's unit comes from its magnitude
    records = json.loads(invoke(make_runner(), *args).stdout)
    assert [r["new_users"] for r in records] == [1, 1]
    # --time-unit ms reads the signups as milliseconds too: January 1970, before the window
    records = json.loads(invoke(make_runner(), *args, "--time-unit", "ms").stdout)
    assert [r["new_users"] for r in records] == [1, 0]
    assert records[0]["counts"]["users_signup_before_window"] == 1
    help_text = " ".join(invoke(make_runner(), "retention", "--help").stdout.split())
    assert "--signup COL Column of signup times, read as those of --time (epoch numbers in " in (
        help_text
    )
    assert "--time-unit);" in help_text

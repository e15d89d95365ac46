"""``receval retention`` with events earlier than their user's signup: counted and noted
under every rule (stderr, JSON, CSV, the HTML report), not only when dropped."""

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
    note = f"1 events of 1 users are earlier than their user's signup: {done}"
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

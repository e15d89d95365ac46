"""The protocol section of the HTML report: the audit's findings, and a sentence when clean."""

from __future__ import annotations

import json

import receval
from receval.report import HTMLReport, protocol_section

TRAIN = {"u1": {"a": 1, "b": 1}, "u2": {"a": 1}}
TEST = {"u2": {"a": 1}}  # u2's test item is one of its training items


def test_findings_become_a_table_with_their_numbers():
    doc = HTMLReport("Runs", timestamp=False)
    protocol_section(doc, receval.audit(TRAIN, TEST), caption="train and test")
    page = doc.to_html()
    assert '<h2 id="protocol">Protocol</h2>' in page
    assert "<td>test_in_train</td>" in page and "<caption>train and test</caption>" in page
    (table,) = doc.to_dict()["sections"][-1]["tables"]
    (row,) = table["rows"]
    assert (row["check"], row["count"], row["examples"]) == (
        "test_in_train",
        1,
        [{"user": "u2", "item": "a"}],
    )
    json.dumps(doc.to_dict())  # plain JSON


def test_a_clean_protocol_says_so():
    doc = HTMLReport("Runs", timestamp=False)
    protocol_section(doc, receval.audit(TRAIN, {"u2": {"b": 1}}))
    page = doc.to_html()
    assert "No finding" in page and "<table>" not in page


def test_train_and_test_findings_once_with_several_runs():
    runs = {"a.run": {"u2": {"a": 0.9, "c": 0.5}}, "b.run": {"u2": {"c": 0.9}}}
    audits = {name: receval.audit(TRAIN, TEST, run) for name, run in runs.items()}
    doc = HTMLReport("Runs", timestamp=False)
    protocol_section(doc, audits)
    (table,) = doc.to_dict()["sections"][-1]["tables"]
    found = [(r["run"], r["check"]) for r in table["rows"]]
    assert found.count(("", "test_in_train")) == 1
    assert ("a.run", "unmasked_train_items") in found
    assert ("b.run", "unmasked_train_items") not in found

"""audit's counts and examples against the slow oracles of tests/oracles/audit.py on
drawn train and test logs: tied times, a (user, item) pair at several times, time
columns of every kind (int seconds, datetime64[ns], tz-aware, ISO text), string ids."""

from __future__ import annotations

import pandas as pd
from hypothesis import given
from hypothesis import strategies as st

import receval
from tests.oracles import audit as oracle

KINDS = ["int", "datetime", "tz", "text"]


def _frame(rows, kind: str):
    users, items, seconds = (list(c) for c in zip(*rows, strict=True))
    times = pd.to_datetime(seconds, unit="s")
    column = {
        "int": seconds,
        "datetime": times,
        "tz": times.tz_localize("UTC").tz_convert("Asia/Tokyo"),
        "text": list(times.strftime("%Y-%m-%dT%H:%M:%S")),
    }[kind]
    return pd.DataFrame({"user": users, "item": items, "timestamp": column})


def _rows(draw, n_users: int, n_items: int, text: bool):
    n = draw(st.integers(1, 12))
    users = draw(st.lists(st.integers(0, n_users), min_size=n, max_size=n))
    items = draw(st.lists(st.integers(0, n_items), min_size=n, max_size=n))
    seconds = draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))
    if text:
        users, items = [f"u{u}" for u in users], [f"i{i}" for i in items]
    return list(zip(users, items, seconds, strict=True))


@st.composite
def protocols(draw):
    text = draw(st.booleans())
    return _rows(draw, 3, 4, text), _rows(draw, 4, 5, text), draw(st.sampled_from(KINDS))


def _found(report, check: str, part: str | None = None):
    found = [f for f in report.findings if f.check == check and part in (None, f.input)]
    return found[0] if found else None


def _count(finding, detail: str | None = None) -> tuple[int, ...]:
    if finding is None:
        return (0,) if detail is None else (0, 0)
    return (finding.count,) if detail is None else (finding.count, finding.details[detail])


@given(protocols())
def test_findings_match_oracle(drawn):
    train, test, kind = drawn
    report = receval.audit(_frame(train, kind), _frame(test, kind))
    assert _count(_found(report, "temporal_leak"), "n_users") == oracle.temporal_leak(train, test)
    assert _count(_found(report, "test_in_train"), "n_users") == oracle.test_in_train(train, test)
    cold_users, cold_rows, unseen_rows, unseen_items = oracle.cold(train, test)
    assert _count(_found(report, "cold_users"), "n_rows") == (cold_users, cold_rows)
    assert _count(_found(report, "cold_items"), "n_items") == (unseen_rows, unseen_items)
    for part, rows in (("train", train), ("test", test)):
        finding = _found(report, "duplicates", part)
        count, pairs, at = oracle.duplicates(rows)
        assert _count(finding, "n_pairs") == (count, pairs)
        assert ([e["row"] for e in finding.examples] if finding else []) == at[:5]


@given(protocols(), st.integers(0, 5))
def test_cutoff_leak_matches_oracle(drawn, cut):
    train, test, kind = drawn
    cutoff = {
        "int": cut,
        "tz": pd.Timestamp(cut, unit="s", tz="UTC"),
    }.get(kind, pd.Timestamp(cut, unit="s").isoformat())
    report = receval.audit(_frame(train, kind), _frame(test, kind), cutoff=cutoff)
    early, late = oracle.cutoff_leak(train, test, cut)
    assert _count(_found(report, "cutoff_leak", "test")) == (early,)
    assert _count(_found(report, "cutoff_leak", "train")) == (late,)

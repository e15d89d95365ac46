"""The qrels users absent from the run (``n_users_missing``) are counted by one helper,
:func:`receval.ranking.values.users_in_run`, for :func:`receval.evaluate` (and the
command line, which reports its counts) and for an accumulator's ``skipped()``, which
counts the rows held from their user ids, without joining them into a qrels and a run."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import receval as rv
from receval.ranking import aggregate, definition, values
from receval.ranking.open_users import OpenUsers
from tests.cli._helpers import invoke, make_runner

QRELS = {"u": {"a": 2, "b": 1}, "v": {"c": 1, "d": 3}, "w": {"e": 1}}
RUN = {"u": {"a": 0.5, "b": 0.5, "x": 0.1}}  # v and w have no list


def _csv(path, header, rows):
    lines = [header] + [f"{u},{i},{x}" for u, d in rows.items() for i, x in d.items()]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_users_missing_from_the_run_are_counted_by_one_helper(monkeypatch, tmp_path):
    calls = []
    real = values.users_in_run

    def spy(q_users, r_users):
        calls.append(len(q_users))
        return real(q_users, r_users)

    # the names the aggregation and the accumulator's skipped() call
    monkeypatch.setattr(aggregate, "users_in_run", spy)
    monkeypatch.setattr(definition, "users_in_run", spy)
    assert rv.evaluate(QRELS, RUN, ["map"]).n_users_missing == 2
    assert calls == [3]
    for whole_groups, counted in ((False, [3]), (True, [2, 1])):
        calls.clear()
        acc = rv.metric("map", whole_groups=whole_groups)
        acc.update({u: QRELS[u] for u in "uv"}, RUN).update({"w": QRELS["w"]}, {})
        assert acc.skipped() == {"n_users_missing": 2}
        # the rows held: counted by skipped(); whole users: by each update
        assert calls == counted
    qrels = _csv(tmp_path / "qrels.csv", "user,item,grade", QRELS)
    scores = _csv(tmp_path / "run.csv", "user,item,score", RUN)
    calls.clear()
    result = invoke(
        make_runner(), "rank", "--qrels", qrels, "--run", scores, "-m", "map", "--format", "json"
    )
    assert json.loads(result.stdout)[0]["counts"]["n_users_missing"] == 2
    assert calls == [3]


def _refuse_joining(monkeypatch):
    """Make any joining of the rows held (a qrels and a run built of them) raise."""

    def refused(*args, **kwargs):
        raise AssertionError("skipped() joined the rows held")

    monkeypatch.setattr(OpenUsers, "joined", refused)
    monkeypatch.setattr(OpenUsers, "joined_qrels", refused)


# a side's user ids: their codes as ints, as the texts of those ints (the same users)
# or as names (other users); ints and strings in different updates are held as text
_STYLES = {"int": int, "text": str, "name": lambda c: f"u{c}"}


@st.composite
def _batches(draw):
    """Batches of qrels and run users 0 to 5, their ids of one kind a side: a user
    in several batches, in the qrels or the run alone; each batch's item is its own
    (no pair given twice)."""
    out = []
    for b in range(draw(st.integers(1, 5))):
        sides = []
        for _ in ("qrels", "run"):
            codes = draw(st.lists(st.integers(0, 5), max_size=6, unique=True))
            style = _STYLES[draw(st.sampled_from(sorted(_STYLES)))]
            sides.append([style(c) for c in codes])
        out.append((b, sides))
    return out


@given(_batches())
def test_skipped_counts_the_users_held_without_joining_the_rows(batches):
    # a training loop's skipped() after every batch: the count compute() reports,
    # without grouping and sorting every row held into a qrels and a run
    assume(batches[0][1][0])  # qrels from the first batch on: compute() counts
    acc = rv.metric("map", missing_users="zero", allow_unmatched=True)
    real, counted = values.users_in_run, []

    def spy(q_users, r_users):
        found = real(q_users, r_users)
        counted.append(found[1])
        return found

    for b, (q_users, r_users) in batches:
        ones = np.ones(len(q_users))
        qrels = rv.Qrels(q_users, np.full(len(q_users), b), ones) if q_users else {}
        ones = np.ones(len(r_users))
        run = rv.Run(r_users, np.full(len(r_users), b), ones) if r_users else {}
        acc.update(qrels, run)
        with pytest.MonkeyPatch.context() as patch:
            _refuse_joining(patch)
            got = acc.skipped()
        counted.clear()
        with pytest.MonkeyPatch.context() as patch, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            patch.setattr(aggregate, "users_in_run", spy)
            acc.compute()
        assert len(counted) >= 1
        assert got == {"n_users_missing": sum(counted)}


def test_skipped_of_no_update_joins_nothing(monkeypatch):
    _refuse_joining(monkeypatch)
    assert rv.metric("map").skipped() == {"n_users_missing": 0}
    run_only = rv.metric("map").update({}, {"u": {"a": 0.5}})
    assert run_only.skipped() == {"n_users_missing": 0}

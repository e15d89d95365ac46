"""The qrels users absent from the run (``n_users_missing``) are counted by one helper,
:func:`receval.ranking.values.users_in_run`, for :func:`receval.evaluate` (and the
command line, which reports its counts) and for an accumulator's ``skipped()``."""

from __future__ import annotations

import json

import receval as rv
from receval.ranking import aggregate, definition, values
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

    def spy(q, r):
        calls.append(q.n_users)
        return real(q, r)

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

"""trec_eval's own test suite (``make quicktest``) replayed through receval.

Each quicktest command runs trec_eval with options on files of its ``test/``
directory and diffs the output against an expected file. The inputs and the
expected files are copied unchanged into ``data/trec_eval/`` (gzipped when over
200 kB) and ``commands.json`` lists the commands (options, files, Makefile
line). For every line ``measure <TAB> query <TAB> value`` of an expected file
whose measure receval has, receval computes the same value with
``profile="trec_eval"`` and the command's options, and it must print the same:
within 5e-5 and the same ``f"{x:.4f}"`` string (trec_eval prints ``%6.4f``).
Measures receval does not have are listed under ``not_applicable`` in
``commands.json``, with the reason.

Options: ``-q`` only adds per-query lines; ``-c`` is ``missing_users="zero"``
(else ``"skip"``); ``-l N`` is ``rel_threshold=N``; ``-M N`` keeps the first N
documents of each query in trec_eval's order (score descending, then docno
descending), which receval has no option for, so the run is cut before
``evaluate``; ``-m`` only selects what is printed.
"""

from __future__ import annotations

import functools
import getopt
import json
import re
from pathlib import Path

import pytest

import receval

DATA = Path(__file__).parent / "data" / "trec_eval"
SPEC = json.loads((DATA / "commands.json").read_text())
COMMANDS = {c["id"]: c for c in SPEC["commands"]}

# trec_eval measure -> receval metric string ("num_q" is the count of users averaged)
_CUT = {
    "P": "precision",
    "recall": "recall",
    "map_cut": "map",
    "ndcg_cut": "ndcg",
    "success": "success",
}
_PLAIN = {
    "map": "map",
    "ndcg": "ndcg",
    "recip_rank": "mrr",
    "Rprec": "r_precision",
    "num_q": "num_q",
}
_CUT_RE = re.compile(r"(P|recall|map_cut|ndcg_cut|success)_(\d+)")


def receval_metric(measure: str) -> str | None:
    """The receval metric string of a trec_eval measure name, None if receval lacks it."""
    if measure in _PLAIN:
        return _PLAIN[measure]
    m = _CUT_RE.fullmatch(measure)
    return f"{_CUT[m[1]]}@{int(m[2])}" if m else None


def read_expected(name: str) -> list[tuple[str, str, str]]:
    """``(measure, query, value)`` of each line of a trec_eval output file."""
    rows = []
    for line in (DATA / name).read_text().splitlines():
        measure, qid, value = line.split("\t")
        rows.append((measure.rstrip(), qid, value))
    return rows


def parse_options(options: list[str]) -> dict:
    """trec_eval's command line (its getopt string), as the receval conventions it sets."""
    opts, rest = getopt.getopt(options, "hvqm:cl:nD:JN:M:R:T:oZ:")
    assert not rest, rest
    out = {"complete": False, "rel_level": 1, "max_ret": None, "per_query": False}
    for flag, value in opts:
        if flag == "-c":
            out["complete"] = True
        elif flag == "-l":
            out["rel_level"] = int(value)
        elif flag == "-M":
            out["max_ret"] = int(value)
        elif flag == "-q":
            out["per_query"] = True
        elif flag == "-m":
            continue  # selects the printed measures: the expected file has them
        else:  # -R, -Z, -J, -N ...: commands using them are not applicable
            raise AssertionError(f"option {flag} is not replayed")
    return out


def cut_run(run: receval.Run, max_ret: int) -> receval.Run:
    """trec_eval ``-M``: each query's first ``max_ret`` documents by score descending,
    ties by docno descending (strcmp order: byte order of the ids), scores as doubles."""
    cut = {}
    for user, scores in run.to_dict().items():
        order = sorted(scores, key=lambda d: (scores[d], str(d).encode()), reverse=True)
        cut[user] = {d: scores[d] for d in order[:max_ret]}
    return receval.Run.from_dict(cut, name=run.name)


def _cases():
    cases = []
    for command in SPEC["commands"]:
        if "not_applicable" in command:
            continue
        for measure, qid, value in read_expected(command["expected"]):
            if receval_metric(measure) is not None:
                cases.append((command["id"], measure, qid, value))
    return cases


CASES = _cases()

# ---------------------------------------------------------------- known defects
# (command, measure regex, queries or None for all, reason): exactly the cases that fail.
# None now: comment lines in qrels and ndcg's gains under -l were fixed with issue 13.
DEFECTS: list[tuple[str, str, frozenset[str] | None, str]] = []


def _marks(command: str, measure: str, qid: str) -> list:
    for cmd, pattern, queries, reason in DEFECTS:
        if (
            cmd == command
            and re.fullmatch(pattern, measure)
            and (queries is None or qid in queries)
        ):
            return [pytest.mark.xfail(strict=True, reason=reason)]
    return []


# ---------------------------------------------------------------- receval's side
@functools.cache
def _evaluate(command_id: str):
    """The report of one command, or the exception that reading or evaluating raised."""
    command = COMMANDS[command_id]
    opts = parse_options(command["options"])
    metrics = sorted(
        {
            receval_metric(m)
            for m, _, _ in read_expected(command["expected"])
            if receval_metric(m) not in (None, "num_q")
        }
    )
    try:
        qrels = receval.Qrels.from_file(DATA / command["qrels"], file_format="trec")
        run = receval.Run.from_file(DATA / command["run"], file_format="trec")
        if opts["max_ret"] is not None:
            run = cut_run(run, opts["max_ret"])
        report = receval.evaluate(
            qrels,
            run,
            metrics,
            profile="trec_eval",
            rel_threshold=opts["rel_level"],
            missing_users="zero" if opts["complete"] else "skip",
        )
    except Exception as exc:  # every case of the command fails with it
        return exc
    return report


def _report(command_id: str):
    report = _evaluate(command_id)
    if isinstance(report, Exception):
        raise report
    return report


def receval_value(command_id: str, measure: str, qid: str):
    report = _report(command_id)
    metric = receval_metric(measure)
    if metric == "num_q":
        first = next(iter(report.mean))
        return report.n_users - report.n_users_skipped[first]
    if qid == "all":
        return report.mean[metric]
    users = [str(u) for u in report.users.tolist()]
    assert qid in users, f"query {qid} is not among receval's users"
    return float(report.values[metric][users.index(qid)])


# ---------------------------------------------------------------- tests
@pytest.mark.parametrize(
    ("command", "measure", "qid", "expected"),
    [pytest.param(*case, id="-".join(case[:3]), marks=_marks(*case[:3])) for case in CASES],
)
def test_quicktest_value(command, measure, qid, expected):
    got = receval_value(command, measure, qid)
    where = f"{COMMANDS[command]['source']['command']}: {measure} {qid}"
    if measure == "num_q":
        assert str(got) == expected, where
        return
    assert got == pytest.approx(float(expected), abs=5e-5), where
    assert f"{got:.4f}" == expected, where


def _per_query_commands():
    out = []
    for command in SPEC["commands"]:
        if "not_applicable" in command or not parse_options(command["options"])["per_query"]:
            continue
        marks = _marks(command["id"], "map", "all")
        out.append(pytest.param(command["id"], id=command["id"], marks=marks))
    return out


@pytest.mark.parametrize("command", _per_query_commands())
def test_quicktest_queries(command):
    """receval evaluates exactly the queries trec_eval prints lines for (``-q``)."""
    printed = {q for m, q, _ in read_expected(COMMANDS[command]["expected"]) if q != "all"}
    report = _report(command)
    values = next(iter(report.values.values()))
    evaluated = {str(u) for u, x in zip(report.users.tolist(), values, strict=True) if x == x}
    assert evaluated == printed


def test_every_measure_accounted_for():
    """Each expected line is a case above or listed as not applicable, never dropped."""
    listed = {(c["command"], c["measure"]) for c in SPEC["not_applicable"]["measures"]}
    whole = {c["id"] for c in SPEC["commands"] if "not_applicable" in c}
    cases = {(c, m) for c, m, _, _ in CASES}
    for command in SPEC["commands"]:
        for measure, _, _ in read_expected(command["expected"]):
            key = (command["id"], measure)
            assert command["id"] in whole or (key in cases) != (key in listed), key


def test_cut_run_keeps_trec_eval_order():
    run = receval.Run.from_dict({"q": {"a": 1.0, "b": 2.0, "c": 1.0, "d": 0.5}})
    assert set(cut_run(run, 2).to_dict()["q"]) == {"b", "c"}  # c before a: docno descending
    assert cut_run(run, 3).to_dict()["q"] == {"a": 1.0, "b": 2.0, "c": 1.0}


def test_every_data_file_belongs_to_a_command():
    """data/trec_eval holds commands.json and the files its commands name, nothing else
    (zscores_file is aqZ's -Z file: the command is not applicable, its file kept with it)."""
    named = {
        command[key]
        for command in SPEC["commands"]
        for key in ("qrels", "run", "expected", "zscores")
        if key in command
    }
    assert {p.name for p in DATA.iterdir()} == named | {"commands.json"}

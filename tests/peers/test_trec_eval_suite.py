"""trec_eval's own test suite (``make quicktest``) replayed through receval.

Each quicktest command runs trec_eval with options on files of its ``test/``
directory and diffs the output against an expected file. The inputs and the
expected files are copied unchanged into ``data/trec_eval/`` (gzipped when over
200 kB) and ``commands.json`` lists the commands (options, files, Makefile
line). For every line ``measure <TAB> query <TAB> value`` of an expected file
(but ``runid`` and ``relstring``, which are not numbers), ``receval.evaluate``
computes the same value with ``profile="trec_eval"``, ``ties="id_descending"``
(trec_eval 10.0 compares scores as doubles), ``recall_rounding="nearest"`` (10.0
rounds a recall level's count of relevant documents) and the command's options, and
it must
print the same: within 5e-5 and the same ``f"{x:.4f}"`` string (trec_eval prints
``%6.4f``; counts as integers). The metric of each printed name comes from
:func:`receval.trec.trec_eval.trec_eval_metrics` with the command's ``-m`` arguments.
Commands receval does not read (preferences), judgment groups (a mean over each
query's groups of ``evaluate``'s values, one user per group) and ``-Z`` (a
transformation of the printed values), the last two tested byte for byte in
test_trec_eval_quicktest.py, are listed under ``not_applicable`` in
``commands.json``, with the reason.

Options: ``-q`` only adds per-query lines; ``-c`` is ``missing_users="complete"``
(else ``"skip"``); ``-l N`` is ``rel_threshold=N``; ``-M N`` is ``depth=N``; ``-m``
selects what is printed.
"""

from __future__ import annotations

import functools
import getopt
import json
import re
from pathlib import Path

import pytest

import receval
from receval.trec.trec_eval import trec_eval_metrics

DATA = Path(__file__).parent / "data" / "trec_eval"
SPEC = json.loads((DATA / "commands.json").read_text())
COMMANDS = {c["id"]: c for c in SPEC["commands"]}


def receval_metric(command_id: str, measure: str) -> str | None:
    """The receval metric string of a printed trec_eval measure name (None: not a number)."""
    return _metrics(command_id).get(measure)


@functools.cache
def _metrics(command_id: str) -> dict[str, str]:
    opts = parse_options(COMMANDS[command_id]["options"])
    return trec_eval_metrics(opts["measures"] or ["official"])


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
    out = {"complete": False, "rel_level": 1, "max_ret": 0, "per_query": False, "measures": []}
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
            out["measures"].append(value)
        else:  # -R, -Z, -J, -N ...: commands using them are not applicable
            raise AssertionError(f"option {flag} is not replayed")
    return out


def _cases():
    cases = []
    for command in SPEC["commands"]:
        if "not_applicable" in command:
            continue
        for measure, qid, value in read_expected(command["expected"]):
            if receval_metric(command["id"], measure) is not None:
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
    metrics = sorted(set(_metrics(command_id).values()))
    # trec_eval 10.0's rounding of recall levels, given where a metric reads it
    reads = {c for m in metrics for c in receval.registry.parse_metric(m).info.conventions}
    rounding = {"recall_rounding": "nearest"} if "recall_rounding" in reads else {}
    try:
        qrels = receval.Qrels.from_file(DATA / command["qrels"], file_format="trec")
        run = receval.Run.from_file(DATA / command["run"], file_format="trec")
        report = receval.evaluate(
            qrels,
            run,
            metrics,
            profile="trec_eval",
            ties="id_descending",
            rel_threshold=opts["rel_level"],
            missing_users="complete" if opts["complete"] else "skip",
            depth=opts["max_ret"],
            **rounding,
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
    metric = receval_metric(command_id, measure)
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
    if measure.startswith("num_"):
        assert str(int(got)) == expected, where
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
    """Each expected line is a case above, a string (runid, relstring) or a line of a
    command listed as not applicable, never dropped."""
    whole = {c["id"] for c in SPEC["commands"] if "not_applicable" in c}
    cases = {(c, m) for c, m, _, _ in CASES}
    for command in SPEC["commands"]:
        for measure, _, _ in read_expected(command["expected"]):
            key = (command["id"], measure)
            strings = measure == "runid" or measure.startswith("relstring")
            assert command["id"] in whole or (key in cases) != strings, key


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

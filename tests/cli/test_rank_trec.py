"""``receval rank`` on TREC files through the core (:mod:`receval.cli._rank_trec`) prints
what the path through :func:`receval.evaluate` prints: the same stdout, stderr and exit
status, on random qrels and runs (ties, users in only one file, users without a
relevant item, repeated pairs, which the core refuses and evaluate's path reports)."""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from receval.cli import _rank_trec
from receval.cli._rank_run import common_options, run_rank
from receval.cli._rank_trec import core_report

TREC = Path(__file__).resolve().parents[1] / "peers" / "data" / "trec_eval"

METRICS = [
    "ndcg@10", "ndcg@3", "map", "map@5", "mrr", "recall@5", "precision@3", "success@2",
    "P.2,5", "ndcg(gain=exponential)@5", "rprec", "bpref", "err@5", "ndcg(ideal=run)@5",
]  # fmt: skip


def _captured(options: dict[str, Any]) -> tuple[str, str, Any]:
    """stdout, stderr and the exit status (or the exception) of ``run_rank``."""
    out, err = io.StringIO(), io.StringIO()
    code: Any = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            run_rank(**options)
        except SystemExit as exc:
            code = int(exc.code or 0)
        except ValueError as exc:  # JSON of a nan mean, in either path
            code = repr(exc)
    return out.getvalue(), err.getvalue(), code


def _both(args: list[str]) -> tuple[bool, tuple[str, str, Any], tuple[str, str, Any]]:
    """Whether the core computed the report of ``receval rank ARGS``, what the command
    printed, and what it prints through ``evaluate``."""
    options = common_options(args)
    assert options is not None
    taken = []

    def recorded(*a: Any) -> Any:
        report = core_report(*a)
        taken.append(report is not None)
        return report

    with mock.patch.object(_rank_trec, "core_report", recorded):
        fast = _captured(options)
    with mock.patch.object(_rank_trec, "core_report", lambda *a: None):
        slow = _captured(options)
    return any(taken), fast, slow


def _line_files(draw: Any, directory: Path) -> tuple[str, str, bool]:
    users = [f"q{i}" for i in range(draw(st.integers(1, 5)))]
    items = [f"d{i}" for i in range(draw(st.integers(1, 8)))]
    qrels, run = [], []
    for u in users:
        if draw(st.booleans()) or u == users[0]:
            judged = draw(st.lists(st.sampled_from(items), min_size=1, unique=True))
            qrels += [f"{u} 0 {i} {draw(st.sampled_from([-1, 0, 0, 1, 1, 2, 3]))}" for i in judged]
        if draw(st.integers(0, 4)) or u == users[0]:
            ranked = draw(st.lists(st.sampled_from(items), min_size=1, unique=True))
            scores = st.sampled_from([0.5, 1.0, 1.0, 2.0, 1.0000000001, -3.25, 7.0])
            run += [f"{u} Q0 {i} {n} {draw(scores)!r} tag" for n, i in enumerate(ranked)]
    if draw(st.booleans()):  # a run user absent from the qrels
        run.append(f"other Q0 {items[0]} 0 1.5 tag")
    repeated = draw(st.integers(0, 9)) == 0
    if repeated:
        lines = draw(st.sampled_from([qrels, run]))
        lines.append(lines[0])
    order = draw(st.permutations(range(len(run))))
    q, r = directory / "qrels.txt", directory / "run"
    q.write_text("\n".join(qrels) + "\n")
    r.write_text("\n".join(run[i] for i in order) + "\n")
    return str(q), str(r), repeated


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_core_prints_what_evaluate_prints(data: st.DataObject) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        qrels, run, repeated = _line_files(data.draw, Path(tmp))
        metrics = data.draw(st.lists(st.sampled_from(METRICS), min_size=1, max_size=4, unique=True))
        args = ["--qrels", qrels, "--run", run]
        for m in metrics:
            args += ["-m", m]
        fmt = data.draw(st.sampled_from([None, "table", "json", "tsv", "csv", "markdown"]))
        if fmt is not None:
            args += ["-f", fmt]
        if data.draw(st.booleans()):
            args.append("--per-user")
        if data.draw(st.booleans()):
            args += ["--digits", str(data.draw(st.integers(0, 17)))]
        if data.draw(st.integers(0, 4)) == 0:
            args.append("-q")
        taken, fast, slow = _both(args)
        assert fast == slow
        if repeated:  # the core refuses a repeated pair: evaluate's path says what it is
            assert not taken and fast[2] == 2


@pytest.mark.parametrize(
    "extra",
    [[], ["-f", "json"], ["--per-user", "-f", "tsv"], ["-m", "ndcg@10", "-m", "map"]],
)
def test_trec_eval_files_take_the_core(extra: list[str]) -> None:
    args = ["--qrels", str(TREC / "qrels.test"), "--run", str(TREC / "results.test"), *extra]
    taken, fast, slow = _both(args)
    assert taken
    assert fast == slow
    assert "depends on the order of tied scores" in fast[1]


def test_other_files_and_options_keep_evaluate() -> None:
    # CSV files, a pooled mean, two runs, a profile: evaluate's path
    qrels, run = str(TREC / "qrels.test"), str(TREC / "results.test")
    assert core_report("q.csv", run, ["map"]) is None
    assert core_report(qrels, run, ["pooled_hit_ratio@5"]) is None
    for extra in (["--run", qrels], ["--profile", "trec_eval"]):
        taken, fast, slow = _both(["--qrels", qrels, "--run", run, *extra])
        assert not taken and fast == slow


def test_a_grade_a_metric_refuses_is_refused_as_evaluate_refuses_it(tmp_path: Path) -> None:
    # the core computed ERR over its cascade's limit (1.9082 for a grade of 5), where
    # evaluate refuses the grade: metrics with a rule for their grades take evaluate's path
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("u 0 a 5\nu 0 b 1\n")
    run.write_text("u Q0 a 1 1.0 r\nu Q0 b 2 0.5 r\n")
    args = ["--qrels", str(qrels), "--run", str(run), "-f", "json"]
    for metrics in (["err@10"], ["ndcg@3", "err@10"]):
        taken, fast, slow = _both([*args, *(f for m in metrics for f in ("-m", m))])
        assert not taken and fast == slow
        assert fast[2] == 2 and fast[1].startswith(
            "error: receval rank: metric 'err@10' stops the user at an item of grade g"
        )
    taken, fast, slow = _both([*args, "-m", "ndcg@3"])  # a metric that takes any grade
    assert taken and fast == slow and fast[2] == 0


_MAIN = "import sys\nfrom receval.cli import main\nsys.argv = ['receval', *sys.argv[1:]]\n"
_WITHOUT_CORE = "import receval.cli._rank_trec as t\nt.core_report = lambda *a: None\n"


def test_a_metric_name_that_warns_warns_once() -> None:
    # the warning is rank's, printed after the notes (each process warns once: run two)
    args = ["rank", "--qrels", str(TREC / "qrels.test"), "--run", str(TREC / "results.test")]
    args += ["-m", "hit_ratio@5", "-m", "map"]
    fast, slow = (
        subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True)
        for code in (_MAIN + "main()", _MAIN + _WITHOUT_CORE + "main()")
    )
    assert (fast.stdout, fast.stderr, fast.returncode) == (
        slow.stdout, slow.stderr, slow.returncode
    )  # fmt: skip
    assert fast.stderr.count("warning: The metric name 'hit_ratio'") == 1

"""``receval rank`` on TREC files through the core (:mod:`receval.cli._rank_trec`) prints
what the path through :func:`receval.evaluate` prints: the same stdout, stderr and exit
status, on random qrels and runs (ties, users in only one file, users without a
relevant item, repeated pairs, which the core refuses and evaluate's path reports)."""

from __future__ import annotations

import contextlib
import io
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from receval.cli._rank_run import common_options, run_rank
from receval.cli._rank_trec import rank_trec

TREC = Path(__file__).resolve().parents[1] / "peers" / "data" / "trec_eval"

METRICS = [
    "ndcg@10", "ndcg@3", "map", "map@5", "mrr", "recall@5", "precision@3", "success@2",
    "P.2,5", "ndcg(gain=exponential)@5", "rprec", "bpref", "err@5", "ndcg(ideal=run)@5",
]  # fmt: skip


def _captured(func: Any, options: dict[str, Any]) -> tuple[str, str, int, Any]:
    out, err = io.StringIO(), io.StringIO()
    code, result = 0, None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            result = func(**options)
        except SystemExit as exc:
            code = int(exc.code or 0)
    return out.getvalue(), err.getvalue(), code, result


def _both(args: list[str]) -> tuple[bool, tuple[str, str, int], tuple[str, str, int]]:
    """Whether the core's path took the command line, what the command printed, and
    what evaluate's path prints."""
    options = common_options(args)
    assert options is not None
    out, err, code, taken = _captured(rank_trec, options)
    if not taken:
        assert (out, err, code) == ("", "", 0)
        out, err, code, _ = _captured(run_rank, options)
    slow = _captured(run_rank, options)[:3]
    return bool(taken), (out, err, code), slow


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
    # a CSV file, two runs, a profile: evaluate's path (rank_trec prints nothing)
    qrels, run = str(TREC / "qrels.test"), str(TREC / "results.test")
    assert _captured(rank_trec, {"qrels": "q.csv", "run": [run]})[3] is False
    assert _captured(rank_trec, {"qrels": qrels, "run": [run, qrels]})[3] is False
    assert _captured(rank_trec, {"qrels": qrels, "run": [run], "profile": "trec_eval"})[3] is False
    assert (
        _captured(rank_trec, {"qrels": qrels, "run": [run], "metric": ["hit_ratio@5"]})[3] is False
    )

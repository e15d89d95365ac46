"""Start-up: short ``receval`` commands against the trec_eval binary and a pytrec_eval process.

    python benchmarks/bench_startup.py --trec-eval "$(bash benchmarks/build_trec_eval.sh)"
    python benchmarks/bench_startup.py --quick       # 10 rounds, print only (about 20 s)

Every case is a new process on trec_eval's own test files
(tests/peers/data/trec_eval/qrels.test and results.test: 3 queries, 3,681 judgments,
1,500 ranked documents), where start-up is nearly all of the time:

- ``python -c pass``, the interpreter alone: the floor of every Python command;
- ``python -c "import receval"``;
- ``receval trec-eval qrels.test results.test`` (the official measures), and the
  trec_eval 10.0 binary on the same files (``--trec-eval``);
- ``receval rank -m ndcg@10 -m map --qrels ... --run ...``, whose options are read
  before Typer is loaded, the same with ``--ties input`` (a convention, read so too),
  and with ``--permutations 100``, an option Typer reads;
- a pytrec_eval process that reads the same files (``pytrec_eval.parse_qrel``,
  ``parse_run``) and evaluates map and ndcg_cut.10;
- ``receval --help``.

receval's commands run as the console script does (``from receval.cli import main;
main()``). The cases run in turn (A B C ... A B C ...), the same number of rounds
each (``--rounds``; 50 in the full run, about 2 minutes on 2 cores); the table gives
the median and the best wall time of each, its peak resident memory (the child's
``ru_maxrss``) and the load average around the rounds. The full run writes section
``startup`` of docs/benchmarks.md; ``--quick`` prints it only.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from _harness import (
    compile_package,
    environment,
    load_line,
    median,
    peer_versions,
    replace_section,
)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "tests", "peers", "data", "trec_eval")
QRELS, RUN = os.path.join(DATA, "qrels.test"), os.path.join(DATA, "results.test")

RECEVAL = "from receval.cli import main; main()"  # what the console script runs
PYTREC_EVAL = (
    "import sys, pytrec_eval\n"
    "with open(sys.argv[1]) as q, open(sys.argv[2]) as r:\n"
    "    qrels, run = pytrec_eval.parse_qrel(q), pytrec_eval.parse_run(r)\n"
    "values = pytrec_eval.RelevanceEvaluator(qrels, {'map', 'ndcg_cut.10'}).evaluate(run)\n"
    "for m in ('map', 'ndcg_cut_10'):\n"
    "    print(m, sum(v[m] for v in values.values()) / len(values))\n"
)


def cases(trec_eval: str | None) -> list[tuple[str, list[str]]]:
    """(label, command line) of each case, in the order of the table."""
    py = sys.executable
    out = [
        ("`python -c pass` (the interpreter alone)", [py, "-c", "pass"]),
        ('`python -c "import receval"`', [py, "-c", "import receval"]),
        (
            "`receval trec-eval qrels.test results.test`",
            [py, "-c", RECEVAL, "trec-eval", QRELS, RUN],
        ),
    ]
    if trec_eval:
        binary = os.path.abspath(trec_eval)
        out.append(("`trec_eval qrels.test results.test` (the C binary)", [binary, QRELS, RUN]))
    rank = ["rank", "-m", "ndcg@10", "-m", "map", "--qrels", QRELS, "--run", RUN]
    out += [
        ("`receval rank -m ndcg@10 -m map`", [py, "-c", RECEVAL, *rank]),
        (
            "`receval rank -m ndcg@10 -m map --ties input` (a convention)",
            [py, "-c", RECEVAL, *rank, "--ties", "input"],
        ),
        (
            "`receval rank -m ndcg@10 -m map --permutations 100` (an option read by Typer)",
            [py, "-c", RECEVAL, *rank, "--permutations", "100"],
        ),
        (
            "pytrec_eval process (read both files, map and ndcg_cut.10)",
            [py, "-c", PYTREC_EVAL, QRELS, RUN],
        ),
        ("`receval --help`", [py, "-c", RECEVAL, "--help"]),
    ]
    return out


def run_once(cmd: list[str], env: dict[str, str]) -> tuple[float, float, bytes]:
    """Wall seconds, peak resident MiB (the child's ``ru_maxrss``) and stdout of one new
    process; stdout goes to a file, stderr to /dev/null."""
    with tempfile.TemporaryFile() as out:
        actions = [
            (os.POSIX_SPAWN_DUP2, out.fileno(), 1),
            (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
        ]
        start = time.perf_counter()
        pid = os.posix_spawn(cmd[0], cmd, env, file_actions=actions)
        _, status, usage = os.wait4(pid, 0)
        elapsed = time.perf_counter() - start
        if os.waitstatus_to_exitcode(status):
            raise RuntimeError(f"{' '.join(cmd)} failed: {os.waitstatus_to_exitcode(status)}")
        out.seek(0)
        return elapsed, usage.ru_maxrss / 1024, out.read()


def measure(
    todo: list[tuple[str, list[str]]], rounds: int, env: dict[str, str]
) -> list[tuple[list[float], float, bytes]]:
    """Every case in turn, ``rounds`` times: its wall times, peak memory and output."""
    times: list[list[float]] = [[] for _ in todo]
    peaks = [0.0 for _ in todo]
    outputs = [b"" for _ in todo]
    for _, cmd in todo:  # warm the file cache and the bytecode, untimed
        subprocess.run(cmd, capture_output=True, env=env, check=True)
    for _ in range(rounds):
        for i, (_, cmd) in enumerate(todo):
            t, peak, out = run_once(cmd, env)
            times[i].append(t)
            peaks[i] = max(peaks[i], peak)
            outputs[i] = out
    return [(times[i], peaks[i], outputs[i]) for i in range(len(todo))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--trec-eval", default=None, help="the trec_eval binary (build_trec_eval.sh)"
    )
    parser.add_argument(
        "--rounds", type=int, default=None, help="rounds (default 50; 10 with --quick)"
    )
    parser.add_argument("--quick", action="store_true", help="10 rounds, print only")
    parser.add_argument("--out", default=os.path.join(ROOT, "docs", "benchmarks.md"))
    args = parser.parse_args()
    compile_package()
    rounds = args.rounds or (10 if args.quick else 50)
    env = dict(os.environ, COLUMNS="100", TERM="dumb")
    todo = cases(args.trec_eval)
    load_before = os.getloadavg()
    results = measure(todo, rounds, env)
    load_after = os.getloadavg()
    medians = [median(t) for t, _, _ in results]
    labels = [label for label, _ in todo]
    floor = medians[0]
    pytrec = medians[next(i for i, label in enumerate(labels) if label.startswith("pytrec_eval"))]
    lines = [
        "| command | runs | median (ms) | best (ms) | peak memory (MiB) "
        "| median minus the interpreter's (ms) | pytrec_eval process / this |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for (label, cmd), (times, peak, _), med in zip(todo, results, medians, strict=True):
        above = f"{1000 * (med - floor):.1f}" if cmd[0] == sys.executable else ""
        lines.append(
            f"| {label} | {len(times)} | {1000 * med:.1f} | {1000 * min(times):.1f} | {peak:.0f} "
            f"| {above} | {pytrec / med:.2f}x |"
        )
    table = "\n".join(lines)
    print(table, flush=True)
    ours = results[2][2]
    with open(os.path.join(DATA, "out.test"), "rb") as fh:
        same = ours == fh.read()
    checks = [
        f"- `receval trec-eval` prints trec_eval 10.0's output byte for byte (its `out.test`): "
        f"{'yes' if same else 'NO'}",
    ]
    if args.trec_eval:
        binary = results[3][2]
        checks.append(
            f"- the same as the binary's output here: {'yes' if binary == ours else 'NO'}"
        )
    print("\n".join(checks))
    if args.quick:
        return
    reproduce = (
        'Reproduce: `python benchmarks/bench_startup.py --trec-eval "$(bash '
        'benchmarks/build_trec_eval.sh)"` (writes this section; about 2 minutes).'
    )
    body = "\n".join(
        [
            "## Start-up: short commands in new processes",
            "",
            reproduce,
            f"Each command is a new process, {rounds} rounds, the commands in turn; receval's "
            "commands run as its console script does.",
            "",
            environment(),
            peer_versions("pytrec-eval-terrier"),
            load_line(load_before, load_after),
            "",
            "trec_eval's own test files (3 queries, 3,681 judgments, 1,500 ranked documents). "
            "Peak memory is the child's `ru_maxrss`, which on Linux starts from the resident "
            "size of the process that spawned it (the first row's):",
            "",
            table,
            "",
            *checks,
        ]
    )
    replace_section(args.out, "startup", body)
    print(f"wrote section startup of {args.out}")


if __name__ == "__main__":
    main()

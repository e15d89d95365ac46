"""Two revisions of receval side by side: the same calls, timed in turn, on this machine.

Run it with the source folder of another checkout (one whose compiled core is
built, e.g. ``git worktree add /tmp/before <rev>`` and an editable install or a
copy of ``_core.abi3.so`` into its ``src/receval``)::

    python benchmarks/bench_revisions.py --before /tmp/before/src

Each case runs in a new process per revision (``PYTHONPATH`` names the source
folder), the revisions in turn (before, after, before, after, ...), with the
same data (seeded) and the same number of timed calls after an untimed warm-up;
the table gives each revision's median, the ratio after / before and each
one's largest peak extra memory. ``--write`` puts the table in
``docs/benchmarks.md``; ``--quick`` runs inputs 10 times smaller and prints only.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
AFTER = HERE.parent / "src"

# name -> (setup, call): ``setup`` builds the data from ``n`` (rows) with a seeded
# generator; ``call`` is the timed expression.
CASES: dict[str, tuple[str, str]] = {
    "roc_auc_score, {n:,} rows": (
        "y = rng.integers(0, 2, n).astype(np.int8); s = rng.random(n)",
        "receval.roc_auc_score(y, s)",
    ),
    "log_loss, {n:,} rows": (
        "y = rng.integers(0, 2, n).astype(np.int8); s = rng.uniform(0.01, 0.99, n)",
        "receval.log_loss(y, s)",
    ),
    "root_mean_squared_error, {n:,} rows": (
        "y = rng.random(n); s = rng.random(n)",
        "receval.root_mean_squared_error(y, s)",
    ),
    "gauc_score, {n:,} rows, n/100 groups": (
        "y = rng.integers(0, 2, n).astype(np.int8); s = rng.random(n); "
        "g = np.sort(rng.integers(0, n // 100, n))",
        "receval.gauc_score(y, s, groups=g)",
    ),
    "metric('roc_auc'): 100 updates of n/100 rows": (
        "y = rng.integers(0, 2, n).astype(np.int8); s = rng.random(n)",
        "acc = receval.metric('roc_auc')\n"
        "for i in range(0, n, n // 100): acc.update(y[i:i + n // 100], s[i:i + n // 100])\n"
        "acc.compute()",
    ),
    "evaluate, n/100 users x 100 items, 5 metrics": (
        "import polars as pl\n"
        "u = n // 100\n"
        "users = np.repeat(np.arange(u), 100); items = rng.integers(0, 50_000, u * 100)\n"
        "run = pl.DataFrame({'user': users, 'item': items, 'score': rng.random(u * 100)})\n"
        "run = run.unique(['user', 'item'])\n"
        "qu = np.repeat(np.arange(u), 10); qi = rng.integers(0, 50_000, u * 10)\n"
        "qrels = pl.DataFrame({'user': qu, 'item': qi, 'grade': rng.integers(0, 3, u * 10)})\n"
        "qrels = qrels.unique(['user', 'item'])\n"
        "metrics = ['ndcg@10', 'map', 'recall@100', 'mrr', 'precision@10']",
        "receval.evaluate(qrels, run, metrics)",
    ),
    "retention, {n:,} events, n/20 users": (
        "import polars as pl\n"
        "t = rng.integers(1_700_000_000, 1_700_000_000 + 90 * 86400, n)\n"
        "events = pl.DataFrame({'user': rng.integers(0, n // 20, n), 'time': t})",
        "receval.retention(events, time_unit='s')",
    ),
}

WORKER = """
import json, sys, time
sys.path.insert(0, {bench!r})
import numpy as np
import receval
from _harness import _one
rng = np.random.default_rng(0)
n = {n}
{setup}
def call():
{body}
call()  # warm-up
out = []
for _ in range({runs}):
    t, peak, _value = _one(call)
    out.append([t, peak])
print(json.dumps(out))
"""


def _worker(src: Path, name: str, n: int, runs: int) -> list[list[float]]:
    setup, call = CASES[name]
    lines = call.split("\n")
    body = "\n".join("    " + line for line in lines[:-1]) + "\n    return " + lines[-1]
    code = WORKER.format(bench=str(HERE), n=n, setup=setup, body=body, runs=runs)
    env = dict(os.environ, PYTHONPATH=str(src))
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"{name} at {src} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _median(xs: list[float]) -> float:
    ys = sorted(xs)
    m = len(ys)
    return ys[m // 2] if m % 2 else (ys[m // 2 - 1] + ys[m // 2]) / 2


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--before", required=True, type=Path, help="source folder of the other revision"
    )
    parser.add_argument("--label", default="before", help="the other revision's name in the table")
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--rounds", type=int, default=3, help="new processes per revision and case")
    parser.add_argument("--runs", type=int, default=3, help="timed calls per process")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--only", default=None, help="run the cases whose name contains this")
    args = parser.parse_args(argv)
    n = args.rows // 10 if args.quick else args.rows
    sys.path.insert(0, str(HERE))
    from _harness import write_section

    load_before = os.getloadavg()

    rows = []
    for name in CASES:
        if args.only and args.only not in name:
            continue
        times: dict[str, list[float]] = {"before": [], "after": []}
        peaks: dict[str, float] = {"before": 0.0, "after": 0.0}
        for _ in range(args.rounds):
            for which, src in (("before", args.before), ("after", AFTER)):
                for t, peak in _worker(src, name, n, args.runs):
                    times[which].append(t)
                    peaks[which] = max(peaks[which], peak)
        b, a = _median(times["before"]), _median(times["after"])
        row = (
            f"| {name.format(n=n)} | {b:.4f} s | {a:.4f} s | {a / b:.2f} | "
            f"{peaks['before']:.0f} MiB | {peaks['after']:.0f} MiB |"
        )
        print(row, flush=True)
        rows.append(row)
    table = [
        f"| case | {args.label} | this revision | ratio | peak, {args.label} | peak, this |",
        "|---|---|---|---|---|---|",
        *rows,
    ]
    load = (load_before, os.getloadavg())
    text = (
        f"(`--before` names the other revision's source folder: here {args.label}). Each "
        f"case in a new process per revision, the revisions in turn, {args.rounds} processes "
        f"x {args.runs} timed calls each after a warm-up; medians; peak extra memory of a call."
    )
    title = "Before and after a change (`benchmarks/bench_revisions.py`)"
    write_section(
        "revisions", title, text, table, load=load, print_only=args.quick or not args.write
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

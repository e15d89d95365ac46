"""The cost of ties="average" (exact expectations over tie orders) against one order.

    python benchmarks/bench_ties.py            # rewrites the section of docs/benchmarks.md
    python benchmarks/bench_ties.py --quick    # smaller, print only
    python benchmarks/bench_ties.py --out /tmp/bench.md

Two workloads. "Quantised": 2,000 users x 100 items whose scores take 10 values
(blocks of about 10 tied items), 10 relevant items per user among them. "All
tied": one user whose 1,000 items share one score, with 50 relevant ones; the
worst case of the interpolated-precision form, whose cost grows as (s * h)^2 for
a block of s items with h relevant. Each metric is timed with ties="trec" (one
order) and ties="average" in the same process, the median of 3 calls.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import receval
from _harness import write_section

METRICS = ["map", "ndcg@10", "p@10", "infap", "g", "iprec(recall=0.5)", "11pt_avg", "bpref"]


def quantised(n_users: int, n_items: int, seed: int) -> tuple[Any, Any]:
    rng = np.random.default_rng(seed)
    users = np.repeat(np.arange(n_users), n_items)
    items = np.tile(np.arange(n_items), n_users)
    scores = rng.integers(0, 10, n_users * n_items).astype(np.float64)
    rel = np.argsort(rng.random((n_users, n_items)), axis=1)[:, :10]
    q_users = np.repeat(np.arange(n_users), 10)
    run = receval.Run(users, items, scores)
    qrels = receval.Qrels(q_users, rel.ravel(), np.ones(n_users * 10, dtype=np.int64))
    return qrels, run


def all_tied(n_items: int, n_rel: int, seed: int) -> tuple[Any, Any]:
    rng = np.random.default_rng(seed)
    items = np.arange(n_items)
    rel = rng.choice(items, n_rel, replace=False)
    run = receval.Run(np.zeros(n_items, dtype=np.int64), items, np.full(n_items, 0.5))
    qrels = receval.Qrels(np.zeros(n_rel, dtype=np.int64), rel, np.ones(n_rel, dtype=np.int64))
    return qrels, run


def timed(qrels: Any, run: Any, metric: str, ties: str, repeat: int) -> tuple[float, float]:
    times = []
    value = float("nan")
    for _ in range(repeat):
        start = time.perf_counter()
        value = receval.evaluate(qrels, run, [metric], ties=ties).mean[metric]
        times.append(time.perf_counter() - start)
    return statistics.median(times), value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "docs",
                                                      "benchmarks.md"))  # fmt: skip
    args = parser.parse_args()
    load_before = os.getloadavg()
    n_users = 200 if args.quick else 2_000
    n_tied, n_rel = (300, 30) if args.quick else (1_000, 50)
    workloads = {
        f"quantised, {n_users:,} users x 100": quantised(n_users, 100, 0),
        f"all tied, {n_tied:,} items, {n_rel} relevant": all_tied(n_tied, n_rel, 0),
    }
    lines = [
        "| workload | metric | trec (s) | average (s) | ratio | value, trec | value, average |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, (qrels, run) in workloads.items():
        for metric in METRICS:
            one, v_one = timed(qrels, run, metric, "trec", 3)
            avg, v_avg = timed(qrels, run, metric, "average", 3)
            lines.append(
                f"| {name} | `{metric}` | {one:.3g} | {avg:.3g} | {avg / one:.3g}x | "
                f"{v_one:.6g} | {v_avg:.6g} |"
            )
            print(lines[-1], flush=True)
    text = f"""(writes this section; `--quick`
prints only). Every metric's expected value over the orders of tied scores is an
exact closed form (docs/conventions.md, "Ties"); this measures its cost against
one order (`ties="trec"`), median of 3 calls in one process. "Quantised": scores
take 10 values, so about 10 items share each score, 10 relevant items per user.
"All tied": one user's {n_tied:,} items share one score, {n_rel} relevant: the
worst case for interpolated precision (`iprec`, `11pt_avg`), whose form costs
O((s h)^2) for a block of s items with h relevant. The `ties="trec"` time includes
the report's tie disclosure, which skips that form beyond a cost budget
(docs/conventions.md, `n_users_tie_dependent`)."""
    title = 'Tie-averaged expectations (`ties="average"`)'
    load = (load_before, os.getloadavg())
    write_section("ties", title, text, lines, load=load, out=os.path.abspath(args.out),
                  print_only=args.quick)  # fmt: skip


if __name__ == "__main__":
    main()

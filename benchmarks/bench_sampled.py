"""Sampled metrics against full ranking on synthetic data with known truth.

    python benchmarks/bench_sampled.py              # 2,000 users x 3,000 items, rewrites docs
    python benchmarks/bench_sampled.py --quick      # 500 users, print only
    python benchmarks/bench_sampled.py --out /tmp/bench.md

Each user has one held-out item; a model is the full rank it gives that item.
Model A puts it in the top 10 for 30% of users and anywhere below for the
rest; model B always puts it at ranks 20-79. Their full-ranking recall@10 is
about 0.30 and exactly 0. Ranking the held-out item against 100 uniform
negatives (receval.sample_negatives) the sampled recall@10 of B is about 1 and
A's about 0.37: sampling reverses the order. The corrected metrics of
Krichene and Rendle (receval.corrected_metric, through evaluate(correction=))
are reported beside, with the full-ranking value from the same run.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import receval
from _harness import write_section

METRIC = "recall@10"
CORRECTIONS = ("rank", "minimal_bias", "bv")


def model_ranks(kind: str, n_users: int, size: int, rng: np.random.Generator) -> np.ndarray:
    """The full rank (1-based) each user's held-out item gets from model ``kind``."""
    if kind == "A":
        top = rng.random(n_users) < 0.3
        return np.where(top, rng.integers(1, 11, n_users), rng.integers(11, size + 1, n_users))
    return rng.integers(20, 80, n_users)


def full_run(held: np.ndarray, ranks: np.ndarray, size: int, rng: np.random.Generator) -> Any:
    """A run ranking the whole catalogue: the held-out item at its rank, the others shuffled."""
    n_users = len(held)
    order = np.argsort(rng.random((n_users, size)), axis=1)  # a random order of the items
    rows = np.arange(n_users)
    at = np.argmax(order == held[:, None], axis=1)  # where the held-out item fell
    swap = order[rows, ranks - 1].copy()
    order[rows, ranks - 1] = held
    order[rows, at] = swap
    scores = np.broadcast_to(np.arange(size, 0, -1, dtype=np.float64), (n_users, size))
    users = np.repeat(np.arange(n_users), size)
    return receval.Run(users, order.ravel(), scores.ravel(), name="model")


def simulate(n_users: int, size: int, n: int, seed: int) -> list[dict[str, float]]:
    rng = np.random.default_rng(seed)
    held = rng.integers(0, size, n_users)
    qrels = receval.Qrels(np.arange(n_users), held)
    candidates = receval.sample_negatives(qrels, size, n=n, seed=seed)
    rows = []
    for kind in ("A", "B"):
        ranks = model_ranks(kind, n_users, size, rng)
        run = full_run(held, ranks, size, rng)
        rep = receval.sampled_report(qrels, run, [METRIC], candidates=candidates)
        assert rep.run_covers_catalog
        row = {"model": kind, "truth": float((ranks <= 10).mean()), "full": rep.full[METRIC]}
        row["sampled"] = rep.sampled[METRIC]
        row.update({c: rep.corrected[c][METRIC] for c in CORRECTIONS})
        rows.append(row)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--users", type=int, default=2000)
    parser.add_argument("--items", type=int, default=3000)
    parser.add_argument("--negatives", type=int, default=100)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "docs",
                                                      "benchmarks.md"))  # fmt: skip
    args = parser.parse_args()
    load_before = os.getloadavg()
    users = 500 if args.quick else args.users
    lines = []
    header = "| seed | model | full | sampled | rank | minimal_bias | bv |"
    lines += [header, "|---|---|---|---|---|---|---|"]
    agree = {c: 0 for c in ("sampled", *CORRECTIONS)}
    for seed in range(args.seeds):
        rows = simulate(users, args.items, args.negatives, seed)
        for row in rows:
            cells = " | ".join(f"{row[c]:.4g}" for c in ("full", "sampled", *CORRECTIONS))
            lines.append(f"| {seed} | {row['model']} | {cells} |")
        a, b = rows
        for c in agree:
            agree[c] += (a[c] > b[c]) == (a["full"] > b["full"])
    start = time.perf_counter()
    qrels = receval.Qrels(np.arange(100_000), np.zeros(100_000, dtype=np.int64))
    receval.sample_negatives(qrels, 20_000, n=100, seed=0)
    took = time.perf_counter() - start
    summary = ", ".join(f"{c} {agree[c]}/{args.seeds}" for c in agree)
    after = f"""Order of A and B as the full ranking has it: {summary} seeds.
`sample_negatives` of 100 negatives for 100,000 users from 20,000 items: {took:.1f} s."""
    text = f"""(writes this section; `--quick`
prints only). {users:,} users with one held-out item each, a catalogue of
{args.items:,} items, {args.negatives} uniform negatives per user
(`receval.sample_negatives`, one seed per row group). Model A puts the held-out
item in the top 10 for 30% of users and uniformly below for the rest; model B
always ranks it 20-79. "full" is recall@10 of the full ranking (the truth: A
about 0.3, B 0); "sampled" ranks the held-out item among its candidates only;
"rank", "minimal_bias" and "bv" (gamma 0.1) are Krichene and Rendle's
corrections of the sampled value (`evaluate(..., candidates=, correction=)`).
Minimal bias is nearly unbiased but its corrected values alternate in sign and
are large, so its mean over users has a large variance; with 100 negatives its
least-squares problem has a condition number near 1e16, so rounding alone decides
its values (receval warns so; they change with the order of the arithmetic), where
BV's gamma keeps it near 10."""
    load = (load_before, os.getloadavg())
    write_section("sampled", "Sampled metrics and their corrections", text, lines, load=load,
                  after=after, out=os.path.abspath(args.out), print_only=args.quick)  # fmt: skip


if __name__ == "__main__":
    main()

"""`evaluate` from Parquet files in a new process, phase by phase.

    python benchmarks/bench_parquet_process.py              # 1M users x 100, 4 runs
    python benchmarks/bench_parquet_process.py --users 100000 --repeat 2

Writes the data of ``bench_ranking.make_data`` to Parquet once, then starts a new
Python process per run that imports receval, reads the qrels and the run with
``Qrels.from_file`` / ``Run.from_file`` and evaluates five metrics; prints each
phase's median and the largest peak memory of the runs. Prints only (the core
section of ``docs/benchmarks.md`` quotes it).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

WRITE = f"""
import sys
sys.path.insert(0, {os.path.dirname(os.path.abspath(__file__))!r})
from bench_ranking import make_data
qdf, rdf = make_data(int(sys.argv[1]))
qdf.to_parquet(sys.argv[2], index=False)
rdf.to_parquet(sys.argv[3], index=False)
"""

CHILD = """
import json, resource, sys, time
t0 = time.perf_counter()
import receval
q = receval.Qrels.from_file(sys.argv[1])
t1 = time.perf_counter()
r = receval.Run.from_file(sys.argv[2])
t2 = time.perf_counter()
receval.evaluate(q, r, ["ndcg@10", "map@100", "mrr", "recall@100", "precision@10"],
                 profile="trec_eval")
t3 = time.perf_counter()
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
print(json.dumps({"qrels": t1 - t0, "run": t2 - t1, "evaluate": t3 - t2, "total": t3 - t0,
                  "peak_gib": peak}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=4)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        qpath, rpath = os.path.join(tmp, "q.parquet"), os.path.join(tmp, "r.parquet")
        # written by a process of its own: a child's peak memory counts its parent's
        # at the fork, so this process stays small
        subprocess.run([sys.executable, "-c", WRITE, str(args.users), qpath, rpath], check=True)
        runs = []
        for _ in range(args.repeat):
            out = subprocess.run(
                [sys.executable, "-c", CHILD, qpath, rpath],
                check=True, capture_output=True, text=True,
            )  # fmt: skip
            runs.append(json.loads(out.stdout.splitlines()[-1]))
            print(runs[-1], flush=True)
    peak = max(r.pop("peak_gib") for r in runs)
    phases = ", ".join(f"{k} {statistics.median(r[k] for r in runs):.2f} s" for k in runs[0])
    print(
        f"{args.users:,} users x 100, {args.repeat} new processes, medians: {phases}; "
        f"peak {peak:.2f} GiB; load {os.getloadavg()[0]:.1f}"
    )


if __name__ == "__main__":
    main()

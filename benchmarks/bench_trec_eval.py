"""Benchmark of ``receval trec-eval -m all_trec`` against the trec_eval binary and pytrec_eval.

    python benchmarks/bench_trec_eval.py --trec-eval "$(bash benchmarks/build_trec_eval.sh)"
    python benchmarks/bench_trec_eval.py --trec-eval PATH --users 10000 --quick   # print only

On a TREC run of ``--users`` queries x 100 documents and its qrels (5% relevant,
written once by ``bench_core.write_run``): each tool in its own new process, one
run each (trec_eval takes about a minute per 100k queries), with its wall time
and peak memory (``/usr/bin/time``):

- ``receval trec-eval -m all_trec qrels run`` (the summary; every all_trec measure);
- ``trec_eval -m all_trec qrels run`` (trec_eval 10.0, built from usnistgov/trec_eval
  by ``benchmarks/build_trec_eval.sh``);
- pytrec_eval reading both files (a dict of dicts, as its README does) and
  evaluating every measure it supports (``pytrec_eval.supported_measures``).

Then the values: every ``measure all value`` line of receval's output must
equal trec_eval's (the same string), and pytrec_eval's means of the measures it
shares are compared to receval's at 1e-4 (trec_eval prints four decimals).
Writes the ``trec-eval`` section of ``docs/benchmarks.md`` unless ``--quick``.
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import tempfile
import time

from _harness import compile_package, environment, peer_versions, replace_section
from bench_core import PYTREC_READ, write_run

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PY = sys.executable

PYTREC = (
    PYTREC_READ
    + r"""
import json
res = pytrec_eval.RelevanceEvaluator(qrels, pytrec_eval.supported_measures).evaluate(run)
names = sorted(next(iter(res.values())))
means = {m: sum(r[m] for r in res.values()) / len(res) for m in names}
print(json.dumps({"_queries": len(res), **means}))
"""
)


def timed(cmd: list[str]) -> tuple[float, float, str]:
    """Wall time (s), peak resident memory (MiB) and stdout of a new process."""
    start = time.perf_counter()
    out = subprocess.run(
        ["/usr/bin/time", "-f", "%M", *cmd], capture_output=True, text=True, check=True
    )
    elapsed = time.perf_counter() - start
    return elapsed, int(out.stderr.strip().splitlines()[-1]) / 1024, out.stdout


def summary(text: str) -> dict[str, str]:
    return {
        f[0].strip(): f[2] for f in (line.split("\t") for line in text.splitlines()) if len(f) == 3
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trec-eval", required=True, help="the trec_eval binary")
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--quick", action="store_true", help="print only")
    args = parser.parse_args()
    compile_package()
    with tempfile.TemporaryDirectory() as directory:
        qrels, run = write_run(directory, args.users)
        size = os.path.getsize(run) / 2**20
        load = os.getloadavg()[0]
        rows = {
            "receval trec-eval -m all_trec": timed(
                [PY, "-m", "receval", "trec-eval", "-m", "all_trec", qrels, run]
            ),
            "trec_eval -m all_trec": timed([args.trec_eval, "-m", "all_trec", qrels, run]),
            "pytrec_eval (read + every supported measure)": timed([PY, "-c", PYTREC, qrels, run]),
        }
        load_after = os.getloadavg()[0]
    ours, theirs = (
        summary(rows["receval trec-eval -m all_trec"][2]),
        summary(rows["trec_eval -m all_trec"][2]),
    )
    differ = sorted(m for m in theirs if ours.get(m) != theirs[m])
    import json

    py = json.loads(rows["pytrec_eval (read + every supported measure)"][2])
    n_queries = py.pop("_queries")
    shared = {}
    for m, v in py.items():
        if m not in ours or m == "runid":
            continue
        if m.startswith("num_") and m != "num_q":
            v *= n_queries  # pytrec_eval's mean of the per-query counts; trec_eval's sum
        elif m == "num_q":
            v = n_queries
        elif m.startswith("gm_"):
            v = math.exp(v)  # pytrec_eval gives each query's log(max(value, 1e-5))
        shared[m] = v
    py_differ = sorted(m for m, v in shared.items() if abs(float(ours[m]) - v) > 1e-4)
    # pytrec_eval is trec_eval 9: scores compared as floats, num_q of the evaluated queries
    t_ours = rows["receval trec-eval -m all_trec"][0]
    lines = [
        "## `receval trec-eval -m all_trec` against trec_eval and pytrec_eval",
        "",
        "Reproduce: `python benchmarks/bench_trec_eval.py --trec-eval "
        '"$(bash benchmarks/build_trec_eval.sh)"` (writes this section). Each tool in its own '
        "new process, one run each, on the same files.",
        "",
        environment(),
        f"{peer_versions('pytrec-eval-terrier')}, trec_eval 10.0 (usnistgov/trec_eval v10.0)",
        f"- load average {load:.1f} before, {load_after:.1f} after",
        "",
        f"A TREC run of {args.users:,} queries x 100 documents ({size:.0f} MiB) and its qrels "
        "(5% relevant):",
        "",
        "| command | time (s) | peak memory (MiB) | trec_eval / this time |",
        "| --- | --- | --- | --- |",
        *[
            f"| {name} | {t:.2f} | {mib:.0f} | {rows['trec_eval -m all_trec'][0] / t:.1f}x |"
            for name, (t, mib, _) in rows.items()
        ],
        "",
        f"receval is {rows['trec_eval -m all_trec'][0] / t_ours:.1f}x faster than trec_eval and "
        f"{rows['pytrec_eval (read + every supported measure)'][0] / t_ours:.1f}x faster than "
        "pytrec_eval.",
        "",
        f"Values: {len(theirs) - len(differ)} of trec_eval's {len(theirs)} summary lines are "
        f"printed identically by receval"
        + (f"; these differ: {', '.join(differ)}." if differ else ".")
        + f" pytrec_eval's values of the {len(shared)} measures it shares (its per-query "
        "counts summed, its per-query logs of gm_* exponentiated) agree within 1e-4"
        + (
            f" except {', '.join(py_differ)} (pytrec_eval bundles trec_eval 9.0.8, not 10.0)."
            if py_differ
            else "."
        ),
    ]
    text = "\n".join(lines)
    print(text)
    if not args.quick:
        replace_section(os.path.join(ROOT, "docs", "benchmarks.md"), "trec-eval", text)


if __name__ == "__main__":
    main()

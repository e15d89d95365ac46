"""Benchmark of the compiled core: fixed costs and small calls, against the peers.

    python benchmarks/bench_core.py            # writes the "core" section of docs/benchmarks.md
    python benchmarks/bench_core.py --quick    # fewer runs, print only

Every case is timed with ``_harness.interleaved``: the cases of one table in turn
(A B A B ...), the same number of runs each, medians, and the load average
around the rounds.

1. New processes: ``receval rank -m ndcg@10 -m map`` on trec_eval's test files
   against pytrec_eval evaluating the same files in its own new process; and
   ``import receval`` + ``roc_auc_score`` on 1,000 rows.
2. Calls on 1,000 rows (blocks of 200 calls, per call): receval's ``log_loss``,
   ``roc_auc_score`` and ``gauc_score`` against scikit-learn's ``log_loss`` and
   ``roc_auc_score``; ``evaluate`` on 3 users given as dicts against pytrec_eval's
   evaluator made and run on them.
3. ``receval rank`` end to end on a TREC run of ``--users`` users x 100 items
   (written once into a temporary directory) against pytrec_eval reading and
   evaluating the same files: time and peak memory of each process.
   With ``--trec-eval PATH`` (a trec_eval 10.0 binary, built by
   ``benchmarks/build_trec_eval.sh``), trec_eval's own process on the same files
   too: on the test files interleaved like the others, on the large run once
   (it takes about a minute).
4. With ``--large N`` (e.g. 1000000; off by default: writing the files takes
   minutes and they take N x 3.4 kB of disk): ``receval rank`` alone on a run of
   N users x 100 items, one run after the file is written (pytrec_eval would
   need tens of GB of memory there).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from _harness import interleaved, load_line, write_section

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TREC = os.path.join(ROOT, "tests", "peers", "data", "trec_eval")
PY = sys.executable
RECEVAL = [PY, "-m", "receval"]

# pytrec_eval's process: read both files into dicts of dicts, as its README does
PYTREC_READ = r"""
import sys, pytrec_eval
def read(path, run):
    out = {}
    with open(path) as fh:
        for line in fh:
            f = line.split()
            if not f:
                continue
            if run:
                out.setdefault(f[0], {})[f[2]] = float(f[4])
            else:
                out.setdefault(f[0], {})[f[2]] = int(f[3])
    return out
qrels, run = read(sys.argv[1], False), read(sys.argv[2], True)
"""
PYTREC = (
    PYTREC_READ
    + r"""
res = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "map"}).evaluate(run)
print(sum(r["ndcg_cut_10"] for r in res.values()) / len(res))
"""
)


def _process(cmd: list[str]) -> dict[str, float]:
    """Run a command; its wall time and the peak resident memory of the child (MiB)."""
    start = time.perf_counter()
    out = subprocess.run(
        ["/usr/bin/time", "-f", "%M", *cmd], capture_output=True, text=True, check=True
    )
    elapsed = time.perf_counter() - start
    return {"seconds": elapsed, "peak_mib": int(out.stderr.strip().splitlines()[-1]) / 1024}


def _median(xs: list[float]) -> float:
    ys = sorted(xs)
    return ys[len(ys) // 2] if len(ys) % 2 else (ys[len(ys) // 2 - 1] + ys[len(ys) // 2]) / 2


def processes(pairs: dict[str, list[str]], runs: int) -> dict[str, dict[str, float]]:
    """Interleaved new processes: median time, largest peak memory."""
    results: dict[str, list[dict[str, float]]] = {k: [] for k in pairs}
    for cmd in pairs.values():
        _process(cmd)  # warm the file cache
    for _ in range(runs):
        for name, cmd in pairs.items():
            results[name].append(_process(cmd))
    out = {}
    for name, rs in results.items():
        out[name] = {
            "seconds": _median([r["seconds"] for r in rs]),
            "peak_mib": max(r["peak_mib"] for r in rs),
        }
    return out


def write_run(directory: str, n_users: int, k: int = 100) -> tuple[str, str]:
    rng = np.random.default_rng(0)
    run_path = os.path.join(directory, f"run_{n_users}.txt")
    qrels_path = os.path.join(directory, f"qrels_{n_users}.txt")
    with open(run_path, "w") as run, open(qrels_path, "w") as qrels:
        for start in range(0, n_users, 10_000):
            users = np.arange(start, min(start + 10_000, n_users))
            items = rng.integers(0, 1000, (len(users), k)) + np.arange(k) * 1000
            scores = np.sort(rng.random((len(users), k)), axis=1)[:, ::-1]
            lines = []
            for u, its, ss in zip(users, items, scores, strict=True):
                lines.extend(
                    f"u{u} Q0 i{it} {r + 1} {s:.6f} run\n"
                    for r, (it, s) in enumerate(zip(its, ss, strict=True))
                )
            run.write("".join(lines))
            rel = rng.random((len(users), k)) < 0.05
            qrels.write(
                "".join(
                    f"u{u} 0 i{it} 1\n"
                    for u, its, rs in zip(users, items, rel, strict=True)
                    for it, r in zip(its, rs, strict=True)
                    if r
                )
            )
    return qrels_path, run_path


def large_run(n_users: int) -> list[str]:
    """``receval rank`` once on a run of ``n_users`` users x 100 items (the files
    just written, so in the page cache): the lines of its table."""
    with tempfile.TemporaryDirectory() as directory:
        qrels, run = write_run(directory, n_users)
        size = os.path.getsize(run) / 2**30
        load = os.getloadavg()[0]
        got = _process([*RECEVAL, "rank", "--qrels", qrels, "--run", run, "-m", "ndcg@10",
                        "-m", "map"])  # fmt: skip
    return [
        f"End to end on a TREC run of {n_users:,} users x 100 items ({size:.1f} GiB), one run "
        f"(load average {load:.1f}):",
        "",
        "| command | time (s) | peak memory (MiB) |",
        "| --- | --- | --- |",
        f"| receval rank -m ndcg@10 -m map | {got['seconds']:.1f} | {got['peak_mib']:.0f} |",
    ]


def small_calls(runs: int) -> list[tuple[str, float, float]]:
    from sklearn.metrics import log_loss, roc_auc_score

    import receval as rv

    rng = np.random.default_rng(0)
    y = (rng.random(1000) < 0.3).astype(np.int8)
    p = rng.random(1000) * 0.98 + 0.01
    g = np.repeat(np.arange(100), 10)  # 100 groups of 10 rows
    loop = _block
    cases = [
        ("receval log_loss", loop(lambda: rv.log_loss(y, p))),
        ("scikit-learn log_loss", loop(lambda: log_loss(y, p))),
        ("receval roc_auc_score", loop(lambda: rv.roc_auc_score(y, p))),
        ("scikit-learn roc_auc_score", loop(lambda: roc_auc_score(y, p))),
        ("receval gauc_score (100 groups of 10)", loop(lambda: rv.gauc_score(y, p, groups=g))),
    ]
    got = interleaved([f for _, f in cases], runs)
    return [
        (name, m.seconds / BLOCK * 1e6, m.load[1]) for (name, _), m in zip(cases, got, strict=True)
    ]


BLOCK = 200  # calls a timed block of the small calls makes


def _block(f):
    """``f`` called BLOCK times (one timed case of the small calls)."""

    def run():
        for _ in range(BLOCK):
            f()

    return run


def small_evaluations(runs: int) -> list[tuple[str, float]]:
    """``evaluate`` on a few users given as dicts (a test, a per-query loop) against
    pytrec_eval's evaluator made and run on the same dicts, per call."""
    import pytrec_eval

    import receval as rv

    qrels = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d4": 1}, "q3": {"d1": 3, "d5": 1}}
    run = {
        "q1": {"d1": 0.5, "d3": 0.2, "d7": 0.9},
        "q2": {"d4": 0.1, "d2": 0.3},
        "q3": {"d5": 0.4, "d1": 0.1},
    }
    five = ["ndcg@10", "map", "mrr", "recall@10", "P@10"]
    trec = {"ndcg_cut.10", "map", "recip_rank", "recall.10", "P.10"}
    built = rv.Qrels.from_dict(qrels), rv.Run.from_dict(run)
    loop = _block
    cases = [
        ("receval evaluate, ndcg@10", loop(lambda: rv.evaluate(qrels, run, "ndcg@10"))),
        ("pytrec_eval, ndcg_cut.10", loop(lambda: pytrec_eval.RelevanceEvaluator(
            qrels, {"ndcg_cut.10"}).evaluate(run))),
        ("receval evaluate, 5 metrics", loop(lambda: rv.evaluate(qrels, run, five))),
        ("pytrec_eval, the same 5", loop(lambda: pytrec_eval.RelevanceEvaluator(
            qrels, trec).evaluate(run))),
        ("receval evaluate of a built Qrels and Run, 5 metrics",
         loop(lambda: rv.evaluate(*built, five))),
    ]  # fmt: skip
    got = interleaved([f for _, f in cases], runs)
    return [(name, m.seconds / BLOCK * 1e6) for (name, _), m in zip(cases, got, strict=True)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer runs; print only")
    parser.add_argument("--users", type=int, default=100_000, help="users of the large TREC run")
    parser.add_argument(
        "--large", type=int, default=0, help="users of a TREC run for receval alone (0: none)"
    )
    parser.add_argument(
        "--trec-eval", default=None, help="a trec_eval binary to time too (build_trec_eval.sh)"
    )
    args = parser.parse_args()
    runs = 3 if args.quick else 7
    load_before = os.getloadavg()
    lines: list[str] = []
    small = [os.path.join(TREC, "qrels.test"), os.path.join(TREC, "results.test")]
    got = processes(
        {
            "receval rank -m ndcg@10 -m map": [*RECEVAL, "rank", "--qrels", small[0], "--run",
                                               small[1], "-m", "ndcg@10", "-m", "map"],
            "pytrec_eval (read + evaluate), new process": [PY, "-c", PYTREC, *small],
            **({"trec_eval -m ndcg_cut.10 -m map, new process": [args.trec_eval, "-m",
                "ndcg_cut.10", "-m", "map", *small]} if args.trec_eval else {}),
            "import receval + roc_auc_score on 1k rows": [PY, "-c", "import numpy as np, receval; "
                "receval.roc_auc_score(np.arange(1000) % 2, np.linspace(0, 1, 1000))"],
        },
        runs,
    )  # fmt: skip
    lines += [
        "New processes on trec_eval's test files (`qrels.test`, `results.test`):",
        "",
        "| command | median (s) | peak memory (MiB) |",
        "| --- | --- | --- |",
        *[f"| {k} | {v['seconds']:.3f} | {v['peak_mib']:.0f} |" for k, v in got.items()],
        "",
        "Calls on 1,000 rows (blocks of 200 calls; per call):",
        "",
        "| call | median per call (µs) |",
        "| --- | --- |",
        *[f"| {name} | {us:.0f} |" for name, us, _ in small_calls(runs)],
        "",
        "`evaluate` on 3 users given as dicts (blocks of 200 calls; per call; pytrec_eval "
        "makes its evaluator in each call, as the dicts change from call to call):",
        "",
        "| call | median per call (µs) |",
        "| --- | --- |",
        *[f"| {name} | {us:.0f} |" for name, us in small_evaluations(runs)],
        "",
    ]
    with tempfile.TemporaryDirectory() as directory:
        qrels, run = write_run(directory, args.users)
        size = os.path.getsize(run) / 2**20
        got = processes(
            {
                "receval rank -m ndcg@10 -m map": [*RECEVAL, "rank", "--qrels", qrels, "--run",
                                                   run, "-m", "ndcg@10", "-m", "map"],
                "pytrec_eval (read + evaluate)": [PY, "-c", PYTREC, qrels, run],
            },
            max(1, runs // 2),
        )  # fmt: skip
        if args.trec_eval:  # about a minute: once
            one = _process([args.trec_eval, "-m", "ndcg_cut.10", "-m", "map", qrels, run])
            got["trec_eval -m ndcg_cut.10 -m map (one run)"] = one
    ours, theirs = got["receval rank -m ndcg@10 -m map"], got["pytrec_eval (read + evaluate)"]
    lines += [
        f"End to end on a TREC run of {args.users:,} users x 100 items ({size:.0f} MiB) and "
        "its qrels (5% relevant):",
        "",
        "| command | median (s) | peak memory (MiB) |",
        "| --- | --- | --- |",
        *[f"| {k} | {v['seconds']:.2f} | {v['peak_mib']:.0f} |" for k, v in got.items()],
        "",
        f"pytrec_eval / receval time: {theirs['seconds'] / ours['seconds']:.1f}x.",
    ]
    if args.trec_eval:
        te = got["trec_eval -m ndcg_cut.10 -m map (one run)"]
        lines[-1] += f" trec_eval / receval time: {te['seconds'] / ours['seconds']:.0f}x."
    if args.large:
        lines += ["", *large_run(args.large)]
    text = (
        "(writes this section; `--quick` prints only). Cases of one table are timed in turn "
        f"(A B A B ...), {runs} runs each after a warm-up, medians; new processes include "
        "Python's start."
    )
    print("\n".join(lines))
    load = (load_before, os.getloadavg())
    print(load_line(*load))
    if not args.quick:
        peers = ("pytrec-eval-terrier", "scikit-learn")
        write_section("core", "The compiled core: fixed costs and small calls", text, lines,
                      peers=peers, load=load)  # fmt: skip


if __name__ == "__main__":
    main()

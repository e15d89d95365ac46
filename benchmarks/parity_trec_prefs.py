"""Parity of ``receval trec-eval -R prefs / -R qrels_prefs`` with the trec_eval binary.

Writes random preference files (judgment groups of one sub-group and of several,
tied levels, level 0, a document repeated in a sub-group, docnos whose byte order
differs from their numeric order) or qrels read as preferences, and random runs
(tied scores, unjudged documents, queries absent from the run or from the
judgments), runs ``trec_eval -q -m all_prefs`` on them under random ``-c``, ``-M``
and ``-n``, and compares the whole output of :func:`receval.trec.trec_eval.trec_eval`
with the binary's, byte for byte; where trec_eval stops with an error, receval
must too.

Not a test of the suite: it needs the trec_eval binary (10.0), which CI lacks.

    python benchmarks/parity_trec_prefs.py --trec-eval PATH --cases 300
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from receval.exceptions import RecevalError
from receval.trec.trec_eval import TrecEvalAbort, trec_eval

NAMES = ["d1", "d10", "d2", "D3", "a-7", "d11", "x", "d100", "Z9", "d3", "b", "d20", "c-1", "e"]


def _docs(rng: np.random.Generator, k: int) -> list[str]:
    return [str(x) for x in rng.choice(NAMES, size=k, replace=False)]


def prefs_file(
    rng: np.random.Generator, queries: list[str], qrels: bool, negative: bool = False
) -> tuple[str, dict]:
    """Random judgments, and each query's judged documents."""
    lines, judged = [], {}
    for qid in queries:
        pool = _docs(rng, int(rng.integers(2, 12)))
        judged[qid] = pool
        for jg in range(int(rng.integers(1, 4))):
            jg_name = f"{jg}" if qrels else f"u{jg}"
            choices = [0, 0, 1, 2, 3, -1] if negative else [0, 0, 1, 2, 3]
            truth = {d: int(rng.choice(choices)) for d in pool}
            n_sub = 1 if qrels or rng.random() < 0.5 else int(rng.integers(2, 4))
            noisy = rng.random() < 0.05  # a level against the group's order: an error
            for sub in range(n_sub):
                docs = [d for d in pool if rng.random() < (0.8 if n_sub == 1 else 0.5)]
                # positive levels rescaled per sub-group: only the order counts
                scale = float(rng.choice([1.0, 2.0, 0.5]))
                for d in docs:
                    level = truth[d] * scale if truth[d] > 0 else truth[d]
                    if noisy and rng.random() < 0.3:
                        level = int(rng.integers(0, 4))
                    text = f"{level:g}"
                    copies = 2 if rng.random() < 0.05 else 1  # a repeated line
                    for _ in range(copies):
                        if qrels:
                            lines.append(f"{qid} {jg_name} {d} {text}")
                        else:
                            lines.append(f"{qid} {jg_name} s{sub} {d} {text}")
    order = rng.permutation(len(lines))
    return "".join(lines[i] + "\n" for i in order), judged


def run_file(rng: np.random.Generator, queries: list[str], judged: dict) -> str:
    lines = []
    for qid in queries:
        if rng.random() < 0.15:
            continue  # absent from the run
        pool = judged.get(qid, NAMES[:5])
        docs = [d for d in pool if rng.random() < 0.6]
        docs += [f"u{j}" for j in range(int(rng.integers(0, 4)))]  # unjudged
        for d in docs:
            score = float(rng.choice([0.1, 0.5, 0.9, 1.0, 0.25]))
            lines.append(f"{qid} Q0 {d} 1 {score} sys")
    if not lines:
        lines.append(f"{queries[0]} Q0 d1 1 1.0 sys")
    return "".join(x + "\n" for x in lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trec-eval", required=True)
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--negative",
        action="store_true",
        help="also negative levels (outside the documented format: see the report)",
    )
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    failures = agreed_errors = compared = stopped_alike = 0
    reasons: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for case in range(args.cases):
            qrels = rng.random() < 0.3
            queries = [f"q{j}" for j in range(int(rng.integers(1, 5)))]
            text, judged = prefs_file(rng, queries, qrels, args.negative)
            extra = queries + (["q9"] if rng.random() < 0.2 else [])
            prefs = Path(tmp, "prefs")
            run = Path(tmp, "run")
            prefs.write_text(text)
            run.write_text(run_file(rng, extra, judged))
            options = ["-q", "-m", "all_prefs", "-R", "qrels_prefs" if qrels else "prefs"]
            if rng.random() < 0.5:
                options.append("-c")
            if rng.random() < 0.3:
                options += ["-M", str(int(rng.integers(1, 6)))]
            if rng.random() < 0.1:
                options.append("-n")
            argv = [*options, str(prefs), str(run)]
            binary = subprocess.run(
                [args.trec_eval, *argv], capture_output=True, text=True, check=False
            )
            status, partial = 0, ""
            try:
                ours: str | None = trec_eval(argv)
            except RecevalError as exc:
                ours, error = None, str(exc)
                if isinstance(exc, TrecEvalAbort):
                    status, partial = exc.status, exc.output
            compared += 1
            if binary.returncode != 0 or ours is None:
                if binary.returncode != 0 and ours is None:
                    agreed_errors += 1
                    # where both stop: trec_eval's exit status and what it printed before
                    stopped_alike += status == binary.returncode and partial == binary.stdout
                    reasons[error.split(": ", 2)[-1][:60]] = (
                        reasons.get(error.split(": ", 2)[-1][:60], 0) + 1
                    )
                    continue
                failures += 1
                print(f"case {case}: trec_eval rc={binary.returncode} "
                      f"{binary.stderr.strip()!r}; receval "
                      f"{'error ' + error if ours is None else 'printed values'}")  # fmt: skip
                continue
            if ours != binary.stdout:
                failures += 1
                print(f"case {case}: {' '.join(options)}")
                mine, theirs = ours.splitlines(), binary.stdout.splitlines()
                for a, b in zip(mine, theirs, strict=False):
                    if a != b:
                        print(f"  receval   {a!r}\n  trec_eval {b!r}")
                        break
                Path(f"/tmp/prefs_fail_{case}.prefs").write_text(text)
                Path(f"/tmp/prefs_fail_{case}.run").write_text(run.read_text())
    print(
        f"{compared} cases: {compared - failures} equal byte for byte "
        f"({agreed_errors} where both stop with an error, {stopped_alike} of them with "
        f"trec_eval's exit status and partial output), {failures} differ."
    )
    for reason, count in sorted(reasons.items(), key=lambda x: -x[1]):
        print(f"  {count} x error: {reason}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

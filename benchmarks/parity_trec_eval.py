"""Parity of :func:`receval.evaluate` with the trec_eval binary on random inputs.

Writes random qrels and run files (ties in double and in single precision only,
items absent from the qrels, negative grades, queries absent from the run), runs
``trec_eval -q`` on them with ``-m all_trec`` and with parameterised measures, under
the options ``-l`` (relevance level), ``-M`` (depth), ``-J`` (judged only) and ``-c``
(queries absent from the run count), and compares every per-query line of every
measure with the value of ``evaluate``, given the metrics and options ``receval
trec-eval`` gives it, printed the way trec_eval prints it (``%.4f``, counts as integers).

With ``--cli``, the whole output of ``receval trec-eval`` (:func:`receval.trec.trec_eval.trec_eval`)
is compared with the binary's, byte for byte, under random options (``-q``, ``-c``, ``-n``,
``-l``, ``-M``, ``-J``) and measures (``all_trec`` and parameterised forms); where trec_eval
stops with an error (a qrels query absent from the run without ``-c``), receval must too.

With ``--jg``, the same for judgment groups (``-R qrels_jg``): random qrels_jg files (several
groups per query, named so that byte order differs from numeric order, groups without a
relevant document, negative grades), the measures ``map_avgjg``, ``P_avgjg`` and
``Rprec_mult_avgjg`` (default and given parameters, with ``runid`` and ``num_q``) and the
same random options; a measure trec_eval cannot compute from judgment groups must fail in
both.

Not a test of the suite: it needs the trec_eval binary (10.0), which CI lacks. With
``--record FILE`` (gzipped JSON), ``--cli`` and ``--jg`` also write every command line
they ran (options, the two files' text, trec_eval's exit status and standard output)
to FILE, which ``tests/peers/test_trec_eval_recorded.py`` replays without the binary
(``tests/peers/data/recorded_trec_eval.json.gz`` is
``--cli --cases 40 --record ...`` then ``--jg --cases 20 --record ...``, appended).

    python benchmarks/parity_trec_eval.py --cases 200 \
        --trec-eval "$(bash benchmarks/build_trec_eval.sh)"
    python benchmarks/parity_trec_eval.py --trec-eval PATH --cases 200 --cli
    python benchmarks/parity_trec_eval.py --trec-eval PATH --cases 200 --jg
    python benchmarks/parity_trec_eval.py --trec-eval PATH --cases 40 --cli \
        --record tests/peers/data/recorded_trec_eval.json.gz
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

import numpy as np

import receval
from receval._kernels import compiled
from receval.registry.trec_eval import trec_eval_metrics
from receval.trec.trec_eval import evaluate_options, parse_trec_eval_args

COUNTS = {"num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"}


def parameterised(rng):
    """Groups of trec_eval options of parameterised measures."""
    opts = []
    levels = sorted({round(float(x), 2) for x in rng.choice(np.arange(0, 101) / 100, 3)})
    opts += ["-m", "iprec_at_recall." + ",".join(f"{x:g}" for x in levels)]
    avg = sorted({round(float(x), 2) for x in rng.choice(np.arange(0, 101) / 100, 4)})
    opts += ["-m", "11pt_avg." + ",".join(f"{x:g}" for x in avg)]
    mults = sorted({round(float(x), 2) for x in rng.choice(np.arange(1, 60) / 10, 3)})
    opts += ["-m", "Rprec_mult." + ",".join(f"{x:g}" for x in mults)]
    u = [float(x) for x in rng.choice([-2.0, -1.0, -0.5, 0.0, 0.25, 1.0, 3.0], 4)]
    opts += ["-m", "utility." + ",".join(f"{x:g}" for x in u)]
    beta = float(rng.choice([0.25, 0.5, 2.0, 3.0]))
    opts += ["-m", f"set_F.{beta:g}"]
    # rbp alone: trec_eval's rbp reads its min and max gains uninitialised, so its
    # value depends on what the measures computed before it left on the stack
    p = float(rng.choice([0.5, 0.8, 0.95]))
    rbp_opts = ["-m", f"rbp.p={p:g}", "-m", f"rbp_resid.p={p:g}"]
    cuts = sorted({int(x) for x in rng.integers(1, 40, 2)})
    text = ",".join(str(x) for x in cuts)
    opts += ["-m", f"relative_P.{text}", "-m", f"unj.{text}"]
    # custom gain tables: grades 0..4 and gains with fractions (trec_eval sorts the
    # table comparing the integer part of gain differences)
    n_pairs = int(rng.integers(1, 4))
    grades = [int(x) for x in rng.choice(np.arange(0, 5), n_pairs, replace=False)]
    gains = [float(x) for x in rng.choice([0.0, 0.5, 1.5, 2.0, 3.0, 4.5, 9.0, -1.0], n_pairs)]
    text = ",".join(f"{g}={x:g}" for g, x in zip(grades, gains, strict=True))
    for name in ("ndcg", "G", "ndcg_rel", "Rndcg"):
        opts += ["-m", f"{name}.{text}"]
    return [opts, rbp_opts]


def random_files(rng, directory: Path, float32_ties: bool = False):
    n_q = int(rng.integers(1, 12))
    n_docs = int(rng.integers(5, 120))
    docs = [f"D{int(x)}" for x in rng.permutation(10 * n_docs)[:n_docs]]
    qrels_lines, run_lines = [], []
    pools = [[-1, 0, 1], [0, 1], [-1, 0, 1, 2, 3], [0, 1, 2, 4], [-2, 0, 0, 1, 2]]
    grade_pool = pools[int(rng.integers(0, len(pools)))]
    for qid in range(1, n_q + 1):
        judged = rng.permutation(n_docs)[: int(rng.integers(1, n_docs + 1))]
        grades = rng.choice(grade_pool, len(judged))
        if (grades < 0).all():
            grades[0] = 0  # trec_eval keeps stale levels for a query without grades >= 0
        for d, g in zip(judged, grades, strict=True):
            qrels_lines.append(f"{qid} 0 {docs[d]} {int(g)}")
        if rng.random() < 0.15 and qid > 1:
            continue  # absent from the run
        n = int(rng.integers(1, n_docs + 1))
        style = int(rng.choice([0, 1, 3] + ([2] if float32_ties else [])))
        ranked = rng.permutation(n_docs)[:n]
        if style == 0:
            scores = rng.random(n)
        elif style == 1:  # ties
            scores = rng.choice(np.linspace(0.0, 1.0, int(rng.integers(1, 6))), n)
        elif style == 2:  # equal in single precision only
            scores = 1.0 + rng.integers(0, 3, n) * 1e-12 + rng.integers(0, 3, n)
        else:
            scores = rng.choice([-1.5, 0.0, 0.25, 0.25, 2.0], n)
        for rank, (d, s) in enumerate(zip(ranked, scores, strict=True)):
            run_lines.append(f"{qid} Q0 {docs[d]} {rank} {float(s)!r} run")
    for extra in range(n_q + 1, n_q + 1 + int(rng.integers(0, 2))):  # only in the run
        run_lines.append(f"{extra} Q0 {docs[0]} 0 1.0 run")
    qrels = directory / "qrels"
    run = directory / "run"
    qrels.write_text("\n".join(qrels_lines) + "\n")
    run.write_text("\n".join(run_lines) + "\n")
    return qrels, run


def trec_eval_lines(binary, options, qrels, run):
    out = subprocess.run([binary, "-q", *options, str(qrels), str(run)],
                         capture_output=True, text=True, check=True).stdout  # fmt: skip
    lines = {}
    for line in out.splitlines():
        measure, qid, value = line.split()
        if qid != "all":
            lines[(measure, qid)] = value
    return lines


def evaluate_values(qrels, run, argv):
    """Per (printed name, query): the value :func:`receval.evaluate` gives for the
    trec_eval command line ``argv``, with the metrics and options ``receval
    trec-eval`` passes it (one definition of ``-c``, ``-l``, ``-M``, ``-J``)."""
    o = parse_trec_eval_args([*argv, str(qrels), str(run)])
    names = trec_eval_metrics(o.measures)
    metrics = list(dict.fromkeys(names.values()))
    q = receval.Qrels.from_file(qrels, file_format="trec")
    r = receval.Run.from_file(run, file_format="trec")
    report = receval.evaluate(q, r, metrics, profile="trec_eval", allow_unmatched=True,
                              **evaluate_options(o, metrics))  # fmt: skip
    users = [str(u) for u in report.users]
    return {
        (name, user): float(report.values[metric][i])
        for name, metric in names.items()
        for i, user in enumerate(users)
    }


def printed(measure, value):
    if math.isnan(value):
        return "nan"
    if measure in COUNTS:
        return str(int(value))
    return f"{value:.4f}"


def family(measure):
    """The measure's name without its parameters (relative_P_5 -> relative_P)."""
    for prefix in ("iprec_at_recall", "Rprec_mult", "relative_P", "P", "recall", "map_cut",
                   "ndcg_cut", "success", "unj", "11pt_avg", "utility", "set_F", "rbp_resid",
                   "rbp", "ndcg_rel", "ndcg", "Rndcg", "G"):  # fmt: skip
        if measure == prefix or measure.startswith(prefix + "_"):
            return prefix
    return measure


_CLI_MEASURES = [
    ["-m", "all_trec"],
    ["-m", "official", "-m", "P.3,7", "-m", "ndcg.1=3,2=9", "-m", "relstring.5"],
    ["-N", "5000", "-m", "utility.1,-1,0,0.01", "-m", "set_P", "-m", "num_rel"],
    ["-m", "iprec_at_recall.0.25,0.5", "-m", "11pt_avg.0.2,0.8", "-m", "set_F.0.5",
     "-m", "rbp.p=0.95", "-m", "success.2", "-m", "Rprec_mult.0.5", "-m", "map_cut.3"],
]  # fmt: skip


class _Outputs:
    """Whole outputs of receval trec-eval against the binary's: identical, refused by
    both, or different (with the first differing lines of up to 10 cases)."""

    def __init__(self, binary: str, record: str | None = None) -> None:
        self.binary = binary
        self.same = self.differ = self.both_fail = self.stopped_alike = 0
        self.examples: list = []
        self.record = record
        self.records: list[dict] = []

    def compare(self, case: int, argv: list[str]) -> None:
        from receval.exceptions import RecevalError
        from receval.trec.trec_eval import TrecEvalAbort, trec_eval

        theirs = subprocess.run([self.binary, *argv], capture_output=True, text=True)
        if self.record:
            self.records.append({
                "options": argv[:-2], "qrels": Path(argv[-2]).read_text(),
                "run": Path(argv[-1]).read_text(), "status": theirs.returncode,
                "stdout": theirs.stdout,
            })  # fmt: skip
        error, status, partial = "", 0, ""
        try:
            mine = trec_eval(argv)
        except RecevalError as exc:
            mine, error = None, str(exc)
            if isinstance(exc, TrecEvalAbort):
                status, partial = exc.status, exc.output
        if theirs.returncode != 0 and mine is None:
            self.both_fail += 1
            # where both stop: trec_eval's exit status and what it printed before
            self.stopped_alike += status == theirs.returncode and partial == theirs.stdout
        elif theirs.returncode == 0 and mine == theirs.stdout:
            self.same += 1
        else:
            self.differ += 1
            if len(self.examples) < 10:
                want = theirs.stdout.splitlines() if theirs.returncode == 0 else []
                got = mine.splitlines() if mine is not None else [f"error: {error}"]
                bad = [(w, g) for w, g in zip(want, got, strict=False) if w != g][:3]
                self.examples.append((case, " ".join(argv[:-2]), theirs.returncode, bad))

    def report(self) -> int:
        if self.record:  # appended to what the file holds
            path = Path(self.record)
            held = json.loads(gzip.decompress(path.read_bytes())) if path.exists() else {}
            version = subprocess.run([self.binary, "-v"], capture_output=True, text=True)
            held = {"version": (version.stdout or version.stderr).strip(),
                    "records": [*held.get("records", []), *self.records]}  # fmt: skip
            path.write_bytes(gzip.compress(json.dumps(held).encode(), mtime=0))
        for case, opts, rc, bad in self.examples:
            print(f"case {case} [{opts}] trec_eval exit {rc}: {bad}")
        total = self.same + self.differ + self.both_fail
        print(
            f"{total} command lines: {self.same} outputs identical, {self.both_fail} "
            f"refused by both ({self.stopped_alike} with trec_eval's exit status and "
            f"partial output), {self.differ} differ"
        )
        return 1 if self.differ else 0


def cli_parity(args) -> int:
    """``receval trec-eval`` against the binary, whole outputs byte for byte."""

    tally = _Outputs(args.trec_eval, args.record)
    with tempfile.TemporaryDirectory() as tmp:
        for case in range(args.cases):
            rng = np.random.default_rng([args.seed, case, 1])
            qrels, run = random_files(rng, Path(tmp), True)
            options = [o for o in ("-q", "-c", "-n") if rng.random() < 0.6]
            options.append(f"-l{int(rng.choice([1, 1, 2, 0]))}")
            if rng.random() < 0.3:
                options.append(f"-M{int(rng.choice([3, 10]))}")
            if rng.random() < 0.3:
                options.append("-J")
            measures = _CLI_MEASURES[int(rng.integers(0, len(_CLI_MEASURES)))]
            if "utility.1,-1,0,0.01" in measures and "-c" in options:
                # trec_eval zeroes a query absent from the run only under the bare name
                # utility (a documented difference): -c is not drawn with parameters
                options.remove("-c")
            argv = [*options, *measures, str(qrels), str(run)]
            tally.compare(case, argv)
    return tally.report()


def random_jg_files(rng, directory: Path):
    """A random qrels_jg file (query group document grade) and a run of its queries."""
    n_q = int(rng.integers(1, 8))
    n_docs = int(rng.integers(3, 60))
    docs = [f"D{int(x)}" for x in rng.permutation(10 * n_docs)[:n_docs]]
    names = ["0", "1", "2", "9", "10", "amy", "Bob", "u-7"]
    grade_pool = [[0, 1], [-1, 0, 1, 2], [0, 0, 0, 1, 3], [0], [-2, -1, 0, 1]][
        int(rng.integers(0, 5))
    ]
    qrels_lines, run_lines = [], []
    for qid in rng.permutation(n_q) + 1:
        groups = rng.permutation(names)[: int(rng.integers(1, 5))]
        for group in groups:
            judged = rng.permutation(n_docs)[: int(rng.integers(1, n_docs + 1))]
            for d in judged:
                qrels_lines.append(f"{qid} {group} {docs[d]} {int(rng.choice(grade_pool))}")
        if rng.random() < 0.15 and qid > 1:
            continue  # absent from the run
        n = int(rng.integers(1, n_docs + 1))
        ranked = rng.permutation(n_docs)[:n]
        if rng.random() < 0.5:
            scores = rng.random(n)
        else:  # ties
            scores = rng.choice(np.linspace(0.0, 1.0, int(rng.integers(1, 5))), n)
        for rank, (d, s) in enumerate(zip(ranked, scores, strict=True)):
            run_lines.append(f"{qid} Q0 {docs[d]} {rank} {float(s)!r} run")
    qrels_lines = [qrels_lines[i] for i in rng.permutation(len(qrels_lines))]  # interleaved
    if rng.random() < 0.3:  # not last: trec_eval reads past the end of a file ending in one
        qrels_lines.insert(int(rng.integers(0, len(qrels_lines))), "# a comment")
    qrels = directory / "qrels_jg"
    run = directory / "run"
    qrels.write_text("\n".join(qrels_lines) + "\n")
    run.write_text("\n".join(run_lines) + "\n")
    return qrels, run


_JG_MEASURES = [
    ["-m", "qrels_jg"],
    ["-m", "map_avgjg", "-m", "P_avgjg.1,3,7,40", "-m", "Rprec_mult_avgjg.0.5,1.0,1.5,3.0"],
    ["-m", "num_q", "-m", "P_avgjg", "-m", "runid"],
    ["-m", "official"],  # not computed from judgment groups: both fail
    ["-m", "map_avgjg", "-m", "P.5"],  # P needs -R qrels: both fail
]


def jg_parity(args) -> int:
    """``receval trec-eval -R qrels_jg`` against the binary, whole outputs byte for byte."""

    tally = _Outputs(args.trec_eval, args.record)
    with tempfile.TemporaryDirectory() as tmp:
        for case in range(args.cases):
            rng = np.random.default_rng([args.seed, case, 2])
            qrels, run = random_jg_files(rng, Path(tmp))
            options = ["-R", "qrels_jg"]
            options += [o for o in ("-q", "-c", "-n") if rng.random() < 0.6]
            options.append(f"-l{int(rng.choice([1, 1, 2, 0]))}")
            if rng.random() < 0.3:
                options.append(f"-M{int(rng.choice([3, 10]))}")
            if rng.random() < 0.3:
                options.append("-J")
            measures = _JG_MEASURES[int(rng.choice(len(_JG_MEASURES), p=[0.3, 0.3, 0.2, 0.1, 0.1]))]
            argv = [*options, *measures, str(qrels), str(run)]
            tally.compare(case, argv)
    return tally.report()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cli", action="store_true", help="compare receval trec-eval's output")
    ap.add_argument("--jg", action="store_true",
                    help="compare receval trec-eval -R qrels_jg's output")  # fmt: skip
    ap.add_argument("--trec-eval", default="/tmp/trec_eval_src/trec_eval")
    ap.add_argument("--cases", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--record", metavar="FILE",
                    help="with --cli or --jg: append each command line, its files and "
                    "trec_eval's output to FILE (gzipped JSON)")  # fmt: skip
    ap.add_argument("--float32-ties", action="store_true",
                    help="also scores equal in single precision only (trec_eval 10.0 compares "
                    "doubles; ties='trec' compares them in single precision)")  # fmt: skip
    args = ap.parse_args(argv)
    if compiled() is None:
        sys.exit("receval._core is not built")
    if args.cli:
        return cli_parity(args)
    if args.jg:
        return jg_parity(args)
    compared, bad = Counter(), Counter()
    skipped = 0
    examples = []
    with tempfile.TemporaryDirectory() as tmp:
        for case in range(args.cases):
            rng = np.random.default_rng([args.seed, case])
            qrels, run = random_files(rng, Path(tmp), args.float32_ties)
            in_run = {line.split()[0] for line in run.read_text().splitlines()}
            threshold = int(rng.choice([1, 1, 2, 0]))
            depth = int(rng.choice([0, 0, 3, 10]))
            judged_only = bool(rng.random() < 0.3)
            options = ["-c", f"-l{threshold}"]
            if depth:
                options.append(f"-M{depth}")
            if judged_only:
                options.append("-J")
            groups = [["-m", "all_trec"], *parameterised(rng)]
            for opts in groups:
                want = trec_eval_lines(args.trec_eval, options + opts, qrels, run)
                got = evaluate_values(qrels, run, options + opts)
                for (measure, qid), text in want.items():
                    if (measure, qid) not in got:
                        continue  # runid, relstring: not numbers
                    if qid not in in_run and measure.startswith(("utility_", "rbp_resid_")):
                        # -c: trec_eval zeroes utility and rbp_resid of a query absent
                        # from the run by name, so not when they carry parameters
                        skipped += 1
                        continue
                    mine = printed(measure, got[(measure, qid)])
                    expected = "nan" if text.lstrip("-") == "nan" else text
                    compared[family(measure)] += 1
                    if mine != expected:
                        bad[family(measure)] += 1
                        if len(examples) < 30:
                            examples.append((case, " ".join(options + opts), measure, qid,
                                             mine, expected))  # fmt: skip
    width = max(len(m) for m in compared)
    for measure in sorted(compared):
        print(f"{measure:<{width}}  {compared[measure]:7d} lines  {bad[measure]:5d} differ")
    for case, opts, measure, qid, mine, expected in examples:
        print(f"case {case} [{opts}] {measure} query {qid}: receval {mine}, trec_eval {expected}")
    total_bad = sum(bad.values())
    print(
        f"{sum(compared.values())} lines compared, {total_bad} differ ({skipped} lines of "
        "parameterised utility / rbp_resid of queries absent from the run not compared)"
    )
    return 1 if total_bad else 0


if __name__ == "__main__":
    sys.exit(main())

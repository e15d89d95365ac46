"""Record expeval's expected-exposure values for receval's parity tests.

expeval (github.com/diazf/expeval, the reference implementation of Diaz et al.,
"Evaluating Stochastic Rankings with Expected Exposure", CIKM 2020) is a
command-line script, not a package, so its numbers are recorded once by this
script, run by hand, and the test suite (``tests/peers/test_expeval_recorded.py``)
only reads the recorded file ``tests/peers/data/recorded_expeval.json``. This
file imports neither receval nor expeval (expeval runs in a subprocess), so
pytest's ``--doctest-modules`` import of it needs only the standard library.

Regenerate (from the repository root; expeval needs only Python 3)::

    git clone https://github.com/diazf/expeval /tmp/expeval
    python3 tests/peers/record_expeval.py /tmp/expeval

The commit of the expeval checkout is written into the file (``expeval_commit``).
The cases come from fixed seeds, so the same commit gives the same file.

What is recorded
----------------
Each case has qrels (``[query, item, grade]``; grades in -1..3, -1 and 0
non-relevant, some queries without a relevant item), a patience, whether grades
are binarised (expeval's ``-B``), and a run with scores drawn from a few values
(``run``: ``[query, item, score]``; many ties), or several sampled rankings
(``samples``: a list of ``[query, item, rank]`` runs). expeval reads no ties:
a run with ties is given to it as the sampled rankings in which every tie group
is rotated by 0, 1, ..., n - 1 positions (n the least common multiple of the
tie groups' sizes, each group rotated modulo its size), so that every item of a
tie fills each position of its group equally often: the expected exposure of
the tied ranking. ``expected`` holds, per query, expeval's unnormalised RBP values
(``-u rbp -U``): ``[disparity, relevance, difference]``, i.e. EE-D, EE-R, EE-L,
printed in full (``repr``; expeval's own output rounds them to 6 decimals with
``%f``): the driver ``_DRIVER`` runs expeval's ``main()`` with that one change.
Every query with a relevant item is ranked by the run (expeval scores a query
absent from the run with its bounds, not as an empty ranking).

Group cases (``group``: true) give each judged item one or two provider groups
(expeval's ``-G``, group ids in the qrels' second column) and record the
group-level values (expected exposure summed per group over the relevant items).
"""

from __future__ import annotations

import json
import math
import random
import subprocess
import sys
import tempfile
from pathlib import Path

OUT = Path(__file__).resolve().parent / "data" / "recorded_expeval.json"
SCORES = (0.1, 0.3, 0.5, 0.5, 0.7, 0.9)
PATIENCES = (0.3, 0.5, 0.8, 0.95)


# expeval's own main(), with its metric values printed in full (repr) instead of "%f"
_DRIVER = """
import sys
sys.path.insert(0, sys.argv[1])
import metrics
metrics.Metric.string = lambda self, normalized=False: repr(self.float(normalized))
import expeval
sys.argv = ["expeval.py", *sys.argv[2:]]
expeval.main()
"""


def _case(seed: int, group: bool) -> dict:
    rnd = random.Random(seed)
    n_items = rnd.randint(3, 14)
    items = [f"d{i}" for i in range(n_items)]
    qrels, runs, groups = [], [], {}
    for q in range(rnd.randint(1, 4)):
        qid = f"q{q}"
        judged = rnd.sample(items, rnd.randint(1, n_items))
        grades = [rnd.choice((-1, 0, 0, 1, 1, 2, 3)) for _ in judged]
        if q == 0:
            grades[0] = max(grades[0], 1)  # the first query has a relevant item
        if q == 3:
            grades = [min(g, 0) for g in grades]  # a query without one
        qrels += [[qid, d, g] for d, g in zip(judged, grades, strict=True)]
        if any(g > 0 for g in grades) or rnd.random() < 0.5:
            ranked = rnd.sample(items, rnd.randint(1, n_items))
            runs.append((qid, ranked))
    for qid, ranked in list(runs):
        relevant = {d for q, d, g in qrels if q == qid and g > 0}
        if relevant and not relevant & set(ranked) and rnd.random() < 0.5:
            runs.remove((qid, ranked))
            runs.append((qid, ranked + sorted(relevant)[:1]))
    # every query with a relevant item is ranked
    ranked_q = {q for q, _ in runs}
    for q in sorted({q for q, _, g in qrels if g > 0} - ranked_q):
        runs.append((q, rnd.sample(items, rnd.randint(1, n_items))))
    if group:
        for d in items:
            groups[d] = sorted(rnd.sample(range(4), rnd.choice((1, 1, 2))))
    case = {
        "seed": seed,
        "patience": rnd.choice(PATIENCES),
        "binary": rnd.random() < 0.3,
        "group": group,
        "qrels": qrels,
    }
    if group:
        case["item_groups"] = {d: g for d, g in groups.items()}
    if rnd.random() < 0.4:  # a stochastic policy given as sampled rankings
        case["samples"] = [
            [
                [q, d, i + 1]
                for q, ranked in runs
                for i, d in enumerate(rnd.sample(ranked, len(ranked)))
            ]
            for _ in range(rnd.randint(2, 5))
        ]
    else:
        case["run"] = [[q, d, rnd.choice(SCORES)] for q, ranked in runs for d in ranked]
    return case


def _rotations(run: list) -> list[list]:
    """The sampled rankings equivalent to a run with tied scores (see the docstring)."""
    by_query: dict[str, list] = {}
    for q, d, s in run:
        by_query.setdefault(q, []).append((d, s))
    ties = {}
    for q, rows in by_query.items():
        rows.sort(key=lambda r: -r[1])  # stable: input order within ties
        ties[q] = [
            [d for d, s in rows if s == score]
            for score in sorted({s for _, s in rows}, reverse=True)
        ]
    n = math.lcm(*(len(t) for groups in ties.values() for t in groups))
    samples = []
    for shift in range(n):
        sample = []
        for q, groups in ties.items():
            rank = 1
            for t in groups:
                for i in range(len(t)):
                    sample.append([q, t[(i + shift) % len(t)], rank])
                    rank += 1
        samples.append(sample)
    return samples


def _expeval(root: Path, case: dict) -> dict[str, list[float]]:
    samples = case.get("samples") or _rotations(case["run"])
    with tempfile.TemporaryDirectory() as tmp:
        qrels_path, run_path = Path(tmp) / "qrels", Path(tmp) / "run"
        groups = case.get("item_groups", {})
        qrels_path.write_text(
            "".join(
                f"{q} {'|'.join(map(str, groups.get(d, [-1])))} {d} {g}\n"
                for q, d, g in case["qrels"]
            )
        )
        run_path.write_text(
            "".join(f"{q} s{i} {d} {r} 0 run\n" for i, s in enumerate(samples) for q, d, r in s)
        )
        args = ["-u", "rbp", "-p", repr(case["patience"]), "-U"]
        args += ["-B"] if case["binary"] else []
        args += ["-G"] if case["group"] else []
        args += [str(qrels_path), str(run_path)]
        out = subprocess.run(
            [sys.executable, "-c", _DRIVER, str(root), *args],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    values: dict[str, dict[str, float]] = {}
    for line in out.splitlines():
        name, qid, value = line.split("\t")
        values.setdefault(qid, {})[name] = float(value)
    return {q: [v["disparity"], v["relevance"], v["difference"]] for q, v in values.items()}


def main(root: str) -> None:
    checkout = Path(root)
    commit = (
        subprocess.run(
            ["git", "-C", str(checkout), "rev-parse", "HEAD"], capture_output=True, text=True
        ).stdout.strip()
        or (checkout / "COMMIT").read_text().strip()
    )
    cases = []
    for seed in range(60):
        case = _case(seed, group=seed >= 40)
        case["expected"] = _expeval(checkout, case)
        cases.append(case)
    OUT.write_text(json.dumps({"expeval_commit": commit, "cases": cases}, indent=1) + "\n")
    print(f"wrote {len(cases)} cases to {OUT}")


if __name__ == "__main__":
    main(sys.argv[1])

"""XAUC and recalibrated NE: receval against the straightforward NumPy code, in one process.

    python benchmarks/bench_xauc_ne.py            # 10M rows, rewrites docs/benchmarks.md
    python benchmarks/bench_xauc_ne.py --quick    # 200k rows, no file written

Rows: watch times (exponential, rounded to 0.1 s: many ties) with informative
scores; clicks at a 5% rate with probabilities from a model trained on a tenth of
the negatives. Each tool runs in turn on the same arrays (A B A B ...), the same
number of runs each, medians (``_harness.interleaved``).

* XAUC: ``receval.xauc_score`` (exact, every pair, in the compiled core) against
  TorchEasyRec's sampled XAUC in NumPy (``sampling_xauc``: a million random pairs,
  strict agreement; a different, random quantity: its distance is shown), and
  ``receval.roc_auc_score`` on the same rows' clicks for scale. Up to 5k rows the
  exact O(n^2) pair loop in NumPy (broadcast) is timed too.
* Recalibrated NE: ``receval.normalized_entropy(..., negative_sampling_rate=0.1)``
  against the NumPy formula (recalibrate, clip, log loss over the base rate's
  entropy), and the same with weights.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import receval
from _harness import interleaved, row_load, write_section

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RATE = 0.1


def watch_rows(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = np.round(rng.exponential(30.0, n), 1)
    s = np.log1p(y) + rng.normal(0.0, 1.5, n)
    return y, s


def click_rows(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed + 1)
    y = (rng.random(n) < 0.05).astype(np.int8)
    true_p = np.clip(0.05 + 0.1 * (y - 0.05) + rng.normal(0, 0.02, n), 1e-4, 0.9)
    p = true_p / (true_p + (1 - true_p) * RATE)  # a model of a tenth of the negatives
    return y, p, rng.uniform(0.5, 2.0, n)


def numpy_sampled_xauc(y: np.ndarray, s: np.ndarray, pairs: int = 10**6) -> float:
    """TorchEasyRec's sampling_xauc in NumPy: random pairs, strict agreement."""
    rng = np.random.default_rng(7)
    i = rng.integers(0, len(y), pairs)
    j = rng.integers(0, len(y), pairs)
    keep = i != j
    i, j = i[keep], j[keep]
    return float(np.mean((y[i] - y[j]) * (s[i] - s[j]) > 0))


def numpy_pair_xauc(y: np.ndarray, s: np.ndarray) -> float:
    """Every pair by broadcasting (O(n^2) memory and time)."""
    dy = y[:, None] > y[None, :]
    ds = np.sign(s[:, None] - s[None, :])
    return float(((ds[dy] + 1) / 2).sum() / dy.sum())


def numpy_recalibrated_ne(y: np.ndarray, p: np.ndarray, w: np.ndarray | None) -> float:
    w = np.ones(len(y)) if w is None else w
    q = p / (p + (1 - p) / RATE)
    q = np.clip(q, np.finfo(np.float64).eps, 1 - np.finfo(np.float64).eps)
    loss = -np.sum(w * (y * np.log(q) + (1 - y) * np.log(1 - q))) / w.sum()
    b = np.sum(w * y) / w.sum()
    return float(loss / (-b * np.log(b) - (1 - b) * np.log(1 - b)))


def fmt_s(x: float) -> str:
    return f"{x:.3f}" if x < 10 else f"{x:.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="200k rows, no file written")
    parser.add_argument("--rows", type=int, default=None)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--out", default=os.path.join(ROOT, "docs", "benchmarks.md"))
    args = parser.parse_args()
    n = args.rows or (200_000 if args.quick else 10_000_000)
    load = os.getloadavg()
    y, s = watch_rows(n)
    cy, cp, cw = click_rows(n)
    clicks = (y > 30).astype(np.int8)
    lines = [
        "| metric | tool | runs | seconds | vs receval | peak extra MiB | value | load |",
        "|---|---|---|---|---|---|---|---|",
    ]

    def add(metric: str, results: list, names: list[str], values: list[str]) -> None:
        base = results[0].seconds
        for r, name, value in zip(results, names, values, strict=True):
            ratio = "" if r is results[0] else f"{r.seconds / base:.1f}x"
            lines.append(f"| {metric} | {name} | {len(r.runs)} | {fmt_s(r.seconds)} | {ratio} | "
                         f"{r.peak_extra_mib:.0f} | {value} | {row_load(r)} |")  # fmt: skip

    cases = [lambda: receval.xauc_score(y, s), lambda: numpy_sampled_xauc(y, s),
             lambda: receval.roc_auc_score(clicks, s)]  # fmt: skip
    names = ["receval xauc_score (exact)", "NumPy sampled (TorchEasyRec, 1M pairs)",
             "receval roc_auc_score (clicks, for scale)"]  # fmt: skip
    if n <= 5_000:
        cases.append(lambda: numpy_pair_xauc(y, s))
        names.append("NumPy every pair (broadcast)")
    results = interleaved(cases, args.runs)
    exact = results[0].value
    off = abs(results[1].value - exact)
    values = [f"{exact:.6f}", f"{results[1].value:.6f} (off by {off:.1e})",
              f"{results[2].value:.6f} (another quantity)"]  # fmt: skip
    values += [f"{r.value:.6f}" for r in results[3:]]
    add(f"XAUC, {n:,} rows", results, names, values)

    for weighted in (False, True):
        w = cw if weighted else None
        results = interleaved([
            lambda w=w: receval.normalized_entropy(cy, cp, sample_weight=w,
                                                   negative_sampling_rate=RATE),
            lambda w=w: numpy_recalibrated_ne(cy, cp, w),
        ], args.runs)  # fmt: skip
        ours, theirs = results[0].value, results[1].value
        label = f"NE(negative_sampling_rate={RATE}), {n:,} rows"
        add(label + (", weighted" if weighted else ""),
            results, ["receval normalized_entropy", "NumPy formula"],
            [f"{ours:.9f}", f"{theirs:.9f} (rel. diff {abs(theirs / ours - 1):.0e})"])  # fmt: skip
    text = "(writes this section; `--quick` runs 200k rows and prints only)."
    after = (
        "Reading: the exact XAUC counts every pair (n(n-1)/2) in O(n log n) in the compiled "
        "core; the sampled NumPy estimate looks at a million pairs and counts ties as "
        "disordered, so its value is another, random quantity. Recalibration adds one pass "
        "over the probabilities to NE's exact sums."
    )  # fmt: skip
    load_after = os.getloadavg()
    write_section("xauc-ne", "XAUC and recalibrated NE", text, lines, load=(load, load_after),
                  after=after, out=args.out, print_only=args.quick)  # fmt: skip


if __name__ == "__main__":
    main()

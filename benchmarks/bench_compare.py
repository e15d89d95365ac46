"""Model comparison statistics on per-user metric values, with SciPy and ranx beside them.

    python benchmarks/bench_compare.py                  # 100k users, rewrites docs/benchmarks.md
    python benchmarks/bench_compare.py --quick          # 10k users, 2,000 draws, print only
    python benchmarks/bench_compare.py --users 300000   # any size, print only

Data: per-user values of three models (A, B, C) on five ranking metrics
computed from the rank of each user's first relevant item (NDCG@10, NDCG@5,
hit@10, RR@10, precision@1): values in [0, 1] from a few discrete levels, many
zeros (no hit), ties, and pairing through a per-user difficulty shared by the
models. One column is NDCG@10 of A minus B; ten columns are the five metrics
for A - B and A - C. receval runs its randomization test and bootstrap on the
table of differences (one pass for all columns); peers run on the per-user
values of each pair: SciPy's ``permutation_test`` (paired sign flips) and
``bootstrap`` (paired, BCa / percentile), ranx's Fisher randomization test, and
SciPy's t-test and Wilcoxon test for reference. A peer projected to take more
than ``--peer-seconds`` runs with fewer permutations and its time is scaled
linearly (said in its row). receval and the peers of a row are timed in turn
(A B A B ...), the same number of runs each (``--runs``), medians. Needs the
``bench`` extra and SciPy.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _harness import Interleaved, interleaved, load_line, row_load, write_section
from receval.comparison import intervals as _intervals
from receval.comparison import significance as _stats

METRICS = ("ndcg@10", "ndcg@5", "hit@10", "rr@10", "p@1")
# A is a little better than B and C: p-values from below 0.01 to about 0.9 at 100k users
LIFT = {"A": 0.002, "B": 0.0, "C": 0.0015}


# ----------------------------------------------------------------------- data
def _metric_values(rank: np.ndarray) -> dict[str, np.ndarray]:
    """Per-user metric values from the rank of the first relevant item (0 = none in top 10)."""
    hit = (rank >= 1) & (rank <= 10)
    safe = np.where(hit, rank, 1)
    gain = np.where(hit, 1 / np.log2(safe + 1), 0.0)
    return {
        "ndcg@10": gain,
        "ndcg@5": np.where(rank <= 5, gain, 0.0),
        "hit@10": hit.astype(np.float64),
        "rr@10": np.where(hit, 1.0 / safe, 0.0),
        "p@1": (rank == 1).astype(np.float64),
    }


def make_data(n_users: int, seed: int = 0) -> dict[str, dict[str, np.ndarray]]:
    """values[model][metric]: per-user metric values of models A, B and C."""
    rng = np.random.default_rng(seed)
    easiness = rng.beta(1.2, 4.0, n_users)  # shared by the models: the pairing
    values = {}
    for model, lift in LIFT.items():
        p = np.clip(easiness + lift + rng.normal(0, 0.05, n_users), 0.01, 0.95)
        rank = rng.geometric(p)
        rank[rank > 10] = 0  # no relevant item in the top 10
        values[model] = _metric_values(rank)
    return values


def tables(values: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per-user values of the first and second model of each of the 10 columns
    (5 metrics x pairs A-B, A-C), and their differences: 1 column, 10 columns."""
    first = np.column_stack([values["A"][m] for _ in ("B", "C") for m in METRICS])
    second = np.column_stack([values[other][m] for other in ("B", "C") for m in METRICS])
    ten = first - second
    return ten[:, 0].copy(), ten, first, second


# ----------------------------------------------------------------------- peers
def _mean_difference(x, y, axis=-1):
    return np.mean(x - y, axis=axis)


def scipy_permutation(a, b, n_resamples, seed=0):
    from scipy import stats

    res = stats.permutation_test(
        (a, b),
        _mean_difference,
        permutation_type="samples",
        vectorized=True,
        n_resamples=n_resamples,
        batch=50,
        rng=np.random.default_rng(seed),
    )
    return float(res.pvalue)


def scipy_bootstrap(a, b, method, n_resamples, seed=0):
    from scipy import stats

    res = stats.bootstrap(
        (a, b),
        _mean_difference,
        paired=True,
        vectorized=True,
        method=method,
        n_resamples=n_resamples,
        batch=100,
        rng=np.random.default_rng(seed),
    )
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def ranx_fisher(a, b, n_permutations):
    from ranx.statistical_tests import fisher_randomization_test

    return float(fisher_randomization_test(a, b, n_permutations, 0.01, 42)[0])


def plan(run, full: int, limit: float, pilot: int = 100) -> tuple[int, str]:
    """Permutations a peer runs with: ``full``, or fewer when a pilot of ``pilot``
    projects more than ``limit`` seconds (its time is then scaled by full / k)."""
    if full <= pilot:
        return full, ""
    start = time.perf_counter()
    run(pilot)
    projected = (time.perf_counter() - start) * full / pilot
    if projected <= limit:
        return full, ""
    k = max(pilot, int(full * 0.5 * limit / projected) // 100 * 100)
    return k, f" (run with {k:,} permutations, time x {full / k:.2f})"


# ----------------------------------------------------------------------- table
def fmt_s(x: float) -> str:
    if x < 0.01:
        return f"{x:.4f}"
    return f"{x:.3f}" if x < 10 else f"{x:.1f}"


def fmt_value(v) -> str:
    if isinstance(v, tuple) and np.ndim(v[0]):
        return f"{len(v[0])} intervals, widest {np.max(v[1] - v[0]):.5f}"
    if isinstance(v, tuple):
        return f"[{v[0]:.5f}, {v[1]:.5f}]"
    if isinstance(v, np.ndarray):
        return f"{v.size} values in [{np.min(v):.4f}, {np.max(v):.4f}]"
    return f"{v:.4f}"


def row(cells) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def line(case, ours: Interleaved, peer="", theirs: Interleaved | None = None, note="", factor=1.0):
    """A table row; ``factor`` multiplies the peer's time (10 separate calls, or a peer run
    with fewer permutations)."""
    cells = [
        case,
        len(ours.runs),
        fmt_s(ours.seconds),
        f"{ours.peak_extra_mib:.0f}",
        fmt_value(ours.value),
    ]
    if theirs is None:
        cells += ["—", "", "", "", ""]
    else:
        t = theirs.seconds * factor
        approx = "~" if factor != 1 else ""
        cells += [
            peer + note,
            approx + fmt_s(t),
            f"{theirs.peak_extra_mib:.0f}",
            fmt_value(theirs.value) if "calls" not in peer else "(1 column)",
            f"**{t / ours.seconds:,.0f}x**"
            if t / ours.seconds >= 10
            else f"{t / ours.seconds:.1f}x",
        ]
    cells.append(row_load(ours))
    text = row(cells)
    print(text, flush=True)
    return text


def run_all(n_users: int, n_draws: int, runs: int, limit: float, long_s: float) -> tuple:
    from scipy import stats

    values = make_data(n_users)
    one, ten, first, second = tables(values)
    a, b = first[:, 0].copy(), second[:, 0].copy()  # NDCG@10 of A and B
    lines = []

    # compiled kernels, SciPy and ranx loaded and called once before timing
    _stats.randomization_pvalues(ten[:100], n_permutations=10)
    _intervals.bootstrap_intervals(ten[:100], n_resamples=10)
    _intervals.bootstrap_intervals(one[:100], n_resamples=10)
    _stats.randomization_pvalues(one[:100], n_permutations=10)
    _stats.student_pvalues(ten[:100])
    _stats.wilcoxon_pvalues(ten[:100])
    _intervals.effect_sizes(ten[:100])
    ranx_fisher(a[:100], b[:100], 10)
    scipy_permutation(a[:100], b[:100], 10)
    scipy_bootstrap(a[:100], b[:100], "BCa", 10)
    stats.ttest_rel(first[:100], second[:100])
    stats.wilcoxon(first[:100], second[:100])

    def timed(fns):
        return interleaved(fns, runs, warmup=False, long_s=long_s)

    def rand(d):
        return lambda: _stats.randomization_pvalues(d, n_permutations=n_draws, seed=0)

    def boot(d, method):
        return lambda: _intervals.bootstrap_intervals(d, method=method, n_resamples=n_draws, seed=0)

    # randomization tests: receval on 1 and 10 columns and the two peers, in turn
    k_scipy, note_scipy = plan(lambda k: scipy_permutation(a, b, k), n_draws, limit)
    k_ranx, note_ranx = plan(lambda k: ranx_fisher(a, b, k), n_draws, limit)
    ours, ours10, scipy_perm, ranx_perm = timed(
        [
            rand(one),
            rand(ten),
            lambda: scipy_permutation(a, b, k_scipy),
            lambda: ranx_fisher(a, b, k_ranx),
        ]
    )
    f_scipy, f_ranx = n_draws / k_scipy, n_draws / k_ranx
    lines.append(
        line(
            "randomization test, 1 column",
            ours,
            "SciPy `permutation_test`",
            scipy_perm,
            note_scipy,
            f_scipy,
        )
    )
    lines.append(line("", ours, "ranx `fisher_randomization_test`", ranx_perm, note_ranx, f_ranx))
    lines.append(
        line(
            "randomization test, 10 columns",
            ours10,
            "SciPy `permutation_test`, 10 calls",
            scipy_perm,
            note_scipy,
            10 * f_scipy,
        )
    )
    lines.append(line("", ours10, "ranx, 10 calls", ranx_perm, note_ranx, 10 * f_ranx))

    # bootstrap: receval on 1 and 10 columns and SciPy on 1, in turn, per method
    ours, ours10, theirs = timed(
        [boot(one, "bca"), boot(ten, "bca"), lambda: scipy_bootstrap(a, b, "BCa", n_draws)]
    )
    lines.append(line("bootstrap BCa, 1 column", ours, "SciPy `bootstrap` (BCa)", theirs))
    bca10 = ours10
    ours, ours10, theirs = timed(
        [
            boot(one, "percentile"),
            boot(ten, "percentile"),
            lambda: scipy_bootstrap(a, b, "percentile", n_draws),
        ]
    )
    lines.append(
        line("bootstrap percentile, 1 column", ours, "SciPy `bootstrap` (percentile)", theirs)
    )
    lines.append(line("bootstrap BCa, 10 columns", bca10))
    lines.append(
        line(
            "bootstrap percentile, 10 columns",
            ours10,
            "SciPy `bootstrap` (percentile), 10 calls",
            theirs,
            factor=10,
        )
    )

    ours, theirs = timed(
        [lambda: _stats.student_pvalues(ten), lambda: stats.ttest_rel(first, second).pvalue]
    )
    lines.append(line("paired t-test, 10 columns", ours, "SciPy `ttest_rel`, axis=0", theirs))
    ours, theirs = timed(
        [lambda: _stats.wilcoxon_pvalues(ten), lambda: stats.wilcoxon(first, second).pvalue]
    )
    lines.append(
        line(
            "Wilcoxon test, 10 columns (SciPy per column)", ours, "SciPy `wilcoxon`, axis=0", theirs
        )
    )
    (ours,) = timed([lambda: _intervals.effect_sizes(ten)])
    lines.append(line("effect sizes, 10 columns", ours))
    return lines, one, ten, [float(v) for v in ranx_perm.values]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10k users, 2,000 draws, print only")
    parser.add_argument("--users", type=int, default=None, help="users (print only)")
    parser.add_argument("--draws", type=int, default=None, help="permutations and resamples")
    parser.add_argument("--runs", type=int, default=3, help="timed runs of every tool per row")
    parser.add_argument(
        "--long-s",
        type=float,
        default=120.0,
        help="a row where a run took longer than this has one run of every tool",
    )
    parser.add_argument(
        "--peer-seconds", type=float, default=120.0, help="longest projected peer run"
    )
    parser.add_argument(
        "--out",
        default=None,
        help="file whose section is rewritten (default docs/benchmarks.md; with --users "
        "or --draws, only when given)",
    )
    args = parser.parse_args()
    n_users = args.users or (10_000 if args.quick else 100_000)
    n_draws = args.draws or (2_000 if args.quick else 10_000)
    head = [
        row(
            [
                "case",
                "runs",
                "receval (s)",
                "receval peak extra (MiB)",
                "receval result",
                "peer",
                "peer (s)",
                "peer peak extra (MiB)",
                "peer result",
                "speed-up",
                "load before / after",
            ]
        ),
        row(["---"] * 11),
    ]
    print("\n".join(head), flush=True)
    load_before = os.getloadavg()
    lines, one, ten, ranx_values = run_all(
        n_users, n_draws, args.runs, args.peer_seconds, args.long_s
    )
    load_after = os.getloadavg()
    print(load_line(load_before, load_after))
    if args.quick or ((args.users, args.draws) != (None, None) and args.out is None):
        return
    zero_share = float(np.mean(one == 0))
    hit = ten[:, 5 + METRICS.index("hit@10")]
    p_hit = _stats.randomization_pvalues(hit, n_permutations=n_draws, seed=0)
    t_hit = _stats.student_pvalues(hit)
    odd = np.count_nonzero(hit) % 2 == 1
    parity_note = ""
    if p_hit == 1.0 and abs(hit.sum()) == 1 and odd:
        parity_note = f"""- The randomization p-value 1 of hit@10, A - C, is exact, not a Monte
  Carlo accident: its differences are -1, 0 and 1, with an odd number of
  non-zero ones summing to {hit.sum():g}, so every sign flip gives an odd sum,
  at least 1 in absolute value; the t-test's {t_hit:.4f} is a normal approximation.
"""
    levels = len(np.unique(one))
    ranx_note = ""
    if len(set(ranx_values)) > 1:
        ranx_note = (
            ", and calls with the same `random_seed` in one process give different p-values "
            f"(its {len(ranx_values)} runs here: {', '.join(f'{v:.4f}' for v in ranx_values)})"
        )
    text = f"""(needs `pip install -e '.[bench]'`;
writes this section; `--quick` runs 10k users and 2,000 draws and prints
only, `--users N` / `--draws N` any size). The calls of a group are timed
in turn (receval on 1 column, receval on 10 columns, each peer, then again):
the randomization tests, the BCa bootstraps, the percentile bootstraps, the
t-tests and the Wilcoxon tests are one group each. Every call gets the same
number of runs ({args.runs}, or 1 for every call of a group where a run took
more than {args.long_s:g} s; the "runs" column), times are the medians; every
call is made once on 100 users first (lazy imports, first calls). Peak extra
memory is the largest rise of the process's resident high-water mark during
a call; the load column is the 1-minute load average before and after the
group's runs. Every randomization test and bootstrap uses {n_draws:,}
permutations or resamples. A peer whose pilot run projected more than
{args.peer_seconds:g} s ran with fewer permutations in every run and its
median time was scaled linearly (`~`, said in the row); "10 calls" rows are
10 times the 1-column peer time.

Data (`make_data` in the script, seed 0): {n_users:,} users; per-user NDCG@10,
NDCG@5, hit@10, RR@10 and precision@1 of three models from the rank of each
user's first relevant item (geometric, with a per-user difficulty shared by
the models, so the values are paired). The 1-column table is NDCG@10 of A
minus B ({100 * zero_share:.0f}% zero differences, {levels} distinct values);
the 10-column table is the five metrics for A - B and A - C, all in one call
to receval. Results: p-values, or [low, high] of the 95% interval of the mean
difference."""
    after = f"""- receval's randomization test tabulates the 256 signed sums of every byte of
  8 users once per block of 64 users, then adds 8 table rows per 64 users for
  each permutation (parallel over permutations, columns innermost), so 10
  columns cost a few times 1 column, not 10. SciPy's `permutation_test`
  (`permutation_type="samples"`, `batch=50`) materializes every permuted
  sample; ranx's test draws `np.random.permutation` of every user's pair in
  every permutation; its p-value is the share of permutations (no `+1`){ranx_note}.
- receval's bootstrap draws the users of each resample once for all columns;
  BCa's jackknife is the closed form `(S - w_i d_i) / (W - w_i)`, O(n). SciPy's
  BCa recomputes the statistic on the n leave-one-out samples, O(n²): that is
  most of its time here.
- The Monte Carlo p-values and intervals of receval and its peers differ by
  their Monte Carlo error (different random draws), not by method.
{parity_note}- `wilcoxon_pvalues` calls `scipy.stats.wilcoxon` once per column on that
  column's users; the t-test is vectorized over columns.
"""
    write_section(
        "compare",
        "Model comparison",
        text,
        head + lines,
        peers=("scipy", "ranx"),
        load=(load_before, load_after),
        after=after,
        out=args.out,
    )


if __name__ == "__main__":
    main()

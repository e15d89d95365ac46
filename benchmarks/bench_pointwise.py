"""Pointwise metrics: receval against scikit-learn, polars and pandas, in one process.

    python benchmarks/bench_pointwise.py            # full run, rewrites docs/benchmarks.md
    python benchmarks/bench_pointwise.py --quick    # 1M rows, no file written
    python benchmarks/bench_pointwise.py --rows 1000000 --out /tmp/bench.md

receval and each peer are timed in turn on the same arrays (A B A B ...), the
same number of runs each (``--runs``), medians (``_harness.interleaved``).

Needs the ``bench`` extra: pip install -e '.[bench]'.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import receval
from _harness import interleaved, load_line, row_load, write_section

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def clicks(n: int, seed: int = 0, decimals: int | None = None):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.05).astype(np.int8)
    s = rng.random(n) * 0.5 + 0.1 * y  # informative, float64
    if decimals is not None:
        s = np.round(s, decimals)  # heavy ties
    return y, s


def skewed_groups(n: int, n_users: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed + 1)
    sizes = rng.lognormal(0.0, 1.2, n_users)
    sizes = np.maximum(1, np.floor(sizes / sizes.sum() * n)).astype(np.int64)
    g = np.repeat(np.arange(n_users), sizes)
    g = np.concatenate([g, rng.integers(0, n_users, n - len(g))])[:n]
    return rng.permutation(g)


def fmt_s(x: float) -> str:
    return f"{x:.3f}" if x < 10 else f"{x:.1f}"


def row(cells) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


@dataclass
class Settings:
    runs: int
    long_s: float


def timed_row(label: str, ours, peer, peer_name: str, settings: Settings, ratio: str = ".1f"):
    """receval and its peer in turn (A B A B ...), the same number of runs; a table row."""
    mine, theirs = interleaved([ours, peer], settings.runs, warmup=False, long_s=settings.long_s)
    text = row(
        [
            label,
            len(mine.runs),
            fmt_s(mine.seconds),
            fmt_s(theirs.seconds) + (f" ({peer_name})" if peer_name else ""),
            f"**{theirs.seconds / mine.seconds:{ratio}}x**",
            f"{mine.peak_extra_mib:.0f}",
            f"{theirs.peak_extra_mib:.0f}",
            f"{100 * mine.peak_extra_mib / max(theirs.peak_extra_mib, 1):.0f}%",
            f"{abs(mine.value - theirs.value):.1e}",
            row_load(mine),
        ]
    )
    print(text, flush=True)
    return text


def bench_auc(n: int, settings: Settings, decimals: int | None = None) -> list[str]:
    from sklearn.metrics import roc_auc_score as sk

    y, s = clicks(n, decimals=decimals)
    receval.roc_auc_score(y[:1000], s[:1000])  # lazy imports and first calls outside the clock
    sk(y[:1000], s[:1000])
    label = f"roc_auc_score, {n / 1e6:g}M rows" + (
        f", scores rounded to {decimals} d.p." if decimals else ""
    )
    return [timed_row(label, lambda: receval.roc_auc_score(y, s), lambda: sk(y, s), "", settings)]


def bench_log_loss(n: int, settings: Settings) -> list[str]:
    from sklearn.metrics import log_loss as sk

    y, s = clicks(n)
    receval.log_loss(y[:1000], s[:1000])
    sk(y[:1000], s[:1000])
    return [
        timed_row(
            f"log_loss, {n / 1e6:g}M rows",
            lambda: receval.log_loss(y, s),
            lambda: sk(y, s),
            "",
            settings,
        )
    ]


def polars_gauc(df):
    import polars as pl

    per = (
        df.group_by("user")
        .agg(
            n=pl.len(),
            p=pl.col("y").cast(pl.Int64).sum(),
            rank_sum=pl.col("s").rank("average").filter(pl.col("y") == 1).sum(),
        )
        .with_columns(neg=pl.col("n") - pl.col("p"))
        .filter((pl.col("p") > 0) & (pl.col("neg") > 0))
        .with_columns(
            auc=(pl.col("rank_sum") - pl.col("p") * (pl.col("p") + 1) / 2)
            / (pl.col("p") * pl.col("neg"))
        )
    )
    return float((per["auc"] * per["n"]).sum() / per["n"].sum())


def pandas_gauc(df):
    from sklearn.metrics import roc_auc_score

    def one(d):
        return roc_auc_score(d["y"], d["s"]) if d["y"].nunique() == 2 else np.nan

    aucs = df.groupby("user")[["y", "s"]].apply(one)
    sizes = df.groupby("user").size()
    kept = aucs.notna()
    return float((aucs[kept] * sizes[kept]).sum() / sizes[kept].sum())


def bench_gauc(n: int, n_users: int, settings: Settings, pandas_users: int | None) -> list[str]:
    import pandas as pd
    import polars as pl

    y, s = clicks(n)
    g = skewed_groups(n, n_users)
    sizes = np.bincount(g)
    receval.gauc_score(y[:1000], s[:1000], groups=g[:1000])
    pl_df = pl.DataFrame({"user": g, "y": y, "s": s})
    polars_gauc(pl_df.head(1000))
    lines = [
        timed_row(
            f"gauc_score, {n / 1e6:g}M rows, {n_users / 1e3:g}k users "
            f"(largest {sizes.max():,} rows)",
            lambda: receval.gauc_score(y, s, groups=g),
            lambda: polars_gauc(pl_df),
            "polars",
            settings,
        )
    ]
    if pandas_users is not None:
        if pandas_users < n_users:
            keep = g < pandas_users
            y, s, g = y[keep], s[keep], g[keep]
        pd_df = pd.DataFrame({"user": g, "y": y, "s": s})
        pandas_gauc(pd_df.head(1000))
        lines.append(
            timed_row(
                f"gauc_score, {len(y) / 1e6:.3g}M rows, "
                f"{min(pandas_users, n_users) / 1e3:g}k users",
                lambda: receval.gauc_score(y, s, groups=g),
                lambda: pandas_gauc(pd_df),
                "pandas groupby-apply sklearn",
                settings,
                ratio=".0f",
            )
        )
    return lines


def bench_gauc_order(n: int, n_users: int, settings: Settings) -> list[str]:
    """The same GAUC log in arrival order (users interleaved) and sorted by user."""
    y, s = clicks(n)
    g = skewed_groups(n, n_users)
    order = np.argsort(g, kind="stable")
    ys, ss, gs = y[order], s[order], g[order]
    receval.gauc_score(y[:1000], s[:1000], groups=g[:1000])
    return [
        timed_row(
            f"gauc_score, {n / 1e6:g}M rows, {n_users / 1e3:g}k users interleaved, "
            f"against the same rows sorted by user",
            lambda: receval.gauc_score(y, s, groups=g),
            lambda: receval.gauc_score(ys, ss, groups=gs),
            "sorted",
            settings,
            ratio=".2f",
        )
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1M rows, print only")
    parser.add_argument("--runs", type=int, default=3, help="timed runs of every tool per row")
    parser.add_argument(
        "--long-s",
        type=float,
        default=120.0,
        help="a row where a run took longer than this has one run of every tool",
    )
    parser.add_argument(
        "--rows", type=int, default=10_000_000, help="rows (the second AUC row: 5 times as many)"
    )
    parser.add_argument("--users", type=int, default=100_000, help="GAUC users")
    parser.add_argument("--out", default=os.path.join(ROOT, "docs", "benchmarks.md"))
    parser.add_argument(
        "--pandas-users",
        type=int,
        default=100_000,
        help="users given to the pandas groupby-apply baseline",
    )
    args = parser.parse_args()
    settings = Settings(args.runs, args.long_s)
    load_before = os.getloadavg()
    head = row(
        [
            "case",
            "runs",
            "receval (s)",
            "peer (s)",
            "speed-up",
            "receval peak extra (MiB)",
            "peer peak extra (MiB)",
            "memory ratio",
            "abs. difference",
            "load before / after",
        ]
    )
    lines = [head, row(["---"] * 10)]
    print("\n".join(lines), flush=True)
    if args.quick:
        lines += bench_auc(1_000_000, settings) + bench_log_loss(1_000_000, settings)
        lines += bench_gauc(1_000_000, 10_000, settings, 500)
        lines += bench_gauc_order(1_000_000, 10_000, settings)
        print(load_line(load_before, os.getloadavg()))
        return
    n = args.rows
    for rows in (n, 5 * n):
        lines += bench_auc(rows, settings)
    lines += bench_auc(n, settings, decimals=3)
    lines += bench_log_loss(n, settings)
    lines += bench_gauc(n, args.users, settings, args.pandas_users)
    for users in sorted({10_000, args.users}):
        lines += bench_gauc_order(n, users, settings)
    text = f"""(needs `pip install -e '.[bench]'`;
writes this section; `--quick` runs 1M rows and prints only). Every row runs
receval and its peer on the same arrays in one process, in turn (receval,
peer, receval, peer, ...): the same number of runs each ({args.runs}, or 1 for
every tool of a row where a run took more than {args.long_s:g} s; the "runs"
column), times are the medians. Both are called once on 1,000 rows first
(lazy imports, first calls). Peak extra memory is the largest rise of the
process's resident high-water mark during a call (`/proc/self/clear_refs`),
so it counts NumPy, compiled-core, Arrow and polars allocations alike; the
load column is the 1-minute load average before and after the row's runs.
Data: 5% positives, float64 scores; GAUC users have log-normal (skewed)
impression counts."""
    after = """The peer of `roc_auc_score` and `log_loss` is scikit-learn. The peers of
`gauc_score` are the fastest polars expression we could write (average rank of
the scores within each user, Mann-Whitney U per user, then the weighted mean)
and the usual pandas loop, `groupby(user).apply(sklearn.metrics.roc_auc_score)`
skipping single-class users. "abs. difference" is |receval - peer|: receval's
AUC is an exact integer pair count divided once; the peers sum floating-point
trapezoids or ranks. The "interleaved ... sorted by user" rows time receval
twice on one log, its rows in arrival order (every user's impressions spread
over the whole log) and sorted by user: their speed-up is the time on the
sorted rows over the time on the interleaved ones (1.00x: the order of the rows
costs nothing). The fixed costs of a new process (import, first call) are
in the section on the compiled core below.
"""
    write_section(
        "pointwise",
        "Pointwise metrics",
        text,
        lines,
        load=(load_before, os.getloadavg()),
        after=after,
        out=args.out,
    )


if __name__ == "__main__":
    main()

"""Pointwise metrics: receval against scikit-learn, polars and pandas, in one process.

    python benchmarks/bench_pointwise.py            # full run, rewrites docs/benchmarks.md
    python benchmarks/bench_pointwise.py --quick    # 1M rows, no file written

Needs the ``bench`` extra: pip install -e '.[bench]'.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import receval
from _harness import environment, measure, replace_section

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


def bench_auc(n: int, repeat: int, decimals: int | None = None) -> list[str]:
    from sklearn.metrics import roc_auc_score as sk

    y, s = clicks(n, decimals=decimals)
    receval.roc_auc_score(y[:1000], s[:1000])  # compiled/cached kernels loaded
    ours = measure(lambda: receval.roc_auc_score(y, s), repeat)
    theirs = measure(lambda: sk(y, s), 1)
    label = f"roc_auc_score, {n / 1e6:g}M rows" + (
        f", scores rounded to {decimals} d.p." if decimals else ""
    )
    return [
        row(
            [
                label,
                fmt_s(ours.seconds),
                fmt_s(theirs.seconds),
                f"**{theirs.seconds / ours.seconds:.1f}x**",
                f"{ours.peak_extra_mib:.0f}",
                f"{theirs.peak_extra_mib:.0f}",
                f"{100 * ours.peak_extra_mib / theirs.peak_extra_mib:.0f}%",
                f"{abs(ours.value - theirs.value):.1e}",
            ]
        )
    ]


def bench_log_loss(n: int, repeat: int) -> list[str]:
    from sklearn.metrics import log_loss as sk

    y, s = clicks(n)
    receval.log_loss(y[:1000], s[:1000])
    ours = measure(lambda: receval.log_loss(y, s), repeat)
    theirs = measure(lambda: sk(y, s), 1)
    return [
        row(
            [
                f"log_loss, {n / 1e6:g}M rows",
                fmt_s(ours.seconds),
                fmt_s(theirs.seconds),
                f"**{theirs.seconds / ours.seconds:.1f}x**",
                f"{ours.peak_extra_mib:.0f}",
                f"{theirs.peak_extra_mib:.0f}",
                f"{100 * ours.peak_extra_mib / theirs.peak_extra_mib:.0f}%",
                f"{abs(ours.value - theirs.value):.1e}",
            ]
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


def bench_gauc(n: int, n_users: int, repeat: int, pandas_users: int | None) -> list[str]:
    import pandas as pd
    import polars as pl

    y, s = clicks(n)
    g = skewed_groups(n, n_users)
    receval.gauc_score(y[:1000], s[:1000], groups=g[:1000])
    ours = measure(lambda: receval.gauc_score(y, s, groups=g), repeat)
    pl_df = pl.DataFrame({"user": g, "y": y, "s": s})
    theirs_pl = measure(lambda: polars_gauc(pl_df), max(1, repeat - 1))
    sizes = np.bincount(g)
    lines = [
        row(
            [
                f"gauc_score, {n / 1e6:g}M rows, {n_users / 1e3:g}k users "
                f"(largest {sizes.max():,} rows)",
                fmt_s(ours.seconds),
                fmt_s(theirs_pl.seconds) + " (polars)",
                f"**{theirs_pl.seconds / ours.seconds:.1f}x**",
                f"{ours.peak_extra_mib:.0f}",
                f"{theirs_pl.peak_extra_mib:.0f}",
                f"{100 * ours.peak_extra_mib / theirs_pl.peak_extra_mib:.0f}%",
                f"{abs(ours.value - theirs_pl.value):.1e}",
            ]
        )
    ]
    if pandas_users is not None:
        if pandas_users < n_users:
            keep = g < pandas_users
            y, s, g = y[keep], s[keep], g[keep]
        pd_df = pd.DataFrame({"user": g, "y": y, "s": s})
        ours_sub = measure(lambda: receval.gauc_score(y, s, groups=g), repeat)
        theirs_pd = measure(lambda: pandas_gauc(pd_df), 1)
        lines.append(
            row(
                [
                    f"gauc_score, {len(y) / 1e6:.3g}M rows, "
                    f"{min(pandas_users, n_users) / 1e3:g}k users",
                    fmt_s(ours_sub.seconds),
                    fmt_s(theirs_pd.seconds) + " (pandas groupby-apply sklearn)",
                    f"**{theirs_pd.seconds / ours_sub.seconds:.0f}x**",
                    f"{ours_sub.peak_extra_mib:.0f}",
                    f"{theirs_pd.peak_extra_mib:.0f}",
                    f"{100 * ours_sub.peak_extra_mib / max(theirs_pd.peak_extra_mib, 1):.0f}%",
                    f"{abs(ours_sub.value - theirs_pd.value):.1e}",
                ]
            )
        )
    return lines


COMPILE_PROBE = textwrap.dedent("""
    import json, time
    t0 = time.perf_counter()
    import receval
    t_import = time.perf_counter() - t0
    import numpy as np
    rng = np.random.default_rng(0)
    y = (rng.random(1000) < 0.3).astype(np.int8)
    s = rng.random(1000)
    g = rng.integers(0, 50, 1000)
    out = {"import": t_import}
    for name, call in [("roc_auc_score", lambda: receval.roc_auc_score(y, s)),
                       ("gauc_score", lambda: receval.gauc_score(y, s, groups=g)),
                       ("log_loss", lambda: receval.log_loss(y, s)),
                       ("roc_curve", lambda: receval.roc_curve(y, s))]:
        t = time.perf_counter(); call(); out[name] = time.perf_counter() - t
    print(json.dumps(out))
""")


def bench_compile() -> list[str]:
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        runs = []
        for _ in range(2):  # first process compiles, the second loads the on-disk cache
            out = subprocess.run(
                [sys.executable, "-c", COMPILE_PROBE],
                env=env,
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            runs.append(json.loads(out.strip().splitlines()[-1]))
    lines = [
        row(
            [
                "`import receval`",
                f"{runs[0]['import'] * 1e3:.0f} ms",
                f"{runs[1]['import'] * 1e3:.0f} ms",
            ]
        )
    ]
    for name in ("roc_auc_score", "gauc_score", "log_loss", "roc_curve"):
        lines.append(
            row([f"first `{name}` call", f"{runs[0][name]:.2f} s", f"{runs[1][name]:.3f} s"])
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1M rows, print only")
    parser.add_argument("--out", default=os.path.join(ROOT, "docs", "benchmarks.md"))
    parser.add_argument(
        "--pandas-users",
        type=int,
        default=100_000,
        help="users given to the pandas groupby-apply baseline",
    )
    args = parser.parse_args()
    head = row(
        [
            "case",
            "receval (s)",
            "peer (s)",
            "speed-up",
            "receval peak extra (MiB)",
            "peer peak extra (MiB)",
            "memory ratio",
            "abs. difference",
        ]
    )
    sep = row(["---"] * 8)
    lines = [head, sep]
    if args.quick:
        lines += bench_auc(1_000_000, 3) + bench_log_loss(1_000_000, 3)
        lines += bench_gauc(1_000_000, 10_000, 3, 2_000)
        print("\n".join(lines))
        print("\n".join(bench_compile()))
        return
    for n in (10_000_000, 50_000_000):
        lines += bench_auc(n, 3)
        print(lines[-1], flush=True)
    lines += bench_auc(10_000_000, 3, decimals=3)
    print(lines[-1], flush=True)
    lines += bench_log_loss(10_000_000, 3)
    print(lines[-1], flush=True)
    lines += bench_gauc(10_000_000, 100_000, 3, args.pandas_users)
    print("\n".join(lines[-2:]), flush=True)
    compile_lines = [
        row(["step", "cold cache (compiles)", "warm on-disk cache"]),
        row(["---"] * 3),
        *bench_compile(),
    ]
    print("\n".join(compile_lines), flush=True)
    body = f"""## Pointwise metrics

Reproduce: `pip install -e '.[bench]' && python benchmarks/bench_pointwise.py`
(writes this section). Every row runs receval and its peer on the same arrays in
one process; times are the best of 3 runs for receval (kernels already
compiled) and one run for the peer; peak extra memory is the rise of the
process's resident high-water mark during the call (`/proc/self/clear_refs`),
so it counts NumPy, numba, Arrow and polars allocations alike. Data: 5% positives,
float64 scores; GAUC users have log-normal (skewed) impression counts.

{environment()}

{chr(10).join(lines)}

The peer of `roc_auc_score` and `log_loss` is scikit-learn. The peers of
`gauc_score` are the fastest polars expression we could write (average rank of
the scores within each user, Mann-Whitney U per user, then the weighted mean)
and the usual pandas loop, `groupby(user).apply(sklearn.metrics.roc_auc_score)`
skipping single-class users. "abs. difference" is |receval - peer|: receval's
AUC is an exact integer pair count divided once; the peers sum floating-point
trapezoids or ranks.

### Numba compile time

Kernels compile on their first call and are cached on disk (`cache=True`), so
only the first process on a machine pays for it:

{chr(10).join(compile_lines)}
"""
    replace_section(args.out, "pointwise", body)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

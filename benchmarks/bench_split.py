"""Splitting a log: receval.split against the pandas and polars code a user would write.

    python benchmarks/bench_split.py              # 100M rows, rewrites docs/benchmarks.md
    python benchmarks/bench_split.py --quick      # 1M rows, no file written
    python benchmarks/bench_split.py --rows 10000000 --out /tmp/bench.md

Two splits, each from a pandas and a polars DataFrame (receval gets the same frame
and returns the same frame type): a global temporal split at the 0.8 quantile of
time, and leave-last-1-out per user (ties in time in row order: a stable sort by
user and time, the later row last). Then the same leave-last-1-out of a Parquet
file out of core (``receval.scan``, two passes, Parquet parts written) against
polars reading the file and writing the two parts. receval and each peer run in
turn (A B A B ...), the same number of runs, medians (``_harness.interleaved``).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _harness import (
    command_line,
    environment,
    interleaved,
    load_line,
    peer_versions,
    replace_section,
    row_load,
)
from receval import scan, split

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def make_log(n: int, seed: int = 0) -> dict[str, np.ndarray]:
    """``n`` interactions of ``n / 100`` users over 100k items, times in seconds over
    a year with ties within users, rows in arrival order (users interleaved)."""
    rng = np.random.default_rng(seed)
    return {
        "user": rng.integers(0, max(n // 100, 1), n),
        "item": rng.integers(0, 100_000, n),
        "timestamp": 1_600_000_000 + rng.integers(0, 365 * 86_400 // 60, n) * 60,
    }


def pandas_temporal(df, q: float):
    cut = df["timestamp"].quantile(q)
    is_test = df["timestamp"] >= cut
    return df[~is_test], df[is_test]


def polars_temporal(df, q: float):
    import polars as pl

    cut = df["timestamp"].quantile(q, interpolation="linear")
    return df.filter(pl.col("timestamp") < cut), df.filter(pl.col("timestamp") >= cut)


def pandas_last(df):
    ordered = df.sort_values(["user", "timestamp"], kind="stable")
    is_last = ~ordered["user"].duplicated(keep="last")
    return ordered[~is_last], ordered[is_last]


def polars_last(df):
    import polars as pl

    ordered = df.with_row_index("row").sort(["user", "timestamp", "row"])
    is_last = pl.col("user") != pl.col("user").shift(-1).fill_null(-1)
    return ordered.filter(~is_last).drop("row"), ordered.filter(is_last).drop("row")


def polars_last_files(path: str, out: str):
    import polars as pl

    train, test = polars_last(pl.read_parquet(path))
    train.write_parquet(os.path.join(out, "polars-train.parquet"))
    test.write_parquet(os.path.join(out, "polars-test.parquet"))
    return test.height


def receval_last_files(path: str, out: str):
    result = split.leave_last_out(
        scan(path),
        n=1,
        train_path=os.path.join(out, "receval-train.parquet"),
        test_path=os.path.join(out, "receval-test.parquet"),
    )
    return result.n_test_rows


def fmt_s(x: float) -> str:
    return f"{x:.3f}" if x < 10 else f"{x:.1f}"


def row(cells) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def timed_row(label: str, ours, peer, peer_name: str, runs: int, long_s: float) -> str:
    mine, theirs = interleaved([ours, peer], runs, warmup=False, long_s=long_s)
    same = "yes" if mine.value == theirs.value else f"no ({mine.value} / {theirs.value})"
    text = row(
        [
            label,
            len(mine.runs),
            fmt_s(mine.seconds),
            f"{fmt_s(theirs.seconds)} ({peer_name})",
            f"**{theirs.seconds / mine.seconds:.1f}x**",
            f"{mine.peak_extra_mib:.0f}",
            f"{theirs.peak_extra_mib:.0f}",
            same,
            row_load(mine),
        ]
    )
    print(text, flush=True)
    return text


def bench(n: int, runs: int, long_s: float, folder: str) -> list[str]:
    import pandas as pd
    import polars as pl
    import pyarrow as pa
    import pyarrow.parquet as pq

    columns = make_log(n)
    pdf, pldf = pd.DataFrame(columns), pl.DataFrame(columns)
    small_pd, small_pl = pdf.head(1000), pldf.head(1000)
    for frame in (small_pd, small_pl):  # lazy imports and first calls outside the clock
        split.temporal(frame, quantile=0.8)
        split.leave_last_out(frame, n=1)
    pandas_last(small_pd), polars_last(small_pl)
    label = f"{n / 1e6:g}M rows, {max(n // 100, 1) / 1e3:g}k users"
    lines = []
    for name, frame, peer_t, peer_l in (
        ("pandas", pdf, pandas_temporal, pandas_last),
        ("polars", pldf, polars_temporal, polars_last),
    ):
        lines.append(
            timed_row(
                f"temporal at the 0.8 quantile, {label}, {name} in and out",
                lambda f=frame: split.temporal(f, quantile=0.8).n_test_rows,
                lambda f=frame, p=peer_t: len(p(f, 0.8)[1]),
                name,
                runs,
                long_s,
            )
        )
        lines.append(
            timed_row(
                f"leave-last-1-out, {label}, {name} in and out",
                lambda f=frame: split.leave_last_out(f, n=1).n_test_rows,
                lambda f=frame, p=peer_l: len(p(f)[1]),
                name,
                runs,
                long_s,
            )
        )
    path = os.path.join(folder, "log.parquet")
    pq.write_table(pa.table(columns), path, row_group_size=1 << 20)
    del pdf, pldf, columns
    lines.append(
        timed_row(
            f"leave-last-1-out of a Parquet file out of core, {label}, Parquet parts written",
            lambda: receval_last_files(path, folder),
            lambda: polars_last_files(path, folder),
            "polars read, split, write",
            runs,
            long_s,
        )
    )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1M rows, print only")
    parser.add_argument("--rows", type=int, default=100_000_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--long-s", type=float, default=60.0, help="a row slower than this runs once"
    )
    parser.add_argument("--out", default=os.path.join(ROOT, "docs", "benchmarks.md"))
    args = parser.parse_args()
    n = 1_000_000 if args.quick else args.rows
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
            "same test size",
            "load before / after",
        ]
    )
    lines = [head, row(["---"] * 9)]
    print("\n".join(lines), flush=True)
    with tempfile.TemporaryDirectory() as folder:
        lines += bench(n, args.runs, args.long_s, folder)
    if args.quick:
        print(load_line(load_before, os.getloadavg()))
        return
    body = f"""## Splitting a log

Reproduce: `{command_line()}` (`--quick`: 1M rows, prints only). A log of
{n:,} interactions (int64 user, item and Unix time in whole minutes, so a user's
times tie; users interleaved, as logs arrive) split by `receval.split` and by
the pandas and polars code a user would write: the temporal split compares the
time with its 0.8 quantile; leave-last-1-out sorts by user and time (stable:
ties in row order, receval's rule) and holds out each user's last row. receval
gets the same DataFrame and returns the same frame type, and counts as it goes
what it reports (users without test, cold users and items): it encodes the user
and item ids for those counts, which the peers' two comparisons do not, and which
is most of its time in the temporal rows. The out-of-core row
splits a Parquet file of the log with `receval.scan` in two passes, writing the
parts batch by batch, against polars reading the file, splitting and writing.
Each row runs receval and its peer in turn, the same number of runs
({args.runs}, or 1 where a run took over {args.long_s:g} s), medians; peak extra
memory is the rise of the resident high-water mark during a call.

{environment()}
{peer_versions("pandas", "polars", "pyarrow")}
{load_line(load_before, os.getloadavg())}

{chr(10).join(lines)}
"""
    replace_section(args.out, "split", body)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

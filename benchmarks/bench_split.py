"""Splitting a log: receval.split against the pandas and polars code a user would write.

    python benchmarks/bench_split.py              # 10M in memory, 100M, rewrites docs/benchmarks.md
    python benchmarks/bench_split.py --quick      # 1M and 2M rows, no file written
    python benchmarks/bench_split.py --rows 10000000 --big-rows 20000000 --out /tmp/bench.md

Two splits: a global temporal split at the 0.8 quantile of time, and
leave-last-1-out per user (ties in time in row order: a stable sort by user and
time, the later row last). In memory (``--rows``): from a pandas and from a
polars DataFrame (receval gets the same frame and returns the same frame type).
Out of core (``--big-rows``, a Parquet file): receval splitting a ``receval.scan``
into Parquet parts against polars' streaming engine (``scan_parquet`` and
``sink_parquet``), then both in memory from a polars DataFrame of the file.
receval and each peer run in turn (A B A B ...), the same number of runs,
medians (``_harness.interleaved``).
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


def write_log(path: str, n: int, chunk: int = 10_000_000) -> None:
    """A Parquet file of :func:`make_log`'s distribution written ``chunk`` rows at a
    time (bounded memory): ``n / 100`` users, row groups of 1M rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    n_users = max(n // 100, 1)
    with pq.ParquetWriter(path, pa.schema([(c, pa.int64()) for c in COLUMNS])) as writer:
        for seed, start in enumerate(range(0, n, chunk)):
            m = min(chunk, n - start)
            rng = np.random.default_rng(seed)
            part = {
                "user": rng.integers(0, n_users, m),
                "item": rng.integers(0, 100_000, m),
                "timestamp": 1_600_000_000 + rng.integers(0, 365 * 86_400 // 60, m) * 60,
            }
            writer.write_table(pa.table(part), row_group_size=1 << 20)


COLUMNS = ("user", "item", "timestamp")


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


def polars_stream_temporal(path: str, out: str, q: float):
    """polars' streaming engine: the quantile in one pass, each part sunk in another."""
    import polars as pl

    log = pl.scan_parquet(path)
    cut = log.select(pl.col("timestamp").quantile(q, interpolation="linear"))
    cut = cut.collect(engine="streaming").item()
    log.filter(pl.col("timestamp") < cut).sink_parquet(os.path.join(out, "polars-train.parquet"))
    test = os.path.join(out, "polars-test.parquet")
    log.filter(pl.col("timestamp") >= cut).sink_parquet(test)
    return pl.scan_parquet(test).select(pl.len()).collect().item()


def polars_stream_last(path: str, out: str):
    """polars' streaming engine: each user's last (time, row), then a semi and an anti
    join of the log on the rows found, each sunk to a file."""
    import polars as pl

    log = pl.scan_parquet(path).with_row_index("row")
    latest = log.group_by("user").agg(pl.col("timestamp").max())
    last = log.join(latest, on=["user", "timestamp"]).group_by("user").agg(pl.col("row").max())
    last = last.select("row").collect(engine="streaming").lazy()
    test = os.path.join(out, "polars-test.parquet")
    log.join(last, on="row", how="anti").drop("row").sink_parquet(
        os.path.join(out, "polars-train.parquet")
    )
    log.join(last, on="row", how="semi").drop("row").sink_parquet(test)
    return pl.scan_parquet(test).select(pl.len()).collect().item()


def receval_files(path: str, out: str, how: str):
    parts = {
        "train_path": os.path.join(out, "receval-train.parquet"),
        "test_path": os.path.join(out, "receval-test.parquet"),
    }
    if how == "temporal":
        return split.temporal(scan(path), quantile=0.8, **parts).n_test_rows
    return split.leave_last_out(scan(path), n=1, **parts).n_test_rows


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


def warm_up() -> None:
    """Lazy imports and first calls outside the clock, on a small log."""
    import pandas as pd
    import polars as pl

    small = make_log(1000)
    for frame in (pd.DataFrame(small), pl.DataFrame(small)):
        split.temporal(frame, quantile=0.8)
        split.leave_last_out(frame, n=1)
    pandas_last(pd.DataFrame(small)), polars_last(pl.DataFrame(small))


def in_memory(n: int, runs: int, long_s: float) -> list[str]:
    import pandas as pd
    import polars as pl

    columns = make_log(n)
    label = f"{n / 1e6:g}M rows, {max(n // 100, 1) / 1e3:g}k users"
    lines = []
    for name, frame, peer_t, peer_l in (
        ("pandas", pd.DataFrame(columns), pandas_temporal, pandas_last),
        ("polars", pl.DataFrame(columns), polars_temporal, polars_last),
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
    return lines


def big(n: int, runs: int, long_s: float, folder: str) -> list[str]:
    import polars as pl

    path = os.path.join(folder, "log.parquet")
    write_log(path, n)
    label = f"{n / 1e6:g}M rows, {max(n // 100, 1) / 1e3:g}k users"
    lines = [
        timed_row(
            f"temporal at the 0.8 quantile of a Parquet file, {label}, out of core, "
            "Parquet parts written",
            lambda: receval_files(path, folder, "temporal"),
            lambda: polars_stream_temporal(path, folder, 0.8),
            "polars streaming",
            runs,
            long_s,
        ),
        timed_row(
            f"leave-last-1-out of a Parquet file, {label}, out of core, Parquet parts written",
            lambda: receval_files(path, folder, "last"),
            lambda: polars_stream_last(path, folder),
            "polars streaming",
            runs,
            long_s,
        ),
    ]
    frame = pl.read_parquet(path)
    lines += [
        timed_row(
            f"temporal at the 0.8 quantile, {label}, polars in and out",
            lambda: split.temporal(frame, quantile=0.8).n_test_rows,
            lambda: len(polars_temporal(frame, 0.8)[1]),
            "polars",
            runs,
            long_s,
        ),
        timed_row(
            f"leave-last-1-out, {label}, polars in and out",
            lambda: split.leave_last_out(frame, n=1).n_test_rows,
            lambda: len(polars_last(frame)[1]),
            "polars",
            runs,
            long_s,
        ),
    ]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1M and 2M rows, print only")
    parser.add_argument("--rows", type=int, default=10_000_000, help="in memory, pandas too")
    parser.add_argument("--big-rows", type=int, default=100_000_000, help="out of core, polars")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--long-s", type=float, default=60.0, help="a row slower than this runs once"
    )
    parser.add_argument("--out", default=os.path.join(ROOT, "docs", "benchmarks.md"))
    args = parser.parse_args()
    n, n_big = (1_000_000, 2_000_000) if args.quick else (args.rows, args.big_rows)
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
    warm_up()
    lines += in_memory(n, args.runs, args.long_s)
    with tempfile.TemporaryDirectory() as folder:
        lines += big(n_big, args.runs, args.long_s, folder)
    if args.quick:
        print(load_line(load_before, os.getloadavg()))
        return
    body = f"""## Splitting a log

Reproduce: `{command_line()}` (`--quick`: 1M and 2M rows, prints only). Logs of
int64 user, item and Unix time in whole minutes (so a user's times tie; 100
interactions per user on average, users interleaved, as logs arrive) split by
`receval.split` and by the pandas and polars code a user would write: the
temporal split compares the time with its 0.8 quantile; leave-last-1-out holds out
each user's last row by time, ties in row order (receval's rule). receval gets
the same DataFrame and returns the same frame type, and counts as it goes what it
reports (users without test, cold users and items): it encodes the user and item
ids for those counts, which the peers' comparisons do not.

In memory, {n:,} rows, against pandas and polars. Out of core, a Parquet file of
{n_big:,} rows: receval splits a `receval.scan` of it batch by batch, writing
Parquet parts (the temporal split reads the file twice, for the quantile and for
the parts; leave-last-out twice, for each user's last row and for the parts),
against polars' streaming engine (`scan_parquet`, `collect(engine="streaming")`
for the quantile or each user's last row, `sink_parquet` for each part); then
both in memory from a polars DataFrame of the file.
Each row runs receval and its peer in turn, the same number of runs
({args.runs}, or 1 where a run took over {args.long_s:g} s), medians; peak extra
memory is the rise of the resident high-water mark during a call (polars'
allocator keeps the memory of its earlier calls and reuses it, so a repeated
polars call can read 0).

{environment()}
{peer_versions("pandas", "polars", "pyarrow")}
{load_line(load_before, os.getloadavg())}

{chr(10).join(lines)}
"""
    replace_section(args.out, "split", body)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

"""Out of core: AUC, GAUC, log loss and PCOC of a Parquet file larger than memory.

    python benchmarks/bench_streaming.py               # 200M rows, rewrites docs/benchmarks.md
    python benchmarks/bench_streaming.py --quick       # 5M rows, print only
    python benchmarks/bench_streaming.py --rows 50000000 --out /tmp/bench.md

Writes an impression log (user int64 grouped by user, ~40 impressions each;
click int8; score float32 from a noisy CTR model) chunk by chunk into a temporary
Parquet file (never all rows in memory), then evaluates it with
``receval.scan(path)``: time and peak extra memory of each metric. The calls
are timed in turn (A B C D, B C D A ...), the same number of runs each
(``--runs``), medians. How a scan compares with reading its columns and
computing in memory is ``bench_scan_read.py``'s.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import receval
from _harness import interleaved, write_section

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHUNK = 4_000_000
ROW_GROUP = 1 << 20


def write_impressions(path: str, rows: int, seed: int = 0) -> None:
    """``rows`` impressions in chunks of whole users (Poisson(40)+1 rows each)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    schema = pa.schema([("user", pa.int64()), ("click", pa.int8()), ("score", pa.float32())])
    next_user = 0
    written = 0
    with pq.ParquetWriter(path, schema, compression="snappy") as writer:
        while written < rows:
            want = min(CHUNK, rows - written)
            lengths = rng.poisson(39.0, want // 20 + 16) + 1
            ends = np.cumsum(lengths)
            n_users = int(np.searchsorted(ends, want)) + 1
            lengths = lengths[:n_users]
            lengths[-1] -= int(ends[n_users - 1]) - want  # the last user ends the chunk
            user = np.repeat(np.arange(next_user, next_user + n_users, dtype=np.int64), lengths)
            bias = np.repeat(rng.normal(0.0, 0.7, n_users), lengths)
            logit = rng.normal(-3.0, 1.0, want) + bias
            click = (rng.random(want) < 1.0 / (1.0 + np.exp(-logit))).astype(np.int8)
            score = (1.0 / (1.0 + np.exp(-(logit + rng.normal(0.0, 0.8, want))))).astype(np.float32)
            table = pa.table({"user": user, "click": click, "score": score}, schema=schema)
            writer.write_table(table, row_group_size=ROW_GROUP)
            next_user += n_users
            written += want


METRICS = {
    "roc_auc_score": lambda s: receval.roc_auc_score(s["click"], s["score"]),
    "gauc_score": lambda s: receval.gauc_score(s["click"], s["score"], groups=s["user"]),
    "log_loss": lambda s: receval.log_loss(s["click"], s["score"]),
    "pcoc": lambda s: receval.pcoc(s["click"], s["score"]),
}


def warm_up(directory: str) -> None:
    """Scan a small file with every metric, so that timings leave lazy imports and first
    calls out."""
    path = os.path.join(directory, "warm.parquet")
    write_impressions(path, 20_000, seed=1)
    small = receval.scan(path, max_memory=1 << 12, progress=False)
    for fn in METRICS.values():
        fn(small)
    for fn in METRICS.values():
        fn(receval.scan(path, progress=False))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000_000)
    parser.add_argument("--runs", type=int, default=3, help="timed runs of every call")
    parser.add_argument("--quick", action="store_true", help="5M rows, print only")
    parser.add_argument("--dir", default=None, help="where to write the file (default: temp)")
    parser.add_argument("--out", default=os.path.join(ROOT, "docs", "benchmarks.md"))
    args = parser.parse_args()
    if args.quick:
        args.rows = 5_000_000
    directory = tempfile.mkdtemp(prefix="receval-bench-", dir=args.dir)
    try:
        run(args, directory)
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def run(args: argparse.Namespace, directory: str) -> None:
    load_before = os.getloadavg()
    warm_up(directory)
    path = os.path.join(directory, "impressions.parquet")
    start = time.perf_counter()
    write_impressions(path, args.rows)
    print(f"wrote {args.rows:,} rows in {time.perf_counter() - start:.1f} s", flush=True)
    size_mib = os.path.getsize(path) / 2**20
    got = interleaved(
        [lambda fn=fn: fn(receval.scan(path, progress=False)) for fn in METRICS.values()],
        args.runs,
        warmup=False,
    )
    rows = list(zip(METRICS, got, strict=True))
    for name, m in rows:
        print(f"{name}: {m.value:.6f}  {m.seconds:.1f} s  {m.peak_extra_mib:.0f} MiB", flush=True)

    text, table, after = report(args, size_mib, rows)
    title = "Out of core (`receval.scan`)"
    write_section("streaming", title, text, table, load=(load_before, os.getloadavg()),
                  after=after, out=args.out, print_only=args.quick)  # fmt: skip


def report(args: argparse.Namespace, size_mib: float, rows: list) -> tuple[str, list[str], str]:
    """The section's text, table and the text after the table."""
    text = [
        "(writes this section; "
        "`--quick` runs 5M rows and prints only; `--rows N` for another size).",
        "The script writes an impression log chunk by chunk into a temporary Parquet",
        "file (int64 `user`, grouped by user, Poisson(39)+1 impressions per user;",
        "int8 `click` drawn from a logistic CTR model, about 7% clicks; float32",
        "`score`: that model's probability with noise on the logit; snappy,",
        "row groups of 1Mi rows), then calls each metric on `receval.scan(path)`",
        "with the default settings (batches of 4M rows, `max_memory` 512 MiB).",
        f"The calls are timed in turn (AUC, GAUC, log loss, PCOC, AUC, ...), {args.runs} runs",
        "each, medians; a small file is scanned by every metric first (lazy imports,",
        "first calls). Peak extra memory is the largest rise of the resident",
        "high-water mark during a call (the harness of the other benchmarks).",
    ]
    table = [
        f"{args.rows:,} rows, {size_mib:,.0f} MiB on disk (1-minute load average "
        f"{rows[0][1].load[0]:.1f} before the runs and {rows[0][1].load[1]:.1f} after):",
        "",
        "| metric | time (s) | rows/s | peak extra memory (MiB) | value |",
        "| --- | --- | --- | --- | --- |",
    ]
    for name, m in rows:
        table.append(
            f"| `{name}` | {m.seconds:.1f} | {args.rows / m.seconds / 1e6:.0f}M | "
            f"{m.peak_extra_mib:.0f} | {m.value:.6f} |"
        )
    after = [
        "The times include reading and decoding the Parquet file (the section below",
        "compares them with reading alone and computing in memory). `max_memory` bounds",
        "the whole call above the process's memory before it (batches are lowered to a",
        "sixteenth of it). AUC reads the file once when all rows fit in three quarters of",
        "`max_memory` less 192 MiB (4 bytes per float32 score); otherwise once for a",
        "histogram of the scores in 2^20 buckets, which also gathers the lowest scores",
        "that fit, then",
        "once per range of buckets that fits there. GAUC, log loss and PCOC read it once.",
        "Before every call glibc's heap is trimmed and Arrow's pool releases the pages it",
        "keeps, so that a call's peak does not hide in pages kept from the calls before",
        "it.",
    ]
    return "\n".join(text), table, "\n".join(after)


if __name__ == "__main__":
    main()

"""How close a scan comes to reading its columns and computing on them in memory.

    python benchmarks/bench_scan_read.py          # 10M and 100M rows, rewrites docs/benchmarks.md
    python benchmarks/bench_scan_read.py --quick  # 1M rows, print only (under a minute)
    python benchmarks/bench_scan_read.py --rows 20000000 --out /tmp/bench.md

For AUC, GAUC and log loss over an impression log (the generator of
``bench_streaming.py``) and ``evaluate`` over a run file (100 scored items per
user, grouped by user), each size times, in turn (A B C D, B C D A ...), the
same number of runs each, medians:

* reading the columns the metric needs (``pyarrow.parquet.read_table``; polars'
  ``read_parquet`` as a peer), and the same from the files written as CSV
  (``pyarrow.csv.read_csv``; polars' ``read_csv``);
* the metric in memory on those columns, already loaded as NumPy arrays;
* reading and computing in one call (read_table, then the metric on its columns);
* the metric on ``receval.scan(path)`` (default settings: ``max_memory`` 512 MiB),
  with the scan's own account of its time (``Scan.timings``: reading, computing,
  passes over the file).

The ratio is scan / (read + compute), and scan / (read + in memory) (the two
timed apart). Peak extra memory is the largest rise of the resident high-water
mark during a call.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import receval
from _harness import (
    Interleaved,
    command_line,
    environment,
    interleaved,
    load_line,
    replace_section,
)
from bench_streaming import write_impressions

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ITEMS_PER_USER = 100
EVAL_METRICS = ["ndcg@10", "recall@10"]


def write_run(path: str, rows: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A run of ``rows`` rows (``ITEMS_PER_USER`` scored items per user, grouped by
    user) written chunk by chunk; returns the qrels (3 of each user's items)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    n_users = max(rows // ITEMS_PER_USER, 1)
    schema = pa.schema([("user", pa.int64()), ("item", pa.int64()), ("score", pa.float32())])
    per_chunk = max(4_000_000 // ITEMS_PER_USER, 1)
    with pq.ParquetWriter(path, schema, compression="snappy") as writer:
        for first in range(0, n_users, per_chunk):
            users = np.arange(first, min(first + per_chunk, n_users), dtype=np.int64)
            user = np.repeat(users, ITEMS_PER_USER)
            item = _items(user, np.tile(np.arange(ITEMS_PER_USER), len(users)))
            score = rng.random(len(user), dtype=np.float32)
            table = pa.table({"user": user, "item": item, "score": score}, schema=schema)
            writer.write_table(table, row_group_size=1 << 20)
    q_users = np.repeat(np.arange(n_users, dtype=np.int64), 3)
    first = np.repeat(rng.integers(0, ITEMS_PER_USER, n_users), 3)
    q_items = _items(q_users, (first + np.tile(np.arange(3), n_users)) % ITEMS_PER_USER)
    return q_users, q_items


def write_weighted(impressions: str, path: str, seed: int = 0) -> None:
    """The impression log with a float64 ``weight`` column (uniform on [0, 3): weights
    of every bit), row group by row group."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    source = pq.ParquetFile(impressions)
    schema = source.schema_arrow.append(pa.field("weight", pa.float64()))
    with pq.ParquetWriter(path, schema, compression="snappy") as writer:
        for batch in source.iter_batches(batch_size=1 << 20):
            weight = pa.array(rng.random(batch.num_rows) * 3)
            table = pa.Table.from_batches([batch]).append_column("weight", weight)
            writer.write_table(table, row_group_size=1 << 20)


def _items(user: np.ndarray, j: np.ndarray) -> np.ndarray:
    """The ``j``-th item of each user's list: distinct within a user (104729 is prime
    to 10**6)."""
    return (user * 7919 + j * 104729) % 1_000_000


def cases(
    impressions: str, weighted: str, run_path: str, qrels: Any
) -> dict[str, tuple[list[str], str, Callable[..., Any], Callable[[Any], Any]]]:
    """Per metric: the columns read, the file, the metric on arrays, the metric on a scan."""

    def evaluate_arrays(user: Any, item: Any, score: Any) -> float:
        report = receval.evaluate(qrels, receval.Run(user, item, score), EVAL_METRICS)
        return float(report.mean["ndcg@10"])

    def evaluate_scan(s: Any) -> float:
        return float(receval.evaluate(qrels, s, EVAL_METRICS).mean["ndcg@10"])

    return {
        "roc_auc_score": (
            ["click", "score"], impressions,
            lambda y, s: receval.roc_auc_score(y, s),
            lambda s: receval.roc_auc_score(s["click"], s["score"]),
        ),
        "roc_auc_score (weighted)": (
            ["click", "score", "weight"], weighted,
            lambda y, s, w: receval.roc_auc_score(y, s, sample_weight=w),
            lambda s: receval.roc_auc_score(s["click"], s["score"], sample_weight=s["weight"]),
        ),
        "gauc_score": (
            ["user", "click", "score"], impressions,
            lambda u, y, s: receval.gauc_score(y, s, groups=u),
            lambda s: receval.gauc_score(s["click"], s["score"], groups=s["user"]),
        ),
        "log_loss": (
            ["click", "score"], impressions,
            lambda y, s: receval.log_loss(y, s),
            lambda s: receval.log_loss(s["click"], s["score"]),
        ),
        "evaluate": (["user", "item", "score"], run_path, evaluate_arrays, evaluate_scan),
    }  # fmt: skip


def measure(rows: int, runs: int, directory: str) -> list[dict[str, Any]]:
    """Every metric's cases at ``rows`` rows, interleaved."""
    impressions = os.path.join(directory, f"impressions-{rows}.parquet")
    weighted = os.path.join(directory, f"weighted-{rows}.parquet")
    run_path = os.path.join(directory, f"run-{rows}.parquet")
    write_impressions(impressions, rows)
    write_weighted(impressions, weighted)
    qrels = receval.Qrels(*write_run(run_path, rows))
    out = []
    every = cases(impressions, weighted, run_path, qrels)
    for name, (columns, path, in_memory, on_scan) in every.items():
        out.append(one_metric(name, rows, columns, path, in_memory, on_scan, runs))
        print(line(out[-1]), flush=True)
    os.remove(weighted)
    as_csv = {path: write_csv(path) for path in (impressions, run_path)}
    for name, (columns, path, in_memory, on_scan) in every.items():
        if path in as_csv:  # the same files as CSV text
            named = f"{name} (CSV)"
            out.append(one_metric(named, rows, columns, as_csv[path], in_memory, on_scan, runs))
            print(line(out[-1]), flush=True)
    for path in (impressions, run_path, *as_csv.values()):
        os.remove(path)
    return out


def write_csv(parquet: str) -> str:
    """A CSV copy of a Parquet file (Arrow's writer), row group by row group."""
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    path = parquet.removesuffix(".parquet") + ".csv"
    source = pq.ParquetFile(parquet)
    with pcsv.CSVWriter(path, source.schema_arrow) as writer:
        for batch in source.iter_batches(batch_size=1 << 20):
            writer.write_batch(batch)
    return path


def readers(path: str, columns: list[str]) -> tuple[Callable[[], Any], Callable[[], Any]]:
    """Reading the columns of a file: Arrow's reader (Parquet; CSV, its threaded
    reader), and polars'."""
    import polars as pl

    if path.endswith(".csv"):
        import pyarrow.csv as pcsv

        only = pcsv.ConvertOptions(include_columns=columns)
        return (
            lambda: pcsv.read_csv(path, convert_options=only),
            lambda: pl.read_csv(path, columns=columns),
        )
    import pyarrow.parquet as pq

    return (
        lambda: pq.read_table(path, columns=columns),
        lambda: pl.read_parquet(path, columns=columns),
    )


def one_metric(
    name: str,
    rows: int,
    columns: list[str],
    path: str,
    in_memory: Callable[..., Any],
    on_scan: Callable[[Any], Any],
    runs: int,
) -> dict[str, Any]:
    """The five calls of one metric, interleaved."""
    arrow_read, polars_read = readers(path, columns)
    table = arrow_read()
    arrays = [table.column(c).to_numpy() for c in columns]
    del table
    timings: list[Any] = []

    def scanned() -> Any:
        s = receval.scan(path, progress=False)
        value = on_scan(s)
        timings.append(s.timings)
        return value

    def read_compute() -> Any:
        t = arrow_read()
        return in_memory(*[t.column(c).to_numpy() for c in columns])

    got = interleaved(
        [
            lambda: arrow_read().num_rows,
            lambda: polars_read().height,
            lambda: in_memory(*arrays),
            read_compute,
            scanned,
        ],
        runs,
    )
    read, polars_read, memory, both, scan = got
    return {
        "metric": name, "rows": rows, "size_mib": os.path.getsize(path) / 2**20,
        "read": read, "polars": polars_read, "memory": memory, "both": both,
        "scan": scan, "timings": timings[len(timings) // 2], "equal": scan.value == memory.value,
    }  # fmt: skip


def line(r: dict[str, Any]) -> str:
    """One table row."""
    m: dict[str, Interleaved] = r
    t = r["timings"]
    ratio = m["scan"].seconds / m["both"].seconds
    to_sum = m["scan"].seconds / (m["read"].seconds + m["memory"].seconds)
    function, _, note = r["metric"].partition(" ")  # "roc_auc_score (weighted)"
    name = f"`{function}` {note}".rstrip()
    return (
        f"| {name} | {r['rows']:,} | {m['read'].seconds:.2f} / "
        f"{m['read'].peak_extra_mib:.0f} | {m['polars'].seconds:.2f} / "
        f"{m['polars'].peak_extra_mib:.0f} | {m['memory'].seconds:.2f} / "
        f"{m['memory'].peak_extra_mib:.0f} | {m['both'].seconds:.2f} / "
        f"{m['both'].peak_extra_mib:.0f} | {m['scan'].seconds:.2f} / "
        f"{m['scan'].peak_extra_mib:.0f} | {ratio:.2f} | {to_sum:.2f} | {t.read:.2f} / "
        f"{t.compute:.2f} / "
        f"{t.passes} | {'yes' if r['equal'] else 'NO'} |"
    )


def warm_up(directory: str) -> None:
    """Every case once on a small file: lazy imports and first calls."""
    measure(20_000, 1, directory)


def report(results: list[dict[str, Any]], load_before: tuple[float, ...], seconds: float) -> str:
    lines = [
        "## Scans against reading plus computing (`receval.scan`)",
        "",
        f"Reproduce: `{command_line()}` (writes this section; by default 10M and 100M",
        "rows; `--quick` runs 1M rows and prints only; `--rows N ...` for other sizes).",
        "AUC, GAUC and log loss read the impression log of the out-of-core section",
        "(int64 `user`, int8 `click`, float32 `score`, snappy, row groups of 1Mi rows);",
        "weighted AUC reads it with a float64 `weight` column (uniform on [0, 3));",
        f"`evaluate` (`{', '.join(EVAL_METRICS)}`) reads a run of {ITEMS_PER_USER} scored items",
        "per user (int64 `user` and `item`, float32 `score`) against qrels of 3 items per",
        "user held in memory. Each metric's five calls are timed in turn, the same number",
        "of runs each, medians, after a warm-up on a small file. Each cell is seconds /",
        "peak extra memory in MiB (the largest rise of the resident high-water mark",
        "during a call):",
        "",
        "- *read*: `pyarrow.parquet.read_table` of the metric's columns; *polars*:",
        "  `polars.read_parquet` of the same columns; in the rows marked (CSV), the same",
        "  files written as CSV by Arrow's writer, read by `pyarrow.csv.read_csv` (its",
        "  threaded reader) and `polars.read_csv`;",
        "- *in memory*: the metric on those columns already loaded as NumPy arrays;",
        "- *read + compute*: `read_table`, then the metric on its columns;",
        "- *scan*: the metric on `receval.scan(path)` (default settings, `max_memory`",
        "  512 MiB); *ratio* is scan / (read + compute), *to the sum* scan / (read + in",
        "  memory): *read + compute* holds every column of the file afresh in each call,",
        "  and the first touch of that much new memory costs more, and varies more, on",
        "  a virtual machine such as this one than the two calls timed apart, so the",
        "  sum of those is the stricter measure;",
        "- *scan's account*: `Scan.timings` of a middle run: seconds reading (in the",
        "  reader thread, overlapping the computation), seconds computing, passes over",
        "  the file.",
        "",
        environment(),
        load_line(load_before, os.getloadavg()),
        f"- the whole run took {seconds / 60:.1f} minutes",
        "",
        "| metric | rows | read | polars | in memory | read + compute | scan | ratio "
        "| to the sum | scan's account: read / compute (s) / passes | equal values |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    lines += [line(r) for r in results]
    lines += [
        "",
        "A scan reads the next batch in a thread while the metric works on the one",
        "before, so it takes about the longer of the two rather than their sum, in a",
        "budget that does not grow with the file. The exact AUC gathers the scores of",
        "every row in one pass when they fit in three quarters of `max_memory` less 192",
        "MiB (4 bytes per float32 score as here, 32 with weights; 8 and 40 for float64",
        "scores); a larger file is read once for a histogram of the scores,",
        "which also gathers the lowest scores that fit, then once more per range of",
        "scores that fits (the passes column): there the scan costs several reads of the",
        "file, which a larger `max_memory` saves. *read + compute* holds every row in",
        "memory at once; the scan stays within its budget.",
        "",
        "In the CSV rows a scan reads the files' text in ranges parsed on both cores, as",
        "`read_csv` does, joined into batches of `batch_rows` rows. It reads id columns",
        "as strings (`007` stays `007`), where Arrow's reader, and so *in memory*, infers",
        "int64; strings that are all integers in their canonical spelling (as here) are",
        "coded, and matched against integer ids, as their integers; the ids of the groups",
        "a scan has seen (to refuse a group that comes again) are held as those integers",
        "too, and the accumulator of `gauc_score` keeps its own as Python strings.",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[10_000_000, 100_000_000])
    parser.add_argument("--runs", type=int, default=3, help="timed runs of every call")
    parser.add_argument("--quick", action="store_true", help="1M rows, print only")
    parser.add_argument("--dir", default=None, help="where to write the files (default: temp)")
    parser.add_argument("--out", default=os.path.join(ROOT, "docs", "benchmarks.md"))
    args = parser.parse_args()
    if args.quick:
        args.rows = [1_000_000]
    directory = tempfile.mkdtemp(prefix="receval-bench-", dir=args.dir)
    start = time.perf_counter()
    load_before = os.getloadavg()
    try:
        warm_up(directory)
        results = [r for rows in args.rows for r in measure(rows, args.runs, directory)]
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    body = report(results, load_before, time.perf_counter() - start)
    print(body)
    if not args.quick:
        replace_section(args.out, "scan-read", body)


if __name__ == "__main__":
    main()

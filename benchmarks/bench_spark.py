"""Spark (local[2]) against in memory: the same metrics on the same Parquet files.

    python benchmarks/bench_spark.py            # 20M impressions, 1M users x 100; rewrites docs
    python benchmarks/bench_spark.py --quick    # 2M impressions, 100k users x 100; print only

Needs pyspark (``pip install -e '.[spark,bench]'``) and Java. Writes an
impression log (the generator of ``bench_streaming.py``) and a ranking
benchmark's qrels and run (the generator of ``bench_ranking.py``) as Parquet,
then times each metric two ways, in turn (A B A B ..., the same number of
runs each, ``--runs``, medians): ``receval.spark`` on ``spark.read.parquet``
(a local[2] session, one JVM and two Python workers) and the in-memory
function on the columns read with pyarrow. Values must be equal; the script
stops otherwise.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import receval
from _harness import interleaved, row_load, write_section

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RANKING_METRICS = ["ndcg@10", "map@100", "recall@100", "mrr", "p@10"]


# ------------------------------------------------------------------ memory of Spark's processes
def _spark_pids() -> dict[str, list[int]]:
    """The JVM and the Python workers started by this process's Spark session."""
    me = os.getpid()
    found: dict[str, list[int]] = {"jvm": [], "workers": []}
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == me:
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                cmd = fh.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if "java" in cmd and "org.apache.spark" in cmd:
            found["jvm"].append(int(entry))
        elif "pyspark.daemon" in cmd or "pyspark.worker" in cmd:
            found["workers"].append(int(entry))
    return found


def _reset_peaks() -> None:
    for pids in _spark_pids().values():
        for pid in pids:
            try:
                with open(f"/proc/{pid}/clear_refs", "w") as fh:
                    fh.write("5")
            except OSError:
                pass


def _peak_mib(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return 0.0


def spark_pair(on_spark, in_memory, runs: int, long_s: float):
    """The Spark call and the in-memory call in turn (A B A B ...), the same runs each;
    with the largest peak RSS of the JVM and of a Python worker over the Spark runs
    (the high-water marks are reset before the rounds and read after them)."""
    _reset_peaks()
    spark, memory = interleaved([on_spark, in_memory], runs, warmup=False, long_s=long_s)
    pids = _spark_pids()
    jvm = max((_peak_mib(p) for p in pids["jvm"]), default=0.0)
    worker = max((_peak_mib(p) for p in pids["workers"]), default=0.0)
    return spark, jvm, worker, memory


# ------------------------------------------------------------------ data
def write_ranking(directory: str, n_users: int) -> tuple[str, str]:
    from bench_ranking import make_data

    os.makedirs(directory, exist_ok=True)
    qrels, run = make_data(n_users)
    qpath = os.path.join(directory, "qrels.parquet")
    rpath = os.path.join(directory, "run.parquet")
    qrels.to_parquet(qpath, index=False)
    run.to_parquet(rpath, index=False)
    return qpath, rpath


def session(partitions: int):
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ["PYSPARK_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master("local[2]")
        .appName("receval-bench")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.memory", "6g")
        .config("spark.sql.shuffle.partitions", str(partitions))
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20_000_000, help="impressions")
    parser.add_argument("--users", type=int, default=1_000_000, help="ranking users (x 100)")
    parser.add_argument("--partitions", type=int, default=64, help="spark.sql.shuffle.partitions")
    parser.add_argument("--runs", type=int, default=3, help="timed runs of every call")
    parser.add_argument(
        "--long-s",
        type=float,
        default=120.0,
        help="a row where a run took longer than this has one run of both calls",
    )
    parser.add_argument("--quick", action="store_true", help="2M impressions, 100k users")
    parser.add_argument("--out", default=os.path.join(ROOT, "docs", "benchmarks.md"))
    args = parser.parse_args()
    if args.quick:
        args.rows, args.users = 2_000_000, 100_000
    directory = tempfile.mkdtemp(prefix="receval-spark-bench-")
    try:
        run(args, directory)
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def run(args: argparse.Namespace, directory: str) -> None:
    import pyarrow.parquet as pq

    import receval.spark as rs
    from bench_streaming import write_impressions

    load_before = os.getloadavg()
    ipath = os.path.join(directory, "impressions.parquet")
    write_impressions(ipath, args.rows)
    qpath, rpath = write_ranking(directory, args.users)
    spark = session(args.partitions)

    # warm up: load the kernels in the driver and in both workers
    small = os.path.join(directory, "small.parquet")
    write_impressions(small, 50_000, seed=1)
    sdf = spark.read.parquet(small)
    for _ in range(2):
        rs.roc_auc_score(sdf, "click", "score")
        rs.gauc_score(sdf, "click", "score", groups="user")
        rs.log_loss(sdf, "click", "score")
        sq = spark.read.parquet(qpath).limit(20_000)
        sr = spark.read.parquet(rpath).limit(200_000)
        rs.evaluate(sq, sr, RANKING_METRICS)
    t = pq.read_table(small)
    receval.roc_auc_score(t["click"], t["score"])
    receval.gauc_score(t["click"], t["score"], groups=t["user"])
    receval.log_loss(t["click"], t["score"])
    receval.pcoc(t["click"], t["score"])
    qs, rs_ = write_ranking(os.path.join(directory, "warm"), 2_000)
    receval.evaluate(qs, rs_, RANKING_METRICS)

    imp = spark.read.parquet(ipath)
    table = pq.read_table(ipath)
    c = {name: table.column(name).to_numpy() for name in ("click", "score", "user")}
    del table
    pointwise = {
        "roc_auc_score": (
            lambda: rs.roc_auc_score(imp, "click", "score"),
            lambda: receval.roc_auc_score(c["click"], c["score"]),
        ),
        "gauc_score": (
            lambda: rs.gauc_score(imp, "click", "score", groups="user"),
            lambda: receval.gauc_score(c["click"], c["score"], groups=c["user"]),
        ),
        "log_loss": (
            lambda: rs.log_loss(imp, "click", "score"),
            lambda: receval.log_loss(c["click"], c["score"]),
        ),
        "pcoc": (
            lambda: rs.pcoc(imp, "click", "score"),
            lambda: receval.pcoc(c["click"], c["score"]),
        ),
    }
    rows = []
    for name, (on_spark, in_memory) in pointwise.items():
        s, jvm, worker, m = spark_pair(on_spark, in_memory, args.runs, args.long_s)
        rows.append((name, s, jvm, worker, m))
        print(f"{name}: spark {s.seconds:.1f} s, memory {m.seconds:.2f} s", flush=True)
        if any(v != m.value for v in s.values + m.values):
            raise SystemExit(f"{name}: spark {s.values!r} != in memory {m.values!r}")
    c.clear()

    q_df = spark.read.parquet(qpath)
    r_df = spark.read.parquet(rpath)
    s, jvm, worker, m = spark_pair(
        lambda: rs.evaluate(q_df, r_df, RANKING_METRICS),
        lambda: receval.evaluate(qpath, rpath, RANKING_METRICS),
        args.runs,
        args.long_s,
    )
    print(f"evaluate: spark {s.seconds:.1f} s, memory {m.seconds:.2f} s", flush=True)
    if any(v.mean != m.value.mean for v in s.values + m.values):
        raise SystemExit(f"evaluate: spark {s.value.mean} != in memory {m.value.mean}")
    rows.append(("evaluate (5 metrics)", s, jvm, worker, m))
    spark.stop()
    text, table, after = report(args, rows)
    title = "Spark (`receval.spark`, local[2])"
    write_section("spark", title, text, table, load=(load_before, os.getloadavg()), after=after,
                  out=args.out, print_only=args.quick)  # fmt: skip


def report(args: argparse.Namespace, rows: list) -> tuple[str, list[str], str]:
    """The section's text, table and the text after the table."""
    import pyspark

    text = [
        "(writes this section; `--quick` "
        "runs 2M impressions and 100k users and prints only). Needs `pip install -e "
        "'.[spark,bench]'` and Java 17.",
        f"The impressions are those of the out-of-core benchmark ({args.rows:,} rows: int64 "
        "`user`, int8 `click`, float32 `score`); the ranking data is that of the ranking "
        f"benchmark ({args.users:,} users x 100 recommendations, about 12 judged items "
        "per user). Both are Parquet files, read by `spark.read.parquet` for Spark and by "
        "pyarrow (pointwise, columns loaded before the clock starts) or by `evaluate`'s "
        "own Parquet reader (ranking, reading included) in memory.",
        f"Spark {pyspark.__version__} in local mode: `local[2]`, "
        f"`spark.sql.shuffle.partitions={args.partitions}`, driver memory 6g. A warm-up "
        "on small files loads the kernels in the driver and in both Python workers; "
        "then the Spark call and the in-memory call of a row are timed in turn (Spark, "
        f"memory, Spark, memory, ...), {args.runs} runs each (or 1 for both where a "
        f'run took more than {args.long_s:g} s; the "runs" column), medians. The '
        "driver's and the in-memory peak extra memory are the largest rise of this "
        "process's resident high-water mark during a call; the JVM's and a worker's "
        "are their largest resident size over the row's Spark runs. Every Spark "
        "value equals the in-memory value exactly (the script stops otherwise).",
    ]
    table = [
        "| metric | runs | Spark (s) | in memory (s) | Spark / memory | driver peak extra (MiB) "
        "| JVM peak RSS (MiB) | Python worker peak RSS (MiB) | in-memory peak extra (MiB) "
        "| load before / after |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, s, jvm, worker, m in rows:
        table.append(
            f"| `{name}` | {len(s.runs)} | {s.seconds:.1f} | {m.seconds:.2f} "
            f"| {s.seconds / m.seconds:.0f}x | {s.peak_extra_mib:.0f} | {jvm:.0f} | {worker:.0f} "
            f"| {m.peak_extra_mib:.0f} | {row_load(s)} |"
        )
    after = [
        "How the work is split, so that it scales with executors:",
        "",
        "- **log loss, PCOC, COPC**: no shuffle; each input partition (Parquet split) is "
        "reduced to a few exact sums.",
        "- **AUC**: one range shuffle (`repartitionByRange` on the score, after Spark "
        "samples the scores for the bounds); every task sorts its range and counts "
        "pairs; the driver adds integer counts per range.",
        "- **GAUC**: one hash shuffle by user; every task computes its users' AUCs.",
        "- **evaluate**: qrels and run are unioned and hash-shuffled by user; every "
        "task builds a `Qrels` and a `Run` of its users and calls `evaluate`.",
        "",
        "The in-memory calls run in the same process as the Spark calls, with the "
        "session open (its JVM and Python workers resident and idle); the ranking "
        "section above measures `evaluate` on the same data alone.",
        "",
        "Each task is independent, so the time divides by the number of executor "
        "cores until the shuffle dominates; on one machine Spark pays for the JVM, "
        "the shuffle files and the Arrow transfer to Python workers, which the "
        "in-memory path does not. The driver receives one state of a few hundred "
        "bytes per partition, hence its flat memory.",
    ]
    return "\n".join(text), table, "\n".join(after)


if __name__ == "__main__":
    main()

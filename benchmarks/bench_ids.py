"""Ids of every kind: receval.evaluate with string and categorical ids against int64 ids.

    python benchmarks/bench_ids.py            # 100k users, rewrites docs/benchmarks.md
    python benchmarks/bench_ids.py --quick    # 3k users, 3 runs, 2 processes, no file written

The data of bench_ranking.py (100 recommended items per user, 5-15 relevant):
the same ids as int64 (over a compact range, and spread over all 63 bits) and
pandas' nullable ``Int64``, as pandas ``str``
(Arrow-backed), ``Categorical`` and object strings (in address order and
reordered), as polars ``String``,
``Categorical`` and ``Enum`` frames and as Arrow tables (``string``,
``large_string``, dictionary, ``string_view``), and from Parquet,
CSV and TREC files. String ids are not numbers (``u-17``, ``doc-4711``), as most
real ids. Each call builds receval's containers and evaluates, so the encoding of
the ids is inside the timing; the cases of a table are timed in turn (A B C, B C A,
C A B ...), the same number of runs each, medians; pytrec_eval (in a forked child,
from the frame: its nested dicts of str built inside the timing) is the reference.
The whole table is timed in several processes one after another (``--processes``):
the time of the int64 case itself moves between processes on a shared machine by
more than the rounds of one process show, so each row gives the median over the
processes of its time and of its ratio to int64 (each ratio of one process's
medians), and the range of that ratio.
Every kind must give the int64 report exactly. One row reads as many bytes as the
run's object columns hold, in order on every thread: the least time in which their
objects can be read; two read the id columns of the Parquet files alone, the part
of those cases that is the file's decoding. A second table times the run's
item ids alone, encoded by receval's core and by pyarrow, pandas and polars.
Needs the ``bench`` extra plus pytrec_eval (pytrec-eval-terrier).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Callable
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import receval
from _harness import (
    Interleaved,
    command_line,
    environment,
    interleaved,
    load_line,
    median,
    peer_versions,
    replace_section,
)
from bench_ranking import CATALOGUE, METRICS, make_data, pytrec_case

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def named(frame: Any) -> Any:
    """The frame with string ids that are not numbers, as a pandas ``str`` column."""
    return frame.assign(
        user=("u-" + frame["user"].astype(str)).astype("str"),
        item=("doc-" + frame["item"].astype(str)).astype("str"),
    )


def arrow(frame: Any, kind: Any) -> Any:
    """An Arrow table of ``frame`` with its id columns cast to ``kind``."""
    import pyarrow as pa

    table = pa.Table.from_pandas(frame, preserve_index=False)
    for name in ("user", "item"):
        at = table.schema.get_field_index(name)
        table = table.set_column(at, name, table[name].cast(kind))
    return table


def one_object_per_id(column: Any) -> Any:
    """An object column of ``column``'s strings, one ``str`` object per distinct id (as
    pandas' CSV reader gives them; ``astype(object)`` makes one per row)."""
    import pandas as pd

    seen: dict[str, str] = {}
    values = [seen.setdefault(x, x) for x in column.tolist()]
    return pd.Series(np.array(values, dtype=object), index=column.index, dtype=object)


def reordered(frame: Any) -> Any:
    """The frame with object ids (one ``str`` a row), its rows shuffled and then sorted
    by user (stable), as a frame sorted after its strings were made: the same rows of
    each user, their objects out of the order of their addresses."""
    rng = np.random.default_rng(1)
    objects = frame.astype({"user": object, "item": object})
    shuffled = objects.iloc[rng.permutation(len(objects))]
    return shuffled.sort_values("user", kind="stable").reset_index(drop=True)


def wide(frame: Any) -> Any:
    """The frame with each user and item id made a 63-bit integer spread over the whole
    range, as 64-bit hashed or snowflake ids are (too wide a range for a
    direct-address table): ``id * K mod 2**63`` for an odd ``K``, one to one."""
    spread = np.uint64(0x9E3779B97F4A7C15)
    low63 = np.uint64(2**63 - 1)

    def spread_ids(ids: Any) -> Any:
        return ((ids.to_numpy().astype(np.uint64) * spread) & low63).astype(np.int64)

    return frame.assign(user=spread_ids(frame["user"]), item=spread_ids(frame["item"]))


def kinds(qdf: Any, rdf: Any) -> dict[str, tuple[Any, Any]]:
    """The in-memory inputs of each id kind: (qrels, run)."""
    import pandas as pd
    import polars as pl
    import pyarrow as pa

    q, r = named(qdf), named(rdf)

    def recast(frame: Any, how: Callable[[Any], Any]) -> Any:
        return frame.assign(user=how(frame["user"]), item=how(frame["item"]))

    def enum(frame: Any, name: str) -> Any:
        """A polars Enum column of the ids of ``name``, its categories every id of
        the qrels and the run (in order of first appearance)."""
        ids = dict.fromkeys([*q[name].tolist(), *r[name].tolist()])
        return pl.col(name).cast(pl.Enum(list(ids)))

    views = (
        {"Arrow table (string_view)": (arrow(q, pa.string_view()), arrow(r, pa.string_view()))}
        if hasattr(pa, "string_view")  # pyarrow 16 and later
        else {}
    )
    nullable = {"user": "Int64", "item": "Int64"}
    return {
        "int64 (pandas)": (qdf, rdf),
        "int64, 63-bit ids (hashed)": (wide(qdf), wide(rdf)),
        "pandas Int64 (nullable, no null)": (qdf.astype(nullable), rdf.astype(nullable)),
        "pandas str": (q, r),
        "pandas str, digits": (
            recast(qdf, lambda s: s.astype("str")),
            recast(rdf, lambda s: s.astype("str")),
        ),
        "pandas Categorical": (
            recast(q, lambda s: s.astype("category")),
            recast(r, lambda s: s.astype("category")),
        ),
        "pandas object": (
            recast(q, lambda s: s.astype(object)),
            recast(r, lambda s: s.astype(object)),
        ),
        "pandas object, reordered": (reordered(q), reordered(r)),
        "pandas object, shared": (recast(q, one_object_per_id), recast(r, one_object_per_id)),
        "polars String": (pl.from_pandas(q), pl.from_pandas(r)),
        "polars Categorical": (
            pl.from_pandas(q).with_columns(pl.col("user", "item").cast(pl.Categorical)),
            pl.from_pandas(r).with_columns(pl.col("user", "item").cast(pl.Categorical)),
        ),
        "polars Enum": (
            pl.from_pandas(q).with_columns(enum(q, "user"), enum(q, "item")),
            pl.from_pandas(r).with_columns(enum(r, "user"), enum(r, "item")),
        ),
        "Arrow table (string)": (arrow(q, pa.string()), arrow(r, pa.string())),
        "Arrow table (large_string)": (arrow(q, pa.large_string()), arrow(r, pa.large_string())),
        "Arrow table (dictionary)": (
            arrow(q, pa.dictionary(pa.int32(), pa.string())),
            arrow(r, pa.dictionary(pa.int32(), pa.string())),
        ),
        **views,
        "int64 (Arrow table)": (
            pa.Table.from_pandas(pd.DataFrame(qdf), preserve_index=False),
            pa.Table.from_pandas(pd.DataFrame(rdf), preserve_index=False),
        ),
    }


def write_files(qdf: Any, rdf: Any, folder: str) -> dict[str, tuple[str, str]]:
    """Parquet, CSV and TREC files with int64 and with string ids (a TREC file's int64
    ids written as their digits)."""
    paths: dict[str, tuple[str, str]] = {}
    frames = {"int64": (qdf, rdf), "string": (named(qdf), named(rdf))}
    for label, (q, r) in frames.items():
        for fmt in ("parquet", "csv"):
            qp, rp = (os.path.join(folder, f"{x}-{label}.{fmt}") for x in ("q", "r"))
            if fmt == "parquet":
                q.to_parquet(qp, index=False)
                r.to_parquet(rp, index=False)
            else:
                import pyarrow as pa
                import pyarrow.csv

                pyarrow.csv.write_csv(pa.Table.from_pandas(q, preserve_index=False), qp)
                pyarrow.csv.write_csv(pa.Table.from_pandas(r, preserve_index=False), rp)
            paths[f"{fmt} {label}"] = (qp, rp)
    for label, (q, r) in frames.items():
        qp, rp = (os.path.join(folder, f"{x}-{label}.trec") for x in ("q", "r"))
        with open(qp, "w") as fh:
            rows = zip(q["user"].tolist(), q["item"].tolist(), q["grade"].tolist(), strict=True)
            for u, i, g in rows:
                fh.write(f"{u} 0 {i} {g}\n")
        with open(rp, "w") as fh:
            rows = zip(r["user"].tolist(), r["item"].tolist(), r["score"].tolist(), strict=True)
            for rank, (u, i, s) in enumerate(rows):
                fh.write(f"{u} Q0 {i} {rank} {s!r} run\n")
        paths[f"TREC {label}"] = (qp, rp)
    return paths


def frame_case(q: Any, r: Any) -> Callable[[], Any]:
    return lambda: receval.evaluate(receval.Qrels.from_frame(q), receval.Run.from_frame(r), METRICS)


def file_case(qp: str, rp: str) -> Callable[[], Any]:
    return lambda: receval.evaluate(receval.Qrels.from_file(qp), receval.Run.from_file(rp), METRICS)


def timed(
    cases: dict[str, Callable[[], Any]], runs: int, references: dict[str, str]
) -> dict[str, dict[str, Any]]:
    """Time ``cases`` in turn: each case's median seconds, peak extra memory, whether its
    report is that of its int64 case (named in ``references``; "int64 (pandas)" for a
    case not named there) ("yes", "NO"; "" for a case without a report) and the error
    that stopped it (or None)."""
    names = list(cases)
    results: dict[str, Interleaved] = dict(
        zip(names, interleaved([cases[n] for n in names], runs, keep_values=False), strict=True)
    )
    out = {}
    for name, m in results.items():
        same = ""
        if isinstance(m.value, receval.EvaluationReport):
            reference = results[references.get(name, "int64 (pandas)")].value
            same = "yes" if m.value.mean == reference.mean else "NO"
        out[name] = {
            "seconds": m.seconds,
            "peak": m.peak_extra_mib,
            "same": same,
            "error": m.error,
        }
    return out


def table(
    processes: list[dict[str, Any]], base: dict[str, str]
) -> tuple[list[str], dict[str, tuple[float, float]]]:
    """Rows of the cases timed in each of ``processes`` (:func:`timed`): the median
    over the processes of each case's time, of its ratio to the case named in
    ``base`` (time and memory; each ratio of one process's figures) and the range of
    the time ratio; "same report" only when it was the same in every process. With
    them, the median time and memory ratios of receval's cases (those with a report)."""
    lines = []
    ratios_of: dict[str, tuple[float, float]] = {}
    for name, first in processes[0].items():
        runs = [p[name] for p in processes]
        errors = [m["error"] for m in runs if m["error"] is not None]
        if errors:
            lines.append(row([name, errors[0], "", "", "", "", ""]))
            continue
        seconds = median([m["seconds"] for m in runs])
        peak = median([m["peak"] for m in runs])
        time_ratio = mem_ratio = spread = ""
        if name in base:
            bases = [p[base[name]] for p in processes]
            ratios = [m["seconds"] / b["seconds"] for m, b in zip(runs, bases, strict=True)]
            mems = [m["peak"] / max(b["peak"], 1) for m, b in zip(runs, bases, strict=True)]
            time_ratio = f"{median(ratios):.2f}x"
            spread = f"{min(ratios):.2f}-{max(ratios):.2f}"
            mem_ratio = f"{median(mems):.2f}x"
            if first["same"]:
                ratios_of[name] = (median(ratios), median(mems))
        sames = {m["same"] for m in runs}
        same = first["same"] if len(sames) == 1 else "NO"
        lines.append(
            row([name, f"{seconds:.3f}", time_ratio, spread, f"{peak:.0f}", mem_ratio, same])
        )
    return lines, ratios_of


def row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def object_bytes(frame: Any) -> int:
    """The memory of the ``str`` objects of ``frame``'s user and item columns as an object
    column holds them (one a row): CPython's allocator gives each a block of a multiple
    of 16 bytes, its header, text and NUL (``sys.getsizeof``) rounded up."""
    header = sys.getsizeof("")  # a compact ASCII str's header and NUL
    total = 0
    for name in ("user", "item"):
        lengths = frame[name].str.len().to_numpy(dtype=np.int64)
        total += int(((header + lengths + 15) // 16 * 16).sum())
    return total


def read_case(n_bytes: int) -> Callable[[], Any]:
    """A read of ``n_bytes`` of memory in order, one part a thread of receval's core
    (NumPy's sum of as many bytes of int64, which releases the GIL): the least time in
    which this machine reads that many bytes as Python's objects lie, on pages of 4 KiB
    (an anonymous map, which Linux backs with huge pages only where asked, as it is not
    for Python's allocator; NumPy asks for its own arrays, read a third faster)."""
    import mmap
    from concurrent.futures import ThreadPoolExecutor

    from receval._kernels import num_threads

    words = np.frombuffer(mmap.mmap(-1, n_bytes // 8 * 8), dtype=np.int64)
    words[:] = 1
    parts = np.array_split(words, num_threads())
    pool = ThreadPoolExecutor(len(parts))
    return lambda: sum(pool.map(np.sum, parts))


READ = "reading the run's objects' memory alone"


def ids_read_case(qp: str, rp: str) -> Callable[[], Any]:
    """A read of the user and item columns of the Parquet files ``qp`` and ``rp`` by
    polars' ``read_parquet`` and nothing else: the part of a Parquet case that is the
    file's decoding of its ids (``evaluate`` reads them with polars too: string ids
    so, int64 ids row group by row group through its streaming engine, which decodes
    them as fast)."""
    import polars as pl

    return lambda: [pl.read_parquet(p, columns=["user", "item"]) for p in (qp, rp)]


#: the catalogue of the cases of fewer items (a prime: see ``make_data``)
FEW_ITEMS = 20_011

#: the Parquet cases whose id columns are also read alone: int64 ids, string ids
PARQUET = ("parquet int64", "parquet string")


#: the Parquet cases also run without polars (pyarrow's reader, as an install without
#: the ``polars`` extra reads them)
ARROW_READER = " (pyarrow's reader, no polars)"


def without_polars(case: Callable[[], Any]) -> Callable[[], Any]:
    """``case`` run with receval reading Parquet files as it does where polars is not
    installed."""
    from receval.data import io

    def run() -> Any:
        io._PARQUET_WITH_POLARS = False
        try:
            return case()
        finally:
            io._PARQUET_WITH_POLARS = True

    return run


def ids_read(fmt: str) -> str:
    """The name of the case that reads the id columns of the Parquet files ``fmt``."""
    return f"reading {fmt}'s id columns alone"


def bench(n_users: int, runs: int) -> dict[str, Any]:
    """One process's table (:func:`timed`), the ratio each case is taken against
    (``base``), the object columns' bytes and the run's rows."""
    qdf, rdf = make_data(n_users)
    inputs = kinds(qdf, rdf)
    cases: dict[str, Callable[[], Any]] = {}
    n_bytes = object_bytes(named(rdf))
    for k, (q, r) in inputs.items():
        cases[k] = frame_case(q, r)
        if k == "pandas object, shared":
            cases[READ] = read_case(n_bytes)
    base = {k: "int64 (pandas)" for k in cases if k not in ("int64 (Arrow table)", READ)}
    for name in cases:
        if name.startswith("Arrow table ("):
            base[name] = "int64 (Arrow table)"
    with tempfile.TemporaryDirectory() as folder:
        for name, (qp, rp) in write_files(qdf, rdf, folder).items():
            cases[name] = file_case(qp, rp)
            fmt = name.split()[0]
            base[name] = f"{fmt} int64"
            if name in PARQUET:
                cases[ids_read(name)] = ids_read_case(qp, rp)
                cases[name + ARROW_READER] = without_polars(file_case(qp, rp))
                base[name + ARROW_READER] = f"{fmt} int64{ARROW_READER}"
        users = [str(u) for u in np.unique(qdf["user"].to_numpy()).tolist()]
        cases["pytrec_eval (pandas int64)"] = pytrec_case(lambda: (qdf, rdf), users)
        base["pytrec_eval (pandas int64)"] = "int64 (pandas)"
        # the same users and lists over a catalogue of fewer items
        few_q, few_r = make_data(n_users, items=FEW_ITEMS)
        int_few, str_few = (f"{kind}, {FEW_ITEMS:,} items" for kind in ("int64", "pandas str"))
        cases[int_few] = frame_case(few_q, few_r)
        cases[str_few] = frame_case(named(few_q), named(few_r))
        base[str_few] = int_few
        for key in (
            "int64 (pandas)",
            "parquet int64",
            "csv int64",
            "TREC int64",
            PARQUET[0] + ARROW_READER,
        ):
            base.pop(key, None)
        results = timed(cases, runs, {int_few: int_few, str_few: int_few})
    return {"results": results, "base": base, "bytes": n_bytes, "rows": len(rdf)}


def in_processes(n: int, users: int, runs: int) -> list[dict[str, Any]]:
    """:func:`bench` in ``n`` new processes, one after another."""
    import json
    import subprocess

    out = []
    with tempfile.TemporaryDirectory() as folder:
        for k in range(n):
            path = os.path.join(folder, f"{k}.json")
            command = [sys.executable, os.path.abspath(__file__), "--users", str(users)]
            subprocess.run([*command, "--runs", str(runs), "--child", path], check=True)
            with open(path) as fh:
                out.append(json.load(fh))
            print(f"process {k + 1} of {n} done", flush=True)
    return out


def encoding(rdf: Any, runs: int) -> list[str]:
    """The run's item ids (pandas ``str``, Arrow ``large_string``) encoded alone: codes in
    order of first appearance and the distinct ids, by receval's core (the call
    ``evaluate`` makes for them) and by the libraries' own encoders; rows with the
    ratio of each to receval's time."""
    import pandas as pd
    import polars as pl
    import pyarrow as pa
    import pyarrow.compute as pc

    from receval._kernels import compiled, num_threads
    from receval.data._string_buffers import factorize_strings

    core = compiled()
    items = named(rdf)["item"]
    column = pa.array(items)
    series = pl.from_arrow(column)
    objects = items.astype(object).to_numpy()  # one str object a row
    # each case with the codes of its result
    cases: dict[str, tuple[Callable[[], Any], Callable[[Any], Any]]] = {
        "receval (the core's hash of the Arrow buffers)": (
            lambda: factorize_strings(column),
            lambda r: r[0],
        ),
        "receval (an object column, one `str` a row)": (
            lambda: core.factorize_str(objects, num_threads()),
            lambda r: r[0],
        ),
        "pyarrow `pc.dictionary_encode`": (
            lambda: pc.dictionary_encode(column),
            lambda r: r.indices.to_numpy(),
        ),
        "pandas `pd.factorize` (of the `str` column)": (
            lambda: pd.factorize(items),
            lambda r: r[0],
        ),
        "polars `cast(pl.Categorical)`": (
            lambda: series.cast(pl.Categorical),
            lambda r: r.to_physical().to_numpy(),
        ),
        "pandas `pd.factorize` (of the object column)": (
            lambda: pd.factorize(objects),
            lambda r: r[0],
        ),
    }
    names = list(cases)
    timed = interleaved([cases[n][0] for n in names], runs, keep_values=False)
    results = dict(zip(names, timed, strict=True))
    ours = results[names[0]]
    reference = np.asarray(cases[names[0]][1](ours.value))
    lines = []
    for name in names:
        m = results[name]
        codes = np.asarray(cases[name][1](m.value))
        same = "yes" if same_ids(reference, codes) else "NO"
        ratio = f"{m.seconds / ours.seconds:.2f}x"
        lines.append(row([name, f"{m.seconds:.3f}", ratio, f"{m.peak_extra_mib:.0f}", same]))
        print(lines[-1], flush=True)
    return lines


def same_ids(reference: Any, codes: Any) -> bool:
    """Whether ``codes`` tell the same rows apart as ``reference`` (dense codes from 0):
    one code of ``codes`` for each code of ``reference``, and the other way round."""
    if len(codes) != len(reference):
        return False
    other = np.full(int(reference.max()) + 1, -1, dtype=np.int64)
    other[reference] = codes
    return bool((other[reference] == codes).all()) and len(np.unique(other)) == len(other)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="3k users, 3 runs, 2 processes, print only"
    )
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3, help="timed runs of every case")
    parser.add_argument(
        "--processes", type=int, default=5, help="processes that time the table in turn"
    )
    parser.add_argument("--out", default=os.path.join(ROOT, "docs", "benchmarks.md"))
    parser.add_argument("--child", help=argparse.SUPPRESS)  # one process's table, as JSON
    args = parser.parse_args()
    if args.child:
        import json

        with open(args.child, "w") as fh:
            json.dump(bench(args.users, args.runs), fh)
        return
    users, runs, n = (3_000, 3, 2) if args.quick else (args.users, args.runs, args.processes)
    load_before = os.getloadavg()
    head = [
        row(
            [
                "ids",
                "time (s)",
                "x int64",
                "x int64, range",
                "peak extra (MiB)",
                "memory x int64",
                "same report",
            ]
        ),
        row(["---"] * 7),
    ]
    processes = in_processes(n, users, runs)
    base, n_rows, n_bytes = processes[0]["base"], processes[0]["rows"], processes[0]["bytes"]
    results = [p["results"] for p in processes]
    lines, ratios_of = table(results, base)
    print("\n".join(head + lines), flush=True)
    read = median([r[READ]["seconds"] for r in results])
    more = median([r["pandas object"]["seconds"] - r["pandas str"]["seconds"] for r in results])
    trec_text = median([r["TREC int64"]["seconds"] / r[PARQUET[0]]["seconds"] for r in results])
    # the Parquet cases less the reads of their id columns
    reads = {k: median([r[ids_read(k)]["seconds"] for r in results]) for k in PARQUET}
    pq_more = median([r[PARQUET[1]]["seconds"] - r[PARQUET[0]]["seconds"] for r in results])
    pq_net = median(
        [
            (r[PARQUET[1]]["seconds"] - r[ids_read(PARQUET[1])]["seconds"])
            / (r[PARQUET[0]]["seconds"] - r[ids_read(PARQUET[0])]["seconds"])
            for r in results
        ]
    )
    # receval's cases whose median ratio, rounded as the table shows it, is above 1.5x
    above = {
        what: [k for k, r in ratios_of.items() if round(r[at], 2) > 1.5]
        for at, what in enumerate(("time", "memory"))
    }
    rdf = make_data(users)[1]
    encode_head = [
        row(["encoder", "time (s)", "x receval", "peak extra (MiB)", "same ids"]),
        row(["---"] * 5),
    ]
    print("\n".join(encode_head), flush=True)
    encode_lines = encoding(rdf, runs)
    load = load_line(load_before, os.getloadavg())
    print(load)
    if args.quick:
        return
    body = f"""## Ids of every kind

Reproduce: `{command_line()}` (needs `pip install -e '.[bench]'
pytrec-eval-terrier`; writes this section; `--quick` runs 3k users in 2 processes and prints
only). `evaluate` of
{", ".join(METRICS)} over {users:,} users and {n_rows:,} run rows (the data of
the ranking section), from receval's containers built in the call: the ids as
int64 (and as pandas' nullable `Int64`; "63-bit ids": each id spread over the whole
int64 range, as 64-bit hashed or snowflake ids are, which the core hashes), as
strings that are not numbers
(`u-17`, `doc-4711`) in each kind of column ("pandas str, digits": the int64 ids
written as their digits, `17`, which are coded as their integers), and from files
("pandas object": one `str` object a row, as `astype(object)` makes them;
"pandas object, reordered": those rows shuffled and sorted by user again, as a
frame sorted after its strings were made, its objects out of address order;
"pandas object, shared": one a distinct id, as pandas' CSV reader gives them,
which the core reads once each).
"x int64" is the ratio to the int64 ids of the same source (the pandas frame; the
Arrow table; the Parquet, CSV or TREC files of int64 ids, a TREC file's written as
their digits); pytrec_eval builds its nested dicts
of str from the int64 frame inside its timing. Every case runs in turn (A B C, B C
A, C A B ...), {runs} runs each, medians (a run's result dropped before its case runs
again: results kept would grow the process, and on a machine that backs memory at
first use the runs after would pay for it); peak extra memory is the rise of the
resident high-water mark during a call. The whole table runs so in {n} new processes,
one after another: on a machine shared with other work the int64 case's own time
moves between processes (from {min(r["int64 (pandas)"]["seconds"] for r in results):.3f}
to {max(r["int64 (pandas)"]["seconds"] for r in results):.3f} s in this run) by more than the
rounds of one process show, and a ratio of one process can fall on either side of
a line that the median over processes does not. Each row gives the median over the
processes of its time, of its ratio to int64 ("x int64", each ratio of one process's
medians) and of its memory ratio, and the range of "x int64" over the processes.
"same report": the mean of every metric equals that of int64 ids (in every process).
The last two rows hold the same users and lists over a catalogue of {FEW_ITEMS:,}
items, not {CATALOGUE:,} ("x int64": the string ids' ratio to the int64 ids of
those items): a column of fewer distinct ids is coded through a smaller table,
made with room for as many ids as the column's first rows tell of, which the caches
nearest the core hold.

{chr(10).join(head + lines)}

Rows whose median "x int64" is above 1.5x:
{", ".join(f'"{a}"' for a in above["time"]) or "none"}; whose median "memory x int64" is:
{", ".join(f'"{a}"' for a in above["memory"]) or "none"}.

Where the time of Parquet files goes: "{PARQUET[1]}" took {pq_more:.3f} s more than
"{PARQUET[0]}". Reading the user and item columns of both files alone (polars'
`read_parquet` of the two columns; `evaluate` reads them with polars too, string ids
whole and int64 ids row group by row group; the "reading ... alone" rows) took
{reads[PARQUET[1]]:.3f} s for the string ids and {reads[PARQUET[0]]:.3f} s for the int64 ids:
{reads[PARQUET[1]] - reads[PARQUET[0]]:.3f} s of the difference is the decoding of the strings
(Snappy-compressed pages holding each id's length and text, made into Arrow string
views), the rest their coding, as for "pandas str". Less those reads,
"{PARQUET[1]}" took {pq_net:.2f}x the time of "{PARQUET[0]}" (the median over the
processes). The rows "parquet ...{ARROW_READER}" read the same files as an install without
polars does: pyarrow decodes the row groups of a column on threads of receval's, one
a thread, each id of the item column a string; the user column, whose ids come in runs
and are stored as dictionary indices (less than a byte a row), is read as each row
group's dictionary array and grouped by the runs of each one's indices, only the
first row of a run looked up. "TREC int64" (its scores
written as text, up to 17 digits each) took
{trec_text:.2f}x the time of "{PARQUET[0]}".

Where the time of string ids goes: int64 ids over a compact range are coded
through a direct-address table; string ids, and integer ids of a wide range, must be
hashed. The run's
{n_rows:,} item ids alone (pandas `str`, an Arrow `large_string` column), coded
in order of first appearance with their distinct ids, by receval's core (the
call `evaluate` makes for them) and by the libraries' own encoders, in turn as above
("same ids": the codes tell the same rows apart as receval's, one code for one code).
The core makes the keys of a block of 64 rows, hashes them and fetches the table slot
of each before it looks any up, so that their cache misses overlap; the offsets (or
views) of the rows 8 blocks on, and their text 4 blocks on, are fetched as well: the
lookups' random accesses keep the processor's own fetching of a column's buffers from
running ahead, and each block would otherwise wait on the memory of its rows:

{chr(10).join(encode_head + encode_lines)}

The strings of an object column are Python objects, each a separate allocation
(about 60 bytes for an id of 10, where an Arrow column holds the same id in 18
bytes of two buffers read in order). The stable ABI reads a `str`'s text only on
the thread that holds the GIL; a compact ASCII `str` (almost every id) holds its
text right after its header, and on CPython 3.10 to 3.14 receval's core reads it
there, on every thread (the calling thread keeping the GIL, and with it the
objects, until they are done), through the same parallel hash as an Arrow column,
reading the objects' memory: 64 bytes a row, against about 15 of an Arrow column.
The run's {2 * n_rows:,} objects hold {n_bytes / 1e6:,.0f} MB; "{READ}"
reads as many bytes in order on every thread, on pages of 4 KiB as Python's
allocator gives its objects (NumPy's sum of int64, in the same rounds as the other
cases), in {read:.3f} s; "pandas object" took
{more:.3f} s more than "pandas str" (medians over the processes). Each object is
fetched into the second-level cache 64 rows before it is read, so that objects out of
address order (a frame sorted after its strings were made, "pandas object,
reordered") are not each waited on in turn. The users' rows, in runs, are compared
with the row before as they are read: a block of 16 rows whose texts all equal the
row before's is passed without a key made of any of them.
A column holding an id that is not ASCII, or another object than a `str`, is read
through the C API, a window of rows at a time on the thread that holds the GIL
while the other threads code the window before it; as pandas' CSV reader gives
them (one object a distinct id), each object is read once.

{environment()}
{peer_versions("pytrec-eval-terrier", "pyarrow", "pandas", "polars")}
{load}
"""
    replace_section(args.out, "ids", body)


if __name__ == "__main__":
    main()

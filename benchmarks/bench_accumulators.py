"""Streaming accumulators (``receval.metric``): update overhead, long streams, binned AUC.

    python benchmarks/bench_accumulators.py            # full run, rewrites docs/benchmarks.md
    python benchmarks/bench_accumulators.py --quick    # 2M-row streams, 200 calls, print only
    python benchmarks/bench_accumulators.py --rows 10000000 --out /tmp/acc.md

Four measurements, in one process:

0. Accumulator against function (the table at the top): 1,000 updates of
   10,000 rows (``--versus-rows``, held in memory) and ``compute()`` against
   the function on all the rows, for exact ``roc_auc``, ``log_loss`` (plain and
   weighted), ``rmse``, ``mae``, ``ips`` and ``gauc``: time ratio, worst single
   update, peak extra memory ratio.

1. ``update`` overhead: median time of one ``Accumulator.update`` on 1k rows
   against one call of the metric's function on the same rows (and
   scikit-learn's function for scale), interleaved A B A B, the same number
   of calls each; once with the core's default threads, once in a new process
   with ``RECEVAL_NUM_THREADS=1``.
2. Streams of ``--rows`` rows in 64k-row batches, each batch drawn on the fly
   from a seeded generator (the data never exists whole): exact ``roc_auc``
   and ``gauc``, run in turn (A B C, B C A, C A B ..., ``--runs`` rounds); total and
   per-batch time of the median run, what the state holds, peak memory.
   A ``--check-rows`` stream is also held whole and compared with ``==``.
3. ``roc_auc`` with ``bins=N``: value, certified bound and true error against
   the exact AUC of the same stream (the bound is asserted).

Beside the first table, log loss per core: in a new process with
``RECEVAL_NUM_THREADS=1``, the CPU time per row of ``receval.log_loss`` against
the NumPy expression of the clipped loss, on the ``--versus-rows`` rows with
float32 and float64 probabilities, called in turn.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from itertools import pairwise
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import receval
from _harness import (
    command_line,
    environment,
    interleaved,
    load_line,
    replace_section,
    status_mib,
)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BATCH = 1 << 16
GROUP = 100  # mean rows per GAUC group
BINS = (100, 1000, 10000, 100000)
SMALL = 1000  # rows per call in the overhead measurement
VERSUS_BATCH = 10_000  # rows per update of the streams timed against the function


# ------------------------------------------------------------------ data
def batches(rows: int, batch: int = BATCH, seed: int = 0) -> Iterator[tuple[Any, Any, Any]]:
    """``(y_true int8, y_score float32, groups int64)`` batches of ``batch`` rows.

    CTR-like: a logistic model with a per-group bias, ~5% positives; the score
    is that model's probability with noise on the logit, rounded to float32.
    Groups have Poisson(99)+1 rows; a batch holds whole groups (the group that
    would cross the batch's end is cut there), ids increase across batches.
    """
    rng = np.random.default_rng(seed)
    next_group = 0
    done = 0
    while done < rows:
        n = min(batch, rows - done)
        lengths = rng.poisson(GROUP - 1, n // (GROUP // 2) + 16) + 1
        ends = np.cumsum(lengths)
        k = int(np.searchsorted(ends, n)) + 1
        lengths = lengths[:k]
        lengths[-1] -= int(ends[k - 1]) - n
        groups = np.repeat(np.arange(next_group, next_group + k, dtype=np.int64), lengths)
        logit = rng.normal(-3.45, 1.0, n) + np.repeat(rng.normal(0.0, 0.7, k), lengths)
        y = (rng.random(n) < 1.0 / (1.0 + np.exp(-logit))).astype(np.int8)
        s = (1.0 / (1.0 + np.exp(-(logit + rng.normal(0.0, 0.8, n))))).astype(np.float32)
        yield y, s, groups
        next_group += k
        done += n


# ------------------------------------------------------------------ 1. update overhead
def per_call(cases: list[tuple[str, Callable[[int], Any]]], calls: int) -> dict[str, float]:
    """µs per call of each case (median, and ``label_mean``, ``label_p99``), the cases
    called in turn (A B A B ...)."""
    times = {label: np.empty(calls) for label, _ in cases}
    clock = time.perf_counter_ns
    for i in range(calls):
        for label, fn in cases:
            start = clock()
            fn(i)
            times[label][i] = clock() - start
    out = {}
    for label, t in times.items():
        out[label] = float(np.median(t)) / 1e3
        out[label + "_mean"] = float(t.mean()) / 1e3
        out[label + "_p99"] = float(np.percentile(t, 99)) / 1e3
    return out


def bench_overhead(calls: int, reset_every: int) -> list[dict[str, Any]]:
    """Per-call times of every metric's function, ``update`` and scikit-learn, in this
    process (the core's threads as set by ``RECEVAL_NUM_THREADS`` or the cores)."""
    from sklearn.metrics import log_loss as sk_log_loss
    from sklearn.metrics import roc_auc_score as sk_roc_auc

    from receval._kernels import num_threads

    y, s, g = next(batches(SMALL, SMALL, seed=1))
    g = g - g[0]
    n_groups = int(g[-1]) + 1
    # whole groups per update: a group id is never given twice, so each call gets new ids
    shifted = [g + (i % reset_every) * n_groups for i in range(max(calls, 20))]
    specs = [
        ("log_loss", "log_loss", lambda: receval.log_loss(y, s), lambda a, i: a.update(y, s),
         lambda: sk_log_loss(y, s)),
        ("roc_auc", "roc_auc_score", lambda: receval.roc_auc_score(y, s),
         lambda a, i: a.update(y, s), lambda: sk_roc_auc(y, s)),
        ("gauc", "gauc_score", lambda: receval.gauc_score(y, s, groups=g),
         lambda a, i: a.update(y, s, groups=shifted[i]), None),
        ("normalized_entropy", "normalized_entropy", lambda: receval.normalized_entropy(y, s),
         lambda a, i: a.update(y, s), None),
    ]  # fmt: skip
    threads = num_threads()
    out = []
    for name, func, fn, upd, peer in specs:
        load = os.getloadavg()[0]
        out.append({"metric": name, "function": func, "threads": threads})
        out[-1].update(overhead_of(name, fn, upd, peer, calls, reset_every))
        med = out[-1]
        med["load"] = (load, os.getloadavg()[0])
        print(
            f"overhead {name}, {threads} threads: function "
            f"{med['function_us']:.1f} µs (mean {med['function_us_mean']:.0f}), update "
            f"{med['update']:.1f} µs (mean {med['update_mean']:.0f})"
            + (f", sklearn {med['sklearn']:.1f} µs" if "sklearn" in med else ""),
            flush=True,
        )
    return out


def overhead_one_thread(calls: int, reset_every: int) -> list[dict[str, Any]]:
    """:func:`bench_overhead` in a new process with ``RECEVAL_NUM_THREADS=1`` (the core
    reads its thread count once per process)."""
    if receval_threads() == 1:
        return []
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "overhead.json")
        cmd = [sys.executable, os.path.abspath(__file__), "--overhead-json", path]
        cmd += ["--calls", str(calls), "--reset-every", str(reset_every)]
        env = dict(os.environ, RECEVAL_NUM_THREADS="1")
        subprocess.run(cmd, env=env, check=True)
        with open(path) as fh:
            return json.load(fh)


def receval_threads() -> int:
    from receval._kernels import num_threads

    return num_threads()


def overhead_of(
    name: str,
    fn: Callable[[], Any],
    upd: Callable[[Any, int], Any],
    peer: Callable[[], Any] | None,
    calls: int,
    reset_every: int,
) -> dict[str, float]:
    """Per-call times of the function, ``update`` and the peer, called in turn."""
    acc = receval.metric(name)
    for i in range(20):  # kernels compiled / loaded from cache, caches warm
        fn(), upd(acc, i)
        if peer is not None:
            peer()
    acc.reset()

    def update(i: int) -> None:
        if i % reset_every == 0 and i:  # a few µs, in the timed call
            acc.reset()
        upd(acc, i)

    cases = [("function_us", lambda i: fn()), ("update", update)]
    if peer is not None:
        cases.append(("sklearn", lambda i: peer()))
    return per_call(cases, calls)


# ------------------------------------------------------------------ 2. streams
def auc_state_bytes(acc: receval.Accumulator) -> tuple[int, int]:
    """Keys held by an exact roc_auc accumulator (each label's keys per run, plus the
    rows buffered) and their bytes (the core's runs and buffers)."""
    counts = acc.state.plain
    return counts.entries, counts.nbytes


def groups_state_bytes(acc: receval.Accumulator) -> tuple[int, int]:
    """Groups seen by a gauc accumulator and the bytes of their ids (private state: a
    sorted int64 array for integer ids, a set for other ids)."""
    seen = acc._state.seen
    n = len(seen.ints) + len(seen.ids)
    nbytes = seen.ints.nbytes
    if seen.ids:
        nbytes += sys.getsizeof(seen.ids) + sum(sys.getsizeof(x) for x in seen.ids)
    return n, nbytes


def stream(rows: int, feed: Callable[[Any, Any, Any], None]) -> dict[str, Any]:
    """Feed every batch to ``feed``; per-batch update times (generation excluded)."""
    per_batch = []
    generation = 0.0
    clock = time.perf_counter
    start = clock()
    it = batches(rows)
    positives = 0
    while True:
        t0 = clock()
        batch = next(it, None)
        generation += clock() - t0
        if batch is None:
            break
        positives += int(batch[0].sum())
        t0 = clock()
        feed(*batch)
        per_batch.append(clock() - t0)
    times = np.array(per_batch)
    return {
        "rows": rows,
        "batches": len(times),
        "update_s": float(times.sum()),
        "wall_s": clock() - start,
        "generation_s": generation,
        "median_ms": 1e3 * float(np.median(times)),
        "first_ms": 1e3 * float(np.median(times[:10])),
        "last_ms": 1e3 * float(np.median(times[-10:])),
        "max_ms": 1e3 * float(times.max()),
        "positive_rate": positives / rows,
    }


def timed_streams(cases: list[tuple[str, int, Callable[[], tuple]]], runs: int) -> list[dict]:
    """The streams in turn (A B C, B C A, C A B ..., ``runs`` rounds; harness's ``interleaved``):
    for each, the statistics of the run whose total time is the median, the largest
    peak extra memory and process peak over the runs, and the load around the rounds."""
    got = interleaved([make for _, _, make in cases], runs, warmup=False)
    out = []
    for (label, rows, _), m in zip(cases, got, strict=True):
        stats, extra = m.median_value
        stats = {**stats, **extra}
        stats["label"] = label
        stats["runs"] = len(m.runs)
        stats["update_runs_s"] = [v[0]["update_s"] for v in m.values]
        stats["peak_extra_mib"] = m.peak_extra_mib
        stats["process_peak_mib"] = max(v[1]["process_peak_mib"] for v in m.values)
        stats["load"] = m.load
        print(
            f"{label}, {rows:,} rows, {len(m.runs)} runs: updates "
            f"{', '.join(f'{x:.1f}' for x in stats['update_runs_s'])} s "
            f"(median run: wall {stats['wall_s']:.1f} s, generation {stats['generation_s']:.1f} "
            f"s), median batch {stats['median_ms']:.1f} ms, first/last {stats['first_ms']:.1f}/"
            f"{stats['last_ms']:.1f} ms, {stats['state']}, peak extra {m.peak_extra_mib:.0f} "
            f"MiB, value {stats['value']!r}",
            flush=True,
        )
        out.append(stats)
    return out


def auc_by_update(rows: int) -> tuple[dict[str, Any], dict[str, Any]]:
    acc = receval.metric("roc_auc")
    stats = stream(rows, lambda y, s, g: acc.update(y, s))
    t0 = time.perf_counter()
    value = acc.compute()
    compute_s = time.perf_counter() - t0
    n, nbytes = auc_state_bytes(acc)
    return stats, {
        "value": value,
        "compute_s": compute_s,
        "held": n,
        "state_bytes": nbytes,
        "state": f"{n:,} keys (each label's scores per run), {nbytes / 2**20:,.0f} MiB",
        "process_peak_mib": status_mib("VmHWM"),
    }


class MergeTree:
    """Exact roc_auc by merging per-batch accumulators as a binary counter: each batch
    is ``update``-d into a fresh accumulator, and accumulators of equal size merge
    (public API only; every row takes part in about log2(batches) merges)."""

    def __init__(self) -> None:
        self.levels: list[receval.Accumulator | None] = []

    def add(self, y: Any, s: Any, g: Any) -> None:
        acc = receval.metric("roc_auc").update(y, s)
        level = 0
        while level < len(self.levels) and self.levels[level] is not None:
            acc = self.levels[level].merge(acc)
            self.levels[level] = None
            level += 1
        if level == len(self.levels):
            self.levels.append(acc)
        else:
            self.levels[level] = acc

    def result(self) -> receval.Accumulator:
        out = None
        for acc in self.levels:
            if acc is not None:
                out = acc if out is None else acc.merge(out)
        self.levels = []
        return out if out is not None else receval.metric("roc_auc")


def auc_by_merge_tree(rows: int) -> tuple[dict[str, Any], dict[str, Any]]:
    tree = MergeTree()
    stats = stream(rows, tree.add)
    t0 = time.perf_counter()
    acc = tree.result()  # the last merges belong to the stream
    stats["update_s"] += time.perf_counter() - t0
    t0 = time.perf_counter()
    value = acc.compute()
    compute_s = time.perf_counter() - t0
    n, nbytes = auc_state_bytes(acc)
    return stats, {
        "value": value,
        "compute_s": compute_s,
        "held": n,
        "state_bytes": nbytes,
        "state": f"{n:,} keys (each label's scores per run), {nbytes / 2**20:,.0f} MiB",
        "process_peak_mib": status_mib("VmHWM"),
    }


def gauc_by_update(rows: int) -> tuple[dict[str, Any], dict[str, Any]]:
    acc = receval.metric("gauc", whole_groups=True)  # batches of whole groups: the sums
    stats = stream(rows, lambda y, s, g: acc.update(y, s, groups=g))
    t0 = time.perf_counter()
    value = acc.compute()
    compute_s = time.perf_counter() - t0
    n, nbytes = groups_state_bytes(acc)
    return stats, {
        "value": value,
        "compute_s": compute_s,
        "held": n,
        "state_bytes": nbytes,
        "state": f"{n:,} groups seen, ids {nbytes / 2**20:,.0f} MiB",
        "process_peak_mib": status_mib("VmHWM"),
    }


def binned(rows: int) -> tuple[dict[str, Any], dict[str, Any]]:
    accs = {bins: receval.metric("roc_auc", bins=bins) for bins in BINS}
    spent = dict.fromkeys(BINS, 0.0)
    clock = time.perf_counter

    def feed(y: Any, s: Any, g: Any) -> None:
        for bins, acc in accs.items():
            t0 = clock()
            acc.update(y, s)
            spent[bins] += clock() - t0

    stats = stream(rows, feed)
    out = {}
    for bins, acc in accs.items():
        state = acc._state  # BinnedCounts: two arrays of n_bins counts
        out[bins] = {
            "result": acc.compute(),
            "update_s": spent[bins],
            "state_bytes": state.pos.nbytes + state.neg.nbytes,
        }
    return stats, {
        "value": None,
        "state": f"{len(BINS)} accumulators",
        "bins": out,
        "process_peak_mib": status_mib("VmHWM"),
    }


def check_small(rows: int) -> dict[str, Any]:
    """Stream ``rows`` rows and compare with the functions on the whole arrays (``==``)."""
    auc, tree, gauc = receval.metric("roc_auc"), MergeTree(), receval.metric("gauc")
    parts = []
    for y, s, g in batches(rows):
        auc.update(y, s)
        tree.add(y, s, g)
        gauc.update(y, s, groups=g)
        parts.append((y, s, g))
    y, s, g = (np.concatenate(c) for c in zip(*parts, strict=True))
    out = {
        "rows": rows,
        "auc": (auc.compute(), receval.roc_auc_score(y, s)),
        "tree": (tree.result().compute(), receval.roc_auc_score(y, s)),
        "gauc": (gauc.compute(), receval.gauc_score(y, s, groups=g)),
    }
    for key in ("auc", "tree", "gauc"):
        streamed, whole = out[key]
        print(f"check {rows:,} rows {key}: {streamed!r} == {whole!r}: {streamed == whole}")
    return out


def versus_functions(rows: int, runs: int) -> list[dict[str, Any]]:
    """Streams fed from batches of ``VERSUS_BATCH`` rows already in memory (a training
    loop's evaluation) against the function on the same rows concatenated: what
    streaming itself costs (every ``update``, then ``compute``).

    The stream and the function of a metric are timed in turn (harness's
    ``interleaved``, ``runs`` rounds after a warm-up); the values must be equal."""
    parts = list(batches(rows, VERSUS_BATCH))
    y, s, g = (np.concatenate(c) for c in zip(*parts, strict=True))
    bounds = list(pairwise(np.cumsum([0] + [len(p[0]) for p in parts]).tolist()))
    w = 0.5 + (g % 7) / 4.0  # weights of the weighted cases
    truth = s + y.astype(np.float64)  # a numeric truth for the errors of s
    pscore = 0.05 + 0.9 * s.astype(np.float64)  # the logging policy's probabilities
    # (label, metric, positional columns, keyword columns, the function on all rows)
    cases: list[tuple[str, str, tuple[Any, ...], dict[str, Any], Callable[[], float]]] = [
        ("exact `roc_auc`", "roc_auc", (y, s), {}, lambda: receval.roc_auc_score(y, s)),
        ("`log_loss`", "log_loss", (y, s), {}, lambda: receval.log_loss(y, s)),
        ("`log_loss`, weighted", "log_loss", (y, s, w), {},
         lambda: receval.log_loss(y, s, sample_weight=w)),
        ("`rmse`", "rmse", (truth, s), {}, lambda: receval.root_mean_squared_error(truth, s)),
        ("`mae`", "mae", (truth, s), {}, lambda: receval.mean_absolute_error(truth, s)),
        ("`ips`", "ips", (y, pscore), {"action_dist": s},
         lambda: receval.ips_estimate(y, pscore, action_dist=s)),
        ("`gauc`", "gauc", (y, s), {"groups": g}, lambda: receval.gauc_score(y, s, groups=g)),
    ]  # fmt: skip
    out = []
    for label, name, columns, keywords, function in cases:

        def streamed(
            name: str = name, columns: tuple[Any, ...] = columns, keywords: Any = keywords
        ) -> tuple[float, ...]:
            acc = receval.metric(name)
            clock = time.perf_counter
            worst = 0.0
            start = clock()
            for lo, hi in bounds:
                t0 = clock()
                acc.update(*(c[lo:hi] for c in columns),
                           **{k: c[lo:hi] for k, c in keywords.items()})  # fmt: skip
                worst = max(worst, clock() - t0)
            updated = clock()
            value = acc.compute()
            return value, updated - start, clock() - updated, worst

        got_stream, got_function = interleaved([streamed, function], runs)
        value, update_s, compute_s, _ = got_stream.median_value
        whole = got_function.median_value
        if value != whole:
            raise AssertionError(f"{name}: stream {value!r} != function {whole!r}")
        out.append(
            {
                "label": label,
                "rows": rows,
                "batches": len(parts),
                "runs": len(got_stream.runs),
                "update_s": update_s,
                "compute_s": compute_s,
                "worst_update_s": max(v[3] for v in got_stream.values),
                "stream_s": got_stream.seconds,
                "function_s": got_function.seconds,
                "stream_peak": got_stream.peak_extra_mib,
                "function_peak": got_function.peak_extra_mib,
                "load": got_stream.load,
            }
        )
        print(
            f"{label}, {rows:,} rows: stream {got_stream.seconds:.3f} s (updates "
            f"{update_s:.3f}, worst {1e3 * out[-1]['worst_update_s']:.1f} ms, compute "
            f"{compute_s:.4f}), function {got_function.seconds:.3f} s, "
            f"ratio {got_stream.seconds / got_function.seconds:.2f}; peak "
            f"{got_stream.peak_extra_mib:.0f} / {got_function.peak_extra_mib:.0f} MiB",
            flush=True,
        )
    return out


def numpy_log_loss(y: Any, p: Any) -> float:
    """The NumPy expression of the binary log loss, probabilities clipped to the
    machine epsilon of their dtype (as ``receval.log_loss``'s ``eps="auto"``)."""
    eps = np.finfo(p.dtype).eps
    c = np.clip(p, eps, 1 - eps)
    return float(-(y * np.log(c) + (1 - y) * np.log(1 - c)).mean())


def per_core(rows: int, runs: int) -> list[dict[str, Any]]:
    """CPU seconds per row of ``receval.log_loss`` and of :func:`numpy_log_loss` in this
    process (run with ``RECEVAL_NUM_THREADS=1``: one core each), float32 and float64
    probabilities, the two called in turn ``runs`` times after a warm-up; medians."""
    y, s, _ = (np.concatenate(c) for c in zip(*batches(rows, VERSUS_BATCH), strict=True))
    out = []
    for p in (s, s.astype(np.float64)):
        cases = [("receval", lambda p=p: receval.log_loss(y, p)),
                 ("numpy", lambda p=p: numpy_log_loss(y, p))]  # fmt: skip
        cpu: dict[str, list[float]] = {label: [] for label, _ in cases}
        for _, fn in cases:
            fn()
        for _ in range(runs):
            for label, fn in cases:
                start = time.process_time()
                fn()
                cpu[label].append(time.process_time() - start)
        out.append(
            {
                "dtype": str(p.dtype),
                "rows": rows,
                "runs": runs,
                **{f"{label}_ns": 1e9 * float(np.median(t)) / rows for label, t in cpu.items()},
                "load": os.getloadavg()[0],
            }
        )
    return out


def per_core_one_thread(rows: int, runs: int) -> list[dict[str, Any]]:
    """:func:`per_core` in a new process with ``RECEVAL_NUM_THREADS=1``."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "per_core.json")
        cmd = [sys.executable, os.path.abspath(__file__), "--per-core-json", path]
        cmd += ["--versus-rows", str(rows), "--runs", str(runs)]
        env = dict(os.environ, RECEVAL_NUM_THREADS="1")
        subprocess.run(cmd, env=env, check=True)
        with open(path) as fh:
            result: list[dict[str, Any]] = json.load(fh)
    for r in result:
        print(
            f"log loss per core, {r['dtype']}: receval {r['receval_ns']:.2f} ns/row, NumPy "
            f"{r['numpy_ns']:.2f} ns/row (CPU), ratio {r['receval_ns'] / r['numpy_ns']:.2f}",
            flush=True,
        )
    return result


def per_core_table(results: list[dict[str, Any]]) -> list[str]:
    if not results:
        return []
    first = results[0]
    lines = [
        f"### Log loss per core, {fmt_rows(first['rows'])} rows",
        "",
        "`receval.log_loss(y, p)` against the NumPy expression `-(y * np.log(c) + (1 - y) "
        "* np.log(1 - c)).mean()`, `c = np.clip(p, eps, 1 - eps)` and `eps` the machine "
        "epsilon of `p`'s dtype (receval's sum is exact, NumPy's is not), on the rows "
        "above (int8 labels), in a new process with `RECEVAL_NUM_THREADS=1`: CPU time "
        f"(`time.process_time`) per row, the median of {first['runs']} calls each, called "
        "in turn after a warm-up.",
        "",
        row(["probabilities", "receval (ns/row)", "NumPy (ns/row)", "receval / NumPy", "load"]),
        row(["---"] * 5),
    ]
    for r in results:
        lines.append(
            row(
                [
                    r["dtype"],
                    f"{r['receval_ns']:.2f}",
                    f"{r['numpy_ns']:.2f}",
                    f"**{r['receval_ns'] / r['numpy_ns']:.2f}x**",
                    f"{r['load']:.1f}",
                ]
            )
        )
    return [*lines, ""]


def versus_table(results: list[dict[str, Any]]) -> list[str]:
    if not results:
        return []
    first = results[0]
    lines = [
        f"### Accumulator against function: {first['batches']:,} updates of "
        f"{VERSUS_BATCH:,} rows, {fmt_rows(first['rows'])} rows held in memory",
        "",
        f"A training loop's evaluation: the same {first['batches']:,} batches of "
        f"{VERSUS_BATCH:,} rows (from the generator above, drawn before the clock starts) "
        "fed to a new accumulator by `update`, then `compute()`, against the function "
        "called once on the concatenated arrays; the two are timed in turn (stream, "
        "function, stream, ...; the harness's `interleaved`, after a warm-up). Stream is "
        "the median time of the whole stream (a new accumulator, every `update`, "
        "`compute()`), function that of the call; the `update` and `compute()` columns "
        "are those of the median stream run, the worst update the slowest single "
        "`update` over all runs. Peak extra memory is measured per call, beyond what "
        "the process held before (the batches and the arrays exist already). The "
        "values are equal (the script stops otherwise).",
        "",
        row(
            [
                "metric",
                "runs",
                "`update` calls (s)",
                "worst update (ms)",
                "`compute()` (s)",
                "stream (s)",
                "function (s)",
                "stream / function",
                "stream peak extra (MiB)",
                "function peak extra (MiB)",
                "memory stream / function",
                "load before / after",
            ]
        ),
        row(["---"] * 12),
    ]
    for r in results:
        lines.append(
            row(
                [
                    r["label"],
                    r["runs"],
                    f"{r['update_s']:.3f}",
                    f"{1e3 * r['worst_update_s']:.1f}",
                    f"{r['compute_s']:.4f}",
                    f"{r['stream_s']:.3f}",
                    f"{r['function_s']:.3f}",
                    f"**{r['stream_s'] / r['function_s']:.2f}x**",
                    f"{r['stream_peak']:.0f}",
                    f"{r['function_peak']:.0f}",
                    # a rise under 1 MiB is not measured: no ratio of two such rises
                    f"{r['stream_peak'] / r['function_peak']:.2f}x"
                    if r["function_peak"] >= 1
                    else "-",
                    f"{r['load'][0]:.1f} / {r['load'][1]:.1f}",
                ]
            )
        )
    return [*lines, ""]


# ------------------------------------------------------------------ report
def row(cells: list[Any]) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def fmt_s(x: float) -> str:
    return f"{x:.2f}" if x < 10 else f"{x:.1f}"


def fmt_rows(n: int) -> str:
    return f"{n / 1e6:g}M" if n >= 1e6 else f"{n:,}"


def overhead_table(results: list[dict[str, Any]]) -> list[str]:
    lines = [
        row(
            [
                "metric",
                "receval threads",
                "function, median (µs)",
                "`update`, median (µs)",
                "update / function",
                "function mean / p99 (µs)",
                "`update` mean / p99 (µs)",
                "sklearn, median (µs)",
                "load before / after",
            ]
        ),
        row(["---"] * 9),
    ]
    for r in results:
        sk = f"{r['sklearn']:,.0f}" if "sklearn" in r else ""
        lines.append(
            row(
                [
                    f"`{r['metric']}` vs `receval.{r['function']}`",
                    r["threads"],
                    f"{r['function_us']:.0f}",
                    f"{r['update']:.0f}",
                    f"**{r['update'] / r['function_us']:.2f}x**",
                    f"{r['function_us_mean']:,.0f} / {r['function_us_p99']:,.0f}",
                    f"{r['update_mean']:,.0f} / {r['update_p99']:,.0f}",
                    sk,
                    f"{r['load'][0]:.1f} / {r['load'][1]:.1f}",
                ]
            )
        )
    return lines


def stream_table(streams: list[dict[str, Any]]) -> list[str]:
    lines = [
        row(
            [
                "case",
                "runs",
                "rows",
                "batches",
                "update time (s)",
                "per batch, median (ms)",
                "first / last 10 batches (ms)",
                "slowest batch (ms)",
                "`compute()` (s)",
                "state held",
                "state bytes / row",
                "peak extra (MiB)",
                "process peak (MiB)",
                "load before / after",
            ]
        ),
        row(["---"] * 14),
    ]
    for st in streams:
        per_row = st["state_bytes"] / st["rows"]
        lines.append(
            row(
                [
                    st["label"],
                    st["runs"],
                    fmt_rows(st["rows"]),
                    f"{st['batches']:,}",
                    fmt_s(st["update_s"]),
                    f"{st['median_ms']:.1f}",
                    f"{st['first_ms']:.1f} / {st['last_ms']:.1f}",
                    f"{st['max_ms']:.0f}",
                    f"{st['compute_s']:.3f}",
                    st["state"],
                    f"{per_row:.1f}",
                    f"{st['peak_extra_mib']:,.0f}",
                    f"{st['process_peak_mib']:,.0f}",
                    f"{st['load'][0]:.1f} / {st['load'][1]:.1f}",
                ]
            )
        )
    return lines


def binned_table(bins_stats: dict[str, Any], exact: float) -> list[str]:
    lines = [
        row(
            [
                "bins",
                "binned AUC",
                "certified bound",
                "true error",
                "bound / error",
                "update time (s)",
                "per batch (ms)",
                "state bytes",
            ]
        ),
        row(["---"] * 8),
    ]
    n_batches = bins_stats["batches"]
    for bins, b in bins_stats["bins"].items():
        res = b["result"]
        err = abs(res.value - exact)
        ratio = f"{res.error_bound / err:,.0f}x" if err > 0 else "exact"
        lines.append(
            row(
                [
                    f"{bins:,}",
                    f"{res.value:.10f}",
                    f"{res.error_bound:.2e}",
                    f"{err:.2e}",
                    ratio,
                    fmt_s(b["update_s"]),
                    f"{1e3 * b['update_s'] / n_batches:.2f}",
                    f"{b['state_bytes']:,}",
                ]
            )
        )
    return lines


# ------------------------------------------------------------------ main
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000_000, help="rows of the streams")
    parser.add_argument(
        "--update-rows",
        type=int,
        default=None,
        help="rows of the exact roc_auc stream fed by update() alone (default: --rows)",
    )
    parser.add_argument("--check-rows", type=int, default=2_000_000, help="rows held whole")
    parser.add_argument(
        "--versus-rows",
        type=int,
        default=10_000_000,
        help="rows of the streams timed against the function (held in memory)",
    )
    parser.add_argument("--calls", type=int, default=1000, help="calls per overhead case")
    parser.add_argument("--reset-every", type=int, default=100, help="overhead: reset period")
    parser.add_argument("--runs", type=int, default=3, help="timed runs of every stream")
    parser.add_argument(
        "--versus-runs",
        type=int,
        default=5,
        help="timed runs of each stream against its function (medians; they take a second)",
    )
    parser.add_argument("--quick", action="store_true", help="2M-row streams, print only")
    parser.add_argument("--out", default=os.path.join(ROOT, "docs", "benchmarks.md"))
    parser.add_argument("--overhead-json", help=argparse.SUPPRESS)  # the one-thread child
    parser.add_argument("--per-core-json", help=argparse.SUPPRESS)  # the one-thread child
    args = parser.parse_args()
    if args.overhead_json:
        with open(args.overhead_json, "w") as fh:
            json.dump(bench_overhead(args.calls, args.reset_every), fh)
        return
    if args.per_core_json:
        with open(args.per_core_json, "w") as fh:
            json.dump(per_core(args.versus_rows, 2 * args.runs + 1), fh)
        return
    if args.quick:
        args.rows, args.check_rows, args.calls = 2_000_000, 500_000, 200
        args.versus_rows = 1_000_000
    if args.update_rows is None:
        args.update_rows = args.rows
    command = command_line()
    load_before = os.getloadavg()
    started = time.perf_counter()
    print(f"$ {command}\nload average at start: {load_before}", flush=True)

    overhead = bench_overhead(args.calls, args.reset_every)
    overhead += overhead_one_thread(args.calls, args.reset_every)
    checks = check_small(args.check_rows)
    versus = versus_functions(args.versus_rows, args.versus_runs)
    cores = per_core_one_thread(args.versus_rows, args.runs)
    streams = timed_streams(
        [
            (
                "exact `roc_auc`, `update` per batch",
                args.update_rows,
                lambda: auc_by_update(args.update_rows),
            ),
            (
                "exact `roc_auc`, per-batch accumulators merged pairwise",
                args.rows,
                lambda: auc_by_merge_tree(args.rows),
            ),
            ("`gauc`, `update` per batch", args.rows, lambda: gauc_by_update(args.rows)),
        ],
        args.runs,
    )
    exact = streams[1]["value"]
    (bins_stats,) = timed_streams(
        [("`roc_auc(bins=...)`", args.rows, lambda: binned(args.rows))], args.runs
    )
    for bins, b in bins_stats["bins"].items():
        res = b["result"]
        assert abs(res.value - exact) <= res.error_bound, (bins, res, exact)
    load_after = os.getloadavg()
    total = time.perf_counter() - started
    body = "\n".join(versus_table(versus) + per_core_table(cores)) + "\n\n"
    body += report(args, command, overhead, checks, streams, bins_stats, exact)
    body += f"\n\n{load_line(load_before, load_after)}; the whole run took {total:.0f} s"
    print(body)
    if not args.quick:
        replace_section(args.out, "accumulators", body)
        print(f"wrote {args.out}")


def report(
    args: argparse.Namespace,
    command: str,
    overhead: list[dict[str, Any]],
    checks: dict[str, Any],
    streams: list[dict[str, Any]],
    bins_stats: dict[str, Any],
    exact: float,
) -> str:
    upd = streams[0]
    partial_note = []
    if upd["rows"] < args.rows:  # --update-rows below --rows: say what the full stream costs
        n_big = -(-args.rows // BATCH)
        slope = (upd["last_ms"] - upd["first_ms"]) / 1e3 / max(upd["batches"] - 10, 1)
        estimate = n_big * upd["first_ms"] / 1e3 + slope * n_big**2 / 2
        partial_note = [
            f"The first row runs on {fmt_rows(upd['rows'])} rows only (`--update-rows`): "
            f"{upd['first_ms']:.0f} ms per batch for the first 10 batches, "
            f"{upd['last_ms']:.0f} ms for the last 10. Per-batch time growing linearly with "
            f"the batches, as measured, would put {fmt_rows(args.rows)} rows at about "
            f"{estimate:,.0f} s (an extrapolation, not a measurement).",
            "",
        ]
    rate = streams[-1]["positive_rate"]
    gen = streams[-1]["generation_s"]
    check_lines = [
        f"- `{label}`: {checks[key][0]!r} == {checks[key][1]!r}: "
        f"**{checks[key][0] == checks[key][1]}**"
        for key, label in [
            ("auc", "roc_auc` update per batch vs `roc_auc_score"),
            ("tree", "roc_auc` merged accumulators vs `roc_auc_score"),
            ("gauc", "gauc` update per batch vs `gauc_score"),
        ]
    ]
    lines = [
        "## Streaming accumulators (`receval.metric`)",
        "",
        f"Reproduce: `{command}` (writes this section to `{os.path.relpath(args.out, ROOT)}`; "
        "`--quick` runs 2M-row streams and prints only).",
        "",
        environment(),
        "",
        f"### `update` overhead, {SMALL:,} rows per call",
        "",
        f"Median of {args.calls:,} calls each, the cases called in turn (function, `update`, "
        "scikit-learn, function, ...) on the same arrays (int8 labels, float32 scores, "
        f"~{GROUP} rows per GAUC group), after 20 untimed calls of each. The calls are "
        "interleaved one by one and timed with `time.perf_counter_ns` alone: the harness's "
        "`interleaved` collects garbage and resets the memory high-water mark before each "
        "call, which costs more than these calls. Each accumulator is "
        f"`reset()` every {args.reset_every} calls, so its state stays small (for `gauc` each "
        "call gets new group ids: a group may be given once). The whole pass runs twice: "
        "with the compiled core's default number of threads, then in a new process with "
        "`RECEVAL_NUM_THREADS=1` (the core reads it once per process); on 1,000 rows the "
        "kernels take their serial path either way, so the two passes differ by noise "
        "(see the mean and p99).",
        "",
        *overhead_table(overhead),
        "",
        f"### Streams of {fmt_rows(args.rows)} rows in {BATCH:,}-row batches",
        "",
        "Each batch is drawn on the fly from a seeded generator (`batches` in the script), "
        "so the rows never exist whole: a logistic CTR model with a per-group bias "
        f"({100 * rate:.2f}% positives), the score its probability with noise on the logit "
        f"rounded to float32; groups of Poisson(99)+1 rows, whole groups per batch. Times "
        f"count the `update` (and `merge`) calls only; drawing the {fmt_rows(args.rows)} rows "
        f"took {gen:.0f} s more per stream. The three streams are run in turn (A B C, B C A, "
        f"C A B ...), {args.runs} runs each (the harness's `interleaved`); every column but the "
        "peaks is that of the run whose total time (drawing included) is the median. "
        '"state held" and its bytes read the '
        "accumulator's private state after the stream; peak extra is the largest rise of "
        "the resident high-water mark during a stream (the harness of the other "
        "benchmarks), process peak the high-water mark itself; the load column is the "
        "1-minute load average before and after the rounds.",
        "",
        *stream_table(streams),
        "",
        f"Exact AUC of the {fmt_rows(args.rows)} rows: {exact!r}; GAUC: {streams[2]['value']!r}.",
        "",
        *partial_note,
        "The second row feeds the same batches to fresh accumulators and merges them pairwise "
        "(public `update` and `merge` only; `MergeTree` in the script), as workers' "
        "accumulators are merged.",
        "",
        f"Streams of {fmt_rows(checks['rows'])} rows from the same generator, held whole as "
        "well and compared with the functions on the concatenated arrays (`==`):",
        "",
        *check_lines,
        "",
        f"### `roc_auc` with `bins=N`, {fmt_rows(args.rows)} rows",
        "",
        "The same stream into one accumulator per `bins` (range [0, 1]); true error is "
        "|binned - exact| against the exact AUC above. The script asserts "
        f"true error <= certified bound. {bins_stats['runs']} runs; times are those of the "
        "run whose total time is the median.",
        "",
        *binned_table(bins_stats, exact),
        "",
        reading(overhead, streams, bins_stats, exact),
    ]
    return "\n".join(lines)


def reading(
    overhead: list[dict[str, Any]],
    streams: list[dict[str, Any]],
    bins_stats: dict[str, Any],
    exact: float,
) -> str:
    """A summary of the tables, from their numbers."""
    ratios = [r["update"] / r["function_us"] for r in overhead]
    vs_sk = [r["sklearn"] / r["function_us"] for r in overhead if "sklearn" in r]
    auc, gauc = streams[0], streams[2]
    bound_ratio = {}
    for bins, b in bins_stats["bins"].items():
        err = abs(b["result"].value - exact)
        bound_ratio[bins] = b["result"].error_bound / err if err > 0 else float("inf")
    finite = [x for x in bound_ratio.values() if np.isfinite(x)]
    text = (
        f"Reading: an `update` costs {min(ratios):.1f}x to {max(ratios):.1f}x what the "
        "function costs on the same 1,000 rows"
    )
    if vs_sk:
        text += (
            f"; the functions are {min(vs_sk):.0f}-{max(vs_sk):.0f}x faster than "
            "scikit-learn's AUC and log loss"
        )
    text += (
        f". Streaming GAUC keeps {gauc['state_bytes'] / gauc['rows']:.1f} byte per row (the "
        f"ids of the groups seen) and its updates take {fmt_s(gauc['update_s'])} s for "
        f"{fmt_rows(gauc['rows'])} rows. Exact AUC keeps each label's scores in a few sorted "
        f"runs (a score with its rows where at most half are distinct), and a buffer of rows "
        f"not yet sorted: {auc['held']:,} keys for "
        f"{fmt_rows(auc['rows'])} rows here, "
        f"{auc['state_bytes'] / auc['rows']:.1f} bytes per row, with a peak extra memory of "
        f"{auc['peak_extra_mib'] * 2**20 / max(auc['state_bytes'], 1):.1f}x the state"
    )
    if finite:
        text += (
            f"; where memory matters, `bins=` gives a constant state whose certified bound "
            f"was {min(finite):,.0f}x to {max(finite):,.0f}x the true error here"
        )
    if 10_000 in bins_stats["bins"]:
        b = bins_stats["bins"][10_000]
        text += (
            f" (10,000 bins: {b['state_bytes'] / 1000:,.0f} kB, error "
            f"{abs(b['result'].value - exact):.1e}, bound {b['result'].error_bound:.1e})"
        )
    return text + "."


if __name__ == "__main__":
    main()

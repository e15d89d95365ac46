"""A simulated training loop: receval's accumulators, torchmetrics and TorchRec, step by step.

    python benchmarks/bench_training_loop.py            # full: rewrites docs/benchmarks.md
    python benchmarks/bench_training_loop.py --steps 200 --every 20 --runs 1  # a smaller page
    python benchmarks/bench_training_loop.py --quick    # 40 steps of 4,096 rows, print only
    python benchmarks/bench_training_loop.py --torchrec-python /tmp/torchrec-venv/bin/python
    python benchmarks/bench_training_loop.py --device cuda  # the tensors on a GPU: its own section

The loop: ``--steps`` steps of ``--rows`` rows drawn from ``--users`` users in
shuffled order (a user's rows fall in many steps, a step holds a few rows of
many users). Each step updates AUC, GAUC, log loss and NDCG@10 with the step's
CPU tensors (predictions float32, labels int64, user ids int64, as a model
hands them over; ``--device cuda``: on the GPU, as a model on one hands them
over), and every ``--every`` steps, and after the last, each metric is computed.
Per metric and per library: the time of its update in each step (mean and
worst), of its computes (mean and worst), the peak extra memory of the whole
loop, and its values against the metric's function on all the rows.

Libraries, each in the same process as receval and run in turn with it (A B A B
..., ``--runs`` rounds: the harness's ``interleaved``):

- receval: ``receval.metric(name).update(...)`` as a user writes it; NDCG@10
  takes ``update(Qrels, Run)`` of the step's rows (the positive rows as qrels,
  every row as the run, the row's index as item id), ``ties="average"``.
- torchmetrics: ``BinaryAUROC(thresholds=None)`` (exact), a ``MeanMetric`` of
  ``binary_cross_entropy(reduction="none")`` (torchmetrics has no log loss
  metric), ``RetrievalNormalizedDCG(top_k=10, empty_target_action="skip")``
  (``indexes`` = user ids); no GAUC.
- TorchRec (``--torchrec-python``: a Python with torchrec and fbgemm-gpu-cpu;
  this script runs there as a worker with this checkout's receval on its path):
  ``AUCMetric`` (window of every row), ``NEMetric(include_logloss=True)``,
  ``GAUCMetric`` and ``NDCGMetric`` (sessions within one batch).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _harness import (
    command_line,
    environment,
    interleaved,
    load_line,
    peer_versions,
    replace_section,
)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PAGE = os.path.join(ROOT, "docs", "benchmarks.md")
METRICS = ("auc", "gauc", "log_loss", "ndcg@10")
# a library's metric that averages per-batch sessions: not the metric over each user's rows
OTHER_QUANTITY = {("TorchRec", "gauc"), ("TorchRec", "ndcg@10")}
TORCHREC_TRIED = (
    "TorchRec does not run beside torch 2.15: with `pip install torch==2.15.0 "
    "fbgemm-gpu-cpu==1.9.0` (the newest fbgemm-gpu-cpu; it loads with torch 2.14.1), "
    "`import fbgemm_gpu` fails with `OSError: Could not load this library: "
    ".../fbgemm_gpu/fbgemm_gpu_py.so` (`undefined symbol: _ZN3c1015report_overflowEPKc`). "
    "torchrec 1.9.2 requires the CUDA `fbgemm-gpu` (installed with `--no-deps` and "
    "`fbgemm-gpu-cpu` beside it) and pins torchmetrics 1.0.3: with torchmetrics 1.9 its "
    "`compute` fails (`ValueError: A frozen dataclass was passed to "
    "apply_to_collection`)."
)
TORCHREC_SETUP = (
    "pip install torch==2.14.1 fbgemm-gpu-cpu==1.9.0 torchmetrics==1.0.3 tensordict tqdm "
    "pyre-extensions numpy pyarrow && pip install --no-deps torchrec==1.9.2"
)


# ------------------------------------------------------------------ data
@dataclass
class Loop:
    """The rows of the whole loop as tensors on ``device``; step ``s`` is rows
    ``[s*rows, (s+1)*rows)``."""

    device: str
    steps: int
    rows: int
    users_n: int
    preds: Any  # float32 probabilities
    labels: Any  # int64 0/1
    targets: Any  # float32 0/1 (the loss's target)
    users: Any  # int64 user ids
    items: Any  # int64 row index (an item id unique within a user)

    def batch(self, step: int) -> Batch:
        lo, hi = step * self.rows, (step + 1) * self.rows
        return Batch(
            self.preds[lo:hi], self.labels[lo:hi], self.targets[lo:hi],
            self.users[lo:hi], self.items[lo:hi],
        )  # fmt: skip


@dataclass
class Batch:
    preds: Any
    labels: Any
    targets: Any
    users: Any
    items: Any


def make_loop(steps: int, rows: int, users: int, seed: int = 0, device: str = "cpu") -> Loop:
    """CTR-like rows: a logistic model with a per-user bias (about 11% positives), the
    prediction its probability with noise on the logit, float32; users drawn uniformly."""
    import torch

    rng = np.random.default_rng(seed)
    n = steps * rows
    bias = rng.normal(0.0, 0.7, users)
    user = rng.integers(0, users, n, dtype=np.int64)
    logit = rng.normal(-2.6, 1.0, n) + bias[user]
    label = (rng.random(n) < 1.0 / (1.0 + np.exp(-logit))).astype(np.int64)
    pred = (1.0 / (1.0 + np.exp(-(logit + rng.normal(0.0, 0.8, n))))).astype(np.float32)

    def t(a: np.ndarray) -> Any:
        return torch.from_numpy(a).to(device)

    return Loop(
        device, steps, rows, users, t(pred), t(label), t(label.astype(np.float32)), t(user),
        t(np.arange(n, dtype=np.int64)),
    )  # fmt: skip


# ------------------------------------------------------------------ the libraries
Metrics = dict[str, tuple[Callable[[Batch], Any], Callable[[], float]]]


def receval_metrics() -> Metrics:
    import receval

    auc, loss = receval.metric("roc_auc"), receval.metric("log_loss")
    gauc, ndcg = receval.metric("gauc"), receval.metric("ndcg@10", ties="average")

    def ndcg_update(b: Batch) -> None:
        pos = b.labels == 1
        if bool(pos.any()):  # a step without a click has nothing to rank for
            qrels = receval.Qrels(b.users[pos], b.items[pos])
            ndcg.update(qrels, receval.Run(b.users, b.items, b.preds))

    return {
        "auc": (lambda b: auc.update(b.labels, b.preds), auc.compute),
        "gauc": (lambda b: gauc.update(b.labels, b.preds, groups=b.users), gauc.compute),
        "log_loss": (lambda b: loss.update(b.labels, b.preds), loss.compute),
        "ndcg@10": (ndcg_update, ndcg.compute),
    }


def torchmetrics_metrics(device: str = "cpu") -> Metrics:
    import torch.nn.functional as F
    from torchmetrics import MeanMetric
    from torchmetrics.classification import BinaryAUROC
    from torchmetrics.retrieval import RetrievalNormalizedDCG

    auc, loss = BinaryAUROC(thresholds=None).to(device), MeanMetric().to(device)
    ndcg = RetrievalNormalizedDCG(top_k=10, empty_target_action="skip").to(device)
    bce = F.binary_cross_entropy
    return {
        "auc": (lambda b: auc.update(b.preds, b.labels), lambda: float(auc.compute())),
        "log_loss": (
            lambda b: loss.update(bce(b.preds, b.targets, reduction="none")),
            lambda: float(loss.compute()),
        ),
        "ndcg@10": (
            lambda b: ndcg.update(b.preds, b.labels, indexes=b.users),
            lambda: float(ndcg.compute()),
        ),
    }


def torchrec_metrics(total_rows: int, rows: int) -> Metrics:
    import torch
    from torchrec.metrics.auc import AUCMetric
    from torchrec.metrics.gauc import GAUCMetric
    from torchrec.metrics.metrics_config import RecTaskInfo
    from torchrec.metrics.ndcg import NDCGMetric
    from torchrec.metrics.ne import NEMetric

    task = RecTaskInfo(name="t")
    # the window holds every row: TorchRec's AUC is computed over its window only
    kw: dict[str, Any] = {"world_size": 1, "my_rank": 0, "batch_size": rows, "tasks": [task]}
    kw["window_size"] = total_rows
    auc, ne = AUCMetric(**kw), NEMetric(**kw, include_logloss=True)
    gauc = GAUCMetric(**kw)
    ndcg = NDCGMetric(**kw, k=10, exponential_gain=False, session_key="session_id")
    ones = torch.ones(rows)

    def gauc_update(b: Batch) -> None:
        order = torch.argsort(b.users, stable=True)  # sessions as contiguous runs of rows
        counts = torch.unique_consecutive(b.users[order], return_counts=True)[1]
        gauc.update(
            predictions={"t": b.preds[order]}, labels={"t": b.targets[order]},
            weights={"t": ones}, num_candidates=counts,
        )  # fmt: skip

    def plain(metric: Any) -> Callable[[Batch], None]:
        def update(b: Batch) -> None:
            metric.update(predictions={"t": b.preds}, labels={"t": b.targets}, weights={"t": ones})

        return update

    def value(metric: Any, key: str, scale: float = 1.0) -> Callable[[], float]:
        return lambda: float(metric.compute()[key]) * scale

    return {
        "auc": (plain(auc), value(auc, "auc-t|window_auc")),
        "gauc": (gauc_update, value(gauc, "gauc-t|lifetime_gauc")),
        # TorchRec's log loss is in bits (log2): times ln 2, in nats as the others
        "log_loss": (plain(ne), value(ne, "ne-t|lifetime_logloss", math.log(2.0))),
        "ndcg@10": (
            lambda b: ndcg.update(
                predictions={"t": b.preds},
                labels={"t": b.targets},
                weights={"t": ones},
                required_inputs={"session_id": b.users},
            ),
            value(ndcg, "ndcg-t|lifetime_ndcg"),
        ),
    }


# ------------------------------------------------------------------ the loop
def run_loop(
    make: Callable[[], Metrics], loop: Loop, every: int, budget_s: float = math.inf
) -> dict[str, Any]:
    """Every step's updates, and the computes every ``every`` steps and after the last.

    An update or compute that raises stops that metric (the error is kept and
    reported); so does a metric whose updates have taken more than ``budget_s``
    seconds in all (its computes go on, on the rows it took); the others go on. On a GPU
    each update's time runs until the device has done its work (``synchronize``)."""
    metrics = make()
    done = _synchronize(loop.device)
    steps = loop.steps
    update_s = {name: np.full(steps, np.nan) for name in metrics}
    compute_s: dict[str, list[float]] = {name: [] for name in metrics}
    values: dict[str, list[float]] = {name: [] for name in metrics}
    errors: dict[str, str] = {}
    over: dict[str, str] = {}  # metrics past the time budget: no more updates
    step_s = np.zeros(steps)
    clock = time.perf_counter
    for s in range(steps):
        batch = loop.batch(s)
        for name, (update, _) in metrics.items():
            if name in errors or name in over:
                continue
            t0 = clock()
            try:
                update(batch)
                done()
            except Exception as exc:  # the library refuses: reported, not hidden
                errors[name] = f"update of step {s + 1}: {type(exc).__name__}: {exc}"
                continue
            update_s[name][s] = clock() - t0
            step_s[s] += update_s[name][s]
            if np.nansum(update_s[name]) > budget_s and s + 1 < steps:
                over[name] = f"over the budget: {s + 1} of {steps} steps ({budget_s:.0f} s)"
        if (s + 1) % every == 0 or s + 1 == steps:
            for name, (_, compute) in metrics.items():
                if name in errors:
                    continue
                t0 = clock()
                try:
                    v = compute()
                except Exception as exc:
                    errors[name] = f"compute after step {s + 1}: {type(exc).__name__}: {exc}"
                    continue
                compute_s[name].append(clock() - t0)
                values[name].append(float(v))
    return {
        "update_s": {k: v.tolist() for k, v in update_s.items()},
        "compute_s": compute_s,
        "values": values,
        "errors": errors,
        "over": over,
        "step_s": step_s.tolist(),
    }


def _synchronize(device: str) -> Callable[[], None]:
    """What waits for the device's queued work: nothing on the CPU."""
    if device == "cpu":
        return lambda: None
    import torch

    return torch.cuda.synchronize


def summary(out: dict[str, Any]) -> dict[str, Any]:
    """Per metric: update mean and worst, compute mean and worst, last value."""
    per: dict[str, Any] = {}
    for name, times in out["update_s"].items():
        t = np.array(times, dtype=float)
        done = t[~np.isnan(t)]
        c = np.array(out["compute_s"][name])
        per[name] = {
            "steps": int(done.size),
            "update_total_s": float(done.sum()),
            "update_mean_ms": 1e3 * float(done.mean()) if done.size else float("nan"),
            "update_worst_ms": 1e3 * float(done.max()) if done.size else float("nan"),
            "compute_mean_ms": 1e3 * float(c.mean()) if c.size else float("nan"),
            "compute_worst_ms": 1e3 * float(c.max()) if c.size else float("nan"),
            "compute_total_s": float(c.sum()),
            "computes": int(c.size),
            "values": out["values"][name],
            "error": out["errors"].get(name),
            "over": out["over"].get(name),
        }
    steps = np.array(out["step_s"])
    total_compute = sum(p["compute_total_s"] for p in per.values())
    return {
        "metrics": per,
        "step_mean_ms": 1e3 * float(steps.mean()),
        "step_worst_ms": 1e3 * float(steps.max()),
        "loop_s": float(steps.sum()) + total_compute,
        "compute_s": total_compute,
    }


def warm(make: Callable[[], Metrics], loop: Loop) -> None:
    """Import and first-call costs paid before the timed loops, on steps of the loop's
    size and device (some paths are taken, and their modules imported, above a size)."""
    run_loop(make, make_loop(2, loop.rows, loop.users_n, seed=99, device=loop.device), 2)


def compare(
    cases: list[tuple[str, Callable[[], Metrics]]],
    loop: Loop,
    every: int,
    runs: int,
    budget_s: float,
) -> list[dict[str, Any]]:
    """The libraries' loops in turn (A B A B ...); the median run's figures."""
    for _, make in cases:
        warm(make, loop)
    # in this process, not forked: torch's OpenMP threads, started by the warm-up,
    # do not survive a fork
    got = interleaved(
        [lambda make=make: summary(run_loop(make, loop, every, budget_s)) for _, make in cases],
        runs,
        warmup=False,
    )
    out = []
    for (label, _), m in zip(cases, got, strict=True):
        if m.error is not None:
            out.append({"library": label, "error": m.error, "load": list(m.load)})
            print(f"{label}: {m.error}", flush=True)
            continue
        stats = dict(m.median_value)
        stats.update(
            library=label, runs=len(m.runs), loop_runs_s=[v["loop_s"] for v in m.values],
            peak_extra_mib=m.peak_extra_mib, load=list(m.load),
        )  # fmt: skip
        loops = ", ".join(f"{x:.1f}" for x in stats["loop_runs_s"])
        print(
            f"{label}: {len(m.runs)} runs, loop {loops} s; step mean "
            f"{stats['step_mean_ms']:.2f} ms, worst {stats['step_worst_ms']:.1f} ms; "
            f"computes {stats['compute_s']:.2f} s; peak extra {m.peak_extra_mib:.0f} MiB",
            flush=True,
        )
        for name, p in stats["metrics"].items():
            last = p["values"][-1] if p["values"] else None
            print(
                f"  {name:9} update {p['update_mean_ms']:.3f} ms (worst {p['update_worst_ms']:.1f})"
                f", compute {p['compute_mean_ms']:.1f} ms (worst {p['compute_worst_ms']:.1f}), "
                f"value {last!r}" + (f"; {p['error']}" if p["error"] else ""),
                flush=True,
            )
        out.append(stats)
    return out


def reference(loop: Loop) -> dict[str, float]:
    """The metrics' functions on all the rows of the loop."""
    import receval

    y, s = loop.labels.cpu().numpy(), loop.preds.cpu().numpy()
    u, i = loop.users.cpu().numpy(), loop.items.cpu().numpy()
    pos = y == 1
    report = receval.evaluate(
        receval.Qrels(u[pos], i[pos]), receval.Run(u, i, s), ["ndcg@10"], ties="average"
    )
    return {
        "auc": receval.roc_auc_score(y, s),
        "gauc": receval.gauc_score(y, s, groups=u),
        "log_loss": receval.log_loss(y, s),
        "ndcg@10": float(report.mean["ndcg@10"]),
    }


# ------------------------------------------------------------------ TorchRec in its own Python
def torchrec_worker(args: argparse.Namespace) -> None:
    """Run receval and TorchRec in turn in this process; write the results as JSON."""
    loop = make_loop(args.steps, args.rows, args.users)
    total = args.steps * args.rows
    cases = [
        ("receval", receval_metrics),
        ("TorchRec", lambda: torchrec_metrics(total, args.rows)),
    ]
    results = compare(cases, loop, args.every, args.runs, args.budget_s)
    from importlib.metadata import version

    info = {
        "python": sys.version.split()[0],
        "versions": {
            n: version(n) for n in ("torch", "torchrec", "fbgemm-gpu-cpu", "torchmetrics")
        },
    }
    with open(args.torchrec_worker, "w") as fh:
        json.dump({"results": results, "info": info}, fh)


def run_torchrec(python: str | None, args: argparse.Namespace) -> dict[str, Any]:
    """The TorchRec worker's results, or why there are none."""
    if python is None:
        return {"skipped": "no --torchrec-python given"}
    path = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"training-loop-{os.getpid()}.json")
    cmd = [python, os.path.abspath(__file__), "--torchrec-worker", path]
    cmd += ["--steps", str(args.steps), "--rows", str(args.rows), "--users", str(args.users)]
    cmd += ["--every", str(args.every), "--runs", str(args.runs)]
    cmd += ["--budget-s", str(args.budget_s)]
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src"))
    print("== TorchRec: " + " ".join(cmd), flush=True)
    try:
        done = subprocess.run(cmd, env=env, stderr=subprocess.PIPE, text=True, timeout=3600)
    except subprocess.TimeoutExpired:
        return {"skipped": "the worker took over an hour and was stopped"}
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()[-1:] or ["no message"]
        return {"skipped": f"the worker failed (exit {done.returncode}): {tail[0]}"}
    with open(path) as fh:
        got: dict[str, Any] = json.load(fh)
    os.remove(path)
    return got


# ------------------------------------------------------------------ the section
def fmt_ms(x: float) -> str:
    if not np.isfinite(x):
        return "—"
    return f"{x:.3f}" if x < 1 else f"{x:.2f}" if x < 10 else f"{x:,.0f}"


def diff_cell(value: float | None, ref: float) -> str:
    if value is None:
        return "—"
    d = abs(value - ref)
    return "0 (`==`)" if d == 0 else f"{d:.1e}"


def metric_rows(results: list[dict[str, Any]], ref: dict[str, float], base: str) -> list[str]:
    """One row per metric and library; ratios against receval's row of the same table."""
    lines = [
        "| metric | library | update per step, mean (ms) | worst update (ms) | "
        "compute, mean (ms) | worst compute (ms) | last value | vs the function | "
        "largest gap to receval's, over the computes | updates + computes / receval's |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    by = {r["library"]: r for r in results if "metrics" in r}
    notes: list[str] = []
    for name in METRICS:
        for r in results:
            label = r["library"]
            if "metrics" not in r:
                continue
            p = r["metrics"].get(name)
            if p is None:
                lines.append(f"| {name} | {label} | not offered | | | | | | | |")
                continue
            if p["error"] is not None:
                notes.append(f"{label}'s {name} stopped at its {p['error']}")
            if p["error"] is not None and p["steps"] <= 1:
                where = p["error"].split(":", 1)[0]
                lines.append(f"| {name} | {label} | refused ({where}) | | | | | | | |")
                continue
            last = p["values"][-1] if p["values"] else None
            mine = by.get(base, {}).get("metrics", {}).get(name)
            ratio = gap = ""
            whole = mine is not None and mine["error"] is None and not mine["over"]
            if label != base and whole and p["error"] is None and not p["over"]:
                both = [name]
                ratio = fmt_ratio(spent(r, both) / spent(by[base], both))
                pairs = list(zip(p["values"], mine["values"], strict=True))
                gap = f"{max(abs(a - b) for a, b in pairs):.1e}" if pairs else ""
            far = diff_cell(last, ref[name])
            if (label, name) in OTHER_QUANTITY:
                far += " (another quantity)"
            note = f" (stopped: {p['error'].split(':', 1)[0]})" if p["error"] else ""
            note += f" ({p['over']})" if p["over"] else ""
            lines.append(
                f"| {name} | {label} | {fmt_ms(p['update_mean_ms'])}{note} | "
                f"{fmt_ms(p['update_worst_ms'])} | {fmt_ms(p['compute_mean_ms'])} | "
                f"{fmt_ms(p['compute_worst_ms'])} | "
                f"{'—' if last is None else f'{last:.6f}'} | {far} | {gap} | {ratio} |"
            )
    if notes:
        lines += ["", *(f"- {n.replace('|', '/')}" for n in notes)]
    return lines


def fmt_ratio(x: float) -> str:
    return f"{x:.2f}x" if x < 0.1 else f"{x:.1f}x"


def loop_rows(results: list[dict[str, Any]], base: str) -> list[str]:
    lines = [
        "| library | metrics updated (part: stopped at the budget) | step, mean (ms) | "
        "worst step (ms) | computes (s) | "
        "whole loop (s) | / receval's, on the metrics both ran | peak extra (MiB) | runs | "
        "load before / after |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    mine = next((r for r in results if r["library"] == base and "metrics" in r), None)
    for r in results:
        if "metrics" not in r:
            lines.append(f"| {r['library']} | failed: {r['error']} | | | | | | | | |")
            continue
        ran = finished(r)
        ran += [f"{n} (part)" for n, p in r["metrics"].items() if p["over"] and p["steps"]]
        ratio = ""
        if mine is not None and r is not mine:
            both = [n for n in finished(r) if n in finished(mine)]
            ratio = f"{fmt_ratio(spent(r, both) / spent(mine, both))} ({', '.join(both)})"
        load = f"{r['load'][0]:.1f} / {r['load'][1]:.1f}"
        lines.append(
            f"| {r['library']} | {', '.join(ran)} | {fmt_ms(r['step_mean_ms'])} | "
            f"{fmt_ms(r['step_worst_ms'])} | {r['compute_s']:.2f} | {r['loop_s']:.2f} | {ratio} | "
            f"{r['peak_extra_mib']:.0f} | {r['runs']} | {load} |"
        )
    return lines


def finished(r: dict[str, Any]) -> list[str]:
    """The metrics a library ran through the whole loop."""
    return [
        n for n, p in r["metrics"].items() if p["steps"] and p["error"] is None and not p["over"]
    ]


def spent(r: dict[str, Any], names: list[str]) -> float:
    """Seconds of a loop's updates and computes of some of its metrics."""
    return sum(
        r["metrics"][n]["update_total_s"] + r["metrics"][n]["compute_total_s"] for n in names
    )


def section(
    args: argparse.Namespace,
    ref: dict[str, float],
    main_results: list[dict[str, Any]],
    torchrec: dict[str, Any],
    loads: tuple[tuple[float, ...], tuple[float, ...]],
    loop: Loop,
) -> str:
    rate = float(loop.labels.double().mean())
    computes = -(-args.steps // args.every)
    gpu = loop.device != "cpu"
    lines = [
        "## A training loop on a GPU: receval and torchmetrics"
        if gpu
        else "## A training loop: receval, torchmetrics and TorchRec",
        "",
        environment(),
        *([gpu_line()] if gpu else []),
        peer_versions("torch", "torchmetrics"),
        load_line(*loads),
        "",
        f"Reproduce: `{command_line()}`",
        "",
        f"{args.steps:,} steps of {args.rows:,} rows from {args.users:,} users in shuffled "
        f"order ({100 * rate:.1f}% positives; a logistic CTR model with a per-user bias, "
        "predictions float32): every user's rows fall in many steps. Each step updates AUC, "
        f"GAUC, log loss and NDCG@10 with the step's {'CUDA' if gpu else 'CPU'} tensors "
        "(predictions float32, labels "
        f"int64, user ids int64); every {args.every} steps, and after the last "
        f"({computes} times), each metric is computed. receval: `receval.metric(name)"
        ".update(...)` with the tensors; NDCG@10 takes `update(Qrels, Run)` of the step's rows "
        "(its positive rows as qrels, every row as the run, the row's index as item id; "
        'building the two containers is in its time), `ties="average"` as torchmetrics '
        "ranks tied scores. torchmetrics: `BinaryAUROC(thresholds=None)` (exact), a "
        '`MeanMetric` of `binary_cross_entropy(reduction="none")` (torchmetrics has no log '
        "loss metric; its running mean is float32), `RetrievalNormalizedDCG(top_k=10, "
        'empty_target_action="skip")` with the user ids as `indexes`; it has no GAUC. '
        "\"vs the function\" is the last value's distance to the metric's function on all "
        f"{args.steps * args.rows:,} rows (receval's `roc_auc_score`, `gauc_score`, "
        '`log_loss`, `evaluate(..., ties="average")`; `0 (==)` means equal to the last '
        "bit). The libraries' loops run in turn (A B A B ..., "
        f"{args.runs} runs each; the harness's `interleaved`); every "
        "figure is that of the run whose whole loop time is the median, peak extra the "
        "largest rise of the resident high-water mark during a loop. A metric whose "
        f"updates take more than {args.budget_s:.0f} s in all stops updating there (its "
        "row says after how many steps; its computes go on, on the rows it took), so that "
        'the loop ends in reasonable time; "whole loop" is the sum of every update and '
        "compute (drawing the rows is not in it).",
        *(["", GPU_TEXT] if gpu else []),
        "",
        *metric_rows(main_results, ref, "receval"),
        "",
        *loop_rows(main_results, "receval"),
        "",
    ]
    if not gpu:
        lines += torchrec_part(torchrec, ref)
    lines.append(reading(main_results, torchrec))
    return "\n".join(lines)


GPU_TEXT = (
    "On the GPU: receval's `update` copies each tensor to the host once (into pinned "
    "memory, queued on the tensor's stream) and computes on the CPU's cores; the "
    "containers of NDCG@10 copy theirs likewise. torchmetrics' modules are moved to the "
    "GPU (`.to('cuda')`) and keep their state and compute there. Each update's time runs "
    "until the GPU has done the work queued by it (`torch.cuda.synchronize()` after every "
    "update of either library, inside its time). Peak extra is the host's memory. "
    "TorchRec is not run on the GPU (its metric modules need the CUDA `fbgemm-gpu`); the "
    "section above runs them on the CPU."
)


def gpu_line() -> str:
    """The GPU, its memory and the CUDA of torch."""
    import torch

    props = torch.cuda.get_device_properties(0)
    return (
        f"- GPU: {props.name}, {props.total_memory / 2**30:.0f} GiB, "
        f"{props.multi_processor_count} multiprocessors; torch's CUDA {torch.version.cuda}"
    )


def torchrec_part(torchrec: dict[str, Any], ref: dict[str, float]) -> list[str]:
    head = "### TorchRec's metric modules"
    if "skipped" in torchrec:
        return [
            head,
            "",
            f"Not measured in this run ({torchrec['skipped']}). {TORCHREC_TRIED} A Python "
            f"in which TorchRec's metrics run on CPU: `{TORCHREC_SETUP}`; then "
            "`--torchrec-python PATH/bin/python` runs this script's TorchRec part there.",
            "",
        ]
    info = torchrec["info"]
    versions = ", ".join(f"{k} {v}" for k, v in info["versions"].items())
    return [
        head,
        "",
        f"{TORCHREC_TRIED} So receval and TorchRec ran in another Python: {versions}, Python "
        f"{info['python']} (`{TORCHREC_SETUP}`), this checkout's receval on its path; the "
        "same rows, steps and computes, in turn with receval in that process. "
        "`AUCMetric` with a window of every row (its AUC is its window's), "
        "`NEMetric(include_logloss=True)` (its lifetime log loss, in bits: times ln 2 "
        "here), `GAUCMetric` and "
        "`NDCGMetric(k=10)`: the last two take sessions within one batch (GAUC: rows "
        "sorted by user in the step, `num_candidates` their counts; NDCG: `session_id`) "
        "and average the sessions of each batch, so a user split across steps is "
        "several sessions, and their values are not the metric over each user's rows.",
        "",
        *metric_rows(torchrec["results"], ref, "receval"),
        "",
        *loop_rows(torchrec["results"], "receval"),
        "",
    ]


def reading(main_results: list[dict[str, Any]], torchrec: dict[str, Any]) -> str:
    """A summary from the numbers: each peer against receval in the same process."""
    parts, refused = [], {}
    for group in (main_results, torchrec.get("results", [])):
        mine = next((r for r in group if r["library"] == "receval" and "metrics" in r), None)
        if mine is None:
            continue
        refused.update({n: p["error"] for n, p in mine["metrics"].items() if p["error"]})
        for r in group:
            if r is mine or "metrics" not in r:
                continue
            both = [n for n in finished(r) if n in finished(mine)]
            if not both:
                continue
            theirs, ours = spent(r, both), spent(mine, both)
            parts.append(
                f"on {', '.join(both)}, {r['library']}'s updates and computes took "
                f"{theirs:.2f} s against receval's {ours:.2f} s ({fmt_ratio(theirs / ours)})"
            )
    text = "Reading: " + ("; ".join(parts) if parts else "no peer ran") + "."
    if refused:
        text += (
            " receval stopped "
            + ", ".join(f"{n} ({e.split(':', 1)[0]})" for n, e in sorted(refused.items()))
            + ": it refused a user's rows in a second step, so its loop times leave "
            "those metrics out."
        )
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="40 steps, 2,000 users, a 5 s budget; print only"
    )
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--rows", type=int, default=4096)
    parser.add_argument("--users", type=int, default=10_000)
    parser.add_argument("--every", type=int, default=100, help="compute every N steps")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--budget-s",
        type=float,
        default=60.0,
        help="a metric whose updates take longer in all stops updating (its row says so)",
    )
    parser.add_argument(
        "--device",
        choices=("cpu", "cuda"),
        default="cpu",
        help="where the loop's tensors live (cuda: the training-loop-cuda section)",
    )
    parser.add_argument("--torchrec-python", default=None, help="a Python with torchrec")
    parser.add_argument("--out", default=None, help="write the section here, not the page")
    parser.add_argument("--torchrec-worker", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.quick:
        args.steps, args.users, args.every, args.runs, args.budget_s = 40, 2000, 20, 1, 5.0
    if args.torchrec_worker:
        torchrec_worker(args)
        return
    loads_before = os.getloadavg()
    loop = make_loop(args.steps, args.rows, args.users, device=args.device)
    cases: list[tuple[str, Callable[[], Metrics]]] = [("receval", receval_metrics)]
    try:
        import torchmetrics  # noqa: F401

        cases.append(("torchmetrics", lambda: torchmetrics_metrics(args.device)))
    except ImportError:
        print("torchmetrics is not installed: receval alone", flush=True)
    results = compare(cases, loop, args.every, args.runs, args.budget_s)
    torchrec = (
        run_torchrec(args.torchrec_python, args)
        if args.device == "cpu"
        else {"skipped": "the loop's tensors are on the GPU"}
    )
    if "skipped" in torchrec:
        print(f"TorchRec: {torchrec['skipped']}", flush=True)
    ref = reference(loop)
    print("functions on all rows: " + ", ".join(f"{k} {v!r}" for k, v in ref.items()))
    body = section(args, ref, results, torchrec, (loads_before, os.getloadavg()), loop)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(body + "\n")
    elif not args.quick:  # any other scale too: the section's command line says which
        name = "training-loop" if args.device == "cpu" else "training-loop-cuda"
        replace_section(PAGE, name, body)
        print(f"wrote the {name} section of {PAGE}")
    else:
        print(body)


if __name__ == "__main__":
    main()

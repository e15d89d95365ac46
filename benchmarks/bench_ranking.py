"""Ranking metrics: receval.evaluate against pytrec_eval and ranx, in one process.

    python benchmarks/bench_ranking.py            # 100k and 1M users, rewrites docs/benchmarks.md
    python benchmarks/bench_ranking.py --quick    # 10k users, no file written
    python benchmarks/bench_ranking.py --quick --users 50000 200000

Five metrics (ndcg@10, map@100, mrr, recall@100, precision@10) over 100
recommended items per user, starting from pandas DataFrames and from Parquet
files. Conversion (DataFrame or file -> each tool's input) is timed apart from
compute, inside each call. The tools of a case are timed in turn (A B C, B C A,
C A B ...), the same number of runs each (``--runs``), medians; each call of a peer
runs in a forked child. Needs the ``bench`` extra plus pytrec_eval (pytrec-eval-terrier) and ranx.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import receval
from _harness import Forked, interleaved, load_line, row_load, status_mib, write_section

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

METRICS = ["ndcg@10", "map@100", "mrr", "recall@100", "precision@10"]
# receval metric -> pytrec_eval measure (the key of its per-query results)
TREC = {
    "ndcg@10": "ndcg_cut_10",
    "map@100": "map_cut_100",
    "mrr": "recip_rank",
    "recall@100": "recall_100",
    "precision@10": "P_10",
}
CATALOGUE = 199_999  # prime: user-specific strides walk it without repeats
RUN_LENGTH = 100
TOLERANCE = 1e-9


# ----------------------------------------------------------------------- data
def make_data(n_users: int, seed: int = 0, items: int = CATALOGUE):
    """Qrels and run DataFrames, deterministic in ``seed``, over a catalogue of
    ``items`` ids (a prime).

    Each user has 5-15 relevant items (grades 1-3, mean 10) and 0-3 judged
    non-relevant items (grade 0); each judged item is among the user's 100
    recommendations with probability 1/2. A user's 100 + (judged but not
    recommended) items are distinct by construction: item ``j`` of user ``u``
    is ``catalogue[(a_u + j * s_u) mod p]`` with ``p`` prime and ``s_u != 0``.
    Run rows of a user are contiguous, in random (not score) order; scores are
    float64 in [0, 1) plus a boost for relevant items, so there are no ties.
    """
    import pandas as pd

    rng = np.random.default_rng(seed)
    catalogue = rng.permutation(items).astype(np.int64) + 1  # item ids 1..p
    user_ids = rng.permutation(n_users).astype(np.int64) + 1  # users in shuffled order
    a = rng.integers(0, items, n_users)
    s = rng.integers(1, items, n_users)

    n_rel = rng.integers(5, 16, n_users)
    n_zero = rng.integers(0, 4, n_users)
    n_judged = n_rel + n_zero
    starts = np.concatenate([[0], np.cumsum(n_judged)[:-1]])
    total = int(n_judged.sum())
    q_user = np.repeat(np.arange(n_users), n_judged)
    local = np.arange(total) - np.repeat(starts, n_judged)
    grade = np.where(
        local < np.repeat(n_rel, n_judged), rng.choice([1, 2, 3], total, p=[0.5, 0.3, 0.2]), 0
    ).astype(np.int64)
    in_run = rng.random(total) < 0.5
    # judged items before this one (same user) that are in the run
    c = np.cumsum(in_run)
    before = c - in_run - (c - in_run)[starts][q_user]
    # recommended judged items take distinct positions (b + i * t) mod 100 with t
    # coprime to 100; the others take positions 100, 101, ... (not recommended)
    b = rng.integers(0, RUN_LENGTH, n_users)
    t = rng.choice([1, 3, 7, 9, 11, 13, 17, 19, 21, 23, 27, 29, 31, 33, 37, 39], n_users)
    pos = np.where(
        in_run,
        (b[q_user] + before * t[q_user]) % RUN_LENGTH,
        RUN_LENGTH + local - before,
    )
    width = RUN_LENGTH + int(n_judged.max())

    def item_at(u: np.ndarray, j: np.ndarray) -> np.ndarray:
        return catalogue[(a[u] + j * s[u]) % items]

    qrels = pd.DataFrame({"user": user_ids[q_user], "item": item_at(q_user, pos), "grade": grade})
    assert width <= items

    r_user = np.repeat(np.arange(n_users), RUN_LENGTH)
    r_pos = np.tile(np.arange(RUN_LENGTH), n_users)
    score = rng.random(n_users * RUN_LENGTH)
    hit = in_run & (grade > 0)
    flat = q_user[hit] * RUN_LENGTH + pos[hit]
    score[flat] += 0.2 * grade[hit] * rng.random(int(hit.sum()))
    run = pd.DataFrame({"user": user_ids[r_user], "item": item_at(r_user, r_pos), "score": score})
    qrels.attrs["relevant_recommended"] = float(hit.sum() / (grade > 0).sum())
    return qrels, run


# ------------------------------------------------------------------ receval
@dataclass
class Timed:
    """One timed call of a tool: conversion and compute, timed inside the call."""

    conversion: float
    compute: float
    value: object = field(repr=False)  # receval's report, or a peer's PeerValues


def receval_call(convert):
    """The timed call of receval: conversion, then ``evaluate`` on the fresh containers,
    so that work a ``Run`` caches on first use (tie detection, tie-break keys) is counted."""

    def call() -> Timed:
        t0 = time.perf_counter()
        qrels, run = convert()
        t1 = time.perf_counter()
        report = receval.evaluate(qrels, run, METRICS, profile="trec_eval")
        return Timed(t1 - t0, time.perf_counter() - t1, report)

    return call


def receval_frame(qdf, rdf):
    return receval_call(lambda: (receval.Qrels.from_frame(qdf), receval.Run.from_frame(rdf)))


def receval_parquet(qpath: str, rpath: str):
    return receval_call(lambda: (receval.Qrels.from_file(qpath), receval.Run.from_file(rpath)))


# ----------------------------------------------------------------- peers
def str_labels(values: np.ndarray) -> np.ndarray:
    """Ids as an object array of Python str, one str object per distinct id."""
    import pandas as pd

    codes, uniques = pd.factorize(values)
    return np.array([str(x) for x in uniques.tolist()], dtype=object)[codes]


def nested_dict(users: np.ndarray, items: np.ndarray, values: np.ndarray) -> dict:
    """``{str(user): {str(item): value}}``, the input of pytrec_eval.

    The fastest way we found from DataFrame columns: ids to str once per
    distinct id (pd.factorize), a stable argsort by user, then one
    ``dict(zip(...))`` per user over slices of Python lists. It is several
    times faster than ``groupby(user).apply(...)``.
    """
    order = np.argsort(users, kind="stable")
    u = users[order]
    cut = np.flatnonzero(u[1:] != u[:-1]) + 1
    lo = np.concatenate([[0], cut]).tolist()
    hi = np.concatenate([cut, [len(u)]]).tolist()
    keys = str_labels(u[lo]).tolist()
    item_str = str_labels(items[order]).tolist()
    vals = values[order].tolist()
    return {
        k: dict(zip(item_str[a:b], vals[a:b], strict=True))
        for k, a, b in zip(keys, lo, hi, strict=True)
    }


@dataclass
class PeerValues:
    means: dict
    per_user: dict = field(repr=False)  # metric -> values aligned with the given users


def aligned(values: dict, users: list[str]) -> np.ndarray:
    return np.array([values.get(u, np.nan) for u in users], dtype=np.float64)


def pytrec_case(get_frames, users: list[str]) -> Forked:
    """pytrec_eval's timed call, in a forked child; per-user values aligned after the clock."""
    import pytrec_eval

    def call() -> Timed:
        t0 = time.perf_counter()
        qdf, rdf = get_frames()
        qd = nested_dict(qdf["user"].to_numpy(), qdf["item"].to_numpy(), qdf["grade"].to_numpy())
        rd = nested_dict(rdf["user"].to_numpy(), rdf["item"].to_numpy(), rdf["score"].to_numpy())
        del qdf, rdf
        evaluator = pytrec_eval.RelevanceEvaluator(qd, set(TREC.values()))
        t1 = time.perf_counter()
        res = evaluator.evaluate(rd)
        means = {m: float(np.mean([v[TREC[m]] for v in res.values()])) for m in METRICS}
        return Timed(t1 - t0, time.perf_counter() - t1, (means, res))

    def finish(timed: Timed) -> Timed:
        means, res = timed.value
        per_user = {mt: aligned({u: v[TREC[mt]] for u, v in res.items()}, users) for mt in METRICS}
        return Timed(timed.conversion, timed.compute, PeerValues(means, per_user))

    return Forked(call, finish)


def ranx_frames(qdf, rdf):
    """The string-id frames ranx's from_df asserts (object dtype ids, int64 grades)."""
    import pandas as pd

    q = pd.DataFrame(
        {
            "q_id": pd.Series(str_labels(qdf["user"].to_numpy()), dtype=object),
            "doc_id": pd.Series(str_labels(qdf["item"].to_numpy()), dtype=object),
            "score": qdf["grade"].to_numpy(np.int64),
        }
    )
    r = pd.DataFrame(
        {
            "q_id": pd.Series(str_labels(rdf["user"].to_numpy()), dtype=object),
            "doc_id": pd.Series(str_labels(rdf["item"].to_numpy()), dtype=object),
            "score": rdf["score"].to_numpy(np.float64),
        }
    )
    return q, r


def ranx_case(get_frames, users: list[str]) -> Forked:
    """ranx's timed call, in a forked child; per-user values aligned after the clock."""
    import ranx

    def call() -> Timed:
        t0 = time.perf_counter()
        qdf, rdf = get_frames()
        qs, rs = ranx_frames(qdf, rdf)
        del qdf, rdf
        qrels = ranx.Qrels.from_df(qs)
        run = ranx.Run.from_df(rs)
        del qs, rs
        t1 = time.perf_counter()
        means = ranx.evaluate(qrels, run, METRICS)
        return Timed(
            t1 - t0, time.perf_counter() - t1, ({k: float(v) for k, v in means.items()}, run)
        )

    def finish(timed: Timed) -> Timed:
        means, run = timed.value
        per_user = {mt: aligned(run.scores[mt], users) for mt in METRICS}
        return Timed(timed.conversion, timed.compute, PeerValues(means, per_user))

    return Forked(call, finish)


def warm_up() -> None:
    """Load receval's kernels and compile ranx's numba kernels outside the timings."""
    import ranx

    from receval.data import _int_ids

    qdf, rdf = make_data(200, seed=1)
    threshold = _int_ids.PARALLEL_MIN_ROWS
    _int_ids.PARALLEL_MIN_ROWS = 0  # also load the kernels that only large inputs use
    try:
        for profile in ("trec_eval", "ranx"):
            receval.evaluate(
                receval.Qrels.from_frame(qdf), receval.Run.from_frame(rdf), METRICS, profile=profile
            )
    finally:
        _int_ids.PARALLEL_MIN_ROWS = threshold
    qs, rs = ranx_frames(qdf, rdf)
    ranx.evaluate(ranx.Qrels.from_df(qs), ranx.Run.from_df(rs), METRICS)


# -------------------------------------------------------------- agreement
def float32_ties(rdf) -> set[str]:
    """Users with two scores that differ in float64 but are equal as float32."""
    user = rdf["user"].to_numpy()
    s64 = rdf["score"].to_numpy()
    s32 = s64.astype(np.float32)
    order = np.lexsort((s32, user))
    u, a, b = user[order], s32[order], s64[order]
    same = (u[1:] == u[:-1]) & (a[1:] == a[:-1]) & (b[1:] != b[:-1])
    return {str(x) for x in np.unique(u[1:][same]).tolist()}


def agreement(report, theirs: PeerValues, label: str, hint=None) -> tuple[list[str], list[str]]:
    """Max |receval - peer| per metric; details of users beyond TOLERANCE."""
    users = [str(u) for u in report.users.tolist()]
    cells, problems = [], []
    for mt in METRICS:
        ours = report.values[mt]
        peer = theirs.per_user[mt]
        diff = np.abs(ours - peer)
        worst = float(np.nanmax(diff)) if np.isfinite(diff).any() else float("nan")
        n_nan = int(np.isnan(diff).sum())
        cells.append(f"{worst:.1e}" + (f" ({n_nan} users missing)" if n_nan else ""))
        bad = np.flatnonzero(~(diff <= TOLERANCE))
        if len(bad):
            sample = bad[np.argsort(-np.nan_to_num(diff[bad], nan=np.inf), kind="stable")[:5]]
            text = (
                f"{label} {mt}: {len(bad)} users differ by more than {TOLERANCE:g}, e.g. "
                + ", ".join(
                    f"user {users[i]}: receval {float(ours[i])!r} vs {float(peer[i])!r}"
                    for i in sample
                )
            )
            if hint is not None:
                text += hint({users[i] for i in bad.tolist()})
            problems.append(text)
    return cells, problems


# ------------------------------------------------------------------ report
def fmt_s(x: float) -> str:
    return f"{x:.3f}" if x < 10 else f"{x:.1f}"


def row(cells) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def size_label(n: int) -> str:
    return f"{n / 1e6:g}M" if n >= 1_000_000 else f"{n / 1e3:g}k"


def mem_available_mib() -> float:
    with open("/proc/meminfo") as fh:
        for line in fh:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) / 1024.0
    return float("inf")


@dataclass
class Bench:
    runs: int
    long_s: float
    peer_limit_s: float
    lines: list[str] = field(default_factory=list)
    agree: list[str] = field(default_factory=list)
    agree_notes: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # (tool, case) -> (n_users, seconds, peak MiB) of the largest size measured
    seen: dict = field(default_factory=dict)
    receval_at: dict = field(default_factory=dict)  # n_users -> {case: (seconds, MiB)}
    peer_at: dict = field(default_factory=dict)  # (tool, case, n_users) -> (peer s, receval s)

    def emit(self, cells) -> None:
        self.lines.append(row(cells))
        print(self.lines[-1], flush=True)

    def peer_gate(self, tool: str, case: str, n: int) -> str | None:
        """Why a peer is skipped at this size (extrapolated from a smaller one), or None."""
        prev = self.seen.get((tool, case))
        if prev is None:
            if n > 100_000:
                return "skipped: no smaller size measured to extrapolate from"
            return None
        n0, sec, mib = prev
        est_s, est_mib = sec * n / n0, mib * n / n0
        if est_s > self.peer_limit_s:
            return f"skipped: ~{est_s / 60:.0f} min extrapolated"
        if est_mib > 0.7 * mem_available_mib():
            return f"skipped: ~{est_mib / 1024:.0f} GiB peak extrapolated"
        return None

    def case(self, n: int, name: str, qdf, rdf, qpath: str, rpath: str) -> None:
        import pandas as pd

        label = f"{size_label(n)} users, {name}"
        if name == "DataFrame":
            qrels_users = qdf["user"]

            def frames():
                return qdf, rdf

            ours = receval_frame(qdf, rdf)
        else:
            qrels_users = pd.read_parquet(qpath, columns=["user"])["user"]

            def frames():
                return pd.read_parquet(qpath), pd.read_parquet(rpath)

            ours = receval_parquet(qpath, rpath)

        # qrels users in order of first appearance, as receval reports them
        users = [str(u) for u in pd.unique(qrels_users).tolist()]
        del qrels_users

        # receval and the peers in turn (receval, pytrec_eval, ranx, receval, ...); every
        # call of a peer runs in its own forked child, so running out of memory ends
        # only that call and the child's memory is returned in full
        tools, cases = ["receval"], [ours]
        skipped = {}
        for tool, make in (("pytrec_eval", pytrec_case), ("ranx", ranx_case)):
            why = self.peer_gate(tool, name, n)
            if why is None:
                tools.append(tool)
                cases.append(make(frames, users))
            else:
                skipped[tool] = why
                self.notes.append(f"{tool}, {label}: {why}.")
        got = dict(zip(tools, interleaved(cases, self.runs, warmup=False, long_s=self.long_s),
                       strict=True))  # fmt: skip
        del cases
        gc.collect()
        mine = got["receval"]
        report = mine.value.value
        if [str(u) for u in report.users.tolist()] != users:
            raise RuntimeError("receval's user order differs from pd.unique(qrels users)")
        self.receval_at.setdefault(n, {})[name] = (mine.seconds, mine.peak_extra_mib)
        peers = {}
        for tool in ("pytrec_eval", "ranx"):
            m = got.get(tool)
            if m is None:
                peers[tool] = skipped[tool]
            elif m.error is not None:
                peers[tool] = m.error
                self.notes.append(f"{tool}, {label}: {m.error}.")
            else:
                peers[tool] = m
                self.seen[(tool, name)] = (n, m.seconds, m.peak_extra_mib)
                self.peer_at[(tool, name, n)] = (m.seconds, mine.seconds)

        base = peers["pytrec_eval"]
        base_s = base.seconds if not isinstance(base, str) else None

        def speedup(sec: float) -> str:
            return f"{base_s / sec:.1f}x" if base_s else "n/a"

        for tool in ("receval", "pytrec_eval", "ranx"):
            m = mine if tool == "receval" else peers[tool]
            if isinstance(m, str):
                self.emit([label, tool, "", "", "", m, "", "", ""])
                continue
            timed = m.median_value
            bold = "**" if tool == "receval" else ""
            self.emit(
                [
                    label,
                    f"{bold}{tool}{bold}",
                    len(m.runs),
                    fmt_s(timed.conversion),
                    fmt_s(timed.compute),
                    f"{bold}{fmt_s(m.seconds)}{bold}",
                    f"{bold}{speedup(m.seconds)}{bold}",
                    f"{m.peak_extra_mib:.0f}",
                    row_load(m),
                ]
            )

        n_agree = len(self.agree)
        if name == "DataFrame":
            if not isinstance(peers["pytrec_eval"], str):
                tied = float32_ties(rdf)
                self.agree_notes.append(
                    f"{size_label(n)} users: {len(tied)} users have two scores that differ as "
                    f"float64 but are equal as float32."
                )
                cells, bad = agreement(
                    report,
                    peers["pytrec_eval"].value.value,
                    f"{label}, trec_eval",
                    float32_hint(tied),
                )
                self.agree.append(
                    row([size_label(n), 'pytrec_eval vs profile="trec_eval"', *cells])
                )
                self.problems += bad
            if not isinstance(peers["ranx"], str):
                q, r = receval.Qrels.from_frame(qdf), receval.Run.from_frame(rdf)
                ranx_report = receval.evaluate(q, r, METRICS, profile="ranx")
                del q, r
                cells, bad = agreement(ranx_report, peers["ranx"].value.value, f"{label}, ranx")
                self.agree.append(row([size_label(n), 'ranx vs profile="ranx"', *cells]))
                self.problems += bad
            for line in self.agree[n_agree:]:
                print(line, flush=True)
        del report, mine, got, peers
        gc.collect()


def float32_hint(tied: set[str]):
    def hint(bad: set[str]) -> str:
        return (
            f". {len(bad & tied)} of these {len(bad)} users (and {len(tied)} users in all) "
            f"have two scores that differ as float64 but are equal as float32; trec_eval "
            f"stores scores as C float (TEXT_RESULTS.sim), so it ties them and breaks the "
            f"tie by item id descending"
        )

    return hint


def run_size(bench: Bench, n: int, tmp: str) -> str:
    t0 = time.perf_counter()
    qdf, rdf = make_data(n)
    qpath, rpath = os.path.join(tmp, f"qrels_{n}.parquet"), os.path.join(tmp, f"run_{n}.parquet")
    qdf.to_parquet(qpath, index=False)
    rdf.to_parquet(rpath, index=False)
    relevant = int((qdf["grade"] > 0).sum())
    desc = (
        f"{size_label(n)} users: run {len(rdf):,} rows, qrels {len(qdf):,} rows "
        f"({relevant / n:.1f} relevant items per user on average, "
        f"{(qdf['grade'] == 0).mean():.0%} of judgments grade 0, "
        f"{qdf.attrs['relevant_recommended']:.0%} of relevant items recommended); "
        f"Parquet {os.path.getsize(rpath) / 2**20:.0f} + {os.path.getsize(qpath) / 2**20:.0f} MiB"
    )
    print(f"{desc}; generated in {time.perf_counter() - t0:.1f} s", flush=True)
    bench.case(n, "DataFrame", qdf, rdf, qpath, rpath)
    del qdf, rdf  # the Parquet rows start from the files only
    gc.collect()
    bench.case(n, "Parquet", None, None, qpath, rpath)
    os.remove(qpath)
    os.remove(rpath)
    return desc


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10k users, print only")
    parser.add_argument(
        "--users", type=int, nargs="+", help="numbers of users (default 100000 1000000)"
    )
    parser.add_argument("--runs", type=int, default=3, help="timed runs of every tool per case")
    parser.add_argument(
        "--long-s",
        type=float,
        default=120.0,
        help="a case where a run took longer than this has one run of every tool",
    )
    parser.add_argument(
        "--peer-limit-s",
        type=float,
        default=600.0,
        help="skip a peer at a size whose extrapolated time exceeds this",
    )
    parser.add_argument("--out", default=os.path.join(ROOT, "docs", "benchmarks.md"))
    args = parser.parse_args()
    sizes = sorted(args.users or ([10_000] if args.quick else [100_000, 1_000_000]))

    load_before = os.getloadavg()
    print(f"load average before: {load_before}", flush=True)
    warm_up()
    bench = Bench(runs=args.runs, long_s=args.long_s, peer_limit_s=args.peer_limit_s)
    head = row(
        [
            "case",
            "tool",
            "runs",
            "conversion (s)",
            "compute (s)",
            "end to end (s)",
            "speed-up vs pytrec_eval",
            "peak extra (MiB)",
            "load before / after",
        ]
    )
    bench.lines = [head, row(["---"] * 9)]
    print("\n".join(bench.lines), flush=True)
    descs = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            descs.append(run_size(bench, n, tmp))
            print(f"  (process RSS {status_mib('VmRSS'):.0f} MiB)", flush=True)

    agree_head = [
        row(["users", "comparison", *METRICS]),
        row(["---"] * (2 + len(METRICS))),
    ]
    print("\n".join(agree_head + bench.agree))
    for note in bench.notes:
        print(note)
    for p in bench.problems:
        print("DISAGREEMENT:", p)
    targets = []
    for (tool, name, n), (sec, ours) in sorted(bench.peer_at.items(), key=lambda kv: kv[0][2]):
        if tool != "pytrec_eval" or n not in (100_000, 1_000_000):
            continue
        if n == 100_000:
            targets.append(
                f"- >= 10x faster than pytrec_eval end to end at 100k users ({name}): "
                f"{sec / ours:.1f}x, {'met' if sec / ours >= 10 else 'NOT met'}"
            )
        else:
            targets.append(
                f"- speed-up over pytrec_eval end to end at 1M users ({name}): "
                f"{sec / ours:.1f}x (no target)"
            )
    if 1_000_000 in bench.receval_at:
        for name, (sec, mib) in bench.receval_at[1_000_000].items():
            ok = sec <= 5 and mib <= 3 * 1024
            targets.append(
                f"- 1M users ({name}): <= 5 s and <= 3 GiB peak: {sec:.2f} s, "
                f"{mib / 1024:.2f} GiB, {'met' if ok else 'NOT met'}"
            )
    print("\n".join(targets))
    load_after = os.getloadavg()
    print(load_line(load_before, load_after), flush=True)
    for note in bench.agree_notes:
        print(note)
    if args.quick:
        return

    problems = (
        "\n\n**Disagreements beyond 1e-9** (receval is wrong or a convention differs):\n\n"
        + "\n".join(f"- {p}" for p in bench.problems)
        if bench.problems
        else f"\n\nEvery per-user value agrees within {TOLERANCE:g}."
    )
    notes = "\n".join(f"- {n}" for n in bench.notes)
    text = f"""(needs `pip install -e '.[bench]'
pytrec-eval-terrier ranx`; writes this section; `--quick` runs 10k
users and prints only). Every row starts from the same pandas DataFrames (or
the same Parquet files) in one process and computes {", ".join(METRICS)}.

Data (`make_data` in the script, seed 0; item ids from a catalogue of
{CATALOGUE:,}, int64 user and item ids, float64 scores without exact ties):

{chr(10).join(f"- {d}" for d in descs)}"""
    after = f"""- **How times are taken**: the tools of a case are timed in turn (receval,
  pytrec_eval, ranx, receval, ...), the same number of runs each ({args.runs},
  or 1 for every tool of a case where a run took more than {args.long_s:g} s;
  the "runs" column). End to end is the median of the runs; conversion and
  compute are timed inside each call and shown for the median run. Every
  call of a peer runs in its own forked child process (timed there), so
  running out of memory would end only that call; receval runs in the parent.
  Kernels are loaded (and ranx's numba kernels compiled) by a small warm-up
  call before any timing. The load column is the 1-minute load average
  before and after the case's runs.
- **receval**: `Qrels.from_frame` + `Run.from_frame` (or `Qrels.from_file` +
  `Run.from_file` on the Parquet paths) is the conversion, then
  `evaluate(qrels, run, metrics, profile="trec_eval")` on the fresh containers
  is the compute.
- **pytrec_eval**: conversion builds `{{str(user): {{str(item): value}}}}` for
  qrels and run (ids to `str` once per distinct id with `pd.factorize`, a
  stable argsort by user, then one `dict(zip(...))` per user over Python lists,
  several times faster than `groupby().apply()`) and the `RelevanceEvaluator`
  with {{{", ".join(repr(v) for v in TREC.values())}}}; compute is
  `evaluator.evaluate(run)` plus the means over queries.
- **ranx**: conversion turns the ids into `str` (object columns, which
  `from_df` asserts) and calls `ranx.Qrels.from_df` / `ranx.Run.from_df`;
  compute is `ranx.evaluate(qrels, run, metrics)`.
- Parquet rows: the peers read the files with `pd.read_parquet` (counted in
  conversion), then convert as above.
- Peak extra memory is the largest rise of the resident high-water mark
  during a call (`/proc/self/clear_refs`; the child's, for a peer), excluding
  the input DataFrames. Before every call, glibc's heap is trimmed and Arrow's
  memory pool releases the pages it keeps; otherwise pages kept from an earlier
  Parquet read would sit in the baseline and hide ~5 GiB at 1M users.
- A peer is skipped at a size when its time or memory, extrapolated linearly
  from the size below, exceeds {args.peer_limit_s / 60:.0f} min or 70% of the
  free memory.

Skipped or failed peer rows:

{notes or "- none"}

Targets:

{chr(10).join(targets) or "- (sizes not run)"}

Agreement, max |receval - peer| over users (receval with the peer's profile):

{chr(10).join(agree_head + bench.agree)}{problems}

trec_eval stores scores as C `float` (`TEXT_RESULTS.sim`), so two float64
scores equal once rounded to float32 tie there and are ordered by item id
descending; receval compares the float64 values.

{chr(10).join(f"- {x}" for x in bench.agree_notes)}
"""
    write_section(
        "ranking",
        "Ranking metrics (`evaluate`)",
        text,
        bench.lines,
        peers=("pytrec-eval-terrier", "ranx"),
        load=(load_before, load_after),
        after=after,
        out=args.out,
    )


if __name__ == "__main__":
    main()

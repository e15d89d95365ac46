"""Beyond accuracy, fairness and the new CTR metrics at scale: every metric in one run.

    python benchmarks/bench_fairness.py                 # 1M users x top-100, writes the docs
    python benchmarks/bench_fairness.py --quick         # 20k users, 200k CTR rows, print only
    python benchmarks/bench_fairness.py --users 100000  # any size, print only

Data: each user's top-100 list from a catalogue of 100k items with power-law
popularity (ranks by score, ties included), 10 judged items per user (grades
0-3), a training log of 10 interactions per user, 20 item providers, 3 user
segments (and 10,000 others); for the CTR rows, an impression log of 10M rows.
Each row is one call of the public function (or one ``evaluate`` call with every
per-user metric string: one pass), timed with the harness (``--runs`` runs, median) and
with its peak memory above the process's baseline. There is no peer row: the
peers that define these metrics (Elliot, RecBole, Recommenders, expeval,
scikit-learn's r2/Brier) are checked for equal values in the test suite; the
point here is that every metric runs at this size, and how long it takes.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import receval
from _harness import interleaved, row_load, write_section

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
N_ITEMS = 100_000
K = 100
SKEW = 3.0
CTR_ROWS = 10_000_000

PER_USER = ["arp@10", "aplt@10", "aclt@10", "average_popularity@10", "tail_percentage@10",
            "serendipity@10", "miscalibration@10", "ndcg@10", "recall@100"]  # fmt: skip


def make_data(n_users: int, seed: int = 0) -> dict:
    """Top-100 lists with scores, qrels, a training log, item providers, user segments."""
    rng = np.random.default_rng(seed)
    n = n_users * K
    items = np.floor(N_ITEMS * rng.random(n) ** SKEW).astype(np.int64)
    users = np.repeat(np.arange(n_users, dtype=np.int64), K)
    # one row per (user, item): a repeated item gets a fresh id far out in the catalogue
    key = users * (2 * N_ITEMS) + items
    _, first = np.unique(key, return_index=True)
    dup = np.ones(n, dtype=bool)
    dup[first] = False
    items[dup] = N_ITEMS + np.arange(int(dup.sum())) % N_ITEMS
    key = users * (2 * N_ITEMS) + items
    assert len(np.unique(key)) == n
    scores = np.round(rng.random(n), 3)  # ties within lists
    q_users = np.repeat(np.arange(n_users, dtype=np.int64), 10)
    q_items = np.floor(N_ITEMS * rng.random(n_users * 10) ** SKEW).astype(np.int64)
    q_key = q_users * (2 * N_ITEMS) + q_items
    _, keep = np.unique(q_key, return_index=True)
    keep.sort()
    grades = rng.integers(0, 4, len(keep))
    log_users = rng.integers(0, n_users, n_users * 10)
    log_items = np.floor(N_ITEMS * rng.random(n_users * 10) ** SKEW).astype(np.int64)
    providers = rng.integers(0, 20, 2 * N_ITEMS)
    genres = rng.integers(0, 18, 2 * N_ITEMS)  # one genre per item, a second for half of them
    second = np.flatnonzero(rng.random(2 * N_ITEMS) < 0.5)
    categories = (
        np.concatenate([np.arange(2 * N_ITEMS), second]),
        np.concatenate([genres, (genres[second] + 1 + rng.integers(0, 17, len(second))) % 18]),
    )
    return {
        "categories": categories,
        "run": (users, items, scores),
        "qrels": (q_users[keep], q_items[keep], grades),
        "log": (log_users, log_items),
        "item_groups": (np.arange(2 * N_ITEMS), providers),
        "segments": rng.integers(0, 3, n_users),
        "many_segments": rng.integers(0, 10_000, n_users),  # e.g. country x day
    }


def ctr_data(n: int, seed: int = 1) -> dict:
    rng = np.random.default_rng(seed)
    score = rng.random(n)
    y = (rng.random(n) < 0.3 * score + 0.05).astype(np.int8)
    other = np.clip(score + 0.1 * rng.standard_normal(n), 0, 1)
    return {"y": y, "p": score, "q": other, "segment": rng.integers(0, 5, n)}


def fmt_s(x: float) -> str:
    return f"{x:.3f}" if x < 10 else f"{x:.1f}"


def per_user(
    timed: Callable[..., Any], u: str, run: Any, qrels: Any, log: Any, cats: Any, data: dict
) -> None:
    """The rows of the run: one evaluate pass, then every metric over the whole run."""
    report = timed(
        f"`evaluate`: {', '.join(PER_USER)} with `train=`, `item_categories=` (one pass)",
        lambda: receval.evaluate(qrels, run, PER_USER, train=log, item_categories=cats),
    )
    timed("`EvaluationReport.by_segment` (3 user segments)",
          lambda: report.by_segment(data["segments"]))  # fmt: skip
    timed("`EvaluationReport.by_segment` (10,000 user segments)",
          lambda: report.by_segment(data["many_segments"]))  # fmt: skip
    timed("`popularity_statistical_parity` (PopRSP@10)",
          lambda: receval.popularity_statistical_parity(run, train=log, k=10))  # fmt: skip
    timed("`popularity_equal_opportunity` (PopREO@10)",
          lambda: receval.popularity_equal_opportunity(qrels, run, train=log, k=10))  # fmt: skip
    timed("`item_coverage@10`", lambda: receval.item_coverage(run, train=log, k=10))
    timed("`shannon_entropy@10`", lambda: receval.shannon_entropy(run, k=10))
    timed("`distributional_coverage@10`", lambda: receval.distributional_coverage(run, k=10))
    timed("`gini_index@10`", lambda: receval.gini_index(run, k=10))
    timed(
        "`popularity_serendipity@10` (RecTools)",
        lambda: receval.popularity_serendipity(run, qrels, log, catalog=2 * N_ITEMS, k=10),
    )
    timed("`intersection@10` (the run against itself)",
          lambda: receval.intersection(run, run, k=10))  # fmt: skip
    timed("`user_coverage@10`", lambda: receval.user_coverage(run, qrels, k=10))
    timed("`expected_exposure` (EE-D, EE-R, EE-L; RBP 0.5, whole lists, ties averaged)",
          lambda: receval.expected_exposure(qrels, run))  # fmt: skip
    groups = data["item_groups"]
    timed("`group_exposure` (20 providers)",
          lambda: receval.group_exposure(run, item_groups=groups))  # fmt: skip


def ctr(timed: Callable[..., Any], m: str, c: dict, n: int) -> None:
    """The rows of the impression log."""
    y, p, q = c["y"], c["p"], c["q"]
    timed(f"`brier_score_loss`, {m} impressions", lambda: receval.brier_score_loss(y, p))
    timed(f"`r2_score`, {m}", lambda: receval.r2_score(y, p))
    timed(f"`explained_variance_score`, {m}", lambda: receval.explained_variance_score(y, p))
    timed(f"`partial_auc` (max_fpr=0.1), {m}", lambda: receval.partial_auc(y, p, max_fpr=0.1))
    timed(f"`roc_auc_ci` (DeLong), {m}", lambda: receval.roc_auc_ci(y, p))
    timed(f"`delong_test` (two models), {m}", lambda: receval.delong_test(y, p, q))
    timed(f"`by_segment` (auc, log loss, 5 segments), {m}",
          lambda: receval.by_segment(["roc_auc", "log_loss"], y, p, by=c["segment"]))  # fmt: skip

    def windowed() -> float:
        acc = receval.metric("log_loss", window=1_000_000, window_unit="rows")
        for a in range(0, n, 100_000):
            acc.update(y[a : a + 100_000], p[a : a + 100_000])
        return acc.compute_window()

    timed(f"`metric('log_loss', window=1M rows)`, {m} in batches of 100k", windowed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--ctr-rows", type=int, default=CTR_ROWS)
    parser.add_argument("--quick", action="store_true", help="20k users, 200k CTR rows, print only")
    args = parser.parse_args()
    if args.quick:
        args.users, args.ctr_rows = 20_000, 200_000
    write = args.users == 1_000_000 and args.ctr_rows == CTR_ROWS
    load_before = os.getloadavg()
    data = make_data(args.users)
    rows: list[str] = []

    def timed(case: str, fn: Callable[[], Any]) -> Any:
        (got,) = interleaved([fn], args.runs, warmup=False)
        cells = [
            case,
            len(got.runs),
            fmt_s(got.seconds),
            f"{got.peak_extra_mib:.0f}",
            row_load(got),
        ]
        text = "| " + " | ".join(str(c) for c in cells) + " |"
        print(text, flush=True)
        rows.append(text)
        return got.value

    def categories(d: dict) -> Any:
        import pandas as pd

        items, genres = d["categories"]
        return pd.DataFrame({"item": items, "category": genres})

    # first calls outside the clock (imports), on a few users
    small = make_data(200, seed=9)
    s_run, s_q = receval.Run(*small["run"]), receval.Qrels(*small["qrels"])
    receval.evaluate(s_q, s_run, PER_USER, train=small["log"], item_categories=categories(small))
    receval.expected_exposure(s_q, s_run, k=10)

    u = f"{args.users / 1e6:g}M" if args.users >= 1_000_000 else f"{args.users / 1e3:g}k"
    m = f"{args.ctr_rows / 1e6:g}M"
    the_run = timed(f"`Run` from arrays ({u} users x {K}), for reference",
                    lambda: receval.Run(*data["run"]))  # fmt: skip
    the_qrels = timed("`Qrels` from arrays, for reference", lambda: receval.Qrels(*data["qrels"]))
    log, cats = data["log"], categories(data)
    per_user(timed, u, the_run, the_qrels, log, cats, data)
    ctr(timed, m, ctr_data(args.ctr_rows), args.ctr_rows)
    load = (load_before, os.getloadavg())
    table = [
        "| call | runs | time (s) | peak memory (MiB) | load (before / after) |",
        "| --- | --- | --- | --- | --- |",
        *rows,
    ]
    text = (
        "(writes this section; `--quick` or `--users N` prints only). "
        f"{u} users x top-{K} from a catalogue of {N_ITEMS:,} items (power-law popularity), "
        f"10 judged items per user, a training log of 10 interactions per user; CTR rows: "
        f"{m} impressions. One call per row (`runs`), peak memory above the baseline."
    )
    title = "Beyond accuracy, fairness and the new CTR metrics at scale"
    write_section("fairness", title, text, table, load=load, print_only=not write)


if __name__ == "__main__":
    main()

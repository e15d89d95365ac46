"""Seen-item masking: evaluate(..., exclude=train) against evaluate alone and a pandas anti-join.

    python benchmarks/bench_exclude.py                 # 100k users, rewrites docs/benchmarks.md
    python benchmarks/bench_exclude.py --quick         # 10k users, print only
    python benchmarks/bench_exclude.py --users 300000  # any size, print only

Data: ``--users`` users with 100 recommended items each (distinct, scored at
random), 10 judged items per user (half of them in the list) and 20 training
items per user, 10 of them in the list: every list loses 10 rows. Five metrics
(ndcg@10, map@100, mrr, recall@100, precision@10), every case starting from
pandas DataFrames: ``evaluate`` without masking (the baseline), ``evaluate``
with ``exclude=`` the training frame (the table of seen items built in the
call), with ``exclude=`` a :class:`receval.SeenItems` built beforehand (the
masking alone), and the code a user would write without ``exclude``: a pandas
anti-join of the run with the training frame (``merge(..., indicator=True)``),
then ``evaluate``. The masked means are checked equal. Cases timed in turn
(A B C D, B C D A ...), the same number of runs each (``--runs``), medians; peak
extra memory is the largest rise of the resident high-water mark during a
call. The full run (100k users) takes about 40 seconds on 2 busy cores.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _harness import interleaved, row_load, write_section

METRICS = ["ndcg@10", "map@100", "mrr", "recall@100", "precision@10"]
LENGTH, JUDGED, TRAIN, CATALOGUE = 100, 10, 20, 50_000


def make_frames(n_users: int, seed: int = 0):
    """Qrels, run and training DataFrames (see the module): a user's 130 items are
    distinct, item ``j`` of user ``u`` being ``(a_u + j * 7919) mod CATALOGUE``."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    a = rng.integers(0, CATALOGUE, n_users)[:, None]
    items = (a + np.arange(LENGTH + 30) * 7919) % CATALOGUE  # 7919 prime: distinct
    users = np.arange(n_users)
    run = pd.DataFrame({
        "user": np.repeat(users, LENGTH),
        "item": items[:, :LENGTH].ravel(),
        "score": rng.random(n_users * LENGTH),
    })  # fmt: skip
    judged = np.concatenate([items[:, 40:45], items[:, LENGTH : LENGTH + 5]], axis=1)
    qrels = pd.DataFrame({
        "user": np.repeat(users, JUDGED),
        "item": judged.ravel(),
        "grade": rng.integers(1, 3, n_users * JUDGED),
    })  # fmt: skip
    seen = np.concatenate([items[:, :10], items[:, LENGTH + 10 : LENGTH + 20]], axis=1)
    train = pd.DataFrame({"user": np.repeat(users, TRAIN), "item": seen.ravel()})
    return qrels, run, train


def anti_join(run, train):
    """The run's rows whose (user, item) is not in ``train``: the pandas way."""
    merged = run.merge(train.drop_duplicates(), on=["user", "item"], how="left", indicator=True)
    return merged.loc[merged["_merge"] == "left_only", ["user", "item", "score"]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10k users, print only")
    parser.add_argument("--users", type=int, default=None, help="users (print only)")
    parser.add_argument("--runs", type=int, default=3, help="timed runs of every case")
    parser.add_argument("--out", default=None, help="the Markdown file to rewrite")
    args = parser.parse_args()
    n_users = args.users or (10_000 if args.quick else 100_000)
    from receval import SeenItems, evaluate

    qrels, run, train = make_frames(n_users)
    small = make_frames(50, seed=1)
    evaluate(small[0], small[1], METRICS, exclude=small[2])  # first calls: lazy imports
    seen = SeenItems.from_log(train)

    def means(report) -> tuple[float, ...]:
        return tuple(report.mean[m] for m in METRICS)

    load_before = os.getloadavg()
    plain, masked, prebuilt, pandas_way = interleaved(
        [lambda: means(evaluate(qrels, run, METRICS)),
         lambda: means(evaluate(qrels, run, METRICS, exclude=train)),
         lambda: means(evaluate(qrels, run, METRICS, exclude=seen)),
         lambda: means(evaluate(qrels, anti_join(run, train), METRICS))],
        args.runs, warmup=False,
    )  # fmt: skip
    load_after = os.getloadavg()
    assert masked.value == prebuilt.value == pandas_way.value, (masked.value, pandas_way.value)
    assert masked.value != plain.value
    head = ["| case | runs | time (s) | vs evaluate alone | peak MiB | ndcg@10 | load |",
            "|---|---:|---:|---:|---:|---:|---|"]  # fmt: skip
    cases = [
        ("`evaluate` alone (no masking)", plain),
        ("`evaluate(..., exclude=train)` (a DataFrame)", masked),
        ("`evaluate(..., exclude=seen)` (a `SeenItems`)", prebuilt),
        ("pandas anti-join, then `evaluate`", pandas_way),
    ]
    lines = [
        f"| {label} | {len(m.runs)} | {m.seconds:.2f} | {m.seconds / plain.seconds:.2f}x | "
        f"{m.peak_extra_mib:.0f} | {m.value[0]:.4f} | {row_load(m)} |"
        for label, m in cases
    ]
    print("\n".join(head + lines))
    if args.quick or args.users:
        return
    text = f"""(writes this section; `--quick` runs 10k users
and prints only, `--users N` any size). {n_users:,} users x {LENGTH} recommended
items, {JUDGED} judged items and {TRAIN} training items per user, 10 of the
training items in each list (so {n_users * 10:,} rows are masked); metrics
{", ".join(METRICS)}; every case starts from pandas DataFrames. `exclude=seen`
reuses a `receval.SeenItems` built beforehand (the masking alone); the pandas
row is the anti-join a user would write without `exclude=`
(`run.merge(train, how="left", indicator=True)`, keep `left_only`), then
`evaluate`. The three masked cases give the same means (checked). Cases timed
in turn, {args.runs} runs each, medians; peak extra memory is the largest rise
of the resident high-water mark during a call."""
    write_section("exclude", "Seen-item masking", text, head + lines, peers=("pandas",),
                  load=(load_before, load_after), out=args.out)  # fmt: skip


if __name__ == "__main__":
    main()

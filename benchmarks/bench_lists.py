"""How two runs' lists differ per user: receval's list_differences beside SciPy's kendalltau.

    python benchmarks/bench_lists.py                  # 1M users x 100, rewrites docs/benchmarks.md
    python benchmarks/bench_lists.py --quick          # 20k users, print only
    python benchmarks/bench_lists.py --users 300000   # any size, print only

Data: two runs of ``--users`` users with 100 items each; the second run keeps
80 of the first run's items per user (shifted by 20 ranks) and scores them
anew, so every measure has work to do. receval computes every measure of
``list_differences`` (RBO with its bounds, overlap, Jaccard, Kendall's tau-b)
and RBO alone (``rank_biased_overlap``) over all users; the peer is
``scipy.stats.kendalltau`` called once per user on the shared items' scores,
on at most ``--peer-users`` users, its time scaled linearly to every user (said
in its row). The cases are timed in turn (A B C, B C A, C A B ...), the same number of
runs each (``--runs``), medians; peak extra memory is the largest rise of the
resident high-water mark during a call. The full run (1M users) takes about 10
minutes on 2 busy cores.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _harness import interleaved, row_load, write_section

K = 100


def make_runs(n_users: int, seed: int = 0):
    """Two Runs of ``n_users`` x 100 items sharing 80 items per user."""
    from receval import Run

    rng = np.random.default_rng(seed)
    users = np.repeat(np.arange(n_users), K)
    offset = rng.integers(0, 10_000, n_users)[:, None]
    base = (offset + np.arange(K + 20)) % 10_000  # distinct items per user
    a = Run(users, base[:, :K].ravel(), rng.random(n_users * K))
    b = Run(users, base[:, 20:].ravel(), rng.random(n_users * K))
    return a, b


def scipy_taus(a, b, n_users: int) -> float:
    """Mean of scipy.stats.kendalltau over the first ``n_users`` users' shared items."""
    from scipy.stats import kendalltau

    taus = []
    for u in range(n_users):
        sa, sb = slice(a.offsets[u], a.offsets[u + 1]), slice(b.offsets[u], b.offsets[u + 1])
        scores_a = dict(zip(a.item_ids[a.items[sa]].tolist(), a.scores[sa].tolist(), strict=True))
        pairs = [(scores_a[i], y) for i, y in zip(b.item_ids[b.items[sb]].tolist(),
                                                  b.scores[sb].tolist(), strict=True)
                 if i in scores_a]  # fmt: skip
        x, y = zip(*pairs, strict=True)
        taus.append(kendalltau(x, y).statistic)
    return float(np.nanmean(taus))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="20k users, print only")
    parser.add_argument("--users", type=int, default=None, help="users (print only)")
    parser.add_argument("--peer-users", type=int, default=2_000, help="users SciPy runs on")
    parser.add_argument("--runs", type=int, default=3, help="timed runs of every case")
    parser.add_argument("--out", default=None, help="the Markdown file to rewrite")
    args = parser.parse_args()
    n_users = args.users or (20_000 if args.quick else 1_000_000)
    from receval import list_differences, rank_biased_overlap

    a, b = make_runs(n_users)
    small = make_runs(100, seed=1)
    list_differences(*small)  # first calls: lazy imports
    peer_users = min(args.peer_users, n_users)
    load_before = os.getloadavg()
    every, rbo, peer = interleaved(
        [lambda: list_differences(a, b).mean["kendall_tau"],
         lambda: rank_biased_overlap(a, b).mean["rbo"],
         lambda: scipy_taus(a, b, peer_users)],
        args.runs, warmup=False,
    )  # fmt: skip
    load_after = os.getloadavg()
    scale = n_users / peer_users
    scipy_s = peer.seconds * scale
    head = ["| case | runs | receval (s) | peak MiB | value | SciPy (s) | ratio | load |",
            "|---|---:|---:|---:|---:|---:|---:|---|"]  # fmt: skip
    lines = [
        f"| every measure (tau: mean) | {len(every.runs)} | {every.seconds:.2f} | "
        f"{every.peak_extra_mib:.0f} | {every.value:.4f} | "
        f"{'~' if scale != 1 else ''}{scipy_s:.1f} ({peer_users:,} users"
        f"{', scaled' if scale != 1 else ''}; mean tau {peer.value:.4f}) | "
        f"{scipy_s / every.seconds:.1f}x | {row_load(every)} |",
        f"| RBO alone (mean) | {len(rbo.runs)} | {rbo.seconds:.2f} | {rbo.peak_extra_mib:.0f} | "
        f"{rbo.value:.4f} | — | | {row_load(rbo)} |",
    ]
    print("\n".join(head + lines))
    if args.quick or args.users:
        return
    text = f"""(writes this section; `--quick` runs 20k users
and prints only, `--users N` any size). Two runs of {n_users:,} users x {K}
items sharing 80 items per user; receval computes every measure of
`list_differences` over all users (blocks of about a million rows),
`rank_biased_overlap` the RBO columns alone; SciPy's `kendalltau` is called
once per user on {peer_users:,} users and its time scaled to every user
(`~`). Cases timed in turn, {args.runs} runs each, medians; peak extra memory
is the largest rise of the resident high-water mark during a call."""
    write_section("lists", "How two runs' lists differ", text, head + lines, peers=("scipy",),
                  load=(load_before, load_after), out=args.out)  # fmt: skip


if __name__ == "__main__":
    main()

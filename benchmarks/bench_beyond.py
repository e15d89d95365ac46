"""Beyond-accuracy metrics on a large run, with a peer beside each one, in one process.

    python benchmarks/bench_beyond.py                  # 1M users, rewrites docs/benchmarks.md
    python benchmarks/bench_beyond.py --quick          # 100k users, print only
    python benchmarks/bench_beyond.py --users 300000   # any size, print only

Data: top-10 lists from a catalogue of 100k items with skewed (power-law)
popularity, 32-dim float32 item features, and an interaction log of 10 rows
per user for novelty. Each receval function runs on a prebuilt ``Run`` (its
construction is timed on its own row). Peers: straightforward NumPy / pandas
code for the same quantity at full size, and recmetrics' algorithms (a loop of
scikit-learn ``cosine_similarity`` per list for ILS; the users x users cosine
matrix for personalization) on a subset of users, since they are O(users) in
Python calls or O(users²) in memory. receval and the peer of a row are timed
in turn (A B A B ...), the same number of runs each (``--runs``), medians.
Needs the ``bench`` extra.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import receval
from _harness import Interleaved, interleaved, load_line, row_load, write_section

N_ITEMS = 100_000
K = 10
DIM = 32
LOG_PER_USER = 10
SKEW = 3.0  # item rank = floor(N_ITEMS * u ** SKEW): the top 1% of items get ~22% of draws


# ----------------------------------------------------------------------- data
def _popular(rng: np.random.Generator, n: int) -> np.ndarray:
    return np.floor(N_ITEMS * rng.random(n) ** SKEW).astype(np.int64)


def make_data(n_users: int, seed: int = 0) -> dict:
    """Top-10 lists (distinct items per user), item ids, features and a log."""
    rng = np.random.default_rng(seed)
    codes = _popular(rng, n_users * K).reshape(n_users, K)
    while True:  # redraw items repeated within a list until every list is distinct
        order = np.argsort(codes, axis=1, kind="stable")
        ordered = np.take_along_axis(codes, order, axis=1)
        repeat_sorted = np.zeros(codes.shape, dtype=bool)
        repeat_sorted[:, 1:] = ordered[:, 1:] == ordered[:, :-1]
        if not repeat_sorted.any():
            break
        repeat = np.zeros(codes.shape, dtype=bool)
        np.put_along_axis(repeat, order, repeat_sorted, axis=1)
        codes[repeat] = _popular(rng, int(repeat.sum()))
    item_ids = rng.permutation(N_ITEMS).astype(np.int64) + 1_000_000  # popularity not by id
    features = rng.standard_normal((N_ITEMS, DIM), dtype=np.float32)
    n_log = n_users * LOG_PER_USER
    log_users = rng.integers(0, n_users, n_log)
    log_items = item_ids[_popular(rng, n_log)]
    return {
        "codes": codes,  # (n_users, K) positions into item_ids / features
        "item_ids": item_ids,
        "features": features,
        "log": (log_users, log_items),
    }


def build_run(data: dict, n_users: int | None = None) -> receval.Run:
    codes = data["codes"] if n_users is None else data["codes"][:n_users]
    n = len(codes)
    return receval.Run(
        np.repeat(np.arange(n), K),
        data["item_ids"][codes.reshape(-1)],
        ranks=np.tile(np.arange(1, K + 1), n),
    )


# ----------------------------------------------------------------------- peers
def numpy_ils(features: np.ndarray, codes: np.ndarray) -> float:
    """Batched: gather the list vectors, normalise, (U, 10, 10) Gram matrices."""
    x = features[codes].astype(np.float64)
    x /= np.linalg.norm(x, axis=2, keepdims=True)
    gram = np.matmul(x, x.transpose(0, 2, 1))
    m = codes.shape[1]
    per_user = (gram.sum(axis=(1, 2)) - np.trace(gram, axis1=1, axis2=2)) / (m * (m - 1))
    return float(per_user.mean())


def recmetrics_ils(feature_df, lists: list[list]) -> float:
    """recmetrics' intra_list_similarity: per list, feature rows by .loc, sklearn
    cosine_similarity, mean of the upper triangle; then the mean over lists."""
    import scipy.sparse as sp
    from sklearn.metrics.pairwise import cosine_similarity

    values = []
    for items in lists:
        sims = cosine_similarity(sp.csr_matrix(feature_df.loc[items].values), dense_output=False)
        values.append(np.mean(sims[np.triu_indices(sims.shape[0], k=1)]))
    return float(np.mean(values))


def numpy_coverage(codes: np.ndarray) -> float:
    return len(np.unique(codes)) / N_ITEMS


def numpy_gini(codes: np.ndarray) -> float:
    c = np.sort(np.bincount(codes.reshape(-1), minlength=N_ITEMS))
    j = np.arange(1, N_ITEMS + 1)
    return float(((2 * j - N_ITEMS - 1) * c).sum() / (N_ITEMS * c.sum()))


def pandas_novelty(log_frame, rec_frame) -> float:
    pairs = log_frame.drop_duplicates()
    popularity = pairs.groupby("item").size() / pairs["user"].nunique()
    info = -np.log2(rec_frame["item"].map(popularity))
    return float(info.groupby(rec_frame["user"]).mean().mean())


def recmetrics_personalization(codes: np.ndarray) -> tuple[float, int]:
    """recmetrics: 1 - mean off-diagonal of cosine_similarity(user x item binary
    matrix), with the sparse output it asks for (its pandas pivot that builds the
    matrix is replaced by a direct CSR build, which only makes it faster)."""
    import scipy.sparse as sp
    from sklearn.metrics.pairwise import cosine_similarity

    n, m = codes.shape
    x = sp.csr_matrix(
        (np.ones(n * m), codes.reshape(-1), np.arange(0, n * m + 1, m)), shape=(n, N_ITEMS)
    )
    sims = cosine_similarity(x, dense_output=False)
    return float(1 - (sims.sum() - n) / (n * (n - 1))), int(sims.nnz)


# ----------------------------------------------------------------------- table
def fmt_s(x: float) -> str:
    if x < 0.01:
        return f"{x:.4f}"
    return f"{x:.3f}" if x < 10 else f"{x:.1f}"


def fmt_ratio(x: float) -> str:
    return f"**{x:.1f}x**" if x < 10 else f"**{x:,.0f}x**"


def row(cells) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def line(case: str, ours: Interleaved, peer_name: str = "", theirs: Interleaved | None = None):
    if theirs is None:
        cells = [case, len(ours.runs), fmt_s(ours.seconds), f"{ours.peak_extra_mib:.0f}", "—"]
        cells += ["", "", "", "", row_load(ours)]
    else:
        cells = [
            case,
            len(ours.runs),
            fmt_s(ours.seconds),
            f"{ours.peak_extra_mib:.0f}",
            peer_name,
            fmt_s(theirs.seconds),
            f"{theirs.peak_extra_mib:.0f}",
            fmt_ratio(theirs.seconds / ours.seconds),
            f"{abs(ours.value - theirs.value):.1e}",
            row_load(ours),
        ]
    text = row(cells)
    print(text, flush=True)
    return text


@dataclass
class Timer:
    """receval and its peer of a row timed in turn (A B A B ...), the same runs each."""

    runs: int
    long_s: float

    def pair(self, ours, theirs=None) -> tuple[Interleaved, Interleaved | None]:
        fns = [ours] if theirs is None else [ours, theirs]
        got = interleaved(fns, self.runs, warmup=False, long_s=self.long_s)
        return got[0], (got[1] if theirs is not None else None)


def run_all(n_users: int, peer_users: int, timer: Timer) -> tuple[list[str], dict]:
    import pandas as pd

    data = make_data(n_users)
    codes, ids, feats = data["codes"], data["item_ids"], data["features"]
    log_users, log_items = data["log"]
    catalog = ids
    u = f"{n_users / 1e6:g}M" if n_users >= 1_000_000 else f"{n_users / 1e3:g}k"
    lines = []
    log = (log_users, log_items)
    log_frame = pd.DataFrame({"user": log_users, "item": log_items})
    rec_frame = pd.DataFrame({"user": np.repeat(np.arange(n_users), K), "item": ids[codes.ravel()]})
    sub = codes[:peer_users]
    feature_df = pd.DataFrame(feats, index=ids)
    lists = [ids[c].tolist() for c in sub]

    # lazy imports and first calls of every tool outside the clock, on small inputs
    small = build_run(data, 1000)
    receval.intra_list_similarity(small, k=K, features=feats, feature_items=ids)
    receval.novelty(small, (log_users[:1000], log_items[:1000]), k=K, unseen="skip")
    receval.personalization(small, k=K)
    receval.gini_index(small, k=K, catalog=catalog)
    receval.catalog_coverage(small, k=K, catalog=catalog)
    numpy_ils(feats, codes[:100])
    numpy_coverage(codes[:100])
    numpy_gini(codes[:100])
    pandas_novelty(log_frame.head(1000), rec_frame.head(1000))
    recmetrics_personalization(codes[:100])
    recmetrics_ils(feature_df, lists[:10])

    built, _ = timer.pair(lambda: build_run(data))
    run = built.value
    built.values = []
    lines.append(line(f"`Run` from arrays ({u} users x {K}), for reference", built))

    ours, theirs = timer.pair(
        lambda: receval.intra_list_similarity(run, k=K, features=feats, feature_items=ids),
        lambda: numpy_ils(feats, codes),
    )
    lines.append(
        line(
            f"`intra_list_similarity`, {u} users, {DIM}-dim float32 features",
            ours,
            "NumPy batched Gram matrices",
            theirs,
        )
    )

    ours, theirs = timer.pair(
        lambda: receval.catalog_coverage(run, k=K, catalog=catalog), lambda: numpy_coverage(codes)
    )
    lines.append(line(f"`catalog_coverage`, {u} users", ours, "`np.unique`", theirs))

    ours, theirs = timer.pair(
        lambda: receval.gini_index(run, k=K, catalog=catalog), lambda: numpy_gini(codes)
    )
    lines.append(line(f"`gini_index`, {u} users", ours, "`np.bincount` + sort", theirs))

    ours, theirs = timer.pair(
        lambda: receval.novelty(run, log, k=K, unseen="skip"),
        lambda: pandas_novelty(log_frame, rec_frame),
    )
    lines.append(
        line(
            f"`novelty`, {u} users, log of {len(log_users) / 1e6:g}M rows",
            ours,
            "pandas drop_duplicates + groupby",
            theirs,
        )
    )

    ours, _ = timer.pair(lambda: receval.personalization(run, k=K))
    lines.append(line(f"`personalization`, {u} users", ours))

    # recmetrics' algorithms on a subset of users: same subset for receval
    sub_run = build_run(data, peer_users)
    s = f"{peer_users / 1e3:g}k"
    ours, theirs = timer.pair(
        lambda: receval.personalization(sub_run, k=K), lambda: recmetrics_personalization(sub)
    )
    nnz = theirs.value[1]
    theirs.value = theirs.value[0]
    lines.append(
        line(
            f"`personalization`, {s} users", ours, "recmetrics' users x users cosine matrix", theirs
        )
    )
    ours, theirs = timer.pair(
        lambda: receval.intra_list_similarity(sub_run, k=K, features=feats, feature_items=ids),
        lambda: recmetrics_ils(feature_df, lists),
    )
    lines.append(
        line(f"`intra_list_similarity`, {s} users", ours, "recmetrics' per-list loop", theirs)
    )
    facts = {
        "nnz": nnz,
        "nnz_per_pair": nnz / peer_users**2,
        "peer_users": peer_users,
        "n_users": n_users,
        "top1_share": float(np.bincount(codes.ravel()).max() / codes.size),
    }
    return lines, facts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100k users, print only")
    parser.add_argument("--users", type=int, default=None, help="users (print only)")
    parser.add_argument(
        "--peer-users", type=int, default=5_000, help="users given to recmetrics' algorithms"
    )
    parser.add_argument("--runs", type=int, default=3, help="timed runs of every tool per row")
    parser.add_argument(
        "--long-s",
        type=float,
        default=120.0,
        help="a row where a run took longer than this has one run of every tool",
    )
    parser.add_argument(
        "--out",
        default=None,
        help="file whose section is rewritten (default docs/benchmarks.md; with --users "
        "or --draws, only when given)",
    )
    args = parser.parse_args()
    n_users = args.users or (100_000 if args.quick else 1_000_000)
    head = [
        row(
            [
                "case",
                "runs",
                "receval (s)",
                "receval peak extra (MiB)",
                "peer",
                "peer (s)",
                "peer peak extra (MiB)",
                "speed-up",
                "abs. difference",
                "load before / after",
            ]
        ),
        row(["---"] * 10),
    ]
    print("\n".join(head), flush=True)
    load_before = os.getloadavg()
    timer = Timer(args.runs, args.long_s)
    lines, facts = run_all(n_users, min(args.peer_users, n_users), timer)
    load_after = os.getloadavg()
    print(load_line(load_before, load_after))
    if args.quick or (args.users is not None and args.out is None):
        return
    per_pair = facts["nnz_per_pair"]
    full_gib = per_pair * facts["n_users"] ** 2 * 12 / 2**30
    text = f"""(needs `pip install -e '.[bench]'`;
writes this section; `--quick` runs 100k users and prints only, `--users N`
any size). Every row runs receval and its peer on the same data in one
process, in turn (receval, peer, receval, peer, ...): the same number of runs
each ({args.runs}, or 1 for every tool of a row where a run took more than
{args.long_s:g} s; the "runs" column), times are the medians. receval runs on a
prebuilt `Run`; every tool is called once on a small input first (lazy
imports, first calls). Peak extra memory is the largest rise of the
process's resident high-water mark during a call; the load column is the
1-minute load average before and after the row's runs.

Data (`make_data` in the script, seed 0): {facts["n_users"]:,} users, each with
a top-{K} list of distinct items from a catalogue of {N_ITEMS:,} items drawn with
power-law popularity (the most popular item is in {100 * facts["top1_share"]:.1f}% of
the recommendation slots); {DIM}-dim float32 item features; an interaction
log of {LOG_PER_USER} rows per user (same popularity) for novelty. `k=10` and
the catalogue as item ids in every call."""
    after = f"""- `intra_list_similarity` reads the float32 features in place (inverse norms
  per item once, then 45 dot products per list on 2 threads); the NumPy peer
  gathers a (users, 10, 32) copy and multiplies batched 10 x 10 Gram matrices.
  `diversity` is the same computation.
- `novelty` includes reading the log: id encoding, and distinct users per item
  by a counting sort (repeated pairs count once, as in the pandas peer's
  `drop_duplicates`).
- `personalization` is one pass over the lists (O(rows) time, O(items)
  memory). recmetrics builds the users x users cosine matrix: at
  {facts["peer_users"]:,} users it holds {facts["nnz"]:,} non-zeros
  ({100 * per_pair:.0f}% of all pairs, because popular items are shared); at
  {facts["n_users"]:,} users the same density would be ~{full_gib:,.0f} GiB, so
  it runs only on the subset, and receval on the same subset beside it.
- recmetrics itself is not installed (it pins pandas 1.x and Jupyter); its two
  algorithms are re-implemented in the script with the same steps.
"""
    write_section(
        "beyond",
        "Beyond accuracy",
        text,
        head + lines,
        load=(load_before, load_after),
        after=after,
        out=args.out,
    )


if __name__ == "__main__":
    main()

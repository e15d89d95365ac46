"""Retrieval from embeddings: receval against faiss' exact search and NumPy, in one process.

    python benchmarks/bench_retrieval.py            # 100k x 100k x 64, rewrites docs/benchmarks.md
    python benchmarks/bench_retrieval.py --quick    # 10k x 10k, prints only
    python benchmarks/bench_retrieval.py --recbole-python PY  # then RecBole's row in PY

Every row times receval and its peer on the same float32 matrices, in turn (A B A
B ...), the same number of runs each (``_harness.interleaved``), medians, with the
peak extra memory of each call. Cases: exact top k alone (faiss ``IndexFlatIP``:
add + search); with each user's training items masked before the cut (faiss
searches k + the most training items a user has, then NumPy removes them and
keeps k); masking plus the metrics (``receval.evaluate_embeddings``, never holding
the run, against faiss + masking alone); NumPy (matmul by blocks of users +
``argpartition``, masked items set to -inf). "same top k" is the share of users
whose k items are the same set in both. An out-of-core case retrieves from a
``.npy`` item file larger than the stated budget of extra memory (read block by block).
Needs faiss-cpu (in the ``bench`` extra).

With ``--recbole-python PY`` (a Python that has RecBole, e.g. its own virtual
environment) the script then runs itself in PY with ``--recbole`` (receval from this
checkout): one row, ``evaluate_embeddings`` against RecBole's full-sort evaluation
(its trainer's steps, its ``Collector`` and ``Evaluator``) on data made the same way,
both in that process, written to its own section (20k users x 100k items).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import receval
from _harness import interleaved, load_line, row_load, write_section

METRICS = ["ndcg@10", "recall@100"]


def row(cells) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def fmt_s(x: float) -> str:
    return f"{x:.2f}" if x < 10 else f"{x:.1f}"


def data(n_users: int, n_items: int, dim: int, n_train: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    users = rng.normal(size=(n_users, dim)).astype(np.float32)
    items = rng.normal(size=(n_items, dim)).astype(np.float32)
    # n_train distinct training items per user (a random offset and stride: no repeat)
    start = rng.integers(0, n_items, n_users)
    train_items = (start[:, None] + np.arange(n_train) * 7919) % n_items
    train = (np.repeat(np.arange(n_users), n_train), train_items.reshape(-1))
    held_out = (rng.integers(0, n_items, n_users)[:, None] + np.arange(3) * 104729) % n_items
    test = receval.Qrels(np.repeat(np.arange(n_users), 3), held_out.reshape(-1))
    return users, items, train, test


def faiss_search(users, items, k, train=None, n_train=0):
    """faiss' exact inner-product search; with ``train``, k + n_train then masked in NumPy."""
    import faiss

    index = faiss.IndexFlatIP(items.shape[1])
    index.add(items)
    depth = k + n_train if train is not None else k
    _, ids = index.search(users, depth)
    if train is None:
        return ids
    n_items = len(items)
    seen = np.sort(train[0].astype(np.int64) * n_items + train[1])
    keys = np.arange(len(users), dtype=np.int64)[:, None] * n_items + ids
    pos = np.minimum(np.searchsorted(seen, keys), len(seen) - 1)
    keep = seen[pos] != keys
    # the first k kept of each row, in order
    rank = np.cumsum(keep, axis=1) - 1
    out = np.full((len(users), k), -1, dtype=np.int64)
    rows, cols = np.nonzero(keep & (rank < k))
    out[rows, rank[rows, cols]] = ids[rows, cols]
    return out


def numpy_search(users, items, k, train, block=256):
    """NumPy: matmul by blocks of users, masked items set to -inf, argpartition, sort."""
    n_items = len(items)
    order = np.argsort(train[0], kind="stable")
    t_users, t_items = train[0][order], train[1][order]
    bounds = np.searchsorted(t_users, np.arange(len(users) + 1))
    out = np.empty((len(users), k), dtype=np.int64)
    for a in range(0, len(users), block):
        b = min(a + block, len(users))
        s = users[a:b] @ items.T
        lo, hi = bounds[a], bounds[b]
        s[t_users[lo:hi] - a, t_items[lo:hi]] = -np.inf
        part = np.argpartition(-s, k - 1, axis=1)[:, :k]
        top = np.take_along_axis(s, part, axis=1)
        out[a:b] = np.take_along_axis(part, np.argsort(-top, axis=1, kind="stable"), axis=1)
    del n_items
    return out


def recbole_inputs(train, test, n_users: int):
    """RecBole's per-user tensors of item ids (its item 0 is padding: ids + 1), as its
    full-sort data loader holds them: the training history and the test positives."""
    import torch

    def per_user(users, items):
        order = np.argsort(users, kind="stable")
        bounds = np.searchsorted(users[order], np.arange(n_users + 1))
        ids = torch.from_numpy(items[order].astype(np.int64) + 1)
        return [ids[bounds[u] : bounds[u + 1]] for u in range(n_users)]

    return per_user(*train), per_user(test.user_ids[np.repeat(np.arange(test.n_users),
                                                                 np.diff(test.offsets))],
                                      test.item_ids[test.items])  # fmt: skip


def recbole_full_sort(users, items, k, history, positives, scores_per_batch):
    """RecBole's full-sort evaluation of a matrix-factorisation model (BPR's
    ``full_sort_predict``: user rows times the item matrix), as its trainer runs it:
    batches of ``eval_batch_size // n_items`` users, padding item 0 and each user's
    history set to -inf, then its ``Collector`` (``torch.topk``, the hit matrix) and
    ``Evaluator`` (its Recall and NDCG)."""
    import torch
    from recbole.evaluator.collector import Collector
    from recbole.evaluator.evaluator import Evaluator

    config = {"eval_args": {"mode": "full"}, "topk": [10, k], "device": torch.device("cpu"),
              "metrics": ["Recall", "NDCG"], "metric_decimal_place": 12,
              "valid_metric": "ndcg@10"}  # fmt: skip
    collector, evaluator = Collector(config), Evaluator(config)
    user_e = torch.from_numpy(users)
    item_e = torch.from_numpy(np.vstack([np.zeros((1, items.shape[1]), np.float32), items]))
    n_users, n_items = len(users), len(item_e)
    step = max(scores_per_batch // n_items, 1)
    for a in range(0, n_users, step):
        b = min(a + step, n_users)
        # the data loader's collate: row and column of every history item and positive
        hist = history[a:b]
        history_u = torch.cat([torch.full_like(h, i) for i, h in enumerate(hist)])
        history_i = torch.cat(list(hist))
        pos = positives[a:b]
        positive_u = torch.cat([torch.full_like(p, i) for i, p in enumerate(pos)])
        positive_i = torch.cat(list(pos))
        scores = torch.matmul(user_e[a:b], item_e.transpose(0, 1)).view(-1, n_items)
        scores[:, 0] = -np.inf
        scores[(history_u, history_i)] = -np.inf
        collector.eval_batch_collect(scores, None, positive_u, positive_i)
    result = evaluator.evaluate(collector.get_data_struct())
    return {"ndcg@10": float(result["ndcg@10"]), f"recall@{k}": float(result[f"recall@{k}"])}


def recbole_rows(n_users: int, n_items: int, dim: int, k: int, n_train: int, runs: int,
                 long_s: float, scores_per_batch: int) -> list[str]:  # fmt: skip
    """receval's ``evaluate_embeddings`` against RecBole's full-sort evaluation, one process."""
    if not hasattr(np, "float"):  # RecBole 1.2's metrics use np.float (NumPy < 1.24)
        setattr(np, "float", float)  # noqa: B010
    users, items, train, test = data(n_users, n_items, dim, n_train)
    history, positives = recbole_inputs(train, test, n_users)
    metrics = ["ndcg@10", f"recall@{k}"]

    def ours():
        return receval.evaluate_embeddings(test, users, items, metrics, k=k, exclude=train).mean

    def theirs():
        return recbole_full_sort(users, items, k, history, positives, scores_per_batch)

    mine, peer = interleaved([ours, theirs], runs, warmup=False, long_s=long_s)
    same = all(abs(mine.value[m] - peer.value[m]) < 1e-9 for m in metrics)
    size = f"{n_users // 1000}k x {n_items // 1000}k x {dim}"
    label = f"top {k} masked + {', '.join(metrics)}, {size}"
    name = f"RecBole full sort, {max(scores_per_batch // (n_items + 1), 1)} users a batch"
    verdict = "same means" if same else f"means differ: {mine.value} vs {peer.value}"
    return [case_row(label, mine, peer, name, verdict)]


def lists_of(run, n_users: int, k: int) -> np.ndarray:
    out = np.full((n_users, k), -1, dtype=np.int64)
    lengths = np.diff(run.offsets)
    users = np.repeat(np.arange(n_users), lengths)
    rank = np.arange(run.n_rows) - run.offsets[users]
    out[users, rank] = run.item_ids[run.items]
    return out


def same_sets(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.mean((np.sort(a, axis=1) == np.sort(b, axis=1)).all(axis=1)))


def case_row(label, mine, theirs, peer, same) -> str:
    text = row([
        label, len(mine.runs), fmt_s(mine.seconds), f"{fmt_s(theirs.seconds)} ({peer})",
        f"**{mine.seconds / theirs.seconds:.2f}**", f"{mine.peak_extra_mib:.0f}",
        f"{theirs.peak_extra_mib:.0f}", same, row_load(mine),
    ])  # fmt: skip
    print(text, flush=True)
    return text


def bench(n_users: int, n_items: int, dim: int, k: int, n_train: int, runs: int, long_s: float):
    users, items, train, test = data(n_users, n_items, dim, n_train)
    lines = []
    size = f"{n_users // 1000}k x {n_items // 1000}k x {dim}"

    def ours_plain():
        return lists_of(receval.retrieve(users, items, k), n_users, k)

    def ours_masked():
        return lists_of(receval.retrieve(users, items, k, exclude=train), n_users, k)

    def ours_metrics():
        return receval.evaluate_embeddings(test, users, items, METRICS, k=k, exclude=train).mean

    def faiss_plain():
        return faiss_search(users, items, k)

    def faiss_masked():
        return faiss_search(users, items, k, train, n_train)

    def numpy_masked():
        return numpy_search(users, items, k, train)

    for label, ours, peer, name in [
        (f"top {k}, {size}", ours_plain, faiss_plain, "faiss"),
        (f"top {k}, {n_train} training items masked", ours_masked, faiss_masked,
         "faiss + NumPy mask"),
        (f"top {k} masked + {', '.join(METRICS)}", ours_metrics, faiss_masked,
         "faiss + NumPy mask, no metrics"),
        (f"top {k} masked", ours_masked, numpy_masked, "NumPy matmul + argpartition"),
    ]:  # fmt: skip
        mine, theirs = interleaved([ours, peer], runs, warmup=False, long_s=long_s)
        same = "-" if isinstance(mine.value, dict) else f"{same_sets(mine.value, theirs.value):.4f}"
        lines.append(case_row(label, mine, theirs, name, same))
    return lines


def out_of_core(n_users: int, n_items: int, dim: int, k: int, budget_mib: float) -> str:
    rng = np.random.default_rng(1)
    users = rng.normal(size=(n_users, dim)).astype(np.float32)
    folder = tempfile.mkdtemp()
    path = os.path.join(folder, "items.npy")
    mm = np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=(n_items, dim))
    for a in range(0, n_items, 1 << 18):
        b = min(a + (1 << 18), n_items)
        mm[a:b] = rng.normal(size=(b - a, dim)).astype(np.float32)
    mm.flush()
    del mm
    file_mib = os.path.getsize(path) / 2**20

    def ours():
        return receval.retrieve(users, path, k).n_rows

    (mine,) = interleaved([ours], 1, warmup=False)
    os.remove(path)
    verdict = "within" if mine.peak_extra_mib <= budget_mib else "OVER"
    text = (
        f"Out of core: {n_users:,} users against a `.npy` file of {n_items:,} x {dim} "
        f"float32 items ({file_mib:,.0f} MiB on disk), top {k}: {fmt_s(mine.seconds)} s, peak "
        f"extra memory {mine.peak_extra_mib:.0f} MiB ({verdict} the budget of {budget_mib:.0f} "
        f"MiB: the lists and the blocks of items read; the page cache is "
        f"the system's)."
    )
    print(text, flush=True)
    return text


def recbole_child(args: argparse.Namespace) -> None:
    """Run the RecBole row (``--recbole``) in the Python given, which has RecBole;
    receval comes from this checkout. It prints its row and writes its section."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    cmd = [args.recbole_python, os.path.abspath(__file__), "--recbole", "--runs", str(args.runs),
           "--long-s", str(args.long_s)]  # fmt: skip
    cmd += ["--quick"] if args.quick else []
    cmd += ["--out", args.out] if args.out else []
    env = dict(os.environ, PYTHONPATH=os.path.join(root, "src"))
    print("== RecBole: " + " ".join(cmd), flush=True)
    done = subprocess.run(cmd, env=env, check=False)
    if done.returncode != 0:
        print(f"the RecBole row failed (exit {done.returncode}); its section is left as it was")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="10k x 10k; prints only")
    parser.add_argument("--recbole", action="store_true",
                        help="RecBole's full-sort evaluation only (its own section)")  # fmt: skip
    parser.add_argument("--users", type=int, default=None, help="100k; 20k with --recbole")
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--dim", type=int, default=64)
    parser.add_argument("--k", type=int, default=100)
    parser.add_argument("--train", type=int, default=20, help="training items per user")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--long-s", type=float, default=60.0)
    parser.add_argument("--ooc-users", type=int, default=10_000)
    parser.add_argument("--ooc-items", type=int, default=2_000_000)
    parser.add_argument("--budget-mib", type=float, default=256.0)
    parser.add_argument("--scores-per-batch", type=int, default=2048 * 8192,
                        help="RecBole's eval_batch_size: scores per batch of users")  # fmt: skip
    parser.add_argument("--recbole-python", default=None,
                        help="a Python with RecBole: runs --recbole there afterwards")  # fmt: skip
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    full_users = 20_000 if args.recbole else 100_000
    args.users = args.users or full_users
    if args.quick:
        args.users, args.items, args.runs = 10_000, 10_000, 1
        args.ooc_users, args.ooc_items = 2_000, 200_000
    started = time.perf_counter()
    load_before = os.getloadavg()
    # first calls (the core's pool, the peer's threads) on a small case, untimed
    u, i, t, q = data(500, 2000, args.dim, 5)
    receval.evaluate_embeddings(q, u, i, METRICS, k=args.k, exclude=t)
    head = row(["case", "runs", "receval (s)", "peer (s)", "time ratio (receval / peer)",
                "receval peak extra (MiB)", "peer peak extra (MiB)", "same top k",
                "load before / after"])  # fmt: skip
    if args.recbole:
        head = head.replace("same top k", "same means")
    lines = [head, row(["---"] * 9)]
    print("\n".join(lines), flush=True)
    if args.recbole:
        lines += recbole_rows(args.users, args.items, args.dim, args.k, args.train, args.runs,
                              args.long_s, args.scores_per_batch)  # fmt: skip
        ooc = ""
    else:
        faiss_search(u, i, args.k, t, 5)
        lines += bench(args.users, args.items, args.dim, args.k, args.train, args.runs,
                       args.long_s)  # fmt: skip
        ooc = out_of_core(args.ooc_users, args.ooc_items, args.dim, args.k, args.budget_mib)
    load = (load_before, os.getloadavg())
    print(load_line(*load))
    print(f"took {time.perf_counter() - started:.0f} s")
    if args.recbole_python and not args.recbole:
        recbole_child(args)
    if args.quick or (args.users, args.items) != (full_users, 100_000):
        return
    if args.recbole:
        text = f"""(run with a Python that has RecBole and receval:
RecBole 1.2 needs `np.float`, which NumPy 1.24 removed, and the script sets it
to `float`; `--quick` runs 10k x 10k and prints only). receval's
`evaluate_embeddings` (retrieval, masking, the metrics) against RecBole's
full-sort evaluation of a matrix-factorisation model, in one process, in turn,
{args.runs} runs each (1 where a run took over {args.long_s:g} s), medians, on
data made as in the section above ({args.users:,} users: RecBole's side takes
minutes a run). RecBole's side is what its trainer runs for a model
whose `full_sort_predict` is BPR's (the user rows times the item matrix, by
`torch.matmul`): batches of `eval_batch_size // n_items` users
(`eval_batch_size` = {args.scores_per_batch:,} scores, as many as in receval's default blocks),
the padding item and each user's training items set to -inf, then its
`Collector` (`torch.topk`, the hit matrix) and `Evaluator` (`Recall`, `NDCG`),
on the CPU; no training. "same means": both give the same ndcg@10 and
recall@{args.k} (within 1e-9)."""
        write_section("retrieval-recbole", "Retrieval from embeddings: RecBole's full sort",
                      text, lines, peers=("recbole", "torch"), load=load,
                      out=args.out)  # fmt: skip
        return
    text = f"""(faiss-cpu is in the `bench` extra; writes this section; `--quick`
runs 10k x 10k and prints only; RecBole's row is the next section). Every row
runs receval and its peer on the same float32 matrices (normal entries;
{args.train} training items per user; 3 test items per user for the metrics) in
one process, in turn, the same number of runs each ({args.runs}, or 1 where a run
took over {args.long_s:g} s; the "runs" column), medians. A ratio below 1 means
receval is faster. faiss' exact search is `IndexFlatIP` (add + search, its BLAS
and OpenMP threads); for masking it searches k + {args.train} and NumPy removes
each user's training items and keeps k. receval's core scores a few users
against a few items at a time in registers (float32 fused multiply-adds, its
own threads) and keeps only the scores that may enter each user's top k,
masking as it goes; "top k masked + metrics" is `evaluate_embeddings`
(retrieval, masking and the metrics of every user, never holding the run)
against faiss + masking *without* any metric. "same top k": the share of users
whose k items are the same set in both (the two sum the products in different
orders, so a score near the k-th can differ in its last bit)."""
    write_section("retrieval", "Retrieval from embeddings", text, lines,
                  peers=("faiss-cpu", "numpy"), load=load, after=ooc, out=args.out)  # fmt: skip


if __name__ == "__main__":
    main()

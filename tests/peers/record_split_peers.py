"""Record the train/test splits of LensKit, Recommenders, RecBole and RecPack for receval's tests.

The peers are too heavy for test dependencies (PyTorch), so their splits are
recorded once by this script, run by hand, into
``tests/peers/data/recorded_split_peers.json``; ``tests/peers/test_split_recorded.py``
only reads that file. pytest collects no test from this file; ``--doctest-modules``
imports it, which needs only the standard library.

Each peer runs in its own environment; the script records the peers it can import
and keeps the others' sections of the file (from the repository root)::

    python3.13 -m venv /tmp/lk-venv
    /tmp/lk-venv/bin/pip install lenskit==2026.4.0 recommenders==1.2.1
    /tmp/lk-venv/bin/python tests/peers/record_split_peers.py

    python3.11 -m venv /tmp/rb-venv      # with torch 2.x importable
    /tmp/rb-venv/bin/pip install --no-deps recbole==1.2.1
    /tmp/rb-venv/bin/pip install "numpy<2" pandas scipy scikit-learn tqdm colorlog \
        colorama pyyaml tensorboard texttable thop ray
    /tmp/rb-venv/bin/pip install --no-deps recpack==0.3.6
    /tmp/rb-venv/bin/python tests/peers/record_split_peers.py

The versions used are written into the file (``versions``).

What is recorded
----------------
Cases are seeded synthetic logs (``make_log``): 25 users with 1 to 15 interactions
each, distinct items per user, integer times in [0, 20), so a user's times tie
often, rows in a random order. For each peer split, the 0-based rows of the log
that the peer put in the test part. Ties in time are where splitters differ: the
test compares receval's split with each record and the file holds how many users
agree (see the test's docstring for which splits must equal and why others differ).

``ml100k``: the same splits of MovieLens-100k (shipped in the RecBole wheel under
``recbole/dataset_example/ml-100k``; not redistributed here), as counts only: rows
in test, and rows on which receval's split (imported from ``src``, when importable)
agrees with the peer's.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

OUT = Path(__file__).parent / "data" / "recorded_split_peers.json"
SRC = Path(__file__).resolve().parents[2] / "src"
SEEDS = (1, 2, 3, 4)


def make_log(seed: int) -> dict:
    """A synthetic log with ties in time: columns as lists, rows shuffled."""
    import numpy as np

    rng = np.random.default_rng(seed)
    users, items, times = [], [], []
    for u in range(25):
        k = int(rng.integers(1, 16))
        users += [u] * k
        items += rng.choice(60, size=k, replace=False).tolist()
        times += rng.integers(0, 20, size=k).tolist()
    order = rng.permutation(len(users)).tolist()
    return {
        "user": [users[i] for i in order],
        "item": [items[i] for i in order],
        "timestamp": [times[i] for i in order],
    }


def _rows_of(frame, log) -> list[int]:
    """The log's rows of the (user, item) pairs in a peer's frame."""
    where = {(u, i): r for r, (u, i) in enumerate(zip(log["user"], log["item"], strict=True))}
    return sorted(
        where[(int(u), int(i))] for u, i in zip(frame.iloc[:, 0], frame.iloc[:, 1], strict=True)
    )


def record_lenskit(log: dict) -> dict:
    import pandas as pd
    from lenskit.data import from_interactions_df
    from lenskit.splitting import (
        LastFrac,
        LastN,
        crossfold_users,
        split_global_time,
        split_temporal_fraction,
    )

    df = pd.DataFrame(log)
    ds = from_interactions_df(df, user_col="user", item_col="item", timestamp_col="timestamp")

    def at(t: int):  # LensKit keeps times as datetime64[s]: a naive time compares
        return pd.Timestamp(t, unit="s")

    def test_rows(split) -> list[int]:
        if not split.test_size:
            return []
        return _rows_of(split.test_df[["user_id", "item_id"]], log)

    out = {
        "split_global_time(10)": test_rows(split_global_time(ds, at(10))),
        "split_temporal_fraction(0.25)": test_rows(split_temporal_fraction(ds, 0.25)),
        "LastN(1)": test_rows(next(crossfold_users(ds, 1, LastN(1), rng=0))),
        "LastN(2)": test_rows(next(crossfold_users(ds, 1, LastN(2), rng=0))),
        "LastFrac(0.25)": test_rows(next(crossfold_users(ds, 1, LastFrac(0.25), rng=0))),
        "crossfold_users(3, seed=7)": [
            test_rows(s) for s in crossfold_users(ds, 3, LastN(10**6), rng=7)
        ],
    }
    rolled = split_global_time(ds, [at(8), at(14)])
    out["split_global_time([8, 14])"] = [test_rows(s) for s in rolled]
    return out


def record_recommenders(log: dict) -> dict:
    import pandas as pd
    from recommenders.datasets.python_splitters import (
        python_chrono_split,
        python_stratified_split,
    )

    kw = {"col_user": "user", "col_item": "item"}
    chrono = python_chrono_split(pd.DataFrame(log), 0.75, col_timestamp="timestamp", **kw)
    strat = python_stratified_split(pd.DataFrame(log), 0.75, seed=42, **kw)
    return {
        "python_chrono_split(0.75)": sorted(chrono[1].index.tolist()),
        "python_stratified_split(0.75, seed=42)": sorted(strat[1].index.tolist()),
    }


def _recbole_test(df, mode: dict, tmp: str) -> list[tuple[str, str]]:
    """The (user, item) test pairs of RecBole's split of ``df`` (rows in file order)."""
    import os

    from recbole.config import Config
    from recbole.data import create_dataset

    os.makedirs(f"{tmp}/log", exist_ok=True)
    with open(f"{tmp}/log/log.inter", "w") as f:
        f.write("user_id:token\titem_id:token\ttimestamp:float\n")
        for u, i, t in zip(df["user"], df["item"], df["timestamp"], strict=True):
            f.write(f"{u}\t{i}\t{t}\n")
    config = Config(
        model="Pop",
        dataset="log",
        config_dict={
            "data_path": tmp,
            "eval_args": {"split": mode, "order": "TO", "group_by": "user", "mode": "full"},
            "load_col": {"inter": ["user_id", "item_id", "timestamp"]},
            "show_progress": False,
            "state": "ERROR",
        },
    )
    dataset = create_dataset(config)
    test = dataset.build()[-1].inter_feat
    users = dataset.id2token("user_id", test["user_id"].numpy())
    items = dataset.id2token("item_id", test["item_id"].numpy())
    return list(zip(users.tolist(), items.tolist(), strict=True))


def record_recbole(log: dict) -> dict:
    import tempfile

    import pandas as pd

    where = {
        (str(u), str(i)): r for r, (u, i) in enumerate(zip(log["user"], log["item"], strict=True))
    }
    out = {}
    for name, mode in (
        ("LS test_only", {"LS": "test_only"}),
        ("RS [0.8, 0.2]", {"RS": [0.8, 0.2]}),
    ):
        with tempfile.TemporaryDirectory() as tmp:
            pairs = _recbole_test(pd.DataFrame(log), mode, tmp)
        out[name] = sorted(where[p] for p in pairs)
    return out


def record_recpack(log: dict) -> dict:
    import pandas as pd
    from recpack.matrix import InteractionMatrix
    from recpack.scenarios.splitters import MostRecentSplitter, TimestampSplitter

    matrix = InteractionMatrix(pd.DataFrame(log), "item", "user", timestamp_ix="timestamp")

    def rows(part) -> list[int]:  # interaction ids are the log's rows
        return sorted(part._df[InteractionMatrix.INTERACTION_IX].tolist())

    window_in, window_out = TimestampSplitter(8, delta_out=6, delta_in=5).split(matrix)
    return {
        "MostRecentSplitter(1)": rows(MostRecentSplitter(1).split(matrix)[1]),
        "MostRecentSplitter(2)": rows(MostRecentSplitter(2).split(matrix)[1]),
        "TimestampSplitter(10)": rows(TimestampSplitter(10).split(matrix)[1]),
        "TimestampSplitter(8, delta_out=6, delta_in=5) in": rows(window_in),
        "TimestampSplitter(8, delta_out=6, delta_in=5)": rows(window_out),
    }


def _versions() -> dict:
    from importlib import metadata

    found = {}
    for name in ("lenskit", "recommenders", "recbole", "recpack", "numpy", "pandas", "torch"):
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    found["python"] = sys.version.split()[0]
    return found


def ml100k_log() -> dict | None:
    """MovieLens-100k's user, item and timestamp columns as lists, from a RecBole wheel
    installed in a virtual environment under /tmp (None when there is none)."""
    import glob

    paths = glob.glob(
        "/tmp/*/lib/python3*/site-packages/recbole/dataset_example/ml-100k/ml-100k.inter"
    )
    if not paths:
        return None
    import pandas as pd

    raw = pd.read_csv(paths[0], sep="\t")
    raw.columns = ["user", "item", "rating", "timestamp"]
    return {c: raw[c].tolist() for c in ("user", "item", "timestamp")}


def _ml100k_counts(peer: str) -> dict | None:
    """Counts of the peer's splits of MovieLens-100k and receval's agreement (when both
    the data (a RecBole wheel installed beside) and receval import)."""
    log = ml100k_log()
    if log is None:
        return None
    import pandas as pd

    recorded = RECORDERS[peer](log)
    out = {name: {"test_rows": len(rows) if not rows or isinstance(rows[0], int) else None}
           for name, rows in recorded.items()}  # fmt: skip
    try:
        sys.path.insert(0, str(SRC))
        from receval.split import leave_last_out, random_holdout, ratio, temporal
    except ImportError:
        return out
    df = pd.DataFrame(log)

    def rows(result) -> set[int]:
        return set(result.test.index.tolist())

    ours = {
        "split_global_time(10)": None,
        "split_temporal_fraction(0.25)": rows(temporal(df, quantile=0.75)),
        "LastN(1)": rows(leave_last_out(df, n=1, short="test")),
        "LastN(2)": rows(leave_last_out(df, n=2, short="test")),
        "LastFrac(0.25)": rows(ratio(df, test_fraction=0.25)),
        "python_chrono_split(0.75)": rows(ratio(df, train_fraction=0.75)),
        "python_stratified_split(0.75, seed=42)": rows(
            random_holdout(df, train_fraction=0.75, seed=42, stream="legacy")
        ),
        # RecBole holds times of ``:float`` fields as float32 (64 s apart near 2**30)
        "LS test_only": rows(leave_last_out(df.astype({"timestamp": "float32"}), n=1)),
        "RS [0.8, 0.2]": rows(ratio(df, test_fraction=0.2)),
        "MostRecentSplitter(1)": rows(leave_last_out(df, n=1, short="test")),
        "MostRecentSplitter(2)": rows(leave_last_out(df, n=2, short="test")),
    }
    for name, theirs in recorded.items():
        mine = ours.get(name)
        if mine is None or not theirs or not isinstance(theirs[0], int):
            continue
        out[name]["rows_in_both"] = len(mine & set(theirs))
        out[name]["rows_only_receval"] = len(mine - set(theirs))
        out[name]["rows_only_peer"] = len(set(theirs) - mine)
    return out


RECORDERS = {
    "lenskit": record_lenskit,
    "recommenders": record_recommenders,
    "recbole": record_recbole,
    "recpack": record_recpack,
}


def compact(text: str) -> str:
    """JSON text with each innermost list on one line."""
    return re.sub(r"\[[^\[\]{}]*\]", lambda m: json.dumps(json.loads(m.group(0))), text)


def main() -> None:
    data = json.loads(OUT.read_text()) if OUT.exists() else {"cases": {}, "versions": {}}
    peers = []
    for peer in RECORDERS:
        try:
            __import__(peer)
        except ImportError:
            continue
        peers.append(peer)
    for seed in SEEDS:
        log = make_log(seed)
        case = data["cases"].setdefault(str(seed), {"log": log})
        case["log"] = log
        for peer in peers:
            case[peer] = RECORDERS[peer](log)
    for peer in peers:
        data["versions"][peer] = _versions()
        counts = _ml100k_counts(peer)
        if counts is not None:
            data.setdefault("ml100k", {})[peer] = counts
    OUT.write_text(compact(json.dumps(data, indent=1, sort_keys=True)) + "\n")
    print(f"recorded {peers} into {OUT}")


if __name__ == "__main__":
    main()

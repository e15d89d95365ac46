"""Record Microsoft Recommenders' and RecTools' serendipity and intersection on random cases.

Neither library is a test dependency, so this script is run by hand and the test
suite only reads what it writes: ``data/recorded_serendipity.json``, read by
``test_serendipity_recorded.py``. pytest does not collect it (its name is not
``test_*.py``), and it imports the peers only inside functions.

How to regenerate (the packages are installed without their dependencies into a
throwaway venv; numpy and scipy come from the project's environment, pandas must be
2.x: under pandas 3's copy-on-write, Recommenders 1.2.1's
``df[col].fillna(0, inplace=True)`` leaves NaN similarities and its ``serendipity``
reads ``Series[0]`` by position, which raises)::

    python3 -m venv /tmp/venv-x
    /tmp/venv-x/bin/pip install --no-deps "recommenders==1.2.1" "rectools==0.19.0" \
        "pandas==2.2.3" pytz typeguard attrs
    cd <repository root>
    PYTHONPATH=/tmp/venv-x/lib/python3.11/site-packages:<project venv's site-packages> \
        /tmp/venv-x/bin/python -W ignore tests/peers/record_serendipity.py

What is recorded
----------------
* Recommenders (``user_item_serendipity``, ``user_serendipity``, ``serendipity``),
  with ``item_cooccurrence_count`` and ``item_feature_vector`` similarity and a 0/1
  relevance column: a train log of distinct (user, item) pairs over few items (many
  shared histories), and per user a list of items outside its history (Recommenders
  refuses the others), some users without a history (Recommenders drops them).
  Feature vectors are non-zero (Recommenders gives nan for a zero vector).
* RecTools ``Serendipity`` (k in 1, 2, 3, 5) and ``Intersection`` (k, ref_k): lists
  with ranks 1..n (no ties, no gaps: RecTools' cut at rank <= k is then receval's cut
  at the k-th position); the previous interactions repeat rows (counted as rows by
  both), and some users have no test interaction, or no reference list.

The output is deterministic for a given environment; the versions are written into
the file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

OUT = Path(__file__).parent / "data" / "recorded_serendipity.json"
N_CASES = 6


def _lists(rng: np.random.Generator, users: list[int], n_items: int, exclude: dict) -> dict:
    out = {}
    for u in users:
        pool = [i for i in range(n_items) if i not in exclude.get(u, set())]
        if not pool:
            continue
        size = int(rng.integers(1, min(len(pool), 6) + 1))
        out[u] = [int(i) for i in rng.choice(pool, size=size, replace=False)]
    return out


def _recommenders_case(seed: int) -> dict[str, Any]:
    import pandas as pd
    from recommenders.evaluation import python_evaluation as pe

    rng = np.random.default_rng(seed)
    n_users, n_items = int(rng.integers(3, 8)), int(rng.integers(4, 9))
    train = {
        u: set(rng.choice(n_items, size=int(rng.integers(1, 4)), replace=False).tolist())
        for u in range(n_users)
    }
    reco_users = [*range(n_users), n_users, n_users + 1]  # the last two have no history
    lists = _lists(rng, reco_users, n_items, train)
    t_rows = [(u, i) for u in sorted(train) for i in sorted(train[u])]
    r_rows = [(u, i, int(rng.integers(0, 2))) for u, items in lists.items() for i in items]
    train_df = pd.DataFrame(t_rows, columns=["UserId", "ItemId"])
    reco_df = pd.DataFrame(r_rows, columns=["UserId", "ItemId", "Relevance"])
    features = rng.integers(0, 3, size=(n_items, 4)).astype(float)
    features[:, 0] += 1.0  # no zero vector
    feature_df = pd.DataFrame({"ItemId": range(n_items), "features": list(features)})
    out: dict[str, Any] = {
        "seed": seed,
        "train": t_rows,
        "reco": r_rows,
        "features": features.tolist(),
    }
    for measure in ("item_cooccurrence_count", "item_feature_vector"):
        kw = {
            "item_feature_df": feature_df if measure == "item_feature_vector" else None,
            "item_sim_measure": measure,
            "col_user": "UserId",
            "col_item": "ItemId",
            "col_sim": "sim",
            "col_relevance": "Relevance",
        }
        per_item = pe.user_item_serendipity(train_df.copy(), reco_df.copy(), **kw)
        per_user = pe.user_serendipity(train_df.copy(), reco_df.copy(), **kw)
        value = pe.serendipity(train_df.copy(), reco_df.copy(), **kw)
        out[measure] = {
            "user_item": [
                [int(u), int(i), float(x)]
                for u, i, x in per_item[["UserId", "ItemId", "user_item_serendipity"]].itertuples(
                    index=False
                )
            ],
            "user": [[int(u), float(x)] for u, x in per_user.itertuples(index=False)],
            "mean": float(value),
        }
    return out


def _rectools_case(seed: int) -> dict[str, Any]:
    import pandas as pd
    from rectools import Columns
    from rectools.metrics.intersection import Intersection
    from rectools.metrics.serendipity import Serendipity

    rng = np.random.default_rng(1000 + seed)
    n_users, n_items = int(rng.integers(3, 8)), int(rng.integers(5, 10))
    lists = _lists(rng, list(range(n_users)), n_items, {})
    ref_lists = _lists(rng, list(range(1, n_users + 2)), n_items, {})  # user 0 has none
    test = [
        (u, int(i))
        for u in range(n_users - 1)
        for i in rng.choice(n_items, size=int(rng.integers(1, 4)), replace=False)
    ]
    prev = [
        (int(u), int(i))
        for u, i in zip(rng.integers(0, n_users, 12), rng.integers(0, n_items - 1, 12), strict=True)
    ]
    catalog = list(range(n_items + int(rng.integers(0, 3))))

    def frame(ls: dict) -> Any:
        rows = [(u, i, r) for u, items in ls.items() for r, i in enumerate(items, start=1)]
        return pd.DataFrame(rows, columns=[Columns.User, Columns.Item, Columns.Rank])

    reco, ref = frame(lists), frame(ref_lists)
    inter = pd.DataFrame(test, columns=[Columns.User, Columns.Item])
    prev_df = pd.DataFrame(prev, columns=[Columns.User, Columns.Item])
    out: dict[str, Any] = {
        "seed": 1000 + seed,
        "lists": {str(u): v for u, v in lists.items()},
        "ref_lists": {str(u): v for u, v in ref_lists.items()},
        "test": test,
        "prev": prev,
        "catalog": len(catalog),
        "serendipity": {},
        "intersection": {},
    }
    for k in (1, 2, 3, 5):
        per_user = Serendipity(k=k).calc_per_user(reco, inter, prev_df, catalog)
        out["serendipity"][str(k)] = {
            "per_user": {str(int(u)): float(x) for u, x in per_user.items()},
            "mean": float(Serendipity(k=k).calc(reco, inter, prev_df, catalog)),
        }
    for k, ref_k in ((1, None), (2, 3), (3, None), (5, 2)):
        metric = Intersection(k=k, ref_k=ref_k)
        per_user = metric.calc_per_user(reco, ref)
        out["intersection"][f"{k},{ref_k}"] = {
            "per_user": {str(int(u)): float(x) for u, x in per_user.items()},
            "mean": float(metric.calc(reco, ref)),
        }
    return out


def main() -> None:
    import pandas as pd
    import recommenders
    import rectools

    if int(pd.__version__.split(".")[0]) >= 3:
        raise SystemExit("Recommenders 1.2.1 needs pandas 2.x; see this script's docstring.")
    data = {
        "about": (
            "Values of Microsoft Recommenders and RecTools on seeded random cases; see "
            "tests/peers/record_serendipity.py."
        ),
        "versions": {
            "recommenders": recommenders.__version__,
            "rectools": rectools.__version__,
            "pandas": pd.__version__,
            "numpy": np.__version__,
        },
        "recommenders": [_recommenders_case(seed) for seed in range(N_CASES)],
        "rectools": [_rectools_case(seed) for seed in range(N_CASES)],
    }
    OUT.write_text(json.dumps(data, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()

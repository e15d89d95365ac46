"""Record LensKit's ranking metrics on seeded random cases for receval's parity tests.

LensKit needs Python >= 3.12.5 and PyTorch, too heavy for a test dependency, so
its numbers are recorded once by this script, run by hand, and the test suite
(``tests/peers/test_lenskit_recorded.py``) only reads the recorded file
``tests/peers/data/recorded_lenskit.json``. pytest collects no test from this
file (its name is not ``test_*.py``); ``--doctest-modules`` imports it, which
needs only the standard library: LensKit, numpy and pandas are imported when the
script runs. It does not import receval.

Regenerate (from the repository root; only PyPI is needed, PyTorch pulls its CUDA
wheels, a few GB; the CPU is used)::

    python3.13 -m venv /tmp/lk-venv
    /tmp/lk-venv/bin/pip install lenskit==2026.4.0
    /tmp/lk-venv/bin/python tests/peers/record_lenskit.py

The versions used are written into the file (``versions``). The cases come from
fixed seeds, so the same versions give the same file.

What is recorded
----------------
Each case is a test set (user -> items with an integer ``rating`` from 1 to 5:
every test item is relevant, as in LensKit, where an item's presence in the test
list makes it relevant) and ordered recommendation lists (user -> items, best
first, with ``scores``: multiples of 1/4, so tied scores are frequent; the list's
own order, not the scores, is what LensKit measures). Lists are short (1 to 9
items: shorter than most cut-offs) or long (10 to 30); some test users have no
list (LensKit measures the lists only, so they are not measured); every user with
a list has test items (a list without test data is measured by LensKit's
Precision as 0 and by its other metrics as nan; receval reports such users as
run-only users and leaves them out: not recorded).

For each metric class and cut-off ``n`` in (None, 1, 3, 5, 10, 20), the metric is
added to a ``MeasurementCollector``, which measures every list of the case
(``add_collection_measurements``); ``mean`` is its summary (nan values of users
without test items are left out, as ``ValueStatAccumulator`` does) and
``per_user`` the per-list values (``list_metrics()``; null for nan). Metrics:
``NDCG`` (0/1 gains, the default), ``NDCG(gain="rating")`` (graded),
``DCG``, ``Precision``, ``Recall``, ``Hit``, ``RecipRank``, ``AveragePrecision``.

``examples`` holds single lists written by hand that show each convention,
measured by calling the metric's ``measure_list`` directly.
"""

from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path

OUT = Path(__file__).parent / "data" / "recorded_lenskit.json"
SEEDS = (1, 2, 3, 4, 5, 6)
CUT_OFFS = (None, 1, 3, 5, 10, 20)
N_ITEMS = 80
# LensKit class name, keyword arguments -> label prefix in the file
METRICS = (
    ("NDCG", {}, "NDCG"),
    ("NDCG", {"gain": "rating"}, "NDCG_rating"),
    ("DCG", {}, "DCG"),
    ("Precision", {}, "Precision"),
    ("Recall", {}, "Recall"),
    ("Hit", {}, "Hit"),
    ("RecipRank", {}, "RecipRank"),
    ("AveragePrecision", {}, "AveragePrecision"),
)
# (name, ranked items, test items {item: rating}): each measured by every metric at n
EXAMPLES = (
    # one relevant item at rank 2 of 20: LensKit's discount log2(max(rank, 2)) is 1 there
    ("rank_2_of_20", list(range(1, 21)), {2: 1}, (None, 20)),
    # a list of 3 items, 2 relevant, 4 relevant items in all: Precision@10 is 2/3
    ("short_list", [1, 2, 3], {1: 1, 3: 1, 7: 1, 8: 1}, (None, 10)),
    # 12 relevant items, 5 of them in the top 5: Recall@5 is 5 / min(12, 5) = 1
    ("many_relevant", list(range(1, 11)), {i: 1 for i in range(1, 13)}, (5, 10)),
)


def make_case(seed: int) -> dict:
    import numpy as np

    rng = np.random.default_rng(seed)
    n_users = 25
    test: dict[str, dict[int, int]] = {}
    recs: dict[str, list[tuple[int, float]]] = {}
    for u in range(n_users):
        user = f"u{u}"
        n_test = int(rng.integers(1, 15))
        items = rng.choice(N_ITEMS, size=n_test, replace=False) + 1
        test[user] = {int(i): int(rng.integers(1, 6)) for i in items}
        if rng.random() < 0.12:
            continue  # a test user without a list: not measured
        length = int(rng.integers(1, 10)) if rng.random() < 0.35 else int(rng.integers(10, 31))
        # about a third of the list drawn from the test items, the rest from the catalogue
        pool = list(items) if rng.random() < 0.8 else []
        chosen: list[int] = []
        for _ in range(length):
            if pool and rng.random() < 0.35:
                item = int(pool.pop(int(rng.integers(len(pool)))))
            else:
                item = int(rng.integers(1, N_ITEMS + 1))
            if item not in chosen:
                chosen.append(item)
        scores = np.sort(rng.integers(0, 12, size=len(chosen)))[::-1] / 4.0
        recs[user] = [(i, float(s)) for i, s in zip(chosen, scores, strict=True)]
    return {"id": f"seed_{seed}", "seed": seed, "test": test, "recs": recs}


def _metric(name: str, kwargs: dict, n: int | None):
    from lenskit.metrics import ranking

    return getattr(ranking, name)(n, **kwargs)


def _label(prefix: str, n: int | None) -> str:
    return prefix if n is None else f"{prefix}@{n}"


def _value(x) -> float | None:
    x = float(x)
    return None if math.isnan(x) else x


def record_case(case: dict) -> dict:
    import numpy as np
    from lenskit.data import ItemList, ItemListCollection
    from lenskit.metrics import MeasurementCollector

    test = ItemListCollection.from_dict(
        {
            u: ItemList(
                item_ids=np.array(list(t), dtype=np.int64),
                rating=np.array(list(t.values()), dtype=np.float64),
            )
            for u, t in case["test"].items()
        },
        key="user_id",
    )
    outputs = ItemListCollection.from_dict(
        {
            u: ItemList(
                item_ids=np.array([i for i, _ in r], dtype=np.int64),
                scores=np.array([s for _, s in r], dtype=np.float64),
                ordered=True,
            )
            for u, r in case["recs"].items()
        },
        key="user_id",
    )
    collector = MeasurementCollector()
    for name, kwargs, prefix in METRICS:
        for n in CUT_OFFS:
            collector.add_metric(_metric(name, kwargs, n), _label(prefix, n))
    collector.add_collection_measurements(outputs, test)
    summary = collector.summary_metrics()
    per_list = collector.list_metrics()
    values = {}
    for _, _, prefix in METRICS:
        for n in CUT_OFFS:
            label = _label(prefix, n)
            column = per_list[label]
            values[label] = {
                "mean": _value(summary[f"{label}.mean"]),
                "n": int(summary[f"{label}.n"]),
                "per_user": {str(u): _value(v) for u, v in column.items()},
            }
    return {**case, "recs": {u: r for u, r in case["recs"].items()}, "values": values}


def record_examples() -> list[dict]:
    import numpy as np
    from lenskit.data import ItemList

    out = []
    for name, ranked, truth, cut_offs in EXAMPLES:
        recs = ItemList(item_ids=np.array(ranked, dtype=np.int64), ordered=True)
        test = ItemList(
            item_ids=np.array(list(truth), dtype=np.int64),
            rating=np.array(list(truth.values()), dtype=np.float64),
        )
        values = {}
        for metric, kwargs, prefix in METRICS:
            for n in cut_offs:
                m = _metric(metric, kwargs, n)
                values[_label(prefix, n)] = _value(m.measure_list(recs, test))
        out.append(
            {
                "id": name,
                "recs": ranked,
                "test": {str(i): g for i, g in truth.items()},
                **{"values": values},
            }
        )
    return out


def _dump(data) -> str:
    text = json.dumps(data, indent=1)
    # lists of numbers and strings on one line
    return re.sub(
        r"\[\s*([^\[\]{}]*?)\s*\]",
        lambda m: "[" + re.sub(r"\s*\n\s*", " ", m.group(1)) + "]",
        text,
    )


def main() -> None:
    import platform

    import lenskit
    import numpy as np
    import pandas as pd

    data = {
        "about": (
            "LensKit's ranking metrics, recorded from the real library by "
            "tests/peers/record_lenskit.py (see its docstring for how to regenerate and what "
            "every field means); read by tests/peers/test_lenskit_recorded.py."
        ),
        "source": {
            "repo": "lenskit/lkpy",
            "version": lenskit.__version__,
            "path": "src/lenskit/metrics/ranking/ (_dcg.py, _pr.py, _hit.py, _recip.py, "
            "_map.py, _weighting.py), src/lenskit/metrics/_collect.py",
        },
        "versions": {
            "python": sys.version.split()[0],
            "lenskit": lenskit.__version__,
            "numpy": np.__version__,
            "pandas": pd.__version__,
            "platform": platform.platform(),
        },
        "cut_offs": list(CUT_OFFS),
        "metrics": [prefix for _, _, prefix in METRICS],
        "cases": [record_case(make_case(seed)) for seed in SEEDS],
        "examples": record_examples(),
    }
    OUT.write_text(_dump(data) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()

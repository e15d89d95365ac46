"""Record Elliot's popularity-bias metrics (ARP, APLT, ACLT, PopREO, PopRSP) on seeded cases.

Elliot is not installable here (no release on the package index this project
uses, and its package imports TensorFlow), so this script runs Elliot's own
metric classes from a source checkout: it copies ``base_metric.py``, the
``bias`` metrics and ``popularity_utils`` into a temporary package whose other
``__init__`` files are empty, builds the objects Elliot's evaluator hands them
(a dataset with ``sp_i_train``, ``private_items``, ``transactions`` and
``train_dict``; ``Popularity(data, pop_ratio)``; a binary relevance), and
writes ``data/recorded_elliot.json``, read by ``test_elliot_recorded.py``.
pytest does not collect it (its name is not ``test_*.py``).

How to regenerate::

    git clone https://github.com/sisinflab/elliot /tmp/elliot
    git -C /tmp/elliot checkout fc27efedaddf4a57294db14b4bcaa5553a0015d2
    python tests/peers/record_elliot.py /tmp/elliot

A tree without git (``git archive`` of that commit) takes the commit as a second
argument: ``python tests/peers/record_elliot.py /tmp/elliot-tree <commit>``.

What is recorded
----------------
Seeded training logs (users x items with a skewed popularity, every item used
at least once: Elliot's items are its training items), test interactions
(relevant items, some of them training items too) and top-10 lists of items
the user did not train on (as Elliot's evaluator recommends), with cut-offs
1, 5, 10 and Elliot's ``pop_ratio`` 0.8 (its default) and 0.5. Elliot numbers
its items in the order of a Python set (``DataSet.items``), which decides the
order of tied popularity in its head/tail split; here ``private_items`` follows
the order of first appearance in the log, receval's documented rule.
"""

from __future__ import annotations

import importlib
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace

import numpy as np

OUT = Path(__file__).parent / "data" / "recorded_elliot.json"
FILES = [
    "elliot/evaluation/metrics/base_metric.py",
    "elliot/evaluation/metrics/bias",
    "elliot/evaluation/popularity_utils",
]
PACKAGES = ["elliot", "elliot/evaluation", "elliot/evaluation/metrics"]
CUTOFFS = [1, 5, 10]
RATIOS = [0.8, 0.5]


def load_elliot(checkout: Path, into: Path) -> SimpleNamespace:
    """Elliot's bias metrics and Popularity class, imported from a copy of their files."""
    for package in PACKAGES:
        (into / package).mkdir(parents=True, exist_ok=True)
        (into / package / "__init__.py").write_text("")
    for name in FILES:
        src = checkout / name
        if src.is_dir():
            shutil.copytree(src, into / name)
        else:
            shutil.copy(src, into / name)
    sys.path.insert(0, str(into))
    bias = importlib.import_module("elliot.evaluation.metrics.bias")
    pop = importlib.import_module("elliot.evaluation.popularity_utils")
    return SimpleNamespace(bias=bias, Popularity=pop.Popularity)


def make_case(seed: int) -> dict:
    """A training log, test relevance and top-10 lists (ids as strings)."""
    rng = np.random.default_rng(seed)
    n_users, n_items = int(rng.integers(8, 20)), int(rng.integers(15, 40))
    weights = 1.0 / np.arange(1, n_items + 1) ** rng.uniform(0.5, 1.5)
    weights /= weights.sum()
    train: dict[str, list[str]] = {}
    for u in range(n_users):
        size = int(rng.integers(1, max(2, n_items // 3)))
        chosen = rng.choice(n_items, size=size, replace=False, p=weights)
        train[f"u{u}"] = [f"i{j}" for j in chosen]
    used = {i for items in train.values() for i in items}
    for j in range(n_items):  # every item is a training item
        if f"i{j}" not in used:
            train[f"u{int(rng.integers(n_users))}"].append(f"i{j}")
    test: dict[str, list[str]] = {}
    recs: dict[str, list[list]] = {}
    for u, seen in train.items():
        unseen = [f"i{j}" for j in range(n_items) if f"i{j}" not in seen]
        if rng.random() < 0.85 and unseen:
            size = int(rng.integers(1, min(6, len(unseen)) + 1))
            rel = list(rng.choice(unseen, size=size, replace=False))
            if rng.random() < 0.3:  # a relevant item the user also trained on
                rel.append(seen[0])
            test[u] = rel
        length = int(rng.integers(3, 11)) if rng.random() < 0.3 else 10
        order = rng.permutation(len(unseen))[:length]
        recs[u] = [[unseen[j], float(len(order) - r)] for r, j in enumerate(order)]
    return {"seed": seed, "train": train, "test": test, "recommendations": recs}


def run_elliot(elliot: SimpleNamespace, case: dict, cutoff: int, ratio: float) -> dict:
    from scipy import sparse

    train = case["train"]
    items: list[str] = []
    for seen in train.values():
        items += [i for i in seen if i not in items]
    col = {i: j for j, i in enumerate(items)}
    users = list(train)
    rows = [r for r, u in enumerate(users) for _ in train[u]]
    cols = [col[i] for u in users for i in train[u]]
    matrix = sparse.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(users), len(items)))
    data = SimpleNamespace(
        sp_i_train=matrix,
        private_items=dict(enumerate(items)),
        transactions=len(rows),
        train_dict={u: {i: 1.0 for i in seen} for u, seen in train.items()},
    )
    test = case["test"]
    relevance = SimpleNamespace(get_user_rel=lambda u: set(test.get(u, [])))
    objects = SimpleNamespace(
        cutoff=cutoff,
        pop=elliot.Popularity(data, pop_ratio=ratio),
        relevance=SimpleNamespace(binary_relevance=relevance),
        data=data,
    )
    recs = {u: [(i, s) for i, s in lists] for u, lists in case["recommendations"].items()}
    out: dict = {}
    for name in ("ARP", "APLT", "ACLT"):
        metric = getattr(elliot.bias, name)(recs, None, None, objects)
        per_user = metric.eval_user_metric()
        out[name] = {"per_user": per_user, "mean": float(metric.eval())}
    for name in ("PopREO", "PopRSP"):
        metric = getattr(elliot.bias, name)(recs, None, None, objects)
        out[name] = float(metric.eval())
    out["short_head"] = list(objects.pop.get_short_head())
    return out


def main(checkout: str, commit: str | None = None) -> None:
    path = Path(checkout)
    if commit is None:  # a git checkout names its commit; an exported tree is given one
        commit = subprocess.run(
            ["git", "-C", str(path), "rev-parse", "HEAD"], capture_output=True, text=True
        ).stdout.strip()
    with tempfile.TemporaryDirectory() as tmp:
        elliot = load_elliot(path, Path(tmp))
        cases = []
        for seed in range(12):
            case = make_case(seed)
            case["values"] = {
                f"{ratio}@{cutoff}": run_elliot(elliot, case, cutoff, ratio)
                for ratio in RATIOS
                for cutoff in CUTOFFS
            }
            cases.append(case)
    import scipy

    record = {
        "about": "Elliot's own ARP, APLT, ACLT, PopREO and PopRSP classes run on seeded cases "
        "by tests/peers/record_elliot.py (see its docstring); keys of 'values' are "
        "'<pop_ratio>@<cutoff>'.",
        "source": {"repo": "sisinflab/elliot", "commit": commit, "paths": FILES},
        "versions": {
            "python": sys.version.split()[0],
            "numpy": np.__version__,
            "scipy": scipy.__version__,
        },
        "cases": cases,
    }
    OUT.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {OUT} ({len(cases)} cases)")


if __name__ == "__main__":
    main(*sys.argv[1:3])

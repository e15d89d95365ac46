"""Record RecBole 1.2.1 and Microsoft Recommenders 1.2.1 on seeded random cases.

Neither library is a test dependency (RecBole needs PyTorch; Recommenders pulls
many packages), so this script is run by hand and the test suite only reads what
it writes: ``data/recorded_recbole.json`` and ``data/recorded_recommenders.json``
next to it, read by ``test_recbole_recommenders_recorded.py``. pytest does not
collect it (its name is not ``test_*.py``), and it imports the peers only inside
functions, so importing it (``--doctest-modules``) needs neither.

How to regenerate (the environment the committed files were recorded in; RecBole
1.2.1 still uses ``np.float`` and ``np.bool``, so numpy must be < 1.24)::

    python3 -m venv /tmp/rr-venv
    /tmp/rr-venv/bin/pip install "numpy==1.23.5" "pandas==2.2.3" "scikit-learn==1.5.2" \
        "scipy==1.13.1" "torch==2.6.0" tensorboard texttable "colorlog==4.7.2" \
        "colorama==0.4.4" pyyaml tqdm
    /tmp/rr-venv/bin/pip install --no-deps "recbole==1.2.1" "recommenders==1.2.1"
    cd <repository root>
    /tmp/rr-venv/bin/python tests/peers/record_recbole_recommenders.py

``--no-deps`` keeps out what neither ``recbole.evaluator`` nor
``recommenders.evaluation.python_evaluation`` imports (ray, cornac, ...). The
output is deterministic for a given environment; the versions are written into
each file. The script checks that the installed sources are the releases.

What is recorded
----------------
Top-k cases (``ranking``): seeded qrels (user, item, grade) with grades 0-3
("graded") or 0-1 ("binary"; grade 0 = judged non-relevant) and a run (user,
item, score) whose scores are multiples of 1/8 (many ties, exact in float32),
with users only in the run, users whose judged items are all grade 0, short
lists (3-9 items) and long ones (10-40), and, for Recommenders, qrels users
absent from the run.

* RecBole: the run becomes the score matrix RecBole's trainer builds
  (``scores[:, 0] = -inf`` for the padding item 0, ``-inf`` for items not
  scored, as in its negative-sampling evaluation); positives = grade >= 1.
  Only users with a positive are evaluated (RecBole's FullSortEvalDataLoader
  only holds users with test interactions). RecBole scores every evaluated
  user, so its cases have no qrels user absent from the run, and a short list
  (< 10 items) holds all the user's positives (else a positive scored ``-inf``
  could enter ``torch.topk``'s top 10, which cannot happen in RecBole).
  ``Collector.eval_batch_collect`` builds ``rec.topk`` / ``rec.items`` with
  ``torch.topk`` as in training; each metric's ``metric_info(*used_info(ds))``
  gives the per-user matrix (full precision) and its column mean is the value
  ``topk_result`` rounds. ``torch.topk`` does not order tied scores by any
  rule, so for every user and k we record whether a block of tied scores mixing
  positives and non-positives meets the top k (``ties_order``: the order in the
  top k is arbitrary; NDCG, MRR, MAP may change) or straddles position k
  (``ties_set``: which items are in the top k is arbitrary; every metric may
  change). ``topk_items`` is the order torch returned.
* Recommenders: ``rating_true`` = the qrels rows with grade >= 1 (Recommenders
  counts every row of ``rating_true`` as relevant; ``rating`` = grade),
  ``rating_pred`` = the run rows in their order. precision_at_k, recall_at_k,
  map_at_k, map, r_precision_at_k, ndcg_at_k (score_type binary (default), raw,
  exp) for k in (1, 5, 10); ``map`` also with k = 10**9 (the whole list).
  ``stable_ties`` says whether ``get_top_k_items`` ordered tied scores in row
  order (a stable sort) for the whole run.

Pointwise cases (``pointwise``): labels, grouped rows with tied float32 scores
and probabilities in [0, 1] including 0, 1 and values within 1e-15 of them.
RecBole: GAUC through ``Collector`` (``rec.meanrank``) and
``GAUC.metric_info`` (float32), ``AUC``, ``LogLoss``, ``RMSE``, ``MAE``
``metric_info(preds, trues)``. Recommenders: auc, logloss, rmse, mae of a
``rating_true`` / ``rating_pred`` pair with rows on one side only, and the
arrays ``merge_rating_true_pred`` joined.

Beyond-accuracy cases: RecBole ``itemcoverage`` / ``giniindex`` of each ranking
case's ``topk_items`` (``num_items`` counts the padding item 0, as RecBole's
dataset does); Recommenders ``beyond``: a train log and recommendations (never a
train pair; with ``unseen_items``, also items never trained on) with
catalog_coverage, diversity and user_diversity for both item similarity measures
(co-occurrence; random 0/1 feature vectors).

torch.topk on CPU returned the same order with 1 and 2 threads and row by row,
but a different order for most rows when the matrix had more (-inf) columns: the
order of tied scores depends on the catalogue size, not on a rule a run can carry.
"""

from __future__ import annotations

import hashlib
import json
import math
import platform
import sys
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parent / "data"
KS = (1, 5, 10)
N_USERS = 30
N_ITEMS = 40  # item ids 1..40; RecBole's padding item is 0
GRID = np.arange(1, 9) / 8.0  # scores: exact in float32, many ties

RECBOLE = {
    "repo": "RUCAIBox/RecBole",
    "tag": "v1.2.1",
    "commit": "9a6f63d8d4a5b989fe27955a833f813a6d86041e",
    "path": "recbole/evaluator/metrics.py, recbole/evaluator/collector.py",
    "test": "recorded by tests/peers/record_recbole_recommenders.py",
}
RECOMMENDERS = {
    "repo": "recommenders-team/recommenders",
    "tag": "1.2.1",
    "commit": "5c862afa751f53559b5ad98b92e098760f530ad8",
    "path": "recommenders/evaluation/python_evaluation.py",
    "test": "recorded by tests/peers/record_recbole_recommenders.py",
}
# sha256 of the files at the tags above; the installed sources must be the same
SOURCES = {
    "recbole/evaluator/metrics.py": (
        "22b17aa31975de0f0b6900668164a63aa703317422adcf67e2e6f02186b8a7e5"
    ),
    "recbole/evaluator/collector.py": (
        "bb35bca5562a9bf0aff16e8d26ba374bec00840e822b92f7176a2dfd171577b3"
    ),
    "recbole/evaluator/base_metric.py": (
        "707340a227cb64cc08a8ebfb9ee1ec94c7973c9189cc996d8ed632137067b4fa"
    ),
    "recommenders/evaluation/python_evaluation.py": (
        "6b13fdbd86db06fa46f93f817867b265b32c5d1f0251edd228ce4d663a7eab3d"
    ),
}


# ------------------------------------------------------------------ generation


def make_ranking_case(seed: int, *, graded: bool, missing: bool, recbole: bool) -> dict:
    """Qrels rows [user, item, grade] and run rows [user, item, score] (run order)."""
    rng = np.random.default_rng(seed)
    items = np.arange(1, N_ITEMS + 1)
    kinds = ["both"] * 5 + ["empty", "run_only"] + (["missing"] * 2 if missing else [])
    qrels: list[list] = []
    run: list[list] = []
    for user in range(N_USERS):
        kind = str(rng.choice(kinds))
        relevant: list[int] = []
        if kind != "run_only":
            judged = rng.choice(items, int(rng.integers(1, 13)), replace=False)
            grades = rng.choice([0, 1, 1, 2, 3] if graded else [0, 1, 1], len(judged))
            if kind == "empty":
                grades[:] = 0
            elif not (grades > 0).any():
                grades[0] = int(rng.integers(1, 4)) if graded else 1
            qrels += [[user, int(i), int(g)] for i, g in zip(judged, grades, strict=True)]
            relevant = [int(i) for i, g in zip(judged, grades, strict=True) if g > 0]
        if kind == "missing":
            continue
        short = rng.random() < 0.3
        length = int(rng.integers(3, 10)) if short else int(rng.integers(10, N_ITEMS + 1))
        if short and recbole:  # every positive is scored (see the module docstring)
            others = rng.permutation([i for i in items if i not in relevant])
            cand = np.asarray(relevant + list(others[: max(0, length - len(relevant))]))
            cand = rng.permutation(cand)
        else:
            cand = rng.choice(items, length, replace=False)
        if rng.random() < 0.75:  # tied scores
            scores = rng.choice(GRID, len(cand))
        else:  # distinct scores
            scores = (rng.permutation(len(cand)) + 1) / 64.0
        run += [[user, int(i), float(s)] for i, s in zip(cand, scores, strict=True)]
    return {"qrels": qrels, "run": run}


def make_pointwise_case(seed: int) -> dict:
    rng = np.random.default_rng(1000 + seed)
    groups, labels, scores, probs = [], [], [], []
    grid_p = np.arange(17) / 16.0
    extremes = [0.0, 1.0, 1e-16, 5e-16, 1e-15, 2e-15, 1 - 1e-16, 1 - 1e-15, 1 - 3e-15]
    for g in range(25):
        n = int(rng.integers(1, 13))
        kind = rng.random()
        if kind < 0.1:
            y = np.zeros(n, dtype=int)
        elif kind < 0.2:
            y = np.ones(n, dtype=int)
        else:
            y = (rng.random(n) < 0.35).astype(int)
        groups += [g] * n
        labels += y.tolist()
        scores += rng.choice(GRID, n).tolist()
        p = rng.choice(grid_p, n)
        for j in range(n):
            if rng.random() < 0.15:
                p[j] = extremes[int(rng.integers(len(extremes)))]
        probs += p.tolist()
    return {"groups": groups, "labels": labels, "scores": scores, "probs": probs}


def make_beyond_case(seed: int, *, unseen: bool) -> dict:
    """Train interactions and recommendations (never a train pair) of items of the train
    log; with ``unseen``, also of items 31-33, never in the train log."""
    rng = np.random.default_rng(2000 + seed)
    n_users, n_items = 12, 30
    seen = {
        user: rng.choice(np.arange(1, n_items + 1), int(rng.integers(1, 7)), replace=False)
        for user in range(n_users)
    }
    train = [[user, int(i)] for user in seen for i in seen[user]]
    catalog = sorted({i for _, i in train}) + ([31, 32, 33] if unseen else [])
    reco = []
    for user in range(n_users):
        rest = [i for i in catalog if i not in seen[user]]
        reco += [[user, int(i)] for i in rng.choice(rest, int(rng.integers(1, 5)), replace=False)]
    items = sorted({i for _, i in train} | {i for _, i in reco})
    features = {int(i): rng.integers(0, 2, 6).astype(float).tolist() for i in items}
    for i in items:  # no zero vector: Recommenders' cosine would divide by zero
        if not any(features[i]):
            features[i][int(rng.integers(6))] = 1.0
    return {"train": train, "reco": reco, "features": features}


# ------------------------------------------------------------------ RecBole


def recbole_config(metrics: list[str]) -> dict:
    import torch

    return {
        "metrics": metrics,
        "topk": list(KS),
        "metric_decimal_place": 15,
        "eval_args": {"mode": "full"},
        "device": torch.device("cpu"),
    }


def tie_flags(row: np.ndarray, positive: np.ndarray) -> tuple[dict, dict]:
    """Per k: does a block of tied scores mixing positives and others meet the top k
    (order arbitrary) or straddle position k (membership arbitrary)?"""
    order = {k: False for k in KS}
    member = {k: False for k in KS}
    for value in np.unique(row):
        block = row == value
        if not (positive[block].any() and (~positive[block]).any()):
            continue
        start = int((row > value).sum())
        stop = start + int(block.sum())
        for k in KS:
            order[k] |= start < k
            member[k] |= start < k < stop
    return order, member


def record_recbole_ranking(case: dict) -> dict:
    import torch
    from recbole.evaluator import Collector
    from recbole.evaluator.register import metrics_dict

    positives: dict[int, set[int]] = {}
    for user, item, grade in case["qrels"]:
        if grade >= 1:
            positives.setdefault(user, set()).add(item)
    scored: dict[int, list] = {}
    for user, item, score in case["run"]:
        scored.setdefault(user, []).append((item, score))
    users = [u for u in sorted(positives) if u in scored]
    assert all(u in scored for u in positives), "RecBole cases have no missing users"
    n_cols = N_ITEMS + 1
    scores = torch.full((len(users), n_cols), -math.inf, dtype=torch.float32)
    pos_u, pos_i = [], []
    for row, user in enumerate(users):
        for item, score in scored[user]:
            scores[row, item] = score
        for item in sorted(positives[user]):
            pos_u.append(row)
            pos_i.append(item)
    names = ["hit", "mrr", "map", "recall", "ndcg", "precision"]
    config = recbole_config([*names, "itemcoverage", "giniindex"])
    collector = Collector(config)
    collector.eval_batch_collect(scores, None, torch.tensor(pos_u), torch.tensor(pos_i))
    ds = collector.get_data_struct()
    ds.set("data.num_items", n_cols)

    per_user, mean, reported = {}, {}, {}
    for name in names:
        metric = metrics_dict[name](config)
        pos_index, pos_len = metric.used_info(ds)
        if name in ("hit", "mrr", "precision"):
            value = metric.metric_info(pos_index)
        else:
            value = metric.metric_info(pos_index, pos_len)
        value = np.asarray(value, dtype=np.float64)
        avg = value.mean(axis=0)  # what TopkMetric.topk_result rounds
        per_user[name] = {str(k): value[:, k - 1].tolist() for k in KS}
        mean[name] = {str(k): float(avg[k - 1]) for k in KS}
        out = metric.calculate_metric(ds)
        reported[name] = {str(k): float(out[f"{name}@{k}"]) for k in KS}
        for k in KS:
            assert abs(reported[name][str(k)] - mean[name][str(k)]) < 1e-14

    topk_items = ds.get("rec.items").numpy()
    coverage, gini = {}, {}
    for k in KS:
        coverage[str(k)] = float(
            metrics_dict["itemcoverage"](config).get_coverage(topk_items[:, :k], n_cols)
        )
        gini[str(k)] = float(metrics_dict["giniindex"](config).get_gini(topk_items[:, :k], n_cols))

    ties_order = {str(k): [] for k in KS}
    ties_set = {str(k): [] for k in KS}
    stable = 0
    for row, user in enumerate(users):
        values = scores[row].numpy()
        positive = np.zeros(n_cols, dtype=bool)
        positive[list(positives[user])] = True
        order, member = tie_flags(values, positive)
        for k in KS:
            ties_order[str(k)].append(order[k])
            ties_set[str(k)].append(member[k])
        first = np.lexsort((np.arange(n_cols), -values.astype(np.float64)))[: max(KS)]
        stable += int((first == topk_items[row]).all())
    return {
        "users": users,
        "num_items": n_cols,
        "topk_items": topk_items.tolist(),
        "per_user": per_user,
        "mean": mean,
        "ties_order": ties_order,
        "ties_set": ties_set,
        "n_users_topk_in_index_order": stable,
        "itemcoverage": coverage,
        "giniindex": gini,
    }


def record_recbole_pointwise(case: dict) -> dict:
    import torch
    from recbole.evaluator import Collector
    from recbole.evaluator.register import metrics_dict

    groups = np.asarray(case["groups"])
    labels = np.asarray(case["labels"])
    scores = np.asarray(case["scores"], dtype=np.float32)
    probs = np.asarray(case["probs"], dtype=np.float64)
    ids = np.unique(groups)
    width = int(np.bincount(groups).max()) + 1
    matrix = torch.full((len(ids), width), -math.inf, dtype=torch.float32)
    pos_u, pos_i = [], []
    for row, g in enumerate(ids):
        idx = np.flatnonzero(groups == g)
        for col, j in enumerate(idx, start=1):  # column 0: the padding item, -inf
            matrix[row, col] = float(scores[j])
            if labels[j] == 1:
                pos_u.append(row)
                pos_i.append(col)
    config = recbole_config(["gauc"])
    collector = Collector(config)
    collector.eval_batch_collect(matrix, None, torch.tensor(pos_u), torch.tensor(pos_i))
    ds = collector.get_data_struct()
    mean_rank = ds.get("rec.meanrank").numpy()
    pos_rank_sum, user_len, pos_len = np.split(mean_rank, 3, axis=1)
    gauc = metrics_dict["gauc"](config).metric_info(
        pos_rank_sum, user_len.squeeze(-1), pos_len.squeeze(-1)
    )
    out = {"gauc": float(gauc), "gauc_dtype": str(np.asarray(gauc).dtype)}
    # LossMetric.used_info gives rec.score as float32 (model output) and labels
    out["auc"] = float(metrics_dict["auc"](config).metric_info(scores, labels))
    for name in ("logloss", "rmse", "mae"):
        out[name] = float(metrics_dict[name](config).metric_info(probs, labels))
    return out


# ------------------------------------------------------------------ Recommenders


def record_recommenders_ranking(case: dict) -> dict:
    import pandas as pd
    from recommenders.evaluation import python_evaluation as pe

    true = pd.DataFrame(
        [r for r in case["qrels"] if r[2] >= 1], columns=["userID", "itemID", "rating"]
    )
    pred = pd.DataFrame(case["run"], columns=["userID", "itemID", "prediction"])
    values: dict[str, dict] = {}
    funcs = {
        "precision_at_k": pe.precision_at_k,
        "recall_at_k": pe.recall_at_k,
        "map_at_k": pe.map_at_k,
        "map": pe.map,
        "r_precision_at_k": pe.r_precision_at_k,
    }
    for name, func in funcs.items():
        values[name] = {str(k): float(func(true, pred, k=k)) for k in KS}
    values["map"]["all"] = float(pe.map(true, pred, k=10**9))
    for score_type in ("binary", "raw", "exp"):
        values[f"ndcg_at_k_{score_type}"] = {
            str(k): float(pe.ndcg_at_k(true, pred, k=k, score_type=score_type)) for k in KS
        }
    top = pe.get_top_k_items(pred.copy(), "userID", "prediction", k=10**9)
    stable = pred.assign(_row=np.arange(len(pred))).sort_values(
        ["userID", "prediction", "_row"], ascending=[True, False, True], kind="stable"
    )
    common = set(true["userID"]) & set(pred["userID"])
    return {
        "values": values,
        "stable_ties": bool((top["itemID"].to_numpy() == stable["itemID"].to_numpy()).all()),
        "n_users_true": int(true["userID"].nunique()),
        "n_users_common": len(common),
        "n_users_missing": len(set(true["userID"]) - set(pred["userID"])),
    }


def record_recommenders_pointwise(case: dict) -> dict:
    import pandas as pd
    from recommenders.evaluation import python_evaluation as pe

    rng = np.random.default_rng(3000 + case["seed"])
    n = len(case["labels"])
    rows = np.arange(n)
    true = pd.DataFrame(
        {"userID": case["groups"], "itemID": rows, "rating": case["labels"]}
    ).astype({"rating": float})
    pred = pd.DataFrame({"userID": case["groups"], "itemID": rows, "prediction": case["probs"]})
    # rows on one side only, and the prediction rows in another order
    true = true.drop(index=rng.choice(n, 5, replace=False))
    pred = pred.drop(index=rng.choice(n, 5, replace=False))
    pred = pred.iloc[rng.permutation(len(pred))]
    y_true, y_pred = pe.merge_rating_true_pred(true, pred)
    return {
        "rating_true": true.to_numpy().tolist(),
        "rating_pred": pred.to_numpy().tolist(),
        "y_true": [float(v) for v in y_true],
        "y_pred": [float(v) for v in y_pred],
        "auc": float(pe.auc(true, pred)),
        "logloss": float(pe.logloss(true, pred)),
        "rmse": float(pe.rmse(true, pred)),
        "mae": float(pe.mae(true, pred)),
    }


def record_recommenders_beyond(case: dict) -> dict:
    import pandas as pd
    from recommenders.evaluation import python_evaluation as pe

    train = pd.DataFrame(case["train"], columns=["userID", "itemID"])
    reco = pd.DataFrame(case["reco"], columns=["userID", "itemID"])
    feats = pd.DataFrame(
        {
            "itemID": list(case["features"]),
            "features": [np.asarray(v) for v in case["features"].values()],
        }
    )
    out = {"catalog_coverage": float(pe.catalog_coverage(train, reco))}
    for measure, extra in (
        ("item_cooccurrence_count", {}),
        ("item_feature_vector", {"item_feature_df": feats}),
    ):
        per_user = pe.user_diversity(train, reco, item_sim_measure=measure, **extra)
        out[f"diversity_{measure}"] = float(
            pe.diversity(train, reco, item_sim_measure=measure, **extra)
        )
        out[f"user_diversity_{measure}"] = {
            str(int(u)): float(d)
            for u, d in zip(per_user["userID"], per_user["user_diversity"], strict=True)
        }
    return out


# ------------------------------------------------------------------ output


def versions() -> dict:
    import pandas
    import recbole
    import recommenders
    import scipy
    import sklearn
    import torch

    return {
        "python": platform.python_version(),
        "torch": torch.__version__,
        "torch_threads": torch.get_num_threads(),
        "numpy": np.__version__,
        "pandas": pandas.__version__,
        "scikit-learn": sklearn.__version__,
        "scipy": scipy.__version__,
        "recbole": recbole.__version__,
        "recommenders": recommenders.__version__,
        "platform": platform.platform(),
    }


def check_sources() -> dict:
    import recbole
    import recommenders

    roots = {
        "recbole": Path(recbole.__file__).parent.parent,
        "recommenders": Path(recommenders.__file__).parent.parent,
    }
    out = {}
    for path in SOURCES:
        text = (roots[path.split("/")[0]] / path).read_bytes()
        out[path] = hashlib.sha256(text).hexdigest()
        if out[path] != SOURCES[path]:
            raise SystemExit(f"{path} is not the file of the release recorded here")
    return out


def dump(obj, indent: int = 0) -> str:
    """JSON with dicts indented; dicts of scalars and lists of scalars (or of such lists)
    on one line."""
    pad = " " * indent
    if isinstance(obj, dict):
        if not obj:
            return "{}"
        if all(not isinstance(v, (dict, list)) for v in obj.values()):
            return json.dumps(obj, separators=(", ", ": "), allow_nan=False)
        inner = ",\n".join(
            f"{pad} {json.dumps(str(k))}: {dump(v, indent + 1)}" for k, v in obj.items()
        )
        return "{\n" + inner + "\n" + pad + "}"
    if isinstance(obj, list) and any(isinstance(v, dict) for v in obj):
        inner = ",\n".join(pad + " " + dump(v, indent + 1) for v in obj)
        return "[\n" + inner + "\n" + pad + "]"
    return json.dumps(obj, separators=(", ", ": "), allow_nan=False)


def sourced(case: dict, base: dict, path: str, func: str) -> dict:
    """The case with its source (the peer's code that computed it) after its id."""
    source = {
        "repo": base["repo"],
        "commit": base["commit"],
        "path": path,
        "test": f"recorded by tests/peers/record_recbole_recommenders.py::{func}",
    }
    return {"id": case["id"], "source": source} | case


def main() -> None:
    import warnings

    import torch

    warnings.simplefilter("ignore")  # np.float deprecation, pandas chained assignment
    torch.set_num_threads(1)
    info = versions()
    hashes = check_sources()

    recbole_cases, recommenders_cases = [], []
    for seed in range(4):
        for graded in (True, False):
            name = f"{'graded' if graded else 'binary'}_{seed}"
            case = make_ranking_case(seed, graded=graded, missing=False, recbole=True)
            recbole_cases.append(
                {"id": name, "seed": seed, "graded": graded, **case} | record_recbole_ranking(case)
            )
    for seed in range(3):
        for graded in (True, False):
            for missing in (False, True):
                name = (
                    f"{'graded' if graded else 'binary'}_{'missing' if missing else 'all'}_{seed}"
                )
                s = 100 + seed
                case = make_ranking_case(s, graded=graded, missing=missing, recbole=False)
                recommenders_cases.append(
                    {"id": name, "seed": s, "graded": graded, "missing": missing, **case}
                    | record_recommenders_ranking(case)
                )
    recbole_pointwise, rec_pointwise, rec_beyond = [], [], []
    for seed in range(4):
        case = {"id": f"pointwise_{seed}", "seed": seed, **make_pointwise_case(seed)}
        recbole_pointwise.append(case | record_recbole_pointwise(case))
        rec_pointwise.append({"id": case["id"], "seed": seed} | record_recommenders_pointwise(case))
        unseen = seed % 2 == 1
        beyond = {"id": f"beyond_{seed}", "seed": seed, "unseen_items": unseen}
        beyond |= make_beyond_case(seed, unseen=unseen)
        rec_beyond.append(beyond | record_recommenders_beyond(beyond))

    rb_metrics = "recbole/evaluator/metrics.py, recbole/evaluator/collector.py"
    recbole_cases = [
        sourced(c, RECBOLE, rb_metrics, "record_recbole_ranking") for c in recbole_cases
    ]
    recbole_pointwise = [
        sourced(c, RECBOLE, rb_metrics, "record_recbole_pointwise") for c in recbole_pointwise
    ]
    rc_path = RECOMMENDERS["path"]
    recommenders_cases = [
        sourced(c, RECOMMENDERS, rc_path, "record_recommenders_ranking") for c in recommenders_cases
    ]
    rec_pointwise = [
        sourced(c, RECOMMENDERS, rc_path, "record_recommenders_pointwise") for c in rec_pointwise
    ]
    rec_beyond = [
        sourced(c, RECOMMENDERS, rc_path, "record_recommenders_beyond") for c in rec_beyond
    ]

    recbole_out = {
        "about": (
            "RecBole 1.2.1 top-k metrics (per user and mean, for k = 1, 5, 10), ItemCoverage, "
            "GiniIndex, GAUC, AUC, LogLoss, RMSE and MAE on seeded random cases, recorded from "
            "the real library by tests/peers/record_recbole_recommenders.py (its docstring says "
            "how to regenerate and what every field means); read by "
            "tests/peers/test_recbole_recommenders_recorded.py. Top-k metrics are float64 "
            "numpy; GAUC is computed in float32 (rec.meanrank)."
        ),
        "source": RECBOLE,
        "versions": info,
        "installed_sources_sha256": {k: v for k, v in hashes.items() if k.startswith("recbole")},
        "ks": list(KS),
        "ranking": recbole_cases,
        "pointwise": recbole_pointwise,
    }
    recommenders_out = {
        "about": (
            "Microsoft Recommenders 1.2.1 python_evaluation (precision_at_k, recall_at_k, "
            "map_at_k, map, r_precision_at_k, ndcg_at_k with score_type binary/raw/exp, auc, "
            "logloss, rmse, mae, catalog_coverage, diversity, user_diversity) on seeded random "
            "cases, recorded from the real library by "
            "tests/peers/record_recbole_recommenders.py (its docstring says how to regenerate "
            "and what every field means); read by "
            "tests/peers/test_recbole_recommenders_recorded.py."
        ),
        "source": RECOMMENDERS,
        "versions": info,
        "installed_sources_sha256": {
            k: v for k, v in hashes.items() if k.startswith("recommenders")
        },
        "ks": list(KS),
        "ranking": recommenders_cases,
        "pointwise": rec_pointwise,
        "beyond": rec_beyond,
    }
    DATA.mkdir(exist_ok=True)
    (DATA / "recorded_recbole.json").write_text(dump(recbole_out) + "\n")
    (DATA / "recorded_recommenders.json").write_text(dump(recommenders_out) + "\n")
    print("wrote", DATA / "recorded_recbole.json", DATA / "recorded_recommenders.json")


if __name__ == "__main__":
    sys.exit(main())

"""Record XGBoost's, LightGBM's and CatBoost's ranking metrics on fixed predictions.

Each library evaluates scores that this script gives it (never a model's), read
from the library's own evaluation output, and the test suite
(``tests/peers/test_gbdt_recorded.py``) checks ``profile="xgboost"``,
``"lightgbm"`` and ``"catboost"`` against the file it writes,
``tests/peers/data/recorded_gbdt.json``, with the versions used. pytest collects
no test from this file (its name is not ``test_*.py``); ``--doctest-modules``
imports it, which needs only the standard library: the libraries and NumPy are
imported when the script runs. It does not import receval.

Regenerate (from the repository root)::

    pip install xgboost==3.2.0 lightgbm==4.7.0 catboost==1.2.10 numpy
    python tests/peers/record_gbdt.py

How each library is made to evaluate the given scores
-----------------------------------------------------
- XGBoost: a ``DMatrix`` of one constant feature with the scores as ``base_margin``
  and the query groups (``set_group``), trained one round with ``eta=0`` and the
  metrics as ``eval_metric``; the values are ``evals_result``'s (printed by XGBoost
  with 17 significant digits). The margins it ranks are checked to equal the scores.
- LightGBM: a ``Dataset`` with the scores as ``init_score`` and the groups,
  trained one round (``learning_rate=1e-12``, ``min_data_in_leaf`` above the rows,
  so the tree has no split and adds 0, checked) with ``metric`` and ``eval_at``;
  the values are ``record_evaluation``'s.
- CatBoost: ``catboost.utils.eval_metric(label, approx, metric, group_id=...)``,
  CatBoost's own evaluation of given predictions.

What is recorded
----------------
Each case (a seed) holds query groups of 1 to 14 documents with grades 0 to 4
(a group of only 0s now and then: no relevant document) and scores that are
multiples of 1/8 in [0, 1] (exact in float32, which XGBoost ranks in; tied
scores in most groups). ``binary`` is the grades above 0 as 1: XGBoost's
``map`` and ``pre`` take binary labels only. ``values[library][label]`` is each
library's value of the mean over the case's groups; the label is the library's
metric name, with ``|linear`` for XGBoost's NDCG under ``ndcg_exp_gain=false``
(``|linear_quarters``: of the grades / 4, fractional labels, which it gains as they
are; its exponential gain refuses them),
``|binary`` for a metric of the binary labels and ``|label_gain`` for LightGBM's
NDCG under the case's ``label_gain``. CatBoost's PFound, ERR and AverageGain read a
target as a probability (PFound and ERR: the chance that the user stops at the
document) and take a grade above 1 as it is: they are recorded on the grades and on
the binary labels, as CatBoost computes them. CatBoost's metrics are recorded on
probability targets too, the grades / 4 (``|quarters``: 0, 0.25, 0.5, 0.75 and 1,
exact in the float32 that CatBoost reads targets in): PFound, ERR and AverageGain, NDCG
and DCG (every target a gain), and PrecisionAt, RecallAt, MAP and MRR with their
default ``border`` (0.5: a target above it is relevant, 0.5 itself is not) and with
``border=0.25`` and ``0.75``. ``grouped[library][label]`` holds the
library's metrics that are not ranking metrics of receval but grouped pointwise
ones, checked against their receval functions: CatBoost's ``QueryAUC`` (``Ranking``
on the grades; ``Classic`` on the grades / 4 as probabilities, ``|quarters``, with
``use_weights=true`` and the row weights ``grouped["weights"]``, ``|weighted``, and
on the binary labels, ``|binary``) and XGBoost's ``auc`` of the query groups
(``rank:pairwise``, the grades as labels), and XGBoost's ``aucpr``
of the binary labels.
"""

from __future__ import annotations

import json
from pathlib import Path

OUT = Path(__file__).parent / "data" / "recorded_gbdt.json"
SEEDS = (1, 2, 3, 4)
CUT_OFFS = (1, 3, 5, 10)
LABEL_GAIN = [0.0, 1.0, 2.5, 6.0, 20.0]  # a custom LightGBM label_gain (grade -> gain)


def make_case(seed: int) -> dict:
    import numpy as np

    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 15, size=25).tolist()
    grades, scores = [], []
    for size in sizes:
        empty = rng.random() < 0.2
        p = [1.0, 0, 0, 0, 0] if empty else [0.45, 0.2, 0.15, 0.12, 0.08]
        grades += rng.choice(5, size=size, p=p).tolist()
        scores += (rng.integers(0, 9, size=size) / 8).tolist()
    return {"seed": seed, "groups": sizes, "grades": grades, "scores": scores}


def xgboost_values(case: dict) -> dict[str, float]:
    import numpy as np
    import xgboost as xgb

    out: dict[str, float] = {}
    grades = np.asarray(case["grades"], dtype=float)
    scores = np.asarray(case["scores"], dtype=np.float32)
    ks = CUT_OFFS
    runs = (
        ("", grades, True, [f"ndcg@{k}" for k in ks] + [f"ndcg@{k}-" for k in ks] + ["ndcg"]),
        ("|linear", grades, False, [f"ndcg@{k}" for k in ks] + ["ndcg"]),
        ("|linear_quarters", grades / 4, False, [f"ndcg@{k}" for k in ks] + ["ndcg"]),
        (
            "|binary",
            (grades > 0).astype(float),
            True,
            [f"map@{k}" for k in ks]
            + [f"map@{k}-" for k in ks]
            + [f"pre@{k}" for k in ks]
            + ["map", "map-"],
        ),
    )
    for suffix, labels, exp_gain, metrics in runs:
        data = xgb.DMatrix(np.zeros((len(labels), 1)), label=labels, base_margin=scores)
        data.set_group(case["groups"])
        params = {"objective": "rank:pairwise", "eta": 0.0, "eval_metric": metrics,
                  "ndcg_exp_gain": exp_gain}  # fmt: skip
        result: dict = {}
        booster = xgb.train(params, data, num_boost_round=1, evals=[(data, "eval")],
                            evals_result=result, verbose_eval=False)  # fmt: skip
        margin = booster.predict(data, output_margin=True)
        assert np.array_equal(margin, scores), "XGBoost ranked other scores than given"
        for name, values in result["eval"].items():
            out[name + suffix] = float(values[-1])
    return out


def xgboost_grouped_values(case: dict) -> dict[str, float]:
    """XGBoost's ``auc`` (the grades as labels) and ``aucpr`` (the binary labels: it
    refuses others) over the query groups, evaluated as ``xgboost_values`` evaluates
    the ranking metrics."""
    import numpy as np
    import xgboost as xgb

    grades = np.asarray(case["grades"], dtype=float)
    scores = np.asarray(case["scores"], dtype=np.float32)
    out: dict[str, float] = {}
    for name, labels in (("auc", grades), ("aucpr", (grades > 0).astype(float))):
        data = xgb.DMatrix(np.zeros((len(labels), 1)), label=labels, base_margin=scores)
        data.set_group(case["groups"])
        result: dict = {}
        xgb.train({"objective": "rank:pairwise", "eta": 0.0, "eval_metric": [name]}, data,
                  num_boost_round=1, evals=[(data, "eval")], evals_result=result,
                  verbose_eval=False)  # fmt: skip
        out[name] = float(result["eval"][name][-1])
    return out


def lightgbm_values(case: dict) -> dict[str, float]:
    import lightgbm as lgb
    import numpy as np

    out: dict[str, float] = {}
    grades = np.asarray(case["grades"], dtype=float)
    scores = np.asarray(case["scores"], dtype=float)
    features = np.zeros((len(grades), 1))
    for suffix, metrics, gain in (
        ("", ["ndcg", "map"], None),
        ("|label_gain", ["ndcg"], LABEL_GAIN),
    ):
        params = {"objective": "lambdarank", "metric": metrics, "eval_at": list(CUT_OFFS),
                  "learning_rate": 1e-12, "min_data_in_leaf": len(grades) + 1,
                  "verbose": -1, "num_threads": 1}  # fmt: skip
        if gain is not None:
            params["label_gain"] = gain
        train = lgb.Dataset(features, label=grades, group=case["groups"], init_score=scores)
        result: dict = {}
        booster = lgb.train(params, train, num_boost_round=1, valid_sets=[train],
                            valid_names=["eval"],
                            callbacks=[lgb.record_evaluation(result)])  # fmt: skip
        added = booster.predict(features, raw_score=True)
        assert not np.any(added), "LightGBM's tree changed the scores"
        for name, values in result["eval"].items():
            out[name + suffix] = float(values[-1])
    return out


def catboost_values(case: dict) -> dict[str, float]:
    import numpy as np
    from catboost.utils import eval_metric

    grades = np.asarray(case["grades"], dtype=float)
    scores = np.asarray(case["scores"], dtype=float)
    group_id = np.repeat(np.arange(len(case["groups"])), case["groups"])
    metrics = ["NDCG", "NDCG:type=Exp", "MRR", "DCG"]
    for k in CUT_OFFS:
        metrics += [f"NDCG:top={k}", f"NDCG:top={k};type=Exp",
                    f"NDCG:top={k};denominator=Position", f"DCG:top={k}",
                    f"PrecisionAt:top={k}", f"RecallAt:top={k}", f"MAP:top={k}",
                    f"MRR:top={k}"]  # fmt: skip
    return {m: float(eval_metric(grades, scores, m, group_id=group_id)[0]) for m in metrics}


def catboost_cascade_values(case: dict) -> dict[str, float]:
    """CatBoost's PFound, ERR and AverageGain, which read a target as a probability (a
    grade above 1 as it is): of the grades, and of the binary labels (``|binary``)."""
    import numpy as np
    from catboost.utils import eval_metric

    grades = np.asarray(case["grades"], dtype=float)
    scores = np.asarray(case["scores"], dtype=float)
    group_id = np.repeat(np.arange(len(case["groups"])), case["groups"])
    # plain "ERR" is ir_measures' ERR in receval: CatBoost's is written with a parameter
    metrics = ["PFound", "PFound:decay=0.5", "ERR:top=-1"]
    for k in CUT_OFFS:
        metrics += [f"PFound:top={k}", f"ERR:top={k}", f"AverageGain:top={k}"]
    out = {}
    for suffix, labels in (("", grades), ("|binary", (grades > 0).astype(float))):
        for m in metrics:
            out[m + suffix] = float(eval_metric(labels, scores, m, group_id=group_id)[0])
    return out


def catboost_quarter_values(case: dict) -> dict[str, float]:
    """CatBoost's ranking metrics of probability targets, the grades / 4 (``|quarters``):
    PFound, ERR, AverageGain, NDCG and DCG, and the metrics of relevant documents with
    their default border (0.5) and others."""
    import numpy as np
    from catboost.utils import eval_metric

    targets = np.asarray(case["grades"], dtype=float) / 4
    scores = np.asarray(case["scores"], dtype=float)
    group_id = np.repeat(np.arange(len(case["groups"])), case["groups"])
    metrics = ["PFound", "PFound:decay=0.5", "ERR:top=-1", "NDCG", "NDCG:type=Exp", "DCG",
               "MRR", "MRR:border=0.25", "MRR:border=0.75"]  # fmt: skip
    for k in CUT_OFFS:
        metrics += [f"PFound:top={k}", f"ERR:top={k}", f"AverageGain:top={k}",
                    f"NDCG:top={k};type=Exp", f"DCG:top={k}", f"PrecisionAt:top={k}",
                    f"PrecisionAt:top={k};border=0.25", f"RecallAt:top={k}",
                    f"RecallAt:top={k};border=0.75", f"MAP:top={k}",
                    f"MAP:top={k};border=0.25"]  # fmt: skip
    return {
        m + "|quarters": float(eval_metric(targets, scores, m, group_id=group_id)[0])
        for m in metrics
    }


def grouped_values(case: dict) -> dict:
    """CatBoost's ``QueryAUC`` of the case's groups, and the row weights of the
    weighted ``QueryAUC``."""
    import numpy as np
    from catboost.utils import eval_metric

    grades = np.asarray(case["grades"], dtype=float)
    scores = np.asarray(case["scores"], dtype=float)
    group_id = np.repeat(np.arange(len(case["groups"])), case["groups"])
    rng = np.random.default_rng(1000 + case["seed"])
    weights = rng.integers(4, 17, size=len(grades)) / 8  # exact in float32
    runs = {
        "QueryAUC:type=Ranking": (grades, None),
        "QueryAUC:type=Classic|quarters": (grades / 4, None),
        "QueryAUC:type=Classic;use_weights=true|weighted": (grades / 4, weights),
        "QueryAUC|binary": ((grades > 0).astype(float), None),
    }
    catboost = {
        label: float(eval_metric(target, scores, label.partition("|")[0], group_id=group_id,
                                 weight=w)[0])
        for label, (target, w) in runs.items()
    }  # fmt: skip
    return {"catboost": catboost, "weights": weights.tolist()}


def main() -> None:
    import catboost
    import lightgbm
    import numpy
    import xgboost

    cases = []
    for seed in SEEDS:
        case = make_case(seed)
        case["values"] = {
            "xgboost": xgboost_values(case),
            "lightgbm": lightgbm_values(case),
            "catboost": {
                **catboost_values(case),
                **catboost_cascade_values(case),
                **catboost_quarter_values(case),
            },
        }
        case["grouped"] = grouped_values(case) | {"xgboost": xgboost_grouped_values(case)}
        cases.append(case)
    data = {
        "versions": {
            "xgboost": xgboost.__version__,
            "lightgbm": lightgbm.__version__,
            "catboost": catboost.__version__,
            "numpy": numpy.__version__,
        },
        "cut_offs": list(CUT_OFFS),
        "label_gain": LABEL_GAIN,
        "cases": cases,
    }
    OUT.write_text(json.dumps(data, indent=1) + "\n")
    print(f"wrote {OUT}: {len(cases)} cases")


if __name__ == "__main__":
    main()

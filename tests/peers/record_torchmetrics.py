"""Record torchmetrics' retrieval and calibration values for receval's parity tests.

torchmetrics needs PyTorch, which is too heavy to be a test dependency, so its
numbers are recorded once by this script, run by hand, and the test suite
(``tests/peers/test_torchmetrics_recorded.py``) only reads the recorded file
``tests/peers/data/recorded_torchmetrics.json``. pytest collects no test from
this file (tests come from ``test_*.py``; ``--doctest-modules`` imports it, which
needs only the standard library: torch is imported when the script runs), and it
does not import receval.

Regenerate (from the repository root; only PyPI is needed, torch pulls its
CUDA wheels, a few GB; the CPU is used)::

    python3 -m venv /tmp/tm-venv
    /tmp/tm-venv/bin/pip install torchmetrics==1.9.0 torch numpy
    /tmp/tm-venv/bin/python tests/peers/record_torchmetrics.py

The versions used are written into the file (``versions``). The cases are
generated from fixed seeds, so the same versions give the same file.

What is recorded
----------------
Ranking cases: nine queries whose rows are interleaved (one batch of
(indexes, preds, target) rows), binary, graded (0..3) or float targets
(``target_kind``), distinct or heavily tied scores, positive only or with
negative and zero scores; the first query has no positive, the second only
positives, and a few more have no positive; and three fixed cases
(``FIXED_CASES``). Float targets (float32, as torchmetrics reads them) are
``fractional`` (0.25, 0.3, 0.5, 1.5, 2.5, 1 and 0) or ``negative`` (the same
with -1 and -0.5); each ``negative`` case has a twin, its id ending in
``_as_zero``, with each negative target set to 0. Binary cases are recorded
for every metric; the others for NDCG only, the one retrieval metric that
takes targets outside [0, 1] (the others raise).
Each case is evaluated on three score vectors (``variants``):

* ``scores``: the case's scores (``preds``);
* ``input_ties``: ``preds_input_ties``, distinct integers that rank each
  query's items by score, then by input position, each with the sign of its
  score (> 0, or <= 0): what torchmetrics gives when ties are broken in input
  order, since torchmetrics' own order of tied rows is the one of
  ``torch.sort(indexes)`` and ``torch.topk``, which are not stable;
* ``positive``: ``preds_positive``, the same plus a constant, so that every
  score is > 0 in the same order (torchmetrics' precision, recall, MAP and MRR
  never count an item whose score is <= 0 as a hit: the difference to
  ``input_ties`` is that rule's effect).

For each metric, each ``top_k`` in (1, 3, 5, 10, None) and each variant: the
metric class (``RetrievalMAP(top_k=...)``, ``update`` then ``compute``) under
each ``empty_target_action`` (neg, skip, pos, error; a raised ``ValueError`` is
recorded as ``"raises: <message>"``), and ``per_query``: the functional metric
on each query (ascending query index, ``queries``), on the rows in the order the
metric class sees them.

Per case, ``sort_of_indexes_is_stable`` says whether ``torch.sort(indexes)`` (the
grouping step of ``RetrievalMetric.compute``) kept the input order within each
query, and ``topk_tie_order_differs`` (``[query, k]``) and
``argsort_tie_order_differs`` (queries) list where ``torch.topk`` /
``torch.argsort(descending=True)`` over the grouped rows put tied scores in an
order other than the input order.

Results are float32; each is written as the shortest decimal that reads back as
the same float32.

Calibration cases: ``binary_calibration_error`` for l1, l2 and max norms, on
float32 (or float64 where stated) probabilities, with probabilities on bin
edges, equal to 0 and to 1.
"""

from __future__ import annotations

import json
import platform
import re
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent / "data" / "recorded_torchmetrics.json"
# the commit of each release tag the file may be recorded with
TAG_COMMITS = {"1.9.0": "700261d3683ba77517e9650043f62a8313027437"}

KS = (1, 3, 5, 10, None)
ACTIONS = ("neg", "skip", "pos", "error")

# (family, description, target kind, score kind); 3 seeds each
FAMILIES = [
    ("binary_distinct", "binary targets, distinct positive scores", "binary", "distinct"),
    ("binary_tied", "binary targets, scores from {0.1, 0.2, 0.3, 0.5}", "binary", "tied"),
    (
        "binary_signed",
        "binary targets, distinct scores of both signs and some exact zeros",
        "binary",
        "signed",
    ),
    (
        "binary_signed_tied",
        "binary targets, scores from {-1, -0.5, 0, 0.5, 1}",
        "binary",
        "signed_tied",
    ),
    ("graded_distinct", "grades 0..3, distinct positive scores", "graded", "distinct"),
    (
        "graded_signed_tied",
        "grades 0..3, scores from {-1, -0.5, 0, 0.5, 1}",
        "graded",
        "signed_tied",
    ),
    (
        "fractional_tied",
        "fractional grades (0.25, 0.3, 0.5, 1.5, 2.5) and zeros, scores from {0.1, 0.2, 0.3, 0.5}",
        "fractional",
        "tied",
    ),
    (
        "fractional_signed_tied",
        "fractional grades (0.25, 0.3, 0.5, 1.5, 2.5) and zeros, scores from {-1, -0.5, 0, 0.5, 1}",
        "fractional",
        "signed_tied",
    ),
    (
        "negative_grades_tied",
        "fractional grades, zeros and negative grades (-1, -0.5), scores from {0.1, 0.2, 0.3, 0.5}",
        "negative",
        "tied",
    ),
]
SEEDS = (0, 1, 2)
# float targets (written as float32 values, as torchmetrics reads them): the grades
# of a random query, and of the query with only positive targets
FLOAT_GRADES = {
    "fractional": ([0, 0, 0, 0.25, 0.3, 0.5, 1, 1.5, 2.5], [0.25, 0.3, 0.5, 1.5, 2.5]),
    "negative": ([-1, -0.5, 0, 0, 0.25, 0.3, 0.5, 1, 2.5], [0.25, 0.3, 0.5, 1.5, 2.5]),
}

FIXED_CASES = [
    {
        "id": "issue_map_nonpositive",
        "family": "fixed",
        "description": "the issue's example: preds [-1, -2], target [1, 0] (MAP 0)",
        "target_kind": "binary",
        "indexes": [0, 0],
        "preds": [-1.0, -2.0],
        "target": [1, 0],
    },
    {
        "id": "docstring_example",
        "family": "fixed",
        "description": "the retrieval docstrings' example: two queries, each with a positive and a "
        "negative (so empty_target_action='error' does not raise)",
        "target_kind": "binary",
        "indexes": [0, 0, 0, 1, 1, 1, 1],
        "preds": [0.2, 0.3, 0.5, 0.1, 0.3, 0.5, 0.2],
        "target": [0, 0, 1, 0, 1, 0, 1],
    },
    {
        "id": "ndcg_tied_corner_case",
        "family": "fixed",
        "description": "tests/unittests/retrieval/test_ndcg.py::test_corner_case_with_tied_scores "
        "(torchmetrics issue 2022), which compares with sklearn's ndcg_score, not a literal",
        "target_kind": "graded",
        "indexes": [0, 0, 0, 0, 0],
        "preds": [0.1, 0.0, 0.0, 0.0, 0.1],
        "target": [10, 0, 0, 1, 5],
    },
]


def _f32(x):
    """The float32 value of x, as the double that equals it exactly."""
    import numpy as np

    return float(np.float32(x))


def make_ranking_case(family, description, target_kind, score_kind, seed):
    import numpy as np

    rng = np.random.default_rng([seed, [f[0] for f in FAMILIES].index(family)])
    n_queries = 9
    query_ids = sorted(int(x) for x in rng.choice(1000, n_queries, replace=False))
    rows = []
    for j, q in enumerate(query_ids):
        n = int(rng.integers(1, 16))
        # the first query has no positive, the second only positives, the rest random
        if j == 0:
            target = np.zeros(n, dtype=int)
        elif target_kind in FLOAT_GRADES:
            target = rng.choice(FLOAT_GRADES[target_kind][j == 1], n)
        elif j == 1:
            target = rng.integers(1, 4, n) if target_kind == "graded" else np.ones(n, dtype=int)
        elif target_kind == "graded":
            target = rng.choice([0, 0, 0, 1, 2, 3], n)
        else:
            target = (rng.random(n) < 0.4).astype(int)
        if j > 1 and rng.random() < 0.2:  # a few more queries without a positive
            target = np.zeros(n, dtype=int)
        if score_kind == "distinct":
            scores = rng.random(n) * 0.98 + 0.01
        elif score_kind == "tied":
            scores = rng.choice([0.1, 0.2, 0.3, 0.5], n)
        elif score_kind == "signed":
            scores = rng.normal(0.0, 1.0, n)
            scores[rng.random(n) < 0.15] = 0.0
        else:
            scores = rng.choice([-1.0, -0.5, 0.0, 0.5, 1.0], n)
        grade = int if target_kind in ("binary", "graded") else _f32
        rows += [(q, _f32(s), grade(t)) for s, t in zip(scores, target, strict=True)]
    order = rng.permutation(len(rows))  # interleave the queries
    rows = [rows[i] for i in order]
    return {
        "id": f"{family}_{seed}",
        "family": family,
        "description": description,
        "seed": seed,
        "target_kind": target_kind,
        "indexes": [r[0] for r in rows],
        "preds": [r[1] for r in rows],
        "target": [r[2] for r in rows],
    }


def without_negative_grades(case):
    """A "negative" case with each negative target set to 0: the values receval gives on
    the case (a negative grade earns no gain), where torchmetrics gains it."""
    return {
        **case,
        "id": f"{case['id']}_as_zero",
        "description": f"{case['id']} with each negative target set to 0",
        "target_kind": "fractional",
        "target": [max(t, 0.0) for t in case["target"]],
    }


def _metric_table():
    import torchmetrics.functional.retrieval as F
    import torchmetrics.retrieval as R

    # name -> (class, functional, takes top_k, extra kwargs, binary targets only)
    return {
        "precision": (R.RetrievalPrecision, F.retrieval_precision, True, {}, True),
        "precision_adaptive_k": (
            R.RetrievalPrecision,
            F.retrieval_precision,
            True,
            {"adaptive_k": True},
            True,
        ),
        "recall": (R.RetrievalRecall, F.retrieval_recall, True, {}, True),
        "map": (R.RetrievalMAP, F.retrieval_average_precision, True, {}, True),
        "mrr": (R.RetrievalMRR, F.retrieval_reciprocal_rank, True, {}, True),
        "ndcg": (R.RetrievalNormalizedDCG, F.retrieval_normalized_dcg, True, {}, False),
        "hit_rate": (R.RetrievalHitRate, F.retrieval_hit_rate, True, {}, True),
        "r_precision": (R.RetrievalRPrecision, F.retrieval_r_precision, False, {}, True),
        "fall_out": (R.RetrievalFallOut, F.retrieval_fall_out, True, {}, True),
        "auroc": (R.RetrievalAUROC, F.retrieval_auroc, False, {}, True),
    }


def _num(x):
    """A float32 result as the shortest decimal that reads back as the same float32."""
    import numpy as np

    return float(repr(np.float32(x)).replace("np.float32(", "").rstrip(")"))


def _class_value(cls, kwargs, preds, target, indexes):
    metric = cls(**kwargs)
    metric.update(preds, target, indexes=indexes)
    try:
        return _num(metric.compute())
    except ValueError as err:
        return f"raises: {err}"


def _input_tie_scores(preds, indexes):
    """Distinct integer scores ranking each query's items by (score desc, input position),
    each of the same sign as the item's score (> 0, or <= 0: the first such item gets 0)."""
    out = [0.0] * len(preds)
    for q in sorted(set(indexes)):
        pos = [i for i, x in enumerate(indexes) if x == q]
        ranked = sorted(pos, key=lambda i: (-preds[i], i))
        n_pos = sum(1 for i in pos if preds[i] > 0)
        for r, i in enumerate(ranked):
            out[i] = float(n_pos - r) if r < n_pos else -float(r - n_pos)
    return out


def _groups(preds, target, indexes):
    """Per query (ascending id), its rows as RetrievalMetric.compute sees them."""
    import torch

    sorted_idx, order = torch.sort(indexes)
    p, t = preds[order], target[order]
    ids, counts = torch.unique(sorted_idx, return_counts=True)
    return ids.tolist(), torch.split(p, counts.tolist()), torch.split(t, counts.tolist()), order


def _tie_order_report(preds, target, indexes):
    """Where torch.topk / torch.argsort order tied scores other than by input position."""
    import torch

    ids, gp, _, order = _groups(preds, target, indexes)
    stable = True
    pos = 0
    topk_diff, argsort_diff = [], []
    for q, p in zip(ids, gp, strict=True):
        rows = order[pos : pos + len(p)].tolist()
        pos += len(p)
        stable &= rows == sorted(rows)
        # input order: score descending, then position in the input rows
        expected = sorted(range(len(p)), key=lambda i: (-float(p[i]), rows[i]))
        if torch.argsort(p, dim=-1, descending=True).tolist() != expected:
            argsort_diff.append(q)
        for k in KS:
            kk = min(k or len(p), len(p))
            if p.topk(kk, sorted=True, dim=-1)[1].tolist() != expected[:kk]:
                topk_diff.append([q, k])
    return stable, topk_diff, argsort_diff


def record_ranking(case):
    import torch

    indexes = torch.tensor(case["indexes"], dtype=torch.long)
    float_target = case["target_kind"] in FLOAT_GRADES
    target = torch.tensor(case["target"], dtype=torch.float32 if float_target else torch.long)
    case["preds_input_ties"] = _input_tie_scores(case["preds"], case["indexes"])
    offset = float(len(case["preds"]) + 1)
    case["preds_positive"] = [x + offset for x in case["preds_input_ties"]]
    variants = {
        "scores": torch.tensor(case["preds"], dtype=torch.float32),
        "input_ties": torch.tensor(case["preds_input_ties"], dtype=torch.float32),
        "positive": torch.tensor(case["preds_positive"], dtype=torch.float32),
    }
    stable, topk_diff, argsort_diff = _tie_order_report(variants["scores"], target, indexes)
    case["sort_of_indexes_is_stable"] = stable
    case["topk_tie_order_differs"] = topk_diff
    case["argsort_tie_order_differs"] = argsort_diff
    case["queries"] = _groups(variants["scores"], target, indexes)[0]
    results = []
    for name, (cls, func, takes_k, extra, binary_only) in _metric_table().items():
        if binary_only and case["target_kind"] != "binary":
            continue
        for k in KS if takes_k else (None,):
            kwargs = dict(extra)
            if takes_k:
                kwargs["top_k"] = k
            entry = {"metric": name, "k": k}
            for variant, preds in variants.items():
                values = {
                    action: _class_value(
                        cls, {**kwargs, "empty_target_action": action}, preds, target, indexes
                    )
                    for action in ACTIONS
                }
                _, gp, gt, _ = _groups(preds, target, indexes)
                pairs = zip(gp, gt, strict=True)
                values["per_query"] = [_num(func(p, t, **kwargs)) for p, t in pairs]
                entry[variant] = values
            results.append(entry)
    case["results"] = results
    return case


def make_calibration_cases():
    import numpy as np

    cases = [
        {
            "id": "issue_example",
            "description": "the issue's example: p=[0.5, 0.55], y=[1, 0], 10 bins",
            "preds": [_f32(0.5), _f32(0.55)],
            "target": [1, 0],
            "n_bins": [10],
        },
        {
            "id": "tied_corner_case_float64",
            "description": "test_calibration_error.py::test_corner_case_due_to_dtype's inputs "
            "(float64; torchmetrics issue 1907), compared there with netcal, not a literal",
            "preds": [0.9, 0.9, 0.9, 0.9, 0.9, 0.8, 0.8, 0.01, 0.33, 0.34, 0.99, 0.61],
            "target": [1, 1, 1, 0, 0, 1, 0, 1, 0, 1, 0, 0],
            "n_bins": [99, 100, 10, 3],
            "dtype": "float64",
        },
        {
            "id": "ones_and_upper_bin",
            "description": "p = 1.0 (over-confident) next to p in [0.9, 1) (under-confident): "
            "torchmetrics gives p = 1.0 a bin of its own",
            "preds": [_f32(x) for x in (1.0, 1.0, 0.95, 0.92, 0.5, 0.0)],
            "target": [0, 1, 1, 1, 1, 0],
            "n_bins": [2, 5, 10],
        },
    ]
    for seed in range(4):
        rng = np.random.default_rng(500 + seed)
        n = 60 + 40 * seed
        p = rng.random(n)
        y = (rng.random(n) < p).astype(int)
        cases.append(
            {
                "id": f"uniform_{seed}",
                "description": "uniform random probabilities, labels drawn from them",
                "preds": [_f32(x) for x in p],
                "target": [int(t) for t in y],
                "n_bins": [1, 2, 5, 10, 15, 20],
            }
        )
    for seed in range(4):
        rng = np.random.default_rng(600 + seed)
        n = 80
        p = rng.integers(0, 21, n) / 20  # multiples of 0.05: on the edges of 2, 4, 5, 10, 20 bins
        y = (rng.random(n) < 0.5).astype(int)
        cases.append(
            {
                "id": f"grid_{seed}",
                "description": "probabilities on multiples of 0.05 (bin edges), with 0 and 1",
                "preds": [_f32(x) for x in p],
                "target": [int(t) for t in y],
                "n_bins": [2, 4, 5, 10, 20],
            }
        )
    return cases


def record_calibration(case):
    import torch
    from torchmetrics.functional.classification import binary_calibration_error

    dtype = torch.float64 if case.get("dtype") == "float64" else torch.float32
    preds = torch.tensor(case["preds"], dtype=dtype)
    target = torch.tensor(case["target"], dtype=torch.long)
    keep = float if dtype == torch.float64 else _num
    case["values"] = {
        str(n): {
            norm: keep(binary_calibration_error(preds, target, n_bins=n, norm=norm))
            for norm in ("l1", "l2", "max")
        }
        for n in case["n_bins"]
    }
    return case


def _not_applicable(ranking, calibration):
    """What is recorded but cannot be compared with receval, and why."""

    def entries(metric):
        return sum(e["metric"] == metric for case in ranking for e in case["results"])

    n_cal = sum(len(case["values"]) for case in calibration)
    return [
        {
            "what": "fall_out (RetrievalFallOut, retrieval_fall_out)",
            "entries": entries("fall_out"),
            "reason": "receval has no fall-out metric",
        },
        {
            "what": "precision_adaptive_k (RetrievalPrecision(adaptive_k=True))",
            "entries": entries("precision_adaptive_k"),
            "reason": "receval's precision@k always divides by k; adaptive_k divides by "
            "min(k, the query's items)",
        },
        {
            "what": "auroc class means (RetrievalAUROC)",
            "entries": entries("auroc"),
            "reason": "torchmetrics scores a query without negatives 0 even with "
            "empty_target_action='skip', and every random case has one; receval's gauc_score skips "
            "one-class groups. The per-query values are compared with group_auc",
        },
        {
            "what": "ndcg on negative targets (the negative_grades_tied cases)",
            "entries": sum(
                len(case["results"]) for case in ranking if case["target_kind"] == "negative"
            ),
            "reason": "torchmetrics gains a negative target as it is (an NDCG below 0 or above "
            "1) and takes a query whose targets sum to 0 for one without a positive; receval "
            "gives a negative grade no gain: its values are those of the case with each "
            "negative target set to 0 (the cases ending in _as_zero)",
        },
        {
            "what": "binary_calibration_error norms l2 and max",
            "entries": 2 * n_cal,
            "reason": "receval's expected_calibration_error is the l1 norm only",
        },
    ]


def _dump(data):
    text = json.dumps(data, indent=1)
    # lists of numbers and strings on one line
    return re.sub(
        r"\[\s*([^\[\]{}]*?)\s*\]",
        lambda m: "[" + re.sub(r"\s*\n\s*", " ", m.group(1)) + "]",
        text,
    )


def main():
    import numpy as np
    import torch
    import torchmetrics

    torch.set_num_threads(1)
    cases = [make_ranking_case(*family, seed) for family in FAMILIES for seed in SEEDS]
    cases += [without_negative_grades(c) for c in cases if c["target_kind"] == "negative"]
    ranking = [record_ranking(case) for case in cases]
    ranking += [
        record_ranking({**case, "preds": [_f32(x) for x in case["preds"]]}) for case in FIXED_CASES
    ]
    calibration = [record_calibration(c) for c in make_calibration_cases()]
    data = {
        "about": (
            "torchmetrics retrieval metrics and binary_calibration_error, recorded from the "
            "real library by tests/peers/record_torchmetrics.py (see its docstring for how to "
            "regenerate and what every field means); read by "
            "tests/peers/test_torchmetrics_recorded.py. torchmetrics computes in float32."
        ),
        "source": {
            "repo": "Lightning-AI/torchmetrics",
            "tag": f"v{torchmetrics.__version__}",
            "commit": TAG_COMMITS.get(torchmetrics.__version__, "unknown: add it to TAG_COMMITS"),
            "path": "src/torchmetrics/retrieval, src/torchmetrics/functional/classification/"
            "calibration_error.py",
            "test": "recorded by tests/peers/record_torchmetrics.py",
        },
        "versions": {
            "python": platform.python_version(),
            "torch": torch.__version__,
            "torchmetrics": torchmetrics.__version__,
            "numpy": np.__version__,
            "torch_threads": torch.get_num_threads(),
            "platform": platform.platform(),
        },
        "ks": list(KS),
        "empty_target_actions": list(ACTIONS),
        "ranking": ranking,
        "calibration": calibration,
        "not_applicable": _not_applicable(ranking, calibration),
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(_dump(data) + "\n")
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)", file=sys.stderr)


if __name__ == "__main__":
    main()

"""ir_measures' own tests, as data (tests/peers/data/ir_measures.json), through receval.

Each case is one measure of one ir_measures test: its inputs, the per-query values and the
aggregate the test asserts, and the tolerance of its assertion. ``test_receval`` runs the
receval metric under the case's profile (``ir_measures`` for the default pipeline and its
providers, ``ranx`` for ir_measures' ranx provider); ``test_ir_measures_still_says_so`` holds
the installed ir_measures to the recorded values.
"""

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

from receval import TieOrderWarning, evaluate

# ranx compiles its kernels with numba on first use (about two minutes of a fresh
# machine's CPU, cached on disk after): one worker of a parallel run takes every
# module that calls ranx, so that they are compiled once
pytestmark = pytest.mark.xdist_group("ranx")

DATA = json.loads((Path(__file__).parent / "data" / "ir_measures.json").read_text())
INPUTS = DATA["inputs"]
CASES = DATA["cases"]


def _abs(case, key="tolerance"):
    return case.get(key, case["tolerance"])["abs"]


@pytest.mark.parametrize("case", [pytest.param(c, id=c["id"]) for c in CASES])
def test_receval(case):
    data = INPUTS[case["inputs"]]
    metric = case["metric"]
    with warnings.catch_warnings():  # profile ranx: no tied list is over 15 items
        warnings.simplefilter("error", TieOrderWarning)
        report = evaluate(data["qrels"], data["run"], [metric], profile=case["profile"])
    got = dict(zip([str(u) for u in report.users], report.values[metric].tolist(), strict=True))
    assert sorted(got) == sorted(data["qrels"])  # every qrels query, none from the run only
    for query, expected in case.get("per_query", {}).items():
        assert got[query] == pytest.approx(expected, abs=_abs(case), rel=0), query
    if "aggregate" in case:
        tol = _abs(case, "aggregate_tolerance")
        assert report.mean[metric] == pytest.approx(case["aggregate"], abs=tol, rel=0)


# --------------------------------------------------------------- the peer, still


def _ranx_provider(case, data):
    """What ir_measures' ranx provider computes (ranx_provider.py), with ranx itself: the
    provider fails with pandas >= 3 (ranx's Qrels.from_df asserts an object dtype)."""
    import ir_measures
    import ranx

    measure = ir_measures.parse_measure(case["measure"])
    cutoff = measure.params.get("cutoff")
    name = {
        "P": f"precision@{cutoff}",
        "SetP": "precision",
        "R": f"recall@{cutoff}",
        "SetR": "recall",
        "RR": "mrr",
        "AP": "map",
        "Success": f"hit_rate@{cutoff}",
        "Rprec": "r-precision",
        "nDCG": "ndcg_burges" if measure.params.get("dcg") == "exp-log2" else "ndcg",
    }[measure.NAME]
    if cutoff is not None and measure.NAME in ("RR", "AP", "nDCG"):
        name += f"@{cutoff}"
    qrels = data["qrels"]
    if measure.NAME != "nDCG":  # the provider binarizes the qrels at rel
        rel = measure.params.get("rel", 1)
        qrels = {q: {d: int(g >= rel) for d, g in docs.items()} for q, docs in qrels.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        values = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(data["run"]), name, return_mean=False)
    return dict(zip(sorted(qrels), values.tolist(), strict=True)), None


def _peer(case, data):
    import ir_measures

    if case["provider"] == "ranx":
        return _ranx_provider(case, data)
    measure = ir_measures.parse_measure(case["measure"])
    provider = {
        "default": ir_measures,
        "pytrec_eval": ir_measures.pytrec_eval,
        "msmarco": ir_measures.msmarco,
        "gdeval": ir_measures.gdeval,
        "cwl_eval": ir_measures.cwl_eval,
    }[case["provider"]]
    if case["provider"] == "cwl_eval" and not provider.is_available():
        provider = ir_measures  # cwl-eval not installed: the default pipeline agrees to 1e-4
    if case["provider"] == "gdeval":
        if not provider.is_available():
            pytest.skip("gdeval needs perl")
        measure = ir_measures.nDCG @ measure.params["cutoff"]  # as the test passes it
    qrels, run = data["qrels"], data["run"]
    per_query = {m.query_id: m.value for m in provider.iter_calc([measure], qrels, run)}
    return per_query, provider.calc_aggregate([measure], qrels, run)[measure]


@pytest.mark.parametrize("case", [pytest.param(c, id=c["id"]) for c in CASES])
def test_ir_measures_still_says_so(case):
    per_query, aggregate = _peer(case, INPUTS[case["inputs"]])
    if "per_query" in case:
        assert sorted(per_query) == sorted(case["per_query"])
        for query, expected in case["per_query"].items():
            assert per_query[query] == pytest.approx(expected, abs=_abs(case) + 1e-15, rel=0)
    if "aggregate" in case:
        tol = _abs(case, "aggregate_tolerance") + 1e-15
        assert aggregate == pytest.approx(case["aggregate"], abs=tol, rel=0)


def test_the_data_file_is_complete():
    assert len(CASES) == 65
    assert len({c["id"] for c in CASES}) == len(CASES)
    assert all(c["source"]["commit"] == "bb9ece5c1ec6a0027c8a9f7a8ee428614f8a2f44" for c in CASES)
    assert len(DATA["not_applicable"]) == 25
    assert np.all([c["inputs"] in INPUTS for c in CASES])

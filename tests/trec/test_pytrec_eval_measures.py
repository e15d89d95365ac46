"""Every trec_eval measure that pytrec_eval computes, against receval, on seeded random input.

pytrec_eval (trec_eval 9.0.8 in a Python module) is the reference of the ``trec_eval``
profile: each measure of its ``supported_measures`` that receval computes, with its
default parameters and with others (``P.1,3``, ``recall.1,3``, ``map_cut.1,3``,
``ndcg_cut.1,3``, ``success.1,3``, ``relative_P.1,3``, ``iprec_at_recall`` at
levels off trec_eval's eleven, ``Rprec_mult`` below and above 1, ``set_F.0.5``,
``11pt_avg.0.2,0.5``), is compared per query and as the mean over queries (the sum
of the counts, the geometric mean of ``gm_*``), on runs whose scores tie (as
doubles; or only as C floats: 1e-10 apart, or huge, tiny and signed zeros), with
negative, zero and large grades, documents named by digits or by text, queries
without a relevant document, under ``relevance_level`` 1 to 3 (``rel_threshold``),
``judged_docs_only_flag`` (``judged_only``), and ``-c`` (``missing_users="complete"``,
which pytrec_eval has not: its queries absent from the run are 0, ``num_rel`` kept).
``receval trec-eval``'s text is compared too, on scores that tie as doubles and as
floats alike (trec_eval 10.0 compares doubles, pytrec_eval floats).

Left out: ``utility`` with parameters (pytrec_eval 0.5 ignores them: ``utility.2,1,0,0``
prints the default's value) and the gain tables of ``ndcg``, ``G`` (pytrec_eval refuses
``ndcg.1=3``); pytrec_eval's ``relevance_level`` must be positive. pytrec_eval reads
stale state for a query whose judgments are all negative (see
tests/peers/test_live_parity.py), so each query has a grade >= 0.
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import pytest

from receval import evaluate
from receval.trec.trec_eval import trec_eval, trec_eval_metrics

pytrec_eval = pytest.importorskip("pytrec_eval")

#: -m requests, each group asked of one pytrec_eval evaluator (which keeps one set of
#: parameters per measure): the default parameters, then others
DEFAULTS = [
    "P", "recall", "map", "map_cut", "ndcg", "ndcg_cut", "recip_rank", "Rprec", "success",
    "bpref", "infAP", "iprec_at_recall", "11pt_avg", "Rprec_mult", "relative_P", "ndcg_rel",
    "Rndcg", "binG", "G", "set_P", "set_recall", "set_relative_P", "set_map", "set_F",
    "utility", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret", "gm_map",
    "gm_bpref",
]  # fmt: skip
PARAMETERS = [
    "P.1,3", "recall.1,3,7", "map_cut.1,3,7", "ndcg_cut.1,3,7", "success.3,7",
    "relative_P.1,3,7", "iprec_at_recall.0.05,0.25,0.35,0.75", "Rprec_mult.0.5,1.5,3.0",
    "set_F.0.5", "11pt_avg.0.2,0.5",
]  # fmt: skip
#: requests whose value pytrec_eval prints under the bare name
REALS = ["set_F.0.5", "11pt_avg.0.2,0.5"]
COUNTS = {"num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"}
GEOMETRIC = {"gm_map", "gm_bpref"}
#: trec_eval 10.0 (the command) finds a recall level's relevant documents otherwise
TREC9_LEVELS = ("iprec_at_recall", "11pt_avg")
TOL = 1e-12

SCORES = ["tied", "near", "extreme", "distinct"]
GRADES = [[-1, 0, 0, 1, 2, 3], [0, 0, 1, 5, 100, 1000], [0, 1]]


def _measures(requests: list[str]) -> list[tuple[str, str]]:
    """``(pytrec_eval's printed name, receval metric)`` of each value of the requests."""
    out = []
    for request in requests:
        for name, metric in trec_eval_metrics([request]).items():
            out.append((request.partition(".")[0] if request in REALS else name, metric))
    return list(dict.fromkeys(out))


def random_case(seed: int, scores: str) -> tuple[dict, dict]:
    """``(qrels, run)``: 1 to 12 queries, some only in the qrels, some only in the run."""
    rng = np.random.default_rng(seed)
    numeric = seed % 2 == 0  # docnos "0", "10", "9" (compared as strings) or "d0"
    grades = GRADES[seed % len(GRADES)]
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for u in range(int(rng.integers(2, 13))):
        query = str(u) if u % 3 else f"q{u}"
        docs = [str(i) if numeric else f"d{i}" for i in range(int(rng.integers(3, 40)))]
        if rng.random() < 0.9:
            judged = rng.choice(docs, int(rng.integers(1, len(docs))), replace=False)
            g = rng.choice(grades, len(judged))
            if rng.random() < 0.2:  # a query without a relevant document
                g = np.minimum(g, 0)
            g[0] = max(g[0], 0)  # see the module docstring
            qrels[query] = {str(d): int(x) for d, x in zip(judged, g, strict=True)}
        if rng.random() < 0.85 or query not in qrels:
            ranked = rng.choice(docs, int(rng.integers(1, len(docs) + 1)), replace=False)
            n = len(ranked)
            if scores == "tied":
                s = rng.choice([0.0, 1.0, 2.0, -1.0], n)
            elif scores == "near":  # distinct doubles, equal C floats
                s = 1.0 + rng.integers(0, 3, n) * 1e-10
            elif scores == "extreme":  # overflow or underflow as C floats; -0.0 == 0.0
                s = rng.choice([1e300, 1e39, -1e300, 3e38, 1e-300, 1e-46, 0.0, -0.0, 1e20], n)
            else:
                s = rng.normal(size=n)
            run[query] = {str(d): float(x) for d, x in zip(ranked, s, strict=True)}
    if not set(qrels) & set(run):  # one query on both sides
        run[next(iter(qrels))] = {next(iter(qrels[next(iter(qrels))])): 1.0}
    return qrels, run


def _pytrec(qrels, run, requests, level, judged_only):
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels, set(requests), relevance_level=level, judged_docs_only_flag=judged_only
    )
    return evaluator.evaluate(run)


def _summary(name: str, col: list[float]) -> float:
    """trec_eval's summary of per-query values (pytrec_eval's ``gm_*`` are logs)."""
    if name in GEOMETRIC:
        return math.exp(sum(col) / len(col))
    return sum(col) if name in COUNTS else sum(col) / len(col)


def _same(got: float, want: float, tol: float = TOL) -> bool:
    if math.isnan(want):
        return math.isnan(got)
    return abs(got - want) <= tol * max(1.0, abs(want))


def _check(qrels, run, requests, *, level, judged_only, complete) -> None:
    expected = _pytrec(qrels, run, requests, level, judged_only)
    queries = sorted(qrels) if complete else sorted(expected)
    for query in queries:
        if query not in expected:  # trec_eval -c: every value 0 but num_rel
            relevant = sum(g >= level for g in qrels[query].values())
            expected[query] = {
                name: (
                    float(relevant)
                    if name == "num_rel"
                    else math.log(1e-5)
                    if name in GEOMETRIC
                    else 0.0
                )
                for name in expected[next(iter(expected))]
            }
    measures = _measures(requests)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unmatched ids, users absent from one side
        report = evaluate(
            qrels,
            run,
            list(dict.fromkeys(m for _, m in measures)),
            profile="trec_eval",
            rel_threshold=level,
            judged_only=judged_only,
            missing_users="complete" if complete else "skip",
            min_match=0,
        )
    users = [str(u) for u in report.users]
    for name, metric in measures:
        got = dict(zip(users, report.values[metric].tolist(), strict=True))
        col = [expected[q][name] for q in queries]
        if name not in GEOMETRIC:
            skipped = set(got) - set(queries)  # absent from the run (without -c): nan
            assert set(queries) <= set(got), metric
            assert all(math.isnan(got[q]) for q in skipped), metric
            for query, want in zip(queries, col, strict=True):
                assert _same(got[query], want), (name, metric, query, got[query], want)
            # a nan (interpolated precision of an emptied list) leaves receval's mean
            col = [x for x in col if not math.isnan(x)]
        if col:
            mean = _summary(name, col)
            assert _same(report.mean[metric], mean, 1e-9), (name, metric, report.mean[metric])


@pytest.mark.parametrize("judged_only", [False, True], ids=["all", "judged_only"])
@pytest.mark.parametrize("level", [1, 2, 3])
@pytest.mark.parametrize("scores", SCORES)
@pytest.mark.parametrize("seed", range(6))
def test_every_measure_per_query_and_mean(seed, scores, level, judged_only) -> None:
    qrels, run = random_case(seed, scores)
    for requests in (DEFAULTS, PARAMETERS):
        _check(qrels, run, requests, level=level, judged_only=judged_only, complete=False)


@pytest.mark.parametrize("level", [1, 2])
@pytest.mark.parametrize("scores", ["tied", "distinct"])
@pytest.mark.parametrize("seed", range(8))
def test_every_measure_with_queries_absent_from_the_run(seed, scores, level) -> None:
    # -c: pytrec_eval has none; a query absent from the run scores 0 (num_rel kept)
    qrels, run = random_case(seed, scores)
    for requests in (DEFAULTS, PARAMETERS):
        _check(qrels, run, requests, level=level, judged_only=False, complete=True)


def test_the_generator_draws_every_case() -> None:
    # ties, queries on one side only, queries without a relevant document, big grades
    cases = [random_case(seed, scores) for seed in range(6) for scores in SCORES]
    assert any(set(q) - set(r) for q, r in cases)
    assert any(set(r) - set(q) for q, r in cases)
    assert any(max(d.values()) <= 0 for q, _ in cases for d in q.values())
    assert any(g == 1000 for q, _ in cases for d in q.values() for g in d.values())
    assert any(len(set(d.values())) < len(d) for _, r in cases for d in r.values())


def _cli_values(text: str) -> dict[tuple[str, str], float]:
    out = {}
    for line in text.splitlines():
        name, query, value = (field.strip() for field in line.split("\t"))
        if name not in ("runid", "num_q", "relstring"):
            out[name, query] = float(value.replace("-nan", "nan"))
    return out


@pytest.mark.parametrize("judged_only", [False, True], ids=["all", "judged_only"])
@pytest.mark.parametrize("scores", ["tied", "distinct"])
@pytest.mark.parametrize("seed", range(6))
def test_the_command_prints_pytrec_evals_values(seed, scores, judged_only, tmp_path: Path):
    # receval trec-eval -q on files: per query and summary, to the 4 decimals printed;
    # scores that tie as doubles tie as floats, so trec_eval 9 and 10.0 rank alike
    qrels, run = random_case(seed, scores)
    run = {q: docs for q, docs in run.items() if q in qrels}  # without -c: both sides
    qrels = {q: docs for q, docs in qrels.items() if q in run}
    paths = [tmp_path / "qrels", tmp_path / "run"]
    paths[0].write_text("".join(f"{q} 0 {d} {g}\n" for q in qrels for d, g in qrels[q].items()))
    paths[1].write_text(
        "".join(f"{q} Q0 {d} 0 {s!r} tag\n" for q in run for d, s in run[q].items())
    )
    requests = [r for r in DEFAULTS if not r.startswith(TREC9_LEVELS)]
    argv = ["-q", "-l2"] + (["-J"] if judged_only else [])
    for request in requests:
        argv += ["-m", request]
    printed = _cli_values(trec_eval([*argv, *map(str, paths)]))
    expected = _pytrec(qrels, run, requests, 2, judged_only)
    names = {name for name, _ in printed}
    assert names == {n for n, _ in _measures(requests)}
    for name in names:
        col = [expected[q][name] for q in sorted(expected)]
        for query, want in zip(sorted(expected), col, strict=True):
            if name not in GEOMETRIC:
                assert _same(printed[name, query], want, 5.1e-5), (name, query, want)
        assert _same(printed[name, "all"], _summary(name, col), 5.1e-5), name


def test_an_empty_list_has_no_interpolated_precision_at_recall_0() -> None:
    # pytrec_eval: 0/0 at recall 0, nan (and so in 11pt_avg), 0 at the other levels;
    # receval's mean leaves the nan out (docs/conventions.md), every other value counts
    qrels = {"a": {"d1": 1, "d2": 0}, "b": {"d1": 1}, "c": {"d1": 1}}
    run = {"a": {"x": 1.0}, "b": {"d1": 1.0}, "c": {}}
    measures = {"iprec_at_recall_0.00": "iprec(recall=0)",
                "iprec_at_recall_0.50": "iprec(recall=0.5)", "11pt_avg": "iprec_avg"}  # fmt: skip
    for judged_only in (False, True):  # judged_only empties a's list too
        expected = _pytrec(qrels, run, ["iprec_at_recall", "11pt_avg"], 1, judged_only)
        report = evaluate(qrels, run, list(measures.values()), profile="trec_eval",
                          judged_only=judged_only, min_match=0)  # fmt: skip
        empty = ["a", "c"] if judged_only else ["c"]
        for name, metric in measures.items():
            got = dict(zip(report.users, report.values[metric].tolist(), strict=True))
            for user in qrels:
                want = expected[user][name]
                undefined = user in empty and name != "iprec_at_recall_0.50"
                assert math.isnan(want) == undefined and _same(got[user], want), (name, user)
            assert report.n_users_skipped[metric] == (len(empty) if "0.50" not in name else 0)
        assert report.mean["iprec(recall=0)"] == (1.0 if judged_only else 0.5)

"""XGBoost, LightGBM and CatBoost held to their word: their profiles against recorded values.

``data/recorded_gbdt.json`` holds each library's own evaluation of fixed scores on
seeded random query groups (ties in most groups, grades 0 to 4, groups without a
relevant document), written by ``record_gbdt.py`` (run by hand; its docstring says how
each library is made to evaluate the given scores and what every field means). A query
group is a receval user whose documents are all judged (grade 0 included) and ranked,
in the order the library was given them. Every library computes in float64 (XGBoost
prints 17 significant digits): values are compared at 1e-12.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from receval import evaluate

DATA = Path(__file__).parent / "data"
RECORDED = json.loads((DATA / "recorded_gbdt.json").read_text())
CASES = {case["seed"]: case for case in RECORDED["cases"]}
LIBRARIES = ("xgboost", "lightgbm", "catboost")
_GAINS = ";".join(f"{grade}:{gain:g}" for grade, gain in enumerate(RECORDED["label_gain"]) if grade)


#: the targets a recorded label reads: the grades, the binary labels (grades above 0) or
#: the probabilities grade / 4
_TARGETS = {
    "binary": lambda x: int(x > 0),
    "quarters": lambda x: x / 4,
}


def _metric(library: str, label: str) -> tuple[str, str]:
    """The receval metric string of a recorded label, and the targets it reads (``""``:
    the grades, ``"binary"`` or ``"quarters"``)."""
    name, _, variant = label.partition("|")
    if variant in ("linear", "linear_quarters"):  # ndcg_exp_gain=false
        name = re.sub(r"^ndcg", "ndcg(gain=linear)", name)
        variant = variant.removeprefix("linear").lstrip("_")
    elif variant == "label_gain":
        name = re.sub(r"^ndcg", f"ndcg(gains={_GAINS})", name)
    return name, variant if variant in _TARGETS else ""


def _inputs(case: dict, targets: str = "") -> tuple[dict, dict]:
    qrels: dict = {}
    run: dict = {}
    start = 0
    target = _TARGETS.get(targets, lambda x: x)
    for g, size in enumerate(case["groups"]):
        rows = range(start, start + size)
        docs = [f"d{i}" for i in rows]
        grades = [case["grades"][i] for i in rows]
        qrels[f"q{g}"] = {d: target(x) for d, x in zip(docs, grades, strict=True)}
        run[f"q{g}"] = {d: case["scores"][i] for d, i in zip(docs, rows, strict=True)}
        start += size
    return qrels, run


def _evaluated(library: str, case: dict, profile: str | None = None, **kw):
    expected = case["values"][library]
    got: dict[str, float] = {}
    for targets in ("", *_TARGETS):
        labels = {
            lab: _metric(library, lab)[0] for lab in expected if _metric(library, lab)[1] == targets
        }
        if not labels:
            continue
        qrels, run = _inputs(case, targets)
        report = evaluate(qrels, run, sorted(set(labels.values())), profile=profile, **kw)
        got.update({lab: report.mean[m] for lab, m in labels.items()})
    return expected, got


def test_recorded_file_says_what_it_holds():
    assert RECORDED["versions"] == {
        "xgboost": "3.2.0", "lightgbm": "4.7.0", "catboost": "1.2.10", "numpy": "2.4.6"
    }  # fmt: skip
    assert len(CASES) == 4
    for case in CASES.values():
        assert set(case["values"]) == set(LIBRARIES)
        assert 0 in case["grades"] and 4 in case["grades"]
        # CatBoost on probabilities: the grades / 4, a target of 0.5 at the default border
        quarters = [k for k in case["values"]["catboost"] if k.endswith("|quarters")]
        assert len(quarters) == 53 and 2 in case["grades"]
        # some group has no relevant document, and most have tied scores
        starts = [sum(case["groups"][:g]) for g in range(len(case["groups"]))]
        spans = [range(s, s + n) for s, n in zip(starts, case["groups"], strict=True)]
        assert any(all(case["grades"][i] == 0 for i in span) for span in spans)
        tied = [len({case["scores"][i] for i in span}) < len(span) for span in spans]
        assert sum(tied) > len(spans) / 2


@pytest.mark.parametrize("library", LIBRARIES)
@pytest.mark.parametrize("seed", sorted(CASES))
def test_profile_reproduces_every_recorded_value(library, seed):
    expected, got = _evaluated(library, CASES[seed], profile=library)
    wrong = {k: (got[k], v) for k, v in expected.items() if abs(got[k] - v) > 1e-12}
    assert not wrong, f"{len(wrong)} of {len(expected)} differ: {wrong}"


@pytest.mark.parametrize("library", LIBRARIES)
def test_receval_defaults_differ_from_each_library(library):
    expected, got = _evaluated(library, CASES[1], profile=None)
    wrong = [k for k, v in expected.items() if abs(got[k] - v) > 1e-12]
    assert len(wrong) > len(expected) / 2


def test_catboost_orders_ties_by_grade_ascending():
    # the profile's ties="worst" is what reproduces CatBoost on tied scores
    expected, got = _evaluated("catboost", CASES[1], profile="catboost", ties="input")
    assert sum(abs(got[k] - v) > 1e-12 for k, v in expected.items()) > len(expected) / 2


def test_xgboost_minus_names_score_empty_groups_zero():
    case = CASES[2]
    _, got = _evaluated("xgboost", case, profile="xgboost")
    n_groups = len(case["groups"])
    starts = [sum(case["groups"][:g]) for g in range(n_groups)]
    n_empty = sum(
        all(case["grades"][i] == 0 for i in range(s, s + n))
        for s, n in zip(starts, case["groups"], strict=True)
    )
    assert n_empty > 0
    for k in RECORDED["cut_offs"]:
        assert got[f"ndcg@{k}"] - got[f"ndcg@{k}-"] == pytest.approx(n_empty / n_groups)


@pytest.mark.parametrize(
    ("library", "labels"),
    [
        ("lightgbm", ["ndcg@3", "map@5"]),
        ("xgboost", ["ndcg@3", "ndcg@3-"]),
        ("catboost", ["NDCG:top=3;type=Exp", "PrecisionAt:top=5", "MRR"]),
    ],
)
def test_command_line_profile_reproduces_the_library(library, labels, tmp_path):
    from ..cli._helpers import invoke, make_runner

    case = CASES[3]
    qrels, run = _inputs(case)
    qrels_file, run_file = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels_file.write_text("".join(f"{u} 0 {d} {g}\n" for u, docs in qrels.items()
                                  for d, g in docs.items()))  # fmt: skip
    run_file.write_text("".join(f"{u} Q0 {d} {i + 1} {s!r} r\n" for u, docs in run.items()
                                for i, (d, s) in enumerate(docs.items())))  # fmt: skip
    args = [x for label in labels for x in ("-m", label)]
    result = invoke(make_runner(), "rank", "--qrels", qrels_file, "--run", run_file, *args,
                    "--profile", library, "--format", "json")  # fmt: skip
    record = json.loads(result.stdout)[0]
    for label in labels:
        assert record[label] == pytest.approx(case["values"][library][label], abs=1e-12)


def test_command_line_reads_probability_targets(tmp_path):
    from ..cli._helpers import invoke, make_runner

    case = CASES[2]
    qrels, run = _inputs(case, "quarters")
    qrels_file, run_file = tmp_path / "qrels.csv", tmp_path / "run.csv"
    qrels_file.write_text("user,item,grade\n" + "".join(
        f"{u},{d},{g!r}\n" for u, docs in qrels.items() for d, g in docs.items()))  # fmt: skip
    run_file.write_text("user,item,score\n" + "".join(
        f"{u},{d},{s!r}\n" for u, docs in run.items() for d, s in docs.items()))  # fmt: skip
    labels = ["PFound:top=5", "ERR:top=3", "NDCG:type=Exp", "PrecisionAt:top=3;border=0.25"]
    args = [x for label in labels for x in ("-m", label)]
    result = invoke(make_runner(), "rank", "--qrels", qrels_file, "--run", run_file, *args,
                    "--profile", "catboost", "--format", "json")  # fmt: skip
    record = json.loads(result.stdout)[0]
    for label in labels:
        expected = case["values"]["catboost"][f"{label}|quarters"]
        assert record[label] == pytest.approx(expected, abs=1e-12)
    # a real threshold on the command line: CatBoost's border 0.25 is "above 0.25"
    result = invoke(make_runner(), "rank", "--qrels", qrels_file, "--run", run_file, "-m",
                    "precision@3", "--profile", "catboost", "--rel-threshold",
                    "0.25000000000000006", "--format", "json")  # fmt: skip
    expected = case["values"]["catboost"]["PrecisionAt:top=3;border=0.25|quarters"]
    assert json.loads(result.stdout)[0]["precision@3"] == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(
    ("library", "label"),
    [("lightgbm", "ndcg@3"), ("xgboost", "ndcg@3-"), ("catboost", "NDCG:top=3;type=Exp")],
)
def test_accumulator_with_the_profile_reproduces_the_library(library, label):
    from receval import metric

    case = CASES[1]
    qrels, run = _inputs(case)
    users = list(qrels)
    acc = metric(label, profile=library)
    for part in (users[:12], users[12:]):  # two updates of whole groups
        acc.update({u: qrels[u] for u in part}, {u: run[u] for u in part})
    assert acc.compute() == pytest.approx(case["values"][library][label], abs=1e-12)


#: CatBoost's grouped metrics that are receval pointwise metrics with groups: the options
#: of xauc_score, and the targets (the grades, / 4, or above 0)
_GROUPED = {
    "QueryAUC:type=Ranking": ({}, "grades"),
    "QueryAUC:type=Classic|quarters": ({"targets": "probabilities"}, "quarters"),
    "QueryAUC:type=Classic;use_weights=true|weighted": ({"targets": "probabilities"}, "quarters"),
    "QueryAUC|binary": ({"targets": "probabilities"}, "binary"),
}


def _grouped_case(case: dict, targets: str) -> tuple[list, list]:
    groups = [g for g, size in enumerate(case["groups"]) for _ in range(size)]
    grades = case["grades"]
    if targets == "quarters":
        return [x / 4 for x in grades], groups
    return ([float(x > 0) for x in grades] if targets == "binary" else grades), groups


@pytest.mark.parametrize("seed", sorted(CASES))
@pytest.mark.parametrize("label", sorted(_GROUPED))
def test_catboost_grouped_metrics_reproduced(label, seed):
    from receval import metric, xauc_score

    case = CASES[seed]
    options, targets = _GROUPED[label]
    y, groups = _grouped_case(case, targets)
    w = case["grouped"]["weights"] if label.endswith("|weighted") else None
    expected = case["grouped"]["catboost"][label]
    got = xauc_score(y, case["scores"], groups=groups, weighting="uniform", empty_groups="zero",
                     sample_weight=w, **options)  # fmt: skip
    assert got == pytest.approx(expected, abs=1e-12)
    # CatBoost's own spelling, as a metric string of an accumulator
    acc = metric(label.partition("|")[0]).update(y, case["scores"], groups=groups,
                                                 sample_weight=w)  # fmt: skip
    assert acc.compute() == got
    # CatBoost averages a 0 for every group without a pair
    skipped = xauc_score(y, case["scores"], groups=groups, weighting="uniform",
                         sample_weight=w, **options)  # fmt: skip
    assert abs(skipped - expected) > 1e-3


def test_catboost_classic_query_auc_is_not_the_ranking_one():
    # on the binary labels the two types differ only in a row's two halves: none here
    case = CASES[1]
    y, groups = _grouped_case(case, "binary")
    ranking = xauc_score_of(y, case["scores"], groups)
    assert ranking == pytest.approx(case["grouped"]["catboost"]["QueryAUC|binary"], abs=1e-12)
    # on probabilities, the continuous reading (pairs of different targets) is another number
    y, groups = _grouped_case(case, "quarters")
    assert abs(xauc_score_of(y, case["scores"], groups)
               - case["grouped"]["catboost"]["QueryAUC:type=Classic|quarters"]) > 1e-3  # fmt: skip


def xauc_score_of(y, scores, groups):
    from receval import xauc_score

    return xauc_score(y, scores, groups=groups, weighting="uniform", empty_groups="zero")


def test_catboost_query_auc_types_read():
    from receval import metric
    from receval.exceptions import InvalidParameterError
    from receval.registry.peers import catboost_metric

    classic = "grouped_xauc(targets=probabilities,weighting=uniform,empty_groups=zero)"
    assert catboost_metric("QueryAUC") == catboost_metric("QueryAUC:type=Classic") == classic
    with pytest.raises(InvalidParameterError, match="QueryAUC takes type=Classic"):
        metric("QueryAUC:type=Other")


#: XGBoost's ``auc`` of query groups: every pair of a group of 3 rows or more, pairs of
#: equal labels in input order, the groups' mean
_XGBOOST_AUC = dict(equal_targets="input_order", weighting="uniform", min_rows=3)


@pytest.mark.parametrize("seed", sorted(CASES))
def test_xgboost_grouped_auc_reproduced(seed):
    from receval import metric, xauc_score

    case = CASES[seed]
    expected = case["grouped"]["xgboost"]["auc"]
    y, groups = _grouped_case(case, "grades")
    got = xauc_score(y, case["scores"], groups=groups, **_XGBOOST_AUC)
    assert got == pytest.approx(expected, abs=1e-12)
    string = "grouped_xauc(equal_targets=input_order,weighting=uniform,min_rows=3)"
    users = sorted(set(groups))
    acc = metric(string)
    for part in (users[:10], users[10:]):  # whole groups per update, in their order
        rows = [i for i, g in enumerate(groups) if g in part]
        acc.update([y[i] for i in rows], [case["scores"][i] for i in rows],
                   groups=[groups[i] for i in rows])  # fmt: skip
    assert acc.compute() == got
    # what each of the three choices changes
    for other in ({"equal_targets": "skip"}, {"min_rows": 1}):
        changed = xauc_score(y, case["scores"], groups=groups, **(_XGBOOST_AUC | other))
        assert abs(changed - expected) > 1e-4, other
    # the order of a group's rows is part of the value: reversed, the pairs of equal
    # labels flip
    back = [i for g in users for i in reversed([j for j, h in enumerate(groups) if h == g])]
    reversed_value = xauc_score([y[i] for i in back], [case["scores"][i] for i in back],
                                groups=[groups[i] for i in back], **_XGBOOST_AUC)  # fmt: skip
    assert abs(reversed_value - expected) > 1e-4


@pytest.mark.parametrize("seed", sorted(CASES))
def test_xgboost_aucpr_over_query_groups_reproduced(seed):
    from receval import grouped_auprc_score, metric

    case = CASES[seed]
    expected = case["grouped"]["xgboost"]["aucpr"]
    groups = [g for g, size in enumerate(case["groups"]) for _ in range(size)]
    labels = [int(x > 0) for x in case["grades"]]
    got = grouped_auprc_score(labels, case["scores"], groups=groups,
                              interpolation="davis_goadrich", skip_groups="one_class")  # fmt: skip
    assert got == pytest.approx(expected, abs=1e-12)
    # XGBoost's spelling, as a metric string of an accumulator over two updates
    acc = metric("aucpr")
    half = len(labels) // 2
    acc.update(labels[:half], case["scores"][:half], groups=groups[:half])
    acc.update(labels[half:], case["scores"][half:], groups=groups[half:])
    assert acc.compute() == got
    # each option alone is not XGBoost's: the step-wise area, and groups of positives only
    for options in ({"skip_groups": "one_class"}, {"interpolation": "davis_goadrich"}):
        other = grouped_auprc_score(labels, case["scores"], groups=groups, **options)
        assert abs(other - expected) > 1e-6

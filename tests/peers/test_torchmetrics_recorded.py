"""torchmetrics held to its word: its literal expectations, and values recorded from the library.

torchmetrics needs PyTorch, too heavy for a test dependency, so nothing here imports it:

* ``data/torchmetrics_suite.json``: the literal values torchmetrics' own doctests and tests
  assert (tag v1.9.0), compared at the precision they assert;
* ``data/recorded_torchmetrics.json``: values computed by the real library on seeded random
  cases by ``record_torchmetrics.py`` (run by hand; its docstring says how to regenerate the
  file and what every field means). torchmetrics computes in float32, so recorded values are
  compared at ``abs=1e-6``.

One torchmetrics query (one ``indexes`` value) is one receval user; a row's position in the
batch is its item id, so receval's ``ties="input"`` is the input order. torchmetrics' own order
of tied scores is not the input order: ``RetrievalMetric.compute`` groups the rows with
``torch.sort(indexes)``, which is not stable, then ranks with ``torch.topk`` /
``torch.argsort``, so a value that depends on the order of tied scores depends on torch's
sorting algorithm. Hence the ``input_ties`` variant (distinct scores ranking by score, then
input position, with the same signs) is compared for every case, and the case's own scores
only for NDCG (which averages ties) and where torchmetrics' value equals its ``input_ties``
value. receval's ``empty_users`` maps ``empty_target_action``: neg -> "zero",
skip -> "skip", pos -> "one", error -> "error". ``profile="torchmetrics"`` warns
(``TieOrderWarning``) exactly on the case's own scores where a query has tied scores; the
tie-free variants must not warn. NDCG is also recorded on float targets: fractional ones are
compared as they are; negative ones (torchmetrics gains them, receval does not) are compared
with the values recorded with each negative target set to 0.
"""

from __future__ import annotations

import functools
import json
import math
import warnings
from pathlib import Path

import numpy as np
import pytest

from receval import evaluate, expected_calibration_error, gauc_score, group_auc, roc_auc_score
from receval.exceptions import InputValidationError, TieOrderWarning

DATA = Path(__file__).parent / "data"
SUITE = json.loads((DATA / "torchmetrics_suite.json").read_text())
RECORDED = json.loads((DATA / "recorded_torchmetrics.json").read_text())
CASES = {case["id"]: case for case in RECORDED["ranking"]}

F32 = 1e-6  # torchmetrics computes in float32

# torchmetrics metric (as recorded) -> receval metric name; cut-off appended as "@k"
RECEVAL = {
    "precision": "precision",
    "recall": "recall",
    "map": "map",
    "mrr": "mrr",
    "ndcg": "ndcg",
    "hit_rate": "success",
    "r_precision": "r_precision",
}
EMPTY_USERS = {"neg": "zero", "skip": "skip", "pos": "one", "error": "error"}


def _differs(a, b):
    """True when two recorded outcomes (a float, or "raises: ...") are not the same."""
    if isinstance(a, str) or isinstance(b, str):
        return a != b
    return abs(a - b) > F32


def _lists_differ(a, b):
    return any(_differs(x, y) for x, y in zip(a, b, strict=True))


def _metric_string(entry):
    name = RECEVAL[entry["metric"]]
    return name if entry["k"] is None else f"{name}@{entry['k']}"


def _inputs(case, preds):
    """qrels and run of a case: query ``q<index>``, item ``d<row position>``."""
    qrels, run = {}, {}
    rows = zip(case["indexes"], preds, case["target"], strict=True)
    for pos, (query, score, grade) in enumerate(rows):
        qrels.setdefault(f"q{query}", {})[f"d{pos:03d}"] = grade
        run.setdefault(f"q{query}", {})[f"d{pos:03d}"] = score
    return qrels, run


PREDS = {"scores": "preds", "input_ties": "preds_input_ties", "positive": "preds_positive"}


def _evaluate_tie_warned(qrels, run, metrics, **conventions):
    """``evaluate(profile="torchmetrics")`` (its report, or the exception it raised) and
    whether it emitted a TieOrderWarning; the other warnings go on as usual."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", TieOrderWarning)
        try:
            report = evaluate(qrels, run, metrics, profile="torchmetrics", **conventions)
        except Exception as err:  # the caller decides what was expected
            report = err
    for w in caught:
        if not issubclass(w.category, TieOrderWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return report, any(issubclass(w.category, TieOrderWarning) for w in caught)


@functools.cache
def _evaluate_warned(case_id, variant, action):
    """receval on one case and score variant, every compared metric at once, and whether it
    warned of ties (recorded here: the result is cached, so the warning comes once)."""
    case = CASES[case_id]
    qrels, run = _inputs(case, case[PREDS[variant]])
    metrics = [_metric_string(e) for e in case["results"] if e["metric"] in RECEVAL]
    return _evaluate_tie_warned(qrels, run, metrics, empty_users=EMPTY_USERS[action])


def _evaluate(case_id, variant, action):
    """The report (or the exception raised); only the case's own scores have ties."""
    report, tie_warned = _evaluate_warned(case_id, variant, action)
    if variant != "scores":
        assert not tie_warned, "a tie-free variant got a TieOrderWarning"
    return report


def _check_mean(case_id, variant, action, entry, expected):
    got = _evaluate(case_id, variant, action)
    if isinstance(expected, str):  # torchmetrics raised: a query without a positive
        assert expected.startswith("raises: ")
        assert isinstance(got, InputValidationError), got
        return
    if isinstance(got, Exception):
        raise got
    assert got.mean[_metric_string(entry)] == pytest.approx(expected, abs=F32)


def _compared_cases():
    """The recorded cases compared as they are: not those with negative targets, which
    torchmetrics gains as they are (see test_negative_targets_earn_no_gain)."""
    return [case for case in RECORDED["ranking"] if case["target_kind"] != "negative"]


def _ranking_params(variant):
    """(case, metric entry, action, expected value) of one score variant."""
    params = []
    for case in _compared_cases():
        for entry in case["results"]:
            if entry["metric"] not in RECEVAL:
                continue
            for action in RECORDED["empty_target_actions"]:
                expected = entry[variant][action]
                ties_matter = _differs(expected, entry["input_ties"][action])
                if variant == "scores" and ties_matter and entry["metric"] != "ndcg":
                    continue  # the value depends on torch's order of tied rows
                params.append(
                    pytest.param(
                        case["id"],
                        entry,
                        action,
                        expected,
                        id=f"{case['id']}-{_metric_string(entry)}-{action}",
                    )
                )
    return params


@pytest.mark.parametrize(("case_id", "entry", "action", "expected"), _ranking_params("input_ties"))
def test_recorded_mean_ties_in_input_order(case_id, entry, action, expected):
    """Every case, on distinct scores that rank as the case's scores with ties in input order."""
    _check_mean(case_id, "input_ties", action, entry, expected)


@pytest.mark.parametrize(("case_id", "entry", "action", "expected"), _ranking_params("scores"))
def test_recorded_mean_own_scores(case_id, entry, action, expected):
    """The case's own (tied, signed) scores: NDCG always, the others where torchmetrics' value
    does not depend on torch's order of tied rows (it equals the input-order value)."""
    _check_mean(case_id, "scores", action, entry, expected)


def _has_tied_scores(case):
    """Whether two rows of one query have the same score."""
    rows = set(zip(case["indexes"], case["preds"], strict=True))
    return len(rows) < len(case["preds"])


@pytest.mark.parametrize("case_id", list(CASES))
def test_tie_order_warning_only_on_tied_scores(case_id):
    """The case's own scores warn exactly where a query has tied scores and a metric other
    than NDCG is compared (NDCG averages ties, reproduced); the tie-free variants never warn."""
    case = CASES[case_id]
    not_ndcg = any(e["metric"] in RECEVAL and e["metric"] != "ndcg" for e in case["results"])
    expected = _has_tied_scores(case) and not_ndcg
    assert _evaluate_warned(case_id, "scores", "neg")[1] == expected
    assert not _evaluate_warned(case_id, "input_ties", "neg")[1]
    assert not _evaluate_warned(case_id, "positive", "neg")[1]


def test_recorded_values_depend_on_tie_order_only_where_scores_tie():
    """The own-score comparisons leave out the values that differ from the input-order ones
    (torch's order of tied rows decides them). Such a value must come from a case with tied
    scores, and there are such values (torchmetrics' tie order is not the input order)."""
    dependent = [
        (case["id"], _metric_string(entry), action)
        for case in RECORDED["ranking"]
        for entry in case["results"]
        if entry["metric"] in RECEVAL and entry["metric"] != "ndcg"
        for action in RECORDED["empty_target_actions"]
        if _differs(entry["scores"][action], entry["input_ties"][action])
    ]
    assert dependent
    assert all(_has_tied_scores(CASES[case_id]) for case_id, _, _ in dependent)
    # RetrievalMetric.compute's torch.sort(indexes) reorders the rows of a query
    assert not all(case["sort_of_indexes_is_stable"] for case in RECORDED["ranking"])


def _per_query_params():
    params = []
    for case in _compared_cases():
        for entry in case["results"]:
            if entry["metric"] not in RECEVAL:
                continue
            for variant in ("input_ties", "positive", "scores"):
                expected = entry[variant]["per_query"]
                ties_matter = _lists_differ(expected, entry["input_ties"]["per_query"])
                if variant == "scores" and ties_matter and entry["metric"] != "ndcg":
                    continue  # the values depend on torch's order of tied rows
                params.append(
                    pytest.param(
                        case["id"],
                        entry,
                        variant,
                        id=f"{case['id']}-{_metric_string(entry)}-{variant}",
                    )
                )
    return params


@pytest.mark.parametrize(("case_id", "entry", "variant"), _per_query_params())
def test_recorded_per_query(case_id, entry, variant):
    """Each query's value (the functional metric; 0 for a query without a positive, as
    empty_users='zero')."""
    case = CASES[case_id]
    report = _evaluate(case_id, variant, "neg")
    if isinstance(report, Exception):
        raise report
    values = dict(zip(report.users.tolist(), report.values[_metric_string(entry)], strict=True))
    got = [values[f"q{q}"] for q in case["queries"]]
    assert got == pytest.approx(entry[variant]["per_query"], abs=F32)


def _float_target_queries(case):
    """Per query of a case, its targets."""
    targets = {}
    for query, grade in zip(case["indexes"], case["target"], strict=True):
        targets.setdefault(query, []).append(grade)
    return targets


def test_fractional_cases_hold_queries_with_every_target_below_one():
    """The fractional cases exercise NDCG's empty queries: a query whose positive targets are
    all below 1 (0.25, 0.3, 0.5) is not one without a positive (empty_target_action applies to
    a query whose targets are all 0), and such queries are recorded."""
    below_one = [
        (case["id"], query)
        for case in RECORDED["ranking"]
        if case["target_kind"] == "fractional"
        for query, grades in _float_target_queries(case).items()
        if 0 < max(grades) < 1
    ]
    assert len({case_id for case_id, _ in below_one}) >= 3, below_one


@pytest.mark.parametrize(
    "case_id", [c["id"] for c in RECORDED["ranking"] if c["target_kind"] == "negative"]
)
def test_negative_targets_earn_no_gain(case_id):
    """torchmetrics gains a negative target as it is (NDCG below 0 or above 1; a query whose
    targets sum to 0 is taken for one without a positive). receval gives a negative grade no
    gain: on these cases it gives what torchmetrics gives with each negative target set to 0
    (the recorded ``_as_zero`` case), which differs from torchmetrics' own value."""
    case, as_zero = CASES[case_id], CASES[f"{case_id}_as_zero"]
    assert as_zero["target"] == [max(t, 0.0) for t in case["target"]]
    assert as_zero["preds"] == case["preds"]
    differs = False
    for entry, zeroed in zip(case["results"], as_zero["results"], strict=True):
        assert (
            (entry["metric"], entry["k"]) == (zeroed["metric"], zeroed["k"]) == ("ndcg", entry["k"])
        )
        for variant in PREDS:
            for action in RECORDED["empty_target_actions"]:
                _check_mean(case_id, variant, action, entry, zeroed[variant][action])
                differs |= _differs(entry[variant][action], zeroed[variant][action])
            report = _evaluate(case_id, variant, "neg")
            values = dict(
                zip(report.users.tolist(), report.values[_metric_string(entry)], strict=True)
            )
            got = [values[f"q{q}"] for q in case["queries"]]
            assert got == pytest.approx(zeroed[variant]["per_query"], abs=F32)
    assert differs


def _auroc_params():
    return [
        pytest.param(case["id"], entry, id=case["id"])
        for case in RECORDED["ranking"]
        for entry in case["results"]
        if entry["metric"] == "auroc"
    ]


@pytest.mark.parametrize(("case_id", "entry"), _auroc_params())
def test_recorded_auroc_per_query(case_id, entry):
    """retrieval_auroc of each query equals group_auc's AUC of that group (ties count 1/2 in
    both). A query with one class only is undefined in group_auc (nan), where torchmetrics
    returns 0 (functional/retrieval/auroc.py:60-61)."""
    case = CASES[case_id]
    report = group_auc(case["target"], case["preds"], groups=case["indexes"], weighting="uniform")
    auc = dict(zip(report.groups.tolist(), report.auc.tolist(), strict=True))
    got = [auc[q] for q in case["queries"]]
    one_class = {
        q
        for q in case["queries"]
        if len({t for i, t in zip(case["indexes"], case["target"], strict=True) if i == q}) == 1
    }
    expected = [
        math.nan if q in one_class else value
        for q, value in zip(case["queries"], entry["scores"]["per_query"], strict=True)
    ]
    assert all(entry["scores"]["per_query"][case["queries"].index(q)] == 0.0 for q in one_class)
    assert got == pytest.approx(expected, abs=F32, nan_ok=True)


# Binning the recorded probabilities as torchmetrics does (torch.bucketize(p, edges,
# right=True) - 1 over torch.linspace(0, 1, n_bins + 1) in p's dtype, n_bins + 1 bins: p == 1.0
# in a bin of its own, as in ones_and_upper_bin) reproduces every recorded value. These cases
# differ from float64 edges (p on a float32 edge below the float64 one goes up): float32 input.
FLOAT32_EDGE_CASES = {("grid_0", 10), ("grid_1", 20), ("grid_3", 10), ("grid_3", 20)}
# torch.linspace computes i * step below the middle and 1 - (n_bins - i) * step above, in
# float32; np.linspace(dtype=float32) rounds i / n_bins: for 20 bins the edge 0.45 is
# 0.45000002 in torch, 0.44999999 (= float32(0.45), a grid value) in numpy
TORCH_LINSPACE = (
    "issue 13: bin_edge='upper' takes float32 edges from np.linspace, not torch.linspace "
    "(i * step): 20 bins, edge 0.45 is 0.44999999 here, 0.45000002 in torch"
)
TORCH_LINSPACE_CASES: set[tuple[str, int]] = set()  # fixed: _torch_linspace


def _calibration_params():
    params = []
    for case in RECORDED["calibration"]:
        for n_bins, values in case["values"].items():
            marks = []
            if (case["id"], int(n_bins)) in TORCH_LINSPACE_CASES:
                marks = [pytest.mark.xfail(strict=True, reason=TORCH_LINSPACE)]
            params.append(
                pytest.param(
                    case, int(n_bins), values["l1"], id=f"{case['id']}-{n_bins}", marks=marks
                )
            )
    return params


def _probabilities(case):
    """The recorded probabilities in torchmetrics' dtype: float32 (float64 where stated)."""
    return np.asarray(
        case["preds"], dtype=np.float64 if case.get("dtype") == "float64" else np.float32
    )


@pytest.mark.parametrize(("case", "n_bins", "expected"), _calibration_params())
def test_recorded_calibration_error(case, n_bins, expected):
    """binary_calibration_error (norm l1) on the recorded probabilities, in their dtype: float32
    probabilities are binned on float32 edges, as torchmetrics does."""
    got = expected_calibration_error(
        case["target"], _probabilities(case), n_bins=n_bins, bin_edge="upper"
    )
    assert got == pytest.approx(expected, abs=F32)


def test_float32_edge_cases_need_float32_edges():
    """The cases above where the dtype decides: as float64, their value is another."""
    cases = {case["id"]: case for case in RECORDED["calibration"]}
    for case_id, n_bins in sorted(FLOAT32_EDGE_CASES):
        case = cases[case_id]
        assert _probabilities(case).dtype == np.float32
        expected = case["values"][str(n_bins)]["l1"]
        as_doubles = np.asarray(case["preds"], dtype=np.float64)
        got = expected_calibration_error(
            case["target"], as_doubles, n_bins=n_bins, bin_edge="upper"
        )
        assert got != pytest.approx(expected, abs=F32), (case_id, n_bins)


# ------------------------------------------------------------------ torchmetrics' own literals

SUITE_METRICS = {
    "RetrievalPrecision": "precision",
    "retrieval_precision": "precision",
    "RetrievalRecall": "recall",
    "retrieval_recall": "recall",
    "RetrievalMAP": "map",
    "retrieval_average_precision": "map",
    "RetrievalMRR": "mrr",
    "retrieval_reciprocal_rank": "mrr",
    "RetrievalNormalizedDCG": "ndcg",
    "retrieval_normalized_dcg": "ndcg",
    "RetrievalHitRate": "success",
    "retrieval_hit_rate": "success",
    "RetrievalRPrecision": "r_precision",
    "retrieval_r_precision": "r_precision",
}


def _suite_inputs(case):
    return _inputs(case, case["preds"])


def _suite_evaluate(case, names, **conventions):
    """receval's report on a suite case. The docstring examples have no tied scores and must
    not warn; the all-zero-predictions tests tie every score, which warns (though their value,
    0, depends on no order: no item scored <= 0 is a hit)."""
    qrels, run = _suite_inputs(case)
    report, tie_warned = _evaluate_tie_warned(qrels, run, names, **conventions)
    if isinstance(report, Exception):
        raise report
    tied = _has_tied_scores(case)
    assert tie_warned == (tied and any(not n.startswith("ndcg") for n in names)), tied
    return report


@pytest.mark.parametrize("case", [pytest.param(c, id=c["id"]) for c in SUITE["retrieval"]])
def test_suite_retrieval(case):
    metric, kwargs = case["metric"], case["kwargs"]
    if metric == "RetrievalAUROC":  # mean over queries of each query's AUC
        got = gauc_score(case["target"], case["preds"], groups=case["indexes"], weighting="uniform")
        assert got == pytest.approx(case["expected"], abs=case["abs"])
        return
    if metric == "retrieval_auroc":
        got = roc_auc_score(case["target"], case["preds"])
        assert got == pytest.approx(case["expected"], abs=case["abs"])
        return
    if "PrecisionRecallCurve" in metric or "precision_recall_curve" in metric:
        ks = case["expected"]["top_k"]
        names = [f"precision@{k}" for k in ks] + [f"recall@{k}" for k in ks]
        report = _suite_evaluate(case, names)
        assert [report.mean[f"precision@{k}"] for k in ks] == pytest.approx(
            case["expected"]["precisions"], abs=case["abs"]
        )
        assert [report.mean[f"recall@{k}"] for k in ks] == pytest.approx(
            case["expected"]["recalls"], abs=case["abs"]
        )
        return
    name = SUITE_METRICS[metric]
    if kwargs.get("top_k") is not None:
        name = f"{name}@{kwargs['top_k']}"
    report = _suite_evaluate(case, [name])
    assert report.mean[name] == pytest.approx(case["expected"], abs=case["abs"])


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(c, id=c["id"])
        for c in SUITE["retrieval"]
        if c["metric"] in SUITE_METRICS and c["id"].startswith("doc_Retrieval")
    ],
)
def test_suite_retrieval_error_action_without_empty_queries(case):
    """The docstring examples have a positive in every query: empty_target_action='error'
    gives the same value."""
    name = SUITE_METRICS[case["metric"]]
    if case["kwargs"].get("top_k") is not None:
        name = f"{name}@{case['kwargs']['top_k']}"
    report = _suite_evaluate(case, [name], empty_users="error")
    assert report.mean[name] == pytest.approx(case["expected"], abs=case["abs"])


@pytest.mark.parametrize(
    "case",
    [pytest.param(c, id=c["id"]) for c in SUITE["calibration"]],
)
def test_suite_calibration(case):
    assert case["kwargs"]["norm"] == "l1"
    preds = np.asarray(case["preds"], dtype=np.float32)  # torch.tensor's default dtype
    got = expected_calibration_error(
        case["target"], preds, n_bins=case["kwargs"]["n_bins"], bin_edge="upper"
    )
    assert got == pytest.approx(case["expected"], abs=case["abs"])

"""Many segments: ``compare_by_segment`` groups the users once.

Each segment's comparison is :func:`receval.compare` on the segment's users
alone, to the bit, with segments of one or a few users; each report's segments
are cut from one grouping of its users (``EvaluationReport.subsets``), whose
reports are those ``evaluate`` gives on each segment's users alone, not one
mask over every user per segment. Its errors name its argument ``by``.
"""

import re

import numpy as np
import pandas as pd
import pytest

import receval as rv
from receval._kernels import compiled
from receval.exceptions import InputValidationError
from tests.segments._random import of_users, random_inputs

pytestmark = [
    pytest.mark.filterwarnings("ignore::receval.exceptions.UndefinedMetricWarning"),
    pytest.mark.filterwarnings("ignore::receval.exceptions.TieOrderWarning"),
    pytest.mark.filterwarnings("ignore::receval.exceptions.UnmatchedIdsWarning"),
]

# a mean, a pooled ratio (weighted users), a geometric mean
METRICS = ["ndcg@3", "recall@2", "mrr", "pooled_hit_ratio@2", "gm_map"]
RULES = [
    {},
    {"missing_users": "skip", "empty_users": "skip", "zero_users": "skip"},
    {"missing_users": "zero", "empty_users": "skip", "zero_users": "keep", "ties": "worst"},
]
SETTINGS = {"n_permutations": 199, "n_resamples": 199}


def _data(seed: int, n_users: int, n_labels: int) -> tuple[dict, dict, dict]:
    """Qrels, three runs missing some users, with tied scores, and segments of a few
    users each (some users in none)."""
    qrels, runs, segments = random_inputs(seed, n_users, range(n_labels), n_runs=3)
    return qrels, dict(zip("xyz", runs, strict=True)), segments


@pytest.mark.parametrize("rules", RULES)
@pytest.mark.parametrize("seed", range(2))
def test_each_segment_compares_as_compare_on_its_users(seed, rules):
    qrels, runs, segments = _data(seed, 200, 40)
    seg = rv.compare_by_segment(qrels, runs, METRICS, by=segments, **SETTINGS, **rules)
    assert len(seg.segments) > 30 and seg.n_unassigned == len(qrels) - len(segments)
    for i, label in enumerate(seg.segments.tolist()):
        users = [u for u in qrels if segments.get(u) == label]
        alone = rv.compare({u: qrels[u] for u in users},
                           {name: of_users(run, users) for name, run in runs.items()}, METRICS,
                           allow_unmatched=True, **SETTINGS, **rules)  # fmt: skip
        assert seg.counts[i] == len(users)
        # the same floats: the segment's means from the exact sums of its users
        np.testing.assert_equal(seg.reports[i].means, alone.means, err_msg=str(label))
        np.testing.assert_equal(seg.reports[i].comparisons, alone.comparisons, err_msg=str(label))


@pytest.mark.parametrize("rules", RULES)
def test_subsets_are_the_reports_of_each_segment_alone(rules):
    qrels, runs, segments = _data(2, 120, 30)
    metrics = [*METRICS, "P@3"]  # P@3 of tied scores: tie-dependent users
    report = rv.evaluate(qrels, runs["x"], metrics, allow_unmatched=True, **rules)
    seg = report.by_segment(segments)
    codes = np.array([seg.segments.tolist().index(segments[u]) if u in segments else -1
                      for u in report.users])  # fmt: skip
    order = np.argsort(np.where(codes < 0, len(seg.segments), codes), kind="stable")
    offsets = np.concatenate([[0], np.cumsum(seg.counts)])
    parts = report.subsets((offsets, order[: offsets[-1]]))
    assert len(parts) == len(seg.segments)
    assert sum(p.n_users_tie_dependent["P@3"] for p in parts) > 0
    for part, label in zip(parts, seg.segments.tolist(), strict=True):
        users = [u for u in qrels if segments.get(u) == label]
        alone = rv.evaluate(of_users(qrels, users), of_users(runs["x"], users), metrics,
                            allow_unmatched=True, **rules)  # fmt: skip
        assert part.users.tolist() == alone.users.tolist() == users
        for name in (
            "mean",
            "values",
            "n_users",
            "n_users_missing",
            "n_users_empty",
            "n_users_skipped_by",
            "n_users_tie_dependent",
            "mean_ties_average",
        ):
            np.testing.assert_equal(getattr(part, name), getattr(alone, name),
                                    err_msg=f"{label} {name}")  # fmt: skip


def test_segments_are_compared_from_one_grouping(monkeypatch):
    # each segment was a mask over every user, and its own sums per metric and run:
    # segments x users x metrics work
    qrels, runs, segments = _data(0, 300, 150)
    reports = {name: rv.evaluate(qrels, run, METRICS) for name, run in runs.items()}
    core, calls = compiled(), []  # the core's exact sums, counted
    for name in ("exact_sum", "exact_sums"):
        kernel = getattr(core, name)
        monkeypatch.setattr(
            core, name, lambda *a, _k=kernel, _n=name, **kw: calls.append(_n) or _k(*a, **kw)
        )
    seg = rv.compare_by_segment(None, reports, METRICS, by=segments, **SETTINGS)
    assert len(seg.segments) > 100
    # per metric and run, its means and its means with ties averaged, whatever the segments
    assert len(calls) <= 2 * len(METRICS) * len(reports)


QRELS = {f"u{i}": {"a": 1} for i in range(4)}
RUNS = {"x": {u: {"a": 0.9} for u in QRELS}, "y": {u: {"a": 0.1} for u in QRELS}}


@pytest.mark.parametrize(
    ("by", "said"),
    [
        (pd.DataFrame({"user": ["u1"], "segment": ["a"], "other": [1]}),
         "by as a frame must have two columns (user, segment). Got columns ['user', "
         "'segment', 'other']."),
        (["a", "b"],
         "by must be a mapping of users, a frame (user, segment) or one label per user of "
         "the report. Got 2 labels for 4 users."),
        (pd.DataFrame({"user": ["u1", "u2", "u1"], "segment": ["a", "b", "a"]}),
         "by names the user 'u1' twice, the second time at position 2; give each user one "
         "segment."),
        ({"u1": "a", 2: "b"},
         "by must hold ids of one type (numbers or strings, not both). Got types ['int', "
         "'str']; convert them, e.g. by = by.astype(str)."),
        (["a", None, "b", "a"],
         "by must give every user a segment label. Got 1 missing label (None, NaN or null), "
         "the first at position 1; fill them with a label, e.g. 'unknown', or give by as a "
         "mapping {user: label} without those users."),
        ({"u1": "a", "u2": None},
         "by must give every user it names a segment label. Got 1 missing label (None, NaN "
         "or null), the first for the user 'u2'; give those users a label, or leave them out "
         "of by (a user without a segment counts in the overall value only)."),
    ],
)  # fmt: skip
def test_errors_name_the_argument_by(by, said):
    # they named EvaluationReport.by_segment's argument: "compare_by_segment: segments ..."
    with pytest.raises(InputValidationError, match=f"^{re.escape('compare_by_segment: ' + said)}$"):
        rv.compare_by_segment(QRELS, RUNS, ["mrr"], by=by)
    report = rv.evaluate(QRELS, RUNS["x"], ["mrr"])
    with pytest.raises(InputValidationError) as info:
        report.by_segment(by)
    assert str(info.value) == "EvaluationReport.by_segment: " + re.sub(r"\bby\b", "segments", said)


def test_reports_of_other_users_are_refused_before_the_segments():
    # the segments of the first report's users cut the others' rows: an IndexError, or
    # before, the first segment's mask refused as of another length
    reports = {"x": rv.evaluate(QRELS, RUNS["x"], ["mrr"]),
               "y": rv.evaluate({"u0": {"a": 1}, "u1": {"a": 1}}, RUNS["y"], ["mrr"],
                                allow_unmatched=True)}  # fmt: skip
    with pytest.raises(InputValidationError) as info:
        rv.compare_by_segment(None, reports, ["mrr"], by={"u2": "a", "u3": "b"})
    # it named compare, which the caller did not call
    assert str(info.value) == (
        "compare_by_segment: the reports were evaluated on different qrels users ('y' has 2 "
        "users, 'x' 4); evaluate every run against the same qrels."
    )


@pytest.mark.parametrize(
    ("metrics", "said"),
    [
        (["ndcg@2"], "the report of 'x' has no metric 'ndcg@2'. Got metrics ['mrr']; evaluate "
         "it with every metric compared."),
        ([], "metrics is empty; pass metric strings, e.g. ['ndcg@10']."),
    ],
)  # fmt: skip
def test_the_checks_of_the_reports_name_compare_by_segment(metrics, said):
    # they said "compare: ..."
    reports = {name: rv.evaluate(QRELS, run, ["mrr"]) for name, run in RUNS.items()}
    with pytest.raises(InputValidationError) as info:
        rv.compare_by_segment(None, reports, metrics, by={"u2": "a", "u3": "b"})
    assert str(info.value) == "compare_by_segment: " + said
    with pytest.raises(InputValidationError) as info:
        rv.compare(None, reports, metrics)
    assert str(info.value) == "compare: " + said


def test_a_warning_of_the_overall_comparison_names_compare_by_segment():
    # it said "compare: 1 of 1 comparison has nan statistics ..." (one user: no effect size)
    runs = {name: {"u0": run["u0"]} for name, run in RUNS.items()}
    with pytest.warns(rv.UndefinedMetricWarning) as caught:
        rv.compare_by_segment({"u0": {"a": 1}}, runs, ["mrr"], by={"u0": "a"})
    said = [str(w.message) for w in caught if "nan statistics" in str(w.message)]
    assert said and all(m.startswith("compare_by_segment") for m in said)
    assert any(m.startswith("compare_by_segment: 1 of 1 comparison") for m in said)

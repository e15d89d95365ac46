"""Segments against their oracles: each segment's numbers are those of its users
(rows) alone, and labels of two types are refused rather than merged.

Ranking: ``EvaluationReport.by_segment`` against ``evaluate`` on the segment's
qrels and run, under the skip rules; comparison: ``compare_by_segment``'s
p-values against ``paired_pvalues`` on the segment's per-user differences (users
in ascending order of their ids, as ``compare`` tests them).
"""

import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import receval as rv
from receval.exceptions import InputValidationError
from tests.segments._random import of_users, random_inputs

pytestmark = [
    pytest.mark.filterwarnings("ignore::receval.exceptions.UndefinedMetricWarning"),
    pytest.mark.filterwarnings("ignore::receval.exceptions.TieOrderWarning"),
    pytest.mark.filterwarnings("ignore::receval.exceptions.UnmatchedIdsWarning"),
]

METRICS = ["ndcg@3", "recall@2", "map", "pooled_hit_ratio@2", "mrr"]
MIXED = re.escape(
    "must hold ids of one type (numbers or strings, not both). Got types ['int', 'str']"
)


def _data(seed: int, n_users: int) -> tuple[dict, dict, dict]:
    """Qrels, a run missing some users, and segments leaving some users out."""
    qrels, (run,), segments = random_inputs(seed, n_users, ["a", "b", "c"], share=0.85)
    run.setdefault("other", {"i0": 1.0})
    return qrels, run, segments


@given(
    seed=st.integers(0, 2**16),
    n_users=st.integers(1, 12),
    missing=st.sampled_from(["zero", "skip"]),
    empty=st.sampled_from(["zero", "skip"]),
    zero=st.sampled_from(["keep", "skip"]),
    ties=st.sampled_from(["average", "worst"]),
)
def test_each_segment_is_evaluate_on_its_users(seed, n_users, missing, empty, zero, ties):
    qrels, run, segments = _data(seed, n_users)
    conv = {"missing_users": missing, "empty_users": empty, "zero_users": zero, "ties": ties}
    report = rv.evaluate(qrels, run, METRICS, allow_unmatched=True, **conv)
    seg = report.by_segment(segments)
    assert seg.n_unassigned == len(qrels) - len(segments)
    for i, label in enumerate(seg.segments.tolist()):
        users = [u for u in qrels if segments.get(u) == label]
        alone = rv.evaluate(of_users(qrels, users), of_users(run, users), METRICS,
                            allow_unmatched=True, **conv)  # fmt: skip
        assert seg.counts[i] == alone.n_users
        kept = np.array([segments.get(u) == label for u in report.users])
        part = report.subset(kept)
        for m in METRICS:
            np.testing.assert_allclose(seg.values[m][i], alone.mean[m], rtol=1e-12)
            by_rule = {r: int(x[i]) for r, x in seg.n_skipped[m].items()}
            assert by_rule == alone.n_users_skipped_by[m]
            assert part.n_users_skipped_by[m] == alone.n_users_skipped_by[m]


@pytest.mark.parametrize("test", ["randomization", "student", "wilcoxon"])
@pytest.mark.parametrize("seed", range(3))
def test_segment_pvalues_are_paired_pvalues_of_its_differences(test, seed):
    qrels, run, segments = _data(seed, 24)
    rng = np.random.default_rng(seed + 100)
    other = {u: {i: float(rng.random()) for i in items} for u, items in run.items()}
    runs = {"a": run, "b": other}
    seg = rv.compare_by_segment(qrels, runs, ["ndcg@3", "recall@2"], by=segments, test=test)
    for i, label in enumerate(seg.segments.tolist()):
        users = [u for u in qrels if segments.get(u) == label]
        reports = {n: rv.evaluate(of_users(qrels, users), of_users(r, users),
                                  ["ndcg@3", "recall@2"], allow_unmatched=True)
                   for n, r in runs.items()}  # fmt: skip
        order = np.argsort(reports["a"].users, kind="stable")
        rows = seg.reports[i].comparisons
        columns = [
            reports[a].values[m][order] - reports[b].values[m][order]
            for m, a, b in zip(rows["metric"], rows["model"], rows["versus"], strict=True)
        ]
        expected = np.atleast_1d(rv.paired_pvalues(np.column_stack(columns), test=test))
        np.testing.assert_allclose(rows["p_value"], expected, rtol=1e-12)


def test_labels_of_numbers_and_strings_are_refused_not_merged():
    # the label 1 and the label "1" were one segment '1' of 2 rows (NumPy spelled 1 as '1')
    with pytest.raises(InputValidationError, match=rf"^by_segment: by {MIXED}"):
        rv.by_segment("roc_auc", [1, 0, 1, 0], [0.9, 0.1, 0.2, 0.8], by=[1, 1, "1", "1"])
    qrels = {"u1": {"a": 1}, "u2": {"b": 1}}
    runs = {"x": {"u1": {"a": 1.0}}, "y": {"u2": {"b": 1.0}}}
    mixed = {"u1": 1, "u2": "1"}  # a mapping's labels: one segment '1' of both users
    report = rv.evaluate(qrels, runs["x"], ["mrr"])
    with pytest.raises(
        InputValidationError, match=f"^EvaluationReport.by_segment: segments {MIXED}"
    ):
        report.by_segment(mixed)
    with pytest.raises(InputValidationError, match=f"^compare_by_segment: by {MIXED}"):
        rv.compare_by_segment(qrels, runs, ["mrr"], by=mixed)


def test_group_ids_of_numbers_and_strings_are_refused_not_merged():
    # groups 1 and "1" were one group of four rows: gauc 0.75 instead of an error
    with pytest.raises(InputValidationError, match=rf"^gauc_score: groups {MIXED}"):
        rv.gauc_score([1, 0, 1, 0], [0.9, 0.1, 0.2, 0.8], groups=[1, 1, "1", "1"])


def test_labels_of_one_type_still_segment():
    # strings and NumPy strings are one type; bytes alone too
    got = rv.by_segment("roc_auc", [1, 0, 1, 0], [0.9, 0.1, 0.2, 0.8],
                        by=["a", "a", np.str_("b"), "b"])  # fmt: skip
    assert got.segments.tolist() == ["a", "b"]
    assert got.values["roc_auc"].tolist() == [1.0, 0.0]
    raw = rv.by_segment("roc_auc", [1, 0, 1, 0], [0.9, 0.1, 0.2, 0.8], by=[b"a", b"a", b"b", b"b"])
    assert raw.counts.tolist() == [2, 2]

"""Many segments: ``EvaluationReport.by_segment`` groups the users once.

Each segment's means and skip counts are those of ``evaluate`` on the segment's
users alone, to the bit, with segments of one or a few users; and the report
computes every segment's exact sums of a metric in one call of the core, not
one call per segment.
"""

import numpy as np
import pytest

import receval as rv
from receval._kernels import compiled
from tests.segments._random import of_users, random_inputs

pytestmark = [
    pytest.mark.filterwarnings("ignore::receval.exceptions.UndefinedMetricWarning"),
    pytest.mark.filterwarnings("ignore::receval.exceptions.TieOrderWarning"),
    pytest.mark.filterwarnings("ignore::receval.exceptions.UnmatchedIdsWarning"),
]

# every way a metric's users combine: a mean, a pooled ratio, a geometric mean, a sum,
# and a metric of the run's lists alone
METRICS = ["ndcg@3", "recall@2", "mrr", "pooled_hit_ratio@2", "gm_map", "num_ret", "arp@2"]
POPULARITY = {f"i{j}": j + 1 for j in range(8)}
RULES = [
    {},
    {"missing_users": "skip", "empty_users": "skip", "zero_users": "skip"},
    {"missing_users": "zero", "empty_users": "skip", "zero_users": "keep", "ties": "worst"},
]


def _data(seed: int, n_users: int, n_labels: int) -> tuple[dict, dict, dict]:
    """Qrels, a run missing some users, and segments of a few users each (some users
    in none)."""
    qrels, (run,), segments = random_inputs(seed, n_users, range(n_labels))
    run.setdefault("other", {"i0": 1.0})
    return qrels, run, segments


def _evaluate(qrels: dict, run: dict, **rules: str) -> rv.EvaluationReport:
    return rv.evaluate(qrels, run, METRICS, popularity=POPULARITY, allow_unmatched=True,
                       **rules)  # fmt: skip


@pytest.mark.parametrize("rules", RULES)
@pytest.mark.parametrize("seed", range(2))
def test_many_segments_equal_evaluate_on_each_segment(seed, rules):
    qrels, run, segments = _data(seed, 240, 90)
    seg = _evaluate(qrels, run, **rules).by_segment(segments)
    assert len(seg.segments) > 60 and seg.n_unassigned == len(qrels) - len(segments)
    for i, label in enumerate(seg.segments.tolist()):
        users = [u for u in qrels if segments.get(u) == label]
        alone = _evaluate(of_users(qrels, users), of_users(run, users), **rules)
        assert seg.counts[i] == alone.n_users == len(users)
        for m in METRICS:
            # the same float: the exact sums of the segment's users, rounded once
            np.testing.assert_equal(seg.values[m][i], alone.mean[m], err_msg=f"{label} {m}")
            by_rule = {r: int(x[i]) for r, x in seg.n_skipped[m].items()}
            assert by_rule == alone.n_users_skipped_by[m], (label, m)


def test_segments_are_summed_in_one_call_per_metric(monkeypatch):
    # each segment was a mask over every user and a sum of its own, per metric:
    # segments x users x metrics work (minutes for 1M users by 10k segments)
    qrels, run, segments = _data(0, 300, 150)
    report = _evaluate(qrels, run)
    core, calls = compiled(), []  # the core's exact sums, counted
    for name in ("exact_sum", "exact_sums"):
        kernel = getattr(core, name)
        monkeypatch.setattr(
            core, name, lambda *a, _k=kernel, _n=name, **kw: calls.append(_n) or _k(*a, **kw)
        )
    seg = report.by_segment(segments)
    assert len(seg.segments) > 100
    assert len(calls) <= len(METRICS)

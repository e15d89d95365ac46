"""A parameter written in a rule's metric string wins over the gate's setting of it.

``gauc(weighting=impressions)`` is gauc weighted by impressions whatever the gate's
``weighting``, although the registry's canonical string leaves the default out."""

from __future__ import annotations

import numpy as np
import pytest

import receval as rv
from receval.exceptions import InvalidParameterError
from receval.gating.rules import GateRule, as_rules, repeated

FAST = {"n_permutations": 200, "n_resamples": 200, "interval": "percentile"}


def _log():
    """Users of unequal impressions and clicks, so that each weighting gives its own gauc."""
    rng = np.random.default_rng(0)
    users = np.repeat(np.arange(40), rng.integers(2, 12, 40))
    clicks = (rng.random(users.size) < 0.3).astype(int)
    base = rng.random(users.size)
    new = np.clip(base + 0.3 * rng.standard_normal(users.size), 0.0, 1.0)
    return users, clicks, base, new


@pytest.mark.parametrize("written", ["impressions", "clicks", "uniform"])
@pytest.mark.parametrize("gate_weighting", ["impressions", "clicks", "uniform"])
def test_the_weighting_written_in_the_string_wins_over_the_gates(written, gate_weighting):
    users, clicks, base, new = _log()
    rules = [
        {"metric": f"gauc(weighting={written})", "rule": "non_inferiority", "margin": 0.1},
        {"metric": "gauc", "rule": "floor", "threshold": 0.0},
    ]
    report = rv.gate({"new": new}, {"main": base}, rules, y_true=clicks, groups=users,
                     weighting=gate_weighting, **FAST)  # fmt: skip
    pair, bound = report.rows
    assert pair.candidate_value == rv.gauc_score(clicks, new, groups=users, weighting=written)
    assert pair.baseline_value == rv.gauc_score(clicks, base, groups=users, weighting=written)
    assert bound.candidate_value == rv.gauc_score(
        clicks, new, groups=users, weighting=gate_weighting
    )


def test_compare_predictions_keeps_the_weighting_its_string_writes():
    users, clicks, base, new = _log()
    report = rv.compare_predictions(
        clicks, {"new": new, "main": base}, groups=users, baseline="main", correction=None,
        metrics=["gauc(weighting=impressions)"], weighting="clicks", interval=None,
        n_permutations=200,
    )  # fmt: skip
    means = report.comparisons
    expected = rv.gauc_score(clicks, new, groups=users) - rv.gauc_score(clicks, base, groups=users)
    assert float(means["difference"][0]) == pytest.approx(expected, abs=1e-12)


def test_rules_are_copies_by_the_weighting_they_compute():
    # under a gate of clicks, 'gauc' is gauc weighted by clicks: a copy of
    # 'gauc(weighting=clicks)', not of 'gauc(weighting=impressions)'
    rules = [GateRule("gauc", "floor", threshold=0.5),
             GateRule("gauc(weighting=impressions)", "floor", threshold=0.5),
             GateRule("gauc(weighting=clicks)", "floor", threshold=0.5)]  # fmt: skip
    assert repeated(rules[:2], "clicks") is None
    assert repeated(rules, "clicks") == (2, 0)
    assert repeated(rules[:2], "impressions") == (1, 0)
    with pytest.raises(InvalidParameterError, match=r"name the same metric, gauc\(weighting="):
        as_rules(rules, weighting="clicks")


def test_a_keyword_is_refused_beside_the_string_that_writes_it_at_its_default():
    with pytest.raises(InvalidParameterError, match="weighting is given both in the metric"):
        rv.metric("gauc(weighting=impressions)", weighting="clicks")

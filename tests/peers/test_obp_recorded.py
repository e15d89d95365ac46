"""receval's off-policy estimates against Open Bandit Pipeline 0.5.7 on recorded data.

``data/recorded_obp.json`` holds logged bandit feedback from obp's
``SyntheticBanditDataset`` (and a case with list positions), obp's reward model's
estimates, and what obp's IPS, SNIPS and DR returned (written by
``record_obp.py``, whose docstring says how to regenerate it). Point estimates are
checked to 1e-12; the bootstrap bounds of IPS and DR too (receval draws obp's
resamples for the same seed); SNIPS's interval differs by design (see
:func:`receval.policy_value_interval`) and is only checked to be close.
"""

import json
from pathlib import Path

import numpy as np
import pytest

import receval as rv

DATA = json.loads((Path(__file__).parent / "data" / "recorded_obp.json").read_text())
TOL = 1e-12
CASES = ["synthetic", "positions"]


def _feedback(case):
    data = DATA[case]
    out = {
        "reward": np.array(data["reward"]),
        "pscore": np.array(data["pscore"]),
        "action_dist": np.array(data["action_dist"]),
        "action": np.array(data["action"]),
    }
    if "position" in data:
        out["position"] = np.array(data["position"])
    return out, np.array(data["estimated_rewards"]), data["estimates"]


@pytest.mark.parametrize("case", CASES)
def test_point_estimates_equal_obp(case):
    feedback, q, expected = _feedback(case)
    assert rv.ips_estimate(**feedback) == pytest.approx(expected["ips"], abs=TOL, rel=0)
    assert rv.snips_estimate(**feedback) == pytest.approx(expected["snips"], abs=TOL, rel=0)
    got = rv.dr_estimate(**feedback, estimated_rewards=q)
    assert got == pytest.approx(expected["dr"], abs=TOL, rel=0)


def test_clipped_estimates_equal_obp():
    feedback, q, expected = _feedback("synthetic")
    assert rv.ips_estimate(**feedback, clip=1.5) == pytest.approx(expected["ips_clip"], abs=TOL)
    got = rv.dr_estimate(**feedback, estimated_rewards=q, clip=1.5)
    assert got == pytest.approx(expected["dr_clip"], abs=TOL)
    assert expected["ips_clip"] != expected["ips"]  # the clip binds on this data


@pytest.mark.parametrize("case", CASES)
def test_streaming_equals_one_call_on_obp_data(case):
    feedback, q, _ = _feedback(case)
    for name, extra, func in (
        ("ips", {}, rv.ips_estimate),
        ("snips", {}, rv.snips_estimate),
        ("dr", {"estimated_rewards": q}, rv.dr_estimate),
    ):
        acc = rv.metric(name)
        for part in np.array_split(np.arange(len(feedback["reward"])), 7):
            acc.update(**{k: x[part] for k, x in {**feedback, **extra}.items()})
        assert acc.compute() == func(**feedback, **extra)


@pytest.mark.parametrize("estimator", ["ips", "dr"])
def test_bootstrap_bounds_equal_obp(estimator):
    feedback, q, expected = _feedback("synthetic")
    setting = DATA["synthetic"]["interval"]
    extra = {"estimated_rewards": q} if estimator == "dr" else {}
    value, low, high = rv.policy_value_interval(
        **feedback,
        **extra,
        estimator=estimator,
        confidence=1 - setting["alpha"],
        n_resamples=setting["n_bootstrap_samples"],
        seed=setting["random_state"],
    )
    _, obp_low, obp_high = DATA["synthetic"]["intervals"][estimator]
    assert value == pytest.approx(expected[estimator], abs=TOL)
    assert low == pytest.approx(obp_low, abs=TOL, rel=0)
    assert high == pytest.approx(obp_high, abs=TOL, rel=0)


def test_snips_interval_close_to_obp():
    # obp resamples w r / mean(w) with the full data's mean weight; receval the ratio
    feedback, _, _ = _feedback("synthetic")
    setting = DATA["synthetic"]["interval"]
    value, low, high = rv.policy_value_interval(
        **feedback,
        estimator="snips",
        confidence=1 - setting["alpha"],
        n_resamples=setting["n_bootstrap_samples"],
        seed=setting["random_state"],
    )
    _, obp_low, obp_high = DATA["synthetic"]["intervals"]["snips"]
    assert low < value < high
    assert abs(low - obp_low) < 0.02 and abs(high - obp_high) < 0.02

"""Record Open Bandit Pipeline's IPS, SNIPS and DR estimates on logged bandit feedback.

Open Bandit Pipeline (``obp``) is not a test dependency, so this script is run by
hand and the test suite only reads what it writes: ``data/recorded_obp.json``,
read by ``test_obp_recorded.py``. pytest does not collect it (its name is not
``test_*.py``), and it imports the peer only inside functions.

How to regenerate. obp 0.5.7 declares Python < 3.11 but is pure Python; its
``obp.utils`` and ``obp.policy`` modules import PyTorch at import time for the
policy learners, which the estimators and the synthetic data do not use, so a
stand-in ``torch`` module (:func:`_stand_in_torch`) is put in ``sys.modules``
before ``obp`` is imported::

    python3.11 -m venv /tmp/obpenv
    /tmp/obpenv/bin/pip download --no-deps --no-binary=:all: --ignore-requires-python \
        obp==0.5.7 -d /tmp/obpdl
    /tmp/obpenv/bin/pip install --no-deps --ignore-requires-python /tmp/obpdl/obp-0.5.7.tar.gz
    /tmp/obpenv/bin/pip install numpy scipy scikit-learn pandas tqdm matplotlib seaborn pyyaml
    /tmp/obpenv/bin/python tests/peers/record_obp.py

What is recorded
----------------
* ``synthetic``: ``SyntheticBanditDataset`` (binary rewards from
  ``logistic_reward_function``, a softmax logging policy from
  ``linear_behavior_policy``), 300 rounds of 5 actions; the target policy is the
  softmax of ``3 * expected_reward`` mixed with the uniform policy; the reward
  model is obp's ``RegressionModel`` (logistic regression, 3-fold cross-fitting),
  as in obp's examples. IPS, SNIPS and DR, and IPS and DR with ``lambda_ = 1.5``
  (clipped weights). Bootstrap intervals of IPS, SNIPS and DR
  (``estimate_interval``: ``alpha = 0.1``, 300 resamples, ``random_state = 7``).
* ``positions``: 120 rounds of 4 actions shown in lists of 3 slots (a 3-D
  ``action_dist``, a ``position`` per round) with random target distributions,
  logging probabilities and reward-model estimates: IPS, SNIPS and DR.

The output is deterministic for a given environment; the versions are written into
the file.
"""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path
from typing import Any

import numpy as np

OUT = Path(__file__).parent / "data" / "recorded_obp.json"


def _stand_in_torch() -> None:
    """A ``torch`` module whose every attribute is one inert class: enough for obp's
    module-level ``import torch`` and annotations, never called by the estimators."""

    class _Inert(type):
        def __getattr__(cls, name: str) -> Any:
            if name.startswith("__"):
                raise AttributeError(name)
            return cls

    inert = _Inert("Inert", (), {})

    def attribute(name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return inert

    for name in ("torch", "torch.nn", "torch.nn.functional", "torch.optim"):
        module = types.ModuleType(name)
        module.__path__ = []  # a package, so that torch.nn imports
        module.__getattr__ = attribute  # type: ignore[method-assign]
        sys.modules[name] = module


def _floats(x: np.ndarray) -> Any:
    return np.asarray(x, dtype=np.float64).tolist()  # repr of each float: exact


def _estimates(ope: Any, feedback: dict, action_dist: np.ndarray, q: np.ndarray) -> dict:
    args = {k: feedback[k] for k in ("reward", "action", "pscore", "position")}
    out = {
        "ips": ope.InverseProbabilityWeighting().estimate_policy_value(
            action_dist=action_dist, **args
        ),
        "snips": ope.SelfNormalizedInverseProbabilityWeighting().estimate_policy_value(
            action_dist=action_dist, **args
        ),
        "dr": ope.DoublyRobust().estimate_policy_value(
            action_dist=action_dist, estimated_rewards_by_reg_model=q, **args
        ),
    }
    return {k: float(x) for k, x in out.items()}


def _synthetic(ope: Any, dataset: Any) -> dict:
    from sklearn.linear_model import LogisticRegression

    data = dataset.SyntheticBanditDataset(
        n_actions=5,
        dim_context=3,
        reward_type="binary",
        reward_function=dataset.logistic_reward_function,
        behavior_policy_function=dataset.linear_behavior_policy,
        random_state=12345,
    )
    feedback = data.obtain_batch_bandit_feedback(n_rounds=300)
    logits = 3.0 * feedback["expected_reward"]
    soft = np.exp(logits - logits.max(axis=1, keepdims=True))
    soft /= soft.sum(axis=1, keepdims=True)
    action_dist = (0.8 * soft + 0.2 / 5)[:, :, None]  # (n_rounds, n_actions, 1)
    model = ope.RegressionModel(
        n_actions=5, len_list=1, base_model=LogisticRegression(random_state=12345)
    )
    q = model.fit_predict(
        context=feedback["context"],
        action=feedback["action"],
        reward=feedback["reward"],
        n_folds=3,
        random_state=12345,
    )
    feedback = {**feedback, "position": None}
    args = {k: feedback[k] for k in ("reward", "action", "pscore", "position")}
    estimates = _estimates(ope, feedback, action_dist, q)
    estimates["ips_clip"] = float(
        ope.InverseProbabilityWeighting(lambda_=1.5).estimate_policy_value(
            action_dist=action_dist, **args
        )
    )
    estimates["dr_clip"] = float(
        ope.DoublyRobust(lambda_=1.5).estimate_policy_value(
            action_dist=action_dist, estimated_rewards_by_reg_model=q, **args
        )
    )
    interval = {"alpha": 0.1, "n_bootstrap_samples": 300, "random_state": 7}
    intervals = {}
    for name, est, extra in (
        ("ips", ope.InverseProbabilityWeighting(), {}),
        ("snips", ope.SelfNormalizedInverseProbabilityWeighting(), {}),
        ("dr", ope.DoublyRobust(), {"estimated_rewards_by_reg_model": q}),
    ):
        got = est.estimate_interval(action_dist=action_dist, **args, **extra, **interval)
        intervals[name] = [float(x) for x in got.values()]  # mean, lower, upper
    return {
        "reward": _floats(feedback["reward"]),
        "action": feedback["action"].tolist(),
        "pscore": _floats(feedback["pscore"]),
        "action_dist": _floats(action_dist),
        "estimated_rewards": _floats(q),
        "estimates": estimates,
        "interval": interval,
        "intervals": intervals,
    }


def _positions(ope: Any) -> dict:
    rng = np.random.default_rng(2024)
    n, n_actions, len_list = 120, 4, 3
    action_dist = rng.dirichlet(np.ones(n_actions), size=(n, len_list)).transpose(0, 2, 1)
    q = rng.uniform(0.0, 1.0, size=(n, n_actions, len_list))
    feedback = {
        "reward": rng.integers(0, 2, n).astype(np.float64),
        "action": rng.integers(0, n_actions, n),
        "pscore": rng.uniform(0.05, 1.0, n),
        "position": rng.integers(0, len_list, n),
    }
    return {
        "reward": _floats(feedback["reward"]),
        "action": feedback["action"].tolist(),
        "pscore": _floats(feedback["pscore"]),
        "position": feedback["position"].tolist(),
        "action_dist": _floats(action_dist),
        "estimated_rewards": _floats(q),
        "estimates": _estimates(ope, feedback, action_dist, q),
    }


def main() -> None:
    _stand_in_torch()
    import obp
    import obp.dataset as dataset
    import obp.ope as ope
    import sklearn

    record = {
        "source": "Open Bandit Pipeline (obp on PyPI): InverseProbabilityWeighting, "
        "SelfNormalizedInverseProbabilityWeighting, DoublyRobust, RegressionModel, "
        "SyntheticBanditDataset; written by tests/peers/record_obp.py",
        "versions": {
            "obp": obp.__version__,
            "numpy": np.__version__,
            "scikit-learn": sklearn.__version__,
        },
        "synthetic": _synthetic(ope, dataset),
        "positions": _positions(ope),
    }
    OUT.write_text(json.dumps(record) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()

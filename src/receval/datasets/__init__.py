"""Deterministic synthetic data for examples, tests and benchmarks.

Nothing is downloaded: every dataset is generated from a seed, so the same
call gives the same rows on every machine.
"""

from __future__ import annotations

import numpy as np

__all__ = ["make_impressions"]


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def make_impressions(
    n_users: int = 2_000, *, impressions_per_user: float = 40.0, seed: int = 0
) -> dict[str, np.ndarray]:
    """Generate an impression log with clicks and the predicted CTR of two models.

    Users have a click propensity and items a quality; a click is drawn from
    the true click-through rate. ``model_a`` sees the truth with little noise
    and is calibrated; ``model_b`` is noisier, over-predicts, and rounds its
    scores to three decimals (so it has tied scores, as quantised production
    models do). Impressions per user follow a skewed (log-normal) distribution.

    Parameters
    ----------
    n_users : int, default=2000
        Number of users.
    impressions_per_user : float, default=40.0
        Mean number of impressions per user.
    seed : int, default=0
        Seed of the generator; the output is a pure function of the arguments.

    Returns
    -------
    log : dict of str to ndarray
        ``user`` (str ids), ``item`` (int ids), ``click`` (0/1 int8),
        ``model_a`` and ``model_b`` (float64 probabilities), one row per impression.

    Examples
    --------
    >>> from receval.datasets import make_impressions
    >>> log = make_impressions(n_users=100, seed=1)
    >>> sorted(log)
    ['click', 'item', 'model_a', 'model_b', 'user']
    >>> len(log["click"]) == len(log["user"])
    True
    """
    rng = np.random.default_rng(seed)
    sigma = 0.8
    mu = np.log(impressions_per_user) - sigma**2 / 2
    sizes = np.maximum(1, np.round(rng.lognormal(mu, sigma, n_users))).astype(np.int64)
    user_code = np.repeat(np.arange(n_users), sizes)
    n = user_code.shape[0]
    n_items = max(50, n_users // 2)
    item = rng.zipf(1.3, n) % n_items
    user_bias = rng.normal(0.0, 0.7, n_users)
    item_quality = rng.normal(0.0, 0.8, n_items)
    logit = -3.0 + user_bias[user_code] + item_quality[item]
    click = (rng.random(n) < _sigmoid(logit)).astype(np.int8)
    model_a = _sigmoid(logit + rng.normal(0.0, 0.4, n))
    model_b = np.round(_sigmoid(0.7 * logit + rng.normal(0.0, 0.9, n) + 0.6), 3)
    order = rng.permutation(n)
    users = np.array([f"u{u:05d}" for u in range(n_users)])
    return {
        "user": users[user_code[order]],
        "item": item[order],
        "click": click[order],
        "model_a": model_a[order],
        "model_b": model_b[order],
    }

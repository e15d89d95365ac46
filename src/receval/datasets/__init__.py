"""Deterministic synthetic data for examples, tests and benchmarks.

Nothing is downloaded: every dataset is generated from a seed, so the same
call gives the same rows on every machine (``seed=None`` draws fresh randomness
instead, as scikit-learn's ``random_state=None``).
"""

from __future__ import annotations

import datetime as _dt
from typing import Any

import numpy as np

from ..exceptions import InvalidParameterError

__all__ = ["MAX_DRAWS", "make_events", "make_impressions", "make_recommendations"]

#: The most values a generator draws per column (rows of a log, cells of a users x items
#: or users x days table): every dataset is drawn in memory, so larger sizes are refused
#: before any draw, naming the arguments to shrink.
MAX_DRAWS = 1_000_000_000


def _generator(seed: Any, func: str) -> np.random.Generator:
    """The random generator of ``seed``: an integer in [0, 2**63 - 1], or None for
    fresh randomness from the operating system."""
    from .._parameters import check_seed

    return np.random.default_rng(None if seed is None else check_seed(seed, func))


def _check_draws(func: str, what: str, **sizes: float) -> None:
    """Refuse ``sizes`` whose product (``what``) exceeds :data:`MAX_DRAWS`."""
    total = float(np.prod([float(x) for x in sizes.values()]))
    if total <= MAX_DRAWS:
        return
    names = list(sizes)
    given = " * ".join(f"{x:,}" if isinstance(x, int) else f"{x:g}" for x in sizes.values())
    raise InvalidParameterError(
        f"{func}: {' * '.join(names)} ({what}, all in memory) must be at most "
        f"{MAX_DRAWS:,}. Got {given} = {total:.3g}; pass a smaller {' or '.join(names)}."
    )


def _sigmoid(x: np.ndarray) -> np.ndarray:
    result: np.ndarray = 1.0 / (1.0 + np.exp(-x))
    return result


def make_impressions(
    n_users: int = 2_000, *, impressions_per_user: float = 40.0, seed: int | None = 0
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
        Mean number of impressions per user; ``n_users * impressions_per_user``
        is at most :data:`MAX_DRAWS`.
    seed : int in [0, 2**63 - 1] or None, default=0
        Seed of the generator: the output is a pure function of the arguments.
        None draws fresh randomness, different rows on each call.

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
    from .._validation import check_number

    func = "make_impressions"
    check_number(n_users, "n_users", func, integer=True, low=1)
    check_number(impressions_per_user, "impressions_per_user", func, low=0, low_inclusive=False)
    _check_draws(func, "the expected number of rows", n_users=n_users,
                 impressions_per_user=impressions_per_user)  # fmt: skip
    rng = _generator(seed, func)
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


# users per block when a (users x items) matrix is drawn: bounds memory, and
# the blocks are fixed so the output does not depend on anything but the arguments
_BLOCK = 1024


def _top_rows(values: np.ndarray, k: int) -> np.ndarray:
    """Column indices of the ``k`` largest values of each row, largest first."""
    part = np.argpartition(-values, k - 1, axis=1)[:, :k]
    order = np.argsort(-np.take_along_axis(values, part, axis=1), axis=1, kind="stable")
    return np.take_along_axis(part, order, axis=1)


def make_recommendations(
    n_users: int = 2_000, *, n_items: int = 1_000, k: int = 100, seed: int | None = 0
) -> tuple[dict[str, np.ndarray], dict[str, dict[str, np.ndarray]]]:
    """Generate held-out interactions and the top-K recommendations of two models.

    Users and items have latent factors; a user's true affinity for an item
    is the dot product of their factors plus the item's popularity. Each user
    has 1 or more held-out interactions (4 on average), drawn without
    replacement with probability increasing with affinity; a quarter of them
    have grade 2 (e.g. a purchase), the others grade 1 (a click).
    ``model_a`` ranks the whole catalogue by the affinity plus little noise;
    ``model_b`` mostly by popularity plus more noise, so it is the weaker
    model on every accuracy metric.

    Parameters
    ----------
    n_users : int, default=2000
        Number of users; every user has held-out interactions and two lists.
    n_items : int, default=1000
        Catalogue size, at least ``k``; every user's affinity to every item is
        drawn, so ``n_users * n_items`` is at most :data:`MAX_DRAWS`.
    k : int, default=100
        Length of each recommendation list.
    seed : int in [0, 2**63 - 1] or None, default=0
        Seed of the generator: the output is a pure function of the arguments.
        None draws fresh randomness, different rows on each call.

    Returns
    -------
    qrels : dict of str to ndarray
        The held-out interactions: ``user`` (str ids), ``item`` (int ids) and
        ``grade`` (int64, 1 or 2), one row per interaction.
    runs : dict of str to dict of str to ndarray
        ``{"model_a": run, "model_b": run}``, each run with ``user``,
        ``item`` and ``score`` (float64) columns: ``k`` rows per user, by
        descending score.

    See Also
    --------
    make_impressions : Clicks and predicted CTR of two models.
    make_events : Login events for retention.

    Examples
    --------
    >>> from receval import Qrels, Run, evaluate
    >>> from receval.datasets import make_recommendations
    >>> qrels, runs = make_recommendations(n_users=200, n_items=300, k=20, seed=1)
    >>> sorted(runs), len(runs["model_a"]["user"])
    (['model_a', 'model_b'], 4000)
    >>> q = Qrels(qrels["user"], qrels["item"], qrels["grade"])
    >>> ndcg = {
    ...     name: evaluate(q, Run(r["user"], r["item"], r["score"]), "ndcg@10").mean["ndcg@10"]
    ...     for name, r in runs.items()
    ... }
    >>> ndcg["model_a"] > ndcg["model_b"]
    True
    """
    from .._validation import check_number

    func = "make_recommendations"
    check_number(n_users, "n_users", func, integer=True, low=1)
    check_number(n_items, "n_items", func, integer=True, low=1)
    check_number(k, "k", func, integer=True, low=1, high=n_items)
    _check_draws(func, "the user-item affinities", n_users=n_users, n_items=n_items)
    rng = _generator(seed, func)
    dim = 16
    user_factors = rng.normal(0.0, 1.0, (n_users, dim))
    item_factors = rng.normal(0.0, 1.0, (n_items, dim))
    popularity = rng.normal(0.0, 1.0, n_items)
    n_held = np.minimum(1 + rng.poisson(3.0, n_users), n_items)
    held_max = int(n_held.max())
    held_items: list[np.ndarray] = []
    lists: dict[str, tuple[list[np.ndarray], list[np.ndarray]]] = {
        "model_a": ([], []),
        "model_b": ([], []),
    }
    for start in range(0, n_users, _BLOCK):
        block = slice(start, min(start + _BLOCK, n_users))
        affinity = user_factors[block] @ item_factors.T * (1.5 / np.sqrt(dim)) + popularity
        # Gumbel top-n: a sample without replacement with P(item) ~ exp(2 * affinity)
        held = _top_rows(2.0 * affinity + rng.gumbel(size=affinity.shape), held_max)
        held_items.append(held[np.arange(held_max) < n_held[block, None]])
        predicted = {
            "model_a": affinity + rng.normal(0.0, 1.0, affinity.shape),
            "model_b": 1.5 * popularity + 0.3 * affinity + rng.normal(0.0, 1.5, affinity.shape),
        }
        for name, scores in predicted.items():
            top = _top_rows(scores, k)
            lists[name][0].append(top.ravel())
            lists[name][1].append(np.round(np.take_along_axis(scores, top, axis=1), 6).ravel())
    users = np.array([f"u{u:05d}" for u in range(n_users)])
    qrels = {
        "user": np.repeat(users, n_held),
        "item": np.concatenate(held_items).astype(np.int64),
        "grade": 1 + (rng.random(int(n_held.sum())) < 0.25).astype(np.int64),
    }
    runs = {
        name: {
            "user": np.repeat(users, k),
            "item": np.concatenate(items).astype(np.int64),
            "score": np.concatenate(scores),
        }
        for name, (items, scores) in lists.items()
    }
    return qrels, runs


def make_events(
    n_users: int = 2_000,
    *,
    days: int = 60,
    seed: int | None = 0,
    start: str | _dt.date | np.datetime64 = "2024-01-01",
) -> dict[str, np.ndarray]:
    """Generate login events of users arriving every day and returning less and less.

    Users arrive uniformly over the ``days`` days (their first event is their
    arrival). About a third never come back; the others have an engagement
    ``p`` (a Beta(2, 3) draw, mean 0.4) and return ``t`` days after arrival
    with probability ``p / sqrt(1 + t)``, with one or more events on each day
    they return (at uniformly random times of the day, UTC).

    Parameters
    ----------
    n_users : int, default=2000
        Number of users.
    days : int, default=60
        Length of the observation window in days; no event is after it. Every
        user's return is drawn for every day, so ``n_users * days`` is at most
        :data:`MAX_DRAWS`.
    seed : int in [0, 2**63 - 1] or None, default=0
        Seed of the generator: the output is a pure function of the arguments.
        None draws fresh randomness, different rows on each call.
    start : str, datetime.date or numpy.datetime64, default="2024-01-01"
        The first day of the window (UTC).

    Returns
    -------
    events : dict of str to ndarray
        ``user`` (str ids, numbered in order of arrival) and ``time``
        (``datetime64[s]``, UTC), one row per event, sorted by time.

    See Also
    --------
    receval.retention : New users, logins and day-N retention of these events.

    Examples
    --------
    >>> from receval import retention
    >>> from receval.datasets import make_events
    >>> events = make_events(n_users=300, days=10, seed=1)
    >>> sorted(events), events["time"].dtype
    (['time', 'user'], dtype('<M8[s]'))
    >>> str(events["time"].min())
    '2024-01-01T...'
    >>> report = retention(events, days=(1, 7))
    >>> report.n_users, report.n_periods
    (300, 10)
    """
    from .._validation import check_number

    func = "make_events"
    check_number(n_users, "n_users", func, integer=True, low=1)
    check_number(days, "days", func, integer=True, low=1)
    _check_draws(func, "the user-days", n_users=n_users, days=days)
    first_day = np.array("NaT", dtype="datetime64[D]")
    if isinstance(start, (str, _dt.date, np.datetime64)):  # not a number: days since 1970
        try:
            first_day = np.array(start, dtype="datetime64[D]")
        except (ValueError, TypeError):
            pass
    if np.isnat(first_day):
        raise InvalidParameterError(
            f"The 'start' parameter of {func} must be a date: a str such as '2024-01-01', a "
            f"datetime.date or a numpy.datetime64. Got {start!r} instead."
        )
    rng = _generator(seed, func)
    arrival = np.sort(rng.integers(0, days, n_users))
    arrival[0] = 0  # the window starts on `start`
    engagement = np.where(rng.random(n_users) < 1 / 3, 0.0, rng.beta(2.0, 3.0, n_users))
    offset = np.arange(days)
    p_return = engagement[:, None] / np.sqrt(1.0 + offset)
    active = rng.random((n_users, days)) < p_return
    active[:, 0] = True  # the arrival
    active &= arrival[:, None] + offset < days
    user_code, day_offset = np.nonzero(active)
    per_day = 1 + rng.poisson(0.7, user_code.shape[0])
    user_code = np.repeat(user_code, per_day)
    day = arrival[user_code] + np.repeat(day_offset, per_day)
    second = day * 86_400 + rng.integers(0, 86_400, user_code.shape[0])
    order = np.argsort(second, kind="stable")
    users = np.array([f"u{u:05d}" for u in range(n_users)])
    time = first_day.astype("datetime64[s]") + second[order].astype("timedelta64[s]")
    return {"user": users[user_code[order]], "time": time}

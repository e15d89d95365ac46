"""Logged bandit feedback, checked: the per-round terms of the off-policy estimators.

One round ``i`` of logged feedback is a reward ``r_i``, the logging policy's
probability ``pscore_i`` of the action it took, and the target policy's
probability of that action: given directly (a 1-D ``action_dist``) or read from
its whole action distribution (Open Bandit Pipeline's ``action_dist`` of shape
``(n_rounds, n_actions[, len_list])``) at the logged ``action`` (and
``position``). Every check and every per-round term is computed row by row, so
a batch split gives the same terms as one pass.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .. import _validation as v
from ..data._lookup import distinct
from ..exceptions import InputValidationError, InvalidParameterError

__all__ = ["ESTIMATORS", "TERM_SHIFT", "RoundTerms", "Weights", "check_clip", "round_terms"]

#: The estimators and the name of their function (in messages)
ESTIMATORS = {"ips": "ips_estimate", "snips": "snips_estimate", "dr": "dr_estimate"}
# tolerance on the sum of each row of action_dist (Open Bandit Pipeline's np.allclose)
_RTOL, _ATOL = 1e-5, 1e-8


#: A round whose term overflows float64 (rewards near 1e308 times a weight above 1) is
#: computed from its inputs times ``2**-TERM_SHIFT`` (a weight, a reward, a reward model's
#: estimate), its term so held times ``2**(-2 * TERM_SHIFT)``: the same float, scaled,
#: as the term in a float64 without an exponent limit. So is a weight beyond float64
#: (a pscore below about 5e-309: up to 2**1074, 1 over the least subnormal), held times
#: ``2**-TERM_SHIFT``. 538 is the least shift at which no partial term overflows: a
#: reward (below 2**1024) times such a weight is below 2**2098, 2**1022 at the scale.
TERM_SHIFT = 538


class Weights(NamedTuple):
    """Importance weights: ``value`` in float64 (inf where a weight is beyond its range)
    and, where one is, ``scaled``: each such weight times ``2**-TERM_SHIFT``, computed
    from the pscore times ``2**TERM_SHIFT`` (0 in the other rounds; None when none is);
    ``n_clipped``: the rounds whose weight the clip lowered."""

    value: np.ndarray
    scaled: np.ndarray | None
    n_clipped: int = 0

    def times(self, x: np.ndarray, k: int) -> np.ndarray:
        """``x`` times the weights times ``2**-k`` (``k`` 0 or ``TERM_SHIFT``), rounded
        once: a weight beyond float64 as its scaled value times ``x 2**(TERM_SHIFT - k)``
        (with ``k`` 0, inf where that overflows: the product is then beyond float64,
        and a reward of 1e-300 times a weight of 1e310 is 1e10, not 0)."""
        product: np.ndarray = x * np.ldexp(self.value, -k)
        if self.scaled is None:
            return product
        return np.where(np.isinf(self.value), np.ldexp(x, TERM_SHIFT - k) * self.scaled, product)


class RoundTerms(NamedTuple):
    """Per-round terms: reward, (clipped) importance weight, the estimator's term (``r w``,
    or the DR term) and, where a round's term overflows, that term held times
    ``2**(-2 * TERM_SHIFT)`` (0 in the other rounds; None when none overflows), and
    where a weight does, that weight held times ``2**-TERM_SHIFT`` (``scaled_weight``,
    as :attr:`Weights.scaled`). ``weight`` and ``value`` are inf or nan in those rounds.
    ``n_clipped``: the rounds whose weight the clip lowered (:attr:`Weights.n_clipped`)."""

    reward: np.ndarray
    weight: np.ndarray
    value: np.ndarray
    scaled: np.ndarray | None
    scaled_weight: np.ndarray | None = None
    n_clipped: int = 0


def _terms(r: np.ndarray, weights: Weights, term: Any) -> RoundTerms:
    """The terms ``term(k)`` computed from the inputs times ``2**-k`` (``k`` 0, then
    ``TERM_SHIFT`` where a term overflows)."""
    with np.errstate(over="ignore", invalid="ignore"):
        value = term(0)
        over = ~np.isfinite(value)
        scaled = np.where(over, term(TERM_SHIFT), 0.0) if over.any() else None
        return RoundTerms(r, weights.value, value, scaled, weights.scaled, weights.n_clipped)


def check_clip(clip: Any, func: str) -> float | None:
    """``clip``: None or a positive number (the largest importance weight kept)."""
    if clip is None:
        return None
    number = isinstance(clip, (int, float, np.integer, np.floating)) and not isinstance(clip, bool)
    if not (number and float(clip) > 0):  # nan too
        raise InvalidParameterError(
            f"The 'clip' parameter of {func} must be None or a positive number. "
            f"Got {clip!r} instead."
        )
    return float(clip)


def _as_array(x: Any, name: str, func: str) -> np.ndarray:
    if hasattr(x, "to_numpy") and not isinstance(x, np.ndarray):
        x = x.to_numpy()
    try:
        return np.asarray(x)
    except ValueError:  # ragged nested lists
        raise InputValidationError(
            f"{func}: {name} must be a rectangular array (every round with the same number "
            f"of actions and slots). Got rows of different lengths."
        ) from None


def _indices(x: Any, name: str, func: str, n: int, size: int, what: str) -> np.ndarray:
    """Integer indices in [0, size) of each round."""
    arr = v.as_1d(x, name, func)
    if arr.dtype.kind == "f" and arr.size and np.all(np.isfinite(arr)) and np.all(arr == arr // 1):
        arr = arr.astype(np.int64)
    if arr.dtype.kind not in "biu":
        raise InputValidationError(
            f"{func}: {name} must hold integer {what} indices. Got dtype {arr.dtype}."
        )
    arr = arr.astype(np.int64, copy=False)
    if arr.size and (arr.min() < 0 or arr.max() >= size):
        bad = arr[(arr < 0) | (arr >= size)]
        raise InputValidationError(
            f"{func}: {name} must hold {what} indices in [0, {size - 1}] (the size of "
            f"action_dist's axis). Got values {v.format_values(distinct(bad))}."
        )
    return arr


def _target_table(
    action_dist: np.ndarray, action: Any, position: Any, n: int, func: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The target policy's distribution over actions at each round's position:
    (table of shape (n, n_actions), action, rows, position)."""
    if action is None:
        raise InputValidationError(
            f"{func}: action is None, but action_dist has shape {action_dist.shape}; pass the "
            f"logged actions, or the target policy's probability of each logged action as "
            f"a 1-D action_dist."
        )
    probs = v.check_finite(v.as_float(action_dist, "action_dist", func), "action_dist", func)
    fix = "pass the target policy's probabilities of every action"
    v.check_probabilities(probs.ravel(), "action_dist", func, fix)
    sums = probs.sum(axis=1)
    if not np.allclose(sums, 1.0, rtol=_RTOL, atol=_ATOL):
        bad = sums[~np.isclose(sums, 1.0, rtol=_RTOL, atol=_ATOL)]
        raise InputValidationError(
            f"{func}: every row of action_dist must sum to 1 over the actions (axis 1). "
            f"Got sums {v.format_values(distinct(bad))}; pass the target policy's "
            f"probabilities of every action."
        )
    act = _indices(action, "action", func, n, probs.shape[1], "action")
    rows = np.arange(n)
    if probs.ndim == 3:
        pos = (
            np.zeros(n, dtype=np.int64)
            if position is None
            else _indices(position, "position", func, n, probs.shape[2], "position")
        )
        v.check_same_length(func, reward=np.empty(n), action=act, position=pos)
        table = np.ascontiguousarray(probs[rows, :, pos])
    else:
        if position is not None:
            raise InputValidationError(
                f"{func}: position is given, but action_dist has shape {probs.shape}; pass "
                f"action_dist of shape (n_rounds, n_actions, len_list) for positions."
            )
        v.check_same_length(func, reward=np.empty(n), action=act)
        pos = np.zeros(n, dtype=np.int64)
        table = np.ascontiguousarray(probs)
    return table, act, rows, pos


def _row_sums(values: np.ndarray) -> np.ndarray:
    """Sums over each row, action by action: the same float for a row in any batch."""
    total = np.zeros(values.shape[0])
    for a in range(values.shape[1]):
        total += values[:, a]
    return total


def _weights(target: np.ndarray, pscore: np.ndarray, clip: float | None) -> Weights:
    """``target / pscore``, clipped at ``clip`` (the rounds it lowers counted); where a
    quotient is beyond float64 (and not clipped), also at the scale ``2**-TERM_SHIFT``:
    ``target / (pscore 2**TERM_SHIFT)``, the same one rounding of the exact quotient."""
    with np.errstate(over="ignore"):
        weight = target / pscore
    n_clipped = 0
    if clip is not None:
        lowered = weight > clip
        n_clipped = int(np.count_nonzero(lowered))
        weight = np.where(lowered, clip, weight)
    over = np.isinf(weight)
    if not over.any():
        return Weights(weight, None, n_clipped)
    scaled = np.zeros(len(weight))
    scaled[over] = target[over] / np.ldexp(pscore[over], TERM_SHIFT)
    return Weights(weight, scaled, n_clipped)


def round_terms(
    estimator: str,
    clip: float | None,
    reward: Any = None,
    pscore: Any = None,
    action_dist: Any = None,
    action: Any = None,
    position: Any = None,
    estimated_rewards: Any = None,
    estimated_value: Any = None,
) -> RoundTerms:
    """Check one batch of logged feedback and return its per-round terms.

    The importance weight is ``pi(a_i | x_i) / pscore_i`` (clipped at ``clip``);
    the DR term is ``sum_a pi(a | x_i) q(x_i, a) / sum_a pi(a | x_i) +
    w_i (r_i - q(x_i, a_i))``, Open Bandit Pipeline's ``np.average`` form, or,
    with a 1-D ``action_dist``, ``estimated_value_i + w_i (r_i - q_i)`` from the
    per-round columns ``estimated_value`` and ``estimated_rewards`` (``q_i``).
    """
    func = ESTIMATORS[estimator]
    r = v.check_scores(reward, "reward", func)
    p = v.check_scores(pscore, "pscore", func)
    n = v.check_same_length(func, reward=r, pscore=p)
    if p.size and not (p.min() > 0 and p.max() <= 1):
        outside = ~((p > 0) & (p <= 1))
        raise InputValidationError(
            f"{func}: pscore must hold the logging policy's probabilities, in (0, 1]. Got "
            f"values {v.format_values(distinct(p[outside]))}; pass the logging policy's "
            f"probability of each logged action (positive: the action was taken).",
            row=int(np.argmax(outside)),
        )
    if action_dist is None:
        raise InputValidationError(
            f"{func}: action_dist is None; pass the target policy's probability of each "
            f"logged action (1-D) or of every action (n_rounds, n_actions[, len_list])."
        )
    dist = _as_array(action_dist, "action_dist", func)
    if dist.ndim == 2 and dist.shape[1] == 1 and action is None:
        dist = dist[:, 0]
    if dist.ndim not in (1, 2, 3):
        raise InputValidationError(
            f"{func}: action_dist must have 1, 2 or 3 dimensions (n_rounds[, n_actions[, "
            f"len_list]]). Got an array of shape {dist.shape}."
        )
    if dist.shape[0] != n:
        raise InputValidationError(
            f"{func}: reward, pscore and action_dist must have the same length. Got lengths "
            f"[{len(r)}, {len(p)}, {dist.shape[0]}]."
        )
    if dist.ndim > 1 and estimated_value is not None:
        raise InputValidationError(
            f"{func}: estimated_value is given, but action_dist has every action's "
            f"probability (shape {dist.shape}); the model's value comes from "
            f"estimated_rewards then. Pass estimated_value with a 1-D action_dist only."
        )
    if dist.ndim == 1:
        if action is not None or position is not None:
            name = "action" if action is not None else "position"
            raise InputValidationError(
                f"{func}: {name} is given, but action_dist is 1-dimensional (the target "
                f"policy's probability of each logged action); pass action_dist of shape "
                f"(n_rounds, n_actions[, len_list]) with {name}."
            )
        target = v.check_probabilities(
            v.check_finite(v.as_float(dist, "action_dist", func), "action_dist", func),
            "action_dist",
            func,
            "pass the target policy's probability of each logged action",
        )
        weights = _weights(target, p, clip)
        if estimator != "dr":
            return _terms(r, weights, lambda k: weights.times(np.ldexp(r, -k), k))
        if estimated_rewards is None or estimated_value is None:
            raise InputValidationError(
                f"{func}: action_dist is 1-dimensional (the target policy's probability of "
                f"the logged action), so the doubly robust estimate needs estimated_rewards "
                f"(the reward model's estimate of the logged action) and estimated_value "
                f"(its value of the target policy, sum_a pi(a|x) q(x, a)), one per round; "
                f"or pass action_dist of shape (n_rounds, n_actions[, len_list])."
            )
        q = v.check_scores(estimated_rewards, "estimated_rewards", func)
        value = v.check_scores(estimated_value, "estimated_value", func)
        v.check_same_length(func, reward=r, estimated_rewards=q, estimated_value=value)
        return _terms(r, weights, lambda k: _dr(np.ldexp(value, -2 * k), weights, r, q, k))
    table, act, rows, pos = _target_table(dist, action, position, n, func)
    weights = _weights(table[rows, act], p, clip)
    if estimator != "dr":
        return _terms(r, weights, lambda k: weights.times(np.ldexp(r, -k), k))
    if estimated_rewards is None:
        raise InputValidationError(
            f"{func}: estimated_rewards is None; pass the reward model's estimates of every "
            f"action, of the shape of action_dist {dist.shape}."
        )
    q = _as_array(estimated_rewards, "estimated_rewards", func)
    if q.shape != dist.shape:
        raise InputValidationError(
            f"{func}: estimated_rewards must have the shape of action_dist {dist.shape}. "
            f"Got an array of shape {q.shape}."
        )
    q = v.check_finite(v.as_float(q, "estimated_rewards", func), "estimated_rewards", func)
    q_table = np.ascontiguousarray(q[rows, :, pos]) if q.ndim == 3 else np.ascontiguousarray(q)
    logged = q_table[rows, act]

    def term(k: int) -> Any:
        direct = _row_sums(np.ldexp(q_table, -k) * table) / _row_sums(table)
        return _dr(np.ldexp(direct, -k), weights, r, logged, k)

    return _terms(r, weights, term)


def _dr(value: np.ndarray, weights: Weights, r: np.ndarray, q: np.ndarray, k: int) -> Any:
    """The DR terms ``value + w (r - q)``, of ``w``, ``r`` and ``q`` times ``2**-k``
    (``value``: the model's value of the target policy, times ``2**(-2 k)``)."""
    return value + weights.times(np.ldexp(r, -k) - np.ldexp(q, -k), k)

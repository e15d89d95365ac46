"""Off-policy estimates of a target policy's expected reward from logged bandit feedback.

IPS, SNIPS and doubly robust (DR) estimates, each one definition on the engine
whose state holds exact sums of the per-round terms (see
:mod:`receval.metrics._offpolicy_inputs`): ``sum r w``, ``sum w`` and the sum of
the DR terms, with the number of rounds. The value is formed from those sums in
exact rational arithmetic and rounded once, so batches
(:func:`receval.metric`), :func:`receval.scan` columns and one pass give the
same float.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from .. import _validation as v
from ..engine.metric import MetricDefinition, register
from ..engine.sources import run_definition
from ..engine.sums import ExactSum, Term, exact_sums, fieldwise_sum, first_negative
from ..exceptions import InvalidParameterError, RecevalWarning, warn
from ._binary import warn_undefined
from ._offpolicy_inputs import ESTIMATORS, TERM_SHIFT, RoundTerms, check_clip, round_terms

__all__ = [
    "PolicyValueInterval",
    "PolicyValueReport",
    "dr_estimate",
    "ips_estimate",
    "policy_value_interval",
    "policy_value_report",
    "snips_estimate",
]


class PolicyValueInterval(NamedTuple):
    """An estimate of a policy's value and a bootstrap confidence interval: unpacks as
    ``(value, low, high)``."""

    value: float
    low: float
    high: float


@dataclass(frozen=True)
class PolicyValueReport:
    """An estimate of a policy's value, with the rounds whose importance weight its clip
    lowered.

    Attributes
    ----------
    value : float
        The estimate: what :func:`ips_estimate`, :func:`snips_estimate` or
        :func:`dr_estimate` returns.
    estimator : {"ips", "snips", "dr"}
        Which estimate.
    n_rounds : int
        The logged rounds.
    clip : float or None
        The largest importance weight kept (None: no clipping).
    n_rounds_clipped : int
        The rounds whose importance weight was above ``clip``, lowered to it (0
        without a clip).
    """

    value: float
    estimator: str
    n_rounds: int
    clip: float | None
    n_rounds_clipped: int

    def counts(self) -> dict[str, Any]:
        """What the clip changed: ``{"clip", "n_rounds", "n_rounds_clipped"}``, or ``{}``
        without a clip (as ``receval.metric(...).skipped()`` gives it)."""
        if self.clip is None:
            return {}
        return {"clip": self.clip, "n_rounds": self.n_rounds,
                "n_rounds_clipped": self.n_rounds_clipped}  # fmt: skip


@dataclass(frozen=True)
class OffPolicySums:
    """Exact sums of the estimator's terms (``r w`` or the DR terms) over the rounds, of
    those that overflow float64 held times ``2**(-2 * TERM_SHIFT)`` (``scaled``), of the
    weights ``w``, of those that overflow float64 held times ``2**-TERM_SHIFT``
    (``scaled_weight``), the rounds' count and that of the rounds whose weight the clip
    lowered (``n_clipped``)."""

    value: ExactSum
    scaled: ExactSum
    weight: ExactSum
    n_rounds: int
    scaled_weight: ExactSum
    n_clipped: int

    def merge(self, other: OffPolicySums) -> OffPolicySums:
        return fieldwise_sum(self, other)

    def invalid(self) -> tuple[str, str] | None:
        """The field and what it must hold where a loaded state breaks its invariants
        (the weights' sums finite and >= 0, the clipped rounds among the rounds), else
        None."""
        name = first_negative({"weight": self.weight, "scaled_weight": self.scaled_weight})
        if name is not None:
            return name, "a finite sum >= 0"
        if self.n_clipped > self.n_rounds:
            return "n_clipped", f"a count <= n_rounds ({self.n_rounds})"
        return None


def ips_estimate(
    reward: ArrayLike,
    pscore: ArrayLike,
    *,
    action_dist: ArrayLike,
    action: ArrayLike | None = None,
    position: ArrayLike | None = None,
    clip: float | None = None,
) -> float:
    """Estimate a target policy's expected reward by inverse propensity scoring (IPS).

    ``V = mean(w_i r_i)`` with the importance weight ``w_i = pi(a_i | x_i) /
    pscore_i``: the logged rewards reweighted by how much more (or less) often
    the target policy ``pi`` takes the logged action than the logging policy
    did. Unbiased when every action the target policy may take had a positive
    logging probability. Open Bandit Pipeline's ``InverseProbabilityWeighting``.

    Columns of a :func:`receval.scan` are read batch by batch (``reward``,
    ``pscore`` and a 1-D ``action_dist``).

    Parameters
    ----------
    reward : array-like of shape (n_rounds,)
        Observed reward of each logged round (a click: 1 or 0).
    pscore : array-like of shape (n_rounds,)
        The logging policy's probability of the logged action, in (0, 1].
    action_dist : array-like of shape (n_rounds,) or (n_rounds, n_actions[, len_list])
        The target policy: its probability of each logged action (1-D), or of
        every action at each round (and position), as Open Bandit Pipeline's
        ``action_dist``; each row sums to 1 over the actions.
    action : array-like of int of shape (n_rounds,), default=None
        The logged actions, in ``[0, n_actions)``; required with a 2-D or 3-D
        ``action_dist``.
    position : array-like of int of shape (n_rounds,), default=None
        The slot of each logged action in a list (3-D ``action_dist``); None
        means slot 0 for every round.
    clip : float, default=None
        Clip the importance weights at this positive value (``min(w, clip)``:
        Open Bandit Pipeline's ``lambda_``), trading bias for variance. The rounds
        it changes are those with ``w > clip``: :func:`policy_value_report` counts
        them (and ``receval.metric("ips", clip=...).skipped()``, ``receval
        off-policy``).

    Returns
    -------
    value : float
        The estimated expected reward per round.

    Raises
    ------
    InputValidationError
        ``pscore`` outside (0, 1], ``action_dist`` rows not summing to 1 or
        outside [0, 1], actions outside the axis, lengths that differ, NaN,
        empty input.
    InvalidParameterError
        ``clip`` not a positive number.

    See Also
    --------
    snips_estimate : Self-normalized: divides by the sum of the weights.
    dr_estimate : Adds a reward model to cut the variance.
    policy_value_interval : A bootstrap confidence interval of the estimate.
    policy_value_report : The estimate with the rounds its clip lowered.

    Notes
    -----
    :math:`\\hat V_{IPS} = \\frac1n \\sum_i \\frac{\\pi(a_i|x_i)}{\\pi_0(a_i|x_i)}
    r_i` (Horvitz and Thompson 1952; Precup, Sutton and Singh 2000). The sum
    is exact, so the value does not depend on how the rounds are batched.

    References
    ----------
    .. [1] D. G. Horvitz and D. J. Thompson, "A generalization of sampling
       without replacement from a finite universe", JASA 47(260), 1952.
    .. [2] D. Precup, R. S. Sutton and S. Singh, "Eligibility traces for
       off-policy policy evaluation", ICML 2000.

    Examples
    --------
    >>> from receval import ips_estimate
    >>> reward = [1, 0, 1, 0]
    >>> pscore = [0.5, 0.5, 0.25, 0.75]
    >>> ips_estimate(reward, pscore, action_dist=[1.0, 0.0, 0.5, 0.5])
    1.0
    >>> ips_estimate(reward, pscore, action_dist=[1.0, 0.0, 0.5, 0.5], clip=1.5)
    0.75
    >>> dist = [[0.9, 0.1], [0.9, 0.1], [0.2, 0.8], [0.5, 0.5]]
    >>> ips_estimate(reward, pscore, action_dist=dist, action=[0, 1, 1, 0])
    1.25
    """
    value: float = _estimate("ips", clip, reward, pscore, action_dist, action=action,
                             position=position)  # fmt: skip
    return value


def snips_estimate(
    reward: ArrayLike,
    pscore: ArrayLike,
    *,
    action_dist: ArrayLike,
    action: ArrayLike | None = None,
    position: ArrayLike | None = None,
    clip: float | None = None,
) -> float:
    """Estimate a target policy's expected reward by self-normalized IPS (SNIPS).

    ``V = sum(w_i r_i) / sum(w_i)``: the IPS estimate divided by the mean
    importance weight (whose expectation is 1), which bounds the estimate by
    the range of the rewards and cuts its variance at the cost of a small
    bias. Open Bandit Pipeline's ``SelfNormalizedInverseProbabilityWeighting``.

    Parameters
    ----------
    reward : array-like of shape (n_rounds,)
        Observed reward of each logged round.
    pscore : array-like of shape (n_rounds,)
        The logging policy's probability of the logged action, in (0, 1].
    action_dist : array-like of shape (n_rounds,) or (n_rounds, n_actions[, len_list])
        The target policy, as in :func:`ips_estimate`.
    action : array-like of int of shape (n_rounds,), default=None
        The logged actions (with a 2-D or 3-D ``action_dist``).
    position : array-like of int of shape (n_rounds,), default=None
        The slot of each logged action (3-D ``action_dist``).
    clip : float, default=None
        Clip the importance weights at this positive value before normalizing
        (Open Bandit Pipeline's SNIPS has no clipping).

    Returns
    -------
    value : float
        The estimated expected reward per round; ``nan`` with an
        ``UndefinedMetricWarning`` when every importance weight is 0 (the
        target policy never takes a logged action).

    Raises
    ------
    InputValidationError
        As :func:`ips_estimate`.
    InvalidParameterError
        ``clip`` not a positive number.

    See Also
    --------
    ips_estimate : Without the normalization (unbiased).

    Notes
    -----
    :math:`\\hat V_{SNIPS} = \\sum_i w_i r_i / \\sum_i w_i` with
    :math:`w_i = \\pi(a_i|x_i) / \\pi_0(a_i|x_i)`, both sums exact and the
    ratio rounded once.

    References
    ----------
    .. [1] A. Swaminathan and T. Joachims, "The self-normalized estimator for
       counterfactual learning", NeurIPS 2015.

    Examples
    --------
    >>> from receval import snips_estimate
    >>> snips_estimate([1, 0, 1, 0], [0.5, 0.5, 0.25, 0.75], action_dist=[1.0, 0.0, 0.5, 0.5])
    0.8571
    """
    value: float = _estimate("snips", clip, reward, pscore, action_dist, action=action,
                             position=position)  # fmt: skip
    return value


def dr_estimate(
    reward: ArrayLike,
    pscore: ArrayLike,
    *,
    action_dist: ArrayLike,
    estimated_rewards: ArrayLike,
    action: ArrayLike | None = None,
    position: ArrayLike | None = None,
    estimated_value: ArrayLike | None = None,
    clip: float | None = None,
) -> float:
    """Estimate a target policy's expected reward by the doubly robust method (DR).

    ``V = mean(q(x_i, pi) + w_i (r_i - q(x_i, a_i)))``: a reward model's
    estimate of the target policy's reward, ``q(x_i, pi) = sum_a pi(a | x_i)
    q(x_i, a)``, corrected by the importance-weighted error of the model on
    the logged action. Unbiased when the logging probabilities are right or
    the reward model is; its variance is lower than IPS's when the model is
    good. Open Bandit Pipeline's ``DoublyRobust``.

    Parameters
    ----------
    reward : array-like of shape (n_rounds,)
        Observed reward of each logged round.
    pscore : array-like of shape (n_rounds,)
        The logging policy's probability of the logged action, in (0, 1].
    action_dist : array-like of shape (n_rounds, n_actions[, len_list]) or (n_rounds,)
        The target policy's probability of every action at each round (and
        position); each row sums to 1 over the actions. Or, 1-D, its
        probability of the logged action, with ``estimated_value``: the form
        of one number per round that scans and Spark columns take.
    estimated_rewards : array-like of the shape of ``action_dist``
        The reward model's estimate ``q(x_i, a)`` of every action at each
        round (and position): Open Bandit Pipeline's
        ``estimated_rewards_by_reg_model``. With a 1-D ``action_dist``: its
        estimate of the logged action, ``q(x_i, a_i)``.
    action : array-like of int of shape (n_rounds,), default=None
        The logged actions, in ``[0, n_actions)`` (needed with a 2-D or 3-D
        ``action_dist``).
    position : array-like of int of shape (n_rounds,), default=None
        The slot of each logged action (3-D ``action_dist``); None: slot 0.
    estimated_value : array-like of shape (n_rounds,), default=None
        With a 1-D ``action_dist`` only: the reward model's value of the target
        policy at each round, ``sum_a pi(a | x_i) q(x_i, a)`` (the direct
        method's term).
    clip : float, default=None
        Clip the importance weights at this positive value (Open Bandit
        Pipeline's ``lambda_``).

    Returns
    -------
    value : float
        The estimated expected reward per round.

    Raises
    ------
    InputValidationError
        As :func:`ips_estimate`; ``estimated_rewards`` of another shape than
        ``action_dist``; a 1-D ``action_dist`` without ``estimated_value``, or
        ``estimated_value`` with a 2-D or 3-D one.
    InvalidParameterError
        ``clip`` not a positive number.

    See Also
    --------
    ips_estimate : Without a reward model.

    Notes
    -----
    :math:`\\hat V_{DR} = \\frac1n \\sum_i \\big[\\sum_a \\pi(a|x_i) \\hat
    q(x_i, a) + w_i (r_i - \\hat q(x_i, a_i))\\big]`. The direct term is
    divided by :math:`\\sum_a \\pi(a|x_i)` (1 up to rounding), as Open Bandit
    Pipeline's ``np.average``.

    References
    ----------
    .. [1] M. Dudík, J. Langford and L. Li, "Doubly robust policy evaluation
       and learning", ICML 2011.

    Examples
    --------
    >>> from receval import dr_estimate
    >>> dist = [[0.9, 0.1], [0.9, 0.1], [0.2, 0.8], [0.5, 0.5]]
    >>> q = [[0.6, 0.2], [0.6, 0.2], [0.4, 0.5], [0.3, 0.3]]
    >>> dr_estimate([1, 0, 1, 0], [0.5, 0.5, 0.25, 0.75], action_dist=dist,
    ...             estimated_rewards=q, action=[0, 1, 1, 0])
    0.995
    """
    value: float = _estimate(
        "dr", clip, reward, pscore, action_dist, action=action, position=position,
        estimated_rewards=estimated_rewards, estimated_value=estimated_value,
    )  # fmt: skip
    return value


def policy_value_report(
    reward: ArrayLike,
    pscore: ArrayLike,
    *,
    action_dist: ArrayLike,
    action: ArrayLike | None = None,
    position: ArrayLike | None = None,
    estimated_rewards: ArrayLike | None = None,
    estimated_value: ArrayLike | None = None,
    estimator: str = "ips",
    clip: float | None = None,
) -> PolicyValueReport:
    """Estimate a target policy's expected reward, with the rounds whose weight the clip lowered.

    The value is what :func:`ips_estimate`, :func:`snips_estimate` or
    :func:`dr_estimate` returns (``estimator``), from the same pass over the
    rounds, which also counts the rounds whose importance weight is above
    ``clip`` (the estimate uses ``clip`` in their place).

    Parameters
    ----------
    reward, pscore, action_dist, action, position, estimated_rewards, estimated_value
        The logged feedback, as in :func:`ips_estimate` and :func:`dr_estimate`
        (``estimated_rewards`` and ``estimated_value`` for ``estimator="dr"`` only).
    estimator : {"ips", "snips", "dr"}, default="ips"
        Which estimate.
    clip : float, default=None
        Clip the importance weights at this positive value.

    Returns
    -------
    report : PolicyValueReport
        ``value``, ``n_rounds``, ``clip`` and ``n_rounds_clipped``.

    Raises
    ------
    InvalidParameterError
        Unknown ``estimator``; bad ``clip``; ``estimated_rewards`` or
        ``estimated_value`` with another estimator than ``"dr"``.
    InputValidationError
        As the estimators.

    Examples
    --------
    >>> from receval import policy_value_report
    >>> report = policy_value_report([1, 0, 1, 0], [0.5, 0.5, 0.25, 0.75],
    ...                              action_dist=[1.0, 0.0, 0.5, 0.5], clip=1.5)
    >>> report.value, report.n_rounds_clipped, report.n_rounds  # weights 2, 0, 2, 2/3
    (0.75, 2, 4)
    """
    func = "policy_value_report"
    v.check_option(estimator, "estimator", func, sorted(ESTIMATORS))
    _dr_only(estimator, func, estimated_rewards=estimated_rewards, estimated_value=estimated_value)
    columns = {"estimated_rewards": estimated_rewards, "estimated_value": estimated_value}
    report: PolicyValueReport = _estimate(
        estimator, clip, reward, pscore, action_dist, action=action, position=position,
        report=True, **({} if estimator != "dr" else columns),
    )  # fmt: skip
    return report


def _dr_only(estimator: str, func: str, **given: Any) -> None:
    """Refuse the reward model's arguments given to another estimator than DR."""
    for name, value in given.items():
        if estimator != "dr" and value is not None:
            raise InvalidParameterError(
                f"{func}: {name} is given, but estimator is {estimator!r}; pass "
                f"estimator='dr' to use the reward model."
            )


def _estimate(
    estimator: str,
    clip: Any,
    reward: Any,
    pscore: Any,
    action_dist: Any,
    report: bool = False,
    **columns: Any,
) -> Any:
    """The estimate (``report``: its :class:`PolicyValueReport`) of one estimator."""
    defn = (REPORTS_BY_ESTIMATOR if report else DEFINITIONS_BY_ESTIMATOR)[estimator]
    columns = {"reward": reward, "pscore": pscore, "action_dist": action_dist, **columns}
    why = "pass a 1-D action_dist column (the target policy's probability of the logged action)"
    memory_only = {name: (columns[name], None) for name in ("action", "position")}
    return run_definition(defn, defn.check_params(clip=clip), columns,
                          func=ESTIMATORS[estimator], memory_only=memory_only,
                          why=why)  # fmt: skip


# ------------------------------------------------------------------ definitions
def _check(estimator: str) -> Any:
    func = ESTIMATORS[estimator]

    def check(clip: Any = None) -> dict[str, Any]:
        return {"estimator": estimator, "clip": check_clip(clip, func)}

    return check


def _prepare(params: dict[str, Any], *data: Any, **columns: Any) -> Any:
    return round_terms(params["estimator"], params["clip"], *data, **columns)


def _update(params: dict[str, Any], batch: Any) -> OffPolicySums:
    return _sums(batch)


def _sums(batch: RoundTerms) -> OffPolicySums:
    """The sums of a batch's terms: those that overflow at their scale."""
    value, scaled = batch.value, batch.scaled
    weight, scaled_weight = batch.weight, batch.scaled_weight
    if scaled is None:
        scaled = np.zeros(0)
    else:
        value = np.where(np.isfinite(value), value, 0.0)
    if scaled_weight is None:
        scaled_weight = np.zeros(0)
    else:
        weight = np.where(np.isfinite(weight), weight, 0.0)
    terms: list[Term] = [(value, None, "value"), (scaled, None, "value"),
                         (weight, None, "value"), (scaled_weight, None, "value")]  # fmt: skip
    value_sum, scaled_sum, weight_sum, scaled_weight_sum = exact_sums(terms)
    return OffPolicySums(value_sum, scaled_sum, weight_sum, len(batch.reward), scaled_weight_sum,
                         batch.n_clipped)  # fmt: skip


def _empty(params: dict[str, Any]) -> OffPolicySums:
    z = ExactSum.zero()
    return OffPolicySums(z, z, z, 0, z, 0)


def _left_out(params: dict[str, Any], state: OffPolicySums) -> dict[str, Any]:
    """What the clip changed (``Accumulator.skipped()``): its rounds, ``{}`` without one."""
    return _report(params, state).counts()


def _report(params: dict[str, Any], state: OffPolicySums) -> PolicyValueReport:
    return PolicyValueReport(_finalize(params, state), params["estimator"], state.n_rounds,
                             params["clip"], state.n_clipped)  # fmt: skip


def _finalize(params: dict[str, Any], state: OffPolicySums) -> float:
    func = ESTIMATORS[params["estimator"]]
    if state.n_rounds == 0:
        return warn_undefined(f"{func}: no round was given (returned as nan).")
    value = _exact_value(params["estimator"], state)
    if value is None:
        return warn_undefined(
            f"{func}: every importance weight is zero (the target policy takes none of the "
            f"logged actions), so the estimate is undefined (returned as nan)."
        )
    return _rounded(value)


def _exact_value(estimator: str, state: OffPolicySums) -> Fraction | float | None:
    """The estimate of a nonempty state in exact arithmetic, before its one rounding (a
    float where a sum is not finite); None for SNIPS when every weight is 0."""
    numerator = _at_scale(state.value, state.scaled, 2 * TERM_SHIFT)
    if estimator != "snips":
        return numerator / state.n_rounds
    denominator = _at_scale(state.weight, state.scaled_weight, TERM_SHIFT)
    if isinstance(numerator, float) or isinstance(denominator, float):
        return float(numerator) / float(denominator)
    if denominator == 0:
        return None
    return Fraction(numerator) / denominator


def _at_scale(unscaled: ExactSum, scaled: ExactSum, shift: int) -> Fraction | float:
    """``unscaled + scaled * 2**shift``: a sum of which the terms beyond float64 are held
    times ``2**-shift``."""
    low, high = unscaled.as_fraction(), scaled.as_fraction()
    if isinstance(low, float) or isinstance(high, float):
        return float(low) + float(high)  # not finite
    total: Fraction = low + high * 2**shift
    return total


def _rounded(value: Fraction | float) -> float:
    """``value`` rounded once to float64: +-inf beyond its range (a mean of terms near
    1e600, of rewards near 1e300 weighted 1e300)."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


DEFINITIONS_BY_ESTIMATOR = {
    name: register(
        MetricDefinition(
            name=name,
            check_params=_check(name),
            prepare=_prepare,
            update=_update,
            empty=_empty,
            finalize=_finalize,
            left_out=_left_out,
        ),
    )
    for name in ESTIMATORS
}
#: The definitions whose value is the :class:`PolicyValueReport` (policy_value_report)
REPORTS_BY_ESTIMATOR = {
    name: replace(defn, name=f"{name}_report", finalize=_report)
    for name, defn in DEFINITIONS_BY_ESTIMATOR.items()
}


# ------------------------------------------------------------------ intervals
def policy_value_interval(
    reward: ArrayLike,
    pscore: ArrayLike,
    *,
    action_dist: ArrayLike,
    action: ArrayLike | None = None,
    position: ArrayLike | None = None,
    estimated_rewards: ArrayLike | None = None,
    estimated_value: ArrayLike | None = None,
    estimator: str = "ips",
    clip: float | None = None,
    confidence: float = 0.95,
    n_resamples: int = 10_000,
    seed: int = 0,
) -> PolicyValueInterval:
    """Estimate a target policy's expected reward with a bootstrap confidence interval.

    The rounds are resampled with replacement ``n_resamples`` times; the
    interval is the ``(1 - confidence) / 2`` and ``(1 + confidence) / 2``
    percentiles of the estimates on the resamples, as Open Bandit Pipeline's
    ``estimate_interval`` (``alpha = 1 - confidence``, ``n_bootstrap_samples =
    n_resamples``, ``random_state = seed``).

    Parameters
    ----------
    reward, pscore, action_dist, action, position, estimated_rewards, estimated_value
        The logged feedback, as in :func:`ips_estimate` and :func:`dr_estimate`
        (``estimated_rewards`` and ``estimated_value`` for ``estimator="dr"`` only).
    estimator : {"ips", "snips", "dr"}, default="ips"
        Which estimate.
    clip : float, default=None
        Clip the importance weights at this positive value.
    confidence : float, default=0.95
        Coverage of the interval, in (0, 1).
    n_resamples : int, default=10_000
        Bootstrap resamples.
    seed : int, default=0
        Seed of the resamples (NumPy's ``RandomState``, as Open Bandit
        Pipeline); the same seed gives the same interval.

    Returns
    -------
    interval : PolicyValueInterval
        ``(value, low, high)``: ``value`` is the estimate on all the rounds
        (what :func:`ips_estimate`, :func:`snips_estimate` or
        :func:`dr_estimate` returns), ``low`` and ``high`` the bounds.

    Raises
    ------
    InvalidParameterError
        Unknown ``estimator``; ``confidence`` outside (0, 1); ``n_resamples``
        below 1; ``seed`` negative or not below 2**32; bad ``clip``.
    InputValidationError
        As the estimators.

    Warns
    -----
    RecevalWarning
        SNIPS: some resamples have no round of positive weight (left out;
        the message counts them).
    UndefinedMetricWarning
        SNIPS: no resample has one (nan bounds).

    Notes
    -----
    IPS and DR resample the per-round terms (``w_i r_i``, the DR term) and
    take their mean, drawing the same indices as Open Bandit Pipeline for the
    same seed, so the bounds are the same. SNIPS recomputes
    ``sum(w r) / sum(w)`` on each resample (the ratio's own bootstrap), where
    Open Bandit Pipeline resamples ``w_i r_i / mean(w)`` with the mean weight
    of all the rounds fixed; the two intervals differ. Open Bandit Pipeline
    also reports the mean of the resampled estimates where receval reports
    the estimate itself.

    A SNIPS resample whose rounds all have a zero importance weight (the
    target policy takes none of their logged actions) has no estimate
    (0 / 0): such resamples are left out, and a ``RecevalWarning`` says how
    many of the ``n_resamples``; the bounds are the percentiles of the
    others (the bootstrap given that a resample has an estimate), and nan,
    with an ``UndefinedMetricWarning``, when no resample has one. Many such
    resamples mean few rounds of positive weight: the interval is then
    unreliable however narrow it is.

    Each resample's estimate is computed as the estimates are, in exact
    arithmetic (the terms beyond float64, from a pscore below about 5e-309 or
    terms near 1e308, at a scale), and the percentiles are interpolated
    exactly and rounded once: a resample of the very rounds of the data gives
    the estimate itself (float64 sums could miss it by a unit in the last
    place), and a bound is finite wherever it is within float64's range (inf,
    as the estimate, beyond it).

    Examples
    --------
    >>> from receval import policy_value_interval
    >>> reward = [1, 0, 1, 0, 1, 1, 0, 0]
    >>> pscore = [0.5, 0.5, 0.25, 0.75, 0.5, 0.5, 0.25, 0.5]
    >>> target = [1.0, 0.0, 0.5, 0.5, 0.5, 1.0, 0.0, 0.5]
    >>> value, low, high = policy_value_interval(reward, pscore, action_dist=target,
    ...                                          n_resamples=1000)
    >>> value, low <= value <= high
    (0.875, True)

    With one round of positive weight in ten, about a third of the SNIPS
    resamples leave it out:

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     interval = policy_value_interval([1] + [0] * 9, [0.5] * 10,
    ...                                      action_dist=[1.0] + [0.0] * 9,
    ...                                      n_resamples=1000, estimator="snips")
    >>> interval
    PolicyValueInterval(value=1.0, low=1.0, high=1.0)
    >>> print(caught[0].message)
    policy_value_interval: 356 of 1,000 resamples have no round with a positive importance
    weight, where SNIPS is undefined (0 / 0); the bounds are the percentiles of the other
    644 (1 of 10 rounds has a positive weight: the interval is unreliable); use more
    rounds, or estimator='ips'.
    """
    func = "policy_value_interval"
    v.check_option(estimator, "estimator", func, sorted(ESTIMATORS))
    confidence = float(
        v.check_number(
            confidence, "confidence", func, low=0.0, high=1.0,
            low_inclusive=False, high_inclusive=False,
        )
    )  # fmt: skip
    n_resamples = int(v.check_number(n_resamples, "n_resamples", func, integer=True, low=1))
    seed = int(v.check_number(seed, "seed", func, integer=True, low=0, high=2**32 - 1))
    _dr_only(estimator, func, estimated_rewards=estimated_rewards, estimated_value=estimated_value)
    defn = DEFINITIONS_BY_ESTIMATOR[estimator]
    params = defn.check_params(clip=check_clip(clip, func))
    terms = round_terms(estimator, params["clip"], reward, pscore, action_dist, action, position,
                        estimated_rewards, estimated_value)  # fmt: skip
    n = len(terms.reward)
    v.check_not_empty(n, "reward", ESTIMATORS[estimator])
    value = defn.finalize(params, defn.update(params, terms))
    rng = np.random.RandomState(seed)
    replicates: list[Fraction | float] = []  # each resample's estimate, before its rounding
    for _ in range(n_resamples):
        replicate = _resampled(estimator, terms, rng.choice(n, size=n))
        if not (isinstance(replicate, float) and math.isnan(replicate)):
            replicates.append(replicate)
    kept = len(replicates)
    if estimator == "snips":
        left_out = n_resamples - kept
        if left_out and kept and not np.isnan(value):
            positive = int(np.count_nonzero(terms.weight))
            warn(
                f"{func}: {left_out:,} of {v.counted(n_resamples, 'resample')} "
                f"{v.verb(left_out, 'has')} no round with a positive "
                f"importance weight, where SNIPS is undefined (0 / 0); the bounds are the "
                f"percentiles of the other {kept:,} ({positive:,} of {v.counted(n, 'round')} "
                f"{v.verb(positive, 'has')} a positive weight: the interval is "
                f"unreliable); use more rounds, or estimator='ips'.",
                RecevalWarning,
            )
        elif left_out and not np.isnan(value):
            warn_undefined(
                f"{func}: none of the {v.counted(n_resamples, 'resample')} has a round with a "
                f"positive "
                f"importance weight, where SNIPS is undefined (0 / 0), so the bounds are nan; "
                f"use more rounds or resamples, or estimator='ips'."
            )
    if kept == 0:
        return PolicyValueInterval(value, float("nan"), float("nan"))
    alpha = 1.0 - confidence
    low, high = (_percentile(replicates, 100 * q) for q in (alpha / 2, 1.0 - alpha / 2))
    return PolicyValueInterval(value, low, high)


def _resampled(estimator: str, terms: RoundTerms, idx: np.ndarray) -> Fraction | float:
    """The estimate on the rounds ``idx`` in exact arithmetic, before its rounding: its
    terms summed as the estimators sum them (those beyond float64 at their scale)."""
    scaled, scaled_weight = (None if x is None else x[idx]
                             for x in (terms.scaled, terms.scaled_weight))  # fmt: skip
    rows = RoundTerms(terms.reward[idx], terms.weight[idx], terms.value[idx], scaled,
                      scaled_weight)  # fmt: skip
    value = _exact_value(estimator, _sums(rows))
    return math.nan if value is None else value


def _percentile(values: list[Fraction | float], q: float) -> float:
    """``np.percentile(values, q)`` (its linear interpolation between the two nearest
    values) of values some of them exact fractions, maybe beyond float64's range:
    computed exactly and rounded once (+-inf beyond the range)."""
    ordered = sorted(values)
    h = (len(ordered) - 1) * (q / 100)
    i = math.floor(h)
    low = Fraction(ordered[i])
    if i + 1 == len(ordered):
        return _rounded(low)
    return _rounded(low + (Fraction(ordered[i + 1]) - low) * Fraction(h - i))

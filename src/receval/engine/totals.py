"""Mergeable states of the pointwise metrics: rows -> state, state + state, state -> value.

Out of core (batch by batch) and on Spark (one state per partition, merged on the
driver) the rows reduce to these states, with the in-memory functions' own
validation and kernels, and the merged state's value equals the in-memory function
on all the rows. :class:`Totals` (log loss, PCOC, COPC) takes any split;
:class:`ScoreRange` (exact ROC AUC, no binning) disjoint score ranges (Spark's
``repartitionByRange``; out of core :func:`score_ranges` cuts them from a first
pass's histogram); :class:`GroupTotals` (GAUC) whole groups; :class:`MeanState`
(the means of :func:`receval.evaluate`) whole users. The batches of the metrics of
:class:`Totals` come in through :func:`totals_prepare` and :func:`totals_updates`
(their ``prepare``, ``update``, ``update_into`` and ``update_plain``).

Float sums are exact (:class:`receval.engine.sums.ExactSum`, rounded once when the
value is read), as the in-memory functions compute them, and counts and unweighted
AUCs are integers (weighted: each label's integers in units of its lowest bit):
a merged state gives the in-memory float whatever the split; a group's AUC
(weighted or not) is the exact ``2U / (2 P N)`` of its own rows rounded once, the
float :func:`receval.roc_auc_score` gives them, in any split of the groups.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, fields, replace
from fractions import Fraction
from itertools import pairwise
from typing import Any, TypedDict

import numpy as np

from .. import _validation as v
from .._kernels import compiled
from ..exceptions import InputValidationError
from ..registry.trec_eval import GEOMETRIC_FLOOR
from .kinds import MERGED, NO_LABELS, UPDATE, LabelKind
from .metric import data_columns, second_and_weight
from .rounding import ROUNDING, RoundedWeights
from .states import EXPONENT, at_one_weight_shift, invalid_state, plain_pair
from .sums import (
    WEIGHT_SHIFT,
    ExactSum,
    Term,
    chunks_for,
    exact_group_sums,
    exact_sums,
    fieldwise_sum,
    first_negative,
    ratio,
    scaled_by_shift,
    scaled_value,
    weight_shift,
)

__all__ = [
    "GroupTotals",
    "MeanState",
    "ScoreRange",
    "Totals",
    "auc_from_ranges",
    "check_eps",
    "clip_eps",
    "score_ranges",
    "totals_empty",
    "totals_prepare",
    "totals_updates",
]

_EPS = float(np.finfo(np.float64).eps)
_EPS32 = float(np.finfo(np.float32).eps)  # np.finfo costs microseconds a call
_EPS16 = float(np.finfo(np.float16).eps)
_F32 = np.dtype(np.float32)


# ------------------------------------------------------------------ log loss, PCOC
@dataclass(frozen=True)
class Totals:
    """Sums behind log loss, PCOC and COPC over some rows, exact (:class:`ExactSum`).

    Every sum of weights is held times ``2**-w_shift``: 0 unless a batch's largest
    weight is beyond ``2**±64``, whose weights are then scaled into ``[0.5, 1)`` first
    (exact), so that the products of weights near 5e-324 and probabilities keep their
    bits; without the log loss (PCOC, COPC) only weights below ``2**-64`` are scaled,
    up, for a subnormal probability times a weight near 1e308 keeps its bits only at
    scale 1 (the exact sums hold sums of such weights). States of different shifts
    merge at the larger one: the other's sums lose only the bits below ``2**-1074``
    of that scale.

    Attributes
    ----------
    n_rows : int
    weight : ExactSum
        Sum of the sample weights (``n_rows`` without weights).
    loss : ExactSum
        Weighted sum of the binary log loss, probabilities clipped to [eps, 1 - eps].
    predicted : ExactSum
        Weighted sum of the predicted probabilities.
    observed : ExactSum
        Weighted number of clicks.
    big_loss : ExactSum
        The loss of the rows weighted above ``2**WEIGHT_SHIFT`` (near 1e308), their
        weights times ``2**-WEIGHT_SHIFT`` (the product would overflow): the loss
        sum is ``loss + big_loss * 2**WEIGHT_SHIFT``.
    labels : LabelKind
        The labels of the rows (:class:`~receval.engine.kinds.LabelKind`), which the
        later rows must share.
    w_shift : int, default=0
        The power of two the sums of weights are held divided by.
    """

    n_rows: int
    weight: ExactSum
    loss: ExactSum
    predicted: ExactSum
    observed: ExactSum
    big_loss: ExactSum = field(default_factory=ExactSum.zero)
    labels: LabelKind = NO_LABELS
    w_shift: int = field(default=0, metadata=EXPONENT)

    def merge(self, other: Totals) -> Totals:
        """The totals of both sets of rows (``other``: another accumulator's)."""
        return self._joined(other, MERGED)

    def absorb(self, other: Totals) -> Totals:
        """:meth:`merge` of an update's totals (a new state: this one stays as it is)."""
        return self._joined(other, UPDATE)

    def _joined(self, other: Totals, where: str) -> Totals:
        labels = self.labels.join(other.labels, where)  # before a sum is added
        a, b = at_one_weight_shift(self, other, _WEIGHTED)
        return replace(fieldwise_sum(a, b), labels=labels, w_shift=a.w_shift)

    def __setstate__(self, state: dict[str, Any]) -> None:
        # pickles and state_dicts. A state saved before a field existed takes its default,
        # in the fields' order (a merge adds the fields in that order); the labels of one
        # saved before its metric took pos_label: see receval.engine.kinds.held_01
        if not isinstance(state, dict) or not all(isinstance(k, str) for k in state):
            raise invalid_state(
                f"the totals must be a dict of their fields, got a {type(state).__name__}"
            )
        later = {"big_loss": ExactSum.zero(), "labels": NO_LABELS, "w_shift": 0}
        names = [f.name for f in fields(self)]
        self.__dict__.update({k: state[k] if k in state else later[k] for k in names
                              if k in state or k in later})  # fmt: skip
        self.__dict__.update({k: x for k, x in state.items() if k not in names})

    def invalid(self) -> tuple[str, str] | None:
        """The field and what it must hold where a state read from a pickle or a
        ``state_dict`` breaks the invariants of sums of rows, else None: every sum finite
        and >= 0 (weights and losses are), the probabilities' and the clicks' at most the
        weight's (each row's at most its weight), and no sum but 0 without a row."""
        sums = {name: getattr(self, name) for name in _WEIGHTED}
        problem = _sums_problem(sums, ("predicted", "observed"), self.weight)
        if problem is not None:
            return problem
        if self.n_rows == 0 and any(s.as_fraction() for s in sums.values()):
            return "n_rows", "a count > 0 where the sums are not 0"
        return None

    def invalid_unweighted(self) -> tuple[str, str] | None:
        """:meth:`invalid` of the rows of updates that gave no ``sample_weight``: each
        weighs 1, so the weight is the number of rows, unscaled."""
        if self.w_shift != 0:
            return "w_shift", "0"
        if self.weight.as_fraction() != self.n_rows:
            return "n_rows", f"the weight of the rows ({self.weight.value!r})"
        return None

    def mean_loss(self) -> float:
        """The weighted mean log loss (the weight not zero), rounded as the function's."""
        return ratio(self.loss, self.weight, self.big_loss)

    def class_shares(self) -> tuple[Fraction, Fraction]:
        """The positives' and the negatives' shares of the weight (not zero), exact: the
        negatives' weight is the total's less the positives', of the exact sums."""
        positives, total = self.observed.as_fraction(), self.weight.as_fraction()
        assert isinstance(positives, Fraction) and isinstance(total, Fraction)  # finite
        return positives / total, (total - positives) / total

    def normalized_entropy(self) -> float | None:
        """The mean log loss over the entropy of the weighted base rate (the weight not
        zero); None where one class has all the weight (that entropy is 0)."""
        scaled = self.scaled_normalized_entropy()
        if scaled is None:
            return None
        with np.errstate(over="ignore"):  # a value beyond float64's range is inf
            return float(np.ldexp(*scaled))

    def scaled_normalized_entropy(self) -> tuple[float, int] | None:
        """:meth:`normalized_entropy` as ``(x, e)``, the value ``x * 2**e``: a value
        beyond float64's range divided by another (calibration-free NE's) is not inf.

        The entropy is that of the exact shares ``s`` (the smaller, in ``(0, 1/2]``) and
        ``1 - s``: ``s (-ln s + g)``, ``g = -(1 - s) ln(1 - s) / s``, ``s = m 2**k``,
        each term positive and of its own share, so that labels flipped (``y -> 1 - y``,
        ``p -> 1 - p``) give the same value, and shares or losses below float64's range
        neither underflow nor round to a single class."""
        small = min(self.class_shares())
        if small == 0:
            return None
        k = small.numerator.bit_length() - small.denominator.bit_length()
        k += int(small * Fraction(2) ** -k >= 1)  # one k of each share, whatever its terms
        m = float(small * Fraction(2) ** -k)  # in [0.5, 1)
        s = math.ldexp(m, k)  # 0 or subnormal where the share is below float64's range
        # the larger share's term over s: 1 - s/2 - s**2/6 - ... near 0
        g = (1 - s) * -math.log1p(-s) / s if s > 2.0**-26 else 1 - s / 2
        # the mean loss: mantissas divided first, as mean_loss divides (and rounds) them,
        # without its under- or overflow
        a, i = scaled_value(self.loss, self.big_loss)
        b, j = scaled_value(self.weight)
        (a, da), (b, db) = math.frexp(a), math.frexp(b)
        return a / b / (m * (g - math.log(m) - k * math.log(2))), i + da - j - db - k


def _sums_problem(
    sums: dict[str, ExactSum], within: tuple[str, ...], weight: ExactSum
) -> tuple[str, str] | None:
    """The field of a loaded state's ``sums`` (by field, the weight's among them) that is
    not finite and >= 0, or of those ``within`` the weight's that exceeds it, and what
    it must be; None where every sum is so."""
    if (name := first_negative(sums)) is not None:
        return name, "a finite sum >= 0"
    for name in within:
        if sums[name].as_fraction() > weight.as_fraction():
            return name, f"a sum <= the weight's ({weight.value!r})"
    return None


EMPTY_TOTALS = Totals(0, ExactSum.zero(), ExactSum.zero(), ExactSum.zero(), ExactSum.zero())
#: the fields of :class:`Totals` held in units of ``2**-w_shift``
_WEIGHTED = ("weight", "loss", "predicted", "observed", "big_loss")


def _loss_sum(
    labels: np.ndarray, proba: np.ndarray, weights: np.ndarray | None, eps: float
) -> ExactSum:
    """Exact (weighted) log loss sum of validated 0/1 labels and probabilities."""
    labels, proba = np.ascontiguousarray(labels), np.ascontiguousarray(proba)  # core: C order
    w_arg = np.empty(0) if weights is None else np.ascontiguousarray(weights)
    chunks = chunks_for(len(labels))
    return ExactSum(compiled().binary_log_loss_exact(labels, proba, w_arg, eps, chunks))


def _click_terms(labels: np.ndarray, proba: np.ndarray, weights: np.ndarray | None) -> list[Term]:
    """The terms of the (weighted) sums of the predicted probabilities and of the clicks."""
    if weights is None:
        return [
            (proba, None, "value"),
            (np.array([float(np.count_nonzero(labels))]), None, "value"),
        ]
    return [(proba, weights, "value"), (weights[labels == 1], None, "value")]


def totals_of(
    labels: np.ndarray,
    proba: np.ndarray,
    weights: np.ndarray | None,
    eps: float = _EPS,
    *,
    loss: bool = True,
    clicks: bool = True,
    shift: int | None = None,
) -> Totals:
    """The :class:`Totals` of validated 0/1 labels, probabilities and weights, in one call
    of the core; without ``loss`` the log-loss sum, without ``clicks`` the click sums,
    are left at zero. The weights are divided by ``2**shift`` first (default: their
    :func:`~receval.engine.sums.weight_shift`)."""
    if len(labels) == 0:
        return EMPTY_TOTALS
    if weights is not None and shift is None:
        weights, shift = scaled_by_shift(weights)
    elif weights is not None and shift:
        weights = np.ldexp(weights, -shift)
    zero = ExactSum.zero()
    weight: Term = (np.array([float(len(labels))]) if weights is None else weights, None, "value")
    terms = [weight] + (_click_terms(labels, proba, weights) if clicks else [])
    if loss and weights is not None and weights.max() > 2.0**WEIGHT_SHIFT:
        big = weights > 2.0**WEIGHT_SHIFT
        shifted = np.ldexp(weights[big], -WEIGHT_SHIFT)
        sums = exact_sums(terms, (labels[~big], proba[~big], weights[~big], eps))
        big_loss = _loss_sum(labels[big], proba[big], shifted, eps)
    else:
        w_arg = np.empty(0) if weights is None else weights
        sums = exact_sums(terms, (labels, proba, w_arg, eps) if loss else None)
        big_loss = zero
    total, *rest = sums
    predicted, observed = (rest[0], rest[1]) if clicks else (zero, zero)
    loss_sum = rest[-1] if loss else zero
    return Totals(len(labels), total, loss_sum, predicted, observed, big_loss, w_shift=shift or 0)


# ------------------------------------------------------------------ batches of Totals
def _plain_weights(sample_weight: Any, y_true: np.ndarray) -> bool:
    """Whether ``sample_weight`` is None or a float64 NumPy array of ``y_true``'s shape
    (the weights the core checks and sums with the labels)."""
    return sample_weight is None or (
        type(sample_weight) is np.ndarray
        and sample_weight.dtype == np.float64
        and sample_weight.shape == y_true.shape
    )


def totals_prepare(func: str, prob: str) -> Any:
    """``prepare`` of the metrics of :class:`receval.engine.totals.Totals`: one batch of
    labels as 0/1, probabilities (the argument ``prob``), weights and the labels it
    was given (a :class:`~receval.engine.kinds.LabelKind`), validated as the
    functions validate them; None for an empty batch.

    The labels are any two by the rule of the binary metrics:
    ``params["pos_label"]`` names the positive one; without it {0, 1}, bools or
    {-1, 1}, 1 positive, and numbers within [0, 1] must be 0 and 1 (a soft label
    is refused)."""

    def prepare(params: dict[str, Any], y_true: Any, *args: Any, **kwargs: Any) -> Any:
        y_prob, sample_weight = second_and_weight(func, prob, args, kwargs)
        yt, yp, sw = data_columns(
            func, ("y_true", y_true), (prob, y_prob), ("sample_weight", sample_weight)
        )
        if len(yt) == 0:
            return None
        if params["pos_label"] is not None or not _within01(yt):
            labels, negative = v.binarize_labels(yt, params["pos_label"], func)
        else:
            labels = v.check_binary01(yt, func)
            negative = None if labels.all() else 0
        eps = clip_eps(params.get("eps", "auto"), yp.dtype)
        proba = v.check_probabilities(
            v.check_finite(v.as_float(yp, prob, func), prob, func), prob, func
        )
        weights = v.check_sample_weight(sw, len(yt), func)
        return labels, proba, weights, eps, LabelKind.of(negative, params["pos_label"], func)

    return prepare


def _within01(y: np.ndarray) -> bool:
    """Whether labels are bools, or numbers within [0, 1] (NaN aside)."""
    if y.dtype.kind == "b":
        return True
    if y.dtype.kind not in "iuf":
        return False
    kept = y[~np.isnan(y)] if y.dtype.kind == "f" else y
    return bool(kept.size == 0 or (kept.min() >= 0 and kept.max() <= 1))


class TotalsUpdates(TypedDict):
    """The ``update``, ``update_into`` and ``update_plain`` of a metric of :class:`Totals`."""

    update: Callable[[dict[str, Any], Any], Any]
    update_into: Callable[[dict[str, Any], Any, Any], Any]
    update_plain: Callable[[dict[str, Any], Any, tuple[Any, ...]], Any]


def totals_updates(func: str, *, loss: bool, clicks: bool) -> TotalsUpdates:
    """``update``, ``update_into`` and ``update_plain`` of the metric ``func`` of
    :class:`Totals`, which reads the log-loss sum (``loss``; ``params["eps"]`` clips
    it) or the click sums (``clicks``): the sums it does not read stay zero, so that
    a batch costs only what the metric needs. A batch of plain arrays is checked,
    summed and added to the state in one call of the core (``update`` adds it to the
    empty state), which takes 0/1 labels without ``pos_label`` beside a state of 0/1
    labels (or of none known yet) and records them; other labels go through
    :func:`totals_prepare`."""
    core = compiled()

    def add(params: dict[str, Any], state: Totals, y_true: Any, y_prob: Any, weights: Any) -> Any:
        """The state with the batch added by the core: a :class:`Totals`, a refusal, or
        None where the core does not take the batch."""
        eps = clip_eps(params.get("eps", "auto"), y_prob.dtype)
        base = (state.weight.digits, state.loss.digits, state.predicted.digits,
                state.observed.digits)  # fmt: skip
        sums = core.totals_checked(y_true, y_prob, eps, loss, clicks, weights, base)
        if sums is None or isinstance(sums, tuple):
            return sums
        # the sums the metric does not read are the state's own (the core left them)
        loss_sum = ExactSum(sums[1]) if loss else state.loss
        predicted, observed = (ExactSum(sums[2]), ExactSum(sums[3])) if clicks else (
            state.predicted, state.observed)  # fmt: skip
        held = state.labels
        if held.value is None and y_true.min() == 0:  # 0/1, a 0 among them
            held = LabelKind.of(0, None, func)
        return Totals(state.n_rows + len(y_true), ExactSum(sums[0]), loss_sum, predicted,
                      observed, state.big_loss, held)  # fmt: skip

    def update_into(params: dict[str, Any], state: Totals, batch: Any) -> Any:
        if batch is None:
            return state
        labels, proba, weights, eps, kind = batch
        # without the loss (PCOC, COPC) weights near 1e308 stay as given: scaled down, a
        # subnormal probability times one would lose its bits (the sums hold them)
        shift = None if loss or weights is None else min(weight_shift(weights), 0)
        added = totals_of(labels, proba, weights, eps=eps, loss=loss, clicks=clicks, shift=shift)
        return state.absorb(replace(added, labels=kind))

    def update(params: dict[str, Any], batch: Any) -> Any:
        return update_into(params, EMPTY_TOTALS, batch)

    def update_plain(params: dict[str, Any], state: Totals, columns: tuple[Any, ...]) -> Any:
        """Plain NumPy labels, probabilities and float64 weights (or None) checked,
        summed and added in one pass of the core; None where it does not take them
        (weights to be scaled, a state of scaled weights, all zero) or refuses a
        value."""
        y_true, y_prob, weights = columns
        if (
            params.get("negative_sampling_rate", 1.0) != 1.0
            or not plain_pair(y_true, y_prob, None)
            or not _plain_weights(weights, y_true)
            or params["pos_label"] is not None
            or state.labels.value not in (None, (0, 1))
            or state.w_shift != 0
            or (weights is not None and weight_shift(weights) != 0)
        ):
            return None
        added = add(params, state, y_true, y_prob, weights)
        return None if isinstance(added, tuple) else added

    return {"update": update, "update_into": update_into, "update_plain": update_plain}


def totals_empty(params: dict[str, Any]) -> Any:
    """``empty`` of the metrics of :class:`Totals`."""
    return EMPTY_TOTALS


def check_eps(eps: float | str, func: str) -> float | str:
    """The log-loss clip ``eps``: a number in (0, 0.5], or ``"auto"`` (see :func:`clip_eps`)."""
    if isinstance(eps, str) and eps == "auto":
        return eps
    return float(v.check_number(eps, "eps", func, low=0.0, high=0.5, low_inclusive=False))


def clip_eps(eps: float | str, dtype: Any) -> float:
    """The clip of probabilities of ``dtype``: ``eps``, or for ``"auto"`` the machine
    epsilon of ``dtype`` (float16's or float32's for such input, float64's otherwise),
    as scikit-learn's ``log_loss``. Every backend clips each batch by this rule, so a
    float32 column gives one value in memory, out of core and in Spark."""
    if not isinstance(eps, str):
        return eps
    if dtype is _F32 or dtype == np.float32:
        return _EPS32
    return _EPS16 if dtype == np.float16 else _EPS


# ------------------------------------------------------------------ exact AUC by score ranges
@dataclass(frozen=True)
class ScoreRange:
    """Exact AUC state of the rows whose scores lie in ``[low, high]``.

    Attributes
    ----------
    low, high : float
        Smallest and largest score of the rows (``nan`` for an empty range).
    positives, negatives : int
        Numbers of clicks and non-clicks; with weights, their weights in units of
        ``2**quantum[0]`` and ``2**quantum[1]``.
    two_u : int
        Twice the Mann-Whitney count of the pairs inside the range: a pair counts 2
        when the positive scores higher, 1 when tied (with weights: the product of
        their units).
    quantum : (int, int) or None, default=None
        Weighted rows: the exponents of the units of the positives' and of the
        negatives' weights (each label's lowest bit of any weight, as the in-memory
        state's); None for rows without weights.
    rounded : RoundedWeights or None, default=None
        Weighted rows: the labels whose weights spanned more than the sums hold
        exactly and were rounded; None where every bit was kept.
    """

    low: float
    high: float
    positives: int
    negatives: int
    two_u: int
    quantum: tuple[int, int] | None = None
    rounded: RoundedWeights | None = None

    @property
    def empty(self) -> bool:
        return self.positives == 0 and self.negatives == 0


def auc_from_ranges(ranges: Iterable[ScoreRange]) -> float:
    """ROC AUC of the rows of disjoint score ranges: the in-memory function's float.

    Raises ``InputValidationError`` when two ranges overlap (the rows of one
    score value split across ranges): range-partition by score first.
    Returns ``nan`` when there is no positive or no negative.
    """
    parts = sorted((r for r in ranges if not r.empty), key=lambda r: r.low)
    for a, b in pairwise(parts):
        if b.low <= a.high:
            raise InputValidationError(
                f"auc_from_ranges: score ranges overlap ([{a.low!r}, {a.high!r}] and "
                f"[{b.low!r}, {b.high!r}]); every score value must lie in one range, e.g. "
                f"partition the rows by score range."
            )
    if any(r.quantum is not None for r in parts):
        return _weighted_auc(parts)
    two_u = negatives_below = positives = 0
    for r in parts:
        two_u += r.two_u + 2 * r.positives * negatives_below
        negatives_below += r.negatives
        positives += r.positives
    pairs = positives * negatives_below
    if pairs == 0:
        return float("nan")
    return float(Fraction(two_u, 2 * pairs))  # correctly rounded


def _weighted_auc(parts: list[ScoreRange]) -> float:
    """The AUC of weighted ranges as the in-memory state computes it from exact weights,
    each label's in units of the lowest bit of any of its weights: ``2U / (2 P N)`` of
    the exact integers, rounded once (rows without weights count a unit of ``2**0``)."""
    units = [r.quantum or (0, 0) for r in parts]
    pos_unit = min((u[0] for u, r in zip(units, parts, strict=True) if r.positives), default=0)
    neg_unit = min((u[1] for u, r in zip(units, parts, strict=True) if r.negatives), default=0)
    two_u = below = positives = 0
    for (pos_quantum, neg_quantum), r in zip(units, parts, strict=True):
        # a label without rows in the range counts 0 in any unit
        pos_shift = pos_quantum - pos_unit if r.positives else 0
        neg_shift = neg_quantum - neg_unit if r.negatives else 0
        p = r.positives << pos_shift
        two_u += (r.two_u << (pos_shift + neg_shift)) + 2 * p * below
        below += r.negatives << neg_shift
        positives += p
    if positives == 0 or below == 0:
        return float("nan")
    return float(Fraction(two_u, 2 * positives * below))  # correctly rounded


def score_ranges(rows_per_bucket: np.ndarray, max_rows: int) -> list[tuple[int, int]]:
    """Cut buckets into consecutive ``[first, last]`` bucket ranges of at most
    ``max_rows`` rows (a bucket larger than that is a range of its own);
    empty buckets are skipped."""
    ranges = []
    start = last = -1
    count = 0
    nonzero = np.flatnonzero(rows_per_bucket)
    for b in nonzero.tolist():
        n = int(rows_per_bucket[b])
        if start >= 0 and count + n > max_rows:
            ranges.append((start, last))
            start = -1
        if start < 0:
            start, count = b, 0
        count += n
        last = b
    if start >= 0:
        ranges.append((start, last))
    return ranges


# ------------------------------------------------------------------ GAUC
@dataclass(frozen=True)
class GroupTotals:
    """Sums behind GAUC over whole groups, exact (:class:`ExactSum`).

    Attributes
    ----------
    weighted_auc : ExactSum
        Sum over groups with a defined AUC of weight x AUC, times ``2**-w_shift``.
    weight : ExactSum
        Sum of those groups' weights, times ``2**-w_shift``.
    n_groups, n_groups_skipped, n_rows, n_rows_skipped : int
        Groups and rows, and those without a defined AUC (one class).
    w_shift : int, default=0
        The power of two the sample weights were divided by
        (:func:`~receval.engine.sums.weight_shift` of a batch's weights, so that
        their sums neither overflow nor underflow): two states merge at the larger.
    rounded : RoundedWeights or None, default=None
        The groups whose weights of one label spanned more than the sums of their AUCs
        hold exactly and were rounded (merged: :meth:`RoundedWeights.merge`); None
        where every bit was kept. The GAUC warns with it once, where it is computed
        (:func:`~receval.engine.rounding.warn_rounded`).
    n_groups_weightless : int, default=0
        Groups skipped although both classes have rows: every row of one class has a
        sample weight of 0.
    """

    weighted_auc: ExactSum
    weight: ExactSum
    n_groups: int
    n_groups_skipped: int
    n_rows: int
    n_rows_skipped: int
    w_shift: int = field(default=0, metadata=EXPONENT)
    rounded: RoundedWeights | None = field(default=None, metadata=ROUNDING)
    n_groups_weightless: int = 0

    def merge(self, other: GroupTotals) -> GroupTotals:
        """The totals of both sets of groups (no group in both), at the larger scale,
        their rounded weights merged."""
        a, b = at_one_weight_shift(self, other, ("weighted_auc", "weight"))
        return replace(fieldwise_sum(a, b), w_shift=a.w_shift)

    def invalid(self) -> tuple[str, str] | None:
        """The field and what it must hold where a state read from a pickle or a
        ``state_dict`` breaks the invariants of sums of groups, else None: the sums
        finite and >= 0, the AUCs' at most the weight's (an AUC is at most 1), and
        the groups and rows skipped at most those seen."""
        sums = {name: getattr(self, name) for name in ("weighted_auc", "weight")}
        problem = _sums_problem(sums, ("weighted_auc",), self.weight)
        if problem is not None:
            return problem
        for part, whole in (("n_groups_skipped", "n_groups"), ("n_rows_skipped", "n_rows"),
                            ("n_groups_weightless", "n_groups_skipped")):  # fmt: skip
            if getattr(self, part) > getattr(self, whole):
                return part, f"a count <= {whole} ({getattr(self, whole)})"
        return None

    @property
    def score(self) -> float:
        """The GAUC (``nan`` when no group has both classes)."""
        return gauc_value(self.weighted_auc, self.weight)


EMPTY_GROUP_TOTALS = GroupTotals(ExactSum.zero(), ExactSum.zero(), 0, 0, 0, 0)


def gauc_sums(auc: np.ndarray, weight: np.ndarray) -> tuple[ExactSum, ExactSum]:
    """Exact sums of weight x AUC and of weight over the groups with a defined AUC."""
    kept = ~np.isnan(auc)
    return ExactSum.dot(weight[kept], auc[kept]), ExactSum.of(weight[kept])


def gauc_value(weighted_auc: ExactSum, weight: ExactSum) -> float:
    """GAUC from its sums (``nan`` when the weights sum to 0)."""
    total = weight.value
    return weighted_auc.value / total if total > 0 else float("nan")


def group_totals(
    auc: np.ndarray,
    weight: np.ndarray,
    rows: np.ndarray,
    w_shift: int,
    rounded: RoundedWeights | None,
    n_weightless: int = 0,
) -> GroupTotals:
    """The :class:`GroupTotals` of whole groups: their AUCs (nan: undefined), weights in
    the mean times ``2**-w_shift``, rows, the weights their AUCs rounded, and how many
    groups with both classes were skipped for a class of sample weight 0."""
    weighted, total = gauc_sums(auc, weight)
    skipped = np.isnan(auc)
    return GroupTotals(weighted, total, len(auc), int(skipped.sum()), int(rows.sum()),
                       int(rows[skipped].sum()), w_shift, rounded, n_weightless)  # fmt: skip


# ------------------------------------------------------------------ means over users
#: How the users' values of a metric combine (the registry's ``mean``): ``"users"`` the
#: mean, ``"pooled"`` the ratio of the sums of numerators and denominators, ``"sum"``
#: the sum (counts), ``"geometric"`` the geometric mean of the values floored at
#: :data:`GEOMETRIC_FLOOR` (trec_eval's ``gm_*``)
MEAN_KINDS = ("users", "pooled", "sum", "geometric")


def averaged_values(values: np.ndarray, kind: str) -> np.ndarray:
    """The per-user quantities a mean of ``kind`` (:data:`MEAN_KINDS`) averages: the
    values, or for a geometric mean their logarithms, floored at :data:`GEOMETRIC_FLOOR`
    (nan stays nan); a paired comparison's differences are of these."""
    if kind != "geometric":
        return values
    with np.errstate(invalid="ignore"):
        logs: np.ndarray = np.log(np.maximum(values, GEOMETRIC_FLOOR))
    return logs


@dataclass(frozen=True)
class MeanState:
    """A mean over users, exact and mergeable (the means of :func:`receval.evaluate`).

    Attributes
    ----------
    total : ExactSum
        Sum of the kept users' values (pooled: their numerators; geometric: the
        logarithms of the floored values).
    count : int
        Users kept (values not nan).
    denominator : ExactSum or None
        Pooled metrics (``pooled_hit_ratio``): sum of the kept users' denominators.
    kind : str
        One of :data:`MEAN_KINDS`.
    """

    total: ExactSum
    count: int
    denominator: ExactSum | None = None
    kind: str = "users"

    def merge(self, other: MeanState) -> MeanState:
        """The state of both sets of users (no user in both)."""
        if self.kind != other.kind:
            raise ValueError(f"cannot merge a {self.kind!r} mean with a {other.kind!r} mean")
        den = None
        if self.denominator is not None or other.denominator is not None:
            den = (self.denominator or ExactSum.zero()) + (other.denominator or ExactSum.zero())
        return MeanState(self.total + other.total, self.count + other.count, den, self.kind)

    @property
    def value(self) -> float:
        """The mean (nan without users); pooled: the ratio of the sums (0.0 when empty);
        sum: the sum (0.0 when empty); geometric: exp of the mean logarithm. The mean
        of finite values is finite where their sum is beyond float64's range (values
        near 1e308: the exact sum scaled by a power of two, then divided)."""
        if self.denominator is not None:
            den = self.denominator.value
            return self.total.value / den if den > 0 else 0.0
        if self.kind == "sum":
            return self.total.value
        if not self.count:
            return float("nan")
        if self.kind == "geometric":
            return float(np.exp(self.total.value / self.count))
        total = self.total.value
        if math.isfinite(total):
            return total / self.count
        m, k = scaled_value(self.total)  # the sum beyond float64's range, scaled
        with np.errstate(over="ignore"):
            return float(np.ldexp(m / self.count, k))


def mean_state(
    values: np.ndarray, denominators: np.ndarray | None = None, kind: str = "users"
) -> MeanState:
    """The :class:`MeanState` of per-user values (nan: left out); with ``denominators``
    a pooled ratio, ``values`` then holding the numerators; ``kind`` as in
    :data:`MEAN_KINDS`. :func:`mean_states` of one group."""
    return mean_states(values, np.array([0, len(values)]), denominators, kind)[0]


def mean_states(
    values: np.ndarray,
    offsets: np.ndarray,
    denominators: np.ndarray | None = None,
    kind: str = "users",
) -> list[MeanState]:
    """The :class:`MeanState` of each group of per-user values, grouped: group ``i``
    holds ``values[offsets[i]:offsets[i + 1]]`` (nan: left out), as :func:`mean_state`
    gives it on those values alone; every group's exact sums in one call of the core.

    Examples
    --------
    >>> import numpy as np
    >>> states = mean_states(np.array([1.0, np.nan, 3.0, 0.5]), np.array([0, 3, 3, 4]))
    >>> [(s.value, s.count) for s in states]
    [(2.0, 2), (nan, 0), (0.5, 1)]
    """
    kept = ~np.isnan(values)
    x, bounds = values, np.asarray(offsets, dtype=np.int64)
    if not kept.all():  # the values kept, and each group's bounds among them
        x = values[kept]
        bounds = np.concatenate(([0], np.cumsum(counts_by_group(kept, bounds))))
        if denominators is not None:
            denominators = denominators[kept]
    totals = exact_group_sums(averaged_values(x, kind), bounds)
    n = len(totals)
    dens: list[ExactSum | None] = [None] * n
    if denominators is not None:
        dens, kind = [*exact_group_sums(denominators, bounds)], "pooled"
    counts = np.diff(bounds).tolist()
    return [MeanState(total, count, den, kind)
            for total, den, count in zip(totals, dens, counts, strict=True)]  # fmt: skip


def counts_by_group(flags: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """How many of ``flags`` are true in each group: group ``i`` the flags from
    ``offsets[i]`` to ``offsets[i + 1]`` (CSR offsets, the last ``len(flags)``).

    Examples
    --------
    >>> import numpy as np
    >>> counts_by_group(np.array([True, False, True, True]), np.array([0, 2, 2, 4])).tolist()
    [1, 0, 2]
    """
    running = np.concatenate(([0], np.cumsum(flags, dtype=np.int64)))
    counts: np.ndarray = running[offsets[1:]] - running[offsets[:-1]]
    return counts


def empty_mean_state(kind: str) -> MeanState:
    """The state of no user (``kind`` as in :data:`MEAN_KINDS`)."""
    pooled = kind == "pooled"
    return MeanState(ExactSum.zero(), 0, ExactSum.zero() if pooled else None, kind)

"""States of the streaming metrics that :mod:`receval.engine.totals` does not already hold.

Exact and binned AUC counts (:class:`ScoreCounts`, :class:`BinnedCounts`), disjoint
score ranges (:class:`RangeStates`), the exact sums of RMSE, MAE, the Brier score and
R² (:class:`ErrorSums`, :class:`Moments`), the ids of the groups already given
(:class:`Seen`), the ``prepare`` and ``update`` of the metrics of
:class:`~receval.engine.totals.Totals`, and the check of states loaded from pickles.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any

import numpy as np

from .. import _validation as v
from .._validation import format_values
from ..exceptions import InputValidationError, InvalidParameterError
from .metric import data_columns
from .sums import ExactSum, fieldwise_sum
from .totals import EMPTY_TOTALS, totals_of

__all__ = [
    "BinnedCounts",
    "ErrorSums",
    "Moments",
    "RangeStates",
    "ScoreCounts",
    "Seen",
    "check_eps",
    "check_loaded_state",
    "clip_eps",
    "totals_empty",
    "totals_prepare",
    "totals_update",
]

_EPS = float(np.finfo(np.float64).eps)


def _narrow(counts: np.ndarray) -> np.ndarray:
    """Integer row counts as int32 when every count fits (4 bytes per distinct score
    instead of 8), else int64; float (weighted) counts unchanged."""
    if counts.dtype.kind == "f":
        return counts
    if not len(counts) or int(counts.max()) < 2**31:
        return counts.astype(np.int32, copy=False)
    return counts.astype(np.int64, copy=False)


def _narrow_scores(scores: np.ndarray) -> np.ndarray:
    """Scores as float32 when every one is a float32 value (float32 model outputs
    read as float64): the same numbers in half the memory."""
    if scores.dtype == np.float64 and len(scores):
        narrow = scores.astype(np.float32)
        if np.array_equal(narrow, scores):
            return narrow
    return scores


def near_one(weights: np.ndarray) -> tuple[np.ndarray, int]:
    """``(weights * 2**-shift, shift)``: weights whose largest is outside
    ``[2**-64, 2**64]`` times the power of two that brings it into ``[0.5, 1)``, so
    that no product of two weights over- or underflows (only the exponents change);
    others as they are, ``shift`` 0."""
    top = float(weights.max()) if len(weights) else 0.0
    if top == 0 or 2.0**-64 <= top <= 2.0**64:
        return weights, 0
    shift = int(np.frexp(top)[1])
    scaled: np.ndarray = np.ldexp(weights, -shift)
    return scaled, shift


def scaled_down(weights: np.ndarray) -> tuple[np.ndarray, int]:
    """``(weights * 2**-shift, shift)``, with the smallest ``shift >= 0`` that keeps
    their sum below ``2**960`` (far from overflow, whatever is added to it later);
    only the exponents change."""
    if not len(weights):
        return weights, 0
    top = float(weights.max())
    shift = int(np.frexp(top)[1]) + len(weights).bit_length() - 960
    if shift <= 0 or not np.isfinite(top):
        return weights, 0
    scaled: np.ndarray = np.ldexp(weights, -shift)
    return scaled, shift


def _shifted(x: np.ndarray, by: int) -> np.ndarray:
    return x if by == 0 else np.ldexp(x, by)


@dataclass
class ScoreCounts:
    """Rows per distinct score and label; weighted rows add their weights.

    ``scores`` are sorted and distinct (``-0.0`` counted as ``0.0``), ``pos``
    and ``neg`` the rows (or weights) of each label at each score, times
    ``2**-shift`` (weights near the largest float: their sums would overflow; the
    AUC of weights is that of any power-of-two scale of them). Batches and
    merged states wait in ``pending``, each already counted per distinct score,
    and are folded in when they outgrow the counts: a stream of n rows costs
    O(n log n) in all, whether it arrives by ``add`` or by ``merge``.
    """

    weighted: bool
    scores: np.ndarray = field(default_factory=lambda: np.empty(0))
    pos: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64))
    neg: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64))
    pending: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = field(default_factory=list)
    n_pending: int = 0
    shift: int = 0

    def add(self, labels: np.ndarray, scores: np.ndarray, weights: np.ndarray | None) -> None:
        """Count validated rows per distinct score; fold them in when they outgrow the counts."""
        if len(labels) == 0:
            return
        uniq, inverse = np.unique(scores + 0.0, return_inverse=True)  # -0.0 becomes 0.0
        is_pos = labels == 1
        n = len(uniq)
        if self.weighted:
            w = np.ones(len(labels)) if weights is None else weights
            w, shift = scaled_down(w)
            self.raise_shift(shift)
            w = _shifted(w, shift - self.shift)
            pos = np.bincount(inverse, weights=np.where(is_pos, w, 0.0), minlength=n)
            neg = np.bincount(inverse, weights=np.where(is_pos, 0.0, w), minlength=n)
        else:
            pos = _narrow(np.bincount(inverse[is_pos], minlength=n))
            neg = _narrow(np.bincount(inverse[~is_pos], minlength=n))
        self._push(_narrow_scores(uniq), pos, neg)

    def _push(self, scores: np.ndarray, pos: np.ndarray, neg: np.ndarray) -> None:
        if len(scores) == 0:
            return
        self.pending.append((scores, pos, neg))
        self.n_pending += len(scores)
        if self.n_pending > max(len(self.scores), 1 << 20):
            self.compact()

    def compact(self) -> ScoreCounts:
        """Fold the pending counts into the counts."""
        if not self.pending:
            return self
        parts = [p for p in [(self.scores, self.pos, self.neg), *self.pending] if len(p[0])]
        self.pending, self.n_pending = [], 0
        uniq, inverse = np.unique(np.concatenate([p[0] for p in parts]), return_inverse=True)
        n = len(uniq)
        # counts below 2**53 per score add exactly in float64
        pos = np.bincount(inverse, weights=np.concatenate([p[1] for p in parts]), minlength=n)
        neg = np.bincount(inverse, weights=np.concatenate([p[2] for p in parts]), minlength=n)
        if not self.weighted:
            pos, neg = _narrow(pos.astype(np.int64)), _narrow(neg.astype(np.int64))
        self.scores, self.pos, self.neg = uniq, pos, neg
        return self

    def merge(self, other: ScoreCounts) -> ScoreCounts:
        """The counts of both sets of rows (a new state; the arrays are shared, never
        written in place)."""
        out = ScoreCounts(self.weighted, self.scores, self.pos, self.neg, list(self.pending),
                          self.n_pending, self.shift)  # fmt: skip
        return out.absorb(other)

    def absorb(self, other: ScoreCounts) -> ScoreCounts:
        """Add another state's counts into this one (in place); returns this state."""
        self.weighted = self.weighted or other.weighted
        self.raise_shift(other.shift)
        by = other.shift - self.shift
        for scores, pos, neg in [(other.scores, other.pos, other.neg), *other.pending]:
            self._push(scores, _shifted(pos, by), _shifted(neg, by))
        return self

    def raise_shift(self, shift: int) -> None:
        """Hold the counts times ``2**-shift`` when that is a larger shift than now."""
        if shift <= self.shift:
            return
        by = self.shift - shift
        self.pos, self.neg = _shifted(self.pos, by), _shifted(self.neg, by)
        self.pending = [(s, _shifted(p, by), _shifted(n, by)) for s, p, n in self.pending]
        self.shift = shift

    def auc(self) -> float:
        """ROC AUC of the rows (ties count one half): exact without weights."""
        self.compact()
        pos, neg = self.pos, self.neg
        if not self.weighted:  # int32 counts: sums and products in int64
            pos, neg = pos.astype(np.int64), neg.astype(np.int64)
        elif len(pos):  # the AUC of weights w is that of w 2**k (exact): nothing overflows
            pos, neg = near_one(pos)[0], near_one(neg)[0]
        total_pos, total_neg = pos.sum(), neg.sum()
        if total_pos == 0 or total_neg == 0:
            return float("nan")
        below = np.cumsum(neg) - neg  # negatives strictly below each score
        if not self.weighted:
            two_u = int(np.dot(pos, 2 * below + neg))
            return two_u / (2.0 * int(total_pos) * int(total_neg))
        area = float(np.dot(pos, below + 0.5 * neg))
        return area / (float(total_pos) * float(total_neg))

    def __getstate__(self) -> dict[str, Any]:
        self.compact()
        state = {"weighted": self.weighted, "scores": self.scores, "pos": self.pos, "neg": self.neg}
        return state | ({"shift": self.shift} if self.shift else {})

    def __setstate__(self, state: dict[str, Any]) -> None:
        keys = {"weighted", "scores", "pos", "neg"}
        if not isinstance(state, dict) or not keys <= set(state) <= keys | {"shift"}:
            raise InputValidationError(
                f"ScoreCounts: a pickled state must be a dict of weighted, scores, pos and neg "
                f"(and shift). Got {type(state).__name__} "
                f"{sorted(state) if isinstance(state, dict) else ''}."
            )
        self.__init__(state["weighted"], state["scores"], state["pos"], state["neg"],  # type: ignore[misc]
                      shift=state.get("shift", 0))  # fmt: skip
        _check_score_counts(self, "ScoreCounts")


@dataclass
class BinnedCounts:
    """Rows per label in ``n_bins`` equal bins of ``[low, high]`` (scores outside go to
    the end bins). Constant memory; the AUC counts same-bin pairs one half."""

    n_bins: int
    low: float
    high: float
    weighted: bool
    pos: np.ndarray = field(default_factory=lambda: np.empty(0))
    neg: np.ndarray = field(default_factory=lambda: np.empty(0))

    def __post_init__(self) -> None:
        dtype = np.float64 if self.weighted else np.int64
        if len(self.pos) == 0:
            self.pos = np.zeros(self.n_bins, dtype=dtype)
            self.neg = np.zeros(self.n_bins, dtype=dtype)

    def add(self, labels: np.ndarray, scores: np.ndarray, weights: np.ndarray | None) -> None:
        """Count validated rows into their bins, in place."""
        width = (self.high - self.low) / self.n_bins
        # clip before the cast: a huge score would overflow int64 (and land in bin 0)
        ids = np.clip((scores - self.low) / width, 0, self.n_bins - 1).astype(np.int64)
        is_pos = labels == 1
        w = None
        if self.weighted:
            w = np.ones(len(labels)) if weights is None else weights
        for target, mask in ((self.pos, is_pos), (self.neg, ~is_pos)):
            if len(ids) * 8 < self.n_bins:  # few rows, many bins: no pass over the bins
                np.add.at(target, ids[mask], 1 if w is None else w[mask])
            elif w is None:
                target += np.bincount(ids[mask], minlength=self.n_bins)
            else:
                target += np.bincount(ids[mask], weights=w[mask], minlength=self.n_bins)

    def absorb(self, other: BinnedCounts) -> BinnedCounts:
        """Add another state's counts into this one (in place); returns this state."""
        self._check_same_bins(other)
        self.pos += other.pos
        self.neg += other.neg
        return self

    def _check_same_bins(self, other: BinnedCounts) -> None:
        if (self.n_bins, self.low, self.high) != (other.n_bins, other.low, other.high):
            raise InputValidationError(
                f"merge: binned AUC states must have the same bins. Got {self.n_bins} bins on "
                f"[{self.low}, {self.high}] and {other.n_bins} on [{other.low}, {other.high}]."
            )

    def merge(self, other: BinnedCounts) -> BinnedCounts:
        """The counts of both sets of rows (a new state)."""
        self._check_same_bins(other)
        weighted = self.weighted or other.weighted
        return BinnedCounts(self.n_bins, self.low, self.high, weighted, self.pos + other.pos,
                            self.neg + other.neg)  # fmt: skip

    def auc_and_bound(self) -> tuple[float, float]:
        """The binned AUC and a bound on its distance to the exact AUC of the rows.

        Pairs in different bins are ordered as their scores are; a pair in one
        bin counts one half, while its true contribution is 0, 1/2 or 1, so the
        error is at most half the share of same-bin pairs."""
        total_pos, total_neg = float(self.pos.sum()), float(self.neg.sum())
        if total_pos == 0 or total_neg == 0:
            return float("nan"), float("nan")
        below = np.cumsum(self.neg) - self.neg
        pairs = total_pos * total_neg
        area = float(np.dot(self.pos, below + 0.5 * self.neg))
        same = float(np.dot(self.pos.astype(np.float64), self.neg))
        return area / pairs, 0.5 * same / pairs


@dataclass(frozen=True)
class RangeStates:
    """The summaries (:class:`receval.engine.totals.ScoreRange`) of disjoint score ranges.

    Merging concatenates; the ranges are checked to be disjoint when the value is
    computed (``receval.engine.totals.auc_from_ranges``).
    """

    ranges: tuple[Any, ...]

    def merge(self, other: RangeStates) -> RangeStates:
        return RangeStates(self.ranges + other.ranges)


@dataclass(frozen=True)
class ErrorSums:
    """Exact sums of ``w (y - y_hat)^2``, ``w |y - y_hat|`` and ``w`` (RMSE, MAE), by scale.

    An error ``d`` is held as ``d' 2**k`` with ``k`` a multiple of
    ``ERROR_SCALE_STEP`` fixed by ``d`` alone (``|d'|`` in ``[2**-129, 2**128)``), so
    no square overflows or underflows and a row adds the same terms whatever batch
    it comes in: ``squared[k]`` sums ``w d'^2`` and ``absolute[k]`` sums ``w |d'|``
    of the errors of scale ``2**k``. Merging adds the sums of each scale exactly.
    """

    squared: dict[int, ExactSum]
    absolute: dict[int, ExactSum]
    weight: ExactSum
    n_rows: int

    def merge(self, other: ErrorSums) -> ErrorSums:
        return ErrorSums(
            _merge_scaled(self.squared, other.squared),
            _merge_scaled(self.absolute, other.absolute),
            self.weight + other.weight,
            self.n_rows + other.n_rows,
        )

    def mean_squared(self) -> tuple[float, int]:
        """``(x, e)``: the weighted sum of squared errors is ``x * 2**e``."""
        return _combine_scaled(self.squared, 2)

    def mean_absolute(self) -> tuple[float, int]:
        """``(x, e)``: the weighted sum of absolute errors is ``x * 2**e``."""
        return _combine_scaled(self.absolute, 1)


#: The scales of :class:`ErrorSums` are powers ``2**k``, ``k`` a multiple of this.
ERROR_SCALE_STEP = 256


def _merge_scaled(a: dict[int, ExactSum], b: dict[int, ExactSum]) -> dict[int, ExactSum]:
    out = dict(a)
    for k, s in b.items():
        out[k] = out[k] + s if k in out else s
    return out


def _combine_scaled(sums: dict[int, ExactSum], power: int) -> tuple[float, int]:
    """``(x, e)`` with ``x * 2**e`` the sum of ``sums[k] * 2**(power * k)``: each scale's
    exact sum rounded once, added from the largest scale down (one scale: exact)."""
    values = {k: s.value for k, s in sums.items()}
    nonzero = [k for k, x in values.items() if x != 0.0]
    if not nonzero:
        return 0.0, 0
    top = max(nonzero)
    x = math.fsum(math.ldexp(values[k], power * (k - top)) for k in sorted(nonzero, reverse=True))
    return x, power * top


@dataclass(frozen=True)
class Moments:
    """Exact sums of ``w``, ``w y``, ``w p``, ``w y^2``, ``w y p`` and ``w p^2`` (``y`` the
    truth, ``p`` the prediction) and the row count: every term of the Brier score,
    R² and explained variance, merged without rounding."""

    weight: ExactSum
    y: ExactSum
    p: ExactSum
    yy: ExactSum
    yp: ExactSum
    pp: ExactSum
    n_rows: int

    @classmethod
    def of(cls, y: np.ndarray, p: np.ndarray, w: np.ndarray | None) -> Moments:
        """The moments of validated float64 rows (``w`` None: weights of 1)."""
        from .sums import exact_products

        if w is None:
            weight, sy, sp = ExactSum.of([float(len(y))]), ExactSum.of(y), ExactSum.of(p)
        else:
            weight, sy, sp = ExactSum.of(w), exact_products(y, w), exact_products(p, w)
        return cls(weight, sy, sp, exact_products(y, y, w), exact_products(y, p, w),
                   exact_products(p, p, w), len(y))  # fmt: skip

    @classmethod
    def zero(cls) -> Moments:
        z = ExactSum.zero()
        return cls(z, z, z, z, z, z, 0)

    def merge(self, other: Moments) -> Moments:
        return fieldwise_sum(self, other)


@dataclass
class Seen:
    """Ids of the groups already given to a whole-group metric.

    Integer ids are kept as one sorted int64 array (a batch is checked and merged
    in O(batch log batch + held)); other ids (strings, floats) as a Python set.
    """

    ints: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64))
    ids: set[Any] = field(default_factory=set)

    def add(self, ids: Any, func: str, what: str) -> None:
        """Add a batch's ids; raise if one was given in an earlier update."""
        repeated = sorted(set(self.add_new(ids)), key=str)
        if repeated:
            raise InputValidationError(
                f"{func}: {what} {format_values(repeated)} were already given in an earlier "
                f"update; each update must hold whole {what} (all the rows of a {what[:-1]}), "
                f"e.g. group the rows by {what[:-1]} before cutting batches."
            )

    def add_new(self, ids: Any) -> list[Any]:
        """Add a batch of ids unless one repeats, within the batch or from an earlier
        one; returns the repeated ids (those within the batch first), empty when the
        batch was added."""
        arr = np.asarray(ids)
        if arr.dtype.kind in "iu" and arr.dtype != np.uint64:
            new = np.sort(arr.astype(np.int64, copy=False))
            repeated: list[Any] = new[1:][new[1:] == new[:-1]].tolist() + self._held(new).tolist()
            if self.ids:  # ids of another kind were given before: compare as Python values
                repeated += [x for x in new.tolist() if x in self.ids]
            if not repeated:
                self.ints = _merge_sorted(self.ints, new)
            return repeated
        values = arr.tolist()
        batch: set[Any] = set()
        repeated = [x for x in values if x in batch or batch.add(x)]  # type: ignore[func-returns-value]
        repeated += [x for x in values if x in self.ids]
        if self.ints.size:
            repeated += self._held(_int64s(values)).tolist()
        if not repeated:
            self.ids |= batch
        return repeated

    def _held(self, ordered: np.ndarray) -> np.ndarray:
        """The values of a sorted int64 array already held."""
        if not self.ints.size or not ordered.size:
            return ordered[:0]
        pos = np.minimum(np.searchsorted(self.ints, ordered), len(self.ints) - 1)
        result: np.ndarray = ordered[self.ints[pos] == ordered]
        return result

    def absorb(self, other: Seen) -> Seen:
        """Add another state's ids into this one (in place); returns this state."""
        self._check_disjoint(other)
        self.ints = _merge_sorted(self.ints, other.ints)
        self.ids |= other.ids
        return self

    def merge(self, other: Seen) -> Seen:
        self._check_disjoint(other)
        return Seen(_merge_sorted(self.ints, other.ints), self.ids | other.ids)

    def _check_disjoint(self, other: Seen) -> None:
        both = self.ids & other.ids if len(other.ids) < len(self.ids) else other.ids & self.ids
        small, large = sorted((self, other), key=lambda x: len(x.ints))
        both |= set(large._held(small.ints).tolist())
        for a, b in ((self, other), (other, self)):  # ints held as Python values on one side
            both |= set(b._held(_int64s(a.ids)).tolist())
        if both:
            raise InputValidationError(
                f"{len(both)} groups were given twice (in two updates, or in two merged "
                f"accumulators), e.g. {format_values(sorted(both, key=str))}; each update and "
                f"each worker must hold whole groups (all the rows of a group or user): group "
                f"the rows before cutting batches or splitting them across workers."
            )


def _int64s(values: Any) -> np.ndarray:
    """The Python ints among ``values`` that an int64 holds, sorted (ints beyond it,
    such as uint64 ids from 2**63, are never among the int64 ids held)."""
    low, high = -(2**63), 2**63 - 1
    ints = [x for x in values if type(x) is int and low <= x <= high]
    return np.sort(np.array(ints, dtype=np.int64))


def _merge_sorted(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if not a.size:
        return b
    if not b.size:
        return a
    out = np.concatenate([a, b])
    out.sort(kind="stable")  # two sorted runs: merged in linear time
    return out


# ------------------------------------------------------------------ log loss, PCOC, COPC, NE
def totals_prepare(func: str, prob: str) -> Any:
    """``prepare`` of the metrics of :class:`receval.engine.totals.Totals`: one batch of 0/1 labels,
    probabilities (the argument ``prob``) and weights, validated as the functions
    validate them; None for an empty batch."""

    def prepare(params: dict[str, Any], y_true: Any, *args: Any, **kwargs: Any) -> Any:
        y_prob = args[0] if args else kwargs.pop(prob)
        sample_weight = args[1] if len(args) > 1 else kwargs.pop("sample_weight", None)
        if kwargs:
            raise InvalidParameterError(
                f"{func}: update takes y_true, {prob} and sample_weight. Got "
                f"{sorted(kwargs)[0]!r} too."
            )
        yt, yp, sw = data_columns(
            func, ("y_true", y_true), (prob, y_prob), ("sample_weight", sample_weight)
        )
        if len(yt) == 0:
            return None
        labels = v.check_binary01(yt, func)
        eps = clip_eps(params.get("eps", "auto"), yp.dtype)
        proba = v.check_probabilities(
            v.check_finite(v.as_float(yp, prob, func), prob, func), prob, func
        )
        return labels, proba, v.check_sample_weight(sw, len(yt), func), eps

    return prepare


def totals_update(*, loss: bool, clicks: bool) -> Callable[[dict[str, Any], Any], Any]:
    """``update`` of a metric of :class:`Totals` that reads the log-loss sum (``loss``;
    ``params["eps"]`` clips it) or the click sums (``clicks``): the sums it does not
    read stay zero, so that a batch costs only what the metric needs."""

    def update(params: dict[str, Any], batch: Any) -> Any:
        if batch is None:
            return EMPTY_TOTALS
        labels, proba, weights, eps = batch
        return totals_of(labels, proba, weights, eps=eps, loss=loss, clicks=clicks)

    return update


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
    epsilon of float32 probabilities (float32 input) and of float64 otherwise, as
    scikit-learn's ``log_loss``. Every backend clips each batch by this rule, so a
    float32 column gives one value in memory, out of core and in Spark."""
    if not isinstance(eps, str):
        return eps
    return float(np.finfo(np.float32).eps) if dtype == np.float32 else _EPS


# ------------------------------------------------------------------ states loaded from pickles
def invalid_state(what: str) -> InputValidationError:
    """The error of an accumulator loaded from a pickle that this code did not make."""
    return InputValidationError(
        f"Accumulator: a loaded state is invalid: {what}; unpickle only accumulators this "
        f"code made (unpickling runs code: load only trusted data)."
    )


def _bad(where: str, expected: str, value: Any) -> InputValidationError:
    shown = (
        f"{type(value).__name__} {value!r}"
        if np.ndim(value) == 0
        else (f"an array of shape {np.shape(value)} and dtype {getattr(value, 'dtype', '?')}")
    )
    return invalid_state(f"{where} must be {expected}. Got {shown}")


def _check_array(value: Any, template: np.ndarray, where: str) -> None:
    if not isinstance(value, np.ndarray):
        raise _bad(where, "a NumPy array", value)
    if value.ndim != 1 or value.dtype.kind not in "iuf":
        raise _bad(where, "a 1-d array of numbers", value)
    if template.size and value.shape != template.shape:
        raise _bad(where, f"an array of shape {template.shape}", value)
    if value.dtype.kind == "f" and not np.isfinite(value).all():
        raise _bad(where, "finite", value)


def _check_score_counts(x: ScoreCounts, where: str) -> None:
    if not isinstance(x.weighted, (bool, np.bool_)):
        raise _bad(f"{where}.weighted", "a bool", x.weighted)
    for name in ("scores", "pos", "neg"):
        _check_array(getattr(x, name), np.empty(0), f"{where}.{name}")
    n = len(x.scores)
    if len(x.pos) != n or len(x.neg) != n:
        raise _bad(f"{where}.pos and .neg", f"of the length of .scores ({n})", x.pos)
    if n and not (np.diff(x.scores) > 0).all():
        raise _bad(f"{where}.scores", "sorted and distinct", x.scores)
    if (x.pos < 0).any() or (x.neg < 0).any():
        raise _bad(f"{where}.pos and .neg", "counts >= 0", x.pos)
    if not x.weighted and (x.pos.dtype.kind == "f" or x.neg.dtype.kind == "f"):
        raise _bad(f"{where}.pos and .neg", "integer counts (the state is unweighted)", x.pos)
    if (
        not isinstance(x.shift, (int, np.integer))
        or not 0 <= x.shift <= 2200
        or (x.shift and not x.weighted)
    ):
        raise _bad(f"{where}.shift", "an int in [0, 2200] (0 when unweighted)", x.shift)


def _invariants(value: Any, where: str) -> None:
    """What a state of each kind holds beyond its fields' types."""
    if isinstance(value, ScoreCounts):
        _check_score_counts(value, where)
    elif isinstance(value, BinnedCounts):
        if not value.n_bins >= 1 or not (np.isfinite([value.low, value.high]).all()
                                         and value.low < value.high):  # fmt: skip
            raise _bad(where, "bins of a finite range low < high", (value.low, value.high))
        if (value.pos < 0).any() or (value.neg < 0).any():
            raise _bad(f"{where}.pos and .neg", "counts >= 0", value.pos)
    elif isinstance(value, ExactSum):
        if value.digits.dtype != np.int64:
            raise _bad(f"{where}.digits", "int64 digits", value.digits)
    elif isinstance(value, ErrorSums):  # exact sums by error scale
        for name, sums in (("squared", value.squared), ("absolute", value.absolute)):
            for k, x in sums.items():
                if isinstance(k, bool) or not isinstance(k, int) or k % ERROR_SCALE_STEP:
                    raise _bad(f"{where}.{name}", f"scales that are multiples of "
                               f"{ERROR_SCALE_STEP}", k)  # fmt: skip
                if not isinstance(x, ExactSum):
                    raise _bad(f"{where}.{name}[{k}]", "an exact sum", x)
                check_loaded_state(x, ExactSum.zero(), f"{where}.{name}[{k}]")
    elif hasattr(value, "invalid"):  # a state that knows its own invariants
        problem = value.invalid()
        if problem is not None:
            raise _bad(f"{where}.{problem[0]}", problem[1], getattr(value, problem[0]))
    elif isinstance(value, Seen):
        if len(value.ints) and (
            value.ints.dtype != np.int64 or not (np.diff(value.ints) > 0).all()
        ):
            raise _bad(f"{where}.ints", "sorted distinct int64 ids", value.ints)


def check_loaded_state(value: Any, template: Any, where: str = "state") -> None:
    """Check a state read from a pickle against ``template``, a fresh state of the same
    metric and options: the same classes, field by field, arrays of numbers of the
    template's shape (any length where the template's is empty), counts that are
    integers >= 0, finite floats, the same strings (how values combine), and each
    kind's invariants (:class:`ScoreCounts`: sorted distinct scores and counts >= 0).

    Raises
    ------
    InputValidationError
        Naming the field, what it must be and what it holds.
    """
    if is_dataclass(template) and not isinstance(template, type):
        if type(value) is not type(template):
            raise _bad(where, f"a {type(template).__name__}", value)
        for f in fields(template):
            if f.name in ("pending", "n_pending"):  # ScoreCounts: empty once loaded
                continue
            check_loaded_state(getattr(value, f.name), getattr(template, f.name),
                               f"{where}.{f.name}")  # fmt: skip
        _invariants(value, where)
    elif isinstance(template, np.ndarray):
        _check_array(value, template, where)
    elif isinstance(template, (bool, np.bool_)):
        if not isinstance(value, (bool, np.bool_)):
            raise _bad(where, "a bool", value)
    elif isinstance(template, (int, np.integer)):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise _bad(where, "an integer", value)
        if value < 0:
            raise _bad(where, "a count >= 0", value)
    elif isinstance(template, (float, np.floating)):
        if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
            raise _bad(where, "a number", value)
        if not np.isfinite(value):
            raise _bad(where, "finite", value)
    elif isinstance(template, str):
        if value != template:
            raise _bad(where, repr(template), value)
    elif template is None:
        if value is not None and not isinstance(value, ExactSum):
            raise _bad(where, "None or an exact sum", value)
        if value is not None:
            check_loaded_state(value, ExactSum.zero(), where)
    elif isinstance(template, set):
        if not isinstance(value, set):
            raise _bad(where, "a set", value)
    elif isinstance(template, (tuple, list)):
        if not isinstance(value, type(template)):
            raise _bad(where, f"a {type(template).__name__}", value)
    elif isinstance(template, dict):
        if not isinstance(value, dict):
            raise _bad(where, "a dict", value)
        for key, held in template.items():  # the entries a fresh state holds
            if key in value:
                check_loaded_state(value[key], held, f"{where}[{key!r}]")

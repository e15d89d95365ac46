"""States of the streaming metrics that :mod:`receval.engine.totals` does not already hold.

Exact and binned AUC counts (:class:`ScoreCounts` and the pair of them of an
accumulator, :class:`AUCCounts`; :class:`BinnedCounts`), disjoint
score ranges (:class:`RangeStates`), the exact sums of RMSE, MAE, the Brier score and
R² (:class:`ErrorSums`, :class:`Moments`), the test of a batch of plain arrays the
compiled core checks itself (:func:`plain_pair`), and the check of states loaded from
pickles (:class:`~receval.engine.group_ids.Seen` among them). The states
of binary labels hold the labels of their rows (``labels``, a
:class:`~receval.engine.kinds.LabelKind`) and refuse rows of other labels.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, is_dataclass, replace
from types import MappingProxyType
from typing import Any, NamedTuple, TypeVar, cast

import numpy as np

from .._kernels import compiled
from .._validation import counted
from ..exceptions import InputValidationError, InvalidParameterError
from .group_ids import Seen
from .kinds import MERGED, NO_LABELS, UPDATE, Kind, LabelKind
from .rounding import CORE_ROUNDING, NOT_ROUNDED, RoundedWeights, core_rounding, rounding_problem
from .sums import ExactSum, fieldwise_sum, first_negative
from .window import DecayClock

__all__ = [
    "EXPONENT",
    "AUCCounts",
    "BinnedCounts",
    "ErrorSums",
    "LabelledRows",
    "Moments",
    "RangeStates",
    "ScoreCounts",
    "check_loaded_state",
    "plain_pair",
]

#: the metadata of a state's field that holds a power of two (of any sign), not a count
EXPONENT: Mapping[str, bool] = MappingProxyType({"exponent": True})


class ScoreCounts:
    """Rows per distinct score and label; weighted rows add their weights.

    Held in the compiled core as sorted runs, ``-0.0`` counted as ``0.0``. Unweighted
    rows are buffered (8 bytes a row, up to 2M rows); a full buffer is radix-sorted
    on a thread of the kernels' pool while the next updates fill the next buffer
    (in the update with ``RECEVAL_NUM_THREADS=1``; an update whose rows would
    outgrow the buffer sorts it first; the AUC sorts the rows buffered, then the full
    buffers no thread has started, while the pool's threads end theirs), into a run
    of each label's scores (8 bytes a row, or, where at most half are distinct, each
    distinct score once with its rows, 16 bytes). Weighted batches are sorted into a
    run each of (distinct score, positive weight, negative weight). Runs of about
    one size are merged two at a time in linear time, runs of a million entries and
    more only while more than 8 are held, so that a row is merged a few times; a
    merge of large runs proceeds a slice per ``add``, so that no update merges the
    largest runs at once. The AUC is a sum over the rows of the rarer label (a few
    percent of the rows in CTR data): its runs are merged, then walked against each
    run of the other label (in parts, on the kernels' threads), which writes
    nothing else. Counts are exact:
    rows as integers, each label's weights as integers in a unit of its own, the
    lowest bit of any weight of that label held (``2**pos_quantum`` and
    ``2**neg_quantum``), so that every sum, and the AUC computed from them, is the
    same float for any split of the rows into batches and any order of merges,
    while one label's weights in one state span at most 2**126 (e.g.
    weights from 2**-40 to 2**40 over 2**40 rows); beyond that, that label's smallest
    weights' lowest bits are rounded off (``rounded`` says which label's, how far its
    weights span and how much of their sum moved) and a weight is never rounded to
    zero. The two labels' weights may lie at any distance from each other (positives
    of 1e-300 beside negatives of 1e300): the AUC does not depend on the scale of
    either, and precision is computed from the two counts each in its own unit.
    """

    __slots__ = ("runs",)

    def __init__(self, weighted: bool, runs: Any = None) -> None:
        self.runs = compiled().AucRuns(bool(weighted)) if runs is None else runs

    @property
    def weighted(self) -> bool:
        """Whether the state holds weights."""
        return bool(self.runs.weighted)

    @property
    def rounded(self) -> RoundedWeights | None:
        """The labels whose weights held spanned more than 2**126 and were rounded (see
        the class); None while every bit is kept."""
        return RoundedWeights.of(self.runs.rounded)

    @property
    def entries(self) -> int:
        """Distinct scores held over all runs (a score in two runs counts twice)."""
        return int(self.runs.entries)

    @property
    def memory_bytes(self) -> int:
        """Bytes of the counts held (rows buffered included): what
        :attr:`~receval.engine.run.Accumulator.memory_bytes` adds up."""
        return int(self.runs.nbytes)

    def add(self, labels: np.ndarray, scores: np.ndarray, weights: np.ndarray | None) -> None:
        """Count validated rows (0/1 labels, finite float64 scores, weights >= 0;
        rows of weight 0 are left out)."""
        if len(labels):
            w = None if weights is None else np.ascontiguousarray(weights, dtype=np.float64)
            labels = np.ascontiguousarray(labels, dtype=np.int8)
            self.runs.add(labels, np.ascontiguousarray(scores, dtype=np.float64), w)

    def compact(self) -> ScoreCounts:
        """Merge every run into one; returns this state."""
        self.runs.compact()
        return self

    def merge(self, other: ScoreCounts) -> ScoreCounts:
        """The counts of both sets of rows (a new state)."""
        return ScoreCounts(self.weighted, self.runs.copy()).absorb(other)

    def absorb(self, other: ScoreCounts) -> ScoreCounts:
        """Add another state's counts into this one (in place); returns this state."""
        if other.weighted != self.weighted:
            raise InputValidationError(
                "merge: a state of weighted rows and one of unweighted rows; give weights to "
                "every update (ones where there are none)."
            )
        self.runs.absorb(other.runs.copy() if other is self else other.runs)
        return self

    def table(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
        """``(scores, pos, neg, shift)``: the distinct scores, increasing, and the rows of
        each label there as floats (each label's weights times a power of two of its
        own: ratios within a label are exact), a negatives' unit being ``2**shift``
        positives' units (0 without weights)."""
        scores, pos, neg, shift = self.runs.table()
        return scores, pos, neg, int(shift)

    def auc(self) -> float:
        """ROC AUC of the rows (ties count one half); nan without both labels. Twice the
        Mann-Whitney U and the pairs are exact integers (with weights, in each label's
        unit), and their quotient is rounded once to the nearest float."""
        return float(self.runs.auc())

    def __getstate__(self) -> dict[str, Any]:
        scores, pos, neg, (pos_quantum, neg_quantum), rounding = self.runs.exact_arrays()
        state = {"weighted": self.weighted, "scores": scores, "pos": pos, "neg": neg}
        units = {"pos_quantum": int(pos_quantum), "neg_quantum": int(neg_quantum),
                 "rounding": rounding}  # fmt: skip
        return state | (units if self.weighted else {})

    def __setstate__(self, state: dict[str, Any]) -> None:
        keys = {"weighted", "scores", "pos", "neg"}
        weighted = isinstance(state, dict) and state.get("weighted") is True
        if weighted and set(state) == keys | {"quantum"}:
            # saved before each label had a unit of its own (receval 0.1.0): one unit
            # for both, which holds each label's sums as exactly
            unit = state["quantum"]
            state = {k: state[k] for k in keys} | {name: unit for name in _UNITS}
        if weighted and set(state) == keys | set(_UNITS):
            state = state | {"rounding": NOT_ROUNDED}  # saved before it was kept: exact
        units = {*_UNITS, "rounding"} if weighted else set()
        if not isinstance(state, dict) or set(state) != keys | units:
            raise InputValidationError(
                f"ScoreCounts: a pickled state must be a dict of weighted, scores, pos and neg "
                f"(and pos_quantum, neg_quantum and rounding when weighted). Got "
                f"{type(state).__name__} {sorted(state) if isinstance(state, dict) else ''}."
            )
        self.runs = _loaded_runs(state, "ScoreCounts")


@dataclass
class AUCCounts:
    """Exact counts of unweighted rows and weighted counts, kept apart until one is used
    (an accumulator refuses updates with weights beside updates without:
    :class:`~receval.engine.kinds.WeightKind`); ``clock``: the
    weight of the next update's rows in a decayed accumulator (``decay=``)."""

    plain: ScoreCounts
    weighted: ScoreCounts
    clock: DecayClock = field(default_factory=DecayClock)
    labels: LabelKind = NO_LABELS

    def merge(self, other: AUCCounts) -> AUCCounts:
        labels = self.labels.join(other.labels, MERGED)
        return AUCCounts(self.plain.merge(other.plain), self.weighted.merge(other.weighted),
                         self.clock.merge(other.clock), labels)  # fmt: skip

    def fresh(self) -> AUCCounts:
        """An empty state at this state's update and of its labels: the rows added after
        it are weighed as this state's next update's (``sync`` restarts each rank's rows
        from it)."""
        return AUCCounts(ScoreCounts(False), ScoreCounts(True), replace(self.clock), self.labels)

    def precedes(self, later: AUCCounts) -> bool:
        """Whether ``later`` may follow this state (:meth:`followed_by`): it is at this
        update or after, with as many powers of two taken out or more."""
        mine, theirs = self.clock, later.clock
        return theirs.updates >= mine.updates and theirs.exponent >= mine.exponent

    def followed_by(self, later: AUCCounts) -> AUCCounts:
        """This state's rows, then those of ``later``, a state begun as this one's
        :meth:`fresh` (or the merge of such states): a new state at ``later``'s update,
        this state's weights divided by the powers of two taken out of ``later``'s since."""
        labels = self.labels.join(later.labels, MERGED)
        weighted = ScoreCounts(True, self.weighted.runs.copy())
        shift = later.clock.exponent - self.clock.exponent
        if shift:
            weighted.runs.scale_down(shift)
        return AUCCounts(self.plain.merge(later.plain), weighted.absorb(later.weighted),
                         replace(later.clock), labels)  # fmt: skip

    def absorb(self, other: AUCCounts) -> AUCCounts:
        self.labels = self.labels.join(other.labels, UPDATE)
        self.clock = self.clock.merge(other.clock)
        self.plain.absorb(other.plain)
        self.weighted.absorb(other.weighted)
        return self

    def counts(self, func: str) -> ScoreCounts:
        """The counts in use (weighted or not); raises for a state that holds both (one
        loaded from an accumulator saved before it held whether its rows had weights)."""
        plain, weighted = self.plain, self.weighted
        if plain.entries and weighted.entries:
            raise InvalidParameterError(
                f"{func}: some updates had sample_weight and others did not; give weights to "
                f"every update (ones where there are none)."
            )
        return weighted if weighted.entries else plain


#: The exponents of the units of a weighted state's positives and negatives.
_UNITS = ("pos_quantum", "neg_quantum")


def _loaded_runs(state: dict[str, Any], where: str) -> Any:
    """The core's runs of a pickled :class:`ScoreCounts`, or an error naming the field."""
    weighted, scores, pos, neg = (state[k] for k in ("weighted", "scores", "pos", "neg"))
    if not isinstance(weighted, (bool, np.bool_)):
        raise _bad(f"{where}.weighted", "a bool", weighted)
    if not isinstance(scores, np.ndarray) or scores.ndim != 1 or scores.dtype != np.float64:
        raise _bad(f"{where}.scores", "a 1-d float64 array", scores)
    count_kind: tuple[tuple[int, ...], Any, str] = (
        ((2,), np.uint64, "an (n, 2) uint64 array")
        if weighted
        else ((), np.int64, "a 1-d int64 array")
    )
    for name, counts in (("pos", pos), ("neg", neg)):
        if (
            not isinstance(counts, np.ndarray)
            or counts.dtype != count_kind[1]
            or counts.shape[1:] != count_kind[0]
        ):
            raise _bad(f"{where}.{name}", count_kind[2], counts)
        if len(counts) != len(scores):
            raise _bad(f"{where}.pos and .neg", f"of the length of .scores ({len(scores)})", counts)
    units = [state[name] for name in _UNITS] if weighted else []
    for name, quantum in zip(_UNITS, units, strict=False):
        if isinstance(quantum, bool) or not isinstance(quantum, (int, np.integer)):
            raise _bad(f"{where}.{name}", "an int", quantum)
    rounding = core_rounding(state["rounding"]) if weighted else NOT_ROUNDED
    if rounding is None:
        raise _bad(f"{where}.rounding", CORE_ROUNDING, state["rounding"])
    k = compiled()
    try:
        if weighted:
            counts = np.ascontiguousarray(pos), np.ascontiguousarray(neg)
            quantum = int(units[0]), int(units[1])
            return k.AucRuns.from_weights(scores, *counts, quantum, rounding)
        return k.AucRuns.from_rows(scores, pos, neg)
    except ValueError as e:  # the core's "<field> must be <what>"
        name, _, expected = str(e).partition(" must be ")
        name = "pos and .neg" if name == "counts" else name
        raise _bad(f"{where}.{name}", expected, scores) from None


@dataclass
class BinnedCounts:
    """Rows per label in ``n_bins`` equal bins of ``[low, high]`` (scores outside go to
    the end bins). Constant memory; the AUC counts same-bin pairs one half.
    ``n_pos_rows``, ``n_neg_rows``: each label's rows, whatever their weights (a label
    of no weight had rows of weight 0 where it has rows; 0 in a state saved before)."""

    n_bins: int
    low: float
    high: float
    weighted: bool
    pos: np.ndarray = field(default_factory=lambda: np.empty(0))
    neg: np.ndarray = field(default_factory=lambda: np.empty(0))
    labels: LabelKind = NO_LABELS
    n_pos_rows: int = 0
    n_neg_rows: int = 0

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
        rows = []
        for target, mask in ((self.pos, is_pos), (self.neg, ~is_pos)):
            at = ids[mask]
            rows.append(len(at))
            if len(ids) * 8 < self.n_bins:  # few rows, many bins: no pass over the bins
                np.add.at(target, at, 1 if w is None else w[mask])
            elif w is None:
                target += np.bincount(at, minlength=self.n_bins)
            else:
                target += np.bincount(at, weights=w[mask], minlength=self.n_bins)
        self.n_pos_rows += rows[0]
        self.n_neg_rows += rows[1]

    def absorb(self, other: BinnedCounts) -> BinnedCounts:
        """Add another state's counts into this one (in place); returns this state."""
        self._check_same_bins(other)
        self.labels = self.labels.join(other.labels, UPDATE)
        self.pos += other.pos
        self.neg += other.neg
        self.n_pos_rows += other.n_pos_rows
        self.n_neg_rows += other.n_neg_rows
        return self

    def _check_same_bins(self, other: BinnedCounts) -> None:
        if (self.n_bins, self.low, self.high) != (other.n_bins, other.low, other.high):
            raise InputValidationError(
                f"merge: binned AUC states must have the same bins. Got "
                f"{counted(self.n_bins, 'bin')} on "
                f"[{self.low}, {self.high}] and {other.n_bins} on [{other.low}, {other.high}]."
            )

    def merge(self, other: BinnedCounts) -> BinnedCounts:
        """The counts of both sets of rows (a new state)."""
        self._check_same_bins(other)
        labels = self.labels.join(other.labels, MERGED)
        weighted = self.weighted or other.weighted
        return BinnedCounts(self.n_bins, self.low, self.high, weighted, self.pos + other.pos,
                            self.neg + other.neg, labels, self.n_pos_rows + other.n_pos_rows,
                            self.n_neg_rows + other.n_neg_rows)  # fmt: skip

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
    labels: LabelKind = NO_LABELS

    def merge(self, other: RangeStates) -> RangeStates:
        return RangeStates(self.ranges + other.ranges, self.labels.join(other.labels, MERGED))


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
    R² and explained variance, merged without rounding.

    The sums are of ``y`` times ``2**-y_shift`` and ``p`` times ``2**-p_shift`` (their
    products scaled alike, exactly): each 0 unless that column's largest value is
    below ``2**-20`` or its square times the largest weight would pass ``2**995`` (past
    which the products are no longer split exactly); then its largest is brought as
    high as that allows, so that the squares of values far below it stay above
    ``2**-1074`` as far as they can (truths near 1e-300 beside predictions near
    1e100). Every sum is of the weights times ``2**-w_shift``, the power of two of
    :func:`~receval.engine.sums.weight_shift` (0 unless the largest weight is beyond
    ``2**±64``), as the metric's function scales all its rows' weights: Brier, R² and
    explained variance are ratios of the sums, the same for the weights times any
    power of two. States of different shifts merge at the larger ones. ``lost``: for
    each sum (in the order above, at the state's scale), a bound on what it lost to
    the range of float64 (products below ``2**-969``, weights or values scaled below
    ``2**-1022``, bits below ``2**-1074`` of a merge at a larger scale): all 0 where
    the sums are exact, which is every state of values and weights within ``2**±900``
    of one another. ``labels``: those of the Brier score's rows
    (:class:`~receval.engine.kinds.LabelKind`)."""

    weight: ExactSum
    y: ExactSum
    p: ExactSum
    yy: ExactSum
    yp: ExactSum
    pp: ExactSum
    n_rows: int
    y_shift: int = field(default=0, metadata=EXPONENT)
    p_shift: int = field(default=0, metadata=EXPONENT)
    labels: LabelKind = NO_LABELS
    w_shift: int = field(default=0, metadata=EXPONENT)
    lost: np.ndarray = field(default_factory=lambda: np.zeros(6))

    #: the exact sums, in the order of ``lost``
    SUMS = ("weight", "y", "p", "yy", "yp", "pp")

    @classmethod
    def of(
        cls, y: np.ndarray, p: np.ndarray, w: np.ndarray | None, labels: LabelKind = NO_LABELS
    ) -> Moments:
        """The moments of validated float64 rows (``w`` None: weights of 1)."""
        from .sums import exact_products, weight_shift

        if w is not None and not w.all():  # a row of weight 0 adds nothing to a sum:
            kept = w != 0  # nor does its value set a column's scale
            y, p = np.where(kept, y, 0.0), np.where(kept, p, 0.0)
        w_shift = 0 if w is None else weight_shift(w)
        heaviest = 1 if w is None or not len(w) else max(math.frexp(float(w.max()))[1] - w_shift, 1)
        y_shift, p_shift = _value_shift(y, heaviest), _value_shift(p, heaviest)
        scaled: list[Any] = [x if k == 0 or x is None else np.ldexp(x, -k)
                             for x, k in ((w, w_shift), (y, y_shift), (p, p_shift))]  # fmt: skip
        lost = _scaling_loss((w, y, p), scaled, (w_shift, y_shift, p_shift))
        w, y, p = scaled
        if w is None:
            weight = ExactSum.of([float(len(y))])
            (sy, lost_y), (sp, lost_p) = (ExactSum.of(y), 0.0), (ExactSum.of(p), 0.0)
        else:
            weight, (sy, lost_y), (sp, lost_p) = (
                ExactSum.of(w), exact_products(y, w), exact_products(p, w))  # fmt: skip
        (yy, lost_yy), (yp, lost_yp), (pp, lost_pp) = (
            exact_products(y, y, w), exact_products(y, p, w), exact_products(p, p, w))  # fmt: skip
        lost += [0.0, lost_y, lost_p, lost_yy, lost_yp, lost_pp]
        return cls(weight, sy, sp, yy, yp, pp, len(y), y_shift, p_shift, labels, w_shift, lost)

    @classmethod
    def zero(cls) -> Moments:
        z = ExactSum.zero()
        return cls(z, z, z, z, z, z, 0)

    def merge(self, other: Moments) -> Moments:
        return self._joined(other, MERGED)

    def absorb(self, other: Moments) -> Moments:
        """:meth:`merge` of an update's state (a new state: this one stays as it is)."""
        return self._joined(other, UPDATE)

    def _joined(self, other: Moments, where: str) -> Moments:
        labels = self.labels.join(other.labels, where)
        a, b = self, other

        def larger(x: int, y: int, x_empty: bool, y_empty: bool) -> int:
            return y if x_empty else x if y_empty else max(x, y)  # an empty side takes any

        w_shift = larger(a.w_shift, b.w_shift, a.weight.is_zero(), b.weight.is_zero())
        y_shift = larger(a.y_shift, b.y_shift, a._none("y"), b._none("y"))
        p_shift = larger(a.p_shift, b.p_shift, a._none("p"), b._none("p"))
        a, b = (s._at(w_shift, y_shift, p_shift) for s in (a, b))
        return replace(fieldwise_sum(a, b), labels=labels, w_shift=w_shift, y_shift=y_shift,
                       p_shift=p_shift)  # fmt: skip

    def _none(self, column: str) -> bool:
        """Whether the sums of the column ``"y"`` or ``"p"`` are all 0."""
        return all(getattr(self, k).is_zero() for k in self.SUMS[1:] if column in k)

    def _at(self, w_shift: int, y_shift: int, p_shift: int) -> Moments:
        """This state's sums at the given (larger, or for sums of 0 any) shifts, each sum's
        bound scaled alike plus ``2**-1074`` for the bits a smaller scale drops."""
        dw, dy, dp = w_shift - self.w_shift, y_shift - self.y_shift, p_shift - self.p_shift
        steps = (dw, dw + dy, dw + dp, dw + 2 * dy, dw + dy + dp, dw + 2 * dp)
        if not any(steps):
            return self
        sums: dict[str, Any] = {}
        lost = self.lost.copy()
        for i, (name, d) in enumerate(zip(self.SUMS, steps, strict=True)):
            total: ExactSum = getattr(self, name)
            if d > 0 and not total.is_zero():
                sums[name] = total.scaled_down(d)
                lost[i] = math.ldexp(lost[i], -d) + 2.0**-1074
        return replace(self, **sums, w_shift=w_shift, y_shift=y_shift, p_shift=p_shift, lost=lost)


def _value_shift(values: np.ndarray, heaviest: int) -> int:
    """The power of two a column of :class:`Moments` is scaled by: 0 unless its largest
    magnitude is below ``2**-20`` or its square times ``2**heaviest`` (the largest
    weight's exponent) would pass ``2**995``; then what brings the largest as high as
    that allows. Read without a copy of the column."""
    top = max(float(values.max()), -float(values.min())) if len(values) else 0.0
    highest, exponent = (995 - heaviest) // 2, math.frexp(top)[1]
    return 0 if top == 0 or -20 <= exponent <= highest else exponent - highest


def _scaling_loss(
    given: tuple[np.ndarray | None, np.ndarray, np.ndarray],
    scaled: list[Any],
    shifts: tuple[int, int, int],
) -> np.ndarray:
    """Bounds on what :class:`Moments`' six sums lose where scaling the weights, ``y`` or
    ``p`` (``given``, times ``2**-shifts``: ``scaled``) took a value below ``2**-1022``,
    where it may lose up to ``2**-1074``: times the row's 1, ``|y|``, ``|p|``, ``y^2``,
    ``|y p|``, ``p^2`` for a weight; for a value ``c`` of the other column ``d``, times
    the row's weight in the sums of ``c`` and ``c^2`` (``2 |c|`` is below 1 there) and
    its weight times ``|d|`` in that of ``c d``. Zeros where no scaling was down."""
    lost = np.zeros(6)
    w, y, p = scaled
    for i, (before, after, shift) in enumerate(zip(given, scaled, shifts, strict=True)):
        if shift <= 0 or before is None:  # scaled up, or not at all: exact
            continue
        rows = np.flatnonzero((np.abs(after) < 2.0**-1022) & (before != 0))
        if not len(rows):
            continue
        weight = np.ones(len(rows)) if w is None else w[rows]
        ay, ap = np.abs(y[rows]), np.abs(p[rows])
        if i == 0:  # weights
            terms = {0: np.ones(len(rows)), 1: ay, 2: ap, 3: ay * ay, 4: ay * ap, 5: ap * ap}
        elif i == 1:  # y
            terms = {1: weight, 3: weight, 4: weight * ap}
        else:  # p
            terms = {2: weight, 5: weight, 4: weight * ay}
        for k, term in terms.items():
            lost[k] += float(term.sum()) * 2.0**-1074 * (1 + 2.0**-40)
    return lost


S = TypeVar("S")


def at_one_weight_shift(a: S, b: S, sums: tuple[str, ...]) -> tuple[S, S]:
    """Two states of exact sums of weights (the fields ``sums``, ``weight`` among them,
    in units of ``2**-w_shift``) at one ``w_shift``, the larger: the other's sums
    scaled down to it. A state of weight 0 takes the other's ``w_shift`` as it is."""
    x: Any = a
    y: Any = b
    if x.w_shift == y.w_shift:
        return a, b
    if x.weight.is_zero():
        return cast(S, replace(x, w_shift=y.w_shift)), b
    if y.weight.is_zero():
        return a, cast(S, replace(y, w_shift=x.w_shift))

    def at(state: Any, w_shift: int) -> S:
        d = w_shift - state.w_shift
        scaled = {k: getattr(state, k).scaled_down(d) for k in sums}
        return cast(S, replace(state, w_shift=w_shift, **scaled))

    return (a, at(y, x.w_shift)) if x.w_shift > y.w_shift else (at(x, y.w_shift), b)


# ------------------------------------------------------------------ batches
class LabelledRows(NamedTuple):
    """A prepared batch of binary labels: int8 0/1 ``labels``, float64 ``scores``,
    ``weights`` (None: none) and the labels it was given (``kind``), which the state's
    earlier batches must share."""

    labels: np.ndarray
    scores: np.ndarray
    weights: np.ndarray | None
    kind: LabelKind


def plain_pair(y_true: Any, y_score: Any, sample_weight: Any) -> bool:
    """Whether a batch is two non-empty 1-D NumPy arrays of one length and no weights
    (the input a metric's ``update_plain`` hands to the compiled core)."""
    return (
        sample_weight is None
        and type(y_true) is np.ndarray
        and type(y_score) is np.ndarray
        and y_true.ndim == 1
        and y_true.shape == y_score.shape
        and y_true.size > 0
    )


# ------------------------------------------------------------------ states loaded from pickles
def invalid_state(what: str) -> InputValidationError:
    """The error of an accumulator loaded from a pickle that this code did not make."""
    return InputValidationError(
        f"Accumulator: a loaded state is invalid: {what}; unpickle only accumulators this "
        f"code made (unpickling runs code: load only trusted data)."
    )


def _bad(where: str, expected: str, value: Any) -> InputValidationError:
    shown = (
        f"a {type(value).__name__} of {counted(len(value), 'entry', 'entries')}"
        if isinstance(value, (list, tuple))
        else f"{type(value).__name__} {value!r}"
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


def _invariants(value: Any, where: str) -> None:
    """What a state of each kind holds beyond its fields' types."""
    if isinstance(value, BinnedCounts):
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
        _signs(value, where, {f"{name}[{k}]": x for name in ("squared", "absolute")
                              for k, x in getattr(value, name).items()})  # fmt: skip
    elif isinstance(value, Moments):  # sums of weights and of squares
        _signs(value, where, {})
    elif hasattr(value, "invalid"):  # a state that knows its own invariants
        problem = value.invalid()
        if problem is not None:
            raise _bad(f"{where}.{problem[0]}", problem[1], getattr(value, problem[0]))


def _signs(value: ErrorSums | Moments, where: str, sums: dict[str, ExactSum]) -> None:
    """Refuse a negative or infinite sum of ``value``'s ``sums``, its weight's and, of
    :class:`Moments`, those of squares."""
    names = ("weight",) if isinstance(value, ErrorSums) else ("weight", "yy", "pp")
    sums.update({name: getattr(value, name) for name in names})
    if (name := first_negative(sums)) is not None:
        raise _bad(f"{where}.{name}", "a finite sum >= 0", sums[name])


def check_loaded_state(value: Any, template: Any, where: str = "state") -> None:
    """Check a state read from a pickle against ``template``, a fresh state of the same
    metric and options: the same classes, field by field, arrays of numbers of the
    template's shape (any length where the template's is empty), counts that are
    integers >= 0, finite floats, the same strings (how values combine), and each
    kind's invariants (a :class:`ScoreCounts` checks its own as it is unpickled).

    Raises
    ------
    InputValidationError
        Naming the field, what it must be and what it holds.
    """
    if isinstance(template, Kind):  # what a state's rows were: its own invariants
        problem = value.invalid() if type(value) is type(template) else None
        if type(value) is not type(template) or problem is not None:
            field_name, expected = problem or ("", f"a {type(template).__name__}")
            raise _bad(f"{where}.{field_name}".rstrip("."), expected, value)
    elif isinstance(template, Seen):
        if type(value) is not Seen:
            raise _bad(where, "a Seen", value)
        if (problem := value.invalid()) is not None:
            raise _bad(f"{where}.{problem[0]}", problem[1], getattr(value, problem[0]))
    elif isinstance(template, ScoreCounts):  # its pickle was checked as it was read
        if type(value) is not ScoreCounts or value.weighted != template.weighted:
            raise _bad(
                where,
                f"a ScoreCounts of {'weighted' if template.weighted else 'unweighted'} rows",
                value,
            )
    elif is_dataclass(template) and not isinstance(template, type):
        if type(value) is not type(template):
            raise _bad(where, f"a {type(template).__name__}", value)
        for f in fields(template):
            if not hasattr(value, f.name):  # a state pickled without the field
                raise invalid_state(
                    f"{where}.{f.name} is missing (a {type(template).__name__} of another "
                    f"version of receval?); save the state again with this version"
                )
            held = getattr(value, f.name)
            if f.metadata.get("exponent"):  # a power of two: any integer
                if isinstance(held, (bool, np.bool_)) or not isinstance(held, (int, np.integer)):
                    raise _bad(f"{where}.{f.name}", "an integer", held)
                continue
            if f.metadata.get("rounding"):  # a RoundedWeights or None
                if (wanted := rounding_problem(held)) is not None:
                    raise _bad(f"{where}.{f.name}", wanted, held)
                continue
            check_loaded_state(held, getattr(template, f.name), f"{where}.{f.name}")
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

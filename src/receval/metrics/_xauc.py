"""XAUC: the pairwise order agreement of scores with continuous targets (watch time)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .. import _validation as v
from .._kernels import compiled
from ..data._arrow import concat_columns
from ..data._encode import float_id_values
from ..data._lookup import distinct
from ..engine.kinds import MERGED, NO_IDS, NO_LABELS, UPDATE, IdKind, LabelKind
from ..engine.metric import MetricDefinition, data_columns, no_options, register
from ..engine.sources import run_definition
from ..exceptions import InputValidationError, InvalidParameterError
from ._binary import warn_undefined

__all__ = ["xauc_score"]

_FUNC = "xauc_score"
_UNDEFINED = (
    f"{_FUNC}: every y_true is equal, so no pair of rows has different targets and XAUC is "
    f"undefined (returned as nan)."
)
#: rows of a state beyond which pair counts could overflow int64 (they are then floats)
_EXACT_ROWS = 2**31


def xauc_score(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike | None = None,
    weighting: str = "impressions",
    empty_groups: str = "skip",
    targets: str = "continuous",
    equal_targets: str = "skip",
    min_rows: int = 1,
    sample_weight: ArrayLike | None = None,
) -> float:
    """Compute XAUC: the share of pairs that the scores order as the targets do.

    Over every pair of rows whose targets differ, the (weighted) share that
    ``y_score`` orders the same way as ``y_true``; a pair with equal scores
    counts one half, and pairs with equal targets are left out. The AUC of
    continuous targets such as watch time (TorchEasyRec's ``XAUC``, after Zhan
    et al. 2022): with 0/1 targets it is the ROC AUC. A pair ``(i, j)`` weighs
    ``w_i w_j``, as in TorchRec's ``XAUCMetric``.

    With ``groups``, grouped XAUC (TorchEasyRec's ``GroupedXAUC``): the XAUC of
    each group's own pairs, averaged over the groups weighted by their rows
    (``weighting``); a group without a pair of different targets has no XAUC and
    is skipped, or counts 0 (``empty_groups="zero"``: CatBoost's
    ``QueryAUC:type=Ranking`` is ``weighting="uniform", empty_groups="zero"``).
    With ``targets="probabilities"`` each row of target ``t`` is a positive of
    weight ``t w`` and a negative of weight ``(1 - t) w`` (CatBoost's
    ``QueryAUC:type=Classic`` with the same two options). With
    ``equal_targets="input_order"`` every pair of a group counts: a pair of equal
    targets is in order when the earlier row (in input order) scores higher
    (XGBoost's ``auc`` of query groups is that with ``weighting="uniform",
    min_rows=3``).

    Exact, in O(n log n) (never the O(n²) pair loop): the rows are reduced to
    counts per distinct ``(group, y_true, y_score, sample_weight)`` by the
    compiled core, the state of :func:`receval.metric` ("xauc", "grouped_xauc"),
    of a :func:`receval.scan` and of Spark, which merges exactly whatever the
    split of the rows (a group's rows too), and the pairs of each group are
    counted by a merge sort over them.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Targets; only their order matters (watch time, dwell time, ratings).
    y_score : array-like of shape (n_samples,)
        Scores; only their order matters.
    groups : array-like of shape (n_samples,), default=None
        Group id of each row (user, session, query): only pairs within a group
        count, and the groups' XAUCs are averaged.
    weighting : {"impressions", "uniform"}, default="impressions"
        With ``groups``: the weight of each group's XAUC, its total sample
        weight (its rows without weights, as TorchEasyRec) or 1.
    empty_groups : {"skip", "zero"}, default="skip"
        With ``groups``: a group without a pair of different targets is left out
        of the mean, or counts 0 with its weight (as CatBoost's ``QueryAUC``).
    targets : {"continuous", "probabilities"}, default="continuous"
        ``"probabilities"``: targets in [0, 1], each row the positive and the
        negative above (its own two halves a tied pair).
    equal_targets : {"skip", "input_order"}, default="skip"
        With ``groups``: pairs of equal targets left out, or counted in the order
        the rows come (the earlier row's higher score in order, a tie one half;
        no ``sample_weight``).
    min_rows : int, default=1
        With ``groups``: groups of fewer rows are left out of the mean.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights; a pair weighs the product of its rows' weights.

    Returns
    -------
    xauc : float
        In [0, 1]; 0.5 for scores unrelated to the targets (or all equal), 1 when
        every pair is ordered as the targets are. ``nan`` with an
        ``UndefinedMetricWarning`` when no pair (of non-zero weight) has
        different targets.

    Raises
    ------
    InputValidationError
        NaN or infinite targets or scores, negative weights, lengths that differ,
        empty input.

    See Also
    --------
    roc_auc_score : The same pairs with 0/1 targets.

    Notes
    -----
    ``XAUC = sum_{y_i > y_j} w_i w_j ([s_i > s_j] + [s_i = s_j] / 2) /
    sum_{y_i > y_j} w_i w_j``. TorchEasyRec (``tzrec/metrics/xauc.py``) samples
    pairs and counts pairs with equal targets or equal scores as not ordered;
    see the conventions page. Without weights the pair counts are integers and
    the value is their ratio rounded once.

    References: Zhan, R. et al. (2022), "Deconfounding Duration Bias in Watch-time
    Prediction for Video Recommendation", KDD.

    Examples
    --------
    >>> from receval import xauc_score
    >>> watch_time = [3.0, 12.0, 7.5, 0.0]
    >>> xauc_score(watch_time, [0.2, 0.9, 0.4, 0.1])  # every pair in order
    1.0
    >>> xauc_score(watch_time, [0.2, 0.4, 0.9, 0.1])  # one of six pairs swapped
    0.8333
    >>> xauc_score([1.0, 2.0, 2.0], [0.5, 0.5, 0.7])  # a tie counts one half
    0.75
    >>> users = ["a", "a", "a", "a", "b", "b"]
    >>> xauc_score(watch_time + [1.0, 2.0], [0.2, 0.4, 0.9, 0.1, 0.3, 0.6], groups=users)
    0.8889
    >>> users = ["a", "a", "a", "a", "b", "b"]  # "b": equal targets, no pair
    >>> xauc_score(watch_time + [1.0, 1.0], [0.2, 0.4, 0.9, 0.1, 0.3, 0.6], groups=users,
    ...            weighting="uniform", empty_groups="zero")  # CatBoost's QueryAUC
    0.4167
    >>> xauc_score([0.0, 1.0, 0.5], [0.1, 0.9, 0.5], targets="probabilities")
    0.9444
    >>> xauc_score([1, 1, 0, 2, 2, 0], [0.9, 0.1, 0.5, 0.3, 0.8, 0.1],
    ...            groups=[7, 7, 7, 8, 8, 8], equal_targets="input_order")  # (1, 1): in order
    0.6667
    """
    columns = {"y_true": y_true, "y_score": y_score, "sample_weight": sample_weight}
    options: dict[str, Any] = {"weighting": weighting, "empty_groups": empty_groups,
                               "equal_targets": equal_targets, "min_rows": min_rows}  # fmt: skip
    if groups is None:
        _grouped_params(**options)
        if (equal_targets, min_rows) != ("skip", 1):
            raise InvalidParameterError(
                f"{_FUNC}: equal_targets and min_rows are options of grouped XAUC. Got "
                f"equal_targets={equal_targets!r}, min_rows={min_rows!r} without groups; "
                f"pass groups= (one group: groups=[0] * len(y_true))."
            )
        params = XAUC.check_params(targets=targets)
        result: float = run_definition(XAUC, params, columns, func=_FUNC)
        return result
    params = GROUPED_XAUC.check_params(targets=targets, **options)
    grouped: float = run_definition(GROUPED_XAUC, params, columns | {"groups": groups},
                                    func=_FUNC)  # fmt: skip
    return grouped


# ------------------------------------------------------------------ the state
#: the group ids of a state without groups: one group, code 0
_ONE_GROUP = np.zeros(1, dtype=np.int64)
_ONE_GROUP.flags.writeable = False


def _no_ids() -> np.ndarray:
    return _ONE_GROUP


@dataclass
class XAUCCounts:
    """Rows per distinct ``(group, y_true, y_score, sample_weight)``: the state of XAUC
    (and of grouped XAUC, regression AUC and grouped AUPRC).

    ``codes`` (indices into ``ids``, the sorted distinct group ids; one group ``0``
    without groups), ``y``, ``s``, ``w`` hold the distinct keys in the canonical order
    (group and ``y`` ascending, ``s`` descending, ``w`` ascending; ``-0.0`` counted as
    ``0.0``; 1.0 for rows without weights), ``count`` their rows. Rows of weight 0
    are in no key (they are in no pair): ``zero`` holds how many a group of ``ids``
    had (empty where none had one), so that a group whose rows all weigh 0 is a group
    of the state, without a value and counted among those left out (as
    :func:`receval.gauc_score` counts it), with its rows. Batches and merged states
    wait in ``pending`` and are folded in by the compiled core when they outgrow the
    counts. The counts are integers, so any split of the rows and any order of merges
    give the same state, and the same value (``in_order`` aside: its pairs follow the
    order of the rows).

    ``in_order`` holds, per update that asked for it (``equal_targets="input_order"``),
    its rows in their order: ``(ids, codes, y, s)``, the update's sorted distinct group
    ids, each row's index into them, its target and score. An update only appends its
    rows; :meth:`in_order_twice` counts the pairs of equal targets of every group once,
    over the rows in the order of the updates and of ``merge(other)`` (this state's
    rows, then ``other``'s). ``ids_kind``: the type of the group ids, which every batch
    and merged state must share (the int 1 and the str "1" are not one group);
    ``labels``: the pair of binary labels the rows were read from (grouped AUPRC's;
    :class:`~receval.engine.kinds.LabelKind`), which every batch and merged state must
    share too (none for continuous targets).
    """

    y: np.ndarray = field(default_factory=lambda: np.empty(0))
    s: np.ndarray = field(default_factory=lambda: np.empty(0))
    w: np.ndarray = field(default_factory=lambda: np.empty(0))
    count: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64))
    codes: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64))
    group_ids: list[np.ndarray] = field(default_factory=list)
    pending: list[tuple[np.ndarray, ...]] = field(default_factory=list)
    n_pending: int = 0
    in_order: list[tuple[np.ndarray, ...]] = field(default_factory=list)
    ids_kind: IdKind = NO_IDS
    labels: LabelKind = NO_LABELS
    zero: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64))

    @property
    def ids(self) -> np.ndarray:
        """The sorted distinct group ids (one group, ``0``, without groups)."""
        return self.group_ids[0] if self.group_ids else _ONE_GROUP

    @ids.setter
    def ids(self, value: np.ndarray) -> None:
        self.group_ids = [] if value is _ONE_GROUP else [value]

    def add(
        self, y: np.ndarray, s: np.ndarray, w: np.ndarray | None, groups: np.ndarray | None = None,
        ids_kind: IdKind = NO_IDS, labels: LabelKind = NO_LABELS, *, in_order: bool = False,
    ) -> None:  # fmt: skip
        """Count validated rows per distinct key (``groups``: each row's group id, of the
        type ``ids_kind``; ``labels``: the binary labels ``y`` was read from, if any;
        ``in_order``: count the pairs of equal targets in the rows' order too)."""
        joined = self.labels.join(labels, UPDATE)
        self.ids_kind = self.ids_kind.join(ids_kind, UPDATE)  # before a row is added
        self.labels = joined
        if not len(y):
            return
        if groups is None:
            ids, codes = _no_ids(), np.zeros(len(y), dtype=np.int64)
        else:
            ids, codes = np.unique(groups, return_inverse=True)
            codes = codes.reshape(-1).astype(np.int64)
        zero = np.empty(0, dtype=np.int64)
        if w is not None:
            keep = w > 0
            if not keep.all():
                zero = np.bincount(codes[~keep], minlength=len(ids)).astype(np.int64)
                y, s, w, codes = y[keep], s[keep], w[keep], codes[keep]
        w = np.ones(len(y)) if w is None else w
        part = (codes, y, s, w, np.ones(len(y), dtype=np.int64), ids, zero)
        if in_order:
            self.in_order.append((ids, codes, y, s))
        self._push(part)

    def _parts(self) -> list[tuple[np.ndarray, ...]]:
        return [self._whole(), *self.pending]

    def _whole(self) -> tuple[np.ndarray, ...]:
        return (self.codes, self.y, self.s, self.w, self.count, self.ids, self.zero)

    def _push(self, part: tuple[np.ndarray, ...]) -> None:
        if not _holds_rows(part):
            return
        self.pending.append(part)
        self.n_pending += len(part[1])
        if self.n_pending > max(len(self.y), 1 << 20):
            self.compact()

    def compact(self) -> XAUCCounts:
        """Fold the pending counts into the counts."""
        if not self.pending:
            return self
        parts = [p for p in self._parts() if _holds_rows(p)]
        self.pending, self.n_pending = [], 0
        if len(parts) == 1 and parts[0][1] is not self.y:  # one batch: made distinct
            p = parts[0]
            parts = [(*_distinct(p[0], p[1], p[2], p[3], p[4]), p[5], p[6])]
        if len(parts) > 1:
            ids = parts[0][5]
            # ids of other dtypes joined exactly (NumPy compares uint64 with int64 as
            # float64: ids that differ above 2**53 would be one group)
            if any(p[5].dtype != ids.dtype or not np.array_equal(p[5], ids) for p in parts[1:]):
                ids = distinct(concat_columns([p[5] for p in parts], "groups"))
            where = [np.searchsorted(ids, p[5].astype(ids.dtype, copy=False)) for p in parts]
            codes = np.concatenate([at[p[0]] for at, p in zip(where, parts, strict=True)])
            y, s, w, count = (np.concatenate([p[i] for p in parts]) for i in range(1, 5))
            zero = np.zeros(len(ids), dtype=np.int64)
            for at, p in zip(where, parts, strict=True):
                if len(p[6]):
                    zero[at] += p[6]  # a part's ids are distinct
            zero = zero if zero.any() else zero[:0]
            parts = [(*_distinct(codes, y, s, w, count), ids, zero)]
        self.codes, self.y, self.s, self.w, self.count, self.ids, self.zero = parts[0]
        return self

    def merge(self, other: XAUCCounts) -> XAUCCounts:
        """The counts of both sets of rows (a new state; arrays are shared, never written)."""
        kind = self.ids_kind.join(other.ids_kind, MERGED)
        labels = self.labels.join(other.labels, MERGED)
        out = XAUCCounts(self.y, self.s, self.w, self.count, self.codes,
                         list(self.group_ids), list(self.pending), self.n_pending,
                         list(self.in_order), kind, labels, self.zero)  # fmt: skip
        return out.absorb(other)

    def absorb(self, other: XAUCCounts) -> XAUCCounts:
        """Add another state's counts into this one (in place); returns this state."""
        labels = self.labels.join(other.labels, UPDATE)
        self.ids_kind = self.ids_kind.join(other.ids_kind, UPDATE)
        self.labels = labels
        self.in_order += other.in_order  # other's rows come after this state's
        for part in other._parts():
            self._push(part)
        return self

    def starts(self) -> np.ndarray:
        """Where each group's keys start, and the end: ``len(ids) + 1`` offsets."""
        self.compact()
        return np.searchsorted(self.codes, np.arange(len(self.ids) + 1)).astype(np.int64)

    def pair_sums(self) -> tuple[np.ndarray, np.ndarray, bool]:
        """Per group: twice the pair weight ordered alike (tied scores once), the pair
        weight of different targets, and whether both are integer counts (one weight
        for every row: the value of unit weights)."""
        starts = self.starts()
        one_weight = not len(self.w) or float(self.w.min()) == float(self.w.max())
        exact = one_weight and int(self.count.sum()) < _EXACT_ROWS
        if exact:
            twice, pairs = compiled().xauc_pairs_counted(starts, self.y, self.s, self.count)
        else:
            weights = self.count * self._scaled_weights()
            twice, pairs = compiled().xauc_pairs_weighted(starts, self.y, self.s, weights)
        return twice, pairs, exact

    def rows(self) -> np.ndarray:
        """Rows of positive weight of each group (int64)."""
        return _group_sums(self.count, self.starts())

    def zero_rows(self) -> np.ndarray:
        """Rows of weight 0 of each group (int64)."""
        self.compact()
        return self.zero if len(self.zero) else np.zeros(len(self.ids), dtype=np.int64)

    def in_order_twice(self) -> np.ndarray:
        """Per group: twice the pairs of equal targets in input order whose earlier row
        scores higher, plus their tied scores (int64). The rows of every update are
        joined into one part (kept: a later call starts from it) and counted once."""
        self.compact()
        if not self.in_order:
            return np.zeros(len(self.ids), dtype=np.int64)
        if len(self.in_order) > 1 or not np.array_equal(self.in_order[0][0], self.ids):
            codes = np.concatenate([np.searchsorted(self.ids, p[0])[p[1]] for p in self.in_order])
            y, s = (np.concatenate([p[i] for p in self.in_order]) for i in (2, 3))
            self.in_order = [(self.ids, codes.astype(np.int64, copy=False), y, s)]
        _, codes, y, s = self.in_order[0]
        return _in_order_twice(codes, y, s, len(self.ids))

    def xauc(self) -> float:
        """XAUC of the rows, all groups as one (nan when no pair has different targets)."""
        self.compact()
        if len(self.ids) > 1:  # a grouped state read whole: one group of every row
            one = XAUCCounts()
            one._push((np.zeros(len(self.y), dtype=np.int64), self.y, self.s, self.w,
                       self.count, _no_ids(), self.zero[:0]))  # fmt: skip
            return one.xauc()
        if not len(self.y):
            return float("nan")
        twice, pairs, exact = self.pair_sums()
        if pairs[0] == 0:
            return float("nan")
        if exact:
            return int(twice[0]) / (2 * int(pairs[0]))
        return float(twice[0]) / (2.0 * float(pairs[0]))

    def group_values(self) -> tuple[np.ndarray, np.ndarray]:
        """Per group: its XAUC (nan without a pair of different targets) and its total
        sample weight (its rows without weights)."""
        starts = self.starts()
        twice, pairs, exact = self.pair_sums()
        with np.errstate(invalid="ignore", divide="ignore"):
            values = np.where(
                pairs > 0, twice.astype(np.float64) / (2.0 * pairs.astype(np.float64)), np.nan
            )
        if exact:  # counts past 2**53 were rounded before the division: divide them once
            for g in np.flatnonzero((pairs > 0) & (2 * pairs > 2**53)):
                values[g] = int(twice[g]) / (2 * int(pairs[g]))
        if not len(self.y):
            return values, np.zeros(len(values))
        # times a power of two (the ratios are the same) so that no group's sum overflows
        scaled = np.ldexp(self.w, -int(np.frexp(self.w.max())[1]) - 64)
        return values, _group_sums(self.count * scaled, starts)

    def _scaled_weights(self) -> np.ndarray:
        """The weights times a power of two (exact: the value is the same) that puts the
        largest near ``2**(510 - log2(rows))``: no sum of pair weights overflows, and a
        pair of the largest and the smallest weight does not underflow."""
        top = 510 - int(self.count.sum()).bit_length()
        shift = top - int(np.frexp(self.w.max())[1])
        w: np.ndarray = np.ldexp(self.w, shift)
        if float(w.min()) < 2.0**-1022:
            raise InputValidationError(
                f"{_FUNC}: sample_weight spans too many powers of two: the products of its "
                f"largest and smallest non-zero weights ({float(self.w.max())!r} and "
                f"{float(self.w.min())!r}) are beyond float64. Got a ratio above "
                f"2**{top + 1022}; rescale the weights or drop the smallest."
            )
        return w

    def __getstate__(self) -> dict[str, Any]:
        self.compact()
        ids = self.group_ids[0] if self.group_ids else None
        return {"y": self.y, "s": self.s, "w": self.w, "count": self.count,
                "codes": self.codes, "ids": ids, "in_order": self.in_order,
                "ids_kind": self.ids_kind, "labels": self.labels, "zero": self.zero}  # fmt: skip

    def __setstate__(self, state: dict[str, Any]) -> None:
        fields = {"y", "s", "w", "count", "codes", "ids", "in_order", "ids_kind", "labels",
                  "zero"}  # fmt: skip
        if isinstance(state, dict) and set(state) <= fields and "zero" not in state:
            # pickled before the state counted its rows of weight 0: none known
            state = {**state, "zero": np.empty(0, dtype=np.int64)}
        if isinstance(state, dict) and set(state) <= fields and "labels" not in state:
            # pickled before the state held its labels: none known (0/1 where the
            # accumulator loading it says so: receval.engine.kinds.held_01)
            state = {**state, "labels": NO_LABELS}
        if isinstance(state, dict) and set(state) == fields - {"ids_kind"}:  # pickled before
            ids = state["ids"]
            state = {**state, "ids_kind": NO_IDS if ids is None else IdKind.of(ids, "")}
        if not isinstance(state, dict) or set(state) != fields:
            raise InputValidationError(
                f"XAUCCounts: a pickled state must be a dict of {', '.join(sorted(fields))}. "
                f"Got {type(state).__name__} {sorted(state) if isinstance(state, dict) else ''}."
            )
        self.__init__(state["y"], state["s"], state["w"], state["count"],  # type: ignore[misc]
                      state["codes"], in_order=list(state["in_order"]),
                      ids_kind=state["ids_kind"], labels=state["labels"],
                      zero=state["zero"])  # fmt: skip
        self.ids = _ONE_GROUP if state["ids"] is None else state["ids"]

    def invalid(self) -> tuple[str, str] | None:
        """The first field that breaks the state's invariants, and what it must be."""
        n = len(self.y)
        if len(self.s) != n or len(self.w) != n or len(self.count) != n or len(self.codes) != n:
            return "count", f"arrays of one length ({n})"
        if self.count.dtype.kind not in "iu" or (n and int(self.count.min()) < 1):
            return "count", "integer counts >= 1"
        ids = self.ids
        if (
            not isinstance(ids, np.ndarray)
            or ids.ndim != 1
            or len(ids) == 0
            or (len(ids) > 1 and not bool(np.all(ids[1:] > ids[:-1])))
        ):
            return "group_ids", "one 1-d array of sorted distinct group ids"
        if self.codes.dtype != np.int64 or (
            n and (int(self.codes.min()) < 0 or int(self.codes.max()) >= len(self.ids))
        ):
            return "codes", f"int64 indices into ids, in [0, {len(self.ids)})"
        zero = self.zero
        if (
            not isinstance(zero, np.ndarray)
            or zero.dtype != np.int64
            or zero.shape not in ((0,), ids.shape)
            or (len(zero) and int(zero.min()) < 0)
        ):
            return "zero", f"int64 counts >= 0 of rows of weight 0, one per id ({len(ids)}) or none"
        if n and float(self.w.min()) <= 0:
            return "w", "weights > 0"
        if any(not _rows_in_order(part) for part in self.in_order):
            return "in_order", "(ids, codes, y, s): int64 codes into ids, y and s of their length"
        if n:
            again = _distinct(self.codes, self.y, self.s, self.w, self.count)
            if not all(np.array_equal(a, b) for a, b in zip(again, self._whole()[:5], strict=True)):
                return "y", "distinct (group, y, s, w) keys in the canonical order"
        return None


def _rows_in_order(part: tuple[np.ndarray, ...]) -> bool:
    """Whether ``part`` is rows of :attr:`XAUCCounts.in_order`."""
    if len(part) != 4 or not all(isinstance(a, np.ndarray) and a.ndim == 1 for a in part):
        return False
    ids, codes, y, s = part
    n = len(codes)
    return bool(
        codes.dtype == np.int64 and len(y) == n and len(s) == n
        and (not n or (0 <= int(codes.min()) and int(codes.max()) < len(ids)))
    )  # fmt: skip


def _in_order_twice(codes: np.ndarray, y: np.ndarray, s: np.ndarray, n_groups: int) -> np.ndarray:
    """Per group of one update: twice the pairs of equal targets whose earlier row scores
    higher, plus their tied scores. The core's pair count, with each row's position as
    its target, within each run of one (group, target) in input order."""
    order = np.lexsort((y, codes))  # stable: input order within a (group, target)
    c, target = codes[order], y[order]
    new = np.ones(len(order), dtype=bool)
    new[1:] = (c[1:] != c[:-1]) | (target[1:] != target[:-1])
    starts = np.append(np.flatnonzero(new), len(order)).astype(np.int64)
    position = np.arange(len(order), dtype=np.float64)  # rising within each run
    ones = np.ones(len(order), dtype=np.int64)
    rising, _ = compiled().xauc_pairs_counted(starts, position, s[order], ones)
    size = np.diff(starts)
    # 2 (pairs) - (2 rising + tied) = 2 falling + tied
    twice = size * (size - 1) - rising.astype(np.int64)
    out = np.zeros(n_groups, dtype=np.int64)
    np.add.at(out, c[starts[:-1]], twice)
    return out


def _distinct(
    codes: np.ndarray, y: np.ndarray, s: np.ndarray, w: np.ndarray, count: np.ndarray
) -> tuple[np.ndarray, ...]:
    """The distinct keys with their summed counts, in the canonical order (the core)."""
    c = compiled()
    as_f = np.ascontiguousarray
    out: tuple[np.ndarray, ...] = c.xauc_distinct(
        as_f(codes, dtype=np.int64), as_f(y, dtype=np.float64), as_f(s, dtype=np.float64),
        as_f(w, dtype=np.float64), as_f(count, dtype=np.int64),
    )  # fmt: skip
    return out


def _holds_rows(part: tuple[np.ndarray, ...]) -> bool:
    """Whether a part ``(codes, y, s, w, count, ids, zero)`` holds a row: a key, or a
    row of weight 0."""
    return bool(len(part[1]) or part[6].any())


def _group_sums(x: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Per group of ``starts`` (:meth:`XAUCCounts.starts`), the sum of its entries of
    ``x`` (0 for a group without one: its rows all weigh 0)."""
    sums: np.ndarray = np.zeros(len(starts) - 1, dtype=x.dtype)
    filled = starts[1:] > starts[:-1]
    if filled.any():
        sums[filled] = np.add.reduceat(x, starts[:-1][filled])
    return sums


# ------------------------------------------------------------------ definition
def _prepare(
    params: dict[str, Any], y_true: Any, y_score: Any, sample_weight: Any = None
) -> tuple[np.ndarray | None, ...]:
    yt, ys, sw = data_columns(
        _FUNC, ("y_true", y_true), ("y_score", y_score), ("sample_weight", sample_weight)
    )
    targets = v.order_scores(yt, "y_true", _FUNC, rank=False)
    scores = v.order_scores(ys, "y_score", _FUNC, rank=False)
    batch = (targets, scores, v.check_sample_weight(sw, len(targets), _FUNC))
    return _as_probabilities(*batch) if params["targets"] == "probabilities" else batch


def grouped_prepare(func: str) -> Any:
    """``prepare`` of the grouped metrics of :class:`XAUCCounts`: validated targets,
    scores, weights and group ids."""

    def prepare(
        params: dict[str, Any], y_true: Any, y_score: Any, *, groups: Any,
        sample_weight: Any = None,
    ) -> tuple[Any, ...]:  # fmt: skip
        named = (("y_true", y_true), ("y_score", y_score), ("groups", groups))
        yt, ys, g, sw = data_columns(func, *named, ("sample_weight", sample_weight))
        if g.dtype.kind == "f":  # NaN or infinite ids: refused as every metric of groups does
            g = float_id_values(g, "groups", func)
        else:
            v.check_no_missing(g, "groups", func)
        kind = IdKind.of(g, func)  # the type every batch's and merged state's ids must share
        targets = v.order_scores(yt, "y_true", func, rank=False)
        scores = v.order_scores(ys, "y_score", func, rank=False)
        w = v.check_sample_weight(sw, len(targets), func)
        if w is not None and params.get("equal_targets") == "input_order":
            raise InvalidParameterError(
                f"{func}: sample_weight is not taken with equal_targets='input_order' (the "
                f"pairs of equal targets are counted in the rows' order, each once). Got "
                f"sample_weight; leave it out."
            )
        if params.get("targets") == "probabilities":
            return (*_as_probabilities(targets, scores, w, g), kind)
        return targets, scores, w, g, kind

    return prepare


def _as_probabilities(y: np.ndarray, s: np.ndarray, w: np.ndarray | None,
                      *groups: np.ndarray) -> tuple[np.ndarray, ...]:  # fmt: skip
    """Each row of target ``t`` in [0, 1] as a positive of weight ``t w`` and a negative
    of weight ``(1 - t) w``."""
    outside = (y < 0.0) | (y > 1.0)
    if outside.any():
        error = InputValidationError(
            f"{_FUNC}: with targets='probabilities', y_true must hold probabilities in "
            f"[0, 1]. Got {v.format_values(distinct(y[outside]))}; scale the targets to "
            f"[0, 1], or leave targets='continuous' to order them."
        )
        error.row = int(np.flatnonzero(outside)[0])
        raise error
    w = np.ones(len(y)) if w is None else w
    n = len(y)
    labels = np.repeat(np.array([1.0, 0.0]), n)
    halves = np.concatenate([y * w, (1.0 - y) * w])
    return (labels, np.concatenate([s, s]), halves, *(np.concatenate([g, g]) for g in groups))


def grouped_mean(func: str, values: np.ndarray, weights: np.ndarray, why: str) -> float:
    """The weighted mean of the groups' defined values (nan, with a warning saying
    ``why`` a group has none, when no group has one)."""
    defined = _defined(values, weights)
    if not defined.any():
        return warn_undefined(f"{func}: no group has {why}, so it is undefined (returned as nan).")
    w = weights[defined]
    # exactly rounded sums: the same float whatever order the groups come in
    return math.fsum(values[defined] * w) / math.fsum(w)


def _defined(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The groups that count in the mean: a value and a positive weight."""
    defined: np.ndarray = ~np.isnan(values) & (weights > 0)
    return defined


#: ``group_values(params, state) -> (values, weights, rows, why)``: per group its value
#: (nan: left out; a group whose rows all weigh 0 has none), weight and input rows (those
#: of weight 0 included, each input row once), and what a group needs to have a value
GroupValues = Callable[
    [dict[str, Any], "XAUCCounts"], tuple[np.ndarray, np.ndarray, np.ndarray, str]
]


def group_definition(
    name: str,
    func: str,
    prepare: Callable[..., Any],
    group_values: GroupValues,
    check_params: Callable[..., dict[str, Any]] | None = None,
    **fields: Any,
) -> MetricDefinition:
    """Register a metric of :class:`XAUCCounts` whose value is the weighted mean of its
    groups' defined values (``func``: the function named in the warning when no group
    has one); its ``grouped`` hook adds the counts of the groups left out."""

    def finalize(params: dict[str, Any], state: XAUCCounts) -> float:
        values, weights, _, why = group_values(params, state)
        return grouped_mean(func, values, weights, why)

    def grouped(params: dict[str, Any], state: XAUCCounts) -> tuple[float, dict[str, int], str]:
        values, weights, rows, why = group_values(params, state)
        left_out = ~_defined(values, weights)
        counts = {"n_groups": len(values), "n_groups_skipped": int(left_out.sum()),
                  "n_rows_skipped": int(rows[left_out].sum())}  # fmt: skip
        return grouped_mean(func, values, weights, why), counts, f"without {why}"

    # the metric's module is its group_values' (MetricDefinition.module: where a pickle
    # of its state finds it again)
    finalize.__module__ = grouped.__module__ = group_values.__module__
    return counts_definition(name, prepare, finalize, check_params, grouped=grouped, **fields)


def _empty(params: dict[str, Any]) -> XAUCCounts:
    return XAUCCounts()


def _update(params: dict[str, Any], batch: Any, state: XAUCCounts | None = None) -> XAUCCounts:
    state = XAUCCounts() if state is None else state
    state.add(*batch, in_order=params.get("equal_targets") == "input_order")
    return state


def counts_definition(
    name: str,
    prepare: Callable[..., Any],
    finalize: Callable[[dict[str, Any], XAUCCounts], float],
    check_params: Callable[..., dict[str, Any]] | None = None,
    **fields: Any,
) -> MetricDefinition:
    """Register a metric whose state is :class:`XAUCCounts` (``prepare``'s batches:
    targets, scores, weights or None, and group ids where grouped)."""
    return register(
        MetricDefinition(
            name=name,
            check_params=no_options if check_params is None else check_params,
            prepare=prepare,
            update=lambda params, batch: _update(params, batch),
            empty=_empty,
            finalize=finalize,
            update_into=lambda params, state, batch: _update(params, batch, state),
            **fields,
        )
    )


def _finalize(params: dict[str, Any], state: XAUCCounts) -> float:
    value = state.xauc()
    return warn_undefined(_UNDEFINED) if np.isnan(value) else float(value)


_TARGETS = ["continuous", "probabilities"]


def _params(targets: str = "continuous") -> dict[str, Any]:
    return {"targets": v.check_option(targets, "targets", _FUNC, _TARGETS)}


def _grouped_params(
    weighting: str = "impressions", empty_groups: str = "skip", targets: str = "continuous",
    equal_targets: str = "skip", min_rows: int = 1,
) -> dict[str, Any]:  # fmt: skip
    params = {
        "weighting": v.check_option(weighting, "weighting", _FUNC, ["impressions", "uniform"]),
        "empty_groups": v.check_option(empty_groups, "empty_groups", _FUNC, ["skip", "zero"]),
        "equal_targets": v.check_option(
            equal_targets, "equal_targets", _FUNC, ["skip", "input_order"]
        ),
        "min_rows": v.check_number(min_rows, "min_rows", _FUNC, integer=True, low=1),
        **_params(targets),
    }
    if params["equal_targets"] == "input_order" and params["targets"] == "probabilities":
        raise InvalidParameterError(
            f"{_FUNC}: equal_targets='input_order' orders pairs of equal targets, and "
            f"targets='probabilities' pairs positives with negatives only. Got both; pass "
            f"one of equal_targets='input_order' or targets='probabilities'."
        )
    if params["min_rows"] > 1 and params["targets"] == "probabilities":
        raise InvalidParameterError(
            f"{_FUNC}: min_rows counts a group's rows, which targets='probabilities' "
            f"splits into a positive and a negative part. Got min_rows={min_rows!r} with "
            f"targets='probabilities'; leave min_rows at 1."
        )
    return params


def _group_values(
    params: dict[str, Any], state: XAUCCounts
) -> tuple[np.ndarray, np.ndarray, np.ndarray, str]:
    values, weight = state.group_values()
    rows = state.rows()
    if params["equal_targets"] == "input_order":  # every pair of the group counts
        twice, _, _ = state.pair_sums()
        all_pairs = rows * (rows - 1)
        both = twice.astype(np.int64) + state.in_order_twice()
        with np.errstate(invalid="ignore", divide="ignore"):
            values = np.where(all_pairs > 0, both / all_pairs, np.nan)
    weights = np.ones(len(values)) if params["weighting"] == "uniform" else weight
    if params["empty_groups"] == "zero":  # a group without a pair counts 0
        values = np.where(np.isnan(values), 0.0, values)
    values = np.where(rows >= params["min_rows"], values, np.nan)
    why = "a pair of rows with different targets"
    if params["min_rows"] > 1:
        why += f" and at least {params['min_rows']} rows"
    # with the rows of weight 0, as gauc counts a group's rows; targets="probabilities"
    # splits every input row into two halves (a half of weight 0 among the rows of
    # weight 0), so a group holds twice its input rows
    every = rows + state.zero_rows()
    return values, weights, every // 2 if params["targets"] == "probabilities" else every, why


XAUC = counts_definition("xauc", _prepare, _finalize, _params)
GROUPED_XAUC = group_definition("grouped_xauc", _FUNC, grouped_prepare(_FUNC), _group_values,
                                _grouped_params)  # fmt: skip

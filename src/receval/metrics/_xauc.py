"""XAUC: the pairwise order agreement of scores with continuous targets (watch time)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .. import _validation as v
from ..engine.metric import MetricDefinition, data_columns, no_options, register
from ..engine.sources import run_definition
from ..engine.sums import ExactSum
from ..exceptions import InputValidationError
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
    sample_weight: ArrayLike | None = None,
) -> float:
    """Compute XAUC: the share of pairs that the scores order as the targets do.

    Over every pair of rows whose targets differ, the (weighted) share that
    ``y_score`` orders the same way as ``y_true``; a pair with equal scores
    counts one half, and pairs with equal targets are left out. The AUC of
    continuous targets such as watch time (TorchEasyRec's ``XAUC``, after Zhan
    et al. 2022): with 0/1 targets it is the ROC AUC. A pair ``(i, j)`` weighs
    ``w_i w_j``, as in TorchRec's ``XAUCMetric``.

    Exact, in O(n log n) (never the O(n²) pair loop): the rows are reduced to
    counts per distinct ``(y_true, y_score, sample_weight)``, the state of
    :func:`receval.metric` ("xauc"), of a :func:`receval.scan` and of Spark,
    which merges exactly, and the pairs are counted by a merge sort over them.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Targets; only their order matters (watch time, dwell time, ratings).
    y_score : array-like of shape (n_samples,)
        Scores; only their order matters.
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
    """
    columns = {"y_true": y_true, "y_score": y_score, "sample_weight": sample_weight}
    result: float = run_definition(XAUC, XAUC.check_params(), columns, func=_FUNC)
    return result


# ------------------------------------------------------------------ the state
def _distinct(
    y: np.ndarray, s: np.ndarray, w: np.ndarray, count: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The distinct ``(y, s, w)`` of the rows with their summed counts, in the canonical
    order: ``y`` ascending, then ``s`` descending, then ``w`` ascending."""
    if not len(y):
        return y, s, w, count
    one_weight = float(w.min()) == float(w.max())  # unweighted rows: two keys suffice
    order = np.lexsort((-s, y) if one_weight else (w, -s, y))
    y, s, w, count = y[order], s[order], w[order], count[order]
    new = np.empty(len(y), dtype=bool)
    new[0] = True
    new[1:] = (y[1:] != y[:-1]) | (s[1:] != s[:-1]) | (w[1:] != w[:-1])
    starts = np.flatnonzero(new)
    return y[starts], s[starts], w[starts], np.add.reduceat(count, starts)


@dataclass
class XAUCCounts:
    """Rows per distinct ``(y_true, y_score, sample_weight)``: the state of XAUC.

    ``y``, ``s``, ``w`` hold the distinct triples in the canonical order (``y``
    ascending, ``s`` descending, ``w`` ascending; ``-0.0`` counted as ``0.0``,
    rows of weight 0 left out; 1.0 for rows without weights), ``count`` their
    rows. Batches and merged states wait in ``pending`` and are folded in when
    they outgrow the counts. The counts are integers, so any split of the rows
    and any order of merges give the same state, and the same value.
    """

    y: np.ndarray = field(default_factory=lambda: np.empty(0))
    s: np.ndarray = field(default_factory=lambda: np.empty(0))
    w: np.ndarray = field(default_factory=lambda: np.empty(0))
    count: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64))
    pending: list[tuple[np.ndarray, ...]] = field(default_factory=list)
    n_pending: int = 0

    def add(self, y: np.ndarray, s: np.ndarray, w: np.ndarray | None) -> None:
        """Count validated rows per distinct triple."""
        if w is None:
            w = np.ones(len(y))
        else:
            keep = w > 0
            if not keep.all():
                y, s, w = y[keep], s[keep], w[keep]
        if len(y):
            self._push(_distinct(y + 0.0, s + 0.0, w, np.ones(len(y), dtype=np.int64)))

    def _push(self, part: tuple[np.ndarray, ...]) -> None:
        if not len(part[0]):
            return
        self.pending.append(part)
        self.n_pending += len(part[0])
        if self.n_pending > max(len(self.y), 1 << 20):
            self.compact()

    def compact(self) -> XAUCCounts:
        """Fold the pending counts into the counts."""
        if not self.pending:
            return self
        parts = [p for p in [(self.y, self.s, self.w, self.count), *self.pending] if len(p[0])]
        self.pending, self.n_pending = [], 0
        if len(parts) == 1:  # already distinct and in order (one batch: one partition)
            self.y, self.s, self.w, self.count = parts[0]
            return self
        self.y, self.s, self.w, self.count = _distinct(
            *(np.concatenate([p[i] for p in parts]) for i in range(4))
        )
        return self

    def merge(self, other: XAUCCounts) -> XAUCCounts:
        """The counts of both sets of rows (a new state; arrays are shared, never written)."""
        out = XAUCCounts(self.y, self.s, self.w, self.count, list(self.pending), self.n_pending)
        return out.absorb(other)

    def absorb(self, other: XAUCCounts) -> XAUCCounts:
        """Add another state's counts into this one (in place); returns this state."""
        for part in [(other.y, other.s, other.w, other.count), *other.pending]:
            self._push(part)
        return self

    def xauc(self) -> float:
        """XAUC of the rows (nan when no pair has different targets)."""
        self.compact()
        if not len(self.y):
            return float("nan")
        y, s = self.y, self.s
        new = np.empty(len(y), dtype=bool)
        new[0] = True
        new[1:] = (y[1:] != y[:-1]) | (s[1:] != s[:-1])
        keys = np.flatnonzero(new)  # distinct (y, s), in the canonical order
        exact = len(np.unique(self.w)) == 1 and int(self.count.sum()) < _EXACT_ROWS
        if exact:  # one weight for every row: the value of unit weights, from integer counts
            weights: np.ndarray = np.add.reduceat(self.count, keys)
        else:
            weights = np.add.reduceat(self.count * self._scaled_weights(), keys)
        y, s = y[keys], s[keys]
        level = np.flatnonzero(np.concatenate(([True], y[1:] != y[:-1])))
        per_target = np.add.reduceat(weights, level)
        below = np.zeros_like(per_target)
        np.cumsum(per_target[:-1], out=below[1:])
        ranks = np.unique(s, return_inverse=True)[1].reshape(-1).astype(np.int64)
        if exact:
            pairs = int(np.dot(per_target, below))
            if pairs == 0:
                return float("nan")
            return int(ordered_pairs(ranks, weights)) / (2 * pairs)
        total = ExactSum.dot(per_target, below).value
        if total == 0:
            return float("nan")
        return float(ordered_pairs(ranks, weights)) / (2.0 * total)

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
        return {"y": self.y, "s": self.s, "w": self.w, "count": self.count}

    def __setstate__(self, state: dict[str, Any]) -> None:
        if not isinstance(state, dict) or set(state) != {"y", "s", "w", "count"}:
            raise InputValidationError(
                f"XAUCCounts: a pickled state must be a dict of y, s, w and count. Got "
                f"{type(state).__name__} {sorted(state) if isinstance(state, dict) else ''}."
            )
        self.__init__(state["y"], state["s"], state["w"], state["count"])  # type: ignore[misc]

    def invalid(self) -> tuple[str, str] | None:
        """The first field that breaks the state's invariants, and what it must be."""
        n = len(self.y)
        if len(self.s) != n or len(self.w) != n or len(self.count) != n:
            return "count", f"arrays of one length ({n})"
        if self.count.dtype.kind not in "iu" or (n and int(self.count.min()) < 1):
            return "count", "integer counts >= 1"
        if n and float(self.w.min()) <= 0:
            return "w", "weights > 0"
        if n:
            y, s, w = self.y, self.s, self.w
            if not (_distinct(y, s, w, self.count)[0].shape[0] == n
                    and np.array_equal(np.lexsort((w, -s, y)), np.arange(n))):  # fmt: skip
                return "y", "distinct (y, s, w) triples in the canonical order"
        return None


def ordered_pairs(ranks: np.ndarray, weights: np.ndarray) -> Any:
    """``sum_{i < j} w_i w_j (2 [r_i < r_j] + [r_i = r_j])`` over positions ``i < j``.

    A bottom-up merge sort: at each level, every element of a right half takes
    the weight of the left half's elements of smaller rank (and half of those of
    equal rank) as prefix sums of the left half in rank order, which are sums of
    non-negative terms (no cancellation). Integer weights give the exact integer;
    float weights an exact sum of the rounded products. O(n log n).
    """
    m = len(ranks)
    depth = max(1, (m - 1).bit_length())
    n = 1 << depth
    rank_bits = (m + 1).bit_length() + 1
    r = np.full(n, m, dtype=np.int64)  # padding: beyond every rank, weight 0
    r[:m] = ranks
    w = np.zeros(n, dtype=weights.dtype)
    w[:m] = weights
    index = np.arange(n, dtype=np.int64)
    total: Any = 0 if weights.dtype.kind in "iu" else ExactSum.zero()
    for k in range(depth):
        half, low = 1 << k, (1 << (k + 1)) - 1
        # one sort of (row, 2 rank + right half, position in row): rows sorted by rank,
        # the left half's equal ranks first
        code = ((index >> (k + 1)) << rank_bits) | (r << 1) | ((index & low) >> k)
        code = (code << (k + 1)) | (index & low)
        code.sort()
        ws = w[(index & ~low) | (code & low)]
        key = (code >> (k + 1)) & ((1 << rank_bits) - 1)
        right = (key & 1).astype(bool)
        rk = key >> 1
        upto = np.cumsum(np.where(right, 0, ws).reshape(-1, 2 * half), axis=1)
        before = np.zeros_like(upto)
        before[:, 1:] = upto[:, :-1]
        first = np.empty(n, dtype=bool)  # the first element of each rank in a row
        first[0] = True
        first[1:] = rk[1:] != rk[:-1]
        first[:: 2 * half] = True
        start = np.where(first, index, 0)
        np.maximum.accumulate(start, out=start)
        twice = before.reshape(-1)[start] + upto.reshape(-1)  # 2x (smaller + equal / 2)
        if isinstance(total, ExactSum):
            total = total + ExactSum.dot(ws[right], twice[right])
        else:
            total += int(np.dot(ws[right], twice[right]))
        r, w = rk, ws
    return total.value if isinstance(total, ExactSum) else total


# ------------------------------------------------------------------ definition
def _prepare(
    params: dict[str, Any], y_true: Any, y_score: Any, sample_weight: Any = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    yt, ys, sw = data_columns(
        _FUNC, ("y_true", y_true), ("y_score", y_score), ("sample_weight", sample_weight)
    )
    targets = v.order_scores(yt, "y_true", _FUNC, rank=False)
    scores = v.order_scores(ys, "y_score", _FUNC, rank=False)
    return targets, scores, v.check_sample_weight(sw, len(targets), _FUNC)


def _empty(params: dict[str, Any]) -> XAUCCounts:
    return XAUCCounts()


def _update(params: dict[str, Any], batch: Any, state: XAUCCounts | None = None) -> XAUCCounts:
    state = XAUCCounts() if state is None else state
    state.add(*batch)
    return state


def _finalize(params: dict[str, Any], state: XAUCCounts) -> float:
    value = state.xauc()
    return warn_undefined(_UNDEFINED) if np.isnan(value) else float(value)


XAUC = register(
    MetricDefinition(
        name="xauc",
        check_params=no_options("xauc"),
        prepare=_prepare,
        update=_update,
        empty=_empty,
        finalize=_finalize,
        update_into=lambda params, state, batch: _update(params, batch, state),
    ),
)

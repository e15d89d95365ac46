"""Shared machinery of the binary score-based metrics: validation, class split, sorts.

Every curve and area in receval starts from the same container: the scores of
the positives and of the negatives in two arrays sorted ascending (with their
weights, if any). Building it costs one pass and two sorts on plain float64
arrays, which NumPy does with SIMD instructions (or the compiled core's radix
sort, where NumPy's is slow: :func:`receval._kernels.sort_numbers`) and, for large
inputs, on several threads at once.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import numpy as np

from .. import _validation as v
from .._kernels import sort_numbers
from ..exceptions import UndefinedMetricWarning, warn

# below this many rows a single-threaded sort is faster than handing out chunks
_PARALLEL_SORT_MIN = 2_000_000


def _n_threads() -> int:
    from .._kernels import num_threads

    return num_threads()


def sort_chunks(arr: np.ndarray) -> list[np.ndarray]:
    """Sort ``arr`` in place as one or more independently sorted chunks (views)."""
    n_threads = _n_threads()
    if arr.shape[0] < _PARALLEL_SORT_MIN or n_threads == 1:
        sort_numbers(arr)
        return [arr]
    bounds = np.linspace(0, arr.shape[0], n_threads + 1).astype(np.int64)
    chunks = [arr[a:b] for a, b in pairwise(bounds)]
    with ThreadPoolExecutor(n_threads) as pool:  # the sorts release the GIL
        list(pool.map(sort_numbers, chunks))
    return chunks


def _sort_pair(a: np.ndarray, b: np.ndarray) -> None:
    """Sort two arrays in place: on two threads where they are large."""
    if a.shape[0] + b.shape[0] < _PARALLEL_SORT_MIN or _n_threads() == 1:
        sort_numbers(a)
        sort_numbers(b)
        return
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(sort_numbers, (a, b)))


def _argsort_pair(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if a.shape[0] + b.shape[0] < _PARALLEL_SORT_MIN or _n_threads() == 1:
        return np.argsort(a), np.argsort(b)
    with ThreadPoolExecutor(2) as pool:
        fa, fb = pool.submit(np.argsort, a), pool.submit(np.argsort, b)
        return fa.result(), fb.result()


@dataclass(frozen=True)
class SortedClasses:
    """Positive and negative scores, each sorted ascending, with weights or None."""

    pos: np.ndarray
    neg: np.ndarray
    pos_w: np.ndarray | None
    neg_w: np.ndarray | None

    @property
    def weighted(self) -> bool:
        return self.pos_w is not None


def sort_classes(
    labels: np.ndarray, scores: np.ndarray, weights: np.ndarray | None
) -> SortedClasses:
    """Split validated int8 labels / float64 scores by class (rows of weight 0 left out)
    and sort each class."""
    from .._kernels import compiled

    k = compiled()

    labels = np.ascontiguousarray(labels)  # the kernels read contiguous arrays
    scores = np.ascontiguousarray(scores, dtype=np.float64)
    if weights is None:
        pos, neg = k.split_by_label(scores, labels)
        _sort_pair(pos, neg)
        return SortedClasses(pos, neg, None, None)
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    pos, pos_w, neg, neg_w = k.split_by_label_weighted(scores, labels, weights)
    order_p, order_n = _argsort_pair(pos, neg)
    return SortedClasses(pos[order_p], neg[order_n], pos_w[order_p], neg_w[order_n])


def threshold_counts(sc: SortedClasses) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct thresholds (descending) with cumulative true and false positives."""
    from .._kernels import compiled

    k = compiled()

    if not sc.weighted:
        result: tuple[np.ndarray, np.ndarray, np.ndarray] = k.threshold_counts_sorted(
            sc.pos, sc.neg
        )
        return result
    result = k.threshold_counts_sorted_weighted(sc.pos, sc.pos_w, sc.neg, sc.neg_w)
    return result


def check_binary_scores(
    y_true: Any,
    y_score: Any,
    sample_weight: Any,
    func: str,
    *,
    pos_label: Any = None,
    score_name: str = "y_score",
    rank: bool = True,
    relative: bool = True,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, Any]:
    """Validate binary labels, 1-D scores and weights; return int8, float64, float64|None
    and the negative label (None: no negative; see ``binarize_labels``).

    The scores are those of :func:`receval._validation.order_scores` (integers
    beyond 2**53 as their exact ranks); ``rank=False`` where the scores themselves
    are returned or used as values (curve thresholds, calibration). ``relative``: the
    weights may be scaled by a power of two (all the rows are here: never for one
    batch of an accumulator, whose batches must keep one scale)."""
    yt = v.as_1d(y_true, "y_true", func)
    ys = v.as_1d(y_score, score_name, func)
    sw = None if sample_weight is None else v.as_1d(sample_weight, "sample_weight", func)
    n = v.check_same_length(func, y_true=yt, **{score_name: ys}, sample_weight=sw)
    v.check_not_empty(n, "y_true", func)
    labels, negative = v.binarize_labels(yt, pos_label, func)
    scores = v.order_scores(ys, score_name, func, rank=rank)
    weights = v.check_sample_weight(sw, n, func, relative=relative)
    return labels, scores, weights, negative


def warn_undefined(message: str) -> float:
    warn(message, UndefinedMetricWarning)
    return float("nan")


def warn_if_spanned(func: str, result: float, low: float, high: float, fix: str) -> None:
    """Warn where ``result``, a score of sums that lost bits to the range of float64,
    may be off: where ``[low, high]``, the scores of those sums give or take what they
    lost, holds more than that one float (nan is the same nan). ``fix``: the sentence
    that says how to keep the rows within range."""

    def same(a: float, b: float) -> bool:
        return a == b or (a != a and b != b)

    if not (same(low, result) and same(high, result)):
        warn(f"{func}: the values or weights span more than float64's range (products "
             f"below 2**-1074 of the largest, or weights and values scaled below "
             f"2**-1022, were rounded), and the score lies between {low!r} and "
             f"{high!r}: {result!r} may be off by that much. {fix}")  # fmt: skip


def data_ndim(x: Any) -> int:
    """The number of dimensions of a data argument, without converting what has one
    (arrays, tensors, DataFrame columns) nor what has none (columns of a scan: 1)."""
    if hasattr(x, "ndim"):
        return int(x.ndim)
    if isinstance(x, (list, tuple)):
        try:
            return int(np.ndim(x))
        except ValueError:  # ragged: the definition's checks name it
            return 1
    return 1

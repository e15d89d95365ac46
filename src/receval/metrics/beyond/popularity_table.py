"""Item popularity from a count table or an interaction log, and its head/tail splits.

The popularity-bias metrics (:mod:`receval.metrics.beyond.popularity`, and the
``arp@k``-like strings of :func:`receval.evaluate`) read item popularity from
``popularity=`` (a mapping ``{item: count}`` or a pair ``(items, counts)``) or
``train=`` (an interaction log of (user, item) pairs, where a repeated pair
counts once: the number of distinct users of each item). :func:`as_popularity`
turns either into a :class:`PopularityTable`, built once per call and sent to
every batch or Spark partition as it is.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from ... import _validation as v
from ...data._encode import factorize
from ...data._lookup import lookup
from ...data._ranked import Qrels, Run
from ...engine.sums import ExactSum, group_means
from ...exceptions import InputValidationError, InvalidParameterError
from .history import block_means, read_log, run_user_codes, top_k_mask

__all__ = ["PopularityTable", "as_popularity", "per_user_means"]

#: Elliot's head: the most popular items holding 80% of the interactions
DEFAULT_HEAD_SHARE = 0.8
#: RecBole's default ``tail_ratio``: the 10% least popular items
DEFAULT_TAIL_RATIO = 0.1


@dataclass(eq=False, repr=False)
class PopularityTable:
    """Item ids with their popularity, in the order they were first given.

    Parameters
    ----------
    item_ids : ndarray of shape (n_items,)
        Distinct item ids, in order of first appearance in the input.
    counts : ndarray of shape (n_items,)
        Popularity of each item (float64, >= 0).
    train_users, train_items : ndarray or None
        The log's (user code, item code) pairs, distinct, when the table comes
        from ``train=``; the per-user metrics do not need them, PopREO and
        PopRSP do.
    train_user_ids : ndarray or None
        The log's distinct user ids (codes index it).
    """

    item_ids: np.ndarray
    counts: np.ndarray
    train_users: np.ndarray | None = None
    train_items: np.ndarray | None = None
    train_user_ids: np.ndarray | None = None
    _heads: dict[float, np.ndarray] = field(default_factory=dict, init=False)
    _tails: dict[float, np.ndarray] = field(default_factory=dict, init=False)

    @property
    def n_items(self) -> int:
        return len(self.item_ids)

    def head(self, head_share: float) -> np.ndarray:
        """Boolean mask of the head items (Elliot's short head) over the table's items.

        Items sorted by popularity, descending (ties: order of first appearance),
        the head is the shortest prefix, of at least one item, whose popularity
        sums to ``head_share`` of the total or more; every other item is the long tail.
        The comparison is exact: the sums of the given float64 popularities without
        rounding, against ``head_share`` as the decimal it is written as (its ``repr``:
        0.8 is 4/5) times the exact total.
        """
        if head_share not in self._heads:
            order = np.argsort(-self.counts, kind="stable")
            mask = np.zeros(self.n_items, dtype=bool)
            mask[order[: _head_size(self.counts[order], Fraction(repr(head_share)))]] = True
            self._heads[head_share] = mask
        return self._heads[head_share]

    def recbole_tail(self, tail_ratio: float) -> np.ndarray:
        """Boolean mask of RecBole's long tail over the table's items.

        ``tail_ratio`` > 1: the items of popularity <= ``tail_ratio``. Otherwise the
        ``max(int(n_items * tail_ratio), 1)`` least popular items (ties: order of
        first appearance), as RecBole's ``TailPercentage``.
        """
        if tail_ratio not in self._tails:
            if tail_ratio > 1:
                mask = self.counts <= tail_ratio
            else:
                cut = max(int(self.n_items * tail_ratio), 1)
                order = np.argsort(self.counts, kind="stable")
                mask = np.zeros(self.n_items, dtype=bool)
                mask[order[:cut]] = True
            self._tails[tail_ratio] = mask
        return self._tails[tail_ratio]

    def positions(self, ids: np.ndarray) -> np.ndarray:
        """Row of each id in the table (-1: absent)."""
        return lookup(ids, self.item_ids)

    def _arrays(self) -> tuple[Any, ...]:
        return (self.item_ids, self.counts, self.train_users, self.train_items,
                self.train_user_ids)  # fmt: skip

    def __eq__(self, other: object) -> bool:
        """Equal tables (accumulators with equal options merge)."""
        if not isinstance(other, PopularityTable):
            return NotImplemented
        return all(
            (a is None and b is None) or (a is not None and b is not None and np.array_equal(a, b))
            for a, b in zip(self._arrays(), other._arrays(), strict=True)
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"PopularityTable(n_items={self.n_items})"

    def __reduce__(self) -> tuple[Any, ...]:  # the caches stay behind
        return (PopularityTable, self._arrays())


def _head_size(descending: np.ndarray, share: Fraction) -> int:
    """The number of leading values of ``descending`` (>= 0, finite) whose exact sum is
    the first to reach ``share`` of the exact total (at least 1; 0 for no value)."""
    if len(descending) == 0:
        return 0
    cumulative = np.cumsum(descending)
    if cumulative[-1] <= 2.0**53 and np.array_equal(descending, np.floor(descending)):
        # integer counts: every running total is exact, and reaches share * total
        # exactly when it reaches the least integer not below it
        limit = math.ceil(share * int(cumulative[-1]))
        return int(np.searchsorted(cumulative, limit, side="left")) + 1
    # any floats: the first prefix whose exact sum reaches the exact limit (a binary
    # search over prefixes, each summed exactly: O(n log n))
    exact_limit = share * ExactSum.of(descending).as_fraction()
    return (
        bisect.bisect_left(
            range(1, len(descending) + 1),
            True,
            key=lambda n: ExactSum.of(descending[:n]).as_fraction() >= exact_limit,
        )
        + 1
    )


def check_head_share(head_share: Any, func: str) -> float:
    """``head_share`` in (0, 1]."""
    return float(
        v.check_number(head_share, "head_share", func, low=0.0, high=1.0, low_inclusive=False)
    )


def check_tail_ratio(tail_ratio: Any, func: str) -> float:
    """``tail_ratio`` > 0 (a share of the items up to 1, a popularity above)."""
    return float(v.check_number(tail_ratio, "tail_ratio", func, low=0.0, low_inclusive=False))


def as_popularity(popularity: Any, train: Any, func: str) -> PopularityTable:
    """The :class:`PopularityTable` of exactly one of ``popularity`` (a mapping, a pair
    (items, counts) or a table) and ``train`` (an interaction log: the popularity of an
    item is its number of distinct users); ``func`` names the caller in messages."""
    if isinstance(popularity, PopularityTable) and train is None:
        return popularity
    if (popularity is None) == (train is None):
        given, instead = ("both", " instead") if popularity is not None else ("neither", "")
        raise InvalidParameterError(
            f"{func}: the items' popularity must come from exactly one of popularity= (a "
            f"mapping item -> count) and train= (an interaction log of (user, item) pairs). "
            f"Got {given}; pass one of popularity= or train={instead}."
        )
    if train is not None:
        return _from_log(train, func)
    if isinstance(popularity, Mapping):
        items: Any = list(popularity.keys())
        counts: Any = list(popularity.values())
    elif isinstance(popularity, tuple) and len(popularity) == 2:
        items, counts = popularity
    else:
        raise InputValidationError(
            f"{func}: popularity must be a mapping {{item: count}} or a pair (items, counts). "
            f"Got {type(popularity).__name__}; pass train= for an interaction log."
        )
    item_arr = v.as_1d(items, "popularity items", func)
    count_arr = v.as_float(v.as_1d(counts, "popularity counts", func), "popularity", func)
    v.check_same_length(func, items=item_arr, counts=count_arr)
    v.check_not_empty(len(item_arr), "popularity", func)
    bad = ~np.isfinite(count_arr) | (count_arr < 0)
    if bad.any():
        raise InputValidationError(
            f"{func}: popularity counts must be finite numbers >= 0. Got "
            f"{v.format_values(count_arr[bad])} for {v.counted(int(bad.sum()), 'item')} "
            f"{v.format_values(item_arr[bad])} instead; correct their counts or leave those "
            f"items out."
        )
    codes, uniques = factorize(item_arr, "popularity items", func)
    if len(uniques) < len(item_arr):
        dup = item_arr[np.flatnonzero(np.bincount(codes) > 1)[:1]]
        raise InputValidationError(
            f"{func}: popularity must give each item once. Got item {v.format_values(dup)} "
            f"more than once."
        )
    return PopularityTable(uniques, count_arr)


def _from_log(train: Any, func: str) -> PopularityTable:
    if isinstance(train, (Qrels, Run)):  # (user, item) pairs are distinct by construction
        log: Any = train
        users, items = run_user_codes(train), train.items.astype(np.int64)
    else:
        log = read_log(train, "train", func, mapping=False)
        users, items = log.distinct_pairs()
    counts = np.bincount(items, minlength=len(log.item_ids)).astype(np.float64)
    return PopularityTable(log.item_ids, counts, users, items, log.user_ids)


def per_user_means(
    run: Run,
    values: np.ndarray,
    depth: int,
    divisor: int | None = None,
    average_ties: bool = False,
) -> np.ndarray:
    """Per user of ``run``: the sum of ``values`` (one per item code) over the top
    ``depth`` items, divided by ``divisor`` (None: by the number of those items,
    min(depth, list length), nan for an empty list; 1: the sum itself).

    A user's sum that overflows float64 is summed exactly and divided once
    (:func:`~receval.engine.sums.group_means`): two popularities near 1e308 have a
    finite mean. ``average_ties``: the expected sum over every order of tied scores,
    each position of a block of equal scores holding the block's mean value (exact:
    the sum is linear in the items)."""
    keep = top_k_mask(run, depth)
    row_values = values[run.items]
    if average_ties:
        row_values = block_means(run.offsets, run.scores, row_values)
    if divisor is None:
        divisors = np.minimum(np.diff(run.offsets), depth).astype(np.float64)
    else:
        divisors = np.full(run.n_users, float(divisor))
    return group_means(run_user_codes(run)[keep], row_values[keep], divisors)

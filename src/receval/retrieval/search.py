"""Exact top-k retrieval from embeddings, block of users by block of items.

The compiled core scores a block of users against a block of items, tile by tile
in registers on every core, and merges the scores into each user's running top
k (skipping the user's excluded items, ties by item id) without the GIL; a score
leaves the registers only when it may enter a top k. Memory holds one block of
items (``block_items`` float32 vectors, and a packed copy) and the top k of one
block of users, whatever the catalogue: the item matrix is read block by block,
from disk when it is a memmap or a Parquet file. With candidates, each block of users'
(user, candidate) pairs is scored ``block_items`` pairs at a time.

A search for an evaluation (``whole_ties=True``) keeps, after each user's top k,
every item tied with its k-th: the cut by item id would otherwise decide a tie
that the evaluation's ``ties=`` rule must order. The first scan keeps k + 1 items;
a user whose (k + 1)-th ties with its k-th is scanned again, alone with the other
such users, twice as deep each time, until its tie ends.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import _validation as v
from .._kernels import compiled
from ..data._encode import factorize
from ..data._labels import label_kind
from ..data._ranked import Run
from ..exceptions import InputValidationError
from .masks import ItemLists, Unmatched, candidate_lists, excluded_lists
from .vectors import Vectors, as_vectors

__all__ = [
    "BLOCK_ITEMS",
    "BLOCK_USERS",
    "Catalogue",
    "Lists",
    "Search",
    "catalogue",
    "lists_run",
    "row_ids",
]

#: Users scored together (their top k are kept in memory together).
BLOCK_USERS = 2048
#: Items read together: 8192 float32 vectors of 64 numbers are 2 MiB (4 MiB with
#: the kernel's packed copy).
BLOCK_ITEMS = 8192


@dataclass(frozen=True)
class Lists:
    """The ranked lists of user rows ``start:start + len(offsets) - 1``: item rows
    best first, and their float32 scores."""

    start: int
    offsets: np.ndarray
    items: np.ndarray
    scores: np.ndarray


@dataclass(frozen=True)
class Catalogue:
    """The checked item side of a search: the matrix, the id of each row, and each
    row's tie key (the rank of its id in ascending order)."""

    vectors: Vectors
    ids: np.ndarray
    keys: np.ndarray


def catalogue(item_vectors: Any, item_ids: Any, func: str) -> Catalogue:
    """The item side of a search, checked once (several searches may share it)."""
    items = as_vectors(item_vectors, "item_vectors", func)
    if items.n_rows == 0:
        raise InputValidationError(f"{func}: item_vectors has no rows; pass at least one vector.")
    if items.n_rows >= 2**31:
        raise InputValidationError(
            f"{func}: item_vectors has {items.n_rows} rows; at most 2**31 - 1 are supported."
        )
    ids = row_ids(item_ids, items.n_rows, "item_ids", func)
    keys = np.empty(items.n_rows, dtype=np.uint32)
    keys[np.argsort(ids, kind="stable")] = np.arange(items.n_rows, dtype=np.uint32)
    return Catalogue(items, ids, keys)


class Search:
    """The checked inputs of a retrieval, and its lists block of users by block."""

    def __init__(
        self,
        user_vectors: Any,
        items: Catalogue,
        k: int,
        *,
        user_ids: Any,
        metric: str,
        exclude: Any,
        candidates: Any,
        block_users: int,
        block_items: int,
        func: str,
        whole_ties: bool = False,
    ) -> None:
        self.func, self.whole_ties = func, whole_ties
        self.k = v.check_number(k, "k", func, integer=True, low=1)
        self.metric = v.check_option(metric, "metric", func, ["dot", "cosine"])
        self.block_users = v.check_number(block_users, "block_users", func, integer=True, low=1)
        self.block_items = v.check_number(block_items, "block_items", func, integer=True, low=1)
        self.users = as_vectors(user_vectors, "user_vectors", func)
        self.items, self.item_ids, self.keys = items.vectors, items.ids, items.keys
        if self.users.dim != self.items.dim:
            raise InputValidationError(
                f"{func}: user_vectors and item_vectors must have the same number of columns. "
                f"Got {self.users.dim} and {self.items.dim}."
            )
        if self.users.n_rows == 0:
            raise InputValidationError(
                f"{func}: user_vectors has no rows; pass at least one vector."
            )
        self.user_ids = row_ids(user_ids, self.users.n_rows, "user_ids", func)
        self.excluded: ItemLists | None = exclude if isinstance(exclude, ItemLists) else None
        # the pairs of exclude= and candidates= whose user or item has no vector, by
        # argument (an exclude= given as ItemLists was counted by its caller)
        self.unmatched: dict[str, Unmatched] = {}
        if exclude is not None and self.excluded is None:
            self.excluded, self.unmatched["exclude"] = excluded_lists(
                exclude, self.user_ids, self.item_ids, func
            )
        self.candidates: ItemLists | None = None
        if candidates is not None:
            self.candidates, self.unmatched["candidates"] = candidate_lists(
                candidates, self.user_ids, self.item_ids, func
            )

    def lists(self) -> Iterator[Lists]:
        """The ranked lists of every block of users, in user order."""
        k = min(self.k, self.items.n_rows)
        for start, users in self.users.blocks(self.block_users, self.metric == "cosine"):
            if self.candidates is not None:
                yield self._candidate_lists(self.candidates, start, users, k)
            else:
                yield self._dense_lists(start, users, k)

    def run(self, name: str | None = None) -> Run:
        """Every user's list as one :class:`~receval.Run`."""
        return lists_run(list(self.lists()), self.user_ids, self.item_ids, name)

    def _masked(self, start: int, n: int) -> tuple[np.ndarray, np.ndarray]:
        if self.excluded is None:
            return np.zeros(n + 1, dtype=np.int64), np.empty(0, dtype=np.int32)
        return self.excluded.of_users(start, start + n)

    def _scan(self, users: np.ndarray, masked: tuple[np.ndarray, np.ndarray],
              k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:  # fmt: skip
        """The top ``k`` of ``users`` over every item block: scores and item rows
        (n, k), each row's length, and whether a product was NaN."""
        core = compiled()
        n = len(users)
        heap_scores = np.empty(n * k, dtype=np.float32)
        heap_items = np.empty(n * k, dtype=np.int32)
        heap_len = np.zeros(n, dtype=np.int64)
        nan = False
        for first, items in self.items.blocks(self.block_items, self.metric == "cosine"):
            nan |= core.topk_scan(users, items, first, self.keys, *masked, heap_scores,
                                  heap_items, heap_len, k)  # fmt: skip
        core.topk_finish(heap_scores, heap_items, heap_len, k, self.keys)
        return heap_scores.reshape(n, k), heap_items.reshape(n, k), heap_len, bool(nan)

    def _dense_lists(self, start: int, users: np.ndarray, k: int) -> Lists:
        n, n_items = len(users), self.items.n_rows
        masked = self._masked(start, n)
        rows, depth = np.arange(n), min(k + self.whole_ties, n_items)
        parts, nan = [], False
        while len(rows):
            again = len(rows) < n  # the users whose tie at k went on past the last scan
            scores, items, lengths, nan_rows = self._scan(
                users[rows] if again else users, _subset(*masked, rows) if again else masked,
                depth,
            )  # fmt: skip
            nan |= nan_rows
            kept = _tied_length(scores, lengths, k)
            # a tie running to the last item scanned may go on past it
            open_ = self.whole_ties & (kept == depth) & (lengths == depth) & (depth < n_items)
            parts.append(_cut(scores[~open_], items[~open_], kept[~open_], rows[~open_], start))
            rows, depth = rows[open_], min(2 * depth, n_items)
        return self._checked(_merged(parts, n, start), nan)

    def _candidate_lists(
        self, candidates: ItemLists, start: int, users: np.ndarray, k: int
    ) -> Lists:
        n = len(users)
        offsets, items = candidates.of_users(start, start + n)
        rows = np.repeat(np.arange(n), np.diff(offsets))
        if self.excluded is not None:
            m_offsets, m_items = self.excluded.of_users(start, start + n)
            m_rows = np.repeat(np.arange(n), np.diff(m_offsets))
            n_items = self.items.n_rows
            seen = m_rows.astype(np.int64) * n_items + m_items
            keep = ~np.isin(rows.astype(np.int64) * n_items + items, seen)
            rows, items = rows[keep], items[keep]
        # the scores of the dense scan, bit for bit (its chain of fused multiply-adds),
        # block_items pairs at a time (the memory of a block of the dense scan, whatever
        # the candidates); an overflow raises below
        scores = np.empty(len(rows), dtype=np.float32)
        for a in range(0, len(rows), self.block_items):
            b = a + self.block_items
            vectors = np.ascontiguousarray(
                self.items.take(items[a:b], self.metric == "cosine"), np.float32
            )
            scores[a:b] = compiled().row_dots(users[rows[a:b]], vectors)
        order = np.lexsort((self.keys[items], -scores, rows))
        rows, items, scores = rows[order], items[order], scores[order]
        counts = np.bincount(rows, minlength=n)
        firsts = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(counts, out=firsts[1:])
        rank = np.arange(len(rows)) - firsts[rows]
        top = rank < k
        if self.whole_ties:  # and every item tied with the k-th
            full = np.flatnonzero(counts >= k)
            kth = np.full(n, np.nan, dtype=np.float32)
            kth[full] = scores[firsts[full] + k - 1]
            top |= scores == kth[rows]
        lengths = np.bincount(rows[top], minlength=n)
        out_offsets = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(lengths, out=out_offsets[1:])
        out = Lists(start, out_offsets, items[top], scores[top])
        return self._checked(out, bool(np.isnan(scores).any()))

    def _checked(self, lists: Lists, nan: bool) -> Lists:
        if nan or not np.isfinite(lists.scores).all():
            raise InputValidationError(
                f"{self.func}: some inner products overflow float32 (users from row "
                f"{lists.start}); scale the vectors down."
            )
        return lists


def _tied_length(scores: np.ndarray, lengths: np.ndarray, k: int) -> np.ndarray:
    """Each row's first ``k`` items and those after them tied with its k-th: the
    items to keep of each row of a top list (scores best first, ``lengths`` valid)."""
    if scores.shape[1] <= k:
        return lengths
    kth = scores[:, k - 1 : k]
    valid = np.arange(k, scores.shape[1]) < lengths[:, None]
    tied = np.count_nonzero((scores[:, k:] == kth) & valid, axis=1)
    return np.where(lengths > k, k + tied, lengths)


def _subset(offsets: np.ndarray, items: np.ndarray,
            rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """The CSR table (offsets from 0, items) of the given rows of one."""
    lengths = np.diff(offsets)[rows]
    out = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(lengths, out=out[1:])
    at = np.repeat(offsets[rows] - out[:-1], lengths) + np.arange(out[-1])
    return out, items[at]


def _cut(scores: np.ndarray, items: np.ndarray, lengths: np.ndarray, rows: np.ndarray,
         start: int) -> tuple[np.ndarray, Lists]:  # fmt: skip
    """(user rows, their lists) of padded top lists, each row cut at its length."""
    kept = np.arange(scores.shape[1]) < lengths[:, None]
    offsets = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return rows, Lists(start, offsets, items[kept], scores[kept])


def _merged(parts: list[tuple[np.ndarray, Lists]], n: int, start: int) -> Lists:
    """The lists of user rows 0..n-1 from parts each holding some of the rows."""
    if len(parts) == 1 and np.array_equal(parts[0][0], np.arange(n)):
        return parts[0][1]
    lengths = np.zeros(n, dtype=np.int64)
    for rows, part in parts:
        lengths[rows] = np.diff(part.offsets)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    total = int(offsets[-1])
    items, scores = np.empty(total, dtype=np.int32), np.empty(total, dtype=np.float32)
    for rows, part in parts:
        sizes = np.diff(part.offsets)
        at = np.repeat(offsets[rows] - part.offsets[:-1], sizes) + np.arange(len(part.items))
        items[at], scores[at] = part.items, part.scores
    return Lists(start, offsets, items, scores)


def row_ids(ids: Any, n: int, name: str, func: str) -> np.ndarray:
    """The ids of the rows (``None``: 0, 1, ...), distinct, one per row: encoded as
    :class:`~receval.Qrels` encodes ids, so missing ids (None, NaN) and ids of two
    types (``[1, "b"]``) are refused and floats holding whole numbers become integers."""
    if ids is None:
        return np.arange(n, dtype=np.int64)
    codes, uniques = factorize(ids, name, func)
    if len(codes) != n:
        raise InputValidationError(
            f"{func}: {name} must have one id per row of the vectors ({n}). Got {len(codes)}."
        )
    if len(uniques) != n:
        counts = np.bincount(codes, minlength=len(uniques))
        read = " (booleans, read as the integers 1 and 0)" if label_kind(ids) == "b" else ""
        raise InputValidationError(
            f"{func}: {name} must be distinct. Got {v.format_values(uniques[counts > 1])} more "
            f"than once{read}; pass one id per row."
        )
    return uniques


def lists_run(lists: list[Lists], user_ids: np.ndarray, item_ids: np.ndarray,
              name: str | None) -> Run:  # fmt: skip
    """The lists of consecutive blocks of user rows as a :class:`~receval.Run`; its
    item ids are the items listed (codes in order of item row)."""
    offsets = np.zeros(len(user_ids) + 1, dtype=np.int64)
    lengths = np.concatenate([np.diff(part.offsets) for part in lists])
    np.cumsum(lengths, out=offsets[1:])
    items = np.concatenate([part.items for part in lists])
    scores = np.concatenate([part.scores for part in lists]).astype(np.float64)
    used = np.zeros(len(item_ids), dtype=bool)
    used[items] = True
    code = np.cumsum(used, dtype=np.int64) - 1
    return Run.from_ranked(
        user_ids, item_ids[used], offsets, code[items].astype(np.int32), scores,
        from_ranks=False, name=name,
    )  # fmt: skip

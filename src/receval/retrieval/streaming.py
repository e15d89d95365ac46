"""``receval.metric("ndcg@10", item_vectors=...)``: a ranking accumulator fed batches of
user vectors, each retrieved against the item matrix it holds.

The item matrix is fixed when the accumulator is made; each update retrieves its
users' exact top k (as :func:`receval.retrieve`, each user's ``exclude`` items
masked before the cut) and adds the lists as the run of ``update(qrels, run)``,
and the counts of its users' ``exclude`` pairs whose item has no vector, with
which of the log's users it gave, to the state
(:func:`~receval.retrieval.masks.unmatched_pairs`, as in memory and on Spark), so
that ``compute`` knows and names the pairs that masked nothing.
Accumulators compare their options to merge and write them into every
checkpoint, so the matrix is held by an :class:`ItemMatrix`: equal to another
when their content digests are (the float32 values, the ids, the score and the
depth), and written as that digest, its shape and the item ids, never as the
vectors. A loaded accumulator cannot retrieve, but its ``compute`` matches the
qrels' items with those ids as the one that wrote it does.
"""

from __future__ import annotations

import hashlib
from functools import cached_property
from typing import Any

import numpy as np

from .. import _validation as v
from ..data._encode import plain_ids
from ..data._ranked import Run
from ..data.seen import PairCounts
from ..exceptions import InvalidParameterError
from .masks import excluded_lists
from .search import BLOCK_ITEMS, BLOCK_USERS, Catalogue, Search, catalogue, row_ids
from .vectors import as_vectors

__all__ = ["ItemMatrix", "item_matrix"]

#: The fields of an item matrix's plain form (what checkpoints and pickles hold).
_FIELDS = ("digest", "n_items", "dim", "metric", "k", "ids", "func")


class ItemMatrix:
    """The item side of an accumulator's retrievals (see the module)."""

    #: the data arguments of the accumulator's ``update``: the user vectors take the
    #: place of the run, with the id of each row
    inputs = ("qrels", "user_vectors", "user_ids")

    def __init__(self, items: Catalogue, metric: str, k: int, func: str) -> None:
        self.items: Catalogue | None = items
        self.ids = plain_ids(items.ids)  # what compute matches the qrels' items with
        self.metric, self.k, self.func = metric, k, func
        self.n_items, self.dim = items.vectors.n_rows, items.vectors.dim

    @cached_property
    def digest(self) -> str:
        """A BLAKE2b digest of the float32 rows (read block by block) and of the ids
        (a loaded matrix has it already)."""
        return _digest(self.items) if self.items is not None else ""

    def run(self, user_vectors: Any, user_ids: Any, seen: Any) -> tuple[Run, PairCounts]:
        """The exact top k of a batch of users, their ``seen`` items masked first, and
        the counts of the pairs of ``seen`` of these users (zero without ``seen``)."""
        if self.items is None:
            raise InvalidParameterError(
                f"{self.func}: this accumulator was loaded from a pickle, which keeps the "
                f"item matrix's digest and item ids, not its vectors; merge it into an "
                f"accumulator made with item_vectors=, or make a new one to update."
            )
        if user_ids is None:
            raise InvalidParameterError(
                f"{self.func}: update({', '.join(self.inputs[:2])}, user_ids=...) needs "
                f"user_ids, the id of each row of user_vectors (users are joined across "
                f"updates by id)."
            )
        users = as_vectors(user_vectors, "user_vectors", self.func)
        ids = row_ids(user_ids, users.n_rows, "user_ids", self.func)
        excluded, counts = None, PairCounts()
        if seen is not None:  # a batch of the users: its pairs may mask nothing
            excluded, unmatched = excluded_lists(seen, ids, self.items.ids, self.func,
                                                 some_users=True)  # fmt: skip
            counts = unmatched.counts
        search = Search(
            users, self.items, self.k, user_ids=ids, metric=self.metric,
            exclude=excluded, candidates=None, block_users=BLOCK_USERS,
            block_items=BLOCK_ITEMS, func=self.func, whole_ties=True,
        )  # fmt: skip
        return search.run(), counts

    def _key(self) -> tuple[str, int, int, str, int]:
        """What two matrices equal in (the digest covers the vectors and the ids)."""
        return (self.digest, self.n_items, self.dim, self.metric, self.k)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ItemMatrix) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self.digest)

    def __repr__(self) -> str:
        return (f"ItemMatrix({self.n_items} x {self.dim}, metric={self.metric!r}, k={self.k}, "
                f"digest={self.digest[:12]!r})")  # fmt: skip

    def __getstate__(self) -> dict[str, Any]:
        return dict(zip(_FIELDS, (*self._key(), self.ids, self.func), strict=True))

    def __setstate__(self, state: Any) -> None:
        from ..engine.states import invalid_state

        if not isinstance(state, dict) or set(state) != set(_FIELDS):
            shown = sorted(state) if isinstance(state, dict) else type(state).__name__
            raise invalid_state(f"ItemMatrix: expected the fields {sorted(_FIELDS)}, got {shown}")
        ids, n = state["ids"], state["n_items"]
        if not (isinstance(ids, np.ndarray) and ids.dtype.kind in "iufU" and ids.shape == (n,)):
            shown = f"shape {np.shape(ids)} and dtype {getattr(ids, 'dtype', type(ids).__name__)}"
            raise invalid_state(
                f"ItemMatrix: ids must be a 1-d array of the {n!r} item ids (integers, "
                f"floats or strings), got {shown}"
            )
        self.items = None
        self.__dict__.update(state)


def _digest(items: Catalogue) -> str:
    h = hashlib.blake2b(digest_size=16)
    for _, block in items.vectors.blocks(BLOCK_ITEMS):
        h.update(block.tobytes())
    ids = plain_ids(items.ids)
    if ids.dtype.kind in "iu":
        h.update(ids.astype(np.int64).tobytes())
    else:
        h.update("\x00".join(map(str, ids.tolist())).encode())
    return h.hexdigest()


def item_matrix(
    metric_string: str, item_vectors: Any, item_ids: Any, k: int | None,
    options: dict[str, Any], func: str,
) -> tuple[ItemMatrix | None, dict[str, Any]]:  # fmt: skip
    """The item matrix of ``receval.metric(metric_string, item_vectors=..., item_ids=...,
    metric=..., k=...)`` (None without ``item_vectors``), and the other options; the
    errors name ``func``, the function called (``receval.compute('ndcg@10')``)."""
    options = dict(options)
    score = options.pop("metric", None)
    if item_vectors is None:
        given = [n for n, x in (("item_ids", item_ids), ("k", k), ("metric", score))
                 if x is not None]  # fmt: skip
        if given:
            raise InvalidParameterError(
                f"{func}: {given[0]} is an option of retrieval from embeddings; pass "
                f"item_vectors= too (the item matrix), or drop {given[0]}."
            )
        return None, options
    from .embeddings import metrics_depth

    depth = metrics_depth(metric_string, func, k)
    score = v.check_option("dot" if score is None else score, "metric", func, ["dot", "cosine"])
    return ItemMatrix(catalogue(item_vectors, item_ids, func), score, depth, func), options

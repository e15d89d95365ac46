"""retrieve(): each user's exact top k items from user and item embeddings."""

from __future__ import annotations

from typing import Any

from ..data._ranked import Run
from .search import BLOCK_ITEMS, BLOCK_USERS, Search, catalogue

__all__ = ["retrieve"]


def retrieve(
    user_vectors: Any,
    item_vectors: Any,
    k: int,
    *,
    user_ids: Any = None,
    item_ids: Any = None,
    metric: str = "dot",
    exclude: Any = None,
    candidates: Any = None,
    block_users: int = BLOCK_USERS,
    block_items: int = BLOCK_ITEMS,
    name: str | None = None,
) -> Run:
    """Retrieve each user's top ``k`` items by inner product (or cosine) of embeddings.

    The exact search of two-tower and matrix-factorisation models: every item is
    scored for every user, block of users by block of items, and each user's best
    ``k`` are kept as the blocks go. Memory holds one block of items (twice:
    as read, and packed for the compiled kernel) and one block of users' top k,
    never a block of scores, whatever the catalogue; ``.npy`` memmaps and
    Parquet files are read block by block. Items the user interacted with in
    training (``exclude``) are removed before the cut at ``k``.

    Parameters
    ----------
    user_vectors, item_vectors : array-like of shape (n_users, dim) and (n_items, dim)
        One row per user and per item: NumPy arrays (memmaps too) of float32,
        float16, float64 or integers, ml_dtypes bfloat16 arrays, torch tensors
        (bfloat16 too), Arrow fixed-size-list arrays or columns, or the path of a
        ``.npy`` file or of a Parquet file with one fixed-size-list column.
    k : int
        Items per user (fewer when the user has fewer items left to show).
    user_ids, item_ids : array-like, default=None
        The id of each row (distinct ints or strings); None numbers the rows 0, 1, ...
    metric : {"dot", "cosine"}, default="dot"
        The score: the inner product, or the inner product of the vectors scaled
        to unit length (a zero vector raises).
    exclude : Qrels, Run, DataFrame, pair (users, items) or mapping, default=None
        The interactions to mask, e.g. the training set: each user's items there
        are never retrieved for it (the same inputs as ``evaluate(train=...)``).
        Pairs whose user or item has no vector are ignored, with an
        ``UnmatchedIdsWarning`` that counts them.
    candidates : Candidates, DataFrame or mapping, default=None
        Score only each user's candidate items (a sampled protocol, or a
        pre-filter); users without candidates get an empty list. Pairs whose user
        or item has no vector are ignored, with an ``UnmatchedIdsWarning`` that
        counts them.
    block_users, block_items : int, default=2048 and 8192
        The users whose top k are kept together, and the items read together
        (with ``candidates``: the (user, candidate) pairs scored together).
    name : str, default=None
        The run's name, for reports.

    Returns
    -------
    run : Run
        The ``k`` best items of every user row, best first, with their scores
        (float32 values); every user is in it, one with nothing left to show with
        an empty list.

    Raises
    ------
    InputValidationError
        Matrices of different widths, NaN, infinite or null values, values
        beyond float32's range, integers beyond 2**24 (float32 would round
        them), ids not distinct or not one per row, a zero vector (or one that
        is zero in float32) with ``metric="cosine"``, products that overflow
        float32.
    InvalidParameterError
        ``k``, ``metric`` or a block size out of range.

    Warns
    -----
    UnmatchedIdsWarning
        Some pairs of ``exclude`` or ``candidates`` name a user or an item
        without a vector: how many, and a few of their ids (one warning per
        argument).

    See Also
    --------
    evaluate_embeddings : The metrics of the retrieved lists, without the whole run.
    ann_recall : How much of the exact top k an approximate index returns.

    Notes
    -----
    Scores are computed in float32 (float16 and bfloat16 inputs, and integers
    of magnitude up to 2**24, are exact in float32; larger integers raise;
    float64 inputs are rounded to it first), each as fused
    multiply-adds over the dimensions in order, so the same floats on every
    CPU, whatever the blocks and threads, and with ``candidates`` or without.
    The top k are exact for these float32 scores: items of equal score are
    ordered by item id ascending (numbers as numbers, strings as strings), both
    for the cut at ``k`` and within the list, which the run keeps as its order
    of ties (``evaluate(..., ties="input")`` reads it as such; the default
    ``ties="trec"`` reorders tied scores inside a list by id descending).

    Examples
    --------
    >>> import numpy as np
    >>> from receval import retrieve
    >>> users = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> items = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0], [1.0, 0.0]])
    >>> run = retrieve(users, items, 2, item_ids=["a", "b", "c", "d"])
    >>> run.to_dict()
    {0: {'a': 1.0, 'd': 1.0}, 1: {'c': 1.0, 'b': 0.5}}

    Training items are masked before the cut:

    >>> run = retrieve(users, items, 2, item_ids=["a", "b", "c", "d"],
    ...                exclude={0: ["a"], 1: ["c"]})
    >>> run.to_dict()
    {0: {'d': 1.0, 'b': 0.5}, 1: {'b': 0.5, 'a': 0.0}}
    """
    search = Search(
        user_vectors, catalogue(item_vectors, item_ids, "retrieve"), k, user_ids=user_ids,
        metric=metric, exclude=exclude, candidates=candidates, block_users=block_users,
        block_items=block_items, func="retrieve",
    )  # fmt: skip
    for unmatched in search.unmatched.values():
        unmatched.warn("retrieve")
    return search.run(name)

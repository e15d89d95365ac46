"""Intra-list similarity, diversity and novelty: how alike and how well known the items are.

Intra-list similarity and diversity need item similarities (feature vectors,
a similarity matrix or a function); novelty needs an interaction log for item
popularity. Each user's top-``k`` list is scored, then users are averaged
into a :class:`~receval.metrics.beyond.lists.MeanOverUsers`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeAlias

import numpy as np

from ... import _validation as v
from ..._kernels import compiled
from ...data import io
from ...data._encode import factorize, ids_as_given
from ...data._lookup import distinct, lookup
from ...data._ranked import Run
from ...exceptions import InputValidationError, InvalidParameterError
from .history import read_log
from .lists import (
    RunLike,
    as_run,
    check_k,
    document,
    item_exposure,
    mean_over_users,
    missing_items,
    user_chunks,
)

__all__ = [
    "diversity",
    "intra_list_similarity",
    "novelty",
]

#: ``sim(item_a, item_b) -> float``, called with item ids.
SimilarityFunction: TypeAlias = Callable[[Any, Any], float]

_UNSEEN = ["raise", "skip"]
#: The fix of recommended items that never occur in novelty's interactions (the command
#: line, which has no option for it, gives its own: :func:`receval.cli._translate.cli_text`).
SKIP_UNSEEN = "pass unseen='skip' to leave them out of each user's mean"


def _ids_of(values: Any, name: str, func: str) -> np.ndarray:
    """Distinct item ids of a catalogue, features or similarity (duplicates raise)."""
    codes, uniques = factorize(values, name, func)
    if len(uniques) < len(codes):
        dup = uniques[np.bincount(codes) > 1]
        raise InputValidationError(
            f"{func}: {name} must not contain duplicates. Got duplicated values "
            f"{v.format_values(dup)}."
        )
    return uniques


# ---------------------------------------------------------------- similarity
def _numeric_2d(values: Any, name: str, func: str, *, square: bool = False) -> np.ndarray:
    shape = "square (n_items, n_items)" if square else "2-dimensional (n_items, n_features)"
    try:
        arr = np.asarray(values)
    except ValueError:  # a list of rows of different lengths
        if not isinstance(values, (list, tuple)):
            raise
        lengths = [len(row) if hasattr(row, "__len__") else 1 for row in values]
        raise InputValidationError(
            f"{func}: {name} must be {shape}, with rows of one length. Got rows of lengths "
            f"{v.format_values(lengths)}."
        ) from None
    if arr.ndim != 2 or (square and arr.shape[0] != arr.shape[1]):
        raise InputValidationError(
            f"{func}: {name} must be {shape}. Got an array of shape {arr.shape}."
        )
    if arr.dtype not in (np.float32, np.float64):
        try:
            arr = v.as_float(arr.ravel(), name, func).reshape(arr.shape)
        except InputValidationError as error:  # a missing value: the first row holding one
            at = None if error.row is None else f"in row {error.row // arr.shape[1]}"
            raise (error if at is None else error.restated(at)) from None
    return v.check_finite(arr, name, func)


def _frame_features(frame: Any, feature_items: Any, func: str) -> tuple[Any, np.ndarray]:
    """Item ids and feature values of a DataFrame (pandas: index; others: a column)."""
    if feature_items is not None and not isinstance(feature_items, str):
        raise InvalidParameterError(
            f"The 'feature_items' parameter of {func} must be None or a column name when "
            f"features is a DataFrame. Got {type(feature_items).__name__} instead."
        )
    pandas = type(frame).__module__.startswith("pandas")
    if pandas and feature_items is None:
        return frame.index.to_numpy(), frame.to_numpy()
    column = feature_items or "item"
    names = list(frame.schema.names) if io.module_of(frame) == "pyarrow" else list(frame.columns)
    if column not in names:
        raise InputValidationError(
            f"{func}: features has no column {column!r} for the item ids. Got columns "
            f"{v.format_values(names, limit=10)}; pass feature_items='<column name>'."
        )
    if pandas:
        return frame[column].to_numpy(), frame.drop(columns=[column]).to_numpy()
    ids = ids_as_given(frame[column])  # a categorical as given: its categories are distinct
    others = [np.asarray(io.column_array(frame[c])) for c in names if c != column]
    return ids, np.column_stack(others) if others else np.empty((len(ids), 0))


def feature_matrix(features: Any, feature_items: Any, func: str) -> tuple[np.ndarray, np.ndarray]:
    """Distinct item ids and a C-contiguous float32/float64 feature matrix (of a
    mapping ``{item: vector}``: its keys and values)."""
    if isinstance(features, Mapping):
        if feature_items is not None:
            raise InputValidationError(
                f"{func}: feature_items must be None when features is a mapping "
                f"{{item: vector}}. Got {type(feature_items).__name__}."
            )
        feature_items, features = list(features.keys()), list(features.values())
    if io.is_frame(features):
        ids, values = _frame_features(features, feature_items, func)
    else:
        if isinstance(feature_items, str):
            raise InvalidParameterError(
                f"The 'feature_items' parameter of {func} must be an array of item ids, one "
                f"per row of features, or None. Got {feature_items!r} instead."
            )
        ids, values = feature_items, features
    arr = np.ascontiguousarray(_numeric_2d(values, "features", func))
    return _row_ids(ids, arr.shape[0], "features", func), arr


def _similarity_matrix(
    similarity: Any, feature_items: Any, func: str
) -> tuple[np.ndarray, np.ndarray]:
    """Distinct item ids and a square float32/float64 similarity matrix."""
    if type(similarity).__module__.startswith("pandas") and hasattr(similarity, "index"):
        if feature_items is not None:
            raise InvalidParameterError(
                f"The 'feature_items' parameter of {func} must be None when similarity is a "
                f"DataFrame (its index holds the item ids). Got {type(feature_items).__name__} "
                f"instead."
            )
        index, columns = list(similarity.index), list(similarity.columns)
        if index != columns:
            raise InputValidationError(
                f"{func}: similarity must have the same item ids in the same order on its rows "
                f"and columns. Got index {v.format_values(index)} and columns "
                f"{v.format_values(columns)}."
            )
        ids, values = similarity.index.to_numpy(), similarity.to_numpy()
    elif io.is_frame(similarity) or isinstance(similarity, (str, bytes, Mapping)):
        raise InvalidParameterError(
            f"The 'similarity' parameter of {func} must be a square array, a pandas DataFrame "
            f"indexed by item id, or a function sim(item_a, item_b). Got "
            f"{type(similarity).__name__} instead."
        )
    else:
        ids, values = feature_items, similarity
    arr = _numeric_2d(values, "similarity", func, square=True)
    return _row_ids(ids, arr.shape[0], "similarity", func), arr


def _row_ids(ids: Any, n_rows: int, name: str, func: str) -> np.ndarray:
    if ids is None:
        return np.arange(n_rows)
    uniques = _ids_of(ids, "feature_items", func)
    if len(uniques) != n_rows:
        raise InputValidationError(
            f"{func}: feature_items must hold one item id per row of {name}. Got "
            f"{v.counted(len(uniques), 'id')} for {v.counted(n_rows, 'row')}."
        )
    return uniques


def _rows_of_run(run: Run, used: np.ndarray, ids: np.ndarray, name: str, func: str) -> np.ndarray:
    """Row of ``ids`` of each item code of the run; every recommended item needs one."""
    rows = lookup(run.item_ids, ids)
    missing = used & (rows < 0)
    if missing.any():
        raise InputValidationError(
            f"{func}: {name} must have a row for every recommended item. Got none for "
            f"{missing_items(run, missing)}; add them, or check that feature_items holds "
            f"the run's item ids."
        )
    return rows


def _ils_function(run: Run, depth: int, sim: SimilarityFunction, func: str) -> np.ndarray:
    """ILS with a caller's function, called once per distinct pair of co-listed items."""
    kern = compiled()
    n_items = len(run.item_ids)
    keys, pair_offsets = kern.pair_keys_csr(run.items, run.offsets, depth, n_items)
    pairs, inverse = np.unique(keys, return_inverse=True)
    firsts = run.item_ids[pairs // n_items].tolist()
    seconds = run.item_ids[pairs % n_items].tolist()
    values = np.empty(len(pairs), dtype=np.float64)
    for t, (a, b) in enumerate(zip(firsts, seconds, strict=True)):
        value = sim(a, b)
        try:
            x = float(value)
        except (TypeError, ValueError):
            x = float("nan")
        if not np.isfinite(x):
            raise InputValidationError(
                f"{func}: similarity must return a finite number for every pair of items. "
                f"Got {value!r} for items ({a!r}, {b!r})."
            )
        values[t] = x
    result: np.ndarray = kern.pair_means_csr(values[inverse], pair_offsets, user_chunks(len(keys)))
    return result


def ils_per_user(
    run: Run,
    k: int | None,
    *,
    features: Any = None,
    feature_items: Any = None,
    similarity: Any = None,
    func: str = "intra_list_similarity",
) -> np.ndarray:
    """ILS of each user's top-``k`` list: float64 array of shape (run.n_users,).

    Users whose list has fewer than 2 items (after the cut at ``k``) get nan.
    Arguments as in :func:`intra_list_similarity`; ``func`` names the caller in
    error messages (``"evaluate"`` when called from there).
    """
    kern = compiled()
    depth = check_k(k, func)
    if (features is None) == (similarity is None):
        raise InvalidParameterError(
            f"{func}: pass exactly one of features and similarity. Got "
            f"{'both' if features is not None else 'neither'}; item similarities come from "
            f"feature vectors (cosine), a similarity matrix or a function."
        )
    if similarity is not None and callable(similarity) and not hasattr(similarity, "shape"):
        if feature_items is not None:
            raise InvalidParameterError(
                f"The 'feature_items' parameter of {func} must be None when similarity is a "
                f"function. Got {type(feature_items).__name__} instead."
            )
        return _ils_function(run, depth, similarity, func)
    used = item_exposure(run, depth) > 0
    chunks = user_chunks(run.n_rows)
    if similarity is not None:
        ids, matrix = _similarity_matrix(similarity, feature_items, func)
        rows = _rows_of_run(run, used, ids, "similarity", func)
        result: np.ndarray = kern.intra_list_similarity_matrix_csr(
            run.items, run.offsets, depth, rows, matrix, chunks
        )
        return result
    ids, feats = feature_matrix(features, feature_items, func)
    rows = _rows_of_run(run, used, ids, "features", func)
    inv_norm = kern.inverse_norms(feats, rows, used, chunks)
    result = kern.intra_list_similarity_csr(
        run.items, run.offsets, depth, rows, feats, inv_norm, chunks
    )
    return result


#: the item similarities of intra_list_similarity and diversity
_SIMILARITY = """features : array-like (n_items, n_features), DataFrame or mapping, default=None
        Item feature vectors; similarity is their cosine. A mapping is
        ``{item: vector}`` (no ``feature_items`` then). A pandas DataFrame is
        indexed by item id; a polars DataFrame or Arrow table has an item id
        column (``"item"`` unless ``feature_items`` names another) and
        numeric feature columns.
    feature_items : array-like of shape (n_items,) or str, default=None
        The item id of each row of ``features`` or ``similarity`` (None: the
        row numbers 0, 1, ...); for a DataFrame, the name of its id column.
    similarity : array-like of shape (n_items, n_items), DataFrame or callable, default=None
        Instead of ``features``: a similarity matrix over ``feature_items`` (a
        pandas DataFrame with item ids as index and columns), or a function
        ``sim(item_a, item_b) -> float`` of two item ids."""


def _mean_ils(
    run: RunLike, k: Any, features: Any, feature_items: Any, similarity: Any, func: str
) -> float:
    """The mean ILS over users (``func="diversity"``: 1 - that mean)."""
    kw = {"features": features, "feature_items": feature_items, "similarity": similarity}
    per_user = ils_per_user(as_run(run, func), k, func=func, **kw)
    return mean_over_users(
        per_user,
        func,
        "every list has fewer than 2 items",
        complement=func == "diversity",
    )


def intra_list_similarity(
    run: RunLike,
    *,
    k: int | None = None,
    features: Any = None,
    feature_items: Any = None,
    similarity: Any = None,
) -> float:
    """Compute the intra-list similarity (ILS) of each top-K list, averaged over users.

    ILS is the mean similarity of the pairs of distinct items of a list: a
    lower value means a more diverse list. Item similarity is the cosine of
    item feature vectors, or comes from the caller's similarity matrix or
    function. Lists with fewer than 2 items have no pair and are skipped.

    Parameters
    ----------
    run : Run, mapping, DataFrame or sequence of lists
        The recommendations: a :class:`~receval.Run`, ``{user: {item: score}}``,
        a DataFrame with ``user``, ``item`` and ``score`` columns, or one ranked
        list of item ids per user (a list of lists or a 2-D array).
    k : int, default=None
        Depth of each list (its top ``k`` items); None means the whole list.
    {similarity}

    Returns
    -------
    ils : MeanOverUsers
        Mean ILS over the users whose list has at least 2 items; nan with an
        ``UndefinedMetricWarning`` if there is none. A float, with the number of
        lists and of lists left out (fewer than 2 items) as ``n_users`` and
        ``n_users_skipped``. Cosine ILS is in
        [-1, 1], and in [0, 1] for non-negative features.

    Raises
    ------
    InvalidParameterError
        Neither or both of ``features`` and ``similarity``; a bad ``k``.
    InputValidationError
        A recommended item without a feature row (the message names up to 5),
        duplicate ``feature_items``, non-finite features or similarities.

    See Also
    --------
    diversity : 1 - ILS.
    personalization : Dissimilarity between the lists of different users.

    Notes
    -----
    For a list :math:`L` of :math:`m \\ge 2` items,

    .. math:: \\mathrm{ILS}(L) = \\frac{\\sum_{i \\in L} \\sum_{j \\in L, j \\ne i}
              S(i, j)}{m (m - 1)}

    and the result is the unweighted mean over users. With ``features``,
    :math:`S(i, j) = x_i \\cdot x_j / (\\|x_i\\| \\|x_j\\|)`; a zero vector has
    cosine 0 with every item, as in scikit-learn. ``features`` is read in
    place (float32 or float64; no normalised copy): the norm of each
    recommended item is computed once, on the vector divided by its largest
    absolute value, so that no square overflows (features of 1e200) or
    underflows (1e-300, subnormals) and the cosine is exact at any magnitude;
    each list's vectors are divided by their norms into a small float64
    buffer, where each pair's cosine is its dot product over the norms of
    the two unit vectors as rounded (exactly 1 for equal vectors, so a list
    of equal vectors has ILS 1 and diversity 0). Lists longer than 32 items
    use
    :math:`\\sum_{i \\ne j} x_i \\cdot x_j = \\|\\sum_i x_i\\|^2 - \\sum_i
    \\|x_i\\|^2` (O(m d) instead of O(m² d)). The formula sums ordered pairs,
    so an asymmetric matrix counts :math:`(S_{ij} + S_{ji}) / 2` per pair. A
    function must be symmetric: it is called once per distinct pair of items
    listed together, so it is slow for large runs (millions of calls).

    Items are taken in the run's ranked order (score descending, input order
    within ties), which decides the top ``k``. The same values per user are
    available from :func:`receval.evaluate` as ``"ils@k"``.

    References
    ----------
    .. [1] C.-N. Ziegler, S. M. McNee, J. A. Konstan and G. Lausen, "Improving
       recommendation lists through topic diversification", WWW 2005.

    Examples
    --------
    >>> import numpy as np
    >>> from receval import intra_list_similarity
    >>> features = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    >>> lists = [["a", "b", "c"], ["a", "c"]]
    >>> intra_list_similarity(lists, features=features, feature_items=["a", "b", "c"])
    0.2357
    >>> intra_list_similarity(lists, k=2, features=features, feature_items=["a", "b", "c"])
    0.3536
    >>> same = lambda a, b: float(a[0] == b[0])
    >>> intra_list_similarity([["x1", "x2", "y1"]], similarity=same)
    0.3333
    """
    return _mean_ils(run, k, features, feature_items, similarity, "intra_list_similarity")


@document(similarity=_SIMILARITY)
def diversity(
    run: RunLike,
    *,
    k: int | None = None,
    features: Any = None,
    feature_items: Any = None,
    similarity: Any = None,
) -> float:
    """Compute intra-list diversity: 1 - ILS, averaged over users.

    Higher means more diverse lists. This is one minus
    :func:`intra_list_similarity`, with the same arguments and the same
    skipped users (lists of fewer than 2 items).

    Parameters
    ----------
    {run}
    {depth}
    {similarity}

    Returns
    -------
    diversity : MeanOverUsers
        Mean of ``1 - ILS`` over users with at least 2 items; nan with an
        ``UndefinedMetricWarning`` if there is none. A float, with the number of
        lists and of lists left out as ``n_users`` and ``n_users_skipped``.

    Raises
    ------
    InvalidParameterError
        Neither or both of ``features`` and ``similarity``; a bad ``k``.
    InputValidationError
        As :func:`intra_list_similarity`.

    See Also
    --------
    intra_list_similarity : The similarity this complements.

    Notes
    -----
    The mean of ``1 - ILS_u`` equals ``1 - mean(ILS_u)``; cosine diversity is
    in [0, 2], and in [0, 1] for non-negative features.

    Examples
    --------
    >>> import numpy as np
    >>> from receval import diversity
    >>> features = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    >>> diversity([["a", "b", "c"], ["a", "c"]], features=features, feature_items=["a", "b", "c"])
    0.7643
    """
    return _mean_ils(run, k, features, feature_items, similarity, "diversity")


# ---------------------------------------------------------------- novelty
@document()
def novelty(
    run: RunLike, interactions: Any, *, k: int | None = None, unseen: str = "raise"
) -> float:
    """Compute novelty: the mean self-information -log2(popularity) of recommended items.

    The popularity of an item is the share of the users of an interaction log
    (typically the training data) who interacted with it. Recommending items
    few users know scores high. Each user's top-``k`` list is averaged first,
    then users are averaged.

    Parameters
    ----------
    {run}
    interactions : Qrels, Run, DataFrame or tuple (users, items)
        The log that defines popularity: a :class:`~receval.Qrels` or
        :class:`~receval.Run`, a DataFrame with ``user`` and ``item`` columns,
        or a pair of arrays. A (user, item) pair repeated in the log counts
        once; every row of a ``Qrels`` or ``Run`` counts, whatever its grade
        or score.
    {depth}
    unseen : {"raise", "skip"}, default="raise"
        Recommended items that never occur in ``interactions`` (popularity 0,
        infinite self-information): raise an error naming them, or leave them
        out of each user's mean (a user left with no item is skipped).

    Returns
    -------
    novelty : MeanOverUsers
        Mean over users of the mean self-information of their list, in bits;
        0 when every recommended item was used by every user. nan with an
        ``UndefinedMetricWarning`` if every user was skipped. A float, with the
        number of users and of users skipped as ``n_users`` and ``n_users_skipped``.

    Raises
    ------
    InvalidParameterError
        A bad ``k`` or ``unseen``.
    InputValidationError
        ``unseen="raise"`` and a recommended item absent from the log (the
        message names up to 5); a malformed log.

    See Also
    --------
    catalog_coverage, gini_index : Other views of popularity bias.

    Notes
    -----
    With :math:`U` the users of the log and :math:`n_i` those who interacted
    with item :math:`i`,

    .. math:: \\mathrm{novelty} = \\frac{1}{|\\mathcal U_R|} \\sum_{u}
              \\frac{1}{|L_u|} \\sum_{i \\in L_u} -\\log_2 \\frac{n_i}{U}

    as in Zhou et al. (2010) and recmetrics' ``novelty`` (which divides by a
    fixed list length: equal when every list has ``k`` items; recmetrics
    counts log rows, so it agrees when no pair repeats). Microsoft
    Recommenders' ``novelty`` instead weights items by how often they are
    recommended and divides their count by the number of log rows, not users.

    References
    ----------
    .. [1] T. Zhou et al., "Solving the apparent diversity-accuracy dilemma of
       recommender systems", PNAS 107(10), 2010.

    Examples
    --------
    >>> from receval import novelty
    >>> log = (["u1", "u1", "u2", "u3"], ["a", "b", "a", "c"])  # a: 2 of 3 users
    >>> novelty([["a", "b"], ["c"]], log)
    1.3350
    >>> novelty([["a", "z"]], log, unseen="skip")  # z never seen: only a counts
    0.5850
    """
    kern = compiled()
    func = "novelty"
    run = as_run(run, func)
    depth = check_k(k, func)
    v.check_option(unseen, "unseen", func, _UNSEEN)
    log = read_log(interactions, "interactions", func, mapping=False)
    popularity = kern.distinct_users_per_item(log.users, log.items, log.n_users, log.n_items)
    pos = lookup(run.item_ids, log.item_ids)
    absent = pos < 0
    if unseen == "raise":
        missing = absent & (item_exposure(run, depth) > 0)
        if missing.any():
            raise InputValidationError(
                f"{func}: interactions must contain every recommended item, whose popularity "
                f"novelty needs. Got {missing_items(run, missing)} that never "
                f"{v.verb(int(missing.sum()), 'occurs')} in it; "
                f"{SKIP_UNSEEN}."
            )
    info = np.full(len(run.item_ids), np.nan)
    info[~absent] = -np.log2(popularity[pos[~absent]] / log.n_users)
    per_user = kern.list_means_csr(info, run.items, run.offsets, depth, user_chunks(run.n_rows))
    if run.n_rows == 0:
        reason = "no user has a recommended item"
    else:
        reason = "no recommended item occurs in interactions"
    return mean_over_users(per_user, func, reason)


def expected_ils_per_user(
    run: Run,
    k: int,
    *,
    features: Any = None,
    feature_items: Any = None,
    similarity: Any = None,
    func: str = "evaluate",
) -> np.ndarray:
    """ILS of each user's top ``k`` as its expected value over every order of tied
    scores (:func:`ils_per_user` otherwise; same arguments).

    Only a list whose ``k``-th and ``k+1``-th scores tie has more than one top
    ``k``: its items above that block (A) are always in, ``m`` of the block's
    ``s`` items (B) are, each pair of the block with probability
    ``m (m - 1) / (s (s - 1))`` and each pair across with ``m / s``. With ``S(X)``
    the sum of the similarities of the pairs of X, the expected sum is
    ``S(A) + m/s (S(A+B) - S(A) - S(B)) + m (m - 1) / (s (s - 1)) S(B)``, over the
    ``k (k - 1) / 2`` pairs of every top ``k`` (exact; the sums come from the same
    kernels, on the lists A, A+B and B).
    """
    kw = {"features": features, "feature_items": feature_items, "similarity": similarity}
    plain = ils_per_user(run, k, func=func, **kw)
    lengths = np.diff(run.offsets)
    starts = run.offsets[:-1]
    cut = np.flatnonzero(lengths > k)
    tied = cut[run.scores[starts[cut] + k - 1] == run.scores[starts[cut] + k]]
    if not len(tied):
        return plain
    parts: dict[str, tuple[list[int], list[int]]] = {"a": ([], []), "ab": ([], []), "b": ([], [])}
    sizes = np.zeros((len(tied), 3))  # |A|, |B|, m
    for n, u in enumerate(tied):
        lo, hi = int(run.offsets[u]), int(run.offsets[u + 1])
        scores = run.scores[lo:hi]
        edge = scores[k - 1]
        first = lo + int(np.searchsorted(-scores, -edge, side="left"))
        last = lo + int(np.searchsorted(-scores, -edge, side="right"))
        a, b = list(range(lo, first)), list(range(first, last))
        for key, rows in (("a", a), ("ab", a + b), ("b", b)):
            parts[key][0].extend([n] * len(rows))
            parts[key][1].extend(rows)
        sizes[n] = len(a), len(b), k - len(a)

    def pair_sums(key: str, size: np.ndarray) -> np.ndarray:
        users, rows = (np.asarray(x, dtype=np.int64) for x in parts[key])
        out = np.zeros(len(tied))
        if len(rows) == 0:
            return out
        sub = Run(users, run.item_ids[run.items[rows]], ranks=np.arange(1, len(rows) + 1))
        ils = ils_per_user(sub, None, func=func, **kw)
        present = distinct(users)
        pairs = size[present] * (size[present] - 1) / 2
        out[present] = np.where(pairs > 0, np.nan_to_num(ils) * pairs, 0.0)
        return out

    a_size, b_size, m = sizes[:, 0], sizes[:, 1], sizes[:, 2]
    s_a, s_b = pair_sums("a", a_size), pair_sums("b", b_size)
    s_ab = pair_sums("ab", a_size + b_size)
    within = np.where(b_size > 1, m * (m - 1) / np.maximum(b_size * (b_size - 1), 1), 0.0)
    expected = s_a + m / b_size * (s_ab - s_a - s_b) + within * s_b
    out: np.ndarray = plain.copy()
    out[tied] = expected / (k * (k - 1) / 2) if k > 1 else np.nan
    return out

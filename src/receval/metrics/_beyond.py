"""Beyond accuracy: what a run recommends, whatever the ground truth.

Every function reads the top-``k`` list of each user of a :class:`~receval.Run`
(``k=None``: the whole list). Intra-list similarity and diversity need item
similarities (feature vectors, a similarity matrix or a function); novelty
needs an interaction log for item popularity; catalogue coverage, the Gini
index of exposure and personalization need only the run.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from typing import Any, TypeAlias

import numpy as np

from .. import _validation as v
from ..data import io
from ..data._encode import factorize, lookup
from ..data._ranked import Qrels, Run
from ..exceptions import InputValidationError, InvalidParameterError, UndefinedMetricWarning

__all__ = [
    "MeanOverUsers",
    "catalog_coverage",
    "diversity",
    "gini_index",
    "intra_list_similarity",
    "novelty",
    "personalization",
]

#: A ``Run``, ``{user: {item: score}}``, a DataFrame with user/item/score
#: columns, or a sequence of ranked item lists (one per user; 2-D arrays too).
RunLike: TypeAlias = Any
#: ``sim(item_a, item_b) -> float``, called with item ids.
SimilarityFunction: TypeAlias = Callable[[Any, Any], float]

_WHOLE_LIST = np.iinfo(np.int64).max
_UNSEEN = ["raise", "skip"]


# ---------------------------------------------------------------- inputs
def as_run(run: RunLike, func: str) -> Run:
    """A ``Run`` from any of the accepted shapes (a ``Run`` is used as is)."""
    if isinstance(run, Run):
        return run
    if isinstance(run, Mapping):
        return Run.from_dict(run)
    if io.is_frame(run):
        return Run.from_frame(run)
    if isinstance(run, np.ndarray) and run.ndim == 2:
        n_users, length = run.shape
        v.check_not_empty(n_users * length, "run", func)
        users = np.repeat(np.arange(n_users), length)
        ranks = np.tile(np.arange(1, length + 1), n_users)
        return Run(users, run.reshape(-1), ranks=ranks)
    if isinstance(run, (list, tuple)) or (isinstance(run, np.ndarray) and run.ndim == 1):
        lists = list(run)
        bad = next((x for x in lists if not _is_list(x)), None)
        if bad is None:
            lengths = np.fromiter((len(x) for x in lists), dtype=np.int64, count=len(lists))
            v.check_not_empty(int(lengths.sum()), "run", func)
            users = np.repeat(np.arange(len(lists)), lengths)
            flat = [item for x in lists for item in x]
            ranks = np.concatenate([np.arange(1, n + 1) for n in lengths])
            return Run(users, flat, ranks=ranks)
        raise InputValidationError(
            f"{func}: run must be a Run, a mapping {{user: {{item: score}}}}, a DataFrame or a "
            f"sequence of ranked item lists. Got a {type(run).__name__} holding a "
            f"{type(bad).__name__}; wrap a single list as [items]."
        )
    raise InputValidationError(
        f"{func}: run must be a Run, a mapping {{user: {{item: score}}}}, a DataFrame or a "
        f"sequence of ranked item lists. Got {type(run).__name__}."
    )


def _n_empty_lists(run: RunLike) -> int:
    """Users given as an empty list: the lists' ``Run`` cannot hold them, so they are
    counted here, as skipped users, by the metrics averaged over users (a ``{}`` of a
    mapping is a user of the ``Run``, without items)."""
    if isinstance(run, (list, tuple)) or (isinstance(run, np.ndarray) and run.ndim == 1):
        return sum(1 for x in run if _is_list(x) and len(x) == 0)
    return 0


def _is_list(x: Any) -> bool:
    if isinstance(x, (str, bytes)):
        return False
    if isinstance(x, np.ndarray):
        return x.ndim == 1
    return hasattr(x, "__len__") and hasattr(x, "__iter__") and not isinstance(x, Mapping)


def _check_k(k: int | None, func: str) -> int:
    """The list depth as an int64-compatible number (``None``: the whole list)."""
    if k is None:
        return int(_WHOLE_LIST)
    return int(v.check_number(k, "k", func, integer=True, low=1))


def _exposure(run: Run, depth: int) -> np.ndarray:
    """Number of top-``depth`` lists holding each item code."""
    from .._kernels._lists import _item_counts_csr

    return _item_counts_csr(run.items, run.offsets, depth, len(run.item_ids))


class MeanOverUsers(float):
    """A mean over users: a float that also counts the users it left out.

    Returned by :func:`intra_list_similarity`, :func:`diversity` and
    :func:`novelty`, whose value is undefined for some users (a list of fewer
    than 2 items; no item of the list in the interaction log). It is the float
    itself in every computation; the counts are attributes.

    Attributes
    ----------
    n_users : int
        Users (lists) given.
    n_users_skipped : int
        Users left out of the mean because their value is undefined.

    Examples
    --------
    >>> from receval import intra_list_similarity
    >>> ils = intra_list_similarity([["a", "b"], ["c"]], similarity=lambda a, b: 0.5)
    >>> ils, ils.n_users, ils.n_users_skipped
    (0.5, 2, 1)
    """

    n_users: int
    n_users_skipped: int

    def __new__(cls, value: float, n_users: int, n_users_skipped: int) -> MeanOverUsers:
        self = super().__new__(cls, value)
        self.n_users = n_users
        self.n_users_skipped = n_users_skipped
        return self

    def __repr__(self) -> str:
        return float.__repr__(self)

    def __reduce__(self) -> tuple[Any, ...]:
        return (MeanOverUsers, (float(self), self.n_users, self.n_users_skipped))


def _mean(
    per_user: np.ndarray, func: str, reason: str, complement: bool = False, n_empty: int = 0
) -> float:
    """Mean over users with a defined value (``1 - mean`` with ``complement``), with the
    counts (``n_empty`` users given without items count as skipped); nan and a warning
    when there are none."""
    kept = per_user[~np.isnan(per_user)]
    n, skipped = len(per_user) + n_empty, len(per_user) - kept.size + n_empty
    if kept.size == 0:
        warnings.warn(
            f"{func}: {reason}, so it is undefined (returned as nan).",
            UndefinedMetricWarning,
            stacklevel=3,
        )
        return MeanOverUsers(float("nan"), n, skipped)
    value = float(kept.mean())
    return MeanOverUsers(1.0 - value if complement else value, n, skipped)


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


def _missing_items(run: Run, mask: np.ndarray) -> str:
    ids = run.item_ids[np.flatnonzero(mask)[: v.MAX_SHOWN + 1]]
    n = int(mask.sum())
    return f"{n} {'item' if n == 1 else 'items'} {v.format_values(ids)}"


# ---------------------------------------------------------------- similarity
def _numeric_2d(values: Any, name: str, func: str, *, square: bool = False) -> np.ndarray:
    arr = np.asarray(values)
    if arr.ndim != 2 or (square and arr.shape[0] != arr.shape[1]):
        shape = "square (n_items, n_items)" if square else "2-dimensional (n_items, n_features)"
        raise InputValidationError(
            f"{func}: {name} must be {shape}. Got an array of shape {arr.shape}."
        )
    if arr.dtype not in (np.float32, np.float64):
        arr = v.as_float(arr, name, func)
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
    ids = io.column_array(frame[column])
    others = [c for c in names if c != column]
    if not others:
        return ids, np.empty((len(ids), 0))
    values = np.column_stack([np.asarray(io.column_array(frame[c])) for c in others])
    return ids, values


def _feature_matrix(features: Any, feature_items: Any, func: str) -> tuple[np.ndarray, np.ndarray]:
    """Distinct item ids and a C-contiguous float32/float64 feature matrix."""
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
            f"{func}: feature_items must hold one item id per row of {name}. Got {len(uniques)} "
            f"ids for {n_rows} rows."
        )
    return uniques


def _rows_of_run(run: Run, used: np.ndarray, ids: np.ndarray, name: str, func: str) -> np.ndarray:
    """Row of ``ids`` of each item code of the run; every recommended item needs one."""
    rows = lookup(run.item_ids, ids)
    missing = used & (rows < 0)
    if missing.any():
        raise InputValidationError(
            f"{func}: {name} must have a row for every recommended item. Got none for "
            f"{_missing_items(run, missing)}; add them, or check that feature_items holds "
            f"the run's item ids."
        )
    return rows


def _ils_function(run: Run, depth: int, sim: SimilarityFunction, func: str) -> np.ndarray:
    """ILS with a caller's function, called once per distinct pair of co-listed items."""
    from .._kernels._lists import _pair_keys_csr, _pair_means_csr, n_chunks

    n_items = len(run.item_ids)
    keys, pair_offsets = _pair_keys_csr(run.items, run.offsets, depth, n_items)
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
    return _pair_means_csr(values[inverse], pair_offsets, n_chunks(len(keys)))


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
    from .._kernels import _lists as kern

    depth = _check_k(k, func)
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
    used = _exposure(run, depth) > 0
    chunks = kern.n_chunks(run.n_rows)
    if similarity is not None:
        ids, matrix = _similarity_matrix(similarity, feature_items, func)
        rows = _rows_of_run(run, used, ids, "similarity", func)
        return kern._intra_list_similarity_matrix_csr(
            run.items, run.offsets, depth, rows, matrix, chunks
        )
    ids, feats = _feature_matrix(features, feature_items, func)
    rows = _rows_of_run(run, used, ids, "features", func)
    inv_norm = kern._inverse_norms(feats, rows, used, chunks)
    return kern._intra_list_similarity_csr(
        run.items, run.offsets, depth, rows, feats, inv_norm, chunks
    )


_ILS_UNDEFINED = "every list has fewer than 2 items"


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
    features : array-like of shape (n_items, n_features) or DataFrame, default=None
        Item feature vectors; similarity is their cosine. A pandas DataFrame is
        indexed by item id; a polars DataFrame or Arrow table has an item id
        column (``"item"`` unless ``feature_items`` names another) and
        numeric feature columns.
    feature_items : array-like of shape (n_items,) or str, default=None
        The item id of each row of ``features`` or ``similarity`` (None: the
        row numbers 0, 1, ...); for a DataFrame, the name of its id column.
    similarity : array-like of shape (n_items, n_items), DataFrame or callable, default=None
        Instead of ``features``: a similarity matrix over ``feature_items`` (a
        pandas DataFrame with item ids as index and columns), or a function
        ``sim(item_a, item_b) -> float`` of two item ids.

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
    For a list :math:`L` of :math:`m \\ge 2` items (seed 003),

    .. math:: \\mathrm{ILS}(L) = \\frac{\\sum_{i \\in L} \\sum_{j \\in L, j \\ne i}
              S(i, j)}{m (m - 1)}

    and the result is the unweighted mean over users. With ``features``,
    :math:`S(i, j) = x_i \\cdot x_j / (\\|x_i\\| \\|x_j\\|)`; a zero vector has
    cosine 0 with every item, as in scikit-learn. ``features`` is read in
    place (float32 or float64; no normalised copy): the norm of each
    recommended item is computed once, and each list's vectors are divided by
    their norms into a small float64 buffer for its dot products. Lists longer
    than 32 items use
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
    func = "intra_list_similarity"
    per_user = ils_per_user(
        as_run(run, func),
        k,
        features=features,
        feature_items=feature_items,
        similarity=similarity,
        func=func,
    )
    return _mean(per_user, func, _ILS_UNDEFINED, n_empty=_n_empty_lists(run))


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
    run : Run, mapping, DataFrame or sequence of lists
        The recommendations, as in :func:`intra_list_similarity`.
    k : int, default=None
        Depth of each list; None means the whole list.
    features : array-like of shape (n_items, n_features) or DataFrame, default=None
        Item feature vectors (cosine similarity).
    feature_items : array-like of shape (n_items,) or str, default=None
        Item id of each row of ``features`` or ``similarity``.
    similarity : array-like of shape (n_items, n_items), DataFrame or callable, default=None
        A similarity matrix or function instead of ``features``.

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
    func = "diversity"
    per_user = ils_per_user(
        as_run(run, func),
        k,
        features=features,
        feature_items=feature_items,
        similarity=similarity,
        func=func,
    )
    return _mean(per_user, func, _ILS_UNDEFINED, complement=True, n_empty=_n_empty_lists(run))


# ---------------------------------------------------------------- catalogue
def _catalog_exposure(run: Run, counts: np.ndarray, catalog: Any, func: str) -> np.ndarray:
    """Exposure (lists holding the item) of every catalogue item, zeros included."""
    if catalog is None:
        return counts
    recommended = counts[counts > 0]
    if isinstance(catalog, (int, np.integer)) or isinstance(catalog, (bool, np.bool_)):
        size = v.check_number(catalog, "catalog", func, integer=True, low=1)
        if size < len(recommended):
            raise InputValidationError(
                f"{func}: catalog must be at least the number of distinct recommended items. "
                f"Got catalog={size} for {len(recommended)} recommended items; pass the size "
                f"of the whole catalogue, or its item ids."
            )
        out = np.zeros(size, dtype=np.int64)
        out[: len(recommended)] = recommended
        return out
    ids = v.as_1d(catalog, "catalog", func)
    v.check_not_empty(len(ids), "catalog", func)
    _, uniques = factorize(ids, "catalog", func)
    pos = lookup(run.item_ids, uniques)
    missing = (counts > 0) & (pos < 0)
    if missing.any():
        raise InputValidationError(
            f"{func}: catalog must contain every recommended item. Got "
            f"{_missing_items(run, missing)} that are not in it; add them to the catalog."
        )
    out = np.zeros(len(uniques), dtype=np.int64)
    known = pos >= 0
    out[pos[known]] = counts[known]
    return out


def catalog_coverage(run: RunLike, *, catalog: Any, k: int | None = None) -> float:
    """Compute catalogue coverage: the share of the catalogue recommended to someone.

    Parameters
    ----------
    run : Run, mapping, DataFrame or sequence of lists
        The recommendations, as in :func:`intra_list_similarity`.
    catalog : int or array-like of item ids
        The catalogue: its size, or the ids of its items (duplicates count
        once; every recommended item must be among them). Required: the items
        of the run itself would make the coverage of whole lists 1.
    k : int, default=None
        Depth of each list; None means the whole list.

    Returns
    -------
    coverage : float
        Distinct items in the top-``k`` lists divided by the catalogue size,
        in [0, 1].

    Raises
    ------
    InvalidParameterError
        A bad ``k`` or a catalogue size below 1.
    InputValidationError
        A recommended item missing from the catalogue (the message names up
        to 5), or a catalogue size below the number of recommended items.

    See Also
    --------
    gini_index : How evenly exposure spreads over the catalogue.

    Notes
    -----
    Ge, Delgado-Battenfeld and Jannach's *prediction coverage*, as a fraction
    (recmetrics returns a percentage and its ``catalog_coverage`` samples a
    random subset of the lists; receval uses every list). Microsoft
    Recommenders' ``catalog_coverage`` is the same quantity with the catalogue
    taken from the training data.

    References
    ----------
    .. [1] M. Ge, C. Delgado-Battenfeld and D. Jannach, "Beyond accuracy:
       evaluating recommender systems by coverage and serendipity", RecSys 2010.

    Examples
    --------
    >>> from receval import catalog_coverage
    >>> lists = [["a", "b", "c"], ["a", "d", "b"]]
    >>> catalog_coverage(lists, catalog=["a", "b", "c", "d", "e"])
    0.8
    >>> catalog_coverage(lists, k=1, catalog=10)
    0.1
    """
    func = "catalog_coverage"
    run = as_run(run, func)
    counts = _exposure(run, _check_k(k, func))
    exposure = _catalog_exposure(run, counts, catalog, func)
    return float(np.count_nonzero(exposure) / len(exposure))


def gini_index(run: RunLike, *, k: int | None = None, catalog: Any = None) -> float:
    """Compute the Gini index of item exposure in the top-K lists.

    Exposure of an item is the number of users whose top-``k`` list holds it.
    0 means every catalogue item is recommended equally often; values near 1
    mean a few items take all the exposure. Lower is more even.

    Parameters
    ----------
    run : Run, mapping, DataFrame or sequence of lists
        The recommendations, as in :func:`intra_list_similarity`.
    k : int, default=None
        Depth of each list; None means the whole list.
    catalog : int or array-like of item ids, default=None
        The catalogue: its size or its item ids; items never recommended count
        with exposure 0. None means the items of the run at any depth (so with
        ``k``, items only ranked below ``k`` count as 0).

    Returns
    -------
    gini : float
        Gini index in [0, 1 - 1/n] for a catalogue of n items.

    Raises
    ------
    InvalidParameterError
        A bad ``k`` or a catalogue size below 1.
    InputValidationError
        A recommended item missing from the catalogue, or a catalogue size
        below the number of recommended items.

    See Also
    --------
    catalog_coverage : The share of the catalogue with non-zero exposure.

    Notes
    -----
    With exposures sorted ascending, :math:`c_1 \\le \\dots \\le c_n`,

    .. math:: G = \\frac{\\sum_{j=1}^{n} (2 j - n - 1)\\, c_j}{n \\sum_{j=1}^{n} c_j}

    (RecBole's ``GiniIndex``), which equals the mean absolute difference
    :math:`\\sum_{i, j} |c_i - c_j| / (2 n^2 \\bar c)`. Counts are summed as
    exact integers and divided once.

    References
    ----------
    .. [1] W. X. Zhao et al., "RecBole: Towards a unified, comprehensive and
       efficient framework for recommendation algorithms", CIKM 2021.

    Examples
    --------
    >>> from receval import gini_index
    >>> lists = [["a", "b"], ["a", "c"], ["a", "b"]]
    >>> gini_index(lists)  # exposures 3, 2, 1
    0.2222
    >>> gini_index(lists, catalog=4)  # and one item never shown
    0.4167
    """
    from .._kernels._lists import _gini_sorted

    func = "gini_index"
    run = as_run(run, func)
    counts = _exposure(run, _check_k(k, func))
    exposure = np.sort(_catalog_exposure(run, counts, catalog, func))
    return float(_gini_sorted(exposure))


# ---------------------------------------------------------------- novelty
def _interactions(log: Any, func: str) -> tuple[np.ndarray, np.ndarray, int]:
    """Item ids of an interaction log, the distinct users of each, and the user count."""
    if isinstance(log, (Qrels, Run)):  # (user, item) pairs are distinct by construction
        return log.item_ids, np.bincount(log.items, minlength=len(log.item_ids)), log.n_users
    if io.is_frame(log):
        cols = io.frame_columns(log, {"user": "user", "item": "item"}, func)
        users, items = cols["user"], cols["item"]
    elif isinstance(log, tuple) and len(log) == 2:
        users, items = log
    else:
        raise InputValidationError(
            f"{func}: interactions must be a Qrels, a Run, a DataFrame with columns 'user' "
            f"and 'item', or a tuple (users, items). Got {type(log).__name__}."
        )
    from .._kernels._lists import _distinct_users_per_item

    n = v.check_same_length(func, users=_Sized(users), items=_Sized(items))
    v.check_not_empty(n, "interactions", func)
    user_codes, user_ids = factorize(users, "users", func)
    item_codes, item_ids = factorize(items, "items", func)
    pop = _distinct_users_per_item(user_codes, item_codes, len(user_ids), len(item_ids))
    return item_ids, pop, len(user_ids)


class _Sized:
    def __init__(self, x: Any) -> None:
        self._n = len(x)

    def __len__(self) -> int:
        return self._n


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
    run : Run, mapping, DataFrame or sequence of lists
        The recommendations, as in :func:`intra_list_similarity`.
    interactions : Qrels, Run, DataFrame or tuple (users, items)
        The log that defines popularity: a :class:`~receval.Qrels` or
        :class:`~receval.Run`, a DataFrame with ``user`` and ``item`` columns,
        or a pair of arrays. A (user, item) pair repeated in the log counts
        once; every row of a ``Qrels`` or ``Run`` counts, whatever its grade
        or score.
    k : int, default=None
        Depth of each list; None means the whole list.
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
    from .._kernels._lists import _list_means_csr, n_chunks

    func = "novelty"
    n_empty = _n_empty_lists(run)
    run = as_run(run, func)
    depth = _check_k(k, func)
    v.check_option(unseen, "unseen", func, _UNSEEN)
    log_items, popularity, n_users = _interactions(interactions, func)
    pos = lookup(run.item_ids, log_items)
    absent = pos < 0
    if unseen == "raise":
        missing = absent & (_exposure(run, depth) > 0)
        if missing.any():
            raise InputValidationError(
                f"{func}: interactions must contain every recommended item, whose popularity "
                f"novelty needs. Got {_missing_items(run, missing)} that never occur in it; "
                f"pass unseen='skip' to leave them out of each user's mean."
            )
    info = np.full(len(run.item_ids), np.nan)
    info[~absent] = -np.log2(popularity[pos[~absent]] / n_users)
    per_user = _list_means_csr(info, run.items, run.offsets, depth, n_chunks(run.n_rows))
    return _mean(per_user, func, "no recommended item occurs in interactions", n_empty=n_empty)


# ---------------------------------------------------------------- personalization
def personalization(run: RunLike, *, k: int | None = None) -> float:
    """Compute personalization: 1 - the mean cosine similarity between users' lists.

    Each user's top-``k`` list is a binary vector over items; two users with
    the same items have similarity 1, users with no item in common 0.
    Personalization is 1 minus the mean similarity over all pairs of distinct
    users, so higher means more personal recommendations. It runs in
    O(rows) time and O(items) memory: no users x users matrix.

    Parameters
    ----------
    run : Run, mapping, DataFrame or sequence of lists
        The recommendations, as in :func:`intra_list_similarity`.
    k : int, default=None
        Depth of each list; None means the whole list.

    Returns
    -------
    personalization : float
        In [0, 1]; nan with an ``UndefinedMetricWarning`` for a single user.

    Raises
    ------
    InvalidParameterError
        A bad ``k``.

    See Also
    --------
    intra_list_similarity : Similarity inside one list.

    Notes
    -----
    With :math:`x_{ui} = 1` when item :math:`i` is in the list :math:`L_u` of
    :math:`n_u` items and :math:`U` users,
    :math:`\\cos(L_u, L_v) = |L_u \\cap L_v| / \\sqrt{n_u n_v}` and

    .. math:: \\sum_{u \\ne v} \\cos(L_u, L_v) = \\sum_i \\Big[\\Big(\\sum_u
              \\frac{x_{ui}}{\\sqrt{n_u}}\\Big)^2 - \\sum_u \\frac{x_{ui}}{n_u}\\Big]

    so one pass over the lists gives
    :math:`1 - \\sum_{u \\ne v} \\cos(L_u, L_v) / (U (U - 1))`: recmetrics'
    ``personalization`` (1 minus the mean off-diagonal cosine similarity of the
    user x item matrix) without its O(U²) similarity matrix.

    Examples
    --------
    >>> from receval import personalization
    >>> personalization([["a", "b"], ["a", "c"], ["d", "e"]])  # cosines 1/2, 0, 0
    0.8333
    >>> personalization([["a", "b"], ["b", "a"]])
    0.0
    """
    from .._kernels._lists import _personalization_csr

    func = "personalization"
    run = as_run(run, func)
    depth = _check_k(k, func)
    n = run.n_users
    if n < 2:
        return float(_mean(np.array([np.nan]), func, "the run has a single user"))
    total = _personalization_csr(run.items, run.offsets, depth, len(run.item_ids))
    return float(1.0 - total / (n * (n - 1.0)))

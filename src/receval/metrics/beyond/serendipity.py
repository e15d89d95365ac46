"""Serendipity: relevant recommendations unlike what the user knew, or unlike what is popular.

Two definitions, as their peers compute them: Microsoft Recommenders'
(:func:`user_item_serendipity`, :func:`user_serendipity`, :func:`serendipity`:
one minus an item's mean similarity to the user's history) and RecTools'
(:func:`popularity_serendipity`: how much higher an item is ranked for the user
than its popularity rank, for relevant items). :func:`intersection` compares
two runs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import _validation as v
from ..._kernels import compiled
from ...data._encode import factorize
from ...data._lookup import distinct
from ...data._ranked import Run, as_qrels
from ...exceptions import InputValidationError
from .diversity import feature_matrix
from .history import (
    InteractionLog,
    block_means,
    codes_in,
    list_positions,
    pair_grades,
    read_log,
    run_user_codes,
    top_k_mask,
)
from .lists import (
    RunLike,
    as_run,
    catalog_size,
    check_k,
    document,
    mean_over_users,
    user_chunks,
)

__all__ = [
    "popularity_serendipity",
    "serendipity",
    "user_item_serendipity",
    "user_serendipity",
]


# ---------------------------------------------------------------- similarity to the history
def _gather(offsets: np.ndarray, segments: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Positions of the CSR ``segments`` concatenated, and the segment of each."""
    return _ranges(offsets[segments], offsets[segments + 1])


def _ranges(starts: np.ndarray, stops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The positions ``starts[r] .. stops[r] - 1`` of every range ``r`` concatenated, and
    the range of each."""
    lengths = stops - starts
    seg = np.repeat(np.arange(len(starts)), lengths)
    first = np.cumsum(lengths) - lengths
    return np.repeat(starts - first, lengths) + np.arange(int(lengths.sum())), seg


def _similarities(counts: np.ndarray, n_i: np.ndarray, n_j: np.ndarray) -> np.ndarray:
    """The co-occurrence cosine ``c_ij / sqrt(n_i n_j)`` of item pairs, each from its
    own counts (exact integers: 1 where both items have the same users)."""
    result: np.ndarray = counts / np.sqrt(n_i * n_j)
    return result


#: "auto" (the cheaper of the two for the input), "pairs" or "users": how the
#: co-occurrence sums are taken (the values are the same; tests run both).
COOCCURRENCE_METHOD = "auto"
# largest number of (item, item) pairs counted or looked up at once
_PAIR_CHUNK = 1 << 22


class _History:
    """The distinct (user, item) pairs of a log, by user (CSR) and by item (CSC)."""

    def __init__(self, log: InteractionLog) -> None:
        self.users, self.items = log.distinct_pairs()  # sorted by user
        self.n_items = log.n_items
        self.user_off = np.searchsorted(self.users, np.arange(log.n_users + 1))
        by_item = np.argsort(self.items, kind="stable")
        self.item_users = self.users[by_item]
        self.item_off = np.searchsorted(self.items[by_item], np.arange(log.n_items + 1))
        self.n_users_of = np.diff(self.item_off).astype(np.float64)

    def user_lengths(self, users: np.ndarray) -> np.ndarray:
        result: np.ndarray = self.user_off[users + 1] - self.user_off[users]
        return result


def _chunks(sizes: np.ndarray) -> list[tuple[int, int]]:
    """Consecutive ranges of elements whose sizes add up to about ``_PAIR_CHUNK``."""
    ends = np.cumsum(sizes)
    cuts = np.searchsorted(
        ends, np.arange(_PAIR_CHUNK, int(ends[-1]) if len(ends) else 0, _PAIR_CHUNK)
    )
    bounds = distinct(np.concatenate([[0], cuts + 1, [len(sizes)]]).clip(0, len(sizes)))
    return list(zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True))


def _cooccurrence_means(
    log: InteractionLog, hist_users: np.ndarray, log_items: np.ndarray, row_user: np.ndarray
) -> np.ndarray:
    """Mean co-occurrence cosine of each row's item (``log_items``, -1: not in the log)
    with the items of its user's history (``hist_users[row_user]``, log user codes).

    Two ways to the same sums: through the pairs of items of each history of the
    log that holds a recommended item (cost: their number), or through the users
    who share an item with each run user (cost: the users of each history item);
    the cheaper is taken. Both sum the same similarities, one per pair (i, j) with
    c_ij > 0, in the order of j's code, and divide once by the history length: the
    same floats either way, and exactly 1 (a serendipity of exactly 0) where every
    similarity is 1."""
    h = _History(log)
    known = np.flatnonzero(log_items >= 0)
    out = np.zeros(len(row_user))
    if known.size == 0:
        return out
    method = COOCCURRENCE_METHOD
    if method == "auto":
        recommended = np.zeros(h.n_items, dtype=bool)
        recommended[log_items[known]] = True
        left = recommended[h.items]
        pair_cost = int(h.user_lengths(h.users[left]).sum())
        n_users_of = np.diff(h.item_off)
        per_user = np.bincount(h.users, weights=n_users_of[h.items], minlength=len(h.user_off) - 1)
        user_cost = int(per_user[distinct(hist_users[row_user])].sum())
        method = "pairs" if pair_cost <= user_cost else "users"
    if method == "pairs":
        out[known] = _by_pairs(h, hist_users[row_user[known]], log_items[known])
    else:
        _by_users(h, hist_users, log_items, row_user, out)
    return out


def _by_pairs(h: _History, users: np.ndarray, items: np.ndarray) -> np.ndarray:
    """For rows (history user, item): sum_j c_ij / sqrt(n_i n_j) over the user's items,
    over the history length; c_ij counted over the log's histories."""
    recommended = np.zeros(h.n_items, dtype=bool)
    recommended[items] = True
    left = np.flatnonzero(recommended[h.items])  # log rows (v, i) with i recommended
    keys_parts, count_parts = [], []
    sizes = h.user_lengths(h.users[left])
    for a, b in _chunks(sizes):
        pos, seg = _gather(h.user_off, h.users[left[a:b]])
        keys = h.items[left[a:b]][seg].astype(np.int64) * h.n_items + h.items[pos]
        k, c = np.unique(keys, return_counts=True)
        keys_parts.append(k)
        count_parts.append(c)
    keys, counts = np.concatenate(keys_parts), np.concatenate(count_parts)
    if len(keys_parts) > 1:
        keys, inverse = np.unique(keys, return_inverse=True)
        counts = np.bincount(inverse, weights=counts)
    out = np.empty(len(users))
    for a, b in _chunks(h.user_lengths(users)):
        pos, seg = _gather(h.user_off, users[a:b])
        j = h.items[pos]
        wanted = items[a:b][seg].astype(np.int64) * h.n_items + j
        # the binary search of ascending keys reuses its last bounds: sorted, it stays
        # in the cache (a random order misses it on every key)
        order = np.argsort(wanted)
        at = np.empty(len(wanted), dtype=np.int64)
        at[order] = np.searchsorted(keys, wanted[order])
        at = np.minimum(at, len(keys) - 1)
        c = np.where(keys[at] == wanted, counts[at], 0.0)
        sims = _similarities(c, h.n_users_of[items[a:b]][seg], h.n_users_of[j])
        sums = np.bincount(seg, weights=sims, minlength=b - a)
        out[a:b] = sums / h.user_lengths(users[a:b])
    return out


def _by_users(
    h: _History,
    hist_users: np.ndarray,
    log_items: np.ndarray,
    row_user: np.ndarray,
    out: np.ndarray,
) -> None:
    """The same sums, one run user at a time, through the users who share an item:
    c_ij counts the (user, j) pairs of the history items' users that a user of i is in."""
    order = np.argsort(row_user, kind="stable")
    bounds = np.searchsorted(row_user[order], np.arange(len(hist_users) + 1))
    for u in np.flatnonzero(np.diff(bounds)):
        rows = order[bounds[u] : bounds[u + 1]]
        history = h.items[h.user_off[hist_users[u]] : h.user_off[hist_users[u] + 1]]
        pos, held = _gather(h.item_off, history)
        by_holder = np.argsort(h.item_users[pos], kind="stable")
        holders, held = h.item_users[pos][by_holder], held[by_holder]
        known = rows[log_items[rows] >= 0]
        items = log_items[known]
        pos, row = _gather(h.item_off, items)
        users_of_i = h.item_users[pos]
        at, pair = _ranges(
            np.searchsorted(holders, users_of_i, "left"),
            np.searchsorted(holders, users_of_i, "right"),
        )
        keys, c = np.unique(row[pair] * len(history) + held[at], return_counts=True)
        i_row, j = keys // len(history), history[keys % len(history)]
        sims = _similarities(c.astype(np.float64), h.n_users_of[items[i_row]], h.n_users_of[j])
        out[known] = np.bincount(i_row, weights=sims, minlength=len(items)) / len(history)


def _feature_table(features: Any, feature_items: Any, func: str) -> tuple[np.ndarray, np.ndarray]:
    """Item ids and float64 rows of the item features, read as
    :func:`intra_list_similarity` reads them; each row divided by the power of two at
    or above its largest absolute value: exactly (no cosine changes) and so that no
    squared norm overflows or underflows."""
    ids, matrix = feature_matrix(features, feature_items, func)
    matrix = np.asarray(matrix, dtype=np.float64)
    exponents = np.frexp(np.abs(matrix).max(axis=1, initial=0.0))[1]
    return ids, np.ascontiguousarray(np.ldexp(matrix, -exponents[:, None]))


def _feature_rows(
    ids: np.ndarray, table: np.ndarray, used: np.ndarray, what: str, func: str
) -> np.ndarray:
    rows = codes_in(ids, table)
    missing = used & (rows < 0)
    if missing.any():
        shown = v.format_values(ids[np.flatnonzero(missing)])
        raise InputValidationError(
            f"{func}: features must have a row for every {what}. Got none for "
            f"{v.counted(int(missing.sum()), 'item')} {shown}; add them, or check that "
            f"feature_items holds their ids."
        )
    return rows


def _feature_means(
    log: InteractionLog,
    hist_users: np.ndarray,
    run_item_ids: np.ndarray,
    row_items: np.ndarray,
    row_user: np.ndarray,
    features: Any,
    feature_items: Any,
    func: str,
) -> np.ndarray:
    """Mean feature cosine of each row's item with the items of its user's history
    (``hist_users[row_user]``), one cosine per pair from its own dot products
    (:func:`receval._core.history_cosine_means`): exactly 1 for two equal vectors,
    the same float for ``(i, j)`` and ``(j, i)``, added in the order of the history
    items' codes and divided once by the history length."""
    ids, matrix = _feature_table(features, feature_items, func)
    h = _History(log)
    pos, _ = _gather(h.user_off, hist_users)
    held = h.items[pos]  # the histories of hist_users, one after another
    used_log = np.zeros(log.n_items, dtype=bool)
    used_log[held] = True
    log_rows = _feature_rows(log.item_ids, ids, used_log, "item of a history", func)
    used_run = np.zeros(len(run_item_ids), dtype=bool)
    used_run[row_items] = True
    run_rows = _feature_rows(run_item_ids, ids, used_run, "recommended item", func)
    lengths = h.user_lengths(hist_users)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    result: np.ndarray = compiled().history_cosine_means(
        matrix,
        run_rows[row_items].astype(np.int32),
        row_user.astype(np.int32),
        offsets,
        log_rows[held].astype(np.int32),
        user_chunks(len(row_user)),
    )
    return result


def _serendipity_rows(
    run: Run,
    train: Any,
    k: int | None,
    features: Any,
    feature_items: Any,
    qrels: Any,
    rel_threshold: float,
    func: str,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(run user code, item code, serendipity) of each top-``k`` row of a user with a
    history, and whether each run user has a history (``train``: any accepted log, or
    an :class:`~receval.metrics.beyond.history.InteractionLog`)."""
    depth = check_k(k, func)
    v.check_number(rel_threshold, "rel_threshold", func)
    log = read_log(train, "train", func)
    hist_of_user = codes_in(run.user_ids, log.user_ids)
    has_history = hist_of_user >= 0
    mask = top_k_mask(run, depth) & has_history[run_user_codes(run)]
    row_user, row_items = run_user_codes(run)[mask], np.asarray(run.items)[mask]
    hist_users, compact = hist_of_user[has_history], (np.cumsum(has_history) - 1)[row_user]
    if features is None:
        log_items = codes_in(run.item_ids, log.item_ids)[row_items]
        mean_sim = _cooccurrence_means(log, hist_users, log_items, compact)
    else:
        mean_sim = _feature_means(
            log, hist_users, run.item_ids, row_items, compact, features, feature_items, func
        )
    values = 1.0 - mean_sim
    if qrels is not None:
        grades = pair_grades(as_qrels(qrels, func), run.user_ids, run.item_ids, row_user, row_items)
        values = values * (grades >= rel_threshold)
    return row_user, row_items, values, has_history


#: the Parameters of user_item_serendipity, user_serendipity and serendipity
_PARAMETERS = """run : Run, mapping, DataFrame or sequence of lists
        The recommendations, as in :func:`intra_list_similarity` (lists are
        users 0, 1, ... of ``train``).
    train : Qrels, Run, DataFrame, tuple (users, items) or mapping
        The users' earlier interactions (their history): a
        :class:`~receval.Qrels` or :class:`~receval.Run` (every row counts), a
        DataFrame with ``user`` and ``item`` columns, a pair of arrays, or
        ``{user: items}``. A repeated (user, item) pair counts once.
    {depth}
    features : array-like of shape (n_items, n_features), DataFrame or mapping, default=None
        Item feature vectors, as :func:`intra_list_similarity` reads them
        (``{item: vector}`` too); similarity is their cosine (a zero vector has
        cosine 0). None: the co-occurrence cosine in ``train``.
    feature_items : array-like of shape (n_items,) or str, default=None
        The item id of each row of ``features`` (None: row numbers 0, 1, ...);
        for a DataFrame, the name of its id column.
    qrels : Qrels, mapping or DataFrame, default=None
        Relevance of the recommended items: an item counts when its grade is
        at least ``rel_threshold`` and weighs 0 otherwise. None: every
        recommended item counts (Recommenders' default relevance of 1).
    rel_threshold : float, default=1
        Lowest grade of a relevant item, with ``qrels``."""


@document(parameters=_PARAMETERS)
def user_item_serendipity(
    run: RunLike,
    train: Any,
    *,
    k: int | None = None,
    features: Any = None,
    feature_items: Any = None,
    qrels: Any = None,
    rel_threshold: float = 1,
) -> dict[Any, dict[Any, float]]:
    """Compute the serendipity of each recommended item for its user.

    An item is serendipitous for a user when it is unlike the items in the
    user's history: its value is one minus its mean similarity to them, times
    its relevance (1 without ``qrels``).

    Parameters
    ----------
    {parameters}

    Returns
    -------
    values : dict
        ``{user: {item: serendipity}}`` for the top-``k`` items of every
        user with a history; users without one are left out.

    Raises
    ------
    InvalidParameterError
        A bad ``k`` or ``rel_threshold``.
    InputValidationError
        A malformed ``train`` or ``qrels``; an item without a feature row.

    See Also
    --------
    user_serendipity, serendipity : Its means per user and over users.

    Notes
    -----
    With :math:`H_u` the distinct items of user :math:`u` in ``train``,

    .. math:: \\mathrm{ser}(u, i) = \\Big(1 - \\frac{1}{|H_u|} \\sum_{j \\in H_u}
              S(i, j)\\Big)\\, \\mathrm{rel}(u, i)

    (Zhang et al. 2012; Microsoft Recommenders' ``user_item_serendipity``).
    The default :math:`S(i, j) = c_{ij} / \\sqrt{n_i n_j}` counts the users of
    ``train`` who have both items (:math:`c_{ij}`) or each (:math:`n_i`); an
    item absent from ``train`` has similarity 0 to everything. Each
    :math:`S(i, j)` is rounded once from its integer counts (exactly 1 where
    both items have the same users) and the sum is taken in float64: a value
    within :math:`(|H_u| + 3) \\cdot 2^{-53}` of the exact one, and exactly 0
    for an item whose similarity to every history item is 1. With
    ``features``, :math:`S(i, j) = x_i \\cdot x_j / \\sqrt{\\|x_i\\|^2
    \\|x_j\\|^2}`, each pair's from its own dot products taken in one fixed
    order (on each vector scaled by a power of two, which changes no cosine
    and keeps the squares finite): exactly 1 for equal vectors, the same float
    for :math:`(i, j)` and :math:`(j, i)`, and for float32 or float64
    features. Recommenders refuses a recommended item that is already in the
    user's history; receval computes it (its similarity to itself is 1, so an
    item that is the user's whole history has serendipity exactly 0).

    References
    ----------
    .. [1] Y. C. Zhang, D. Ó Séaghdha, D. Quercia and T. Jambor, "Auralist:
       introducing serendipity into music recommendation", WSDM 2012.

    Examples
    --------
    >>> from receval import user_item_serendipity
    >>> train = {"u1": ["a", "b"], "u2": ["a", "c"]}
    >>> user_item_serendipity({"u1": {"c": 0.9, "d": 0.5}}, train)  # S(c, a) = 1/sqrt(2)
    {'u1': {'c': 0.6464..., 'd': 1.0}}
    """
    func = "user_item_serendipity"
    run = as_run(run, func)
    users, items, values, _ = _serendipity_rows(
        run, train, k, features, feature_items, qrels, rel_threshold, func
    )
    out: dict[Any, dict[Any, float]] = {}
    for u, i, x in zip(
        run.user_ids[users].tolist(), run.item_ids[items].tolist(), values.tolist(), strict=True
    ):
        out.setdefault(u, {})[i] = x
    return out


def serendipity_per_user(
    run: Run,
    train: Any,
    k: int | None,
    *,
    features: Any = None,
    feature_items: Any = None,
    func: str = "serendipity",
    average_ties: bool = False,
) -> np.ndarray:
    """Serendipity of each run user (relevance 1): float64 array of shape
    (run.n_users,), nan for users without a history; what ``evaluate`` reports as
    ``"serendipity@k"``. ``average_ties``: the expected value over every order of
    tied scores in the top ``k`` (exact: a mean of one value per item, each position
    of a tied block holding the block's mean)."""
    if not average_ties or k is None:
        users, _, values, has_history = _serendipity_rows(
            run, train, k, features, feature_items, None, 1, func
        )
        return _per_user(run, users, values, has_history)
    depth = check_k(k, func)
    users, _, values, has_history = _serendipity_rows(
        run, train, None, features, feature_items, None, 1, func
    )
    row_users = run_user_codes(run)
    rows = np.flatnonzero(has_history[row_users])  # the rows _serendipity_rows kept
    full = np.zeros(run.n_rows)
    full[rows] = values
    full = block_means(run.offsets, run.scores, full)
    keep = rows[top_k_mask(run, depth)[rows]]
    return _per_user(run, row_users[keep], full[keep], has_history)


def _per_user(
    run: Run, users: np.ndarray, values: np.ndarray, has_history: np.ndarray
) -> np.ndarray:
    """Mean of each run user's values; nan for users without a history."""
    sums = np.bincount(users, weights=values, minlength=run.n_users)
    counts = np.bincount(users, minlength=run.n_users)
    return np.where(has_history & (counts > 0), sums / np.maximum(counts, 1), np.nan)


@document(parameters=_PARAMETERS)
def user_serendipity(
    run: RunLike,
    train: Any,
    *,
    k: int | None = None,
    features: Any = None,
    feature_items: Any = None,
    qrels: Any = None,
    rel_threshold: float = 1,
) -> dict[Any, float]:
    """Compute each user's serendipity: the mean of its items' serendipity.

    Parameters
    ----------
    {parameters}

    Returns
    -------
    values : dict
        ``{user: serendipity}`` for every user of the run with a history.

    Raises
    ------
    InvalidParameterError
        A bad ``k`` or ``rel_threshold``.
    InputValidationError
        As :func:`user_item_serendipity`.

    See Also
    --------
    user_item_serendipity : The values averaged here, and their definition.
    serendipity : The mean over users.

    Examples
    --------
    >>> from receval import user_serendipity
    >>> train = {"u1": ["a", "b"], "u2": ["a", "c"]}
    >>> user_serendipity({"u1": {"c": 0.9, "d": 0.5}, "u3": {"a": 1.0}}, train)
    {'u1': 0.8232}
    """
    func = "user_serendipity"
    run = as_run(run, func)
    users, _, values, has_history = _serendipity_rows(
        run, train, k, features, feature_items, qrels, rel_threshold, func
    )
    per_user = _per_user(run, users, values, has_history)
    kept = np.flatnonzero(~np.isnan(per_user))
    return dict(zip(run.user_ids[kept].tolist(), per_user[kept].tolist(), strict=True))


@document(parameters=_PARAMETERS)
def serendipity(
    run: RunLike,
    train: Any,
    *,
    k: int | None = None,
    features: Any = None,
    feature_items: Any = None,
    qrels: Any = None,
    rel_threshold: float = 1,
) -> float:
    """Compute serendipity: how unlike the users' histories their lists are, over users.

    The mean over users of :func:`user_serendipity`: each recommended item
    scores one minus its mean similarity to the items the user interacted
    with (times its relevance, with ``qrels``); users without a history
    in ``train`` are skipped and counted.

    Parameters
    ----------
    {parameters}

    Returns
    -------
    serendipity : MeanOverUsers
        In [0, 1] for non-negative similarities (the co-occurrence cosine);
        nan with an ``UndefinedMetricWarning`` when no user of the run has
        both a history and a recommended item. A float, with the number of
        users and of users skipped as ``n_users`` and ``n_users_skipped``.

    Raises
    ------
    InvalidParameterError
        A bad ``k`` or ``rel_threshold``.
    InputValidationError
        As :func:`user_item_serendipity`.

    See Also
    --------
    user_item_serendipity : The definition, per item.
    popularity_serendipity : RecTools' serendipity, against item popularity.

    Notes
    -----
    Microsoft Recommenders' ``serendipity`` (item co-occurrence cosine by
    default, ``item_feature_vector`` with ``features``), on each user's
    top-``k`` list. No item x item matrix is built: the co-occurrence counts
    are taken only for the (recommended item, history item) pairs needed,
    from the item pairs of the histories that hold a recommended item, or,
    when that is cheaper (users with very long histories), through the users
    who share an item with each run user.

    Examples
    --------
    >>> from receval import serendipity
    >>> train = {"u1": ["a", "b"], "u2": ["a", "c"]}
    >>> run = {"u1": {"c": 0.9, "d": 0.5}, "u2": {"b": 0.8}}
    >>> serendipity(run, train)
    0.7348
    >>> serendipity(run, train, k=1)
    0.6464
    """
    func = "serendipity"
    run = as_run(run, func)
    users, _, values, has_history = _serendipity_rows(
        run, train, k, features, feature_items, qrels, rel_threshold, func
    )
    per_user = _per_user(run, users, values, has_history)
    return mean_over_users(
        per_user, func, "no user of the run has both a history in train and a recommended item"
    )


# ---------------------------------------------------------------- RecTools
def _catalog_size(catalog: Any, held: np.ndarray, func: str) -> int:
    """The catalogue's size, which must hold the items ``held`` (the recommended
    items and those of ``train``: a smaller catalogue gives negative probabilities)."""
    what = "every recommended item and every item of train"
    size = catalog_size(catalog, func)
    if size is not None:
        n_held = len(factorize(held, "items", func)[1])
        if size < n_held:
            raise InputValidationError(
                f"{func}: catalog must hold {what}. Got catalog={size} for "
                f"{v.counted(n_held, 'such item')}; pass the size of the whole catalogue, or "
                f"its item ids."
            )
        return size
    ids = v.as_1d(catalog, "catalog", func)
    v.check_not_empty(len(ids), "catalog", func)
    uniques = factorize(ids, "catalog", func)[1]
    missing = distinct(held[codes_in(held, uniques) < 0])
    if len(missing):
        raise InputValidationError(
            f"{func}: catalog must contain {what}. Got "
            f"{v.counted(len(missing), 'item')} {v.format_values(missing)} that are not in "
            f"it; add them to the catalog."
        )
    return len(uniques)


@document()
def popularity_serendipity(
    run: RunLike,
    qrels: Any,
    train: Any,
    *,
    catalog: Any,
    k: int | None = None,
    rel_threshold: float = 1,
) -> float:
    """Compute RecTools' serendipity: relevant items ranked above their popularity rank.

    An item at position ``r`` of a user's list is recommended with
    probability ``(N + 1 - r) / N`` to that user, and with probability
    ``(N + 1 - p) / N`` to anyone, ``p`` being its popularity rank in
    ``train`` (``N``: the catalogue size). The positive part of the
    difference, for relevant items only, is averaged over the user's top-``k``
    items, then over users.

    Parameters
    ----------
    {run}
    qrels : Qrels, mapping or DataFrame
        The held-out interactions: an item is relevant when its grade is at
        least ``rel_threshold``.
    train : Qrels, Run, DataFrame, tuple (users, items) or mapping
        The earlier interactions that define popularity, as in
        :func:`serendipity`. Every row counts (a repeated pair counts again).
    catalog : int or array-like of item ids
        The catalogue: its size ``N``, or the ids of its items. It holds
        every recommended item and every item of ``train``.
    {depth}
    rel_threshold : float, default=1
        Lowest grade of a relevant item.

    Returns
    -------
    serendipity : MeanOverUsers
        Mean over the users of the run, in [0, 1]; users absent from
        ``qrels`` count with 0. A float, with ``n_users`` and
        ``n_users_skipped`` (users given as an empty list).

    Raises
    ------
    InvalidParameterError
        A bad ``k``, ``catalog`` size or ``rel_threshold``.
    InputValidationError
        A malformed ``qrels`` or ``train``, an empty catalogue, a catalogue
        without a recommended item or an item of ``train`` (or smaller than
        their number).

    See Also
    --------
    serendipity : Microsoft Recommenders' serendipity, against the user's history.

    Notes
    -----
    For user :math:`u` with top-``k`` list :math:`L_u`,

    .. math:: \\frac{1}{|L_u|} \\sum_{i \\in L_u} \\max\\Big(\\frac{N + 1 - r_i}{N}
              - \\frac{N + 1 - p_i}{N}, 0\\Big)\\, \\mathrm{rel}(u, i)

    where :math:`r_i` is the position of :math:`i` and :math:`p_i` the dense
    rank of its number of rows in ``train`` (1: the most frequent; equal
    counts share a rank); an item absent from ``train`` has probability 0 of
    being recommended to anyone. As RecTools' ``Serendipity``, which divides
    by the number of items of the top-``k`` list (its docstring's formula
    divides by ``k``: the same for full lists). RecTools cuts lists at the
    value of a rank column (equal ranks are all kept); receval at the ``k``-th
    position of the ranked list.

    Examples
    --------
    >>> from receval import popularity_serendipity
    >>> train = {"u1": ["i1", "i2"], "u2": ["i1", "i2"], "u3": ["i1"]}
    >>> qrels = {"u2": {"i2": 1, "i3": 1}, "u4": {"i2": 1}}
    >>> run = {"u2": {"i2": 2.0, "i3": 1.0}, "u4": {"i2": 2.0, "i3": 1.0}}
    >>> popularity_serendipity(run, qrels, train, catalog=["i1", "i2", "i3", "i4"])
    0.3125
    """
    func = "popularity_serendipity"
    run = as_run(run, func)
    depth = check_k(k, func)
    v.check_number(rel_threshold, "rel_threshold", func)
    log = read_log(train, "train", func)
    judged = as_qrels(qrels, func)
    counts = np.bincount(log.items, minlength=log.n_items)
    levels = distinct(counts)[::-1]  # descending
    pop_rank = np.searchsorted(-levels, -counts) + 1.0
    mask = top_k_mask(run, depth)
    users, items = run_user_codes(run)[mask], np.asarray(run.items)[mask]
    held = np.concatenate([run.item_ids[distinct(items)], log.item_ids]).astype(object)
    size = _catalog_size(catalog, held, func)
    position = list_positions(run.offsets)[mask]
    log_items = codes_in(run.item_ids, log.item_ids)[items]
    p_user = (size - position) / size  # position is 0-based: (N + 1 - r) / N
    p_any = np.where(log_items >= 0, (size + 1 - pop_rank[log_items]) / size, 0.0)
    relevant = pair_grades(judged, run.user_ids, run.item_ids, users, items) >= rel_threshold
    values = np.maximum(p_user - p_any, 0.0) * relevant
    per_user = _per_user(run, users, values, np.ones(run.n_users, dtype=bool))
    return mean_over_users(per_user, func, "the run has no recommendation")

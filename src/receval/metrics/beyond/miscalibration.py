"""Miscalibration of lists (Steck 2018): how far a list's categories are from the user's.

Not to be confused with the calibration of predicted probabilities
(:mod:`receval.metrics._calibration`): here a list is calibrated when its
categories (genres, topics) come in the proportions of the user's history.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from ... import _validation as v
from ...data import io
from ...data._encode import factorize
from ...data._lookup import distinct
from ...data._ranked import Run
from ...exceptions import InputValidationError, InvalidParameterError
from .history import codes_in, read_log, run_user_codes, top_k_mask
from .lists import RunLike, as_run, check_k, document, mean_over_users

__all__ = ["miscalibration"]


def _category_rows(item_categories: Any, func: str) -> tuple[Any, Any, Any]:
    """The items, categories and weights of the (item, category, weight) rows of the
    accepted shapes: lists of a mapping's, a frame's columns as they are (ids) and
    as NumPy (weights)."""
    name = "item_categories"
    if isinstance(item_categories, Mapping):
        items: list[Any] = []
        cats: list[Any] = []
        weights: list[float] = []
        for item, held in item_categories.items():
            if isinstance(held, Mapping):
                pairs = list(held.items())
            elif isinstance(held, (str, bytes)) or not hasattr(held, "__iter__"):
                pairs = [(held, 1.0)]
            else:
                pairs = [(g, 1.0) for g in held]
            items += [item] * len(pairs)
            cats += [g for g, _ in pairs]
            weights += [w for _, w in pairs]
        return items, cats, weights
    if io.is_frame(item_categories):
        arrow = io.module_of(item_categories) == "pyarrow"
        names = item_categories.schema.names if arrow else item_categories.columns
        roles = {"item": "item", "category": "category"}
        roles |= {"weight": "weight"} if "weight" in names else {}
        cols = io.frame_columns(item_categories, roles, func)
        n = len(cols["item"])
        if "weight" not in cols:
            return cols["item"], cols["category"], np.ones(n)
        return cols["item"], cols["category"], v.as_1d(cols["weight"], f"{name}['weight']", func)
    raise InputValidationError(
        f"{func}: {name} must be a mapping {{item: categories}} (a list of categories, or "
        f"{{category: weight}}) or a DataFrame with columns 'item', 'category' and optionally "
        f"'weight'. Got {type(item_categories).__name__}."
    )


def _category_table(item_categories: Any, func: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Item ids, and for each row of the table of positive weight its item code,
    category code and weight p(g|i) (each item's weights sum to 1)."""
    items, cats, weights = _category_rows(item_categories, func)
    w = np.asarray(weights, dtype=np.float64)
    v.check_not_empty(len(w), "item_categories", func)
    v.check_finite(w, "item_categories weights", func)
    if (w < 0).any():
        raise InputValidationError(
            f"{func}: item_categories weights must be non-negative. Got "
            f"{v.format_values(w[w < 0])}."
        )
    item_codes, item_ids = factorize(items, "item_categories items", func)
    cat_codes, _ = factorize(cats, "item_categories categories", func)
    totals = np.bincount(item_codes, weights=w, minlength=len(item_ids))
    if (totals <= 0).any():
        bad = item_ids[totals <= 0]
        raise InputValidationError(
            f"{func}: item_categories must give every item a positive total weight. Got 0 "
            f"for items {v.format_values(bad)}."
        )
    keep = w > 0  # a category of weight 0 is not one of the item's (p(g|i) = 0)
    codes = np.stack([item_codes[keep], cat_codes[keep]]).astype(np.int64)
    return item_ids, codes, w[keep] / totals[item_codes[keep]]


def _distribution(
    users: np.ndarray, items: np.ndarray, n_users: int, table: tuple[np.ndarray, np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """Sorted keys ``user * n_categories + category`` and their probability: the mean of
    the items' category distributions, per user (uniform item weights)."""
    codes, weights = table
    n_cat = int(codes[1].max()) + 1
    order = np.argsort(codes[0], kind="stable")
    by_item = codes[:, order]
    offsets = np.searchsorted(by_item[0], np.arange(int(by_item[0].max()) + 2))
    lengths = offsets[items + 1] - offsets[items]
    starts = np.repeat(offsets[items] - (np.cumsum(lengths) - lengths), lengths)
    pos = order[starts + np.arange(int(lengths.sum()))]
    row_user = np.repeat(users, lengths)
    n_items = np.bincount(users, minlength=n_users)
    keys = row_user * n_cat + codes[1][pos]
    uniq, inverse = np.unique(keys, return_inverse=True)
    mass = np.bincount(inverse, weights=weights[pos] / n_items[row_user])
    return uniq, mass


@document()
def miscalibration(
    run: RunLike,
    train: Any,
    *,
    item_categories: Any,
    k: int | None = None,
    alpha: float = 0.01,
) -> float:
    """Compute Steck's miscalibration: the KL divergence of a list's categories from the user's.

    For each user, p(g|u) is the distribution of categories over the items of
    the user's history and q(g|u) over the top-``k`` list; the miscalibration
    is the Kullback-Leibler divergence of q, smoothed towards p, from p. 0
    means the list has the history's proportions; lower is better. Users
    without a history in ``train`` are skipped and counted.

    Parameters
    ----------
    run : Run, mapping, DataFrame or sequence of lists
        The recommendations, as in :func:`intra_list_similarity` (lists are
        users 0, 1, ... of ``train``).
    train : Qrels, Run, DataFrame, tuple (users, items) or mapping
        The users' histories, as in :func:`serendipity`: a repeated (user,
        item) pair counts once.
    item_categories : mapping or DataFrame
        The categories of each item: ``{item: [categories]}`` (uniform
        p(g|i) over them), ``{item: {category: weight}}`` (weights normalised
        per item), or a DataFrame with ``item`` and ``category`` columns and
        optionally ``weight``. Every item of a history or of a top-``k`` list
        needs one.
    {depth}
    alpha : float, default=0.01
        Smoothing in [0, 1): q is replaced by (1 - alpha) q + alpha p, so that
        the divergence is finite when the list misses a category of the
        history (Steck's choice of 0.01); with 0 such a user's value is inf.

    Returns
    -------
    miscalibration : MeanOverUsers
        Mean over users with a history and a recommended item, in
        [0, log(1/alpha)] (natural log); nan with an ``UndefinedMetricWarning``
        if no user of the run has both.
        A float, with ``n_users`` and ``n_users_skipped``.

    Raises
    ------
    InvalidParameterError
        A bad ``k`` or ``alpha``.
    InputValidationError
        An item of a history or list without categories (the message names up
        to 5), negative or all-zero category weights, a malformed ``train``.

    See Also
    --------
    intra_list_similarity : Diversity of a list, whatever the user's tastes.

    Notes
    -----
    Steck (2018), with uniform weights of the history's items and of the
    list's items (his :math:`w_{u,i}` and :math:`w_{r(i)}` equal 1):

    .. math:: p(g|u) = \\frac{1}{|H_u|} \\sum_{i \\in H_u} p(g|i), \\quad
              q(g|u) = \\frac{1}{|L_u|} \\sum_{i \\in L_u} p(g|i)

    .. math:: C_{KL}(p, q) = \\sum_g p(g|u) \\log \\frac{p(g|u)}{(1 - \\alpha)
              q(g|u) + \\alpha\\, p(g|u)}

    over the categories with :math:`p(g|u) > 0`, in nats.

    References
    ----------
    .. [1] H. Steck, "Calibrated recommendations", RecSys 2018.

    Examples
    --------
    >>> from receval import miscalibration
    >>> categories = {"a": ["drama"], "b": ["comedy"], "c": ["drama", "comedy"]}
    >>> train = {"u1": ["a", "b"]}  # p = 1/2 drama, 1/2 comedy
    >>> miscalibration({"u1": {"c": 1.0}}, train, item_categories=categories)
    0.0
    >>> miscalibration({"u1": {"a": 1.0}}, train, item_categories=categories)  # no comedy
    1.9585
    """
    func = "miscalibration"
    per_user = miscalibration_per_user(as_run(run, func), train, item_categories, k, alpha, func)
    return mean_over_users(per_user, func, _NO_HISTORY)


def miscalibration_per_user(
    run: Run,
    train: Any,
    item_categories: Any,
    k: int | None,
    alpha: float,
    func: str,
    average_ties: bool = False,
) -> np.ndarray:
    """Miscalibration of each run user: float64 array of shape (run.n_users,), nan for
    users without a history or without items; what ``evaluate`` reports as
    ``"miscalibration@k"`` (``train``: any accepted log, or an ``InteractionLog``).
    ``average_ties``: the expected value over every order of tied scores, for the
    users whose k-th and (k+1)-th scores tie (see :func:`_expected_at_cut`)."""
    depth = check_k(k, func)
    alpha = float(v.check_number(alpha, "alpha", func, low=0.0, high=1.0, high_inclusive=False))
    log = read_log(train, "train", func)
    cat_items, codes, weights = _category_table(item_categories, func)
    hist_of_user = codes_in(run.user_ids, log.user_ids)
    has_history = hist_of_user >= 0
    kept = np.cumsum(has_history) - 1  # run user -> index among users with a history
    # histories of the run's users, as rows (index among kept users, category item code)
    pu, pi = log.distinct_pairs()
    wanted = np.full(log.n_users, -1)
    wanted[hist_of_user[has_history]] = np.arange(int(has_history.sum()))
    in_run = wanted[pu] >= 0
    hist_users, hist_items = wanted[pu[in_run]], codes_in(log.item_ids, cat_items)[pi[in_run]]
    _check_known(hist_items, log.item_ids[pi[in_run]], "history", func)
    mask = top_k_mask(run, depth) & has_history[run_user_codes(run)]
    list_users = kept[run_user_codes(run)[mask]]
    list_items = codes_in(run.item_ids, cat_items)[np.asarray(run.items)[mask]]
    _check_known(list_items, run.item_ids[np.asarray(run.items)[mask]], "top-k list", func)
    n_kept = int(has_history.sum())
    per_user = np.full(run.n_users, np.nan)
    if n_kept == 0:
        return per_user
    p_keys, p = _distribution(hist_users, hist_items, n_kept, (codes, weights))
    q_keys, q = _distribution(list_users, list_items, n_kept, (codes, weights))
    q_at_p = np.zeros(len(p_keys))  # stays 0 where no list has the category (or no list)
    if len(q_keys):
        pos = np.minimum(np.searchsorted(q_keys, p_keys), len(q_keys) - 1)
        q_at_p = np.where(q_keys[pos] == p_keys, q[pos], 0.0)
    with np.errstate(divide="ignore"):  # alpha = 0 and q = 0: an infinite divergence
        terms = p * np.log(p / ((1.0 - alpha) * q_at_p + alpha * p))
    n_cat = int(codes[1].max()) + 1
    values = np.bincount(p_keys // n_cat, weights=terms, minlength=n_kept)
    values[np.bincount(list_users, minlength=n_kept) == 0] = np.nan  # a user without items
    per_user[has_history] = np.maximum(values, 0.0)
    if average_ties:
        item_codes = codes_in(run.item_ids, cat_items)
        # the table's rows of each item (sorted by item once, not scanned per user)
        by_item = np.argsort(codes[0], kind="stable")
        item_start = np.searchsorted(codes[0][by_item], np.arange(len(cat_items) + 1))
        table = (codes[1][by_item], weights[by_item], item_start)
        for user in _cut_users(run, depth):
            if has_history[user]:
                lo, hi = np.searchsorted(p_keys, [kept[user] * n_cat, (kept[user] + 1) * n_cat])
                history = (p_keys[lo:hi] - kept[user] * n_cat, p[lo:hi])
                per_user[user] = _expected_at_cut(
                    run, int(user), depth, item_codes, history, table, alpha, func
                )
    return per_user


# compositions of a tied block's category weights past which ties="average" refuses
_MAX_TERMS = 1_000_000


def _cut_users(run: Run, depth: int) -> np.ndarray:
    """The run users whose ``depth``-th and next scores tie: their top k is not fixed."""
    offsets = np.asarray(run.offsets)
    users = np.flatnonzero(np.diff(offsets) > depth)
    at = offsets[users] + depth
    scores = np.asarray(run.scores)
    result: np.ndarray = users[scores[at - 1] == scores[at]]
    return result


def _expected_at_cut(
    run: Run,
    user: int,
    depth: int,
    item_codes: np.ndarray,
    history: tuple[np.ndarray, np.ndarray],
    table: tuple[np.ndarray, np.ndarray, np.ndarray],
    alpha: float,
    func: str,
) -> float:
    """The expected miscalibration of ``user`` over every order of the tied block that
    ``depth`` cuts: m of its s items are in the top k, each m-subset equally likely.

    The divergence is a sum over the history's categories g of
    ``p_g log(p_g / ((1 - alpha) q_g + alpha p_g))``, and q_g is (the weights of g
    above the block + the sum X_g of the chosen items' weights) / k. X_g is fixed by
    how many items of each distinct weight of g are chosen, whose law is multivariate
    hypergeometric: the expectation sums over those counts, exactly."""
    cats, p = history
    categories, weights, item_start = table  # the category table sorted by item
    offsets = np.asarray(run.offsets)
    start, end = int(offsets[user]), int(offsets[user + 1])
    scores = np.asarray(run.scores)[start:end]
    tied = np.flatnonzero(scores == scores[depth - 1])
    b0, b1 = int(tied[0]), int(tied[-1]) + 1
    m, s = depth - b0, b1 - b0
    # weight of each wanted category for each item down to the block's end
    grid = np.zeros((b1, len(cats)))
    for r, item in enumerate(item_codes[np.asarray(run.items)[start : start + b1]]):
        rows = slice(item_start[item], item_start[item + 1])
        at = np.searchsorted(cats, categories[rows])
        wanted = (at < len(cats)) & (cats[np.minimum(at, len(cats) - 1)] == categories[rows])
        np.add.at(grid[r], at[wanted], weights[rows][wanted])
    above = grid[:b0].sum(axis=0)
    subsets = math.comb(s, m)
    value = 0.0
    for g, p_g in enumerate(p):
        levels, counts = np.unique(grid[b0:, g][grid[b0:, g] != 0], return_counts=True)
        zeros = s - int(counts.sum())
        terms = math.prod(int(c) + 1 for c in counts)
        if terms > _MAX_TERMS:
            raise InvalidParameterError(
                f"{func}: ties='average' for miscalibration@{depth} would sum {terms:,} "
                f"terms for user {run.user_ids[user]!r}: its tied block of {v.counted(s, 'item')} "
                f"at the cut has {v.counted(len(levels), 'distinct weight')} of one category "
                f"(at most "
                f"{_MAX_TERMS:,} terms). Use ties='input' (the run's order), or break the "
                f"ties in the scores."
            )
        mean_log = 0.0
        for chosen in itertools.product(*(range(int(c) + 1) for c in counts)):
            rest = m - sum(chosen)
            if rest < 0 or rest > zeros:
                continue
            ways = math.comb(zeros, rest)
            for c, x in zip(counts, chosen, strict=True):
                ways *= math.comb(int(c), x)
            q = above[g] + sum(x * float(w) for x, w in zip(chosen, levels, strict=True))
            mixed = (1.0 - alpha) * q / depth + alpha * p_g
            if mixed <= 0.0:  # alpha = 0 and a category the list may miss
                return math.inf
            mean_log += ways / subsets * math.log(mixed)
        value += p_g * (math.log(p_g) - mean_log)
    return max(value, 0.0)


_NO_HISTORY = "no user of the run has both a history in train and a recommended item"


def _check_known(codes: np.ndarray, ids: np.ndarray, where: str, func: str) -> None:
    missing = codes < 0
    if missing.any():
        unique = (
            distinct(ids[missing].astype(str)) if ids.dtype.kind == "O" else distinct(ids[missing])
        )
        raise InputValidationError(
            f"{func}: item_categories must give the categories of every item of a {where}. "
            f"Got none for {v.counted(len(unique), 'item')} {v.format_values(unique)}; add them."
        )

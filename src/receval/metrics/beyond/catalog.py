"""Catalogue coverage, the Gini index of exposure and personalization.

What a run recommends across users, whatever the ground truth: each reads the
top-``k`` list of every user of a :class:`~receval.Run` (``k=None``: the whole
list) and needs only the run. Intra-list similarity, diversity and novelty
are in :mod:`receval.metrics.beyond.diversity`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import _validation as v
from ..._kernels import compiled
from ...data._encode import factorize
from ...data._lookup import lookup
from ...data._ranked import Run
from ...exceptions import InputValidationError, UndefinedMetricWarning, warn
from .lists import (
    RunLike,
    as_run,
    catalog_size,
    check_k,
    document,
    item_exposure,
    mean_over_users,
    missing_items,
)

__all__ = [
    "catalog_coverage",
    "gini_index",
    "personalization",
]


# ---------------------------------------------------------------- catalogue
def _catalog_exposure(
    run: Run, counts: np.ndarray, catalog: Any, func: str
) -> tuple[np.ndarray, int]:
    """Exposure (lists holding the item) of the catalogue's items: ``(exposure,
    unseen)``, the catalogue being the items of ``exposure`` (zeros included) plus
    ``unseen`` more items never recommended. A catalogue given by its size is never
    held as an array (a size of 2**31 - 1 costs no memory)."""
    if catalog is None:
        return counts, 0
    recommended = counts[counts > 0]
    # item codes are int32 everywhere in receval: a larger catalogue cannot be held
    size = catalog_size(catalog, func, high=2**31 - 1)
    if size is not None:
        if size < len(recommended):
            raise InputValidationError(
                f"{func}: catalog must be at least the number of distinct recommended items. "
                f"Got catalog={size} for {v.counted(len(recommended), 'recommended item')}; pass "
                f"the "
                f"size "
                f"of the whole catalogue, or its item ids."
            )
        return recommended, size - len(recommended)
    ids = v.as_1d(catalog, "catalog", func)
    v.check_not_empty(len(ids), "catalog", func)
    _, uniques = factorize(ids, "catalog", func)
    pos = lookup(run.item_ids, uniques)
    missing = (counts > 0) & (pos < 0)
    if missing.any():
        raise InputValidationError(
            f"{func}: catalog must contain every recommended item. Got "
            f"{missing_items(run, missing)} that {v.verb(int(missing.sum()), 'is')} not in it; "
            f"add them to the catalog."
        )
    out = np.zeros(len(uniques), dtype=np.int64)
    known = pos >= 0
    out[pos[known]] = counts[known]
    return out, 0


@document()
def catalog_coverage(run: RunLike, *, catalog: Any, k: int | None = None) -> float:
    """Compute catalogue coverage: the share of the catalogue recommended to someone.

    Parameters
    ----------
    {run}
    catalog : int or array-like of item ids
        The catalogue: its size, or the ids of its items (duplicates count
        once; every recommended item must be among them). Required: the items
        of the run itself would make the coverage of whole lists 1.
    {depth}

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
    counts = item_exposure(run, check_k(k, func))
    exposure, unseen = _catalog_exposure(run, counts, catalog, func)
    return float(np.count_nonzero(exposure) / (len(exposure) + unseen))


@document()
def gini_index(run: RunLike, *, k: int | None = None, catalog: Any = None) -> float:
    """Compute the Gini index of item exposure in the top-K lists.

    Exposure of an item is the number of users whose top-``k`` list holds it.
    0 means every catalogue item is recommended equally often; values near 1
    mean a few items take all the exposure. Lower is more even.

    Parameters
    ----------
    {run}
    {depth}
    catalog : int or array-like of item ids, default=None
        The catalogue: its size or its item ids; items never recommended count
        with exposure 0. None means the items of the run at any depth (so with
        ``k``, items only ranked below ``k`` count as 0).

    Returns
    -------
    gini : float
        Gini index in [0, 1 - 1/n] for a catalogue of n items; nan with an
        ``UndefinedMetricWarning`` when the run recommends no item.

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
    func = "gini_index"
    run = as_run(run, func)
    counts = item_exposure(run, check_k(k, func))
    exposure, unseen = _catalog_exposure(run, counts, catalog, func)
    if not exposure.any():
        warn(
            f"{func}: the run recommends no item, so it is undefined (returned as nan).",
            UndefinedMetricWarning,
        )
        return float("nan")
    gini = float(compiled().gini_sorted(np.sort(exposure)))
    if unseen == 0:
        return gini
    # `unseen` zeros before the r sorted counts add (n - r) * sum(c) to the numerator:
    # G_n = ((n - r) + r G_r) / n, with n the whole catalogue
    r, n = len(exposure), len(exposure) + unseen
    return (unseen + r * gini) / n


# ---------------------------------------------------------------- personalization
@document()
def personalization(run: RunLike, *, k: int | None = None) -> float:
    """Compute personalization: 1 - the mean cosine similarity between users' lists.

    Each user's top-``k`` list is a binary vector over items; two users with
    the same items have similarity 1, users with no item in common 0.
    Personalization is 1 minus the mean similarity over all pairs of distinct
    users, so higher means more personal recommendations. It runs in
    O(rows) time and O(items) memory: no users x users matrix.

    Parameters
    ----------
    {run}
    {depth}

    Returns
    -------
    personalization : float
        In [0, 1]; nan with an ``UndefinedMetricWarning`` for a single user. A
        user given an empty list counts, with similarity 0 to every other user
        (the cosine of a zero vector, as scikit-learn's).

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
    func = "personalization"
    run = as_run(run, func)
    depth = check_k(k, func)
    n = run.n_users
    if n < 2:
        return float(mean_over_users(np.array([np.nan]), func, "the run has a single user"))
    total = compiled().personalization_csr(run.items, run.offsets, depth, len(run.item_ids))
    return float(1.0 - total / (n * (n - 1.0)))

"""Popularity bias per user: ARP, APLT, ACLT (Elliot) and RecBole's average popularity and tail %.

Each is a value per user of the run, from the user's top-``k`` list and the
items' popularity (:mod:`receval.metrics.beyond.popularity_table`), averaged over
users; :func:`receval.evaluate` computes the same values for the metric strings
``arp@k``, ``aplt@k``, ``aclt@k``, ``average_popularity@k`` and
``tail_percentage@k``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...data._ranked import Run
from .lists import RunLike, as_run, check_k, document, mean_over_users
from .popularity_table import (
    DEFAULT_HEAD_SHARE,
    DEFAULT_TAIL_RATIO,
    PopularityTable,
    as_popularity,
    check_head_share,
    check_tail_ratio,
    per_user_means,
)

__all__ = [
    "average_coverage_long_tail",
    "average_percentage_long_tail",
    "average_popularity",
    "average_recommendation_popularity",
    "tail_percentage",
]

#: the metric strings of evaluate computed here, and their parameter (None: none)
POPULARITY_METRICS: dict[str, str | None] = {
    "arp": None,
    "aplt": "head_share",
    "aclt": "head_share",
    "average_popularity": None,
    "tail_percentage": "tail_ratio",
}


def popularity_per_user(
    run: Run,
    table: PopularityTable,
    name: str,
    k: int | None,
    arg: float | None = None,
    average_ties: bool = False,
) -> np.ndarray:
    """Per user of ``run``, the value of one metric of :data:`POPULARITY_METRICS`.

    ``arg`` is the metric's parameter (``head_share`` or ``tail_ratio``; None: its
    default), already checked; ``average_ties``: the expected value over every
    order of tied scores in the top ``k`` (exact: each metric is a sum over the
    list's items).
    """
    depth = check_k(k, name)
    pos = table.positions(run.item_ids)
    known = pos >= 0
    if name in ("arp", "average_popularity"):
        per_item = table.counts
    elif name in ("aplt", "aclt"):  # an item absent from the popularity is in no group
        per_item = ~table.head(DEFAULT_HEAD_SHARE if arg is None else arg)
    else:  # tail_percentage: only items of the popularity can be in RecBole's tail
        per_item = table.recbole_tail(DEFAULT_TAIL_RATIO if arg is None else arg)
    values = np.zeros(len(run.item_ids))
    values[known] = per_item[pos[known]]
    divisor = None  # the list's length within k: an empty list has no mean
    if name == "aclt":
        divisor = 1
    elif name in ("average_popularity", "tail_percentage") and k is not None:
        divisor = k  # RecBole divides by k (its lists always hold k items)
    return per_user_means(run, values, depth, divisor, average_ties)


def _raises(bad: str) -> str:
    """The Raises section of the functions below, ``bad`` naming their checked options."""
    return f"""Raises
    ------
    InvalidParameterError
        A bad {bad}, or not exactly one of ``popularity`` and ``train``.
    InputValidationError
        A malformed run, popularity or log."""


def _mean(
    run: RunLike, popularity: Any, train: Any, name: str, k: Any, arg: Any, func: str
) -> float:
    if POPULARITY_METRICS[name] == "head_share":
        arg = check_head_share(arg, func)
    elif POPULARITY_METRICS[name] == "tail_ratio":
        arg = check_tail_ratio(arg, func)
    r = as_run(run, func)
    check_k(k, func)
    per_user = popularity_per_user(r, as_popularity(popularity, train, func), name, k, arg)
    # nan only for an empty list: the lists of the others hold an item
    return mean_over_users(per_user, func, "no user has a recommended item")


@document(raises=_raises("``k``"))
def average_recommendation_popularity(
    run: RunLike, *, popularity: Any = None, train: Any = None, k: int | None = None
) -> float:
    """Compute ARP: the mean popularity of the items of each top-K list, averaged over users.

    Parameters
    ----------
    {run}
    popularity : mapping or pair (items, counts), default=None
        The popularity of each item, e.g. its number of training interactions.
        An item absent from it has popularity 0.
    train : Qrels, Run, DataFrame or pair (users, items), default=None
        An interaction log instead of ``popularity``: an item's popularity is
        its number of distinct users (a repeated pair counts once).
    {depth}

    Returns
    -------
    arp : MeanOverUsers
        Mean over users of :math:`\\sum_{i \\in L_u} \\phi(i) / |L_u|`.

    {raises}

    See Also
    --------
    average_popularity : RecBole's reading, which divides by ``k``.

    Notes
    -----
    With :math:`L_u` the top-``k`` list of user :math:`u` (fewer items when the
    list is shorter) and :math:`\\phi(i)` the popularity of item :math:`i`,

    .. math:: \\mathrm{ARP} = \\frac{1}{|U|} \\sum_{u \\in U}
              \\frac{\\sum_{i \\in L_u} \\phi(i)}{|L_u|}

    as Elliot's ``ARP``, whose popularity is the number of training users of
    the item (``train=`` counts the same way).

    References
    ----------
    .. [1] H. Abdollahpouri, R. Burke and B. Mobasher, "Managing popularity
       bias in recommender systems with personalized re-ranking", FLAIRS 2019.
    .. [2] V. W. Anelli et al., "Elliot: a comprehensive and rigorous framework
       for reproducible recommender systems evaluation", SIGIR 2021.

    Examples
    --------
    >>> from receval import average_recommendation_popularity
    >>> pop = {"a": 10, "b": 4, "c": 1}
    >>> average_recommendation_popularity([["a", "b"], ["c"]], popularity=pop)  # (7 + 1) / 2
    4.0
    """
    return _mean(run, popularity, train, "arp", k, None, "average_recommendation_popularity")


@document(raises=_raises("``k`` or ``head_share``"))
def average_percentage_long_tail(
    run: RunLike,
    *,
    popularity: Any = None,
    train: Any = None,
    k: int | None = None,
    head_share: float = DEFAULT_HEAD_SHARE,
) -> float:
    """Compute APLT: the share of long-tail items in each top-K list, averaged over users.

    Parameters
    ----------
    {run}
    popularity, train : default=None
        Item popularity, as in :func:`average_recommendation_popularity`.
    {depth}
    head_share : float, default=0.8
        The head (short head) is the most popular items that together hold at
        least this share of all interactions; every other item is long tail.

    Returns
    -------
    aplt : MeanOverUsers
        In [0, 1].

    {raises}

    See Also
    --------
    average_coverage_long_tail : The number of long-tail items instead of their share.

    Notes
    -----
    Items sorted by popularity, descending, with ties in the order the items
    were first given (the order of ``popularity`` or of the log), the head
    :math:`H` is the shortest prefix, of at least one item, whose popularity
    sums to ``head_share`` of the total or more (Elliot's ``pop_ratio``, 0.8:
    about the top 20% of items in a Pareto-like catalogue), compared exactly:
    the sums of the popularities as given, unrounded, against ``head_share``
    as the decimal it is written as (0.8 is 4/5). The long tail
    :math:`T` is every other item of the popularity; an item absent from it
    is in neither group (it counts in :math:`|L_u|` only), as in Elliot, whose
    groups hold the training items. Then

    .. math:: \\mathrm{APLT} = \\frac{1}{|U|} \\sum_{u \\in U}
              \\frac{|L_u \\cap T|}{|L_u|}

    References
    ----------
    .. [1] H. Abdollahpouri, R. Burke and B. Mobasher, "Managing popularity
       bias in recommender systems with personalized re-ranking", FLAIRS 2019.

    Examples
    --------
    >>> from receval import average_percentage_long_tail
    >>> pop = {"a": 10, "b": 4, "c": 1}  # head: a (10 of 15 < 12), then b (14 >= 12)
    >>> average_percentage_long_tail([["a", "c"], ["c", "b"]], popularity=pop)
    0.5
    """
    return _mean(run, popularity, train, "aplt", k, head_share, "average_percentage_long_tail")


@document(raises=_raises("``k`` or ``head_share``"))
def average_coverage_long_tail(
    run: RunLike,
    *,
    popularity: Any = None,
    train: Any = None,
    k: int | None = None,
    head_share: float = DEFAULT_HEAD_SHARE,
) -> float:
    """Compute ACLT: the number of long-tail items in each top-K list, averaged over users.

    Parameters
    ----------
    {run}
    popularity, train : default=None
        Item popularity, as in :func:`average_recommendation_popularity`.
    {depth}
    head_share : float, default=0.8
        The head/tail split, as in :func:`average_percentage_long_tail`.

    Returns
    -------
    aclt : MeanOverUsers
        In [0, k].

    {raises}

    See Also
    --------
    average_percentage_long_tail : The share of long-tail items.

    Notes
    -----
    .. math:: \\mathrm{ACLT} = \\frac{1}{|U|} \\sum_{u \\in U} |L_u \\cap T|

    with the long tail :math:`T` of :func:`average_percentage_long_tail` (Elliot's ``ACLT``).

    References
    ----------
    .. [1] H. Abdollahpouri, R. Burke and B. Mobasher, "Managing popularity
       bias in recommender systems with personalized re-ranking", FLAIRS 2019.

    Examples
    --------
    >>> from receval import average_coverage_long_tail
    >>> pop = {"a": 10, "b": 4, "c": 1}
    >>> average_coverage_long_tail([["a", "c"], ["c", "b"]], popularity=pop)
    1.0
    """
    return _mean(run, popularity, train, "aclt", k, head_share, "average_coverage_long_tail")


@document(raises=_raises("``k``"))
def average_popularity(
    run: RunLike, *, popularity: Any = None, train: Any = None, k: int | None = None
) -> float:
    """Compute RecBole's average popularity: the summed popularity of each top-K list over k.

    Parameters
    ----------
    {run}
    popularity, train : default=None
        Item popularity, as in :func:`average_recommendation_popularity`.
    k : int, default=None
        Depth of each list; None means the whole list (and its length divides).

    Returns
    -------
    average_popularity : MeanOverUsers

    {raises}

    See Also
    --------
    average_recommendation_popularity : Elliot's ARP, which divides by the list's length.

    Notes
    -----
    .. math:: \\frac{1}{|U|} \\sum_{u \\in U} \\frac{\\sum_{i \\in L_u} \\phi(i)}{k}

    as RecBole's ``AveragePopularity``, whose lists always hold ``k`` items (a
    shorter list here still divides by ``k``, as ``precision@k``). RecBole's
    popularity counts the rows of the training data: pass ``popularity=`` with
    those counts when a (user, item) pair repeats in it (``train=`` counts it once).

    References
    ----------
    .. [1] W. X. Zhao et al., "RecBole: Towards a unified, comprehensive and
       efficient framework for recommendation algorithms", CIKM 2021.

    Examples
    --------
    >>> from receval import average_popularity
    >>> pop = {"a": 10, "b": 4, "c": 1}
    >>> average_popularity([["a", "b"], ["c"]], popularity=pop, k=2)  # (14/2 + 1/2) / 2
    3.75
    """
    return _mean(run, popularity, train, "average_popularity", k, None, "average_popularity")


@document(raises=_raises("``k`` or ``tail_ratio``"))
def tail_percentage(
    run: RunLike,
    *,
    popularity: Any = None,
    train: Any = None,
    k: int | None = None,
    tail_ratio: float = DEFAULT_TAIL_RATIO,
) -> float:
    """Compute RecBole's tail percentage: the share of long-tail items in each top-K list.

    Parameters
    ----------
    {run}
    popularity, train : default=None
        Item popularity, as in :func:`average_recommendation_popularity`.
    k : int, default=None
        Depth of each list; None means the whole list (and its length divides).
    tail_ratio : float, default=0.1
        Above 1: the long tail is the items of popularity <= ``tail_ratio``. In
        (0, 1]: the ``max(int(n * tail_ratio), 1)`` least popular of the ``n``
        items of the popularity.

    Returns
    -------
    tail_percentage : MeanOverUsers
        In [0, 1].

    {raises}

    See Also
    --------
    average_percentage_long_tail : Elliot's APLT, with a head/tail split by interactions.

    Notes
    -----
    .. math:: \\frac{1}{|U|} \\sum_{u \\in U} \\frac{|L_u \\cap T|}{k}

    as RecBole's ``TailPercentage``: items are sorted by popularity,
    ascending, ties in the order the items were first given (RecBole: its
    internal item id); only items of the popularity can be in the tail (an
    item absent from it is not counted, as in RecBole).

    References
    ----------
    .. [1] W. X. Zhao et al., "RecBole 2.0: Towards a more up-to-date
       recommendation library", CIKM 2022.

    Examples
    --------
    >>> from receval import tail_percentage
    >>> pop = {"a": 10, "b": 4, "c": 1, "d": 1}
    >>> tail_percentage([["a", "c"], ["d", "b"]], popularity=pop, tail_ratio=0.5)
    0.5
    """
    return _mean(run, popularity, train, "tail_percentage", k, tail_ratio, "tail_percentage")

"""Popularity bias over all lists: PopREO, PopRSP, item coverage and the entropies of exposure.

Each is one value for the whole run, not a mean over users: PopREO and PopRSP
(Zhu et al. 2020, as Elliot computes them) pool counts over users before they
divide; item coverage, Shannon entropy (RecBole) and distributional coverage
(Microsoft Recommenders) read how often each item is recommended. The
per-user metrics (ARP, APLT, ACLT, ...) are in
:mod:`receval.metrics.beyond.popularity_users`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import _validation as v
from ...data._lookup import isin_ints, lookup
from ...data._ranked import Qrels, Run, as_qrels
from ...exceptions import UndefinedMetricWarning, warn
from .history import top_rows
from .lists import RunLike, as_run, check_k, document, item_exposure
from .popularity_table import DEFAULT_HEAD_SHARE, as_popularity, check_head_share

__all__ = [
    "distributional_coverage",
    "item_coverage",
    "popularity_equal_opportunity",
    "popularity_statistical_parity",
    "shannon_entropy",
]


def relative_spread(counts: np.ndarray, func: str) -> float:
    """std / mean of the two groups' rates, from (num head, num tail, den head, den
    tail); nan and a warning when a rate is undefined or both are 0."""
    num = counts[:2].astype(np.float64)
    den = counts[2:].astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        rates = num / den
        value = float(np.std(rates) / np.mean(rates))
    if np.isnan(value):
        warn(
            f"{func}: a group's rate is undefined or both rates are 0 (head: {num[0]:g} of "
            f"{den[0]:g}, tail: {num[1]:g} of {den[1]:g}), so it is undefined (returned as nan).",
            UndefinedMetricWarning,
        )
    return value


def _user_train_items(table: Any, user_ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The log's (user position in ``user_ids``, table row) pairs of those users."""
    of_log = lookup(table.train_user_ids, user_ids)  # log user -> position in user_ids
    pos = of_log[table.train_users]
    keep = pos >= 0
    return pos[keep].astype(np.int64), table.train_items[keep]


def _groups(pos: np.ndarray, head: np.ndarray) -> np.ndarray:
    """Group of each item at table rows ``pos``: 1 head, 0 tail, -1 none (absent)."""
    out = np.full(len(pos), -1, dtype=np.int8)
    known = pos >= 0
    out[known] = head[pos[known]]
    return out


@document()
def popularity_statistical_parity(
    run: RunLike, *, train: Any, k: int | None = None, head_share: float = DEFAULT_HEAD_SHARE
) -> float:
    """Compute PopRSP: how unequally head and tail items are recommended, for their numbers.

    Parameters
    ----------
    {run}
    train : Qrels, Run, DataFrame or pair (users, items)
        The training interactions: they give the items' popularity (distinct
        users) and each user's items, which are no candidates for that user.
    {depth}
    head_share : float, default=0.8
        The head/tail split, as in :func:`average_percentage_long_tail`.

    Returns
    -------
    pop_rsp : float
        In [0, 1]; 0 when both groups are recommended at the same rate. nan
        with an ``UndefinedMetricWarning`` when a group has no candidate item,
        or neither group is recommended.

    Raises
    ------
    InvalidParameterError
        A bad ``k`` or ``head_share``.
    InputValidationError
        A malformed run or log.

    See Also
    --------
    popularity_equal_opportunity : The same, among the relevant items only.

    Notes
    -----
    The groups hold the items of ``train``: the head :math:`H` of
    :func:`average_percentage_long_tail` and the tail :math:`T`, every other
    item of ``train``; a recommended item absent from ``train`` is in neither
    (Elliot's catalogue is the training items). With :math:`I_u^+` the
    training items of user :math:`u` and :math:`U` the users of the run,

    .. math:: P(g) = \\frac{\\sum_{u \\in U} |L_u \\cap g|}
              {\\sum_{u \\in U} |g \\setminus I_u^+|}, \\qquad
              \\mathrm{PopRSP} = \\frac{\\mathrm{std}(P(H), P(T))}{\\mathrm{mean}(P(H), P(T))}

    with the population standard deviation, as Elliot's ``PopRSP``; for two
    groups it is :math:`|P(H) - P(T)| / (P(H) + P(T))`.

    References
    ----------
    .. [1] Z. Zhu, J. Wang and J. Caverlee, "Measuring and mitigating item
       under-recommendation bias in personalized ranking systems", SIGIR 2020.

    Examples
    --------
    >>> from receval import popularity_statistical_parity
    >>> train = (["u1", "u2", "u2", "u3", "u3", "u4"], ["a", "a", "b", "a", "c", "d"])
    >>> run = {"u1": {"b": 2, "c": 1}, "u4": {"a": 2, "b": 1}}
    >>> # head {a} (3 of 6 interactions): rates 1/1 (head), 3/5 (tail)
    >>> popularity_statistical_parity(run, train=train, head_share=0.5)
    0.25
    """
    func = "popularity_statistical_parity"
    params = parity_params(func, train, k, head_share)
    return relative_spread(rsp_counts(as_run(run, func), **params), func)


@document()
def popularity_equal_opportunity(
    qrels: Any,
    run: RunLike,
    *,
    train: Any,
    k: int | None = None,
    head_share: float = DEFAULT_HEAD_SHARE,
    rel_threshold: float = 1,
) -> float:
    """Compute PopREO: how unequally relevant head and tail items are recommended.

    Parameters
    ----------
    qrels : Qrels, mapping or DataFrame
        The test interactions ``{user: {item: grade}}``: an item is relevant
        to a user when its grade is ``rel_threshold`` or more.
    {run}
    train : Qrels, Run, DataFrame or pair (users, items)
        The training interactions, as in :func:`popularity_statistical_parity`.
    {depth}
    head_share : float, default=0.8
        The head/tail split, as in :func:`average_percentage_long_tail`.
    rel_threshold : float, default=1
        Grade at or above which an item is relevant (grades are reals, e.g.
        0.5 for probabilities).

    Returns
    -------
    pop_reo : float
        In [0, 1]; 0 when relevant items of both groups are recommended at the
        same rate. nan with an ``UndefinedMetricWarning`` when a group has no
        relevant item, or none is recommended.

    Raises
    ------
    InvalidParameterError
        A bad ``k``, ``head_share`` or ``rel_threshold``.
    InputValidationError
        A malformed qrels, run or log.

    See Also
    --------
    popularity_statistical_parity : The same over all candidate items.

    Notes
    -----
    :math:`H` and :math:`T` as in :func:`popularity_statistical_parity` (a
    relevant or recommended item absent from ``train`` is in neither). With
    :math:`R_u` the relevant items of user :math:`u` and :math:`U` the users
    of the run with at least one relevant item,

    .. math:: P(g) = \\frac{\\sum_{u \\in U} |L_u \\cap R_u \\cap g|}
              {\\sum_{u \\in U} |(R_u \\cap g) \\setminus I_u^+|}, \\qquad
              \\mathrm{PopREO} = \\frac{\\mathrm{std}(P(H), P(T))}{\\mathrm{mean}(P(H), P(T))}

    as Elliot's ``PopREO`` (its numerator does not remove training items).

    References
    ----------
    .. [1] Z. Zhu, J. Wang and J. Caverlee, "Measuring and mitigating item
       under-recommendation bias in personalized ranking systems", SIGIR 2020.

    Examples
    --------
    >>> from receval import popularity_equal_opportunity
    >>> train = (["u1", "u2", "u2", "u3", "u3", "u4"], ["a", "a", "b", "a", "c", "d"])
    >>> run = {"u1": {"b": 2, "c": 1}, "u4": {"a": 2, "b": 1}}
    >>> qrels = {"u1": {"a": 1, "b": 1, "c": 1}, "u4": {"a": 1, "c": 1}}
    >>> # head {a}: rates 1/1 (head), 2/3 (tail; u1's a was a training item)
    >>> popularity_equal_opportunity(qrels, run, train=train, head_share=0.5)
    0.2
    """
    func = "popularity_equal_opportunity"
    params = parity_params(func, train, k, head_share, rel_threshold)
    return relative_spread(reo_counts(as_qrels(qrels, func), as_run(run, func), **params), func)


def parity_params(
    func: str, train: Any, k: Any, head_share: Any, rel_threshold: Any = None
) -> dict[str, Any]:
    """The checked options of PopRSP, and of PopREO with ``rel_threshold``: the
    keyword arguments of :func:`rsp_counts` and :func:`reo_counts`."""
    params: dict[str, Any] = {"share": check_head_share(head_share, func)}
    if rel_threshold is not None:
        params["threshold"] = float(v.check_number(rel_threshold, "rel_threshold", func))
    params["depth"] = check_k(k, func)
    params["table"] = as_popularity(None, train, func)
    return params


def rsp_counts(r: Run, table: Any, share: float, depth: int) -> np.ndarray:
    """PopRSP's pooled counts of the users of ``r``: recommended head, recommended
    tail, head candidates, tail candidates (int64)."""
    head = table.head(share)
    n_head = int(head.sum())
    n_tail = table.n_items - n_head
    group = _groups(table.positions(r.item_ids), head)
    _, items = top_rows(r, depth)
    _, train_items = _user_train_items(table, r.user_ids)
    seen_head = int(head[train_items].sum())
    return np.array(
        [
            (group[items] == 1).sum(),
            (group[items] == 0).sum(),
            r.n_users * n_head - seen_head,
            r.n_users * n_tail - (len(train_items) - seen_head),
        ],
        dtype=np.int64,
    )


def reo_counts(
    q: Qrels, r: Run, table: Any, share: float, depth: int, threshold: float
) -> np.ndarray:
    """PopREO's pooled counts of the users of ``r``: relevant head and tail items
    recommended, relevant head and tail items the user did not train on (int64)."""
    head = table.head(share)
    # relevant (user, item) pairs of the run's users, users as run positions
    q_user = q.positions_in(r, "users")  # qrels user -> run user
    q_rows_user = np.repeat(q_user, np.diff(q.offsets))
    relevant = (q.grades >= threshold) & (q_rows_user >= 0)
    rel_users = q_rows_user[relevant].astype(np.int64)
    rel_pos = table.positions(q.item_ids[q.items[relevant]])
    rel_group = _groups(rel_pos, head)
    # denominator: relevant pairs not in the user's training items
    train_users, train_items = _user_train_items(table, r.user_ids)
    n_table = np.int64(table.n_items + 1)
    seen = isin_ints(
        rel_users * n_table + np.where(rel_pos < 0, table.n_items, rel_pos),
        train_users * n_table + train_items,
    )
    # numerator: top-k rows that are such pairs (a rate of the denominator's pairs: an
    # item the user trained on is no hit, were the run to recommend it)
    top_users, top_items = top_rows(r, depth)
    run_in_q = r.positions_in(q, "items")
    key_space = np.int64(len(q.item_ids) + 1)
    rel_keys = (rel_users * key_space + q.items[relevant].astype(np.int64))[~seen]
    top_keys = top_users * key_space + np.where(run_in_q < 0, len(q.item_ids), run_in_q)[top_items]
    hit = isin_ints(top_keys, rel_keys)
    hit_group = _groups(table.positions(r.item_ids), head)[top_items[hit]]
    return np.array(
        [
            (hit_group == 1).sum(),
            (hit_group == 0).sum(),
            ((rel_group == 1) & ~seen).sum(),
            ((rel_group == 0) & ~seen).sum(),
        ],
        dtype=np.int64,
    )


def _exposure_probabilities(run: RunLike, k: int | None, func: str) -> np.ndarray:
    r = as_run(run, func)
    return exposure_shares(item_exposure(r, check_k(k, func)))


def exposure_shares(counts: np.ndarray) -> np.ndarray:
    """Each recommended item's share of all recommendations (items never shown dropped),
    sorted, so that the sums do not depend on the order the items came in."""
    counts = np.sort(counts[counts > 0]).astype(np.float64)
    result: np.ndarray = counts / counts.sum()
    return result


def entropy_of(shares: np.ndarray, base: str, func: str) -> float:
    """RecBole's Shannon entropy (``"recbole"``: nats over the number of items) or the
    entropy in bits (``"bits"``) of the shares; nan and a warning without a share."""
    if len(shares) == 0:
        warn(
            f"{func}: the run recommends no item, so it is undefined (returned as nan).",
            UndefinedMetricWarning,
        )
        return float("nan")
    # 0.0 - sum: one item holding every recommendation gives 0.0, not -0.0
    if base == "recbole":
        return float(0.0 - (shares * np.log(shares)).sum() / len(shares))
    return float(0.0 - (shares * np.log2(shares)).sum())


@document()
def shannon_entropy(run: RunLike, *, k: int | None = None) -> float:
    """Compute RecBole's Shannon entropy of the recommended items, over their number.

    Parameters
    ----------
    {run}
    {depth}

    Returns
    -------
    entropy : float
        :math:`-\\sum_i p_i \\ln p_i / n`, in nats per distinct item.
        nan with an ``UndefinedMetricWarning`` when the run recommends no item.

    Raises
    ------
    InvalidParameterError
        A bad ``k``.

    See Also
    --------
    distributional_coverage : The plain entropy, in bits.

    Notes
    -----
    With :math:`c_i` the number of top-``k`` lists holding item :math:`i`,
    :math:`p_i = c_i / \\sum_j c_j` (the share of all recommendations) and
    :math:`n` the number of distinct recommended items,

    .. math:: \\mathrm{ShannonEntropy} = -\\frac{1}{n} \\sum_{i} p_i \\ln p_i

    as RecBole's ``ShannonEntropy``, which divides the entropy by :math:`n`
    (its lists always hold ``k`` items, so :math:`\\sum_j c_j` is users times ``k``).

    References
    ----------
    .. [1] W. X. Zhao et al., "RecBole: Towards a unified, comprehensive and
       efficient framework for recommendation algorithms", CIKM 2021.

    Examples
    --------
    >>> from receval import shannon_entropy
    >>> shannon_entropy([["a", "b"], ["a", "c"]])  # p = 1/2, 1/4, 1/4
    0.3466
    """
    func = "shannon_entropy"
    return entropy_of(_exposure_probabilities(run, k, func), "recbole", func)


@document()
def distributional_coverage(run: RunLike, *, k: int | None = None) -> float:
    """Compute distributional coverage: the entropy, in bits, of which items are recommended.

    Parameters
    ----------
    {run}
    {depth}

    Returns
    -------
    coverage : float
        :math:`-\\sum_i p_i \\log_2 p_i`, in [0, log2(n)] for n distinct items.
        nan with an ``UndefinedMetricWarning`` when the run recommends no item.

    Raises
    ------
    InvalidParameterError
        A bad ``k``.

    See Also
    --------
    shannon_entropy : RecBole's reading (nats, over the number of items).

    Notes
    -----
    With :math:`p_i` the share of all recommendations (rows of the top-``k``
    lists) that are item :math:`i`,

    .. math:: \\mathrm{DistributionalCoverage} = -\\sum_i p_i \\log_2 p_i

    as Microsoft Recommenders' ``distributional_coverage`` (Shani and
    Gunawardana's formula (21)), which reads every row of its recommendations
    (``k=None``).

    References
    ----------
    .. [1] G. Shani and A. Gunawardana, "Evaluating recommendation systems",
       Recommender Systems Handbook, 2011.

    Examples
    --------
    >>> from receval import distributional_coverage
    >>> distributional_coverage([["a", "b"], ["a", "c"]])  # p = 1/2, 1/4, 1/4
    1.5
    """
    func = "distributional_coverage"
    return entropy_of(_exposure_probabilities(run, k, func), "bits", func)


@document()
def item_coverage(
    run: RunLike, *, popularity: Any = None, train: Any = None, k: int | None = None
) -> float:
    """Compute item coverage: the share of the known items recommended to someone.

    .. deprecated::
        ``item_coverage`` is not RecBole's ``ItemCoverage``, whose catalogue is
        every item of the dataset plus its padding item; it warns
        (``FutureWarning``) and will be removed. Use :func:`catalog_coverage`
        with the catalogue you mean: ``catalog=dataset.item_num`` for RecBole's
        value, ``catalog=`` the item ids of the popularity and the run for this
        function's.

    Parameters
    ----------
    {run}
    popularity, train : default=None
        The known items: those of a popularity mapping or of an interaction
        log, as in :func:`average_recommendation_popularity`.
    {depth}

    Returns
    -------
    coverage : float
        Distinct items of the top-``k`` lists over the catalogue, in (0, 1].

    Raises
    ------
    InvalidParameterError
        A bad ``k``, or not exactly one of ``popularity`` and ``train``.

    See Also
    --------
    catalog_coverage : The same share, with the catalogue given directly.

    Notes
    -----
    The catalogue is the items of ``popularity`` (or ``train``) and of the run:

    .. math:: \\mathrm{ItemCoverage} = \\frac{|\\bigcup_u L_u|}{|I|}

    RecBole's ``ItemCoverage`` divides by its number of items, which counts its
    padding item: its value is this one's with one more item in the catalogue.

    References
    ----------
    .. [1] M. Ge, C. Delgado-Battenfeld and D. Jannach, "Beyond accuracy:
       evaluating recommender systems by coverage and serendipity", RecSys 2010.

    Examples
    --------
    >>> import warnings
    >>> from receval import catalog_coverage, item_coverage
    >>> pop = {"a": 3, "b": 1, "c": 1, "d": 2}
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", FutureWarning)
    ...     item_coverage([["a", "b"], ["a", "c"]], popularity=pop)
    0.75
    >>> catalog_coverage([["a", "b"], ["a", "c"]], catalog=list(pop))  # the replacement
    0.75
    """
    func = "item_coverage"
    warn(DEPRECATED_ITEM_COVERAGE, FutureWarning)
    return known_item_coverage(run, popularity, train, k, func)


DEPRECATED_ITEM_COVERAGE = (
    "item_coverage is deprecated and will be removed: its catalogue (the items of "
    "popularity= or train= and of the run) is not RecBole's ItemCoverage's (every item of "
    "the dataset plus its padding item), so the two differ whenever an item is missing "
    "from the popularity. Use catalog_coverage(run, catalog=..., k=...) with the catalogue "
    "you mean (RecBole's ItemCoverage: catalog=dataset.item_num)."
)


def known_item_coverage(run: RunLike, popularity: Any, train: Any, k: Any, func: str) -> float:
    """The share of the items of ``popularity`` / ``train`` and of the run that the
    top-``k`` lists hold (what ``item_coverage`` computes)."""
    r = as_run(run, func)
    counts = item_exposure(r, check_k(k, func))
    table = as_popularity(popularity, train, func)
    n_extra = int((table.positions(r.item_ids) < 0).sum())
    return float(np.count_nonzero(counts) / (table.n_items + n_extra))

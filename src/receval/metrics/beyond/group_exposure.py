"""Exposure per item group (provider, category) and the disparity between groups.

The exposure of an item is its expected RBP exposure in a (stochastic)
ranking, as in :func:`~receval.expected_exposure`; a group's exposure is the sum
over its items, averaged over users. Whether the groups are exposed in
proportion to their size is Singh and Joachims' demographic parity of
exposure.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ...exceptions import UndefinedMetricWarning, warn
from .exposure import (
    Memberships,
    PooledExposure,
    as_samples,
    check_ranking_options,
    expand_to_groups,
)
from .lists import RunLike

__all__ = ["GroupExposureReport", "group_exposure"]


@dataclass(frozen=True, eq=False)
class GroupExposureReport:
    """Expected exposure of each item group, and how unequal it is.

    Attributes
    ----------
    groups : ndarray of shape (n_groups,)
        Group ids, in order of first appearance in ``item_groups``.
    exposure : ndarray of shape (n_groups,)
        Expected exposure of each group: the sum over its items of their
        expected exposure, averaged over the run's users.
    share : ndarray of shape (n_groups,)
        ``exposure / exposure.sum()``.
    n_items : ndarray of shape (n_groups,)
        Items of each group in ``item_groups`` (the candidates).
    exposure_per_item : ndarray of shape (n_groups,)
        ``exposure / n_items``: Singh and Joachims' exposure of a group.
    max_min_ratio : float
        Largest over smallest ``exposure_per_item``: 1 under demographic parity
        of exposure, inf when a group gets none.
    gini : float
        Gini index of ``exposure_per_item`` over the groups, in
        [0, 1 - 1/n_groups]: 0 under parity.
    n_users : int
        Users of the run (ranked by at least one sample). When it is 0 (every
        list is empty), no group has any exposure and ``exposure``, ``share``,
        ``exposure_per_item``, ``max_min_ratio`` and ``gini`` are nan, with an
        ``UndefinedMetricWarning``.
    patience : float
        The RBP patience.
    k : int or None
        The depth of the rankings.
    """

    groups: np.ndarray
    exposure: np.ndarray
    share: np.ndarray
    n_items: np.ndarray
    exposure_per_item: np.ndarray
    max_min_ratio: float
    gini: float
    n_users: int
    patience: float
    k: int | None

    def __repr__(self) -> str:
        return (
            f"GroupExposureReport(n_groups={len(self.groups)}, "
            f"max_min_ratio={float(self.max_min_ratio)!r}, gini={float(self.gini)!r}, "
            f"n_users={self.n_users}, patience={self.patience}, k={self.k})"
        )

    def to_frame(self, backend: str | None = None) -> Any:
        """Per-group table (group, exposure, share, n_items, exposure_per_item).

        Parameters
        ----------
        backend : {"pandas", "polars"}, default=None
            Which library builds the frame; by default pandas if installed,
            else polars.
        """
        from ...data.frames import make_frame

        return make_frame(
            {
                "group": self.groups,
                "exposure": self.exposure,
                "share": self.share,
                "n_items": self.n_items,
                "exposure_per_item": self.exposure_per_item,
            },
            backend=backend,
        )


def _gini(x: np.ndarray) -> float:
    """Gini index of non-negative values, not all 0."""
    c = np.sort(x)
    n = len(c)
    j = np.arange(1, n + 1)
    return float(((2 * j - n - 1) * c).sum() / (n * c.sum()))


def group_exposure(
    run: RunLike,
    *,
    item_groups: Any,
    patience: float = 0.5,
    k: int | None = None,
    ties: str = "average",
) -> GroupExposureReport:
    """Compute the expected exposure of each item group and the disparity between groups.

    Each user's ranking exposes the item at rank :math:`i` with
    :math:`\\gamma^{i-1}` (RBP browsing model); tied scores and lists of
    sampled runs are stochastic rankings, read as in
    :func:`expected_exposure`. A group's exposure is the sum of its items'
    expected exposure, averaged over users; the groups are compared per item
    of the group (``exposure_per_item``), as demographic parity of exposure
    asks.

    Parameters
    ----------
    run : Run, mapping, DataFrame, sequence of lists, or list of runs
        The rankings, as in :func:`expected_exposure`.
    item_groups : mapping or (items, groups)
        Groups of items (provider, category): ``{item: group}``,
        ``{item: [group, ...]}`` (an item counts fully in each of its groups)
        or a pair of arrays with one row per membership. These items are the
        candidates: ``n_items`` counts them per group, and every item of the
        run needs a group.
    patience : float, default=0.5
        RBP patience :math:`\\gamma` in [0, 1).
    k : int, default=None
        Depth of the rankings: ranks below ``k`` get no exposure. None means
        whole rankings.
    ties : {"average", "input"}, default="average"
        ``"average"``: tied items share the mean exposure of their positions.
        ``"input"``: the run's order (score descending, input order within
        ties).

    Returns
    -------
    report : GroupExposureReport
        ``exposure``, ``share`` and ``exposure_per_item`` of each group, with
        ``max_min_ratio`` and ``gini`` between groups; all nan, with an
        ``UndefinedMetricWarning``, when the run ranks no item (every list is
        empty: no user's exposure to average).

    Raises
    ------
    InvalidParameterError
        A patience outside [0, 1), a bad ``k`` or ``ties``.
    InputValidationError
        Malformed ``item_groups``, or an item of the run without a group (the
        message names up to 5).

    See Also
    --------
    expected_exposure : EE-D, EE-R and EE-L, also per group with ``item_groups``.
    gini_index : Gini index of the items' exposure counts.

    Notes
    -----
    With :math:`\\varepsilon_{u,d}` the expected exposure of item :math:`d` to
    user :math:`u` (of :math:`U` users) and :math:`G` a group of :math:`|G|`
    items,

    .. math:: E(G) = \\frac{1}{U} \\sum_u \\sum_{d \\in G} \\varepsilon_{u,d},
              \\qquad e(G) = E(G) / |G|.

    Demographic parity of exposure (Singh and Joachims 2018) is
    :math:`e(G) = e(G')` for every pair of groups; their disparity between two
    groups is the ratio :math:`e(G)/e(G')`, here the largest ratio,
    :math:`\\max_G e(G) / \\min_G e(G)`. ``gini`` is the Gini index of
    :math:`e(G)` over groups, :math:`\\sum_j (2j - n - 1) e_{(j)} / (n \\sum_j
    e_{(j)})` for values sorted ascending (the formula of :func:`gini_index`).
    Exposure is not divided by :math:`1/(1-\\gamma)`.

    References
    ----------
    .. [1] A. Singh and T. Joachims, "Fairness of exposure in rankings",
       KDD 2018.
    .. [2] F. Diaz, B. Mitra, M. D. Ekstrand, A. J. Biega and B. Carterette,
       "Evaluating stochastic rankings with expected exposure", CIKM 2020.

    Examples
    --------
    >>> from receval import group_exposure
    >>> providers = {"a": "p1", "b": "p1", "c": "p2"}
    >>> report = group_exposure([["a", "c", "b"], ["a", "b", "c"]], item_groups=providers)
    >>> report.exposure.tolist()  # p1: (1 + 0.25 + 1 + 0.5) / 2 users
    [1.375, 0.375]
    >>> report.exposure_per_item.tolist(), report.max_min_ratio
    ([0.6875, 0.375], 1.8333333333333333)
    """
    func = "group_exposure"
    gamma, depth = check_ranking_options(patience, k, ties, func)
    members = Memberships(item_groups, func)
    samples = as_samples(run, func)
    pooled = PooledExposure(None, np.empty(0, dtype=object), samples, gamma, depth, ties)
    offsets, groups = members.of_pooled(pooled.item_ids, pooled.item, "item of the run", func)
    row, group = expand_to_groups(offsets, groups, pooled.item)
    n_users = int((pooled.n_samples > 0).sum())
    n_items = np.bincount(members.group, minlength=members.n_groups)
    if n_users == 0:  # every list is empty: no user, no exposure to average
        warn(
            f"{func}: the run ranks no item, so the exposure of every group and the "
            f"disparity between groups are undefined (returned as nan).",
            UndefinedMetricWarning,
        )
        exposure = np.full(members.n_groups, np.nan)
        share, per_item, ratio, gini = exposure, exposure, float("nan"), float("nan")
    else:  # every ranked list exposes its first item: the groups' exposure adds up to > 0
        total = np.bincount(group, weights=pooled.exposure[row], minlength=members.n_groups)
        exposure = total / n_users
        share, per_item = exposure / exposure.sum(), exposure / n_items
        low, high = float(per_item.min()), float(per_item.max())
        ratio, gini = (float("inf") if low == 0 else high / low), _gini(per_item)
    return GroupExposureReport(
        groups=members.group_ids,
        exposure=exposure,
        share=share,
        n_items=n_items,
        exposure_per_item=per_item,
        max_min_ratio=ratio,
        gini=gini,
        n_users=n_users,
        patience=gamma,
        k=k,
    )

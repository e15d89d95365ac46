"""Overlap: two runs' top-K lists (intersection); users reached by a relevant item (coverage)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import _validation as v
from ...data._lookup import isin_ints
from ...data._ranked import as_qrels
from .history import codes_in, pair_grades, run_user_codes, top_rows
from .lists import MeanOverUsers, RunLike, as_run, check_k, document, mean_over_users

__all__ = ["intersection", "user_coverage"]


def intersection(
    run: RunLike, reference: RunLike, *, k: int | None = None, reference_k: int | None = None
) -> float:
    """Compute the intersection of two runs: the share of each top-K list also in the other's.

    For each user of ``run``, the fraction of its top-``k`` items that are in
    the same user's top-``reference_k`` list of ``reference``, averaged over
    users. 1 means ``run`` recommends nothing that ``reference`` does not.

    Parameters
    ----------
    run : Run, mapping, DataFrame or sequence of lists
        The recommendations measured, as in :func:`intra_list_similarity`.
    reference : Run, mapping, DataFrame or sequence of lists
        The recommendations compared with (another model, or the same model
        before a change); lists are matched by user id.
    k : int, default=None
        Depth of each list of ``run``; None means the whole list.
    reference_k : int, default=None
        Depth of each list of ``reference``; None means ``k``.

    Returns
    -------
    intersection : MeanOverUsers
        Mean over the users of ``run`` in [0, 1]; a user absent from
        ``reference`` counts with 0. A float, with ``n_users`` and
        ``n_users_skipped`` (users given as an empty list).

    Raises
    ------
    InvalidParameterError
        A bad ``k`` or ``reference_k``.

    See Also
    --------
    personalization : Overlap between the lists of different users of one run.

    Notes
    -----
    RecTools' ``Intersection`` (Recall@``reference_k`` of ``reference``
    against the top-``k`` items of ``run``). The measure is not symmetric:
    swapping the runs divides by the other list's length. RecTools cuts lists
    at the value of a rank column (equal ranks are all kept, and a user whose
    ranks all exceed ``k`` is left out); receval at the ``k``-th position.

    Examples
    --------
    >>> from receval import intersection
    >>> run = [["a", "b", "c"], ["d", "e"]]
    >>> reference = [["a", "c", "x"], ["y", "z"]]
    >>> intersection(run, reference)  # (2/3 + 0) / 2
    0.3333
    >>> intersection(run, reference, k=1)
    0.5
    """
    func = "intersection"
    run_, ref = as_run(run, func), as_run(reference, func, "reference")
    depth = check_k(k, func)
    ref_depth = depth if reference_k is None else check_k(reference_k, func)
    n_items = max(len(ref.item_ids), 1)
    listed_users, listed_items = top_rows(ref, ref_depth)
    ref_keys = listed_users * n_items + listed_items
    users, items = top_rows(run_, depth)
    ref_users = codes_in(run_.user_ids, ref.user_ids)[users].astype(np.int64)
    ref_items = codes_in(run_.item_ids, ref.item_ids)[items].astype(np.int64)
    found = (ref_users >= 0) & (ref_items >= 0)
    found &= isin_ints(ref_users * n_items + ref_items, ref_keys)
    hits = np.bincount(users, weights=found, minlength=run_.n_users)
    lengths = np.bincount(users, minlength=run_.n_users)
    per_user = np.where(lengths > 0, hits / np.maximum(lengths, 1), np.nan)
    return mean_over_users(per_user, func, "the run has no recommendation")


@document()
def user_coverage(
    run: RunLike, qrels: Any, *, k: int | None = None, rel_threshold: float = 1
) -> float:
    """Compute user coverage: the share of users with a relevant item in their top-K list.

    Of the users of ``qrels`` who have at least one relevant item, the
    fraction whose top-``k`` list in ``run`` holds at least one of them. A
    user without a list is not covered.

    Parameters
    ----------
    run : Run, mapping, DataFrame or sequence of lists
        The recommendations, as in :func:`intra_list_similarity` (lists are
        users 0, 1, ... of ``qrels``).
    qrels : Qrels, mapping or DataFrame
        The held-out interactions; an item is relevant when its grade is at
        least ``rel_threshold``.
    {depth}
    rel_threshold : float, default=1
        Lowest grade of a relevant item.

    Returns
    -------
    coverage : MeanOverUsers
        In [0, 1]. A float, with ``n_users`` (the users of ``qrels``) and
        ``n_users_skipped`` (those without a relevant item); nan with an
        ``UndefinedMetricWarning`` when no user has a relevant item.

    Raises
    ------
    InvalidParameterError
        A bad ``k`` or ``rel_threshold``.
    InputValidationError
        A malformed ``qrels``.

    See Also
    --------
    success_at_k : The same per-user indicator, averaged over the users of both inputs.
    catalog_coverage : The share of the catalogue recommended to someone.

    Notes
    -----
    It equals ``evaluate``'s ``success@k`` with ``missing_users="zero"`` (users
    of the qrels absent from the run count 0) and users without a relevant item
    skipped. Elliot's ``UserCoverageAtN`` counts something else: the users
    with at least ``k`` recommendations, whatever their relevance.

    Examples
    --------
    >>> from receval import user_coverage
    >>> qrels = {"u1": {"a": 1}, "u2": {"b": 1}, "u3": {"c": 1}, "u4": {"d": 0}}
    >>> run = {"u1": {"x": 2.0, "a": 1.0}, "u2": {"y": 1.0}}
    >>> user_coverage(run, qrels)  # u1 of u1, u2, u3; u4 has no relevant item
    0.3333
    >>> user_coverage(run, qrels, k=1)
    0.0
    """
    func = "user_coverage"
    run_ = as_run(run, func)
    depth = check_k(k, func)
    v.check_number(rel_threshold, "rel_threshold", func)
    judged = as_qrels(qrels, func)
    judged_users = run_user_codes(judged)
    has_relevant = np.zeros(judged.n_users, dtype=bool)
    has_relevant[judged_users[np.asarray(judged.grades) >= rel_threshold]] = True
    users, items = top_rows(run_, depth)
    hits = pair_grades(judged, run_.user_ids, run_.item_ids, users, items) >= rel_threshold
    covered = np.zeros(judged.n_users, dtype=bool)
    judged_of_run = codes_in(run_.user_ids, judged.user_ids)
    hit_users = judged_of_run[users[hits]]
    covered[hit_users[hit_users >= 0]] = True
    per_user = np.where(has_relevant, covered.astype(np.float64), np.nan)
    value = mean_over_users(per_user, func, "no user of qrels has a relevant item")
    return MeanOverUsers(float(value), judged.n_users, value.n_users_skipped)

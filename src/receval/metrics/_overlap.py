"""Overlap of two runs: the share of one run's top-K lists found in another's."""

from __future__ import annotations

import numpy as np

from ._beyond_common import RunLike, as_run, check_k, mean_over_users, n_empty_lists
from ._interaction_log import codes_in, run_user_codes, top_k_mask

__all__ = ["intersection"]


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
    n_empty = n_empty_lists(run)
    run_, ref = as_run(run, func), as_run(reference, func)
    depth = check_k(k, func)
    ref_depth = depth if reference_k is None else check_k(reference_k, func)
    n_items = max(len(ref.item_ids), 1)
    ref_mask = top_k_mask(ref, ref_depth)
    ref_keys = (
        run_user_codes(ref)[ref_mask].astype(np.int64) * n_items + np.asarray(ref.items)[ref_mask]
    )
    mask = top_k_mask(run_, depth)
    users, items = run_user_codes(run_)[mask], np.asarray(run_.items)[mask]
    ref_users = codes_in(run_.user_ids, ref.user_ids)[users].astype(np.int64)
    ref_items = codes_in(run_.item_ids, ref.item_ids)[items].astype(np.int64)
    found = (ref_users >= 0) & (ref_items >= 0)
    found &= np.isin(ref_users * n_items + ref_items, ref_keys)
    hits = np.bincount(users, weights=found, minlength=run_.n_users)
    lengths = np.bincount(users, minlength=run_.n_users)
    per_user = np.where(lengths > 0, hits / np.maximum(lengths, 1), np.nan)
    return mean_over_users(per_user, func, "the run has no recommendation", n_empty=n_empty)

"""ann_recall(): how much of the exact top k an approximate index returns, and what
its approximation costs in the metrics."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import _validation as v
from .._parameters import check_keywords, keyword_names
from ..data._lookup import distinct, lookup
from ..data._ranked import Run, as_run
from ..exceptions import InputValidationError

__all__ = ["AnnRecallReport", "ann_recall"]


@dataclass(frozen=True)
class AnnRecallReport:
    """The recall of an approximate index against exact search.

    Attributes
    ----------
    k : int
        The depth compared.
    recall : float
        The share of every exact top-k item the approximate run returns in its own
        top k (found over listed, pooled over users); nan when no user has an item.
    users : ndarray
        The users of the exact run with at least one item.
    values : ndarray of float
        Each of those users' share of its exact top k found.
    n_users_missing : int
        Users of the exact run absent from the approximate one (their share is 0).
    n_users_empty : int
        Users of the exact run with an empty list (no share; left out).
    n_users_tied_at_k : int
        Users whose exact k-th and (k+1)-th items have the same score: another
        exact search could list either, and an index returning the other one is
        counted as a miss (0 when the exact run holds k items per user).
    comparison : ComparisonReport or None
        ``compare`` of the two runs on ``metrics`` (with ``qrels``): each metric of
        the exact run, of the approximate one, and their difference per user.
    """

    k: int
    recall: float
    users: np.ndarray
    values: np.ndarray
    n_users_missing: int
    n_users_empty: int
    n_users_tied_at_k: int
    comparison: Any = field(default=None, repr=False)

    def __repr__(self) -> str:
        return (
            f"AnnRecallReport(k={self.k}, recall={float(self.recall)!r}, "
            f"n_users={len(self.users)}, n_users_missing={self.n_users_missing}, "
            f"n_users_empty={self.n_users_empty}, n_users_tied_at_k={self.n_users_tied_at_k})"
        )


def _comparison(qrels: Any, exact: Run, approx: Run, metrics: Any, options: dict[str, Any]) -> Any:
    """:func:`receval.compare` of the approximate run against the exact one, its messages
    naming ann_recall. The exact run's ids are checked against the qrels' as
    :func:`receval.evaluate` checks them (``min_match``, ``allow_unmatched``); the
    approximate run's were checked against the exact run's, so that lists missing every
    judged item are a poor index's (scored, without a warning), not an id mix-up."""
    import inspect
    import warnings

    from ..comparison.models import check_settings, compare, compare_reports, ranking_specs
    from ..data._ranked import as_qrels
    from ..exceptions import UnmatchedIdsWarning
    from ..ranking.evaluation import evaluate, evaluate_as

    func = "ann_recall"
    own = [k for k in keyword_names(compare) if k not in ("baseline", "pairs", "profile")]
    check_keywords(options, own + keyword_names(evaluate), func)
    defaults = inspect.signature(compare).parameters
    settings = check_settings(func, **{k: options.get(k, defaults[k].default) for k in own})
    specs, q = ranking_specs(metrics, func), as_qrels(qrels, func)
    conventions = {k: x for k, x in options.items() if k not in own}
    reports = {"exact": evaluate_as(func, q, exact, list(specs), **conventions)}
    unchecked = conventions | {"min_match": 0.0, "allow_unmatched": True}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnmatchedIdsWarning)
        reports["approximate"] = evaluate_as(func, q, approx, list(specs), **unchecked)
    return compare_reports(reports, specs, func, settings | {"baseline": "exact", "pairs": None})


def _top_rows(run: Run, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(user position, row) of every row in each user's first ``k``."""
    lengths = np.diff(run.offsets)
    users = np.repeat(np.arange(run.n_users), lengths)
    rank = np.arange(run.n_rows) - run.offsets[users]
    keep = rank < k
    return users[keep], np.flatnonzero(keep)


def ann_recall(
    exact_run: Any,
    approximate_run: Any,
    k: int,
    *,
    qrels: Any = None,
    metrics: Any = None,
    **compare_options: Any,
) -> AnnRecallReport:
    """Share of the exact top ``k`` that an approximate index returns in its top ``k``.

    Per user: the items of the exact run's first ``k`` that the approximate
    run also lists in its first ``k``, over the exact ones (recall@k of the
    index, the measure of ANN benchmarks); overall: pooled over every user.
    With ``qrels`` and ``metrics``, the two runs are also compared on those
    metrics (:func:`receval.compare`, the approximate run against the exact
    one), so an index's parameters can be chosen on both numbers. The exact
    run's ids are checked against the qrels' as :func:`receval.evaluate` checks
    them; the approximate run's against the exact run's, so that an index whose
    lists miss every judged item scores 0 (no error, no warning).

    Parameters
    ----------
    exact_run, approximate_run : Run, dict, DataFrame or path
        The exact search's lists (:func:`receval.retrieve`) and the index's, in
        their order (score descending, input order within ties).
    k : int
        The depth compared.
    qrels : Qrels, dict, DataFrame or path, default=None
        Ground truth for ``metrics``.
    metrics : str or sequence of str, default=None
        Metric strings for the comparison (needs ``qrels``).
    **compare_options
        Keyword options of :func:`receval.compare` (``test``, ``interval``, ...),
        but ``baseline`` and ``pairs``; ``min_match`` and ``allow_unmatched``
        are the exact run's.

    Returns
    -------
    report : AnnRecallReport

    Raises
    ------
    InvalidParameterError
        ``k`` below 1, ``metrics`` without ``qrels`` or the reverse.
    InputValidationError
        Malformed runs; no user, or no item, of the approximate run is one of the
        exact run.

    See Also
    --------
    retrieve : Exact search, the reference.
    compare : Paired comparison of runs on metrics.

    Examples
    --------
    >>> from receval import ann_recall
    >>> exact = {"u1": {"a": 0.9, "b": 0.8, "c": 0.7}, "u2": {"d": 0.9, "e": 0.5}}
    >>> approximate = {"u1": {"a": 0.9, "c": 0.7, "x": 0.6}, "u2": {"e": 0.5, "d": 0.4}}
    >>> report = ann_recall(exact, approximate, 2)
    >>> report.recall  # u1 finds a but not b; u2 finds d and e
    0.75
    >>> report.values
    array([0.5, 1. ])
    """
    from ..exceptions import InvalidParameterError

    k = v.check_number(k, "k", "ann_recall", integer=True, low=1)
    if (qrels is None) != (metrics is None):
        raise InvalidParameterError(
            "ann_recall: pass both qrels and metrics to compare the runs' metrics, or neither. "
            f"Got {'qrels' if metrics is None else 'metrics'} only."
        )
    exact = as_run(exact_run, "ann_recall", "exact_run")
    approx = as_run(approximate_run, "ann_recall", "approximate_run")
    eu, erows = _top_rows(exact, k)
    au, arows = _top_rows(approx, k)
    user_of = lookup(approx.user_ids, exact.user_ids)  # approx user -> exact position
    item_of = lookup(approx.item_ids, exact.item_ids)  # approx item -> exact code
    if approx.n_users and exact.n_users and not (user_of >= 0).any():
        raise InputValidationError(
            "ann_recall: no user of approximate_run is a user of exact_run; the ids must be "
            f"the same. Got e.g. {v.format_values(approx.user_ids[:5])} and "
            f"{v.format_values(exact.user_ids[:5])}; key the index's results by the user "
            f"ids, not by row positions."
        )
    if approx.n_rows and not (item_of >= 0).any():
        raise InputValidationError(
            "ann_recall: no item of approximate_run is an item of exact_run; the ids must be "
            f"the same. Got e.g. {v.format_values(approx.item_ids[:5])} and "
            f"{v.format_values(exact.item_ids[:5])}."
        )
    n_items = np.int64(max(len(exact.item_ids), 1))
    a_user, a_item = user_of[au], item_of[approx.items[arows]]
    found = (a_user >= 0) & (a_item >= 0)
    approx_keys = distinct(a_user[found] * n_items + a_item[found])
    exact_keys = eu * n_items + exact.items[erows]
    hit = np.isin(exact_keys, approx_keys)
    listed = np.bincount(eu, minlength=exact.n_users)
    hits = np.bincount(eu, weights=hit, minlength=exact.n_users)
    kept = listed > 0
    present = np.zeros(exact.n_users, dtype=bool)
    present[user_of[user_of >= 0]] = True
    lengths = np.diff(exact.offsets)
    longer = np.flatnonzero(lengths > k)
    at_k = exact.offsets[longer] + k
    tied = int(np.count_nonzero(exact.scores[at_k - 1] == exact.scores[at_k]))
    total = int(listed.sum())
    comparison = None if qrels is None else _comparison(qrels, exact, approx, metrics,
                                                         compare_options)  # fmt: skip
    return AnnRecallReport(
        k=k,
        recall=float(hits.sum() / total) if total else float("nan"),
        users=exact.user_ids[kept],
        values=hits[kept] / listed[kept],
        n_users_missing=int(np.count_nonzero(kept & ~present)),
        n_users_empty=int(np.count_nonzero(~kept)),
        n_users_tied_at_k=tied,
        comparison=comparison,
    )

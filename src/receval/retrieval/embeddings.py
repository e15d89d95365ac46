"""evaluate_embeddings(): the metrics of exact retrieval, block of users by block,
without the whole run in memory."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import Any

from .. import _validation as v
from ..data._ranked import Run
from ..exceptions import InvalidParameterError
from ..ranking.evaluation import RunBatches, evaluate_as
from ..ranking.report import EvaluationReport
from ..ranking.specs import metric_names
from ..registry import ranking_spec
from .search import BLOCK_ITEMS, BLOCK_USERS, Search, catalogue, lists_run

__all__ = ["evaluate_embeddings", "metrics_depth"]


def evaluate_embeddings(
    qrels: Any,
    user_vectors: Any,
    item_vectors: Any,
    metrics: str | Iterable[str],
    *,
    k: int | None = None,
    user_ids: Any = None,
    item_ids: Any = None,
    metric: str = "dot",
    exclude: Any = None,
    candidates: Any = None,
    block_users: int = BLOCK_USERS,
    block_items: int = BLOCK_ITEMS,
    name: str | None = None,
    **options: Any,
) -> EvaluationReport:
    """Evaluate the exact top-k retrieval of embeddings, block of users by block.

    The lists of :func:`receval.retrieve` are made for one block of users at a
    time and evaluated at once, so the whole run is never held, in the memory of
    one block. Each list also keeps every item tied with its k-th: ``retrieve``
    cuts such a tie by item id, and here the evaluation's ``ties=`` orders it, so
    a metric with a cutoff of at most ``k`` has its value on the user's whole
    ranking, whatever the other metrics (unless it reads the list past its
    cutoff: ``ideal="candidates"``, ``judged_only=True``). The report (per-user
    values, counts) is the one ``evaluate(qrels, lists, metrics, ...)`` returns
    on those lists: ``evaluate(qrels, retrieve(...), metrics, ...)``'s when no
    tie crosses the k-th item.

    Parameters
    ----------
    qrels : Qrels, dict, DataFrame or path
        Ground truth, as for :func:`receval.evaluate`.
    user_vectors, item_vectors : array-like, tensor, Arrow array or path
        The embeddings, as for :func:`receval.retrieve`.
    metrics : str or iterable of str
        Metric strings, as for :func:`receval.evaluate`.
    k : int, default=None
        Items retrieved per user, and those tied with the k-th: at least the
        largest cutoff of ``metrics`` (a smaller k is refused); None: that cutoff
        (a metric of the whole list, such as ``"mrr"``, then needs ``k``, and reads
        the k items and those tied with the k-th).
    user_ids, item_ids, metric, exclude, candidates, block_users, block_items
        As for :func:`receval.retrieve`.
    name : str, default=None
        The run's name in the report.
    **options
        The keyword options of :func:`receval.evaluate` (``ties``, ``profile``,
        ``missing_users``, ...), except ``candidates``.

    Returns
    -------
    report : EvaluationReport
        The report of ``evaluate(qrels, lists, metrics, **options)``, the lists
        of ``retrieve(...)`` with each tie at the k-th item kept whole; with
        ``exclude``, ``report.n_exclude_unmatched`` counts its distinct pairs
        whose user or item has no vector (they mask nothing), and with
        ``candidates``, ``report.n_candidates_unmatched`` its pairs whose user
        or item has none (they are never scored).

    Raises
    ------
    InvalidParameterError
        ``k`` missing for a metric of the whole list, ``k`` below a metric's
        cutoff, or any error of
        :func:`receval.retrieve` and :func:`receval.evaluate`.

    Warns
    -----
    UnmatchedIdsWarning
        Some pairs of ``exclude`` or ``candidates`` name a user or an item
        without a vector, as for :func:`receval.retrieve`.

    See Also
    --------
    retrieve : The lists themselves, as a run.
    evaluate : The metrics of a run.

    Examples
    --------
    >>> import numpy as np
    >>> from receval import evaluate_embeddings
    >>> users = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> items = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]])
    >>> qrels = {0: {1: 1}, 1: {2: 1}}
    >>> report = evaluate_embeddings(qrels, users, items, ["recall@1", "mrr@3"],
    ...                              exclude={0: [0]})
    >>> report.mean
    {'recall@1': 1.0, 'mrr@3': 1.0}

    A tie across the k-th item is ordered by ``ties=``, not cut by id (items 0
    and 1 tie for user 0; ``"trec"`` puts the greater id first):

    >>> items = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    >>> evaluate_embeddings(qrels, users, items, ["success@1"]).mean
    {'success@1': 1.0}
    >>> evaluate_embeddings(qrels, users, items, ["success@1"], ties="average").mean
    {'success@1': 0.75}
    """
    if "candidates" in options:  # pragma: no cover - a keyword of ours, never in options
        raise InvalidParameterError("evaluate_embeddings: candidates is given twice.")
    depth = metrics_depth(metrics, k=k)
    search = Search(
        user_vectors, catalogue(item_vectors, item_ids, "evaluate_embeddings"), depth,
        user_ids=user_ids, metric=metric, exclude=exclude, candidates=candidates,
        block_users=block_users, block_items=block_items, func="evaluate_embeddings",
        whole_ties=True,
    )  # fmt: skip
    for unmatched in search.unmatched.values():
        unmatched.warn("evaluate_embeddings")

    def batches() -> Iterator[Run]:
        for lists in search.lists():
            users = search.user_ids[lists.start : lists.start + len(lists.offsets) - 1]
            yield lists_run([lists], users, search.item_ids, name)

    run = RunBatches(batches, name, search.item_ids)
    report = evaluate_as("evaluate_embeddings", qrels, run, metrics, **options)
    counts: dict[str, Any] = {u.report_field: u.counts.n_unmatched
                              for u in search.unmatched.values()}  # fmt: skip
    return replace(report, **counts)


def metrics_depth(
    metrics: str | Iterable[str], func: str = "evaluate_embeddings", k: Any = None
) -> int:
    """The items to retrieve for the metrics: ``k`` when given, else their largest
    cutoff; an error when ``k`` is below a metric's cutoff (its lists would be cut
    short), or, without ``k``, when one reads the whole list."""
    cutoffs = {name: ranking_spec(name, func).k for name in metric_names(metrics, func)}
    if k is not None:
        k = v.check_number(k, "k", func, integer=True, low=1)
        short = {name: c for name, c in cutoffs.items() if c is not None and c > k}
        if short:
            raise InvalidParameterError(
                f"{func}: k={k} retrieves fewer items than the cutoff of the metrics "
                f"{list(short)}; pass k={max(short.values())} (their largest cutoff) or "
                f"more; without k= their largest cutoff is retrieved."
            )
        return int(k)
    whole = [name for name, cutoff in cutoffs.items() if cutoff is None]
    if whole:
        raise InvalidParameterError(
            f"{func}: the metrics {whole} read the whole list; pass k=100 (the items "
            f"to retrieve per user) or give them a cutoff (e.g. 'mrr@100')."
        )
    return max(c for c in cutoffs.values() if c is not None)

"""Top-K metrics of ranked lists given as Python lists: ``ndcg_at_k(recommended, relevant, k=10)``.

The quick form for a notebook or a unit test: ``recommended`` holds each user's
ranked list of item ids (best first), ``relevant`` each user's relevant items
(a collection, all grade 1, or a mapping ``{item: grade}``). The lists become a
:class:`receval.Run` (ranks kept as given) and a :class:`receval.Qrels`, and
the value is :func:`receval.evaluate`'s mean, so every convention keyword of
``evaluate`` applies and the numbers are the same as on DataFrames or files.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import fields
from typing import Any

import numpy as np

from .._validation import counted, format_values
from ..engine.loop.tensors import on_host
from ..exceptions import InputValidationError, InvalidParameterError, warn

__all__ = [
    "f1_at_k",
    "hit_ratio_at_k",
    "map_at_k",
    "mrr_at_k",
    "ndcg_at_k",
    "pooled_hit_ratio_at_k",
    "precision_at_k",
    "recall_at_k",
    "success_at_k",
]


def _is_list(x: Any) -> bool:
    return isinstance(x, (Sequence, np.ndarray, Mapping, set, frozenset)) and not isinstance(
        x, (str, bytes)
    )


def _per_user(recommended: Any, relevant: Any, func: str) -> tuple[list[Any], list[Any]]:
    """One list and one judgment set per user (a single user when the inputs are flat);
    a tensor or DLPack array (``torch.topk``'s indices, say) read as a NumPy array."""
    if hasattr(recommended, "__dlpack__"):
        recommended = on_host(recommended, func, "recommended")
    if hasattr(relevant, "__dlpack__"):
        relevant = on_host(relevant, func, "relevant")
    if not _is_list(recommended) or isinstance(recommended, Mapping):
        raise InputValidationError(
            f"{func}: recommended must be a list of item ids (one user) or a list of such "
            f"lists (one per user). Got {type(recommended).__name__}."
        )
    items = list(recommended)
    lists = [_is_list(x) and not isinstance(x, Mapping) for x in items]
    nested = bool(items) and all(lists)
    if not nested:  # one user: [item, item, ...]
        if any(lists):
            at = lists.index(True)
            raise InputValidationError(
                f"{func}: recommended mixes item ids and lists (a {type(items[at]).__name__} "
                f"at position {at}). Pass one user's list of item ids, or a list of such "
                f"lists (one per user)."
            )
        return [items], [relevant]
    if not _is_list(relevant) or isinstance(relevant, (Mapping, set, frozenset)):
        raise InputValidationError(
            f"{func}: recommended holds {counted(len(items), 'list')}, so relevant must be a list "
            f"of as "
            f"many collections (one per user). Got {type(relevant).__name__}."
        )
    judged = list(relevant)
    if len(judged) != len(items):
        raise InputValidationError(
            f"{func}: recommended and relevant must have one entry per user. Got lengths "
            f"[{len(items)}, {len(judged)}]."
        )
    return [list(x) for x in items], judged


def _grades(judged: Any, user: int, func: str) -> Iterable[tuple[Any, Any]]:
    if isinstance(judged, Mapping):
        return judged.items()
    if _is_list(judged):
        return ((item, 1) for item in judged)
    raise InputValidationError(
        f"{func}: the relevant items of user {user} must be a collection of item ids or a "
        f"mapping {{item: grade}}. Got {type(judged).__name__}."
    )


def _mean_at_k(
    metric: str,
    recommended: Any,
    relevant: Any,
    k: int | None,
    func: str,
    conventions: dict[str, Any],
) -> float:
    from ..conventions import Conventions, resolve_conventions
    from ..data._ranked import Qrels, Run
    from ..ranking.evaluation import evaluate_as

    known = {f.name for f in fields(Conventions)} | {"profile"}
    unknown = sorted(set(conventions) - known)
    if unknown:
        raise InvalidParameterError(
            f"{func}() got an unexpected keyword argument {unknown[0]!r}. It takes k and "
            f"the conventions of evaluate: {format_values(sorted(known), limit=20)}."
        )

    if k is not None and (isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1):
        raise InvalidParameterError(
            f"The 'k' parameter of {func} must be an int >= 1 or None (the whole list). "
            f"Got {k!r} instead."
        )
    lists, judged = _per_user(recommended, relevant, func)
    r_users: list[int] = []
    r_items: list[Any] = []
    ranks: list[int] = []
    q_users: list[int] = []
    q_items: list[Any] = []
    q_grades: list[Any] = []
    unjudged: list[int] = []  # users without a judged item: empty_users decides
    for u, (ranked, truth) in enumerate(zip(lists, judged, strict=True)):
        r_users += [u] * len(ranked)
        r_items += ranked
        ranks += range(1, len(ranked) + 1)
        before = len(q_items)
        for item, grade in _grades(truth, u, func):
            q_users.append(u)
            q_items.append(item)
            q_grades.append(grade)
        if len(q_items) == before:
            unjudged.append(u)
    if not r_items:
        raise InputValidationError(f"{func}: recommended holds no item; pass ranked item ids.")
    others = {name: value for name, value in conventions.items() if name != "profile"}
    profile = conventions.get("profile")
    empty = resolve_conventions(profile, func, metric, k is not None, **others).empty_users
    if not q_items and empty == "skip":
        raise InputValidationError(
            f"{func}: relevant holds no item, so every user would be skipped; pass each "
            f"user's relevant items."
        )
    run = Run(r_users, r_items, ranks=ranks)
    if q_items:
        qrels = Qrels(q_users, q_items, q_grades)
        if unjudged:
            qrels.append_users_without_rows(unjudged)
    else:
        qrels = Qrels.from_dict({u: {} for u in unjudged})
    text = metric if k is None else f"{metric}@{int(k)}"
    # lists aligned by position: a list without a hit is an answer (0), not an id
    # mix-up to refuse; few matches still warn (UnmatchedIdsWarning)
    return evaluate_as(func, qrels, run, [text], **conventions, allow_unmatched=True).mean[text]


_DOC = """Compute {what} of ranked lists, averaged over users.

    Parameters
    ----------
    recommended : list of item ids, or list of lists
        A ranked list (best first), or one ranked list per user (a 2-D array
        or tensor too: ``torch.topk(scores, k).indices``, copied from a GPU).
    relevant : collection or mapping, or list of them
        The relevant items of the user (a collection: grade 1; a mapping
        ``{{item: grade}}``), or one of those per user.
    k : int or None
        Cut-off: only the first ``k`` items count; None: the whole list.
    **conventions
        Any convention keyword of :func:`receval.evaluate` (``gain``,
        ``rel_threshold``, ``ap_normalizer``, ``empty_users``, ``profile``, ...).

    Returns
    -------
    value : float
        ``evaluate(qrels, run, ["{name}@k"], **conventions).mean``; users whose
        relevant items are empty are skipped by default (``empty_users``).

    Examples
    --------
    >>> from receval import {func}
{examples}
    """


def _metric(name: str, func: str, what: str, examples: str) -> Any:
    def compute(recommended: Any, relevant: Any, *, k: int | None, **conventions: Any) -> float:
        return _mean_at_k(name, recommended, relevant, k, func, conventions)

    compute.__name__ = compute.__qualname__ = func
    compute.__doc__ = _DOC.format(what=what, name=name, func=func, examples=examples)
    compute.__module__ = __name__
    return compute


precision_at_k = _metric(
    "precision", "precision_at_k", "precision@k (relevant items among the first k, over k)",
    """    >>> precision_at_k(["a", "b", "c", "d"], {"b", "d", "e"}, k=2)
    0.5
    >>> precision_at_k([["a", "b"], ["c", "d"]], [{"a"}, {"x"}], k=2)
    0.25""",
)  # fmt: skip
recall_at_k = _metric(
    "recall", "recall_at_k", "recall@k (relevant items among the first k, over all relevant)",
    """    >>> recall_at_k(["a", "b", "c", "d"], {"b", "d", "e"}, k=2)
    0.3333""",
)  # fmt: skip
f1_at_k = _metric(
    "f1", "f1_at_k", "F1@k (harmonic mean of precision@k and recall@k)",
    """    >>> f1_at_k(["a", "b", "c", "d"], {"b", "d", "e"}, k=2)
    0.4""",
)  # fmt: skip
pooled_hit_ratio_at_k = _metric(
    "pooled_hit_ratio", "pooled_hit_ratio_at_k",
    "the pooled hit ratio@k (hits in the first k over relevant items, pooled over users; "
    "the share of users with a hit is success_at_k)",
    """    >>> pooled_hit_ratio_at_k([["a", "b"], ["c", "d"]], [{"a", "x", "y"}, {"d"}], k=2)
    0.5""",
)  # fmt: skip


def hit_ratio_at_k(recommended: Any, relevant: Any, *, k: int | None, **conventions: Any) -> float:
    """Deprecated: :func:`pooled_hit_ratio_at_k` (what it computes), or :func:`success_at_k`.

    "Hit ratio" (HR@k) means the share of users with a hit in most of the
    recommender literature, which is :func:`success_at_k`; this function
    computes the pooled ratio of hits over relevant items, now named
    :func:`pooled_hit_ratio_at_k`. It warns and returns that pooled ratio.

    Parameters
    ----------
    recommended, relevant, k, **conventions
        As :func:`pooled_hit_ratio_at_k`.

    Returns
    -------
    value : float
        ``pooled_hit_ratio_at_k(recommended, relevant, k=k, **conventions)``.

    Examples
    --------
    >>> import warnings
    >>> from receval import hit_ratio_at_k
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", FutureWarning)
    ...     hit_ratio_at_k([["a", "b"], ["c", "d"]], [{"a", "x", "y"}, {"d"}], k=2)
    0.5
    """
    warn(
        "hit_ratio_at_k is deprecated and will be removed: it computes the pooled ratio of "
        "hits over relevant items, now pooled_hit_ratio_at_k; the HR@k of most papers (the "
        "share of users with a hit) is success_at_k.",
        FutureWarning,
    )
    return pooled_hit_ratio_at_k(recommended, relevant, k=k, **conventions)  # type: ignore[no-any-return]


success_at_k = _metric(
    "success", "success_at_k", "success@k (1 when the first k hold a relevant item)",
    """    >>> success_at_k([["a", "b"], ["c", "d"]], [{"b"}, {"x"}], k=2)
    0.5""",
)  # fmt: skip
map_at_k = _metric(
    "map", "map_at_k", "MAP@k (average precision at the ranks of the hits)",
    """    >>> map_at_k(["a", "b", "c"], {"a", "c"}, k=3)  # (1/1 + 2/3) / 2
    0.8333""",
)  # fmt: skip
mrr_at_k = _metric(
    "mrr", "mrr_at_k", "MRR@k (1 / rank of the first relevant item, 0 if none in the first k)",
    """    >>> mrr_at_k([["a", "b", "c"], ["d", "e"]], [{"b"}, {"x"}], k=3)
    0.25""",
)  # fmt: skip
ndcg_at_k = _metric(
    "ndcg", "ndcg_at_k", "NDCG@k (DCG of the list over DCG of the ideal ordering)",
    """    >>> ndcg_at_k(["a", "b", "c"], {"b": 2, "c": 1}, k=3)  # 1.7619 / 2.6309
    0.6697
    >>> ndcg_at_k(["a", "b", "c"], {"b": 2, "c": 1}, k=3, gain="exponential")
    0.6590""",
)  # fmt: skip

"""Corrected sampled metrics (Krichene & Rendle, KDD 2020): :func:`corrected_metric`
and the per-user corrected values of a run restricted to candidate sets.

An item of full rank ``r`` among ``N`` items, ranked against ``n`` negatives
drawn uniformly without replacement from the other ``N - 1`` (as
:func:`sample_negatives` draws them), has sampled rank ``r~ = 1 + j``, ``j``
hypergeometric: the negatives drawn among the ``r - 1`` items ranked above it.
A corrected metric replaces the metric's value at the sampled rank by a value
``M^(r~)`` chosen so that ``E[M^(r~) | r]`` is close to ``M(r)``.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import _validation as v
from ..data._lookup import distinct, isin_ints, lookup
from ..data._ranked import Qrels, Run
from ..exceptions import InvalidParameterError, warn
from ..registry import MetricSpec, ranking_spec
from .negatives import Candidates, SamplingSummary, as_candidates, check_catalog_size

if TYPE_CHECKING:
    from ..conventions import Conventions

__all__ = [
    "CORRECTIONS",
    "check_correctable",
    "check_gamma",
    "check_sampling",
    "corrected_metric",
    "corrected_values",
    "rank_metric",
    "warn_unstable",
    "worst_conditions",
]

CORRECTIONS = ("rank", "minimal_bias", "bv")
DEFAULT_GAMMA = 0.1
# metrics whose value for one relevant item is a function of its rank
CORRECTABLE = ("recall", "success", "ndcg", "mrr", "map")
_CELLS = 1 << 21  # entries per block of rows of the matrix of sampled-rank laws
#: The condition number of a correction's least-squares problem past which rounding
#: alone may move its values by more than a millionth of their size
_CONDITION_LIMIT = 1e-6 / float(np.finfo(np.float64).eps)


def rank_metric(metric: str, ranks: np.ndarray) -> np.ndarray:
    """The value ``M(r)`` of a metric for one relevant item at (possibly real) ranks ``r``.

    recall@k and success@k: ``1[r <= k]``; ndcg@k: ``1[r <= k] / log2(r + 1)``;
    mrr@k and map@k (one relevant item: AP = RR): ``1[r <= k] / r``. Without ``@k``, k is
    infinite.
    """
    spec = _spec(metric, "rank_metric")
    r = np.asarray(ranks, dtype=np.float64)
    hit = np.ones(r.shape, dtype=bool) if spec.k is None else r <= spec.k
    if spec.name in ("recall", "success"):
        return hit.astype(np.float64)
    if spec.name == "ndcg":
        return np.where(hit, 1.0 / np.log2(r + 1.0), 0.0)
    return np.where(hit, 1.0 / r, 0.0)


def _spec(metric: Any, func: str) -> Any:
    if isinstance(metric, str):
        spec = ranking_spec(metric, func)
    elif isinstance(metric, MetricSpec):
        spec = metric
    else:
        raise InvalidParameterError(
            f"The 'metric' parameter of {func} must be a metric string such as 'ndcg@10'. "
            f"Got {type(metric).__name__} instead."
        )
    if spec.name not in CORRECTABLE or spec.params or spec.args:
        raise InvalidParameterError(
            f"{func}: the corrections apply to metrics that are a function of the rank of "
            f"each relevant item: {list(CORRECTABLE)} (with @k, default conventions). "
            f"Got {str(spec)!r}."
        )
    return spec


def corrected_metric(
    metric: str,
    n: int,
    catalog_size: int,
    correction: str = "bv",
    *,
    gamma: float | None = None,
) -> np.ndarray:
    """The corrected values ``M^(r~)`` of a metric at sampled ranks ``r~ = 1..n+1``.

    Krichene and Rendle's corrections of a sampled metric: ``n`` negatives are
    drawn uniformly without replacement from the ``N - 1`` other items of a
    catalogue of ``N = catalog_size``, and an item of full rank ``r`` then has
    sampled rank ``r~ = 1 + j`` with ``j`` hypergeometric, the number drawn among the
    ``r - 1`` ranked above it: ``P(j | r) = C(r - 1, j) C(N - r, n - j) / C(N - 1, n)``.
    With ``A[r, r~] = P(r~ | r)`` (r = 1..N) and ``M(r)`` the metric of one relevant
    item at rank r (:func:`rank_metric`):

    - "rank": rank estimation. The sampled rank estimates the full rank as
      ``r^ = floor(1 + (r~ - 1) (N - 1) / n)`` (the inverse of ``E[r~ | r]``,
      rounded down as in the paper), and ``M^(r~) = M(r^)``.
    - "minimal_bias": the least-squares solution of
      ``min sum_r (E[M^(r~) | r] - M(r))^2 = ||A M^ - M||^2`` (every full rank weighted
      alike; NumPy's minimum-norm least squares).
    - "bv": the bias-variance trade-off
      ``min sum_r [(E[M^ | r] - M(r))^2 + gamma Var(M^ | r)]``, whose solution is
      ``((1 - gamma) A'A + gamma diag(1'A)) M^ = A'M``.

    Parameters
    ----------
    metric : str
        "recall@k", "success@k" (hit rate), "ndcg@k", "mrr@k" or "map@k" (k optional).
    n : int
        Number of sampled negatives.
    catalog_size : int
        N, the number of items a full ranking ranks (n < N <= 2**63 - 1).
    correction : {"rank", "minimal_bias", "bv"}, default="bv"
        Which correction.
    gamma : float, default=None
        The weight of the variance in "bv", in [0, 1] (0: minimal bias); None:
        0.1. The other corrections take none.

    Returns
    -------
    values : ndarray of shape (n + 1,)
        ``values[r~ - 1]`` is the corrected metric of an item at sampled rank ``r~``.

    Raises
    ------
    InvalidParameterError
        A metric other than the ones above, ``n`` not below ``catalog_size``, a
        ``catalog_size`` beyond 2**63 - 1, a bad ``correction`` / ``gamma``, or
        ``gamma`` with a correction other than "bv".

    Warns
    -----
    RecevalWarning
        The least-squares problem of "minimal_bias" (or "bv" of gamma 0) is so
        ill-conditioned that rounding alone may move the values by more than a
        millionth of their size (condition number above about 4.5e9: with a
        catalogue of thousands or more, from about 35 negatives on); "bv" of gamma 0.1 keeps
        it near 10.

    See Also
    --------
    evaluate : ``candidates=`` with ``correction=`` averages these over users.

    Notes
    -----
    The paper writes ``A`` for draws with replacement, ``j ~ Binomial(n, (r - 1) /
    (N - 1))``, the limit of the hypergeometric law for ``n`` much below ``N``; the
    two give corrections within about ``n / N`` of each other there. Near ``n = N``
    only the law of the draws :func:`sample_negatives` makes is right: with
    ``n = N - 1`` every sampled rank is the full rank, and "minimal_bias" and "bv"
    give the metric itself.

    The matrix ``A`` has N rows; it is built and reduced in blocks of ranks
    (by QR factors for the least squares, by ``A'A`` sums for "bv"), in bounded
    memory: with n = 100 and a million items, "bv" takes about 1 s and
    "minimal_bias" about 14 s on two cores. Results are cached per arguments.

    References
    ----------
    W. Krichene and S. Rendle, "On Sampled Metrics for Item Recommendation",
    KDD 2020 (arXiv:1912.02263).

    Examples
    --------
    >>> from receval import corrected_metric
    >>> corrected_metric("recall@1", 1, 3, "minimal_bias").round(4)
    array([ 0.8333, -0.1667])
    >>> corrected_metric("recall@1", 1, 3, "rank")
    array([1., 0.])
    """
    func = "corrected_metric"
    spec = _spec(metric, func)
    v.check_number(n, "n", func, integer=True, low=0)
    check_catalog_size(catalog_size, func)
    if n >= catalog_size:
        raise InvalidParameterError(
            f"{func}: n (the sampled negatives) must be below catalog_size. Got n={n}, "
            f"catalog_size={catalog_size}."
        )
    v.check_option(correction, "correction", func, list(CORRECTIONS))
    weight = check_gamma(gamma, correction, func)
    # the corrections other than "bv" read no weight: one cache entry each
    out, condition = _corrected(str(spec), int(n), int(catalog_size), correction,
                                0.0 if weight is None else weight)  # fmt: skip
    sampling = SamplingSummary(correction=correction, catalog_size=int(catalog_size))
    warn_unstable(func, sampling, ((str(spec), int(n), condition),))
    result: np.ndarray = out.copy()
    return result


@lru_cache(maxsize=256)
def _corrected(
    metric: str, n: int, size: int, correction: str, gamma: float
) -> tuple[np.ndarray, float]:
    """The corrected values and the condition number of the least-squares problem that
    gave them (1 for "rank", which solves none)."""
    if correction == "rank":
        # floor(1 + (r~ - 1)(N - 1) / n) in integers, (N - 1) / n divided first so that
        # no product overflows: (r~ - 1) q <= N - 1, and (r~ - 1) rem < n**2
        whole, rem = divmod(size - 1, max(n, 1))
        steps = np.arange(n + 1, dtype=np.int64)
        estimate = 1 + steps * whole + steps * rem // max(n, 1)
        return rank_metric(metric, estimate.astype(np.float64)), 1.0
    if correction == "minimal_bias":
        factors: list[np.ndarray] = []
        rhs: list[np.ndarray] = []
        for a, target in _blocks(metric, n, size):
            qf, rf = np.linalg.qr(a)
            factors.append(rf)
            rhs.append(qf.T @ target)
        sol, _, _, singular = np.linalg.lstsq(np.concatenate(factors), np.concatenate(rhs),
                                              rcond=None)  # fmt: skip
    else:
        gram = np.zeros((n + 1, n + 1))
        col = np.zeros(n + 1)
        cross = np.zeros(n + 1)
        for a, target in _blocks(metric, n, size):
            gram += a.T @ a
            col += a.sum(axis=0)
            cross += a.T @ target
        lhs = (1.0 - gamma) * gram + gamma * np.diag(col)
        sol, _, _, singular = np.linalg.lstsq(lhs, cross, rcond=None)
    least = float(singular[-1])
    return sol, float(singular[0]) / least if least > 0 else math.inf


#: per metric, the worst least-squares problem a correction solved for it: (the metric,
#: the negatives n, the condition number)
Conditions = tuple[tuple[str, int, float], ...]


def worst_conditions(*parts: Conditions) -> Conditions:
    """Per metric, the worst of ``parts``' ``(metric, n, condition number)``: the
    greatest condition number (then n), sorted by metric; the same for any split of the
    users, merged in any order."""
    worst: dict[str, tuple[str, int, float]] = {}
    for metric, n, condition in (entry for part in parts for entry in part):
        held = worst.get(metric)
        if held is None or (condition, n) > (held[2], held[1]):
            worst[metric] = (metric, n, condition)
    return tuple(sorted(worst.values()))


def warn_unstable(func: str, sampling: SamplingSummary | None, conditions: Conditions) -> None:
    """Warn, once per metric, where a correction's least-squares problem (the worst of
    ``conditions``, :func:`worst_conditions`) is so ill-conditioned that rounding alone
    may move its values by more than a millionth: "minimal_bias" (and "bv" of gamma 0)
    with more than a few dozen negatives, whose values then depend on the order of the
    arithmetic. ``func``: the caller the message names; ``sampling``: the correction and
    the catalogue's N (None: no correction, nothing to warn of)."""
    if sampling is None:
        return
    correction, size = sampling.correction, sampling.catalog_size
    # the caller's own argument: sampled_report takes a list of corrections
    bv = "corrections=['bv']" if func == "sampled_report" else "correction='bv'"
    for metric, n, worst in worst_conditions(conditions):
        if worst <= _CONDITION_LIMIT:
            continue
        bound = worst * float(np.finfo(np.float64).eps)
        by = "more than their own size" if bound >= 1 else f"up to about {bound:.1g} of their size"
        warn(
            f"{func}: the {correction!r} correction of {metric} with n={n} negatives of "
            f"catalog_size={size} solves a least-squares problem of condition number "
            f"{worst:.2g}: rounding alone may move its corrected values by {by}, so they "
            f"are not reliable; pass {bv} with a gamma above 0 (the default, "
            f"0.1), or sample fewer negatives."
        )


def _blocks(metric: str, n: int, size: int) -> Any:
    """Blocks of rows of ``A`` (P(r~ - 1 = j | r): the hypergeometric law of the
    negatives drawn among the ``r - 1`` items ranked above, from the core) with the
    metric at their ranks."""
    from .._core import sampled_rank_law

    rows = max(1, _CELLS // (n + 1))
    for start in range(1, size + 1, rows):
        last = min(size, start + rows - 1)
        r = np.arange(start, last + 1, dtype=np.float64)
        yield sampled_rank_law(size, n, start, last), rank_metric(metric, r)


# ------------------------------------------------------------------ per user
def sampled_ranks(
    q: Qrels, r: Run, user_map: np.ndarray, q_user: np.ndarray, rel: np.ndarray, ties: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per relevant item (``rel``, of the qrels rows of users ``q_user``) of each qrels
    user present in the restricted run ``r``: its sampled rank, 1 + the candidates not
    relevant ranked above it, in the order the metric's tie rule ``ties`` gives the
    run (:meth:`Run.in_tie_order`, the metric's own); with ``"worst"`` below every
    tied one, with ``"average"`` each place among them alike.

    Returns ``(user, low, high)`` arrays: qrels user position and the least and
    greatest sampled rank of each relevant item found in the run (equal but for
    ``"average"``, whose item takes each rank from low to high alike).
    """
    n_items = np.int64(len(r.item_ids))
    to_run = q.positions_in(r, "items").astype(np.int64)[q.items]
    run_user_of_q = user_map.astype(np.int64)[q_user]
    ok = rel & (to_run >= 0) & (run_user_of_q >= 0)
    rel_keys = run_user_of_q[ok] * n_items + to_run[ok]
    run_user = np.repeat(np.arange(r.n_users, dtype=np.int64), np.diff(r.offsets))
    rows = np.arange(len(r.items))
    if ties not in ("average", "worst"):
        rows = r.in_tie_order(rows, ties, run_user)  # each user's rows stay in place
    is_rel = isin_ints(run_user * n_items + r.items.astype(np.int64), rel_keys)[rows]
    negative = (~is_rel).astype(np.int64)
    seen = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(negative, out=seen[1:])
    above = seen[:-1] - seen[r.offsets[:-1]][run_user]  # negatives above, in the order
    low = high = 1 + above
    if ties in ("average", "worst"):  # blocks of equal scores (as doubles)
        start = np.ones(len(rows), dtype=bool)
        start[1:] = (run_user[1:] != run_user[:-1]) | (r.scores[1:] != r.scores[:-1])
        block = np.cumsum(start) - 1
        firsts = np.flatnonzero(start)
        tied = (seen[np.append(firsts[1:], len(rows))] - seen[firsts])[block]
        low = 1 + above[firsts][block] + (tied if ties == "worst" else 0)
        high = low + (tied if ties == "average" else 0)
    inverse = np.full(r.n_users, -1, dtype=np.int64)
    present = user_map >= 0
    inverse[user_map[present]] = np.flatnonzero(present)
    return inverse[run_user[is_rel]], low[is_rel], high[is_rel]


def negatives(q: Qrels, c: Candidates, q_user: np.ndarray, rel: np.ndarray) -> np.ndarray:
    """Per qrels user: its candidates that are not relevant (``rel``: the relevant qrels
    rows, ``q_user``: the user of each row); a relevant item outside the candidate set
    takes none away."""
    n_items = np.int64(max(len(c.item_ids), 1))
    c_user = lookup(q.user_ids, c.user_ids).astype(np.int64)[q_user]
    c_item = lookup(q.item_ids, c.item_ids).astype(np.int64)[q.items]
    ok = rel & (c_user >= 0) & (c_item >= 0)
    row_user = np.repeat(np.arange(c.n_users, dtype=np.int64), np.diff(c.offsets))
    in_set = isin_ints(c_user[ok] * n_items + c_item[ok], row_user * n_items + c.items)
    n_neg: np.ndarray = c.counts_for(q.user_ids) - np.bincount(
        q_user[ok][in_set], minlength=q.n_users
    )
    return n_neg


def corrected_values(
    q: Qrels,
    r: Run,
    user_map: np.ndarray,
    c: Candidates,
    metric: str,
    catalog_size: int,
    correction: str,
    weight: float | None,
    conv: Conventions,
    func: str,
) -> tuple[np.ndarray, Conditions]:
    """Per qrels user: the mean over its relevant items of the corrected metric at
    their sampled ranks (a relevant item the restricted run lacks: the last rank,
    n + 1, n the user's candidates that are not relevant); nan for a user without a
    relevant item, and for a user without a negative (n = 0) whose run lacks one of
    its relevant items: with no negative to rank it below, its sampled rank would be
    1, a hit. ``weight``: the weight of "bv", checked (:func:`check_sampling`), or
    None; ``conv``: the metric's conventions (its ``rel_threshold`` and ``ties``);
    ``func``: the caller the errors name. With the values, the worst least-squares
    problem solved (:func:`worst_conditions`), which the caller warns of once.
    """
    q_user = np.repeat(np.arange(q.n_users, dtype=np.int64), np.diff(q.offsets))
    rel = q.grades >= float(conv.rel_threshold)
    n_rel = np.bincount(q_user[rel], minlength=q.n_users)
    users, low, high = sampled_ranks(q, r, user_map, q_user, rel, conv.ties)
    found = np.bincount(users, minlength=q.n_users)
    n_neg = negatives(q, c, q_user, rel)
    scored = (n_rel > 0) & (user_map >= 0)  # the users a table scores
    _check_catalog(q, n_neg, scored, catalog_size, func)
    sums = np.zeros(q.n_users)
    conditions: list[tuple[str, int, float]] = []
    for size_n in distinct(n_neg[scored]):
        table, condition = _corrected(metric, int(size_n), catalog_size, correction,
                                      0.0 if weight is None else weight)  # fmt: skip
        conditions.append((metric, int(size_n), condition))
        in_group = n_neg == size_n
        sel = in_group[users]
        # the mean of the table over each item's ranks, low to high
        running = np.concatenate([[0.0], np.cumsum(table)])
        lo, hi = low[sel], high[sel]
        mean = (running[hi] - running[lo - 1]) / (hi - lo + 1)
        sums += np.bincount(users[sel], weights=mean, minlength=q.n_users)
        sums[in_group] += (n_rel[in_group] - found[in_group]) * table[-1]
    unplaced = (n_neg == 0) & (found < n_rel)  # a miss the correction would score a hit
    with np.errstate(invalid="ignore", divide="ignore"):
        col = np.where((n_rel > 0) & ~unplaced, sums / np.maximum(n_rel, 1), np.nan)
    return col, worst_conditions(tuple(conditions))


def _check_catalog(
    q: Qrels, n_neg: np.ndarray, scored: np.ndarray, catalog_size: int, func: str
) -> None:
    """Raise unless each scored user's negatives are fewer than the catalogue's items
    (``func``: the caller the error names)."""
    over = np.flatnonzero(scored & (n_neg >= catalog_size))
    if len(over):
        most = over[np.argmax(n_neg[over])]
        user = q.ids_at("users", [most]).tolist()[0]
        raise InvalidParameterError(
            f"{func}: the catalogue must hold more items than each user's sampled "
            f"negatives (its candidates that are not relevant). Got catalog_size="
            f"{catalog_size}, and user {user!r} has {int(n_neg[most])} (users with "
            f"{catalog_size} or more: {len(over)}); pass the catalogue's size as "
            f"catalog_size= (the number of items a full ranking ranks)."
        )


def check_gamma(gamma: Any, corrections: str | list[str] | None, func: str) -> float | None:
    """The weight of "bv" (0.1 when ``gamma`` is None) when ``corrections`` (one, a
    list, or None) holds "bv", else None; an error for a ``gamma`` without "bv"."""
    given = [corrections] if isinstance(corrections, str) else list(corrections or [])
    if "bv" not in given:
        if gamma is not None:
            # sampled_report's corrections= is a list, the others' correction= one name
            listed = isinstance(corrections, list)
            bv = "corrections=['bv']" if listed else "correction='bv'"
            with_ = (
                "without a correction"
                if not given
                else f"with corrections={given!r}"
                if listed
                else f"with correction={given[0]!r}"
            )
            raise InvalidParameterError(
                f"{func}: gamma is the weight of {bv}. Got gamma={gamma!r} {with_}; drop "
                f"gamma, or add 'bv' to the corrections."
                if listed
                else f"{func}: gamma is the weight of {bv}. Got gamma={gamma!r} {with_}; drop "
                f"gamma, or pass correction='bv'."
            )
        return None
    weight = DEFAULT_GAMMA if gamma is None else gamma
    v.check_number(weight, "gamma", func, low=0.0, high=1.0)
    return float(weight)


def check_sampling(
    candidates: Any, correction: Any, catalog_size: Any, gamma: Any, func: str
) -> tuple[Candidates | None, SamplingSummary | None]:
    """Check the ``candidates`` / ``correction`` / ``catalog_size`` / ``gamma`` of
    :func:`receval.evaluate`, once for every backend (in memory, a scan, Spark, an
    accumulator), the errors and warnings naming ``func``, the caller.

    Returns the candidates as a :class:`Candidates` and the summary that each
    restriction to them adds its counts to (the correction, the catalogue's N, the
    weight of "bv"); (None, None) without candidates. A ``catalog_size`` without a
    correction, which nothing reads, is an error (as a ``gamma`` without "bv").
    """
    c = None if candidates is None else as_candidates(candidates, func)
    size = catalog_size if catalog_size is not None else None if c is None else c.catalog_size
    if correction is None:
        if catalog_size is not None:
            raise InvalidParameterError(
                f"{func}: catalog_size is the catalogue size N of a correction. Got "
                f"catalog_size={catalog_size!r} without a correction; pass correction= (one "
                f"of {list(CORRECTIONS)}) with candidates=, or leave catalog_size out."
            )
        weight = check_gamma(gamma, None, func)
    else:
        v.check_option(correction, "correction", func, list(CORRECTIONS))
        if c is None:
            raise InvalidParameterError(
                f"{func}: correction={correction!r} corrects sampled metrics; pass "
                f"candidates= (see receval.sample_negatives)."
            )
        if size is None:
            raise InvalidParameterError(
                f"{func}: correction={correction!r} needs the catalogue size N; pass "
                f"catalog_size= (candidates from receval.sample_negatives carry it)."
            )
        size, weight = check_catalog_size(size, func), check_gamma(gamma, correction, func)
        if c.strategy == "popularity":
            warn(
                f"{func}: the corrections assume uniformly sampled negatives; these "
                "candidates were drawn by popularity, so the corrected values are not the "
                "paper's estimates.",
                UserWarning,
            )
    if c is None:
        return None, None
    return c, SamplingSummary(correction=correction, catalog_size=size, gamma=weight)


#: the conventions :func:`rank_metric`'s ``M(r)`` holds under: each one's value, in words
_ASSUMED = {
    "discount": ("offset", "the discount 1 / log2(rank + 1)"),  # read by ndcg only
    "depth": (0, "the whole list"),
    "judged_only": (False, "unjudged items ranked"),
    "hit_scores": ("any", "a relevant item a hit at any score"),
}


def _check_assumed(spec: Any, conv: Conventions, text: str, func: str) -> None:
    """Refuse a metric whose conventions make its value another function of the rank
    than :func:`rank_metric`'s: its sampled value would be of one metric and its
    corrected value of another (``func``: the caller the error names)."""
    for name, (value, words) in _ASSUMED.items():
        given = getattr(conv, name)
        if given != value and (name != "discount" or spec.name == "ndcg"):
            raise InvalidParameterError(
                f"{func}: the corrections take {spec.name} as a function of the rank of "
                f"each relevant item, with {words} ({name}={value!r}). Got {text!r} with "
                f"{name}={given!r}; pass {name}={value!r}, or evaluate it without correction=."
            )


def check_correctable(
    ranked: list[str], specs: dict[str, Any], convs: dict[str, Any], func: str
) -> None:
    """Refuse, before any row is read, a ranked metric that the corrections do not
    apply to: not one of :data:`CORRECTABLE`, or with conventions that make its value
    at a rank another than :func:`rank_metric`'s (``func``: the caller the errors name)."""
    for text in ranked:
        _check_assumed(_spec(specs[text], func), convs[text], text, func)


def correct_columns(
    q: Qrels,
    r: Run,
    user_map: np.ndarray,
    c: Candidates,
    ranked: list[str],
    specs: dict[str, Any],
    convs: dict[str, Any],
    values: np.ndarray,
    func: str,
    correction: tuple[str, int, float | None],
) -> Conditions:
    """Replace each ranked metric's per-user values (``values[:, j]``) by the corrected
    ones, for the users the correction scores: in the run, with a candidate set and a
    relevant item, and kept by the engine's rules (not nan), but not a user without a
    negative whose run lacks a relevant item (:func:`corrected_values`). The others
    keep their sampled value: the rules of ``missing_users`` / ``empty_users``, and 0
    for a user without a candidate set (its rows all dropped: an empty list).

    ``func``: the caller the errors name; ``correction``: the correction, the catalogue's
    N and the weight of "bv" (or None), as :func:`check_sampling` checked them, for
    metrics that :func:`check_correctable` took. Returns the worst least-squares problem
    solved per metric (:func:`worst_conditions`), for the caller to warn of once
    (:func:`warn_unstable`)."""
    name, catalog_size, weight = correction
    sampled = (user_map >= 0) & (c.counts_for(q.user_ids) > 0)
    conditions: list[Conditions] = []
    for j, text in enumerate(ranked):
        col, worst = corrected_values(q, r, user_map, c, str(specs[text]), catalog_size,
                                      name, weight, convs[text], func)  # fmt: skip
        conditions.append(worst)
        scored = sampled & ~np.isnan(col) & ~np.isnan(values[:, j])
        values[:, j] = np.where(scored, col, values[:, j])
    return worst_conditions(*conditions)

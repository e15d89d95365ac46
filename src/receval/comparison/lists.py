"""How much two runs' lists differ, user by user: RBO, overlap, Jaccard and Kendall's tau.

A metric compares a run with the qrels; these measures compare two runs with
each other, with no judgment: how much a new pipeline stage (a re-ranker, a
filter, a new candidate source) changes what each user sees. Every measure is
computed over the users of both runs, on the lists in the order of a tie rule
(scores descending, tied scores as :func:`receval.evaluate`'s ``ties`` orders them:
by default by item id descending), vectorised over the runs' CSR
arrays: the two runs' (user, item) rows are joined block by block of users,
and each measure is a sum over the items both lists hold.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import _validation as v
from ..data._lookup import distinct
from ..data._ranked import Run
from ..exceptions import InputValidationError

__all__ = ["ListDifferenceReport", "list_differences", "rank_biased_overlap"]

#: every measure of :func:`list_differences`, in its columns' order
MEASURES = ("rbo", "rbo_min", "rbo_residual", "overlap", "jaccard", "kendall_tau")
_RBO = MEASURES[:3]
#: the tie rules of the lists (:func:`receval.evaluate`'s that order a list)
TIES = ("trec", "input", "id_ascending", "id_descending")
# users x common items x common items of one block of the pairwise tau
_TAU_BLOCK = 4_000_000
# rows of both runs in one block of users
_BLOCK_ROWS = 1_000_000


@dataclass(frozen=True)
class ListDifferenceReport:
    """Per-user differences between two runs' lists (:func:`list_differences`).

    Attributes
    ----------
    users : ndarray
        Ids of the users of both runs, in the first run's order.
    values : dict of str to ndarray
        One float64 array per measure, aligned with ``users``; nan where the
        measure is undefined for the user (see :func:`list_differences`).
    mean : dict of str to float
        Mean of each measure over the users where it is defined.
    n_defined : dict of str to int
        Users where each measure is defined.
    n_only_a, n_only_b : int
        Users of only the first (second) run: left out of every measure.
    p : float
        Persistence of RBO.
    k : int or None
        Depth the lists were cut at (None: the whole lists).
    """

    users: np.ndarray
    values: dict[str, np.ndarray]
    mean: dict[str, float]
    n_defined: dict[str, int]
    n_only_a: int
    n_only_b: int
    p: float
    k: int | None
    ties: str

    @property
    def n_users(self) -> int:
        """Users of both runs: the users measured."""
        return len(self.users)

    def to_frame(self, backend: str | None = None) -> Any:
        """One row per user: ``user`` and a column per measure (pandas by default, or polars)."""
        from ..data.frames import make_frame

        return make_frame({"user": self.users, **self.values}, backend=backend)

    def summary(self) -> str:
        """One line: each measure's mean, and the users left out."""
        means = ", ".join(f"{m} {x:.4f}" for m, x in self.mean.items())
        depth = "" if self.k is None else f" at depth {self.k}"
        return (
            f"{v.counted(self.n_users, 'user')} of both runs{depth}: {means} (rbo: p={self.p:g}); "
            f"users of only one run, left out: {self.n_only_a} and {self.n_only_b}."
        )

    def __repr__(self) -> str:
        return f"ListDifferenceReport({self.summary()})"


def list_differences(
    run_a: Any, run_b: Any, *, k: int | None = None, p: float = 0.9, ties: str = "trec"
) -> ListDifferenceReport:
    """Compare two runs' lists user by user: RBO with its residual, overlap, Jaccard, tau.

    Parameters
    ----------
    run_a, run_b : Run or anything :func:`receval.evaluate` takes as a run
        The two runs (``{user: {item: score}}``, a DataFrame, a file path).
    k : int, default=None
        Depth: each list is cut to its first ``k`` items before every measure
        (None: the whole lists).
    p : float, default=0.9
        Persistence of rank-biased overlap, in (0, 1): the weight of depth d is
        ``(1 - p) p^(d-1)``, so about ``1 / (1 - p)`` items count (10 at 0.9).
    ties : {"trec", "input", "id_ascending", "id_descending"}, default="trec"
        The order of tied scores in each list, as in :func:`receval.evaluate`:
        by item id descending ("trec": the scores compared in single precision,
        as trec_eval; "id_descending": as doubles), ascending, or in input order
        (the rows' order, which then decides RBO and the cut at ``k``).

    Returns
    -------
    report : ListDifferenceReport
        Per user: ``rbo`` (RBO_EXT, the extrapolated RBO), ``rbo_min`` (its
        lower bound: the unseen items never agree), ``rbo_residual`` (the
        upper bound minus the lower bound: how much the unseen items could
        add), ``overlap`` (shared items over the longer list's length),
        ``jaccard`` (shared items over the items of either list) and
        ``kendall_tau`` (tau-b of the two runs' scores over the items both
        lists hold); their means and the users of only one run.

    Raises
    ------
    InvalidParameterError
        ``k`` not a positive integer, ``p`` outside (0, 1), an unknown ``ties``.
    InputValidationError
        No user in both runs.

    See Also
    --------
    rank_biased_overlap : RBO alone.
    compare : Paired tests of two runs' metrics against qrels.

    Notes
    -----
    With ``X_d`` the number of items the two lists share down to depth d,
    ``s`` and ``l`` the shorter and the longer list's length (after ``k``) and
    ``f = l + s - X_l``, rank-biased overlap (Webber, Moffat and Zobel, 2010)
    takes ``X_d`` for ``d > s`` as the shorter list's items found in the
    longer list's first d. RBO_EXT is their equation (32), RBO_MIN their
    equation (11) at depth l and the residual their equation (30); identical
    lists have RBO_EXT 1. A user with one list empty has RBO 0 and a residual
    of 1; a user with both lists empty has no value. ``kendall_tau`` is
    scipy.stats.kendalltau's tau-b of the scores (tied scores are ties):
    undefined (nan) with fewer than two shared items or when one run scores
    all of them alike. It compares every pair of a user's shared items: cut
    long lists with ``k`` (top-k lists of a few hundred items are quick).

    References
    ----------
    W. Webber, A. Moffat and J. Zobel. A similarity measure for indefinite
    rankings. ACM Transactions on Information Systems 28(4), 2010.

    Examples
    --------
    >>> from receval import list_differences
    >>> old = {"u1": {"a": 3, "b": 2, "c": 1}, "u2": {"a": 2, "b": 1}}
    >>> new = {"u1": {"a": 3, "c": 2, "d": 1}, "u2": {"a": 2, "b": 1}, "u3": {"a": 1}}
    >>> report = list_differences(old, new, p=0.9)
    >>> report.values["jaccard"].tolist()  # u1 shares a and c of a, b, c, d
    [0.5, 1.0]
    >>> report.values["rbo"].round(4).tolist()
    [0.685, 1.0]
    >>> report.n_only_b  # u3 is only in the new run
    1
    """
    return _differences(run_a, run_b, k, p, ties, MEASURES, "list_differences")


def rank_biased_overlap(
    run_a: Any, run_b: Any, *, p: float = 0.9, k: int | None = None, ties: str = "trec"
) -> ListDifferenceReport:
    """Rank-biased overlap of two runs' lists, user by user, with its bounds.

    Parameters
    ----------
    run_a, run_b : Run or anything :func:`receval.evaluate` takes as a run
        The two runs.
    p : float, default=0.9
        Persistence, in (0, 1).
    k : int, default=None
        Depth the lists are cut at (None: the whole lists).
    ties : {"trec", "input", "id_ascending", "id_descending"}, default="trec"
        The order of tied scores, as in :func:`list_differences`.

    Returns
    -------
    report : ListDifferenceReport
        Columns ``rbo`` (RBO_EXT), ``rbo_min`` and ``rbo_residual``, as
        :func:`list_differences` defines them; ``report.mean["rbo"]`` is the
        mean over users.

    See Also
    --------
    list_differences : Every measure of how two runs' lists differ.

    Examples
    --------
    >>> from receval import rank_biased_overlap
    >>> a = {"u1": {"x": 3, "y": 2, "z": 1}}
    >>> b = {"u1": {"x": 3, "y": 2}}
    >>> report = rank_biased_overlap(a, b, p=0.5)
    >>> report.values["rbo"].tolist(), report.values["rbo_residual"].tolist()
    ([1.0], [0.1137...])
    """
    return _differences(run_a, run_b, k, p, ties, _RBO, "rank_biased_overlap")


# ------------------------------------------------------------------ the computation
def _differences(
    run_a: Any,
    run_b: Any,
    k: int | None,
    p: float,
    ties: str,
    measures: tuple[str, ...],
    func: str,
) -> ListDifferenceReport:
    from ..data._encode import factorize
    from ..data._ranked import as_run

    p = float(v.check_number(p, "p", func, low=0.0, high=1.0, low_inclusive=False,
                             high_inclusive=False))  # fmt: skip
    if k is not None:
        k = int(v.check_number(k, "k", func, integer=True, low=1))
    v.check_option(ties, "ties", func, list(TIES))
    a, b = as_run(run_a), as_run(run_b)
    # users and items of both runs in one code space
    user_codes, _ = factorize(_ids(a.user_ids, b.user_ids), "users", func)
    of_b = np.full(int(user_codes.max()) + 1, -1, dtype=np.int64)
    of_b[user_codes[a.n_users :]] = np.arange(b.n_users)
    in_b = of_b[user_codes[: a.n_users]]
    ua = np.flatnonzero(in_b >= 0)
    ub = in_b[ua]
    if len(ua) == 0:
        raise InputValidationError(
            f"{func}: run_a and run_b have no user in common. Got "
            f"{v.counted(a.n_users, 'user')} and {v.counted(b.n_users, 'user')}, e.g. "
            f"{v.format_values(a.user_ids[:3])} and "
            f"{v.format_values(b.user_ids[:3])}; compare runs of the same users."
        )
    item_codes, items = factorize(_ids(a.item_ids, b.item_ids), "items", func)
    codes_a, codes_b = item_codes[: len(a.item_ids)], item_codes[len(a.item_ids) :]
    n_items = max(len(items), 1)
    # blocks of users of about _BLOCK_ROWS rows: the memory of a block, not of the runs
    rows = np.cumsum(_lengths(a, ua, k) + _lengths(b, ub, k))
    cuts = np.searchsorted(rows, np.arange(_BLOCK_ROWS, int(rows[-1]), _BLOCK_ROWS), "right")
    bounds = [0, *distinct(cuts).tolist(), len(ua)]
    runs = (a, ties), (b, ties)
    parts = [
        _block(*runs, ua[lo:hi], ub[lo:hi], codes_a, codes_b, n_items, k, p, measures)
        for lo, hi in itertools.pairwise(bounds)
        if hi > lo
    ]
    m = len(ua)
    values = {name: np.concatenate([part[name] for part in parts]) for name in measures}
    defined = {name: int(np.count_nonzero(~np.isnan(x))) for name, x in values.items()}
    mean = {name: float(np.nanmean(x)) if defined[name] else float("nan")
            for name, x in values.items()}  # fmt: skip
    return ListDifferenceReport(
        users=a.user_ids[ua], values=values, mean=mean, n_defined=defined,
        n_only_a=a.n_users - m, n_only_b=b.n_users - m, p=p, k=k, ties=ties,
    )  # fmt: skip


def _block(
    a: tuple[Run, str],
    b: tuple[Run, str],
    ua: np.ndarray,
    ub: np.ndarray,
    codes_a: np.ndarray,
    codes_b: np.ndarray,
    n_items: int,
    k: int | None,
    p: float,
    measures: tuple[str, ...],
) -> dict[str, np.ndarray]:
    """The measures of the users ``ua`` of ``a`` (``ub`` of ``b``), one array each; ``a``
    and ``b``: each run with the tie rule of its lists."""
    rows_a = _rows(*a, ua, k, codes_a)
    rows_b = _rows(*b, ub, k, codes_b)
    la, lb = rows_a[3], rows_b[3]
    # the items both lists hold: join (user, item) keys
    key_a = rows_a[0] * n_items + rows_a[1]
    key_b = rows_b[0] * n_items + rows_b[1]
    order = np.argsort(key_b, kind="stable")
    sorted_b = key_b[order]
    at = np.minimum(np.searchsorted(sorted_b, key_a), max(len(sorted_b) - 1, 0))
    hit = sorted_b[at] == key_a if len(sorted_b) else np.zeros(len(key_a), dtype=bool)
    pos_a = np.flatnonzero(hit)
    pos_b = order[at[hit]]
    user = rows_a[0][pos_a]
    depth = np.maximum(rows_a[2][pos_a], rows_b[2][pos_b])  # 1-based: shared from this depth on
    m = len(ua)
    shared = np.bincount(user, minlength=m).astype(np.float64)
    s, l_ = np.minimum(la, lb), np.maximum(la, lb)
    both_empty = l_ == 0
    out: dict[str, np.ndarray] = {}
    if "rbo" in measures:
        out |= _rbo(p, user, depth, shared, s, l_, m)
    with np.errstate(invalid="ignore", divide="ignore"):
        if "overlap" in measures:
            out["overlap"] = np.where(both_empty, np.nan, shared / l_)
        if "jaccard" in measures:
            out["jaccard"] = np.where(both_empty, np.nan, shared / (la + lb - shared))
    if "kendall_tau" in measures:
        out["kendall_tau"] = _tau_b(user, rows_a[4][pos_a], rows_b[4][pos_b], shared, m)
    return out


def _lengths(run: Run, users: np.ndarray, k: int | None) -> np.ndarray:
    """The length of each user's list (``users``: positions in ``run``), cut at ``k``."""
    length: np.ndarray = run.offsets[users + 1].astype(np.int64) - run.offsets[users]
    return length if k is None else np.minimum(length, k)


def _ids(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Two id arrays as one (object where their kinds differ, so 1 and '1' stay apart)."""
    if x.dtype.kind != y.dtype.kind and not {x.dtype.kind, y.dtype.kind} <= {"i", "u"}:
        return np.concatenate([x.astype(object), y.astype(object)])
    return np.concatenate([x, y])


def _rows(
    run: Run, ties: str, users: np.ndarray, k: int | None, item_codes: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The rows of ``users`` (positions in ``run``) in the tie order ``ties``, each list
    cut at ``k`` after: (position of the user in ``users``, shared item code, 1-based
    rank, list lengths, scores)."""
    start = run.offsets[users].astype(np.int64)
    whole = _lengths(run, users, None)
    owner = np.repeat(np.arange(len(users), dtype=np.int64), whole)
    rank = np.arange(int(whole.sum()), dtype=np.int64) - (np.cumsum(whole) - whole)[owner]
    rows = run.in_tie_order(start[owner] + rank, ties, users[owner])
    length = whole
    if k is not None and bool((whole > k).any()):
        keep = rank < k
        rows, owner, rank = rows[keep], owner[keep], rank[keep]
        length = np.minimum(whole, k)
    items = item_codes[run.items[rows]].astype(np.int64)
    return owner, items, rank + 1, length.astype(np.float64), np.asarray(run.scores)[rows]


def _rbo(
    p: float,
    user: np.ndarray,
    depth: np.ndarray,
    shared: np.ndarray,
    s: np.ndarray,
    l_: np.ndarray,
    m: int,
) -> dict[str, np.ndarray]:
    """RBO_EXT, RBO_MIN and the residual of Webber et al. (2010), equations (32), (11)
    and (30), from the depth at which each shared item is in both lists."""
    top = int((2 * l_).max()) + 1
    d = np.arange(1, top, dtype=np.float64)
    power = np.concatenate([[1.0], p**d])  # p^d, d = 0..top-1
    c = np.concatenate([[0.0], np.cumsum(power[1:] / d)])  # sum_{i<=d} p^i / i
    pc = np.concatenate([[0.0], np.cumsum(power[1:])])  # sum_{i<=d} p^i
    si, li = s.astype(np.int64), l_.astype(np.int64)
    # sum_{d<=l} X_d p^d / d: each shared item counts from its depth to l
    weighted = np.bincount(user, weights=c[li[user]] - c[depth - 1], minlength=m)
    at_s = np.bincount(user, weights=(depth <= si[user]).astype(np.float64), minlength=m)
    q = (1.0 - p) / p
    tail = -np.log1p(-p)  # sum_{d>=1} p^d / d
    f = (li + si - shared.astype(np.int64)).astype(np.int64)
    with np.errstate(invalid="ignore", divide="ignore"):
        uneven = np.where(si > 0, at_s * ((pc[li] - pc[si]) / s - (c[li] - c[si])), 0.0)
        end = np.where(si > 0, ((shared - at_s) / l_ + at_s / s) * power[li], 0.0)
        ext = q * (weighted + uneven) + end
        low = q * (weighted - shared * c[li] + shared * tail)
        unseen = s * (c[f] - c[si]) + l_ * (c[f] - c[li]) + shared * (tail - c[f])
        residual = power[si] + power[li] - power[f] - q * unseen
    empty = l_ == 0
    return {
        "rbo": np.where(empty, np.nan, ext),
        "rbo_min": np.where(empty, np.nan, low),
        "rbo_residual": np.where(empty, np.nan, np.clip(residual, 0.0, 1.0)),
    }


def _tau_b(
    user: np.ndarray, score_a: np.ndarray, score_b: np.ndarray, shared: np.ndarray, m: int
) -> np.ndarray:
    """Kendall's tau-b of the two runs' scores over each user's shared items: the pairs
    of items compared in blocks of users with as many shared items."""
    tau = np.full(m, np.nan)
    order = np.argsort(user, kind="stable")
    xa, xb = score_a[order], score_b[order]
    starts = np.concatenate([[0], np.cumsum(shared)]).astype(np.int64)
    counts = shared.astype(np.int64)
    for n in distinct(counts[counts >= 2]):
        who = np.flatnonzero(counts == n)
        per_block = max(1, _TAU_BLOCK // int(n * n))
        for lo in range(0, len(who), per_block):
            block = who[lo : lo + per_block]
            idx = starts[block][:, None] + np.arange(n)
            # every ordered pair: twice each pair, which the ratio cancels
            da, db = _signs(xa[idx]), _signs(xb[idx])
            concordance = np.einsum("uij,uij->u", da, db, dtype=np.int64)
            pairs_a = np.count_nonzero(da, axis=(1, 2))
            pairs_b = np.count_nonzero(db, axis=(1, 2))
            with np.errstate(invalid="ignore", divide="ignore"):
                tau[block] = concordance / np.sqrt(pairs_a.astype(np.float64) * pairs_b)
    return tau


def _signs(x: np.ndarray) -> np.ndarray:
    """``sign(x[u, i] - x[u, j])`` as int8, shape (users, n, n)."""
    above = x[:, :, None] > x[:, None, :]
    below = x[:, :, None] < x[:, None, :]
    return above.view(np.int8) - below.view(np.int8)

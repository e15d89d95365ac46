"""Sampled-negative candidate sets: :func:`sample_negatives`, :class:`Candidates`,
and the restriction of a run to them.

Many pipelines rank each held-out item against a sample of items the user did
not interact with (100 uniform negatives in the NCF protocol; RecBole's
``uni100`` / ``pop100``). :func:`sample_negatives` draws such sets, and
``evaluate(..., candidates=)`` ranks only them.
"""

from __future__ import annotations

import reprlib
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from .. import _validation as v
from .._parameters import check_seed
from ..data import io
from ..data._encode import factorize, id_ranks
from ..data._lookup import isin_ints, lookup
from ..data._ranked import Qrels, Run, as_qrels
from ..data.seen import warn_unmatched_exclusions
from ..exceptions import InputValidationError, InvalidParameterError

__all__ = [
    "Candidates",
    "SamplingSummary",
    "check_catalog_size",
    "restrict_run",
    "sample_negatives",
]

_BLOCK = 65536  # users drawn per block: bounds the memory of a draw to ~ _BLOCK * 2n codes
#: The largest catalogue the corrections take: they count its ranks in 64-bit integers
MAX_CATALOG = 2**63 - 1


def check_catalog_size(size: Any, func: str, low: int = 2) -> int:
    """The catalogue size N of a correction: an integer in [``low``, 2**63 - 1]
    (:data:`MAX_CATALOG`; ``low``: 1 for the catalogue of :class:`Candidates`, which a
    correction refuses below 2 when it reads it); the errors name ``func``, the caller."""
    v.check_number(size, "catalog_size", func, integer=True, low=low)
    if size > MAX_CATALOG:
        raise InvalidParameterError(
            f"The 'catalog_size' parameter of {func} must be an integer in [{low}, "
            f"2**63 - 1] (the corrections count the catalogue's ranks in 64-bit integers). "
            f"Got {size!r} instead; pass the number of items a full ranking ranks."
        )
    return int(size)


class Candidates:
    """The items each user's ranking is restricted to: its judged items and sampled negatives.

    Built by :func:`sample_negatives`, or from a saved table of (user, item)
    rows (``Candidates(users, items)``, :meth:`from_frame`, :meth:`from_dict`).

    Parameters
    ----------
    users, items : array-like of shape (n_rows,)
        User id and candidate item id of each row.
    catalog_size : int, default=None
        Size N of the catalogue the negatives were drawn from (1 to 2**63 - 1),
        needed by the corrections of :func:`receval.corrected_metric`.

    Attributes
    ----------
    user_ids : ndarray
        Distinct users, in order of first appearance.
    item_ids : ndarray
        Distinct items; ``items`` indexes it.
    offsets : ndarray of shape (n_users + 1,)
        Rows of user ``u``: ``items[offsets[u]:offsets[u + 1]]``.
    items : ndarray of shape (n_rows,)
        Item code of each row.
    catalog_size : int or None
        N, when known.
    n_requested : int or None
        The number of negatives asked for per user (from :func:`sample_negatives`).
    strategy : str or None
        "uniform" or "popularity" (from :func:`sample_negatives`).
    n_short : int
        Users given fewer than ``n_requested`` negatives because their catalogue,
        less their judged and excluded items, was smaller.

    Examples
    --------
    >>> from receval import Candidates
    >>> c = Candidates.from_dict({"u1": ["a", "b", "c"], "u2": ["b", "d"]}, catalog_size=10)
    >>> c.n_users, c.n_rows
    (2, 5)
    """

    def __init__(self, users: Any, items: Any, *, catalog_size: int | None = None) -> None:
        func = "Candidates"
        if catalog_size is not None:  # a parameter: checked before any row is read
            catalog_size = check_catalog_size(catalog_size, func, low=1)
        user_arr = v.as_1d(users, "users", func)
        item_arr = v.as_1d(items, "items", func)
        v.check_same_length(func, users=user_arr, items=item_arr)
        v.check_not_empty(len(user_arr), "users", func)
        user_codes, user_ids = factorize(user_arr, "users", func)
        item_codes, item_ids = factorize(item_arr, "items", func)
        order = np.argsort(user_codes, kind="stable")
        counts = np.bincount(user_codes, minlength=len(user_ids))
        self._set(user_ids, item_ids, counts, item_codes[order].astype(np.int64), catalog_size)
        keys = np.repeat(np.arange(self.n_users, dtype=np.int64), counts) * len(item_ids)
        pairs, n = np.unique(keys + self.items, return_counts=True)
        if len(pairs) < len(keys):  # the first repeated pair named, as a run's is
            user, item = divmod(int(pairs[n > 1][0]), len(item_ids))
            raise InputValidationError(
                f"{func}: user {user_ids[[user]].tolist()[0]!r} has item "
                f"{item_ids[[item]].tolist()[0]!r} more than once "
                f"({v.counted(len(keys) - len(pairs), 'repeated pair')} in all). Each (user, "
                f"item) pair must appear once; drop duplicates first."
            )

    def _set(
        self,
        user_ids: np.ndarray,
        item_ids: np.ndarray,
        counts: np.ndarray,
        items: np.ndarray,
        catalog_size: int | None,
    ) -> None:
        self.user_ids = user_ids
        self.item_ids = item_ids
        self.offsets = np.zeros(len(user_ids) + 1, dtype=np.int64)
        np.cumsum(counts, out=self.offsets[1:])
        self.items = items
        self.catalog_size = catalog_size
        self.n_requested: int | None = None
        self.n_short = 0
        self.strategy: str | None = None

    @classmethod
    def from_frame(
        cls,
        frame: Any,
        *,
        user: str = "user",
        item: str = "item",
        catalog_size: int | None = None,
    ) -> Candidates:
        """From a pandas/polars/Arrow frame with a user and an item column."""
        cols = io.frame_columns(frame, {"user": user, "item": item}, "Candidates.from_frame")
        return cls(cols["user"], cols["item"], catalog_size=catalog_size)

    @classmethod
    def from_dict(cls, data: Mapping[Any, Any], *, catalog_size: int | None = None) -> Candidates:
        """From ``{user: [item, ...]}``."""
        users = [u for u, items in data.items() for _ in items]
        items = [i for seq in data.values() for i in seq]
        return cls(users, items, catalog_size=catalog_size)

    @property
    def n_users(self) -> int:
        """Number of users."""
        return len(self.user_ids)

    @property
    def n_rows(self) -> int:
        """Number of (user, item) rows."""
        return int(self.offsets[-1])

    def counts_for(self, user_ids: np.ndarray) -> np.ndarray:
        """The number of candidates of each of ``user_ids`` (0 for a user without any)."""
        pos = lookup(user_ids, self.user_ids)
        lengths = np.append(np.diff(self.offsets), 0)
        return lengths[np.where(pos >= 0, pos, len(lengths) - 1)]

    def to_dict(self) -> dict[Any, list[Any]]:
        """``{user: [item, ...]}``, judged items first."""
        out: dict[Any, list[Any]] = {}
        for u in range(self.n_users):
            a, b = self.offsets[u], self.offsets[u + 1]
            out[_py(self.user_ids[u])] = [_py(x) for x in self.item_ids[self.items[a:b]]]
        return out

    def to_frame(self, backend: str | None = None) -> Any:
        """The (user, item) rows as a pandas (default) or polars DataFrame, to save."""
        from ..data.frames import make_frame

        users = np.repeat(self.user_ids, np.diff(self.offsets))
        return make_frame({"user": users, "item": self.item_ids[self.items]}, backend)

    def __eq__(self, other: object) -> bool:
        """The same sets with the same ids, catalogue size and draw (the strategy, the
        negatives requested, the users short of them): accumulators with equal options
        merge, and sets drawn by popularity are not uniform ones."""
        if not isinstance(other, Candidates):
            return NotImplemented
        mine = (self.user_ids, self.item_ids, self.offsets, self.items)
        theirs = (other.user_ids, other.item_ids, other.offsets, other.items)
        drawn = ("catalog_size", "strategy", "n_requested", "n_short")
        return all(getattr(self, name) == getattr(other, name) for name in drawn) and all(
            np.array_equal(a, b) for a, b in zip(mine, theirs, strict=True)
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"Candidates(n_users={self.n_users}, n_rows={self.n_rows}, "
            f"catalog_size={self.catalog_size}, strategy={self.strategy!r}, "
            f"n_requested={self.n_requested}, n_short={self.n_short})"
        )


def _py(x: Any) -> Any:
    return x.item() if isinstance(x, np.generic) else x


def as_candidates(candidates: Any, func: str) -> Candidates:
    """A :class:`Candidates` from itself, a frame with user/item columns or a dict; an
    error in the data named as ``func``'s ``candidates`` (not as ``Candidates``')."""
    if isinstance(candidates, Candidates):
        return candidates
    try:
        if isinstance(candidates, Mapping):
            return Candidates.from_dict(candidates)
        if io.is_frame(candidates):
            return Candidates.from_frame(candidates)
    except InputValidationError as exc:
        raise exc.named_reader("Candidates", f"{func}: candidates: ") from None
    raise InvalidParameterError(
        f"The 'candidates' parameter of {func} must be a Candidates (see "
        f"receval.sample_negatives), a DataFrame with columns 'user' and 'item', or a dict "
        f"{{user: [item, ...]}}. Got {type(candidates).__name__} instead."
    )


# ------------------------------------------------------------------ sampling
def sample_negatives(
    qrels: Any,
    catalog: Any,
    n: int = 100,
    *,
    strategy: str = "uniform",
    seed: int | None = None,
    exclude: Any = None,
    popularity: Any = None,
    train: Any = None,
    short: str = "take_all",
) -> Candidates:
    """Draw ``n`` negative items per user: the candidate sets of sampled evaluation.

    Each qrels user gets its judged items plus ``n`` items drawn without
    replacement from ``catalog``, never one of its judged items nor one
    ``exclude`` pairs with it (typically its training interactions).

    Parameters
    ----------
    qrels : Qrels, dict, DataFrame or path
        The held-out interactions: ``{user: {item: grade}}`` or a frame with
        columns ``user``, ``item`` (``grade`` optional).
    catalog : int or array-like
        The items to draw from: their ids, or an int N for the ids ``0..N-1``.
    n : int, default=100
        Negatives per user.
    strategy : {"uniform", "popularity"}, default="uniform"
        "uniform": every allowed item equally likely. "popularity": each draw
        picks an allowed item with probability proportional to its popularity
        (successive sampling without replacement, as ``numpy.random.Generator.choice``
        with ``replace=False`` and ``p=``); items of popularity 0, or absent from it,
        are never drawn.
    seed : int in [0, 2**63 - 1], default=None
        Seed of the random generator; the same seed and inputs give the same sets,
        whatever the order of the qrels' rows and of the catalogue's ids (users
        draw in the order of their sorted ids, from the catalogue sorted).
    exclude : DataFrame, dict, Qrels, Run or pair (users, items), default=None
        (user, item) pairs never drawn for that user, e.g. the training log.
        Pairs of no qrels user or of no catalogue item exclude nothing; when
        that is every pair (ids of another type or spelling), an
        ``UnmatchedIdsWarning`` says so.
    popularity : mapping or pair (items, counts), default=None
        Item popularity for ``strategy="popularity"``, as in :func:`receval.evaluate`.
    train : DataFrame, Qrels, Run or pair (users, items), default=None
        An interaction log instead of ``popularity``: an item's popularity is
        its number of distinct users. It is not excluded: pass it as ``exclude`` too.
    short : {"take_all", "error"}, default="take_all"
        Users whose allowed items number fewer than ``n``: take all of them
        (counted in ``Candidates.n_short``), or raise.

    Returns
    -------
    candidates : Candidates
        Per user its judged items then its negatives; ``catalog_size`` is the
        catalogue's size, ``to_frame()`` gives the (user, item) table.

    Raises
    ------
    InvalidParameterError
        Bad ``n``, ``strategy``, ``short`` or ``seed``; popularity missing for
        ``strategy="popularity"``.
    InputValidationError
        ``short="error"`` and a user with fewer than ``n`` allowed items; no
        catalogue item with a popularity above 0; no qrels item in ``catalog``
        (ids of another type or column).

    See Also
    --------
    evaluate : ``candidates=`` ranks only these items, ``correction=`` corrects the metrics.

    Notes
    -----
    Draws are made for blocks of users at once: each user draws more items
    than it needs, items judged, excluded or already drawn are rejected, and
    the first ``n`` accepted are kept (the order of draws is random, so the
    kept set is a sample without replacement). Users still short after a few
    rounds, or whose forbidden items are a large share of the catalogue, draw
    from the explicit list of their allowed items.

    Examples
    --------
    >>> from receval import sample_negatives
    >>> qrels = {"u1": {3: 1}, "u2": {5: 1}}
    >>> c = sample_negatives(qrels, 10, n=4, seed=0, exclude={"u1": [0, 1]})
    >>> c.n_rows, c.catalog_size
    (10, 10)
    >>> items = c.to_dict()["u1"]
    >>> items[0], len(items), {0, 1} & set(items)
    (3, 5, set())
    """
    func = "sample_negatives"
    v.check_number(n, "n", func, integer=True, low=1)
    n = int(n)
    v.check_option(strategy, "strategy", func, ["uniform", "popularity"])
    v.check_option(short, "short", func, ["take_all", "error"])
    seed = None if seed is None else check_seed(seed, func)
    q = as_qrels(qrels, func)
    catalog_ids = _catalog_ids(catalog, func)
    size = len(catalog_ids)
    weights = None
    if strategy == "popularity":
        weights = _popularity_weights(catalog_ids, popularity, train, func)
    elif popularity is not None or train is not None:
        raise InvalidParameterError(
            f"{func}: popularity and train are only read with strategy='popularity'. "
            f"Got strategy={strategy!r}."
        )
    # users draw in the order of their sorted ids (the catalogue is sorted already), so
    # that the order of the qrels' rows and of the catalogue does not change the sets
    rank = id_ranks(q.user_ids)
    forbidden = _forbidden_keys(q, catalog_ids, exclude, func)
    forbidden = np.sort(rank[forbidden // size] * size + forbidden % size)
    rng = np.random.default_rng(seed)
    negatives, counts = _draw(q.n_users, size, n, forbidden, weights, rng)
    negatives, counts = negatives[rank], counts[rank]
    n_short = int((counts < n).sum())
    if n_short and short == "error":
        first = int(np.flatnonzero(counts < n)[0])
        raise InputValidationError(
            f"{func}: {v.counted(n_short, 'user')} {v.verb(n_short, 'has')} fewer than "
            f"n={n} {'item' if n == 1 else 'items'} left to draw once their "
            f"judged and excluded items are removed, e.g. user {_py(q.user_ids[first])!r} "
            f"with {int(counts[first])}; pass short='take_all' to take them all, or a smaller n."
        )
    out = _assemble(q, catalog_ids, negatives, counts, n, n_short)
    out.strategy = strategy
    return out


def _catalog_ids(catalog: Any, func: str) -> np.ndarray:
    if isinstance(catalog, (int, np.integer)) and not isinstance(catalog, bool):
        v.check_number(int(catalog), "catalog", func, integer=True, low=1)
        return np.arange(int(catalog), dtype=np.int64)
    if np.ndim(catalog) == 0:  # a float, a bool, a str, a set: neither a size nor ids
        raise InvalidParameterError(
            f"The 'catalog' parameter of {func} must be an integer N (the items 0 to N - 1) "
            f"or an array of item ids. Got {reprlib.repr(catalog)} instead; pass e.g. "
            f"catalog=1000 or catalog=list(items)."
        )
    ids = v.as_1d(catalog, "catalog", func)
    v.check_not_empty(len(ids), "catalog", func)
    codes, uniques = factorize(ids, "catalog", func)
    if len(uniques) < len(ids):
        dup = ids[np.flatnonzero(np.bincount(codes) > 1)[:1]]
        raise InputValidationError(
            f"{func}: catalog must list each item once. Got {v.format_values(dup)} more than once."
        )
    ordered = np.empty_like(uniques)  # the ids sorted: a set, whatever order it is given in
    ordered[id_ranks(uniques)] = uniques
    return ordered


def _popularity_weights(catalog_ids: np.ndarray, popularity: Any, train: Any, func: str) -> Any:
    from ..metrics.beyond.popularity_table import as_popularity

    table = as_popularity(popularity, train, func)
    weights = np.zeros(len(catalog_ids), dtype=np.float64)
    pos = lookup(table.item_ids, catalog_ids)
    weights[pos[pos >= 0]] = table.counts[pos >= 0]
    if not (weights > 0).any():
        found = pos >= 0
        given = (
            f"{int(found.sum())} of them in the catalog, each with popularity 0"
            if found.any()
            else "none in the catalog"
        )
        raise InputValidationError(
            f"{func}: no catalogue item has a popularity above 0. Got popularity for "
            f"{v.counted(table.n_items, 'item')}, e.g. {v.format_values(table.item_ids)}, {given}; "
            f"pass "
            f"counts above 0 for some catalogue items, or strategy='uniform'."
        )
    return weights


def _pairs(data: Any, func: str) -> tuple[Any, Any]:
    if isinstance(data, (Qrels, Run)):
        return np.repeat(data.user_ids, np.diff(data.offsets)), data.item_ids[data.items]
    if isinstance(data, Mapping):
        users = [u for u, items in data.items() for _ in items]
        return users, [i for seq in data.values() for i in seq]
    if io.is_frame(data):
        cols = io.frame_columns(data, {"user": "user", "item": "item"}, func)
        return cols["user"], cols["item"]
    if isinstance(data, tuple) and len(data) == 2:
        return data
    raise InvalidParameterError(
        f"The 'exclude' parameter of {func} must be a DataFrame with columns 'user' and "
        f"'item', a dict {{user: [item, ...]}}, a Qrels, a Run or a pair (users, items). "
        f"Got {type(data).__name__} instead."
    )


def _forbidden_keys(q: Qrels, catalog_ids: np.ndarray, exclude: Any, func: str) -> np.ndarray:
    """Sorted distinct keys ``user * N + item code`` no user may draw."""
    size = np.int64(len(catalog_ids))
    users = np.repeat(np.arange(q.n_users, dtype=np.int64), np.diff(q.offsets))
    in_catalog = lookup(q.item_ids, catalog_ids).astype(np.int64)
    if len(in_catalog) and (in_catalog < 0).all():
        raise InputValidationError(
            f"{func}: {v.of_the(0, len(in_catalog), 'qrels item', then='is')} in the "
            f"catalog, e.g. qrels items {v.format_values(q.item_ids[:5])}, catalog "
            f"{v.format_values(catalog_ids[:5])}; the catalog holds every item a full "
            f"ranking ranks, the judged ones too: check the ids for a type or a column mix-up."
        )
    codes = in_catalog[q.items]
    keys = [users[codes >= 0] * size + codes[codes >= 0]]
    if exclude is not None:
        ex_users, ex_items = _pairs(exclude, func)
        ex_users = v.as_1d(ex_users, "exclude users", func)
        ex_items = v.as_1d(ex_items, "exclude items", func)
        v.check_same_length(func, users=ex_users, items=ex_items)
        if len(ex_users):
            u_codes, u_ids = factorize(ex_users, "exclude users", func)
            i_codes, i_ids = factorize(ex_items, "exclude items", func)
            u = lookup(u_ids, q.user_ids).astype(np.int64)[u_codes]
            i = lookup(i_ids, catalog_ids).astype(np.int64)[i_codes]
            _check_exclusions(func, (u_ids, u), (i_ids, i), q.user_ids, catalog_ids)
            ok = (u >= 0) & (i >= 0)
            keys.append(u[ok] * size + i[ok])
    out = np.sort(np.concatenate(keys))
    if out.size:
        keep = np.empty(out.size, dtype=bool)
        keep[0] = True
        np.not_equal(out[1:], out[:-1], out=keep[1:])
        out = out[keep]
    return out


def _check_exclusions(
    func: str,
    users: tuple[np.ndarray, np.ndarray],
    items: tuple[np.ndarray, np.ndarray],
    qrels_users: np.ndarray,
    catalog_ids: np.ndarray,
) -> None:
    """Warn when the exclusions name none of the qrels' users or none of the catalog's
    items (``users``, ``items``: their distinct ids and each pair's row among the
    qrels' or the catalog's, -1 where absent): they would exclude nothing."""
    if (users[1] < 0).all():
        warn_unmatched_exclusions(func, "user", users[0], qrels_users, "qrels", "a qrels user")
    elif (items[1] < 0).all():
        warn_unmatched_exclusions(func, "item", items[0], catalog_ids, "catalog",
                                  "in the catalog")  # fmt: skip


def _draw(
    n_users: int,
    size: int,
    n: int,
    forbidden: np.ndarray,
    weights: np.ndarray | None,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray]:
    """The negatives of every user as an (n_users, n) array of catalogue codes (-1 pads
    a short user's row) and the count each user got."""
    bounds = np.searchsorted(forbidden, np.arange(n_users + 1, dtype=np.int64) * size)
    draws = _Draws(size, n, forbidden, bounds, rng, np.full((n_users, n), -1, dtype=np.int64),
                   np.zeros(n_users, dtype=np.int64))  # fmt: skip
    n_forbidden = np.diff(bounds)
    cdf = None
    if weights is None:
        easy = (size - n_forbidden) >= 2 * n
    else:
        cdf = np.cumsum(weights)
        cdf /= cdf[-1]
        w = weights / weights.sum()
        owner = np.repeat(np.arange(n_users), n_forbidden)
        mass = np.bincount(owner, weights=w[forbidden % size], minlength=n_users)
        easy = ((int((weights > 0).sum()) - n_forbidden) >= 2 * n) & (mass <= 0.5)
    # rejection only where accepted draws are likely: the rest draw from explicit lists
    block = max(1, min(n_users, (1 << 22) // size))
    m = 2 * n + 8
    if weights is None and easy.any():  # reject share per draw <= (forbidden + n) / size
        reject = (n_forbidden[easy].max() + n) / size
        m = min(m, int(np.ceil((n + 6 * np.sqrt(n) + 8) / (1.0 - reject))))
    scratch = np.full(block * size, m, dtype=np.int32)  # per (user, item): first draw seen
    pending = np.flatnonzero(easy)
    for _ in range(3):
        if not len(pending):
            break
        short = [
            draws.reject_round(pending[s : s + block], m, cdf, scratch)
            for s in range(0, len(pending), block)
        ]
        pending = np.concatenate(short)
    for u in np.concatenate([pending, np.flatnonzero(~easy)]):
        draws.exact(int(u), weights)
    return draws.out, draws.counts


@dataclass
class _Draws:
    """The draws of every user from a catalogue of ``size`` items: ``out`` (n_users, n)
    catalogue codes filled up to ``counts``; ``forbidden[bounds[u]:bounds[u + 1]]``
    the sorted keys ``u * size + item`` user ``u`` may not draw."""

    size: int
    n: int
    forbidden: np.ndarray
    bounds: np.ndarray
    rng: np.random.Generator
    out: np.ndarray
    counts: np.ndarray

    def reject_round(
        self, users: np.ndarray, m: int, cdf: np.ndarray | None, scratch: np.ndarray
    ) -> np.ndarray:
        """One round of ``m`` draws for each of ``users``; returns the users still short.

        ``scratch`` holds ``m`` (unseen) for every (row, item) of the block: the
        forbidden and already kept items are marked -1, then each draw writes its
        column, the last columns first, so that an item holds its first draw.
        """
        out, counts, size, n = self.out, self.counts, self.size, self.n
        b = len(users)
        size64 = np.int64(size)
        n_f = self.bounds[users + 1] - self.bounds[users]
        start = np.zeros(b + 1, dtype=np.int64)
        np.cumsum(n_f, out=start[1:])
        pos = np.repeat(self.bounds[users] - start[:-1], n_f) + np.arange(int(start[-1]))
        f_row = np.repeat(np.arange(b, dtype=np.int64), n_f)
        marked = [f_row * size64 + self.forbidden[pos] % size64]
        have = out[users]
        h_row, h_col = np.nonzero(have >= 0)
        marked.append(h_row * size64 + have[h_row, h_col])
        marked_at = np.concatenate(marked)
        scratch[marked_at] = -1
        if cdf is None:
            draws = self.rng.integers(0, size, size=(b, m), dtype=np.int64)
        else:
            draws = np.searchsorted(cdf, self.rng.random((b, m)), side="right")
            np.minimum(draws, size - 1, out=draws)
        flat = draws + np.arange(b, dtype=np.int64)[:, None] * size64
        blocked = scratch[flat] == -1
        cols = np.broadcast_to(np.arange(m, dtype=np.int32), (b, m))
        scratch[flat[:, ::-1].ravel()] = cols[:, ::-1].ravel()
        first = (scratch[flat] == cols) & ~blocked
        scratch[flat] = m
        scratch[marked_at] = m
        rank = np.cumsum(first, axis=1) + counts[users][:, None]  # 1-based slot in the row
        take = first & (rank <= n)
        rows, c = np.nonzero(take)
        out[users[rows], rank[rows, c] - 1] = draws[rows, c]
        counts[users] = np.minimum(rank[:, -1], n)
        result: np.ndarray = users[counts[users] < n]
        return result

    def exact(self, u: int, weights: np.ndarray | None) -> None:
        """One user's negatives from the explicit list of its allowed items."""
        out, counts, size = self.out, self.counts, self.size
        mask = np.ones(size, dtype=bool)
        mask[self.forbidden[self.bounds[u] : self.bounds[u + 1]] - np.int64(u) * size] = False
        mask[out[u, : counts[u]]] = False
        if weights is not None:
            mask &= weights > 0
        allowed = np.flatnonzero(mask)
        need = self.n - int(counts[u])
        if len(allowed) <= need:
            picked = self.rng.permutation(allowed)
        elif weights is None:
            picked = self.rng.choice(allowed, need, replace=False)
        else:
            p = weights[allowed] / weights[allowed].sum()
            picked = self.rng.choice(allowed, need, replace=False, p=p)
        out[u, counts[u] : counts[u] + len(picked)] = picked
        counts[u] += len(picked)


def _assemble(
    q: Qrels,
    catalog_ids: np.ndarray,
    negatives: np.ndarray,
    counts: np.ndarray,
    n: int,
    n_short: int,
) -> Candidates:
    """Per user its judged items then its negatives, over one item dictionary."""
    q_codes = lookup(q.item_ids, catalog_ids).astype(np.int64)
    outside = np.flatnonzero(q_codes < 0)  # judged items not in the catalogue
    item_ids = catalog_ids
    if len(outside):
        item_ids = _concat_ids(catalog_ids, q.item_ids[outside])
        q_codes[outside] = len(catalog_ids) + np.arange(len(outside))
    judged = np.diff(q.offsets).astype(np.int64)
    lengths = judged + counts
    offsets = np.zeros(q.n_users + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    items = np.empty(int(offsets[-1]), dtype=np.int64)
    user_of_judged = np.repeat(np.arange(q.n_users), judged)
    pos = offsets[:-1][user_of_judged] + (np.arange(len(q.items)) - q.offsets[user_of_judged])
    items[pos] = q_codes[q.items]
    # rows filled left to right: the first counts[u] slots
    flat = negatives.ravel() if (counts == n).all() else negatives[negatives >= 0]
    first = np.zeros(q.n_users + 1, dtype=np.int64)
    np.cumsum(counts, out=first[1:])
    neg_pos = np.repeat(offsets[:-1] + judged - first[:-1], counts)
    neg_pos += np.arange(len(flat))
    items[neg_pos] = flat
    c = Candidates.__new__(Candidates)
    c._set(q.user_ids, item_ids, lengths, items, len(catalog_ids))
    c.n_requested = n
    c.n_short = n_short
    return c


def _concat_ids(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.dtype.kind in "iu" and b.dtype.kind in "iu":
        return np.concatenate([a, b.astype(np.int64)])
    out = np.empty(len(a) + len(b), dtype=object)
    out[: len(a)] = a.tolist()
    out[len(a) :] = b.tolist()
    return out


# ------------------------------------------------------------------ restriction
@dataclass
class SamplingSummary:
    """What ``evaluate(..., candidates=)`` did: ``EvaluationReport.sampling``.

    Attributes
    ----------
    n_rows_dropped : int
        Run rows outside the candidates: not ranked.
    n_candidates_absent : int
        Candidates of the run's users that the run does not score: ranked below
        every candidate it scores (the metrics see them unretrieved; the
        corrections give an absent relevant item the last sampled rank, n + 1).
    n_users_without_candidates : int
        Run users without a candidate set: all their rows dropped.
    n_rows_kept : int
        Run rows inside the candidates: the rows the metrics rank. ``evaluate``
        refuses candidates that keep none (every metric would be 0) unless
        ``allow_unmatched=True``.
    correction : str or None
        The correction applied to the metrics, if any.
    catalog_size : int or None
        N, the catalogue size the corrections assume.
    gamma : float or None
        The variance weight of ``correction="bv"``.
    """

    n_rows_dropped: int = 0
    n_candidates_absent: int = 0
    n_users_without_candidates: int = 0
    n_rows_kept: int = 0
    correction: str | None = None
    catalog_size: int | None = None
    gamma: float | None = None

    def add(self, other: Restriction | SamplingSummary) -> None:
        """Count one batch's restriction (or another set of users' summary)."""
        self.n_rows_dropped += other.n_rows_dropped
        self.n_candidates_absent += other.n_candidates_absent
        self.n_users_without_candidates += other.n_users_without_candidates
        self.n_rows_kept += other.n_rows_kept

    def merge(self, other: SamplingSummary) -> SamplingSummary:
        """The counts of two disjoint sets of users (partitions) together."""
        out = replace(self)
        out.add(other)
        return out

    def describe(self) -> str:
        """One line for a report: what the candidate sets left out, and the correction.

        Examples
        --------
        >>> from receval import SamplingSummary
        >>> summary = SamplingSummary(14, 0, 1, n_rows_kept=6, correction="rank",
        ...                           catalog_size=100)
        >>> print(summary.describe())
        candidates: 6 run rows kept, 14 outside them dropped, 1 run user without a
        candidate set, 0 candidates the run does not score (ranked last); correction
        rank, catalog size 100
        """
        text = (
            f"candidates: {v.counted(self.n_rows_kept, 'run row')} kept, "
            f"{self.n_rows_dropped:,} outside them dropped, "
            f"{v.counted(self.n_users_without_candidates, 'run user')} without a candidate "
            f"set, {v.counted(self.n_candidates_absent, 'candidate')} the run does not score "
            f"(ranked last)"
        )
        if self.correction is not None:
            text += f"; correction {self.correction}, catalog size {self.catalog_size}"
            if self.gamma is not None:
                text += f", gamma {self.gamma:g}"
        return text


@dataclass
class Restriction:
    """A run restricted to candidate sets, with what the restriction left out."""

    run: Run
    n_rows_dropped: int  # run rows outside the candidates
    n_candidates_absent: int  # candidate pairs of the run's users that the run does not score
    n_users_without_candidates: int  # run users with no candidate set
    n_rows_kept: int  # run rows inside the candidates


def restrict_run(r: Run, c: Candidates) -> Restriction:
    """``r`` with each user's rows outside its candidate set dropped (order kept).

    Parameters
    ----------
    r : Run
        The run.
    c : Candidates
        The candidate sets.

    Returns
    -------
    restriction : Restriction
        The restricted run and the counts of what it left out.
    """
    n_items = np.int64(len(r.item_ids))
    # the candidate rows of the run's users alone, as (run user, run item) codes: a
    # batch's cost does not grow with the table's other users
    at = lookup(r.user_ids, c.user_ids).astype(np.int64)
    users = np.flatnonzero(at >= 0)
    starts = c.offsets[at[users]]
    lengths = c.offsets[at[users] + 1] - starts
    row_user = np.repeat(users, lengths)
    rows = np.arange(len(row_user)) + np.repeat(starts - (np.cumsum(lengths) - lengths), lengths)
    row_item = lookup(c.item_ids[c.items[rows]], r.item_ids).astype(np.int64)
    found = row_item >= 0
    cand_keys = row_user[found] * n_items + row_item[found]
    run_user = np.repeat(np.arange(r.n_users, dtype=np.int64), np.diff(r.offsets))
    run_keys = run_user * n_items + r.items.astype(np.int64)
    keep = isin_ints(run_keys, cand_keys)
    lengths = np.bincount(run_user[keep], minlength=r.n_users)
    offsets = np.zeros(r.n_users + 1, dtype=r.offsets.dtype)
    np.cumsum(lengths, out=offsets[1:])
    out = Run.from_ranked(
        r.user_ids, r.item_ids, offsets, r.items[keep], r.scores[keep],
        from_ranks=r.from_ranks, name=r.name,
    )  # fmt: skip
    n_kept = int(keep.sum())
    return Restriction(
        run=out,
        n_rows_dropped=int(len(keep) - n_kept),
        n_candidates_absent=int(len(rows) - n_kept),
        n_users_without_candidates=int(r.n_users - len(users)),
        n_rows_kept=n_kept,
    )

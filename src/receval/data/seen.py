"""Each user's seen items (a training log), to mask them out of ranked lists.

Full-ranking evaluation scores every item of the catalogue for a user, and the
items the user interacted with in training are the easiest to rank high and
the ones a recommender must not show again: they are removed from each list
*before* it is cut at k (RecBole's and LensKit's full-sort protocol).
:class:`SeenItems` holds them once, built from any interaction log that
``train=`` takes (a :class:`~receval.Qrels` or :class:`~receval.Run`, a
DataFrame with ``user`` and ``item`` columns, a pair ``(users, items)``, a
mapping ``{user: items}``), as integer codes: per user, the ascending codes
of its distinct items (CSR). It removes them from a run
(:meth:`SeenItems.mask`) and gives the columns of a score matrix to mask
(:meth:`SeenItems.item_indices`).

The protocol is declared by two keywords, the same wherever lists are cut
(:func:`receval.evaluate`, ``receval.metric``, :func:`receval.spark.evaluate`,
``receval rank --exclude FILE / --repeats``):

- ``exclude=log``: each user's items in the log are removed from the lists;
  the rows removed are counted in the report (:class:`MaskingSummary`);
- ``repeats=True``: repeat consumption is declared instead: a user may
  consume an item again, so nothing is masked, and the report says so.

Passing both is an error (:func:`as_seen`); passing neither declares nothing.
In a retrieval from embeddings, the log's pairs whose user or item has no vector
mask nothing, and are counted, with a few of their ids (:class:`PairCounts`, also
of ``candidates=``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._kernels import compiled
from .._parameters import counted, format_values
from ..exceptions import InvalidParameterError, UnmatchedIdsWarning, warn
from ._lookup import distinct, lookup, types_note
from ._ranked import Qrels, Run
from ._string_buffers import is_view

__all__ = [
    "N_EXAMPLES",
    "Masked",
    "MaskingSummary",
    "PairCounts",
    "SeenItems",
    "as_seen",
    "check_declaration",
    "smallest_ids",
    "warn_unmatched_exclusions",
]


@dataclass(frozen=True, eq=False, repr=False)
class SeenItems:
    """Each user's seen items: the distinct (user, item) pairs of a log, by user.

    Build it with :meth:`from_log`; the fields are the codes of the pairs.

    Parameters
    ----------
    user_ids : ndarray of shape (n_users,)
        Distinct user ids of the log, in order of first appearance.
    item_ids : ndarray of shape (n_items,)
        Distinct item ids of the log, in order of first appearance.
    offsets : ndarray of shape (n_users + 1,)
        User ``u``'s items are ``items[offsets[u]:offsets[u + 1]]``.
    items : ndarray of shape (n_pairs,)
        Item codes (int32 positions in ``item_ids``), ascending and distinct
        within each user.

    See Also
    --------
    receval.evaluate : ``exclude=`` masks a run's seen items before the cut at k.

    Examples
    --------
    >>> from receval import Run, SeenItems
    >>> seen = SeenItems.from_log({"u1": ["a", "b"], "u2": ["c"]})
    >>> seen.n_users, seen.n_pairs
    (2, 3)
    >>> run = Run.from_dict({"u1": {"a": 0.9, "c": 0.8, "b": 0.7}, "u3": {"a": 0.5}})
    >>> masked = seen.mask(run)
    >>> masked.run.to_dict(), masked.n_removed, masked.removed.tolist()
    ({'u1': {'c': 0.8}, 'u3': {'a': 0.5}}, 2, [2, 0])
    """

    user_ids: np.ndarray
    item_ids: np.ndarray
    offsets: np.ndarray
    items: np.ndarray

    def __post_init__(self) -> None:  # the compiled core reads them as they are
        object.__setattr__(self, "offsets", np.ascontiguousarray(self.offsets, dtype=np.int64))
        object.__setattr__(self, "items", np.ascontiguousarray(self.items, dtype=np.int32))

    @classmethod
    def from_log(cls, log: Any, *, name: str = "exclude", func: str = "SeenItems") -> SeenItems:
        """The seen items of an interaction log (a repeated pair counts once).

        Parameters
        ----------
        log : SeenItems, Qrels, Run, DataFrame, pair (users, items) or mapping
            The interactions: a container's (user, item) rows whatever their
            grade or score, a frame's ``user`` and ``item`` columns, a pair of
            arrays, or ``{user: items}``.
        name : str, default="exclude"
            The argument's name in error messages.
        func : str, default="SeenItems"
            The caller's name in error messages.

        Returns
        -------
        seen : SeenItems
            Of no pair for a log of none (``{}``, ``{user: []}``): it masks nothing.

        Raises
        ------
        InputValidationError
            Another type, columns missing, lengths that differ, missing ids.
        """
        from ..metrics.beyond.history import read_log

        if isinstance(log, SeenItems):
            return log
        interactions = read_log(log, name, func, empty=True)
        if not len(interactions.users):  # no pair: masks nothing, as no log
            return cls.empty()
        users, items = interactions.distinct_pairs()
        offsets = np.zeros(interactions.n_users + 1, dtype=np.int64)
        np.cumsum(np.bincount(users, minlength=interactions.n_users), out=offsets[1:])
        return cls(interactions.user_ids, interactions.item_ids, offsets, items)

    @classmethod
    def empty(cls) -> SeenItems:
        """A log without a pair: masks nothing (a partition of users without history)."""
        none = np.empty(0, dtype=np.int64)
        return cls(none, none, np.zeros(1, dtype=np.int64), none)

    @property
    def n_users(self) -> int:
        """Users of the log."""
        return len(self.user_ids)

    @property
    def n_items(self) -> int:
        """Distinct items of the log."""
        return len(self.item_ids)

    @property
    def n_pairs(self) -> int:
        """Distinct (user, item) pairs of the log."""
        return len(self.items)

    def items_of(self, user: Any) -> np.ndarray:
        """The ids of one user's seen items (empty for a user absent from the log)."""
        (code,) = lookup(np.asarray([user]), self.user_ids)
        if code < 0:
            return self.item_ids[:0]
        result: np.ndarray = self.item_ids[self.items[self.offsets[code] : self.offsets[code + 1]]]
        return result

    def seen_rows(
        self, users: np.ndarray, user_ids: np.ndarray, items: np.ndarray, item_ids: np.ndarray
    ) -> np.ndarray:
        """Whether each row (``user_ids[users[r]]``, ``item_ids[items[r]]``) is a seen
        pair, for the rows of a container of other codes (some rows of a run or qrels, in
        any order); ids match by value, as :func:`receval.evaluate` matches them (an int
        7 and a string "7" alike)."""
        users = np.asarray(users, dtype=np.int64)
        order = None
        if len(users) > 1 and bool((users[1:] < users[:-1]).any()):
            order = np.argsort(users, kind="stable")
            users, items = users[order], np.asarray(items)[order]
        offsets = np.zeros(len(user_ids) + 1, dtype=np.int64)
        np.cumsum(np.bincount(users, minlength=len(user_ids)), out=offsets[1:])
        rows = self._rows(offsets, np.asarray(items), user_ids, item_ids)[0]
        if order is not None:
            out = np.empty_like(rows)
            out[order] = rows
            rows = out
        return rows

    def seen_lists(self, lists: Run | Qrels) -> tuple[np.ndarray, np.ndarray]:
        """Whether each row of a run or qrels (in their order: by user, then ranked or
        by item) holds an item its user has seen, and how many rows of each user do."""
        return self._rows(lists.offsets, lists.items, lists.user_ids, lists.item_ids)

    def _rows(
        self, offsets: np.ndarray, items: np.ndarray, user_ids: np.ndarray, item_ids: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """The compiled core's seen rows of CSR lists (``offsets``, ``items``: codes of
        ``user_ids`` and ``item_ids``) and each list's count."""
        user_map = lookup(np.asarray(user_ids), self.user_ids)
        item_map = lookup(np.asarray(item_ids), self.item_ids)
        rows: tuple[np.ndarray, np.ndarray] = compiled().seen_rows(
            np.ascontiguousarray(offsets, dtype=np.int64),
            np.ascontiguousarray(items, dtype=np.int32),
            np.ascontiguousarray(user_map, dtype=np.int32),
            np.ascontiguousarray(item_map, dtype=np.int32),
            self.offsets,
            self.items,
        )
        return rows

    def mask(self, run: Run) -> Masked:
        """``run`` without each user's seen items (every other row, in its order).

        Parameters
        ----------
        run : Run
            The ranked lists.

        Returns
        -------
        masked : Masked
            The masked run (the same users, a user whose every item was seen
            holds an empty list), the rows removed per run user and in all.
        """
        seen, removed = self.seen_lists(run)
        n_removed = int(removed.sum())
        if not n_removed:
            return Masked(run, removed, 0)
        keep = ~seen
        offsets = np.zeros(run.n_users + 1, dtype=run.offsets.dtype)
        np.cumsum(np.diff(run.offsets) - removed, out=offsets[1:])
        out = Run.from_ranked(
            run.user_ids, run.item_ids, offsets, run.items[keep], run.scores[keep],
            from_ranks=run.from_ranks, name=run.name,
        )  # fmt: skip
        return Masked(out, removed, n_removed)

    def item_indices(self, users: Any, item_ids: Any) -> tuple[np.ndarray, np.ndarray]:
        """Per user, the positions in ``item_ids`` of its seen items: the columns of a
        (users x items) score matrix to mask before its top k are taken.

        Parameters
        ----------
        users : array-like of shape (n,)
            User ids (the rows of the matrix); a user absent from the log has none.
        item_ids : array-like of shape (n_columns,)
            The item id of each column; seen items absent from it are ignored.

        Returns
        -------
        offsets : ndarray of shape (n + 1,)
            User ``i``'s columns are ``indices[offsets[i]:offsets[i + 1]]``.
        indices : ndarray of shape (offsets[-1],)
            Column positions (int64), ascending within each user.

        Examples
        --------
        >>> from receval import SeenItems
        >>> seen = SeenItems.from_log(([1, 1, 2], [10, 30, 20]))
        >>> offsets, indices = seen.item_indices([2, 7, 1], [30, 20, 10])
        >>> offsets.tolist(), indices.tolist()
        ([0, 1, 1, 3], [1, 0, 2])
        """
        codes = lookup(np.asarray(users), self.user_ids).astype(np.int64)
        columns = lookup(self.item_ids, np.asarray(item_ids)).astype(np.int64)
        found = codes >= 0
        starts = np.where(found, self.offsets[np.maximum(codes, 0)], 0)
        lengths = np.where(found, self.offsets[codes + 1] - starts, 0)  # a log of no user too
        total = int(lengths.sum())
        first = np.zeros(len(codes) + 1, dtype=np.int64)
        np.cumsum(lengths, out=first[1:])
        rows = np.repeat(starts - first[:-1], lengths) + np.arange(total, dtype=np.int64)
        owner = np.repeat(np.arange(len(codes), dtype=np.int64), lengths)
        cols = columns[self.items[rows]]
        kept = cols >= 0
        owner, cols = owner[kept], cols[kept]
        order = np.lexsort((cols, owner))
        offsets = np.zeros(len(codes) + 1, dtype=np.int64)
        np.cumsum(np.bincount(owner, minlength=len(codes)), out=offsets[1:])
        return offsets, cols[order]

    def __eq__(self, other: object) -> bool:
        """The same pairs with the same ids (accumulators with equal options merge)."""
        if not isinstance(other, SeenItems):
            return NotImplemented
        return all(np.array_equal(a, b) for a, b in zip(self._arrays(), other._arrays(),
                                                           strict=True))  # fmt: skip

    __hash__ = None  # type: ignore[assignment]

    def _arrays(self) -> tuple[np.ndarray, ...]:
        return self.user_ids, self.item_ids, self.offsets, self.items

    def __reduce__(self) -> tuple[Any, ...]:  # the search keys stay behind
        return (SeenItems, self._arrays())

    def __repr__(self) -> str:
        return f"SeenItems(n_users={self.n_users}, n_items={self.n_items}, n_pairs={self.n_pairs})"


@dataclass(frozen=True)
class Masked:
    """A run with its seen items removed (:meth:`SeenItems.mask`).

    Attributes
    ----------
    run : Run
        The masked run: the same users, the other rows in their order.
    removed : ndarray of shape (run.n_users,)
        Rows removed from each user's list.
    n_removed : int
        Rows removed in all.
    """

    run: Run
    removed: np.ndarray
    n_removed: int


@dataclass(frozen=True)
class MaskingSummary:
    """How the lists were masked: ``EvaluationReport.masking``.

    Attributes
    ----------
    repeats : bool
        True: repeat consumption was declared (``repeats=True``): nothing was
        masked. False: each user's seen items (``exclude=``) were removed.
    n_rows_removed : int
        Run rows removed: items the user had seen (of every run user).
    n_users_masked : int
        Run users with at least one row removed.
    n_users_without_history : int
        Run users absent from the log: nothing to remove from their lists.
    n_qrels_seen : int
        Qrels rows whose item the user had seen: kept in the qrels (they count
        in R, the user's relevant items), but no masked list can retrieve them.
    """

    repeats: bool = False
    n_rows_removed: int = 0
    n_users_masked: int = 0
    n_users_without_history: int = 0
    n_qrels_seen: int = 0

    def merge(self, other: MaskingSummary) -> MaskingSummary:
        """The counts of two disjoint sets of users together."""
        return MaskingSummary(
            self.repeats or other.repeats,
            self.n_rows_removed + other.n_rows_removed,
            self.n_users_masked + other.n_users_masked,
            self.n_users_without_history + other.n_users_without_history,
            self.n_qrels_seen + other.n_qrels_seen,
        )

    def describe(self) -> str:
        """One line for a report: what was masked, or that repeats were declared."""
        if self.repeats:
            return "repeat consumption declared: seen items kept in the lists"
        lists = counted(self.n_users_masked, "user's list", "users' lists")
        text = f"{counted(self.n_rows_removed, 'seen item')} removed from {lists}"
        if self.n_qrels_seen:
            text += (
                f", {counted(self.n_qrels_seen, 'judged item')} seen in training "
                f"(kept in the qrels)"
            )
        return text


#: The ids of users and of items without a vector that :class:`PairCounts` keeps: one
#: more than a message shows, so that it shows ``...`` when there are more.
N_EXAMPLES = 6


@dataclass(frozen=True)
class PairCounts:
    """The distinct (user, item) pairs of a log given beside embeddings (``exclude=``,
    ``candidates=``), and those whose user or item has no vector, which mask (or
    allow) nothing, with a few of those users and items: what
    :func:`receval.retrieval.masks.unmatched_pairs` counts.

    Counts of disjoint sets of users add up (:meth:`merge`): the updates of an
    accumulator, the partitions of Spark. The examples are the :data:`N_EXAMPLES`
    smallest ids seen, so any split of the users, merged in any order, keeps the
    same ones, in bounded memory. Counts of some of the users of a log that each
    update (or partition) holds whole do not know the users never given: they keep
    which of the log's users were given (``users_given``, one bit a user), and
    :meth:`of_all` counts and names the others once every user is in.

    Attributes
    ----------
    n_pairs : int
        Distinct pairs.
    n_users_absent : int
        Pairs whose user has no vector.
    n_items_absent : int
        Pairs whose user has a vector and whose item has none.
    users_absent, items_absent : tuple
        The smallest ids (at most :data:`N_EXAMPLES`, sorted, as Python values) of
        the users and of the items without a vector among those pairs.
    users_given : ndarray of uint8
        Counts of some users: the log's users given a vector so far, as the bits
        of ``np.packbits`` over the log's users (empty: none; not compared).

    Examples
    --------
    >>> a = PairCounts(4, 1, 2, users_absent=("u9",), items_absent=(12, 7))
    >>> a.merge(PairCounts(3, 0, 1, items_absent=(5,)))
    PairCounts(n_pairs=7, n_users_absent=1, n_items_absent=3, users_absent=('u9',), \
items_absent=(5, 7, 12))
    """

    n_pairs: int = 0
    n_users_absent: int = 0
    n_items_absent: int = 0
    users_absent: tuple[Any, ...] = ()
    items_absent: tuple[Any, ...] = ()
    users_given: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.uint8),
                                    repr=False, compare=False)  # fmt: skip

    def __post_init__(self) -> None:
        for name in ("users_absent", "items_absent"):
            object.__setattr__(self, name, smallest_ids(getattr(self, name)))

    @property
    def n_unmatched(self) -> int:
        """Pairs whose user or item has no vector."""
        return self.n_users_absent + self.n_items_absent

    def merge(self, other: PairCounts) -> PairCounts:
        """The counts of two disjoint sets of users together."""
        a, b = sorted((self.users_given, other.users_given), key=len)
        given = b.copy()
        given[: len(a)] |= a
        return PairCounts(
            self.n_pairs + other.n_pairs, self.n_users_absent + other.n_users_absent,
            self.n_items_absent + other.n_items_absent,
            self.users_absent + other.users_absent, self.items_absent + other.items_absent,
            given,
        )  # fmt: skip

    def of_all(self, log: Any) -> PairCounts:
        """These counts of the pairs of the users given a vector (``some_users`` of
        :func:`~receval.retrieval.masks.unmatched_pairs`), as the counts of every pair
        of ``log`` (a :class:`SeenItems`, or a table of the same fields): the user of
        every other pair has no vector, and the smallest of those users are named."""
        lengths = np.diff(log.offsets)
        given = np.zeros(len(lengths), dtype=bool)  # (unpackbits pads an empty array
        bits = np.unpackbits(self.users_given)[: len(lengths)]  # with garbage)
        given[: len(bits)] = bits
        absent = ~given & (lengths > 0)
        return PairCounts(len(log.items), int(lengths[absent].sum()), self.n_items_absent,
                          smallest_ids(log.user_ids[absent]), self.items_absent)  # fmt: skip


def smallest_ids(ids: Any) -> tuple[Any, ...]:
    """The :data:`N_EXAMPLES` smallest distinct ids of ``ids`` (a NumPy or Arrow array,
    or any iterable; NumPy and Arrow values as Python's), sorted (ids of different
    types apart, by type name): the examples of every message that shows a few ids,
    the same for any split of the ids, merged in any order.

    Examples
    --------
    >>> smallest_ids(np.array([9, 3, 3, 12, 1, 7, 8, 2]))
    (1, 2, 3, 7, 8, 9)
    >>> import pyarrow as pa
    >>> smallest_ids(pa.array(["u7", "u10", "u2"]))
    ('u10', 'u2', 'u7')
    """
    if isinstance(ids, np.ndarray) and ids.dtype.kind in "iufbUS":  # sorted by NumPy
        ids = _fewest_numpy(ids)
    elif hasattr(ids, "to_pylist"):  # an Arrow array
        ids = _fewest_arrow(ids)
    values = {x.item() if isinstance(x, np.generic) else x for x in ids}
    return tuple(sorted(values, key=lambda x: (type(x).__name__, x))[:N_EXAMPLES])


def _fewest_numpy(ids: np.ndarray) -> list[Any]:
    """The :data:`N_EXAMPLES` smallest distinct values of a NumPy array: of the values
    up to the ``N_EXAMPLES``-th smallest of a sample (integers and strings of a large
    array: one comparison per value, rather than a sort of them all)."""
    ids = ids.ravel()
    if len(ids) > 1024 and ids.dtype.kind in "iuUS":
        sample = distinct(ids[:: len(ids) // 512])
        if len(sample) >= N_EXAMPLES:
            ids = ids[ids <= sample[N_EXAMPLES - 1]]
    out: list[Any] = distinct(ids)[:N_EXAMPLES].tolist()
    return out


def _fewest_arrow(ids: Any) -> list[Any]:
    """The :data:`N_EXAMPLES` smallest distinct values of an Arrow array (as
    :func:`_fewest_numpy`: Arrow's bottom k, of the distinct values where the k
    smallest repeat one), as Python values; every value of a type Arrow does not
    order."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if is_view(ids.type):  # pyarrow 16 and later
        ids = ids.cast(pa.large_string())
    if len(ids) <= N_EXAMPLES:
        return list(ids.to_pylist())
    try:
        fewest = ids.take(pc.bottom_k_unstable(ids, N_EXAMPLES))
        if pc.count_distinct(fewest).as_py() < N_EXAMPLES:
            unique = pc.unique(ids)
            fewest = unique.take(pc.bottom_k_unstable(unique, N_EXAMPLES))
    except pa.ArrowNotImplementedError:  # pragma: no cover - ids of a type without order
        return list(ids.to_pylist())
    return list(fewest.to_pylist())


def check_declaration(excluding: bool, repeats: Any, func: str) -> None:
    """Raise unless ``repeats`` is a bool, False when ``exclude`` is given (``excluding``):
    the two declarations exclude each other."""
    if not isinstance(repeats, (bool, np.bool_)):
        raise InvalidParameterError(
            f"The 'repeats' parameter of {func} must be a bool. Got {repeats!r} instead."
        )
    if excluding and repeats:
        raise InvalidParameterError(
            f"{func}: pass exclude (the seen items to remove from the lists) or repeats=True "
            f"(users may consume an item again: nothing removed), not both."
        )


def as_seen(exclude: Any, repeats: bool, func: str) -> SeenItems | None:
    """The :class:`SeenItems` of ``exclude=`` (None: nothing to mask, as of a log of no
    pair), checked against ``repeats=`` (:func:`check_declaration`)."""
    check_declaration(exclude is not None, repeats, func)
    seen = None if exclude is None else SeenItems.from_log(exclude, func=func)
    return seen if seen is not None and seen.n_pairs else None


def warn_unmatched_exclusions(
    func: str, kind: str, excluded: Any, others: Any, side: str, where: str
) -> None:
    """An :class:`~receval.exceptions.UnmatchedIdsWarning`: the exclusions
    (``exclude=``) name none of the ``kind`` ids of ``side``, so they exclude nothing.

    Parameters
    ----------
    func : str
        The function the message names.
    kind : {"user", "item"}
        The ids that match none.
    excluded : array-like
        The distinct ``kind`` ids of the exclusions (NumPy or Arrow).
    others : array-like
        The ``kind`` ids of ``side`` (or a few of them), for the message.
    side : str
        What the exclusions are matched against ("run", "qrels", "catalog").
    where : str
        What none of the excluded ids is ("a run user", "in the catalog").

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_unmatched_exclusions("evaluate", "user", np.array([1, 2]),
    ...                               np.array(["u1"], dtype=object), "run", "a run user")
    >>> print(caught[0].message)
    evaluate: none of the 2 users of the exclusions (exclude=) is a run user, e.g.
    excluded users [1, 2], run users ['u1'] (the exclusions' are int64, the run's str:
    an integer id matches the string of its decimal digits, 7 matches '7' but not '07'
    or '7.0'; cast one side so that both hold the same ids (e.g. .astype(int) on numeric
    strings)), so they exclude nothing; check the ids for a prefix, a type or a column
    mix-up.
    """
    shown, others = _shown(excluded), _shown(others)
    note = types_note(shown, others, ("exclusions'", "qrels'" if side == "qrels" else side + "'s"))
    warn(
        f"{func}: none of the {counted(len(excluded), kind)} of the exclusions (exclude=) is "
        f"{where}, e.g. excluded {kind}s {format_values(shown)}, {side} {kind}s "
        f"{format_values(others)}{note}, so they exclude nothing; check the ids for a prefix, "
        f"a type or a column mix-up.",
        UnmatchedIdsWarning,
    )


def _shown(ids: Any) -> np.ndarray:
    """The smallest of ``ids`` for a message, as NumPy of their type where numbers."""
    out = np.array(smallest_ids(ids))
    return out if out.dtype.kind in "iufb" else out.astype(object)

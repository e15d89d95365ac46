"""Per-user item lists on the rows of the matrices: the items each user must not be
shown (``exclude=``) and the items each user may be shown (``candidates=``).

Both are CSR tables over the user rows: ``offsets`` (n_users + 1) into ``items``,
the item rows of each user sorted ascending and distinct. Pairs whose user or item
has no vector are ignored, and counted (:func:`unmatched_pairs`) by every backend.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import _validation as v
from ..data._lookup import distinct, lookup
from ..data.seen import PairCounts, smallest_ids
from ..exceptions import InputValidationError, warn

__all__ = [
    "ItemLists",
    "Unmatched",
    "candidate_lists",
    "excluded_lists",
    "item_lists",
    "unmatched_pairs",
]


@dataclass(frozen=True)
class ItemLists:
    """Sorted distinct item rows per user row."""

    offsets: np.ndarray
    items: np.ndarray

    def of_users(self, start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
        """(offsets from 0, items) of user rows ``start:stop``."""
        a, b = int(self.offsets[start]), int(self.offsets[stop])
        return self.offsets[start : stop + 1] - a, self.items[a:b]


def item_lists(users: np.ndarray, items: np.ndarray, n_users: int, n_items: int) -> ItemLists:
    """The table of pairs (user row, item row); a row of -1 is a pair without a vector."""
    found = (users >= 0) & (items >= 0)
    keys = distinct(users[found].astype(np.int64) * n_items + items[found])
    rows = keys // n_items
    offsets = np.zeros(n_users + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n_users), out=offsets[1:])
    return ItemLists(offsets, (keys % n_items).astype(np.int32))


#: What the pairs of each argument that name no vector do, for the messages.
_EFFECTS = {"exclude": ("masks", "nothing"), "candidates": ("is", "never scored")}


@dataclass(frozen=True)
class Unmatched:
    """The pairs of ``exclude=`` or ``candidates=`` whose user or item has no vector
    (counted, with a few of those users and items), for the report and its message.

    Attributes
    ----------
    argument : {"exclude", "candidates"}
        The argument the pairs come from.
    counts : PairCounts
    """

    argument: str
    counts: PairCounts

    @property
    def report_field(self) -> str:
        """The count's name in :class:`~receval.EvaluationReport` and the JSON counts:
        ``n_exclude_unmatched``, ``n_candidates_unmatched``."""
        return f"n_{self.argument}_unmatched"

    def text(self, name: str | None = None) -> str:
        """What was left out of ``name`` (the argument, or the command's option), and
        the fix.

        Examples
        --------
        >>> counts = PairCounts(5, 1, 3, users_absent=(5,), items_absent=(9, 7, 8))
        >>> print(Unmatched("exclude", counts).text())
        4 of the 5 distinct (user, item) pairs of exclude mask nothing, since their user
        or item has no vector (users without one: 1 pair, e.g. [5]; items without one:
        3 pairs, e.g. [7, 8, 9]); check their ids against user_ids and item_ids (type,
        prefix) if they should match.
        >>> print(Unmatched("candidates", PairCounts(4, 0, 1)).text())
        1 of the 4 distinct (user, item) pairs of candidates is never scored, since its
        user or item has no vector (items without one: 1 pair); check their ids against
        user_ids and item_ids (type, prefix) if they should match.
        """
        c = self.counts
        parts = [
            f"{what} without one: {v.counted(n, 'pair')}"
            + (f", e.g. {v.format_values(ids)}" if len(ids) else "")
            for n, what, ids in ((c.n_users_absent, "users", c.users_absent),
                                 (c.n_items_absent, "items", c.items_absent))
            if n
        ]  # fmt: skip
        effect, what = _EFFECTS[self.argument]
        return (
            f"{v.of_the(c.n_unmatched, c.n_pairs, 'distinct (user, item) pair')} of "
            f"{name or self.argument} {v.verb(c.n_unmatched, effect)} {what}, since "
            f"{'its' if c.n_unmatched == 1 else 'their'} user or item has no vector "
            f"({'; '.join(parts)}); check their ids against user_ids and item_ids (type, "
            f"prefix) if they should match."
        )

    def warn(self, func: str) -> None:
        """An :class:`~receval.exceptions.UnmatchedIdsWarning` with :meth:`text`, if some
        pair names no vector."""
        if self.counts.n_unmatched:
            from ..exceptions import UnmatchedIdsWarning

            warn(f"{func}: {self.text()}", UnmatchedIdsWarning)


def unmatched_pairs(
    argument: str, table: Any, user_ids: np.ndarray, item_ids: np.ndarray, *,
    some_users: bool = False,
) -> Unmatched:  # fmt: skip
    """The pairs of ``argument`` whose user is none of ``user_ids`` or whose item is
    none of ``item_ids``: what every backend counts (in memory, by blocks of users,
    on Spark).

    Parameters
    ----------
    argument : {"exclude", "candidates"}
    table : SeenItems or Candidates
        The argument's distinct pairs as codes: ``user_ids``, ``item_ids``,
        ``offsets`` (per user) and ``items``.
    user_ids, item_ids : ndarray
        The ids of the rows of the user and item vectors.
    some_users : bool, default=False
        ``user_ids`` are some of the users (an update of an accumulator, a
        partition): only their pairs are counted, with which users of ``table``
        they are, and :meth:`PairCounts.of_all` completes the merged counts (those
        without a vector named) once every user is in.
    """
    lengths = np.diff(table.offsets)
    codes = lookup(np.asarray(user_ids), table.user_ids)
    given = np.zeros(len(table.user_ids), dtype=bool)
    given[codes[codes >= 0]] = True
    pairs = table.items[np.repeat(given, lengths)]  # the pairs of users with a vector
    absent = pairs[lookup(table.item_ids, np.asarray(item_ids))[pairs] < 0]
    items = smallest_ids(table.item_ids[distinct(absent)])
    counts = PairCounts(len(pairs), 0, len(absent), (), items, np.packbits(given))
    # some users: the users without a vector are known once every user is in
    return Unmatched(argument, counts if some_users else counts.of_all(table))


def _rows_of(ids: np.ndarray, codes: np.ndarray, dictionary: np.ndarray) -> np.ndarray:
    """The row in ``dictionary`` of each ``ids[codes]`` (-1 where absent)."""
    rows: np.ndarray = lookup(ids, dictionary)[codes]
    return rows


def excluded_lists(
    exclude: Any, user_ids: np.ndarray, item_ids: np.ndarray, func: str, *,
    some_users: bool = False,
) -> tuple[ItemLists, Unmatched]:  # fmt: skip
    """The training items of each user row, from anything ``train=`` takes (the
    seen-items table of ``evaluate(exclude=...)``), and its pairs that mask nothing;
    ``some_users``: ``user_ids`` are some of the users (see :func:`unmatched_pairs`),
    which may mask nothing."""
    from ..data.seen import SeenItems

    seen = SeenItems.from_log(exclude, name="exclude", func=func)
    offsets, items = seen.item_indices(user_ids, item_ids)
    if not some_users:
        _check_matched(len(items), seen.user_ids, seen.item_ids, "exclude", func)
    unmatched = unmatched_pairs("exclude", seen, user_ids, item_ids, some_users=some_users)
    return ItemLists(offsets, items.astype(np.int32)), unmatched


def _check_matched(n_matched: int, users: np.ndarray, items: np.ndarray, name: str,
                   func: str) -> None:  # fmt: skip
    """An error when no pair of ``name`` names a user row and an item row: ids of
    another type or with a prefix would otherwise mask (or allow) nothing."""
    if n_matched == 0 and len(items):
        raise InputValidationError(
            f"{func}: no (user, item) pair of {name}= names a user of user_ids and an item of "
            f"item_ids. Got users {v.format_values(users[:5])} and items "
            f"{v.format_values(items[:5])}; check that the ids are the same (type, prefix)."
        )


def candidate_lists(
    candidates: Any, user_ids: np.ndarray, item_ids: np.ndarray, func: str
) -> tuple[ItemLists, Unmatched]:
    """The candidate items of each user row, from what ``evaluate(candidates=...)``
    takes, and its pairs that are never scored."""
    from ..sampled.negatives import as_candidates

    c = as_candidates(candidates, func)
    users = np.repeat(np.arange(c.n_users), np.diff(c.offsets))
    lists = item_lists(
        _rows_of(c.user_ids, users, user_ids),
        _rows_of(c.item_ids, c.items, item_ids),
        len(user_ids), len(item_ids),
    )  # fmt: skip
    _check_matched(len(lists.items), c.user_ids, c.item_ids, "candidates", func)
    return lists, unmatched_pairs("candidates", c, user_ids, item_ids)

"""Per-user item lists on the rows of the matrices: the items each user must not be
shown (``exclude=``) and the items each user may be shown (``candidates=``).

Both are CSR tables over the user rows: ``offsets`` (n_users + 1) into ``items``,
the item rows of each user sorted ascending and distinct. Pairs whose user or item
has no vector are ignored; those of ``exclude=`` are counted (:class:`Unmatched`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import _validation as v
from ..data._lookup import distinct, lookup
from ..exceptions import InputValidationError

__all__ = ["ItemLists", "Unmatched", "candidate_lists", "excluded_lists", "item_lists"]


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


@dataclass(frozen=True)
class Unmatched:
    """The distinct (user, item) pairs of ``exclude=`` that mask nothing, since their
    user or their item has no vector.

    Attributes
    ----------
    n_pairs : int
        Distinct pairs of ``exclude``.
    n_users_absent : int
        Pairs whose user has no vector.
    n_items_absent : int
        Pairs whose user has a vector and whose item has none.
    users, items : ndarray
        A few of those users and items, for the message.
    """

    n_pairs: int
    n_users_absent: int
    n_items_absent: int
    users: np.ndarray
    items: np.ndarray

    @property
    def n_unmatched(self) -> int:
        """Pairs that mask nothing."""
        return self.n_users_absent + self.n_items_absent

    def text(self, name: str) -> str:
        """What was left out of ``name`` (the argument or the option), and the fix.

        Examples
        --------
        >>> print(Unmatched(5, 1, 3, np.array([5]), np.array([7, 8, 9])).text("exclude"))
        4 of the 5 distinct (user, item) pairs of exclude mask nothing, since their user
        or item has no vector (users without one: 1 pair, e.g. [5]; items without one:
        3 pairs, e.g. [7, 8, 9]); check their ids against user_ids and item_ids (type,
        prefix) if they should match.
        """
        parts = [
            f"{what} without one: {n} pair{'s' if n != 1 else ''}, e.g. {v.format_values(ids)}"
            for n, what, ids in ((self.n_users_absent, "users", self.users),
                                 (self.n_items_absent, "items", self.items))
            if n
        ]  # fmt: skip
        return (
            f"{self.n_unmatched} of the {self.n_pairs} distinct (user, item) pairs of {name} "
            f"mask nothing, since their user or item has no vector ({'; '.join(parts)}); check "
            f"their ids against user_ids and item_ids (type, prefix) if they should match."
        )

    def warn(self, func: str) -> None:
        """An :class:`~receval.exceptions.UnmatchedIdsWarning` with :meth:`text`, if some
        pair masks nothing."""
        if self.n_unmatched:
            import warnings

            from ..exceptions import UnmatchedIdsWarning

            warnings.warn(f"{func}: {self.text('exclude')}", UnmatchedIdsWarning, stacklevel=3)


def _rows_of(ids: np.ndarray, codes: np.ndarray, dictionary: np.ndarray) -> np.ndarray:
    """The row in ``dictionary`` of each ``ids[codes]`` (-1 where absent)."""
    rows: np.ndarray = lookup(ids, dictionary)[codes]
    return rows


def excluded_lists(
    exclude: Any, user_ids: np.ndarray, item_ids: np.ndarray, func: str
) -> tuple[ItemLists, Unmatched]:
    """The training items of each user row, from anything ``train=`` takes (the
    seen-items table of ``evaluate(exclude=...)``), and its pairs that mask nothing."""
    from ..data.seen import SeenItems

    seen = SeenItems.from_log(exclude, name="exclude", func=func)
    offsets, items = seen.item_indices(user_ids, item_ids)
    _check_matched(len(items), seen.user_ids, seen.item_ids, "exclude", func)
    lengths = np.diff(seen.offsets)
    user_absent = lookup(seen.user_ids, user_ids) < 0
    n_users_absent = int(lengths[user_absent].sum())
    # of the pairs whose user has a vector, those left out name an item without one
    pairs = seen.items[np.repeat(~user_absent, lengths)]
    items_absent = distinct(pairs[lookup(seen.item_ids, item_ids)[pairs] < 0])
    unmatched = Unmatched(
        seen.n_pairs, n_users_absent, seen.n_pairs - len(items) - n_users_absent,
        seen.user_ids[user_absent & (lengths > 0)][:6], seen.item_ids[items_absent[:6]],
    )  # fmt: skip
    return ItemLists(offsets, items.astype(np.int32)), unmatched


def _check_matched(n_matched: int, users: np.ndarray, items: np.ndarray, name: str,
                   func: str) -> None:  # fmt: skip
    """An error when no pair of ``name`` names a user row and an item row: ids of
    another type or with a prefix would otherwise mask (or allow) nothing."""
    if n_matched == 0 and len(items):
        raise InputValidationError(
            f"{func}: no (user, item) pair of {name} names a user of user_ids and an item of "
            f"item_ids. Got users {v.format_values(users[:5])} and items "
            f"{v.format_values(items[:5])}; check that the ids are the same (type, prefix)."
        )


def candidate_lists(
    candidates: Any, user_ids: np.ndarray, item_ids: np.ndarray, func: str
) -> ItemLists:
    """The candidate items of each user row, from what ``evaluate(candidates=...)`` takes."""
    from ..sampled.negatives import as_candidates

    c = as_candidates(candidates, func)
    users = np.repeat(np.arange(c.n_users), np.diff(c.offsets))
    lists = item_lists(
        _rows_of(c.user_ids, users, user_ids),
        _rows_of(c.item_ids, c.items, item_ids),
        len(user_ids), len(item_ids),
    )  # fmt: skip
    _check_matched(len(lists.items), c.user_ids, c.item_ids, "candidates", func)
    return lists

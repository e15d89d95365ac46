"""Interaction logs (a user's history) and the top-K rows of a run, as integer codes.

Serendipity (:mod:`receval.metrics.beyond.serendipity`) and the miscalibration of
lists (:mod:`receval.metrics.beyond.miscalibration`) compare each user's
recommended list with the items the user interacted with before: an
interaction log given as a :class:`~receval.Qrels` or :class:`~receval.Run`, a
DataFrame with ``user`` and ``item`` columns, a tuple ``(users, items)`` or a
mapping ``{user: items}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ... import _validation as v
from ...data import io
from ...data._encode import factorize
from ...data._lookup import distinct, lookup
from ...data._ranked import Qrels, Run
from ...engine.sums import group_means
from ...exceptions import InputValidationError

__all__ = [
    "InteractionLog",
    "block_means",
    "codes_in",
    "list_positions",
    "log_of_popularity",
    "pair_grades",
    "read_log",
    "run_user_codes",
    "top_k_mask",
    "top_rows",
]


@dataclass(frozen=True)
class InteractionLog:
    """The rows of an interaction log as codes: ``user_ids[users[r]]`` and
    ``item_ids[items[r]]`` are the user and item of row ``r`` (repeats kept)."""

    user_ids: np.ndarray
    item_ids: np.ndarray
    users: np.ndarray
    items: np.ndarray

    @property
    def n_users(self) -> int:
        return len(self.user_ids)

    @property
    def n_items(self) -> int:
        return len(self.item_ids)

    def distinct_pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """(user code, item code) of each distinct pair, sorted by user then item."""
        keys = distinct(self.users.astype(np.int64) * self.n_items + self.items)
        return keys // self.n_items, keys % self.n_items


def _mapping_rows(log: Mapping[Any, Any], name: str, func: str) -> tuple[list[Any], list[Any]]:
    users: list[Any] = []
    items: list[Any] = []
    for user, held in log.items():
        if isinstance(held, (str, bytes)) or not hasattr(held, "__iter__"):
            raise InputValidationError(
                f"{func}: {name} as a mapping must map each user to a collection of items. "
                f"Got {type(held).__name__} for user {user!r}; wrap a single item as [item]."
            )
        row = list(held)
        users += [user] * len(row)
        items += row
    return users, items


def read_log(
    log: Any, name: str, func: str, mapping: bool = True, empty: bool = False
) -> InteractionLog:
    """An :class:`InteractionLog` from any accepted shape (named ``name`` in errors;
    ``mapping=False``: a mapping ``{user: items}`` is refused; ``empty=True``: a log of
    no row is taken, not refused)."""
    if isinstance(log, InteractionLog):
        return log
    if isinstance(log, (Qrels, Run)):
        users = np.repeat(np.arange(log.n_users, dtype=np.int32), np.diff(log.offsets))
        return InteractionLog(log.user_ids, log.item_ids, users, np.asarray(log.items))
    if io.is_frame(log):
        cols = io.frame_columns(log, {"user": "user", "item": "item"}, func)
        raw_users, raw_items = cols["user"], cols["item"]
    elif mapping and isinstance(log, Mapping):
        raw_users, raw_items = _mapping_rows(log, name, func)
    elif isinstance(log, tuple) and len(log) == 2:
        raw_users, raw_items = log
    else:
        shapes = "a tuple (users, items) or a mapping {user: items}"
        raise InputValidationError(
            f"{func}: {name} must be a Qrels, a Run, a DataFrame with columns 'user' and "
            f"'item', {shapes if mapping else 'or a tuple (users, items)'}. Got "
            f"{type(log).__name__}."
        )
    n = v.check_same_length(func, users=raw_users, items=raw_items)
    if not empty:
        v.check_not_empty(n, name, func)
    user_codes, user_ids = factorize(raw_users, "users", func)
    item_codes, item_ids = factorize(raw_items, "items", func)
    return InteractionLog(user_ids, item_ids, user_codes, item_codes)


def list_positions(offsets: np.ndarray) -> np.ndarray:
    """The 0-based position of each row of CSR lists (``offsets``) in its list."""
    result: np.ndarray = np.arange(offsets[-1]) - np.repeat(offsets[:-1], np.diff(offsets))
    return result


def block_means(offsets: np.ndarray, keys: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Each row's value replaced by the mean over its block: the adjacent rows of one
    list (CSR ``offsets``) with equal ``keys``. Over tied scores, the expected value
    at each position over every order of the ties."""
    if not len(values):
        return values
    starts = np.ones(len(values), dtype=bool)
    starts[1:] = keys[1:] != keys[:-1]
    starts[offsets[:-1][np.diff(offsets) > 0]] = True
    block = np.cumsum(starts) - 1
    result: np.ndarray = group_means(block, values, np.bincount(block).astype(np.float64))[block]
    return result


def top_k_mask(run: Run, depth: int) -> np.ndarray:
    """Which rows of the run are among the first ``depth`` of their user's list."""
    result: np.ndarray = list_positions(run.offsets) < depth
    return result


def top_rows(run: Run, depth: int) -> tuple[np.ndarray, np.ndarray]:
    """(user code, item code) of every row among the first ``depth`` of its list."""
    keep = top_k_mask(run, depth)
    return run_user_codes(run)[keep], run.items[keep].astype(np.int64)


def run_user_codes(run: Run | Qrels) -> np.ndarray:
    """The user code of each row of a run (or of qrels)."""
    return np.repeat(np.arange(run.n_users), np.diff(run.offsets))


def codes_in(ids: np.ndarray, dictionary: np.ndarray) -> np.ndarray:
    """Position of each id in ``dictionary``, -1 if absent (ids of two inputs)."""
    return lookup(np.asarray(ids), np.asarray(dictionary))


def pair_grades(
    qrels: Qrels, user_ids: np.ndarray, item_ids: np.ndarray, users: np.ndarray, items: np.ndarray
) -> np.ndarray:
    """Grade of each (``user_ids[users[r]]``, ``item_ids[items[r]]``) pair in ``qrels``,
    nan where it is not judged: ``grade >= rel_threshold`` is then False whatever the
    threshold (only judged items can be relevant, also at ``rel_threshold=0``)."""
    q_users = codes_in(user_ids, qrels.user_ids)[users].astype(np.int64)
    q_items = codes_in(item_ids, qrels.item_ids)[items].astype(np.int64)
    n_items = max(len(qrels.item_ids), 1)
    judged_users = np.repeat(np.arange(qrels.n_users, dtype=np.int64), np.diff(qrels.offsets))
    keys = judged_users * n_items + np.asarray(qrels.items, dtype=np.int64)
    order = np.argsort(keys, kind="stable")
    keys, grades = keys[order], np.asarray(qrels.grades, dtype=np.float64)[order]
    wanted = q_users * n_items + q_items
    pos = np.minimum(np.searchsorted(keys, wanted), max(len(keys) - 1, 0))
    found = (q_users >= 0) & (q_items >= 0) & (len(keys) > 0)
    found &= keys[pos] == wanted if len(keys) else False
    return np.where(found, grades[pos] if len(keys) else np.nan, np.nan)


def log_of_popularity(table: Any) -> InteractionLog | None:
    """The distinct (user, item) pairs that ``evaluate``'s popularity table keeps when it
    was built from ``train=``; None when it came from ``popularity=`` (no histories)."""
    if table is None or getattr(table, "train_users", None) is None:
        return None
    return InteractionLog(
        np.asarray(table.train_user_ids),
        np.asarray(table.item_ids),
        np.asarray(table.train_users),
        np.asarray(table.train_items),
    )

"""Retention of a :func:`receval.scan` event log: the definition over batches of whole users.

The rows may come in any order. The users are cut into buckets whose events
fit ``Scan.max_memory``; one pass over the file per bucket gathers the rows of
its users (one pass, and no bucketing, when the whole log fits), and each
bucket is one update of the retention definition. The states of the buckets
merge into the report, as Spark's partitions of users do.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from ...data._arrow import concat_columns, take_at
from ...data._origin import Batch, Origin, located
from ...data.scan import Scan
from ...exceptions import InvalidParameterError
from .definition import RETENTION, finalize
from .report import RetentionReport
from .times import FUNC

__all__ = ["scan_retention"]

# bytes of memory per gathered event: its user id and time as read (a string id
# and an ISO time string at most ~64 bytes), and what prepare derives from them
_BYTES_PER_EVENT = 160


def scan_retention(events: Scan, params: dict[str, Any], signup: Any) -> RetentionReport:
    """:func:`receval.retention` of a scanned event log (see there)."""
    if signup is not None and not isinstance(signup, str):
        raise InvalidParameterError(
            f"The 'signup' parameter of {FUNC} must be None or a column of the scanned events. "
            f"Got {type(signup).__name__} instead; for a separate signup table, read the "
            f"events in memory or join the signup times onto the events file."
        )
    user = params["user"]
    columns = list(dict.fromkeys([user, params["time"]] + ([signup] if signup else [])))
    events._check_columns(columns)
    n_buckets = _n_buckets(events)
    codes = _UserCodes()
    state = RETENTION.empty(params)
    for bucket in range(n_buckets):
        what = FUNC if n_buckets == 1 else f"{FUNC} (users {bucket + 1}/{n_buckets})"
        pieces = []
        for batch in events.batches(columns, ids=[user], description=what):
            if n_buckets > 1:
                batch = _rows(batch, codes.of_rows(batch[user]) % n_buckets == bucket)
            if len(batch.origin):
                pieces.append(batch)
        if not pieces:
            continue
        whole = _concat(pieces, columns)

        def where(i: int, whole: Batch = whole) -> str:
            return whole.origin.locate(i)[0]

        with located(whole):
            prepared = RETENTION.prepare(params, dict(whole), signup, where=where)
            state = state.merge(RETENTION.update(params, prepared).without_users(), FUNC)
    return finalize(params, state)


def _n_buckets(events: Scan) -> int:
    """Buckets of users whose events fit ``max_memory`` (from the rows or the bytes)."""
    if events.num_rows is not None:
        need = events.num_rows * _BYTES_PER_EVENT
    else:  # CSV: its text, about as large as the gathered columns
        need = 4 * sum(os.path.getsize(p) for p in events.paths)
    return max(1, -(-need // events.max_memory))


class _UserCodes:
    """Dense user codes, the same in every pass, in order of first appearance."""

    def __init__(self) -> None:
        self.ids: np.ndarray | None = None

    def of_rows(self, users: Any) -> np.ndarray:
        """The code of each row's user."""
        from ...data._encode import factorize
        from ...data._lookup import lookup

        local, uniques = factorize(users, "user", FUNC)
        uniques = np.asarray(uniques)
        if self.ids is None:
            self.ids = uniques
            return np.asarray(local, dtype=np.int64)
        known = lookup(uniques, self.ids).astype(np.int64)
        new = known < 0
        known[new] = len(self.ids) + np.arange(int(new.sum()))
        if new.any():
            self.ids = np.concatenate([self.ids, uniques[new]])
        result: np.ndarray = known[local]
        return result


def _rows(batch: Batch, keep: np.ndarray) -> Batch:
    """The rows of ``batch`` where ``keep``, with their origin."""
    index = np.flatnonzero(keep)
    if len(index) == len(keep):
        return batch
    parts = np.split(index, np.flatnonzero(np.diff(index) != 1) + 1)
    runs = [(int(r[0]), int(r[-1]) + 1) for r in parts if len(r)]
    origin = Origin(
        tuple(p for a, b in runs for p in batch.origin.slice(a, b).pieces), batch.origin.lines
    )
    columns = {c: take_at(a, index) for c, a in batch.items()}
    return Batch(columns, origin)


def _concat(pieces: list[Batch], columns: list[str]) -> Batch:
    """One batch of the pieces' rows, in order."""
    if len(pieces) == 1:
        return pieces[0]
    out = {c: concat_columns([p[c] for p in pieces], c) for c in columns}
    pieces_of = tuple(p for b in pieces for p in b.origin.pieces)
    return Batch(out, Origin(pieces_of, pieces[0].origin.lines))

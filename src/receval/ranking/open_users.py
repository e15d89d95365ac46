"""Ranking metrics of users split across updates and workers: each update's rows, held.

``receval.metric("ndcg@10")`` takes a user's qrels and run rows in any number of
updates and on any number of accumulators. No update can tell that a user is
finished, so each update's qrels and run are kept as the :class:`~receval.Qrels`
and :class:`~receval.Run` it was read into (per-user CSR arrays: item codes
and grades or scores, and the distinct ids). ``merge`` concatenates them, and
``compute()`` joins every update's rows into one qrels and one run, by id value
(ints, strings), and evaluates them once, as :func:`receval.evaluate` does: the
same float. A user's items given in two updates are joined; the same (user, item)
pair given twice is an error naming them, as in ``evaluate``. With
``ties="input"`` a user's tied items rank in the order they arrived (this
accumulator's updates, then the merged ones').
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..data._encode import join_ids, plain_ids
from ..data._ranked import Qrels, Run
from ..exceptions import InputValidationError

__all__ = ["OpenUsers"]

# the arrays of a part, by container: the per-row values and whether they are ranks
_VALUES = {Qrels: "grades", Run: "scores"}


@dataclass(frozen=True)
class OpenUsers:
    """The qrels and runs of every update given (see the module); a frozen value."""

    qrels: tuple[Qrels, ...] = ()
    runs: tuple[Run, ...] = ()
    n_listwise: int = 0

    def merge(self, other: OpenUsers) -> OpenUsers:
        return OpenUsers(self.qrels + other.qrels, self.runs + other.runs,
                         self.n_listwise + other.n_listwise)  # fmt: skip

    @property
    def memory_bytes(self) -> int:
        """Bytes of the arrays held."""
        from ..engine.memory import state_bytes

        return sum(state_bytes(vars(x)) for x in (*self.qrels, *self.runs))

    def joined(self, func: str) -> tuple[Qrels | None, Run | None]:
        """One qrels and one run of every update's rows (None: none given)."""
        return _joined(Qrels, self.qrels, func), _joined(Run, self.runs, func)

    def __getstate__(self) -> dict[str, Any]:
        return {"qrels": [_rows(q) for q in self.qrels], "runs": [_rows(r) for r in self.runs],
                "n_listwise": self.n_listwise}  # fmt: skip

    def __setstate__(self, state: Any) -> None:
        from ..engine.states import invalid_state

        keys = {"qrels", "runs", "n_listwise"}
        if not isinstance(state, dict) or set(state) != keys:
            shown = sorted(state) if isinstance(state, dict) else type(state).__name__
            raise invalid_state(f"OpenUsers: expected the fields {sorted(keys)}, got {shown}")
        n = state["n_listwise"]
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise invalid_state(f"OpenUsers.n_listwise must be an integer >= 0, got {n!r}")
        parts: dict[str, tuple[Any, ...]] = {}
        for name, kind in (("qrels", Qrels), ("runs", Run)):
            if not isinstance(state[name], list):
                raise invalid_state(f"OpenUsers.{name} must be a list")
            parts[name] = tuple(_built(kind, rows, f"OpenUsers.{name}[{i}]")
                                for i, rows in enumerate(state[name]))  # fmt: skip
        object.__setattr__(self, "qrels", parts["qrels"])
        object.__setattr__(self, "runs", parts["runs"])
        object.__setattr__(self, "n_listwise", n)


def _rows(x: Qrels | Run) -> dict[str, Any]:
    """A container's rows as plain arrays: the user and item ids, each row's user and
    item codes, its value (grade; score, or negated rank of a run of ranks)."""
    counts = np.diff(x.offsets)
    out: dict[str, Any] = {
        "user_ids": plain_ids(x.user_ids),
        "item_ids": plain_ids(x.item_ids),
        "users": np.repeat(np.arange(len(counts), dtype=np.int64), counts),
        "items": np.asarray(x.items, dtype=np.int64),
        "values": np.asarray(getattr(x, _VALUES[type(x)]), dtype=np.float64),
    }
    if isinstance(x, Run):
        out["from_ranks"] = bool(x.from_ranks)
    return out


def _built(kind: type[Any], rows: Any, where: str) -> Any:
    """The container of :func:`_rows`' arrays, checked by its constructor."""
    from ..engine.states import invalid_state

    keys = {"user_ids", "item_ids", "users", "items", "values"} | (
        {"from_ranks"} if kind is Run else set()
    )
    if not isinstance(rows, dict) or set(rows) != keys:
        shown = sorted(rows) if isinstance(rows, dict) else type(rows).__name__
        raise invalid_state(f"{where}: expected the fields {sorted(keys)}, got {shown}")
    try:
        return _of_rows(kind, [rows], where)
    except (InputValidationError, IndexError, TypeError, ValueError) as error:
        raise invalid_state(f"{where}: {error}") from None


def _of_rows(kind: type[Any], parts: list[dict[str, Any]], func: str) -> Any:
    """One container of the rows of several parts, ids joined by value."""
    users = join_ids([np.asarray(p["user_ids"])[p["users"]] for p in parts])
    items = join_ids([np.asarray(p["item_ids"])[p["items"]] for p in parts])
    values = np.concatenate([np.asarray(p["values"], dtype=np.float64) for p in parts])
    empty: list[Any] = []
    if any(_has_empty_users(p) for p in parts):
        with_rows = set(users.tolist())
        ids = (u for p in parts for u in np.asarray(p["user_ids"]).tolist())
        empty = list(dict.fromkeys(u for u in ids if u not in with_rows))
    if kind is Qrels:
        out: Any = Qrels(users, items, values)
    else:
        ranks = {bool(p["from_ranks"]) for p in parts}
        if len(ranks) > 1:
            raise InputValidationError(
                f"{func}: some updates give the run as ranks and others as scores; give "
                f"one kind in every update."
            )
        out = Run(users, items, ranks=-values) if ranks == {True} else Run(users, items, values)
    if empty:
        out.append_users_without_rows(empty)
    return out


def _has_empty_users(part: dict[str, Any]) -> bool:
    """Whether a part lists a user of no row (``{}`` in a mapping)."""
    n = len(part["user_ids"])
    return bool(n) and bool((np.bincount(part["users"], minlength=n) == 0).any())


def _joined(kind: type[Any], parts: tuple[Any, ...], func: str) -> Any:
    """One container of the parts' rows; a (user, item) pair in two parts raises."""
    if not parts:
        return None
    if len(parts) == 1:
        return parts[0]
    try:
        return _of_rows(kind, [_rows(p) for p in parts], func)
    except InputValidationError as error:
        pair = getattr(error, "pair", None)
        if pair is None:
            raise
        what = "qrels" if kind is Qrels else "run"
        raise InputValidationError(
            f"{func}: user {pair[0]!r} has item {pair[1]!r} in two updates of the {what} "
            f"(or in two merged accumulators). Each (user, item) pair must appear once; "
            f"drop duplicates first, e.g. keep the highest score per pair."
        ) from None

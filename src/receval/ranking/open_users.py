"""Ranking metrics of users split across updates and workers: every row, held compactly.

``receval.metric("ndcg@10")`` takes a user's qrels and run rows in any number of
updates and on any number of accumulators. No update can tell that a user is
finished, so the rows are held until ``compute()``, in the compiled core
(``receval._core.OpenRows``, one for the qrels and one for the run): a table of
the user ids and one of the item ids (ints, or strings), grown by each update,
which codes its distinct ids only, and per row its user and item codes (4 bytes
each) and its grade or score, as a float32 while every value so far is one
exactly, as a float64 from the first that is not (12 bytes a row, or 16, and
the distinct ids). ``merge`` codes the other's distinct ids in these tables and
appends its rows. ``compute()`` groups the rows by user in a counting sort (users
in order of their first row, those listed without rows after them) into one
qrels and one run, and evaluates them once, as :func:`receval.evaluate` does:
the same float. A user's items given in two updates are joined; the same (user,
item) pair given twice is an error naming them, as in ``evaluate``. With
``ties="input"`` a user's tied items rank in the order they arrived (this
accumulator's updates, then the merged ones').

Ids are held as int64 (ints, bools, an update's whole floats) or as strings
(strings, ints beyond int64, and floats by their number's text:
:func:`~receval.engine.kinds.id_text`): ints beside strings are held as their
decimal text, as NumPy makes a list of both, so that a whole float is the integer
id it is (``1.0`` matches ``1``, as in :func:`receval.evaluate`) whatever the other
ids of its update.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

import numpy as np

from .._kernels import compiled
from ..data._ranked import Qrels, Run
from ..data.seen import N_EXAMPLES, PairCounts
from ..engine.kinds import id_text, id_texts, is_integer
from ..exceptions import InputValidationError

__all__ = ["OpenUsers", "given_ids", "held_ids"]

_FIELDS = ("user_ids", "item_ids", "users", "items", "values")


def _rows() -> Any:
    return compiled().OpenRows()


@dataclass(eq=False)
class OpenUsers:
    """The rows of every update given (see the module): ``qrels`` and ``runs`` the
    core's rows of each; ``scores``, ``ranks``: whether a run came as scores, as
    ranks; ``n_listwise``: updates of a run alone (a list-wise metric);
    ``exclude_unmatched``: in a retrieval from embeddings, the pairs of the users'
    ``exclude`` without a vector."""

    qrels: Any = field(default_factory=_rows)
    runs: Any = field(default_factory=_rows)
    n_listwise: int = 0
    scores: bool = False
    ranks: bool = False
    exclude_unmatched: PairCounts = field(default_factory=PairCounts)

    def add(self, qrels: Qrels | None, run: Run | None, listwise: bool = False) -> OpenUsers:
        """Add an update's qrels and run (None: none); returns this state."""
        if qrels is not None:
            _add(self.qrels, qrels.user_ids, qrels.item_ids, qrels.offsets, qrels.items,
                 qrels.grades)  # fmt: skip
        if run is not None:
            _add(self.runs, run.user_ids, run.item_ids, run.offsets, run.items, run.scores)
            self.ranks |= bool(run.from_ranks)
            self.scores |= not run.from_ranks
        self.n_listwise += int(listwise)
        return self

    def absorb(self, other: OpenUsers) -> OpenUsers:
        """Add another state's rows after these (in place); returns this state."""
        if other is self:
            other = other.merge(OpenUsers())
        self.qrels.absorb(other.qrels)
        self.runs.absorb(other.runs)
        self.n_listwise += other.n_listwise
        self.scores |= other.scores
        self.ranks |= other.ranks
        self.exclude_unmatched = self.exclude_unmatched.merge(other.exclude_unmatched)
        return self

    def merge(self, other: OpenUsers) -> OpenUsers:
        """The rows of both (a new state; this one's first)."""
        out = OpenUsers(self.qrels.copy(), self.runs.copy(), self.n_listwise, self.scores,
                        self.ranks, self.exclude_unmatched)  # fmt: skip
        return out.absorb(other)

    @property
    def memory_bytes(self) -> int:
        """Bytes held: the id tables, the codes and the values of the rows."""
        return int(self.qrels.memory_bytes + self.runs.memory_bytes)

    def joined(self, func: str, vectors: bool = False) -> tuple[Qrels | None, Run | None]:
        """One qrels and one run of every update's rows (None: none given); ``vectors``:
        the run was retrieved from user vectors, which a repeated pair's error names."""
        return self.joined_qrels(func), self.joined_run(func, vectors)

    def joined_qrels(self, func: str) -> Qrels | None:
        """One qrels of every update's judgments (None: none given)."""
        result: Qrels | None = _grouped(Qrels, self.qrels, func, False)
        return result

    def joined_run(self, func: str, vectors: bool = False) -> Run | None:
        """One run of every update's lists (None: none given), as :meth:`joined`'s."""
        if self.scores and self.ranks:
            raise InputValidationError(
                f"{func}: some updates give the run as ranks and others as scores; give "
                f"one kind in every update."
            )
        result: Run | None = _grouped(Run, self.runs, func, self.ranks, vectors)
        return result

    def __getstate__(self) -> dict[str, Any]:
        return {"qrels": _plain(self.qrels), "runs": _plain(self.runs), "scores": self.scores,
                "ranks": self.ranks, "n_listwise": self.n_listwise,
                "exclude_unmatched": asdict(self.exclude_unmatched)}  # fmt: skip

    def __setstate__(self, state: Any) -> None:
        from ..engine.states import invalid_state

        keys = {"qrels", "runs", "n_listwise", "scores", "ranks", "exclude_unmatched"}
        if not isinstance(state, dict) or set(state) != keys:
            shown = sorted(state) if isinstance(state, dict) else type(state).__name__
            raise invalid_state(f"OpenUsers: expected the fields {sorted(keys)}, got {shown}")
        n = state["n_listwise"]
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise invalid_state(f"OpenUsers.n_listwise must be an integer >= 0, got {n!r}")
        for name in ("scores", "ranks"):
            if not isinstance(state[name], bool):
                raise invalid_state(f"OpenUsers.{name} must be a bool, got {state[name]!r}")
        self.qrels = _loaded(state["qrels"], "OpenUsers.qrels")
        self.runs = _loaded(state["runs"], "OpenUsers.runs")
        self.n_listwise, self.scores, self.ranks = n, state["scores"], state["ranks"]
        self.exclude_unmatched = _counts(state["exclude_unmatched"])


def _counts(plain: Any) -> PairCounts:
    """The :class:`~receval.data.seen.PairCounts` of its plain form (a dict of counts,
    of a few ids and of the bits of the users given), checked."""
    from ..engine.states import invalid_state

    names = [f.name for f in fields(PairCounts)]
    counts = [n for n in names if n.startswith("n_")]
    ids = [n for n in names if n.endswith("_absent") and n not in counts]
    bits = plain.get("users_given") if isinstance(plain, dict) else None
    if (
        not isinstance(plain, dict)
        or sorted(plain) != sorted(names)
        or not all(type(plain[k]) is int and plain[k] >= 0 for k in counts)
        or not all(
            isinstance(plain[k], (tuple, list))
            and len(plain[k]) <= N_EXAMPLES
            and all(type(x) in (int, str) for x in plain[k])
            for k in ids
        )
        or not (isinstance(bits, np.ndarray) and bits.ndim == 1 and bits.dtype == np.uint8)
    ):
        raise invalid_state(
            f"OpenUsers.exclude_unmatched: expected the counts {counts} (integers >= 0), "
            f"the ids {ids} (at most {N_EXAMPLES} ints or strings each) and users_given "
            f"(a 1-d uint8 array), got {plain!r}"
        )
    return PairCounts(**plain)


def given_ids(ids: np.ndarray) -> Any:
    """Ids as the core takes them: an int64 array (ints and bools, NumPy's too), or a
    list of str (strings, ints beyond int64, anything else by its text)."""
    ids = np.asarray(ids)
    if ids.dtype.kind in "iub" and (ids.dtype != np.uint64 or not len(ids) or ids.max() < 2**63):
        return np.ascontiguousarray(ids, dtype=np.int64)
    if ids.dtype.kind == "f":
        return id_texts(ids)
    values = ids.tolist()
    if ids.dtype.kind == "O" and all(is_integer(x) for x in values):
        try:
            return np.array([int(x) for x in values], dtype=np.int64)
        except OverflowError:
            pass
    return [id_text(x) for x in values]


def _add(side: Any, user_ids: Any, item_ids: Any, offsets: Any, items: Any, values: Any) -> None:
    side.add(given_ids(user_ids), given_ids(item_ids),
             np.ascontiguousarray(offsets, dtype=np.int64),
             np.ascontiguousarray(items, dtype=np.int32),
             np.ascontiguousarray(values, dtype=np.float64))  # fmt: skip


def held_ids(held: Any) -> np.ndarray:
    """The core's ids: an int64 array, or (UCS-4 bytes, width) of a str array."""
    if isinstance(held, np.ndarray):
        return held
    data, width = held
    return np.frombuffer(data, dtype=f"<U{width}")


def _grouped(kind: type[Any], side: Any, func: str, from_ranks: bool, vectors: bool = False) -> Any:
    """One container of a side's rows, grouped by user (None: no user given); a
    (user, item) pair given twice raises naming them (``vectors``: a run retrieved
    from user vectors, whose user was given twice)."""
    if side.n_users == 0:
        return None
    order, offsets, items, values = side.grouped()
    out: Any = object.__new__(kind)
    out.offsets = offsets
    out.user_ids = held_ids(side.user_ids())[order]
    out.item_ids = held_ids(side.item_ids())
    no_rows = np.empty(0, dtype=np.int64)
    try:
        if kind is Qrels:
            out._finish(no_rows, items, values)
        else:
            out._build(offsets, no_rows, items, -values if from_ranks else values, from_ranks,
                       None, own_values=True)  # fmt: skip
    except InputValidationError as error:
        pair = getattr(error, "pair", None)
        if pair is None:
            raise
        if vectors and kind is Run:  # the items retrieved for a user given twice
            raise InputValidationError(
                f"{func}: user {pair[0]!r} was given twice in user_vectors (in two updates, "
                f"or in two merged accumulators). Each user's vector must be given once; "
                f"give each user in one update only, e.g. drop the ids already given from "
                f"a batch's user_ids and its rows from user_vectors."
            ) from None
        what, value = ("qrels", "grade") if kind is Qrels else ("run", "score")
        raise InputValidationError(
            f"{func}: user {pair[0]!r} has item {pair[1]!r} in two updates of the {what} "
            f"(or in two merged accumulators). Each (user, item) pair must appear once; "
            f"drop duplicates first, e.g. keep the highest {value} per pair."
        ) from None
    return out


def _plain(side: Any) -> dict[str, Any]:
    """A side's rows as plain arrays: the distinct user and item ids, each row's user
    and item codes (uint32) and value (float32 or float64, as held)."""
    users, items, values = side.rows()
    return {"user_ids": held_ids(side.user_ids()), "item_ids": held_ids(side.item_ids()),
            "users": users, "items": items, "values": values}  # fmt: skip


def _loaded(rows: Any, where: str) -> Any:
    """The core's rows of :func:`_plain`'s arrays, checked."""
    from ..engine.states import invalid_state

    if not isinstance(rows, dict) or set(rows) != set(_FIELDS):
        shown = sorted(rows) if isinstance(rows, dict) else type(rows).__name__
        raise invalid_state(f"{where}: expected the fields {sorted(_FIELDS)}, got {shown}")
    arrays = {k: np.asarray(rows[k]) for k in _FIELDS}
    for name in ("users", "items"):
        a = arrays[name]
        if (
            a.ndim != 1
            or a.dtype.kind not in "iu"
            or (len(a) and (a.min() < 0 or a.max() >= 2**32))
        ):
            raise invalid_state(f"{where}.{name} must be a 1-D array of codes >= 0")
        arrays[name] = np.ascontiguousarray(a, dtype=np.uint32)
    values = arrays["values"]
    if values.ndim != 1 or values.dtype not in (np.float32, np.float64):
        raise invalid_state(f"{where}.values must be a 1-D float32 or float64 array")
    try:
        return compiled().OpenRows.from_rows(
            given_ids(arrays["user_ids"]), given_ids(arrays["item_ids"]), arrays["users"],
            arrays["items"], np.ascontiguousarray(values),
        )  # fmt: skip
    except ValueError as error:
        raise invalid_state(f"{where}: {error}") from None

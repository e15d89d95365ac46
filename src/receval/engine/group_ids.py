"""The ids of the groups already given to a whole-group metric (:class:`Seen`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import counted, format_values, verb
from ..exceptions import InputValidationError

__all__ = ["Seen"]


class Seen:
    """Ids of the groups already given to a whole-group metric.

    Integer ids are kept as sorted int64 runs, each more than twice as long as the
    next (a log-structured merge): a batch is looked up in each run by binary search
    and joins them as one more run, merged with those not twice its length, so that
    an id is copied O(log held) times in all and a batch costs O(batch log held),
    whatever the number of ids held (10**5 updates of 10 groups take as long as 10
    updates of 10**5). ``ints`` merges the runs into one sorted array. Other ids
    (strings, floats) are kept as a Python set, ``ids``, whose whole floats are
    compared with the integers held (``1.0`` in a batch that also holds ``0.5`` is
    the group 1 of an earlier batch of whole floats).

    Parameters
    ----------
    ints : numpy.ndarray of int64, default=None
        Sorted distinct integer ids.
    ids : set, default=None
        The other ids.
    """

    def __init__(self, ints: np.ndarray | None = None, ids: set[Any] | None = None) -> None:
        self._runs: list[np.ndarray] = [] if ints is None or not len(ints) else [ints]
        self.ids: set[Any] = set() if ids is None else ids

    @property
    def ints(self) -> np.ndarray:
        """The integer ids held, as one sorted int64 array."""
        if len(self._runs) > 1:
            self._runs = [np.sort(np.concatenate(self._runs), kind="stable")]
        return self._runs[0] if self._runs else np.empty(0, dtype=np.int64)

    @property
    def n_ints(self) -> int:
        """The number of integer ids held."""
        return sum(len(run) for run in self._runs)

    def add(self, ids: Any, func: str, what: str) -> None:
        """Add a batch's ids; raise if one was given in an earlier update."""
        repeated = sorted(set(self.add_new(ids)), key=str)
        if repeated:
            given = f"{what if len(repeated) > 1 else what[:-1]} {format_values(repeated)}"
            raise InputValidationError(
                f"{func}: {given} {verb(len(repeated), 'was')} already given in an earlier "
                f"update; each update must hold whole {what} (all the rows of a {what[:-1]}), "
                f"e.g. group the rows by {what[:-1]} before cutting batches."
            )

    def add_new(self, ids: Any) -> list[Any]:
        """Add a batch of ids unless one repeats, within the batch or from an earlier
        one; returns the repeated ids (those within the batch first), empty when the
        batch was added."""
        arr = np.asarray(ids)
        if arr.dtype.kind in "iu" and arr.dtype != np.uint64:
            new = np.sort(arr.astype(np.int64, copy=False))
            repeated: list[Any] = new[1:][new[1:] == new[:-1]].tolist() + self._held(new).tolist()
            if self.ids:  # ids of another kind were given before: compare as Python values
                repeated += [x for x in new.tolist() if x in self.ids]
            if not repeated:
                self._push(new)
            return repeated
        values = arr.tolist()
        batch: set[Any] = set(values)
        held = self._held(_int64s(values)).tolist() if self._runs else []
        if len(batch) == len(values) and batch.isdisjoint(self.ids) and not held:
            self.ids |= batch  # the usual case, by set operations alone
            return []
        batch = set()
        repeated = [x for x in values if x in batch or batch.add(x)]  # type: ignore[func-returns-value]
        return repeated + [x for x in values if x in self.ids] + held

    def _push(self, run: np.ndarray) -> None:
        """Add a sorted run of new ids: merged with the runs not more than twice its
        length (the runs stay each more than twice the next)."""
        if not len(run):
            return
        self._runs.append(run)
        while len(self._runs) > 1 and len(self._runs[-2]) <= 2 * len(self._runs[-1]):
            last = self._runs.pop()
            self._runs[-1] = _merge_sorted(self._runs[-1], last)

    def _held(self, ordered: np.ndarray) -> np.ndarray:
        """The values of a sorted int64 array already held."""
        found = np.zeros(len(ordered), dtype=bool)
        for run in self._runs:
            pos = np.minimum(np.searchsorted(run, ordered), len(run) - 1)
            found |= run[pos] == ordered
        result: np.ndarray = ordered[found]
        return result

    def absorb(self, other: Seen, func: str, what: str, argument: str) -> Seen:
        """Add another state's ids into this one (in place); returns this state.

        Raises, as :meth:`check_disjoint`, if an id is in both."""
        self.check_disjoint(other, func, what, argument)
        for run in other._runs:
            self._push(run)
        self.ids |= other.ids
        return self

    def merge(self, other: Seen, func: str, what: str, argument: str) -> Seen:
        """The ids of both states (a new state).

        Raises, as :meth:`check_disjoint`, if an id is in both."""
        return self.copy().absorb(other, func, what, argument)

    def copy(self) -> Seen:
        """A new state of the same ids."""
        copied = Seen(ids=set(self.ids))
        copied._runs = list(self._runs)  # runs are never changed in place
        return copied

    def check_disjoint(self, other: Seen, func: str, what: str, argument: str) -> None:
        """Raise if an id is in both states (without joining them: neither gains an id).

        Parameters
        ----------
        other : Seen
            The other state's ids.
        func : str
            The caller that the error names (``Accumulator.merge of 'gauc'``).
        what : str
            What the ids are, plural (``"groups"``, ``"users"``).
        argument : str
            The data argument that gave them (``"groups"``, ``"qrels and run"``).

        Raises
        ------
        InputValidationError
            An id is in both.
        """
        both = self.ids & other.ids if len(other.ids) < len(self.ids) else other.ids & self.ids
        small, large = sorted((self, other), key=lambda x: x.n_ints)
        both |= set(large._held(small.ints).tolist())
        for a, b in ((self, other), (other, self)):  # ints held as Python values on one side
            if a.ids and b._runs:  # (a pass over every id held: not for strings alone)
                both |= set(b._held(_int64s(a.ids)).tolist())
        if both:
            one = what[:-1]
            raise InputValidationError(
                f"{func}: {counted(len(both), one)} of {argument} {verb(len(both), 'was')} "
                f"given twice (in two updates, in two merged accumulators, on two ranks, or "
                f"before and after a sync), e.g. {format_values(sorted(both, key=str))}; each "
                f"update, worker and rank must hold whole {what} (all the rows of a {one}): "
                f"group the rows by {one} before cutting batches or splitting them across "
                f"workers and ranks."
            )

    def invalid(self) -> tuple[str, str] | None:
        """The field of a loaded state that breaks its invariants and what it must be
        (None: none)."""
        ints = self._runs[0] if len(self._runs) == 1 else self.ints
        if not isinstance(ints, np.ndarray) or ints.ndim != 1 or ints.dtype != np.int64:
            return "ints", "a 1-d array of int64 ids"
        if len(ints) and not (np.diff(ints) > 0).all():
            return "ints", "sorted distinct int64 ids"
        if not isinstance(self.ids, set):
            return "ids", "a set"
        return None

    def __getstate__(self) -> dict[str, Any]:
        return {"ints": self.ints, "ids": self.ids}

    def __setstate__(self, state: dict[str, Any]) -> None:
        if not isinstance(state, dict) or set(state) != {"ints", "ids"}:
            raise InputValidationError(
                f"Seen: a pickled state must be a dict of ints and ids. Got "
                f"{type(state).__name__} {sorted(state) if isinstance(state, dict) else ''}."
            )
        ints = state["ints"]  # anything else than an array is refused by invalid()
        self._runs = [ints] if not isinstance(ints, np.ndarray) or len(ints) else []
        self.ids = state["ids"]

    def __repr__(self) -> str:
        return f"Seen({counted(self.n_ints, 'integer id')}, {counted(len(self.ids), 'other id')})"


def _int64s(values: Any) -> np.ndarray:
    """The ints among ``values`` that an int64 holds, whole floats among them (``1.0``
    is the id 1, whatever batch holds it), sorted (ints beyond it, such as uint64 ids
    from 2**63, are never among the int64 ids held)."""
    low, high = -(2**63), 2**63 - 1
    ints = [int(x) for x in values if type(x) is int or (type(x) is float and x.is_integer())]
    return np.sort(np.array([x for x in ints if low <= x <= high], dtype=np.int64))


def _merge_sorted(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    out = np.concatenate([a, b])
    out.sort(kind="stable")  # two sorted runs: merged in linear time
    return out

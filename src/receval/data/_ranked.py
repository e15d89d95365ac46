"""Qrels and Run: ground truth and recommendations as per-user CSR arrays.

Both are built once: ids are encoded to dense integer codes (never hashed),
rows are grouped by user with a counting sort, and each user's rows are sorted
(judged items by item code; recommended items by score descending, input order
within ties). Every metric of :func:`receval.evaluate` then reads these arrays.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, TypeVar

import numpy as np

from .. import _validation as v
from .._kernels import compiled, num_threads
from ..exceptions import InputValidationError, InvalidParameterError
from . import io
from ._arrow import take_at
from ._columns import read_qrels, read_run
from ._encode import encode_ids, group_users, string_order
from ._lookup import distinct, lookup_ids
from ._open import check_file, check_has_columns, given_frame_fix, read_given
from ._strings import ids_to_numpy


def _as_numbers(x: Any, name: str, func: str) -> np.ndarray:
    return v.check_finite(v.as_float(v.as_1d(x, name, func), name, func), name, func)


class _RankedBase:
    """Shared construction: encoding of users and items, grouping by user."""

    _func = "Ranked"
    # set by the subclasses' constructors: CSR offsets by user, the ids (string ids
    # read from Arrow kept as the Arrow array until asked for), the item code of each row
    offsets: np.ndarray
    _user_ids: Any
    _item_ids: Any
    items: np.ndarray

    def _numpy_ids(self, kind: str) -> np.ndarray:
        """The ``_user_ids`` or ``_item_ids`` (``kind``) as NumPy, made once and kept."""
        ids = getattr(self, kind)
        if not isinstance(ids, np.ndarray):
            ids = ids_to_numpy(ids)
            setattr(self, kind, ids)
        result: np.ndarray = ids
        return result

    @property
    def user_ids(self) -> np.ndarray:
        """The distinct user ids, in code order (strings as an object array)."""
        return self._numpy_ids("_user_ids")

    @user_ids.setter
    def user_ids(self, ids: Any) -> None:
        self._user_ids = ids

    @property
    def item_ids(self) -> np.ndarray:
        """The distinct item ids, in code order (strings as an object array)."""
        return self._numpy_ids("_item_ids")

    @item_ids.setter
    def item_ids(self, ids: Any) -> None:
        self._item_ids = ids

    def encoded_ids(self, kind: str) -> Any:
        """The distinct user (``kind="users"``) or item (``"items"``) ids as encoded:
        NumPy, or string ids read from Arrow as the Arrow array (:attr:`user_ids` and
        :attr:`item_ids` give NumPy)."""
        return self._user_ids if kind == "users" else self._item_ids

    def ids_at(self, kind: str, at: Any) -> np.ndarray:
        """The user or item ids at positions ``at`` (a slice or indices) as NumPy,
        without making NumPy ids of the others."""
        return ids_to_numpy(take_at(self.encoded_ids(kind), at))

    def positions_in(self, other: _RankedBase, kind: str) -> np.ndarray:
        """Index (int32) of each of this container's user (``kind="users"``) or item
        (``"items"``) ids among ``other``'s, -1 where absent; string ids read from
        Arrow are compared where they lie, without a Python object per id."""
        return lookup_ids(self.encoded_ids(kind), other.encoded_ids(kind))

    def _encode(
        self, users: Any, items: Any, empty_ok: bool = False
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
        """Group rows by user and encode items: (offsets, rows, item codes, n_rows);
        ``empty_ok``: no row (users without rows follow)."""
        func = self._func
        if users is None or items is None:
            raise InputValidationError(f"{func}: users and items are required.")
        n = v.check_same_length(func, users=users, items=items)
        if not empty_ok:
            v.check_not_empty(n, "users", func)
        # user ids in order of first appearance; rows: the input row of each position
        # (empty when the rows are already grouped by user)
        offsets, rows, self.user_ids = group_users(users, func)
        item_codes, self.item_ids = encode_ids(items, "items", func, any_order=True)
        return offsets, rows, item_codes, n

    def append_users_without_rows(self, users: list[Any]) -> None:
        ids = np.empty(len(self.user_ids) + len(users), dtype=object)
        ids[: len(self.user_ids)] = self.user_ids.tolist()
        ids[len(self.user_ids) :] = users
        kinds = {np.asarray(self.user_ids[:1]).dtype.kind, np.asarray(users).dtype.kind}
        same = len(kinds) == 1 or kinds <= {"i", "u"}
        if same and self.user_ids.dtype.kind in "US":
            ids = ids.astype(self.user_ids.dtype.kind)  # as wide as the longest id
        elif same and self.user_ids.dtype.kind != "O":
            ids = ids.astype(self.user_ids.dtype)
        self.user_ids = ids
        self.offsets = np.concatenate(
            [self.offsets, np.full(len(users), self.offsets[-1], dtype=self.offsets.dtype)]
        )

    @property
    def n_users(self) -> int:
        """Number of distinct users."""
        return len(self._user_ids)

    @property
    def n_rows(self) -> int:
        """Number of (user, item) rows."""
        return int(self.offsets[-1])

    def _nested(self, values: np.ndarray, cast: Any) -> dict[Any, dict[Any, Any]]:
        """``{user: {item: cast(value)}}`` in CSR order."""
        out: dict[Any, dict[Any, Any]] = {}
        for u in range(self.n_users):
            a, b = self.offsets[u], self.offsets[u + 1]
            out[_py(self.user_ids[u])] = {
                _py(self.item_ids[i]): cast(x)
                for i, x in zip(self.items[a:b], values[a:b], strict=True)
            }
        return out

    def _raise_duplicate(self, g: int) -> None:
        seg = self.items[self.offsets[g] : self.offsets[g + 1]]
        values, counts = np.unique(seg, return_counts=True)
        dup = self.item_ids[values[counts > 1][0]]
        value = "grade" if self._func == "Qrels" else "score"
        error = InputValidationError(
            f"{self._func}: user {_py(self.user_ids[g])!r} has item {_py(dup)!r} more than "
            f"once. Each (user, item) pair must appear once; drop duplicates first, e.g. "
            f"keep the highest {value} per pair."
        )
        error.pair = (_py(self.user_ids[g]), _py(dup))  # for the file readers' line
        raise error


def _py(x: Any) -> Any:
    return x.item() if isinstance(x, np.generic) else x


def _grade(x: float) -> int | float:
    return int(x) if float(x).is_integer() else float(x)


class Qrels(_RankedBase):
    """Ground truth: the judged items of each user and their relevance grades.

    Parameters
    ----------
    users, items : array-like of shape (n_rows,)
        User (query) id and item (document) id of each judgment: ints or strings.
    grades : array-like of shape (n_rows,), default=None
        Relevance grades, any finite numbers: integer grades (0 to 4, ...) or
        real-valued ones (the probability of relevance, in [0, 1], that CatBoost's
        PFound and ERR read); None means every listed item has grade 1 (implicit
        feedback: the held-out interactions). A negative grade is a judged
        non-relevant item, as in trec_eval's qrels. An item is relevant from
        ``rel_threshold`` on; a metric that reads integer grades only (a gain table
        by grade, ``ndcg(gains=...)``) refuses others when evaluated.

    Raises
    ------
    InputValidationError
        Lengths differ, empty input, a (user, item) pair twice, NaN or
        infinite grades.

    See Also
    --------
    Run : The recommendations to evaluate.
    evaluate : Every top-K metric of a run against qrels.

    Examples
    --------
    >>> from receval import Qrels
    >>> qrels = Qrels.from_dict({"u1": {"a": 2, "b": 1}, "u2": {"c": 1}})
    >>> qrels.n_users, qrels.n_rows
    (2, 3)
    >>> Qrels.from_dict({"u1": {"a": 0.75, "b": 0.25}}).to_dict()
    {'u1': {'a': 0.75, 'b': 0.25}}
    """

    _func = "Qrels"

    def __init__(self, users: Any, items: Any, grades: Any = None) -> None:
        self.offsets, order, item_codes, n = self._encode(users, items)
        self._finish(order, item_codes, self._check_grades(grades, n))

    def _check_grades(self, grades: Any, n: int) -> np.ndarray:
        """Grades as float64, checked to be finite."""
        if grades is None:
            return np.ones(n)
        g = _as_numbers(grades, "grades", self._func)
        v.check_same_length(self._func, users=range(n), items=range(n), grades=g)
        return g

    def _finish(self, order: np.ndarray, item_codes: np.ndarray, grades: np.ndarray) -> None:
        """Each user's judged items by item code, grades along, and grades descending."""
        self.items, self.grades, self.grades_desc, dup = compiled().judged_segments(
            self.offsets, order, _codes32(item_codes), grades, 4 * _n_threads()
        )
        if dup >= 0:
            self._raise_duplicate(int(dup))

    @classmethod
    def _from_columns(cls, source: Any, user: str, item: str, grade: str | None) -> Qrels:
        """From an Arrow table or a Parquet file (``source``), one column at a time,
        chunk by chunk where it can (see :mod:`receval.data._columns`)."""
        cols = read_qrels(source, user, item, grade, cls._func)
        self = cls.__new__(cls)
        self.offsets, self.user_ids, self.item_ids = cols.offsets, cols.user_ids, cols.item_ids
        grades = self._check_grades(cols.values, len(cols.item_codes))
        self._finish(cols.rows, cols.item_codes, grades)
        return self

    # ------------------------------------------------------------ constructors
    @classmethod
    def from_dict(cls, data: Mapping[Any, Mapping[Any, Any]]) -> Qrels:
        """From ``{user: {item: grade}}`` (the pytrec_eval and ranx shape).

        A user with no judgment (``{}``) is kept, after the others: it has no
        relevant item, so ``evaluate`` counts it in ``n_users_empty`` and applies
        ``empty_users`` to it.
        """
        users, items, grades = _flatten(data, cls._func)
        self = cls.__new__(cls)
        self.offsets, order, item_codes, n = self._encode(users, items, empty_ok=bool(data))
        self._finish(order, item_codes, self._check_grades(grades, n))
        empty = [user for user, inner in data.items() if len(inner) == 0]
        if empty:
            self.append_users_without_rows(empty)
        return self

    @classmethod
    def from_frame(
        cls, frame: Any, *, user: str = "user", item: str = "item", grade: str | None = "grade"
    ) -> Qrels:
        """From a pandas/polars DataFrame or an Arrow table (``grade=None``: all 1); one
        without the column ``grade`` is read as :meth:`from_file` reads such a file."""
        if grade is not None and io.gradeless(io.column_names(frame), cls._func, user, item, grade):
            grade = None
        names = {"user": user, "item": item, "grade": grade}
        if io.module_of(frame) == "pyarrow" and io.is_frame(frame):
            io.check_columns(frame, names, cls._func)
            return cls._from_columns(io.ArrowColumns(frame), user, item, grade)
        cols = io.frame_columns(frame, names, cls._func)
        # the grades as the frame holds them: their nulls or NA named so, not NaN
        return cls(cols["user"], cols["item"], None if grade is None else frame[grade])

    @classmethod
    def from_trec(cls, path: str | os.PathLike[str]) -> Qrels:
        """From a TREC qrels file: ``user iteration item grade`` per line (compressed
        too); blank and ``#`` comment lines skipped uncounted, as by trec_eval (a user
        id cannot start with ``#`` here). Errors name the file and line."""
        with io.located(path, "trec"):
            return cls._read_trec(path)

    @classmethod
    def _read_trec(cls, path: str | os.PathLike[str], tables: bool = False) -> Qrels:
        users, items, grades, _ = io.read_trec(path, "qrels", tables)
        return cls(users, items, grades)

    @classmethod
    def from_file(
        cls,
        path: str | os.PathLike[str],
        *,
        user: str = "user",
        item: str = "item",
        grade: str | None = "grade",
        file_format: str | None = None,
    ) -> Qrels:
        """From a TREC, CSV, TSV or Parquet file (format from the suffix unless given).

        A table file without the column ``grade`` (the default name) that holds ``user``
        and ``item`` alone, or with a time column (``timestamp``, ``time``: a split's
        test), is the pairs judged relevant, each of grade 1; one with another column
        is refused (its grades would be left unread): name that column with ``grade=``,
        or pass ``grade=None``.
        """
        name = os.fspath(path)
        fmt = file_format or io.infer_format(name)
        with io.located(path, fmt, (user, item)):
            if fmt == "trec":
                return cls._read_trec(path, tables=True)
            if fmt == "parquet":  # opened once: its schema, then its columns
                check_file(name)
                source = io.ParquetColumns(name, ())
                header = source.schema.names
                if grade is not None and io.gradeless(header, name, user, item, grade):
                    grade = None
                check_has_columns(name, [c for c in (user, item, grade) if c is not None], header)
                return cls._from_columns(source, user, item, grade)
            if grade is not None and fmt in ("csv", "tsv"):
                header = io.table_columns(path, fmt)
                grade = None if io.gradeless(header, name, user, item, grade) else grade
            columns = [c for c in (user, item, grade) if c is not None]
            table = _read_table(path, columns, cls._func, fmt, (user, item), "qrels")
            return cls.from_frame(table, user=user, item=item, grade=grade)

    # ------------------------------------------------------------ views
    def to_dict(self) -> dict[Any, dict[Any, int | float]]:
        """Back to ``{user: {item: grade}}``: an integer grade as an int, others as
        floats."""
        return self._nested(self.grades, _grade)

    def __repr__(self) -> str:
        return f"Qrels(n_users={self.n_users}, n_rows={self.n_rows})"


class Run(_RankedBase):
    """Recommendations: a ranked list of items per user.

    Parameters
    ----------
    users, items : array-like of shape (n_rows,)
        User id and recommended item id of each row: ints or strings.
    scores : array-like of shape (n_rows,), default=None
        Score of each recommendation; higher ranks first. Ties are ordered by
        the ``ties`` convention of :func:`receval.evaluate`.
    ranks : array-like of shape (n_rows,), default=None
        Alternatively, the rank of each recommendation (1 = first); the order
        is kept as given. Exactly one of ``scores`` and ``ranks`` is required.
    name : str, default=None
        A name for reports and comparisons.

    Raises
    ------
    InputValidationError
        Lengths differ, empty input, a (user, item) pair twice, NaN scores.

    Examples
    --------
    >>> from receval import Run
    >>> run = Run.from_dict({"u1": {"a": 0.9, "c": 0.5}, "u2": {"c": 0.7}})
    >>> run.n_users, run.n_rows
    (2, 3)
    """

    _func = "Run"

    def __init__(
        self,
        users: Any,
        items: Any,
        scores: Any = None,
        *,
        ranks: Any = None,
        name: str | None = None,
    ) -> None:

        func = self._func
        if (scores is None) == (ranks is None):
            raise InputValidationError(
                f"{func}: pass exactly one of scores and ranks. Got "
                f"{'both' if scores is not None else 'neither'}."
            )
        offsets, rows, item_codes, n = self._encode(users, items)
        kind = "scores" if ranks is None else "ranks"
        values = _as_numbers(scores if ranks is None else ranks, kind, func)
        v.check_same_length(func, users=range(n), items=range(n), **{kind: values})
        self._build(offsets, rows, item_codes, values, ranks is not None, name)

    def _build(
        self,
        offsets: np.ndarray,
        rows: np.ndarray,
        item_codes: np.ndarray,
        values: np.ndarray,
        from_ranks: bool,
        name: str | None,
        own_values: bool = False,
    ) -> None:
        """Group encoded rows by user and rank each user's items (``own_values``:
        ``values`` is a scratch array of ours and may be ranked in place)."""
        self.name = name
        self.from_ranks = from_ranks
        keys = -values if from_ranks else values
        self.offsets = offsets
        # item codes come from factorize: writeable ones are fresh arrays of ours
        self.items, self.scores, dup = _rank_rows(
            self.offsets, rows, item_codes, keys, len(self._item_ids),
            own_items=item_codes.flags.writeable, own_keys=from_ranks or own_values,
        )  # fmt: skip
        del rows
        self._checked(dup)

    def _checked(self, dup: int) -> None:
        """Raise for a user holding an item twice (``dup`` >= 0); reset the caches."""
        if dup >= 0:
            self._raise_duplicate(dup)
        self._trec_keys: np.ndarray | None = None
        # per precision (float64, float32): the users whose list holds a tie
        self._tied: dict[bool, np.ndarray] = {}

    @classmethod
    def _from_columns(
        cls, source: Any, user: str, item: str, value: str, from_ranks: bool, name: str | None
    ) -> Run:
        """From an Arrow table or a Parquet file (``source``; a run of 100M rows is 2.4
        GB of raw columns), one column at a time, chunk by chunk where it can: the
        scores of a run grouped by user are ranked as they are read (see
        :mod:`receval.data._columns`)."""
        cols = read_run(source, user, item, value, from_ranks, cls._func)
        self = cls.__new__(cls)
        self.user_ids, self.item_ids = cols.user_ids, cols.item_ids
        if cols.ranked:
            self.name, self.from_ranks, self.offsets = name, from_ranks, cols.offsets
            self.items, self.scores = cols.item_codes, cols.values
            self._checked(cols.duplicate)
            return self
        self._build(cols.offsets, cols.rows, cols.item_codes, cols.values, from_ranks, name,
                    own_values=True)  # fmt: skip
        return self

    @property
    def has_ties(self) -> bool:
        """Whether some user has two items with the same score."""
        return bool(len(self.tied_users(single=False)))

    @property
    def has_single_precision_ties(self) -> bool:
        """Whether some user has two scores equal after rounding to float32 (trec_eval's view)."""
        return bool(len(self.tied_users(single=True)))

    def tied_users(self, single: bool) -> np.ndarray:
        """The users (positions, ascending) whose list holds two equal scores (equal
        after rounding to float32 with ``single``); one pass over the rows, kept."""
        if single not in self._tied:
            self._tied[single] = np.asarray(
                compiled().tie_segments(self.scores, self.offsets, single), dtype=np.int64
            )
        return self._tied[single]

    @property
    def trec_keys(self) -> np.ndarray:
        """Per item code, the rank of its id in string order (trec_eval's tie-break)."""
        if self._trec_keys is None:
            self._trec_keys = _string_ranks(self._item_ids)
        return self._trec_keys

    def tie_keys(self, single: bool) -> np.ndarray:
        """:attr:`trec_keys` where a tie reads them: the items of the lists that hold a
        tie (``single``: equal in float32) ranked among themselves in string order
        (the same order within a list), 0 for the other items. A run of few ties
        (most) orders a few ids, not all of them."""
        users = self.tied_users(single)
        if self._trec_keys is not None or len(users) > self.n_users // 8:
            return self.trec_keys
        starts, ends = self.offsets[users], self.offsets[users + 1]
        lens = ends - starts
        rows = np.repeat(starts - np.cumsum(lens) + lens, lens) + np.arange(int(lens.sum()))
        codes = distinct(self.items[rows])
        keys = np.zeros(len(self._item_ids), dtype=np.float64)
        ids = self._item_ids
        keys[codes] = _string_ranks(take_at(ids, codes))
        return keys

    def in_tie_order(
        self, rows: np.ndarray, ties: str, users: np.ndarray | None = None
    ) -> np.ndarray:
        """``rows`` (positions of whole lists, each user's together and in the run's
        order: score descending, tied scores in input order) with each tie reordered by
        the tie rule ``ties``: kept in input order (``"input"``), or by item id,
        descending (``"trec"``, the scores compared in single precision as trec_eval
        compares them, and ``"id_descending"``) or ascending (``"id_ascending"``).
        ``users``: the user (position) of each row, where the caller has it. Only the
        lists of users with a tie are read (:meth:`tied_users`)."""
        single = ties == "trec"
        tied_users = self.tied_users(single) if ties != "input" and len(rows) else ()
        if not len(tied_users):
            return rows
        if users is None:
            users = np.searchsorted(self.offsets, rows, side="right") - 1
        has_tie = np.zeros(self.n_users, dtype=bool)
        has_tie[tied_users] = True
        sub = np.flatnonzero(has_tie[users])
        if not sub.size:
            return rows
        su, sr = users[sub], rows[sub]
        with np.errstate(over="ignore"):  # past float32's range: an infinity, as a C float
            score = self.scores[sr].astype(np.float32) if single else self.scores[sr]
        new = np.ones(len(sub), dtype=bool)
        new[1:] = (su[1:] != su[:-1]) | (score[1:] != score[:-1])
        group = np.cumsum(new) - 1
        tied = np.flatnonzero(np.bincount(group)[group] > 1)
        rank = self.trec_keys[self.items[sr[tied]]].astype(np.int64)  # item id order
        if ties != "id_ascending":
            rank = len(self._item_ids) - 1 - rank
        order = np.argsort(group[tied] * len(self._item_ids) + rank, kind="stable")
        out: np.ndarray = rows.copy()
        out[sub[tied]] = sr[tied[order]]
        return out

    # ------------------------------------------------------------ constructors
    @classmethod
    def from_ranked(
        cls,
        user_ids: np.ndarray,
        item_ids: np.ndarray,
        offsets: np.ndarray,
        items: np.ndarray,
        scores: np.ndarray,
        *,
        from_ranks: bool,
        name: str | None = None,
    ) -> Run:
        """From arrays already grouped by user and ranked, as another run holds them
        (``items``/``scores`` of each user in ``offsets`` order, best first; a sub-run)."""
        self = cls.__new__(cls)
        self.user_ids, self.item_ids, self.offsets = user_ids, item_ids, offsets
        self.items, self.scores = items, scores
        self.name, self.from_ranks = name, from_ranks
        self._checked(-1)
        return self

    @classmethod
    def from_dict(cls, data: Mapping[Any, Mapping[Any, Any]], *, name: str | None = None) -> Run:
        """From ``{user: {item: score}}`` (the pytrec_eval and ranx shape).

        A user with no item (``{}``) is kept, after the others: it is in the run
        with an empty list (every metric 0), not absent from it, as in pytrec_eval.
        """
        users, items, scores = _flatten(data, cls._func)
        self = cls.__new__(cls)
        offsets, rows, item_codes, _ = self._encode(users, items, empty_ok=bool(data))
        values = _as_numbers(scores, "scores", cls._func)
        self._build(offsets, rows, item_codes, values, False, name)
        empty = [user for user, inner in data.items() if len(inner) == 0]
        if empty:
            self.append_users_without_rows(empty)
        return self

    @classmethod
    def from_frame(
        cls,
        frame: Any,
        *,
        user: str = "user",
        item: str = "item",
        score: str | None = "score",
        rank: str | None = None,
        name: str | None = None,
    ) -> Run:
        """From a pandas/polars DataFrame or an Arrow table, with a score or a rank column
        (a frame with a ``rank`` column and no ``score`` column: its ranks)."""
        if rank is None and score == "score":
            given = io.column_names(frame)
            rank = "rank" if "rank" in given and "score" not in given else None
        if rank is not None:
            score = None
        names = {"user": user, "item": item, "score": score, "rank": rank}
        value = score if rank is None else rank
        if io.module_of(frame) == "pyarrow" and io.is_frame(frame) and value is not None:
            io.check_columns(frame, names, cls._func)
            source = io.ArrowColumns(frame)
            return cls._from_columns(source, user, item, value, rank is not None, name)
        cols = io.frame_columns(frame, names, cls._func)
        scores, ranks = (None if c is None else frame[c] for c in (score, rank))  # as held
        return cls(cols["user"], cols["item"], scores, ranks=ranks, name=name)

    @classmethod
    def from_trec(cls, path: str | os.PathLike[str], *, name: str | None = None) -> Run:
        """From a TREC run file: ``user Q0 item rank score tag`` per line (compressed too).

        As in trec_eval, the order comes from the scores; the rank column is read
        but not used, and fields after the tag are ignored. ``name`` defaults to
        the tag of the last line (trec_eval's ``runid``). Blank and ``#`` comment
        lines are skipped uncounted, as by trec_eval (a user id cannot start with ``#``
        here). Errors name the file and line.
        """
        with io.located(path, "trec"):
            return cls._read_trec(path, name)

    @classmethod
    def _read_trec(
        cls, path: str | os.PathLike[str], name: str | None, tables: bool = False
    ) -> Run:
        users, items, scores, tag = io.read_trec(path, "run", tables)
        self = cls.__new__(cls)  # finite float64 scores of ours, ranked in place
        offsets, rows, item_codes, _ = self._encode(users, items)
        name = tag if name is None else name
        self._build(offsets, rows, item_codes, scores, False, name, own_values=True)
        return self

    @classmethod
    def from_file(
        cls,
        path: str | os.PathLike[str],
        *,
        user: str = "user",
        item: str = "item",
        score: str | None = "score",
        rank: str | None = None,
        file_format: str | None = None,
        name: str | None = None,
    ) -> Run:
        """From a TREC, CSV, TSV or Parquet file (format from the suffix unless given)."""
        fmt = file_format or io.infer_format(os.fspath(path))
        if rank is not None:
            score = None
        with io.located(path, fmt, (user, item)):
            if fmt == "trec":
                return cls._read_trec(path, name, tables=True)
            value = score or rank
            if fmt == "parquet" and value is not None and os.path.exists(os.fspath(path)):
                source = io.ParquetColumns(os.fspath(path), (user, item, value))
                return cls._from_columns(
                    source, user, item, value, rank is not None,
                    name or os.path.basename(os.fspath(path)),
                )  # fmt: skip
            columns = [c for c in (user, item, score, rank) if c is not None]
            numbers = () if score is None else (score,)
            table = _read_table(path, columns, cls._func, fmt, (user, item), "run", numbers)
            return cls.from_frame(
                table, user=user, item=item, score=score, rank=rank,
                name=name or os.path.basename(os.fspath(path)),
            )  # fmt: skip

    def to_dict(self) -> dict[Any, dict[Any, float]]:
        """Back to ``{user: {item: score}}`` (ranks become negative scores)."""
        return self._nested(self.scores, float)

    def __repr__(self) -> str:
        label = f"name={self.name!r}, " if self.name else ""
        return f"Run({label}n_users={self.n_users}, n_rows={self.n_rows})"


def _string_ranks(ids: Any) -> np.ndarray:
    """The rank of each of ``ids`` in string order (float64; equal ids in array order):
    NumPy ids, or string ids kept as an Arrow array (sorted by Arrow: their UTF-8
    bytes, in the order of their code points, as Python orders str)."""
    if not isinstance(ids, np.ndarray):
        import pyarrow.compute as pc

        ranks = np.empty(len(ids), dtype=np.float64)
        from ._arrow import numbers_view

        ranks[numbers_view(pc.sort_indices(ids))] = np.arange(len(ids))
        return ranks
    rank = compiled().str_ranks(np.ascontiguousarray(ids)) if ids.dtype == object else None
    if rank is None:  # integer ids (ordered without strings), or ids not all str
        rank = np.empty(len(ids), dtype=np.float64)
        rank[string_order(ids)] = np.arange(len(ids))
    result: np.ndarray = rank
    return result


def _n_threads() -> int:
    return num_threads()


def _codes32(codes: np.ndarray) -> np.ndarray:
    """Codes as the core takes them: contiguous int32 (no copy when they are)."""
    return np.ascontiguousarray(codes, dtype=np.int32)


def _rank_rows(
    offsets: np.ndarray,
    rows: np.ndarray,
    items: np.ndarray,
    keys: np.ndarray,
    n_items: int,
    own_items: bool = False,
    own_keys: bool = False,
) -> tuple[np.ndarray, np.ndarray, int]:
    """Items and keys of every segment in key-descending order (stable), and the
    first segment holding a duplicate item (-1 if none). With ``own_items`` and
    ``own_keys``, ``items`` and ``keys`` may be reordered in place (saving a
    copy of each).

    The compiled core ranks each list on its own (a packed integer sort of the
    list, checked, with the exact merge sort as fallback), in parallel over
    contiguous chunks of lists, and in place where allowed.
    """
    n_chunks = 4 * _n_threads()
    core = compiled()
    keys = np.ascontiguousarray(keys, dtype=np.float64)
    if items.dtype != np.int32:
        items, own_items = _codes32(items), True
    if not (items.flags.c_contiguous and items.flags.writeable):
        own_items = False
    if not keys.flags.writeable:
        own_keys = False
    out_items, out_keys, dup = core.rank_rows(
        offsets, rows, items, keys, n_items, own_items and len(rows) == 0,
        own_keys and len(rows) == 0, n_chunks,
    )  # fmt: skip
    return out_items, out_keys, int(dup)


def _flatten(data: Any, func: str) -> tuple[list[Any], list[Any], list[Any]]:
    if not isinstance(data, Mapping):
        raise InputValidationError(
            f"{func}.from_dict: expected a mapping {{user: {{item: value}}}}. "
            f"Got {type(data).__name__}."
        )
    users: list[Any] = []
    items: list[Any] = []
    values: list[Any] = []
    for user, inner in data.items():
        if not isinstance(inner, Mapping):
            raise InputValidationError(
                f"{func}.from_dict: the value of user {user!r} must be a mapping "
                f"{{item: value}}. Got {type(inner).__name__}."
            )
        users.extend([user] * len(inner))
        items.extend(inner.keys())
        values.extend(inner.values())
    return users, items, values


def as_qrels(qrels: Any, func: str = "evaluate") -> Qrels:
    """``qrels=`` of :func:`receval.evaluate` (or ``func``) as a :class:`Qrels`: a
    ``Qrels``, ``{user: {item: grade}}``, a DataFrame (columns ``user``, ``item`` and
    ``grade``) or a TREC, CSV or Parquet file (a frame or file of ``user`` and ``item``
    alone, or with a time column, has grade 1 in every row: :meth:`Qrels.from_frame`)."""
    return _as_ranked(qrels, Qrels, "qrels", "grade", func)


def as_run(run: Any, func: str = "evaluate", argument: str = "run") -> Run:
    """``run=`` of :func:`receval.evaluate` (or ``argument`` of ``func``) as a :class:`Run`:
    a ``Run``, ``{user: {item: score}}``, a DataFrame (columns ``user``, ``item``,
    ``score``) or a TREC, CSV or Parquet file."""
    return _as_ranked(run, Run, argument, "score", func)


_Ranked = TypeVar("_Ranked", "Qrels", "Run")


def _as_ranked(data: Any, kind: type[_Ranked], argument: str, value: str, func: str) -> _Ranked:
    if isinstance(data, kind):
        return data
    if not (isinstance(data, (Mapping, str, os.PathLike)) or io.is_frame(data)):
        raise InvalidParameterError(
            f"The {argument!r} parameter of {func} must be a {kind.__name__}, a dict "
            f"{{user: {{item: {value}}}}}, a DataFrame or a file path. Got "
            f"{type(data).__name__} instead."
        )
    try:
        if isinstance(data, Mapping):
            return kind.from_dict(data)
        if not io.is_frame(data):
            read: _Ranked = read_given(kind, data, argument, func)
            return read
        return kind.from_frame(data)
    except InputValidationError as exc:  # the reader's "Run: ...", "Run.from_dict: ..."
        renamed = exc.named_reader(kind._func, f"{func}: {argument}: ")
        if renamed is exc:
            raise
        raise given_frame_fix(renamed, argument, kind) from None


#: The fields of a line of a TREC file of each kind
_TREC_FIELDS = {"qrels": 4, "run": 6}


def _read_table(
    path: str | os.PathLike[str], columns: list[str], func: str, fmt: str | None,
    ids: tuple[str, str], kind: str, numbers: tuple[str, ...] = (),
) -> Any:  # fmt: skip
    """The columns of a table file (CSV, TSV, Parquet; ``numbers`` as float64); a CSV or
    TSV file without them whose first line looks like a line of a TREC ``kind`` file
    (fields separated by whitespace, no comma) is named so: ``file_format='trec'``."""
    try:
        return io.read_table(path, columns, func, fmt, ids, encode_ids=True, numbers=numbers)
    except InputValidationError as exc:
        name = os.fspath(path)
        if fmt not in ("csv", "tsv") or "no column" not in str(exc) or not os.path.isfile(name):
            raise
        from ._csv import csv_header

        names = csv_header(name, fmt)
        line = ("\t" if fmt == "tsv" else ",").join(names)
        missing = [c for c in columns if c not in names]
        if "," in line or len(line.split()) != _TREC_FIELDS[kind] or not missing:
            raise
        raise InputValidationError(
            f"{name}: no column {missing[0]!r}. Got columns {v.format_values(names, limit=10)}; "
            f"its first line, {line!r}, looks like a line of a TREC {kind} file "
            f"({_TREC_FIELDS[kind]} fields separated by whitespace), so pass "
            f"file_format='trec'."
        ) from None

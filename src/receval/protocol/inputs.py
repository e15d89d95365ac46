"""The inputs of an audit as rows: ids (as given and as codes shared by every input),
times, scores and grades.

An audit looks at the rows as they are, duplicates included, so it reads them
with the project's readers (:mod:`receval.data.io` for frames and files, the
compiled TREC reader) rather than through :class:`~receval.Qrels` and
:class:`~receval.Run`, which refuse a repeated (user, item) pair. A Qrels or Run
already built is read back as rows.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import _validation as v
from ..data import io
from ..data._encode import factorize, join_ids
from ..data._lookup import distinct, lookup
from ..data._ranked import Qrels, Run
from ..data._times import TIME_NAMES, time_column
from ..exceptions import InputValidationError
from ..metrics.beyond.history import read_log
from .report import example_value

__all__ = [
    "Columns",
    "Rows",
    "align",
    "read_rows",
    "show_time",
]

FUNC = "audit"

#: The time columns looked for when ``time=None``, in this order.


@dataclass(frozen=True)
class Columns:
    """The column names of the audit's frames and files."""

    user: str = "user"
    item: str = "item"
    time: str | None = None
    score: str = "score"
    grade: str | None = "grade"


@dataclass
class Rows:
    """One input's rows: ``user_ids[users[r]]`` and ``item_ids[items[r]]`` are the ids of
    row ``r``; ``times`` (sort keys, :func:`~receval.data._times.time_column`), ``values``
    (run scores, qrels grades) where given.

    :func:`align` adds ``user_map`` and ``item_map``: the shared code of each local code.
    """

    name: str
    users: np.ndarray
    user_ids: np.ndarray
    items: np.ndarray
    item_ids: np.ndarray
    times: np.ndarray | None = None
    values: np.ndarray | None = None
    time_column: str | None = None
    #: the ``datetime64`` type of datetime ``times`` (None for epoch numbers)
    time_unit: np.dtype[Any] | None = None
    #: the time zone of the times (:func:`~receval.data._times.time_column`; None: naive)
    time_zone: str | None = None
    run: Run | None = None
    user_map: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    item_map: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    # pair keys, and their distinct values sorted, computed once (see pair_keys)
    _keys: dict[str, np.ndarray] = field(default_factory=dict, repr=False)

    @property
    def n_rows(self) -> int:
        return len(self.users)

    @property
    def n_users(self) -> int:
        return len(self.user_ids)

    def shared_users(self) -> np.ndarray:
        """The shared user code of every row."""
        result: np.ndarray = self.user_map[self.users]
        return result

    def shared_items(self) -> np.ndarray:
        """The shared item code of every row."""
        result: np.ndarray = self.item_map[self.items]
        return result

    def pair_keys(self, n_items: int) -> np.ndarray:
        """Each row's (user, item) pair as one int64 key over the shared codes
        (``n_items``: the shared items, the same for every call of an audit)."""
        if "rows" not in self._keys:
            self._keys["rows"] = self.shared_users() * max(n_items, 1) + self.shared_items()
        return self._keys["rows"]

    def distinct_keys(self, n_items: int) -> np.ndarray:
        """The distinct :meth:`pair_keys`, ascending."""
        if "distinct" not in self._keys:
            self._keys["distinct"] = distinct(self.pair_keys(n_items))
        return self._keys["distinct"]

    def has(self, role: str, size: int) -> np.ndarray:
        """Per shared user (``role="user"``) or item code below ``size``, whether the input
        holds it (the shared codes are dense: a table, no sort)."""
        present = np.zeros(size, dtype=bool)
        present[getattr(self, f"{role}_map")] = True
        return present

    @property
    def time_kind(self) -> str | None:
        """``"number"`` (epoch numbers), ``"datetime"`` or None (no times)."""
        if self.times is None:
            return None
        return "number" if self.time_unit is None else "datetime"

    def example(self, at: int, **extra: Any) -> dict[str, Any]:
        """Row ``at`` as ``{"user": ..., "item": ..., "time": ...}`` plus ``extra``."""
        out: dict[str, Any] = {
            "user": example_value(self.user_ids[self.users[at]]),
            "item": example_value(self.item_ids[self.items[at]]),
        }
        if self.times is not None:
            out["time"] = show_time(self.times[at], self.time_unit)
        return out | extra


# ------------------------------------------------------------------ reading
def _time_column(names: Sequence[str], columns: Columns, name: str) -> str | None:
    """The time column of an input: the given one (required), else the first of
    :data:`TIME_NAMES` it has, else None."""
    if columns.time is not None:
        if columns.time not in names:
            raise InputValidationError(
                f"{FUNC}: {name} has no column {columns.time!r} for the times. Got columns "
                f"{v.format_values(names, limit=10)}; pass time='<column name>' naming one of them."
            )
        return columns.time
    return next((t for t in TIME_NAMES if t in names), None)


def _value_column(names: Sequence[str], name: str, columns: Columns, time: str | None,
                  where: str) -> str | None:  # fmt: skip
    """The column of an input's values: the run's scores, the test's grades (none where
    its columns are ids and times alone: :func:`receval.data.io.gradeless`), none for
    the training log."""
    if name == "run":
        return columns.score
    if name != "test" or columns.grade is None:
        return None
    pairs = io.gradeless(names, where, columns.user, columns.item, columns.grade, time)
    return None if pairs else columns.grade


def _from_frame(frame: Any, name: str, columns: Columns) -> Rows:
    names = io.column_names(frame)
    time = None if name == "run" else _time_column(names, columns, name)
    value = _value_column(names, name, columns, time, f"{FUNC} {name}")
    return _frame_rows(frame, name, columns, time, value)


def _frame_rows(frame: Any, name: str, columns: Columns, time: str | None,
                value: str | None) -> Rows:  # fmt: skip
    """The rows of a frame whose time and value columns (:func:`_time_column`,
    :func:`_value_column`) are known."""
    role = "score" if name == "run" else "grade"  # the argument that names the column
    wanted = {"user": columns.user, "item": columns.item, role: value}
    io.check_columns(frame, {"user": columns.user, "item": columns.item}, f"{FUNC} {name}")
    cols = io.frame_columns(frame, wanted, f"{FUNC} {name}")
    cols["value"] = cols.pop(role, None)
    if time is not None:  # as the frame types it: its type tells the time zone
        cols["time"] = frame[time]
    return _rows(name, {**cols, "value_name": value}, time)


def _rows(name: str, cols: Mapping[str, Any], time: str | None) -> Rows:
    func = f"{FUNC} {name}"
    n = v.check_same_length(func, users=cols["user"], items=cols["item"])
    v.check_not_empty(n, "users", func)
    users, user_ids = factorize(cols["user"], "users", func)
    items, item_ids = factorize(cols["item"], "items", func)
    times = unit = zone = None
    if cols.get("time") is not None:
        column = f"the {time!r} column of {name}"
        times, unit, zone = time_column(cols["time"], FUNC, column)
    values = None
    if cols.get("value") is not None:
        raw = cols["value"]
        what = str(cols.get("value_name") or ("scores" if name == "run" else "grades"))
        values = v.check_finite(v.as_float(v.as_1d(raw, what, func), what, func), what, func)
        if name == "test" and (values != np.floor(values)).any():
            raise InputValidationError(
                f"{func}: the grades ({what}) must be integers. Got values "
                f"{v.format_values(distinct(values[values != np.floor(values)]))}; map them "
                f"to integers first, or name another column with grade=."
            )
    return Rows(
        name, users, user_ids, items, item_ids, times, values, time, time_unit=unit, time_zone=zone
    )


def _from_ranked(data: Qrels | Run, name: str) -> Rows:
    users = np.repeat(np.arange(data.n_users, dtype=np.int64), np.diff(data.offsets))
    values = data.scores if isinstance(data, Run) else data.grades
    run = data if isinstance(data, Run) else None
    return Rows(
        name,
        users,
        data.user_ids,
        np.asarray(data.items, dtype=np.int64),
        data.item_ids,
        None,
        np.asarray(values, dtype=np.float64),
        run=run,
    )


def _from_trec(path: str, name: str) -> Rows:
    """A TREC file: a run (``user Q0 item rank score tag``) for ``run``, qrels
    (``user iteration item grade``) otherwise; repeated pairs kept."""
    kind = "run" if name == "run" else "qrels"
    with io.located(path, "trec"):
        try:
            users, items, values, _ = io.read_trec(path, kind)
        except InputValidationError as exc:  # "run.trec:1: the score 'nan' is not finite"
            line = re.match(rf"{re.escape(path)}:\d+: ", str(exc))
            if line is None:
                raise
            raise exc.named(line[0], f"{line[0]}{FUNC} {name}: ") from None
        return _rows(name, {"user": users, "item": items, "value": values}, None)


def _file_columns(path: str, fmt: str) -> list[str]:
    """The column names of a CSV, TSV or Parquet file (its header or schema); none
    for a file that cannot be read so (:func:`receval.data.io.read_table` names the
    problem)."""
    try:
        return io.table_columns(path, fmt)
    except InputValidationError:
        return []


def _from_path(path: str, name: str, columns: Columns) -> Rows:
    fmt = io.infer_format(path) or "trec"
    if fmt == "trec":
        return _from_trec(path, name)
    names = _file_columns(path, fmt)
    wanted = [columns.user, columns.item]
    time = None
    if name != "run":
        time = _time_column(names, columns, f"{path} ({name})") if names else columns.time
        wanted += [time] if time is not None else []
    value = _value_column(names, name, columns, time, f"{path} ({name})")
    wanted += [value] if value is not None else []
    if name == "run" and set(wanted[:2]) <= set(names) and value not in names:
        raise InputValidationError(  # as the reader says it, with the fix
            f"{path}: no column {value!r}. Got columns {v.format_values(names, limit=10)}; "
            f"pass score='<column name>' naming the column of the run's scores."
        )
    table = io.read_table(path, wanted, f"{FUNC} {name}", fmt, id_columns=wanted[:2])
    with io.located(path, fmt, (columns.user, columns.item)):
        return _frame_rows(table, name, columns, time, value)


def read_rows(data: Any, name: str, columns: Columns) -> Rows:
    """The rows of ``train``, ``test`` or ``run`` (``name``) from any accepted input."""
    if isinstance(data, (Qrels, Run)):
        return _from_ranked(data, name)
    if io.is_frame(data):
        return _from_frame(data, name, columns)
    if isinstance(data, (str, os.PathLike)):
        return _from_path(os.fspath(data), name, columns)
    if name == "train" and isinstance(data, (Mapping, tuple)):
        log = read_log(data, "train", FUNC)  # {user: items} or {user: {item: ...}}, a pair
        return Rows(name, log.users, log.user_ids, log.items, log.item_ids)
    if isinstance(data, Mapping):
        kind = Run if name == "run" else Qrels
        try:
            ranked = kind.from_dict(data)
        except InputValidationError as exc:  # the reader's "Run: ...", "Run.from_dict: ..."
            raise exc.named_reader(kind.__name__, f"{FUNC} {name}: ") from None
        return _from_ranked(ranked, name)
    shapes = {"run": "a Run", "test": "a Qrels"}.get(name, "a Qrels, a pair (users, items)")
    raise InputValidationError(
        f"{FUNC}: {name} must be {shapes}, a mapping {{user: {{item: value}}}}, a DataFrame "
        f"with columns {columns.user!r} and {columns.item!r}, or a TREC, CSV or Parquet file. "
        f"Got {type(data).__name__}."
    )


# ------------------------------------------------------------------ times
def show_time(value: Any, unit: np.dtype[Any] | None) -> Any:
    """A time as :class:`Rows` holds it, as a reader would write it: an epoch number
    as it is, a datetime as ISO 8601 text (in seconds where it is whole seconds and
    its unit finer).

    Examples
    --------
    >>> show_time(86_400 * 10**9, np.dtype("M8[ns]")), show_time(3, np.dtype("M8[D]"))
    ('1970-01-02T00:00:00', '1970-01-04')
    """
    if unit is None:
        return example_value(value)
    name = np.datetime_data(unit)[0]
    stamp = np.array([int(value)], dtype=np.int64).view(unit)[0]
    seconds = stamp.astype("datetime64[s]")
    return str(seconds if name in ("ms", "us", "ns") and seconds == stamp else stamp)


# ------------------------------------------------------------------ shared codes
def align(inputs: Sequence[Rows]) -> tuple[int, int]:
    """Give every input's users and items codes shared by all the inputs (an id 7 and
    an id ``"7"`` are one id, as :func:`receval.evaluate` matches them); returns the
    number of distinct users and items over the inputs."""
    sizes = []
    for role in ("user", "item"):
        union: np.ndarray | None = None
        for rows in inputs:
            ids = getattr(rows, f"{role}_ids")
            if union is None:
                codes = np.arange(len(ids), dtype=np.int64)
                union = ids
            else:
                codes = lookup(ids, union).astype(np.int64)
                new = codes < 0
                codes[new] = len(union) + np.arange(int(new.sum()))
                union = join_ids([union, ids[new]])
            setattr(rows, f"{role}_map", codes)
        sizes.append(0 if union is None else len(union))
    return sizes[0], sizes[1]

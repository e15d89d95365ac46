"""The result of a split: train and test parts, and what the split left out or left cold."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._validation import (
    as_1d,
    check_number,
    check_option,
    format_values,
    is_number,
    missing_values,
)
from ..data import io
from ..data._arrow import take_at
from ..data._encode import encode_ids
from ..exceptions import InputValidationError, InvalidParameterError

#: the counts a result reports, in the order of its repr and summary
COUNTS = (
    "n_rows",
    "n_users",
    "n_items",
    "n_train_rows",
    "n_test_rows",
    "n_train_users",
    "n_test_users",
    "n_users_dropped",
    "n_rows_dropped",
    "n_users_without_test",
    "n_cold_users",
    "n_cold_items",
    "n_test_rows_cold_items",
)


@dataclass(frozen=True, eq=False, repr=False)
class SplitResult:
    """Train and test parts of an interaction log, and the counts of what was left out.

    Made by the functions of :mod:`receval.split`. ``train`` and ``test`` have
    the log's frame type (pandas, polars, Arrow; an Arrow table for a file), rows
    in the log's order; for a :class:`receval.Scan` they are scans of the Parquet
    or CSV files written.

    Attributes
    ----------
    train, test : DataFrame, Arrow table or Scan
        The two parts. ``train`` can be passed as the ``train=``,
        ``popularity=`` or ``exclude=`` argument of the metrics that take one;
        ``test`` becomes qrels with :meth:`qrels`.
    method : str
        The split (``"leave_last_out"``, ``"temporal"``...).
    fold : int or None
        The fold's number (0-based) for :func:`user_kfold` and :func:`rolling`.
    n_rows, n_users, n_items : int
        Rows, distinct users and distinct items of the log.
    n_train_rows, n_test_rows, n_train_users, n_test_users : int
        Sizes of the two parts.
    n_users_dropped, n_rows_dropped : int
        Users (and their rows) in neither part: too few interactions for the
        split's rule (``min_interactions``, ``short="drop"``), or outside a
        rolling fold's windows.
    n_users_without_test : int
        Users kept in train only (too few interactions to hold any out, or no
        interaction after a temporal cut-off).
    n_cold_users : int
        Test users with no row in train (a model trained on train knows nothing
        of them).
    n_cold_items, n_test_rows_cold_items : int
        Test items with no row in train, and the test rows that hold them.
    columns : dict
        The log's column of each role: ``user``, ``item``, ``time``, ``rating``.
    """

    train: Any
    test: Any
    method: str
    fold: int | None
    n_rows: int
    n_users: int
    n_items: int
    n_train_rows: int
    n_test_rows: int
    n_train_users: int
    n_test_users: int
    n_users_dropped: int
    n_rows_dropped: int
    n_users_without_test: int
    n_cold_users: int
    n_cold_items: int
    n_test_rows_cold_items: int
    columns: dict[str, str | None] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        """The counts as a dict, with the method and fold (``receval split -f json``
        prints the counts)."""
        out: dict[str, Any] = {"method": self.method, "fold": self.fold}
        out.update({name: getattr(self, name) for name in COUNTS})
        return out

    def __repr__(self) -> str:
        fold = "" if self.fold is None else f" fold {self.fold}"
        lines = [f"SplitResult({self.method}{fold}:"]
        lines += [f"  {name}={getattr(self, name)}" for name in COUNTS]
        return "\n".join(lines) + ")"

    def qrels(
        self,
        relevance: str = "any",
        *,
        column: str | None = None,
        threshold: float | None = None,
    ) -> Any:
        """The test part as :class:`receval.Qrels`, with a relevance rule.

        Parameters
        ----------
        relevance : {"any", "threshold", "graded"}, default="any"
            ``"any"``: every test interaction is relevant (grade 1).
            ``"threshold"``: grade 1 where ``column`` is at least ``threshold``,
            else 0 (judged, not relevant): ratings (``column="rating"``,
            ``threshold=4``) or clicks (``column="clicks"``, ``threshold=1``).
            ``"graded"``: the column's integer value is the grade.
        column : str, default=None
            The column read by ``"threshold"`` and ``"graded"``; by default the
            split's ``rating`` column.
        threshold : float, default=None
            The smallest relevant value, for ``"threshold"``.

        Returns
        -------
        qrels : Qrels
            A (user, item) pair held out more than once (a repeated
            interaction) is judged once, with its largest grade.

        Examples
        --------
        >>> import pandas as pd
        >>> from receval import split
        >>> log = pd.DataFrame({"user": [1, 1, 1, 2, 2], "item": [10, 11, 12, 10, 13],
        ...                     "timestamp": [1, 2, 3, 1, 2], "rating": [5, 3, 4, 2, 5]})
        >>> result = split.leave_last_out(log, n=1)
        >>> result.qrels("threshold", column="rating", threshold=4).to_dict()
        {1: {12: 1}, 2: {13: 1}}
        """
        from ..data._ranked import Qrels

        func = "SplitResult.qrels"
        check_option(relevance, "relevance", func, ["any", "graded", "threshold"])
        if relevance != "any":
            column = column or self.columns.get("rating")
            if column is None:
                raise InvalidParameterError(
                    f"{func}: relevance={relevance!r} reads a column; pass column='<name>' "
                    f"(e.g. 'rating' or 'clicks') or rating='<name>' to the split."
                )
        if relevance == "threshold":
            if threshold is None:
                raise InvalidParameterError(
                    f"{func}: relevance='threshold' needs threshold=<smallest relevant "
                    f"value>, e.g. threshold=4 for ratings or 1 for clicks."
                )
            check_number(threshold, "threshold", func)
        test = self.test
        user, item = str(self.columns["user"]), self.columns["item"]
        if item is None:
            raise InvalidParameterError(
                f"{func}: the split was made without an item column (item=None); split "
                f"again with item='<column name>'."
            )
        if type(test).__name__ == "Scan":  # a written part: ids in CSV stay strings
            test = _read_whole(test, (user, item))
        names = io.column_names(test)
        if relevance != "any" and column not in names:
            raise InputValidationError(
                f"{func}: the test part has no column {column!r} for relevance="
                f"{relevance!r} to read. Got columns {format_values(names, limit=10)}; pass "
                f"column='<column name>' naming one of them."
            )
        roles = {"user": user, "item": item, "column": column if relevance != "any" else None}
        cols = io.frame_columns(test, roles, func)
        if len(cols["user"]) == 0:
            raise InputValidationError(
                f"{func}: the test part has no rows (the split left every row in train); "
                f"there is nothing to judge: check the split's parameters."
            )
        grades: np.ndarray
        if relevance == "any":
            grades = np.ones(len(cols["user"]), dtype=np.int64)
        else:  # an Arrow column through its buffers (np.asarray of it imports pandas)
            values = _numbers(
                as_1d(cols["column"], f"the {column!r} column", func), str(column), func
            )
            if relevance == "threshold":
                smallest = float(check_number(threshold, "threshold", func))
                grades = (values >= smallest).astype(np.int64)
            else:
                grades = values
        return _judged_once(Qrels, cols["user"], cols["item"], grades, func)


def _numbers(values: np.ndarray, column: str, func: str) -> np.ndarray:
    """The test part's values of ``column`` as float64; a value that is no number
    or is missing (NaN, None) is an error naming the column and the first such
    row of the test part (a missing rating is neither relevant nor not)."""
    name = f"the {column!r} column of the test part"
    fix = f"drop those rows or fill them, e.g. log.dropna(subset=[{column!r}])"
    try:
        numbers = np.asarray(values, dtype=np.float64)
    except (ValueError, TypeError):
        given = values.tolist()
        row, value = next((i, x) for i, x in enumerate(given) if not is_number(x))
        if value is None:
            missing = np.fromiter((x is None for x in given), dtype=bool, count=len(given))
            raise missing_values(func, name, missing, "None or NaN", fix) from None
        raise InputValidationError(
            f"{func}: {name} must hold numbers. Got {value!r} at position {row}; convert "
            f"the column to numbers, e.g. log[{column!r}] = pd.to_numeric(log[{column!r}])."
        ) from None
    missing = np.isnan(numbers)
    if missing.any():
        raise missing_values(func, name, missing, "None or NaN", fix)
    return numbers


def _read_whole(scan: Any, ids: tuple[str, str]) -> Any:
    """A written part (a :class:`receval.Scan` of one file) as an Arrow table."""
    from ._log import read_file

    return read_file(os.fspath(scan.paths[0]), ids, "SplitResult.qrels")


def _judged_once(qrels_type: Any, users: Any, items: Any, grades: np.ndarray, func: str) -> Any:
    """Qrels with each (user, item) pair once, at its largest grade: the pairs' codes
    packed in one integer, the rows in their order by one sort (Arrow's group_by
    imports pyarrow.dataset and pandas), each pair's grades reduced where it
    starts."""
    user_codes, user_ids = encode_ids(users, "user", func)
    item_codes, item_ids = encode_ids(items, "item", func)
    n_items = max(len(item_ids), 1)
    pairs = user_codes.astype(np.int64) * n_items + item_codes
    order = np.argsort(pairs, kind="stable")
    ordered = pairs[order]
    starts = np.flatnonzero(np.concatenate([[True], ordered[1:] != ordered[:-1]]))
    largest = np.maximum.reduceat(grades[order], starts)
    user_of, item_of = np.divmod(ordered[starts], n_items)
    return qrels_type(take_at(user_ids, user_of), take_at(item_ids, item_of), largest)

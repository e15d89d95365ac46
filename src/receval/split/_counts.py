"""A split's result from its two masks over the log's rows: the parts and every count."""

from __future__ import annotations

import numpy as np

from ._log import Log
from ._result import SplitResult

#: the counts of the core's ``split_counts``, in its order
KERNEL_COUNTS = (
    "n_train_rows",
    "n_test_rows",
    "n_train_users",
    "n_test_users",
    "n_users_dropped",
    "n_users_without_test",
    "n_cold_users",
    "n_cold_items",
    "n_test_rows_cold_items",
)


def result_of(
    log: Log, train: np.ndarray, test: np.ndarray, method: str, fold: int | None = None
) -> SplitResult:
    """The :class:`SplitResult` of boolean masks ``train`` and ``test`` (disjoint): the
    users and items of each part counted by the core in one pass over the rows."""
    from .._kernels import compiled

    counts = compiled().split_counts(
        np.ascontiguousarray(log.user_codes, dtype=np.int32),
        log.n_users,
        None if log.item_codes is None else np.ascontiguousarray(log.item_codes, dtype=np.int32),
        log.n_items,
        np.ascontiguousarray(train, dtype=bool),
        np.ascontiguousarray(test, dtype=bool),
    )
    return SplitResult(
        train=log.take(np.flatnonzero(train)),
        test=log.take(np.flatnonzero(test)),
        method=method,
        fold=fold,
        n_rows=log.n_rows,
        n_users=log.n_users,
        n_items=log.n_items,
        n_rows_dropped=log.n_rows - counts[0] - counts[1],
        columns=dict(log.columns),
        **dict(zip(KERNEL_COUNTS, counts, strict=True)),
    )

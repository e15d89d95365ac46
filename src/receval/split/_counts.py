"""A split's result from its two masks over the log's rows: the parts and every count."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._log import Log
from ._result import SplitResult


def present(codes: np.ndarray, mask: np.ndarray, n: int) -> np.ndarray:
    """Which codes (of ``n``) have a row where ``mask`` is true."""
    seen = np.zeros(n, dtype=bool)
    seen[codes[mask]] = True
    return seen


def result_of(
    log: Log, train: np.ndarray, test: np.ndarray, method: str, fold: int | None = None
) -> SplitResult:
    """The :class:`SplitResult` of boolean masks ``train`` and ``test`` (disjoint)."""
    users_train = present(log.user_codes, train, log.n_users)
    users_test = present(log.user_codes, test, log.n_users)
    counts: dict[str, Any] = {}
    if log.item_codes is not None:
        items_train = present(log.item_codes, train, log.n_items)
        cold_rows = test & ~items_train[log.item_codes]
        counts["n_cold_items"] = int(present(log.item_codes, cold_rows, log.n_items).sum())
        counts["n_test_rows_cold_items"] = int(cold_rows.sum())
    else:
        counts["n_cold_items"] = counts["n_test_rows_cold_items"] = 0
    n_train, n_test = int(train.sum()), int(test.sum())
    return SplitResult(
        train=log.take(np.flatnonzero(train)),
        test=log.take(np.flatnonzero(test)),
        method=method,
        fold=fold,
        n_rows=log.n_rows,
        n_users=log.n_users,
        n_items=log.n_items,
        n_train_rows=n_train,
        n_test_rows=n_test,
        n_train_users=int(users_train.sum()),
        n_test_users=int(users_test.sum()),
        n_users_dropped=int((~(users_train | users_test)).sum()),
        n_rows_dropped=log.n_rows - n_train - n_test,
        n_users_without_test=int((users_train & ~users_test).sum()),
        n_cold_users=int((users_test & ~users_train).sum()),
        columns=dict(log.columns),
        **counts,
    )

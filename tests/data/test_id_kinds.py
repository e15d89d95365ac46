"""Ids of every kind (pandas, polars and Arrow strings, categoricals, nullable
integers) give the report of int64 ids, and are encoded without a Python object
per row."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import receval
from receval import InputValidationError, Run

pl = pytest.importorskip("polars")

METRICS = ["ndcg@10", "recall@5", "mrr"]


def _ids(n_users: int = 40, k: int = 12, seed: int = 0) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    users = np.repeat(rng.permutation(n_users) * 3 + 5, k)
    items = (rng.integers(0, 500, size=n_users)[:, None] + np.arange(k) * 7).ravel()
    scores = rng.random(n_users * k)
    judged = rng.random(n_users * k) < 0.3
    return users, items, scores, judged


def _pd(values: np.ndarray, dtype: Any) -> pd.Series:
    return pd.Series(values.astype(str), dtype=dtype)


# each kind: int64 ids -> a column of that kind (pandas Series, polars Series or Arrow array)
KINDS: dict[str, Callable[[np.ndarray], Any]] = {
    "pandas-str": lambda x: _pd(x, "str"),
    "pandas-string-pyarrow": lambda x: _pd(x, "string[pyarrow]"),
    "pandas-string-python": lambda x: _pd(x, "string[python]"),
    "pandas-arrowdtype": lambda x: _pd(x, pd.ArrowDtype(pa.large_string())),
    "pandas-object": lambda x: pd.Series(x.astype(str).astype(object), dtype=object),
    "pandas-categorical": lambda x: pd.Series(pd.Categorical(x.astype(str))),
    "pandas-categorical-unused": lambda x: pd.Series(
        pd.Categorical(x.astype(str), categories=["zz", *sorted(set(x.astype(str)))])
    ),
    "pandas-categorical-int": lambda x: pd.Series(pd.Categorical(x)),
    "pandas-Int64": lambda x: pd.Series(x, dtype="Int64"),
    "polars-string": lambda x: pl.Series(x.astype(str)),
    "polars-categorical": lambda x: pl.Series(x.astype(str)).cast(pl.Categorical),
    "polars-enum": lambda x: pl.Series(x.astype(str)).cast(
        pl.Enum(sorted(set(x.astype(str).tolist())))
    ),
    "arrow-string": lambda x: pa.array(x.astype(str)),
    "arrow-large-string": lambda x: pa.array(x.astype(str), type=pa.large_string()),
    "arrow-sliced": lambda x: pa.array(["pad", *x.astype(str).tolist()])[1:],
    "arrow-large-sliced": lambda x: pa.array(["pad", *x.astype(str).tolist()], pa.large_string())[
        1:
    ],
    "arrow-string-view": lambda x: pa.array(x.astype(str)).cast(pa.string_view()),
    "arrow-dictionary": lambda x: pa.array(x.astype(str)).dictionary_encode(),
    "arrow-chunked": lambda x: pa.chunked_array(
        [pa.array(x[:100].astype(str)), pa.array(x[100:].astype(str))]
    ),
    "arrow-chunked-dictionary": lambda x: pa.chunked_array(
        [
            pa.array(x[:100].astype(str)).dictionary_encode(),
            pa.array(x[100:].astype(str)).dictionary_encode(),
        ]
    ),
}


def _frame(kind: str, users: np.ndarray, items: np.ndarray, values: Any, value: str) -> Any:
    make = KINDS[kind]
    cols = {"user": make(users), "item": make(items), value: values}
    if kind.startswith("polars"):
        return pl.DataFrame(cols)
    if kind.startswith("arrow"):
        return pa.table(cols)
    return pd.DataFrame(cols)


def _same(report: Any, expected: Any) -> None:
    assert report.mean == expected.mean
    assert [str(u) for u in report.users.tolist()] == [str(u) for u in expected.users.tolist()]
    for metric in METRICS:
        np.testing.assert_array_equal(report.values[metric], expected.values[metric])


@pytest.mark.parametrize("kind", list(KINDS))
def test_every_id_kind_gives_the_report_of_int64_ids(kind: str) -> None:
    users, items, scores, judged = _ids()
    grades = np.ones(int(judged.sum()), dtype=np.int64)
    expected = receval.evaluate(
        pd.DataFrame({"user": users[judged], "item": items[judged], "grade": grades}),
        pd.DataFrame({"user": users, "item": items, "score": scores}),
        METRICS,
    )
    qrels = _frame(kind, users[judged], items[judged], grades, "grade")
    run = _frame(kind, users, items, scores, "score")
    _same(receval.evaluate(qrels, run, METRICS), expected)


@pytest.mark.parametrize("kind", ["pandas-str", "pandas-categorical", "polars-string"])
def test_int_qrels_ids_match_the_same_ids_as_strings_in_the_run(kind: str) -> None:
    users, items, scores, judged = _ids(seed=1)
    grades = np.ones(int(judged.sum()), dtype=np.int64)
    qrels = pd.DataFrame({"user": users[judged], "item": items[judged], "grade": grades})
    expected = receval.evaluate(
        qrels, pd.DataFrame({"user": users, "item": items, "score": scores}), METRICS
    )
    run = _frame(kind, users, items, scores, "score")
    _same(receval.evaluate(qrels, run, METRICS), expected)


@pytest.mark.parametrize(
    "column",
    [
        pd.Series([1, None, 3], dtype="Int64"),
        pd.Series(["a", None, "c"], dtype="str"),
        pd.Series(pd.Categorical(["a", None, "c"])),
        pa.array(["a", None, "c"]).dictionary_encode(),
        pl.Series(["a", None, "c"]).cast(pl.Categorical),
    ],
    ids=["Int64", "str", "categorical", "arrow-dictionary", "polars-categorical"],
)
def test_missing_ids_of_every_kind_are_refused(column: Any) -> None:
    with pytest.raises(InputValidationError, match=r"users contains 1 missing value"):
        Run(column, np.array([1, 2, 3]), np.array([0.3, 0.2, 0.1]))


@pytest.mark.parametrize(
    "kind", ["pandas-str", "pandas-object", "pandas-categorical", "polars-categorical"]
)
def test_string_ids_build_no_python_object_per_row(kind: str) -> None:
    n = 200_000
    users = np.repeat(np.arange(n // 20), 20)
    items = np.tile(np.arange(20), n // 20) * 13
    frame = _frame(kind, users, items, np.linspace(0, 1, n), "score")
    Run.from_frame(frame)  # imports and caches outside the measurement
    tracemalloc.start()
    try:
        Run.from_frame(frame)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # a str object takes 50 bytes or more; the encoded run a few bytes per row
    # besides NumPy arrays, which tracemalloc counts too (scores, codes, ranks)
    assert peak < 32 * n

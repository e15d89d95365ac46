"""String ids read from Arrow stay an Arrow array in Qrels, Run and the report of
``evaluate``: looked up by the core where they lie, made NumPy (an object array of
str, as before) only when asked for, and never by ``evaluate``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval
from receval import Qrels, Run
from receval._kernels import compiled
from receval.data._lookup import lookup
from receval.data._strings import lookup_strings

# each kind: a list of str -> a column of that kind whose ids are read from Arrow strings
KINDS = {
    "arrow-string": pa.array,
    "arrow-large-string": lambda x: pa.array(x, pa.large_string()),
    "arrow-string-view": lambda x: pa.array(x).cast(pa.string_view()),
    "arrow-chunked": lambda x: pa.chunked_array([pa.array(x[:7]), pa.array(x[7:])]),
    "arrow-dictionary": lambda x: pa.array(x).dictionary_encode(),
    "pandas-str": lambda x: pd.Series(x, dtype="str"),
    "pandas-categorical": lambda x: pd.Series(pd.Categorical(x)),
    "polars-string": pl.Series,
    "polars-categorical": lambda x: pl.Series(x).cast(pl.Categorical),
}


def _frame(kind: str, cols: dict[str, Any]) -> Any:
    if kind.startswith("polars"):
        return pl.DataFrame(cols)
    if kind.startswith("pandas"):
        return pd.DataFrame(cols)
    return pa.table(cols)


def _inputs(kind: str) -> tuple[Any, Any, list[str], list[str]]:
    make = KINDS[kind]
    users = [f"u{u}" for u in range(6) for _ in range(5)]
    items = [f"item-{(7 * i) % 11}" + "x" * (i % 3) * 6 for i in range(30)]
    qrels = _frame(kind, {"user": make(users[::2]), "item": make(items[::2]), "grade": [1] * 15})
    run = _frame(kind, {"user": make(users), "item": make(items), "score": np.linspace(1, 0, 30)})
    return qrels, run, users, items


def test_every_kind_keeps_its_string_ids_as_arrow_through_evaluate() -> None:
    for kind in KINDS:
        qrels, run, users, items = _inputs(kind)
        q, r = Qrels.from_frame(qrels), Run.from_frame(run)
        report = receval.evaluate(q, r, ["ndcg@10", "recall@5"])
        for container in (q, r):
            for ids in ("users", "items"):
                assert isinstance(container.encoded_ids(ids), pa.Array), (kind, ids)
        # asked for, the ids are the object arrays of str they always were
        assert r.user_ids.dtype == object and r.user_ids.tolist() == list(dict.fromkeys(users))
        assert sorted(r.item_ids.tolist()) == sorted(set(items)), kind
        assert isinstance(r.encoded_ids("users"), np.ndarray)  # kept once made
        # the report's users too: Arrow until read, then the object array, made once
        assert isinstance(report._user_ids, pa.Array), kind
        assert "users" not in vars(report)
        assert report.users is report.users
        expected = receval.evaluate(
            Qrels(np.array(users[::2], dtype=object), np.array(items[::2], dtype=object)),
            Run(
                np.array(users, dtype=object), np.array(items, dtype=object), np.linspace(1, 0, 30)
            ),
            ["ndcg@10", "recall@5"],
        )
        assert report.mean == expected.mean, kind
        assert report.users.tolist() == expected.users.tolist(), kind


def test_arrow_string_ids_match_the_same_ids_given_as_integers() -> None:
    # "7" read from Arrow and 7 given as an int are the same id (as in TREC files)
    q = Qrels(np.array([1, 1, 2]), np.array([7, 8, 9]))
    r = Run.from_frame(
        pa.table({"user": ["1", "1", "2"], "item": ["8", "7", "5"], "score": [3.0, 2, 1]})
    )
    assert q.positions_in(r, "users").tolist() == [0, 1]
    assert q.positions_in(r, "items").tolist() == [1, 0, -1]
    as_ints = Run(np.array([1, 1, 2]), np.array([8, 7, 5]), np.array([3.0, 2, 1]))
    assert receval.evaluate(q, r, ["recall@2"]).mean == {"recall@2": 0.5}
    assert receval.evaluate(q, as_ints, ["recall@2"]).mean == {"recall@2": 0.5}


ids = st.text(st.characters(codec="utf-8"), max_size=20)


@settings(max_examples=200, deadline=None)
@given(
    dictionary=st.lists(ids, unique=True, max_size=40),
    values=st.lists(ids, max_size=60),
    large=st.tuples(st.booleans(), st.booleans()),
    pad=st.integers(0, 3),
)
def test_lookup_of_arrow_strings_is_that_of_a_dict(
    dictionary: list[str], values: list[str], large: tuple[bool, bool], pad: int
) -> None:
    # some values drawn from the dictionary; arrays sliced, of either offset width
    values = values + dictionary[::2]

    def arrow(x: list[str], wide: bool) -> Any:
        return pa.array(["pad"] * pad + x, pa.large_string() if wide else pa.string())[pad:]

    found = lookup_strings(arrow(values, large[0]), arrow(dictionary, large[1]))
    position = {k: i for i, k in enumerate(dictionary)}
    want = [position.get(v, -1) for v in values]
    assert found is not None and found.dtype == np.int32
    assert found.tolist() == want
    as_objects = np.array(values, dtype=object), np.array(dictionary, dtype=object)
    assert lookup(*as_objects).tolist() == want
    assert lookup_strings(*as_objects) is not None  # the core's, not another path's


def test_lookup_of_a_dictionary_longer_than_the_rows_is_refused_by_the_core() -> None:
    offsets, data = [np.array([0, 1], np.int64)], [np.frombuffer(b"a", np.uint8)]
    assert compiled().lookup_bytes(offsets, data, 1).tolist() == []
    with pytest.raises(ValueError, match=r"n_dict \(2\) is more than the rows"):
        compiled().lookup_bytes(offsets, data, 2)


def test_ties_broken_by_id_order_the_arrow_ids_as_python_orders_str() -> None:
    # tied scores ordered by the ids' strings (trec_eval's rule): ids kept as Arrow
    # are sorted by Arrow, in the order Python gives the same ids as str
    items = ["z", "Z", "é", "e", "€", "𝄞", "ａ", "a", "ab", "", "a\x00"]
    users = ["u"] * len(items) + ["v"] * len(items)
    ids = items + items[::-1]
    scores = [1.0] * len(ids)  # every list one tie
    judged = ["é", "𝄞", "", "Z"]
    qrels = {"user": ["u"] * 4 + ["v"] * 4, "item": judged * 2, "grade": [1, 2, 3, 1] * 2}
    metrics = ["ndcg@3", "map", "P@1", "recall@5"]
    for ties in ("trec", "id_ascending", "id_descending"):
        for kind in ("arrow-string", "polars-string", "pandas-str"):
            make = KINDS[kind]
            run = _frame(kind, {"user": make(users), "item": make(ids), "score": scores})
            q = _frame(kind, {"user": make(qrels["user"]), "item": make(qrels["item"]),
                              "grade": qrels["grade"]})  # fmt: skip
            got = receval.evaluate(q, run, metrics, ties=ties)
            expected = receval.evaluate(
                Qrels(
                    np.array(qrels["user"], dtype=object),
                    np.array(judged * 2, dtype=object),
                    np.array(qrels["grade"]),
                ),
                Run(np.array(users, dtype=object), np.array(ids, dtype=object), np.array(scores)),
                metrics,
                ties=ties,
            )
            assert got.mean == expected.mean, (ties, kind)
            np.testing.assert_array_equal(got.values["ndcg@3"], expected.values["ndcg@3"])


def test_containers_of_arrow_ids_pickle_with_their_ids_kept() -> None:
    # a Qrels or Run sent to another process (Spark, multiprocessing) keeps its
    # Arrow ids, and gives the report it gave before
    import pickle

    qrels, run, _, _ = _inputs("arrow-string")
    q, r = Qrels.from_frame(qrels), Run.from_frame(run)
    q2, r2 = pickle.loads(pickle.dumps(q)), pickle.loads(pickle.dumps(r))
    assert isinstance(r2.encoded_ids("items"), pa.Array)
    metrics = ["ndcg@10", "recall@5"]
    assert receval.evaluate(q2, r2, metrics).mean == receval.evaluate(q, r, metrics).mean
    assert r2.item_ids.tolist() == r.item_ids.tolist()

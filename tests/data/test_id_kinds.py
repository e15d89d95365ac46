"""Ids of every kind (pandas, polars and Arrow strings, categoricals, nullable
integers) give the report of int64 ids, and are encoded without a Python object
per row."""

from __future__ import annotations

import itertools
import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval
from receval import InputValidationError, Run
from receval._kernels import compiled
from receval.data import _int_ids
from receval.data._encode import factorize
from receval.data._lookup import lookup
from receval.data._string_buffers import large_strings
from tests._fresh import fresh

pl = pytest.importorskip("polars")

METRICS = ["ndcg@10", "recall@5", "mrr"]


def _ids(n_users: int = 40, k: int = 12, seed: int = 0) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    users = np.repeat(rng.permutation(n_users) * 3 + 5, k)
    items = (rng.integers(0, 500, size=n_users)[:, None] + np.arange(k) * 7).ravel()
    scores = rng.random(n_users * k)
    judged = rng.random(n_users * k) < 0.3
    return users, items, scores, judged


def _core_calls(monkeypatch: Any, name: str) -> list[tuple[Any, ...]]:
    """The arguments of every call of the core's ``name`` from now on (each call made)."""
    calls: list[tuple[Any, ...]] = []
    real = getattr(compiled(), name)

    def spy(*args: Any) -> Any:
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(compiled(), name, spy)
    return calls


def _pd(values: np.ndarray, dtype: Any) -> pd.Series:
    return pd.Series(values.astype(str), dtype=dtype)


def _repeated_dictionary(values: np.ndarray) -> pa.DictionaryArray:
    """An Arrow dictionary array holding every value under two indices, used in turn."""
    uniques, codes = np.unique(values, return_inverse=True)
    dictionary = pa.array([*uniques.tolist(), *uniques.tolist()])
    indices = codes + len(uniques) * (np.arange(len(codes)) % 2)
    return pa.DictionaryArray.from_arrays(pa.array(indices.astype(np.int32)), dictionary)


def _view_chunks(strings: list[str]) -> Any:
    """``string_view`` chunks of ids, the first one sliced."""
    if not hasattr(pa, "string_view"):  # pyarrow 16 and later
        return pa.array(strings)
    head = pa.array(["pad", *strings[:77]]).cast(pa.string_view())[1:]
    return pa.chunked_array([head, pa.array(strings[77:]).cast(pa.string_view())])


def _polars_categorical_unused(values: np.ndarray) -> Any:
    """A polars Categorical column whose mapping holds categories no row uses."""
    unused = pl.Series([f"unused-{i}" for i in range(50)]).cast(pl.Categorical)
    column = pl.Series(values).cast(pl.Categorical)
    assert len(unused)
    return column


def _polars_chunks(values: np.ndarray) -> Any:
    """A polars String column of two chunks (as a frame read from two row groups)."""
    column = pl.concat([pl.Series(values[:100]), pl.Series(values[100:])], rechunk=False)
    assert column.n_chunks() == 2
    return column


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
    "arrow-dictionary-repeated": lambda x: _repeated_dictionary(x.astype(str)),
    "arrow-dictionary-repeated-int": lambda x: _repeated_dictionary(x),
    "arrow-chunked": lambda x: pa.chunked_array(
        [pa.array(x[:100].astype(str)), pa.array(x[100:].astype(str))]
    ),
    "polars-categorical-unused": lambda x: _polars_categorical_unused(x.astype(str)),
    "polars-enum-unused": lambda x: pl.Series(x.astype(str)).cast(
        pl.Enum(["zz", *sorted(set(x.astype(str).tolist())), "yy"])
    ),
    "arrow-string-view-chunked": lambda x: _view_chunks(x.astype(str).tolist()),
    "polars-string-chunked": lambda x: _polars_chunks(x.astype(str)),
    "arrow-chunked-dictionary-respelled": lambda x: pa.chunked_array(
        [
            pa.array(x[:100].astype(str)).dictionary_encode(),
            _repeated_dictionary(x[100:].astype(str)),
        ]
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


def _check_kind(kind: str, ids: tuple[np.ndarray, ...]) -> None:
    """The report of ``kind``'s ids is that of the same ids as int64."""
    users, items, scores, judged = ids
    grades = np.ones(int(judged.sum()), dtype=np.int64)
    expected = receval.evaluate(
        pd.DataFrame({"user": users[judged], "item": items[judged], "grade": grades}),
        pd.DataFrame({"user": users, "item": items, "score": scores}),
        METRICS,
    )
    qrels = _frame(kind, users[judged], items[judged], grades, "grade")
    run = _frame(kind, users, items, scores, "score")
    _same(receval.evaluate(qrels, run, METRICS), expected)


@pytest.mark.parametrize("kind", list(KINDS))
def test_every_id_kind_gives_the_report_of_int64_ids(kind: str) -> None:
    _check_kind(kind, _ids())


@pytest.mark.parametrize(
    "kind", [k for k in KINDS if "categorical" in k or "dictionary" in k or "enum" in k]
)
def test_long_categorical_columns_renumbered_in_place_give_the_report_of_int64_ids(
    kind: str, monkeypatch: Any
) -> None:
    # a long column's indices are renumbered in place by the core (over the
    # dictionary's range, unused categories dropped), its users read as int32 runs
    monkeypatch.setattr(_int_ids, "PARALLEL_MIN_ROWS", 10)
    calls = _core_calls(monkeypatch, "dense_codes_in_place")
    _check_kind(kind, _ids(n_users=60, k=15, seed=3))
    assert calls and all(args[0].dtype == np.int32 for args in calls)


@pytest.mark.parametrize(
    "kind",
    [
        "pandas-str", "pandas-categorical", "polars-string", "polars-categorical", "polars-enum",
        "arrow-large-string", "arrow-string-view", "arrow-dictionary-repeated",
        "arrow-string-view-chunked",
    ],
)  # fmt: skip
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
        pa.DictionaryArray.from_arrays(pa.array([0, 1, 2]), pa.array(["a", None, "c", None])),
        pl.Series(["a", None, "c"]).cast(pl.Categorical),
        pl.Series(["a", None, "c"], dtype=pl.Enum(["c", "a"])),
        pl.Series(["a", None, "c"]),
        pa.array(["a", None, "c" * 20], pa.large_string()),
        pa.chunked_array([pa.array(["a"]), pa.array([None, "c"], pa.string())]),
    ],
    ids=[
        "Int64", "str", "categorical", "arrow-dictionary", "arrow-null-category",
        "polars-categorical", "polars-enum",
        "polars-string", "arrow-large-string", "arrow-chunked",
    ],
)  # fmt: skip
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


def test_a_chunked_polars_string_column_is_read_chunk_by_chunk(monkeypatch: Any) -> None:
    # its chunks go to the core as they lie (a Series' to_arrow joins them: a copy)
    calls = _core_calls(monkeypatch, "factorize_views")
    _check_kind("polars-string-chunked", _ids())
    assert calls and all(len(args[0]) == 2 for args in calls)  # the views of two chunks


def _expected() -> tuple[Any, pd.DataFrame, pd.DataFrame]:
    users, items, scores, judged = _ids(seed=2)
    grades = np.ones(int(judged.sum()), dtype=np.int64)
    qrels = pd.DataFrame({"user": users[judged], "item": items[judged], "grade": grades})
    run = pd.DataFrame({"user": users, "item": items, "score": scores})
    return receval.evaluate(qrels, run, METRICS), qrels, run


def _named(frame: pd.DataFrame) -> pd.DataFrame:
    """String ids that are not numbers (as most real ids)."""
    return frame.assign(
        user="u-" + frame["user"].astype(str), item="doc-" + frame["item"].astype(str)
    )


@pytest.mark.parametrize("fmt", ["csv", "parquet", "trec"])
def test_files_with_string_ids_give_the_report_of_int64_ids(tmp_path: Any, fmt: str) -> None:
    expected, qrels, run = _expected()
    qrels, run = _named(qrels), _named(run)
    qpath, rpath = tmp_path / f"q.{fmt}", tmp_path / f"r.{fmt}"
    if fmt == "csv":
        qrels.to_csv(qpath, index=False)
        run.to_csv(rpath, index=False)
    elif fmt == "parquet":
        qrels.to_parquet(qpath)
        run.to_parquet(rpath)
    else:  # qrels "user 0 item grade", run "user Q0 item rank score tag"
        lines = [f"{u} 0 {i} {g}" for u, i, g in qrels.itertuples(index=False)]
        qpath.write_text("\n".join(lines) + "\n")
        rows = run.itertuples(index=False)
        lines = [f"{u} Q0 {i} {r} {s!r} tag" for r, (u, i, s) in enumerate(rows)]
        rpath.write_text("\n".join(lines) + "\n")
    report = receval.evaluate(receval.Qrels.from_file(qpath), Run.from_file(rpath), METRICS)
    assert report.mean == expected.mean
    assert [str(u) for u in report.users.tolist()] == [f"u-{u}" for u in expected.users.tolist()]


def _naive(strings: list[str]) -> tuple[list[int], list[str]]:
    codes: dict[str, int] = {}
    return [codes.setdefault(s, len(codes)) for s in strings], list(codes)


ID_TEXT = st.text(alphabet=st.sampled_from(["a", "7", "\0", "é", "字", " "]), max_size=20)


@settings(max_examples=60, deadline=None)
@given(
    pool=st.lists(ID_TEXT, min_size=1, max_size=8),
    picks=st.lists(st.tuples(st.integers(0, 7), st.integers(1, 4)), max_size=60),
    kind=st.sampled_from(["string", "large_string", "object", "sliced"]),
)
def test_string_codes_follow_first_appearance_in_runs_and_out_of_them(
    pool: list[str], picks: list[tuple[int, int]], kind: str
) -> None:
    # runs of equal ids (grouped), the same id again after other ids (interleaved),
    # empty ids, NUL bytes, non-ASCII, ids shorter and longer than 8 and 16 bytes
    strings = [pool[i % len(pool)] for i, n in picks for _ in range(n)]
    if kind == "object":
        column: Any = np.array(strings, dtype=object)
    elif kind == "sliced":
        column = pa.array(["pad", *strings], pa.large_string())[1:]
    else:
        column = pa.array(strings, getattr(pa, kind)())
    codes, uniques = factorize(column, "users", "test")
    want_codes, want_uniques = _naive(strings)
    assert codes.tolist() == want_codes
    assert uniques.tolist() == want_uniques


@settings(max_examples=40, deadline=None)
@given(
    pool=st.lists(ID_TEXT, min_size=1, max_size=8),
    seed=st.integers(0, 2**32 - 1),
    copies=st.sampled_from([0.0, 0.1, 0.6, 1.0]),
    n=st.sampled_from([3, 1000, 140_000]),
)
def test_object_ids_are_numbered_by_text_whether_their_objects_repeat_or_not(
    pool: list[str], seed: int, copies: float, n: int
) -> None:
    # rows that repeat objects are numbered by address first (in parallel parts past
    # 65,536 rows), then each distinct object is read: equal strings that are other
    # objects share a code, and the codes follow the first appearance of the text
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(pool), n).tolist()
    fresh = (rng.random(n) < copies).tolist()
    strings = ["".join(list(pool[i])) if f else pool[i] for i, f in zip(picks, fresh, strict=True)]
    codes, uniques = factorize(np.array(strings, dtype=object), "items", "test")
    want_codes, want_uniques = _naive(strings)
    assert codes.tolist() == want_codes
    assert uniques.tolist() == want_uniques


@pytest.mark.parametrize(
    ("last", "message"),
    [(None, "contains 1 missing value"), (7, r"Got types \['int', 'str'\]")],
)
def test_object_ids_repeated_then_of_another_type_are_refused(last: Any, message: str) -> None:
    # past the rows that tell whether objects repeat, one value that is no str
    column = np.array([*["u-1", "u-2"] * 40_000, last], dtype=object)
    with pytest.raises(InputValidationError, match=message):
        factorize(column, "users", "test")


@pytest.mark.parametrize("width", [4, 12, 24])
def test_long_string_columns_encoded_in_parts_number_ids_in_order_of_first_appearance(
    width: int,
) -> None:
    # past 65,536 rows the core cuts a column into parts encoded in parallel: ids
    # first seen in a later part, ids of every part and runs across a part's boundary
    # are numbered as one pass would (the parts' count is the caller's choice)
    from receval._kernels import compiled

    rng = np.random.default_rng(width)
    n = 70_000 + width
    numbers = rng.integers(0, 50 + np.arange(n) // 20)  # the ids widen along the column
    strings = [f"{x:0{width}d}" for x in np.repeat(numbers, rng.integers(1, 4, n))[:n].tolist()]
    want_codes, want_uniques = _naive(strings)
    column = pa.array(strings, pa.large_string())
    codes, uniques = factorize(column, "items", "test")
    assert codes.tolist() == want_codes
    assert uniques.tolist() == want_uniques
    offsets = np.frombuffer(column.buffers()[1], dtype=np.int64)
    data = np.frombuffer(column.buffers()[2], dtype=np.uint8)
    for parts in (1, 2, 3, 8):
        codes, first, held, text = compiled().factorize_bytes([offsets], [data], parts)
        assert codes.tolist() == want_codes
        assert [strings[i] for i in first.tolist()] == want_uniques
        assert large_strings(held, text).to_pylist() == want_uniques


@pytest.mark.parametrize("n", [5, 200_000])
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_the_core_refuses_offsets_that_descend_or_pass_the_data(n: int, dtype: Any) -> None:
    # checked in one pass (in parallel pieces for a long chunk) with the rows' width:
    # a descent at a piece's first row, a negative offset, an end past the data
    from receval._kernels import compiled

    core = compiled()
    good = np.arange(n + 1, dtype=dtype) * 3
    data = np.zeros(3 * n, dtype=np.uint8)
    assert len(core.factorize_bytes([good], [data], 2)[0]) == n
    piece = min(n, 1 << 16)  # the first row of the second piece of a long chunk
    bad = [(1, good[0] - 1), (piece, good[piece - 1] - 1), (0, -1), (n, 3 * n + 1)]
    for row, value in bad:
        offsets = good.copy()
        offsets[row] = value
        calls = [
            (core.factorize_bytes, ([offsets], [data], 2)),
            (core.factorize_byte_runs, ([offsets], [data], 2)),
            (core.lookup_bytes, ([offsets], [data], 1)),
        ]
        if dtype == np.int32:
            calls.append((core.IdCodes().add, (offsets, data)))
        for call, args in calls:
            with pytest.raises(ValueError, match="offsets must ascend from 0 or more"):
                call(*args)


def test_ids_given_a_block_at_a_time_take_codes_in_order_of_first_appearance() -> None:
    # a CSV file's id column, coded block by block (``IdCodes``): rows equal to the
    # row before them in runs that cross the core's blocks of 64 rows and the calls,
    # ids of every slot kind (at most 11, 12 to 15, 16 and more bytes; the empty id),
    # runs of a long id, and rows equal in their first 15 bytes only
    from receval._kernels import compiled

    rng = np.random.default_rng(7)
    kinds = ["", "a", "doc-17", "id-0123456789", "abcdefghijklmno", "x" * 16, "x" * 15 + "y"]
    pool = kinds + [
        f"{p}{i}" for p in ("u-", "item-00000000", "a-long-id-prefix-") for i in range(60)
    ]
    strings = []
    while len(strings) < 5000:
        strings += [pool[int(rng.integers(len(pool)))]] * int(rng.integers(1, 90))
    want_codes, want_uniques = _naive(strings)
    for cut in ([0, len(strings)], [0, 1, 64, 65, 200, 1000, 1001, len(strings)]):
        codes = compiled().IdCodes()
        got = []
        for a, b in itertools.pairwise(cut):
            block = pa.array(strings[a:b], pa.string())
            offsets = np.frombuffer(block.buffers()[1], dtype=np.int32)[: len(block) + 1]
            data = np.frombuffer(block.buffers()[2] or b"", dtype=np.uint8)
            got += codes.add(offsets, data).tolist()
        assert got == want_codes
        assert large_strings(*codes.distinct()).to_pylist() == want_uniques


VIEWS = ["string_view"] if hasattr(pa, "string_view") else []  # pyarrow 16 and later


@pytest.mark.parametrize("kind", ["string", "large_string", "binary", *VIEWS])
def test_chunked_string_columns_are_encoded_chunk_by_chunk_as_one_column(kind: str) -> None:
    # the chunks of a column (a Parquet file's row groups) are encoded where they lie:
    # empty chunks, sliced chunks, ids first seen in a later chunk, a run across chunks,
    # and a chunk long enough to be cut into parts
    rng = np.random.default_rng(1)
    strings = [f"id-{x}" for x in rng.integers(0, 3000, 80_000).tolist()]
    strings[9:13] = ["run"] * 4
    cuts = [0, 10, 10, 11, 5000, 80_000]
    chunks = [pa.array(strings[a:b], getattr(pa, kind)()) for a, b in itertools.pairwise(cuts)]
    chunks[3] = pa.array(["pad", *strings[cuts[3] : cuts[4]]], getattr(pa, kind)())[1:]
    column = pa.chunked_array(chunks, getattr(pa, kind)())
    codes, uniques = factorize(column, "items", "test")
    want_codes, want_uniques = _naive(strings)
    assert codes.tolist() == want_codes
    got = [u.decode() if isinstance(u, bytes) else u for u in uniques.tolist()]
    assert got == want_uniques
    empty = factorize(pa.chunked_array([], getattr(pa, kind)()), "items", "test")
    assert len(empty[0]) == 0 and len(empty[1]) == 0


@pytest.mark.skipif(not hasattr(pa, "string_view"), reason="string_view: pyarrow 16 and later")
@pytest.mark.parametrize("longer", [None, 12, 13, 40])
@pytest.mark.parametrize("at", [0, 69_999, 140_001])
def test_string_view_ids_of_any_length_anywhere_are_encoded_as_one_pass_would(
    longer: int | None, at: int
) -> None:
    # ids of at most 11 bytes are read from their views alone; one longer id (held
    # in its view, or in a buffer) anywhere in a long chunked column, in a run or
    # not, sends the column the checked way, with the same codes and runs
    from receval.data._strings import string_runs

    users = [f"u-{i // 7}" for i in range(140_002)]
    items = [f"d-{(i * 7919) % 4001}" for i in range(140_002)]
    if longer is not None:
        users[at : at + 3] = ["U" * longer] * 3
        items[at] = "D" * longer
    chunked = [
        pa.chunked_array([pa.array(x[:5]), pa.array(x[5:])]).cast(pa.string_view())
        for x in (users, items)
    ]
    codes, uniques = factorize(chunked[1], "items", "test")
    assert (codes.tolist(), uniques.tolist()) == _naive(items)
    runs = string_runs(chunked[0])
    assert runs is not None
    bounds, run_codes, ids = runs
    heads = [i for i in range(len(users)) if i == 0 or users[i] != users[i - 1]]
    assert bounds.tolist() == [*heads, len(users)]
    assert [ids[c].as_py() for c in run_codes.tolist()] == [users[i] for i in heads]
    assert len(set(ids.to_pylist())) == len(ids)


def test_long_ids_are_encoded_like_short_ones() -> None:
    long = ["x" * 1000 + str(i % 7) for i in range(50)]
    for column in (pa.array(long), np.array(long, dtype=object)):
        codes, uniques = factorize(column, "users", "test")
        assert codes.tolist() == _naive(long)[0]
        assert uniques.tolist() == _naive(long)[1]


@pytest.mark.parametrize(
    ("values", "message"),
    [
        (["a", None, "b"], r"users contains 1 missing value"),
        (["a", float("nan"), "b"], r"users contains 1 missing value"),
        (["a", 3, "b"], r"users must hold ids of one type .* Got types \['int', 'str'\]"),
        (["a", b"b"], r"users must hold ids of one type .* Got types \['bytes', 'str'\]"),
    ],
    ids=["None", "NaN", "int-and-str", "bytes-and-str"],
)
def test_object_columns_of_other_values_than_str_are_refused(
    values: list[Any], message: str
) -> None:
    column = pd.Series(values, dtype=object)
    with pytest.raises(InputValidationError, match=message):
        Run(column, np.arange(len(values)), np.linspace(0, 1, len(values)))


@pytest.mark.parametrize("box", [list, tuple])
def test_a_mapping_of_columns_with_ids_of_two_types_is_refused(box: Any) -> None:
    # NumPy spelled the list [1, "b"] as ["1", "b"]: the ids of a dict of lists were
    # read as strings, where the same pandas object column is refused
    events = {"user": box([1, "b"]), "time": ["2024-01-01", "2024-01-02"]}
    with pytest.raises(InputValidationError, match=r"^retention: user must hold ids of one type"):
        receval.retention(events)
    with pytest.raises(InputValidationError, match=r"^retention: user must hold ids of one type"):
        receval.retention(pd.DataFrame({**events, "user": pd.array([1, "b"], dtype=object)}))
    strings = receval.retention({**events, "user": box(["1", "b"])})  # strings: as given
    assert strings.n_users == 2


def test_ids_that_cannot_match_across_types_are_refused_with_both_types_and_the_fix() -> None:
    # int ids in the qrels, zero-padded numeric strings in the run: no id matches
    expected, qrels, run = _expected()
    padded = run.assign(user=run["user"].map("{:05d}".format))
    with pytest.raises(InputValidationError) as info:
        receval.evaluate(qrels, padded, METRICS)
    text = str(info.value)
    assert "the qrels' are int64, the run's str" in text
    assert "7 matches '7' but not '07'" in text
    assert "cast one side" in text
    # the same ids as plain numeric strings match the int ids
    _same(receval.evaluate(qrels, run.assign(user=run["user"].astype(str)), METRICS), expected)


def test_ids_of_which_some_match_across_types_warn_and_are_scored() -> None:
    expected, qrels, run = _expected()
    users = run["user"].astype(str)
    first = users.unique()[:38]  # all users but two zero-padded: no longer the qrels' ids
    mixed = run.assign(user=users.where(~users.isin(first), "0" + users))
    with pytest.warns(receval.UnmatchedIdsWarning, match=r"the qrels' are int64, the run's str"):
        report = receval.evaluate(qrels, mixed, METRICS)
    assert report.mean != expected.mean  # scored: the two users that match count


@pytest.mark.skipif(not VIEWS, reason="string_view needs pyarrow 16")
def test_string_view_ids_are_hashed_from_their_views_never_cast(monkeypatch: Any) -> None:
    # short ids held in the view, long ones in two data buffers, a sliced chunk, nulls
    import pyarrow.compute as pc

    strings = [f"{'long-' * (i % 4)}id-{i % 37}" for i in range(3000)]
    column = pa.chunked_array(
        [
            pa.array(["pad", *strings[:1000]], pa.string_view())[1:],
            pa.array(strings[1000:], pa.string_view()),
        ]
    )
    cast = pc.cast

    def no_cast_of_rows(arr: Any, *args: Any, **kwargs: Any) -> Any:
        assert len(arr) <= 37, "the ids were cast row by row"
        return cast(arr, *args, **kwargs)

    monkeypatch.setattr(pc, "cast", no_cast_of_rows)
    codes, uniques = factorize(column, "items", "test")
    want_codes, want_uniques = _naive(strings)
    assert codes.tolist() == want_codes
    assert uniques.tolist() == want_uniques
    with pytest.raises(InputValidationError, match=r"items contains 1 missing value"):
        factorize(pa.array(["a", None, "b" * 20], pa.string_view()), "items", "test")


@pytest.mark.parametrize("kind", ["polars-string", "polars-categorical", "polars-enum-unused"])
def test_polars_ids_are_read_in_polars_layout(kind: str, monkeypatch: Any) -> None:
    # strings as polars' own views (no conversion to large_string); categoricals as
    # their codes and categories, never their values
    items = _ids(seed=3)[1]
    column = KINDS[kind](items)
    converted: list[Any] = []
    to_arrow = pl.Series.to_arrow

    def recorded(self: Any, *args: Any, **kwargs: Any) -> Any:
        converted.append((self.dtype, len(self), kwargs))
        return to_arrow(self, *args, **kwargs)

    monkeypatch.setattr(pl.Series, "to_arrow", recorded)
    codes, uniques = factorize(column, "items", "test")
    want_codes, want_uniques = _naive(items.astype(str).tolist())
    assert codes.tolist() == want_codes
    assert uniques.tolist() == want_uniques
    for dtype, rows, kwargs in converted:
        assert not isinstance(dtype, (pl.Categorical, pl.Enum)), "values built per row"
        # the rows' strings as they lie (the categories may be converted)
        assert dtype != pl.String or "compat_level" in kwargs or rows != len(column)


@pytest.mark.parametrize("n", [500, 3 * 2**16 + 7])  # the core's parallel passes from 2**16 rows
def test_polars_categorical_codes_number_the_categories_its_rows_use(n: int) -> None:
    # a Categorical's mapping holds categories of the whole process: the codes some
    # row holds are numbered anew (in any order where it is free, in order of first
    # appearance where it is not), each category read once
    pl.Series([f"other-{i}" for i in range(300)]).cast(pl.Categorical)
    # codes given in another order than the rows' first appearance
    pl.Series([f"doc-{i}" for i in range(399, -1, -1)]).cast(pl.Categorical)
    rng = np.random.default_rng(n)
    strings = [f"doc-{i}" for i in rng.integers(0, 400, n)]
    column = pl.Series(strings).cast(pl.Categorical)
    assert int(column.to_physical().max()) >= 300  # codes past those of other columns
    want_codes, want_uniques = _naive(strings)
    codes, uniques = factorize(column, "items", "test")
    assert codes.tolist() == want_codes and uniques.tolist() == want_uniques
    codes, uniques = factorize(column, "items", "test", any_order=True)
    assert sorted(set(codes.tolist())) == list(range(len(want_uniques)))
    assert uniques[codes].tolist() == strings
    # the renumbered codes are receval's own array, which a run ranks in place
    assert codes.flags.writeable and codes.flags.c_contiguous


def test_a_run_ranks_the_renumbered_codes_of_polars_categorical_items_in_place(
    monkeypatch: Any,
) -> None:
    # no second array of item codes: the core ranks the codes it numbered anew
    calls = _core_calls(monkeypatch, "rank_rows")
    users, items, scores, _ = _ids(seed=4)
    frame = pl.DataFrame({"user": users, "item": items.astype(str), "score": scores})
    run = receval.Run.from_frame(frame.with_columns(pl.col("item").cast(pl.Categorical)))
    assert [args[5] for args in calls] == [True]  # own_items
    want = receval.Run.from_frame(frame)
    assert run.to_dict() == want.to_dict()


def _naive_groups(strings: list[str]) -> tuple[list[int], list[int], list[str]]:
    """Offsets by user, the input row of each position and the ids, by a dict."""
    codes, ids = _naive(strings)
    rows = sorted(range(len(codes)), key=lambda i: codes[i])  # stable: rows in input order
    counts = np.bincount(codes, minlength=len(ids)) if codes else np.zeros(0, int)
    return [0, *np.cumsum(counts).tolist()], rows, ids


@settings(max_examples=80, deadline=None)
@given(
    pool=st.lists(ID_TEXT, min_size=1, max_size=8),
    picks=st.lists(st.tuples(st.integers(0, 7), st.integers(1, 4)), min_size=1, max_size=60),
    kind=st.sampled_from(
        [
            "string",
            "large_string",
            "sliced",
            "chunked",
            *VIEWS,
            "dictionary",
            "dictionary-repeated",
            "dictionary-chunked",
            "dictionary-chunked-repeated",
            "object",
            "object-copies",
        ]
    ),
)
def test_string_users_are_grouped_by_their_runs_as_by_their_codes(
    pool: list[str], picks: list[tuple[int, int]], kind: str
) -> None:
    # grouped columns (every id in one run) and interleaved ones (an id in two runs),
    # runs across a chunk boundary, empty ids, NUL bytes, long ids; object columns
    # of one object a distinct id (neighbours compared by address) and of a copy a
    # row (compared by text)
    from receval.data._encode import group_users

    strings = [pool[i % len(pool)] for i, n in picks for _ in range(n)]
    if kind == "object":
        column: Any = np.array(strings, dtype=object)
    elif kind == "object-copies":
        column = np.array(["".join(list(x)) for x in strings], dtype=object)
    elif kind == "sliced":
        column = pa.array(["pad", *strings], pa.large_string())[1:]
    elif kind == "chunked":
        cut = len(strings) // 2
        halves = [strings[:cut], strings[cut:]]
        column = pa.chunked_array([pa.array(h, pa.string()) for h in halves], pa.string())
    elif kind == "dictionary":
        column = pa.array(strings).dictionary_encode()
    elif kind == "dictionary-repeated":  # each id under two indices, used in turn
        column = _repeated_dictionary(np.array(strings, dtype=object))
    elif kind.startswith("dictionary-chunked"):  # each chunk its own dictionary (a
        # Parquet column's row groups), runs across chunks' ends, empty chunks
        thirds = [strings[: len(strings) // 3], [], strings[len(strings) // 3 :]]
        repeated = kind.endswith("repeated")
        column = pa.chunked_array(
            [
                _repeated_dictionary(np.array(t, dtype=object))
                if repeated and t
                else pa.array(t, pa.string()).dictionary_encode()
                for t in thirds
            ]
        )
    else:
        column = pa.array(strings, getattr(pa, kind)())
    offsets, rows, ids = group_users(column, "test")
    want_offsets, want_rows, want_ids = _naive_groups(strings)
    assert offsets.tolist() == want_offsets
    assert ids.tolist() == want_ids
    assert (rows.tolist() or list(range(len(strings)))) == want_rows


def test_users_of_dictionary_chunks_are_grouped_by_their_runs_heads_alone(monkeypatch: Any) -> None:
    # a Parquet column read as dictionaries (one a row group, each its own): the runs
    # of each chunk's indices are found, and only their heads are joined into one
    # dictionary and read, never a row; a user's rows across a chunk's end are one run
    from receval.data import _encode

    users = [f"u-{u}" for u in np.repeat(np.arange(300) * 7 % 307, 50).tolist()]
    cuts = [0, 1025, 7010, 7050, 15_000]  # two runs cut, a chunk within a run
    column = pa.chunked_array(
        [pa.array(users[a:b]).dictionary_encode() for a, b in itertools.pairwise(cuts)]
    )
    joined: list[int] = []
    join = _encode._join_dictionary_chunks

    def counted(col: Any) -> Any:
        joined.append(len(col))
        return join(col)

    monkeypatch.setattr(_encode, "_join_dictionary_chunks", counted)
    monkeypatch.setattr(_encode, "group_rows", None)  # every user in one run
    offsets, rows, ids = _encode.group_users(column, "test")
    assert offsets.tolist() == list(range(0, 15_001, 50))
    assert len(rows) == 0
    assert ids.tolist() == list(dict.fromkeys(users))
    assert joined == [300 + 2]  # the heads: a run a user, two cut by a chunk's end


@pytest.mark.parametrize("chunks", [[], [[]], [["a", "a"], []], [[], ["b"], ["b", "a"], []]])
def test_users_of_dictionary_chunks_without_rows_or_with_empty_chunks(
    chunks: list[list[str]],
) -> None:
    # a column of no chunk, of empty chunks only, and empty chunks among others
    from receval.data._encode import group_users

    kind = pa.dictionary(pa.int32(), pa.string())
    column = pa.chunked_array([pa.array(c, pa.string()).dictionary_encode() for c in chunks], kind)
    offsets, rows, ids = group_users(column, "test")
    want_offsets, want_rows, want_ids = _naive_groups([x for c in chunks for x in c])
    assert offsets.tolist() == want_offsets
    assert ids.tolist() == want_ids
    assert (rows.tolist() or want_rows) == want_rows


@pytest.mark.parametrize("kind", ["string", "large_string", "sliced", "chunked", "object"])
def test_long_runs_of_ids_of_one_length_are_told_apart(kind: str) -> None:
    # runs longer than a block of 16 rows (passed by one check of the block's lengths
    # and bytes): neighbouring ids of one length that differ in one byte anywhere,
    # ids that repeat a shorter pattern ("ab", "abab"), empty ids, non-ASCII ids,
    # an id back after others; runs begin anywhere in a block
    from receval.data._encode import group_users

    base = "doc-00000"
    ids = [base[:p] + "x" + base[p + 1 :] for p in range(len(base))]
    ids += [base, "", "ab", "abab", "ba", "é", "e\u0301", base]
    lengths = [15, 16, 17, 31, 33, 1, 40]
    strings = [x for i, x in enumerate(ids) for _ in range(lengths[i % len(lengths)])]
    if kind == "object":  # a copy a row: compared by text
        column: Any = np.array(["".join(list(x)) for x in strings], dtype=object)
    elif kind == "sliced":
        column = pa.array(["pad", *strings], pa.large_string())[1:]
    elif kind == "chunked":
        cut = 37  # inside a run
        halves = [strings[:cut], strings[cut:]]
        column = pa.chunked_array([pa.array(h, pa.string()) for h in halves], pa.string())
    else:
        column = pa.array(strings, getattr(pa, kind)())
    offsets, rows, got = group_users(column, "test")
    want_offsets, want_rows, want_ids = _naive_groups(strings)
    assert offsets.tolist() == want_offsets
    assert got.tolist() == want_ids
    assert (rows.tolist() or list(range(len(strings)))) == want_rows


@pytest.mark.parametrize("kind", ["string", "large_string", *VIEWS, "object", "object-copies"])
def test_users_grouped_in_runs_hash_one_row_a_run(kind: str, monkeypatch: Any) -> None:
    # a run's rows of one user: the rows are compared with their neighbours and only
    # the first of each run is hashed (no code per row, no grouping pass)
    from receval._kernels import compiled
    from receval.data import _encode

    users = [f"user-{u}" for u in np.repeat(np.arange(300) * 7 % 307, 50).tolist()]
    if kind == "object":  # one object a user (pandas' CSV reader)
        column: Any = np.array(users, dtype=object)
    elif kind == "object-copies":  # a copy a row (astype(object))
        column = np.array(["".join(list(u)) for u in users], dtype=object)
    else:
        column = pa.array(users, getattr(pa, kind)())
    monkeypatch.setattr(_encode, "factorize", None)  # the per-row path is not taken
    monkeypatch.setattr(_encode, "group_rows", None)
    offsets, rows, ids = _encode.group_users(column, "test")
    assert offsets.tolist() == list(range(0, 15_001, 50))
    assert len(rows) == 0
    assert ids.tolist() == list(dict.fromkeys(users))
    if kind.startswith("object"):
        starts, codes, offsets, data = compiled().factorize_str_runs(column, 2)
    else:
        encode = "factorize_view_runs" if kind == "string_view" else "factorize_byte_runs"
        buffers = _encode.string_buffers(column, binary=False)
        assert buffers is not None
        starts, codes, offsets, data = getattr(compiled(), encode)(buffers[1], buffers[2], 2)
    assert large_strings(offsets, data).to_pylist() == list(dict.fromkeys(users))
    assert starts.tolist() == list(range(0, 15_000, 50))
    assert codes.tolist() == list(range(300))


@pytest.mark.parametrize(
    ("users", "message"),
    [
        (["u-1", "u-1", None, "u-2"], "contains 1 missing value"),
        (["u-1", "u-1", 7, "u-2"], r"Got types \['int', 'str'\]"),
        (["u-1", "u-1", b"u-2"], r"Got types \['bytes', 'str'\]"),
    ],
)
def test_object_users_of_other_values_than_str_are_refused(users: list[Any], message: str) -> None:
    # the runs of an object column stop at the first value that is no str; the
    # column's refusal then names what it holds
    from receval.data._encode import group_users

    with pytest.raises(InputValidationError, match=message):
        group_users(np.array(users, dtype=object), "test")


@pytest.mark.parametrize(
    "kind", ["pandas-categorical", "polars-categorical", "polars-enum", "arrow-dictionary"]
)
def test_categorical_users_grouped_in_runs_read_one_index_a_run(
    kind: str, monkeypatch: Any
) -> None:
    # the indices' runs of equal neighbours are found as integer ids' are: only the
    # index of each run is looked up in the categories, and no row is grouped
    from receval.data import _encode

    users = np.repeat(np.arange(300) * 7 % 307, 50)
    column = _encode._column(KINDS[kind](users), "users", "test")
    looked_up: list[int] = []
    dictionary_codes = _encode._factorize_dictionary

    def counted(arr: Any, *args: Any, **kwargs: Any) -> Any:
        looked_up.append(len(arr))
        return dictionary_codes(arr, *args, **kwargs)

    monkeypatch.setattr(_encode, "_factorize_dictionary", counted)
    monkeypatch.setattr(_encode, "group_rows", None)
    offsets, rows, ids = _encode.group_users(column, "test")
    assert offsets.tolist() == list(range(0, 15_001, 50))
    assert len(rows) == 0
    assert ids.tolist() == [str(u) for u in dict.fromkeys(users.tolist())]
    assert looked_up == [300]


def test_polars_categorical_users_number_anew_only_the_first_row_of_each_run(
    monkeypatch: Any,
) -> None:
    # the runs are found on polars' own codes; the codes of their first rows alone
    # are numbered anew (not every row's, as for items)
    import polars as pl

    calls = _core_calls(monkeypatch, "used_categories")
    # codes past those of other columns, in a range wider than 4 codes a run but not
    # than 4 a row (which bounds the codes numbered anew)
    pl.Series([f"other-{i}" for i in range(1500)]).cast(pl.Categorical)
    users, items, scores, _ = _ids(k=200, seed=5)  # 8000 rows: codes below 33,024 numbered
    users[:200], items[:200] = users[-1], items[:200] + 10**6  # a user in two runs
    names = np.char.add("heads-", users.astype(str))  # new to the mapping: codes past 1500
    frame = pl.DataFrame({"user": names, "item": items, "score": scores})
    categorical = frame.with_columns(pl.col("user").cast(pl.Categorical))
    n_runs = int(np.count_nonzero(users[1:] != users[:-1])) + 1
    top = int(categorical["user"].to_physical().max())
    assert 4 * n_runs + 1024 < top < 4 * len(users) + 1024
    run = receval.Run.from_frame(categorical)
    assert [len(args[0]) for args in calls] == [n_runs]
    want = receval.Run.from_frame(frame)
    assert run.user_ids.tolist() == want.user_ids.tolist()
    assert run.to_dict() == want.to_dict()


def test_categorical_users_with_a_null_category_count_its_rows() -> None:
    # a null category held by runs of rows: every row counted, as without runs
    column = pa.DictionaryArray.from_arrays(
        pa.array(np.repeat([0, 1, 2], [3, 4, 5]).astype(np.int32)), pa.array(["a", None, "c"])
    )
    with pytest.raises(InputValidationError, match=r"users contains 4 missing values"):
        receval.Run(column, np.arange(12), np.ones(12))


@pytest.mark.parametrize(
    "kind",
    ["pandas-categorical", "pandas-categorical-unused", "polars-categorical", "polars-enum"],
)
def test_distinct_categories_are_not_hashed_again(kind: str, monkeypatch: Any) -> None:
    # pandas and polars categories are distinct: the values some row uses are taken
    # as they are, for items and for users grouped in runs or not
    from receval.data import _encode

    users, items, _, _ = _ids()
    monkeypatch.setattr(_encode, "factorize_strings", None)  # no hash of the values
    for ids in (items, users, np.repeat(np.arange(30), 4)):
        codes, uniques = factorize(KINDS[kind](ids), "items", "test")
        want_codes, want_uniques = factorize(ids, "items", "test")
        assert codes.tolist() == want_codes.tolist()
        assert uniques.tolist() == want_uniques.astype(str).tolist()
        offsets, rows, grouped = _encode.group_users(KINDS[kind](ids), "test")
        want = _naive_groups(ids.astype(str).tolist())
        assert (offsets.tolist(), grouped.tolist()) == (want[0], want[2])
        assert (rows.tolist() or list(range(len(ids)))) == want[1]


def test_a_polars_categorical_column_of_a_wide_pool_is_not_hashed_again(monkeypatch):
    # polars numbers the categories of every Categorical column in one pool: where a
    # column's codes lie far apart in it (other columns' categories between them),
    # the codes it uses are numbered anew by Arrow, its values never hashed
    from receval.data import _encode

    values = np.array([f"wide-pool-{i}" for i in (3, 1, 3, 2, 1)])
    first = pl.Series(values[:1]).cast(pl.Categorical)  # the first id's category first
    between = pl.Series([f"wide-pool-between-{i}" for i in range(20_000)]).cast(pl.Categorical)
    column = pl.Series(values).cast(pl.Categorical)
    codes = column.to_physical().to_numpy()
    assert len(first) and len(between) and codes.max() - codes.min() > 4 * len(values) + 1024
    monkeypatch.setattr(_encode, "factorize_strings", None)  # no hash of the values
    got, ids = _encode.factorize(column, "items", "f")
    assert got.tolist() == [0, 1, 0, 2, 1] and ids.tolist() == ["wide-pool-3", *values[[1, 3]]]


@pytest.mark.parametrize(
    "kind", ["pandas-categorical", "polars-categorical", "polars-enum", "arrow-chunked-dictionary"]
)
def test_categorical_frames_are_not_hashed_again(kind: str, monkeypatch: Any) -> None:
    # a frame's categorical columns (qrels and run, through their columns read as a
    # whole or picked from the frame) reach the encoding as given, which then knows
    # their categories distinct: the report of int64 ids, no value hashed again
    from receval.data import _encode

    users, items, scores, judged = _ids()
    grades = np.ones(int(judged.sum()), dtype=np.int64)
    expected = receval.evaluate(
        pd.DataFrame({"user": users[judged], "item": items[judged], "grade": grades}),
        pd.DataFrame({"user": users, "item": items, "score": scores}),
        METRICS,
    )
    monkeypatch.setattr(_encode, "factorize_strings", None)  # no hash of the values
    qrels = _frame(kind, users[judged], items[judged], grades, "grade")
    run = _frame(kind, users, items, scores, "score")
    _same(receval.evaluate(qrels, run, METRICS), expected)
    ranked = _frame(kind, users, items, np.argsort(-scores).argsort() + 1, "rank")
    assert receval.Run.from_frame(ranked, rank="rank").n_users == len(set(users.tolist()))


@pytest.mark.parametrize("kind", ["polars-categorical", "polars-enum"])
def test_a_polars_categorical_series_has_its_dtype_read_once(kind: str, monkeypatch: Any) -> None:
    # polars builds an Enum's dtype anew from its categories at each read: each
    # categorical Series of the qrels and the run is read once, whatever looks at it
    users, items, scores, judged = _ids()
    grades = np.ones(int(judged.sum()), dtype=np.int64)
    qrels = _frame(kind, users[judged], items[judged], grades, "grade")
    run = _frame(kind, users, items, scores, "score")
    expected = receval.evaluate(qrels, run, METRICS)
    reads: dict[int, int] = {}
    keep: list[Any] = []  # the Series read, alive, so that no id is reused
    plain = pl.Series.dtype

    def counted(series: Any) -> Any:
        dtype = plain.fget(series)
        if isinstance(dtype, (pl.Categorical, pl.Enum)):
            reads[id(series)] = reads.get(id(series), 0) + 1
            keep.append(series)
        return dtype

    monkeypatch.setattr(pl.Series, "dtype", property(counted))
    _same(receval.evaluate(qrels, run, METRICS), expected)
    assert len(reads) >= 4  # the user and item columns of both frames
    assert max(reads.values()) == 1


@pytest.mark.parametrize("kind", ["polars-categorical", "polars-enum", "arrow-chunked-dictionary"])
def test_categorical_feature_items_are_not_hashed_again(kind: str, monkeypatch: Any) -> None:
    # the item column of a features frame: its categories known distinct, as in a run
    from receval.data import _encode
    from receval.metrics.beyond.diversity import feature_matrix

    items = np.arange(150) * 7 % 151
    features = np.arange(300.0).reshape(150, 2)
    cols = {"item": KINDS[kind](items), "a": features[:, 0], "b": features[:, 1]}
    frame = pl.DataFrame(cols) if kind.startswith("polars") else pa.table(cols)
    monkeypatch.setattr(_encode, "factorize_strings", None)  # no hash of the values
    ids, matrix = feature_matrix(frame, None, "test")
    assert ids.tolist() == items.astype(str).tolist()
    np.testing.assert_array_equal(matrix, features)


@pytest.mark.parametrize(
    "kind", ["arrow-dictionary-repeated", "arrow-dictionary-repeated-int", "arrow-dictionary"]
)
def test_arrow_dictionaries_are_not_taken_as_distinct(kind: str) -> None:
    # an Arrow dictionary may hold a value under two indices: its values are hashed,
    # so equal ids get one code (taken as distinct, each id would get two)
    from receval.data import _encode

    users, items, _, _ = _ids()
    for ids in (items, users):
        column = KINDS[kind](ids)
        assert not _encode.id_column(column).distinct
        assert not _encode.id_column(_encode.ids_as_given(column)).distinct
        codes, uniques = factorize(column, "items", "test")
        want_codes, want_uniques = factorize(ids, "items", "test")
        assert codes.tolist() == want_codes.tolist()
        assert [str(u) for u in uniques.tolist()] == want_uniques.astype(str).tolist()
        offsets, rows, grouped = _encode.group_users(column, "test")
        want = _naive_groups(ids.astype(str).tolist())
        assert (offsets.tolist(), [str(u) for u in grouped.tolist()]) == (want[0], want[2])
        assert (rows.tolist() or list(range(len(ids)))) == want[1]


@settings(max_examples=60, deadline=None)
@given(
    pool=st.lists(ID_TEXT, min_size=1, max_size=8),
    picks=st.lists(st.integers(0, 7), min_size=1, max_size=60),
    cuts=st.lists(st.integers(0, 60), min_size=1, max_size=4),
    large=st.booleans(),
    shared=st.booleans(),
)
def test_chunked_dictionaries_are_joined_into_one_of_distinct_categories(
    pool: list[str], picks: list[int], cuts: list[int], large: bool, shared: bool
) -> None:
    # each chunk its own dictionary (a row group's), the same value in several, a
    # value twice in one, empty chunks, or slices of one dictionary array (one
    # dictionary shared): one dictionary array, codes as of strings
    from receval.data import _encode

    strings = [pool[i % len(pool)] for i in picks]
    bounds = [0, *sorted(min(c, len(strings)) for c in cuts), len(strings)]
    kind = pa.large_string() if large else pa.string()
    chunks = [
        _repeated_dictionary(np.array(strings[a:b], dtype=object)).cast(
            pa.dictionary(pa.int32(), kind)
        )
        if i % 2 and b > a
        else pa.array(strings[a:b], kind).dictionary_encode()
        for i, (a, b) in enumerate(itertools.pairwise(bounds))
    ]
    if shared:
        whole = pa.array(strings, kind).dictionary_encode()
        chunks = [whole[a:b] for a, b in itertools.pairwise(bounds)]
    column = pa.chunked_array(chunks, pa.dictionary(pa.int32(), kind))
    read = _encode.id_column(column)
    joined = read.array
    assert isinstance(joined, pa.DictionaryArray)
    assert read.distinct
    assert len(set(joined.dictionary.to_pylist())) == len(joined.dictionary)
    assert joined.to_pylist() == strings
    codes, uniques = factorize(column, "items", "test")
    assert (codes.tolist(), uniques.tolist()) == _naive(strings)


@pytest.mark.parametrize(
    ("width", "new_first"), [(4, False), (13, False), (30, False), (0, False), (6, True)]
)
def test_object_ids_a_copy_a_row_are_coded_across_blocks_as_one_pass_would(
    width: int, new_first: bool
) -> None:
    # one str object a row (as astype(object) makes them): the rows are read a block
    # of 16,384 at a time while another thread codes the block before; ids first seen
    # in a later block, short, wide and long ids, and all three in one block (width
    # 0: 1 to 25 digits, by id); a first block of new ids only (its table made for
    # many at once); a row that is no str in a late block is refused with the
    # column's own message
    rng = np.random.default_rng(width)
    ids = rng.integers(0, 50 + np.arange(60_000) // 10)  # the ids widen along the column
    if new_first:
        ids = np.concatenate([rng.permutation(30_000), rng.integers(0, 40_000, 30_000)])
    strings = [f"{x:0{width or 1 + x % 25}d}" for x in ids.tolist()]
    column = np.empty(len(strings), dtype=object)
    column[:] = strings  # each made by its own format: a copy a row, no shared objects
    want_codes, want_uniques = _naive(strings)
    codes, uniques = factorize(column, "items", "test")
    assert codes.tolist() == want_codes
    assert uniques.tolist() == want_uniques
    found = compiled().factorize_str(column, 2)
    assert found is not None
    assert [strings[i] for i in found[1].tolist()] == want_uniques
    column[-5] = 7
    assert compiled().factorize_str(column, 2) is None
    with pytest.raises(InputValidationError, match="one type"):
        factorize(column, "items", "test")


def test_compact_ascii_str_objects_are_read_where_they_lie() -> None:
    # on CPython 3.10 to 3.14 the core finds where a compact ASCII str holds its text
    # (checked against the C API's), so that every thread reads an object column's
    # rows there; elsewhere each is read through the C API
    import platform
    import sys

    at = compiled().ascii_text_at()
    if platform.python_implementation() == "CPython" and (3, 10) <= sys.version_info < (3, 15):
        assert at == (48 if sys.version_info < (3, 12) else 40)
    else:
        assert at is None


class _Text(str):
    """A str subclass: its text is read through the C API, never in place."""


LATE_IDS = {
    "ascii": "u-77",
    "wide": "u-0123456789ab",  # longer than the first rows' ids: a wider table
    "long": "u-" + "9" * 30,  # longer than any short key
    "latin": "u-é",  # not ASCII: the column read through the C API
    "cjk": "用户-1",
    "emoji": "u-😀",
    "subclass": _Text("u-5"),
}


@pytest.mark.parametrize("late", list(LATE_IDS))
@pytest.mark.parametrize("at", [70_000, 139_999])
def test_object_rows_read_in_place_take_longer_or_other_rows_as_one_pass_would(
    late: str, at: int
) -> None:
    # one str object a row, read where they lie by every thread (past 65,536 rows the
    # column is coded in parallel parts), with one row past the first rows (which
    # pick the table) in the second part that is longer than they are, not ASCII or
    # of a str subclass: the codes are those of the rows' text
    rng = np.random.default_rng(at)
    strings: list[str] = [f"u-{x}" for x in rng.integers(0, 5000, 140_000).tolist()]
    strings[at] = LATE_IDS[late]
    column = np.empty(len(strings), dtype=object)
    column[:] = strings  # each made by its own format: a copy a row
    want_codes, want_uniques = _naive([str(x) for x in strings])
    codes, uniques = factorize(column, "items", "test")
    assert codes.tolist() == want_codes
    assert uniques.tolist() == want_uniques
    found = compiled().factorize_str(column, 2)
    assert (found is None) == (late == "subclass")
    if found is not None:
        assert found[0].tolist() == want_codes
        assert large_strings(found[2], found[3]).to_pylist() == want_uniques


@pytest.mark.parametrize("late", ["user-77", "usér-1", "user-" + "9" * 30, _Text("user-5")])
def test_object_users_read_in_place_are_grouped_as_by_their_codes(late: str) -> None:
    # the runs of a users column of one object a row are found by every thread
    # reading the rows where they lie; a later run of a longer, not ASCII or
    # subclassed id is found as its text's (the column read again through the C API)
    from receval.data._encode import group_users

    users = [f"user-{u}" for u in np.repeat(np.arange(3000) * 7 % 3001, 50).tolist()]
    users[100_000:100_050] = [late] * 50
    column = np.empty(len(users), dtype=object)
    column[:] = [x if isinstance(x, _Text) else "".join(list(x)) for x in users]
    offsets, rows, got = group_users(column, "test")
    want_offsets, want_rows, want_ids = _naive_groups([str(x) for x in users])
    assert offsets.tolist() == want_offsets
    assert got.tolist() == want_ids
    assert (rows.tolist() or list(range(len(users)))) == want_rows
    found = compiled().factorize_str_runs(column, 2)
    assert (found is None) == isinstance(late, _Text)
    if found is not None:
        assert found[0].tolist() == list(range(0, 150_000, 50))


def test_object_columns_read_in_place_share_the_threads_with_other_python_threads() -> None:
    # the thread that reads an object column in place keeps the GIL while every thread
    # of the pool reads; other Python threads meanwhile code Arrow columns on the same
    # pool (without the GIL) and object columns (waiting for it): all finish, each
    # with its own column's codes
    from concurrent.futures import ThreadPoolExecutor

    from receval.data._string_buffers import factorize_strings

    rng = np.random.default_rng(3)
    strings = [f"item-{x}" for x in rng.integers(0, 20_000, 150_000).tolist()]
    objects = np.empty(len(strings), dtype=object)
    objects[:] = strings
    arrow_column = pa.array(strings)
    want = _naive(strings)[0]

    def by_objects() -> list[int]:
        found = compiled().factorize_str(objects, 2)
        assert found is not None
        return list(found[0].tolist())

    def by_arrow() -> list[int]:
        return list(factorize_strings(arrow_column)[0].tolist())

    with ThreadPoolExecutor(4) as pool:
        futures = [pool.submit(by_objects if k % 2 else by_arrow) for k in range(16)]
        assert all(f.result(timeout=120) == want for f in futures)


@pytest.mark.parametrize("width", [3, 13, 30])
def test_object_ids_of_any_length_are_looked_up_where_they_lie(width: int) -> None:
    # the dictionary's and the values' objects read in place by every thread, in a
    # table for ids of 11 bytes first, then (a longer id met) for ids of any length
    from receval.data._strings import lookup_strings

    rng = np.random.default_rng(width)

    def objects(xs: list[str]) -> np.ndarray:
        out = np.empty(len(xs), dtype=object)
        out[:] = xs
        return out

    dictionary = [f"{x:0{width}d}" for x in range(0, 2000, 2)]
    values = [f"{x:0{width}d}" for x in rng.integers(0, 2000, 140_000).tolist()]
    values[100_000] = "9" * 40
    found = lookup_strings(objects(values), objects(dictionary))
    where = {d: i for i, d in enumerate(dictionary)}
    assert found is not None
    assert found.tolist() == [where.get(v, -1) for v in values]


IDS = ["", "a", "a ", " a", "é", "日本", "a\x00b", "a\x00c", "\x00a", "u-17", "x" * 40]


@pytest.mark.parametrize("kind", [str, bytes])
@given(st.lists(st.sampled_from(IDS) | st.text(max_size=8), max_size=300))
def test_numpy_str_and_bytes_ids_are_encoded_whole(kind, ids):
    """NumPy str and bytes ids (fixed width) are encoded whole, a NUL inside an id
    included (Arrow cuts such an array's strings at their first NUL): the codes and
    distinct ids of a dict of first appearance, the array's dtype kept; up to
    _FEW_STRINGS ids by a dict, more by the core, to the same codes; looked up whole."""
    from receval.data import _encode

    arr = np.array(ids if kind is str else [x.encode() for x in ids], dtype=kind)
    first: dict[Any, int] = {}
    want = [first.setdefault(x, len(first)) for x in arr.tolist()]
    codes, uniques = factorize(arr, "user", "f")
    assert codes.tolist() == want and uniques.tolist() == list(first)
    assert codes.dtype == (np.int32 if len(arr) else np.int64) and uniques.dtype == arr.dtype
    long = np.concatenate([arr] * (_encode._FEW_STRINGS // max(len(arr), 1) + 1))
    assert len(long) > _encode._FEW_STRINGS or not len(arr)
    long_codes, long_uniques = factorize(long, "user", "f")
    assert long_codes.tolist() == want * (len(long) // max(len(arr), 1))
    assert long_uniques.tolist() == list(first)
    for values in (arr, np.concatenate([arr] * 1100)):  # the dict, then Arrow (2**18 ids)
        # the ids looked up among the distinct ids but the first
        found = lookup(values, uniques[1:])
        assert found.tolist() == [c - 1 for c in want * (len(values) // max(len(arr), 1))]


def test_numpy_strings_reach_arrow_whole():
    """Every NumPy array that becomes Arrow in receval goes through to_arrow: str and
    bytes whole (Arrow's own conversion cuts them at their first NUL), others as
    Arrow converts them, an Arrow array as it is."""
    from receval.data._arrow import to_arrow

    ids = ["a\x00b", "a\x00c", "", "\x00"]
    assert to_arrow(np.array(ids)).to_pylist() == ["a\x00b", "a\x00c", "", ""]  # NumPy drops
    assert to_arrow(np.array(ids, dtype=object)).to_pylist() == ids  # trailing NULs itself
    assert to_arrow(np.array([x.encode() for x in ids[:2]])).to_pylist() == [b"a\x00b", b"a\x00c"]
    assert to_arrow(np.array([1, 2])).type == pa.int64()
    arr = pa.array(["x"])
    assert to_arrow(arr) is arr


@pytest.mark.parametrize(
    "values",
    [
        np.array([3, -1, 7], np.int8), np.array([2**64 - 1, 0], np.uint64), np.arange(5)[::2],
        np.array([0.5, np.nan, -0.0, np.inf], np.float32), np.array([1.5, np.nan], np.float16),
        np.array([True, False, True, True, False, False, True, True, True]), np.array([], bool),
        np.array(["é", "", "id-7"]), np.array(["x", "yz"], dtype=object), np.array([b"\xff", b""]),
        np.array([], dtype=object), np.array(["2024-01-02"], "datetime64[D]"),
    ],
)  # fmt: skip
def test_numpy_reaches_arrow_as_arrows_own_conversion_makes_it(values):
    # numbers over NumPy's memory, booleans packed, strings from their bytes (pa.array
    # imports pandas): the type and values of pa.array of the array (of its list for
    # str, bytes and objects, as receval has always given them); what it cannot
    # build (mixed objects, a lone surrogate, times) is left to pa.array
    from receval.data._arrow import to_arrow

    kind = values.dtype.kind
    want = pa.array(values.tolist() if kind in "OUS" else values)
    got = to_arrow(values)
    assert got.type == want.type and got.null_count == want.null_count == 0
    assert got.to_pylist() == want.to_pylist() or kind == "f"
    if kind == "f":  # NaN a value, not a null, as pa.array of NumPy floats gives it
        assert np.array_equal(np.asarray(got.to_pylist(), float), values.astype(float),
                              equal_nan=True)  # fmt: skip


def test_numpy_of_the_other_byte_order_reaches_arrow_as_its_values():
    # Arrow holds numbers in the machine's order (pa.array refuses byte-swapped arrays;
    # read over their memory as they lie, they would be other numbers)
    from receval.data._arrow import arrow_integers, to_arrow

    for values in (np.array([1, 2, 300], ">i8"), np.array([1.5, -2.0], ">f4")):
        assert to_arrow(values).to_pylist() == values.tolist()
    assert arrow_integers(np.array([7, 2**40], ">u8")).to_pylist() == [7, 2**40]


@pytest.mark.parametrize(
    ("values", "error"),
    [(np.array(["a", 1], dtype=object), pa.ArrowTypeError),
     (np.array(["\ud800"], dtype=object), UnicodeEncodeError)],
)  # fmt: skip
def test_numpy_that_arrow_cannot_convert_raises_arrows_error(values, error):
    from receval.data._arrow import to_arrow

    with pytest.raises(error):
        pa.array(values.tolist())
    with pytest.raises(error):
        to_arrow(values)


@pytest.mark.parametrize("box", [list, lambda x: np.array(x, dtype=object)])
def test_integer_ids_past_int64_are_uint64_or_refused_never_merged(box):
    """Python ints past int64 (uint64 hashes): a list of them beside small ints is
    not made floats (2**64 - 1 and 2**64 - 2 would be one id), an object array of
    them is not a raw OverflowError; uint64 ids are encoded as such, ids no 64-bit
    type holds together are refused naming the argument."""
    top = 2**64 - 1
    codes, uniques = factorize(box([top, top - 1, 3, top]), "item", "f")
    assert codes.tolist() == [0, 1, 2, 0] and uniques.tolist() == [top, top - 1, 3]
    assert uniques.dtype == np.uint64
    for bad in ([top, -2], [2**70, 1]):
        with pytest.raises(InputValidationError, match=r"item holds integer ids from .*astype"):
            factorize(box(bad), "item", "f")
    report = receval.evaluate({"u": {top: 1}}, {"u": {top - 1: 0.9, top: 0.5}}, ["P@1", "P@2"])
    assert report.mean == {"P@1": 0.0, "P@2": 0.5}


@pytest.mark.parametrize("n", [2, 600])
@pytest.mark.parametrize("dtype", [str, object])
def test_a_string_id_that_is_not_unicode_is_refused_naming_it(n, dtype):
    """A lone surrogate (a file decoded with errors="surrogateescape") cannot be an
    id's UTF-8: refused with the argument and the id, a few ids or many, NumPy str
    or object, never a raw UnicodeEncodeError."""
    ids = np.array(["a", "b\udc80"] * (n // 2), dtype=dtype)
    with pytest.raises(InputValidationError, match=r"user holds the id 'b\\udc80', which is not"):
        factorize(ids, "user", "f")


def test_parquet_users_read_as_dictionaries_load_no_pandas(tmp_path: Any) -> None:
    # without polars, a Parquet column of users in runs (stored as dictionary indices)
    # is read as a dictionary a row group and grouped by the runs' heads, joined over
    # NumPy's memory (pa.array imports pandas, 0.2 s)
    import pyarrow.parquet as pq

    rng = np.random.default_rng(5)
    users = np.repeat([f"u-{k}" for k in range(40)], 200)  # runs across row groups
    picks = np.concatenate([rng.choice(500, 200, replace=False) for _ in range(40)])
    items = [f"doc-{i}" for i in picks]
    run = pa.table({"user": users, "item": items, "score": rng.random(len(users))})
    qrels = pa.table({"user": users[::7], "item": items[::7], "grade": np.ones(len(items[::7]))})
    paths = [str(tmp_path / "q.parquet"), str(tmp_path / "r.parquet")]
    for table, path in zip((qrels, run), paths, strict=True):
        pq.write_table(table, path, row_group_size=3000)
    code = (
        "import receval as rv\n"
        "from receval.data import io\n"
        "io._PARQUET_WITH_POLARS = False\n"
        f"q, r = {paths!r}\n"
        "columns = io.ParquetColumns(r, ['user', 'item'])\n"
        "print(columns._dictionary_indices('user'), columns.num_row_groups)\n"
        "report = rv.evaluate(rv.Qrels.from_file(q), rv.Run.from_file(r), ['ndcg@10'])\n"
        "print(repr(report.mean['ndcg@10']))\n"
    )
    printed, modules = fresh(code)
    frames = (qrels.to_pandas(), run.to_pandas())
    want = receval.evaluate(*frames, ["ndcg@10"]).mean["ndcg@10"]
    assert printed == ["True", "3", repr(want)]
    assert "pyarrow" in modules and "pandas" not in modules


def test_ids_coded_by_arrows_hash_load_no_pandas():
    # ids Arrow's hash codes reach it over NumPy's memory (pa.array imports pandas):
    # integer ids of a range too wide for a direct-address table, and a polars
    # Categorical column whose codes lie far apart in polars' one pool of categories
    # (read through a dictionary with nulls at the codes it does not use)
    code = (
        "import numpy as np\n"
        "import polars as pl\n"
        "import receval as rv\n"
        "users, items = np.array([0, 0, 1]), np.array([3 * 10**15, 10**12, 5])\n"
        "run = rv.Run(users, items, np.array([0.9, 0.5, 0.1]))\n"
        "wide = rv.evaluate(rv.Qrels(users[1:], items[1:], [1, 1]), run, ['ndcg@10'])\n"
        "pool = pl.Series([f'x{i}' for i in range(100_000)], dtype=pl.Categorical)\n"
        "cat = pl.col('item').cast(pl.Categorical)\n"
        "q = pl.DataFrame({'user': ['a', 'b'], 'item': ['i2', 'x7'], 'grade': [1, 1]})\n"
        "r = pl.DataFrame({'user': ['a', 'a', 'b'], 'item': ['x99999', 'i2', 'x7'],\n"
        "                  'score': [0.9, 0.5, 0.1]})\n"
        "pooled = rv.evaluate(q.with_columns(cat), r.with_columns(cat), ['ndcg@10'])\n"
        "print(*(repr(x.mean['ndcg@10']) for x in (wide, pooled)))\n"
    )
    printed, modules = fresh(code)
    # in each, one user's relevant item second (1 / log2(3)), the other's first
    mean = repr(float((1 / np.log2(3) + 1) / 2))
    assert printed == [mean, mean]
    assert "polars" in modules and "pandas" not in modules

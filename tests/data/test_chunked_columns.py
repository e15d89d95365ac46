"""Columns read chunk by chunk (the chunks of an Arrow table, the row groups of a
Parquet file) give the containers of one contiguous NumPy column: the same
offsets, ids, codes, ranked lists and errors, wherever the chunks are cut."""

from itertools import pairwise

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given
from hypothesis import strategies as st

from receval import Qrels, Run, evaluate
from receval.data import _arrow, _int_ids, io
from receval.exceptions import InputValidationError
from tests._fresh import fresh

SCORES = [0.0, 0.1, 0.5, 0.9, 1.0]  # few values: ties


def chunked(values, cuts, sliced=False, type=None):
    """``values`` as an Arrow chunked array cut at ``cuts`` (repeated cuts give empty
    chunks); ``sliced``: each chunk a slice (with an offset) of a longer array."""
    bounds = [0, *sorted(cuts), len(values)]
    parts = []
    for a, b in pairwise(bounds):
        part = values[a:b]
        if sliced:
            pad = np.zeros(3, dtype=values.dtype)
            whole = pa.array(np.concatenate([pad, part, pad]), type=type)
            parts.append(whole.slice(3, len(part)))
        else:
            parts.append(pa.array(part, type=type))
    return pa.chunked_array(parts, type=parts[0].type)


def same_container(got, expected):
    for name in ("offsets", "user_ids", "item_ids", "items"):
        a, b = getattr(got, name), getattr(expected, name)
        np.testing.assert_array_equal(a, b, err_msg=name)
        assert a.dtype == b.dtype, name
    if isinstance(expected, Run):
        np.testing.assert_array_equal(got.scores, expected.scores)
        assert got.from_ranks == expected.from_ranks
    else:
        for name in ("grades", "grades_desc"):
            np.testing.assert_array_equal(getattr(got, name), getattr(expected, name))


@st.composite
def columns(draw):
    """Rows of users with distinct items each, grouped by user or shuffled, scores
    with ties, and where to cut them into chunks."""
    n_users = draw(st.integers(1, 10))
    sizes = draw(st.lists(st.integers(1, 9), min_size=n_users, max_size=n_users))
    user_ids = draw(st.permutations(range(n_users)))
    users = np.repeat(np.asarray(user_ids, dtype=np.int64) * 3 + 5, sizes)
    catalogue = draw(st.sampled_from([20, 1 << 40]))  # compact ids, or a hashed range
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    items = np.concatenate([rng.choice(20, k, replace=False) for k in sizes]) * (catalogue // 20)
    scores = rng.choice(SCORES, len(users))
    grades = rng.integers(-1, 4, len(users))
    if not draw(st.booleans()):  # rows of a user not contiguous
        order = rng.permutation(len(users))
        users, items, scores, grades = users[order], items[order], scores[order], grades[order]
    n = len(users)
    cuts = draw(st.lists(st.integers(0, n), max_size=6))
    return users, items, scores, grades, cuts, draw(st.booleans())


@given(columns(), st.sampled_from(["int64", "int32", "uint16"]))
def test_chunked_arrow_columns_give_the_numpy_containers(data, dtype):
    users, items, scores, grades, cuts, sliced = data
    items = items.astype(dtype) if items.max() < 2**15 else items
    table = pa.table(
        {
            "user": chunked(users.astype(dtype), cuts, sliced),
            "item": chunked(items, cuts, sliced),
            "score": chunked(scores, cuts, sliced),
            "grade": chunked(grades, cuts, sliced),
        }
    )
    same_container(Run.from_frame(table), Run(users.astype(dtype), items, scores))
    same_container(
        Run.from_frame(table, rank="grade"), Run(users.astype(dtype), items, ranks=grades)
    )
    qrels = Qrels.from_frame(table)
    same_container(qrels, Qrels(users.astype(dtype), items, grades))
    same_container(Qrels.from_frame(table, grade=None), Qrels(users.astype(dtype), items))
    metrics = ["ndcg@3", "map", "mrr"]
    got = evaluate(qrels, Run.from_frame(table), metrics, profile="trec_eval")
    want = evaluate(Qrels(users, items, grades), Run(users, items, scores), metrics,
                    profile="trec_eval")  # fmt: skip
    for m in metrics:
        np.testing.assert_array_equal(got.values[m], want.values[m])


@pytest.mark.parametrize("cuts", [[], [0, 0, 1], [4, 4, 9, 9], [13, 14]], ids=str)
def test_ascending_codes_of_long_columns(cuts, monkeypatch):
    # above PARALLEL_MIN_ROWS the item codes follow the ids, in both paths
    monkeypatch.setattr(_int_ids, "PARALLEL_MIN_ROWS", 4)
    users = np.repeat([7, 3, 9], [5, 6, 3])
    items = np.array([40, 12, 13, 99, 41, 12, 40, 7, 8, 9, 10, 99, 12, 13])
    scores = np.linspace(1, 0, len(users))
    table = pa.table({"user": chunked(users, cuts), "item": chunked(items, cuts),
                      "score": chunked(scores, cuts)})  # fmt: skip
    run = Run.from_frame(table)
    same_container(run, Run(users, items, scores))
    np.testing.assert_array_equal(run.item_ids, np.unique(items))


def test_one_chunk_and_record_batches():
    users, items, scores = np.repeat([2, 1], [3, 2]), np.array([5, 6, 7, 5, 6]), np.arange(5.0)
    expected = Run(users, items, scores)
    table = pa.table({"user": users, "item": items, "score": scores})
    same_container(Run.from_frame(table), expected)
    same_container(Run.from_frame(table.to_batches()[0]), expected)
    batches = pa.Table.from_batches(table.to_batches(max_chunksize=2))
    assert batches.column("user").num_chunks == 3
    same_container(Run.from_frame(batches), expected)


def test_ids_out_of_the_int32_range_and_unsigned():
    users = np.repeat(np.array([2**63 + 5, 3, 2**63 + 1], dtype=np.uint64), [2, 3, 1])
    items = np.array([2**62, -(2**62), 0, 1, 2**62, 9], dtype=np.int64)
    scores = np.array([0.5, 0.5, 0.1, 0.3, 0.3, 0.0])
    cuts = [1, 4]
    table = pa.table({"user": chunked(users, cuts), "item": chunked(items, cuts),
                      "score": chunked(scores, cuts)})  # fmt: skip
    same_container(Run.from_frame(table), Run(users, items, scores))
    far = np.array([0, 2**31, 5, 1], dtype=np.int64)  # 2**31 from the first id: hash table
    table = pa.table({"user": chunked(np.array([1, 1, 2, 2]), [2]), "item": chunked(far, [2]),
                      "score": chunked(np.arange(4.0), [2])})  # fmt: skip
    same_container(Run.from_frame(table), Run(np.array([1, 1, 2, 2]), far, np.arange(4.0)))


def test_a_list_across_many_chunks_with_a_repeated_item():
    users = np.repeat([4, 8, 6], [2, 9, 3])
    items = np.array([1, 2, 1, 2, 3, 4, 5, 6, 7, 8, 3, 1, 2, 3])  # user 8 has item 3 twice
    items[-1] = 1  # and user 6 has item 1 twice: the first is reported
    scores = np.linspace(0, 1, len(users))
    message = r"^Run: user 8 has item 3 more than once\. Each \(user, item\) pair"
    with pytest.raises(InputValidationError, match=message):
        Run(users, items, scores)
    for cuts in ([3, 5, 7, 9], [2, 11], [12]):
        table = pa.table({"user": chunked(users, cuts), "item": chunked(items, cuts),
                          "score": chunked(scores, cuts)})  # fmt: skip
        with pytest.raises(InputValidationError, match=message):
            Run.from_frame(table)


def test_nulls_raise_the_error_of_the_whole_column():
    users = pa.chunked_array([[1, 1, None], [2, None, 3]])
    items = pa.chunked_array([[1, 2, 3], [4, 5, 6]])
    scores = pa.chunked_array([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]])
    table = pa.table({"user": users, "item": items, "score": scores})
    with pytest.raises(InputValidationError, match=r"^Run: users contains 2 missing values"):
        Run.from_frame(table)
    table = pa.table({"user": items, "item": users, "score": scores})
    with pytest.raises(InputValidationError, match=r"^Run: items contains 2 missing values"):
        Run.from_frame(table)
    table = pa.table({"user": items, "item": items, "score": users})
    said = r"contains missing values \(null\), the first at position 2; drop or fill them first\.$"
    with pytest.raises(InputValidationError, match=rf"^Run: scores {said}"):
        Run.from_frame(table)
    with pytest.raises(InputValidationError, match=rf"^Qrels: grades {said}"):
        Qrels.from_frame(table, grade="score")
    table = pa.table(
        {"user": items, "item": items, "score": pa.chunked_array([[0.1] * 3, [np.inf] * 3])}
    )
    with pytest.raises(
        InputValidationError,
        match=r"^Run: scores contains NaN or infinity, the first at position 3 \(inf\); ",
    ):
        Run.from_frame(table)


@pytest.mark.parametrize("with_polars", [True, False])
@pytest.mark.parametrize("grouped", [True, False])
def test_parquet_row_groups_give_the_numpy_containers(with_polars, grouped, tmp_path, monkeypatch):
    monkeypatch.setattr(io, "_PARQUET_WITH_POLARS", with_polars)
    rng = np.random.default_rng(3)
    sizes = rng.integers(1, 30, 50)
    user_ids = rng.permutation(50) * 7
    users = np.repeat(user_ids, sizes)
    items = np.concatenate([rng.choice(300, k, replace=False) for k in sizes])
    scores = rng.choice(SCORES, len(users))
    grades = rng.integers(0, 4, len(users))
    if not grouped:
        order = rng.permutation(len(users))
        users, items, scores, grades = users[order], items[order], scores[order], grades[order]
    path = tmp_path / "rows.parquet"
    table = pa.table({"user": users, "item": items, "score": scores, "grade": grades})
    pq.write_table(table, path, row_group_size=23)  # lists cross row groups
    same_container(Run.from_file(path), Run(users, items, scores))
    same_container(Run.from_file(path, rank="grade"), Run(users, items, ranks=grades))
    same_container(Qrels.from_file(path), Qrels(users, items, grades))
    user = int(user_ids[np.argmax(sizes)])  # its rows cross a row group boundary
    duplicated = table.set_column(1, "item", pa.array(np.where(users == user, 1, items)))
    pq.write_table(duplicated, path, row_group_size=23)
    second = int(np.flatnonzero(users == user)[1]) + 1  # the row where the pair comes again
    with pytest.raises(InputValidationError) as info:
        Run.from_file(path)
    assert str(info.value).startswith(f"{path}: row {second}: Run: user {user} has item 1 more")


@pytest.mark.parametrize("statistics", [True, False])
@pytest.mark.parametrize("gap", [False, True])
def test_parquet_item_codes_do_not_depend_on_the_statistics(statistics, gap, tmp_path, monkeypatch):
    # the row groups' smallest item id only anchors the codes (with every id of the
    # range present they are then the offsets as written): codes and ids are those
    # of the whole column with statistics, without, or with a hint that is wrong
    monkeypatch.setattr(_int_ids, "PARALLEL_MIN_ROWS", 4)  # ascending codes
    rng = np.random.default_rng(5)
    users = np.repeat(np.arange(40), 25)
    catalogue = np.setdiff1d(np.arange(1000, 1060), [1030] if gap else [])
    items = np.concatenate([rng.choice(catalogue, 25, replace=False) for _ in range(40)])
    assert len(np.unique(items)) == len(catalogue)
    scores = rng.choice(SCORES, len(users))
    path = tmp_path / "rows.parquet"
    table = pa.table({"user": users, "item": items, "score": scores})
    pq.write_table(table, path, row_group_size=77, write_statistics=statistics)
    source = io.ParquetColumns(str(path), ["item"])
    assert source.smallest("item") == (1000 if statistics else None)
    expected = Run(users, items, scores)
    same_container(Run.from_file(path), expected)
    for hint in [-(2**40), 999, 1059, 2**40]:  # below, above, far off the ids
        monkeypatch.setattr(io.ParquetColumns, "smallest", lambda self, column, h=hint: h)
        same_container(Run.from_file(path), expected)


@pytest.mark.parametrize("source", ["arrow", "parquet"])
def test_grouped_integer_columns_are_never_read_whole(source, tmp_path, monkeypatch):
    def whole(self, column):
        raise AssertionError(f"{column} read whole")

    users, items = np.repeat([3, 1, 2], [4, 5, 3]), np.arange(12) % 7
    table = pa.table({"user": users, "item": items, "score": np.arange(12.0) % 5,
                      "grade": np.arange(12) % 3})  # fmt: skip
    expected_run, expected_qrels = Run.from_frame(table), Qrels.from_frame(table)
    monkeypatch.setattr(io.ArrowColumns, "read", whole)
    monkeypatch.setattr(io.ParquetColumns, "read", whole)
    if source == "parquet":
        path = tmp_path / "rows.parquet"
        pq.write_table(table, path, row_group_size=5)
        run, qrels = Run.from_file(path), Qrels.from_file(path)
    else:
        table = pa.Table.from_batches(table.to_batches(max_chunksize=5))
        run, qrels = Run.from_frame(table), Qrels.from_frame(table)
    same_container(run, expected_run)
    same_container(qrels, expected_qrels)


@pytest.mark.parametrize(
    "arrow_type",
    [pa.int8(), pa.int16(), pa.int32(), pa.int64(), pa.uint8(), pa.uint16(), pa.uint32(),
     pa.uint64(), pa.float32(), pa.float64()],
)  # fmt: skip
def test_numeric_view_is_arrow_values_without_a_copy(arrow_type):
    whole = pa.array(np.arange(20), type=arrow_type)
    for chunk in (whole, whole.slice(3, 11), whole.slice(20)):
        view = _arrow.numeric_view(chunk)
        expected = np.asarray(chunk.to_pylist(), dtype=view.dtype)
        assert view.dtype == np.dtype(arrow_type.to_pandas_dtype())
        np.testing.assert_array_equal(view, expected)
        assert not view.flags.writeable  # Arrow's memory
    assert _arrow.numeric_view(pa.array([1, None], type=arrow_type)) is None
    assert _arrow.numeric_view(pa.array(["a"])) is None


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.uint32, np.int64, np.uint64])
def test_arrow_integers_are_numpy_values_over_the_same_memory(dtype):
    values = np.arange(7, dtype=dtype)[::-1]  # not contiguous: copied once
    arr = _arrow.arrow_integers(values)
    assert arr.type == pa.from_numpy_dtype(np.dtype(dtype)) and arr.null_count == 0
    assert arr.to_pylist() == values.tolist()
    contiguous = np.ascontiguousarray(values)
    shared = _arrow.numeric_view(_arrow.arrow_integers(contiguous))
    assert shared.ctypes.data == contiguous.ctypes.data
    # an empty list of positions (float64 in NumPy) is no positions
    assert _arrow.arrow_integers(np.asarray([])).to_pylist() == []
    with pytest.raises(TypeError, match="got bool"):
        _arrow.arrow_integers(np.array([True, False]))  # a mask is not positions
    with pytest.raises(TypeError, match="got string"):
        _arrow.numbers_view(pa.array(["1"]))


def _arrow_forms(values: list, kind: pa.DataType, chunks: int) -> list:
    """``values`` as a chunked array (of ``chunks`` chunks), as one array, and as a
    slice at an offset into a buffer."""
    cut = len(values) // 2
    parts = [values] if chunks == 1 else [values[:cut], values[cut:]]
    sliced = pa.array(values + values, kind).slice(len(values))
    return [pa.chunked_array(parts, kind), pa.array(values, kind), sliced]


@pytest.mark.parametrize(
    "values, kind",
    [
        ([3, -1, 7], pa.int8()), ([3, None, 7], pa.int64()), ([2**64 - 1, 0], pa.uint64()),
        ([0.5, -0.0, float("inf")], pa.float32()), ([0.5, None], pa.float64()),
        ([True, False, True], pa.bool_()), ([True, None], pa.bool_()),
        (["a", None, "b"], pa.string()), ([], pa.int32()),
        ([np.float16(1.5), np.float16(-0.0)], pa.float16()), ([np.float16(2), None], pa.float16()),
        ([1, -86_400, 7], pa.timestamp("s")), ([5, None], pa.timestamp("ms", tz="UTC")),
        ([1, 2], pa.timestamp("ns", tz="Europe/Paris")), ([19_000, -3], pa.date32()),
        ([19_000, None], pa.date32()), ([86_400_000], pa.date64()), ([None, 1], pa.date64()),
        ([3, -4], pa.duration("us")), ([None, 9], pa.duration("s")),
    ],
)  # fmt: skip
@pytest.mark.parametrize("chunks", [1, 2])
def test_to_numpy_gives_what_arrows_own_conversion_gives(values, kind, chunks):
    # numbers, booleans and times through their buffers (Arrow's to_numpy imports
    # pandas); the same dtype and values as Arrow's conversion, nulls NaN (NaT)
    for arr in _arrow_forms(values, kind, chunks):
        got, expected = _arrow.to_numpy(arr), arr.to_numpy(zero_copy_only=False)
        assert got.dtype == expected.dtype and got.shape == expected.shape
        assert got.flags.writeable == expected.flags.writeable  # a copy where Arrow copies
        assert np.array_equal(got, expected, equal_nan=got.dtype.kind in "fmM")
        if got.dtype.kind == "f":  # the bits: -0.0 stays -0.0 (NaN is any NaN)
            values = ~np.isnan(got)
            assert got[values].tobytes() == expected[values].tobytes()


_WORDS = pa.dictionary(pa.int8(), pa.string())


@pytest.mark.parametrize(
    "values, kind",
    [
        (["b", "a", "b", "b", ""], pa.string()), (["x", "y", "x"], pa.large_string()),
        (["a long id past twelve bytes", "b", "a long id past twelve bytes"], pa.string_view()),
        ([b"\x00a", b"b", b"\x00a"], pa.binary()), ([b"a", b"a"], pa.large_binary()),
        (["a", None, "b", "a"], pa.string()), ([None, None], pa.large_string()), ([], pa.string()),
        (["doc-1", None, "doc-22", "doc-1", None], pa.large_string()),
        (["yes", "no", "yes"], _WORDS), (["no", None], _WORDS), ([], _WORDS),
        (["yes-1", "no-22", "yes-1", "no-22"], _WORDS),  # each chunk's dictionary both
        ([7, 3, 7], pa.dictionary(pa.int32(), pa.int64())),
        # distinct values enough for Arrow's conversion where pandas is loaded
        ([f"v{i % 4100}" for i in range(5000)], pa.string_view()),
    ],
)  # fmt: skip
@pytest.mark.parametrize("chunks", [1, 2])
def test_to_numpy_of_strings_gives_what_arrows_own_conversion_gives(values, kind, chunks):
    # strings and bytes coded by the core, dictionaries as their values (Arrow's
    # conversion imports pandas): the dtype of Arrow's conversion and the values of
    # the array (Arrow's conversion of a chunked dictionary array with nulls gives
    # another chunk's value for a null), each distinct string one object (a chunked
    # dictionary array's dictionaries made one), None at the nulls
    for arr in _arrow_forms(values, kind, chunks):
        got = _arrow.to_numpy(arr)
        expected = arr.to_numpy(zero_copy_only=False)
        assert got.dtype == expected.dtype and got.shape == expected.shape
        assert got.tolist() == arr.to_pylist()
        if got.dtype.kind == "O" and not (pa.types.is_dictionary(kind) and None in values):
            assert len({id(x) for x in got if x is not None}) == len(set(values) - {None})


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_string_groups_of_a_scan_and_labels_from_arrow_load_no_pandas(tmp_path, fmt):
    # the groups' ids checked for repeats and labels of words, each given as Arrow
    # strings, reach NumPy through the core (Arrow's conversion imports pandas); a
    # Parquet file opened by its own reader (pyarrow.dataset imports pandas)
    import pyarrow.csv as pcsv

    (tmp_path / "log.csv").write_text("u,y,p\nb,1,.9\nb,0,.2\na,0,.4\na,1,.3\nc,1,.5\nc,0,.1\n")
    pq.write_table(pcsv.read_csv(tmp_path / "log.csv"), tmp_path / "log.parquet")
    code = (
        "import io\n"
        "import pyarrow.csv as pcsv\n"
        "import receval as rv\n"
        f"s = rv.scan('log.{fmt}', batch_rows=3)\n"  # groups cut at batch boundaries
        "print(rv.gauc_score(s['y'], s['p'], groups=s['u']))\n"
        "t = pcsv.read_csv(io.BytesIO(b'y,p\\nyes,.9\\nno,.2\\nyes,.8\\nno,.85\\n'))\n"
        "print(rv.roc_auc_score(t.column('y'), t.column('p'), pos_label='yes'))\n"
    )
    printed, modules = fresh(code, tmp_path)
    assert printed == [repr(2 / 3), "0.75"]  # two of three users in order; three of four pairs
    assert "pyarrow" in modules and "pandas" not in modules


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_a_non_finite_score_is_found_wherever_its_list_lies(bad, tmp_path):
    # row groups of 23 rows: lists inside a group (ranked by the core, which checks
    # their keys), lists crossing a boundary (checked where the rows are copied),
    # and a list longer than a group (a group inside one list)
    sizes = np.array([3, 5, 60, 2, 30, 7, 1, 40])
    users = np.repeat(np.arange(len(sizes)) * 3 + 1, sizes)
    items = np.concatenate([np.arange(k) for k in sizes])
    clean = np.linspace(1.0, 0.0, len(users))
    path = tmp_path / "scores.parquet"
    pq.write_table(pa.table({"user": users, "item": items, "score": clean}), path,
                   row_group_size=23)  # fmt: skip
    Run.from_file(path)
    for row in sorted({0, 2, 4, 9, 22, 23, 30, 46, 69, 70, 75, 100, 110, len(users) - 1}):
        scores = clean.copy()
        scores[row] = bad
        pq.write_table(pa.table({"user": users, "item": items, "score": scores}), path,
                       row_group_size=23)  # fmt: skip
        message = (
            rf"^{path}: row {row + 1}: Run: scores contains NaN or infinity, the first in "
            rf"this row \({bad!r}\); drop those rows or replace the values with finite "
            r"numbers first\.$"
        )
        with pytest.raises(InputValidationError, match=message):
            Run.from_file(path)

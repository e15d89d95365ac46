"""Ids read from files: CSV and TSV id columns of integers are int64 (as in Parquet),
any other spelling stays text; every format and id type gives the same report, and
qrels and a run whose files hold the same ids as ints and as numeric strings match."""

from __future__ import annotations

import re

import numpy as np
import pyarrow as pa
import pyarrow.csv as pcsv
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval
from receval import InputValidationError, Qrels, Run
from receval.data import io

METRICS = ["ndcg@10", "recall@5", "mrr", "map", "p@3"]


def _data(seed: int = 0) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Qrels and run columns with int64 ids (some negative, some scores tied)."""
    rng = np.random.default_rng(seed)
    users = rng.permutation(60) * 7 - 40
    q_users, q_items, grades, r_users, r_items, scores = [], [], [], [], [], []
    for u in users:
        items = rng.choice(np.arange(-30, 400), size=25, replace=False)
        judged = items[rng.random(25) < 0.4]
        q_users += [u] * len(judged)
        q_items += judged.tolist()
        grades += rng.integers(0, 4, len(judged)).tolist()
        r_users += [u] * 20
        r_items += items[:20].tolist()
        scores += np.round(rng.random(20), 1).tolist()  # ties
    qrels = {"user": np.array(q_users), "item": np.array(q_items), "grade": np.array(grades)}
    run = {"user": np.array(r_users), "item": np.array(r_items), "score": np.array(scores)}
    return qrels, run


def _table(columns: dict[str, np.ndarray], ids: str) -> pa.Table:
    def id_column(values: np.ndarray, prefix: str) -> pa.Array:
        if ids == "int":
            return pa.array(values)
        text = [str(v) for v in values.tolist()]
        return pa.array(text if ids == "numeric" else [prefix + t for t in text])

    user, item, value = columns
    return pa.table(
        {
            user: id_column(columns[user], "u"),
            item: id_column(columns[item], "d"),
            value: pa.array(columns[value]),
        }
    )


def _write(table: pa.Table, path, fmt: str) -> None:
    if fmt == "parquet":
        pq.write_table(table, path)
    elif fmt in ("csv", "tsv"):
        options = pcsv.WriteOptions(delimiter="\t" if fmt == "tsv" else ",")
        pcsv.write_csv(table, path, write_options=options)
    else:  # trec
        user, item, value = (table.column(i).to_pylist() for i in range(3))
        with open(path, "w") as f:
            for n, row in enumerate(zip(user, item, value, strict=True)):
                if table.schema.names[2] == "grade":
                    f.write(f"{row[0]} 0 {row[1]} {row[2]}\n")
                else:
                    f.write(f"{row[0]} Q0 {row[1]} {n + 1} {row[2]!r} tag\n")


def _files(tmp_path, fmt: str, ids: str, qrels, run) -> tuple[str, str]:
    paths = []
    for name, columns in (("qrels", qrels), ("run", run)):
        path = str(tmp_path / f"{name}-{ids}.{fmt}")
        _write(_table(columns, ids), path, fmt)
        paths.append(path)
    return paths[0], paths[1]


CASES = [
    (fmt, ids)
    for fmt in ("csv", "tsv", "parquet", "trec")
    for ids in ("int", "numeric", "named")
    if not (fmt == "trec" and ids == "int")  # TREC files hold text
]


@pytest.mark.parametrize(("fmt", "ids"), CASES)
def test_every_format_and_id_type_gives_the_report_of_int64_ids(tmp_path, fmt, ids):
    qrels, run = _data()
    q, r = _files(tmp_path, fmt, ids, qrels, run)
    # trec's tie rule orders tied items by their ids' text: ids with a prefix order otherwise
    for ties in ("input", "trec") if ids != "named" else ("input",):
        expected = receval.evaluate(Qrels(**_args(qrels)), Run(**_args(run)), METRICS, ties=ties)
        report = receval.evaluate(Qrels.from_file(q), Run.from_file(r), METRICS, ties=ties)
        assert report.mean == expected.mean
        assert report.n_users == expected.n_users


def _args(columns: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    user, item, value = columns
    return {"users": columns[user], "items": columns[item], f"{value}s": columns[value]}


def test_csv_integer_ids_are_read_as_int64(tmp_path):
    qrels, run = _data()
    q, r = _files(tmp_path, "csv", "int", qrels, run)
    assert Qrels.from_file(q).to_dict() == Qrels(**_args(qrels)).to_dict()
    read = Run.from_file(r)
    assert all(type(u) is int for u in read.to_dict())
    assert read.to_dict() == Run(**_args(run)).to_dict()


FORMATS = ["csv", "tsv", "parquet", "trec"]


@pytest.mark.parametrize("q_fmt", FORMATS)
@pytest.mark.parametrize("r_fmt", FORMATS)
@pytest.mark.parametrize(("q_ids", "r_ids"), [("int", "numeric"), ("numeric", "int")])
def test_int_ids_in_one_file_match_numeric_strings_in_the_other(
    tmp_path, q_fmt, r_fmt, q_ids, r_ids
):
    qrels, run = _data(1)
    q_ids = "numeric" if q_fmt == "trec" else q_ids
    r_ids = "numeric" if r_fmt == "trec" else r_ids
    q, _ = _files(tmp_path, q_fmt, q_ids, qrels, run)
    _, r = _files(tmp_path, r_fmt, r_ids, qrels, run)
    expected = receval.evaluate(Qrels(**_args(qrels)), Run(**_args(run)), METRICS)
    report = receval.evaluate(Qrels.from_file(q), Run.from_file(r), METRICS)
    assert report.mean == expected.mean
    assert report.n_users == expected.n_users


def test_zero_padded_ids_keep_their_spelling_and_are_refused_beside_ints(tmp_path):
    # '007' is not the int 7: a CSV of zero-padded ids stays text, and against a run of
    # int ids no user matches: refused, naming both types and the cast
    path = tmp_path / "qrels.csv"
    path.write_text("user,item,grade\n007,010,1\n008,011,1\n")
    qrels = Qrels.from_file(path)
    assert qrels.to_dict() == {"007": {"010": 1}, "008": {"011": 1}}
    run = tmp_path / "run.parquet"
    pq.write_table(pa.table({"user": [7, 8], "item": [10, 11], "score": [0.5, 0.5]}), run)
    with pytest.raises(
        InputValidationError,
        match=r"none of the 2 qrels users is in the run .*the qrels' are str, the run's "
        r"int64: an integer id matches the string of its decimal digits, 7 matches '7' "
        r"but not '07'",
    ):
        receval.evaluate(qrels, Run.from_file(run), ["ndcg@10"])


def _read_ids(tmp_path, ids: list[str], encode_ids: bool = False) -> pa.ChunkedArray:
    path = tmp_path / "ids.csv"
    path.write_text("user,item,score\n" + "".join(f"{i},x,1\n" for i in ids))
    columns = ["user", "item", "score"]
    return io.read_table(path, columns, "Run", "csv", ("user", "item"), encode_ids)["user"]


ENCODED = pa.dictionary(pa.int32(), pa.large_string())


def _check_encoded(column: pa.ChunkedArray, ids: list[str]) -> None:
    """A column encoded as the file is read: one dictionary array of the distinct ids
    in order of first appearance, each row's code its id's place there."""
    assert column.type == ENCODED
    assert column.num_chunks == 1
    code = {x: c for c, x in enumerate(dict.fromkeys(ids))}
    assert column.chunk(0).dictionary.to_pylist() == list(code)
    assert column.chunk(0).indices.to_pylist() == [code[i] for i in ids]


@pytest.mark.parametrize(
    "odd", ["007", "+7", "-0", "-07", "0x7", "7.0", "1e3", " 7", "-", "9223372036854775808"]
)
def test_an_id_that_an_int_would_respell_keeps_the_column_text(tmp_path, odd):
    ids = ["1", "-12", "0", odd, "5"]
    column = _read_ids(tmp_path, ids)
    assert column.type == pa.string()
    assert column.to_pylist() == ids


@pytest.mark.parametrize("empty", ["", '""'])
def test_an_empty_id_is_refused_at_its_line(tmp_path, empty):
    # an empty field is a missing id (as pandas and polars read it), not the id "": a
    # user or a group of that name pooled the rows that had none
    path = tmp_path / "run.csv"
    path.write_text(f"user,item,score\nu1,a,1\nu2,b,2\n{empty},c,3\n")
    with pytest.raises(InputValidationError, match=r"run\.csv:4: the 'user' column has no id"):
        io.read_table(path, ["user", "item", "score"], "Run", "csv", ("user", "item"))


def test_a_respelled_id_after_many_blocks_keeps_every_id_text(tmp_path):
    # the column is cast block by block: an id of a late block that an int would
    # respell turns the blocks cast already back into their text (encoded, with
    # encode_ids, as the later blocks are)
    ids = [str(i) for i in range(-5, 300_000)] + ["00"]
    column = _read_ids(tmp_path, ids)
    assert column.num_chunks > 1
    assert column.type == pa.string()
    assert column.to_pylist() == ids
    _check_encoded(_read_ids(tmp_path, ids, encode_ids=True), ids)
    for encode_ids in (False, True):
        ints = _read_ids(tmp_path, ids[:-1], encode_ids)
        assert ints.type == pa.int64()
        assert ints.to_pylist() == list(range(-5, 300_000))


def test_string_ids_encoded_block_by_block_keep_their_codes_across_blocks(tmp_path):
    # ids seen in an early block come back in later ones (their code kept), new ids
    # take the next code; runs of a user, ids of any length, non-ASCII ids
    rng = np.random.default_rng(5)
    pool = [f"u-{i}" for i in range(500)] + ["é", "a" * 40, "字" * 9, "x,y"]
    ids = [pool[i] for i in np.repeat(rng.integers(0, len(pool), 30_000), 5).tolist()]
    path = tmp_path / "run.csv"
    pcsv.write_csv(pa.table({"user": ids, "item": ids[::-1], "score": np.arange(len(ids))}), path)
    table = io.read_table(path, ["user", "item", "score"], "Run", "csv", ("user", "item"), True)
    _check_encoded(table["user"], ids)
    _check_encoded(table["item"], ids[::-1])
    items = [f"doc-{k}" for k in range(len(ids))]
    pcsv.write_csv(pa.table({"user": ids, "item": items, "score": np.arange(len(ids))}), path)
    assert Run.from_file(path).to_dict() == Run.from_frame(pcsv.read_csv(path)).to_dict()


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.integers(-(2**63), 2**63 - 1).map(str),
            st.from_regex(r"\A[-+]?0[0-9x]{0,3}\Z"),
            st.from_regex(r"\A[a-z0-9.-]{1,6}\Z"),
        ),
        min_size=1,
        max_size=30,
    )
)
def test_csv_ids_are_int64_exactly_when_every_id_is_written_as_its_int(tmp_path_factory, ids):
    folder = tmp_path_factory.mktemp("ids")
    column, encoded = _read_ids(folder, ids), _read_ids(folder, ids, encode_ids=True)
    canonical = all(re.fullmatch(r"0|-?[1-9][0-9]*", i) and -(2**63) <= int(i) < 2**63 for i in ids)
    if canonical:
        assert column.type == encoded.type == pa.int64()
        assert column.to_pylist() == encoded.to_pylist() == [int(i) for i in ids]
    else:
        assert column.type == pa.string()
        assert column.to_pylist() == ids
        _check_encoded(encoded, ids)


@pytest.mark.parametrize("at", [0, 5, 60_000])
def test_a_row_longer_than_a_block_is_read(tmp_path, at):
    # a row holding a field of 3 MiB (at 0: the header, naming a column of 3 MiB): the
    # blocks grow to hold it
    n = 100_000
    long = "d" * (3 << 20)
    rows = [f"{i // 10},{i},0.5" + ("" if at else ",x") for i in range(n)]
    header = "user,item,score" if at else f"user,item,score,{long}"
    if at:
        rows[at] = f"{at // 10},{long},0.5"
    path = tmp_path / "run.csv"
    path.write_text(header + "\n" + "\n".join(rows) + "\n")
    table = io.read_table(path, ["user", "item", "score"], "Run", "csv", ("user", "item"))
    expected: list[object] = list(range(n))
    if at:
        expected = [str(i) for i in range(n)]
        expected[at] = long
    assert table["item"].to_pylist() == expected
    assert table["user"].to_pylist() == [i // 10 for i in range(n)]
    assert table["item"].type == (pa.string() if at else pa.int64())

"""Qrels / Run: every input source gives the same container; id encoding; exact errors."""

import bz2
import gzip
import math
import re

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given
from hypothesis import strategies as st

from receval import Qrels, Run, evaluate, split
from receval.data import _encode, _int_ids
from receval.data._encode import factorize, int_runs
from receval.data._lookup import lookup
from receval.exceptions import InputValidationError

GRADE_FIX = "; write grades as integers such as 0, 1 or 2 (is a column missing or out of order?)"
SCORE_FIX = "; write scores as decimal numbers such as 0.25 (is a column missing or out of order?)"

# ---------------------------------------------------------------- shared data
# user 1: run order 11 (grade 0), 15 (unjudged), 10 (grade 2), 12 (grade 1)
# user 2: run order 14 (unjudged), 10 (grade 1), 13 (grade 3)
# user 3: run order 10 (unjudged), 14 (grade 1); user 4 is only in the run
QRELS_INT = {1: {10: 2, 11: 0, 12: 1}, 2: {10: 1, 13: 3}, 3: {14: 1}}
RUN_INT = {
    1: {10: 0.5, 11: 0.9, 12: 0.1, 15: 0.7},
    2: {13: 0.2, 10: 0.3, 14: 0.8},
    3: {14: 0.1, 10: 0.4},
    4: {10: 0.3},
}
METRICS = ["ndcg@3", "map", "p@2", "recall@2", "mrr"]
_L3 = math.log2(3)
# computed by hand from the ranked lists above (linear gain, AP over R)
EXPECTED = {
    "ndcg@3": (1 / (2 + 1 / _L3) + (1 / _L3 + 1.5) / (3 + 1 / _L3) + 1 / _L3) / 3,
    "map": ((1 / 3 + 2 / 4) / 2 + (1 / 2 + 2 / 3) / 2 + 1 / 2) / 3,
    "p@2": (0 + 0.5 + 0.5) / 3,
    "recall@2": (0 + 0.5 + 1) / 3,
    "mrr": (1 / 3 + 1 / 2 + 1 / 2) / 3,
}


def _str_ids(data):
    return {f"u{u}": {f"d{i}": v for i, v in inner.items()} for u, inner in data.items()}


IDS = {"int": (QRELS_INT, RUN_INT), "str": (_str_ids(QRELS_INT), _str_ids(RUN_INT))}


def _as_str_keys(data):
    """What a TREC file gives back: every id is a string."""
    return {str(u): {str(i): v for i, v in inner.items()} for u, inner in data.items()}


def _ordered(data):
    """A dict of dicts as lists, so that the order of a user's items counts."""
    return {u: list(inner.items()) for u, inner in data.items()}


def _rows(data):
    return [(u, i, v) for u, inner in data.items() for i, v in inner.items()]


def _frame(data, value):
    rows = _rows(data)
    return pd.DataFrame(
        {
            "user": [r[0] for r in rows],
            "item": [r[1] for r in rows],
            value: [r[2] for r in rows],
        }
    )


SOURCES = ["dict", "pandas", "polars", "arrow", "csv", "tsv", "parquet", "trec", "trec_gz"]


def _write_trec(path, data, kind):
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "wt") as f:
        for n, (u, i, v) in enumerate(_rows(data)):
            if kind == "qrels":
                f.write(f"{u} 0 {i} {v}\n")
            else:
                f.write(f"{u}\tQ0\t{i}\t{n + 1}\t{v!r}\tmysys\n")


def _build(cls, source, data, tmp_path):
    """Build ``cls`` (Qrels or Run) from ``data`` through one input source."""
    kind = "qrels" if cls is Qrels else "run"
    value = "grade" if cls is Qrels else "score"
    if source == "dict":
        return cls.from_dict(data)
    frame = _frame(data, value)
    if source == "pandas":
        return cls.from_frame(frame)
    if source == "polars":
        return cls.from_frame(pl.from_pandas(frame))
    if source == "arrow":
        return cls.from_frame(pa.Table.from_pandas(frame, preserve_index=False))
    if source == "csv":
        path = tmp_path / f"{kind}.csv"
        frame.to_csv(path, index=False)
        return cls.from_file(path)
    if source == "tsv":
        path = tmp_path / f"{kind}.tsv"
        frame.to_csv(path, index=False, sep="\t")
        return cls.from_file(str(path))
    if source == "parquet":
        path = tmp_path / f"{kind}.parquet"
        pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), path)
        return cls.from_file(path)
    path = tmp_path / (f"{kind}.{kind}" if source == "trec" else f"{kind}.txt.gz")
    _write_trec(path, data, kind)
    return cls.from_file(path) if source == "trec_gz" else cls.from_trec(path)


def _expected_dict(data, source, ids):
    # TREC files hold strings; CSV/TSV id columns of integers (as written by their
    # digits) are read as int64, as in a Parquet file
    as_text = source.startswith("trec")
    return _as_str_keys(data) if as_text and ids == "int" else data


# ---------------------------------------------------------------- round trips
@pytest.mark.parametrize("ids", sorted(IDS))
@pytest.mark.parametrize("source", SOURCES)
def test_qrels_every_source_same_container(source, ids, tmp_path):
    data = IDS[ids][0]
    reference = Qrels.from_dict(data)
    qrels = _build(Qrels, source, data, tmp_path)
    assert qrels.to_dict() == _expected_dict(data, source, ids)
    assert (qrels.n_users, qrels.n_rows) == (3, 6)
    # same rows in the same order: the encoded arrays are identical too
    np.testing.assert_array_equal(qrels.offsets, reference.offsets)
    np.testing.assert_array_equal(qrels.items, reference.items)
    np.testing.assert_array_equal(qrels.grades, reference.grades)
    np.testing.assert_array_equal(qrels.grades_desc, reference.grades_desc)
    np.testing.assert_array_equal(qrels.offsets, [0, 3, 5, 6])
    np.testing.assert_array_equal(qrels.grades, [2, 0, 1, 1, 3, 1])


@pytest.mark.parametrize("ids", sorted(IDS))
@pytest.mark.parametrize("source", SOURCES)
def test_run_every_source_same_container(source, ids, tmp_path):
    data = IDS[ids][1]
    run = _build(Run, source, data, tmp_path)
    expected = _expected_dict(data, source, ids)
    # to_dict lists each user's items in ranked order (score descending)
    ranked = {
        u: dict(sorted(inner.items(), key=lambda kv: -kv[1])) for u, inner in expected.items()
    }
    assert _ordered(run.to_dict()) == _ordered(ranked)
    assert (run.n_users, run.n_rows) == (4, 10)
    np.testing.assert_array_equal(run.offsets, [0, 4, 7, 9, 10])
    np.testing.assert_array_equal(run.scores, [0.9, 0.7, 0.5, 0.1, 0.8, 0.3, 0.2, 0.4, 0.1, 0.3])
    assert not run.from_ranks


@pytest.mark.parametrize("ids", sorted(IDS))
@pytest.mark.parametrize("source", SOURCES)
def test_evaluate_same_for_every_source(source, ids, tmp_path):
    qrels_data, run_data = IDS[ids]
    qrels = _build(Qrels, source, qrels_data, tmp_path)
    run = _build(Run, source, run_data, tmp_path)
    report = evaluate(qrels, run, METRICS)
    assert report.mean.keys() == EXPECTED.keys()
    for metric, value in EXPECTED.items():
        assert report.mean[metric] == pytest.approx(value, abs=1e-12), metric
    assert report.n_users == 3
    assert report.n_users_missing == 0
    assert report.n_run_only_users == 1


@pytest.mark.parametrize("run_source", SOURCES)
@pytest.mark.parametrize("qrels_source", ["dict", "polars", "csv", "trec", "trec_gz"])
def test_evaluate_mixed_sources_int_and_string_ids(qrels_source, run_source, tmp_path):
    # TREC ids are strings; dict/frame/CSV ids are ints: 7 and "7" are the same id
    qrels = _build(Qrels, qrels_source, QRELS_INT, tmp_path)
    run = _build(Run, run_source, RUN_INT, tmp_path)
    report = evaluate(qrels, run, METRICS)
    for metric, value in EXPECTED.items():
        assert report.mean[metric] == pytest.approx(value, abs=1e-12), metric
    assert report.n_users_missing == 0
    assert report.n_run_only_users == 1


def test_string_qrels_int_run_match_as_strings(tmp_path):
    path = tmp_path / "qrels.txt"
    path.write_text("7 0 100 1\n7 0 200 2\n8 0 100 1\n")
    qrels = Qrels.from_trec(path)
    assert qrels.to_dict() == {"7": {"100": 1, "200": 2}, "8": {"100": 1}}
    run = Run([7, 7, 8, 9], [200, 300, 555, 100], [0.9, 0.8, 0.7, 0.6])
    report = evaluate(qrels, run, ["p@1", "recall@2", "mrr"])
    # user "7": 200 first (hit); user "8": 555 only (miss); user 9 is not in the qrels
    assert report.mean == {"p@1": 0.5, "recall@2": 0.25, "mrr": 0.5}
    assert report.n_users_missing == 0
    assert report.n_run_only_users == 1
    # and the other way round: int qrels, string run
    report = evaluate(
        Qrels([7, 7, 8], [100, 200, 100], [1, 2, 1]),
        Run(["7", "8"], ["200", "100"], [1.0, 1.0]),
        ["mrr"],
    )
    assert report.mean == {"mrr": 1.0}


def test_string_dtypes_of_frames_give_same_container():
    data = _str_ids(QRELS_INT)
    frame = _frame(data, "grade")
    reference = Qrels.from_dict(data).to_dict()
    variants = [
        frame,
        frame.astype({"user": "string[pyarrow]", "item": "string[pyarrow]"}),
        frame.astype({"user": "category", "item": "category"}),
        pl.from_pandas(frame).with_columns(pl.col("user").cast(pl.Categorical)),
        pa.table(
            {
                "user": pa.array(frame["user"], type=pa.large_string()),
                "item": pa.array(frame["item"]).dictionary_encode(),
                "grade": pa.array(frame["grade"]),
            }
        ),
    ]
    for variant in variants:
        assert Qrels.from_frame(variant).to_dict() == reference


def test_frame_custom_column_names_and_implicit_grades(tmp_path):
    frame = pd.DataFrame({"uid": [1, 1, 2], "iid": ["a", "b", "a"], "r": [2, 0, 1]})
    assert Qrels.from_frame(frame, user="uid", item="iid", grade="r").to_dict() == {
        1: {"a": 2, "b": 0},
        2: {"a": 1},
    }
    # grade=None: every listed item has grade 1
    assert Qrels.from_frame(frame, user="uid", item="iid", grade=None).to_dict() == {
        1: {"a": 1, "b": 1},
        2: {"a": 1},
    }
    assert Qrels(["u", "u"], ["a", "b"]).to_dict() == {"u": {"a": 1, "b": 1}}
    path = tmp_path / "q.csv"
    frame.to_csv(path, index=False)
    assert Qrels.from_file(path, user="uid", item="iid", grade=None).to_dict() == {
        1: {"a": 1, "b": 1},
        2: {"a": 1},
    }
    run = Run.from_frame(
        pl.DataFrame({"uid": [1, 1], "iid": ["a", "b"], "s": [0.1, 0.2]}),
        user="uid",
        item="iid",
        score="s",
    )
    assert _ordered(run.to_dict()) == {1: [("b", 0.2), ("a", 0.1)]}


def test_qrels_frames_without_a_grade_column_read_no_other_column_silently():
    # a frame's grades under another name (relevance) were left unread: every pair
    # scored as of grade 1, the user of grades 0 and 2 judged as of 1 and 1
    run = {1: {1: 1.0}, 2: {2: 1.0, 3: 0.5}}
    pairs = {"user": [1, 2, 2], "item": [1, 2, 3]}
    said = (
        "evaluate: qrels: no column 'grade' but has ['relevance'] beside user and item, "
        "which would be left unread (every pair of grade 1); pass qrels=receval.Qrels."
        "from_frame(qrels, grade='relevance') if that column holds the grades, or grade=None "
        "to give every pair grade 1."
    )
    graded = {**pairs, "relevance": [1, 0, 2]}
    for frame in (pd.DataFrame(graded), pl.DataFrame(graded), pa.table(graded)):
        with pytest.raises(InputValidationError) as info:
            evaluate(frame, run, ["mrr"])
        assert str(info.value) == said
    read = evaluate(Qrels.from_frame(pd.DataFrame(graded), grade="relevance"), run, ["mrr"])
    assert read.mean == {"mrr": 0.75}  # user 2's first relevant item at rank 2
    alone = evaluate(pd.DataFrame(pairs), run, ["mrr"])  # user and item alone: grade 1
    assert alone.mean == {"mrr": 1.0}
    assert evaluate(pd.DataFrame({**pairs, "grade": [1, 0, 2]}), run, ["mrr"]).mean == read.mean


def test_a_grade_column_labelled_by_a_number_is_named_as_the_fix_must_pass_it():
    # a pandas column labelled 0 was offered as grade='0', which names no column (and
    # grade=0 was refused: the labels were read as strings)
    run = {1: {1: 1.0}, 2: {2: 1.0, 3: 0.5}}
    frame = pd.DataFrame({"user": [1, 2, 2], "item": [1, 2, 3], 0: [1, 0, 2]})
    with pytest.raises(InputValidationError) as info:
        Qrels.from_frame(frame)
    assert str(info.value) == (
        "Qrels: no column 'grade' but has [0] beside user and item, which would be left "
        "unread (every pair of grade 1); pass grade=0 if that column holds the grades, or "
        "grade=None to give every pair grade 1."
    )
    with pytest.raises(InputValidationError) as info:
        evaluate(frame, run, ["mrr"])
    assert "; pass qrels=receval.Qrels.from_frame(qrels, grade=0) if that" in str(info.value)
    with pytest.raises(InputValidationError) as info:
        Qrels.from_frame(frame, grade="0")
    assert str(info.value).endswith(
        "the grades could be in [0]: pass grade=0 if that column holds them."
    )
    read = evaluate(Qrels.from_frame(frame, grade=0), run, ["mrr"])  # the fix runs
    assert read.mean == {"mrr": 0.75}


def test_a_splits_test_frame_with_its_time_column_is_the_pairs_of_grade_1():
    # a frame of user, item and timestamp (a split's test) was refused, its time column
    # offered as the grades; a time column is never the grades
    log = pd.DataFrame({"user": [1, 1, 1, 2, 2, 2], "item": [1, 2, 3, 1, 3, 4],
                        "timestamp": [1, 2, 3, 1, 2, 3]})  # fmt: skip
    test = split.leave_last_out(log).test
    run = {1: {3: 0.9, 4: 0.1}, 2: {2: 0.8, 4: 0.3}}
    assert list(test.columns) == ["user", "item", "timestamp"]
    assert evaluate(test, run, ["mrr"]).mean == {"mrr": 0.75}
    assert evaluate(test.rename(columns={"timestamp": "time"}), run, ["mrr"]).mean == {"mrr": 0.75}


def _write(frame: pd.DataFrame, path) -> str:
    if str(path).endswith(".parquet"):
        frame.to_parquet(path)
    else:
        frame.to_csv(path, index=False)
    return str(path)


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_qrels_files_of_user_item_and_time_are_the_pairs_of_grade_1(tmp_path, suffix):
    # a file of user, item and timestamp (a split's test written out) was refused,
    # "no column 'grade'", though the same frame read as the pairs of grade 1
    pairs = pd.DataFrame({"user": [1, 2, 2], "item": [1, 2, 3], "timestamp": [5, 6, 7]})
    run = {1: {1: 1.0}, 2: {3: 1.0, 2: 0.5}}
    for frame in (pairs, pairs.rename(columns={"timestamp": "time"}), pairs[["user", "item"]]):
        path = _write(frame, tmp_path / f"qrels{suffix}")
        assert Qrels.from_file(path).to_dict() == {1: {1: 1}, 2: {2: 1, 3: 1}}
        assert evaluate(path, run, ["mrr"]).mean == evaluate(frame, run, ["mrr"]).mean
    named = _write(pairs.rename(columns={"user": "u", "item": "i"}), tmp_path / f"n{suffix}")
    assert Qrels.from_file(named, user="u", item="i").to_dict() == {1: {1: 1}, 2: {2: 1, 3: 1}}
    graded = _write(pairs.assign(grade=[2, 0, 1]), tmp_path / f"graded{suffix}")
    assert Qrels.from_file(graded).to_dict() == {1: {1: 2}, 2: {2: 0, 3: 1}}


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_qrels_files_with_another_column_and_no_grade_are_refused_with_the_fix(tmp_path, suffix):
    # such a file was refused with no fix ("no column 'grade'. Got columns [...]")
    frame = pd.DataFrame({"user": [1, 2], "item": [1, 2], "rating": [4, 1], "time": [5, 6]})
    path = _write(frame, tmp_path / f"qrels{suffix}")
    said = (
        f"{path}: no column 'grade' but has ['rating'] beside user and item, which would be "
        f"left unread (every pair of grade 1); pass {{}}grade='rating'{{}} if that column holds "
        f"the grades, or grade=None to give every pair grade 1."
    )
    with pytest.raises(InputValidationError) as info:
        Qrels.from_file(path)
    assert str(info.value) == said.format("", "")
    with pytest.raises(InputValidationError) as info:
        evaluate(path, {1: {1: 1.0}}, ["mrr"])
    read = "qrels=receval.Qrels.from_file(path, "
    assert str(info.value) == "evaluate: qrels: " + said.format(read, ")")
    assert Qrels.from_file(path, grade="rating").to_dict() == {1: {1: 4}, 2: {2: 1}}
    assert Qrels.from_file(path, grade=None).to_dict() == {1: {1: 1}, 2: {2: 1}}
    # a grade column named, and missing: the column that could hold the grades offered
    with pytest.raises(InputValidationError) as info:
        Qrels.from_file(path, grade="relevance")
    assert str(info.value) == (
        f"{path}: no column 'relevance'. Got columns ['user', 'item', 'rating', 'time']; the "
        f"grades could be in ['rating']: pass grade='rating' if that column holds them."
    )


@pytest.mark.parametrize("grade", ["grade", None])
@pytest.mark.parametrize("columns", [["user", "item", "grade"], ["user", "item", "time"]])
def test_qrels_from_a_parquet_file_open_it_once(tmp_path, monkeypatch, grade, columns):
    # the file was opened for its schema (the grade rule), then again for its columns
    from receval.data import io

    frame = pd.DataFrame({"user": [1, 2], "item": [1, 2], "grade": [2, 1], "time": [5, 6]})
    path = _write(frame[columns], tmp_path / "qrels.parquet")
    opened = []
    reader = io.ParquetColumns

    def counted(*args):
        opened.append(args)
        return reader(*args)

    monkeypatch.setattr(io, "ParquetColumns", counted)
    graded = grade is not None and "grade" in columns
    assert Qrels.from_file(path, grade=grade).to_dict() == {1: {1: 2 if graded else 1},
                                                            2: {2: 1}}  # fmt: skip
    assert len(opened) == 1


_FRAMES = [pd.DataFrame, pl.DataFrame, pa.table]


@pytest.mark.parametrize("make", _FRAMES, ids=["pandas", "polars", "arrow"])
def test_qrels_from_frame_reads_user_item_and_time_as_the_pairs_of_grade_1(make):
    # from_frame refused the frame evaluate(frame) and from_file read as the pairs:
    # "no column 'grade' (the grade column) ...; pass grade='<column name>'"
    pairs = {"user": [1, 2, 2], "item": [1, 2, 3], "timestamp": [5, 6, 7]}
    assert Qrels.from_frame(make(pairs)).to_dict() == {1: {1: 1}, 2: {2: 1, 3: 1}}
    assert Qrels.from_frame(make({"u": [1], "i": [2]}), user="u", item="i").to_dict() == {1: {2: 1}}
    with pytest.raises(InputValidationError) as info:
        Qrels.from_frame(make({**pairs, "rating": [4, 1, 2]}))
    assert str(info.value) == (
        "Qrels: no column 'grade' but has ['rating'] beside user and item, which would be "
        "left unread (every pair of grade 1); pass grade='rating' if that column holds the "
        "grades, or grade=None to give every pair grade 1."
    )


@pytest.mark.parametrize("make", _FRAMES, ids=["pandas", "polars", "arrow"])
def test_a_named_grade_column_missing_offers_only_columns_that_could_hold_grades(tmp_path, make):
    # the ids and the time column were offered as the grades ("Got columns ['user',
    # 'item', 'timestamp']; pass grade='<column name>'")
    pairs = {"user": [1, 2], "item": [1, 2], "timestamp": [5, 6]}
    path = _write(pd.DataFrame(pairs), tmp_path / "q.csv")
    none = (
        "no column 'rel'. Got columns ['user', 'item', 'timestamp'], none of which holds "
        "grades (ids and times); pass grade='grade' (the default) to give every pair grade 1."
    )
    with pytest.raises(InputValidationError) as info:
        Qrels.from_frame(make(pairs), grade="rel")
    assert str(info.value) == "Qrels: " + none
    with pytest.raises(InputValidationError) as info:
        Qrels.from_file(path, grade="rel")
    assert str(info.value) == f"{path}: " + none
    with pytest.raises(InputValidationError) as info:
        Qrels.from_frame(make({**pairs, "rating": [4, 1]}), grade="rel")
    assert str(info.value) == (
        "Qrels: no column 'rel'. Got columns ['user', 'item', 'timestamp', 'rating']; the "
        "grades could be in ['rating']: pass grade='rating' if that column holds them."
    )


def test_file_format_argument_overrides_suffix(tmp_path):
    path = tmp_path / "qrels.data"
    path.write_text("user,item,grade\n1,5,2\n1,6,1\n")
    assert Qrels.from_file(path, file_format="csv").to_dict() == {1: {5: 2, 6: 1}}
    trec = tmp_path / "qrels.data2"
    trec.write_text("1 0 5 2\n1 0 6 1\n")
    assert Qrels.from_file(trec, file_format="trec").to_dict() == {"1": {"5": 2, "6": 1}}
    with pytest.raises(
        InputValidationError,
        match=rf"^Qrels: cannot tell the format of {re.escape(repr(str(path)))}; pass "
        r"file_format='csv', 'tsv', 'parquet' or 'trec'.$",
    ):
        Qrels.from_file(path)


def test_trec_whitespace_blank_lines_and_crlf(tmp_path):
    path = tmp_path / "qrels.txt"
    # leading/trailing whitespace, tabs, blank and whitespace-only lines, CRLF endings
    path.write_bytes(b"\n  1 0 a 2  \r\n\t\n1\t0 b\t1\r\n   \n2 0  a 0 \n\n")
    qrels = Qrels.from_trec(path)
    assert qrels.to_dict() == {"1": {"a": 2, "b": 1}, "2": {"a": 0}}
    run_path = tmp_path / "run.txt"
    run_path.write_text("\n 1 Q0 a 1 0.5 tag \n\n1 Q0 b 2 0.75 tag\t\n")
    run = Run.from_trec(run_path)
    assert _ordered(run.to_dict()) == {"1": [("b", 0.75), ("a", 0.5)]}
    assert run.name == "tag"


# ---------------------------------------------------------------- ranks
RANK_ROWS = [  # (user, item, rank), rows deliberately not in rank order
    ("u", "c", 3),
    ("v", "y", 2),
    ("u", "a", 1),
    ("v", "x", 1),
    ("u", "d", 4),
    ("u", "b", 2),
]
RANKED = {"u": ["a", "b", "c", "d"], "v": ["x", "y"]}


def _ranked_items(run):
    return {u: list(inner) for u, inner in run.to_dict().items()}


@pytest.mark.parametrize("seed", range(5))
def test_run_ranks_keep_given_order(seed, tmp_path):
    perm = np.random.default_rng(seed).permutation(len(RANK_ROWS))
    rows = [RANK_ROWS[i] for i in perm]
    users, items, ranks = (list(c) for c in zip(*rows, strict=True))
    # a score column that disagrees with the ranks: the rank column wins
    scores = [float(r) for r in ranks]
    frame = pd.DataFrame({"user": users, "item": items, "rank": ranks, "score": scores})
    runs = [
        Run(users, items, ranks=ranks),
        Run(np.array(users), np.array(items), ranks=np.array(ranks)),
        Run.from_frame(frame, rank="rank"),
        Run.from_frame(pl.from_pandas(frame), rank="rank"),
        Run.from_frame(pa.Table.from_pandas(frame), rank="rank"),
    ]
    frame.to_csv(tmp_path / "run.csv", index=False)
    frame.to_parquet(tmp_path / "run.parquet")
    runs.append(Run.from_file(tmp_path / "run.csv", rank="rank"))
    runs.append(Run.from_file(tmp_path / "run.parquet", rank="rank"))
    for run in runs:
        assert run.from_ranks
        assert _ranked_items(run) == RANKED
        # ranks are stored as negative scores
        assert run.to_dict()["u"] == {"a": -1.0, "b": -2.0, "c": -3.0, "d": -4.0}
    # with scores instead, the order is by score descending
    assert _ranked_items(Run.from_frame(frame)) == {"u": ["d", "c", "b", "a"], "v": ["y", "x"]}


def test_run_ranks_used_by_evaluate():
    run = Run(["u", "u", "u"], ["c", "a", "b"], ranks=[3, 1, 2])
    report = evaluate({"u": {"b": 1}}, run, ["mrr", "p@1", "p@2"])
    assert report.mean == {"mrr": 0.5, "p@1": 0.0, "p@2": 0.5}


def test_from_trec_orders_by_score_and_ignores_rank(tmp_path):
    path = tmp_path / "run.trec"
    # the rank column says c, b, a; the scores say a, b, c (trec_eval uses the scores)
    path.write_text(
        "q1 Q0 c 1 0.1 bm25\nq1 Q0 a 3 0.9 bm25\nq1 Q0 b 2 0.5 bm25\nq2 Q0 x 1 2 bm25\n"
    )
    run = Run.from_trec(path)
    assert _ordered(run.to_dict()) == {
        "q1": [("a", 0.9), ("b", 0.5), ("c", 0.1)],
        "q2": [("x", 2.0)],
    }
    assert not run.from_ranks
    assert run.name == "bm25"
    assert repr(run) == "Run(name='bm25', n_users=2, n_rows=4)"
    assert Run.from_trec(path, name="mine").name == "mine"
    assert Run.from_file(path).name == "bm25"
    assert Run.from_file(path, name="mine").name == "mine"
    report = evaluate({"q1": {"a": 1}}, path, ["mrr"])
    assert report.mean == {"mrr": 1.0}
    assert report.run_name == "bm25"


def test_run_names():
    assert Run.from_dict({1: {2: 0.5}}).name is None
    assert Run.from_dict({1: {2: 0.5}}, name="m").name == "m"
    assert repr(Run.from_dict({1: {2: 0.5}})) == "Run(n_users=1, n_rows=1)"
    assert repr(Qrels.from_dict({1: {2: 1}, 3: {2: 0}})) == "Qrels(n_users=2, n_rows=2)"


def test_file_run_name_defaults_to_file_name(tmp_path):
    path = tmp_path / "model_a.csv"
    path.write_text("user,item,score\n1,2,0.5\n")
    assert Run.from_file(path).name == "model_a.csv"
    assert Run.from_file(path, name="A").name == "A"


def test_inputs_are_not_mutated():
    users = np.array([2, 1, 2])
    items = np.array([5, 6, 7])
    scores = np.array([0.1, 0.9, 0.5])
    Run(users, items, scores)
    Qrels(users, items, np.array([1, 0, 2]))
    np.testing.assert_array_equal(users, [2, 1, 2])
    np.testing.assert_array_equal(items, [5, 6, 7])
    np.testing.assert_array_equal(scores, [0.1, 0.9, 0.5])


# ---------------------------------------------------------------- errors
def test_duplicate_pairs():
    dup = (
        r"has item {item} more than once. Each \(user, item\) pair must appear once; drop "
        r"duplicates first, e.g. keep the highest {value} per pair.$"
    )
    qrels_dup, run_dup = dup.replace("{value}", "grade"), dup.replace("{value}", "score")
    with pytest.raises(InputValidationError, match=r"^Qrels: user 1 " + qrels_dup.format(item="5")):
        Qrels([1, 2, 1], [5, 6, 5], [1, 2, 1])
    with pytest.raises(
        InputValidationError, match=r"^Qrels: user 'a' " + qrels_dup.format(item="'x'")
    ):
        Qrels(["b", "a", "a"], ["x", "x", "x"])
    with pytest.raises(InputValidationError, match=r"^Run: user 1 " + run_dup.format(item="5")):
        Run([1, 2, 1], [5, 6, 5], [0.1, 0.2, 0.3])
    with pytest.raises(InputValidationError, match=r"^Run: user 'u' " + run_dup.format(item="'x'")):
        Run(["u", "u", "u"], ["x", "y", "x"], ranks=[1, 2, 3])
    # a duplicate in a frame is found the same way
    frame = pl.DataFrame({"user": [3, 3], "item": [4, 4], "score": [0.5, 0.5]})
    with pytest.raises(InputValidationError, match=r"^Run: user 3 " + run_dup.format(item="4")):
        Run.from_frame(frame)


def test_duplicate_pair_in_trec_file(tmp_path):
    path = tmp_path / "run.txt"
    path.write_text("1 Q0 a 1 0.5 t\n1 Q0 a 2 0.4 t\n")
    with pytest.raises(InputValidationError) as info:
        Run.from_trec(path)
    assert str(info.value).startswith(f"{path}:2: Run: user '1' has item 'a' more than once")


def test_non_finite_scores_and_grades():
    fix = r"; drop those rows or replace the values with finite numbers first\.$"
    for bad in (np.nan, np.inf, -np.inf):
        said = rf"^Run: scores contains NaN or infinity, the first at position 1 \({bad!r}\){fix}"
        with pytest.raises(InputValidationError, match=said):
            Run([1, 2], [5, 6], [0.1, bad])
    said = r"contains NaN or infinity, the first at position 1 \(nan\)"
    with pytest.raises(InputValidationError, match=rf"^Run: ranks {said}{fix}"):
        Run([1, 2], [5, 6], ranks=[1, np.nan])
    with pytest.raises(InputValidationError, match=rf"^Qrels: grades {said}{fix}"):
        Qrels([1, 2], [5, 6], [1, np.nan])
    said = r"^Run: scores contains NaN or infinity, the first at position 0 \(nan\)"
    with pytest.raises(InputValidationError, match=said + fix):
        Run.from_frame(pd.DataFrame({"user": [1], "item": [2], "score": [np.nan]}))
    # missing values are called so, wherever they come from, not NaN
    said = r"contains 1 missing value \({}\), the first at position 1; drop or fill them first\.$"
    for scores, what in [
        ([0.5, None], "None, NA or NaN"),
        (pa.array([0.5, None]), "null"),
        (pa.chunked_array([[0.5], [None, 0.2]]), "null"),
        (pl.Series([0.5, None]), "null"),
        (pd.array([0.5, None], dtype="Float64"), "NA"),
        (pd.Series([0.5, None], dtype="double[pyarrow]"), "NA"),
        (pd.Series([1, None], dtype="Int64"), "NA"),
    ]:
        with pytest.raises(InputValidationError, match="^Run: scores " + said.format(what)):
            Run([1, 2], [5, 6], scores[:2])
        with pytest.raises(InputValidationError, match="^Qrels: grades " + said.format(what)):
            Qrels([1, 2], [5, 6], scores[:2])


def test_real_grades_are_kept_and_nan_refused():
    # any finite grade: a probability of relevance too (CatBoost's PFound and ERR)
    assert Qrels([1, 2], [5, 6], [1, 1.5]).to_dict() == {1: {5: 1}, 2: {6: 1.5}}
    got = Qrels.from_dict({"u": {"a": 0.5, "b": -2.5, "c": 2}}).to_dict()
    assert got == {"u": {"a": 0.5, "b": -2.5, "c": 2}}
    assert isinstance(got["u"]["c"], int) and isinstance(got["u"]["a"], float)
    with pytest.raises(InputValidationError, match=r"^Qrels: grades contains NaN or infinity"):
        Qrels([1, 2], [5, 6], [1, np.nan])


def test_every_reader_keeps_real_grades(tmp_path):
    users, items, grades = ["u", "u", "v"], ["a", "b", "a"], [0.25, 1.0, 0.625]
    expected = {"u": {"a": 0.25, "b": 1}, "v": {"a": 0.625}}
    frame = pd.DataFrame({"user": users, "item": items, "grade": grades})
    pq.write_table(pa.Table.from_pandas(frame), tmp_path / "q.parquet")
    frame.to_csv(tmp_path / "q.csv", index=False)
    frame.to_csv(tmp_path / "q.tsv", index=False, sep="\t")
    read = [
        Qrels(users, items, grades),
        Qrels.from_frame(frame),
        Qrels.from_frame(pl.from_pandas(frame)),
        Qrels.from_frame(pa.Table.from_pandas(frame)),
        *(Qrels.from_file(tmp_path / f"q.{x}") for x in ("parquet", "csv", "tsv")),
    ]
    for qrels in read:
        assert qrels.to_dict() == expected
    # Parquet and Arrow: an integer column too
    table = pa.table({"user": users, "item": items, "grade": pa.array([0, 1, 3], pa.int8())})
    assert Qrels.from_frame(table).to_dict() == {"u": {"a": 0, "b": 1}, "v": {"a": 3}}


def test_negative_grades_are_judged_non_relevant():
    # trec_eval's qrels.rel_level: -1 = judged, not relevant at any threshold >= 0
    qrels = Qrels([1, 1, 1], [5, 6, 7], [1, -1, -127])
    assert qrels.to_dict() == {1: {5: 1, 6: -1, 7: -127}}
    run = {1: {6: 0.9, 7: 0.8, 5: 0.7}}
    report = evaluate(qrels, run, ["p@1", "mrr", "ndcg", "map", "recall@2"])
    assert report.mean == {"p@1": 0.0, "mrr": 1 / 3, "ndcg": 0.5, "map": 1 / 3, "recall@2": 0.0}
    # rel_threshold=0: still not relevant; the user's one relevant item is found at rank 3
    assert evaluate(qrels, run, ["mrr"], rel_threshold=0).mean["mrr"] == 1 / 3
    with pytest.raises(
        InputValidationError,
        match=r"^Qrels: grades must be numeric. Got dtype <U4 with values \['high'\].$",
    ):
        Qrels([1], [2], ["high"])


def test_length_mismatch():
    with pytest.raises(
        InputValidationError,
        match=r"^Qrels: users, items and grades must have the same length. "
        r"Got lengths \[2, 2, 3\].$",
    ):
        Qrels([1, 2], [5, 6], [1, 2, 3])
    with pytest.raises(
        InputValidationError,
        match=r"^Qrels: users and items must have the same length. Got lengths \[2, 3\].$",
    ):
        Qrels([1, 2], [5, 6, 7], [1, 2])
    with pytest.raises(
        InputValidationError,
        match=r"^Run: users, items and scores must have the same length. Got lengths \[2, 2, 1\].$",
    ):
        Run([1, 2], [5, 6], [1.0])
    with pytest.raises(
        InputValidationError,
        match=r"^Run: users, items and ranks must have the same length. Got lengths \[2, 2, 1\].$",
    ):
        Run([1, 2], [5, 6], ranks=[1])
    with pytest.raises(
        InputValidationError,
        match=r"^Run: users and items must have the same length. Got lengths \[3, 2\].$",
    ):
        Run([1, 2, 3], [5, 6], [1.0, 2.0, 3.0])


def test_empty_input(tmp_path):
    for make in (
        lambda: Qrels([], [], []),
        lambda: Qrels.from_dict({}),
        lambda: Qrels.from_frame(pd.DataFrame({"user": [], "item": [], "grade": []})),
    ):
        with pytest.raises(
            InputValidationError, match=r"^Qrels: users is empty; pass at least one sample.$"
        ):
            make()
    for make in (
        lambda: Run([], [], []),
        lambda: Run([], [], ranks=[]),
        lambda: Run.from_dict({}),
        lambda: Run.from_frame(pl.DataFrame({"user": [], "item": [], "score": []})),
    ):
        with pytest.raises(
            InputValidationError, match=r"^Run: users is empty; pass at least one sample.$"
        ):
            make()
    # a user of no row is a user (pytrec_eval's {"u": {}}), even when all are
    assert (Qrels.from_dict({"u": {}}).n_users, Qrels.from_dict({"u": {}}).n_rows) == (1, 0)
    assert (Run.from_dict({"u": {}}).n_users, Run.from_dict({"u": {}}).n_rows) == (1, 0)
    # an empty file, a file of blank and comment lines, a gzipped (read by the core) and
    # a bzip2 (read by Arrow) empty file: named, with the lines expected
    empty = tmp_path / "empty.run"
    empty.write_text("")
    blank = tmp_path / "blank.run"
    blank.write_text("\n  \n# a comment\n\n")
    gz = tmp_path / "empty.run.gz"
    with gzip.open(gz, "wt"):
        pass
    bz = tmp_path / "empty.run.bz2"
    with bz2.open(bz, "wt"):
        pass
    none = "has none (it is empty, or holds only blank and '#' comment lines)."
    for path in (empty, blank, gz, bz):
        with pytest.raises(InputValidationError) as info:
            Run.from_trec(path)
        assert str(info.value) == (
            f"{path}: expected lines of at least 6 whitespace-separated fields "
            f"(user Q0 item rank score tag); the run file {none}"
        )
        with pytest.raises(InputValidationError) as info:
            Qrels.from_trec(path)
        assert str(info.value) == (
            f"{path}: expected lines of 4 whitespace-separated fields "
            f"(user iteration item grade); the qrels file {none}"
        )


def test_users_and_items_none():
    with pytest.raises(InputValidationError, match=r"^Qrels: users and items are required.$"):
        Qrels(None, [1])
    with pytest.raises(InputValidationError, match=r"^Run: users and items are required.$"):
        Run([1], None, [1.0])


def test_from_dict_wrong_shape():
    with pytest.raises(
        InputValidationError,
        match=r"^Run.from_dict: expected a mapping \{user: \{item: value\}\}. Got list.$",
    ):
        Run.from_dict([1, 2])
    with pytest.raises(
        InputValidationError,
        match=r"^Qrels.from_dict: the value of user 'u' must be a mapping "
        r"\{item: value\}. Got list.$",
    ):
        Qrels.from_dict({"u": ["a", "b"]})


@pytest.mark.parametrize(
    "frame",
    [
        pd.DataFrame({"user": [1], "item": [2], "s": [0.5]}),
        pl.DataFrame({"user": [1], "item": [2], "s": [0.5]}),
        pa.table({"user": [1], "item": [2], "s": [0.5]}),
    ],
    ids=["pandas", "polars", "arrow"],
)
def test_missing_column_in_frame(frame):
    with pytest.raises(
        InputValidationError,
        match=r"^Run: the data has no column 'score' \(the score column\). Got columns "
        r"\['user', 'item', 's'\]; pass score='<column name>'.$",
    ):
        Run.from_frame(frame)
    with pytest.raises(
        InputValidationError,
        match=r"^Qrels: no column 'grade' but has \['s'\] beside user and item, which would "
        r"be left unread \(every pair of grade 1\); pass grade='s' if that column holds the "
        r"grades, or grade=None to give every pair grade 1.$",
    ):
        Qrels.from_frame(frame)
    with pytest.raises(
        InputValidationError,
        match=r"^Qrels: the data has no column 'uid' \(the user column\). Got columns "
        r"\['user', 'item', 's'\]; pass user='<column name>'.$",
    ):
        Qrels.from_frame(frame, user="uid", grade="s")
    # naming the right column works
    assert Run.from_frame(frame, score="s").to_dict() == {1: {2: 0.5}}


def test_missing_column_lists_at_most_ten_columns():
    frame = pd.DataFrame({f"c{i}": [1] for i in range(12)})
    with pytest.raises(
        InputValidationError,
        match=r"^Qrels: the data has no column 'user' \(the user column\). Got columns "
        r"\['c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7', 'c8', 'c9', \.\.\.\]; "
        r"pass user='<column name>'.$",
    ):
        Qrels.from_frame(frame)


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_missing_column_in_file(suffix, tmp_path):
    path = tmp_path / f"run.{suffix}"
    frame = pd.DataFrame({"user": [1], "item": [2], "s": [0.5]})
    if suffix == "csv":
        frame.to_csv(path, index=False)
    else:
        frame.to_parquet(path)
    with pytest.raises(
        InputValidationError,
        match=rf"^{re.escape(str(path))}: no column 'score'. Got columns \['user', 'item', 's'\].$",
    ):
        Run.from_file(path)
    assert Run.from_file(path, score="s").to_dict() == {1: {2: 0.5}}


def test_malformed_trec_line_names_file_and_line(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 a 1\n1 0 b\n")
    with pytest.raises(
        InputValidationError,
        match=rf"^{re.escape(str(qrels))}:2: expected 4 whitespace-separated fields "
        r"\(user iteration item grade\), got 3: '1 0 b'; give every line these fields, "
        r"separated by spaces or tabs.$",
    ):
        Qrels.from_trec(qrels)
    # blank lines before the bad line still count in its number
    qrels.write_text("\n\n1 0 a 1 9\n")
    with pytest.raises(
        InputValidationError,
        match=rf"^{re.escape(str(qrels))}:3: expected 4 whitespace-separated fields "
        r"\(user iteration item grade\), got 5: '1 0 a 1 9'; give every line these fields, "
        r"separated by spaces or tabs.$",
    ):
        Qrels.from_trec(qrels)
    run = tmp_path / "run.txt.gz"
    with gzip.open(run, "wt") as f:
        f.write("1 Q0 a 1 0.5 t\n\n  \n\n1 Q0 b 2 0.4\n1 Q0 c\n")
    with pytest.raises(
        InputValidationError,
        match=rf"^{re.escape(str(run))}:5: expected at least 6 whitespace-separated fields "
        r"\(user Q0 item rank score tag\), got 5: '1 Q0 b 2 0.4'; give every line these "
        r"fields, separated by spaces or tabs.$",
    ):
        Run.from_trec(run)
    # as in trec_eval (its test/results.trunc), fields after the run tag are ignored
    extra = tmp_path / "extra.run"
    extra.write_text("1 Q0 a 1 0.5 t x y\n1 Q0 b 2 0.4 t\n\n2 Q0 c 1 0.3 t 7\n")
    read = Run.from_trec(extra)
    assert read.to_dict() == {"1": {"a": 0.5, "b": 0.4}, "2": {"c": 0.3}}
    assert read.name == "t"
    # a run file given as qrels has the wrong field count on line 1
    plain = tmp_path / "run.qrels"
    plain.write_text("1 Q0 a 1 0.5 t\n")
    with pytest.raises(InputValidationError, match=rf"^{re.escape(str(plain))}:1: expected 4"):
        Qrels.from_file(plain)


def test_non_numeric_values_in_trec_file(tmp_path):
    gz, bz = tmp_path / "run.txt.gz", tmp_path / "run.txt.bz2"  # the core reads gzip, Arrow bzip2
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 a 1\n\n1 0 b x\n")
    with pytest.raises(
        InputValidationError,
        match=rf"^{re.escape(str(qrels))}:3: the grade 'x' is not an integer; write grades as "
        r"integers such as 0, 1 or 2 \(is a column missing or out of order\?\).$",
    ):
        Qrels.from_trec(qrels)
    qrels.write_text("1 0 a 1\n1 0 b 1.5\n")
    with pytest.raises(
        InputValidationError,
        match=rf"^{re.escape(str(qrels))}:2: the grade '1.5' is not an integer; TREC qrels "
        r"hold integer grades, as trec_eval reads them: give real-valued grades "
        r"\(probabilities\) in a CSV, TSV or Parquet file.$",
    ):
        Qrels.from_trec(qrels)
    # Python's float() takes 1_0 and nan, which are no real grades of a TREC file
    for grade in ("1_0", "nan"):
        qrels.write_text(f"1 0 a {grade}\n")
        with pytest.raises(InputValidationError) as info:
            Qrels.from_trec(qrels)
        assert str(info.value) == f"{qrels}:1: the grade {grade!r} is not an integer{GRADE_FIX}."
    qrels.write_text("1 0 a 1\n\n\n1 0 b -1\n")
    assert Qrels.from_trec(qrels).to_dict() == {"1": {"a": 1, "b": -1}}
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 a 1 0.5 t\n\n1 Q0 b 2 abc t\n")
    with pytest.raises(
        InputValidationError,
        match=rf"^{re.escape(str(run))}:3: the score 'abc' is not a number; write scores as "
        r"decimal numbers such as 0.25 \(is a column missing or out of order\?\).$",
    ):
        Run.from_trec(run)
    # a score is no grade: no word of qrels grades (Python's float() takes 1_000)
    for score in ("1_000", "0.5_1", "1,5"):
        run.write_text(f"1 Q0 a 1 {score} t\n")
        with pytest.raises(InputValidationError) as info:
            Run.from_trec(run)
        assert str(info.value) == f"{run}:1: the score {score!r} is not a number{SCORE_FIX}."
    # a score that is not finite, named as the file writes it
    finite = "scores must be finite numbers."
    overflows = "overflows float64 (its magnitude is above 1.8e308)"
    for text, why in (("nan", "is not finite"), ("-inf", "is not finite"),
                      ("Infinity", "is not finite"), ("1e400", overflows),
                      ("-1.5E+999", overflows)):  # fmt: skip
        for path, opener in ((run, open), (gz, gzip.open), (bz, bz2.open)):
            with opener(path, "wt") as f:
                f.write(f"1 Q0 a 1 0.5 t\n\n1 Q0 b 2 {text} t\n")
            with pytest.raises(InputValidationError) as info:
                Run.from_trec(path)
            assert str(info.value) == f"{path}:3: the score {text!r} {why}; {finite}"
    # scientific notation and signs are numbers
    run.write_text("1 Q0 a 1 1e-3 t\n1 Q0 b 2 -2.5E+1 t\n1 Q0 c 3 +.5 t\n")
    assert _ordered(Run.from_trec(run).to_dict()) == {"1": [("c", 0.5), ("a", 0.001), ("b", -25.0)]}


def test_scores_and_ranks_exactly_one():
    with pytest.raises(
        InputValidationError, match=r"^Run: pass exactly one of scores and ranks. Got both.$"
    ):
        Run([1], [2], [0.5], ranks=[1])
    with pytest.raises(
        InputValidationError, match=r"^Run: pass exactly one of scores and ranks. Got neither.$"
    ):
        Run([1], [2])


@pytest.mark.parametrize(
    "name", ["nope.csv", "nope.tsv", "nope.parquet", "nope.run", "nope.txt.gz"]
)
def test_nonexistent_file(name, tmp_path):
    path = tmp_path / name
    message = rf"^{re.escape(str(path))}: no such file.$"
    with pytest.raises(InputValidationError, match=message):
        Run.from_file(path)
    with pytest.raises(InputValidationError, match=message):
        Qrels.from_file(str(path))
    with pytest.raises(InputValidationError, match=rf"^evaluate: qrels: {message[1:]}"):
        evaluate(path, {1: {2: 0.5}}, ["mrr"])


def test_nonexistent_trec_file(tmp_path):
    path = tmp_path / "missing.qrels"
    with pytest.raises(InputValidationError, match=rf"^{re.escape(str(path))}: no such file.$"):
        Qrels.from_trec(path)
    with pytest.raises(InputValidationError, match=rf"^{re.escape(str(path))}: no such file.$"):
        Run.from_trec(path)


def test_missing_ids():
    missing = (
        r" contains 1 missing value \(None, NaN or null\), the first at position 1; drop those "
        r"rows or fill them with an id.$"
    )
    with pytest.raises(InputValidationError, match=r"^Qrels: users" + missing) as got:
        Qrels(["a", None], ["x", "y"])
    assert got.value.row == 1
    with pytest.raises(InputValidationError, match=r"^Run: items" + missing) as got:
        Run([1, 2], [1.0, np.nan], [0.5, 0.5])
    assert got.value.row == 1
    with pytest.raises(InputValidationError, match=r"^Run: users" + missing):
        Run.from_frame(pl.DataFrame({"user": [1, None], "item": [1, 2], "score": [0.5, 0.5]}))
    with pytest.raises(InputValidationError, match=r"^Qrels: items" + missing):
        Qrels.from_frame(pa.table({"user": [1, 2], "item": ["a", None], "grade": [1, 1]}))


@pytest.mark.parametrize(
    "kind", ["object", "pandas str", "Categorical", "Categorical Series", "Arrow", "polars"]
)
def test_missing_ids_name_the_first(kind):
    ids = ["a", "b", None, "c", None]
    column = {
        "object": lambda: np.array(ids, dtype=object),
        "pandas str": lambda: pd.Series(ids, dtype="str"),
        "Categorical": lambda: pd.Categorical(ids),
        "Categorical Series": lambda: pd.Series(ids, dtype="category"),
        "Arrow": lambda: pa.chunked_array([ids[:2], ids[2:]]),
        "polars": lambda: pl.Series(ids),
    }[kind]()
    with pytest.raises(
        InputValidationError,
        match=r"^Qrels: users contains 2 missing values \(None, NaN or null\), the first at "
        r"position 2; ",
    ) as got:
        Qrels(column, ["x"] * 5)
    assert got.value.row == 2


def test_categorical_given_alone():
    """A pandas ``Categorical`` (not in a Series) is coded by its codes, as a Series of
    one is."""
    users = pd.Categorical(["b", "a", "b"], categories=["b", "a", "z"])
    run = Run(users, ["x", "y", "z"], [0.1, 0.2, 0.3])
    assert (
        run.user_ids.tolist()
        == Run(list(users), ["x", "y", "z"], [0.1, 0.2, 0.3]).user_ids.tolist()
    )
    assert run.user_ids.tolist() == ["b", "a"]


def test_missing_ids_of_a_parquet_file_name_its_row(tmp_path):
    path = str(tmp_path / "run.parquet")
    users = [f"u{i // 10}" for i in range(100)]
    users[57] = None
    table = pa.table({"user": users, "item": [i % 10 for i in range(100)], "score": [0.5] * 100})
    pq.write_table(table, path, row_group_size=20)
    with pytest.raises(
        InputValidationError,
        match=rf"^{re.escape(path)}: row 58: Run: users contains 1 missing value \(None, NaN "
        r"or null\), the first in this row; ",
    ):
        Run.from_file(path)


# ---------------------------------------------------------------- encoding
def test_lookup_int_int():
    out = lookup(np.array([3, 1, 9, 2, 3]), np.array([1, 2, 3]))
    np.testing.assert_array_equal(out, [2, 0, -1, 1, 2])
    assert out.dtype.kind == "i"  # signed: -1 marks an absent id
    # unsorted dictionary, other integer widths
    out = lookup(np.array([1, 7, 4], dtype=np.uint32), np.array([7, 1, 9], dtype=np.int16))
    np.testing.assert_array_equal(out, [1, 0, -1])
    # values above and below every dictionary entry
    np.testing.assert_array_equal(lookup(np.array([-5, 100]), np.array([0, 50])), [-1, -1])


def test_lookup_str_str():
    dictionary = np.array(["a", "b", "c"], dtype=object)
    np.testing.assert_array_equal(
        lookup(np.array(["c", "a", "z", "b"], dtype=object), dictionary), [2, 0, -1, 1]
    )
    np.testing.assert_array_equal(lookup(np.array(["b", "q"]), np.array(["q", "b"])), [1, 0])


def test_lookup_int_and_str_match_as_strings():
    np.testing.assert_array_equal(
        lookup(np.array([7, 1, 70]), np.array(["1", "7", "x"], dtype=object)), [1, 0, -1]
    )
    np.testing.assert_array_equal(
        lookup(np.array(["7", "1", "q", "07"], dtype=object), np.array([1, 7])), [1, 0, -1, -1]
    )
    np.testing.assert_array_equal(lookup(np.array(["7", "1"]), np.array([1, 7])), [1, 0])


def test_lookup_wide_int_range_and_uint64():
    # a range too wide for a direct-address table goes through a sorted search
    np.testing.assert_array_equal(
        lookup(np.array([10**9, 5, 0, -(10**12)]), np.array([0, 10**9])), [1, -1, 0, -1]
    )
    big = np.array([2**64 - 1, 3], dtype=np.uint64)
    np.testing.assert_array_equal(lookup(big, np.array([3, 4], dtype=np.uint64)), [-1, 0])
    np.testing.assert_array_equal(lookup(np.array([3, 4]), big), [1, -1])


def test_lookup_empty():
    out = lookup(np.array([], dtype=np.int64), np.array([1, 7]))
    assert out.shape == (0,) and out.dtype.kind == "i"
    np.testing.assert_array_equal(lookup(np.array([1, 2]), np.array([], dtype=np.int64)), [-1, -1])
    np.testing.assert_array_equal(lookup(np.array(["a"]), np.array([], dtype=object)), [-1])


def _check_codes(values, codes, uniques):
    values = list(values)
    # codes in order of first appearance, uniques[codes] == values
    first = list(dict.fromkeys(values))
    assert [u.item() if isinstance(u, np.generic) else u for u in uniques] == first
    np.testing.assert_array_equal(codes, [first.index(v) for v in values])
    assert codes.dtype.kind == "i"  # int32 or int64 codes


def test_factorize_dense_ints_first_appearance():
    values = [3, 7, 3, -2, 7, 0]
    codes, uniques = factorize(np.array(values), "users", "f")
    _check_codes(values, codes, uniques)
    np.testing.assert_array_equal(codes, [0, 1, 0, 2, 1, 3])
    assert uniques.dtype == np.int64


def test_factorize_wide_int_range():
    values = [10**12, 5, 10**12, -(10**15), 5]
    codes, uniques = factorize(values, "users", "f")
    np.testing.assert_array_equal(codes, [0, 1, 0, 2, 1])
    np.testing.assert_array_equal(uniques, [10**12, 5, -(10**15)])
    assert uniques.dtype == np.int64
    big = np.array([2**64 - 1, 0, 2**64 - 1], dtype=np.uint64)
    codes, uniques = factorize(big, "users", "f")
    np.testing.assert_array_equal(codes, [0, 1, 0])
    np.testing.assert_array_equal(uniques, np.array([2**64 - 1, 0], dtype=np.uint64))


_INT64 = st.integers(-(2**63), 2**63 - 1)
_EDGES = st.sampled_from([-(2**63), 2**63 - 1, -1, 0, 1, 2**62, -(2**62), 10**18])


@given(st.lists(st.one_of(_INT64, _EDGES), min_size=1, max_size=300))
def test_factorize_ints_of_any_range_as_a_dict_numbers_them(values):
    """Integer ids of any range (the core's hash of their 64 bits where the range is
    too wide for a direct-address table) are numbered in order of first appearance,
    as a dict numbers them."""
    codes, uniques = factorize(np.array(values, dtype=np.int64), "items", "f")
    _check_codes(values, codes, uniques)
    words = np.array(values, dtype=np.int64).view(np.uint64)  # the same bits, unsigned
    codes_u, uniques_u = factorize(words, "items", "f")
    np.testing.assert_array_equal(codes_u, codes)
    assert (uniques_u.astype(np.uint64).view(np.int64) == uniques).all()


def test_wide_int_ids_are_hashed_by_the_core_on_every_thread(rng, monkeypatch):
    """A long column of wide integer ids (64-bit hashes, packed pairs) is coded by the
    core's hash table (Arrow's dictionary_encode, which coded them before, takes
    seconds on packed pairs), in parallel windows, in order of first appearance; a
    run and qrels of such ids evaluate as the same ids made small."""
    calls = []
    hashed = _int_ids.hashed_ints
    monkeypatch.setattr(_int_ids, "hashed_ints", lambda v: calls.append(len(v)) or hashed(v))
    pool = rng.integers(-(2**63), 2**63 - 1, 5_000, dtype=np.int64)
    values = pool[rng.integers(0, len(pool), 300_000)]  # past the core's parallel rows
    for any_order in (False, True):
        codes, uniques = factorize(values, "items", "f", any_order=any_order)
        np.testing.assert_array_equal(uniques[codes], values)
        first = np.sort(np.unique(values, return_index=True)[1])
        np.testing.assert_array_equal(uniques, values[first])
        np.testing.assert_array_equal(codes[first], np.arange(len(first)))
    pairs = rng.integers(0, 2_000, 100_000) * 100_000 + rng.integers(0, 100_000, 100_000)
    codes, uniques = factorize(np.array(pairs, dtype=object), "items", "f")  # Python ints
    assert uniques.dtype == object and (uniques[codes] == pairs).all()
    assert calls == [300_000, 300_000, 100_000]
    small = np.searchsorted(np.sort(pool), pool)  # each id's rank: the same ids, small
    users, items = rng.integers(0, 200, 20_000), rng.integers(0, len(pool), 20_000)
    keep = np.unique(users * len(pool) + items, return_index=True)[1]
    users, items, scores = users[keep], items[keep], rng.random(len(keep))
    judged = rng.random(len(keep)) < 0.2
    metrics = ["ndcg@10", "map", "recall@20"]
    want = evaluate(
        Qrels(users[judged], small[items][judged]), Run(users, small[items], scores), metrics
    )
    got = evaluate(
        Qrels(users[judged], pool[items][judged]), Run(users, pool[items], scores), metrics
    )
    assert got.mean == want.mean


def test_wide_int_ids_of_either_byte_order_are_one_id():
    """The core hashes ids as 64-bit words in this machine's byte order: a big-endian
    array's ids are the same ids as a little-endian one's."""
    ids = np.array([2**40, 5 * 2**50, -7 * 2**55], dtype="<i8")
    big = ids[[1, 2, 0, 1]].astype(">i8")
    np.testing.assert_array_equal(lookup(big, ids), [1, 2, 0, 1])
    np.testing.assert_array_equal(lookup(ids, big[:3]), [2, 0, 1])
    codes, uniques = factorize(big, "items", "f")
    assert codes.tolist() == [0, 1, 2, 0] and uniques.tolist() == ids[[1, 2, 0]].tolist()
    run = Run([1, 1, 1], big[:3], [3.0, 2.0, 1.0])
    report = evaluate(Qrels([1, 1], ids[:2]), run, ["recall@3"])
    assert report.mean["recall@3"] == 1.0


@pytest.mark.parametrize("span", [50, 10**9])  # dense table and hash table
def test_factorize_random_ints_round_trip(span, rng):
    values = rng.integers(-span, span, 5_000)
    codes, uniques = factorize(values, "items", "f")
    np.testing.assert_array_equal(uniques[codes], values)
    _check_codes(values.tolist(), codes, uniques)


@pytest.mark.parametrize("span", [50, 10**9])  # dense table and hash table
def test_factorize_any_order_parallel_path(span, rng, monkeypatch):
    monkeypatch.setattr(_int_ids, "PARALLEL_MIN_ROWS", 0)
    values = rng.integers(-span, span, 5_000)
    codes, uniques = factorize(values, "items", "f", any_order=True)
    np.testing.assert_array_equal(uniques[codes], values)
    assert len(np.unique(uniques)) == len(uniques) == len(np.unique(values))
    assert codes.dtype.kind == "i" and codes.min() == 0 and codes.max() == len(uniques) - 1


@pytest.mark.parametrize("dtype", ["int8", "int32", "uint16", "uint64", "float64"])
def test_factorize_any_order_parallel_path_of_every_number_dtype(dtype, rng, monkeypatch):
    monkeypatch.setattr(_int_ids, "PARALLEL_MIN_ROWS", 0)
    values = rng.integers(0, 100, 300).astype(dtype)
    codes, uniques = factorize(values, "items", "f", any_order=True)
    np.testing.assert_array_equal(uniques, np.unique(values))  # ascending ids
    np.testing.assert_array_equal(uniques[codes], values)
    big = np.array([2**63 + 5, 2**63, 7, 2**63 + 5], dtype=np.uint64)  # past int64
    codes, uniques = factorize(big, "items", "f", any_order=True)
    assert uniques.dtype == np.uint64
    np.testing.assert_array_equal(uniques[codes], big)


def test_int_runs():
    offsets, ids = int_runs(np.array([5, 5, 2, 9, 9, 9]))
    np.testing.assert_array_equal(offsets, [0, 2, 3, 6])
    np.testing.assert_array_equal(ids, [5, 2, 9])
    assert int_runs(np.array([5, 2, 5])) is None  # 5 in two runs: not grouped
    assert int_runs(np.array([9, 9, 5, 2, 2, 5])) is None  # 5 in two runs
    offsets, ids = int_runs(np.array([9, 9, 5, 2, 2]))  # descending runs
    assert offsets.tolist() == [0, 2, 3, 5] and ids.tolist() == [9, 5, 2]
    big = np.array([2**64 - 1, 2**64 - 1, 3, 2**63, 2**63], dtype=np.uint64)
    offsets, ids = int_runs(big)
    assert offsets.tolist() == [0, 2, 3, 5] and ids.dtype == np.uint64
    assert ids.tolist() == [2**64 - 1, 3, 2**63]
    assert int_runs(big[[0, 2, 3, 0]]) is None
    assert int_runs(np.array(["a", "a", "b"])) is None  # strings go through factorize
    assert int_runs([1, 1, 2]) is None
    assert int_runs(np.array([7])) is None


@given(st.lists(st.one_of(st.integers(-3, 3), _EDGES), min_size=0, max_size=40))
def test_each_once_is_whether_no_id_repeats(values):
    """Ascending, descending or in any order, ids of any range: True exactly when no
    two are equal (as a set of them tells)."""
    ids = np.array(values, dtype=np.int64)
    assert _int_ids.each_once(ids) == (len(set(values)) == len(values))
    assert _int_ids.each_once(np.sort(ids)) == _int_ids.each_once(ids)
    assert _int_ids.each_once(np.sort(ids)[::-1]) == _int_ids.each_once(ids)


def test_long_compact_ids_of_free_order_are_coded_without_a_range_pass(rng, monkeypatch):
    """A long column whose codes' order is free is coded through the direct-address
    table from its first id (no pass for its smallest and largest id); a range too
    wide for the table, already among 1,024 of its ids or only beyond them (an id
    that no sampled row holds), is hashed, the codes the same either way."""
    monkeypatch.setattr(_int_ids, "PARALLEL_MIN_ROWS", 0)
    took = []
    hashed = _int_ids.hashed_ints
    monkeypatch.setattr(_int_ids, "hashed_ints", lambda v: took.append("hashed") or hashed(v))
    chunks = _int_ids.factorize_int_chunks
    monkeypatch.setattr(
        _int_ids,
        "factorize_int_chunks",
        lambda *a, **k: took.append("chunks") or chunks(*a, **k),
    )
    compact = rng.integers(-5_000, 5_000, 20_000)
    outlier = compact.copy()
    outlier[1] = 2**40  # row 1: not among the rows sampled (every 19th)
    wide = rng.integers(-(2**62), 2**62, 20_000)
    cases = ((compact, ["chunks"]), (outlier, ["chunks", "hashed"]), (wide, ["hashed"]))
    for values, path in cases:
        took.clear()
        codes, uniques = _int_ids.factorize_ints(values, any_order=True)
        assert took == path
        np.testing.assert_array_equal(uniques[codes], values)
        assert len(uniques) == len(np.unique(values))
        if path == ["chunks"]:
            np.testing.assert_array_equal(uniques, np.unique(values))  # ascending


def _shuffled(frame, rng):
    return frame.iloc[rng.permutation(len(frame))].reset_index(drop=True)


@pytest.mark.parametrize("seed", range(4))
def test_grouped_and_shuffled_rows_give_same_containers(seed, monkeypatch):
    # grouped integer users take the run-detection path, shuffled ones the encoding
    # table; both encode items in parallel here; some users have > 32 judged items;
    # the run is sorted in blocks of a few users each
    monkeypatch.setattr(_int_ids, "PARALLEL_MIN_ROWS", 0)
    rng = np.random.default_rng(seed)
    n_users = 30
    sizes = rng.integers(1, 60, n_users)
    users = np.repeat(rng.permutation(n_users) * 7 + 3, sizes)
    items = np.concatenate([rng.choice(500, k, replace=False) for k in sizes])
    grades = rng.integers(0, 4, len(users))
    scores = rng.choice([0.1, 0.5, 0.9], len(users))  # ties, ordered by the tie rule
    q = pd.DataFrame({"user": users, "item": items, "grade": grades})
    r = pd.DataFrame({"user": users, "item": (items + rng.integers(0, 2, len(items))) % 500,
                      "score": scores}).drop_duplicates(["user", "item"])  # fmt: skip
    r = r.sort_values("user", kind="stable")
    assert int_runs(q["user"].to_numpy()) is not None
    metrics = ["ndcg@10", "map", "mrr", "p@5", "recall@20", "ndcg(ideal=candidates)@5"]
    for ties in ("trec", "input"):
        grouped = evaluate(Qrels.from_frame(q), Run.from_frame(r), metrics, ties=ties)
        # shuffling changes the input order of tied items: compare under ties='trec' only
        shuffled = evaluate(
            Qrels.from_frame(_shuffled(q, rng)), Run.from_frame(_shuffled(r, rng)), metrics,
            ties="trec",
        )  # fmt: skip
        oracle_q = {u: dict(zip(g["item"], g["grade"], strict=True)) for u, g in q.groupby("user")}
        oracle_r = {u: dict(zip(g["item"], g["score"], strict=True)) for u, g in r.groupby("user")}
        by_dict = evaluate(oracle_q, oracle_r, metrics, ties=ties)
        for m in metrics:
            assert grouped.mean[m] == pytest.approx(by_dict.mean[m], abs=1e-12), m
            if ties == "trec":
                assert shuffled.mean[m] == pytest.approx(grouped.mean[m], abs=1e-12), m
    assert Qrels.from_frame(_shuffled(q, rng)).to_dict() == Qrels.from_frame(q).to_dict()


@pytest.mark.parametrize("grouped", [True, False])
@pytest.mark.parametrize("sizes", [[1, 5, 40, 300, 7], [9] * 30], ids=["uneven", "top_k"])
def test_run_order_exact_for_nearly_equal_scores(grouped, sizes):
    # keys equal in their top bits take the exact fallback; grouped integer rows
    # are reordered in place, the others through a row map; small blocks are
    # shared by two threads; lists of one length are sorted row by row
    rng = np.random.default_rng(3)
    base = np.array([0.5, np.nextafter(0.5, 1), np.nextafter(np.nextafter(0.5, 1), 1),
                     0.0, -0.0, 1e-300, -1e-300, 3.0])  # fmt: skip
    users = np.repeat(np.arange(len(sizes)) * 10, sizes)
    items = np.concatenate([rng.permutation(1000)[:k] for k in sizes])
    scores = rng.choice(base, len(users))
    order = np.arange(len(users)) if grouped else rng.permutation(len(users))
    run = Run(users[order], items[order], scores[order])
    assert (int_runs(users[order]) is not None) == grouped
    for u in np.unique(users):
        rows = order[users[order] == u]  # input rows of u, in input order
        expected = rows[np.lexsort((np.arange(len(rows)), -scores[rows]))]
        g = int(np.flatnonzero(run.user_ids == u)[0])
        a, b = run.offsets[g], run.offsets[g + 1]
        np.testing.assert_array_equal(run.item_ids[run.items[a:b]], items[expected])
        np.testing.assert_array_equal(run.scores[a:b], scores[expected])


def test_run_duplicate_found_in_any_list():
    users = np.repeat(np.arange(12), 5)
    items = np.tile(np.arange(5), 12)
    items[47] = items[46]  # user 9
    items[58] = items[55]  # user 11: only the first is reported
    with pytest.raises(InputValidationError, match=r"^Run: user 9 has item 1 more than once"):
        Run(users, items, np.linspace(0, 1, len(users)))


@pytest.mark.parametrize("with_polars", [True, False])
@pytest.mark.parametrize("ids", ["int", "str"])
def test_parquet_read_by_polars_or_pyarrow_same_containers(with_polars, ids, tmp_path, monkeypatch):
    from receval.data import io

    monkeypatch.setattr(io, "_PARQUET_WITH_POLARS", with_polars)
    rng = np.random.default_rng(5)
    users = np.repeat(np.arange(40), 6)
    items = np.concatenate([rng.choice(100, 6, replace=False) for _ in range(40)])
    scores = rng.choice([0.2, 0.5, 0.7], len(users))
    grades = rng.integers(0, 3, len(users))
    cast = str if ids == "str" else int
    frame = pd.DataFrame({"user": [cast(u) for u in users], "item": [cast(i) for i in items],
                          "score": scores, "grade": grades})  # fmt: skip
    path = tmp_path / "rows.parquet"
    frame.to_parquet(path, row_group_size=50)  # several row groups
    run = Run.from_file(path)
    qrels = Qrels.from_file(path)
    assert run.to_dict() == Run.from_frame(frame).to_dict()
    assert qrels.to_dict() == Qrels.from_frame(frame).to_dict()
    with pytest.raises(InputValidationError, match=r"no column 'grades'"):
        Qrels.from_file(path, grade="grades")
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"PAR1 not really parquet")
    with pytest.raises(InputValidationError, match=r"bad\.parquet"):
        Run.from_file(bad)


def test_duplicate_in_long_and_short_judged_lists():
    items = [*range(40), 17]
    with pytest.raises(InputValidationError, match=r"^Qrels: user 9 has item 17 more than once"):
        Qrels([9] * len(items), items)
    with pytest.raises(InputValidationError, match=r"^Qrels: user 4 has item 2 more than once"):
        Qrels([3] * 40 + [4, 4, 4], [*range(40), 1, 2, 2])


def test_factorize_floats_holding_ints_and_bools():
    codes, uniques = factorize(np.array([2.0, 1.0, 2.0]), "users", "f")
    np.testing.assert_array_equal(codes, [0, 1, 0])
    np.testing.assert_array_equal(uniques, [2, 1])
    assert uniques.dtype == np.int64
    codes, uniques = factorize([True, False, True], "users", "f")
    np.testing.assert_array_equal(codes, [0, 1, 0])
    np.testing.assert_array_equal(uniques, [1, 0])


@pytest.mark.parametrize(
    "values",
    [
        ["b", "a", "b", "c"],
        np.array(["b", "a", "b", "c"]),
        np.array(["b", "a", "b", "c"], dtype=object),
        pd.Series(["b", "a", "b", "c"]),
        pd.Series(["b", "a", "b", "c"], dtype="string[pyarrow]"),
        pl.Series(["b", "a", "b", "c"]),
        pa.array(["b", "a", "b", "c"]),
        pa.array(["b", "a", "b", "c"], type=pa.large_string()),
        pa.chunked_array([["b", "a"], ["b", "c"]]),
    ],
    ids=[
        "list",
        "numpy_unicode",
        "numpy_object",
        "pandas_object",
        "pandas_arrow",
        "polars",
        "arrow",
        "arrow_large",
        "arrow_chunked",
    ],
)
def test_factorize_strings(values):
    codes, uniques = factorize(values, "items", "f")
    np.testing.assert_array_equal(codes, [0, 1, 0, 2])
    assert [str(u) for u in uniques] == ["b", "a", "c"]


def test_factorize_int_columns_of_frames():
    for values in (pa.array([9, 5, 9]), pl.Series([9, 5, 9]), pd.Series([9, 5, 9])):
        codes, uniques = factorize(values, "users", "f")
        np.testing.assert_array_equal(codes, [0, 1, 0])
        np.testing.assert_array_equal(uniques, [9, 5])


@pytest.mark.parametrize(
    "values",
    [
        ["a", None, "b"],
        np.array(["a", None], dtype=object),
        [1.0, np.nan, 2.0],
        pd.Series(["a", None]),
        pd.Series([1, None]),
        pl.Series(["a", None]),
        pl.Series([1, None]),
        pa.array(["a", None]),
        pa.array([1, None]),
    ],
    ids=[
        "list",
        "numpy_object",
        "float_nan",
        "pandas_str",
        "pandas_int",
        "polars_str",
        "polars_int",
        "arrow_str",
        "arrow_int",
    ],
)
def test_factorize_missing_values(values):
    with pytest.raises(
        InputValidationError,
        match=r"^f: users contains 1 missing value \(None, NaN or null\), the first at position "
        r"1; drop those rows or fill them with an id.$",
    ) as got:
        factorize(values, "users", "f")
    assert got.value.row == 1


def test_factorize_infinite_and_mixed_ids():
    with pytest.raises(
        InputValidationError,
        match=r"^f: users contains infinity; ids must be integers or strings.$",
    ):
        factorize([1.0, np.inf], "users", "f")
    with pytest.raises(
        InputValidationError,
        match=r"^f: users must hold ids of one type \(numbers or strings, not both\). Got types "
        r"\['int', 'str'\]; convert them, e.g. users = users.astype\(str\).$",
    ):
        factorize(np.array([1, "a"], dtype=object), "users", "f")


def test_factorize_empty():
    codes, uniques = factorize(np.array([], dtype=np.int64), "users", "f")
    assert codes.shape == (0,) and uniques.shape == (0,)


@pytest.mark.parametrize("with_polars", [True, False])
@pytest.mark.parametrize("grouped", [True, False])
@pytest.mark.parametrize(
    "dtypes",
    [("int64", "int64", "float64"), ("int32", "uint16", "float32"), ("int64", "int64", "rank")],
    ids=["wide", "narrow", "ranks"],
)
def test_parquet_scratch_buffer_and_in_place_ranking(
    with_polars, grouped, dtypes, tmp_path, monkeypatch
):
    """Numeric columns are decoded into one reused buffer and scores are ranked in
    place: the containers equal the in-memory ones for every width, with ties,
    grouped or shuffled users, and sorts cut into many blocks."""
    from receval.data import io

    monkeypatch.setattr(io, "_PARQUET_WITH_POLARS", with_polars)
    rng = np.random.default_rng(11)
    counts = rng.integers(1, 9, 60)
    users = np.repeat(rng.permutation(60) + 7, counts)
    items = np.concatenate([rng.choice(500, c, replace=False) for c in counts])
    if not grouped:
        order = rng.permutation(len(users))
        users, items = users[order], items[order]
    user_type, item_type, value = dtypes
    frame = pd.DataFrame({"user": users.astype(user_type), "item": items.astype(item_type)})
    if value == "rank":
        frame["rank"] = rng.permutation(len(users)) + 1
        kwargs = {"rank": "rank"}
    else:
        frame["score"] = rng.choice([0.1, 0.25, 0.5, 0.75], len(users)).astype(value)
        kwargs = {}
    frame["grade"] = rng.integers(0, 4, len(users))
    path = tmp_path / "rows.parquet"
    frame.to_parquet(path, row_group_size=37)
    run = Run.from_file(path, **kwargs)
    expected = Run.from_frame(frame, **kwargs)
    assert run.to_dict() == expected.to_dict()
    np.testing.assert_array_equal(run.items, expected.items)
    np.testing.assert_array_equal(run.scores, expected.scores)
    assert Qrels.from_file(path).to_dict() == Qrels.from_frame(frame).to_dict()


@pytest.mark.parametrize("with_polars", [True, False])
def test_parquet_null_scores_and_ids_are_errors(with_polars, tmp_path, monkeypatch):
    from receval.data import io

    monkeypatch.setattr(io, "_PARQUET_WITH_POLARS", with_polars)
    path = tmp_path / "nulls.parquet"
    pq.write_table(
        pa.table({"user": [1, 1, 2], "item": [1, 2, 1], "score": [0.5, None, 0.1]}), path
    )
    where = re.escape(str(path))
    with pytest.raises(
        InputValidationError,
        match=rf"^{where}: row 2: Run: scores contains missing values \(null\), the first in "
        r"this row; drop or fill them first\.$",
    ):
        Run.from_file(path)


@given(
    st.sampled_from(["int64", "uint64", "int32", "uint8"]).flatmap(
        lambda dtype: st.lists(
            st.one_of(
                st.integers(int(np.iinfo(dtype).min), int(np.iinfo(dtype).max)),
                st.sampled_from([0, 1, 9, 10, 99, 100, -1, -9, -10, -100, 10**18, 10**19]).filter(
                    lambda v: np.iinfo(dtype).min <= v <= np.iinfo(dtype).max
                ),
            ),
            min_size=1,
            max_size=40,
            unique=True,
        ).map(lambda ids: np.array(ids, dtype=dtype))
    )
)
def test_string_order_of_integer_ids_is_that_of_their_strings(ids):
    # trec_eval breaks ties by item id as a string: "10" before "9", "-5" before "3"
    expected = np.argsort(np.asarray([str(x) for x in ids.tolist()]), kind="stable")
    np.testing.assert_array_equal(_encode.string_order(ids), expected)


@pytest.mark.parametrize("kind", ["int", "str"])
@pytest.mark.parametrize("single", [True, False])
def test_tie_keys_order_tied_lists_as_trec_keys(kind: str, single: bool) -> None:
    # 40 users, 2 of them with ties: their items are ranked among themselves only,
    # in the order trec_keys gives them; evaluate's ties follow the same order
    rng = np.random.default_rng(7)
    users = np.repeat(np.arange(40), 6)
    items = rng.choice(300, size=len(users), replace=False)
    scores = rng.random(len(users))
    scores[6:9] = 0.5  # user 1: a tie in doubles
    scores[60:62] = [0.25, 0.25 + 1e-12]  # user 10: equal in float32 only
    ids = items if kind == "int" else np.array([f"d{i}" for i in items], dtype=object)
    run = Run(users, ids, scores)
    keys = run.tie_keys(single)
    full = Run(users, ids, scores).trec_keys
    tied = run.tied_users(single)
    assert len(tied) == (2 if single else 1)
    for u in tied:
        codes = run.items[run.offsets[u] : run.offsets[u + 1]]
        assert np.array_equal(np.argsort(keys[codes]), np.argsort(full[codes]))
        assert len(np.unique(keys[codes])) == len(codes)
    qrels = Qrels(users, ids, rng.integers(0, 3, len(users)))
    report = evaluate(qrels, run, ["ndcg@3", "map", "p@1"])
    forced = Run(users, ids, scores)
    assert len(forced.trec_keys) == len(forced.item_ids)  # cached: tie_keys gives them
    assert report.mean == evaluate(qrels, forced, ["ndcg@3", "map", "p@1"]).mean


@pytest.mark.parametrize("with_polars", [True, False])
def test_parquet_string_users_stored_as_indices_read_as_dictionaries(
    with_polars, tmp_path, monkeypatch
):
    # users in runs (a run's users: few distinct ids, each in a long run) are stored as
    # dictionary indices, less than a byte a row; without polars they are read as
    # dictionary arrays, each row group with its own dictionary (a user whose rows
    # span two row groups is in both), and give the containers of the frame
    from receval.data import io

    monkeypatch.setattr(io, "_PARQUET_WITH_POLARS", with_polars)
    rng = np.random.default_rng(11)
    n_users, per_user = 150, 80
    users = np.repeat([f"u-{k}" for k in rng.permutation(n_users)], per_user)
    items = np.concatenate([rng.choice(5000, per_user, replace=False) for _ in range(n_users)])
    frame = pd.DataFrame({
        "user": users, "item": [f"doc-{i}" for i in items],
        "score": rng.random(len(users)), "grade": rng.integers(0, 3, len(users)),
    })  # fmt: skip
    path = tmp_path / "runs.parquet"
    frame.to_parquet(path, row_group_size=2500)  # a user's rows across row groups
    columns = io.ParquetColumns(str(path), ["user", "item"])
    assert columns.num_row_groups > 2
    assert columns._dictionary_indices("user")
    assert not columns._dictionary_indices("item")  # many distinct ids: written plain
    assert not columns._dictionary_indices("score")
    read = columns.read("user") if not with_polars else None
    if read is not None:
        assert pa.types.is_dictionary(read.type) and read.num_chunks == columns.num_row_groups
    run, qrels = Run.from_file(path), Qrels.from_file(path)
    assert run.to_dict() == Run.from_frame(frame).to_dict()
    assert qrels.to_dict() == Qrels.from_frame(frame).to_dict()
    assert list(run.user_ids) == list(dict.fromkeys(users))  # in order of first appearance
    # a missing user is refused as in a column read as strings, its row counted
    frame.loc[[7, 4000], "user"] = None
    frame.to_parquet(path, row_group_size=2500)
    with pytest.raises(InputValidationError, match=r"2 missing") as err:
        Run.from_file(path)
    with pytest.raises(InputValidationError) as from_frame:
        Run.from_frame(frame)
    # the frame's message, its row named in front of it (the file's 1-based row 8)
    in_file = from_frame.value.restated("in this row")
    assert str(err.value) == f"{path}: row 8: {in_file}", (str(err.value), str(in_file))


@pytest.mark.parametrize("kind", ["pandas Int64", "pandas Float64", "polars"])
def test_frames_name_a_missing_grade_or_score_missing_not_nan(kind):
    """``from_frame`` converted the column before its check: 'NaN or infinity'."""
    values = [1, None, 2]
    make = {
        "pandas Int64": lambda c: pd.DataFrame(
            {"user": ["u"] * 3, "item": ["a", "b", "c"], c: pd.array(values, dtype="Int64")}
        ),
        "pandas Float64": lambda c: pd.DataFrame(
            {"user": ["u"] * 3, "item": ["a", "b", "c"], c: pd.array(values, dtype="Float64")}
        ),
        "polars": lambda c: pl.DataFrame({"user": ["u"] * 3, "item": ["a", "b", "c"], c: values}),
    }[kind]
    what = "null" if kind == "polars" else "NA"
    for cls, column, name in ((Qrels, "grade", "grades"), (Run, "score", "scores")):
        with pytest.raises(
            InputValidationError,
            match=rf"^{cls.__name__}: {name} contains 1 missing value \({what}\), the first at "
            r"position 1; drop or fill them first.$",
        ):
            cls.from_frame(make(column))


@pytest.mark.parametrize(
    "make", [pd.DataFrame, pl.DataFrame, pa.table], ids=["pandas", "polars", "arrow"]
)
def test_a_run_frame_with_a_rank_column_and_no_score_is_ranked_by_it(make):
    """As the guide says (a frame has a score or a rank column); it was refused, naming a
    score= that evaluate does not take."""
    run = make({"user": ["u"] * 3, "item": ["c", "a", "b"], "rank": [1, 2, 3]})
    assert Run.from_frame(run).to_dict() == Run.from_frame(run, rank="rank").to_dict()
    assert evaluate({"u": {"a": 1}}, run, ["mrr"]).mean == {"mrr": 0.5}
    both = make({"user": ["u"] * 2, "item": ["a", "b"], "score": [0.1, 0.9], "rank": [1, 2]})
    assert evaluate({"u": {"a": 1}}, both, ["mrr"]).mean == {"mrr": 0.5}  # the scores


def test_one_integer_id_beyond_64_bits_is_named_alone():
    with pytest.raises(
        InputValidationError,
        match=r"^Qrels: users holds the integer id 1180591620717411303424, which no 64-bit "
        r"integer type holds; ids must be",
    ):
        Qrels.from_dict({2**70: {"a": 1}})

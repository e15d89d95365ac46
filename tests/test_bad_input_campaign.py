"""Bad input found by trying receval as a new user would: each case must raise a
receval error (never a raw library error, a MemoryError or an abort) whose message
names the argument."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import receval as rv

Y = [0, 1, 0, 1, 1, 0]
S = [0.1, 0.6, 0.3, 0.7, 0.2, 0.5]
HUGE = 10**12
DUPLICATED = pd.DataFrame([[1, "a", 0.5, 1.0], [1, "b", 0.4, 2.0]],
                          columns=["user", "item", "score", "score"])  # fmt: skip

CASES = {
    # missing values from Arrow, polars and Python
    "arrow null score": (
        lambda: rv.roc_auc_score([0, 1, 1], pa.array([0.1, None, 0.3])),
        "y_score",
    ),
    "arrow null label": (lambda: rv.log_loss(pa.array([0, None, 1]), [0.1, 0.2, 0.3]), "y_true"),
    "arrow null log_loss": (lambda: rv.log_loss([0, 1, 1], pa.array([0.1, None, 0.3])), "y_pred"),
    "polars null": (lambda: rv.roc_auc_score([0, 1, 1], pl.Series([0.1, None, 0.3])), "y_score"),
    "arrow null label accuracy": (
        lambda: rv.accuracy_score(pa.array([0, None, 1]), [0, 1, 1]),
        "y_true",
    ),
    "arrow null pred f1": (lambda: rv.f1_score([0, 1, 1], pa.array([0, None, 1])), "y_pred"),
    "None label": (lambda: rv.roc_auc_score([0, None, 1], [0.1, 0.2, 0.3]), "y_true"),
    "None label log_loss": (lambda: rv.log_loss([0, None, 1], [0.1, 0.2, 0.3]), "y_true"),
    # weights that leave nothing
    "zero weights pr curve": (
        lambda: rv.precision_recall_curve([0, 1], [0.1, 0.2], sample_weight=[0, 0]),
        "weight",
    ),
    # sizes beyond memory
    "catalog 1e30": (lambda: rv.catalog_coverage([["a"]], catalog=10**30), "catalog"),
    "n_bins": (lambda: rv.expected_calibration_error(Y, S, n_bins=HUGE), "n_bins"),
    "n_bins curve": (lambda: rv.calibration_curve(Y, S, n_bins=HUGE), "n_bins"),
    "n_resamples ci": (
        lambda: rv.roc_auc_ci(Y, S, method="bootstrap", n_resamples=HUGE),
        "n_resamples",
    ),
    "n_permutations": (
        lambda: rv.compare_predictions(
            Y, {"a": S, "b": S[::-1]}, metrics=["roc_auc"], n_permutations=HUGE
        ),
        "n_permutations",
    ),
    "n_resamples compare": (
        lambda: rv.compare_predictions(
            Y, {"a": S, "b": S[::-1]}, metrics=["roc_auc"], n_resamples=HUGE
        ),
        "n_resamples",
    ),
    "n_permutations paired": (
        lambda: rv.paired_pvalues(np.ones((5, 2)), n_permutations=HUGE),
        "paired_pvalues",
    ),
    # shapes and keywords
    "ragged lists": (lambda: rv.ndcg_at_k(["a", ["b"]], {"a"}, k=10), "recommended"),
    "unknown keyword": (lambda: rv.ndcg_at_k(["a"], {"a"}, k=1, foo=1), "ndcg_at_k() got"),
    "metrics None": (lambda: rv.evaluate({"u": {"a": 1}}, {"u": {"a": 1.0}}, None), "metrics"),
    "metrics not str": (lambda: rv.evaluate({"u": {"a": 1}}, {"u": {"a": 1.0}}, [3]), "metrics"),
    # odd types (each a raw TypeError or AttributeError before)
    "object labels 0 and 'y' auc": (
        lambda: rv.roc_auc_score(np.array([0, "y", 0, "y"], dtype=object), S[:4]),
        "roc_auc_score: y_true mixes numbers and strings, e.g. [0, 'y']",
    ),
    "object labels 0 and 'y' log_loss": (
        lambda: rv.log_loss(np.array([0, "y", 0, "y"], dtype=object), S[:4]),
        "log_loss: y_true mixes numbers and strings, e.g. [0, 'y']",
    ),
    "pandas boolean NA auc": (
        lambda: rv.roc_auc_score(pd.array([True, False, None, True], dtype="boolean"), S[:4]),
        "roc_auc_score: y_true contains 1 missing value (NA), the first at position 2",
    ),
    "pandas boolean NA log_loss": (
        lambda: rv.log_loss(pd.array([True, False, None, True], dtype="boolean"), S[:4]),
        "log_loss: y_true contains 1 missing value",
    ),
    "pandas boolean NA gauc": (
        lambda: rv.gauc_score(
            pd.array([True, False, None, True], dtype="boolean"), S[:4], groups=[1, 1, 2, 2]
        ),
        "gauc_score: y_true contains 1 missing value",
    ),
    "duplicate column names run": (
        lambda: rv.Run.from_frame(DUPLICATED),
        "Run: the data has 2 columns named 'score', so its score column is ambiguous",
    ),
    "duplicate column names evaluate": (
        lambda: rv.evaluate({1: {"a": 1}}, DUPLICATED, ["mrr"]),
        "columns named 'score'",
    ),
    "list ids": (
        lambda: rv.Run.from_frame(pa.table({"user": [[1], [2]], "item": [1, 2], "score": S[:2]})),
        "Run: users must hold ids (integers or strings). Got values of type list<item: int64>",
    ),
    # values that are not a column (a raw TypeError of len(), or a wrong length, before)
    "generator users": (
        lambda: rv.Run((u for u in "abc"), ["x", "y", "z"], S[:3]),
        "Run: users must be a column of values (a list, NumPy array, Series or Arrow array), "
        "one a row. Got a value of type generator; pass a list of them, e.g. list(users).",
    ),
    "set items": (
        lambda: rv.Qrels(["u", "u"], {"x", "y"}),
        "Qrels: items must be a column of values (a list, NumPy array, Series or Arrow "
        "array), one a row. Got a value of type set; pass a list of them, e.g. list(items).",
    ),
    "str users": (
        lambda: rv.Run("u", ["x"], [0.5]),
        "Run: users must be a column of values (a list, NumPy array, Series or Arrow array), "
        "one a row. Got a value of type str.",
    ),
    "dict sample_weight": (
        lambda: rv.log_loss([0, 1], [0.2, 0.8], sample_weight={0: 1.0, 1: 1.0}),
        "log_loss: sample_weight must be a column of values",
    ),
    "iterator groups": (
        lambda: rv.gauc_score(Y, S, groups=iter([1, 1, 1, 2, 2, 2])),
        "gauc_score: groups must be a column of values",
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_bad_input_is_a_receval_error_naming_the_argument(name):
    call, named = CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(rv.RecevalError) as info:
            call()
    assert named in str(info.value)


@pytest.mark.parametrize(
    "call",
    [
        lambda: rv.intra_list_similarity(
            [["a", "b"]], features=np.eye(2), feature_items=["a", "b"], k=2**63
        ),
        lambda: rv.catalog_coverage([["a", "b"]], catalog=3, k=2**63),
    ],
)
def test_a_k_beyond_any_list_is_the_whole_list(call):
    assert np.isfinite(call())  # no OverflowError


def test_k_beyond_int64_equals_the_whole_list():
    lists = [["a", "b"], ["a", "c"]]
    assert rv.catalog_coverage(lists, catalog=4, k=2**63) == rv.catalog_coverage(lists, catalog=4)


# ---------------------------------------------------------------- files
def _write(tmp_path, name, data: bytes):
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


FILES = {
    # name, content, reader, expected start of the message after the path
    "qrels big grade": ("q.txt", b"q1 0 d1 1\nq1 0 d2 0\nq0 0 d3 99999999999999999999\n",
                        rv.Qrels.from_file, ":3: the grade"),
    "empty score csv": ("r.csv", b"user,item,score\nu1,a,0.5\nu1,b,\n", rv.Run.from_file,
                        ":3: Run: scores contains missing values (null), the first on this line;"),
    "nan grade csv": ("q.csv", b"user,item,grade\nu1,a,1\nu1,b,1\nu2,c,\n", rv.Qrels.from_file,
                      ":4: "),
    "duplicate csv": ("d.csv", b"user,item,score\nu1,a,0.5\nu1,a,0.4\n", rv.Run.from_file,
                      ":3: Run: user 'u1' has item 'a' more than once"),
    "duplicate trec": ("d.txt", b"q1 Q0 d1 1 0.5 r\nq1 Q0 d1 2 0.4 r\n", rv.Run.from_file,
                       ":2: Run: user 'q1' has item 'd1' more than once"),
    "duplicate from_trec": ("d.txt", b"q1 Q0 d1 1 0.5 r\nq2 Q0 d1 1 1 r\nq1 Q0 d1 2 0.4 r\n",
                            rv.Run.from_trec, ":3: Run: user 'q1' has item 'd1' more than once"),
    "duplicate qrels from_trec": ("q.txt", b"q1 0 d1 1\nq1 0 d1 0\n", rv.Qrels.from_trec,
                                  ":2: Qrels: user 'q1' has item 'd1' more than once"),
    "duplicate quoted csv": ("d.csv", b'user,item,score\nu1,a,0.5\n"u1","a",0.4\n',
                             rv.Run.from_file, ":3: Run: user 'u1' has item 'a' more than once"),
    "text score tsv": ("s.tsv", b"user\titem\tscore\nu1\ta\t0.5\nu1\tb\tzz\n", rv.Run.from_file,
                       ":3: the 'score' column holds 'zz', which is not a number"),
    "empty csv": ("e.csv", b"", rv.Run.from_file,
                  ": the file is empty; a CSV file starts with a header line naming its columns."),
    "truncated gzip twice named": ("t.txt.gz", __import__("gzip").compress(
        b"".join(b"u%d Q0 a 1 0.5 r\n" % i for i in range(2000)))[:300], rv.Run.from_file,
        ": cannot be read as text: incomplete deflate stream."),
    "empty trec": ("e.txt", b"", rv.Run.from_file, ": "),
    "header not utf-8": ("h.csv", b"us\xffer,item,score\nu1,a,0.5\n", rv.Run.from_file,
                         ":1: the header is not valid UTF-8"),
    "id not utf-8": ("u.txt", b"q1 0 d1 1\nq2 0 d2 1\nq1 0 d\xff1 1\n", rv.Qrels.from_file,
                     ":3: the id b'd\\xff1' is not UTF-8 text"),
    "id not utf-8, \\r line ends": ("c.txt", b"q1 0 d1 1\rq2 0 d2 1\rq1 0 d\xff1 1\r",
                                    rv.Qrels.from_file, ":3: the id b'd\\xff1' is not UTF-8 text"),
    "user not utf-8": ("v.txt", b"q\xff1 Q0 d1 1 0.5 r\n", rv.Run.from_file,
                       ":1: the id b'q\\xff1' is not UTF-8 text"),
    "truncated gzip": ("t.txt.gz", b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03+4T", rv.Run.from_file,
                       ": "),
}  # fmt: skip


@pytest.mark.parametrize("name", list(FILES))
def test_file_errors_name_the_file_and_line(tmp_path, name):
    file, data, reader, after = FILES[name]
    path = _write(tmp_path, file, data)
    with pytest.raises(rv.InputValidationError) as info:
        reader(path)
    assert str(info.value).startswith(path + after)


# ---------------------------------------------------------------- integer scores
BIG = 2**53


@pytest.mark.parametrize(
    "call, exact",
    [
        (lambda s: rv.roc_auc_score([0, 1], s), 0.0),
        (lambda s: rv.gauc_score([0, 1], s, groups=[7, 7]), 0.0),
        (lambda s: rv.average_precision_score([0, 1], s), 0.5),
        (lambda s: rv.roc_auc_score([0, 1], s, sample_weight=[1.0, 2.0]), 0.0),
    ],
)
@pytest.mark.parametrize(
    "scores",
    [
        np.array([BIG + 1, BIG], dtype=np.int64),
        np.array([2**64 - 1, 2**64 - 2], dtype=np.uint64),
        [2**70 + 1, 2**70],  # Python ints beyond any NumPy integer
        np.array([-BIG, -BIG - 1], dtype=np.int64),
    ],
)
def test_integer_scores_beyond_2_53_are_ranked_exactly(call, exact, scores):
    """In float64 ``2**53 + 1`` and ``2**53`` are one value: a tie (0.5) that is not one."""
    assert call(scores) == exact


def test_integer_scores_within_2_53_keep_the_fast_path():
    scores = np.array([3, 1, 2, BIG], dtype=np.int64)
    assert rv.roc_auc_score([1, 0, 0, 1], scores) == rv.roc_auc_score(
        [1, 0, 0, 1], [3.0, 1, 2, BIG]
    )


def test_exact_even_integers_beyond_2_53_are_plain_floats():
    assert rv.roc_auc_score([0, 1], np.array([2**60 + 2**8, 2**60], dtype=np.int64)) == 0.0


@pytest.mark.parametrize(
    "call",
    [
        lambda s: rv.roc_curve([0, 1], s),
        lambda s: rv.precision_recall_curve([0, 1], s),
        lambda s: rv.metric("partial_auc", max_fpr=0.5).update([0, 1], s),
        lambda s: rv.metric("roc_auc").update([0, 1], s),
    ],
)
def test_integer_scores_that_float64_merges_are_refused_where_they_cannot_be_ranked(call):
    with pytest.raises(rv.InputValidationError) as info:
        call(np.array([BIG + 1, BIG], dtype=np.int64))
    assert (
        "y_score holds integers beyond 2**53 that float64 cannot tell apart, e.g. "
        "[9007199254740993]" in str(info.value)
    )


def test_a_field_longer_than_a_csv_block_is_read(tmp_path):
    blob = "x" * (3 << 20)  # 3 MiB in a column not asked for
    path = _write(
        tmp_path, "w.csv", f"user,item,score,blob\nu1,a,0.5,{blob}\nu1,b,0.4,y\n".encode()
    )
    run = rv.Run.from_file(path)
    assert run.n_rows == 2 and run.to_dict() == {"u1": {"a": 0.5, "b": 0.4}}


@pytest.mark.parametrize("ids", [["u1", "u2", "u1"], [1, 2, 1]])
def test_a_repeated_pair_in_parquet_is_named_by_its_row(tmp_path, ids):
    import pyarrow.parquet as pq

    table = pa.table({"user": ids, "item": ["a", "a", "a"], "score": [0.5, 0.4, 0.3]})
    path = str(tmp_path / "r.parquet")
    pq.write_table(table, path)
    with pytest.raises(rv.InputValidationError) as info:
        rv.Run.from_file(path)
    assert str(info.value).startswith(f"{path}: row 3: Run: user {ids[0]!r} has item 'a' more")


def test_parquet_rows_are_named_by_their_number(tmp_path):
    # the file and the row as a reader counts it (1-based), stated once: it said
    # "r.parquet: row 2: ..., the first at position 1" (the row twice, counted two ways)
    import pyarrow.parquet as pq

    table = pa.table({"user": [1, 1, 2], "item": [1, 2, 3], "score": [0.5, None, 0.1]})
    path = str(tmp_path / "r.parquet")
    pq.write_table(table, path, row_group_size=2)
    with pytest.raises(rv.InputValidationError) as info:
        rv.Run.from_file(path)
    assert str(info.value) == (
        f"{path}: row 2: Run: scores contains missing values (null), the first in this row; "
        "drop or fill them first."
    )
    # a row group after the first: the row is the file's, not the group's
    table = pa.table({"user": [1, 1, 2, 2], "item": [1, 2, 3, 4], "score": [0.5, 0.1, 0.1, None]})
    pq.write_table(table, path, row_group_size=2)
    with pytest.raises(rv.InputValidationError) as info:
        rv.Run.from_file(path)
    assert str(info.value).startswith(
        f"{path}: row 4: Run: scores contains missing values (null), the first in this row;"
    )


class PanicException(BaseException):
    """As PyO3's ``pyo3_runtime.PanicException``: a native reader's panic."""


@pytest.fixture
def panicking_polars(monkeypatch):
    import polars as pl_mod

    def panic(*args, **kwargs):
        raise PanicException("called `Result::unwrap()` on an `Err` value: OutOfSpec")

    monkeypatch.setattr(pl_mod, "scan_parquet", panic)
    monkeypatch.setattr(pl_mod, "read_parquet", panic)


def test_a_reader_panic_is_an_input_error_naming_the_file(tmp_path, panicking_polars):
    import pyarrow.parquet as pq

    path = str(tmp_path / "r.parquet")
    pq.write_table(pa.table({"user": [1, 1], "item": [1, 2], "score": [0.5, 0.4]}), path)
    with pytest.raises(rv.InputValidationError, match="cannot be read as Parquet") as info:
        rv.Run.from_file(path)
    assert str(info.value).startswith(path)


def test_the_command_line_prints_a_reader_panic_on_one_line(tmp_path, panicking_polars):
    import pyarrow.parquet as pq

    from tests.cli._helpers import invoke, make_runner

    path = str(tmp_path / "r.parquet")
    pq.write_table(pa.table({"user": [1, 1], "item": [1, 2], "score": [0.5, 0.4]}), path)
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 1 1\n")
    result = invoke(make_runner(), "rank", "--qrels", qrels, "--run", path, "-m", "mrr", code=2)
    assert result.stderr.startswith(f"error: {path}: cannot be read as Parquet")
    assert len(result.stderr.strip().splitlines()) == 1


def test_a_report_that_cannot_be_written_leaves_no_partial_file(tmp_path, monkeypatch):
    import os

    from receval.report import HTMLReport

    report = HTMLReport("t")
    target = tmp_path / "r.html"
    target.write_text("the previous report")
    real_fdopen = os.fdopen

    class FullDisk:
        def __init__(self, fd, *args, **kwargs):
            self.f = real_fdopen(fd, *args, **kwargs)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.f.close()

        def write(self, text):
            self.f.write(text[:10])
            raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fdopen", FullDisk)
    with pytest.raises(OSError, match="cannot write the report: No space left") as info:
        report.write(target)
    assert info.value.filename == str(target)
    assert target.read_text() == "the previous report"  # untouched
    assert [p.name for p in tmp_path.iterdir()] == ["r.html"]  # no temporary left


def test_a_report_is_written_whole_with_the_usual_permissions(tmp_path):
    import os
    import stat

    target = tmp_path / "r.html"
    from receval.report import HTMLReport

    HTMLReport("t").write(target)
    assert target.read_text().startswith("<!DOCTYPE html>")
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask


@pytest.mark.parametrize("command", ["rank", "compare"])
def test_the_same_run_twice_is_named_as_the_problem(tmp_path, command):
    from tests.cli._helpers import invoke, make_runner

    qrels, run = tmp_path / "q.txt", tmp_path / "a.txt"
    qrels.write_text("1 0 a 1\n1 0 b 0\n")
    run.write_text("1 Q0 a 1 0.9 m\n1 Q0 b 2 0.5 m\n")
    same = f"{tmp_path}/./a.txt"  # another spelling of the same file (a Path drops "./")
    args = [command, "--qrels", qrels, "--run", run, "--run", same, "-m", "mrr"]
    result = invoke(make_runner(), *args, code=2)
    assert result.stderr == (
        f"error: --run {str(run)!r} and --run {same!r} name the same run file; pass each "
        f"run file once.\n"
    )


@pytest.mark.parametrize("where", ["first row", "after many rows"])
def test_scan_reads_a_csv_row_longer_than_its_block(tmp_path, monkeypatch, where):
    from receval.data import scan as scan_module

    monkeypatch.setattr(scan_module, "CSV_BLOCK", 1 << 16)
    rows = [f"{i // 10},{i % 2},{(i * 7919 % 1000) / 1000},y" for i in range(3000)]
    long = "7,1,0.25," + "x" * 300_000
    rows.insert(0 if where == "first row" else 2500, long)
    path = tmp_path / "wide.csv"
    path.write_text("user,click,score,blob\n" + "\n".join(rows) + "\n")
    clicks = np.array([int(r.split(",")[1]) for r in rows])
    scores = np.array([float(r.split(",")[2]) for r in rows])
    s = rv.scan(str(path), batch_rows=700)
    assert rv.roc_auc_score(s["click"], s["score"]) == rv.roc_auc_score(clicks, scores)
    assert rv.log_loss(s["click"], s["score"]) == rv.log_loss(clicks, scores)


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_a_scan_calls_a_null_score_missing_not_nan(tmp_path, suffix):
    path = str(tmp_path / f"m.{suffix}")
    table = pa.table({"y": [0, 1, 0, 1, 1], "s": pa.array([0.1, 0.4, None, 0.8, 0.2])})
    if suffix == "csv":
        from pyarrow import csv

        csv.write_csv(table, path)  # the null an empty field
    else:
        import pyarrow.parquet as pq

        pq.write_table(table, path)
    scan = rv.scan(path, batch_rows=2)
    where = f"{path}:4" if suffix == "csv" else f"{path}: row 3"
    this = "on this line" if suffix == "csv" else "in this row"
    for call, name in ((rv.roc_auc_score, "y_score"), (rv.log_loss, "y_pred")):
        with pytest.raises(rv.InputValidationError) as info:
            call(scan["y"], scan["s"])
        assert str(info.value) == (
            f"{where}: {call.__name__}: {name} contains missing values (null), the first "
            f"{this}; drop or fill them first."
        )


def test_a_scan_states_the_files_row_not_the_batchs(tmp_path):
    import pickle

    import pyarrow.parquet as pq

    labels = [0.0, 1.0] * 5
    labels[7] = None
    path = str(tmp_path / "y.parquet")
    scores = np.linspace(0.1, 0.9, 10)
    pq.write_table(pa.table({"y": pa.array(labels, pa.float64()), "s": scores}), path)
    scan = rv.scan(path, batch_rows=3)
    with pytest.raises(rv.InputValidationError) as info:
        rv.roc_auc_score(scan["y"], scan["s"])
    assert str(info.value) == (
        f"{path}: row 8: roc_auc_score: y_true contains missing values (null), the first in "
        "this row; drop or fill them first."
    )
    assert info.value.row == 7
    # the error crosses processes (Spark's executors) with its row and what it states
    with pytest.raises(rv.InputValidationError) as info:
        rv.roc_auc_score(labels, scores)
    again = pickle.loads(pickle.dumps(info.value))
    assert (str(again), again.row) == (str(info.value), 7)
    assert str(again.moved(100)).endswith("the first at position 107; drop or fill them first.")


def test_a_nan_among_string_ids_is_missing_not_the_text_nan():
    # NumPy spells a float NaN in a list of strings 'nan': it would be an id, or a label.
    # It is refused as a None is, in one message: it was "(NaN) ...; drop or fill them
    # first" where a None was "(None, NaN or null) ...; fill them with an id"
    ids = ["a", "a", float("nan"), "b"]
    missing_id = (
        "{} contains 1 missing value (None, NaN or null), the first at position 2; drop "
        "those rows or fill them with an id."
    )
    missing_label = (
        "roc_auc_score: y_true contains 1 missing value (None, NA or NaN), the first at "
        "position 2; drop or fill them first."
    )
    for call, said in [
        (lambda g: rv.gauc_score([1, 0, 1, 0], [0.5, 0.1, 0.3, 0.2], groups=g),
         missing_id.format("gauc_score: groups")),
        (lambda g: rv.Run(g, [1, 2, 3, 4], [0.1, 0.2, 0.3, 0.4]), missing_id.format("Run: users")),
        (lambda g: rv.roc_auc_score(g, [0.1, 0.2, 0.3, 0.4], pos_label="a"), missing_label),
    ]:  # fmt: skip
        for missing in (float("nan"), np.float64("nan"), None):
            labels = [missing if i == 2 else x for i, x in enumerate(ids)]
            for given in (labels, tuple(labels)):
                with pytest.raises(rv.InputValidationError) as info:
                    call(given)
                assert str(info.value) == said
                assert info.value.row == 2
    # the text 'nan' itself is an id like any other
    assert rv.Run(["a", "nan"], [1, 2], [0.1, 0.2]).n_users == 2


@pytest.mark.parametrize(
    ("labels", "row"),
    [
        ([0.5, 1, 1, 1, 0, 0], 0),
        ([0, 1, 1, 2, 0], 3),
        ([1, 0, -1, 1], 2),
        (["a", "b", "b", "c"], 3),
    ],
)
def test_labels_that_are_not_binary_name_the_odd_row(labels, row):
    """The row of the first number label other than -1, 0 and 1 (the one to fix), not
    that of the third distinct label (a 0 after 0.5 and 1)."""
    from receval._validation import binarize_labels

    with pytest.raises(rv.InputValidationError, match="must be binary") as info:
        binarize_labels(np.array(labels), None, "f")
    assert info.value.row == row

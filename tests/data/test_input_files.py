"""Files as they come: byte-order marks, every line-end convention, compression told by
the first bytes, hive-partitioned directories, directories whose files disagree,
standard input on the command line."""

from __future__ import annotations

import bz2
import gzip
import lzma
import os

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

import receval as rv
from receval import split
from receval.data import io
from tests._fresh import fresh
from tests._pipes import pipe_of
from tests.cli._helpers import make_runner

SCORE_FIX = "; write scores as decimal numbers such as 0.25 (is a column missing or out of order?)"

RUN = (
    b"u1 Q0 a 1 0.9 r\nu1 Q0 b 2 0.5 r\nu1 Q0 d 3 0.4 r\n"
    b"u2 Q0 c 1 0.9 r\nu2 Q0 a 2 0.3 r\nu3 Q0 e 1 0.7 r\n"
)
QRELS = b"u1 0 a 1\nu1 0 c 1\nu2 0 c 1\nu2 0 a 2\nu3 0 d 1\n"
BOM = b"\xef\xbb\xbf"
METRICS = ["ndcg@10", "map", "mrr"]


def _means(qrels, run):
    report = rv.evaluate(qrels, run, METRICS)
    assert report.n_users_missing == 0 and report.n_run_only_users == 0
    return [report.mean[m] for m in METRICS]


def _zstd(data: bytes) -> bytes:
    sink = pa.BufferOutputStream()
    with pa.CompressedOutputStream(sink, "zstd") as out:
        out.write(data)
    return sink.getvalue().to_pybytes()


def _cr(data: bytes) -> bytes:
    return data.replace(b"\n", b"\r")


def _crlf(data: bytes) -> bytes:
    return data.replace(b"\n", b"\r\n")


FORMS = {
    "bom": lambda d: BOM + d,
    "crlf": _crlf,
    "cr": _cr,
    "bom cr": lambda d: BOM + _cr(d),
    "gzip": gzip.compress,
    "bz2": bz2.compress,
    "xz": lzma.compress,
    "zstd": _zstd,
    "gzip bom cr": lambda d: gzip.compress(BOM + _cr(d)),
    "xz bom crlf": lambda d: lzma.compress(BOM + _crlf(d)),
}


@pytest.mark.parametrize("form", list(FORMS))
def test_a_trec_file_in_any_form_reads_as_the_plain_file(tmp_path, form):
    plain_q, plain_r = tmp_path / "q.txt", tmp_path / "r.txt"
    plain_q.write_bytes(QRELS)
    plain_r.write_bytes(RUN)
    expected = _means(plain_q, plain_r)
    q, r = tmp_path / "q2", tmp_path / "r2"  # no suffix: the bytes tell the compression
    q.write_bytes(FORMS[form](QRELS))
    r.write_bytes(FORMS[form](RUN))
    qrels, run = rv.Qrels.from_file(q, file_format="trec"), rv.Run.from_file(r, file_format="trec")
    assert qrels.to_dict() == rv.Qrels.from_file(plain_q).to_dict()
    assert run.to_dict() == rv.Run.from_file(plain_r).to_dict()
    assert _means(qrels, run) == expected


def test_a_byte_order_mark_no_longer_hides_the_first_user(tmp_path):
    """The issue's case: the mark joined the first user's id ('\\ufeffu1')."""
    run = tmp_path / "bom.run"
    run.write_bytes(BOM + RUN)
    assert sorted(rv.Run.from_file(run, file_format="trec").to_dict()) == ["u1", "u2", "u3"]


def test_a_line_of_a_file_with_cr_line_ends_is_named(tmp_path):
    path = tmp_path / "r.txt"
    path.write_bytes(b"u1 Q0 a 1 0.9 r\ru1 Q0 b 2 x r\r")
    with pytest.raises(rv.InputValidationError) as info:
        rv.Run.from_file(path)
    assert str(info.value) == f"{path}:2: the score 'x' is not a number{SCORE_FIX}."


@pytest.mark.parametrize("form", ["bom", "crlf", "cr", "gzip", "bz2", "xz", "zstd"])
def test_a_csv_file_in_any_form_reads_as_the_plain_file(tmp_path, form):
    text = b"user,item,score\nu1,a,0.5\nu1,b,0.25\nu2,007,1.0\n"
    plain = tmp_path / "r.csv"
    plain.write_bytes(text)
    path = tmp_path / f"r2.csv.{form.replace(' ', '')}"  # a suffix the reader ignores
    path.write_bytes(FORMS[form](text))
    expected = rv.Run.from_file(plain).to_dict()
    assert rv.Run.from_file(path, file_format="csv").to_dict() == expected
    assert expected == {"u1": {"a": 0.5, "b": 0.25}, "u2": {"007": 1.0}}


@pytest.mark.parametrize("form", ["crlf", "gzip", "xz"])
def test_a_csv_file_without_a_column_is_named_with_the_columns_it_has(tmp_path, form):
    # the file is opened once to read; only a column it lacks opens it again, to
    # name the columns of its header
    path = tmp_path / "r.csv"
    path.write_bytes(FORMS[form](b"user,item,grade\nu1,a,1\n"))
    with pytest.raises(rv.InputValidationError) as info:
        rv.Run.from_file(path, file_format="csv")
    assert str(info.value) == (f"{path}: no column 'score'. Got columns ['user', 'item', 'grade'].")


@pytest.mark.parametrize(
    ("reader", "line", "kind", "fmt"),
    [
        (rv.Qrels.from_file, "u1 0 a 1", "qrels", "csv"),
        (rv.Run.from_file, "u1 Q0 a 1 0.9 bm25", "run", "csv"),
        (rv.Qrels.from_file, "u1\t0\ta\t1", "qrels", "tsv"),
    ],
)
def test_a_trec_file_read_as_a_table_is_named_a_trec_file(tmp_path, reader, line, kind, fmt):
    # it said "no column 'user'. Got columns ['u1 0 a 1']." (the CLI: name one of them
    # with --user), where the file is a TREC file
    path = tmp_path / "x.trec"
    path.write_text(f"{line}\n{line}\n")
    with pytest.raises(rv.InputValidationError) as info:
        reader(path, file_format=fmt)
    n = len(line.split())
    assert str(info.value).endswith(
        f"; its first line, {line!r}, looks like a line of a TREC {kind} file ({n} fields "
        f"separated by whitespace), so pass file_format='trec'."
    )
    from receval.cli import app

    qrels, run = tmp_path / "q.trec", tmp_path / "r.trec"
    qrels.write_text("u1 0 a 1\n")
    run.write_text("u1 Q0 a 1 0.9 bm25\n")
    if kind == "qrels":
        args = ["--qrels", path, "--qrels-format", fmt, "--run", run]
    else:
        args = ["--qrels", qrels, "--run", path, "--run-format", fmt]
    stderr = make_runner().invoke(app, ["rank", *map(str, args), "-m", "mrr"]).stderr
    assert stderr.startswith(f"error: {path}: no column 'user' (--user user). Got columns ")
    assert stderr.endswith(f"so pass --{kind}-format trec.\n")


CSV_RUN = "user,item,score\nu1,a,0.5\n"
CSV_QRELS = "user,item,grade\nu1,a,1\n"
RUN_FIELDS = "at least 6 whitespace-separated fields (user Q0 item rank score tag)"
QRELS_FIELDS = "4 whitespace-separated fields (user iteration item grade)"


@pytest.mark.parametrize(
    ("reader", "text", "fields"),
    [(rv.Run.from_file, CSV_RUN, RUN_FIELDS), (rv.Qrels.from_file, CSV_QRELS, QRELS_FIELDS),
     (rv.Run.from_file, "user, item, score\nu1, a, 0.5\n", RUN_FIELDS)],
)  # fmt: skip
def test_a_csv_file_read_as_trec_is_named_a_csv_file(tmp_path, reader, text, fields):
    # it said "give every line these fields, separated by spaces or tabs"
    path = tmp_path / "x"
    path.write_text(text)
    with pytest.raises(rv.InputValidationError) as info:
        reader(path, file_format="trec")
    line = text.splitlines()[0]
    assert str(info.value) == (
        f"{path}:1: expected {fields}, got {len(line.split())}: {line!r}; it looks like a "
        f"line of a CSV file (3 fields separated by commas), so pass file_format='csv'."
    )
    # the TREC reader, which reads no CSV, names no format to pass
    with pytest.raises(rv.InputValidationError) as info:
        (rv.Run if reader == rv.Run.from_file else rv.Qrels).from_trec(path)
    assert str(info.value).endswith(
        "(3 fields separated by commas), not TREC text: give every line these fields, "
        "separated by spaces or tabs."
    )


def test_a_trec_line_with_a_comma_in_an_id_is_no_csv_line(tmp_path):
    path = tmp_path / "x"
    path.write_text("u1 Q0 a,b 1 0.5\n")
    with pytest.raises(rv.InputValidationError) as info:
        rv.Run.from_file(path, file_format="trec")
    assert str(info.value).endswith(
        "got 5: 'u1 Q0 a,b 1 0.5'; give every line these fields, separated by spaces or tabs."
    )


@pytest.mark.parametrize("kind", ["qrels", "run", "stdin"])
def test_a_csv_file_read_as_trec_by_the_command_names_its_format_option(tmp_path, kind):
    # a file without a suffix (or standard input) is TREC to the commands
    from receval.cli import app

    qrels, run = tmp_path / "q.trec", tmp_path / "r.trec"
    qrels.write_text("u1 0 a 1\n")
    run.write_text("u1 Q0 a 1 0.9 bm25\n")
    text = CSV_QRELS if kind == "qrels" else CSV_RUN
    csv = tmp_path / "x"
    csv.write_text(text)
    files = {"qrels": qrels, "run": run, kind: csv}
    given = "-" if kind == "stdin" else files["run"]
    argv = ["rank", "--qrels", str(files["qrels"]), "--run", str(given), "-m", "mrr"]
    result = make_runner().invoke(app, argv, input=text if kind == "stdin" else None)
    assert result.exit_code == 2 and result.stdout == ""
    named = "<stdin>" if kind == "stdin" else csv
    fields, option = (
        (QRELS_FIELDS, "--qrels-format") if kind == "qrels" else (RUN_FIELDS, "--run-format")
    )
    assert result.stderr == (
        f"error: {named}:1: expected {fields}, got 1: {text.splitlines()[0]!r}; it looks like "
        f"a line of a CSV file (3 fields separated by commas), so pass {option} csv.\n"
    )


@pytest.mark.parametrize("option", ["--exclude", "--train"])
def test_a_csv_log_read_as_trec_is_to_be_named_csv(tmp_path, option):
    # the format of --exclude and --train comes from the suffix: no --input-format
    from receval.cli import app

    qrels, run, log = tmp_path / "q.trec", tmp_path / "r.trec", tmp_path / "seen"
    qrels.write_text("u1 0 a 1\n")
    run.write_text("u1 Q0 a 1 0.9 bm25\n")
    log.write_text(CSV_QRELS)
    argv = ["rank", "--qrels", str(qrels), "--run", str(run), option, str(log), "-m", "mrr"]
    result = make_runner().invoke(app, argv)
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == (
        f"error: {log}:1: expected {QRELS_FIELDS}, got 1: 'user,item,grade'; it looks like a "
        f"line of a CSV file (3 fields separated by commas), so name the file .csv.\n"
    )


def test_a_parquet_log_read_as_trec_is_to_be_named_parquet(tmp_path):
    # it said "pass --input-format parquet", an option receval rank does not have
    from receval.cli import app

    qrels, run, log = tmp_path / "q.trec", tmp_path / "r.trec", tmp_path / "seen"
    qrels.write_text("u1 0 a 1\n")
    run.write_text("u1 Q0 a 1 0.9 bm25\n")
    pq.write_table(pa.table({"user": ["u1"], "item": ["a"]}), log)
    argv = ["rank", "--qrels", str(qrels), "--run", str(run), "--exclude", str(log)]
    result = make_runner().invoke(app, argv)
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == (
        f"error: {log}: the file is Parquet (it starts with 'PAR1'), not TREC text; name the "
        f"file .parquet.\n"
    )


@pytest.mark.parametrize(
    ("name", "text", "fix"),
    [
        ("x.csv", "user,item,score\nu1,a,0.5\n",
         "; drop file_format='parquet' or pass file_format='csv'"),
        ("x", "user,item,score\nu1,a,0.5\n", "; pass file_format='csv' (or name the file .csv)"),
        ("x.parquet", "user\titem\tscore\nu1\ta\t0.5\n",
         "; pass file_format='tsv' (or name the file .tsv)"),
        ("x", "user item score\n", ""),
    ],
)  # fmt: skip
def test_a_file_read_as_parquet_that_is_not_is_named_so(tmp_path, name, text, fix):
    # Arrow's "Parquet magic bytes not found in footer. Either the file is corrupted or
    # this is not a parquet file." came through, with no fix
    path = tmp_path / name
    path.write_text(text)
    said = f"{path}: the file is not Parquet (it does not end with the bytes 'PAR1'){fix}."
    for read in (
        lambda: rv.Run.from_file(path, file_format="parquet"),
        lambda: io.read_table(path, ["user"], "f", "parquet"),
        lambda: rv.scan(path, file_format="parquet"),
    ):
        with pytest.raises(rv.InputValidationError) as info:
            read()
        assert str(info.value) == said


def test_a_parquet_file_cut_short_is_named_so(tmp_path):
    path = tmp_path / "x.parquet"
    pq.write_table(pa.table({"user": ["u1"], "item": ["a"], "score": [0.5]}), path)
    path.write_bytes(path.read_bytes()[:-8])
    with pytest.raises(rv.InputValidationError) as info:
        rv.Run.from_file(path)
    assert str(info.value) == (
        f"{path}: the file begins as Parquet but does not end as one (no 'PAR1' at its end): "
        f"it is cut short or corrupt; write it again."
    )


@pytest.mark.parametrize("suffix", [".gz", ".bz2", ".xz", ".zst"])
def test_the_format_is_told_past_a_compression_suffix(suffix):
    from receval.data.io import infer_format

    assert infer_format(f"run.csv{suffix}") == "csv"
    assert infer_format(f"RUN.TXT{suffix}") == "trec"


@pytest.mark.parametrize("form", ["gzip", "bz2", "xz", "zstd"])
def test_a_compressed_csv_is_scanned(tmp_path, form):
    rows = [f"{i // 3},{i % 2},{(i * 37 % 100) / 100}" for i in range(60)]
    text = ("user,click,score\n" + "\n".join(rows) + "\n").encode()
    path = tmp_path / "log.csv"
    path.write_bytes(FORMS[form](text))
    clicks = [int(r.split(",")[1]) for r in rows]
    scores = [float(r.split(",")[2]) for r in rows]
    s = rv.scan(str(path))
    assert rv.roc_auc_score(s["click"], s["score"]) == rv.roc_auc_score(clicks, scores)


def test_a_truncated_bz2_file_is_an_error_naming_it(tmp_path):
    path = tmp_path / "r.txt"
    path.write_bytes(bz2.compress(RUN)[:30])
    with pytest.raises(rv.InputValidationError) as info:
        rv.Run.from_file(path)
    assert str(info.value) == f"{path}: cannot be read as text: Truncated compressed stream."


# ---------------------------------------------------------------- scanned directories
IMPRESSIONS = pa.table(
    {
        "user": [1, 1, 1, 2, 2, 2, 3, 3],
        "item": ["a", "b", "c", "a", "b", "c", "a", "d"],
        "click": [1, 0, 0, 0, 1, 1, 1, 0],
        "score": [0.9, 0.3, 0.5, 0.6, 0.4, 0.8, 0.2, 0.7],
    }
)


def test_hive_partitions_are_read_as_columns(tmp_path):
    """``user=1/part.parquet``: the user ids are in the directories' names only."""
    root = tmp_path / "hive"
    ds.write_dataset(IMPRESSIONS, root, format="parquet", partitioning=["user"],
                     partitioning_flavor="hive")  # fmt: skip
    assert sorted(os.listdir(root)) == ["user=1", "user=2", "user=3"]
    s = rv.scan(str(root))
    assert set(s.columns) == {"user", "item", "click", "score"}
    t = IMPRESSIONS
    expected = rv.gauc_score(t["click"], t["score"], groups=t["user"])
    assert rv.gauc_score(s["click"], s["score"], groups=s["user"]) == expected
    assert rv.roc_auc_score(s["click"], s["score"]) == rv.roc_auc_score(t["click"], t["score"])
    qrels = {1: {"a": 1}, 2: {"b": 1, "c": 1}, 3: {"d": 1}}
    from_scan = rv.evaluate(qrels, s.as_run(), ["ndcg@10", "mrr"])
    in_memory = rv.evaluate(qrels, rv.Run.from_frame(t), ["ndcg@10", "mrr"])
    assert from_scan.mean["ndcg@10"] == in_memory.mean["ndcg@10"]
    assert from_scan.mean["mrr"] == in_memory.mean["mrr"]


@pytest.mark.parametrize(
    "dirs",
    [
        ["a=1", "a=2"], ["a=-3", "a=70"], ["a=1", "a=b"], ["a=1.5", "a=2"], ["a=+3", "a=4"],
        ["a=", "a=3"], ["a=__HIVE_DEFAULT_PARTITION__", "a=3"],
        ["a=x%20y", "a=z"], ["a=1/b=x", "a=2/b=y"], ["a=1/plain", "a=2/plain"],
    ],
)  # fmt: skip
def test_hive_keys_are_read_as_pyarrow_dataset_reads_them(tmp_path, dirs):
    # the keys' types (int32 when every value is a 32-bit integer in its one decimal
    # form, else string), values (URI-decoded; Hive's default partition a null) and
    # order, as pyarrow.dataset gives them, read without it (it imports pandas)
    table = pa.table({"x": [1, 2]})
    files = []
    for k, d in enumerate(dirs):
        (tmp_path / d).mkdir(parents=True)
        files.append(str(tmp_path / d / f"f{k}.parquet"))
        pq.write_table(table, files[-1])
    files.sort()  # as a scan of a directory reads them
    want = ds.dataset(
        files, format="parquet", partitioning="hive", partition_base_dir=str(tmp_path)
    )
    s = rv.scan(str(tmp_path))
    names = want.schema.names
    assert s.columns == names
    assert [s.column_type(c) for c in names] == [want.schema.field(c).type for c in names]
    got = [b for b in s.batches(names)]

    def values(column):  # numbers come as NumPy, a null as NaN
        listed = column.tolist() if isinstance(column, np.ndarray) else column.to_pylist()
        return [None if v != v else v for v in listed]

    assert {c: [v for b in got for v in values(b[c])] for c in names} == (
        want.to_table().to_pydict()
    )


@pytest.mark.parametrize(
    ("dirs", "kind", "want"),
    [
        (["a=007", "a=7"], pa.string(), ["007", "7"]),  # pyarrow.dataset: one 7
        (["a=-3", "a=007"], pa.string(), ["-3", "007"]),
        (["a=-0", "a=0"], pa.string(), ["-0", "0"]),
        (["a=1", "a=99999999999"], pa.int64(), [1, 99999999999]),  # pyarrow.dataset: text
        (["a=-9223372036854775808", "a=1"], pa.int64(), [-(2**63), 1]),
        (["a=1", "a=9223372036854775808"], pa.string(), ["1", "9223372036854775808"]),
        (["a=-2147483648", "a=2147483647"], pa.int32(), [-(2**31), 2**31 - 1]),
    ],
)
def test_hive_keys_keep_every_value_as_written(tmp_path, dirs, kind, want):
    """No two directories' keys merge and no integer changes: a key is integers only
    when every value is written in its one decimal form, int64 past int32."""
    for k, d in enumerate(dirs):
        (tmp_path / d).mkdir()
        pq.write_table(pa.table({"x": [k]}), tmp_path / d / "f.parquet")
    s = rv.scan(str(tmp_path))
    assert s.column_type("a") == kind
    got = [v for b in s.batches(["a"]) for v in np.asarray(b["a"]).tolist()]
    assert got == want
    log = split.temporal(str(tmp_path), 1, user="a", item=None, time="x")
    assert log.train["a"].to_pylist() == want[:1] and log.test["a"].to_pylist() == want[1:]
    assert log.n_train_users == 1 and log.n_test_users == 1


def test_a_directory_key_that_is_also_a_column_is_refused(tmp_path):
    for a in (1, 2):
        (tmp_path / f"a={a}").mkdir()
        pq.write_table(pa.table({"a": [5, 6], "x": [1, 2]}), tmp_path / f"a={a}" / "f.parquet")
    with pytest.raises(rv.InputValidationError, match="'a' is both a column of the file and"):
        rv.scan(str(tmp_path))


def test_a_scan_of_hive_partitions_loads_no_pandas(tmp_path):
    for user in (1, 2):
        (tmp_path / f"user={user}").mkdir()
        part = IMPRESSIONS.filter(pc.equal(IMPRESSIONS["user"], user)).drop_columns(["user"])
        pq.write_table(part, tmp_path / f"user={user}" / "part.parquet")
    code = (
        "import receval as rv\n"
        "s = rv.scan('.')\n"
        "print(rv.gauc_score(s['click'], s['score'], groups=s['user']), s.column_type('user'))\n"
    )
    printed, modules = fresh(code, tmp_path)
    t = IMPRESSIONS.filter(pc.less_equal(IMPRESSIONS["user"], 2))
    assert printed == [repr(rv.gauc_score(t["click"], t["score"], groups=t["user"])), "int32"]
    assert "pyarrow" in modules and "pandas" not in modules


def test_hive_partitions_written_by_pyarrow_parquet(tmp_path):
    root = tmp_path / "hive"
    pq.write_to_dataset(IMPRESSIONS, root, partition_cols=["user"])
    s = rv.scan(str(root))
    t = IMPRESSIONS
    expected = rv.gauc_score(t["click"], t["score"], groups=t["user"])
    assert rv.gauc_score(s["click"], s["score"], groups=s["user"]) == expected


def test_files_in_subdirectories_that_are_not_partitions_are_not_left_out(tmp_path):
    root = tmp_path / "parts"
    (root / "2024").mkdir(parents=True)
    pq.write_table(IMPRESSIONS.slice(0, 3), root / "a.parquet")
    pq.write_table(IMPRESSIONS.slice(3), root / "2024" / "b.parquet")
    with pytest.raises(rv.InputValidationError) as info:
        rv.scan(str(root))
    assert str(info.value).startswith(
        f"{root}: holds Parquet files in subdirectories that are not key=value partitions, "
        f"e.g. {root / '2024' / 'b.parquet'};"
    )


def _two_files(tmp_path, second):
    root = tmp_path / "parts"
    root.mkdir()
    pq.write_table(IMPRESSIONS.slice(0, 3), root / "a.parquet")
    pq.write_table(second, root / "b.parquet")
    return rv.scan(str(root)), str(root / "b.parquet"), str(root / "a.parquet")


def test_a_file_of_a_scan_with_another_type_is_named(tmp_path):
    part = IMPRESSIONS.slice(3).set_column(0, "user", pa.array(["2", "2", "2", "3", "3"]))
    s, bad, first = _two_files(tmp_path, part)
    with pytest.raises(rv.InputValidationError) as info:
        rv.gauc_score(s["click"], s["score"], groups=s["user"])
    assert str(info.value) == (
        f"{bad}: column 'user' is string, but int64 in {first}; write every file of a scan "
        f"with the same column types (e.g. cast 'user' to int64)."
    )


def test_a_file_of_a_scan_without_a_column_is_named(tmp_path):
    s, bad, first = _two_files(tmp_path, IMPRESSIONS.slice(3).drop_columns(["score"]))
    with pytest.raises(rv.InputValidationError) as info:
        rv.roc_auc_score(s["click"], s["score"])
    assert str(info.value).startswith(f"{bad}: no column 'score', which {first} has.")


def test_numbers_of_another_width_in_a_file_of_a_scan_are_read(tmp_path):
    part = IMPRESSIONS.slice(3).set_column(
        3, "score", IMPRESSIONS["score"].slice(3).cast("float32")
    )
    s, _, _ = _two_files(tmp_path, part)
    t = pa.concat_tables([IMPRESSIONS.slice(0, 3), part.cast(IMPRESSIONS.schema)])
    assert rv.roc_auc_score(s["click"], s["score"]) == rv.roc_auc_score(t["click"], t["score"])


def test_a_csv_header_that_is_not_utf8_is_named_when_scanned(tmp_path):
    path = tmp_path / "h.csv"
    path.write_bytes(b"us\xffer,click,score\n1,1,0.5\n")
    with pytest.raises(rv.InputValidationError) as info:
        rv.scan(str(path))
    assert str(info.value).startswith(f"{path}:1: the header is not valid UTF-8 (byte 0xff")


def test_a_parquet_file_read_as_text_is_named_parquet(tmp_path):
    # it was "the header is not valid UTF-8 ...; save the file as UTF-8"
    named = tmp_path / "log.parquet"
    pq.write_table(IMPRESSIONS, named)
    misnamed = tmp_path / "log.csv"
    misnamed.write_bytes(named.read_bytes())
    given = "; drop file_format='{}' or pass file_format='parquet'."
    for read, path, fmt, fix in (
        (lambda p, f: rv.scan(str(p), file_format=f).columns, named, "csv", given.format("csv")),
        (lambda p, f: rv.Run.from_file(str(p), file_format=f), named, "tsv", given.format("tsv")),
        (lambda p, f: rv.scan(str(p)).columns, misnamed, "csv",
         "; pass file_format='parquet' (or name the file .parquet)."),
        (lambda p, f: io.read_table(str(p), ["user"], "f", f), named, "csv",
         given.format("csv")),
    ):  # fmt: skip
        with pytest.raises(rv.InputValidationError) as info:
            read(path, fmt)
        assert str(info.value) == (
            f"{path}: the file is Parquet (it starts with 'PAR1'), not {fmt.upper()} text{fix}"
        )


def test_a_parquet_file_read_as_trec_is_named_parquet(tmp_path):
    # it was "<file>:1: expected 4 whitespace-separated fields (...), got 1: 'PAR1\\x15...'"
    named = tmp_path / "run.parquet"
    pq.write_table(IMPRESSIONS.select(["user", "item", "score"]), named)
    misnamed = tmp_path / "run.txt"
    misnamed.write_bytes(named.read_bytes())
    given = "; drop file_format='trec' or pass file_format='parquet'."
    for read, path, fix in (
        (lambda p: rv.Run.from_file(str(p), file_format="trec"), named, given),
        (lambda p: rv.Qrels.from_file(str(p), file_format="trec"), named, given),
        (lambda p: rv.Run.from_file(str(p)), misnamed, "; pass file_format='parquet' (or name "
         "the file .parquet)."),
        (lambda p: rv.Qrels.from_trec(str(p)), misnamed, "; pass file_format='parquet' (or "
         "name the file .parquet)."),
        (lambda p: io.read_trec(str(p), "qrels"), named, given),
    ):  # fmt: skip
        with pytest.raises(rv.InputValidationError) as info:
            read(path)
        assert str(info.value) == (
            f"{path}: the file is Parquet (it starts with 'PAR1'), not TREC text{fix}"
        )


def test_uint64_ids_near_2_64_in_parquet(tmp_path):
    big = [2**64 - 1, 2**64 - 1, 2**64 - 2, 2**64 - 2, 5, 5]
    table = pa.table(
        {
            "user": pa.array(big, pa.uint64()),
            "item": pa.array([2**64 - 1, 2**64 - 2, 2**64 - 1, 2**64 - 3, 1, 2], pa.uint64()),
            "click": [1, 0, 1, 0, 1, 0],
            "score": [0.9, 0.3, 0.2, 0.4, 0.9, 0.3],
        }
    )
    path = tmp_path / "u64.parquet"
    pq.write_table(table, path)
    s = rv.scan(str(path))
    expected = rv.gauc_score(table["click"], table["score"], groups=np.array(big, np.uint64))
    assert rv.gauc_score(s["click"], s["score"], groups=s["user"]) == expected
    run = rv.Run.from_file(path)
    assert run.to_dict()[2**64 - 1] == {2**64 - 1: 0.9, 2**64 - 2: 0.3}
    report = rv.evaluate({2**64 - 1: {2**64 - 1: 1}}, str(path), ["ndcg@10"])
    assert report.mean["ndcg@10"] == 1.0


# ---------------------------------------------------------------- standard input
def _cli(args, data: bytes, code: int = 0):
    from receval.cli import app

    result = make_runner().invoke(app, [str(a) for a in args], input=data)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    assert result.exit_code == code, (result.stdout, result.stderr)
    return result


@pytest.mark.parametrize("which", ["--run", "--qrels"])
def test_rank_reads_one_input_from_standard_input(tmp_path, which):
    q, r = tmp_path / "q.txt", tmp_path / "r.txt"
    q.write_bytes(QRELS)
    r.write_bytes(RUN)
    args = ["rank", "-m", "ndcg@10", "-f", "csv"]
    expected = _cli([*args, "--qrels", q, "--run", r], b"").stdout.splitlines()[1].split(",")[1]
    given = {"--qrels": q, "--run": r}
    given[which] = "-"
    data = QRELS if which == "--qrels" else RUN
    result = _cli([*args, "--qrels", given["--qrels"], "--run", given["--run"]], data)
    assert result.stdout.splitlines()[1].split(",")[1] == expected


def test_standard_input_may_be_parquet(tmp_path):
    q = tmp_path / "q.txt"
    q.write_bytes(QRELS)
    sink = pa.BufferOutputStream()
    _write(tmp_path, "r.txt", RUN)
    lines = [line.split() for line in RUN.decode().splitlines()]
    table = pa.table({"user": [f[0] for f in lines], "item": [f[2] for f in lines],
                      "score": [float(f[4]) for f in lines]})  # fmt: skip
    pq.write_table(table, sink)
    result = _cli(["rank", "-m", "mrr", "-f", "csv", "--qrels", q, "--run", "-"],
                  sink.getvalue().to_pybytes())  # fmt: skip
    plain = _cli(["rank", "-m", "mrr", "-f", "csv", "--qrels", q, "--run", tmp_path / "r.txt"], b"")
    assert result.stdout.splitlines()[1].split(",")[1] == plain.stdout.splitlines()[1].split(",")[1]


def _write(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_a_bad_line_on_standard_input_is_named_stdin(tmp_path):
    q = _write(tmp_path, "q.txt", QRELS)
    result = _cli(["rank", "--qrels", q, "--run", "-", "-m", "mrr"], b"u1 Q0 a 1 x r\n", code=2)
    assert result.stderr == f"error: <stdin>:1: the score 'x' is not a number{SCORE_FIX}.\n"


def test_two_inputs_cannot_both_read_standard_input():
    result = _cli(["rank", "--qrels", "-", "--run", "-", "-m", "mrr"], QRELS, code=2)
    assert "already read by --qrels" in " ".join(result.stderr.split())


def test_ctr_reads_standard_input(tmp_path):
    csv = b"user,click,score\n1,1,0.9\n1,0,0.3\n2,0,0.5\n2,1,0.6\n"
    args = ["ctr", "-", "--label", "click", "--score", "score", "-m", "auc", "-f", "csv"]
    for given in ([], ["--input-format", "csv"]):  # a text's format from its first line
        result = _cli([*args, *given], csv)
        assert result.stdout.splitlines()[1].startswith("score,1.0,")
    tsv = _cli(args, csv.replace(b",", b"\t"))
    assert tsv.stdout.splitlines()[1].startswith("score,1.0,")
    assert tsv.stdout.splitlines()[0].startswith("score,auc")


@pytest.mark.skipif(not os.path.isdir("/dev/fd"), reason="no /dev/fd")
@pytest.mark.parametrize("form, name", [("bz2", "bzip2"), ("xz", "xz"), ("zstd", "Zstandard")])
def test_a_pipe_of_another_compression_is_refused_by_name(form, name):
    """A pipe cannot be read ahead of the compiled reader: it tells the compression
    by the magic number and refuses it (never parsing the bytes as text)."""
    import threading

    read, write = os.pipe()

    def feed() -> None:
        with open(write, "wb") as fh:
            fh.write(FORMS[form](RUN))

    writer = threading.Thread(target=feed)
    writer.start()
    try:
        with pytest.raises(rv.InputValidationError) as info:
            rv.Run.from_file(f"/dev/fd/{read}", file_format="trec")
    finally:
        writer.join()
        os.close(read)
    assert str(info.value) == (
        f"/dev/fd/{read}: cannot be read as text: the text is compressed with {name}, which "
        f"this reader does not decompress; decompress it first (e.g. "
        f"{ {'bz2': 'bzip2', 'xz': 'xz', 'zstd': 'zstd'}[form] } -dc)."
    )


@pytest.mark.skipif(not os.path.isdir("/dev/fd"), reason="no /dev/fd")
@pytest.mark.parametrize("reader", [rv.Qrels.from_file, rv.Run.from_file])
def test_a_pipe_of_parquet_is_named_parquet(tmp_path, reader):
    """The compiled reader tells Parquet by its first bytes, which no reader can look at
    ahead of it in a pipe: it said "/dev/fd/N:1: expected 4 whitespace-separated fields
    ..., got 1: 'PAR1...'", where a regular file is named Parquet; read as Parquet, the
    pipe said "lseek failed"."""
    path = tmp_path / "x.parquet"
    pq.write_table(pa.table({"user": ["u"], "item": ["a"], "score": [1.0]}), path)
    with pipe_of(path.read_bytes()) as pipe, pytest.raises(rv.InputValidationError) as info:
        reader(pipe, file_format="trec")
    assert str(info.value) == (
        f"{pipe}: the file is Parquet (it starts with 'PAR1'), not TREC text; a pipe "
        f"cannot be read as Parquet (its reader seeks in the file): save the stream to a file "
        f"and read that with file_format='parquet'."
    )
    with pipe_of(path.read_bytes()) as pipe, pytest.raises(rv.InputValidationError) as info:
        reader(pipe, file_format="parquet")
    assert str(info.value) == (
        f"{pipe}: a pipe cannot be read as Parquet (its reader seeks in the file); save the "
        f"stream to a file and read that."
    )


@pytest.mark.parametrize("form", ["gzip", "bz2", "xz", "zstd"])
def test_a_truncated_compressed_csv_is_an_error_naming_it(tmp_path, form):
    text = b"user,item,score\n" + b"".join(b"u%d,a,0.5\n" % i for i in range(5000))
    path = tmp_path / "r.csv"
    path.write_bytes(FORMS[form](text)[:200])
    with pytest.raises(rv.InputValidationError) as info:
        rv.Run.from_file(path)
    assert str(info.value).startswith(f"{path}: cannot be read: ")
    with pytest.raises(rv.InputValidationError) as info:
        s = rv.scan(str(path))
        rv.roc_auc_score(s["user"], s["score"])
    assert str(info.value).startswith(f"{path}: ")


def test_a_parquet_decimal_score_column_reads_as_the_nearest_floats(tmp_path):
    # Spark and SQL write DECIMAL columns; they were refused with "row 1: Run: scores
    # must be numeric" (row 1 holds a number). 0.009 is read as the float nearest it
    # (Arrow's decimal cast gives 0.009000000000000001)
    from decimal import Decimal

    texts = ["0.900", "0.009", "0.400", "0.600"]
    scores = pa.array([Decimal(t) for t in texts], type=pa.decimal128(6, 3))
    table = pa.table({"user": ["u", "u", "v", "v"], "item": list("abcd"), "score": scores})
    table = table.append_column("label", pa.array([1, 0, 1, 0]))
    path = tmp_path / "run.parquet"
    pq.write_table(table, path)
    qrels = {"u": {"a": 1}, "v": {"d": 1}}
    floats = {"u": {"a": 0.9, "b": 0.009}, "v": {"c": 0.4, "d": 0.6}}
    want = rv.evaluate(qrels, floats, ["mrr", "ndcg"]).mean
    assert rv.evaluate(qrels, path, ["mrr", "ndcg"]).mean == want
    assert rv.evaluate(qrels, rv.scan(path), ["mrr", "ndcg"]).mean == want
    scan = rv.scan(path)
    assert rv.log_loss(scan["label"], scan["score"]) == rv.log_loss(
        [1, 0, 1, 0], [float(t) for t in texts]
    )
    assert rv.roc_auc_score(scan["label"], scan["score"]) == 0.75

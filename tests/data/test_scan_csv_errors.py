"""What ``receval.scan`` reports of a CSV file Arrow cannot read: the file and line (and
the column) of a value its column's type does not read and of a line of other than the
header's fields, a file of a header only by name, and a header of another delimiter
with the fix."""

from __future__ import annotations

import bz2

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import receval
from receval.exceptions import InputValidationError

ROWS = "".join(f"u{i // 3},{i % 2},0.{i % 10}\n" for i in range(3000))
HEADER = "user,click,score\n"


def _auc(path: str) -> float:
    s = receval.scan(path, batch_rows=500)
    return receval.roc_auc_score(s["click"], s["score"])


@pytest.mark.parametrize("compress", [False, True])
def test_a_value_its_column_does_not_read_is_named_at_its_line(tmp_path, compress):
    text = HEADER + ROWS + "u7,0,abc\n" + ROWS
    path = tmp_path / ("bad.csv.bz2" if compress else "bad.csv")
    path.write_bytes(bz2.compress(text.encode()) if compress else text.encode())
    with pytest.raises(InputValidationError) as info:
        _auc(str(path))
    assert str(info.value) == (
        f"{path}:3002: the 'score' column holds 'abc', which is not a number (the column is "
        f"read as double); correct the value or drop the row."
    )
    assert info.value.row == 3000  # the row within the file
    with pytest.raises(InputValidationError, match=r"bad\.csv(\.bz2)?:3002: the 'score' col"):
        s = receval.scan(str(path))
        receval.gauc_score(s["click"], s["score"], groups=s["user"])


def test_a_line_of_other_fields_than_the_header_is_named_at_its_line(tmp_path):
    path = tmp_path / "ragged.csv"
    path.write_text(HEADER + ROWS + "u7,0,0.5,9\n")
    with pytest.raises(InputValidationError) as info:
        _auc(str(path))
    assert str(info.value) == (
        f"{path}:3002: CSV parse error: Expected 3 columns, got 4: u7,0,0.5,9; give every "
        f"line the header's fields, quoting a field that holds the delimiter."
    )
    assert info.value.row == 3000


def test_a_file_of_a_header_only_is_named(tmp_path):
    path = tmp_path / "header.csv"
    path.write_text(HEADER)
    message = f"{path}: the file has no rows, only its header; pass a file with rows."
    s = receval.scan(str(path))
    for call in (
        lambda: receval.roc_auc_score(s["click"], s["score"]),
        lambda: receval.log_loss(s["click"], s["score"]),
        lambda: receval.gauc_score(s["click"], s["score"], groups=s["user"]),
        lambda: receval.evaluate({"u1": {"a": 1}}, s.as_run(item="click"), ["ndcg@3"]),
    ):
        with pytest.raises(InputValidationError) as info:
            call()
        assert str(info.value) == message


@pytest.mark.parametrize("blank", ["", "\n\n"])
def test_a_file_of_a_header_only_is_named_so_by_every_reader(tmp_path, blank):
    # evaluate(path), Run.from_file and Qrels.from_file said "users is empty; pass at
    # least one sample"
    run, qrels = tmp_path / "run.csv", tmp_path / "qrels.csv"
    run.write_text("user,item,score\n" + blank)
    qrels.write_text("user,item,grade\n" + blank)
    for path, call in (
        (run, lambda: receval.evaluate({"u": {"a": 1}}, str(run), ["mrr"])),
        (run, lambda: receval.Run.from_file(run)),
        (qrels, lambda: receval.evaluate(str(qrels), {"u": {"a": 0.5}}, ["mrr"])),
        (qrels, lambda: receval.Qrels.from_file(qrels)),
    ):
        with pytest.raises(InputValidationError) as info:
            call()
        assert str(info.value).endswith(
            f"{path}: the file has no rows, only its header; pass a file with rows."
        )


def test_a_score_that_is_no_number_is_named_alike_by_evaluate_and_scan(tmp_path):
    # evaluate(path) said "run.csv:3: scores must be numeric. Got dtype object with
    # values ['0.5', 'xyz']", naming neither the value's column nor a fix
    path = tmp_path / "run.csv"
    path.write_text("user,item,score\nu,a,0.5\nu,b,xyz\n")
    said = (
        f"{path}:3: the 'score' column holds 'xyz', which is not a number (the column is "
        f"read as double); correct the value or drop the row."
    )
    qrels = {"u": {"a": 1}}
    with pytest.raises(InputValidationError) as info:
        receval.evaluate(qrels, str(path), ["mrr"])
    assert str(info.value) == f"evaluate: run: {said}"
    for call in (
        lambda: receval.Run.from_file(path),
        lambda: receval.evaluate(qrels, receval.scan(str(path)), ["mrr"]),
    ):
        with pytest.raises(InputValidationError) as info:
            call()
        assert str(info.value) == said


def test_parquet_files_without_rows_are_named(tmp_path):
    path = tmp_path / "empty.parquet"
    pq.write_table(
        pa.table({"click": pa.array([], pa.int8()), "score": pa.array([], pa.float64())}), path
    )
    with pytest.raises(InputValidationError) as info:
        _auc(str(path))
    assert str(info.value) == f"{path}: the file has no rows; pass rows to evaluate."


@pytest.mark.parametrize(
    ("name", "header", "fix"),
    [
        ("semicolons.csv", "user;click;score", "rewrite the file with commas (CSV) or tabs (TSV), "
         "which receval reads, e.g. pandas.read_csv(path, sep=';').to_csv(new_path, index=False)"),
        ("tabs.csv", "user\tclick\tscore", "pass file_format='tsv' (or name the file .tsv)"),
        ("commas.tsv", "user,click,score", "pass file_format='csv' (or name the file .csv)"),
    ],
)  # fmt: skip
def test_a_header_of_another_delimiter_gets_the_fix(tmp_path, name, header, fix):
    path = tmp_path / name
    path.write_text(header + "\nu1" + header[4] + "1" + header[4] + "0.5\n")
    delimiter = header[4]
    with pytest.raises(InputValidationError) as info:
        _auc(str(path))
    assert str(info.value) == (
        f"{path}: no column 'click'. Got columns [{header!r}]; the header was read as one "
        f"field, its names separated by {delimiter!r}, so {fix}."
    )
    with pytest.raises(InputValidationError, match="the header was read as one field"):
        receval.Run.from_file(path, user="user", item="click", score="score")

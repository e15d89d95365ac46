"""Every error names where the bad input is: the file (and its line or row) or the argument.

A matrix of bad inputs across the entry points: metric functions on arrays (the
message names the argument); the file readers on TREC, CSV, TSV, Parquet and
gzip files; :func:`receval.scan` of one file and of a directory whose third file
is the bad one, read by every metric that takes scan columns (the message starts
with the file and the line or row, and ``.row`` is the row within the file); and
the CLI's commands on bad files (exit 2, ``error:`` naming the file or the
option, never a traceback).
"""

from __future__ import annotations

import bz2
import gzip
import lzma
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.csv as pcsv
import pyarrow.parquet as pq
import pytest

import receval
from receval import Qrels, Run
from receval.data._origin import Origin
from receval.exceptions import InputValidationError, RecevalError
from tests.cli._helpers import make_runner

# ------------------------------------------------------------------ arrays: the argument
_Y = [0, 1, 0, 1]
_S = [0.1, 0.4, 0.35, 0.8]
_G = [1, 1, 2, 2]
_NAN = [0.1, float("nan"), 0.35, 0.8]

ARRAY_CASES: dict[str, tuple[Callable[[], Any], str]] = {
    "auc nan score": (lambda: receval.roc_auc_score(_Y, _NAN), "y_score"),
    "auc label 2": (lambda: receval.roc_auc_score([0, 1, 2, 1], _S), "y_true"),
    "auc negative weight": (
        lambda: receval.roc_auc_score(_Y, _S, sample_weight=[1, -1, 1, 1]),
        "sample_weight",
    ),
    "auc text score": (lambda: receval.roc_auc_score(_Y, ["a", "b", "c", "d"]), "y_score"),
    "auc lengths": (lambda: receval.roc_auc_score(_Y, _S[:3]), "y_true and y_score"),
    "log_loss nan": (lambda: receval.log_loss(_Y, _NAN), "y_pred"),
    "log_loss label 2": (lambda: receval.log_loss([0, 1, 2, 1], _S, labels=[0, 1]), "y_true"),
    "log_loss probability 2": (lambda: receval.log_loss(_Y, [0.1, 2.0, 0.3, 0.4]), "y_pred"),
    "gauc nan": (lambda: receval.gauc_score(_Y, _NAN, groups=_G), "y_score"),
    "gauc label 2": (lambda: receval.gauc_score([0, 1, 2, 1], _S, groups=_G), "y_true"),
    "gauc negative weight": (
        lambda: receval.gauc_score(_Y, _S, groups=_G, sample_weight=[1, -1, 1, 1]),
        "sample_weight",
    ),
    "gauc groups None": (lambda: receval.gauc_score(_Y, _S, groups=None), "groups"),
    "pcoc nan": (lambda: receval.pcoc(_Y, _NAN), "y_prob"),
    "copc label 2": (lambda: receval.copc([0, 1, 2, 1], _S), "y_true"),
    "compute nan": (lambda: receval.compute("pcoc", _Y, _NAN), "y_prob"),
    "accumulator nan": (lambda: receval.metric("auc").update(_Y, _NAN), "y_score"),
    "Run nan score": (lambda: Run(["u"] * 2, ["a", "b"], [0.1, np.nan]), "scores"),
    "Run lengths": (lambda: Run(["u"] * 2, ["a"], [0.1, 0.2]), "length"),
    "Qrels text grade": (lambda: Qrels(["u"], ["a"], ["x"]), "grades"),
    "evaluate unknown metric": (
        lambda: receval.evaluate({"u": {"a": 1}}, {"u": {"a": 1.0}}, ["ndgc@10"]),
        "ndgc",
    ),
}


@pytest.mark.parametrize("case", sorted(ARRAY_CASES))
def test_array_errors_name_the_argument(case):
    call, argument = ARRAY_CASES[case]
    with pytest.raises(RecevalError) as info:
        call()
    message = str(info.value)
    assert argument in message, message
    assert message.endswith("."), message


# ------------------------------------------------------------------ files: the readers
RUN_ROWS = [("u1", "a", 0.9), ("u1", "b", 0.5), ("u2", "a", 0.7), ("u2", "c", 0.2)]
QRELS_TEXT = "u1 0 a 1\nu2 0 c 1\n"


def _write_rows(path: Path, rows: list[tuple[Any, ...]], header: tuple[str, ...], fmt: str) -> None:
    """Rows as a TREC run, CSV, TSV, Parquet or gzipped CSV file; cells kept as text
    in text files (a bad cell stays bad)."""
    if fmt == "trec":
        lines = [f"{u} Q0 {i} {r + 1} {s} tag" for r, (u, i, s) in enumerate(rows)]
        path.write_text("\n".join(lines) + "\n")
        return
    if fmt == "parquet":
        columns = list(zip(*rows, strict=True))
        pq.write_table(pa.table({h: list(c) for h, c in zip(header, columns, strict=True)}), path)
        return
    sep = "\t" if fmt == "tsv" else ","
    text = sep.join(header) + "\n" + "".join(sep.join(map(str, r)) + "\n" for r in rows)
    if fmt == "csv.gz":
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text)


RUN_FORMATS = ["trec", "csv", "tsv", "parquet", "csv.gz"]
# bad rows of a run: the third row (0-based 2) is the bad one
RUN_FAULTS: dict[str, list[tuple[Any, ...]]] = {
    "nan score": [*RUN_ROWS[:2], ("u2", "a", float("nan")), RUN_ROWS[3]],
    "text score": [*RUN_ROWS[:2], ("u2", "a", "high"), RUN_ROWS[3]],
    "repeated pair": [*RUN_ROWS[:2], ("u1", "a", 0.1), RUN_ROWS[3]],
}


def _place(path: Path, fmt: str, row: int) -> str:
    """How a message names row ``row`` (0-based, the file's data rows) of a file."""
    if fmt == "trec":
        return f"{path}:{row + 1}"
    if fmt == "parquet":
        return f"{path}: row {row + 1}"
    return f"{path}:{row + 2}"


def _run_file(tmp_path: Path, fault: str, fmt: str) -> Path:
    path = tmp_path / f"run.{fmt}"
    rows = RUN_FAULTS[fault]
    if fmt == "parquet" and fault == "text score":
        rows = [(u, i, str(s)) for u, i, s in rows]  # a column of strings
    _write_rows(path, rows, ("user", "item", "score"), fmt)
    return path


@pytest.mark.parametrize("fmt", RUN_FORMATS)
@pytest.mark.parametrize("fault", sorted(RUN_FAULTS))
def test_reader_errors_name_the_file_and_line(tmp_path, fault, fmt):
    path = _run_file(tmp_path, fault, fmt)
    with pytest.raises(InputValidationError) as info:
        Run.from_file(path, file_format="csv" if fmt == "csv.gz" else fmt)
    message = str(info.value)
    assert message.startswith(str(path)), message
    if not (fmt == "parquet" and fault == "text score"):  # a column's type: no one row
        assert message.startswith(_place(path, fmt, 2) + ":"), message


@pytest.mark.parametrize("fmt", ["trec", "csv", "parquet"])
def test_qrels_reader_errors_name_the_file(tmp_path, fmt):
    path = tmp_path / f"qrels.{fmt}"
    if fmt == "trec":
        path.write_text("u1 0 a 1\nu1 0 b x\n")
    elif fmt == "csv":
        path.write_text("user,item,grade\nu1,a,1\nu1,b,x\n")
    else:
        pq.write_table(pa.table({"user": ["u1", "u1"], "item": ["a", "b"], "grade": [1.0, None]}),
                       path)  # fmt: skip
    with pytest.raises(InputValidationError) as info:
        Qrels.from_file(path, file_format=fmt)
    assert str(info.value).startswith(str(path)), str(info.value)


# ------------------------------------------------------------------ scans: file and row
# impressions: user, item, click, score (a probability), w; row 2 of the bad file is bad
def _impressions(offset: int = 0) -> dict[str, list[Any]]:
    return {
        "user": [offset + 1, offset + 1, offset + 2, offset + 2],
        "item": [1, 2, 3, 4],
        "click": [0, 1, 0, 1],
        "score": [0.1, 0.6, 0.3, 0.9],
        "w": [1.0, 2.0, 1.0, 1.0],
    }


SCAN_FAULTS: dict[str, tuple[str, Any]] = {
    "nan score": ("score", float("nan")),
    "label 2": ("click", 2),
    "negative weight": ("w", -1.0),
    "probability 2": ("score", 2.0),
    "missing label": ("click", None),
}

SCAN_CALLS: dict[str, tuple[Callable[[Any], Any], tuple[str, ...]]] = {
    "roc_auc_score": (lambda s: receval.roc_auc_score(s["click"], s["score"], sample_weight=s["w"]),
                      ("nan score", "label 2", "negative weight", "missing label")),
    "log_loss": (lambda s: receval.log_loss(s["click"], s["score"], sample_weight=s["w"]),
                 ("nan score", "label 2", "negative weight", "probability 2", "missing label")),
    "gauc_score": (
        lambda s: receval.gauc_score(s["click"], s["score"], groups=s["user"],
                                     sample_weight=s["w"]),
        ("nan score", "label 2", "negative weight", "missing label"),
    ),
    "group_auc": (lambda s: receval.group_auc(s["click"], s["score"], groups=s["user"]),
                  ("nan score", "label 2", "missing label")),
    "pcoc": (lambda s: receval.pcoc(s["click"], s["score"], sample_weight=s["w"]),
             ("nan score", "label 2", "negative weight", "missing label")),
    "compute": (lambda s: receval.compute("pcoc", s["click"], s["score"]),
                ("nan score", "label 2", "missing label")),
    "partial_auc": (
        lambda s: receval.partial_auc(s["click"], s["score"], max_fpr=0.5),
        ("nan score", "label 2", "missing label"),
    ),
    "evaluate": (
        lambda s: receval.evaluate({1: {1: 1}, 2: {3: 1}, 21: {3: 1}}, s.as_run(), ["ndcg@10"]),
        ("nan score",),
    ),
}  # fmt: skip

SCAN_LAYOUTS = ["parquet", "csv", "tsv", "csv.gz", "csv.bz2", "csv.xz", "directory", "hive"]


def _write_table(path: Path, data: dict[str, list[Any]], fmt: str) -> None:
    table = pa.table(data)
    if fmt == "parquet":
        pq.write_table(table, path)
        return
    options = pcsv.WriteOptions(delimiter="\t" if fmt == "tsv" else ",")
    text = pa.BufferOutputStream()
    pcsv.write_csv(table, text, options)
    compress = {"csv.gz": gzip.compress, "csv.bz2": bz2.compress, "csv.xz": lzma.compress}
    path.write_bytes(compress.get(fmt, bytes)(text.getvalue().to_pybytes()))


def _scanned(tmp_path: Path, layout: str, fault: str) -> tuple[Any, Path, str]:
    """A scan whose bad file holds ``fault`` at its third row; the bad file, and its
    format."""
    column, value = SCAN_FAULTS[fault]
    if layout in ("directory", "hive"):  # the third file is the bad one
        folder = tmp_path / "parts"
        files = [
            folder / (f"part-{i}.parquet" if layout == "directory" else f"day={i}/part.parquet")
            for i in range(3)
        ]
        for i, path in enumerate(files):
            path.parent.mkdir(parents=True, exist_ok=True)
            data = _impressions(10 * i)
            if i == 2:
                data[column][2] = value
            _write_table(path, data, "parquet")
        return receval.scan(folder), files[2], "parquet"
    data = _impressions()
    data[column][2] = value
    path = tmp_path / f"impressions.{layout}"
    _write_table(path, data, layout)
    file_format = "csv" if layout.startswith("csv.") else None
    return receval.scan(path, file_format=file_format), path, layout


SCAN_CASES = [
    (call, fault, layout)
    for call, (_, faults) in sorted(SCAN_CALLS.items())
    for fault in faults
    for layout in SCAN_LAYOUTS
]


@pytest.mark.parametrize(("call", "fault", "layout"), SCAN_CASES)
def test_scan_errors_name_the_file_and_row(tmp_path, call, fault, layout):
    s, bad, fmt = _scanned(tmp_path, layout, fault)
    with pytest.raises(InputValidationError) as info:
        SCAN_CALLS[call][0](s)
    message = str(info.value)
    place = f"{bad}: row 3" if fmt == "parquet" else f"{bad}:4"
    assert message.startswith(place + ": "), message
    assert info.value.row == 2
    assert "Traceback" not in message


def test_the_file_and_row_come_from_the_batch_that_holds_them(tmp_path):
    # many small batches: the row counts from the file's first row, not the batch's
    n = 1000
    score = np.linspace(0.01, 0.99, n)
    score[777] = np.nan
    click = np.arange(n) % 2
    user = np.repeat(np.arange(n // 10), 10)
    for fmt in ("parquet", "csv"):
        path = tmp_path / f"big.{fmt}"
        _write_table(path, {"user": user, "click": click, "score": score}, fmt)
        s = receval.scan(path, batch_rows=64)
        place = f"{path}: row 778" if fmt == "parquet" else f"{path}:779"
        for call, kwargs in (
            (receval.roc_auc_score, {}),
            (receval.log_loss, {}),
            (receval.gauc_score, {"groups": s["user"]}),
        ):
            with pytest.raises(InputValidationError) as info:
                call(s["click"], s["score"], **kwargs)
            assert str(info.value).startswith(place + ": "), str(info.value)
            assert info.value.row == 777


def test_a_group_across_two_files_is_named_in_the_file_that_holds_the_row(tmp_path):
    # user 2's rows end part-0 and start part-1: one batch of whole groups spans both
    folder = tmp_path / "parts"
    folder.mkdir()
    _write_table(folder / "part-0.parquet",
                 {"user": [1, 1, 2, 2], "click": [0, 1, 0, 1], "score": [0.1, 0.2, 0.3, 0.4]},
                 "parquet")  # fmt: skip
    _write_table(folder / "part-1.parquet",
                 {"user": [2, 3, 3], "click": [1, 0, 1], "score": [np.nan, 0.3, 0.4]},
                 "parquet")  # fmt: skip
    s = receval.scan(folder)
    for call in (receval.gauc_score, receval.group_auc):
        with pytest.raises(InputValidationError) as info:
            call(s["click"], s["score"], groups=s["user"])
        assert str(info.value).startswith(f"{folder / 'part-1.parquet'}: row 1: gauc_score: ")
        assert info.value.row == 0


def test_origin_of_rows_across_files():
    a = Origin((("a.csv", 10, 3),), lines=True)
    b = Origin((("b.csv", 0, 2),), lines=True)
    both = a.slice(1, 3) + b + Origin((("b.csv", 2, 1),), lines=True)
    assert both.pieces == (("a.csv", 11, 2), ("b.csv", 0, 3))
    assert len(both) == 5
    assert both.locate(1) == ("a.csv:14", 12)  # row 12 of a.csv: line 14, after the header
    assert both.locate(4) == ("b.csv:4", 2)
    assert both.locate(None) == ("a.csv and b.csv", None)
    parquet = Origin((("p.parquet", 4, 4),), lines=False)
    assert parquet.locate(0) == ("p.parquet: row 5", 4)


def test_scanned_events_name_the_file_and_line(tmp_path):
    path = tmp_path / "events.csv"
    path.write_text(EVENTS_BAD)
    with pytest.raises(InputValidationError) as info:
        receval.retention(receval.scan(path), user="user", time="time")
    assert str(info.value).startswith(f"{path}:3: "), str(info.value)


def test_a_repeated_pair_in_a_scanned_run_names_its_row(tmp_path):
    path = tmp_path / "run.parquet"
    _write_table(path, {"user": [1, 1, 1, 2], "item": [5, 6, 5, 7], "score": [0.9, 0.5, 0.1, 0.4]},
                 "parquet")  # fmt: skip
    with pytest.raises(InputValidationError) as info:
        receval.evaluate({1: {5: 1}}, receval.scan(path), ["ndcg@10"])
    assert str(info.value).startswith(f"{path}: row 3: "), str(info.value)


def test_a_group_that_comes_again_names_the_file_and_row(tmp_path):
    folder = tmp_path / "parts"
    folder.mkdir()
    for i, users in enumerate(([1, 1, 2, 2], [3, 3, 4, 4], [5, 5, 1, 1])):
        data = _impressions()
        data["user"] = users
        _write_table(folder / f"part-{i}.parquet", data, "parquet")
    s = receval.scan(folder)
    with pytest.raises(InputValidationError) as info:
        receval.gauc_score(s["click"], s["score"], groups=s["user"])
    assert str(info.value).startswith(f"{folder / 'part-2.parquet'}: row 3: gauc_score: the rows")


@pytest.mark.parametrize("layout", ["parquet", "csv", "directory"])
def test_scan_file_errors_name_the_file(tmp_path, layout):
    # a score that is not a number, a missing column, a column of another type
    if layout == "directory":
        folder = tmp_path / "parts"
        folder.mkdir()
        for i in range(3):
            data: dict[str, Any] = _impressions(10 * i)
            if i == 2:
                data["score"] = ["a", "b", "c", "d"]
            _write_table(folder / f"part-{i}.parquet", data, "parquet")
        s, bad = receval.scan(folder), folder / "part-2.parquet"
    else:
        data = _impressions()
        data["score"] = ["0.1", "0.2", "high", "0.3"]
        bad = tmp_path / f"impressions.{layout}"
        _write_table(bad, data, layout)
        s = receval.scan(bad)
    with pytest.raises(InputValidationError) as info:
        receval.roc_auc_score(s["click"], s["score"])
    assert str(info.value).startswith(str(bad)), str(info.value)
    with pytest.raises(InputValidationError) as info:
        s["clicks"]
    assert str(info.value).startswith(str(tmp_path)), str(info.value)
    assert "'clicks'" in str(info.value)


# ------------------------------------------------------------------ the CLI: exit 2, error: <where>
QRELS_CSV = "user,item,grade\nu1,a,1\nu2,c,1\n"
EVENTS_BAD = "user,time\nu1,2024-01-01\nu1,not a time\n"
CTR = ["--label", "click", "--score", "score"]


def _cli_files(tmp_path: Path) -> dict[str, Path]:
    files = {
        "qrels": tmp_path / "qrels.csv",
        "run": tmp_path / "run.csv",
        "run_nan": tmp_path / "run_nan.csv",
        "run_text": tmp_path / "run_text.trec",
        "run_pair": tmp_path / "run_pair.trec",
        "imp_nan": tmp_path / "imp_nan.csv",
        "imp_label": tmp_path / "imp_label.parquet",
        "imp_text": tmp_path / "imp_text.tsv",
        "events": tmp_path / "events.csv",
    }
    files["qrels"].write_text(QRELS_CSV)
    files["run"].write_text("user,item,score\nu1,a,0.9\nu2,c,0.3\n")
    files["run_nan"].write_text("user,item,score\nu1,a,0.9\nu2,c,nan\n")
    files["run_text"].write_text("u1 Q0 a 1 0.9 t\nu2 Q0 c 1 high t\n")
    files["run_pair"].write_text("u1 Q0 a 1 0.9 t\nu1 Q0 a 2 0.3 t\n")
    files["imp_nan"].write_text(
        "user,click,score,model2\n1,0,0.1,0.1\n1,1,nan,0.2\n2,0,0.3,0.3\n2,1,0.4,0.4\n"
    )
    pq.write_table(pa.table({"user": [1, 1, 2, 2], "click": [0, 1, 2, 1],
                             "score": [0.1, 0.2, 0.3, 0.4]}), files["imp_label"])  # fmt: skip
    files["imp_text"].write_text("user\tclick\tscore\n1\t0\t0.1\n1\t1\tx\n2\t0\t0.3\n2\t1\t0.4\n")
    files["events"].write_text(EVENTS_BAD)
    return files


CLI_CASES: dict[str, tuple[list[str], str]] = {
    # name: (arguments, what the message must name: a file key or an option)
    "rank nan score": (["rank", "--qrels", "{qrels}", "--run", "{run_nan}"], "{run_nan}:3"),
    "rank text score": (["rank", "--qrels", "{qrels}", "--run", "{run_text}"], "{run_text}:2"),
    "rank repeated pair": (["rank", "--qrels", "{qrels}", "--run", "{run_pair}"], "{run_pair}:2"),
    "rank missing file": (["rank", "--qrels", "{qrels}", "--run", "{missing}"], "{missing}"),
    "compare nan score": (
        ["compare", "--qrels", "{qrels}", "--run", "{run}", "--run", "{run_nan}"], "{run_nan}:3"
    ),
    "compare ctr nan": (
        ["compare", "--impressions", "{imp_nan}", "--label", "click", "--score", "score",
         "--score", "model2", "--group", "user"], "{imp_nan}:3",
    ),
    "ctr nan score": (["ctr", "{imp_nan}", *CTR], "{imp_nan}:3"),
    # three classes in the labels: no one row is at fault
    "ctr label 2": (["ctr", "{imp_label}", *CTR], "{imp_label}: "),
    "ctr text score": (["ctr", "{imp_text}", *CTR], "{imp_text}:3"),
    "ctr missing column": (["ctr", "{imp_nan}", "--label", "clicks", "--score", "score"], "clicks"),
    "retention bad time": (["retention", "{events}"], "{events}"),
    "report nan score": (
        ["report", "--qrels", "{qrels}", "--run", "{run_nan}", "-o", "{out}"], "{run_nan}:3"
    ),
    "report ctr label 2": (
        ["report", "--impressions", "{imp_label}", "--label", "click", "--score", "score",
         "-o", "{out}"], "{imp_label}: ",
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(CLI_CASES))
def test_cli_errors_name_the_file_or_option(tmp_path, case):
    files = {k: str(v) for k, v in _cli_files(tmp_path).items()}
    files |= {"missing": str(tmp_path / "absent.trec"), "out": str(tmp_path / "report.html")}
    arguments, expected = CLI_CASES[case]
    args = [a.format(**files) for a in arguments]
    result = make_runner().invoke(receval.cli.app, args)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert len(lines) == 1, result.stderr
    assert expected.format(**files) in lines[0], lines[0]


# ------------------------------------------------------------------ lines as an editor numbers them
#: runs whose bad row follows blank lines or a quoted line break: (text, line of the bad
#: row, what the message says there); row + 2 named lines 4, 4 and 4
EDITOR_LINES = {
    "empty user after blank lines": ("user,item,score\n\nu,a,0.5\n\nu,b,0.4\n,c,0.3\n", 6, "user"),
    "inf after a quoted line break": (
        'user,item,score\nu,a,0.5\nu,"multi\nline",0.4\nu,c,inf\n',
        5,
        "NaN or infinity",
    ),
    "duplicate after a blank line": (
        "user,item,score\n\nu,a,0.5\nu,b,0.4\nu,a,0.3\n",
        5,
        "more than once",
    ),
}

_FORMS: dict[str, Callable[[bytes], bytes]] = {
    "plain": lambda b: b,
    "crlf bom": lambda b: b"\xef\xbb\xbf" + b.replace(b"\n", b"\r\n"),
    "gzip": gzip.compress,
    "bz2": bz2.compress,
}


@pytest.mark.parametrize("form", sorted(_FORMS))
@pytest.mark.parametrize("case", sorted(EDITOR_LINES))
def test_a_csv_row_is_named_by_its_line_in_the_file(tmp_path, case, form):
    text, line, said = EDITOR_LINES[case]
    path = tmp_path / "run.csv"
    path.write_bytes(_FORMS[form](text.encode()))
    qrels = {"u": {"a": 1}}
    for run in (str(path), receval.scan(str(path))):
        with pytest.raises(InputValidationError) as info:
            receval.evaluate(qrels, run, ["mrr"])
        message = str(info.value)
        assert f"{path}:{line}: " in message and said in message, message


@pytest.mark.parametrize("form", sorted(_FORMS))
def test_a_scanned_ctr_log_names_the_line_after_blank_lines_and_quoted_line_ends(tmp_path, form):
    text = 'user,click,score\n\nu1,1,0.5\n"u\n2",0,0.4\n\nu3,1,inf\n'
    path = tmp_path / "log.csv"
    path.write_bytes(_FORMS[form](text.encode()))
    s = receval.scan(str(path))
    for call in (
        lambda: receval.roc_auc_score(s["click"], s["score"]),
        lambda: receval.log_loss(s["click"], s["score"]),
    ):
        with pytest.raises(InputValidationError) as info:
            call()
        assert str(info.value).startswith(f"{path}:7: "), str(info.value)
        assert info.value.row == 2

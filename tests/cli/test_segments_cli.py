"""``--by FILE`` of ``rank`` and ``compare``: the segment labels read as ids (as ``ctr --by``
reads them), shown as written, and the file's errors at its lines."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from receval import evaluate

from ._helpers import invoke, make_runner

# five users, each with its own rank of the one relevant item: mrr 1, 1/2, 1/3, 1/4, 1/5
QRELS = "user,item,grade\n" + "".join(f"u{i},a,1\n" for i in range(5))
RUN = "user,item,score\n" + "".join(
    f"u{i},{item},{5 - j}\n" for i in range(5) for j, item in enumerate([*"bcde"[:i], "a"])
)
# labels that read as numbers: 007 and 7 are two segments, so are the two 20-digit ids
LABELS = ["12345678901234567890", "12345678901234567891", "007", "7", "01234"]


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels.csv").write_text(QRELS)
    (tmp_path / "run.csv").write_text(RUN)
    (tmp_path / "b.csv").write_text(RUN)
    seg = tmp_path / "seg.csv"
    seg.write_text("user,segment\n" + "".join(f"u{i},{s}\n" for i, s in enumerate(LABELS)))
    return tmp_path


def test_rank_by_reads_labels_as_written(files) -> None:
    args = ["rank", "--qrels", files / "qrels.csv", "--run", files / "run.csv", "-m", "mrr",
            "--by", files / "seg.csv", "-q"]  # fmt: skip
    records = json.loads(invoke(make_runner(), *args, "-f", "json").stdout)
    # one segment per label (it merged 007 with 7 as 7.0 and the 20-digit ids as 1.23e+19)
    assert [(r["segment"], r["n_users"], r["mrr"]) for r in records] == [
        ("007", 1, 1 / 3),
        ("01234", 1, 1 / 5),
        ("12345678901234567890", 1, 1.0),
        ("12345678901234567891", 1, 1 / 2),
        ("7", 1, 1 / 4),
        ("(all)", 5, (1 + 1 / 2 + 1 / 3 + 1 / 4 + 1 / 5) / 5),
    ]
    table = invoke(make_runner(), *args).stdout
    assert "│ 12345678901234567890 │" in table and "│ 007  " in table
    assert "12345678901234567168" not in table


def test_compare_by_reads_labels_as_written(files) -> None:
    result = invoke(make_runner(), "compare", "--qrels", files / "qrels.csv",
                    "--run", files / "run.csv", "--run", files / "b.csv", "-m", "mrr",
                    "--by", files / "seg.csv", "-q", "-f", "json")  # fmt: skip
    segments = [r["segment"] for r in json.loads(result.stdout)]
    assert segments == ["007", "01234", "12345678901234567890", "12345678901234567891", "7",
                        "(all)"]  # fmt: skip


def test_table_shows_a_float_label_unrounded(files) -> None:
    path = files / "seg.parquet"
    pq.write_table(pa.table({"user": ["u0", "u1"], "segment": [0.123456789, 0.5]}), path)
    result = invoke(make_runner(), "rank", "--qrels", files / "qrels.csv", "--run",
                    files / "run.csv", "-m", "mrr", "--by", path, "-q")  # fmt: skip
    # the label was rounded to --digits as a value is: 0.1235
    assert "│ 0.123456789 │" in result.stdout and "0.1235 " not in result.stdout
    assert "│ 0.5         │" in result.stdout


def test_by_file_errors_name_line_and_option(files) -> None:
    blank = files / "blank.csv"
    blank.write_text("user,segment\nu0,a\nu1,\nu2,b\n")
    args = ["rank", "--qrels", files / "qrels.csv", "--run", files / "run.csv", "-m", "mrr"]
    result = invoke(make_runner(), *args, "--by", blank, code=2)
    # it was the library's 'EvaluationReport.by_segment: segments contains 1 missing value'
    assert result.stderr == (
        f"error: {blank}:3: --segment segment has no id in this row (an empty field); "
        "fill it in or drop the row.\n"
    )
    nulls = files / "nulls.parquet"
    pq.write_table(pa.table({"user": ["u0", "u1"], "segment": ["a", None]}), nulls)
    result = invoke(make_runner(), *args, "--by", nulls, code=2)
    assert result.stderr.startswith(f"error: {nulls}: row 2: --by: --segment segment contains 1")
    result = invoke(make_runner(), *args, "--by", files / "seg.csv", "--segment", "nope", code=2)
    assert result.stderr == (
        f"error: {files / 'seg.csv'}: no column 'nope' (--segment nope). "
        "Got columns ['user', 'segment']; name one of ['segment'] with --segment.\n"
    )


def test_labels_equal_the_library_by_segment(files) -> None:
    report = evaluate(
        {f"u{i}": {"a": 1} for i in range(5)},
        {f"u{i}": {x: 5.0 - j for j, x in enumerate([*"bcde"[:i], "a"])} for i in range(5)},
        ["mrr"],
    )
    expected = report.by_segment({f"u{i}": s for i, s in enumerate(LABELS)})
    result = invoke(make_runner(), "rank", "--qrels", files / "qrels.csv", "--run",
                    files / "run.csv", "-m", "mrr", "--by", files / "seg.csv", "-q", "-f",
                    "json")  # fmt: skip
    records = json.loads(result.stdout)[:-1]
    assert [r["segment"] for r in records] == expected.segments.tolist()
    assert [r["mrr"] for r in records] == expected.values["mrr"].tolist()


def test_compare_by_a_segment_of_no_qrels_user(files) -> None:
    by = files / "ghost.csv"
    by.write_text("user,segment\nu0,a\nu1,a\nghost,g\n")  # ghost is in no qrels
    result = invoke(make_runner(), "compare", "--qrels", files / "qrels.csv",
                    "--run", files / "run.csv", "--run", files / "b.csv", "-m", "mrr",
                    "--by", by, "-f", "json", "--permutations", "99")  # fmt: skip
    # it exited 2: 'compare: differences is empty (no user)'
    records = json.loads(result.stdout)
    assert [(r["segment"], r["n_users"]) for r in records] == [("a", 2), ("g", 0), ("(all)", 5)]
    assert records[1]["mean"] is None and records[1]["p_value"] is None
    assert records[1]["significant"] is False
    # the segments that hold no qrels user: counted on the overall record, and noted
    assert records[2]["counts"]["n_segments_empty"] == 1
    # in words: it read "1 segments of ... hold"
    assert f"1 segment of {by} holds no qrels user: its statistics are nan." in result.stderr


def test_by_users_not_in_the_qrels_are_counted_and_noted(files) -> None:
    by = files / "typo.csv"
    by.write_text("user,segment\nu0,a\nu1,a\nu2,b\nuu3,b\nzz,c\n")  # uu3, zz: no qrels user
    compare = ["compare", "--qrels", files / "qrels.csv", "--run", files / "run.csv", "--run",
               files / "b.csv", "-m", "mrr", "--by", by, "--permutations", "99"]  # fmt: skip
    note = f"note: 2 users of {by} are not qrels users (ignored).\n"
    rank = ["rank", "--qrels", files / "qrels.csv", "--run", files / "run.csv", "-m", "mrr",
            "--by", by]  # fmt: skip
    for args in (compare, rank):
        result = invoke(make_runner(), *args, "-f", "json")
        overall = json.loads(result.stdout)[-1]
        assert overall["segment"] == "(all)"
        assert overall["counts"]["n_users_unknown"] == 2
        assert overall["counts"]["n_users_unassigned"] == 2  # u3, u4
        assert result.stderr.count(note) == 1
    csv = invoke(make_runner(), *compare, "-f", "csv", "-q").stdout.splitlines()
    assert "n_users_unknown" in csv[0].split(",")
    # one such user is one: it read "1 users of ... are not qrels users"
    by.write_text("user,segment\nu0,a\nu1,a\nu2,b\nzz,b\n")
    result = invoke(make_runner(), *rank, "-f", "json")
    assert f"note: 1 user of {by} is not a qrels user (ignored).\n" in result.stderr


def test_boolean_labels_read_as_given(files) -> None:
    # a Parquet column of booleans gave the segments 0 and 1 (rank --by, compare --by,
    # ctr --by); a CSV's true/false are text and stay so
    flags = [True, False, True, False, True]
    path = files / "flags.parquet"
    pq.write_table(pa.table({"user": [f"u{i}" for i in range(5)], "segment": flags}), path)
    text = files / "flags.csv"
    text.write_text("user,segment\n" + "".join(f"u{i},{str(f).lower()}\n"
                                               for i, f in enumerate(flags)))  # fmt: skip
    rank = ["rank", "--qrels", files / "qrels.csv", "--run", files / "run.csv", "-m", "mrr"]
    for by, labels in ((path, [False, True]), (text, ["false", "true"])):
        records = json.loads(invoke(make_runner(), *rank, "--by", by, "-q", "-f", "json").stdout)
        assert [r["segment"] for r in records] == [*labels, "(all)"]
        assert [type(r["segment"]) for r in records[:2]] == [type(x) for x in labels]  # not 0/1
    csv = invoke(make_runner(), *rank, "--by", path, "-q", "-f", "csv").stdout
    assert csv.splitlines()[1].startswith("run.csv,False,2,")
    result = invoke(make_runner(), "compare", "--qrels", files / "qrels.csv", "--run",
                    files / "run.csv", "--run", files / "b.csv", "-m", "mrr", "--by", path,
                    "-q", "-f", "json", "--permutations", "99")  # fmt: skip
    assert [repr(r["segment"]) for r in json.loads(result.stdout)] == ["False", "True", "'(all)'"]
    log = files / "log.parquet"
    pq.write_table(pa.table({"click": [1, 0, 1, 0, 0, 1], "p": [0.9, 0.2, 0.4, 0.6, 0.3, 0.8],
                             "new": [True, True, True, False, False, False]}), log)  # fmt: skip
    result = invoke(make_runner(), "ctr", log, "--label", "click", "--score", "p", "--by", "new",
                    "-m", "auc", "-q", "-f", "json")  # fmt: skip
    assert [repr(r["segment"]) for r in json.loads(result.stdout)] == ["False", "True", "'(all)'"]


def test_a_segment_labelled_as_the_overall_row_is_refused(files) -> None:
    # its rows came out labelled '(all)' beside the overall row's, in every format
    by = files / "all.csv"
    by.write_text("user,segment\nu0,a\nu1,(all)\nu2,a\n")
    rank = ["rank", "--qrels", files / "qrels.csv", "--run", files / "run.csv", "-m", "mrr"]
    result = invoke(make_runner(), *rank, "--by", by, "-f", "json", code=2)
    assert result.stdout == ""
    assert result.stderr == (
        f"error: {by}:3: --by: --segment segment holds the label '(all)', which the output "
        "gives its overall rows; rename that segment.\n"
    )
    path = files / "all.parquet"
    labels = pa.array(["a", "b", "(all)"]).dictionary_encode()
    pq.write_table(pa.table({"user": ["u0", "u1", "u2"], "segment": labels}), path)
    result = invoke(make_runner(), "compare", "--qrels", files / "qrels.csv", "--run",
                    files / "run.csv", "--run", files / "b.csv", "-m", "mrr", "--by", path,
                    code=2)  # fmt: skip
    assert result.stderr.startswith(f"error: {path}: row 3: --by: --segment segment holds ")
    log = files / "log.csv"
    log.write_text("click,p,country\n1,0.9,fr\n0,0.2,(all)\n1,0.4,fr\n0,0.6,(all)\n")
    result = invoke(make_runner(), "ctr", log, "--label", "click", "--score", "p", "--by",
                    "country", code=2)  # fmt: skip
    assert result.stderr == (
        f"error: {log}:3: receval ctr: --by country holds the label '(all)', which the "
        "output gives its overall rows; rename that segment.\n"
    )


NAN_LABELS = {
    "float64": pa.array([1.5, float("nan"), 2.5]),
    "float32": pa.array([1.5, float("nan"), 2.5], pa.float32()),
    "categories": pa.array([1.5, float("nan"), 2.5]).dictionary_encode(),
    "null": pa.array([1.5, None, 2.5]),
}


@pytest.mark.parametrize("kind", NAN_LABELS)
def test_a_nan_label_is_refused_at_its_row(files, kind) -> None:
    # a NaN reached the library: "EvaluationReport.by_segment: segments must give every
    # user it names a segment label ... 'u1'" (no file, no row), "--score p: by_segment:
    # by must give every row a segment label" (the score column named)
    missing = "contains 1 missing value (empty, null or NaN), the first in this row; drop "
    missing += "those rows or fill them first.\n"
    by = files / "nan.parquet"
    pq.write_table(pa.table({"user": ["u0", "u1", "u2"], "segment": NAN_LABELS[kind]}), by)
    runs = ["--qrels", files / "qrels.csv", "--run", files / "run.csv"]
    for command in (["rank", *runs], ["compare", *runs, "--run", files / "b.csv"]):
        result = invoke(make_runner(), *command, "-m", "mrr", "--by", by, code=2)
        assert result.stdout == ""
        assert result.stderr == f"error: {by}: row 2: --by: --segment segment {missing}"
    log = files / "log.parquet"
    pq.write_table(pa.table({"click": [1, 0, 1], "p": [0.9, 0.2, 0.4],
                             "country": NAN_LABELS[kind]}), log)  # fmt: skip
    result = invoke(make_runner(), "ctr", log, "--label", "click", "--score", "p", "--by",
                    "country", code=2)  # fmt: skip
    assert result.stdout == ""
    assert result.stderr == f"error: {log}: row 2: receval ctr: --by country {missing}"


def test_ctr_by_names_the_by_column_of_an_error_of_its_labels(files) -> None:
    # it named the score column and the library's argument: "--score p: by_segment: by
    # must hold ids", though the labels are no score column's
    log = files / "log.parquet"
    pq.write_table(pa.table({"click": [1, 0, 1], "p": [0.9, 0.2, 0.4],
                             "country": pa.array([[1], [2], [1]])}), log)  # fmt: skip
    result = invoke(make_runner(), "ctr", log, "--label", "click", "--score", "p", "--by",
                    "country", code=2)  # fmt: skip
    assert result.stdout == ""
    assert result.stderr == (
        f"error: {log}: receval ctr: --by country must hold one id or label per row (a "
        "number, a string or a boolean). Got values of type list<element: int64>; write one "
        "value per row there.\n"
    )
    # an error of a score column's metric names that column
    pq.write_table(pa.table({"click": [1, 0, 1], "p": [0.9, float("nan"), 0.4],
                             "country": ["a", "b", "a"]}), log)  # fmt: skip
    result = invoke(make_runner(), "ctr", log, "--label", "click", "--score", "p", "--by",
                    "country", "-m", "auc", code=2)  # fmt: skip
    assert result.stderr.startswith(f"error: {log}: row 2: --score p: ")


@pytest.mark.parametrize(
    ("column", "kind"),
    [([["a"], ["b"]], "list<element: string>"), ([{"a": 1}, {"a": 2}], "struct<a: int64>")],
)
@pytest.mark.parametrize("named", ["segment", "user"])
def test_a_nested_column_of_the_by_file_names_file_column_and_option(files, column, kind, named):
    # it was the library's 'EvaluationReport.by_segment: segments must hold ids ...' (no
    # file, not --by), or 'receval: --by must hold ids ...' for the users
    columns = {"user": ["u0", "u1"], "segment": ["a", "b"]}
    path = files / "nested.parquet"
    pq.write_table(pa.table({**columns, named: column}), path)
    runs = {"rank": ["--run", files / "run.csv"],
            "compare": ["--run", files / "run.csv", "--run", files / "b.csv"]}  # fmt: skip
    for command, given in runs.items():
        result = invoke(make_runner(), command, "--qrels", files / "qrels.csv", *given,
                        "-m", "mrr", "--by", path, code=2)  # fmt: skip
        assert result.stdout == ""
        assert result.stderr == (
            f"error: {path}: --by: --{named} {named} must hold one id or label per row (a "
            f"number, a string or a boolean). Got values of type {kind}; write one value "
            f"per row there.\n"
        )


def test_rank_by_overall_row_keeps_the_runs_own_counts(tmp_path) -> None:
    # the (all) row dropped n_users_missing, n_run_only_users, n_users_empty and
    # n_run_items(_unmatched), which the plain run reports
    (tmp_path / "q.txt").write_text("u1 0 a 1\nu2 0 b 1\nu3 0 c 0\n")
    (tmp_path / "r.txt").write_text("u1 Q0 a 1 0.9 r\nu2 Q0 x 1 0.9 r\nu9 Q0 a 1 0.9 r\n")
    (tmp_path / "seg.csv").write_text("user,segment\nu1,s\nu2,s\n")
    rank = ["rank", "--qrels", tmp_path / "q.txt", "--run", tmp_path / "r.txt", "-m",
            "recall@3", "-q"]  # fmt: skip
    (plain,) = json.loads(invoke(make_runner(), *rank, "-f", "json").stdout)
    by = json.loads(invoke(make_runner(), *rank, "--by", tmp_path / "seg.csv", "-f", "json").stdout)
    overall = by[-1]
    assert overall["segment"] == "(all)" and overall["n_users"] == plain["counts"]["n_users"]
    own = {k: v for k, v in plain["counts"].items() if k != "n_users"}  # n_users: a column
    assert {k: overall["counts"][k] for k in own} == own
    assert overall["counts"]["n_users_missing"] == overall["counts"]["n_run_only_users"] == 1
    assert overall["counts"]["n_users_unassigned"] == 1
    header = invoke(make_runner(), *rank, "--by", tmp_path / "seg.csv", "-f", "csv").stdout
    columns = header.splitlines()[0].split(",")
    assert "n_run_items_unmatched" in columns and columns.count("n_users") == 1

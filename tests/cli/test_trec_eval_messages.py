"""``receval trec-eval``'s messages on bad input: one line on stderr naming the
file and line, what was expected and what was given, nothing on stdout, and
trec_eval's exit status (2 for a file it cannot read)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from receval.cli import app
from tests._pipes import pipe_of
from tests.cli._helpers import make_runner

GRADE_FIX = "; write grades as integers such as 0, 1 or 2 (is a column missing or out of order?)"
SCORE_FIX = "; write scores as decimal numbers such as 0.25 (is a column missing or out of order?)"

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 1\n"
RUN = "q1 Q0 d1 1 0.5 r\nq1 Q0 d2 2 0.4 r\nq2 Q0 d1 1 0.3 r\n"


def _invoke(tmp_path: Path, *options: str, qrels: str = QRELS, run: str = RUN):
    (tmp_path / "qrels").write_text(qrels)
    (tmp_path / "run").write_text(run)
    argv = ["trec-eval", *options, str(tmp_path / "qrels"), str(tmp_path / "run")]
    return make_runner().invoke(app, argv)


@pytest.mark.parametrize("score", ["1_000", "0.5_1", "1,5"])
def test_a_run_score_that_is_not_a_number(tmp_path, score):
    # Python's float() takes 1_000 and 0.5_1, which are not numbers of a run file
    result = _invoke(tmp_path, run=f"q1 Q0 d1 1 {score} r\n")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == (
        f"error: {tmp_path / 'run'}:1: the score {score!r} is not a number{SCORE_FIX}.\n"
    )


@pytest.mark.parametrize(
    ("score", "why"),
    [("1e400", "overflows float64 (its magnitude is above 1.8e308)"), ("-inf", "is not finite"),
     ("nan", "is not finite")],
)  # fmt: skip
def test_a_run_score_that_is_not_finite_is_named_as_written(tmp_path, score, why):
    result = _invoke(tmp_path, run=f"q1 Q0 d1 1 0.5 r\nq1 Q0 d2 2 {score} r\n")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == (
        f"error: {tmp_path / 'run'}:2: the score {score!r} {why}; scores must be finite numbers.\n"
    )


@pytest.mark.parametrize("which", ["qrels", "run"])
@pytest.mark.parametrize("text", ["", "\n# only a comment\n\n"])
def test_an_empty_file_says_which_and_what_it_lacks(tmp_path, which, text):
    # trec_eval 10.0 cannot read an empty file ("Quit in file", status 2)
    result = _invoke(tmp_path, **{which: text})
    assert result.exit_code == 2 and result.stdout == ""
    fields = "4 whitespace-separated fields (user iteration item grade)"
    if which == "run":
        fields = "at least 6 whitespace-separated fields (user Q0 item rank score tag)"
    assert result.stderr == (
        f"error: {tmp_path / which}: expected lines of {fields}; the {which} file has none "
        f"(it is empty, or holds only blank and '#' comment lines).\n"
    )


def test_a_pair_judged_twice_speaks_of_grades(tmp_path):
    result = _invoke(tmp_path, qrels=QRELS + "q1 0 d1 2\n")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == (
        f"error: {tmp_path / 'qrels'}:4: Qrels: user 'q1' has item 'd1' more than once. Each "
        f"(user, item) pair must appear once; drop duplicates first, e.g. keep the highest "
        f"grade per pair.\n"
    )


@pytest.mark.parametrize(
    ("run", "message"),
    [
        ("q1 Q0 d1 1 x r\n", "<stdin>:1: the score 'x' is not a number; write scores as"),
        ("q1 Q0 d1\n", "<stdin>:1: expected at least 6 whitespace-separated fields"),
        ("", "<stdin>: expected lines of at least 6 whitespace-separated fields"),
    ],
)
def test_standard_input_is_named_stdin(tmp_path, run, message):
    # '-' reads the run from standard input: messages name it <stdin>, not the
    # temporary copy receval reads
    (tmp_path / "qrels").write_text(QRELS)
    argv = ["trec-eval", "-m", "map", str(tmp_path / "qrels"), "-"]
    result = make_runner().invoke(app, argv, input=run)
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.startswith(f"error: {message}")
    assert "/run" not in result.stderr


LISTED = "`receval trec-eval -h` lists the measures receval computes."


@pytest.mark.parametrize(
    ("measure", "status", "message"),
    [
        # trec_eval 10.0: "illegal measure 'bogus'", status 1
        ("bogus", 1, f"trec-eval -m bogus: unknown measure 'bogus'. {LISTED}"),
        ("ndgc", 1, f"trec-eval -m ndgc: unknown measure 'ndgc'. Did you mean 'ndcg'? {LISTED}"),
        ("P_10", 1, f"trec-eval -m P_10: unknown measure 'P_10'. Did you mean 'P.10' (-m P.10)? "
                    f"{LISTED}"),
        # trec_eval reads names in their case only ("illegal measure 'p'"): the name in its case
        ("p.10", 1, "trec-eval -m p.10: unknown measure 'p'. Did you mean 'P' (measure names are "
                    f"case-sensitive)? {LISTED}"),
        # trec_eval computes yaap; receval refuses it as a bad input (2)
        ("yaap", 2, "trec-eval -m yaap: receval does not compute 'yaap', trec_eval's yet another "
                    f"average precision (Robertson, ECIR 2012); {LISTED}"),
    ],
)  # fmt: skip
def test_a_measure_receval_does_not_know_or_compute(tmp_path, measure, status, message):
    result = _invoke(tmp_path, "-m", measure)
    assert result.exit_code == status and result.stdout == ""
    assert result.stderr == f"error: {message}\n"


def test_help_lists_every_measure_from_the_registry():
    from receval.registry.trec_eval import MEASURES, NICKNAMES

    result = make_runner().invoke(app, ["trec-eval", "-h"])
    assert result.exit_code == 0
    listed = result.stdout.rpartition("Measures (-m)")[2]
    words = set(listed.replace(",", " ").replace(";", " ").replace(".", " ").split())
    assert {m.name for m in MEASURES} | set(NICKNAMES) | {"yaap"} <= words


@pytest.mark.parametrize(
    ("measure", "why"),
    [
        ("P.abc", "the cut-off 'abc' is not an integer"),
        ("P.5,", "the cut-off '' is not an integer"),
        ("ndcg_cut.5,x", "the cut-off 'x' is not an integer"),
        ("P.0,5", "the cut-off '0' is not positive"),
        ("success.-3", "the cut-off '-3' is not positive"),
        # C's atol reads ASCII digits only: Arabic-Indic '10' is 0 to trec_eval
        ("P.\u0661\u0660", "the cut-off '\u0661\u0660' is not an integer"),
    ],
)
def test_a_cut_off_that_is_no_positive_integer(tmp_path, measure, why):
    # trec_eval 10.0 reads each cut-off with atol (abc: 0) and cannot initialise the
    # measure (status 2) for one below 1
    result = _invoke(tmp_path, "-m", measure)
    assert result.exit_code == 2 and result.stdout == ""
    name = measure.partition(".")[0]
    assert result.stderr == (
        f"error: trec-eval -m {measure}: {why}; give positive integers separated by commas "
        f"(e.g. -m {name}.5,10).\n"
    )


def test_a_cut_off_given_twice(tmp_path):
    result = _invoke(tmp_path, "-m", "P.10,5,10")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == (
        "error: trec-eval -m P.10,5,10: the cut-off 10 is given twice; cut-offs must be "
        "distinct (e.g. -m P.5,10).\n"
    )
    # trec_eval's atol reads 5x as 5
    assert _invoke(tmp_path, "-m", "P.5x").stdout.startswith("P_5 ")


def test_the_qrels_cannot_come_from_standard_input(tmp_path):
    (tmp_path / "run").write_text(RUN)
    argv = ["trec-eval", "-m", "map", "-", str(tmp_path / "run")]
    result = make_runner().invoke(app, argv, input=QRELS)
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == (
        "error: trec-eval: expected the qrels file's path first, got '-'; only the run (the "
        "second file) can be read from standard input.\n"
    )


@pytest.mark.parametrize("parquet", ["qrels", "run", "stdin"])
def test_a_parquet_file_is_named_parquet(tmp_path, parquet):
    # it was "<file>:1: expected 4 whitespace-separated fields (user iteration item grade),
    # got 1: 'PAR1\\x15...'"
    import pyarrow as pa
    import pyarrow.parquet as pq

    paths = {"qrels": tmp_path / "qrels", "run": tmp_path / "run"}
    paths["qrels"].write_text(QRELS)
    paths["run"].write_text(RUN)
    table = pa.table({"user": ["q1"], "item": ["d1"], "score": [0.5]})
    pq.write_table(table, tmp_path / "x.parquet")
    given = tmp_path / "x.parquet" if parquet != "stdin" else "-"
    files = {**{k: str(v) for k, v in paths.items()}, parquet: str(given)}
    stdin = (tmp_path / "x.parquet").read_bytes() if parquet == "stdin" else None
    argv = ["trec-eval", files["qrels"], files.get("stdin", files["run"])]
    result = make_runner().invoke(app, argv, input=stdin)
    assert result.exit_code == 2 and result.stdout == ""
    named = "<stdin>" if parquet == "stdin" else given
    assert result.stderr == (
        f"error: {named}: the file is Parquet (it starts with 'PAR1'), not TREC text; evaluate "
        "Parquet files with receval rank --qrels FILE --run FILE, or write the file as TREC "
        "text (trec-eval reads text files only).\n"
    )


@pytest.mark.parametrize("which", ["qrels", "run", "stdin"])
def test_a_csv_file_is_named_csv_with_no_option_to_pass(tmp_path, which):
    # trec-eval reads TREC text alone: no --run-format csv to suggest
    text = {"qrels": "user,item,grade\nq1,d1,1\n"}.get(which, "user,item,score\nq1,d1,0.5\n")
    files = {"qrels": QRELS, "run": RUN, which: text}
    stdin = files.pop("stdin", None)
    result = _invoke_files(tmp_path, files, stdin)
    assert result.exit_code == 2 and result.stdout == ""
    named = "<stdin>" if which == "stdin" else tmp_path / which
    fields = "4 whitespace-separated fields (user iteration item grade)"
    if which != "qrels":
        fields = "at least 6 whitespace-separated fields (user Q0 item rank score tag)"
    assert result.stderr == (
        f"error: {named}:1: expected {fields}, got 1: {text.splitlines()[0]!r}; it looks like "
        f"a line of a CSV file (3 fields separated by commas), not TREC text: give every line "
        f"these fields, separated by spaces or tabs.\n"
    )


def _invoke_files(tmp_path: Path, files: dict[str, str], stdin: str | None):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    run = "-" if stdin is not None else str(tmp_path / "run")
    return make_runner().invoke(app, ["trec-eval", str(tmp_path / "qrels"), run], input=stdin)


def _parquet(text: str) -> bytes:
    """The lines of a TREC file as a Parquet file's bytes."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = pa.BufferOutputStream()
    rows = [line.split() for line in text.splitlines()]
    pq.write_table(pa.table({str(i): [r[i] for r in rows] for i in range(len(rows[0]))}), sink)
    return sink.getvalue().to_pybytes()


@pytest.mark.skipif(not os.path.isdir("/dev/fd"), reason="no /dev/fd")
@pytest.mark.parametrize("which", ["qrels", "run"])
def test_parquet_through_a_pipe_is_named_parquet(tmp_path, which):
    # a pipe (bash's <(cat qrels.parquet)) was read as text: "the qrels file has none"
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    with pipe_of(_parquet(QRELS if which == "qrels" else RUN)) as pipe:
        files = {"qrels": str(tmp_path / "qrels"), "run": str(tmp_path / "run"), which: pipe}
        result = make_runner().invoke(app, ["trec-eval", files["qrels"], files["run"]])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.startswith(
        f"error: {pipe}: the file is Parquet (it starts with 'PAR1'), not TREC text; "
    )


@pytest.mark.skipif(not os.path.isdir("/dev/fd"), reason="no /dev/fd")
def test_a_bad_line_of_a_pipe_is_named(tmp_path):
    # the pipe was read twice, the second time empty: "the qrels file has none"
    (tmp_path / "run").write_text(RUN)
    with pipe_of(b"q1 0 d1 1\nq2 0 d1 x\n") as pipe:
        result = make_runner().invoke(app, ["trec-eval", pipe, str(tmp_path / "run")])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == f"error: {pipe}:2: the grade 'x' is not an integer{GRADE_FIX}.\n"


def _examples(stderr: str) -> str:
    """The ids a message about unmatched ids names: from its "e.g." to the ']' before ';'."""
    start = stderr.index("e.g.")
    return stderr[start : stderr.index("];", start) + 1]


# the ids met first (q9, ..., d9, ..., r9, ..., e9, ...) are not the smallest: "Q1"
# (upper case first, as Python orders str), then "q10" (as text, not as a number)
_QUERIES = ["q9", "q8", "q7", "q6", "q5", "q4", "q3", "q10", "q2", "Q1"]


@pytest.mark.parametrize(
    ("qrels", "run", "named"),
    [
        (
            "".join(f"{q} 0 d{i} 1\n" for i, q in enumerate(_QUERIES)),
            "".join(f"r{q[1:]} Q0 d{i} 1 1.0 s\n" for i, q in enumerate(_QUERIES[:-1])),
            "e.g. qrels users ['Q1', 'q10', 'q2', 'q3', 'q4', ...], run users "
            "['r10', 'r2', 'r3', 'r4', 'r5', ...]",
        ),
        (
            "".join(f"{q} 0 d{9 - i} 1\n" for i, q in enumerate(_QUERIES)),
            "".join(f"{q} Q0 e{9 - i} 1 1.0 s\n" for i, q in enumerate(_QUERIES)),
            "e.g. run items ['e0', 'e1', 'e2', 'e3', 'e4', ...], qrels items "
            "['d0', 'd1', 'd2', 'd3', 'd4', ...]",
        ),
    ],
    ids=["queries", "documents"],
)
@pytest.mark.parametrize(
    "options", [("-m", "map"), ("-R", "qrels_jg", "-m", "map_avgjg")], ids=["qrels", "qrels_jg"]
)
def test_unmatched_ids_are_named_as_rank_names_them(tmp_path, qrels, run, named, options):
    # the smallest ids of each file, the same as receval rank and receval.evaluate name
    # (the qrels read as judgment groups too: group "0" of each query)
    result = _invoke(tmp_path, "-c", *options, qrels=qrels, run=run)
    assert result.exit_code == 0
    assert _examples(result.stderr) == named
    rank = make_runner().invoke(app, ["rank", "--qrels", str(tmp_path / "qrels"), "--run",
                                      str(tmp_path / "run"), "-m", "map"])  # fmt: skip
    assert rank.exit_code == 2
    assert _examples(rank.stderr) == named


def test_a_gain_table_refuses_a_grade_past_its_levels(tmp_path):
    # the table holds a level for each integer from 0 to the largest grade, for each
    # query: a grade of 1e12 asked the core for 1e12 levels (the process aborted)
    result = _invoke(tmp_path, "-m", "ndcg.1=1", qrels="q1 0 d1 1000000000000\nq1 0 d2 1\n")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == (
        f"error: trec-eval: {tmp_path / 'qrels'}: measure ndcg_1=1 gains by a table with a "
        "level for each integer from 0 to the largest grade, below 65,536. Got a grade of "
        "1e+12; map the grades to a smaller range.\n"
    )
    assert _invoke(tmp_path, "-m", "ndcg.1=1", qrels="q1 0 d1 65535\n").exit_code == 0

"""``receval trec-eval`` where trec_eval 10.0 stops: its exit status and what it printed.

The expected outputs and statuses are trec_eval 10.0's (usnistgov/trec_eval at
v10.0, built by benchmarks/build_trec_eval.sh), recorded on the files below.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from receval.cli import app
from receval.exceptions import InputValidationError, InvalidParameterError
from receval.trec.trec_eval import TrecEvalAbort, trec_eval
from tests.cli._helpers import make_runner

# query c of the qrels has no document in the run; z of the run is not judged
QRELS = "a 0 d1 1\na 0 d2 0\na 0 d3 2\nb 0 d1 0\nb 0 d4 1\nc 0 d1 1\nd 0 d2 1\n"
RUN = (
    "a Q0 d1 1 0.9 r\na Q0 d3 2 0.5 r\na Q0 d9 3 0.5 r\nb Q0 d4 1 0.3 r\n"
    "b Q0 d1 2 0.2 r\nd Q0 d2 1 1.0 r\nz Q0 d2 1 1.0 r\n"
)
ZSCORES = "a P_5 0.2 0.1\nb P_5 0.1 0.05\n"

# trec_eval 10.0: the -q lines of a and b, then "result qid 'c' not found", status 4
STOPPED_AT_C = {
    ("-q", "-m", "P.5", "-m", "relstring", "-m", "num_rel"): (
        "num_rel               \ta\t2\n"
        "P_5                   \ta\t0.4000\n"
        "relstring             \ta\t'1-2'\n"
        "num_rel               \tb\t1\n"
        "P_5                   \tb\t0.2000\n"
        "relstring             \tb\t'10'\n"
    ),
    ("-q", "-n", "-m", "ndcg", "-m", "num_ret"): (
        "num_ret               \ta\t3\n"
        "ndcg                  \ta\t0.7602\n"
        "num_ret               \tb\t2\n"
        "ndcg                  \tb\t1.0000\n"
    ),
    ("-q", "-m", "P.5", "-Z", "{z}"): (
        "ZP_5                   \ta\t2.0000\nZP_5                   \tb\t2.0000\n"
    ),
    ("-m", "map"): "",  # no -q: nothing printed before the stop
}


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    out = {}
    for name, text in (("qrels", QRELS), ("run", RUN), ("z", ZSCORES)):
        (tmp_path / name).write_text(text)
        out[name] = str(tmp_path / name)
    return out


def _argv(options: tuple[str, ...], files: dict[str, str], *names: str) -> list[str]:
    return [o.format(**files) for o in options] + [files[n] for n in names or ("qrels", "run")]


@pytest.mark.parametrize("options", list(STOPPED_AT_C), ids=" ".join)
def test_a_query_absent_from_the_run_prints_the_queries_before_it_and_exits_4(
    files: dict[str, str], options: tuple[str, ...]
) -> None:
    result = make_runner().invoke(app, ["trec-eval", *_argv(options, files)])
    assert result.exit_code == 4
    assert result.stdout == STOPPED_AT_C[options]
    assert result.stderr.startswith("error: trec-eval: query 'c' of the qrels has no documents")
    assert "pass -c" in result.stderr


def test_the_python_api_raises_the_status_and_the_partial_output(
    files: dict[str, str],
) -> None:
    options = ("-q", "-n", "-m", "ndcg", "-m", "num_ret")
    with pytest.raises(TrecEvalAbort) as info:
        trec_eval(_argv(options, files))
    assert isinstance(info.value, InvalidParameterError)
    assert info.value.status == 4
    assert info.value.output == STOPPED_AT_C[options]
    # with -c the same lines come first, then c and d, then the summary
    text = trec_eval(_argv(("-c", *options), files))
    assert text.startswith(STOPPED_AT_C[options])
    assert "ndcg                  \tc\t0.0000\n" in text


@pytest.mark.parametrize(
    ("options", "names", "status", "message"),
    [
        (("-x",), (), 1, "option -x not recognized"),
        (("-q",), ("qrels",), 1, "expected two files"),
        (("-m", "bogus"), (), 1, "unknown measure"),
        (("-m", "P.0,5"), (), 2, "the cut-off '0' is not positive"),  # cannot initialize
        (("-R", "nope"), (), 2, "unknown relevance format"),
        (("-m", "map"), ("qrels", "missing"), 2, "no such file"),
        (("-m", "map_avgjg"), (), 4, "map_avgjg"),  # cannot calculate
        (("-q", "-c", "-m", "map", "-Z", "{qrels}"), (), 255, "must be numbers"),
    ],
)
def test_each_stop_exits_with_trec_evals_status(
    files: dict[str, str],
    options: tuple[str, ...],
    names: tuple[str, ...],
    status: int,
    message: str,
) -> None:
    files = {**files, "missing": files["run"] + ".absent"}
    result = make_runner().invoke(app, ["trec-eval", *_argv(options, files, *names)])
    assert result.exit_code == status
    assert result.stdout == ""
    assert result.stderr.startswith("error: ") and message in result.stderr


def test_a_malformed_file_is_an_input_error_with_status_2(files: dict[str, str]) -> None:
    Path(files["run"]).write_text("a Q0 d1 1\n")
    with pytest.raises(TrecEvalAbort) as info:
        trec_eval(_argv(("-m", "map"), files))
    assert isinstance(info.value, InputValidationError)
    assert info.value.status == 2
    assert ":1:" in str(info.value)


@pytest.mark.parametrize(
    ("qrels", "expected"),
    [
        # trec_eval 10.0: "Can't calculate measure 'map'", status 4 (every grade of the
        # first query negative); segmentation fault (a later query's grades all <= -2)
        ("a 0 d1 -1\na 0 d3 -1\n", "map                   \ta\t0.0000\n"),
        ("a 0 d1 1\nb 0 d4 -2\n", "map                   \ta\t1.0000\n"),
    ],
)
def test_all_negative_judgments_are_scored_where_trec_eval_stops(
    files: dict[str, str], qrels: str, expected: str
) -> None:
    Path(files["qrels"]).write_text(qrels)
    result = make_runner().invoke(app, ["trec-eval", "-q", "-m", "map", *_argv((), files)])
    assert result.exit_code == 0
    assert result.stdout.startswith(expected)
    assert "\tall\t" in result.stdout


def test_a_query_absent_from_the_zscores_prints_the_missing_value(
    files: dict[str, str],
) -> None:
    # trec_eval 10.0 reads past its z-score table (a segmentation fault) for a query
    # after the last one of the -Z file; receval prints its missing value, -1000000
    text = trec_eval(_argv(("-q", "-c", "-m", "P.5", "-Z", "{z}"), files))
    assert "ZP_5                   \td\t-1000000.0000\n" in text


def test_contradicting_preferences_stop_at_their_query(tmp_path: Path) -> None:
    # q2's judgment group gives d1 level 0 and a level above 0: trec_eval 10.0 prints
    # q1's lines, "Can't calculate measure 'prefs_simp'", status 4
    (tmp_path / "prefs").write_text(
        "q1 u s1 d1 2\nq1 u s1 d2 0\nq2 u s1 d1 1\nq2 u s2 d1 0\nq2 u s1 d2 2\n"
    )
    (tmp_path / "run").write_text(
        "q1 Q0 d1 1 0.9 r\nq1 Q0 d2 2 0.5 r\nq2 Q0 d1 1 0.9 r\nq2 Q0 d2 2 0.8 r\n"
    )
    options = ["-q", "-R", "prefs", "-m", "prefs_simp", "-m", "prefs_pair"]
    files = [str(tmp_path / "prefs"), str(tmp_path / "run")]
    result = make_runner().invoke(app, ["trec-eval", *options, *files])
    assert result.exit_code == 4
    assert (
        result.stdout == "prefs_simp            \tq1\t1.0000\nprefs_pair            \tq1\t1.0000\n"
    )
    assert "query 'q2'" in result.stderr and "has both level 0" in result.stderr


def test_the_first_query_that_contradicts_itself_stops_the_output(tmp_path: Path) -> None:
    # q3 and q5 contradict themselves (d1 at level 0 and above it in one query); the
    # queries before q3 are printed, whichever contradiction the search meets first
    lines, ranked = [], []
    for q in ("q1", "q2", "q3", "q4", "q5", "q6"):
        lines += [f"{q} u s1 d1 2", f"{q} u s1 d2 0"]
        if q in ("q3", "q5"):
            lines.append(f"{q} u s2 d1 0")
        ranked += [f"{q} Q0 d1 1 0.9 r", f"{q} Q0 d2 2 0.5 r"]
    (tmp_path / "prefs").write_text("\n".join(lines) + "\n")
    (tmp_path / "run").write_text("\n".join(ranked) + "\n")
    options = ["-q", "-R", "prefs", "-m", "prefs_simp"]
    files = [str(tmp_path / "prefs"), str(tmp_path / "run")]
    result = make_runner().invoke(app, ["trec-eval", *options, *files])
    assert result.exit_code == 4
    assert result.stdout == "".join(f"prefs_simp            \t{q}\t1.0000\n" for q in ("q1", "q2"))
    assert "query 'q3'" in result.stderr and "has both level 0" in result.stderr


def test_the_readme_quotes_the_statuses_it_exits_with() -> None:
    # trec-eval is a drop-in: where trec_eval stops it exits with trec_eval's status,
    # not with the 2 of receval's other commands
    from receval.trec.options import FILE, NO_QUERY, QUERY, USAGE, ZSCORES

    readme = Path(__file__).resolve().parents[2] / "README.md"
    text = " ".join(readme.read_text(encoding="utf-8").split())
    paragraph = text[text.index("- `trec-eval` is trec_eval 10.0 as a drop-in") :]
    paragraph = paragraph[: paragraph.index("Judgment groups")]
    assert {int(n) for n in re.findall(r"\b(\d+): ", paragraph)} == {
        USAGE, FILE, QUERY, NO_QUERY, ZSCORES
    }  # fmt: skip
    assert "exit with 2" not in paragraph

"""trec_eval's ``make quicktest``, with ``receval trec-eval`` in place of the binary.

The 15 commands of the quicktest target of trec_eval 10.0's Makefile (listed in
``data/trec_eval/commands.json`` with their Makefile lines) run through
:func:`receval.trec.trec_eval.trec_eval` and through the command line; the output
must equal trec_eval's expected file of its ``test/`` directory byte for byte
(the diff of the Makefile is empty), the judgment-group commands (``-R qrels_jg``)
and the preference ones (``-R prefs``, ``-R qrels_prefs``) included.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from receval.exceptions import InvalidParameterError
from receval.trec.trec_eval import trec_eval

DATA = Path(__file__).parent / "data" / "trec_eval"
SPEC = json.loads((DATA / "commands.json").read_text())
COMMANDS = {c["id"]: c for c in SPEC["commands"]}


def argv(command: dict) -> list[str]:
    """The command's options and files, its paths in the data directory."""
    options = [str(DATA / Path(o).name) if o.startswith("test/") else o for o in command["options"]]
    return [*options, str(DATA / command["qrels"]), str(DATA / command["run"])]


@pytest.mark.parametrize("cid", sorted(COMMANDS))
def test_quicktest_output_is_trec_evals(cid: str) -> None:
    command = COMMANDS[cid]
    expected = (DATA / command["expected"]).read_text()
    got = trec_eval(argv(command))
    assert got.splitlines() == expected.splitlines()  # a readable diff first
    assert got == expected


def test_command_line_prints_the_same_bytes(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from receval.cli import app

    command = COMMANDS["aqcM"]
    result = CliRunner().invoke(app, ["trec-eval", *argv(command)])
    assert result.exit_code == 0, result.output
    assert result.stdout == (DATA / command["expected"]).read_text()
    # the run from standard input
    run = tmp_path / "run"
    shutil.copy(DATA / "results.test", run)
    result = CliRunner().invoke(
        app,
        ["trec-eval", "-m", "P.5", str(DATA / "qrels.test"), "-"],
        input=run.read_text(),
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0].startswith("P_5")


@pytest.mark.parametrize(
    ("args", "message", "status"),
    [
        # trec_eval 10.0's status at the same stop (1: illegal measure or option,
        # 2: cannot initialize a measure or read a file, 4: cannot calculate a measure)
        (["-m", "P_10"], "unknown measure 'P_10'. Did you mean 'P.10'", 1),
        (["-m", "P.0,5"], "the cut-off '0' is not positive", 2),
        (["-m", "P.5,5"], "the cut-off 5 is given twice; cut-offs must be distinct", 2),
        # utility's coefficients are counted when it is calculated, at the first query
        (["-m", "utility.1,2"], "expected 4 comma-separated numbers", 4),
        (["-m", "ndcg.1"], "expected name=value pairs", 2),
        (["-M", "x"], "-M: expected an integer", 1),
        (["-x"], "option -x not recognized", 1),
        (["-m", "prefs_simp"], "it needs preference judgments (-R prefs or -R qrels_prefs)", 4),
        (["-R", "prefs", "-m", "map"], "-R prefs: 'map' is not computed from preferences", 4),
        (["-R", "qrels_prefs"], "'num_ret' is not computed from preferences", 4),  # -m official
        (["-R", "prefs_x"], "unknown relevance format", 2),
    ],
)
def test_bad_options_exit_as_trec_eval_naming_the_option(
    args: list[str], message: str, status: int
) -> None:
    from typer.testing import CliRunner

    from receval.cli import app

    files = [str(DATA / "qrels.test"), str(DATA / "results.test")]
    result = CliRunner().invoke(app, ["trec-eval", *args, *files])
    assert result.exit_code == status
    assert result.stdout == ""
    assert message in result.stderr
    assert result.stderr.startswith("error: ")


def test_a_qrels_query_absent_from_the_run_needs_c(tmp_path: Path) -> None:
    run = tmp_path / "run"
    lines = (DATA / "results.test").read_text().splitlines()
    run.write_text("".join(line + "\n" for line in lines if line.split()[0] != "302"))
    with pytest.raises(InvalidParameterError, match=r"query '302' of the qrels.*pass -c"):
        trec_eval([str(DATA / "qrels.test"), str(run)])
    text = trec_eval(["-c", "-q", "-m", "num_q", "-m", "P.5", str(DATA / "qrels.test"), str(run)])
    assert "P_5                   \t302\t0.0000\n" in text
    assert "num_q                 \tall\t3\n" in text


def test_help_lists_the_options() -> None:
    from typer.testing import CliRunner

    from receval.cli import app

    result = CliRunner().invoke(app, ["trec-eval", "-h"])
    assert result.exit_code == 0
    for flag in ("-q", "-c", "-n", "-l N", "-M N", "-J", "-m M", "-Z F"):
        assert flag in result.stdout


def test_collection_size_moves_utility_by_d_times_n() -> None:
    # -N: utility's d counts the collection's non-relevant documents not retrieved
    files = [str(DATA / "qrels.test"), str(DATA / "results.test")]
    base = trec_eval(["-q", "-m", "utility.1,-1,0,0.01", *files])
    with_n = trec_eval(["-q", "-N", "5000", "-m", "utility.1,-1,0,0.01", *files])
    for a, b in zip(base.splitlines(), with_n.splitlines(), strict=True):
        assert float(b.split("\t")[2]) - float(a.split("\t")[2]) == pytest.approx(50.0)

"""Every command as a Unix tool: its input files in the shapes files come in (empty, no
final line end, CRLF, a byte-order mark, gzip, a space in the path, standard input), a
directory or a file of another format where a file is due, ``-o -``, and a pipe closed
early. Results go to stdout, notes and errors to stderr; bad input exits 2 with
``error: ...`` naming the file."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.cli._helpers import invoke, make_runner

QRELS = "u1 0 i1 1\nu1 0 i2 0\nu2 0 i3 2\n"
RUN = "u1 Q0 i1 1 0.9 r\nu1 Q0 i2 2 0.8 r\nu2 Q0 i3 1 0.7 r\nu2 Q0 i1 2 0.1 r\n"
IMPRESSIONS = (
    "user,label,s1,s2\nu1,1,0.9,0.8\nu1,0,0.2,0.3\nu2,1,0.3333333333333333,0.5\n"
    "u2,0,0.6,0.1\nu3,1,0.7,0.6\nu3,0,0.1,0.2\nu4,1,0.8,0.4\nu4,0,0.4,0.5\n"
)
EVENTS = "user,time\nu1,2024-01-01\nu1,2024-01-02\nu2,2024-01-01\nu3,2024-01-03\n"
FEEDBACK = "reward,pscore,target\n1,0.5,0.3333333333333333\n0,0.25,0.7\n1,0.1,0.9\n"
LOG = "user,item,time\nu1,a,1\nu1,b,2\nu1,c,3\nu2,a,1\nu2,d,4\nu2,e,5\n"

#: Each command with the one input file it is probed on: (its text, its suffix, the
#: arguments with ``{}`` where the file goes); every other file is a good one.
COMMANDS = {
    "rank --qrels": (QRELS, ".txt", ["rank", "--qrels", "{}", "--run", "run.txt"]),
    "rank --run": (RUN, ".txt", ["rank", "--qrels", "qrels.txt", "--run", "{}"]),
    "trec-eval": (RUN, ".txt", ["trec-eval", "qrels.txt", "{}"]),
    "ctr": (IMPRESSIONS, ".csv", ["ctr", "{}", "--label", "label", "--score", "s1"]),
    "compare": (IMPRESSIONS, ".csv",
                ["compare", "--impressions", "{}", "--label", "label", "--score", "s1",
                 "--score", "s2"]),
    "gate": (IMPRESSIONS, ".csv",
             ["gate", "--impressions", "{}", "--label", "label", "--candidate", "s1",
              "--baseline", "s2", "--rule", "auc=non_inferiority:0.5"]),
    "retention": (EVENTS, ".csv", ["retention", "{}"]),
    "off-policy": (FEEDBACK, ".csv", ["off-policy", "{}"]),
    "split": (LOG, ".csv", ["split", "{}", "-o", "train.csv", "-O", "test.csv"]),
    "audit --train": (LOG, ".csv", ["audit", "--train", "{}", "--test", "log.csv"]),
    "report --events": (EVENTS, ".csv",
                        ["report", "--events", "{}", "-o", "report.html", "--no-timestamp"]),
}  # fmt: skip


def _crlf(text: str) -> bytes:
    return text.replace("\n", "\r\n").encode()


#: The shapes a well-formed input comes in: each gives the command's result.
SHAPES = {
    "plain": lambda text: text.encode(),
    "no final line end": lambda text: text.rstrip("\n").encode(),
    "CRLF": _crlf,
    "byte-order mark": lambda text: b"\xef\xbb\xbf" + text.encode(),
    "byte-order mark and CRLF": lambda text: b"\xef\xbb\xbf" + _crlf(text),
    "gzip": lambda text: gzip.compress(text.encode()),
}


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory with a good file of every kind."""
    monkeypatch.chdir(tmp_path)
    for name, text in [("qrels.txt", QRELS), ("run.txt", RUN), ("log.csv", LOG)]:
        (tmp_path / name).write_text(text)
    return tmp_path


def _args(command: str, path: str) -> list[str]:
    return [path if a == "{}" else a for a in COMMANDS[command][2]]


def _exits_ok(args: list[str]) -> None:
    result = make_runner().invoke(_app(), args)
    assert result.exception is None or isinstance(result.exception, SystemExit), result
    assert result.exit_code in (0, 1), (result.stdout, result.stderr)  # gate: 1 = fails
    assert not any(line.startswith("error") for line in result.stderr.splitlines())


def _app():
    from receval.cli import app

    return app


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("command", COMMANDS)
def test_every_shape_of_a_good_file_is_read(here: Path, command: str, shape: str) -> None:
    text, suffix, _ = COMMANDS[command]
    name = f"in put{suffix}" + (".gz" if shape == "gzip" else "")  # a space in the path
    (here / name).write_bytes(SHAPES[shape](text))
    _exits_ok(_args(command, name))


@pytest.mark.parametrize("command", COMMANDS)
def test_standard_input_as_the_file(here: Path, command: str) -> None:
    result = make_runner().invoke(_app(), _args(command, "-"), input=COMMANDS[command][0])
    assert result.exit_code in (0, 1), (result.stdout, result.stderr)
    assert not any(line.startswith("error") for line in result.stderr.splitlines())


#: Files that are not what is due.
BAD = {
    "empty": lambda text: b"",
    "Parquet by its suffix": lambda text: text.encode(),
    "UTF-16": lambda text: text.encode("utf-16"),
}


@pytest.mark.parametrize(
    ("command", "bad"),
    # trec-eval reads its files as text whatever their names, as trec_eval does
    [(c, b) for c in COMMANDS for b in BAD if (c, b) != ("trec-eval", "Parquet by its suffix")],
)
def test_a_bad_file_is_an_error_naming_it(here: Path, command: str, bad: str) -> None:
    text, suffix, _ = COMMANDS[command]
    name = "bad input" + (".parquet" if bad == "Parquet by its suffix" else suffix)
    (here / name).write_bytes(BAD[bad](text))
    result = make_runner().invoke(_app(), _args(command, name))
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert result.stdout == ""
    # the error is the last line (a warning may come first: receval report without plotly
    # or matplotlib says its figures are left out)
    assert result.stderr.splitlines()[-1].startswith("error: "), result.stderr
    assert name in result.stderr and "Traceback" not in result.stderr


def test_a_header_not_utf8_is_named_at_its_line(here: Path) -> None:
    # audit read the header with no guard: error: 'utf-8' codec can't decode byte 0xff
    (here / "train.csv").write_bytes(LOG.encode("utf-16"))
    result = invoke(make_runner(), "audit", "--train", "train.csv", code=2)
    assert result.stderr == (
        "error: train.csv:1: the header is not valid UTF-8 (byte 0xff at byte 1 of a "
        "column name); save the file as UTF-8.\n"
    )


@pytest.mark.parametrize("command", COMMANDS)
def test_a_directory_is_named_as_one(here: Path, command: str) -> None:
    # the commands of impression and event logs said they could not tell the format of
    # the directory from its suffix, and to pass --input-format
    (here / "folder").mkdir()
    result = invoke(make_runner(), *_args(command, "folder"), code=2)
    assert result.stdout == ""
    if command == "split":  # temporal and leave-last-out split a directory of Parquet files
        assert result.stderr == "error: folder: the directory has no Parquet files.\n"
    else:
        assert "folder: is a directory, not a file; name one file" in result.stderr


@pytest.mark.parametrize("option", ["-o", "-O"])
def test_split_says_its_parts_do_not_go_to_standard_output(here: Path, option: str) -> None:
    # it suggested the file name '-.parquet'
    other = {"-o": "-O", "-O": "-o"}[option]
    result = invoke(make_runner(), "split", "log.csv", option, "-", other, "x.csv", code=2)
    part = {"-o": "train", "-O": "test"}[option]
    assert "not to standard output. Got '-'" in result.stderr
    assert result.stderr.endswith(f"name a file, e.g. {option} {part}.csv.\n")


# ------------------------------------------------------------------ numbers, -o -, pipes
@pytest.mark.parametrize("fmt", ["json", "csv", "tsv"])
def test_numbers_are_written_in_full(here: Path, fmt: str) -> None:
    from receval import log_loss, roc_auc_score

    (here / "imp.csv").write_text(IMPRESSIONS)
    result = invoke(make_runner(), "ctr", "imp.csv", "--label", "label", "--score", "s1",
                    "-m", "auc", "-m", "logloss", "-f", fmt)  # fmt: skip
    if fmt == "json":
        row = json.loads(result.stdout)[0]
    else:
        lines = [line.split("," if fmt == "csv" else "\t") for line in result.stdout.splitlines()]
        row = dict(zip(lines[0], lines[1], strict=True))
    labels = np.array([1, 0, 1, 0, 1, 0, 1, 0])
    scores = np.array([0.9, 0.2, 1 / 3, 0.6, 0.7, 0.1, 0.8, 0.4])
    assert float(row["auc"]) == roc_auc_score(labels, scores)
    assert float(row["logloss"]) == log_loss(labels, scores)


def _receval(*args: str, **kw) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "receval", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        **kw,
    )


@pytest.mark.parametrize(
    "args",
    [
        ["retrieve", "--users", "users.npy", "--items", "items.npy", "--k", "5", "-o", "-", "-q"],
        ["metrics", "--format", "markdown"],
        ["metrics", "--format", "csv"],
    ],
    ids=["retrieve -o -", "metrics markdown", "metrics csv"],
)
def test_a_pipe_closed_early_is_quiet(here: Path, args: list[str]) -> None:
    rng = np.random.default_rng(0)
    np.save(here / "users.npy", rng.random((20000, 4)))
    np.save(here / "items.npy", rng.random((50, 4)))
    process = _receval(*args)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.read(10)
    process.stdout.close()
    stderr = process.stderr.read()
    assert process.wait() in (0, 141)  # 0 where the output fitted in the pipe
    assert b"Traceback" not in stderr and b"BrokenPipeError" not in stderr


def test_output_dash_writes_the_run_to_stdout_and_notes_to_stderr(here: Path) -> None:
    rng = np.random.default_rng(0)
    np.save(here / "users.npy", rng.random((3, 4)))
    np.save(here / "items.npy", rng.random((5, 4)))
    done = subprocess.run(
        [sys.executable, "-m", "receval", "retrieve", "--users", "users.npy", "--items",
         "items.npy", "--k", "2", "-o", "-"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0
    assert len(done.stdout.splitlines()) == 6
    assert all(len(line.split()) == 6 for line in done.stdout.splitlines())
    assert done.stderr == "note: wrote 6 rows for 3 users to standard output.\n"
    quiet = subprocess.run(
        [sys.executable, "-m", "receval", "retrieve", "--users", "users.npy", "--items",
         "items.npy", "--k", "2", "-o", "-", "-q"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert quiet.returncode == 0 and quiet.stderr == "" and quiet.stdout == done.stdout

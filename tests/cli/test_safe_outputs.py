"""Outputs that cannot hurt: formula-safe CSV/TSV, escaped Markdown, a checked ``--out``,
and standard output that fails loudly (full disk, file-size limit) or quietly (closed pipe).
"""

from __future__ import annotations

import csv
import io
import os
import resource
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from receval.cli._output import OutputFormat, ResultTable, render
from receval.exceptions import InvalidParameterError
from receval.report import HTMLReport

from ._helpers import invoke, make_runner

TEXT = ['=HYPERLINK("http://x")', "+1+2", "-2+3", "@SUM(A1)", "\tx", "\rx", "plain", "-5"]


def _table() -> ResultTable:
    rows = [[t, -0.5, -3, float("nan")] for t in TEXT]
    return ResultTable(["=cmd()", "-value", "count", "note"], rows)


@pytest.mark.parametrize(("fmt", "delimiter"), [(OutputFormat.csv, ","), (OutputFormat.tsv, "\t")])
def test_formula_cells_get_a_quote_and_numbers_are_untouched(fmt, delimiter) -> None:
    out = io.StringIO()
    render(_table(), fmt, out=out)
    rows = list(csv.reader(io.StringIO(out.getvalue(), newline=""), delimiter=delimiter))
    assert rows[0] == ["'=cmd()", "'-value", "count", "note"]
    got = [row[0] for row in rows[1:]]
    # a text cell a spreadsheet would read as a formula starts with ' ; "-5" is a number
    assert got == ["'" + t for t in TEXT[:6]] + ["plain", "-5"]
    assert all(row[1:] == ["-0.5", "-3", "nan"] for row in rows[1:])


def test_formula_cells_from_the_command_line(tmp_path: Path) -> None:
    (tmp_path / "q.csv").write_text("user,item,grade\n=1+2,i1,1\n@u,i2,1\n")
    (tmp_path / "r.csv").write_text("user,item,score\n=1+2,i1,0.5\n@u,i3,-0.5\n")
    args = ["rank", "--qrels", tmp_path / "q.csv", "--run", tmp_path / "r.csv"]
    result = invoke(make_runner(), *args, "--per-user", "-m", "ndcg@10", "-f", "csv")
    assert result.stdout.splitlines()[1:] == ["'=1+2,r.csv,1.0", "'@u,r.csv,0.0"]


def test_markdown_escapes_html() -> None:
    table = ResultTable(["<img src=x onerror=alert(1)>", "a|b"], [["<b>&</b>", 0.5]])
    out = io.StringIO()
    render(table, OutputFormat.markdown, out=out)
    text = out.getvalue()
    assert "<img" not in text and "<b>" not in text
    assert "&lt;img src=x onerror=alert(1)&gt;" in text
    assert "&lt;b&gt;&amp;&lt;/b&gt;" in text and "a\\|b" in text


def test_markdown_keeps_a_row_on_one_line() -> None:
    # a line break in an id broke the table's row in two; a backslash was Markdown's escape
    table = ResultTable(["segment", "auc"], [["x\ny", 0.5], ["a\r\nb\rc", 0.25], ["\\x", 1.0]])
    out = io.StringIO()
    render(table, OutputFormat.markdown, out=out)
    assert out.getvalue().splitlines()[2:] == [
        "| x<br>y | 0.5000 |",
        "| a<br>b<br>c | 0.2500 |",
        "| \\\\x | 1.0000 |",
    ]


@pytest.mark.parametrize(
    ("fmt", "shown"),
    [
        (OutputFormat.markdown, "\\\\x1b\\[31mred"),
        (OutputFormat.latex, "\\textbackslash{}x1b{[}31mred"),
    ],
)
def test_markdown_and_latex_show_control_characters(fmt, shown) -> None:
    # an escape sequence in a name reached the file or terminal raw (the table format and
    # the messages already showed it as \x1b)
    out = io.StringIO()
    render(ResultTable(["run", "auc"], [["\x1b[31mred", 0.5]]), fmt, out=out)
    assert "\x1b" not in out.getvalue() and shown in out.getvalue()


# ------------------------------------------------------------------ --out
def _report(tmp_path: Path, *inputs: str) -> HTMLReport:
    doc = HTMLReport("t", timestamp=False)
    for name in inputs:
        doc.add_input(name, 1)
    return doc


@pytest.mark.parametrize("kind", ["character device", "named pipe", "folder"])
def test_out_refuses_what_is_not_a_regular_file(tmp_path: Path, kind: str) -> None:
    if kind == "character device":
        target = "/dev/null"
    elif kind == "named pipe":
        target = str(tmp_path / "fifo")
        os.mkfifo(target)
    else:
        target = str(tmp_path)
    before = os.stat(target)
    with pytest.raises(InvalidParameterError, match=f"must be a regular file.*{kind}"):
        _report(tmp_path).write(target)
    after = os.stat(target)
    assert (after.st_ino, after.st_mode) == (before.st_ino, before.st_mode)


def test_out_refuses_an_input_of_the_same_report(tmp_path: Path) -> None:
    run = tmp_path / "run.csv"
    run.write_text("user,item,score\nu,i,1\n")
    with pytest.raises(InvalidParameterError, match="must not be one of the inputs"):
        _report(tmp_path, str(run)).write(tmp_path / "." / "run.csv")  # another spelling
    assert run.read_text() == "user,item,score\nu,i,1\n"
    # the command refuses before reading anything
    (tmp_path / "q.csv").write_text("user,item,grade\nu,i,1\n")
    args = ["report", "--qrels", tmp_path / "q.csv", "--run", run, "-o", run]
    result = invoke(make_runner(), *args, code=2)
    assert "receval report --out" in result.stderr
    assert "must not be one of the inputs" in result.stderr
    assert run.read_text() == "user,item,score\nu,i,1\n"
    result = invoke(make_runner(), "report", "--qrels", tmp_path / "q.csv", "--run", run,
                    "-o", "/dev/null", code=2)  # fmt: skip
    assert "a character device" in result.stderr


def test_out_keeps_permissions_follows_links_and_leaves_no_temporary(tmp_path: Path) -> None:
    old = tmp_path / "report.html"
    old.write_text("old")
    old.chmod(0o640)
    link = tmp_path / "link.html"
    link.symlink_to(old)
    _report(tmp_path).write(link, numbers=False)
    assert link.is_symlink() and old.read_text().startswith("<!DOCTYPE html>")
    assert stat.S_IMODE(old.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.html", "report.html"]


# ------------------------------------------------------------------ standard output
def _receval(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "receval", *args], stderr=subprocess.PIPE, text=True, **kw
    )


@pytest.fixture
def big(tmp_path: Path) -> list[str]:
    """``rank --per-user -f csv`` of 20,000 users: about 600 kB on stdout."""
    (tmp_path / "q.csv").write_text(
        "user,item,grade\n" + "".join(f"u{i},i{i},1\n" for i in range(20000))
    )
    (tmp_path / "r.csv").write_text(
        "user,item,score\n" + "".join(f"u{i},i{i},0.5\n" for i in range(20000))
    )
    return ["rank", "--qrels", str(tmp_path / "q.csv"), "--run", str(tmp_path / "r.csv"),
            "--per-user", "-m", "ndcg@10"]  # fmt: skip


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_a_full_disk_is_an_error(big: list[str], fmt: str) -> None:
    with open("/dev/full", "w") as full:
        done = _receval(*big, "-f", fmt, stdout=full)
    assert done.returncode == 2
    assert done.stderr == "error: standard output: No space left on device.\n"


def test_a_file_size_limit_is_an_error(big: list[str], tmp_path: Path) -> None:
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (100_000, resource.RLIM_INFINITY))

    with open(tmp_path / "out.csv", "w") as out:
        done = _receval(*big, "-f", "csv", stdout=out, preexec_fn=limit)
    assert done.returncode == 2
    assert done.stderr == "error: standard output: File too large.\n"


@pytest.mark.parametrize("command", ["rank", "trec-eval"])
def test_a_closed_pipe_is_quiet(big: list[str], command: str, tmp_path: Path) -> None:
    # 128 + SIGPIPE, as the shell reports a tool that SIGPIPE stopped: it was 1, which
    # is also gate's status of a failed candidate
    args = [*big, "-f", "csv"]
    if command == "trec-eval":
        trec = tmp_path / "q.trec", tmp_path / "r.trec"
        trec[0].write_text("".join(f"u{i} 0 i{i} 1\n" for i in range(20000)))
        trec[1].write_text("".join(f"u{i} Q0 i{i} 1 0.5 r\n" for i in range(20000)))
        args = ["trec-eval", "-q", "-m", "P.5", str(trec[0]), str(trec[1])]
    process = subprocess.Popen(
        [sys.executable, "-m", "receval", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.read(10)
    process.stdout.close()
    stderr = process.stderr.read()
    assert process.wait() == 141
    assert stderr == b""


def test_complete_output_exits_0(big: list[str], tmp_path: Path) -> None:
    with open(tmp_path / "out.csv", "w") as out:
        done = _receval(*big, "-f", "csv", stdout=out)
    assert done.returncode == 0 and done.stderr == ""
    assert len((tmp_path / "out.csv").read_text().splitlines()) == 20001


@pytest.mark.parametrize("fmt", [OutputFormat.table, OutputFormat.markdown])
def test_a_huge_value_is_shown_in_exponent_form(fmt) -> None:
    # 1.25e299 was printed as 300 digits, 280 of them past a float's precision
    table = ResultTable(["metric", "value"], [["r2", -1.25e299], ["mrr", 0.5], ["n", 1e16]])
    out = io.StringIO()
    render(table, fmt, digits=3, out=out)
    text = out.getvalue()
    assert "-1.250e+299" in text and "0.500" in text and "1.000e+16" in text
    assert max(len(line) for line in text.splitlines()) < 60


NAMES = ["[/x]", "[bold]m :smile:", "\x1b[31mred", "a\tb\nc"]


@pytest.mark.parametrize("isatty", [False, True])
def test_the_table_prints_names_as_written(isatty: bool, monkeypatch) -> None:
    # a name was read as rich markup: "[/x]" raised MarkupError, "[bold]" and ":smile:"
    # were styled away, and an escape sequence reached the terminal as it was
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("TTY_COMPATIBLE", raising=False)
    out = io.StringIO()
    out.isatty = lambda: isatty  # type: ignore[method-assign]
    table = ResultTable(["run", "[i]auc"], [[n, 0.5] for n in NAMES], title="[b]t :smile:")
    render(table, OutputFormat.table, out=out)
    text = out.getvalue()
    for shown in ["[/x]", "[bold]m :smile:", "\\x1b[31mred", "a\\tb\\nc", "[i]auc", "[b]t :smile:"]:
        assert shown in text
    assert "\x1b[31m" not in text and "\t" not in text and "\U0001f604" not in text


def test_the_table_command_prints_a_markup_name(tmp_path: Path) -> None:
    path = tmp_path / "imp.csv"
    path.write_text("user,label,[/x]\nu1,1,0.2\nu1,0,0.4\nu2,0,0.5\nu2,1,0.6\n")
    done = _receval(
        "ctr", str(path), "--label", "label", "--score", "[/x]", "-m", "auc", stdout=subprocess.PIPE
    )
    assert done.returncode == 0, done.stderr
    assert "[/x]" in done.stdout and "0.5000" in done.stdout

"""A command that takes its files as options (``rank --qrels Q --run R``), given them as
arguments, says what to type (exit 2, on stderr) rather than that an option is missing;
``trec-eval QRELS RUN`` takes them as arguments, as trec_eval does."""

from __future__ import annotations

import pytest

from tests.cli._helpers import invoke, make_runner

QRELS = "u1 0 a 1\nu2 0 c 1\n"
RUN = "u1 Q0 a 1 0.9 s\nu2 Q0 c 1 0.9 s\n"


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "q.txt").write_text(QRELS)
    (tmp_path / "r.txt").write_text(RUN)
    return "q.txt", "r.txt"


def _error(*args: str) -> str:
    result = invoke(make_runner(), *args, code=2)
    assert result.stdout == ""
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
    return result.stderr.removeprefix("error: ")


def test_rank_given_its_files_as_arguments_says_what_to_type(files):
    q, r = files
    assert _error("rank", q, r, "-m", "ndcg@10") == (
        "receval rank: takes its files as options; got q.txt r.txt as arguments: "
        "receval rank --qrels q.txt --run r.txt -m ndcg@10\n"
    )
    # the options given stay; the arguments go to the others, the rest to --run
    assert _error("rank", "--run", r, q) == (
        "receval rank: takes its files as options; got q.txt as an argument: "
        "receval rank --qrels q.txt --run r.txt\n"
    )
    assert _error("rank", "--qrels", q, r, "two runs.txt") == (
        "receval rank: takes its files as options; got r.txt 'two runs.txt' as arguments: "
        "receval rank --run r.txt --run 'two runs.txt' --qrels q.txt\n"
    )
    # which file is which is not clear: the options are named
    assert _error("rank", q) == (
        "receval rank: takes its files as options; got q.txt as an argument; pass it with "
        "--qrels and --run (see receval rank -h).\n"
    )
    # what is typed works
    invoke(make_runner(), "rank", "--qrels", q, "--run", r, "-m", "ndcg@10")


def test_audit_and_gate_given_their_files_as_arguments(files):
    q, r = files
    assert _error("audit", q, q, r) == (
        "receval audit: takes its files as options; got q.txt q.txt r.txt as arguments: "
        "receval audit --train q.txt --test q.txt --run r.txt\n"
    )
    assert _error("gate", q, r) == (
        "receval gate: takes its files as options; got q.txt r.txt as arguments; pass them "
        "with --qrels, --impressions, --candidate, --baseline and --config (see receval "
        "gate -h).\n"
    )


def test_other_usage_errors_are_unchanged(files):
    q, r = files
    assert _error("rank", "--run", r) == (
        "receval rank: Missing option '--qrels'; see receval rank -h.\n"
    )
    assert _error("rank", "--bogus", q).startswith("receval rank: No such option: --bogus")


def test_trec_eval_takes_its_files_as_arguments(files):
    q, r = files
    result = invoke(make_runner(), "trec-eval", "-m", "map", q, r)
    assert result.stdout.startswith("map")


def test_every_file_option_of_the_commands_table_is_an_option_of_its_command():
    import click
    import typer

    from receval.cli import app
    from receval.cli._commands import COMMANDS

    group = typer.main.get_command(app)
    for name, entry in COMMANDS.items():
        command = group.commands[name]
        params = command.get_params(click.Context(command, info_name=name))
        options = {o for p in params if p.param_type_name == "option" for o in p.opts}
        assert set(entry.files) <= options, name
        assert not entry.files or all(p.param_type_name == "option" for p in params), name

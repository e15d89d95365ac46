"""Shared by the CLI tests: a runner that keeps stderr apart, a checked invoke, and a pipe."""

from __future__ import annotations

from typer.testing import CliRunner

from receval.cli import app


def make_runner() -> CliRunner:
    try:  # click < 8.2 mixes stderr into stdout unless told not to
        return CliRunner(mix_stderr=False)  # type: ignore[call-arg]
    except TypeError:
        return CliRunner()


def invoke(runner: CliRunner, *args: object, code: int = 0):
    """Run ``receval *args``; re-raise unexpected exceptions, check the exit code."""
    result = runner.invoke(app, [str(a) for a in args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    assert result.exit_code == code, (result.stdout, result.stderr)
    return result

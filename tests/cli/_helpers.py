"""Shared by the CLI tests: a runner that keeps stderr apart, a checked invoke, and the
files of a generated recommendation log."""

from __future__ import annotations

from pathlib import Path
from typing import Any

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


def write_recommendations(folder: Path, n_users: int, **options: Any) -> tuple[Any, Any]:
    """``make_recommendations(n_users, **options)`` written to ``folder``: the qrels as
    ``qrels.csv``, each model's run as ``NAME.parquet``; returns (qrels, runs)."""
    import pandas as pd

    from receval.datasets import make_recommendations

    qrels, runs = make_recommendations(n_users, **options)
    pd.DataFrame(qrels).to_csv(folder / "qrels.csv", index=False)
    for name, run in runs.items():
        pd.DataFrame(run).to_parquet(folder / f"{name}.parquet")
    return qrels, runs

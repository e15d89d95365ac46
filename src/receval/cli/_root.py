"""The ``receval`` group: the Typer app every command registers on, its help and ``--version``.

``receval --help`` loads this module and not the commands' options
(:mod:`receval.cli._common`): the group lists the commands from
:data:`~receval.cli._commands.COMMANDS`.
"""

from __future__ import annotations

from typing import Annotated

import typer

from ._params import Group

__all__ = ["app"]

app = typer.Typer(
    name="receval",
    help="Offline evaluation of recommender systems and CTR models.\n\n"
    "Results go to stdout (a table, or --format json/csv/tsv/markdown); notes, warnings "
    "and errors go to stderr. Bad options or bad input exit with status 2. One input file "
    "may be '-', standard input.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,  # click's help: wrapped to the terminal, never cut
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
    cls=Group,
)


def _version(value: bool) -> None:
    if value:  # the version is read only when asked (importlib.metadata costs ~10 ms)
        from .. import __version__

        typer.echo(f"receval {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Offline evaluation of recommender systems and CTR models."""

"""``receval trec-eval`` among Typer's commands (listed by ``receval --help``): the
command itself is :func:`receval.cli._direct.trec_eval_main`, which
:func:`receval.cli.main` runs without loading Typer.
"""

from __future__ import annotations

import typer

from ._common import app
from ._direct import trec_eval_main


@app.command(
    "trec-eval",
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
    add_help_option=False,
)
def trec_eval_command(ctx: typer.Context) -> None:
    """Run :func:`trec_eval_main` on the arguments as given (its summary: COMMANDS)."""
    trec_eval_main(ctx.args)

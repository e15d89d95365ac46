"""The ``receval`` command: ``rank``, ``ctr``, ``compare``, ``retention``, ``off-policy``,
``report``, ``demo``, ``metrics``, ``trec-eval``.

Only the console-script entry point (and ``python -m receval``) imports this
package; ``import receval`` loads neither Typer nor rich, which come with the
``cli`` extra (``pip install 'receval[cli]'``).
"""

from __future__ import annotations

import sys
from typing import Any


def main() -> None:
    """Run the ``receval`` command (the console-script entry point).

    ``receval trec-eval`` runs before Typer and rich are loaded (it reads its
    arguments as trec_eval does), and so does ``receval rank`` with the common
    options only (:func:`receval.cli._rank_run.common_options`); every other
    command line runs through Typer.
    """
    from ._streams import checked_stdout

    if sys.argv[1:2] == ["trec-eval"]:
        from ._direct import trec_eval_main

        args = sys.argv[2:]
        if "--" in args:  # as through Typer, whose parser takes the first "--"
            args.remove("--")
        with checked_stdout():
            trec_eval_main(args)
        return
    try:
        if sys.argv[1:2] == ["rank"] and _common_rank(sys.argv[2:]):
            return
        from ._app import main as run_app
    except ModuleNotFoundError as exc:  # the library without the cli extra
        if exc.name not in ("typer", "rich", "click"):
            raise
        sys.stderr.write(
            f"error: the receval command needs Typer and rich ({exc.name} is not installed); "
            f"install them with: pip install 'receval[cli]'\n"
        )
        raise SystemExit(2) from None
    run_app()


def _common_rank(args: list[str]) -> bool:
    """Run ``receval rank ARGS`` if its options are the common ones (read without
    Typer); False, having done nothing, if they are not."""
    from ._rank_run import common_options, run_rank
    from ._streams import checked_stdout

    options = common_options(args)
    if options is None:
        return False
    with checked_stdout():
        try:
            run_rank(**options)
        except KeyboardInterrupt:  # as click stops a command
            sys.stderr.write("\nAborted!\n")
            raise SystemExit(1) from None
    return True


__all__ = ["app", "main"]


def __getattr__(name: str) -> Any:
    if name == "app":  # every command (the console script loads only the one it runs)
        try:
            from ._app import load_commands
        except ModuleNotFoundError as exc:  # the library without the cli extra
            if exc.name not in ("typer", "rich", "click"):
                raise
            return None
        return load_commands()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))

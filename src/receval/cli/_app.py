"""The ``receval`` command: ``rank``, ``ctr``, ``compare``, ``gate``, ``retention``, ``report``,
``demo``, ``trec-eval``, ``metrics``, ``split``, ``audit``.

Thin by design: each command (one module each) parses its options, calls the
library (:func:`receval.evaluate`, the pointwise metrics of
:mod:`receval.registry`, :func:`receval.retention`) and formats the result with
:mod:`receval.cli._output`; ``report`` and ``demo`` also draw :mod:`receval.plot`
figures into a :class:`receval.report.HTMLReport`. Results go to stdout; notes,
warnings, progress and errors go to stderr. Errors raised by receval (bad data,
bad options, unreadable files) print ``error: <message>`` on one line and exit
with status 2, as usage errors do (:func:`receval.cli._params.usage_line`).

A command's module (and what it imports) loads only when that command runs:
:func:`main` imports the module of the command named first on the command line,
and none when the first argument names no command (``--help``, ``--version``, a
mistyped name): the list of commands and the suggestions come from the table
:data:`~receval.cli._commands.COMMANDS`. ``app`` (as :mod:`receval.cli` exports
it) has every command.
"""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING, Any

from . import _root
from ._commands import COMMANDS

if TYPE_CHECKING:  # pragma: no cover - loaded on first use, see __getattr__
    from ..report.sections import REPORT_AT_K_METRICS, REPORT_COHORTS
    from ._common import DEFAULT_CTR_METRICS, DEFAULT_RANK_METRICS
    from ._root import app

__all__ = [
    "COMMANDS",
    "DEFAULT_CTR_METRICS",
    "DEFAULT_RANK_METRICS",
    "REPORT_AT_K_METRICS",
    "REPORT_COHORTS",
    "app",
    "load_commands",
    "main",
]

_ORDER = list(dict.fromkeys(entry.module for entry in COMMANDS.values()))


def load_commands(*names: str) -> Any:
    """Register the named commands (all when none is named) on the app and return it.

    The app lists its commands in the order of :data:`COMMANDS` whatever order
    they were loaded in.
    """
    modules = dict.fromkeys(COMMANDS[name].module for name in names) if names else _ORDER
    for module in modules:
        importlib.import_module(f"{__package__}.{module}")
    app = _root.app
    app.registered_commands.sort(
        key=lambda info: _ORDER.index(info.callback.__module__.rpartition(".")[2])
    )
    return app


def main() -> None:
    """Run the ``receval`` command (the console-script entry point)."""
    from ._streams import checked_stdout

    first = sys.argv[1:2]
    if first and first[0] in COMMANDS:
        app = load_commands(first[0])
    elif any(arg in COMMANDS for arg in sys.argv[2:]):
        app = load_commands()
    else:  # no command to run: the help, --version, or an unknown command's error, which
        # read the commands' names and summaries from COMMANDS (receval.cli._params.Group):
        # the group alone, without the commands' options (receval.cli._common)
        app = _root.app
    with checked_stdout():
        app(prog_name="receval")


def __getattr__(name: str) -> Any:
    if name == "app":
        return load_commands()
    if name in ("DEFAULT_CTR_METRICS", "DEFAULT_RANK_METRICS"):
        from . import _common

        return getattr(_common, name)
    if name in ("REPORT_AT_K_METRICS", "REPORT_COHORTS"):
        from .. import report

        return getattr(report, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))

"""The ``receval`` command: ``rank``, ``ctr``, ``compare``, ``gate``, ``retention``, ``report``,
``demo``, ``trec-eval``, ``metrics``, ``split``, ``audit``.

Thin by design: each command (one module each) parses its options, calls the
library (:func:`receval.evaluate`, the pointwise metrics of
:mod:`receval.registry`, :func:`receval.retention`) and formats the result with
:mod:`receval.cli._output`; ``report`` and ``demo`` also draw :mod:`receval.plot`
figures into a :class:`receval.report.HTMLReport`. Results go to stdout; notes,
warnings, progress and errors go to stderr. Errors raised by receval (bad data,
bad options, unreadable files) print ``error: <message>`` on one line and exit
with status 2, like usage errors.

A command's module (and what it imports) loads only when that command runs:
:func:`main` imports the module of the command named first on the command line,
or every module when the first argument names none (``--help``, ``--version``, a
mistyped name), so the list of commands and the suggestions are always complete.
``app`` (as :mod:`receval.cli` exports it) has every command.
"""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING, Any

from . import _common
from ._common import DEFAULT_CTR_METRICS, DEFAULT_RANK_METRICS

if TYPE_CHECKING:  # pragma: no cover - loaded on first use, see __getattr__
    from ..report.sections import REPORT_AT_K_METRICS, REPORT_COHORTS
    from ._common import app

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

#: Each command's module, in the order ``receval --help`` lists the commands.
COMMANDS: dict[str, str] = {
    "compare": "_compare",
    "gate": "_gate",
    "ctr": "_ctr",
    "rank": "_rank",
    "retrieve": "_retrieve",
    "report": "_report",
    "demo": "_report",
    "retention": "_retention",
    "off-policy": "_offpolicy",
    "trec-eval": "_trec_eval",
    "metrics": "_metrics",
    "split": "_split",
    "audit": "_audit",
}

_ORDER = list(dict.fromkeys(COMMANDS.values()))


def load_commands(*names: str) -> Any:
    """Register the named commands (all when none is named) on the app and return it.

    The app lists its commands in the order of :data:`COMMANDS` whatever order
    they were loaded in.
    """
    modules = dict.fromkeys(COMMANDS[name] for name in names) if names else _ORDER
    for module in modules:
        importlib.import_module(f"{__package__}.{module}")
    app = _common.app
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
    else:  # no command to run: the help, --version, or an unknown command's error
        app = _listing()
    with checked_stdout():
        app(prog_name="receval")


def _listing() -> Any:
    """The app with every command's name and help but none of its options: all that the
    group's help, ``--version`` and the error for an unknown command read. Typer builds
    a command's options from its signature, which costs more than the rest of
    ``receval --help`` together."""
    import copy

    app = copy.copy(load_commands())
    app.registered_commands = [copy.copy(info) for info in app.registered_commands]
    for info in app.registered_commands:
        info.callback = _stand_in(info.callback)
    return app


def _stand_in(callback: Any) -> Any:
    """A callback without parameters with the name and help of ``callback``."""

    def stand_in() -> None:  # pragma: no cover - never run: no command is named
        raise AssertionError("a command's stand-in ran")

    stand_in.__doc__, stand_in.__name__ = callback.__doc__, callback.__name__
    stand_in.__module__, stand_in.__qualname__ = callback.__module__, callback.__qualname__
    return stand_in


def __getattr__(name: str) -> Any:
    if name == "app":
        return load_commands()
    if name in ("REPORT_AT_K_METRICS", "REPORT_COHORTS"):
        from .. import report

        return getattr(report, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))

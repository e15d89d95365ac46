"""The ``receval`` command: ``rank``, ``ctr``, ``compare``, ``retention``, ``off-policy``,
``report``, ``demo``, ``metrics``, ``trec-eval``.

Only the console-script entry point (and ``python -m receval``) imports this
package; ``import receval`` loads neither Typer nor rich, which come with the
``cli`` extra (``pip install 'receval[cli]'``).
"""

from __future__ import annotations

import sys
from typing import Any

try:
    from ._app import main
except ModuleNotFoundError as exc:  # the library without the cli extra
    if exc.name not in ("typer", "rich", "click"):
        raise
    _MISSING = exc.name

    def main() -> None:
        """Say which extra the command needs, on stderr, and exit with 2."""
        sys.stderr.write(
            f"error: the receval command needs Typer and rich ({_MISSING} is not installed); "
            f"install them with: pip install 'receval[cli]'\n"
        )
        raise SystemExit(2)

    app = None

__all__ = ["app", "main"]


def __getattr__(name: str) -> Any:
    if name == "app":  # every command (the console script loads only the one it runs)
        from ._app import load_commands

        return load_commands()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))

"""The ``receval`` command line: ``receval rank``, ``receval ctr``, ``receval retention``.

Only the console-script entry point (and ``python -m receval.cli``) imports
this package; ``import receval`` loads neither Typer nor rich.
"""

from __future__ import annotations

from ._app import app, main

__all__ = ["app", "main"]

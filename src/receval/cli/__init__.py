"""The ``receval`` command: ``rank``, ``ctr``, ``compare``, ``retention``, ``report``, ``demo``.

Only the console-script entry point (and ``python -m receval.cli``) imports
this package; ``import receval`` loads neither Typer nor rich.
"""

from __future__ import annotations

from . import _compare  # noqa: F401  (registers ``receval compare``)
from ._app import app, main

__all__ = ["app", "main"]

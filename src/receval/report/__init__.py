"""Self-contained HTML reports: the document, its sections, tables and figures.

:mod:`receval.report.html` holds :class:`HTMLReport` (the document and how
figures are embedded), :mod:`receval.report.sections` the sections the
command line's ``receval report`` writes (ranking, CTR, retention, comparison),
:mod:`receval.report.beyond` the beyond-accuracy section,
:mod:`receval.report.interactive` the Plotly figures, :mod:`receval.report.figures`
the matplotlib ones, :mod:`receval.report.tables` the formatting of table
cells (shared with the command line's tables) and :mod:`receval.report.json_values`
the values of every JSON document receval writes.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover - static analysers see the real names
    from .sections import *  # noqa: F403
    from .sections import __all__ as __all__


def __getattr__(name: str) -> Any:
    # the names of sections (and its __all__), loaded on first use: the submodules
    # import the metrics, which import this package
    sections = importlib.import_module(f"{__name__}.sections")
    if name == "__all__" or name in sections.__all__:
        return getattr(sections, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

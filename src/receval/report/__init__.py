"""Self-contained HTML reports: the document, its sections, tables and figures.

:mod:`receval.report.html` holds :class:`HTMLReport` (the document and how
figures are embedded), :mod:`receval.report.sections` the sections the
command line's ``receval report`` writes (ranking, CTR, retention, comparison),
:mod:`receval.report.beyond` the beyond-accuracy section,
:mod:`receval.report.interactive` the Plotly figures, :mod:`receval.report.figures`
the matplotlib ones and :mod:`receval.report.tables` the formatting of table
cells (shared with the command line's tables).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover - static analysers see the real names
    from .sections import (
        REPORT_AT_K_METRICS,
        REPORT_COHORTS,
        STATIC_NOTE,
        HTMLReport,
        beyond_records,
        beyond_section,
        comparison_section,
        ctr_section,
        figure_to_data_uri,
        json_path,
        new_axes,
        ranking_records,
        ranking_section,
        retention_section,
    )


def __getattr__(name: str) -> Any:
    # loaded on first use: the submodules import the metrics, which import this package
    if name in __all__:
        from . import sections

        return getattr(sections, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "REPORT_AT_K_METRICS",
    "REPORT_COHORTS",
    "STATIC_NOTE",
    "HTMLReport",
    "beyond_records",
    "beyond_section",
    "comparison_section",
    "ctr_section",
    "figure_to_data_uri",
    "json_path",
    "new_axes",
    "ranking_records",
    "ranking_section",
    "retention_section",
]

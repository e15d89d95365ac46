"""The registry: every row of every family, by canonical name, with its aliases.

:data:`ENTRIES` is the one table (the rows of :mod:`~receval.registry.ranking` and
:mod:`~receval.registry.rows`); each row's ``aliases`` are read from the spellings
of :mod:`~receval.registry.peers`. :data:`RANKING` is its view of the metrics the
ranking kernel computes (the metric strings of :func:`receval.evaluate`).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from .peers import spellings_of
from .ranking import RANKING_ROWS
from .rows import ROWS
from .schema import MetricEntry

__all__ = ["ENTRIES", "RANKING", "load"]


def _with_aliases(entry: MetricEntry) -> MetricEntry:
    shown: dict[str, str] = {entry.name: entry.name}  # nDCG, Bpref: the name in another case
    for row in spellings_of(entry.name):
        shown.setdefault(row.shown.lower(), row.shown)
    return replace(entry, aliases=tuple(shown.values())[1:])


#: Every metric receval computes, by canonical name: one row each.
ENTRIES: Mapping[str, MetricEntry] = MappingProxyType(
    {e.name: _with_aliases(e) for e in (*RANKING_ROWS, *ROWS)}
)
#: The rows the ranking kernel computes (``kind`` set), in the table's order.
RANKING: Mapping[str, MetricEntry] = MappingProxyType(
    {n: e for n, e in ENTRIES.items() if e.kind is not None}
)


def load(path: str) -> Any:
    """The object a row's dotted path ``"module:name"`` names (importing its module).

    Examples
    --------
    >>> from receval.registry import ENTRIES, load
    >>> load(ENTRIES["gauc"].function_path).__name__
    'gauc_score'
    """
    module, _, attr = path.partition(":")
    return getattr(importlib.import_module(module), attr)

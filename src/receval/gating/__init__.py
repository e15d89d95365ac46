"""A statistical regression gate for CI: candidates against baselines, a rule per metric.

:mod:`receval.gating.rules` holds the rules (non-inferiority, superiority, floor,
ceiling), :mod:`receval.gating.config` reads them and the gate's settings from
``receval.toml`` or ``[tool.receval.gate]`` in ``pyproject.toml``,
:mod:`receval.gating.decision` runs the paired tests of :mod:`receval.comparison`
and decides (:func:`receval.gate`), and :mod:`receval.gating.report` holds the
result (:class:`receval.GateReport`) and its outputs: a terminal table,
Markdown, JSON and JUnit XML.
"""

from __future__ import annotations

"""The lists of metrics in the documentation, written from the registry.

A page holds each list between ``<!-- metrics: NAME -->`` and ``<!-- /metrics -->``;
``python docs/metric_tables.py`` rewrites every such block from
:data:`receval.registry.ENTRIES`, and ``tests/registry/test_docs_tables.py`` fails when a
page differs from what this writes (a metric missing, renamed or edited by hand).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

from receval.registry import ENTRIES, FAMILIES, MetricEntry

DOCS = Path(__file__).resolve().parent
#: The pages with generated blocks.
PAGES = ("api/registry.md", "guide/streaming.md", "conventions.md")

_FAMILY = {
    "pointwise": "Pointwise: one score per impression (CTR models, regression)",
    "grouped": "Grouped: the AUC within each group",
    "ranking": "Ranking: the metric strings of `evaluate`",
    "list": "Beyond accuracy: from the lists alone",
    "retention": "Retention",
    "off_policy": "Off-policy: a target policy's value from logged feedback",
}
_DIRECTION = {True: "higher", False: "lower", None: "neither"}
_BLOCK = re.compile(r"(<!-- metrics: (\w+) -->\n).*?(<!-- /metrics -->)", re.DOTALL)


def _code(names: list[str] | tuple[str, ...]) -> str:
    return ", ".join(f"`{n}`" for n in names)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _rows(partitioning: str, *, ranking: bool) -> list[str]:
    """The names of the metrics split by ``partitioning``, the metric strings of
    ``evaluate`` (their definition is the ranking one) kept or left out."""
    return [
        e.name
        for e in ENTRIES.values()
        if partitioning in e.partitionings
        and (e.definition_path == "receval.ranking.definition") == ranking
    ]


def every_metric() -> str:
    """One table per family: every row of the registry."""
    out: list[str] = []
    for family in FAMILIES:
        entries = sorted((e for e in ENTRIES.values() if e.family == family), key=_name)
        out += [f"### {_FAMILY[family]}", ""]
        out += ["| metric | other names | definition | better | splits |", "|---|---|---|---|---|"]
        out += [
            f"| `{e.name}` | {_cell(_code(e.aliases))} | {_cell(e.description)} | "
            f"{_DIRECTION[e.higher_is_better]} | {', '.join(e.partitionings) or '—'} |"
            for e in entries
        ]
        out.append("")
    return "\n".join(out)


def mergeable() -> str:
    """The metrics of ``receval.metric``, by how their rows may be split."""
    return (
        f"- any split of the rows: {_code(_rows('any', ranking=False))};\n"
        f"- whole groups or users per update: {_code(_rows('groups', ranking=False))}, and\n"
        "  every ranking metric string, with `update(qrels, run)`.\n"
    )


def partitionings() -> str:
    """The table of the sources: which metrics each way of splitting the rows serves."""
    scan_spark = {
        "any": ("any split", "one accumulator, batch by batch", "the DataFrame's partitions"),
        "ranges": (
            "disjoint score ranges",
            "a histogram pass, then one pass per range that fits `max_memory`",
            "`repartitionByRange` on the score",
        ),
        "groups": (
            "whole groups",
            "batches of whole groups (rows of a group contiguous; checked)",
            "`repartition` by group or user",
        ),
    }
    out = [
        "| partitioning | metrics | scan (`receval.engine.sources`) | Spark |",
        "|---|---|---|---|",
    ]
    for key, (title, scan, spark) in scan_spark.items():
        names = _code(_rows(key, ranking=False))
        if _rows(key, ranking=True):
            names += ", ranking metric strings"
        out.append(f"| {title} | {names} | {scan} | {spark} |")
    return "\n".join(out) + "\n"


def _name(entry: MetricEntry) -> str:
    return entry.name


BLOCKS: dict[str, Callable[[], str]] = {
    "every": every_metric,
    "mergeable": mergeable,
    "partitionings": partitionings,
}


def render(markdown: str) -> str:
    """The page with each generated block written anew from the registry.

    Parameters
    ----------
    markdown : str
        The text of a page.

    Returns
    -------
    str
        The same text, each ``<!-- metrics: NAME -->`` block replaced by ``BLOCKS[NAME]()``.
    """
    # blank lines around the block: Markdown reads it apart from the comments
    return _BLOCK.sub(
        lambda m: f"{m.group(1)}\n{BLOCKS[m.group(2)]().rstrip()}\n\n{m.group(3)}", markdown
    )


def main() -> None:
    """Rewrite the blocks of every page of :data:`PAGES` in place."""
    for page in PAGES:
        path = DOCS / page
        text = path.read_text(encoding="utf-8")
        new = render(text)
        if new != text:
            path.write_text(new, encoding="utf-8")
            sys.stdout.write(f"rewrote {page}\n")


if __name__ == "__main__":
    main()

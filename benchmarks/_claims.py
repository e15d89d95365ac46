"""Figures that README.md and docs/ quote from docs/benchmarks.md, written from the page.

A quoted figure sits between ``<!-- bench:NAME -->`` and ``<!-- /bench -->`` in
its file; :func:`refresh` rewrites every such block from the page's sections (the
one-command run, ``benchmarks/run_all.py``, calls it after the sections are
re-run), and ``tests/test_docs_claims.py`` checks that every block says what the
page says and that no speed ratio is quoted outside a block.

Each claim is a function of the page's text returning the block's text; it
reads the table rows of one section, so a claim cannot outlive its figures.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BLOCK = re.compile(r"<!-- bench:([\w-]+) -->(.*?)<!-- /bench -->", re.S)


def section(page: str, name: str) -> str:
    """The text of the page's section ``name`` (between its markers)."""
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    if start not in page or end not in page:
        raise KeyError(f"docs/benchmarks.md has no section {name!r}")
    return page.split(start, 1)[1].split(end, 1)[0]


def rows(page: str, name: str) -> list[list[str]]:
    """The cells of every Markdown table row of a section, without ``**`` and backticks."""
    out = []
    for line in section(page, name).splitlines():
        line = line.strip()
        if not line.startswith("|") or set(line) <= set("|-: "):
            continue
        cells = [c.strip().replace("**", "").replace("`", "") for c in line.strip("|").split("|")]
        out.append(cells)
    return out


def row(page: str, name: str, first: str, *contains: str) -> list[str]:
    """The first row of section ``name`` whose first cell is ``first`` and whose
    cells contain every string of ``contains``."""
    for cells in rows(page, name):
        if cells[0] == first and all(any(c in cell for cell in cells) for c in contains):
            return cells
    raise KeyError(f"docs/benchmarks.md, section {name!r}: no row {first!r} {contains}")


def number(cell: str) -> float:
    """The number a cell starts with (``41.2x``, ``~186.9``, ``1,263x``, ``0.283``)."""
    match = re.search(r"[\d,]*\.?\d+(?:e[+-]?\d+)?", cell)
    if match is None:
        raise ValueError(f"no number in table cell {cell!r}")
    return float(match.group().replace(",", ""))


def ratio(r: float, faster: str = "faster", slower: str = "slower") -> str:
    """A speed ratio as the docs write it: whole above 10, one decimal below."""
    if r < 1:
        return ratio(1 / r, faster, slower).replace(faster, slower)
    return f"{r:.0f}x {faster}" if r >= 10 else f"{r:.1f}x {faster}"


def _trec_eval(page: str) -> str:
    text = section(page, "trec-eval")
    head = re.search(r"A TREC run of ([\d,]+) queries x (\d+) documents", text)
    if head is None:
        raise KeyError("docs/benchmarks.md, section 'trec-eval': no 'A TREC run of' line")
    ours = number(row(page, "trec-eval", "receval trec-eval -m all_trec")[1])
    theirs = number(row(page, "trec-eval", "trec_eval -m all_trec")[1])
    py = number(row(page, "trec-eval", "pytrec_eval (read + every supported measure)")[1])
    return (
        f"{head.group(1)} queries × {head.group(2)} documents `-m all_trec` takes "
        f"{ours:.1f} s, {ratio(theirs / ours)} than trec_eval and "
        f"{ratio(py / ours)} than pytrec_eval"
    )


def _rank_startup(page: str) -> str:
    cells = row(page, "startup", "receval rank -m ndcg@10 -m map")
    ms, against = number(cells[2]), number(cells[6])
    return f"about {ms:.0f} ms in all, {ratio(against)} than a whole pytrec_eval process"


def _ties_ratio(page: str) -> str:
    r = number(row(page, "ties", "quantised, 2,000 users x 100", "11pt_avg")[4])
    return (
        f"the 11-point average {r:.0f}x one order"
        if r >= 10
        else (f"the 11-point average {r:.1f}x one order")
    )


def _ties_slowest(page: str) -> str:
    cells = [c for c in rows(page, "ties") if c[0] == "quantised, 2,000 users x 100"]
    slowest = max(max(number(c[2]), number(c[3])) for c in cells)
    return f"every form takes at most {slowest:.2g} s per 2,000 users"


def _ties_seconds(page: str) -> str:
    seconds = number(row(page, "ties", "all tied, 1,000 items, 50 relevant", "11pt_avg")[3])
    return f"about {seconds:.1f} s" if seconds < 10 else f"about {seconds:.0f} s"


CLAIMS: dict[str, Callable[[str], str]] = {
    "trec-eval": _trec_eval,
    "rank-startup": _rank_startup,
    "ties-slowest": _ties_slowest,
    "ties-11pt-ratio": _ties_ratio,
    "ties-11pt-seconds": _ties_seconds,
}


def documents(root: str = ROOT) -> list[str]:
    """README.md and every Markdown file of docs/ but the benchmark page itself."""
    found = [os.path.join(root, "README.md")]
    for folder, _, names in os.walk(os.path.join(root, "docs")):
        found += [os.path.join(folder, n) for n in sorted(names) if n.endswith(".md")]
    page = os.path.abspath(os.path.join(root, "docs", "benchmarks.md"))
    return [p for p in found if os.path.abspath(p) != page]


def expected(text: str, page: str) -> str:
    """``text`` with every claim block written from ``page``."""

    def write(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in CLAIMS:
            raise KeyError(f"unknown claim block <!-- bench:{name} --> (known: {sorted(CLAIMS)})")
        return f"<!-- bench:{name} -->{CLAIMS[name](page)}<!-- /bench -->"

    return BLOCK.sub(write, text)


def refresh(root: str = ROOT) -> list[str]:
    """Rewrite every claim block of README.md and docs/ from the page; the files changed."""
    page = open(os.path.join(root, "docs", "benchmarks.md")).read()
    changed = []
    for path in documents(root):
        text = open(path).read()
        new = expected(text, page)
        if new != text:
            with open(path, "w") as fh:
                fh.write(new)
            changed.append(os.path.relpath(path, root))
    return changed

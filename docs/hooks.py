"""MkDocs hooks: run every ``>>>`` example of the documentation's pages, render math.

``mkdocs build`` fails when an example of a page gives other output than the
page shows, so the pages cannot drift from what receval does.
``tests/test_docs.py`` runs the same function under pytest. The formulas are
rendered at build time, as MathML that browsers draw themselves: the site needs
no script and no network to show them.

Examples are the fenced code blocks that contain a ``>>>`` prompt; the blocks
of one page run in order in one namespace, as one doctest, with the option
flags of the package's doctests (``NUMBER``, ``NORMALIZE_WHITESPACE``,
``ELLIPSIS``); a float shown with d digits must be the value rounded to them.
"""

from __future__ import annotations

import doctest
import html
import re
from pathlib import Path
from typing import Any

DOCS = Path(__file__).resolve().parent
_FENCE = re.compile(r"^(\s*)(```|~~~)")
# what pymdownx.arithmatex (generic) makes of \(...\), \[...\] and $$...$$
_ARITHMATEX = re.compile(r'<(span|div) class="arithmatex">\\[(\[](.*?)\\[)\]]</\1>', re.DOTALL)


def example_text(markdown: str) -> str:
    """Keep the lines of the fenced blocks that hold ``>>>`` examples.

    Every other line becomes empty, so a failure's line number is the page's.

    Parameters
    ----------
    markdown : str
        The text of a page.

    Returns
    -------
    str
        The page with only its examples left, line for line.
    """
    lines = markdown.splitlines()
    out = [""] * len(lines)
    i = 0
    while i < len(lines):
        match = _FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        end = i + 1
        while end < len(lines) and not lines[end].lstrip().startswith(match.group(2)):
            end += 1
        block = lines[i + 1 : end]
        if any(line.lstrip().startswith(">>>") for line in block):
            indent = len(match.group(1))
            out[i + 1 : end] = [line[indent:] for line in block]
        i = end + 1
    return "\n".join(out) + "\n"


# a float as a page shows it: digits after the point, not cut with an ellipsis
_SHOWN_FLOAT = re.compile(r"(?<![\w.])[-+]?\d+\.\d+(?![\w.])")


class _RoundedChecker(doctest.OutputChecker):
    """pytest's checker (its ``NUMBER`` flag passes 0.8 for 0.857: within 0.1), and a
    float shown with d digits is the value rounded to them: within half a unit of its
    last digit."""

    def __init__(self, base: doctest.OutputChecker) -> None:
        self.base = base

    def check_output(self, want: str, got: str, optionflags: int) -> bool:
        if not self.base.check_output(want, got, optionflags):
            return False
        shown, values = _SHOWN_FLOAT.findall(want), _SHOWN_FLOAT.findall(got)
        if len(shown) != len(values):  # an ellipsis stands for some: NUMBER's own check
            return True
        return all(
            abs(float(x) - float(y)) <= 0.5 * 10.0 ** -len(x.split(".")[1]) * (1 + 1e-9)
            for x, y in zip(shown, values, strict=True)
        )

    def output_difference(self, example: doctest.Example, got: str, optionflags: int) -> str:
        return self.base.output_difference(example, got, optionflags)


def _checker_and_flags() -> tuple[doctest.OutputChecker | None, int]:
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    try:  # pytest's checker understands its NUMBER flag, as the package's doctests use it
        from _pytest.doctest import _get_checker
    except ImportError:
        return None, flags
    return _RoundedChecker(_get_checker()), flags | doctest.register_optionflag("NUMBER")


def run_page(path: Path) -> tuple[int, int, str]:
    """Run the examples of one page.

    Parameters
    ----------
    path : pathlib.Path
        A Markdown page.

    Returns
    -------
    failed, attempted : int
        Examples whose output differed (or that raised), and examples run.
    report : str
        What doctest printed for the failures.
    """
    text = example_text(path.read_text(encoding="utf-8"))
    parser = doctest.DocTestParser()
    test = parser.get_doctest(text, {"__name__": "__docs__"}, path.name, str(path), 0)
    if not test.examples:
        return 0, 0, ""
    checker, flags = _checker_and_flags()
    lines: list[str] = []
    runner = doctest.DocTestRunner(checker=checker, optionflags=flags)
    result = runner.run(test, out=lines.append, clear_globs=True)
    return result.failed, result.attempted, "".join(lines)


def pages() -> list[Path]:
    """Return the documentation's Markdown pages.

    Returns
    -------
    list of pathlib.Path
        Every ``*.md`` under ``docs/``, sorted.
    """
    return sorted(DOCS.rglob("*.md"))


def on_pre_build(config: Any, **kwargs: Any) -> None:
    """Run every page's examples; fail the build when one fails.

    Parameters
    ----------
    config : mkdocs.config.Config
        The build's configuration (unused).
    **kwargs : Any
        Unused.

    Raises
    ------
    mkdocs.exceptions.PluginError
        When an example of a page fails, with doctest's report.
    """
    from mkdocs.exceptions import PluginError

    reports = []
    for path in pages():
        failed, _, report = run_page(path)
        if failed:
            reports.append(report)
    if reports:
        raise PluginError("examples of the documentation failed:\n" + "\n".join(reports))


def math_to_mathml(page: str) -> str:
    """Replace each formula that pymdownx.arithmatex marked in a page by MathML.

    Parameters
    ----------
    page : str
        A page's HTML.

    Returns
    -------
    str
        The page, each ``<span class="arithmatex">\\(...\\)</span>`` an inline
        ``<math>`` element and each ``<div class="arithmatex">\\[...\\]</div>`` a
        ``<math display="block">`` one.
    """
    from latex2mathml.converter import convert

    def render(match: re.Match[str]) -> str:
        display = "block" if match.group(1) == "div" else "inline"
        return convert(html.unescape(match.group(2)).strip(), display=display)

    return _ARITHMATEX.sub(render, page)


def on_page_content(content: str, **kwargs: Any) -> str:
    """The page's formulas as MathML (:func:`math_to_mathml`)."""
    return math_to_mathml(content)

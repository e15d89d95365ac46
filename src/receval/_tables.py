"""Escaping of table cells for Markdown and LaTeX (shared by reports and the CLI)."""

from __future__ import annotations

_LATEX = {
    "\\": "\\textbackslash{}",
    "&": "\\&",
    "%": "\\%",
    "_": "\\_",
    "#": "\\#",
    "$": "\\$",
    "{": "\\{",
    "}": "\\}",
    "~": "\\textasciitilde{}",
    "^": "\\textasciicircum{}",
}


def latex_escape(text: object) -> str:
    """``text`` with LaTeX's special characters escaped, one character at a time."""
    return "".join(_LATEX.get(ch, ch) for ch in str(text))


def markdown_escape(text: object) -> str:
    """``text`` safe inside a Markdown table cell (pipes escaped)."""
    return str(text).replace("|", "\\|")

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


def flatten_counts(counts: dict[str, object]) -> dict[str, object]:
    """Counts with a nested dict's keys spelled ``name:key`` (``{"gauc": {"n_groups": 3}}``
    becomes ``{"gauc:n_groups": 3}``), for one line of text or extra table columns."""
    out: dict[str, object] = {}
    for key, value in counts.items():
        if isinstance(value, dict):
            out.update({f"{key}:{k}": v for k, v in value.items()})
        else:
            out[key] = value
    return out

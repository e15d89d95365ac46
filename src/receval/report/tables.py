"""Escaping and formatting of table cells for Markdown, LaTeX and HTML (reports and the CLI)."""

from __future__ import annotations

import math

#: p-values below this are written ``< 1e-4`` (:func:`format_p_value`).
P_VALUE_FLOOR = 1e-4

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
    "<": "\\textless{}",
    ">": "\\textgreater{}",
}


def latex_escape(text: object) -> str:
    """``text`` with LaTeX's special characters escaped, one character at a time."""
    return "".join(_LATEX.get(ch, ch) for ch in str(text))


def latex_cell(text: object) -> str:
    """A LaTeX table cell: ``text`` escaped, but a trailing ``$^{...}$`` marker kept."""
    head, sep, tail = str(text).partition("$^{")
    return latex_escape(head) + (sep + tail if sep else "")


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


def format_p_value(p: float) -> str:
    """A p-value as text: ``"< 1e-4"`` below 1e-4, else 4 significant digits.

    Parameters
    ----------
    p : float
        The p-value, in [0, 1] or nan.

    Returns
    -------
    text : str
        ``"< 1e-4"``, ``"nan"`` or ``f"{p:.4g}"``.

    Examples
    --------
    >>> from receval.report.tables import format_p_value
    >>> format_p_value(3e-7), format_p_value(0.0001), format_p_value(0.04567), format_p_value(1.0)
    ('< 1e-4', '0.0001', '0.04567', '1')
    """
    value = float(p)
    if math.isnan(value):
        return "nan"
    if value < P_VALUE_FLOOR:
        return "< 1e-4"
    return f"{value:.4g}"

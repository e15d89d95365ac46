"""Self-contained HTML reports: headings, text, tables of records and matplotlib figures.

:class:`HTMLReport` collects the parts of a report in order and writes them
as ONE HTML file: a small inline style sheet, tables built from lists of
records, and figures embedded as base64 PNG ``data:`` URIs, so the file can
be mailed or attached to a ticket and opens offline. No template engine is
used (every text goes through :func:`html.escape`), and matplotlib is
imported only when a figure is added.
"""

from __future__ import annotations

import base64
import datetime as _dt
import html
import io
import math
import os
import sys
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from . import __version__
from ._validation import check_number
from .exceptions import InvalidParameterError

__all__ = ["HTMLReport", "figure_to_data_uri", "new_axes"]

_MISSING = "receval.report needs matplotlib for figures; pip install 'receval[plot]'."

_CSS = """\
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1f2328;
       max-width: 1200px; margin: 2em auto; padding: 0 1em; line-height: 1.45; }
h1 { font-size: 1.7em; border-bottom: 1px solid #d0d7de; padding-bottom: .3em; }
h2 { font-size: 1.35em; margin-top: 1.8em; border-bottom: 1px solid #d0d7de; padding-bottom: .2em; }
h3 { font-size: 1.1em; margin-top: 1.4em; }
p.text { margin: .5em 0; }
table { border-collapse: collapse; margin: .8em 0; font-size: .92em; }
caption { caption-side: top; text-align: left; font-weight: 600; padding-bottom: .3em; }
th, td { border: 1px solid #d0d7de; padding: .25em .7em; }
th { background: #f6f8fa; text-align: left; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tr:nth-child(even) td { background: #fbfcfd; }
p.more { color: #656d76; font-size: .88em; margin-top: -.4em; }
div.figures { display: flex; flex-wrap: wrap; gap: 1em; align-items: flex-start; }
figure { margin: .5em 0; }
figure img { max-width: 100%; height: auto; border: 1px solid #eaeef2; }
figcaption { color: #656d76; font-size: .88em; text-align: center; }
footer { margin-top: 3em; color: #8c959f; font-size: .8em; }
"""


def _matplotlib_figure() -> Any:
    """``matplotlib.figure.Figure``, or an ImportError saying how to get it."""
    try:
        from matplotlib.figure import Figure
    except ImportError as exc:
        raise ImportError(_MISSING) from exc
    return Figure


def new_axes(*, figsize: tuple[float, float] = (6.0, 4.5)) -> Any:
    """Create the Axes of a new figure that pyplot does not track.

    The figure has no GUI backend and needs no ``plt.close``: it is freed
    with its last reference. Use it to draw report figures from scripts and
    servers without touching pyplot's global state.

    Parameters
    ----------
    figsize : tuple of float, default=(6.0, 4.5)
        Width and height of the figure in inches.

    Returns
    -------
    ax : matplotlib Axes
        The only Axes of a new figure with the constrained layout.

    Raises
    ------
    ImportError
        matplotlib is not installed.

    Examples
    --------
    >>> from receval.report import new_axes
    >>> ax = new_axes(figsize=(4, 3))
    >>> ax.figure.get_size_inches().tolist()
    [4.0, 3.0]
    """
    figure = _matplotlib_figure()(figsize=figsize, layout="constrained")
    return figure.add_subplot()


def _as_figure(figure: Any, func: str) -> Any:
    """The Figure of a Figure or an Axes."""
    if hasattr(figure, "savefig"):
        return figure
    fig = getattr(figure, "figure", None)
    if fig is not None and hasattr(fig, "savefig"):
        return fig  # an Axes
    raise InvalidParameterError(
        f"The 'figure' parameter of {func} must be a matplotlib Figure or Axes. "
        f"Got {type(figure).__name__} instead."
    )


def figure_to_data_uri(figure: Any, *, dpi: int = 100) -> str:
    """Render a matplotlib figure as a base64 PNG ``data:`` URI.

    Parameters
    ----------
    figure : matplotlib Figure or Axes
        What to render; for an Axes, its whole figure.
    dpi : int, default=100
        Resolution of the PNG.

    Returns
    -------
    uri : str
        ``"data:image/png;base64,..."``, usable as the ``src`` of an ``<img>``.

    Raises
    ------
    InvalidParameterError
        ``figure`` is neither a Figure nor an Axes.

    Examples
    --------
    >>> from receval.report import figure_to_data_uri, new_axes
    >>> ax = new_axes()
    >>> _ = ax.plot([0, 1], [1, 0])
    >>> figure_to_data_uri(ax)[:30]
    'data:image/png;base64,iVBORw0K'
    """
    fig = _as_figure(figure, "figure_to_data_uri")
    check_number(dpi, "dpi", "figure_to_data_uri", integer=True, low=1)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _plain(value: Any) -> Any:
    """NumPy scalars and dates as plain Python values."""
    if isinstance(value, np.datetime64):
        return str(np.datetime_as_string(value, unit="D"))
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (_dt.date, _dt.datetime)):
        return value.isoformat()
    return value


def _is_number(value: Any) -> bool:
    return value is None or (isinstance(value, (int, float)) and not isinstance(value, bool))


def _cell(value: Any, digits: int) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return "nan" if math.isnan(value) else f"{value:.{digits}f}"
    return str(value)


class HTMLReport:
    """A self-contained HTML report built part by part.

    Parts (headings, paragraphs, tables, figures) are kept in the order they
    are added; consecutive figures are laid out side by side, wrapping to the
    page width. :meth:`to_html` returns the whole document and :meth:`write`
    saves it. The output depends only on what was added (no time stamp), and
    references no external resource.

    Parameters
    ----------
    title : str
        The ``<title>`` and the top ``<h1>`` heading.
    description : str, default=None
        A paragraph under the title.
    digits : int, default=4
        Decimals of floats in tables.

    See Also
    --------
    figure_to_data_uri : How figures are embedded.
    receval.plot : Figures of receval's metrics to add.

    Examples
    --------
    >>> from receval.report import HTMLReport
    >>> doc = HTMLReport("Weekly evaluation", description="Models of 2024-W05.")
    >>> doc.add_heading("CTR models")
    >>> doc.add_table([{"model": "a", "auc": 0.81234}, {"model": "b", "auc": 0.7}])
    >>> page = doc.to_html()
    >>> page.startswith("<!DOCTYPE html>"), "<h2>CTR models</h2>" in page
    (True, True)
    >>> '<td class="num">0.8123</td>' in page
    True
    """

    def __init__(self, title: str, *, description: str | None = None, digits: int = 4) -> None:
        self.title = str(title)
        self.digits = check_number(digits, "digits", "HTMLReport", integer=True, low=0, high=17)
        self._parts: list[tuple[str, str]] = []  # (kind, html)
        if description:
            self.add_text(description)

    @property
    def n_figures(self) -> int:
        """Number of figures added so far."""
        return sum(kind == "figure" for kind, _ in self._parts)

    def add_heading(self, text: str, *, level: int = 2) -> None:
        """Add a section heading.

        Parameters
        ----------
        text : str
            The heading, escaped.
        level : int, default=2
            2 for a section, 3 for a subsection (1 is the title's).
        """
        level = check_number(level, "level", "HTMLReport.add_heading", integer=True, low=2, high=6)
        self._parts.append(("heading", f"<h{level}>{html.escape(str(text))}</h{level}>"))

    def add_text(self, text: str) -> None:
        """Add a paragraph of plain text (escaped; no markup).

        Parameters
        ----------
        text : str
            The paragraph.
        """
        self._parts.append(("text", f'<p class="text">{html.escape(str(text))}</p>'))

    def add_table(
        self,
        records: Iterable[Mapping[str, Any]],
        *,
        caption: str | None = None,
        max_rows: int | None = None,
    ) -> None:
        """Add a table with one row per record and one column per key.

        Columns are the keys in the order they first appear. Floats are
        rounded to ``digits`` decimals (``nan`` when undefined), a missing
        key or None is an empty cell, and columns of numbers are right-aligned.

        Parameters
        ----------
        records : iterable of mapping
            The rows, e.g. ``[{"model": "a", "auc": 0.81}, ...]`` (the JSON
            output of the ``receval`` command has this shape).
        caption : str, default=None
            A caption above the table.
        max_rows : int, default=None
            Show only the first ``max_rows`` rows, followed by a line saying
            how many were left out; all rows when None.
        """
        rows = [{str(k): _plain(v) for k, v in record.items()} for record in records]
        columns = list(dict.fromkeys(k for row in rows for k in row))
        total = len(rows)
        if max_rows is not None:
            check_number(max_rows, "max_rows", "HTMLReport.add_table", integer=True, low=1)
            rows = rows[:max_rows]
        numeric = {c: all(_is_number(row.get(c)) for row in rows) for c in columns}
        out = ["<table>"]
        if caption:
            out.append(f"<caption>{html.escape(str(caption))}</caption>")
        out.append(
            "<thead><tr>"
            + "".join(
                f'<th class="num">{html.escape(c)}</th>'
                if numeric[c]
                else f"<th>{html.escape(c)}</th>"
                for c in columns
            )
            + "</tr></thead>"
        )
        out.append("<tbody>")
        for row in rows:
            cells = []
            for c in columns:
                text = html.escape(_cell(row.get(c), self.digits))
                cells.append(f'<td class="num">{text}</td>' if numeric[c] else f"<td>{text}</td>")
            out.append("<tr>" + "".join(cells) + "</tr>")
        out.append("</tbody></table>")
        if len(rows) < total:
            out.append(f'<p class="more">First {len(rows)} of {total} rows.</p>')
        self._parts.append(("table", "\n".join(out)))

    def add_figure(
        self, figure: Any, *, caption: str | None = None, dpi: int = 100, close: bool = True
    ) -> None:
        """Add a matplotlib figure, embedded as a base64 PNG.

        The figure is rendered now: drawing on it later changes nothing.

        Parameters
        ----------
        figure : matplotlib Figure or Axes
            What to add; for an Axes, its whole figure.
        caption : str, default=None
            A caption under the figure (also its ``alt`` text).
        dpi : int, default=100
            Resolution of the PNG.
        close : bool, default=True
            Close the figure in pyplot after rendering it (when pyplot tracks
            it), so that reports with many figures do not keep them all open.

        Raises
        ------
        InvalidParameterError
            ``figure`` is neither a Figure nor an Axes.
        """
        fig = _as_figure(figure, "HTMLReport.add_figure")
        uri = figure_to_data_uri(fig, dpi=dpi)
        if close and "matplotlib.pyplot" in sys.modules:
            sys.modules["matplotlib.pyplot"].close(fig)
        alt = html.escape(str(caption)) if caption else "figure"
        part = f'<figure><img src="{uri}" alt="{alt}">'
        if caption:
            part += f"<figcaption>{html.escape(str(caption))}</figcaption>"
        self._parts.append(("figure", part + "</figure>"))

    def to_html(self) -> str:
        """Return the report as one HTML document.

        Returns
        -------
        page : str
            A complete HTML5 document with inline CSS and images; it makes
            no request when opened.
        """
        title = html.escape(self.title)
        body: list[str] = [f"<h1>{title}</h1>"]
        in_figures = False
        for kind, part in self._parts:
            if kind == "figure" and not in_figures:
                body.append('<div class="figures">')
                in_figures = True
            elif kind != "figure" and in_figures:
                body.append("</div>")
                in_figures = False
            body.append(part)
        if in_figures:
            body.append("</div>")
        body.append(f"<footer>Made with receval {html.escape(__version__)}.</footer>")
        return (
            "<!DOCTYPE html>\n"
            '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{title}</title>\n<style>\n{_CSS}</style>\n</head>\n<body>\n"
            + "\n".join(body)
            + "\n</body>\n</html>\n"
        )

    def write(self, path: str | os.PathLike[str]) -> str:
        """Write the report to an HTML file (UTF-8), replacing any file there.

        Parameters
        ----------
        path : str or path-like
            Where to write, e.g. ``"report.html"``.

        Returns
        -------
        path : str
            The path written, as given.
        """
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.to_html())
        return os.fspath(path)

"""The HTML document of :mod:`receval.report`: :class:`HTMLReport`, one self-contained
page that opens offline (its numbers as JSON beside it), and how figures are embedded.
"""

from __future__ import annotations

import base64
import datetime as _dt
import html
import io
import itertools
import math
import os
import re
import sys
import tempfile
from collections.abc import Iterable, Mapping
from contextlib import suppress
from typing import Any

from .._validation import check_number, counted
from ..exceptions import InvalidParameterError
from .interactive import PLOTLY_CONFIG, has_plotly, plotly_js
from .json_values import dumps, json_value, plain_value
from .tables import counts_sentence, format_float


def receval_version() -> str:
    """receval's version, read when a report is written (not when this module is
    imported: the installed metadata costs tens of milliseconds)."""
    from .. import __version__

    return __version__


__all__ = [
    "CONTENT_SECURITY_POLICY",
    "HTMLReport",
    "check_target",
    "figure_to_data_uri",
    "json_path",
]

_CSS = """\
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1f2328;
       max-width: 1200px; margin: 2em auto; padding: 0 1em; line-height: 1.45; }
h1 { font-size: 1.7em; border-bottom: 1px solid #d0d7de; padding-bottom: .3em; }
h2 { font-size: 1.35em; margin-top: 1.8em; border-bottom: 1px solid #d0d7de; padding-bottom: .2em; }
h3 { font-size: 1.1em; margin-top: 1.4em; }
p.text { margin: .5em 0; }
table { border-collapse: collapse; margin: .8em 0; font-size: .92em;
        display: block; max-width: 100%; overflow-x: auto; }
caption { caption-side: top; text-align: left; font-weight: 600; padding-bottom: .3em; }
th, td { border: 1px solid #d0d7de; padding: .25em .7em; }
th { background: #f6f8fa; text-align: left; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tr:nth-child(even) td { background: #fbfcfd; }
p.more { color: #656d76; font-size: .88em; margin-top: -.4em; }
div.figures { display: flex; flex-wrap: wrap; gap: 1em; align-items: flex-start; }
div.figures > figure { flex: 1 1 440px; min-width: 0; }
div.figures > figure.wide { flex-basis: 100%; }
figure { margin: .5em 0; }
figure img { max-width: 100%; height: auto; border: 1px solid #eaeef2; }
figcaption { color: #656d76; font-size: .88em; text-align: center; }
footer { margin-top: 3em; color: #8c959f; font-size: .8em; }
header.meta { color: #424a53; font-size: .9em; margin: -.3em 0 1em; }
header.meta p { margin: .15em 0; }
header.meta ul { margin: .1em 0 .3em; padding-left: 1.4em; }
header.meta code { background: #f6f8fa; padding: .1em .3em; border-radius: 4px;
                   overflow-wrap: anywhere; }
nav.toc { background: #f6f8fa; border: 1px solid #d0d7de; border-radius: 6px;
          padding: .4em 1em; display: inline-block; margin-bottom: .5em; }
nav.toc ul { margin: .2em 0; padding-left: 1.2em; }
div.plotly-figure { width: 100%; height: 440px; border: 1px solid #eaeef2; }
figure.plot.wide div.plotly-figure { height: 560px; }
p.note { color: #9a6700; background: #fff8c5; padding: .3em .6em; border-radius: 4px; }
"""


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


def _is_number(value: Any) -> bool:
    return value is None or (isinstance(value, (int, float)) and not isinstance(value, bool))


def _cell(value: Any, digits: int) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return "nan" if math.isnan(value) else format_float(value, digits, thousands=True)
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)


#: The page's Content-Security-Policy: nothing is loaded from anywhere (no request at
#: all); only the page's own inline scripts (plotly.js and the figures), inline styles
#: and data: images (the PNG figures, plotly's image export) run or show.
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "img-src data: blob:; base-uri 'none'; form-action 'none'"
)


def json_path(path: str | os.PathLike[str]) -> str:
    """Where :meth:`HTMLReport.write` puts the numbers: ``report.html`` -> ``report.json``.

    Examples
    --------
    >>> from receval.report.html import json_path
    >>> json_path("out/report.html"), json_path("report.htm"), json_path("report")
    ('out/report.json', 'report.json', 'report.json')
    """
    root, ext = os.path.splitext(os.fspath(path))
    return (root if ext.lower() in (".html", ".htm") else os.fspath(path)) + ".json"


def _generated_at() -> str:
    """Now in UTC, or the time of ``SOURCE_DATE_EPOCH`` when it is set (reproducible builds)."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch is None or epoch.strip() == "":
        moment = _dt.datetime.now(_dt.timezone.utc)
    else:
        try:
            seconds = int(epoch)
        except ValueError:
            raise InvalidParameterError(
                "The SOURCE_DATE_EPOCH environment variable must be an integer number of "
                f"seconds since 1970-01-01 UTC. Got {epoch!r} instead."
            ) from None
        moment = _dt.datetime.fromtimestamp(seconds, _dt.timezone.utc)
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")


def _script_json(value: Any) -> str:
    """JSON safe inside a ``<script>`` element (no ``</`` that could close it)."""
    text = dumps(value, separators=(",", ":"), ensure_ascii=False)
    return text.replace("</", "<\\/").replace("<!--", "<\\!--")


class HTMLReport:
    """A self-contained HTML report built part by part.

    Parts (headings, paragraphs, tables, figures) are kept in the order they
    are added; consecutive figures are laid out side by side, wrapping to the
    page width. :meth:`to_html` returns the whole document and :meth:`write`
    saves it, with the numbers of every table as JSON beside it. The page
    references no external resource: interactive figures come with
    plotly.js inlined once, static ones as embedded PNGs.

    Parameters
    ----------
    title : str
        The ``<title>`` and the top ``<h1>`` heading.
    description : str, default=None
        A paragraph under the title.
    digits : int, default=4
        Decimals of floats in tables.
    command : str, default=None
        The command or call that made the report, shown in its header (the
        ``receval`` command passes its own command line).
    timestamp : bool, default=True
        Write a "generated at" line (UTC; the time of the
        ``SOURCE_DATE_EPOCH`` environment variable when set). Without it,
        the same inputs give byte-identical files.
    interactive : bool, default=None
        Draw the sections' figures with Plotly (hover, zoom, legends that
        toggle models) or with matplotlib as PNGs. By default Plotly when
        the ``plotly`` package is installed, with a note in the page when it
        is not.

    Raises
    ------
    ImportError
        ``interactive=True`` and plotly is not installed.

    See Also
    --------
    figure_to_data_uri : How matplotlib figures are embedded.
    receval.plot : Figures of receval's metrics to add.

    Examples
    --------
    >>> from receval.report import HTMLReport
    >>> doc = HTMLReport("Weekly evaluation", description="Models of 2024-W05.", timestamp=False)
    >>> doc.add_heading("CTR models")
    >>> doc.add_table([{"model": "a", "auc": 0.81234}, {"model": "b", "auc": 0.7}])
    >>> page = doc.to_html()
    >>> page.startswith("<!DOCTYPE html>"), '<h2 id="ctr-models">CTR models</h2>' in page
    (True, True)
    >>> '<td class="num">0.8123</td>' in page
    True
    >>> doc.to_dict()["sections"][0]["tables"][0]["rows"][0]
    {'model': 'a', 'auc': 0.81234}
    """

    def __init__(
        self,
        title: str,
        *,
        description: str | None = None,
        digits: int = 4,
        command: str | None = None,
        timestamp: bool = True,
        interactive: bool | None = None,
    ) -> None:
        self.title = str(title)
        self.digits = check_number(digits, "digits", "HTMLReport", integer=True, low=0, high=17)
        self.command = None if command is None else str(command)
        self.timestamp = bool(timestamp)
        if interactive is None:
            interactive = has_plotly()
        elif interactive and not has_plotly():
            plotly_js()  # the ImportError saying how to install it
        self.interactive = bool(interactive)
        self._parts: list[tuple[str, str]] = []  # (kind, html)
        self._inputs: list[dict[str, Any]] = []
        self._toc: list[tuple[str, str]] = []  # (id, heading)
        self._sections: list[dict[str, Any]] = [{"heading": None, "tables": []}]
        self._n_plots = 0
        self._ids: set[str] = set()  # the ids of the headings and figures: each once
        #: The notes added with ``add_text(..., note=True)``.
        self.notes: list[str] = []
        self.description = None if not description else str(description)

    @property
    def n_figures(self) -> int:
        """Number of figures added so far (interactive and static)."""
        return sum(kind in ("figure", "plot") for kind, _ in self._parts)

    def __repr__(self) -> str:
        n_tables = sum(kind == "table" for kind, _ in self._parts)
        return (
            f"HTMLReport({self.title!r}: {counted(len(self._toc), 'section')}, "
            f"{counted(n_tables, 'table')}, {counted(self.n_figures, 'figure')}; the page: "
            f".to_html(), the numbers: .to_dict())"
        )

    def add_input(self, name: str, n_rows: int | None = None, *, what: str | None = None) -> None:
        """List an input (a file, a dataset) in the report's header and its JSON.

        Parameters
        ----------
        name : str
            The file's path as given, or a name for in-memory data.
        n_rows : int, default=None
            Its number of rows, when known.
        what : str, default=None
            What it holds, e.g. ``"impressions"`` or ``"qrels"``.
        """
        rows = None if n_rows is None else check_number(
            n_rows, "n_rows", "HTMLReport.add_input", integer=True, low=0
        )  # fmt: skip
        self._inputs.append({"name": str(name), "rows": rows, "what": what})

    def add_heading(self, text: str, *, level: int = 2) -> None:
        """Add a section heading (a level-2 heading is listed in the table of contents).

        Parameters
        ----------
        text : str
            The heading, escaped.
        level : int, default=2
            2 for a section, 3 for a subsection (1 is the title's).
        """
        level = check_number(level, "level", "HTMLReport.add_heading", integer=True, low=2, high=6)
        text = str(text)
        if level > 2:
            self._parts.append(("heading", f"<h{level}>{html.escape(text)}</h{level}>"))
            return
        slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "section"
        anchor = self._unique_id(slug, (f"{slug}-{n}" for n in itertools.count(2)))
        self._toc.append((anchor, text))
        self._sections.append({"heading": text, "tables": []})
        self._parts.append(("heading", f'<h2 id="{anchor}">{html.escape(text)}</h2>'))

    def _unique_id(self, first: str, others: Iterable[str]) -> str:
        """The first of ``first`` and ``others`` that no heading or figure has, now taken."""
        anchor = next(a for a in itertools.chain([first], others) if a not in self._ids)
        self._ids.add(anchor)
        return anchor

    def add_text(self, text: str, *, note: bool = False) -> None:
        """Add a paragraph of plain text (escaped; no markup).

        Parameters
        ----------
        text : str
            The paragraph.
        note : bool, default=False
            Highlight it as a note (e.g. what the report could not show).
        """
        kind = "note" if note else "text"
        if note:
            self.notes.append(str(text))
        self._parts.append(("text", f'<p class="{kind}">{html.escape(str(text))}</p>'))

    def add_table(
        self,
        records: Iterable[Mapping[str, Any]],
        *,
        caption: str | None = None,
        max_rows: int | None = None,
        numbers: Iterable[Mapping[str, Any]] | None = None,
    ) -> None:
        """Add a table with one row per record and one column per key.

        Columns are the keys in the order they first appear. Floats are
        rounded to ``digits`` decimals (``nan`` when undefined), a missing
        key or None is an empty cell, and columns of numbers are right-aligned.
        Every record, at full precision, also goes to the JSON of :meth:`to_dict`.

        Parameters
        ----------
        records : iterable of mapping
            The rows, e.g. ``[{"model": "a", "auc": 0.81}, ...]`` (the JSON
            output of the ``receval`` command has this shape).
        caption : str, default=None
            A caption above the table.
        max_rows : int, default=None
            Show only the first ``max_rows`` rows, followed by a line saying
            how many were left out; all rows when None (the JSON has them all).
        numbers : iterable of mapping, default=None
            The rows of the JSON when the table shows formatted text (e.g.
            the numbers behind intervals and p-values); ``records`` by default.
        """
        rows = [{str(k): plain_value(v) for k, v in record.items()} for record in records]
        data = rows if numbers is None else [dict(r) for r in numbers]
        columns = list(dict.fromkeys(k for row in data for k in row))
        self._sections[-1]["tables"].append(
            {"caption": caption, "columns": columns, "rows": json_value(data)}
        )
        self._table_html(rows, caption, max_rows)

    def _table_html(
        self, rows: list[dict[str, Any]], caption: str | None, max_rows: int | None
    ) -> None:
        columns = list(dict.fromkeys(k for row in rows for k in row))
        total = len(rows)
        if max_rows is not None:
            check_number(max_rows, "max_rows", "HTMLReport.add_table", integer=True, low=1)
            rows = rows[:max_rows]
        # columns of numbers are right-aligned
        align = {
            c: ' class="num"' if all(_is_number(row.get(c)) for row in rows) else ""
            for c in columns
        }
        if not rows or not columns:  # an empty <table> shows nothing at all
            what = "no rows" if not rows else "no columns"
            said = f"{caption}: {what}." if caption else f"{what.capitalize()}."
            self._parts.append(("table", f'<p class="more">{html.escape(str(said))}</p>'))
            return
        out = ["<table>"]
        if caption:
            out.append(f"<caption>{html.escape(str(caption))}</caption>")
        head = "".join(f"<th{align[c]}>{html.escape(c)}</th>" for c in columns)
        out += [f"<thead><tr>{head}</tr></thead>", "<tbody>"]
        for row in rows:
            cells = [f"<td{align[c]}>{html.escape(_cell(row.get(c), self.digits))}</td>"
                     for c in columns]  # fmt: skip
            out.append("<tr>" + "".join(cells) + "</tr>")
        out.append("</tbody></table>")
        if len(rows) < total:
            out.append(f'<p class="more">First {len(rows)} of {total} rows.</p>')
        self._parts.append(("table", "\n".join(out)))

    def add_results(
        self,
        records: Iterable[Mapping[str, Any]],
        *,
        caption: str | None = None,
        max_rows: int | None = None,
    ) -> None:
        """Add a table of results, then a line per record naming what its rules left out.

        Records have the shape of the JSON output of the ``receval``
        command: a record's ``"counts"`` (users or groups a metric skipped,
        rows in them) is not a column; its non-zero counts become one sentence
        under the table (:func:`~receval.report.tables.counts_sentence`), and
        the JSON of :meth:`to_dict` keeps them all.

        Parameters
        ----------
        records : iterable of mapping
            The rows, e.g. ``[{"score": "a", "gauc": 0.7, "counts": {...}}]``.
        caption : str, default=None
            A caption above the table.
        max_rows : int, default=None
            Show only the first ``max_rows`` rows (every sentence of counts is kept).

        Examples
        --------
        >>> from receval.report import HTMLReport
        >>> doc = HTMLReport("Runs")
        >>> doc.add_results([{"run": "bm25", "mrr": 0.5, "counts": {"n_users": 2000}}])
        >>> '<p class="text">bm25: 2,000 users.</p>' in doc.to_html()
        True
        """
        full = [dict(record) for record in records]
        rows = [{k: v for k, v in row.items() if k != "counts"} for row in full]
        self.add_table(rows, caption=caption, max_rows=max_rows, numbers=full)
        for row, record in zip(rows, full, strict=True):
            if record.get("counts") is not None:
                sentence = counts_sentence(record["counts"], row, self.digits)
                if sentence:  # named by the row's first cell, where it has one
                    name = f"{next(iter(row.values()))}: " if row else ""
                    self.add_text(f"{name}{sentence}.")

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

    def add_plotly(
        self, figure: Mapping[str, Any] | Any, *, caption: str | None = None, wide: bool = False
    ) -> None:
        """Add an interactive Plotly figure (plotly.js is inlined once in the page).

        Parameters
        ----------
        figure : mapping or plotly Figure
            ``{"data": [...], "layout": {...}}`` as ``Plotly.newPlot`` takes
            it (the ``*_figure`` builders of the report make these), or a
            ``plotly.graph_objects.Figure``.
        caption : str, default=None
            A caption under the figure.
        wide : bool, default=False
            A wider and taller figure (heatmaps).

        Raises
        ------
        InvalidParameterError
            ``figure`` has no ``"data"`` list.
        """
        spec = figure.to_plotly_json() if hasattr(figure, "to_plotly_json") else figure
        if not isinstance(spec, Mapping) or not isinstance(spec.get("data"), list):
            raise InvalidParameterError(
                "The 'figure' parameter of HTMLReport.add_plotly must be a plotly Figure or a "
                f"dict with a 'data' list. Got {type(figure).__name__} instead."
            )
        self._n_plots += 1
        n = self._n_plots
        anchor = self._unique_id(f"figure-{n}", (f"figure-{n}-{k}" for k in itertools.count(2)))
        payload = {
            "data": json_value(spec["data"]),
            "layout": json_value(spec.get("layout", {})),
            "config": PLOTLY_CONFIG,
        }
        size = "plot wide" if wide else "plot"
        part = f'<figure class="{size}"><div id="{anchor}" class="plotly-figure"></div>'
        if caption:
            part += f"<figcaption>{html.escape(str(caption))}</figcaption>"
        part += f'<script>Plotly.newPlot("{anchor}", {_script_json(payload)});</script>'
        self._parts.append(("plot", part + "</figure>"))

    def to_dict(self, *, generated_at: str | None = None) -> dict[str, Any]:
        """The report's numbers as a JSON-ready dict.

        Parameters
        ----------
        generated_at : str, default=None
            The time stamp to record (:meth:`write` passes the page's); with
            ``timestamp=True`` and None, now.

        Returns
        -------
        numbers : dict
            ``title``, ``receval`` (the version), ``command``, ``inputs``
            (name, rows, what), ``generated_at`` (with ``timestamp=True``) and
            ``sections``: each heading with its tables (caption, columns and
            every row at full precision; nan as None, infinities as ``"Infinity"``
            and ``"-Infinity"``, as :func:`~receval.report.json_values.json_value`
            writes them).
        """
        out: dict[str, Any] = {"title": self.title, "receval": receval_version()}
        out["command"] = self.command
        out["inputs"] = [dict(i) for i in self._inputs]
        if self.timestamp:
            out["generated_at"] = generated_at or _generated_at()
        out["sections"] = [s for s in self._sections if s["heading"] is not None or s["tables"]]
        return json_value(out)  # type: ignore[no-any-return]

    def to_json(self, *, generated_at: str | None = None) -> str:
        """:meth:`to_dict` as JSON text (indented, keys in order)."""
        return dumps(self.to_dict(generated_at=generated_at), indent=1, ensure_ascii=False) + "\n"

    def _header(self, generated_at: str | None) -> list[str]:
        lines = [f"<p>receval {html.escape(receval_version())}</p>"]
        if self.command:
            lines.append(f"<p>Made by <code>{html.escape(self.command)}</code></p>")
        if self._inputs:
            items = []
            for i in self._inputs:
                text = f"<code>{html.escape(i['name'])}</code>"
                if i["rows"] is not None:
                    text += f": {counted(i['rows'], 'row')}"
                if i["what"]:
                    text = f"{html.escape(str(i['what']))} " + text
                items.append(f"<li>{text}</li>")
            lines.append("<p>Inputs:</p><ul>" + "".join(items) + "</ul>")
        if generated_at is not None:
            lines.append(f"<p>Generated at {html.escape(generated_at)}</p>")
        out = ['<header class="meta">', *lines, "</header>"]
        if self._toc:
            links = "".join(
                f'<li><a href="#{anchor}">{html.escape(text)}</a></li>'
                for anchor, text in self._toc
            )
            out.append(f'<nav class="toc"><strong>Contents</strong><ul>{links}</ul></nav>')
        return out

    def to_html(self, *, generated_at: str | None = None) -> str:
        """Return the report as one HTML document.

        Parameters
        ----------
        generated_at : str, default=None
            The time stamp to show; with ``timestamp=True`` and None, now.

        Returns
        -------
        page : str
            A complete HTML5 document with inline CSS, scripts and images; it
            makes no request when opened, and its Content-Security-Policy
            (:data:`CONTENT_SECURITY_POLICY`) forbids the browser any network
            load, whatever strings the report shows. Every string given to the
            report is escaped: in text and attributes, and in figure labels,
            which Plotly reads as HTML.
        """
        stamp = (generated_at or _generated_at()) if self.timestamp else None
        title = html.escape(self.title)
        body: list[str] = [f"<h1>{title}</h1>"]
        if self.description:
            body.append(f'<p class="text">{html.escape(self.description)}</p>')
        body += self._header(stamp)
        # consecutive figures share a flex box
        for figures, group in itertools.groupby(self._parts, lambda p: p[0] in ("figure", "plot")):
            parts = [part for _, part in group]
            body += ['<div class="figures">', *parts, "</div>"] if figures else parts
        body.append(f"<footer>Made with receval {html.escape(receval_version())}.</footer>")
        script = ""
        if self._n_plots:
            script = f'<script charset="utf-8">{plotly_js()}</script>\n'
        return (
            "<!DOCTYPE html>\n"
            '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta http-equiv="Content-Security-Policy" content="{CONTENT_SECURITY_POLICY}">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{title}</title>\n<style>\n{_CSS}</style>\n{script}</head>\n<body>\n"
            + "\n".join(body)
            + "\n</body>\n</html>\n"
        )

    def write(self, path: str | os.PathLike[str], *, numbers: bool = True) -> str:
        """Write the report to an HTML file (UTF-8), and its numbers as JSON beside it.

        Parameters
        ----------
        path : str or path-like
            Where to write, e.g. ``"report.html"``; a regular file there is
            replaced atomically (written to a temporary file in the same folder,
            then renamed over it) and keeps its permissions. A device
            (``/dev/null``), a named pipe or a folder, or a file the report
            lists as an input (:meth:`add_input`), is refused.
        numbers : bool, default=True
            Also write :meth:`to_json` to :func:`json_path` of ``path``
            (``report.html`` -> ``report.json``).

        Returns
        -------
        path : str
            The path of the HTML file, as given.

        Raises
        ------
        InvalidParameterError
            ``path`` (or the JSON file beside it) is not a regular file, or is
            one of the report's inputs.
        """
        target = os.fspath(path)
        inputs = [str(i["name"]) for i in self._inputs]
        targets = [target, json_path(target)] if numbers else [target]
        for where in targets:
            check_target(where, inputs, "HTMLReport.write")
        stamp = _generated_at() if self.timestamp else None
        _write_text(target, self.to_html(generated_at=stamp))
        if numbers:
            _write_text(json_path(target), self.to_json(generated_at=stamp))
        return target


def check_target(target: str, inputs: Iterable[str], func: str) -> None:
    """Refuse to write over a file that is not a regular file, or over an input.

    ``target`` may be new, or a regular file (or a link to one), which is then
    replaced; a character device (``/dev/null``), a named pipe, a socket or a
    folder is refused, as are a file among ``inputs`` (the same file by any path) and
    a new file in a folder that does not exist.

    Raises
    ------
    InvalidParameterError
        Naming the path and what it is.

    Examples
    --------
    >>> from receval.report.html import check_target
    >>> check_target("/dev/null", [], "HTMLReport.write")
    Traceback (most recent call last):
    ...
    receval.exceptions.InvalidParameterError: HTMLReport.write: the output path must be ...
    """
    import stat

    try:
        st = os.stat(target)
    except (FileNotFoundError, NotADirectoryError):
        folder = os.path.dirname(target)
        if folder and not os.path.isdir(folder):  # found before the work, not after it
            above = folder  # the part of the folder's path that exists
            while above and not os.path.lexists(above) and os.path.dirname(above) != above:
                above = os.path.dirname(above)
            if above and os.path.lexists(above) and not os.path.isdir(above):
                what = "is a file" if above == folder else f"cannot be made: {above!r} is a file"
                raise InvalidParameterError(
                    f"{func}: the output path's folder {folder!r} {what}. Got {target!r}; "
                    f"write into a folder."
                ) from None
            raise InvalidParameterError(
                f"{func}: the output path's folder {folder!r} does not exist. Got {target!r}; "
                f"make the folder first (mkdir -p {folder}) or write into an existing one."
            ) from None
        return
    except OSError:
        return  # unreadable or a dangling link: the write names the error
    if not stat.S_ISREG(st.st_mode):
        kind = (
            "a character device" if stat.S_ISCHR(st.st_mode)
            else "a named pipe" if stat.S_ISFIFO(st.st_mode)
            else "a folder" if stat.S_ISDIR(st.st_mode)
            else "a socket" if stat.S_ISSOCK(st.st_mode)
            else "a block device" if stat.S_ISBLK(st.st_mode)
            else "not a regular file"
        )  # fmt: skip
        raise InvalidParameterError(
            f"{func}: the output path must be a regular file or a new name. Got {target!r}, "
            f"{kind}; pass a file path."
        )
    for name in inputs:
        with suppress(OSError):
            if os.path.samefile(target, name):
                raise InvalidParameterError(
                    f"{func}: the output path must not be one of the inputs. Got "
                    f"{target!r}, the same file as the input {name!r}; write to another file."
                )


def _write_text(target: str, text: str) -> None:
    """Write ``text`` to ``target`` through a temporary file in the same folder renamed
    over it once complete: a full disk or an interruption never leaves a truncated file
    behind. A file replaced keeps its permissions (and, where allowed, its owner); a
    link is followed, so the file it points to is replaced and the link kept."""
    target = os.path.realpath(target)
    folder = os.path.dirname(target)
    try:
        old: os.stat_result | None = os.stat(target)
    except OSError:
        old = None
    temporary = ""  # an error making it names the target, not the temporary file
    try:
        fd, temporary = tempfile.mkstemp(prefix=".receval-", suffix=".tmp", dir=folder)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        if old is not None:
            os.chmod(temporary, old.st_mode & 0o7777)
            with suppress(OSError):  # only root may give a file to another owner
                os.chown(temporary, old.st_uid, old.st_gid)
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(temporary, 0o666 & ~umask)  # as open() would have made it
        os.replace(temporary, target)
    except OSError as exc:
        with suppress(OSError):
            if temporary:
                os.remove(temporary)
        reason = exc.strerror or str(exc)
        raise OSError(exc.errno, f"cannot write the report: {reason}", target) from exc

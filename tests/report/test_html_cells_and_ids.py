"""The HTML report's cells, ids and figures: huge numbers, empty tables, one id per
element, the report's digits everywhere, names kept out of hover templates."""

from __future__ import annotations

import re

import numpy as np
import pytest

import receval as rv
from receval.report import HTMLReport
from receval.report.interactive import (
    calibration_figure,
    long_tail_figure,
    metric_at_k_figure,
    precision_recall_figure,
    roc_figure,
)
from receval.report.sections import ranking_section
from receval.report.tables import markdown_escape


@pytest.mark.parametrize(
    ("text", "escaped"),
    [
        ("__init__", "\\_\\_init\\_\\_"),
        ("*star*", "\\*star\\*"),
        ("![i](http://evil/x.png)", "!\\[i\\](http://evil/x.png)"),
        ("~~gone~~ `code`", "\\~\\~gone\\~\\~ \\`code\\`"),
        ("model_a é_é 1_2", "model_a é_é 1_2"),  # intraword: inert, kept readable
        ("a_ _b", "a\\_ \\_b"),
        ("a|b\\c <i>\r\nd", "a\\|b\\\\c &lt;i&gt;<br>d"),
    ],
)
def test_markdown_escape_leaves_no_inline_syntax(text, escaped):
    # "__init__" rendered bold, "*star*" italic and "![i](...)" an image
    assert markdown_escape(text) == escaped


def test_a_huge_number_is_in_exponent_form_as_in_the_cli():
    # 1e300 was printed as about 400 characters of fixed digits
    doc = HTMLReport("t", timestamp=False, interactive=False)
    doc.add_table([{"model": "a", "value": 1e300, "small": 12345.678}])
    page = doc.to_html()
    assert "1.0000e+300" in page and "12,345.6780" in page
    assert max(len(cell) for cell in re.findall(r"<td[^>]*>([^<]*)</td>", page)) < 20


def test_counts_of_a_record_without_columns_and_an_empty_table():
    # a record of counts alone raised a bare StopIteration; no rows gave an empty <table>
    doc = HTMLReport("t", timestamp=False, interactive=False)
    doc.add_results([{"counts": {"n_users": 3}}])
    doc.add_table([], caption="runs")
    doc.add_table([])
    page = doc.to_html()
    assert '<p class="text">3 users.</p>' in page
    assert '<p class="more">runs: no rows.</p>' in page and '<p class="more">No rows.</p>' in page
    assert "<table>" not in page


def test_ids_are_unique_across_headings_and_figures():
    # the heading "Figure 1" and the first plot both had the id "figure-1"
    doc = HTMLReport("t", timestamp=False, interactive=True)
    doc.add_heading("Figure 1")
    doc.add_plotly({"data": []})
    doc.add_heading("Figure 2")
    doc.add_plotly({"data": []})
    page = doc.to_html()
    ids = re.findall(r' id="([^"]+)"', page)
    assert len(ids) == len(set(ids)) == 4
    for anchor in re.findall(r'Plotly\.newPlot\("([^"]+)"', page):
        assert f'<div id="{anchor}" class="plotly-figure">' in page


def test_the_comparison_table_of_a_ranking_section_has_the_reports_digits():
    rng = np.random.default_rng(0)
    q = {f"u{i}": {"a": 1} for i in range(20)}
    reports = {
        name: rv.evaluate(q, {u: {"a": rng.random(), "b": rng.random()} for u in q}, ["mrr"])
        for name in ("x", "y")
    }
    doc = HTMLReport("t", digits=6, timestamp=False, interactive=False)
    ranking_section(doc, reports, figures=False)
    page = doc.to_html()
    difference = re.search(r"<td>([+-]\d\.\d+)</td>", page)
    assert difference is not None and len(difference[1].split(".")[1]) == 6


NAME = "r%{y}.csv"


def test_hover_templates_read_names_from_the_trace():
    # a run named "r%{y}.csv" showed a number in its hover: the name was in the template
    y, s = [0, 1, 1, 0, 1], [0.1, 0.8, 0.4, 0.3, 0.9]
    q = {"u1": {"a": 1}}
    figures = [
        roc_figure(y, {NAME: s}),
        precision_recall_figure(y, {NAME: s}),
        calibration_figure(y, {NAME: s}, n_bins=2),
        metric_at_k_figure(q, {NAME: {"u1": {"a": 1.0}}}, metrics=["recall"], ks=[1, 2]),
        long_tail_figure({"x": [0.5, 1.0], "interactions": [0.8, 1.0],
                          "runs": {NAME: [1.0, 1.0]}, "head": 0.5}),
    ]  # fmt: skip
    named = [t for fig in figures for t in fig["data"] if NAME in t.get("name", "")]
    assert len(named) >= 7
    for trace in named:
        template = trace["hovertemplate"]
        assert NAME not in template and "%{fullData.name}" in template

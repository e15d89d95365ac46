"""Names given by the user (runs, models, baselines) in Markdown and LaTeX outputs:
escaped in every line, never read as markup or as commands."""

from __future__ import annotations

import numpy as np
import pytest

import receval as rv

FAST = {"n_permutations": 200, "n_resamples": 100, "interval": "percentile"}
EVIL = "b<img src=x onerror=alert(1)>\n\\input{/etc/passwd}$^{x}"


@pytest.fixture(scope="module")
def report():
    rng = np.random.default_rng(0)
    q = {f"u{i}": {"a": 1} for i in range(30)}
    runs = {
        name: rv.evaluate(q, {u: {"a": rng.random(), "b": rng.random()} for u in q}, ["mrr"])
        for name in ["good", EVIL]
    }
    return rv.compare(None, runs, ["mrr"], baseline=EVIL, **FAST)


@pytest.mark.parametrize("detail", [False, True])
def test_latex_escapes_a_name_holding_a_marker_and_keeps_the_comment_one_line(report, detail):
    # the text after "$^{" was kept raw (taken for the significance marker), and the
    # baseline's line break ended the legend's comment: "\input{...}" ran
    tex = report.to_latex(detail=detail)
    lines = tex.splitlines()
    assert lines[-1].startswith("% ") and lines[-2] == "\\end{tabular}"
    for line in lines[:-1]:
        assert "\\input{" not in line and "$^{x}" not in line
    assert "\\textbackslash{}input\\{/etc/passwd\\}\\$\\textasciicircum{}\\{x\\}" in tex


@pytest.mark.parametrize("detail", [False, True])
def test_markdown_escapes_every_name(report, detail):
    md = report.to_markdown(detail=detail)
    assert "<img" not in md and "&lt;img src=x onerror=alert(1)&gt;" in md
    if not detail:  # the legend names the baseline
        assert md.splitlines()[-1].startswith("A letter marks") and "against b&lt;img" in md


def test_summary_rows_keep_the_marker_after_the_escaped_name(report):
    rows = report.summary_rows(4, style="latex")
    assert all("$^{x}" not in cell for row in rows for cell in row)
    marked = [cell for row in rows for cell in row[2:] if "$^{" in cell]
    assert all(cell.endswith("}$") and cell.count("$") == 2 for cell in marked)


def test_gate_markdown_escapes_names_in_every_line():
    users = np.repeat(np.arange(40), 5)
    rng = np.random.default_rng(1)
    clicks = (rng.random(users.size) < 0.3).astype(np.int8)
    good = np.clip(0.3 + 0.3 * clicks + 0.1 * rng.standard_normal(users.size), 0.01, 0.99)
    rules = [{"metric": "roc_auc", "rule": "non_inferiority", "margin": 0.01}]
    bad = np.clip(good + 0.5 * rng.standard_normal(users.size), 0.01, 0.99)
    report = rv.gate({"c<b>": bad}, {EVIL: good}, rules, y_true=clicks, groups=users, **FAST)
    md = report.to_markdown()
    assert "<img" not in md and "<b>" not in md
    assert "\\input" not in md.replace("\\\\input", "")
    assert "&lt;img" in md.split("\n\n")[-1]  # the bullet on the failed row


def test_a_segment_heading_is_escaped_in_each_format():
    from receval.cli._compare import section_heading
    from receval.cli._output import OutputFormat

    heading = "segment <b>\n\\input{x}\x1b[31m (3 users)"
    assert section_heading(heading, OutputFormat.markdown) == (
        "\n## segment &lt;b&gt;<br>\\\\input{x}\\\\x1b\\[31m (3 users)\n\n"
    )
    assert section_heading(heading, OutputFormat.latex) == (
        "% segment <b> \\input{x}\\x1b[31m (3 users)\n"
    )
    assert section_heading(heading, OutputFormat.table) == (
        "segment <b>\n\\input{x}\\x1b[31m (3 users)\n"
    )


def test_a_latex_row_cannot_start_with_an_optional_length_or_hold_a_blank_line():
    import io

    from receval.cli._output import OutputFormat, ResultTable, render

    out = io.StringIO()
    render(ResultTable(["run", "mrr"], [["[1cm]x", 0.5], ["a\n\nb", 0.25]]), OutputFormat.latex,
           out=out)  # fmt: skip
    rows = out.getvalue().splitlines()[4:6]
    # "\\ [1cm]x" read "[1cm]" as the row's spacing; a blank line ended the tabular's cell
    assert rows == ["{[}1cm{]}x & 0.5000 \\\\", "a  b & 0.2500 \\\\"]

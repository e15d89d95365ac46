"""The HTML report: p-values, header, table of contents, JSON numbers, byte-identical output,
the interactive figures' specifications and the static fallback without plotly."""

from __future__ import annotations

import html
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from receval import (
    average_precision_score,
    calibration_curve,
    compare,
    evaluate,
    retention,
    roc_auc_score,
    roc_curve,
)
from receval.datasets import make_events, make_impressions, make_recommendations
from receval.exceptions import InvalidParameterError
from receval.report import STATIC_NOTE, HTMLReport, ctr_section, ranking_section
from receval.report.html import json_path
from receval.report.interactive import (
    MAX_POINTS,
    calibration_figure,
    metric_at_k_figure,
    precision_recall_figure,
    retention_curve_figure,
    retention_heatmap_figure,
    roc_figure,
    thin,
)
from receval.report.tables import format_p_value
from tests.cli._helpers import invoke, make_runner

IMG = '<img src="data:image/png;base64,'


# ------------------------------------------------------------------ p-values
@pytest.mark.parametrize(
    ("p", "text"),
    [
        (0.0, "< 1e-4"),
        (9.99e-5, "< 1e-4"),
        (1e-4, "0.0001"),
        (0.00012345, "0.0001234"),
        (0.04999, "0.04999"),
        (0.5, "0.5"),
        (1.0, "1"),
        (float("nan"), "nan"),
    ],
)
def test_format_p_value(p: float, text: str) -> None:
    assert format_p_value(p) == text


def test_comparison_tables_use_the_p_value_format() -> None:
    import scipy  # noqa: F401

    rng = np.random.default_rng(0)
    qrels = {f"u{i}": {"x": 1} for i in range(300)}
    good = {u: {"x": 1.0, "y": 0.5} for u in qrels}  # reciprocal rank 1
    bad = {u: {"x": 0.1, **{f"y{j}": 1.0 for j in range(rng.integers(1, 5))}} for u in qrels}
    report = compare(qrels, {"good": good, "bad": bad}, ["mrr"], test="student", interval=None)
    _, rows = report.detail_rows()
    assert rows[0][6] == "< 1e-4" and rows[0][7] == "< 1e-4*"
    assert "&lt; 1e-4" in report.to_markdown(detail=True)  # Markdown renders raw HTML
    assert "\\textless{} 1e-4" in report.to_latex(detail=True)


def test_ranking_section_of_two_runs_shows_wins_and_list_differences() -> None:
    from receval import Qrels, Run, list_differences

    qrels, runs = make_recommendations(40, n_items=60, k=10, seed=1)
    q = Qrels(qrels["user"], qrels["item"], qrels["grade"])
    named = {n: Run(r["user"], r["item"], r["score"]) for n, r in runs.items()}
    reports = {n: evaluate(q, r, ["ndcg@5", "mrr"]) for n, r in named.items()}
    doc = HTMLReport("two runs", timestamp=False)
    ranking_section(doc, reports, qrels=q, runs=named, figures=False)
    page = doc.to_html()
    assert "<th>win/tie/loss</th>" in page
    lists = list_differences(*named.values())
    assert "rank-biased overlap" in page and html.escape(lists.summary()) in page
    assert f'<td class="num">{lists.mean["rbo"]:.4f}</td>' in page
    numbers = json.dumps(doc.to_dict())
    assert "rbo_residual" in numbers and '"wins"' in numbers
    one = HTMLReport("one run", timestamp=False)
    ranking_section(one, {"a": reports["model_a"]}, qrels=q, runs=named, figures=False)
    assert "rank-biased overlap" not in one.to_html()


# ------------------------------------------------------------------ header, contents, JSON
def _doc(**options: object) -> HTMLReport:
    doc = HTMLReport("t", command="python make_report.py --week 5", **options)  # type: ignore[arg-type]
    doc.add_input("data/a.csv", 1234, what="impressions")
    doc.add_heading("CTR models")
    doc.add_results(
        [{"model": "a", "auc": 0.812345678, "counts": {"n_users": 3}},
         {"model": "b", "auc": float("nan"), "counts": {"n_users": 3}}],
        caption="cap",
    )  # fmt: skip
    doc.add_heading("CTR models")  # a second heading of the same name
    doc.add_table([{"cohort": np.datetime64("2024-01-01"), "day_1": np.float64(0.25)}] * 3,
                  max_rows=2)  # fmt: skip
    return doc


def test_header_lists_version_command_inputs_and_contents() -> None:
    page = _doc(timestamp=False).to_html()
    assert "<p>receval 0.1.0</p>" in page
    assert "<code>python make_report.py --week 5</code>" in page
    assert "impressions <code>data/a.csv</code>: 1,234 rows" in page
    assert '<a href="#ctr-models">CTR models</a>' in page
    assert '<a href="#ctr-models-2">CTR models</a>' in page
    assert '<h2 id="ctr-models-2">CTR models</h2>' in page
    assert "Generated at" not in page


def test_counts_are_one_sentence_of_the_non_zero_ones() -> None:
    counts = {
        "n_users": 20381, "n_users_missing": 0, "n_run_items": 997,
        "n_users_skipped": {"ndcg@10": 0, "mrr": 12},
        "mean_ties_average": {"ndcg@10": 0.5, "mrr": 0.25},
        "gauc": {"n_groups": 1500, "n_groups_skipped": 0, "n_rows_skipped": 0},
    }  # fmt: skip
    doc = HTMLReport("t", timestamp=False)
    doc.add_results([{"run": "a", "ndcg@10": 0.5, "mrr": 0.2, "counts": counts}])
    page = doc.to_html()
    sentence = (
        '<p class="text">a: 20,381 users, 997 run items, 12 users skipped (mrr), '
        "mean ties average 0.2500 (mrr), gauc: 1,500 groups.</p>"
    )
    assert sentence in page
    assert "= 0" not in page and "missing" not in page
    assert doc.to_dict()["sections"][0]["tables"][0]["rows"][0]["counts"] == counts
    doc.add_results([{"run": "b", "mrr": 0.2, "counts": {"n_users_empty": {"mrr": 0}}}])
    assert '<p class="text">b:' not in doc.to_html()  # nothing to say: no line


def test_numbers_have_thousands_separators_everywhere() -> None:
    doc = _doc(timestamp=False)
    doc.add_table([{"cohort": "c", "new_users": 20381, "mean": 1234.5}])
    page = doc.to_html()
    assert "1,234 rows" in page and ">20,381<" in page and ">1,234.5000<" in page


def test_generated_at_honours_source_date_epoch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    doc = _doc()
    assert "<p>Generated at 2023-11-14 22:13:20 UTC</p>" in doc.to_html()
    assert doc.to_dict()["generated_at"] == "2023-11-14 22:13:20 UTC"
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "soon")
    with pytest.raises(InvalidParameterError, match=r"SOURCE_DATE_EPOCH .* Got 'soon' instead"):
        doc.to_html()


def test_same_inputs_give_byte_identical_files(tmp_path: Path) -> None:
    first = _doc(timestamp=False).write(tmp_path / "a.html")
    second = _doc(timestamp=False).write(tmp_path / "b.html")
    assert Path(first).read_bytes() == Path(second).read_bytes()
    assert Path(json_path(first)).read_bytes() == Path(json_path(second)).read_bytes()
    stamped = _doc().to_html()
    assert "Generated at" in stamped


def test_demo_twice_without_timestamp_is_byte_identical(tmp_path: Path) -> None:
    import matplotlib  # noqa: F401

    runner = make_runner()
    pages = []
    for name in ("one", "two"):
        folder = tmp_path / name
        folder.mkdir()
        out = folder / "demo.html"
        invoke(runner, "demo", "--users", 40, "-q", "-f", "csv", "--no-timestamp", "-o", out)
        pages.append((out.read_bytes(), out.with_suffix(".json").read_bytes()))
    # the pages differ only by the --out path of the command line in the header
    one, two = (p.replace(str(tmp_path / n).encode(), b"X") for (p, _), n in
                zip(pages, ("one", "two"), strict=True))  # fmt: skip
    assert one == two
    assert pages[0][1].replace(b"one", b"two") == pages[1][1]
    assert b"Generated at" not in pages[0][0]


def _html_tables(page: str) -> list[list[dict[str, str]]]:
    """Every table of the page as records of cell texts."""
    out = []
    for table in re.findall(r"<table>(.*?)</table>", page, flags=re.S):
        header = [html.unescape(h) for h in re.findall(r'<th(?: class="num")?>(.*?)</th>', table)]
        rows = []
        for row in re.findall(r"<tbody>(.*?)</tbody>", table, flags=re.S)[0].split("<tr>")[1:]:
            cells = [html.unescape(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row)]
            rows.append(dict(zip(header, cells, strict=True)))
        out.append(rows)
    return out


def _as_cell(value: object, digits: int = 4) -> str:
    if value is None:
        return "nan"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def test_json_holds_the_numbers_of_the_tables() -> None:
    doc = _doc(timestamp=False)
    numbers = json.loads(doc.to_json())
    assert numbers["command"] == "python make_report.py --week 5"
    assert numbers["inputs"] == [{"name": "data/a.csv", "rows": 1234, "what": "impressions"}]
    tables = [t for s in numbers["sections"] for t in s["tables"]]
    assert [s["heading"] for s in numbers["sections"]] == ["CTR models", "CTR models"]
    assert tables[0]["rows"][0] == {"model": "a", "auc": 0.812345678, "counts": {"n_users": 3}}
    assert tables[0]["rows"][1]["auc"] is None  # nan
    assert len(tables[1]["rows"]) == 3  # every row, where the page shows 2
    for shown, table in zip(_html_tables(doc.to_html()), tables, strict=True):
        for cells, row in zip(shown, table["rows"], strict=False):
            assert cells == {k: _as_cell(v) for k, v in row.items() if k != "counts"}


def test_json_keeps_the_sign_of_infinities() -> None:
    doc = HTMLReport("r", timestamp=False)
    doc.add_table([{"model": "a", "x": math.inf, "y": -math.inf, "z": math.nan}])
    (table,) = [t for s in json.loads(doc.to_json())["sections"] for t in s["tables"]]
    assert table["rows"] == [{"model": "a", "x": "Infinity", "y": "-Infinity", "z": None}]


def test_demo_json_matches_the_page_tables(tmp_path: Path) -> None:
    import matplotlib  # noqa: F401

    out = tmp_path / "demo.html"
    invoke(make_runner(), "demo", "--users", 80, "-q", "-f", "csv", "-o", out)
    numbers = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    page = out.read_text(encoding="utf-8")
    tables = [t for s in numbers["sections"] for t in s["tables"]]
    shown = _html_tables(page)
    # CTR, its comparison, ranking, its comparison, how the two runs' lists differ, retention
    assert len(shown) == len(tables) == 6
    assert [s["heading"] for s in numbers["sections"]] == ["CTR models", "Ranking", "Retention"]
    for k in (0, 2, 4, 5):
        for cells, row in zip(shown[k], tables[k]["rows"], strict=False):
            assert cells == {c: _as_cell(v) for c, v in row.items() if c != "counts"}
    assert [row["measure"] for row in tables[4]["rows"]][:3] == ["rbo", "rbo_min", "rbo_residual"]
    assert len(tables[5]["rows"]) == 60 and len(shown[5]) == 15
    # the comparisons: the page's formatted cells from the JSON's numbers
    for k in (1, 3):
        for cells, row in zip(shown[k], tables[k]["rows"], strict=True):
            assert cells["difference"] == f"{row['difference']:+.4f}"
            assert cells["p-value"] == format_p_value(row["p_value"])
            assert cells["adjusted p"].rstrip("*") == format_p_value(row["p_adjusted"])
    assert numbers["inputs"][0] == {
        "name": "make_impressions(80, seed=0)",
        "rows": len(make_impressions(80, seed=0)["click"]),
        "what": "impressions",
    }
    assert numbers["command"].startswith("receval demo --users 80")


# ------------------------------------------------------------------ figures
def test_add_plotly_escapes_script_and_checks_input() -> None:
    doc = HTMLReport("t", interactive=True)
    doc.add_plotly({"data": [{"type": "scatter", "name": "</script><b>", "y": [1, np.nan]}]})
    page = doc.to_html()
    assert "</script><b>" not in page and '"name":"<\\/script><b>"' in page
    assert '"y":[1,null]' in page and '"displaylogo":false' in page
    assert doc.n_figures == 1
    with pytest.raises(
        InvalidParameterError, match=r"'figure' parameter of HTMLReport\.add_plotly"
    ):
        doc.add_plotly([1, 2])


def test_roc_figure_points_lie_on_the_curve() -> None:
    log = make_impressions(200, seed=1)
    y, models = log["click"], {"a": log["model_a"], "b": log["model_b"]}
    fig = roc_figure(y, models)
    assert [t["name"] for t in fig["data"]] == [
        f"{m} (AUC = {roc_auc_score(y, p):.4f})" for m, p in models.items()
    ] + ["chance"]
    fpr, tpr, thresholds = roc_curve(y, models["a"])
    trace = fig["data"][0]
    assert len(trace["x"]) <= MAX_POINTS + 2
    cuts = [t if np.isfinite(t) else None for t in thresholds.tolist()]  # inf: JSON null
    points = set(zip(fpr.tolist(), tpr.tolist(), cuts, strict=True))
    assert set(zip(trace["x"], trace["y"], trace["customdata"], strict=True)) <= points
    assert (trace["x"][0], trace["x"][-1]) == (0.0, 1.0)
    assert "threshold" in trace["hovertemplate"]


def test_thin_keeps_ends_and_bounds_the_points() -> None:
    x = np.linspace(0, 1, 10_000)
    keep = thin(x, x**2, max_points=100)
    assert keep[0] == 0 and keep[-1] == 9_999 and len(keep) <= 102
    assert np.all(np.diff(keep) > 0)
    assert thin([0, 1], [0, 1]).tolist() == [0, 1]


def test_precision_recall_figure_prevalence_and_legend_outside() -> None:
    y = np.array([1, 0, 0, 1, 0, 0, 0, 1])
    p = np.linspace(0.9, 0.1, 8)
    w = np.arange(1, 9, dtype=float)
    fig = precision_recall_figure(y, {"m": p}, sample_weight=w)
    prevalence = fig["data"][-1]
    assert prevalence["y"] == [pytest.approx(np.average(y, weights=w))] * 2
    ap = average_precision_score(y, p, sample_weight=w)
    assert fig["data"][0]["name"].startswith(f"m (AP = {ap:.4f}")
    legend = fig["layout"]["legend"]
    assert legend["orientation"] == "h" and legend["y"] < 0  # under the axes


def test_calibration_figure_zooms_and_counts() -> None:
    rng = np.random.default_rng(0)
    p = rng.uniform(0.01, 0.08, 5_000)
    y = (rng.uniform(size=5_000) < p).astype(int)
    fig = calibration_figure(y, {"m": p}, n_bins=10, strategy="quantile")
    _, prob_pred = calibration_curve(y, p, n_bins=10, strategy="quantile")
    low, high = fig["layout"]["xaxis"]["range"]
    assert 0 < low <= prob_pred.min() and prob_pred.max() <= high < 0.1  # zoomed, not [0, 1]
    bars = [t for t in fig["data"] if t["type"] == "bar"]
    assert len(bars) == 1 and bars[0]["yaxis"] == "y2" and sum(bars[0]["y"]) == 5_000
    assert fig["layout"]["yaxis2"]["domain"][1] < fig["layout"]["yaxis"]["domain"][0]


def test_metric_at_k_figure_colour_per_model_dash_per_metric() -> None:
    qrels, runs = make_recommendations(50, n_items=80, k=20, seed=2)
    from receval import Qrels, Run

    q = Qrels(qrels["user"], qrels["item"], qrels["grade"])
    named = {n: Run(r["user"], r["item"], r["score"]) for n, r in runs.items()}
    fig = metric_at_k_figure(q, named, metrics=["ndcg", "recall"], ks=[1, 5, 10])
    style = {t["name"]: (t["line"]["color"], t["line"]["dash"]) for t in fig["data"]}
    assert style["model_a: ndcg"][0] == style["model_a: recall"][0]
    assert style["model_a: ndcg"][0] != style["model_b: ndcg"][0]
    assert style["model_a: ndcg"][1] == style["model_b: ndcg"][1] != style["model_a: recall"][1]
    report = evaluate(q, named["model_b"], ["recall@5"])
    assert fig["data"][3]["y"][1] == report.mean["recall@5"]


def test_retention_heatmap_scale_leaves_out_day_zero() -> None:
    rep = retention(make_events(3_000, days=60, seed=0))
    fig = retention_heatmap_figure(rep)
    trace = fig["data"][0]
    z = np.array([[np.nan if v is None else v for v in row] for row in trace["z"]])
    assert z.shape == (60, 60)
    assert np.nanmax(z[:, 0]) == 1.0 and trace["zmax"] == np.nanmax(z[:, 1:]) < 1.0
    assert np.isnan(z[59, 1]) and not np.isnan(z[58, 1])  # not observed yet
    assert trace["customdata"][3][7] == int(rep.new_users[3])
    for word in ("cohort %{y}", "day %{x}", "%{z", "cohort size %{customdata}"):
        assert word in trace["hovertemplate"]
    assert fig["layout"]["yaxis"]["automargin"] and fig["layout"]["xaxis"]["automargin"]
    assert fig["layout"]["yaxis"]["type"] == "category"  # dates as labels, in order
    curve = retention_curve_figure(rep)["data"][0]
    assert curve["x"][0] == 1 and curve["y"][0] == pytest.approx(np.nanmean(z[:59, 1]))


# ------------------------------------------------------------------ without plotly
def _without_plotly(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    from receval.report import interactive as _plotly

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "plotly" else real(name, *a)
    )
    monkeypatch.setitem(__import__("sys").modules, "plotly", None)
    monkeypatch.setitem(__import__("sys").modules, "plotly.offline", None)
    _plotly.plotly_js.cache_clear()


def test_without_plotly_figures_are_pngs_with_a_note(monkeypatch: pytest.MonkeyPatch) -> None:
    import matplotlib as mpl

    mpl.use("Agg")
    _without_plotly(monkeypatch)
    doc = HTMLReport("static", timestamp=False)
    assert not doc.interactive
    log = make_impressions(60, seed=0)
    ctr_section(doc, [{"score": "a", "auc": 0.5}], log["click"], {"a": log["model_a"]})
    qrels, runs = make_recommendations(30, n_items=50, k=10, seed=0)
    from receval import Qrels, Run

    q = Qrels(qrels["user"], qrels["item"], qrels["grade"])
    named = {n: Run(r["user"], r["item"], r["score"]) for n, r in runs.items()}
    reports = {n: evaluate(q, r, ["ndcg@5"]) for n, r in named.items()}
    ranking_section(doc, reports, qrels=q, runs=named)
    page = doc.to_html()
    assert page.count(IMG) == 4 and "<script" not in page
    assert page.count(html.escape(STATIC_NOTE)) == 1 and doc.notes == [STATIC_NOTE]
    with pytest.raises(ImportError, match=r"pip install 'receval\[plot\]'"):
        HTMLReport("x", interactive=True)


def test_cli_without_plotly_warns_and_embeds_pngs(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import matplotlib as mpl

    mpl.use("Agg")
    _without_plotly(monkeypatch)
    out = tmp_path / "d.html"
    result = invoke(make_runner(), "demo", "--users", 30, "-f", "csv", "-o", out)
    assert "warning: plotly is not installed" in result.stderr
    assert out.read_text(encoding="utf-8").count(IMG) == 6


def test_report_header_names_the_command_and_the_input_files(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.csv as pcsv

    qrels, runs = make_recommendations(40, n_items=60, k=10, seed=1)
    events = make_events(50, days=10, seed=1)
    paths = {}
    for name, columns in {"q": qrels, "a": runs["model_a"], "e": events}.items():
        paths[name] = tmp_path / f"{name}.csv"
        pcsv.write_csv(pa.table(columns), paths[name])
    out = tmp_path / "r.html"
    args = ["report", "-o", out, "--qrels", paths["q"], "--run", paths["a"], "-m", "mrr",
            "--events", paths["e"], "--days", "1", "--no-timestamp", "-q"]  # fmt: skip
    invoke(make_runner(), *args)
    page = out.read_text(encoding="utf-8")
    numbers = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    assert numbers["command"] == "receval " + " ".join(str(a) for a in args)
    assert f"<code>{numbers['command']}</code>" in page and "Generated at" not in page
    assert numbers["inputs"] == [
        {"name": str(paths["q"]), "rows": len(qrels["user"]), "what": "qrels"},
        {"name": str(paths["a"]), "rows": len(runs["model_a"]["user"]), "what": "run"},
        {"name": str(paths["e"]), "rows": len(events["user"]), "what": "events"},
    ]
    assert f"run <code>{paths['a']}</code>: {len(runs['model_a']['user']):,} rows" in page
    assert "generated_at" not in numbers


# ------------------------------------------------------------------ nothing fetched
EVIL = "<span style=\"background:url('http://evil.example/x.png')\">s</span> url(http://evil.example/y)"


class _Page(__import__("html.parser").parser.HTMLParser):
    """Every attribute value, style sheet and script of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.attributes: list[str] = []
        self.styles: list[str] = []
        self.scripts: list[str] = []
        self._in: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.attributes += [v or "" for _, v in attrs]
        self._in = tag if tag in ("style", "script") else None

    def handle_endtag(self, tag: str) -> None:
        self._in = None

    def handle_data(self, data: str) -> None:
        if self._in == "style":
            self.styles.append(data)
        elif self._in == "script":
            self.scripts.append(data)


def test_user_strings_make_no_network_reference(tmp_path: Path) -> None:
    # a score column and a run named with a CSS url(...) inside HTML that Plotly reads
    from receval import Qrels, Run

    log = make_impressions(300, seed=1)
    doc = HTMLReport(EVIL, timestamp=False)
    doc.add_input(EVIL, 3, what=EVIL)
    scores = {EVIL: log["model_a"], "b": log["model_b"]}
    records = [{"score": name, "auc": roc_auc_score(log["click"], s)} for name, s in scores.items()]
    ctr_section(doc, records, log["click"], scores)
    qrels, runs = make_recommendations(30, n_items=50, k=10, seed=0)
    q = Qrels(qrels["user"], qrels["item"], qrels["grade"])
    r = next(iter(runs.values()))
    named = {EVIL: Run(r["user"], r["item"], r["score"])}
    reports = {n: evaluate(q, run, ["ndcg@5"]) for n, run in named.items()}
    ranking_section(doc, reports, qrels=q, runs=named)
    page = doc.to_html()
    parsed = _Page()
    parsed.feed(page)
    assert parsed.scripts and parsed.styles
    for text in parsed.attributes + parsed.styles:
        assert "evil.example" not in text
    figures = [s for s in parsed.scripts if s.startswith("Plotly.newPlot")]
    assert len(figures) >= 3
    for script in figures:
        assert "<span" not in script and "&lt;span style=" in script
    # and the browser may load nothing from anywhere
    policy = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', page)
    assert policy is not None
    assert page.index(policy.group(0)) < page.index("<script")
    directives = dict(d.strip().split(" ", 1) for d in policy.group(1).split(";"))
    assert directives["default-src"] == "'none'"
    assert directives["img-src"] == "data: blob:"
    assert "http" not in policy.group(1) and "*" not in policy.group(1)


@pytest.mark.parametrize(
    ("option", "column", "offered"),
    [("--time", "time", "timestamp"), ("--user", "usr", "user")],
    ids=["time", "user"],
)
def test_report_names_the_option_of_a_missing_events_column(
    tmp_path: Path, option: str, column: str, offered: str
) -> None:
    events = tmp_path / "events.csv"
    events.write_text("user,timestamp\nu1,2024-01-01\nu2,2024-01-02\n")
    args = ["report", "-o", tmp_path / "r.html", "--events", events, "--time", "timestamp"]
    result = invoke(make_runner(), *args, option, column, code=2)
    # it said "no column 'time'. Got columns [...]." without the option or the fix
    assert result.stderr == (
        f"error: {events}: no column {column!r} ({option} {column}). Got columns ['user', "
        f"'timestamp']; name one of [{offered!r}] with {option}.\n"
    )
    assert result.stdout == ""
    assert not (tmp_path / "r.html").exists()


def test_report_refuses_scores_that_are_not_probabilities_in_the_cli_words(tmp_path: Path) -> None:
    log = tmp_path / "log.csv"
    log.write_text("user,click,p,raw\na,1,0.2,2.5\na,0,0.1,-1\nb,1,0.5,0.5\n")
    args = ["report", "-o", tmp_path / "r.html", "--impressions", log, "--label", "click",
            "--score", "p", "--score", "raw", "--ctr-metric", "auc"]  # fmt: skip
    result = invoke(make_runner(), *args, code=2)
    # it said "calibration_curve: y_prob must contain ...": no file, line nor option
    assert result.stderr == (
        f"error: {log}:2: the calibration figure of --score raw: the scores must contain "
        f"probabilities in [0, 1]. Got values [-1.0, 2.5]; pass predicted probabilities, e.g. "
        f"apply a sigmoid to raw scores.\n"
    )
    assert not (tmp_path / "r.html").exists()

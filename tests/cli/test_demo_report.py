"""``receval demo`` and ``receval report``: tables, HTML sections, figures; the sample datasets."""

from __future__ import annotations

import csv
import json
import math
import re
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pcsv
import pytest
from typer.testing import CliRunner

from receval import (
    Qrels,
    Run,
    evaluate,
    gauc_score,
    log_loss,
    pcoc,
    retention,
    roc_auc_score,
)
from receval.cli import app
from receval.cli._app import DEFAULT_RANK_METRICS, REPORT_COHORTS
from receval.datasets import make_events, make_impressions, make_recommendations
from receval.report import HTMLReport
from tests.cli._helpers import invoke, make_runner

USERS = 300  # users of each demo dataset: small, so the file runs in seconds
IMG = '<img src="data:image/png;base64,'
FIG = '<div id="figure-'  # an interactive figure
HEADINGS = (
    '<h2 id="ctr-models">CTR models</h2>',
    '<h2 id="ranking">Ranking</h2>',
    '<h2 id="retention">Retention</h2>',
)


def _without_plotly_js(page: str) -> str:
    """The page less the inlined plotly.js library (its source names web addresses)."""
    start = page.index('<script charset="utf-8">')
    return page[:start] + page[page.index("</script>", start) + len("</script>") :]


@pytest.fixture(scope="module")
def matplotlib():
    mpl = pytest.importorskip("matplotlib")
    mpl.use("Agg")
    return mpl


@pytest.fixture(scope="module")
def runner() -> CliRunner:
    return make_runner()


def _same(a: float | None, b: float) -> bool:
    """A JSON value (None for nan) against the library's float: equal to the last bit."""
    return math.isnan(b) if a is None else a == b


@pytest.fixture(scope="module")
def demo_json(runner, matplotlib, tmp_path_factory) -> tuple[dict, str, str]:
    out = tmp_path_factory.mktemp("demo") / "demo.html"
    result = invoke(runner, "demo", "--users", USERS, "--format", "json", "--out", out)
    return json.loads(result.stdout), out.read_text(encoding="utf-8"), result.stderr


# ------------------------------------------------------------------ demo
def test_demo_prints_the_three_tables(runner, matplotlib, tmp_path) -> None:
    out = tmp_path / "receval-demo.html"
    result = invoke(runner, "demo", "--users", USERS, "--out", out)
    for text in ("make_impressions(", "make_recommendations(", "make_events("):
        assert text in result.stdout
    for column in ("auc", "gauc", "logloss", "pcoc", *DEFAULT_RANK_METRICS, "day_1", "day_30"):
        assert column in result.stdout
    assert result.stdout.count("model_a") == 2 and result.stdout.count("model_b") == 2
    assert out.exists()
    assert result.stderr.strip().splitlines()[-1] == f"report written to {out}"


def test_demo_notes_separate_thousands(runner, matplotlib, tmp_path) -> None:
    result = invoke(runner, "demo", "--users", 2000, "-f", "csv", "--out", tmp_path / "d.html")
    skips = re.findall(r"gauc skips ([\d,]+) of ([\d,]+) groups \(([\d,]+) rows\)", result.stderr)
    assert skips and skips[0][1] == "2,000"
    assert all(re.fullmatch(r"\d{1,3}(,\d{3})*", n) for n in skips[0])


def test_demo_sums_up_the_retention_cohorts(runner, matplotlib, tmp_path) -> None:
    """The table format shows a retention row per day N (not one per cohort) and fits a
    screen: the first and last cohort's rates and the mean over observed cohorts in rate
    columns, the number of observed cohorts in its own column, new users in the title."""
    result = invoke(runner, "demo", "--users", USERS, "--out", tmp_path / "d.html", "-q")
    lines = result.stdout.splitlines()
    assert len(lines) <= 40
    rep = retention(make_events(USERS, seed=0))
    assert f"{rep.n_periods} daily cohorts summed up" in result.stdout
    assert f"new users: {int(rep.new_users[0]):,} in the first cohort" in result.stdout
    header = next(line for line in lines if "┃ retention" in line)
    cells = [c.strip() for c in header.strip().strip("┃").split("┃")]
    assert cells == ["retention", f"first {rep.periods[0]}", f"last {rep.periods[-1]}", "mean",
                     "cohorts"]  # fmt: skip
    start = lines.index(next(line for line in lines if "│ day_1 " in line))
    rows = [[c.strip() for c in line.strip().strip("│").split("│")] for line in lines[start:]]
    rows = rows[: len(rep.days)]
    means = np.nanmean(rep.day_n_retention, axis=0)
    counts = (~np.isnan(rep.day_n_retention)).sum(axis=0)
    for j, row in enumerate(rows):
        assert row[0] == f"day_{rep.days[j]}"
        assert float(row[1]) == pytest.approx(rep.day_n_retention[0, j], abs=1e-4, nan_ok=True)
        assert float(row[3]) == pytest.approx(means[j], abs=1e-4)
        assert int(row[4]) == counts[j]
    md = invoke(runner, "demo", "--users", USERS, "--out", tmp_path / "d.html", "-q", "-f",
                "markdown").stdout  # fmt: skip
    assert "| day_30 |" in md and md.count("\n") <= 30


def test_demo_writes_into_a_folder_a_clone_ignores(runner, matplotlib, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    invoke(runner, "demo", "--users", 30, "-q", "-f", "csv")
    assert sorted(p.name for p in (tmp_path / "receval-demo").iterdir()) == [
        "report.html", "report.json"]  # fmt: skip
    assert sorted(p.name for p in tmp_path.iterdir()) == ["receval-demo"]
    ignored = Path(__file__).parents[2].joinpath(".gitignore").read_text().splitlines()
    assert "/receval-demo/" in ignored


def test_demo_quiet_prints_nothing_on_stderr(runner, matplotlib, tmp_path) -> None:
    result = invoke(runner, "demo", "--users", 50, "-q", "-f", "csv", "--out", tmp_path / "d.html")
    assert result.stderr == ""
    blocks = result.stdout.split("\n\n")
    assert [b.splitlines()[0] for b in blocks] == ["# ctr", "# rank", "# retention"]
    header = next(csv.reader([blocks[1].splitlines()[1]]))
    assert header[: 1 + len(DEFAULT_RANK_METRICS)] == ["run", *DEFAULT_RANK_METRICS]
    assert header[1 + len(DEFAULT_RANK_METRICS)] == "n_users"  # then the counts


def test_demo_json_equals_the_library_on_the_same_data(demo_json) -> None:
    tables, _, _ = demo_json
    assert list(tables) == ["ctr", "rank", "retention"]

    log = make_impressions(USERS, seed=0)
    y, users = log["click"], log["user"]
    assert [row["score"] for row in tables["ctr"]] == ["model_a", "model_b"]
    for row in tables["ctr"]:
        p = log[row["score"]]
        assert row["auc"] == roc_auc_score(y, p)
        assert row["gauc"] == gauc_score(y, p, groups=users)
        assert row["logloss"] == log_loss(y, p)
        assert row["pcoc"] == pcoc(y, p)

    qrels, runs = make_recommendations(USERS, seed=0)
    q = Qrels(qrels["user"], qrels["item"], qrels["grade"])
    assert [row["run"] for row in tables["rank"]] == ["model_a", "model_b"]
    for row in tables["rank"]:
        r = runs[row["run"]]
        report = evaluate(q, Run(r["user"], r["item"], r["score"]), list(DEFAULT_RANK_METRICS))
        assert {m: row[m] for m in DEFAULT_RANK_METRICS} == report.mean

    rep = retention(make_events(USERS, seed=0))
    rows = tables["retention"]
    assert len(rows) == rep.n_periods == 60
    assert [r["cohort"] for r in rows] == [str(p) for p in rep.periods]
    assert [r["new_users"] for r in rows] == rep.new_users.tolist()
    for j, n in enumerate(rep.days):
        values = rep.day_n_retention[:, j]
        assert all(_same(r[f"day_{n}"], v) for r, v in zip(rows, values, strict=True))


def test_demo_report_has_every_section_value_and_figure(demo_json) -> None:
    tables, page, stderr = demo_json
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    for heading in HEADINGS:
        assert page.count(heading) == 1
    assert page.index(HEADINGS[0]) < page.index(HEADINGS[1]) < page.index(HEADINGS[2])
    for row in tables["ctr"] + tables["rank"]:
        for key, value in row.items():
            if key == "counts":  # in a line under the table
                continue
            text = f"{value:.4f}" if isinstance(value, float) else str(value)
            assert f">{text}</td>" in page
    n = len(make_impressions(USERS, seed=0)["click"])
    assert n >= 1000 and f"{n:,} impressions" in page and f"{n:,} rows" in page
    assert not re.search(rf"(?<![\d.,]){n}(?![\d.])", page)  # separated everywhere
    gauc = tables["ctr"][0]["counts"]["gauc"]
    assert f"{gauc['n_groups_skipped']:,} groups skipped, " in page
    first = tables["retention"][0]
    assert f">{first['cohort']}</td>" in page and f">{first['day_1']:.4f}</td>" in page
    assert f"First {REPORT_COHORTS} of 60 rows." in page
    # 3 CTR figures, metric@k, retention heatmap and curve
    assert page.count(FIG) == 6 and page.count(IMG) == 0
    assert page.count('<script charset="utf-8">') == 1  # plotly.js, once
    rest = _without_plotly_js(page)
    assert "http://" not in rest and "https://" not in rest  # self-contained
    assert "<link" not in page and " src=" not in rest
    assert rest.count("<script>Plotly.newPlot(") == 6
    assert "report written to" in stderr


# ------------------------------------------------------------------ report
@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("report")
    qrels, runs = make_recommendations(100, n_items=300, k=20, seed=3)
    events = make_events(150, days=20, seed=3)
    tables = {
        "impressions": make_impressions(200, seed=3),
        "qrels": qrels,
        **runs,
        "events": {"user": events["user"], "ts": events["time"]},
    }
    out = {}
    for name, columns in tables.items():
        out[name] = root / f"{name}.csv"
        pcsv.write_csv(pa.table(columns), out[name])
    return out


def test_report_ctr_section_only(runner, matplotlib, files, tmp_path) -> None:
    out = tmp_path / "ctr.html"
    imp = files["impressions"]
    result = invoke(
        runner, "report", "--out", out, "--impressions", imp, "--label", "click",
        "--score", "model_a", "--score", "model_b", "--group", "user", "--title", "A <b> test",
    )  # fmt: skip
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert lines[-2:] == [f"numbers written to {out.with_suffix('.json')}",
                          f"report written to {out}"]  # fmt: skip
    assert all(re.match(r"note: model_[ab]: gauc skips \d+ of \d+ groups", x) for x in lines[:-2])
    page = out.read_text(encoding="utf-8")
    assert "<title>A &lt;b&gt; test</title>" in page
    assert HEADINGS[0] in page and HEADINGS[1] not in page and HEADINGS[2] not in page
    assert page.count(FIG) == 3
    log = make_impressions(200, seed=3)
    assert f">{roc_auc_score(log['click'], log['model_a']):.4f}</td>" in page
    n = len(log["click"])  # the caption's count separated as the header's rows
    assert n >= 1000 and f"{n:,} impressions" in page and f"{n:,} rows" in page


def test_report_ranking_and_retention_sections(runner, matplotlib, files, tmp_path) -> None:
    out = tmp_path / "rr.html"
    result = invoke(
        runner, "report", "-o", out, "--qrels", files["qrels"], "--run", files["model_a"],
        "--run", files["model_b"], "-m", "ndcg@10", "-m", "recall@20",
        "--events", files["events"], "--time", "ts", "--days", "1,7", "-q",
    )  # fmt: skip
    assert result.stdout == "" and result.stderr == ""
    page = out.read_text(encoding="utf-8")
    assert HEADINGS[0] not in page and HEADINGS[1] in page and HEADINGS[2] in page
    assert page.count(FIG) == 3
    for column in ("ndcg@10", "recall@20", "day_1", "day_7"):
        assert f">{column}</th>" in page
    report = evaluate(Qrels.from_file(files["qrels"]), Run.from_file(files["model_b"]), "ndcg@10")
    assert f">{report.mean['ndcg@10']:.4f}</td>" in page
    assert "<td>model_b.csv</td>" in page


def test_report_takes_the_formats_of_its_inputs(runner, matplotlib, files, tmp_path) -> None:
    # report read '--qrels -' as TREC, and a file by its suffix, with no option to say
    # otherwise: a CSV on standard input was "expected 4 whitespace-separated fields"
    run = tmp_path / "model_a.txt"  # a CSV run whose suffix says TREC
    run.write_bytes(files["model_a"].read_bytes())
    events = tmp_path / "events.log"
    events.write_bytes(files["events"].read_bytes())
    train = tmp_path / "train.csv"
    train.write_text("user,item\n" + "".join(f"{u},{u % 7}\n" for u in range(100)))
    out = tmp_path / "formats.html"
    args = ["report", "-o", str(out), "--qrels", "-", "--qrels-format", "csv", "--run", str(run),
            "--run-format", "csv", "-m", "ndcg@10", "--events", str(events), "--input-format",
            "csv", "--time", "ts", "--train", str(train), "-q"]  # fmt: skip
    result = runner.invoke(app, args, input=files["qrels"].read_text())
    assert result.exit_code == 0, result.stderr
    page = out.read_text(encoding="utf-8")
    assert all(heading in page for heading in HEADINGS[1:])
    assert '<h2 id="protocol">' in page  # the audit read the qrels and the run as read here
    report = evaluate(Qrels.from_file(files["qrels"]), Run.from_file(files["model_a"]), "ndcg@10")
    assert f">{report.mean['ndcg@10']:.4f}</td>" in page


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "error: nothing to report; pass --qrels and --run"),
        (["--qrels", "q.txt"], "error: --qrels and --run go together"),
        (["--impressions", "imp.csv", "--score", "p"], "error: --impressions needs --label COL"),
        (
            ["--label", "click"],
            "error: --label given without --impressions FILE",
        ),
    ],
)
def test_report_errors_exit_2_with_one_line(runner, tmp_path, args, message) -> None:
    out = tmp_path / "never.html"
    result = invoke(runner, "report", "--out", out, *args, code=2)
    assert result.stderr.startswith(message)
    assert len(result.stderr.strip().splitlines()) == 1
    assert not out.exists()


def test_report_bad_file_is_one_line_error(runner, tmp_path) -> None:
    result = invoke(
        runner, "report", "--out", tmp_path / "r.html", "--events", "missing.csv", code=2
    )
    # without plotly and matplotlib a warning says the report has no figures
    lines = [x for x in result.stderr.splitlines() if "report has no figures" not in x]
    assert len(lines) == 1 and lines[0].startswith("error: ")


# ------------------------------------------------------------------ HTMLReport
def test_html_report_escapes_and_formats() -> None:
    doc = HTMLReport("<x>", description="a & b", digits=2)
    doc.add_heading("<h>")
    doc.add_table(
        [{"name": "<a>", "v": 0.125, "n": np.int64(3)}, {"name": "b", "v": float("nan")}],
        caption="c",
        max_rows=1,
    )
    page = doc.to_html()
    assert "<h1>&lt;x&gt;</h1>" in page and '<h2 id="h">&lt;h&gt;</h2>' in page
    assert '<p class="text">a &amp; b</p>' in page
    assert "<td>&lt;a&gt;</td>" in page and '<td class="num">0.12</td>' in page
    assert '<td class="num">3</td>' in page and "First 1 of 2 rows." in page
    assert "nan" not in page  # the second row is cut


def test_html_report_figures_sit_side_by_side(matplotlib, tmp_path) -> None:
    from receval.report import new_axes

    doc = HTMLReport("figs")
    for caption in ("one", "two"):
        ax = new_axes()
        ax.plot([0, 1], [0, 1])
        doc.add_figure(ax, caption=caption)
    doc.add_text("after")
    page = Path(doc.write(tmp_path / "f.html")).read_text(encoding="utf-8")
    assert page.count('<div class="figures">') == 1 and page.count(IMG) == 2
    assert page.index("</div>") < page.index("after")
    assert doc.n_figures == 2


# ------------------------------------------------------------------ datasets
def test_datasets_are_deterministic() -> None:
    q1, r1 = make_recommendations(300, n_items=400, k=30, seed=7)
    q2, r2 = make_recommendations(300, n_items=400, k=30, seed=7)
    q3, _ = make_recommendations(300, n_items=400, k=30, seed=8)
    for key in q1:
        np.testing.assert_array_equal(q1[key], q2[key])
    for name in r1:
        for key in r1[name]:
            np.testing.assert_array_equal(r1[name][key], r2[name][key])
    assert len(q1["item"]) != len(q3["item"]) or not np.array_equal(q1["item"], q3["item"])
    e1, e2 = make_events(200, days=30, seed=7), make_events(200, days=30, seed=7)
    for key in e1:
        np.testing.assert_array_equal(e1[key], e2[key])


def test_recommendations_shape_and_model_order() -> None:
    qrels, runs = make_recommendations(500, n_items=600, k=50, seed=0)
    assert set(np.unique(qrels["grade"])) == {1, 2}
    q = Qrels(qrels["user"], qrels["item"], qrels["grade"])
    assert q.n_users == 500
    mean = {}
    for name, r in runs.items():
        assert len(r["user"]) == 500 * 50
        per_user = r["score"].reshape(500, 50)
        assert (np.diff(per_user, axis=1) <= 0).all()  # by descending score
        report = evaluate(q, Run(r["user"], r["item"], r["score"]), ["ndcg@10", "recall@50"])
        mean[name] = report.mean
    for metric in ("ndcg@10", "recall@50"):
        assert mean["model_a"][metric] > mean["model_b"][metric]


def test_impressions_models_ordered_by_auc() -> None:
    log = make_impressions(2_000, seed=0)
    y = log["click"]
    assert roc_auc_score(y, log["model_a"]) > roc_auc_score(y, log["model_b"])


def test_events_arrivals_and_decay() -> None:
    events = make_events(2_000, days=30, seed=0, start="2023-12-25")
    t = events["time"]
    assert t.dtype == np.dtype("datetime64[s]") and (np.diff(t.astype(np.int64)) >= 0).all()
    assert str(t.min())[:10] == "2023-12-25" and str(t.max())[:10] <= "2024-01-23"
    report = retention(events, days=(1, 7, 14))
    assert report.n_users == 2_000 and report.n_periods == 30
    assert (report.new_users > 0).all()  # new users every day
    mean = np.nanmean(report.day_n_retention, axis=0)
    assert 0.05 < mean[2] < mean[1] < mean[0] < 0.5  # decaying return probability


# ------------------------------------------------------------------ beyond accuracy
def test_report_beyond_accuracy_section(runner, matplotlib, tmp_path) -> None:
    import pandas as pd

    from receval import Run, average_recommendation_popularity, group_exposure
    from receval.report import beyond_records

    qrels, runs = make_recommendations(200, n_items=150, k=15, seed=3)
    pd.DataFrame(qrels).to_csv(tmp_path / "q.csv", index=False)
    paths = []
    for name, run in runs.items():
        paths += ["--run", tmp_path / f"{name}.parquet"]
        pd.DataFrame(run).to_parquet(tmp_path / f"{name}.parquet")
    rng = np.random.default_rng(0)
    train = pd.DataFrame({"user": rng.integers(0, 200, 2000), "item": rng.integers(0, 150, 2000)})
    train.to_csv(tmp_path / "train.csv", index=False)
    groups = pd.DataFrame(
        {"item": np.arange(150), "group": np.where(np.arange(150) < 20, "a", "b")}
    )
    groups.to_csv(tmp_path / "groups.csv", index=False)
    out = tmp_path / "r.html"
    extra = ["--train", tmp_path / "train.csv", "--item-groups", tmp_path / "groups.csv"]
    invoke(runner, "report", "-o", out, "--qrels", tmp_path / "q.csv", *paths, *extra, "--k", "5")
    html = out.read_text(encoding="utf-8")
    assert (
        '<h2 id="beyond-accuracy">Beyond accuracy</h2>' in html and "Exposure by item group" in html
    )
    assert html.count(FIG) >= 2  # metric@k and the long tail
    log = (train["user"].to_numpy(), train["item"].to_numpy())
    loaded = {f"{n}.parquet": Run.from_frame(pd.DataFrame(r)) for n, r in runs.items()}
    records = beyond_records(loaded, train=log, k=5)
    for record in records:
        arp = average_recommendation_popularity(loaded[record["run"]], train=log, k=5)
        assert record["arp@5"] == arp
        assert f"{arp:.4f}" in html
    exposure = group_exposure(
        loaded["model_a.parquet"],
        item_groups=dict(zip(groups["item"], groups["group"], strict=True)),
        k=5,
    )
    assert f"{exposure.max_min_ratio:.4f}" in html
    usage = invoke(runner, "report", "-o", out, "--train", tmp_path / "train.csv", code=2)
    assert "pass --qrels and --run too" in usage.stderr


def test_report_and_demo_make_a_missing_folder(runner, tmp_path) -> None:
    """report refused a missing folder ('make the folder first'), where demo, as its help
    says, made it: both make it now, as mkdir -p would."""
    events = tmp_path / "events.csv"
    events.write_text("user,time\n1,2024-01-01\n")
    out = tmp_path / "no" / "deeper" / "r.html"
    result = invoke(runner, "report", "--out", out, "--events", events)
    assert out.is_file() and out.with_suffix(".json").is_file()
    assert f"report written to {out}" in result.stderr
    demo = tmp_path / "other" / "d.html"
    invoke(runner, "demo", "--users", 10, "--out", demo, "-q")
    assert demo.is_file()
    for command in ("report", "demo"):
        assert "its folder is made if missing" in invoke(runner, command, "--help").stdout


def test_an_out_under_a_file_is_refused_before_the_work(runner, tmp_path) -> None:
    """demo printed its tables, then a FileExistsError traceback (exit 1); report named
    its temporary file ('x.csv/.receval-....tmp: Not a directory')."""
    (tmp_path / "x.csv").write_text("a\n")
    events = tmp_path / "events.csv"
    events.write_text("user,time\n1,2024-01-01\n")
    for out, folder, what in (
        (tmp_path / "x.csv" / "r.html", tmp_path / "x.csv", "is a file"),
        (tmp_path / "x.csv" / "d" / "r.html", tmp_path / "x.csv" / "d",
         f"cannot be made: {str(tmp_path / 'x.csv')!r} is a file"),
    ):  # fmt: skip
        message = (
            f"--out: the output path's folder {str(folder)!r} {what}. Got {str(out)!r}; "
            "write into a folder.\n"
        )
        demo = invoke(runner, "demo", "--users", 10, "--out", out, code=2)
        assert (demo.stdout, demo.stderr) == ("", f"error: receval demo {message}")
        report = invoke(runner, "report", "--out", out, "--events", events, code=2)
        assert report.stderr == f"error: receval report {message}"


def test_demo_into_a_folder_it_cannot_make(runner, tmp_path, monkeypatch) -> None:
    def refuse(name, *args, **kwargs):
        raise PermissionError(13, "Permission denied", name)

    monkeypatch.setattr("os.makedirs", refuse)
    out = tmp_path / "no" / "r.html"
    result = invoke(runner, "demo", "--users", 10, "--out", out, code=2)
    # it printed every table, then a traceback of the PermissionError
    assert (result.stdout, result.stderr) == ("", (
        f"error: receval demo --out: the output path's folder {str(out.parent)!r} does not "
        f"exist. Got {str(out)!r}; make the folder first (mkdir -p {out.parent}) or write "
        "into an existing one.\n"
    ))  # fmt: skip


def test_a_failed_write_names_the_report_not_its_temporary_file(tmp_path, monkeypatch) -> None:
    def refuse(*args, dir, **kwargs):
        raise PermissionError(13, "Permission denied", f"{dir}/.receval-x.tmp")

    monkeypatch.setattr("tempfile.mkstemp", refuse)
    with pytest.raises(PermissionError) as error:
        HTMLReport("t").write(tmp_path / "r.html")
    assert str(error.value) == (
        f"[Errno 13] cannot write the report: Permission denied: '{tmp_path / 'r.html'}'"
    )


@pytest.mark.parametrize("command", ["report", "demo"])
def test_out_dash_is_refused(runner, tmp_path, monkeypatch, command) -> None:
    """report -o - wrote files named '-' and '-.json' (exit 0)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "events.csv").write_text("user,time\n1,2024-01-01\n")
    args = ["--events", "events.csv"] if command == "report" else ["--users", 10]
    result = invoke(runner, command, "--out", "-", *args, code=2)
    assert (result.stdout, result.stderr) == ("", (
        f"error: receval {command} --out: the report is an HTML file with its numbers in a "
        "JSON file beside it, so it cannot go to a standard stream. Got '-'; name a file, "
        "e.g. --out report.html.\n"
    ))  # fmt: skip
    assert sorted(p.name for p in tmp_path.iterdir()) == ["events.csv"]


def test_report_ctr_metric_errors_name_its_option(runner, tmp_path) -> None:
    """They named receval ctr -m."""
    log = tmp_path / "imp.csv"
    log.write_text("click,p\n0,0.1\n1,0.9\n")
    args = ["--impressions", log, "--label", "click", "--score", "p"]
    result = invoke(runner, "report", "--out", tmp_path / "r.html", *args, "--ctr-metric",
                    "ndcg@10", code=2)  # fmt: skip
    # the last line (an install without plotly and matplotlib warns of the figures first)
    assert result.stderr.splitlines()[-1] == (
        "error: receval report --ctr-metric: 'ndcg@10' is ndcg, a ranking metric (DCG / IDCG "
        "(0 when IDCG is 0)), not a pointwise or grouped metric; compute it with receval rank "
        "-m ndcg@10."
    )

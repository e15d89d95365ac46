"""What a terminal shows: tables and help pages at 60, 80 and 120 columns with nothing
cut, short usage errors, ``receval metrics`` and ``receval ctr`` on scores that are
not probabilities."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import rich.console

from receval import log_loss, roc_auc_score
from receval.cli._impressions import sigmoid
from receval.datasets import make_impressions, make_recommendations

from ._helpers import invoke, make_runner

runner = make_runner()
NOT_BINARY = "--label must hold binary labels (0/1, -1/1 or true/false). Got values "


def _help(args, width):
    """``receval *args --help`` in a process whose terminal is ``width`` columns wide
    (the test runner forces click's help to 80 columns)."""
    env = {**os.environ, "COLUMNS": str(width)}
    done = subprocess.run(
        [sys.executable, "-m", "receval", *args, "--help"],
        capture_output=True, text=True, env=env, check=True,
    )  # fmt: skip
    return done.stdout


WIDTHS = [60, 80, 120]
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
RANK_METRICS = ["ndcg@10", "recall@20", "map@100", "mrr", "precision@10", "success@10",
                "pooled_hit_ratio@10"]  # fmt: skip
CTR_METRICS = ["auc", "gauc", "logloss", "pcoc", "copc", "ne", "brier", "ece", "pr_auc"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("widths")
    qrels, runs = make_recommendations(120, n_items=200, k=20, seed=3)
    pd.DataFrame(qrels).to_csv(tmp / "qrels.csv", index=False)
    names = []
    for name, run in runs.items():
        path = tmp / f"{name}_with_a_long_run_name.csv"
        pd.DataFrame(run).to_csv(path, index=False)
        names.append(path)
    log = pd.DataFrame(make_impressions(200, impressions_per_user=10, seed=6))
    score = "model_a"
    log["logit"] = np.log(log[score] / (1 - log[score]))
    log.to_csv(tmp / "log.csv", index=False)
    return tmp, names, log, score


def _terminal(args, width, monkeypatch, code=0):
    """``receval *args`` on a terminal ``width`` columns wide: its stdout without colours."""
    monkeypatch.setattr(rich.console.Console, "is_terminal", property(lambda self: True))
    # and no plain table (receval.cli._output._plain_grid writes only where rich sees a pipe)
    monkeypatch.setattr("receval.cli._output._plain_grid", lambda *args: False)
    result = runner.invoke(
        __import__("receval.cli", fromlist=["app"]).app,
        [str(a) for a in args],
        env={"COLUMNS": str(width), "LINES": "50"},
    )
    assert result.exit_code == code, (result.stdout, result.stderr)
    return _ANSI.sub("", result.stdout), result


def _cells(text):
    """The cells of a rich table's lines (header and rows)."""
    return {
        cell.strip()
        for line in text.splitlines()
        if line.startswith(("│", "┃"))
        for cell in re.split("[│┃]", line)
        if cell.strip()
    }


def _check(args, width, monkeypatch):
    """No cell cut on the terminal: every cell of the piped table (never cut) is there."""
    piped = invoke(runner, *args).stdout
    shown, _ = _terminal(args, width, monkeypatch)
    assert "…" not in shown
    assert max(len(line) for line in shown.splitlines()) <= width
    for cell in _cells(piped):
        assert cell in shown, (cell, shown)
    return piped, shown


@pytest.mark.parametrize("width", WIDTHS)
def test_rank_of_two_runs_keeps_every_digit_and_letter(files, width, monkeypatch):
    tmp, runs, _, _ = files
    args = ["rank", "--qrels", tmp / "qrels.csv", "--run", runs[0], "--run", runs[1],
            "--permutations", "200", "--digits", "6", "-q"]  # fmt: skip
    args += [x for m in RANK_METRICS for x in ("-m", m)]
    piped, shown = _check(args, width, monkeypatch)
    values = json.loads(invoke(runner, *args, "-f", "json").stdout)
    for record in values:
        for m in RANK_METRICS:
            assert f"{record[m]:.6f}" in shown
    for letter in ("a", "b"):  # the letters the legend speaks of name the runs
        assert re.search(rf"(^|[│ ]){letter} ", shown, re.M)
    for run in runs:
        assert run.name in shown and run.name in piped
    if width == 60:  # too narrow for a row per run: not the piped layout
        assert shown.count(RANK_METRICS[0]) >= 1 and shown != piped


@pytest.mark.parametrize("width", WIDTHS)
def test_compare_detail_keeps_intervals_and_p_values(files, width, monkeypatch):
    tmp, runs, _, _ = files
    args = ["compare", "--qrels", tmp / "qrels.csv", "--run", runs[0], "--run", runs[1],
            "-m", "ndcg@10", "-m", "recall@20", "--detail", "--permutations", "200",
            "--resamples", "200", "--digits", "6", "-q"]  # fmt: skip
    _check(args, width, monkeypatch)


@pytest.mark.parametrize("width", WIDTHS)
def test_ctr_with_nine_metrics(files, width, monkeypatch):
    tmp, _, _, score = files
    args = ["ctr", tmp / "log.csv", "--label", "click", "--score", score, "--group", "user",
            "--digits", "8", "-q", *(x for m in CTR_METRICS for x in ("-m", m))]  # fmt: skip
    _, shown = _check(args, width, monkeypatch)
    (record,) = json.loads(invoke(runner, *args, "-f", "json").stdout)
    for m in CTR_METRICS:
        assert f"{record[m]:.8f}" in shown


@pytest.mark.parametrize("width", WIDTHS)
def test_one_row_tables_and_metrics_listing(files, width, monkeypatch):
    tmp, runs, _, _ = files
    _check(["rank", "--qrels", tmp / "qrels.csv", "--run", runs[0], "-q"], width, monkeypatch)
    shown, _ = _terminal(["metrics"], width, monkeypatch)
    assert "…" not in shown and max(len(line) for line in shown.splitlines()) <= width
    names = {line.split("│")[1].strip() for line in shown.splitlines() if line.startswith("│")}
    assert {"ndcg", "roc_auc", "gauc", "retention"} <= names  # every name whole
    entry, _ = _terminal(["metrics", "gauc"], width, monkeypatch)
    assert "…" not in entry and "impressions" in entry and "Zhou et al. 2018" in entry


def test_the_piped_table_is_one_row_per_run(files):
    tmp, runs, _, _ = files
    args = ["rank", "--qrels", tmp / "qrels.csv", "--run", runs[0], "-q", "--digits", "17"]
    args += [x for m in RANK_METRICS for x in ("-m", m)]
    lines = invoke(runner, *args).stdout.splitlines()
    assert len([line for line in lines if runs[0].name in line]) == 1
    assert "…" not in "\n".join(lines)


HELP_PAGES = [[], ["rank"], ["ctr"], ["compare"], ["report"], ["demo"], ["retention"],
              ["off-policy"], ["metrics"]]  # fmt: skip


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("page", HELP_PAGES, ids=lambda p: " ".join(p) or "receval")
def test_help_pages_fit_without_cuts(page, width):
    shown = _help(page, width)
    assert "…" not in shown
    assert "<bool>" not in shown
    # the preformatted retention columns are 78 wide; the rest wraps to the terminal
    assert max(len(line) for line in shown.splitlines()) <= max(min(width, 80), 78)


def test_rank_help_is_short_in_panels_with_every_choice():
    shown = _help(["rank"], 80)
    assert len(shown.splitlines()) < 205  # the Embeddings panel and --exclude/--repeats
    assert "num_nonrel_judged" not in shown  # the metric names are in receval metrics
    for panel in ("Input:", "Metrics:", "Conventions:", "Output:", "Significance:"):
        assert f"\n{panel}\n" in shown
    # --ties: too many for the metavar, in its help
    assert "One of: trec, average, input, id_ascending, id_descending, worst" in " ".join(
        shown.split()
    )
    assert "--gain [linear|exponential|binary]" in shown
    # --profile: too many for the metavar, in its help
    assert "One of: trec_eval, sklearn, ranx" in " ".join(shown.split())
    assert "--judged-only / --all-items" in shown


def test_usage_errors_are_short_on_stderr():
    result = invoke(runner, "rank", code=2)
    assert result.stdout == ""
    assert result.stderr.startswith("error: receval rank: Missing option '--qrels'")
    assert len(result.stderr.splitlines()) == 1
    bogus = invoke(runner, "rank", "--qrels", "q", "--run", "r", "--bogus", code=2)
    assert "No such option: --bogus" in bogus.stderr and "--user" not in bogus.stderr
    close = invoke(runner, "rank", "--qrel", "q", "--run", "r", code=2)
    assert "--qrels" in close.stderr.partition("No such option")[2]
    assert invoke(runner, "ctr", code=2).stdout == ""


def test_metrics_name_shows_the_whole_entry():
    record = json.loads(invoke(runner, "metrics", "gauc", "-f", "json").stdout)
    assert record["family"] == "grouped" and record["higher_is_better"] is True
    weighting, pos_label = record["parameters"]
    assert pos_label["name"] == "pos_label" and pos_label["default"] is None
    assert weighting["choices"] == ["clicks", "impressions", "uniform"]
    assert weighting["default"] == "impressions"
    assert record["function"] == "receval.gauc_score"
    text = invoke(runner, "metrics", "P_10").stdout  # an alias: its entry
    assert text.startswith("precision\n") and "trec_eval 10.0" in text
    bad = invoke(runner, "metrics", "ndgc", code=2)
    assert bad.stdout == "" and "ndcg" in bad.stderr
    csv_rows = invoke(runner, "metrics", "rbp", "-f", "csv").stdout.splitlines()
    assert csv_rows[0] == "field,value" and any(r.startswith("parameter p,") for r in csv_rows)


def test_ctr_on_logits_computes_what_it_can(files):
    tmp, _, log, _ = files
    base = ["ctr", tmp / "log.csv", "--label", "click", "--score", "logit", "--group", "user"]
    result = invoke(runner, *base, "-f", "json")
    (record,) = json.loads(result.stdout)
    y, x = log["click"].to_numpy(), log["logit"].to_numpy()
    assert record["auc"] == pytest.approx(roc_auc_score(y, x), abs=1e-12)
    assert record["gauc"] is not None
    assert record["logloss"] is None and record["pcoc"] is None
    assert set(record["counts"]["not_applicable"]) == {"logloss", "pcoc"}
    assert "logit: pcoc is not applicable" in result.stderr
    assert "--logits" in result.stderr
    strict = invoke(runner, *base, "--strict", code=2)
    assert strict.stdout == "" and "--strict: logloss, pcoc not applicable" in strict.stderr
    none = invoke(runner, *base, "-m", "logloss", "-m", "pcoc", code=2)
    assert "no metric applies" in none.stderr
    (logits,) = json.loads(invoke(runner, *base, "--logits", "-f", "json").stdout)
    assert logits["logloss"] == pytest.approx(log_loss(y, sigmoid(x)), rel=1e-12)
    assert "not_applicable" not in logits["counts"]
    by = json.loads(invoke(runner, *base, "--by", "user", "-f", "json", "-q").stdout)
    overall = next(r for r in by if r["segment"] == "(all)")
    assert overall["logloss"] is None and overall["auc"] == pytest.approx(record["auc"])


def test_ctr_on_logits_still_reports_bad_data(files, tmp_path):
    """Only the metrics that refuse scores are skipped: bad labels are still an error,
    though rmse (of any prediction) could be computed."""
    _, _, log, _ = files
    bad = log.copy()
    bad.loc[3, "click"] = 2
    bad.to_csv(tmp_path / "labels.csv", index=False)
    args = ["ctr", tmp_path / "labels.csv", "--label", "click", "--score", "logit"]
    result = invoke(runner, *args, "-m", "rmse", "-m", "auc", code=2)
    assert result.stdout == "" and NOT_BINARY + "[0, 1, 2]" in result.stderr
    by = invoke(runner, *args, "-m", "rmse", "-m", "auc", "--by", "user", code=2)
    assert NOT_BINARY + "[" in by.stderr


@pytest.mark.parametrize("by", [[], ["--by", "user"]])
def test_ctr_on_logits_is_not_applicable_only_where_the_scores_are_refused(files, tmp_path, by):
    """A metric of predictions (logloss, mae) on logits is left empty only where it
    refuses them as not probabilities: its other errors (labels, weights) exit 2 as on
    probabilities, though no metric of scores is asked for. They were notes saying the
    metric is "not applicable", and with another metric computed the exit status was 0."""
    _, _, log, _ = files
    bad = log.copy()
    bad.loc[3, "click"] = 2
    bad.to_csv(tmp_path / "labels.csv", index=False)
    args = ["ctr", tmp_path / "labels.csv", "--label", "click", "--score", "logit", *by]
    labels = invoke(runner, *args, "-m", "logloss", "-m", "mae", code=2)
    assert labels.stdout == "" and "not applicable" not in labels.stderr
    assert labels.stderr.startswith(f"error: {tmp_path / 'labels.csv'}:5: ")
    assert NOT_BINARY + "[0, 1, 2]" in labels.stderr
    weighted = log.assign(w=1.0)
    weighted.loc[3, "w"] = -1.0
    weighted.to_csv(tmp_path / "weights.csv", index=False)
    args = ["ctr", tmp_path / "weights.csv", "--label", "click", "--score", "logit",
            "--weight", "w", *by]  # fmt: skip
    for metrics in (["-m", "mae"], ["-m", "logloss", "-m", "rmse"]):
        weights = invoke(runner, *args, *metrics, code=2)
        assert weights.stderr.startswith(f"error: {tmp_path / 'weights.csv'}:5: "), metrics
        assert "--weight w must be non-negative. Got values [-1.0]" in weights.stderr
        assert "not applicable" not in weights.stderr and "no metric applies" not in weights.stderr
    refused = invoke(runner, "ctr", tmp_path / "weights.csv", "--label", "click", "--score",
                     "logit", "-m", "logloss", "-m", "mae", "-f", "json", *by)  # fmt: skip
    overall = json.loads(refused.stdout)[-1]
    assert overall["logloss"] is None and overall["mae"] is not None
    assert set(overall["counts"]["not_applicable"]) == {"logloss"}


def test_sigmoid_is_stable_at_the_extremes():
    x = np.array([-1000.0, -40.0, 0.0, 40.0, 1000.0, np.nan])
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        p = sigmoid(x)
    assert p[0] == 0.0 and p[2] == 0.5 and p[4] == 1.0 and np.isnan(p[5])
    assert p[1] == pytest.approx(np.exp(-40.0), rel=1e-12)

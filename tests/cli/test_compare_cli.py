"""``receval compare`` and the significance letters of ``receval rank`` with several runs."""

from __future__ import annotations

import importlib.util
import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from receval import Qrels, Run, compare, compare_predictions
from receval.datasets import make_impressions

from ._helpers import invoke, make_runner, write_recommendations

runner = make_runner()
SETTINGS = ["--permutations", "500", "--resamples", "500"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("compare")
    qrels, runs = write_recommendations(tmp, 200, n_items=300, k=20, seed=4)
    log = make_impressions(300, impressions_per_user=10, seed=5)
    pd.DataFrame(log).to_csv(tmp / "log.csv", index=False)
    return tmp, qrels, runs, log


def test_compare_runs_json_equals_library(files):
    tmp, qrels, runs, _ = files
    result = invoke(
        runner, "compare", "--qrels", tmp / "qrels.csv",
        "--run", tmp / "model_a.parquet", "--run", tmp / "model_b.parquet",
        "-m", "ndcg@10", "-m", "mrr", "--baseline", "model_b.parquet", *SETTINGS,
        "--format", "json",
    )  # fmt: skip
    records = json.loads(result.stdout)
    q = Qrels.from_frame(pd.DataFrame(qrels))
    named = {f"{k}.parquet": Run.from_frame(pd.DataFrame(v)) for k, v in runs.items()}
    expected = compare(q, named, ["ndcg@10", "mrr"], baseline="model_b.parquet",
                       n_permutations=500, n_resamples=500).records()  # fmt: skip
    none = {"model": 0, "versus": 0}  # every qrels user in both runs, no other user
    assert [r.pop("counts") for r in records] == [
        {"n_users_missing": none, "n_run_only_users": none}
    ] * 2
    assert records == expected
    assert [r["model"] for r in records] == ["model_a.parquet"] * 2


def test_compare_runs_table_markdown_latex(files):
    tmp, *_ = files
    args = ["compare", "--qrels", tmp / "qrels.csv", "--run", tmp / "model_a.parquet",
            "--run", tmp / "model_b.parquet", "-m", "ndcg@10", *SETTINGS]  # fmt: skip
    table = invoke(runner, *args).stdout
    assert "model_a.parquet" in table and "ᵇ" in table  # model a beats model b
    assert "Fisher's randomization test (500 permutations, seed 0)" in table
    md = invoke(runner, *args, "--format", "markdown").stdout
    assert "<sup>b</sup>" in md and md.splitlines()[0] == "|  | model | ndcg@10 |"
    tex = invoke(runner, *args, "--format", "latex").stdout
    assert tex.startswith("\\begin{tabular}{llr}") and "$^{b}$" in tex
    detail = invoke(runner, *args, "--format", "markdown", "--detail").stdout
    assert "| metric | model | versus | difference | effect size | 95% CI |" in detail


def test_compare_ctr_models_csv(files):
    tmp, _, _, log = files
    result = invoke(
        runner, "compare", "--impressions", tmp / "log.csv", "--label", "click",
        "--score", "model_a", "--score", "model_b", "--group", "user", *SETTINGS,
        "--test", "randomization", "--interval", "percentile", "--format", "csv",
    )  # fmt: skip
    lines = result.stdout.splitlines()
    assert lines[0].startswith("metric,model,versus,mean,versus_mean,difference")
    assert len(lines) == 3  # gauc and log_loss, one pair
    expected = compare_predictions(
        log["click"], {"model_a": log["model_a"], "model_b": log["model_b"]},
        groups=log["user"].astype(str), interval="percentile", n_permutations=500,
        n_resamples=500,
    ).records()  # fmt: skip
    got = pd.read_csv(tmp / "log.csv")  # the file round-trips the columns exactly
    assert len(got) == len(log["click"])
    first = lines[1].split(",")
    assert first[0] == "gauc" and float(first[5]) == pytest.approx(expected[0]["difference"])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "error: pass either --qrels with --run"),
        (["--qrels", "q.csv", "--impressions", "x.csv"], "error: pass either --qrels with --run"),
        (["--qrels", "q.csv", "--run", "a.run"], "at least two --run"),
        (["--impressions", "x.csv", "--label", "y", "--score", "a"], "at least two --score"),
    ],
)
def test_compare_usage_errors(args, message):
    result = invoke(runner, "compare", *args, "--quiet", code=2) if args else None
    if result is None:  # no arguments at all: the help text, as for every command
        return
    assert message in result.stderr


@pytest.mark.parametrize(
    ("models", "message"),
    [
        (["--score", "model_a", "--score", "model_a"],
         "--score 'model_a' is given twice; pass each column once."),
        # three --score, one of them twice: it compared two models without a word
        (["--score", "model_a", "--score", "model_b", "--score", "model_a"],
         "--score 'model_a' is given twice; pass each column once."),
    ],
)  # fmt: skip
def test_compare_refuses_a_score_column_given_twice(files, models, message):
    tmp, *_ = files
    result = invoke(runner, "compare", "--impressions", tmp / "log.csv", "--label", "click",
                    *models, "--group", "user", *SETTINGS, code=2)  # fmt: skip
    assert result.stderr == f"error: {message}\n"


def test_compare_refuses_a_run_given_twice(files):
    tmp, *_ = files
    run = tmp / "model_a.parquet"
    result = invoke(runner, "compare", "--qrels", tmp / "qrels.csv", "--run", run, "--run", run,
                    *SETTINGS, code=2)  # fmt: skip
    assert result.stderr == f"error: --run {str(run)!r} is given twice; pass each run file once.\n"


def test_compare_bad_test_names_the_option(files):
    tmp, *_ = files
    result = invoke(runner, "compare", "--qrels", tmp / "qrels.csv", "--run",
                    tmp / "model_a.parquet", "--run", tmp / "model_b.parquet", "--test", "z",
                    code=2)  # fmt: skip
    assert result.stderr == (
        "error: --test must be one of ['randomization', 'student', 'wilcoxon']. Got 'z' instead.\n"
    )


def test_rank_with_two_runs_marks_significance(files):
    tmp, *_ = files
    args = ["rank", "--qrels", tmp / "qrels.csv", "--run", tmp / "model_a.parquet",
            "--run", tmp / "model_b.parquet", "-m", "ndcg@10", "-m", "mrr"]  # fmt: skip
    table = invoke(runner, *args).stdout
    assert "ᵇ" in table and "1,000 permutations" in table
    plain = json.loads(invoke(runner, *args, "--format", "json").stdout)
    assert [r["run"] for r in plain] == ["model_a.parquet", "model_b.parquet"]
    assert set(plain[0]) == {"run", "ndcg@10", "mrr", "counts"}  # numbers only, no letters
    none = invoke(runner, *args, "--test", "none").stdout
    assert "ᵇ" not in none
    bad = invoke(runner, *args, "--test", "t", code=2)
    assert "--test must be one of randomization, student, wilcoxon, none" in bad.stderr
    bad = invoke(runner, *args, "--baseline", "x", code=2)
    assert "--baseline must name one of the runs" in bad.stderr
    assert np.isfinite(plain[0]["mrr"])


def test_report_has_comparison_tables(files, tmp_path):
    tmp, *_ = files
    out = tmp_path / "r.html"
    invoke(
        runner, "report", "--out", out, "--qrels", tmp / "qrels.csv",
        "--run", tmp / "model_a.parquet", "--run", tmp / "model_b.parquet", "-m", "mrr",
        "--impressions", tmp / "log.csv", "--label", "click", "--score", "model_a",
        "--score", "model_b", "--group", "user", "--quiet",
    )  # fmt: skip
    html = out.read_text()
    assert html.count("Paired comparisons over users") == 2  # CTR models and runs
    assert "Holm-Bonferroni correction within each metric" in html
    assert "model_a.parquet" in html and "log_loss" in html


def test_compare_student_without_scipy_exits_2(files, monkeypatch):
    """The t-test without SciPy: one error line naming the extra, exit 2."""
    import sys

    tmp, *_ = files
    for name in [m for m in sys.modules if m == "scipy" or m.startswith("scipy.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "scipy", None)
    args = ["compare", "--qrels", tmp / "qrels.csv", "--run", tmp / "model_a.parquet",
            "--run", tmp / "model_b.parquet", "-m", "ndcg@10", *SETTINGS]  # fmt: skip
    result = invoke(runner, *args, "--test", "student", code=2)
    assert result.stderr.startswith("error: student_pvalues (the paired t-test) needs SciPy")
    assert "pip install 'receval[stats]'" in result.stderr and result.stdout == ""
    invoke(runner, *args)  # the randomization test needs no SciPy


def test_compare_runs_by_segment_equals_compare_by_segment(files):
    from receval import compare_by_segment

    tmp, qrels, runs, _ = files
    users = pd.unique(pd.DataFrame(qrels)["user"])
    parity = np.where(np.arange(150) % 2, "odd", "even")
    groups = pd.DataFrame({"user": users[:150], "segment": parity})
    groups.to_csv(tmp / "groups.csv", index=False)
    args = ["compare", "--qrels", tmp / "qrels.csv", "--run", tmp / "model_a.parquet",
            "--run", tmp / "model_b.parquet", "-m", "ndcg@10", "--by", tmp / "groups.csv",
            *SETTINGS]  # fmt: skip
    result = invoke(runner, *args, "--format", "json")
    records = json.loads(result.stdout)
    q = Qrels.from_frame(pd.DataFrame(qrels))
    named = {f"{k}.parquet": Run.from_frame(pd.DataFrame(v)) for k, v in runs.items()}
    expected = compare_by_segment(q, named, ["ndcg@10"], by=groups, n_permutations=500,
                                  n_resamples=500).records()  # fmt: skip
    for r in expected:
        r["segment"] = "(all)" if r["segment"] is None else r["segment"]
    # what the segmentation and the runs left out, on the overall row
    none = {"model": 0, "versus": 0}
    overall = {"n_users_unassigned": 50, "n_users_unknown": 0, "n_users_missing": none,
               "n_run_only_users": none}  # fmt: skip
    assert [r.pop("counts", {}) for r in records] == [{}, {}, overall]
    assert records == expected
    assert [r["segment"] for r in records] == ["even", "odd", "(all)"]
    assert "50 qrels users have no segment" in result.stderr
    table = invoke(runner, *args)
    assert "segment even (" in table.stdout and "segment (all) (200 users)" in table.stdout
    ctr = invoke(runner, "compare", "--impressions", tmp / "log.csv", "--label", "click",
                 "--score", "a", "--score", "b", "--by", tmp / "groups.csv", code=2)  # fmt: skip
    assert "receval ctr --by" in ctr.stderr


TREC = Path(__file__).resolve().parents[1] / "peers" / "data" / "trec_eval"


def test_compare_detail_legend_and_unreachable_significance():
    """--detail's legend explains its columns (no letters in it); with 3 users the
    randomization test cannot reach p < 0.05 and a note says so."""
    args = ["compare", "--qrels", TREC / "qrels.test", "--run", TREC / "results.test",
            "--run", TREC / "results.trunc", "-m", "ndcg@10", "--permutations", "500",
            "--resamples", "200"]  # fmt: skip
    result = invoke(runner, *args, "--detail")
    assert "A letter marks" not in result.stdout
    assert "effect size: Cohen's d_z" in result.stdout
    assert "adjusted p: after Holm-Bonferroni correction" in result.stdout
    assert "ndcg@10: with 3 paired users the randomization test gives no p-value below 0.25" in (
        result.stderr
    )
    md = invoke(runner, *args, "--detail", "--format", "markdown").stdout
    assert "effect size: Cohen's d_z" in md
    if importlib.util.find_spec("scipy") is not None:  # the t-test needs SciPy
        # it can reach any level with 2 users or more: no note
        assert "paired users" not in invoke(runner, *args, "--test", "student").stderr
    quiet = invoke(runner, *args, "--quiet")
    assert quiet.stderr == ""


def test_rank_letters_note_unreachable_significance():
    result = invoke(
        runner, "rank", "--qrels", TREC / "qrels.test", "--run", TREC / "results.test",
        "--run", TREC / "results.trunc", "-m", "ndcg@10", "--permutations", "200",
    )  # fmt: skip
    assert "with 3 paired users the randomization test gives no p-value below 0.25" in (
        result.stderr
    )


def test_progress_lines_name_the_step(monkeypatch, tmp_path):
    """The spinner (shown on a terminal) says which file, how large, which metrics,
    which test: recorded here in place of the terminal."""
    from contextlib import nullcontext

    from receval.cli._common import Messages

    shown: list[str] = []

    def progress(self, text):
        shown.append(text)
        return nullcontext()

    monkeypatch.setattr(Messages, "progress", progress)
    run = TREC / "results.test"
    invoke(runner, "rank", "--qrels", TREC / "qrels.test", "--run", run, "--run",
           TREC / "results.trunc", "-m", "ndcg@10", "-m", "mrr", "--permutations", "100",
    )  # fmt: skip
    size = run.stat().st_size
    assert f"Reading {run} ({size / 1000:.1f} kB)…" in shown
    assert any(t.startswith("Computing ndcg@10, mrr of results.test (") for t in shown)
    assert "Testing 2 runs on 2 metrics: the randomization test (100 sign flips)…" in shown
    shown.clear()
    invoke(runner, "compare", "--qrels", TREC / "qrels.test", "--run", run, "--run",
           TREC / "results.trunc", "-m", "ndcg@10", "--permutations", "100", "--resamples",
           "50", "-q")  # fmt: skip
    expected = "Comparing 2 runs: the randomization test (100 sign flips) and 50 bootstrap "
    expected += "resamples…"
    assert expected in shown
    assert Messages.sized(str(tmp_path / "missing")) == str(tmp_path / "missing")
    (tmp_path / "small").write_bytes(b"x" * 12)
    assert Messages.sized(str(tmp_path / "small")).endswith("(12 bytes)")


def test_compare_ctr_notes_per_user_metrics_not_delong(tmp_path):
    """3 users: gauc and log_loss (paired over users) cannot reach 0.05; roc_auc is
    DeLong's test over the impressions, so no note names it."""
    log = tmp_path / "log.csv"
    log.write_text("click,p,q,user\n1,0.9,0.8,a\n0,0.2,0.3,a\n1,0.6,0.5,b\n0,0.4,0.1,b\n"
                   "1,0.7,0.2,c\n0,0.3,0.6,c\n")  # fmt: skip
    result = invoke(
        runner, "compare", "--impressions", log, "--label", "click", "--score", "p", "--score",
        "q", "--group", "user", "--ctr-metric", "gauc", "--ctr-metric", "auc", "--ctr-metric",
        "log_loss", *SETTINGS,
    )  # fmt: skip
    notes = [x for x in result.stderr.splitlines() if "paired users" in x]
    assert notes == [
        "note: gauc, log_loss: with 3 paired users the randomization test gives no p-value "
        "below 0.25, so no difference can be significant at alpha 0.05; compare on more users."
    ]


def test_compare_every_pair_with_lists_and_wins(files):
    tmp, qrels, runs, _ = files
    reversed_a = pd.DataFrame(runs["model_a"]).assign(score=lambda f: -f["score"])
    reversed_a.to_parquet(tmp / "model_c.parquet")
    base = ["compare", "--qrels", tmp / "qrels.csv", "-m", "ndcg@10", "-m", "mrr", *SETTINGS]
    two = ["--run", tmp / "model_a.parquet", "--run", tmp / "model_b.parquet"]
    three = [*two, "--run", tmp / "model_c.parquet"]
    records = json.loads(invoke(runner, *base, *three, "--pairs", "all", "--format",
                                "json").stdout)  # fmt: skip
    assert len(records) == 6
    assert {json.dumps(r.pop("counts")) for r in records} == {
        '{"n_users_missing": {"model": 0, "versus": 0}, '
        '"n_run_only_users": {"model": 0, "versus": 0}}'
    }
    q = Qrels.from_frame(pd.DataFrame(qrels))
    named = {f"{k}.parquet": Run.from_frame(pd.DataFrame(v)) for k, v in runs.items()}
    named["model_c.parquet"] = Run.from_frame(reversed_a)
    expected = compare(q, named, ["ndcg@10", "mrr"], pairs="all", n_permutations=500,
                       n_resamples=500)  # fmt: skip
    assert records == expected.records()
    assert [r["p_adjusted"] for r in records] == expected.comparisons["p_adjusted"].tolist()
    every = invoke(runner, *base, *two, "--pairs", "all", "--detail").stdout
    assert "across every pair and metric" in every and "win/tie/loss" in every
    records = json.loads(invoke(runner, *base, *two, "--format", "json").stdout)
    for r in records:
        assert r["wins"] + r["ties"] + r["losses"] == r["n_users"]
    # the lists of two runs: a second table, or a second section of one JSON document
    table = invoke(runner, *base, *two, "--lists", "--list-depth", "10").stdout
    assert "rbo_residual" in table and "kendall_tau" in table and "at depth 10" in table
    document = json.loads(invoke(runner, *base, *two, "--lists", "--format", "json").stdout)
    assert set(document) == {"comparisons", "lists"}
    q_runs = {k: Run.from_frame(pd.DataFrame(v)) for k, v in runs.items()}
    from receval import list_differences

    expected = list_differences(q_runs["model_a"], q_runs["model_b"])
    means = {row["measure"]: row["mean"] for row in document["lists"]}
    assert means["rbo"] == pytest.approx(expected.mean["rbo"])
    md = invoke(runner, *base, *two, "--lists", "--format", "markdown").stdout
    assert "| measure | mean | users |" in md
    # the lists take the profile's tie order; one that is no order of a list is noted
    ranx = json.loads(invoke(runner, *base, *two, "--lists", "--profile", "ranx",
                             "--format", "json").stdout)  # fmt: skip
    expected = list_differences(q_runs["model_a"], q_runs["model_b"], ties="input")
    means = {row["measure"]: row["mean"] for row in ranx["lists"]}
    assert means["rbo"] == pytest.approx(expected.mean["rbo"])
    sklearn = invoke(runner, *base, *two, "--lists", "--profile", "sklearn", "--format", "json")
    assert "ties='average' is no order of a list" in sklearn.stderr


def test_compare_pairs_and_lists_errors(files):
    tmp, *_ = files
    base = ["compare", "--qrels", tmp / "qrels.csv", "-m", "mrr", *SETTINGS,
            "--run", tmp / "model_a.parquet", "--run", tmp / "model_b.parquet"]  # fmt: skip
    bad = invoke(runner, *base, "--pairs", "every", code=2)
    assert bad.stderr.startswith("error: --pairs must be one of ['all']")
    both = invoke(runner, *base, "--pairs", "all", "--baseline", "model_a.parquet", code=2)
    # it read "pairs='all' ... drop baseline, or drop pairs", the library's words
    assert both.stderr == (
        "error: receval compare: --pairs all compares every pair of runs, so it takes no baseline. "
        "Got --baseline model_a.parquet; drop --baseline, or drop --pairs to compare with "
        "'model_a.parquet'.\n"
    )
    ctr = invoke(runner, "compare", "--impressions", tmp / "log.csv", "--label", "click",
                 "--score", "model_a", "--score", "model_b", "--lists", code=2)  # fmt: skip
    assert "--pairs and --lists compare runs" in ctr.stderr


@pytest.mark.parametrize(
    ("mode", "option", "message"),
    [
        ("ctr", ["-m", "auc"], "-m names the metrics of runs (--qrels, --run); for CTR models "
         "use --ctr-metric (--ctr-metric auc)."),
        ("runs", ["--ctr-metric", "auc"], "--ctr-metric names the metrics of CTR models "
         "(--impressions); for runs use -m."),
        ("runs", ["--list-depth", "5"], "--list-depth goes with --lists; pass --lists or drop "
         "--list-depth."),
        ("runs", ["--rbo-p", "0.5"], "--rbo-p goes with --lists; pass --lists or drop --rbo-p."),
    ],
)  # fmt: skip
def test_an_option_that_would_be_ignored_is_refused(files, mode, option, message):
    """``compare --impressions ... -m auc`` compared the default log loss, saying nothing."""
    tmp = files[0]
    if mode == "ctr":
        data = ["--impressions", tmp / "log.csv", "--label", "click", "--score", "model_a",
                "--score", "model_b"]  # fmt: skip
    else:
        data = ["--qrels", tmp / "qrels.csv", "--run", tmp / "model_a.parquet", "--run",
                tmp / "model_b.parquet"]  # fmt: skip
    result = invoke(runner, "compare", *data, *option, code=2)
    assert result.stdout == ""
    assert result.stderr == f"error: {message}\n"


def test_counts_a_metric_has_none_of_are_null_not_minus_one(files):
    """DeLong's AUC has no per-user value: its wins, ties and losses are null in the
    JSON (nan in CSV), not -1, which a sum of wins would take in."""
    tmp = files[0]
    data = ["--impressions", tmp / "log.csv", "--label", "click", "--score", "model_a",
            "--score", "model_b", "--ctr-metric", "auc", *SETTINGS]  # fmt: skip
    records = json.loads(invoke(runner, "compare", *data, "--format", "json").stdout)
    assert [(r["wins"], r["ties"], r["losses"]) for r in records] == [(None, None, None)]
    csv = invoke(runner, "compare", *data, "--format", "csv").stdout.splitlines()
    row = dict(zip(csv[0].split(","), csv[1].split(","), strict=True))
    assert (row["wins"], row["ties"], row["losses"]) == ("nan", "nan", "nan")


def test_compare_counts_the_users_left_out_of_the_test(tmp_path):
    # u3 has clicks only: no gauc in either model, left out of the paired test
    (tmp_path / "log.csv").write_text(
        "click,a,b,user\n1,0.9,0.8,u1\n0,0.3,0.4,u1\n1,0.4,0.5,u2\n0,0.6,0.2,u2\n"
        "1,0.8,0.7,u3\n1,0.2,0.1,u3\n1,0.5,0.6,u4\n0,0.1,0.3,u4\n"
    )
    result = invoke(
        runner, "compare", "--impressions", tmp_path / "log.csv", "--label", "click",
        "--score", "a", "--score", "b", "--group", "user", "--ctr-metric", "gauc",
        *SETTINGS, "-f", "json",
    )  # fmt: skip
    (record,) = json.loads(result.stdout)
    assert (record["n_users"], record["n_users_skipped"]) == (3, 1)
    assert "gauc: b vs a leaves 1 of 4 users out of the test" in result.stderr


def test_compare_takes_trec_evals_families(files):
    # P.5,10 and bare P stand for one metric each, as in evaluate (they were refused)
    tmp, qrels, runs, _ = files
    q = Qrels.from_frame(pd.DataFrame(qrels))
    named = {k: Run.from_frame(pd.DataFrame(v)) for k, v in runs.items()}
    report = compare(q, named, ["P.5,10", "map"], n_permutations=200, n_resamples=200)
    assert report.metrics == ["P_5", "P_10", "map"]
    alone = compare(q, named, ["precision@5"], n_permutations=200, n_resamples=200)
    assert report.means["P_5"] == alone.means["precision@5"]
    bare = compare(q, named, ["P"], n_permutations=200, n_resamples=200)
    assert bare.metrics == [f"P_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)]
    result = invoke(
        runner, "compare", "--qrels", tmp / "qrels.csv", "--run", tmp / "model_a.parquet",
        "--run", tmp / "model_b.parquet", "-m", "P.5,10", *SETTINGS, "--format", "json",
    )  # fmt: skip
    assert [r["metric"] for r in json.loads(result.stdout)] == ["P_5", "P_10"]


def test_runs_of_other_ids_are_scored_with_allow_unmatched(files):
    tmp, _, runs, _ = files
    prefixed = pd.DataFrame(runs["model_a"]).assign(user=lambda f: "x" + f["user"].astype(str))
    prefixed.to_csv(tmp / "prefixed.csv", index=False)
    args = ["compare", "--qrels", tmp / "qrels.csv", "--run", tmp / "model_b.parquet",
            "--run", tmp / "prefixed.csv", "-m", "ndcg@10", *SETTINGS, "-f", "json"]  # fmt: skip
    refused = invoke(runner, *args, code=2)
    assert refused.stderr.endswith(
        "check the ids for a prefix, a type or a column mix-up, or pass --allow-unmatched to "
        "score the run anyway.\n"
    )
    scored = invoke(runner, *args, "--allow-unmatched")
    assert json.loads(scored.stdout)[0]["mean"] == 0.0
    ctr = invoke(runner, "compare", "--impressions", tmp / "log.csv", "--label", "click",
                 "--score", "model_a", "--score", "model_b", "--allow-unmatched",
                 code=2)  # fmt: skip
    assert ctr.stderr == ("error: --allow-unmatched goes with runs (--qrels, --run); drop it.\n")


def test_users_absent_from_a_run_are_noted_and_counted_as_rank_counts_them(files):
    tmp, _, runs, _ = files
    run = pd.DataFrame(runs["model_b"])
    kept = run["user"].isin(run["user"].drop_duplicates().iloc[:150])
    part = pd.concat([run[kept], pd.DataFrame({"user": ["stranger"], "item": [1], "score": [1.0]})])
    part.to_csv(tmp / "part.csv", index=False)
    args = ["--qrels", tmp / "qrels.csv", "-m", "ndcg@10", "--run", tmp / "part.csv"]
    rank = invoke(runner, "rank", *args).stderr
    result = invoke(runner, "compare", *args, "--run", tmp / "model_a.parquet", *SETTINGS,
                    "-f", "json")  # fmt: skip
    notes = [
        "note: part.csv: 50 of 200 qrels users are absent from the run.",
        "note: part.csv: 1 run user is not in the qrels (ignored).",
    ]
    assert [line for line in rank.splitlines() if "absent" in line or "ignored" in line] == notes
    assert [line for line in result.stderr.splitlines() if line in notes] == notes
    assert json.loads(result.stdout)[0]["counts"] == {
        "n_users_missing": {"model": 0, "versus": 50},
        "n_run_only_users": {"model": 0, "versus": 1},
    }


def test_by_segment_counts_the_users_absent_from_a_run_as_without_by(files):
    """--by puts each run's counts (qrels users absent from it, its users not in the
    qrels) on the overall records, as compare without --by on every record: JSON and
    CSV."""
    tmp, qrels, runs, _ = files
    run = pd.DataFrame(runs["model_b"])
    kept = run["user"].isin(run["user"].drop_duplicates().iloc[:150])
    part = pd.concat([run[kept], pd.DataFrame({"user": ["stranger"], "item": [1], "score": [1.0]})])
    part.to_csv(tmp / "part_by.csv", index=False)
    users = pd.unique(pd.DataFrame(qrels)["user"])
    groups = pd.DataFrame({"user": users[:150], "segment": np.where(np.arange(150) % 2, "b", "a")})
    groups.to_csv(tmp / "halves.csv", index=False)
    args = ["compare", "--qrels", tmp / "qrels.csv", "-m", "ndcg@10", "--run",
            tmp / "part_by.csv", "--run", tmp / "model_a.parquet", *SETTINGS]  # fmt: skip
    plain = json.loads(invoke(runner, *args, "-f", "json").stdout)[0]["counts"]
    assert plain == {"n_users_missing": {"model": 0, "versus": 50},
                     "n_run_only_users": {"model": 0, "versus": 1}}  # fmt: skip
    by = [*args, "--by", tmp / "halves.csv"]
    records = json.loads(invoke(runner, *by, "-f", "json").stdout)
    assert [(r["segment"], r["model"], r["versus"]) for r in records] == [
        (s, "model_a.parquet", "part_by.csv") for s in ("a", "b", "(all)")
    ]
    overall = {"n_users_unassigned": 50, "n_users_unknown": 0, **plain}
    assert [r["counts"] for r in records] == [{}, {}, overall]
    frame = pd.read_csv(io.StringIO(invoke(runner, *by, "-f", "csv").stdout))
    columns = ["n_users_unassigned", "n_users_unknown", "n_users_missing:model",
               "n_users_missing:versus", "n_run_only_users:model",
               "n_run_only_users:versus"]  # fmt: skip
    assert list(frame.columns[-6:]) == columns
    assert frame[columns].iloc[2].tolist() == [50, 0, 0, 50, 0, 1]
    assert frame[columns].iloc[:2].isna().all(axis=None)


def test_bad_seed_names_the_option_and_its_range(files):
    tmp, *_ = files
    result = invoke(runner, "compare", "--qrels", tmp / "qrels.csv", "--run",
                    tmp / "model_a.parquet", "--run", tmp / "model_b.parquet", "--seed", "-1",
                    code=2)  # fmt: skip
    assert result.stderr == "error: --seed must be an integer in [0, 2**63 - 1]. Got -1 instead.\n"

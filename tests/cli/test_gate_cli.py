"""``receval gate``: exit codes, outputs (table, Markdown, JSON, JUnit), the job summary,
the rules file and its overrides, and the guide's GitHub Actions workflow."""

from __future__ import annotations

import json
import math
import shlex
import xml.etree.ElementTree as ET
from pathlib import Path

import pandas as pd
import pytest

from receval import gauc_score
from receval.datasets import make_impressions, make_recommendations

from ._helpers import invoke, make_runner

runner = make_runner()
EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
FAST = ["--permutations", "500", "--resamples", "200", "--interval", "percentile"]


@pytest.fixture()
def repo(tmp_path, monkeypatch):
    """A repository as the guide's workflow sees it: data/qrels.tsv, runs/main.tsv (the
    weaker model) and runs/candidate.tsv, and the guide's receval.toml."""
    qrels, runs = make_recommendations(300, n_items=300, k=20, seed=0)
    (tmp_path / "data").mkdir()
    (tmp_path / "runs").mkdir()
    pd.DataFrame(qrels).to_csv(tmp_path / "data" / "qrels.tsv", sep="\t", index=False)
    pd.DataFrame(runs["model_b"]).to_csv(tmp_path / "runs" / "main.tsv", sep="\t", index=False)
    pd.DataFrame(runs["model_a"]).to_csv(tmp_path / "runs" / "candidate.tsv", sep="\t",
                                         index=False)  # fmt: skip
    (tmp_path / "receval.toml").write_text((EXAMPLES / "receval.toml").read_text())
    log = make_impressions(300, impressions_per_user=10, seed=5)
    pd.DataFrame(log).to_csv(tmp_path / "log.csv", index=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    return tmp_path


RUNS = ["--qrels", "data/qrels.tsv"]
BETTER = [*RUNS, "--baseline", "runs/main.tsv", "--candidate", "runs/candidate.tsv"]
WORSE = [*RUNS, "--baseline", "runs/candidate.tsv", "--candidate", "runs/main.tsv"]


def test_exit_codes_pass_fail_bad_input(repo):
    passed = invoke(runner, "gate", *BETTER, *FAST, code=0)
    assert "PASSED" in passed.stdout and "candidate.tsv" in passed.stdout
    failed = invoke(runner, "gate", *WORSE, *FAST, code=1)
    assert "FAILED" in failed.stdout and "fail" in failed.stdout
    missing = invoke(runner, "gate", *RUNS, "--baseline", "runs/none.tsv", "--candidate",
                     "runs/main.tsv", code=2)  # fmt: skip
    assert missing.stderr.startswith("error: ") and "none.tsv" in missing.stderr
    (repo / "receval.toml").write_text("[gate]\nalpha = \n")
    bad = invoke(runner, "gate", *BETTER, code=2)
    assert bad.stderr.startswith("error: receval.toml:2: not valid TOML")
    (repo / "receval.toml").write_text("[[gate.rules]]\nmetric = 'mrr'\nrule = 'best'\n")
    bad = invoke(runner, "gate", *BETTER, code=2)
    assert "gate.rules[0].rule must be one of" in bad.stderr
    invoke(runner, "gate", *BETTER, "--rule", "mrr", code=2)
    invoke(runner, "gate", *BETTER, "--alpha", "0.9", "--rule", "mrr=superiority", code=2)
    invoke(runner, "gate", "--baseline", "runs/main.tsv", "--candidate", "x", code=2)
    (repo / "receval.toml").unlink()
    none = invoke(runner, "gate", *BETTER, code=2)
    assert "no rules" in none.stderr
    # the table the message names is the one read
    table = none.stderr.split("pyproject.toml (")[1].split(")")[0]
    (repo / "pyproject.toml").write_text(f"{table}\nmetric = 'mrr'\nrule = 'superiority'\n")
    read = json.loads(invoke(runner, "gate", *BETTER, *FAST, "--format", "json").stdout)
    assert read["settings"]["source"] == "pyproject.toml" and len(read["rows"]) == 1
    (repo / "pyproject.toml").unlink()
    family = invoke(runner, "gate", *BETTER, "--rule", "P=floor:0.1", code=2)
    assert (
        "stands for 9 metrics" in family.stderr
        and "name one of them, e.g. 'P_5'. rank and compare take them all" in family.stderr
    )


def test_rules_of_the_command_line_read_no_rules_file(repo):
    # with --rule, the receval.toml of the working directory was read all the same: a
    # broken one failed the gate, and its settings changed how the rules were tested
    rule = [*BETTER, *FAST, "--rule", "ndcg@10=floor:0.1", "-f", "json"]
    (repo / "receval.toml").write_text("[gate]\nalpha = \n")
    result = invoke(runner, "gate", *rule)
    doc = json.loads(result.stdout)
    assert doc["passed"] is True and doc["settings"]["source"] is None
    assert result.stderr.endswith("0 inconclusive of 1 check.\n")  # counted in words
    # a floor alone runs no test: no note of a test "across 0 comparisons"
    assert "comparison" not in result.stderr and "One-sided" not in result.stderr
    markdown = invoke(runner, "gate", *rule[:-2], "-f", "markdown")
    assert "comparison" not in markdown.stdout + markdown.stderr
    (repo / "receval.toml").write_text(
        "[gate]\nalpha = 0.01\ncorrection = 'bonferroni'\n[[gate.rules]]\nmetric = 'mrr'\n"
        "rule = 'superiority'\n"
    )
    doc = json.loads(invoke(runner, "gate", *rule).stdout)
    assert (doc["settings"]["alpha"], doc["settings"]["correction"]) == (0.05, "holm")
    assert [r["metric"] for r in doc["rows"]] == ["ndcg@10"]
    # a file named by --config gives its settings; its rules are neither read nor checked
    (repo / "ci.toml").write_text("[gate]\nalpha = 0.01\n[[gate.rules]]\nmetric = 'mrr'\n"
                                  "rule = 'best'\n")  # fmt: skip
    doc = json.loads(invoke(runner, "gate", *rule, "--config", "ci.toml").stdout)
    assert (doc["settings"]["alpha"], doc["settings"]["source"]) == (0.01, "ci.toml")
    assert [r["metric"] for r in doc["rows"]] == ["ndcg@10"]
    refused = invoke(runner, "gate", *BETTER, "--config", "ci.toml", code=2)  # its rules
    assert "ci.toml: gate.rules[0].rule must be one of" in refused.stderr
    help_text = " ".join(invoke(runner, "gate", "--help").stdout.split())
    assert "With --rule no file's rules are read" in help_text


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("[gate]\nalpha = 0.01\n", "[gate] holds no rules; add a [[gate.rules]] table per rule"),
        ("[tool.other]\nx = 1\n", "no [gate] table (no 'gate'); add a [[gate.rules]] table"),
    ],
)
def test_a_file_without_rules_says_what_to_add(repo, text, said):
    # it said "gate.rules must be a non-empty array of tables (...). Got None instead."
    (repo / "ci.toml").write_text(text)
    stderr = invoke(runner, "gate", *BETTER, "--config", "ci.toml", code=2).stderr
    assert stderr.startswith(f"error: ci.toml: {said}") and "Got None" not in stderr
    assert 'metric = "ndcg@10", rule = "non_inferiority"' in stderr


def test_with_rules_given_a_file_without_the_gate_table_is_read_for_settings(repo):
    # with --rule it told the user to add [[gate.rules]] entries, which --rule gave
    (repo / "ci.toml").write_text("[tool.other]\nx = 1\n")
    rule = [*BETTER, *FAST, "--rule", "ndcg@10=floor:0.1", "--config", "ci.toml"]
    stderr = invoke(runner, "gate", *rule, code=2).stderr
    assert stderr == (
        "error: ci.toml: no [gate] table (no 'gate'), so no settings to read (--rule gives "
        "the rules); add [gate] with the settings (e.g. alpha = 0.05), or leave out --config.\n"
    )


def test_a_bad_metric_or_margin_of_the_file_names_the_file_and_key(repo):
    rules = (repo / "receval.toml").read_text()
    (repo / "receval.toml").write_text(
        rules + '[[gate.rules]]\nmetric = "ndgc@10"\nrule = "floor"\nthreshold = 0.1\n'
    )
    result = invoke(runner, "gate", *BETTER, *FAST, code=2)
    assert result.stderr == (
        "error: receval.toml: gate.rules[3].metric: Unknown metric 'ndgc'. Did you mean "
        "'ndcg'? See receval metrics.\n"
    )
    (repo / "receval.toml").write_text(rules.replace("margin = 0.02", 'margin = "2%"'))
    result = invoke(runner, "gate", *BETTER, *FAST, code=2)
    assert result.stderr == (
        "error: receval.toml: gate.rules[1].margin must be a finite number >= 0. Got '2%' "
        "instead; write margin = 0.02 with relative = true (a share of the baseline's value).\n"
    )
    (repo / "receval.toml").unlink()
    result = invoke(runner, "gate", *BETTER, "--rule", "ndgc@10=floor:0.1", code=2)
    assert result.stderr == (
        "error: --rule 'ndgc@10=floor:0.1': metric: Unknown metric 'ndgc'. Did you mean "
        "'ndcg'? See receval metrics.\n"
    )


def test_the_verdict_is_printed_once(repo):
    verdict = "receval gate PASSED: 3 passed, 0 failed, 0 inconclusive of 3 checks."
    # on standard output, heading the table or the Markdown: not again on stderr
    for fmt in ("table", "markdown"):
        result = invoke(runner, "gate", *BETTER, *FAST, "--format", fmt, code=0)
        assert result.stdout.count(verdict) == 1 and verdict not in result.stderr
    # JSON and JUnit hold no verdict line, nor does stdout with --output: a note on stderr
    for args in (["--format", "json"], ["--format", "junit"], ["--output", "gate.md"]):
        result = invoke(runner, "gate", *BETTER, *FAST, *args, code=0)
        assert verdict not in result.stdout
        assert result.stderr.count(verdict) == 1
        assert result.stderr.endswith(f"note: {verdict}\n")


def test_a_note_is_printed_once(repo, monkeypatch):
    # -f markdown printed its notes in the Markdown on stdout and again on stderr; as
    # rank and compare, the notes go on stderr, the Markdown on stdout holds the test's
    lines = (repo / "runs" / "main.tsv").read_text().splitlines()
    (repo / "runs" / "short.tsv").write_text("\n".join(lines[:2001]) + "\n")  # 100 users
    note = "Qrels users without a list in a run (handled by missing_users): short.tsv 200."
    test = "- One-sided randomization test (DeLong's for roc_auc) of each rule"
    args = ["gate", *RUNS, "--baseline", "runs/candidate.tsv", "--candidate",
            "runs/short.tsv", *FAST]  # fmt: skip
    result = invoke(runner, *args, "-f", "markdown", code=1)
    assert note not in result.stdout and result.stderr == f"note: {note}\n"
    assert test in result.stdout
    # the table holds no note: the test's goes on stderr too (it was on neither stream)
    result = invoke(runner, *args, "-f", "table", code=1)
    assert note not in result.stdout and test[2:] not in result.stdout
    first, second = result.stderr.splitlines()
    assert first.startswith(f"note: {test[2:]}") and second == f"note: {note}"
    assert "across 2 comparisons;" in first
    one = invoke(runner, *args, "--rule", "mrr=superiority", "-f", "table", code=1).stderr
    assert "across 1 comparison;" in one  # it read "1 comparisons"
    # a file holds every note (the job summary too), and stderr says each once
    summary = repo / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = invoke(runner, *args, "-f", "markdown", "-o", "gate.md", code=1)
    assert result.stdout == "" and result.stderr.count(note) == 1
    for written in (repo / "gate.md", summary):
        assert f"- {note}\n" in written.read_text() and test in written.read_text()


def test_run_users_not_in_the_qrels_are_noted_and_counted_in_json(repo):
    # a run's users that the qrels do not hold take part in no check: said on stderr and
    # counted in the JSON, as receval compare says them
    extra = "\n".join(f"stranger{i}\t{j}\t{1.0 - j / 10}" for i in range(7) for j in range(3))
    text = (repo / "runs" / "candidate.tsv").read_text()
    (repo / "runs" / "wide.tsv").write_text(text + extra + "\n")
    args = [*RUNS, "--baseline", "runs/main.tsv", "--candidate", "runs/wide.tsv", *FAST]
    result = invoke(runner, "gate", *args, "--format", "json", code=0)
    assert json.loads(result.stdout)["run_only_users"] == {"main.tsv": 0, "wide.tsv": 7}
    assert "note: Run users not in the qrels (ignored): wide.tsv 7.\n" in result.stderr


def test_inconclusive_fails_unless_told_otherwise(repo):
    rule = ["--rule", "mrr=non_inferiority:0.0001"]
    result = invoke(runner, "gate", *WORSE[:2], "--baseline", "runs/main.tsv", "--candidate",
                    "runs/main.tsv", *rule, *FAST, code=2)  # fmt: skip
    assert result.stderr == (
        "error: --baseline 'runs/main.tsv' and --candidate 'runs/main.tsv' name the same run "
        "file; pass each run file once.\n"
    )
    (repo / "runs" / "copy.tsv").write_text((repo / "runs" / "main.tsv").read_text())
    same = [*RUNS, "--baseline", "runs/main.tsv", "--candidate", "runs/copy.tsv"]
    # identical runs: every difference 0, so nothing could go unseen: pass
    invoke(runner, "gate", *same, *rule, *FAST, code=0)
    small = [*RUNS, "--baseline", "runs/candidate.tsv", "--candidate", "runs/main.tsv",
             "--rule", "mrr=non_inferiority:10", "--alpha", "0.0001"]  # fmt: skip
    # alpha 1e-4 over 300 users with 500 sign flips: no p-value can be that small
    result = invoke(runner, "gate", *small, "--format", "json", *FAST, code=1)
    doc = json.loads(result.stdout)
    assert doc["rows"][0]["verdict"] == "inconclusive" and doc["rows"][0]["mde"] == "Infinity"
    invoke(runner, "gate", *small, "--inconclusive", "pass", *FAST, code=0)
    xml = invoke(runner, "gate", *small, "--format", "junit", *FAST, code=1).stdout
    case = ET.fromstring(xml.split("\n", 1)[1]).find("testsuite/testcase")
    assert case.find("failure").get("type") == "inconclusive"
    xml = invoke(runner, "gate", *small, "--inconclusive", "pass", "--format", "junit", *FAST,
                 code=0).stdout  # fmt: skip
    suite = ET.fromstring(xml.split("\n", 1)[1]).find("testsuite")
    assert suite.get("skipped") == "1" and suite.get("failures") == "0"
    assert suite.find("testcase/skipped").get("message").startswith("inconclusive: sample too")


def test_markdown_and_junit_outputs(repo):
    md = invoke(runner, "gate", *WORSE, *FAST, "--format", "markdown", code=1).stdout
    lines = md.splitlines()
    assert lines[0].startswith("### ❌ receval gate FAILED")
    assert lines[2].startswith("| metric | rule | candidate | baseline | value |")
    assert "win/tie/loss" in lines[2] and "adjusted p" in lines[2] and "MDE" in lines[2]
    assert sum(line.startswith("| ndcg@10") or line.startswith("| recall@20")
               for line in lines) == 3  # fmt: skip
    assert "❌ fail" in md and "significant regression beyond the margin" in md

    xml = invoke(runner, "gate", *WORSE, *FAST, "--format", "junit", code=1).stdout
    root = ET.fromstring(xml.split("\n", 1)[1])
    assert root.tag == "testsuites"
    (suite,) = root.findall("testsuite")
    cases = suite.findall("testcase")
    assert suite.get("tests") == "3" and len(cases) == 3
    failures = [c for c in cases if c.find("failure") is not None]
    assert suite.get("failures") == str(len(failures)) == "2"
    assert cases[0].get("name") == "ndcg@10 main.tsv vs candidate.tsv"
    assert cases[0].get("classname") == "receval.gate.non_inferiority"
    assert "significant regression" in failures[0].find("failure").get("message")
    assert cases[2].find("failure") is None and cases[2].get("classname").endswith("floor")


def test_json_output_file_overrides_and_step_summary(repo, monkeypatch):
    summary = repo / "summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    invoke(runner, "gate", *BETTER, *FAST, "--format", "json", "--output", "gate.json",
           "--alpha", "0.01", "--correction", "bonferroni", "--seed", "3", code=0)  # fmt: skip
    doc = json.loads((repo / "gate.json").read_text())
    assert doc["passed"] is True and doc["counts"] == {"pass": 3, "fail": 0, "inconclusive": 0}
    assert doc["settings"]["alpha"] == 0.01 and doc["settings"]["correction"] == "bonferroni"
    assert doc["settings"]["seed"] == 3 and doc["settings"]["source"] == "receval.toml"
    row = doc["rows"][0]
    assert {"difference", "ci_low", "ci_high", "effect_size", "wins", "ties", "losses",
            "p_value", "p_adjusted", "mde", "verdict", "rule"} <= set(row)  # fmt: skip
    text = summary.read_text()
    assert text.startswith("earlier step\n### ✅ receval gate PASSED")
    invoke(runner, "gate", *BETTER, *FAST, "--no-step-summary", code=0)
    assert summary.read_text() == text


def test_ctr_models_from_an_impression_log(repo):
    args = ["--impressions", "log.csv", "--label", "click", "--group", "user",
            "--baseline", "model_b", "--candidate", "model_a", *FAST]  # fmt: skip
    rules = ["--rule", "gauc=non_inferiority:0.01", "--rule", "roc_auc=non_inferiority:0.01",
             "--rule", "log_loss=non_inferiority:2%"]  # fmt: skip
    result = invoke(runner, "gate", *args, *rules, "--format", "json", code=0)
    doc = json.loads(result.stdout)
    assert [r["metric"] for r in doc["rows"]] == ["gauc", "roc_auc", "log_loss"]
    assert doc["rows"][2]["rule"] == "non-inferiority, margin 2% of the baseline"
    result = invoke(runner, "gate", *args, "--rule", "xauc=superiority", code=2)
    assert "'xauc' is not a mean over users" in result.stderr


@pytest.mark.parametrize(
    ("models", "message"),
    [
        (["--candidate", "model_a", "--candidate", "model_a"],
         "--candidate 'model_a' is given twice; pass each column once."),
        (["--baseline", "model_b", "--baseline", "model_b", "--candidate", "model_a"],
         "--baseline 'model_b' is given twice; pass each column once."),
        (["--baseline", "model_a", "--candidate", "model_a"],
         "--baseline 'model_a' and --candidate 'model_a' name the same column; pass each "
         "column once."),
    ],
)  # fmt: skip
def test_a_model_column_given_twice_is_refused(repo, models, message):
    # a repeated --candidate column was gated once, without a word
    result = invoke(runner, "gate", "--impressions", "log.csv", "--label", "click", *models,
                    "--rule", "auc=floor:0.5", code=2)  # fmt: skip
    assert result.stderr == f"error: {message}\n"


@pytest.mark.parametrize("option", ["--candidate", "--baseline"])
def test_a_score_column_not_in_the_log_names_its_option_and_the_fix(repo, option):
    # it named the option and the columns, but no fix; then offered every column
    given = {"--baseline": "model_b", "--candidate": "model_a"}
    models = given | {option: "model_x"}
    args = [a for pair in models.items() for a in pair]
    result = invoke(runner, "gate", "--impressions", "log.csv", "--label", "click", *args,
                    "--rule", "auc=floor:0.5", code=2)  # fmt: skip
    assert result.stderr == (
        f"error: log.csv: no column 'model_x' ({option} model_x). Got columns ['user', 'item', "
        f"'click', 'model_a', 'model_b']; name one of {[given[option]]} with {option}.\n"
    )


def test_ctr_bounds_on_metrics_that_are_no_mean_over_users(repo):
    # a pcoc ceiling: the candidate's pcoc against the threshold, no baseline needed
    log = pd.read_csv("log.csv")
    pcoc = float(log["model_a"].sum() / log["click"].sum())
    args = ["--impressions", "log.csv", "--label", "click", "--candidate", "model_a"]
    for threshold, code in ((pcoc * 1.01, 0), (pcoc * 0.99, 1)):
        result = invoke(runner, "gate", *args, "--rule", f"pcoc=ceiling:{threshold}",
                        "--format", "json", code=code)  # fmt: skip
        (row,) = json.loads(result.stdout)["rows"]
        assert row["candidate_value"] == pytest.approx(pcoc, rel=1e-12)
        assert row["verdict"] == ("pass" if code == 0 else "fail")
    invoke(runner, "gate", *args, "--rule", "ece=ceiling:1", "--rule", "copc=floor:0", code=0)
    refused = invoke(runner, "gate", *args, "--baseline", "model_b", "--rule",
                     "pcoc=non_inferiority:0.1", code=2)  # fmt: skip
    assert refused.stderr.startswith(
        "error: receval gate: 'pcoc' is not a mean over users, so the gate cannot pair it user by "
        "user, which a non_inferiority rule does."
    )
    assert "bound it with a floor or ceiling rule" in refused.stderr


def test_the_guides_workflow_runs(repo):
    """The GitHub Actions workflow of the guide parses, and each of its receval commands
    runs on sample data laid out as the workflow expects."""
    yaml = pytest.importorskip("yaml")
    workflow = yaml.safe_load((EXAMPLES / "receval-gate.yml").read_text())
    steps = workflow["jobs"]["gate"]["steps"]
    assert workflow["name"] and "pull_request" in workflow[True]  # YAML 1.1 reads "on" as True
    commands = [line for s in steps for line in s.get("run", "").splitlines()]
    gates = [shlex.split(c) for c in commands if c.startswith("receval ")]
    assert gates and all(g[1] == "gate" for g in gates)
    assert any("receval[cli]" in c for c in commands)
    for argv in gates:
        invoke(runner, *argv[1:], *FAST, code=0)
        root = ET.parse(repo / "receval-gate.xml").getroot()
        assert root.find("testsuite").get("tests") == "3"
    assert any(s.get("with", {}).get("path") == "receval-gate.xml" for s in steps)


def test_runs_of_other_ids_are_gated_with_allow_unmatched(repo):
    run = pd.read_csv("runs/candidate.tsv", sep="\t")
    run.assign(user="x" + run["user"].astype(str)).to_csv("runs/x.tsv", sep="\t", index=False)
    args = ["gate", *RUNS, "--baseline", "runs/main.tsv", "--candidate", "runs/x.tsv", *FAST,
            "--rule", "ndcg@10=floor:0.0", "-f", "json"]  # fmt: skip
    refused = invoke(runner, *args, code=2)
    assert refused.stderr.endswith("or pass --allow-unmatched to score the run anyway.\n")
    scored = invoke(runner, *args, "--allow-unmatched")
    assert json.loads(scored.stdout)["rows"][0]["candidate_value"] == 0.0
    ctr = invoke(runner, "gate", "--impressions", "log.csv", "--label", "click", "--baseline",
                 "model_a", "--candidate", "model_b", "--allow-unmatched", code=2)  # fmt: skip
    assert ctr.stderr == "error: --allow-unmatched goes with runs (--qrels); drop it.\n"


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--alpha", "0.7"], "--alpha must be a real number in (0.0, 0.5). Got 0.7 instead."),
        (["--seed", "-1"], "--seed must be an integer in [0, 2**63 - 1]. Got -1 instead."),
        (["--power", "1"], "--power must be a real number in (0.0, 1.0). Got 1.0 instead."),
        (
            ["--rule", "ndcg@10=non_inferiority:-0.01"],
            "--rule 'ndcg@10=non_inferiority:-0.01': margin must be a finite number >= 0. Got "
            "-0.01 instead.",
        ),
    ],
)
def test_bad_options_are_named_as_options(repo, option, message):
    result = invoke(runner, "gate", *BETTER, *FAST, *option, code=2)
    assert result.stderr == f"error: {message}\n"


def test_a_rule_given_twice_or_a_bound_at_infinity_is_bad_input(repo):
    # a copy of a comparison would be one more in the correction; a bound at infinity fails
    # or passes whatever the values: both exit 2, not 1 or 0
    twice = invoke(runner, "gate", *BETTER, "--rule", "mrr=floor:0.1", "--rule",
                   "mrr=floor:0.1", code=2)  # fmt: skip
    assert twice.stderr == "error: --rule 'mrr=floor:0.1' is given twice; pass each rule once.\n"
    alias = invoke(runner, "gate", *BETTER, "--rule", "ndcg@10=non_inferiority:0.01", "--rule",
                   "ndcg_cut_10=non_inferiority:0.01", code=2)  # fmt: skip
    assert alias.stderr == (
        "error: --rule 'ndcg_cut_10=non_inferiority:0.01' repeats --rule "
        "'ndcg@10=non_inferiority:0.01' ('ndcg_cut_10' and 'ndcg@10' name the same metric, "
        "ndcg@10); pass each rule once.\n"
    )
    infinite = invoke(runner, "gate", *BETTER, "--rule", "mrr=floor:inf", code=2)
    assert infinite.stderr == (
        "error: --rule 'mrr=floor:inf': threshold must be a finite number (the floor of mrr). "
        "Got inf instead.\n"
    )
    rule = "[[gate.rules]]\nmetric = 'mrr'\nrule = 'non_inferiority'\nmargin = 0.01\n"
    (repo / "receval.toml").write_text(rule + rule)
    copied = invoke(runner, "gate", *BETTER, *FAST, code=2)
    assert copied.stderr.startswith(
        "error: receval.toml: gate.rules[1] must be another rule than gate.rules[0]. Got "
        "'mrr: non-inferiority, margin 0.01' instead; remove one"
    )
    (repo / "receval.toml").write_text(rule + rule.replace("'mrr'", "'recip_rank'"))
    copied = invoke(runner, "gate", *BETTER, *FAST, code=2)
    assert copied.stderr.startswith(
        "error: receval.toml: gate.rules[1] must be another rule than gate.rules[0]. Got "
        "'recip_rank: non-inferiority, margin 0.01' instead; 'recip_rank' and 'mrr' name the "
        "same metric, mrr; remove one"
    )


def test_a_relative_margin_of_a_baseline_of_0_fails_its_row_saying_why(repo):
    # the baseline never ranks a relevant item: 5% of its mrr 0 is no margin (it was 0)
    users = [f"u{i}" for i in range(30)]
    pd.DataFrame({"user": users * 2, "item": ["a"] * 30 + ["b"] * 30,
                  "grade": [1] * 30 + [0] * 30}).to_csv("q.tsv", sep="\t", index=False)  # fmt: skip
    pd.DataFrame({"user": users, "item": "b", "score": 1.0}).to_csv("zero.tsv", sep="\t",
                                                                      index=False)  # fmt: skip
    (repo / "copy.tsv").write_text((repo / "zero.tsv").read_text())
    args = ["--qrels", "q.tsv", "--baseline", "zero.tsv", "--candidate", "copy.tsv"]
    result = invoke(runner, "gate", *args, "--rule", "mrr=non_inferiority:5%", *FAST,
                    "--format", "json", code=1)  # fmt: skip
    (row,) = json.loads(result.stdout)["rows"]
    assert (row["verdict"], row["margin"]) == ("fail", None)
    assert row["reason"].startswith("relative margin undefined: zero.tsv's value is 0, so 5%")
    table = invoke(runner, "gate", *args, "--rule", "mrr=non_inferiority:5%", *FAST, code=1)
    assert (
        "note: A relative margin has no size where the baseline's value is 0 or nan: 1 row "
        "fails for it, e.g. mrr: copy.tsv vs zero.tsv; give the margin in the metric's units "
        "(relative = false).\n"
    ) in table.stderr
    invoke(runner, "gate", *args, "--rule", "mrr=non_inferiority:0.05", *FAST, code=0)


def test_a_rule_splits_at_the_last_equals_sign_outside_the_metrics_parentheses(repo):
    # split at the last '=' (inside "weighting=clicks"), the kind was 'clicks)' and the fix
    # "--rule gauc(weighting=superiority"; the metric's own options stay in the metric
    args = ["--impressions", "log.csv", "--label", "click", "--group", "user",
            "--candidate", "model_a"]  # fmt: skip
    form = "METRIC=KIND[:MARGIN[%]] or METRIC=floor:VALUE / ceiling:VALUE"
    said = {
        "gauc(weighting=clicks)": f"--rule must be {form}. Got 'gauc(weighting=clicks)' "
        "instead; e.g. --rule 'gauc(weighting=clicks)=non_inferiority:0.01'.",
        "gauc(weighting=clicks)=best": "--rule 'gauc(weighting=clicks)=best': the kind must "
        "be one of ['non_inferiority', 'superiority', 'floor', 'ceiling']. Got 'best'; e.g. "
        "--rule 'gauc(weighting=clicks)=superiority'.",
        "gauc(weighting=clicks)=floor": "--rule 'gauc(weighting=clicks)=floor': a floor needs "
        "its value. Got none; e.g. --rule 'gauc(weighting=clicks)=floor:0.5'.",
    }
    for rule, message in said.items():
        assert invoke(runner, "gate", *args, "--rule", rule, code=2).stderr == f"error: {message}\n"
    rule = "gauc(weighting=clicks)=floor:0"
    doc = json.loads(invoke(runner, "gate", *args, "--rule", rule, "-f", "json", code=0).stdout)
    log = pd.read_csv(repo / "log.csv")
    clicks = gauc_score(log["click"], log["model_a"], groups=log["user"], weighting="clicks")
    assert doc["rows"][0]["candidate_value"] == pytest.approx(clicks, rel=1e-12)


def test_a_rules_written_weighting_wins_over_the_weighting_option(repo):
    # the option fills in for 'gauc'; the string's weighting=impressions (its default,
    # left out of its canonical form) is kept
    args = ["--impressions", "log.csv", "--label", "click", "--group", "user",
            "--candidate", "model_a", "--weighting", "clicks", "--format", "json"]  # fmt: skip
    rules = ["--rule", "gauc(weighting=impressions)=floor:0", "--rule", "gauc=floor:0"]
    doc = json.loads(invoke(runner, "gate", *args, *rules, code=0).stdout)
    log = pd.read_csv(repo / "log.csv")
    by = {w: gauc_score(log["click"], log["model_a"], groups=log["user"], weighting=w)
          for w in ("impressions", "clicks")}  # fmt: skip
    values = [row["candidate_value"] for row in doc["rows"]]
    assert values == pytest.approx([by["impressions"], by["clicks"]], rel=1e-12)
    assert by["impressions"] != pytest.approx(by["clicks"], rel=1e-6)


def test_geometric_means_take_a_relative_margin_and_are_tested_by_their_logarithms(repo):
    # receval gate calls receval.gate: a margin of gm_map in its own units is refused,
    # a share of the baseline's geometric mean is tested by the users' log ratios
    bad = invoke(runner, "gate", *BETTER, "--rule", "gm_map=non_inferiority:0.01", code=2)
    assert bad.stderr == (
        "error: --rule 'gm_map=non_inferiority:0.01': relative must be true with a margin "
        "above 0 on 'gm_map', a geometric mean over users: its non_inferiority rule tests "
        "the users' logarithms, where a margin in the metric's units has no exact form. Got "
        "False instead; give the margin as relative = true, a share of the baseline's "
        "geometric mean (margin = 0.02: 2 %).\n"
    )
    result = invoke(runner, "gate", *BETTER, *FAST, "--rule", "gm_map=non_inferiority:2%",
                    "-f", "json", code=0)  # fmt: skip
    (row,) = json.loads(result.stdout)["rows"]
    assert row["margin"] == pytest.approx(-math.log(0.98), rel=1e-15)
    assert row["difference"] == pytest.approx(
        math.log(row["candidate_value"] / row["baseline_value"]), abs=1e-12
    )
    assert "note: Geometric means over users (gm_map) are tested by the users' " in result.stderr


def test_a_floor_reports_the_groups_its_value_leaves_out(tmp_path):
    # the floor's row said n_users 0, n_users_skipped 0 and no note, while ctr reported
    # "gauc skips 2 of 3 groups (2 rows)" for the same value
    log = tmp_path / "imp.csv"
    log.write_text("user,label,score\nA,1,0.9\nA,0,0.2\nB,1,0.8\nC,0,0.1\n")
    result = invoke(runner, "gate", "--impressions", log, "--label", "label", "--group", "user",
                    "--candidate", "score", "--rule", "gauc=floor:0.5", "-f", "json")  # fmt: skip
    doc = json.loads(result.stdout)
    (row,) = doc["rows"]
    assert (row["n_users"], row["n_users_skipped"], row["n_rows_skipped"]) == (1, 2, 2)
    note = "gauc of score is a mean over 1 of 3 users: 2 without a value left out (2 rows)."
    assert doc["notes"] == [note] and f"note: {note}\n" in result.stderr

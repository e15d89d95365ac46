"""receval audit: the findings table, -f json and the other formats, exit codes."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import receval
from receval import InvalidParameterError
from tests.cli._helpers import invoke, make_runner

runner = make_runner()


@pytest.fixture
def files(tmp_path):
    """A clean global temporal split at t = 10 and a run that masks training items."""
    train = pd.DataFrame(
        {"user": [1, 1, 2, 2, 3, 3], "item": [10, 11, 10, 12, 11, 12], "time": [1, 2, 3, 4, 5, 6]}
    )
    test = pd.DataFrame({"user": [1, 2, 3], "item": [12, 11, 10], "time": [10, 11, 12]})
    run = pd.DataFrame(
        {
            "user": [1, 1, 2, 2, 3, 3],
            "item": [12, 13, 11, 13, 10, 13],
            "score": [0.9, 0.8, 0.7, 0.6, 0.5, 0.4],
        }
    )
    paths = {}
    for name, frame in (("train", train), ("test", test), ("run", run)):
        paths[name] = tmp_path / f"{name}.csv"
        frame.to_csv(paths[name], index=False)
    paths["leaky"] = tmp_path / "leaky.csv"
    # user 2 before its training (a grade column: the qrels of receval report)
    test.assign(time=[10, 3, 12], grade=1).to_csv(paths["leaky"], index=False)
    return paths


def test_a_clean_protocol_prints_no_finding(files):
    result = invoke(
        runner,
        "audit",
        "--train",
        files["train"],
        "--test",
        files["test"],
        "--run",
        files["run"],
        "--k",
        "2",
        "--cutoff",
        "10",
        "--strict",
    )
    assert result.stdout == ""
    assert "no finding" in result.stderr


def test_findings_table_and_strict_exit(files):
    args = ["audit", "--train", files["train"], "--test", files["leaky"], "--run", files["run"]]
    result = invoke(runner, *args, "--k", "2")
    assert "temporal_leak" in result.stdout and "error" in result.stdout
    # counted in words: it read "1 errors"
    assert "note: 2 findings: 1 error, 0 warnings, 1 note.\n" in result.stderr
    invoke(runner, *args, "--k", "2", "--strict", code=1)
    # a warning alone does not fail --strict
    args = ["audit", "--run", files["run"], "--test", files["test"], "--k", "3", "--strict"]
    result = invoke(runner, *args)
    assert "short_lists" in result.stdout


def test_json_schema(files):
    result = invoke(runner, "audit", "--train", files["train"], "--test", files["leaky"], "-f",
                    "json")  # fmt: skip
    data = json.loads(result.stdout)
    assert list(data) == ["ok", "k", "inputs", "checks", "findings"]
    assert data["ok"] is False and data["k"] is None
    (leak,) = [f for f in data["findings"] if f["check"] == "temporal_leak"]
    assert leak == {
        "check": "temporal_leak",
        "severity": "error",
        "input": "train/test",
        "count": 1,
        "total": 3,
        "share": 1 / 3,
        "unit": "test rows",
        "message": leak["message"],
        "fix": leak["fix"],
        "examples": [{"user": 2, "item": 11, "time": 3, "last_train_time": 4}],
        "details": {"n_users": 1},
    }


def test_format_option_as_every_command_has_it(files):
    # audit took --json where every other command takes -f/--format
    args = ["audit", "--train", files["train"], "--test", files["leaky"]]
    assert "No such option: --json" in invoke(runner, *args, "--json", code=2).stderr
    rows = invoke(runner, *args, "-f", "csv").stdout.splitlines()
    assert rows[0] == "severity,check,input,count,share,message,fix"
    assert any(r.startswith("error,temporal_leak,train/test,1,0.333") for r in rows[1:])
    markdown = invoke(runner, *args, "--format", "markdown", "--digits", "2").stdout
    assert markdown.startswith("| severity | check |") and "| 0.33 |" in markdown
    # a clean protocol: the table prints nothing, a file format its header
    clean = ["audit", "--test", files["test"]]
    assert invoke(runner, *clean).stdout == ""
    assert invoke(runner, *clean, "-f", "tsv").stdout == (
        "severity\tcheck\tinput\tcount\tshare\tmessage\tfix\n"
    )
    help_text = " ".join(invoke(runner, "audit", "--help").stdout.split())
    assert "-f, --format" in help_text and "--json" not in help_text


def test_bad_input_exits_with_2(files, tmp_path):
    result = invoke(runner, "audit", code=2)
    assert "nothing to audit" in result.stderr
    result = invoke(
        runner, "audit", "--train", tmp_path / "missing.csv", "--test", files["test"], code=2
    )
    assert result.stderr.startswith("error:")
    result = invoke(
        runner,
        "audit",
        "--train",
        files["train"],
        "--test",
        files["test"],
        "--time",
        "when",
        code=2,
    )
    assert "no column 'when'" in result.stderr
    result = invoke(runner, "audit", "--run", files["run"], "-m", "gauc", code=2)
    assert "gauc" in result.stderr


@pytest.mark.parametrize(("given", "shown"), [("1e400", "inf"), ("-inf", "-inf"), ("nan", "nan")])
def test_a_cutoff_that_is_no_time_exits_with_2(files, given, shown):
    # 1e400 read as infinity: exit 0 and "test interactions earlier than the cut-off inf"
    result = invoke(runner, "audit", "--train", files["train"], "--test", files["test"],
                    f"--cutoff={given}", code=2)  # fmt: skip
    assert result.stderr == (
        f"error: --cutoff must be a finite number, not NaN or infinity. Got {shown} instead; "
        "pass a time within the times' range.\n"
    )
    train, test = (pd.read_csv(files[name]) for name in ("train", "test"))
    with pytest.raises(InvalidParameterError) as raised:
        receval.audit(train, test, cutoff=float("inf"))
    assert str(raised.value).startswith(
        "The 'cutoff' parameter of audit must be a finite number, not NaN or infinity. Got inf "
    )


@pytest.mark.parametrize(
    ("given", "missing", "fix"),
    [
        (("train",), "no test", "pass --test FILE"),
        (("test",), "no train", "pass --train FILE"),
        (("run",), "no train and no test", "pass --train FILE and --test FILE"),
    ],
)
def test_a_cutoff_without_train_and_test_exits_with_2(files, given, missing, fix):
    # it was ignored: "no finding: the protocol passes the 2 checks that ran", exit 0
    options = [f"--{name}={files[name]}" for name in given]
    result = invoke(runner, "audit", *options, "--cutoff", 10, code=2)
    assert result.stderr == (
        f"error: receval audit: cutoff needs train and test, with times. Got {missing}; "
        f"{fix}, or leave --cutoff out.\n"
    )
    frames = {name: pd.read_csv(files[name]) for name in given}
    with pytest.raises(InvalidParameterError, match=f"Got {missing}; pass "):
        receval.audit(**frames, cutoff=10)


def test_report_gets_a_protocol_section_with_train(files, tmp_path):
    pytest.importorskip("matplotlib").use("Agg")
    out = tmp_path / "r.html"
    invoke(
        runner,
        "report",
        "-o",
        out,
        "--qrels",
        files["leaky"],
        "--run",
        files["run"],
        "--train",
        files["train"],
        "-m",
        "ndcg@2",
        "-q",
    )
    page = out.read_text(encoding="utf-8")
    assert '<h2 id="protocol">Protocol</h2>' in page and "<td>temporal_leak</td>" in page
    numbers = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    protocol = next(s for s in numbers["sections"] if s["heading"] == "Protocol")
    assert protocol["tables"][0]["rows"][0]["check"] == "temporal_leak"
    invoke(
        runner,
        "report",
        "-o",
        tmp_path / "s.html",
        "--qrels",
        files["leaky"],
        "--run",
        files["run"],
        "-m",
        "ndcg@2",
        "-q",
    )
    assert '<h2 id="protocol">' not in (tmp_path / "s.html").read_text(encoding="utf-8")


def test_fixes_in_the_command_line_words(files, tmp_path):
    path = tmp_path / "again.csv"
    pd.read_csv(files["test"]).assign(item=[10, 10, 11]).to_csv(path, index=False)
    result = invoke(runner, "audit", "--train", files["train"], "--test", path)
    assert "declare repeat consumption with --repeats" in result.stdout.replace("\n", " ")
    # every format, and the report's protocol section, in the same words
    args = ["--train", files["train"], "--test", files["leaky"], "--run", files["run"]]
    result = invoke(runner, "audit", *args, "--k", "2", "-f", "json")
    fixes = {f["check"]: f["fix"] for f in json.loads(result.stdout)["findings"]}
    assert "(receval split --method leave-last-out or temporal)" in fixes["temporal_leak"]
    result = invoke(runner, "audit", "--train", files["train"], "--test", path, "-f", "csv")
    assert "--repeats" in result.stdout and "repeats=True" not in result.stdout
    unmasked = tmp_path / "unmasked.csv"
    pd.read_csv(files["run"]).assign(item=[10, 13, 10, 13, 11, 13]).to_csv(unmasked, index=False)
    out = tmp_path / "r.html"
    invoke(runner, "report", "-o", out, "--qrels", files["leaky"], "--run", unmasked, "--train",
           files["train"], "-m", "ndcg@2", "-q")  # fmt: skip
    text = (tmp_path / "r.json").read_text(encoding="utf-8")
    assert "(receval rank --exclude FILE), or declare --repeats" in text
    assert "exclude=train" not in text and "repeats=True" not in text


def test_ties_rank_as_receval_rank_ranks_them(files, tmp_path):
    # user 3's items 10 (its test item) and 13 tie: rank's ties=trec puts 13 first, so
    # mrr@2 is (1 + 1 + 0.5) / 3; the audit read input order (1.0) and the report's
    # Protocol section disagreed with its Ranking section
    run = pd.read_csv(files["run"]).assign(score=[0.9, 0.8, 0.7, 0.6, 0.5, 0.5])
    path = tmp_path / "tied.csv"
    run.to_csv(path, index=False)
    args = ["audit", "--train", files["train"], "--test", files["leaky"], "--run", path,
            "--k", "2", "-m", "mrr@2", "--format", "json"]  # fmt: skip
    for options, ties, mean in (
        ([], "trec", 2.5 / 3), (["--ties", "input"], "input", 1.0),
        (["--profile", "ranx"], "input", 1.0),
    ):  # fmt: skip
        found = json.loads(invoke(runner, *args, *options).stdout)["findings"]
        tied = next(f for f in found if f["check"] == "tied_scores")
        assert tied["details"]["ties"] == ties
        assert tied["details"]["metrics"]["mrr@2"]["mean"] == pytest.approx(mean)
    table = invoke(runner, *args[:-2]).stdout.replace("\n", " ")
    assert "mrr@2 0.8333 with --ties trec" in " ".join(table.replace("│", " ").split())
    pytest.importorskip("matplotlib").use("Agg")
    out = tmp_path / "r.html"
    invoke(runner, "report", "-o", out, "--qrels", files["leaky"], "--run", path, "--train",
           files["train"], "-m", "mrr@2", "--k", "2", "-q")  # fmt: skip
    sections = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["sections"]
    ranking = next(s for s in sections if s["heading"] == "Ranking")["tables"][0]["rows"][0]
    protocol = next(s for s in sections if s["heading"] == "Protocol")["tables"][0]["rows"]
    tied = next(r for r in protocol if r["check"] == "tied_scores")
    assert ranking["mrr@2"] == tied["details"]["metrics"]["mrr@2"]["mean"] == 2.5 / 3


def test_a_column_not_in_a_file_names_its_option(tmp_path):
    # it said "test.csv: no column 'item'. Got columns [...]": no option, no fix
    train, test = tmp_path / "train.csv", tmp_path / "test.csv"
    train.write_text("user,item\nu1,a\n")
    test.write_text("user,doc\nu1,a\n")
    result = invoke(make_runner(), "audit", "--train", train, "--test", test, code=2)
    assert result.stderr == (
        f"error: {test}: no column 'item' (--item item). Got columns ['user', 'doc']; name one "
        f"of ['doc'] with --item.\n"
    )


def test_a_time_column_not_in_a_file_names_the_option_to_fix_it(files):
    result = invoke(runner, "audit", "--train", files["train"], "--test", files["test"],
                    "--time", "tt", code=2)  # fmt: skip
    assert result.stdout == ""
    assert "has no column 'tt' for the times" in result.stderr
    assert "pass --time <column name> naming one of them." in result.stderr
    assert "None" not in result.stderr


def test_an_integer_cutoff_past_2_to_the_53_is_read_exactly(tmp_path):
    """Nanosecond epoch times: --cutoff was read as a float, rounded to a time 1 ns
    earlier, so two training rows were leaks and the test row before it was none; it
    is read as the integer it spells, as receval split reads it (one split, one audit)."""
    cutoff = 1_704_067_200_000_000_001
    times = [cutoff - 2, cutoff - 1, cutoff - 1, cutoff]
    log = pd.DataFrame({"user": [1, 2, 1, 2], "item": [1, 2, 3, 4], "timestamp": times})
    paths = {name: tmp_path / f"{name}.csv" for name in ("log", "train", "test")}
    log.to_csv(paths["log"], index=False)
    invoke(runner, "split", paths["log"], "--method", "temporal", "--cutoff", cutoff,
           "-o", paths["train"], "-O", paths["test"], "-q")  # fmt: skip
    assert pd.read_csv(paths["test"])["timestamp"].tolist() == [cutoff]
    result = invoke(runner, "audit", "--train", paths["train"], "--test", paths["test"],
                    "--cutoff", cutoff, "-f", "json")  # fmt: skip
    assert "cutoff_leak" not in {f["check"] for f in json.loads(result.stdout)["findings"]}
    leaky = log.assign(timestamp=[cutoff - 2, cutoff, cutoff - 1, cutoff])  # train 1 at it
    leaky[:2].to_csv(paths["train"], index=False)
    leaky[2:].to_csv(paths["test"], index=False)  # test 1 before it
    result = invoke(runner, "audit", "--train", paths["train"], "--test", paths["test"],
                    "--cutoff", cutoff, "-f", "json")  # fmt: skip
    found = json.loads(result.stdout)["findings"]
    expected = receval.audit(leaky[:2], leaky[2:], cutoff=cutoff).findings
    assert (
        [(f["check"], f["input"], f["count"]) for f in found if f["check"] == "cutoff_leak"]
        == [(f.check, f.input, f.count) for f in expected if f.check == "cutoff_leak"]
        == [("cutoff_leak", "test", 1), ("cutoff_leak", "train", 1)]
    )

"""Errors of the commands name the commands' options, never the library's parameters,
and say what was given."""

from __future__ import annotations

import os

import pyarrow as pa
import pyarrow.csv as pcsv
import pyarrow.parquet as pq
import pytest

from tests._pipes import pipe_of
from tests.cli._helpers import invoke, make_runner

LOG = "click,a,b,user\n1,0.9,0.8,u1\n0,0.3,0.4,u1\n1,0.4,0.5,u2\n0,0.6,0.2,u2\n"


@pytest.fixture
def log(tmp_path):
    path = tmp_path / "log.csv"
    path.write_text(LOG)
    return path


def _stderr(*args):
    return invoke(make_runner(), *args, code=2).stderr


def test_compare_names_its_options(log):
    base = ["compare", "--impressions", log, "--label", "click", "--score", "a", "--score", "b"]
    stderr = _stderr(*base, "--ctr-metric", "gauc")
    assert "'gauc' needs groups; pass --group COL (e.g." in stderr and "groups=" not in stderr
    stderr = _stderr(*base, "--group", "user", "--resamples", "0")
    assert stderr == "error: --resamples must be an integer in [1, 10000000]. Got 0 instead.\n"
    stderr = _stderr(*base, "--group", "user", "--permutations", "0")
    assert stderr.startswith("error: --permutations must be")


def test_gate_rule_kind_is_checked_with_a_suggestion(log):
    stderr = _stderr("gate", "--impressions", log, "--label", "click", "--candidate", "a",
                     "--baseline", "b", "--group", "user", "--rule",
                     "gauc=non_inferiorty:0.01")  # fmt: skip
    assert stderr == (
        "error: --rule 'gauc=non_inferiorty:0.01': the kind must be one of "
        "['non_inferiority', 'superiority', 'floor', 'ceiling']. Got 'non_inferiorty'; "
        "did you mean 'non_inferiority'?\n"
    )


def test_split_names_time(tmp_path):
    path = tmp_path / "log.csv"
    path.write_text("user,item,t\n1,a,1\n1,b,2\n")
    stderr = _stderr("split", path, "-o", tmp_path / "a.parquet", "-O", tmp_path / "b.parquet")
    assert "pass --time <column name>." in stderr and "time=" not in stderr


def test_an_option_out_of_range_says_what_was_given():
    stderr = _stderr("demo", "--users", "0")
    assert "Invalid value for '--users': " in stderr
    # Typer's coercion (pydantic) names no value: receval adds it; click's names it
    assert "Got '0'; see receval demo -h." in stderr or "'--users': 0 is not in the range" in stderr


def test_a_log_of_only_a_header_says_so(tmp_path):
    path = tmp_path / "log.csv"
    path.write_text("click,a,b\n")
    for args in (["ctr", path, "--label", "click", "--score", "a"],
                 ["compare", "--impressions", path, "--label", "click", "--score", "a",
                  "--score", "b", "--ctr-metric", "logloss"]):  # fmt: skip
        assert (
            _stderr(*args)
            == f"error: {path}: the file has no rows, only its header; pass a file with rows.\n"
        )


MULTI = "click,a,b,user\n1,0.9,0.8,u1\n0,0.3,0.4,u1\n2,0.4,0.5,u2\n0,0.6,0.2,u2\n"
NOT_BINARY = "--label must hold binary labels (0/1, -1/1 or true/false). Got values "
NOT_01 = NOT_BINARY + "[0, 1, 2]; make the column 0/1 "


@pytest.mark.parametrize("metric", ["auc", "log_loss", "gauc", "ne", "brier", "pr_auc"])
def test_ctr_labels_of_three_classes_name_label(tmp_path, metric):
    # the library's fix (multi_class=, labels=[negative, positive], pos_label=) is not
    # the command's: --label holds 0/1 clicks
    path = tmp_path / "log.csv"
    path.write_text(MULTI)
    stderr = _stderr("ctr", path, "--label", "click", "--score", "a", "--group", "user",
                     "-m", metric)  # fmt: skip
    assert NOT_01 in stderr and f"{metric} of --score a: " in stderr
    for word in ("multi_class", "pos_label", "labels=", "[negative", "y_true"):
        assert word not in stderr


def test_compare_gate_report_labels_of_three_classes_name_label(tmp_path):
    path = tmp_path / "log.csv"
    path.write_text(MULTI)
    base = ["--impressions", path, "--label", "click"]
    for args in (
        ["compare", *base, "--score", "a", "--score", "b", "--ctr-metric", "log_loss"],
        ["compare", *base, "--score", "a", "--score", "b", "--group", "user"],
        ["gate", *base, "--candidate", "a", "--baseline", "b", "--rule", "auc=floor:0.1"],
        ["report", *base, "--score", "a", "-o", tmp_path / "r.html"],
        ["ctr", path, "--label", "click", "--score", "a", "--by", "user", "-m", "ne"],
    ):
        stderr = _stderr(*args)
        assert NOT_BINARY + "[" in stderr, args
        assert "y_true" not in stderr and "labels=" not in stderr, args
    assert f"{path}:4: " in stderr  # ctr --by: the file's line, not the segment's row


def test_ctr_labels_of_three_classes_name_their_line(tmp_path):
    # roc_auc_score and log_loss take three classes, so their error knew no row: the
    # command named the file alone
    path = tmp_path / "log.csv"
    path.write_text(MULTI)
    for metric in ("auc", "logloss", "gauc"):
        args = ["ctr", path, "--label", "click", "--score", "a", "--group", "user", "-m", metric]
        assert (
            _stderr(*args)
            == f"error: {path}:4: {metric} of --score a: {NOT_01}first (e.g. clicks > 0).\n"
        )
        assert _stderr(*args, "--by", "user").startswith(f"error: {path}:4: --score a: {NOT_01}")


BAD_WEIGHTS = "click,a,b,user,w\n1,0.9,0.8,u1,1\n0,0.3,0.4,u1,-2\n1,0.4,0.5,u2,{}\n0,0.6,0.2,u2,1\n"


@pytest.mark.parametrize("metric", ["auc", "logloss", "gauc", "pcoc", "ne"])
def test_ctr_weight_errors_name_the_weight_column(tmp_path, metric):
    # they named the library's parameter: "roc_auc_score: sample_weight must be ..."
    path = tmp_path / "log.csv"
    path.write_text(BAD_WEIGHTS.format(1))
    args = ["ctr", path, "--label", "click", "--score", "a", "--group", "user", "--weight", "w"]
    negative = (
        "--weight w must be non-negative. Got values [-2.0]; drop those rows or give them a "
        "weight of 0 or more.\n"
    )
    assert _stderr(*args, "-m", metric) == f"error: {path}:3: {metric} of --score a: {negative}"
    assert _stderr(*args, "-m", metric, "--by", "user") == f"error: {path}:3: --score a: {negative}"
    path.write_text(BAD_WEIGHTS.format("inf").replace("-2", "1"))
    stderr = _stderr(*args, "-m", metric)
    assert stderr.startswith(f"error: {path}:4: {metric} of --score a: --weight w contains NaN "
                             "or infinity")  # fmt: skip
    assert "sample_weight" not in stderr


def test_ctr_of_weights_all_zero_warns_of_the_weights(tmp_path):
    # both classes are there: it warned "y_true has a single class" and "has no click"
    path = tmp_path / "log.csv"
    path.write_text("click,a,w\n1,0.9,0\n0,0.3,0\n1,0.6,0\n0,0.2,0\n")
    stderr = invoke(make_runner(), "ctr", path, "--label", "click", "--score", "a", "--weight",
                    "w").stderr  # fmt: skip
    # each said of its metric and column, as ctr says its errors: it began with the
    # library's function ("roc_auc_score: ...", "log_loss: ...")
    assert stderr == (
        "warning: auc of --score a: no row has a positive --weight w, so the AUC is "
        "undefined (returned as nan).\n"
        "warning: logloss of --score a: every --weight w is zero, so the log loss is "
        "undefined (returned as nan).\n"
        "warning: pcoc of --score a: no row has a positive --weight w, so PCOC is undefined "
        "(returned as nan).\n"
    )


@pytest.mark.parametrize("by", [[], ["--by", "user"]])
def test_ctr_warnings_name_the_metric_column_and_label(tmp_path, by):
    # they read "roc_auc_score: y_true has a single class ...", once for both columns
    path = tmp_path / "log.csv"
    path.write_text("click,a,b,user\n1,0.9,0.8,u1\n1,0.3,0.4,u2\n")
    stderr = invoke(make_runner(), "ctr", path, "--label", "click", "--score", "a", "--score",
                    "b", "-m", "auc", "-m", "ne", *by).stderr  # fmt: skip
    warned = [line for line in stderr.splitlines() if line.startswith("warning: ")]
    assert warned == [
        f"warning: {metric} of --score {col}: --label has a single class, so {what} is "
        "undefined (returned as nan)."
        for col in "ab"
        for metric, what in (("auc", "the AUC"), ("ne", "the base rate's entropy is 0 and NE"))
    ]


def test_compare_and_gate_weight_errors_name_the_weight_column(tmp_path):
    path = tmp_path / "log.csv"
    path.write_text(BAD_WEIGHTS.format(1))
    base = ["--impressions", path, "--label", "click", "--group", "user", "--weight", "w"]
    for args in (["compare", *base, "--score", "a", "--score", "b"],
                 ["gate", *base, "--candidate", "a", "--baseline", "b", "--rule",
                  "gauc=floor:0.1"]):  # fmt: skip
        stderr = _stderr(*args)
        assert stderr.startswith(f"error: {path}:3: --weight w must be non-negative. "), args
        assert "sample_weight" not in stderr, args


def test_ctr_not_applicable_note_gives_the_scores_range(tmp_path):
    # it quoted the first value outside [0, 1] as where the scores "reach", had no final
    # period, and the log-loss note advised a sigmoid instead of --logits
    path = tmp_path / "log.csv"
    path.write_text("click,s\n1,0.5\n0,-1.25\n1,3.5\n0,-4.0\n")
    args = ["ctr", path, "--label", "click", "--score", "s", "-m", "auc"]
    result = invoke(make_runner(), *args, "-m", "logloss", "-m", "pcoc")
    reason = (
        "it needs probabilities in [0, 1] and the scores range over [-4, 3.5]; pass --logits "
        "if they are logits."
    )
    for metric in ("logloss", "pcoc"):
        assert f"note: s: {metric} is not applicable (left empty): {reason}\n" in result.stderr
    by = invoke(make_runner(), *args, "-m", "logloss", "--by", "click")
    assert f"note: s: logloss is not applicable (left empty): {reason}\n" in by.stderr


def test_a_parquet_file_read_as_csv_is_named_parquet(tmp_path):
    # it was "the header is not valid UTF-8 (...); save the file as UTF-8"
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "log.parquet"
    pq.write_table(pa.table({"click": [1, 0], "a": [0.5, 0.2]}), path)
    stderr = _stderr("ctr", path, "--label", "click", "--score", "a", "--input-format", "csv")
    assert stderr == (
        f"error: {path}: the file is Parquet (it starts with 'PAR1'), not CSV text; drop "
        "--input-format csv or pass --input-format parquet.\n"
    )
    misnamed = tmp_path / "log.csv"
    misnamed.write_bytes(path.read_bytes())
    stderr = _stderr("compare", "--impressions", misnamed, "--label", "click", "--score", "a",
                     "--score", "a2")  # fmt: skip
    assert stderr == (
        f"error: {misnamed}: the file is Parquet (it starts with 'PAR1'), not CSV text; pass "
        "--input-format parquet (or name the file .parquet).\n"
    )
    qrels = tmp_path / "q.tsv"
    qrels.write_text("user\titem\tgrade\nu1\ta\t1\n")
    stderr = _stderr("rank", "--qrels", qrels, "--run", path, "--run-format", "csv")
    assert stderr.endswith("not CSV text; drop --run-format csv or pass --run-format parquet.\n")


def test_a_csv_file_read_as_parquet_is_named_not_parquet(tmp_path):
    # Arrow's "Parquet magic bytes not found in footer. Either the file is corrupted or
    # this is not a parquet file." came through, with no fix
    path = tmp_path / "log.csv"
    path.write_text("click,a\n1,0.5\n0,0.2\n")
    args = ["--label", "click", "--score", "a", "--input-format", "parquet"]
    assert _stderr("ctr", path, *args) == (
        f"error: {path}: the file is not Parquet (it does not end with the bytes 'PAR1'); drop "
        "--input-format parquet or pass --input-format csv.\n"
    )
    bare = tmp_path / "log"
    bare.write_bytes(path.read_bytes())
    assert _stderr("ctr", bare, *args) == (
        f"error: {bare}: the file is not Parquet (it does not end with the bytes 'PAR1'); pass "
        "--input-format csv (or name the file .csv).\n"
    )
    misnamed = tmp_path / "log.parquet"
    misnamed.write_text("user,item,time\n1,2,3\n")
    said = (f"error: {misnamed}: the file is not Parquet (it does not end with the bytes "
            "'PAR1'); name the file .csv.\n")  # fmt: skip
    assert _stderr("split", misnamed, "--method", "random", "--seed", "0", "--n", "1") == said
    assert _stderr("audit", "--train", misnamed, "--test", misnamed) == said


def test_a_score_that_is_not_finite_is_said_of_the_scores(tmp_path):
    # "the scores contains NaN or infinity"
    path = tmp_path / "log.csv"
    path.write_text("click,a\n1,0.5\n0,inf\n")
    assert _stderr("ctr", path, "--label", "click", "--score", "a") == (
        f"error: {path}:3: auc of --score a: the scores contain NaN or infinity, the first on "
        "this line (inf); drop those rows or replace the values with finite numbers first.\n"
    )


def test_commands_without_input_format_name_the_suffix(tmp_path):
    # audit and split said "pass --input-format parquet", an option they do not have, and
    # split "scan: ...; pass --input-format parquet, 'csv' or 'tsv'"
    import pyarrow as pa
    import pyarrow.parquet as pq

    misnamed = tmp_path / "log.csv"
    pq.write_table(pa.table({"user": [1, 2], "item": [3, 4], "time": [1, 2]}), misnamed)
    parquet = (f"error: {misnamed}: the file is Parquet (it starts with 'PAR1'), not CSV "
               "text; name the file .parquet.\n")  # fmt: skip
    assert _stderr("split", misnamed) == parquet
    assert _stderr("audit", "--train", misnamed, "--test", misnamed) == parquet
    unknown = tmp_path / "log.txt"
    unknown.write_text("user,item,time\n1,2,3\n")
    assert _stderr("split", unknown) == (
        f"error: cannot tell the format of {str(unknown)!r}; name the file .parquet, .csv or "
        ".tsv.\n"
    )
    from receval.cli._translate import cli_text

    assert cli_text("scan: cannot tell the format of 'x'; pass file_format='parquet', "
                    "'csv' or 'tsv'.", "ctr") == (
        "cannot tell the format of 'x'; pass --input-format parquet, csv or tsv."
    )  # fmt: skip


def test_a_parquet_file_read_as_trec_is_named_parquet(tmp_path):
    # it was "<file>:1: expected 4 whitespace-separated fields (user iteration item grade),
    # got 1: 'PAR1\\x15...'"
    import pyarrow as pa
    import pyarrow.parquet as pq

    qrels, run = tmp_path / "q.parquet", tmp_path / "r.parquet"
    pq.write_table(pa.table({"user": ["u1"], "item": ["a"], "grade": [1]}), qrels)
    pq.write_table(pa.table({"user": ["u1"], "item": ["a"], "score": [0.5]}), run)
    parquet = "the file is Parquet (it starts with 'PAR1'), not TREC text;"
    stderr = _stderr("rank", "--qrels", qrels, "--run", run, "--qrels-format", "trec")
    assert stderr == (
        f"error: {qrels}: {parquet} drop --qrels-format trec or pass --qrels-format parquet.\n"
    )
    misnamed = tmp_path / "r.run"
    misnamed.write_bytes(run.read_bytes())
    assert _stderr("rank", "--qrels", qrels, "--run", misnamed) == (
        f"error: {misnamed}: {parquet} pass --run-format parquet (or name the file .parquet).\n"
    )


def test_by_segment_names_the_row_of_all_rows():
    # a segment's error named its row within the segment (ctr --by printed the wrong line);
    # the metric checks all the rows first, so the error is the one without by
    import receval as rv
    from receval.exceptions import InputValidationError

    with pytest.raises(InputValidationError) as caught:
        rv.by_segment(["ne"], [0, 1, 0, 2, 1], [0.1, 0.2, 0.3, 0.4, 0.5],
                      by=["b", "a", "b", "b", "a"])  # fmt: skip
    assert caught.value.row == 3 and caught.value.classes == [0, 1, 2]


@pytest.fixture
def trec(tmp_path):
    q, a, b = tmp_path / "q.txt", tmp_path / "a.txt", tmp_path / "b.txt"
    q.write_text("u1 0 d1 1\nu1 0 d2 0\nu2 0 d3 1\n")
    a.write_text("u1 Q0 d1 1 2.0 a\nu1 Q0 d2 2 1.0 a\nu2 Q0 d3 1 1.0 a\n")
    b.write_text("u1 Q0 d2 1 2.0 b\nu1 Q0 d1 2 1.0 b\nu2 Q0 d3 1 1.0 b\n")
    return q, a, b


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--baseline", "nope"], "error: --baseline must be one of ['a.txt', 'b.txt']. "),
        (["--alpha", "1.5"], "error: --alpha must be a real number in (0.0, 1.0). Got 1.5"),
        (["--confidence", "2"], "error: --confidence must be a real number in (0.0, 1.0)."),
        (["--lists", "--rbo-p", "1.5"], "error: --rbo-p must be a real number in (0.0, 1.0)."),
        (["--lists", "--list-depth", "0"], "error: --list-depth must be an integer in [1, "),
    ],
)
def test_compare_options_named_in_errors(trec, args, expected):
    # they read "The 'p' parameter of list_differences", "The 'alpha' parameter of compare"
    q, a, b = trec
    stderr = _stderr("compare", "--qrels", q, "--run", a, "--run", b, *args)
    assert expected in stderr and "parameter of" not in stderr


def test_split_and_retrieve_options_named_in_errors(tmp_path):
    log = tmp_path / "log.csv"
    log.write_text("user,item,timestamp\nu1,a,1\nu1,b,2\nu2,a,1\nu2,c,5\n")
    out = ["-o", tmp_path / "tr.csv", "-O", tmp_path / "te.csv"]
    assert _stderr("split", log, *out, "--n", "0").startswith("error: --n must be an integer")
    stderr = _stderr("split", log, *out, "--method", "ratio", "--test-fraction", "1.5")
    assert stderr.startswith("error: --test-fraction must be a real number in (0, 1).")
    stderr = _stderr("split", log, *out, "--method", "temporal", "--cutoff", "2",
                     "--quantile", "0.5")  # fmt: skip
    assert stderr.endswith("exactly one of --cutoff and --quantile. Got both: --cutoff 2, "
                           "--quantile 0.5.\n")  # fmt: skip
    assert "pass --user <column name>." in _stderr("split", log, *out, "--user", "nope")
    import numpy as np

    np.save(tmp_path / "u.npy", np.ones((2, 3), dtype=np.float32))
    stderr = _stderr("retrieve", "--users", tmp_path / "u.npy", "--items", tmp_path / "x.npy",
                     "-o", tmp_path / "run.txt")  # fmt: skip
    assert "--items file" in stderr and "item_vectors" not in stderr


def test_gate_bound_without_its_value(trec):
    q, a, b = trec
    stderr = _stderr("gate", "--qrels", q, "--candidate", a, "--baseline", b,
                     "--rule", "ndcg@10=floor")  # fmt: skip
    assert stderr == (
        "error: --rule 'ndcg@10=floor': a floor needs its value. Got none; e.g. --rule "
        "ndcg@10=floor:0.5.\n"
    )


def test_dash_output_is_standard_output(trec, tmp_path):
    # -o - was taken for an input and read from standard input: the output was lost
    q, a, b = trec
    result = invoke(make_runner(), "gate", "--qrels", q, "--candidate", a, "--baseline", b,
                    "--rule", "ndcg@10=floor:0.1", "-f", "json", "-o", "-",
                    "--no-step-summary")  # fmt: skip
    assert '"passed": true' in result.stdout
    import numpy as np

    np.save(tmp_path / "u.npy", np.eye(2, 3, dtype=np.float32))
    np.save(tmp_path / "i.npy", np.eye(3, 3, dtype=np.float32))
    result = invoke(make_runner(), "retrieve", "--users", tmp_path / "u.npy", "--items",
                    tmp_path / "i.npy", "--k", "1", "-o", "-")  # fmt: skip
    assert result.stdout.splitlines() == ["0 Q0 0 1 1.0 i.npy", "1 Q0 1 1 1.0 i.npy"]
    assert "to standard output" in result.stderr


def test_ctr_refuses_a_missing_group_or_segment(tmp_path):
    # an empty --group field pooled its rows into one group, with no count
    path = tmp_path / "log.csv"
    path.write_text("user,click,score\nu1,1,0.9\nu1,0,0.2\n,0,0.7\n,1,0.8\n")
    stderr = _stderr("ctr", path, "--label", "click", "--score", "score", "--group", "user",
                     "-m", "gauc")  # fmt: skip
    assert stderr.startswith(f"error: {path}:4: ")
    assert "--group user has no id in this row" in stderr


def test_a_ranking_metric_of_ctr_models_is_fixed_with_runs(log):
    # gate and compare said "compute it with receval rank -m ndcg@10": neither
    # command's fix; they compare runs on a ranking metric
    refused = (
        "'ndcg@10' is ndcg, a ranking metric (DCG / IDCG (0 when IDCG is 0)), not a "
        "pointwise or grouped metric; "
    )
    gate = _stderr("gate", "--impressions", log, "--label", "click", "--candidate", "a",
                   "--baseline", "b", "--rule", "ndcg@10=superiority")  # fmt: skip
    assert gate == (
        f"error: --rule: {refused}gate runs on it: pass --qrels with --candidate and "
        f"--baseline run files.\n"
    )
    compare = _stderr("compare", "--impressions", log, "--label", "click", "--score", "a",
                      "--score", "b", "--ctr-metric", "ndcg@10")  # fmt: skip
    assert compare == (
        f"error: receval compare --ctr-metric: {refused}compare runs on it: pass --qrels "
        f"with --run files and -m ndcg@10.\n"
    )
    ctr = _stderr("ctr", log, "--label", "click", "--score", "a", "-m", "ndcg@10")
    assert ctr.endswith(f"{refused}compute it with receval rank -m ndcg@10.\n")


def test_header_only_logs_and_bad_counts_say_so(tmp_path, trec):
    rounds = tmp_path / "rounds.csv"
    rounds.write_text("reward,pscore,target\n")
    # it said "ips_estimate: reward must be numeric. Got dtype object."
    assert _stderr("off-policy", rounds) == (
        f"error: {rounds}: the file has no rows, only its header; pass a file with rows.\n"
    )
    events = tmp_path / "events.csv"
    events.write_text("user,time\n")
    # it said "time must hold datetimes ... Got Arrow type null.", then "events is empty"
    assert _stderr("retention", events) == (
        f"error: {events}: the file has no rows, only its header; pass a file with rows.\n"
    )
    q, a, _ = trec
    for n in ("-5", "0"):  # "-5: no such file."
        assert _stderr("rank", "--qrels", q, "--run", a, "--catalog", n, "-m",
                       "catalog_coverage@1") == (
            f"error: --catalog must be a number of items >= 1 or a file. Got '{n}'.\n"
        )  # fmt: skip


def test_an_unwritable_step_summary_keeps_the_gates_status(trec, monkeypatch, tmp_path):
    # a passing gate exited 2 on "No such file or directory", naming no variable
    q, a, b = trec
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "none" / "summary.md"))
    result = invoke(make_runner(), "gate", "--qrels", q, "--candidate", a, "--baseline", b,
                    "--rule", "ndcg@10=floor:0.1")  # fmt: skip
    assert "warning: $GITHUB_STEP_SUMMARY names " in result.stderr
    assert "--no-step-summary skips it" in result.stderr


@pytest.mark.parametrize("option", ["--label", "--score", "--group", "--weight"])
def test_a_missing_column_names_its_option(log, option):
    # "log.csv: no column 'nope'" named no option
    args = {"--label": "click", "--score": "a", "--group": "user", "--weight": None}
    args[option] = "nope"
    flat = [a for k, v in args.items() if v for a in (k, v)]
    stderr = _stderr("ctr", log, *flat)
    assert f"no column 'nope' ({option} nope). Got columns" in stderr


def test_a_gate_of_bounds_needs_no_baseline(trec):
    # a floor bounds the candidate's own value; the gate asked for a --baseline anyway
    q, a, _ = trec
    result = invoke(make_runner(), "gate", "--qrels", q, "--candidate", a, "--rule",
                    "ndcg@10=floor:0.1", "--no-step-summary", "-f", "json")  # fmt: skip
    assert '"passed": true' in result.stdout
    stderr = _stderr("gate", "--qrels", q, "--candidate", a, "--rule", "mrr=superiority")
    assert "superiority rules need at least one --baseline" in stderr


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--propensity-clip", "0.5"], "--propensity-clip applies with --propensities;"),
        (["--segment", "x"], "--segment applies with --by;"),
        (["--k", "5"], "--k applies with --user-vectors and --item-vectors;"),
        (["--baseline", "a.txt"], "--baseline applies with several runs;"),
    ],
)
def test_rank_refuses_an_option_it_would_ignore(trec, args, expected):
    q, a, _ = trec
    assert expected in _stderr("rank", "--qrels", q, "--run", a, *args)


def test_ctr_refuses_a_score_column_given_twice(log):
    # its row was printed twice
    stderr = _stderr("ctr", log, "--label", "click", "--score", "a", "--score", "a")
    assert stderr == "error: --score 'a' is given twice; pass each column once.\n"


def test_report_names_standard_input(trec, tmp_path):
    # the JSON and the caption named the temporary copy of standard input
    import json

    from receval.cli import app

    q, a, _ = trec
    out = tmp_path / "r.html"
    result = make_runner().invoke(app, ["report", "-o", str(out), "--qrels", "-", "--run", str(a)],
                                  input=q.read_text())  # fmt: skip
    assert result.exit_code == 0, result.stderr
    names = [i["name"] for i in json.loads((tmp_path / "r.json").read_text())["inputs"]]
    assert names[0] == "<stdin>" and "receval-stdin" not in out.read_text()


@pytest.mark.parametrize("command", ["rank", "compare"])
def test_by_naming_a_user_twice_names_its_line(trec, tmp_path, command):
    # it said "EvaluationReport.by_segment: segments names a user twice", no file or user
    q, a, b = trec
    seg = tmp_path / "seg.csv"
    seg.write_text("user,segment\nu1,x\nu2,y\nu1,z\n")
    stderr = _stderr(command, "--qrels", q, "--run", a, "--run", b, "--by", seg)
    assert (
        stderr == f"error: {seg}:4: --by names the user 'u1' twice; give each user one segment.\n"
    )


def test_split_names_the_time_that_is_not_a_number(tmp_path):
    # it named row 0's '1' as "not an ISO 8601 time", where 'abc' was the bad value
    log = tmp_path / "log.csv"
    log.write_text("user,item,timestamp\nu1,a,1\nu1,b,2\nu1,c,abc\n")
    stderr = _stderr("split", log, "-o", tmp_path / "tr.csv", "-O", tmp_path / "te.csv")
    assert stderr == (
        f"error: receval split: {log}:4: the time column 'timestamp' holds 'abc' on this line, "
        f"not a number as the rows before it; fix the value, or give datetimes or ISO 8601 text.\n"
    )


@pytest.mark.parametrize("method", [["--method", "temporal", "--quantile", "0.5"], []])
@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_split_names_a_bad_time_by_its_line_alone(tmp_path, method, suffix):
    # it said "log.csv:3: ...: row 1 holds 'soon'": a 0-based row beside the 1-based line
    log = tmp_path / f"log.{suffix}"
    table = pa.table({"user": ["u1", "u1", "u2"], "item": ["a", "b", "c"],
                      "time": ["2024-01-01", "soon", "2024-01-03"]})  # fmt: skip
    if suffix == "csv":
        pcsv.write_csv(table, log)
    else:
        pq.write_table(table, log)
    stderr = _stderr("split", log, *method, "-o", tmp_path / "tr.csv", "-O", tmp_path / "te.csv")
    where = f"{log}:3" if suffix == "csv" else f"{log}: row 2"
    here = "on this line" if suffix == "csv" else "in this row"
    assert stderr.startswith(f"error: receval split: {where}: ")
    assert f"the time column 'time' holds 'soon' {here}, which is not an ISO 8601" in stderr
    assert "row 1" not in stderr


def test_demo_refuses_a_folder_before_computing(tmp_path):
    # it printed every table, then exited 2 at the write
    result = invoke(make_runner(), "demo", "-o", tmp_path, code=2)
    assert result.stdout == "" and "--out names the folder" in result.stderr


SCORES = "click,a,b\n1,0.9,2.5\n0,0.2,-1\n1,0.7,0.3\n0,0.1,0.2\n"
PROBABILITIES = (
    "the scores must contain probabilities in [0, 1]. Got values [-1.0, 2.5]; pass predicted "
    "probabilities, e.g. apply a sigmoid to raw scores.\n"
)


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["compare", "--score", "a", "--score", "b", "--ctr-metric", "logloss"],
         "logloss of --score b: "),
        (["compare", "--score", "a", "--score", "b", "--ctr-metric", "brier"],
         "brier of --score b: "),
        (["gate", "--baseline", "a", "--candidate", "b", "--rule",
          "log_loss=non_inferiority:0.01"], "log_loss of --candidate b: "),
        (["gate", "--baseline", "b", "--candidate", "a", "--rule",
          "log_loss=non_inferiority:0.01"], "log_loss of --baseline b: "),
        (["gate", "--baseline", "a", "--candidate", "b", "--rule", "pcoc=ceiling:1.1"],
         "pcoc of --candidate b: "),
    ],
)  # fmt: skip
def test_a_metric_refusing_a_score_column_names_the_column_and_its_option(tmp_path, args, said):
    # it said "g.csv:2: log_loss: y_pred must contain probabilities ...": the library's
    # argument, not the column; ctr names the metric and the column by its option
    path = tmp_path / "g.csv"
    path.write_text(SCORES)
    stderr = _stderr(*args, "--impressions", path, "--label", "click")
    assert stderr == f"error: {path}:2: {said}{PROBABILITIES}"


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["compare", "--score", "a", "--score", "b", "--ctr-metric", "log_loss"],
         "log_loss of --score a"),
        (["gate", "--baseline", "a", "--candidate", "b", "--rule",
          "log_loss=non_inferiority:0.01"], "log_loss of --candidate b"),
        (["ctr", "--score", "a", "--score", "b", "-m", "log_loss"], "log_loss of --score a"),
    ],
)  # fmt: skip
def test_labels_refused_by_a_metric_are_said_as_ctr_says_them(tmp_path, args, said):
    path = tmp_path / "lab.csv"
    path.write_text("click,a,b\n1,0.9,0.5\n2,0.2,0.1\n1,0.7,0.3\n0,0.1,0.2\n")
    if args[0] == "ctr":
        args = ["ctr", path, *args[1:]]
    else:
        args = [*args, "--impressions", path]
    stderr = _stderr(*args, "--label", "click")
    assert stderr == (f"error: {path}:3: {said}: {NOT_01}first (e.g. clicks > 0).\n")


@pytest.mark.skipif(not os.path.isdir("/dev/fd"), reason="no /dev/fd")
def test_files_through_pipes_are_read_as_standard_input_is(tmp_path):
    # a pipe (bash's <(...)) was read where a file is: "/dev/fd/63: cannot be read:
    # lseek failed" (CSV, Parquet), or Parquet qrels as TREC text
    qrels = pa.table({"user": ["u1", "u2"], "item": ["a", "b"], "grade": [1, 1]})
    sink = pa.BufferOutputStream()
    pq.write_table(qrels, sink)
    run = tmp_path / "run.txt"
    run.write_text("u1 Q0 a 1 0.9 r\nu2 Q0 b 1 0.8 r\n")
    with pipe_of(sink.getvalue().to_pybytes()) as pipe:
        ranked = invoke(make_runner(), "rank", "--qrels", pipe, "--run", run, "-m", "mrr",
                        "-f", "csv")  # fmt: skip
    assert ranked.stdout.splitlines()[1].startswith("run.txt,1.0,")
    with pipe_of(LOG.encode()) as pipe:
        ctr = invoke(make_runner(), "ctr", pipe, "--label", "click", "--score", "a", "-m",
                     "auc", "-f", "csv")  # fmt: skip
    assert ctr.stdout.splitlines()[1].startswith("a,0.75,")
    with pipe_of(LOG.encode()) as pipe:
        stderr = _stderr("ctr", pipe, "--label", "click", "--score", "c")
    assert stderr.startswith(f"error: {pipe}: no column 'c' (--score c). Got columns [")


def test_a_ctr_metric_needing_groups_is_refused_as_ctr_refuses_it(log):
    # compare said "log.csv: compare_predictions: 'gauc' needs groups; pass --group COL.",
    # gate "log.csv: gate: 'gauc' needs groups ...": the library's function, and the file
    said = "error: metric 'gauc' needs groups; pass --group COL (e.g. the user id column).\n"
    assert _stderr("compare", "--impressions", log, "--label", "click", "--score", "a",
                   "--score", "b", "--ctr-metric", "gauc") == said  # fmt: skip
    assert _stderr("gate", "--impressions", log, "--label", "click", "--baseline", "a",
                   "--candidate", "b", "--rule", "gauc=floor:0.5") == said  # fmt: skip


def test_labels_of_one_class_are_the_label_columns(tmp_path):
    # "gate: 'auc' needs y_true of 0 and 1 with both classes": the library's argument
    path = tmp_path / "one.csv"
    path.write_text("click,a,b\n1,0.9,0.8\n1,0.2,0.3\n")
    stderr = _stderr("gate", "--impressions", path, "--label", "click", "--baseline", "a",
                     "--candidate", "b", "--rule", "auc=non_inferiority:0.1")  # fmt: skip
    assert "needs --label of 0 and 1 with both classes" in stderr and "y_true" not in stderr


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["retention", "{events}", "--user", "usr"],
         "{events}: no column 'usr' (--user usr). Got columns ['user', 'time']; name one of "
         "['user'] with --user.\n"),
        (["rank", "--qrels", "{runs}", "--run", "{runs}", "--item", "doc"],
         "{runs}: no column 'doc' (--item doc). Got columns ['user', 'item', 'sc']; name one "
         "of ['item', 'sc'] with --item.\n"),
        (["rank", "--qrels", "{qrels}", "--run", "{runs}"],
         "{runs}: no column 'score' (--score score). Got columns ['user', 'item', 'sc']; name "
         "one of ['sc'] with --score.\n"),
        (["compare", "--qrels", "{qrels}", "--run", "{runs}", "--run", "{runs}.2.csv"],
         "{runs}: no column 'score' (--run-score score). Got columns ['user', 'item', 'sc']; "
         "name one of ['sc'] with --run-score.\n"),
    ],
)  # fmt: skip
def test_a_column_not_in_a_file_names_its_option(tmp_path, args, said):
    # retention, rank and compare said "ev.csv: no column 'usr'. Got columns [...]."
    files = {"events": tmp_path / "ev.csv", "runs": tmp_path / "run.csv",
             "qrels": tmp_path / "q.txt"}  # fmt: skip
    files["events"].write_text("user,time\nu1,2024-01-01\n")
    files["runs"].write_text("user,item,sc\nu1,a,1\n")
    (tmp_path / "run.csv.2.csv").write_text("user,item,score\nu1,a,1\n")
    files["qrels"].write_text("u1 0 a 1\n")
    stderr = _stderr(*(a.format(**files) for a in args))
    assert stderr == "error: " + said.format(**files)


def test_a_rules_file_that_cannot_be_read_says_why_once(tmp_path, log):
    # "[Errno 2] No such file or directory: 'x.toml'", "'utf-8' codec can't decode ..."
    base = ["gate", "--impressions", log, "--label", "click", "--baseline", "a",
            "--candidate", "b"]  # fmt: skip
    missing = tmp_path / "x.toml"
    assert _stderr(*base, "--config", missing) == (
        f"error: {missing}: cannot read the gate's configuration: No such file or directory.\n"
    )
    latin = tmp_path / "latin.toml"
    latin.write_bytes(b"# caf\xe9\n")
    assert _stderr(*base, "--config", latin) == (
        f"error: {latin}: cannot read the gate's configuration: byte 0xe9 at byte 5 is not "
        f"UTF-8; save the file as UTF-8.\n"
    )


def test_a_bad_choice_says_no_validator_words(log):
    # "Invalid value for '--format' / '-f': Value error, 'jsn' is not one of ..."
    result = invoke(make_runner(), "ctr", log, "--label", "click", "--score", "a", "-f", "jsn",
                    code=2)  # fmt: skip
    assert "'jsn' is not one of 'table'" in result.stderr and "Value error" not in result.stderr
    assert result.stdout == ""


def test_retrieval_fixes_name_the_similarity_and_k_options(tmp_path):
    import numpy as np

    users, items = tmp_path / "u.npy", tmp_path / "i.npy"
    np.save(users, np.array([[1, 0], [0, 0]], dtype=np.float32))
    np.save(items, np.array([[1, 0], [0, 1]], dtype=np.float32))
    qrels = tmp_path / "q.txt"
    qrels.write_text("0 0 0 1\n1 0 1 1\n")
    said = _stderr("retrieve", "--users", users, "--items", items, "-o", tmp_path / "r.txt",
                   "--similarity", "cosine")  # fmt: skip
    assert said.endswith("zero vector, whose cosine is undefined; use --similarity dot or "
                         "drop it.\n")  # fmt: skip
    vectors = ["--user-vectors", users, "--item-vectors", items]
    said = _stderr("rank", "--qrels", qrels, *vectors, "-m", "mrr")
    assert "pass --k 100 (the items to retrieve per user) or give them a cutoff" in said
    assert "k=" not in said


@pytest.mark.parametrize(
    ("times", "said"),
    [
        ("1700000000000000", "time holds a time outside the years 1 to 9999 (1700000000000000 "
                             "seconds from 1970); check --time-unit."),
        ("0", "the events span 19676 days (from 1970-01-01 to 2023-11-14); at most 4000 are "
              "supported, as the cohort table has a row and a column per period; pass a longer "
              "period (--period week or --period month), or check --time-unit."),
    ],
)  # fmt: skip
def test_retention_names_time_unit_by_its_option(tmp_path, times, said):
    # it said "check time_unit.", a parameter of receval.retention
    events = tmp_path / "events.csv"
    events.write_text(f"user,time\nu1,{times}\nu2,1700000000\n")
    assert _stderr("retention", events, "--time-unit", "s") == f"error: receval retention: {said}\n"


def test_retention_names_itself_before_the_file_of_a_data_error(tmp_path):
    # it said "error: events.csv: retention: signup holds ...": the library's function
    # after the file, where every command begins its errors with "receval <command>:"
    events = tmp_path / "events.csv"
    events.write_text("user,time\n1,2020-01-01\n")
    stderr = _stderr("retention", events, "--signup", "user")
    assert stderr.startswith(f"error: receval retention: {events}: signup holds numbers ")
    assert "retention: signup" not in stderr


def test_a_list_metric_names_the_command_and_its_metric(trec):
    # it said "error: catalog_coverage: --catalog must ...", where every other message
    # of the command begins "receval rank"
    q, a, _ = trec
    stderr = _stderr("rank", "--qrels", q, "--run", a, "-m", "catalog_coverage@2", "--catalog",
                     "1")  # fmt: skip
    assert stderr == (
        "error: receval rank -m catalog_coverage: --catalog must be at least the number of "
        "distinct recommended items. Got --catalog 1 for 3 recommended items; pass the size "
        "of the whole catalogue, or its item ids.\n"
    )


def test_novelty_of_items_not_in_train_gives_a_fix_the_command_can_follow(trec, tmp_path):
    # it said "pass unseen='skip'", a keyword of receval.novelty that no option gives
    q, a, _ = trec
    train = tmp_path / "train.csv"
    train.write_text("user,item\nu1,d1\n")
    stderr = _stderr("rank", "--qrels", q, "--run", a, "-m", "novelty@2", "--train", train)
    assert stderr == (
        "error: receval rank -m novelty: --train must contain every recommended item, whose "
        "popularity novelty needs. Got 2 items ['d2', 'd3'] that never occur in it; pass a "
        "--train log in which every recommended item occurs, or leave them out of each "
        "user's mean in Python with receval.novelty(run, interactions, unseen='skip').\n"
    )


def test_every_function_rank_computes_a_metric_by_names_the_metric():
    # the functions are the registry's: none is left with its library name
    from receval.cli._translate import cli_text
    from receval.registry import list_metrics

    own = [entry for entry in list_metrics("list") if entry.function != "evaluate"]
    assert own
    for entry in own:
        said = cli_text(f"{entry.function}: the run recommends no item.", "rank")
        assert said == f"receval rank -m {entry.name}: the run recommends no item."
        said = cli_text(f"q.csv: row 2: {entry.function}: bad.", "rank")
        assert said == f"receval rank -m {entry.name}: q.csv: row 2: bad."


@pytest.mark.parametrize(
    ("text", "command", "expected"),
    [
        ("rank: propensities must lie in (0, 1].", "rank",
         "receval rank: --propensities must lie in (0, 1]."),
        ("catalog_coverage: catalog must contain every recommended item.", None,
         "catalog_coverage: --catalog must contain every recommended item."),
        ("evaluate: interactions must contain every recommended item.", "rank",
         "receval rank: --train must contain every recommended item."),
        ("q.csv: row 2: evaluate: popularity counts must be finite numbers >= 0.", "rank",
         "receval rank: q.csv: row 2: --popularity counts must be finite numbers >= 0."),
        # only the subject: the same word elsewhere, or a value's own key, stays as it is
        ("evaluate: the popularity model needs train.", "rank",
         "receval rank: the popularity model needs train."),
        ("gate: candidates['a'] must hold one score per row.", None,
         "gate: candidates['a'] must hold one score per row."),
    ],
)  # fmt: skip
def test_an_argument_named_bare_is_its_option(text, command, expected):
    # the data of a FILE option begins a message bare ("evaluate: propensities must
    # ..."): only "propensities=" was rewritten
    from receval.cli._translate import cli_text

    assert cli_text(text, command) == expected

"""The ``receval`` command: output formats, agreement with the library, exit codes, messages.

Most cases run in-process through Typer's ``CliRunner``; a few run ``python -m
receval.cli`` (and the installed ``receval`` script) in a subprocess, end to end.
"""

from __future__ import annotations

import csv
import io
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pcsv
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from receval import (
    Qrels,
    Run,
    average_precision_score,
    break_even_point,
    brier_score_loss,
    by_segment,
    copc,
    evaluate,
    expected_calibration_error,
    explained_variance_score,
    gauc_score,
    group_auc,
    log_loss,
    mean_absolute_error,
    normalized_entropy,
    pcoc,
    pr_auc_score,
    r2_score,
    retention,
    roc_auc_score,
    root_mean_squared_error,
)
from receval.cli._app import DEFAULT_CTR_METRICS, DEFAULT_RANK_METRICS
from receval.cli._output import OutputFormat, ResultTable, render_sections
from receval.exceptions import InvalidParameterError
from receval.registry import resolve
from receval.registry.pointwise import pointwise_adapter
from tests.cli._helpers import invoke, make_runner

GRADE_FIX = "; write grades as integers such as 0, 1 or 2 (is a column missing or out of order?)"

#: the pointwise metrics of receval ctr -m, by the names the tests write
CTR_NAMES = ["auc", "gauc", "logloss", "pcoc", "copc", "average_precision", "pr_auc", "bep",
             "ece", "rmse", "mae", "ne", "brier", "r2", "explained_variance"]  # fmt: skip

TOL = 1e-12

QRELS = """\
u1 0 a 2
u1 0 b 1
u1 0 e 0
u2 0 c 1
u2 0 d 3
u3 0 d 1
u4 0 f 0
"""
RUN_A = """\
u1 Q0 a 1 0.9 A
u1 Q0 c 2 0.5 A
u1 Q0 b 3 0.1 A
u2 Q0 c 1 0.7 A
u2 Q0 a 2 0.2 A
u2 Q0 d 3 0.2 A
u4 Q0 f 1 0.3 A
u9 Q0 a 1 1.0 A
"""
RUN_B = """\
u1 Q0 b 1 0.9 B
u1 Q0 a 2 0.8 B
u2 Q0 d 1 0.7 B
u3 Q0 a 1 0.4 B
u3 Q0 d 2 0.1 B
u4 Q0 a 1 0.3 B
"""
IMPRESSIONS = """\
user,click,m1,m2,w
a,1,0.9,0.6,1
a,0,0.3,0.2,2
a,0,0.5,0.7,1
b,0,0.6,0.1,1
b,1,0.4,0.5,3
b,1,0.8,0.9,1
c,0,0.2,0.3,1
d,1,0.7,0.7,2
d,0,0.7,0.4,1
"""
EVENTS = """\
uid,ts
a,2024-01-01 09:00
a,2024-01-02 10:00
b,2024-01-01 12:00
b,2024-01-04 08:00
c,2024-01-02 23:00
c,2024-01-03 01:00
d,2024-01-03 08:00
a,2024-01-04 08:00
"""


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("cli")
    out = {}
    for name, text in [
        ("qrels", ("q.qrels", QRELS)),
        ("run_a", ("a.run", RUN_A)),
        ("run_b", ("b", RUN_B)),  # no suffix: read as TREC
        ("impressions", ("imp.csv", IMPRESSIONS)),
        ("events", ("events.csv", EVENTS)),
    ]:
        path = root / text[0]
        path.write_text(text[1])
        out[name] = path
    # the same run as CSV and the impressions as Parquet
    rows = [line.split() for line in RUN_A.splitlines()]
    out["run_csv"] = root / "a.csv"
    out["run_csv"].write_text("uid,iid,pred\n" + "".join(f"{r[0]},{r[2]},{r[4]}\n" for r in rows))
    table = pcsv.read_csv(out["impressions"])
    out["impressions_pq"] = root / "imp.parquet"
    pq.write_table(table, out["impressions_pq"])
    return out


@pytest.fixture(scope="module")
def runner() -> CliRunner:
    return make_runner()


def close(a: float | None, b: float) -> bool:
    if a is None:
        return math.isnan(b)
    return abs(a - b) <= TOL


# ------------------------------------------------------------------ import cost
def test_import_receval_loads_no_cli_and_no_metric_module() -> None:
    code = (
        "import sys, receval, receval.registry\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('typer', 'rich', 'click')"
        " or m.startswith(('receval.cli', 'receval.metrics'))]\n"
        "assert not bad, bad\n"
        "assert receval.registry.resolve('auc').name == 'roc_auc'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# ------------------------------------------------------------------ POINTWISE_METRICS
def test_pointwise_registry_matches_library_functions() -> None:
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 60)
    s = rng.random(60)
    g = rng.integers(0, 6, 60)
    w = rng.integers(1, 4, 60).astype(float)
    expected = {
        "auc": roc_auc_score(y, s, sample_weight=w),
        "gauc": gauc_score(y, s, groups=g, sample_weight=w),
        "logloss": log_loss(y, s, sample_weight=w),
        "pcoc": pcoc(y, s, sample_weight=w),
        "copc": copc(y, s, sample_weight=w),
        "average_precision": average_precision_score(y, s, sample_weight=w),
        "pr_auc": pr_auc_score(y, s, sample_weight=w),
        "bep": break_even_point(y, s, sample_weight=w),
        "ece": expected_calibration_error(y, s, sample_weight=w),
        "rmse": root_mean_squared_error(y, s, sample_weight=w),
        "mae": mean_absolute_error(y, s, sample_weight=w),
        "ne": normalized_entropy(y, s, sample_weight=w),
        "brier": brier_score_loss(y, s, sample_weight=w),
        "r2": r2_score(y, s, sample_weight=w),
        "explained_variance": explained_variance_score(y, s, sample_weight=w),
    }
    assert set(CTR_NAMES) == set(expected)
    for name in CTR_NAMES:
        func, description, needs_group, counted = pointwise_adapter(resolve(name))
        assert description and needs_group == (name == "gauc")
        assert func(y, s, groups=g, sample_weight=w) == expected[name]
        if counted is not None:
            assert counted(y, s, groups=g, sample_weight=w)[0] == expected[name]


def test_pointwise_metric_lookup_is_deprecated() -> None:
    import receval.registry

    with pytest.warns(DeprecationWarning, match="use receval.registry.resolve"):
        assert receval.registry.pointwise_metric(" AUC ").description == (
            resolve("roc_auc").info.description
        )
    with pytest.warns(DeprecationWarning, match="list_metrics"):
        assert "auc" in receval.registry.POINTWISE_METRICS
    with pytest.raises(InvalidParameterError) as err, pytest.warns(DeprecationWarning):
        receval.registry.pointwise_metric("acu")
    assert str(err.value) == "Unknown metric 'acu'. Did you mean 'auc'? See receval.list_metrics()."


# ------------------------------------------------------------------ rank
def test_rank_table_has_metric_names_and_values(runner, files) -> None:
    result = invoke(runner, "rank", "--qrels", files["qrels"], "--run", files["run_a"])
    report = evaluate(
        Qrels.from_file(files["qrels"]), Run.from_file(files["run_a"]), list(DEFAULT_RANK_METRICS)
    )
    for metric in DEFAULT_RANK_METRICS:
        assert metric in result.stdout
        assert f"{report.mean[metric]:.4f}" in result.stdout
    assert "a.run" in result.stdout
    assert "note: a.run: 1 of 4 qrels users is absent from the run." in result.stderr
    assert "note: a.run: 1 run user is not in the qrels (ignored)." in result.stderr


def test_rank_json_equals_evaluate_for_each_run(runner, files) -> None:
    metrics = ["ndcg@2", "NDCG@10", "map@100", "mrr", "recall@2", "hr@2", "r_precision"]
    args = [f for m in metrics for f in ("-m", m)]
    result = invoke(
        runner, "rank", "--qrels", files["qrels"], "--run", files["run_a"],
        "--run", files["run_b"], *args, "--format", "json",
    )  # fmt: skip
    records = json.loads(result.stdout)
    assert [r["run"] for r in records] == ["a.run", "b"]
    q = Qrels.from_file(files["qrels"])
    for record, path in zip(records, (files["run_a"], files["run_b"]), strict=True):
        report = evaluate(q, Run.from_file(path, file_format="trec"), metrics)
        assert list(record) == ["run", *metrics, "counts"]
        for m in metrics:
            assert close(record[m], report.mean[m])
        assert record["counts"] == {
            "n_users": report.n_users,
            "n_users_missing": report.n_users_missing,
            "n_run_only_users": report.n_run_only_users,
            "n_users_skipped": {m: report.n_users_skipped[m] for m in metrics},
            "n_users_skipped_by": {m: report.n_users_skipped_by[m] for m in metrics},
            "n_users_empty": {m: report.n_users_empty[m] for m in metrics},
            "n_run_items": report.n_run_items,
            "n_run_items_unmatched": report.n_run_items_unmatched,
            "n_users_tie_dependent": {m: report.n_users_tie_dependent[m] for m in metrics},
            "mean_ties_average": {
                m: report.mean_ties_average.get(m, report.mean[m]) for m in metrics
            },
        }


def test_rank_conventions_are_passed_to_evaluate(runner, files) -> None:
    options = {"gain": "exponential", "rel_threshold": 2, "empty_users": "zero", "ties": "input"}
    flags = [x for k, v in options.items() for x in (f"--{k.replace('_', '-')}", v)]
    metrics = ["ndcg@3", "map@10", "recall@2"]
    result = invoke(
        runner, "rank", "--qrels", files["qrels"], "--run", files["run_a"], "--profile",
        "trec_eval", *flags, *(x for m in metrics for x in ("-m", m)), "-f", "json",
    )  # fmt: skip
    [record] = json.loads(result.stdout)
    report = evaluate(
        Qrels.from_file(files["qrels"]), Run.from_file(files["run_a"]), metrics,
        profile="trec_eval", **options,
    )  # fmt: skip
    for m in metrics:
        assert close(record[m], report.mean[m])


def test_rank_csv_run_with_named_columns(runner, files) -> None:
    result = invoke(
        runner, "rank", "--qrels", files["qrels"], "--run", files["run_csv"], "--user", "uid",
        "--item", "iid", "--score", "pred", "-m", "ndcg@3", "-f", "json", "-q",
    )  # fmt: skip
    assert result.stderr == ""
    [record] = json.loads(result.stdout)
    expected = evaluate(Qrels.from_file(files["qrels"]), Run.from_file(files["run_a"]), "ndcg@3")
    assert record["run"] == "a.csv"
    assert close(record["ndcg@3"], expected.mean["ndcg@3"])


def test_rank_per_user(runner, files) -> None:
    metrics = ["ndcg@2", "mrr"]
    args = ["rank", "--qrels", files["qrels"], "--run", files["run_a"], "--run", files["run_b"]]
    args += ["-m", "ndcg@2", "-m", "mrr", "--per-user"]
    records = json.loads(invoke(runner, *args, "-f", "json").stdout)
    q = Qrels.from_file(files["qrels"])
    expected = []
    for path, name in ((files["run_a"], "a.run"), (files["run_b"], "b")):
        report = evaluate(q, Run.from_file(path, file_format="trec"), metrics)
        for i, user in enumerate(report.users):
            expected.append((user, name, *(report.values[m][i] for m in metrics)))
    assert len(records) == len(expected) == 8
    for record, (user, name, *values) in zip(records, expected, strict=True):
        assert list(record) == ["user", "run", *metrics]
        assert (record["user"], record["run"]) == (user, name)
        assert all(close(record[m], v) for m, v in zip(metrics, values, strict=True))
    assert any(r["mrr"] is None for r in records)  # u4 has no relevant item: skipped, null
    lines = invoke(runner, *args, "-f", "csv").stdout.splitlines()
    assert lines[0] == "user,run,ndcg@2,mrr" and len(lines) == 9
    assert "u4,a.run,nan,nan" in lines


@pytest.mark.parametrize("fmt", ["csv", "tsv", "markdown"])
def test_rank_text_formats(runner, files, fmt) -> None:
    result = invoke(
        runner, "rank", "--qrels", files["qrels"], "--run", files["run_a"], "--run",
        files["run_b"], "-m", "ndcg@2", "-m", "mrr", "-f", fmt, "--digits", "3",
        "--test", "none",  # no significance letters (see test_compare_cli.py)
    )  # fmt: skip
    q = Qrels.from_file(files["qrels"])
    means = [
        evaluate(q, Run.from_file(p, file_format="trec"), ["ndcg@2", "mrr"]).mean
        for p in (files["run_a"], files["run_b"])
    ]
    lines = result.stdout.splitlines()
    if fmt == "markdown":
        assert lines[0] == "| run | ndcg@2 | mrr |"
        assert lines[1] == "|---|---:|---:|"
        assert lines[2] == f"| a.run | {means[0]['ndcg@2']:.3f} | {means[0]['mrr']:.3f} |"
        assert len(lines) == 4
        return
    rows = list(csv.reader(io.StringIO(result.stdout), delimiter="," if fmt == "csv" else "\t"))
    metrics = ("ndcg@2", "mrr")
    reasons = ("empty_users", "missing_users", "zero_users", "no_value")
    counts = ["n_users", "n_users_missing", "n_run_only_users"] + [
        f"n_users_skipped:{m}" for m in metrics
    ]
    counts += [f"n_users_skipped_by:{m}:{r}" for m in metrics for r in reasons]
    counts += [f"n_users_empty:{m}" for m in metrics]
    ties = [f"{c}:{m}" for c in ("n_users_tie_dependent", "mean_ties_average") for m in metrics]
    assert rows[0] == ["run", *metrics, *counts, "n_run_items", "n_run_items_unmatched", *ties]
    assert rows[1][3:8] == ["4", "1", "1", "1", "1"]
    assert rows[1][8:16] == ["1", "0", "0", "0"] * 2  # without a relevant item
    assert rows[1][16:18] == ["1", "1"]
    assert [r[0] for r in rows[1:]] == ["a.run", "b"]
    for row, mean in zip(rows[1:], means, strict=True):  # full precision: exact round trip
        assert float(row[1]) == mean["ndcg@2"] and float(row[2]) == mean["mrr"]


def test_rank_default_metrics_and_qrels_as_parquet(runner, files, tmp_path) -> None:
    lines = [line.split() for line in QRELS.splitlines()]
    path = tmp_path / "qrels.parquet"
    pq.write_table(
        pa.table({"user": [r[0] for r in lines], "item": [r[2] for r in lines],
                  "grade": [int(r[3]) for r in lines]}),
        path,
    )  # fmt: skip
    records = json.loads(
        invoke(runner, "rank", "--qrels", path, "--run", files["run_a"], "-f", "json").stdout
    )
    assert list(records[0]) == ["run", *DEFAULT_RANK_METRICS, "counts"]
    report = evaluate(
        Qrels.from_file(files["qrels"]), Run.from_file(files["run_a"]), list(DEFAULT_RANK_METRICS)
    )
    assert all(close(records[0][m], report.mean[m]) for m in DEFAULT_RANK_METRICS)


def test_rank_errors(runner, files, tmp_path) -> None:
    bad = tmp_path / "bad.run"
    bad.write_text("u1 Q0 a 1 0.9 x\nu1 Q0 b 2 0.8\n")
    base = ["rank", "--qrels", files["qrels"]]
    cases = [
        ([*base, "--run", tmp_path / "nope.run"], f"{tmp_path / 'nope.run'}: no such file."),
        (
            [*base, "--run", bad],
            f"{bad}:2: expected at least 6 whitespace-separated fields "
            f"(user Q0 item rank score tag), "
            f"got 5: 'u1 Q0 b 2 0.8'; give every line these fields, separated by spaces or tabs.",
        ),
        (
            [*base, "--run", files["run_a"], "-m", "ndcg@10", "-m", "ndgc@5"],
            "receval rank -m: unknown metric 'ndgc'. Did you mean 'ndcg'? See receval metrics.",
        ),
        (
            [*base, "--run", files["run_a"], "--ties", "random"],
            "--ties must be one of ['average', 'id_ascending', 'id_descending', 'input', "
            "'trec', 'worst']. Got 'random' instead.",
        ),
        (
            [*base, "--run", files["run_a"], "--qrels-format", "csv"],
            f"{files['qrels']}: no column 'user' (--user user). Got columns ['u1 0 a 2']; its "
            f"first line, 'u1 0 a 2', looks like a line of a TREC qrels file (4 fields "
            f"separated by whitespace), so pass --qrels-format trec.",
        ),
    ]
    for args, message in cases:
        result = invoke(runner, *args, code=2)
        assert result.stdout == ""
        assert result.stderr == f"error: {message}\n"
    quiet = invoke(runner, *cases[0][0], "--quiet", code=2)  # errors survive --quiet
    assert quiet.stderr == f"error: {cases[0][1]}\n"


def test_rank_reports_a_bad_qrels_file_before_a_bad_run(runner, files, tmp_path) -> None:
    # the qrels are read on a thread of their own while the first run is read
    bad_qrels, bad_run = tmp_path / "bad.qrels", tmp_path / "bad.run"
    bad_qrels.write_text("u1 0 a 1\nu1 0 b x\n")
    bad_run.write_text("u1 Q0 a 1 0.9 x\nu1 Q0 b 2 0.8\n")
    qrels_error = f"error: {bad_qrels}:2: the grade 'x' is not an integer{GRADE_FIX}.\n"
    for runs in ([bad_run], [files["run_a"]], [files["run_a"], bad_run]):
        args = [arg for r in runs for arg in ("--run", r)]
        result = invoke(runner, "rank", "--qrels", bad_qrels, *args, code=2)
        assert result.stderr == qrels_error and result.stdout == ""
    missing = invoke(runner, "rank", "--qrels", tmp_path / "no.qrels", "--run", bad_run, code=2)
    assert missing.stderr == f"error: {tmp_path / 'no.qrels'}: no such file.\n"
    # good qrels: the run's error
    result = invoke(runner, "rank", "--qrels", files["qrels"], "--run", bad_run, code=2)
    assert result.stderr.startswith(f"error: {bad_run}:2: expected at least 6")


def test_usage_errors_exit_2(runner, files) -> None:
    result = invoke(runner, "rank", "--run", files["run_a"], code=2)  # no --qrels
    assert result.stdout == "" and "--qrels" in result.stderr
    invoke(runner, "rank", "--qrels", files["qrels"], "--run", files["run_a"], "-f", "xml", code=2)
    assert invoke(runner, "--version").stdout.startswith("receval ")


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["ctr", "{impressions}", "--label", "click", "--score", "m1", "--digits", "20"],
         "receval ctr: Invalid value for '--digits': Input should be less than or equal to 17. "
         "Got '20'; see receval ctr -h."),
        (["ctr", "{impressions}", "--label", "click", "--score", "m1", "-f", "bogus"],
         "receval ctr: Invalid value for '--format' / '-f': 'bogus' is not one of 'table', "
         "'json', 'csv', 'tsv', 'markdown', 'latex'; see receval ctr -h."),
        (["retrieve", "--users", "u.npy", "--items", "i.npy", "-o", "x", "--k", "0"],
         "receval retrieve: Invalid value for '--k': Input should be greater than or equal to "
         "1. Got '0'; see receval retrieve -h."),
        (["rank", "--qrels", "{qrels}", "--run", "{run_a}", "--depth", "-1"],
         "receval rank: Invalid value for '--depth': Input should be greater than or equal to "
         "0. Got '-1'; see receval rank -h."),
        (["retrieve", "--users", "u.npy", "--items", "i.npy"],
         "receval retrieve: Missing option '--output' / '-o'; see receval retrieve -h."),
        (["rank", "--qrels", "-", "--run", "-"],
         "receval rank: Invalid value for '--run': standard input ('-') is already read by "
         "--qrels; only one input can come from standard input; see receval rank -h."),
        (["rank", "--qrels", "{qrels}", "--run", "{run_a}", "--bogus"],
         "receval rank: No such option: --bogus; see receval rank -h."),
        (["--bogus"], "receval: No such option: --bogus; see receval -h."),
        (["rnak"], "receval: No such command 'rnak'. Did you mean 'rank'? See receval -h."),
    ],
)  # fmt: skip
def test_usage_errors_are_one_error_line(runner, files, args, said) -> None:
    # they were click's "Usage: ... Try 'receval ctr -h' for help. Error: ..." lines
    # where every other error of the command is one 'error: <message>' line
    result = invoke(runner, *[a.format(**files) for a in args], code=2)
    assert result.stdout == ""
    if "Input should be" in said:  # pydantic's words; a Typer that coerces with click's differ
        named = said.partition(": Input")[0]  # the command and the option
        assert result.stderr.startswith(f"error: {named}: ") and result.stderr.count("\n") == 1
        assert result.stderr.endswith(said[said.index(";") :] + "\n")
    else:
        assert result.stderr == f"error: {said}\n"


# ------------------------------------------------------------------ ctr
def _impressions() -> dict[str, np.ndarray]:
    table = pcsv.read_csv(io.BytesIO(IMPRESSIONS.encode()))
    return {name: table.column(name).to_numpy() for name in table.column_names}


def test_ctr_table(runner, files) -> None:
    result = invoke(runner, "ctr", files["impressions"], "--label", "click", "--score", "m1",
                    "--score", "m2", "--group", "user")  # fmt: skip
    d = _impressions()
    for name in DEFAULT_CTR_METRICS:
        assert name in result.stdout
    for col in ("m1", "m2"):
        assert col in result.stdout
        assert f"{roc_auc_score(d['click'], d[col]):.4f}" in result.stdout
        assert f"{gauc_score(d['click'], d[col], groups=d['user']):.4f}" in result.stdout
    assert "9 impressions" in result.stdout


@pytest.mark.parametrize("key", ["impressions", "impressions_pq"])
def test_ctr_json_equals_library(runner, files, key) -> None:
    names = list(CTR_NAMES)
    result = invoke(
        runner, "ctr", files[key], "--label", "click", "--score", "m1", "--score", "m2",
        "--group", "user", "--weight", "w", *(x for n in names for x in ("-m", n)), "-f", "json",
    )  # fmt: skip
    records = json.loads(result.stdout)
    d = _impressions()
    assert [r["score"] for r in records] == ["m1", "m2"]
    for record in records:
        s = d[record["score"]]
        assert list(record) == ["score", *names, "counts"]
        report = group_auc(d["click"], s, groups=d["user"], sample_weight=d["w"])
        assert record["counts"] == {
            "n_rows": len(d["click"]),
            "gauc": {
                "n_groups": report.n_groups,
                "n_groups_skipped": report.n_groups_skipped,
                "n_rows_skipped": report.n_rows_skipped,
            },
        }
        assert close(record["auc"], roc_auc_score(d["click"], s, sample_weight=d["w"]))
        assert close(
            record["gauc"], gauc_score(d["click"], s, groups=d["user"], sample_weight=d["w"])
        )
        assert close(record["logloss"], log_loss(d["click"], s, sample_weight=d["w"]))
        assert close(record["pcoc"], pcoc(d["click"], s, sample_weight=d["w"]))
        assert close(record["brier"], brier_score_loss(d["click"], s, sample_weight=d["w"]))
        for name in names:
            func = pointwise_adapter(resolve(name)).func
            assert close(record[name], func(d["click"], s, groups=d["user"], sample_weight=d["w"]))


def test_ctr_default_metrics_without_group(runner, files) -> None:
    result = invoke(runner, "ctr", files["impressions"], "--label", "click", "--score", "m1",
                    "-f", "csv")  # fmt: skip
    header, row = result.stdout.splitlines()
    assert header.split(",") == [
        "score",
        *(m for m in DEFAULT_CTR_METRICS if m != "gauc"),
        "n_rows",
    ]
    d = _impressions()
    assert float(row.split(",")[1]) == roc_auc_score(d["click"], d["m1"])


def test_ctr_undefined_metric_warns_and_gives_null(runner, tmp_path) -> None:
    path = tmp_path / "zero.csv"
    path.write_text("click,m1\n0,0.1\n0,0.3\n")
    args = ["ctr", path, "--label", "click", "--score", "m1", "-m", "auc", "-f", "json"]
    result = invoke(runner, *args)
    assert json.loads(result.stdout) == [{"score": "m1", "auc": None, "counts": {"n_rows": 2}}]
    # in the command's words: it said "roc_auc_score: y_true has a single class"
    assert result.stderr.startswith("warning: auc of --score m1: --label has a single class")
    assert invoke(runner, *args, "--quiet").stderr == ""


def test_ctr_json_keeps_the_sign_of_an_infinite_value(runner, tmp_path) -> None:
    # one class: r2 without force_finite is -inf (it read null, as a nan would)
    path = tmp_path / "ones.csv"
    path.write_text("click,m1\n1,0.1\n1,0.3\n")
    result = invoke(runner, "ctr", path, "--label", "click", "--score", "m1",
                    "-m", "r2(force_finite=false)", "-f", "json")  # fmt: skip
    assert r2_score([1, 1], [0.1, 0.3], force_finite=False) == -math.inf
    record = json.loads(result.stdout)[0]
    assert record["r2(force_finite=false)"] == "-Infinity"


def test_render_sections_json_writes_infinities_with_their_sign() -> None:
    table = ResultTable(["run", "a", "b", "c"], [["x", math.inf, -math.inf, math.nan]])
    out = io.StringIO()
    render_sections([("s", table)], OutputFormat.json, out=out)
    assert json.loads(out.getvalue()) == {
        "s": [{"run": "x", "a": "Infinity", "b": "-Infinity", "c": None}]
    }


def test_ctr_errors(runner, files, tmp_path) -> None:
    imp = files["impressions"]
    base = ["ctr", imp, "--label", "click", "--score", "m1"]
    odd = tmp_path / "log.dat"
    odd.write_text("click,m1\n1,0.5\n")
    cases = [
        (
            [*base, "-m", "gauc"],
            "metric 'gauc' needs groups; pass --group COL (e.g. the user id column).",
        ),
        (
            [*base, "-m", "auc", "-m", "lgloss"],
            "receval ctr -m: unknown metric 'lgloss'. Did you mean 'logloss'? See receval metrics.",
        ),
        (
            ["ctr", imp, "--label", "click", "--score", "nope"],
            f"{imp}: no column 'nope' (--score nope). Got columns ['user', 'click', 'm1', 'm2', "
            "'w']; name one of ['m1', 'm2', 'w'] with --score.",
        ),
        (
            ["ctr", tmp_path / "none.csv", "--label", "c", "--score", "s"],
            f"{tmp_path / 'none.csv'}: no such file.",
        ),
        (
            ["ctr", odd, "--label", "click", "--score", "m1"],
            f"cannot tell the format of {str(odd)!r} from its suffix; pass --input-format csv, "
            f"tsv or parquet.",
        ),
    ]
    for args, message in cases:
        result = invoke(runner, *args, code=2)
        assert result.stdout == ""
        assert result.stderr == f"error: {message}\n"
    result = invoke(runner, "ctr", imp, "--label", "user", "--score", "m1", "-m", "logloss", code=2)
    assert result.stderr.startswith(f"error: {imp}:2: --label user: the column holds string ")
    assert result.stderr.count("\n") == 1
    ok = invoke(runner, "ctr", odd, "--label", "click", "--score", "m1", "-m", "mae",
                "--input-format", "csv", "-f", "json")  # fmt: skip
    assert json.loads(ok.stdout) == [{"score": "m1", "mae": 0.5, "counts": {"n_rows": 1}}]


# ------------------------------------------------------------------ retention
def test_retention_cohort_table_and_json(runner, files) -> None:
    args = ["retention", files["events"], "--user", "uid", "--time", "ts", "--days", "1,2"]
    report = retention(files["events"], user="uid", time="ts", days=(1, 2))
    table = invoke(runner, *args).stdout
    for name in ("cohort", "new_users", "day_1", "day_2", "2024-01-01"):
        assert name in table
    assert f"{report.day_n_retention[0, 0]:.4f}" in table
    records = json.loads(invoke(runner, *args, "-f", "json").stdout)
    assert len(records) == report.n_periods == 4
    for c, record in enumerate(records):
        assert list(record) == ["cohort", "new_users", "day_1", "day_2"]
        assert record["cohort"] == str(report.periods[c])
        assert record["new_users"] == report.new_users[c]
        for j in range(2):
            assert close(record[f"day_{j + 1}"], report.day_n_retention[c, j])


def test_retention_period_and_full_tables(runner, files) -> None:
    base = ["retention", files["events"], "--user", "uid", "--time", "ts", "--period", "week"]
    report = retention(files["events"], user="uid", time="ts", period="week")
    records = json.loads(invoke(runner, *base, "--table", "period", "-f", "json").stdout)
    frame = report.to_frame()
    assert [list(r) for r in records] == [list(frame.columns)] * len(frame)
    assert [r["login_users"] for r in records] == frame["login_users"].tolist()
    # named for what they are: login - new users, and login users per new user (not a rate)
    assert list(records[0]) == ["period", "new_users", "login_users", "returning_users",
                                "login_users_per_new_user"]  # fmt: skip
    for r in records:
        assert r["returning_users"] == r["login_users"] - r["new_users"]
        if r["new_users"]:
            assert close(r["login_users_per_new_user"], r["login_users"] / r["new_users"])
    help_text = invoke(runner, "retention", "--help").stdout
    for column in ("returning_users", "login_users_per_new_user", "not a rate"):
        assert column in help_text
    lines = invoke(runner, *base, "--table", "full", "--values", "count", "-f", "tsv").stdout
    counts = report.table_frame(values="count")
    rows = [line.split("\t") for line in lines.splitlines()]
    assert rows[0] == list(counts.columns)
    assert [int(x) for x in rows[1][1:]] == counts.iloc[0, 1:].tolist()
    rates = json.loads(invoke(runner, *base, "--table", "full", "-f", "json").stdout)
    assert close(rates[0]["week_0"], report.cohort_retention[0, 0])


def test_retention_errors(runner, files) -> None:
    base = ["retention", files["events"], "--user", "uid", "--time", "ts"]
    cases = [
        (
            ["--days", "1,x"],
            "--days must be comma-separated integers such as 1,3,7,30. Got '1,x' instead.",
        ),
        (
            ["--days", "0,3"],
            "--days must be an integer in [1, inf). Got 0 instead.",
        ),
        (
            ["--tz", "Mars/Base"],
            "--tz must be an IANA time zone name such as 'UTC', "
            "'Asia/Shanghai' or 'America/New_York'. Got 'Mars/Base' instead.",
        ),
    ]
    for extra, message in cases:
        result = invoke(runner, *base, *extra, code=2)
        assert result.stdout == ""
        assert result.stderr == f"error: {message}\n"


def test_retention_days_beyond_any_window_are_nan_columns(runner, files) -> None:
    base = ["retention", files["events"], "--user", "uid", "--time", "ts", "-f", "json"]
    for days in ("100000000000000000000000", "1,9223372036854775808"):
        records = json.loads(invoke(runner, *base, "--days", days).stdout)
        far = f"day_{days.split(',')[-1]}"
        assert [list(r)[-1] for r in records] == [far] * len(records)
        assert all(r[far] is None or math.isnan(r[far]) for r in records)


# ------------------------------------------------------------------ end to end
def _command() -> list[str]:
    script = Path(sys.executable).parent / "receval"
    return [str(script)] if script.exists() else [sys.executable, "-m", "receval.cli"]


@pytest.mark.parametrize("command", ["module", "script"])
def test_subprocess_end_to_end(files, command) -> None:
    prefix = [sys.executable, "-m", "receval.cli"] if command == "module" else _command()
    args = [*prefix, "rank", "--qrels", str(files["qrels"]), "--run", str(files["run_a"])]
    ok = subprocess.run([*args, "-m", "ndcg@3", "-f", "json"], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    [record] = json.loads(ok.stdout)  # stdout holds the JSON and nothing else
    expected = evaluate(Qrels.from_file(files["qrels"]), Run.from_file(files["run_a"]), "ndcg@3")
    assert close(record["ndcg@3"], expected.mean["ndcg@3"])
    assert ok.stderr.splitlines() == [
        "note: a.run: 1 of 4 qrels users is absent from the run.",
        "note: a.run: 1 run user is not in the qrels (ignored).",
        "note: a.run: ndcg@3 leaves 1 of 4 users out of its mean (1 without a relevant item; "
        "see --missing-users, --empty-users and --zero-users).",
        "note: a.run: ndcg@3 depends on the order of tied scores for 1 of 4 users, whose ties "
        "are ordered by item id descending (trec_eval's rule, scores compared in single "
        f"precision); with --ties average (the expected value over every order) its mean is "
        f"{expected.mean_ties_average['ndcg@3']:.6g}.",
    ]
    bad = subprocess.run([*args, "-m", "ndgc@3"], capture_output=True, text=True)
    assert bad.returncode == 2
    assert bad.stdout == ""
    assert bad.stderr == (
        "error: receval rank -m: unknown metric 'ndgc'. Did you mean 'ndcg'? See receval metrics.\n"
    )


def test_ctr_takes_the_registry_names(runner, files) -> None:
    # canonical names and aliases of receval.registry, as compare --ctr-metric takes them
    result = invoke(
        runner, "ctr", files["impressions"], "--label", "click", "--score", "m1",
        "-m", "log_loss", "-m", "roc_auc", "-m", "ne", "-f", "json",
    )  # fmt: skip
    [record] = json.loads(result.stdout)
    d = _impressions()
    assert record["log_loss"] == log_loss(d["click"], d["m1"])
    assert record["roc_auc"] == roc_auc_score(d["click"], d["m1"])
    assert record["ne"] == normalized_entropy(d["click"], d["m1"])


def test_library_and_command_without_the_cli_extra(tmp_path) -> None:
    # typer and rich are the cli extra: the library works without them, and the command
    # says what to install
    code = (
        "import sys\n"
        "sys.modules['typer'] = None\n"
        "sys.modules['rich'] = None\n"
        "import receval\n"
        "assert receval.roc_auc_score([0, 1], [0.2, 0.7]) == 1.0\n"
        "import pyarrow as pa, pyarrow.parquet as pq\n"
        f"pq.write_table(pa.table({{'y': [0, 1], 'p': [0.2, 0.7]}}), {str(tmp_path / 'a.pq')!r})\n"
        f"s = receval.scan({str(tmp_path / 'a.pq')!r})\n"
        "assert receval.log_loss(s['y'], s['p']) == receval.log_loss([0, 1], [0.2, 0.7])\n"
        "from receval.cli import main\n"
        "main()\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert done.stderr == (
        "error: the receval command needs Typer and rich (typer is not installed); install "
        "them with: pip install 'receval[cli]'\n"
    )


def test_python_dash_m_receval(files) -> None:
    ok = subprocess.run(
        [sys.executable, "-m", "receval", "rank", "--qrels", str(files["qrels"]), "--run",
         str(files["run_a"]), "-m", "ndcg@3", "-f", "json"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert ok.returncode == 0, ok.stderr
    assert "ndcg@3" in json.loads(ok.stdout)[0]


def test_rank_depth_and_judged_only_are_evaluates(runner):
    # --depth and --judged-only are the conventions depth= and judged_only=
    from receval import evaluate

    data = Path(__file__).parent.parent / "peers" / "data" / "trec_eval"
    qrels, run = str(data / "qrels.test"), str(data / "results.test")
    result = invoke(
        runner, "rank", "--qrels", qrels, "--run", run, "-m", "map", "-m", "P_10", "--depth",
        "20", "--judged-only", "--profile", "trec_eval", "--format", "json",
    )  # fmt: skip
    record = json.loads(result.stdout)[0]
    from receval import Qrels, Run

    q, r = Qrels.from_file(qrels, file_format="trec"), Run.from_file(run, file_format="trec")
    want = evaluate(q, r, ["map", "P_10"], profile="trec_eval", depth=20, judged_only=True)
    assert record["map"] == want.mean["map"] and record["P_10"] == want.mean["P_10"]
    plain = evaluate(q, r, ["map"], profile="trec_eval")
    assert record["map"] != plain.mean["map"]


def test_rank_grades_is_evaluates(runner, tmp_path):
    # --grades raw: ranx's graded RBP (the grades themselves as gains)
    from receval import evaluate

    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("q 0 a 3\nq 0 b 1\nq 0 c -1\n")
    run.write_text("q Q0 a 1 0.9 r\nq Q0 c 2 0.8 r\nq Q0 b 3 0.7 r\n")
    result = invoke(
        runner, "rank", "--qrels", str(qrels), "--run", str(run), "-m", "rbp", "-m", "bpref",
        "--grades", "raw", "--format", "json",
    )  # fmt: skip
    record = json.loads(result.stdout)[0]
    q = {"q": {"a": 3, "b": 1, "c": -1}}
    r = {"q": {"a": 0.9, "c": 0.8, "b": 0.7}}
    want = evaluate(q, r, ["rbp", "bpref"], grades="raw")
    assert record["rbp"] == want.mean["rbp"] == pytest.approx(0.2 * (3 + 0.64), abs=1e-15)
    assert record["bpref"] == want.mean["bpref"] == 0.5  # c (-1) non-relevant, above b


# ------------------------------------------------------------------ --by
def test_ctr_by_segment_equals_by_segment(runner, files) -> None:
    # segments of the impressions: the user's first letter class (a, b: "ab"; c, d: "cd")
    table = pcsv.read_csv(files["impressions"])
    by = ["ab" if u in "ab" else "cd" for u in table.column("user").to_pylist()]
    path = files["impressions"].parent / "imp_by.csv"
    pcsv.write_csv(table.append_column("part", pa.array(by)), path)
    result = invoke(runner, "ctr", path, "--label", "click", "--score", "m1", "--score", "m2",
                    "--group", "user", "--weight", "w", "--by", "part", "-m", "auc", "-m", "gauc",
                    "-m", "logloss", "-f", "json")  # fmt: skip
    records = json.loads(result.stdout)
    d = _impressions()
    assert [(r["score"], r["segment"]) for r in records] == [
        (s, g) for s in ("m1", "m2") for g in ("ab", "cd", "(all)")
    ]
    for record in records:
        expected = by_segment(["auc", "gauc", "logloss"], d["click"], d[record["score"]],
                              by=by, groups=d["user"], sample_weight=d["w"])  # fmt: skip
        i = (
            list(expected.segments).index(record["segment"])
            if record["segment"] != "(all)"
            else None
        )
        for m in ("auc", "gauc", "logloss"):
            want = expected.overall[m] if i is None else expected.values[m][i]
            assert close(record[m], want)
        assert record["n_rows"] == (9 if i is None else int(expected.counts[i]))
    overall = records[2]["counts"]
    skipped = group_auc(d["click"], d["m1"], groups=d["user"], sample_weight=d["w"])
    assert overall["gauc"]["n_groups_skipped"] == skipped.n_groups_skipped
    assert set(overall["n_segments_undefined"]) == {"auc", "gauc", "logloss"}
    missing = invoke(runner, "ctr", path, "--label", "click", "--score", "m1", "--by", "x", code=2)
    assert "no column 'x'" in missing.stderr


def test_rank_by_segment_equals_report_by_segment(runner, files, tmp_path) -> None:
    segments = tmp_path / "seg.csv"
    segments.write_text("user,group\nu1,g1\nu2,g2\nu3,g1\n")  # u4 has none
    result = invoke(runner, "rank", "--qrels", files["qrels"], "--run", files["run_a"],
                    "-m", "ndcg@3", "-m", "pooled_hit_ratio@2", "--by", segments,
                    "--segment", "group", "-f", "json")  # fmt: skip
    records = json.loads(result.stdout)
    report = evaluate(Qrels.from_file(files["qrels"]), Run.from_file(files["run_a"]),
                      ["ndcg@3", "pooled_hit_ratio@2"])  # fmt: skip
    expected = report.by_segment({"u1": "g1", "u2": "g2", "u3": "g1"})
    assert [r["segment"] for r in records] == ["g1", "g2", "(all)"]
    assert [r["n_users"] for r in records] == [2, 1, 4]
    for i, record in enumerate(records[:2]):
        for m in ("ndcg@3", "pooled_hit_ratio@2"):
            assert close(record[m], expected.values[m][i])
    assert close(records[2]["ndcg@3"], report.mean["ndcg@3"])
    assert "1 of 4 qrels users has no segment" in result.stderr
    # what the rules left out, in the JSON too: on the overall row
    assert records[2]["counts"]["n_users_unassigned"] == 1
    assert records[2]["counts"]["n_users_skipped"] == report.n_users_skipped
    assert records[0]["counts"] == {}

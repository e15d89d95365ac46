"""Errors of the commands name the option typed, in the words of the command line."""

from __future__ import annotations

import pandas as pd
import pytest

from receval import compare_by_segment
from receval.exceptions import InvalidParameterError

from ._helpers import invoke, make_runner, write_recommendations

runner = make_runner()


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("words")
    qrels, _ = write_recommendations(tmp, 50, n_items=100, k=10, seed=4)
    users = pd.unique(pd.DataFrame(qrels)["user"])
    pd.DataFrame({"user": users, "segment": ["a", "b"] * 25}).to_csv(tmp / "seg.csv", index=False)
    (tmp / "cats.csv").write_text("item,category\n1,a\n")
    (tmp / "log.csv").write_text("user,item,click,s,seg\nu1,1,1,0.5,\nu1,2,0,0.2,x\n")
    (tmp / "op.csv").write_text("reward,pscore,target\n1,0.5,0.4\n0,0.2,0.3\n")
    (tmp / "ev.csv").write_text("user,time\nu1,2024-01-01\nu2,2024-01-02\n")
    return tmp


def _runs(tmp):
    return ["compare", "--qrels", tmp / "qrels.csv", "--run", tmp / "model_a.parquet",
            "--run", tmp / "model_b.parquet", "-m", "mrr"]  # fmt: skip


def test_pairs_lists_only_typeable_choices_before_any_work(files, monkeypatch):
    import receval.cli._compare as command

    def no_work(*args, **kwargs):
        raise AssertionError("evaluated before the options were checked")

    monkeypatch.setattr(command, "read_qrels_runs", no_work)
    bad = invoke(runner, *_runs(files), "--pairs", "every", code=2)
    assert bad.stderr == "error: --pairs must be one of ['all']. Got 'every' instead.\n"
    assert bad.stdout == ""


def test_compare_by_segment_names_itself_and_the_cli_its_option(files):
    q = pd.read_csv(files / "qrels.csv")
    runs = {n: pd.read_parquet(files / f"{n}.parquet") for n in ("model_a", "model_b")}
    with pytest.raises(InvalidParameterError, match=r"^The 'test' parameter of compare_by_seg"):
        compare_by_segment(q, runs, ["mrr"], by={"u": "a"}, test="x")
    with pytest.raises(InvalidParameterError, match=r"^The 'baseline' parameter of compare_by_"):
        compare_by_segment(q, runs, ["mrr"], by={"u": "a"}, baseline="nope")
    args = [*_runs(files), "--by", files / "seg.csv"]
    assert invoke(runner, *args, "--test", "x", code=2).stderr == (
        "error: --test must be one of ['randomization', 'student', 'wilcoxon']. Got 'x' instead.\n"
    )
    assert invoke(runner, *args, "--baseline", "NOPE", code=2).stderr.startswith(
        "error: --baseline must be one of ['model_a.parquet', 'model_b.parquet']."
    )


def test_item_groups_without_group_column_says_what_the_file_needs(files):
    bad = invoke(runner, "report", "--qrels", files / "qrels.csv", "--run",
                 files / "model_a.parquet", "--item-groups", files / "cats.csv", "-o",
                 files / "r.html", code=2)  # fmt: skip
    assert bad.stderr.endswith(
        "cats.csv: no column 'group'. Got columns ['item', 'category']; --item-groups FILE "
        "needs the columns 'item' (--item item) and 'group': name its column of the groups "
        "'group'.\n"
    )


def test_an_empty_segment_names_by(files):
    bad = invoke(runner, "ctr", files / "log.csv", "--label", "click", "--score", "s",
                 "--by", "seg", code=2)  # fmt: skip
    assert bad.stderr.endswith(
        "log.csv:2: --by seg has no id in this row (an empty field); fill it in or drop the row.\n"
    )


@pytest.mark.parametrize(
    ("command", "name", "said"),
    [
        ("rank", "ndgc@10", "unknown metric 'ndgc'. Did you mean 'ndcg'?"),
        ("ctr", "aucc", "unknown metric 'aucc'. Did you mean 'auc'?"),
        ("off-policy", "ipss", "unknown metric 'ipss'. Did you mean 'ips'?"),
    ],
)
def test_an_unknown_metric_names_m_in_every_command(files, command, name, said):
    inputs = {
        "rank": ["--qrels", files / "qrels.csv", "--run", files / "model_a.parquet"],
        "ctr": [files / "log.csv", "--label", "click", "--score", "s"],
        "off-policy": [files / "op.csv"],
    }[command]
    bad = invoke(runner, command, *inputs, "-m", name, code=2)
    assert bad.stderr == f"error: receval {command} -m: {said} See receval metrics.\n"


def test_an_unknown_ctr_metric_of_compare_names_its_option(files):
    # compare reads metric strings from -m (runs) and --ctr-metric (CTR models): an
    # unknown name of --ctr-metric named -m
    log = files / "log.csv"
    bad = invoke(runner, "compare", "--impressions", log, "--label", "click", "--score", "s",
                 "--score", "s", "--ctr-metric", "aucc", code=2)  # fmt: skip
    assert bad.stderr == (
        "error: receval compare --ctr-metric: unknown metric 'aucc'. Did you mean 'auc'? "
        "See receval metrics.\n"
    )


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (["--time-unit", "fortnight"],
         "error: --time-unit must be one of ['ms', 'ns', 's', 'us']. Got 'fortnight' instead.\n"),
        (["--tz", "Mars/Base"],
         "error: --tz must be an IANA time zone name such as 'UTC', 'Asia/Shanghai' or "
         "'America/New_York'. Got 'Mars/Base' instead.\n"),
    ],
)  # fmt: skip
def test_retention_options_in_cli_words(files, options, expected):
    assert invoke(runner, "retention", files / "ev.csv", *options, code=2).stderr == expected


def test_split_names_the_output_option_of_a_file_of_no_format(files):
    args = ["split", files / "ev.csv", "--method", "temporal", "--quantile", "0.5"]
    bad = invoke(runner, *args, "-o", files / "outdir", "-O", files / "te.csv", code=2)
    assert bad.stderr.startswith("error: -o/--train must name a .parquet or .csv file")
    assert bad.stderr.endswith("; name it e.g. " + str(files / "outdir") + ".parquet.\n")


def test_audit_errors_begin_with_the_command(files):
    bad = invoke(runner, "audit", "--train", files / "ev.csv", "--test", files / "ev.csv",
                 "--time", "nope", code=2)  # fmt: skip
    assert bad.stderr.startswith(f"error: receval audit: {files / 'ev.csv'} (train) has no ")

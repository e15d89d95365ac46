"""``receval rank`` and ``receval trec-eval``: runs matching nothing are refused (exit 2) or
noted, tie dependence is noted on stderr and counted in the JSON output."""

from __future__ import annotations

import json

import pytest

from receval import Qrels, Run, evaluate
from tests.cli._helpers import invoke, make_runner

QRELS = "u1 0 a 1\nu1 0 b 0\nu2 0 c 1\nu3 0 a 1\n"
# u1 and u3 tie a (relevant) with b; trec's order (item id descending) puts b first
RUN = (
    "u1 Q0 a 1 0.5 s\nu1 Q0 b 2 0.5 s\nu1 Q0 x 3 0.1 s\n"
    "u2 Q0 c 1 0.9 s\nu2 Q0 d 2 0.5 s\n"
    "u3 Q0 b 1 0.5 s\nu3 Q0 a 2 0.5 s\n"
)


@pytest.fixture
def runner():
    return make_runner()


@pytest.fixture
def files(tmp_path):
    paths = {"qrels": tmp_path / "qrels", "run": tmp_path / "pop.run", "bad": tmp_path / "bad.run"}
    paths["qrels"].write_text(QRELS)
    paths["run"].write_text(RUN)
    paths["bad"].write_text(RUN.replace(" Q0 ", " Q0 i"))  # sed 's/ Q0 / Q0 i/'
    return {k: str(v) for k, v in paths.items()}


def test_rank_refuses_a_run_whose_items_match_nothing(runner, files):
    result = invoke(runner, "rank", "--qrels", files["qrels"], "--run", files["bad"], "-m",
                    "ndcg@10", code=2)  # fmt: skip
    assert result.stdout == ""
    assert result.stderr.startswith("error: receval rank: none of the run's 5 items is judged")
    assert "pass --allow-unmatched to score the run anyway" in result.stderr


def test_rank_allow_unmatched_scores_with_a_warning(runner, files):
    result = invoke(runner, "rank", "--qrels", files["qrels"], "--run", files["bad"], "-m",
                    "ndcg@10", "--allow-unmatched", "-f", "json")  # fmt: skip
    record = json.loads(result.stdout)[0]
    assert record["ndcg@10"] == 0.0
    assert record["counts"]["n_run_items"] == record["counts"]["n_run_items_unmatched"] == 5
    assert "warning: receval rank: none of the run's 5 items is judged" in result.stderr


def test_rank_warns_below_min_match(runner, files, tmp_path):
    partly = tmp_path / "partly.run"
    partly.write_text(RUN.replace("u2 Q0 ", "x2 Q0 ").replace("u3 Q0 ", "x3 Q0 "))
    result = invoke(runner, "rank", "--qrels", files["qrels"], "--run", str(partly), "-m",
                    "ndcg@10", "--min-match", "0.5")  # fmt: skip
    assert "warning: receval rank: 1 of the 3 qrels users is in the run (33.3%)" in result.stderr
    quiet = invoke(runner, "rank", "--qrels", files["qrels"], "--run", str(partly), "-m",
                   "ndcg@10", "--min-match", "0")  # fmt: skip
    assert "warning" not in quiet.stderr


def test_rank_notes_tie_dependence_and_json_counts_it(runner, files):
    result = invoke(runner, "rank", "--qrels", files["qrels"], "--run", files["run"], "-m",
                    "recall@1", "-m", "p@3", "-f", "json")  # fmt: skip
    assert (
        "note: pop.run: recall@1 depends on the order of tied scores for 2 of 3 users, whose "
        "ties are ordered by item id descending (trec_eval's rule, scores compared in single "
        "precision); with --ties average (the expected value over every order) its mean is "
        "0.666667." in result.stderr
    )
    assert "p@3 depends" not in result.stderr
    counts = json.loads(result.stdout)[0]["counts"]
    assert counts["n_users_tie_dependent"] == {"recall@1": 2, "p@3": 0}
    report = evaluate(Qrels.from_file(files["qrels"], file_format="trec"),
                      Run.from_file(files["run"], file_format="trec"), ["p@3"])  # fmt: skip
    assert counts["mean_ties_average"] == {"recall@1": pytest.approx(2 / 3),
                                           "p@3": pytest.approx(report.mean["p@3"])}  # fmt: skip


def test_trec_eval_keeps_its_output_and_notes_unmatched_items(runner, files):
    result = invoke(runner, "trec-eval", "-m", "map", files["qrels"], files["bad"])
    assert result.stdout == "map                   \tall\t0.0000\n"
    assert "warning: evaluate: none of the run's 5 items is judged in the qrels" in result.stderr


def test_rank_refuses_a_run_whose_users_match_nothing(runner, files, tmp_path):
    prefixed = tmp_path / "users.run"
    prefixed.write_text("\n".join("x" + line for line in RUN.splitlines()) + "\n")
    result = invoke(runner, "rank", "--qrels", files["qrels"], "--run", str(prefixed), "-m",
                    "ndcg@10", code=2)  # fmt: skip
    assert result.stdout == ""
    assert result.stderr.startswith("error: receval rank: none of the 3 qrels users is in the run")


@pytest.mark.parametrize("through", ["typer", "console script"])
def test_rank_json_writes_null_for_a_mean_no_user_defines(tmp_path, runner, through):
    # every user is without a relevant item: the mean and its ties="average" twin
    # (nested in the counts) are nan, written as null, never a traceback
    (tmp_path / "q").write_text("u1 0 a 0\nu2 0 b 0\n")
    (tmp_path / "r").write_text("u1 Q0 a 1 1.0 s\nu2 Q0 c 1 1.0 s\n")
    args = ["rank", "-m", "ndcg@10", "--qrels", str(tmp_path / "q"), "--run",
            str(tmp_path / "r"), "-f", "json"]  # fmt: skip
    if through == "typer":
        stdout = invoke(runner, *args).stdout
    else:
        import subprocess
        import sys

        done = subprocess.run([sys.executable, "-m", "receval", *args], capture_output=True,
                              text=True, check=False)  # fmt: skip
        assert done.returncode == 0, done.stderr
        stdout = done.stdout
    (record,) = json.loads(stdout)
    assert record["ndcg@10"] is None
    assert record["counts"]["mean_ties_average"] == {"ndcg@10": None}
    assert record["counts"]["n_users_skipped"] == {"ndcg@10": 2}


@pytest.mark.parametrize("suffix", ["csv", "tsv", "parquet"])
def test_a_column_named_twice_is_refused_not_read_as_the_first(runner, files, tmp_path, suffix):
    import pyarrow as pa

    table = pa.Table.from_arrays(
        [pa.array(["u1", "u2"]), pa.array(["a", "c"]), pa.array([0, 0]), pa.array([1, 1])],
        names=["user", "item", "grade", "grade"],
    )
    path = tmp_path / f"qrels.{suffix}"
    if suffix == "parquet":
        import pyarrow.parquet as pq

        pq.write_table(table, path)
    else:
        sep = "," if suffix == "csv" else "\t"
        path.write_text(
            sep.join(table.column_names) + "\n" + f"u1{sep}a{sep}0{sep}1\nu2{sep}c{sep}0{sep}1\n"
        )
    result = invoke(runner, "rank", "--qrels", str(path), "--run", files["run"], code=2)
    assert result.stdout == ""
    assert result.stderr == (
        f"error: {path}: the column 'grade' appears 2 times among the columns; rename all "
        "but one so that the column read is the one meant.\n"
    )


@pytest.mark.parametrize(
    ("body", "line", "message"),
    [
        (b"u1,a,1\nu2,c,1,9\n", 3, "CSV parse error: Expected 3 columns, got 4: u2,c,1,9; give "
         "every line the header's fields, quoting a field that holds the delimiter."),
        (b"u1,a,1\nu2,c\xff,1\n", 3, "the line is not UTF-8 text (In CSV column #1: CSV "
         "conversion error to string: invalid UTF8 data.); save the file as UTF-8."),
    ],
)  # fmt: skip
def test_a_csv_line_arrow_cannot_read_is_named(runner, files, tmp_path, body, line, message):
    path = tmp_path / "qrels.csv"
    path.write_bytes(b"user,item,grade\n" + body)
    result = invoke(runner, "rank", "--qrels", str(path), "--run", files["run"], code=2)
    assert result.stderr == f"error: {path}:{line}: {message}\n"


@pytest.mark.parametrize("command", ["rank", "report"])
def test_a_file_read_in_another_format_names_its_own_format_option(runner, tmp_path, command):
    # the fix named --input-format, which rank does not have and which is the
    # impressions' format in report
    qrels, run = tmp_path / "q.csv", tmp_path / "r.tsv"
    qrels.write_text("user,item,grade\nu1,i1,1\nu1,i2,0\n")
    run.write_text("user\titem\tscore\nu1\ti1\t0.5\nu1\ti2\t0.4\n")
    extra = ["--out", str(tmp_path / "report.html")] if command == "report" else []
    for option, fmt, fix in [
        ("--qrels-format", "tsv", "pass --qrels-format csv (or name the file .csv)"),
        ("--run-format", "csv", "pass --run-format tsv (or name the file .tsv)"),
    ]:
        result = invoke(
            runner, command, "--qrels", str(qrels), "--run", str(run), option, fmt, *extra, code=2
        )
        assert fix in result.stderr and "--input-format" not in result.stderr


@pytest.mark.parametrize("per_user", [[], ["--per-user"]])
@pytest.mark.parametrize("through", ["trec", "csv"])
def test_a_metric_given_twice_is_one_column(runner, files, tmp_path, per_user, through):
    # -m mrr -m mrr and -m P.2,3 -m P_2 name each metric twice: one column each, as
    # evaluate's report holds one value per name (the table and csv had two columns)
    run = files["run"]
    if through == "csv":  # the Python path, not the core's report of TREC files
        run = str(tmp_path / "run.csv")
        lines = [line.split() for line in RUN.splitlines()]
        with open(run, "w") as out:
            out.write("user,item,score\n")
            out.writelines(f"{u},{i},{s}\n" for u, _, i, _, s, _ in lines)
    result = invoke(runner, "rank", "--qrels", files["qrels"], "--run", run, "-m", "mrr", "-m",
                    "mrr", "-m", "P.2,3", "-m", "P_2", *per_user, "-f", "csv")  # fmt: skip
    header = result.stdout.splitlines()[0].split(",")
    metrics = ["mrr", "P_2", "P_3"]
    assert header[: len(metrics) + 1 + len(per_user)] == [*(["user"] if per_user else []), "run",
                                                         *metrics]  # fmt: skip
    assert len(header) == len(set(header))


@pytest.mark.parametrize(
    ("profile", "grades", "says"),
    [
        ("ranx", "1.5", "ranx truncates them"),
        ("trec_eval", "1.5", "Expected relevance to be integer"),
        ("ir_measures", "0.5", "Expected relevance to be integer"),
        ("sklearn", "-1", "ndcg_score refuses them"),
    ],
)
def test_rank_refuses_the_grades_a_profile_peer_refuses(runner, tmp_path, profile, grades, says):
    qrels, run = tmp_path / "q.csv", tmp_path / "r.csv"
    qrels.write_text(f"user,item,grade\nq,a,{grades}\nq,b,2\n")
    run.write_text("user,item,score\nq,b,2.0\nq,a,1.0\n")
    result = invoke(runner, "rank", "--qrels", str(qrels), "--run", str(run), "-m", "ndcg",
                    "--profile", profile, code=2)  # fmt: skip
    assert result.stdout == ""
    assert result.stderr.startswith(
        f"error: receval rank: metric 'ndcg' with --profile {profile} takes"
    )
    assert says in result.stderr and "Traceback" not in result.stderr

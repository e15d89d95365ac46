"""A qrels file without a grade column (``--grade grade``, the default): of user, item
and time columns alone, the pairs judged relevant, each of grade 1, as a frame of them
is; with another column, refused (exit 2, on stderr) with the options that fix it."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from tests.cli._helpers import invoke, make_runner

RUN = "user,item,score\n1,1,0.9\n1,2,0.5\n2,3,0.9\n2,2,0.5\n"


def _write(frame: pd.DataFrame, path) -> str:
    if str(path).endswith(".parquet"):
        frame.to_parquet(path)
    else:
        frame.to_csv(path, index=False)
    return str(path)


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_rank_reads_a_qrels_file_of_user_item_and_time_as_the_pairs_of_grade_1(tmp_path, suffix):
    # it said "no column 'grade' (--grade grade). Got columns ['user', 'item',
    # 'timestamp']; name one of them with --grade": the time column as the grades
    run = tmp_path / "r.csv"
    run.write_text(RUN)
    frame = pd.DataFrame({"user": [1, 2], "item": [2, 2], "timestamp": [10, 11]})
    qrels = _write(frame, tmp_path / f"q{suffix}")
    result = invoke(make_runner(), "rank", "--qrels", qrels, "--run", run, "-m", "mrr",
                    "-f", "json")  # fmt: skip
    assert json.loads(result.stdout)[0]["mrr"] == 0.5  # each user's item at rank 2


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_rank_refuses_a_qrels_file_with_another_column_and_no_grade_with_the_fix(tmp_path, suffix):
    # it offered any of the file's columns as the grades, the timestamp too
    run = tmp_path / "r.csv"
    run.write_text(RUN)
    frame = pd.DataFrame({"user": [1, 2], "item": [2, 2], "rating": [4, 1], "timestamp": [1, 2]})
    qrels = _write(frame, tmp_path / f"q{suffix}")
    result = invoke(make_runner(), "rank", "--qrels", qrels, "--run", run, "-m", "mrr", code=2)
    assert result.stdout == ""
    assert result.stderr == (
        f"error: {qrels}: no column 'grade' but has ['rating'] beside user and item, which "
        f"would be left unread (every pair of grade 1); pass --grade rating if that column "
        f"holds the grades, or keep only the user, item and time columns in the file to give "
        f"every pair grade 1.\n"
    )
    graded = invoke(make_runner(), "rank", "--qrels", qrels, "--run", run, "-m", "mrr",
                    "--grade", "rating", "-f", "json")  # fmt: skip
    assert json.loads(graded.stdout)[0]["mrr"] == 0.5


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_rank_offers_only_columns_that_could_hold_the_grades_of_a_missing_grade(tmp_path, suffix):
    # "no column 'rel' (--grade rel). Got columns ['user', 'item', 'timestamp']; name one
    # of them with --grade": the ids and the time column offered as the grades
    run = tmp_path / "r.csv"
    run.write_text(RUN)
    frame = pd.DataFrame({"user": [1, 2], "item": [2, 2], "timestamp": [10, 11]})
    qrels = _write(frame, tmp_path / f"q{suffix}")
    result = invoke(make_runner(), "rank", "--qrels", qrels, "--run", run, "-m", "mrr",
                    "--grade", "rel", code=2)  # fmt: skip
    assert result.stdout == ""
    assert result.stderr == (
        f"error: {qrels}: no column 'rel' (--grade rel). Got columns ['user', 'item', "
        f"'timestamp'], none of which holds grades (ids and times); pass --grade grade (the "
        f"default) to give every pair grade 1.\n"
    )
    rated = _write(frame.assign(rating=[4, 1]), tmp_path / f"rated{suffix}")
    result = invoke(make_runner(), "rank", "--qrels", rated, "--run", run, "-m", "mrr",
                    "--grade", "rel", code=2)  # fmt: skip
    assert result.stdout == ""
    assert result.stderr == (
        f"error: {rated}: no column 'rel' (--grade rel). Got columns ['user', 'item', "
        f"'timestamp', 'rating']; the grades could be in ['rating']: pass --grade rating if "
        f"that column holds them.\n"
    )


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_audit_refuses_a_test_file_with_another_column_and_no_grade(tmp_path, suffix):
    # a test file of user, item and rating was read silently as of grade 1 in every row
    frame = pd.DataFrame({"user": [1, 2], "item": [2, 2], "rating": [4, 1], "timestamp": [1, 2]})
    test = _write(frame, tmp_path / f"t{suffix}")
    result = invoke(make_runner(), "audit", "--test", test, code=2)
    assert result.stdout == ""
    assert result.stderr == (
        f"error: {test} (test): no column 'grade' but has ['rating'] beside user and item, "
        f"which would be left unread (every pair of grade 1); pass --grade rating if that "
        f"column holds the grades, or keep only the user, item and time columns in the file "
        f"to give every pair grade 1.\n"
    )
    invoke(make_runner(), "audit", "--test", test, "--grade", "rating")
    pairs = _write(frame.drop(columns="rating"), tmp_path / f"pairs{suffix}")
    invoke(make_runner(), "audit", "--test", pairs)  # the pairs, of grade 1


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_audit_lists_the_time_column_named_by_time_when_the_grade_is_missing(tmp_path, suffix):
    # "Got columns ['user', 'item']": the --time column was left out of the file's columns
    frame = pd.DataFrame({"user": [1, 2], "item": [2, 2], "ts": [10, 11]})
    test = _write(frame, tmp_path / f"t{suffix}")
    result = invoke(make_runner(), "audit", "--test", test, "--time", "ts", "--grade", "rel",
                    code=2)  # fmt: skip
    assert result.stdout == ""
    assert result.stderr == (
        f"error: {test} (test): no column 'rel' (--grade rel). Got columns ['user', 'item', "
        f"'ts'], none of which holds grades (ids and times); pass --grade grade (the default) "
        f"to give every pair grade 1.\n"
    )

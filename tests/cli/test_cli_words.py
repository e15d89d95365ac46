"""Errors of the commands name the commands' options, never the library's parameters,
and say what was given."""

from __future__ import annotations

import pytest

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
    assert "'gauc' needs groups; pass --group COL." in stderr and "groups=" not in stderr
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
    assert "Got '0'." in stderr or "'--users': 0 is not in the range" in stderr


def test_a_log_of_only_a_header_says_so(tmp_path):
    path = tmp_path / "log.csv"
    path.write_text("click,a,b\n")
    for args in (["ctr", path, "--label", "click", "--score", "a"],
                 ["compare", "--impressions", path, "--label", "click", "--score", "a",
                  "--score", "b", "--ctr-metric", "logloss"]):  # fmt: skip
        assert (
            _stderr(*args)
            == f"error: {path}: the log has no rows, only its header; pass a log with rows.\n"
        )

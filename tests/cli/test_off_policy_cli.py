"""``receval off-policy``: its table of estimates and its errors, in the command line's
words (options, file:line)."""

from __future__ import annotations

import json

import pytest

from tests.cli._helpers import invoke, make_runner


@pytest.fixture
def log(tmp_path):
    path = tmp_path / "ope.csv"
    path.write_text("reward,pscore,target\n1,0.5,1.0\n0,0.5,0.0\n1,0.25,0.5\n0,0.75,0.5\n")
    return path


@pytest.mark.parametrize("output", ["csv", "tsv", "json", "table"])
def test_a_repeated_metric_is_computed_once(log, output):
    # ips twice: an IndexError (table), a ValueError (json), or a header of three
    # columns over a row of two (csv, tsv), as ctr -m auc -m auc is one column
    runner = make_runner()
    repeated = invoke(runner, "off-policy", log, "-m", "ips", "-m", "snips", "-m", "IPS",
                      "-f", output)  # fmt: skip
    once = invoke(runner, "off-policy", log, "-m", "ips", "-m", "snips", "-f", output)
    assert repeated.stdout == once.stdout
    if output == "csv":
        assert repeated.stdout.splitlines() == ["rounds,ips,snips", "4,1.0,0.8571428571428571"]
    if output == "json":
        assert json.loads(repeated.stdout) == [{"rounds": 4, "ips": 1.0,
                                                "snips": 0.8571428571428571}]  # fmt: skip

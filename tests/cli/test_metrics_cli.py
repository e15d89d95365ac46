"""``receval metrics``: the registry's listing on stdout, in every format."""

from __future__ import annotations

import csv
import io
import json

import pytest

from receval import list_metrics
from receval.cli._metrics import COLUMNS

from ._helpers import invoke, make_runner

FAMILIES = ["pointwise", "grouped", "ranking", "list", "retention", "off_policy"]


@pytest.fixture()
def runner():
    return make_runner()


def _records(runner, *args):
    return json.loads(invoke(runner, "metrics", "--format", "json", *args).stdout)


def test_json_lists_every_metric_with_its_names(runner):
    records = _records(runner)
    assert all(list(r) == COLUMNS for r in records)
    names = [r["name"] for r in records]
    assert names == sorted(names) and len(names) == len(set(names))
    by_name = {r["name"]: r for r in records}
    # one of each family, with what the listing says of it
    assert by_name["roc_auc"]["family"] == "pointwise"
    assert by_name["gauc"]["family"] == "grouped"
    assert by_name["retention"]["family"] == "retention"
    assert by_name["novelty"]["family"] == "list"
    precision = by_name["precision"]
    assert precision["family"] == "ranking"
    assert precision["aliases"] == "p, P_10, pre, PrecisionAt"
    assert precision["cut_off"] == "@k"
    assert precision["source"] == "trec_eval 10.0"
    assert precision["description"] == "hits in the top k / k"
    rbp = by_name["rbp"]
    assert rbp["parameters"] == "p: persistence, in (0, 1), default 0.8"
    assert rbp["cut_off"] == ""
    assert by_name["utility"]["parameters"].split("; ")[0] == (
        "a: worth of a relevant item retrieved, a finite number, default 1"
    )
    assert by_name["hits"]["source"] == "ranx"


@pytest.mark.parametrize("family", FAMILIES)
def test_one_family(runner, family):
    records = _records(runner, "--family", family)
    assert records and {r["family"] for r in records} == {family}
    every = _records(runner)
    assert [r for r in every if r["family"] == family] == records


def test_csv_and_table(runner):
    text = invoke(runner, "metrics", "-f", "csv", "--family", "grouped").stdout
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == COLUMNS
    assert [row[0] for row in rows[1:]] == ["gauc", "grouped_auprc", "grouped_regression_auc",
                                            "grouped_xauc"]  # fmt: skip
    table = invoke(runner, "metrics", "--family", "ranking").stdout
    assert table.startswith(
        f"{len(list_metrics('ranking'))} metrics (ranking); receval metrics NAME shows one "
        "in full\n"
    )
    # a pipe gets every column in full, descriptions included
    assert "binary preference: share of the top R judged non-relevant items" in table
    assert "iprec_at_recall_0.10" in table


def test_bad_family_exits_2_with_the_choices(runner):
    result = invoke(runner, "metrics", "--family", "ctr", code=2)
    assert result.stdout == ""
    assert result.stderr == (
        "error: --family must be one of ['grouped', 'list', "
        "'off_policy', 'pointwise', 'ranking', 'retention']. Got 'ctr' instead.\n"
    )

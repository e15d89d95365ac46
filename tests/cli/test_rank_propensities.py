"""``receval rank --propensities``: the propensity-weighted metrics of evaluate."""

from __future__ import annotations

import json

import pytest

import receval as rv
from tests.cli._helpers import invoke, make_runner

QRELS = {"u": {"a": 1, "b": 1}, "v": {"c": 1}}
RUN = {"u": {"a": 0.9, "b": 0.1, "x": 0.5}, "v": {"c": 0.3, "y": 0.9}}


@pytest.fixture
def files(tmp_path):
    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_text("".join(f"{u} 0 {i} {g}\n" for u, d in QRELS.items() for i, g in d.items()))
    run.write_text("".join(f"{u} Q0 {i} 1 {s} m\n" for u, d in RUN.items() for i, s in d.items()))
    per_item = tmp_path / "p.csv"
    per_item.write_text("item,propensity\na,0.5\nb,0.25\nc,0.8\n")
    per_pair = tmp_path / "pp.csv"
    per_pair.write_text("user,item,propensity\nu,a,0.5\nu,b,0.25\nv,c,0.4\n")
    return qrels, run, per_item, per_pair


@pytest.mark.parametrize("options", [[], ["--estimator", "snips", "--propensity-clip", "0.3"]])
@pytest.mark.parametrize("which", ["per item", "per pair"])
def test_rank_weighs_as_evaluate(files, options, which):
    qrels, run, per_item, per_pair = files
    path = per_item if which == "per item" else per_pair
    metrics = ["ndcg@2", "recall@2", "precision@2", "map"]
    args = ["rank", "--qrels", qrels, "--run", run, "--propensities", path, *options]
    for m in metrics:
        args += ["-m", m]
    out = json.loads(invoke(make_runner(), *args, "--format", "json").stdout)[0]
    props = (
        {"a": 0.5, "b": 0.25, "c": 0.8}
        if which == "per item"
        else {"u": {"a": 0.5, "b": 0.25}, "v": {"c": 0.4}}
    )
    kw = {"estimator": "snips", "propensity_clip": 0.3} if options else {}
    want = rv.evaluate(QRELS, RUN, metrics, propensities=props, **kw).mean
    for m in metrics:
        assert out[m] == pytest.approx(want[m], rel=1e-12)
    # the relevant pairs --propensity-clip raised (b: 0.25 < 0.3), counted in the
    # JSON and noted on stderr (neither said anything of them)
    result = invoke(make_runner(), *args, "--format", "json")
    clipped = json.loads(result.stdout)[0]["counts"].get("n_pairs_propensity_clipped")
    assert clipped == ({m: 1 for m in metrics} if options else None)
    note = "1 relevant (user, item) pair has a propensity below --propensity-clip, raised"
    assert (note in result.stderr) == bool(options)


def test_a_metric_without_a_weighted_form_is_refused(files):
    qrels, run, per_item, _ = files
    result = invoke(make_runner(), "rank", "--qrels", qrels, "--run", run, "-m", "mrr",
                    "--propensities", per_item, code=2)  # fmt: skip
    assert "no propensity-weighted form" in result.stderr


@pytest.mark.parametrize(
    ("p", "message"),
    [
        ("1e-12", "needs up to 1e+12 ideal positions for 1 user, e.g. ['u']"),
        ("1e-309", "weight 1 / p is beyond float64's range (p below 5.6e-309), e.g. [('u', 'a')]"),
    ],
)
def test_tiny_propensities_are_refused(files, tmp_path, p, message):
    qrels, run, _, _ = files
    tiny = tmp_path / "tiny.csv"
    tiny.write_text(f"item,propensity\na,{p}\nb,0.5\nc,0.5\n")
    result = invoke(make_runner(), "rank", "--qrels", qrels, "--run", run, "-m", "ndcg",
                    "--propensities", tiny, "--estimator", "snips", code=2)  # fmt: skip
    assert message in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ("a,0.5\nb,0.25\n", "--propensities has no propensity for 1 relevant (user, item) pair "),
        ("a,0.5\nb,1.5\nc,0.8\n", "--propensities must lie in (0, 1]. Got 1 value outside it"),
        ("a,0.5\na,0.25\nc,0.8\n", "--propensities gives item 'a' more than once."),
    ],
)
def test_refused_propensities_name_the_option(files, tmp_path, rows, message):
    # the library's messages begin with the argument, bare: the command printed
    # "receval rank: propensities has no propensity ..."
    qrels, run, _, _ = files
    path = tmp_path / "bad.csv"
    path.write_text("item,propensity\n" + rows)
    result = invoke(make_runner(), "rank", "--qrels", qrels, "--run", run, "-m", "ndcg",
                    "--propensities", path, code=2)  # fmt: skip
    assert result.stderr.startswith(f"error: receval rank: {message}")


def test_refused_item_categories_name_the_option(files, tmp_path):
    # the same rule for every argument a FILE option gives: "item_categories must ..."
    qrels, run, _, _ = files
    train, categories = tmp_path / "train.csv", tmp_path / "categories.csv"
    train.write_text("user,item\nu,a\nu,b\nv,c\n")
    categories.write_text("item,category\na,x\n")
    result = invoke(make_runner(), "rank", "--qrels", qrels, "--run", run, "-m",
                    "miscalibration@2", "--train", train, "--item-categories", categories,
                    code=2)  # fmt: skip
    assert result.stderr.startswith(
        "error: receval rank: --item-categories must give the categories of every item of a "
        "history. Got none for 2 items ['b', 'c']; add them."
    )

"""A function named like a peer's metric computes it (or warns with its replacement), and
a metric's value says which users it counted, whatever the entry point."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

import receval
from receval import (
    average_recommendation_popularity,
    catalog_coverage,
    evaluate,
    item_coverage,
)

RB_REC = json.loads((Path(__file__).parents[2] / "peers/data/recorded_recbole.json").read_text())


@pytest.mark.parametrize("case", RB_REC["ranking"], ids=lambda c: c["id"])
def test_item_coverage_is_not_recboles_and_warns_with_the_replacement(case):
    items = np.asarray(case["topk_items"])
    # a popularity from a training log that lacks the catalogue's last item and its
    # padding item 0, as RecBole's item counter of the training split can
    popularity = dict.fromkeys(range(1, case["num_items"] - 1), 1)
    for k in RB_REC["ks"]:
        lists = items[:, :k].tolist()
        expected = case["itemcoverage"][str(k)]
        assert catalog_coverage(lists, catalog=case["num_items"]) == pytest.approx(
            expected, abs=1e-12
        )
        replacement = r"catalog_coverage\(run, catalog=\.\.\., k=\.\.\.\)"
        with pytest.warns(FutureWarning, match=replacement):
            old = item_coverage(lists, popularity=popularity)
        # its catalogue is the popularity's items and the run's: RecBole's value only
        # when that is the whole catalogue
        known = set(popularity) | set(items[:, :k].ravel().tolist())
        assert (old == pytest.approx(expected, abs=1e-12)) == (len(known) == case["num_items"])


def test_item_coverage_streaming_metric_warns_too():
    with pytest.warns(FutureWarning, match="item_coverage is deprecated"):
        receval.metric("item_coverage", popularity={"a": 1})


def _arp_data():
    rng = np.random.default_rng(0)
    popularity = {f"i{j}": int(c) for j, c in enumerate(rng.integers(1, 50, 30))}
    run = {
        f"u{u}": {f"i{j}": float(s) for j, s in zip(rng.choice(30, 12, replace=False),
                                                    rng.random(12), strict=True)}
        for u in range(25)
    }  # fmt: skip
    # 20 of the 25 run users have judgments, and 2 judged users have no list
    qrels = {f"u{u}": {"i0": 1} for u in [*range(5, 25), 40, 41]}
    return popularity, run, qrels


def test_arp_of_evaluate_without_qrels_equals_the_function():
    popularity, run, _ = _arp_data()
    arp = average_recommendation_popularity(run, popularity=popularity, k=10)
    report = evaluate(None, run, ["arp@10"], popularity=popularity)
    assert report.mean["arp@10"] == pytest.approx(arp, abs=1e-12)
    assert arp.n_users == report.n_users_counted["arp@10"] == 25


def test_arp_of_evaluate_with_qrels_counts_the_qrels_users_in_the_run():
    popularity, run, qrels = _arp_data()
    report = evaluate(qrels, run, ["arp@10"], popularity=popularity)
    assert report.n_users_counted["arp@10"] == 20
    assert report.n_run_only_users == 5
    assert report.n_users_missing == 2
    in_qrels = {u: items for u, items in run.items() if u in qrels}
    arp = average_recommendation_popularity(in_qrels, popularity=popularity, k=10)
    assert report.mean["arp@10"] == pytest.approx(arp, abs=1e-12)
    assert report.mean["arp@10"] != pytest.approx(
        average_recommendation_popularity(run, popularity=popularity, k=10), abs=1e-12
    )


def test_beyond_report_keeps_item_coverage_without_a_warning():
    from receval.report.beyond import beyond_records

    popularity, run, _ = _arp_data()
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        records = beyond_records({"m": run}, popularity=popularity, k=5)
    assert 0 < records[0]["item_coverage@5"] <= 1


@pytest.mark.parametrize(
    ("call", "caller"),
    [
        (lambda run: receval.compute("shannon_entropy", run), "receval.compute('shannon_entropy')"),
        (lambda run: receval.shannon_entropy(run), "shannon_entropy"),
        (lambda run: receval.catalog_coverage(run, catalog=5), "catalog_coverage"),
    ],
)  # fmt: skip
def test_a_run_the_reader_refuses_is_named_for_the_callers_run(call, caller):
    # it said "Run: users is empty" and "pass score='<column name>'", a keyword these
    # functions do not take
    import pandas as pd

    with pytest.raises(receval.InputValidationError) as info:
        call({})
    # (compute refuses a call of no row before its accumulator, which takes one)
    empty = "run is" if caller.startswith("receval.compute") else "run: users is"
    assert str(info.value) == f"{caller}: {empty} empty; pass at least one sample."
    with pytest.raises(receval.InputValidationError) as info:
        call(pd.DataFrame({"user": [1], "item": [2]}))
    assert str(info.value) == (
        f"{caller}: run: the data has no column 'score' (the score column). Got columns "
        f"['user', 'item']; pass run=receval.Run.from_frame(run, score='<column name>')."
    )


def test_a_reference_the_reader_refuses_is_named_as_the_reference():
    # run and reference are read by the same reader: the reference was named run
    with pytest.raises(receval.InputValidationError) as info:
        receval.intersection([["a"]], {})
    assert str(info.value) == "intersection: reference: users is empty; pass at least one sample."
    with pytest.raises(receval.InputValidationError) as info:
        receval.intersection([["a"]], [])
    assert str(info.value) == "intersection: reference is empty; pass at least one sample."
    # a reference of empty lists holds users, as {user: {}} of a mapping
    assert receval.intersection([["a"]], [[]]) == receval.intersection([["a"]], {0: {}}) == 0.0

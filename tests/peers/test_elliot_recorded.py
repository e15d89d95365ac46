"""receval against Elliot's own ARP, APLT, ACLT, PopREO and PopRSP, recorded.

``data/recorded_elliot.json`` holds what Elliot's classes returned on seeded
cases (``record_elliot.py`` ran them from Elliot's source; its docstring says
how to regenerate). Each case is a training log, test interactions and top-10
lists; receval reads the same log as ``train=`` (popularity = distinct users,
ties in the order of first appearance, which is the item order the recording
gave Elliot) and Elliot's ``pop_ratio`` as ``head_share``.
"""

import json
import math
import warnings
from pathlib import Path

import pytest

import receval
from receval.exceptions import UndefinedMetricWarning
from receval.metrics.beyond.popularity_table import as_popularity

RECORD = json.loads((Path(__file__).parent / "data" / "recorded_elliot.json").read_text())
KEYS = [(case["seed"], key) for case in RECORD["cases"] for key in case["values"]]


def _inputs(case):
    pairs = [(u, i) for u, items in case["train"].items() for i in items]
    train = ([u for u, _ in pairs], [i for _, i in pairs])
    run = {u: dict(lists) for u, lists in case["recommendations"].items()}
    qrels = {u: {i: 1 for i in rel} for u, rel in case["test"].items()}
    return train, run, qrels


def _case(seed):
    return next(c for c in RECORD["cases"] if c["seed"] == seed)


def test_record_names_its_source():
    assert RECORD["source"]["repo"] == "sisinflab/elliot"
    assert len(RECORD["source"]["commit"]) == 40
    assert len(KEYS) == 12 * 6


@pytest.mark.parametrize(("seed", "key"), KEYS, ids=[f"seed{s}-{k}" for s, k in KEYS])
def test_elliot_recorded(seed, key):
    case = _case(seed)
    expected = case["values"][key]
    ratio, cutoff = float(key.split("@")[0]), int(key.split("@")[1])
    train, run, qrels = _inputs(case)
    head = as_popularity(None, train, "test").head(ratio)
    table = as_popularity(None, train, "test")
    assert sorted(table.item_ids[head].tolist()) == sorted(expected["short_head"])
    metrics = {
        "ARP": f"arp@{cutoff}",
        "APLT": f"aplt(head_share={ratio})@{cutoff}",
        "ACLT": f"aclt(head_share={ratio})@{cutoff}",
    }
    report = receval.evaluate(None, run, list(metrics.values()), train=train)
    users = report.users.tolist()
    for name, metric in metrics.items():
        want = expected[name]["per_user"]
        got = dict(zip(users, report.values[metric].tolist(), strict=True))
        assert got == pytest.approx(want, abs=1e-12), name
        assert report.mean[metric] == pytest.approx(expected[name]["mean"], abs=1e-12), name
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        rsp = receval.popularity_statistical_parity(run, train=train, k=cutoff, head_share=ratio)
        reo = receval.popularity_equal_opportunity(
            qrels, run, train=train, k=cutoff, head_share=ratio
        )
    for name, got in (("PopRSP", rsp), ("PopREO", reo)):
        want = expected[name]
        if want is None or (isinstance(want, float) and math.isnan(want)):
            assert math.isnan(got), name
        else:
            assert got == pytest.approx(want, abs=1e-12), name

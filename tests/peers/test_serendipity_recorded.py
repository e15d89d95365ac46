"""receval against Microsoft Recommenders 1.2.1 and RecTools 0.19.0 on recorded random cases.

``data/recorded_serendipity.json`` holds what the real libraries returned on seeded
random cases (written by ``record_serendipity.py``, whose docstring says how to
regenerate it). Checked to 1e-9.
"""

import json
from pathlib import Path

import numpy as np
import pytest

import receval as rv

DATA = json.loads((Path(__file__).parent / "data" / "recorded_serendipity.json").read_text())
TOL = 1e-9


@pytest.mark.parametrize("case", DATA["recommenders"], ids=lambda c: f"seed{c['seed']}")
@pytest.mark.parametrize("measure", ["item_cooccurrence_count", "item_feature_vector"])
def test_recommenders_recorded(case, measure):
    train = tuple(zip(*case["train"], strict=True))
    users, items, relevance = zip(*case["reco"], strict=True)
    run = rv.Run(users, items, ranks=np.arange(1, len(users) + 1))
    kw = {"qrels": rv.Qrels(users, items, relevance)}
    if measure == "item_feature_vector":
        kw["features"] = np.array(case["features"])
    expected = case[measure]
    per_item = rv.user_item_serendipity(run, train, **kw)
    got = {(u, i): x for u, d in per_item.items() for i, x in d.items()}
    assert got == pytest.approx({(u, i): x for u, i, x in expected["user_item"]}, abs=TOL)
    per_user = rv.user_serendipity(run, train, **kw)
    assert per_user == pytest.approx(dict(map(tuple, expected["user"])), abs=TOL)
    value = rv.serendipity(run, train, **kw)
    assert value == pytest.approx(expected["mean"], abs=TOL)
    assert value.n_users_skipped == run.n_users - len(expected["user"])


def _run(lists):
    return rv.Run.from_dict({int(u): {i: -r for r, i in enumerate(v)} for u, v in lists.items()})


@pytest.mark.parametrize("case", DATA["rectools"], ids=lambda c: f"seed{c['seed']}")
def test_rectools_serendipity_recorded(case):
    run = _run(case["lists"])
    qrels = rv.Qrels(*zip(*case["test"], strict=True))
    train = tuple(zip(*case["prev"], strict=True))
    for k, expected in case["serendipity"].items():
        value = rv.popularity_serendipity(run, qrels, train, catalog=case["catalog"], k=int(k))
        assert value == pytest.approx(expected["mean"], abs=TOL)
        for user, x in expected["per_user"].items():
            one = _run({user: case["lists"][user]})
            got = rv.popularity_serendipity(one, qrels, train, catalog=case["catalog"], k=int(k))
            assert got == pytest.approx(x, abs=TOL)


@pytest.mark.parametrize("case", DATA["rectools"], ids=lambda c: f"seed{c['seed']}")
def test_rectools_intersection_recorded(case):
    run, ref = _run(case["lists"]), _run(case["ref_lists"])
    for key, expected in case["intersection"].items():
        k, ref_k = key.split(",")
        reference_k = None if ref_k == "None" else int(ref_k)
        value = rv.intersection(run, ref, k=int(k), reference_k=reference_k)
        assert value == pytest.approx(expected["mean"], abs=TOL)
        for user, x in expected["per_user"].items():
            one = _run({user: case["lists"][user]})
            got = rv.intersection(one, ref, k=int(k), reference_k=reference_k)
            assert got == pytest.approx(x, abs=TOL)

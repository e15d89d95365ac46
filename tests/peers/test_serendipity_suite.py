"""Microsoft Recommenders' and RecTools' serendipity and intersection tests, held to their word.

Neither library is a test dependency. ``data/serendipity_suite.json`` holds the
inputs and expected values of their own tests (source path and commit with each);
the tolerance of each case is the one its test asserts.
"""

import json
from pathlib import Path

import numpy as np
import pytest

import receval as rv

DATA = Path(__file__).parent / "data"
SUITE = json.loads((DATA / "serendipity_suite.json").read_text())
FRAMES = SUITE["frames"]
CASES = {case["id"]: case for case in SUITE["cases"]}


def _close(actual: float, expected: float, case: dict) -> None:
    rel, abs_ = case.get("rel"), case.get("abs")
    assert actual == pytest.approx(expected, rel=rel or 0, abs=abs_ or 0)


def _recommenders_inputs(case: dict) -> tuple[rv.Run, tuple, dict]:
    train = FRAMES["diversity_train"]
    reco = FRAMES["diversity_reco"]
    run = rv.Run(reco["user"], reco["item"], ranks=np.arange(1, len(reco["user"]) + 1))
    kw: dict = {"qrels": rv.Qrels(reco["user"], reco["item"], reco["relevance"])}
    if case["similarity"] == "features":
        feats = FRAMES["item_features"]
        kw |= {"features": np.array(feats["features"]), "feature_items": feats["item"]}
    return run, (train["user"], train["item"]), kw


@pytest.mark.parametrize("cid", [c for c in CASES if c.startswith("rc_")])
def test_recommenders_serendipity(cid):
    case = CASES[cid]
    run, train, kw = _recommenders_inputs(case)
    if case["kind"] == "user_item_serendipity":
        got = rv.user_item_serendipity(run, train, **kw)
        for u, i, x in zip(case["users"], case["items"], case["expected"], strict=True):
            _close(got[u][i], x, case)
        assert sum(len(v) for v in got.values()) == len(case["expected"])
    elif case["kind"] == "user_serendipity":
        got = rv.user_serendipity(run, train, **kw)
        assert list(got) == case["users"]
        for u, x in zip(case["users"], case["expected"], strict=True):
            _close(got[u], x, case)
    else:
        _close(rv.serendipity(run, train, **kw), case["expected"], case)


def _ranked(name: str) -> rv.Run:
    f = FRAMES[name]
    return rv.Run(f["user"], f["item"], ranks=f["rank"])


@pytest.mark.parametrize("cid", ["rt_serendipity_k1", "rt_serendipity_k2"])
def test_rectools_serendipity(cid):
    case = CASES[cid]
    test, train = FRAMES["rt_test"], FRAMES["rt_train"]
    qrels = rv.Qrels(test["user"], test["item"])
    run = _ranked("rt_reco")
    value = rv.popularity_serendipity(
        run, qrels, (train["user"], train["item"]), catalog=case["catalog"], k=case["k"]
    )
    assert value == pytest.approx(case["expected"], abs=1e-12)
    assert value == pytest.approx(np.mean(case["expected_per_user"]), abs=1e-12)
    for user, expected in zip(case["users"], case["expected_per_user"], strict=True):
        one = {user: run.to_dict()[user]}
        got = rv.popularity_serendipity(
            one, qrels, (train["user"], train["item"]), catalog=case["catalog"], k=case["k"]
        )
        assert got == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(
    "cid", ["rt_intersection_2_2", "rt_intersection_3_none", "rt_intersection_3_6"]
)
def test_rectools_intersection_per_user(cid):
    """Per user, receval's value; where RecTools' rank-value cut keeps the same rows
    (the case's reason says which users), RecTools' own expected value too."""
    case = CASES[cid]
    run, ref = _ranked("int_reco"), _ranked("int_ref")
    lists = {u: list(d) for u, d in sorted(run.to_dict().items())}
    ref_lists = {u: list(d) for u, d in sorted(ref.to_dict().items())}
    per_user = {}
    for user in lists:
        one = rv.Run([user] * len(lists[user]), lists[user], ranks=range(1, len(lists[user]) + 1))
        other = rv.Run(
            [user] * len(ref_lists[user]), ref_lists[user], ranks=range(1, len(ref_lists[user]) + 1)
        )
        per_user[user] = rv.intersection(one, other, k=case["k"], reference_k=case["ref_k"])
    expected = {int(u): x for u, x in case["receval_expected_per_user"].items()}
    assert per_user == pytest.approx(expected, abs=1e-12)
    whole = rv.intersection(run, ref, k=case["k"], reference_k=case["ref_k"])
    assert whole == pytest.approx(np.mean(list(expected.values())), abs=1e-12)
    agree = {2} | ({1, 4, 5} if cid == "rt_intersection_3_6" else set())
    agree |= {1} if cid == "rt_intersection_3_none" else set()
    agree |= {4} if cid == "rt_intersection_2_2" else set()
    rectools = dict(zip(case["users"], case["expected_per_user"], strict=True))
    for user in agree:
        assert per_user[user] == pytest.approx(rectools[user], abs=1e-12)


def test_rectools_calc_intersection():
    case = CASES["rt_calc_intersection"]
    value = rv.intersection(
        _ranked("int_reco_small"), _ranked("int_ref_small"), k=case["k"], reference_k=case["ref_k"]
    )
    assert value == pytest.approx(case["expected"], abs=1e-12)

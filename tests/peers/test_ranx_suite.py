"""ranx's own metric tests, as data (tests/peers/data/ranx.json), through receval's ranx profile.

Every case carries the inputs of one ranx test, the value the test asserts and the tolerance
of its assertion. ``test_receval`` holds receval to it; ``test_ranx_still_says_so`` holds the
installed ranx to it, so a ranx release that changes its numbers shows up here.
"""

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

from receval import TieOrderWarning, evaluate

# ranx compiles its kernels with numba on first use (about two minutes of a fresh
# machine's CPU, cached on disk after): one worker of a parallel run takes every
# module that calls ranx, so that they are compiled once
pytestmark = pytest.mark.xdist_group("ranx")

DATA = json.loads((Path(__file__).parent / "data" / "ranx.json").read_text())
CASES = DATA["cases"]

# cases receval does not reproduce yet: {case id: reason}
XFAIL: dict[str, str] = {}


def _param(case):
    marks = []
    if case["id"] in XFAIL:
        marks.append(pytest.mark.xfail(strict=True, reason=XFAIL[case["id"]]))
    return pytest.param(case, id=case["id"], marks=marks)


def _tolerance(case, expected):
    tol = case["tolerance"]
    return tol["abs"] + tol["rel"] * abs(expected)


def _check(case, users, values):
    """Compare per-user ``values`` (aligned with ``users``) with the case's expectation."""
    got = dict(zip([str(u) for u in users], np.asarray(values, dtype=float).tolist(), strict=True))
    if "mean" in case:
        assert sorted(got) == sorted(case["qrels"])
        mean = float(np.mean([got[u] for u in sorted(got)]))
        assert mean == pytest.approx(case["mean"], abs=_tolerance(case, case["mean"]), rel=0)
    else:
        assert sorted(got) == sorted(case["per_query"])
        for user, expected in case["per_query"].items():
            assert got[user] == pytest.approx(expected, abs=_tolerance(case, expected), rel=0), user


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_receval(case):
    with warnings.catch_warnings():  # no list of 16 items or more has ties: ranx's order is known
        warnings.simplefilter("error", TieOrderWarning)
        # ranx scores a run that retrieves no judged item (0); receval does when asked
        report = evaluate(
            case["qrels"],
            case["run"],
            [case["metric"]],
            profile=case["profile"],
            allow_unmatched=True,
        )
    _check(case, report.users, report.values[case["metric"]])
    if "mean" in case:
        assert report.mean[case["metric"]] == pytest.approx(
            case["mean"], abs=_tolerance(case, case["mean"]), rel=0
        )


@pytest.mark.parametrize("case", [pytest.param(c, id=c["id"]) for c in CASES])
def test_ranx_still_says_so(case):
    import ranx

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        values = ranx.evaluate(
            ranx.Qrels(case["qrels"]),
            ranx.Run(case["run"]),
            case["ranx_metric"],
            return_mean=False,
        )
    _check(case, sorted(case["qrels"]), values)  # ranx orders queries by id


def test_the_data_file_is_complete():
    assert len(CASES) == 58
    assert all(c["source"]["repo"] == "AmenRa/ranx" for c in CASES)
    assert len({c["id"] for c in CASES}) == len(CASES)
    # hits, bpref and rbp.p (graded, grades="raw") are receval metrics now
    assert {c["ranx_metric"] for c in CASES} >= {"hits@5", "bpref", "rbp.5", "rbp.8", "rbp.95"}
    assert DATA["not_applicable"] == []

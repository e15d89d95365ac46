"""Expected exposure equals expeval's, on the values recorded by record_expeval.py.

expeval (github.com/diazf/expeval) is the reference implementation of Diaz et
al. (2020). ``tests/peers/data/recorded_expeval.json`` holds its unnormalised
RBP values (``-u rbp -U``, ``-B`` where ``binary``) per query on seeded random
cases, with the expeval commit; ``record_expeval.py`` says how they were made
and regenerates them.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_allclose

from receval import Qrels, Run, expected_exposure

DATA = json.loads((Path(__file__).parent / "data" / "recorded_expeval.json").read_text())
CASES = [c for c in DATA["cases"] if not c["group"]]


def _run(rows: list, ranks: bool) -> Run:
    users, items, values = zip(*rows, strict=True)
    return Run(list(users), list(items), ranks=list(values)) if ranks else Run(users, items, values)


def _qrels(rows: list) -> Qrels:
    users, items, grades = zip(*rows, strict=True)
    return Qrels(list(users), list(items), list(grades))


def test_recorded_file_names_its_expeval_commit() -> None:
    assert len(DATA["expeval_commit"]) == 40
    assert len(CASES) >= 30
    assert any("samples" in c for c in CASES) and any("run" in c for c in CASES)
    assert any(c["binary"] for c in CASES)


@pytest.mark.parametrize("case", CASES, ids=[f"seed{c['seed']}" for c in CASES])
def test_expected_exposure_equals_expeval(case: dict) -> None:
    if "samples" in case:
        run = [_run(sample, ranks=True) for sample in case["samples"]]
    else:
        run = _run(case["run"], ranks=False)  # tied scores: expeval read every rotation
    report = expected_exposure(
        _qrels(case["qrels"]), run, patience=case["patience"], binary=case["binary"]
    )
    expected = case["expected"]
    assert sorted(report.users.tolist()) == sorted(expected)
    got = np.column_stack([report.ee_disparity, report.ee_relevance, report.ee_loss])
    want = np.array([expected[u] for u in report.users.tolist()])
    assert_allclose(got, want, rtol=1e-12, atol=1e-14)


GROUP_CASES = [c for c in DATA["cases"] if c["group"]]


@pytest.mark.parametrize("case", GROUP_CASES, ids=[f"seed{c['seed']}" for c in GROUP_CASES])
def test_group_expected_exposure_equals_expeval(case: dict) -> None:
    if "samples" in case:
        run = [_run(sample, ranks=True) for sample in case["samples"]]
    else:
        run = _run(case["run"], ranks=False)
    report = expected_exposure(
        _qrels(case["qrels"]),
        run,
        patience=case["patience"],
        binary=case["binary"],
        item_groups=case["item_groups"],
    )
    expected = case["expected"]
    assert sorted(report.users.tolist()) == sorted(expected)
    got = np.column_stack([report.ee_disparity, report.ee_relevance, report.ee_loss])
    want = np.array([expected[u] for u in report.users.tolist()])
    # expeval's disparity of an all-zero exposure vector is inf (its l2 returns inf
    # for a vector without mass); the squared norm of the zero vector is 0
    no_mass = np.isinf(want[:, 0])
    assert (got[no_mass, 0] == 0).all() and (got[no_mass, 1] == 0).all()
    want[no_mass, 0] = 0.0
    assert_allclose(got, want, rtol=1e-12, atol=1e-14)


def test_group_cases_include_an_exposure_free_query() -> None:
    assert any(np.isinf(v[0]) for c in GROUP_CASES for v in c["expected"].values())

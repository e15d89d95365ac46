"""receval against TorchRec's recorded CTR metric values (recorded by
``record_torchrec.py``): NE, recalibrated NE and calibration, calibration-free NE,
NE on positives (TorchRec's clip eta = 1e-12 as eps), regression AUC, grouped regression
AUC and grouped AUPRC; the torchrec profile's AUC where a class has no weight."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import receval as rv

DATA = json.loads((Path(__file__).parent / "data" / "recorded_torchrec_ctr.json").read_text())
CASES = DATA["cases"]
EPS = DATA["eta"]


def _rows(case):
    return np.array(case["labels"]), np.array(case["predictions"]), case["weights"]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"seed{c['seed']}")
def test_normalized_entropies(case):
    y, p, w = _rows(case)
    want = case["values"]
    rate = case["recalibration_coefficient"]
    got = {
        "ne": rv.normalized_entropy(y, p, sample_weight=w, eps=EPS),
        "recalibrated_ne": rv.normalized_entropy(y, p, sample_weight=w, eps=EPS,
                                                 negative_sampling_rate=rate),
        "recalibrated_calibration": rv.pcoc(y, p, sample_weight=w, negative_sampling_rate=rate),
        "cali_free_ne": rv.calibration_free_normalized_entropy(y, p, sample_weight=w, eps=EPS),
        "ne_positive": rv.normalized_entropy_positive(y, p, sample_weight=w, eps=EPS),
    }  # fmt: skip
    for name, value in got.items():
        assert value == pytest.approx(want[name], rel=1e-10), name


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"seed{c['seed']}")
def test_metric_strings_and_accumulators_give_the_recorded_values(case):
    y, p, w = _rows(case)
    w = np.ones(len(y)) if w is None else np.array(w)
    rate = case["recalibration_coefficient"]
    for text, name in [(f"ne(eps={EPS}, negative_sampling_rate={rate})", "recalibrated_ne"),
                       (f"cali_free_ne(eps={EPS})", "cali_free_ne"),
                       (f"ne_positive(eps={EPS})", "ne_positive")]:  # fmt: skip
        acc = rv.metric(text)
        for a in range(0, len(y), 16):
            acc.update(y[a : a + 16], p[a : a + 16], sample_weight=w[a : a + 16])
        assert acc.compute() == pytest.approx(case["values"][name], rel=1e-10), text


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"seed{c['seed']}")
def test_regression_auc_and_grouped_auprc(case):
    targets, scores = np.array(case["targets"]), np.array(case["scores"])
    # TorchRec computes RAUC in float32
    assert rv.regression_auc_score(targets, scores) == pytest.approx(case["values"]["rauc"],
                                                                     rel=1e-6)  # fmt: skip
    got = rv.grouped_auprc_score(case["group_labels"], scores, groups=case["groups"],
                                 sample_weight=case["weights"])  # fmt: skip
    assert got == pytest.approx(case["values"]["grouped_auprc"], rel=1e-6)


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"seed{c['seed']}")
def test_grouped_regression_auc(case):
    targets, scores, groups = (np.array(case[k]) for k in ("targets", "scores", "groups"))
    want = case["values"]["grouped_rauc"]  # float32 in TorchRec
    got = rv.regression_auc_score(targets, scores, groups=groups)
    assert got == pytest.approx(want, rel=1e-6)
    acc = rv.metric("grouped_rauc")
    for a in range(0, len(targets), 16):  # a group's rows in several updates
        acc.update(targets[a : a + 16], scores[a : a + 16], groups=groups[a : a + 16])
    assert acc.compute() == got
    # the mean of the groups' RAUCs, not the RAUC of all rows
    assert abs(rv.regression_auc_score(targets, scores) - want) > 1e-4


@pytest.mark.parametrize("case", DATA["auc_one_class"], ids=["ones", "zeros", "weightless"])
def test_the_torchrec_profiles_auc_where_a_class_has_no_weight(case):
    # TorchRec's AUCMetric gives 0.5 where a class has no rows or no weight
    got = rv.roc_auc_score(case["labels"], case["predictions"], sample_weight=case["weights"],
                           profile="torchrec")  # fmt: skip
    assert got == case["value"] == 0.5

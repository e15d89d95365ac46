"""TorchRec's own tests of NE: the segmented NE cases of its test_segmented_ne.py
(values kept as data in data/torchrec_suite.json, with their source and TorchRec's
tolerance), and the windowed NE of its test protocol (the window is the states of
the last ``batch_window_size`` batches; the lifetime, of every batch)."""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import numpy as np
import pytest

import receval as rv

DATA = json.loads((Path(__file__).parent / "data" / "torchrec_suite.json").read_text())


@pytest.mark.parametrize("case", DATA["segmented_ne"], ids=lambda c: str(c["grouping_keys"]))
def test_segmented_ne(case):
    keys = np.asarray(case["grouping_keys"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rv.UndefinedMetricWarning)
        report = rv.by_segment(
            "normalized_entropy", case["labels"], case["predictions"],
            by=keys, sample_weight=case["weights"],
        )  # fmt: skip
    values = report.values["normalized_entropy"].tolist()
    got = dict(zip(report.segments.tolist(), values, strict=True))
    for segment, want in enumerate(case["expected_ne"]):
        if want is None:  # TorchRec: nan for a segment without rows
            assert segment not in got or math.isnan(got[segment])
        else:
            assert got[segment] == pytest.approx(want, rel=1e-4, abs=1e-4)


@pytest.mark.parametrize("unit", ["batches", "rows"])
def test_windowed_ne_follows_torchrecs_protocol(unit):
    batch_size, window, steps = 32, 5, 10  # BATCH_SIZE, BATCH_WINDOW_SIZE, NSTEPS
    rng = np.random.default_rng(7)
    size = window if unit == "batches" else window * batch_size
    acc = rv.metric("normalized_entropy", window=size, window_unit=unit)
    batches = []
    for _ in range(steps):
        batch = (rng.integers(0, 2, batch_size).astype(float), rng.random(batch_size),
                 rng.random(batch_size))  # fmt: skip
        acc.update(batch[0], batch[1], sample_weight=batch[2])
        batches.append(batch)

    def ne(rows):
        y, p, w = (np.concatenate(c) for c in zip(*rows, strict=True))
        return rv.normalized_entropy(y, p, sample_weight=w)

    assert acc.compute_window() == pytest.approx(ne(batches[steps - window :]), rel=1e-12)
    assert acc.compute() == pytest.approx(ne(batches), rel=1e-12)

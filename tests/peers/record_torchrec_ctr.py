"""Record TorchRec's CTR metric values for receval's parity tests.

TorchRec needs PyTorch (and fbgemm), too heavy for a test dependency, so its values
are recorded once by this script, run by hand, and the test suite
(``tests/peers/test_torchrec_recorded.py``) only reads the recorded file
``tests/peers/data/recorded_torchrec_ctr.json``. pytest collects no test from this
file (``--doctest-modules`` imports it, which needs only the standard library: torch
is imported when the script runs), and it does not import receval.

Regenerate (from the repository root)::

    python3 -m venv /tmp/torchrec-venv
    /tmp/torchrec-venv/bin/pip install torch torchrec fbgemm-gpu numpy
    /tmp/torchrec-venv/bin/python tests/peers/record_torchrec_ctr.py

What is recorded
----------------
Seeded random cases (labels, float64 predictions with values at 0 and 1, weights
or none), fed to each metric computation in batches of 16 rows (``update`` per
batch, the lifetime value of ``_compute``): ``NEMetricComputation``,
``RecalibratedNEMetricComputation`` and ``RecalibratedCalibrationMetricComputation``
(``recalibration_coefficient`` of the case), ``CaliFreeNEMetricComputation``,
``NEPositiveMetricComputation``; and on all the rows, ``rauc._compute_rauc_helper``
(continuous targets with ties), ``rauc.compute_rauc_per_group`` (the same targets in
the case's groups: TorchRec's grouped RAUC) and ``auprc.compute_auprc_per_group``
(groups that each hold a positive and a negative); ``auc.compute_auc`` where a class
has no rows or no weight (``auc_one_class``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

OUT = Path(__file__).parent / "data" / "recorded_torchrec_ctr.json"
BATCH = 16


def _computations(coefficient):
    from torchrec.metrics.cali_free_ne import CaliFreeNEMetricComputation
    from torchrec.metrics.calibration_with_recalibration import (
        RecalibratedCalibrationMetricComputation,
    )
    from torchrec.metrics.ne import NEMetricComputation
    from torchrec.metrics.ne_positive import NEPositiveMetricComputation
    from torchrec.metrics.ne_with_recalibration import RecalibratedNEMetricComputation

    common = {"my_rank": 0, "batch_size": BATCH, "n_tasks": 1, "window_size": 10**6}
    return {
        "ne": NEMetricComputation(**common),
        "recalibrated_ne": RecalibratedNEMetricComputation(
            **common, recalibration_coefficient=coefficient
        ),
        "recalibrated_calibration": RecalibratedCalibrationMetricComputation(
            **common, recalibration_coefficient=coefficient
        ),
        "cali_free_ne": CaliFreeNEMetricComputation(**common),
        "ne_positive": NEPositiveMetricComputation(**common),
    }


def _lifetime(computation):
    for report in computation._compute():
        if report.metric_prefix.value == "lifetime_":
            return float(report.value.reshape(-1)[0])
    raise RuntimeError("no lifetime value")


def main() -> None:
    import numpy as np
    import torch
    import torchrec
    from torchrec.metrics.auprc import compute_auprc_per_group
    from torchrec.metrics.rauc import _compute_rauc_helper, compute_rauc_per_group

    cases = []
    for seed in range(8):
        rng = np.random.default_rng(seed)
        n = int(rng.integers(20, 90))
        labels = (rng.random(n) < rng.uniform(0.1, 0.6)).astype(np.float64)
        labels[:2] = [0.0, 1.0]
        predictions = rng.random(n)
        predictions[rng.random(n) < 0.05] = 1.0
        predictions[rng.random(n) < 0.05] = 0.0
        weighted = seed % 2 == 1
        weights = rng.uniform(0.1, 2.0, n) if weighted else np.ones(n)
        coefficient = float([0.1, 0.25, 0.5, 1.0][seed % 4])
        values = {}
        for name, computation in _computations(coefficient).items():
            for a in range(0, n, BATCH):
                rows = slice(a, a + BATCH)
                computation.update(
                    predictions=torch.tensor(predictions[rows]).reshape(1, -1),
                    labels=torch.tensor(labels[rows]).reshape(1, -1),
                    weights=torch.tensor(weights[rows]).reshape(1, -1),
                )
            values[name] = _lifetime(computation)
        targets = rng.integers(0, 6, n).astype(np.float64)
        scores = np.round(rng.random(n), 1)
        values["rauc"] = float(
            _compute_rauc_helper(torch.tensor(scores), torch.tensor(targets), torch.ones(n))
        )
        groups = np.repeat(np.arange(4), -(-n // 4))[:n]
        values["grouped_rauc"] = float(
            compute_rauc_per_group(
                1, [torch.tensor(scores).reshape(1, -1)], [torch.tensor(targets).reshape(1, -1)],
                [torch.ones(1, n)], torch.tensor(groups),
            )[0]
        )  # fmt: skip
        group_labels = labels.copy()
        for g in range(4):  # a positive and a negative in every group
            first = int(np.flatnonzero(groups == g)[0])
            group_labels[first : first + 2] = [1.0, 0.0]
        values["grouped_auprc"] = float(
            compute_auprc_per_group(
                1, torch.tensor(scores).reshape(1, -1), torch.tensor(group_labels).reshape(1, -1),
                torch.tensor(weights).reshape(1, -1), torch.tensor(groups),
            )[0]
        )  # fmt: skip
        cases.append({
            "seed": seed, "labels": labels.tolist(), "predictions": predictions.tolist(),
            "weights": weights.tolist() if weighted else None,
            "recalibration_coefficient": coefficient, "targets": targets.tolist(),
            "scores": scores.tolist(), "groups": groups.tolist(),
            "group_labels": group_labels.tolist(), "values": values,
        })  # fmt: skip
    from torchrec.metrics.auc import compute_auc

    one_class = []  # AUCMetric where a class has no rows or no weight: its default
    for labels, weights in (([1.0, 1.0, 1.0], None), ([0.0, 0.0], None),
                            ([1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 2.0])):  # fmt: skip
        predictions = [0.2, 0.5, 0.9, 0.4][: len(labels)]
        w = weights if weights is not None else [1.0] * len(labels)
        value = compute_auc(1, [torch.tensor([predictions])], [torch.tensor([labels])],
                            [torch.tensor([w])])  # fmt: skip
        one_class.append({"labels": labels, "predictions": predictions, "weights": weights,
                          "value": float(value[0])})  # fmt: skip
    versions = {"torchrec": torchrec.__version__, "torch": torch.__version__,
                "python": sys.version.split()[0]}  # fmt: skip
    OUT.write_text(json.dumps({"versions": versions, "eta": 1e-12, "cases": cases,
                               "auc_one_class": one_class}, indent=1)
                   + "\n")  # fmt: skip


if __name__ == "__main__":
    main()

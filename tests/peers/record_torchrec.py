"""Record TorchRec's metric values for receval's parity tests.

TorchRec needs PyTorch (and fbgemm), too heavy for a test dependency, so its values
are recorded once by this script, run by hand, and the test suite only reads the
recorded files: ``tests/peers/data/recorded_torchrec_ctr.json``
(``tests/peers/test_torchrec_recorded.py``) and
``tests/peers/data/recorded_torchrec_ndcg.json``
(``tests/peers/test_torchrec_ndcg_suite.py``). pytest collects no test from this file
(``--doctest-modules`` imports it, which needs only the standard library: torch is
imported when the script runs), and it does not import receval.

Regenerate (from the repository root)::

    python3 -m venv /tmp/torchrec-venv
    /tmp/torchrec-venv/bin/pip install torchrec==1.9.2 fbgemm-gpu-cpu==1.9.0 torch==2.14.1 numpy
    /tmp/torchrec-venv/bin/python tests/peers/record_torchrec.py

What is recorded
----------------
CTR metrics (``recorded_torchrec_ctr.json``):
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

NDCG (``recorded_torchrec_ndcg.json``):
Seeded random cases of 8 to 19 sessions of 1 to 7 rows (labels 0, 0.5, 1, 2 or 3, or
0 and 1 for a negative task; sessions without a positive label; distinct predictions,
as TorchRec orders tied predictions by no rule; unit or random weights), fed to
``NDCGComputation`` (``n_tasks=1``) in batches of whole sessions (``update`` per
batch, the lifetime value of ``_compute``), each case under one set of its options:
``exponential_gain``, ``k`` (-1 or 3), ``remove_single_length_sessions``,
``scale_by_weights_tensor``, ``report_ndcg_as_decreasing_curve`` and
``is_negative_task_mask``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

DATA = Path(__file__).parent / "data"
BATCH = 16
SESSIONS_PER_BATCH = 4


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


def _options(seed: int) -> dict:
    return {
        "exponential_gain": bool(seed & 1),
        "k": (-1, 3)[seed >> 1 & 1],
        "remove_single_length_sessions": bool(seed >> 2 & 1),
        "scale_by_weights_tensor": seed % 3 == 2,
        "report_ndcg_as_decreasing_curve": seed % 5 != 3,
        "is_negative_task": seed % 5 == 4,
    }


def record_ctr() -> None:
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
    recorded = {"versions": versions, "eta": 1e-12, "cases": cases, "auc_one_class": one_class}
    (DATA / "recorded_torchrec_ctr.json").write_text(json.dumps(recorded, indent=1) + "\n")


def record_ndcg() -> None:
    import numpy as np
    import torch
    import torchrec
    from torchrec.metrics.ndcg import NDCGComputation

    cases = []
    for seed in range(16):
        rng = np.random.default_rng(seed)
        options = _options(seed)
        lengths = rng.integers(1, 8, int(rng.integers(8, 20)))
        sessions = np.repeat(np.arange(len(lengths)), lengths)
        n = len(sessions)
        grades = [0.0, 1.0] if options["is_negative_task"] else [0.0, 0.0, 0.5, 1.0, 2.0, 3.0]
        labels = rng.choice(grades, n)
        predictions = rng.permutation(n) / n + rng.uniform(0.0, 0.5 / n, n)
        weights = rng.uniform(0.5, 2.0, n) if seed % 4 else np.ones(n)
        computation = NDCGComputation(
            my_rank=0, batch_size=n, n_tasks=1, window_size=10**6,
            exponential_gain=options["exponential_gain"], k=options["k"],
            remove_single_length_sessions=options["remove_single_length_sessions"],
            scale_by_weights_tensor=options["scale_by_weights_tensor"],
            report_ndcg_as_decreasing_curve=options["report_ndcg_as_decreasing_curve"],
            is_negative_task_mask=[options["is_negative_task"]],
        )  # fmt: skip
        ends = np.searchsorted(sessions, np.arange(0, len(lengths), SESSIONS_PER_BATCH)[1:])
        for rows in np.split(np.arange(n), ends):

            def column(values, rows=rows):
                return torch.tensor(values[rows]).reshape(1, -1)

            computation.update(
                predictions=column(predictions), labels=column(labels),
                weights=column(weights),
                required_inputs={"session_id": column(sessions)},
            )  # fmt: skip
        cases.append({
            "seed": seed, "options": options, "session_ids": sessions.tolist(),
            "labels": labels.tolist(), "predictions": predictions.tolist(),
            "weights": weights.tolist(), "value": _lifetime(computation),
        })  # fmt: skip
    versions = {"torchrec": torchrec.__version__, "torch": torch.__version__,
                "python": sys.version.split()[0]}  # fmt: skip
    rows = ",\n".join(json.dumps(case) for case in cases)  # one case a line
    (DATA / "recorded_torchrec_ndcg.json").write_text(
        f'{{"versions": {json.dumps(versions)}, "cases": [\n{rows}\n]}}\n'
    )


def main() -> None:
    record_ctr()
    record_ndcg()


if __name__ == "__main__":
    main()

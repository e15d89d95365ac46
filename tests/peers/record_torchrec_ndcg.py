"""Record TorchRec's NDCG values for receval's parity tests.

TorchRec needs PyTorch (and fbgemm), too heavy for a test dependency, so its values
are recorded once by this script, run by hand, and the test suite
(``tests/peers/test_torchrec_ndcg_suite.py``) only reads the recorded file
``tests/peers/data/recorded_torchrec_ndcg.json``. pytest collects no test from this
file (``--doctest-modules`` imports it, which needs only the standard library: torch
is imported when the script runs), and it does not import receval.

Regenerate (from the repository root)::

    python3 -m venv /tmp/torchrec-venv
    /tmp/torchrec-venv/bin/pip install torchrec==1.9.2 fbgemm-gpu-cpu==1.9.0 torch==2.14.1
    /tmp/torchrec-venv/bin/python tests/peers/record_torchrec_ndcg.py

What is recorded
----------------
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

OUT = Path(__file__).parent / "data" / "recorded_torchrec_ndcg.json"
SESSIONS_PER_BATCH = 4


def _options(seed: int) -> dict:
    return {
        "exponential_gain": bool(seed & 1),
        "k": (-1, 3)[seed >> 1 & 1],
        "remove_single_length_sessions": bool(seed >> 2 & 1),
        "scale_by_weights_tensor": seed % 3 == 2,
        "report_ndcg_as_decreasing_curve": seed % 5 != 3,
        "is_negative_task": seed % 5 == 4,
    }


def _lifetime(computation) -> float:
    for report in computation._compute():
        if report.metric_prefix.value == "lifetime_":
            return float(report.value.reshape(-1)[0])
    raise RuntimeError("no lifetime value")


def main() -> None:
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
    OUT.write_text(f'{{"versions": {json.dumps(versions)}, "cases": [\n{rows}\n]}}\n')


if __name__ == "__main__":
    main()

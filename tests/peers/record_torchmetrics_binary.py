"""Record torchmetrics' BinaryAUROC and BinaryAveragePrecision, one-class targets included.

torchmetrics needs PyTorch, too heavy for a test dependency, so its numbers are
recorded once by this script, run by hand, and the test suite
(``tests/peers/test_undefined_conventions.py``) only reads the recorded file
``tests/peers/data/recorded_torchmetrics_binary.json``. pytest collects no test
from this file; ``--doctest-modules`` imports it, which needs only the standard
library (torch is imported when the script runs). It does not import receval.

Regenerate (from the repository root; only PyPI is needed)::

    python3 -m venv /tmp/tm-venv
    /tmp/tm-venv/bin/pip install torchmetrics==1.9.0 torch numpy
    /tmp/tm-venv/bin/python tests/peers/record_torchmetrics_binary.py

What is recorded
----------------
Seeded cases of ``(preds, target)``: targets of both classes (scores distinct, or
multiples of 1/4 with many ties) and targets of one class only (all 0, all 1),
of 1 to 40 rows. For each, ``BinaryAUROC()`` and ``BinaryAveragePrecision()``
(``thresholds=None``: exact; ``update`` then ``compute``) in float32, each as the
shortest decimal that reads back as the same float32, or null for nan, with the
warnings torchmetrics emitted.
"""

from __future__ import annotations

import json
import math
import re
import sys
import warnings
from pathlib import Path

OUT = Path(__file__).parent / "data" / "recorded_torchmetrics_binary.json"
# (id, seed, rows, kind): kind "both", "ties" (both classes, tied scores), "zeros", "ones"
CASES = (
    [(f"both_{s}", s, 8 + 4 * s, "both") for s in range(4)]
    + [(f"ties_{s}", 10 + s, 6 + 5 * s, "ties") for s in range(4)]
    + [(f"zeros_{s}", 20 + s, 1 + 9 * s, "zeros") for s in range(4)]
    + [(f"ones_{s}", 30 + s, 1 + 9 * s, "ones") for s in range(4)]
)


def _f32(x: float) -> float | None:
    """The shortest decimal that reads back as float32 ``x`` (None for nan)."""
    import numpy as np

    x = np.float32(x)
    if math.isnan(x):
        return None
    return float(np.format_float_positional(x, unique=True, trim="-"))


def make_case(case_id: str, seed: int, rows: int, kind: str) -> dict:
    import numpy as np

    rng = np.random.default_rng(seed)
    if kind == "ties":
        preds = rng.integers(0, 5, rows) / 4.0
    else:
        preds = rng.random(rows)
    if kind == "zeros":
        target = np.zeros(rows, dtype=int)
    elif kind == "ones":
        target = np.ones(rows, dtype=int)
    else:
        target = rng.integers(0, 2, rows)
        target[:2] = [0, 1]  # both classes
    return {
        "id": case_id,
        "seed": seed,
        "preds": [_f32(p) for p in preds],
        "target": [int(t) for t in target],
    }


def record(case: dict) -> dict:
    import torch
    from torchmetrics.classification import BinaryAUROC, BinaryAveragePrecision

    preds = torch.tensor(case["preds"], dtype=torch.float32)
    target = torch.tensor(case["target"], dtype=torch.long)
    out = {}
    for name, cls in (("auroc", BinaryAUROC), ("average_precision", BinaryAveragePrecision)):
        metric = cls()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            metric.update(preds, target)
            value = float(metric.compute())
        out[name] = {
            "value": _f32(value),
            "warnings": sorted({str(w.message) for w in caught}),
        }
    return {**case, "values": out}


def _dump(data) -> str:
    text = json.dumps(data, indent=1)
    return re.sub(
        r"\[\s*([^\[\]{}]*?)\s*\]",
        lambda m: "[" + re.sub(r"\s*\n\s*", " ", m.group(1)) + "]",
        text,
    )


def main() -> None:
    import platform

    import numpy as np
    import torch
    import torchmetrics

    torch.set_num_threads(1)
    data = {
        "about": (
            "torchmetrics' BinaryAUROC and BinaryAveragePrecision, recorded from the real "
            "library by tests/peers/record_torchmetrics_binary.py (see its docstring); read by "
            "tests/peers/test_undefined_conventions.py. torchmetrics computes in float32."
        ),
        "source": {
            "repo": "Lightning-AI/torchmetrics",
            "tag": f"v{torchmetrics.__version__}",
            "path": "src/torchmetrics/functional/classification/auroc.py, average_precision.py",
        },
        "versions": {
            "python": sys.version.split()[0],
            "torch": torch.__version__,
            "torchmetrics": torchmetrics.__version__,
            "numpy": np.__version__,
            "platform": platform.platform(),
        },
        "cases": [record(make_case(*c)) for c in CASES],
    }
    OUT.write_text(_dump(data) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()

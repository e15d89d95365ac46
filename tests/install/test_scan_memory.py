"""``scan(..., max_memory=)`` holds for the whole process: a child process reads a
Parquet file of 6M impressions with AUC (float64 scores, and float32 scores, which
the exact AUC gathers twice as many of), GAUC and log loss under a budget of
128 MiB, and its peak resident memory may grow by at most the budget above what
it held once pyarrow's reader had run (its thread pools started)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

BUDGET_MIB = 128
CHILD = """
import re, sys
import receval

def mib(field):  # VmHWM: the peak of this process's own memory (a fork's is not counted)
    text = open("/proc/self/status").read()
    return int(re.search(field + r":\\s+(\\d+)", text).group(1)) / 1024

warm = receval.scan(sys.argv[2])  # the reader's thread pools start here
receval.roc_auc_score(warm["click"], warm["score"])
receval.gauc_score(warm["click"], warm["score"], groups=warm["user"])
s = receval.scan(sys.argv[1], max_memory=int(sys.argv[4]) << 20)
base = mib("VmRSS")
metric = sys.argv[3]
if metric in ("auc", "auc_float32"):
    receval.roc_auc_score(s["click"], s["score"])
elif metric == "gauc":
    receval.gauc_score(s["click"], s["score"], groups=s["user"])
else:
    receval.log_loss(s["click"], s["score"])
print(mib("VmHWM") - base)
"""


@pytest.fixture(scope="module")
def impressions(tmp_path_factory):
    folder = tmp_path_factory.mktemp("impressions")
    rng = np.random.default_rng(0)
    n = 6_000_000
    table = pa.table({
        "user": np.sort(rng.integers(0, 60_000, n)),
        "click": (rng.random(n) < 0.1).astype(np.int8),
        "score": rng.random(n),
    })  # fmt: skip
    path, tiny = folder / "impressions.parquet", folder / "tiny.parquet"
    pq.write_table(table, path, row_group_size=250_000)
    pq.write_table(table.slice(0, 100), tiny)
    float32 = folder / "float32.parquet"
    scores = table["score"].cast(pa.float32())
    pq.write_table(table.set_column(2, "score", scores), float32, row_group_size=250_000)
    return str(path), str(tiny), str(float32)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("metric", ["auc", "auc_float32", "gauc", "log_loss"])
def test_the_memory_budget_holds_for_the_process(impressions, metric):
    path, tiny, float32 = impressions
    path = float32 if metric == "auc_float32" else path
    out = subprocess.run(
        [sys.executable, "-c", CHILD, path, tiny, metric, str(BUDGET_MIB)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    grown = float(out.stdout.split()[-1])
    assert grown <= BUDGET_MIB, f"{metric}: {grown:.0f} MiB above the baseline"

"""``evaluate`` from Parquet files in a process whose address space is limited
(``ulimit -v``, as batch schedulers and containers set it): polars' reader reserves
about a gigabyte of address space for its threads, so under a limit the files are
read with pyarrow, and the evaluation fits."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

resource = pytest.importorskip("resource")

CHILD = """
import sys
import receval
report = receval.evaluate(sys.argv[1], sys.argv[2], ["ndcg@10", "map"])
print(report.mean["ndcg@10"], report.mean["map"])
"""


def _limit(gib: float):
    def apply() -> None:
        size = int(gib * (1 << 30))
        resource.setrlimit(resource.RLIMIT_AS, (size, size))

    return apply


def test_evaluate_from_parquet_under_an_address_space_limit(tmp_path):
    rng = np.random.default_rng(0)
    n_users, length = 20_000, 50
    users = np.repeat(np.arange(n_users), length)
    items = np.arange(n_users * length) % 5000
    run, qrels = tmp_path / "r.parquet", tmp_path / "q.parquet"
    pq.write_table(pa.table({"user": users, "item": items, "score": rng.random(len(users))}), run)
    pq.write_table(pa.table({"user": users[::5], "item": items[::5], "grade": np.ones(
        len(users[::5]), dtype=np.int64)}), qrels)  # fmt: skip
    free = subprocess.run(
        [sys.executable, "-c", CHILD, str(qrels), str(run)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    limited = subprocess.run(
        [sys.executable, "-c", CHILD, str(qrels), str(run)],
        capture_output=True, text=True, preexec_fn=_limit(2.0),
    )  # fmt: skip
    assert limited.returncode == 0, limited.stderr[-2000:]
    assert limited.stdout == free.stdout

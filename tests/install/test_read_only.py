"""receval from a read-only installation, with HOME unset: no kernel writes a
cache, so every metric works in a hardened container or a YARN executor."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

import receval

PACKAGE = Path(receval.__file__).parent

SCRIPT = r"""
import sys
import numpy as np
import receval as rv

rng = np.random.default_rng(0)
y = (rng.random(5000) < 0.3).astype(np.int8)
s = rng.random(5000)
g = rng.integers(0, 100, 5000)
assert 0 < rv.roc_auc_score(y, s) < 1
assert rv.log_loss(y, s * 0.98 + 0.01) > 0
assert 0 < rv.gauc_score(y, s, groups=g) < 1
assert rv.pcoc(y, s) > 0
d = rng.random((300, 2))
assert np.all((rv.paired_pvalues(d, n_permutations=200) >= 0))
low, high = rv.bootstrap_intervals(d, n_resamples=200)
assert np.all(low <= high)
report = rv.evaluate({"u": {"a": 1, "b": 2}, "v": {"c": 1}},
                     {"u": {"a": 0.9, "c": 0.5}, "v": {"c": 0.2, "a": 0.1}},
                     ["ndcg@10", "map", "p@1", "recall@2"])
assert 0 < report.mean["ndcg@10"] <= 1
import pyarrow as pa
events = pa.table({"user": [1, 1, 2, 2, 3], "time": ["2024-01-01", "2024-01-02", "2024-01-01",
                   "2024-01-03", "2024-01-02"]})
assert rv.retention(events, user="user", time="time", days=1).new_users.sum() == 3
print("ok")
"""


def _read_only_copy(tmp_path: Path) -> Path:
    site = tmp_path / "site"
    shutil.copytree(PACKAGE, site / "receval", ignore=shutil.ignore_patterns("__pycache__"))
    for root, dirs, files in os.walk(site):
        for name in dirs + files:
            p = Path(root) / name
            p.chmod(p.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    site.chmod(site.stat().st_mode & ~stat.S_IWUSR)
    return site


@pytest.mark.skipif(
    not list(PACKAGE.glob("_core*")), reason="the compiled core is not built in place"
)
def test_metrics_work_from_a_read_only_install_without_home(tmp_path):
    site = _read_only_copy(tmp_path)
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(site),
           "PYTHONDONTWRITEBYTECODE": "1"}  # fmt: skip
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, cwd=tmp_path
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "ok"  # the compiled core: nothing compiled, nothing cached

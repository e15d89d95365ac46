"""Scratch memory per thread is bounded by the longest list, not by the catalogue:
the peak memory of `evaluate` over a large catalogue is the same with 1 and 8
threads (no catalogue-sized table per thread)."""

from __future__ import annotations

import os
import subprocess
import sys

SCRIPT = r"""
import resource
import numpy as np
import receval as rv

rng = np.random.default_rng(0)
n_users, n_items, k = 4000, 2_000_000, 50
users = np.repeat(np.arange(n_users), k)
stride = n_items // k  # position j of a list draws from its own range: no repeats
items = rng.integers(0, stride, n_users * k) + np.arange(n_users * k) % k * stride
run = rv.Run(users, items, rng.random(n_users * k))
qrels = rv.Qrels(users[::5], items[::5])
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
rv.evaluate(qrels, run, ["ndcg@10", "map", "recall@50"])
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(after - before)
"""


def _extra_kib(threads: int) -> int:
    env = dict(os.environ, RECEVAL_NUM_THREADS=str(threads))
    out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    return int(out.stdout.strip())


def test_evaluate_memory_does_not_grow_with_threads():
    one, eight = _extra_kib(1), _extra_kib(8)
    # 8 catalogue-sized int32 tables would add 8 x 8 MB; allow 10% and 4 MiB of noise
    assert eight <= one * 1.1 + 4096, (one, eight)

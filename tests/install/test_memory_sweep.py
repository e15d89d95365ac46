"""Reading and ranking TREC files under a sweep of limits on the address space
(``ulimit -v``): every run either gives its result or stops with a MemoryError
(``error: out of memory`` and exit 1 on the command line), never a signal (the
allocator's abort) and never a raw traceback.

The limits are set after the imports, at the child's own address space plus a
margin that grows from nothing to what the whole evaluation needs, so that the
sweep crosses the reader's and the kernels' allocations wherever the machine
(its cores, hence its threads' stacks) puts them.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

resource = pytest.importorskip("resource")

# from 20 MB: with less, the interpreter itself may fail to start the thread that
# reads the qrels (a thread's stack is 8 MB of address space), and CPython then
# waits forever in Thread.start (the thread dies before it says it started)
MARGINS_MB = list(range(20, 321, 20))

LIMIT = """
import contextlib, io, os, resource, sys, tempfile
import receval as rv
# the modules the work imports are loaded before the limit (a shared library that
# cannot be mapped under it is an ImportError, not the subject here): by an
# evaluation of ids given in Python, then a first run of the work itself (warmed)
rv.evaluate(rv.Qrels(["u"], ["a"]), rv.Run(["u"], ["a"], [1.0]), ["ndcg@10", "map"])
def limit(margin_mb):
    with open("/proc/self/status") as f:
        vm = next(int(line.split()[1]) for line in f if line.startswith("VmSize:")) * 1024
    size = vm + margin_mb * (1 << 20)
    resource.setrlimit(resource.RLIMIT_AS, (size, size))
def warmed(first):
    # a first run of the work on tiny TREC files, a tie among their scores: what
    # reading and ranking them imports, and Arrow's allocator started (a few ids
    # given in Python touch no Arrow module)
    with tempfile.TemporaryDirectory() as tmp:
        q, r = os.path.join(tmp, "q.txt"), os.path.join(tmp, "r.run")
        with open(q, "w") as f:
            f.write("u 0 a 1\\n")
        with open(r, "w") as f:
            f.write("u Q0 a 1 0.5 t\\nu Q0 b 2 0.5 t\\n")
        out, err = io.StringIO(), io.StringIO()  # its output and its note on the tie
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            with contextlib.suppress(SystemExit):
                first(q, r)
"""

CLI = (
    LIMIT
    + """
from receval.cli import main
margin, args = int(sys.argv[1]), sys.argv[2:]
def rank(q, r):
    sys.argv = ["receval", "rank", "--qrels", q, "--run", r, "-m", "ndcg@10"]
    main()
warmed(rank)
limit(margin)
sys.argv = ["receval"] + args
main()
"""
)

API = (
    LIMIT
    + """
warmed(lambda q, r: rv.evaluate(q, rv.Run.from_trec(r), ["ndcg@10", "map"]))
limit(int(sys.argv[1]))
try:
    run = rv.Run.from_trec(sys.argv[3])
    report = rv.evaluate(sys.argv[2], run, ["ndcg@10", "map"])
    print("ok", report.mean["ndcg@10"])
except MemoryError as exc:
    print("MemoryError:", exc)
"""
)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("sweep")
    rng = np.random.default_rng(0)
    n_users, k = 40_000, 50
    qrels, run = tmp / "q.txt", tmp / "r.run"
    with qrels.open("w") as f:
        for u in range(n_users):
            f.write("".join(f"u{u} 0 i{j} 1\n" for j in rng.choice(2000, 3, replace=False)))
    with run.open("w") as f:
        for u in range(n_users):
            items, scores = rng.choice(2000, k, replace=False), rng.random(k)
            f.write("".join(f"u{u} Q0 i{items[j]} {j + 1} {scores[j]:.6f} t\n" for j in range(k)))
    return qrels, run


# one malloc arena: otherwise the per-thread arenas the warm-up reserved (64 MB of
# address space each, counted in VmSize) hold room the limit does not see, and
# whether a margin fits depends on how many threads the machine ran before
ENV = {**os.environ, "MALLOC_ARENA_MAX": "1"}


def _sweep(code, margins, *args):
    return {
        margin: subprocess.run(
            [sys.executable, "-c", code, str(margin), *args],
            capture_output=True,
            text=True,
            timeout=120,
            env=ENV,
        )
        for margin in margins
    }


def test_rank_under_address_space_limits_never_aborts(files):
    qrels, run = files
    outs = _sweep(
        CLI, MARGINS_MB, "rank", "--qrels", str(qrels), "--run", str(run), "-m", "ndcg@10"
    )
    for margin, out in outs.items():
        where = f"margin {margin} MB: rc {out.returncode}\n{out.stderr[-3000:]}"
        assert out.returncode in (0, 1), where  # a negative code is a signal (SIGABRT)
        assert "Traceback" not in out.stderr and "panicked" not in out.stderr, where
        if out.returncode == 1:
            assert out.stderr.startswith("error: out of memory"), where
        else:
            assert "ndcg@10" in out.stdout, where
    # the sweep crosses from limits that do not fit to one that does
    assert outs[MARGINS_MB[-1]].returncode == 0
    assert any(out.returncode == 1 for out in outs.values())


def test_from_trec_and_evaluate_under_address_space_limits_raise_memory_error(files):
    qrels, run = files
    outs = _sweep(API, [0, 5, 10, *MARGINS_MB], str(qrels), str(run))
    for margin, out in outs.items():
        where = f"margin {margin} MB: rc {out.returncode}\n{out.stderr[-3000:]}{out.stdout}"
        assert out.returncode == 0, where
        assert "Traceback" not in out.stderr and "panicked" not in out.stderr, where
        assert out.stdout.startswith(("ok ", "MemoryError:")), where
    assert outs[MARGINS_MB[-1]].stdout.startswith("ok ")
    assert any(out.stdout.startswith("MemoryError:") for out in outs.values())

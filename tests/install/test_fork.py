"""A process forked after the kernels' thread pool ran computes correctly.

A forked child inherits the pool's memory but none of its threads; the core
builds a new pool in the child. Each case runs in a subprocess with a timeout,
so a regression (a child waiting forever on the parent's pool) fails the test
instead of hanging the suite.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="fork() is POSIX only")

# a randomization test big enough for the parallel path (several chunks on the pool)
COMMON = """
import os, sys, threading, time
import numpy as np
import receval as rv

rng = np.random.default_rng(0)
D = rng.normal(0.05, 1.0, (4000, 2))

def pvalues(seed):
    return rv.paired_pvalues(D, n_permutations=20_000, seed=seed).tolist()

def evaluate(shard):
    users = np.repeat(np.arange(shard * 1000, (shard + 1) * 1000), 20)
    items = np.tile(np.arange(20), 1000)
    scores = np.random.default_rng(shard).random(len(users))
    run = rv.Run(users, items, scores)
    qrels = rv.Qrels(users[::4], items[::4])
    return float(rv.evaluate(qrels, run, ["ndcg@10"]).mean["ndcg@10"])
"""


def _run(body: str, timeout: float = 120) -> str:
    """Run ``COMMON + body`` in a new session; on timeout, kill the whole session
    (the hung children too) and fail."""
    script = COMMON + textwrap.dedent(body)
    env = dict(os.environ, RECEVAL_NUM_THREADS="4")
    proc = subprocess.Popen(
        [sys.executable, "-c", script], env=env, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"the forked child hung (killed after {timeout} s)")
    assert proc.returncode == 0, stderr[-3000:]
    return stdout


def test_multiprocessing_fork_children_compute():
    out = _run(
        """
        import multiprocessing as mp
        parent = [pvalues(s) for s in range(3)]  # the parent's pool is up
        with mp.get_context("fork").Pool(2) as pool:
            children = pool.map(pvalues, range(3), chunksize=1)
        assert children == parent, (children, parent)
        print("ok")
        """
    )
    assert out.strip() == "ok"


def test_os_fork_while_another_thread_is_inside_a_kernel():
    out = _run(
        """
        expected = pvalues(7)
        busy = threading.Thread(
            target=lambda: rv.paired_pvalues(D, n_permutations=3_000_000, seed=1)
        )
        busy.start()
        time.sleep(0.2)  # the other thread is inside the kernel, on the pool
        pid = os.fork()
        if pid == 0:
            try:
                ok = pvalues(7) == expected
            finally:
                os._exit(0 if ok else 3)
        deadline = time.monotonic() + 60
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() > deadline:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
                sys.exit("the forked child hung")
            time.sleep(0.05)
        busy.join()
        assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
        print("ok")
        """
    )
    assert out.strip() == "ok"


def test_data_loader_like_workers_evaluate():
    """As PyTorch's DataLoader: the parent evaluates (its pool up), then forks
    workers that each evaluate their own shard."""
    out = _run(
        """
        import multiprocessing as mp
        expected = [evaluate(s) for s in range(4)]
        pvalues(0)
        ctx = mp.get_context("fork")
        queue = ctx.Queue()
        def worker(shard):
            queue.put((shard, evaluate(shard), pvalues(shard)))
        workers = [ctx.Process(target=worker, args=(s,)) for s in range(4)]
        for w in workers:
            w.start()
        got = dict((s, (v, p)) for s, v, p in (queue.get(timeout=60) for _ in workers))
        for w in workers:
            w.join(timeout=60)
            assert w.exitcode == 0, w.exitcode
        assert [got[s][0] for s in range(4)] == expected
        assert [got[s][1] for s in range(4)] == [pvalues(s) for s in range(4)]
        print("ok")
        """
    )
    assert out.strip() == "ok"


@pytest.mark.parametrize("value", ["0", "-1", "abc", "2.5"])
def test_invalid_num_threads_is_an_error_naming_the_variable(value):
    env = dict(os.environ, RECEVAL_NUM_THREADS=value)
    code = "import receval as rv; rv.roc_auc_score([0, 1], [0.2, 0.8])"
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 1
    assert (
        "receval.exceptions.InvalidParameterError: The RECEVAL_NUM_THREADS environment "
        f"variable must be a positive integer (the number of threads of receval's kernels). "
        f"Got '{value}' instead; set it to e.g. 4, or unset it to use every available core."
    ) in out.stderr, out.stderr[-2000:]


def test_valid_num_threads_is_used():
    env = dict(os.environ, RECEVAL_NUM_THREADS=" 3 ")
    code = "from receval._kernels import num_threads; print(num_threads())"
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
    )
    assert out.stdout.strip() == "3", out.stderr[-2000:]

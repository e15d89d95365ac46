"""Ctrl-C stops a long statistics kernel within a second.

The kernels run without the GIL; the calling thread takes it back every 50 ms
to let Python handle its signals, and a KeyboardInterrupt stops the kernel's
threads. Each case starts a call that would run for minutes, sends SIGINT once
it is inside the kernel, and expects the process to end soon after.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child is POSIX")

# minutes of work (10**11 steps and more), well under the 10**12 limit
SETUP = """
import sys
import numpy as np
import receval as rv
d = np.random.default_rng(0).normal(0.01, 1.0, 200_000)
print("go", flush=True)
"""
CALLS = {
    "paired_pvalues": "rv.paired_pvalues(d, n_permutations=2_000_000)",
    "bootstrap_intervals": "rv.bootstrap_intervals(d, n_resamples=1_000_000)",
}


def _interrupt(cmd: list[str], *, after: float = 1.0, within: float = 3.0) -> tuple[float, str]:
    """Start ``cmd``, wait for its "go" line plus ``after`` seconds, send SIGINT;
    return the seconds it took to end and its stderr (killed and failed past ``within``)."""
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.strip() == "go", (line, proc.stderr.read() if proc.stderr else "")
        time.sleep(after)
        assert proc.poll() is None, "the call ended before it could be interrupted"
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        try:
            _, stderr = proc.communicate(timeout=within)
        except subprocess.TimeoutExpired:
            pytest.fail(f"still running {within} s after SIGINT")
        return time.monotonic() - sent, stderr
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()


@pytest.mark.parametrize("name", sorted(CALLS))
def test_ctrl_c_stops_a_long_statistic(name):
    elapsed, stderr = _interrupt([sys.executable, "-c", SETUP + CALLS[name]])
    assert "KeyboardInterrupt" in stderr, stderr[-2000:]
    assert elapsed < 2.0, elapsed


def test_ctrl_c_stops_receval_compare(tmp_path: Path):
    rng = np.random.default_rng(1)
    n_users, k = 20_000, 10
    qrels = tmp_path / "q.txt"
    qrels.write_text("".join(f"u{u} 0 i{u % 50} 1\n" for u in range(n_users)))
    for name in ("a", "b"):
        scores = rng.random((n_users, k))
        (tmp_path / f"{name}.run").write_text(
            "".join(
                f"u{u} Q0 i{(u + j) % 50} {j + 1} {scores[u, j]:.6f} {name}\n"
                for u in range(n_users) for j in range(k)
            )
        )  # fmt: skip
    # "go" first, then the command: the harness waits for the line, then for the kernel
    code = (
        "import sys; print('go', flush=True); from receval.cli import main; "
        "sys.argv = ['receval'] + sys.argv[1:]; main()"
    )
    cmd = [sys.executable, "-c", code, "compare", "--qrels", str(qrels),
           "--run", str(tmp_path / "a.run"), "--run", str(tmp_path / "b.run"),
           "-m", "ndcg@10", "--permutations", "10000000"]  # fmt: skip
    elapsed, stderr = _interrupt(cmd, after=4.0, within=4.0)
    assert "Traceback" not in stderr, stderr[-2000:]
    assert elapsed < 2.0, elapsed

"""README's test command (``pytest -n auto --dist loadgroup``) runs the tests of an
``xdist_group`` on one worker: the Spark tests share one session, the modules that
call ranx compile its numba kernels once. pytest 9.2 silently broke that grouping
(pytest-xdist issue 1386), hence the bound on pytest in the ``test`` extra; this
test fails where the installed pair no longer groups."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path


def test_a_group_runs_on_one_worker(tmp_path: Path) -> None:
    (tmp_path / "test_grouped.py").write_text(
        textwrap.dedent(
            """
            import pytest

            pytestmark = pytest.mark.xdist_group("one")

            @pytest.mark.parametrize("i", range(8))
            def test_member(i):
                pass
            """
        )
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "2",
         "--dist", "loadgroup", "-v", "test_grouped.py"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    workers = re.findall(r"^\[(gw\d+)\].* PASSED ", done.stdout, re.MULTILINE)
    assert len(workers) == 8, done.stdout
    assert len(set(workers)) == 1, f"the group ran on {sorted(set(workers))}:\n{done.stdout}"

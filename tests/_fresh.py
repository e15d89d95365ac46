"""Code run in a fresh interpreter: what it prints and the modules it loaded (the check
that a path imports no package it does not need, such as pandas through pyarrow)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def fresh(code: str, cwd: Path | None = None) -> tuple[list[str], set[str]]:
    """The words ``code`` prints, run in a new interpreter (in ``cwd``), and the names
    of the modules loaded when it ends; a failure of the code fails the test."""
    listed = code + "\nimport sys\nprint('MODULES', *sorted(sys.modules))\n"
    done = subprocess.run([sys.executable, "-c", listed], capture_output=True, text=True, cwd=cwd)
    assert done.returncode == 0, done.stderr
    printed, _, modules = done.stdout.rpartition("MODULES")
    return printed.split(), set(modules.split())

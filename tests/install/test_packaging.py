"""What the distribution carries: one version (rust/Cargo.toml's, read by maturin into
the metadata, and ``receval.__version__``), the type marker, the licence."""

from __future__ import annotations

import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

import receval

ROOT = Path(__file__).resolve().parents[2]


def _cargo_version() -> str:
    text = (ROOT / "rust" / "Cargo.toml").read_text()
    found = re.search(r'^version = "([^"]+)"', text, re.MULTILINE)
    assert found is not None
    return found.group(1)


def test_the_version_is_the_crate_version_and_the_installed_one() -> None:
    assert receval.__version__ == _cargo_version()
    try:
        installed = metadata.version("receval")
    except metadata.PackageNotFoundError:  # pragma: no cover - a source tree not installed
        pytest.skip("receval is not installed (no distribution metadata)")
    assert receval.__version__ == installed


def test_pyproject_reads_the_version_from_the_crate() -> None:
    text = (ROOT / "pyproject.toml").read_text()
    project = text[text.index("[project]") : text.index("\n[", text.index("[project]") + 1)]
    assert 'dynamic = ["version"]' in project
    assert not re.search(r"^version\s*=", project, re.MULTILINE)


def test_the_version_is_read_lazily() -> None:
    # importlib.metadata costs more than importing receval: only on first use
    code = (
        "import sys, receval; assert 'importlib.metadata' not in sys.modules; "
        "print(receval.__version__); assert 'importlib.metadata' in sys.modules"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == receval.__version__


def test_the_package_is_marked_typed_and_licensed() -> None:
    package = Path(receval.__file__).resolve().parent
    assert (package / "py.typed").is_file()
    assert (package / "_core.pyi").is_file()
    license_text = (ROOT / "LICENSE").read_text()
    assert "BSD 3-Clause License" in license_text
    assert "the receval authors" in license_text
    text = (ROOT / "pyproject.toml").read_text()
    assert 'license = "BSD-3-Clause"' in text
    assert 'license-files = ["LICENSE"]' in text
    assert '"Typing :: Typed"' in text

"""Static types: ``mypy --strict`` (the configuration of pyproject.toml) passes on the
package, and code that uses receval's public names type-checks against them (the
names re-exported by ``receval/__init__.py``, the signatures of the functions).

Skipped where mypy is not installed (it is in the ``test`` extra).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import mypy  # noqa: F401
import pytest

ROOT = Path(__file__).resolve().parents[1]


def _mypy(cache: Path, *args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MYPYPATH": str(ROOT / "src")}
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(cache), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("mypy-cache")


def test_the_package_passes_mypy_strict(cache: Path) -> None:
    done = _mypy(cache, "--config-file", str(ROOT / "pyproject.toml"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success" in done.stdout


USER_CODE = """
from __future__ import annotations

import numpy as np

import receval
from receval import Qrels, Run, evaluate, gauc_score, roc_auc_score

auc: float = gauc_score([1, 0, 1, 0], [0.9, 0.1, 0.8, 0.3], groups=["a", "a", "b", "b"])
qrels = Qrels.from_dict({"u1": {"a": 1}})
run = Run.from_dict({"u1": {"a": 0.9, "b": 0.5}})
report = evaluate(qrels, run, ["ndcg@10"])
mean: float = report.mean["ndcg@10"]
version: str = receval.__version__
value = roc_auc_score(np.array([0, 1]), np.array([0.2, 0.7]))
"""


def test_user_code_type_checks_against_the_public_names(cache: Path, tmp_path: Path) -> None:
    (tmp_path / "user.py").write_text(textwrap.dedent(USER_CODE))
    config = tmp_path / "mypy.ini"
    # the user's own strict settings; receval's modules are read as the installed package is
    config.write_text(
        "[mypy]\nstrict = True\npython_version = 3.10\n"
        "[mypy-pyarrow.*,pandas.*,polars.*,pyspark.*,scipy.*,typer.*,rich.*]\n"
        "ignore_missing_imports = True\nfollow_imports = skip\n"
        "[mypy-receval.*]\nignore_errors = True\n"
    )
    done = _mypy(cache, "--config-file", str(config), "user.py", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


BAD_USER_CODE = """
import receval
from receval import no_such_metric

auc: str = receval.gauc_score([1, 0], [0.9, 0.1], groups=["a", "a"])
"""


def test_user_code_that_misuses_the_api_is_reported(cache: Path, tmp_path: Path) -> None:
    # the check above can fail: a name receval does not have, a value of the wrong type
    (tmp_path / "user.py").write_text(BAD_USER_CODE)
    config = tmp_path / "mypy.ini"
    config.write_text("[mypy]\nstrict = True\n[mypy-receval.*]\nignore_errors = True\n")
    done = _mypy(cache, "--config-file", str(config), "user.py", cwd=tmp_path)
    assert done.returncode == 1
    assert 'Module "receval" has no attribute "no_such_metric"' in done.stdout
    assert 'expression has type "float", variable has type "str"' in done.stdout


def test_every_public_name_is_visible_to_type_checkers() -> None:
    # receval loads its names on first use (module __getattr__, hidden from type
    # checkers); its `if TYPE_CHECKING:` block must re-export each one as `name as name`
    import ast

    import receval

    tree = ast.parse((ROOT / "src" / "receval" / "__init__.py").read_text())
    blocks = [
        node
        for node in tree.body
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING"
    ]
    exported = {
        alias.asname
        for block in blocks
        for node in block.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
        if alias.asname == alias.name
    }
    assert exported == set(receval.__all__)


def test_the_stub_of_the_compiled_core_matches_the_built_module(cache: Path) -> None:
    # src/receval/_core.pyi against the module maturin built: every function, argument
    # and default (PyO3 writes each function's signature into __text_signature__)
    import receval

    package = Path(receval.__file__).resolve().parent
    import receval._core

    env = {**os.environ, "PYTHONPATH": str(package.parent)}
    done = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "receval._core", "--mypy-config-file",
         str(ROOT / "pyproject.toml")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr

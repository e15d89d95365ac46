"""The documentation site: its examples run, and its API reference is complete.

Every ``>>>`` example of the Markdown pages under ``docs/`` runs here with the
package's doctest options (the same function fails ``mkdocs build`` through
``docs/hooks.py``); the docstrings' examples run under ``--doctest-modules``.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

import receval
import receval.plot

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def _hooks() -> ModuleType:
    spec = importlib.util.spec_from_file_location("receval_docs_hooks", DOCS / "hooks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


HOOKS = _hooks()
PAGES = HOOKS.pages()


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(DOCS)) for p in PAGES])
def test_page_examples_run(page: Path) -> None:
    failed, _, report = HOOKS.run_page(page)
    assert failed == 0, report


def test_every_guide_has_examples() -> None:
    guides = [*sorted((DOCS / "guide").glob("*.md")), DOCS / "index.md"]
    assert len(guides) >= 9
    for page in guides:
        _, attempted, _ = HOOKS.run_page(page)
        assert attempted > 0, f"{page.name} has no >>> example"


def test_a_failing_example_is_reported(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "Text.\n\n```python\n>>> 1 + 1\n3\n```\n\n```bash\n>>> not run\n```\n"
        "\n```python\nx = 1  # no prompt: not run\n```\n",
        encoding="utf-8",
    )
    failed, attempted, report = HOOKS.run_page(page)
    # the bash block has a prompt too: both blocks with >>> run
    assert attempted == 2 and failed == 2
    assert 'page.md", line 4' in report


def test_examples_keep_state_and_number_option(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "```python\n>>> x = 1 / 3\n```\n\nthen\n\n```python\n>>> x\n0.333\n```\n",
        encoding="utf-8",
    )
    failed, attempted, report = HOOKS.run_page(page)
    assert (failed, attempted) == (0, 2), report


def test_a_shown_float_is_the_value_rounded_to_its_digits(tmp_path: Path) -> None:
    # NUMBER alone passes 0.8 for 6/7 (within 0.1); a page shows the value rounded
    # (0.9, 0.86, 0.8571) or cut with an ellipsis (0.857...)
    examples = [("6 / 7", "0.8"), ("6 / 7", "0.86"), ("6 / 7", "0.8571"),
                ("6 / 7", "0.857..."), ("[6 / 7, 0.8]", "[0.9, 0.8]"),
                ("(0.85, 0.96)", "(0.9, 1.0)")]  # fmt: skip
    page = tmp_path / "page.md"
    page.write_text(
        "".join(f"```python\n>>> {code}\n{shown}\n```\n\n" for code, shown in examples),
        encoding="utf-8",
    )
    failed, attempted, report = HOOKS.run_page(page)
    assert attempted == len(examples)
    assert failed == 1, report  # 0.8 only
    assert "Expected:\n    0.8\nGot:\n    0.8571428571428571" in report


def test_api_reference_documents_every_public_name() -> None:
    text = "\n".join(p.read_text(encoding="utf-8") for p in (DOCS / "api").glob("*.md"))
    documented = set(re.findall(r"^::: receval\.(\w+)$", text, flags=re.MULTILINE))
    assert set(receval.__all__) <= documented, sorted(set(receval.__all__) - documented)
    assert "::: receval.spark" in text
    plots = set(re.findall(r"^::: receval\.plot\.(\w+)$", text, flags=re.MULTILINE))
    assert set(receval.plot.__all__) <= plots, sorted(set(receval.plot.__all__) - plots)


def test_public_docs_cite_no_internal_documents() -> None:
    pattern = re.compile(r"(?i:seed 0\d\d|seeds/|the spec\b)|\bSPEC\b")
    files = [*DOCS.rglob("*.md"), *(ROOT / "src" / "receval").rglob("*.py")]
    hits = [
        f"{f.relative_to(ROOT)}:{n}: {line.strip()}"
        for f in files
        for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert not hits, "\n".join(hits)


def test_reference_roles_become_markdown() -> None:
    spec = importlib.util.spec_from_file_location("receval_docs_roles", DOCS / "griffe_roles.py")
    assert spec is not None and spec.loader is not None
    roles = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(roles)
    public = {"receval.evaluate"}
    text = "See :func:`receval.evaluate`, :func:`evaluate` and :class:`~numpy.ndarray`."
    assert roles.rewrite(text, public) == (
        "See [`receval.evaluate`][receval.evaluate], [`evaluate`][receval.evaluate] "
        "and `numpy.ndarray`."
    )
    assert roles.rewrite("area :math:`x^2` here", public) == "area \\(x^2\\) here"
    block = "Text.\n\n.. math:: a = b\n   + c\n\nAfter."
    assert "$$\na = b\n+ c\n$$" in roles.rewrite(block, public)
    typed = "qrels : Qrels or anything :func:`receval.evaluate` takes\n    Judgments."
    expected = "qrels : Qrels or anything receval.evaluate takes"
    assert roles.rewrite(typed, public).startswith(expected)
    assert roles.rewrite(".. [1] A paper.", public) == "[1] A paper."


def test_math_becomes_mathml() -> None:
    import latex2mathml  # noqa: F401

    page = (
        '<p>area <span class="arithmatex">\\(x^2 &lt; 1\\)</span> and</p>\n'
        '<div class="arithmatex">\\[\n\\frac{a}{b}\n\\]</div>'
    )
    out = HOOKS.math_to_mathml(page)
    assert "arithmatex" not in out and "\\(" not in out
    assert '<math xmlns="http://www.w3.org/1998/Math/MathML" display="inline">' in out
    assert 'display="block"><mrow><mfrac>' in out
    assert "<mo>&#x0003C;</mo>" in out  # the escaped < read as the formula's <


def test_reference_shows_shared_docstring_paragraphs_filled_in() -> None:
    """Paragraphs written once and put into several docstrings at import appear
    in the API reference as the imported docstring has them."""
    import griffe

    spec = importlib.util.spec_from_file_location("receval_docs_roles", DOCS / "griffe_roles.py")
    assert spec is not None and spec.loader is not None
    roles = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(roles)
    package = griffe.load(
        "receval",
        search_paths=[str(ROOT / "src")],
        extensions=griffe.load_extensions(roles.RstRoles),
    )
    text = package["metrics.beyond.serendipity.serendipity"].docstring.value
    assert "{parameters}" not in text and "{depth}" not in text
    assert "Depth of each list; None means the whole list." in text


def test_site_builds_with_warnings_as_errors(tmp_path: Path) -> None:
    """``mkdocs build --strict``: every page's examples run (docs/hooks.py), every
    docstring renders, every link resolves; a warning fails the build."""
    import os
    import subprocess
    import sys

    import latex2mathml  # noqa: F401
    import mkdocs  # noqa: F401
    import mkdocstrings  # noqa: F401

    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(tmp_path / "site")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "site" / "index.html").exists()
    # offline: formulas are MathML, no script or font comes from another host
    pages = [p.read_text(encoding="utf-8") for p in (tmp_path / "site").rglob("*.html")]
    assert sum(p.count("<math ") for p in pages) > 100
    for page in pages:
        assert 'class="arithmatex"' not in page
        assert not re.search(r'<(script|link)[^>]+(src|href)="(https?:)?//', page)

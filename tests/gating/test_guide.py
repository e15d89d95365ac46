"""The guide "Gate model changes in CI" shows the example files its tests run."""

from __future__ import annotations

import html as html_text
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_guide_includes_the_workflow_and_the_rules_file():
    """The page's snippets, rendered as the site's configuration renders them (the
    ``pymdownx.snippets`` options of mkdocs.yml), hold the example files themselves."""
    markdown = pytest.importorskip("markdown")
    yaml = pytest.importorskip("yaml")
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    options = next(e["pymdownx.snippets"] for e in config["markdown_extensions"]
                   if isinstance(e, dict) and "pymdownx.snippets" in e)  # fmt: skip
    options = {**options, "base_path": [str(ROOT / p) for p in options["base_path"]]}
    page = (ROOT / "docs" / "guide" / "gate.md").read_text(encoding="utf-8")
    html = markdown.markdown(
        page, extensions=["pymdownx.snippets", "pymdownx.superfences", "tables"],
        extension_configs={"pymdownx.snippets": options},
    )  # fmt: skip
    shown = html_text.unescape(re.sub(r"<[^>]+>", "", html))  # the text, highlighting dropped
    for name in ("receval-gate.yml", "receval.toml"):
        text = (ROOT / "docs" / "examples" / name).read_text(encoding="utf-8")
        line = next(
            x for x in text.splitlines() if x.strip().startswith(("run: receval", "margin"))
        )
        assert line.strip() in shown
    assert "--8<--" not in shown

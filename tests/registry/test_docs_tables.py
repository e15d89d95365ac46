"""The lists of metrics in the documentation are the registry's: each generated block of
a page (docs/metric_tables.py) is what the registry writes now, and names every row."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from receval.registry import ENTRIES

DOCS = Path(__file__).resolve().parents[2] / "docs"
_SPEC = importlib.util.spec_from_file_location("receval_docs_tables", DOCS / "metric_tables.py")
assert _SPEC is not None and _SPEC.loader is not None
TABLES = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(TABLES)


@pytest.mark.parametrize("page", TABLES.PAGES)
def test_each_generated_list_is_the_registry_now(page: str) -> None:
    text = (DOCS / page).read_text(encoding="utf-8")
    assert "<!-- metrics: " in text
    assert TABLES.render(text) == text, f"run: python docs/metric_tables.py ({page} is stale)"


def test_the_table_of_every_metric_names_every_row() -> None:
    text = (DOCS / "api" / "registry.md").read_text(encoding="utf-8")
    block = text.partition("<!-- metrics: every -->")[2].partition("<!-- /metrics -->")[0]
    assert {name for name in ENTRIES if f"| `{name}` |" in block} == set(ENTRIES)


def test_a_row_left_out_of_a_page_is_found() -> None:
    page = "<!-- metrics: every -->\n| `ndcg` | ... |\n<!-- /metrics -->\n"
    assert TABLES.render(page) != page
    assert "| `gauc` |" in TABLES.render(page)

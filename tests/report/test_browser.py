"""The demo report in a real browser: it loads from file:// with no console error and no
request besides the file, every figure renders, and at 800 and 1400 px the page does not
overflow sideways and the figures fill the width (screenshots are kept, not compared)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cli._helpers import invoke, make_runner

CHROMIUM = os.environ.get("RECEVAL_CHROMIUM", "/usr/bin/chromium")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    import plotly  # noqa: F401
    from playwright import sync_api

    if not (os.path.exists(CHROMIUM) or shutil.which(CHROMIUM)):
        pytest.skip(f"no Chromium at {CHROMIUM}")
    with sync_api.sync_playwright() as p:
        try:
            chromium = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        except Exception as exc:  # a browser that does not start is an environment problem
            pytest.skip(f"Chromium does not start: {exc}")
        yield chromium
        chromium.close()


def test_demo_report_renders_in_chromium(browser: Any, tmp_path: Path) -> None:
    out = tmp_path / "demo.html"
    invoke(make_runner(), "demo", "--users", 60, "-q", "--out", out, "--no-timestamp")
    url = out.resolve().as_uri()
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    requests: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("request", lambda r: requests.append(r.url))
    page.goto(url, wait_until="load")
    n_figures = page.locator("div.plotly-figure").count()
    assert n_figures == 6  # ROC, PR, calibration, metric@k, retention heatmap and curve
    page.wait_for_function(
        "n => document.querySelectorAll('div.plotly-figure .main-svg').length >= n",
        arg=n_figures,
        timeout=30_000,
    )
    for div in page.locator("div.plotly-figure").all():
        assert div.locator(".main-svg").count() >= 1
    # hovering a cell of the retention heatmap (the 5th figure) names the cell
    heatmap = page.locator("div.plotly-figure").nth(4)
    heatmap.scroll_into_view_if_needed()
    box = heatmap.locator(".nsewdrag").first.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] * 0.1, box["y"] + box["height"] * 0.3)
    page.wait_for_selector(".hovertext", timeout=5_000)
    hover = " ".join(page.locator(".hovertext").all_text_contents())
    for word in ("cohort 2024-", "day ", "retention ", "cohort size "):
        assert word in hover
    # the table of contents links the sections
    for anchor in ("ctr-models", "ranking", "retention"):
        assert page.locator(f'nav.toc a[href="#{anchor}"]').count() == 1
        assert page.locator(f"h2#{anchor}").count() == 1
    page.screenshot(path=str(tmp_path / "demo.png"), full_page=True)
    assert (tmp_path / "demo.png").stat().st_size > 0
    page.close()
    assert errors == []
    assert requests == [url]


def test_names_with_css_urls_fetch_nothing(browser: Any, tmp_path: Path) -> None:
    # score columns whose names hold HTML with a CSS url(...) that Plotly would render
    # as a styled span; the page requests nothing but itself and shows the names as text
    import random

    evil = "<span style=\"background:url('http://127.0.0.1:9/x.png')\">s</span>"
    rows = random.Random(0)
    lines = ['label,"' + evil.replace('"', '""') + '",url(http://127.0.0.1:9/y)']
    lines += [f"{rows.randint(0, 1)},{rows.random():.3f},{rows.random():.3f}" for _ in range(200)]
    (tmp_path / "imp.csv").write_text("\n".join(lines) + "\n")
    out = tmp_path / "evil.html"
    invoke(make_runner(), "report", "--impressions", tmp_path / "imp.csv", "--label", "label",
           "--score", evil, "--score", "url(http://127.0.0.1:9/y)", "-q", "--out", out)  # fmt: skip
    url = out.resolve().as_uri()
    page = browser.new_page()
    errors: list[str] = []
    requests: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("request", lambda r: requests.append(r.url))
    page.goto(url, wait_until="load")
    page.wait_for_function(
        "document.querySelectorAll('div.plotly-figure .main-svg').length >= 3", timeout=30_000
    )
    assert "<span style=" in page.locator("div.plotly-figure").first.inner_text()
    page.close()
    assert errors == []  # a Content-Security-Policy violation is a console error
    assert requests == [url]


# each figure's box and its row's width, in CSS pixels, once every figure is drawn
_FIGURE_BOXES = """() => {
  const grid = document.querySelector("div.figures").getBoundingClientRect().width;
  return [...document.querySelectorAll("div.figures > figure")].map(f => {
    const r = f.getBoundingClientRect();
    return {top: Math.round(r.top + window.scrollY), width: r.width, grid: grid};
  });
}"""


@pytest.mark.parametrize("width", [800, 1400])
def test_demo_report_layout_fits_the_width(
    browser: Any, tmp_path: Path, width: int, record_property: Any
) -> None:
    out = tmp_path / "demo.html"
    invoke(make_runner(), "demo", "--users", 60, "-q", "--out", out, "--no-timestamp")
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.goto(out.resolve().as_uri(), wait_until="load")
    page.wait_for_function(
        "document.querySelectorAll('div.plotly-figure .main-svg').length >= 6", timeout=30_000
    )
    shot = tmp_path / f"demo-{width}.png"
    page.screenshot(path=str(shot), full_page=True)
    print(f"screenshot kept at {shot}")
    record_property("screenshot", str(shot))  # in the JUnit XML, with --junitxml
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the page scrolls sideways by {overflow} px at {width} px"
    rows: dict[int, list[float]] = {}
    grid = 0.0
    for box in page.evaluate(_FIGURE_BOXES):
        rows.setdefault(box["top"], []).append(box["width"])
        grid = box["grid"]
    page.close()
    assert len(rows) >= 3
    for top, widths in rows.items():
        # side by side, each at least ~45% of the width, or alone at the full width
        assert all(w >= 0.45 * grid for w in widths), (width, top, widths, grid)
        assert sum(widths) >= 0.9 * grid, (width, top, widths, grid)
        if width == 800:
            assert len(widths) == 1, (top, widths)
    if width == 1400:
        assert max(len(w) for w in rows.values()) == 2

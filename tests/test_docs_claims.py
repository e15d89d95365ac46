"""Benchmark figures quoted in README.md and docs/ are those of docs/benchmarks.md.

A figure quoted outside the benchmark page sits in a ``<!-- bench:NAME -->``
block written from the page (``benchmarks/_claims.py``; ``benchmarks/run_all.py``
rewrites the blocks after re-running the sections), so it cannot drift from
the page; and every section of the page is re-run by that one command.
"""

from __future__ import annotations

import gc
import importlib.util
import re
import sys
import weakref
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks"
PAGE = ROOT / "docs" / "benchmarks.md"


def _load(name: str) -> ModuleType:
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    spec = importlib.util.spec_from_file_location(f"receval_bench_{name}", BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


CLAIMS = _load("_claims")
DRIVER = _load("run_all")
HARNESS = _load("_harness")
DOCUMENTS = [Path(p) for p in CLAIMS.documents(str(ROOT))]

# Ratios that compare two of receval's own designs, measured when the design was
# chosen and not benchmarked on the page: (file, the text around the ratio).
DESIGN_NOTES = {
    ("docs/conventions.md", "pre-buffering kept ~4x more in memory"),
    ("docs/conventions.md", "2-3x faster than one sort of a block"),
}
RATIO = re.compile(r"\b\d[\d,.]*x\b")


@pytest.mark.parametrize("path", DOCUMENTS, ids=[str(p.relative_to(ROOT)) for p in DOCUMENTS])
def test_quoted_figures_are_those_of_the_page(path: Path) -> None:
    text = path.read_text()
    page = PAGE.read_text()
    want = CLAIMS.expected(text, page)
    for got_line, want_line in zip(text.splitlines(), want.splitlines(), strict=True):
        assert got_line == want_line, (
            f"{path.relative_to(ROOT)} quotes a figure that docs/benchmarks.md does not give; "
            f"run `python benchmarks/run_all.py` (or _claims.refresh()) to rewrite it:\n"
            f"  has:    {got_line}\n  page's: {want_line}"
        )


def test_blocks_are_written_from_the_page() -> None:
    page = PAGE.read_text()
    text = "x <!-- bench:trec-eval -->999x faster<!-- /bench --> y"
    assert CLAIMS.expected(text, page) != text
    assert "faster than trec_eval" in CLAIMS.expected(text, page)
    with pytest.raises(KeyError, match="unknown claim block"):
        CLAIMS.expected("<!-- bench:nothing -->1<!-- /bench -->", page)


@pytest.mark.parametrize("path", DOCUMENTS, ids=[str(p.relative_to(ROOT)) for p in DOCUMENTS])
def test_no_speed_ratio_outside_a_block(path: Path) -> None:
    relative = str(path.relative_to(ROOT))
    text = CLAIMS.BLOCK.sub("", path.read_text())
    notes = [snippet for file, snippet in DESIGN_NOTES if file == relative]
    for snippet in notes:
        assert snippet in text, (
            f"{relative}: design note {snippet!r} not found; update DESIGN_NOTES"
        )
        text = text.replace(snippet, "")
    found = [m.group() for m in RATIO.finditer(text)]
    assert not found, (
        f"{relative} quotes ratio(s) {found} outside a <!-- bench:NAME --> block: "
        "take them from docs/benchmarks.md (benchmarks/_claims.py) or say where they come from"
    )


def test_every_section_of_the_page_is_re_run_by_the_driver() -> None:
    on_page = set(re.findall(r"<!-- ([\w-]+):start -->", PAGE.read_text())) - {"machine"}
    driven = {s.name for s in DRIVER.SECTIONS} | {n for s in DRIVER.SECTIONS for n in s.also}
    assert on_page <= driven, f"sections benchmarks/run_all.py does not run: {on_page - driven}"
    scripts = {s.script for s in DRIVER.SECTIONS}
    writers = {p.name for p in BENCH.glob("bench_*.py") if "replace_section(" in p.read_text()}
    assert writers <= scripts, (
        f"scripts that write a section but are not driven: {writers - scripts}"
    )


def test_a_missing_script_or_tool_is_skipped_with_a_reason(tmp_path: Path) -> None:
    missing = DRIVER.Section("x", "bench_does_not_exist.py", (), ("--quick",), 1.0)
    assert "does not exist" in DRIVER.command(missing, False, {})
    te = next(s for s in DRIVER.SECTIONS if s.name == "trec-eval")
    assert "trec_eval" in DRIVER.command(te, False, {"trec_eval": None})
    core = next(s for s in DRIVER.SECTIONS if s.name == "core")
    assert "--trec-eval" not in DRIVER.command(core, False, {"trec_eval": None})
    assert DRIVER.command(core, False, {"trec_eval": "/bin/te"})[-2:] == ["--trec-eval", "/bin/te"]
    # the start-up section's row of the trec_eval binary, when there is one
    startup = next(s for s in DRIVER.SECTIONS if s.name == "startup")
    assert "--trec-eval" not in DRIVER.command(startup, False, {"trec_eval": None})
    assert DRIVER.command(startup, False, {"trec_eval": "/bin/te"})[-2:] == [
        "--trec-eval",
        "/bin/te",
    ]
    # the loop on a GPU: only where torch sees one (its row then stays the last GPU run's)
    gpu = next(s for s in DRIVER.SECTIONS if s.name == "training-loop-cuda")
    assert "no CUDA device" in DRIVER.command(gpu, False, {"cuda": None})
    assert DRIVER.command(gpu, False, {"cuda": "cuda"})[-4:] == ["--device", "cuda", "--runs", "3"]


def test_the_machine_names_the_core_simd_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(HARNESS, "cpu_flags", lambda: {"sse4_2", "avx", "fma", "avx2"})
    monkeypatch.delenv("RECEVAL_FORCE_SCALAR", raising=False)
    assert HARNESS.core_paths().startswith("AVX2 and AVX + FMA paths")
    monkeypatch.setattr(HARNESS, "cpu_flags", lambda: {"avx", "fma"} | HARNESS.AVX512)
    assert HARNESS.core_paths().startswith("AVX2 and AVX + FMA and AVX-512 paths")
    monkeypatch.setenv("RECEVAL_FORCE_SCALAR", "1")
    assert HARNESS.core_paths().startswith("scalar paths (RECEVAL_FORCE_SCALAR")
    monkeypatch.setenv("RECEVAL_FORCE_SCALAR", "0")
    monkeypatch.setattr(HARNESS, "cpu_flags", lambda: {"sse4_2"})
    assert HARNESS.core_paths().startswith("scalar paths (the CPU has neither")
    monkeypatch.setattr(HARNESS, "cpu_flags", lambda: {"sse4_2", "avx", "avx2", "avx512f"})
    assert HARNESS.vector_extensions() == ["sse4_2", "avx", "avx2", "avx512f"]
    assert "avx512f" in "\n".join(HARNESS.machine())


#: the load averages before and after a run of the driver
LOADS = ((1.0, 1.0, 1.0), (2.0, 2.0, 2.0))
TIES = next(s for s in DRIVER.SECTIONS if s.name == "ties")


@pytest.fixture
def page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A page of one section, the one the driver writes its header to."""
    page = tmp_path / "benchmarks.md"
    page.write_text("# Benchmarks\n\n<!-- ties:start -->\nold\n<!-- ties:end -->\n")
    monkeypatch.setattr(DRIVER, "PAGE", str(page))
    return page


def test_the_machine_header_goes_at_the_top_once(page: Path) -> None:
    for took in (30.0, 90.0):
        results = [(TIES, "python benchmarks/bench_ties.py", "ok", took)]
        DRIVER.put_header(DRIVER.header(results, "2026-01-01 00:00 UTC", LOADS))
    text = page.read_text()
    assert text.startswith("# Benchmarks\n\n<!-- machine:start -->\n## How this page was made")
    assert text.count("<!-- machine:start -->") == 1
    assert "| ties | `python benchmarks/bench_ties.py` | 2026-01-01 00:00 UTC | 1.5 | ok |" in text
    assert "vector extensions" in text and "<!-- ties:start -->\nold" in text


def test_a_run_of_some_sections_keeps_the_rows_of_the_others(page: Path) -> None:
    # the header's table names, for every section on the page, the command and the run
    # that wrote it: a run of one section must not drop the rows of the others, nor
    # leave the row of the old run of the section it ran
    every = [(s, f"python benchmarks/{s.script}", "ok", 60.0) for s in DRIVER.SECTIONS]
    DRIVER.put_header(DRIVER.header(every, "2026-01-01 00:00 UTC", LOADS))
    kept = DRIVER.rows_on_page(page.read_text())
    assert set(kept) == {s.name for s in DRIVER.SECTIONS}
    again = [(TIES, "python benchmarks/bench_ties.py --runs 9", "ok", 120.0)]
    DRIVER.put_header(DRIVER.header(again, "2026-02-02 02:02 UTC", LOADS, kept))
    text = page.read_text()
    assert "(sections ties; the table gives every section the run that wrote it)" in text
    rows = DRIVER.rows_on_page(text)
    assert set(rows) == set(kept)
    assert rows["ties"] == (
        "ties",
        "`python benchmarks/bench_ties.py --runs 9`",
        "2026-02-02 02:02 UTC",
        "2.0",
        "ok",
    )
    assert rows["core"] == kept["core"] and rows["core"][2] == "2026-01-01 00:00 UTC"
    # a page written before the table had its run column: the header's start dates its rows
    old = (
        "<!-- machine:start -->\n... the last run of the driver (every section) started "
        "2025-12-01 01:40 UTC and took 75 min:\n\n| section | command | time (min) | result |\n"
        "| --- | --- | --- | --- |\n| core | `python benchmarks/bench_core.py` | 2.4 | ok |\n"
        "<!-- machine:end -->"
    )
    assert DRIVER.rows_on_page(old) == {
        "core": ("core", "`python benchmarks/bench_core.py`", "2025-12-01 01:40 UTC", "2.4", "ok")
    }
    assert DRIVER.rows_on_page("# Benchmarks\n") == {}


def test_the_machine_header_follows_the_core_dispatch() -> None:
    # core_paths() restates rust/src/simd.rs's choice; a new SIMD level there must show
    # on the page too.
    simd = (ROOT / "rust" / "src" / "simd.rs").read_text()
    for feature in ("avx2", "avx", "fma", "avx512f", "avx512bw", "avx512dq", "avx512vl"):
        assert f'is_x86_feature_detected!("{feature}")' in simd
    assert '"RECEVAL_FORCE_SCALAR"' in simd
    enabled = set()
    for path in (ROOT / "rust" / "src").rglob("*.rs"):
        enabled |= set(re.findall(r'target_feature\(enable = "([\w,.]+)"\)', path.read_text()))
    assert enabled <= {"avx2", "avx", "avx,fma", "avx512f,avx512bw,avx512dq,avx512vl"}, (
        f"the core now compiles kernels for {enabled}: update _harness.core_paths()"
    )


def test_the_harness_keeps_every_value_or_the_last_only() -> None:
    # each run counts the values of earlier runs still alive when it starts
    class Value:
        pass

    refs: list[weakref.ref[Value]] = []
    alive: list[int] = []

    def case() -> Value:
        gc.collect()
        alive.append(sum(r() is not None for r in refs))
        value = Value()
        refs.append(weakref.ref(value))
        return value

    (every,) = HARNESS.interleaved([case], 3, warmup=False)
    assert alive == [0, 1, 2] and len(every.values) == 3
    assert every.median_value is every.values[every.median_index]
    refs.clear()
    alive.clear()
    (last,) = HARNESS.interleaved([case], 3, warmup=False, keep_values=False)
    # the value before is dropped before the case runs again
    assert alive == [0, 0, 0] and last.values == [last.value] and last.value is refs[-1]()
    with pytest.raises(ValueError, match="keep_values"):
        _ = last.median_value

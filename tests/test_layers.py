"""Layers that stay layers: import cycles, private names across modules, module size.

Each check reads every module of src/receval and every file of rust/src as text
(every import counts, the ones inside functions too). There are no exceptions:
a cycle, a private name used across modules, a file past its size, a module
left loose at the top or a folder of tests that mirrors no package fails.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
MAX_LINES = 800


# the compiled core: a module (built from rust/) that imports nothing of receval
COMPILED = {"receval._core": SRC.parent / "rust" / "src" / "lib.rs"}


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted((SRC / "receval").rglob("*.py")):
        name = ".".join(path.relative_to(SRC).with_suffix("").parts)
        out[name.removesuffix(".__init__")] = path
    return out


MODULES = _modules()


def _source(name: str, path: Path, node: ast.ImportFrom) -> str:
    """The module a ``from ... import`` reads, resolved against the importing module."""
    if not node.level:
        return node.module or ""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    base = package.split(".")
    base = base[: len(base) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def _imports(name: str, path: Path) -> list[tuple[str, str | None]]:
    """(module, imported name or None) of every import of a module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: list[tuple[str, str | None]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, None) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            target = _source(name, path, node)
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                is_module = sub in MODULES or sub in COMPILED
                out.append((sub, None) if is_module else (target, alias.name))
    return out


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for name, path in MODULES.items():
        for target, _ in _imports(name, path):
            while target and target not in MODULES and target not in COMPILED:
                target = target.rpartition(".")[0]
            if target.startswith("receval") and target != name and target not in COMPILED:
                graph[name].add(target)
    return graph


def _cyclic(graph: dict[str, set[str]]) -> set[str]:
    """Modules on an import cycle (strongly connected components of 2 or more)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: set[str] = set()
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.update(component)

    for v in graph:
        if v not in index:
            visit(v)
    return out


def test_no_import_cycle():
    cyclic = _cyclic(_graph())
    assert cyclic == set(), f"modules on an import cycle: {sorted(cyclic)}"


def test_cycle_detection_finds_a_cycle():
    assert _cyclic({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == {"a", "b", "c"}


# Private functions and classes imported from another module, or read as
# ``module._name``. A name shared by modules is public in the module that defines it.


def _is_private(attr: str) -> bool:
    return attr.startswith("_") and not attr.startswith("__")


def _module_aliases(name: str, path: Path) -> dict[str, str]:
    """Local names bound to receval modules (``from . import evaluation as e``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            target = _source(name, path, node)
            for alias in node.names:
                if f"{target}.{alias.name}" in MODULES:
                    out[alias.asname or alias.name] = f"{target}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in MODULES and alias.asname:
                    out[alias.asname] = alias.name
    return out


def _private_uses() -> set[tuple[str, str, str]]:
    """(module, other module, private name): imported, or read as ``module._name``."""
    out = set()
    for name, path in MODULES.items():
        uses = [(t, i) for t, i in _imports(name, path) if i is not None]
        aliases = _module_aliases(name, path)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
            ):
                uses.append((aliases[node.value.id], node.attr))
        for target, attr in uses:
            if not _is_private(attr) or not target.startswith("receval"):
                continue
            if target == name:
                continue
            out.add((name, target, attr))
    return out


def test_no_private_name_across_modules():
    assert _private_uses() == set()


def test_private_use_detection(tmp_path, monkeypatch):
    pkg = tmp_path / "receval"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def _helper():\n    return 1\n")
    (pkg / "b.py").write_text("from .a import _helper\n")
    (pkg / "c.py").write_text("from . import a as m\n\nm._helper()\n")
    modules = {"receval": pkg / "__init__.py", "receval.a": pkg / "a.py",
               "receval.b": pkg / "b.py", "receval.c": pkg / "c.py"}  # fmt: skip
    monkeypatch.setitem(globals(), "MODULES", modules)
    assert _private_uses() == {
        ("receval.b", "receval.a", "_helper"),
        ("receval.c", "receval.a", "_helper"),
    }


@pytest.mark.parametrize("name", sorted(MODULES))
def test_module_size(name):
    n_lines = len(MODULES[name].read_text(encoding="utf-8").splitlines())
    assert n_lines <= MAX_LINES, f"{name}: {n_lines} lines"


# At most this many modules loose at the top of the package; the rest live in
# packages whose names say what they hold.
MAX_LOOSE = 8


def test_few_loose_modules():
    loose = sorted(p.name for p in (SRC / "receval").glob("*.py"))
    assert len(loose) <= MAX_LOOSE, f"{len(loose)} loose modules: {loose}"


# Tests mirror the packages: each folder of tests/ is a package of receval (or
# holds oracles, peers' expectations or installation checks), and each package
# of receval has its folder of tests.
TESTS = Path(__file__).resolve().parent
NOT_PACKAGES = {"oracles", "peers", "install"}


def _packages() -> set[str]:
    return {
        ".".join(p.parent.relative_to(SRC / "receval").parts)
        for p in (SRC / "receval").rglob("__init__.py")
        if p.parent != SRC / "receval"
    }


def test_tests_mirror_packages():
    packages = _packages()
    folders = {
        ".".join(p.parent.relative_to(TESTS).parts)
        for p in TESTS.rglob("test_*.py")
        if p.parent != TESTS
    }
    stray = {f for f in folders if f.split(".")[0] not in NOT_PACKAGES and f not in packages}
    assert stray == set(), f"test folders that are not packages of receval: {sorted(stray)}"
    untested = {p for p in packages if p.split(".")[0] == p and p not in folders}
    assert untested == set(), f"packages without a folder of tests: {sorted(untested)}"


# The Rust crate: a tree of modules (folder modules, no #[path], no cycle between
# top-level modules), each file under MAX_LINES, few functions with too many arguments.
RUST = SRC.parent / "rust" / "src"
MAX_TOO_MANY_ARGUMENTS = 5


def _rust_files() -> dict[str, Path]:
    return {str(p.relative_to(RUST)): p for p in sorted(RUST.rglob("*.rs"))}


@pytest.mark.parametrize("name", sorted(_rust_files()))
def test_rust_file_size(name):
    n_lines = len(_rust_files()[name].read_text(encoding="utf-8").splitlines())
    assert n_lines <= MAX_LINES, f"rust/src/{name}: {n_lines} lines"


def test_rust_folder_modules():
    with_path = [n for n, p in _rust_files().items() if "#[path" in p.read_text(encoding="utf-8")]
    assert with_path == [], f"#[path] includes (use folder modules): {with_path}"


def test_rust_few_too_many_arguments():
    count = {
        n: p.read_text(encoding="utf-8").count("clippy::too_many_arguments")
        for n, p in _rust_files().items()
    }
    total = sum(count.values())
    where = {n: c for n, c in count.items() if c}
    assert total <= MAX_TOO_MANY_ARGUMENTS, f"{total} too_many_arguments: {where}"


def _rust_top(name: str) -> str:
    """The top-level module a file of rust/src belongs to (``csr/build.rs`` -> ``csr``)."""
    first = name.split("/")[0]
    return first.removesuffix(".rs")


def _rust_graph() -> dict[str, set[str]]:
    import re

    use = re.compile(r"\bcrate::(?:\{\s*)?([a-z_][a-z0-9_]*)")
    group = re.compile(r"\bcrate::\{([^}]*)\}")
    graph: dict[str, set[str]] = {}
    for name, path in _rust_files().items():
        top = _rust_top(name)
        if top == "lib":
            continue
        # the unit tests (at the end of a file, or a tests.rs) may use any module
        text = path.read_text(encoding="utf-8").split("#[cfg(test)]")[0]
        if name.endswith("tests.rs"):
            continue
        targets = set(use.findall(text))
        for members in group.findall(text):
            targets |= {m.split("::")[0].strip() for m in members.split(",") if m.strip()}
        graph.setdefault(top, set()).update(t for t in targets if t != top)
    for deps in graph.values():
        deps &= set(graph)
    return graph


def test_rust_cycle_detection_reads_uses(tmp_path, monkeypatch):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "mod.rs").write_text("use crate::{b, c};\n")
    (tmp_path / "b.rs").write_text("use crate::a::x;\n#[cfg(test)]\nuse crate::c;\n")
    (tmp_path / "c.rs").write_text("fn f() { crate::b::g() }\n")
    monkeypatch.setitem(globals(), "RUST", tmp_path)
    assert _rust_graph() == {"a": {"b", "c"}, "b": {"a"}, "c": {"b"}}
    assert _cyclic(_rust_graph()) == {"a", "b", "c"}


def test_rust_no_module_cycle():
    cyclic = _cyclic(_rust_graph())
    assert cyclic == set(), f"Rust modules on a cycle: {sorted(cyclic)}"

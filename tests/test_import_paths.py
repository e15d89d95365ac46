"""Public import paths users have keep working: the names of receval's top level, the
packages users import (receval.report, receval.spark, ...), and the module paths that
moved into packages, which import with a DeprecationWarning naming the new path."""

from __future__ import annotations

import subprocess
import sys

import pytest

MOVED = {
    "receval.evaluation": ("receval.ranking.evaluation", "evaluate"),
    "receval.streaming": ("receval.engine.accumulator", "metric"),
    "receval.trec_eval": ("receval.trec.trec_eval", "trec_eval_metrics"),
}


@pytest.mark.parametrize("old", sorted(MOVED))
def test_a_moved_module_imports_with_a_warning_naming_its_new_path(old):
    new, name = MOVED[old]
    code = (
        "import importlib, warnings\n"
        "warnings.simplefilter('error')\n"
        f"try:\n    importlib.import_module({old!r})\n"
        "except DeprecationWarning as exc:\n    print(exc)\n"
        "warnings.simplefilter('ignore')\n"
        f"old = importlib.import_module({old!r})\n"
        f"new = importlib.import_module({new!r})\n"
        f"print(getattr(old, {name!r}) is getattr(new, {name!r}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    lines = out.stdout.strip().splitlines()
    assert f"The module {old} is deprecated; import {new} instead" in lines[0]
    assert lines[-1] == "True"


def test_an_unknown_module_is_not_found():
    with pytest.raises(ModuleNotFoundError):
        __import__("receval.no_such_module")


@pytest.mark.parametrize(
    ("module", "names"),
    [
        ("receval.report", ["HTMLReport", "ranking_section", "REPORT_COHORTS"]),
        ("receval.sampled", ["sampled_report", "SampledReport"]),
        ("receval.segments", ["by_segment", "compare_by_segment", "SegmentReport"]),
        ("receval.comparison", ["compare", "compare_predictions", "ComparisonReport"]),
        ("receval.registry", ["list_metrics", "metric_info", "parse_metric"]),
    ],
)
def test_packages_users_import_export_their_public_names(module, names):
    mod = __import__(module, fromlist=names)
    for name in names:
        assert getattr(mod, name) is not None
        assert name in mod.__all__
    with pytest.raises(AttributeError, match="has no attribute"):
        mod.__getattr__("no_such_name") if hasattr(mod, "__getattr__") else mod.no_such_name


def test_the_top_level_function_is_not_shadowed_by_a_package():
    import receval.comparison  # a package beside the function receval.compare

    assert callable(receval.compare)
    assert callable(receval.evaluate)


def test_the_functions_of_the_registry_rows_are_exported_from_the_rows():
    # receval's top level reads each metric function's place from its registry row
    # (function_path); its own table holds only the names no row gives
    import receval
    from receval.registry import ENTRIES, load

    rows = {e.function_path for e in ENTRIES.values() if e.function_path}
    for path in rows:
        name = path.rpartition(":")[2]
        assert name in receval.__all__ and name in dir(receval)
        assert getattr(receval, name) is load(path)
    assert not {p.rpartition(":")[2] for p in rows} & set(receval._EXPORTS)


def test_importing_receval_loads_neither_the_registry_nor_numpy():
    code = (
        "import sys, receval\n"
        "print(sorted(m for m in sys.modules if 'registry' in m or m == 'numpy'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_importing_receval_loads_only_receval_and_the_import_machinery():
    # typing alone would cost more than the rest of ``import receval``
    code = (
        "import sys\n"
        "before = set(sys.modules)\n"
        "import receval\n"
        "print(' '.join(sorted(set(sys.modules) - before)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    machinery = {"__future__", "importlib", "warnings"}
    loaded = {m for m in out.stdout.split() if m.split(".")[0] not in machinery}
    assert loaded == {"receval"}


def test_a_private_or_unknown_name_is_an_attribute_error():
    import receval

    for name in ("_no_such_name", "no_such_name"):
        with pytest.raises(AttributeError, match=f"has no attribute '{name}'"):
            getattr(receval, name)


def test_receval_comparison_loads_its_models_on_first_use():
    # receval compare --help reads the names of the tests without NumPy
    code = (
        "import sys, receval.comparison as c\n"
        "from receval.comparison.choices import TESTS\n"
        "print('numpy' in sys.modules, 'receval.comparison.models' in sys.modules)\n"
        "from receval.comparison import *\n"
        "print(compare is c.compare is c.models.compare)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False", "True"]
    import receval.comparison as comparison
    from receval.comparison import models

    assert comparison.__all__ == models.__all__
    assert set(models.__all__) <= set(dir(comparison))
    assert comparison.TESTS is models.TESTS
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        comparison.no_such_name  # noqa: B018

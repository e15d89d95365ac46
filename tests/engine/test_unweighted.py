"""A metric that takes no sample weight (its registry row's inputs hold no
``sample_weight``) refuses them in one wording on every backend: its function, its
accumulator, ``receval.compute`` in memory and on a scan, ``by_segment`` and the CLI
(Spark: tests/spark/test_backends.py). Each names where it was called."""

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import receval as rv
from receval.exceptions import InvalidParameterError
from receval.registry import ENTRIES, load
from tests.cli._helpers import invoke, make_runner

UNWEIGHTED = sorted(
    name
    for name, row in ENTRIES.items()
    if row.definition_path and row.family in ("pointwise", "grouped")
    and "sample_weight" not in row.inputs
)  # fmt: skip
Y, S, G, W = [3.0, 12.0, 7.5, 0.0], [0.2, 0.4, 0.9, 0.1], [1, 1, 2, 2], [1.0, 2.0, 1.0, 1.0]


def _refusal(caller, name, given="4 weights"):
    return (
        f"{caller}: sample_weight is not taken by {name}: it counts each row once. Got "
        f"{given}; compute {name} without them (or repeat rows to weigh them)."
    )


def _groups(name):
    return {"groups": G} if "groups" in ENTRIES[name].inputs else {}


def test_the_metrics_without_weights_are_found():
    assert UNWEIGHTED == ["grouped_regression_auc", "regression_auc"]


@pytest.mark.parametrize("name", UNWEIGHTED)
def test_function_accumulator_and_compute_refuse_weights_in_one_wording(name):
    # before: the function explained, the accumulator gave Python's "unexpected keyword
    # argument 'sample_weight'", compute "takes no option 'sample_weight'"
    function = load(ENTRIES[name].function_path)
    calls = {
        function.__name__: lambda: function(Y, S, sample_weight=W, **_groups(name)),
        f"Accumulator.update of {name!r}": lambda: rv.metric(name).update(
            Y, S, sample_weight=W, **_groups(name)
        ),
        f"receval.compute({name!r})": lambda: rv.compute(
            name, Y, S, sample_weight=W, **_groups(name)
        ),
    }
    for caller, call in calls.items():
        with pytest.raises(InvalidParameterError) as info:
            call()
        assert str(info.value) == _refusal(caller, name)


@pytest.mark.parametrize("name", UNWEIGHTED)
def test_a_scan_and_by_segment_refuse_weights_in_the_same_wording(name, tmp_path):
    path = tmp_path / "rows.parquet"
    pq.write_table(pa.table({"y": Y, "s": S, "g": G, "w": W}), path)
    scan = rv.scan(path)
    groups = {"groups": scan["g"]} if _groups(name) else {}
    with pytest.raises(InvalidParameterError) as info:
        rv.compute(name, scan["y"], scan["s"], sample_weight=scan["w"], **groups)
    given = repr(scan["w"])  # one object: the scan's column
    assert str(info.value) == _refusal(f"receval.compute({name!r})", name, given)
    with pytest.raises(InvalidParameterError) as info:
        rv.by_segment([name], Y, S, by=[1, 2, 1, 2], sample_weight=W, **_groups(name))
    assert str(info.value) == _refusal("by_segment", name)


@pytest.mark.parametrize("name", UNWEIGHTED)
def test_the_cli_refuses_the_weight_column_in_the_same_wording(name, tmp_path):
    path = tmp_path / "rows.csv"
    lines = [f"{y},{s},{g},{w}" for y, s, g, w in zip(Y, S, G, W, strict=True)]
    path.write_text("y,s,g,w\n" + "\n".join(lines) + "\n")
    group = ["--group", "g"] if _groups(name) else []
    args = ["ctr", path, "--label", "y", "--score", "s", "--weight", "w", "-m", name, *group]
    result = invoke(make_runner(), *args, code=2)
    said = _refusal("x", name).replace("x: sample_weight", "--weight w")
    assert result.stderr == f"error: {name} of --score s: {said}\n"


def test_weights_of_one_number_are_shown_as_the_number():
    with pytest.raises(InvalidParameterError) as info:
        rv.metric("regression_auc").update(Y, S, sample_weight=np.float64(2))
    assert str(info.value) == _refusal("Accumulator.update of 'regression_auc'",
                                       "regression_auc", "2.0")  # fmt: skip


@pytest.mark.parametrize("name", UNWEIGHTED)
def test_no_weights_given_as_none_is_no_weights_on_every_backend(name):
    # a training loop passes sample_weight=None to every metric; the function took it as
    # no weights, while its accumulator and compute refused "Got None"
    function = load(ENTRIES[name].function_path)
    expected = function(Y, S, **_groups(name))
    assert function(Y, S, sample_weight=None, **_groups(name)) == expected
    acc = rv.metric(name).update(Y, S, sample_weight=None, **_groups(name))
    assert acc.compute() == expected
    assert rv.compute(name, Y, S, sample_weight=None, **_groups(name)) == expected
    assert rv.by_segment([name], Y, S, by=[1, 1, 1, 1], sample_weight=None,
                         **_groups(name)).overall[name] == expected  # fmt: skip

"""Every public function x every class of bad input: the outcome is a receval
error whose message names the bad argument (or the function), never another
exception. Functions are found from ``receval.__all__`` by their first parameters,
so a new metric joins the matrix without being listed here."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pyarrow as pa
import pytest
import torch

import receval as rv

from ._dlpack import DLPackArray

Y = [0, 1, 0, 1]
S = [0.1, 0.7, 0.3, 0.6]
BAD_ARRAYS = {
    "None": None,
    "short": [0.1, 0.2],
    "nan": [0.1, np.nan, 0.3, 0.4],
    "inf": [0.1, np.inf, 0.3, 0.4],
    "3-d": np.zeros((4, 2, 2)),
    "dict": {"a": 1},
    "scalar": 3.0,
    "arrow null": pa.array([0.1, None, 0.3, 0.4]),
    "ragged": [0.1, [0.2, 0.3], 0.3, 0.4],
    "tensor without values": torch.tensor([0.1, 0.7, 0.3, 0.6], device="meta"),
    "device array": DLPackArray(np.array([0.1, 0.7, 0.3, 0.6]), (2, 0)),  # no copy to the host
}
# what a function needs beyond the data (keyword-only arguments without a default)
REQUIRED = {"groups": [1, 1, 2, 2], "max_fpr": 0.5, "catalog": 10, "beta": 1.0}


def _functions(first: tuple[str, ...]) -> list[str]:
    out = []
    for name in sorted(rv.__all__):
        f = getattr(rv, name)
        if inspect.isfunction(f):
            params = list(inspect.signature(f).parameters)
            if tuple(params[: len(first)]) == first:
                out.append(name)
    return out


def _required(f) -> dict:
    return {
        p.name: REQUIRED[p.name]
        for p in inspect.signature(f).parameters.values()
        if p.kind == p.KEYWORD_ONLY and p.default is inspect.Parameter.empty
    }


def _refused(call, named: str, func: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(rv.RecevalError) as info:
            call()
    assert named in str(info.value) or func in str(info.value), str(info.value)


POINTWISE = _functions(("y_true",))


def test_the_matrix_finds_the_functions():
    assert {"roc_auc_score", "log_loss", "gauc_score", "brier_score_loss"} <= set(POINTWISE)
    assert {"ndcg_at_k", "map_at_k"} <= set(_functions(("recommended", "relevant")))


@pytest.mark.parametrize("name", POINTWISE)
@pytest.mark.parametrize("bad", list(BAD_ARRAYS))
@pytest.mark.parametrize("position", [0, 1])
def test_pointwise_functions_refuse_bad_arrays(name, bad, position):
    f = getattr(rv, name)
    params = list(inspect.signature(f).parameters)
    args = {params[0]: Y, params[1]: S}
    if name == "delong_test":
        args["score_b"] = S
    target = params[position]
    args[target] = BAD_ARRAYS[bad]
    _refused(lambda: f(**args, **_required(f)), target, name)


LISTS = _functions(("recommended", "relevant"))
BAD_LISTS = {
    "None": (None, {"a"}),
    "scalar": (3, {"a"}),
    "dict": ({"a": 1}, {"a"}),
    "mixed": (["a", ["b"]], {"a"}),
    "relevant None": (["a"], None),
    "relevant scalar": (["a"], 3),
    "lengths": ([["a"], ["b"]], [{"a"}]),
    "tensor without values": (torch.zeros((2, 3), dtype=torch.int64, device="meta"), [{1}, {2}]),
    "relevant tensor without values": ([[1, 2]], torch.zeros((1, 2), device="meta")),
}


@pytest.mark.parametrize("name", LISTS)
@pytest.mark.parametrize("bad", list(BAD_LISTS))
def test_per_list_functions_refuse_bad_lists(name, bad):
    f = getattr(rv, name)
    recommended, relevant = BAD_LISTS[bad]
    named = "relevant" if bad.startswith("relevant") else "recommended"
    _refused(lambda: f(recommended, relevant, k=3), named, name)


RUN_ONLY = [
    n
    for n in _functions(("run",))
    if all(
        p.default is not inspect.Parameter.empty or p.name in ("run", *REQUIRED)
        for p in inspect.signature(getattr(rv, n)).parameters.values()
    )
]
BAD_RUNS = {"None": None, "scalar": 3.0, "user to scalar": {"u": 5}, "empty": []}


def test_the_run_functions_are_found():
    assert {"catalog_coverage", "personalization", "shannon_entropy"} <= set(RUN_ONLY)


@pytest.mark.parametrize("name", RUN_ONLY)
@pytest.mark.parametrize("bad", list(BAD_RUNS))
def test_run_functions_refuse_bad_runs(name, bad):
    f = getattr(rv, name)
    _refused(lambda: f(BAD_RUNS[bad], **_required(f)), "run", name)


@pytest.mark.parametrize(
    "call",
    [
        lambda a: rv.log_loss([1, 0], [0.6, 0.4], normalize=a),
        lambda a: rv.evaluate({"u": {"a": 1}}, {"u": {"a": 0.5}}, ["mrr"], ties=a),
    ],
)
def test_an_array_given_for_an_option_is_refused_by_name(call):
    # an array's truth is ambiguous: NumPy's raw ValueError, not the option's refusal
    with pytest.raises(rv.InvalidParameterError, match=r"must be one of .* Got array"):
        call(np.array([True, False]))

"""A definition's option, batch and finalize messages name the function the user
called: ``receval.compute('pop_rsp')`` under compute, ``receval.metric('pop_rsp')``
(options, finalize) or its ``Accumulator.update`` (batches) under an accumulator."""

from __future__ import annotations

import numpy as np
import pytest

import receval
from receval.exceptions import (
    InputValidationError,
    InvalidParameterError,
    RecevalError,
    UndefinedMetricWarning,
)
from receval.registry import definitions

RUN = {"u": {"a": 0.9, "b": 0.5}, "v": {"a": 0.4, "c": 0.3}}
TRAIN = (["u", "v", "v"], ["a", "a", "b"])


@pytest.mark.parametrize("name", ["pop_rsp", "pop_reo"])
@pytest.mark.parametrize(
    ("options", "said"),
    [
        ({"k": 2}, "{func}: the items' popularity must come from exactly one of popularity"),
        ({"train": TRAIN, "k": 2, "head_share": 2.0}, "The 'head_share' parameter of {func} "),
        ({"train": {"u": {"a": 1}}, "k": 2}, "{func}: train must be "),
    ],
)
def test_parity_options_name_the_caller(name, options, said):
    data = (RUN,) if name == "pop_rsp" else ({"u": {"a": 1}}, RUN)
    with pytest.raises(RecevalError) as info:  # a train log it cannot read: bad data
        receval.compute(name, *data, **options)
    assert str(info.value).startswith(said.format(func=f"receval.compute({name!r})"))
    with pytest.raises(RecevalError) as info:
        receval.metric(name, **options)
    assert str(info.value).startswith(said.format(func=f"receval.metric({name!r})"))


@pytest.mark.parametrize("name", ["shannon_entropy", "distributional_coverage"])
def test_exposure_options_name_the_caller(name):
    said = "The 'k' parameter of {func} must be an integer"
    with pytest.raises(InvalidParameterError) as info:
        receval.compute(name, RUN, k=0)
    assert str(info.value).startswith(said.format(func=f"receval.compute({name!r})"))
    with pytest.raises(InvalidParameterError) as info:
        receval.metric(name, k=0)
    assert str(info.value).startswith(said.format(func=f"receval.metric({name!r})"))


def test_popularity_batches_name_the_caller():
    bad = {"u": ["a", "b"]}  # a user's lists, not {item: score}
    with pytest.raises(InputValidationError) as info:
        receval.compute("pop_rsp", bad, train=TRAIN, k=2)
    assert str(info.value).startswith("receval.compute('pop_rsp'): run must map each user ")
    with pytest.raises(InputValidationError) as info:
        receval.metric("pop_rsp", train=TRAIN, k=2).update(bad)
    assert str(info.value).startswith("Accumulator.update of 'pop_rsp': run must map each user ")


def _warned(call) -> list[str]:
    """The messages of the UndefinedMetricWarnings of ``call``."""
    with pytest.warns(UndefinedMetricWarning) as caught:
        call()
    return [str(w.message) for w in caught if issubclass(w.category, UndefinedMetricWarning)]


@pytest.mark.parametrize(
    ("name", "options", "run", "said"),
    [
        ("pop_rsp", {"train": (["u"], ["a"]), "k": 1}, {"u": {"a": 0.9}},
         "{func}: a group's rate is undefined or both rates are 0 "),
        ("shannon_entropy", {"k": 1}, {"u": {}},
         "{func}: the run recommends no item, so it is undefined (returned as nan)."),
    ],
)  # fmt: skip
def test_popularity_finalize_names_the_caller(name, options, run, said):
    (message,) = _warned(lambda: receval.compute(name, run, **options))
    assert message.startswith(said.format(func=f"receval.compute({name!r})"))
    acc = receval.metric(name, **options).update(run)
    (message,) = _warned(acc.compute)
    assert message.startswith(said.format(func=f"receval.metric({name!r})"))


@pytest.mark.parametrize(
    ("options", "said"),
    [
        ({"n_bins": 0}, "The 'n_bins' parameter of {func} must be an integer"),
        ({"strategy": "quantile"}, "{func}: strategy='quantile' bins are percentiles"),
        ({"negative_sampling_rate": 0}, "The 'negative_sampling_rate' parameter of {func} "),
    ],
)
def test_ece_options_name_the_caller(options, said):
    name = "expected_calibration_error"
    with pytest.raises(InvalidParameterError) as info:
        receval.compute(name, [0, 1], [0.2, 0.6], **options)
    assert str(info.value).startswith(said.format(func=f"receval.compute({name!r})"))
    with pytest.raises(InvalidParameterError) as info:
        receval.metric(name, **options)
    assert str(info.value).startswith(said.format(func=f"receval.metric({name!r})"))


def test_ece_finalize_names_the_caller():
    name, weights = "expected_calibration_error", {"sample_weight": [0, 0]}
    for call, func in (
        (lambda: receval.compute(name, [0, 1], [0.2, 0.6], **weights),
         f"receval.compute({name!r})"),
        (lambda: receval.metric(name).update([0, 1], [0.2, 0.6], **weights).compute(),
         f"receval.metric({name!r})"),
        (lambda: receval.expected_calibration_error([0, 1], [0.2, 0.6], **weights), name),
    ):  # fmt: skip
        assert _warned(call) == [f"{func}: sample_weight sums to zero (returned as nan)."]


def test_ece_finalize_on_scan_columns_names_the_caller(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    name, path = "expected_calibration_error", str(tmp_path / "rows.parquet")
    pq.write_table(pa.table({"y": [0, 1], "p": [0.2, 0.6], "w": [0.0, 0.0]}), path)
    s = receval.scan(path)
    for call, func in (
        (lambda: receval.compute(name, s["y"], s["p"], sample_weight=s["w"]),
         f"receval.compute({name!r})"),
        (lambda: receval.expected_calibration_error(s["y"], s["p"], sample_weight=s["w"]), name),
    ):  # fmt: skip
        assert _warned(call) == [f"{func}: sample_weight sums to zero (returned as nan)."]


@pytest.mark.parametrize(
    ("name", "data", "options", "own", "said"),
    [
        (
            "gauc",
            ([0, 1], [0.1, 0.2]),
            {"groups": [1, 1], "weighting": "x"},
            receval.gauc_score,
            "The 'weighting' parameter of {func} must be one of",
        ),
        (
            "log_loss",
            ([0, 1], [0.1, 0.2]),
            {"eps": -1},
            receval.log_loss,
            "The 'eps' parameter of {func} must be a real number",
        ),
    ],
)
def test_option_messages_name_the_caller(name, data, options, own, said):
    with pytest.raises(InvalidParameterError) as info:
        receval.compute(name, *data, **options)
    assert str(info.value).startswith(said.format(func=f"receval.compute({name!r})"))
    with pytest.raises(InvalidParameterError) as info:
        receval.metric(name, **{k: x for k, x in options.items() if k != "groups"})
    assert str(info.value).startswith(said.format(func=f"receval.metric({name!r})"))
    with pytest.raises(InvalidParameterError) as info:  # the plain function names itself
        own(*data, **options)
    assert str(info.value).startswith(said.format(func=own.__name__))


@pytest.mark.parametrize(
    ("options", "said"),
    [
        ({"k": 3}, "{func}: k is an option of retrieval from embeddings; "),
        (
            {"item_vectors": np.eye(2), "item_ids": ["a", "b"], "metric": "l2"},
            "The 'metric' parameter of {func} must be one of",
        ),
    ],
)
def test_item_matrix_options_name_the_caller(options, said):
    with pytest.raises(InvalidParameterError) as info:
        receval.compute("ndcg@10", {"u": {"a": 1}}, {"u": {"a": 0.9}}, **options)
    assert str(info.value).startswith(said.format(func="receval.compute('ndcg@10')"))
    with pytest.raises(InvalidParameterError) as info:
        receval.metric("ndcg@10", **options)
    assert str(info.value).startswith(said.format(func="receval.metric('ndcg@10')"))


@pytest.mark.parametrize("name", ["root_mean_squared_error", "regression_auc"])
def test_a_metric_without_options_names_the_caller(name):
    with pytest.raises(InvalidParameterError) as info:
        receval.compute(name, [1.0, 0.0], [0.5, 0.2], eps=1e-3)
    assert str(info.value) == f"receval.compute({name!r}) takes no option 'eps'; it takes none."
    with pytest.raises(InvalidParameterError) as info:
        receval.metric(name, eps=1e-3)
    assert str(info.value) == f"receval.metric({name!r}) takes no option 'eps'; it takes none."


def test_a_state_saved_before_an_ece_option_loads_with_its_default():
    # the definition takes the caller: its defaults are still read for a state without them
    name, y, p = "expected_calibration_error", [0, 1, 1], [0.2, 0.6, 0.9]
    saved = receval.metric(name).update(y, p).state_dict()
    del saved["options"]["negative_sampling_rate"]  # as saved before that option
    loaded = receval.metric(name).load_state_dict(saved)
    assert loaded.compute() == receval.expected_calibration_error(y, p)


# a batch with a NaN score at row 1, the argument its checks name, and a metric's options
NAN_BATCHES = {
    "gauc": ("gauc_score", "y_score", {"groups": [1, 1, 2, 2]}),
    "log_loss": ("log_loss", "y_pred", {}),
    "roc_auc": ("roc_auc_score", "y_score", {}),
    "pcoc": ("pcoc", "y_prob", {}),
}
Y, NAN_SCORES = [0, 1, 1, 0], [0.2, float("nan"), 0.7, 0.4]


def _refused(call) -> str:
    with pytest.raises(InputValidationError) as info:
        call()
    return str(info.value)


@pytest.mark.parametrize("name", sorted(NAN_BATCHES))
@pytest.mark.parametrize("as_array", [False, True])  # the checks', the core's one-call paths
def test_batch_checks_name_the_caller(name, as_array):
    function, argument, options = NAN_BATCHES[name]
    y, p = (np.array(Y), np.array(NAN_SCORES)) if as_array else (Y, NAN_SCORES)
    said = f"{argument} contains NaN or infinity, the first at position 1 (nan)"
    own = getattr(receval, function)
    assert _refused(lambda: own(y, p, **options)).startswith(f"{function}: {said}")
    assert _refused(lambda: receval.compute(name, y, p, **options)).startswith(
        f"receval.compute({name!r}): {said}"
    )
    update = receval.metric(name).update
    assert _refused(lambda: update(y, p, **options)).startswith(
        f"Accumulator.update of {name!r}: {said}"
    )


@pytest.mark.parametrize("name", sorted(NAN_BATCHES))
def test_batch_checks_on_scan_columns_name_the_caller(name, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    function, argument, options = NAN_BATCHES[name]
    path = str(tmp_path / "rows.parquet")
    pq.write_table(pa.table({"y": Y, "p": NAN_SCORES, "g": [1, 1, 2, 2]}), path)
    s = receval.scan(path)
    columns = {"groups": s["g"]} if options else {}
    said = f"{argument} contains NaN or infinity"
    for call, func in (
        (lambda: receval.compute(name, s["y"], s["p"], **columns), f"receval.compute({name!r})"),
        (lambda: getattr(receval, function)(s["y"], s["p"], **columns), function),
    ):
        assert _refused(call).startswith(f"{path}: row 2: {func}: {said}")


def _takes(step, name: str) -> bool:
    import inspect

    return name in inspect.signature(step).parameters


@pytest.mark.parametrize("name", sorted(definitions()))
def test_a_definition_gives_the_caller_only_to_what_takes_it(name):
    """``checks_caller``: ``check_params`` takes the caller first (positional-only);
    ``takes_caller``: the steps take the keyword ``func``. Steps that do not name the
    caller (GAUC's, log loss's, PCOC's) take no ``func`` at all."""
    import inspect

    defn = definitions()[name]
    first = next(iter(inspect.signature(defn.check_params).parameters.values()), None)
    positional = first is not None and first.kind is inspect.Parameter.POSITIONAL_ONLY
    assert positional == defn.checks_caller
    steps = [s for s in (defn.prepare, defn.update, defn.update_into, defn.finalize) if s]
    if defn.takes_caller:
        assert _takes(defn.update, "func") and _takes(defn.finalize, "func")
    else:
        assert not any(_takes(s, "func") for s in steps)


class _Sum:
    def __init__(self, total: float) -> None:
        self.total = total

    def merge(self, other: _Sum) -> _Sum:
        return _Sum(self.total + other.total)


def test_a_definition_of_ones_own_names_the_caller_in_its_option_messages_only():
    from receval.engine.metric import DEFINITIONS, MetricDefinition, register

    def check(func, /, scale=1.0):
        if scale <= 0:
            raise InvalidParameterError(f"{func}: scale must be positive. Got {scale!r}.")
        return {"scale": scale}

    register(
        MetricDefinition(
            name="scaled_sum",
            family="pointwise",
            partitioning="any",
            description="the scaled sum of the labels",
            higher_is_better=True,
            inputs=("y_true",),
            check_params=check,
            prepare=lambda params, y_true: np.asarray(y_true, dtype=float),
            update=lambda params, batch: _Sum(float(batch.sum()) * params["scale"]),
            empty=lambda params: _Sum(0.0),
            finalize=lambda params, state: state.total,
            checks_caller=True,
        )
    )
    try:
        with pytest.raises(InvalidParameterError) as info:
            receval.metric("scaled_sum", scale=0.0)
        assert str(info.value) == "receval.metric('scaled_sum'): scale must be positive. Got 0.0."
        acc = receval.metric("scaled_sum", scale=2.0).update([1, 0, 1]).update([1])
        assert acc.compute() == 6.0
    finally:
        del DEFINITIONS["scaled_sum"]


@pytest.mark.parametrize("checks_caller", [True, False])
def test_checked_gives_the_caller_to_check_params_only_where_it_checks_it(checks_caller):
    from receval.engine.metric import MetricDefinition

    given = []

    def check(*caller, **options):
        given.append((caller, options))
        return options

    defn = MetricDefinition(
        name="recorded",
        check_params=check,
        prepare=lambda params, y_true: y_true,
        update=lambda params, batch: _Sum(0.0),
        empty=lambda params: _Sum(0.0),
        finalize=lambda params, state: state.total,
        checks_caller=checks_caller,
    )
    assert defn.checked("receval.metric('recorded')", scale=2.0) == {"scale": 2.0}
    caller = ("receval.metric('recorded')",) if checks_caller else ()
    assert given == [(caller, {"scale": 2.0})]

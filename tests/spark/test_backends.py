"""Spark runs every definition of the engine: receval.spark.compute == in memory (==)."""

import numpy as np
import pandas as pd
import pytest

import receval
from receval import spark as rs
from receval.engine.metric import DEFINITIONS, MetricDefinition, register
from receval.engine.sums import ExactSum
from receval.exceptions import InvalidParameterError
from receval.registry import ENTRIES, definitions, metric_info

definitions()  # every built-in metric registered

SCORES = [0.0, 0.1, 0.25, 0.5, 0.5, 0.75, 0.9, 1.0]


@pytest.fixture(scope="module")
def rows():
    rng = np.random.default_rng(11)
    n = 400
    y = rng.integers(0, 2, n)
    return pd.DataFrame(
        {
            "y": y,
            "p": rng.choice(SCORES, n),
            "w": rng.integers(1, 4, n) + rng.random(n),
            "g": rng.permutation(np.repeat(np.arange(40), 10)),  # groups spread over partitions
        }
    )


@pytest.fixture(scope="module")
def rows_df(spark, rows):
    return spark.createDataFrame(rows).repartition(3)


# pointwise metrics whose rows split anyhow, from the registry (partial_auc: its
# max_fpr, in test_roc_auc_and_gauc)
ANY = sorted(
    name
    for name, entry in ENTRIES.items()
    if entry.family in ("pointwise", "grouped")
    and entry.partitionings == ("any",)
    and name != "partial_auc"
)


# the P-R areas of weighted rows sum the weights of each score (tests/engine/test_backends.py)
PER_SCORE_WEIGHTS = {"average_precision", "pr_auc", "break_even_point"}


# metrics of a run, over partitions of whole users (test_runs_equal_in_memory); pop_reo
# needs qrels beside the run: not on spark.compute
RUNS = ["distributional_coverage", "item_coverage", "pop_rsp", "shannon_entropy"]


# off-policy estimates of 1-D columns (dr: its form of one number per round)
OFF_POLICY = sorted(name for name, entry in ENTRIES.items() if entry.family == "off_policy")


def test_every_definition_runs_on_spark_or_is_listed():
    listed = {"roc_auc", "partial_auc", "gauc", "ranking", "pop_reo", "retention"}
    assert set(ANY) | listed | set(RUNS) | set(OFF_POLICY) == set(DEFINITIONS)


@pytest.mark.parametrize("name", OFF_POLICY)
@pytest.mark.parametrize("parts", [None, 1, 5])
def test_off_policy_equals_in_memory(spark, rows, name, parts):
    logged = pd.DataFrame({"r": rows["y"], "ps": (rows["p"] + 1) / 2, "t": 1 - rows["p"],
                           "q": rows["p"] / 2, "v": (1 - rows["p"]) / 3})  # fmt: skip
    func = getattr(receval, metric_info(name).function)
    columns = {"reward": "r", "pscore": "ps", "action_dist": "t"}
    model = {}
    if name == "dr":
        columns.update(estimated_rewards="q", estimated_value="v")
        model = {"estimated_rewards": logged["q"], "estimated_value": logged["v"]}
    expected = func(logged["r"], logged["ps"], action_dist=logged["t"], clip=1.5, **model)
    df = spark.createDataFrame(logged).repartition(3)
    assert rs.compute(df, name, columns, num_partitions=parts, clip=1.5) == expected


@pytest.mark.parametrize("name", RUNS)
def test_runs_equal_in_memory(spark, name):
    rng = np.random.default_rng(4)
    users = np.repeat(np.arange(50), 6)
    run = pd.DataFrame({"user": users, "item": rng.integers(0, 40, len(users)),
                        "score": rng.choice([0.1, 0.5, 0.9], len(users))})  # fmt: skip
    run = run.drop_duplicates(["user", "item"]).reset_index(drop=True)
    log = pd.DataFrame({"user": rng.integers(0, 50, 200), "item": rng.integers(0, 45, 200)})
    options = {"k": 3} | ({"train": log} if name in ("pop_rsp", "item_coverage") else {})
    expected = getattr(receval, metric_info(name).function)(run, **options)
    columns = {"user": "user", "item": "item", "score": "score"}
    got = rs.compute(spark.createDataFrame(run).coalesce(1), name, columns, num_partitions=4,
                     **options)  # fmt: skip
    assert got == expected
    with pytest.raises(InvalidParameterError, match="must map 'user', 'item' and one of"):
        rs.compute(spark.createDataFrame(run), name, {"user": "user", "item": "item"}, **options)


@pytest.mark.parametrize("name", ANY)
@pytest.mark.parametrize("parts", [None, 1, 5])
def test_sums_equal_in_memory(rows_df, rows, name, parts):
    func = getattr(receval, metric_info(name).function)
    declared = {"sample_weight": "w", "groups": "g"}  # the ones the metric takes
    declared = {k: c for k, c in declared.items() if k in metric_info(name).inputs}
    expected = func(rows["y"], rows["p"], **{k: rows[c] for k, c in declared.items()})
    prob = DEFINITIONS[name].inputs[1]  # y_pred, y_prob or y_proba
    columns = {"y_true": "y", prob: "p"} | declared
    got = rs.compute(rows_df, name, columns, num_partitions=parts)
    if name in PER_SCORE_WEIGHTS:  # partitions add a score's weights in another order
        assert got == pytest.approx(expected, rel=4 * len(rows) * 2.0**-53, abs=0)
    else:
        assert got == expected


@pytest.mark.parametrize("parts", [None, 5])
def test_grouped_auprc_as_xgboost_computes_it_equals_in_memory(rows_df, rows, parts):
    options = {"interpolation": "davis_goadrich", "skip_groups": "one_class"}
    expected = receval.grouped_auprc_score(rows["y"], rows["p"], groups=rows["g"], **options)
    columns = {"y_true": "y", "y_score": "p", "groups": "g"}
    assert rs.compute(rows_df, "grouped_auprc", columns, num_partitions=parts, **options) == (
        expected
    )


def test_grouped_auc_as_xgboost_computes_it_equals_in_memory(spark, rows):
    # pairs of equal targets in the DataFrame's order (its partitions in order: slices of
    # the rows here, each group spread over them), each partition's rows kept by its
    # state and counted once at the end
    options = {"equal_targets": "input_order", "weighting": "uniform", "min_rows": 3}
    expected = receval.xauc_score(rows["y"], rows["p"], groups=rows["g"], **options)
    df = spark.createDataFrame(rows)
    assert df.rdd.getNumPartitions() > 1
    columns = {"y_true": "y", "y_score": "p", "groups": "g"}
    assert rs.compute(df, "grouped_xauc", columns, **options) == expected


@pytest.mark.parametrize("name", ["log_loss", "normalized_entropy", "pcoc", "mean_absolute_error"])
def test_float32_probabilities_and_weights_near_the_largest_float(spark, rows, name):
    """A FloatType column clips at float32's eps as the function does on float32 input,
    and weights near 1.7e308 give the function's float (weight x loss overflowed)."""
    func = getattr(receval, metric_info(name).function)
    p = rows["p"].to_numpy(np.float32)
    w = rows["w"].to_numpy() / rows["w"].max() * 1.7e308
    frame = pd.DataFrame({"y": rows["y"], "p": p, "w": w})
    df = spark.createDataFrame(frame).repartition(3)
    assert dict(df.dtypes)["p"] == "float"
    prob = DEFINITIONS[name].inputs[1]
    columns = {"y_true": "y", prob: "p", "sample_weight": "w"}
    assert rs.compute(df, name, columns) == func(rows["y"], p, sample_weight=w)


def test_roc_auc_and_gauc(rows_df, rows):
    auc = rs.compute(rows_df, "roc_auc", {"y_true": "y", "y_score": "p"})
    assert auc == receval.roc_auc_score(rows["y"], rows["p"])
    gauc = rs.compute(rows_df, "gauc", {"y_true": "y", "y_score": "p", "groups": "g"})
    assert gauc == receval.gauc_score(rows["y"], rows["p"], groups=rows["g"])
    pauc = rs.compute(rows_df, "partial_auc", {"y_true": "y", "y_score": "p"}, max_fpr=0.3)
    assert pauc == receval.partial_auc(rows["y"], rows["p"], max_fpr=0.3)


def test_a_metric_registered_on_the_driver_runs_on_the_executors(rows_df, rows):
    class Share:  # defined here, so that the task carries it by value
        def __init__(self, pos, n):
            self.pos, self.n = pos, n

        def merge(self, other):
            return Share(self.pos + other.pos, self.n + other.n)

    register(
        MetricDefinition(
            name="positive_share",
            family="pointwise",
            partitioning="any",
            description="share of positives",
            higher_is_better=True,
            inputs=("y_true",),
            check_params=lambda: {},
            prepare=lambda params, y_true: np.asarray(y_true, dtype=np.float64),
            update=lambda params, y: Share(ExactSum.of(y), len(y)),
            empty=lambda params: Share(ExactSum.zero(), 0),
            finalize=lambda params, state: state.pos.value / state.n,
        )
    )
    try:
        got = rs.compute(rows_df, "positive_share", {"y_true": "y"})
    finally:
        del DEFINITIONS["positive_share"]
    assert got == rows["y"].mean()


@pytest.mark.parametrize("name", ["normalized_entropy", "pcoc", "expected_calibration_error"])
def test_negative_sampling_rate_recalibrates_on_spark(rows_df, rows, name):
    func = getattr(receval, metric_info(name).function)
    expected = func(rows["y"], rows["p"], sample_weight=rows["w"], negative_sampling_rate=0.1)
    columns = {"y_true": "y", "y_prob": "p", "sample_weight": "w"}
    assert rs.compute(rows_df, name, columns, negative_sampling_rate=0.1) == expected


@pytest.mark.parametrize(
    ("users", "items"),
    [
        # -0.0 beside 1.5 is the float 0.0 in memory; a partition without 1.5 read it
        # as the integer 0, an item the training log does not hold
        (["u1", "u2", "u3", "u4"], [18.0, 18.0, -0.0, 1.5]),
        ([1e15, 1e15, 18.0, 2.0**53], [1e15, 3.0, 18.0, 2.0**53]),  # floats: 2**53 is one
    ],
    ids=["negative-zero", "past-2**53"],
)
def test_float_ids_of_a_run_are_read_per_column_as_in_memory(spark, users, items):
    run = pd.DataFrame({"user": users, "item": items, "score": [0.9, 0.5, 0.7, 0.3]})
    train = run[["user", "item"]]
    expected = receval.item_coverage(run, k=1, train=train)
    # (partitions of their own: adaptive execution would join those of a few rows)
    got = rs.compute(spark.createDataFrame(run), "item_coverage",
                     {"user": "user", "item": "item", "score": "score"}, num_partitions=4,
                     k=1, train=train)  # fmt: skip
    assert got == expected


@pytest.mark.parametrize("name", ["regression_auc", "grouped_regression_auc"])
def test_weights_of_a_metric_that_takes_none_are_refused_as_in_memory(rows_df, name):
    # before: "The 'columns' parameter ... must map data arguments of regression_auc
    # ['y_true', 'y_score'] to columns. Got 'sample_weight' instead."
    columns = {"y_true": "y", "y_score": "p", "sample_weight": "w"}
    if name.startswith("grouped"):
        columns["groups"] = "g"
    with pytest.raises(InvalidParameterError) as info:
        rs.compute(rows_df, name, columns)
    assert str(info.value) == (
        f"receval.spark.compute: sample_weight is not taken by {name}: it counts each row "
        f"once. Got the column 'w'; compute {name} without them (or repeat rows to weigh them)."
    )


# metrics that leave groups out of their mean (Accumulator.skipped counts them), from the
# definitions: a new one is covered
GROUPED = sorted(name for name, defn in DEFINITIONS.items() if defn.grouped is not None)


@pytest.mark.parametrize("name", GROUPED)
@pytest.mark.parametrize("parts", [None, 7])
def test_accumulate_gives_the_counts_of_groups_skipped_as_in_memory(spark, name, parts):
    # groups of one class (skipped by gauc and the XAUCs; those of no positive by
    # grouped_auprc) and of one row (by grouped_regression_auc), spread over partitions;
    # without groups (regression_auc) the rows alone
    rng = np.random.default_rng(5)
    n = 310
    g = rng.permutation(np.concatenate([np.repeat(np.arange(60), 5), np.arange(100, 110)]))
    y = np.where(g % 3 == 0, 1, np.where(g % 3 == 1, 0, rng.integers(0, 2, n)))
    frame = pd.DataFrame({"y": y, "p": rng.choice(SCORES, n), "g": g})
    inputs = DEFINITIONS[name].inputs
    columns = {"y_true": "y", "y_score": "p"} | ({"groups": "g"} if "groups" in inputs else {})
    expected = receval.metric(name)
    expected.update(*(frame[columns[k]] for k in ("y_true", "y_score")),
                    **({"groups": frame["g"]} if "groups" in columns else {}))  # fmt: skip
    acc = rs.accumulate(spark.createDataFrame(frame), name, columns, num_partitions=parts)
    assert isinstance(acc, receval.Accumulator)
    assert acc.compute() == expected.compute()
    assert acc.skipped() == expected.skipped()
    if "groups" in columns:
        assert acc.skipped()["n_groups_skipped"] > 0  # the case this test is about
    # the merged accumulator goes on as any other: more rows on the driver
    more = (np.array([1, 0]), np.array([0.3, 0.2]))
    group = {"groups": np.array([999, 999])} if "groups" in columns else {}
    assert acc.update(*more, **group).compute() == expected.update(*more, **group).compute()
    assert acc.skipped() == expected.skipped()


def test_compute_is_the_value_of_accumulate(rows_df):
    columns = {"y_true": "y", "y_score": "p", "groups": "g"}
    acc = rs.accumulate(rows_df, "grouped_auprc", columns)
    assert rs.compute(rows_df, "grouped_auprc", columns) == acc.compute()
    with pytest.raises(InvalidParameterError, match=r"receval\.spark\.accumulate"):
        rs.accumulate(rows_df, "grouped_auprc", {"y_true": "y", "y_score": "p", "user": "g"})


def test_an_option_error_names_the_spark_function_called(rows_df):
    # they said "receval.metric('log_loss')" and "of pcoc", neither of them called
    with pytest.raises(InvalidParameterError) as info:
        rs.compute(rows_df, "log_loss", {"y_true": "y", "y_pred": "p"}, epss=0.1)
    assert str(info.value) == (
        "receval.spark.compute takes no option 'epss' (did you mean 'eps'?); its options are "
        "['eps', 'normalize', 'negative_sampling_rate', 'pos_label']."
    )
    with pytest.raises(InvalidParameterError) as info:
        rs.accumulate(rows_df, "pcoc", {"y_true": "y", "y_prob": "p"}, negative_sampling_rate=2)
    assert str(info.value) == (
        "The 'negative_sampling_rate' parameter of receval.spark.accumulate must be a real "
        "number in (0.0, 1.0]. Got 2 instead."
    )
    with pytest.raises(InvalidParameterError) as info:
        rs.compute(rows_df, "item_coverage", {"user": "g", "item": "y"}, k=0)
    assert str(info.value).startswith("The 'k' parameter of receval.spark.compute must be")


def test_a_metric_without_an_accumulator_is_refused_naming_the_spark_function(spark):
    # before: "receval.metric('gini_index'): ... use receval.gini_index on the whole
    # data", naming a function that was not called
    run = spark.createDataFrame(pd.DataFrame({"u": [1, 1], "i": [1, 2], "s": [0.5, 0.2]}))
    with pytest.raises(InvalidParameterError) as info:
        rs.compute(run, "gini_index", {"user": "u", "item": "i", "score": "s"})
    assert str(info.value) == (
        "receval.spark.compute: gini_index has no accumulator (it needs all its rows at "
        "once), so receval.spark.compute cannot compute it by parts; use receval.gini_index "
        "on the whole data in memory."
    )

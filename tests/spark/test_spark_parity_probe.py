"""receval.spark on awkward inputs: the in-memory value, counts and errors, exactly.

Ten rows with tied scores (within a group and across groups), groups whose rows lie
in several partitions, one partition, and sixteen partitions of which most are
empty; string, int and long ids; float32 columns; scores from 5e-324 to 1e300;
nulls in every column.
"""

import numpy as np
import pandas as pd
import pytest

import receval
import receval.spark as rs
from receval.engine.metric import DEFINITIONS
from receval.exceptions import InputValidationError
from receval.registry import ENTRIES, definitions, metric_info

pytestmark = pytest.mark.filterwarnings(
    "ignore::FutureWarning", "ignore::DeprecationWarning", "ignore::UserWarning"
)

definitions()  # every built-in metric registered

#: ties within group "a" (0.5), "d" (0.7) and across groups (0.3, 0.5); "b": no click
ROWS = pd.DataFrame({
    "y": [1, 0, 1, 0, 0, 1, 1, 0, 1, 0],
    "p": [0.5, 0.5, 0.9, 0.1, 0.5, 0.3, 0.3, 0.3, 0.7, 0.7],
    "g": ["a", "a", "a", "b", "b", "c", "c", "d", "d", "d"],
    "w": [1.0, 2.0, 0.5, 1.0, 3.0, 1.0, 2.0, 1.5, 0.25, 1.0],
})  # fmt: skip

#: the group ids as strings, int32 and longs past the ints
IDS = {
    "str": ROWS["g"],
    "int": ROWS["g"].map({"a": 1, "b": 2, "c": 3, "d": 4}).astype("int32"),
    "long": ROWS["g"].map({"a": 2**40, "b": 2, "c": -3, "d": 4}).astype("int64"),
}

#: the metrics of y_true and a score column that receval.spark.compute runs
POINTWISE = sorted(
    name
    for name, entry in ENTRIES.items()
    if name in DEFINITIONS and entry.family in ("pointwise", "grouped")
)
OPTIONS = {"partial_auc": {"max_fpr": 0.5}}


def _layout(df, layout):
    """``df`` in one partition, or in sixteen (ten rows: most of them empty)."""
    return df.coalesce(1) if layout == "one" else df.repartition(16)


def _same(got, expected):
    return got == expected or (np.isnan(got) and np.isnan(expected))


@pytest.mark.parametrize(("ids", "layout"), [("long", "many"), ("str", "one")])
def test_every_pointwise_metric_with_and_without_weights(spark, ids, layout):
    rows = ROWS.assign(g=IDS[ids])
    df = _layout(spark.createDataFrame(rows), layout)
    for name in POINTWISE:
        inputs = DEFINITIONS[name].inputs
        func = getattr(receval, metric_info(name).function)
        for weighted in (False, True) if "sample_weight" in inputs else (False,):
            declared = {"groups": "g"} if "groups" in inputs else {}
            declared |= {"sample_weight": "w"} if weighted else {}
            options = OPTIONS.get(name, {})
            expected = func(rows["y"], rows["p"], **{k: rows[c] for k, c in declared.items()},
                            **options)  # fmt: skip
            columns = {"y_true": "y", inputs[1]: "p"} | declared
            got = rs.compute(df, name, columns, **options)
            assert _same(got, expected), (name, weighted, got, expected)


@pytest.mark.parametrize("ids", sorted(IDS))
@pytest.mark.parametrize("layout", ["one", "many"])
def test_gauc_and_its_skipped_counts(spark, ids, layout):
    rows = ROWS.assign(g=IDS[ids])
    df = _layout(spark.createDataFrame(rows), layout)
    for weighting, weights in (("impressions", None), ("clicks", "w"), ("uniform", "w")):
        expected = receval.group_auc(
            rows["y"], rows["p"], groups=rows["g"], weighting=weighting,
            sample_weight=None if weights is None else rows[weights],
        )  # fmt: skip
        got = rs.group_auc(df, "y", "p", groups="g", weighting=weighting, sample_weight=weights)
        assert (got.score, got.n_groups, got.n_groups_skipped, got.n_rows_skipped) == (
            expected.score, expected.n_groups, expected.n_groups_skipped,
            expected.n_rows_skipped,
        )  # fmt: skip
        assert got.n_rows == expected.n_rows.sum()
        score = rs.gauc_score(df, "y", "p", groups="g", weighting=weighting,
                              sample_weight=weights, num_partitions=16)  # fmt: skip
        assert score == expected.score


#: frames of extreme or narrow values: (scores, weights), both columns as given
EXTREMES = {
    "huge_and_subnormal_scores": (
        np.where(np.arange(10) % 2, ROWS["p"] * 1e300, 5e-324 * np.arange(10)),
        ROWS["w"],
    ),
    "huge_and_subnormal_weights": (ROWS["p"], np.where(np.arange(10) % 3, 5e-324, 1e300)),
    "float32": (ROWS["p"].astype(np.float32) + np.float32(1e-8), ROWS["w"].astype(np.float32)),
}


@pytest.mark.parametrize("case", sorted(EXTREMES))
def test_extreme_and_float32_values(spark, case):
    scores, weights = EXTREMES[case]
    rows = ROWS.assign(p=scores, w=weights)
    df = spark.createDataFrame(rows).repartition(16)
    columns = {"y_true": "y", "y_score": "p", "groups": "g", "sample_weight": "w"}
    weighted = {"sample_weight": rows["w"]}
    assert rs.roc_auc_score(df, "y", "p", sample_weight="w") == receval.roc_auc_score(
        rows["y"], rows["p"], **weighted
    )
    assert rs.gauc_score(df, "y", "p", groups="g", sample_weight="w") == receval.gauc_score(
        rows["y"], rows["p"], groups=rows["g"], **weighted
    )
    assert rs.compute(df, "grouped_auprc", columns) == receval.grouped_auprc_score(
        rows["y"], rows["p"], groups=rows["g"], **weighted
    )
    if case != "huge_and_subnormal_scores":  # probabilities
        for func in ("log_loss", "pcoc", "copc", "normalized_entropy"):
            got = getattr(rs, func)(df, "y", "p", sample_weight="w")
            assert _same(got, getattr(receval, func)(rows["y"], rows["p"], **weighted)), func


#: a null in one column, and the message of the error (the value nulled is row 2's)
NULLS = {
    "y": "receval.spark.roc_auc_score: y_true contains missing values (NaN), the first in "
    "one of the DataFrame's partitions; drop or fill them first.",
    "p": "receval.spark.roc_auc_score: y_score contains NaN or infinity, the first in one "
    "of the DataFrame's partitions (nan); drop those rows or replace the values with "
    "finite numbers first.",
    "w": "receval.spark.roc_auc_score: sample_weight contains NaN or infinity, the first in "
    "one of the DataFrame's partitions (nan); drop those rows or replace the values with "
    "finite numbers first.",
}


@pytest.mark.parametrize("column", sorted(NULLS))
def test_nulls_are_refused_without_a_partition_position(spark, column):
    # before: the message stated the position (and count) of the null in its partition,
    # e.g. "the first at position 7" of a null that is row 2 of the DataFrame
    from pyspark.sql.types import DoubleType, LongType, StringType, StructField, StructType

    kinds = {"y": LongType(), "p": DoubleType(), "g": StringType(), "w": DoubleType()}
    schema = StructType([StructField(c, kind) for c, kind in kinds.items()])
    records = [tuple(None if (i, c) == (2, column) else r[c] for c in "ypgw")
               for i, r in ROWS.astype(object).iterrows()]  # fmt: skip
    df = spark.createDataFrame(records, schema).repartition(16)
    with pytest.raises(InputValidationError) as info:
        rs.roc_auc_score(df, "y", "p", sample_weight="w")
    assert str(info.value) == NULLS[column]
    assert info.value.row is None
    with pytest.raises(InputValidationError, match="in one of the DataFrame's partitions"):
        rs.gauc_score(df, "y", "p", groups="g", sample_weight="w", num_partitions=4)


def test_null_ids_are_refused_and_unused_columns_ignored_as_in_memory(spark):
    rows = ROWS.assign(g=ROWS["g"].where(ROWS.index != 2, None))
    df = spark.createDataFrame(rows).repartition(16)
    with pytest.raises(InputValidationError, match=r"groups contains missing values .*parti"):
        rs.gauc_score(df, "y", "p", groups="g")
    assert rs.roc_auc_score(df, "y", "p") == receval.roc_auc_score(rows["y"], rows["p"])

"""Every receval.spark function names itself in the errors of its arguments, as
receval's in-memory functions name theirs: a ``pos_label`` that neither label of
``y_true`` is (checked where a partition's rows are read) and retention's options."""

from __future__ import annotations

import pandas as pd
import pytest

import receval
import receval.spark as rs
from receval.exceptions import InvalidParameterError

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::DeprecationWarning")

ROWS = pd.DataFrame({"y": [0, 1, 1, 0], "p": [0.2, 0.8, 0.6, 0.3], "g": ["u", "u", "v", "v"]})
LABELS = "must be one of [0, 1], the labels of y_true. Got 'nope' instead."
GROUPED = {"y_true": "y", "y_score": "p", "groups": "g"}


@pytest.mark.parametrize(
    ("func", "call"),
    [
        ("log_loss", lambda df: rs.log_loss(df, "y", "p", pos_label="nope")),
        ("pcoc", lambda df: rs.pcoc(df, "y", "p", pos_label="nope")),
        ("copc", lambda df: rs.copc(df, "y", "p", pos_label="nope")),
        ("normalized_entropy", lambda df: rs.normalized_entropy(df, "y", "p", pos_label="nope")),
        ("roc_auc_score", lambda df: rs.roc_auc_score(df, "y", "p", pos_label="nope")),
        ("gauc_score", lambda df: rs.gauc_score(df, "y", "p", groups="g", pos_label="nope")),
        ("group_auc", lambda df: rs.group_auc(df, "y", "p", groups="g", pos_label="nope")),
        ("compute", lambda df: rs.compute(df, "gauc", GROUPED, pos_label="nope")),
        ("accumulate", lambda df: rs.accumulate(
            df, "log_loss", {"y_true": "y", "y_pred": "p"}, pos_label="nope")),
    ],
)  # fmt: skip
def test_a_pos_label_of_no_label_names_the_spark_function(spark, func, call):
    # said "The 'pos_label' parameter of log_loss" (the in-memory function's name)
    with pytest.raises(InvalidParameterError) as info:
        call(spark.createDataFrame(ROWS))
    assert str(info.value) == f"The 'pos_label' parameter of receval.spark.{func} {LABELS}"


@pytest.mark.parametrize(
    ("options", "said"),
    [
        ({"days": [-1]}, "The 'days' parameter of receval.spark.retention must be"),
        ({"period": "decade"}, "The 'period' parameter of receval.spark.retention must be"),
        ({"before_signup": "x"}, "The 'before_signup' parameter of receval.spark.retention"),
    ],
)
def test_retention_options_name_the_spark_function(spark, options, said):
    # said "The 'days' parameter of retention" (receval.retention's name)
    events = spark.createDataFrame(pd.DataFrame({"user": [1, 1], "time": [0, 86400]}))
    with pytest.raises(InvalidParameterError) as info:
        rs.retention(events, **options)
    assert str(info.value).startswith(said)


RUN = pd.DataFrame(
    {"user": [1, 1, 2, 2], "item": ["b", "d", "a", "e"], "score": [0.9, 0.5, 0.8, 0.1]}
)
TRAIN = pd.DataFrame({"user": [1, 2, 3, 3, 4, 5], "item": ["a", "a", "a", "b", "d", "e"]})
RUN_COLUMNS = {"user": "user", "item": "item", "score": "score"}


@pytest.mark.parametrize("func", ["compute", "accumulate"])
def test_a_spark_train_of_compute_says_what_to_pass(spark, func):
    # said "train must be a Qrels, a Run, a DataFrame with columns 'user' and 'item', or
    # a tuple (users, items). Got DataFrame." of a DataFrame with those columns
    call = getattr(rs, func)
    with pytest.raises(InvalidParameterError) as info:
        call(spark.createDataFrame(RUN), "pop_rsp", RUN_COLUMNS, train=spark.createDataFrame(TRAIN))
    said = str(info.value)
    assert said.startswith(f"The 'train' parameter of receval.spark.{func} must be local data")
    assert "Got a Spark DataFrame instead; pass train=<df>.toPandas()" in said


def test_the_local_train_said_gives_the_in_memory_value(spark):
    train = spark.createDataFrame(TRAIN)
    got = rs.compute(spark.createDataFrame(RUN), "pop_rsp", RUN_COLUMNS, train=train.toPandas())
    assert got == pytest.approx(receval.compute("pop_rsp", RUN, train=TRAIN)) == 0.2

"""receval.spark gives the in-memory numbers, exactly, on the same rows.

Every DataFrame is built from a pandas frame whose rows are shuffled, so the
rows of one user (group, score value) lie in several input partitions; the
in-memory reference is computed on the same frame, in the same row order.
"""

import dataclasses
import warnings
from functools import partial

import numpy as np
import pandas as pd
import pytest

import receval
import receval.spark as rs
from receval.exceptions import InputValidationError, InvalidParameterError, UndefinedMetricWarning

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::DeprecationWarning")


def _frame(spark, pdf, slices=3):
    """A Spark DataFrame of ``pdf`` in ``slices`` input partitions, row order kept."""
    return (
        spark.createDataFrame(pdf).coalesce(1).repartition(slices)
        if False
        else (spark.createDataFrame(pdf))
    )


@pytest.fixture(scope="module")
def impressions():
    rng = np.random.default_rng(7)
    n = 4000
    users = rng.integers(0, 300, n)
    scores = np.round(rng.random(n), 1)  # heavy ties
    scores[::13] = -0.0
    scores[::17] = 0.0
    labels = (rng.random(n) < 0.2 + 0.5 * scores).astype(np.int64)
    labels[users % 37 == 0] = 0  # single-class users: skipped by GAUC
    return pd.DataFrame(
        {
            "user": users,
            "label": labels,
            "score": scores,
            "prob": np.clip(scores, 0.0, 1.0),
            "weight": rng.random(n) * np.exp2(rng.integers(-20, 20, n)),
        }
    )


@pytest.fixture(scope="module")
def impressions_df(spark, impressions):
    return spark.createDataFrame(impressions).repartition(5)


def _collected(df):
    return df.toPandas()


# ------------------------------------------------------------------ pointwise
@pytest.mark.parametrize("num_partitions", [None, 1, 7])
def test_roc_auc_equals_in_memory(impressions_df, num_partitions):
    pdf = _collected(impressions_df)
    expected = receval.roc_auc_score(pdf["label"], pdf["score"])
    got = rs.roc_auc_score(impressions_df, "label", "score", num_partitions=num_partitions)
    assert got == expected


@pytest.mark.parametrize("seed", [5, 15])
def test_roc_auc_weighted(spark, seed):
    """Weights of every bit: twice the U passes 2**128 units (here 2**228), where
    rounding each distinct score's product first would give another float for these
    seeds; the partitions' exact integers, added on the driver and rounded once, are
    the in-memory float."""
    rng = np.random.default_rng(seed)
    n = 500
    pdf = pd.DataFrame({
        "label": (rng.random(n) < 0.4).astype(np.int64),
        "score": np.round(rng.random(n), 2),
        "weight": rng.random(n) * np.exp2(rng.integers(-30, 30, n)),
    })  # fmt: skip
    expected = receval.roc_auc_score(pdf["label"], pdf["score"], sample_weight=pdf["weight"])
    df = spark.createDataFrame(pdf).repartition(3)
    got = rs.roc_auc_score(df, "label", "score", sample_weight="weight", num_partitions=4)
    assert got == expected


@pytest.mark.parametrize("num_partitions", [1, 7])
def test_roc_auc_weighted_exactly(spark, impressions, num_partitions):
    """Weights whose sums stay within 2**128 units (quarters here): the in-memory float."""
    pdf = impressions.copy()
    pdf["weight"] = np.round(pdf["weight"].clip(0, 1e3) * 4) / 4
    expected = receval.roc_auc_score(pdf["label"], pdf["score"], sample_weight=pdf["weight"])
    df = spark.createDataFrame(pdf)
    got = rs.roc_auc_score(
        df, "label", "score", sample_weight="weight", num_partitions=num_partitions
    )
    assert got == expected


def test_roc_auc_all_ties_in_one_range(spark):
    pdf = pd.DataFrame({"label": [1, 0, 1, 0, 0, 1] * 50, "score": [0.5] * 300})
    df = spark.createDataFrame(pdf).repartition(4)
    assert rs.roc_auc_score(df, "label", "score", num_partitions=8) == 0.5


def test_roc_auc_single_class_warns(spark):
    df = spark.createDataFrame(pd.DataFrame({"label": [0, 0], "score": [0.1, 0.2]}))
    with pytest.warns(UndefinedMetricWarning, match="single class"):
        assert np.isnan(rs.roc_auc_score(df, "label", "score"))


@pytest.mark.parametrize("weighted", [False, True])
def test_log_loss_pcoc_copc_equal_in_memory(impressions_df, weighted):
    pdf = _collected(impressions_df)
    sw = pdf["weight"] if weighted else None
    col = "weight" if weighted else None
    assert rs.log_loss(impressions_df, "label", "prob", sample_weight=col) == receval.log_loss(
        pdf["label"], pdf["prob"], sample_weight=sw
    )
    assert rs.pcoc(impressions_df, "label", "prob", sample_weight=col) == receval.pcoc(
        pdf["label"], pdf["prob"], sample_weight=sw
    )
    assert rs.copc(
        impressions_df, "label", "prob", sample_weight=col, num_partitions=3
    ) == receval.copc(pdf["label"], pdf["prob"], sample_weight=sw)
    # a metric defined once in the engine: the same float from every partitioning
    for parts in (None, 1, 5):
        assert rs.normalized_entropy(
            impressions_df, "label", "prob", sample_weight=col, num_partitions=parts
        ) == receval.normalized_entropy(pdf["label"], pdf["prob"], sample_weight=sw)


@pytest.mark.parametrize("weighting", ["impressions", "clicks", "uniform"])
@pytest.mark.parametrize("num_partitions", [None, 1, 6])
def test_gauc_equals_in_memory(impressions_df, weighting, num_partitions):
    pdf = _collected(impressions_df)
    expected = receval.group_auc(
        pdf["label"], pdf["score"], groups=pdf["user"], weighting=weighting
    )
    got = rs.group_auc(
        impressions_df, "label", "score", groups="user", weighting=weighting,
        num_partitions=num_partitions,
    )  # fmt: skip
    assert got.score == expected.score
    assert got.score == rs.gauc_score(
        impressions_df, "label", "score", groups="user", weighting=weighting
    )
    assert (got.n_groups, got.n_groups_skipped) == (expected.n_groups, expected.n_groups_skipped)
    assert got.n_rows_skipped == expected.n_rows_skipped
    assert got.n_groups_skipped > 0


def test_float_groups_whole_in_one_partition_and_not_in_another_equal_in_memory(spark):
    # before: a partition of whole floats held integer ids, one holding 0.5 "strings",
    # and merging them raised "groups must hold ids of one type"
    groups = [1.0, 1.0, 0.5, 0.5, 2.0, 2.0, 3.0, 3.0, 4.0, 4.0, -0.0, 0.0, 7.5, 7.5]
    labels = [1, 0, 1, 0, 0, 1, 1, 0, 1, 0, 1, 0, 0, 1]
    scores = [0.9, 0.1, 0.3, 0.4, 0.8, 0.2, 0.6, 0.7, 0.5, 0.4, 0.3, 0.2, 0.1, 0.9]
    df = spark.createDataFrame(pd.DataFrame({"g": groups, "y": labels, "s": scores}))
    columns = {"y_true": "y", "y_score": "s", "groups": "g"}
    got = rs.gauc_score(df, "y", "s", groups="g", num_partitions=4)
    assert got == receval.gauc_score(labels, scores, groups=groups) == 0.5714285714285714
    got = rs.compute(df, "grouped_auprc", columns, num_partitions=4)
    assert got == receval.grouped_auprc_score(labels, scores, groups=groups)


def test_gauc_score_checks_its_options_once(spark, monkeypatch):
    # before: gauc_score checked GAUC's options again after the partitions were merged
    from receval.metrics import _gauc

    calls = []
    check = _gauc.GAUC.check_params

    def counted(*args, **options):
        calls.append(options)
        return check(*args, **options)

    monkeypatch.setattr(_gauc, "GAUC", dataclasses.replace(_gauc.GAUC, check_params=counted))
    df = spark.createDataFrame(pd.DataFrame({"g": [1, 1], "y": [1, 0], "s": [0.9, 0.1]}))
    assert rs.gauc_score(df, "y", "s", groups="g") == 1.0
    assert len(calls) == 1


def test_gauc_weighted_and_mapping(impressions_df):
    pdf = _collected(impressions_df)
    mapping = {u: 1.0 + (u % 5) for u in range(300)}
    expected = receval.gauc_score(
        pdf["label"], pdf["score"], groups=pdf["user"], weighting=mapping,
        sample_weight=pdf["weight"],
    )  # fmt: skip
    got = rs.gauc_score(
        impressions_df, "label", "score", groups="user", weighting=mapping, sample_weight="weight"
    )
    assert got == expected


def test_gauc_of_rounded_weights_warns_on_the_driver_as_in_memory(spark):
    # two groups whose positives' weights (1 and 2**-123) span more than the exact sums
    # hold: the driver warns once, as the function (before: only the executors did,
    # where no one reads it, and the driver's value said nothing)
    over, fits = [1.0, 2.0**-123, 3.0, 1.0] * 2, [1.0, 2.0**-122, 3.0, 1.0] * 2
    pdf = pd.DataFrame({"label": [1, 1, 0, 0] * 2, "score": [0.9, 0.2, 0.5, 0.1] * 2,
                        "user": [1] * 4 + [2] * 4, "over": over, "fits": fits})  # fmt: skip
    df = spark.createDataFrame(pdf)

    def said(call):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = call()
        return value, [str(w.message) for w in caught if w.category is receval.RecevalWarning]

    for weights in ("over", "fits"):
        expected = said(lambda w=weights: receval.gauc_score(
            pdf["label"], pdf["score"], groups=pdf["user"], sample_weight=pdf[w]))  # fmt: skip
        assert len(expected[1]) == (weights == "over")
        for func in (rs.gauc_score, lambda *a, **k: rs.group_auc(*a, **k).score):
            got = said(lambda w=weights, f=func: f(df, "label", "score", groups="user",
                                                   sample_weight=w, num_partitions=2))  # fmt: skip
            assert got == expected


def test_errors_inside_partitions_come_back(spark):
    df = spark.createDataFrame(pd.DataFrame({"label": [1, 0, 1], "prob": [0.5, 1.5, 0.2]}))
    with pytest.raises(InputValidationError, match="y_prob"):
        rs.pcoc(df, "label", "prob")
    df = spark.createDataFrame(pd.DataFrame({"label": [1, 2, 0], "score": [0.5, 0.1, 0.2]}))
    with pytest.raises(InputValidationError, match="y_true"):
        rs.roc_auc_score(df, "label", "score")


def test_argument_errors(spark, impressions_df, impressions):
    with pytest.raises(InvalidParameterError, match="Spark DataFrame"):
        rs.roc_auc_score(impressions, "label", "score")
    with pytest.raises(InputValidationError, match=r"no column 'clicks'.*'y_true'"):
        rs.roc_auc_score(impressions_df, "clicks", "score")
    with pytest.raises(InvalidParameterError, match="num_partitions"):
        rs.log_loss(impressions_df, "label", "prob", num_partitions=0)
    with pytest.raises(InvalidParameterError, match="weighting"):
        rs.gauc_score(impressions_df, "label", "score", groups="user", weighting="views")
    empty = impressions_df.limit(0)
    with pytest.raises(InputValidationError, match="empty"):
        rs.log_loss(empty, "label", "prob")


def test_a_column_of_strings_where_numbers_go_is_named_before_any_job(spark):
    df = spark.createDataFrame(
        pd.DataFrame({"user": ["u1", "u2"], "click": [1, 0], "score": [0.5, 0.2]})
    )
    fix = "pass the column of numbers, or cast this one first, e.g. df.withColumn('user', "
    with pytest.raises(InputValidationError) as info:
        rs.roc_auc_score(df, "click", "user")
    assert str(info.value) == (
        "receval.spark.roc_auc_score: y_score must be a column of numbers. Got the column "
        f"'user' of df, of type string; {fix}F.col('user').cast('double'))."
    )
    with pytest.raises(InputValidationError, match=r"spark.log_loss: y_pred must be .* 'user'"):
        rs.log_loss(df, "click", "user")
    with pytest.raises(InputValidationError, match=r"gauc_score: y_score must be .* 'user'"):
        rs.gauc_score(df, "click", "user", groups="user")
    with pytest.raises(InputValidationError, match=r"sample_weight must be .* 'user'"):
        rs.pcoc(df, "click", "score", sample_weight="user")
    assert rs.roc_auc_score(df, "click", "score") == 1.0  # labels may be any type: not checked


def test_roc_auc_takes_pos_label_as_in_memory(spark, impressions):
    labels = np.where(impressions["label"] == 1, "click", "skip")
    df = spark.createDataFrame(impressions.assign(label=labels))
    # two labels without pos_label: refused as an accumulator refuses them, saying why
    # (before: the in-memory function's name and fix, or an accumulator's, which were
    # not called, and no reason where memory takes the greater label as positive)
    why = (
        "; a partition cannot tell which label is the positive one, for another "
        "partition may hold another (0s and 2s, then 2s and 5s). Pass pos_label to "
    )
    for func in (rs.roc_auc_score, rs.log_loss):
        with pytest.raises(InputValidationError) as info:
            func(df, "label", "prob" if func is rs.log_loss else "score")
        assert str(info.value) == (
            f"receval.spark.{func.__name__}: y_true takes values ['click', 'skip'] and "
            f"pos_label is not specified{why}receval.spark.{func.__name__}, e.g. "
            f"pos_label='skip'."
        )
    for positive in ("click", "skip"):
        expected = receval.roc_auc_score(labels, impressions["score"], pos_label=positive)
        assert rs.roc_auc_score(df, "label", "score", pos_label=positive) == expected


def test_errors_name_the_spark_function_called(spark, impressions_df):
    empty = impressions_df.limit(0)
    # gauc_score, group_auc, and compute over groups or users: before, Spark's
    # "Number of partitions (0) must be positive" (repartitioned into the input's 0)
    group = {"groups": "user"}
    calls = {
        "log_loss": lambda df: rs.log_loss(df, "label", "prob"),
        "pcoc": lambda df: rs.pcoc(df, "label", "prob"),
        "roc_auc_score": lambda df: rs.roc_auc_score(df, "label", "prob"),
        "gauc_score": lambda df: rs.gauc_score(df, "label", "prob", **group),
        "group_auc": lambda df: rs.group_auc(df, "label", "prob", **group),
        "compute": lambda df: rs.compute(
            df, "gauc", {"y_true": "label", "y_score": "prob", **group}
        ),
    }
    for name, call in calls.items():
        with pytest.raises(InputValidationError) as info:
            call(empty)
        assert (
            str(info.value) == f"receval.spark.{name}: y_true is empty; pass at least one sample."
        )
    run = {"user": "user", "item": "label", "score": "prob"}
    with pytest.raises(InputValidationError) as info:
        rs.compute(empty, "shannon_entropy", run)
    assert str(info.value) == "receval.spark.compute: df is empty; pass at least one sample."
    # a partition's errors: before, "Accumulator.update of 'log_loss': ...", not called
    bad = spark.createDataFrame(pd.DataFrame({"label": [1, 0, 1], "prob": [0.2, 0.6, 1.5]}))
    said = ("y_pred must contain probabilities in [0, 1]. Got values [1.5]; pass predicted "
            "probabilities, e.g. apply a sigmoid to raw scores.")  # fmt: skip
    with pytest.raises(InputValidationError) as info:
        rs.log_loss(bad, "label", "prob")
    assert str(info.value) == f"receval.spark.log_loss: {said}"
    with pytest.raises(InputValidationError) as info:
        rs.compute(bad, "log_loss", {"y_true": "label", "y_pred": "prob"})
    assert str(info.value) == f"receval.spark.compute: {said}"
    with pytest.raises(InputValidationError, match=r"^receval\.spark\.compute: df has no col"):
        rs.compute(impressions_df, "pcoc", {"y_true": "clicks", "y_prob": "prob"})
    with pytest.raises(InputValidationError, match=r"^receval\.spark\.copc: df has no column"):
        rs.copc(impressions_df, "clicks", "prob")
    with pytest.raises(InvalidParameterError, match=r"'ties' parameter of receval\.spark\.eval"):
        rs.evaluate(impressions_df, impressions_df, ["ndcg@3"], user="user", item="label",
                    grade="label", ties="foo")  # fmt: skip


# ------------------------------------------------------------------ ranking
def _ranking_frames(string_ids: bool):
    rng = np.random.default_rng(3)
    rows_q, rows_r = [], []
    for u in range(120):
        user = f"u{u}" if string_ids else u
        if u % 11 != 0:  # users 0, 11, ...: only in the run
            for i in rng.choice(60, rng.integers(1, 8), replace=False):
                grade = int(rng.integers(0, 3)) if u % 7 else 0  # users 7, 14, ...: no relevant
                rows_q.append((user, f"i{i}" if string_ids else int(i), grade))
        if u % 13 != 5:  # users 5, 18, ...: absent from the run
            for i in rng.choice(60, rng.integers(1, 25), replace=False):
                score = float(np.round(rng.random(), 1))  # ties
                rows_r.append((user, f"i{i}" if string_ids else int(i), score))
    qrels = pd.DataFrame(rows_q, columns=["user", "item", "grade"]).sample(frac=1, random_state=1)
    run = pd.DataFrame(rows_r, columns=["user", "item", "score"]).sample(frac=1, random_state=2)
    return qrels.reset_index(drop=True), run.reset_index(drop=True)


METRICS = [
    "ndcg@10",
    "map@20",
    "mrr",
    "recall@10",
    "p@5",
    "pooled_hit_ratio@10",
    "success@3",
    "r_precision",
    "f1@10",
]


@pytest.mark.parametrize("string_ids", [False, True])
@pytest.mark.parametrize("num_partitions", [None, 1, 9])
@pytest.mark.parametrize(
    "conventions",
    [{}, {"profile": "trec_eval"}, {"ties": "average", "empty_users": "zero"},
     {"profile": "ranx"}, {"missing_users": "skip", "gain": "exponential"}],
)  # fmt: skip
def test_evaluate_equals_in_memory(spark, string_ids, num_partitions, conventions):
    qrels, run = _ranking_frames(string_ids)
    metrics = list(METRICS)
    q_df = spark.createDataFrame(qrels)
    r_df = spark.createDataFrame(run)
    expected = receval.evaluate(qrels, r_df.toPandas(), metrics, **conventions)
    got = rs.evaluate(q_df, r_df, metrics, num_partitions=num_partitions, **conventions)
    assert got.mean == expected.mean
    assert got.n_users == expected.n_users
    assert got.n_users_missing == expected.n_users_missing > 0
    assert got.n_run_only_users == expected.n_run_only_users > 0
    assert got.n_users_empty == expected.n_users_empty
    assert got.n_users_skipped == expected.n_users_skipped
    # one aggregation: every count of the in-memory report, the same type
    assert isinstance(got, receval.EvaluationReport)
    for name in ("n_run_items", "n_run_items_unmatched", "n_users_tie_dependent",
                 "mean_ties_average"):  # fmt: skip
        assert getattr(got, name) == getattr(expected, name), name


@pytest.mark.parametrize("seed", range(3))
def test_evaluate_equals_memory_scan_and_accumulators(spark, seed):
    # the counts and means the other backends give (tests/ranking/test_evaluate_backends.py)
    from tests.ranking.test_evaluate_backends import COUNTS, METRICS, ranking_data

    qrels, run = ranking_data(seed)
    q = pd.DataFrame([(u, i, g) for u, items in qrels.items() for i, g in items.items()],
                     columns=["user", "item", "grade"])  # fmt: skip
    r = pd.DataFrame([(u, i, s) for u, items in run.items() for i, s in items.items()],
                     columns=["user", "item", "score"])  # fmt: skip
    for conventions in ({}, {"ties": "average", "empty_users": "zero"}, {"profile": "trec_eval"}):
        want = receval.evaluate(qrels, run, METRICS, **conventions)
        got = rs.evaluate(spark.createDataFrame(q), spark.createDataFrame(r), METRICS,
                          num_partitions=int(3 + seed), **conventions)  # fmt: skip
        for text, value in want.mean.items():
            assert got.mean[text] == value or (np.isnan(value) and np.isnan(got.mean[text]))
        for name in COUNTS:
            assert getattr(got, name) == getattr(want, name), name
        assert want.n_users_missing and want.n_run_only_users


def test_evaluate_tie_expectations_of_trec_measures(spark):
    # the closed forms over tie orders of the measures that are not sums per position
    qrels, run = _ranking_frames(False)
    metrics = ["infap", "g", "iprec(recall=0.5)", "11pt_avg", "bpref", "map"]
    expected = receval.evaluate(qrels, run, metrics, ties="average")
    got = rs.evaluate(spark.createDataFrame(qrels), spark.createDataFrame(run), metrics,
                      ties="average", num_partitions=4)  # fmt: skip
    assert got.mean == pytest.approx(expected.mean, rel=1e-12)
    assert got.mean != receval.evaluate(qrels, run, metrics, ties="trec").mean


def test_evaluate_input_order_of_ties_survives_the_shuffle(spark):
    qrels, run = _ranking_frames(False)
    run["score"] = np.floor(run["score"] * 2) / 2  # many ties
    r_df = spark.createDataFrame(run).repartition(3)  # a new row order, then collected
    in_order = r_df.toPandas()
    metrics = ["ndcg@5", "p@3", "mrr"]
    expected = receval.evaluate(qrels, in_order, metrics, ties="input")
    got = rs.evaluate(spark.createDataFrame(qrels), r_df, metrics, ties="input", num_partitions=4)
    assert got.mean == expected.mean
    other = receval.evaluate(qrels, in_order.iloc[::-1], metrics, ties="input")
    assert other.mean != expected.mean  # the order matters, so the test can fail


def test_evaluate_ranks_and_no_grade_column(spark):
    qrels, run = _ranking_frames(False)
    run["rank"] = run.groupby("user")["score"].rank(method="first", ascending=False).astype(int)
    q = qrels[qrels.grade > 0][["user", "item"]]
    expected = receval.evaluate(
        receval.Qrels.from_frame(q, grade=None), receval.Run.from_frame(run, rank="rank"),
        ["ndcg@10", "recall@5"],
    )  # fmt: skip
    got = rs.evaluate(
        spark.createDataFrame(q), spark.createDataFrame(run), ["ndcg@10", "recall@5"],
        grade=None, score=None, rank="rank", name="by-rank",
    )  # fmt: skip
    assert got.mean == expected.mean
    assert got.run_name == "by-rank"
    assert "by-rank" in repr(got)
    # the report of the in-memory evaluate, without per-user rows
    assert isinstance(got, receval.EvaluationReport) and got.values == {} and not len(got.users)
    with pytest.raises(InvalidParameterError, match="no per-user values"):
        got.to_frame()
    with pytest.warns(DeprecationWarning, match="use EvaluationReport"):
        assert rs.EvaluationSummary is receval.EvaluationReport


def test_evaluate_beyond_accuracy_without_qrels(spark):
    _, run = _ranking_frames(False)
    rng = np.random.default_rng(0)
    features = rng.random((60, 4))
    expected = receval.evaluate(None, run, ["ils@5", "diversity@10"], features=features,
                                feature_items=np.arange(60))  # fmt: skip
    got = rs.evaluate(None, spark.createDataFrame(run), ["ils@5", "diversity@10"],
                      features=features, feature_items=np.arange(60), num_partitions=3)  # fmt: skip
    assert got.mean == expected.mean
    assert got.n_users == expected.n_users
    assert got.n_users_skipped == expected.n_users_skipped


def test_evaluate_popularity_bias(spark):
    qrels, run = _ranking_frames(False)
    rng = np.random.default_rng(1)
    pop = {int(i): int(c) for i, c in enumerate(rng.integers(0, 4, 60))}  # tied counts
    metrics = ["arp@5", "aplt(head_share=0.5)@10", "aclt@3", "average_popularity@5",
               "tail_percentage(tail_ratio=0.3)@5"]  # fmt: skip
    expected = receval.evaluate(qrels, run, [*metrics, "ndcg@5"], popularity=pop)
    got = rs.evaluate(spark.createDataFrame(qrels), spark.createDataFrame(run),
                      [*metrics, "ndcg@5"], popularity=pop, num_partitions=3)  # fmt: skip
    assert got.mean == expected.mean
    assert got.n_users_skipped == expected.n_users_skipped
    # train as a Spark DataFrame: its distinct users per item, counted by Spark, tied
    # counts in the order of first appearance, as in memory (before: in item id order)
    log = pd.DataFrame({"user": rng.integers(0, 30, 200), "item": rng.integers(0, 60, 200)})
    for train in (spark.createDataFrame(log), spark.createDataFrame(log).repartition(3)):
        expected = receval.evaluate(None, run, metrics, train=train.toPandas())
        got = rs.evaluate(None, spark.createDataFrame(run), metrics, train=train,
                          num_partitions=2)  # fmt: skip
        assert got.mean == expected.mean
    # items 30, 20 and 10 tied: memory's tail is 10 (the last first seen), not 30
    train = pd.DataFrame({"user": [1, 2, 3, 4, 5, 6], "item": [40, 40, 40, 30, 20, 10]})
    one = pd.DataFrame({"user": [1], "item": [10], "grade": [1]})
    top = pd.DataFrame({"user": [1], "item": [10], "score": [1.0]})
    expected = receval.evaluate(one, top, ["aplt@1", "aclt@1"], train=train)
    assert expected.mean == {"aplt@1": 1.0, "aclt@1": 1.0}
    got = rs.evaluate(spark.createDataFrame(one), spark.createDataFrame(top),
                      ["aplt@1", "aclt@1"], train=spark.createDataFrame(train))  # fmt: skip
    assert got.mean == expected.mean


@pytest.mark.parametrize("conventions", [{}, {"ties": "input", "missing_users": "skip"}])
def test_evaluate_expected_exposure(spark, conventions):
    qrels, run = _ranking_frames(False)
    run["score"] = np.floor(run["score"] * 4) / 4  # ties: a stochastic ranking
    metrics = ["ee_loss", "ee_disparity@5", "ee_relevance(patience=0.8)@10", "ndcg@5"]
    expected = receval.evaluate(qrels, run, metrics, **conventions)
    got = rs.evaluate(spark.createDataFrame(qrels), spark.createDataFrame(run), metrics,
                      num_partitions=3, **conventions)  # fmt: skip
    assert got.mean == expected.mean
    assert got.n_users_skipped == expected.n_users_skipped


@pytest.mark.parametrize(
    "options",
    [
        {"estimator": "ips"},
        {"estimator": "ips", "propensity_clip": 0.01},  # below every propensity: none clipped
        {"estimator": "snips", "ties": "average", "propensity_clip": 0.2},
    ],
)
def test_evaluate_propensity_weighted(spark, options):
    qrels, run = _ranking_frames(False)
    run["score"] = np.floor(run["score"] * 4) / 4  # ties
    rng = np.random.default_rng(3)
    props = {int(i): float(p) for i, p in enumerate(0.05 + 0.95 * rng.random(60))}
    metrics = ["ndcg@5", "recall@10", "p@3", "dcg", "mrr(estimator=naive)"]
    if options.get("ties") != "average":
        metrics.append("map@10")
    expected = receval.evaluate(qrels, run, metrics, propensities=props, **options)
    got = rs.evaluate(spark.createDataFrame(qrels), spark.createDataFrame(run), metrics,
                      propensities=props, num_partitions=3, **options)  # fmt: skip
    assert got.mean == pytest.approx(expected.mean, rel=1e-12)
    assert got.metrics == expected.metrics
    assert got.n_users_skipped == expected.n_users_skipped
    # the pairs the clip raised, each partition counting its users' as evaluate counts
    assert got.n_pairs_propensity_clipped == expected.n_pairs_propensity_clipped
    clip = options.get("propensity_clip", 0.0)
    assert (clip > 0.05) == any(expected.n_pairs_propensity_clipped.values())
    pop = {int(i): int(c) for i, c in enumerate(rng.integers(1, 50, 60))}
    expected = receval.evaluate(qrels, run, metrics[:2], propensities="popularity", popularity=pop)
    got = rs.evaluate(spark.createDataFrame(qrels), spark.createDataFrame(run), metrics[:2],
                      propensities="popularity", popularity=pop, num_partitions=2)  # fmt: skip
    assert got.mean == pytest.approx(expected.mean, rel=1e-12)


def test_propensity_errors_name_receval_spark_evaluate(spark):
    qrels = pd.DataFrame({"user": ["u1", "u1", "u2"], "item": ["a", "b", "a"], "grade": 1})
    run = pd.DataFrame({"user": ["u1", "u1", "u2"], "item": ["a", "b", "a"],
                        "score": [0.9, 0.4, 0.3]})  # fmt: skip
    q, r = spark.createDataFrame(qrels), spark.createDataFrame(run)
    with pytest.raises(InputValidationError) as info:  # checked on the driver
        rs.evaluate(q, r, ["ndcg@2"], propensities={"a": 0.0, "b": 0.5})
    assert str(info.value).startswith(
        "receval.spark.evaluate: propensities must lie in (0, 1]. Got 1 value outside it"
    )
    with pytest.raises(InputValidationError) as info:  # by the partition of u1
        rs.evaluate(q, r, ["ndcg@2"], propensities={"a": 0.5}, num_partitions=2)
    assert str(info.value) == (
        "receval.spark.evaluate: propensities has no propensity for 1 relevant (user, item) "
        "pair of the qrels, e.g. [('u1', 'b')]; give one for every item graded >= 1.0."
    )


def test_evaluate_serendipity_and_miscalibration(spark):
    qrels, run = _ranking_frames(False)
    rng = np.random.default_rng(2)
    log = pd.DataFrame({"user": rng.integers(0, 30, 300), "item": rng.integers(0, 60, 300)})
    categories = pd.DataFrame({"item": np.arange(60), "category": rng.integers(0, 5, 60)})
    metrics = ["serendipity@5", "miscalibration@10", "ndcg@5"]
    expected = receval.evaluate(qrels, run, metrics, train=log, item_categories=categories)
    got = rs.evaluate(spark.createDataFrame(qrels), spark.createDataFrame(run), metrics,
                      train=log, item_categories=categories, num_partitions=3)  # fmt: skip
    assert got.mean == expected.mean
    assert got.n_users_skipped == expected.n_users_skipped


def test_integer_ids_match_strings_of_their_spelling_as_in_memory(spark):
    qrels, run = _ranking_frames(False)
    # qrels users as text ("7" matches the run's 7), run items as text, one spelled
    # "007" (matches no judged item, as in memory)
    q_text = qrels.assign(user=qrels.user.astype(str))
    r_text = run.assign(item=run.item.astype(str))
    r_text.loc[r_text.item == "7", "item"] = "007"
    metrics = ["ndcg@10", "recall@5", "map"]
    for options in ({}, {"ties": "id_ascending"}):
        expected = receval.evaluate(q_text, r_text, metrics, **options)
        got = rs.evaluate(spark.createDataFrame(q_text), spark.createDataFrame(r_text), metrics,
                          **options)  # fmt: skip
        assert got.mean == expected.mean
        assert (got.n_users, got.n_users_missing) == (expected.n_users, expected.n_users_missing)
    exclude = spark.createDataFrame(run.iloc[::5][["user", "item"]])  # integers beside text
    expected = receval.evaluate(q_text, r_text, metrics, exclude=run.iloc[::5][["user", "item"]])
    got = rs.evaluate(spark.createDataFrame(q_text), spark.createDataFrame(r_text), metrics,
                      exclude=exclude)  # fmt: skip
    assert got.mean == expected.mean


_USERS = [17, 17, 18, 19]
_FLOATS = pd.Series([17, 17, 18, 19, None]).dropna().tolist()  # a column that held a NaN


def _id_frames(q_users, r_users, q_items=("a", "b", "a", "c"), r_items=("a", "c", "a", "c")):
    qrels = pd.DataFrame({"user": q_users, "item": list(q_items), "grade": [1, 2, 1, 1]})
    run = pd.DataFrame({"user": r_users, "item": list(r_items), "score": [0.9, 0.8, 0.7, 0.6]})
    return qrels, run


@pytest.mark.parametrize(
    "frames",
    [
        _id_frames(_FLOATS, [str(u) for u in _USERS]),  # 17.0 beside "17"
        _id_frames([str(u) for u in _USERS], _FLOATS),
        _id_frames(_USERS, _FLOATS),  # 17 beside 17.0
        _id_frames(_USERS, _USERS, (1.0, 2.0, 1.0, 3.0), ("1", "3", "1", "3")),  # items
        _id_frames([17.5, 17.5, 18.0, 19.0], ["17.5", "17.5", "18", "19"]),  # a float's text
        _id_frames(_FLOATS, ["017", "017", "18", "19"]),  # "017" is not 17.0: one user missing
        _id_frames([np.inf, 17.0, 18.0, 19.0], [str(u) for u in _USERS]),  # refused
        # a whole float below 2**53 is the integer it is, whatever its column holds:
        # -0.0 beside 1.5 is 0 (as "0" reads), and -0.0 and 0.0 one user
        _id_frames([18.0, 18.0, -0.0, 1.5], ["18", "18", "0", "1.5"]),
        _id_frames([-0.0, 0.0, 1.5, 1.5], [0, 0, 2, 2], r_items=("a", "b", "a", "c")),
        # 1e15 beside 2**53 (or beside 1.5, its items) is 10**15, whatever its column
        # holds; 2.0**53 is the float "9.007199254740992e+15", not 2**53
        _id_frames([1e15, 1e15, 18.0, 2.0**53], [10**15, 10**15, 18, 2**53]),
        _id_frames(
            _USERS, _USERS, (1e15, 1.5, 1e15, 3.0), ("1e15", "1.5", "1000000000000000", "3")
        ),
    ],
    ids=[
        "float-str",
        "str-float",
        "int-float",
        "items",
        "fraction",
        "padded",
        "infinity",
        "negative-zero",
        "zeros",
        "past-2**53",
        "items-fraction",
    ],
)
def test_ids_of_different_types_give_the_in_memory_report_or_error(spark, frames):
    # Spark refused floats beside strings or integers ("holds double in the qrels but
    # string in the run, so no id would match") where memory matches them; it decided
    # per partition, not per column, whether whole floats are integers
    qrels, run = frames
    metrics = ["ndcg@10", "recall@5"]

    def outcome(evaluate, q, r):
        try:
            report = evaluate(q, r, metrics)
        except InputValidationError as exc:
            return str(exc)
        counts = ("n_users", "n_users_missing", "n_run_only_users", "n_run_items",
                  "n_run_items_unmatched")  # fmt: skip
        return report.mean, [getattr(report, count) for count in counts]

    expected = outcome(receval.evaluate, qrels, run)
    # (partitions of their own: adaptive execution would join those of a few rows)
    got = outcome(partial(rs.evaluate, num_partitions=4), spark.createDataFrame(qrels),
                  spark.createDataFrame(run))  # fmt: skip
    if isinstance(got, str):  # each names its own function: the same error otherwise
        assert got.startswith("receval.spark.evaluate: ")
        got = got.replace("receval.spark.evaluate: ", "evaluate: ", 1)
    assert got == expected


def test_the_two_float_zeros_are_one_id_as_in_memory(spark):
    # -0.0 and 0.0 are one user and one group: in memory, where Spark read them apart
    qrels, run = _id_frames([-0.0, 0.0, 1.5, 1.5], [0.0, -0.0, 1.5, 1.5])
    got = rs.evaluate(spark.createDataFrame(qrels), spark.createDataFrame(run), ["recall@5"],
                      num_partitions=4)  # fmt: skip
    expected = receval.evaluate(*_id_frames([0.0, 0.0, 1.5, 1.5], [0.0, 0.0, 1.5, 1.5]),
                                ["recall@5"])  # fmt: skip
    assert (got.mean, got.n_users, got.n_users_missing) == (expected.mean, 2, 0)
    rows = pd.DataFrame({"y": [1, 0, 1, 0, 1, 0, 1, 0],
                         "p": [0.9, 0.1, 0.3, 0.2, 0.2, 0.8, 0.1, 0.2],
                         "g": [0.5, 0.5, -0.0, -0.0, 0.0, 0.0, 1.5, 1.5]})  # fmt: skip
    columns = {"y_true": "y", "y_score": "p", "groups": "g"}
    assert rs.compute(spark.createDataFrame(rows), "gauc", columns) == pytest.approx(0.4375)


def test_evaluate_errors(spark):
    qrels, run = _ranking_frames(False)
    q_df, r_df = spark.createDataFrame(qrels), spark.createDataFrame(run)
    with pytest.raises(InvalidParameterError, match=r"ndgc"):
        rs.evaluate(q_df, r_df, ["ndgc@10"])
    with pytest.raises(InputValidationError, match="absent from the run"):
        rs.evaluate(q_df, r_df, ["p@5"], missing_users="error")
    dup = spark.createDataFrame(pd.concat([run, run.iloc[:1]]))
    # the qrels' and the run's errors name them as in memory (before: "Run: ..."); a
    # null grade is a missing value (before: "NaN or infinity")
    with pytest.raises(InputValidationError, match=r"^receval\.spark\.evaluate: run: user .* more"):
        rs.evaluate(q_df, dup, ["p@5"])
    grades = qrels["grade"].astype(object).where(qrels.index != 1, None)
    nulled = spark.createDataFrame(qrels.assign(grade=grades.astype("Int64")))
    with pytest.raises(InputValidationError) as info:
        rs.evaluate(nulled, r_df, ["p@5"])
    assert str(info.value) == (
        "receval.spark.evaluate: qrels: grades contains missing values (null), the first in "
        "one of the DataFrame's partitions; drop or fill them first."
    )
    with pytest.raises(InvalidParameterError, match="exactly one of score and rank"):
        rs.evaluate(q_df, r_df, ["p@5"], rank="score")


# ------------------------------------------------------------------ retention
@pytest.fixture(scope="module")
def events():
    rng = np.random.default_rng(11)
    n = 3000
    users = rng.integers(0, 400, n)
    start = np.datetime64("2024-03-01T00:00:00")
    seconds = rng.integers(0, 40 * 86400, n)
    frame = pd.DataFrame(
        {"user": [f"user{u}" for u in users], "time": start + seconds.astype("timedelta64[s]")}
    )
    signup = start + (rng.integers(-5, 30, 400) * 86400).astype("timedelta64[s]")
    frame["signup"] = signup[users]
    frame.loc[users % 9 == 0, "signup"] = pd.NaT
    frame["epoch"] = (start.astype("datetime64[s]").astype(np.int64) + seconds) * 1000  # ms
    frame["day"] = frame["time"].dt.date
    return frame.sample(frac=1, random_state=3).reset_index(drop=True)


def _same_report(got, expected):
    for field in (
        "new_users", "login_users", "active_users", "cohort_counts", "retained", "periods",
    ):  # fmt: skip
        np.testing.assert_array_equal(getattr(got, field), getattr(expected, field))
    for field in ("retention_rate", "day_n_retention", "cohort_retention"):
        np.testing.assert_array_equal(getattr(got, field), getattr(expected, field))
    for field in (
        "n_events", "n_users", "n_users_without_signup", "n_users_signup_before_window",
        "n_users_signup_after_window", "n_events_before_signup", "n_users_events_before_signup",
        "n_events_dropped", "time_unit", "time_unit_inferred", "tz", "days", "period",
    ):  # fmt: skip
        assert getattr(got, field) == getattr(expected, field), field


@pytest.mark.parametrize(
    "options",
    [{}, {"period": "week", "tz": "Asia/Shanghai"}, {"signup": "signup"},
     {"signup": "signup", "before_signup": "drop", "days": (1, 2, 7)},
     {"period": "month", "tz": "America/New_York", "signup": "signup"}],
)  # fmt: skip
def test_retention_equals_in_memory(spark, events, options):
    df = spark.createDataFrame(events[["user", "time", "signup"]]).repartition(4)
    expected = receval.retention(df.toPandas(), **options)
    got = rs.retention(df, num_partitions=5, **options)
    _same_report(got, expected)
    assert got.n_users_events_before_signup > 0 or "signup" not in options


@pytest.mark.parametrize("column", ["epoch", "day"])
def test_retention_epoch_numbers_and_dates(spark, events, column):
    df = spark.createDataFrame(events[["user", column]])
    expected = receval.retention(events[["user", column]], time=column, tz="Europe/Berlin")
    got = rs.retention(df, time=column, tz="Europe/Berlin")
    _same_report(got, expected)


def test_retention_signup_frame_with_users_without_events(spark, events):
    signup = pd.DataFrame(
        {"user": ["user1", "user2", "ghost1", "ghost2"],
         "signup": pd.to_datetime(["2024-03-01", "2024-03-02", "2024-03-03", "2024-03-05"])}
    )  # fmt: skip
    df = spark.createDataFrame(events[["user", "time"]])
    expected = receval.retention(events[["user", "time"]], signup=signup)
    got = rs.retention(df, signup=spark.createDataFrame(signup), num_partitions=3)
    _same_report(got, expected)
    assert got.n_users == events["user"].nunique() + 2


@pytest.mark.parametrize(
    "options",
    [{"tz": "Asia/Kolkata", "period": "week", "signup": "signup"},
     {"tz": "Europe/Berlin", "period": "month", "signup": "signup", "before_signup": "drop"}],
)  # fmt: skip
def test_retention_of_partitions_equals_memory_scan_and_accumulators(spark, tmp_path, options):
    """The definition per partition of users, merged on the driver: the report of
    memory, of a scan in buckets of users and of merged accumulators (that test)."""
    from tests.metrics.retention.test_retention import _random_log, _same_reports

    frame = _random_log(len(options))
    expected = receval.retention(frame, **options)
    got = rs.retention(spark.createDataFrame(frame), num_partitions=4, **options)
    _same_reports(got, expected)
    assert got.n_users_signup_before_window > 0 and got.n_users_without_signup > 0


def test_retention_errors(spark, events):
    df = spark.createDataFrame(events[["user", "time", "signup"]])
    with pytest.raises(InputValidationError, match="earlier than the user's signup"):
        rs.retention(df, signup="signup", before_signup="error")
    with pytest.raises(InvalidParameterError, match="period"):
        rs.retention(df, period="year")
    numbers = spark.createDataFrame(pd.DataFrame({"user": [1, 2], "time": [5.0, 7.0]}))
    with pytest.raises(InputValidationError, match="time_unit"):
        rs.retention(numbers)
    with pytest.raises(InvalidParameterError, match="signup"):
        rs.retention(df, signup={"user1": "2024-03-01"})
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        rs.retention(df, days=1)


def test_partition_restores_the_input_order_of_the_run():
    """A shuffle may deliver a user's rows in any order (remote blocks are fetched
    in random order on a cluster): each task sorts the run by its row tag."""
    import pyarrow as pa

    from receval.ranking.aggregate import finalize, make_setup
    from receval.spark import _ranking as sr

    qrels, run = _ranking_frames(False)
    run["score"] = np.floor(run["score"] * 2) / 2  # many ties
    metrics = ["ndcg@5", "p@3", "mrr"]
    expected = receval.evaluate(qrels, run, metrics, ties="input")
    rows = np.random.default_rng(5).permutation(len(run))  # the order of arrival
    users = np.concatenate([run["user"].to_numpy()[rows], qrels["user"].to_numpy()])
    items = np.concatenate([run["item"].to_numpy()[rows], qrels["item"].to_numpy()])
    tagged = pa.table(
        {
            # each side's ids under its own names (0 qrels, 1 run), read on its rows only
            "__receval_user0": users,
            "__receval_item0": items,
            "__receval_user1": users,
            "__receval_item1": items,
            sr._VALUE: np.concatenate([run["score"].to_numpy()[rows], np.zeros(len(qrels))]),
            sr._GRADE: np.concatenate([np.zeros(len(run)), qrels["grade"].to_numpy()]),
            sr._ROW: np.concatenate([rows, np.zeros(len(qrels), np.int64)]),
            sr._SIDE: np.concatenate([np.ones(len(run)), np.zeros(len(qrels))]).astype(np.int8),
        }
    )
    setup = make_setup(
        metrics, {"profile": None, "ties": "input"}, with_qrels=True, rows=False, func="evaluate"
    )
    state = sr._partition_state(tagged, setup, False, True, None, False, frozenset())
    assert finalize(setup, state).mean == expected.mean


def test_log_loss_of_zero_weights_warns_like_in_memory(spark):
    pdf = pd.DataFrame({"label": [1, 0], "prob": [0.7, 0.2], "weight": [0.0, 0.0]})
    with pytest.warns(UndefinedMetricWarning, match="every sample weight is zero"):
        expected = receval.log_loss(pdf["label"], pdf["prob"], sample_weight=pdf["weight"])
    with pytest.warns(UndefinedMetricWarning, match="every sample weight is zero"):
        got = rs.log_loss(spark.createDataFrame(pdf), "label", "prob", sample_weight="weight")
    assert np.isnan(got) and np.isnan(expected)


@pytest.mark.parametrize("num_partitions", [None, 7])
def test_evaluate_trec_measures_equal_in_memory(spark, num_partitions):
    # trec_eval's and ir_measures' measures (sums, geometric means, parameters) run on
    # Spark through the same definition
    from tests.ranking.test_trec_measures_backends import TREC_METRICS

    qrels, run = _ranking_frames(True)
    q_df, r_df = spark.createDataFrame(qrels), spark.createDataFrame(run)
    for conventions in ({"profile": "trec_eval"}, {"profile": "trec_eval", "depth": 5}):
        expected = receval.evaluate(qrels, r_df.toPandas(), TREC_METRICS, **conventions)
        got = rs.evaluate(q_df, r_df, TREC_METRICS, num_partitions=num_partitions, **conventions)
        for text in TREC_METRICS:
            want = expected.mean[text]
            assert got.mean[text] == want or (np.isnan(want) and np.isnan(got.mean[text])), text


#: the binary metrics of probabilities or scores and their in-memory functions
POS_LABEL_METRICS = {
    "log_loss": (lambda df, **o: rs.log_loss(df, "label", "prob", **o),
                 lambda t, **o: receval.log_loss(t["label"], t["prob"], **o)),
    "pcoc": (lambda df, **o: rs.pcoc(df, "label", "prob", **o),
             lambda t, **o: receval.pcoc(t["label"], t["prob"], **o)),
    "copc": (lambda df, **o: rs.copc(df, "label", "prob", **o),
             lambda t, **o: receval.copc(t["label"], t["prob"], **o)),
    "normalized_entropy": (lambda df, **o: rs.normalized_entropy(df, "label", "prob", **o),
                           lambda t, **o: receval.normalized_entropy(t["label"], t["prob"], **o)),
    "gauc_score": (lambda df, **o: rs.gauc_score(df, "label", "score", groups="user", **o),
                   lambda t, **o: receval.gauc_score(t["label"], t["score"], groups=t["user"],
                                                     **o)),
    "group_auc": (lambda df, **o: rs.group_auc(df, "label", "score", groups="user", **o).score,
                  lambda t, **o: receval.group_auc(t["label"], t["score"], groups=t["user"],
                                                   **o).score),
    "grouped_auprc": (
        lambda df, **o: rs.compute(df, "grouped_auprc",
                                   {"y_true": "label", "y_score": "score", "groups": "user"}, **o),
        lambda t, **o: receval.grouped_auprc_score(t["label"], t["score"], groups=t["user"], **o),
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(POS_LABEL_METRICS))
def test_binary_metrics_take_any_two_labels_with_pos_label_as_in_memory(spark, impressions, name):
    # before: pos_label was no argument of these functions (log_loss, pcoc, copc, NE, gauc)
    # and gauc and grouped_auprc refused labels other than 0/1
    on_spark, in_memory = POS_LABEL_METRICS[name]
    rows = impressions.iloc[:400]
    expected = in_memory(rows)
    minus = rows.assign(label=np.where(rows["label"] == 1, 1, -1))
    words = rows.assign(label=np.where(rows["label"] == 1, "click", "skip"))
    assert on_spark(spark.createDataFrame(minus)) == in_memory(minus) == expected
    df = spark.createDataFrame(words)
    assert on_spark(df, pos_label="click") == in_memory(words, pos_label="click") == expected
    with pytest.raises(InputValidationError, match=r"\['click', 'skip'\] and pos_label is not"):
        on_spark(df)

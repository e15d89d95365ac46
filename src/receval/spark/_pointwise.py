"""Pointwise metrics of Spark DataFrames: exact ROC AUC, GAUC, log loss, PCOC, COPC, NE.

Spark only partitions the rows (as each function says); each metric's definition
(the same as in memory, out of core and in :func:`receval.metric`) runs on every
partition, and the driver merges the states and finalizes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import reduce
from typing import TYPE_CHECKING, Any

from .. import _validation as v
from ..exceptions import InvalidParameterError
from ._common import (
    KEY,
    column,
    float_sides,
    id_columns,
    partition_states,
    repartition,
    select,
    side_ids,
    spark_words,
)

if TYPE_CHECKING:
    from ..engine.run import Accumulator


def log_loss(
    df: Any,
    y_true: str,
    y_pred: str,
    *,
    sample_weight: str | None = None,
    pos_label: Any = None,
    num_partitions: int | None = None,
) -> float:
    """Binary log loss (cross-entropy) of the rows of a Spark DataFrame.

    The same value as :func:`receval.log_loss` on the collected columns;
    probabilities are clipped to ``[eps, 1 - eps]``, eps the machine epsilon of
    the column's type (float32's for a ``FloatType`` column, float64's otherwise).

    Parameters
    ----------
    df : pyspark.sql.DataFrame
        One row per impression.
    y_true : str
        Column of binary labels (the positive class = click): 0/1, booleans or
        -1/1, or any two values with ``pos_label``.
    y_pred : str
        Column of predicted click probabilities in [0, 1].
    sample_weight : str, default=None
        Column of non-negative row weights.
    pos_label : int, str or bool, default=None
        The positive class. Two labels other than 0/1 and -1/1 need it, even
        those :func:`receval.log_loss` takes without it (the greater positive): a
        partition cannot tell which of its labels is the greater of the column's.
    num_partitions : int, default=None
        Repartition the rows first (by default the DataFrame's partitions are used).

    Returns
    -------
    loss : float
    """
    return _engine(df, "log_loss", y_true, y_pred, sample_weight, num_partitions,
                   pos_label=pos_label)  # fmt: skip


def _engine(
    df: Any,
    name: str,
    y_true: str,
    y_prob: str,
    sample_weight: str | None,
    num_partitions: int | None,
    **options: Any,
) -> float:
    """A metric whose rows split anyway, of two columns and an optional weight column;
    ``name``: the metric's and the function's (its errors name receval.spark.<name>)."""
    from ..registry import definition

    prob = definition(name).inputs[1]  # y_pred (log loss) or y_prob
    columns = {"y_true": y_true, prob: y_prob}
    if sample_weight is not None:
        columns["sample_weight"] = sample_weight
    result: float = _accumulate(df, name, columns, num_partitions, name, options).compute()
    return result


def pcoc(
    df: Any,
    y_true: str,
    y_prob: str,
    *,
    sample_weight: str | None = None,
    pos_label: Any = None,
    num_partitions: int | None = None,
) -> float:
    """Predicted over observed clicks of a Spark DataFrame (as :func:`receval.pcoc`).

    Parameters are as in :func:`log_loss`. Returns nan, with an
    ``UndefinedMetricWarning``, when there is no click.
    """
    return _engine(df, "pcoc", y_true, y_prob, sample_weight, num_partitions,
                   pos_label=pos_label)  # fmt: skip


def copc(
    df: Any,
    y_true: str,
    y_prob: str,
    *,
    sample_weight: str | None = None,
    pos_label: Any = None,
    num_partitions: int | None = None,
) -> float:
    """Observed over predicted clicks of a Spark DataFrame (as :func:`receval.copc`).

    Parameters are as in :func:`log_loss`. Returns nan, with an
    ``UndefinedMetricWarning``, when the predictions sum to 0.
    """
    return _engine(df, "copc", y_true, y_prob, sample_weight, num_partitions,
                   pos_label=pos_label)  # fmt: skip


def normalized_entropy(
    df: Any,
    y_true: str,
    y_prob: str,
    *,
    sample_weight: str | None = None,
    pos_label: Any = None,
    num_partitions: int | None = None,
    eps: float | str = "auto",
) -> float:
    """Normalized entropy of a Spark DataFrame (as :func:`receval.normalized_entropy`).

    Parameters are as in :func:`log_loss`, and ``eps`` as in
    :func:`receval.normalized_entropy`.
    """
    return _engine(df, "normalized_entropy", y_true, y_prob, sample_weight, num_partitions,
                   eps=eps, pos_label=pos_label)  # fmt: skip


def roc_auc_score(
    df: Any,
    y_true: str,
    y_score: str,
    *,
    sample_weight: str | None = None,
    pos_label: Any = None,
    num_partitions: int | None = None,
) -> float:
    """Exact ROC AUC of the rows of a Spark DataFrame, tied scores counting one half.

    The rows are range-partitioned by score (``repartitionByRange``), so the
    rows of one score value share a partition; each partition counts its
    own positive-negative pairs after a sort, and the driver adds the
    partitions' counts, which are integers (with ``sample_weight``: each label's
    in units of the lowest bit of any of its weights, twice the U summed exactly
    however large).
    The result equals :func:`receval.roc_auc_score` on the collected columns;
    no score is binned.

    Parameters
    ----------
    df : pyspark.sql.DataFrame
        One row per impression.
    y_true : str
        Column of binary labels: 0/1, booleans or -1/1, or any two values with
        ``pos_label``.
    y_score : str
        Column of scores (any real numbers; higher means more likely a click).
    sample_weight : str, default=None
        Column of non-negative row weights.
    pos_label : int, str or bool, default=None
        The positive class, read as :func:`receval.roc_auc_score` reads it on
        scan columns and in :func:`receval.metric` (two labels other than 0/1
        and -1/1 need it).
    num_partitions : int, default=None
        Number of score ranges (default: ``spark.sql.shuffle.partitions``).
        Each range is one task, held in memory by one executor: rows x 8
        bytes, or 40 bytes with weights. A single score value shared by very
        many rows stays in one range.

    Returns
    -------
    auc : float
        nan, with an ``UndefinedMetricWarning``, if ``y_true`` has one class.
    """
    from ..engine.sources import range_state
    from ..metrics._auc import ROC_AUC

    func = "roc_auc_score"
    data, F = select(
        df, func, num_partitions, y_true=y_true, y_score=y_score, sample_weight=sample_weight
    )
    # -0.0 and 0.0 are one score: give them one range key
    key = F.col(y_score).cast("double")
    data = data.withColumn("__receval_key", F.when(key == 0.0, F.lit(0.0)).otherwise(key))
    data = repartition(data, num_partitions, "__receval_key", by_range=True)
    params = ROC_AUC.check_params(pos_label=pos_label)

    def run(table: Any) -> Any:
        sw = None if sample_weight is None else column(table, sample_weight)
        with spark_words(f"receval.spark.{func}", func):
            batch = ROC_AUC.prepare(params, column(table, y_true), column(table, y_score), sw)
        return range_state(ROC_AUC, params, batch)

    states = partition_states(data, run)  # only non-empty partitions give one
    v.check_not_empty(len(states), "y_true", f"receval.spark.{func}")
    result: float = ROC_AUC.finalize(params, reduce(lambda a, b: a.merge(b), states))
    return result


@dataclass(frozen=True)
class GAUCSummary:
    """The result of :func:`group_auc`: GAUC and what the single-class rule skipped.

    Attributes
    ----------
    score : float
        The GAUC (nan when no group has both classes).
    n_groups, n_groups_skipped : int
        Groups, and those skipped for having a single class.
    n_rows, n_rows_skipped : int
        Rows, and those of the skipped groups.
    weighting : str
        The weighting used.
    """

    score: float
    n_groups: int
    n_groups_skipped: int
    n_rows: int
    n_rows_skipped: int
    weighting: str


def _group_state(
    df: Any,
    func: str,
    y_true: str,
    y_score: str,
    groups: str,
    weighting: Any,
    sample_weight: str | None,
    pos_label: Any,
    num_partitions: int | None,
) -> tuple[dict[str, Any], Any]:
    """GAUC's checked options and the merged state (exact sums, the ids seen) of the
    partitions of whole groups."""
    from ..metrics._gauc import GAUC

    if not (isinstance(weighting, (str, Mapping))):
        raise InvalidParameterError(
            f"The 'weighting' parameter of receval.spark.{func} must be one of "
            f"['clicks', 'impressions', 'uniform'] or a mapping from group to weight. Got "
            f"{type(weighting).__name__} instead; for a weight column, join it as a mapping "
            f"or weight the rows with sample_weight."
        )
    params = GAUC.check_params(f"receval.spark.{func}", weighting=weighting, pos_label=pos_label)
    columns = {"y_true": y_true, "y_score": y_score, "groups": groups}
    if sample_weight is not None:
        columns["sample_weight"] = sample_weight
    return params, _partition_accumulator(df, func, GAUC, params, columns, num_partitions).state


def gauc_score(
    df: Any,
    y_true: str,
    y_score: str,
    *,
    groups: str,
    weighting: str | Mapping[Any, float] = "impressions",
    sample_weight: str | None = None,
    pos_label: Any = None,
    num_partitions: int | None = None,
) -> float:
    """Group AUC of a Spark DataFrame: the weighted mean of per-group ROC AUC.

    The rows are partitioned by group (``repartition(groups)``), each
    partition computes its groups' exact AUCs with the in-memory kernel, and
    only per-partition sums reach the driver. The value equals
    :func:`receval.gauc_score` on the collected columns, and so does its warning
    where a group's sample weights were rounded (said once, on the driver). Groups
    with a single class are skipped; :func:`group_auc` reports how many.

    Parameters
    ----------
    df : pyspark.sql.DataFrame
        One row per impression.
    y_true, y_score : str
        Columns of binary labels (0/1, booleans or -1/1, or any two values with
        ``pos_label``) and of scores.
    groups : str
        Column of group ids (user, query or session).
    weighting : {"impressions", "clicks", "uniform"} or mapping, default="impressions"
        Weight of each group's AUC, as in :func:`receval.gauc_score`; a
        mapping from group id to weight is sent to every executor.
    sample_weight : str, default=None
        Column of non-negative row weights.
    pos_label : int, str or bool, default=None
        The positive class, read as :func:`receval.gauc_score` reads it.
    num_partitions : int, default=None
        Number of partitions of the groups (default: ``spark.sql.shuffle.partitions``).

    Returns
    -------
    score : float
        nan, with an ``UndefinedMetricWarning``, if no group has both classes.
    """
    from ..metrics._gauc import GAUC

    params, state = _group_state(df, "gauc_score", y_true, y_score, groups, weighting,
                                 sample_weight, pos_label, num_partitions)  # fmt: skip
    result: float = GAUC.value(params, state, func="receval.spark.gauc_score")
    return result


def group_auc(
    df: Any,
    y_true: str,
    y_score: str,
    *,
    groups: str,
    weighting: str | Mapping[Any, float] = "impressions",
    sample_weight: str | None = None,
    pos_label: Any = None,
    num_partitions: int | None = None,
) -> GAUCSummary:
    """GAUC of a Spark DataFrame with the counts of skipped groups and rows.

    The per-group AUCs stay on the executors; the parameters are those of
    :func:`gauc_score`.

    Returns
    -------
    summary : GAUCSummary
    """
    from ..metrics._gauc import warn_rounded_groups

    state = _group_state(
        df, "group_auc", y_true, y_score, groups, weighting, sample_weight, pos_label,
        num_partitions,
    )[1].totals  # fmt: skip
    warn_rounded_groups(state.rounded)
    return GAUCSummary(
        score=state.score,
        n_groups=state.n_groups,
        n_groups_skipped=state.n_groups_skipped,
        n_rows=state.n_rows,
        n_rows_skipped=state.n_rows_skipped,
        weighting=weighting if isinstance(weighting, str) else "custom",
    )


def compute(
    df: Any,
    name: str,
    columns: Mapping[str, str],
    *,
    num_partitions: int | None = None,
    **options: Any,
) -> Any:
    """Any metric of the engine on a Spark DataFrame: one accumulator per partition.

    The generic form of :func:`receval.compute` on Spark: each partition's rows
    update an accumulator of :func:`receval.metric` on the executor, and the
    driver merges them (:func:`accumulate`, whose ``compute()`` this is). Metrics
    over whole groups (``gauc``) are repartitioned by their ``groups`` column first.

    Parameters
    ----------
    df : pyspark.sql.DataFrame
    name : str
        A metric of :func:`receval.metric`.
    columns : mapping of str to str
        The metric's data arguments to column names, e.g.
        ``{"y_true": "click", "y_prob": "ctr", "sample_weight": "w"}``; for a
        metric of a run (``pop_rsp``, ``shannon_entropy``, ...), ``"user"``,
        ``"item"`` and one of ``"score"`` and ``"rank"`` (the rows are
        repartitioned by user; tied scores keep the DataFrame's row order).
    num_partitions : int, default=None
        Repartition the rows first (default: the DataFrame's partitions, or
        ``spark.sql.shuffle.partitions`` where the rows are repartitioned by group
        or by user).
    **options
        The metric's options, local data sent as they are to every executor (a
        Spark DataFrame ``train`` is refused: pass its ``toPandas()``).
    """
    return _accumulate(df, name, columns, num_partitions, "compute", options).compute()


def accumulate(
    df: Any,
    name: str,
    columns: Mapping[str, str],
    *,
    num_partitions: int | None = None,
    **options: Any,
) -> Accumulator:
    """The accumulator of a metric over the rows of a Spark DataFrame, merged on the driver.

    Each partition's rows update an accumulator of :func:`receval.metric` on the
    executor (partitioned as :func:`compute` says); the driver merges them into
    one, as if one accumulator had seen every row: ``compute()`` gives the value
    (that of :func:`compute`), ``skipped()`` what the metric left out (the groups
    of ``gauc``, ``grouped_auprc``, ``grouped_xauc`` or ``grouped_regression_auc``
    skipped, and why), and it merges with accumulators of other sources or takes
    more ``update`` calls on the driver. The parameters are those of :func:`compute`.

    Returns
    -------
    receval.Accumulator

    Examples
    --------
    >>> import receval.spark as rs  # doctest: +SKIP
    >>> acc = rs.accumulate(df, "grouped_auprc", {"y_true": "click", "y_score": "p",
    ...                                          "groups": "user"})  # doctest: +SKIP
    >>> acc.compute(), acc.skipped()["n_groups_skipped"]  # doctest: +SKIP
    (0.83, 12)
    """
    return _accumulate(df, name, columns, num_partitions, "accumulate", options)


def _accumulate(
    df: Any,
    name: str,
    columns: Mapping[str, str],
    num_partitions: int | None,
    func: str,
    options: dict[str, Any],
) -> Accumulator:
    """:func:`accumulate`, its errors naming ``receval.spark.<func>`` (the function
    called: accumulate, compute, or log_loss, pcoc, ... which compute for it)."""
    from ..engine.accumulator import whole_group_params
    from ..engine.metric import weights_refused
    from ..registry import definition

    _check_local_options(options, func)
    defn = definition(name, options, func=f"receval.spark.{func}")
    if defn.inputs == ("run",):  # a metric of whole users' lists (pop_rsp, item_coverage, ...)
        # partitions of whole users
        params = whole_group_params(defn, name, options, f"receval.spark.{func}")
        return _run_accumulator(df, func, defn, params, dict(columns), num_partitions)
    if "sample_weight" in columns and "sample_weight" not in defn.inputs:
        raise weights_refused(f"receval.spark.{func}", defn.name, None,
                              column=columns["sample_weight"])  # fmt: skip
    unknown = sorted(set(columns) - set(defn.inputs))
    if unknown:
        raise InvalidParameterError(
            f"The 'columns' parameter of receval.spark.{func} must map data arguments of "
            f"{name} {list(defn.inputs)} to columns. Got {unknown[0]!r} instead."
        )
    # options are checked on the driver; partitions hold whole groups (repartitioned)
    params = whole_group_params(defn, name, options, f"receval.spark.{func}")
    return _partition_accumulator(df, func, defn, params, dict(columns), num_partitions)


def _check_local_options(options: dict[str, Any], func: str) -> None:
    """The options travel as they are with every task: a Spark DataFrame among them
    (``train=``) is refused, naming what to pass instead."""
    spark = next((key for key, value in options.items() if hasattr(value, "mapInArrow")), None)
    if spark is not None:
        raise InvalidParameterError(
            f"The {spark!r} parameter of receval.spark.{func} must be local data (pandas, "
            f"Arrow, a tuple of columns): the options are sent as they are to every "
            f"executor. Got a Spark DataFrame instead; pass {spark}=<df>.toPandas() (PopRSP "
            f"needs each user's training items), or use receval.spark.evaluate, which "
            f"counts the popularity of a Spark train for arp@k, aplt@k and the like."
        )


def _run_accumulator(
    df: Any,
    func: str,
    defn: Any,
    params: dict[str, Any],
    columns: dict[str, str],
    num_partitions: int | None,
) -> Accumulator:
    """The merged accumulator of a metric of a run over partitions of whole users."""
    from ..data._ranked import Run
    from ..engine.run import Accumulator

    roles = set(columns)
    if (
        not {"user", "item"} <= roles
        or roles - {"user", "item", "score", "rank"}
        or (("score" in roles) == ("rank" in roles))
    ):
        raise InvalidParameterError(
            f"The 'columns' parameter of receval.spark.{func} must map 'user', 'item' and one "
            f"of 'score' and 'rank' to columns for {defn.name}. Got {sorted(roles)} instead."
        )
    data, F = select(df, func, num_partitions, **columns)
    by_rank = "rank" in roles
    value = columns["rank"] if by_rank else columns["score"]
    # whole float ids are integers only where the whole column is (decided here, once
    # per column, as in memory), and the rows of ids memory reads as one user share
    # a partition (id_key)
    floats = float_sides(data, 1, columns["user"], columns["item"])
    data = data.select(
        *id_columns(data, 1, columns["user"], columns["item"]),
        F.col(value).alias("value"), F.monotonically_increasing_id().alias("row"),
    )  # fmt: skip
    data = repartition(data, num_partitions, KEY)

    def run(table: Any) -> Any:
        table = table.sort_by("row")  # the DataFrame's order: ties keep it
        users, items = side_ids(table, 1, floats, "Run")
        values = column(table, "value")
        r = Run(users, items, ranks=values) if by_rank else Run(users, items, values)
        with spark_words(f"receval.spark.{func}", f"Accumulator.update of {defn.name!r}"):
            return Accumulator(defn.name, defn, params).update(r)

    return _merged(data, run, defn, params, "df", func)


def _partition_accumulator(
    df: Any,
    func: str,
    defn: Any,
    params: dict[str, Any],
    columns: dict[str, str],
    num_partitions: int | None,
) -> Accumulator:
    """The merged accumulator of ``defn`` over the partitions of ``df`` (repartitioned
    by ``columns["groups"]`` for a metric over whole groups)."""
    from ..engine.run import Accumulator

    data, _ = select(df, func, num_partitions, **columns)
    if defn.partitioning == "groups":
        if "groups" not in columns:
            raise InvalidParameterError(
                f"receval.spark.{func}: {defn.name} needs whole groups per partition; map "
                f"'groups' to a column."
            )
        data = repartition(data, num_partitions, columns["groups"])
    elif defn.partitioning != "any":
        raise InvalidParameterError(
            f"receval.spark.{func}: {defn.name} cannot be computed by partitions."
        )
    elif num_partitions is not None:
        data = data.repartition(num_partitions)

    def run(table: Any) -> Any:
        # the definition travels with the task, so a metric registered on the driver
        # only is computed on the executors too
        args = {arg: column(table, col) for arg, col in columns.items()}
        with spark_words(f"receval.spark.{func}", f"Accumulator.update of {defn.name!r}"):
            return Accumulator(defn.name, defn, params).update(**args)

    return _merged(data, run, defn, params, defn.inputs[0], func)


def _merged(
    data: Any, run: Any, defn: Any, params: dict[str, Any], first: str, func: str
) -> Accumulator:
    """The accumulators ``run`` gives on the partitions of ``data``, merged into one
    (only non-empty partitions give one; none raises, naming ``first``)."""
    from ..engine.run import Accumulator

    parts = partition_states(data, run)
    v.check_not_empty(len(parts), first, f"receval.spark.{func}")
    acc = Accumulator(defn.name, defn, params)
    with spark_words(f"receval.spark.{func}", f"Accumulator.merge of {defn.name!r}"):
        for part in parts:
            acc.merge(part)
    return acc

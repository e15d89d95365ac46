"""Ranking metrics of Spark DataFrames: :func:`evaluate` on whole users per partition.

The qrels and run rows are tagged and unioned, then ``repartition``-ed by
user, so every user's judgments and recommendations meet in one partition.
``mapInArrow`` turns each partition into a :class:`~receval.Qrels` and a
:class:`~receval.Run` and calls the in-memory :func:`receval.evaluate`; only
the per-metric mean states (exact sums and counts) go to the driver.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import reduce
from typing import Any

import numpy as np

from ..conventions import Conventions
from ..exceptions import InputValidationError, InvalidParameterError
from ._common import check_columns, check_frame, check_partitions, partition_states

_USER = "__receval_user"
_ITEM = "__receval_item"
_GRADE = "__receval_grade"
_VALUE = "__receval_value"
_SIDE = "__receval_side"
_ROW = "__receval_row"


@dataclass(frozen=True)
class EvaluationSummary:
    """The result of :func:`receval.spark.evaluate`: means and counts, no per-user rows.

    Attributes
    ----------
    mean : dict of str to float
        Each metric string as written, mapped to its mean over the evaluated
        users (``hit_ratio``: the pooled ratio); equal to
        :func:`receval.evaluate`'s on the same data.
    metrics : dict of str to str
        The canonical form of each metric string.
    conventions : dict of str to Conventions
        The conventions each metric was computed with.
    n_users : int
        Users in the qrels (for ``qrels=None``: in the run).
    n_users_missing : int
        Qrels users absent from the run.
    n_users_empty, n_users_skipped : dict of str to int
        Per metric, users without a relevant item, and users left out of the mean.
    n_run_only_users : int
        Run users absent from the qrels: ignored.
    run_name : str or None
        The run's name.
    n_partitions : int
        Non-empty partitions the users were spread over.
    sampling : SamplingSummary or None
        With ``candidates=``: the rows the restriction dropped, the candidates
        the run lacks and the run users without candidates, summed over the
        partitions, and the correction applied.
    """

    mean: dict[str, float]
    metrics: dict[str, str]
    conventions: dict[str, Conventions] = field(repr=False)
    n_users: int
    n_users_missing: int
    n_users_empty: dict[str, int]
    n_users_skipped: dict[str, int]
    n_run_only_users: int
    run_name: str | None = None
    n_partitions: int = 0
    sampling: Any = None

    def to_frame(self, backend: str | None = None) -> Any:
        """One row per metric: metric, mean, users skipped, users without a relevant item."""
        from ..data.frames import make_frame

        names = list(self.mean)
        return make_frame(
            {
                "metric": np.array(names, dtype=object),
                "mean": np.array([self.mean[m] for m in names]),
                "n_users_skipped": np.array([self.n_users_skipped[m] for m in names]),
                "n_users_empty": np.array([self.n_users_empty[m] for m in names]),
            },
            backend=backend,
        )

    def __repr__(self) -> str:
        from .._evaluate import describe_report

        return describe_report(self, "EvaluationSummary", f", {self.n_partitions} partitions")


@dataclass(frozen=True)
class _Part:
    """One partition's share: counts and the mergeable mean state of each metric."""

    n_users: int
    n_users_missing: int
    n_run_only_users: int
    n_users_empty: dict[str, int]
    n_users_skipped: dict[str, int]
    states: dict[str, Any]
    sampling: Any = None  # SamplingSummary with candidates=


def _kind(data_type: Any) -> str:
    name: str = data_type.typeName()
    if name in ("string", "varchar", "char"):
        return "string"
    if name in ("byte", "short", "integer", "long"):
        return "integer"
    return name


def _check_id_types(qrels: Any, run: Any, user: str, item: str) -> None:
    for argument, col in (("user", user), ("item", item)):
        q_type = qrels.schema[col].dataType
        r_type = run.schema[col].dataType
        if _kind(q_type) != _kind(r_type):
            raise InputValidationError(
                f"receval.spark.evaluate: the {argument} column {col!r} holds "
                f"{q_type.simpleString()} in the qrels but {r_type.simpleString()} in the run, "
                f"so no id would match; cast one of them, e.g. "
                f"run.withColumn({col!r}, F.col({col!r}).cast({q_type.simpleString()!r}))."
            )


def _dummy_user(users: Any) -> Any:
    """A user id of the same kind as ``users`` that is not among them."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if pa.types.is_string(users.type) or pa.types.is_large_string(users.type):
        return pa.array([pc.max(users).as_py() + "\x00"], users.type)
    top = pc.max(users).as_py()
    if top < np.iinfo(np.int64).max:
        return pa.array([top + 1], pa.int64())
    return pa.array([pc.min(users).as_py() - 1], pa.int64())


def evaluate(
    qrels: Any,
    run: Any,
    metrics: str | Iterable[str],
    *,
    user: str = "user",
    item: str = "item",
    grade: str | None = "grade",
    score: str | None = "score",
    rank: str | None = None,
    name: str | None = None,
    num_partitions: int | None = None,
    features: Any = None,
    feature_items: Any = None,
    similarity: Any = None,
    popularity: Any = None,
    train: Any = None,
    item_categories: Any = None,
    profile: str | None = None,
    ap_normalizer: str | None = None,
    gain: str | None = None,
    rel_threshold: int | None = None,
    ties: str | None = None,
    missing_users: str | None = None,
    empty_users: str | None = None,
    ideal: str | None = None,
    gain_grades: str | None = None,
    zero_users: str | None = None,
    hit_scores: str | None = None,
    depth: int | None = None,
    judged_only: bool | None = None,
    grades: str | None = None,
    estimator: str | None = None,
    precision_normalizer: str | None = None,
    recall_normalizer: str | None = None,
    discount: str | None = None,
    propensities: Any = None,
    propensity_gamma: float = 0.0,
    propensity_clip: float | None = None,
    candidates: Any = None,
    correction: str | None = None,
    catalog_size: int | None = None,
    gamma: float | None = None,
) -> EvaluationSummary:
    """Evaluate a run against qrels, both Spark DataFrames, with top-K ranking metrics.

    Every user's rows are brought to one partition (``repartition`` by user)
    and evaluated there by :func:`receval.evaluate`; the driver receives one
    small state per partition and merges them. The means, counts and every
    convention are those of :func:`receval.evaluate` on the same rows.

    Parameters
    ----------
    qrels : pyspark.sql.DataFrame or None
        Judgments, one row per (user, item) with a grade. None when every
        metric is a beyond-accuracy one (``ils@k``, ``diversity@k``).
    run : pyspark.sql.DataFrame
        Recommendations, one row per (user, item) with a score or a rank.
    metrics : str or iterable of str
        Metric strings, e.g. ``["ndcg@10", "recall@100"]``.
    user, item : str, default="user", "item"
        Column names in both DataFrames; their types must agree (both strings
        or both integers).
    grade : str or None, default="grade"
        Grade column of the qrels (None: every row has grade 1).
    score : str or None, default="score"
        Score column of the run (higher ranks first).
    rank : str, default=None
        Rank column of the run instead of ``score`` (1 = first).
    name : str, default=None
        The run's name in the result.
    num_partitions : int, default=None
        Partitions of the users (default: ``spark.sql.shuffle.partitions``).
        Each is one task holding its users' rows in memory.
    features, feature_items, similarity : default=None
        Item similarities for ``ils@k`` / ``diversity@k``, as in
        :func:`receval.evaluate`; sent to every executor.
    popularity, train : default=None
        Item popularity for ``arp@k``, ``aplt@k``, ``aclt@k``,
        ``average_popularity@k`` and ``tail_percentage@k``, as in
        :func:`receval.evaluate`; ``train`` may also be a Spark DataFrame with
        the ``user`` and ``item`` columns (its distinct users per item are
        counted by Spark, and tied counts ordered by item id for the head/tail
        splits). The counts are sent to every executor. ``serendipity@k`` and
        ``miscalibration@k`` need the users' histories: a local ``train``
        (pandas, Arrow, pairs), sent to every executor.
    item_categories : mapping or DataFrame, default=None
        The categories of ``miscalibration@k``, as for :func:`receval.evaluate`
        (local; sent to every executor).
    profile, ap_normalizer, gain, rel_threshold, ties, missing_users, empty_users, ideal,\
    gain_grades, zero_users, hit_scores, depth, judged_only, grades, precision_normalizer,\
    recall_normalizer, discount
        Conventions, as in :func:`receval.evaluate`. With ``ties="input"``
        (the ranx, RecBole and torchmetrics profiles) and for ``ils@k`` /
        ``diversity@k``, "input order" is the run DataFrame's row order (as
        ``collect()`` would return it), kept through the shuffle.
    estimator, propensities, propensity_gamma, propensity_clip : default=None
        Propensity-weighted metrics, as in :func:`receval.evaluate`;
        ``propensities`` is local (a mapping or a pandas / polars / Arrow
        frame, or ``"popularity"``), resolved on the driver and sent to every
        executor. A relevant item without a propensity raises from its
        partition, counted over that partition's users.
    candidates, correction, catalog_size, gamma : default=None
        Sampled evaluation, as in :func:`receval.evaluate`: ``candidates`` is a
        local :class:`receval.Candidates` (or a pandas frame / dict), sent to
        every executor; each partition ranks only its users' candidates. The
        counts of what the restriction left out are summed over the
        partitions into ``EvaluationSummary.sampling``.

    Returns
    -------
    summary : EvaluationSummary
        Means and counts; per-user values stay on the executors.

    Raises
    ------
    InvalidParameterError
        Unknown metric or convention, a bad column argument.
    InputValidationError
        Missing columns, id columns of different types, or anything
        :func:`receval.evaluate` rejects in a partition (raised again on the driver).
    """
    from pyspark.sql import functions as F

    from .._evaluate import prepare_metrics
    from ..metrics._propensity import as_propensities, prepare_weighting

    func = "evaluate"
    conventions = {
        "profile": profile,
        "ap_normalizer": ap_normalizer,
        "gain": gain,
        "rel_threshold": rel_threshold,
        "ties": ties,
        "missing_users": missing_users,
        "empty_users": empty_users,
        "ideal": ideal,
        "gain_grades": gain_grades,
        "zero_users": zero_users,
        "hit_scores": hit_scores,
        "depth": depth,
        "judged_only": judged_only,
        "grades": grades,
        "precision_normalizer": precision_normalizer,
        "recall_normalizer": recall_normalizer,
        "discount": discount,
        "estimator": "ips" if estimator is None and propensities is not None else estimator,
    }
    from ..sampled.corrections import check_correction
    from ..sampled.negatives import as_candidates

    sampled: dict[str, Any] = {}
    if candidates is not None or correction is not None:
        c = None if candidates is None else as_candidates(candidates, "receval.spark.evaluate")
        size, g = check_correction(correction, catalog_size, gamma, c is not None,
                                   None if c is None else c.catalog_size)  # fmt: skip
        sampled = {"candidates": c, "correction": correction, "catalog_size": size,
                   "gamma": g if correction == "bv" else None}  # fmt: skip
    pop_table = _popularity(popularity, train, user, item)
    metric_list, specs, convs, listwise = prepare_metrics(
        metrics, features, similarity, conventions, pop_table, item_categories
    )
    props = as_propensities(propensities, pop_table, propensity_gamma, propensity_clip)
    specs = prepare_weighting(specs, convs, listwise, props)
    check_frame(run, "run", func)
    check_partitions(num_partitions, func)
    if (score is None) == (rank is None):
        raise InvalidParameterError(
            "receval.spark.evaluate: pass exactly one of score and rank (the run's column "
            f"names). Got score={score!r}, rank={rank!r}."
        )
    value = score if rank is None else rank
    value_arg = {"score" if rank is None else "rank": value}
    check_columns(run, func, "run", user=user, item=item, **value_arg)
    if qrels is None:
        if len(listwise) < len(specs):
            first = next(t for t in specs if t not in listwise)
            raise InvalidParameterError(
                f"Metric {first!r} needs relevance judgments; pass qrels to evaluate "
                f"(qrels=None is only for beyond-accuracy metrics such as 'ils@10')."
            )
    else:
        check_frame(qrels, "qrels", func)
        check_columns(qrels, func, "qrels", user=user, item=item, grade=grade)
        _check_id_types(qrels, run, user, item)
    ordered = bool(listwise) or any(c.ties == "input" for c in convs.values())

    run_cols = [F.col(user).alias(_USER), F.col(item).alias(_ITEM), F.col(value).alias(_VALUE)]
    if ordered:
        run_cols.append(F.monotonically_increasing_id().alias(_ROW))
    data = run.select(*run_cols, F.lit(1).cast("byte").alias(_SIDE))
    if qrels is not None:
        grade_col = F.col(grade) if grade is not None else F.lit(1)
        q = qrels.select(
            F.col(user).alias(_USER),
            F.col(item).alias(_ITEM),
            grade_col.alias(_GRADE),
            F.lit(0).cast("byte").alias(_SIDE),
        )
        data = data.unionByName(q, allowMissingColumns=True)
    if num_partitions is None:
        data = data.repartition(_USER)
    else:
        data = data.repartition(num_partitions, _USER)

    options: dict[str, Any] = {k: v for k, v in conventions.items() if v is not None}
    if props is not None:
        options["propensities"] = props
    options.update(sampled)
    with_qrels = qrels is not None
    by_rank = rank is not None

    def compute(table: Any) -> _Part:
        return _evaluate_partition(
            table, metric_list, with_qrels, by_rank, ordered, name,
            (features, feature_items, similarity, pop_table, item_categories), options,
        )  # fmt: skip

    parts = partition_states(data, compute)
    if not parts:
        raise InputValidationError(
            "receval.spark.evaluate: run is empty (no rows); pass at least one recommendation."
        )
    return _merge(parts, metric_list, specs, convs, name)


def _popularity(popularity: Any, train: Any, user: str, item: str) -> Any:
    """The popularity table (None: neither given); a Spark ``train`` is counted by Spark:
    its distinct users per item, collected to the driver."""
    from .._evaluate import as_popularity_table

    if train is not None and type(train).__module__.startswith("pyspark"):
        check_columns(train, "evaluate", "train", user=user, item=item)
        counts = train.select(user, item).distinct().groupBy(item).count().orderBy(item)
        counts = counts.collect()  # by item id: Spark keeps no first appearance for ties
        popularity_of = ([row[0] for row in counts], [row[1] for row in counts])
        return as_popularity_table(popularity_of if popularity is None else popularity,
                                   None if popularity is None else train)  # fmt: skip
    return as_popularity_table(popularity, train)


def _evaluate_partition(
    table: Any,
    metrics: list[str],
    with_qrels: bool,
    by_rank: bool,
    ordered: bool,
    name: str | None,
    lists: tuple[Any, Any, Any, Any, Any],
    options: dict[str, Any],
) -> _Part:
    import pyarrow as pa
    import pyarrow.compute as pc

    from .._evaluate import mean_states
    from ..data._ranked import Qrels, Run
    from ..evaluation import evaluate
    from ._common import column

    side = table.column(_SIDE)
    run_t = table.filter(pc.equal(side, 1))
    if ordered:
        run_t = run_t.sort_by(_ROW)
    q = None
    extra_run_users = 0
    if with_qrels:
        qrels_t = table.filter(pc.equal(side, 0))
        if qrels_t.num_rows == 0:  # only run users here: none is evaluated
            n_users = len(pc.unique(run_t.column(_USER)))
            zeros = {t: 0 for t in metrics}
            return _Part(0, 0, n_users, zeros, dict(zeros), {}, _restricted(run_t, options))
        q = Qrels(column(qrels_t, _USER), column(qrels_t, _ITEM), column(qrels_t, _GRADE))
        if run_t.num_rows == 0:  # only qrels users: all absent from the run
            users = pa.chunked_array(qrels_t.column(_USER)).combine_chunks()
            dummy = _dummy_user(users)
            items = pa.chunked_array(qrels_t.column(_ITEM)).combine_chunks()
            run_t = pa.table(
                {_USER: dummy.cast(users.type), _ITEM: items.slice(0, 1),
                 _VALUE: pa.array([1.0])}
            )  # fmt: skip
            extra_run_users = 1
    users_in = column(run_t, _USER)
    items_in = column(run_t, _ITEM)
    values_in = column(run_t, _VALUE)
    if by_rank:
        r = Run(users_in, items_in, ranks=values_in, name=name)
    else:
        r = Run(users_in, items_in, values_in, name=name)
    features, feature_items, similarity, pop_table, item_categories = lists
    # a partition may hold few of the users or items (or a placeholder run)
    report = evaluate(
        q, r, metrics, features=features, feature_items=feature_items, similarity=similarity,
        popularity=pop_table, item_categories=item_categories,
        **{**options, "min_match": 0.0, "allow_unmatched": True},
    )  # fmt: skip
    return _Part(
        n_users=report.n_users,
        n_users_missing=report.n_users_missing,
        n_run_only_users=report.n_run_only_users - extra_run_users,
        n_users_empty=dict(report.n_users_empty),
        n_users_skipped=dict(report.n_users_skipped),
        states=mean_states(report),
        sampling=report.sampling,
    )


def _restricted(run_t: Any, options: dict[str, Any]) -> Any:
    """What ``candidates=`` leaves out of a partition holding run users only (None:
    no candidates); its users are evaluated nowhere, but their rows are counted."""
    from ..data._ranked import Run
    from ..sampled.negatives import SamplingSummary, restrict_run
    from ._common import column

    c = options.get("candidates")
    if c is None:
        return None
    r = Run(column(run_t, _USER), column(run_t, _ITEM), column(run_t, _VALUE))
    summary = SamplingSummary(correction=options.get("correction"),
                              catalog_size=options.get("catalog_size"),
                              gamma=options.get("gamma"))  # fmt: skip
    summary.add(restrict_run(r, c))
    return summary


def _merge(
    parts: list[_Part],
    metrics: list[str],
    specs: dict[str, Any],
    convs: dict[str, Conventions],
    name: str | None,
) -> EvaluationSummary:
    from ..engine.totals import empty_mean_state

    means = {}
    for text in metrics:
        states = [p.states[text] for p in parts if text in p.states]
        empty = empty_mean_state(specs[text].info.mean)
        means[text] = reduce(lambda a, b: a.merge(b), states, empty).value
    sampled = [p.sampling for p in parts if p.sampling is not None]
    return EvaluationSummary(
        mean=means,
        metrics={t: str(specs[t]) for t in metrics},
        conventions={t: convs[t] for t in metrics},
        n_users=sum(p.n_users for p in parts),
        n_users_missing=sum(p.n_users_missing for p in parts),
        n_users_empty={t: sum(p.n_users_empty[t] for p in parts) for t in metrics},
        n_users_skipped={t: sum(p.n_users_skipped[t] for p in parts) for t in metrics},
        n_run_only_users=sum(p.n_run_only_users for p in parts),
        run_name=name,
        n_partitions=len(parts),
        sampling=reduce(lambda a, b: a.merge(b), sampled) if sampled else None,
    )

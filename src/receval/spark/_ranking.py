"""Ranking metrics of Spark DataFrames: :func:`evaluate` on whole users per partition.

The qrels and run rows are tagged and unioned, then ``repartition``-ed by user;
each partition becomes a :class:`~receval.Qrels` and a :class:`~receval.Run`, and
the ranking aggregation's update runs on them (what :func:`receval.evaluate` runs
on all the users in memory).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from functools import partial, reduce
from typing import Any

from ..data.seen import SeenItems, check_declaration
from ..exceptions import DEFAULT_MIN_MATCH, InputValidationError, InvalidParameterError
from ..metrics._propensity import DEFAULT_GAMMA
from ..ranking.aggregate import (
    RankingState,
    Setup,
    check_qrels,
    evaluation_setup,
    finalize,
    update,
)
from ..ranking.checks import check_match_options
from ..ranking.report import EvaluationReport
from ._common import (
    KEY,
    check_columns,
    check_frame,
    check_partitions,
    float_sides,
    grade_column,
    id_columns,
    partition_states,
    repartition,
    side_ids,
)

_GRADE = "__receval_grade"
_VALUE = "__receval_value"
_SIDE = "__receval_side"
_ROW = "__receval_row"
_FUNC = "receval.spark.evaluate"


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
    exclude: Any = None,
    repeats: bool = False,
    item_categories: Any = None,
    profile: str | None = None,
    ap_normalizer: str | None = None,
    gain: str | None = None,
    rel_threshold: float | None = None,
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
    recall_rounding: str | None = None,
    propensities: Any = None,
    propensity_gamma: float = DEFAULT_GAMMA,
    propensity_clip: float | None = None,
    candidates: Any = None,
    correction: str | None = None,
    catalog_size: int | None = None,
    gamma: float | None = None,
    min_match: float = DEFAULT_MIN_MATCH,
    allow_unmatched: bool = False,
) -> EvaluationReport:
    """Evaluate a run against qrels, both Spark DataFrames, with top-K ranking metrics.

    Every user's rows are brought to one partition (``repartition`` by user)
    and aggregated there as :func:`receval.evaluate` aggregates all the users;
    the driver receives one small state per partition, merges them and
    finalizes the report. The means, counts and every convention are those of
    :func:`receval.evaluate` on the same rows.

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
        Column names in both DataFrames. Their ids may be of different types
        in each and are matched as :func:`receval.evaluate` matches them: an
        integer matches the string of its decimal digits (7 matches ``"7"``,
        not ``"07"``), a float holding a whole number that integer (``17.0``
        matches ``17`` and ``"17"``, as a pandas column of ids with a missing
        value holds them).
    grade : str or None, default="grade"
        Grade column of the qrels (None: every row has grade 1). Qrels without
        the column ``grade`` of ``user``, ``item`` and time columns alone have
        grade 1 in every row; with another column they are refused, as
        :meth:`receval.Qrels.from_frame` refuses them.
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
        counted by Spark; the head/tail splits break tied counts by the order of
        each item's first row in the DataFrame, as ``collect()`` returns its rows,
        as in memory). The counts are sent to every executor. ``serendipity@k`` and
        ``miscalibration@k`` need the users' histories: a local ``train``
        (pandas, Arrow, pairs), sent to every executor.
    item_categories : mapping or DataFrame, default=None
        The categories of ``miscalibration@k``, as for :func:`receval.evaluate`
        (local; sent to every executor).
    profile, ap_normalizer, gain, rel_threshold, ties, missing_users, empty_users, ideal,\
    gain_grades, zero_users, hit_scores, depth, judged_only, grades, precision_normalizer,\
    recall_normalizer, discount, recall_rounding
        Conventions, as in :func:`receval.evaluate`. With ``ties="input"``
        (the ranx, RecBole and torchmetrics profiles) and for ``ils@k`` /
        ``diversity@k``, "input order" is the run DataFrame's row order (as
        ``collect()`` would return it), kept through the shuffle.
    estimator, propensities, propensity_gamma, propensity_clip : default=None
        Propensity-weighted metrics, as in :func:`receval.evaluate`;
        ``propensities`` is local (a mapping or a pandas / polars / Arrow
        frame, or ``"popularity"``), resolved on the driver and sent to every
        executor. A relevant item without a propensity raises from its
        partition, counted over that partition's users; the pairs the clip
        raised are counted per partition and summed
        (``n_pairs_propensity_clipped``).
    exclude, repeats : default=None, False
        Seen-item masking, as in :func:`receval.evaluate`: each user's items
        in ``exclude`` are removed from its list before the cut at k, counted
        in ``EvaluationReport.masking``. A Spark DataFrame with the ``user``
        and ``item`` columns is joined by user: its rows join the same
        ``repartition`` as the run and the qrels, so each partition holds its
        own users' training items (no extra shuffle, no copy of a training log,
        often larger than the run, on every executor). A local log (pandas,
        Arrow, pairs, a :class:`receval.SeenItems`) is built once on the
        driver and sent to every executor with the task. ``repeats=True``
        declares repeat consumption instead.
    candidates, correction, catalog_size, gamma : default=None
        Sampled evaluation, as in :func:`receval.evaluate`: ``candidates`` is a
        local :class:`receval.Candidates` (or a pandas frame / dict), sent to
        every executor; each partition ranks only its users' candidates. The
        counts of what the restriction left out are summed over the
        partitions into ``EvaluationReport.sampling``.
    min_match, allow_unmatched : default=0.1, False
        Ids that match nothing, as in :func:`receval.evaluate`: a run none of
        whose users is a qrels user, or (when a metric reads judgments) none of
        whose items any qrels user judged, is an ``InputValidationError`` (a
        warning with ``allow_unmatched=True``), and a share of them below
        ``min_match`` an ``UnmatchedIdsWarning``. Checked on the driver, over the
        counts and the distinct item ids of every partition: the same message as
        in memory, showing the smallest ids of each side.

    Returns
    -------
    report : EvaluationReport
        Means and counts, equal to :func:`receval.evaluate`'s on the collected
        rows; per-user values stay on the executors (``users`` is empty,
        ``values`` holds no metric, and ``to_frame``, ``per_user``,
        ``by_segment`` and ``subset`` raise).

    Raises
    ------
    InvalidParameterError
        Unknown metric or convention, a bad column argument.
    InputValidationError
        Missing columns; a run whose users or items match none of the qrels'
        (unless ``allow_unmatched=True``); or anything :func:`receval.evaluate`
        rejects in a partition (raised again on the driver).

    Warns
    -----
    UnmatchedIdsWarning
        Below ``min_match`` of the qrels users are in the run, or of the run's
        items are judged (and of the judged items in the run), as in
        :func:`receval.evaluate`.
    """
    options = dict(locals())  # every keyword, read by name in evaluation_setup
    from pyspark.sql import functions as F

    func = "evaluate"
    matching = (
        check_match_options(min_match, allow_unmatched, _FUNC),
        allow_unmatched,
    )
    table = _popularity(popularity, train, user, item)
    joined = exclude is not None and type(exclude).__module__.startswith("pyspark")
    if joined:  # each partition's users' rows: see _partition_state
        check_declaration(True, repeats, _FUNC)
        options["exclude"] = None
    setup = evaluation_setup(metrics, options, _FUNC, popularity=table, rows=False)
    if joined:
        setup = replace(setup, exclude=SeenItems.empty())
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
    if qrels is not None:
        check_frame(qrels, "qrels", func)
        qrels_grades = grade_column(qrels, func, user, item, grade)
    if joined:
        check_frame(exclude, "exclude", func)
        check_columns(exclude, func, "exclude", user=user, item=item)
    ordered = bool(setup.listwise) or any(cv.ties == "input" for cv in setup.convs.values())

    floats = float_sides(run, 1, user, item)
    run_cols = [*id_columns(run, 1, user, item), F.col(value).alias(_VALUE)]
    if ordered:
        run_cols.append(F.monotonically_increasing_id().alias(_ROW))
    data = run.select(*run_cols, F.lit(1).cast("byte").alias(_SIDE))
    if qrels is not None:
        q = qrels.select(*id_columns(qrels, 0, user, item), qrels_grades.alias(_GRADE),
                         F.lit(0).cast("byte").alias(_SIDE))  # fmt: skip
        data = data.unionByName(q, allowMissingColumns=True)
        floats |= float_sides(qrels, 0, user, item)
    if joined:
        floats |= float_sides(exclude, 2, user, item)
        seen = exclude.select(*id_columns(exclude, 2, user, item),
                              F.lit(2).cast("byte").alias(_SIDE))  # fmt: skip
        data = data.unionByName(seen, allowMissingColumns=True)
    data = repartition(data, num_partitions, KEY)
    by_rank = rank is not None
    parts = partition_states(data, partial(_partition_state, setup=setup, by_rank=by_rank,
                                           ordered=ordered, name=name, joined=joined,
                                           floats=floats))  # fmt: skip
    if not parts:
        raise InputValidationError(
            "receval.spark.evaluate: run is empty (no rows); pass at least one recommendation."
        )
    state = reduce(lambda a, b: a.merge(b, setup.func), parts)
    return finalize(setup, state, run_name=name, matching=matching)


def _popularity(popularity: Any, train: Any, user: str, item: str) -> Any:
    """The popularity table (None: neither given); a Spark ``train`` is counted by Spark:
    its distinct users per item, collected to the driver in the order of each item's
    first row in the DataFrame (as ``collect()`` returns its rows), which is the order
    the in-memory table keeps, and breaks the head/tail splits' ties by."""
    from pyspark.sql import functions as F

    from ..ranking.values import as_popularity_table

    if train is not None and type(train).__module__.startswith("pyspark"):
        check_columns(train, "evaluate", "train", user=user, item=item)
        # each row's place in the DataFrame's order, tagged before any shuffle
        rows = train.select(user, item, F.monotonically_increasing_id().alias(_ROW))
        pairs = rows.groupBy(user, item).agg(F.min(_ROW).alias(_ROW))  # distinct pairs
        counts = pairs.groupBy(item).agg(F.count(F.lit(1)).alias("n"), F.min(_ROW).alias(_ROW))
        counts = counts.orderBy(_ROW).collect()
        popularity_of = ([row[0] for row in counts], [row[1] for row in counts])
        return as_popularity_table(popularity_of if popularity is None else popularity,
                                   None if popularity is None else train,
                                   _FUNC)  # fmt: skip
    return as_popularity_table(popularity, train, _FUNC)


def _partition_state(
    table: Any,
    setup: Setup,
    by_rank: bool,
    ordered: bool,
    name: str | None,
    joined: bool,
    floats: frozenset[str],
) -> RankingState:
    """The aggregation's state of one partition's users: its qrels rows (side 0), run
    rows (side 1; in their input order when ``ordered``) and, with a Spark DataFrame
    as ``exclude``, training rows (side 2); ``floats``: the id columns of floats kept
    floats (:func:`~receval.spark._common.float_sides`)."""
    import pyarrow.compute as pc

    from ..data._ranked import Run
    from ._common import column, partition_qrels, spark_words

    side = table.column(_SIDE)
    run_t = table.filter(pc.equal(side, 1))
    if ordered:
        run_t = run_t.sort_by(_ROW)
    q = None
    if setup.with_qrels:
        qrels_t = table.filter(pc.equal(side, 0))
        if qrels_t.num_rows:
            q = partition_qrels(qrels_t, floats, f"{_FUNC}: qrels", _GRADE)
            check_qrels(setup, q)
    r = None
    if run_t.num_rows:
        users, items = side_ids(run_t, 1, floats, f"{_FUNC}: run")
        values = column(run_t, _VALUE)
        with spark_words(f"{_FUNC}: run", "Run"):
            r = (
                Run(users, items, ranks=values, name=name)
                if by_rank
                else Run(users, items, values, name=name)
            )
    if joined:  # the training rows of this partition's users
        seen_t = table.filter(pc.equal(side, 2))
        if seen_t.num_rows:
            log = side_ids(seen_t, 2, floats, _FUNC)
            setup = replace(setup, exclude=SeenItems.from_log(log, func=_FUNC))
    return update(setup, q, r)

"""The metrics of exact retrieval from embeddings, users as a Spark DataFrame:
:func:`evaluate_embeddings`.

The users' vectors and the qrels (and a training log given as a DataFrame) are
unioned and ``repartition``-ed by user; each partition retrieves its users' top k
against the whole item matrix, block of users by block, as
:func:`receval.evaluate_embeddings` does in memory, and sends back the ranking
aggregation's state of its users. The item matrix travels with the task (PySpark
broadcasts a large task once per executor) or, given as a ``.npy`` / Parquet path,
is read by every executor from that path.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from functools import partial, reduce
from typing import Any

from .. import _validation as v
from ..data._lookup import distinct
from ..data.seen import PairCounts, SeenItems
from ..exceptions import DEFAULT_MIN_MATCH, InputValidationError, InvalidParameterError
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
from ..retrieval.embeddings import metrics_depth
from ..retrieval.masks import Unmatched, excluded_lists, unmatched_pairs
from ..retrieval.search import BLOCK_ITEMS, BLOCK_USERS, catalogue
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
)

__all__ = ["evaluate_embeddings"]

_FUNC = "receval.spark.evaluate_embeddings"
_GRADE = "__receval_grade"
_VECTOR = "__receval_vector"
_SIDE = "__receval_side"
#: The options of :func:`receval.evaluate` that apply here; every one None by default.
_CONVENTIONS = (
    "profile", "ap_normalizer", "gain", "rel_threshold", "ties", "missing_users",
    "empty_users", "ideal", "gain_grades", "zero_users", "hit_scores", "depth", "judged_only",
    "grades", "estimator", "precision_normalizer", "recall_normalizer", "discount",
    "recall_rounding",
)  # fmt: skip


def evaluate_embeddings(
    qrels: Any,
    users: Any,
    item_vectors: Any,
    metrics: str | Iterable[str],
    *,
    k: int | None = None,
    item_ids: Any = None,
    user: str = "user",
    vector: str = "vector",
    item: str = "item",
    grade: str | None = "grade",
    metric: str = "dot",
    exclude: Any = None,
    block_users: int = BLOCK_USERS,
    block_items: int = BLOCK_ITEMS,
    name: str | None = None,
    num_partitions: int | None = None,
    min_match: float = DEFAULT_MIN_MATCH,
    allow_unmatched: bool = False,
    **options: Any,
) -> EvaluationReport:
    """Evaluate the exact top-k retrieval of embeddings, the users a Spark DataFrame.

    Every user's vector, judgments and training items are brought to one
    partition (``repartition`` by user); each partition retrieves its users'
    lists against the whole item matrix and aggregates them as
    :func:`receval.evaluate_embeddings` does, and the driver merges one small
    state per partition. Means and counts are those of
    :func:`receval.evaluate_embeddings` on the collected users.

    Parameters
    ----------
    qrels : pyspark.sql.DataFrame
        Judgments, one row per (user, item) with a grade.
    users : pyspark.sql.DataFrame
        One row per user: its id (column ``user``) and its vector (column
        ``vector``, an array of numbers, all of the item vectors' length).
    item_vectors : array-like, tensor, Arrow array or path
        The item matrix, as for :func:`receval.retrieve`. An object in memory is
        sent with the task (PySpark broadcasts a large one once per executor);
        a ``.npy`` or Parquet path is read by every executor, so it must be
        readable there.
    metrics : str or iterable of str
        Metric strings, e.g. ``["ndcg@10", "recall@100"]``.
    k : int, default=None
        Items retrieved per user; None: the largest cutoff of ``metrics``.
    item_ids : array-like, default=None
        The id of each item row (None: 0, 1, ...), matched with the qrels'
        ``item`` column (see ``item``).
    user, vector, item, grade : str, default="user", "vector", "item", "grade"
        Column names: ``user`` in ``users``, ``qrels`` (and a DataFrame
        ``exclude``), ``vector`` in ``users``, ``item`` and ``grade`` in the
        qrels (``grade=None``, or qrels of ids and times alone without the
        column ``grade``: every judged item has grade 1, as
        :meth:`receval.Qrels.from_frame` reads them). Ids of
        different types in each are matched as
        :func:`receval.evaluate_embeddings` matches them (an integer matches
        the string of its decimal digits, 7 matches ``"7"``, not ``"07"``; a
        float holding a whole number matches that integer).
    metric : {"dot", "cosine"}, default="dot"
        The score of a user and an item, as for :func:`receval.retrieve`.
    exclude : DataFrame, mapping or pairs, default=None
        Each user's training items, left out before the cut at k. A Spark
        DataFrame with the ``user`` and ``item`` columns joins the same
        ``repartition`` (each partition holds its own users' rows); a local log
        (what :func:`receval.retrieve` takes) is built once on the driver and
        sent to every executor, each of which sends back which of its users it
        holds (a bit a user of the log), so that its pairs whose user has no
        vector are counted and named as in memory.
    block_users, block_items : int
        As for :func:`receval.retrieve`, within each partition.
    name : str, default=None
        The run's name in the report.
    num_partitions : int, default=None
        Partitions of the users (default: ``spark.sql.shuffle.partitions``).
    min_match, allow_unmatched : default=0.1, False
        Ids that match nothing, as in :func:`receval.evaluate_embeddings`: users
        none of whom is a qrels user, or (when a metric reads judgments)
        ``item_ids`` none of which any qrels user judged, are an
        ``InputValidationError`` (a warning with ``allow_unmatched=True``), and
        a share of them below ``min_match`` an ``UnmatchedIdsWarning``: checked
        on the driver, over every partition's counts, as
        :func:`receval.spark.evaluate` checks them.
    **options
        The conventions of :func:`receval.evaluate` (``ties``, ``profile``,
        ``missing_users``, ``gain``, ...).

    Returns
    -------
    report : EvaluationReport
        Means and counts, equal to :func:`receval.evaluate_embeddings`'s on the
        collected users (``n_exclude_unmatched`` too: each partition counts the
        ``exclude`` pairs of its users whose user or item has no vector); per-user
        values stay on the executors (``users`` is empty, as for
        :func:`receval.spark.evaluate`).

    Raises
    ------
    InvalidParameterError
        An unknown option, metric or convention; ``k`` missing for a metric of
        the whole list; a bad column argument.
    InputValidationError
        Missing columns, null or ragged vectors, vectors of another length
        than the items', users given twice, users or item ids that match none
        of the qrels' (unless ``allow_unmatched=True``), or anything
        :func:`receval.evaluate_embeddings` rejects in a partition (raised
        again on the driver).

    Warns
    -----
    UnmatchedIdsWarning
        Some pairs of ``exclude`` name a user or an item without a vector: how
        many (on the driver, from every partition's counts); below
        ``min_match`` of the qrels users have a vector, or both of ``item_ids``
        judged and of the qrels' items in ``item_ids``.
    """
    from pyspark.sql import functions as F

    func = "evaluate_embeddings"
    unknown = sorted(set(options) - set(_CONVENTIONS))
    if unknown:
        raise InvalidParameterError(
            f"{_FUNC}: unknown option {unknown[0]!r}. Expected one of {sorted(_CONVENTIONS)}."
        )
    matching = (check_match_options(min_match, allow_unmatched, _FUNC), allow_unmatched)
    depth = metrics_depth(metrics, _FUNC, k)
    local_exclude = exclude is not None and not type(exclude).__module__.startswith("pyspark")
    settings: dict[str, Any] = dict.fromkeys(_CONVENTIONS)
    settings.update(options)
    settings.update(
        qrels=qrels, features=None, feature_items=None, similarity=None, item_categories=None,
        propensities=None, propensity_gamma=0.0, propensity_clip=None, candidates=None,
        correction=None, catalog_size=None, gamma=None, exclude=None, repeats=False,
    )  # fmt: skip
    setup = evaluation_setup(metrics, settings, _FUNC, popularity=None, rows=False)
    ids = catalogue(item_vectors, item_ids, _FUNC).ids  # checked once, on the driver
    seen = SeenItems.from_log(exclude, name="exclude", func=_FUNC) if local_exclude else None
    check_partitions(num_partitions, func)
    check_frame(users, "users", func)
    check_frame(qrels, "qrels", func)
    check_columns(users, func, "users", user=user, vector=vector)
    qrels_grades = grade_column(qrels, func, user, item, grade)

    joined = exclude is not None and not local_exclude
    if joined:
        check_frame(exclude, "exclude", func)
        check_columns(exclude, func, "exclude", user=user, item=item)
    data = users.select(*id_columns(users, 1, user), F.col(vector).alias(_VECTOR),
                        F.lit(1).cast("byte").alias(_SIDE))  # fmt: skip
    judged = qrels.select(*id_columns(qrels, 0, user, item), qrels_grades.alias(_GRADE),
                          F.lit(0).cast("byte").alias(_SIDE))  # fmt: skip
    data = data.unionByName(judged, allowMissingColumns=True)
    floats = float_sides(qrels, 0, user, item)
    if joined:
        floats |= float_sides(exclude, 2, user, item)
        log = exclude.select(*id_columns(exclude, 2, user, item),
                             F.lit(2).cast("byte").alias(_SIDE))  # fmt: skip
        data = data.unionByName(log, allowMissingColumns=True)
    search = dict(k=depth, item_vectors=item_vectors, item_ids=ids, metric=metric,
                  block_users=block_users, block_items=block_items, name=name)  # fmt: skip
    compute = partial(_partition_state, setup=setup, seen=seen, search=search, floats=floats)
    parts = partition_states(repartition(data, num_partitions, KEY), compute)
    if sum(n for _, n in parts) == 0:
        raise InputValidationError(f"{_FUNC}: users is empty (no rows); pass at least one vector.")
    state = reduce(lambda a, b: a.merge(b, setup.func), (s for s, _ in parts))
    if exclude is None:
        return finalize(setup, state, run_name=name, matching=matching, catalogue=ids)
    counts = state.exclude_unmatched
    if seen is not None:  # a local exclude: each partition counted its own users' pairs
        # and kept which of the log's users it holds; the others are named here
        counts = counts.of_all(seen)
    if counts.n_unmatched == counts.n_pairs:
        raise InputValidationError(
            f"{_FUNC}: no (user, item) pair of exclude= names a user of users and an item of "
            f"item_ids; check that the ids are the same (type, prefix)."
        )
    Unmatched("exclude", counts).warn(_FUNC)
    report = finalize(setup, state, run_name=name, matching=matching, catalogue=ids)
    return replace(report, n_exclude_unmatched=counts.n_unmatched)


def _partition_state(
    table: Any,
    setup: Setup,
    seen: SeenItems | None,
    search: dict[str, Any],
    floats: frozenset[str],
) -> tuple[RankingState, int]:
    """The aggregation's state of one partition's users (with the counts of their
    ``exclude`` pairs without a vector) and their number: from its user rows (side 1),
    qrels rows (side 0) and, with a DataFrame as ``exclude``, training rows (side 2),
    the pairs of its users, all of which it counts; ``floats``: the id columns of
    floats kept floats (:func:`~receval.spark._common.float_sides`)."""
    import pyarrow.compute as pc

    from ..ranking.evaluation import state_of_batches
    from ..retrieval.search import Search, lists_run
    from ._common import partition_qrels, side_ids, side_users

    side = table.column(_SIDE)
    q = None
    qrels_t = table.filter(pc.equal(side, 0))
    if qrels_t.num_rows:
        q = partition_qrels(qrels_t, floats, f"{_FUNC}: qrels", _GRADE)
        check_qrels(setup, q)
    users_t = table.filter(pc.equal(side, 1))
    user_ids = v.as_1d(side_users(users_t, 1), "users", _FUNC)
    log_t = table.filter(pc.equal(side, 2))
    own = bool(log_t.num_rows)  # a DataFrame exclude: the pairs of the partition's users
    if own:
        seen = SeenItems.from_log(side_ids(log_t, 2, floats, _FUNC), func=_FUNC)
    excluded, counts = None, PairCounts()
    if seen is not None:
        excluded, unmatched = excluded_lists(seen, user_ids, search["item_ids"], _FUNC,
                                             some_users=True)  # fmt: skip
        if own:  # every user of the log is here: those without a vector are known
            unmatched = unmatched_pairs("exclude", seen, user_ids, search["item_ids"])
        counts = unmatched.counts
    if not users_t.num_rows:  # judged users without a vector: missing users
        state = update(setup, q, None)
        state.exclude_unmatched = counts
        return state, 0
    found = Search(
        _vectors(users_t.column(_VECTOR)),
        catalogue(search["item_vectors"], search["item_ids"], _FUNC), search["k"],
        user_ids=user_ids, metric=search["metric"],
        exclude=excluded, candidates=None, block_users=search["block_users"],
        block_items=search["block_items"], func=_FUNC, whole_ties=True,
    )  # fmt: skip
    batches = (
        lists_run([part], user_ids[part.start : part.start + len(part.offsets) - 1],
                  found.item_ids, search["name"])
        for part in found.lists()
    )  # fmt: skip
    state = state_of_batches(setup, q, batches)
    state.exclude_unmatched = counts
    return state, len(user_ids)


def _vectors(col: Any) -> Any:
    """A partition's vector column (Arrow lists) as fixed-size lists; an error for a
    null vector or vectors of different lengths."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(col, pa.ChunkedArray):
        col = col.combine_chunks()
    if col.null_count:
        raise InputValidationError(
            f"{_FUNC}: users has {v.counted(col.null_count, 'null vector')}; drop or fill them "
            f"first."
        )
    if pa.types.is_fixed_size_list(col.type):
        return col
    if not (pa.types.is_list(col.type) or pa.types.is_large_list(col.type)):
        raise InputValidationError(
            f"{_FUNC}: the vector column of users must hold arrays of numbers. Got type {col.type}."
        )
    lengths = distinct(pc.list_value_length(col).to_numpy(zero_copy_only=False))
    if len(lengths) != 1:
        raise InputValidationError(
            f"{_FUNC}: the vectors of users must all have the same length. Got lengths "
            f"{v.format_values(lengths)}."
        )
    return pa.FixedSizeListArray.from_arrays(col.flatten(), int(lengths[0]))

"""evaluate(): every top-K metric of a run against qrels, per user and averaged.

The sources of the ranking aggregation (:mod:`receval.ranking.aggregate`): the
run in memory is one partition of users; a scanned run (:func:`receval.scan`) is
read in batches of whole users, each a partition, and the qrels users it never
names are one more.
"""

from __future__ import annotations

import inspect
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import _validation as v
from .._parameters import check_keywords
from ..data._ranked import Run, as_qrels, as_run
from ..exceptions import DEFAULT_MIN_MATCH, InputValidationError, InvalidParameterError
from ..metrics._propensity import DEFAULT_GAMMA
from .aggregate import RankingState, Setup, check_qrels, evaluation_setup, finalize, update
from .checks import check_match_options
from .report import EvaluationReport
from .values import as_popularity_table, subset_qrels

if TYPE_CHECKING:  # pragma: no cover
    from ..data.scan import ScanRun

__all__ = ["EvaluationReport", "evaluate", "evaluate_as"]


def evaluate(
    qrels: Any,
    run: Any,
    metrics: str | Iterable[str],
    *,
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
    """Evaluate a run against qrels with top-K ranking metrics.

    Every metric is computed per qrels user from one pass over the sorted
    data (in parallel over users), then averaged. Conventions default to
    receval's (see :mod:`receval.conventions`); ``profile`` sets all of them
    to a peer library's, explicit keywords override the profile, and a
    convention written inside a metric string (``"ndcg(gain=exponential)@10"``)
    overrides both for that metric.

    Parameters
    ----------
    qrels : Qrels, dict, DataFrame, path or None
        Ground truth: ``{user: {item: grade}}``, a frame with columns
        ``user``, ``item`` and ``grade``, or a TREC/CSV/Parquet file (a frame or
        CSV/Parquet file of ``user`` and ``item`` alone, or with a time column such
        as a split's test, is the pairs of grade 1; other columns without ``grade``
        are refused). None when
        every metric is a beyond-accuracy one (``ils``, ``arp``, ...): the
        users are then the run's.
    run : Run, dict, DataFrame, path, Scan or ScanRun
        Recommendations: ``{user: {item: score}}``, a frame with columns
        ``user``, ``item``, ``score``, or a TREC/CSV/Parquet file. A
        :func:`receval.scan` of a file (or ``scan.as_run(user=..., ...)`` to
        name its columns) is read in batches of whole users, in bounded
        memory; the rows of each user must be contiguous in the file (checked).
        The result is the same as with the run in memory.
    metrics : str or iterable of str
        Metric strings, e.g. ``["ndcg@10", "map@100", "mrr", "recall@100"]``;
        see :func:`receval.list_metrics`. Other libraries' names are read too
        (``P_10``, ``nDCG@10``); trec_eval's form with several parameters
        (``"P.5,10"``) stands for one metric each, reported under trec_eval's
        names (``P_5``, ``P_10``), and so does the bare name of a trec_eval
        family of cut-offs (``"P"``, ``"ndcg_cut"``, ``"map_cut"``,
        ``"iprec_at_recall"``: its default ones, as ``trec_eval -m P``), except
        ``"recall"`` and ``"success"``, receval's metrics of the whole list.
    features, feature_items, similarity : default=None
        Item similarities for ``ils@k`` and ``diversity@k``, as in
        :func:`receval.intra_list_similarity`: feature vectors (cosine) with
        their item ids, or a similarity matrix or function (``ties="average"``:
        each pair weighs the chance that both its items are in the top k); users
        with fewer than 2 items there, or absent from the run, are skipped.
    popularity : mapping or pair (items, counts), default=None
        Item popularity for ``arp@k``, ``aplt@k``, ``aclt@k``,
        ``average_popularity@k`` and ``tail_percentage@k``, as in
        :func:`receval.average_recommendation_popularity` (``ties="average"``:
        each is a sum over the list's items, a tied block's positions holding
        its mean; the metric string then reads ``arp(ties=average)@k``).
    train : Qrels, Run, DataFrame or pair (users, items), default=None
        An interaction log instead of ``popularity``: an item's popularity is
        its number of distinct users. It is also the users' histories that
        ``serendipity@k`` and ``miscalibration@k`` need, as in
        :func:`receval.serendipity` and :func:`receval.miscalibration`
        (``serendipity@k`` without relevance: the function's ``qrels=``
        weighting is not applied; item similarity is the co-occurrence cosine
        in ``train``, or the cosine of ``features`` when given). Users without
        a history are skipped. ``train`` masks nothing: see ``exclude``.
    exclude : SeenItems, Qrels, Run, DataFrame, pair (users, items) or mapping, default=None
        Seen-item masking (full-ranking evaluation): each user's items in this
        interaction log (usually the training data, possibly the same object
        as ``train``; a :class:`receval.SeenItems` built once, or any shape
        ``train`` takes, or ``{user: items}``) are removed from the user's list
        *before* it is cut at k, by every metric; the other items keep their
        order. ``report.masking`` counts the rows removed (and
        ``report.n_seen_removed`` per user). Relevant items the user had seen
        stay in the qrels (they still count in R, so no masked list can reach
        them): ``report.masking.n_qrels_seen`` counts them, a sign that the
        test data repeats training interactions (pass ``repeats=True`` if
        users do consume items again). A log that names none of the run's
        users, or none of the items of the run and the qrels (ids of another
        type or spelling), masks nothing: an ``UnmatchedIdsWarning`` says so.
    repeats : bool, default=False
        Declare repeat consumption instead of masking: users may consume an
        item again, so their training items stay in the lists, and
        ``report.masking.repeats`` says so. Not with ``exclude``.
    item_categories : mapping or DataFrame, default=None
        The categories of each item for ``miscalibration@k`` (with ``train``),
        as in :func:`receval.miscalibration`; ``miscalibration(alpha=0.1)@10``
        sets the smoothing (default 0.01; ``ties="average"``: a sum over how
        many items of each category weight the tied block that k cuts puts in
        the top k).
    profile : str, default=None
        Reproduce a peer library's conventions: a name of ``receval.PROFILES``
        ("trec_eval", "sklearn", "ranx", "torchrec", ...). A profile may set a
        convention for one metric only, where the peer computes that metric
        differently (see ``receval.conventions.PROFILE_METRICS``).
    ap_normalizer : {"relevant", "min_k", "hits", "min_retrieved"}, default=None
        Denominator of AP (default "relevant": R, as trec_eval; "min_retrieved":
        min(R, the items in the top k), as LensKit).
    gain : {"linear", "exponential", "binary"}, default=None
        Gain of a grade in CG/DCG/NDCG (default "linear": the grade;
        "exponential": 2**grade - 1; "binary": 1 for every relevant item).
    rel_threshold : float, default=None
        Grade at or above which an item is relevant (default 1); grades are any
        real numbers (probabilities of relevance too), the threshold any number
        >= 0 (below 0, unjudged items would be relevant to trec_eval's measures).
    ties : {"trec", "average", "input", "id_ascending", "id_descending", "worst"}, default=None
        Order of tied scores (default "trec": item id descending, scores
        compared in single precision). "average" is the expected value over all
        orders of the tied items, by an exact closed form for every metric (no
        order is enumerated); only ``ndcg_rel`` with a negative gain refuses it.
        "id_ascending": item id ascending (ir_measures' RR@k). "id_descending": item
        id descending with scores compared as doubles (trec_eval 10.0; "trec" compares
        them in single precision, as trec_eval 9 and pytrec_eval). "worst": tied
        items by grade ascending, the least relevant first (CatBoost). The metrics of
        the lists alone (``ils``, ``arp``, ``serendipity``, ...) take the top k in
        the run's order (score descending, input order within ties) under any rule
        but "average", the exact expected value over every order of tied scores.
    missing_users : {"zero", "skip", "error", "complete"}, default=None
        Qrels users absent from the run (default "zero": every metric 0).
        "complete" is trec_eval's -c: 0, but ``num_q`` counts the user and
        ``num_rel`` its relevant items.
    empty_users : {"skip", "zero", "one", "error"}, default=None
        Users without a relevant item (default "skip"): left out, scored 0,
        scored 1, or an error naming them.
    ideal : {"judged", "candidates"}, default=None
        What the ideal DCG ranks (default "judged": all judged items).
    gain_grades : {"relevant", "positive", "all"}, default=None
        Which grades earn a gain in CG/DCG/NDCG (default "relevant": grades >=
        ``rel_threshold``; "positive": every grade above 0, as trec_eval's ndcg;
        "all": every judged grade, a negative one too, as scikit-learn's
        ``dcg_score``).
    zero_users : {"keep", "skip"}, default=None
        "skip" leaves users whose value is 0 out of the mean (default "keep"),
        as Microsoft Recommenders' ``r_precision_at_k``: 0.0 when no user has a
        relevant item in the top k, nan when every user with one is at 0.
    hit_scores : {"any", "positive"}, default=None
        "positive": an item scored <= 0 is never a hit, though it still counts
        in R (torchmetrics' precision, recall, MAP and MRR; default "any").
    depth : int, default=None
        Only the first ``depth`` items of each list (in the order of ``ties``)
        count, for every metric (default 0: all; trec_eval's ``-M``). Refused with
        ``ties="average"``, which orders no list; a user with a tie across the
        depth is tie-dependent, with no ``mean_ties_average`` (nan).
    judged_only : bool, default=None
        True removes the items absent from the user's qrels (and those graded
        below 0, which trec_eval calls unjudged) from each list before any
        metric (default False; trec_eval's ``-J``, ir_measures' ``judged_only``).
    grades : {"trec", "raw"}, default=None
        How ``bpref`` and ``rbp`` read the grades (default "trec": as trec_eval, a
        negative grade marks an unjudged item and RBP's gains are the grades over
        the user's largest when above 1; "raw": as ranx, a negative grade is
        judged non-relevant and RBP's gain is the grade from ``rel_threshold`` on).
    precision_normalizer : {"k", "retrieved"}, default=None
        Denominator of precision@k (default "k", a short list included;
        "retrieved": min(k, the list's length), as LensKit).
    recall_normalizer : {"relevant", "min_k"}, default=None
        Denominator of recall@k (default "relevant": R; "min_k": min(R, k), as
        LensKit).
    discount : {"offset", "clipped", "rank"}, default=None
        Rank discount of dcg, idcg and ndcg (default "offset": log2(rank + 1);
        "clipped": log2(max(rank, 2)), ranks 1 and 2 undiscounted, as LensKit;
        "rank": the rank itself, CatBoost's ``denominator=Position``).
    recall_rounding : {"nearest", "trec9"}, default=None
        How ``iprec`` and ``iprec_avg`` turn a recall level into a number of
        relevant items (default "nearest": round(level * R), as trec_eval 10.0;
        "trec9": trunc(level * R + 0.9), as trec_eval 9, pytrec_eval and
        ir_measures, the ``trec_eval`` and ``ir_measures`` profiles).
    estimator : {"naive", "ips", "snips"}, default=None
        How observed relevant items count in ``precision``, ``recall``, ``dcg``,
        ``ndcg`` and ``map`` (default "naive": once each; "ips" when
        ``propensities`` is given). "ips": each weighs 1 / its propensity
        (inverse propensity scoring, Schnabel et al. 2016; Yang et al. 2018);
        "snips": the same weights, their sum standing for the user's number of
        relevant items in recall, ndcg's ideal and map (self-normalised;
        precision and dcg are the ips values; only recall stays within [0, 1]).
        The weighted metrics' canonical strings in ``report.metrics`` carry it
        (``"ndcg(estimator=ips)@10"``); a metric without a weighted form raises
        (write ``"mrr(estimator=naive)"`` to keep it unweighted). Definitions:
        docs/conventions.md.
    propensities : mapping, DataFrame or "popularity", default=None
        The probability that each relevant item of the qrels was observed:
        ``{user: {item: p}}`` or a frame with columns ``user``, ``item``,
        ``propensity``; ``{item: p}`` (or a pandas Series) or a frame with columns ``item``,
        ``propensity``; or ``"popularity"``, Yang et al.'s model
        ``p_i = (n_i / max_j n_j) ** ((propensity_gamma + 1) / 2)`` with
        ``n_i`` the item's popularity in ``popularity=`` / ``train=``. Every
        propensity lies in (0, 1], and every relevant item needs one.
    propensity_gamma : float, default=0.0
        The popularity model's gamma (default 0: the square root of the
        relative popularity).
    propensity_clip : float, default=None
        The smallest propensity a weight uses, ``1 / max(p, propensity_clip)``:
        bounds the weights, and so the variance, at the cost of some bias
        (default: no clipping). The relevant pairs whose propensity it raises
        are counted in the report's ``n_pairs_propensity_clipped`` (batch by batch of
        a scanned run; an accumulator's ``skipped()`` and
        :func:`receval.spark.evaluate` count them alike).
    candidates : Candidates, DataFrame or dict, default=None
        Sampled evaluation: rank only each user's candidate items (from
        :func:`receval.sample_negatives`, or a saved (user, item) table). Run rows
        outside them are dropped; candidates the run does not score are counted
        (``report.sampling``) and ranked below every candidate it scores. The
        metrics are then the sampled metrics.
    correction : {"rank", "minimal_bias", "bv"}, default=None
        With ``candidates``: replace each user's value by Krichene and Rendle's
        corrected metric, the mean over its relevant items of
        :func:`receval.corrected_metric` at the item's sampled rank (1 + the
        candidates that are not relevant ranked above it, ties ordered by
        ``ties``); the user's negatives are its candidates that are not relevant.
        A user absent from the run, without a relevant item or without candidates
        keeps its sampled value (docs/conventions.md), as does one whose candidates
        are all relevant (n = 0) when its run lacks one of them. For recall@k, success@k,
        ndcg@k, mrr@k and map@k, under the conventions their values at a rank assume
        (ndcg's ``discount="offset"``, no ``depth``, ``judged_only`` or
        ``hit_scores="positive"``; others raise); exact in the setting of one relevant
        item per user.
    catalog_size : int, default=None
        N for ``correction`` (default: the candidates' ``catalog_size``); nothing
        else reads it, so it is refused without a ``correction``.
    gamma : float, default=None
        The variance weight of ``correction="bv"`` (default 0.1).
    min_match : float, default=0.1
        The share of the qrels users found in the run, and of the run's items
        judged in the qrels (when a metric reads judgments), below which an
        ``UnmatchedIdsWarning`` says so: ids with a prefix or of another type
        match nothing and make every metric 0. ``report.n_users_missing`` and
        ``report.n_run_items_unmatched`` count them.
    allow_unmatched : bool, default=False
        Score a run that matches no qrels user, or (for the metrics that read
        judgments) no qrels item, with a warning, and candidate sets that keep
        none of the run's rows (sets of none of its users, or of none of its
        items); by default such a run is an ``InputValidationError``.

    Returns
    -------
    report : EvaluationReport
        ``report.mean[metric]`` for each metric string as written, per-user
        values, and the counts of users skipped or zero-filled by each rule,
        of ids that match nothing, and of users whose value depends on the
        order of tied scores (``n_users_tie_dependent``, with
        ``mean_ties_average`` the mean those users would move it to).

    Raises
    ------
    InvalidParameterError
        Unknown metric or convention value.
    InputValidationError
        Malformed qrels, run or ``exclude``; ``missing_users="error"`` with a missing user;
        a run whose users or items match none of the qrels' (unless
        ``allow_unmatched=True``).

    See Also
    --------
    Qrels, Run : The containers, with their constructors.
    receval.conventions : Every convention and the compatibility profiles.

    Examples
    --------
    >>> from receval import evaluate
    >>> qrels = {"u1": {"a": 3, "b": 2, "c": 3, "d": 0, "e": 1, "f": 2}}
    >>> run = {"u1": {"a": 0.9, "b": 0.8, "c": 0.7, "d": 0.6, "e": 0.5, "f": 0.4}}
    >>> report = evaluate(qrels, run, ["ndcg@5", "ndcg(gain=exponential)@5", "p@2"])
    >>> report.mean["p@2"]
    1.0
    >>> round(report.mean["ndcg@5"], 6)
    0.861044

    Seen-item masking: ``a`` was in the user's training data, so it leaves the
    list before the cut at 2, and ``c`` moves up.

    >>> qrels = {"u1": {"b": 1, "c": 1}}
    >>> run = {"u1": {"a": 0.9, "b": 0.8, "c": 0.7}}
    >>> report = evaluate(qrels, run, ["recall@2"], exclude={"u1": ["a"]})
    >>> report.mean["recall@2"], report.masking.n_rows_removed
    (1.0, 1)

    Propensity-weighted: item ``b``, observed with probability 0.25, counts 4 times.

    >>> qrels = {"u1": {"a": 1, "b": 1}}
    >>> run = {"u1": {"a": 0.9, "x": 0.8, "b": 0.7}}
    >>> report = evaluate(qrels, run, ["p@3", "recall(estimator=snips)@2"],
    ...                   propensities={"a": 0.5, "b": 0.25})
    >>> report.mean
    {'p@3': 2.0, 'recall(estimator=snips)@2': 0.3333333333333333}
    >>> report.metrics["p@3"]
    'precision(estimator=ips)@3'
    """
    options = dict(locals())
    del options["qrels"], options["run"], options["metrics"]
    return evaluate_as("evaluate", qrels, run, metrics, **options)


def evaluate_as(
    func: str, qrels: Any, run: Any, metrics: Any, /, **options: Any
) -> EvaluationReport:
    """:func:`evaluate` of ``qrels``, ``run``, ``metrics`` and its keyword ``options``
    for ``func``, the public function called, whose name its errors and warnings carry
    (an unknown keyword's too); the keywords not given take evaluate's defaults."""
    check_keywords(options, _keywords(), func)
    options = _keywords() | options | {"qrels": qrels}  # read by name in evaluation_setup
    min_match, allow_unmatched = options["min_match"], options["allow_unmatched"]
    matching = (check_match_options(min_match, allow_unmatched, func), allow_unmatched)
    scanned = _scanned(run)
    r = None if scanned is not None or isinstance(run, RunBatches) else as_run(run, func)
    table = as_popularity_table(options["popularity"], options["train"], func)
    setup = evaluation_setup(metrics, options, func, popularity=table)
    q = None if qrels is None else as_qrels(qrels, func)
    if q is not None:
        check_qrels(setup, q)
    if isinstance(run, RunBatches):
        state = state_of_batches(setup, q, run.batches())
        return finalize(setup, state, run_name=run.name, matching=matching,
                        catalogue=run.catalogue)  # fmt: skip
    if r is None:  # a receval.scan(...): read user by user
        return _scan_report(setup, q, scanned, matching)
    state, name = update(setup, q, r), r.name
    return finalize(setup, state, run_name=name, matching=matching)


@lru_cache(maxsize=1)
def _keywords() -> dict[str, Any]:
    """evaluate's keyword options and their defaults."""
    params = inspect.signature(evaluate).parameters.values()
    return {p.name: p.default for p in params if p.kind is p.KEYWORD_ONLY}


# ------------------------------------------------------------------ out of core
def _scan_report(setup: Setup, q: Any, spec: Any, matching: Any) -> EvaluationReport:
    """The report of a scanned run; the scan's ``timings`` say where its time went."""
    with spec.scan.timed():
        state, name = _scan_state(setup, q, spec)
        return finalize(setup, state, run_name=name, matching=matching)


def _scan_state(setup: Setup, q: Any, spec: Any) -> tuple[RankingState, str]:
    """The state of a scanned run's users, batch by batch of whole users."""
    state = state_of_batches(setup, q, _run_batches(spec, setup.func))
    return state, spec.name or os.path.basename(os.path.normpath(spec.scan.name))


def state_of_batches(setup: Setup, q: Any, batches: Iterable[Run]) -> RankingState:
    """The state of a run read in batches of whole users (a user in one batch only);
    the qrels users absent from every batch are one more partition."""
    state = RankingState()
    seen = None if q is None else np.zeros(q.n_users, dtype=bool)
    n_batches = 0
    for r in batches:
        n_batches += 1
        if q is None or seen is None:
            state = state.merge(update(setup, None, r), setup.func)
            continue
        users = np.flatnonzero(q.positions_in(r, "users") >= 0)
        seen[users] = True
        sub = subset_qrels(q, users)[0] if len(users) else None
        state = state.merge(update(setup, sub, r, order=users), setup.func)
    if not n_batches:  # no batch: an empty run
        if q is None:
            v.check_not_empty(0, "users", "Run")
        raise InputValidationError("Run: users is empty; pass at least one sample.")
    if seen is not None and not seen.all():
        missing = np.flatnonzero(~seen)
        state = state.merge(
            update(setup, subset_qrels(q, missing)[0], None, order=missing), setup.func
        )
    return state


class RunBatches:
    """A run made batch by batch of whole users (:func:`receval.evaluate_embeddings`):
    ``batches()`` yields :class:`~receval.Run` objects, each user in one of them;
    ``catalogue``: the ids of the items retrieved from, which the qrels' items must
    match (the lists of a poor model may miss every judged item)."""

    def __init__(
        self, batches: Callable[[], Iterator[Run]], name: str | None, catalogue: np.ndarray
    ) -> None:
        self.batches = batches
        self.name = name
        self.catalogue = catalogue


def _scanned(run: Any) -> ScanRun | None:
    """``run`` as a scanned run (``Scan.as_run()``), or None for a run in memory or a file.

    A scan exists only once :mod:`receval.data.scan` is loaded: a command that reads
    files in memory (``receval rank``, ``receval trec-eval``) never loads it.
    """
    if "receval.data.scan" not in sys.modules:
        return None
    from ..data.scan import Scan
    from ..engine.sources import is_scan_run

    return run.as_run() if isinstance(run, Scan) else run if is_scan_run(run) else None


def _run_batches(spec: ScanRun, func: str) -> Iterator[Any]:
    """The run of a scan as :class:`~receval.Run` objects of whole users."""
    from ..engine.sources import located, whole_groups

    scan = spec.scan
    value_column = spec.score if spec.rank is None else spec.rank
    if value_column is None:
        raise InvalidParameterError(
            f"{func}: a scanned run needs a score or a rank column. Got score=None and rank=None."
        )
    columns = [spec.user, spec.item, value_column]
    name = spec.name or os.path.basename(os.path.normpath(scan.name))
    for chunk in whole_groups(
        scan, columns, spec.user, ids=[spec.user, spec.item], floats=[value_column],
        func=func, what="user", description=func,
    ):  # fmt: skip
        values_in = chunk[value_column]
        with located(chunk, (spec.user, spec.item)):
            if spec.rank is None:
                r = Run(chunk[spec.user], chunk[spec.item], values_in, name=name)
            else:
                r = Run(chunk[spec.user], chunk[spec.item], ranks=values_in, name=name)
        yield r

"""evaluate(): every top-K metric of a run against qrels, per user and averaged.

In memory, or over a scanned run (:func:`receval.scan`) read in batches of whole
users; the ranking metrics' definition (``receval.metric("ndcg@10")``) runs the
same per-user values on whole users per update.
"""

from __future__ import annotations

import dataclasses
import os
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import _evaluate as e
from . import _validation as v
from ._evaluate import (
    EvaluationReport,
    as_popularity_table,
    as_qrels,
    as_run,
    build_report,
    evaluate_lists,
    list_values,
    metric_conventions,
    prepare_metrics,
    ranked_values,
)
from ._evaluate_checks import (
    DEFAULT_MIN_MATCH,
    UNSTABLE_TIES,
    check_match_options,
    check_matching,
    tie_averages,
    warn_unreproducible_ties,
)
from .data._encode import lookup
from .data._ranked import Qrels, Run
from .data.scan import Scan, ScanRun
from .engine.metric import MetricDefinition, register
from .engine.sources import is_scan_run, located, whole_groups
from .engine.states import Seen
from .engine.totals import empty_mean_state
from .exceptions import InputValidationError, InvalidParameterError
from .metrics._propensity import (
    DEFAULT_GAMMA,
    as_propensities,
    check_propensities,
    prepare_weighting,
)
from .sampled.corrections import check_correction, correct_columns
from .sampled.negatives import SamplingSummary, as_candidates, restrict_run

__all__ = ["EvaluationReport", "evaluate"]


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
        ``user``, ``item``, ``grade``, or a TREC/CSV/Parquet file. None when
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
        names (``P_5``, ``P_10``).
    features, feature_items, similarity : default=None
        Item similarities for ``ils@k`` and ``diversity@k``, as in
        :func:`receval.intra_list_similarity`: feature vectors (cosine) with
        their item ids, or a similarity matrix or function. These metrics take
        the top k in the run's order (score descending, input order within
        ties), or with ``ties="average"`` the expected value over every order of
        tied scores (exact: each pair weighs the chance that both its items are
        in the top k); users with fewer than 2 items there, or absent from the
        run, are skipped.
    popularity : mapping or pair (items, counts), default=None
        Item popularity for ``arp@k``, ``aplt@k``, ``aclt@k``,
        ``average_popularity@k`` and ``tail_percentage@k``, as in
        :func:`receval.average_recommendation_popularity`; the top k in the
        run's order (score descending, input order within ties), or with
        ``ties="average"`` the expected value over every order of tied scores
        (exact: each is a sum over the list's items, a tied block's positions
        holding its mean; the metric string then reads ``arp(ties=average)@k``).
    train : Qrels, Run, DataFrame or pair (users, items), default=None
        An interaction log instead of ``popularity``: an item's popularity is
        its number of distinct users. It is also the users' histories that
        ``serendipity@k`` and ``miscalibration@k`` need, as in
        :func:`receval.serendipity` and :func:`receval.miscalibration`
        (``serendipity@k`` without relevance: the function's ``qrels=``
        weighting is not applied; item similarity is the co-occurrence cosine
        in ``train``, or the cosine of ``features`` when given). Users without
        a history are skipped.
    item_categories : mapping or DataFrame, default=None
        The categories of each item for ``miscalibration@k`` (with ``train``),
        as in :func:`receval.miscalibration`; ``miscalibration(alpha=0.1)@10``
        sets the smoothing (default 0.01). The top k is the run's order, or
        with ``ties="average"`` the expected value over every order of the
        tied block that k cuts (exact: a sum over how many items of each
        category weight that block puts in the top k).
    profile : str, default=None
        Reproduce a peer library's conventions: "trec_eval", "sklearn", "ranx",
        "recbole", "recommenders", "torchmetrics", "ir_measures" or "lenskit". A profile
        may set a convention for one metric only, where the peer computes that
        metric differently (see ``receval.conventions.PROFILE_METRICS``).
    ap_normalizer : {"relevant", "min_k", "hits", "min_retrieved"}, default=None
        Denominator of AP (default "relevant": R, as trec_eval; "min_retrieved":
        min(R, the items in the top k), as LensKit).
    gain : {"linear", "exponential", "binary"}, default=None
        Gain of a grade in CG/DCG/NDCG (default "linear": the grade;
        "exponential": 2**grade - 1; "binary": 1 for every relevant item).
    rel_threshold : int, default=None
        Grade at or above which an item is relevant (default 1).
    ties : {"trec", "average", "input", "id_ascending", "id_descending"}, default=None
        Order of tied scores (default "trec": item id descending, scores
        compared in single precision). "average" is the expected value over all
        orders of the tied items, by an exact closed form for every metric (no
        order is enumerated); only ``ndcg_rel`` with a negative gain refuses it.
        "id_ascending": item id ascending (ir_measures' RR@k). "id_descending": item
        id descending with scores compared as doubles (trec_eval 10.0; "trec" compares
        them in single precision, as trec_eval 9 and pytrec_eval).
    missing_users : {"zero", "skip", "error", "complete"}, default=None
        Qrels users absent from the run (default "zero": every metric 0).
        "complete" is trec_eval's -c: 0, but ``num_q`` counts the user and
        ``num_rel`` its relevant items.
    empty_users : {"skip", "zero", "one", "error"}, default=None
        Users without a relevant item (default "skip"): left out, scored 0,
        scored 1, or an error naming them.
    ideal : {"judged", "candidates"}, default=None
        What the ideal DCG ranks (default "judged": all judged items).
    gain_grades : {"relevant", "positive"}, default=None
        Which grades earn a gain in CG/DCG/NDCG (default "relevant": grades >=
        ``rel_threshold``; "positive": every grade >= 1, as trec_eval's ndcg).
    zero_users : {"keep", "skip"}, default=None
        "skip" leaves users whose value is 0 out of the mean (default "keep"),
        as Microsoft Recommenders' ``r_precision_at_k``: 0.0 when no user has a
        relevant item in the top k, nan when every user with one is at 0.
    hit_scores : {"any", "positive"}, default=None
        "positive": an item scored <= 0 is never a hit, though it still counts
        in R (torchmetrics' precision, recall, MAP and MRR; default "any").
    depth : int, default=None
        Only the first ``depth`` items of each list (in the order of ``ties``)
        count, for every metric (default 0: all; trec_eval's ``-M``).
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
    discount : {"offset", "clipped"}, default=None
        Rank discount of dcg, idcg and ndcg (default "offset": log2(rank + 1);
        "clipped": log2(max(rank, 2)), ranks 1 and 2 undiscounted, as LensKit).
    estimator : {"naive", "ips", "snips"}, default=None
        How observed relevant items count in ``precision``, ``recall``, ``dcg``,
        ``ndcg`` and ``map`` (default "naive": once each; "ips" when
        ``propensities`` is given). "ips": each weighs 1 / its propensity
        (inverse propensity scoring, Schnabel et al. 2016; Yang et al. 2018);
        "snips": those weights scaled to sum to the user's observed relevant
        items (self-normalised). The weighted metrics' canonical strings in
        ``report.metrics`` carry it (``"ndcg(estimator=ips)@10"``); a metric
        without a weighted form raises (write ``"mrr(estimator=naive)"`` to
        keep it unweighted). Definitions: docs/conventions.md.
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
        (default: no clipping).
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
        candidates that are not relevant ranked above it; tied scores by item id
        descending); the user's negatives are its candidates that are not relevant.
        For recall@k, success@k, ndcg@k, mrr@k and map@k; exact in the setting of
        one relevant item per user.
    catalog_size : int, default=None
        N for ``correction`` (default: the candidates' ``catalog_size``).
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
        judgments) no qrels item, with a warning; by default such a run is an
        ``InputValidationError``.

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
        Malformed qrels or run; ``missing_users="error"`` with a missing user;
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
    weighting = (propensities, propensity_gamma, propensity_clip)
    matching = (check_match_options(min_match, allow_unmatched, "evaluate"), allow_unmatched)
    c = None if candidates is None else as_candidates(candidates, "evaluate")
    size, g = check_correction(
        correction, catalog_size, gamma, c is not None, None if c is None else c.catalog_size
    )
    sampling = None
    if correction is not None and c is not None and c.strategy == "popularity":
        warnings.warn(
            "evaluate: the corrections assume uniformly sampled negatives; these candidates "
            "were drawn by popularity, so the corrected values are not the paper's estimates.",
            UserWarning,
            stacklevel=2,
        )
    if c is not None:
        sampling = SamplingSummary(correction=correction, catalog_size=size,
                                   gamma=g if correction == "bv" else None)  # fmt: skip
    if is_scan_run(run):  # a receval.scan(...): read user by user
        result: EvaluationReport = _scan_evaluate(
            qrels, run, metrics, features=features, feature_items=feature_items,
            similarity=similarity, popularity=popularity, train=train,
            item_categories=item_categories, weighting=weighting, sampled=(c, sampling),
            matching=matching, **conventions,
        )  # fmt: skip
        return result
    r = as_run(run)
    if c is not None and sampling is not None:
        restriction = restrict_run(r, c)
        sampling.add(restriction)
        r = restriction.run
    func = "evaluate"
    table = as_popularity_table(popularity, train)
    metrics, specs, convs, listwise = prepare_metrics(
        metrics, features, similarity, conventions, table, item_categories
    )
    props = as_propensities(propensities, table, propensity_gamma, propensity_clip)
    specs = prepare_weighting(specs, convs, listwise, props)
    if qrels is None:
        if len(listwise) < len(specs):
            first = next(t for t in specs if t not in listwise)
            raise InvalidParameterError(
                f"Metric {first!r} needs relevance judgments; pass qrels to evaluate "
                f"(qrels=None is only for beyond-accuracy metrics such as 'ils@10')."
            )
        return evaluate_lists(
            r, metrics, specs, convs, features, feature_items, similarity, table, item_categories
        )
    q = as_qrels(qrels)
    check_propensities(q, {t: convs[t] for t in specs if t not in listwise}, props)
    if profile in UNSTABLE_TIES:
        kernel = [t for t in specs if t not in listwise]
        warn_unreproducible_ties(profile, r, [specs[t] for t in kernel], [convs[t] for t in kernel])

    user_map = lookup(q.user_ids, r.user_ids)
    missing = user_map < 0
    n_missing = int(missing.sum())
    if n_missing and any(c.missing_users == "error" for c in convs.values()):
        raise InputValidationError(
            f"{func}: {n_missing} qrels users are absent from the run, e.g. "
            f"{v.format_values(q.user_ids[missing])}; pass missing_users='zero' or 'skip' to "
            f"score them 0 or leave them out."
        )
    n_run_only = int(r.n_users - (user_map >= 0).sum())
    ranked = [t for t in specs if t not in listwise]
    item_map = lookup(q.item_ids, r.item_ids) if ranked else None
    n_judged = 0 if item_map is None else int(np.count_nonzero(item_map >= 0))
    items = None if item_map is None else (n_judged, len(r.item_ids))
    check_matching(
        (q.user_ids, q.item_ids), (r.user_ids, r.item_ids), q.n_users - n_missing, items,
        *matching,
    )  # fmt: skip
    values = aux = np.empty((q.n_users, 0))
    averaged_ties = None
    if ranked:
        values, aux = ranked_values(q, r, specs, convs, ranked, user_map, props, item_map)
        if c is not None and correction is not None and size is not None:
            correct_columns(q, r, user_map, c.counts_for(q.user_ids), ranked, specs, convs,
                            values, correction, size, g)  # fmt: skip
        else:
            averaged_ties = tie_averages(q, r, specs, convs, ranked, user_map)
    list_cols: dict[str, np.ndarray] = {}
    if listwise:
        of_run = list_values(
            r, listwise, specs, features, feature_items, similarity, table, item_categories
        )
        for text, col in of_run.items():
            list_cols[text] = np.where(user_map >= 0, col[np.maximum(user_map, 0)], np.nan)
    report = build_report(
        q, metrics, specs, convs, ranked, values, aux, list_cols,
        missing=missing, n_run_only=n_run_only, run_name=r.name,
        items=(0, 0) if items is None else items, ties=averaged_ties,
    )  # fmt: skip
    return report if sampling is None else dataclasses.replace(report, sampling=sampling)


# ------------------------------------------------------------------ out of core
def _scan_evaluate(qrels: Any, run: Scan | ScanRun, metrics: Any, **options: Any) -> Any:
    """:func:`receval.evaluate` with a scanned run, read in batches of whole users."""

    func = "evaluate"
    spec = run.as_run() if isinstance(run, Scan) else run
    features = options.pop("features")
    feature_items = options.pop("feature_items")
    similarity = options.pop("similarity")
    table = e.as_popularity_table(options.pop("popularity"), options.pop("train"))
    item_categories = options.pop("item_categories")
    propensities, gamma, clip = options.pop("weighting")
    c, sampling = options.pop("sampled")
    matching = options.pop("matching")
    metrics, specs, convs, listwise = e.prepare_metrics(
        metrics, features, similarity, options, table, item_categories
    )
    props = as_propensities(propensities, table, gamma, clip)
    specs = prepare_weighting(specs, convs, listwise, props)
    lists = (features, feature_items, similarity, table, item_categories)
    if qrels is None:
        if c is not None:
            raise InvalidParameterError(
                f"{func}: candidates= restricts the ranking of qrels users; pass qrels."
            )
        return _scan_evaluate_lists(spec, metrics, specs, convs, listwise, lists)
    q = e.as_qrels(qrels)
    ranked = [t for t in specs if t not in listwise]
    check_propensities(q, {t: convs[t] for t in ranked}, props)
    values = np.full((q.n_users, len(ranked)), np.nan)
    aux = np.zeros((q.n_users, len(ranked)))
    list_cols = {t: np.full(q.n_users, np.nan) for t in specs if t in listwise}
    seen = np.zeros(q.n_users, dtype=bool)
    n_run_only = 0
    name = spec.name or os.path.basename(os.path.normpath(spec.scan.name))
    last_run: Run | None = None
    n_cand = None if c is None else c.counts_for(q.user_ids)
    judged = np.zeros(len(q.item_ids), dtype=bool)  # qrels items found in the run
    unjudged: list[np.ndarray] = []  # the run's items absent from the qrels, per batch
    run_ids: list[np.ndarray] = []  # a few user and item ids of the run, for messages
    tie_users: list[np.ndarray] = []  # per batch, the users with tied scores
    tie_values: dict[str, list[np.ndarray]] = {}  # and their ties="average" values
    for r in _run_batches(spec, func):
        if c is not None:
            restriction = restrict_run(r, c)
            sampling.add(restriction)
            r = restriction.run
        last_run = r
        user_map = lookup(q.user_ids, r.user_ids)
        users = np.flatnonzero(user_map >= 0)
        n_run_only += r.n_users - len(users)
        if ranked:  # the run's items, judged in the qrels or not
            item_map = lookup(q.item_ids, r.item_ids)
            judged |= item_map >= 0
            in_run = np.zeros(len(r.item_ids), dtype=bool)
            in_run[item_map[item_map >= 0]] = True
            unjudged.append(r.item_ids[~in_run])
        run_ids.append(r.user_ids[:5])
        run_ids.append(r.item_ids[:5])
        if not len(users):
            continue
        seen[users] = True
        sub = e.subset_qrels(q, users)
        if ranked:
            vals, den = e.ranked_values(sub, r, specs, convs, ranked, user_map[users], props)
            if (
                n_cand is not None
                and sampling.correction is not None
                and sampling.catalog_size is not None
            ):
                correct_columns(sub, r, user_map[users], n_cand[users], ranked, specs, convs,
                                vals, sampling.correction, sampling.catalog_size,
                                sampling.gamma or 0.0)  # fmt: skip
            values[users] = vals
            aux[users] = den
            if n_cand is None or sampling.correction is None:
                tied, averaged = tie_averages(sub, r, specs, convs, ranked, user_map[users])
                tie_users.append(users[tied])
                for t, col in averaged.items():
                    tie_values.setdefault(t, []).append(col)
        if listwise:
            of_run = e.list_values(r, listwise, specs, *lists)
            for text, col in of_run.items():
                list_cols[text][users] = col[user_map[users]]
    if last_run is None:  # no batch: an empty run
        raise InputValidationError("Run: users is empty; pass at least one sample.")
    items = None
    if ranked:
        n_unjudged = len(_distinct(unjudged))
        items = (int(judged.sum()), int(judged.sum()) + n_unjudged)
    check_matching(
        (q.user_ids, q.item_ids),
        (_distinct(run_ids[::2], last_run.user_ids), _distinct(run_ids[1::2], last_run.item_ids)),
        int(seen.sum()), items, matching[0], matching[1], stacklevel=4,
    )  # fmt: skip
    missing = np.flatnonzero(~seen)
    if len(missing) and any(c.missing_users == "error" for c in convs.values()):
        raise InputValidationError(
            f"{func}: {len(missing)} qrels users are absent from the run, e.g. "
            f"{v.format_values(q.user_ids[missing])}; pass missing_users='zero' or 'skip' to "
            f"score them 0 or leave them out."
        )
    if len(missing) and ranked:
        sub = e.subset_qrels(q, missing)
        absent = np.full(len(missing), -1, dtype=np.int32)
        vals, den = e.ranked_values(sub, last_run, specs, convs, ranked, absent, props)
        if (
            n_cand is not None
            and sampling.correction is not None
            and sampling.catalog_size is not None
        ):
            correct_columns(sub, last_run, absent, n_cand[missing], ranked, specs, convs,
                            vals, sampling.correction, sampling.catalog_size,
                            sampling.gamma or 0.0)  # fmt: skip
        values[missing] = vals
        aux[missing] = den
    report = e.build_report(
        q, metrics, specs, convs, ranked, values, aux, list_cols,
        missing=~seen, n_run_only=n_run_only, run_name=name,
        items=(0, 0) if items is None else items,
        ties=(_concat(tie_users), {t: _concat(c) for t, c in tie_values.items()})
        if tie_values else None,
    )  # fmt: skip
    return report if sampling is None else dataclasses.replace(report, sampling=sampling)


def _concat(parts: list[np.ndarray]) -> np.ndarray:
    return np.concatenate(parts) if parts else np.empty(0, dtype=np.int64)


def _distinct(parts: list[np.ndarray], default: np.ndarray | None = None) -> np.ndarray:
    """The distinct ids of some batches' arrays (``default`` when there are none)."""
    if not parts:
        return np.empty(0) if default is None else default
    if all(p.dtype.kind in "iu" for p in parts) or all(p.dtype.kind in "US" for p in parts):
        return np.unique(np.concatenate(parts))
    return np.asarray(list(dict.fromkeys(x for p in parts for x in p.tolist())), dtype=object)


def _run_batches(spec: ScanRun, func: str) -> Iterator[Any]:
    """The run of a scan as :class:`~receval.Run` objects of whole users."""

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


def _scan_evaluate_lists(
    spec: ScanRun,
    metrics: list[str],
    specs: dict[str, Any],
    convs: dict[str, Any],
    listwise: set[str],
    lists: tuple[Any, Any, Any, Any, Any],
) -> Any:
    """``evaluate(None, scan, ...)``: beyond-accuracy metrics of the run's users, batch by batch."""

    func = "evaluate"
    if len(listwise) < len(specs):
        first = next(t for t in specs if t not in listwise)
        raise InvalidParameterError(
            f"Metric {first!r} needs relevance judgments; pass qrels to evaluate "
            f"(qrels=None is only for beyond-accuracy metrics such as 'ils@10')."
        )
    users: list[Any] = []
    cols: dict[str, list[np.ndarray]] = {t: [] for t in specs}
    name = None
    for r in _run_batches(spec, func):
        name = r.name
        users.append(r.user_ids)
        for text, col in e.list_values(r, listwise, specs, *lists).items():
            cols[text].append(col)
    if not users:
        v.check_not_empty(0, "users", "Run")
    states: dict[str, Any] = {}
    per_user: dict[str, np.ndarray] = {}
    empty: dict[str, int] = {}
    skipped: dict[str, int] = {}
    for text in specs:
        e.store_list_metric(text, np.concatenate(cols[text]), states, per_user, empty, skipped)
    all_users = np.concatenate([np.asarray(u, dtype=object) for u in users])
    if all(np.asarray(u).dtype.kind in "iu" for u in users):
        all_users = np.concatenate(users)
    return e.EvaluationReport(
        mean={t: states[t].value for t in metrics},
        users=all_users,
        values={t: per_user[t] for t in metrics},
        metrics={t: str(specs[t]) for t in metrics},
        conventions={t: convs[t] for t in metrics},
        n_users=len(all_users),
        n_users_missing=0,
        n_users_empty=empty,
        n_users_skipped=skipped,
        n_run_only_users=0,
        run_name=name,
        _states={t: states[t] for t in metrics},
    )


# ------------------------------------------------------------------ definition
# What receval.metric("ndcg@10") runs: each update holds whole users.
@dataclass
class _RankingState:
    mean: Any
    seen: Seen
    kind: str  # how the users' values combine (the registry's ``mean``)

    def merge(self, other: _RankingState) -> _RankingState:
        return _RankingState(self.mean.merge(other.mean), self.seen.merge(other.seen), self.kind)

    def absorb(self, other: _RankingState) -> _RankingState:
        self.seen.absorb(other.seen)
        self.mean = self.mean.merge(other.mean)
        return self


def _ranking_params(
    metric: str,
    popularity: Any = None,
    train: Any = None,
    item_categories: Any = None,
    propensities: Any = None,
    propensity_gamma: float = DEFAULT_GAMMA,
    propensity_clip: float | None = None,
    **conventions: Any,
) -> dict[str, Any]:
    table = as_popularity_table(popularity, train)  # built once, used by every update
    # checked and resolved once, as evaluate does (its estimator defaults to "ips")
    props = as_propensities(propensities, table, propensity_gamma, propensity_clip)
    if props is not None and conventions.get("estimator") is None:
        conventions = {**conventions, "estimator": "ips"}
    spec, _ = metric_conventions(
        metric, popularity=table, item_categories=item_categories, **conventions
    )
    if props is not None:
        conventions = {**conventions, "propensities": props}
    if table is not None:
        conventions = {**conventions, "popularity": table}
    if item_categories is not None:
        conventions = {**conventions, "item_categories": item_categories}
    return {"metric": metric, "conventions": conventions, "kind": spec.info.mean}


def _ranking_prepare(params: dict[str, Any], qrels: Any, run: Any) -> Any:
    return qrels, run


def _ranking_update(params: dict[str, Any], batch: Any) -> _RankingState:
    qrels, run = batch
    if _is_empty_run(run):
        # a batch in which the model recommended nothing: every qrels user of the
        # batch is absent from the run (missing_users decides), as in evaluate
        qrels = as_qrels(qrels)
        run = _placeholder_run(qrels)
    # a batch may hold few of the users or items: matching is the caller's to check
    report = evaluate(
        qrels, run, [params["metric"]], **params["conventions"], min_match=0.0,
        allow_unmatched=True,
    )  # fmt: skip
    seen = Seen()
    seen.add(report.users, "evaluate", "users")
    state = report.mean_states()[params["metric"]]
    return _RankingState(state, seen, params["kind"])


def _is_empty_run(run: Any) -> bool:
    """A run without rows: an empty mapping or a frame of no rows."""
    if isinstance(run, dict):
        return not run or all(not items for items in run.values())
    return bool(getattr(run, "shape", (1,))[0] == 0) if hasattr(run, "columns") else False


def _placeholder_run(qrels: Qrels) -> Run:
    """A one-row run whose user is none of the qrels users (so every qrels user is
    missing from it)."""
    ids = qrels.user_ids
    if ids.dtype.kind in "iu":
        user: Any = int(ids.max()) + 1 if len(ids) else 0
    else:
        user = "\x00 an empty run"
        while user in set(ids.tolist()):  # pragma: no cover - a qrels user of that name
            user += "\x00"
    return Run([user], ["\x00"], [0.0])


def _ranking_empty(params: dict[str, Any]) -> _RankingState:
    return _RankingState(empty_mean_state(params["kind"]), Seen(), params["kind"])


def _ranking_finalize(params: dict[str, Any], state: _RankingState) -> float:
    result: float = state.mean.value
    return result


RANKING = register(
    MetricDefinition(
        name="ranking",
        family="ranking",
        partitioning="groups",
        description="any metric string of receval.evaluate (ndcg@10, map@100, ...), over whole "
        "users",
        higher_is_better=True,
        inputs=("qrels", "run"),
        check_params=_ranking_params,
        prepare=_ranking_prepare,
        update=_ranking_update,
        empty=_ranking_empty,
        finalize=_ranking_finalize,
    )
)

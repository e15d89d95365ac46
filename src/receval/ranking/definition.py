"""``receval.metric("ndcg@10")``: the ranking aggregation as an engine definition.

By default a user's qrels and run rows may come in any number of updates and
accumulators: every row is held (:class:`~receval.ranking.open_users.OpenUsers`, an
accumulator's updates added in place) and ``compute`` evaluates them all at once.
With ``whole_groups=True`` each update holds whole users (their qrels and their
recommendations) and runs :func:`~receval.ranking.aggregate.update`; merges and ``compute`` are the
aggregation's. Either way an accumulator over any split of the rows, merged in
any order, gives :func:`receval.evaluate`'s mean to the last bit.
"""

from __future__ import annotations

from dataclasses import fields, replace
from typing import Any

from ..data._ranked import as_qrels, as_run
from ..data.seen import PairCounts, as_seen
from ..engine.metric import MetricDefinition, register
from ..engine.totals import empty_mean_state
from ..exceptions import DEFAULT_MIN_MATCH, InputValidationError, InvalidParameterError
from ..metrics._propensity import DEFAULT_GAMMA, as_propensities, clipped_pairs
from ..metrics.beyond.lists import is_empty_run
from ..retrieval.masks import Unmatched
from ..retrieval.streaming import item_matrix
from ..sampled.corrections import check_sampling
from ..sampled.negatives import SamplingSummary, restrict_run
from .aggregate import (
    Mean,
    RankingState,
    Setup,
    check_qrels,
    default_estimator,
    finalize,
    make_setup,
    update,
)
from .checks import check_match_options
from .open_users import OpenUsers, held_ids
from .specs import metric_conventions, sums_table_gains
from .values import as_popularity_table, check_grades, users_in_run

__all__ = ["RANKING"]

#: (min_match, allow_unmatched) of an accumulator made without them, as evaluate's
_MATCHING = (DEFAULT_MIN_MATCH, False)


def _ranking_params(
    metric: str,
    func: str,
    /,
    popularity: Any = None,
    train: Any = None,
    item_categories: Any = None,
    propensities: Any = None,
    propensity_gamma: float = DEFAULT_GAMMA,
    propensity_clip: float | None = None,
    whole_groups: bool = True,
    exclude: Any = None,
    repeats: bool = False,
    candidates: Any = None,
    correction: str | None = None,
    catalog_size: int | None = None,
    gamma: float | None = None,
    item_vectors: Any = None,
    item_ids: Any = None,
    k: int | None = None,
    min_match: float = DEFAULT_MIN_MATCH,
    allow_unmatched: bool = False,
    **conventions: Any,
) -> dict[str, Any]:
    # the item matrix of updates of user vectors (and its options: metric=, k=), held once
    items, conventions = item_matrix(metric, item_vectors, item_ids, k, conventions, func)
    if items is not None and candidates is not None:
        raise InvalidParameterError(
            f"{func}: candidates are not taken with item_vectors; use "
            f"receval.evaluate_embeddings(..., candidates=...) on the whole data."
        )
    # checked once, as evaluate checks them; every update's run is restricted to them
    c, sampling = check_sampling(candidates, correction, catalog_size, gamma, func)
    table = as_popularity_table(popularity, train, func)  # built once, used by every update
    # read once: each update's lists (or compute's, of rows held) lose their seen items
    seen = as_seen(exclude, repeats, func)
    # checked and resolved once, as evaluate does
    props = as_propensities(propensities, table, propensity_gamma, propensity_clip, func)
    conventions = default_estimator(conventions, props)
    spec, _ = metric_conventions(
        metric, popularity=table, item_categories=item_categories, func=func, **conventions
    )
    if props is not None:
        conventions = {**conventions, "propensities": props}
    if table is not None:
        conventions = {**conventions, "popularity": table}
    if item_categories is not None:
        conventions = {**conventions, "item_categories": item_categories}
    if seen is not None:
        conventions = {**conventions, "exclude": seen}
    if c is not None:
        conventions = {**conventions, "candidates": c, "sampling": sampling}
    params = {"metric": metric, "conventions": conventions, "kind": spec.info.mean,
              "whole_groups": whole_groups}  # fmt: skip
    # held when not the default: a state saved without the options loads as theirs
    matching = (check_match_options(min_match, allow_unmatched, func), bool(allow_unmatched))
    if matching != _MATCHING:
        params["matching"] = matching
    params = params if items is None else {**params, "items": items}
    # its checks (a weighted metric's, a metric a correction does not apply to) name
    # the function given the options, before any row
    _setup(params, func)
    return params


def _func(params: dict[str, Any]) -> str:
    """The accumulator, as its messages name it: ``receval.metric('ndcg@10')``."""
    return f"receval.metric({params['metric']!r})"


def _setup(params: dict[str, Any], func: str, with_qrels: bool = True) -> Setup:
    """The aggregation's setup of an accumulator's options (no per-user rows; with
    ``whole_groups``, a user given in two updates is refused), its checks naming
    ``func``; ``with_qrels=False``: an update of a run alone, for a list-wise metric."""
    conventions = dict(params["conventions"])
    table = conventions.pop("popularity", None)
    categories = conventions.pop("item_categories", None)
    props = conventions.pop("propensities", None)
    seen = conventions.pop("exclude", None)
    candidates, sampling = conventions.pop("candidates", None), conventions.pop("sampling", None)
    if "items" in params:  # the seen items were masked before the cut
        seen = None
    conventions.setdefault("profile", None)
    return make_setup(
        [params["metric"]], conventions, with_qrels=with_qrels,
        lists=(None, None, None, table, categories), weighting=(props, DEFAULT_GAMMA, None),
        candidates=candidates, sampling=sampling, rows=False, repeats=params["whole_groups"],
        exclude=seen, func=func,
    )  # fmt: skip


def _ranking_prepare(
    params: dict[str, Any], qrels: Any, run: Any, user_ids: Any = None, *, func: str
) -> Any:
    """(qrels, run, the counts of the batch's ``exclude`` pairs without a vector); the
    errors name ``func``."""
    items = params.get("items")
    if items is not None:  # run: a batch of user vectors (None: judgments only), retrieved
        if run is None:
            return qrels, {}, PairCounts()
        return (qrels, *items.run(run, user_ids, params["conventions"].get("exclude")))
    if user_ids is not None:
        raise InvalidParameterError(
            f"{func}: update takes user_ids only with user vectors; make the "
            f"accumulator with item_vectors= (the item matrix) to retrieve."
        )
    return qrels, run, PairCounts()


def _ranking_update(params: dict[str, Any], batch: Any, *, func: str) -> RankingState | OpenUsers:
    """The state of a batch's users, its errors naming ``func`` (``Accumulator.update
    of 'ndcg@10'``, ``receval.compute('ndcg@10')``)."""
    if not params["whole_groups"]:
        return _open_update(params, OpenUsers(), batch, func)
    qrels, run, unmatched = batch
    if qrels is None:
        state = update(_setup(params, func, with_qrels=False), None, as_run(run, func))
    else:
        # a batch without judgments: its run users are only in the run (counted, their
        # rows restricted to candidates=); one in which the model recommended nothing:
        # every qrels user of the batch is absent from the run (missing_users decides),
        # as in evaluate
        r = None if is_empty_run(run) else as_run(run, func)
        q = None if is_empty_run(qrels) else as_qrels(qrels, func)
        setup = _setup(params, func)
        if q is not None:
            check_qrels(setup, q)
        state = _no_user(params) if q is None and r is None else update(setup, q, r)
    state.exclude_unmatched = unmatched
    state.seen_as = _seen_as(params)
    return state


def _ranking_update_into(
    params: dict[str, Any], state: RankingState | OpenUsers, batch: Any, *, func: str
) -> OpenUsers | None:
    """The accumulator's own rows: the batch's join them (a state of whole users: None,
    the batch's own state is merged)."""
    return _open_update(params, state, batch, func) if isinstance(state, OpenUsers) else None


def _open_update(params: dict[str, Any], state: OpenUsers, batch: Any, func: str) -> OpenUsers:
    """Add a batch's rows to the rows held (read and checked first, then added; the
    errors naming ``func``)."""
    qrels, run, unmatched = batch
    if qrels is None:  # a list-wise metric of the run's users
        state.add(None, as_run(run, func), listwise=True)
    else:
        r = None if is_empty_run(run) else as_run(run, func)
        q = None
        if not is_empty_run(qrels):  # (empty: run rows judged in other updates)
            q = as_qrels(qrels, func)
            check_qrels(_setup(params, func), q)  # refused now, not at compute
        state.add(q, r)
    state.exclude_unmatched = state.exclude_unmatched.merge(unmatched)
    return state


def _ranking_empty(params: dict[str, Any]) -> RankingState | OpenUsers:
    if not params["whole_groups"]:
        return OpenUsers()
    return _no_user(params)


def _no_user(params: dict[str, Any]) -> RankingState:
    # the metric's mean, empty, and with candidates= their counts of no row: a loaded
    # state's are checked against them
    means = {params["metric"]: Mean(empty_mean_state(params["kind"]))}
    sampling = params["conventions"].get("sampling")
    return RankingState(means=means, seen_as=_seen_as(params),
                        sampling=None if sampling is None else replace(sampling))  # fmt: skip


def _seen_as(params: dict[str, Any]) -> tuple[str, str]:
    """A user in two states, as their errors name it: ``users`` and the arguments of
    ``update`` that give them, ``qrels and run``, or ``qrels and user_vectors`` where it
    retrieves from ``item_vectors``."""
    return "users", " and ".join(RANKING.arguments(params)[:2])


def _ranking_finalize(
    params: dict[str, Any], state: RankingState | OpenUsers, *, func: str
) -> float:
    """The metric's mean over the users of ``state``, its checks and warnings naming
    ``func`` (``receval.metric('ndcg@10')``, ``receval.compute('ndcg@10')``)."""
    unmatched = _unmatched(params, state)
    if unmatched is not None:
        unmatched.warn(func)
    if isinstance(state, OpenUsers):
        state = _evaluated(params, state, func)
    matching = params.get("matching", _MATCHING)
    setup = _setup(params, func)
    report = finalize(setup, state, matching=matching, catalogue=_catalogue(params))
    return report.mean[params["metric"]]


def _ranking_inputs(params: dict[str, Any]) -> tuple[str, ...] | None:
    """The data arguments of ``update``: the item matrix's, where the accumulator
    retrieves from ``item_vectors``; None (the row's ``qrels, run``) otherwise."""
    items = params.get("items")
    return None if items is None else tuple(items.inputs)


def _catalogue(params: dict[str, Any]) -> Any:
    """The item ids retrieved from, which the qrels' items are matched with in place
    of the lists' (as :func:`receval.evaluate_embeddings` does; a matrix loaded from
    a pickle or a checkpoint keeps them): None without ``item_vectors``."""
    items = params.get("items")
    return None if items is None else items.ids


def _unmatched(params: dict[str, Any], state: RankingState | OpenUsers) -> Unmatched | None:
    """With ``item_vectors`` and ``exclude``: its pairs whose user (given in no update)
    or item has no vector, which masked nothing; None otherwise."""
    seen = params["conventions"].get("exclude")
    if "items" not in params or seen is None:
        return None
    return Unmatched("exclude", state.exclude_unmatched.of_all(seen))


def _ranking_left_out(params: dict[str, Any], state: RankingState | OpenUsers) -> dict[str, int]:
    """``Accumulator.skipped()``: the counts of the reports of :func:`receval.evaluate`
    and ``evaluate_embeddings`` that concern this metric, by their names: the qrels
    users without a list in the run, or with ``item_vectors`` without a vector
    (``n_users_missing``); with ``propensity_clip``, for a weighted metric once qrels
    were given, the relevant pairs whose propensity the clip raised
    (``n_pairs_propensity_clipped``); with ``item_vectors`` and ``exclude``, the pairs
    of ``exclude`` that masked nothing; with ``candidates``, the counts of the report's
    ``sampling`` (``n_rows_dropped``, ``n_candidates_absent``,
    ``n_users_without_candidates``, ``n_rows_kept``)."""
    out = {}
    if isinstance(state, RankingState):
        clipped, missing = state.n_pairs_clipped.get(params["metric"]), state.n_users_missing
    else:  # the rows held, counted as their evaluation counts them (a user's qrels and
        # list may come in different updates): the users from the ids held, without
        # grouping the rows; the clipped pairs from the qrels joined
        clipped = None
        if "propensities" in params["conventions"]:
            func = _func(params)
            q = state.joined_qrels(func)
            if q is not None:
                setup = _setup(params, func)
                by_metric = clipped_pairs(q, {t: setup.convs[t] for t in setup.ranked},
                                          setup.propensities)  # fmt: skip
                clipped = by_metric.get(params["metric"])
        q_users, r_users = (held_ids(rows.user_ids()) for rows in (state.qrels, state.runs))
        missing = users_in_run(q_users, r_users)[1]
    if clipped is not None:
        out["n_pairs_propensity_clipped"] = clipped
    out["n_users_missing"] = missing
    unmatched = _unmatched(params, state)
    if unmatched is not None:
        out[unmatched.report_field] = unmatched.counts.n_unmatched
    return out | _sampling_counts(params, state)


def _sampling_counts(params: dict[str, Any], state: RankingState | OpenUsers) -> dict[str, int]:
    """With ``candidates``: the counts of their restriction of every run row given, as
    the report's ``sampling`` holds them (whole users: the state's; the rows held: those
    of their run, joined and restricted as ``compute`` restricts it); ``{}`` without."""
    conventions = params["conventions"]
    if "candidates" not in conventions:
        return {}
    if isinstance(state, RankingState):
        sampling = SamplingSummary() if state.sampling is None else state.sampling
    else:  # the joined run, without the items of exclude=, restricted
        sampling, r = SamplingSummary(), state.joined_run(_func(params))
        seen = conventions.get("exclude")
        if r is not None:
            sampling.add(restrict_run(r if seen is None else seen.mask(r).run,
                                      conventions["candidates"]))  # fmt: skip
    return {f.name: getattr(sampling, f.name) for f in fields(sampling) if f.name.startswith("n_")}


def _evaluated(params: dict[str, Any], state: OpenUsers, func: str) -> RankingState:
    """The aggregation's state of every row held, the updates joined (``func``: the
    caller its errors name)."""
    if state.n_listwise and state.qrels.n_users:
        raise InputValidationError(
            f"{func}: some updates give qrels and others none (qrels=None); give qrels "
            f"in every update or in none."
        )
    q, r = state.joined(func, vectors="items" in params)
    if q is None and (r is None or not state.n_listwise):  # no user: no judgment given
        return _no_user(params)
    if q is None:  # a list-wise metric of the run's users
        return update(_setup(params, func, with_qrels=False), None, r)
    setup = _setup(params, func)
    summed = {t: setup.specs[t] for t in setup.ranked if sums_table_gains(setup.specs[t])}
    if summed:  # a user's gains, given in several updates, are summed whole only here
        check_grades(q, summed, setup.convs, setup.profile, func)
    return update(setup, q, r)


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
        update_into=_ranking_update_into,
        left_out=_ranking_left_out,
        update_inputs=_ranking_inputs,
        splits_groups=True,
        checks_caller=True,
        takes_caller=True,
    )
)

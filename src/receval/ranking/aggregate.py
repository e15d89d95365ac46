"""The ranking definition: users aggregated once, for every backend.

A partition holds whole users: their qrels and their recommendations (all the users in
memory, a batch of a scanned run, a Spark partition, an accumulator's update).
:func:`update` turns one into a :class:`RankingState`: per metric the exact sums and counts
of its mean (:class:`~receval.engine.totals.MeanState`), the counts of users missing, empty,
skipped, only in the run and tie-dependent, the distinct items of the run and of the qrels,
a few ids for messages, and (when asked) the per-user rows. States merge exactly in any
order, and :func:`finalize` makes the :class:`~receval.ranking.report.EvaluationReport`: the
rules over all the users (``missing_users="error"``, ``empty_users="error"``, the share of
ids that match, the peers' unstable tie orders) are checked there, on the counts of every
partition.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

import numpy as np

from .. import _validation as v
from ..conventions import FIELDS, SKIP_REASONS, Conventions
from ..data._arrow import take_at
from ..data._lookup import distinct, lookup_ids
from ..data._ranked import Qrels, Run
from ..data._strings import ids_to_numpy
from ..data.seen import MaskingSummary, PairCounts, SeenItems, as_seen, smallest_ids
from ..engine.group_ids import Seen
from ..engine.totals import MeanState, empty_mean_state, mean_state
from ..exceptions import InputValidationError, InvalidParameterError
from ..registry import MetricSpec
from ..sampled import corrections
from ..sampled.negatives import SamplingSummary, restrict_run
from .checks import (
    check_candidates,
    check_exclusions,
    check_finite_values,
    check_matching,
    tie_averages,
    unstable_tie_users,
    warn_unreproducible_ties,
)
from .masking import masked_partition
from .report import ZERO_MEAN, EvaluationReport, no_value, partition_mean, skip_codes, skip_counts
from .specs import prepare_metrics
from .values import check_grades, list_values, ranked_values, users_given, users_in_run

__all__ = [
    "Ids",
    "Mean",
    "RankingState",
    "Setup",
    "UserRows",
    "check_qrels",
    "default_estimator",
    "evaluation_setup",
    "finalize",
    "make_setup",
    "update",
]


@dataclass(frozen=True)
class Setup:
    """What every partition computes, checked once before any row is read.

    ``lists``: the item similarities, popularity table and item categories of the
    list-wise metrics (features, feature_items, similarity, popularity,
    item_categories); ``sampling``: the correction of ``candidates=`` (no counts);
    ``rows``: keep the per-user rows; ``repeats``: refuse a user given twice
    (an accumulator's updates); ``exclude``: the seen items removed from each list
    before any metric (``exclude=``); ``repeat_consumption``: ``repeats=True`` was
    declared instead (nothing removed, the report says so); ``func``: the caller,
    which the messages of :func:`update` and :func:`finalize` name.
    """

    metrics: list[str]
    specs: dict[str, MetricSpec]
    convs: dict[str, Conventions]
    listwise: frozenset[str]
    with_qrels: bool
    func: str
    lists: tuple[Any, Any, Any, Any, Any] = (None, None, None, None, None)
    propensities: Any = None
    candidates: Any = None
    sampling: SamplingSummary | None = None
    profile: str | None = None
    rows: bool = True
    repeats: bool = False
    exclude: SeenItems | None = None
    repeat_consumption: bool = False

    @property
    def ranked(self) -> list[str]:
        """The metrics of the ranking kernel (that read the qrels), in order."""
        return [t for t in self.specs if t not in self.listwise]

    def kind(self, text: str) -> str:
        """How the users' values of a metric combine (a list-wise metric: the mean)."""
        return "users" if text in self.listwise else self.specs[text].info.mean


def make_setup(
    metrics: Any,
    conventions: dict[str, Any],
    *,
    with_qrels: bool,
    lists: tuple[Any, Any, Any, Any, Any] = (None, None, None, None, None),
    weighting: tuple[Any, float, float | None] = (None, 0.0, None),
    candidates: Any = None,
    sampling: SamplingSummary | None = None,
    rows: bool = True,
    repeats: bool = False,
    exclude: SeenItems | None = None,
    repeat_consumption: bool = False,
    func: str,
) -> Setup:
    """Parse the metric strings, resolve their conventions and the propensities.

    ``conventions``: the convention keywords of :func:`receval.evaluate` (``profile``
    included); ``lists``: as :attr:`Setup.lists`, the popularity as a table;
    ``weighting``: (propensities, propensity_gamma, propensity_clip); ``exclude``,
    ``repeat_consumption``: as :attr:`Setup.exclude` and :attr:`Setup.repeat_consumption`;
    ``func``: the caller, which the errors name (and the setup's, :attr:`Setup.func`).
    """
    from ..metrics._propensity import as_propensities, prepare_weighting

    features, _, similarity, table, item_categories = lists
    names, specs, convs, listwise = prepare_metrics(
        metrics, features, similarity, conventions, table, item_categories, func
    )
    props = as_propensities(weighting[0], table, weighting[1], weighting[2], func)
    specs = prepare_weighting(specs, convs, listwise, props, func)
    if sampling is not None and sampling.correction is not None:
        ranked = [t for t in specs if t not in listwise]
        corrections.check_correctable(ranked, specs, convs, func)
    if not with_qrels and len(listwise) < len(specs):
        first = next(t for t in specs if t not in listwise)
        raise InvalidParameterError(
            f"{func}: metric {first!r} needs relevance judgments; pass qrels "
            f"(qrels=None is only for beyond-accuracy metrics such as 'ils@10')."
        )
    return Setup(
        names, specs, convs, frozenset(listwise), with_qrels, func, lists, props, candidates,
        sampling, conventions.get("profile"), rows, repeats, exclude, repeat_consumption,
    )  # fmt: skip


def default_estimator(conventions: dict[str, Any], propensities: Any) -> dict[str, Any]:
    """The convention keywords, ``estimator`` "ips" when propensities are given and it
    is not."""
    if propensities is not None and conventions.get("estimator") is None:
        return {**conventions, "estimator": "ips"}
    return conventions


def evaluation_setup(
    metrics: Any, options: dict[str, Any], func: str, *, popularity: Any, rows: bool = True
) -> Setup:
    """The setup of :func:`receval.evaluate`'s keyword options, for the run in memory,
    a scanned run and Spark alike: ``options`` maps every keyword of ``evaluate`` (the
    ``qrels`` too, whose None says a run alone) to its value; ``popularity``: the
    popularity table of ``popularity=`` / ``train=``; ``options["exclude"]`` may be
    a :class:`~receval.SeenItems` made already (Spark's of a DataFrame: None here)."""
    conventions = default_estimator(
        {name: options[name] for name in ("profile", *FIELDS)}, options["propensities"]
    )
    c, sampling = corrections.check_sampling(
        options["candidates"], options["correction"], options["catalog_size"], options["gamma"],
        func,
    )  # fmt: skip
    exclude = as_seen(options["exclude"], options["repeats"], func)
    return make_setup(
        metrics, conventions, with_qrels=options["qrels"] is not None,
        lists=(options["features"], options["feature_items"], options["similarity"], popularity,
               options["item_categories"]),
        weighting=(options["propensities"], options["propensity_gamma"],
                   options["propensity_clip"]),
        candidates=c, sampling=sampling, rows=rows, exclude=exclude,
        repeat_consumption=bool(options["repeats"]), func=func,
    )  # fmt: skip


# ------------------------------------------------------------------ the state
@dataclass(frozen=True)
class Mean:
    """A metric's mean over some users, mergeable: the exact sums of the users it
    counts, and the users with a value before ``zero_users="skip"`` left the zeros out."""

    state: MeanState
    valued: int = 0

    def merge(self, other: Mean) -> Mean:
        return Mean(self.state.merge(other.state), self.valued + other.valued)


@dataclass
class Ids:
    """Distinct ids, merged by union: each part holds distinct ids (as a container
    encoded them: NumPy, or string ids as an Arrow array); parts are folded into one
    when they pile up."""

    parts: list[Any] = field(default_factory=list)

    def merge(self, other: Ids) -> Ids:
        out = Ids([*self.parts, *other.parts])
        if len(out.parts) > 16:
            out.parts = [out.distinct()]
        return out

    def distinct(self) -> Any:
        """The distinct ids of every part (one part as it is; several as NumPy)."""
        if len(self.parts) == 1:
            return self.parts[0]
        texts = _distinct_texts(self.parts)
        if texts is not None:
            return texts
        parts = [ids_to_numpy(p) for p in self.parts]
        if not parts:
            return np.empty(0, dtype=np.int64)
        if any(all(p.dtype.kind in kinds for p in parts) for kinds in ("iu", "US", "f")):
            return distinct(*parts)  # integers, strings, or floats: not mixed
        return np.asarray(list(dict.fromkeys(x for p in parts for x in p.tolist())), dtype=object)


def _distinct_texts(parts: list[Any]) -> Any:
    """The distinct ids of parts that are all Arrow string arrays, by the core over
    their buffers (an Arrow array, in order of first appearance; ids that were coded
    as integers, by their integers, ascending); None otherwise."""
    import pyarrow as pa

    from ..data._string_buffers import (
        factorize_strings,
        integers_as_texts,
        is_arrow_string,
        written_integers,
    )

    if not parts or not all(isinstance(p, pa.Array) and is_arrow_string(p.type) for p in parts):
        return None
    ints = [written_integers(p) for p in parts]
    if all(i is not None for i in ints):
        return integers_as_texts(distinct(*ints))
    kinds = {p.type for p in parts}
    same = parts if len(kinds) == 1 else [p.cast(pa.large_string()) for p in parts]
    found = factorize_strings(pa.chunked_array(same, same[0].type))
    return None if found is None else found[1]


@dataclass
class UserRows:
    """The per-user rows of one partition, aligned with ``users`` (the ids as the
    container encoded them: NumPy, or string ids as an Arrow array); ``order``: their
    positions in the qrels when a backend cut them (None: in order already)."""

    users: Any
    order: np.ndarray | None
    values: dict[str, np.ndarray]
    aux: dict[str, np.ndarray] = field(default_factory=dict)
    raw: dict[str, np.ndarray] = field(default_factory=dict)
    averaged: dict[str, np.ndarray] = field(default_factory=dict)
    missing: np.ndarray | None = None
    removed: np.ndarray | None = None
    skipped: dict[str, np.ndarray] = field(default_factory=dict)


def _add(a: dict[Any, Any], b: dict[Any, Any]) -> dict[Any, Any]:
    """Two dicts of counts or mergeable states, added key by key."""
    out = dict(a)
    for key, x in b.items():
        held = out.get(key)  # (a count or a state: never None)
        out[key] = x if held is None else held + x if isinstance(x, int) else held.merge(x)
    return out


def _smallest(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """A few ids of each kind, for messages: the smallest of ``a``'s and ``b``'s (the
    same for any split of the users, merged in any order)."""
    out = dict(a)
    for key, ids in b.items():
        held = out.get(key)
        same = held is None or held.dtype == ids.dtype
        both = [ids] if held is None else [held, ids] if same else [held.astype(object), ids]
        out[key] = _examples(np.concatenate(both))
    return out


def _examples(ids: Any, at: Any = slice(None)) -> np.ndarray:
    """The smallest of ``ids`` (NumPy or Arrow) at positions ``at`` (a slice or indices),
    by :func:`~receval.data.seen.smallest_ids`: the ids a message shows, as NumPy (of
    their type where numbers, else objects)."""
    ids = take_at(ids, at)
    numbers = isinstance(ids, np.ndarray) and ids.dtype.kind in "iufb"
    return np.array(smallest_ids(ids), dtype=ids.dtype if numbers else object)


@dataclass
class RankingState:
    """One partition's share of an evaluation (or several merged): see the module.

    ``ties_means``: per metric compared with its ``ties="average"`` values, the mean with the
    tie-dependent users at those values; ``matched``: the run items the qrels judge, when known
    without the union of the item sets (one partition); ``n_tied``: users with ties the
    profile's peer orders by no rule; ``n_users_not_averaged``: per metric, tie-dependent users
    whose ``ties="average"`` value was not computed (over the cost budget: the mean with theirs
    is nan); ``masking``: the counts of ``exclude=`` (zero without it); ``exclude_unmatched``:
    in a retrieval from embeddings, the pairs of its users' ``exclude`` without a vector
    (:func:`receval.retrieval.masks.unmatched_pairs`); ``n_pairs_clipped``: per weighted metric,
    the relevant pairs whose propensity ``propensity_clip`` raised; ``conditions``: per corrected
    metric, its worst least-squares problem (:func:`finalize` warns of it once).
    """

    n_users: int = 0
    n_users_missing: int = 0
    n_run_only_users: int = 0
    means: dict[str, Mean] = field(default_factory=dict)
    ties_means: dict[str, Mean] = field(default_factory=dict)
    n_users_empty: dict[str, int] = field(default_factory=dict)
    n_users_skipped_by: dict[tuple[str, str], int] = field(default_factory=dict)
    n_users_tie_dependent: dict[str, int] = field(default_factory=dict)
    n_users_not_averaged: dict[str, int] = field(default_factory=dict)
    run_items: Ids = field(default_factory=Ids)
    qrels_items: Ids = field(default_factory=Ids)
    matched: int = 0
    matched_known: bool = True
    n_tied: int = 0
    examples: dict[str, np.ndarray] = field(default_factory=dict)
    sampling: SamplingSummary | None = None
    rows: list[UserRows] = field(default_factory=list)
    seen: Seen = field(default_factory=Seen)
    masking: MaskingSummary = field(default_factory=MaskingSummary)
    exclude_unmatched: PairCounts = field(default_factory=PairCounts)
    n_pairs_clipped: dict[str, int] = field(default_factory=dict)
    conditions: corrections.Conditions = ()  # of the class: states saved without it load
    seen_as: tuple[str, str] = ("users", "qrels and run")  # a user in both states, as named
    takes_caller: ClassVar[bool] = True  # merge's func: the caller a user in both names

    def merge(self, other: RankingState, func: str) -> RankingState:
        """The state of both partitions' users (a user in both raises, naming ``func``)."""
        sampling = self.sampling
        if other.sampling is not None:
            sampling = other.sampling if sampling is None else sampling.merge(other.sampling)
        # the matched count of one partition stays known until another brings items
        if not other._has_items():
            matched, known = self.matched, self.matched_known
        elif not self._has_items():
            matched, known = other.matched, other.matched_known
        else:
            matched, known = 0, False
        return RankingState(
            n_users=self.n_users + other.n_users,
            n_users_missing=self.n_users_missing + other.n_users_missing,
            n_run_only_users=self.n_run_only_users + other.n_run_only_users,
            means=_add(self.means, other.means),
            ties_means=_add(self.ties_means, other.ties_means),
            n_users_empty=_add(self.n_users_empty, other.n_users_empty),
            n_users_skipped_by=_add(self.n_users_skipped_by, other.n_users_skipped_by),
            n_users_tie_dependent=_add(self.n_users_tie_dependent, other.n_users_tie_dependent),
            n_users_not_averaged=_add(self.n_users_not_averaged, other.n_users_not_averaged),
            run_items=self.run_items.merge(other.run_items),
            qrels_items=self.qrels_items.merge(other.qrels_items),
            matched=matched,
            matched_known=known,
            n_tied=self.n_tied + other.n_tied,
            examples=_smallest(self.examples, other.examples),
            sampling=sampling,
            rows=[*self.rows, *other.rows],
            seen=self.seen.merge(other.seen, func, *self.seen_as),
            masking=self.masking.merge(other.masking),
            exclude_unmatched=self.exclude_unmatched.merge(other.exclude_unmatched),
            n_pairs_clipped=_add(self.n_pairs_clipped, other.n_pairs_clipped),
            conditions=corrections.worst_conditions(self.conditions, other.conditions),
            seen_as=self.seen_as,
        )

    def check_disjoint(self, other: RankingState, func: str) -> None:  # merge's check only
        self.seen.check_disjoint(other.seen, func, *self.seen_as)

    def _has_items(self) -> bool:
        return bool(self.run_items.parts or self.qrels_items.parts)

    def n_items(self, catalogue: Any = None) -> tuple[int, int, int]:
        """(run items judged in the qrels, run items, qrels items), ``catalogue``'s as the run's."""
        run = self.run_items.distinct() if catalogue is None else catalogue
        judged, matched = self.qrels_items.distinct(), self.matched
        if not self.matched_known or catalogue is not None:
            matched = int(np.count_nonzero(lookup_ids(judged, run) >= 0)) if len(run) else 0
        return matched, len(run), len(judged)


# ------------------------------------------------------------------ update
def check_qrels(setup: Setup, q: Qrels) -> None:
    """Raise before any user is evaluated when a relevant item of ``q`` lacks the propensity
    a weighted metric needs or a grade is one a ranked metric refuses (the sources check
    whole qrels: in memory and out of core; Spark a partition's, an accumulator a batch's)."""
    from ..metrics._propensity import check_propensities

    check_propensities(q, {t: setup.convs[t] for t in setup.ranked}, setup.propensities, setup.func)
    check_grades(
        q, {t: setup.specs[t] for t in setup.ranked}, setup.convs, setup.profile, setup.func
    )


def update(
    setup: Setup, qrels: Qrels | None, run: Run | None, order: np.ndarray | None = None
) -> RankingState:
    """The state of one partition of whole users.

    ``qrels``: the judgments of its users (None: none of its users is in the qrels,
    or ``qrels=None`` for list-wise metrics); ``run``: their recommendations (None:
    none of its qrels users is in the run); ``order``: the positions of its qrels
    users in all the qrels, when a backend cut them (the report's rows follow it).
    """
    given = run  # every run user of the partition, before exclude= or candidates= drop rows
    masking, removed = masked_partition(setup.exclude, qrels if setup.with_qrels else None, run)
    if masking is not None and run is not None:
        run = masking.run
    sampling, sampling_items = None, None
    if run is not None and setup.candidates is not None:
        sampling = replace(setup.sampling) if setup.sampling is not None else SamplingSummary()
        restriction = restrict_run(run, setup.candidates)
        sampling.add(restriction)
        if not restriction.n_rows_kept:  # a few of its items, should no batch keep a row
            sampling_items = _examples(run.encoded_ids("items"))
        run = restriction.run
    if qrels is not None and setup.with_qrels:
        state = _users_update(setup, qrels, run, order, removed)
    elif run is None:  # pragma: no cover - a partition holds qrels users or run users
        state = RankingState()
    elif setup.with_qrels:
        state = _run_only(setup, run)
    else:
        state = _lists_update(setup, run)
        if removed is not None and state.rows:
            state.rows[0].removed = removed
    state.sampling = sampling
    if sampling_items is not None:
        state.examples["sampling_items"] = sampling_items
    if masking is not None:
        state.masking = masking.summary
    if setup.repeats:
        for users in users_given(qrels if setup.with_qrels else None, given):
            state.seen.add(users, setup.func, state.seen_as[0])
    return state


def _lists_update(setup: Setup, r: Run) -> RankingState:
    """``qrels=None``: the list-wise metrics of the run's users."""
    of_run = list_values(r, set(setup.listwise), setup.specs, *setup.lists)
    state = RankingState(n_users=r.n_users)
    rows = UserRows(r.encoded_ids("users"), None, of_run)
    for text, col in of_run.items():
        _store_list(state, rows, text, col)
    state.rows = [rows] if setup.rows else []
    return state


def _store_list(state: RankingState, rows: UserRows, text: str, col: np.ndarray) -> None:
    state.means[text] = Mean(mean_state(col))
    state.n_users_empty[text] = 0  # relevance plays no part
    rows.skipped[text] = codes = skip_codes(col)  # no rule: users without a value
    state.n_users_skipped_by |= {(text, r): n for r, n in skip_counts(codes).items()}


def _run_facts(setup: Setup, state: RankingState, r: Run) -> None:
    """What a partition's run shows beside the values: its items, a few ids, and the
    users whose ties the profile's peer orders by no rule."""
    state.examples["run_users"] = _examples(r.encoded_ids("users"))
    ranked = setup.ranked
    if ranked:
        state.run_items = Ids([r.encoded_ids("items")])
        state.examples["run_items"] = _examples(r.encoded_ids("items"))
    tied = unstable_tie_users(setup.profile, r, [setup.specs[t] for t in ranked])
    state.n_tied = len(tied)
    if len(tied):
        state.examples["tied"] = _examples(r.encoded_ids("users"), tied)


def _run_only(setup: Setup, r: Run) -> RankingState:
    """A partition of run users none of whom is in the qrels."""
    state = RankingState(n_run_only_users=r.n_users)
    _run_facts(setup, state, r)
    return state


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


def _users_update(
    setup: Setup,
    q: Qrels,
    run: Run | None,
    order: np.ndarray | None,
    removed: np.ndarray | None = None,
) -> RankingState:
    """A partition of qrels users (``run``: their recommendations, and those of run
    users absent from the qrels; None: every qrels user is absent from the run;
    ``removed``: the seen rows ``exclude=`` removed from each run user's list)."""
    from ..metrics._propensity import clipped_pairs

    specs, convs, ranked = setup.specs, setup.convs, setup.ranked
    r = _placeholder_run(q) if run is None else run
    run_users = None if run is None else run.encoded_ids("users")
    user_map, n_missing = users_in_run(q.encoded_ids("users"), run_users)
    found = user_map >= 0
    state = RankingState(n_users=q.n_users, n_users_missing=n_missing)
    state.examples["qrels_users"] = _examples(q.encoded_ids("users"))
    if n_missing:
        state.examples["missing"] = _examples(q.encoded_ids("users"), np.flatnonzero(~found))
    item_map = None
    if run is not None:
        state.n_run_only_users = r.n_users - (q.n_users - n_missing)
        _run_facts(setup, state, r)
        if ranked:
            item_map = q.positions_in(r, "items")
            state.matched = int(np.count_nonzero(item_map >= 0))
    if ranked:
        state.qrels_items = Ids([q.encoded_ids("items")])
        state.examples["qrels_items"] = _examples(q.encoded_ids("items"))
    values = aux = zeroed = np.empty((q.n_users, 0))
    ties = None
    if ranked:
        values, aux, zeroed = ranked_values(q, r, specs, convs, ranked, user_map,
                                            setup.propensities, item_map, setup.func)  # fmt: skip
        state.n_pairs_clipped = clipped_pairs(q, {t: convs[t] for t in ranked}, setup.propensities)
        c, sampled = setup.candidates, setup.sampling
        if c is not None and sampled is not None and sampled.catalog_size and sampled.correction:
            state.conditions = corrections.correct_columns(
                q, r, user_map, c, ranked, specs, convs, values, setup.func,
                (sampled.correction, sampled.catalog_size, sampled.gamma))  # fmt: skip
        else:
            ties = tie_averages(q, r, specs, convs, ranked, user_map, item_map)
    per_user: dict[str, np.ndarray] = {}
    rows = UserRows(q.encoded_ids("users"), order, per_user, missing=~found)
    if setup.listwise:
        if run is None:
            of_run = {t: np.full(q.n_users, np.nan) for t in specs if t in setup.listwise}
        else:
            of_run = list_values(r, set(setup.listwise), specs, *setup.lists)
        for text, col in of_run.items():
            if run is not None:
                col = np.where(found, col[np.maximum(user_map, 0)], np.nan)
            per_user[text] = col
            _store_list(state, rows, text, col)
    if setup.exclude is not None:
        rows.removed = np.zeros(q.n_users, dtype=np.int64)
        if removed is not None:
            rows.removed[found] = removed[user_map[found]]
    _ranked_means(setup, state, q, (values, aux, zeroed), rows)
    if ties is not None:
        _tie_means(setup, state, ties, rows)
    if setup.rows:
        state.rows = [rows]
    return state


def _ranked_means(
    setup: Setup,
    state: RankingState,
    q: Qrels,
    columns: tuple[np.ndarray, np.ndarray, np.ndarray],
    rows: UserRows,
) -> None:
    """Each ranked metric's mean, counts and reported values from the columns of
    :func:`~receval.ranking.values.ranked_values` (values, relevant items, zeroed)."""
    # a metric's column contiguous: every pass below reads one column
    values, aux, zeroed = (np.asfortranarray(c) for c in columns)
    for j, text in enumerate(setup.ranked):
        col, den, conv = values[:, j], aux[:, j], setup.convs[text]
        empty = den == 0
        n_empty = int(np.count_nonzero(empty))
        if n_empty and conv.empty_users == "error":
            state.examples[f"empty:{text}"] = _examples(
                q.encoded_ids("users"), np.flatnonzero(empty)
            )
        check_finite_values(text, setup.specs[text], conv, col, q, setup.func)
        rows.raw[text] = col
        mean, rows.values[text], valued = partition_mean(col, den, setup.kind(text), conv)
        state.means[text] = Mean(mean, valued)
        rows.aux[text] = den
        state.n_users_empty[text] = n_empty
        ranked = (col, zeroed[:, j], den, rows.missing)
        rows.skipped[text] = codes = skip_codes(rows.values[text], conv, ranked)
        state.n_users_skipped_by |= {(text, r): n for r, n in skip_counts(codes).items()}


def _tie_means(
    setup: Setup,
    state: RankingState,
    ties: tuple[np.ndarray, dict[str, np.ndarray], dict[str, np.ndarray]],
    rows: UserRows,
) -> None:
    """Per ranked metric computed under another tie order: the users whose value
    differs from its ``ties="average"`` value, and the mean with theirs put in (a
    metric averaged over tie orders depends on none). A user whose averaged value
    was not computed (``inf``) counts as dependent, and leaves that mean nan."""
    for text in setup.ranked:
        if setup.convs[text].ties == "average":
            state.n_users_tie_dependent[text] = 0
    users, columns, own = ties
    for text, avg in columns.items():
        col = rows.raw[text]
        if text in own:
            avg = np.where(own[text], col[users], avg)
        skipped = np.isinf(avg)
        moved = skipped | ~_close(col[users], avg)
        n_moved = int(np.count_nonzero(moved))
        state.n_users_tie_dependent[text] = n_moved
        state.n_users_not_averaged[text] = int(np.count_nonzero(skipped))
        if not n_moved:
            state.ties_means[text] = state.means[text]
            continue
        full = col.copy()
        full[users] = np.where(skipped, np.nan, avg)
        rows.averaged[text] = full
        mean, _, valued = partition_mean(full, rows.aux[text], setup.kind(text), setup.convs[text])
        state.ties_means[text] = Mean(mean, valued)


def _close(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``np.isclose(a, b, rtol=1e-12, atol=1e-12, equal_nan=True)``, without its
    fixed cost (a tenth of a small call of evaluate)."""
    with np.errstate(invalid="ignore", over="ignore"):  # an infinity: close to itself only
        near = (np.abs(a - b) <= 1e-12 + 1e-12 * np.abs(b)) & np.isfinite(a) & np.isfinite(b)
    close: np.ndarray = near | (a == b) | (np.isnan(a) & np.isnan(b))
    return close


# ------------------------------------------------------------------ finalize
def finalize(
    setup: Setup,
    state: RankingState,
    *,
    run_name: str | None = None,
    matching: tuple[float, bool] | None = None,
    catalogue: Any = None,
) -> EvaluationReport:
    """The report of every user the state holds: the rules over all of them checked,
    the means of the merged sums.

    ``matching``: (min_match, allow_unmatched) to check the share of ids that match
    (None: not checked); ``catalogue``: the item ids the run was retrieved from, matched
    with the qrels' items in place of the run's (:func:`receval.evaluate_embeddings`).
    """
    specs, convs, ranked, metrics = setup.specs, setup.convs, setup.ranked, setup.metrics
    ex = state.examples
    none = np.empty(0, dtype=np.int64)
    if state.n_tied and setup.profile is not None:
        warn_unreproducible_ties(
            setup.func, setup.profile, state.n_tied, ex.get("tied", none),
            [specs[t] for t in ranked], [convs[t] for t in ranked],
        )  # fmt: skip
    items = state.n_items() if setup.with_qrels and ranked else (0, 0, 0)
    n_run_users = state.n_users - state.n_users_missing + state.n_run_only_users
    if setup.with_qrels:
        missing = state.n_users_missing
        if missing and any(c.missing_users == "error" for c in convs.values()):
            raise InputValidationError(
                f"{setup.func}: {v.counted(missing, 'qrels user')} {v.verb(missing, 'is')} absent "
                f"from the run, e.g. {v.format_values(ex.get('missing', none))}; pass "
                f"missing_users='zero' or 'skip' to score them 0 or leave them out."
            )
        if matching is not None:
            shown = tuple(ex.get(k, none) for k in ("qrels_users", "run_users", "qrels_items"))
            shown += (ex.get("run_items", none) if catalogue is None else _examples(catalogue),)
            checked = items if catalogue is None else state.n_items(catalogue)
            check_matching(
                shown, state.n_users, state.n_users - state.n_users_missing,  # type: ignore[arg-type]
                checked if ranked else None, *matching, setup.func, catalogue=catalogue is not None,
            )  # fmt: skip
            if state.sampling is not None:
                shown = (ex.get("sampling_items", none), _examples(setup.candidates.item_ids))
                check_candidates(setup.func, state.sampling, n_run_users, shown, matching[1])
        for text in ranked:
            n_empty = state.n_users_empty.get(text, 0)
            if n_empty and convs[text].empty_users == "error":
                raise InputValidationError(
                    f"{setup.func}: metric {text!r} has empty_users='error', and "
                    f"{v.counted(n_empty, 'user')} {v.verb(n_empty, 'has')} no relevant item, "
                    f"e.g. {v.format_values(ex.get(f'empty:{text}', none))}; pass "
                    f"empty_users='skip', 'zero' or 'one' to leave them out or score them."
                )
    if setup.exclude is not None:
        both = state.run_items.merge(state.qrels_items)  # gathered with ranked metrics
        check_exclusions(setup.func, setup.exclude, state.masking, n_run_users,
                         both.distinct() if both.parts else None,
                         (ex.get("run_users", none), ex.get("run_items", none)))  # fmt: skip
    corrections.warn_unstable(setup.func, setup.sampling, state.conditions)
    states = {t: _final_state(setup, t, state.means.get(t), state.n_users) for t in metrics}
    dependent = state.n_users_tie_dependent
    mean_average = {
        t: float("nan")
        if state.n_users_not_averaged.get(t)
        else _final_state(setup, t, state.ties_means[t], state.n_users).value
        for t in metrics
        if dependent.get(t)
    }
    rows = _joined(state.rows, [t for t in metrics if dependent.get(t)]) if setup.rows else None
    by = {t: {r: state.n_users_skipped_by.get((t, r), 0) for r in SKIP_REASONS} for t in metrics}
    return EvaluationReport(
        mean={t: states[t].value for t in metrics},
        _user_ids=rows.users if rows is not None else np.empty(0, dtype=object),
        values={t: rows.values[t] for t in metrics} if rows is not None else {},
        metrics={t: str(specs[t]) for t in metrics},
        conventions={t: convs[t] for t in metrics},
        n_users=state.n_users,
        n_users_missing=state.n_users_missing,
        n_users_empty={t: state.n_users_empty.get(t, 0) for t in metrics},
        n_users_skipped_by=by,
        n_run_only_users=state.n_run_only_users,
        run_name=run_name,
        n_run_items=items[1],
        n_run_items_unmatched=items[1] - items[0],
        n_users_tie_dependent={t: dependent[t] for t in metrics if t in dependent},
        mean_ties_average=mean_average,
        n_pairs_propensity_clipped=dict(state.n_pairs_clipped),
        sampling=state.sampling,
        masking=_masking(setup, state),
        n_seen_removed=rows.removed if rows is not None else None,
        _aux=rows.aux if rows is not None else {},
        _states=states,
        _raw=rows.raw if rows is not None else {},
        _missing=rows.missing if rows is not None else None,
        _averaged=rows.averaged if rows is not None else {},
        _rows=setup.rows,
        _skipped=rows.skipped if rows is not None else {},
    )


def _masking(setup: Setup, state: RankingState) -> MaskingSummary | None:
    """The report's masking: the counts of ``exclude=``, ``repeats=True``'s
    declaration, or None (neither given)."""
    if setup.repeat_consumption:
        return MaskingSummary(repeats=True)
    return state.masking if setup.exclude is not None else None


def _final_state(setup: Setup, text: str, mean: Mean | None, n_users: int) -> MeanState:
    """A metric's mean state over every user (``zero_users="skip"`` without a user
    of value: the mean 0.0)."""
    kind = setup.kind(text)
    if mean is None:
        return empty_mean_state(kind)
    if n_users and text not in setup.listwise and no_value(kind, setup.convs[text], mean.valued):
        return ZERO_MEAN
    return mean.state


def _joined(parts: list[UserRows], averaged: list[str]) -> UserRows:
    """The rows of every partition as one, in the qrels' order (``averaged``: the
    metrics with tie-dependent users, whose ``ties="average"`` columns are kept)."""
    if len(parts) == 1 and parts[0].order is None:
        one = parts[0]
        return replace(one, averaged={t: one.averaged[t] for t in averaged})
    if not parts:
        return UserRows(np.empty(0, dtype=object), None, {})
    orders = [p.order for p in parts]
    perm = None
    if all(o is not None for o in orders):
        perm = np.argsort(np.concatenate(orders), kind="stable")  # type: ignore[arg-type]

    def cat(arrays: list[np.ndarray]) -> np.ndarray:
        out = np.concatenate(arrays) if arrays else np.empty(0)
        return out if perm is None else out[perm]

    users = [ids_to_numpy(p.users) for p in parts]
    if not all(u.dtype.kind in "iu" for u in users):
        users = [np.asarray(u, dtype=object) for u in users]
    missing = [p.missing for p in parts if p.missing is not None]
    removed = [p.removed for p in parts if p.removed is not None]
    return UserRows(
        users=cat(users),
        order=None,
        values={t: cat([p.values[t] for p in parts]) for t in parts[0].values},
        aux={t: cat([p.aux[t] for p in parts]) for t in parts[0].aux},
        raw={t: cat([p.raw[t] for p in parts]) for t in parts[0].raw},
        averaged={t: cat([p.averaged.get(t, p.raw[t]) for p in parts]) for t in averaged},
        missing=cat(missing) if len(missing) == len(parts) else None,
        removed=cat(removed) if removed and len(removed) == len(parts) else None,
        skipped={t: cat([p.skipped[t] for p in parts]) for t in parts[0].skipped},
    )

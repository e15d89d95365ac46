"""The popularity metrics over the whole run as engine definitions: mergeable states.

``receval.metric("pop_rsp", train=log, k=10)`` and the others take batches of
whole users (``update(run)``, PopREO ``update(qrels, run)``) and merge across
workers; ``compute()`` equals the function on all the users. PopREO and PopRSP
keep their four pooled counts; Shannon entropy, distributional coverage and
item coverage the exposure of each item id (and, for item coverage, the ids of
every recommended item). As the functions refuse a run of user or item ids of
two types (the int 1 and the str "1": one item, or two?), each state holds the
type of its ids (:class:`~receval.engine.kinds.IdKind`) and refuses an update
or a merged accumulator of the other type.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

import numpy as np

from ...data._ranked import as_qrels
from ...engine.group_ids import Seen
from ...engine.kinds import MERGED, NO_IDS, UPDATE, IdKind
from ...engine.metric import MetricDefinition, register
from ...exceptions import InvalidParameterError, warn
from .lists import as_run, check_k, is_empty_run, item_exposure
from .popularity import (
    DEPRECATED_ITEM_COVERAGE,
    entropy_of,
    exposure_shares,
    parity_params,
    relative_spread,
    reo_counts,
    rsp_counts,
)
from .popularity_table import DEFAULT_HEAD_SHARE, as_popularity

__all__: list[str] = []


#: what the refusal of ids of another type names
_USERS, _ITEMS = "run: users", "run: items"


@dataclass
class CountsState:
    """PopREO's or PopRSP's four pooled counts, the users seen and their ids' type."""

    counts: np.ndarray = field(default_factory=lambda: np.zeros(4, dtype=np.int64))
    seen: Seen = field(default_factory=Seen)
    users_kind: IdKind = NO_IDS

    #: ``merge`` takes the caller, which a user in both names
    takes_caller: ClassVar[bool] = True
    #: an id in both states of ``merge`` or ``check_disjoint``, as the error names it:
    #: what it is and the argument it came in
    seen_as: ClassVar[tuple[str, str]] = ("users", "run")

    def check_disjoint(self, other: CountsState, func: str) -> None:
        """Raise, as :meth:`merge`, if a user is in both states (naming ``func``)."""
        self.seen.check_disjoint(other.seen, func, *self.seen_as)

    def merge(self, other: CountsState, func: str) -> CountsState:
        kind = self.users_kind.join(_named(other.users_kind, func), MERGED)
        seen = self.seen.merge(other.seen, func, *self.seen_as)
        return CountsState(self.counts + other.counts, seen, kind)

    def absorb(self, other: CountsState, func: str) -> CountsState:
        """This state (changed in place) with a batch's: as :meth:`merge`, a batch of
        ids of another type refused as this update's."""
        kind = self.users_kind.join(_named(other.users_kind, func), UPDATE)
        self.seen.absorb(other.seen, func, *self.seen_as)
        self.counts, self.users_kind = self.counts + other.counts, kind
        return self


@dataclass
class ExposureState:
    """Exposure (top-k lists holding it) of each item id, every recommended id, users
    seen, and the type of the user and item ids."""

    counts: dict[Any, int] = field(default_factory=dict)
    items: set[Any] = field(default_factory=set)
    seen: Seen = field(default_factory=Seen)
    users_kind: IdKind = NO_IDS
    items_kind: IdKind = NO_IDS

    #: ``merge`` takes the caller, which a user in both names
    takes_caller: ClassVar[bool] = True
    #: an id in both states of ``merge`` or ``check_disjoint``, as the error names it:
    #: what it is and the argument it came in
    seen_as: ClassVar[tuple[str, str]] = ("users", "run")

    def check_disjoint(self, other: ExposureState, func: str) -> None:
        """Raise, as :meth:`merge`, if a user is in both states (naming ``func``)."""
        self.seen.check_disjoint(other.seen, func, *self.seen_as)

    def merge(self, other: ExposureState, func: str) -> ExposureState:
        copied = ExposureState(dict(self.counts), set(self.items), self.seen.copy(),
                               self.users_kind, self.items_kind)  # fmt: skip
        return copied._join(other, func, MERGED)

    def absorb(self, other: ExposureState, func: str) -> ExposureState:
        """This state (changed in place) with a batch's: as :meth:`merge`, a batch of
        ids of another type refused as this update's."""
        return self._join(other, func, UPDATE)

    def _join(self, other: ExposureState, func: str, where: str) -> ExposureState:
        """``other`` added in place; ids of another type (``where``: of this update or of
        the accumulator merged) or a user in both refused before anything is added."""
        users = self.users_kind.join(_named(other.users_kind, func), where)
        items = self.items_kind.join(_named(other.items_kind, func), where)
        self.seen.absorb(other.seen, func, *self.seen_as)
        for item, c in other.counts.items():
            self.counts[item] = self.counts.get(item, 0) + c
        self.items |= other.items
        self.users_kind, self.items_kind = users, items
        return self


def _named(kind: IdKind, func: str) -> IdKind:
    """``kind`` as the caller ``func`` (an update's, a merge's) names it when refused."""
    return replace(kind, func=func)


def _options(func: str, options: dict[str, Any], allowed: set[str]) -> None:
    extra = sorted(set(options) - allowed)
    if extra:
        raise InvalidParameterError(
            f"{func} takes no option {extra[0]!r}; it takes {sorted(allowed)}."
        )


# ------------------------------------------------------------------ PopRSP, PopREO
# Each definition takes the caller (``checks_caller``, ``takes_caller``):
# receval.metric('pop_rsp') or receval.compute('pop_rsp') in the option and finalize
# messages, the accumulator's update (or compute) in a batch's.
def _parity(name: str) -> MetricDefinition:
    reo = name == "pop_reo"

    def check(func: str, /, **options: Any) -> dict[str, Any]:
        _options(
            func, options, {"train", "k", "head_share"} | ({"rel_threshold"} if reo else set())
        )
        share = options.get("head_share", DEFAULT_HEAD_SHARE)
        threshold = options.get("rel_threshold", 1) if reo else None
        return parity_params(func, options.get("train"), options.get("k"), share, threshold)

    def prepare_rsp(params: dict[str, Any], run: Any, *, func: str) -> Any:
        return None, None if is_empty_run(run) else as_run(run, func)

    def prepare_reo(params: dict[str, Any], qrels: Any, run: Any, *, func: str) -> Any:
        if is_empty_run(qrels) and is_empty_run(run):
            return None, None
        return as_qrels(qrels, func), as_run(run, func)

    def update(params: dict[str, Any], batch: Any, *, func: str) -> CountsState:
        q, r = batch
        if r is None:  # a batch of no row
            return CountsState()
        counts = reo_counts(q, r, **params) if reo else rsp_counts(r, **params)
        state = CountsState(counts, users_kind=IdKind.of(r.user_ids, func, _USERS))
        state.seen.add(r.user_ids, func, state.seen_as[0])
        return state

    def finalize(params: dict[str, Any], state: CountsState, *, func: str) -> float:
        return relative_spread(state.counts, func)

    return MetricDefinition(
        name=name,
        check_params=check,
        prepare=prepare_reo if reo else prepare_rsp,
        update=update,
        empty=lambda params: CountsState(),
        finalize=finalize,
        checks_caller=True,
        takes_caller=True,
    )


# ------------------------------------------------------------------ exposure
def _exposure(name: str, finalize: Callable[..., float]) -> MetricDefinition:
    with_pop = name == "item_coverage"

    def check(func: str, /, **options: Any) -> dict[str, Any]:
        _options(func, options, {"k", "popularity", "train"} if with_pop else {"k"})
        if with_pop:
            warn(DEPRECATED_ITEM_COVERAGE, FutureWarning)
        params: dict[str, Any] = {"depth": check_k(options.get("k"), func)}
        if with_pop:
            params["table"] = as_popularity(options.get("popularity"), options.get("train"), func)
        return params

    def update(params: dict[str, Any], run: Any, *, func: str) -> ExposureState:
        if is_empty_run(run):  # a batch of no row
            return ExposureState()
        r = as_run(run, func)
        counts = item_exposure(r, params["depth"])
        shown = np.flatnonzero(counts)
        state = ExposureState(
            dict(zip(r.item_ids[shown].tolist(), counts[shown].tolist(), strict=True)),
            set(r.item_ids.tolist()),
            users_kind=IdKind.of(r.user_ids, func, _USERS),
            items_kind=IdKind.of(r.item_ids, func, _ITEMS),
        )
        state.seen.add(r.user_ids, func, state.seen_as[0])
        return state

    return MetricDefinition(
        name=name,
        check_params=check,
        prepare=lambda params, run, *, func: run,
        update=update,
        empty=lambda params: ExposureState(),
        finalize=finalize,
        checks_caller=True,
        takes_caller=True,
    )


def _shares(state: ExposureState) -> np.ndarray:
    return exposure_shares(
        np.fromiter(state.counts.values(), dtype=np.int64, count=len(state.counts))
    )


def _entropy(base: str) -> Callable[..., float]:
    """``finalize`` of the entropy of the exposure shares in ``base``, naming ``func``."""

    def finalize(params: dict[str, Any], state: ExposureState, *, func: str) -> float:
        return entropy_of(_shares(state), base, func)

    return finalize


def _coverage(params: dict[str, Any], state: ExposureState, *, func: str) -> float:
    table = params["table"]
    items = np.asarray(list(state.items), dtype=object)
    n_extra = int((table.positions(items) < 0).sum()) if len(items) else 0
    return float(len(state.counts) / (table.n_items + n_extra))


for _definition in (
    _parity("pop_rsp"),
    _parity("pop_reo"),
    _exposure("shannon_entropy", _entropy("recbole")),
    _exposure("distributional_coverage", _entropy("bits")),
    _exposure("item_coverage", _coverage),
):
    register(_definition)

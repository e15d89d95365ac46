"""The popularity metrics over the whole run as engine definitions: mergeable states.

``receval.metric("pop_rsp", train=log, k=10)`` and the others take batches of
whole users (``update(run)``, PopREO ``update(qrels, run)``) and merge across
workers; ``compute()`` equals the function on all the users. PopREO and PopRSP
keep their four pooled counts; Shannon entropy, distributional coverage and
item coverage the exposure of each item id (and, for item coverage, the ids of
every recommended item).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...data._ranked import as_qrels
from ...engine.metric import MetricDefinition, register
from ...engine.states import Seen
from ...exceptions import InvalidParameterError
from .lists import as_run, check_k, item_exposure
from .popularity import (
    check_threshold,
    entropy_of,
    exposure_shares,
    relative_spread,
    reo_counts,
    rsp_counts,
)
from .popularity_table import DEFAULT_HEAD_SHARE, as_popularity, check_head_share

__all__: list[str] = []


@dataclass
class CountsState:
    """PopREO's or PopRSP's four pooled counts, and the users seen."""

    counts: np.ndarray = field(default_factory=lambda: np.zeros(4, dtype=np.int64))
    seen: Seen = field(default_factory=Seen)

    def merge(self, other: CountsState) -> CountsState:
        return CountsState(self.counts + other.counts, self.seen.merge(other.seen))


@dataclass
class ExposureState:
    """Exposure (top-k lists holding it) of each item id, every recommended id, users seen."""

    counts: dict[Any, int] = field(default_factory=dict)
    items: set[Any] = field(default_factory=set)
    seen: Seen = field(default_factory=Seen)

    def merge(self, other: ExposureState) -> ExposureState:
        counts = dict(self.counts)
        for item, c in other.counts.items():
            counts[item] = counts.get(item, 0) + c
        return ExposureState(counts, self.items | other.items, self.seen.merge(other.seen))


def _options(name: str, options: dict[str, Any], allowed: set[str]) -> None:
    extra = sorted(set(options) - allowed)
    if extra:
        raise InvalidParameterError(
            f"receval.metric({name!r}) takes no option {extra[0]!r}; it takes {sorted(allowed)}."
        )


def _func(name: str) -> str:
    return f"receval.metric({name!r})"


# ------------------------------------------------------------------ PopRSP, PopREO
def _parity_params(name: str) -> Any:
    def check(**options: Any) -> dict[str, Any]:
        allowed = {"train", "k", "head_share"} | ({"rel_threshold"} if name == "pop_reo" else set())
        _options(name, options, allowed)
        func = _func(name)
        params = {
            "table": as_popularity(None, options.get("train"), func),
            "share": check_head_share(options.get("head_share", DEFAULT_HEAD_SHARE), func),
            "depth": check_k(options.get("k"), func),
        }
        if name == "pop_reo":
            params["threshold"] = check_threshold(options.get("rel_threshold", 1), func)
        return params

    return check


def _rsp_prepare(params: dict[str, Any], run: Any) -> Any:
    return as_run(run, _func("pop_rsp"))


def _rsp_update(params: dict[str, Any], r: Any) -> CountsState:
    state = CountsState(rsp_counts(r, params["table"], params["share"], params["depth"]))
    state.seen.add(r.user_ids, _func("pop_rsp"), "users")
    return state


def _reo_prepare(params: dict[str, Any], qrels: Any, run: Any) -> Any:
    func = _func("pop_reo")
    return as_qrels(qrels, func), as_run(run, func)


def _reo_update(params: dict[str, Any], batch: Any) -> CountsState:
    q, r = batch
    counts = reo_counts(
        q, r, params["table"], params["share"], params["depth"], params["threshold"]
    )
    state = CountsState(counts)
    state.seen.add(r.user_ids, _func("pop_reo"), "users")
    return state


def _counts_empty(params: dict[str, Any]) -> CountsState:
    return CountsState()


def _rsp_finalize(params: dict[str, Any], state: CountsState) -> float:
    return relative_spread(state.counts, _func("pop_rsp"))


def _reo_finalize(params: dict[str, Any], state: CountsState) -> float:
    return relative_spread(state.counts, _func("pop_reo"))


POP_RSP = register(
    MetricDefinition(
        name="pop_rsp",
        check_params=_parity_params("pop_rsp"),
        prepare=_rsp_prepare,
        update=_rsp_update,
        empty=_counts_empty,
        finalize=_rsp_finalize,
    ),
)
POP_REO = register(
    MetricDefinition(
        name="pop_reo",
        check_params=_parity_params("pop_reo"),
        prepare=_reo_prepare,
        update=_reo_update,
        empty=_counts_empty,
        finalize=_reo_finalize,
    ),
)


# ------------------------------------------------------------------ exposure
def _exposure_params(name: str) -> Any:
    def check(**options: Any) -> dict[str, Any]:
        with_pop = name == "item_coverage"
        _options(name, options, {"k", "popularity", "train"} if with_pop else {"k"})
        if with_pop:
            import warnings

            from .popularity import DEPRECATED_ITEM_COVERAGE

            warnings.warn(DEPRECATED_ITEM_COVERAGE, FutureWarning, stacklevel=3)
        func = _func(name)
        params: dict[str, Any] = {"depth": check_k(options.get("k"), func)}
        if with_pop:
            params["table"] = as_popularity(options.get("popularity"), options.get("train"), func)
        return params

    return check


def _exposure_update(name: str) -> Any:
    def update(params: dict[str, Any], run: Any) -> ExposureState:
        r = as_run(run, _func(name))
        counts = item_exposure(r, params["depth"])
        shown = np.flatnonzero(counts)
        state = ExposureState(
            dict(zip(r.item_ids[shown].tolist(), counts[shown].tolist(), strict=True)),
            set(r.item_ids.tolist()),
        )
        state.seen.add(r.user_ids, _func(name), "users")
        return state

    return update


def _exposure_prepare(params: dict[str, Any], run: Any) -> Any:
    return run


def _exposure_empty(params: dict[str, Any]) -> ExposureState:
    return ExposureState()


def _counts_of(state: ExposureState) -> np.ndarray:
    return np.fromiter(state.counts.values(), dtype=np.int64, count=len(state.counts))


def _entropy_finalize(params: dict[str, Any], state: ExposureState) -> float:
    return entropy_of(exposure_shares(_counts_of(state)), "recbole")


def _bits_finalize(params: dict[str, Any], state: ExposureState) -> float:
    return entropy_of(exposure_shares(_counts_of(state)), "bits")


def _coverage_finalize(params: dict[str, Any], state: ExposureState) -> float:
    table = params["table"]
    items = np.asarray(list(state.items), dtype=object)
    n_extra = int((table.positions(items) < 0).sum()) if len(items) else 0
    return float(len(state.counts) / (table.n_items + n_extra))


for _name, _finalize in (
    ("shannon_entropy", _entropy_finalize),
    ("distributional_coverage", _bits_finalize),
    ("item_coverage", _coverage_finalize),
):
    register(
        MetricDefinition(
            name=_name,
            check_params=_exposure_params(_name),
            prepare=_exposure_prepare,
            update=_exposure_update(_name),
            empty=_exposure_empty,
            finalize=_finalize,
        ),
    )

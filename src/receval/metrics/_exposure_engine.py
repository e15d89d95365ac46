"""Expected exposure as engine definitions: ``ee_disparity``, ``ee_relevance``, ``ee_loss``.

``receval.metric("ee_loss", patience=0.8)`` takes batches of whole users
(``update(qrels, run)``: every qrels row and every ranking of a user in one
batch) and merges across workers; each state is the exact sum of the per-user
values of :func:`receval.expected_exposure`, their count and the users seen, so
``compute()`` equals ``expected_exposure(qrels, run, ...).mean[name]`` on all
the users, for any split into batches of whole users and any order of merges.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .._sums import ExactSum
from ..engine.metric import MetricDefinition, register
from ..engine.states import Seen
from ..exceptions import InvalidParameterError
from ._exposure import check_exposure_options, expected_exposure

__all__: list[str] = []

_OPTIONS = ("patience", "k", "ties", "rel_threshold", "binary", "missing_users")
_DEFAULTS: dict[str, Any] = {
    "patience": 0.5, "k": None, "ties": "average", "rel_threshold": 1, "binary": False,
    "missing_users": "zero",
}  # fmt: skip


@dataclass
class UsersMean:
    """An exact sum over users, the number of users, and the users seen."""

    total: ExactSum = field(default_factory=ExactSum.zero)
    count: int = 0
    seen: Seen = field(default_factory=Seen)

    def merge(self, other: UsersMean) -> UsersMean:
        return UsersMean(
            self.total + other.total, self.count + other.count, self.seen.merge(other.seen)
        )


def _func(name: str) -> str:
    return f"receval.metric({name!r})"


def _check(name: str) -> Any:
    def check(**options: Any) -> dict[str, Any]:
        extra = sorted(set(options) - set(_OPTIONS))
        if extra:
            raise InvalidParameterError(
                f"{_func(name)} takes no option {extra[0]!r}; it takes {list(_OPTIONS)}."
            )
        params = {**_DEFAULTS, **options}
        check_exposure_options(_func(name), *(params[o] for o in _OPTIONS))
        return params

    return check


def _prepare(params: dict[str, Any], qrels: Any, run: Any) -> Any:
    return qrels, run


def _update(name: str) -> Any:
    def update(params: dict[str, Any], batch: Any) -> UsersMean:
        qrels, run = batch
        report = expected_exposure(qrels, run, **params)
        state = UsersMean(ExactSum.of(getattr(report, name)), report.n_users)
        state.seen.add(report.users, _func(name), "users")
        return state

    return update


def _empty(params: dict[str, Any]) -> UsersMean:
    return UsersMean()


def _finalize(params: dict[str, Any], state: UsersMean) -> float:
    return state.total.value / state.count if state.count else float("nan")


_DESCRIPTIONS = {
    "ee_disparity": "expected exposure disparity EE-D (Diaz et al. 2020), mean over users",
    "ee_relevance": "expected exposure relevance EE-R (Diaz et al. 2020), mean over users",
    "ee_loss": "expected exposure loss EE-L (Diaz et al. 2020), mean over users",
}

for _name, _description in _DESCRIPTIONS.items():
    register(
        MetricDefinition(
            name=_name,
            family="list",
            partitioning="groups",
            description=_description,
            higher_is_better=_name == "ee_relevance",
            inputs=("qrels", "run"),
            check_params=_check(_name),
            prepare=_prepare,
            update=_update(_name),
            empty=_empty,
            finalize=_finalize,
        )
    )

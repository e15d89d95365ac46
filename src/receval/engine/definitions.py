"""The built-in streaming definitions: each metric's checks, state and final value.

Each definition reuses the validation and the exact sums of the metric's
function, so an accumulator fed any split of the rows gives the function's
float on all of them (``==``), in any merge order.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import _validation as v
from .._sums import ExactSum
from ..exceptions import InvalidParameterError, UndefinedMetricWarning
from .metric import MetricDefinition, register
from .states import BinnedCounts, ErrorSums, ScoreCounts, Seen

__all__: list[str] = []

_EPS = float(np.finfo(np.float64).eps)


def _no_params(name: str) -> Any:
    def check(**options: Any) -> dict[str, Any]:
        if options:
            key = sorted(options)[0]
            raise InvalidParameterError(
                f"receval.metric({name!r}) takes no option {key!r}; it takes none."
            )
        return {}

    return check


def _columns(func: str, *arrays: tuple[str, Any]) -> list[np.ndarray | None]:
    """1-D arrays of equal length (None stays None)."""
    out = [None if a is None else v.as_1d(a, name, func) for name, a in arrays]
    v.check_same_length(func, **{name: a for (name, _), a in zip(arrays, out, strict=True)})
    return out


# ------------------------------------------------------------------ sums over rows
def _totals_batch(func: str, prob: str) -> Any:
    """Validation of one batch of 0/1 labels and probabilities (named ``prob``)."""

    def prepare(params: dict[str, Any], y_true: Any, *args: Any, **kwargs: Any) -> Any:
        y_prob = args[0] if args else kwargs.pop(prob)
        sample_weight = args[1] if len(args) > 1 else kwargs.pop("sample_weight", None)
        if kwargs:
            raise InvalidParameterError(
                f"{func}: update takes y_true, {prob} and sample_weight. Got "
                f"{sorted(kwargs)[0]!r} too."
            )
        yt, yp, sw = _columns(
            func, ("y_true", y_true), (prob, y_prob), ("sample_weight", sample_weight)
        )
        n = len(yt)
        if n == 0:
            return None
        labels = v.check_binary01(yt, func)
        proba = v.check_probabilities(
            v.check_finite(v.as_float(yp, prob, func), prob, func), prob, func
        )
        return labels, proba, v.check_sample_weight(sw, n, func)

    return prepare


def _totals_update(params: dict[str, Any], batch: Any) -> Any:
    from .._states import EMPTY_TOTALS, totals_of

    if batch is None:
        return EMPTY_TOTALS
    return totals_of(*batch, eps=params.get("eps", _EPS))


def _totals_empty(params: dict[str, Any]) -> Any:
    from .._states import EMPTY_TOTALS

    return EMPTY_TOTALS


def _eps(name: str, eps: float | str) -> float:
    value = _EPS if isinstance(eps, str) and eps == "auto" else eps
    return float(v.check_number(value, "eps", name, low=0.0, high=0.5, low_inclusive=False))


def _check_eps(name: str) -> Any:
    def check(eps: float | str = "auto") -> dict[str, Any]:
        return {"eps": _eps(name, eps)}

    return check


def _check_log_loss(eps: float | str = "auto", normalize: bool = True) -> dict[str, Any]:
    v.check_option(normalize, "normalize", "log_loss", [False, True])
    return {"eps": _eps("log_loss", eps), "normalize": bool(normalize)}


def _finalize_log_loss(params: dict[str, Any], state: Any) -> float:
    from ..metrics._binary import warn_undefined
    from ..metrics._loss import ZERO_WEIGHT

    if not params["normalize"]:
        return state.loss.value
    weight = state.weight.value
    if weight == 0:
        return warn_undefined(ZERO_WEIGHT)
    return state.loss.value / weight


def _finalize_ratio(name: str) -> Any:
    def finalize(params: dict[str, Any], state: Any) -> float:
        from ..metrics._calibration import copc_of, pcoc_of

        of = pcoc_of if name == "pcoc" else copc_of
        return of(state.predicted.value, state.observed.value)

    return finalize


def _finalize_ne(params: dict[str, Any], state: Any) -> float:
    from ..metrics._loss import normalized_entropy_of

    return normalized_entropy_of(state.loss.value, state.weight.value, state.observed.value)


for _name, _desc, _better, _check, _final, _aliases in [
    (
        "log_loss",
        "mean binary cross-entropy of predicted probabilities",
        False,
        _check_log_loss,
        _finalize_log_loss,
        ("logloss", "cross_entropy", "bce"),
    ),
    (
        "pcoc",
        "predicted clicks over observed clicks; 1 is calibrated",
        False,  # closer to 1 is better; lower is not better either
        _no_params("pcoc"),
        _finalize_ratio("pcoc"),
        (),
    ),
    (
        "copc",
        "observed clicks over predicted clicks; 1 is calibrated",
        False,
        _no_params("copc"),
        _finalize_ratio("copc"),
        (),
    ),
    (
        "normalized_entropy",
        "log loss over the entropy of the base rate (TorchRec's NE); below 1 beats the base rate",
        False,
        _check_eps("normalized_entropy"),
        _finalize_ne,
        ("ne",),
    ),
]:
    _prob = "y_pred" if _name == "log_loss" else "y_prob"  # the function's argument name
    register(
        MetricDefinition(
            name=_name,
            family="pointwise",
            partitioning="any",
            description=_desc,
            higher_is_better=_better,
            inputs=("y_true", _prob, "sample_weight"),
            check_params=_check,
            prepare=_totals_batch(_name, _prob),
            update=_totals_update,
            empty=_totals_empty,
            finalize=_final,
        ),
        aliases=_aliases,
    )


# ------------------------------------------------------------------ errors
def _errors_prepare(func: str) -> Any:
    def prepare(params: dict[str, Any], y_true: Any, y_pred: Any, sample_weight: Any = None):
        yt, yp, sw = _columns(
            func, ("y_true", y_true), ("y_pred", y_pred), ("sample_weight", sample_weight)
        )
        a = v.check_finite(v.as_float(yt, "y_true", func), "y_true", func)
        b = v.check_finite(v.as_float(yp, "y_pred", func), "y_pred", func)
        return a - b, v.check_sample_weight(sw, len(a), func)

    return prepare


def _errors_update(params: dict[str, Any], batch: Any) -> ErrorSums:
    from ..metrics._loss import error_sums

    return error_sums(*batch)


def _errors_empty(params: dict[str, Any]) -> ErrorSums:
    zero = ExactSum.zero()
    return ErrorSums(zero, zero, zero, 0)


def _errors_finalize(kind: str) -> Any:
    def finalize(params: dict[str, Any], state: ErrorSums) -> float:
        from ..metrics._binary import warn_undefined

        weight = state.weight.value
        if weight == 0:
            return warn_undefined(f"{kind}: no row of non-zero weight (returned as nan).")
        if kind == "root_mean_squared_error":
            return float(np.sqrt(state.squared.value / weight))
        return state.absolute.value / weight

    return finalize


for _name, _desc, _aliases in [
    ("root_mean_squared_error", "root mean squared error", ("rmse",)),
    ("mean_absolute_error", "mean absolute error", ("mae",)),
]:
    register(
        MetricDefinition(
            name=_name,
            family="pointwise",
            partitioning="any",
            description=_desc,
            higher_is_better=False,
            inputs=("y_true", "y_pred", "sample_weight"),
            check_params=_no_params(_name),
            prepare=_errors_prepare(_name),
            update=_errors_update,
            empty=_errors_empty,
            finalize=_errors_finalize(_name),
        ),
        aliases=_aliases,
    )


# ------------------------------------------------------------------ exact or binned ROC AUC
@dataclass(frozen=True)
class BinnedAUC:
    """A binned ROC AUC and the certified bound on its error."""

    value: float
    error_bound: float


def _auc_params(bins: int | None = None, range: tuple[float, float] = (0.0, 1.0)) -> dict:
    func = "roc_auc"
    if bins is None:
        return {"bins": None}
    n = v.check_number(bins, "bins", func, integer=True, low=1, high=2**26)
    try:
        low, high = (float(x) for x in range)
    except (TypeError, ValueError):
        raise InvalidParameterError(
            f"The 'range' parameter of {func} must be a pair (low, high). Got {range!r} instead."
        ) from None
    if not (np.isfinite(low) and np.isfinite(high) and low < high):
        raise InvalidParameterError(
            f"The 'range' parameter of {func} must be finite with low < high. "
            f"Got {range!r} instead."
        )
    return {"bins": int(n), "low": low, "high": high}


def _auc_prepare(params: dict[str, Any], y_true: Any, y_score: Any, sample_weight: Any = None):
    func = "roc_auc"
    yt, ys, sw = _columns(
        func, ("y_true", y_true), ("y_score", y_score), ("sample_weight", sample_weight)
    )
    labels = v.check_binary01(yt, func) if len(yt) else np.empty(0, dtype=np.int8)
    scores = v.check_finite(v.as_float(ys, "y_score", func), "y_score", func)
    return labels, scores, v.check_sample_weight(sw, len(labels), func)


def _auc_empty(params: dict[str, Any]) -> Any:
    if params["bins"] is None:
        return _Weighted(ScoreCounts(False), ScoreCounts(True))
    return BinnedCounts(params["bins"], params["low"], params["high"], weighted=True)


@dataclass
class _Weighted:
    """Exact counts of unweighted rows and weighted counts, kept apart until one is used
    (an accumulator must not mix weighted and unweighted updates)."""

    plain: ScoreCounts
    weighted: ScoreCounts

    def merge(self, other: _Weighted) -> _Weighted:
        return _Weighted(self.plain.merge(other.plain), self.weighted.merge(other.weighted))

    def absorb(self, other: _Weighted) -> _Weighted:
        self.plain.absorb(other.plain)
        self.weighted.absorb(other.weighted)
        return self


def _auc_update(params: dict[str, Any], batch: Any, state: Any = None) -> Any:
    labels, scores, weights = batch
    state = _auc_empty(params) if state is None else state
    if isinstance(state, BinnedCounts):
        state.add(labels, scores, weights)
    elif weights is None:
        state.plain.add(labels, scores, None)
    else:
        state.weighted.add(labels, scores, weights)
    return state


def _auc_finalize(params: dict[str, Any], state: Any) -> Any:
    from ..metrics._binary import warn_undefined

    undefined = "roc_auc: y_true has a single class, so the AUC is undefined (returned as nan)."
    if isinstance(state, BinnedCounts):
        value, bound = state.auc_and_bound()
        if np.isnan(value):
            warn_undefined(undefined)
        return BinnedAUC(value, bound)
    plain, weighted = state.plain.compact(), state.weighted.compact()
    if len(plain.scores) and len(weighted.scores):
        raise InvalidParameterError(
            "roc_auc: some updates had sample_weight and others did not; give weights to "
            "every update (ones where there are none)."
        )
    value = (weighted if len(weighted.scores) else plain).auc()
    return warn_undefined(undefined) if np.isnan(value) else value


register(
    MetricDefinition(
        name="roc_auc",
        family="pointwise",
        partitioning="any",
        description="area under the ROC curve, exact (ties count one half); bins=N: constant "
        "memory with a certified error bound",
        higher_is_better=True,
        inputs=("y_true", "y_score", "sample_weight"),
        check_params=_auc_params,
        prepare=_auc_prepare,
        update=_auc_update,
        empty=_auc_empty,
        finalize=_auc_finalize,
        update_into=lambda params, state, batch: _auc_update(params, batch, state),
    ),
    aliases=("auc", "roc_auc_score"),
)


# ------------------------------------------------------------------ GAUC over whole groups
@dataclass
class _GroupState:
    totals: Any
    seen: Seen

    def merge(self, other: _GroupState) -> _GroupState:
        return _GroupState(self.totals.merge(other.totals), self.seen.merge(other.seen))

    def absorb(self, other: _GroupState) -> _GroupState:
        self.seen.absorb(other.seen)
        self.totals = self.totals.merge(other.totals)
        return self


def _gauc_params(weighting: str = "impressions") -> dict[str, Any]:
    v.check_option(weighting, "weighting", "gauc", ["clicks", "impressions", "uniform"])
    return {"weighting": weighting}


def _gauc_prepare(
    params: dict[str, Any], y_true: Any, y_score: Any, *, groups: Any, sample_weight: Any = None
) -> Any:
    return y_true, y_score, groups, sample_weight


def _gauc_update(params: dict[str, Any], batch: Any) -> _GroupState:
    from .._states import report_totals
    from ..metrics._gauc import group_auc

    y_true, y_score, groups, sample_weight = batch
    with warnings.catch_warnings():  # a batch of one-class groups is no error: finalize says
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        report = group_auc(
            y_true, y_score, groups=groups, weighting=params["weighting"],
            sample_weight=sample_weight,
        )  # fmt: skip
    seen = Seen()
    seen.add(np.asarray(report.groups, dtype=object), "gauc", "groups")
    return _GroupState(report_totals(report), seen)


def _gauc_empty(params: dict[str, Any]) -> _GroupState:
    from .._states import EMPTY_GROUP_TOTALS

    return _GroupState(EMPTY_GROUP_TOTALS, Seen())


def _gauc_finalize(params: dict[str, Any], state: _GroupState) -> float:
    from ..metrics._gauc import gauc_or_warn

    return gauc_or_warn(state.totals.score, state.totals.n_groups)


register(
    MetricDefinition(
        name="gauc",
        family="grouped",
        partitioning="groups",
        description="group AUC: per-group ROC AUC weighted by impressions, clicks or 1",
        higher_is_better=True,
        inputs=("y_true", "y_score", "groups", "sample_weight"),
        check_params=_gauc_params,
        prepare=_gauc_prepare,
        update=_gauc_update,
        empty=_gauc_empty,
        finalize=_gauc_finalize,
    ),
    aliases=("group_auc", "gauc_score"),
)


# ------------------------------------------------------------------ ranking over whole users
@dataclass
class _RankingState:
    mean: Any
    seen: Seen
    pooled: bool

    def merge(self, other: _RankingState) -> _RankingState:
        return _RankingState(self.mean.merge(other.mean), self.seen.merge(other.seen), self.pooled)

    def absorb(self, other: _RankingState) -> _RankingState:
        self.seen.absorb(other.seen)
        self.mean = self.mean.merge(other.mean)
        return self


def _ranking_params(metric: str, **conventions: Any) -> dict[str, Any]:
    from ..evaluation import metric_conventions

    spec, _ = metric_conventions(metric, **conventions)
    return {"metric": metric, "conventions": conventions, "pooled": spec.info.mean == "pooled"}


def _ranking_prepare(params: dict[str, Any], qrels: Any, run: Any) -> Any:
    return qrels, run


def _ranking_update(params: dict[str, Any], batch: Any) -> _RankingState:
    from ..evaluation import evaluate

    qrels, run = batch
    report = evaluate(qrels, run, [params["metric"]], **params["conventions"])
    seen = Seen()
    seen.add(np.asarray(report.users, dtype=object), "evaluate", "users")
    state = report.mean_states()[params["metric"]]
    return _RankingState(state, seen, params["pooled"])


def _ranking_empty(params: dict[str, Any]) -> _RankingState:
    from .._states import empty_mean_state

    return _RankingState(empty_mean_state(params["pooled"]), Seen(), params["pooled"])


def _ranking_finalize(params: dict[str, Any], state: _RankingState) -> float:
    return state.mean.value


register(
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

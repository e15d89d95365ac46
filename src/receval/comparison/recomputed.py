"""The metrics of :func:`receval.compare_predictions` as the registry reads them, and
the comparison of those that are not means over users: their function run again on
the rows with each unit's scores of the two models swapped at random (randomization
test) and on units drawn with replacement (percentile bootstrap)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..exceptions import InvalidParameterError
from ..registry.pointwise import pointwise_adapter
from .significance import smallest_pvalue
from .table import comparison_columns


def pointwise_spec(metric: str, func: str) -> Any:
    """The registry's reading of a metric of compare_predictions: a pointwise or grouped
    one; a ranking metric is refused naming :func:`compare`."""
    from ..registry import resolve

    spec = resolve(metric)  # an unknown name: the registry's error, with the closest name
    if spec.info.family == "ranking":
        scores = " (the average precision of scores is 'average_precision')"
        raise InvalidParameterError(
            f"{func}: {metric!r} is {spec.info.name}, which it does not compare: a ranking "
            f"metric of top-K lists; compare runs on it with receval.compare(qrels, runs, "
            f"[{metric!r}]){scores if spec.info.name == 'map' else ''}."
        )
    return resolve(metric, family=("pointwise", "grouped"), where=func)


def how_compared(spec: Any) -> str:
    """How a metric is compared: per-user means (``"gauc"``, ``"log_loss"``), DeLong's
    test (``"roc_auc"``), or recomputed on swapped and resampled units."""
    name, args = spec.info.name, dict(spec.args)
    if name == "gauc" or (name in ("log_loss", "roc_auc") and not args):
        return str(name)
    return "recomputed"


def rows_value(spec: Any, y: np.ndarray, groups: np.ndarray | None) -> Any:
    """``value(rows, scores, weights)``: the metric of those rows, by its function."""
    metric = pointwise_adapter(spec).func

    def value(rows: np.ndarray, scores: Any, weights: np.ndarray | None) -> float:
        g = None if groups is None else groups[rows]
        return metric(y[rows], scores, groups=g, sample_weight=weights)

    return value


def _unit_rows(codes: np.ndarray, n_units: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The rows sorted by unit, and where each unit's rows start and how many there are."""
    order = np.argsort(codes, kind="stable")
    sizes = np.bincount(codes, minlength=n_units)
    return order, np.cumsum(sizes) - sizes, sizes


def _draw(units: np.ndarray, rows: tuple[np.ndarray, np.ndarray, np.ndarray]) -> np.ndarray:
    """The rows of the drawn ``units`` (a unit drawn twice gives its rows twice)."""
    order, starts, sizes = rows
    lengths = sizes[units]
    first = np.repeat(starts[units] - np.cumsum(lengths) + lengths, lengths)
    return order[first + np.arange(int(lengths.sum()))]


def recomputed_pairs(
    value: Callable[[np.ndarray, Any, np.ndarray | None], float],
    y_true: np.ndarray,
    y_scores: dict[str, np.ndarray],
    pairs: list[tuple[str, str]],
    codes: np.ndarray,
    n_units: int,
    sample_weight: np.ndarray | None,
    func: str,
    settings: dict[str, Any],
    *,
    metric: str,
    higher: bool | None,
) -> tuple[dict[str, float], dict[str, np.ndarray]]:
    """Each model's value of ``metric`` and the comparison table's columns for each
    (model, versus) pair (as :func:`receval.metrics._delong.delong_pairs`):
    ``value(rows, scores, weights)`` is the metric of those rows; ``settings``: the
    test's and the interval's, as the report holds them. The effect size is nan (no
    per-user values); ``n_users`` is the number of units. A metric of no direction
    (``higher`` None, such as PCOC) is never better or worse."""
    names = ("test", "interval", "confidence", "alpha", "correction", "n_permutations",
             "n_resamples", "seed")  # fmt: skip
    test, interval, confidence, alpha, correction, n_permutations, n_resamples, seed = (
        settings[k] for k in names
    )
    if test != "randomization":
        raise InvalidParameterError(
            f"{func}: {metric!r} is not a mean over users, so test={test!r} (which reads "
            f"per-user values) does not apply to it; use test='randomization', which "
            f"recomputes the metric on swapped scores."
        )
    from .impressions import scoring

    rows = np.arange(len(y_true))
    means = {}
    for name, score in y_scores.items():
        with scoring(metric, name):  # its errors name the model
            means[name] = value(rows, score, sample_weight)
    rng = np.random.default_rng(seed)
    units = _unit_rows(codes, n_units)
    quantiles = [(1 - confidence) / 2, (1 + confidence) / 2]
    diff, p = np.empty(len(pairs)), np.empty(len(pairs))
    low, high = np.full(len(pairs), np.nan), np.full(len(pairs), np.nan)
    for j, (a, b) in enumerate(pairs):
        diff[j] = means[a] - means[b]
        reached = 0
        for _ in range(n_permutations):
            swap = (rng.random(n_units) < 0.5)[codes]
            sa = np.where(swap, y_scores[b], y_scores[a])
            sb = np.where(swap, y_scores[a], y_scores[b])
            d = value(rows, sa, sample_weight) - value(rows, sb, sample_weight)
            reached += bool(abs(d) >= abs(diff[j]) * (1 - 1e-12))
        p[j] = (1.0 + reached) / (1.0 + n_permutations) if np.isfinite(diff[j]) else np.nan
        if interval is not None:
            drawn = np.empty(n_resamples)
            for i in range(n_resamples):
                r = _draw(rng.integers(0, n_units, n_units), units)
                w = None if sample_weight is None else sample_weight[r]
                drawn[i] = value(r, y_scores[a][r], w) - value(r, y_scores[b][r], w)
            low[j], high[j] = np.nanquantile(drawn, quantiles) if n_resamples else (np.nan,) * 2
    p_min = smallest_pvalue(n_units, test=test, n_permutations=n_permutations)
    block = comparison_columns([(metric, a, b) for a, b in pairs], diff, p, correction=correction,
                               alpha=alpha, higher={metric: higher}, n_users=n_units,
                               p_min=p_min, ci_low=low, ci_high=high)  # fmt: skip
    return means, block

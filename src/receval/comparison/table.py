"""The rows of a comparison table: the pairs of models compared, and each row's columns.

:func:`receval.compare`, :func:`receval.compare_predictions`, their recomputed
metrics and DeLong's ``roc_auc`` build their :class:`receval.ComparisonReport`
tables here, from the p-values of :mod:`.significance`, corrected with
:func:`.significance.adjust_pvalues` within each family.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from itertools import combinations
from typing import Any

import numpy as np

from ..exceptions import InputValidationError, InvalidParameterError
from .significance import adjust_pvalues


def check_pairs(pairs: str | None, baseline: str | None, func: str) -> None:
    """Refuse a ``pairs`` other than "all" or None, and "all" with a ``baseline``."""
    from .._parameters import check_option

    check_option(pairs, "pairs", func, ["all", None])
    if pairs == "all" and baseline is not None:
        raise InvalidParameterError(
            f"{func}: pairs='all' compares every pair of runs, so it takes no baseline. Got "
            f"baseline={baseline!r}; drop baseline=, or drop pairs= to compare with {baseline!r}."
        )


def model_pairs(
    models: list[str], baseline: str | None, func: str, pairs: str | None = None
) -> list[tuple[str, str]]:
    """(model, versus) of every comparison: each model against the baseline, or every pair
    (``pairs="all"``, which takes no baseline: :func:`check_pairs`); the errors name
    ``func``."""
    check_pairs(pairs, baseline, func)
    if len(models) < 2:
        raise InputValidationError(
            f"{func}: comparing needs at least 2 models. Got {len(models)}; pass a mapping "
            f"{{name: model}} with two or more entries."
        )
    if len(set(models)) < len(models):
        dup = next(m for m in models if models.count(m) > 1)
        raise InputValidationError(
            f"{func}: model names must be distinct. Got {dup!r} twice; name each run."
        )
    if baseline is None:
        return [(b, a) for a, b in combinations(models, 2)]
    if baseline not in models:
        raise InvalidParameterError(
            f"The 'baseline' parameter of {func} must be one of {models}. Got {baseline!r} instead."
        )
    return [(m, baseline) for m in models if m != baseline]


def comparison_columns(
    rows: list[tuple[str, str, str]],
    difference: np.ndarray,
    p_value: np.ndarray,
    *,
    correction: str | None,
    alpha: float,
    higher: Mapping[str, bool | None],
    n_users: Any,
    p_min: Any,
    n_users_skipped: Any = 0,
    effect_size: Any = math.nan,
    ci_low: Any = math.nan,
    ci_high: Any = math.nan,
    wins: Any = -1,
    ties: Any = -1,
    losses: Any = -1,
    family: str = "metric",
    direction: Any = None,
) -> dict[str, np.ndarray]:
    """The columns of a comparison table (:class:`receval.ComparisonReport`), one row per
    ``(metric, model, versus)`` of ``rows``: the p-values adjusted by ``correction``
    within each metric (``family="metric"``: one family per metric) or across every
    row (``family="all"``), ``significant`` where the adjusted one
    is below ``alpha``, ``better`` and ``worse`` where it is and the test's statistic
    leans one way, in or against the metric's direction ``higher[metric]`` (a metric
    of no direction, None, is neither). The statistic's sign is ``direction`` (the
    Wilcoxon test's signed-rank direction, which can disagree with the mean's), or,
    None, that of the difference (model minus versus). ``n_users``, ``p_min``, the
    users left out of the test (``n_users_skipped``), ``effect_size``, the interval and
    the users where the model wins, ties and loses (-1: the metric has no per-user
    value): one value per row, or one for all."""
    k = len(rows)

    def column(x: Any, dtype: Any = np.float64) -> np.ndarray:
        return np.array(np.broadcast_to(np.asarray(x, dtype=dtype), (k,)))

    metric = np.array([m for m, _, _ in rows], dtype=object)
    diff, p = column(difference), column(p_value)
    adjusted = np.empty(k)
    names = dict.fromkeys(metric.tolist())
    families = [metric == m for m in names] if family == "metric" else [np.ones(k, dtype=bool)]
    for same in families:
        adjusted[same] = adjust_pvalues(p[same], method=correction)
    significant = adjusted < alpha
    directed = np.array([higher[m] is not None for m, _, _ in rows], dtype=bool)
    up = np.array([higher[m] is True for m, _, _ in rows], dtype=bool)
    lean = diff if direction is None else column(direction)
    known, moved = significant & (lean != 0) & directed, (lean > 0) == up
    return {
        "metric": metric,
        "model": np.array([a for _, a, _ in rows], dtype=object),
        "versus": np.array([b for _, _, b in rows], dtype=object),
        "difference": diff,
        "effect_size": column(effect_size),
        "ci_low": column(ci_low),
        "ci_high": column(ci_high),
        "p_value": p,
        "p_adjusted": adjusted,
        "significant": significant,
        "better": known & moved,
        "worse": known & ~moved,
        "wins": column(wins, np.int64),
        "ties": column(ties, np.int64),
        "losses": column(losses, np.int64),
        "n_users": column(n_users, np.int64),
        "n_users_skipped": column(n_users_skipped, np.int64),
        "p_min": column(p_min),
    }

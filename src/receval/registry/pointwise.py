"""A pointwise or grouped metric as one callable, for the CTR commands: its function,
loaded from its row's path when first called, with its metric string's parameters."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from .grammar import MetricSpec
from .table import load

__all__ = ["PointwiseMetric", "pointwise_adapter"]


class PointwiseMetric(NamedTuple):
    """A pointwise metric: ``(func, description, needs_group, counted)``.

    ``func(y_true, y_score, groups=None, sample_weight=None)`` returns a
    float; ``groups`` is used (and then required) only when ``needs_group``.
    ``counted``, for metrics that leave groups out (gauc), takes the same
    arguments and returns ``(value, counts)``, the counts a dict of what was
    left out.
    """

    func: Callable[..., float]
    description: str
    needs_group: bool = False
    counted: Callable[..., tuple[float, dict[str, int]]] | None = None


def pointwise_adapter(spec: MetricSpec) -> PointwiseMetric:
    """The :class:`PointwiseMetric` of a parsed pointwise or grouped metric string.

    Examples
    --------
    >>> from receval.registry import resolve
    >>> from receval.registry.pointwise import pointwise_adapter
    >>> func, description, needs_group, counted = pointwise_adapter(resolve("AUC"))
    >>> func([0, 1, 1], [0.1, 0.4, 0.3])
    1.0
    """
    entry = spec.info
    args = dict(spec.args)
    needs_group = "groups" in entry.inputs

    def func(y_true: Any, y_score: Any, groups: Any = None, sample_weight: Any = None) -> float:
        own = {"groups": groups} if needs_group else {}
        function = load(entry.function_path)
        return float(function(y_true, y_score, sample_weight=sample_weight, **own, **args))

    if entry.name != "gauc":
        return PointwiseMetric(func, entry.description, needs_group)

    def counted(
        y_true: Any, y_score: Any, groups: Any = None, sample_weight: Any = None
    ) -> tuple[float, dict[str, int]]:
        group_auc = load("receval.metrics._gauc:group_auc")
        report = group_auc(y_true, y_score, groups=groups, sample_weight=sample_weight, **args)
        counts = {
            "n_groups": int(report.n_groups),
            "n_groups_skipped": int(report.n_groups_skipped),
            "n_rows_skipped": int(report.n_rows_skipped),
        }
        return float(report.score), counts

    return PointwiseMetric(func, entry.description, needs_group, counted)

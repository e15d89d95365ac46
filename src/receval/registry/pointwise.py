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
    ``counted``, for metrics that leave groups out (gauc and the other grouped
    metrics), takes the same arguments and returns ``(value, counts, why)``: the
    counts of the groups and of those left out (``n_groups``,
    ``n_groups_skipped``, ``n_rows_skipped``; empty where the metric does not count
    them) and why a group is left out.
    """

    func: Callable[..., float]
    description: str
    needs_group: bool = False
    counted: Callable[..., tuple[float, dict[str, int], str]] | None = None


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

    if entry.family != "grouped":
        return PointwiseMetric(func, entry.description, needs_group)

    def counted(
        y_true: Any, y_score: Any, groups: Any = None, sample_weight: Any = None
    ) -> tuple[float, dict[str, int], str]:
        import importlib

        from ..engine.metric import DEFINITIONS
        from ..engine.sources import run_counted

        importlib.import_module(entry.definition_path)  # it registers its definitions
        defn = DEFINITIONS[entry.name]
        unweighted = sample_weight is not None and "sample_weight" not in defn.inputs
        if defn.grouped is None or unweighted:
            return func(y_true, y_score, groups, sample_weight), {}, ""  # its own error
        given = {"y_true": y_true, "y_score": y_score, "groups": groups,
                 "sample_weight": sample_weight}  # fmt: skip
        columns = {name: given[name] for name in defn.inputs if name in given}
        params = defn.checked(entry.function, **args)  # gauc's options name it
        # the definition's own path: its value with the counts of the groups left out
        result: tuple[float, dict[str, int], str] = run_counted(
            defn, params, columns, func=entry.function
        )
        return result

    return PointwiseMetric(func, entry.description, needs_group, counted)

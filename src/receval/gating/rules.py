"""The rules of the gate and its settings, checked once, with their names in messages.

A rule is data (:class:`GateRule`); :func:`as_rule` builds one from a mapping as a
configuration file or a caller writes it, and names the bad key of a bad one.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..exceptions import InvalidParameterError
from ..registry import MetricSpec, resolve

__all__ = ["INCONCLUSIVE", "KINDS", "GateRule", "as_rule", "as_rules", "repeated", "rule_metric"]

#: The kinds of rule: two compare a candidate with a baseline, two bound its value.
KINDS = ("non_inferiority", "superiority", "floor", "ceiling")
#: What an inconclusive comparison counts as.
INCONCLUSIVE = ("fail", "pass")
_KEYS = ("metric", "rule", "margin", "relative", "threshold")


@dataclass(frozen=True)
class GateRule:
    """One metric's rule.

    Attributes
    ----------
    metric : str
        A metric string (``"ndcg@10"``, ``"gauc"``).
    kind : {"non_inferiority", "superiority", "floor", "ceiling"}
        ``non_inferiority``: the candidate is not worse than the baseline by
        ``margin`` or more (one-sided paired test); ``superiority``: it is
        better by more than ``margin`` (default 0); ``floor`` / ``ceiling``:
        its value is at least / at most ``threshold``.
    margin : float, default=0.0
        The margin of the two comparative rules, in the metric's units, or a
        fraction of the baseline's value when ``relative``; a geometric mean
        over users (``gm_map``) takes a fraction (below 1 in a non-inferiority
        rule) or 0 only, as its test is of the users' logarithms.
    relative : bool, default=False
        Read ``margin`` as a fraction of the baseline's value (0.02: 2 %).
    threshold : float or None, default=None
        The bound of ``floor`` and ``ceiling`` (required there, refused elsewhere).

    Examples
    --------
    >>> from receval.gating.rules import GateRule
    >>> GateRule("ndcg@10", "non_inferiority", margin=0.01).describe()
    'non-inferiority, margin 0.01'
    >>> GateRule("gauc", "floor", threshold=0.7).describe()
    'floor 0.7'
    """

    metric: str
    kind: str
    margin: float = 0.0
    relative: bool = False
    threshold: float | None = None

    @property
    def comparative(self) -> bool:
        """Whether the rule compares a candidate with a baseline."""
        return self.kind in ("non_inferiority", "superiority")

    def describe(self) -> str:
        """The rule in a few words, as the tables show it."""
        if not self.comparative:
            return f"{self.kind} {self.threshold:g}"
        name = self.kind.replace("_", "-")
        if not self.margin and self.kind == "superiority":
            return name
        margin = (
            f"{100 * self.margin:.4g}% of the baseline" if self.relative else f"{self.margin:.4g}"
        )
        return f"{name}, margin {margin}"


def _fail(where: str, expected: str, got: Any, fix: str = "") -> InvalidParameterError:
    tail = f"; {fix}" if fix else ""
    return InvalidParameterError(f"{where} must be {expected}. Got {got!r} instead{tail}.")


def _margin_fix(margin: Any) -> str:
    """The fix of a margin written as text: a percentage (``"5%"``) is ``margin = 0.05``
    with ``relative = true``, a number in quotes the number."""
    if not isinstance(margin, str):
        return ""
    text = margin.strip()
    try:
        value = float(text.removesuffix("%"))
    except ValueError:
        return ""
    if not 0 <= value < float("inf"):
        return ""
    if text.endswith("%"):
        return (
            f"write margin = {value / 100:g} with relative = true (a share of the baseline's value)"
        )
    return f"write the number without quotes, margin = {value:g}"


def as_rule(rule: GateRule | Mapping[str, Any], where: str = "rules[0]") -> GateRule:
    """A checked :class:`GateRule` from a rule or a mapping with keys ``metric``,
    ``rule`` (the kind), ``margin``, ``relative``, ``threshold``.

    Parameters
    ----------
    rule : GateRule or mapping
        The rule.
    where : str, default="rules[0]"
        Its place, for the messages (a configuration file's key path).

    Returns
    -------
    rule : GateRule

    Raises
    ------
    InvalidParameterError
        An unknown key or kind, a metric string the registry does not read (an
        unknown metric, a bad parameter), a margin that is not a non-negative
        number, a threshold missing from a bound (or not finite) or given to a
        comparison, a margin above 0 in the metric's units (``relative`` false) or a
        relative non-inferiority margin of 1 or more on a geometric mean (``gm_map``).

    Examples
    --------
    >>> from receval.gating.rules import as_rule
    >>> as_rule({"metric": "mrr@10", "rule": "superiority"}).kind
    'superiority'
    """
    if isinstance(rule, GateRule):
        fields: dict[str, Any] = {"metric": rule.metric, "rule": rule.kind}
        if rule.comparative or rule.margin or rule.relative:
            fields |= {"margin": rule.margin, "relative": rule.relative}
        if rule.threshold is not None:
            fields["threshold"] = rule.threshold
    elif isinstance(rule, Mapping):
        fields = dict(rule)
    else:
        raise _fail(
            where,
            "a table with keys metric and rule (a mapping or a GateRule)",
            type(rule).__name__,
        )
    unknown = [k for k in fields if k not in _KEYS]
    if unknown:
        raise _fail(
            f"{where}.{unknown[0]}", f"one of the keys {list(_KEYS)}", unknown[0], "remove it"
        )
    metric = fields.get("metric")
    if not isinstance(metric, str) or not metric:
        raise _fail(f"{where}.metric", "a metric string, e.g. 'ndcg@10'", metric)
    try:  # the registry's reading: an unknown name with the closest one, a bad k, ...
        info = resolve(metric).info
    except InvalidParameterError as exc:
        raise InvalidParameterError(f"{where}.metric: {exc}") from None
    kind = fields.get("rule")
    if kind not in KINDS:
        raise _fail(f"{where}.rule", f"one of {list(KINDS)}", kind)
    margin = fields.get("margin", 0.0)
    if (
        isinstance(margin, bool)
        or not isinstance(margin, numbers.Real)
        or not float(margin) >= 0
        or float(margin) == float("inf")
    ):
        raise _fail(f"{where}.margin", "a finite number >= 0", margin, _margin_fix(margin))
    relative = fields.get("relative", False)
    if not isinstance(relative, bool):
        raise _fail(f"{where}.relative", "true or false", relative)
    if info.mean == "geometric" and kind in ("non_inferiority", "superiority"):
        higher = bool(info.higher_is_better)
        _check_geometric_margin(where, metric, str(kind), margin, relative, higher)
    threshold = fields.get("threshold")
    bound = kind in ("floor", "ceiling")
    if bound:
        if (
            isinstance(threshold, bool)
            or not isinstance(threshold, numbers.Real)
            or not math.isfinite(threshold)
        ):
            raise _fail(
                f"{where}.threshold", f"a finite number (the {kind} of {metric})", threshold
            )
        if "margin" in fields or "relative" in fields:
            key = "margin" if "margin" in fields else "relative"
            raise _fail(
                f"{where}.{key}",
                f"absent from a {kind} rule",
                fields[key],
                "a bound takes only threshold",
            )
        threshold = float(threshold)
    elif threshold is not None:
        raise _fail(
            f"{where}.threshold",
            f"absent from a {kind} rule",
            threshold,
            "use margin, or rule = 'floor' or 'ceiling'",
        )
    return GateRule(metric, str(kind), float(margin), relative, threshold)


def _check_geometric_margin(
    where: str, metric: str, kind: str, margin: numbers.Real, relative: bool, higher: bool
) -> None:
    """Refuse a margin that a comparison of a geometric mean (``gm_map``) cannot test
    exactly: its test is of the users' logarithms, where a share of the baseline's
    geometric mean is a margin (``log(1 - margin)``, ``log1p(margin)``) and a margin in
    the metric's units is none; a share that lets the geometric mean fall to 0 or below
    has no logarithm."""
    if float(margin) > 0 and not relative:
        raise _fail(
            f"{where}.relative",
            f"true with a margin above 0 on {metric!r}, a geometric mean over users: its "
            f"{kind} rule tests the users' logarithms, where a margin in the metric's units "
            f"has no exact form",
            relative,
            "give the margin as relative = true, a share of the baseline's geometric mean "
            "(margin = 0.02: 2 %)",
        )
    if relative and float(margin) >= 1 and (kind == "non_inferiority") == higher:
        raise _fail(
            f"{where}.margin",
            f"below 1 in a {kind} rule on {metric!r} with relative = true (a share of the "
            f"baseline's geometric mean, which a share of 1 would let fall to 0)",
            margin,
            "e.g. margin = 0.05 for 5 %",
        )


def as_rules(
    rules: Any, where: str = "rules", weighting: str = "impressions"
) -> tuple[GateRule, ...]:
    """Checked :class:`GateRule` objects from a list of rules (each as :func:`as_rule`
    takes it), none repeated.

    Parameters
    ----------
    rules : iterable of GateRule or mapping
        The rules; one rule alone (a mapping, a GateRule) is refused, not read as its keys.
    where : str, default="rules"
        The list's place, for the messages (``gate.rules`` in a configuration file).
    weighting : str, default="impressions"
        The gate's weighting of ``gauc``'s users, which a rule's metric string that
        sets none takes (see :func:`repeated`).

    Returns
    -------
    rules : tuple of GateRule

    Raises
    ------
    InvalidParameterError
        ``rules`` is not a list of rules, a rule is bad (see :func:`as_rule`), or a rule
        repeats another, by any spelling of its metric (see :func:`repeated`; a copy of a
        comparison would be one more comparison in the correction, lowering the power of
        every row).

    Examples
    --------
    >>> from receval.gating.rules import as_rules
    >>> as_rules([{"metric": "mrr", "rule": "floor", "threshold": 0.2}])[0].describe()
    'floor 0.2'
    """
    if isinstance(rules, (Mapping, GateRule, str)) or not isinstance(rules, Iterable):
        raise InvalidParameterError(
            f"{where} must be a list of rules (GateRule objects or mappings). Got "
            f"{type(rules).__name__} {rules!r} instead; pass one rule as a list of one, "
            f"[rule]."
        )
    checked = tuple(as_rule(r, f"{where}[{i}]") for i, r in enumerate(rules))
    twice = repeated(checked, weighting)
    if twice is not None:
        i, j = twice
        rule, same = checked[i], checked[j].metric
        aliases = (
            f"{rule.metric!r} and {same!r} name the same metric, {rule_metric(same, weighting)}; "
            if rule.metric != same
            else ""
        )
        raise _fail(
            f"{where}[{i}]",
            f"another rule than {where}[{j}]",
            f"{rule.metric}: {rule.describe()}",
            f"{aliases}remove one: each copy would be one more comparison in the correction, "
            "lowering the power of every row"
            if rule.comparative
            else f"{aliases}remove one: it would only repeat its row",
        )
    return checked


def rule_metric(metric: str, weighting: str = "impressions") -> MetricSpec:
    """The metric a rule's string means in a gate of ``weighting``: the gate's
    weighting of ``gauc``'s users where the string sets none; a weighting written in
    the string, at its default or not, wins.

    Examples
    --------
    >>> from receval.gating.rules import rule_metric
    >>> str(rule_metric("gauc", "clicks"))
    'gauc(weighting=clicks)'
    >>> str(rule_metric("gauc(weighting=impressions)", "clicks"))
    'gauc'
    """
    return resolve(metric).filled(weighting=weighting)


def repeated(rules: Sequence[GateRule], weighting: str = "impressions") -> tuple[int, int] | None:
    """The first rule that repeats an earlier one, and the earlier one.

    Two rules are the same when they name the same metric, by any of its
    spellings (``logloss`` is ``log_loss``, ``ndcg_cut_10`` is ``ndcg@10``: the
    registry's canonical string, options included, with the gate's ``weighting``
    where the string sets none: :func:`rule_metric`), with the same kind, margin
    and threshold (a margin of 0 is 0, relative or not).

    Parameters
    ----------
    rules : sequence of GateRule
        Checked rules (:func:`as_rule`).
    weighting : str, default="impressions"
        The gate's weighting of ``gauc``'s users.

    Returns
    -------
    pair : tuple of (int, int) or None
        The index of the repeat and of the rule it repeats; None when none repeats.

    Examples
    --------
    >>> from receval.gating.rules import GateRule, repeated
    >>> repeated([GateRule("auc", "floor", threshold=0.7),
    ...           GateRule("roc_auc", "floor", threshold=0.7)])
    (1, 0)
    """
    first: dict[tuple[Any, ...], int] = {}
    for i, r in enumerate(rules):
        key = (
            str(rule_metric(r.metric, weighting)),
            r.kind,
            r.margin,
            r.relative and r.margin > 0,
            r.threshold,
        )
        if key in first:
            return i, first[key]
        first[key] = i
    return None

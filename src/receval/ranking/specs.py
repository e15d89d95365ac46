"""Metric strings and conventions of :func:`receval.evaluate`, parsed and checked once
(on the driver, before any row is read): the specs every partition computes."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from .._kernels import codes as _core_codes
from .._parameters import metric_strings
from ..conventions import (
    FIELDS,
    PROFILE_GRADES,
    PROFILE_REFUSED,
    Conventions,
    relevant_above,
    resolve_conventions,
)
from ..exceptions import InvalidParameterError
from ..registry import MetricSpec, parse_metrics, ranking_spec

codes = _core_codes()  # the ranking kernel's codes, defined in the compiled core

__all__ = [
    "TIE_COSTLY_KINDS",
    "TIE_ORDERS",
    "grade_limits",
    "kernel_spec",
    "metric_conventions",
    "metric_names",
    "prepare_metrics",
    "sums_table_gains",
    "tie_checked",
]

# the grade from which each gain_grades earns a gain: "positive", every grade above 0 (a
# probability too); "all", every judged grade, a negative one too (an unjudged item's
# grade, -inf in the kernel, earns none); "relevant", rel_threshold (None here)
_GAINS_FROM: dict[str, float | None] = {
    "positive": relevant_above(0.0),
    "all": -sys.float_info.max,
    "relevant": None,
}
# grades="raw": the kernel's variant of bpref (P0 = 1) and rbp (P1 = 2), after the
# metric's own parameters (none for bpref, p for rbp)
_RAW_GRADES = {codes.BPREF: 1.0, codes.RBP: 2.0}
# gain="binary": rbp's variant of 0/1 gains at the threshold (P1 = 1)
_BINARY_RBP = 1.0

# gain="exponential": 2.0**1024 overflows float64
_OVERFLOWING_GRADE = 1024.0

# gains=: trec_eval's table holds a level for each integer from 0 to the largest grade,
# built for each user (a grade of 1e12 asked for a table of 1e12 levels)
TABLE_GRADES = 65536.0

# trec_eval's measures that sum the gains of its table without rescaling them (the
# kernel's DCG family sums its own gains again times 2**-64 where they overflow; RBP
# of raw grades only multiplies its sum, inf where it overflows, refused after)
_TABLE_SUM_KINDS = frozenset({codes.G, codes.NDCG_REL, codes.R_NDCG})
_DCG_KINDS = frozenset({codes.DCG, codes.IDCG, codes.NDCG})

# serendipity (sums over the list's items, each position of a tied block holding its
# mean), ILS/diversity (pair sums weighted by the chance both items are in the top k)
# and miscalibration (over the multivariate hypergeometric law of the top k's weights)
_AVERAGED = (*codes.POPULARITY_KINDS, *codes.LIST_KINDS, codes.SERENDIPITY, codes.MISCALIBRATION)


def metric_conventions(
    metric: str,
    *,
    profile: str | None = None,
    popularity: Any = None,
    item_categories: Any = None,
    func: str = "evaluate",
    **conventions: Any,
) -> tuple[MetricSpec, Conventions]:
    """The parsed metric string and the conventions it is computed with, checked;
    errors name ``func``.

    Parameters
    ----------
    metric : str
        A metric string of :func:`evaluate` (``"ndcg@10"``).
    profile : str, default=None
        A peer's profile, as in :func:`evaluate`.
    popularity : PopularityTable, default=None
        Item popularity, which ``arp@k`` and the other popularity metrics need
        (from ``train=``: also the histories of ``serendipity@k``).
    item_categories : mapping or DataFrame, default=None
        Item categories, which ``miscalibration@k`` needs.
    **conventions
        Convention keywords of :func:`evaluate`.

    Returns
    -------
    spec, conventions : MetricSpec, Conventions

    Examples
    --------
    >>> from receval.ranking.specs import metric_conventions
    >>> spec, conv = metric_conventions("ndcg@10", profile="recommenders")
    >>> str(spec), conv.gain, conv.missing_users
    ('ndcg@10', 'binary', 'zero')
    """
    unknown = set(conventions) - set(FIELDS)
    if unknown:
        from .._parameters import check_option

        check_option(sorted(unknown)[0], "convention", func, sorted(FIELDS))
    ranking_spec(metric)  # one metric: P.5,10 (two) is an error here
    _, specs, convs, _ = prepare_metrics(
        [metric],
        None,
        None,
        {"profile": profile, **conventions},
        popularity,
        item_categories,
        func,
    )
    if specs[metric].info.needs == "similarity":
        raise InvalidParameterError(
            f"Metric {metric!r} needs item similarities; compute it with evaluate(..., "
            f"features=...) per batch."
        )
    return specs[metric], convs[metric]


def metric_names(metrics: str | Iterable[str], func: str = "evaluate") -> list[str]:
    """The metric strings of the ``metrics`` argument of ``func``, at least one: one
    string is a list of one, and trec_eval's form with several parameters (``P.5,10``)
    stands for one metric each, named as trec_eval names them (``P_5``, ``P_10``).

    Examples
    --------
    >>> metric_names(["ndcg@10", "P.5,10"])
    ['ndcg@10', 'P_5', 'P_10']
    """
    names = [name for text in metric_strings(metrics, func) for name in parse_metrics(text)]
    if not names:
        raise InvalidParameterError(
            f"The 'metrics' parameter of {func} must name at least one metric. Got [] instead."
        )
    return names


def prepare_metrics(
    metrics: str | Iterable[str],
    features: Any,
    similarity: Any,
    conventions: dict[str, Any],
    popularity: Any = None,
    item_categories: Any = None,
    func: str = "evaluate",
) -> tuple[list[str], dict[str, MetricSpec], dict[str, Conventions], set[str]]:
    """Parse the metric strings and resolve the conventions of each; ``listwise``: the
    metrics computed from the run alone (item similarities or item popularity); errors
    name ``func`` (:func:`receval.evaluate`, or the function that evaluates for it)."""
    conventions = dict(conventions)
    profile = conventions.pop("profile")
    resolve_conventions(profile, func, **conventions)  # bad options fail before any metric
    unset = resolve_conventions(profile, func)  # the profile's, no keyword applied
    metrics = metric_names(metrics, func)
    specs: dict[str, MetricSpec] = {}
    convs: dict[str, Conventions] = {}
    for text in metrics:
        spec = ranking_spec(text)
        base = resolve_conventions(
            profile, func, spec.name, spec.k is not None, spec.params, **conventions
        )
        overrides: dict[str, Any] = dict(spec.params)
        conv = replace(base, **overrides).validated(func) if overrides else base  # checked
        if "rel_threshold" not in overrides and conventions.get("rel_threshold") is None:
            conv = _peer_table(text, spec, conv, profile, func)
        if conv.ties == "average" and spec.k is not None and spec.info.kind in _AVERAGED:
            # computed as the expectation over tie orders (list_values reads it here)
            spec = replace(
                spec, params=tuple(sorted({**dict(spec.params), "ties": "average"}.items()))
            )
        if conv.ties == "average" and spec.info.kind == codes.NDCG_REL:
            gains: Any = dict(spec.args).get("gains", ())
            negative = [gain for _, gain in gains if gain < 0]
            if negative:
                raise InvalidParameterError(
                    f"Metric {text!r}: ties='average' (expected value over tie orders) is "
                    f"not available for ndcg_rel with a negative gain (got {negative[0]:g}): "
                    f"no closed form over tie orders for a sum clamped at 0; use "
                    f"ties='trec' or ties='input', or gains of 0 or more."
                )
        specs[text] = spec
        convs[text] = conv
    _check_keywords(metrics, specs, conventions, unset)
    listwise = {t for t, spec in specs.items() if spec.info.needs != "qrels"}
    by_similarity = sorted(t for t in listwise if specs[t].info.needs == "similarity")
    if by_similarity and features is None and similarity is None:
        raise InvalidParameterError(
            f"Metric {by_similarity[0]!r} needs item similarities; pass features= (item "
            f"feature vectors) or similarity= (a matrix or a function) to evaluate."
        )
    by_popularity = sorted(t for t in listwise if specs[t].info.needs == "popularity")
    if by_popularity and popularity is None:
        raise InvalidParameterError(
            f"Metric {by_popularity[0]!r} needs item popularity; pass popularity= (a mapping "
            f"item -> count) or train= (an interaction log of (user, item) pairs) to evaluate."
        )
    _check_history(specs, listwise, popularity, item_categories)
    return metrics, specs, convs, listwise


def _peer_table(
    text: str, spec: MetricSpec, conv: Conventions, profile: str | None, func: str
) -> Conventions:
    """Under a profile whose peer's NDCG gains by a table of its own (LightGBM's
    ``label_gain``, written ``ndcg(gains=...)``): the conventions with which receval's
    NDCG of that table is the peer's. The peer ranks its ideal DCG by grade, not by gain,
    and scores 1 a user whose ideal DCG is 0: a table whose gains do not rise with the
    grade from 0 on is refused (the peer's values there are not reproduced), and a grade
    is relevant from the first whose gain is above 0, so that a user without one (ideal
    DCG 0) is empty (the profile's ``empty_users="one"``). A ``rel_threshold`` given
    (keyword or metric string) is kept; grades not in the table gain as the table's
    kernel gains them (the grade itself from the threshold on)."""
    peer = PROFILE_GRADES.get(profile) if isinstance(profile, str) else None
    table: Any = dict(spec.args).get("gains")
    if peer is None or not peer.tabled or spec.name != "ndcg" or table is None:
        return conv
    given = dict(table)
    above = _gains_from(conv)
    last = int(max(given, default=0))
    gains = [float(given.get(g, g if g >= above else 0.0)) for g in range(last + 1)]
    for grade in range(last + 1):
        lower = gains[grade - 1] if grade else 0.0
        if gains[grade] < lower:
            by = f"grade {grade - 1}'s gain {lower:g}" if grade else "0"
            raise InvalidParameterError(
                f"{func}: metric {text!r} with profile={profile!r} takes a gains table "
                f"({peer.peer}'s label_gain) whose gains rise with the grade from 0 on. Got "
                f"gain {gains[grade]:g} for grade {grade}, below {by}: {peer.peer} ranks its "
                f"ideal DCG by grade, not by gain (its NDCG can exceed 1 there, and a query "
                f"whose ideal DCG is not above 0 scores 1), which receval does not "
                f"reproduce; give each grade a gain at least that of the grade below it "
                f"(relabel the grades in the order of their gains), or use another profile."
            )
    first = next((g for g, gain in enumerate(gains) if gain > 0), last + 1)
    return replace(conv, rel_threshold=first).validated(func)


def _check_keywords(
    metrics: list[str], specs: dict[str, MetricSpec], conventions: dict[str, Any], base: Any
) -> None:
    """A convention keyword of evaluate that differs from the profile's (or the default)
    must be one that some metric of the call uses, with a value each metric that uses it
    takes (a metric string's own setting wins); ``base``: the profile's conventions."""
    from .. import _parameters as v
    from ..registry import RANKING
    from ..registry.grammar import check_value

    for key, value in conventions.items():
        if value is None or key == "estimator":  # checked with the propensities
            continue
        # a list metric reads ties="input" and "average" only (its run's own order, or
        # the mean over tie orders): another rule is for the ranking metrics of the call
        readers = [
            t for t in metrics if key in specs[t].info.conventions
            and (key != "ties" or value in (specs[t].info.values_of(key) or (value,)))
        ]  # fmt: skip
        if not readers and value != getattr(base, key):
            users = [name for name, info in RANKING.items() if key in info.conventions]
            raise InvalidParameterError(
                f"evaluate: the convention {key}={value!r} changes none of the metrics "
                f"{v.format_values(metrics)}; it is used by {v.format_values(users)} "
                f"({v.counted(len(users), 'metric')}). Drop it."
            )
        for text in readers:
            if key not in dict(specs[text].params):
                check_value(f"evaluate: metric {text!r}", specs[text].info, key, value)


def _check_history(
    specs: dict[str, MetricSpec], listwise: set[str], popularity: Any, item_categories: Any
) -> None:
    """``serendipity@k`` and ``miscalibration@k`` need the users' histories (``train=``,
    kept by the popularity table), and ``miscalibration@k`` item categories too."""
    by_history = sorted(t for t in listwise if specs[t].info.needs in ("history", "categories"))
    if by_history and getattr(popularity, "train_users", None) is None:
        raise InvalidParameterError(
            f"Metric {by_history[0]!r} needs the users' histories; pass train= (an interaction "
            f"log of (user, item) pairs) to evaluate"
            + (", not popularity=." if popularity is not None else ".")
        )
    by_categories = sorted(t for t in listwise if specs[t].info.needs == "categories")
    if by_categories and item_categories is None:
        raise InvalidParameterError(
            f"Metric {by_categories[0]!r} needs item categories; pass item_categories= (a "
            f"mapping item -> categories, or a DataFrame with item and category columns) to "
            f"evaluate."
        )


def _gains_from(conv: Conventions) -> float:
    """The least grade that earns a gain in the DCG family under ``conv``
    (``gain_grades``)."""
    above = _GAINS_FROM[conv.gain_grades]
    return conv.rel_threshold if above is None else above


def kernel_spec(spec: MetricSpec, conv: Conventions) -> Any:
    """The ranking kernel's spec of one metric (a ``receval._core.RankingSpec``)."""
    kind = spec.info.kind
    if kind is None:  # a spec made by hand: metric strings are checked by ranking_spec
        raise InvalidParameterError(f"{spec.name} is not a ranking metric of evaluate.")
    params = spec.float_params()
    if kind == codes.RBP and conv.gain == "binary":
        params = (*params, _BINARY_RBP)
    elif conv.grades == "raw" and kind in _RAW_GRADES:
        params = (*params, _RAW_GRADES[kind])
    return codes.RankingSpec(
        kind,
        k=spec.k or 0,
        threshold=conv.rel_threshold,
        gain_threshold=_gains_from(conv),
        params=params,
        gain="custom" if "gains" in dict(spec.args) else conv.gain,  # the table: in params
        ap_normalizer=conv.ap_normalizer,
        ideal=conv.ideal,
        ties=conv.ties,
        # "error" raises after the kernel, which evaluates those users as "zero"
        missing_users="zero" if conv.missing_users == "error" else conv.missing_users,
        empty_users="zero" if conv.empty_users == "error" else conv.empty_users,
        positive_scores=conv.hit_scores == "positive",
        depth=conv.depth or None,  # evaluate's depth 0: the whole list
        judged_only=conv.judged_only,
        discount=conv.discount,
        precision_normalizer=conv.precision_normalizer,
        recall_normalizer=conv.recall_normalizer,
        recall_rounding=conv.recall_rounding,
    )


# how each tie rule orders tied scores, for messages
TIE_ORDERS = {
    "trec": "by item id descending (trec_eval's rule, scores compared in single precision)",
    "average": "as the expected value over every order of the tied items",
    "input": "in input order",
    "id_ascending": "by item id ascending",
    "id_descending": "by item id descending",
    "worst": "by grade ascending (the least relevant first)",
}


def tie_checked(spec: MetricSpec, conv: Conventions) -> bool:
    """Whether the report compares a ranked metric's value with its ``ties="average"``
    value: the kernel's metrics under another tie order (not expected exposure, the
    propensity-weighted ones, nor ndcg_rel with a negative gain, which has no
    closed form over tie orders)."""
    if conv.ties == "average" or conv.estimator != "naive":
        return False
    if spec.info.kind in codes.EXPOSURE_KINDS:
        return False
    gains: Any = dict(spec.args).get("gains", ())
    return not (spec.info.kind == codes.NDCG_REL and any(g < 0 for _, g in gains))


# the averaged kernels whose cost grows faster than the list: interpolated precision
# takes O((s * h)**2) per tied block of s items, h of them relevant
TIE_COSTLY_KINDS = frozenset({codes.IPREC_AT_RECALL, codes.IPREC_AVG})


def grade_limits(
    spec: MetricSpec, conv: Conventions, profile: str | None
) -> dict[str, float | None]:
    """The rules by which a ranked metric refuses some qrels grades, each with its
    limit: :func:`~receval.ranking.values.check_grades` applies them to the qrels, and
    a metric without a rule takes any grade.

    ``"refusal"``: under ``profile``, the grades its peer refuses or changes in this
    metric (:data:`~receval.conventions.PROFILE_REFUSED`; limit 0.0, unused); ``"peer"``:
    under ``profile``, ``ndcg`` of the exponential gain (or of a gains table
    standing for the peer's) takes the integers from 0 to the limit - 1, as its peer
    does (:data:`~receval.conventions.PROFILE_GRADES`; the limit is the table's last
    grade + 1 with ``gains=``); ``"exponential"``: ``gain="exponential"`` (2**grade - 1)
    takes the grades below the limit, whose gain float64 holds; ``"integers"``: a table
    of gains (``gains=``, LightGBM's ``label_gain``) takes integer grades below the
    limit (trec_eval's table holds a level for each integer up to the largest);
    ``"stop"``: gdeval's ERR takes the grades up to ``max_grade``, above which its
    cascade would stop the user with a probability above 1 (CatBoost's
    ``probability=true`` reads any grade as it is, as CatBoost does); ``"sums"``:
    trec_eval's gain measures (``G``, ``ndcg_rel``, ``Rndcg`` and the DCG family with
    ``gains=``), which sum the gains of trec_eval's table without rescaling them, take
    the qrels whose positive gains (of the grades from the limit on) sum within
    float64's range for each user.

    Examples
    --------
    >>> from receval.ranking.specs import grade_limits, metric_conventions
    >>> grade_limits(*metric_conventions("err@10"), None)
    {'stop': 4.0}
    >>> grade_limits(*metric_conventions("ndcg@10", profile="xgboost"), "xgboost")
    {'peer': 32.0, 'exponential': 1024.0}
    """
    args: dict[str, Any] = dict(spec.args)
    gains = args.get("gains")
    limits: dict[str, float | None] = {}
    refusal = PROFILE_REFUSED.get(profile) if isinstance(profile, str) else None
    if refusal is not None and (not refusal.metrics or spec.name in refusal.metrics):
        limits["refusal"] = 0.0  # the rule is the profile's (check_grades reads it)
    peer = PROFILE_GRADES.get(profile) if isinstance(profile, str) else None
    if (
        peer is not None
        and spec.name == "ndcg"
        and (conv.gain == "exponential" if gains is None else peer.tabled)
    ):
        last = peer.grades - 1 if gains is None else max((g for g, _ in gains), default=0)
        limits["peer"] = float(int(last) + 1)
    if conv.gain == "exponential":
        limits["exponential"] = _OVERFLOWING_GRADE
    if gains is not None:
        limits["integers"] = TABLE_GRADES
    if spec.name in ("err", "nerr") and not args.get("probability"):
        limits["stop"] = float(args.get("max_grade", 4.0))
    if sums_table_gains(spec):
        limits["sums"] = 0.0  # trec_eval's table: the grades from 0 on
    return limits


def sums_table_gains(spec: MetricSpec) -> bool:
    """Whether a ranked metric sums the gains of trec_eval's table without rescaling
    them (``G``, ``ndcg_rel``, ``Rndcg``, the DCG family with ``gains=``): its
    ``"sums"`` rule of :func:`grade_limits` reads each user's gains whole."""
    kind = spec.info.kind
    return kind in _TABLE_SUM_KINDS or ("gains" in dict(spec.args) and kind in _DCG_KINDS)

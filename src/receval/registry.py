"""One table of every metric receval computes, of every family, with its names.

Each :class:`MetricEntry` gives a metric's canonical name (the function's name
without ``_score``), the aliases users type, a one-line definition, the
direction, the data it needs and how its rows may be partitioned (the
backends that can run it: ``"any"`` split, whole ``"groups"``, disjoint score
``"ranges"``). :func:`list_metrics` and :func:`metric_info` read it; the
command line's names and the ranking parser's names come from it.

Families: ``pointwise`` (one score per impression), ``grouped`` (per-group
AUC), ``ranking`` (top-K lists against judgments: the metric strings of
:func:`receval.evaluate`), ``list`` (beyond accuracy, from the lists alone) and
``retention``, and ``off_policy`` (a target policy's expected reward estimated
from logged bandit feedback).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

from .engine.metric import MetricDefinition
from .exceptions import InvalidParameterError

__all__ = [
    "FAMILIES",
    "POINTWISE_METRICS",
    "MetricEntry",
    "PointwiseMetric",
    "definition",
    "definitions",
    "list_metrics",
    "metric_info",
    "pointwise_metric",
]

FAMILIES = ("pointwise", "grouped", "ranking", "list", "retention", "off_policy")


@dataclass(frozen=True)
class MetricEntry:
    """What the registry knows of one metric.

    Attributes
    ----------
    name : str
        Canonical name.
    family : str
        One of :data:`FAMILIES`.
    description : str
        One-line definition.
    aliases : tuple of str
        Other names accepted for it (in its family's contexts).
    higher_is_better : bool or None
        None where neither direction is better (PCOC and COPC: 1 is best).
    inputs : tuple of str
        The data it needs.
    partitionings : tuple of str
        How its rows may be split across batches, partitions or workers:
        ``"any"``, ``"groups"`` (whole groups or users), ``"ranges"`` (disjoint
        score ranges); empty when it needs all the rows at once.
    function : str
        The public function (or ``"evaluate"`` for a metric string).
    accepts_k : bool
        Whether it takes an ``@k`` cut-off.
    source : str
        The definition it follows (``"trec_eval 10.0"``, ``"ir_measures"``,
        ``"ranx"``, ``"scikit-learn"``, ``"receval"``, ...).
    parameters : tuple of str
        Its metric-specific parameters, one line each
        (``"p: persistence, in (0, 1), default 0.8"``).
    conventions : tuple of str
        The conventions of :func:`receval.evaluate` that change its value (ranking
        and list metrics); its metric string takes these and its parameters only.
    """

    name: str
    family: str
    description: str
    aliases: tuple[str, ...] = ()
    higher_is_better: bool | None = True
    inputs: tuple[str, ...] = ("y_true", "y_score")
    partitionings: tuple[str, ...] = ("any",)
    function: str = ""
    accepts_k: bool = False
    source: str = "receval"
    parameters: tuple[str, ...] = ()
    conventions: tuple[str, ...] = ()


_WEIGHTED = ("y_true", "y_score", "sample_weight")
_PROBA = ("y_true", "y_prob", "sample_weight")

_POINTWISE = [
    MetricEntry("roc_auc", "pointwise", "area under the ROC curve, exact (ties count one half)",
                ("auc", "roc_auc_score"), True, _WEIGHTED, ("any", "ranges"), "roc_auc_score",
                source="scikit-learn"),
    MetricEntry("log_loss", "pointwise", "mean binary cross-entropy of predicted probabilities",
                ("logloss", "cross_entropy"), False, _PROBA, ("any",), "log_loss",
                source="scikit-learn"),
    MetricEntry("normalized_entropy", "pointwise",
                "log loss over the entropy of the base rate (TorchRec's NE)",
                ("ne",), False, _PROBA, ("any",), "normalized_entropy",
                source="TorchRec"),
    MetricEntry("pcoc", "pointwise", "predicted clicks over observed clicks; 1 is calibrated",
                (), None, _PROBA, ("any",), "pcoc"),
    MetricEntry("copc", "pointwise", "observed clicks over predicted clicks; 1 is calibrated",
                (), None, _PROBA, ("any",), "copc"),
    MetricEntry("average_precision", "pointwise",
                "step-wise area under the precision-recall curve (scikit-learn's AP)",
                ("ap", "average_precision_score"), True, _WEIGHTED, (), "average_precision_score",
                source="scikit-learn"),
    MetricEntry("pr_auc", "pointwise", "trapezoidal area under the precision-recall curve",
                ("pr_auc_score",), True, _WEIGHTED, (), "pr_auc_score"),
    MetricEntry("break_even_point", "pointwise", "precision where precision equals recall",
                ("bep",), True, _WEIGHTED, (), "break_even_point"),
    MetricEntry("expected_calibration_error", "pointwise",
                "weighted mean gap between observed rate and mean prediction per bin",
                ("ece",), False, _PROBA, (), "expected_calibration_error",
                source="Guo et al. 2017"),
    MetricEntry("root_mean_squared_error", "pointwise", "root mean squared error",
                ("rmse",), False, ("y_true", "y_pred", "sample_weight"), ("any",),
                "root_mean_squared_error",
                source="scikit-learn"),
    MetricEntry("mean_absolute_error", "pointwise", "mean absolute error",
                ("mae",), False, ("y_true", "y_pred", "sample_weight"), ("any",),
                "mean_absolute_error",
                source="scikit-learn"),
    MetricEntry("brier_score", "pointwise", "mean squared error of predicted probabilities",
                ("brier", "brier_score_loss"), False, ("y_true", "y_proba", "sample_weight"),
                ("any",), "brier_score_loss", source="scikit-learn"),
    MetricEntry("r2", "pointwise", "coefficient of determination: 1 - squared error over the "
                "variance of y", ("r2_score", "r_squared"), True,
                ("y_true", "y_pred", "sample_weight"), ("any",), "r2_score",
                source="scikit-learn", parameters=("force_finite: bool, default True",)),
    MetricEntry("explained_variance", "pointwise",
                "1 - variance of the errors over the variance of y",
                ("explained_variance_score",), True, ("y_true", "y_pred", "sample_weight"),
                ("any",), "explained_variance_score", source="scikit-learn",
                parameters=("force_finite: bool, default True",)),
    MetricEntry("partial_auc", "pointwise",
                "ROC AUC up to a false positive rate, McClish-standardised to [0.5, 1]",
                ("pauc", "partial_auc_score"), True, _WEIGHTED, ("any",), "partial_auc",
                source="scikit-learn (McClish 1989)",
                parameters=("max_fpr: in (0, 1], required",)),
    MetricEntry("gauc", "grouped", "per-group ROC AUC weighted by impressions, clicks or 1",
                ("group_auc", "gauc_score"), True, ("y_true", "y_score", "groups", "sample_weight"),
                ("groups",), "gauc_score",
                source="Zhou et al. 2018 (DIN)"),
]  # fmt: skip

_LOGGED = ("reward", "pscore", "action_dist", "action", "position")
_CLIP = "clip: largest importance weight kept, > 0, default None (no clipping)"

_LIST = [
    MetricEntry("catalog_coverage", "list", "share of the catalogue in the top-k lists",
                ("coverage",), True, ("run", "catalog"), (), "catalog_coverage", True,
                source="Microsoft Recommenders"),
    MetricEntry("novelty", "list", "mean self-information -log2(popularity) of recommended items",
                (), True, ("run", "interactions"), ("groups",), "novelty", True,
                source="Microsoft Recommenders"),
    MetricEntry("personalization", "list", "1 - mean cosine similarity between users' lists",
                (), True, ("run",), (), "personalization", True,
                source="Microsoft Recommenders"),
    MetricEntry("gini_index", "list", "Gini index of item exposure in the top-k lists",
                ("gini",), False, ("run",), (), "gini_index", True),
    MetricEntry("pop_reo", "list",
                "PopREO: std / mean of the rates at which relevant head and tail items reach "
                "the top k (Zhu et al. 2020)",
                ("popularity_equal_opportunity",), False, ("qrels", "run", "train"), ("groups",),
                "popularity_equal_opportunity", True, source="Elliot"),
    MetricEntry("pop_rsp", "list",
                "PopRSP: std / mean of the rates at which head and tail items reach the top k "
                "(Zhu et al. 2020)",
                ("popularity_statistical_parity",), False, ("run", "train"), ("groups",),
                "popularity_statistical_parity", True, source="Elliot"),
    MetricEntry("item_coverage", "list",
                "share of the items of the popularity (or log) and the run in the top-k lists "
                "(deprecated: RecBole's ItemCoverage is catalog_coverage with catalog=n)",
                ("itemcoverage",), True, ("run", "popularity"), ("groups",), "item_coverage", True,
                source="receval"),
    MetricEntry("shannon_entropy", "list",
                "entropy (nats) of the items' shares of the top-k rows, over their number",
                ("shannonentropy",), True, ("run",), ("groups",), "shannon_entropy", True,
                source="RecBole"),
    MetricEntry("distributional_coverage", "list",
                "entropy (bits) of the items' shares of the recommendations",
                (), True, ("run",), ("groups",), "distributional_coverage", True,
                source="Microsoft Recommenders"),
    MetricEntry("popularity_serendipity", "list",
                "relevant items ranked above their popularity rank (RecTools' serendipity)",
                (), True, ("run", "qrels", "train", "catalog"), ("groups",),
                "popularity_serendipity", True, source="RecTools"),
    MetricEntry("intersection", "list",
                "share of each top-k list also in a reference run's top-k list",
                (), None, ("run", "reference"), ("groups",), "intersection", True,
                source="RecTools", parameters=("reference_k: int, default k",)),
    MetricEntry("user_coverage", "list",
                "share of users with a relevant item whose top-k list holds one",
                (), True, ("run", "qrels"), ("groups",), "user_coverage", True),
    MetricEntry("ips", "off_policy",
                "inverse propensity scoring: mean importance-weighted reward of a target policy",
                ("ipw", "ips_estimate", "inverse_propensity_score"), True, _LOGGED, ("any",),
                "ips_estimate", source="Horvitz & Thompson 1952; Open Bandit Pipeline",
                parameters=(_CLIP,)),
    MetricEntry("snips", "off_policy",
                "self-normalized IPS: importance-weighted rewards over the sum of the weights",
                ("snipw", "snips_estimate", "self_normalized_ips"), True, _LOGGED, ("any",),
                "snips_estimate", source="Swaminathan & Joachims 2015; Open Bandit Pipeline",
                parameters=(_CLIP,)),
    MetricEntry("dr", "off_policy",
                "doubly robust: a reward model's value plus the importance-weighted residuals",
                ("doubly_robust", "dr_estimate"), True, (*_LOGGED, "estimated_rewards"),
                ("any",), "dr_estimate", source="Dudik et al. 2011; Open Bandit Pipeline",
                parameters=(_CLIP,)),
    MetricEntry("retention", "retention",
                "new, login and returning users per period; day-N retention per cohort",
                (), True, ("events",), ("groups",), "retention"),
]  # fmt: skip


def _ranking_entries() -> list[MetricEntry]:
    from ._registry import REGISTRY, spellings_of

    entries = []
    for name, info in REGISTRY.items():
        family = "ranking" if info.needs == "qrels" else "list"
        inputs = {
            "similarity": ("run", "features"),
            "popularity": ("run", "popularity"),
            "history": ("run", "train"),
            "categories": ("run", "train", "item_categories"),
        }.get(info.needs, ("qrels", "run"))
        shown: dict[str, str] = {name: name}  # nDCG, Bpref: the name in another case
        for row in spellings_of(name):
            shown.setdefault(row.shown.lower(), row.shown)
        aliases = tuple(shown.values())[1:]
        entries.append(
            MetricEntry(name, family, info.description, aliases, info.higher_is_better, inputs,
                        ("groups",), "evaluate", info.accepts_k, info.source,
                        tuple(p.describe() for p in info.params), tuple(sorted(info.conventions)))
        )  # fmt: skip
    return entries


def _entries() -> dict[str, MetricEntry]:
    return {e.name: e for e in [*_POINTWISE, *_ranking_entries(), *_LIST]}


def list_metrics(family: str | None = None) -> list[MetricEntry]:
    """Every metric of one family, or of every family, with its names and definition.

    Parameters
    ----------
    family : {"pointwise", "grouped", "ranking", "list", "retention", "off_policy"}, default=None
        None lists every metric. ``"ranking"`` gives the metrics of
        :func:`receval.evaluate`'s metric strings.

    Returns
    -------
    entries : list of MetricEntry
        Sorted by name; a new list at each call. Each entry has the canonical
        ``name``, the ``aliases`` (other libraries' spellings, e.g. trec_eval's
        ``P_10`` for ``precision``), a one-line ``description``, the
        ``source`` whose definition it follows and its ``parameters``.

    Raises
    ------
    InvalidParameterError
        ``family`` is not one of the families.

    Examples
    --------
    >>> from receval import list_metrics
    >>> "ndcg" in [entry.name for entry in list_metrics("ranking")]
    True
    >>> [entry.name for entry in list_metrics("grouped")]
    ['gauc']
    >>> rbp = next(e for e in list_metrics("ranking") if e.name == "rbp")
    >>> rbp.aliases, rbp.source, rbp.parameters
    (('rbp.95',), 'trec_eval 10.0', ('p: persistence, in (0, 1), default 0.8',))
    """
    if family is not None and family not in FAMILIES:
        raise InvalidParameterError(
            f"The 'family' parameter of list_metrics must be one of {sorted(FAMILIES)}. "
            f"Got {family!r} instead."
        )
    return sorted(
        (e for e in _entries().values() if family in (None, e.family)), key=lambda e: e.name
    )


def metric_info(name: str, family: str | None = None) -> MetricEntry:
    """The registry's entry of a metric, by canonical name or alias (case-insensitive).

    Parameters
    ----------
    name : str
        ``"roc_auc"``, ``"auc"``, ``"ndcg"``, ``"hr"``, ...
    family : str, default=None
        Resolve the name within one family (``"ap"`` is average precision among
        pointwise metrics and mean average precision among ranking ones).

    Returns
    -------
    entry : MetricEntry

    Raises
    ------
    InvalidParameterError
        Unknown name (with the closest one), a name two families use, or a metric
        string with an option its metric does not take (listing the options).

    Examples
    --------
    >>> from receval import metric_info
    >>> metric_info("logloss").name
    'log_loss'
    >>> metric_info("ap", family="ranking").name
    'map'
    >>> metric_info("rbp(p=0.9)").conventions[:4]
    ('depth', 'empty_users', 'estimator', 'gain')
    """
    entries = [e for e in _entries().values() if family in (None, e.family)]
    key = name.strip().lower() if isinstance(name, str) else name
    found = [e for e in entries if key == e.name or key in {a.lower() for a in e.aliases}]
    if not found and isinstance(key, str) and family in (None, "ranking", "list"):
        from ._registry import parse_metric

        try:  # a peer's spelling or a metric string: P_10, nDCG@10, rbp(p=0.9)
            spec_name = parse_metric(name).name
        except InvalidParameterError as exc:
            if not str(exc).startswith(("Unknown metric", "Cannot parse metric")):
                raise  # a metric with an option it does not take, a bad value or cut-off
            spec_name = None
        found = [e for e in entries if e.name == spec_name]
    if len(found) == 1:
        return found[0]
    if len(found) > 1:
        options = ", ".join(f"{e.name!r} ({e.family})" for e in found)
        raise InvalidParameterError(
            f"Metric {name!r} names {options}; pass family= or use the canonical name."
        )
    shown = {a.lower(): a for e in entries for a in e.aliases} | {e.name: e.name for e in entries}
    close = difflib.get_close_matches(str(key), sorted(shown), n=1, cutoff=0.5)
    hint = f" Did you mean {shown[close[0]]!r}?" if close else ""
    raise InvalidParameterError(f"Unknown metric {name!r}.{hint} See receval.list_metrics().")


# ------------------------------------------------------------- pointwise metrics
# Metrics of one score per impression (CTR models), by the short names the
# command line uses. The adapters import their metric module when called, so
# importing this module loads none of them.


class PointwiseMetric(NamedTuple):
    """A pointwise metric: ``(func, description, needs_group, counted)``.

    ``func(y_true, y_score, groups=None, sample_weight=None)`` returns a
    float; ``groups`` is used (and then required) only when ``needs_group``.
    ``counted``, for metrics that leave groups out, takes the same arguments
    and returns ``(value, counts)``, the counts a dict of what was left out.
    """

    func: Callable[..., float]
    description: str
    needs_group: bool = False
    counted: Callable[..., tuple[float, dict[str, int]]] | None = None


def _auc(y_true: Any, y_score: Any, groups: Any = None, sample_weight: Any = None) -> float:
    from .metrics._auc import roc_auc_score

    return float(roc_auc_score(y_true, y_score, sample_weight=sample_weight))


def _gauc(y_true: Any, y_score: Any, groups: Any = None, sample_weight: Any = None) -> float:
    from .metrics._gauc import gauc_score

    return float(gauc_score(y_true, y_score, groups=groups, sample_weight=sample_weight))


def _gauc_counted(
    y_true: Any, y_score: Any, groups: Any = None, sample_weight: Any = None
) -> tuple[float, dict[str, int]]:
    from .metrics._gauc import group_auc

    report = group_auc(y_true, y_score, groups=groups, sample_weight=sample_weight)
    counts = {
        "n_groups": int(report.n_groups),
        "n_groups_skipped": int(report.n_groups_skipped),
        "n_rows_skipped": int(report.n_rows_skipped),
    }
    return float(report.score), counts


def _logloss(y_true: Any, y_score: Any, groups: Any = None, sample_weight: Any = None) -> float:
    from .metrics._loss import log_loss

    return float(log_loss(y_true, y_score, sample_weight=sample_weight))


def _ne(y_true: Any, y_score: Any, groups: Any = None, sample_weight: Any = None) -> float:
    from .metrics._loss import normalized_entropy

    return float(normalized_entropy(y_true, y_score, sample_weight=sample_weight))


def _pcoc(y_true: Any, y_score: Any, groups: Any = None, sample_weight: Any = None) -> float:
    from .metrics._calibration import pcoc

    return float(pcoc(y_true, y_score, sample_weight=sample_weight))


def _copc(y_true: Any, y_score: Any, groups: Any = None, sample_weight: Any = None) -> float:
    from .metrics._calibration import copc

    return float(copc(y_true, y_score, sample_weight=sample_weight))


def _ap(y_true: Any, y_score: Any, groups: Any = None, sample_weight: Any = None) -> float:
    from .metrics._auc import average_precision_score

    return float(average_precision_score(y_true, y_score, sample_weight=sample_weight))


def _pr_auc(y_true: Any, y_score: Any, groups: Any = None, sample_weight: Any = None) -> float:
    from .metrics._auc import pr_auc_score

    return float(pr_auc_score(y_true, y_score, sample_weight=sample_weight))


def _bep(y_true: Any, y_score: Any, groups: Any = None, sample_weight: Any = None) -> float:
    from .metrics._auc import break_even_point

    return float(break_even_point(y_true, y_score, sample_weight=sample_weight))


def _ece(y_true: Any, y_score: Any, groups: Any = None, sample_weight: Any = None) -> float:
    from .metrics._calibration import expected_calibration_error

    return float(expected_calibration_error(y_true, y_score, sample_weight=sample_weight))


def _rmse(y_true: Any, y_score: Any, groups: Any = None, sample_weight: Any = None) -> float:
    from .metrics._loss import root_mean_squared_error

    return float(root_mean_squared_error(y_true, y_score, sample_weight=sample_weight))


def _brier(y_true: Any, y_score: Any, groups: Any = None, sample_weight: Any = None) -> float:
    from .metrics._regression import brier_score_loss

    return float(brier_score_loss(y_true, y_score, sample_weight=sample_weight))


def _r2(y_true: Any, y_score: Any, groups: Any = None, sample_weight: Any = None) -> float:
    from .metrics._regression import r2_score

    return float(r2_score(y_true, y_score, sample_weight=sample_weight))


def _explained_variance(
    y_true: Any, y_score: Any, groups: Any = None, sample_weight: Any = None
) -> float:
    from .metrics._regression import explained_variance_score

    return float(explained_variance_score(y_true, y_score, sample_weight=sample_weight))


def _mae(y_true: Any, y_score: Any, groups: Any = None, sample_weight: Any = None) -> float:
    from .metrics._loss import mean_absolute_error

    return float(mean_absolute_error(y_true, y_score, sample_weight=sample_weight))


POINTWISE_METRICS: dict[str, PointwiseMetric] = {
    "auc": PointwiseMetric(_auc, "ROC AUC over all impressions (roc_auc_score)"),
    "gauc": PointwiseMetric(
        _gauc,
        "group AUC: per-group AUC weighted by impressions (gauc_score)",
        needs_group=True,
        counted=_gauc_counted,
    ),
    "logloss": PointwiseMetric(_logloss, "mean binary cross-entropy (log_loss)"),
    "ne": PointwiseMetric(
        _ne, "normalized entropy: log loss over the base rate's entropy (normalized_entropy)"
    ),
    "pcoc": PointwiseMetric(_pcoc, "predicted CTR / observed CTR; 1 is calibrated (pcoc)"),
    "copc": PointwiseMetric(_copc, "observed CTR / predicted CTR; 1 is calibrated (copc)"),
    "ap": PointwiseMetric(_ap, "average precision, step-wise (average_precision_score)"),
    "pr_auc": PointwiseMetric(_pr_auc, "area under the PR curve, trapezoidal (pr_auc_score)"),
    "bep": PointwiseMetric(_bep, "precision-recall break-even point (break_even_point)"),
    "ece": PointwiseMetric(
        _ece, "expected calibration error, 10 uniform bins (expected_calibration_error)"
    ),
    "rmse": PointwiseMetric(_rmse, "root mean squared error (root_mean_squared_error)"),
    "mae": PointwiseMetric(_mae, "mean absolute error (mean_absolute_error)"),
    "brier": PointwiseMetric(
        _brier, "Brier score: mean squared error of the probabilities (brier_score_loss)"
    ),
    "r2": PointwiseMetric(_r2, "coefficient of determination (r2_score)"),
    "explained_variance": PointwiseMetric(
        _explained_variance, "explained variance (explained_variance_score)"
    ),
}


# canonical registry name -> the short name of POINTWISE_METRICS
_SHORT = {
    "roc_auc": "auc",
    "gauc": "gauc",
    "log_loss": "logloss",
    "normalized_entropy": "ne",
    "pcoc": "pcoc",
    "copc": "copc",
    "average_precision": "ap",
    "pr_auc": "pr_auc",
    "break_even_point": "bep",
    "expected_calibration_error": "ece",
    "root_mean_squared_error": "rmse",
    "mean_absolute_error": "mae",
    "brier_score": "brier",
    "r2": "r2",
    "explained_variance": "explained_variance",
}


def pointwise_metric(name: str) -> PointwiseMetric:
    """Look up a pointwise metric by its short name (``"auc"``, ``"gauc"``, ...).

    Parameters
    ----------
    name : str
        A key of ``POINTWISE_METRICS`` or a pointwise metric's canonical name or
        alias in this registry (``"log_loss"``, ``"roc_auc"``),
        case-insensitive.

    Returns
    -------
    metric : PointwiseMetric
        Unpacks as ``(func, description, needs_group, counted)``.

    Raises
    ------
    InvalidParameterError
        Unknown name, with the closest one.

    Examples
    --------
    >>> from receval.registry import pointwise_metric
    >>> func, description, needs_group, counted = pointwise_metric("AUC")
    >>> func([0, 1, 1], [0.1, 0.4, 0.3])
    1.0
    """
    key = name.strip().lower() if isinstance(name, str) else name
    if key in POINTWISE_METRICS:
        return POINTWISE_METRICS[key]
    # the canonical names and aliases of the registry (log_loss, roc_auc, ...)
    for family in ("pointwise", "grouped"):
        try:
            canonical = metric_info(str(key), family=family).name
        except InvalidParameterError:
            continue
        if _SHORT.get(canonical) in POINTWISE_METRICS:
            return POINTWISE_METRICS[_SHORT[canonical]]
    close = difflib.get_close_matches(str(key), sorted(POINTWISE_METRICS), n=1, cutoff=0.5)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    names = ", ".join(sorted(POINTWISE_METRICS))
    raise InvalidParameterError(f"Unknown metric {name!r}.{hint} Pointwise metrics: {names}.")


# ------------------------------------------------------------------ the engine's definitions
def definitions() -> dict[str, MetricDefinition]:
    """Every mergeable metric's definition, by canonical name.

    Each metric module registers its definitions when imported; this imports them
    all. ``"ranking"`` stands for every metric string of :func:`receval.evaluate`.
    """
    from .engine.metric import DEFINITIONS
    from .metrics import (  # noqa: F401
        _auc,
        _calibration,
        _gauc,
        _loss,
        _offpolicy,
        _partial_auc,
        _popularity_engine,
        _regression,
    )
    from .ranking import definition  # noqa: F401  (each module registers its metrics)

    return dict(DEFINITIONS)


def definition(name: str) -> MetricDefinition:
    """The definition of a metric name or alias (case-insensitive).

    Ranking metric strings (``"ndcg@10"``, ``"map(ap_normalizer=min_k)@100"``)
    give the ``"ranking"`` definition.

    Raises
    ------
    InvalidParameterError
        Unknown name, with the closest known one.
    """
    from ._registry import REGISTRY as RANKING
    from ._registry import SPELLINGS, parse_metric
    from .engine.metric import ALIASES

    if not isinstance(name, str):
        raise InvalidParameterError(
            f"A metric name must be a string such as 'roc_auc'. Got {name!r} instead."
        )
    known = definitions()
    key = name.strip().lower()
    key = ALIASES.get(key, key)
    if key in known:
        return known[key]
    try:
        parse_metric(name)
    except InvalidParameterError as exc:
        if not str(exc).startswith(("Unknown metric", "Cannot parse metric")):
            raise  # a ranking metric with a bad parameter, cut-off or convention
    else:
        return known["ranking"]  # ndcg@10, map(ap_normalizer=min_k)@100, P_10, ...
    ranking = set(RANKING) | {s.shown.lower() for s in SPELLINGS}
    names = sorted((set(known) - {"ranking"}) | set(ALIASES) | ranking)
    close = difflib.get_close_matches(key, names, n=1, cutoff=0.5)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    raise InvalidParameterError(f"Unknown metric {name!r}.{hint} See receval.list_metrics().")

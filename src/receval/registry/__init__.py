"""The registry: one table of every metric receval computes, of every family, as data.

Each row (:class:`MetricEntry`) gives a metric's canonical name, its family,
a one-line definition, the direction, its data arguments, how its rows may be
partitioned (``"any"`` split, whole ``"groups"``, disjoint score ``"ranges"``),
its typed parameters, the conventions it reads, its source, and where its
function and its engine definition live (dotted paths: importing the registry
imports no metric module). Peers' spellings are rows too
(:mod:`receval.registry.peers`), and one grammar (:mod:`receval.registry.grammar`)
reads ``name(param=value, ...)@k`` for every family. Every entry point resolves
names here (:func:`resolve`), so a name means one metric everywhere.

Families: ``pointwise`` (one score per impression), ``grouped`` (per-group
AUC), ``ranking`` (top-K lists against judgments: the metric strings of
:func:`receval.evaluate`), ``list`` (beyond accuracy, from the lists alone),
``retention``, and ``off_policy`` (a target policy's expected reward estimated
from logged bandit feedback).
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ..exceptions import InvalidParameterError, warn

if TYPE_CHECKING:
    from ..engine.metric import MetricDefinition
    from .grammar import MetricSpec, parse_metric, parse_metrics
    from .grammar import parse_with as parse_with
    from .pointwise import PointwiseMetric
    from .pointwise import pointwise_adapter as pointwise_adapter
    from .schema import FAMILIES, MetricEntry, Param
    from .table import ENTRIES, RANKING, load

#: The module of each name this package exports from its modules: each loads on first
#: use (``receval --help`` needs the families, not the grammar nor the table).
_LAZY = {
    "MetricSpec": "grammar", "parse_metric": "grammar", "parse_metrics": "grammar",
    "parse_with": "grammar", "PointwiseMetric": "pointwise", "pointwise_adapter": "pointwise",
    "FAMILIES": "schema", "MetricEntry": "schema", "Param": "schema", "ENTRIES": "table",
    "RANKING": "table", "load": "table",
}  # fmt: skip

__all__ = [
    "ENTRIES",
    "FAMILIES",
    "RANKING",
    "MetricEntry",
    "MetricSpec",
    "Param",
    "PointwiseMetric",
    "definition",
    "definitions",
    "list_metrics",
    "load",
    "metric_info",
    "metric_options",
    "parse_metric",
    "parse_metrics",
    "pointwise_metric",
    "ranking_spec",
    "resolve",
]


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
    ['gauc', 'grouped_auprc', 'grouped_regression_auc', 'grouped_xauc']
    >>> rbp = next(e for e in list_metrics("ranking") if e.name == "rbp")
    >>> rbp.aliases, rbp.source, rbp.parameters
    (('rbp.95',), 'trec_eval 10.0', ('p: persistence, in (0, 1), default 0.8',))
    """
    from .schema import FAMILIES
    from .table import ENTRIES

    if family is not None and family not in FAMILIES:
        raise InvalidParameterError(
            f"The 'family' parameter of list_metrics must be one of {sorted(FAMILIES)}. "
            f"Got {family!r} instead."
        )
    return sorted((e for e in ENTRIES.values() if family in (None, e.family)), key=lambda e: e.name)


def metric_info(name: str, family: str | None = None) -> MetricEntry:
    """The registry's row of a metric, by canonical name, alias or metric string.

    Parameters
    ----------
    name : str
        ``"roc_auc"``, ``"auc"``, ``"ndcg@10"``, ``"P_10"``, ``"gauc(weighting=clicks)"``,
        ... (case-insensitive).
    family : str, default=None
        Refuse a metric of another family.

    Returns
    -------
    entry : MetricEntry

    Raises
    ------
    InvalidParameterError
        Unknown name (with the closest one), a metric of another family than
        ``family``, or a metric string with an option its metric does not take
        (listing the options).

    Examples
    --------
    >>> from receval import metric_info
    >>> metric_info("logloss").name
    'log_loss'
    >>> metric_info("ap").name  # mean average precision, as in ir_measures
    'map'
    >>> metric_info("rbp(p=0.9)").conventions[:4]
    ('depth', 'empty_users', 'estimator', 'gain')
    """
    return resolve(name, family=family, where="metric_info", supplied=None).info


def resolve(
    name: str,
    *,
    family: str | Iterable[str] | None = None,
    where: str = "",
    supplied: Iterable[str] | None = (),
) -> MetricSpec:
    """The metric a name or metric string means, for every entry point.

    Parameters
    ----------
    name : str
        A metric string of any family (:func:`parse_metric`).
    family : str or iterable of str, default=None
        The families the caller computes; a metric of another one is refused,
        naming its family and where it is computed.
    where : str, default=""
        The caller, as the error names it (``"receval ctr -m"``).
    supplied : iterable of str or None, default=()
        Parameters given as keyword arguments (a required one may then be left
        out of the string); None: any may be left out (a look-up of the row).

    Returns
    -------
    spec : MetricSpec

    Raises
    ------
    InvalidParameterError
        Unknown name (with the closest name of the whole registry), a malformed
        string, a bad parameter, or a metric of another family.

    Examples
    --------
    >>> from receval.registry import resolve
    >>> str(resolve("GAUC(weighting=clicks)"))
    'gauc(weighting=clicks)'
    >>> resolve("ap", family="pointwise", where="receval ctr -m")
    Traceback (most recent call last):
    ...
    receval.exceptions.InvalidParameterError: receval ctr -m: 'ap' is map, a ranking metric ...;
    the average precision of scores is 'average_precision'.
    """
    from .grammar import parse_with

    spec = parse_with(name, None if supplied is None else frozenset(supplied))
    families = (family,) if isinstance(family, str) else tuple(family or ())
    if families and spec.info.family not in families:
        raise _refused(name, spec.info, families, where)
    return spec


def ranking_spec(text: str, where: str = "evaluate") -> MetricSpec:
    """A metric string of :func:`receval.evaluate`, parsed (a metric the ranking kernel
    computes); any other metric is refused, naming where it is computed.

    Examples
    --------
    >>> from receval.registry import ranking_spec
    >>> str(ranking_spec("nDCG@10"))
    'ndcg@10'
    >>> ranking_spec("gauc")
    Traceback (most recent call last):
    ...
    receval.exceptions.InvalidParameterError: evaluate: 'gauc' is gauc, a grouped metric (...),
    not a ranking metric of evaluate; compute it with receval.gauc_score.
    """
    from .grammar import parse_metric

    spec = parse_metric(text)
    if spec.info.kind is None:
        raise _refused(text, spec.info, ("ranking",), where, " of evaluate")
    return spec


def _refused(name: str, entry: MetricEntry, wanted: tuple[str, ...], where: str,
             of: str = "") -> InvalidParameterError:  # fmt: skip
    """The error of a metric of another family than the ``wanted`` ones (``of``: what
    follows their name, e.g. " of evaluate")."""
    from .schema import family_words

    if entry.function == "evaluate":
        hint = f"compute it with receval.evaluate(qrels, run, {entry.name!r})"
    else:
        hint = f"compute it with receval.{entry.function}"
    if entry.name == "map":
        hint = "the average precision of scores is 'average_precision'"
    prefix = f"{where}: " if where else ""
    return InvalidParameterError(
        f"{prefix}{name!r} is {entry.name}, {family_words(entry.family)} metric "
        f"({entry.description}), not {family_words(*wanted)} metric{of}; {hint}."
    )


def metric_options(spec: MetricSpec, options: Mapping[str, Any], where: str) -> dict[str, Any]:
    """The options of a metric that is not a ranking one: its string's parameters
    (and ``@k`` as ``k``) with the keyword ``options``, each checked against the row.

    Raises
    ------
    InvalidParameterError
        A key the metric does not take (naming the metric and listing its
        options), or a parameter given both in the string and as a keyword.
    """
    entry = spec.info
    own = [p.name for p in entry.params] + (["k"] if entry.accepts_k else [])
    for key in options:
        if key not in own:
            close = difflib.get_close_matches(key, own, n=1, cutoff=0.6)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            listed = f"its options are {own}" if own else "it takes none"
            raise InvalidParameterError(f"{where} takes no option {key!r}{hint}; {listed}.")
    given = spec.given | ({"k": spec.k} if spec.k is not None else {})
    twice = sorted(set(given) & set(options))
    if twice:
        raise InvalidParameterError(
            f"{where}: {twice[0]} is given both in the metric string {str(spec)!r} and as a "
            f"keyword argument; give it once."
        )
    return given | dict(options)


def pointwise_metric(name: str) -> PointwiseMetric:
    """Deprecated: a pointwise or grouped metric by name, as one callable.

    Use :func:`resolve` (or :func:`metric_info`) and the metric's function; this
    returns ``pointwise_adapter(resolve(name, family=("pointwise", "grouped")))``.
    """
    warn(
        "receval.registry.pointwise_metric is deprecated; use receval.registry.resolve(name) "
        "and the function its row names (receval.metric_info(name).function).",
        DeprecationWarning,
    )
    from .pointwise import pointwise_adapter

    return pointwise_adapter(
        resolve(name, family=("pointwise", "grouped"), where="pointwise_metric")
    )


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
        globals()[name] = value  # found directly from now on
        return value
    if name == "POINTWISE_METRICS":
        from .pointwise import pointwise_adapter
        from .table import ENTRIES

        warn(
            "receval.registry.POINTWISE_METRICS is deprecated; use "
            "receval.list_metrics('pointwise') and receval.registry.resolve(name).",
            DeprecationWarning,
        )
        return {
            key: pointwise_adapter(resolve(entry.name))
            for entry in ENTRIES.values()
            if entry.family in ("pointwise", "grouped") and not _needs_params(entry)
            for key in (entry.name, *(a.lower() for a in entry.aliases))
        }
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _needs_params(entry: MetricEntry) -> bool:
    return any(p.required for p in entry.params)


def definitions() -> dict[str, MetricDefinition]:
    """Every mergeable metric's definition, by canonical name: each row's definition
    module is imported (it registers its definitions). ``"ranking"`` stands for every
    metric string of :func:`receval.evaluate`."""
    from ..engine.metric import DEFINITIONS
    from .table import ENTRIES

    for entry in ENTRIES.values():
        if entry.definition_path:
            importlib.import_module(entry.definition_path)
    return dict(DEFINITIONS)


def definition(name: str, options: Iterable[str] = (), func: str | None = None) -> MetricDefinition:
    """The engine definition of a metric name or metric string (case-insensitive).

    Ranking metric strings (``"ndcg@10"``, ``"map(ap_normalizer=min_k)@100"``)
    give the ``"ranking"`` definition; a metric registered with
    :func:`receval.engine.metric.register` that has no row is found by its name.
    ``func``: the caller that computes the metric by parts (``receval.spark.compute``),
    which a metric without a definition is refused naming (default:
    ``receval.metric(name)``).

    Raises
    ------
    InvalidParameterError
        Unknown name, with the closest known one; a metric with no definition (it
        needs all its rows at once), naming its function.
    """
    from ..engine.metric import DEFINITIONS
    from .grammar import parse_with
    from .table import ENTRIES

    if not isinstance(name, str):
        several = isinstance(name, (list, tuple)) and all(isinstance(n, str) for n in name)
        fix = (
            "; make one accumulator a metric: {n: receval.metric(n) for n in names}"
            if several
            else ""
        )
        raise InvalidParameterError(
            f"A metric name must be a string such as 'roc_auc'. Got {name!r} instead{fix}."
        )
    key = name.strip().lower()
    if key in DEFINITIONS and key not in ENTRIES and key != "ranking":
        return DEFINITIONS[key]  # a metric of the user's own, without a row
    entry = parse_with(name, frozenset(options)).info
    if not entry.definition_path:
        if func is None:
            raise InvalidParameterError(
                f"receval.metric({name!r}): {entry.name} has no accumulator (it needs all "
                f"its rows at once); use receval.{entry.function} on the whole data."
            )
        raise InvalidParameterError(
            f"{func}: {entry.name} has no accumulator (it needs all its rows at once), so "
            f"{func} cannot compute it by parts; use receval.{entry.function} on the whole "
            f"data in memory."
        )
    importlib.import_module(entry.definition_path)  # the module registers its definitions
    return DEFINITIONS["ranking" if entry.kind is not None else entry.name]


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))

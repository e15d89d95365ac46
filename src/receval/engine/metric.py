"""A metric as a definition: check parameters, prepare a batch, update a state, merge, finalize.

Every mergeable metric is one :class:`MetricDefinition`; the sources only cut rows
(arrays in memory, :func:`receval.scan` batches, the user's own training loop
through :func:`receval.metric`) and every source runs the same definition:

==============  =============================================================
step            rule
==============  =============================================================
check_params    once, before any row: ``InvalidParameterError``
prepare         validates one batch of rows with the function's own checks and
                messages; returns the validated arrays
update          reduces a prepared batch to a state (the kernels)
merge           ``state.merge(other)``: associative and commutative, exact
finalize        the value (or nan and the warning), written once
==============  =============================================================

``partitioning`` says how rows may be split across updates: ``"any"`` (sums:
any split), ``"groups"`` (whole groups or users per update), ``"ranges"``
(disjoint score ranges).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..exceptions import InvalidParameterError

__all__ = ["DEFINITIONS", "MetricDefinition", "definition", "register"]


@dataclass(frozen=True)
class MetricDefinition:
    """One metric, as every backend runs it.

    Attributes
    ----------
    name : str
        Canonical name (``"log_loss"``, ``"roc_auc"``, ...).
    family : str
        ``"pointwise"``, ``"grouped"`` or ``"ranking"``.
    partitioning : str
        How rows may be split across updates: ``"any"``, ``"groups"`` or ``"ranges"``.
    description : str
        One line.
    higher_is_better : bool
    inputs : tuple of str
        The data arguments of ``update``, in order.
    check_params : callable
        ``check_params(**options) -> params`` (a dict), raising ``InvalidParameterError``.
    prepare : callable
        ``prepare(params, *data, **data) -> batch``: the validated arrays of one batch.
    update : callable
        ``update(params, batch) -> state``; states have ``merge``.
    empty : callable
        ``empty(params) -> state``: the state of no row.
    finalize : callable
        ``finalize(params, state) -> value``: what the metric's function returns.
    update_into : callable, optional
        ``update_into(params, state, batch) -> state``: adds a batch to a state it
        may change in place (an accumulator's own state), for states whose fresh
        copy costs more than the batch (binned AUC).
    """

    name: str
    family: str
    partitioning: str
    description: str
    higher_is_better: bool
    inputs: tuple[str, ...]
    check_params: Callable[..., dict[str, Any]]
    prepare: Callable[..., Any]
    update: Callable[[dict[str, Any], Any], Any]
    empty: Callable[[dict[str, Any]], Any]
    finalize: Callable[[dict[str, Any], Any], Any]
    update_into: Callable[[dict[str, Any], Any, Any], Any] | None = None


#: Every registered definition, by canonical name.
DEFINITIONS: dict[str, MetricDefinition] = {}
#: Aliases users type, to canonical names.
ALIASES: dict[str, str] = {}


def register(defn: MetricDefinition, aliases: tuple[str, ...] = ()) -> MetricDefinition:
    """Add a definition (and its aliases) to the engine; returns it."""
    if defn.partitioning not in ("any", "groups", "ranges"):
        raise InvalidParameterError(
            f"register: partitioning must be one of ['any', 'groups', 'ranges']. "
            f"Got {defn.partitioning!r} instead."
        )
    DEFINITIONS[defn.name] = defn
    for alias in aliases:
        ALIASES[alias] = defn.name
    return defn


def definition(name: str) -> MetricDefinition:
    """The definition of a metric name or alias (case-insensitive).

    Raises
    ------
    InvalidParameterError
        Unknown name, with the closest known one.
    """
    from . import definitions  # noqa: F401  (registers the built-in metrics)

    if not isinstance(name, str):
        raise InvalidParameterError(
            f"A metric name must be a string such as 'roc_auc'. Got {name!r} instead."
        )
    key = name.strip().lower()
    key = ALIASES.get(key, key)
    if key in DEFINITIONS:
        return DEFINITIONS[key]
    ranking = _ranking_names()
    if key.split("@", 1)[0].split("(", 1)[0] in ranking:
        return DEFINITIONS["ranking"]  # ndcg@10, map(ap_normalizer=min_k)@100, ...
    known = sorted((set(DEFINITIONS) - {"ranking"}) | set(ALIASES) | ranking)
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.5)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    raise InvalidParameterError(f"Unknown metric {name!r}.{hint} See receval.list_metrics().")


def _ranking_names() -> set[str]:
    """The ranking metrics' names and aliases (``ndcg``, ``hr``, ``ap``, ...)."""
    from .._registry import ALIASES as RANKING_ALIASES
    from .._registry import REGISTRY as RANKING

    return set(RANKING) | set(RANKING_ALIASES)

"""An accumulator restored from a pickle or a ``state_dict``: its attributes checked,
and the options its metric gained since it was saved filled in at their defaults,
before any is used (a state that is not what the metric makes is an error naming
the field, never a silent value)."""

from __future__ import annotations

import importlib
from collections import deque
from collections.abc import Collection
from typing import Any

from ...exceptions import InvalidParameterError
from ..kinds import NO_WEIGHTS, WeightKind, held_01
from ..metric import DEFINITIONS, MetricDefinition
from ..states import check_loaded_state, invalid_state
from ..window import Window

__all__ = ["ATTRIBUTES", "check_rows", "checked_attributes", "later_options"]

#: the attributes of a pickled accumulator
ATTRIBUTES = {
    "name",
    "definition",
    "_params",
    "_state",
    "n_updates",
    "window",
    "_window",
    "_synced",
    "background",
    "_weights",
}


def checked_attributes(state: Any, gained: Collection[str] = ()) -> dict[str, Any]:
    """An accumulator's pickled ``__dict__``, checked, with its definition looked up;
    ``gained``: the options its metric gained since it was saved, beside those its
    options lack (a ``state_dict``'s were filled in before)."""
    if isinstance(state, dict) and "_synced" not in state and "background" not in state:
        state = dict(state, _synced=None, background=False)  # pickled before sync existed
    if isinstance(state, dict) and "_weights" not in state:  # pickled before it was held:
        state = dict(state, _weights=NO_WEIGHTS)  # the next update with rows tells it
    if not isinstance(state, dict) or set(state) != ATTRIBUTES:
        keys = sorted(state) if isinstance(state, dict) else type(state).__name__
        raise invalid_state(f"expected the attributes {sorted(ATTRIBUTES)}, got {keys}")
    checked: dict[str, Any] = dict(state)
    state = checked
    defn = state["definition"]
    if isinstance(defn, tuple):
        if not (len(defn) == 2 and all(isinstance(x, str) for x in defn)
                and defn[0].split(".")[0] == __name__.split(".")[0]):  # fmt: skip
            raise invalid_state(f"the definition must name a receval metric, got {defn!r}")
        module, name = defn
        importlib.import_module(module)  # registers the metric, as unpickling a class does
        if name not in DEFINITIONS:
            raise invalid_state(f"no metric {name!r} is defined in {module}")
        state["definition"] = defn = DEFINITIONS[name]
    if not isinstance(defn, MetricDefinition):
        raise invalid_state(f"the definition must be a metric, got {type(defn).__name__}")
    if not isinstance(state["name"], str) or not isinstance(state["_params"], dict):
        raise invalid_state("the name must be a str and the options a dict")
    later = later_options(defn, state["_params"])
    state["_params"] = {**state["_params"], **later}
    gained = {*gained, *later}
    n = state["n_updates"]
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise invalid_state(f"n_updates must be an integer >= 0, got {n!r}")
    window, held = state["window"], state["_window"]
    if window is None:
        if held is not None:
            raise invalid_state("a window's batches without a window")
    elif not (isinstance(window, tuple) and len(window) == 2 and isinstance(window[0], int)
              and window[0] > 0 and window[1] in ("batches", "rows")
              and isinstance(held, Window) and (held.size, held.unit) == window):  # fmt: skip
        raise invalid_state(f"the window must be (size > 0, 'batches' or 'rows'), got {window!r}")
    if not isinstance(state["background"], bool):
        raise invalid_state(f"background must be a bool, got {state['background']!r}")
    weights = state["_weights"]
    if not isinstance(weights, WeightKind) or weights.invalid() is not None:
        raise invalid_state(f"_weights must be a WeightKind of None, True or False, got "
                            f"{weights!r}")  # fmt: skip
    template = defn.empty(state["_params"])
    check_rows(state["_state"], template, "state", weights)
    synced = state["_synced"]
    if synced is not None:
        if not (isinstance(synced, tuple) and len(synced) == 2 and type(synced[1]) is int
                and 0 <= synced[1] <= n):  # fmt: skip
            raise invalid_state(f"the synced part must be (state, n_updates <= {n})")
        check_rows(synced[0], template, "synced state", weights)
        precedes = getattr(synced[0], "precedes", None)
        if precedes is not None and not precedes(state["_state"]):
            raise invalid_state("the state's decay is at an update before the synced state's")
    if held is not None:
        for i, batch in enumerate(held.batches):
            if not (isinstance(batch, tuple) and len(batch) == 3 and isinstance(batch[0], int)):
                raise invalid_state(f"window batch {i} must be (rows, state, data)")
            check_rows(batch[1], template, f"window batch {i}", weights)
    if "pos_label" in gained and n:  # saved when the metric took 0/1 labels only
        state["_state"] = held_01(state["_state"])
        if synced is not None:
            state["_synced"] = (held_01(synced[0]), synced[1])
        if held is not None:
            held.batches = deque((rows, held_01(s), data) for rows, s, data in held.batches)
    return checked


def check_rows(state: Any, template: Any, where: str, weights: WeightKind) -> None:
    """:func:`~receval.engine.states.check_loaded_state` of a state loaded (a pickle's, a
    ``state_dict``'s or another rank's at a sync), and where the updates gave no
    ``sample_weight`` (``weights``), what the rows of weight 1 hold where the state's
    class knows it (``invalid_unweighted``: a :class:`~receval.engine.totals.Totals`
    weighs its number of rows)."""
    check_loaded_state(state, template, where)
    check = None if weights.value is not False else getattr(state, "invalid_unweighted", None)
    problem = None if check is None else check()
    if problem is not None:
        field, expected = problem
        raise invalid_state(
            f"{where}.{field} must be {expected}, as the updates gave no sample_weight. "
            f"Got {getattr(state, field)!r}"
        )


def later_options(defn: MetricDefinition, saved: dict[str, Any]) -> dict[str, Any]:
    """The options ``defn`` gained since an accumulator saved ``saved`` (a pickle's or a
    ``state_dict``'s), at their defaults: an option comes with a default that keeps
    what the metric computed before (``pos_label=None`` of ``log_loss``, NE, PCOC and
    COPC: 0/1 labels, 1 positive; their states then hold the labels 0/1, see
    :func:`~receval.engine.kinds.held_01`). None of a metric with an option that has
    no default (``max_fpr``)."""
    try:
        defaults = defn.checked(f"receval.metric({defn.name!r})")
    except (InvalidParameterError, TypeError):
        return {}
    return {k: x for k, x in defaults.items() if k not in saved}

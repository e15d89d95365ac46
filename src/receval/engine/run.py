"""The accumulator that :func:`receval.metric` returns (see :mod:`receval.engine.accumulator`)."""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np

from ..exceptions import InvalidParameterError
from .metric import DEFINITIONS, MetricDefinition
from .states import check_loaded_state, invalid_state
from .window import Window, batch_rows

__all__ = ["Accumulator"]


def _as_arrays(data: Any) -> Any:
    """Tensors and other array-likes as NumPy arrays, without importing their library.

    Objects with ``__array__`` (NumPy, pandas, polars, CPU torch tensors) go through
    ``numpy.asarray``; objects with only ``__dlpack__`` through ``numpy.from_dlpack``.
    Lists, Arrow arrays and DataFrame columns are left to the metric's own checks.
    """
    if data is None or isinstance(data, (list, tuple, np.ndarray, str)):
        return data
    module = type(data).__module__
    if module.startswith(("pyarrow", "pandas", "polars")):
        return data
    if hasattr(data, "__array__"):
        if hasattr(data, "detach") and hasattr(data, "cpu"):  # a torch tensor
            data = data.detach().cpu()
        return np.asarray(data)
    if hasattr(data, "__dlpack__"):
        return np.from_dlpack(data)
    return data


_KEYS = {"name", "definition", "_params", "_state", "n_updates", "window", "_window"}


def _checked_state(state: Any) -> dict[str, Any]:
    """An accumulator's pickled ``__dict__``, checked, with its definition looked up."""
    if not isinstance(state, dict) or set(state) != _KEYS:
        keys = sorted(state) if isinstance(state, dict) else type(state).__name__
        raise invalid_state(f"expected the attributes {sorted(_KEYS)}, got {keys}")
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
    template = defn.empty(state["_params"])
    check_loaded_state(state["_state"], template)
    if held is not None:
        for i, batch in enumerate(held.batches):
            if not (isinstance(batch, tuple) and len(batch) == 3 and isinstance(batch[0], int)):
                raise invalid_state(f"window batch {i} must be (rows, state, data)")
            check_loaded_state(batch[1], template, f"window batch {i}")
    return checked


class Accumulator:
    """A metric accumulated batch by batch: ``update``, ``merge``, ``compute``, ``reset``.

    Made by :func:`receval.metric`; see there. Accumulators pickle (a worker can
    send its accumulator to another process and merge it there).

    Attributes
    ----------
    name : str
        The metric as given to :func:`receval.metric`.
    definition : MetricDefinition
        What every backend runs for this metric.
    n_updates : int
        Batches given to ``update`` (merged accumulators add theirs).
    window : tuple of (int, str) or None
        The window's size and unit (``"batches"`` or ``"rows"``), if any.
    """

    def __init__(
        self,
        name: str,
        defn: MetricDefinition,
        params: dict[str, Any],
        window: tuple[int, str] | None = None,
    ) -> None:
        self.name = name
        self.definition = defn
        self._params = params
        self._state = defn.empty(params)
        self.n_updates = 0
        self.window = window
        self._window = None if window is None else Window(*window)

    def update(self, *data: Any, **kwargs: Any) -> Accumulator:
        """Add one batch of rows: the data arguments of the metric's function.

        ``update(y_true, y_score, sample_weight=None)`` for ``roc_auc``,
        ``update(y_true, y_prob, sample_weight=None)`` for ``log_loss``, ``pcoc``,
        ``copc``, ``normalized_entropy``, ``update(y_true, y_pred)`` for ``rmse`` /
        ``mae``, ``update(y_true, y_score, groups=..., sample_weight=None)`` for
        ``gauc``, ``update(reward, pscore, action_dist=..., action=None,
        position=None, estimated_rewards=None)`` for ``ips``, ``snips`` and ``dr``,
        and ``update(qrels, run)`` for a ranking metric string. Metrics
        over whole groups (``gauc``, ranking) need every group's rows in one
        update; a group given again raises. Returns the accumulator.
        """
        defn = self.definition
        data = tuple(_as_arrays(x) for x in data)
        kwargs = {k: _as_arrays(x) for k, x in kwargs.items()}
        batch = defn.prepare(self._params, *data, **kwargs)
        if self._window is not None:
            # the batch's own state joins the window (and the lifetime state)
            new = defn.update(self._params, batch)
            self._window.add(batch_rows(data, kwargs), new, (data, kwargs))
            absorb = getattr(self._state, "absorb", None)  # in place: new stays the window's
            self._state = absorb(new) if absorb is not None else self._state.merge(new)
        elif defn.update_into is not None:
            # the accumulator owns its state: add the batch in place where the state can
            self._state = defn.update_into(self._params, self._state, batch)
        else:
            new = defn.update(self._params, batch)
            absorb = getattr(self._state, "absorb", None)
            self._state = absorb(new) if absorb is not None else self._state.merge(new)
        self.n_updates += 1
        return self

    def merge(self, other: Accumulator) -> Accumulator:
        """Add another accumulator of the same metric and options (e.g. another worker's).

        Returns this accumulator. The result does not depend on the order of merges.
        """
        if not isinstance(other, Accumulator):
            raise InvalidParameterError(
                f"Accumulator.merge takes an Accumulator. Got {type(other).__name__} instead."
            )
        if other.definition.name != self.definition.name or other._params != self._params:
            raise InvalidParameterError(
                f"Accumulator.merge: cannot merge {other.name!r} with options "
                f"{other._params!r} into {self.name!r} with options {self._params!r}; merge "
                f"accumulators of one metric with the same options."
            )
        if other.window != self.window:
            raise InvalidParameterError(
                f"Accumulator.merge: cannot merge an accumulator with window {other.window!r} "
                f"into one with window {self.window!r}; merge accumulators of one window."
            )
        self._state = self._state.merge(other._state)  # a new state: other's stays its own
        if self._window is not None and other._window is not None:
            self._window.extend(other._window)  # its batches after this one's
        self.n_updates += other.n_updates
        return self

    def compute(self) -> Any:
        """The metric's value on every row seen (what its function returns on them)."""
        return self.definition.finalize(self._params, self._state)  # may compact in place

    def compute_window(self) -> Any:
        """The metric's value on the rows of the window: the last batches or rows seen.

        Exactly what the metric's function returns on those rows. After a
        ``merge``, the window holds this accumulator's batches, then the other's
        (the order in which workers saw their batches is not known), trimmed to
        the window's size.
        """
        if self._window is None:
            raise InvalidParameterError(
                f"Accumulator.compute_window: {self.name!r} has no window; make it with "
                f"receval.metric({self.name!r}, window=N)."
            )
        return self.definition.finalize(
            self._params, self._window.state(self.definition, self._params)
        )

    def reset(self) -> Accumulator:
        """Forget every row (the options stay); returns the accumulator."""
        self._state = self.definition.empty(self._params)
        if self._window is not None:
            self._window.clear()
        self.n_updates = 0
        return self

    def __getstate__(self) -> dict[str, Any]:
        # a registered definition is looked up again by its module and name (its
        # functions are not pickled); another one (a metric defined in a notebook)
        # travels by value where the pickler can (cloudpickle)
        state = dict(self.__dict__)
        defn = self.definition
        if DEFINITIONS.get(defn.name) is defn:
            state["definition"] = (defn.module, defn.name)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        # what a pickle holds is checked before it is used: a state that is not what
        # this metric makes is an error naming the field, never a silent value
        state = _checked_state(state)
        self.__dict__.update(state)

    @property
    def state(self) -> Any:
        """The merged state of every row seen (what ``compute`` finalizes)."""
        return self._state

    @property
    def params(self) -> dict[str, Any]:
        """The checked options of the metric."""
        return dict(self._params)

    def __repr__(self) -> str:
        window = "" if self.window is None else f", window of {self.window[0]} {self.window[1]}"
        return f"Accumulator({self.name!r}, {self.n_updates} updates{window})"

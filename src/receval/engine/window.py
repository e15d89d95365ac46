"""The window of an accumulator: the states of its last batches, or of its last rows.

TorchRec reports each metric twice, over the model's lifetime and over a recent
window; :class:`Window` is that window, exact. It keeps the state of every
batch still inside it (each batch's own state, merged only when the window's
value is asked for), so that the oldest batch can leave it; with a window of
rows, also the rows of the batches inside, so that the one batch it cuts can be
counted from the cut on. The window's value is then what the metric's function
returns on exactly those rows.
"""

from __future__ import annotations

from collections import deque
from typing import Any

import numpy as np

from ..exceptions import InvalidParameterError
from .metric import MetricDefinition

__all__ = ["UNITS", "Window", "check_window"]

#: What a window counts.
UNITS = ("batches", "rows")


def check_window(
    defn: MetricDefinition, name: str, window: Any, unit: Any
) -> tuple[int, str] | None:
    """``(size, unit)`` of a window (None for none), or ``InvalidParameterError``."""
    if unit not in UNITS:
        raise InvalidParameterError(
            f"The 'window_unit' parameter of metric must be one of {list(UNITS)}. "
            f"Got {unit!r} instead."
        )
    if window is None:
        return None
    if isinstance(window, bool) or not isinstance(window, int) or window < 1:
        raise InvalidParameterError(
            f"The 'window' parameter of metric must be an int >= 1 (the {unit} it "
            f"spans) or None. Got {window!r} instead."
        )
    if unit == "rows" and defn.partitioning == "groups":
        raise InvalidParameterError(
            f"metric({name!r}, window_unit='rows'): this metric needs whole groups per "
            f"update, which a window of rows would cut; use window_unit='batches'."
        )
    return int(window), unit


class Window:
    """The last ``size`` batches (or rows) an accumulator saw, as states.

    Parameters
    ----------
    size : int
        Batches or rows the window spans.
    unit : {"batches", "rows"}
        What ``size`` counts.
    """

    def __init__(self, size: int, unit: str):
        self.size = size
        self.unit = unit
        # (rows, state, the batch's data arguments or None) of each batch, oldest first
        self.batches: deque[tuple[int, Any, Any]] = deque()
        self.rows = 0

    def add(self, rows: int, state: Any, data: Any) -> None:
        """A new batch: its rows, its own state, and its data (kept for a window of rows)."""
        self.batches.append((rows, state, data if self.unit == "rows" else None))
        self.rows += rows
        self._trim()

    def extend(self, other: Window) -> None:
        """Another accumulator's window, after this one's batches (then trimmed)."""
        self.batches.extend(other.batches)
        self.rows += other.rows
        self._trim()

    def _trim(self) -> None:
        if self.unit == "batches":
            while len(self.batches) > self.size:
                self.rows -= self.batches.popleft()[0]
            return
        # a batch leaves once the newer ones hold the whole window of rows
        while self.batches and self.rows - self.batches[0][0] >= self.size:
            self.rows -= self.batches.popleft()[0]

    def state(self, defn: MetricDefinition, params: dict[str, Any]) -> Any:
        """The merged state of exactly the rows in the window (of metric ``defn``)."""
        merged = defn.empty(params)
        batches = list(self.batches)
        if self.unit == "rows" and self.rows > self.size:
            # the oldest batch is cut: its last rows only
            rows, _, (data, kwargs) = batches[0]
            keep = rows - (self.rows - self.size)
            cut = tuple(_tail(x, keep) for x in data)
            cut_kwargs = {k: _tail(x, keep) for k, x in kwargs.items()}
            first = defn.update(params, defn.prepare(params, *cut, **cut_kwargs))
            merged = merged.merge(first)
            batches = batches[1:]
        for _, state, _ in batches:
            merged = merged.merge(state)
        return merged

    def clear(self) -> None:
        """Forget every batch."""
        self.batches.clear()
        self.rows = 0


def _tail(x: Any, n: int) -> Any:
    """The last ``n`` rows of a data argument (None stays None)."""
    return None if x is None else np.asarray(x)[len(x) - n :]


def batch_rows(data: tuple[Any, ...], kwargs: dict[str, Any]) -> int:
    """Rows of a batch: the length of its first data argument."""
    first = data[0] if data else next(iter(kwargs.values()), None)
    try:
        return len(first)  # type: ignore[arg-type]
    except TypeError:
        return 0

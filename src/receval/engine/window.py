"""The window of an accumulator (the states of its last batches, or of its last rows)
and its exponential decay (:class:`DecayClock`).

TorchRec reports each metric twice, over the model's lifetime and over a recent
window; :class:`Window` is that window, exact. It keeps the state of every
batch still inside it (each batch's own state, merged only when the window's
value is asked for), so that the oldest batch can leave it; with a window of
rows, also the rows of the batches inside, so that the one batch it cuts can be
counted from the cut on. The window's value is then what the metric's function
returns on exactly those rows.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._parameters import counted
from ..exceptions import InputValidationError, InvalidParameterError
from .metric import MetricDefinition, joined

__all__ = [
    "DECAYED",
    "UNITS",
    "DecayClock",
    "Window",
    "add_decayed",
    "check_decay",
    "check_window",
]

#: What a window counts.
#: The units of a window, each with its singular.
UNITS = {"batches": "batch", "rows": "row"}

#: Metrics that take ``decay=``: their state holds weighted rows whose weights may grow.
DECAYED = ("roc_auc",)

#: The growth of the newest weights past which the weights held are divided (exactly).
_RENORMALISE = 64


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

    def state(self, defn: MetricDefinition, params: dict[str, Any], func: str) -> Any:
        """The merged state of exactly the rows in the window (of metric ``defn``;
        ``func``: the caller, see :func:`~receval.engine.metric.joined`)."""
        # the batches are added into a state of the window's own, in place where the
        # state can (theirs are read, never changed): one pass over them, not a copy
        # of the merged state per batch
        merged = defn.empty(params)
        batches = list(self.batches)
        if self.unit == "rows" and self.rows > self.size:
            # the oldest batch is cut: its last rows only
            rows, _, (data, kwargs) = batches[0]
            keep = rows - (self.rows - self.size)
            cut = tuple(_tail(x, keep) for x in data)
            cut_kwargs = {k: _tail(x, keep) for k, x in kwargs.items()}
            first = defn.add(params, None, cut, cut_kwargs, func=func)
            merged = joined(merged, first, func, in_place=True)
            batches = batches[1:]
        for _, state, _ in batches:
            merged = joined(merged, state, func, in_place=True)
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


def check_decay(
    name: str, decay: Any, window: Any, params: dict[str, Any], defn_name: str
) -> float | None:
    """The rate of an exponentially decayed accumulator (None for none), or
    ``InvalidParameterError``: a float in (0, 1), a metric of :data:`DECAYED`
    without bins, and no window beside it."""
    if decay is None:
        return None
    if isinstance(decay, bool) or not isinstance(decay, (int, float)) or not 0 < decay < 1:
        raise InvalidParameterError(
            f"The 'decay' parameter of metric must be a float in (0, 1) (the weight of the "
            f"rows of the previous update relative to the newest) or None. Got {decay!r} "
            f"instead."
        )
    if defn_name not in DECAYED or params.get("bins") is not None:
        raise InvalidParameterError(
            f"metric({name!r}, decay={decay!r}): decay is defined for the exact "
            f"{', '.join(DECAYED)} only; use window= for the value of recent batches."
        )
    if window is not None:
        raise InvalidParameterError(
            f"metric({name!r}, decay={decay!r}, window={window!r}): an accumulator takes "
            f"decay or window, not both; make one accumulator of each."
        )
    return float(decay)


@dataclass
class DecayClock:
    """Where a decayed state is in its stream: the weight of its next update's rows.

    With ``decay`` d, after T updates the rows of update t weigh ``d**(T-1)`` (t = 1)
    or ``(1 - d) d**(T-t)`` (t >= 2) times their own weight: TorchEasyRec's
    ``DecayAUC``, whose counts are ``d * counts + (1 - d) * batch`` after each update
    after the first. The rows held are never touched: an update's rows are weighed
    ``1`` (the first) or ``(1 - d) d**-(t-1)`` instead, the same ratios, and when
    that factor passes ``2**64`` it is divided by ``2**64`` and the state's weights
    too (exact, O(1): a power of two). ``growth`` is ``d**-(t-1)`` so divided
    (``growth / d`` rounded once per update), ``exponent`` the powers of two taken
    out, ``updates`` the updates seen.
    """

    updates: int = 0
    growth: float = 1.0
    exponent: int = 0

    def step(self, decay: float) -> tuple[float, int]:
        """The next update's factor and the power of two to divide the weights held by
        first (0 when none)."""
        self.updates += 1
        if self.updates == 1:
            return 1.0, 0
        self.growth /= decay
        shift = 0
        if self.growth >= 2.0**_RENORMALISE:
            self.growth = math.ldexp(self.growth, -_RENORMALISE)
            self.exponent += _RENORMALISE
            shift = _RENORMALISE
        return (1.0 - decay) * self.growth, shift

    def merge(self, other: DecayClock) -> DecayClock:
        """The clock of two states merged: both at the same update (workers in step)."""
        if other != self:
            raise InvalidParameterError(
                f"Accumulator.merge: decayed accumulators merge only at the same update "
                f"(the weights depend on it). Got {counted(self.updates, 'update')} and "
                f"{counted(other.updates, 'update')}; merge workers that update in step."
            )
        return DecayClock(self.updates, self.growth, self.exponent)


# the power of two by which the products of weights and a decay factor below 2**-1022
# (down to 2**-1074 * 2**-53) are computed higher: normal floats, far from overflow
_LIFT = 256
_NORMAL = float(np.finfo(np.float64).tiny)  # 2**-1022, the smallest normal float


def add_decayed(
    counts: Any,
    labels: np.ndarray,
    scores: np.ndarray,
    weights: np.ndarray,
    factor: float,
    func: str,
) -> None:
    """Add rows to a state of weights (``ScoreCounts``) weighed ``weights * factor``,
    each product rounded once to 53 bits at any exponent: a product below 2**-1022 (a
    subnormal weight, or a small one times a factor below 1) would lose bits in
    float64, or be flushed to 0, so those rows' products are computed ``2**_LIFT``
    higher and added to the state lifted by as much (exact: a power of two only moves
    the units). ``InputValidationError`` (naming ``func``) where a product overflows."""
    decayed = weights * factor
    if not np.isfinite(decayed).all():
        raise InputValidationError(f"{func}: sample_weight must be below 2**900 with decay.")
    if len(decayed) and decayed.min() < _NORMAL:  # one pass where every product is normal
        low = (decayed < _NORMAL) & (weights != 0)  # rows of weight 0 count nothing anyway
        if low.any():
            high = ~low
            counts.add(labels[high], scores[high], decayed[high])
            counts.runs.scale_down(-_LIFT)
            counts.add(labels[low], scores[low], np.ldexp(weights[low], _LIFT) * factor)
            counts.runs.scale_down(_LIFT)
            return
    counts.add(labels, scores, decayed)

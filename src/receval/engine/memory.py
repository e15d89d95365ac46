"""The memory a state holds: :attr:`receval.engine.run.Accumulator.memory_bytes`."""

from __future__ import annotations

import sys
from dataclasses import fields, is_dataclass
from typing import Any

import numpy as np

__all__ = ["state_bytes"]


def state_bytes(value: Any) -> int:
    """Bytes held by a state's arrays: a state with a ``memory_bytes`` of its own says;
    otherwise the arrays of its fields (dataclasses, containers, receval objects)
    are added up, the objects of object arrays by their size. Each array counts once."""
    return _bytes(value, set())


def _bytes(value: Any, seen: set[int]) -> int:
    if value is None or isinstance(value, (bool, int, float, str, type)):
        return 0
    if id(value) in seen:
        return 0
    seen.add(id(value))
    own = getattr(type(value), "memory_bytes", None)
    if own is not None and hasattr(value, "memory_bytes"):
        return int(value.memory_bytes)
    if isinstance(value, np.ndarray):
        extra = 0
        if value.dtype == object:
            extra = sum(sys.getsizeof(x) for x in value.ravel().tolist())
        return int(value.nbytes) + extra
    if isinstance(value, dict):
        return sum(_bytes(k, seen) + _bytes(x, seen) for k, x in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        return sum(_bytes(x, seen) for x in value)
    if is_dataclass(value) and not isinstance(value, type):
        return sum(_bytes(getattr(value, f.name), seen) for f in fields(value))
    if type(value).__module__.startswith("receval") and hasattr(value, "__dict__"):
        return sum(_bytes(x, seen) for x in vars(value).values())
    return 0

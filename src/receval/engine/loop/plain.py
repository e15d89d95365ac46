"""States as plain data and back: the one converter behind pickling, ``state_dict`` and ``sync``.

A state's plain form holds only ``None``, bools, ints, floats, strings, lists,
dicts with string keys and NumPy arrays (never of objects): what ``torch.save``
writes and ``torch.load(weights_only=True)`` reads once the arrays are tensors,
and what :func:`to_bytes` writes as one buffer of bytes (no pickle: reading it
runs no code). Everything else is tagged by the key ``"~"``:

=====================  ===============================================================
``{"~": "tuple"}``     a tuple (``"items"``); ``"set"`` and ``"frozenset"`` likewise
``{"~": "dict"}``      a dict whose keys are not all strings: ``"items"``, a list of pairs
``{"~": "scalar"}``    a NumPy scalar, as a 0-d array (``"array"``): its type stays
``{"~": "objects"}``   a 1-d array of Python values (``"items"``)
``{"~": "mod:Name"}``  a state, as pickle takes it apart: ``"state"`` what its
                       ``__getstate__`` returns, and the arguments of its ``__new__``
                       (``"args"``) or of its class (``"call"``)
=====================  ===============================================================

A state is rebuilt as pickle rebuilds it (``__new__``, then ``__setstate__``, or
the attributes), from classes of states (dataclasses, or classes with ``merge``)
of receval's own modules (and of the module that defines the metric) only;
:func:`receval.engine.states.check_loaded_state` then checks the rebuilt state
against a fresh one.
"""

from __future__ import annotations

import copyreg
import importlib
import json
from dataclasses import is_dataclass
from typing import Any

import numpy as np

from ...exceptions import InputValidationError

__all__ = [
    "from_bytes",
    "from_plain",
    "from_tensors",
    "plain_differences",
    "same_plain",
    "to_bytes",
    "to_plain",
    "to_tensors",
]

_TAG = "~"
#: What ``__reduce_ex__(2)`` and later return to make an object with ``cls.__new__``.
_NEWOBJ = copyreg.__newobj__  # type: ignore[attr-defined]
_COLLECTIONS = {"tuple": tuple, "set": set, "frozenset": frozenset}


def _invalid(where: str, what: str) -> InputValidationError:
    return InputValidationError(
        f"Accumulator: a loaded state is invalid: {where} {what}; load only states this "
        f"code made (Accumulator.state_dict, a pickle or a sync of receval's accumulators)."
    )


def to_plain(value: Any, where: str = "state") -> Any:
    """``value`` (a state, or what a state holds) as plain data (see the module)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, np.ndarray):
        if value.dtype.kind == "O":
            if value.ndim != 1:
                raise _unplain(where, value)
            items = [to_plain(x, f"{where}[{i}]") for i, x in enumerate(value.tolist())]
            return {_TAG: "objects", "items": items}
        return value
    if isinstance(value, np.generic):
        return {_TAG: "scalar", "array": np.asarray(value)}
    if isinstance(value, list):
        return [to_plain(x, f"{where}[{i}]") for i, x in enumerate(value)]
    if isinstance(value, (tuple, set, frozenset)):
        kind = "tuple" if isinstance(value, tuple) else type(value).__name__
        items = list(value) if kind == "tuple" else sorted(value, key=_order)
        return {_TAG: kind, "items": [to_plain(x, f"{where}[{i}]") for i, x in enumerate(items)]}
    if isinstance(value, dict):
        if all(isinstance(k, str) for k in value) and _TAG not in value:
            return {k: to_plain(x, f"{where}[{k!r}]") for k, x in value.items()}
        pairs = [[to_plain(k, where), to_plain(x, f"{where}[{k!r}]")] for k, x in value.items()]
        return {_TAG: "dict", "items": pairs}
    return _object(value, where)


def _object(value: Any, where: str) -> dict[str, Any]:
    """A state as pickle's protocol 2 takes it apart: its class, the arguments of its
    ``__new__`` (``"args"``) or of the class (``"call"``), and its ``__getstate__``."""
    try:
        reduced = value.__reduce_ex__(4)
    except TypeError:
        raise _unplain(where, value) from None
    extra = () if isinstance(reduced, str) else reduced[3:]
    if isinstance(reduced, str) or any(x is not None for x in extra):
        raise _unplain(where, value)
    make, args = reduced[0], tuple(reduced[1])
    state = reduced[2] if len(reduced) > 2 else None
    if isinstance(state, tuple) and len(state) == 2 and state[0] is None:
        state = dict(state[1])  # slots only
    if make is _NEWOBJ and args and isinstance(args[0], type):
        cls, key, args = args[0], "args", args[1:]
    elif isinstance(make, type):
        cls, key = make, "call"
    else:
        raise _unplain(where, value)
    out = {_TAG: f"{cls.__module__}:{cls.__qualname__}", "state": to_plain(state, where)}
    if args or key == "call":
        out[key] = to_plain(args, f"{where} (arguments)")
    return out


def _order(x: Any) -> tuple[str, Any]:
    """A sort key over values of mixed types (the items of a set, for a fixed order)."""
    return (type(x).__name__, x if isinstance(x, (int, float, str, bytes)) else repr(x))


def _unplain(where: str, value: Any) -> InputValidationError:
    return InputValidationError(
        f"Accumulator: {where} holds a {type(value).__name__}, which has no plain form (plain "
        f"values, NumPy arrays and states only); a metric's state must hold only those."
    )


def from_plain(value: Any, modules: tuple[str, ...] = ("receval",), where: str = "state") -> Any:
    """The value of :func:`to_plain`'s plain form; states only of classes defined in
    ``modules`` (their modules or submodules), else ``InputValidationError``."""
    if value is None or isinstance(value, (bool, int, float, str, np.ndarray)):
        return value
    if isinstance(value, list):
        return [from_plain(x, modules, f"{where}[{i}]") for i, x in enumerate(value)]
    if not isinstance(value, dict):
        raise _invalid(where, f"holds a {type(value).__name__}")
    tag = value.get(_TAG)
    if tag is None:
        return {k: from_plain(x, modules, f"{where}[{k!r}]") for k, x in value.items()}
    if not isinstance(tag, str):
        raise _invalid(where, f"has the tag {tag!r}")
    if tag == "scalar":
        array = value.get("array")
        if not isinstance(array, np.ndarray) or array.ndim != 0:
            raise _invalid(where, "must hold a scalar as a 0-d array")
        return array[()]
    items = value.get("items")
    if tag in ("objects", "dict", *_COLLECTIONS):
        if not isinstance(items, list):
            raise _invalid(where, f"must hold its items as a list, not {type(items).__name__}")
        items = [from_plain(x, modules, f"{where}[{i}]") for i, x in enumerate(items)]
        if tag == "objects":
            out = np.empty(len(items), dtype=object)
            out[:] = items
            return out
        if tag == "dict":
            if not all(isinstance(p, list) and len(p) == 2 for p in items):
                raise _invalid(where, "must hold its items as [key, value] pairs")
            try:
                return {k: x for k, x in items}
            except TypeError:
                raise _invalid(where, "has a key that is no dict key") from None
        try:
            return _COLLECTIONS[tag](items)
        except TypeError:
            raise _invalid(where, f"has an item that no {tag} holds") from None
    return _state(tag, value, modules, where)


def _state(tag: str, value: dict[str, Any], modules: tuple[str, ...], where: str) -> Any:
    module, _, name = tag.partition(":")
    if not any(module == m or module.startswith(m + ".") for m in modules) or not name:
        raise _invalid(where, f"names the class {tag!r}, which is not a state of receval")
    try:
        cls: Any = importlib.import_module(module)
        for part in name.split("."):
            cls = getattr(cls, part)
    except (ImportError, AttributeError):
        raise _invalid(where, f"names the class {tag!r}, which does not exist") from None
    if not isinstance(cls, type) or not (is_dataclass(cls) or hasattr(cls, "merge")):
        raise _invalid(where, f"names {tag!r}, which is not a state")
    if set(value) - {_TAG, "state", "args", "call"}:
        raise _invalid(where, f"names {tag!r} with the fields {sorted(value)}")
    call = "call" in value
    args = from_plain(value.get("call" if call else "args", {_TAG: "tuple", "items": []}),
                      modules, where)  # fmt: skip
    if not isinstance(args, tuple):
        raise _invalid(where, "must hold its arguments as a tuple")
    obj: Any = cls(*args) if call else cls.__new__(cls, *args)
    state = from_plain(value.get("state"), modules, where)
    setstate = getattr(obj, "__setstate__", None)
    if state is None and call:
        return obj  # its class's arguments made it whole
    if setstate is not None:
        setstate(state)
    elif isinstance(state, dict) and all(isinstance(k, str) for k in state):
        obj.__dict__.update(state)
    else:
        raise _invalid(where, f"must hold the attributes of a {name} as a dict")
    return obj


# ------------------------------------------------------------------ one buffer of bytes
def _arrays_out(value: Any, arrays: list[np.ndarray]) -> Any:
    """The plain form with each array replaced by ``{"~": "array", "index": i}``."""
    if isinstance(value, np.ndarray):
        arrays.append(value)
        return {_TAG: "array", "index": len(arrays) - 1}
    if isinstance(value, list):
        return [_arrays_out(x, arrays) for x in value]
    if isinstance(value, dict):
        return {k: _arrays_out(x, arrays) for k, x in value.items()}
    return value


def to_bytes(plain: Any) -> np.ndarray:
    """A plain form as one uint8 array: a JSON header (the structure, each array's
    dtype and shape), then each array's bytes."""
    arrays: list[np.ndarray] = []
    skeleton = _arrays_out(plain, arrays)
    contiguous = [np.ascontiguousarray(a) for a in arrays]
    header = json.dumps(
        {"plain": skeleton, "arrays": [[a.dtype.str, list(a.shape)] for a in contiguous]}
    ).encode()
    parts = [np.frombuffer(len(header).to_bytes(8, "little") + header, dtype=np.uint8)]
    parts += [a.reshape(-1).view(np.uint8) for a in contiguous if a.size]
    return np.concatenate(parts)


def from_bytes(buffer: np.ndarray) -> Any:
    """The plain form :func:`to_bytes` wrote (arrays are copies, never views of ``buffer``)."""
    raw = np.ascontiguousarray(buffer, dtype=np.uint8)
    try:
        size = int.from_bytes(raw[:8].tobytes(), "little")
        header = json.loads(raw[8 : 8 + size].tobytes())
        at, arrays = 8 + size, []
        for dtype_str, shape in header["arrays"]:
            dtype = np.dtype(dtype_str)
            if dtype.kind == "O":
                raise ValueError("an array of objects")
            n = dtype.itemsize * int(np.prod(shape, dtype=np.int64))
            arrays.append(raw[at : at + n].view(dtype).reshape(shape).copy())
            at += n
        if at != len(raw):
            raise ValueError("trailing bytes")
    except (ValueError, TypeError, KeyError) as exc:
        raise _invalid("the bytes of a state", f"cannot be read ({exc})") from None
    return _arrays_in(header["plain"], arrays)


def _arrays_in(value: Any, arrays: list[np.ndarray]) -> Any:
    if isinstance(value, list):
        return [_arrays_in(x, arrays) for x in value]
    if isinstance(value, dict):
        if value.get(_TAG) == "array":
            return arrays[value["index"]]
        return {k: _arrays_in(x, arrays) for k, x in value.items()}
    return value


# ------------------------------------------------------------------ tensors (state_dict)
def _torch_has(dtype: np.dtype[Any]) -> bool:
    """Whether a tensor of the same dtype holds an array of ``dtype``."""
    return dtype.isnative and (
        dtype.kind in "bi" or (dtype.kind == "f" and dtype.itemsize <= 8) or dtype == np.uint8
    )


def to_tensors(value: Any) -> Any:
    """A plain form with each array as a CPU tensor (its bytes as a uint8 tensor, with
    its dtype and shape, where torch has no such dtype): what ``torch.save`` writes and
    ``torch.load(weights_only=True)`` reads."""
    import torch

    if isinstance(value, np.ndarray):
        if _torch_has(value.dtype):
            return torch.from_numpy(np.array(value, order="C", copy=True))
        raw = np.ascontiguousarray(value).reshape(-1).view(np.uint8)
        return {_TAG: "array", "dtype": value.dtype.str, "shape": list(value.shape),
                "bytes": torch.from_numpy(raw.copy())}  # fmt: skip
    if isinstance(value, list):
        return [to_tensors(x) for x in value]
    if isinstance(value, dict):
        return {k: to_tensors(x) for k, x in value.items()}
    return value


def from_tensors(value: Any) -> Any:
    """:func:`to_tensors`' form (tensors, or NumPy arrays) back as a plain form."""
    if type(value).__module__.startswith("torch") and hasattr(value, "numpy"):
        return np.array(value.detach().cpu().numpy(), copy=True)
    if isinstance(value, list):
        return [from_tensors(x) for x in value]
    if isinstance(value, dict):
        if value.get(_TAG) == "array":
            raw = from_tensors(value.get("bytes"))
            try:
                dtype = np.dtype(value["dtype"])
                if dtype.kind == "O" or not isinstance(raw, np.ndarray):
                    raise ValueError(dtype)
                return raw.astype(np.uint8, copy=False).view(dtype).reshape(value["shape"])
            except (KeyError, TypeError, ValueError) as exc:
                raise _invalid("an array of the state", f"cannot be read ({exc})") from None
        return {k: from_tensors(x) for k, x in value.items()}
    return value


def same_plain(a: Any, b: Any) -> bool:
    """Whether two plain forms are equal (arrays: the same dtype and values)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (
            isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.dtype == b.dtype
            and a.shape == b.shape and bool(np.array_equal(a, b, equal_nan=a.dtype.kind == "f"))
        )  # fmt: skip
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_plain(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_plain(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and bool(a == b)


def plain_differences(
    a: dict[str, Any], b: dict[str, Any], spread: str | None = None
) -> tuple[list[str], list[str]]:
    """The entries of two plain dicts (of options) that differ, as each gives them:
    ``key=value``, or ``no key`` where one lacks it. The entry ``spread`` (a dict of
    keywords, such as a ranking metric's conventions) is compared by its own entries
    (``gain='exponential'``); a state, by the entries of its state that differ
    (``items=ItemMatrix(digest='17f4...')``)."""
    left: list[str] = []
    right: list[str] = []
    for key in [*a, *(k for k in b if k not in a)]:
        x, y = a.get(key, _LACKING), b.get(key, _LACKING)
        if key == spread and isinstance(x, dict) and isinstance(y, dict):
            inner = plain_differences(x, y)
            left += inner[0]
            right += inner[1]
        elif x is _LACKING or y is _LACKING or not same_plain(x, y):
            left.append(_entry(key, x, y))
            right.append(_entry(key, y, x))
    return left, right


def _entry(key: str, x: Any, y: Any) -> str:
    """``key=x`` of :func:`plain_differences` (``y``: the other side's)."""
    if x is _LACKING:
        return f"no {key}"
    tagged = [v.get(_TAG) if isinstance(v, dict) else None for v in (x, y)]
    if tagged[0] is not None and tagged[0] == tagged[1] and isinstance(x.get("state"), dict):
        inner = plain_differences(x["state"], y.get("state") or {})[0]
        return f"{key}={tagged[0].split(':')[-1]}({', '.join(inner)})"
    return f"{key}={x!r}"


#: An entry that one side of :func:`plain_differences` lacks
_LACKING = object()

"""Tensors and other array-likes as NumPy arrays, without importing their library.

A CPU tensor becomes a NumPy view of its memory (no copy); a CUDA tensor
is copied once to the host, without blocking the caller's stream (into pinned
memory, with an event that :func:`host_array` waits on before the rows are
read); bfloat16 and the float8 types, which NumPy lacks, become float32 (exact),
float16 stays float16; a sparse tensor is refused (its dense values are asked
for); a tensor that requires grad is detached first. JAX and CuPy arrays, and any
object with ``__dlpack__``, go through ``numpy.from_dlpack`` (a host copy for one
on a device, where the library offers it). torch is imported by the tensor's
own module only: ``import receval`` never imports it.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from ...exceptions import InputValidationError

__all__ = ["HostCopy", "as_arrays", "host_array", "on_host", "owned"]

_CPU = 1  # DLPack's device type of host memory (kDLCPU)


class HostCopy:
    """A device-to-host copy under way: the pinned host tensor and the event after it."""

    __slots__ = ("event", "tensor")

    def __init__(self, tensor: Any, event: Any) -> None:
        self.tensor = tensor
        self.event = event


def as_arrays(data: Any, func: str, name: str) -> Any:
    """``data`` as a NumPy array (a view where one can be made), or a :class:`HostCopy`
    of a CUDA tensor; lists, Arrow arrays and DataFrame columns as they are (the
    metric's own checks read them). ``func`` and ``name`` (the argument) begin the
    message of an array that cannot be brought to the host."""
    if data is None or isinstance(data, (list, tuple, dict, np.ndarray, str)):
        return data
    module = type(data).__module__
    if module.startswith(("pyarrow", "pandas", "polars")):
        return data
    if module.startswith("torch") and hasattr(data, "detach"):
        return _from_torch(data, func, name)
    if hasattr(data, "__dlpack__") and hasattr(data, "__dlpack_device__"):
        return _from_dlpack(data, func, name)
    if hasattr(data, "__array__"):
        return np.asarray(data)
    return data


def _from_torch(tensor: Any, func: str, name: str) -> Any:
    torch = sys.modules["torch"]  # loaded: the tensor is one of its objects
    tensor = tensor.detach()
    if tensor.layout != torch.strided:  # sparse: its values and indices apart
        raise InputValidationError(
            f"{func}: {name} is a tensor of layout {tensor.layout}; pass its dense values "
            f"({name if name.isidentifier() else 'x'}.to_dense())."
        )
    if tensor.dtype == torch.bfloat16 or (
        tensor.is_floating_point() and tensor.element_size() == 1
    ):
        # NumPy has neither bfloat16 nor float8: float32 holds each value exactly
        tensor = tensor.to(torch.float32)
    if tensor.device.type == "cpu":
        return _cpu_view(tensor)
    if tensor.device.type == "cuda":
        try:
            host = torch.empty(tensor.shape, dtype=tensor.dtype, device="cpu", pin_memory=True)
        except RuntimeError:  # no pinned memory now (a stream being captured): a plain copy
            return _cpu_view(tensor.cpu())
        host.copy_(tensor, non_blocking=True)  # one copy, queued on the tensor's stream
        event = torch.cuda.Event()
        event.record(torch.cuda.current_stream(tensor.device))
        return HostCopy(host, event)
    try:  # another device (mps, xla): its own copy to the host
        return _cpu_view(tensor.cpu())
    except (RuntimeError, NotImplementedError, TypeError) as exc:  # a meta tensor: no data
        raise InputValidationError(
            f"{func}: {name} is a tensor on the device {str(tensor.device)!r} that could not "
            f"be copied to the host ({exc}); pass a tensor that holds its values (on the CPU "
            f"or a GPU)."
        ) from None


def _cpu_view(tensor: Any) -> np.ndarray:
    """A NumPy view of a CPU tensor's memory (``Tensor.numpy()`` shares it, as DLPack
    does, in half the time); a copy only where NumPy cannot view it (a tensor with the
    conjugate or negative bit set)."""
    try:
        view: np.ndarray = tensor.numpy()
    except (RuntimeError, TypeError):
        view = tensor.resolve_conj().resolve_neg().numpy()
    return view


def _from_dlpack(data: Any, func: str, name: str) -> np.ndarray:
    device = data.__dlpack_device__()
    if int(device[0]) == _CPU:
        try:
            return np.from_dlpack(data)
        except (BufferError, RuntimeError, TypeError) as exc:  # a dtype NumPy lacks
            if hasattr(data, "__array__"):
                return np.asarray(data)
            raise InputValidationError(
                f"{func}: {name} is a {type(data).__name__} that could not be read through "
                f"DLPack ({exc}); convert it to a NumPy array of numbers first."
            ) from None
    try:  # DLPack 1.0: the producer copies to the host (NumPy 2.1 and later ask it to)
        return np.from_dlpack(data, device="cpu", copy=True)
    except (BufferError, RuntimeError, TypeError, ValueError):
        raise InputValidationError(
            f"{func}: {name} is a {type(data).__name__} on a device (DLPack device "
            f"{tuple(device)}) that could not be copied to the host; copy it first "
            f"(cupy.asnumpy(x), jax.device_get(x), or x.cpu() for a tensor)."
        ) from None


def host_array(data: Any) -> Any:
    """``data``, with a :class:`HostCopy` waited for and read as a NumPy array."""
    if isinstance(data, HostCopy):
        data.event.synchronize()  # the copy has landed in host memory
        return _cpu_view(data.tensor)
    return data


def on_host(data: Any, func: str, name: str) -> Any:
    """``data`` as :func:`as_arrays` gives it, a device copy waited for (a NumPy array
    as it is, at the cost of one test: an update's fixed cost). The functions and
    containers read tensors and DLPack objects through it too."""
    return data if type(data) is np.ndarray else host_array(as_arrays(data, func, name))


def owned(data: Any, func: str, name: str) -> Any:
    """``data`` as :func:`as_arrays` gives it, copied where it is a view of the caller's
    memory (a tensor, array or pandas column the caller may change before a background
    update reads it; Arrow and polars columns are immutable). ``func`` and ``name`` as
    for :func:`as_arrays`."""
    if type(data).__module__.startswith("pandas") and hasattr(data, "copy"):
        return data.copy(deep=True)
    converted = as_arrays(data, func, name)
    if converted is data and isinstance(data, np.ndarray):
        return data.copy()
    if isinstance(converted, np.ndarray) and not converted.flags.owndata:
        return converted.copy()
    if isinstance(converted, list):
        return list(converted)
    return converted

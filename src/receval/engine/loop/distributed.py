"""Every rank's plain data, on every rank of a ``torch.distributed`` process group.

Each rank writes its data as one buffer of bytes
(:func:`receval.engine.loop.plain.to_bytes`); the ranks exchange the buffers' sizes,
then the buffers padded to the largest (two ``all_gather`` calls, on the
group's device: CUDA for NCCL, the CPU for Gloo), and each rank reads every
buffer back, in rank order.
"""

from __future__ import annotations

import sys
from typing import Any

from ...exceptions import InvalidParameterError, MissingDependencyError
from .plain import from_bytes, to_bytes

__all__ = ["gather_plain"]


def _dist(func: str) -> Any:
    try:
        import torch.distributed as dist
    except ImportError:
        raise MissingDependencyError(
            f"{func} needs torch.distributed; install it with pip install 'receval[torch]'."
        ) from None
    if not dist.is_available() or not dist.is_initialized():
        raise InvalidParameterError(
            f"{func}: no torch.distributed process group is initialised; call "
            f"torch.distributed.init_process_group(...) on every rank first (or merge "
            f"pickled accumulators without it)."
        )
    return dist


def gather_plain(plain: Any, group: Any, func: str) -> list[Any]:
    """The plain data of every rank of ``group`` (None: the default group), in rank order.

    Every rank of the group must call it (a collective operation).
    """
    dist = _dist(func)
    torch = sys.modules["torch"]
    backend = str(dist.get_backend(group)).lower()
    device = (
        torch.device("cuda", torch.cuda.current_device())
        if backend == "nccl"
        else torch.device("cpu")
    )
    payload = torch.from_numpy(to_bytes(plain)).to(device)
    world = dist.get_world_size(group)
    size = torch.tensor([payload.numel()], dtype=torch.int64, device=device)
    sizes = [torch.zeros_like(size) for _ in range(world)]
    dist.all_gather(sizes, size, group=group)
    counts = [int(s.item()) for s in sizes]
    padded = torch.zeros(max(counts), dtype=torch.uint8, device=device)
    padded[: payload.numel()] = payload
    parts = [torch.empty_like(padded) for _ in range(world)]
    dist.all_gather(parts, padded, group=group)
    return [from_bytes(p[:n].cpu().numpy()) for p, n in zip(parts, counts, strict=True)]

"""The kernels: the compiled core (``receval._core``) and, for the kernels not yet
ported to it, numba.

The Python layer calls the ported kernels through :mod:`receval._kernels.api`,
which takes them from the core; ``RECEVAL_KERNELS=numba`` takes the numba
versions instead (the differential tests run both on the same inputs).
"""

from __future__ import annotations

import os
from types import ModuleType

__all__ = ["compiled", "num_threads"]


def compiled() -> ModuleType | None:
    """``receval._core``, or None when ``RECEVAL_KERNELS=numba`` or it is not built."""
    if os.environ.get("RECEVAL_KERNELS", "").strip().lower() == "numba":
        return None
    try:
        from .. import _core
    except ImportError:  # a source tree without the built extension
        return None
    return _core


def num_threads() -> int:
    """Threads the kernels use: ``RECEVAL_NUM_THREADS`` or the cores available to the
    process (the compiled core's count; numba's while a kernel family is not ported)."""
    core = compiled()
    if core is not None:
        return int(core.num_threads())
    import numba

    return max(1, int(numba.get_num_threads()))

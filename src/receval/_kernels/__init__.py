"""The kernels: the compiled core (``receval._core``, the Rust crate in ``rust/``).

The Python layer calls them through :mod:`receval._kernels.api` or
:func:`compiled`. The numba modules beside this file are their twins, kept for
the differential tests (which run both on the same inputs); numba is not a
dependency of receval, and ``RECEVAL_KERNELS=numba`` runs the twins instead.
"""

from __future__ import annotations

import os
from types import ModuleType
from typing import Any

import numpy as np

__all__ = ["compiled", "empty_output", "num_threads"]


_CORE: list[ModuleType | None] = []  # resolved once per process, as RECEVAL_NUM_THREADS


def compiled() -> ModuleType | None:
    """``receval._core``, or None when ``RECEVAL_KERNELS=numba`` (the numba twins of
    the kernels, for the differential tests; numba is then needed).

    Raises
    ------
    ImportError
        The compiled core is not built (a source tree used without installing it).
    InvalidParameterError
        ``RECEVAL_NUM_THREADS`` is set to something other than a positive integer.
    """
    if _CORE:
        return _CORE[0]
    if os.environ.get("RECEVAL_KERNELS", "").strip().lower() == "numba":
        _CORE.append(None)
        return None
    try:
        from .. import _core
    except ImportError as exc:
        raise ImportError(
            "receval's compiled core (receval._core) is not built: install receval with "
            "pip (pip install -e . in a source tree; a Rust toolchain is needed), or set "
            "RECEVAL_KERNELS=numba to run the numba kernels (numba must be installed)."
        ) from exc
    core: ModuleType = _core
    problem = core.threads_setting_error()
    if problem is not None:
        from ..exceptions import InvalidParameterError

        raise InvalidParameterError(problem)
    _CORE.append(core)
    return core


def num_threads() -> int:
    """Threads the kernels use: ``RECEVAL_NUM_THREADS`` or the cores available to the
    process (read once per process; numba's count for the numba twins)."""
    core = compiled()
    if core is not None:
        return int(core.num_threads())
    import numba

    return max(1, int(numba.get_num_threads()))


def empty_output(n: int, dtype: Any) -> np.ndarray:
    """``np.empty(n, dtype)`` for an output written row by row, its pages faulted in
    at once (one call instead of a page fault per page, several times cheaper on
    large outputs and most on virtual machines)."""
    out = np.empty(n, dtype=dtype)
    core = compiled()
    if core is not None and out.nbytes >= 4 << 20:
        core.populate(out.view(np.uint8))
    return out

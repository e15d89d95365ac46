"""The kernels: receval's compiled core (``receval._core``, the Rust crate in ``rust/``).

The Python layer calls them through :func:`compiled`, which loads the core once
per process and checks ``RECEVAL_NUM_THREADS``; :func:`codes` gives the core's
constants (the metric kinds of the ranking kernel, defined once, in Rust) and its
``RankingSpec`` type without that check.
"""

from __future__ import annotations

from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # NumPy loads on first use: the registry reads the core's constants
    import numpy as np

__all__ = ["codes", "compiled", "empty_output", "num_threads"]


_CORE: list[ModuleType] = []  # resolved once per process, as RECEVAL_NUM_THREADS


def codes() -> ModuleType:
    """The compiled core, read for its constants (the metric kinds of the ranking
    kernel, the sizes of a spec's parameters) and its ``RankingSpec`` type.

    Raises
    ------
    ImportError
        The compiled core is not built (a source tree used without installing it).

    Examples
    --------
    >>> from receval._kernels import codes
    >>> codes().NDCG in codes().RANKING_KINDS
    True
    """
    try:
        from . import _core
    except ImportError as exc:
        raise ImportError(
            "receval's compiled core (receval._core) is not built: install receval with "
            "pip (pip install -e . in a source tree; a Rust toolchain is needed)."
        ) from exc
    core: ModuleType = _core
    return core


def compiled() -> ModuleType:
    """``receval._core``, the compiled kernels, loaded once per process.

    Raises
    ------
    ImportError
        The compiled core is not built (a source tree used without installing it).
    InvalidParameterError
        ``RECEVAL_NUM_THREADS`` is set to something other than a positive integer.

    Examples
    --------
    >>> from receval._kernels import compiled
    >>> compiled().num_threads() >= 1
    True
    """
    if _CORE:
        return _CORE[0]
    core = codes()
    problem = core.threads_setting_error()
    if problem is not None:
        from .exceptions import InvalidParameterError

        raise InvalidParameterError(problem)
    _CORE.append(core)
    return core


def num_threads() -> int:
    """Threads the kernels use: ``RECEVAL_NUM_THREADS`` or the cores available to the
    process (read once per process).

    Examples
    --------
    >>> from receval._kernels import num_threads
    >>> num_threads() >= 1
    True
    """
    return int(compiled().num_threads())


def empty_output(n: int, dtype: Any) -> np.ndarray:
    """``np.empty(n, dtype)`` for an output written row by row, its pages faulted in
    at once (one call instead of a page fault per page, several times cheaper on
    large outputs and most on virtual machines).

    Examples
    --------
    >>> from receval._kernels import empty_output
    >>> empty_output(3, "float64").shape
    (3,)
    """
    import numpy as np

    out = np.empty(n, dtype=dtype)
    if out.nbytes >= 4 << 20:
        compiled().populate(out.view(np.uint8))
    return out

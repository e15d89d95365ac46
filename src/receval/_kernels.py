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

__all__ = [
    "codes",
    "compiled",
    "empty_output",
    "num_threads",
    "numpy_sort_is_slow",
    "sort_numbers",
]


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


# below this many values NumPy's sort is the faster on any CPU
_SMALL_SORT = 4096
_SLOW_SORT: list[bool] = []  # whether NumPy's sort is slow on this CPU, found once


def numpy_sort_is_slow() -> bool:
    """Whether NumPy sorts float arrays with its AVX-512 sort on a CPU that runs it
    several times slower than its AVX2 sort: AMD Zen 4, which microcodes the AVX-512
    compress stores to memory that the sort issues on every vector (NumPy's choice
    follows ``NPY_DISABLE_CPU_FEATURES``).

    Examples
    --------
    >>> from receval._kernels import numpy_sort_is_slow
    >>> numpy_sort_is_slow() in (True, False)
    True
    """
    if not _SLOW_SORT:
        import importlib

        try:
            umath = importlib.import_module("numpy._core._multiarray_umath")
        except ImportError:  # NumPy 1.x
            umath = importlib.import_module("numpy.core._multiarray_umath")
        avx512_sort = bool(umath.__cpu_features__.get("AVX512_SKX", False))
        _SLOW_SORT.append(avx512_sort and bool(compiled().slow_compress_store()))
    return _SLOW_SORT[0]


def sort_numbers(arr: np.ndarray) -> None:
    """Sort an array in place, ascending (floats NaN last), as ``arr.sort()`` does: by
    NumPy, or where NumPy's sort is slow on this CPU (:func:`numpy_sort_is_slow`)
    by the compiled core's radix sort for float64, float32 and int64 arrays, three
    to four times faster there (equal floats of different bits, 0.0 and -0.0, in the
    order of their bits; every NaN made one quiet NaN).

    Examples
    --------
    >>> import numpy as np
    >>> from receval._kernels import sort_numbers
    >>> a = np.array([0.5, -1.0, np.nan, 0.25])
    >>> sort_numbers(a)
    >>> a
    array([-1.  ,  0.25,  0.5 ,   nan])
    """
    kind, size = arr.dtype.kind, arr.dtype.itemsize
    if (
        arr.shape[0] >= _SMALL_SORT
        and ((kind == "f" and size in (4, 8)) or (kind == "i" and size == 8))
        and arr.dtype.isnative
        and arr.flags.c_contiguous
        and arr.flags.writeable
        and numpy_sort_is_slow()
    ):
        compiled().sort_numbers(arr)
    else:
        arr.sort()

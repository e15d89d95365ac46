"""String ids read from Arrow buffers by the compiled core: a column's offsets and
data (or views) handed over where they lie, no Python object per row. The distinct
ids stay an Arrow array (:func:`kept_ids`), looked up in another such array by the
core (:func:`lookup_strings`), and become NumPy only when asked for
(:func:`ids_to_numpy`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._arrow import is_arrow, values_to_numpy
from ._string_buffers import large_strings, string_buffers


def kept_ids(arr: Any) -> Any:
    """Distinct ids read from Arrow: strings (``string``, ``large_string``) stay the
    Arrow array (no Python object per id until :func:`ids_to_numpy`), others become
    NumPy."""
    import pyarrow as pa

    if pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type):
        return arr
    return values_to_numpy(arr)


def ids_to_numpy(ids: Any) -> np.ndarray:
    """Distinct ids as NumPy (strings as an object array), from NumPy or as
    :func:`kept_ids` keeps them."""
    return ids if isinstance(ids, np.ndarray) else values_to_numpy(ids)


def lookup_strings(values: Any, dictionary: Any) -> np.ndarray | None:
    """Index (int32) of each of the string ids ``values`` among the distinct ids
    ``dictionary`` (the first of equal ids), -1 where absent, hashed by the core:
    Arrow strings over both arrays' buffers, object arrays of ``str`` read in
    place. None for other pairs (an Arrow array beside NumPy,
    an element that is not a ``str``) or without the core."""
    import pyarrow as pa

    from .._kernels import compiled

    core = compiled()
    if core is None:
        return None
    if isinstance(values, np.ndarray) or isinstance(dictionary, np.ndarray):
        objects = all(
            isinstance(x, np.ndarray) and x.dtype.kind == "O" for x in (values, dictionary)
        )
        if not objects:
            return None
        found: np.ndarray | None = core.lookup_str(
            np.ascontiguousarray(values), np.ascontiguousarray(dictionary)
        )
        return found
    if values.type != dictionary.type:  # string beside large_string: both large
        values, dictionary = values.cast(pa.large_string()), dictionary.cast(pa.large_string())
    if values.equals(dictionary):  # the same ids in the same order (one buffer compare)
        return np.arange(len(values), dtype=np.int32)
    both = [string_buffers(dictionary, binary=False), string_buffers(values, binary=False)]
    if any(parts is None or parts[0] for parts in both):
        return None
    offsets = [o for parts in both if parts is not None for o in parts[1]]
    data = [d for parts in both if parts is not None for d in parts[2]]
    found = core.lookup_bytes(offsets, data, len(dictionary))
    return found


def string_runs(values: Any) -> tuple[np.ndarray, np.ndarray, Any] | None:
    """The runs of equal neighbours of a string column without nulls (an Arrow
    string column or chunked column, or an object array of ``str``), encoded: their
    bounds (then the row count), each run's code and the distinct ids (an Arrow
    ``large_string`` array in code order, as the core gives them); only the first row of
    a run is hashed, and a column grouped by user (every id in one run) needs no
    code per row. None for other columns (an object array holding anything but
    ``str``) or without the core."""
    from .._kernels import compiled, num_threads

    core = compiled()
    if core is None:
        return None
    if isinstance(values, np.ndarray):
        one_dim = values.dtype.kind == "O" and values.ndim == 1
        found = (
            core.factorize_str_runs(np.ascontiguousarray(values), num_threads())
            if one_dim
            else None
        )
    elif is_arrow(values) and hasattr(values, "type"):
        parts = string_buffers(values, binary=False)
        if parts is None or values.null_count:
            return None
        view, first_parts, second_parts = parts
        encode = core.factorize_view_runs if view else core.factorize_byte_runs
        found = encode(first_parts, second_parts, num_threads())
    else:
        return None
    if found is None:
        return None
    starts, codes, offsets, data = found
    return np.append(starts, len(values)), codes, large_strings(offsets, data)

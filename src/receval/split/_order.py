"""Quantiles of time and the order of each user's rows (times read as sort keys by
:mod:`receval.data._times`).

The tie rule, written once: rows of one user with equal times keep the order of
the log (a later row is later). Every per-user split orders a user's rows by
``(time, row)``, so the split does not depend on how a sort breaks ties.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..data._encode import group_rows
from ..exceptions import InvalidParameterError


def check_fraction(value: Any, name: str, func: str) -> float:
    """A fraction strictly between 0 and 1."""
    ok = isinstance(value, (float, int, np.floating, np.integer)) and not isinstance(
        value, (bool, np.bool_)
    )
    if not ok or not 0 < value < 1:
        raise InvalidParameterError(
            f"The '{name}' parameter of {func} must be a real number in (0, 1). Got "
            f"{value!r} instead."
        )
    return float(value)


def quantile_of(keys: np.ndarray, q: float) -> Any:
    """The cut at the q-quantile of the times: the quantile is interpolated linearly
    between the two order statistics around position ``q * (n - 1)`` (NumPy's and
    pandas' default), and the cut is the first time at or after it, one of the two
    (:func:`quantile_cut`), so that ``time >= cut`` holds exactly as against the
    quantile itself; NaN for no times (no row is at or after it: an empty log splits
    into empty parts, as with a ``cutoff``)."""
    n = len(keys)
    if n == 0:
        return float("nan")
    position = q * (n - 1)
    k = int(np.floor(position))
    low, high = np.partition(keys, [k, min(k + 1, n - 1)])[[k, min(k + 1, n - 1)]]
    return quantile_cut(low, high, position - k)


def quantile_cut(low: Any, high: Any, gamma: float) -> Any:
    """The first of the times at or after the quantile ``low + gamma * (high - low)``
    between two adjacent order statistics ``low <= high`` (``0 <= gamma < 1``): ``low``
    where the quantile is ``low`` itself (``gamma`` 0, or ``low == high``), else
    ``high``, as no time lies strictly between them. Comparing times with it is exact,
    where the interpolated float would round past 2**53 (nanosecond datetimes, int64
    times) and send a row just before the quantile to the test part.

    Examples
    --------
    >>> quantile_cut(2**60, 2**60 + 1, 0.5) == 2**60 + 1
    True
    """
    cut = low if gamma == 0 or low == high else high
    return cut.item() if isinstance(cut, np.generic) else cut


def seed_generator(seed: Any, func: str) -> np.random.Generator:
    """``numpy.random.default_rng(seed)`` for an int seed (or a Generator as given)."""
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InvalidParameterError(
            f"The 'seed' parameter of {func} must be a non-negative integer or a "
            f"numpy.random.Generator. Got {seed!r} instead; pass e.g. seed=0."
        )
    return np.random.default_rng(int(seed))


def user_order(codes: np.ndarray, n_users: int, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows grouped by user code, each user's rows by ``(key, row)``: CSR offsets
    and the row at each position."""
    by_key = np.argsort(keys, kind="stable")
    offsets, positions = group_rows(codes[by_key], n_users)
    rows = by_key if len(positions) == 0 else by_key[positions]
    return offsets.astype(np.int64), rows


def last_of_each(offsets: np.ndarray, rows: np.ndarray, n_last: np.ndarray) -> np.ndarray:
    """The rows of the last ``n_last[u]`` positions of each user's segment, as a mask
    over the input rows."""
    counts = np.diff(offsets)
    starts = offsets[1:] - n_last
    position = np.arange(len(rows)) - np.repeat(starts, counts)
    mask = np.zeros(len(rows), dtype=bool)
    mask[rows[position >= 0]] = True
    return mask

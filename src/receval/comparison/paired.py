"""Paired differences as the statistics read them: input checks and the weighted table.

Every statistic of :mod:`.significance` and :mod:`.intervals` takes
*paired differences*: ``differences[i, j]`` is model A's value minus model B's
for user i in column j (a column is one metric for one pair of models), or a
1-D array for a single column. NaN marks a user without a value in a column
and leaves that user out of that column only. A 1-D input gives a float, a
2-D input an array with one value per column.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _validation as v
from ..data._lookup import distinct
from ..exceptions import InputValidationError, InvalidParameterError, UndefinedMetricWarning, warn

# below this much work (about replicates x users x columns), the resampling kernels run
# one chunk on the calling thread (no thread is woken)
PARALLEL_MIN_WORK = 2_000_000


# ---------------------------------------------------------------- inputs
def check_differences(differences: Any, func: str) -> tuple[np.ndarray, bool]:
    """Float64 differences as a 2-D (n_users, n_columns) array, and whether the input was 1-D.

    NaN is allowed (a user without a value in a column); infinity is not.
    """
    d = v.as_array(differences, "differences", func)
    if d.ndim not in (1, 2):
        raise InputValidationError(
            f"{func}: differences must be 1-dimensional (n_users,) or 2-dimensional "
            f"(n_users, n_columns). Got an array of shape {d.shape}."
        )
    d = v.as_float(d, "differences", func)
    if d.shape[0] == 0:
        raise InputValidationError(
            f"{func}: differences is empty (no user); pass one difference per user."
        )
    if d.size and np.isinf(d).any():
        raise InputValidationError(
            f"{func}: differences contains infinity; use NaN for a user without a value."
        )
    one_d = d.ndim == 1
    return (d[:, None] if one_d else d), one_d


def check_weights(weights: Any, d: np.ndarray, one_d: bool, func: str) -> np.ndarray | None:
    """None, or finite non-negative float64 weights of shape (n,) or (n, m)."""
    if weights is None:
        return None
    w = v.as_float(v.as_array(weights, "weights", func), "weights", func)
    n, m = d.shape
    if not (w.shape == (n,) or (w.shape == (n, m) and not one_d)):
        expected = f"({n},)" if one_d else f"({n},) or ({n}, {m})"
        raise InputValidationError(
            f"{func}: weights must have shape {expected}, one weight per user"
            f"{'' if one_d else ' (and column)'}. Got shape {w.shape}."
        )
    v.check_finite(w, "weights", func)
    if w.size and w.min() < 0:
        raise InputValidationError(
            f"{func}: weights must be non-negative. Got values "
            f"{v.format_values(distinct(w[w < 0]))}."
        )
    return w


def equally_weighted(differences: Any, weights: Any, test: str, func: str) -> Any:
    """``differences`` for a test that weighs every user equally (``test``): ``weights``
    checked as :func:`check_weights` checks them, the users of weight 0 left out (NaN),
    and an error where a column's positive weights differ."""
    d, one_d = check_differences(differences, func)
    w = check_weights(weights, d, one_d, func)
    if w is None:
        return differences
    ww = np.broadcast_to(w if w.ndim == 2 else w[:, None], d.shape)
    if unequal_columns(d, ww).any():
        raise InvalidParameterError(
            f"{func}: test={test!r} weighs every user equally. Got unequal weights; use "
            f"test='randomization', which takes weights."
        )
    d = np.where(ww > 0, d, np.nan)  # a weight of 0 leaves its user out
    return d[:, 0] if one_d else d


def unequal_columns(d: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Per column of the differences ``d`` (users x columns), whether the positive
    weights ``w`` (the same shape) of its users with a difference (not NaN) differ:
    the columns a test that weighs every user equally cannot take."""
    positive = (w > 0) & ~np.isnan(d)
    low = np.where(positive, w, np.inf).min(axis=0)
    high = np.where(positive, w, -np.inf).max(axis=0)
    result: np.ndarray = positive.any(axis=0) & (low != high)
    return result


#: the most replicate steps (replicates x users) of one call: 10**12 is about ten
#: minutes of the sign-flip kernel on 16 cores; 10**13 would be hours
MAX_STEPS = 10**12


def check_steps(replicates: int, n_users: int, name: str, func: str) -> None:
    """Refuse, before any work, ``replicates`` x ``n_users`` steps over :data:`MAX_STEPS`."""
    steps = replicates * n_users
    if steps > MAX_STEPS:
        raise InvalidParameterError(
            f"{func}: {name} x users = {replicates:_} x {n_users:_} = {steps:.2e} steps, over "
            f"the limit of {MAX_STEPS:.0e} (hours of work). Got {name}={replicates:_}; lower "
            f"{name} (10_000 resolves a p-value to 1e-4) or test a random sample of the users."
        )


def warn_undefined(undefined: np.ndarray, one_d: bool, what: str, why: str, func: str) -> None:
    """An ``UndefinedMetricWarning`` naming the columns (mask ``undefined``) whose
    ``what`` is nan, and ``why``; nothing when none is."""
    cols = np.flatnonzero(undefined)
    if cols.size == 0:
        return
    if one_d:
        text = f"{func}: the {what} is nan: {why}."
    else:
        text = (
            f"{func}: the {what} of {cols.size:,} of {v.counted(undefined.size, 'column')} is nan "
            f"(columns {v.format_values(cols)}): {why}."
        )
    warn(text, UndefinedMetricWarning)


def replicate_chunks(work: int, per_thread: int = 4) -> int:
    """Chunks of replicates for ``work`` (about replicates x users x columns): 1 when
    small, else ``per_thread`` per kernel thread. The results do not depend on it."""
    if work < PARALLEL_MIN_WORK:
        return 1
    from .._kernels import num_threads

    return per_thread * num_threads()


def unit_order(ids: np.ndarray) -> np.ndarray:
    """The permutation that puts users (or groups) in ascending order of their ids.

    The rows of the paired differences follow it, so that a user's random signs and
    bootstrap draws depend on its id, never on the order the data lists the users in:
    the same data in another row order gives the same p-values and intervals.
    """
    result: np.ndarray = np.argsort(ids, kind="stable")
    return result


def as_result(values: np.ndarray, one_d: bool) -> float | np.ndarray:
    return float(values[0]) if one_d else values


# ---------------------------------------------------------------- tables
class Table:
    """The weighted table the resampling kernels read, and per-column totals.

    ``used[i, j]``: user i has a difference and a positive weight in column j.
    ``d`` is scaled by ``2**-exponent[j]`` in column j, so that its largest used
    ``|d|`` is in [0.5, 1): exact, and no sum or square of the table overflows
    (differences near 1e308) or loses digits below the normal range (5e-324).
    Means, sums and bounds read from the table are in units of ``2**exponent``;
    p-values, effect sizes and the BCa acceleration do not depend on it. Given
    weights are scaled the same way, by ``2**-weight_exponent[j]`` (its largest used
    weight in [0.5, 1)), so that neither ``w d`` nor a total of weights
    overflows (weights near 1e308) or loses digits (near 5e-324): sums of
    ``x`` are in units of ``2**(exponent + weight_exponent)``, weighted means
    in units of ``2**exponent``; every statistic reads weights in ratios
    (weighted means, the share of a user), which do not depend on their scale.
    ``x = w d`` where used, 0 elsewhere (C-contiguous). ``den``: the weights of
    the denominators, as the bootstrap kernel takes them: shape (n, 0) when
    every user counts 1 in every column, (n, 1) when all columns share one
    weight per user, (n, m) otherwise. With ``drop_unused``, users used in no
    column are dropped (the bootstrap must not draw them); otherwise row i is
    user i, so a user's random sign depends on its row only.
    """

    def __init__(self, d: np.ndarray, w: np.ndarray | None, drop_unused: bool = False) -> None:
        defined = ~np.isnan(d)
        complete = bool(defined.all())
        ww = (
            np.ones_like(d)
            if w is None
            else np.broadcast_to(w if w.ndim == 2 else w[:, None], d.shape)
        )
        used = defined & (ww > 0)
        keep = used.any(axis=1) if drop_unused else None
        if keep is not None and not keep.all():
            d, ww, used = d[keep], ww[keep], used[keep]
        largest = np.where(used, np.abs(d), 0.0).max(axis=0, initial=0.0)
        self.exponent: np.ndarray = np.frexp(largest)[1]
        d = np.ascontiguousarray(np.ldexp(d, -self.exponent))
        # one exponent for every column when w is 1-D (used = w > 0 in every column)
        heaviest = np.where(used, ww, 0.0).max(axis=0, initial=0.0)
        self.weight_exponent: np.ndarray = np.frexp(heaviest)[1] * (w is not None)
        ww = np.ldexp(ww, -self.weight_exponent)
        self.used = used
        self.d = d
        self.w = np.where(used, ww, 0.0)
        self.x = np.ascontiguousarray(np.where(used, ww * np.where(used, d, 0.0), 0.0))
        if complete and w is None:
            self.den = np.empty((len(d), 0))
        elif complete and w is not None and w.ndim == 1:
            self.den = np.ascontiguousarray(ww[:, :1])
        else:
            self.den = np.ascontiguousarray(self.w)
        self.n_used = used.sum(axis=0)
        self.total_weight = self.w.sum(axis=0)
        self.total = self.x.sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            self.mean = self.total / self.total_weight

    def standard_error(self) -> np.ndarray:
        """The standard error of each column's weighted mean, in units of ``2**exponent``.

        ``sqrt(n / (n - 1) * sum(w**2 (d - mean)**2)) / sum(w)`` over the ``n``
        used users (``sqrt(var / n)`` with equal weights); read from the scaled
        table, where no square overflows or underflows. nan where no user is used.
        """
        dev = np.where(self.used, self.d - self.mean, 0.0)
        n = self.n_used
        with np.errstate(invalid="ignore", divide="ignore"):
            ss = (self.w * self.w * dev * dev).sum(axis=0) * n / np.maximum(n - 1, 1)
            result: np.ndarray = np.sqrt(ss) / self.total_weight
        return result

    def in_units(self, values: np.ndarray) -> np.ndarray:
        """``values`` read from the table (means, standard errors, bounds) in the
        differences' units: times ``2**exponent``, exact."""
        result: np.ndarray = np.ldexp(values, self.exponent)
        return result

    def constant(self) -> np.ndarray:
        """Columns whose used differences are all equal (at least one used)."""
        if self.d.shape[0] == 0:
            return np.zeros(self.d.shape[1], dtype=bool)
        low = np.where(self.used, self.d, np.inf).min(axis=0)
        high = np.where(self.used, self.d, -np.inf).max(axis=0)
        result: np.ndarray = (self.n_used > 0) & (low == high)
        return result


def signed_rank_direction(differences: Any) -> float | np.ndarray:
    """The sign of the Wilcoxon signed-rank statistic of each column of differences.

    Parameters
    ----------
    differences : array-like of shape (n_users,) or (n_users, n_columns)
        Per-user differences; NaN leaves a user out of its column.

    Returns
    -------
    direction : float or ndarray of shape (n_columns,)
        1.0 where the sum of the ranks of ``|d|`` over the positive differences
        exceeds that over the negative ones (zeros dropped, ties averaged, as
        :func:`scipy.stats.wilcoxon`), -1.0 where it is below, 0.0 where they
        are equal or no difference is non-zero. It is the side whose one-sided
        Wilcoxon p-value is the smaller; it can disagree with the sign of the
        mean (a few large gains against many small losses).

    Raises
    ------
    InputValidationError
        ``differences`` is empty (no user), not 1-D or 2-D, not numeric, or
        holds infinity.

    Examples
    --------
    >>> from receval.comparison.paired import signed_rank_direction
    >>> signed_rank_direction([3.0, -0.1, -0.2, -0.3])  # mean > 0, ranks lean negative
    -1.0
    """
    d, one_d = check_differences(differences, "signed_rank_direction")
    out = np.zeros(d.shape[1])
    for j in range(d.shape[1]):
        col = d[:, j]
        col = col[~np.isnan(col) & (col != 0)]
        if col.size:
            size = np.abs(col)
            order = np.argsort(size, kind="stable")
            _, first, ties = np.unique(size[order], return_index=True, return_counts=True)
            ranks = np.empty(size.size)
            ranks[order] = np.repeat(first + (ties + 1) / 2.0, ties)  # tied ones: their mean
            out[j] = np.sign(ranks[col > 0].sum() - ranks[col < 0].sum())
    return as_result(out, one_d)


def wins_ties_losses(gains: np.ndarray) -> tuple[int, int, int]:
    """The users where a model is better (``gains > 0``), equal and worse than
    another: ``gains`` are its per-user differences in the metric's good direction
    (the negated differences of a loss), for the users that count."""
    return int((gains > 0).sum()), int((gains == 0).sum()), int((gains < 0).sum())


def column_wins_ties_losses(
    values: dict[str, dict[str, np.ndarray]],
    weights: dict[str, np.ndarray | None],
    higher: dict[str, bool | None],
    cols: list[tuple[str, str, str]],
) -> np.ndarray:
    """Per column (metric, model, versus) of ``values[metric][model]`` (per-user values,
    nan = undefined): the users (with a value for both and a positive weight) where
    model is better than versus in the metric's direction, equal, worse."""
    out = np.empty((3, len(cols)), dtype=np.int64)
    for j, (m, a, b) in enumerate(cols):
        diff = values[m][a] - values[m][b]
        used = ~np.isnan(diff)
        w = weights[m]
        if w is not None:
            used &= w > 0
        out[:, j] = wins_ties_losses(diff[used] if higher[m] is not False else -diff[used])
    return out

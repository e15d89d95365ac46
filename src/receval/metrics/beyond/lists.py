"""What the beyond-accuracy metrics share: the run as ranked lists, and a mean over users.

Every beyond-accuracy metric (:mod:`receval.metrics.beyond.catalog`,
:mod:`receval.metrics.beyond.diversity`) reads the top-``k`` list of each user of a
:class:`~receval.Run` (``k=None``: the whole list), given as a ``Run``, a
mapping, a DataFrame or a sequence of lists. Those averaged over users return
a :class:`MeanOverUsers`, which also counts the users left out.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping
from typing import Any, TypeAlias, TypeVar

import numpy as np

from ... import _validation as v
from ..._kernels import compiled, num_threads
from ...data import io
from ...data._ranked import Run
from ...data._ranked import as_run as as_ranked
from ...engine.sums import group_means
from ...exceptions import (
    InputValidationError,
    InvalidParameterError,
    UndefinedMetricWarning,
    warn,
)

__all__ = ["MeanOverUsers"]

#: A ``Run``, ``{user: {item: score}}``, a DataFrame with user/item/score
#: columns, or a sequence of ranked item lists (one per user; 2-D arrays too).
RunLike: TypeAlias = Any

#: Parameters paragraphs shared by the public functions; :func:`document` puts each
#: in place of ``{name}`` in their docstrings
PARAMETERS = {
    "run": "run : Run, mapping, DataFrame or sequence of lists\n"
    "        The recommendations, as in :func:`intra_list_similarity`.",
    "depth": "k : int, default=None\n        Depth of each list; None means the whole list.",
}
_F = TypeVar("_F", bound=Callable[..., Any])


def document(**pieces: str) -> Callable[[_F], _F]:
    """Fill the ``{name}`` places of a docstring with ``pieces``, then :data:`PARAMETERS`
    (a piece may hold those)."""

    def fill(func: _F) -> _F:
        doc = func.__doc__ or ""
        for name, text in [*pieces.items(), *PARAMETERS.items()]:
            doc = doc.replace(f"{{{name}}}", text)
        func.__doc__ = doc
        return func

    return fill


_WHOLE_LIST = np.iinfo(np.int64).max
# below this many rows, the per-user kernels run on the calling thread
PARALLEL_MIN_ROWS = 1 << 16


# ---------------------------------------------------------------- inputs
def as_run(run: RunLike, func: str, argument: str = "run") -> Run:
    """A ``Run`` from any of the accepted shapes (a ``Run`` is used as is), given as
    ``argument`` of ``func``, which its errors name."""
    if isinstance(run, Run):
        return run
    if isinstance(run, Mapping):
        bad_user = next((u for u, items in run.items() if not isinstance(items, Mapping)), None)
        if bad_user is not None:
            raise InputValidationError(
                f"{func}: {argument} must map each user to {{item: score}}. Got a "
                f"{type(run[bad_user]).__name__} for user {bad_user!r}; for ranked lists pass "
                f"a list of lists instead."
            )
        return as_ranked(run, func, argument)
    if io.is_frame(run):  # the reader's errors named so too
        return as_ranked(run, func, argument)
    if isinstance(run, np.ndarray) and run.ndim == 2:
        n_users, length = run.shape
        v.check_not_empty(n_users, argument, func)
        if length == 0:
            return _without_items(n_users)
        users = np.repeat(np.arange(n_users), length)
        ranks = np.tile(np.arange(1, length + 1), n_users)
        return Run(users, run.reshape(-1), ranks=ranks)
    got = f"{type(run).__name__}."
    if isinstance(run, (list, tuple)) or (isinstance(run, np.ndarray) and run.ndim == 1):
        lists = list(run)
        bad = next((x for x in lists if not _is_list(x)), None)
        if bad is None:
            v.check_not_empty(len(lists), argument, func)
            lengths = np.fromiter((len(x) for x in lists), dtype=np.int64, count=len(lists))
            if not lengths.any():
                return _without_items(len(lists))
            users = np.repeat(np.arange(len(lists)), lengths)
            flat = [item for x in lists for item in x]
            ranks = np.concatenate([np.arange(1, n + 1) for n in lengths])
            result = Run(users, flat, ranks=ranks)
            # an empty list is a user without items, as {user: {}} of a mapping
            empty = np.flatnonzero(lengths == 0)
            if empty.size:
                result.append_users_without_rows(empty.tolist())
            return result
        got = (
            f"a {type(run).__name__} holding a {type(bad).__name__}; wrap a single list as [items]."
        )
    raise InputValidationError(
        f"{func}: {argument} must be a Run, a mapping {{user: {{item: score}}}}, a DataFrame or a "
        f"sequence of ranked item lists. Got {got}"
    )


def _without_items(n_users: int) -> Run:
    """The run of ``n_users`` empty lists: users 0..n-1 without items, as
    ``{user: {}}`` of a mapping gives them (no user at all is refused before)."""
    return Run.from_dict({user: {} for user in range(n_users)})


def is_empty_run(run: Any) -> bool:
    """A run (or qrels) of no row: a mapping of no user or of users with no item, lists
    of no item, or a frame of no rows (an accumulator's update of one tells nothing)."""
    if isinstance(run, Mapping):
        return all(not items for items in run.values())
    if isinstance(run, (list, tuple)):
        return all(_is_list(x) and not len(x) for x in run)
    return bool(getattr(run, "shape", (1,))[0] == 0) if hasattr(run, "columns") else False


def _is_list(x: Any) -> bool:
    if isinstance(x, (str, bytes)):
        return False
    if isinstance(x, np.ndarray):
        return x.ndim == 1
    return hasattr(x, "__len__") and hasattr(x, "__iter__") and not isinstance(x, Mapping)


def check_k(k: int | None, func: str) -> int:
    """The list depth as an int64-compatible number (``None``: the whole list)."""
    if k is None:
        return int(_WHOLE_LIST)
    # a k beyond any list is the whole list (and must still fit the kernels' int64)
    return min(int(v.check_number(k, "k", func, integer=True, low=1)), int(_WHOLE_LIST))


def catalog_size(catalog: Any, func: str, high: int | None = None) -> int | None:
    """The size that ``catalog`` gives, an int in [1, ``high``], or None where it gives
    the catalogue's item ids (an array-like, which the caller reads).

    Raises
    ------
    InvalidParameterError
        An int out of range, or another number (a float such as ``5.0``, a bool, a
        0-d array): a size is an int.
    """
    if isinstance(catalog, (int, np.integer)) and not isinstance(catalog, (bool, np.bool_)):
        return int(v.check_number(catalog, "catalog", func, integer=True, low=1, high=high))
    zero_d = isinstance(catalog, np.ndarray) and catalog.ndim == 0
    if not (zero_d or isinstance(catalog, (numbers.Number, np.generic))):
        return None
    value = catalog.item() if isinstance(catalog, (np.ndarray, np.generic)) else catalog
    whole = isinstance(value, (int, float)) and not isinstance(value, bool)
    whole = whole and math.isfinite(value) and float(value).is_integer() and value >= 1
    fix = f"catalog={int(value)}" if whole else "the number of items as an int, or the item ids"
    raise InvalidParameterError(
        f"The 'catalog' parameter of {func} must be an int (the catalogue's size) or the "
        f"ids of its items (a list or array). Got {catalog!r} ({type(catalog).__name__}) "
        f"instead; pass {fix}."
    )


def item_exposure(run: Run, depth: int) -> np.ndarray:
    """Number of top-``depth`` lists holding each item code."""
    counts = compiled().item_counts_csr(run.items, run.offsets, depth, len(run.item_ids))
    result: np.ndarray = counts
    return result


def user_chunks(n_rows: int) -> int:
    """Chunks of users for the per-user kernels of a run of ``n_rows`` rows: one
    (no thread is woken) below 64Ki rows. The values do not depend on them."""
    return 1 if n_rows < PARALLEL_MIN_ROWS else 4 * num_threads()


class MeanOverUsers(float):
    """A mean over users: a float that also counts the users it left out.

    Returned by :func:`intra_list_similarity`, :func:`diversity` and
    :func:`novelty`, whose value is undefined for some users (a list of fewer
    than 2 items; no item of the list in the interaction log). It is the float
    itself in every computation; the counts are attributes.

    Attributes
    ----------
    n_users : int
        Users (lists) given.
    n_users_skipped : int
        Users left out of the mean because their value is undefined.

    Examples
    --------
    >>> from receval import intra_list_similarity
    >>> ils = intra_list_similarity([["a", "b"], ["c"]], similarity=lambda a, b: 0.5)
    >>> ils, ils.n_users, ils.n_users_skipped
    (0.5, 2, 1)
    """

    n_users: int
    n_users_skipped: int

    def __new__(cls, value: float, n_users: int, n_users_skipped: int) -> MeanOverUsers:
        self = super().__new__(cls, value)
        self.n_users = n_users
        self.n_users_skipped = n_users_skipped
        return self

    def __repr__(self) -> str:
        return float.__repr__(self)

    def __reduce__(self) -> tuple[Any, ...]:
        return (MeanOverUsers, (float(self), self.n_users, self.n_users_skipped))


def mean_over_users(
    per_user: np.ndarray, func: str, reason: str, complement: bool = False
) -> MeanOverUsers:
    """Mean over users with a defined value (``1 - mean`` with ``complement``), with the
    counts; nan and a warning when there are none."""
    kept = per_user[~np.isnan(per_user)]
    n, skipped = len(per_user), len(per_user) - kept.size
    if kept.size == 0:
        warn(
            f"{func}: {reason}, so it is undefined (returned as nan).",
            UndefinedMetricWarning,
        )
        return MeanOverUsers(float("nan"), n, skipped)
    with np.errstate(over="ignore"):
        value = float(kept.mean())
    if math.isinf(value):  # the sum overflowed, maybe not the mean: summed exactly
        one_group = np.zeros(kept.size, dtype=np.int64)
        value = float(group_means(one_group, kept, np.array([float(kept.size)]))[0])
    return MeanOverUsers(1.0 - value if complement else value, n, skipped)


def missing_items(run: Run, mask: np.ndarray) -> str:
    ids = run.item_ids[np.flatnonzero(mask)[: v.MAX_SHOWN + 1]]
    n = int(mask.sum())
    return f"{v.counted(n, 'item')} {v.format_values(ids)}"

"""Train/test splits of one log: temporal, leave-last-N-out, per-user ratio, random hold-out."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from .._validation import check_number, check_option
from ..data._encode import group_rows
from ..data._times import check_zone, cutoff_key, earlier
from ..exceptions import InvalidParameterError
from ._counts import result_of
from ._log import Log, read_log
from ._order import (
    check_fraction,
    last_of_each,
    quantile_of,
    seed_generator,
    user_order,
)
from ._result import SplitResult

__all__ = ["leave_last_out", "random_holdout", "ratio", "temporal"]

#: what a per-user split does with a user who has too few rows to hold any out
SHORT = ["drop", "test", "train"]


def _is_scan(data: Any) -> bool:
    return type(data).__name__ == "Scan" and type(data).__module__.startswith("receval")


def no_scan(data: Any, func: str) -> None:
    if _is_scan(data):
        raise InvalidParameterError(
            f"{func}: a Scan is split out of core by temporal and leave_last_out only; read "
            f"this log into memory (e.g. pyarrow.parquet.read_table) to split it with {func}."
        )


def _no_paths(log: Any, train_path: Any, test_path: Any, func: str) -> None:
    """Refuse ``train_path`` / ``test_path`` for a log that is no Scan: they write a Scan's
    split to files, and an in-memory split would leave them unwritten."""
    given = {"train_path": train_path, "test_path": test_path}
    named = [f"{name}={path!r}" for name, path in given.items() if path is not None]
    if not named:
        return
    kind = "a path" if isinstance(log, (str, os.PathLike)) else f"a {type(log).__name__}"
    raise InvalidParameterError(
        f"{func}: train_path and test_path write a Scan's split to files; the log is "
        f"{kind}, split in memory, and they would not be written. Got {', '.join(named)}; "
        f"drop them and write result.train and result.test yourself, or pass "
        f"receval.scan(<file>) of the log's file to split it out of core."
    )


def _one_of(a: Any, b: Any, names: tuple[str, str], func: str) -> None:
    if (a is None) == (b is None):
        got = "neither" if a is None else f"both: {names[0]}={a!r}, {names[1]}={b!r}"
        raise InvalidParameterError(
            f"{func}: pass exactly one of {names[0]}= and {names[1]}=. Got {got}."
        )


def temporal(
    log: Any,
    cutoff: Any = None,
    *,
    quantile: float | None = None,
    user: str = "user",
    item: str | None = "item",
    time: str | None = None,
    rating: str | None = None,
    train_path: str | os.PathLike[str] | None = None,
    test_path: str | os.PathLike[str] | None = None,
) -> SplitResult:
    """Split a log at one time: rows before the cut-off train, the rest test.

    Train holds the rows with ``time < cutoff``, test the rows with
    ``time >= cutoff`` (rows at the cut-off are test, as in LensKit's
    ``split_global_time``). No row of the test precedes a row of the train.
    Users whose rows all come after the cut-off are cold (counted in
    ``n_cold_users``); users whose rows all come before have no test
    (``n_users_without_test``).

    Parameters
    ----------
    log : DataFrame, Arrow table, path or Scan
        The interactions: a pandas or polars DataFrame, an Arrow table, a CSV
        or Parquet path, a directory of Parquet files (its files as
        :func:`receval.scan` finds them, read whole; the keys of ``key=value``
        directories, hive partitions, are columns as any other), or a
        :func:`receval.scan` of files larger than memory (then ``train_path``
        and ``test_path`` are written batch by batch).
    cutoff : number or datetime, default=None
        The first time of the test part: a number for numeric times; a
        datetime, ``numpy.datetime64``, ``pandas.Timestamp`` or ISO string for
        datetime columns. Against tz-aware times it has a UTC offset or a time
        zone (``'2024-01-01T00:00:00+01:00'``, a tz-aware datetime), against
        naive times none: as pandas and polars, the split does not compare a
        naive time with an aware one. ISO 8601 text with UTC offsets is
        tz-aware, each time the instant it names, compared in UTC whatever
        the offsets of the others; text with an offset on some times and none
        on others takes no cut-off. Each time is the instant it names (a
        ``numpy.datetime64`` month or year: its first instant), compared with
        the cut-off exactly whatever their units: ``'2020-01-15'`` puts the
        month ``2020-01`` in train.
    quantile : float in (0, 1), default=None
        Instead of ``cutoff``: the cut-off is this quantile of the log's times
        (linear interpolation, as NumPy's and pandas' ``quantile``), so about
        ``1 - quantile`` of the rows are test (more when times tie). The times
        are compared with the interpolated quantile exactly, with no float
        rounding (nanosecond datetimes, int64 times past 2**53).
    user, item, time, rating : str
        Column names. ``time=None`` takes ``timestamp``, else ``time``;
        ``item=None`` skips the cold-item counts; ``rating`` is read by
        :meth:`SplitResult.qrels`.
    train_path, test_path : path, default=None
        For a Scan: the Parquet (``.parquet``) or CSV (``.csv``) files to write,
        whole or not at all: a split that fails (a bad row in a later batch)
        leaves them as they were. Refused for a log split in memory.

    Returns
    -------
    result : SplitResult

    Raises
    ------
    InvalidParameterError
        Neither or both of ``cutoff`` and ``quantile``; a cut-off of the wrong
        kind for the time column, or naive against tz-aware times or aware
        against naive ones; a quantile outside (0, 1); ``train_path`` or
        ``test_path`` for a log that is no Scan.
    InputValidationError
        A missing column; missing (NaN) times; a cut-off against ISO 8601 text
        with a UTC offset on some times only.

    Examples
    --------
    >>> import pandas as pd
    >>> from receval import split
    >>> log = pd.DataFrame({"user": [1, 1, 2, 2, 3], "item": [10, 11, 10, 12, 13],
    ...                     "timestamp": [1, 5, 2, 6, 7]})
    >>> result = split.temporal(log, cutoff=5)
    >>> result.test["item"].tolist()
    [11, 12, 13]
    >>> result.n_cold_users, result.n_cold_items
    (1, 3)
    """
    func = "temporal"
    _one_of(cutoff, quantile, ("cutoff", "quantile"), func)
    q = None if quantile is None else check_fraction(quantile, "quantile", func)
    if _is_scan(log):
        from ._stream import temporal_scan

        return temporal_scan(
            log, cutoff, q, user=user, item=item, time=time, rating=rating,
            train_path=train_path, test_path=test_path,
        )  # fmt: skip
    _no_paths(log, train_path, test_path, func)
    data = read_log(log, user=user, item=item, time=time, rating=rating, func=func)
    keys = times_of(data)
    if q is not None:
        cut = quantile_of(keys, q)
    else:
        cut = cutoff_key(cutoff, data.unit, "cutoff", func, keys)
        check_zone(cutoff, data.unit, data.zone, "cutoff", func)
    test = ~earlier(keys, cut)
    return result_of(data, ~test, test, "temporal")


def times_of(data: Log) -> np.ndarray:
    if data.times is None:  # pragma: no cover - read_log reads the time when asked
        raise AssertionError("the log was read without its time column")
    return data.times


def check_short(n: Any, min_train: Any, short: Any, func: str) -> tuple[int, int]:
    """The checked ``n``, ``min_train`` and ``short`` of leave_last_out."""
    n = check_number(n, "n", func, integer=True, low=1)
    min_train = check_number(min_train, "min_train", func, integer=True, low=0)
    check_option(short, "short", func, SHORT)
    return int(n), int(min_train)


def leave_last_out(
    log: Any,
    n: int = 1,
    *,
    min_train: int = 1,
    short: str = "train",
    user: str = "user",
    item: str | None = "item",
    time: str | None = None,
    rating: str | None = None,
    train_path: str | os.PathLike[str] | None = None,
    test_path: str | os.PathLike[str] | None = None,
) -> SplitResult:
    """Hold out each user's last ``n`` interactions by time.

    Each user's rows are ordered by time, ties in the log's row order (of two
    rows at the same time, the later row in the log is the later one); the last
    ``n`` are test, the others train. A user with fewer than ``n + min_train``
    rows is short: ``short`` says what becomes of them.

    Parameters
    ----------
    log : DataFrame, Arrow table, path or Scan
        The interactions (see :func:`temporal`); a Scan is split in two passes
        over its files: the first finds each user's cut point, the second
        writes ``train_path`` and ``test_path``.
    n : int, default=1
        Interactions held out per user.
    min_train : int, default=1
        Rows a user must keep in train to have a test.
    short : {"train", "drop", "test"}, default="train"
        A short user's rows all go to train (counted in
        ``n_users_without_test``), are dropped (``n_users_dropped``), or all go
        to test (LensKit's ``LastN``; such users are cold).
    user, item, time, rating : str
        Column names (see :func:`temporal`).
    train_path, test_path : path, default=None
        For a Scan: the files to write (refused for a log split in memory).

    Returns
    -------
    result : SplitResult

    Examples
    --------
    >>> import pandas as pd
    >>> from receval import split
    >>> log = pd.DataFrame({"user": ["a", "a", "a", "b"], "item": [1, 2, 3, 1],
    ...                     "timestamp": [3, 1, 3, 5]})
    >>> result = split.leave_last_out(log, n=1)
    >>> result.test.index.tolist()  # a's two rows at time 3: the later row is last
    [2]
    >>> result.n_users_without_test  # b has one row: kept in train
    1
    """
    func = "leave_last_out"
    n, min_train = check_short(n, min_train, short, func)
    if _is_scan(log):
        from ._stream import leave_last_out_scan

        return leave_last_out_scan(
            log, n, min_train, short, user=user, item=item, time=time, rating=rating,
            train_path=train_path, test_path=test_path,
        )  # fmt: skip
    _no_paths(log, train_path, test_path, func)
    data = read_log(log, user=user, item=item, time=time, rating=rating, func=func)
    offsets, rows = user_order(data.user_codes, data.n_users, times_of(data))
    counts = np.diff(offsets)
    long = counts >= n + min_train
    held = np.where(long, n, counts if short == "test" else 0)
    test = last_of_each(offsets, rows, held)
    train = ~test
    if short == "drop":
        train &= long[data.user_codes]
    return result_of(data, train, test, "leave_last_out")


#: how a per-user fraction of rows becomes a number of rows
ROUNDING = ["floor", "half_even"]


def _per_user_fraction(
    counts: np.ndarray, fraction: float, of_test: bool, rounding: str
) -> np.ndarray:
    """Rows held out per user: ``r(fraction * n)`` of the test (``of_test``), or ``n -
    r(fraction * n)`` kept in train, ``r`` rounding half to even (Python's round) or down."""
    product = fraction * counts
    rounded = np.round(product) if rounding == "half_even" else np.floor(product)
    held: np.ndarray = rounded.astype(np.int64)
    return held if of_test else counts - held


def _fraction(test: float | None, train: float | None) -> tuple[float, bool]:
    """The fraction given (one of the two is) and whether it is the test's."""
    return (test, True) if test is not None else (float(train or 0.0), False)


def ratio(
    log: Any,
    test_fraction: float | None = None,
    *,
    train_fraction: float | None = None,
    rounding: str = "half_even",
    min_interactions: int = 1,
    user: str = "user",
    item: str | None = "item",
    time: str | None = None,
    rating: str | None = None,
) -> SplitResult:
    """Hold out the latest fraction of each user's interactions.

    Each user's rows are ordered by time (ties in the log's row order, as in
    :func:`leave_last_out`); the last ``round(test_fraction * n)`` of a user's
    ``n`` rows are test. Given ``train_fraction`` instead, the first
    ``round(train_fraction * n)`` are train (Microsoft Recommenders'
    ``python_chrono_split(ratio=train_fraction)``); the two differ when the
    product ends in .5. Rounding is half to even (Python's ``round``), or down
    with ``rounding="floor"``: ``ratio(train_fraction=0.8, rounding="floor")``
    keeps ``floor(0.8 * n)`` rows in train, Elliot's ``temporal_hold_out`` with
    ``test_ratio: 0.2``.

    Parameters
    ----------
    log : DataFrame, Arrow table or path
        The interactions (a path: see :func:`temporal`).
    test_fraction : float in (0, 1), default=None
        Fraction of each user's rows held out (rounded: LensKit's ``LastFrac``).
    train_fraction : float in (0, 1), default=None
        Instead of ``test_fraction``: the fraction kept in train (rounded).
    rounding : {"half_even", "floor"}, default="half_even"
        How the fraction of a user's rows becomes a number of rows: rounded
        half to even, or rounded down.
    min_interactions : int, default=1
        Users with fewer rows are dropped (counted in ``n_users_dropped``), as
        Recommenders' ``min_rating``.
    user, item, time, rating : str
        Column names (see :func:`temporal`).

    Returns
    -------
    result : SplitResult

    Examples
    --------
    >>> import pandas as pd
    >>> from receval import split
    >>> log = pd.DataFrame({"user": [1] * 4 + [2] * 2, "item": [1, 2, 3, 4, 1, 2],
    ...                     "timestamp": [4, 3, 2, 1, 1, 2]})
    >>> split.ratio(log, test_fraction=0.5).test["item"].tolist()
    [1, 2, 2]
    """
    func = "ratio"
    no_scan(log, func)
    _one_of(test_fraction, train_fraction, ("test_fraction", "train_fraction"), func)
    f = None if test_fraction is None else check_fraction(test_fraction, "test_fraction", func)
    tf = None if train_fraction is None else check_fraction(train_fraction, "train_fraction", func)
    check_option(rounding, "rounding", func, ROUNDING)
    min_n = int(check_number(min_interactions, "min_interactions", func, integer=True, low=1))
    data = read_log(log, user=user, item=item, time=time, rating=rating, func=func)
    offsets, rows = user_order(data.user_codes, data.n_users, times_of(data))
    counts = np.diff(offsets)
    kept = counts >= min_n
    held = _per_user_fraction(counts, *_fraction(f, tf), rounding)
    test = last_of_each(offsets, rows, np.where(kept, held, 0))
    train = ~test & kept[data.user_codes]
    return result_of(data, train, test, "ratio")


def random_holdout(
    log: Any,
    test_fraction: float | None = None,
    *,
    n: int | None = None,
    train_fraction: float | None = None,
    seed: Any,
    stream: str = "generator",
    rounding: str = "half_even",
    min_interactions: int = 1,
    user: str = "user",
    item: str | None = "item",
    time: str | None = None,
    rating: str | None = None,
) -> SplitResult:
    """Hold out a random part of each user's interactions, reproducibly.

    Every row of the log draws a uniform key in [0, 1) from the seeded stream,
    in the log's row order; each user's rows are ordered by key (ties, which
    have probability 0, in row order) and the last ones are test: ``n`` rows,
    ``round(test_fraction * count)``, or all but the first
    ``round(train_fraction * count)``. The same seed and log give the same
    split.

    Parameters
    ----------
    log : DataFrame, Arrow table or path
        The interactions (a path: see :func:`temporal`); no time column is needed.
    test_fraction, n, train_fraction
        Exactly one: the fraction held out per user, a number of rows per user
        (users with ``n`` rows or fewer stay in train, counted in
        ``n_users_without_test``), or the fraction kept in train.
    seed : int or numpy.random.Generator
        The stream's seed (required: a split is reproducible): a non-negative
        integer or a Generator; with "legacy" and "shuffle" an integer in
        [0, 2**32 - 1], as ``RandomState`` takes.
    stream : {"generator", "legacy", "shuffle"}, default="generator"
        ``"generator"``: ``numpy.random.default_rng(seed).random(n_rows)``.
        ``"legacy"``: ``numpy.random.RandomState(seed).rand(n_rows)``, the keys of
        Microsoft Recommenders' ``python_stratified_split(ratio=train_fraction,
        seed=seed)``, which it then equals.
        ``"shuffle"``: ``numpy.random.RandomState(seed)`` draws one permutation
        of each user's rows (``permutation(count)``, users in the order of their
        sorted ids), whose values are the keys of the user's rows in log order:
        Elliot's ``random_subsampling`` (``np.random.seed(seed)``, then
        ``np.random.shuffle`` of each user's train/test flags), which
        ``random_holdout(train_fraction=1 - test_ratio, seed=seed,
        stream="shuffle", rounding="floor")`` equals.
    rounding : {"half_even", "floor"}, default="half_even"
        How a fraction of a user's rows becomes a number of rows (see
        :func:`ratio`).
    min_interactions : int, default=1
        Users with fewer rows are dropped (counted).
    user, item, time, rating : str
        Column names (``time`` is not read unless named).

    Returns
    -------
    result : SplitResult

    Examples
    --------
    >>> import pandas as pd
    >>> from receval import split
    >>> log = pd.DataFrame({"user": [1] * 4 + [2] * 4, "item": list(range(8))})
    >>> a = split.random_holdout(log, n=1, seed=7)
    >>> b = split.random_holdout(log, n=1, seed=7)
    >>> a.test.equals(b.test), a.n_test_rows
    (True, 2)
    """
    func = "random_holdout"
    no_scan(log, func)
    given = [x is not None for x in (test_fraction, n, train_fraction)]
    if sum(given) != 1:
        values = {"test_fraction": test_fraction, "n": n, "train_fraction": train_fraction}
        got = [f"{k}={x!r}" for k, x in values.items() if x is not None]
        raise InvalidParameterError(
            f"{func}: pass exactly one of test_fraction=, n= and train_fraction=. Got "
            f"{' and '.join(got) if got else 'none of them'}."
        )
    check_option(stream, "stream", func, ["generator", "legacy", "shuffle"])
    check_option(rounding, "rounding", func, ROUNDING)
    if stream != "generator":  # numpy.random.RandomState's seeds
        if (
            isinstance(seed, (bool, np.bool_))
            or not isinstance(seed, (int, np.integer))
            or not 0 <= seed <= 2**32 - 1
        ):
            raise InvalidParameterError(
                f"The 'seed' parameter of {func} must be an integer in [0, 2**32 - 1] with "
                f"stream={stream!r}. Got {seed!r} instead; pass e.g. seed=0 (stream="
                f"'generator' takes any non-negative integer)."
            )
    else:
        rng = seed_generator(seed, func)
    f = None if test_fraction is None else check_fraction(test_fraction, "test_fraction", func)
    tf = None if train_fraction is None else check_fraction(train_fraction, "train_fraction", func)
    k = None if n is None else int(check_number(n, "n", func, integer=True, low=1))
    min_n = int(check_number(min_interactions, "min_interactions", func, integer=True, low=1))
    data = read_log(log, user=user, item=item, time=time, rating=rating, func=func, need_time=False)
    if stream == "legacy":
        keys = np.random.RandomState(int(seed)).rand(data.n_rows)
    elif stream == "shuffle":
        keys = _shuffled_ranks(data, np.random.RandomState(int(seed)))
    else:
        keys = rng.random(data.n_rows)
    offsets, rows = user_order(data.user_codes, data.n_users, keys)
    counts = np.diff(offsets)
    kept = counts >= min_n
    if k is not None:
        held = np.where(counts > k, k, 0)
    else:
        held = _per_user_fraction(counts, *_fraction(f, tf), rounding)
    test = last_of_each(offsets, rows, np.where(kept, held, 0))
    train = ~test & kept[data.user_codes]
    return result_of(data, train, test, "random_holdout")


def _shuffled_ranks(data: Log, state: np.random.RandomState) -> np.ndarray:
    """Each row's value in a permutation of its user's rows (in log order), one
    ``state.permutation`` per user in the order of the sorted user ids."""
    offsets, positions = group_rows(data.user_codes, data.n_users)
    if len(positions) == 0:  # the rows are grouped already
        positions = np.arange(data.n_rows)
    keys = np.empty(data.n_rows, dtype=np.int64)
    rank = data.sorted_user_codes()
    for code in np.argsort(rank):
        start, stop = int(offsets[code]), int(offsets[code + 1])
        keys[positions[start:stop]] = state.permutation(stop - start)
    return keys

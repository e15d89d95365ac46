"""Several splits of one log: user k-fold (whole users held out) and rolling temporal folds."""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Iterator, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from .._validation import check_number
from ..data._times import check_zone, cutoff_key, cutoff_ticks, cutoff_unit, earlier
from ..exceptions import InputValidationError, InvalidParameterError
from ._counts import result_of
from ._log import read_log
from ._methods import no_scan, times_of
from ._order import seed_generator
from ._result import SplitResult

__all__ = ["rolling", "user_kfold"]


def user_kfold(
    log: Any,
    k: int = 5,
    *,
    seed: Any,
    user: str = "user",
    item: str | None = "item",
    time: str | None = None,
    rating: str | None = None,
) -> Iterator[SplitResult]:
    """Partition the users into ``k`` folds; each fold's users are held out whole.

    Strong generalisation: fold ``i``'s test holds every row of its users, its
    train every row of the other users, so each user is tested in exactly one
    fold and the folds partition the users. The users, sorted by id, are
    shuffled by ``numpy.random.default_rng(seed).shuffle`` and cut into ``k``
    near-equal parts (``numpy.array_split``): LensKit's ``crossfold_users`` with
    the same seed draws the same folds. The log's row order does not change them.

    Parameters
    ----------
    log : DataFrame, Arrow table or path
        The interactions (a path: see :func:`temporal`); no time column is needed.
    k : int, default=5
        Folds, at least 2 and at most the number of users.
    seed : int or numpy.random.Generator
        The shuffle's seed.
    user, item, time, rating : str
        Column names.

    Returns
    -------
    folds : iterator of SplitResult
        One per fold, ``fold`` 0 to ``k - 1``, each made as it is drawn; its test
        users are all cold. The parameters and the log are checked at the call.

    Examples
    --------
    >>> import pandas as pd
    >>> from receval import split
    >>> log = pd.DataFrame({"user": [1, 1, 2, 3, 3, 4], "item": [1, 2, 1, 3, 1, 2]})
    >>> folds = list(split.user_kfold(log, k=2, seed=0))
    >>> [sorted(set(f.test["user"].tolist())) for f in folds]
    [[1, 3], [2, 4]]
    >>> folds[0].n_cold_users, folds[0].n_train_users
    (2, 2)
    """
    func = "user_kfold"
    no_scan(log, func)
    k = int(check_number(k, "k", func, integer=True, low=2))
    rng = seed_generator(seed, func)
    data = read_log(log, user=user, item=item, time=time, rating=rating, func=func, need_time=False)
    if not data.n_users:
        raise InputValidationError(
            f"{func}: the log is empty (no rows), so it has no users to cut into {k} folds; "
            f"pass a log with at least {k} users."
        )
    if k > data.n_users:
        raise InvalidParameterError(
            f"The 'k' parameter of {func} must be at most the number of users "
            f"({data.n_users}). Got {k} instead."
        )
    order = np.arange(data.n_users)
    rng.shuffle(order)
    fold_of = np.empty(data.n_users, dtype=np.int64)
    for i, part in enumerate(np.array_split(order, k)):
        fold_of[part] = i
    fold_of_rows = fold_of[data.sorted_user_codes()][data.user_codes]
    return (result_of(data, fold_of_rows != i, fold_of_rows == i, func, fold=i) for i in range(k))


def rolling(
    log: Any,
    cutoffs: Sequence[Any],
    *,
    end: Any = None,
    train_window: float | dt.timedelta | np.timedelta64 | None = None,
    user: str = "user",
    item: str | None = "item",
    time: str | None = None,
    rating: str | None = None,
) -> list[SplitResult]:
    """Rolling temporal folds for back-tests: train before each cut-off, test up to the next.

    Fold ``i`` trains on the rows with ``time < cutoffs[i]`` and tests on those
    with ``cutoffs[i] <= time < cutoffs[i + 1]`` (the last fold up to ``end``,
    or to the end of the log): LensKit's ``split_global_time`` with a list of
    times. Rows outside a fold's two windows are counted as dropped.

    Parameters
    ----------
    log : DataFrame, Arrow table or path
        The interactions (a path: see :func:`temporal`).
    cutoffs : sequence of numbers or datetimes
        Increasing cut-off times, one per fold, no two in one tick of the
        times' unit (their folds would be the same); with a UTC offset or a time
        zone against tz-aware times, without against naive ones (see
        :func:`temporal`).
    end : number or datetime, default=None
        The end of the last fold's test (excluded), as the cut-offs.
    train_window : number or timedelta, default=None
        Train on the last ``train_window`` before each cut-off only: for numeric
        times a number in their units (seconds for Unix times), for datetimes a
        ``datetime.timedelta``, ``numpy.timedelta64`` or ``pandas.Timedelta``
        (to the nanosecond; of months or years, ``numpy.timedelta64(2, "M")``,
        for times in months or years); None: all earlier rows. The window counts back
        from the cut-off itself (not from it rounded to the times' unit), and
        its start is compared with the times exactly (no float rounding of
        large times).
    user, item, time, rating : str
        Column names (see :func:`temporal`).

    Returns
    -------
    folds : list of SplitResult

    Examples
    --------
    >>> import pandas as pd
    >>> from receval import split
    >>> log = pd.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 1, 2],
    ...                     "timestamp": [1, 2, 3, 2, 4]})
    >>> folds = split.rolling(log, cutoffs=[2, 3])
    >>> [(f.n_train_rows, f.n_test_rows) for f in folds]
    [(1, 2), (3, 2)]
    """
    func = "rolling"
    no_scan(log, func)
    if isinstance(cutoffs, (str, bytes)) or not hasattr(cutoffs, "__len__") or not len(cutoffs):
        raise InvalidParameterError(
            f"The 'cutoffs' parameter of {func} must be a non-empty sequence of times. Got "
            f"{cutoffs!r} instead."
        )
    if train_window is not None and not isinstance(train_window, _TIMEDELTAS):
        check_number(train_window, "train_window", func, low=0, low_inclusive=False)
    data = read_log(log, user=user, item=item, time=time, rating=rating, func=func)
    keys = times_of(data)
    given = [*cutoffs] if end is None else [*cutoffs, end]
    subject = "The 'cutoffs' parameter" if end is None else "The 'cutoffs' and 'end' parameters"
    unit = cutoff_unit(given, data.unit, subject, func)
    exact = [cutoff_ticks(c, unit, "cutoffs", func, keys) for c in cutoffs]
    cuts = [cutoff_key(c, unit, "cutoffs", func, keys) for c in cutoffs]
    for cutoff in cutoffs:
        check_zone(cutoff, data.unit, data.zone, "cutoffs", func)
    if any(b <= a for a, b in itertools.pairwise(exact)):
        raise InvalidParameterError(
            f"The 'cutoffs' parameter of {func} must be increasing. Got {list(cutoffs)!r} instead."
        )
    for i, (a, b) in enumerate(itertools.pairwise(cuts)):
        if b == a:  # increasing, but the column's unit cannot tell them apart
            pair = (cutoffs[i], cutoffs[i + 1])
            raise InvalidParameterError(
                f"The 'cutoffs' parameter of {func} must be increasing in the time column's "
                f"unit: {_same_tick(pair, a, unit, data.zone)}, so their folds would be the "
                f"same. Got {list(cutoffs)!r} "
                f"instead; drop one of the two, or give cut-offs that fall in different "
                f"{_tick_word(unit)}s."
            )
    last = None if end is None else cutoff_key(end, unit, "end", func, keys)
    if end is not None:
        check_zone(end, data.unit, data.zone, "end", func)
        if cutoff_ticks(end, unit, "end", func, keys) <= exact[-1]:
            raise InvalidParameterError(
                f"The 'end' parameter of {func} must come after the last cut-off. Got "
                f"{end!r} instead."
            )
    if last is not None and last <= cuts[-1]:
        raise InvalidParameterError(
            f"The 'end' parameter of {func} must come after the last cut-off in the time "
            f"column's unit: {_same_tick((cutoffs[-1], end), last, unit, data.zone)}, so "
            f"the last fold's test would be empty. Got "
            f"{end!r} instead; give an end in a later {_tick_word(unit)} than the last "
            f"cut-off's."
        )
    window = _window_ticks(train_window, unit, func)
    folds = []
    for i, cut in enumerate(cuts):
        upper = cuts[i + 1] if i + 1 < len(cuts) else last
        train = earlier(keys, cut)
        test = ~train
        if window is not None:  # from the exact cut-off (no float rounding, no tick's)
            train &= ~earlier(keys, Fraction(exact[i]) - window)
        if upper is not None:
            test &= earlier(keys, upper)
        folds.append(result_of(data, train, test, "rolling", fold=i))
    return folds


#: the words of NumPy's units of datetimes
_UNIT_WORDS = {"Y": "year", "M": "month", "W": "week", "D": "day", "h": "hour",
               "m": "minute", "s": "second", "ms": "millisecond", "us": "microsecond",
               "ns": "nanosecond"}  # fmt: skip


def _tick_word(unit: Any) -> str:
    """A tick of a datetime column's unit in words: ``day``, ``10-second tick``."""
    name, count = np.datetime_data(unit)
    word = _UNIT_WORDS.get(name, name)
    return word if count == 1 else f"{count}-{word} tick"


def _same_tick(given: tuple[Any, Any], key: Any, unit: Any, zone: str | None) -> str:
    """Why two increasing cut-offs ``given`` cut a datetime column as one: both fall
    in the one tick of its unit that ends at ``key``, the first tick at or after
    each (:func:`~receval.data._times.cutoff_key`)."""
    at = f"{np.array([int(key)], dtype=np.int64).view(unit)[0]}{' UTC' if zone else ''}"
    word = _tick_word(unit)
    return (
        f"{given[0]!r} and {given[1]!r} fall in the same {word} of its times (it holds "
        f"times in {word}s; both cut at {at}, the first {word} at or after each)"
    )


#: the spans of time a datetime column's train window is given as
_TIMEDELTAS = (dt.timedelta, np.timedelta64)  # pandas.Timedelta is a datetime.timedelta

#: the example of a span of time in the errors of ``train_window``
WINDOW_EXAMPLE = "datetime.timedelta(days=30)"


def _window_ticks(window: Any, unit: np.dtype[Any] | None, func: str) -> Fraction | None:
    """``train_window`` in ticks of the time column, exactly: a number of numeric times
    as it is, a timedelta in ticks of a datetime column's unit (a fraction of a tick
    where the span is finer than the unit). A number against datetimes is refused: it
    would count ticks of a unit the reader chose (pandas reads text as microseconds or
    nanoseconds, by version)."""
    if window is None:
        return None
    span = isinstance(window, _TIMEDELTAS)
    if unit is None and span:
        raise InvalidParameterError(
            f"The 'train_window' parameter of {func} must be a number, as the time column "
            f"holds numbers. Got {window!r} instead; give the window in the times' units, "
            f"e.g. 86400 for a day of Unix seconds."
        )
    if unit is None:
        return Fraction(window)
    if not span:
        raise InvalidParameterError(
            f"The 'train_window' parameter of {func} must be a span of time (a "
            f"datetime.timedelta, numpy.timedelta64 or pandas.Timedelta), as the time "
            f"column holds datetimes. Got {window!r} instead; give e.g. {WINDOW_EXAMPLE}."
        )
    # pandas.Timedelta in its nanoseconds (NumPy reads it as a datetime.timedelta: in us)
    given = window.to_timedelta64() if hasattr(window, "to_timedelta64") else np.timedelta64(window)
    name, count = np.datetime_data(unit)
    tick = np.array(count, dtype=f"m8[{name}]")
    try:  # both in ticks of the finer unit, as Python ints
        common = np.promote_types(given.dtype, tick.dtype)
        ticks = Fraction(_in_ticks(given, common), _in_ticks(tick, common))
    except TypeError:  # months or years against days: no fixed length
        ticks = Fraction(0)
        if name in ("Y", "M"):  # a fixed span back from a time in months: no month's start
            raise InvalidParameterError(
                f"The 'train_window' parameter of {func} must be a span of months or "
                f"years, as the time column holds {_tick_word(unit)}s, whose length "
                f"varies. Got {window!r} instead; give e.g. numpy.timedelta64(2, 'M')."
            ) from None
    if np.isnat(given) or ticks <= 0:  # NaT, no fixed length, zero or negative
        raise InvalidParameterError(
            f"The 'train_window' parameter of {func} must be a positive span of time of a "
            f"fixed length. Got {window!r} instead; give e.g. {WINDOW_EXAMPLE}."
        )
    return ticks


def _in_ticks(span: Any, unit: np.dtype[Any]) -> int:
    """A timedelta64 (a scalar or 0-d array) as a number of ticks of the finer ``unit``
    (exact: Python ints)."""
    per_tick = int(np.ones(1, dtype=span.dtype).astype(unit).view(np.int64)[0])
    return int(span.astype(np.int64)) * per_tick

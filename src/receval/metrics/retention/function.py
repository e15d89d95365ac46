"""Retention on activity logs: new, login and returning users, and cohort day-N retention.

The public :func:`retention`: the retention definition (``definition``) run on
one partition, the whole log; a :func:`receval.scan` is cut into batches of
whole users (``scan``).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ...data import io
from ...data._open import place
from .definition import RETENTION, check_params, finalize
from .report import RetentionReport
from .times import FUNC

__all__ = ["retention"]


def retention(
    events: Any,
    *,
    user: str = "user",
    time: str = "time",
    signup: str | Mapping[Any, Any] | Any | None = None,
    period: str = "day",
    days: int | Sequence[int] = (1, 3, 7, 30),
    tz: str | _dt.tzinfo = "UTC",
    time_unit: str | None = None,
    before_signup: str = "keep",
    file_format: str | None = None,
) -> RetentionReport:
    """Compute new, login and returning users per period and the day-N retention of each cohort.

    Each event is assigned to the local period (day, ISO week from Monday,
    or calendar month in time zone ``tz``) that contains it. A user is *new*
    in the period of their signup (``signup`` given) or else of their first
    event, and belongs to that period's cohort. The day-N retention of a
    cohort is the fraction of its users with an event exactly N periods
    later ("active on day d+N"), for every N in ``days``; the full
    cohort x offset table is in the report too.

    Parameters
    ----------
    events : DataFrame, Arrow table, mapping of arrays, path or Scan
        Activity events, one row per event: a pandas or polars DataFrame, an
        Arrow table, a mapping of column name to array, or the path of a CSV,
        TSV or Parquet file. Repeated events of a user in one period count
        once. A :func:`receval.scan` of a file larger than memory is read in
        any row order: its users are cut into buckets whose events fit the
        scan's ``max_memory``, one pass over the file each (one pass when the
        whole log fits). ``signup`` must then be None or a column.
    user : str, default="user"
        Column of user ids (ints or strings).
    time : str, default="time"
        Column of event times: datetimes (naive ones are UTC; tz-aware ones
        are instants), dates (used as local calendar dates), ISO 8601 strings
        (with or without a UTC offset; without one they are UTC, a bare date
        ``'2024-01-31'`` is a calendar date), or epoch numbers (see
        ``time_unit``).
    signup : str, mapping, DataFrame or Arrow table, default=None
        Signup time of the users: the name of a column of ``events``
        (constant within each user; missing values allowed), a mapping
        ``{user: time}`` (a dict or a pandas Series indexed by user), or a
        table with the ``user`` column and a ``signup`` column. Times are read
        as those of ``time`` (epoch numbers in ``time_unit``). Users in it
        without any event are new users that never came back. Users with
        events but no signup time get the period of their first event. Its
        user ids match those of the events as :func:`receval.evaluate`
        matches ids: an integer 7 is the string ``"7"``, not ``"07"``,
        ``"7.0"`` or ``"u7"``; ids of another type than the events' that
        (almost) never match them raise ``InputValidationError``.
    period : {"day", "week", "month"}, default="day"
        Period unit; weeks start on Monday (ISO 8601).
    days : int or sequence of int, default=(1, 3, 7, 30)
        The offsets N (in periods, all >= 1) of the day-N retention: 1 is
        next-day (次日) retention.
    tz : str or datetime.tzinfo, default="UTC"
        IANA time zone in which periods start at local midnight; DST changes
        are followed (a local day can last 23 or 25 hours).
    time_unit : {"s", "ms", "us", "ns"}, default=None
        Unit of the epoch numbers of the event times and of the signup times
        (one unit for both). By default the unit of each is inferred from its
        own numbers: numbers in [1e8, 1e11) are seconds and numbers in
        [1e11, 1e14) milliseconds (both 1973 to 5138); other numbers raise
        ``InputValidationError`` asking for ``time_unit``. Must be None when
        the event or the signup times are datetimes or strings.
    before_signup : {"keep", "drop", "error"}, default="keep"
        Events earlier than their user's signup: ``"keep"`` counts them as
        logins of their periods (the user's cohort stays the signup period),
        ``"drop"`` ignores them, ``"error"`` raises. Always counted in the
        report.
    file_format : {"csv", "tsv", "parquet"}, default=None
        Format of a file ``events``; by default from its suffix.

    Returns
    -------
    report : RetentionReport
        Per-period counts and rates, per-cohort day-N retention, the full
        cohort table, and what each rule affected.

    Raises
    ------
    InputValidationError
        Missing columns, ids or times; unparsable strings; epoch numbers of
        unclear unit; conflicting signup times of one user; signup user ids
        of two types (numbers and strings), or of another type than the
        events' that (almost) never match them; no events.
    InvalidParameterError
        A bad ``period``, ``days``, ``tz``, ``time_unit`` or ``before_signup``.

    See Also
    --------
    RetentionReport : The result and its ``to_frame`` / ``cohort_frame`` / ``table_frame``.
    receval.metric : ``receval.metric("retention", ...)`` accumulates the same report
        from batches of whole users.
    receval.spark.retention : The same report from a Spark DataFrame.

    Notes
    -----
    With ``new[c]`` the users of cohort ``c`` and ``A[u]`` the periods in
    which user ``u`` has an event (or signs up):

    - ``login[t] = |{u : t in A[u]}|``, ``returning[t] = login[t] - new[t]``,
      ``login_users_per_new_user[t] = login[t] / new[t]`` (it exceeds 1 when
      returning users outnumber new ones);
    - ``day_N[c] = |{u in new[c] : c + N in A[u]}| / |new[c]|``, nan when
      ``c + N`` is after the last period of the window (unobserved) or the
      cohort is empty.

    The window runs from the period of the first event to that of the last.

    Examples
    --------
    >>> from receval import retention
    >>> events = {
    ...     "user": ["a", "a", "b", "b", "c"],
    ...     "time": ["2024-01-01 09:00", "2024-01-02 10:00", "2024-01-01 12:00",
    ...              "2024-01-04 08:00", "2024-01-02 23:00"],
    ... }
    >>> report = retention(events, days=(1, 3))
    >>> report.periods
    array(['2024-01-01', '2024-01-02', '2024-01-03', '2024-01-04'], dtype='datetime64[D]')
    >>> report.new_users, report.login_users, report.returning_users
    (array([2, 1, 0, 0]), array([2, 2, 0, 1]), array([0, 1, 0, 1]))
    >>> report.day_n_retention  # rows: cohorts; columns: day 1, day 3
    array([[0.5, 0.5],
           [0. , nan],
           [nan, nan],
           [nan, nan]])

    At 23:00 UTC it is already the next day in Shanghai:

    >>> retention(events, days=1, tz="Asia/Shanghai").new_users
    array([2, 0, 1, 0])
    """
    from ...data.scan import Scan

    params = check_params(
        user=user, time=time, period=period, days=days, tz=tz, time_unit=time_unit,
        before_signup=before_signup,
    )  # fmt: skip
    if isinstance(events, Scan):  # a receval.scan(...): batches of whole users
        from .scan import scan_retention

        return scan_retention(events, params, signup)
    where = _locator(None, None)
    data = events
    located: contextlib.AbstractContextManager[None] = contextlib.nullcontext()
    if isinstance(events, (str, os.PathLike)):
        path = os.fspath(events)
        fmt = file_format or io.infer_format(path)
        columns = [user, time] + ([signup] if isinstance(signup, str) else [])
        data = io.read_table(path, list(dict.fromkeys(columns)), FUNC, fmt, id_columns=(user,))
        if not data.num_rows:
            raise io.header_only(path)
        where, located = _locator(path, fmt), io.located(path, fmt)
    with located:  # a file's errors name its line (or row)
        batch = RETENTION.prepare(params, data, signup, where=where)
    return finalize(params, RETENTION.update(params, batch))


def _locator(path: str | None, fmt: str | None) -> Callable[[int], str]:
    """Where row ``i`` of the events is, for error messages."""

    def where(i: int) -> str:
        if path is None:
            return f"{FUNC}: row {i}"
        return place(path, i, lines=fmt in ("csv", "tsv"))

    return where

"""References for retention: a Python loop over sets, and a straightforward pandas version.

``retention_loops`` follows SPEC section 6 word by word with dicts and sets
(slow, obviously correct, supports signup times). ``retention_pandas`` is the
pandas code an analyst would write (tz_convert, floor to the local period,
drop_duplicates, groupby); it is fast enough to time beside receval in the
benchmark, and has no signup times.
"""

from __future__ import annotations

import datetime as dt
import math
from collections import defaultdict
from zoneinfo import ZoneInfo

import numpy as np


def _period_key(date: dt.date, period: str) -> dt.date:
    if period == "day":
        return date
    if period == "week":
        return date - dt.timedelta(days=date.weekday())  # Monday
    return date.replace(day=1)


def _next_key(key: dt.date, period: str) -> dt.date:
    if period == "day":
        return key + dt.timedelta(days=1)
    if period == "week":
        return key + dt.timedelta(days=7)
    return (key.replace(day=28) + dt.timedelta(days=4)).replace(day=1)


def retention_loops(
    users, seconds, *, tz="UTC", period="day", days=(1, 3, 7, 30), signup=None, before_signup="keep"
):
    """Every table of a retention report, from lists.

    ``seconds`` are UTC epoch seconds (ints); ``signup`` maps a user to a UTC
    epoch second or None. A signup counts as an activity in its period;
    ``before_signup="drop"`` removes events earlier than the signup.
    """
    zone = ZoneInfo(tz)
    signup = dict(signup or {})

    def key_of(second):
        return _period_key(dt.datetime.fromtimestamp(second, zone).date(), period)

    keys = [key_of(s) for s in seconds]
    first, last = min(keys), max(keys)
    window = [first]
    while window[-1] < last:
        window.append(_next_key(window[-1], period))
    index = {k: i for i, k in enumerate(window)}
    n = len(window)

    everyone = list(dict.fromkeys(list(users) + [u for u, s in signup.items() if s is not None]))
    cohort = {}
    for u in everyone:
        if signup.get(u) is not None:
            k = key_of(signup[u])
            cohort[u] = index[k] if k in index else ("before" if k < first else "after")
    active = defaultdict(set)
    n_before, users_before = 0, set()
    for u, s, k in zip(users, seconds, keys, strict=True):
        if signup.get(u) is not None and s < signup[u]:
            n_before += 1
            users_before.add(u)
            if before_signup == "drop":
                continue
        active[u].add(index[k])
    for u in everyone:
        if u not in cohort:  # no signup time: the first event's period
            cohort[u] = min(index[k] for uu, k in zip(users, keys, strict=True) if uu == u)
        if isinstance(cohort[u], int):
            active[u].add(cohort[u])  # the signup is an activity

    new, login = [0] * n, [0] * n
    table = [[0] * n for _ in range(n)]
    for u in everyone:
        c = cohort[u]
        if isinstance(c, int):
            new[c] += 1
        for p in active[u]:
            login[p] += 1
            if isinstance(c, int) and p >= c:
                table[c][p - c] += 1

    def ratio(a, b):
        return a / b if b else math.nan

    rates = [
        [ratio(table[c][k], new[c]) if c + k < n else math.nan for k in range(n)] for c in range(n)
    ]
    return {
        "periods": np.array(window, dtype="datetime64[D]"),
        "new_users": np.array(new),
        "login_users": np.array(login),
        "returning_users": np.array(login) - np.array(new),
        "login_users_per_new_user": np.array(
            [ratio(a, b) for a, b in zip(login, new, strict=True)]
        ),
        "cohort_counts": np.array(table),
        "cohort_retention": np.array(rates),
        "retained": np.array([[table[c][d] if d < n else 0 for d in days] for c in range(n)]),
        "day_n_retention": np.array(
            [[rates[c][d] if d < n else math.nan for d in days] for c in range(n)]
        ),
        "n_events_before_signup": n_before,
        "n_users_events_before_signup": len(users_before),
        "n_users": len(everyone),
    }


def retention_pandas(df, *, user="user", time="time", tz="UTC", period="day", days=(1, 3, 7, 30)):
    """The same tables with pandas, without signup times.

    ``df[time]`` holds datetimes (naive ones are UTC) or tz-aware datetimes.
    """
    import pandas as pd

    t = pd.to_datetime(df[time], utc=True)
    local = t.dt.tz_convert(tz).dt.tz_localize(None).dt.floor("D")  # local midnight, wall time
    if period == "week":
        local = local - pd.to_timedelta(local.dt.day_of_week, unit="D")
    elif period == "month":
        local = local - pd.to_timedelta(local.dt.day - 1, unit="D")
    first, last = local.min(), local.max()
    if period == "month":
        start = pd.date_range(first, last, freq="MS")
        idx = (local.dt.year - first.year) * 12 + (local.dt.month - first.month)
    else:
        step = 7 if period == "week" else 1
        start = pd.date_range(first, last, freq=f"{step}D")
        idx = (local - first).dt.days // step
    n = len(start)

    pairs = pd.DataFrame({"user": df[user].to_numpy(), "p": idx.to_numpy()}).drop_duplicates()
    pairs["c"] = pairs.groupby("user")["p"].transform("min")
    new = pairs.loc[pairs["p"] == pairs["c"], "p"].value_counts().reindex(range(n), fill_value=0)
    login = pairs["p"].value_counts().reindex(range(n), fill_value=0)
    counts = pairs.groupby([pairs["c"], pairs["p"] - pairs["c"]]).size()
    table = np.zeros((n, n), dtype=np.int64)
    table[counts.index.get_level_values(0), counts.index.get_level_values(1)] = counts.to_numpy()

    new_a, login_a = new.to_numpy(), login.to_numpy()
    with np.errstate(invalid="ignore", divide="ignore"):
        rates = table / new_a[:, None]
        rate = login_a / new_a
    rate[new_a == 0] = np.nan
    offset = np.arange(n)
    rates[(offset[:, None] + offset[None, :] >= n) | (new_a == 0)[:, None]] = np.nan
    day_n = np.full((n, len(days)), np.nan)
    for j, d in enumerate(days):
        if d < n:
            day_n[:, j] = rates[:, d]
    return {
        "periods": start.to_numpy().astype("datetime64[D]"),
        "new_users": new_a,
        "login_users": login_a,
        "returning_users": login_a - new_a,
        "login_users_per_new_user": rate,
        "cohort_counts": table,
        "cohort_retention": rates,
        "day_n_retention": day_n,
    }

"""Retention against the loop oracle at local midnights (DST zones), in every time format,
with the counts of the users each signup rule leaves out; the notes that report them."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import receval
from receval import retention
from receval.exceptions import InputValidationError
from tests.oracles import retention as oracle

# 2024-03-23 (Berlin's DST starts on the 31st), 2024-10-21 (Berlin and New York end
# theirs on 27 October and 3 November), 2024-03-05 (New York's starts on the 10th)
STARTS = [dt.date(2024, 3, 23), dt.date(2024, 10, 21), dt.date(2024, 3, 5)]
ZONES = ["UTC", "Europe/Berlin", "America/New_York", "Asia/Shanghai"]
# seconds from a local midnight: the midnight itself, the second before and after it
NEAR_MIDNIGHT = st.sampled_from([0, -1, 1, 3600, 7200, -3600, 43200])
FORMATS = ["s", "ms", "float", "datetime64", "pandas_tz", "iso_z", "iso_offset"]


def _midnight(day: dt.date, tz: str) -> int:
    return int(dt.datetime(day.year, day.month, day.day, tzinfo=ZoneInfo(tz)).timestamp())


@st.composite
def logs(draw):
    tz = draw(st.sampled_from(ZONES))
    start = draw(st.sampled_from(STARTS))
    span = draw(st.sampled_from([3, 12, 45]))

    def near_a_midnight(lo: int, hi: int) -> int:
        day = start + dt.timedelta(days=draw(st.integers(lo, hi)))
        return _midnight(day, tz) + draw(NEAR_MIDNIGHT)

    n_users = draw(st.integers(1, 5))
    n = draw(st.integers(1, 20))
    users = draw(st.lists(st.integers(0, n_users - 1), min_size=n, max_size=n))
    seconds = [near_a_midnight(0, span) for _ in range(n)]
    kwargs = {
        "tz": tz,
        "period": draw(st.sampled_from(["day", "week", "month"])),
        "days": tuple(draw(st.lists(st.integers(1, 8), min_size=1, max_size=3, unique=True))),
    }
    signup = None
    if draw(st.booleans()):  # two users only in the signup table; some without a time
        chosen = draw(st.lists(st.sampled_from(range(n_users + 2)), unique=True))
        signup = {
            u: None if draw(st.integers(0, 4)) == 0 else near_a_midnight(-3, span + 3)
            for u in chosen
        }
        kwargs["before_signup"] = draw(st.sampled_from(["keep", "drop"]))
    return users, seconds, signup, kwargs, draw(st.sampled_from(FORMATS))


def _as_format(seconds: list[int], fmt: str, tz: str):
    """The UTC seconds as a time column of format ``fmt``, and the time_unit it needs."""
    s = np.array(seconds, dtype=np.int64)
    if fmt == "s":
        return s, None
    if fmt == "ms":
        return s * 1000, "ms"
    if fmt == "float":  # floored to the second
        return s + 0.25, None
    if fmt == "datetime64":
        return s.astype("datetime64[s]"), None
    if fmt == "pandas_tz":
        return pd.Series(pd.to_datetime(s, unit="s", utc=True).tz_convert(tz)), None
    if fmt == "iso_z":
        return [f"{np.datetime64(int(x), 's')}Z" for x in s], None
    return [dt.datetime.fromtimestamp(int(x), ZoneInfo(tz)).isoformat() for x in s], None


def _left_out(users, seconds, signup, kwargs) -> dict[str, int]:
    """The users each signup rule leaves out of the cohorts, from the definitions."""
    zone, period = ZoneInfo(kwargs["tz"]), kwargs["period"]

    def key(second: int) -> dt.date:
        return oracle._period_key(dt.datetime.fromtimestamp(second, zone).date(), period)

    first, last = min(map(key, seconds)), max(map(key, seconds))
    times = [s for s in (signup or {}).values() if s is not None]
    return {
        "n_users_without_signup": (
            0 if signup is None else sum(signup.get(u) is None for u in set(users))
        ),
        "n_users_signup_before_window": sum(key(s) < first for s in times),
        "n_users_signup_after_window": sum(key(s) > last for s in times),
    }


@given(logs())
def test_equals_loop_oracle_at_local_midnights_in_every_time_format(log):
    users, seconds, signup, kwargs, fmt = log
    expected = oracle.retention_loops(users, seconds, signup=signup, **kwargs)
    expected.update(_left_out(users, seconds, signup, kwargs))
    times, unit = _as_format(seconds, fmt, kwargs["tz"])
    if signup is not None and unit == "ms":  # time_unit applies to the signup times too
        signup = {u: None if s is None else s * 1000 for u, s in signup.items()}
    report = retention({"user": users, "time": times}, signup=signup, time_unit=unit, **kwargs)
    for name, value in expected.items():
        if isinstance(value, np.ndarray) and value.dtype.kind == "f":
            np.testing.assert_array_equal(getattr(report, name), value, err_msg=name)
        else:
            np.testing.assert_array_equal(np.asarray(getattr(report, name)), value, err_msg=name)


def test_signup_note_says_events_of_users_signed_up_after_the_window_are_dropped():
    # a signs up after the window: both events are earlier than the signup
    events = {
        "user": ["a", "a", "b", "b", "c"],
        "time": ["2024-01-01T10:00Z", "2024-01-02T10:00Z", "2024-01-01T10:00Z",
                 "2024-01-03T10:00Z", "2024-01-02T10:00Z"],
        "signup": ["2024-01-20T00:00Z"] * 2 + ["2023-12-01T00:00Z"] * 2 + ["2024-01-02T00:00Z"],
    }  # fmt: skip
    kept = retention(events, signup="signup", days=[1])
    assert kept.login_users.tolist() == [2, 2, 1]
    assert kept.signup_note == (
        "1 user signed up before the window's first day and 1 after its last: in no cohort, "
        "their events counted as logins."
    )
    dropped = retention(events, signup="signup", days=[1], before_signup="drop")
    assert dropped.login_users.tolist() == [1, 1, 1]  # a's events are not logins
    assert dropped.n_events_dropped == 2
    assert dropped.signup_note == (
        "1 user signed up before the window's first day: in no cohort, their events counted "
        "as logins; 1 user signed up after the window's last day: in no cohort, their events "
        "dropped."
    )


SPAN = (
    "the events span 5001 days (from 1970-01-01 to 1983-09-10); at most 4000 are supported, as "
    "the cohort table has a row and a column per period; pass a longer period (period='week' or "
    "period='month'), or"
)


@pytest.mark.parametrize(
    ("times", "said"),
    [
        ([1_700_000_000_000_000, 1_700_000_000],
         "time holds a time outside the years 1 to 9999 (1700000000000000 seconds from 1970);"),
        ([1.7e15, 1.7e9],
         "time holds 1700000000000000.0, which as epoch seconds is outside the years 1 to 9999;"),
        ([0, 5000 * 86400], SPAN),
    ],
)  # fmt: skip
def test_a_time_out_of_range_names_time_unit_as_a_parameter(times, said):
    # "check time_unit." named no parameter the command line could translate (--time-unit)
    with pytest.raises(InputValidationError) as info:
        retention({"user": [1, 2], "time": times}, time_unit="s")
    assert str(info.value) == f"retention: {said} check time_unit= (the unit of epoch numbers)."


def test_a_retention_accumulator_of_a_named_zone_saves_and_loads_its_state():
    # its options held a ZoneInfo, which has no plain form: state_dict() and sync()
    # raised "state['zone'] holds a ZoneInfo"
    events = pd.DataFrame({"user": [1, 1, 2], "time": pd.to_datetime(
        ["2024-01-01 10:00", "2024-01-02 10:00", "2024-01-01 23:30"])})  # fmt: skip
    acc = receval.metric("retention", tz="Asia/Shanghai")
    acc.update(events)
    again = receval.metric("retention", tz="Asia/Shanghai")
    again.load_state_dict(acc.state_dict())
    want = receval.retention(events, tz="Asia/Shanghai").to_frame()
    assert again.compute().to_frame().equals(want)

"""Retention: a hand-computed log, time zones and DST, input formats, signup rules, oracles."""

from __future__ import annotations

import contextlib
import datetime as dt
import math
from zoneinfo import ZoneInfo

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given
from hypothesis import strategies as st

import receval.metrics.retention.counting as cohorts_module
from receval import RetentionReport, retention
from receval.exceptions import InputValidationError, InvalidParameterError
from tests.oracles import retention as oracle

nan = math.nan
UTC = dt.timezone.utc
JAN1 = 1704067200  # 2024-01-01T00:00:00Z
DAY = 86400


def _same(a, b):
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def _assert_report_equals(report: RetentionReport, expected: dict) -> None:
    for name, value in expected.items():
        got = getattr(report, name)
        if isinstance(value, np.ndarray) and value.dtype.kind == "f":
            np.testing.assert_allclose(got, value, rtol=0, atol=1e-12, err_msg=name)
        else:
            _same(got, value)


@contextlib.contextmanager
def _method(name):
    old = cohorts_module._METHOD
    cohorts_module._METHOD = name
    try:
        yield
    finally:
        cohorts_module._METHOD = old


# ---------------------------------------------------------------- hand-computed
# Day d = 2024-01-01 + d, UTC. The window is days 0..31 (32 periods).
HAND_LOG = [
    ("u1", 0, 9),
    ("u1", 0, 22),
    ("u1", 1, 8),
    ("u1", 3, 12),
    ("u1", 7, 7),
    ("u1", 30, 1),
    ("u2", 0, 10),
    ("u2", 1, 23),
    ("u3", 0, 0),
    ("u3", 2, 5),
    ("u3", 7, 18),  # day 2 is not day 0 + 3: no 3rd-day retention
    ("u4", 0, 23),
    ("u5", 1, 6),
    ("u5", 2, 6),
    ("u5", 4, 6),
    ("u5", 8, 6),
    ("u5", 31, 6),
    ("u6", 1, 11),
    ("u6", 1, 11),
    ("u6", 5, 2),  # a duplicate event; day 5 is cohort + 4
    ("u7", 30, 12),
    ("u7", 31, 0),
]


def _hand_events():
    users = [u for u, _, _ in HAND_LOG]
    seconds = [JAN1 + d * DAY + h * 3600 for _, d, h in HAND_LOG]
    return pd.DataFrame({"user": users, "time": pd.to_datetime(seconds, unit="s")})


def test_hand_computed_log():
    report = retention(_hand_events())  # days=(1, 3, 7, 30)
    assert report.n_periods == 32
    assert report.periods[0] == np.datetime64("2024-01-01")
    assert report.periods[-1] == np.datetime64("2024-02-01")
    new = np.zeros(32, int)
    new[[0, 1, 30]] = [4, 2, 1]  # u1-u4 / u5, u6 / u7
    login = np.zeros(32, int)
    login[[0, 1, 2, 3, 4, 5, 7, 8, 30, 31]] = [4, 4, 2, 1, 1, 1, 2, 1, 2, 2]
    _same(report.new_users, new)
    _same(report.login_users, login)
    _same(report.returning_users, login - new)  # day 1: u1, u2 came back; u5, u6 are new
    rate = np.full(32, nan)
    rate[[0, 1, 30]] = [4 / 4, 4 / 2, 2 / 1]  # seed 002's login / new
    np.testing.assert_array_equal(report.login_users_per_new_user, rate)
    # cohort day 0 (u1-u4): day 1 u1, u2; day 3 u1; day 7 u1, u3; day 30 u1
    np.testing.assert_array_equal(report.day_n_retention[0], [2 / 4, 1 / 4, 2 / 4, 1 / 4])
    _same(report.retained[0], [2, 1, 2, 1])
    # cohort day 1 (u5, u6): u5 on days 2, 4, 8, 31 = 1 + (1, 3, 7, 30)
    np.testing.assert_array_equal(report.day_n_retention[1], [0.5, 0.5, 0.5, 0.5])
    # cohort day 30 (u7): day 31 observed, days 33, 37, 60 are after the window
    np.testing.assert_array_equal(report.day_n_retention[30], [1.0, nan, nan, nan])
    _same(report.observed[30], [True, False, False, False])
    # empty cohorts: nan, never 0
    assert np.isnan(report.day_n_retention[2:30]).all()
    assert np.isnan(report.day_n_retention[31]).all()
    assert report.cohort_counts[0, 0] == 4 and report.cohort_counts[0, 30] == 1
    assert report.cohort_counts[0, 2] == 1  # u3 on day 2
    assert report.cohort_retention[0, 31] == 0.0 and np.isnan(report.cohort_retention[1, 31])
    assert report.n_events == len(HAND_LOG) and report.n_users == 7
    assert report.n_events_dropped == 0 and report.n_events_before_signup == 0
    assert report.time_unit is None and not report.time_unit_inferred


def test_hand_computed_weeks_and_months():
    report = retention(_hand_events(), period="week", days=(1, 4))
    # weeks from Monday 2024-01-01: days 0-6, 7-13, 14-20, 21-27, 28-34
    _same(
        report.periods,
        np.array(
            ["2024-01-01", "2024-01-08", "2024-01-15", "2024-01-22", "2024-01-29"],
            dtype="datetime64[D]",
        ),
    )
    _same(report.new_users, [6, 0, 0, 0, 1])
    _same(report.login_users, [6, 3, 0, 0, 3])  # week 1: u1, u3, u5; week 4: u1, u5, u7
    # cohort week 0: week 1 has u1, u3, u5 (3/6); week 4 has u1, u5 (2/6)
    np.testing.assert_allclose(report.day_n_retention[0], [3 / 6, 2 / 6])
    np.testing.assert_array_equal(report.day_n_retention[4], [nan, nan])
    report = retention(_hand_events(), period="month", days=1)
    _same(report.periods, np.array(["2024-01", "2024-02"], dtype="datetime64[M]"))
    _same(report.new_users, [7, 0])
    _same(report.login_users, [7, 2])  # u5 and u7 on 2024-02-01
    np.testing.assert_allclose(report.day_n_retention[:, 0], [2 / 7, nan])


def test_duplicate_events_change_nothing():
    events = _hand_events()
    doubled = pd.concat([events, events, events.iloc[::3]], ignore_index=True)
    a, b = retention(events), retention(doubled)
    for name in ("new_users", "login_users", "cohort_counts", "day_n_retention"):
        _same(getattr(a, name), getattr(b, name))
    assert b.n_events == 2 * len(events) + len(events.iloc[::3])


def test_event_order_changes_nothing():
    events = _hand_events()
    shuffled = events.sample(frac=1.0, random_state=3).reset_index(drop=True)
    _same(retention(events).cohort_counts, retention(shuffled).cohort_counts)


def test_old_names_warn_and_give_the_same_values():
    report = retention(_hand_events(), days=(1, 7))
    with pytest.warns(DeprecationWarning, match="use RetentionReport.returning_users"):
        np.testing.assert_array_equal(report.active_users, report.returning_users)
    with pytest.warns(DeprecationWarning, match="use RetentionReport.login_users_per_new_user"):
        rate = report.retention_rate
    np.testing.assert_array_equal(rate, report.login_users_per_new_user)
    new = report.new_users > 0
    np.testing.assert_array_equal(rate[new], report.login_users[new] / report.new_users[new])


def test_frames():
    report = retention(_hand_events(), days=(1, 7))
    frame = report.to_frame()
    assert isinstance(frame, pd.DataFrame)
    assert list(frame.columns) == [
        "period",
        "new_users",
        "login_users",
        "returning_users",
        "login_users_per_new_user",
    ]
    assert frame["new_users"].sum() == 7
    cohorts = report.cohort_frame(backend="polars")
    assert isinstance(cohorts, pl.DataFrame)
    assert cohorts.columns == ["cohort", "new_users", "day_1", "day_7"]
    assert cohorts["day_1"][0] == 0.5
    table = report.table_frame(values="count")
    assert list(table.columns[:4]) == ["cohort", "new_users", "day_0", "day_1"]
    assert table.shape == (32, 34) and table["day_0"].sum() == 7
    weekly = retention(_hand_events(), period="week", days=1).cohort_frame()
    assert list(weekly.columns) == ["cohort", "new_users", "week_1"]
    with pytest.raises(InvalidParameterError, match="'values' parameter of table_frame"):
        report.table_frame(values="share")


# ---------------------------------------------------------------- time zones
def test_late_utc_evening_is_next_day_in_shanghai():
    events = {"user": ["a", "a"], "time": ["2024-01-01T23:30:00Z", "2024-01-02T10:00:00Z"]}
    utc = retention(events, days=1)
    _same(utc.periods, np.array(["2024-01-01", "2024-01-02"], dtype="datetime64[D]"))
    _same(utc.day_n_retention[:, 0], [1.0, nan])
    shanghai = retention(events, days=1, tz="Asia/Shanghai")  # 07:30 and 18:00 on Jan 2
    _same(shanghai.periods, np.array(["2024-01-02"], dtype="datetime64[D]"))
    _same(shanghai.login_users, [1])
    assert np.isnan(shanghai.day_n_retention).all()
    assert shanghai.tz == "Asia/Shanghai"


def test_dst_days_in_new_york():
    # 2024-03-10 lasts 23 hours in New York (05:00Z to 04:00Z next day),
    # 2024-11-03 lasts 25 hours (04:00Z to 05:00Z next day)
    times = [
        "2024-03-10T04:59:59Z",  # Mar 9, 23:59:59 EST
        "2024-03-10T05:00:00Z",  # Mar 10, 00:00 EST
        "2024-03-11T03:59:59Z",  # Mar 10, 23:59:59 EDT (a fixed -05:00 would say Mar 10 22:59)
        "2024-03-11T04:00:00Z",  # Mar 11, 00:00 EDT (a fixed -05:00 would say Mar 10)
    ]
    report = retention({"user": ["x", "x", "y", "y"], "time": times}, tz="America/New_York")
    _same(report.periods, np.array(["2024-03-09", "2024-03-10", "2024-03-11"], "datetime64[D]"))
    _same(report.new_users, [1, 1, 0])
    _same(report.login_users, [1, 2, 1])
    _same(report.day_n_retention[:, 0], [1.0, 1.0, nan])
    fall = ["2024-11-03T04:00:00Z", "2024-11-04T04:59:59Z", "2024-11-04T05:00:00Z"]
    report = retention({"user": ["z", "z", "z"], "time": fall}, tz="America/New_York", days=1)
    _same(report.periods, np.array(["2024-11-03", "2024-11-04"], "datetime64[D]"))
    _same(report.login_users, [1, 1])
    _same(report.cohort_counts[0], [1, 1])


def test_skipped_local_date_is_an_empty_period():
    # Samoa skipped 2011-12-30 (from UTC-10 to UTC+14)
    apia = ZoneInfo("Pacific/Apia")
    times = [dt.datetime(2011, 12, 29, 12, tzinfo=apia), dt.datetime(2011, 12, 31, 12, tzinfo=apia)]
    report = retention({"user": ["s", "s"], "time": times}, tz="Pacific/Apia", days=(1, 2))
    _same(report.periods, np.array(["2011-12-29", "2011-12-30", "2011-12-31"], "datetime64[D]"))
    _same(report.login_users, [1, 0, 1])
    _same(report.day_n_retention[0], [0.0, 1.0])


def test_tz_objects_and_month_boundary_in_local_time():
    events = {"user": [1, 1], "time": ["2024-03-31T23:00:00Z", "2024-04-01T03:00:00Z"]}
    utc = retention(events, period="month", days=1)
    _same(utc.login_users, [1, 1])
    new_york = retention(events, period="month", days=1, tz=ZoneInfo("America/New_York"))
    _same(new_york.login_users, [1])  # 19:00 and 23:00 on Mar 31, EDT
    plus8 = retention(events, period="month", days=1, tz=dt.timezone(dt.timedelta(hours=8)))
    _same(plus8.periods, np.array(["2024-04"], "datetime64[M]"))


# ---------------------------------------------------------------- input formats
def _log(seed, n=300, n_users=40, span_days=45):
    rng = np.random.default_rng(seed)
    users = rng.integers(0, n_users, n) * 3 + 100
    seconds = JAN1 + rng.integers(0, span_days * DAY, n)
    return users, seconds


def _time_variants(seconds):
    naive = pd.to_datetime(seconds, unit="s")
    aware = naive.tz_localize("UTC").tz_convert("Asia/Shanghai")
    iso = [str(np.datetime64(int(s), "s")) for s in seconds]
    return {
        "epoch s": seconds,
        "epoch ms": seconds * 1000,
        "epoch s float": seconds + 0.25,
        "epoch ms float": seconds * 1000.0 + 999.0,
        "datetime64[ns]": naive.to_numpy(),
        "pandas tz-aware": pd.Series(aware),
        "python datetimes": [dt.datetime.fromtimestamp(int(s), UTC) for s in seconds],
        "ISO naive": iso,
        "ISO with space": [s.replace("T", " ") for s in iso],
        "pandas strings": pd.Series(iso, dtype="string"),
        "polars strings": pl.Series(iso),
        "ISO +08:00": [
            dt.datetime.fromtimestamp(int(s), dt.timezone(dt.timedelta(hours=8))).isoformat()
            for s in seconds
        ],
        "ISO mixed offsets": [iso[i] + "Z" if i % 2 else iso[i] for i in range(len(iso))],
    }


@pytest.mark.parametrize("tz", ["UTC", "America/New_York"])
def test_time_formats_give_identical_results(tz):
    users, seconds = _log(0)
    expected = retention({"user": users, "time": seconds}, tz=tz)
    assert expected.time_unit == "s" and expected.time_unit_inferred
    for name, times in _time_variants(seconds).items():
        report = retention({"user": users, "time": times}, tz=tz)
        _same(report.cohort_counts, expected.cohort_counts)
        _same(report.login_users, expected.login_users)
        _same(report.periods, expected.periods)
        if name.startswith("epoch ms"):
            assert report.time_unit == "ms", name


def test_containers_and_files_give_identical_results(tmp_path):
    users, seconds = _log(1)
    ids = [f"u{u}" for u in users]
    frame = pd.DataFrame({"user": ids, "time": pd.to_datetime(seconds, unit="s")})
    expected = retention(frame, tz="Asia/Shanghai", period="week", days=(1, 2))
    csv = tmp_path / "events.csv"
    frame.to_csv(csv, index=False)
    epoch_csv = tmp_path / "epoch.csv"
    pd.DataFrame({"user": ids, "time": seconds}).to_csv(epoch_csv, index=False)
    parquet = tmp_path / "events.parquet"
    pq.write_table(pa.Table.from_pandas(frame), parquet)
    inputs = {
        "polars": pl.from_pandas(frame),
        "arrow": pa.Table.from_pandas(frame),
        "dict of lists": {"user": ids, "time": frame["time"].tolist()},
        "csv": csv,
        "csv path str": str(epoch_csv),
        "parquet": parquet,
    }
    for name, events in inputs.items():
        report = retention(events, tz="Asia/Shanghai", period="week", days=(1, 2))
        _same(report.cohort_counts, expected.cohort_counts)
        _same(report.new_users, expected.new_users)
        assert report.n_users == expected.n_users, name


def test_dates_are_local_calendar_dates():
    events = {"user": ["a", "a", "b"], "time": ["2024-01-01", "2024-01-02", "2024-01-02"]}
    for tz in ("UTC", "America/New_York", "Asia/Tokyo"):
        report = retention(events, tz=tz, days=1)
        _same(report.periods, np.array(["2024-01-01", "2024-01-02"], "datetime64[D]"))
        _same(report.new_users, [1, 1])
    dates = {"user": ["a", "a", "b"], "time": np.array(events["time"], dtype="datetime64[D]")}
    _same(retention(dates, tz="America/New_York").new_users, [1, 1])
    objects = {"user": ["a", "a", "b"], "time": [dt.date(2024, 1, d) for d in (1, 2, 2)]}
    _same(retention(objects, tz="Asia/Tokyo").new_users, [1, 1])
    polars_dates = pl.DataFrame(events).with_columns(pl.col("time").str.to_date())
    _same(retention(polars_dates, tz="Asia/Tokyo").login_users, [1, 2])


def test_padded_dates_are_dates_and_ten_characters_must_be_a_date():
    """Whitespace around a date is not part of it (as for every ISO time column), in
    strings of every Arrow layout; a column of ten-character strings is read as dates,
    and one that is not is named."""
    padded = {"user": ["a", "a", "b"], "time": [" 2024-01-01", "2024-01-02\t", "2024-01-02 "]}
    for layout in (pa.string(), pa.large_string(), pa.string_view()):
        events = pa.table({"user": padded["user"], "time": pa.array(padded["time"], layout)})
        report = retention(events, tz="America/New_York", days=1)
        _same(report.periods, np.array(["2024-01-01", "2024-01-02"], "datetime64[D]"))
        _same(report.new_users, [1, 1])
    with pytest.raises(InputValidationError, match="row 1: the time '1704067200' is not an ISO"):
        retention({"user": ["a", "b"], "time": ["2024-01-01", "1704067200"]})


def test_explicit_time_unit():
    events = {"user": [1, 1], "time": [0, 2 * DAY]}
    report = retention(events, time_unit="s", days=2)
    _same(report.periods[[0, -1]], np.array(["1970-01-01", "1970-01-03"], "datetime64[D]"))
    _same(report.day_n_retention[0], [1.0])
    assert report.time_unit == "s" and not report.time_unit_inferred
    report = retention({"user": [1], "time": [JAN1 * 10**9]}, time_unit="ns")
    assert report.periods[0] == np.datetime64("2024-01-01")


# ---------------------------------------------------------------- signup
def _signup_log():
    # a signs up on day 2 but has events on days 0 and 2; b has no signup time
    # (cohort: first event, day 0); c signs up on day 1 and never has an event;
    # d signed up before the window; e signs up after it
    users = ["a", "a", "b", "b", "d", "e"]
    seconds = [
        JAN1 + 10 * 3600,
        JAN1 + 2 * DAY + 3600,
        JAN1 + 5,
        JAN1 + 2 * DAY,
        JAN1 + DAY,
        JAN1 + 3600,
    ]
    signup = {"a": JAN1 + 2 * DAY, "c": JAN1 + DAY + 60, "d": JAN1 - 5 * DAY, "e": JAN1 + 9 * DAY}
    return users, seconds, signup


@pytest.mark.parametrize("method", ["bitset", "csr"])
def test_signup_keep(method):
    users, seconds, signup = _signup_log()
    with _method(method):
        report = retention({"user": users, "time": seconds}, signup=signup, days=(1, 2))
    _same(report.new_users, [1, 1, 1])  # b / c / a
    _same(report.login_users, [3, 2, 2])  # day 0: a (before signup), b, e (before signup)
    _same(report.returning_users, [2, 1, 1])
    _same(report.day_n_retention[0], [0.0, 1.0])  # b on day 2
    _same(report.day_n_retention[1], [0.0, nan])  # c never came back
    assert report.n_users == 5
    assert report.n_users_without_signup == 1  # b
    assert report.n_users_signup_before_window == 1  # d
    assert report.n_users_signup_after_window == 1  # e
    assert report.n_events_before_signup == 2  # a on day 0, e on day 0
    assert report.n_users_events_before_signup == 2
    assert report.n_events_dropped == 0 and report.before_signup == "keep"


@pytest.mark.parametrize("method", ["bitset", "csr"])
def test_signup_drop(method):
    users, seconds, signup = _signup_log()
    with _method(method):
        report = retention(
            {"user": users, "time": seconds}, signup=signup, days=1, before_signup="drop"
        )
    _same(report.new_users, [1, 1, 1])
    _same(report.login_users, [1, 2, 2])  # a's and e's early events are gone
    assert report.n_events_dropped == 2 and report.n_events_before_signup == 2


def test_signup_error():
    users, seconds, signup = _signup_log()
    message = (
        "retention: 2 events of 2 users are earlier than the user's signup, e.g. user 'a' at "
        "2024-01-01T10:00:00Z signed up at 2024-01-03T00:00:00Z; pass before_signup='keep' to "
        "count them as logins or before_signup='drop' to ignore them."
    )
    with pytest.raises(InputValidationError) as info:
        retention({"user": users, "time": seconds}, signup=signup, before_signup="error")
    assert str(info.value) == message


def test_signup_forms_agree():
    users, seconds, signup = _signup_log()
    expected = retention({"user": users, "time": seconds}, signup=signup)
    table = pd.DataFrame({"user": list(signup), "signup": list(signup.values())})
    column = [signup.get(u) for u in users]
    forms = {
        "pandas table": table,
        "polars table": pl.from_pandas(table),
        "arrow table": pa.Table.from_pandas(table),
        "series": pd.Series(signup),
        "iso strings": {u: str(np.datetime64(s, "s")) for u, s in signup.items()},
    }
    for name, form in forms.items():
        report = retention({"user": users, "time": seconds}, signup=form)
        _same(report.cohort_counts, expected.cohort_counts)
        _same(report.login_users, expected.login_users)
        assert report.n_users == expected.n_users, name
    # a column of the events (missing for users without a signup time): c is not in it
    with_column = retention(
        {"user": users, "time": seconds, "signup": [np.nan if s is None else s for s in column]},
        signup="signup",
    )
    _same(with_column.new_users, [1, 0, 1])
    assert with_column.n_users == 4


def test_signup_column_in_a_csv_file(tmp_path):
    path = tmp_path / "events.csv"
    path.write_text(
        "user,time,signup\n"
        "007,2024-01-01T10:00:00Z,2024-01-02\n"
        "007,2024-01-03T10:00:00Z,2024-01-02\n"
        "7,2024-01-03T11:00:00Z,\n"
    )
    report = retention(path, signup="signup", days=1)
    # '007' (signup Jan 2, one event before it) and '7' (no signup: first event, Jan 3)
    # are two users: CSV ids are read as strings
    _same(report.new_users, [0, 1, 1])
    _same(report.login_users, [1, 1, 2])  # Jan 1: '007' before signup (kept)
    _same(report.day_n_retention[:, 0], [nan, 1.0, nan])
    assert report.n_events_before_signup == 1 and report.n_users_without_signup == 1


def test_signup_dates_are_local_dates():
    events = {"user": ["a", "a"], "time": ["2024-01-01T20:00:00Z", "2024-01-02T20:00:00Z"]}
    report = retention(events, signup={"a": "2024-01-02"}, tz="America/New_York", days=1)
    # events on Jan 1 and 2 (15:00 EST); signup at local midnight of Jan 2
    _same(report.new_users, [0, 1])
    assert report.n_events_before_signup == 1


def test_conflicting_signup_times():
    events = {"user": ["a", "a"], "time": [JAN1, JAN1 + DAY], "s": [JAN1, JAN1 + 60]}
    with pytest.raises(InputValidationError) as info:
        retention(events, signup="s")
    assert str(info.value) == (
        "retention: signup must give one time per user. Got 2024-01-01T00:00:00Z and "
        "2024-01-01T00:01:00Z for user 'a'; keep one signup time per user, e.g. the earliest."
    )


# ---------------------------------------------------------------- errors
def test_ambiguous_epoch_numbers():
    with pytest.raises(InputValidationError) as info:
        retention({"user": [1, 2], "time": [0, 86400]})
    assert str(info.value) == (
        "retention: time holds numbers from 0 to 86400, which are not clearly epoch seconds "
        "(1e8 to 1e11, i.e. 1973 to 5138) or epoch milliseconds (1e11 to 1e14); pass "
        "time_unit='s' or time_unit='ms'."
    )
    with pytest.raises(InputValidationError, match="not clearly epoch"):  # seconds and ms mixed
        retention({"user": [1, 2], "time": [JAN1, JAN1 * 1000]})


def test_unparsable_strings_name_row_and_line(tmp_path):
    events = {"user": [1, 2, 3], "time": ["2024-01-01", "2024-01-02 10:00", "yesterday"]}
    with pytest.raises(InputValidationError) as info:
        retention(events)
    assert str(info.value) == (
        "retention: row 2: the time 'yesterday' is not an ISO 8601 date or time; write e.g. "
        "'2024-01-31', '2024-01-31 08:00:00' or '2024-01-31T08:00:00+08:00'."
    )
    path = tmp_path / "bad.csv"
    path.write_text("user,time\na,2024-01-01 10:00:00\nb,2024-02-30 10:00:00\n")
    with pytest.raises(InputValidationError, match=r"bad\.csv:3: the time '2024-02-30 10:00:00'"):
        retention(path)


def test_a_files_missing_or_bad_time_names_its_line_or_row(tmp_path):
    csv = tmp_path / "e.csv"
    csv.write_text("user,time\nu1,2024-01-01\nu2,\nu3,2024-01-02\n")
    with pytest.raises(InputValidationError) as info:
        retention(csv)
    assert str(info.value) == (
        f"{csv}:3: retention: time contains 1 missing value (None, NaN or NaT), the first on "
        "this line; drop those rows or fill them with a time."
    )
    parquet = tmp_path / "e.parquet"
    for times, said in [
        (["2024-01-01", None, "2024-01-02"], "retention: time contains 1 missing value"),
        (["2024-01-01", "2024-13-01", "2024-01-02"], "the time '2024-13-01' is not an ISO"),
    ]:
        pq.write_table(pa.table({"user": ["a", "b", "c"], "time": times}), parquet)
        with pytest.raises(InputValidationError) as info:
            retention(parquet)
        assert str(info.value).startswith(f"{parquet}: row 2: {said}")  # 1-based, as elsewhere


def test_missing_values_and_columns(tmp_path):
    with pytest.raises(InputValidationError) as info:
        retention({"user": [1, 2], "time": [JAN1, np.nan]})
    assert str(info.value) == (
        "retention: time contains 1 missing value (None, NaN or NaT), the first at position 1; "
        "drop those rows or fill them with a time."
    )
    with pytest.raises(InputValidationError, match=r"1 missing value .*, the first at position 1;"):
        retention(pd.DataFrame({"user": [1, 2], "time": pd.to_datetime(["2024-01-01", None])}))
    times = pa.array([None, JAN1, None], pa.float64())
    with pytest.raises(InputValidationError, match=r"2 missing values .*, the first at position 0"):
        retention({"user": [1, 2, 3], "time": times})
    with pytest.raises(InputValidationError) as info:
        retention(pd.DataFrame({"user": [1], "ts": [JAN1]}))
    assert str(info.value) == (
        "retention: the events have no column 'time' for the event times. Got columns "
        "['user', 'ts']; pass time='<column name>'."
    )
    with pytest.raises(InputValidationError, match=r"no column 'uid' \(the user column\)"):
        retention(pd.DataFrame({"user": [1], "time": [JAN1]}), user="uid")
    with pytest.raises(InputValidationError, match="events is empty"):
        retention({"user": [], "time": []})
    header = tmp_path / "events.csv"
    header.write_text("user,time\n")
    with pytest.raises(InputValidationError) as info:  # it said "events is empty"
        retention(header)
    assert str(info.value) == (
        f"{header}: the file has no rows, only its header; pass a file with rows."
    )
    with pytest.raises(InputValidationError, match="user and time must have the same length"):
        retention({"user": [1, 2], "time": [JAN1]})
    with pytest.raises(InputValidationError, match="signup table has no column 'signup'"):
        retention({"user": [1], "time": [JAN1]}, signup=pd.DataFrame({"user": [1], "t": [2]}))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"period": "year"},
            "The 'period' parameter of retention must be one of ['day', 'month', 'week']. "
            "Got 'year' instead.",
        ),
        (
            {"days": 0},
            "The 'days' parameter of retention must be an integer in [1, inf). Got 0 instead.",
        ),
        (
            {"days": (1, 1)},
            "The 'days' parameter of retention must not repeat a value. Got (1, 1) instead.",
        ),
        (
            {"days": ()},
            "The 'days' parameter of retention must hold at least one positive "
            "integer. Got () instead.",
        ),
        (
            {"days": 1.5},
            "The 'days' parameter of retention must be a positive integer or a "
            "sequence of them. Got 1.5 instead.",
        ),
        (
            {"tz": "Mars/Olympus"},
            "The 'tz' parameter of retention must be an IANA time zone name such as 'UTC', "
            "'Asia/Shanghai' or 'America/New_York', or a datetime.tzinfo. Got 'Mars/Olympus' "
            "instead.",
        ),
        (
            {"before_signup": "ignore"},
            "The 'before_signup' parameter of retention must be one of ['drop', 'error', "
            "'keep']. Got 'ignore' instead.",
        ),
        (
            {"time_unit": "s", "time": "iso"},
            "The 'time_unit' parameter of retention must be None when time holds strings (it "
            "applies to epoch numbers). Got 's' instead.",
        ),
        (
            {"signup": 3},
            "The 'signup' parameter of retention must be None, the name of a column of events, "
            "a mapping from user to signup time, or a table with columns 'user' and 'signup'. "
            "Got int instead.",
        ),
    ],
)
def test_parameter_errors(kwargs, message):
    events = {"user": [1, 2], "time": [JAN1, JAN1 + DAY], "iso": ["2024-01-01", "2024-01-02"]}
    with pytest.raises(InvalidParameterError) as info:
        retention(events, **kwargs)
    assert str(info.value) == message


def test_too_many_periods():
    events = {"user": [1, 2], "time": [0, 20_000 * DAY]}
    with pytest.raises(InputValidationError, match="the events span 20001 days"):
        retention(events, time_unit="s")
    assert retention(events, time_unit="s", period="month").n_periods == 658


# ---------------------------------------------------------------- oracles
def _oracle_kwargs(report_kwargs):
    return {k: v for k, v in report_kwargs.items() if k in ("tz", "period", "days")}


SECONDS_IN_DAY = st.sampled_from([0, 1, 1799, 3599, 14399, 18000, 43200, 82800, 86399])


@st.composite
def logs(draw):
    n_users = draw(st.integers(1, 6))
    n = draw(st.integers(1, 30))
    span = draw(st.sampled_from([2, 9, 40, 140]))
    # 2024-03-05: spans New York's and Lord Howe's (30-minute) DST changes
    base = 1709596800
    users = draw(st.lists(st.integers(0, n_users - 1), min_size=n, max_size=n))
    day = st.integers(0, span)
    seconds = [
        base + draw(day) * DAY + draw(SECONDS_IN_DAY) + draw(st.sampled_from([0, -3600, 1800]))
        for _ in range(n)
    ]
    kwargs = {
        "tz": draw(
            st.sampled_from(["UTC", "Asia/Shanghai", "America/New_York", "Australia/Lord_Howe"])
        ),
        "period": draw(st.sampled_from(["day", "day", "week", "month"])),
        "days": tuple(draw(st.lists(st.integers(1, 12), min_size=1, max_size=4, unique=True))),
    }
    signup = None
    if draw(st.booleans()):
        candidates = list(range(n_users + 2))  # two users only in the signup table
        chosen = draw(st.lists(st.sampled_from(candidates), unique=True, max_size=len(candidates)))
        signup = {
            u: base + draw(st.integers(-5, span + 5)) * DAY + draw(SECONDS_IN_DAY) for u in chosen
        }
        kwargs["before_signup"] = draw(st.sampled_from(["keep", "drop"]))
    return users, seconds, signup, kwargs


@given(logs(), st.sampled_from(["bitset", "csr"]))
def test_equals_loop_oracle(log, method):
    users, seconds, signup, kwargs = log
    expected = oracle.retention_loops(users, seconds, signup=signup, **kwargs)
    with _method(method):
        report = retention({"user": users, "time": seconds}, signup=signup, **kwargs)
    _assert_report_equals(report, expected)
    assert report.n_events == len(users)
    if signup is not None:
        kept = retention(
            {"user": users, "time": seconds}, signup=signup, **{**kwargs, "before_signup": "keep"}
        )
        drop = kwargs.get("before_signup") == "drop"
        assert report.n_events_dropped == (kept.n_events_before_signup if drop else 0)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("period", ["day", "week", "month"])
def test_equals_pandas_reference_on_random_logs(seed, period):
    rng = np.random.default_rng(seed)
    n = 3000
    users = rng.integers(0, 400, n)
    first = rng.integers(0, 120, 400)  # each user's first day, then activity after it
    days = first[users] + rng.geometric(0.15, n) - 1
    seconds = 1698000000 + days * DAY + rng.integers(0, DAY, n)  # from 2023-10-22, two DSTs
    frame = pd.DataFrame({"user": users, "time": pd.to_datetime(seconds, unit="s")})
    tz = ["UTC", "America/New_York", "Europe/Berlin", "Asia/Kolkata"][seed]
    expected = oracle.retention_pandas(frame, tz=tz, period=period, days=(1, 3, 7, 30))
    with _method(["bitset", "csr"][seed % 2]):
        report = retention(frame, tz=tz, period=period)
    _assert_report_equals(report, expected)


@pytest.mark.parametrize(
    "values",
    [
        [dt.datetime(2024, 1, 1), 1_700_000_000],
        [pd.Timestamp("2024-01-01"), 1.7e9],
        [dt.date(2024, 1, 1), np.int64(1_700_000_000)],
    ],
)
def test_datetimes_mixed_with_numbers_raise(values):
    # Arrow alone would read the number as microseconds since 1970: a wrong time
    events = pd.DataFrame({"user": [1, 2], "time": pd.Series(values, dtype=object)})
    with pytest.raises(InputValidationError, match=r"time must hold values of one kind.*mixed"):
        retention(events, user="user", time="time")
    ok = pd.DataFrame({"user": [1, 2], "time": pd.Series([values[0], None], dtype=object)})
    with pytest.raises(
        InputValidationError,
        match=r"1 missing value \(None, NaN or NaT\), the first at position 1;",
    ):  # None is missing, not mixed
        retention(ok, user="user", time="time")


# ---------------------------------------------------------------- one definition, every source
def _same_reports(got: RetentionReport, expected: RetentionReport) -> None:
    for name in RetentionReport.__dataclass_fields__:
        a, b = getattr(got, name), getattr(expected, name)
        if isinstance(b, np.ndarray):
            _same(a, b)  # nan == nan, floats bit for bit
        else:
            assert a == b, name


def _accumulated(users, seconds, signup, kwargs, owner, order):
    """The accumulators of the users of each part, merged in ``order``."""
    import receval

    users, seconds = np.asarray(users), np.asarray(seconds)
    parts = []
    for p in range(max(owner) + 1):
        mine = [u for u in range(len(owner)) if owner[u] == p]
        rows = np.isin(users, mine)
        acc = receval.metric("retention", **{k: v for k, v in kwargs.items()})
        own = None if signup is None else {u: s for u, s in signup.items() if owner[u] == p}
        if rows.any() or own:
            acc.update({"user": users[rows], "time": seconds[rows]}, signup=own)
        parts.append(acc)
    merged = parts[order[0]]
    for i in order[1:]:
        merged.merge(parts[i])
    return merged.compute()


@given(logs(), st.data())
def test_accumulator_over_user_splits_in_any_order_equals_memory(log, data):
    users, seconds, signup, kwargs = log
    n_users = max(users + list(signup or [])) + 1
    owner = data.draw(st.lists(st.integers(0, 3), min_size=n_users, max_size=n_users))
    order = data.draw(st.permutations(range(max(owner) + 1)))
    expected = retention({"user": users, "time": seconds}, signup=signup, **kwargs)
    got = _accumulated(users, seconds, signup, kwargs, owner, order)
    _same_reports(got, expected)


def _random_log(seed: int):
    rng = np.random.default_rng(seed)
    n, n_users = 4000, 300
    users = rng.integers(0, n_users, n)
    first = rng.integers(0, 100, n_users)
    days = first[users] + rng.geometric(0.1, n) - 1
    seconds = 1698000000 + days * DAY + rng.integers(0, DAY, n)  # two DST changes
    signup = 1698000000 + (first + rng.integers(-8, 3, n_users)) * DAY
    signup[rng.random(n_users) < 0.1] -= 5000 * DAY  # too far to be in any window
    frame = pd.DataFrame(
        {
            "user": [f"u{u}" for u in users],
            "time": pd.to_datetime(seconds, unit="s"),
            "signup": pd.to_datetime(signup[users], unit="s"),
        }
    )
    frame.loc[users % 11 == 0, "signup"] = pd.NaT  # without signup: the first event
    return frame.sample(frac=1, random_state=seed).reset_index(drop=True)


@pytest.mark.parametrize(
    "options",
    [{"tz": "America/New_York"},
     {"tz": "Asia/Kolkata", "period": "week", "signup": "signup"},
     {"tz": "Europe/Berlin", "period": "month", "signup": "signup", "before_signup": "drop"},
     {"tz": "Australia/Lord_Howe", "signup": "signup", "days": (1, 2, 30)}],
)  # fmt: skip
def test_memory_scan_and_accumulator_agree(tmp_path, options):
    import receval

    frame = _random_log(len(options))
    expected = retention(frame, **options)
    path = tmp_path / "events.parquet"
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), path)
    for max_memory in (1 << 29, 100_000):  # one pass; buckets of users, one pass each
        scanned = receval.scan(path, batch_rows=700, max_memory=max_memory, progress=False)
        _same_reports(retention(scanned, **options), expected)
    signup = options.get("signup")
    params = {k: v for k, v in options.items() if k != "signup"}
    owner = {u: i % 3 for i, u in enumerate(frame["user"].unique())}
    parts = [receval.metric("retention", **params) for _ in range(3)]
    part = frame["user"].map(owner).to_numpy()
    for p in (2, 0, 1):
        parts[p].update(frame[part == p], signup=signup)
    merged = parts[1].merge(parts[2]).merge(parts[0])
    _same_reports(merged.compute(), expected)
    _same_reports(merged.compute(), expected)  # compute leaves the state as it was
    if signup:
        assert expected.n_users_signup_before_window > 0
        assert expected.n_users_without_signup > 0


def test_metric_retention_is_an_accumulator_of_whole_users():
    import pickle

    import receval

    events = {"user": ["a", "a", "b"], "time": ["2024-01-01", "2024-01-02", "2024-01-03"]}
    acc = receval.metric("retention", days=1)
    acc.update({k: v[:2] for k, v in events.items()})
    acc = pickle.loads(pickle.dumps(acc)).update({k: v[2:] for k, v in events.items()})
    _same_reports(acc.compute(), retention(events, days=1))
    with pytest.raises(InputValidationError, match=r"given twice.*\['a'\]"):
        acc.update({"user": ["a"], "time": ["2024-01-04"]})
    other = receval.metric("retention", days=1).update({"user": ["c"], "time": [JAN1]})
    with pytest.raises(InputValidationError, match="bare dates"):
        receval.metric("retention", days=1).update(events).merge(other).compute()
    with pytest.raises(InputValidationError, match="events is empty"):
        receval.metric("retention").compute()
    with pytest.raises(InvalidParameterError, match="'period' parameter of retention"):
        receval.metric("retention", period="year")


@pytest.mark.parametrize("numbers_first", [True, False])
def test_epoch_numbers_beside_datetimes_in_other_batches_say_so(numbers_first):
    # said "epoch numbers read as 'None' in some batches and as 's' in others"
    import receval

    numbers = {"user": ["a"], "time": [1.7e9]}
    datetimes = {"user": ["b"], "time": np.array(["2023-11-15"], dtype="datetime64[s]")}
    first, second = (numbers, datetimes) if numbers_first else (datetimes, numbers)
    with pytest.raises(InputValidationError) as error:
        receval.metric("retention", days=1).update(first).update(second).compute()
    assert str(error.value) == (
        "Accumulator.update of 'retention': time holds epoch numbers (read as 's') in some "
        "batches and datetimes or ISO 8601 strings in others; write them all one way, e.g. "
        "the numbers as numpy.asarray(time).astype('datetime64[s]')."
    )


def test_merged_windows_wider_than_the_limit_raise():
    import receval

    a = receval.metric("retention", time_unit="s").update({"user": [1], "time": [0]})
    b = receval.metric("retention", time_unit="s").update({"user": [2], "time": [5000 * DAY]})
    with pytest.raises(InputValidationError, match="the events span 5001 days"):
        a.merge(b)


def test_a_signup_before_its_updates_events_joins_the_cohort_of_the_merged_window():
    import receval

    a_events = {"user": ["a", "a"], "time": [JAN1 + 2 * DAY, JAN1 + 3 * DAY]}
    b_events = {"user": ["b", "b"], "time": [JAN1, JAN1 + DAY]}
    a = receval.metric("retention", days=(1, 2)).update(a_events, signup={"a": JAN1})
    assert list(a.state.early) == [JAN1]  # signed up before its own events: kept apart
    b = receval.metric("retention", days=(1, 2)).update(b_events)
    got = b.merge(a).compute()
    both = {k: a_events[k] + b_events[k] for k in a_events}
    _same_reports(got, retention(both, signup={"a": JAN1}, days=(1, 2)))
    _same(got.cohort_counts[0], [2, 1, 1, 1])  # a: signup day 0, active days 2 and 3
    alone = a.compute()  # a's window alone: a signed up before it
    assert alone.n_users_signup_before_window == 1 and alone.new_users.sum() == 0


def test_a_scan_in_buckets_of_users_names_the_line_of_a_bad_time(tmp_path):
    import receval

    rows = [f"u{i % 50},2024-01-{1 + i % 28:02d} 10:00:00" for i in range(400)]
    rows[333] = "u33,2024-02-30 10:00:00"
    path = tmp_path / "events.csv"
    path.write_text("user,time\n" + "\n".join(rows) + "\n")
    scanned = receval.scan(path, batch_rows=64, max_memory=4096, progress=False)
    with pytest.raises(InputValidationError) as info:
        retention(scanned)
    assert str(info.value).startswith(f"{path}:335: the time '2024-02-30 10:00:00'")
    rows[333] = "u33,2024-02-03 10:00:00"
    path.write_text("user,time\n" + "\n".join(rows) + "\n")
    _same_reports(retention(scanned), retention(path))


def test_a_tampered_retention_state_is_refused_when_loaded():
    import pickle

    import receval

    acc = receval.metric("retention").update({"user": [1, 2], "time": [JAN1, JAN1 + DAY]})
    acc.state.table = acc.state.table[:-1]  # no longer n x n
    with pytest.raises(InputValidationError, match=r"state\.table must be n x n counts"):
        pickle.loads(pickle.dumps(acc))


@pytest.mark.parametrize("days", [(1, 2**63), (1, 2**64), (1, 10**30), 10**30])
def test_a_day_beyond_any_window_is_a_nan_column_for_every_size(days):
    report = retention(_hand_events(), days=days)
    given = (days,) if isinstance(days, int) else days
    assert report.days == given  # as given: not a float, not an object
    far = report.day_n_retention[:, -1]
    assert np.isnan(far).all() and not report.observed[:, -1].any()
    assert (report.retained[:, -1] == 0).all()
    if len(given) == 2:
        _same(report.day_n_retention[:, 0], retention(_hand_events(), days=1).day_n_retention[:, 0])


def test_days_are_checked_as_given():
    with pytest.raises(InvalidParameterError, match=r"Got 1\.5 instead"):
        retention(_hand_events(), days=(1, 2**63, 1.5))
    with pytest.raises(InvalidParameterError, match=r"Got 0 instead"):
        retention(_hand_events(), days=(10**30, 0))


def test_a_0d_array_of_days_is_its_one_day():
    # it raised a TypeError (iteration over a 0-d array); np.int64(3) was read as 3
    report = retention(_hand_events(), days=np.array(3))
    assert report.days == (3,)
    _same(report.day_n_retention, retention(_hand_events(), days=np.int64(3)).day_n_retention)
    with pytest.raises(InvalidParameterError, match=r"Got 0 instead"):
        retention(_hand_events(), days=np.array(0))

"""A datetime is the instant it names, whatever its unit: a ``numpy.datetime64`` month
or year is its first instant, and a cut-off compares with it exactly (``2020-01-15``
puts the month ``2020-01`` in train, not in test); a cut-off of any unit (months,
picoseconds) is read exactly, and one the times' unit cannot hold is refused. For the
temporal split, rolling windows and the audit's cut-off."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import receval
from receval import InputValidationError, InvalidParameterError, split
from receval.data._times import common_unit, cutoff_key, earlier, in_unit

MONTHS = ["2019-11", "2019-12", "2020-01", "2020-02", "2020-03"]


def _log(times: np.ndarray) -> pd.DataFrame:
    """A log whose times are NumPy datetimes of their own unit (pandas keeps them as
    objects: its datetime columns hold seconds at the coarsest)."""
    n = len(times)
    stamps = pd.Series(list(times), dtype=object)
    return pd.DataFrame({"user": np.ones(n, int), "item": np.arange(n), "timestamp": stamps})


@pytest.mark.parametrize(
    ("unit", "cutoff", "n_train"),
    [
        ("M", "2020-01-15", 3),  # 2020-01 starts before the cut-off
        ("M", "2020-01-01", 2),  # ... and at the cut-off: test
        ("M", dt.datetime(2020, 1, 1, 0, 0, 1), 3),
        ("M", np.datetime64("2020-02", "M"), 3),
        ("Y", "2020-06-01", 5),  # every row in 2020 (2020-01-01) or before
        ("Y", "2021-01-01", 5),
        ("D", "2020-01-01T12:00", 3),
    ],
)
def test_times_in_months_and_years_are_their_first_instant(unit, cutoff, n_train):
    times = np.array(MONTHS, "M8[M]").astype(f"M8[{unit}]")
    result = split.temporal(_log(times), cutoff)
    assert result.n_train_rows == n_train
    want = times.astype("M8[ns]") < np.datetime64(pd.Timestamp(cutoff).to_datetime64(), "ns")
    assert result.n_train_rows == int(want.sum())


@given(
    st.lists(st.integers(-1000, 1000), min_size=1, max_size=20),
    st.integers(0, 19),
    st.integers(-40 * 86400 * 10**9, 40 * 86400 * 10**9),
    st.sampled_from(["M", "Y", "3M", "W", "D"]),
)
def test_a_cut_off_splits_times_of_any_unit_as_their_instants(ticks, row, offset, unit):
    times = np.array(ticks, dtype=np.int64).view(f"M8[{unit}]")
    instants = times.astype("M8[ns]")
    assume((instants.astype(f"M8[{unit}]") == times).all())  # within nanoseconds' range
    near = int(instants.view(np.int64)[row % len(ticks)]) + offset  # close to a row's time
    assume(-(2**63) < near < 2**63)
    cutoff = np.datetime64(near, "ns")
    key = cutoff_key(cutoff, times.dtype, "cutoff", "f", times.view(np.int64))
    assert earlier(times.view(np.int64), key).tolist() == (instants < cutoff).tolist()


def test_a_cut_off_finer_than_the_times_is_read_exactly():
    log = pd.DataFrame(
        {"user": [1, 2, 3], "item": [1, 2, 3], "timestamp": np.arange(3).view("M8[ns]")}
    )
    result = split.temporal(log, np.datetime64(1500, "ps"))  # 1.5 ns: after the row at 1 ns
    assert result.train["timestamp"].tolist() == log["timestamp"][:2].tolist()


def test_a_cut_off_the_times_unit_cannot_hold_is_refused():
    log = pd.DataFrame({"user": [1, 2], "item": [1, 2], "timestamp": np.arange(2).view("M8[ns]")})
    with pytest.raises(InvalidParameterError, match=r"unit \(ns\) holds. Got np.datetime64\('2300"):
        split.temporal(log, np.datetime64("2300-01", "M"))  # NumPy's cast: 1715


def test_rolling_windows_over_times_in_months():
    log = _log(np.array(MONTHS, "M8[M]"))
    folds = split.rolling(
        log, ["2020-01-15", "2020-02-15"], end="2020-03-02", train_window=np.timedelta64(2, "M")
    )
    got = [(f.train["timestamp"].astype(str).tolist(), f.test["timestamp"].astype(str).tolist())
           for f in folds]  # fmt: skip
    assert got == [(["2019-12", "2020-01"], ["2020-02"]), (["2020-01", "2020-02"], ["2020-03"])]
    with pytest.raises(InvalidParameterError, match="same month"):
        split.rolling(log, ["2020-01-10", "2020-01-20"])  # one month: the same folds
    with pytest.raises(InvalidParameterError, match="span of months or years, as the time column"):
        split.rolling(log, ["2020-01-15"], train_window=dt.timedelta(days=40))


def test_the_audit_compares_months_with_weeks_and_its_cut_off_as_instants():
    train = _log(np.array(["2019-12", "2020-01"], "M8[M]"))
    test = _log(np.array(["2020-01-09", "2020-01-16"], "M8[W]"))  # weeks from Thursdays
    test["grade"] = 1
    report = receval.audit(train=train, test=test, cutoff="2020-01-15")
    assert report["cutoff_leak"].count == 1  # the week of 2020-01-09 only
    assert common_unit(np.dtype("M8[M]"), np.dtype("M8[W]")) == np.dtype("M8[D]")
    assert in_unit(np.array([600]), np.dtype("M8[M]"), np.dtype("M8[D]"), "t").tolist() == [18262]
    with pytest.raises(InputValidationError, match="cannot hold"):
        in_unit(np.array([2**62]), np.dtype("M8[M]"), np.dtype("M8[D]"), "t")


def test_an_object_column_of_several_units_is_read_in_one_that_holds_them_or_refused():
    """The year 3000 in days beside a nanosecond: nanoseconds cannot hold it (NumPy would
    wrap it to 1830, into train); months beside weeks are read in days, not weeks."""
    wide = _log(np.array([np.datetime64("3000-01-01", "D"), np.datetime64(1, "ns")], object))
    with pytest.raises(InputValidationError, match=r"cannot hold \(some of its values"):
        split.temporal(wide, "1950-01-01")
    mixed = _log(
        np.array([np.datetime64("2020-03", "M"), np.datetime64("2020-01-02", "W")], object)
    )
    result = split.temporal(mixed, "2020-02-01")
    assert result.train["item"].tolist() == [1]
    assert result.test["item"].tolist() == [0]

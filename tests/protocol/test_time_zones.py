"""The audit's cut-off and its train and test times compare only when both are
tz-aware or both naive, as the split's (one rule, one message): a naive cut-off
against tz-aware times and an aware one against naive times are refused (they were
read as UTC), in the API and on the command line; so are naive and tz-aware Python
datetimes in one column."""

from __future__ import annotations

import datetime as dt

import pandas as pd
import pytest

import receval
from receval import InputValidationError, InvalidParameterError
from tests.cli._helpers import invoke, make_runner
from tests.split.test_time_zones import AWARE, NAIVE, _aware_refused, _frames, _log, _naive_refused


def _parts(log) -> tuple[object, object]:
    """Train (the rows at 0, 3 and 1 days) and test (at 5 and 2 days) of a log."""
    return log[:3], log[3:]


def _of(said: str, part: str) -> str:
    """A refusal of the split's, as the audit says it of ``part``'s times."""
    return said.replace("the time column", f"{part}'s time column")


def _leaks(report) -> set[tuple[str, int]]:
    return {(f.input, f.count) for f in report.findings if f.check == "cutoff_leak"}


@pytest.mark.parametrize("frame", ["pandas", "polars", "arrow", "objects"])
def test_a_cutoff_of_the_other_kind_is_refused(frame):
    train, test = _parts(_frames(_log())[frame])
    for cutoff in NAIVE:
        with pytest.raises(InvalidParameterError) as info:
            receval.audit(train, test, cutoff=cutoff)
        said = _naive_refused("cutoff", "audit", cutoff, "time zone Asia/Tokyo")
        assert str(info.value) == _of(said, "train")
    for cutoff in AWARE:  # day 2 in UTC: the training row of day 3 is at or after it
        assert _leaks(receval.audit(train, test, cutoff=cutoff)) == {("train", 1)}
    train, test = _parts(_frames(_log(None))[frame])
    for cutoff in AWARE:
        with pytest.raises(InvalidParameterError) as info:
            receval.audit(train, test, cutoff=cutoff)
        assert str(info.value) == _of(_aware_refused("cutoff", "audit", cutoff), "train")
    for cutoff in NAIVE:
        assert _leaks(receval.audit(train, test, cutoff=cutoff)) == {("train", 1)}


def _kinds_refused(naive: str, aware: str, zone: str) -> str:
    """The refusal of naive times in ``naive`` (train or test) beside tz-aware ones."""
    said = {naive: "naive (no time zone)", aware: f"tz-aware ({zone})"}
    return (
        f"audit: the times of train ('timestamp') are {said['train']} and those of test "
        f"('timestamp') {said['test']}, which compare as no one kind of time; give both a "
        f"time zone (the naive ones, as their clock reads, with pandas' "
        f".dt.tz_localize(<their zone>)), or neither."
    )


@pytest.mark.parametrize("frame", ["pandas", "polars", "arrow", "objects"])
def test_naive_times_beside_tz_aware_ones_are_refused(frame):
    """Naive train, tz-aware test (or the reverse): the naive times were read as UTC, so a
    test interaction after the user's last training one by the clock of its zone was
    found earlier (a temporal leak that is none) or the reverse; with a cut-off too."""
    naive, aware = _frames(_log(None))[frame], _frames(_log())[frame]
    for train, test, naive_part in (
        (naive[:3], aware[3:], "train"),
        (aware[:3], naive[3:], "test"),
    ):
        aware_part = "test" if naive_part == "train" else "train"
        said = _kinds_refused(naive_part, aware_part, "time zone Asia/Tokyo")
        for cutoff in (None, NAIVE[0], AWARE[0]):
            with pytest.raises(InputValidationError) as info:
                receval.audit(train, test, cutoff=cutoff)
            assert str(info.value) == said
    texts = _log(None)[3:].assign(timestamp=["1970-01-06T00:00:00Z", "1970-01-03T00:00:00Z"])
    with pytest.raises(InputValidationError) as info:  # text with UTC offsets is aware
        receval.audit(_log(None)[:3], texts)
    zone = "ISO 8601 text with UTC offsets, compared as instants in UTC"
    assert str(info.value) == _kinds_refused("train", "test", zone)


def test_cli_refuses_naive_times_beside_tz_aware_ones_and_exits_2(tmp_path):
    train, test = tmp_path / "train.parquet", tmp_path / "test.parquet"
    _log(None)[:3].to_parquet(train, index=False)
    _log("Europe/Paris")[3:].to_parquet(test, index=False)
    result = invoke(make_runner(), "audit", "--train", train, "--test", test, code=2)
    said = _kinds_refused("train", "test", "time zone Europe/Paris")
    assert result.stderr == "error: receval " + said + "\n"


@pytest.mark.parametrize("first", ["naive", "aware"])
def test_naive_and_tz_aware_python_datetimes_in_one_column_are_refused(first):
    """Arrow read them all as the first one's kind (the others shifted by their offset)."""
    naive = dt.datetime(1970, 1, 3)
    aware = dt.datetime(1970, 1, 3, 9, tzinfo=dt.timezone(dt.timedelta(hours=9)))
    times = [naive, aware] if first == "naive" else [aware, naive]
    train, test = _parts(_log(None))
    test = test.assign(timestamp=pd.Series(times, test.index, dtype=object))
    with pytest.raises(InputValidationError) as info:
        receval.audit(train, test)
    at = {"naive": times.index(naive), "aware": times.index(aware)}
    assert str(info.value) == (
        f"audit: the 'timestamp' column of test holds naive datetimes (no time zone; the "
        f"first at position {at['naive']}: {naive!r}) and tz-aware ones (the first at "
        f"position {at['aware']}: {aware!r}), which compare as no one kind of time; give "
        f"every time a time zone (a naive UTC time t as "
        f"t.replace(tzinfo=datetime.timezone.utc)), or none."
    )


def test_cli_refuses_a_cutoff_of_the_other_kind_and_exits_2(tmp_path):
    paths = {}
    for zone in ("Europe/Paris", None):
        for name, part in zip(("train", "test"), _parts(_log(zone)), strict=True):
            paths[zone, name] = tmp_path / f"{name}-{'aware' if zone else 'naive'}.parquet"
            part.to_parquet(paths[zone, name], index=False)
    option = "--cutoff "
    for zone, cutoff, said in [
        ("Europe/Paris", "1970-01-03",
         _naive_refused("cutoff", "audit", "1970-01-03", "time zone Europe/Paris")),
        (None, "1970-01-03T00:00:00Z", _aware_refused("cutoff", "audit", "1970-01-03T00:00:00Z")),
    ]:  # fmt: skip
        args = ["--train", paths[zone, "train"], "--test", paths[zone, "test"], "--cutoff", cutoff]
        result = invoke(make_runner(), "audit", *args, code=2)
        parameter = "The 'cutoff' parameter of audit "
        assert result.stderr == "error: " + _of(said, "train").replace(parameter, option) + "\n"
    args = ["--train", paths["Europe/Paris", "train"], "--test", paths["Europe/Paris", "test"]]
    result = invoke(make_runner(), "audit", *args, "--cutoff", "1970-01-03T01:00:00+01:00")
    assert "cutoff_leak" in result.stdout

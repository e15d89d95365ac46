"""A cut-off and the log's times compare only when both are tz-aware or both naive,
as in pandas and polars: a naive cut-off against tz-aware times, and an aware one
against naive times, are refused with the parameter, the times' time zone, the value
and the fix (they were read as UTC); ISO 8601 text with UTC offsets holds instants,
compared in UTC. In memory, out of core and on the command line."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import receval
from receval import InputValidationError, InvalidParameterError, split
from tests.cli._helpers import invoke, make_runner

#: the instants of the log's rows, in seconds since 1970 UTC
SECONDS = [0, 3 * 86400, 86400, 5 * 86400, 2 * 86400]


def _log(zone: str | None = "Asia/Tokyo") -> pd.DataFrame:
    times = pd.to_datetime(SECONDS, unit="s")
    if zone is not None:
        times = times.tz_localize("UTC").tz_convert(zone)
    return pd.DataFrame({"user": [1, 1, 2, 2, 3], "item": [1, 2, 3, 4, 5], "timestamp": times})


def _frames(log: pd.DataFrame) -> dict[str, object]:
    """The log as pandas, polars, Arrow and a column of Python datetimes."""
    import polars as pl

    objects = pd.Series(list(log["timestamp"].dt.to_pydatetime()), dtype=object)
    return {
        "pandas": log,
        "polars": pl.from_pandas(log),
        "arrow": pa.Table.from_pandas(log, preserve_index=False),
        "objects": log.assign(timestamp=objects),
    }


def _naive_refused(name: str, func: str, value: object, zone: str) -> str:
    return (
        f"The '{name}' parameter of {func} must be a time with a UTC offset or a time zone, "
        f"as the time column holds tz-aware times ({zone}). Got {value!r} instead; give it "
        f"with an offset, e.g. '2024-01-01T00:00:00+01:00', or as a tz-aware datetime."
    )


def _aware_refused(name: str, func: str, value: object) -> str:
    return (
        f"The '{name}' parameter of {func} must be a time without a UTC offset or time "
        f"zone, as the time column holds naive times (no time zone). Got {value!r} "
        f"instead; give it as the times' clock reads, e.g. '2024-01-01T00:00:00', or give "
        f"the times their time zone first (e.g. pandas' .dt.tz_localize('UTC'))."
    )


NAIVE = ["1970-01-03", "1970-01-03T00:00:00", np.datetime64("1970-01-03"), dt.date(1970, 1, 3),
         dt.datetime(1970, 1, 3), pd.Timestamp("1970-01-03")]  # fmt: skip
AWARE = ["1970-01-03T00:00:00Z", "1970-01-03T09:00:00+09:00", pd.Timestamp("1970-01-03", tz="UTC"),
         dt.datetime(1970, 1, 3, 1, tzinfo=dt.timezone(dt.timedelta(hours=1)))]  # fmt: skip


@pytest.mark.parametrize("frame", ["pandas", "polars", "arrow", "objects"])
def test_a_naive_cutoff_against_tz_aware_times_is_refused(frame):
    log = _frames(_log())[frame]
    for cutoff in NAIVE:
        with pytest.raises(InvalidParameterError) as info:
            split.temporal(log, cutoff)
        assert str(info.value) == _naive_refused(
            "cutoff", "temporal", cutoff, "time zone Asia/Tokyo"
        )
    for cutoff in AWARE:  # the same instant, in any zone: rows at or after it are test
        assert split.temporal(log, cutoff).n_test_rows == 3


@pytest.mark.parametrize("frame", ["pandas", "polars", "arrow", "objects"])
def test_an_aware_cutoff_against_naive_times_is_refused(frame):
    log = _frames(_log(None))[frame]
    for cutoff in AWARE:
        with pytest.raises(InvalidParameterError) as info:
            split.temporal(log, cutoff)
        assert str(info.value) == _aware_refused("cutoff", "temporal", cutoff)
    for cutoff in NAIVE:
        assert split.temporal(log, cutoff).n_test_rows == 3


def test_rolling_refuses_cutoffs_and_an_end_of_the_other_kind():
    aware, naive = _log(), _log(None)
    with pytest.raises(InvalidParameterError) as info:
        split.rolling(aware, ["1970-01-02T00:00:00Z", "1970-01-03"])
    assert str(info.value) == _naive_refused(
        "cutoffs", "rolling", "1970-01-03", "time zone Asia/Tokyo"
    )
    with pytest.raises(InvalidParameterError) as info:
        split.rolling(aware, ["1970-01-02T00:00:00Z"], end="1970-01-05")
    assert str(info.value) == _naive_refused("end", "rolling", "1970-01-05", "time zone Asia/Tokyo")
    with pytest.raises(InvalidParameterError) as info:
        split.rolling(naive, ["1970-01-02"], end="1970-01-05T00:00:00+00:00")
    assert str(info.value) == _aware_refused("end", "rolling", "1970-01-05T00:00:00+00:00")
    folds = split.rolling(aware, ["1970-01-02T00:00:00Z"], end="1970-01-05T09:00:00+09:00")
    assert [(f.n_train_rows, f.n_test_rows) for f in folds] == [(1, 3)]


def test_text_of_several_offsets_holds_instants_compared_in_utc():
    """Offsets differ from row to row: each time is its instant, compared in UTC with an
    aware cut-off; a naive cut-off is refused."""
    offsets = ["+09:00", "-05:00", "Z", "+01:00", "-00:30"]
    text = []
    for seconds, offset in zip(SECONDS, offsets, strict=True):
        hours = 0 if offset == "Z" else int(offset[:3]) + (-0.5 if offset == "-00:30" else 0)
        local = pd.Timestamp(seconds, unit="s") + pd.Timedelta(hours=hours)
        text.append(local.strftime("%Y-%m-%dT%H:%M:%S") + offset)
    log = _log().assign(timestamp=text)
    for cutoff in AWARE:
        got = split.temporal(log, cutoff)
        assert (
            got.test.index.tolist()
            == [1, 3, 4]
            == split.temporal(_log(), cutoff).test.index.tolist()
        )
    with pytest.raises(InvalidParameterError) as info:
        split.temporal(log, "1970-01-03")
    zone = "ISO 8601 text with UTC offsets, compared as instants in UTC"
    assert str(info.value) == _naive_refused("cutoff", "temporal", "1970-01-03", zone)


def _scan(tmp_path, tables):
    directory = tmp_path / "log"
    directory.mkdir()
    for i, table in enumerate(tables):
        pq.write_table(table, directory / f"part-{i}.parquet")
    return receval.scan(directory)


def test_a_scan_takes_a_cutoff_of_its_times_kind(tmp_path):
    table = pa.Table.from_pandas(_log(), preserve_index=False)
    out = {"train_path": tmp_path / "train.parquet", "test_path": tmp_path / "test.parquet"}
    with pytest.raises(InvalidParameterError) as info:
        split.temporal(_scan(tmp_path, [table]), "1970-01-03", **out)
    assert str(info.value) == _naive_refused(
        "cutoff", "temporal", "1970-01-03", "time zone Asia/Tokyo"
    )
    got = split.temporal(receval.scan(tmp_path / "log"), "1970-01-03T00:00:00Z", **out)
    assert got.summary() == split.temporal(table, "1970-01-03T00:00:00Z").summary()


def test_text_with_an_offset_on_some_times_only_takes_no_cutoff(tmp_path):
    """Text without an offset in one file and with one in the other (those without were
    read as UTC) takes no cut-off: in memory, refused as text of both kinds; out of
    core, by the first file whose times the cut-off's kind does not match."""
    naive = pa.table({"user": [1], "item": [1], "timestamp": ["1970-01-01T00:00:00"]})
    aware = pa.table({"user": [2], "item": [2], "timestamp": ["1970-01-04T00:00:00+01:00"]})
    out = {"train_path": tmp_path / "train.parquet", "test_path": tmp_path / "test.parquet"}
    source = _scan(tmp_path, [naive, aware])
    zone = "ISO 8601 text with UTC offsets, compared as instants in UTC"
    for cutoff, streamed in (
        ("1970-01-02", _naive_refused("cutoff", "temporal", "1970-01-02", zone)),
        ("1970-01-02T00:00:00Z", _aware_refused("cutoff", "temporal", "1970-01-02T00:00:00Z")),
    ):
        with pytest.raises(InputValidationError) as info:
            split.temporal(pa.concat_tables([naive, aware]), cutoff)
        assert str(info.value) == (
            f"temporal: the time column holds ISO 8601 text with a UTC offset on some times "
            f"and none on others, so cutoff={cutoff!r} compares with only some of them; give "
            f"every time an offset (e.g. '2024-01-31T08:00:00+08:00'), or none."
        )
        with pytest.raises(InvalidParameterError) as info:
            split.temporal(source, cutoff, **out)
        assert str(info.value) == streamed


def test_cli_refuses_a_cutoff_of_the_other_kind_and_exits_2(tmp_path):
    aware, naive = tmp_path / "aware.parquet", tmp_path / "naive.parquet"
    _log("Europe/Paris").to_parquet(aware, index=False)
    _log(None).to_parquet(naive, index=False)
    out = ["-o", tmp_path / "a.parquet", "-O", tmp_path / "b.parquet"]
    paris = "time zone Europe/Paris"
    for path, args, said in [
        (aware, ["--method", "temporal", "--cutoff", "1970-01-03"],
         _naive_refused("cutoff", "temporal", "1970-01-03", paris)),
        (aware, ["--method", "rolling", "--cutoffs", "1970-01-02T00:00Z", "--end", "1970-01-05"],
         _naive_refused("end", "rolling", "1970-01-05", paris)),
        (naive, ["--method", "temporal", "--cutoff", "1970-01-03T00:00:00Z"],
         _aware_refused("cutoff", "temporal", "1970-01-03T00:00:00Z")),
    ]:  # fmt: skip
        result = invoke(make_runner(), "split", path, *args, *out, code=2)
        option = args[-2]  # the library's parameter, named as the option
        parameter = f"The '{option[2:]}' parameter of {args[1]} "
        assert result.stderr == "error: " + said.replace(parameter, f"{option} ") + "\n"
    result = invoke(make_runner(), "split", aware, "--method", "temporal", "--cutoff",
                    "1970-01-03T01:00:00+01:00", *out)  # fmt: skip
    assert "test 3 rows" in result.stderr


@pytest.mark.parametrize("first", ["naive", "aware"])
def test_naive_and_tz_aware_python_datetimes_in_one_column_are_refused(first):
    """Arrow read them all as the first one's kind: naive times after an aware one as
    UTC, aware ones after a naive one as their clock reads, whatever the cut-off."""
    naive = dt.datetime(1970, 1, 2)
    aware = pd.Timestamp("1970-01-03", tz="Asia/Tokyo")
    times = [naive, naive, aware] if first == "naive" else [aware, naive, naive]
    log = _log()[:3].assign(timestamp=pd.Series(times, dtype=object))
    at = {"naive": times.index(naive), "aware": times.index(aware)}
    said = (
        f"the time column 'timestamp' holds naive datetimes (no time zone; the first at "
        f"position {at['naive']}: {naive!r}) and tz-aware ones (the first at position "
        f"{at['aware']}: {aware!r}), which compare as no one kind of time; give every time "
        f"a time zone (a naive UTC time t as t.replace(tzinfo=datetime.timezone.utc)), or "
        f"none."
    )
    for func, kwargs in (("temporal", {"cutoff": "1970-01-02T12:00:00Z"}), ("leave_last_out", {})):
        with pytest.raises(InputValidationError) as info:
            getattr(split, func)(log, **kwargs)
        assert str(info.value) == f"{func}: {said}"


@pytest.mark.parametrize("zone", [None, "Asia/Tokyo"])
def test_a_nat_among_python_datetimes_is_a_missing_time(zone):
    # Arrow raised pandas' own ValueError ("NaTType does not support utcoffset")
    times = [pd.Timestamp("1970-01-02", tz=zone), pd.NaT, pd.Timestamp("1970-01-03", tz=zone)]
    log = _log()[:3].assign(timestamp=pd.Series(times, dtype=object))
    for func, kwargs in (("temporal", {"cutoff": "1970-01-02T12:00:00Z" if zone else
                                                  "1970-01-02T12:00:00"}),
                         ("leave_last_out", {})):  # fmt: skip
        with pytest.raises(InputValidationError) as info:
            getattr(split, func)(log, **kwargs)
        assert str(info.value) == (
            f"{func}: the time column 'timestamp' contains 1 missing value (null), the first "
            f"at position 1; drop those rows or fill their time first."
        )

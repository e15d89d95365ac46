"""Hand cases of every splitter, their counts, the frame types and the errors."""

from __future__ import annotations

import warnings

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

import receval
from receval import InputValidationError, InvalidParameterError, Qrels, split
from receval.data._times import time_column
from tests._fresh import fresh

pd = pytest.importorskip("pandas")


def _log() -> pd.DataFrame:
    # user a: 4 rows, two at time 3 (rows 1 and 3: row 3 is the later one);
    # user b: 2 rows; user c: 1 row
    return pd.DataFrame(
        {
            "user": ["a", "a", "b", "a", "c", "b", "a"],
            "item": [1, 2, 1, 3, 4, 5, 6],
            "timestamp": [1, 3, 2, 3, 9, 4, 0],
            "rating": [5, 2, 4, 5, 1, 3, 4],
        }
    )


def test_temporal_cutoff_rows_at_the_cutoff_are_test():
    result = split.temporal(_log(), cutoff=3)
    assert result.test.index.tolist() == [1, 3, 4, 5]
    assert result.train.index.tolist() == [0, 2, 6]
    assert (result.n_cold_users, result.n_cold_items, result.n_test_rows_cold_items) == (1, 4, 4)
    assert result.n_users_without_test == 0 and result.n_rows_dropped == 0


def test_temporal_quantile_interpolates_like_numpy():
    log = _log()
    cut = np.quantile(log["timestamp"], 0.5)
    result = split.temporal(log, quantile=0.5)
    assert result.test.index.tolist() == np.flatnonzero(log["timestamp"] >= cut).tolist()


def test_temporal_datetimes_take_datetime_cutoffs():
    log = _log().assign(timestamp=pd.to_datetime(_log()["timestamp"], unit="D"))
    for cutoff in ("1970-01-04", pd.Timestamp("1970-01-04"), np.datetime64("1970-01-04")):
        assert split.temporal(log, cutoff=cutoff).test.index.tolist() == [1, 3, 4, 5]
    # text with a UTC offset is the instant in UTC (as an aware datetime), read
    # without NumPy's warning on time zones, against tz-aware times; a second past it
    # moves the rows of day 4
    aware = log.assign(timestamp=log["timestamp"].dt.tz_localize("UTC"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for cutoff in ("1970-01-04T00:00:00Z", "1970-01-04T02:00:00+02:00"):
            assert split.temporal(aware, cutoff=cutoff).test.index.tolist() == [1, 3, 4, 5]
        later = split.temporal(aware, cutoff="1970-01-04T00:00:01Z")
        assert later.test.index.tolist() != [1, 3, 4, 5]
    with pytest.raises(InvalidParameterError, match="must be a datetime"):
        split.temporal(log, cutoff=3)


def test_leave_last_out_ties_in_row_order():
    result = split.leave_last_out(_log(), n=1)
    # a's last row: row 3 (time 3, after row 1 at time 3); b's: row 5; c has one row
    assert result.test.index.tolist() == [3, 5]
    assert result.n_users_without_test == 1 and result.n_users_dropped == 0
    two = split.leave_last_out(_log(), n=2)
    assert two.test.index.tolist() == [1, 3]  # b (2 rows) is short: train only


@pytest.mark.parametrize(
    ("short", "test", "train", "dropped"),
    [
        ("train", [1, 3], [0, 2, 4, 5, 6], 0),
        ("drop", [1, 3], [0, 6], 2),
        ("test", [1, 2, 3, 4, 5], [0, 6], 0),
    ],
)
def test_leave_last_out_short_users(short, test, train, dropped):
    result = split.leave_last_out(_log(), n=2, short=short)
    assert result.test.index.tolist() == test
    assert result.train.index.tolist() == train
    assert result.n_users_dropped == dropped
    assert result.n_rows_dropped == len(_log()) - len(test) - len(train)


def test_ratio_rounds_the_given_fraction():
    log = pd.DataFrame({"user": [1] * 5, "item": range(5), "timestamp": range(5)})
    # test: round(0.3 * 5) = round(1.5) = 2; train: round(0.7 * 5) = round(3.5) = 4 -> test 1
    assert split.ratio(log, test_fraction=0.3).n_test_rows == 2
    assert split.ratio(log, train_fraction=0.7).n_test_rows == 1
    assert split.ratio(log, test_fraction=0.3).test.index.tolist() == [3, 4]


def test_ratio_rounding_floor_rounds_down():
    log = pd.DataFrame({"user": [1] * 7, "item": range(7), "timestamp": range(7)})
    # train: floor(0.8 * 7) = floor(5.6) = 5 -> test 2 (half to even: round(5.6) = 6 -> test 1)
    assert split.ratio(log, train_fraction=0.8, rounding="floor").test.index.tolist() == [5, 6]
    assert split.ratio(log, train_fraction=0.8).n_test_rows == 1
    # test: floor(0.3 * 7) = floor(2.1) = 2
    assert split.ratio(log, test_fraction=0.3, rounding="floor").n_test_rows == 2


def test_random_holdout_shuffle_stream_permutes_each_user_in_id_order():
    log = pd.DataFrame({"user": ["b", "a", "b", "a", "a"], "item": range(5)})
    result = split.random_holdout(log, n=1, seed=5, stream="shuffle")
    state = np.random.RandomState(5)
    a, b = state.permutation(3), state.permutation(2)  # users in sorted order: a, then b
    expected = sorted([[1, 3, 4][int(np.argmax(a))], [0, 2][int(np.argmax(b))]])
    assert result.test.index.tolist() == expected


def test_ratio_min_interactions_drops_and_counts():
    result = split.ratio(_log(), test_fraction=0.5, min_interactions=2)
    assert result.n_users_dropped == 1 and result.n_rows_dropped == 1
    assert result.test.index.tolist() == [1, 3, 5]


def test_random_holdout_seeded_and_per_user():
    log = pd.DataFrame({"user": np.repeat(np.arange(20), 5), "item": np.tile(np.arange(5), 20)})
    a = split.random_holdout(log, n=2, seed=3)
    b = split.random_holdout(log, n=2, seed=3)
    c = split.random_holdout(log, n=2, seed=4)
    assert a.test.index.tolist() == b.test.index.tolist() != c.test.index.tolist()
    assert (a.test.groupby("user").size() == 2).all()
    assert (
        split.random_holdout(log, test_fraction=0.4, seed=np.random.default_rng(3)).n_test_rows
        == 40
    )


def test_random_holdout_n_keeps_short_users_in_train():
    result = split.random_holdout(_log(), n=2, seed=0)
    assert result.n_test_rows == 2 and result.n_users_without_test == 2


def test_user_kfold_partitions_users_and_is_seeded():
    log = pd.DataFrame({"user": np.repeat(np.arange(11), 3), "item": np.arange(33)})
    folds = list(split.user_kfold(log, k=3, seed=1))
    tested = [set(f.test["user"]) for f in folds]
    assert set().union(*tested) == set(range(11)) and sum(map(len, tested)) == 11
    assert [len(t) for t in tested] == [4, 4, 3]
    for f in folds:
        assert not set(f.train["user"]) & set(f.test["user"])
        assert f.n_cold_users == len(set(f.test["user"]))
    again = [set(f.test["user"]) for f in split.user_kfold(log.iloc[::-1], k=3, seed=1)]
    assert again == tested  # the row order does not change the folds


def test_user_kfold_of_an_empty_log_says_the_log_is_empty():
    log = pd.DataFrame({"user": pd.Series([], dtype=int), "item": pd.Series([], dtype=int)})
    with pytest.raises(InputValidationError) as caught:
        list(split.user_kfold(log, k=2, seed=0))
    assert str(caught.value) == (
        "user_kfold: the log is empty (no rows), so it has no users to cut into 2 folds; "
        "pass a log with at least 2 users."
    )


@pytest.mark.parametrize(
    ("kwargs", "said"),
    [
        ({"k": 4, "seed": 0}, "The 'k' parameter of user_kfold must be at most the number of"),
        ({"k": 1, "seed": 0}, "The 'k' parameter of user_kfold must be an integer in [2, inf)"),
        ({"k": 2, "seed": -1}, "The 'seed' parameter of user_kfold must be a non-negative"),
        ({"k": 2, "seed": 0, "user": "who"}, "user_kfold: the data has no column 'who'"),
    ],
)
def test_user_kfold_checks_its_arguments_at_the_call(kwargs, said):
    # not when the first fold is drawn: folds = user_kfold(...) raises there and then
    log = pd.DataFrame({"user": [1, 1, 2, 3], "item": [1, 2, 1, 3]})
    with pytest.raises((InvalidParameterError, InputValidationError)) as caught:
        split.user_kfold(log, **kwargs)
    assert str(caught.value).startswith(said)
    folds = split.user_kfold(log, k=3, seed=0)
    assert [f.fold for f in folds] == [0, 1, 2] and list(folds) == []  # drawn once


def test_rolling_folds_and_train_window():
    folds = split.rolling(_log(), cutoffs=[2, 4], end=9)
    assert [f.test.index.tolist() for f in folds] == [[1, 2, 3], [5]]
    assert [f.train.index.tolist() for f in folds] == [[0, 6], [0, 1, 2, 3, 6]]
    assert folds[1].n_rows_dropped == 1  # the row at time 9 is past the end
    windowed = split.rolling(_log(), cutoffs=[4], train_window=2)
    assert windowed[0].train.index.tolist() == [1, 2, 3]  # times 2 and 3


@pytest.mark.parametrize("unit", ["ns", "us", "ms", "s"])
def test_rolling_train_window_of_datetimes_is_a_span_of_time(unit):
    # a number counted ticks of the column's unit: 3 days of nanoseconds were 3,000
    # days of microseconds, the unit pandas 3 reads ISO text in, so the same call
    # trained on every row; a span of time means the same in every unit
    import datetime as dt

    days = pd.to_datetime(["2024-01-01", "2024-01-05", "2024-01-10", "2024-01-09"])
    log = pd.DataFrame(
        {"user": [1, 1, 1, 2], "item": [1, 2, 3, 4], "timestamp": days.astype(f"M8[{unit}]")}
    )
    for window in (dt.timedelta(days=3), np.timedelta64(72, "h"), pd.Timedelta("3D")):
        (fold,) = split.rolling(log, ["2024-01-06"], train_window=window)
        assert fold.train.index.tolist() == [1] and fold.test.index.tolist() == [2, 3]
    with pytest.raises(InvalidParameterError) as caught:
        split.rolling(log, ["2024-01-06"], train_window=3 * 86_400 * 10**9)
    assert str(caught.value) == (
        "The 'train_window' parameter of rolling must be a span of time (a "
        "datetime.timedelta, numpy.timedelta64 or pandas.Timedelta), as the time column "
        "holds datetimes. Got 259200000000000 instead; give e.g. datetime.timedelta(days=30)."
    )
    for bad in (
        pd.Timedelta(0),
        -dt.timedelta(days=1),
        np.timedelta64("NaT"),
        np.timedelta64(1, "M"),
    ):
        with pytest.raises(InvalidParameterError, match="must be a positive span of time of a fix"):
            split.rolling(log, ["2024-01-06"], train_window=bad)


def test_rolling_train_window_of_numbers_is_a_number():
    with pytest.raises(InvalidParameterError) as caught:
        split.rolling(_log(), cutoffs=[4], train_window=pd.Timedelta("2s"))
    assert str(caught.value) == (
        "The 'train_window' parameter of rolling must be a number, as the time column holds "
        "numbers. Got Timedelta('0 days 00:00:02') instead; give the window in the times' "
        "units, e.g. 86400 for a day of Unix seconds."
    )


@pytest.mark.parametrize("kind", ["polars", "arrow"])
def test_frame_types_are_kept(kind):
    log = _log()
    if kind == "polars":
        pl = pytest.importorskip("polars")
        frame = pl.from_pandas(log)
        expected = pl.DataFrame
    else:
        frame = pa.Table.from_pandas(log, preserve_index=False)
        expected = pa.Table
    result = split.leave_last_out(frame, n=1)
    assert isinstance(result.train, expected) and isinstance(result.test, expected)
    assert result.test["item"].to_pylist() == [3, 5] if kind == "arrow" else True
    assert result.summary() == split.leave_last_out(log, n=1).summary()


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_paths_give_arrow_tables(tmp_path, suffix):
    path = tmp_path / f"log{suffix}"
    table = pa.Table.from_pandas(_log(), preserve_index=False)
    if suffix == ".csv":
        import pyarrow.csv as pcsv

        pcsv.write_csv(table, path)
    else:
        import pyarrow.parquet as pq

        pq.write_table(table, path)
    result = split.leave_last_out(path, n=1)
    assert isinstance(result.test, pa.Table)
    assert [int(x) for x in result.test["item"].to_pylist()] == [3, 5]  # CSV ids: strings


def test_qrels_relevance_rules():
    result = split.leave_last_out(_log(), n=2, rating="rating")
    assert result.qrels().to_dict() == {"a": {2: 1, 3: 1}}
    assert result.qrels("threshold", threshold=4).to_dict() == {"a": {2: 0, 3: 1}}
    assert result.qrels("graded").to_dict() == {"a": {2: 2, 3: 5}}
    assert isinstance(result.qrels(), Qrels)


@pytest.mark.parametrize("ids", [int, str])
def test_qrels_judges_a_repeated_pair_once(ids):
    log = pd.DataFrame({"user": [1, 1, 1, 1, 2, 2, 2, 2], "item": [7, 8, 8, 9, 5, 6, 8, 8],
                        "timestamp": [0, 1, 2, 3, 0, 1, 2, 3],
                        "clicks": [0, 0, 1, 0, 0, 0, 3, 2]})  # fmt: skip
    log = log.astype({"user": ids, "item": ids})
    result = split.leave_last_out(log, n=3)
    u, v, w, x, y = (ids(i) for i in (1, 2, 8, 9, 6))
    want = {u: {w: 1, x: 0}, v: {y: 0, w: 1}}
    assert result.qrels("threshold", column="clicks", threshold=1).to_dict() == want
    assert result.qrels("graded", column="clicks").to_dict() == {u: {w: 1, x: 0}, v: {y: 0, w: 3}}


@given(
    st.lists(
        st.tuples(st.integers(0, 4), st.integers(0, 6), st.integers(-3, 3)),
        min_size=1,
        max_size=60,
    )
)
def test_qrels_keep_each_pair_once_at_its_largest_grade_as_a_groupby_would(rows):
    log = pd.DataFrame(rows, columns=["user", "item", "clicks"])
    log["timestamp"] = 1  # every row in test
    got = split.temporal(log, cutoff=0).qrels("graded", column="clicks").to_dict()
    want: dict = {}
    for (u, i), c in log.groupby(["user", "item"])["clicks"].max().items():
        want.setdefault(u, {})[i] = c
    assert got == want


def test_qrels_of_an_empty_test_part_is_an_error_that_says_so():
    log = pd.DataFrame({"user": [1, 1, 2], "item": [5, 6, 5], "timestamp": [1, 2, 3]})
    with pytest.raises(InputValidationError, match="the test part has no rows"):
        split.temporal(log, cutoff=100).qrels()


def test_qrels_of_a_split_file_load_no_pandas(tmp_path):
    # the pairs judged once by their codes (Arrow's group_by imports pandas)
    (tmp_path / "log.csv").write_text("user,item,rating,ts\n1,10,5,1\n1,11,3,2\n1,11,4,3\n")
    code = (
        "import receval as rv\n"
        "from receval import split\n"
        "r = split.leave_last_out(rv.scan('log.csv'), n=2, rating='rating', time='ts',\n"
        "                         train_path='tr.csv', test_path='te.csv')\n"
        "print(r.qrels('graded').to_dict())\n"
    )
    printed, modules = fresh(code, tmp_path)
    assert printed == ["{1:", "{11:", "4}}"]
    assert "pyarrow" in modules and "pandas" not in modules


def test_repr_and_summary_name_every_count():
    result = split.leave_last_out(_log(), n=1)
    text = repr(result)
    for name, value in result.summary().items():
        if name.startswith("n_"):
            assert f"{name}={value}" in text


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (
            lambda log: split.temporal(log),
            InvalidParameterError,
            "exactly one of cutoff= and quantile=",
        ),
        (lambda log: split.temporal(log, 1, quantile=0.5), InvalidParameterError, "exactly one"),
        (
            lambda log: split.temporal(log, quantile=1.5),
            InvalidParameterError,
            r"'quantile' parameter of temporal must be a real number in \(0, 1\)",
        ),
        (
            lambda log: split.temporal(log, cutoff="2020-01-01"),
            InvalidParameterError,
            "must be a number, as the time column holds numbers",
        ),
        (
            lambda log: split.temporal(log, cutoff=3, time="when"),
            InputValidationError,
            "no column 'when'",
        ),
        (
            lambda log: split.temporal(log.drop(columns="timestamp"), cutoff=3),
            InvalidParameterError,
            "no column 'timestamp' or 'time'",
        ),
        (
            lambda log: split.leave_last_out(log, n=0),
            InvalidParameterError,
            "'n' parameter of leave_last_out",
        ),
        (
            lambda log: split.leave_last_out(log, short="keep"),
            InvalidParameterError,
            "'short' parameter",
        ),
        (
            lambda log: split.ratio(log, test_fraction=0),
            InvalidParameterError,
            "'test_fraction' parameter of ratio",
        ),
        (
            lambda log: split.random_holdout(log, n=1, seed=-1),
            InvalidParameterError,
            "'seed' parameter of random_holdout",
        ),
        (
            lambda log: split.random_holdout(
                log, n=1, seed=np.random.default_rng(0), stream="shuffle"
            ),
            InvalidParameterError,
            r"must be an integer in \[0, 2\*\*32 - 1\] with stream='shuffle'",
        ),
        (
            lambda log: split.ratio(log, test_fraction=0.2, rounding="ceil"),
            InvalidParameterError,
            r"'rounding' parameter of ratio must be one of \['floor', 'half_even'\]",
        ),
        (
            lambda log: split.random_holdout(log, n=1, test_fraction=0.2, seed=0),
            InvalidParameterError,
            "exactly one of test_fraction=",
        ),
        (
            lambda log: list(split.user_kfold(log, k=4, seed=0)),
            InvalidParameterError,
            r"at most the number of users \(3\)",
        ),
        (
            lambda log: split.rolling(log, cutoffs=[4, 2]),
            InvalidParameterError,
            "must be increasing",
        ),
        (
            lambda log: split.leave_last_out([1, 2]),
            InvalidParameterError,
            "must be a pandas or polars DataFrame",
        ),
    ],
)
def test_errors(call, error, match):
    with pytest.raises(error, match=match):
        call(_log())


def _text_times(log: pd.DataFrame, forms: tuple[str, ...] | None = None) -> list[str]:
    """The log's day numbers as ISO 8601 text of many forms (by default a UTC offset,
    naive, padded, a date), each that day's instant in UTC."""
    forms = forms or (
        "1970-01-{:02d}T08:00:00+08:00",
        "1970-01-{:02d} 00:00:00",
        " 1970-01-{:02d}T00:00:00Z",
        "1970-01-{:02d}",
    )
    return [forms[i % len(forms)].format(1 + int(d)) for i, d in enumerate(log["timestamp"])]


#: text whose times all end in a UTC offset, and text whose times end in none
OFFSET_FORMS = ("1970-01-{:02d}T08:00:00+08:00", " 1970-01-{:02d}T00:00:00Z",
                "1970-01-{:02d}T00:00:00-00:00")  # fmt: skip
NAIVE_FORMS = ("1970-01-{:02d} 00:00:00", "1970-01-{:02d}", " 1970-01-{:02d}T00:00 ")


def test_iso_text_times_split_as_their_instants():
    """A time column of ISO 8601 text (as the audit and retention read it) splits as
    the datetimes it names, in every frame and text layout; text cut-offs split text
    with UTC offsets as tz-aware times, text without as naive ones."""
    import polars as pl

    log = _log()
    days = log.assign(timestamp=pd.to_datetime(log["timestamp"], unit="D"))
    aware_days = days.assign(timestamp=days["timestamp"].dt.tz_localize("UTC"))
    texts = {
        "mixed": (log.assign(timestamp=_text_times(log)), days, ""),
        "offsets": (log.assign(timestamp=_text_times(log, OFFSET_FORMS)), aware_days, "Z"),
        "naive": (log.assign(timestamp=_text_times(log, NAIVE_FORMS)), days, ""),
    }
    for kind, (text, want_log, offset) in texts.items():
        frames = {
            "pandas str": text,
            "pandas object": text.astype({"timestamp": object}),
            "polars": pl.from_pandas(text),
            "arrow string_view": pa.Table.from_pandas(text, preserve_index=False).set_column(
                2, "timestamp", pa.array(text["timestamp"].tolist(), pa.string_view())
            ),
        }
        calls = [
            ("temporal", {"quantile": 0.5}),
            ("leave_last_out", {"n": 1}),
            ("ratio", {"test_fraction": 0.5, "time": "timestamp"}),
        ]
        if kind != "mixed":
            calls.append(("temporal", {"cutoff": f"1970-01-04T00:00:00{offset}"}))
        for name, frame in frames.items():
            for method, kwargs in calls:
                got = getattr(split, method)(frame, **kwargs)
                want = getattr(split, method)(want_log, **kwargs)
                assert got.summary() == want.summary(), (kind, name, method)
                rows = got.test.index.tolist() if name.startswith("pandas") else None
                if rows is not None:
                    assert rows == want.test.index.tolist(), (kind, name, method)
    text = texts["naive"][0]
    assert split.temporal(text, cutoff="1970-01-04").test.index.tolist() == [1, 3, 4, 5]
    mixed_text = texts["mixed"][0]
    for cutoff in ("1970-01-04", "1970-01-04T00:00:00Z"):
        with pytest.raises(InputValidationError) as info:
            split.temporal(mixed_text, cutoff=cutoff)
        assert str(info.value) == (
            f"temporal: the time column holds ISO 8601 text with a UTC offset on some times "
            f"and none on others, so cutoff={cutoff!r} compares with only some of them; give "
            f"every time an offset (e.g. '2024-01-31T08:00:00+08:00'), or none."
        )
    with pytest.raises(
        InputValidationError, match="holds 'soon' at position 0, which is not an ISO"
    ):
        bad = text.assign(timestamp=["soon", *_text_times(log)[1:]])
        split.temporal(bad, cutoff="1970-01-04")
    missing = np.array([None, *_text_times(log)[1:]], dtype=object)
    with pytest.raises(
        InputValidationError,
        match=r"'timestamp' contains 1 missing value \(null\), the first at position 0;",
    ):
        split.temporal(text.assign(timestamp=missing), cutoff="1970-01-04")
    mixed = np.array([5, *_text_times(log)[1:]], dtype=object)
    with pytest.raises(InputValidationError, match=r"of several types \(int, str\); give one"):
        split.temporal(text.assign(timestamp=mixed), cutoff="1970-01-04")


@pytest.mark.parametrize("order", [1, -1])
def test_dates_among_datetimes_are_refused_not_cut_to_their_day(order):
    # Arrow reads datetimes after a date as dates: 06:00 became midnight, before a
    # 03:00 cut-off, and the split put the row in train
    import datetime as dt

    times = [dt.date(2024, 1, 1), dt.datetime(2024, 1, 1, 6)][::order]
    log = pd.DataFrame(
        {"user": [1, 1], "item": [1, 2], "timestamp": pd.Series(times, dtype=object)}
    )
    with pytest.raises(InputValidationError) as caught:
        split.temporal(log, cutoff="2024-01-01T03:00")
    assert str(caught.value) == (
        "temporal: the time column 'timestamp' holds Python objects of several types (date, "
        "datetime); give one kind of time: datetimes, ISO 8601 text or numbers."
    )
    ok = log.assign(timestamp=pd.Series([dt.date(2024, 1, 1), dt.date(2024, 1, 2)], dtype=object))
    assert split.temporal(ok, cutoff="2024-01-01T03:00").test.index.tolist() == [1]


def test_cutoffs_convert_exactly_to_the_column_unit():
    """A cut-off finer than the times' unit splits as against the cut-off itself (rows
    of a day before a cut-off at noon of that day are before it), one the unit cannot
    hold is refused (NumPy's cast would wrap it around: every row after it), and
    Python datetimes are times."""
    log = _log()
    dates = np.datetime64("1970-01-01") + log["timestamp"].to_numpy()  # datetime64[D]
    nanos = log.assign(timestamp=dates.astype("datetime64[ns]"))
    days = pa.Table.from_pandas(log.drop(columns="timestamp"), preserve_index=False)
    days = days.append_column("timestamp", pa.array(dates, pa.date32()))
    for cutoff in ("1970-01-04T12:00", "1970-01-04T00:00:00.000000001", "1970-01-04"):
        got = split.temporal(days, cutoff=cutoff).test["item"].to_pylist()
        assert got == split.temporal(nanos, cutoff=cutoff).test["item"].tolist()
    assert split.temporal(days, cutoff="1970-01-04T12:00").test["item"].to_pylist() == [4, 5]
    with pytest.raises(InvalidParameterError) as info:
        split.temporal(nanos, cutoff="3000-01-01")
    assert str(info.value) == (
        "The 'cutoff' parameter of temporal must be a time that the time column's unit (ns) "
        "holds. Got '3000-01-01' instead."
    )
    assert len(split.temporal(days, cutoff="3000-01-01").test) == 0
    keys, unit, _ = time_column(dates.astype(">M8[s]"), "split", "t")  # big-endian: the same times
    assert (keys.tolist(), unit) == (dates.astype("M8[s]").astype(np.int64).tolist(), "M8[s]")
    objects = nanos.assign(timestamp=np.array(nanos["timestamp"].dt.to_pydatetime(), dtype=object))
    got = split.leave_last_out(objects)
    assert got.test.index.tolist() == split.leave_last_out(nanos).test.index.tolist()


def test_arrow_string_view_columns_are_split_and_kept():
    """Arrow has no take of string_view: such columns are split all the same, and
    come out as string_view."""
    table = pa.Table.from_pandas(_log(), preserve_index=False)
    views = table.set_column(0, "user", table["user"].cast(pa.string_view()))
    for method, kwargs in (("temporal", {"cutoff": 3}), ("leave_last_out", {"n": 1})):
        got, want = getattr(split, method)(views, **kwargs), getattr(split, method)(table, **kwargs)
        assert got.summary() == want.summary()
        assert got.test.schema.field("user").type == pa.string_view()
        assert got.test.cast(want.test.schema).equals(want.test)


def test_missing_ids_name_their_column():
    # the error said "user contains 1 missing value": the role, not the frame's column
    import polars as pl

    log = _log().rename(columns={"user": "uid", "item": "iid"})
    log["uid"] = [1.0, 1.0, np.nan, 1.0, np.nan, 2.0, 1.0]
    for frame in (log, pl.from_pandas(log), pa.Table.from_pandas(log, preserve_index=False)):
        with pytest.raises(InputValidationError) as info:
            split.leave_last_out(frame, user="uid", item="iid")
        assert str(info.value) == (
            "leave_last_out: the user column 'uid' contains 2 missing values (None, NaN or "
            "null), the first at position 2; drop those rows or fill them with an id."
        )
    items = _log().astype({"item": object})
    items.loc[3, "item"] = None
    with pytest.raises(InputValidationError, match=r"^ratio: the item column 'item' contains 1 "):
        split.ratio(items, 0.5)


def test_missing_times_raise():
    log = _log().astype({"timestamp": float})
    log.loc[2, "timestamp"] = np.nan
    with pytest.raises(InputValidationError) as info:
        split.leave_last_out(log)
    assert str(info.value) == (
        "leave_last_out: the time column 'timestamp' contains 1 missing value (NaN), the first at "
        "position 2; drop those rows or fill their time first."
    )
    nulls = pa.Table.from_pandas(_log(), preserve_index=False)
    times = pa.array([None if i in (3, 5) else t for i, t in enumerate(_log()["timestamp"])])
    nulls = nulls.set_column(nulls.schema.get_field_index("timestamp"), "timestamp", times)
    said = r"2 missing values \(null\), the first at position 3;"  # Arrow's nulls, not NaN
    with pytest.raises(InputValidationError, match=said):
        split.leave_last_out(nulls)
    with pytest.raises(InputValidationError, match="must hold numbers, datetimes or ISO"):
        split.leave_last_out(_log().astype({"timestamp": bytes}))
    with pytest.raises(InputValidationError, match="must hold numbers, datetimes or ISO"):
        split.leave_last_out(_log().assign(timestamp=True))  # not a time
    with pytest.raises(InputValidationError, match="'timestamp' has 1 infinite value; give"):
        split.leave_last_out(log.fillna(np.inf))
    huge = _log().astype({"timestamp": np.uint64})
    huge.loc[0, "timestamp"] = np.uint64(2**63)  # cast to int64: the earliest time
    with pytest.raises(InputValidationError, match="holds 9223372036854775808, above the"):
        split.leave_last_out(huge)
    with pytest.raises(InputValidationError) as info:  # epoch numbers as text
        split.leave_last_out(_log().astype({"timestamp": str}))
    assert str(info.value) == (
        "leave_last_out: the time column 'timestamp' holds '1' at position 0, which is not an "
        "ISO 8601 time between 1677 and 2262 (e.g. '2024-01-31T08:00:00+08:00'); give "
        "datetimes, ISO 8601 text or numbers."
    )


def test_scan_only_for_temporal_and_leave_last_out(tmp_path):
    import pyarrow.parquet as pq

    import receval

    path = tmp_path / "log.parquet"
    pq.write_table(pa.Table.from_pandas(_log(), preserve_index=False), path)
    with pytest.raises(InvalidParameterError, match="out of core by temporal and leave_last_out"):
        split.ratio(receval.scan(path), test_fraction=0.5)
    with pytest.raises(InvalidParameterError, match="pass train_path= and test_path="):
        split.leave_last_out(receval.scan(path))
    same = tmp_path / "part.parquet"
    with pytest.raises(InvalidParameterError, match="name the same file"):
        split.leave_last_out(receval.scan(path), train_path=same, test_path=same)
    with pytest.raises(InvalidParameterError, match="no column 'when' for the time in its files"):
        split.temporal(
            receval.scan(path), cutoff=3, time="when", train_path="a.parquet", test_path="b.parquet"
        )


def test_parts_go_into_evaluation():
    import receval

    result = split.leave_last_out(_log(), n=1)
    run = receval.Run.from_dict({"a": {3: 0.9, 1: 0.5}, "b": {5: 0.8, 4: 0.1}})
    report = receval.evaluate(result.qrels(), run, metrics=["success@1"])
    assert report.mean["success@1"] == 1.0  # the held-out items 3 (a) and 5 (b) come first
    arp = receval.average_recommendation_popularity(run, train=result.train, k=2)
    assert arp == pytest.approx(
        receval.average_recommendation_popularity(run, train=_log().drop(index=[3, 5]), k=2)
    )


@pytest.mark.parametrize("relevance", ["threshold", "graded"])
def test_qrels_refuse_a_missing_rating_for_every_rule(relevance):
    log = pd.DataFrame({"user": list("aabb"), "item": [1, 2, 1, 3], "timestamp": [1, 2, 1, 2],
                        "rating": [5, np.nan, 4, 5]})  # fmt: skip
    result = split.leave_last_out(log, n=1, time="timestamp", rating="rating")
    message = (
        r"SplitResult\.qrels: the 'rating' column of the test part contains 1 missing value "
        r"\(None or NaN\), the first at position 0; drop those rows or fill them"
    )
    with pytest.raises(InputValidationError, match=message):
        result.qrels(relevance, threshold=4)


@pytest.mark.parametrize("relevance", ["threshold", "graded"])
def test_qrels_name_a_rating_that_is_no_number(relevance):
    log = pd.DataFrame({"user": list("aabb"), "item": [1, 2, 1, 3], "timestamp": [1, 2, 1, 2],
                        "rating": ["5", "4", "3", "x"]})  # fmt: skip
    result = split.leave_last_out(log, n=1, time="timestamp", rating="rating")
    message = r"the 'rating' column of the test part must hold numbers\. Got 'x' at position 1"
    with pytest.raises(InputValidationError, match=message):
        result.qrels(relevance, threshold=4)


def test_temporal_quantile_of_an_empty_log_is_empty_as_with_a_cutoff():
    log = pd.DataFrame({"user": [], "item": [], "timestamp": []})
    by_quantile = split.temporal(log, quantile=0.5, time="timestamp")
    by_cutoff = split.temporal(log, cutoff=1, time="timestamp")
    assert by_quantile.n_rows == by_cutoff.n_rows == 0
    assert len(by_quantile.train) == len(by_quantile.test) == 0


@pytest.mark.parametrize("unit", ["ns", "s"])
def test_an_empty_log_of_datetimes_takes_a_datetime_cutoff(unit):
    # no rows, but the column's type says datetimes: a date cut-off splits it (into
    # two empty parts), as it splits the same log with rows, on every frame type
    times = pd.Series([], dtype=f"datetime64[{unit}]")
    log = pd.DataFrame({"user": pd.Series([], dtype=object), "item": [], "timestamp": times})
    pl = pytest.importorskip("polars")
    for frame in (log, pl.from_pandas(log), pa.Table.from_pandas(log, preserve_index=False)):
        result = split.temporal(frame, cutoff="2024-01-01")
        assert result.n_rows == len(result.test) == len(result.train) == 0
    keys, kind, _ = time_column(times.to_numpy(), "split", "t")
    assert kind == np.dtype(f"datetime64[{unit}]") and keys.dtype == np.int64


def _untyped_empty_logs() -> dict[str, object]:
    """Empty logs whose time column has no kind: objects or nulls, on every frame type."""
    pl = pytest.importorskip("polars")
    objects = pd.Series([], dtype=object)
    return {
        "pandas object": pd.DataFrame({"user": objects, "item": objects, "time": objects}),
        "polars Null": pl.DataFrame({c: pl.Series([], dtype=pl.Null) for c in _COLUMNS}),
        "polars Object": pl.DataFrame(
            {"user": [], "item": [], "time": pl.Series([], dtype=pl.Object)}
        ),
        "Arrow null": pa.table({c: pa.array([], pa.null()) for c in _COLUMNS}),
    }


_COLUMNS = ("user", "item", "time")


@pytest.mark.parametrize(
    "cutoff", ["2024-01-01", pd.Timestamp("2024-01-01"), np.datetime64("2024-01-01"), 5, 5.5]
)
def test_an_empty_log_of_no_time_kind_takes_a_cutoff_of_either_kind(cutoff):
    # no rows and no type: nothing says whether the times are numbers or dates, so a
    # cut-off of either kind splits it into two empty parts, every count 0
    for name, log in _untyped_empty_logs().items():
        result = split.temporal(log, cutoff=cutoff)
        counts = (result.n_rows, result.n_train_rows, result.n_test_rows, result.n_users)
        assert counts == (0, 0, 0, 0), name
        assert len(result.train) == len(result.test) == 0, name
        assert type(result.test) is type(log), name
        folds = split.rolling(log, [cutoff])
        assert [(f.n_train_rows, f.n_test_rows) for f in folds] == [(0, 0)], name


def test_an_empty_log_of_no_time_kind_takes_rolling_cutoffs_of_one_kind():
    log = _untyped_empty_logs()["pandas object"]
    folds = split.rolling(log, ["2024-01-01", "2024-02-01"], end=pd.Timestamp("2024-03-01"))
    assert [(f.n_train_rows, f.n_test_rows) for f in folds] == [(0, 0), (0, 0)]
    with pytest.raises(InvalidParameterError) as info:
        split.rolling(log, [1, 2], end="2024-01-01")
    assert str(info.value) == (
        "The 'cutoffs' and 'end' parameters of rolling must be all numbers or all datetimes "
        "(the time column has no rows to tell which). Got [1, 2, '2024-01-01'] instead."
    )
    with pytest.raises(InvalidParameterError, match="'cutoffs' parameter of rolling must be incr"):
        split.rolling(log, ["2024-02-01", "2024-01-01"])


def test_an_empty_typed_time_column_keeps_its_kind():
    # an empty float column holds numbers: a date cut-off is still refused
    log = pd.DataFrame({"user": [], "item": [], "time": pd.Series([], dtype=float)})
    with pytest.raises(InvalidParameterError, match="as the time column holds numbers"):
        split.temporal(log, cutoff="2024-01-01")


def test_temporal_cutoff_past_int64_is_an_error_for_integer_times():
    log = pd.DataFrame({"user": [1, 1, 2], "item": [1, 2, 3], "timestamp": [1, 2, 3]})
    with pytest.raises(
        InvalidParameterError, match=r"'cutoff' parameter of temporal must be within int64's range"
    ):
        split.temporal(log, cutoff=2**70, time="timestamp")
    floats = log.astype({"timestamp": float})  # a float column compares with it
    assert split.temporal(floats, cutoff=2**70, time="timestamp").n_test_rows == 0


def test_rolling_cutoffs_past_int64_are_an_error_for_integer_times():
    """The rolling windows' cut-offs go through the same check as temporal's (they
    raised NumPy's TypeError)."""
    log = pd.DataFrame({"user": [1, 1, 2], "item": [1, 2, 3], "timestamp": [1, 2, 3]})
    with pytest.raises(
        InvalidParameterError, match=r"'cutoffs' parameter of rolling must be within int64's"
    ):
        split.rolling(log, [2, 2**70], time="timestamp")


@pytest.mark.parametrize("stream", ["legacy", "shuffle"])
@pytest.mark.parametrize("seed", [-1, 2**40])
def test_random_holdout_seed_out_of_the_random_state_range(stream, seed):
    log = pa.table({"user": [1, 1, 2], "item": [1, 2, 3]})
    with pytest.raises(InvalidParameterError) as info:
        split.random_holdout(log, n=1, seed=seed, stream=stream)
    assert str(info.value) == (
        f"The 'seed' parameter of random_holdout must be an integer in [0, 2**32 - 1] with "
        f"stream={stream!r}. Got {seed} instead; pass e.g. seed=0 (stream='generator' takes "
        f"any non-negative integer)."
    )
    assert split.random_holdout(log, n=1, seed=2**32 - 1, stream=stream).n_test_rows == 1


def _wide_times(kind: str) -> pd.DataFrame:
    """Four rows one tick apart past 2**53 (float64 tells them apart no longer): int
    times, or nanosecond datetimes of 2024."""
    base = 2**60 if kind == "int" else pd.Timestamp("2024-01-01").value
    times = np.array([base, base + 1, base + 2, base + 3], dtype=np.int64)
    return pd.DataFrame(
        {
            "user": [1, 2, 3, 4],
            "item": [1, 2, 3, 4],
            "timestamp": times if kind == "int" else times.astype("M8[ns]"),
        }
    )


@pytest.mark.parametrize("kind", ["int", "datetime"])
def test_temporal_quantile_is_exact_past_2_53(tmp_path, kind):
    # the median lies halfway between rows 1 and 2: rows 2 and 3 are test; the quantile
    # interpolated in float64 rounded to row 0's time and sent every row to test
    log = _wide_times(kind)
    in_memory = split.temporal(log, quantile=0.5)
    assert in_memory.test.index.tolist() == [2, 3]
    log.to_parquet(tmp_path / "log.parquet")
    out = {"train_path": tmp_path / "train.parquet", "test_path": tmp_path / "test.parquet"}
    scanned = split.temporal(receval.scan(tmp_path / "log.parquet"), quantile=0.5, **out)
    assert scanned.summary() == in_memory.summary()
    assert pd.read_parquet(out["test_path"])["item"].tolist() == [3, 4]


@pytest.mark.parametrize("kind", ["int", "datetime"])
def test_rolling_train_window_is_exact_past_2_53(kind):
    # the window of 2 ticks before the cut-off at row 3 starts at row 1: row 0 is out,
    # which a window start computed in float64 (rounded to row 0's time) kept
    log = _wide_times(kind)
    times = log["timestamp"]
    window = 2.0 if kind == "int" else pd.Timedelta(2, "ns")
    (fold,) = split.rolling(log, [times[3]], train_window=window)
    assert fold.train.index.tolist() == [1, 2] and fold.test.index.tolist() == [3]


def _two_seconds(unit: str) -> pd.DataFrame:
    """Two rows a second apart (2024-01-01 00:00:00 and :01), in ``unit``."""
    times = pd.to_datetime(["2024-01-01 00:00:00", "2024-01-01 00:00:01"]).astype(f"M8[{unit}]")
    return pd.DataFrame({"user": [1, 2], "item": [1, 2], "timestamp": times})


@pytest.mark.parametrize("unit", ["ns", "s"])
@pytest.mark.parametrize(
    "cutoff",
    [
        "2024-01-01T00:00:00.000000500",
        "2024-01-01 00:00:00,0000000001",
        "2024-01-01T00:00:00.9999999",
    ],
)
def test_a_cutoff_past_the_microsecond_is_read_to_its_last_digit(unit, cutoff):
    # datetime.fromisoformat kept six digits of the fraction: 500 ns after row 0 read as
    # row 0 itself, which went to test
    assert split.temporal(_two_seconds(unit), cutoff=cutoff).test.index.tolist() == [1]
    aware = _two_seconds(unit).assign(timestamp=lambda f: f["timestamp"].dt.tz_localize("UTC"))
    for offset in ("Z", "+00:00"):
        assert split.temporal(aware, cutoff=cutoff + offset).test.index.tolist() == [1]
    one_hour_east = cutoff.replace("T00", "T01").replace(" 00", " 01") + "+01:00"
    assert split.temporal(aware, cutoff=one_hour_east).test.index.tolist() == [1]
    (fold,) = split.rolling(_two_seconds(unit), [cutoff], end="2024-01-01T00:00:01.0000000001")
    assert fold.train.index.tolist() == [0] and fold.test.index.tolist() == [1]


def test_rolling_train_window_starts_at_the_cutoff_not_at_its_tick():
    # the window of 1.5 s before 00:00:01.5 starts at 00:00:00; counted from the cut-off
    # rounded up to a tick of seconds (00:00:02) it started at 00:00:00.5
    import datetime as dt

    times = np.array(["2024-01-01T00:00:00", "2024-01-01T00:00:01", "2024-01-01T00:00:02"])
    for unit in ("s", "ms", "ns"):
        log = pd.DataFrame(
            {"user": [1] * 3, "item": [1, 2, 3], "timestamp": times.astype(f"M8[{unit}]")}
        )
        window = dt.timedelta(milliseconds=1500)
        (fold,) = split.rolling(log, ["2024-01-01T00:00:01.5"], train_window=window)
        assert fold.train["item"].tolist() == [1, 2]
        (fold,) = split.rolling(log, ["2024-01-01T00:00:01.5"], train_window=window / 2)
        assert fold.train["item"].tolist() == [2]  # from 00:00:00.75: its first tick 00:00:01
    days = pa.table(
        {"user": [1] * 3, "item": [1, 2, 3],
         "timestamp": pa.array(np.array(["2024-01-01", "2024-01-02", "2024-01-03"], "M8[D]"))}
    )  # fmt: skip
    (fold,) = split.rolling(days, ["2024-01-03T12:00"], train_window=dt.timedelta(hours=36))
    assert fold.train["item"].to_pylist() == [2, 3]  # from 2024-01-02T00:00


def test_rolling_cutoffs_in_one_tick_of_the_column_say_so():
    days = pa.table(
        {"user": [1, 1], "item": [1, 2],
         "timestamp": pa.array(np.array(["2024-01-01", "2024-01-03"], "M8[D]"))}
    )  # fmt: skip
    with pytest.raises(InvalidParameterError) as info:
        split.rolling(days, ["2024-01-02T06:00", "2024-01-02T18:00"])
    assert str(info.value) == (
        "The 'cutoffs' parameter of rolling must be increasing in the time column's unit: "
        "'2024-01-02T06:00' and '2024-01-02T18:00' fall in the same day of its times (it "
        "holds times in days; both cut at 2024-01-03, the first day at or after each), so "
        "their folds would be the same. Got ['2024-01-02T06:00', '2024-01-02T18:00'] "
        "instead; drop one of the two, or give cut-offs that fall in different days."
    )
    with pytest.raises(InvalidParameterError) as info:
        split.rolling(days, ["2024-01-02T06:00"], end="2024-01-02T18:00")
    assert str(info.value) == (
        "The 'end' parameter of rolling must come after the last cut-off in the time "
        "column's unit: '2024-01-02T06:00' and '2024-01-02T18:00' fall in the same day of "
        "its times (it holds times in days; both cut at 2024-01-03, the first day at or "
        "after each), so the last fold's test would be empty. Got '2024-01-02T18:00' "
        "instead; give an end in a later day than the last cut-off's."
    )
    with pytest.raises(InvalidParameterError, match=r"must be increasing\. Got"):
        split.rolling(days, ["2024-01-02T18:00", "2024-01-02T06:00"])
    with pytest.raises(InvalidParameterError, match=r"must come after the last cut-off\. Got"):
        split.rolling(days, ["2024-01-02T18:00"], end="2024-01-02T06:00")
    assert len(split.rolling(days, ["2024-01-02T00:00", "2024-01-02T18:00"])) == 2


@pytest.mark.parametrize("method", ["temporal", "leave_last_out"])
@pytest.mark.parametrize("paths", [("train_path", "test_path"), ("test_path",)])
def test_paths_of_a_log_split_in_memory_are_refused(tmp_path, method, paths):
    # they were ignored: no file was written, and nothing said so
    given = {name: tmp_path / f"{name}.parquet" for name in paths}
    kwargs = {"cutoff": 3} if method == "temporal" else {}
    with pytest.raises(InvalidParameterError) as info:
        getattr(split, method)(_log(), **kwargs, **given)
    shown = ", ".join(f"{name}={path!r}" for name, path in given.items())
    assert str(info.value) == (
        f"{method}: train_path and test_path write a Scan's split to files; the log is a "
        f"DataFrame, split in memory, and they would not be written. Got {shown}; drop them "
        "and write result.train and result.test yourself, or pass receval.scan(<file>) of "
        "the log's file to split it out of core."
    )
    path = tmp_path / "log.csv"
    _log().to_csv(path, index=False)
    with pytest.raises(InvalidParameterError, match="the log is a path, split in memory"):
        getattr(split, method)(path, **kwargs, **given)
    assert not any(p.exists() for p in given.values())


def test_qrels_of_a_missing_column_name_the_column_argument():
    with pytest.raises(InputValidationError) as info:
        split.leave_last_out(_log()).qrels("graded", column="nope")
    assert str(info.value) == (
        "SplitResult.qrels: the test part has no column 'nope' for relevance='graded' to "
        "read. Got columns ['user', 'item', 'timestamp', 'rating']; pass "
        "column='<column name>' naming one of them."
    )

"""``receval split``: the files written, the counts on stderr or in a -f format, the errors."""

from __future__ import annotations

import json
import os

import pyarrow as pa
import pyarrow.csv as pcsv
import pyarrow.parquet as pq
import pytest

from receval import split

from ._helpers import invoke, make_runner

pd = pytest.importorskip("pandas")


@pytest.fixture
def log_path(tmp_path):
    log = pd.DataFrame(
        {
            "user": [1, 1, 1, 2, 2, 3],
            "item": [10, 11, 12, 10, 13, 14],
            "timestamp": [1, 2, 2, 1, 5, 9],
        }
    )
    path = tmp_path / "log.parquet"
    pq.write_table(pa.Table.from_pandas(log, preserve_index=False), path)
    return path, log


def test_leave_last_out_writes_parquet_and_csv(tmp_path, log_path):
    path, log = log_path
    train, test = tmp_path / "train.parquet", tmp_path / "test.csv"
    result = invoke(make_runner(), "split", path, "-o", train, "-O", test, "-f", "json")
    expected = split.leave_last_out(log, n=1)
    assert pq.read_table(train).to_pandas().equals(expected.train.reset_index(drop=True))
    assert pcsv.read_csv(test)["item"].to_pylist() == [12, 13]
    summary = json.loads(result.stdout)
    assert summary["n_test_rows"] == 2 and summary["n_users_without_test"] == 1
    assert result.stderr == ""  # the counts once: on stdout
    result = invoke(make_runner(), "split", path, "-o", train, "-O", test)
    assert result.stdout == "" and result.stderr == (  # counted in words: 1 user, 2 rows
        "note: leave_last_out: 6 rows, 3 users, 5 items -> train 4 rows (3 users), test 2 "
        "rows (2 users); dropped 0 users (0 rows); 1 user without test; cold in test: 0 users, "
        "2 items (2 rows).\n"
    )


def test_temporal_quantile_and_counts(tmp_path, log_path):
    path, log = log_path
    args = ["split", path, "--method", "temporal", "--cutoff", "5"]
    out = ["-o", tmp_path / "a.parquet", "-O", tmp_path / "b.parquet"]
    result = invoke(make_runner(), *args, *out, "--format", "json")
    summary = split.temporal(log, cutoff=5).summary()
    assert summary.pop("fold") is None
    assert json.loads(result.stdout) == {
        "train": str(tmp_path / "a.parquet"), "test": str(tmp_path / "b.parquet"), **summary
    }  # fmt: skip
    assert "cold in test: 1 user, " in invoke(make_runner(), *args, *out).stderr


def test_format_option_as_every_command_has_it(tmp_path, log_path):
    # split took --json where every other command takes -f/--format
    path, log = log_path
    a, b = tmp_path / "a.parquet", tmp_path / "b.csv"
    args = ["split", path, "-o", a, "-O", b]
    assert "No such option: --json" in invoke(make_runner(), *args, "--json", code=2).stderr
    counts = split.leave_last_out(log, n=1).summary()
    del counts["fold"]  # no method of the command folds
    record = {"train": str(a), "test": str(b), **counts}
    for fmt, delimiter in (("csv", ","), ("tsv", "\t")):
        result = invoke(make_runner(), *args, "-f", fmt)
        assert result.stdout.splitlines() == [
            delimiter.join(record), delimiter.join(map(str, record.values()))
        ]  # fmt: skip
        assert result.stderr == ""  # the counts once: not again in a note
    markdown = invoke(make_runner(), *args, "--format", "markdown").stdout.splitlines()
    assert markdown[0] == "| " + " | ".join(record) + " |" and len(markdown) == 3
    assert markdown[2].startswith(f"| {a} | {b} | leave_last_out | 6 | 3 |")
    latex = invoke(make_runner(), *args, "-f", "latex").stdout
    assert latex.startswith("\\begin{tabular}{lllrrr") and "leave\\_last\\_out" in latex
    help_text = " ".join(invoke(make_runner(), "split", "--help").stdout.split())
    assert "-f, --format" in help_text and "--json" not in help_text


def test_random_and_ratio_in_memory(tmp_path, log_path):
    path, log = log_path
    out = ["-o", tmp_path / "a.parquet", "-O", tmp_path / "b.parquet"]
    invoke(make_runner(), "split", path, "--method", "random", "--n", "1", "--seed", "3", *out)
    expected = split.random_holdout(log, n=1, seed=3)
    assert (
        pq.read_table(tmp_path / "b.parquet")["item"].to_pylist() == expected.test["item"].tolist()
    )
    invoke(make_runner(), "split", path, "--method", "ratio", "--test-fraction", "0.5", *out)
    assert (
        pq.read_table(tmp_path / "b.parquet").num_rows
        == split.ratio(log, test_fraction=0.5).n_test_rows
    )


def test_ratio_rounding_floor(tmp_path, log_path):
    path, _ = log_path
    out = ["-o", tmp_path / "a.parquet", "-O", tmp_path / "b.parquet"]
    args = ["split", path, "--method", "ratio", "--train-fraction", "0.5", *out]
    invoke(make_runner(), *args)  # user 1: round(1.5) = 2 rows in train
    assert pq.read_table(tmp_path / "b.parquet").num_rows == 3
    invoke(make_runner(), *args, "--rounding", "floor")  # floor(1.5) = 1
    assert pq.read_table(tmp_path / "b.parquet").num_rows == 4


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--method", "random", "--n", "1"], "--method random needs --seed"),
        (["--method", "temporal"], "exactly one of --cutoff and --quantile. Got neither."),
        (["--short", "keep"], "'short' parameter"),
        (["--time", "when"], "no column 'when'"),
        # an option of another method would be ignored
        (
            ["--min-interactions", "3"],
            "--min-interactions applies to --method ratio and "
            "random, not leave-last-out; drop it or pick one of those methods.",
        ),
        (
            ["--method", "ratio", "--test-fraction", "0.5", "--min-train", "2"],
            "--min-train applies to --method leave-last-out, not ratio",
        ),
        (
            ["--method", "ratio", "--test-fraction", "0.5", "--short", "drop"],
            "--short applies to --method leave-last-out, not ratio",
        ),
        (
            ["--method", "temporal", "--quantile", "0.5", "--seed", "1"],
            "--seed applies to --method random and user-kfold, not temporal",
        ),
        (["--cutoff", "3"], "--cutoff applies to --method temporal, not leave-last-out"),
    ],
)
def test_errors_exit_2(tmp_path, log_path, args, message):
    path, _ = log_path
    out = ["-o", tmp_path / "a.parquet", "-O", tmp_path / "b.parquet"]
    result = invoke(make_runner(), "split", path, *out, *args, code=2)
    assert message in result.stderr


def test_output_format_from_suffix(tmp_path, log_path):
    path, _ = log_path
    result = invoke(make_runner(), "split", path, "-o", tmp_path / "a.txt", code=2)
    assert "-o/--train must name a .parquet or .csv file" in result.stderr


@pytest.mark.parametrize("option", ["-o", "-O"])
def test_split_refuses_to_write_over_its_log(tmp_path, log_path, option):
    path, _ = log_path
    before = path.read_bytes()
    other = "-O" if option == "-o" else "-o"
    result = invoke(make_runner(), "split", path, option, path, other, tmp_path / "x.parquet",
                    code=2)  # fmt: skip
    name = "--train" if option == "-o" else "--test"
    assert result.stderr == (
        f"error: receval split {name}: the output path must not be one of the inputs. Got "
        f"{str(path)!r}, the same file as the input {str(path)!r}; write to another file.\n"
    )
    assert path.read_bytes() == before


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (
            ["--method", "ratio"],
            "error: receval split: pass exactly one of --test-fraction and --train-fraction. "
            "Got neither.",
        ),
        (
            ["--method", "random", "--n", "1", "--test-fraction", "0.5", "--seed", "1"],
            "error: receval split: pass exactly one of --test-fraction, --n and "
            "--train-fraction. Got --test-fraction 0.5 and --n 1.",
        ),
        (["--min-train", "-1"], "error: --min-train must be an integer in [0, inf). Got -1"),
        (
            ["--method", "ratio", "--test-fraction", "0.5", "--min-interactions", "0"],
            "error: --min-interactions must be an integer in [1, inf). Got 0 instead.",
        ),
        (["--method", "random", "--n", "1", "--seed", "-1"], "error: --seed must be a"),
    ],
)
def test_errors_name_the_options(tmp_path, log_path, args, said):
    """The library's parameters are named as the command's options."""
    path, _ = log_path
    out = ["-o", tmp_path / "a.parquet", "-O", tmp_path / "b.parquet"]
    result = invoke(make_runner(), "split", path, *out, *args, code=2)
    assert result.stderr.startswith(said), result.stderr
    assert "=" not in result.stderr.replace("[", "").split("Got")[0]


def _parts(path):
    return pq.read_table(path).to_pandas()


def test_user_kfold_writes_a_train_and_a_test_file_per_fold(tmp_path, log_path):
    path, log = log_path
    out = ["-o", tmp_path / "train.parquet", "-O", tmp_path / "test.csv"]
    args = ["split", path, "--method", "user-kfold", "--k", "3", "--seed", "4", *out]
    result = invoke(make_runner(), *args, "-f", "json")
    folds = list(split.user_kfold(log, k=3, seed=4))
    records = json.loads(result.stdout)
    assert records == [
        {"train": str(tmp_path / f"train-{i}.parquet"), "test": str(tmp_path / f"test-{i}.csv"),
         **fold.summary()}
        for i, fold in enumerate(folds)
    ]  # fmt: skip
    for i, fold in enumerate(folds):
        assert _parts(tmp_path / f"train-{i}.parquet").equals(fold.train.reset_index(drop=True))
        assert (
            pcsv.read_csv(tmp_path / f"test-{i}.csv")
            .to_pandas()
            .equals(fold.test.reset_index(drop=True))
        )
    assert not (tmp_path / "train.parquet").exists()
    notes = invoke(make_runner(), *args).stderr.splitlines()
    assert len(notes) == 3  # a note a fold; 3 users in 3 folds: each fold tests one, cold
    for i, note in enumerate(notes):
        assert note.startswith(f"note: user_kfold fold {i}: 6 rows, 3 users, 5 items -> train ")
        assert "dropped 0 users (0 rows); " in note and "cold in test: 1 user, " in note


def test_rolling_folds_equal_the_library_and_count_rows_left_out(tmp_path, log_path):
    path, log = log_path
    out = ["-o", tmp_path / "a.parquet", "-O", tmp_path / "b.parquet"]
    args = ["split", path, "--method", "rolling", "--cutoffs", "2,5", "--end", "9", *out]
    result = invoke(make_runner(), *args, "--train-window", "1.5", "-f", "csv")
    folds = split.rolling(log, [2, 5], end=9, train_window=1.5)
    lines = result.stdout.splitlines()
    assert lines[0].startswith("train,test,method,fold,n_rows,")
    header = lines[0].split(",")
    for fold, line in zip(folds, lines[1:], strict=True):
        row = dict(zip(header, line.split(","), strict=True))
        assert {k: row[k] for k in fold.summary()} == {k: str(v) for k, v in fold.summary().items()}
        assert row["train"] == str(tmp_path / f"a-{fold.fold}.parquet")
        i = fold.fold
        assert _parts(tmp_path / f"a-{i}.parquet").equals(fold.train.reset_index(drop=True))
        assert _parts(tmp_path / f"b-{i}.parquet").equals(fold.test.reset_index(drop=True))
    # without a train window: rows at and after 5 are left out of fold 0, the row at 9
    # (--end is excluded) out of fold 1, and user 3 (one row, at 9) out of both
    assert invoke(make_runner(), *args).stderr.splitlines() == [
        "note: rolling fold 0: 6 rows, 3 users, 5 items -> train 2 rows (2 users), test 2 rows "
        "(1 user); dropped 1 user (2 rows); 1 user without test; cold in test: 0 users, 2 items "
        "(2 rows).",
        "note: rolling fold 1: 6 rows, 3 users, 5 items -> train 4 rows (2 users), test 1 row "
        "(1 user); dropped 1 user (1 row); 1 user without test; cold in test: 0 users, 1 item "
        "(1 row).",
    ]


def test_rolling_reads_iso_cutoffs_of_a_datetime_log(tmp_path):
    log = pd.DataFrame(
        {
            "user": [1, 1, 2, 2],
            "item": [1, 2, 1, 3],
            "timestamp": pd.to_datetime(["2024-01-01", "2024-02-10", "2024-01-20", "2024-03-05"]),
        }
    )
    path = tmp_path / "log.parquet"
    log.to_parquet(path, index=False)
    out = ["-o", tmp_path / "a.parquet", "-O", tmp_path / "b.parquet"]
    result = invoke(make_runner(), "split", path, "--method", "rolling",
                    "--cutoffs", "2024-02-01,2024-03-01", *out, "-f", "json")  # fmt: skip
    expected = [f.summary() for f in split.rolling(log, ["2024-02-01", "2024-03-01"])]
    records = json.loads(result.stdout)
    assert [r["n_test_rows"] for r in records] == [1, 1]
    assert [{k: r[k] for k in expected[0]} for r in records] == expected


def test_rolling_train_window_of_a_datetime_log_is_a_span(tmp_path):
    import datetime as dt

    days = pd.to_datetime(["2024-01-01", "2024-01-05", "2024-01-10", "2024-01-09"])
    log = pd.DataFrame({"user": [1, 1, 1, 2], "item": [1, 2, 3, 4], "timestamp": days})
    path = tmp_path / "log.parquet"
    log.to_parquet(path, index=False)
    out = ["-o", tmp_path / "a.parquet", "-O", tmp_path / "b.parquet"]
    args = ["split", path, "--method", "rolling", "--cutoffs", "2024-01-06", *out]
    for span in ("3d", "72h", "4320min"):
        result = invoke(make_runner(), *args, "--train-window", span, "-f", "json")
        (expected,) = split.rolling(log, ["2024-01-06"], train_window=dt.timedelta(days=3))
        assert json.loads(result.stdout)[0]["n_train_rows"] == expected.n_train_rows == 1
        assert _parts(tmp_path / "a-0.parquet")["item"].tolist() == [2]
    said = invoke(make_runner(), *args, "--train-window", "3", code=2).stderr
    assert said == (
        "error: --train-window must be a span of time, as the time column holds datetimes. "
        "Got '3'; give e.g. --train-window 30d (units: w, d, h, min, s, ms, us).\n"
    )
    numeric = tmp_path / "numeric.csv"
    numeric.write_text("user,item,timestamp\n1,1,1\n1,2,6\n2,1,7\n")
    numbers = ["split", numeric, "--method", "rolling", "--cutoffs", "5", *out]
    said = invoke(make_runner(), *numbers, "--train-window", "2d", code=2).stderr
    assert said == (
        "error: --train-window must be a number, as the time column holds numbers. Got '2d'; "
        "give the window in the times' units, e.g. --train-window 86400 for a day of Unix "
        "seconds.\n"
    )
    for bad in ("3x", "0d", "-1d", "d"):
        said = invoke(make_runner(), *args, "--train-window", bad, code=2).stderr
        assert said == (
            "error: --train-window must be a number, or a positive span of time such as 30d, "
            "12h, 90min or 45s (units: w, d, h, min, s, ms, us). Got "
            f"{bad!r} instead.\n"
        )


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--method", "user-kfold"], "error: --method user-kfold needs --seed (e.g. --seed 0).\n"),
        (
            ["--method", "user-kfold", "--seed", "0", "--k", "1"],
            "error: --k must be an integer in [2, inf). Got 1 instead.\n",
        ),
        (
            ["--method", "user-kfold", "--seed", "0", "--k", "4"],
            "error: --k must be at most the number of users (3). Got 4 instead.\n",
        ),
        (
            ["--method", "rolling"],
            "error: --method rolling needs --cutoffs (e.g. --cutoffs 100,200).\n",
        ),
        (
            ["--method", "rolling", "--cutoffs", "5,2"],
            "error: --cutoffs must be increasing. Got [5, 2] instead.\n",
        ),
        (
            ["--method", "rolling", "--cutoffs", "2,,5"],
            "error: --cutoffs must be comma-separated times such as 100,200 or "
            "2024-01-01,2024-02-01. Got '2,,5' instead.\n",
        ),
        (
            ["--method", "rolling", "--cutoffs", "2024-01-01"],
            "error: --cutoffs must be a number, as the time column holds numbers. Got "
            "'2024-01-01' instead.\n",
        ),
        (
            ["--method", "rolling", "--cutoffs", "2,5", "--end", "3"],
            "error: --end must come after the last cut-off. Got 3 instead.\n",
        ),
        (
            ["--method", "rolling", "--cutoffs", "2", "--train-window", "0"],
            "error: --train-window must be a real number in (0, inf). Got 0 instead.\n",
        ),
        (
            ["--method", "rolling", "--cutoffs", "2", "--seed", "1"],
            "error: --seed applies to --method random and user-kfold, not rolling; drop it or "
            "pick one of those methods.\n",
        ),
        (
            ["--method", "user-kfold", "--seed", "1", "--end", "3"],
            "error: --end applies to --method rolling, not user-kfold; drop it or pick one of "
            "those methods.\n",
        ),
        (
            ["--method", "temporal", "--cutoff", "2", "--k", "3"],
            "error: --k applies to --method user-kfold, not temporal; drop it or pick one of "
            "those methods.\n",
        ),
    ],
)
def test_fold_methods_name_bad_options_and_exit_2(tmp_path, log_path, args, said):
    path, _ = log_path
    out = ["-o", tmp_path / "a.parquet", "-O", tmp_path / "b.parquet"]
    result = invoke(make_runner(), "split", path, *out, *args, code=2)
    assert result.stderr == said
    assert not list(tmp_path.glob("a*.parquet"))


def test_an_integer_train_window_is_read_exactly(tmp_path):
    # --train-window was read as a float: 2**53 + 1 became 2**53, and the row exactly
    # one window before the cutoff (in the library's train) was left out
    cutoff, window = 2**60, 2**53 + 1
    log = pd.DataFrame({"user": [1, 1, 1], "item": [1, 2, 3],
                        "timestamp": [cutoff - window, cutoff - 5, cutoff + 1]})  # fmt: skip
    path = tmp_path / "log.parquet"
    log.to_parquet(path, index=False)
    out = ["-o", tmp_path / "a.parquet", "-O", tmp_path / "b.parquet"]
    result = invoke(make_runner(), "split", path, "--method", "rolling", "--cutoffs",
                    str(cutoff), "--train-window", str(window), *out, "-f", "json")  # fmt: skip
    want = split.rolling(log, [cutoff], train_window=window)[0]
    assert want.n_train_rows == 2
    assert json.loads(result.stdout)[0]["n_train_rows"] == want.n_train_rows


def test_a_cutoff_past_the_microsecond_is_read_to_its_last_digit(tmp_path):
    # --cutoff 500 ns after the first row was read as that row itself: both rows in test
    times = pd.to_datetime(["2024-01-01 00:00:00", "2024-01-01 00:00:01"])
    out = ["-o", tmp_path / "a.parquet", "-O", tmp_path / "b.parquet"]
    for zone, cutoff in (
        (None, "2024-01-01T00:00:00.000000500"),
        ("UTC", "2024-01-01T01:00:00.000000500+01:00"),
    ):
        log = pd.DataFrame({"user": [1, 2], "item": [1, 2], "timestamp": times.tz_localize(zone)})
        path = tmp_path / "log.parquet"
        log.to_parquet(path, index=False)
        invoke(make_runner(), "split", path, "--method", "temporal", "--cutoff", cutoff, *out)
        assert _parts(tmp_path / "b.parquet")["item"].tolist() == [2]


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux's /proc")
@pytest.mark.parametrize(
    "method", [["--method", "leave-last-out"], ["--method", "ratio", "--test-fraction", "0.5"]]
)
@pytest.mark.parametrize("option", ["-o", "-O"])
def test_a_folder_that_takes_no_file_names_the_option(tmp_path, log_path, method, option):
    # /proc takes no new file, even for root: one line naming the option and the path
    path, _ = log_path
    out = {"-o": str(tmp_path / "train.csv"), "-O": str(tmp_path / "test.csv")}
    out[option] = "/proc/part.csv"
    result = invoke(make_runner(), "split", path, *method, "-o", out["-o"], "-O", out["-O"], code=2)
    name = {"-o": "--train", "-O": "--test"}[option]
    assert f"{name} '/proc/part.csv' cannot be written" in result.stderr
    assert "Errno" not in result.stderr and "Traceback" not in result.stderr
    assert result.stdout == ""


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux's /proc")
def test_a_scan_split_into_a_folder_that_takes_no_file_names_the_argument(tmp_path, log_path):
    import receval

    path, _ = log_path
    with pytest.raises(
        receval.InvalidParameterError, match=r"test_path '/proc/te\.parquet' cannot"
    ):
        split.leave_last_out(
            receval.scan(path), train_path=tmp_path / "tr.parquet", test_path="/proc/te.parquet"
        )
    assert not (tmp_path / "tr.parquet").exists()
    assert not list(tmp_path.glob(".tr.parquet.partial"))

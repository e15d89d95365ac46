"""Ids and labels read from CSV and TSV files are text: ``NA``, ``null``, ``NaN``,
``N/A``, ``None`` (Arrow's spellings of a missing number) are ids as any other, on
every path that reads such a file, and only an empty field is a missing id; a number
column reads those spellings as missing values, as it did."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pcsv
import pytest

import receval
from receval import InputValidationError, Qrels, Run, split
from receval.data import io

#: ids that Arrow reads as null by default; each renamed to a plain id in the twin file
SPELLINGS = ["NA", "N/A", "n/a", "#N/A", "#NA", "null", "NULL", "NaN", "nan", "-NaN", "None"]
RENAMED = {s: f"id{k}" for k, s in enumerate(SPELLINGS)}
USERS = [*SPELLINGS, "u"]
ITEMS = ["NA", "null", "NaN", "x", "N/A"]


def _write(path: Path, columns: dict[str, list[object]]) -> Path:
    """The columns as a CSV, TSV or gzip-compressed CSV file (by the suffix), unquoted."""
    sep = "\t" if path.suffix == ".tsv" else ","
    lines = [
        sep.join(columns),
        *(sep.join(map(str, row)) for row in zip(*columns.values(), strict=True)),
    ]
    text = "\n".join(lines) + "\n"
    if path.suffix == ".gz":
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text)
    return path


def _renamed(columns: dict[str, list[object]]) -> dict[str, list[object]]:
    return {c: [_rename(v) for v in values] for c, values in columns.items()}


def _rename(value: object) -> object:
    return RENAMED.get(value, value) if isinstance(value, str) else value


def _twins(folder: Path, name: str, columns: dict[str, list[object]]) -> tuple[Path, Path]:
    """The file of the spellings and the same file with its ids renamed."""
    suffix = name[name.index(".") :]
    stem = name[: name.index(".")]
    return (
        _write(folder / name, columns),
        _write(folder / f"{stem}-renamed{suffix}", _renamed(columns)),
    )


def _log() -> dict[str, list[object]]:
    rng = np.random.default_rng(3)
    rows = [(u, i) for u in USERS for i in ITEMS]
    return {
        "user": [u for u, _ in rows],
        "item": [i for _, i in rows],
        "score": np.round(rng.random(len(rows)), 2).tolist(),
        "grade": rng.integers(0, 3, len(rows)).tolist(),
        "click": [k % 2 for k in range(len(rows))],
        "time": list(range(len(rows))),
    }


def _back(value: object) -> object:
    names = {v: k for k, v in RENAMED.items()}
    return names.get(value, value) if isinstance(value, str) else value


def _per_user(report: receval.EvaluationReport) -> dict[str, dict[object, float]]:
    """Each metric's value of each user, the renamed users by their spellings."""
    users = [_back(u) for u in report.users.tolist()]
    return {m: dict(zip(users, v.tolist(), strict=True)) for m, v in report.values.items()}


@pytest.fixture(params=["log.csv", "log.tsv", "log.csv.gz"])
def twins(request, tmp_path) -> tuple[Path, Path]:
    return _twins(tmp_path, request.param, _log())


def test_read_table_keeps_the_spellings_as_ids(twins):
    spelled, renamed = twins
    columns = ["user", "item", "score"]
    table = io.read_table(spelled, columns, "f", None, ("user", "item"))
    assert table["user"].to_pylist() == _log()["user"]
    assert table["item"].to_pylist() == _log()["item"]
    other = io.read_table(renamed, columns, "f", None, ("user", "item"))
    assert table["score"].equals(other["score"])
    assert [_back(u) for u in other["user"].to_pylist()] == table["user"].to_pylist()


def test_qrels_and_run_from_file_equal_the_renamed_file(twins):
    spelled, renamed = twins
    qrels, run = Qrels.from_file(spelled), Run.from_file(spelled)
    assert set(run.to_dict()) == set(USERS)
    twin_q, twin_r = Qrels.from_file(renamed), Run.from_file(renamed)
    for mine, twin in ((qrels, twin_q), (run, twin_r)):
        assert mine.to_dict() == {
            _back(u): {_back(i): v for i, v in items.items()} for u, items in twin.to_dict().items()
        }
    metrics = ["ndcg@3", "mrr", "recall@2"]
    report = receval.evaluate(qrels, run, metrics)
    assert _per_user(report) == _per_user(receval.evaluate(twin_q, twin_r, metrics))
    assert report.n_users == len(USERS)


def test_a_scan_equals_the_renamed_file(twins):
    spelled, renamed = twins
    metrics = ["ndcg@3", "mrr"]
    scanned = receval.evaluate(Qrels.from_file(spelled), receval.scan(spelled).as_run(), metrics)
    twin = receval.evaluate(Qrels.from_file(renamed), receval.scan(renamed).as_run(), metrics)
    assert _per_user(scanned) == _per_user(twin) and scanned.n_users == len(USERS)

    def gauc(path: Path) -> float:
        s = receval.scan(path)
        return float(receval.gauc_score(s["click"], s["score"], groups=s["user"]))

    assert gauc(spelled) == gauc(renamed)


@pytest.mark.parametrize("out_of_core", [False, True])
def test_a_split_of_the_file_equals_the_renamed_file(twins, tmp_path, out_of_core):
    results = []
    for k, path in enumerate(twins):
        if out_of_core:
            paths = {"train_path": tmp_path / f"train{k}.csv", "test_path": tmp_path / f"t{k}.csv"}
            result = split.leave_last_out(receval.scan(path), n=1, time="time", **paths)
            text = pcsv.ConvertOptions(column_types={"user": pa.string(), "item": pa.string()})
            test = pcsv.read_csv(paths["test_path"], convert_options=text)
        else:
            result = split.leave_last_out(str(path), n=1, time="time")
            test = result.test
        users, items = (test.column(c).to_pylist() for c in ("user", "item"))
        results.append((result.summary(), users, items))
    (summary, users, items), (twin_summary, twin_users, twin_items) = results
    assert summary == twin_summary
    assert users == [_back(u) for u in twin_users] and sorted(users) == sorted(USERS)
    assert items == [_back(i) for i in twin_items]


@pytest.mark.parametrize("name", ["run.csv", "run.tsv", "run.csv.gz"])
@pytest.mark.parametrize("empty", ["", '""'])
def test_an_empty_id_is_still_refused_at_its_line(tmp_path, name, empty):
    columns = {"user": ["NA", "null", empty], "item": ["NA", "a", "b"], "score": [1, 2, 3]}
    path = _write(tmp_path / name, {**columns, "grade": [1, 0, 1], "click": [1, 0, 1]})
    said = rf"{name}:4: the 'user' column has no id in this row \(an empty field\)"
    for read in (Run.from_file, Qrels.from_file):
        with pytest.raises(InputValidationError, match=said):
            read(path)
    qrels = Qrels.from_dict({"NA": {"NA": 1}})
    with pytest.raises(InputValidationError, match=rf"{name}:4: Run: users contains missing"):
        receval.evaluate(qrels, receval.scan(path).as_run(), ["mrr"])
    s = receval.scan(path)
    with pytest.raises(InputValidationError, match=rf"{name}:4: gauc_score: groups contains"):
        receval.gauc_score(s["click"], s["score"], groups=s["user"])


@pytest.mark.parametrize("spelling", ["NaN", "nan", "NA", "null", "N/A", ""])
def test_a_number_column_reads_the_spellings_as_missing_values(tmp_path, spelling):
    # as before: a missing score, named at its line (never the float NaN, never text)
    columns = {"user": ["NA", "NA"], "item": ["a", "b"], "score": [0.5, spelling]}
    path = _write(tmp_path / "run.csv", {**columns, "click": [1, 0]})
    table = io.read_table(path, ["user", "score"], "f", None, ("user",))
    assert table["score"].type == pa.float64() and table["score"].null_count == 1
    with pytest.raises(InputValidationError, match=r"run\.csv:3: Run: scores contains missing"):
        Run.from_file(path)
    s = receval.scan(path)
    with pytest.raises(InputValidationError, match=r"run\.csv:3: roc_auc_score: y_score contains"):
        receval.roc_auc_score(s["click"], s["score"])


def test_the_ids_are_those_polars_and_pandas_without_default_nas_read(twins):
    # the readers the docs name: polars' read_csv (only an empty field is null) and
    # pandas' read_csv(keep_default_na=False) read the id columns as receval does
    import pandas as pd
    import polars as pl

    spelled, _ = twins
    sep = "\t" if spelled.name.endswith(".tsv") else ","
    table = io.read_table(spelled, ["user", "item"], "f", None, ("user", "item"))
    by_polars = pl.read_csv(
        spelled, separator=sep, schema_overrides={"user": pl.String, "item": pl.String}
    )
    by_pandas = pd.read_csv(spelled, sep=sep, keep_default_na=False, dtype=str)
    for name in ("user", "item"):
        assert table[name].to_pylist() == by_polars[name].to_list()
        assert table[name].to_pylist() == by_pandas[name].tolist()

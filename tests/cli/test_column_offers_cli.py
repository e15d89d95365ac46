"""A column not in a file, named by an option: the message offers only the file's
columns that could serve that option (exit 2, on stderr), or says that none can."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.csv as pcsv
import pyarrow.parquet as pq
import pytest

from tests.cli._helpers import invoke, make_runner

LOG = pa.table(
    {
        "user": [1, 2],
        "item": [3, 4],
        "click": [1, 0],
        "m1": [0.5, 0.2],
        "name": ["a", "b"],
        "timestamp": [10, 11],
    }
)
GOT = "Got columns ['user', 'item', 'click', 'm1', 'name', 'timestamp']"


def _write(table: pa.Table, path) -> str:
    if str(path).endswith(".parquet"):
        pq.write_table(table, path)
    else:
        pcsv.write_csv(table, path)
    return str(path)


def _refused(*args: object) -> str:
    result = invoke(make_runner(), *args, code=2)
    assert result.stdout == ""
    return result.stderr


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_a_missing_score_column_offers_the_columns_of_numbers_no_option_names(tmp_path, suffix):
    # "name one of them with --score": the ids, the text, the time and the label offered
    log = _write(LOG, tmp_path / f"log{suffix}")
    assert _refused("ctr", log, "--label", "click", "--score", "nope") == (
        f"error: {log}: no column 'nope' (--score nope). {GOT}; name one of ['m1'] with --score.\n"
    )
    assert _refused("ctr", log, "--label", "nope", "--score", "m1") == (
        f"error: {log}: no column 'nope' (--label nope). {GOT}; name one of ['click'] with "
        f"--label.\n"
    )


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_a_missing_weight_column_that_no_column_could_serve_says_so(tmp_path, suffix):
    log = _write(LOG, tmp_path / f"log{suffix}")
    assert _refused("ctr", log, "--label", "click", "--score", "m1", "--weight", "w") == (
        f"error: {log}: no column 'w' (--weight w). {GOT}, none of which could serve --weight "
        f"(it takes a column of numbers, no id or time, that no other option names); add that "
        f"column to the file.\n"
    )


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_a_missing_id_column_offers_the_columns_no_other_option_names(tmp_path, suffix):
    log = _write(LOG, tmp_path / f"log{suffix}")
    assert _refused("ctr", log, "--label", "click", "--score", "m1", "--by", "seg") == (
        f"error: {log}: no column 'seg' (--by seg). {GOT}; name one of ['user', 'item', "
        f"'name', 'timestamp'] with --by.\n"
    )
    args = ["ctr", log, "--label", "click", "--score", "m1", "--group", "uid", "-m", "gauc"]
    assert _refused(*args) == (
        f"error: {log}: no column 'uid' (--group uid). {GOT}; name one of ['user', 'item', "
        f"'name', 'timestamp'] with --group.\n"
    )


def test_audit_offers_the_run_columns_that_could_hold_its_scores(tmp_path):
    table = pa.table({"user": [1], "item": [2], "model": ["a"], "sc": [0.5]})
    run = _write(table, tmp_path / "r.csv")
    assert _refused("audit", "--run", run) == (
        f"error: {run}: no column 'score' (--score score). Got columns ['user', 'item', "
        f"'model', 'sc']; name one of ['sc'] with --score.\n"
    )

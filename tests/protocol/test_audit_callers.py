"""audit names itself in the errors of the run and test it reads (a mapping, a TREC
file), and a time column's missing values are named as the column holds them: a
pandas nullable integer's NA, an Arrow or polars null (not NaN)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

import receval
from receval.cli import app
from receval.exceptions import InputValidationError
from receval.split import ratio

NAN_SCORES = (
    "scores contains NaN or infinity, the first at position 0 (nan); drop those rows "
    "or replace the values with finite numbers first."
)


def test_audit_names_itself_for_a_run_mapping_with_nan_scores():
    with pytest.raises(InputValidationError) as info:
        receval.audit(run={"u": {"a": float("nan"), "b": 0.3}})
    assert str(info.value) == f"audit run: {NAN_SCORES}"
    with pytest.raises(InputValidationError) as info:
        receval.audit(test={"u": {"a": float("nan")}})
    assert str(info.value).startswith("audit test: grades contains NaN or infinity")


def test_audit_names_itself_for_a_trec_run_with_nan_scores(tmp_path):
    run = tmp_path / "run.trec"
    run.write_text("u Q0 a 1 nan x\nu Q0 b 2 0.3 x\n")
    said = f"{run}:1: audit run: the score 'nan' is not finite; scores must be finite numbers."
    with pytest.raises(InputValidationError) as info:
        receval.audit(run=str(run))
    assert str(info.value) == said
    result = CliRunner().invoke(app, ["audit", "--run", str(run)])
    assert result.exit_code == 2
    assert result.stderr.strip() == f"error: {said}"


def _log(times):
    pd = pytest.importorskip("pandas")
    return pd.DataFrame({"user": ["u", "v"], "item": ["a", "b"], "time": times})


def _frames():
    pd = pytest.importorskip("pandas")
    log = _log(pd.array([1, None], dtype="Int64"))
    yield "NA", log
    pa = pytest.importorskip("pyarrow")
    yield "null", pa.Table.from_pandas(log)
    pl = pytest.importorskip("polars")
    yield "null", pl.from_pandas(log)


def test_missing_integer_times_are_named_as_the_column_holds_them():
    pd = pytest.importorskip("pandas")
    test = _log(pd.array([5, 6], dtype="Int64"))
    fix = "the first at position 1; drop those rows or fill their time first."
    for what, log in _frames():
        with pytest.raises(InputValidationError) as info:
            receval.audit(train=log, test=test, time="time")
        assert str(info.value) == (
            f"audit: the 'time' column of train contains 1 missing value ({what}), {fix}"
        )
        with pytest.raises(InputValidationError) as info:
            ratio(log, 0.5, time="time")
        assert (
            str(info.value)
            == f"ratio: the time column 'time' contains 1 missing value ({what}), {fix}"
        )
    with pytest.raises(InputValidationError) as info:  # floats: their NaN is NaN
        ratio(_log([1.0, float("nan")]), 0.5, time="time")
    assert "1 missing value (NaN)" in str(info.value)

"""receval.report.json_values: the values every JSON document of receval holds."""

from __future__ import annotations

import datetime as dt
import json
import math

import numpy as np
import pytest

from receval.report.json_values import dumps, json_value, plain_value


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (math.nan, None),
        (math.inf, "Infinity"),
        (-math.inf, "-Infinity"),
        (np.float64("nan"), None),
        (np.float64("inf"), "Infinity"),
        (np.float32("-inf"), "-Infinity"),
        (np.float16("inf"), "Infinity"),
        (np.longdouble("-inf"), "-Infinity"),
    ],
)
def test_not_finite_floats(value, expected) -> None:
    assert json_value(value) == expected
    assert json.loads(dumps(value)) == expected


@pytest.mark.parametrize("value", [-0.0, 0.0, 1e308, -1e308, 5e-324, -5e-324, 0.1, 2.0**53 + 2])
def test_finite_floats_read_back_as_the_same_float(value) -> None:
    back = json.loads(dumps(value))
    assert type(back) is float and back == value
    assert math.copysign(1.0, back) == math.copysign(1.0, value)  # -0.0 keeps its sign


def test_numpy_floats_as_their_exact_python_float() -> None:
    for value in (np.float32(0.1), np.float16(0.1), np.float32(3.4e38), np.float16(6e-8)):
        got = json_value(value)
        assert type(got) is float and got == float(value)
        assert json.loads(dumps(value)) == float(value)


def test_nested_values_and_arrays() -> None:
    value = {
        "a": [1.0, math.nan, (math.inf, -math.inf)],
        2: {"b": np.array([0.5, np.nan, -np.inf]), "c": np.int64(3), "d": np.bool_(True)},
        "e": np.array([[1, 2], [3, 4]], dtype=np.int32),
        "f": np.array([[np.inf], [-0.0]], dtype=np.float32),
        "g": np.array(-np.inf),
        "h": [],
        "i": "text",
        "j": None,
    }
    expected = {
        "a": [1.0, None, ["Infinity", "-Infinity"]],
        "2": {"b": [0.5, None, "-Infinity"], "c": 3, "d": True},
        "e": [[1, 2], [3, 4]],
        "f": [["Infinity"], [-0.0]],
        "g": "-Infinity",
        "h": [],
        "i": "text",
        "j": None,
    }
    assert json_value(value) == expected
    assert json.loads(dumps(value)) == expected
    assert type(json_value(value)["2"]["c"]) is int


def test_dates_as_the_tables_write_them() -> None:
    value = [np.datetime64("2024-01-02T10:30"), dt.date(2024, 1, 2), dt.datetime(2024, 1, 2, 3)]
    assert json_value(value) == ["2024-01-02", "2024-01-02", "2024-01-02T03:00:00"]
    assert plain_value(np.datetime64("2024-01-02")) == "2024-01-02"
    assert plain_value("x") == "x" and plain_value(math.inf) == math.inf


def test_dumps_passes_the_layout_options() -> None:
    assert dumps({"a": [1, -math.inf]}, separators=(",", ":")) == '{"a":[1,"-Infinity"]}'
    assert dumps({"a": 1}, indent=2) == '{\n  "a": 1\n}'
    assert dumps("é", ensure_ascii=False) == '"é"' and dumps("é") == '"\\u00e9"'

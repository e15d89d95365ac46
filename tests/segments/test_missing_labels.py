"""A missing segment label, of any kind and in any form, is refused with one message.

None, NaN (Python's, NumPy's), NaT, pandas' NA and the nulls of Arrow and polars
are each a label that is not there: the error names the user whose label it is
(a mapping, a frame) or its position (one label per user, ``by`` of rows), says
what was expected and the fix, the same for every kind. NaN used to be named by
its position in a mapping while None was worded as an id, and the nulls of a
column of numbers had a third wording.
"""

import re

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import receval as rv
from receval.exceptions import InputValidationError

USERS = ["u1", "u2", "u3", "u4"]
MISSING = {
    "None": None,
    "nan": float("nan"),
    "numpy nan": np.float64("nan"),
    "pandas NA": pd.NA,
    "pandas NaT": pd.NaT,
    "numpy NaT": np.datetime64("NaT"),
}
BY_USER = (
    "EvaluationReport.by_segment: segments must give every user it names a segment label. "
    "Got 2 missing labels (None, NaN or null), the first for the user 'u2'; give those users "
    "a label, or leave them out of segments (a user without a segment counts in the overall "
    "value only)."
)
BY_POSITION = (
    "EvaluationReport.by_segment: segments must give every user a segment label. Got 2 "
    "missing labels (None, NaN or null), the first at position 1; fill them with a label, "
    "e.g. 'unknown', or give segments as a mapping {user: label} without those users."
)
BY_ROW = (
    "by_segment: by must give every row a segment label. Got 2 missing labels (None, NaN or "
    "null), the first at position 1; fill them with a label, e.g. 'unknown', or drop those "
    "rows."
)


@pytest.fixture(scope="module")
def report():
    qrels = {u: {"a": 1} for u in USERS}
    return rv.evaluate(qrels, {u: {"a": 0.9} for u in USERS}, ["mrr"])


def _refused(call, message: str, row: int = 1) -> None:
    with pytest.raises(InputValidationError, match=f"^{re.escape(message)}$") as caught:
        call()
    assert caught.value.row == row


def _labels(missing, strings: bool = True) -> list:
    """Labels of the four users, the second and fourth missing."""
    return ["a" if strings else 1, missing, "b" if strings else 2, missing]


@pytest.mark.parametrize("strings", [True, False], ids=["strings", "numbers"])
@pytest.mark.parametrize("kind", MISSING)
def test_a_mapping_names_the_user(report, kind, strings):
    segments = dict(zip(USERS, _labels(MISSING[kind], strings), strict=True))
    _refused(lambda: report.by_segment(segments), BY_USER)
    # compare_by_segment reads its by= as by_segment reads segments
    runs = {"x": {u: {"a": 0.9} for u in USERS}, "y": {u: {"a": 0.1} for u in USERS}}
    qrels = {u: {"a": 1} for u in USERS}
    by_user = BY_USER.replace("EvaluationReport.by_segment: segments", "compare_by_segment: by")
    _refused(lambda: rv.compare_by_segment(qrels, runs, ["mrr"], by=segments),
             by_user.replace("out of segments", "out of by"))  # fmt: skip


@pytest.mark.parametrize("strings", [True, False], ids=["strings", "numbers"])
@pytest.mark.parametrize("kind", MISSING)
def test_labels_per_user_name_the_position(report, kind, strings):
    labels = _labels(MISSING[kind], strings)
    _refused(lambda: report.by_segment(labels), BY_POSITION)
    _refused(lambda: report.by_segment(np.array(labels, dtype=object)), BY_POSITION)
    y, p = [1, 0, 1, 0], [0.9, 0.1, 0.4, 0.6]
    _refused(lambda: rv.by_segment("roc_auc", y, p, by=labels), BY_ROW)


def _columns() -> dict:
    """Columns of the four users' labels, the second and fourth missing, as each
    library holds a missing value."""
    return {
        "numpy float": np.array([1.0, np.nan, 2.0, np.nan]),
        "numpy datetime": np.array(["2024-01-01", "NaT", "2024-01-02", "NaT"], "datetime64[D]"),
        "pandas object": pd.Series(["a", None, "b", np.nan], dtype=object),
        "pandas float": pd.Series([1.0, np.nan, 2.0, np.nan]),
        "pandas Int64": pd.Series([1, None, 2, None], dtype="Int64"),
        "pandas string": pd.Series(["a", None, "b", None], dtype="string"),
        "pandas category": pd.Series(pd.Categorical(["a", None, "b", None])),
        "polars string": pl.Series(["a", None, "b", None]),
        "polars int": pl.Series([1, None, 2, None]),
        "polars float NaN": pl.Series([1.0, float("nan"), 2.0, None]),
        "polars category": pl.Series(["a", None, "b", None], dtype=pl.Categorical),
        "arrow string": pa.array(["a", None, "b", None]),
        "arrow int": pa.array([1, None, 2, None]),
        "arrow float NaN": pa.array([1.0, float("nan"), 2.0, None]),
        "arrow chunks": pa.chunked_array([pa.array([1, None]), pa.array([2, None])]),
        "arrow dictionary": pa.DictionaryArray.from_arrays(pa.array([0, 1, 2, 1]),
                                                           pa.array(["a", None, "b"])),
    }  # fmt: skip


@pytest.mark.parametrize("name", list(_columns()))
def test_every_column_kind_is_refused_alike(report, name):
    column = _columns()[name]
    _refused(lambda: report.by_segment(column), BY_POSITION)
    y, p = [1, 0, 1, 0], [0.9, 0.1, 0.4, 0.6]
    _refused(lambda: rv.by_segment("roc_auc", y, p, by=column), BY_ROW)


@pytest.mark.parametrize("name", list(_columns()))
def test_a_frame_names_the_user(report, name):
    column = _columns()[name]
    # a frame of the column's library (NumPy's: pandas')
    make = {"numpy": pd.DataFrame, "pandas": pd.DataFrame, "polars": pl.DataFrame,
            "arrow": pa.table}[name.split()[0]]  # fmt: skip
    frame = make({"user": USERS, "segment": column})
    _refused(lambda: report.by_segment(frame), BY_USER)


def test_a_label_that_is_there_still_segments(report):
    # a label that only looks missing is a label: the text 'nan', 0, False
    seg = report.by_segment({"u1": "nan", "u2": "None", "u3": "nan"})
    assert seg.segments.tolist() == ["None", "nan"] and seg.n_unassigned == 1
    assert report.by_segment([0, 0, 1, 1]).counts.tolist() == [2, 2]
    assert report.by_segment([False, True, True, True]).segments.tolist() == [False, True]

"""A label that is not finite is refused by one check, in one wording, by every binary
metric's function, accumulator and ``receval.compute`` (in memory and on a scan): an
infinite label is no class, and a NaN one is missing."""

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import receval as rv
from receval.exceptions import InputValidationError
from receval.registry import ENTRIES, load

# the metrics of binary labels that have an engine definition
BINARY = ["average_precision", "brier_score", "copc", "expected_calibration_error", "gauc",
          "grouped_auprc", "log_loss", "normalized_entropy", "pcoc", "pr_auc",
          "roc_auc"]  # fmt: skip
S, G = [0.9, 0.2, 0.4, 0.6, 0.3], [1, 1, 2, 2, 2]


def _calls(name, y_true):
    row = ENTRIES[name]
    function = load(row.function_path)
    groups = {"groups": G} if "groups" in row.inputs else {}
    return {
        "function": lambda: function(y_true, S, **groups),
        "accumulator": lambda: rv.metric(name).update(y_true, S, **groups).compute(),
        "compute": lambda: rv.compute(name, y_true, S, **groups),
    }


def _said(name, y_true):
    said = {}
    for backend, call in _calls(name, y_true).items():
        with pytest.raises(InputValidationError) as info:
            call()
        said[backend] = (str(info.value).split(": ", 1)[1], info.value.row)
    return said


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("bad", [np.inf, -np.inf])
def test_an_infinite_label_is_refused_in_one_wording_on_every_backend(name, bad):
    # before: roc_auc_score said "y_true has 3 classes [0.0, 1.0, inf] but y_score is
    # 1-dimensional", log_loss "y_true must have two classes", the accumulators
    # "y_true must be binary ...; pass pos_label"
    y_true = np.array([1.0, 0.0, bad, 0.0, bad])
    expected = (
        f"y_true must hold labels such as 0 and 1. Got 2 infinite values ({bad!r}), the "
        f"first at position 2; drop those rows or fix their labels first.",
        2,
    )
    assert _said(name, y_true) == dict.fromkeys(("function", "accumulator", "compute"), expected)


@pytest.mark.parametrize("name", BINARY)
def test_a_nan_label_is_refused_as_missing_in_one_wording_on_every_backend(name):
    y_true = np.array([1.0, 0.0, np.nan, 0.0, np.inf])  # NaN first: missing, whatever else
    expected = ("y_true contains 1 missing value (NaN), the first at position 2; drop or "
                "fill them first.", 2)  # fmt: skip
    assert _said(name, y_true) == dict.fromkeys(("function", "accumulator", "compute"), expected)


def test_an_infinite_label_of_a_scan_is_refused_as_in_memory(tmp_path):
    path = tmp_path / "rows.parquet"
    pq.write_table(pa.table({"y": [1.0, 0.0, np.inf, 0.0, 1.0], "s": S}), path)
    scan = rv.scan(path)
    for name in ("roc_auc", "log_loss"):
        with pytest.raises(InputValidationError) as info:
            rv.compute(name, scan["y"], scan["s"])
        assert str(info.value) == (
            f"{path}: row 3: receval.compute({name!r}): y_true must hold labels such as 0 and "
            f"1. Got infinite values (inf), the first in this row; drop those rows or fix their "
            f"labels first."
        )  # a batch's count is not the file's: the count is left out, as of missing labels

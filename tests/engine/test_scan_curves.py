"""Curves of ``receval.scan`` columns: ROC and precision-recall from the counts per
distinct score that the areas read (the in-memory points); the reliability curve,
whose bins' means no batch keeps, is refused with what to do instead."""

from __future__ import annotations

import os

import numpy as np
import pyarrow as pa
import pyarrow.csv as pcsv
import pyarrow.parquet as pq
import pytest

from receval import (
    InputValidationError,
    calibration_curve,
    expected_calibration_error,
    precision_recall_curve,
    roc_curve,
    scan,
)


def _write(directory, data, fmt):
    path = os.path.join(directory, f"rows.{fmt}")
    table = pa.table(data)
    pq.write_table(table, path, row_group_size=97) if fmt == "parquet" else pcsv.write_csv(
        table, path
    )
    return path


def _rows(n=700, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    score = np.where(rng.random(n) < 0.5, rng.choice([0.1, 0.5, -0.0, 0.0], n), rng.random(n))
    weight = rng.integers(0, 4, n) / 3  # rows of weight 0 too
    return {"y": y, "score": score, "weight": weight}


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
@pytest.mark.parametrize("curve", [roc_curve, precision_recall_curve])
@pytest.mark.parametrize("batch_rows", [1, 64, 10**6])
def test_curves_of_scan_columns_equal_the_curves_in_memory(tmp_path, fmt, curve, batch_rows):
    d = _rows()
    s = scan(_write(str(tmp_path), d, fmt), batch_rows=batch_rows)
    for got, expected in zip(curve(s["y"], s["score"]), curve(d["y"], d["score"]), strict=True):
        np.testing.assert_array_equal(got, expected)
    # a score's weights summed exactly: rates equal to the last bits (so every point is
    # compared: which points lie on a straight stretch is a test of those bits)
    kept = {"drop_intermediate": False}
    weighted = curve(s["y"], s["score"], sample_weight=s["weight"], **kept)
    for got, expected in zip(
        weighted, curve(d["y"], d["score"], sample_weight=d["weight"], **kept), strict=True
    ):
        np.testing.assert_allclose(got, expected, rtol=1e-14, atol=0)


def test_curves_of_scan_columns_take_their_options(tmp_path):
    d = _rows()
    labels = np.where(d["y"] == 1, "click", "skip")
    s = scan(_write(str(tmp_path), {"y": labels, "score": d["score"]}, "parquet"), batch_rows=50)
    got = roc_curve(s["y"], s["score"], pos_label="click", drop_intermediate=False)
    expected = roc_curve(labels, d["score"], pos_label="click", drop_intermediate=False)
    for a, b in zip(got, expected, strict=True):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(InputValidationError, match=r"rows\.parquet: roc_curve: y_true takes"):
        roc_curve(s["y"], s["score"])  # string labels without pos_label: at the first batch


def test_calibration_curve_refuses_scan_columns_and_names_what_reads_them(tmp_path):
    d = _rows()
    path = _write(str(tmp_path), {"y": d["y"], "p": np.clip(d["score"], 0, 1)}, "csv")
    s = scan(path)
    with pytest.raises(InputValidationError) as info:
        calibration_curve(s["y"], s["p"])
    assert str(info.value) == (
        f"calibration_curve: y_true and y_prob are columns of a receval.scan, which "
        f"calibration_curve does not read out of core. Got columns of {path}; read them into "
        f"memory first (e.g. pyarrow.csv.read_csv or pyarrow.parquet.read_table), or use "
        f"expected_calibration_error, which reads them batch by batch."
    )
    assert expected_calibration_error(s["y"], s["p"]) == expected_calibration_error(
        d["y"], np.clip(d["score"], 0, 1)
    )


@pytest.mark.parametrize("curve", [roc_curve, precision_recall_curve])
def test_curves_of_labels_of_far_apart_weights_equal_the_curves_in_memory(tmp_path, curve):
    # each label's weights in a unit of its own: the counts of the two are scaled
    # into one unit before the curve mixes them (precision) or divides each (rates)
    data = {
        "y": np.array([0, 1, 0, 1, 1, 0]),
        "score": np.array([0.9, 0.8, 0.7, 0.1, 0.5, 0.5]),
        "weight": np.array([1e-10, 1e50, 1.0, 1.0, 3e49, 2.0]),
    }
    columns = scan(_write(tmp_path, data, "parquet"))
    got = curve(columns["y"], columns["score"], sample_weight=columns["weight"])
    want = curve(data["y"], data["score"], sample_weight=data["weight"])
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-14)

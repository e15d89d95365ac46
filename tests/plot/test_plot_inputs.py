"""receval.plot refuses what it cannot draw with receval's errors, naming the function called."""

from __future__ import annotations

import matplotlib
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt

import receval.plot as rp
from receval import retention
from receval.exceptions import InputValidationError, InvalidParameterError


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _report():
    events = {"user": ["a", "b", "a"], "time": ["2024-01-01", "2024-01-01", "2024-01-02"]}
    return retention(events, days=1)


AX_FIX = "e.g. fig, ax = matplotlib.pyplot.subplots(), or leave it None to draw on a new figure."


@pytest.mark.parametrize(
    ("func", "call"),
    [
        ("roc", lambda ax: rp.roc([0, 1], [0.1, 0.9], ax=ax)),
        ("precision_recall", lambda ax: rp.precision_recall([0, 1], [0.1, 0.9], ax=ax)),
        ("calibration", lambda ax: rp.calibration([0, 1], [0.1, 0.9], ax=ax)),
        ("metric_at_k", lambda ax: rp.metric_at_k({"u": {"a": 1}}, {"u": {"a": 1.0}}, ax=ax)),
        ("long_tail", lambda ax: rp.long_tail({"u": {"a": 1.0}}, popularity={"a": 1}, ax=ax)),
        ("retention_heatmap", lambda ax: rp.retention_heatmap(_report(), ax=ax)),
        ("retention_curve", lambda ax: rp.retention_curve(_report(), ax=ax)),
        ("RocCurveDisplay.from_predictions",
         lambda ax: rp.RocCurveDisplay.from_predictions([0, 1], [0.1, 0.9], ax=ax)),
        ("RetentionCurveDisplay.from_report",
         lambda ax: rp.RetentionCurveDisplay.from_report(_report(), ax=ax)),
    ],
)  # fmt: skip
def test_ax_that_is_not_an_axes_is_named(func, call):
    with pytest.raises(InvalidParameterError) as info:
        call("foo")
    assert str(info.value) == (
        f"The 'ax' parameter of {func} must be a matplotlib Axes or None. Got str instead; {AX_FIX}"
    )
    assert plt.get_fignums() == []  # refused before any figure


def test_a_display_redrawn_on_a_bad_ax_names_its_plot():
    display = rp.RocCurveDisplay.from_predictions([0, 1], [0.1, 0.9])
    with pytest.raises(InvalidParameterError, match=r"'ax' parameter of RocCurveDisplay\.plot "):
        display.plot(ax=3)


def test_retention_plots_refuse_what_is_not_a_report():
    fix = "pass what receval.retention(events) returns."
    with pytest.raises(InvalidParameterError) as info:
        rp.retention_heatmap({"a": 1})
    assert str(info.value) == (
        f"The 'report' parameter of retention_heatmap must be a RetentionReport. Got dict "
        f"instead; {fix}"
    )
    with pytest.raises(InvalidParameterError) as info:
        rp.retention_curve({"a": [1], "b": _report()})
    assert str(info.value) == (
        "The 'report' parameter of retention_curve must be a RetentionReport or a dict of "
        f"them. Got list for 'a' instead; {fix}"
    )
    with pytest.raises(InvalidParameterError, match=r"retention_curve must be .* Got list inst"):
        rp.retention_curve([_report()])
    with pytest.raises(InvalidParameterError, match=r"of RetentionHeatmapDisplay.from_report "):
        rp.RetentionHeatmapDisplay.from_report(None)


def test_roc_and_precision_recall_draw_scan_columns_as_arrays(tmp_path):
    import numpy as np
    import pyarrow as pa
    import pyarrow.csv as pcsv

    from receval import scan

    rng = np.random.default_rng(1)
    y, s = rng.integers(0, 2, 200), np.round(rng.random(200), 1)
    path = str(tmp_path / "rows.csv")
    pcsv.write_csv(pa.table({"y": y, "s": s}), path)
    sc = scan(path, batch_rows=30)
    for draw in (rp.roc, rp.precision_recall):
        got, expected = draw(sc["y"], {"m": sc["s"]}), draw(y, {"m": s})
        assert [line.get_label() for line in got.lines] == [
            line.get_label() for line in expected.lines
        ]
        for a, b in zip(got.lines, expected.lines, strict=True):
            np.testing.assert_array_equal(a.get_xydata(), b.get_xydata())
    with pytest.raises(InputValidationError, match=r"columns of a receval\.scan"):
        rp.calibration(sc["y"], sc["s"])


def test_scan_column_errors_name_the_plot_called_and_the_scores(tmp_path):
    # they named the curve the plot computes: 'roc_curve: y_true must be binary',
    # 'precision_recall_curve: y_score contains NaN', 'y_score is a column of ...'
    import pyarrow as pa
    import pyarrow.parquet as pq

    from receval import scan

    path = str(tmp_path / "rows.parquet")
    pq.write_table(pa.table({"y": [0, 1, 2, 1], "ok": [0, 1, 0, 1],
                             "s": [0.1, 0.9, float("nan"), 0.8]}), path)  # fmt: skip
    sc = scan(path)
    binary = "must be binary. Got values [0, 1, 2]; pass pos_label to say which value is positive."
    for func, draw in (
        ("roc", rp.roc),
        ("precision_recall", rp.precision_recall),
        ("RocCurveDisplay.from_predictions", rp.RocCurveDisplay.from_predictions),
        ("PrecisionRecallDisplay.from_predictions",
         rp.PrecisionRecallDisplay.from_predictions),
    ):  # fmt: skip
        with pytest.raises(InputValidationError) as info:
            draw(sc["y"], {"m": sc["ok"]})
        assert str(info.value) == f"{path}: row 3: {func}: y_true {binary}"
        with pytest.raises(InputValidationError) as info:
            draw(sc["ok"], {"m": sc["s"]})
        assert str(info.value) == (
            f"{path}: row 3: {func}: scores['m'] contains NaN or infinity, the first in this "
            "row (nan); drop those rows or replace the values with finite numbers first."
        )
        with pytest.raises(InputValidationError) as info:
            draw([0, 1, 0, 1], sc["ok"])
        assert str(info.value).startswith(
            f"{func}: scores is a column of a receval.scan(...) but y_true is not."
        )
    assert plt.get_fignums() == []


def test_curves_take_the_pos_label_their_metrics_take():
    import numpy as np

    from receval import (
        average_precision_score,
        calibration_curve,
        pcoc,
        precision_recall_curve,
        roc_auc_score,
        roc_curve,
    )

    y = np.array(["no", "yes", "yes", "no", "yes", "no"])
    s = np.array([0.1, 0.8, 0.4, 0.35, 0.9, 0.6])
    clicks = (y == "yes").astype(int)
    with pytest.raises(InputValidationError) as info:
        rp.roc(y, s)
    assert str(info.value) == (
        "roc: y_true takes values ['no', 'yes'] and pos_label is not specified; pass "
        "pos_label, e.g. pos_label='yes'."
    )
    ax = rp.roc(y, s, pos_label="yes")
    fpr, tpr, _ = roc_curve(y, s, pos_label="yes")
    np.testing.assert_array_equal(ax.lines[0].get_xydata(), np.column_stack([fpr, tpr]))
    assert ax.lines[0].get_label() == f"AUC = {roc_auc_score(y, s, pos_label='yes'):.4f}"
    ax = rp.precision_recall(y, s, pos_label="no")  # the other class positive
    precision, recall, _ = precision_recall_curve(y, s, pos_label="no")
    np.testing.assert_array_equal(ax.lines[0].get_xydata(), np.column_stack([recall, precision]))
    assert (
        ax.lines[0]
        .get_label()
        .startswith(f"AP = {average_precision_score(y, s, pos_label='no'):.4f}")
    )
    ax = rp.calibration(y, s, pos_label="yes", n_bins=2)
    prob_true, _ = calibration_curve(y, s, pos_label="yes", n_bins=2)
    np.testing.assert_array_equal(ax.lines[0].get_ydata(), prob_true)
    assert ax.lines[0].get_label() == f"PCOC = {pcoc(clicks, s):.4f}"
    d = rp.RocCurveDisplay.from_predictions(y, {"m": s}, pos_label="yes")
    assert d.roc_auc == {"m": roc_auc_score(clicks, s)}


def test_errors_name_the_function_called_and_the_model():
    with pytest.raises(InputValidationError) as info:
        rp.roc([0, 1, 1], {"a": [0.1, 0.3, 0.5], "b": [0.2, 0.1]})
    assert str(info.value) == (
        "roc: y_true and scores['b'] must have the same length. Got lengths [3, 2]."
    )
    with pytest.raises(InputValidationError, match=r"^precision_recall: scores contains NaN"):
        rp.precision_recall([0, 1, 1], [0.1, float("nan"), 0.3])
    with pytest.raises(InvalidParameterError, match=r"^The 'n_bins' parameter of calibration "):
        rp.calibration([0, 1], [0.1, 0.9], n_bins=0)
    with pytest.raises(InputValidationError, match=r"^calibration: scores\['m'\] must contain"):
        rp.calibration([0, 1], {"m": [0.1, 2.0]})
    with pytest.raises(InputValidationError, match=r"^RocCurveDisplay.from_predictions: y_true"):
        rp.RocCurveDisplay.from_predictions([0, 1, 1], [0.1, 0.2])


def test_metric_at_k_names_itself_for_its_conventions_and_metrics():
    qrels, run = {"u": {"a": 1}}, {"u": {"a": 0.5, "b": 0.1}}
    with pytest.raises(InvalidParameterError) as info:
        rp.metric_at_k(qrels, run, ties="foo", ks=[1, 2])
    assert str(info.value).startswith("The 'ties' parameter of metric_at_k must be one of [")
    with pytest.raises(InvalidParameterError, match=r"'profile' parameter of metric_at_k"):
        rp.metric_at_k(qrels, run, profile="nope", ks=[1])
    with pytest.raises(InvalidParameterError) as info:
        rp.metric_at_k(qrels, run, metrics=["ndcg", "auc"], ks=[1, 2])
    assert str(info.value) == (
        "The 'metrics' parameter of metric_at_k must hold metrics that take a cut-off @k. "
        "Got 'auc' (roc_auc), which takes none; e.g. 'ndcg' or 'recall'."
    )
    with pytest.raises(InvalidParameterError, match=r"^metric_at_k: unknown option 'tie'\. "):
        rp.metric_at_k(qrels, run, tie="average", ks=[1])
    with pytest.raises(InvalidParameterError, match=r"'qrels' parameter of metric_at_k must"):
        rp.metric_at_k(3, run, ks=[1])
    assert plt.get_fignums() == []


def test_calibration_plots_the_bins_of_calibration_curve_by_default():
    import inspect

    import numpy as np

    from receval import calibration_curve

    default = inspect.signature(calibration_curve).parameters["n_bins"].default
    for func in (rp.calibration, rp.CalibrationDisplay.from_predictions):
        assert inspect.signature(func).parameters["n_bins"].default == default == 5
    y, p = [0, 0, 1, 1, 1, 0, 1], [0.05, 0.15, 0.35, 0.55, 0.75, 0.85, 0.95]
    np.testing.assert_array_equal(rp.calibration(y, p).lines[0].get_ydata(),
                                  calibration_curve(y, p)[0])  # fmt: skip


def test_roc_and_precision_recall_read_scan_columns_once(tmp_path, monkeypatch):
    # the curve, the AUC, AP and the break-even point are one state: one pass each
    # model (they read the file twice (roc) and three times (precision_recall))
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    from receval import average_precision_score, break_even_point, roc_auc_score, scan
    from receval.data.scan import Scan

    rng = np.random.default_rng(3)
    y, s, w = rng.integers(0, 2, 300), np.round(rng.random(300), 2), rng.random(300)
    path = str(tmp_path / "rows.parquet")
    pq.write_table(pa.table({"y": y, "s": s, "w": w}), path)
    passes = []
    batches = Scan.batches
    monkeypatch.setattr(
        Scan, "batches", lambda self, *a, **k: (passes.append(1), batches(self, *a, **k))[1]
    )
    sc = scan(path, batch_rows=50)
    display = rp.RocCurveDisplay.from_predictions(sc["y"], {"m": sc["s"]}, sample_weight=sc["w"])
    assert len(passes) == 1
    assert display.roc_auc == {"m": roc_auc_score(y, s, sample_weight=w)}
    passes.clear()
    display = rp.PrecisionRecallDisplay.from_predictions(sc["y"], sc["s"])
    assert len(passes) == 1
    assert display.average_precision == {None: average_precision_score(y, s)}
    assert display.break_even == {None: break_even_point(y, s)}


def test_a_one_class_curve_warns_once_naming_the_plot():
    # it warned again from roc_auc_score / average_precision_score / break_even_point
    import warnings

    from receval.exceptions import UndefinedMetricWarning

    for draw, func in ((rp.roc, "roc"), (rp.precision_recall, "precision_recall")):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            draw([0, 0, 0], [0.1, 0.5, 0.9])
        messages = [str(w.message) for w in caught if w.category is UndefinedMetricWarning]
        assert len(messages) == 1, messages
        assert messages[0].startswith(f"{func}: y_true has no positive sample")

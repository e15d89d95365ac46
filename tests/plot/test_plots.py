"""receval.plot: lines, labels and values drawn equal receval's numbers; lazy import."""

from __future__ import annotations

import subprocess
import sys

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt

import receval
from receval import (
    Run,
    average_precision_score,
    break_even_point,
    calibration_curve,
    evaluate,
    pcoc,
    precision_recall_curve,
    retention,
    roc_auc_score,
    roc_curve,
)
from receval.exceptions import (
    InputValidationError,
    InvalidParameterError,
)
from receval.plot import (
    calibration,
    metric_at_k,
    precision_recall,
    retention_curve,
    retention_heatmap,
    roc,
)
from tests._fresh import fresh


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _clicks(n=300, seed=0):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(int)
    good = np.clip(0.3 * y + rng.random(n) * 0.7, 0, 1)
    bad = np.round(rng.random(n), 1)  # ties
    w = rng.integers(1, 4, n).astype(float)
    return y, {"good": good, "bad": bad}, w


def _labels(ax):
    return [line.get_label() for line in ax.lines if not line.get_label().startswith("_")]


# ----------------------------------------------------------------- import
def test_import_does_not_load_matplotlib():
    code = "import receval, receval.plot, sys; assert 'matplotlib' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_import_loads_no_metric_no_engine_and_no_numpy():
    # the plots load the metrics and NumPy when they draw; the default bins are read
    # from receval._parameters, not from receval.metrics._calibration (which loads
    # the engine, the data readers and the registry)
    _, modules = fresh("import receval.plot")
    heavy = ("receval.metrics", "receval.engine", "receval.data", "receval.registry",
             "receval._validation", "receval._core")  # fmt: skip
    assert {m for m in modules if m.startswith(heavy)} == set()
    assert {m for m in modules if m.split(".")[0] == "numpy"} == set()
    assert "receval.plot._curves" in modules


def test_missing_matplotlib_raises_clear_import_error():
    code = (
        "import sys; sys.modules['matplotlib'] = None; sys.modules['matplotlib.pyplot'] = None\n"
        "from receval.plot import roc\n"
        "try:\n"
        "    roc([0, 1], [0.1, 0.9])\n"
        "except ImportError as e:\n"
        "    assert str(e) == \"receval.plot needs matplotlib; pip install 'receval[plot]'.\", e\n"
        "else:\n"
        "    raise SystemExit('no ImportError')\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_public_names():
    import receval.plot as rp

    assert rp.__all__ == [
        "CalibrationDisplay",
        "LongTailDisplay",
        "MetricAtKDisplay",
        "PrecisionRecallDisplay",
        "RetentionCurveDisplay",
        "RetentionHeatmapDisplay",
        "RocCurveDisplay",
        "calibration",
        "long_tail",
        "metric_at_k",
        "precision_recall",
        "retention_curve",
        "retention_heatmap",
        "roc",
    ]
    assert not hasattr(receval, "roc") and "roc" not in receval.__all__
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        rp.nope  # noqa: B018


# ----------------------------------------------------------------- ROC
def test_roc_lines_labels_and_points():
    y, scores, w = _clicks()
    ax = roc(y, scores, sample_weight=w)
    assert _labels(ax) == [
        f"good (AUC = {roc_auc_score(y, scores['good'], sample_weight=w):.4f})",
        f"bad (AUC = {roc_auc_score(y, scores['bad'], sample_weight=w):.4f})",
        "chance",
    ]
    for line, s in zip(ax.lines, scores.values(), strict=False):
        fpr, tpr, _ = roc_curve(y, s, sample_weight=w)
        np.testing.assert_array_equal(line.get_xdata(), fpr)
        np.testing.assert_array_equal(line.get_ydata(), tpr)
    np.testing.assert_array_equal(ax.lines[2].get_xydata(), [[0, 0], [1, 1]])
    assert ax.get_legend() is not None


def test_roc_single_array_and_given_axes():
    y, scores, _ = _clicks()
    fig, ax = plt.subplots()
    out = roc(y, scores["good"], ax=ax)
    assert out is ax and fig.axes == [ax]
    assert _labels(ax) == [f"AUC = {roc_auc_score(y, scores['good']):.4f}", "chance"]
    # a second call on the same axes adds lines
    roc(y, {"bad": scores["bad"]}, ax=ax)
    assert len(ax.lines) == 4


def test_roc_errors_come_from_receval():
    with pytest.raises(InputValidationError, match="same length"):
        roc([0, 1, 1], {"m": [0.1, 0.2]})
    with pytest.raises(InvalidParameterError, match="'scores' parameter of roc"):
        roc([0, 1], {})


# ----------------------------------------------------------------- P-R
def test_precision_recall_labels_curves_and_break_even_marker():
    y, scores, w = _clicks()
    ax = precision_recall(y, scores, sample_weight=w)
    expected = []
    for s in scores.values():
        ap = average_precision_score(y, s, sample_weight=w)
        bep = break_even_point(y, s, sample_weight=w)
        expected.append((ap, bep))
    prevalence = w[y == 1].sum() / w.sum()
    assert _labels(ax) == [
        f"{name} (AP = {ap:.4f}, BEP = {bep:.4f})"
        for name, (ap, bep) in zip(scores, expected, strict=True)
    ] + [f"prevalence = {prevalence:.4f}"]
    assert len(ax.lines) == 5  # a curve and its marker per model, then the prevalence
    np.testing.assert_allclose(ax.lines[4].get_ydata(), [prevalence, prevalence], rtol=1e-15)
    for i, s in enumerate(scores.values()):
        curve, marker = ax.lines[2 * i], ax.lines[2 * i + 1]
        precision, recall, _ = precision_recall_curve(y, s, sample_weight=w)
        np.testing.assert_array_equal(curve.get_xdata(), recall)
        np.testing.assert_array_equal(curve.get_ydata(), precision)
        assert curve.get_drawstyle() == "steps-post"
        bep = expected[i][1]
        np.testing.assert_array_equal(marker.get_xydata(), [[bep, bep]])
        assert marker.get_marker() == "o" and marker.get_linestyle() == "None"
        assert marker.get_color() == curve.get_color()


def test_break_even_marker_hand_computed():
    # 1 hit in the top 2 (2 positives): precision = recall = 0.5
    ax = precision_recall([1, 0, 1, 0, 0], [0.9, 0.8, 0.7, 0.2, 0.1])
    assert _labels(ax) == ["AP = 0.8333, BEP = 0.5000", "prevalence = 0.4000"]
    np.testing.assert_array_equal(ax.lines[1].get_xydata(), [[0.5, 0.5]])


# ----------------------------------------------------------------- calibration
@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_calibration_lines_and_pcoc(strategy):
    y, scores, w = _clicks()
    ax = calibration(y, scores, n_bins=5, strategy=strategy, sample_weight=w)
    assert _labels(ax) == [
        f"{name} (PCOC = {pcoc(y, s, sample_weight=w):.4f})" for name, s in scores.items()
    ] + ["perfectly calibrated"]
    for line, s in zip(ax.lines, scores.values(), strict=False):
        prob_true, prob_pred = calibration_curve(y, s, n_bins=5, strategy=strategy, sample_weight=w)
        np.testing.assert_array_equal(line.get_xdata(), prob_pred)
        np.testing.assert_array_equal(line.get_ydata(), prob_true)


def test_calibration_single_array_default_bins():
    y, scores, _ = _clicks()
    ax = calibration(y, scores["good"])
    prob_true, _ = calibration_curve(y, scores["good"])  # the same default bins (5)
    np.testing.assert_array_equal(ax.lines[0].get_ydata(), prob_true)
    assert _labels(ax)[0] == f"PCOC = {pcoc(y, scores['good']):.4f}"
    with pytest.raises(InvalidParameterError, match="strategy"):
        calibration(y, scores["good"], strategy="bogus")


# ----------------------------------------------------------------- metric@k
def _ranking(seed=0, n_users=30, n_items=40):
    rng = np.random.default_rng(seed)
    qrels = {
        f"u{u}": {f"i{i}": int(rng.integers(1, 3)) for i in rng.choice(n_items, 4, replace=False)}
        for u in range(n_users)
    }
    run_a = {
        f"u{u}": {f"i{i}": float(rng.random()) for i in range(n_items)} for u in range(n_users)
    }
    run_b = {u: {i: -s for i, s in items.items()} for u, items in run_a.items()}
    return qrels, run_a, run_b


def test_metric_at_k_lines_equal_evaluate_means():
    qrels, run_a, run_b = _ranking()
    ks = range(1, 21)
    ax = metric_at_k(qrels, {"a": run_a, "b": Run.from_dict(run_b)}, ks=ks)
    assert _labels(ax) == ["a: ndcg", "a: recall", "b: ndcg", "b: recall"]
    for line, run in zip(ax.lines, [run_a, run_a, run_b, run_b], strict=True):
        metric = line.get_label().split(": ")[1]
        np.testing.assert_array_equal(line.get_xdata(), list(ks))
        for k in (1, 5, 20):
            mean = evaluate(qrels, run, [f"{metric}@{k}"]).mean[f"{metric}@{k}"]
            assert line.get_ydata()[k - 1] == pytest.approx(mean, abs=1e-12)


def test_metric_at_k_one_evaluate_call_per_model(monkeypatch):
    import receval.ranking.evaluation as ev

    calls = []
    real = ev.evaluate_as

    def spy(func, qrels, run, metrics, **kw):
        calls.append((list(metrics), kw))
        return real(func, qrels, run, metrics, **kw)

    monkeypatch.setattr(ev, "evaluate_as", spy)
    qrels, run_a, run_b = _ranking()
    metric_at_k(qrels, {"a": run_a, "b": run_b}, metrics=["map"], ks=[10, 1, 5, 5], gain="linear")
    assert [c[0] for c in calls] == [["map@1", "map@5", "map@10"]] * 2
    assert calls[0][1] == {"gain": "linear"}


def test_metric_at_k_single_run_inputs_and_conventions():
    qrels, run_a, _ = _ranking()
    ax = metric_at_k(qrels, run_a, metrics="ndcg", ks=[3, 10], gain="exponential")
    assert _labels(ax) == ["ndcg"]
    mean = evaluate(qrels, run_a, ["ndcg@10"], gain="exponential").mean["ndcg@10"]
    assert ax.lines[0].get_ydata()[1] == pytest.approx(mean, abs=1e-12)
    named = Run.from_dict(run_a, name="bm25")
    _, ax2 = plt.subplots()
    assert metric_at_k(qrels, named, metrics="ndcg", ks=[3], ax=ax2) is ax2
    assert _labels(ax2) == ["bm25: ndcg"]


def test_metric_at_k_dataframe_run():
    import pandas as pd

    qrels, run_a, _ = _ranking()
    rows = [(u, i, s) for u, items in run_a.items() for i, s in items.items()]
    frame = pd.DataFrame(rows, columns=["user", "item", "score"])
    ax = metric_at_k(qrels, {"frame": frame, "dict": run_a}, metrics=["recall"], ks=[5])
    np.testing.assert_array_equal(ax.lines[0].get_ydata(), ax.lines[1].get_ydata())


def test_metric_at_k_counts_and_names_the_users_it_leaves_out():
    # u2 has no relevant item (skipped by empty_users="skip" at every k); u3 has
    # its relevant item at rank 2 (left at 0 and skipped by zero_users="skip" at k=1)
    from receval.plot import MetricAtKDisplay

    qrels = {"u1": {"a": 1}, "u2": {"b": 0}, "u3": {"c": 1}}
    run = {"u1": {"a": 0.9, "b": 0.1}, "u2": {"b": 0.5}, "u3": {"d": 0.8, "c": 0.4}}
    display = MetricAtKDisplay.from_runs(qrels, {"m": run}, metrics=["recall"], ks=[1, 2])
    assert display.n_users_skipped == {("m", "recall"): [1, 1]}
    for k in (1, 2):
        report = evaluate(qrels, run, [f"recall@{k}"])
        assert report.n_users_skipped[f"recall@{k}"] == 1
    assert _labels(display.ax_) == ["m: recall (1 user skipped)"]
    ax = metric_at_k(qrels, run, metrics=["recall", "ndcg"], ks=[1, 2], zero_users="skip")
    assert _labels(ax) == ["recall (1 to 2 users skipped)", "ndcg (1 to 2 users skipped)"]
    # none left out: the label alone
    del qrels["u2"]
    assert _labels(metric_at_k(qrels, run, metrics="recall", ks=[1, 2])) == ["recall"]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"metrics": "ndcg@10"}, "without '@k'"),
        ({"metrics": []}, "at least one metric"),
        ({"ks": [0, 1]}, "'ks' parameter of metric_at_k"),
        ({"ks": []}, "at least one positive integer"),
        ({"ks": 10}, "sequence of positive integers"),
        ({"metrics": ["ndgc"]}, "Did you mean 'ndcg'"),
    ],
)
def test_metric_at_k_errors(kwargs, match):
    qrels, run_a, _ = _ranking()
    with pytest.raises(InvalidParameterError, match=match):
        metric_at_k(qrels, run_a, **kwargs)


# ----------------------------------------------------------------- retention
def _report(days=(1, 2, 3)):
    rng = np.random.default_rng(3)
    n = 400
    users = rng.integers(0, 80, n)
    day = np.minimum(users // 10 + rng.integers(0, 5, n), 9)
    day[day == 4] = 5  # day 4: no event, an empty cohort
    time = np.datetime64("2024-01-01") + day.astype("timedelta64[D]")
    return retention({"user": users, "time": time}, days=days)


@pytest.mark.parametrize("values", ["rate", "count"])
def test_retention_heatmap_masks_unobserved_cells(values):
    report = _report()
    ax = retention_heatmap(report, values=values)
    data = ax.images[0].get_array()
    n = report.n_periods
    table = report.cohort_retention if values == "rate" else report.cohort_counts
    offset = np.arange(n)
    unobserved = offset[:, None] + offset[None, :] >= n
    expected_mask = unobserved | (np.isnan(table) if values == "rate" else False)
    np.testing.assert_array_equal(np.ma.getmaskarray(data), expected_mask)
    np.testing.assert_array_equal(data.data[~expected_mask], table[~expected_mask])
    assert not unobserved[-1, 0] and unobserved[-1, 1:].all()  # last cohort: column 0 only
    if values == "rate":
        assert report.new_users[4] == 0 and np.ma.getmaskarray(data)[4].all()
    # colorbar: a second axes in the figure
    assert len(ax.figure.axes) == 2
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == [str(p) for p in report.periods]


def test_retention_heatmap_annotate_and_options():
    report = _report()
    _, ax = plt.subplots()
    assert retention_heatmap(report, ax=ax, annotate=True) is ax
    observed = ~np.ma.getmaskarray(ax.images[0].get_array())
    assert len(ax.texts) == observed.sum()
    with pytest.raises(InvalidParameterError, match="'values' parameter of retention_heatmap"):
        retention_heatmap(report, values="ratio")


def _expected_curve(rates, counts, new, weighting):
    xs, ys = [], []
    for j in range(rates.shape[1]):
        col = rates[:, j]
        ok = ~np.isnan(col)
        if not ok.any():
            continue
        xs.append(j)
        if weighting == "cohorts":
            ys.append(col[ok].mean())
        else:
            ys.append(counts[ok, j].sum() / new[ok].sum())
    return xs, ys


@pytest.mark.parametrize("weighting", ["cohorts", "users"])
def test_retention_curve_days(weighting):
    report = _report(days=(1, 3, 7, 30))  # N = 30 is never observed: left out
    ax = retention_curve(report, weighting=weighting)
    idx, ys = _expected_curve(report.day_n_retention, report.retained, report.new_users, weighting)
    assert len(ax.lines) == 1 and ax.get_legend() is None
    np.testing.assert_array_equal(ax.lines[0].get_xdata(), np.asarray(report.days)[idx])
    np.testing.assert_allclose(ax.lines[0].get_ydata(), ys, rtol=0, atol=1e-15)
    assert list(ax.lines[0].get_xdata()) == [1, 3, 7]
    assert ax.lines[0].get_marker() == "o"


@pytest.mark.parametrize("weighting", ["cohorts", "users"])
def test_retention_curve_all_offsets_and_dict(weighting):
    report = _report()
    other = _report(days=(2,))
    ax = retention_curve({"a": report, "b": other}, offsets="all", weighting=weighting)
    assert _labels(ax) == ["a", "b"]
    idx, ys = _expected_curve(
        report.cohort_retention[:, 1:], report.cohort_counts[:, 1:], report.new_users, weighting
    )
    np.testing.assert_array_equal(ax.lines[0].get_xdata(), np.asarray(idx) + 1)
    np.testing.assert_allclose(ax.lines[0].get_ydata(), ys, rtol=0, atol=1e-15)
    # the full table's columns at report.days give the same points as offsets="days"
    days_line = retention_curve(report, weighting=weighting).lines[0]
    for x, y in days_line.get_xydata():
        assert y == pytest.approx(ax.lines[0].get_ydata()[int(x) - 1], abs=1e-15)


def test_retention_curve_errors():
    report = _report()
    with pytest.raises(InvalidParameterError, match="'offsets' parameter of retention_curve"):
        retention_curve(report, offsets="some")
    with pytest.raises(InvalidParameterError, match="'weighting' parameter of retention_curve"):
        retention_curve(report, weighting="clicks")
    with pytest.raises(InvalidParameterError, match="'report' parameter of retention_curve"):
        retention_curve({})


# ------------------------------------------------------------------ long tail
def test_long_tail_curves_by_hand():
    from receval.plot._popularity import long_tail_curves

    popularity = {"a": 6, "b": 3, "c": 1}
    runs = {
        "pop": {"u": {"a": 0.9, "b": 0.5}, "v": {"a": 0.9}},
        "rare": {"u": {"c": 1.0, "d": 0.2}},
    }
    got = long_tail_curves(runs, popularity=popularity, k=2)
    # items a, b, c (known, by popularity) then d (unknown, popularity 0)
    np.testing.assert_allclose(got["x"], [0.25, 0.5, 0.75, 1.0])
    np.testing.assert_allclose(got["interactions"], [0.6, 0.9, 1.0, 1.0])
    np.testing.assert_allclose(got["runs"]["pop"], [2 / 3, 1.0, 1.0, 1.0])
    np.testing.assert_allclose(got["runs"]["rare"], [0.0, 0.0, 0.5, 1.0])
    assert got["head"] == 0.5  # a and b hold 90% >= 80% of the interactions; a alone 60%


def test_long_tail_draws_one_line_per_run():
    from receval.plot import long_tail

    log = ([1, 2, 3, 1], ["a", "a", "b", "c"])  # (users, items)
    ax = long_tail({"m1": {"u": {"a": 1.0}}, "m2": {"u": {"c": 1.0}}}, train=log, k=1)
    labels = [line.get_label() for line in ax.get_lines()]
    assert labels[:3] == ["interactions", "m1", "m2"]
    with pytest.raises(InvalidParameterError):
        long_tail({"u": {"a": 1.0}}, k=1)  # no popularity source


# ----------------------------------------------------------------- displays
def test_displays_keep_their_numbers_and_redraw_on_a_given_axes():
    import matplotlib.pyplot as plt

    from receval.plot import CalibrationDisplay, PrecisionRecallDisplay, RocCurveDisplay

    y, scores, w = _clicks()
    roc_d = RocCurveDisplay.from_predictions(y, scores, sample_weight=w)
    for name, s in scores.items():
        fpr, tpr, _ = roc_curve(y, s, sample_weight=w)
        np.testing.assert_array_equal(roc_d.fpr[name], fpr)
        np.testing.assert_array_equal(roc_d.tpr[name], tpr)
        assert roc_d.roc_auc[name] == roc_auc_score(y, s, sample_weight=w)
    assert roc_d.figure_ is roc_d.ax_.figure and len(roc_d.lines_) == len(scores)
    fig, (a1, a2, a3) = plt.subplots(1, 3)
    assert roc_d.plot(ax=a1).ax_ is a1 and roc_d.figure_ is fig
    assert [line.get_label() for line in a1.lines][:-1] == _labels(roc(y, scores, sample_weight=w))[
        :-1
    ]
    pr = PrecisionRecallDisplay.from_predictions(y, scores, sample_weight=w)
    assert pr.plot(ax=a2).ax_ is a2 and len(a2.lines) == 2 * len(scores) + 1
    assert pr.prevalence == pytest.approx(w[y == 1].sum() / w.sum(), rel=1e-15)
    cal = CalibrationDisplay.from_predictions(y, scores, n_bins=5, sample_weight=w)
    assert cal.plot(ax=a3).ax_ is a3
    assert cal.pcoc == {n: pcoc(y, s, sample_weight=w) for n, s in scores.items()}
    plt.close("all")


def test_metric_at_k_colour_per_model_style_per_metric():
    from receval.plot import MetricAtKDisplay

    qrels = {"u1": {"a": 1, "b": 1}, "u2": {"c": 1}}
    run_a = {"u1": {"a": 0.9, "c": 0.5, "b": 0.1}, "u2": {"c": 0.7, "a": 0.2}}
    run_b = {"u1": {"c": 0.9, "a": 0.5, "b": 0.1}, "u2": {"a": 0.7, "c": 0.2}}
    d = MetricAtKDisplay.from_runs(qrels, {"a": run_a, "b": run_b}, metrics=["recall", "ndcg"],
                                   ks=[1, 2, 3])  # fmt: skip
    assert list(d.means) == [("a", "recall"), ("a", "ndcg"), ("b", "recall"), ("b", "ndcg")]
    assert d.means["b", "recall"] == [0.0, 0.75, 1.0]
    colours = [line.get_color() for line in d.lines_]
    styles = [line.get_linestyle() for line in d.lines_]
    assert colours[0] == colours[1] != colours[2] == colours[3]
    assert styles[0] == styles[2] != styles[1] == styles[3]


def test_retention_displays_redraw_their_numbers():
    import matplotlib.pyplot as plt

    from receval import retention
    from receval.plot import RetentionCurveDisplay, RetentionHeatmapDisplay

    events = {"user": ["a", "b", "a", "c", "a", "b"],
              "time": ["2024-01-01", "2024-01-01", "2024-01-02", "2024-01-02", "2024-01-03",
                       "2024-01-03"]}  # fmt: skip
    report = retention(events, days=(1, 2))
    heat = RetentionHeatmapDisplay.from_report(report)
    np.testing.assert_array_equal(heat.table, report.cohort_retention)
    shortcut = retention_heatmap(report)
    np.testing.assert_array_equal(shortcut.images[0].get_array(), heat.image_.get_array())
    curve = RetentionCurveDisplay.from_report({"x": report, "y": report})
    fig, (a1, a2) = plt.subplots(1, 2)
    assert heat.plot(ax=a1).ax_ is a1 and curve.plot(ax=a2).figure_ is fig
    assert [line.get_label() for line in a2.lines] == ["x", "y"]
    plt.close("all")

"""Metrics by segment: each segment's value is the metric on exactly its rows (users).

Pointwise: ``by_segment`` against each metric's function on the rows of each
segment, for every metric of the engine (the adapters of test_backends).
Ranking: ``EvaluationReport.by_segment`` against ``evaluate`` on the qrels of
each segment's users, under every profile (pooled means, skipped users,
Recommenders' zero rule).
"""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval as rv
from receval.conventions import PROFILE_GRADES, PROFILES
from receval.engine.metric import DEFINITIONS
from receval.exceptions import InputValidationError, InvalidParameterError
from tests.engine.test_backends import ADAPTERS, OPTIONS, _check, _function, _rows, _take

pytestmark = [
    pytest.mark.filterwarnings("ignore::receval.exceptions.UndefinedMetricWarning"),
    pytest.mark.filterwarnings("ignore::receval.exceptions.TieOrderWarning"),
]


def _same(name, got, expected):
    if isinstance(expected, float) and math.isnan(expected):
        assert math.isnan(got)
    else:
        _check(name, got, expected, True)


@pytest.mark.parametrize("name", sorted(ADAPTERS))
@pytest.mark.parametrize("seed", range(3))
def test_each_segment_is_the_function_on_its_rows(name, seed):
    y, p, w, g = _rows(seed, n=240)
    args, kwargs = ADAPTERS[name](y, p, w, g)
    rng = np.random.default_rng(seed)
    if DEFINITIONS[name].partitioning == "groups" and seed == 0:
        by = np.asarray(["abc"[i % 3] for i in g])  # segments of whole groups
    else:
        by = rng.choice(["de", "fr", "us", "jp"], len(y))  # groups cut by segments
    options = OPTIONS.get(name, {})
    report = rv.by_segment(name, *args, by=by, **kwargs, **options)
    assert report.segments.tolist() == sorted(set(by.tolist()))
    for i, label in enumerate(report.segments):
        part_args, part_kwargs = _take(args, kwargs, by == label)
        expected = _function(name)(*part_args, **part_kwargs, **options)
        _same(name, report.values[name][i], expected)
        assert report.counts[i] == int((by == label).sum())
    _same(name, report.overall[name], _function(name)(*args, **kwargs, **options))
    assert report.n_undefined[name] == int(np.isnan(report.values[name]).sum())


@pytest.mark.parametrize("name", sorted(ADAPTERS))
def test_no_row_is_refused_as_the_function_refuses_it(name):
    # before: the overall value of no row was nan with the warning of one class (or of
    # weights summing to zero), where the function raises
    y, p, w, g = _rows(0, n=20)
    args, kwargs = ADAPTERS[name](y[:0], p[:0], w[:0], g[:0])
    options = OPTIONS.get(name, {})
    first = DEFINITIONS[name].inputs[0]
    with pytest.raises(InputValidationError) as function_said:
        _function(name)(*args, **kwargs, **options)
    with pytest.raises(InputValidationError) as said:
        rv.by_segment(name, *args, by=np.array([], dtype=str), **kwargs, **options)
    assert str(said.value) == f"by_segment: {first} is empty; pass at least one sample."
    assert str(function_said.value).endswith(f": {first} is empty; pass at least one sample.")


@settings(max_examples=50, deadline=None)
@given(
    rows=st.lists(
        st.tuples(
            st.sampled_from([0, 1]), st.sampled_from([0.2, 0.5, 0.5, 0.7]), st.integers(0, 2)
        ),
        min_size=1,
        max_size=40,
    )
)
def test_tied_scores_in_segments(rows):
    y = np.array([r[0] for r in rows])
    p = np.array([r[1] for r in rows])
    by = np.array([r[2] for r in rows])
    report = rv.by_segment(["log_loss", "roc_auc"], y, p, by=by)
    for i, label in enumerate(report.segments):
        mask = by == label
        assert report.values["log_loss"][i] == rv.log_loss(y[mask], p[mask])
        if len(set(y[mask].tolist())) == 2:
            assert report.values["roc_auc"][i] == rv.roc_auc_score(y[mask], p[mask])
        else:
            assert math.isnan(report.values["roc_auc"][i])


def test_options_go_to_the_metrics_that_take_them():
    y, p, _, g = _rows(1, n=100)
    by = np.arange(100) % 2
    report = rv.by_segment(["gauc", "log_loss"], y, p, by=by, groups=g, weighting="uniform")
    for i in (0, 1):
        mask = by == i
        got = report.values["gauc"][i]
        assert got == rv.gauc_score(y[mask], p[mask], groups=g[mask], weighting="uniform")
    frame = report.to_frame()
    skips = ["gauc:n_groups", "gauc:n_groups_skipped", "gauc:n_rows_skipped"]
    assert list(frame.columns) == ["segment", "n_rows", "gauc", "log_loss", *skips]
    records = report.records()
    assert records[-1]["segment"] is None and records[-1]["n_rows"] == 100
    assert "(all)" in repr(report)


def test_a_series_of_per_row_group_weights_is_data_not_an_option():
    # a pandas Series has items(): it was taken as gauc's mapping from group to weight
    # (its index), a GAUC of 0.5 for segment "a" and 0.8 overall
    frame = pd.DataFrame({"user": [0, 0, 1, 1, 2, 2], "click": [1, 0, 0, 1, 1, 0],
                          "score": [0.9, 0.1, 0.9, 0.1, 0.8, 0.2],
                          "w": [1.0, 1.0, 3.0, 3.0, 1.0, 1.0], "seg": list("aaaabb")})  # fmt: skip
    report = rv.by_segment("gauc", frame.click, frame.score, groups=frame.user,
                           weighting=frame.w, by=frame.seg)  # fmt: skip
    assert report.values["gauc"].tolist() == [0.25, 1.0]  # users 0, 1: AUCs 1, 0 of weights 1, 3
    assert report.overall == {"gauc": 0.4}


def test_each_metric_is_resolved_and_checked_once_for_every_segment(monkeypatch):
    from receval import registry
    from receval.engine import accumulator

    calls: list[tuple[str, str]] = []
    real_definition, real_params = registry.definition, accumulator.whole_group_params

    def definition(name, *args):
        calls.append(("definition", name))
        return real_definition(name, *args)

    def whole_group_params(defn, name, *args):
        calls.append(("whole_group_params", name))
        return real_params(defn, name, *args)

    monkeypatch.setattr(registry, "definition", definition)
    monkeypatch.setattr(accumulator, "whole_group_params", whole_group_params)
    y, p, _, g = _rows(2, n=120)
    by = np.arange(120) % 6
    # gauc's named weighting is given as a keyword (an option that is also data)
    report = rv.by_segment(["gauc", "log_loss"], y, p, by=by, groups=g, weighting="clicks")
    assert len(report.segments) == 6
    # once per metric, not once per segment and once for all the rows
    steps = ("definition", "whole_group_params")
    assert sorted(calls) == [(step, m) for step in steps for m in ("gauc", "log_loss")]
    for i in range(6):
        mask = by == i
        got = report.values["gauc"][i]
        assert got == rv.gauc_score(y[mask], p[mask], groups=g[mask], weighting="clicks")


def test_a_frame_column_is_made_an_array_once_for_every_segment(monkeypatch):
    y, p, *_ = _rows(3, n=120)
    by = np.arange(120) % 8
    scores = pd.Series(p)
    made: list[int] = []
    real = pd.Series.__array__

    def array(self, *args, **kwargs):
        made.append(len(self))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(pd.Series, "__array__", array)
    report = rv.by_segment(["roc_auc", "log_loss"], y, scores, by=by)
    # the whole column is read as an array once to cut the segments from, not once a
    # segment and metric (8 x 2 before)
    assert made == [120]
    for i in range(8):
        assert report.values["roc_auc"][i] == rv.roc_auc_score(y[by == i], p[by == i])


def test_by_segment_errors():
    y, p = [1, 0, 1], [0.9, 0.1, 0.3]
    with pytest.raises(InvalidParameterError, match="is a ranking metric"):
        rv.by_segment("ndcg@10", y, p, by=[1, 1, 2])
    with pytest.raises(InvalidParameterError, match="takes the option 'bins2'"):
        rv.by_segment("log_loss", y, p, by=[1, 1, 2], bins2=3)
    with pytest.raises(InputValidationError, match=r"one label per row\. Got 2 labels for 3 rows"):
        rv.by_segment("log_loss", y, p, by=[1, 2])
    with pytest.raises(InputValidationError, match="missing"):
        rv.by_segment("log_loss", y, p, by=["a", None, "b"])
    with pytest.raises(InvalidParameterError, match="at least one metric"):
        rv.by_segment([], y, p, by=[1, 1, 2])


@pytest.mark.parametrize(
    "name, args, kwargs",
    [("roc_auc", ([1, 0, 1, 0], [0.1, 0.2, 0.3, 0.4], [1] * 4, [2] * 4), {}),
     ("roc_auc", ([1, 0, 1, 0],), {}),
     ("gauc", ([1, 0, 1, 0], [0.1, 0.2, 0.3, 0.4]), {}),
     ("gauc", ([1, 0, 1, 0], [0.1, 0.2, 0.3, 0.4], [1, 1, 2, 2]), {"groups": [1, 1, 2, 2]})],
)  # fmt: skip
def test_data_arguments_are_refused_as_compute_refuses_them(name, args, kwargs):
    # before: Python's TypeError of the metric's prepare ("counts_prepare.<locals>.prepare()
    # takes from 3 to 4 positional arguments but 5 were given")
    with pytest.raises(InvalidParameterError) as compute_said:
        rv.compute(name, *args, **kwargs)
    with pytest.raises(InvalidParameterError) as said:
        rv.by_segment(name, *args, by=[0, 0, 1, 1], **kwargs)
    assert str(said.value) == str(compute_said.value).replace(
        f"receval.compute({name!r})", "by_segment"
    )


# ------------------------------------------------------------------ ranking
def _ranking_data(seed):
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for u in range(40):
        items = rng.choice(30, 8, replace=False)
        qrels[f"u{u}"] = {f"i{i}": int(rng.integers(-1, 3)) for i in items[:4]}
        if u % 7 != 3:  # some users absent from the run
            run[f"u{u}"] = {f"i{i}": float(rng.choice([0.1, 0.5, 0.9])) for i in items[2:]}
    return qrels, run


METRICS = ["ndcg@5", "map", "mrr", "pooled_hit_ratio@3", "recall@5", "precision@2", "num_rel",
           "gm_map"]  # fmt: skip


@pytest.mark.parametrize("profile", [None, *sorted(PROFILES)])
@pytest.mark.parametrize("seed", range(2))
def test_report_segments_equal_evaluate_on_the_segment_users(profile, seed):
    qrels, run = _ranking_data(seed)
    # its peer's NDCG refuses a negative grade
    if profile in PROFILE_GRADES or profile == "sklearn":
        qrels = {u: {i: max(g, 0) for i, g in q.items()} for u, q in qrels.items()}
    metrics = METRICS
    if PROFILES.get(profile) is not None and PROFILES[profile].ties == "average":
        metrics = METRICS[:-2]  # trec_eval's measures take no tie-averaged order
    report = rv.evaluate(qrels, run, metrics, profile=profile)
    groups = {u: ("a", "b", "c")[int(u[1:]) % 3] for u in qrels if int(u[1:]) % 5}
    seg = report.by_segment(groups)
    assert seg.n_unassigned == sum(1 for u in qrels if int(u[1:]) % 5 == 0)
    for i, label in enumerate(seg.segments):
        users = [u for u, g in groups.items() if g == label]
        part = rv.evaluate({u: qrels[u] for u in users}, run, metrics, profile=profile)
        assert seg.counts[i] == len(users)
        for m in metrics:
            _same(m, seg.values[m][i], part.mean[m])
    assert seg.overall == report.mean


def test_report_segments_from_arrays_and_frames():
    qrels, run = _ranking_data(5)
    report = rv.evaluate(qrels, run, ["ndcg@5"])
    labels = np.array([int(u[1:]) % 2 for u in report.users.tolist()])
    by_array = report.by_segment(labels)
    frame = pd.DataFrame({"user": report.users, "segment": labels})
    by_frame = report.by_segment(frame.sample(frac=1.0, random_state=0))
    np.testing.assert_array_equal(by_array.values["ndcg@5"], by_frame.values["ndcg@5"])
    assert by_array.segments.tolist() == [0, 1]
    with pytest.raises(InputValidationError, match="names the user 'u1' twice, the second time "
                       "at position 1;") as caught:  # fmt: skip
        report.by_segment(pd.DataFrame({"user": ["u1", "u1"], "segment": [1, 2]}))
    assert caught.value.row == 1
    with pytest.raises(InputValidationError, match="one label per user"):
        report.by_segment([1, 2])
    with pytest.raises(InputValidationError, match="two columns"):
        report.by_segment(pd.DataFrame({"user": ["u1"], "a": [1], "b": [2]}))


def test_metrics_without_a_definition_run_their_function():
    # average_precision, pr_auc, bep, ece: receval ctr's metrics that the engine does not run
    y, p, w, _ = _rows(4, n=150)
    by = np.arange(150) % 3
    names = ["average_precision", "ece", "pr_auc", "bep"]
    report = rv.by_segment(names, y, p, by=by, sample_weight=w)
    functions = {
        "average_precision": rv.average_precision_score,
        "ece": rv.expected_calibration_error,
        "pr_auc": rv.pr_auc_score,
        "bep": rv.break_even_point,
    }
    for name, function in functions.items():
        for i in range(3):
            mask = by == i
            assert report.values[name][i] == function(y[mask], p[mask], sample_weight=w[mask])
        assert report.overall[name] == function(y, p, sample_weight=w)
    # "ap" is mean average precision everywhere: a ranking metric here
    with pytest.raises(InvalidParameterError, match=r"'ap' is a ranking metric.*'average_prec"):
        rv.by_segment(["ap"], y, p, by=by, sample_weight=w)


@pytest.mark.parametrize("profile", [None, "trec_eval", "recommenders"])
def test_subset_is_evaluate_on_the_kept_users(profile):
    qrels, run = _ranking_data(3)
    report = rv.evaluate(qrels, run, METRICS, profile=profile)
    kept = np.array([int(u[1:]) % 3 != 0 for u in report.users.tolist()])
    sub = report.subset(kept)
    users = [u for u, k in zip(report.users.tolist(), kept, strict=True) if k]
    direct = rv.evaluate({u: qrels[u] for u in users}, run, METRICS, profile=profile)
    assert sub.users.tolist() == direct.users.tolist()
    assert (sub.n_users, sub.n_users_missing) == (direct.n_users, direct.n_users_missing)
    assert sub.n_users_empty == direct.n_users_empty
    assert sub.n_users_skipped == direct.n_users_skipped
    for m in METRICS:
        _same(m, sub.mean[m], direct.mean[m])
        np.testing.assert_array_equal(sub.values[m], direct.values[m])
    with pytest.raises(InputValidationError, match="boolean mask of 40 users"):
        report.subset([True])


def test_compare_by_segment_is_compare_on_each_segment():
    qrels, run_a = _ranking_data(7)
    _, run_b = _ranking_data(8)
    groups = {u: "x" if int(u[1:]) < 20 else "y" for u in qrels}
    options = {"n_permutations": 200, "n_resamples": 200, "seed": 3, "interval": "percentile"}
    metrics = ["ndcg@5", "pooled_hit_ratio@3"]
    seg = rv.compare_by_segment(qrels, {"a": run_a, "b": run_b}, metrics, by=groups, **options)
    assert seg.segments.tolist() == ["x", "y"] and seg.counts.tolist() == [20, 20]
    for label, report in zip(seg.segments, seg.reports, strict=True):
        sub = {u: q for u, q in qrels.items() if groups[u] == label}
        direct = rv.compare(sub, {"a": run_a, "b": run_b}, metrics, **options)
        assert report.records() == direct.records()
    whole = rv.compare(qrels, {"a": run_a, "b": run_b}, metrics, **options)
    assert seg.overall.records() == whole.records()
    records = seg.records()
    assert records[-1]["segment"] is None and {r["segment"] for r in records} == {"x", "y", None}
    assert list(seg.to_frame().columns)[:4] == ["segment", "metric", "model", "versus"]


def test_compare_by_segment_refuses_an_unknown_keyword():
    qrels = {f"u{i}": {"a": 1} for i in range(10)}
    runs = {"g": {f"u{i}": {"a": 1, "b": 0.5} for i in range(10)},
            "b": {f"u{i}": {"b": 1, "a": 0.5} for i in range(10)}}  # fmt: skip
    by = {f"u{i}": i % 2 for i in range(10)}
    with pytest.raises(rv.InvalidParameterError,
                       match=r"compare_by_segment: .*'tset'.*Did you mean 'test'"):  # fmt: skip
        rv.compare_by_segment(qrels, runs, ["mrr"], by=by, tset="student")


def test_boolean_labels_stay_booleans():
    # the labels came back as 0 and 1: the codes of True and False
    import polars as pl
    import pyarrow as pa

    y, p = [1, 0, 1, 0, 0, 1], [0.9, 0.2, 0.4, 0.6, 0.3, 0.8]
    flags = [True, True, True, False, False, False]
    for by in (flags, np.array(flags), pd.Series(flags), pd.Series(flags, dtype="boolean"),
               pl.Series(flags), pa.array(flags), pa.chunked_array([flags])):  # fmt: skip
        labels = rv.by_segment(["roc_auc"], y, p, by=by).segments
        assert labels.tolist() == [False, True] and labels.dtype == bool, type(by)
    report = rv.evaluate({"a": {"x": 1}, "b": {"x": 1}}, {"a": {"x": 1.0}, "b": {"y": 1.0}}, "mrr")
    for segments in ({"a": True, "b": False}, [True, False],
                     pd.DataFrame({"user": ["a", "b"], "segment": [True, False]}),
                     pa.table({"user": ["a", "b"], "segment": [True, False]})):  # fmt: skip
        records = report.by_segment(segments).records()
        assert [(r["segment"], r["mrr"]) for r in records] == [(False, 0.0), (True, 1.0),
                                                               (None, 0.5)]  # fmt: skip
    assert report.by_segment([1, 0]).segments.tolist() == [0, 1]  # integers stay integers
    seg = rv.compare_by_segment({"a": {"x": 1}, "b": {"x": 1}, "c": {"x": 1}},
                                {"m": {"a": {"x": 1.0}}, "n": {"b": {"x": 1.0}}}, ["mrr"],
                                by={"a": True, "b": False, "c": True}, n_permutations=10,
                                interval=None)  # fmt: skip
    assert seg.segments.tolist() == [False, True]


def test_float_labels_stay_floats():
    # whole floats came back as the integers their codes read (1.0 as 1)
    import polars as pl
    import pyarrow as pa

    y, p = [1, 0, 1, 0, 0, 1], [0.9, 0.2, 0.4, 0.6, 0.3, 0.8]
    labels = [1.0, 1.0, 1.0, 2.0, 2.0, 2.0]
    for by in (labels, np.array(labels), np.array(labels, dtype=np.float32),
               pd.Series(labels), pd.Series(labels, dtype="Float64"), pl.Series(labels),
               pa.array(labels)):  # fmt: skip
        report = rv.by_segment(["roc_auc"], y, p, by=by)
        assert report.segments.tolist() == [1.0, 2.0], type(by)
        assert report.segments.dtype.kind == "f", type(by)
        assert report.to_frame("pandas")["segment"].dtype == np.float64, type(by)
        assert report.to_frame("polars")["segment"].dtype == pl.Float64, type(by)
    report = rv.evaluate({"a": {"x": 1}, "b": {"x": 1}}, {"a": {"x": 1.0}, "b": {"y": 1.0}}, "mrr")
    for segments in ({"a": 1.0, "b": 0.0}, [1.0, 0.0],
                     pd.DataFrame({"user": ["a", "b"], "segment": [1.0, 0.0]})):  # fmt: skip
        seg = report.by_segment(segments)
        assert seg.segments.dtype.kind == "f"
        records = seg.records()
        assert [(r["segment"], r["mrr"]) for r in records] == [(0.0, 0.0), (1.0, 1.0),
                                                               (None, 0.5)]  # fmt: skip
        assert all(type(r["segment"]) is float for r in records[:2])


def test_a_series_indexed_by_user_is_refused_with_both_readings():
    # a Series indexed by user (groupby(...).first()) was read by position: its labels
    # went to the users at their positions, not to the users its index names
    qrels = {1: {10: 1}, 2: {11: 1}, 3: {12: 1}, 4: {10: 1}}
    run = {1: {10: 0.9}, 2: {10: 0.9, 11: 0.5}, 3: {12: 0.1}, 4: {11: 1.0, 10: 0.5}}
    report = rv.evaluate(qrels, run, ["mrr"])  # mrr: 1, 0.5, 1, 0.5
    by_user = pd.Series(["b", "a", "b", "a"], index=[4, 3, 2, 1])
    said = (
        "EvaluationReport.by_segment: segments is a pandas Series with an index of its own "
        "(starting [4, 3, 2]), and an array of labels is read in the order of the users, "
        "not by its index; pass segments.to_dict() to give each user of the index its "
        "label, or segments.to_numpy() for labels in the order of the users."
    )
    with pytest.raises(InputValidationError) as info:
        report.by_segment(by_user)
    assert str(info.value) == said
    with pytest.raises(InputValidationError, match=r"^compare_by_segment: by is a pandas Series"):
        rv.compare_by_segment(qrels, {"m": run, "n": run}, ["mrr"], by=by_user)
    assert report.by_segment(by_user.to_dict()).values["mrr"].tolist() == [1.0, 0.5]
    in_order = pd.Series(["a", "b", "a", "b"])  # 0, 1, ...: labels in the users' order
    assert report.by_segment(in_order).values["mrr"].tolist() == [1.0, 0.5]


def test_one_metric_string_is_one_metric_in_both_segment_functions():
    q = {"u1": {"a": 1}, "u2": {"b": 1}}
    runs = {"x": {"u1": {"a": 0.9, "b": 0.1}, "u2": {"b": 0.5, "a": 0.6}},
            "y": {"u1": {"a": 0.1, "b": 0.9}, "u2": {"b": 0.5, "a": 0.4}}}  # fmt: skip
    by = {"u1": "s1", "u2": "s2"}
    one = rv.compare_by_segment(q, runs, "mrr", by=by)  # it read the letters 'm', 'r', 'r'
    assert one.to_frame().equals(rv.compare_by_segment(q, runs, ["mrr"], by=by).to_frame())
    with pytest.raises(InvalidParameterError, match="must be a metric string or a list"):
        rv.compare_by_segment(q, runs, 5, by=by)
    with pytest.raises(InvalidParameterError, match="must be a metric string or a list"):
        rv.by_segment(5, [1, 0], [0.5, 0.4], by=["a", "a"])


def test_columns_of_a_scan_are_refused_naming_them(tmp_path):
    # they raised "TypeError: object of type 'ScanColumn' has no len()"
    path = tmp_path / "log.parquet"
    pd.DataFrame({"click": [1, 0, 1, 0], "score": [0.9, 0.2, 0.4, 0.6],
                  "country": ["us", "us", "fr", "fr"]}).to_parquet(path)  # fmt: skip
    s = rv.scan(path)
    for data, by, name in [((s["click"], s["score"]), ["us", "us", "fr", "fr"], "argument 1"),
                           (([1, 0, 1, 0], [0.9, 0.2, 0.4, 0.6]), s["country"], "by")]:  # fmt: skip
        with pytest.raises(InputValidationError) as info:
            rv.by_segment("auc", *data, by=by)
        assert str(info.value).startswith(f"by_segment: {name} is ScanColumn(")
        assert "so it takes arrays: read the columns it needs first" in str(info.value)

"""Out of core: metrics on columns of ``receval.scan(...)`` equal the in-memory
functions on the same rows, whatever the batch size (every batch size splits
the rows into other partitions, whose states are merged), for Parquet and CSV.

Exactness: counts and unweighted AUCs are integers, and float sums (log loss,
PCOC, weights, GAUC's weighted sum, ranking means) are exact sums rounded once,
so every result is the in-memory float, checked with ``==``: weighted ROC AUC
holds weights as integers in units of the lowest bit of any weight, as in
memory; weighted GAUC computes each group's AUC from its own rows in a canonical
order, the same float in any split.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import warnings

import numpy as np
import pyarrow as pa
import pyarrow.csv as pcsv
import pyarrow.parquet as pq
import pytest
from hypothesis import given
from hypothesis import strategies as st

from receval import (
    InputValidationError,
    InvalidParameterError,
    Qrels,
    Run,
    UndefinedMetricWarning,
    copc,
    evaluate,
    gauc_score,
    group_auc,
    log_loss,
    pcoc,
    roc_auc_score,
    scan,
)
from receval import metric as rv_metric

FORMATS = ["parquet", "csv"]
BATCHES = [1, 7, 100, 10**6]


def _impressions(seed: int = 0, n: int = 600) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    lengths = rng.integers(1, 12, n)
    user = np.repeat(np.arange(n), lengths)[:n]  # grouped by user
    click = (rng.random(n) < 0.3).astype(np.int64)
    click[:2] = [0, 1]
    score = rng.choice([0.1, 0.25, 0.5, 0.9, -0.0, 0.0], n)  # ties on purpose, -0.0 == 0.0
    score = np.where(rng.random(n) < 0.6, score, rng.random(n))
    prob = rng.choice([0.0, 0.1, 0.5, 0.9, 1.0], n)
    weight = rng.integers(0, 4, n).astype(np.float64)  # some rows of weight 0
    return {"user": user, "click": click, "score": score, "prob": prob, "weight": weight}


def _write(directory: str, data: dict[str, np.ndarray], fmt: str, name: str = "data") -> str:
    table = pa.table(data)
    path = os.path.join(directory, f"{name}.{fmt}")
    if fmt == "parquet":
        pq.write_table(table, path, row_group_size=97)
    else:
        pcsv.write_csv(table, path)
    return path


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, dict]]:
    directory = str(tmp_path_factory.mktemp("scan"))
    data = _impressions()
    return {fmt: (_write(directory, data, fmt), data) for fmt in FORMATS}


# ------------------------------------------------------------------ AUC
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("batch_rows", BATCHES)
def test_auc_equals_in_memory_exactly(files, fmt, batch_rows):
    path, d = files[fmt]
    expected = roc_auc_score(d["click"], d["score"])
    s = scan(path, batch_rows=batch_rows)
    assert roc_auc_score(s["click"], s["score"]) == expected


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("max_memory", [8, 64, 800, 4000])
def test_auc_with_many_ranges_and_passes_is_exact(files, fmt, max_memory):
    # 8 bytes per row: a budget of 1 to 500 rows cuts the score axis into many
    # ranges, each gathered in its own pass
    path, d = files[fmt]
    s = scan(path, batch_rows=50, max_memory=max_memory)
    assert roc_auc_score(s["click"], s["score"]) == roc_auc_score(d["click"], d["score"])


@pytest.mark.parametrize("max_memory", [8, 400, 1 << 30])
def test_weighted_auc(files, max_memory):
    path, d = files["parquet"]
    s = scan(path, batch_rows=33, max_memory=max_memory)
    got = roc_auc_score(s["click"], s["score"], sample_weight=s["weight"])
    assert got == roc_auc_score(d["click"], d["score"], sample_weight=d["weight"])


def test_auc_of_a_single_bucket_larger_than_the_budget(tmp_path):
    # every score tied: one bucket, one range, read whole whatever the budget
    data = {"click": np.array([0, 1, 1, 0, 1]), "score": np.full(5, 0.5)}
    s = scan(_write(str(tmp_path), data, "parquet"), max_memory=8)
    assert roc_auc_score(s["click"], s["score"]) == 0.5


def test_auc_with_pos_label_and_minus_one_labels(tmp_path):
    y = np.array([-1, 1, 1, -1, 1, -1])
    score = np.array([0.2, 0.9, 0.4, 0.5, 0.5, 0.1])
    s = scan(_write(str(tmp_path), {"y": y, "score": score}, "parquet"), batch_rows=2)
    assert roc_auc_score(s["y"], s["score"]) == roc_auc_score(y, score)
    assert roc_auc_score(s["y"], s["score"], pos_label=-1) == roc_auc_score(y, score, pos_label=-1)


@given(
    st.lists(
        st.tuples(st.integers(0, 1), st.sampled_from([0.0, -0.0, 0.1, 0.5, 0.9, 1.0, -2.5])),
        min_size=2,
        max_size=40,
    ),
    st.integers(1, 12),
    st.integers(8, 200),
)
def test_auc_hypothesis(rows, batch_rows, max_memory):
    y = np.array([r[0] for r in rows] + [0, 1])
    score = np.array([r[1] for r in rows] + [0.5, 0.5])
    with tempfile.TemporaryDirectory() as directory:
        path = _write(directory, {"y": y, "score": score}, "parquet")
        s = scan(path, batch_rows=batch_rows, max_memory=max_memory)
        assert roc_auc_score(s["y"], s["score"]) == roc_auc_score(y, score)


def test_auc_single_class_is_nan_with_a_warning(tmp_path):
    s = scan(_write(str(tmp_path), {"y": np.zeros(4), "score": np.arange(4.0)}, "parquet"))
    with pytest.warns(UndefinedMetricWarning, match="single class"):
        assert np.isnan(roc_auc_score(s["y"], s["score"]))


# ------------------------------------------------------------------ log loss, PCOC, COPC
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("batch_rows", BATCHES)
def test_sums_equal_in_memory(files, fmt, batch_rows):
    path, d = files[fmt]
    s = scan(path, batch_rows=batch_rows)
    t, p, w = d["click"], d["prob"], d["weight"]
    assert log_loss(s["click"], s["prob"]) == log_loss(t, p)
    assert log_loss(s["click"], s["prob"], normalize=False, eps=1e-7) == log_loss(
        t, p, normalize=False, eps=1e-7
    )
    assert log_loss(s["click"], s["prob"], sample_weight=s["weight"]) == log_loss(
        t, p, sample_weight=w
    )
    assert pcoc(s["click"], s["prob"]) == pcoc(t, p)
    assert pcoc(s["click"], s["prob"], sample_weight=s["weight"]) == pcoc(t, p, sample_weight=w)
    assert copc(s["click"], s["prob"]) == copc(t, p)


def test_pcoc_without_clicks_warns(tmp_path):
    s = scan(_write(str(tmp_path), {"y": np.zeros(3), "p": np.full(3, 0.2)}, "parquet"))
    with pytest.warns(UndefinedMetricWarning, match="pcoc: y_true has no click"):
        assert np.isnan(pcoc(s["y"], s["p"]))


def test_log_loss_of_zero_weights_is_nan_with_a_warning(tmp_path):
    data = {"y": np.array([0, 1, 1]), "p": np.array([0.2, 0.7, 0.9]), "w": np.zeros(3)}
    s = scan(_write(str(tmp_path), data, "parquet"), batch_rows=2)
    message = "log_loss: every sample weight is zero, so the log loss is undefined"
    with pytest.warns(UndefinedMetricWarning, match=message):
        assert np.isnan(log_loss(data["y"], data["p"], sample_weight=data["w"]))
    with pytest.warns(UndefinedMetricWarning, match=message):
        assert np.isnan(log_loss(s["y"], s["p"], sample_weight=s["w"]))
    with pytest.warns(UndefinedMetricWarning, match=message):  # multiclass: the same rule
        assert np.isnan(log_loss([0, 1], [[0.3, 0.7], [0.4, 0.6]], sample_weight=[0, 0]))
    with pytest.warns(UndefinedMetricWarning, match=message):
        assert np.isnan(rv_metric("log_loss").update(data["y"], data["p"], data["w"]).compute())
    assert log_loss(s["y"], s["p"], sample_weight=s["w"], normalize=False) == 0.0


# ------------------------------------------------------------------ GAUC
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("batch_rows", BATCHES)
def test_gauc_equals_in_memory(files, fmt, batch_rows):
    path, d = files[fmt]
    s = scan(path, batch_rows=batch_rows)
    t, score, u, w = d["click"], d["score"], d["user"], d["weight"]
    for weighting in ("impressions", "clicks", "uniform"):
        got = gauc_score(s["click"], s["score"], groups=s["user"], weighting=weighting)
        assert got == gauc_score(t, score, groups=u, weighting=weighting)
    got = gauc_score(s["click"], s["score"], groups=s["user"], sample_weight=s["weight"])
    assert got == gauc_score(t, score, groups=u, sample_weight=w)
    report = group_auc(s["click"], s["score"], groups=s["user"])
    expected = group_auc(t, score, groups=u)
    # per-group AUCs of whole groups: the same rows, the same kernel, exact
    np.testing.assert_array_equal(report.auc, expected.auc)
    np.testing.assert_array_equal(report.weight, expected.weight)
    np.testing.assert_array_equal(report.n_rows, expected.n_rows)
    assert [str(g) for g in report.groups] == [str(g) for g in expected.groups]
    assert (report.n_groups, report.n_groups_skipped, report.n_rows_skipped) == (
        expected.n_groups,
        expected.n_groups_skipped,
        expected.n_rows_skipped,
    )
    assert report.score == expected.score


def test_gauc_with_a_weighting_column_and_a_mapping(files):
    path, d = files["parquet"]
    s = scan(path, batch_rows=13)
    t, score, u = d["click"], d["score"], d["user"]
    per_group = 1.0 + (u % 5)
    with tempfile.TemporaryDirectory() as directory:
        data = {**d, "group_weight": per_group}
        s2 = scan(_write(directory, data, "parquet"), batch_rows=13)
        got = gauc_score(s2["click"], s2["score"], groups=s2["user"], weighting=s2["group_weight"])
    assert got == gauc_score(t, score, groups=u, weighting=per_group)
    mapping = {int(g): float(1 + g % 3) for g in np.unique(u)}
    got = gauc_score(s["click"], s["score"], groups=s["user"], weighting=mapping)
    assert got == gauc_score(t, score, groups=u, weighting=mapping)


def test_gauc_groups_not_contiguous_raise(tmp_path):
    data = {"user": np.array([1, 1, 2, 2, 1]), "click": np.array([0, 1, 0, 1, 0])}
    data["score"] = np.array([0.1, 0.2, 0.3, 0.4, 0.5])
    path = _write(str(tmp_path), data, "parquet")
    message = (
        f"{path}: row 5: gauc_score: the rows of each group must be contiguous in the file "
        f"(grouped, e.g. sorted by group). Got group 1 again after other groups' rows; sort "
        f"or group the file by 'user' first."
    )
    for batch_rows in (1, 2, 100):  # across batches and within one
        s = scan(path, batch_rows=batch_rows)
        with pytest.raises(InputValidationError) as info:
            gauc_score(s["click"], s["score"], groups=s["user"])
        assert str(info.value) == message


@pytest.mark.parametrize("ids", ["int", "str"])
def test_a_repeated_group_raises_when_its_batch_is_read(tmp_path, monkeypatch, ids):
    from receval.data.scan import Scan

    user = np.repeat(np.arange(1000), 3)
    user[10] = 1  # group 1 again, in the 4th batch of 3 rows
    data = {"user": user if ids == "int" else np.array([f"g{u}" for u in user])}
    data["click"] = np.tile([0, 1, 0], 1000)
    data["score"] = np.linspace(0, 1, 3000)
    path = _write(str(tmp_path), data, "parquet")
    read = []
    batches = Scan.batches

    def counted(self, *args, **kwargs):
        for batch in batches(self, *args, **kwargs):
            read.append(1)
            yield batch

    monkeypatch.setattr(Scan, "batches", counted)
    s = scan(path, batch_rows=3)
    with pytest.raises(InputValidationError, match="again after other groups' rows"):
        gauc_score(s["click"], s["score"], groups=s["user"])
    assert len(read) < 10  # not after the 1000 batches of the pass


def test_gauc_all_groups_skipped_warns_like_in_memory(tmp_path):
    data = {"user": np.array([1, 1, 2]), "click": np.array([0, 0, 1]), "score": np.ones(3)}
    s = scan(_write(str(tmp_path), data, "parquet"), batch_rows=1)
    with pytest.warns(UndefinedMetricWarning) as caught:
        assert np.isnan(gauc_score(s["click"], s["score"], groups=s["user"]))
    with pytest.warns(UndefinedMetricWarning) as expected:
        gauc_score(data["click"], data["score"], groups=data["user"])
    assert str(caught[0].message) == str(expected[0].message)


# ------------------------------------------------------------------ evaluate
def _ranking_data(seed: int = 0) -> tuple[Qrels, dict[str, list]]:
    rng = np.random.default_rng(seed)
    users, items, scores = [], [], []
    for u in range(50):
        k = int(rng.integers(1, 12))
        chosen = rng.choice(30, k, replace=False)
        users += [f"u{u:02d}"] * k
        items += [f"i{x}" for x in chosen]
        scores += list(rng.choice([0.1, 0.5, 0.9], k))  # ties
    q_users, q_items, q_grades = [], [], []
    for u in range(60):  # u50..u59 are not in the run; some run users not in the qrels
        if rng.random() < 0.25:
            continue
        k = int(rng.integers(1, 6))
        chosen = rng.choice(30, k, replace=False)
        q_users += [f"u{u:02d}"] * k
        q_items += [f"i{x}" for x in chosen]
        q_grades += list(rng.integers(0, 3, k))
    return Qrels(q_users, q_items, q_grades), {"user": users, "item": items, "score": scores}


METRICS = ["ndcg@5", "map@10", "pooled_hit_ratio@5", "p@3", "mrr", "recall@10", "success@2"]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("batch_rows", BATCHES)
@pytest.mark.parametrize(
    "options",
    [{}, {"missing_users": "skip"}, {"profile": "trec_eval"}, {"ties": "input"}],
)
def test_evaluate_equals_in_memory_per_user(tmp_path, fmt, batch_rows, options):
    q, data = _ranking_data()
    path = _write(str(tmp_path), data, fmt, name="run")
    expected = evaluate(q, Run.from_file(path), METRICS, **options)
    got = evaluate(q, scan(path, batch_rows=batch_rows), METRICS, **options)
    np.testing.assert_array_equal(got.users, expected.users)
    for metric in METRICS:
        np.testing.assert_array_equal(got.values[metric], expected.values[metric])
        assert got.mean[metric] == expected.mean[metric]
    for name in ("n_users", "n_users_missing", "n_users_empty", "n_users_skipped"):
        assert getattr(got, name) == getattr(expected, name)
    assert got.n_run_only_users == expected.n_run_only_users > 0
    assert got.n_users_missing > 0
    assert got.run_name == expected.run_name == f"run.{fmt}"


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("batch_rows", [1, 7, 10**6])
def test_evaluate_beyond_accuracy_without_qrels(tmp_path, fmt, batch_rows):
    _, data = _ranking_data(3)
    path = _write(str(tmp_path), data, fmt, name="run")
    features = np.random.default_rng(3).random((30, 5))
    items = np.array([f"i{x}" for x in range(30)])
    metrics = ["ils@3", "diversity@10"]
    expected = evaluate(None, Run.from_file(path), metrics, features=features,
                        feature_items=items)  # fmt: skip
    got = evaluate(None, scan(path, batch_rows=batch_rows), metrics, features=features,
                   feature_items=items)  # fmt: skip
    np.testing.assert_array_equal(got.users, expected.users)
    for metric in metrics:
        np.testing.assert_array_equal(got.values[metric], expected.values[metric])
    assert got.mean == expected.mean
    assert got.n_users_skipped == expected.n_users_skipped
    assert sum(got.n_users_skipped.values()) > 0  # lists shorter than 2 are skipped
    with pytest.raises(InvalidParameterError, match="needs relevance judgments"):
        evaluate(None, scan(path), ["ndcg@5", "ils@3"], features=features, feature_items=items)


def test_evaluate_with_named_columns_and_ranks(tmp_path):
    q, data = _ranking_data(1)
    data = {"uid": data["user"], "doc": data["item"], "s": data["score"]}
    data["r"] = list(range(1, len(data["s"]) + 1))
    path = _write(str(tmp_path), data, "parquet", name="run")
    metrics = ["ndcg@5", "mrr(ties=average)"]
    for kind in ("s", "r"):
        kw = {"score": "s"} if kind == "s" else {"rank": "r"}
        expected = evaluate(q, Run.from_file(path, user="uid", item="doc", **kw), metrics)
        run = scan(path, batch_rows=9).as_run(user="uid", item="doc", name="mine", **kw)
        got = evaluate(q, run, metrics)
        for metric in metrics:
            np.testing.assert_array_equal(got.values[metric], expected.values[metric])
        assert got.run_name == "mine"


def test_evaluate_missing_users_error_like_in_memory(tmp_path):
    q, data = _ranking_data()
    path = _write(str(tmp_path), data, "parquet", name="run")
    with pytest.raises(InputValidationError) as expected:
        evaluate(q, Run.from_file(path), ["p@3"], missing_users="error")
    with pytest.raises(InputValidationError) as got:
        evaluate(q, scan(path, batch_rows=5), ["p@3"], missing_users="error")
    assert str(got.value) == str(expected.value)


def test_evaluate_users_not_contiguous_raise(tmp_path):
    data = {"user": ["a", "a", "b", "a"], "item": ["x", "y", "x", "z"]}
    data["score"] = [0.3, 0.2, 0.1, 0.0]
    path = _write(str(tmp_path), data, "csv", name="run")
    q = Qrels.from_dict({"a": {"x": 1}})
    with pytest.raises(InputValidationError) as info:
        evaluate(q, scan(path, batch_rows=2), ["p@3"])
    assert str(info.value) == (  # line 5: the 4th row, after the header
        f"{path}:5: evaluate: the rows of each user must be contiguous in the file (grouped, "
        f"e.g. sorted by user). Got user 'a' again after other users' rows; sort or group the "
        f"file by 'user' first."
    )
    assert info.value.row == 3


# ------------------------------------------------------------------ sources and errors
def test_directory_and_list_of_parquet_files(tmp_path):
    d = _impressions(3, n=300)
    parts = [{k: a[i : i + 100] for k, a in d.items()} for i in (0, 100, 200)]
    directory = tmp_path / "parts"
    directory.mkdir()
    paths = [_write(str(directory), p, "parquet", name=f"part-{i}") for i, p in enumerate(parts)]
    expected = roc_auc_score(d["click"], d["score"])
    expected_gauc = gauc_score(d["click"], d["score"], groups=d["user"])
    for source in (str(directory), paths):
        s = scan(source, batch_rows=40)
        assert s.num_rows == 300
        assert roc_auc_score(s["click"], s["score"]) == expected
        got = gauc_score(s["click"], s["score"], groups=s["user"])
        assert got == expected_gauc


def test_mixing_scan_columns_and_arrays_raises(files):
    s = scan(files["parquet"][0])
    with pytest.raises(InputValidationError) as info:
        roc_auc_score(s["click"], np.zeros(600))
    assert str(info.value) == (
        "roc_auc_score: y_true is a column of a receval.scan(...) but y_score is not. Got "
        "ndarray for y_score; pass columns of one scan for every data argument (or arrays "
        "for all of them)."
    )
    other = scan(files["csv"][0])
    with pytest.raises(InputValidationError, match="are columns of different scans"):
        log_loss(s["click"], other["prob"])


def test_options_that_do_not_apply_out_of_core_raise(files):
    s = scan(files["parquet"][0])
    with pytest.raises(InvalidParameterError) as info:
        roc_auc_score(s["click"], s["score"], multi_class="ovr")
    assert str(info.value) == (
        "The 'multi_class' parameter of roc_auc_score is not available out of core (on scan "
        "columns). Got 'ovr'; out of core only binary AUC is available (one score column)."
    )
    with pytest.raises(InvalidParameterError, match="'labels' parameter of log_loss"):
        log_loss(s["click"], s["prob"], labels=[0, 1])


def test_bad_values_raise_the_in_memory_messages(tmp_path):
    score = np.array([0.1, 0.2, 0.3, np.nan])
    path = _write(str(tmp_path), {"y": np.array([0, 1, 0, 1]), "score": score}, "parquet")
    s = scan(path, batch_rows=2)
    with pytest.raises(InputValidationError) as got:
        roc_auc_score(s["y"], s["score"])
    assert str(got.value) == (
        f"{path}: row 4: roc_auc_score: y_score contains NaN or infinity, the first in this "
        "row (nan); drop those rows or replace the values with finite numbers first."
    )
    y = np.array([0, 0.5])
    path = _write(str(tmp_path), {"y": y, "p": np.array([0.1, 0.2])}, "csv")
    s = scan(path)
    with pytest.raises(InputValidationError) as got:
        log_loss(s["y"], s["p"])
    with pytest.raises(InputValidationError) as expected:
        log_loss(y, np.array([0.1, 0.2]))
    assert str(got.value) == f"{path}:3: {expected.value}"  # the message, at its line
    # two labels other than 0/1 (or -1/1): in memory the greater one is positive; out of
    # core, where one batch cannot see every label, pos_label says which
    path = _write(str(tmp_path), {"y": np.array([0, 2]), "p": np.array([0.1, 0.2])}, "csv")
    s = scan(path)
    with pytest.raises(InputValidationError) as got:
        log_loss(s["y"], s["p"])
    assert str(got.value) == (
        f"{path}:3: log_loss: y_true takes values [0, 2] and pos_label is not specified; pass "
        f"pos_label, e.g. pos_label=2."
    )
    assert log_loss(s["y"], s["p"], pos_label=2) == log_loss([0, 2], [0.1, 0.2])


def test_empty_file_raises(tmp_path):
    table = pa.table({"y": pa.array([], pa.int64()), "score": pa.array([], pa.float64())})
    path = str(tmp_path / "empty.parquet")
    pq.write_table(table, path)
    s = scan(path)
    for fn in (roc_auc_score, log_loss, pcoc):
        with pytest.raises(InputValidationError, match=r"empty\.parquet: the file has no rows"):
            fn(s["y"], s["score"])


def test_file_errors_name_the_file(tmp_path):
    missing = str(tmp_path / "nope.parquet")
    with pytest.raises(InputValidationError) as info:
        scan(missing)
    assert str(info.value) == f"{missing}: no such file."
    path = _write(str(tmp_path), {"y": np.array([0, 1])}, "parquet")
    with pytest.raises(InputValidationError) as info:
        scan(path)["score"]
    assert str(info.value) == f"{path}: no column 'score'. Got columns ['y']."
    bad = tmp_path / "bad.csv"
    bad.write_text("y,score\n0,0.1\n1,0.2,7\n")
    with pytest.raises(InputValidationError) as info:
        s = scan(str(bad))
        roc_auc_score(s["y"], s["score"])
    assert str(info.value).startswith(f"{bad}:3: ")  # the line, as the file readers name it
    assert "Expected 2 columns, got 3" in str(info.value)
    with pytest.raises(InvalidParameterError, match="cannot tell the format"):
        other = tmp_path / "data.bin"
        other.write_bytes(b"")
        scan(str(other))


def test_scan_parameters_are_checked(files):
    with pytest.raises(InvalidParameterError, match="'batch_rows' parameter of scan"):
        scan(files["parquet"][0], batch_rows=0)
    with pytest.raises(InvalidParameterError, match="'progress' parameter of scan"):
        scan(files["parquet"][0], progress="yes")
    s = scan(files["parquet"][0])
    assert repr(s).startswith("Scan(") and "num_rows=600" in repr(s)
    assert s.columns == ["user", "click", "score", "prob", "weight"]


# ------------------------------------------------------------------ progress, imports
@pytest.mark.parametrize("fmt", FORMATS)
def test_progress_bar_on_stderr_only_when_asked(files, fmt, capsys):
    path, d = files[fmt]
    s = scan(path, batch_rows=100, progress=True)
    assert log_loss(s["click"], s["prob"]) == log_loss(d["click"], d["prob"])
    captured = capsys.readouterr()
    assert "log_loss" in captured.err and captured.out == ""
    s = scan(path, batch_rows=100)  # progress=None: stderr is not a terminal here
    log_loss(s["click"], s["prob"])
    roc_auc_score(s["click"], s["score"])
    captured = capsys.readouterr()
    assert captured.err == "" and captured.out == ""


def test_import_receval_stays_light():
    code = (
        "import sys, receval\n"
        "receval.scan, receval.Scan, receval.roc_auc_score, receval.gauc_score\n"
        "bad = [m for m in ('pyarrow', 'pyarrow.dataset', 'rich') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_no_warning_on_a_normal_call(files):
    path, _ = files["parquet"]
    s = scan(path, batch_rows=7)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        roc_auc_score(s["click"], s["score"])
        gauc_score(s["click"], s["score"], groups=s["user"])


# ------------------------------------------------------------------ retention
def _events(seed: int = 0, n: int = 700) -> dict[str, np.ndarray]:
    """An event log in time order (users interleaved), with a signup column."""
    rng = np.random.default_rng(seed)
    users = rng.integers(0, 120, n)
    start = np.datetime64("2024-03-01T00:00:00", "s").astype(np.int64)
    seconds = np.sort(start + rng.integers(0, 50 * 86400, n))
    signup = start + rng.integers(-3, 40, 120) * 86400 + rng.integers(0, 86400, 120)
    sign = signup[users].astype("datetime64[s]")
    sign[users % 7 == 0] = np.datetime64("NaT")  # no signup time: the first event's period
    sign[(users % 5 == 0) & (rng.random(n) < 0.5)] = np.datetime64("NaT")  # on some rows only
    return {
        "user": np.array([f"u{u:03d}" for u in users]),
        "time": seconds.astype("datetime64[s]"),
        "epoch_ms": seconds * 1000,
        "signup": sign,
        "day": seconds.astype("datetime64[s]").astype("datetime64[D]"),
    }


def _same_retention(got, expected) -> None:
    for field in ("new_users", "login_users", "cohort_counts", "retained", "periods"):
        np.testing.assert_array_equal(getattr(got, field), getattr(expected, field))
    for field in ("login_users_per_new_user", "day_n_retention", "cohort_retention"):
        np.testing.assert_array_equal(getattr(got, field), getattr(expected, field))
    for field in (
        "n_events", "n_users", "n_users_without_signup", "n_users_signup_before_window",
        "n_users_signup_after_window", "n_events_before_signup", "n_users_events_before_signup",
        "n_events_dropped", "time_unit", "time_unit_inferred",
    ):  # fmt: skip
        assert getattr(got, field) == getattr(expected, field), field


@pytest.fixture(scope="module")
def event_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, dict]]:
    directory = str(tmp_path_factory.mktemp("events"))
    data = _events()
    return {fmt: (_write(directory, data, fmt, "events"), data) for fmt in FORMATS}


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("batch_rows", [1, 13, 10**6])
@pytest.mark.parametrize(
    "options",
    [{}, {"signup": "signup"},
     {"signup": "signup", "before_signup": "drop", "period": "week"},
     {"time": "epoch_ms", "tz": "Asia/Shanghai", "days": (1, 2, 7)},
     {"time": "day", "tz": "America/New_York", "period": "month"}],
)  # fmt: skip
def test_retention_equals_in_memory(event_files, fmt, batch_rows, options):
    from receval import retention

    path, _ = event_files[fmt]
    expected = retention(path, **options)
    got = retention(scan(path, batch_rows=batch_rows, progress=False), **options)
    _same_retention(got, expected)
    if "signup" in options:
        assert got.n_events_before_signup > 0 and got.n_users_without_signup > 0


def test_retention_scan_checks_signup_and_errors(tmp_path):
    from receval import retention

    data = _events(1, 200)
    data["signup"][:] = np.datetime64("2024-03-02T00:00:00")
    data["user"][:] = "same"
    data["signup"][150] = data["signup"][0] + np.timedelta64(1, "D")  # in a later batch
    path = _write(str(tmp_path), data, "parquet", "conflict")
    with pytest.raises(InputValidationError, match="one time per user"):
        retention(scan(path, batch_rows=50, progress=False), signup="signup")
    with pytest.raises(InvalidParameterError, match="signup"):
        retention(scan(path, progress=False), signup={"same": "2024-03-01"})
    data = _events(2, 200)
    path = _write(str(tmp_path), data, "parquet", "early")
    with pytest.raises(InputValidationError, match="earlier than the user's signup"):
        retention(scan(path, batch_rows=30, progress=False), signup="signup",
                  before_signup="error")  # fmt: skip
    data = {"user": np.array([1, 2]), "time": np.array([5.0, 7.0])}
    path = _write(str(tmp_path), data, "parquet", "numbers")
    with pytest.raises(InputValidationError, match="time_unit"):
        retention(scan(path, progress=False))

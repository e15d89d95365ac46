"""A scan gives the in-memory value (``==``) of every metric it runs, whatever the shape
of its files: rows cut into files (some empty) and row groups of any sizes (some
empty), batches of any size (one row each, or groups and ties straddling them), labels
as bool, int8 or float, scores as float64, float32 or float16, group ids as integers,
strings or dictionaries of strings."""

from __future__ import annotations

import os
import warnings
from itertools import pairwise

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import receval as rv

# few distinct scores: ties within and across batches
SCORES = np.array([0.0, 0.125, 0.25, 0.5, 0.5000001, 0.75, 1.0])
LABEL_TYPES = {"bool": np.bool_, "int8": np.int8, "float": np.float64}
SCORE_TYPES = {"float64": np.float64, "float32": np.float32, "float16": np.float16}
ID_TYPES = {
    "int": lambda g: pa.array(g),
    "string": lambda g: pa.array([f"u{x}" for x in g]),
    "dictionary": lambda g: pa.array([f"u{x}" for x in g]).dictionary_encode(),
}

METRICS = {
    "roc_auc": lambda y, p, w, g: rv.roc_auc_score(y, p, sample_weight=w),
    "gauc": lambda y, p, w, g: rv.gauc_score(y, p, groups=g, sample_weight=w),
    "log_loss": lambda y, p, w, g: rv.log_loss(y, p, sample_weight=w),
    "pcoc": lambda y, p, w, g: rv.pcoc(y, p, sample_weight=w),
    "average_precision": lambda y, p, w, g: rv.average_precision_score(y, p, sample_weight=w),
    "expected_calibration_error": lambda y, p, w, g: rv.compute(
        "expected_calibration_error", y, p, sample_weight=w
    ),
    "grouped_auprc": lambda y, p, w, g: rv.compute("grouped_auprc", y, p, groups=g),
    "grouped_xauc": lambda y, p, w, g: rv.compute("grouped_xauc", y, p, groups=g),
}


def _value(metric, *data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # an undefined value: nan in both
        return metric(*data)


def _same(a, b) -> bool:
    return a == b or (np.isnan(a) and np.isnan(b))


@st.composite
def _tables(draw):
    n = draw(st.integers(2, 40))
    users = np.sort(draw(st.lists(st.integers(0, 6), min_size=n, max_size=n)))
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    p = SCORES[draw(st.lists(st.integers(0, len(SCORES) - 1), min_size=n, max_size=n))]
    w = np.array(draw(st.lists(st.sampled_from([0.5, 1.0, 2.0, 3.25]), min_size=n, max_size=n)))
    # cuts of the rows into files, and of each file into row groups (repeats: empty ones)
    files = sorted(draw(st.lists(st.integers(0, n), max_size=3)))
    groups = sorted(draw(st.lists(st.integers(0, n), max_size=6)))
    return users, y, p, w, [0, *files, n], groups


def _write(directory, columns: dict[str, pa.Array], files: list[int], groups: list[int]) -> str:
    """The rows cut into files at ``files``, each file's rows into row groups at the cuts
    of ``groups`` within it (an empty cut: an empty file, or an empty row group)."""
    table = pa.table(columns)
    for i, (lo, hi) in enumerate(pairwise(files)):
        part = table.slice(lo, hi - lo)
        cuts = [lo, *[c for c in groups if lo <= c <= hi], hi]
        with pq.ParquetWriter(os.path.join(directory, f"part-{i:02d}.parquet"), part.schema) as w:
            for a, b in pairwise(cuts):
                w.write_table(table.slice(a, b - a), row_group_size=max(b - a, 1))
    return directory


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    data=_tables(),
    labels=st.sampled_from(list(LABEL_TYPES)),
    scores=st.sampled_from(list(SCORE_TYPES)),
    ids=st.sampled_from(list(ID_TYPES)),
    batch_rows=st.integers(1, 9),
    weighted=st.booleans(),
)
def test_every_metric_of_a_scan_is_its_in_memory_value(
    tmp_path_factory, data, labels, scores, ids, batch_rows, weighted
):
    users, y, p, w, files, groups = data
    assume(0 < y.sum() < len(y))  # both labels: AUCs defined somewhere
    y = y.astype(LABEL_TYPES[labels])
    p_memory = p.astype(SCORE_TYPES[scores])  # the function is given the file's type
    p_arrow = pa.array(p_memory)
    g_arrow = ID_TYPES[ids](users)
    g_memory = np.asarray(g_arrow.cast(pa.string()) if ids == "dictionary" else g_arrow)
    columns = {"y": pa.array(y), "p": p_arrow, "w": pa.array(w), "g": g_arrow}
    directory = _write(str(tmp_path_factory.mktemp("rows")), columns, files, groups)
    s = rv.scan(directory, batch_rows=batch_rows)
    weights = w if weighted else None
    for name, metric in METRICS.items():
        expected = _value(metric, y, p_memory, weights, g_memory)
        got = _value(metric, s["y"], s["p"], s["w"] if weighted else None, s["g"])
        assert _same(got, expected), (name, got, expected)


@pytest.mark.parametrize("batch_rows", [1, 2, 5])
@pytest.mark.parametrize("ids", list(ID_TYPES))
def test_evaluate_of_users_straddling_batches_and_row_groups(tmp_path, batch_rows, ids):
    rng = np.random.default_rng(batch_rows)
    users = np.repeat(np.arange(6), 4)
    items = np.tile(np.arange(4), 6)
    scores = rng.choice([0.1, 0.5, 0.5, 0.9], len(users))  # ties within users
    columns = {"user": ID_TYPES[ids](users), "item": pa.array(items), "score": pa.array(scores)}
    directory = _write(str(tmp_path), columns, [0, 7, 7, 24], [3, 3, 11, 17])
    names = [f"u{u}" if ids != "int" else int(u) for u in users]  # the ids the file holds
    relevant = rng.random(len(users)) < 0.5
    qrels = rv.Qrels.from_dict(
        {
            u: {int(i): 1 for uu, i, r in zip(names, items, relevant, strict=True) if uu == u and r}
            for u in dict.fromkeys(names)
        }
    )
    run = rv.Run.from_dict(
        {
            u: {int(i): float(x) for uu, i, x in zip(names, items, scores, strict=True) if uu == u}
            for u in dict.fromkeys(names)
        }
    )
    metrics = ["ndcg@3", "map", "recall@2", "mrr"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = rv.evaluate(qrels, run, metrics)
        got = rv.evaluate(qrels, rv.scan(directory, batch_rows=batch_rows), metrics)
    for metric in metrics:
        np.testing.assert_array_equal(got.per_user[metric], expected.per_user[metric])
        assert got.mean[metric] == expected.mean[metric]

"""A scan reads its batches one ahead in a thread and says where a call's time went.

``scan.timings`` after a metric call: the passes over the file, the rows read,
the seconds reading and computing; the reader thread ends with the call, also
when a batch raises or the metric stops early.
"""

from __future__ import annotations

import threading

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import receval
from receval import InputValidationError, Qrels, evaluate, gauc_score, log_loss, roc_auc_score
from receval.data.scan import ScanTimings


def _readers() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "receval-scan-reader"]


@pytest.fixture
def path(tmp_path) -> str:
    rng = np.random.default_rng(0)
    n = 5000
    out = str(tmp_path / "impressions.parquet")
    table = pa.table({
        "user": np.repeat(np.arange(n // 10), 10),
        "item": np.tile(np.arange(10), n // 10),
        "click": (rng.random(n) < 0.3).astype(np.int8),
        "score": rng.random(n),
        "weight": np.arange(n) % 3 + 0.5,
    })  # fmt: skip
    pq.write_table(table, out, row_group_size=1000)
    return out


def test_no_timings_before_a_call(path):
    assert receval.scan(path).timings is None


@pytest.mark.parametrize(
    "call",
    [
        lambda s: log_loss(s["click"], s["score"]),
        lambda s: gauc_score(s["click"], s["score"], groups=s["user"]),
        lambda s: roc_auc_score(s["click"], s["score"]),
        lambda s: evaluate(Qrels([0, 1], [3, 4]), s.as_run(), ["ndcg@5"]),
    ],
)
def test_a_call_reports_one_pass_over_every_row(path, call):
    s = receval.scan(path, batch_rows=700)
    call(s)
    t = s.timings
    assert isinstance(t, ScanTimings)
    assert (t.passes, t.rows) == (1, 5000)
    assert t.read > 0 and t.wall > 0 and 0 <= t.compute <= t.wall
    assert "1 pass, 5,000 rows" in str(t)
    assert not _readers()


def test_the_exact_auc_in_ranges_counts_its_passes(path):
    s = receval.scan(path, batch_rows=700, max_memory=1 << 14)  # ranges of ~500 rows
    value = roc_auc_score(s["click"], s["score"])
    table = pq.read_table(path)
    assert value == roc_auc_score(table["click"].to_numpy(), table["score"].to_numpy())
    t = s.timings
    assert t.passes > 2  # the histogram, then a pass per range
    assert t.rows == 5000 * t.passes
    assert f"{t.passes} passes" in str(t)


def test_each_call_has_its_own_timings(path):
    s = receval.scan(path, max_memory=1 << 14)
    roc_auc_score(s["click"], s["score"])
    log_loss(s["click"], s["score"])
    assert (s.timings.passes, s.timings.rows) == (1, 5000)


def test_an_error_in_a_batch_is_raised_by_the_call_and_the_reader_ends(path, tmp_path):
    bad = str(tmp_path / "bad.parquet")
    table = pq.read_table(path)
    score = table["score"].to_numpy().copy()
    score[3500] = np.nan
    pq.write_table(table.set_column(3, "score", pa.array(score)), bad, row_group_size=1000)
    s = receval.scan(bad, batch_rows=700)
    with pytest.raises(InputValidationError, match="row 3501"):
        log_loss(s["click"], s["score"])
    assert not _readers()
    assert s.timings is not None and s.timings.rows <= 5000


def test_an_error_of_the_reader_is_raised_by_the_call(path, tmp_path):
    other = str(tmp_path / "other.parquet")
    pq.write_table(pa.table({"click": ["1"], "score": [0.5]}), other)  # click as strings
    s = receval.scan([path, other])
    with pytest.raises(InputValidationError, match=r"other\.parquet: column 'click' is string"):
        log_loss(s["click"], s["score"])
    assert not _readers()


def test_a_consumer_that_stops_early_ends_the_reader(path):
    s = receval.scan(path, batch_rows=100)
    batches = s.batches(["click"])
    first = next(batches)
    assert len(first["click"]) == 100
    assert _readers()  # reading ahead while the first batch is used
    batches.close()
    assert not _readers()
    assert s.timings is not None and s.timings.passes == 1


@pytest.mark.parametrize("weighted", [False, True])
def test_the_exact_auc_reads_a_file_that_fits_its_budget_once(path, weighted):
    per_row = 40 if weighted else 8  # bytes per gathered row
    s = receval.scan(path, max_memory=8 * per_row * 7000)  # 7000 rows gathered, 5250 in pass 1
    table = pq.read_table(path)
    y, score = table["click"].to_numpy(), table["score"].to_numpy()
    w = np.arange(5000) % 3 + 0.5
    if weighted:
        value = roc_auc_score(s["click"], s["score"], sample_weight=s["weight"])
        assert value == roc_auc_score(y, score, sample_weight=w)
    else:
        assert roc_auc_score(s["click"], s["score"]) == roc_auc_score(y, score)
    assert s.timings.passes == 1


@pytest.mark.parametrize("weights", ["any bits", "tiny", "integers"])
@pytest.mark.parametrize("max_memory", [None, 4 * 40 * 600])  # one pass, or several ranges
def test_the_weighted_exact_auc_of_a_scan_is_the_in_memory_float(tmp_path, weights, max_memory):
    """Weights of every bit (twice the U passes 2**128 units, summed exactly), tiny
    weights and integers, with tied scores: the scan, read in
    one pass or range after range, gives the function's float."""
    rng = np.random.default_rng(5)
    n = 4000
    y = (rng.random(n) < 0.3).astype(np.int8)
    score = np.round(rng.random(n), 2)  # 101 distinct scores: many ties
    w = {
        "any bits": rng.random(n) * 3,
        "tiny": rng.random(n) * 1e-300,
        "integers": rng.integers(0, 4, n).astype(np.float64),
    }[weights]
    out = str(tmp_path / "weighted.parquet")
    pq.write_table(pa.table({"click": y, "score": score, "weight": w}), out)
    budget = {} if max_memory is None else {"max_memory": max_memory}
    s = receval.scan(out, batch_rows=700, **budget)
    got = roc_auc_score(s["click"], s["score"], sample_weight=s["weight"])
    assert got == roc_auc_score(y, score, sample_weight=w)
    assert (s.timings.passes > 2) == (max_memory is not None)


def test_the_first_pass_of_the_exact_auc_gathers_the_lowest_range(path):
    s = receval.scan(path, max_memory=8 * 8 * 2000)  # 2000 rows at once: 5000 need 3 ranges
    table = pq.read_table(path)
    expected = roc_auc_score(table["click"].to_numpy(), table["score"].to_numpy())
    assert roc_auc_score(s["click"], s["score"]) == expected
    assert s.timings.passes == 3  # the histogram and the lowest range, then 2 ranges


@pytest.fixture
def float32_path(path, tmp_path) -> str:
    """The impressions of ``path`` with float32 scores."""
    table = pq.read_table(path)
    scores = table["score"].cast(pa.float32())
    out = str(tmp_path / "float32.parquet")
    pq.write_table(table.set_column(3, "score", scores), out, row_group_size=1000)
    return out


def test_float32_scores_are_gathered_at_half_the_memory(float32_path):
    """The budget of 2000 float64 scores holds 4000 float32 scores: the 5000 rows take
    the first pass and one more (3 passes as float64, above), for the same float."""
    s = receval.scan(float32_path, max_memory=8 * 8 * 2000)
    table = pq.read_table(float32_path)
    y, score = table["click"].to_numpy(), table["score"].to_numpy()
    assert score.dtype == np.float32
    assert roc_auc_score(s["click"], s["score"]) == roc_auc_score(y, score)
    assert s.timings.passes == 2


@pytest.mark.parametrize("max_memory", [8 * 8 * 2000, 32 * 600, None])
def test_weighted_float32_scores_give_the_in_memory_float(float32_path, max_memory):
    budget = {} if max_memory is None else {"max_memory": max_memory}
    s = receval.scan(float32_path, batch_rows=700, **budget)
    table = pq.read_table(float32_path)
    y, score, w = (table[c].to_numpy() for c in ("click", "score", "weight"))
    got = roc_auc_score(s["click"], s["score"], sample_weight=s["weight"])
    assert got == roc_auc_score(y, score, sample_weight=w)


def test_files_with_float32_and_float64_scores_gather_float64(path, float32_path, tmp_path):
    # the float64 file's scores are not float32 values: both files are gathered as float64
    s = receval.scan([float32_path, path], max_memory=8 * 8 * 2000)
    t32, t64 = pq.read_table(float32_path), pq.read_table(path)
    y = np.concatenate([t32["click"].to_numpy(), t64["click"].to_numpy()])
    score = np.concatenate([t32["score"].to_numpy().astype(np.float64), t64["score"].to_numpy()])
    assert roc_auc_score(s["click"], s["score"]) == roc_auc_score(y, score)


def test_a_file_of_one_batch_is_read_without_a_thread(path):
    s = receval.scan(path)  # 5000 rows: one batch
    batches = s.batches(["click"])
    assert len(next(batches)["click"]) == 5000
    assert not _readers()
    assert next(batches, None) is None
    assert (s.timings.passes, s.timings.rows) == (1, 5000)

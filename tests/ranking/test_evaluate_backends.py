"""One aggregation of users for every backend of ``evaluate``.

In memory, over a scanned run (batches of whole users), and as accumulators over
random splits of the users merged in random order, the ranking aggregation gives
the same means to the last bit and the same counts of users missing, only in the
run, without a relevant item, skipped and tie-dependent, and of unmatched items,
on random qrels and runs with tied scores and users without relevant items.
Spark runs the same check in tests/spark/test_parity.py.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import receval as rv
from receval.ranking.aggregate import finalize, make_setup

METRICS = ["ndcg@5", "map@10", "mrr", "recall@10", "pooled_hit_ratio@5", "r_precision", "p@3",
           "success@3", "gm_map", "num_rel_ret"]  # fmt: skip
CONVENTIONS = [
    {},
    {"ties": "average", "empty_users": "zero"},
    {"missing_users": "skip", "gain": "exponential"},
    {"profile": "recommenders"},
    {"profile": "trec_eval"},
]
COUNTS = (
    "n_users", "n_users_missing", "n_run_only_users", "n_run_items", "n_run_items_unmatched",
    "n_users_empty", "n_users_skipped", "n_users_tie_dependent", "mean_ties_average",
)  # fmt: skip


def ranking_data(seed: int) -> tuple[dict, dict]:
    """Qrels and a run: ties, users without a relevant item, users on one side only,
    run items no user judges."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for u in range(60):
        if u % 11 != 4:  # only in the run
            items = rng.choice(30, int(rng.integers(1, 8)), replace=False)
            qrels[u] = {int(i): int(rng.choice([0, 0, 1, 2])) for i in items}
            if u % 7 == 0:  # no relevant item
                qrels[u] = dict.fromkeys(qrels[u], 0)
        if u % 13 != 3:  # absent from the run
            items = rng.choice(40, int(rng.integers(1, 15)), replace=False)
            run[u] = {int(i): float(rng.choice([0.1, 0.5, 0.5, 0.9])) for i in items}
    return qrels, run


def _same(got: rv.EvaluationReport, want: rv.EvaluationReport) -> None:
    for text, value in want.mean.items():
        assert got.mean[text] == value or (np.isnan(value) and np.isnan(got.mean[text])), text
    for name in COUNTS:
        assert getattr(got, name) == getattr(want, name), name


def _options(text: str, conventions: dict) -> dict:
    """The conventions a metric reads (an accumulator refuses the others)."""
    reads = rv.parse_metric(text).info.conventions
    return {k: v for k, v in conventions.items() if k in (*reads, "profile")}


@pytest.mark.parametrize("conventions", CONVENTIONS)
@pytest.mark.parametrize("seed", range(3))
def test_accumulators_over_random_splits_merged_in_random_order(conventions, seed):
    qrels, run = ranking_data(seed)
    rng = np.random.default_rng(100 + seed)
    users = rng.permutation(sorted(set(qrels) | set(run)))
    in_qrels = [u for u in users if u in qrels]
    parts = [list(p) for p in np.array_split(np.asarray(in_qrels), int(rng.integers(2, 6)))]
    for u in users:  # run-only users join a random part
        if u not in qrels:
            parts[int(rng.integers(len(parts)))].append(u)
    for text in METRICS:
        options = _options(text, conventions)
        want = rv.evaluate(qrels, run, [text], **options)
        order = rng.permutation(len(parts))
        for whole in (True, False):  # the aggregation's state of whole users, or the rows
            accs = []
            for part in parts:
                acc = rv.metric(text, whole_groups=whole, **options)
                acc.update({u: qrels[u] for u in part if u in qrels},
                           {u: run[u] for u in part if u in run})  # fmt: skip
                accs.append(acc)
            merged = accs[order[0]]
            for i in order[1:]:
                merged.merge(accs[i])
            got = merged.compute()
            assert got == want.mean[text] or (np.isnan(got) and np.isnan(want.mean[text])), text
        setup = make_setup(
            [text], {"profile": None, **options}, with_qrels=True, rows=False, func="evaluate"
        )
        accs = [rv.metric(text, whole_groups=True, **options) for _ in parts]
        for acc, part in zip(accs, parts, strict=True):
            acc.update({u: qrels[u] for u in part if u in qrels},
                       {u: run[u] for u in part if u in run})  # fmt: skip
        for acc in accs[1:]:
            accs[0].merge(acc)
        _same(finalize(setup, accs[0].state), want)


@pytest.mark.parametrize("conventions", CONVENTIONS)
@pytest.mark.parametrize("batch_rows", [5, 40, 10**6])
def test_scan_equals_memory(tmp_path, conventions, batch_rows):
    qrels, run = ranking_data(7)
    rows = [(u, i, s) for u, items in run.items() for i, s in items.items()]
    path = tmp_path / "run.parquet"
    columns = {k: [r[j] for r in rows] for j, k in enumerate(("user", "item", "score"))}
    pq.write_table(pa.table(columns), path, row_group_size=17)
    want = rv.evaluate(qrels, run, METRICS, **conventions)
    got = rv.evaluate(qrels, rv.scan(path, batch_rows=batch_rows).as_run(), METRICS,
                      **conventions)  # fmt: skip
    _same(got, want)
    np.testing.assert_array_equal(got.users, want.users)
    for text in METRICS:
        np.testing.assert_array_equal(got.values[text], want.values[text], err_msg=text)


def test_zero_users_skip_counts_no_user_for_a_part_without_values():
    # Recommenders' r_precision leaves out the users without a relevant item in the
    # top k, and is 0.0 when no user has one: a part of the users without any must
    # not count a user at 0 in the merged mean
    qrels = {u: {"a": 1} for u in range(6)}
    run = {u: {"a": 0.9} if u == 0 else {"b": 0.9} for u in range(6)}
    want = rv.evaluate(qrels, run, ["r_precision"], profile="recommenders")
    assert want.mean["r_precision"] == 1.0 and want.n_users_skipped["r_precision"] == 5
    acc = rv.metric("r_precision", profile="recommenders")
    for part in ([0, 2], [3, 4], [1, 5]):
        acc.update({u: qrels[u] for u in part}, {u: run[u] for u in part})
    assert acc.compute() == 1.0
    none = {u: {"b": 0.9} for u in range(6)}
    assert rv.evaluate(
        qrels, none, ["r_precision"], profile="recommenders", allow_unmatched=True
    ).mean == {"r_precision": 0.0}
    acc = rv.metric("r_precision", profile="recommenders", allow_unmatched=True)
    for part in ([0, 2], [3, 4], [1, 5]):
        acc.update({u: qrels[u] for u in part}, {u: none[u] for u in part})
    with pytest.warns(rv.UnmatchedIdsWarning, match="none of the run's 1 item is judged"):
        assert acc.compute() == 0.0


def test_matching_and_tie_rules_are_checked_over_every_batch(tmp_path):
    # the missing users of a scanned run are counted over all the batches
    qrels, run = ranking_data(3)
    rows = [(u, i, s) for u, items in run.items() for i, s in items.items()]
    path = tmp_path / "run.parquet"
    columns = {k: [r[j] for r in rows] for j, k in enumerate(("user", "item", "score"))}
    pq.write_table(pa.table(columns), path)
    n_missing = len(set(qrels) - set(run))
    for source in (run, rv.scan(path, batch_rows=7).as_run()):
        with pytest.raises(rv.InputValidationError, match=f"{n_missing} qrels users are absent"):
            rv.evaluate(qrels, source, ["p@5"], missing_users="error")
        with pytest.warns(rv.TieOrderWarning, match="users have tied scores"):
            rv.evaluate(qrels, source, ["p@5"], profile="recbole")

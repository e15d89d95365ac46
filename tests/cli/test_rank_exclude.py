"""``receval rank --exclude FILE`` / ``--repeats``: seen-item masking of evaluate."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import receval as rv
from tests.cli._helpers import invoke, make_runner

QRELS = {"u": {"b": 1, "c": 1}, "v": {"c": 1}, "w": {"a": 1}}
RUN = {"u": {"a": 0.9, "b": 0.8, "c": 0.7}, "v": {"a": 0.9, "c": 0.5, "d": 0.4}}
TRAIN = {"u": ["a"], "v": ["a", "d"], "x": ["c"]}
METRICS = ["ndcg@2", "recall@1", "p@1", "mrr"]


@pytest.fixture
def files(tmp_path):
    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_text("".join(f"{u} 0 {i} {g}\n" for u, d in QRELS.items() for i, g in d.items()))
    run.write_text("".join(f"{u} Q0 {i} 1 {s} m\n" for u, d in RUN.items() for i, s in d.items()))
    rows = [(u, i) for u, items in TRAIN.items() for i in items]
    train_csv = tmp_path / "train.csv"
    pd.DataFrame(rows, columns=["uid", "iid"]).to_csv(train_csv, index=False)
    train_trec = tmp_path / "train.qrels"
    train_trec.write_text("".join(f"{u} 0 {i} 1\n" for u, i in rows))
    return qrels, run, train_csv, train_trec


def _args(qrels, run, *more):
    args = ["rank", "--qrels", qrels, "--run", run, *more]
    for m in METRICS:
        args += ["-m", m]
    return args


@pytest.mark.parametrize("trec", [False, True])
def test_rank_masks_as_evaluate_and_counts(files, trec):
    qrels, run, train_csv, train_trec = files
    given = ["--exclude", train_trec] if trec else ["--exclude", train_csv, "--user", "uid",
                                                     "--item", "iid"]  # fmt: skip
    result = invoke(make_runner(), *_args(qrels, run, *given), "--format", "json")
    out = json.loads(result.stdout)[0]
    want = rv.evaluate(QRELS, RUN, METRICS, exclude=TRAIN)
    for m in METRICS:
        assert out[m] == pytest.approx(want.mean[m], rel=1e-12)
    assert out["counts"]["masking"] == {
        "repeats": False,
        "n_rows_removed": 3,
        "n_users_masked": 2,
        "n_users_without_history": 0,
        "n_qrels_seen": 0,
    }
    assert "r.txt: 3 seen items removed from 2 users' lists." in result.stderr
    plain = json.loads(invoke(make_runner(), *_args(qrels, run), "--format", "json").stdout)[0]
    assert plain["p@1"] != out["p@1"] and "masking" not in plain["counts"]


def test_rank_repeats_is_said(files):
    qrels, run, *_ = files
    result = invoke(make_runner(), *_args(qrels, run, "--repeats"), "--format", "json")
    out = json.loads(result.stdout)[0]
    assert out["counts"]["masking"]["repeats"] is True
    assert out["p@1"] == rv.evaluate(QRELS, RUN, ["p@1"]).mean["p@1"]
    assert "repeat consumption declared" in result.stderr


def test_rank_refuses_both_and_a_bad_file(files, tmp_path):
    qrels, run, train_csv, _ = files
    result = invoke(make_runner(), *_args(qrels, run, "--exclude", train_csv, "--repeats"),
                    code=2)  # fmt: skip
    assert "error: --exclude removes the seen items" in result.stderr
    result = invoke(make_runner(), *_args(qrels, run, "--exclude", train_csv), code=2)
    assert "error:" in result.stderr and "'user'" in result.stderr
    result = invoke(make_runner(), *_args(qrels, run, "--exclude", tmp_path / "none.csv"),
                    code=2)  # fmt: skip
    assert "error:" in result.stderr and "none.csv" in result.stderr


def test_rank_warns_of_an_exclude_file_of_no_run_user(files, tmp_path):
    # U and V beside u and v: nothing was masked, and the note alone said so
    qrels, run, _, _ = files
    other = tmp_path / "other.csv"
    other.write_text("user,item\nU,a\nV,d\n")
    result = invoke(make_runner(), *_args(qrels, run, "--exclude", other))
    assert (
        "warning: receval rank: none of the 2 users of the exclusions (--exclude FILE) is a "
        "run user, e.g. excluded users ['U', 'V'], run users ['u', 'v'], so they exclude "
        "nothing; check the ids for a prefix, a type or a column mix-up."
    ) in " ".join(result.stderr.split())

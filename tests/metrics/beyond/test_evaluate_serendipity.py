"""serendipity@k and miscalibration@k as metric strings of evaluate (train=, item_categories=).

Each equals its function per user; scans, streaming accumulators and qrels users
follow evaluate's rules; the missing inputs raise naming what to pass.
"""

import math

import numpy as np
import pandas as pd
import pytest

import receval as rv
from receval import evaluate, parse_metric
from receval.exceptions import InvalidParameterError

CATS = {i: [f"g{i % 3}"] + ([f"g{i % 5}"] if i % 2 else []) for i in range(30)}


def _data(seed=0):
    rng = np.random.default_rng(seed)
    users = np.repeat(np.arange(40), 6)
    frame = pd.DataFrame(
        {"user": users, "item": rng.integers(0, 30, len(users)), "score": rng.random(len(users))}
    ).drop_duplicates(["user", "item"])
    train_users = rng.integers(0, 45, 150)  # users 40-44 only in train; some run users lack one
    train = pd.DataFrame({"user": train_users, "item": rng.integers(0, 30, 150)})
    qrels = frame.sample(frac=0.3, random_state=seed).assign(grade=1)[["user", "item", "grade"]]
    return frame, train, qrels


def test_per_user_values_equal_the_functions():
    frame, train, _ = _data()
    metrics = ["serendipity@3", "serendipity", "miscalibration@4", "miscalibration(alpha=0.2)@2"]
    report = evaluate(None, frame, metrics, train=train, item_categories=CATS)
    values = report.to_frame().set_index("user")
    for k in (3, None):
        per_user = rv.user_serendipity(frame, train, k=k)
        text = "serendipity" if k is None else f"serendipity@{k}"
        got = values[text].dropna().to_dict()
        assert got == pytest.approx({int(u): x for u, x in per_user.items()}, abs=1e-12)
        assert report.mean[text] == pytest.approx(rv.serendipity(frame, train, k=k), abs=1e-12)
        assert report.n_users_skipped[text] == rv.serendipity(frame, train, k=k).n_users_skipped
    for text, k, alpha in (("miscalibration@4", 4, 0.01), ("miscalibration(alpha=0.2)@2", 2, 0.2)):
        expected = rv.miscalibration(frame, train, item_categories=CATS, k=k, alpha=alpha)
        assert report.mean[text] == pytest.approx(expected, abs=1e-12)
        assert report.n_users_skipped[text] == expected.n_users_skipped


def test_features_give_the_feature_cosine():
    frame, train, _ = _data(1)
    feats = np.random.default_rng(5).random((30, 4))
    report = evaluate(None, frame, ["serendipity@5"], train=train, features=feats)
    assert report.mean["serendipity@5"] == pytest.approx(
        rv.serendipity(frame, train, k=5, features=feats), abs=1e-12
    )


def test_qrels_users_scan_and_accumulator():
    frame, train, qrels = _data(2)
    metrics = ["serendipity@3", "miscalibration@3", "ndcg@3"]
    kw = {"train": train, "item_categories": CATS}
    report = evaluate(qrels, frame, metrics, **kw)
    per_run = evaluate(None, frame, metrics[:2], **kw).to_frame().set_index("user")
    per_qrels = report.to_frame().set_index("user")
    for text in metrics[:2]:
        expected = per_run.loc[per_qrels.index, text]
        assert np.allclose(per_qrels[text], expected, equal_nan=True, atol=1e-12)
        acc = rv.metric(text, **kw)
        acc.update(qrels, frame)
        assert acc.compute() == pytest.approx(report.mean[text], abs=1e-12)


def test_scan_equals_in_memory(tmp_path):
    frame, train, qrels = _data(3)
    path = tmp_path / "run.parquet"
    frame.to_parquet(path)
    metrics = ["serendipity@4", "miscalibration@4"]
    kw = {"train": train, "item_categories": CATS}
    for q in (qrels, None):
        in_memory = evaluate(q, frame, metrics, **kw)
        scanned = evaluate(q, rv.scan(path), metrics, **kw)
        for text in metrics:
            assert scanned.mean[text] == pytest.approx(in_memory.mean[text], abs=1e-12)
            assert scanned.n_users_skipped[text] == in_memory.n_users_skipped[text]


def test_metric_strings_and_missing_inputs():
    assert str(parse_metric("miscalibration(alpha=0.1)@10")) == "miscalibration(alpha=0.1)@10"
    assert str(parse_metric("miscalibration(alpha=0.01)@10")) == "miscalibration@10"
    frame, train, _ = _data()
    with pytest.raises(InvalidParameterError, match=r"^Metric 'serendipity@3' needs the users'"):
        evaluate(None, frame, ["serendipity@3"])
    with pytest.raises(InvalidParameterError, match=r"to evaluate, not popularity=\.$"):
        evaluate(None, frame, ["serendipity@3"], popularity={1: 3})
    with pytest.raises(InvalidParameterError, match=r"^Metric 'miscalibration@3' needs item"):
        evaluate(None, frame, ["miscalibration@3"], train=train)
    with pytest.raises(InvalidParameterError, match="alpha"):
        evaluate(None, frame, ["miscalibration(alpha=1)@3"], train=train, item_categories=CATS)


def test_metric_info_describes_them():
    entry = rv.metric_info("miscalibration")
    assert (entry.family, entry.function, entry.higher_is_better) == ("list", "evaluate", False)
    assert entry.inputs == ("run", "train", "item_categories")
    assert rv.metric_info("serendipity").inputs == ("run", "train")
    assert math.isclose(parse_metric("miscalibration@5").arg("alpha"), 0.01)

"""ils@k and diversity@k inside evaluate(), next to the relevance metrics."""

import math

import numpy as np
import pytest

from receval import Run, evaluate, intra_list_similarity
from receval.exceptions import InvalidParameterError

# a = (1, 0), b = (0, 1), c = (1, 1): cos(a, b) = 0, cos(a, c) = cos(b, c) = 1 / sqrt(2)
FEATURES = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
IDS = ["a", "b", "c"]
RUN = {"u1": {"a": 0.9, "b": 0.8, "c": 0.7}, "u2": {"c": 0.9, "a": 0.5}, "u3": {"b": 0.4}}
QRELS = {"u1": {"a": 1}, "u2": {"a": 1}, "u3": {"b": 1}, "u4": {"c": 1}}


def test_hand_computed_values_beside_relevance_metrics():
    report = evaluate(
        QRELS, RUN, ["ils@3", "diversity@3", "ils@2", "p@1"], features=FEATURES, feature_items=IDS
    )
    s = 1 / math.sqrt(2)
    users = report.users.tolist()
    assert users == ["u1", "u2", "u3", "u4"]
    ils3 = report.values["ils@3"]
    assert ils3[0] == pytest.approx(2 * s / 3, abs=1e-12)  # pairs (a,b), (a,c), (b,c)
    assert ils3[1] == pytest.approx(s, abs=1e-12)  # (c, a)
    assert math.isnan(ils3[2]) and math.isnan(ils3[3])  # one item; absent from the run
    assert report.values["ils@2"][0] == pytest.approx(0.0, abs=1e-12)  # (a, b) only
    np.testing.assert_allclose(report.values["diversity@3"], 1 - ils3)
    assert report.mean["ils@3"] == pytest.approx((2 * s / 3 + s) / 2, abs=1e-12)
    assert report.n_users_skipped["ils@3"] == 2
    assert report.n_users_empty["ils@3"] == 0
    assert report.mean["p@1"] == pytest.approx(0.5)  # u1, u2 hit; u3 misses; u4 zero-filled
    assert report.metrics["ils@3"] == "ils@3"


def test_equals_intra_list_similarity_and_needs_no_qrels():
    rng = np.random.default_rng(0)
    users = np.repeat(np.arange(50), 8)
    items = rng.integers(0, 30, len(users))
    frame = {"user": users, "item": items, "score": rng.choice([0.1, 0.5, 0.9], len(users))}
    import pandas as pd

    run = Run.from_frame(pd.DataFrame(frame).drop_duplicates(["user", "item"]))
    feats = rng.random((30, 4))
    for k in (None, 3):
        metric = "ils" if k is None else f"ils@{k}"
        alone = evaluate(None, run, [metric, "diversity" + metric[3:]], features=feats)
        assert alone.mean[metric] == pytest.approx(
            intra_list_similarity(run, k=k, features=feats), abs=1e-12
        )
        assert alone.users.tolist() == run.user_ids.tolist()
        # a similarity matrix gives the same values as the features it comes from
        unit = feats / np.linalg.norm(feats, axis=1, keepdims=True)
        by_matrix = evaluate(None, run, [metric], similarity=unit @ unit.T)
        np.testing.assert_allclose(by_matrix.values[metric], alone.values[metric], atol=1e-12)


def test_aliases_and_errors():
    report = evaluate(QRELS, RUN, ["intra_list_similarity@3"], features=FEATURES, feature_items=IDS)
    assert report.metrics["intra_list_similarity@3"] == "ils@3"
    with pytest.raises(InvalidParameterError, match=r"^Metric 'ils@3' needs item similarities"):
        evaluate(QRELS, RUN, ["ndcg@3", "ils@3"])
    needs = r"^evaluate: metric 'ndcg@3' needs relevance judgments"
    with pytest.raises(InvalidParameterError, match=needs):
        evaluate(None, RUN, ["ils@3", "ndcg@3"], features=FEATURES, feature_items=IDS)


def test_average_ties_of_the_whole_list_keep_the_order_free_value():
    import numpy as np

    import receval as rv

    run = {"u": {"a": 0.9, "b": 0.5, "c": 0.5, "d": 0.1}}
    kw = {"features": np.eye(4), "feature_items": ["a", "b", "c", "d"],
          "popularity": {"a": 5, "b": 1, "c": 3, "d": 1}}  # fmt: skip
    for metric in ("ils@2", "diversity@2"):
        name = metric.split("@")[0]
        whole = rv.evaluate(None, run, [name], ties="average", **kw).mean[name]
        assert whole == rv.evaluate(None, run, [name], ties="input", **kw).mean[name]
        explicit = f"{name}(ties=input)@2"
        assert explicit in rv.evaluate(None, run, [explicit], ties="average", **kw).mean


def _tie_orders(scores: dict):
    """Every order of the items that keeps scores descending (ties in every order)."""
    import itertools

    values = sorted(set(scores.values()), reverse=True)
    blocks = [[i for i, s in scores.items() if s == v] for v in values]
    for parts in itertools.product(*(itertools.permutations(b) for b in blocks)):
        yield [i for part in parts for i in part]


def _mean_over_tie_orders(run: dict, metric: str, **kw):
    """Each user's value of ``metric`` averaged over every order of its tied scores (the
    input order breaking the ties of each order)."""
    import numpy as np

    import receval as rv

    users = list(run)
    want = np.zeros(len(users))
    for n, u in enumerate(users):
        orders = list(_tie_orders(run[u]))
        for order in orders:
            one = {u: {i: run[u][i] for i in order}}
            rep = rv.evaluate(None, one, [metric], ties="input", **kw)
            want[n] += rep.values[metric][0] / len(orders)
    return want


@pytest.mark.parametrize("seed", range(12))
def test_average_ties_of_popularity_metrics_equal_the_enumeration(seed):
    import numpy as np

    import receval as rv

    rng = np.random.default_rng(seed)
    items = [f"i{j}" for j in range(6)]
    pop = {i: int(rng.integers(0, 6)) for i in items}
    run = {}
    for u in range(3):
        chosen = rng.choice(items, size=int(rng.integers(1, 6)), replace=False)
        run[f"u{u}"] = {i: float(rng.integers(0, 3)) for i in chosen}
    k = int(rng.integers(1, 5))
    for name in ("arp", "aplt", "aclt", "average_popularity", "tail_percentage"):
        metric = f"{name}@{k}"
        got = rv.evaluate(None, run, [metric], popularity=pop, ties="average").values[metric]
        want = _mean_over_tie_orders(run, metric, popularity=pop)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("seed", range(12))
def test_average_ties_of_miscalibration_equal_the_enumeration(seed, tmp_path):
    import numpy as np

    import receval as rv

    rng = np.random.default_rng(seed)
    items = [f"i{j}" for j in range(7)]
    genres = ["x", "y", "z"]
    if seed % 2:  # weighted categories (a distinct weight per item and genre)
        cats = {i: {g: float(rng.integers(1, 4)) for g in rng.choice(genres, 2)} for i in items}
    else:  # uniform over each item's categories
        cats = {i: list(rng.choice(genres, int(rng.integers(1, 3)), replace=False)) for i in items}
    run = {}
    for u in range(3):
        chosen = rng.choice(items, size=int(rng.integers(2, 7)), replace=False)
        run[f"u{u}"] = {i: float(rng.integers(0, 3)) for i in chosen}
    train_users = [f"u{u}" for u in range(3) for _ in range(3)]
    train = (train_users, list(rng.choice(items, len(train_users))))
    k = int(rng.integers(1, 5))
    alpha = float(rng.choice([0.01, 0.3]))
    metric = f"miscalibration(alpha={alpha})@{k}"
    kw = {"train": train, "item_categories": cats}
    got = rv.evaluate(None, run, [metric], ties="average", **kw)
    name = metric
    assert "ties=average" in got.metrics[metric]  # the metric it computed
    want = _mean_over_tie_orders(run, metric, **kw)
    np.testing.assert_allclose(got.values[name], want, rtol=1e-12, atol=1e-12)
    # the same out of core (a scan of the run's Parquet file) and as an accumulator
    import pandas as pd

    rows = [(u, i, sc) for u in run for i, sc in run[u].items()]
    pd.DataFrame(rows, columns=["user", "item", "score"]).to_parquet(tmp_path / "run.parquet")
    scan = rv.evaluate(None, rv.scan(tmp_path / "run.parquet"), [metric], ties="average", **kw)
    np.testing.assert_allclose(scan.mean[name], got.mean[name], rtol=1e-12)
    acc = rv.metric(metric, ties="average", **kw)
    acc.update(None, run)
    np.testing.assert_allclose(acc.compute(), got.mean[name], rtol=1e-12)


def test_average_ties_of_miscalibration_refuse_a_block_too_varied():
    import receval as rv

    items = [f"i{j}" for j in range(30)]
    cats = {i: {"x": 1.0 + j, "y": 1.0} for j, i in enumerate(items)}  # 30 distinct weights
    run = {"u": {i: 0.5 for i in items}}
    with pytest.raises(rv.InvalidParameterError, match=r"ties='input'"):
        rv.evaluate(None, run, ["miscalibration@10"], ties="average", train=(["u"], ["i0"]),
                    item_categories=cats)  # fmt: skip


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("kind", ["features", "matrix"])
def test_average_ties_of_ils_equal_the_enumeration(seed, kind):
    import numpy as np

    import receval as rv

    rng = np.random.default_rng(seed)
    items = [f"i{j}" for j in range(7)]
    feats = rng.random((7, 3)) - 0.3
    if kind == "features":
        kw = {"features": feats, "feature_items": items}
    else:
        sim = feats @ feats.T
        kw = {"similarity": (sim + sim.T) / 2, "feature_items": items}
    run = {}
    for u in range(4):
        chosen = rng.choice(items, size=int(rng.integers(2, 7)), replace=False)
        run[f"u{u}"] = {i: float(rng.integers(0, 3)) for i in chosen}
    k = int(rng.integers(2, 5))
    for metric in (f"ils@{k}", f"diversity@{k}"):
        got = rv.evaluate(None, run, [metric], ties="average", **kw).values[metric]
        want = np.zeros(len(run))
        for n, u in enumerate(run):
            orders = list(_tie_orders(run[u]))
            for order in orders:
                one = {u: {i: run[u][i] for i in order}}
                rep = rv.evaluate(None, one, [metric], ties="input", **kw)
                want[n] += rep.values[metric][0] / len(orders)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("seed", range(8))
def test_average_ties_of_serendipity_equal_the_enumeration(seed):
    import numpy as np

    import receval as rv

    rng = np.random.default_rng(seed)
    items = [f"i{j}" for j in range(7)]
    train_users = [f"u{u}" for u in range(3) for _ in range(3)]
    train_items = [str(x) for x in rng.choice(items, size=9)]
    train = (train_users, train_items)
    run = {}
    for u in range(3):
        chosen = rng.choice(items, size=int(rng.integers(2, 7)), replace=False)
        run[f"u{u}"] = {i: float(rng.integers(0, 3)) for i in chosen}
    k = int(rng.integers(1, 5))
    metric = f"serendipity@{k}"
    got = rv.evaluate(None, run, [metric], ties="average", train=train).values[metric]
    want = np.zeros(len(run))
    for n, u in enumerate(run):
        orders = list(_tie_orders(run[u]))
        for order in orders:
            one = {u: {i: run[u][i] for i in order}}
            rep = rv.evaluate(None, one, [metric], ties="input", train=train)
            want[n] += rep.values[metric][0] / len(orders)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_a_list_metric_refuses_a_tie_rule_it_does_not_read():
    # arp(ties=id_ascending) was taken and ignored (the run's own order)
    qrels, run, pop = {"u": {"a": 1}}, {"u": {"a": 1.0, "b": 1.0, "c": 0.5}}, {"a": 5, "b": 1}
    with pytest.raises(InvalidParameterError, match=r"arp takes ties 'input' or 'average'\. "
                       r"Got 'id_ascending' instead\."):  # fmt: skip
        evaluate(qrels, run, ["arp(ties=id_ascending)@1"], popularity=pop)
    with pytest.raises(InvalidParameterError, match=r"ties='id_descending' changes none"):
        evaluate(qrels, run, ["arp@1"], popularity=pop, ties="id_descending")
    # beside a ranking metric the keyword is that metric's; arp keeps the run's order
    both = evaluate(qrels, run, ["arp@1", "ndcg@1"], popularity=pop, ties="id_descending")
    assert both.mean == {"arp@1": 5.0, "ndcg@1": 0.0}
    averaged = evaluate(qrels, run, ["arp(ties=average)@1"], popularity=pop)
    assert averaged.mean["arp(ties=average)@1"] == 3.0

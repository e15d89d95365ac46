"""RecBole 1.2.1 and Microsoft Recommenders 1.2.1 held to their word.

Neither library is a test dependency (RecBole needs PyTorch, Recommenders pulls many
packages). Two kinds of data are read from ``data/``:

* ``recbole_suite.json``, ``recommenders_suite.json``: the literal expectations of
  the peers' own tests (RecBole's tests/metrics, Recommenders'
  test_python_evaluation.py), checked at the tolerance each test asserts (1e-12
  where it asserts equality).
* ``recorded_recbole.json``, ``recorded_recommenders.json``: values the real
  libraries returned on seeded random cases, written by
  ``record_recbole_recommenders.py`` (its docstring says how to regenerate them).
  Checked to 1e-9, except RecBole's GAUC, computed in float32 (1e-6).

RecBole builds its top k with ``torch.topk``, which orders tied scores by no rule
(and picks which tied items enter the top k by none). The recording flags, per user
and k, a block of tied scores that mixes positives and non-positives and meets the
top k; those users' values are not asserted (``test_recbole_recorded_topk``), and
their means neither. ``test_recbole_recorded_topk_in_torch_order`` asserts every
user, with the run replaced by the order torch returned.
"""

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import receval
from receval import TieOrderWarning, evaluate

DATA = Path(__file__).parent / "data"
RB_SUITE = json.loads((DATA / "recbole_suite.json").read_text())
RC_SUITE = json.loads((DATA / "recommenders_suite.json").read_text())
RB_REC = json.loads((DATA / "recorded_recbole.json").read_text())
RC_REC = json.loads((DATA / "recorded_recommenders.json").read_text())
KS = RB_REC["ks"]

# RecBole metric -> receval metric (same k)
RB_METRICS = {
    "hit": "success",
    "mrr": "mrr",
    "map": "map",
    "recall": "recall",
    "ndcg": "ndcg",
    "precision": "precision",
}
# these depend only on which items are in the top k, not on their order
RB_SET_METRICS = {"hit", "recall", "precision"}


def evaluate_tie_free(*args, **kwargs):
    """evaluate on a run without tied scores, where profile="recbole" must not warn."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", TieOrderWarning)
        return evaluate(*args, **kwargs)


def qrels_frame(rows):
    return pd.DataFrame(rows, columns=["user", "item", "grade"])


def run_frame(rows):
    return pd.DataFrame(rows, columns=["user", "item", "score"])


def per_user(report, metric, users):
    got = dict(zip(report.users.tolist(), report.values[metric].tolist(), strict=True))
    return [got[u] for u in users]


# ====================================================================== RecBole's tests


def suite_topk_inputs():
    """RecBole's pos_idx / pos_len as qrels and a run: user u ranks 3 items whose
    relevance is pos_idx[u], and has pos_len[u] - sum(pos_idx[u]) relevant items unranked."""
    fixture = RB_SUITE["topk_fixture"]
    qrels, run = {}, {}
    for u, (row, n_pos) in enumerate(zip(fixture["pos_idx"], fixture["pos_len"], strict=True)):
        run[u] = {f"r{j}": float(3 - j) for j in range(len(row))}
        qrels[u] = {f"r{j}": int(rel) for j, rel in enumerate(row)}
        for m in range(n_pos - sum(row)):
            qrels[u][f"x{m}"] = 1
    return qrels, run


def rb_suite_cases(kind):
    return [pytest.param(c, id=c["id"]) for c in RB_SUITE["cases"] if c["kind"] == kind]


@pytest.mark.parametrize("case", rb_suite_cases("topk_matrix"))
def test_recbole_suite_topk(case):
    qrels, run = suite_topk_inputs()
    name = RB_METRICS[case["metric"]]
    metrics = [f"{name}@{k}" for k in (1, 2, 3)]
    report = evaluate_tie_free(qrels, run, metrics, profile="recbole")
    users = list(range(len(case["expected"])))
    got = np.column_stack([per_user(report, m, users) for m in metrics])
    assert got == pytest.approx(np.asarray(case["expected"]), abs=1e-12)


@pytest.mark.parametrize("case", rb_suite_cases("itemcoverage"))
def test_recbole_suite_itemcoverage(case):
    fixture = RB_SUITE["topk_fixture"]
    got = receval.catalog_coverage(fixture["item_matrix"], catalog=fixture["num_items"])
    assert got == pytest.approx(case["expected"], abs=1e-12)


@pytest.mark.parametrize("case", rb_suite_cases("giniindex"))
def test_recbole_suite_giniindex(case):
    fixture = RB_SUITE["topk_fixture"]
    got = receval.gini_index(fixture["item_matrix"], catalog=fixture["num_items"])
    assert got == pytest.approx(case["expected"], abs=1e-12)


def rb_matrix_run(matrix):
    """One user per row of RecBole's item matrix, its items ranked in column order."""
    items = np.asarray(matrix)
    users = np.repeat(np.arange(items.shape[0]), items.shape[1])
    ranks = np.tile(np.arange(1, items.shape[1] + 1), items.shape[0])
    return receval.Run(users, items.reshape(-1), ranks=ranks)


def rb_fixture_popularity():
    """The fixture's item_count as receval's popularity (JSON keys are strings)."""
    fixture = RB_SUITE["topk_fixture"]
    return {int(item): count for item, count in fixture["item_count"].items()}


@pytest.mark.parametrize("case", rb_suite_cases("averagepopularity"))
def test_recbole_suite_averagepopularity(case):
    items = RB_SUITE["topk_fixture"]["item_matrix"]
    metrics = [f"average_popularity@{k}" for k in (1, 2, 3)]
    report = evaluate(None, rb_matrix_run(items), metrics, popularity=rb_fixture_popularity())
    got = np.column_stack([report.values[m] for m in metrics])
    assert got == pytest.approx(np.asarray(case["expected"]), abs=1e-12)
    for k in (1, 2, 3):  # the public function: the mean over users
        mean = receval.average_popularity(items, popularity=rb_fixture_popularity(), k=k)
        assert mean == pytest.approx(np.mean(np.asarray(case["expected"])[:, k - 1]), abs=1e-12)


@pytest.mark.parametrize("case", rb_suite_cases("tailpercentage"))
def test_recbole_suite_tailpercentage(case):
    items = RB_SUITE["topk_fixture"]["item_matrix"]
    metrics = [f"tail_percentage@{k}" for k in (1, 2, 3)]  # tail_ratio 0.1 by default
    report = evaluate(None, rb_matrix_run(items), metrics, popularity=rb_fixture_popularity())
    got = np.column_stack([report.values[m] for m in metrics])
    assert got == pytest.approx(np.asarray(case["expected"]), abs=1e-12)


@pytest.mark.parametrize("case", rb_suite_cases("shannonentropy"))
def test_recbole_suite_shannonentropy(case):
    got = receval.shannon_entropy(RB_SUITE["topk_fixture"]["item_matrix"])
    assert got == pytest.approx(case["expected"], abs=1e-12)


@pytest.mark.parametrize("case", rb_suite_cases("itemcoverage"))
def test_recbole_suite_item_coverage(case):
    # RecBole's num_items (8) is the catalogue: items 0..7, 0 its padding item
    fixture = RB_SUITE["topk_fixture"]
    got = receval.item_coverage(fixture["item_matrix"], popularity={i: 0 for i in range(8)})
    assert got == pytest.approx(case["expected"], abs=1e-12)


@pytest.mark.parametrize("case", rb_suite_cases("gauc"))
def test_recbole_suite_gauc(case):
    # RecBole weighs each user's AUC by its positives (metrics.py:316): "clicks"
    got = receval.gauc_score(
        case["labels"], case["scores"], groups=case["groups"], weighting="clicks"
    )
    assert got == pytest.approx(case["expected"], abs=1e-12)


POINTWISE = {
    "auc": lambda y, p: receval.roc_auc_score(y, p),
    "rmse": receval.root_mean_squared_error,
    "mae": receval.mean_absolute_error,
    # RecBole's LogLoss clips to [1e-15, 1 - 1e-15] (metrics.py:450-452)
    "logloss": lambda y, p: receval.log_loss(y, p, eps=1e-15),
}


@pytest.mark.parametrize(
    "case",
    [pytest.param(c, id=c["id"]) for c in RB_SUITE["cases"] if c["kind"] in POINTWISE],
)
def test_recbole_suite_pointwise(case):
    got = POINTWISE[case["kind"]](case["trues"], case["preds"])
    tol = 1e-7 if case["kind"] == "logloss" else 1e-12  # assertAlmostEqual: 7 places
    assert got == pytest.approx(case["expected"], abs=tol)


# ============================================================ RecBole, recorded values


def rb_params():
    return [
        pytest.param(case, metric, id=f"{case['id']}-{metric}")
        for case in RB_REC["ranking"]
        for metric in RB_METRICS
    ]


@pytest.mark.parametrize(("case", "metric"), rb_params())
def test_recbole_recorded_topk(case, metric):
    name = RB_METRICS[metric]
    metrics = [f"{name}@{k}" for k in KS]
    run = run_frame(case["run"])
    assert run.duplicated(["user", "score"]).any()  # the recorded runs have ties
    with pytest.warns(TieOrderWarning, match="torch.topk"):
        report = evaluate(qrels_frame(case["qrels"]), run, metrics, profile="recbole")
    users = case["users"]
    # the users RecBole evaluates (those with a positive) are the ones receval averages
    first = report.values[metrics[0]].tolist()
    kept = [u for u, x in zip(report.users.tolist(), first, strict=True) if x == x]
    assert sorted(kept) == sorted(users)
    flags = case["ties_set"] if metric in RB_SET_METRICS else case["ties_order"]
    for k, text in zip(KS, metrics, strict=True):
        tied = np.asarray(flags[str(k)])
        expected = np.asarray(case["per_user"][metric][str(k)])[~tied]
        got = np.asarray(per_user(report, text, users))[~tied]
        assert len(expected) > 0
        assert got.tolist() == pytest.approx(expected.tolist(), abs=1e-9), text
        if not tied.any():
            assert report.mean[text] == pytest.approx(case["mean"][metric][str(k)], abs=1e-9)


@pytest.mark.parametrize(("case", "metric"), rb_params())
def test_recbole_recorded_topk_in_torch_order(case, metric):
    # the run is the top 10 torch.topk returned, in its order (ties resolved by torch)
    rows = [
        [user, item, float(len(items) - j)]
        for user, items in zip(case["users"], case["topk_items"], strict=True)
        for j, item in enumerate(items)
    ]
    name = RB_METRICS[metric]
    metrics = [f"{name}@{k}" for k in KS]
    report = evaluate_tie_free(
        qrels_frame(case["qrels"]), run_frame(rows), metrics, profile="recbole"
    )
    for k, text in zip(KS, metrics, strict=True):
        got = per_user(report, text, case["users"])
        assert got == pytest.approx(case["per_user"][metric][str(k)], abs=1e-9), text
        assert report.mean[text] == pytest.approx(case["mean"][metric][str(k)], abs=1e-9)


@pytest.mark.parametrize("case", [pytest.param(c, id=c["id"]) for c in RB_REC["ranking"]])
def test_recbole_recorded_coverage_and_gini(case):
    items = np.asarray(case["topk_items"])
    for k in KS:
        lists = items[:, :k].tolist()
        coverage = receval.catalog_coverage(lists, catalog=case["num_items"])
        gini = receval.gini_index(lists, catalog=case["num_items"])
        assert coverage == pytest.approx(case["itemcoverage"][str(k)], abs=1e-12)
        assert gini == pytest.approx(case["giniindex"][str(k)], abs=1e-12)


def rb_pointwise_params():
    return [
        pytest.param(c, name, id=f"{c['id']}-{name}")
        for c in RB_REC["pointwise"]
        for name in ("gauc", "auc", "logloss", "rmse", "mae")
    ]


@pytest.mark.parametrize(("case", "name"), rb_pointwise_params())
def test_recbole_recorded_pointwise(case, name):
    y = case["labels"]
    if name == "gauc":
        # RecBole computes GAUC in float32 (rec.meanrank): 1e-6
        got = receval.gauc_score(y, case["scores"], groups=case["groups"], weighting="clicks")
        assert got == pytest.approx(case["gauc"], abs=1e-6)
    elif name == "auc":
        # RecBole's AUC reads the scores as float32; they are exact in float32
        assert receval.roc_auc_score(y, case["scores"]) == pytest.approx(case["auc"], abs=1e-9)
    else:
        # logloss: probabilities 0, 1 and within 1e-15 of them; RecBole clips p to
        # [1e-15, float64(1 - 1e-15)] and takes 1 - p for a negative
        assert POINTWISE[name](y, case["probs"]) == pytest.approx(case[name], abs=1e-9)


# ============================================================ Recommenders' tests


def rc_frame(name):
    columns = {k: v for k, v in RC_SUITE["frames"][name].items() if k != "source"}
    return pd.DataFrame(columns)


def rc_inputs(case):
    true = rc_frame(case["rating_true"])
    pred = rc_frame(case["rating_pred"])
    qrels = true.rename(columns={"userID": "user", "itemID": "item", "rating": "grade"})
    run = pred.rename(columns={"userID": "user", "itemID": "item", case["col_prediction"]: "score"})
    run = run[["user", "item", "score"]].drop_duplicates(["user", "item"])  # see 'about'
    return qrels[["user", "item", "grade"]], run


def rc_metric(case):
    metric, k = case["metric"], case["k"]
    if metric == "ndcg_at_k" and case.get("score_type", "binary") == "raw":
        return f"ndcg(gain=linear)@{k}"  # raw grades; log2 or ln discount: the same ratio
    return {
        "precision_at_k": f"precision@{k}",
        "recall_at_k": f"recall@{k}",
        "map_at_k": f"map@{k}",
        "map": "map",
        "ndcg_at_k": f"ndcg@{k}",
        "r_precision_at_k": f"r_precision@{k}",
    }[metric]


@pytest.mark.parametrize(
    "case", [pytest.param(c, id=c["id"]) for c in RC_SUITE["cases"] if c["kind"] == "ranking"]
)
def test_recommenders_suite_ranking(case):
    qrels, run = rc_inputs(case)
    if case["metric"] == "map":
        # Recommenders' map(k) cuts at k and divides by R: receval's "map" when no list
        # is longer than k
        assert run.groupby("user").size().max() <= case["k"]
    metric = rc_metric(case)
    # Recommenders scores a run without a judged item (its "nohit" cases): 0
    report = evaluate(qrels, run, [metric], profile="recommenders", allow_unmatched=True)
    got = report.mean[metric]
    assert got == pytest.approx(case["expected"], rel=case["rel"], abs=case["abs"])


def test_recommenders_suite_n_users():
    (case,) = [c for c in RC_SUITE["cases"] if c["kind"] == "n_users"]
    qrels, run = rc_inputs({**case, "col_prediction": "prediction"})
    report = evaluate(qrels, run, ["precision@10"], profile="recommenders")
    assert report.n_users - report.n_users_skipped["precision@10"] == case["expected"]


RC_POINTWISE = {
    "auc": lambda y, p: receval.roc_auc_score(y, p),
    "logloss": lambda y, p: receval.log_loss(y, p),  # sklearn's log_loss: eps "auto"
    "rmse": receval.root_mean_squared_error,
    "mae": receval.mean_absolute_error,
}


@pytest.mark.parametrize(
    "case",
    [pytest.param(c, id=c["id"]) for c in RC_SUITE["cases"] if c["kind"] in RC_POINTWISE],
)
def test_recommenders_suite_pointwise(case):
    arrays = RC_SUITE["arrays"][case["arrays"]]
    got = RC_POINTWISE[case["kind"]](arrays["y_true"], arrays["y_pred"])
    assert got == pytest.approx(case["expected"], rel=case["rel"], abs=case["abs"])


def diversity_inputs():
    train = rc_frame("diversity_train")
    reco = rc_frame("diversity_reco")
    lists = {u: g["ItemId"].tolist() for u, g in reco.groupby("UserId", sort=True)}
    return train, lists


def incidence_features(train, items):
    """Items' binary vectors over the users of the log: their cosine is Recommenders'
    item co-occurrence similarity, count(i, j) / sqrt(count(i) count(j))."""
    users = sorted(set(train[0]))
    col = {u: j for j, u in enumerate(users)}
    feats = np.zeros((len(items), len(users)))
    row = {i: j for j, i in enumerate(items)}
    for u, i in zip(*train, strict=True):
        if i in row:
            feats[row[i], col[u]] = 1.0
    return feats


def similarity_inputs(measure, train_users, train_items, lists, features):
    items = sorted({i for items in lists.values() for i in items})
    if measure == "item_cooccurrence_count":
        return incidence_features((train_users, train_items), items), items
    feats = dict(zip(features["ItemId"], features["features"], strict=True))
    return np.asarray([feats[i] for i in items], dtype=float), items


def rc_suite_diversity(measure):
    train, lists = diversity_inputs()
    features = RC_SUITE["frames"]["item_features"]
    feats, items = similarity_inputs(
        measure, train["UserId"].tolist(), train["ItemId"].tolist(), lists, features
    )
    return lists, feats, items


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(c, id=c["id"])
        for c in RC_SUITE["cases"]
        if c["kind"] in ("diversity", "user_diversity")
    ],
)
def test_recommenders_suite_diversity(case):
    lists, feats, items = rc_suite_diversity(case["item_sim_measure"])
    if case["kind"] == "diversity":
        got = receval.diversity(list(lists.values()), features=feats, feature_items=items)
        assert got == pytest.approx(case["expected"], rel=case["rel"], abs=case["abs"])
    else:
        run = {u: {i: float(-j) for j, i in enumerate(v)} for u, v in lists.items()}
        report = evaluate(None, run, ["diversity"], features=feats, feature_items=items)
        got = per_user(report, "diversity", case["users"])
        assert got == pytest.approx(case["expected"], rel=case["rel"], abs=case["abs"])


def test_recommenders_suite_catalog_coverage():
    (case,) = [c for c in RC_SUITE["cases"] if c["kind"] == "catalog_coverage"]
    train, lists = diversity_inputs()
    got = receval.catalog_coverage(list(lists.values()), catalog=train["ItemId"].tolist())
    assert got == pytest.approx(case["expected"], rel=case["rel"], abs=case["abs"])


def test_recommenders_suite_distributional_coverage():
    (case,) = [c for c in RC_SUITE["cases"] if c["kind"] == "distributional_coverage"]
    _, lists = diversity_inputs()
    got = receval.distributional_coverage(list(lists.values()))
    assert got == pytest.approx(case["expected"], rel=case["rel"], abs=case["abs"])


def test_recommenders_suite_novelty_one_item():
    (case,) = [c for c in RC_SUITE["cases"] if c["kind"] == "novelty"]
    train, _ = diversity_inputs()
    reco = rc_frame("diversity_reco")
    item = case["restrict_item"]
    train = train[train["ItemId"] == item]
    reco = reco[reco["ItemId"] == item]
    lists = [g["ItemId"].tolist() for _, g in reco.groupby("UserId")]
    got = receval.novelty(lists, (train["UserId"].tolist(), train["ItemId"].tolist()))
    assert got == pytest.approx(case["expected"], rel=case["rel"], abs=case["abs"])


# ======================================================= Recommenders, recorded values

# receval metric string (k filled in) -> Recommenders' recorded function
RC_RECORDED = {
    "precision@{k}": "precision_at_k",
    "recall@{k}": "recall_at_k",
    "map@{k}": "map_at_k",
    # Recommenders' map(k) cuts at k and divides by R
    "map(ap_normalizer=relevant)@{k}": "map",
    "ndcg@{k}": "ndcg_at_k_binary",
    "ndcg(gain=linear)@{k}": "ndcg_at_k_raw",
    "ndcg(gain=exponential)@{k}": "ndcg_at_k_exp",
    "r_precision@{k}": "r_precision_at_k",
}


def rc_recorded_params():
    params = []
    for case in RC_REC["ranking"]:
        for template, func in RC_RECORDED.items():
            params.append(
                pytest.param(
                    case, template, func, id=f"{case['id']}-{template.replace('{k}', 'k')}"
                )
            )
        params.append(pytest.param(case, "map", "map", id=f"{case['id']}-map"))
    return params


@pytest.mark.parametrize(("case", "template", "func"), rc_recorded_params())
def test_recommenders_recorded_ranking(case, template, func):
    # every qrels row is given (grade 0 = judged non-relevant); Recommenders got the rows
    # of grade >= 1, every one of which it counts as relevant
    qrels, run = qrels_frame(case["qrels"]), run_frame(case["run"])
    if template == "map":  # the whole list: map(k=10**9)
        got = evaluate(qrels, run, ["map"], profile="recommenders").mean["map"]
        assert got == pytest.approx(case["values"]["map"]["all"], abs=1e-9)
        return
    metrics = [template.format(k=k) for k in KS]
    report = evaluate(qrels, run, metrics, profile="recommenders")
    for k, text in zip(KS, metrics, strict=True):
        assert report.mean[text] == pytest.approx(case["values"][func][str(k)], abs=1e-9), text


def test_recommenders_recorded_ties_were_input_order():
    # get_top_k_items sorts by [user, prediction] with pandas' multi-column sort, which is
    # stable: tied predictions keep their row order, receval's ties="input"
    assert all(case["stable_ties"] for case in RC_REC["ranking"])


@pytest.mark.parametrize(
    ("case", "name"),
    [
        pytest.param(c, name, id=f"{c['id']}-{name}")
        for c in RC_REC["pointwise"]
        for name in RC_POINTWISE
    ],
)
def test_recommenders_recorded_pointwise(case, name):
    got = RC_POINTWISE[name](case["y_true"], case["y_pred"])
    assert got == pytest.approx(case[name], abs=1e-9)


def rc_beyond_lists(case):
    lists: dict[int, list[int]] = {}
    for user, item in case["reco"]:
        lists.setdefault(user, []).append(item)
    return lists


@pytest.mark.parametrize(
    "case", [pytest.param(c, id=c["id"]) for c in RC_REC["beyond"] if not c["unseen_items"]]
)
def test_recommenders_recorded_catalog_coverage(case):
    train_items = sorted({i for _, i in case["train"]})
    got = receval.catalog_coverage(list(rc_beyond_lists(case).values()), catalog=train_items)
    assert got == pytest.approx(case["catalog_coverage"], abs=1e-12)


@pytest.mark.parametrize(
    "case", [pytest.param(c, id=c["id"]) for c in RC_REC["beyond"] if c["unseen_items"]]
)
def test_recommenders_recorded_catalog_coverage_outside_catalog(case):
    # Recommenders divides the distinct recommended items, also those never trained on,
    # by the distinct training items (it can exceed 1); receval refuses recommended items
    # outside the catalogue (documented)
    train_items = sorted({i for _, i in case["train"]})
    recommended = {i for _, i in case["reco"]}
    assert not recommended <= set(train_items)
    assert case["catalog_coverage"] == len(recommended) / len(train_items)
    with pytest.raises(receval.InputValidationError):
        receval.catalog_coverage(list(rc_beyond_lists(case).values()), catalog=train_items)


@pytest.mark.parametrize(
    ("case", "measure"),
    [
        pytest.param(c, m, id=f"{c['id']}-{m}")
        for c in RC_REC["beyond"]
        for m in ("item_cooccurrence_count", "item_feature_vector")
    ],
)
def test_recommenders_recorded_diversity(case, measure):
    lists = rc_beyond_lists(case)
    train_users = [u for u, _ in case["train"]]
    train_items = [i for _, i in case["train"]]
    features = {
        "ItemId": [int(i) for i in case["features"]],
        "features": list(case["features"].values()),
    }
    feats, items = similarity_inputs(measure, train_users, train_items, lists, features)
    got = receval.diversity(list(lists.values()), features=feats, feature_items=items)
    assert got == pytest.approx(case[f"diversity_{measure}"], abs=1e-9)
    # per user: users with one recommended item have no pair, in both
    run = {u: {i: float(-j) for j, i in enumerate(v)} for u, v in lists.items()}
    report = evaluate(None, run, ["diversity"], features=feats, feature_items=items)
    values = dict(zip(report.users.tolist(), report.values["diversity"].tolist(), strict=True))
    expected = {int(u): d for u, d in case[f"user_diversity_{measure}"].items()}
    assert sorted(u for u, d in values.items() if d == d) == sorted(expected)
    assert [values[u] for u in sorted(expected)] == pytest.approx(
        [expected[u] for u in sorted(expected)], abs=1e-9
    )

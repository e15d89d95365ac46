"""Profile mechanics: per-metric conventions, the new conventions, tie-order warnings."""

import json
import math
import warnings
from pathlib import Path

import pytest

import receval as rv
from receval import InputValidationError, TieOrderWarning


def _no_tie_warning(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error", TieOrderWarning)
        return rv.evaluate(*args, **kwargs)


# ------------------------------------------------------------------ unstable sorts
def test_ranx_warns_only_for_ties_in_lists_over_15_items():
    qrels = {"u": {"d0": 1}}
    short = {"u": {f"d{i}": 0.5 for i in range(15)}}
    _no_tie_warning(qrels, short, ["mrr"], profile="ranx")
    long = {"u": {f"d{i}": 0.5 for i in range(16)}, "v": {"d0": 0.3}}
    with pytest.warns(TieOrderWarning, match=r"profile='ranx'\): 1 user has tied scores"):
        rv.evaluate({**qrels, "v": {"d0": 1}}, long, ["mrr"], profile="ranx")
    _no_tie_warning(qrels, long, ["mrr"])  # no profile, no claim about a peer


@pytest.mark.parametrize("profile", ["recbole", "torchmetrics", "torchrec"])
def test_torch_profiles_warn_on_any_tie(profile):
    qrels = {"u": {"a": 1}, "v": {"a": 1}}
    run = {"u": {"a": 0.9, "b": 0.8}, "v": {"a": 0.5, "b": 0.5}}
    with pytest.warns(TieOrderWarning, match=r"1 user has tied scores, e.g. \['v'\]"):
        rv.evaluate(qrels, run, ["map@10"], profile=profile)
    _no_tie_warning(qrels, {"u": run["u"]}, ["map@10"], profile=profile)


def test_torchmetrics_ndcg_averages_ties_so_it_does_not_warn():
    qrels = {"u": {"a": 1}}
    run = {"u": {"a": 0.5, "b": 0.5}}
    report = _no_tie_warning(qrels, run, ["ndcg"], profile="torchmetrics")
    # tie-averaged: gains (1 + 0) / 2 at ranks 1 and 2
    assert report.mean["ndcg"] == pytest.approx(0.5 * (1 + 1 / 1.584962500721156))


# ------------------------------------------------------------------ per-metric conventions
def test_recommenders_ndcg_counts_missing_users_and_other_metrics_skip_them():
    qrels = {"u": {"a": 2, "b": 1}, "v": {"c": 1}}
    run = {"u": {"a": 0.9, "x": 0.8, "b": 0.7}}  # v is absent
    report = rv.evaluate(qrels, run, ["ndcg@3", "precision@3"], profile="recommenders")
    assert report.conventions["ndcg@3"].missing_users == "zero"
    assert report.conventions["ndcg@3"].gain == "binary"
    assert report.conventions["precision@3"].missing_users == "skip"
    # u: binary gains 1, 0, 1 -> (1 + 1/2) / (1 + 1/log2(3)); v: 0
    ideal = 1 + 1 / 1.584962500721156
    assert report.mean["ndcg@3"] == pytest.approx((1.5 / ideal + 0) / 2)
    assert report.mean["precision@3"] == pytest.approx(2 / 3)


def test_recommenders_r_precision_leaves_zero_users_out():
    qrels = {"u": {"a": 1, "b": 1}, "v": {"c": 1}}
    run = {"u": {"a": 0.9, "x": 0.8}, "v": {"x": 0.9, "c": 0.1}}
    report = rv.evaluate(qrels, run, ["r_precision@5"], profile="recommenders")
    assert report.mean["r_precision@5"] == 0.5  # v (0) left out
    assert report.n_users_skipped["r_precision@5"] == 1
    nobody = rv.evaluate(qrels, {"u": {"x": 1.0}, "v": {"x": 1.0}}, ["r_precision@5"],
                         profile="recommenders", allow_unmatched=True)  # fmt: skip
    assert nobody.mean["r_precision@5"] == 0.0  # no hit anywhere: 0.0, as Recommenders


def test_ir_measures_rr_at_k_breaks_ties_by_id_ascending():
    qrels = {"q": {"a": 1}}
    run = {"q": {"b": 0.5, "a": 0.5}}
    report = rv.evaluate(qrels, run, ["mrr", "mrr@10"], profile="ir_measures")
    assert report.mean["mrr"] == 0.5  # pytrec_eval: docno descending, b first
    assert report.mean["mrr@10"] == 1.0  # msmarco: docno ascending, a first
    assert report.conventions["mrr@10"].ties == "id_ascending"
    missing = rv.evaluate({"q": {"a": 1}, "r": {"a": 1}}, run, ["p@1"], profile="ir_measures")
    assert missing.mean["p@1"] == 0.0  # r counts 0


def test_hit_scores_positive():
    qrels = {"q": {"a": 1, "b": 1}}
    run = {"q": {"a": -1.0, "b": -2.0}}
    ours = rv.evaluate(
        qrels, run, ["map", "mrr", "p@2", "recall@2", "ndcg"], profile="torchmetrics"
    )
    assert ours.mean == {"map": 0.0, "mrr": 0.0, "p@2": 0.0, "recall@2": 0.0, "ndcg": 1.0}
    kept = rv.evaluate(qrels, {"q": {"a": 0.5, "b": -2.0}}, ["recall@2"], hit_scores="positive")
    assert kept.mean["recall@2"] == 0.5  # R still counts b


def test_empty_users_one_and_error():
    qrels = {"u": {"a": 1}, "v": {"b": 0}}
    run = {"u": {"a": 1.0}, "v": {"b": 1.0}}
    assert rv.evaluate(qrels, run, ["ndcg"], empty_users="one").mean["ndcg"] == 1.0
    with pytest.raises(InputValidationError, match=r"1 user has no relevant item, e.g. \['v'\]"):
        rv.evaluate(qrels, run, ["ndcg"], empty_users="error")


def test_trec_eval_ndcg_gains_every_positive_grade_whatever_the_threshold():
    qrels = {"q": {"a": 1, "b": 2}}
    run = {"q": {"a": 0.9, "b": 0.1}}
    trec = rv.evaluate(qrels, run, ["ndcg", "p@1"], profile="trec_eval", rel_threshold=2)
    assert trec.mean["p@1"] == 0.0  # a (grade 1) is not relevant at -l 2 ...
    ideal = 2 + 1 / 1.584962500721156
    assert trec.mean["ndcg"] == pytest.approx((1 + 2 / 1.584962500721156) / ideal)  # ... but gains
    plain = rv.evaluate(qrels, run, ["ndcg"], rel_threshold=2)
    assert plain.mean["ndcg"] == pytest.approx((2 / 1.584962500721156) / 2)


def test_grades_raw_reads_rbp_gains_and_negative_grades_as_ranx():
    qrels = {"u": {"a": 3, "b": -1, "c": 1, "d": 0}}
    run = {"u": {"a": 0.9, "b": 0.8, "c": 0.7, "x": 0.6}}
    metrics = ["rbp(p=0.5)", "bpref"]
    ranx = rv.evaluate(qrels, run, metrics, profile="ranx")
    # graded RBP: (1 - p)(3 + 1 p^2); bpref: b (grade -1) is judged non-relevant, above c:
    # (1 + (1 - min(1, R) / min(R, N))) / R with R = 2, N = 2
    assert ranx.mean["rbp(p=0.5)"] == 0.5 * (3 + 0.25)
    assert ranx.mean["bpref"] == (1 + 0.5) / 2
    assert ranx.conventions["rbp(p=0.5)"].grades == "raw"
    assert ranx.conventions["bpref"].grades == "raw"
    # trec_eval: gains over the largest grade (3), b unjudged and skipped
    default, trec_eval = (rv.evaluate(qrels, run, metrics, profile=p) for p in (None, "trec_eval"))
    for trec in (default, trec_eval):
        assert trec.mean["rbp(p=0.5)"] == pytest.approx(0.5 * (1 + 0.25 / 3), abs=1e-15)
        assert trec.mean["bpref"] == 1.0
        assert trec.conventions["bpref"].grades == "trec"
    # the convention by keyword and in the metric string; other metrics do not take it
    assert rv.evaluate(qrels, run, metrics, grades="raw").mean == ranx.mean
    assert rv.evaluate(qrels, run, ["bpref(grades=raw)"]).mean["bpref(grades=raw)"] == 0.75
    assert rv.evaluate(qrels, run, ["ndcg"], profile="ranx").conventions["ndcg"].grades == "trec"
    with pytest.raises(
        rv.InvalidParameterError,
        match=r"^evaluate: the convention grades='raw' changes none of the metrics \['map'\]; "
        r"it is used by \['bpref', 'gm_bpref', 'rbp'\] \(3 metrics\)\. Drop it\.$",
    ):
        rv.evaluate(qrels, run, ["map"], grades="raw")
    with pytest.raises(rv.InvalidParameterError, match="map does not use the convention 'grades'"):
        rv.evaluate(qrels, run, ["map(grades=raw)"])
    # with a metric that uses it, the others of the call keep theirs
    both = rv.evaluate(qrels, run, ["map", "bpref"], grades="raw")
    assert both.mean["map"] == rv.evaluate(qrels, run, ["map"]).mean["map"]


def test_grades_must_be_trec_or_raw():
    with pytest.raises(
        rv.InvalidParameterError, match=r"'grades' parameter .*\['raw', 'trec'\]\. Got 'graded'"
    ):
        rv.evaluate({"u": {"a": 1}}, {"u": {"a": 1.0}}, ["bpref"], grades="graded")
    with pytest.raises(rv.InvalidParameterError, match=r"grades must be one of"):
        rv.evaluate({"u": {"a": 1}}, {"u": {"a": 1.0}}, ["bpref(grades=graded)"])


# ------------------------------------------------------------------ Microsoft Recommenders
_RC_R_PRECISION = json.loads(
    (
        Path(__file__).parent / "peers" / "data" / "recorded_recommenders_r_precision.json"
    ).read_text()
)


@pytest.mark.parametrize("case", _RC_R_PRECISION["cases"], ids=lambda c: c["id"])
def test_recommenders_r_precision_at_k_recorded(case):
    """Recommenders' r_precision_at_k: 0.0 when no user has a relevant item in the top k,
    nan when every user with one has it below rank R (recorded from Recommenders 1.2.1)."""
    qrels = {}
    for user, item in case["true"]:
        qrels.setdefault(str(user), {})[str(item)] = 1
    run = {}
    for user, item, score in case["pred"]:
        run.setdefault(str(user), {})[str(item)] = score
    metrics = [f"r_precision@{k}" for k in _RC_R_PRECISION["ks"]]
    report = rv.evaluate(qrels, run, metrics, profile="recommenders", allow_unmatched=True)
    for k in _RC_R_PRECISION["ks"]:
        expected = case["r_precision_at_k"][str(k)]
        got = report.mean[f"r_precision@{k}"]
        if expected is None:
            assert math.isnan(got), k
        else:
            assert got == pytest.approx(expected, abs=1e-12), k


def test_recommenders_issue_reproductions():
    """r_precision_at_k is nan where the only relevant item is below rank R; ndcg_at_k's
    score_type="raw" wiki example (0.785) is ndcg(gain=linear)@6; r_precision_at_k(k=3) on
    its test fixtures is r_precision@3 (0.21111)."""
    report = rv.evaluate(
        {1: {10: 1}}, {1: {20: 0.9, 10: 0.5}}, ["r_precision@3"], profile="recommenders"
    )
    assert math.isnan(report.mean["r_precision@3"])
    assert report.n_users_skipped["r_precision@3"] == 1
    nohit = rv.evaluate(
        {1: {10: 1}},
        {1: {20: 0.9, 30: 0.5}},
        ["r_precision@3"],
        profile="recommenders",
        allow_unmatched=True,
    )
    assert nohit.mean["r_precision@3"] == 0.0
    wiki_true = {0: dict(enumerate([3, 2, 3, 0, 1, 2, 3, 2]))}
    wiki_pred = {0: dict(enumerate([6.0, 5, 4, 3, 2, 1]))}
    raw = rv.evaluate(
        wiki_true, wiki_pred, ["ndcg(gain=linear)@6", "ndcg@6"], profile="recommenders"
    )
    assert raw.mean["ndcg(gain=linear)@6"] == pytest.approx(0.785, rel=1e-4)
    assert raw.mean["ndcg@6"] == pytest.approx(0.8697, rel=1e-4)  # score_type="binary"
    true = {1: [3, 1, 2], 2: [1, 4, 5, 6, 7], 3: [2, 5, 6, 8, 9, 10, 11, 12, 13, 14]}
    ranked = {
        1: [3, 10, 12],
        2: [10, 3, 5, 11, 13],
        3: [4, 10, 7, 13, 1, 3, 5, 2, 11, 14],
    }
    qrels = {u: dict.fromkeys(items, 1) for u, items in true.items()}
    run = {u: {i: -float(pos) for pos, i in enumerate(items)} for u, items in ranked.items()}
    report = rv.evaluate(qrels, run, ["r_precision@3", "r_precision"], profile="recommenders")
    assert report.mean["r_precision@3"] == pytest.approx(0.21111, rel=1e-4)
    assert report.mean["r_precision"] == pytest.approx(0.37778, rel=1e-4)


# ------------------------------------------------------------------ LensKit on the command line
def test_cli_lenskit_profile_and_options(tmp_path):
    from tests.cli._helpers import invoke, make_runner

    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_text("1 0 b 1\n")
    run.write_text("1 Q0 a 1 0.9 r\n1 Q0 b 2 0.5 r\n")
    runner = make_runner()
    base = ("rank", "--qrels", qrels, "--run", run, "-m", "ndcg@20", "-m", "precision@10")
    out = invoke(runner, *base, "--profile", "lenskit", "-f", "csv").stdout.splitlines()
    assert out[1].startswith("r.txt,1.0,0.5,")  # rank 2 undiscounted; 1 hit over 2 items
    options = ("--discount", "clipped", "--precision-normalizer", "retrieved", "-f", "csv")
    assert invoke(runner, *base, *options).stdout.splitlines()[1] == out[1]
    assert invoke(runner, *base, "-f", "csv").stdout.splitlines()[1].startswith("r.txt,0.63")
    bad = invoke(runner, *base, "--recall-normalizer", "k", code=2)
    assert "error: --recall-normalizer must be one of ['min_k', 'relevant']" in bad.stderr


# ------------------------------------------------------------------ ties="worst", discount="rank"
def test_ties_worst_orders_tied_items_least_relevant_first():
    # CatBoost's CompareDocs: equal scores ordered by target ascending
    qrels = {"q": {"a": 2, "b": 1, "c": 0, "d": 3}}
    run = {"q": {"a": 0.5, "b": 0.5, "c": 0.5, "d": 0.1}}
    report = rv.evaluate(qrels, run, ["ndcg", "mrr", "precision@1"], ties="worst")
    # the ranked grades are 0, 1, 2, 3
    dcg = 1 / math.log2(3) + 2 / 2 + 3 / math.log2(5)
    ideal = 3 + 2 / math.log2(3) + 1 / 2
    assert report.mean == pytest.approx({"ndcg": dcg / ideal, "mrr": 0.5, "precision@1": 0.0})
    assert rv.evaluate(qrels, run, ["mrr"], ties="input").mean["mrr"] == 1.0
    # an unjudged item counts below every grade
    unjudged = rv.evaluate({"q": {"a": 0}}, {"q": {"a": 0.5, "x": 0.5}}, ["mrr"], ties="worst",
                           rel_threshold=0)  # fmt: skip
    assert unjudged.mean["mrr"] == 0.5
    with pytest.raises(rv.InvalidParameterError, match="not available with ties='worst'"):
        rv.evaluate(qrels, run, ["ndcg"], ties="worst", propensities={"a": 0.5, "b": 0.5, "d": 1})


def test_discount_rank_divides_by_the_rank():
    # CatBoost's NDCG:denominator=Position
    qrels = {"q": {"a": 2, "b": 1, "c": 0, "d": 3}}
    run = {"q": {"a": 0.9, "b": 0.8, "c": 0.7, "d": 0.6}}
    report = rv.evaluate(qrels, run, ["dcg", "ndcg", "ndcg@2"], discount="rank")
    assert report.mean["dcg"] == 2 + 1 / 2 + 3 / 4
    assert report.mean["ndcg"] == pytest.approx(3.25 / (3 + 2 / 2 + 1 / 3))
    assert report.mean["ndcg@2"] == pytest.approx(2.5 / 4)


def test_gbdt_profiles_on_a_group_without_a_relevant_document():
    qrels = {"u": {"a": 1, "b": 0}, "v": {"c": 0, "d": 0}}
    run = {"u": {"a": 0.2, "b": 0.9}, "v": {"c": 0.5, "d": 0.1}}
    for profile, v in [
        ("xgboost", {"ndcg@2": 1.0, "map@2": 1.0, "precision@2": 0.0}),
        ("lightgbm", {"ndcg@2": 1.0, "map@2": 1.0}),
        (
            "catboost",
            {"ndcg@2": 1.0, "map@2": 0.0, "precision@2": 0.0, "recall@2": 1.0, "mrr": 0.0},
        ),
    ]:
        report = rv.evaluate(qrels, run, list(v), profile=profile)
        got = {m: 2 * report.mean[m] - report.per_user.set_index("user").loc["u", m] for m in v}
        assert got == pytest.approx(v), profile
    xgb = rv.evaluate(qrels, run, ["ndcg@2-", "map@2-"], profile="xgboost")
    assert xgb.mean == pytest.approx({"ndcg@2-": 0.5 / math.log2(3), "map@2-": 0.25})


# ------------------------------------------------------------------ grades a peer refuses
GBDT_RUN = {"u": {"a": 0.9, "b": 0.5}, "v": {"c": 0.4, "d": 0.3}}


def _gbdt_qrels(grade):
    return {"u": {"a": grade, "b": 1}, "v": {"c": 0, "d": 2}}


@pytest.mark.parametrize(
    ("profile", "last", "metric", "table", "fix"),
    [
        (
            "lightgbm", 30, "ndcg@10", "label_gain (by default 2**label - 1)",
            "give each grade a gain with ndcg(gains=...) (LightGBM's label_gain), map the "
            "grades to 0..30, or use another profile.",
        ),
        (
            "lightgbm", 2, "ndcg(gains=1:1;2:3)@10", "label_gain, here ndcg(gains=...)",
            "give each grade a gain with ndcg(gains=...) (LightGBM's label_gain), map the "
            "grades to 0..2, or use another profile.",
        ),
        (
            "xgboost", 31, "ndcg@10", "exponential gain 2**label - 1 (ndcg_exp_gain=true)",
            "use ndcg(gain=linear) (XGBoost's ndcg_exp_gain=false), which takes any grade, "
            "map the grades to 0..31, or use another profile.",
        ),
    ],
    ids=["lightgbm", "lightgbm-label_gain", "xgboost"],
)  # fmt: skip
def test_gbdt_profiles_refuse_the_grades_their_peer_refuses(profile, last, metric, table, fix):
    # before: LightGBM's ndcg with label 31 ("Label 31 is not less than the number of label
    # mappings (31)") and XGBoost's with label 32 refuse, where the profiles gave 1.0
    peer = {"lightgbm": "LightGBM", "xgboost": "XGBoost"}[profile]
    assert rv.evaluate(_gbdt_qrels(last), GBDT_RUN, [metric], profile=profile).mean[metric] > 0
    for bad in (last + 1, 2.5, -1):
        said = (
            f"metric {metric!r} with profile={profile!r} takes the qrels grades that {peer} "
            f"takes: integers from 0 to {last}, the labels of its {table}. Got grades [{bad}], "
            f"which {peer} refuses; {fix}"
        )
        qrels = _gbdt_qrels(bad)
        with pytest.raises(InputValidationError) as info:
            rv.evaluate(qrels, GBDT_RUN, [metric], profile=profile)
        assert str(info.value) == f"evaluate: {said}"
        with pytest.raises(InputValidationError) as info:
            rv.compute(metric, qrels, GBDT_RUN, profile=profile)
        assert str(info.value) == f"receval.compute({metric!r}): {said}"
        for whole_groups in (False, True):
            acc = rv.metric(metric, profile=profile, whole_groups=whole_groups)
            with pytest.raises(InputValidationError) as info:
                acc.update(qrels, GBDT_RUN)
            assert str(info.value) == f"Accumulator.update of {metric!r}: {said}"


def test_gbdt_profiles_take_any_grade_where_their_peer_does():
    qrels = _gbdt_qrels(40)  # 2**40 - 1: no overflow, a peer's limit only
    metrics = ["map@2", "ndcg(gain=linear)@10"]
    for profile in ("lightgbm", "xgboost"):
        # MAP reads relevance alone; linear gains: XGBoost's ndcg_exp_gain=false, a
        # label_gain of LightGBM's own making
        report = rv.evaluate(qrels, GBDT_RUN, metrics, profile=profile)
        assert report.mean["map@2"] == 0.75 and report.mean["ndcg(gain=linear)@10"] > 0
    # gains= is receval's own table under XGBoost's profile (XGBoost has none)
    report = rv.evaluate(qrels, GBDT_RUN, ["ndcg(gains=1:1;2:3)@10"], profile="xgboost")
    assert report.mean["ndcg(gains=1:1;2:3)@10"] > 0
    assert rv.evaluate(qrels, GBDT_RUN, ["ndcg@10"], gain="exponential").mean["ndcg@10"] > 0


# ------------------------------------------------------------------ checked once
@pytest.mark.parametrize("profile", [None, "trec_eval", "ranx"])
def test_conventions_checked_once_still_refuse_an_equal_value_of_another_type(profile):
    """evaluate keeps the conventions it has checked: a value equal to a checked one
    but of another type (True == 1 == 1.0, none a depth; "1" no threshold) is still
    refused, however often the good one was given before."""
    from receval.conventions import Conventions
    from receval.exceptions import InvalidParameterError

    qrels, run = {"u": {"a": 1}}, {"u": {"a": 1.0, "b": 0.5}}
    good = rv.evaluate(qrels, run, "ndcg@3", depth=1, rel_threshold=1, profile=profile)
    for _ in range(2):
        again = rv.evaluate(qrels, run, "ndcg@3", depth=1, rel_threshold=1, profile=profile)
        assert again.mean == good.mean
        for bad in ({"depth": True}, {"depth": 1.0}, {"rel_threshold": "1"}):
            with pytest.raises(InvalidParameterError, match=next(iter(bad))):
                rv.evaluate(qrels, run, "ndcg@3", profile=profile, **{"depth": 1, **bad})
            with pytest.raises(InvalidParameterError, match=next(iter(bad))):
                Conventions(**bad).validated()
    # conventions are told apart by their values too
    one, two = (rv.evaluate(qrels, run, "ndcg@3", depth=d, profile=profile) for d in (1, 2))
    assert one.mean["ndcg@3"] == 1.0 and two.mean["ndcg@3"] == 1.0
    graded = {"u": {"a": 1, "b": 2}}
    high = rv.evaluate(graded, run, "P@1", rel_threshold=2, profile=profile)
    low = rv.evaluate(graded, run, "P@1", rel_threshold=1, profile=profile)
    assert (high.mean["P@1"], low.mean["P@1"]) == (0.0, 1.0)


def test_a_profile_that_averages_ties_refuses_a_depth():
    """sklearn's profile averages over the orders of tied scores: a depth, which
    keeps the first items in one order, is refused with it as with ties='average'."""
    from receval.exceptions import InvalidParameterError

    with pytest.raises(InvalidParameterError, match="ties='average' gives none"):
        rv.evaluate({"u": {"a": 1}}, {"u": {"a": 1.0}}, "ndcg@3", depth=1, profile="sklearn")
    trec = rv.evaluate({"u": {"a": 1}}, {"u": {"a": 1.0}}, "ndcg@3", depth=1, profile="sklearn",
                       ties="trec")  # fmt: skip
    assert trec.mean == {"ndcg@3": 1.0}

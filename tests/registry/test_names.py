"""Peers' metric names and metric parameters in metric strings.

Every spelling of trec_eval, ir_measures and ranx below reads as the receval
metric it means; parameters are canonical (defaults dropped, numbers in their
shortest form) and ``str(parse_metric(s))`` parses back to the same spec.
"""

import math
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from receval import parse_metric
from receval.exceptions import InvalidParameterError, UnknownMetricError
from receval.registry import RANKING as REGISTRY
from receval.registry import MetricSpec
from receval.registry.peers import SPELLINGS
from receval.registry.schema import TREC_LEVELS

# (a peer's spelling, the canonical receval metric string it means), written from the
# peers' documentation: trec_eval's -q names, ir_measures' measure names, ranx's names
PEERS = [
    # trec_eval 10.0
    ("P_10", "precision@10"),
    ("recall_100", "recall@100"),
    ("ndcg_cut_10", "ndcg@10"),
    ("map_cut_100", "map@100"),
    ("recip_rank", "mrr"),
    ("Rprec", "r_precision"),
    ("success_10", "success@10"),
    ("bpref", "bpref"),
    ("infAP", "infap"),
    ("iprec_at_recall_0.10", "iprec(recall=0.1)"),
    ("iprec_at_recall_0.00", "iprec(recall=0)"),
    ("iprec_at_recall_1.00", "iprec(recall=1)"),
    ("unj_10", "unjudged@10"),
    ("unj@5", "unjudged@5"),
    ("gm_map", "gm_map"),
    ("gm_bpref", "gm_bpref"),
    ("11pt_avg", "iprec_avg"),
    ("Rprec_mult_0.20", "rprec_mult(mult=0.2)"),
    ("Rprec_mult_2.00", "rprec_mult(mult=2)"),
    ("utility", "utility"),
    ("binG", "bin_g"),
    ("G", "g"),
    ("ndcg_rel", "ndcg_rel"),
    ("Rndcg", "r_ndcg"),
    ("relative_P_10", "relative_precision@10"),
    ("relative_P@5", "relative_precision@5"),
    ("set_P", "set_precision"),
    ("set_relative_P", "set_relative_precision"),
    ("set_recall", "set_recall"),
    ("set_map", "set_ap"),
    ("set_F", "set_f"),
    ("rbp", "rbp"),
    ("rbp_resid", "rbp_resid"),
    ("num_q", "num_q"),
    ("num_ret", "num_ret"),
    ("num_rel", "num_rel"),
    ("num_rel_ret", "num_rel_ret"),
    ("num_nonrel_judged_ret", "num_nonrel_judged_ret"),
    ("map", "map"),
    ("ndcg", "ndcg"),
    # the names of trec_eval's measures with cut-offs, with receval's @k
    ("ndcg_cut@10", "ndcg@10"),
    ("map_cut@100", "map@100"),
    ("ideal_dcg", "idcg"),
    # ir_measures
    ("P@10", "precision@10"),
    ("R@100", "recall@100"),
    ("nDCG@10", "ndcg@10"),
    ("AP@100", "map@100"),
    ("RR@10", "mrr@10"),
    ("r-precision", "r_precision"),
    ("Success@10", "success@10"),
    ("Bpref", "bpref"),
    ("IPrec@0.1", "iprec(recall=0.1)"),
    ("RBP(p=0.8)", "rbp"),
    ("RBP(rel=2,p=0.9)", "rbp(p=0.9,gain=binary,rel_threshold=2)"),
    ("RBP", "rbp"),
    ("Judged@10", "judged@10"),
    ("ERR@20", "err@20"),
    ("nERR@20", "nerr@20"),
    ("NumQ", "num_q"),
    ("NumRel", "num_rel"),
    ("NumRet", "num_ret"),
    ("NumRelRet", "num_rel_ret"),
    # ir_measures' NumRet with rel= counts the retrieved items at or above rel
    ("NumRet(rel=1)", "num_rel_ret(rel_threshold=1)"),
    ("NumRet(rel=2)", "num_rel_ret(rel_threshold=2)"),
    ("SetP", "set_precision"),
    ("SetR", "set_recall"),
    ("SetF(beta=0.5)", "set_f(beta=0.5)"),
    ("SetAP", "set_ap"),
    ("SetRelP", "set_relative_precision"),
    ("AP(rel=2)@10", "map(rel_threshold=2)@10"),
    ("nDCG(dcg=exp-log2)@10", "ndcg(gain=exponential)@10"),
    ('nDCG(dcg="log2")@10', "ndcg(gain=linear)@10"),
    ("nDCG(gains={0:0,1:1,2:3})@10", "ndcg(gains=0:0;1:1;2:3)@10"),
    ("MAP", "map"),
    ("MRR", "mrr"),
    # ranx
    ("precision@5", "precision@5"),
    ("recall@5", "recall@5"),
    ("ndcg_burges@5", "ndcg(gain=exponential)@5"),
    ("mrr@5", "mrr@5"),
    ("map@5", "map@5"),
    ("hit_rate@5", "success@5"),
    ("hits@10", "hits@10"),
    ("f1@5", "f1@5"),
    ("rbp.95", "rbp(p=0.95)"),
    ("rbp.8", "rbp"),
    ("rbp@9", "rbp(p=0.9)"),
    ("rbp@10", "rbp(p=0.1)"),
    # RecBole's metric keys; Elliot's names (ARP, APLT, ACLT) in another case
    ("averagepopularity@10", "average_popularity@10"),
    ("tailpercentage@10", "tail_percentage@10"),
    ("ARP", "arp"),
    ("APLT", "aplt"),
    ("ACLT", "aclt"),
    ("average_recommendation_popularity@5", "arp@5"),
    ("average_percentage_long_tail@5", "aplt@5"),
    ("average_coverage_long_tail@5", "aclt@5"),
    # XGBoost: pre@n, and the "-" names (a group without a relevant document scores 0)
    ("pre@3", "precision@3"),
    ("ndcg@10-", "ndcg(empty_users=zero)@10"),
    ("map@5-", "map(empty_users=zero)@5"),
    ("ndcg-", "ndcg(empty_users=zero)"),
    ("map-", "map(empty_users=zero)"),
    ("aucpr", "grouped_auprc(interpolation=davis_goadrich,skip_groups=one_class)"),
    # CatBoost: its names, and its Name:param=value;... form
    ("PrecisionAt", "precision"),
    ("RecallAt", "recall"),
    ("NDCG:top=10;type=Exp", "ndcg(gain=exponential)@10"),
    ("NDCG:denominator=Position;top=5", "ndcg(discount=rank)@5"),
    ("DCG:type=Base;denominator=LogPosition", "dcg(discount=offset,gain=linear)"),
    ("PrecisionAt:top=3;border=1.5", "precision(rel_threshold=1.5000000000000002)@3"),
    ("RecallAt:top=2", "recall@2"),
    ("MAP:top=5", "map@5"),
    ("MRR:top=-1", "mrr"),
    # targets read as probabilities: PFound, ERR (plain "ERR" is ir_measures'), AverageGain
    ("PFound", "pfound"),
    ("PFound:top=5;decay=0.5", "pfound(decay=0.5)@5"),
    ("ERR:top=-1", "err(probability=true)"),
    ("ERR:top=3", "err(probability=true)@3"),
    ("AverageGain", "average_gain"),
    ("AverageGain:top=10", "average_gain@10"),
    # LightGBM: ndcg, map and their eval_at names ndcg@k, map@k are receval's own
    ("mean_average_precision", "map"),
    ("mean_average_precision@10", "map@10"),
    ("ndcg@10", "ndcg@10"),
]


@pytest.mark.parametrize(("spelling", "canonical"), PEERS)
def test_peer_spelling_reads_as_the_receval_metric(spelling, canonical):
    spec = parse_metric(spelling)
    assert str(spec) == canonical
    assert parse_metric(canonical) == spec
    # case-insensitive, like receval's names
    assert parse_metric(spelling.swapcase()) == spec or spelling.swapcase() != spelling.lower()


@pytest.mark.parametrize(
    "spelling",
    ["P_10", "nDCG@10", "RBP(p=0.9)", "iprec_at_recall_0.10", "SetF(beta=0.5)",
     # trec_eval's -m form (``p.10`` was refused, suggesting P_10)
     "P.10", "ndcg_cut.10", "Rprec_mult.2.0", "set_F.0.5"],
)  # fmt: skip
def test_peer_spellings_in_any_case(spelling):
    assert parse_metric(spelling.upper()) == parse_metric(spelling)
    assert parse_metric(spelling.lower()) == parse_metric(spelling)


def test_ir_measures_rbp_with_rel_is_binary_only_as_ir_measures_writes_it():
    # ir_measures' RBP(rel=2) scores 0/1 at grade 2; receval's rbp(rel=2) (any other
    # case) is the graded RBP from grade 2 on
    assert str(parse_metric("RBP(rel=2)")) == "rbp(gain=binary,rel_threshold=2)"
    assert str(parse_metric("RBP(rel_threshold=2)")) == "rbp(gain=binary,rel_threshold=2)"
    assert str(parse_metric("rbp(rel=2)")) == "rbp(rel_threshold=2)"
    assert str(parse_metric("Rbp(rel=2)")) == "rbp(rel_threshold=2)"
    assert str(parse_metric("RBP(p=0.9)")) == "rbp(p=0.9)"


def test_every_row_of_the_table_is_in_the_list_above():
    # the list above is written by hand: a row added to SPELLINGS needs a case here
    tested = {re.split(r"[(@]", s)[0].lower() for s, _ in PEERS}
    for row in SPELLINGS:
        if row.peer == "receval":
            continue
        assert row.shown.lower() in tested or any(
            re.fullmatch(row.spelling, s, re.IGNORECASE) for s, _ in PEERS
        ), row


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("rbp(p=0.80)", "rbp"),
        ("rbp(p=0.9)", "rbp(p=0.9)"),
        ("rbp(p=.90)", "rbp(p=0.9)"),
        ("rbp(p=9e-1)", "rbp(p=0.9)"),
        ("rbp(p=0.9, rel_threshold=2)", "rbp(p=0.9,rel_threshold=2)"),
        ("rbp(rel_threshold=2, p=0.9)", "rbp(p=0.9,rel_threshold=2)"),
        ("RBP_RESID(P=0.5)", "rbp_resid(p=0.5)"),
        ("iprec(recall=0.1)", "iprec(recall=0.1)"),
        ("iprec(recall=+0.10)", "iprec(recall=0.1)"),
        ("iprec(recall=1.0)", "iprec(recall=1)"),
        ("iprec(recall=-0)", "iprec(recall=0)"),
        ("utility(a=2,b=-1,c=0,d=0)", "utility(a=2)"),
        ("utility(d=0.5,a=1)", "utility(d=0.5)"),
        ("utility(a=1,b=-1,c=0,d=0)", "utility"),
        ("set_f(beta=0.5)", "set_f(beta=0.5)"),
        ("set_f(beta=1.0)", "set_f"),
        ("set_f(beta=0)", "set_f(beta=0)"),
        ("rprec_mult(mult=0.2)", "rprec_mult(mult=0.2)"),
        ("rprec_mult(mult=1e3)", "rprec_mult(mult=1000)"),
        ("iprec_avg(levels=0.2;0.5;0.8)", "iprec_avg(levels=0.2;0.5;0.8)"),
        ("iprec_avg(levels=0.8;0.2;0.5)", "iprec_avg(levels=0.2;0.5;0.8)"),
        ("iprec_avg(levels=[0.8, 0.2, 0.5])", "iprec_avg(levels=0.2;0.5;0.8)"),
        ("iprec_avg(levels=0;.1;.2;.3;.4;.5;.6;.7;.8;.9;1)", "iprec_avg"),
        ("ndcg(gains=1:3;2:9;4:4.5)@10", "ndcg(gains=1:3;2:9;4:4.5)@10"),
        ("ndcg(gains=4:4.5;2:9;1:3)", "ndcg(gains=1:3;2:9;4:4.5)"),
        ("ndcg(gains={4:4.5, 1:3}, ties=input)@5", "ndcg(gains=1:3;4:4.5,ties=input)@5"),
        ("ndcg(gains=-1:-2)", "ndcg(gains=-1:-2)"),
    ],
)
def test_parameters_are_canonical(text, canonical):
    spec = parse_metric(text)
    assert str(spec) == canonical
    assert parse_metric(canonical) == spec


def test_spec_fields_of_parameters():
    spec = parse_metric("rbp(rel_threshold=2, p=0.9)")
    assert spec == MetricSpec("rbp", None, (("rel_threshold", 2),), (("p", 0.9),))
    assert spec.arg("p") == 0.9
    assert parse_metric("rbp").arg("p") == 0.8
    assert parse_metric("utility(c=3)").args == (("c", 3.0),)
    assert parse_metric("iprec_avg").arg("levels") == TREC_LEVELS
    assert parse_metric("ndcg(gains=2:9;1:3)").arg("gains") == ((1, 3.0), (2, 9.0))
    with pytest.raises(KeyError):
        spec.arg("q")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("rbp", (0.8,)),
        ("rbp(p=0.5)", (0.5,)),
        ("utility", (1.0, -1.0, 0.0, 0.0, 0.0)),
        ("utility(b=-2,d=1,n_docs=5000)", (1.0, -2.0, 0.0, 1.0, 5000.0)),
        ("iprec_avg", (0.0,)),
        ("iprec_avg(levels=0.5;0.2)", (2.0, 0.2, 0.5)),
        ("iprec(recall=0.3)", (0.3,)),
        ("rprec_mult(mult=1.5)", (1.5,)),
        ("set_f", (1.0,)),
        ("ndcg@5", (0.0,)),
        ("ndcg(gains=1:3;2:9)", (2.0, 1.0, 3.0, 2.0, 9.0)),
        ("precision@5", ()),
    ],
)
def test_float_params_follow_the_kernel_contract(text, expected):
    # the kernel's P0, P1, ... (the core's codes: rust/src/spec.rs)
    assert parse_metric(text).float_params() == expected


def _raises(message):
    return pytest.raises(InvalidParameterError, match="^" + re.escape(message) + "$")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "rbp(p=1)",
            "Metric 'rbp(p=1)': p must be a number in (0, 1). Got '1' instead.",
        ),
        (
            "rbp(p=0)",
            "Metric 'rbp(p=0)': p must be a number in (0, 1). Got '0' instead.",
        ),
        (
            "rbp(p=x)",
            "Metric 'rbp(p=x)': p must be a number in (0, 1). Got 'x' instead.",
        ),
        (
            "rbp(p=nan)",
            "Metric 'rbp(p=nan)': p must be a number in (0, 1). Got 'nan' instead.",
        ),
        (
            "rbp(p=0_5)",
            "Metric 'rbp(p=0_5)': p must be a number in (0, 1). Got '0_5' instead.",
        ),
        (
            "iprec(recall=1.5)",
            "Metric 'iprec(recall=1.5)': recall must be a number in [0, 1]. Got '1.5' instead.",
        ),
        (
            "iprec_at_recall_1.50",
            "Metric 'iprec_at_recall_1.50': recall must be a number in [0, 1]. Got '1.50' instead.",
        ),
        (
            "iprec",
            "Metric 'iprec': iprec needs the parameter recall (recall level, in [0, 1]); "
            "e.g. 'iprec(recall=0.5)'.",
        ),
        (
            "IPrec(rel=2)",
            "Metric 'IPrec(rel=2)': iprec needs the parameter recall (recall level, in [0, 1]); "
            "e.g. 'iprec(recall=0.5)'.",
        ),
        (
            "rprec_mult",
            "Metric 'rprec_mult': rprec_mult needs the parameter mult (multiple of R, the "
            "relevant items, > 0); e.g. 'rprec_mult(mult=0.5)'.",
        ),
        (
            "rprec_mult(mult=0)",
            "Metric 'rprec_mult(mult=0)': mult must be a number > 0. Got '0' instead.",
        ),
        (
            "set_f(beta=-1)",
            "Metric 'set_f(beta=-1)': beta must be a number >= 0. Got '-1' instead.",
        ),
        (
            "utility(a=1e999)",
            "Metric 'utility(a=1e999)': a must be a finite number. Got '1e999' instead.",
        ),
        (
            "iprec_avg(levels=0.2;0.2)",
            "Metric 'iprec_avg(levels=0.2;0.2)': levels must be 1 to 15 distinct numbers "
            "separated by ';', e.g. levels=0.2;0.5;0.8. Got '0.2;0.2' instead.",
        ),
        (
            "iprec_avg(levels=0.2;;0.5)",
            "Metric 'iprec_avg(levels=0.2;;0.5)': levels must be 1 to 15 distinct numbers "
            "separated by ';', e.g. levels=0.2;0.5;0.8. Got '0.2;;0.5' instead.",
        ),
        (
            "iprec_avg(levels=0.2;2)",
            "Metric 'iprec_avg(levels=0.2;2)': each of levels must be a number in [0, 1]. "
            "Got '2' instead.",
        ),
        (
            "ndcg(gains=1:3;1:4)",
            "Metric 'ndcg(gains=1:3;1:4)': gains must be distinct integer grades with their "
            "gains, grade:gain separated by ';', e.g. gains=1:1;2:3. Got '1:3;1:4' instead.",
        ),
        (
            "ndcg(gains=1.5:3)",
            "Metric 'ndcg(gains=1.5:3)': gains must be distinct integer grades with their "
            "gains, grade:gain separated by ';', e.g. gains=1:1;2:3. Got '1.5:3' instead.",
        ),
        (
            "ndcg(gains=1:x)",
            "Metric 'ndcg(gains=1:x)': the gain of grade 1 must be a finite number. "
            "Got 'x' instead.",
        ),
        (
            "ndcg(gains=1:1;2:2;3:3;4:4;5:5;6:6;7:7;8:8)",
            "Metric 'ndcg(gains=1:1;2:2;3:3;4:4;5:5;6:6;7:7;8:8)': gains must hold 1 to 7 "
            "grade:gain pairs. Got '1:1;2:2;3:3;4:4;5:5;6:6;7:7;8:8' instead.",
        ),
        (
            "ndcg(gains=1:3,gain=exponential)",
            "Metric 'ndcg(gains=1:3,gain=exponential)': gains (a table of gains) and "
            "gain=exponential cannot both be given; drop one.",
        ),
        (
            "rbp(q=1)",
            "Metric 'rbp(q=1)': unknown option 'q'; its options are ['p', 'depth', "
            "'empty_users', 'estimator', 'gain', 'gain_grades', 'grades', 'hit_scores', "
            "'judged_only', 'missing_users', 'rel_threshold', 'ties', 'zero_users'].",
        ),
        (
            "precision(p=0.5)@5",
            "Metric 'precision(p=0.5)@5': unknown option 'p'; its options are ['depth', "
            "'empty_users', 'estimator', 'hit_scores', 'judged_only', 'missing_users', "
            "'precision_normalizer', 'rel_threshold', 'ties', 'zero_users'].",
        ),
        # a convention the metric does not read, a misspelt one, a value it does not take
        (
            "rbp(p=0.8,gain=exponential)",
            "Metric 'rbp(p=0.8,gain=exponential)': rbp takes gain 'linear' or 'binary'. "
            "Got 'exponential' instead.",
        ),
        (
            "mrr(gain=binary)@10",
            "Metric 'mrr(gain=binary)@10': mrr does not use the convention 'gain' (it changes "
            "no value of mrr); its options are ['depth', 'empty_users', 'estimator', "
            "'hit_scores', 'judged_only', 'missing_users', 'rel_threshold', 'ties', "
            "'zero_users'].",
        ),
        (
            "map(ap_normaliser=min_k)@10",
            "Metric 'map(ap_normaliser=min_k)@10': unknown option 'ap_normaliser' (did you "
            "mean 'ap_normalizer'?); its options are ['ap_normalizer', 'depth', 'empty_users', "
            "'estimator', 'hit_scores', 'judged_only', 'missing_users', 'rel_threshold', "
            "'ties', 'zero_users'].",
        ),
        (
            "num_q(rel=2)",
            "Metric 'num_q(rel=2)': num_q does not use the convention 'rel_threshold' (it "
            "changes no value of num_q); its options are ['estimator', 'missing_users'].",
        ),
        (
            "arp(rel_threshold=2)@10",
            "Metric 'arp(rel_threshold=2)@10': arp does not use the convention "
            "'rel_threshold' (it changes no value of arp); its options are ['ties'].",
        ),
        ("rbp_resid@10", "Metric 'rbp_resid@10': rbp_resid takes no @k cut-off."),
        ("bpref@10", "Metric 'bpref@10': bpref takes no @k cut-off."),
        (
            "P_10@5",
            "Metric 'P_10@5': the cut-off is given twice (precision@10 and @5); write precision@5.",
        ),
        ("rbp.0", "Metric 'rbp.0': p must be a number in (0, 1). Got '0.0' instead."),
    ],
)
def test_bad_parameters(text, message):
    with _raises(message):
        parse_metric(text)


@pytest.mark.parametrize(
    ("text", "suggestion"),
    [
        ("P_1O", "P_10"),
        ("ndcg_cutt_10", "ndcg_cut_10"),
        ("recip_rnk", "recip_rank"),
        ("Rprc", "rprec"),
        ("NumRelRett", "NumRelRet"),
        ("SetPP", "SetP"),
        ("bpreff", "bpref"),
        ("infAPP", "infap"),
        ("11pt_avgg", "11pt_avg"),
        ("r-precison", "r-precision"),
        ("iprec_at_recal_0.10", "iprec_at_recall_0.10"),
    ],
)
def test_unknown_names_suggest_the_nearest_spelling(text, suggestion):
    with _raises(
        f"Unknown metric {text.lower()!r}. Did you mean {suggestion!r}? See receval.list_metrics()."
    ):
        parse_metric(text)


@pytest.mark.parametrize(
    ("text", "suggestion"),
    [
        # a cut-off or a mean over users: the ranking metric, not the pointwise one
        ("average_precison@10", "mean_average_precision"),
        ("mean_avg_precision", "mean_average_precision"),
        ("average_precison", "average_precision"),
        ("avg_precision", "average_precision"),
        ("mean_auc", "pr_auc"),  # no ranking metric is close
    ],
)
def test_ranking_looking_names_suggest_the_ranking_metric(text, suggestion):
    name = text.split("@")[0]
    with _raises(
        f"Unknown metric {name!r}. Did you mean {suggestion!r}? See receval.list_metrics()."
    ):
        parse_metric(text)


@pytest.mark.parametrize(
    "text", ["lambdarank", "rank_xendcg", "xendcg", "XE_NDCG", "xe_ndcg_mart", "xendcg_mart"]
)
def test_lightgbm_objectives_are_refused_as_objectives(text):
    name = text.lower()
    with pytest.raises(UnknownMetricError) as caught:
        parse_metric(text)
    assert str(caught.value) == (
        f"{name!r} is LightGBM's training objective, not an evaluation metric; LightGBM "
        f"evaluates it with 'ndcg': write e.g. 'ndcg@10' (or 'ndcg', the whole list) with "
        f"profile='lightgbm' for LightGBM's values."
    )


@pytest.mark.parametrize(
    ("text", "metric"), [("rank:ndcg", "ndcg"), ("rank:pairwise", "ndcg"), ("Rank:MAP", "map")]
)
def test_xgboost_ranking_objectives_are_refused_as_objectives(text, metric):
    # before: read as CatBoost's Name:param form, "Unknown CatBoost metric 'rank'"
    name = text.lower()
    with pytest.raises(UnknownMetricError) as caught:
        parse_metric(text)
    assert str(caught.value) == (
        f"{name!r} is XGBoost's training objective, not an evaluation metric; XGBoost "
        f"evaluates it with {metric!r}: write e.g. '{metric}@10' (or {metric!r}, the whole "
        f"list) with profile='xgboost' for XGBoost's values."
    )
    assert parse_metric(f"{metric}@10").name == metric  # the string it says to write


@pytest.mark.parametrize(
    ("text", "fix"),
    [
        ("binary:logistic", "XGBoost evaluates it with 'log_loss': write 'log_loss'."),
        (
            "reg:squarederror",
            "XGBoost evaluates it with 'root_mean_squared_error': write 'root_mean_squared_error'.",
        ),
        (
            "reg:gamma",
            "receval does not compute the metric XGBoost evaluates it with by default: write "
            "the metric to evaluate its model with. See receval.list_metrics().",
        ),
    ],
)
def test_other_xgboost_objectives_are_refused_as_objectives(text, fix):
    with pytest.raises(UnknownMetricError) as caught:
        parse_metric(text)
    assert str(caught.value) == (
        f"{text!r} is XGBoost's training objective, not an evaluation metric; {fix}"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "NDCG:top=10;top=5",
            "CatBoost metric 'NDCG:top=10;top=5': the parameter 'top' is given twice "
            "('top=10' and 'top=5'); keep one of them.",
        ),
        (
            "PrecisionAt:border=0.5;Border=1",
            "CatBoost metric 'PrecisionAt:border=0.5;Border=1': the parameter 'border' is "
            "given twice ('border=0.5' and 'Border=1'); keep one of them.",
        ),
        (
            "NDCG:top=0",
            "CatBoost metric 'NDCG:top=0': cannot read 'top=0'; expected one of ['top', "
            "'type', 'denominator'] (type: Base or Exp; denominator: LogPosition or "
            "Position; top: an integer > 0, or -1 for the whole list; border: a number >= "
            "0; decay: a number in (0, 1]).",
        ),
    ],
)
def test_catboost_strings_refuse_a_parameter_twice_and_top_zero(text, message):
    with _raises(message):
        parse_metric(text)


# ------------------------------------------------------------------ round trips
def _number(low, high, exclude=()):
    return st.floats(low, high, allow_nan=False, allow_infinity=False).filter(
        lambda x: x not in exclude
    )


def _write(x):
    # a number as a user may write it: repr, exponent, a leading +
    return st.sampled_from(
        [repr(x), f"{x:.17e}", ("+" if math.copysign(1.0, x) > 0 else "") + repr(x)]
    )


@st.composite
def _metric_strings(draw):
    name = draw(st.sampled_from(sorted(n for n, m in REGISTRY.items() if m.params)))
    info = REGISTRY[name]
    parts = []
    for param in info.params:
        if not param.required and draw(st.booleans()):
            continue
        if param.kind == "float":
            low = max(param.low, -1e6)
            high = min(param.high, 1e6)
            exclude = {param.low} if param.low_open else set()
            exclude |= {param.high} if param.high_open else set()
            value = draw(_write(draw(_number(low, high, exclude))))
        elif param.kind == "bool":
            value = draw(st.sampled_from(["true", "false", "True"]))
        elif param.kind == "levels":
            levels = draw(st.lists(_number(0, 1), min_size=1, max_size=15, unique=True))
            value = ";".join(draw(_write(x)) for x in levels)
        else:
            grades = draw(st.lists(st.integers(-5, 10), min_size=1, max_size=7, unique=True))
            value = ";".join(f"{g}:{draw(_write(draw(_number(-100, 100))))}" for g in grades)
        parts.append(f"{param.name}={value}")
    if "rel_threshold" in info.conventions and draw(st.booleans()):
        parts.append(f"rel_threshold={draw(st.integers(-3, 3))}")
    if "ties" in info.conventions and draw(st.booleans()):
        ties = info.values_of("ties") or ("trec", "input", "average")
        parts.append(f"ties={draw(st.sampled_from(ties))}")
    parts = draw(st.permutations(parts))
    text = name + ("(" + ", ".join(parts) + ")" if parts else "")
    if info.accepts_k and draw(st.booleans()):
        text += f"@{draw(st.integers(1, 1000))}"
    return text


@given(_metric_strings())
def test_str_round_trips_with_parameters(text):
    spec = parse_metric(text)
    canonical = str(spec)
    again = parse_metric(canonical)
    assert again == spec
    assert str(again) == canonical
    # defaults never show; every value is a float within its range
    for param in spec.info.params:
        given_value = dict(spec.args).get(param.name)
        assert given_value != param.default
        if param.kind == "float" and given_value is not None:
            assert math.isfinite(given_value) and param.in_range(given_value)
    assert spec.float_params() == again.float_params()


@given(
    st.floats(0, 1, allow_nan=False).filter(lambda x: 0 < x < 1),
    st.sampled_from(["rbp", "RBP", "rbp_resid"]),
)
def test_persistence_is_read_exactly(p, name):
    spec = parse_metric(f"{name}(p={p!r})")
    assert spec.arg("p") == p
    assert parse_metric(str(spec)).arg("p") == p


@given(st.integers(1, 10**6), st.sampled_from(["", "(rel_threshold=2)", "(ties=input)"]))
def test_trec_eval_cut_off_names(k, conventions):
    for trec, receval_name in [
        ("P", "precision"),
        ("recall", "recall"),
        ("ndcg_cut", "ndcg"),
        ("map_cut", "map"),
        ("success", "success"),
        ("relative_P", "relative_precision"),
        ("unj", "unjudged"),
    ]:
        assert parse_metric(f"{trec}_{k}{conventions}") == parse_metric(
            f"{receval_name}{conventions}@{k}"
        )


@given(st.integers(1, 99))
def test_ranx_persistence(digits):
    p = float(f"0.{digits}")
    assert parse_metric(f"rbp.{digits}").arg("p") == p
    assert parse_metric(f"rbp@{digits}") == parse_metric(f"rbp.{digits}")


def test_metric_info_and_definition_read_peer_spellings():
    from receval import metric_info
    from receval.registry import definition

    assert metric_info("P_10").name == "precision"
    assert metric_info("nDCG@10", family="ranking").name == "ndcg"
    assert metric_info("rbp(p=0.9)").name == "rbp"
    assert metric_info("NumRelRet").name == "num_rel_ret"
    with pytest.raises(InvalidParameterError, match="Did you mean 'P_10'"):
        metric_info("P_1O", family="ranking")
    assert definition("P_10") is definition("ndcg@10")
    with _raises("Metric 'rbp(p=2)': p must be a number in (0, 1). Got '2' instead."):
        definition("rbp(p=2)")


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("P(judged_only=True)@10", "precision(judged_only=True)@10"),
        ("nDCG(judged_only=false)@10", "ndcg(judged_only=False)@10"),
        ("map(depth=100)", "map(depth=100)"),
    ],
)
def test_depth_and_judged_only_in_strings(text, canonical):
    # ir_measures' judged_only and trec_eval's -M are conventions
    spec = parse_metric(text)
    assert str(spec) == canonical
    assert parse_metric(canonical) == spec


@pytest.mark.parametrize("name", ["dcg", "idcg", "ndcg", "g", "ndcg_rel", "r_ndcg"])
def test_trec_eval_gain_tables(name):
    # trec_eval's -m G.1=3,2=9 (and dcg, ideal_dcg, ndcg, ndcg_rel, Rndcg)
    spec = parse_metric(f"{name}(gains=2:9;1:3)")
    assert str(spec) == f"{name}(gains=1:3;2:9)"
    assert spec.float_params() == (2.0, 1.0, 3.0, 2.0, 9.0)


# ------------------------------------------------------------------ trec_eval's -m form
@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("P.5,5", "the cut-off 5 is given twice; cut-offs must be distinct (e.g. -m P.5,10)."),
        ("P.0", "the cut-off '0' is not positive; give positive integers separated by commas"),
        ("success.0", "the cut-off '0' is not positive"),
        ("recall.-5", "the cut-off '-5' is not positive"),
        ("ndcg_cut.5,10,5", "the cut-off 5 is given twice"),
        ("Rprec_mult.0.5,0.5", "the levels must be distinct."),
    ],
)
def test_trec_evals_form_with_refused_parameters_says_trec_evals_reason(text, reason):
    # it said "Cannot parse metric 'P.5,5'; expected name[(...)][@k]" or "Unknown
    # metric 'p.0'. Did you mean 'P_10'?": another metric, not why this one is refused
    from receval import parse_metrics

    for parse in (parse_metric, parse_metrics):
        with pytest.raises(InvalidParameterError) as info:
            parse(text)
        assert str(info.value).startswith(f"Metric {text!r} (trec_eval's -m {text}): {reason}")
        assert not isinstance(info.value, UnknownMetricError)  # a known measure's parameters


def test_a_string_naming_no_metric_raises_unknown_metric_error():
    for text in ("ndgc@10", "((", "P_5000000x", "nosuch.5"):
        with pytest.raises(UnknownMetricError):
            parse_metric(text)
    with pytest.raises(InvalidParameterError) as info:  # a metric's bad parameter
        parse_metric("rbp.0")
    assert not isinstance(info.value, UnknownMetricError)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("P.5", {"P.5": "precision@5"}),
        ("P.5,10", {"P_5": "precision@5", "P_10": "precision@10"}),
        ("ndcg_cut.10,20", {"ndcg_cut_10": "ndcg@10", "ndcg_cut_20": "ndcg@20"}),
        ("iprec_at_recall.0.1", {"iprec_at_recall.0.1": "iprec(recall=0.1)"}),
        ("ndcg.1=3,2=9", {"ndcg.1=3,2=9": "ndcg(gains=1:3;2:9)"}),
        ("rbp.95", {"rbp.95": "rbp(p=0.95)"}),  # ranx's spelling, not trec_eval's pairs
        ("rbp.p=0.95", {"rbp.p=0.95": "rbp(p=0.95)"}),
        ("nDCG@10", {"nDCG@10": "ndcg@10"}),
    ],
)
def test_parse_metrics_expands_trec_evals_form(text, expected):
    from receval import parse_metrics

    assert {k: str(v) for k, v in parse_metrics(text).items()} == expected
    if len(expected) > 1:
        with _raises(
            f"Metric {text!r} stands for {len(expected)} metrics ({', '.join(expected)}); name "
            f"one of them, e.g. {next(iter(expected))!r}. receval.parse_metrics({text!r}), "
            f"evaluate and compare take them all, each under its trec_eval name."
        ):
            parse_metric(text)
    else:
        assert str(parse_metric(text)) == next(iter(expected.values()))


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("P", [f"P_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)]),
        ("p", [f"P_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)]),
        ("ndcg_cut", [f"ndcg_cut_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)]),
        ("map_cut", [f"map_cut_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)]),
        ("relative_P", [f"relative_P_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)]),
        ("iprec_at_recall", [f"iprec_at_recall_{x / 10:.2f}" for x in range(11)]),
        ("unj", ["unj_5", "unj_10", "unj_20"]),
    ],
)
def test_bare_trec_eval_family_is_its_default_cut_offs(text, names):
    # trec_eval -m P prints P_5 ... P_1000; "P" was read as precision over the whole list
    from receval import parse_metrics

    assert list(parse_metrics(text)) == names
    with pytest.raises(InvalidParameterError, match=f"stands for {len(names)} metrics"):
        parse_metric(text)


@pytest.mark.parametrize("text", ["recall", "success", "ndcg", "map", "precision"])
def test_receval_names_of_trec_eval_families_stay_whole_list(text):
    # "recall" and "success" are receval's (and ranx's) metrics of the whole list
    from receval import parse_metrics

    assert {k: str(v) for k, v in parse_metrics(text).items()} == {text: text}


def test_bare_trec_eval_families_equal_pytrec_eval():
    import pytrec_eval

    from receval import evaluate

    qrels = {"q1": {f"d{i}": i % 3 for i in range(40)}, "q2": {"d1": 1, "d7": 2, "x": 1}}
    run = {
        "q1": {f"d{i}": float((i * 7) % 40) for i in range(40)},
        "q2": {f"d{i}": float(i % 5) for i in range(12)},
    }
    families = ["P", "ndcg_cut", "map_cut", "iprec_at_recall"]
    expected = pytrec_eval.RelevanceEvaluator(qrels, set(families)).evaluate(run)
    report = evaluate(qrels, run, families, profile="trec_eval")
    for name in report.mean:
        want = sum(v[name] for v in expected.values()) / len(expected)
        assert report.mean[name] == pytest.approx(want, abs=1e-12), name
    assert len(report.mean) == 9 * 3 + 11


def test_evaluate_reports_trec_evals_form_under_its_names():
    from receval import evaluate, metric

    qrels = {"q1": {"a": 1, "b": 0, "c": 2}, "q2": {"a": 1}}
    run = {"q1": {"a": 0.9, "d": 0.8, "c": 0.5}, "q2": {"b": 0.3, "a": 0.2}}
    report = evaluate(qrels, run, ["P.1,2", "map"], profile="trec_eval")
    assert list(report.mean) == ["P_1", "P_2", "map"]
    alone = evaluate(qrels, run, ["precision@1", "precision@2"], profile="trec_eval")
    assert report.mean["P_1"] == alone.mean["precision@1"] == 0.5
    assert report.mean["P_2"] == alone.mean["precision@2"]
    with pytest.raises(InvalidParameterError, match="stands for 2 metrics"):
        metric("P.1,2")

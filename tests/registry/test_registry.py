"""Metric strings (parse / str round trip, aliases, exact errors) and conventions."""

import re
from dataclasses import fields

import pytest

import receval
from receval import PROFILES, Conventions, list_metrics, parse_metric
from receval.conventions import CHOICES, FIELDS, resolve_conventions
from receval.engine.totals import MEAN_KINDS
from receval.exceptions import InvalidParameterError
from receval.registry import ENTRIES, MetricSpec, resolve
from receval.registry import RANKING as REGISTRY
from receval.registry.peers import SPELLINGS

# (input, canonical form)
CANONICAL = [
    ("ndcg@10", "ndcg@10"),
    ("NDCG@10", "ndcg@10"),
    ("  nDcG @ 10  ", "ndcg@10"),
    ("ndcg@ 10", "ndcg@10"),
    ("ndcg@+5", "ndcg@5"),
    ("ndcg", "ndcg"),
    ("ndcg()@3", "ndcg@3"),
    ("ndcg( )@3", "ndcg@3"),
    ("map@100", "map@100"),
    ("mrr", "mrr"),
    ("recall@1", "recall@1"),
    ("precision@20", "precision@20"),
    ("f1@5", "f1@5"),
    ("success@5", "success@5"),
    ("pooled_hit_ratio@10", "pooled_hit_ratio@10"),
    ("cg@5", "cg@5"),
    ("dcg@5", "dcg@5"),
    ("idcg@5", "idcg@5"),
    ("r_precision", "r_precision"),
    ("R_Precision", "r_precision"),
    ("ndcg(gain=exponential)@10", "ndcg(gain=exponential)@10"),
    ("ndcg(GAIN=Exponential)@10", "ndcg(gain=exponential)@10"),
    ("ndcg ( gain = exponential ) @ 10", "ndcg(gain=exponential)@10"),
    (
        "map( rel_threshold=2 , ap_normalizer=min_k )@100",
        "map(ap_normalizer=min_k,rel_threshold=2)@100",
    ),
    ("map(rel_threshold=+2)", "map(rel_threshold=2)"),
    ("map(rel_threshold=0)", "map(rel_threshold=0)"),
    (
        "ndcg(ties=average,ideal=candidates,gain=linear,rel_threshold=3)@7",
        "ndcg(gain=linear,ideal=candidates,rel_threshold=3,ties=average)@7",
    ),
    (
        "recall(missing_users=skip,empty_users=zero)@50",
        "recall(empty_users=zero,missing_users=skip)@50",
    ),
    ("mrr(ties=input)", "mrr(ties=input)"),
    # aliases
    ("hr@10", "success@10"),
    ("HR@10", "success@10"),
    ("hit_ratio@10", "success@10"),
    ("hit_rate@5", "success@5"),
    ("ap", "map"),
    ("ap@10", "map@10"),
    ("rr", "mrr"),
    ("recip_rank@3", "mrr@3"),
    ("rprec", "r_precision"),
    ("p@2", "precision@2"),
    ("P@2", "precision@2"),
    ("ndcg_burges", "ndcg(gain=exponential)"),
    ("ndcg_burges@10", "ndcg(gain=exponential)@10"),
    ("NDCG_BURGES(ideal=candidates)@3", "ndcg(gain=exponential,ideal=candidates)@3"),
    # explicit conventions override those of the alias
    ("ndcg_burges(gain=linear)@5", "ndcg(gain=linear)@5"),
    ("recall@9223372036854775807", "recall@9223372036854775807"),
]


@pytest.mark.parametrize(("text", "canonical"), CANONICAL)
def test_canonical_form_and_round_trip(text, canonical):
    spec = parse_metric(text)
    assert str(spec) == canonical
    again = parse_metric(str(spec))
    assert again == spec
    assert str(again) == canonical


def test_spec_fields():
    spec = parse_metric("MAP(rel_threshold=2, ap_normalizer=HITS)@100")
    assert spec == MetricSpec("map", 100, (("ap_normalizer", "hits"), ("rel_threshold", 2)))
    assert spec.params == (("ap_normalizer", "hits"), ("rel_threshold", 2))
    assert isinstance(spec.params[1][1], int)
    assert spec.info is REGISTRY["map"]
    assert parse_metric("mrr") == MetricSpec("mrr", None, ())
    assert parse_metric("ndcg@3").k == 3
    # specs are hashable and compare by value
    assert len({parse_metric("hr@5"), parse_metric("hit_rate@5"), parse_metric("HR @5")}) == 1


def test_conventions_sorted_whatever_the_order():
    a = parse_metric("ndcg(rel_threshold=2,gain=exponential,ties=input)@5")
    b = parse_metric("ndcg(ties=input,gain=exponential,rel_threshold=2)@5")
    assert a == b
    assert [key for key, _ in a.params] == ["gain", "rel_threshold", "ties"]


#: trec_eval's families whose bare name is several metrics (P: P_5 ... P_1000)
_FAMILIES = {"P", "p", "ndcg_cut", "map_cut", "relative_P", "unj"}


@pytest.mark.parametrize(
    ("alias", "target"),
    [
        ("hr", "success"),
        ("hit_rate", "success"),
        ("ap", "map"),
        ("rr", "mrr"),
        ("recip_rank", "mrr"),
        ("rprec", "r_precision"),
        ("ndcg_burges", "ndcg(gain=exponential)"),
        ("pre", "precision"),
        ("intra_list_similarity", "ils"),
    ],
)
def test_every_alias(alias, target):
    rows = [s for s in SPELLINGS if not s.pattern and s.spelling.lower() == alias]
    assert {row.metric for row in rows} == {target}
    assert str(parse_metric(alias)) == target
    assert parse_metric(alias.upper()) == parse_metric(target)


def test_spelling_table_is_well_formed():
    for row in SPELLINGS:
        if row.spelling.lower() in REGISTRY:  # the peer spells the name in another case
            assert row.metric == row.spelling.lower()
        assert row.peer in {
            "receval", "trec_eval", "ir_measures", "ranx", "recbole", "xgboost", "catboost",
            "lightgbm",
        }  # fmt: skip
        if row.spelling == "IPrec":  # the recall level comes after: IPrec@0.1
            with pytest.raises(InvalidParameterError, match="iprec needs the parameter recall"):
                parse_metric(row.spelling)
            continue
        # the example is a spelling of the row, and reads as its metric (a required
        # parameter, partial_auc's max_fpr, given as a keyword)
        target = row.metric.format(**_groups(row)) if row.pattern else row.metric
        needed = {p.name for p in ENTRIES[target.split("(")[0].split("@")[0]].params}
        if row.shown in _FAMILIES:  # the bare name is several metrics; P@10 is one
            shown, target = f"{row.shown}@10", f"{target}@10"
        else:
            shown = row.shown
        assert resolve(shown, supplied=needed) == resolve(target, supplied=needed)
        if not row.pattern:
            # every target parses to itself: targets are written in canonical form
            assert str(resolve(row.metric, supplied=needed)) == row.metric
        if row.with_rel:
            assert str(parse_metric(row.with_rel)) == row.with_rel
    # one meaning per literal spelling
    literal = {}
    for row in SPELLINGS:
        if not row.pattern:
            assert literal.setdefault(row.spelling.lower(), row.metric) == row.metric


def _groups(row):
    return re.fullmatch(row.spelling, row.example, re.IGNORECASE).groupdict()


def test_aliases_with_cut_off():
    for row in SPELLINGS:
        if row.pattern or not ENTRIES[row.metric.split("(")[0]].accepts_k:
            continue
        assert str(parse_metric(f"{row.spelling}@7")) == f"{row.metric}@7"


def _names(family=None):
    return [e.name for e in list_metrics(family)]


def test_list_metrics():
    assert _names("ranking") == sorted(n for n, m in REGISTRY.items() if m.needs == "qrels")
    assert {"cg", "dcg", "ndcg", "map", "bpref", "rbp", "num_q", "hits"} <= set(_names("ranking"))
    # ils and diversity are metric strings of evaluate too, from the lists alone
    assert {"ils", "diversity", "novelty", "gini_index"} <= set(_names("list"))
    assert _names("grouped") == ["gauc", "grouped_auprc", "grouped_regression_auc", "grouped_xauc"]
    assert {"roc_auc", "log_loss", "normalized_entropy", "average_precision"} <= set(
        _names("pointwise")
    )
    every = _names()
    assert every == sorted(every) and len(every) == len(set(every))
    assert set(REGISTRY) <= set(every)
    assert list_metrics() is not list_metrics()  # a fresh list each call
    for name in _names("ranking"):
        info = REGISTRY[name]
        if not any(p.required for p in info.params):
            assert str(parse_metric(name)) == name
    with pytest.raises(InvalidParameterError, match="'family' parameter of list_metrics"):
        list_metrics("ctr")


def test_list_metrics_entries():
    entries = {e.name: e for e in list_metrics()}
    assert all(e.description and e.source for e in entries.values())
    assert entries["precision"].aliases == ("p", "P_10", "pre", "PrecisionAt")
    # nDCG is ndcg in another case
    assert entries["ndcg"].aliases == (
        "ndcg_cut_10",
        "ndcg_cut",
        "ndcg_burges",
        "ndcg@10-",
        "ndcg-",
    )
    assert entries["mrr"].aliases == ("rr", "recip_rank")
    assert entries["precision"].source == "trec_eval 10.0"
    assert entries["rbp"].parameters == ("p: persistence, in (0, 1), default 0.8",)
    assert entries["iprec"].parameters == ("recall: recall level, in [0, 1], required",)
    assert entries["err"].source == "ir_measures"
    assert entries["hits"].source == "ranx"
    # the peer each list metric follows (docs/conventions.md, "Beyond accuracy"):
    # Microsoft Recommenders' novelty is another definition
    assert entries["novelty"].source == "Zhou et al. 2010 (recmetrics)"
    assert entries["personalization"].source == "recmetrics"
    assert entries["gini_index"].source == "RecBole"
    assert entries["gauc"].family == "grouped"
    # every alias of a ranking metric reads as that metric
    for entry in entries.values():
        if entry.function == "evaluate":
            for alias in entry.aliases:
                alias = f"{alias}@10" if alias in _FAMILIES else alias
                assert parse_metric(alias).name == entry.name, alias


def test_metric_info_names_and_ambiguity():
    from receval import metric_info

    assert metric_info("AUC").name == "roc_auc"
    assert metric_info("logloss").function == "log_loss"
    assert metric_info("hr").name == "success"
    # "ap" is mean average precision everywhere (as ir_measures' AP); the average
    # precision of scores is average_precision
    assert metric_info("ap").name == metric_info("ap", family="ranking").name == "map"
    with pytest.raises(InvalidParameterError, match=r"'ap' is map, a ranking metric .*'average_p"):
        metric_info("ap", family="pointwise")
    assert metric_info("average_precision_score").name == "average_precision"
    with pytest.raises(InvalidParameterError, match="Did you mean 'log_loss'"):
        metric_info("log_los")
    entry = metric_info("gauc")
    assert (entry.family, entry.partitionings, entry.higher_is_better) == (
        "grouped",
        ("groups",),
        True,
    )


def test_registry_metadata():
    assert {n for n, m in REGISTRY.items() if m.accepts_k} == {
        "precision", "recall", "f1", "pooled_hit_ratio", "success", "map", "cg", "dcg", "idcg",
        "ndcg", "mrr", "r_precision", "ils", "diversity", "num_ret", "num_rel_ret",
        "relative_precision",
        "unjudged", "judged", "err", "nerr", "hits", "arp", "aplt", "aclt", "average_popularity",
        "tail_percentage", "serendipity", "miscalibration", "ee_disparity", "ee_relevance",
        "ee_loss", "pfound", "average_gain",
    }  # fmt: skip
    assert {n for n, m in REGISTRY.items() if not m.bounded} == {
        "cg", "dcg", "idcg", "ils", "diversity", "num_ret", "num_rel", "num_rel_ret",
        "num_nonrel_judged_ret", "num_q", "utility", "hits", "arp", "aclt", "average_popularity",
        "serendipity", "miscalibration", "ee_disparity", "ee_relevance", "ee_loss", "pfound",
        "average_gain",
    }  # fmt: skip
    assert [n for n, m in REGISTRY.items() if m.mean == "pooled"] == ["pooled_hit_ratio"]
    assert [n for n, m in REGISTRY.items() if m.mean == "sum"] == [
        "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret", "num_q",
    ]  # fmt: skip
    assert [n for n, m in REGISTRY.items() if m.mean == "geometric"] == ["gm_map", "gm_bpref"]
    assert {m.mean for m in REGISTRY.values()} == set(MEAN_KINDS)  # each computed by _states
    assert [n for n, m in REGISTRY.items() if not m.higher_is_better] == [
        "ils", "arp", "average_popularity", "miscalibration", "ee_disparity", "ee_loss",
        "num_nonrel_judged_ret", "unjudged",
    ]  # fmt: skip
    assert [n for n, m in REGISTRY.items() if m.needs == "similarity"] == ["ils", "diversity"]
    assert [n for n, m in REGISTRY.items() if m.needs == "popularity"] == [
        "arp", "aplt", "aclt", "average_popularity", "tail_percentage",
    ]  # fmt: skip
    assert [n for n, m in REGISTRY.items() if m.needs == "history"] == ["serendipity"]
    assert [n for n, m in REGISTRY.items() if m.needs == "categories"] == ["miscalibration"]
    assert all(m.name == n for n, m in REGISTRY.items())
    for m in REGISTRY.values():
        assert set(m.conventions) <= set(FIELDS)
        assert len(set(m.conventions)) == len(m.conventions)
        for key, values in m.choices:
            assert key in m.conventions and set(values) <= set(CHOICES[key])


# ---------------------------------------------------------------- errors
def _raises(message):
    return pytest.raises(InvalidParameterError, match="^" + re.escape(message) + "$")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("ndgc", "Unknown metric 'ndgc'. Did you mean 'ndcg'? See receval.list_metrics()."),
        (
            "ndgc@10",
            "Unknown metric 'ndgc'. Did you mean 'ndcg'? See receval.list_metrics().",
        ),
        (
            "NDGC",
            "Unknown metric 'ndgc'. Did you mean 'ndcg'? See receval.list_metrics().",
        ),
        (
            "precison@5",
            "Unknown metric 'precison'. Did you mean 'precision'? See receval.list_metrics().",
        ),
        (
            "hit_ration@5",
            "Unknown metric 'hit_ration'. Did you mean 'hit_ratio'? See receval.list_metrics().",
        ),
        (
            "ndcg_burgess",
            "Unknown metric 'ndcg_burgess'. Did you mean 'ndcg_burges'? "
            "See receval.list_metrics().",
        ),
        ("zzzzzz", "Unknown metric 'zzzzzz'. See receval.list_metrics()."),
        ("nd-cg@3", "Unknown metric 'nd-cg'. Did you mean 'ndcg'? See receval.list_metrics()."),
    ],
)
def test_unknown_metric_with_suggestion(text, message):
    with _raises(message):
        parse_metric(text)


@pytest.mark.parametrize("k", ["0", "-1", "x", "1.5", "05", "1e3", "10@5", "٣", "10(gain=linear)"])
def test_bad_cut_off(k):
    text = f"ndcg@{k}"
    with _raises(f"Metric {text!r}: the cut-off must be a positive integer. Got {k!r} instead."):
        parse_metric(text)


def test_cut_off_too_large():
    with _raises(
        "Metric 'recall@9223372036854775808': the cut-off must be at most 9223372036854775807. "
        "Got '9223372036854775808' instead."
    ):
        parse_metric("recall@9223372036854775808")


@pytest.mark.parametrize("text", ["r_precision@5", "rprec@5", "R_PRECISION@5"])
def test_cut_off_on_r_precision(text):
    # Microsoft Recommenders' r_precision_at_k: relevant items in the top min(R, k), over R
    assert str(parse_metric(text)) == "r_precision@5"
    qrels = {"u": {"a": 1, "b": 1, "c": 1}, "v": {"a": 1}}
    run = {"u": {"a": 0.9, "x": 0.8, "b": 0.7, "c": 0.6}, "v": {"x": 0.9, "a": 0.5}}
    report = receval.evaluate(qrels, run, [text, "r_precision"])
    # u: R = 3; top min(3, 5) = [a, x, b]: 2 hits / 3; v: R = 1, top 1 = [x]: 0
    assert report.values[text].tolist() == [2 / 3, 0.0]
    assert report.values["r_precision"].tolist() == [2 / 3, 0.0]
    cut = receval.evaluate(qrels, run, ["r_precision@1"])
    assert cut.values["r_precision@1"].tolist() == [1 / 3, 0.0]


def test_unknown_convention_key():
    with _raises(
        "Metric 'map(foo=1)@3': unknown option 'foo'; its options are ['ap_normalizer', "
        "'depth', 'empty_users', 'estimator', 'hit_scores', 'judged_only', 'missing_users', "
        "'rel_threshold', 'ties', 'zero_users']."
    ):
        parse_metric("map(foo=1)@3")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "ndcg(gain=quadratic)",
            "Metric 'ndcg(gain=quadratic)': gain must be one of ['binary', 'exponential', "
            "'linear']. Got 'quadratic' instead.",
        ),
        (
            "map(ap_normalizer=R)@10",
            "Metric 'map(ap_normalizer=R)@10': ap_normalizer must be one of ['hits', 'min_k', "
            "'min_retrieved', 'relevant']. Got 'r' instead.",
        ),
        (
            "mrr(ties=random)",
            "Metric 'mrr(ties=random)': ties must be one of ['average', 'id_ascending', "
            "'id_descending', 'input', "
            "'trec', 'worst']. "
            "Got 'random' instead.",
        ),
        (
            "ndcg_burges(ideal=all)",
            "Metric 'ndcg_burges(ideal=all)': ideal must be one of ['candidates', 'judged']. "
            "Got 'all' instead.",
        ),
        (
            "map(rel_threshold=x)",
            "Metric 'map(rel_threshold=x)': rel_threshold must be a number. Got 'x' instead.",
        ),
        (
            "map(rel_threshold=1e999)",
            "Metric 'map(rel_threshold=1e999)': rel_threshold must be a number. Got '1e999' "
            "instead.",
        ),
    ],
)
def test_bad_convention_value(text, message):
    with _raises(message):
        parse_metric(text)


@pytest.mark.parametrize(
    ("text", "part"),
    [
        ("ndcg(gain)", "gain"),
        ("ndcg(gain=)", "gain="),
        ("ndcg(=linear)", "=linear"),
        ("ndcg(gain=linear,)", ""),
        ("ndcg(,gain=linear)", ""),
    ],
)
def test_convention_without_value(text, part):
    with _raises(
        f"Metric {text!r}: expected convention=value inside the parentheses. Got {part!r} instead."
    ):
        parse_metric(text)


@pytest.mark.parametrize(
    "text",
    [
        "ndcg(gain=linear",
        "ndcg gain=linear)",
        "ndcg)gain=linear(",
        "ndcg((gain=linear))",
        "ndcg(gain=linear)(ties=input)",
        "",
        "   ",
        "@5",
        "10",
        "ndcg @ 1 0",
        "ndcg@",
    ],
)
def test_malformed_metric_string(text):
    with _raises(
        f"Cannot parse metric {text!r}; expected name[(convention=value, ...)][@k], "
        "e.g. 'ndcg@10' or 'map(ap_normalizer=min_k)@100'."
    ):
        parse_metric(text)


@pytest.mark.parametrize("value", [5, None, b"ndcg", ["ndcg@10"]])
def test_metric_must_be_a_string(value):
    with _raises(f"A metric must be a string such as 'ndcg@10'. Got {value!r} instead."):
        parse_metric(value)


def test_errors_are_value_and_type_errors():
    with pytest.raises(ValueError):
        parse_metric("ndgc")
    with pytest.raises(TypeError):
        parse_metric("ndcg@0")


def test_evaluate_reports_parse_errors():
    qrels = {"u": {"a": 1}}
    run = {"u": {"a": 0.5}}
    with _raises("Unknown metric 'ndgc'. Did you mean 'ndcg'? See receval.list_metrics()."):
        receval.evaluate(qrels, run, ["ndcg@3", "ndgc@3"])
    report = receval.evaluate(qrels, run, ["HR@1", "ndcg_burges@2"])
    # results are keyed by the strings as written; the canonical forms are kept too
    assert report.metrics == {"HR@1": "success@1", "ndcg_burges@2": "ndcg(gain=exponential)@2"}
    assert report.mean == {"HR@1": 1.0, "ndcg_burges@2": 1.0}
    assert report.conventions["ndcg_burges@2"].gain == "exponential"
    assert report.conventions["HR@1"].gain == "linear"


# ---------------------------------------------------------------- conventions
def test_defaults():
    assert Conventions() == Conventions(
        ap_normalizer="relevant",
        gain="linear",
        rel_threshold=1,
        ties="trec",
        missing_users="zero",
        empty_users="skip",
        ideal="judged",
    )
    assert FIELDS == tuple(f.name for f in fields(Conventions))
    assert (Conventions().depth, Conventions().judged_only) == (0, False)
    assert set(CHOICES) | {"rel_threshold", "depth", "judged_only"} == set(FIELDS)
    for name, options in CHOICES.items():
        assert getattr(Conventions(), name) == options[0]  # default listed first


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_every_profile_validates(name):
    profile = PROFILES[name]
    assert profile.validated() is profile
    assert resolve_conventions(name) == profile
    assert set(profile.as_dict()) == set(FIELDS)


def test_profile_names_and_key_choices():
    assert sorted(PROFILES) == [
        "catboost",
        "ir_measures",
        "lenskit",
        "lightgbm",
        "ranx",
        "recbole",
        "recommenders",
        "sklearn",
        "torchmetrics",
        "torchrec",
        "trec_eval",
        "xgboost",
    ]
    trec = PROFILES["trec_eval"]
    assert (trec.ties, trec.missing_users, trec.empty_users, trec.ap_normalizer) == (
        "trec",
        "skip",
        "zero",
        "relevant",
    )
    assert (PROFILES["sklearn"].ties, PROFILES["sklearn"].ideal) == ("average", "candidates")
    assert PROFILES["recbole"].ap_normalizer == "min_k"
    assert PROFILES["torchmetrics"].ap_normalizer == "hits"


def test_resolve_precedence():
    assert resolve_conventions() == Conventions()
    assert resolve_conventions(None, gain=None, ties=None) == Conventions()
    # an explicit keyword overrides the profile; the rest comes from the profile
    resolved = resolve_conventions("trec_eval", gain="exponential", missing_users="zero")
    assert resolved == Conventions(
        ap_normalizer="relevant",
        gain="exponential",
        rel_threshold=1,
        ties="trec",
        missing_users="zero",
        empty_users="zero",
        ideal="judged",
        gain_grades="positive",
        recall_rounding="trec9",
    )
    assert PROFILES["trec_eval"].gain == "linear"  # the profile itself is untouched
    # a profile's convention for one metric: Microsoft Recommenders' ndcg_at_k
    assert resolve_conventions("recommenders").missing_users == "skip"
    ndcg = resolve_conventions("recommenders", metric="ndcg")
    assert (ndcg.missing_users, ndcg.gain) == ("zero", "binary")
    # ... and a keyword still overrides it
    assert resolve_conventions("recommenders", metric="ndcg", gain="linear").gain == "linear"
    assert resolve_conventions("sklearn", rel_threshold=2).rel_threshold == 2
    assert resolve_conventions(rel_threshold=0).rel_threshold == 0


def test_evaluate_precedence_profile_keyword_metric_string():
    qrels = {"u": {"a": 2, "b": 1}, "v": {"c": 1}}
    run = {"u": {"b": 0.9, "a": 0.8}}  # v is missing from the run
    # trec_eval skips users missing from the run; the keyword says score them 0
    assert receval.evaluate(qrels, run, ["p@1"], profile="trec_eval").mean == {"p@1": 1.0}
    report = receval.evaluate(qrels, run, ["p@1"], profile="trec_eval", missing_users="zero")
    assert report.mean == {"p@1": 0.5}
    # a convention in the metric string overrides both
    report = receval.evaluate(
        qrels,
        run,
        ["p@1", "p(missing_users=skip)@1"],
        profile="trec_eval",
        missing_users="zero",
    )
    assert report.mean == {"p@1": 0.5, "p(missing_users=skip)@1": 1.0}
    assert report.conventions["p@1"].missing_users == "zero"
    assert report.conventions["p(missing_users=skip)@1"].missing_users == "skip"


def test_invalid_profile_name():
    with _raises(
        "The 'profile' parameter of evaluate must be one of ['catboost', 'ir_measures', "
        "'lenskit', 'lightgbm', 'ranx', 'recbole', 'recommenders', "
        "'sklearn', 'torchmetrics', 'torchrec', 'trec_eval', 'xgboost']. "
        "Got 'trec' instead."
    ):
        resolve_conventions("trec")
    with _raises(
        "The 'profile' parameter of evaluate must be one of ['catboost', 'ir_measures', "
        "'lenskit', 'lightgbm', 'ranx', 'recbole', 'recommenders', "
        "'sklearn', 'torchmetrics', 'torchrec', 'trec_eval', 'xgboost']. "
        "Got 'TREC_EVAL' instead."
    ):
        receval.evaluate({"u": {"a": 1}}, {"u": {"a": 1.0}}, ["mrr"], profile="TREC_EVAL")


def test_invalid_convention_keywords():
    with _raises(
        "The 'gain' parameter of evaluate must be one of ['binary', 'exponential', 'linear']. "
        "Got 'quad' instead."
    ):
        resolve_conventions(gain="quad")
    with _raises(
        "The 'ties' parameter of my_func must be one of ['average', 'id_ascending', "
        "'id_descending', 'input', "
        "'trec', 'worst']. "
        "Got 'random' instead."
    ):
        resolve_conventions("ranx", "my_func", ties="random")
    assert resolve_conventions(rel_threshold=0.5).rel_threshold == 0.5  # grades are reals
    with _raises("The 'rel_threshold' parameter of evaluate must be a real number. Got True "
                 "instead."):  # fmt: skip
        resolve_conventions(rel_threshold=True)
    with _raises("The 'rel_threshold' parameter of evaluate must be a real number. Got nan "
                 "instead."):  # fmt: skip
        resolve_conventions(rel_threshold=float("nan"))
    with _raises(
        "The 'convention' parameter of evaluate must be one of ['ap_normalizer', 'depth', "
        "'discount', 'empty_users', 'estimator', 'gain', 'gain_grades', 'grades', 'hit_scores', "
        "'ideal', 'judged_only', 'missing_users', 'precision_normalizer', 'recall_normalizer', "
        "'recall_rounding', 'rel_threshold', 'ties', 'zero_users']. Got 'foo' instead."
    ):
        resolve_conventions(foo="x")
    with _raises(
        "The 'empty_users' parameter of evaluate must be one of ['error', 'one', 'skip', "
        "'zero']. Got 'raise' instead."
    ):
        Conventions(empty_users="raise").validated()


def test_metric_info_names_an_option_the_metric_does_not_take():
    from receval import metric_info

    with pytest.raises(InvalidParameterError, match=r"^Metric 'mrr\(gain=binary\)@10': mrr does"):
        metric_info("mrr(gain=binary)@10")
    assert metric_info("rbp(gain=binary)").conventions == tuple(sorted(REGISTRY["rbp"].conventions))
    assert "gain" not in metric_info("mrr").conventions


def test_every_option_a_metric_declares_is_taken_by_its_string():
    # the declared list is what the parser reads: each convention parses, none other does
    for name, info in REGISTRY.items():
        for key in FIELDS:
            value = "2" if key in ("rel_threshold", "depth") else "true"
            if key in CHOICES:
                allowed = info.values_of(key) or CHOICES[key]
                value = allowed[-1]
            required = ",".join(f"{p.name}=0.5" for p in info.params if p.required)
            text = f"{name}({key}={value}{',' + required if required else ''})"
            if key in info.conventions:
                assert dict(parse_metric(text).params)[key] is not None, text
            else:
                with pytest.raises(InvalidParameterError, match="does not use the convention"):
                    parse_metric(text)


@pytest.mark.parametrize("family", sorted({e.family for e in ENTRIES.values()}))
def test_a_metric_of_another_family_is_named_in_words(family):
    # the message named the family as its identifier after "a": "not a off_policy metric"
    from receval.registry.schema import FAMILIES

    entry = next(e for e in ENTRIES.values() if e.family == family)
    other = next(f for f in FAMILIES if f != family)
    with pytest.raises(InvalidParameterError) as caught:
        resolve(entry.name, family=other, where="here")
    text = str(caught.value)
    words = {"off_policy": "an off-policy"}
    assert f", {words.get(family, 'a ' + family)} metric (" in text
    assert f"), not {words.get(other, 'a ' + other)} metric;" in text
    assert "off_policy" not in text and not re.search(r"\ba [aeiou]", text)


def test_off_policy_is_named_with_its_article():
    with pytest.raises(InvalidParameterError, match=r", not an off-policy metric; compute it "):
        resolve("ndcg@10", family="off_policy")
    with pytest.raises(InvalidParameterError, match=r"'ips' is ips, an off-policy metric \("):
        resolve("ips", family=("pointwise", "grouped"))

"""Peers' spellings as rows: every name of a metric other than its canonical one.

Each :class:`Spelling` row maps a name users type (receval's short names and
function names, trec_eval's ``P_10`` and ``recip_rank``, ir_measures' ``nDCG``,
ranx's ``hit_rate``, RecBole's keys) to the canonical metric string it means.
A metric's ``aliases`` are read from these rows; the grammar resolves every name
through them. No name means two metrics: ``ap`` is mean average precision
(``map``) everywhere, as in ir_measures; the average precision of scores is
``average_precision``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass

from ..conventions import relevant_above

__all__ = ["OBJECTIVES", "SPELLINGS", "Spelling", "catboost_metric", "objective", "spellings_of"]


@dataclass(frozen=True)
class Spelling:
    """One row of :data:`SPELLINGS`: a peer's name for a receval metric.

    Attributes
    ----------
    spelling : str
        A literal name, matched case-insensitively (``"recip_rank"``), or, when
        ``pattern`` is true, a regular expression matched in full against the
        name (``r"P_(?P<k>\\d+)"``), or against ``name@rest`` when it holds an
        ``@`` (ir_measures' ``IPrec@0.1`` names a recall level, not a cut-off).
    peer : str
        The library that spells it so (``"trec_eval"``, ``"ir_measures"``, ``"ranx"``,
        ``"recbole"``, ``"xgboost"``, ``"catboost"``) or ``"receval"``.
    metric : str
        The canonical receval metric string it means; ``{group}`` fields take
        the pattern's named groups.
    example : str
        A name it matches (the spelling itself for a literal).
    pattern : bool
        Whether ``spelling`` is a regular expression.
    with_rel : str
        The metric it means instead when the string sets ``rel`` (or
        ``rel_threshold``): ir_measures' ``NumRet(rel=1)`` is ``NumRelRet``, its
        ``RBP(rel=2)`` RBP with 0/1 gains at grade 2.
    with_relative : str
        The metric it means instead when the string sets ``relative=True``:
        ir_measures' ``SetP(relative=True)`` is ``SetRelP``.
    meant : str
        For a spelling whose meaning changed: the metric it meant before. Resolving
        it warns once per process (a ``FutureWarning`` naming both metrics).
    """

    spelling: str
    peer: str
    metric: str
    example: str = ""
    pattern: bool = False
    with_rel: str = ""
    with_relative: str = ""
    meant: str = ""

    @property
    def shown(self) -> str:
        """How listings show it: the literal, or the pattern's example."""
        return self.example if self.pattern else self.spelling


def _literal(spelling: str, peer: str, metric: str) -> Spelling:
    return Spelling(spelling, peer, metric, spelling)


def _pattern(spelling: str, peer: str, metric: str, example: str) -> Spelling:
    return Spelling(spelling, peer, metric, example, pattern=True)


_NUM = r"[0-9]+(?:\.[0-9]*)?|\.[0-9]+"


def _trec_eval_spellings() -> Iterator[Spelling]:
    """trec_eval's names of receval metrics, read from its table of measures: a measure
    with cut-offs or levels names its values ``P_10``, ``iprec_at_recall_0.10`` (a
    pattern each), and the name of a measure without levels stands for its metric where
    they differ (``recip_rank``, ``relative_P@5``); the judgment-group forms are left
    out."""
    from .trec_eval import MEASURES, measure_values

    for m in MEASURES:
        metric = measure_values(m, None)[0].metric  # of the default parameters
        if not metric or m.name.endswith("_avgjg"):  # runid, relstring, prefs_*
            continue
        if m.params in ("cuts", "levels"):
            levels = [x for x in map(float, m.default.split(",")) if x > 0]
            example = f"{m.name}_10" if m.params == "cuts" else f"{m.name}_{levels[0]:3.2f}"
            value = "[0-9]+" if m.params == "cuts" else _NUM
            yield _pattern(rf"{m.name}_(?P<v>{value})", "trec_eval", m.metric("{v}"), example)
        base = metric.split("(", 1)[0].split("@", 1)[0]
        if base != m.name and m.params != "levels":  # a level is required
            yield _literal(m.name, "trec_eval", base)


#: Every spelling of another library (or receval's own short name) that a metric
#: string may use, with the canonical metric it means. Matching is
#: case-insensitive, like receval's own names; a canonical name always means the
#: receval metric (trec_eval's ``rbp`` has p = 0.9 by default, receval's 0.8:
#: write ``rbp(p=0.9)``).
SPELLINGS: tuple[Spelling, ...] = (
    # receval's short names and function names
    _literal("auc", "receval", "roc_auc"),
    _literal("roc_auc_score", "receval", "roc_auc"),
    _literal("logloss", "receval", "log_loss"),
    _literal("cross_entropy", "receval", "log_loss"),
    _literal("bce", "receval", "log_loss"),
    _literal("ne", "receval", "normalized_entropy"),
    _literal("cali_free_ne", "receval", "calibration_free_normalized_entropy"),
    _literal("calibration_free_ne", "receval", "calibration_free_normalized_entropy"),
    _literal("ne_positive", "receval", "normalized_entropy_positive"),
    _literal("rauc", "receval", "regression_auc"),
    _literal("gauprc", "receval", "grouped_auprc"),
    _literal("grouped_rauc", "receval", "grouped_regression_auc"),
    _literal("regression_auc_score", "receval", "regression_auc"),
    _literal("average_precision_score", "receval", "average_precision"),
    _literal("pr_auc_score", "receval", "pr_auc"),
    _literal("bep", "receval", "break_even_point"),
    _literal("ece", "receval", "expected_calibration_error"),
    _literal("rmse", "receval", "root_mean_squared_error"),
    _literal("mae", "receval", "mean_absolute_error"),
    _literal("brier", "receval", "brier_score"),
    _literal("brier_score_loss", "receval", "brier_score"),
    _literal("r2_score", "receval", "r2"),
    _literal("r_squared", "receval", "r2"),
    _literal("explained_variance_score", "receval", "explained_variance"),
    _literal("pauc", "receval", "partial_auc"),
    _literal("partial_auc_score", "receval", "partial_auc"),
    _literal("group_auc", "receval", "gauc"),
    _literal("gauc_score", "receval", "gauc"),
    _literal("coverage", "receval", "catalog_coverage"),
    _literal("gini", "receval", "gini_index"),
    _literal("popularity_equal_opportunity", "receval", "pop_reo"),
    _literal("popularity_statistical_parity", "receval", "pop_rsp"),
    _literal("ipw", "receval", "ips"),
    _literal("ips_estimate", "receval", "ips"),
    _literal("inverse_propensity_score", "receval", "ips"),
    _literal("snipw", "receval", "snips"),
    _literal("snips_estimate", "receval", "snips"),
    _literal("self_normalized_ips", "receval", "snips"),
    _literal("doubly_robust", "receval", "dr"),
    _literal("dr_estimate", "receval", "dr"),
    _literal("p", "receval", "precision"),
    # HR@k of the recommender literature (NCF, RecBole): the share of users with a
    # hit; receval's pooled ratio of hits over relevant items was "hr" and
    # "hit_ratio" before and is now only "pooled_hit_ratio"
    Spelling("hr", "receval", "success", "hr", meant="pooled_hit_ratio"),
    Spelling("hit_ratio", "receval", "success", "hit_ratio", meant="pooled_hit_ratio"),
    _literal("ap", "receval", "map"),
    _literal("rr", "receval", "mrr"),
    _literal("rprec", "receval", "r_precision"),
    _literal("intra_list_similarity", "receval", "ils"),
    _literal("average_recommendation_popularity", "receval", "arp"),
    _literal("average_percentage_long_tail", "receval", "aplt"),
    _literal("average_coverage_long_tail", "receval", "aclt"),
    # RecBole's metric keys (averagepopularity@10, itemcoverage@10)
    _literal("itemcoverage", "receval", "item_coverage"),
    _literal("shannonentropy", "receval", "shannon_entropy"),
    _literal("averagepopularity", "recbole", "average_popularity"),
    _literal("tailpercentage", "recbole", "tail_percentage"),
    # trec_eval 10.0: its names (P_10, recip_rank), derived from its table of measures
    *_trec_eval_spellings(),
    # ir_measures 0.4 (parameters: rel= is rel_threshold, p=, beta=, recall=, gains=)
    _literal("P", "ir_measures", "precision"),
    _literal("R", "ir_measures", "recall"),
    _literal("nDCG", "ir_measures", "ndcg"),
    _literal("AP", "ir_measures", "map"),
    _literal("MAP", "ir_measures", "map"),
    _literal("RR", "ir_measures", "mrr"),
    _literal("MRR", "ir_measures", "mrr"),
    _literal("Success", "ir_measures", "success"),
    _literal("Rprec", "ir_measures", "r_precision"),
    _literal("r-precision", "ranx", "r_precision"),
    _literal("Bpref", "ir_measures", "bpref"),
    _literal("infAP", "ir_measures", "infap"),
    _literal("IPrec", "ir_measures", "iprec"),
    _pattern(rf"IPrec@(?P<recall>{_NUM})", "ir_measures", "iprec(recall={recall})", "IPrec@0.1"),
    Spelling("RBP", "ir_measures", "rbp", "RBP", with_rel="rbp(gain=binary)"),
    _literal("Judged", "ir_measures", "judged"),
    _literal("ERR", "ir_measures", "err"),
    _literal("nERR", "ir_measures", "nerr"),
    _literal("NumQ", "ir_measures", "num_q"),
    _literal("NumRel", "ir_measures", "num_rel"),
    Spelling("NumRet", "ir_measures", "num_ret", "NumRet", with_rel="num_rel_ret"),
    _literal("NumRelRet", "ir_measures", "num_rel_ret"),
    Spelling(
        "SetP", "ir_measures", "set_precision", "SetP", with_relative="set_relative_precision"
    ),
    _literal("SetRelP", "ir_measures", "set_relative_precision"),
    _literal("SetR", "ir_measures", "set_recall"),
    _literal("SetAP", "ir_measures", "set_ap"),
    _literal("SetF", "ir_measures", "set_f"),
    # ranx 0.3 (rbp.95 and rbp@95: persistence 0.95)
    _literal("hit_rate", "ranx", "success"),
    _literal("ndcg_burges", "ranx", "ndcg(gain=exponential)"),
    _pattern(r"rbp[.@](?P<p>[0-9]+)", "ranx", "rbp(p=0.{p})", "rbp.95"),
    # XGBoost 3.2: pre@n, and the "-" names (ndcg@n-, map@n-), under which a group
    # without a relevant document scores 0 instead of 1
    _literal("pre", "xgboost", "precision"),
    _pattern(r"ndcg@(?P<k>[0-9]+)-", "xgboost", "ndcg(empty_users=zero)@{k}", "ndcg@10-"),
    _pattern(r"map@(?P<k>[0-9]+)-", "xgboost", "map(empty_users=zero)@{k}", "map@5-"),
    _literal("ndcg-", "xgboost", "ndcg(empty_users=zero)"),
    _literal("map-", "xgboost", "map(empty_users=zero)"),
    # aucpr over query groups: Davis and Goadrich's curve, groups of one class left out
    _literal(
        "aucpr",
        "xgboost",
        "grouped_auprc(interpolation=davis_goadrich,skip_groups=one_class)",
    ),
    # CatBoost 1.2's names without parameters (with them: catboost_metric)
    _literal("PrecisionAt", "catboost", "precision"),
    _literal("RecallAt", "catboost", "recall"),
    _literal("AverageGain", "catboost", "average_gain"),
    # LightGBM 4.7's metric names (ndcg, map, ndcg@k and map@k as it prints the
    # eval_at positions are receval's own); its lambdarank, xendcg, ... are objectives
    _literal("mean_average_precision", "lightgbm", "map"),
)

#: Peers' training objectives that users pass as metrics: name -> (peer, the metric
#: the peer evaluates a model of that objective with). A metric string naming one is
#: refused with that metric named (LightGBM reads its objectives' names as metric
#: aliases of ndcg; XGBoost's ``family:name``, its default ``eval_metric`` of each).
OBJECTIVES: dict[str, tuple[str, str]] = {
    "lambdarank": ("LightGBM", "ndcg"),
    "rank_xendcg": ("LightGBM", "ndcg"),
    "xendcg": ("LightGBM", "ndcg"),
    "xe_ndcg": ("LightGBM", "ndcg"),
    "xe_ndcg_mart": ("LightGBM", "ndcg"),
    "xendcg_mart": ("LightGBM", "ndcg"),
    "rank:ndcg": ("XGBoost", "ndcg"),
    "rank:pairwise": ("XGBoost", "ndcg"),
    "rank:map": ("XGBoost", "map"),
    "binary:logistic": ("XGBoost", "log_loss"),
    "binary:logitraw": ("XGBoost", "log_loss"),
    "reg:squarederror": ("XGBoost", "root_mean_squared_error"),
    "reg:linear": ("XGBoost", "root_mean_squared_error"),
    "reg:logistic": ("XGBoost", "root_mean_squared_error"),
    "reg:absoluteerror": ("XGBoost", "mean_absolute_error"),
}
# XGBoost's other objectives (reg:gamma, multi:softmax, survival:cox, ...), whose
# default eval_metric receval does not compute
_XGBOOST_OBJECTIVE = re.compile(r"(binary|count|multi|rank|reg|survival):[a-z_]+")


def objective(name: str) -> tuple[str, str] | None:
    """``(peer, metric)`` of a peer's training objective (see :data:`OBJECTIVES`;
    ``metric`` is "" for an XGBoost objective whose metric receval does not compute), or
    None for a name that is not one.

    Examples
    --------
    >>> from receval.registry.peers import objective
    >>> objective("rank:ndcg"), objective("reg:gamma"), objective("ndcg@10")
    (('XGBoost', 'ndcg'), ('XGBoost', ''), None)
    """
    name = name.strip().lower()
    if name in OBJECTIVES:
        return OBJECTIVES[name]
    return ("XGBoost", "") if _XGBOOST_OBJECTIVE.fullmatch(name) else None


#: CatBoost's ranking metrics that receval computes: name -> (receval metric, the
#: parameters each takes besides top, the parameters of the receval metric that its
#: name sets); NDCG and DCG take no border (CatBoost refuses one: every target is a gain)
_CATBOOST: dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {
    "ndcg": ("ndcg", ("type", "denominator"), ()),
    "dcg": ("dcg", ("type", "denominator"), ()),
    "precisionat": ("precision", ("border",), ()),
    "recallat": ("recall", ("border",), ()),
    "map": ("map", ("border",), ()),
    "mrr": ("mrr", ("border",), ()),
    # targets read as probabilities (a grade above 1 as it is, as CatBoost does)
    "pfound": ("pfound", ("decay",), ()),
    "err": ("err", (), ("probability=true",)),
    "averagegain": ("average_gain", (), ()),
}
_CATBOOST_VALUES = {
    ("type", "base"): ("gain", "linear"),
    ("type", "exp"): ("gain", "exponential"),
    ("denominator", "logposition"): ("discount", "offset"),
    ("denominator", "position"): ("discount", "rank"),
}
_CATBOOST_FORM = re.compile(r"^\s*(?P<name>[A-Za-z]+)\s*:(?P<params>[^()@]*)$")


def catboost_metric(text: str) -> str | None:
    """The receval metric string of CatBoost's ``Name:param=value;...`` form, or None
    when ``text`` is not in that form.

    ``top=k`` is the cut-off (-1: the whole list), ``type`` (``Base``, ``Exp``) the
    gain, ``denominator`` (``LogPosition``, ``Position``) the discount,
    ``border=b`` (a document is relevant when its target exceeds b; 0.5 by default)
    the relevance threshold ``rel_threshold``, the least float64 above b (a grade
    above b is one at or above it: for integer grades, ``floor(b) + 1``; for targets
    in [0, 1] the border itself, exactly), and ``decay`` PFound's
    decay. ``ERR`` is ``err(probability=true)`` (the target is the stopping
    probability), ``AverageGain:top=k`` ``average_gain@k``. ``hints`` and
    ``use_weights`` do not change a value and are ignored.

    Examples
    --------
    >>> from receval.registry.peers import catboost_metric
    >>> catboost_metric("NDCG:top=10;type=Exp")
    'ndcg(gain=exponential)@10'
    >>> catboost_metric("PrecisionAt:top=5;border=0.25")
    'precision(rel_threshold=0.25000000000000006)@5'
    >>> catboost_metric("PFound:top=5;decay=0.5")
    'pfound(decay=0.5)@5'
    >>> catboost_metric("ERR:top=10")
    'err(probability=true)@10'
    >>> catboost_metric("QueryAUC:type=Ranking")
    'grouped_xauc(weighting=uniform,empty_groups=zero)'
    >>> catboost_metric("QueryAUC")
    'grouped_xauc(targets=probabilities,weighting=uniform,empty_groups=zero)'
    >>> catboost_metric("ndcg@10") is None
    True
    """
    if text.strip().lower() == "queryauc":  # its default type, Classic
        return _catboost_query_auc(text, "")
    found = _CATBOOST_FORM.match(text)
    if found is None:
        return None
    from ..exceptions import InvalidParameterError

    name = found["name"].lower()
    if name == "queryauc":
        return _catboost_query_auc(text, found["params"])
    if name not in _CATBOOST:
        raise InvalidParameterError(
            f"Unknown CatBoost metric {found['name']!r} in {text!r}; receval computes "
            f"CatBoost's {', '.join(sorted([*_CATBOOST, 'queryauc']))} (case-insensitive)."
        )
    metric, takes, conventions = _CATBOOST[name][0], _CATBOOST[name][1], [*_CATBOOST[name][2]]
    top = ""
    seen: dict[str, str] = {}
    for part in filter(None, (p.strip() for p in found["params"].split(";"))):
        key, _, value = (s.strip() for s in part.partition("="))
        key, low = key.lower(), value.lower()
        if key in seen:
            raise InvalidParameterError(
                f"CatBoost metric {text!r}: the parameter {key!r} is given twice "
                f"({seen[key]!r} and {part!r}); keep one of them."
            )
        seen[key] = part
        if key in ("hints", "use_weights"):
            continue
        number = re.fullmatch(r"[0-9]*\.?[0-9]+", value)
        if key == "top" and re.fullmatch(r"-?[0-9]+", value) and int(value) != 0:
            top = "" if int(value) < 0 else f"@{int(value)}"
        elif key == "border" and key in takes and number:
            conventions.append(f"rel_threshold={relevant_above(float(value))!r}")
        elif key == "decay" and key in takes and number:
            conventions.append(f"decay={value}")
        elif key in takes and (key, low) in _CATBOOST_VALUES:
            conventions.append("=".join(_CATBOOST_VALUES[key, low]))
        else:
            options = ["top", *takes]
            raise InvalidParameterError(
                f"CatBoost metric {text!r}: cannot read {part!r}; expected one of "
                f"{options} (type: Base or Exp; denominator: LogPosition or Position; "
                f"top: an integer > 0, or -1 for the whole list; border: a number >= 0; decay: "
                f"a number in (0, 1])."
            )
    if name == "averagegain" and not top:
        raise InvalidParameterError(
            f"CatBoost metric {text!r}: AverageGain needs top, an integer > 0 (CatBoost's "
            f"own rule); write e.g. 'AverageGain:top=10'."
        )
    inner = f"({','.join(conventions)})" if conventions else ""
    return f"{metric}{inner}{top}"


def _catboost_query_auc(text: str, params: str) -> str:
    """QueryAUC: each group's AUC of its pairs (of different targets, ``type=Ranking``;
    of the targets read as probabilities, ``type=Classic``, CatBoost's default), a
    group without one counting 0, averaged over the groups."""
    from ..exceptions import InvalidParameterError

    parts = [p.strip().lower().replace(" ", "") for p in params.split(";") if p.strip()]
    kept = [p for p in parts if not p.startswith(("hints=", "use_weights="))]
    if kept not in ([], ["type=classic"], ["type=ranking"]):
        raise InvalidParameterError(
            f"CatBoost metric {text!r}: cannot read {';'.join(kept)!r}; QueryAUC takes "
            f"type=Classic (its default: targets read as probabilities in [0, 1]) or "
            f"type=Ranking, e.g. 'QueryAUC:type=Ranking'."
        )
    targets = "" if kept == ["type=ranking"] else "targets=probabilities,"
    return f"grouped_xauc({targets}weighting=uniform,empty_groups=zero)"


def spellings_of(name: str) -> list[Spelling]:
    """The rows of :data:`SPELLINGS` that mean the metric ``name``.

    Parameters
    ----------
    name : str
        A canonical name, a key of :data:`~receval.registry.ENTRIES`.

    Returns
    -------
    rows : list of Spelling
        In the table's order.

    Examples
    --------
    >>> from receval.registry.peers import spellings_of
    >>> [(row.shown, row.peer) for row in spellings_of("mrr")]
    [('rr', 'receval'), ('recip_rank', 'trec_eval'), ('RR', 'ir_measures'), ('MRR', 'ir_measures')]
    """
    return list(_by_metric().get(name, ()))


@functools.cache
def _by_metric() -> dict[str, tuple[Spelling, ...]]:
    """The rows of :data:`SPELLINGS` by the name of the metric they mean (one pass: the
    registry asks for every metric's rows when it is built)."""
    rows: dict[str, list[Spelling]] = {}
    for row in SPELLINGS:
        rows.setdefault(row.metric.split("(", 1)[0].split("@", 1)[0], []).append(row)
    return {name: tuple(found) for name, found in rows.items()}

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

from collections.abc import Iterator
from dataclasses import dataclass

__all__ = ["SPELLINGS", "Spelling", "spellings_of"]


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
        ``"trec_eval"``, ``"ir_measures"``, ``"ranx"`` or ``"receval"``.
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
)


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
    return [s for s in SPELLINGS if s.metric.split("(", 1)[0].split("@", 1)[0] == name]

"""The rows of the ranking metrics: the metric strings of :func:`receval.evaluate`.

Each row is a :class:`~receval.registry.schema.MetricEntry` with the ranking
kernel's facts as its fields: the kernel's code (``kind``, read from
:mod:`receval.registry.kinds`), whether values lie
in [0, 1], the direction, how values combine over users, the conventions it
reads, its parameters and the source it follows. Peers' spellings of these
names are rows of :mod:`receval.registry.peers`.
"""

from __future__ import annotations

import math
from typing import Any

from .kinds import kind_of
from .schema import TREC_LEVELS, MetricEntry, Param

__all__ = ["RANKING_ROWS"]

#: the inputs of a kernel metric, by what it needs besides the run
_INPUTS = {
    "qrels": ("qrels", "run"),
    "similarity": ("run", "features"),
    "popularity": ("run", "popularity"),
    "history": ("run", "train"),
    "categories": ("run", "train", "item_categories"),
}


#: the conventions every metric of the qrels reads: the relevance threshold (and so which
#: users have no relevant item), the order of tied scores, users absent from the run or
#: without a relevant item, users whose value is 0, the depth and judged-only cuts of the
#: list, whether an item scored <= 0 may be a hit, and the estimator (a metric without a
#: propensity-weighted form refuses any but "naive")
_COMMON = (
    "estimator",
    "rel_threshold",
    "ties",
    "missing_users",
    "empty_users",
    "zero_users",
    "depth",
    "judged_only",
    "hit_scores",
)


def _kernel(
    name: str,
    description: str,
    *,
    accepts_k: bool = True,
    bounded: bool = True,
    higher_is_better: bool = True,
    mean: str = "users",
    conventions: tuple[str, ...] | None = None,
    choices: tuple[tuple[str, tuple[str, ...]], ...] = (),
    needs: str = "qrels",
    params: tuple[Param, ...] = (),
    source: str = "receval",
) -> MetricEntry:
    """The row of a metric of the ranking kernel (its code: :func:`~.kinds.kind_of`);
    ``needs``: what it needs besides the run
    (``"qrels"``: a ranking metric, else a list one); ``conventions``: those it reads
    (default: the common ones, or for a list one the order of tied scores)."""
    return MetricEntry(
        name,
        "ranking" if needs == "qrels" else "list",
        description,
        higher_is_better=higher_is_better,
        inputs=_INPUTS[needs],
        partitionings=("groups",),
        function_path="receval.ranking.evaluation:evaluate",
        definition_path="receval.ranking.definition",
        accepts_k=accepts_k,
        source=source,
        params=params,
        conventions=tuple(sorted(conventions or (_COMMON if needs == "qrels" else ("ties",)))),
        kind=kind_of(name),
        bounded=bounded,
        mean=mean,
        choices=choices + ((("ties", LIST_TIES),) if needs != "qrels" else ()),
        needs=needs,
    )


def _trec(name: str, description: str, **options: Any) -> MetricEntry:
    """The row of a measure of trec_eval (of the whole list unless ``accepts_k``)."""
    return _kernel(name, description, source=_TREC, **{"accepts_k": False, **options})


def _reads(*extra: str, drop: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The common conventions less ``drop``, then ``extra``."""
    return tuple(c for c in _COMMON if c not in drop) + extra


#: the sums of gains: an item scored <= 0 still earns its gain
_GAIN_SUMS = ("hit_scores",)
#: the counts summed over users: no user is left out for having no relevant item
_COUNTS = ("empty_users",)
#: gains of RBP and of expected exposure: the grades, or 0/1 at the threshold
_LINEAR_OR_BINARY = (("gain", ("linear", "binary")),)
#: a ratio of gains or a share of the user's largest grade: gains from 0 up, none
#: negative (gain_grades="all", every grade its own gain, is for the sums: cg, dcg, idcg)
_NONNEGATIVE_GAINS = (("gain_grades", ("relevant", "positive")),)
#: the list metrics take the top k in the run's own order, or average over tie orders
LIST_TIES = ("input", "average")
_TREC = "trec_eval 10.0"

_P = Param("p", "float", "persistence", 0.8, 0.0, 1.0, True, True)
_RECALL = Param("recall", "float", "recall level", None, 0.0, 1.0, required=True)
_LEVELS = Param("levels", "levels", "recall levels", TREC_LEVELS, 0.0, 1.0)
_MULT = Param(
    "mult", "float", "multiple of R, the relevant items", None, 0.0, math.inf, True, required=True
)
_BETA = Param("beta", "float", "weight of recall against precision", 1.0, 0.0)
_PATIENCE = Param(
    "patience", "float", "RBP patience of the browsing model", 0.5, 0.0, 1.0, False, True
)
_HEAD_SHARE = Param(
    "head_share", "float", "share of the interactions the head items hold", 0.8, 0.0, 1.0, True
)
_TAIL_RATIO = Param(
    "tail_ratio",
    "float",
    "share of the items in the tail (above 1: the largest popularity in it)",
    0.1,
    0.0,
    math.inf,
    True,
)
_ELLIOT = "Elliot"
_ALPHA = Param(
    "alpha", "float", "smoothing towards the history's distribution", 0.01, 0.0, 1.0, False, True
)
_RECBOLE = "RecBole"
_CATBOOST = "CatBoost 1.2"
_DECAY = Param(
    "decay", "float", "chance of looking on past an item not found", 0.85, 0.0, 1.0, True
)
_ERR = (
    Param("max_grade", "float", "the grade that stops the user surely (gdeval's)", 4.0, 0.0,
          low_open=True),
    Param("probability", "bool", "the grade itself is the stopping probability", False),
)  # fmt: skip
_GAINS = Param("gains", "gains", "gain of each grade (other grades: their value)", ())
_UTILITY = (
    Param("a", "float", "worth of a relevant item retrieved", 1.0),
    Param("b", "float", "worth of a non-relevant item retrieved", -1.0),
    Param("c", "float", "worth of a relevant item not retrieved", 0.0),
    Param("d", "float", "worth of a non-relevant item not retrieved", 0.0),
    Param("n_docs", "float", "documents in the collection (trec_eval's -N; for d)", 0.0, 0.0),
)

#: The metrics of receval.evaluate's metric strings, run by the ranking kernel.
RANKING_ROWS: tuple[MetricEntry, ...] = tuple(
    [
        _trec(
            "precision",
            "hits in the top k / k",
            conventions=_reads("precision_normalizer"),
            accepts_k=True,
        ),
        _trec(
            "recall",
            "hits in the top k / relevant items of the user",
            conventions=_reads("recall_normalizer"),
            accepts_k=True,
        ),
        _kernel("f1", "harmonic mean of precision@k and recall@k"),
        _kernel(
            "pooled_hit_ratio",
            "sum of hits over users / sum of relevant items over users (one pooled ratio)",
            mean="pooled",
            conventions=_reads(drop=("zero_users",)),
        ),
        _trec("success", "1 if the top k holds a relevant item, else 0", accepts_k=True),
        _trec(
            "map",
            "average precision in the top k, averaged over users",
            conventions=_reads("ap_normalizer"),
            accepts_k=True,
        ),
        _kernel(
            "cg",
            "sum of gains in the top k",
            bounded=False,
            conventions=_reads("gain", "gain_grades", drop=_GAIN_SUMS),
        ),
        _kernel(
            "dcg",
            "sum of gain / log2(rank + 1) in the top k",
            bounded=False,
            params=(_GAINS,),
            conventions=_reads("discount", "gain", "gain_grades", drop=_GAIN_SUMS),
        ),
        _kernel(
            "idcg",
            "DCG of the ideal ranking",
            bounded=False,
            params=(_GAINS,),
            conventions=_reads("discount", "gain", "gain_grades", "ideal", drop=_GAIN_SUMS),
        ),
        _trec(
            "ndcg",
            "DCG / IDCG (0 when IDCG is 0)",
            params=(_GAINS,),
            conventions=_reads("discount", "gain", "gain_grades", "ideal", drop=_GAIN_SUMS),
            choices=_NONNEGATIVE_GAINS,
            accepts_k=True,
        ),
        _trec("mrr", "1 / rank of the first relevant item in the top k", accepts_k=True),
        _trec(
            "r_precision",
            "precision at R, the number of relevant items of the user; with @k, the "
            "relevant items in the top min(R, k) over R",
            accepts_k=True,
        ),
        _kernel(
            "ils",
            "intra-list similarity: mean similarity of the pairs of items in the top k "
            "(needs features or similarity)",
            bounded=False,  # cosine is in [-1, 1]; a caller's similarity may be anything
            higher_is_better=False,
            needs="similarity",
        ),
        _kernel(
            "diversity",
            "1 - ils: mean dissimilarity of the pairs of items in the top k "
            "(needs features or similarity)",
            bounded=False,
            needs="similarity",
        ),
        # ------------------------------------------------ popularity bias
        _kernel(
            "arp",
            "average recommendation popularity: mean popularity of the items in the top k "
            "(needs popularity or train)",
            bounded=False,
            higher_is_better=False,
            needs="popularity",
            source=_ELLIOT,
        ),
        _kernel(
            "aplt",
            "average percentage of long tail: share of the top k in the long tail, the items "
            "of the popularity outside the head (the most popular items holding head_share of "
            "the interactions; needs popularity or train)",
            needs="popularity",
            params=(_HEAD_SHARE,),
            source=_ELLIOT,
        ),
        _kernel(
            "aclt",
            "average coverage of long tail: number of items of the top k in the long tail "
            "(needs popularity or train)",
            bounded=False,
            needs="popularity",
            params=(_HEAD_SHARE,),
            source=_ELLIOT,
        ),
        _kernel(
            "average_popularity",
            "summed popularity of the items in the top k / k (needs popularity or train)",
            bounded=False,
            higher_is_better=False,
            needs="popularity",
            source=_RECBOLE,
        ),
        _kernel(
            "tail_percentage",
            "long-tail items in the top k / k, the tail being the tail_ratio least popular "
            "items (needs popularity or train)",
            needs="popularity",
            params=(_TAIL_RATIO,),
            source=_RECBOLE,
        ),
        # ------------------------------------------------ the users' histories
        _kernel(
            "serendipity",
            "1 - mean cosine of each top-k item with the user's items in train (co-occurrence "
            "in train, or features), averaged over the top k (needs train)",
            bounded=False,  # feature cosines may be negative
            needs="history",
            source="Microsoft Recommenders",
        ),
        _kernel(
            "miscalibration",
            "Steck's KL divergence of the top k's category distribution, smoothed by alpha, "
            "from the user's items in train (needs train and item_categories)",
            bounded=False,
            higher_is_better=False,
            needs="categories",
            params=(_ALPHA,),
            source="Steck 2018",
        ),
        # ------------------------------------------------ expected exposure
        *(
            _kernel(
                name,
                f"expected exposure {what} (Diaz et al. 2020) of the whole ranking, or of the "
                f"top k, under RBP patience; tied scores a stochastic ranking (every order "
                f"equally likely; ties='input' reads the run's order); users without a relevant "
                f"item as empty_users says (left out by default)",
                bounded=False,
                higher_is_better=name == "ee_relevance",
                params=(_PATIENCE,),
                source="Diaz et al. 2020 (expeval)",
                # the whole list, unless @k
                conventions=(
                    "estimator",
                    "rel_threshold",
                    "ties",
                    "missing_users",
                    "empty_users",
                    "zero_users",
                    *(("gain",) if name != "ee_disparity" else ()),
                ),
                choices=_LINEAR_OR_BINARY if name != "ee_disparity" else (),
            )
            for name, what in (
                ("ee_disparity", "disparity EE-D, ||e||^2"),
                ("ee_relevance", "relevance EE-R, e . e*"),
                ("ee_loss", "loss EE-L, ||e - e*||^2"),
            )
        ),
        # ------------------------------------------------ trec_eval's measures
        _trec(
            "num_ret",
            "items retrieved (in the top k), summed over users",
            bounded=False,
            mean="sum",
            conventions=("estimator", "missing_users", "depth", "judged_only"),
            accepts_k=True,
        ),
        _trec(
            "num_rel",
            "relevant items of the users, summed over users",
            bounded=False,
            mean="sum",
            conventions=("estimator", "rel_threshold", "missing_users"),
        ),
        _trec(
            "num_rel_ret",
            "relevant items retrieved (in the top k), summed over users",
            bounded=False,
            mean="sum",
            conventions=_reads(drop=(*_COUNTS, "zero_users")),
            accepts_k=True,
        ),
        _trec(
            "num_nonrel_judged_ret",
            "judged non-relevant items retrieved, summed over users",
            bounded=False,
            higher_is_better=False,
            mean="sum",
            conventions=_reads(drop=(*_COUNTS, "zero_users", "judged_only")),
        ),
        _trec(
            "num_q",
            "users evaluated",
            bounded=False,
            mean="sum",
            conventions=("estimator", "missing_users"),
        ),
        _trec(
            "gm_map",
            "average precision, geometric mean over users (values floored at 1e-5)",
            mean="geometric",
            conventions=_reads("ap_normalizer", drop=("zero_users",)),
        ),
        _trec(
            "bpref",
            "binary preference: share of the top R judged non-relevant items ranked "
            "below each relevant item retrieved, averaged over the R relevant items",
            conventions=_reads("grades"),
        ),
        _trec(
            "gm_bpref",
            "bpref, geometric mean over users (values floored at 1e-5)",
            mean="geometric",
            conventions=_reads("grades", drop=("zero_users",)),
        ),
        _trec(
            "infap",
            "inferred AP (Yilmaz and Aslam): AP estimated from a sample of judgments",
        ),
        _trec(
            "iprec",
            "interpolated precision at a recall level: the highest precision at any "
            "rank whose recall is at least that level",
            params=(_RECALL,),
            conventions=_reads("recall_rounding"),
        ),
        _trec(
            "iprec_avg",
            "interpolated precision averaged over recall levels (trec_eval's 11pt_avg)",
            params=(_LEVELS,),
            conventions=_reads("recall_rounding"),
        ),
        _trec(
            "rprec_mult",
            "precision at mult * R, R the relevant items of the user",
            params=(_MULT,),
        ),
        _trec(
            "utility",
            "a * relevant retrieved + b * non-relevant retrieved + c * relevant not "
            "retrieved + d * non-relevant not retrieved",
            bounded=False,
            params=_UTILITY,
        ),
        _trec(
            "bin_g",
            "binary G: mean over relevant items of 1 / log2(2 + non-relevant items ranked above)",
        ),
        _trec(
            "g",
            "normalized gain G: gain / log2(2 + ideal gain - gain so far) summed over "
            "the list, over the ideal total gain",
            params=(_GAINS,),
        ),
        _trec(
            "ndcg_rel",
            "NDCG averaged over the ranks of the relevant items",
            params=(_GAINS,),
        ),
        _trec(
            "r_ndcg",
            "NDCG averaged at the R levels (items at or above each gain level)",
            params=(_GAINS,),
        ),
        _trec(
            "relative_precision",
            "precision@k over the highest precision@k possible, min(R, k) / k",
            accepts_k=True,
        ),
        _trec(
            "set_precision",
            "relevant items retrieved / items retrieved (the whole list)",
        ),
        _trec(
            "set_relative_precision",
            "set precision over the highest set precision possible for the list's length",
        ),
        _trec(
            "set_recall",
            "relevant items retrieved / relevant items (the whole list)",
            conventions=_reads(drop=("judged_only",)),
        ),
        _trec("set_ap", "set precision * set recall (trec_eval's set_map)"),
        _trec(
            "set_f",
            "(beta + 1) * P * R / (R + beta * P) of set precision P and set recall R",
            params=(_BETA,),
        ),
        _trec(
            "rbp",
            "rank-biased precision: (1 - p) * sum of gain * p^(rank - 1), the gains of the grades "
            "from the gain threshold on, scaled to [0, 1] (gain=binary: 1 for a relevant item, "
            "ir_measures' RBP(rel=...); grades='raw': the grades themselves, as ranx)",
            params=(_P,),
            conventions=_reads("gain", "gain_grades", "grades"),
            choices=_LINEAR_OR_BINARY + _NONNEGATIVE_GAINS,
        ),
        _trec(
            "rbp_resid",
            "RBP's residual: how much RBP could grow if every unjudged item retrieved "
            "had the highest gain",
            params=(_P,),
        ),
        _trec(
            "unjudged",
            "share of the top k absent from the qrels (trec_eval's unj)",
            higher_is_better=False,
            accepts_k=True,
        ),
        _kernel(
            "judged",
            "share of the top min(k, list length) present in the qrels, a negative grade "
            "counting as judged (ir_measures' Judged@k; ties by item id ascending)",
            source="ir_measures",
        ),
        _kernel(
            "err",
            "expected reciprocal rank (Chapelle et al. 2009): sum over ranks i of 1 / i times "
            "the probability that the user stops at i, in the cascade model (ir_measures' "
            "ERR@k, from gdeval: an item stops the user with probability "
            "(2^grade - 1) / 2^max_grade; probability=true: the grade itself, CatBoost's ERR)",
            source="ir_measures",
            params=_ERR,
        ),
        _kernel("nerr", "ERR over the ERR of the ideal ranking", source="ir_measures"),
        _kernel(
            "pfound",
            "the cascade of ERR without 1 / rank: sum over ranks of the grade (a probability "
            "in [0, 1]) times the chance of looking there, which each item found or not "
            "lowers by (1 - grade) * decay (CatBoost's PFound)",
            bounded=False,  # grades above 1 are not probabilities; CatBoost takes them as they are
            params=(_DECAY,),
            source=_CATBOOST,
        ),
        _kernel(
            "average_gain",
            "mean grade of the top min(k, n) items (CatBoost's AverageGain)",
            bounded=False,
            conventions=_reads(drop=_GAIN_SUMS),
            source=_CATBOOST,
        ),
        _kernel(
            "hits",
            "relevant items in the top k, averaged over users",
            bounded=False,
            source="ranx",
            conventions=_reads(drop=_COUNTS),
        ),
    ]
)

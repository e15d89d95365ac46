"""The conventions that peers disagree on, and compatibility profiles.

Every top-K metric depends on a handful of choices that libraries make
differently. receval makes each one a parameter with a documented default: a
keyword of :func:`receval.evaluate`, whose parameters say what each value does
(docs/conventions.md, "Conventions", also which peer does what). A *profile*
sets all of them at once so that a user reproduces a peer's numbers exactly.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from .exceptions import InvalidParameterError

__all__ = [
    "PROFILES",
    "PROFILE_GRADES",
    "PROFILE_METRICS",
    "PROFILE_REFUSED",
    "PROFILE_UNDEFINED",
    "Conventions",
    "PeerGrades",
    "PeerRefusal",
    "relevant_above",
    "resolve_conventions",
    "undefined_value",
]

CHOICES: dict[str, tuple[str, ...]] = {
    "ap_normalizer": ("relevant", "min_k", "hits", "min_retrieved"),
    "precision_normalizer": ("k", "retrieved"),
    "recall_normalizer": ("relevant", "min_k"),
    "recall_rounding": ("nearest", "trec9"),
    "discount": ("offset", "clipped", "rank"),
    "gain": ("linear", "exponential", "binary"),
    "ties": ("trec", "average", "input", "id_ascending", "id_descending", "worst"),
    "missing_users": ("zero", "skip", "error", "complete"),
    "empty_users": ("skip", "zero", "one", "error"),
    "ideal": ("judged", "candidates"),
    "gain_grades": ("relevant", "positive", "all"),
    "zero_users": ("keep", "skip"),
    "hit_scores": ("any", "positive"),
    "grades": ("trec", "raw"),
    "estimator": ("naive", "ips", "snips"),
}


def relevant_above(border: float) -> float:
    """The ``rel_threshold`` of "a grade above ``border`` is relevant" (CatBoost's
    ``border``): the least float64 above it, so that ``grade >= rel_threshold`` is
    ``grade > border`` for every grade, an integer or a probability.

    Examples
    --------
    >>> from receval.conventions import relevant_above
    >>> relevant_above(0.5) > 0.5 and relevant_above(0.5) - 0.5 < 1e-15
    True
    """
    return math.nextafter(float(border), math.inf)


@dataclass(frozen=True)
class Conventions:
    """One value for every convention, each a keyword of :func:`receval.evaluate`
    (which describes them); the fields' defaults are receval's."""

    ap_normalizer: str = "relevant"
    gain: str = "linear"
    rel_threshold: float = 1
    ties: str = "trec"
    missing_users: str = "zero"
    empty_users: str = "skip"
    ideal: str = "judged"
    gain_grades: str = "relevant"
    zero_users: str = "keep"
    hit_scores: str = "any"
    depth: int = 0
    judged_only: bool = False
    grades: str = "trec"
    estimator: str = "naive"
    precision_normalizer: str = "k"
    recall_normalizer: str = "relevant"
    discount: str = "offset"
    recall_rounding: str = "nearest"

    def validated(self, func: str = "evaluate") -> Conventions:
        """``self`` once its values are checked (``func`` names the caller in errors).

        Conventions of the same values, each of the same type, pass at once once one
        did (``evaluate`` checks them for every metric of every call)."""
        from ._parameters import check_number, check_option

        try:
            key: tuple[tuple[type, Any], ...] | None = tuple(
                (type(v), v) for v in vars(self).values()
            )
            if key in _VALIDATED:
                return self
        except TypeError:  # an unhashable value: refused below
            key = None
        for name, options in CHOICES.items():
            check_option(getattr(self, name), name, func, list(options))
        # >= 0: below, trec_eval's measures would count unjudged items as relevant
        # (their grade is below any judged one's) where the others do not
        check_number(self.rel_threshold, "rel_threshold", func, low=0.0)
        # the kernels take the depth as int64
        check_number(self.depth, "depth", func, integer=True, low=0, high=2**63 - 1)
        if self.ties == "average" and self.depth:
            raise InvalidParameterError(
                f"{func}: depth keeps the first items of each list in the order of ties, and "
                f"ties='average' gives none (it averages over the orders of tied items). Got "
                f"depth={self.depth!r}; pass a cut-off (e.g. 'mrr@{self.depth}') with depth=0, "
                f"or another ties (e.g. ties='trec')."
            )
        if not isinstance(self.judged_only, bool):
            raise InvalidParameterError(
                f"The 'judged_only' parameter of {func} must be True or False. "
                f"Got {self.judged_only!r} instead."
            )
        if key is not None and len(_VALIDATED) < _MOST_KEPT:
            _VALIDATED.add(key)
        return self

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


FIELDS = tuple(f.name for f in fields(Conventions))

#: Why a user is left out of a metric's mean (``EvaluationReport.n_users_skipped_by``),
#: in the order that counts a user whom several rules leave out under the first: no
#: relevant item (``empty_users="skip"``), absent from the run
#: (``missing_users="skip"``), a value of 0 (``zero_users="skip"``), or no value of
#: the metric under any rule ("no_value": a metric of the lists alone for a user
#: absent from the run or whose list is too short, expected exposure for a user
#: without a relevant item, interpolated precision of an empty list).
SKIP_REASONS = ("empty_users", "missing_users", "zero_users", "no_value")

# the values of the conventions checked so far, each with its type (True == 1, yet
# True is no depth), and the conventions resolved so far: a few profiles and sets of
# keywords in most processes, at most _MOST_KEPT of each
_VALIDATED: set[tuple[tuple[type, Any], ...]] = set()
_RESOLVED: dict[tuple[Any, ...] | None, Conventions] = {}
_MOST_KEPT = 4096

#: What each peer library does, as receval conventions (receval's default where unset).
PROFILES: dict[str, Conventions] = {
    # trec_eval / pytrec_eval: P_k divides by k, map by R, ndcg linear on every
    # positive grade whatever -l says (-l moves only the binary measures' threshold),
    # ties by docno descending, queries absent from the run ignored (no -c flag),
    # queries without relevant documents still evaluated (their values are 0), a
    # recall level of iprec_at_recall and 11pt_avg as trunc(level * R + 0.9) relevant
    # documents (trec_eval 9; 10.0 rounds: recall_rounding="nearest")
    "trec_eval": Conventions(
        missing_users="skip", empty_users="zero", gain_grades="positive", recall_rounding="trec9"
    ),
    # scikit-learn ndcg_score / dcg_score: tied scores averaged, the ideal ranking
    # of the candidates themselves, every positive grade (0.5 too) its linear gain
    # (every grade in dcg_score, see PROFILE_METRICS), every row evaluated
    "sklearn": Conventions(
        ties="average", empty_users="zero", ideal="candidates", gain_grades="positive"
    ),
    # ranx: AP by R, linear ndcg (ndcg_burges is exponential), ties by input
    # order of the sorted run, queries without relevant documents score 0
    "ranx": Conventions(ties="input", empty_users="zero"),
    # RecBole: MAP@k divides by min(R, k), NDCG with 0/1 gains, users without
    # ground truth removed; its top k comes from torch.topk, whose order of tied
    # scores follows no rule (see docs/conventions.md)
    "recbole": Conventions(ap_normalizer="min_k", gain="binary", ties="input"),
    # Microsoft Recommenders: map_at_k divides by min(R, k); precision, recall,
    # map and r_precision average over the users of both frames (users absent
    # from the recommendations skipped), ndcg over every user (see PROFILE_METRICS)
    "recommenders": Conventions(ap_normalizer="min_k", ties="input", missing_users="skip"),
    # ir_measures 0.4: pytrec_eval computes most measures (trec_eval's rules), and
    # every qrels query a provider leaves out (absent from the run) counts 0
    "ir_measures": Conventions(empty_users="zero", gain_grades="positive", recall_rounding="trec9"),
    # torchmetrics retrieval metrics: AP divides by the relevant retrieved,
    # empty_target_action="neg" (queries without positives score 0); its sorts
    # (torch.topk, torch.sort of the query index) order tied scores by no rule
    "torchmetrics": Conventions(
        ap_normalizer="hits", ties="input", empty_users="zero", ideal="candidates"
    ),
    # LensKit 2026: lists measured as given (ties="input": its recommenders hand over
    # ordered lists), only the users with a list (test users without one are not
    # measured), users without test items skipped (nan, left out of the means);
    # NDCG with 0/1 gains by default and the discount log2(max(rank, 2)); Precision
    # over the list's length at most n, Recall over min(|test|, n),
    # AveragePrecision over min(|test|, the list's length at most n); Hit and
    # RecipRank are success and mrr
    "lenskit": Conventions(
        ap_normalizer="min_retrieved",
        gain="binary",
        ties="input",
        missing_users="skip",
        precision_normalizer="retrieved",
        recall_normalizer="min_k",
        discount="clipped",
    ),
    # XGBoost 3.2 (rank_metric.cc): a query group is a user, every document judged;
    # ndcg@n gains 2^label - 1 (ndcg_exp_gain; with ndcg_exp_gain=false the label itself,
    # a fraction too), discount 1 / log2(rank + 1), the ideal of
    # the group's labels; tied predictions in input order (a stable sort); a group
    # without a relevant document scores 1 (0 under the names ending in "-": ndcg@n-,
    # map@n-); map@n divides by min(relevant documents, n), pre@n by min(n, the group's
    # documents) (see PROFILE_METRICS)
    "xgboost": Conventions(
        gain="exponential",
        ties="input",
        empty_users="one",
        ap_normalizer="min_k",
        precision_normalizer="retrieved",
    ),
    # LightGBM 4.7 (rank_metric.hpp, map_metric.hpp, dcg_calculator.cpp): ndcg@k gains
    # label_gain[label] (by default 2^label - 1: write another label_gain as
    # ndcg(gains=...)), discount 1 / log2(rank + 1), tied scores in input order
    # (std::stable_sort), a query without a relevant document scores 1 (ndcg and map);
    # map@k divides by min(relevant documents, k)
    "lightgbm": Conventions(
        gain="exponential", ties="input", empty_users="one", ap_normalizer="min_k"
    ),
    # CatBoost 1.2 (dcg.cpp, precision_recall_at_k.cpp, doc_comparator.h): tied
    # predictions ordered by target ascending (CompareDocs: the least relevant first);
    # NDCG type=Base (linear gains), denominator=LogPosition; PrecisionAt divides by
    # min(top, the group's documents); MAP by min(relevant documents, top); a group
    # without a relevant document scores 0, but 1 in NDCG and RecallAt; a target above
    # border (0.5) is relevant: grades >= 1, or probabilities above 0.5
    "catboost": Conventions(
        ties="worst",
        empty_users="zero",
        ap_normalizer="min_k",
        precision_normalizer="retrieved",
        rel_threshold=relevant_above(0.5),
    ),
    # TorchRec's NDCGMetric (ndcg.py): a session (its session_ids) is a user whose rows
    # are all judged and ranked, the ideal DCG that of the session's own labels; every
    # positive label is a gain (the label itself; exponential_gain=True: 2^label - 1),
    # discount 1 / log2(rank + 1), k the cut-off; a session whose ideal DCG is 0 scores 0
    # (its DCG over a floor of 1e-6), single-row sessions included; tied predictions in
    # the order of an unstable torch.sort of the batch (see docs/conventions.md)
    "torchrec": Conventions(
        ties="input", empty_users="zero", ideal="candidates", rel_threshold=relevant_above(0.0)
    ),
}


#: Conventions a profile sets for one metric only, where the peer computes that
#: metric another way than the others: by metric name, ``name(convention=value)``
#: for the strings that set that convention, each with ``@k`` for the metric with a
#: cut-off only or ``@all`` for the metric of the whole list only.
PROFILE_METRICS: dict[str, dict[str, dict[str, Any]]] = {
    "sklearn": {
        # dcg_score gains every grade as it is, a negative one too (ndcg_score refuses
        # a negative grade: PROFILE_REFUSED)
        "dcg": {"gain_grades": "all"},
    },
    "ranx": {
        # rbp.p sums the grades themselves (graded RBP), bpref judges a negative grade
        # non-relevant: its hit and unjudged lists read the qrels as they are
        "rbp": {"grades": "raw"},
        "bpref": {"grades": "raw"},
    },
    "recommenders": {
        # ndcg_at_k: an outer merge with every user of the ground truth (users absent
        # from the recommendations score 0) and score_type="binary" by default
        "ndcg": {"missing_users": "zero", "gain": "binary"},
        # r_precision_at_k: the mean leaves out users whose value is 0 (0.0 when
        # no user has a relevant item in the top k, nan when all of them are at 0)
        "r_precision": {"zero_users": "skip"},
    },
    "torchmetrics": {
        # an item scored <= 0 never counts as a hit (the preds > 0 filter)
        "precision": {"hit_scores": "positive"},
        "recall": {"hit_scores": "positive"},
        "map": {"hit_scores": "positive"},
        "mrr": {"hit_scores": "positive"},
        # RetrievalNormalizedDCG averages the gains of tied scores and gains every
        # positive target (0.5 too); a query without one (all targets 0) is empty
        # (empty_target_action), one whose targets are below 1 is not
        "ndcg": {"ties": "average", "rel_threshold": relevant_above(0.0)},
    },
    "ir_measures": {
        # RR@k is computed by its msmarco provider: ties by document id ascending,
        # scores compared as doubles (RR without a cut-off is pytrec_eval's)
        "mrr@k": {"ties": "id_ascending"},
        # Judged@k is its own provider's: the run sorted by score, then doc id ascending
        "judged": {"ties": "id_ascending"},
        # exponential nDCG of the whole list is its ranx provider's: ties in input order
        "ndcg(gain=exponential)@all": {"ties": "input"},
        # RBP(rel=...) is cwl_eval's: 0/1 gains at rel, ties in input order (a stable sort
        # by score)
        "rbp": {"gain": "binary", "ties": "input"},
    },
    "xgboost": {
        # pre@n has no case for a group without a relevant document: its 0 hits give 0
        "precision": {"empty_users": "zero"},
        # NDCG gains every positive label (a fraction too, under ndcg_exp_gain=false),
        # and a group scores 1 where its ideal DCG is 0 (no positive label)
        "ndcg": {"rel_threshold": relevant_above(0.0)},
    },
    "lightgbm": {
        # map@k counts a label above 0.5 as relevant (map_metric.hpp: label > 0.5f, the
        # label a float32): the float64 grades that round to a float32 above 0.5
        "map": {"rel_threshold": relevant_above(0.5 + 2.0**-25)},
    },
    "catboost": {
        # NDCG and DCG take no border: every positive target is a gain (a probability
        # too); NDCG of a group whose ideal DCG is 0, and RecallAt of a group without a
        # relevant document: 1
        "ndcg": {"empty_users": "one", "rel_threshold": relevant_above(0.0)},
        "dcg": {"rel_threshold": relevant_above(0.0)},
        "recall": {"empty_users": "one"},
    },
}


def resolve_conventions(
    profile: str | None = None,
    func: str = "evaluate",
    metric: str | None = None,
    cut_off: bool = False,
    string_params: tuple[tuple[str, object], ...] = (),
    **overrides: Any,
) -> Conventions:
    """Start from ``profile`` (or the defaults), apply the profile's conventions for
    ``metric`` (a metric name; ``cut_off``: it has an @k; ``string_params``: the
    conventions written in its string), then the explicit keyword overrides."""
    from ._parameters import check_option

    memo: tuple[Any, ...] | None = (
        profile, metric, cut_off, string_params,
        *sorted((k, type(v), v) for k, v in overrides.items()),
    )  # fmt: skip
    try:  # the same arguments, each of the same type: the same conventions
        hit = _RESOLVED.get(memo)
    except TypeError:  # an unhashable value: refused below
        hit = memo = None
    if hit is not None:
        return hit
    if profile is not None:
        check_option(profile, "profile", func, sorted(PROFILES))
        base = PROFILES[profile]
        per_metric = PROFILE_METRICS.get(profile, {})
        forms = (
            [] if metric is None else [metric, *(f"{metric}({k}={v})" for k, v in string_params)]
        )
        depth = "@k" if cut_off else "@all"
        for key in [*forms, *(f + depth for f in forms)]:
            if key in per_metric:
                base = replace(base, **per_metric[key])
    else:
        base = Conventions()
    given = {k: v for k, v in overrides.items() if v is not None}
    for name in given:
        check_option(name, "convention", func, list(FIELDS))
    resolved = replace(base, **given).validated(func)
    if memo is not None and len(_RESOLVED) < _MOST_KEPT:
        _RESOLVED[memo] = resolved
    return resolved


@dataclass(frozen=True)
class PeerGrades:
    """The grades a peer's NDCG takes under its profile's exponential gain, as labels
    of a table of gains: the integers from 0 to ``grades - 1`` (:data:`PROFILE_GRADES`).

    ``table``: the peer's table of gains, as the message names it; ``fix``: what to do, with
    ``{last}`` for the last grade taken; ``tabled``: whether a table of gains given as
    ``ndcg(gains=...)`` stands for the peer's own (its last grade is then the last).
    """

    peer: str
    grades: int
    table: str
    fix: str
    tabled: bool = False


#: The grades that the peer of a profile refuses in its NDCG, where receval would
#: compute a value: under the profile, ``ndcg`` of the exponential gain (or, where
#: ``tabled``, of a gains table) refuses a grade that is not an integer from 0 to the
#: last, as the peer does; another gain (``gain="linear"``) takes any grade.
PROFILE_GRADES: dict[str, PeerGrades] = {
    # LightGBM 4.7 (DCGCalculator::CheckLabel: "Label 31 is not less than the number of
    # label mappings (31)", "label should be int type", "Label should be non-negative"),
    # for its ndcg whatever the objective; the default label_gain is 2**i - 1 for i < 31
    "lightgbm": PeerGrades(
        "LightGBM", 31, "label_gain (by default 2**label - 1)",
        "give each grade a gain with ndcg(gains=...) (LightGBM's label_gain), map the "
        "grades to 0..{last}, or use another profile", tabled=True,
    ),
    # XGBoost 3.2 (ltr::CheckNDCGLabels, with ndcg_exp_gain=true, its default: "Relevance
    # degress must be lesser than or equal to 31 when the exponential NDCG gain function
    # is used", and a label must be 0 or a positive integer)
    "xgboost": PeerGrades(
        "XGBoost", 32, "exponential gain 2**label - 1 (ndcg_exp_gain=true)",
        "use ndcg(gain=linear) (XGBoost's ndcg_exp_gain=false), which takes any grade, map "
        "the grades to 0..{last}, or use another profile",
    ),
}  # fmt: skip


@dataclass(frozen=True)
class PeerRefusal:
    """Qrels grades that the peer of a profile refuses, or changes without a word, where
    receval would compute with them as they are: under the profile, the metrics named
    refuse them, saying what the peer does and how to get its values.

    ``grades``: "fractions" (grades that are not integers) or "negative" (grades below
    0); ``does``: what the peer does with them; ``fix``: what to do;
    ``metrics``: the names of the metrics that refuse them (empty: every ranked metric,
    the peer reading its qrels so).
    """

    grades: str
    does: str
    fix: str
    metrics: tuple[str, ...] = ()


_ROUND_FIX = "round the grades to integers, or leave profile= out (receval reads any grade)"

#: The grades that the peer of a profile refuses or changes, by profile
#: (:class:`PeerRefusal`).
PROFILE_REFUSED: dict[str, PeerRefusal] = {
    # pytrec_eval 0.5 (TypeError "Expected relevance to be integer."); trec_eval reads a
    # qrels grade with atol
    "trec_eval": PeerRefusal(
        "fractions",
        "pytrec_eval refuses them (TypeError: Expected relevance to be integer) and "
        "trec_eval reads a grade as an integer (1.5 as 1)",
        _ROUND_FIX,
    ),
    # ir_measures 0.4 hands its qrels to pytrec_eval
    "ir_measures": PeerRefusal(
        "fractions",
        "ir_measures refuses them (pytrec_eval's TypeError: Expected relevance to be integer)",
        _ROUND_FIX,
    ),
    # ranx 0.3 (Qrels): a grade is cast to an integer, 1.5 to 1, 0.5 to 0, -1.5 to -1
    "ranx": PeerRefusal(
        "fractions",
        "ranx truncates them to integers without a word (its Qrels reads 1.5 as 1, 0.5 "
        "as 0, -1.5 as -1), so its values are those of the truncated grades",
        "to reproduce ranx, pass the grades truncated (np.trunc), or leave profile= out",
    ),
    # scikit-learn 1.9 ndcg_score: ValueError "ndcg_score should not be used on negative
    # y_true values." (dcg_score gains them: gain_grades="all")
    "sklearn": PeerRefusal(
        "negative",
        "scikit-learn's ndcg_score refuses them (ValueError: ndcg_score should not be "
        "used on negative y_true values)",
        "use dcg, which gains them as dcg_score does, or map the grades to 0 or more",
        metrics=("ndcg",),
    ),
}


#: What a peer answers where a pointwise metric is undefined (``y_true`` of one
#: class), by profile and metric: a number (returned as the value, without a
#: warning) or ``"raise"`` (an ``InputValidationError``, where the peer raises).
#: A metric absent here answers receval's nan with an ``UndefinedMetricWarning``,
#: the default. The profiles of the ranking peers without a pointwise metric set
#: nothing.
PROFILE_UNDEFINED: dict[str, dict[str, float | str]] = {
    # BinaryAUROC and BinaryAveragePrecision (torchmetrics 1.9): 0.0 for one-class
    # targets (after a warning)
    "torchmetrics": {"roc_auc": 0.0, "average_precision": 0.0},
    # average_precision_score without a positive: 0.0 (after a warning); log_loss of one
    # class without labels=: a ValueError; roc_auc_score of one class: nan with an
    # UndefinedMetricWarning, as receval's default
    "sklearn": {"average_precision": 0.0, "log_loss": "raise"},
    # AUCMetric (torchrec/metrics/auc.py): 0.5, "the no-signal default", where either
    # class's weighted count is 0
    "torchrec": {"roc_auc": 0.5},
}


def undefined_value(
    profile: str | None, metric: str, func: str, if_undefined: float | None = None
) -> float | str | None:
    """What ``func`` answers where ``metric`` is undefined: ``if_undefined`` when
    given, else the profile's entry in :data:`PROFILE_UNDEFINED`, else None (nan
    with an ``UndefinedMetricWarning``)."""
    if if_undefined is not None:
        from ._parameters import check_number

        return float(check_number(if_undefined, "if_undefined", func))
    if profile is None:  # the usual call: nothing to check
        return None
    from ._parameters import check_option

    check_option(profile, "profile", func, sorted(PROFILES))
    return PROFILE_UNDEFINED.get(profile, {}).get(metric)

"""The rows of the metrics outside the ranking kernel: pointwise and grouped (CTR
models, regression), the list metrics with functions of their own, off-policy
estimators and retention.

A row names where the metric's function lives (``function_path``) and, where it
is mergeable, the module of its engine definition (``definition_path``): a metric
listed with a partitioning has one. Its other names are rows of
:mod:`receval.registry.peers`.
"""

from __future__ import annotations

import math

from .schema import MetricEntry, Param

__all__ = ["ROWS"]

_WEIGHTED = ("y_true", "y_score", "sample_weight")
_PROBA = ("y_true", "y_prob", "sample_weight")
_REAL = ("y_true", "y_pred", "sample_weight")
_LOGGED = ("reward", "pscore", "action_dist", "action", "position", "estimated_rewards",
           "estimated_value")  # fmt: skip

_AUC = "receval.metrics._auc"
_LOSS = "receval.metrics._loss"
_CALIBRATION = "receval.metrics._calibration"
_REGRESSION = "receval.metrics._regression"
_OFF_POLICY = "receval.metrics._offpolicy"
_POPULARITY = "receval.metrics.beyond.popularity"
_ENGINE = "receval.metrics.beyond.popularity_states"

_POS_LABEL = Param("pos_label", "object", "the label of the positive class")
_EPS = Param("eps", "float", "probabilities clipped to [eps, 1 - eps]", "auto", 0.0, 0.5, True,
             choices=("auto",))  # fmt: skip
_RATE = Param("negative_sampling_rate", "float",
              "share of the negatives kept in training: p recalibrated to p / (p + (1 - p) / w)",
              1.0, 0.0, 1.0, True)  # fmt: skip
_TARGETS = Param(
    "targets",
    "choice",
    "continuous (only their order matters) or probabilities in [0, 1] (each row "
    "a positive of weight t w and a negative of weight (1 - t) w)",
    "continuous",
    choices=("continuous", "probabilities"),
)
_FORCE_FINITE = Param(
    "force_finite", "bool", "a constant y gives 1 or 0 instead of nan or -inf", True
)
_CLIP = Param("clip", "float", "largest importance weight kept (None or inf: no clipping)", None,
              0.0, math.inf, True, choices=("inf",))  # fmt: skip
_TRAIN = Param("train", "object", "the interactions of training, for item popularity")
_HEAD_SHARE = Param(
    "head_share", "float", "share of the interactions the head items hold", 0.8, 0.0, 1.0, True
)


def _row(name: str, family: str, description: str, function: str, definition: str = "",
         **fields: object) -> MetricEntry:  # fmt: skip
    return MetricEntry(name, family, description, function_path=function,
                       definition_path=definition, **fields)  # type: ignore[arg-type]  # fmt: skip


ROWS: tuple[MetricEntry, ...] = (
    # ------------------------------------------------ pointwise: one score per impression
    _row("roc_auc", "pointwise", "area under the ROC curve, exact (ties count one half)",
         f"{_AUC}:roc_auc_score", _AUC, inputs=_WEIGHTED, partitionings=("any", "ranges"),
         source="scikit-learn",
         params=(Param("bins", "int", "bins of the binned AUC of an accumulator (None: exact)",
                       None, 1.0, 2.0**26),
                 Param("range", "object", "the scores' range of the binned AUC", (0.0, 1.0)),
                 _POS_LABEL)),
    _row("log_loss", "pointwise", "mean binary cross-entropy of predicted probabilities",
         f"{_LOSS}:log_loss", _LOSS, higher_is_better=False, inputs=_REAL,
         source="scikit-learn",
         params=(_EPS, Param("normalize", "bool", "the mean (false: the sum) over rows", True),
                 _RATE, _POS_LABEL)),
    _row("normalized_entropy", "pointwise",
         "log loss over the entropy of the base rate (TorchRec's NE); below 1 beats the base rate",
         f"{_LOSS}:normalized_entropy", _LOSS, higher_is_better=False, inputs=_PROBA,
         source="TorchRec", params=(_EPS, _RATE, _POS_LABEL)),
    _row("calibration_free_normalized_entropy", "pointwise",
         "NE over the summed log loss (bits) of predicting the mean prediction (TorchRec's "
         "cali-free NE; shrinks as the rows grow)",
         "receval.metrics._ne_variants:calibration_free_normalized_entropy",
         "receval.metrics._ne_variants", higher_is_better=False, inputs=_PROBA,
         source="TorchRec (cali_free_ne.py)", params=(_EPS, _RATE, _POS_LABEL)),
    _row("normalized_entropy_positive", "pointwise",
         "log loss of the positive rows over the entropy of the base rate (TorchRec's NE "
         "positive)",
         "receval.metrics._ne_variants:normalized_entropy_positive",
         "receval.metrics._ne_variants", higher_is_better=False, inputs=_PROBA,
         source="TorchRec (ne_positive.py)", params=(_EPS, _RATE, _POS_LABEL)),
    _row("pcoc", "pointwise", "predicted clicks over observed clicks; 1 is calibrated",
         f"{_CALIBRATION}:pcoc", _CALIBRATION, higher_is_better=None, inputs=_PROBA,
         params=(_RATE, _POS_LABEL)),
    _row("copc", "pointwise", "observed clicks over predicted clicks; 1 is calibrated",
         f"{_CALIBRATION}:copc", _CALIBRATION, higher_is_better=None, inputs=_PROBA,
         params=(_RATE, _POS_LABEL)),
    _row("average_precision", "pointwise",
         "step-wise area under the precision-recall curve (scikit-learn's AP)",
         f"{_AUC}:average_precision_score", _AUC, inputs=_WEIGHTED,
         source="scikit-learn", params=(_POS_LABEL,)),
    _row("pr_auc", "pointwise", "trapezoidal area under the precision-recall curve",
         f"{_AUC}:pr_auc_score", _AUC, inputs=_WEIGHTED, params=(_POS_LABEL,)),
    _row("break_even_point", "pointwise", "precision where precision equals recall",
         f"{_AUC}:break_even_point", _AUC, inputs=_WEIGHTED,
         params=(_POS_LABEL,)),
    _row("expected_calibration_error", "pointwise",
         "weighted mean gap between observed rate and mean prediction per bin",
         f"{_CALIBRATION}:expected_calibration_error", _CALIBRATION, higher_is_better=False,
         inputs=_PROBA,
         source="Guo et al. 2017 (strategy='quantile' bins are percentiles of every row: "
                "in memory only)",
         params=(_POS_LABEL, Param("n_bins", "int", "number of bins", 10, 1.0),
                 Param("strategy", "choice", "bins of equal width or of equal counts",
                       "uniform", choices=("quantile", "uniform")),
                 Param("bin_edge", "choice", "the bin of a probability on an inner edge",
                       "lower", choices=("lower", "upper")), _RATE)),
    _row("root_mean_squared_error", "pointwise", "root mean squared error",
         f"{_LOSS}:root_mean_squared_error", _LOSS, higher_is_better=False, inputs=_REAL,
         source="scikit-learn"),
    _row("mean_absolute_error", "pointwise", "mean absolute error",
         f"{_LOSS}:mean_absolute_error", _LOSS, higher_is_better=False, inputs=_REAL,
         source="scikit-learn"),
    _row("brier_score", "pointwise", "mean squared error of predicted probabilities",
         f"{_REGRESSION}:brier_score_loss", _REGRESSION, higher_is_better=False,
         inputs=("y_true", "y_proba", "sample_weight"), source="scikit-learn",
         params=(_POS_LABEL,)),
    _row("r2", "pointwise",
         "coefficient of determination: 1 - squared error over the variance of y",
         f"{_REGRESSION}:r2_score", _REGRESSION, inputs=_REAL, source="scikit-learn",
         params=(_FORCE_FINITE,)),
    _row("explained_variance", "pointwise", "1 - variance of the errors over the variance of y",
         f"{_REGRESSION}:explained_variance_score", _REGRESSION, inputs=_REAL,
         source="scikit-learn", params=(_FORCE_FINITE,)),
    _row("partial_auc", "pointwise",
         "ROC AUC up to a false positive rate, McClish-standardised to [0.5, 1]",
         "receval.metrics._partial_auc:partial_auc", "receval.metrics._partial_auc",
         inputs=_WEIGHTED, source="scikit-learn (McClish 1989)",
         params=(Param("max_fpr", "float", "the largest false positive rate", None, 0.0, 1.0,
                       True, required=True), _POS_LABEL)),
    _row("xauc", "pointwise",
         "share of the pairs with different targets that the scores order as the targets "
         "(continuous targets such as watch time; tied scores count one half)",
         "receval.metrics._xauc:xauc_score", "receval.metrics._xauc", inputs=_WEIGHTED,
         source="TorchEasyRec (tzrec/metrics/xauc.py), exact: every pair, not a sample",
         params=(_TARGETS,)),
    _row("regression_auc", "pointwise",
         "share of all pairs of rows whose scores do not invert their targets (TorchRec's "
         "RAUC; equal targets or scores count as in order)",
         "receval.metrics._regression_auc:regression_auc_score",
         "receval.metrics._regression_auc", inputs=("y_true", "y_score"),
         source="TorchRec (rauc.py), without its O(n) Python lists"),
    _row("grouped_regression_auc", "grouped",
         "mean over groups of each group's regression AUC (TorchRec's grouped RAUC; groups "
         "of one row skipped)",
         "receval.metrics._regression_auc:regression_auc_score",
         "receval.metrics._regression_auc", inputs=("y_true", "y_score", "groups"),
         source="TorchRec (rauc.py with grouped_rauc=True)"),
    # ------------------------------------------------ grouped: per-group AUC
    _row("grouped_xauc", "grouped",
         "XAUC of each group's own pairs, averaged over the groups weighted by their rows "
         "(groups without a pair of different targets skipped, or 0)",
         "receval.metrics._xauc:xauc_score", "receval.metrics._xauc",
         inputs=("y_true", "y_score", "groups", "sample_weight", "weighting"),
         source="TorchEasyRec (tzrec/metrics/grouped_xauc.py), exact: every pair",
         params=(Param("weighting", "choice", "weight of each group's XAUC: its rows or 1",
                       "impressions", choices=("impressions", "uniform")),
                 Param("empty_groups", "choice",
                       "a group without a pair of different targets: left out, or 0 "
                       "(CatBoost's QueryAUC)", "skip", choices=("skip", "zero")),
                 _TARGETS,
                 Param("equal_targets", "choice",
                       "pairs of equal targets: left out, or counted in input order (the "
                       "earlier row's higher score in order: XGBoost's ranking auc)", "skip",
                       choices=("skip", "input_order")),
                 Param("min_rows", "int", "groups of fewer rows are left out", 1, 1.0))),
    _row("gauc", "grouped", "per-group ROC AUC weighted by impressions, clicks or 1",
         "receval.metrics._gauc:gauc_score", "receval.metrics._gauc",
         inputs=("y_true", "y_score", "groups", "sample_weight", "weighting"),
         partitionings=("groups",), source="Zhou et al. 2018 (DIN)",
         params=(Param("weighting", "choice",
                       "weight of each group's AUC: its impressions, its clicks or 1",
                       "impressions", choices=("clicks", "impressions", "uniform")),
                 _POS_LABEL)),
    _row("grouped_auprc", "grouped",
         "mean over groups of each group's step-wise area under the precision-recall curve "
         "(groups without a positive skipped)",
         "receval.metrics._grouped_auprc:grouped_auprc_score", "receval.metrics._grouped_auprc",
         inputs=("y_true", "y_score", "groups", "sample_weight"),
         source="TorchRec (auprc.py with grouping_keys; it averages a 0 for a group without "
                "a positive)",
         params=(Param("interpolation", "choice",
                       "the curve between thresholds: steps, or Davis and Goadrich's "
                       "(XGBoost's aucpr)", "step", choices=("step", "davis_goadrich")),
                 Param("skip_groups", "choice",
                       "groups left out: without a positive, or of one class (XGBoost's)",
                       "without_positive", choices=("without_positive", "one_class")),
                 _POS_LABEL)),
    # ------------------------------------------------ list metrics with their own functions
    _row("catalog_coverage", "list", "share of the catalogue in the top-k lists",
         "receval.metrics.beyond.catalog:catalog_coverage", inputs=("run", "catalog"),
         partitionings=(), accepts_k=True, source="Microsoft Recommenders"),
    _row("novelty", "list", "mean self-information -log2(popularity) of recommended items",
         "receval.metrics.beyond.diversity:novelty", inputs=("run", "interactions"),
         partitionings=(),
         accepts_k=True, source="Zhou et al. 2010 (recmetrics)"),
    _row("personalization", "list", "1 - mean cosine similarity between users' lists",
         "receval.metrics.beyond.catalog:personalization", inputs=("run",), partitionings=(),
         accepts_k=True, source="recmetrics"),
    _row("gini_index", "list", "Gini index of item exposure in the top-k lists",
         "receval.metrics.beyond.catalog:gini_index", higher_is_better=False, inputs=("run",),
         partitionings=(), accepts_k=True, source="RecBole"),
    _row("pop_reo", "list",
         "PopREO: std / mean of the rates at which relevant head and tail items reach the "
         "top k (Zhu et al. 2020)",
         f"{_POPULARITY}:popularity_equal_opportunity", _ENGINE, higher_is_better=False,
         inputs=("qrels", "run"), partitionings=("groups",), accepts_k=True, source="Elliot",
         params=(_TRAIN, _HEAD_SHARE,
                 Param("rel_threshold", "float", "the lowest grade that is relevant", 1))),
    _row("pop_rsp", "list",
         "PopRSP: std / mean of the rates at which head and tail items reach the top k "
         "(Zhu et al. 2020)",
         f"{_POPULARITY}:popularity_statistical_parity", _ENGINE, higher_is_better=False,
         inputs=("run",), partitionings=("groups",), accepts_k=True, source="Elliot",
         params=(_TRAIN, _HEAD_SHARE)),
    _row("item_coverage", "list",
         "share of the items of the popularity (or log) and the run in the top-k lists "
         "(deprecated: RecBole's ItemCoverage is catalog_coverage with catalog=n)",
         f"{_POPULARITY}:item_coverage", _ENGINE, inputs=("run",), partitionings=("groups",),
         accepts_k=True,
         params=(Param("popularity", "object", "item popularity (or train=)"), _TRAIN)),
    _row("shannon_entropy", "list",
         "entropy (nats) of the items' shares of the top-k rows, over their number",
         f"{_POPULARITY}:shannon_entropy", _ENGINE, inputs=("run",), partitionings=("groups",),
         accepts_k=True, source="RecBole"),
    _row("distributional_coverage", "list",
         "entropy (bits) of the items' shares of the recommendations",
         f"{_POPULARITY}:distributional_coverage", _ENGINE, inputs=("run",),
         partitionings=("groups",), accepts_k=True, source="Microsoft Recommenders"),
    _row("popularity_serendipity", "list",
         "relevant items ranked above their popularity rank (RecTools' serendipity)",
         "receval.metrics.beyond.serendipity:popularity_serendipity",
         inputs=("run", "qrels", "train", "catalog"), partitionings=(), accepts_k=True,
         source="RecTools"),
    _row("intersection", "list", "share of each top-k list also in a reference run's top-k list",
         "receval.metrics.beyond.overlap:intersection", higher_is_better=None,
         inputs=("run", "reference"), partitionings=(), accepts_k=True, source="RecTools",
         params=(Param("reference_k", "int", "the cut-off of the reference (None: k)", None,
                       1.0),)),
    _row("user_coverage", "list", "share of users with a relevant item whose top-k list holds one",
         "receval.metrics.beyond.overlap:user_coverage", inputs=("run", "qrels"), partitionings=(),
         accepts_k=True),
    # ------------------------------------------------ off-policy estimators
    _row("ips", "off_policy",
         "inverse propensity scoring: mean importance-weighted reward of a target policy",
         f"{_OFF_POLICY}:ips_estimate", _OFF_POLICY, inputs=_LOGGED,
         source="Horvitz & Thompson 1952; Open Bandit Pipeline", params=(_CLIP,)),
    _row("snips", "off_policy",
         "self-normalized IPS: importance-weighted rewards over the sum of the weights",
         f"{_OFF_POLICY}:snips_estimate", _OFF_POLICY, inputs=_LOGGED,
         source="Swaminathan & Joachims 2015; Open Bandit Pipeline", params=(_CLIP,)),
    _row("dr", "off_policy",
         "doubly robust: a reward model's value plus the importance-weighted residuals",
         f"{_OFF_POLICY}:dr_estimate", _OFF_POLICY, inputs=_LOGGED,
         source="Dudik et al. 2011; Open Bandit Pipeline", params=(_CLIP,)),
    # ------------------------------------------------ retention (a report, not one value)
    _row("retention", "retention",
         "new, login and returning users per period; day-N retention per cohort",
         "receval.metrics.retention:retention", "receval.metrics.retention.definition",
         inputs=("events", "signup"), partitionings=("groups",),
         params=(Param("user", "object", "the user id column", "user"),
                 Param("time", "object", "the event time column", "time"),
                 Param("period", "choice", "the calendar period of a cohort", "day",
                       choices=("day", "week", "month")),
                 Param("days", "object", "the offsets N of the day-N retention", (1, 3, 7, 30)),
                 Param("tz", "object", "the time zone of the periods", "UTC"),
                 Param("time_unit", "choice", "the unit of epoch-number times (None: inferred)",
                       None, choices=("s", "ms", "us", "ns")),
                 Param("before_signup", "choice", "events before the signup", "keep",
                       choices=("keep", "drop", "error")))),
)  # fmt: skip

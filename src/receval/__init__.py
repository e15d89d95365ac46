"""receval: offline evaluation of recommender systems and CTR models.

Every public name is importable from the top level (``from receval import
gauc_score``). Submodules are loaded on first use, so ``import receval`` costs
a few milliseconds and pulls in no DataFrame library.
"""

from __future__ import annotations

import importlib
import sys

# ``typing`` is not imported: it is most of what ``import receval`` would cost
# (type checkers read this name as ``typing.TYPE_CHECKING``)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: The public names no registry row gives, and the module of each. The functions
#: of the metrics come from the rows (:func:`_row_functions`), so a new metric's
#: row is all this module needs.
_EXPORTS: dict[str, str] = {
    # classification (hard labels)
    "confusion_matrix": "receval.metrics._classification",
    "accuracy_score": "receval.metrics._classification",
    "error_rate": "receval.metrics._classification",
    "precision_score": "receval.metrics._precision_recall",
    "recall_score": "receval.metrics._precision_recall",
    "specificity_score": "receval.metrics._precision_recall",
    "false_positive_rate": "receval.metrics._precision_recall",
    "f1_score": "receval.metrics._precision_recall",
    "fbeta_score": "receval.metrics._precision_recall",
    # curves
    "roc_curve": "receval.metrics._curves",
    "precision_recall_curve": "receval.metrics._curves",
    "calibration_curve": "receval.metrics._calibration",
    # intervals and tests of the AUC
    "roc_auc_ci": "receval.metrics._delong",
    "delong_test": "receval.metrics._delong",
    "AUCInterval": "receval.metrics._delong",
    "DeLongTest": "receval.metrics._delong",
    # off-policy estimates from logged bandit feedback
    "policy_value_interval": "receval.metrics._offpolicy",
    "PolicyValueInterval": "receval.metrics._offpolicy",
    "policy_value_report": "receval.metrics._offpolicy",
    "PolicyValueReport": "receval.metrics._offpolicy",
    "group_auc": "receval.metrics._gauc",
    "GroupAUCReport": "receval.metrics._gauc",
    # sampled evaluation
    "sample_negatives": "receval.sampled.negatives",
    "Candidates": "receval.sampled.negatives",
    "SamplingSummary": "receval.sampled.negatives",
    "corrected_metric": "receval.sampled.corrections",
    "sampled_report": "receval.sampled",
    "SampledReport": "receval.sampled",
    # ranking
    "precision_at_k": "receval.metrics._ranking",
    "recall_at_k": "receval.metrics._ranking",
    "f1_at_k": "receval.metrics._ranking",
    "hit_ratio_at_k": "receval.metrics._ranking",
    "pooled_hit_ratio_at_k": "receval.metrics._ranking",
    "success_at_k": "receval.metrics._ranking",
    "map_at_k": "receval.metrics._ranking",
    "mrr_at_k": "receval.metrics._ranking",
    "ndcg_at_k": "receval.metrics._ranking",
    "Qrels": "receval.data._ranked",
    "Run": "receval.data._ranked",
    "SeenItems": "receval.data.seen",
    "MaskingSummary": "receval.data.seen",
    # retrieval from embeddings
    "retrieve": "receval.retrieval.exact",
    "evaluate_embeddings": "receval.retrieval.embeddings",
    "ann_recall": "receval.retrieval.ann",
    "AnnRecallReport": "receval.retrieval.ann",
    # out of core: files larger than memory
    "scan": "receval.data.scan",
    "Scan": "receval.data.scan",
    "EvaluationReport": "receval.ranking",
    "parse_metric": "receval.registry",
    "parse_metrics": "receval.registry",
    "list_metrics": "receval.registry",
    "metric_info": "receval.registry",
    "MetricEntry": "receval.registry",
    "MetricSpec": "receval.registry",
    "Conventions": "receval.conventions",
    "PROFILES": "receval.conventions",
    # checks of an evaluation protocol
    "audit": "receval.protocol",
    "AuditReport": "receval.protocol",
    "Finding": "receval.protocol",
    # a regression gate for CI
    "gate": "receval.gating.decision",
    "GateReport": "receval.gating.report",
    # metrics by segment
    "by_segment": "receval.segments",
    "compare_by_segment": "receval.segments",
    "SegmentComparison": "receval.segments",
    "SegmentReport": "receval.segments",
    # comparing models
    "compare": "receval.comparison.models",
    "compare_predictions": "receval.comparison.models",
    "ComparisonReport": "receval.comparison.models",
    "paired_pvalues": "receval.comparison.models",
    "smallest_pvalue": "receval.comparison.models",
    "bootstrap_intervals": "receval.comparison.models",
    "adjust_pvalues": "receval.comparison.models",
    "effect_sizes": "receval.comparison.models",
    "list_differences": "receval.comparison.lists",
    "rank_biased_overlap": "receval.comparison.lists",
    "ListDifferenceReport": "receval.comparison.lists",
    # beyond accuracy
    "intra_list_similarity": "receval.metrics.beyond.diversity",
    "diversity": "receval.metrics.beyond.diversity",
    "MeanOverUsers": "receval.metrics.beyond.lists",
    # popularity bias
    "average_recommendation_popularity": "receval.metrics.beyond.popularity_users",
    "average_percentage_long_tail": "receval.metrics.beyond.popularity_users",
    "average_coverage_long_tail": "receval.metrics.beyond.popularity_users",
    "average_popularity": "receval.metrics.beyond.popularity_users",
    "tail_percentage": "receval.metrics.beyond.popularity_users",
    # exposure fairness
    "expected_exposure": "receval.metrics.beyond.exposure",
    "ExpectedExposureReport": "receval.metrics.beyond.exposure",
    "group_exposure": "receval.metrics.beyond.group_exposure",
    "GroupExposureReport": "receval.metrics.beyond.group_exposure",
    # serendipity, overlap and calibration of lists
    "serendipity": "receval.metrics.beyond.serendipity",
    "user_serendipity": "receval.metrics.beyond.serendipity",
    "user_item_serendipity": "receval.metrics.beyond.serendipity",
    "miscalibration": "receval.metrics.beyond.miscalibration",
    # retention
    "RetentionReport": "receval.metrics.retention",
    # streaming: accumulators for training and validation loops
    "metric": "receval.engine.accumulator",
    "compute": "receval.engine.accumulator",
    "Accumulator": "receval.engine.run",
    # errors
    "RecevalError": "receval.exceptions",
    "InvalidParameterError": "receval.exceptions",
    "InputValidationError": "receval.exceptions",
    "MissingDependencyError": "receval.exceptions",
    "UnknownMetricError": "receval.exceptions",
    "UndefinedMetricWarning": "receval.exceptions",
    "TieOrderWarning": "receval.exceptions",
    "RecevalWarning": "receval.exceptions",
    "UnmatchedIdsWarning": "receval.exceptions",
}


def _row_functions() -> dict[str, str]:
    """The functions the registry's rows name (``function_path``), by name: module.

    Read on first use: the registry loads NumPy, which ``import receval`` does not.
    """
    from .registry import ENTRIES

    paths = (entry.function_path for entry in ENTRIES.values() if entry.function_path)
    return {attr: module for module, _, attr in (p.partition(":") for p in paths)}


def _names() -> list[str]:
    """``__all__``: every public name, read on first use (the rows' from the registry)."""
    return sorted({*_EXPORTS, *_row_functions()})


def _version() -> str:
    """The installed distribution's version (one source: ``rust/Cargo.toml``, which the
    build writes into the metadata), or, in a source tree used without installing it,
    the crate's version read from ``rust/Cargo.toml``."""
    from importlib import metadata

    try:
        return metadata.version("receval")
    except metadata.PackageNotFoundError:
        import re
        from pathlib import Path

        cargo = Path(__file__).resolve().parents[2] / "rust" / "Cargo.toml"
        text = cargo.read_text() if cargo.is_file() else ""
        found = re.search(r'^version = "([^"]+)"', text, re.MULTILINE)
        return found.group(1) if found else "0+unknown"


if not TYPE_CHECKING:  # type checkers see the names imported below, and no others

    def __getattr__(name: str) -> Any:
        if name == "__version__":  # read on first use: importlib.metadata costs tens of ms
            value: Any = _version()
        elif name == "__all__":
            value = _names()
        elif name.startswith("_"):
            raise AttributeError(f"module 'receval' has no attribute {name!r}")
        else:
            module = _EXPORTS.get(name) or _row_functions().get(name)
            if module is None:
                raise AttributeError(f"module 'receval' has no attribute {name!r}")
            value = getattr(importlib.import_module(module), name)
        globals()[name] = value
        return value


#: Module paths that moved into packages, and where they are now. Importing an
#: old path gives the module at the new one, with a DeprecationWarning.
_MOVED_MODULES = {
    "receval.evaluation": "receval.ranking.evaluation",
    "receval.streaming": "receval.engine.accumulator",
    "receval.trec_eval": "receval.trec.trec_eval",
}


class _MovedModules:
    """Finds the old paths of :data:`_MOVED_MODULES` (an entry of ``sys.meta_path``)."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname not in _MOVED_MODULES:
            return None
        from importlib.machinery import ModuleSpec

        return ModuleSpec(fullname, self)  # type: ignore[arg-type]

    def create_module(self, spec: Any) -> Any:
        from .exceptions import warn

        new = _MOVED_MODULES[spec.name]
        warn(
            f"The module {spec.name} is deprecated; import {new} instead (every public "
            f"name is also importable from receval).",
            DeprecationWarning,
        )
        return importlib.import_module(new)

    def exec_module(self, module: Any) -> None:
        """The module was loaded at its new path."""


if not any(isinstance(f, _MovedModules) for f in sys.meta_path):
    sys.meta_path.append(_MovedModules())


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_names()))


if TYPE_CHECKING:  # pragma: no cover - static analysers see the real names
    __version__: str
    __all__: list[str]

    from .sampled.corrections import (
        corrected_metric as corrected_metric,
    )
    from .protocol import (
        AuditReport as AuditReport,
        Finding as Finding,
        audit as audit,
    )
    from .registry import (
        MetricSpec as MetricSpec,
        parse_metric as parse_metric,
        parse_metrics as parse_metrics,
    )
    from .data.seen import (
        MaskingSummary as MaskingSummary,
        SeenItems as SeenItems,
    )
    from .sampled.negatives import (
        Candidates as Candidates,
        SamplingSummary as SamplingSummary,
        sample_negatives as sample_negatives,
    )
    from .comparison.models import (
        ComparisonReport as ComparisonReport,
        adjust_pvalues as adjust_pvalues,
        bootstrap_intervals as bootstrap_intervals,
        compare as compare,
        compare_predictions as compare_predictions,
        effect_sizes as effect_sizes,
        paired_pvalues as paired_pvalues,
        smallest_pvalue as smallest_pvalue,
    )
    from .comparison.lists import (
        ListDifferenceReport as ListDifferenceReport,
        list_differences as list_differences,
        rank_biased_overlap as rank_biased_overlap,
    )
    from .conventions import (
        PROFILES as PROFILES,
        Conventions as Conventions,
    )
    from .data._ranked import (
        Qrels as Qrels,
        Run as Run,
    )
    from .data.scan import (
        Scan as Scan,
        scan as scan,
    )
    from .retrieval import (
        AnnRecallReport as AnnRecallReport,
        ann_recall as ann_recall,
        evaluate_embeddings as evaluate_embeddings,
        retrieve as retrieve,
    )
    from .engine.run import (
        Accumulator as Accumulator,
    )
    from .gating.decision import gate as gate
    from .gating.report import GateReport as GateReport
    from .ranking import (
        EvaluationReport as EvaluationReport,
        evaluate as evaluate,
    )
    from .exceptions import (
        InputValidationError as InputValidationError,
        InvalidParameterError as InvalidParameterError,
        MissingDependencyError as MissingDependencyError,
        RecevalError as RecevalError,
        RecevalWarning as RecevalWarning,
        TieOrderWarning as TieOrderWarning,
        UndefinedMetricWarning as UndefinedMetricWarning,
        UnknownMetricError as UnknownMetricError,
        UnmatchedIdsWarning as UnmatchedIdsWarning,
    )
    from .metrics._auc import (
        average_precision_score as average_precision_score,
        break_even_point as break_even_point,
        pr_auc_score as pr_auc_score,
        roc_auc_score as roc_auc_score,
    )
    from .metrics.beyond.catalog import (
        catalog_coverage as catalog_coverage,
        gini_index as gini_index,
        personalization as personalization,
    )
    from .metrics.beyond.lists import (
        MeanOverUsers as MeanOverUsers,
    )
    from .metrics._calibration import (
        calibration_curve as calibration_curve,
        copc as copc,
        expected_calibration_error as expected_calibration_error,
        pcoc as pcoc,
    )
    from .metrics.beyond.miscalibration import (
        miscalibration as miscalibration,
    )
    from .metrics._classification import (
        accuracy_score as accuracy_score,
        confusion_matrix as confusion_matrix,
        error_rate as error_rate,
    )
    from .metrics._curves import (
        precision_recall_curve as precision_recall_curve,
        roc_curve as roc_curve,
    )
    from .metrics._delong import (
        AUCInterval as AUCInterval,
        DeLongTest as DeLongTest,
        delong_test as delong_test,
        roc_auc_ci as roc_auc_ci,
    )
    from .metrics.beyond.diversity import (
        diversity as diversity,
        intra_list_similarity as intra_list_similarity,
        novelty as novelty,
    )
    from .metrics.beyond.exposure import (
        ExpectedExposureReport as ExpectedExposureReport,
        expected_exposure as expected_exposure,
    )
    from .metrics._gauc import (
        GroupAUCReport as GroupAUCReport,
        gauc_score as gauc_score,
        group_auc as group_auc,
    )
    from .metrics.beyond.group_exposure import (
        GroupExposureReport as GroupExposureReport,
        group_exposure as group_exposure,
    )
    from .metrics._loss import (
        log_loss as log_loss,
        mean_absolute_error as mean_absolute_error,
        normalized_entropy as normalized_entropy,
        root_mean_squared_error as root_mean_squared_error,
    )
    from .metrics._ne_variants import (
        calibration_free_normalized_entropy as calibration_free_normalized_entropy,
        normalized_entropy_positive as normalized_entropy_positive,
    )
    from .metrics._offpolicy import (
        PolicyValueInterval as PolicyValueInterval,
        PolicyValueReport as PolicyValueReport,
        dr_estimate as dr_estimate,
        ips_estimate as ips_estimate,
        policy_value_interval as policy_value_interval,
        policy_value_report as policy_value_report,
        snips_estimate as snips_estimate,
    )
    from .metrics.beyond.overlap import (
        intersection as intersection,
        user_coverage as user_coverage,
    )
    from .metrics._partial_auc import (
        partial_auc as partial_auc,
    )
    from .metrics.beyond.popularity import (
        distributional_coverage as distributional_coverage,
        item_coverage as item_coverage,
        popularity_equal_opportunity as popularity_equal_opportunity,
        popularity_statistical_parity as popularity_statistical_parity,
        shannon_entropy as shannon_entropy,
    )
    from .metrics.beyond.popularity_users import (
        average_coverage_long_tail as average_coverage_long_tail,
        average_percentage_long_tail as average_percentage_long_tail,
        average_popularity as average_popularity,
        average_recommendation_popularity as average_recommendation_popularity,
        tail_percentage as tail_percentage,
    )
    from .metrics._precision_recall import (
        f1_score as f1_score,
        false_positive_rate as false_positive_rate,
        fbeta_score as fbeta_score,
        precision_score as precision_score,
        recall_score as recall_score,
        specificity_score as specificity_score,
    )
    from .metrics._ranking import (
        f1_at_k as f1_at_k,
        hit_ratio_at_k as hit_ratio_at_k,
        map_at_k as map_at_k,
        mrr_at_k as mrr_at_k,
        ndcg_at_k as ndcg_at_k,
        pooled_hit_ratio_at_k as pooled_hit_ratio_at_k,
        precision_at_k as precision_at_k,
        recall_at_k as recall_at_k,
        success_at_k as success_at_k,
    )
    from .metrics._regression import (
        brier_score_loss as brier_score_loss,
        explained_variance_score as explained_variance_score,
        r2_score as r2_score,
    )
    from .metrics.retention import (
        RetentionReport as RetentionReport,
        retention as retention,
    )
    from .metrics.beyond.serendipity import (
        popularity_serendipity as popularity_serendipity,
        serendipity as serendipity,
        user_item_serendipity as user_item_serendipity,
        user_serendipity as user_serendipity,
    )
    from .metrics._grouped_auprc import (
        grouped_auprc_score as grouped_auprc_score,
    )
    from .metrics._regression_auc import (
        regression_auc_score as regression_auc_score,
    )
    from .metrics._xauc import (
        xauc_score as xauc_score,
    )
    from .registry import (
        MetricEntry as MetricEntry,
        list_metrics as list_metrics,
        metric_info as metric_info,
    )
    from .sampled.report import (
        SampledReport as SampledReport,
        sampled_report as sampled_report,
    )
    from .segments.compute import (
        SegmentComparison as SegmentComparison,
        SegmentReport as SegmentReport,
        by_segment as by_segment,
        compare_by_segment as compare_by_segment,
    )
    from .engine.accumulator import (
        compute as compute,
        metric as metric,
    )

"""Evaluate Spark DataFrames where they are, with the same numbers as in memory.

``receval.spark`` runs receval's own validation and kernels on the executors
(``mapInArrow`` over whole partitions) and sends only small mergeable states
to the driver; rows never leave the executors. Every function gives the value
its in-memory namesake gives on the collected rows.

* :func:`evaluate`: ranking metrics; qrels and run partitioned by user; returns the
  :class:`receval.EvaluationReport` of :func:`receval.evaluate`, without per-user rows.
* :func:`roc_auc_score`: exact AUC; rows range-partitioned by score.
* :func:`gauc_score`, :func:`group_auc`: GAUC; rows partitioned by group.
* :func:`log_loss`, :func:`pcoc`, :func:`copc`, :func:`normalized_entropy`: sums over
  any partitions (one ``receval.metric`` accumulator per partition).
* :func:`evaluate_embeddings`: ranking metrics of exact retrieval from embeddings;
  users' vectors partitioned by user, the item matrix sent to every executor.
* :func:`retention`: the cohort table; events partitioned by user.
* :func:`compute`: any metric of :func:`receval.metric` (one accumulator per
  partition, merged on the driver; whole groups by repartitioning);
  :func:`accumulate`: that merged accumulator itself (its ``skipped()`` counts the
  groups left out).

The binary metrics take 0/1, booleans or -1/1, or any two values with ``pos_label``:
two other labels need ``pos_label`` even where the in-memory function takes the greater
as the positive one (``roc_auc_score``, ``log_loss``), for a partition cannot tell which
of its labels is the greater of the whole column's (as an accumulator's batch cannot).

Needs ``pyspark >= 4`` (``pip install 'receval[spark]'``), imported when a
function is called.
"""

from typing import Any

from ..exceptions import warn
from ._pointwise import (
    GAUCSummary,
    accumulate,
    compute,
    copc,
    gauc_score,
    group_auc,
    log_loss,
    normalized_entropy,
    pcoc,
    roc_auc_score,
)
from ._ranking import evaluate
from ._retention import retention
from ._retrieval import evaluate_embeddings

__all__ = [
    "GAUCSummary",
    "accumulate",
    "compute",
    "copc",
    "evaluate",
    "evaluate_embeddings",
    "gauc_score",
    "group_auc",
    "log_loss",
    "normalized_entropy",
    "pcoc",
    "retention",
    "roc_auc_score",
]


def __getattr__(name: str) -> Any:
    if name == "EvaluationSummary":  # the report of evaluate before it was EvaluationReport
        from ..ranking.report import EvaluationReport

        warn(
            "receval.spark.EvaluationSummary is deprecated: receval.spark.evaluate returns a "
            "receval.EvaluationReport (without per-user rows); use EvaluationReport.",
            DeprecationWarning,
        )
        return EvaluationReport
    raise AttributeError(f"module 'receval.spark' has no attribute {name!r}")

"""Ranking evaluation: :func:`evaluate`, the top-K metrics of a run against qrels.

One definition aggregates the users: each partition of whole users (all of them
in memory, a batch of a scanned run, a Spark partition, an accumulator's
update) becomes a mergeable state, the states merge exactly in any order, and
one finalize makes the :class:`EvaluationReport`.

* :mod:`~receval.ranking.evaluation`: :func:`evaluate`, its sources (arrays in
  memory, batches of whole users of a scanned run);
* :mod:`~receval.ranking.aggregate`: the definition (update, merge, finalize) and
  the accumulator of ``receval.metric("ndcg@10")``;
* :mod:`~receval.ranking.specs`: metric strings and conventions, checked;
* :mod:`~receval.ranking.values`: per-user values (the kernel, list-wise metrics);
* :mod:`~receval.ranking.checks`: unmatched ids and tied scores;
* :mod:`~receval.ranking.report`: :class:`EvaluationReport`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .evaluation import evaluate
    from .report import EvaluationReport

__all__ = ["EvaluationReport", "evaluate"]


def __getattr__(name: str) -> Any:
    # loaded when first asked for: ``receval.ranking.specs`` (metric strings, their
    # conventions and kernel specs) imports no NumPy
    if name == "evaluate":
        from .evaluation import evaluate

        return evaluate
    if name == "EvaluationReport":
        from .report import EvaluationReport

        return EvaluationReport
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

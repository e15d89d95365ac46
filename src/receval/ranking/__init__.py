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

from .evaluation import evaluate
from .report import EvaluationReport

__all__ = ["EvaluationReport", "evaluate"]

"""The records of ``receval rank``'s table and of :func:`~receval.report.ranking_section`:
per run, the mean of each metric and what the rules left out.

Apart from the sections of the HTML report (:mod:`receval.report.sections`), which load
the figures: ``receval rank`` prints these records without them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..ranking.report import EvaluationReport

__all__ = ["ranking_records"]


def ranking_records(
    reports: Mapping[str, EvaluationReport], metrics: Sequence[str] | None = None
) -> list[dict[str, Any]]:
    """One record per run: its name, the mean of each metric and what the rules left out.

    Parameters
    ----------
    reports : mapping of str to EvaluationReport
        The result of :func:`receval.evaluate` of each run, by run name.
    metrics : sequence of str, default=None
        The metrics to show, in order; by default every metric of each report.

    Returns
    -------
    records : list of dict
        ``{"run": name, metric: mean, ..., "counts": counts}``, where
        ``counts`` holds ``n_users``, ``n_users_missing``,
        ``n_run_only_users``, ``n_run_items``, ``n_run_items_unmatched``
        and, per metric, ``n_users_skipped``, ``n_users_skipped_by`` (those
        users by the rule that left them out), ``n_users_empty``,
        ``n_users_tie_dependent`` and ``mean_ties_average`` (the mean with
        ``ties="average"``; None for a metric whose tie dependence is not
        checked), ``masking`` (the counts of ``exclude=``, or ``repeats``
        True), ``sampling`` (the counts of ``candidates=`` and the
        correction), ``n_pairs_propensity_clipped`` (per weighted metric, the
        relevant pairs whose propensity ``propensity_clip`` raised),
        ``n_exclude_unmatched`` and ``n_candidates_unmatched``
        (the ``exclude`` and ``candidates`` pairs without a vector, of
        :func:`receval.evaluate_embeddings`) when the report has them, as the
        JSON output of ``receval rank``.

    Examples
    --------
    >>> from receval import evaluate
    >>> from receval.report import ranking_records
    >>> qrels = {"u1": {"a": 1}, "u2": {"b": 1}}
    >>> report = evaluate(qrels, {"u1": {"a": 0.9, "b": 0.1}, "u2": {"a": 0.5}}, ["mrr"])
    >>> record = ranking_records({"bm25": report})[0]
    >>> record["run"], record["mrr"], record["counts"]["n_users_missing"]
    ('bm25', 0.5, 0)
    """
    records = []
    for name, report in reports.items():
        names = list(report.mean) if metrics is None else list(metrics)
        record: dict[str, Any] = {"run": name, **{m: report.mean[m] for m in names}}
        record["counts"] = {
            "n_users": int(report.n_users),
            "n_users_missing": int(report.n_users_missing),
            "n_run_only_users": int(report.n_run_only_users),
            "n_users_skipped": {m: int(report.n_users_skipped[m]) for m in names},
            "n_users_skipped_by": {m: dict(report.n_users_skipped_by[m]) for m in names},
            "n_users_empty": {m: int(report.n_users_empty[m]) for m in names},
            "n_run_items": int(report.n_run_items),
            "n_run_items_unmatched": int(report.n_run_items_unmatched),
            # None: a metric whose tie dependence is not checked (see EvaluationReport)
            "n_users_tie_dependent": {m: _tie_count(report, m) for m in names},
            "mean_ties_average": {m: _tie_mean(report, m) for m in names},
        }
        if report.n_pairs_propensity_clipped:  # propensity_clip= with weighted metrics
            clipped = report.n_pairs_propensity_clipped
            record["counts"]["n_pairs_propensity_clipped"] = {m: clipped[m] for m in names
                                                              if m in clipped}  # fmt: skip
        for key, summary in (("masking", report.masking), ("sampling", report.sampling)):
            if summary is not None:  # exclude= or repeats=True; candidates=
                record["counts"][key] = asdict(summary)
        # retrieval from embeddings with exclude=, candidates= (a report of the core's
        # has no such count)
        record["counts"] |= getattr(report, "unmatched_pairs", dict)()
        records.append(record)
    return records


def _tie_count(report: EvaluationReport, metric: str) -> int | None:
    n = report.n_users_tie_dependent.get(metric)
    return None if n is None else int(n)


def _tie_mean(report: EvaluationReport, metric: str) -> float | None:
    """The metric's mean with ``ties="average"``: its mean where no user's value
    depends on the order of tied scores, None where that is not checked."""
    if metric not in report.n_users_tie_dependent:
        return None
    return float(report.mean_ties_average.get(metric, report.mean[metric]))

"""``receval rank`` on a TREC qrels file and a TREC run file, through the compiled core
without NumPy: one call (``trec_rank_table``) reads both files, ranks each user's items
and computes every metric's value per user, with the kernel specs that
:func:`receval.evaluate` computes them with (:func:`receval.ranking.specs.kernel_spec`
of each metric's conventions, :func:`receval.ranking.specs.prepare_metrics`); the
counts are those of ``evaluate``'s report, which
:func:`receval.cli._rank_run.run_rank` prints with its notes.

``run_rank`` asks for it with the common options only (one run, no profile), and
it computes what it gives as ``evaluate`` would: metrics averaged over users that
take any grade (:func:`receval.ranking.specs.grade_limits`), conventions that raise
nothing after the kernel, ids that match. For any other (and for a file the core
does not evaluate as it is: a repeated pair, a line that does not parse, a
compression other than gzip), :func:`core_report` returns None and ``run_rank``
reads the files for ``evaluate``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

__all__ = ["core_report"]

# the tolerance of evaluate's comparison of a value with its ties="average" value
_TOLERANCE = 1e-12


@dataclass
class _Report:
    """What ``receval rank`` prints of an :class:`~receval.EvaluationReport`: the
    attributes :func:`~receval.report.ranking_records` and the notes read."""

    mean: dict[str, float]
    users: list[str]
    values: dict[str, list[float]]
    conventions: dict[str, Any]
    n_users: int
    n_users_missing: int
    n_run_only_users: int
    n_run_items: int
    n_run_items_unmatched: int
    n_users_empty: dict[str, int] = field(default_factory=dict)
    n_users_skipped_by: dict[str, dict[str, int]] = field(default_factory=dict)
    n_users_tie_dependent: dict[str, int] = field(default_factory=dict)
    mean_ties_average: dict[str, float] = field(default_factory=dict)
    masking: None = None
    sampling: None = None
    n_pairs_propensity_clipped: dict[str, int] = field(default_factory=dict)  # no weighting

    @property
    def n_users_skipped(self) -> dict[str, int]:
        return {t: sum(by.values()) for t, by in self.n_users_skipped_by.items()}


def core_report(
    qrels: str, run: str, metrics: list[str], conventions: dict[str, Any] | None = None
) -> _Report | None:
    """The report of ``evaluate(qrels, run, metrics, **conventions)`` (without a
    profile) as ``receval rank`` prints it, computed by the core from TREC files;
    None where this path does not compute it as ``evaluate`` does.

    Examples
    --------
    >>> core_report("qrels.csv", "run.csv", ["map"]) is None  # CSV files: evaluate reads them
    True
    """
    from ..data._open import infer_format

    if any(infer_format(p) not in (None, "trec") for p in (qrels, run)):
        return None
    plan = _plan(metrics, conventions or {})
    if plan is None:
        return None
    return _report(qrels, run, *plan)


def _plan(
    texts: list[str], conventions: dict[str, Any]
) -> tuple[list[str], dict[str, Any], dict[str, Any]] | None:
    """The metrics (as ``evaluate`` names them), their specs and conventions (the
    ``conventions`` given, None for the others); None where this path does not
    compute them as ``evaluate`` does (or they are not valid: ``run_rank`` says why)."""
    import warnings

    from ..exceptions import RecevalError
    from ..ranking.specs import grade_limits, prepare_metrics, tie_checked

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            given = {"profile": None, **conventions}
            metrics, specs, convs, listwise = prepare_metrics(texts, None, None, given)
        except RecevalError:
            return None
    if listwise or caught:  # a metric name that warns: run_rank prints the warning
        return None
    from .._kernels import codes as core_codes

    codes = core_codes()
    for t in metrics:
        spec, conv = specs[t], convs[t]
        if (
            spec.info.kind is None
            or spec.info.mean != "users"  # pooled, sums, geometric means
            or conv.zero_users == "skip"
            or "error" in (conv.missing_users, conv.empty_users)
            or conv.estimator != "naive"
            or grade_limits(spec, conv, given["profile"])  # grades it may refuse
            or spec.info.kind in codes.EXPOSURE_KINDS
            or (tie_checked(spec, conv) and _costly(spec))
        ):
            return None
    return metrics, specs, convs


def _costly(spec: Any) -> bool:
    """Whether ``evaluate`` computes a metric's ``ties="average"`` values within a
    budget per user (interpolated precision)."""
    from ..ranking.specs import TIE_COSTLY_KINDS

    return spec.info.kind in TIE_COSTLY_KINDS


def _report(
    qrels: str, run: str, metrics: list[str], specs: dict[str, Any], convs: dict[str, Any]
) -> _Report | None:
    """The report of ``run`` against ``qrels`` as ``evaluate`` makes it; None where the
    core does not read the files as they are, or ``evaluate`` warns about the ids."""
    from .._kernels import compiled
    from ..data._open import core_streams
    from ..ranking.specs import kernel_spec, tie_checked
    from ..trec.trec_eval import unmatched_due

    checked = [t for t in metrics if tie_checked(specs[t], convs[t])]
    kernel = [kernel_spec(specs[t], convs[t]) for t in metrics]
    kernel += [kernel_spec(specs[t], replace(convs[t], ties="average")) for t in checked]
    single = any(convs[t].ties == "trec" for t in checked)
    with core_streams(qrels, run) as streams:
        out = compiled().trec_rank_table(qrels, run, kernel, single, streams)
    if isinstance(out, str):  # a file the readers of run_rank read and report on
        return None
    users, in_run, tied, columns, aux, (n_run_users, _), matching = out
    if unmatched_due(matching):
        return None
    n_found = sum(in_run)
    report = _Report(
        mean={},
        users=users,
        values={},
        conventions={t: convs[t] for t in metrics},
        n_users=len(users),
        n_users_missing=len(users) - n_found,
        n_run_only_users=n_run_users - n_found,
        n_run_items=matching[3],
        n_run_items_unmatched=matching[3] - matching[2],
    )
    for j, t in enumerate(metrics):
        col = columns[j]
        report.values[t] = col
        report.mean[t] = _mean(col)
        report.n_users_empty[t] = sum(1 for d in aux[j] if d == 0)
        report.n_users_skipped_by[t] = _skipped_by(col, aux[j], in_run, convs[t])
        if convs[t].ties == "average":
            report.n_users_tie_dependent[t] = 0
    for j, t in enumerate(checked):
        col, avg = columns[metrics.index(t)], columns[len(metrics) + j]
        full = [a if tie else x for x, a, tie in zip(col, avg, tied, strict=True)]
        moved = sum(
            1
            for x, a, tie in zip(col, avg, tied, strict=True)
            if tie and (math.isinf(a) or not _close(x, a))
        )
        report.n_users_tie_dependent[t] = moved
        if moved:
            report.mean_ties_average[t] = _mean(full)
    return report


def _skipped_by(
    col: list[float], relevant: list[float], in_run: list[bool], conv: Any
) -> dict[str, int]:
    """``n_users_skipped_by`` of a metric of this path, as
    :func:`receval.ranking.report.skip_codes` counts it: the metrics here apply
    ``empty_users`` and ``missing_users`` alone (in the core), in that order."""
    from ..conventions import SKIP_REASONS

    by = dict.fromkeys(SKIP_REASONS, 0)
    for x, n, found in zip(col, relevant, in_run, strict=True):
        if x != x:
            if n == 0 and conv.empty_users == "skip":
                by["empty_users"] += 1
            elif not found and conv.missing_users == "skip":
                by["missing_users"] += 1
            else:
                by["no_value"] += 1
    return by


def _mean(values: list[float]) -> float:
    """The mean of the values that are not nan (nan when none is), exact: the sum
    correctly rounded, as :class:`receval.engine.sums.ExactSum` rounds it."""
    kept = [x for x in values if x == x]
    return math.fsum(kept) / len(kept) if kept else math.nan


def _close(a: float, b: float) -> bool:
    """``numpy.isclose(a, b, rtol, atol, equal_nan=True)`` at evaluate's tolerance."""
    if a != a or b != b:
        return a != a and b != b
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= _TOLERANCE + _TOLERANCE * abs(b)
